// SPDX-License-Identifier: MIT
//
// The PCIe host model's parts on their own, as a front end other than the world uses them
// (sim/pcie_host.h): the test plays the NIC's bus outputs cycle by cycle and serves the DMA
// slave from a memory of its own (a DmaMemory that is not the world's regions). Cycle-exact
// checks of the timing model of docs/timing-model.md, the firewall and the MSI-X capture.

#include <criterion/criterion.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "host_memory.h"
#include "nic_hw.h"
#include "pcie_host.h"

using nicsim_hw::AxiLiteMaster;
using nicsim_hw::DmaMemory;
using nicsim_hw::DmaSlave;
using nicsim_hw::Inputs;
using nicsim_hw::Outputs;
using nicsim_hw::PcieTiming;

namespace
{

// "Guest RAM": one window of bytes at a bus address; everything else is refused.
class WindowMemory final : public DmaMemory {
    public:
	WindowMemory(uint64_t base, size_t len)
		: base_(base)
		, bytes_(len)
	{
		for (size_t i = 0; i < len; i++)
			bytes_[i] = (uint8_t)(base + i);
	}
	bool dma_read(uint64_t addr, uint64_t len, uint8_t *to, nicsim_mem_kind *kind) override
	{
		if (!inside(addr, len))
			return false;
		std::memcpy(to, &bytes_[addr - base_], len);
		*kind = NICSIM_MEM_DATA;
		return true;
	}
	bool may_write(uint64_t addr, uint64_t len) override
	{
		return inside(addr, len);
	}
	bool dma_write(uint64_t addr, const uint8_t *data, const uint8_t *strb, uint64_t len,
		       nicsim_mem_kind *kind) override
	{
		if (!inside(addr, len))
			return false;
		for (uint64_t i = 0; i < len; i++)
			if (strb[i])
				bytes_[addr - base_ + i] = data[i];
		*kind = NICSIM_MEM_DATA;
		writes++;
		return true;
	}
	uint8_t at(uint64_t addr) const
	{
		return bytes_[addr - base_];
	}
	unsigned writes = 0;

    private:
	bool inside(uint64_t addr, uint64_t len) const
	{
		return addr >= base_ && addr + len <= base_ + bytes_.size();
	}
	uint64_t base_;
	std::vector<uint8_t> bytes_;
};

constexpr uint64_t kRam = 0x40000000ull;
constexpr uint64_t kMsix = 0xfee00000ull;
constexpr unsigned kBus = 32; // DataWidth 256
// pcie_mbps 7000 at 250 MHz: 28 bytes a cycle; 500 ns and 300 ns at 4 ns a cycle
const PcieTiming kTiming{ 28.0, 125, 75 };

struct Irq {
	unsigned nic;
	uint64_t address;
	uint32_t data;
	uint64_t cycle;
};
uint64_t g_now;
std::vector<Irq> g_irqs;
void on_irq(void *, unsigned nic, uint64_t address, uint32_t data)
{
	g_irqs.push_back({ nic, address, data, g_now });
}

} // namespace

Test(unit_pcie_host, dma_read_from_an_abstract_memory_after_latency_and_transfer)
{
	WindowMemory mem(kRam, 8192);
	nicsim_stats stats{};
	DmaSlave dma(0, kBus, kTiming, &mem, kMsix, 4096, &stats);
	Outputs o{};
	Inputs in{};
	o.rready = true;
	cr_assert_null(dma.cycle(0, o, in));
	cr_assert(in.arready && !in.rvalid);
	// cycle 1: a 2-beat read of 32-byte beats starting 16 bytes into the first beat
	o.arvalid = true;
	o.arid = 3;
	o.araddr = kRam + 0x1010;
	o.arlen = 1;
	o.arsize = 5;
	cr_assert_null(dma.cycle(1, o, in));
	o.arvalid = false;
	cr_expect_eq(stats.dma_reads, 1);
	cr_expect_eq(stats.dma_read_bytes, 48);
	// 48 bytes take ceil(48 / 28) = 2 cycles after the 125-cycle round trip: the first beat is
	// driven by the step of cycle 1 + 125 + 2 = 128, not one cycle before
	uint64_t now = 2;
	for (; now < 128; now++) {
		cr_assert_null(dma.cycle(now, o, in));
		cr_assert(!in.rvalid, "a beat at cycle %llu, before the read's time",
			  (unsigned long long)now);
	}
	cr_assert_null(dma.cycle(now, o, in));
	cr_assert(in.rvalid && in.rid == 3 && !in.rlast);
	for (unsigned i = 0; i < 16; i++)
		cr_expect_eq(in.rdata[i], 0, "byte %u below the start address carries no data", i);
	for (unsigned i = 16; i < 32; i++)
		cr_expect_eq(in.rdata[i], (uint8_t)(kRam + 0x1000 + i));
	// the beat is taken at the next edge (rready), then the last one is offered
	cr_assert_null(dma.cycle(++now, o, in));
	cr_assert(in.rvalid && in.rlast);
	for (unsigned i = 0; i < 32; i++)
		cr_expect_eq(in.rdata[i], (uint8_t)(kRam + 0x1020 + i));
	cr_assert_null(dma.cycle(++now, o, in));
	cr_expect(!in.rvalid);
}

Test(unit_pcie_host, dma_outside_the_memory_is_refused_with_a_message)
{
	WindowMemory mem(kRam, 4096);
	nicsim_stats stats{};
	DmaSlave dma(5, kBus, kTiming, &mem, kMsix, 4096, &stats);
	Outputs o{};
	Inputs in{};
	cr_assert_null(dma.cycle(0, o, in));
	o.arvalid = true;
	o.araddr = kRam + 4096 + 16; // the 16 bytes to the end of a beat past the memory
	o.arlen = 0;
	o.arsize = 5;
	const char *err = dma.cycle(1, o, in);
	cr_assert_not_null(err);
	cr_expect(std::string(err).find("NIC 5 DMA read of 16 bytes") != std::string::npos, "%s",
		  err);
	cr_expect_eq(stats.dma_reads, 0);
	// a write request outside is refused when its AW arrives, before any data
	DmaSlave dma2(5, kBus, kTiming, &mem, kMsix, 4096, &stats);
	Outputs w{};
	Inputs win{};
	cr_assert_null(dma2.cycle(0, w, win));
	w.awvalid = true;
	w.awaddr = kRam + 8192;
	w.awsize = 5;
	err = dma2.cycle(1, w, win);
	cr_assert_not_null(err);
	cr_expect(std::string(err).find("DMA write of 32 bytes") != std::string::npos, "%s", err);
}

Test(unit_pcie_host, writes_land_in_order_and_msix_after_the_write_before_it)
{
	WindowMemory mem(kRam, 4096);
	nicsim_stats stats{};
	DmaSlave dma(2, kBus, kTiming, &mem, kMsix, 4096, &stats);
	dma.set_irq_handler(on_irq, nullptr);
	g_irqs.clear();
	Outputs o{};
	Inputs in{};
	o.bready = true;
	cr_assert_null(dma.cycle(0, o, in));
	// cycle 1: AW and the single W beat of a 32-byte write (a CQE, say) at kRam + 0x40
	o.awvalid = true;
	o.awaddr = kRam + 0x40;
	o.awsize = 5;
	o.awlen = 0;
	cr_assert_null(dma.cycle(1, o, in));
	o.awvalid = false;
	cr_assert(in.wready);
	o.wvalid = true;
	o.wlast = true;
	o.wstrb = 0xffffffffu;
	for (unsigned i = 0; i < 32; i++)
		o.wdata[i] = 0xa0 + i;
	cr_assert_null(dma.cycle(2, o, in));
	o.wvalid = false;
	// cycle 3: an MSI-X message (4 bytes at kMsix + 8, data 0x11), then nothing
	o.awvalid = true;
	o.awaddr = kMsix + 8;
	o.awsize = 2;
	cr_assert_null(dma.cycle(3, o, in));
	o.awvalid = false;
	o.wvalid = true;
	o.wlast = true;
	o.wstrb = 0xfu << 8; // lanes of address kMsix + 8 on a 32-byte bus
	std::memset(o.wdata, 0, sizeof(o.wdata));
	o.wdata[8] = 0x11;
	cr_assert_null(dma.cycle(4, o, in));
	o.wvalid = false;
	// the write's 32 bytes take 2 cycles from cycle 2 and land 75 cycles later: visible in the
	// step of cycle 79; the message's 4 bytes take 1 cycle after it (from cycle 4, the link
	// is free again then) and 75 later: 80
	for (g_now = 5; g_now < 79; g_now++)
		cr_assert_null(dma.cycle(g_now, o, in));
	cr_expect_eq(mem.writes, 0, "visible before its time");
	cr_assert_null(dma.cycle(g_now, o, in));
	cr_expect_eq(mem.writes, 1);
	cr_expect_eq(mem.at(kRam + 0x40), 0xa0);
	cr_expect_eq(mem.at(kRam + 0x5f), 0xbf);
	cr_expect(g_irqs.empty());
	for (g_now = 80; g_now < 90; g_now++)
		cr_assert_null(dma.cycle(g_now, o, in));
	cr_assert_eq(g_irqs.size(), 1);
	cr_expect_eq(g_irqs[0].nic, 2);
	cr_expect_eq(g_irqs[0].address, kMsix + 8);
	cr_expect_eq(g_irqs[0].data, 0x11);
	cr_expect_eq(g_irqs[0].cycle, 80);
	cr_expect_eq(mem.writes, 1, "the message is not a memory write");
	cr_expect_eq(stats.interrupts, 1);
	cr_expect_eq(stats.dma_writes, 1);
	cr_expect_eq(stats.dma_write_bytes, 32);
}

Test(unit_pcie_host, mmio_write_waits_for_its_due_cycle_and_counts_a_doorbell)
{
	nicsim_stats stats{};
	AxiLiteMaster mmio(&stats);
	Outputs o{};
	Inputs in{};
	o.axil_awready = o.axil_wready = true;
	const uint32_t sq_db = NIC_REG_QP_DB_BASE + NIC_DB_SQ_PI;
	mmio.post_write(5, sq_db, 7, 0xf);
	cr_expect(mmio.writes_pending());
	uint64_t now = 0;
	for (; now < 5; now++) {
		mmio.cycle(now, o, in);
		cr_assert(!in.axil_awvalid && !in.axil_wvalid, "presented before it is due");
	}
	mmio.cycle(now, o, in); // due: presented for the next edge
	cr_assert(in.axil_awvalid && in.axil_wvalid);
	cr_expect_eq(in.axil_awaddr, sq_db);
	cr_expect_eq(in.axil_wdata, 7);
	mmio.cycle(++now, o, in); // AW and W taken
	cr_expect(!in.axil_awvalid && !in.axil_wvalid);
	cr_expect_eq(stats.mmio_writes, 1);
	cr_expect_eq(stats.sq_doorbells, 1);
	cr_expect(mmio.writes_pending(), "its response is still owed");
	o.axil_bvalid = true;
	mmio.cycle(++now, o, in);
	o.axil_bvalid = false;
	cr_expect(!mmio.writes_pending());
	// a read: presented until AR is taken, done when R arrives
	mmio.start_read(0x10);
	o.axil_arready = false;
	mmio.cycle(++now, o, in);
	cr_assert(in.axil_arvalid);
	cr_expect_eq(in.axil_araddr, 0x10);
	o.axil_arready = true;
	mmio.cycle(++now, o, in);
	cr_expect(!in.axil_arvalid);
	o.axil_rvalid = true;
	o.axil_rdata = 0x1234;
	mmio.cycle(++now, o, in);
	cr_expect(mmio.read_done());
	cr_expect_eq(mmio.read_value(), 0x1234);
	cr_expect_eq(stats.mmio_reads, 1);
}
