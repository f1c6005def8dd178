// SPDX-License-Identifier: MIT
//
// The PCIe host model of one NIC: what the host side of the link does on the core's two bus
// interfaces. Internal to the harness (C++); nicsim.h is the C API, docs/timing-model.md the
// timing.
//
// - AxiLiteMaster: BAR0 MMIO into the core's AXI4-Lite slave, one access at a time. Writes are
//   posted: queued with the cycle they reach the NIC (the caller adds the write latency) and
//   presented in order; a read is started when no write is pending (PCIe ordering is the
//   caller's loop: nicsim_mmio_read32) and its value is kept until the next one.
// - DmaSlave: the core's AXI4 master (DMA) served from a DmaMemory (host_memory.h) with the
//   PCIe timing model: a read request takes its data when it reaches the host (plus the posted
//   writes before it, which it may not pass), then returns it after dma_read_cycles and its
//   size at bytes_per_cycle, one read after another, at most kMaxReadsInFlight outstanding; a
//   write is posted when its last beat arrives and becomes visible (lands in the memory) after
//   its size at bytes_per_cycle and dma_write_cycles, in order. A write into the MSI-X window
//   is an interrupt message instead: at the moment it would have landed (so after the CQE
//   writes before it), the irq handler gets its address and data.
// - Fault injection (tests): the reads or writes that touch an address range can be answered
//   with an AXI error (SLVERR, as the board's PCIe interface answers a completion error or
//   timeout): such a read returns SLVERR on every beat and no data, such a write lands nowhere
//   (no memory change, no interrupt) and its B response is SLVERR. set_fault() says which.
// - The firewall, bursts that cross 4 KiB, beats wider than the bus, write strobes outside
//   their beat, W before AW and a wrong WLAST are errors of the NIC: cycle() returns a message
//   (the world makes it fatal; another front end may report it and stop).
//
// Each cycle(now, o, in) takes the handshakes that complete at this rising edge, decided on the
// outputs `o` sampled before it and the inputs `in` driven for it, and writes the next values
// of its own inputs into `in` (the two classes drive disjoint pins). Statistics go into the
// nicsim_stats given at construction. Nothing here depends on the world: a second front end
// (one NIC stepped by its own loop, memory = guest RAM) uses the two classes as they are.
#ifndef PCIE_HOST_H
#define PCIE_HOST_H

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "host_memory.h"
#include "nic_model.h"
#include "nicsim.h"

namespace nicsim_hw
{

class AxiLiteMaster {
    public:
	explicit AxiLiteMaster(nicsim_stats *stats)
		: stats_(stats)
	{
	}
	// a posted write: presented to the NIC from cycle `due` on, after those queued before it
	void post_write(uint64_t due, uint32_t offset, uint32_t value, uint32_t strb)
	{
		queue_.push_back({ due, offset, value, strb });
	}
	// a write is queued or waits for its response
	bool writes_pending() const
	{
		return !queue_.empty() || wait_b_;
	}
	uint32_t head_offset() const // of the oldest queued write (0 when none): for messages
	{
		return queue_.empty() ? 0 : queue_.front().offset;
	}
	// start a read of `offset`; read_done() once its data arrived, then read_value()
	void start_read(uint32_t offset)
	{
		read_offset_ = offset;
		read_pending_ = true;
		read_done_ = false;
	}
	bool read_done() const
	{
		return read_done_;
	}
	uint32_t read_value() const
	{
		return read_value_;
	}
	void cycle(uint64_t now, const Outputs &o, Inputs &in)
	{
		// Idle (no access queued, under way or answered): the inputs of an idle master. Most
		// cycles of a world are idle, and this stays inline in its cycle loop.
		if (queue_.empty() && !wait_b_ && !aw_done_ && !w_done_ && !read_pending_ &&
		    !in.axil_awvalid && !in.axil_wvalid && !in.axil_arvalid && !o.axil_bvalid &&
		    !o.axil_rvalid) {
			in.axil_awvalid = false;
			in.axil_wvalid = false;
			in.axil_bready = true;
			in.axil_arvalid = false;
			in.axil_araddr = read_offset_;
			in.axil_rready = true;
			return;
		}
		cycle_busy(now, o, in);
	}

    private:
	void cycle_busy(uint64_t now, const Outputs &o, Inputs &in);
	struct Write {
		uint64_t due; // cycle at which it reaches the NIC
		uint32_t offset, value;
		uint32_t strb; // byte strobes (0xf for every write the driver makes)
	};
	void count_write(uint32_t offset);

	nicsim_stats *stats_;
	std::deque<Write> queue_;
	bool aw_done_ = false, w_done_ = false, wait_b_ = false;
	bool read_pending_ = false, read_done_ = false;
	uint32_t read_offset_ = 0, read_value_ = 0;
};

// The link's timing (docs/timing-model.md), in cycles of the NIC's clock.
struct PcieTiming {
	double bytes_per_cycle;	   // DMA bandwidth, each direction
	uint64_t dma_read_cycles;  // fixed part of a read's round trip
	uint64_t dma_write_cycles; // a write's last byte sent -> visible in host memory
};

class DmaSlave {
    public:
	static constexpr unsigned kMaxReadsInFlight = 32; // PCIe read tags
	static constexpr unsigned kMaxWritesAccepted = 4; // AW accepted ahead of their W beats

	// nic: the index used in messages and given to the irq handler; the MSI-X window: writes
	// into [msix_base, msix_base + msix_bytes) are interrupt messages, not memory
	DmaSlave(unsigned nic, unsigned bus_bytes, const PcieTiming &timing, DmaMemory *memory,
		 uint64_t msix_base, uint64_t msix_bytes, nicsim_stats *stats)
		: nic_(nic)
		, bus_bytes_(bus_bytes)
		, timing_(timing)
		, memory_(memory)
		, msix_base_(msix_base)
		, msix_bytes_(msix_bytes)
		, stats_(stats)
	{
	}
	// the receiver of MSI-X messages (called from inside cycle()); none = counted only
	void set_irq_handler(nicsim_irq_fn fn, void *ctx)
	{
		irq_fn_ = fn;
		irq_ctx_ = ctx;
	}
	// Answer the bursts that overlap [addr, addr + len) in the direction `write` with SLVERR:
	// the first `skip` such bursts are served normally, then `count` fail (0: all later ones).
	// len 0 removes the rule of that direction.
	void set_fault(bool write, uint64_t addr, uint64_t len, unsigned skip, unsigned count)
	{
		Fault &f = write ? wr_fault_ : rd_fault_;
		f.on = len != 0;
		f.lo = addr;
		f.hi = addr + len;
		f.skip = skip;
		f.count = count;
		f.forever = count == 0;
	}
	// DMA writes accepted and not yet visible in memory
	bool writes_pending() const
	{
		return !writes_.empty() || !posted_.empty();
	}
	// nullptr, or the NIC's protocol or firewall error (the cycle stopped there)
	const char *cycle(uint64_t now, const Outputs &o, Inputs &in)
	{
		// Idle (nothing requested, in flight or owed): the inputs of an idle slave. Most
		// cycles of a world are idle, and this stays inline in its cycle loop.
		if (!o.arvalid && !o.awvalid && !o.wvalid && !in.rvalid && !in.bvalid &&
		    reads_.empty() && writes_.empty() && posted_.empty() && b_ids_.empty()) {
			in.arready = true;
			in.rvalid = false;
			in.awready = true;
			in.wready = false;
			in.bvalid = false;
			in.bid = 0;
			in.bresp = 0;
			return nullptr;
		}
		return cycle_busy(now, o, in);
	}

    private:
	const char *cycle_busy(uint64_t now, const Outputs &o, Inputs &in);
	// AXI4 INCR bursts: beat i covers [base + i * size, base + (i + 1) * size) with base the
	// start address aligned down to the beat size; the bytes of a beat sit on the byte lanes of
	// its address modulo the bus width (narrow transfers), and bytes below the start address
	// of an unaligned burst carry no data.
	struct Fault {
		bool on = false, forever = false;
		uint64_t lo = 0, hi = 0;
		unsigned skip = 0, count = 0;
	};
	// whether the burst [lo, hi) is to fail (and the rule's counters move)
	static bool fault_hits(Fault &f, uint64_t lo, uint64_t hi)
	{
		if (!f.on || hi <= f.lo || lo >= f.hi)
			return false;
		if (f.skip) {
			f.skip--;
			return false;
		}
		if (f.forever)
			return true;
		if (!f.count)
			return false;
		f.count--;
		return true;
	}
	struct Read {
		uint32_t id;
		bool err; // answered SLVERR (fault injection)
		uint64_t base;
		unsigned beats, beat_bytes, sent;
		uint64_t ready;		   // cycle the first beat may go
		std::vector<uint8_t> data; // snapshot taken when the request reached the host
	};
	struct Write {
		uint64_t addr, base;
		unsigned beats, beat_bytes, got;
		uint32_t id;
		bool err; // lands nowhere, B is SLVERR (fault injection)
		std::vector<uint8_t> data, strb;
		uint64_t visible; // cycle it lands in host memory
	};
	bool is_msix(uint64_t addr) const
	{
		return addr >= msix_base_ && addr < msix_base_ + msix_bytes_;
	}
	const char *error(const char *fmt, ...) __attribute__((format(printf, 2, 3)));

	unsigned nic_, bus_bytes_;
	PcieTiming timing_;
	DmaMemory *memory_;
	uint64_t msix_base_, msix_bytes_;
	nicsim_stats *stats_;
	nicsim_irq_fn irq_fn_ = nullptr;
	void *irq_ctx_ = nullptr;
	std::string error_;

	std::deque<Read> reads_;   // in order of acceptance; R beats in that order
	uint64_t rd_free_ = 0;	   // the read direction of the link is busy until then
	std::deque<Write> writes_; // bursts collecting W beats, in AW order
	std::deque<Write> posted_; // complete writes waiting to become visible, in order
	uint64_t wr_free_ = 0;
	struct BResp {
		uint32_t id, resp;
	};
	std::deque<BResp> b_ids_; // B responses owed
	Fault rd_fault_, wr_fault_;
};

} // namespace nicsim_hw

#endif // PCIE_HOST_H
