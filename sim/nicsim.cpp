// SPDX-License-Identifier: MIT
//
// nicsim: a deterministic world of Verilated nic_core instances and their hosts.
// See nicsim.h for the contract. The structure of one clock cycle, per NIC:
//
//   1. the DUT's outputs (settled after the previous rising edge) and the inputs we drove are
//      compared to find the handshakes that complete at this rising edge;
//   2. the host models (MMIO master, DMA slave with the PCIe timing model, host memory, MSI-X
//      capture) act on those handshakes and compute the next inputs;
//   3. the network (nicsim_net.cpp) takes the stream handshakes of this edge, moves frames
//      between the ports and computes every NIC's next stream inputs;
//   4. rising edge with those next inputs (drive, clk 1, eval), then clk 0 (an eval that only
//      records the clock level: nothing is sensitive to the falling edge).
//
// The Verilated top is nic_sim_top (tools/gensimtop.py): nic_core with its inputs registered on
// the rising edge, in the same update as the core's registers, so the core's registers at this
// edge see the inputs of the cycle before and its logic after the edge sees the new ones: the
// same input values in the same cycles as inputs that change at the falling edge between, and
// Verilator evaluates the core's combinational logic once per cycle.
//
// Statistics are counted here, on the buses, never read from the RTL.

#include "nicsim.h"
#include "nicsim_net.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Vnic_core_w256.h"
#include "Vnic_core_w256___024root.h" // only its size: see ModelOf::snapshot
#include "Vnic_core_w256_ram_words.h"
#include "Vnic_core_w64.h"
#include "Vnic_core_w64_ram_words.h"
#include "Vnic_core_w64___024root.h"
#include "nic_hw.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace
{

constexpr uint64_t kHostBase = 0x100000000ull; // logical addresses start above 4 GiB
constexpr uint64_t kGuard = 4096;	       // unmapped gap after each region
constexpr unsigned kMaxReadsInFlight = 32;     // PCIe read tags
constexpr unsigned kResetCycles = 8;

// Host memory at addresses that do not depend on the program. Buffers' virtual addresses reach
// the NIC (memory-region VAs in RETHs, request contexts), so a buffer from the C heap would
// make the NIC's outputs depend on where the heap happens to be, which moves whenever the
// program's size does. The DMA regions are mapped instead at a process-wide bump address from
// a fixed base, never reused, with a guard page between regions: the same calls give the same
// addresses in every build (NDK_SIM_OUTHASH relies on it). If the address is taken, the kernel
// picks one (the run is still correct, only not address-repeatable).
constexpr uint64_t kHostVaBase = 0x3f0000000000ull;
std::atomic<uint64_t> next_host_va{ kHostVaBase };

uint8_t *host_pages_alloc(size_t len)
{
	const uint64_t at = next_host_va.fetch_add(len + kGuard);
	void *p = mmap(reinterpret_cast<void *>(at), len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}
// Verilator lays out a model's root object with its 8-bit and 16-bit signals first (state
// machines, counters, flags: ~1.1 KiB for nic_core), the wide signals and memories after them.
constexpr size_t kHeadBytes = 1024;

// ---------------------------------------------------------------------------------------------
// Pins: the DUT's ports as plain data, independent of the data width.

struct Outputs {
	bool axil_awready, axil_wready, axil_bvalid, axil_arready, axil_rvalid;
	uint32_t axil_rdata;
	bool awvalid;
	uint32_t awid, awlen, awsize;
	uint64_t awaddr;
	bool wvalid, wlast;
	uint8_t wdata[32];
	uint32_t wstrb;
	bool bready;
	bool arvalid;
	uint32_t arid, arlen, arsize;
	uint64_t araddr;
	bool rready;
	nicnet::StreamOut stream; // the network port
};

struct Inputs {
	bool rst;
	bool us_tick;	   // the core's microsecond time base
	uint64_t port_mac; // the port's identity (constant per NIC)
	uint32_t port_ipv4;
	uint32_t axil_awaddr, axil_wdata, axil_araddr;
	uint32_t axil_wstrb;
	bool axil_awvalid, axil_wvalid, axil_bready, axil_arvalid, axil_rready;
	bool awready, wready, bvalid;
	uint32_t bid;
	bool arready;
	bool rvalid, rlast;
	uint32_t rid, rresp;
	uint8_t rdata[32];
	nicnet::StreamIn stream; // the network port (computed by the network)
};

bool same_inputs(const Inputs &a, const Inputs &b)
{
	return a.rst == b.rst && a.us_tick == b.us_tick && a.port_mac == b.port_mac &&
	       a.port_ipv4 == b.port_ipv4 && a.axil_awaddr == b.axil_awaddr &&
	       a.axil_wdata == b.axil_wdata && a.axil_wstrb == b.axil_wstrb &&
	       a.axil_araddr == b.axil_araddr && a.axil_awvalid == b.axil_awvalid &&
	       a.axil_wvalid == b.axil_wvalid && a.axil_bready == b.axil_bready &&
	       a.axil_arvalid == b.axil_arvalid && a.axil_rready == b.axil_rready &&
	       a.awready == b.awready && a.wready == b.wready && a.bvalid == b.bvalid &&
	       a.bid == b.bid && a.arready == b.arready && a.rvalid == b.rvalid &&
	       a.rlast == b.rlast && a.rid == b.rid && a.rresp == b.rresp &&
	       !std::memcmp(a.rdata, b.rdata, sizeof(a.rdata)) &&
	       a.stream.tx_tready == b.stream.tx_tready &&
	       a.stream.rx_tvalid == b.stream.rx_tvalid && a.stream.rx_tlast == b.stream.rx_tlast &&
	       a.stream.rx_tkeep == b.stream.rx_tkeep &&
	       !std::memcmp(a.stream.rx_tdata, b.stream.rx_tdata, sizeof(a.stream.rx_tdata));
}

// One Verilated model behind a width-independent interface.
class Model {
    public:
	virtual ~Model() = default;
	virtual void sample(Outputs &o) = 0;
	virtual void drive(const Inputs &in) = 0;
	virtual void edge(bool clk) = 0;
	virtual void trace_open(const char *path) = 0;
	virtual void trace_dump(uint64_t t) = 0;
	virtual void trace_close() = 0;
	// The model's state, as bytes: remember it, and compare the state with it now. The
	// snapshot leaves the RAM words out (see ModelOf); the whole one, for the self-test, keeps
	// every byte.
	virtual void snapshot() = 0;
	virtual bool same_as_snapshot() const = 0;
	virtual void snapshot_whole() = 0;
	virtual bool same_as_whole() const = 0;
	// The same for the first kHeadBytes of it only (a cheap necessary condition, see
	// probe_quiet): remember them, and compare them with what was remembered.
	virtual void record_head() = 0;
	virtual bool same_head() const = 0;
};

template <class M, unsigned W> class ModelOf final : public Model {
    public:
	ModelOf(VerilatedContext *ctx, const char *name)
		: m_(new M{ ctx, name })
	{
		leave_out_ram_words();
	}
	~ModelOf() override
	{
		trace_close();
		m_->final();
	}

	void sample(Outputs &o) override
	{
		o.axil_awready = m_->s_axil_awready_o;
		o.axil_wready = m_->s_axil_wready_o;
		o.axil_bvalid = m_->s_axil_bvalid_o;
		o.axil_arready = m_->s_axil_arready_o;
		o.axil_rvalid = m_->s_axil_rvalid_o;
		o.axil_rdata = m_->s_axil_rdata_o;
		o.awvalid = m_->m_axi_awvalid_o;
		o.awid = m_->m_axi_awid_o;
		o.awaddr = m_->m_axi_awaddr_o;
		o.awlen = m_->m_axi_awlen_o;
		o.awsize = m_->m_axi_awsize_o;
		o.wvalid = m_->m_axi_wvalid_o;
		o.wlast = m_->m_axi_wlast_o;
		o.wstrb = m_->m_axi_wstrb_o;
		if (o.wvalid)
			get_wide(m_->m_axi_wdata_o, o.wdata);
		o.bready = m_->m_axi_bready_o;
		o.arvalid = m_->m_axi_arvalid_o;
		o.arid = m_->m_axi_arid_o;
		o.araddr = m_->m_axi_araddr_o;
		o.arlen = m_->m_axi_arlen_o;
		o.arsize = m_->m_axi_arsize_o;
		o.rready = m_->m_axi_rready_o;
		o.stream.tx_tvalid = m_->m_axis_tx_tvalid_o;
		if (o.stream.tx_tvalid) {
			o.stream.tx_tlast = m_->m_axis_tx_tlast_o;
			o.stream.tx_tkeep = m_->m_axis_tx_tkeep_o;
			get_wide(m_->m_axis_tx_tdata_o, o.stream.tx_tdata);
		}
		o.stream.rx_tready = m_->s_axis_rx_tready_o;
	}

	void drive(const Inputs &in) override
	{
		m_->rst_i = in.rst;
		m_->us_tick_i = in.us_tick;
		m_->port_mac_i = in.port_mac;
		m_->port_ipv4_i = in.port_ipv4;
		m_->s_axil_awaddr_i = in.axil_awaddr;
		m_->s_axil_awvalid_i = in.axil_awvalid;
		m_->s_axil_wdata_i = in.axil_wdata;
		m_->s_axil_wstrb_i = in.axil_wstrb;
		m_->s_axil_wvalid_i = in.axil_wvalid;
		m_->s_axil_bready_i = in.axil_bready;
		m_->s_axil_araddr_i = in.axil_araddr;
		m_->s_axil_arvalid_i = in.axil_arvalid;
		m_->s_axil_rready_i = in.axil_rready;
		m_->m_axi_awready_i = in.awready;
		m_->m_axi_wready_i = in.wready;
		m_->m_axi_bid_i = in.bid;
		m_->m_axi_bresp_i = 0;
		m_->m_axi_bvalid_i = in.bvalid;
		m_->m_axi_arready_i = in.arready;
		m_->m_axi_rid_i = in.rid;
		m_->m_axi_rresp_i = in.rresp;
		m_->m_axi_rlast_i = in.rlast;
		m_->m_axi_rvalid_i = in.rvalid;
		if (in.rvalid)
			set_wide(m_->m_axi_rdata_i, in.rdata);
		m_->m_axis_tx_tready_i = in.stream.tx_tready;
		m_->s_axis_rx_tvalid_i = in.stream.rx_tvalid;
		m_->s_axis_rx_tlast_i = in.stream.rx_tlast;
		m_->s_axis_rx_tkeep_i = in.stream.rx_tkeep;
		if (in.stream.rx_tvalid)
			set_wide(m_->s_axis_rx_tdata_i, in.stream.rx_tdata);
	}

	void edge(bool clk) override
	{
		m_->clk_i = clk;
		m_->eval();
	}

	void trace_open(const char *path) override
	{
		trace_ = std::make_unique<VerilatedFstC>();
		m_->trace(trace_.get(), 99);
		trace_->open(path);
	}
	void trace_dump(uint64_t t) override
	{
		if (trace_)
			trace_->dump(t);
	}
	void trace_close() override
	{
		if (trace_) {
			trace_->close();
			trace_.reset();
		}
	}

	// Verilator keeps every bit of a model's state (signals, memories, its scheduling
	// bookkeeping) in one root object, which is copied and compared here as opaque bytes: no
	// field of it is read. The model is a deterministic function of that state and its inputs.
	//
	// RAM words. Most of those bytes (~150 KiB at width 256) are the words of the nic_ram_1r1w
	// instances, and a cycle changes them only through a RAM's write port. Each instance has a
	// simulation-only bit that flips with every write (sim_wr_flip_q, rtl/lib/nic_ram_1r1w.sv): a
	// cycle after which every other byte, those bits included, is unchanged wrote no RAM, so
	// the words are unchanged too, and the comparison may leave them out. The ranges come from
	// the model's own header (tools/genramwords.py, which fails the build if a RAM lacks the
	// bit). NDK_SIM_SKIP_QUIET=check compares the whole state, words included, with a whole
	// copy taken when the probe found the fixed point.
	void leave_out_ram_words()
	{
		const uint8_t *base = reinterpret_cast<const uint8_t *>(m_->rootp);
		std::vector<std::pair<size_t, size_t>> out; // [begin, end) left out
		for (const auto &w : nicsim_ram_words(m_->rootp)) {
			const size_t b = static_cast<const uint8_t *>(w.first) - base;
			out.push_back({ b, b + w.second });
		}
		std::sort(out.begin(), out.end());
		segs_.clear();
		size_t at = 0;
		for (const auto &o : out) {
			if (o.first > at)
				segs_.push_back({ at, o.first - at });
			at = std::max(at, o.second);
		}
		if (at < sizeof(*m_->rootp))
			segs_.push_back({ at, sizeof(*m_->rootp) - at });
		size_t bytes = 0;
		for (const auto &g : segs_)
			bytes += g.second;
		snap_.assign(bytes, 0);
	}
	void snapshot() override
	{
		const uint8_t *base = reinterpret_cast<const uint8_t *>(m_->rootp);
		uint8_t *to = snap_.data();
		for (const auto &g : segs_) {
			std::memcpy(to, base + g.first, g.second);
			to += g.second;
		}
	}
	void snapshot_whole() override
	{
		whole_.resize(sizeof(*m_->rootp));
		std::memcpy(whole_.data(), m_->rootp, whole_.size());
	}
	bool same_as_whole() const override
	{
		return whole_.size() == sizeof(*m_->rootp) &&
		       !std::memcmp(whole_.data(), m_->rootp, whole_.size());
	}
	bool same_as_snapshot() const override
	{
		const uint8_t *base = reinterpret_cast<const uint8_t *>(m_->rootp);
		const uint8_t *from = snap_.data();
		for (const auto &g : segs_) {
			if (std::memcmp(from, base + g.first, g.second))
				return false;
			from += g.second;
		}
		return true;
	}
	void record_head() override
	{
		std::memcpy(head_, m_->rootp, std::min(sizeof(head_), sizeof(*m_->rootp)));
	}
	bool same_head() const override
	{
		return !std::memcmp(head_, m_->rootp, std::min(sizeof(head_), sizeof(*m_->rootp)));
	}

    private:
	// 64-bit ports are QData; 256-bit ports are VlWide<8> (little-endian 32-bit words)
	template <class T> static void get_wide(const T &v, uint8_t *bytes)
	{
		if constexpr (W == 64) {
			uint64_t x = v;
			std::memcpy(bytes, &x, 8);
		} else {
			for (unsigned i = 0; i < W / 32; i++) {
				uint32_t x = v[i];
				std::memcpy(bytes + 4 * i, &x, 4);
			}
		}
	}
	template <class T> static void set_wide(T &v, const uint8_t *bytes)
	{
		if constexpr (W == 64) {
			uint64_t x;
			std::memcpy(&x, bytes, 8);
			v = x;
		} else {
			for (unsigned i = 0; i < W / 32; i++) {
				uint32_t x;
				std::memcpy(&x, bytes + 4 * i, 4);
				v[i] = x;
			}
		}
	}

	std::unique_ptr<M> m_;
	std::unique_ptr<VerilatedFstC> trace_;
	std::vector<std::pair<size_t, size_t>> segs_; // [offset, length) compared and copied
	std::vector<uint8_t> snap_;
	std::vector<uint8_t> whole_;
	uint8_t head_[kHeadBytes];
};

// ---------------------------------------------------------------------------------------------
// The host of one NIC.

struct Region {
	uint64_t logical;
	size_t length;	  // as requested: the firewall is exact to the byte
	size_t alloc_len; // page rounded
	enum nicsim_mem_kind kind;
	uint8_t *va;
};

struct MmioWrite {
	uint64_t due; // cycle at which it reaches the NIC
	uint32_t offset, value;
	uint32_t strb; // byte strobes (0xf for every write the driver makes)
};

// AXI4 INCR bursts: beat i covers [base + i * size, base + (i + 1) * size) with base the
// start address aligned down to the beat size; the bytes of a beat sit on the byte lanes of its
// address modulo the bus width (narrow transfers), and bytes below the start address of an
// unaligned burst carry no data.
struct DmaRead {
	uint32_t id;
	uint64_t base;
	unsigned beats, beat_bytes, sent;
	uint64_t ready;		   // cycle the first beat may go
	std::vector<uint8_t> data; // snapshot taken when the request reached the host
};

struct DmaWrite {
	uint64_t addr, base;
	unsigned beats, beat_bytes, got;
	uint32_t id;
	std::vector<uint8_t> data, strb;
	uint64_t visible; // cycle it lands in host memory
};

} // namespace

struct nicsim_nic {
	unsigned index;
	unsigned bus_bytes; // DataWidth / 8
	std::unique_ptr<Model> model;
	Outputs out{};
	Outputs out_before{}; // the outputs sampled in the cycle before (quiescence pre-check)
	Inputs in{};
	nicsim_stats stats{};

	// Quiescence (see world_cycle): the inputs last driven, whether the model is at a fixed
	// point for them, and the probing that finds out.
	Inputs driven{};
	bool quiet = false;
	bool snap_valid = false;    // a snapshot was taken after the last eval, inputs unchanged
	unsigned probe_wait = 0;    // cycles before the next snapshot
	unsigned probe_backoff = 1; // doubles after each probe that finds the model still busy
	// The snapshot holds a verified fixed point for the inputs snap_in (set when a probe found
	// one, cleared when another snapshot replaces it). A NIC woken from it by a passing input
	// change, typically the microsecond tick, that leaves its state unchanged is back at it as
	// soon as snap_in is driven again: the next rewake evals compare with it.
	bool snap_fixed = false;
	Inputs snap_in{};
	unsigned rewake = 0;
	bool evaluated = false; // in this cycle (world_cycle)
	bool same = false;	// ... with the inputs of the cycle before

	std::map<uint64_t, Region> regions;
	uint64_t next_logical = kHostBase;
	uint64_t allocated = 0;
	const Region *last_hit = nullptr;

	// MMIO master (AXI4-Lite): one write or read at a time
	std::deque<MmioWrite> mmio_queue;
	bool mmio_aw_done = false, mmio_w_done = false, mmio_wait_b = false;
	bool mmio_read_pending = false, mmio_read_done = false;
	uint32_t mmio_read_offset = 0, mmio_read_value = 0;

	// DMA slave (AXI4)
	std::deque<DmaRead> reads;   // in order of acceptance; R beats in that order
	uint64_t pcie_rd_free = 0;   // the read direction of the link is busy until then
	std::deque<DmaWrite> writes; // bursts collecting W beats, in AW order
	std::deque<DmaWrite> posted; // complete writes waiting to become visible, in order
	uint64_t pcie_wr_free = 0;
	unsigned b_pending = 0; // B responses owed
	std::deque<uint32_t> b_ids;
};

struct nicsim {
	nicsim_config cfg{};
	std::string trace_path;
	std::unique_ptr<VerilatedContext> ctx;
	std::vector<std::unique_ptr<nicsim_nic>> nics;
	std::unique_ptr<nicnet::Network> net; // links, switch, RX ports, pcap capture
	uint64_t cycle = 0;
	uint64_t host_acc = 0; // host time carried over, in ns * clock_mhz units (1000 = 1 cycle)
	nicsim_irq_fn irq_fn = nullptr;
	void *irq_ctx = nullptr;
	double bytes_per_cycle = 0;
	uint64_t dma_read_cycles = 0, dma_write_cycles = 0, mmio_write_cycles = 0,
		 mmio_read_cycles = 0;
	bool skip_quiet = true;	  // skip the evaluation of quiescent NICs (off while tracing)
	bool check_quiet = false; // ... but evaluate them anyway and check that nothing changes
	// NDK_SIM_OUTHASH=path: every NIC's outputs of every cycle folded into one hash, appended
	// to path when the world ends (see outhash_cycle)
	std::string outhash_path;
	uint64_t outhash_ctl = 0;  // every pin but the data buses
	uint64_t outhash_data = 0; // DMA wdata and TX tdata (with their valid)
};

namespace
{

[[noreturn]] void fatal(const nicsim *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void fatal(const nicsim *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::fprintf(stderr, "nicsim: FATAL at cycle %llu: ", (unsigned long long)w->cycle);
	std::vfprintf(stderr, fmt, ap);
	va_end(ap);
	std::fprintf(stderr,
		     "\nnicsim: rerun with waves: NDK_SIM_TRACE=/tmp/ndknic.fst <the same command>"
		     " (then: gtkwave /tmp/ndknic.fst)\n");
	for (auto &n : w->nics)
		n->model->trace_close();
	if (w->net) // the capture up to the failure helps to find it
		w->net->flush_pcap();
	std::fflush(stdout);
	std::fflush(stderr);
	std::abort();
}

uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

const Region *find_region(nicsim_nic *n, uint64_t addr, uint64_t len)
{
	const Region *r = n->last_hit;
	if (!r || addr < r->logical || addr + len > r->logical + r->length) {
		auto it = n->regions.upper_bound(addr);
		if (it == n->regions.begin())
			return nullptr;
		--it;
		r = &it->second;
		if (addr < r->logical || addr + len > r->logical + r->length)
			return nullptr;
		n->last_hit = r;
	}
	return r;
}

bool is_msix(uint64_t addr)
{
	return addr >= NIC_MSIX_WINDOW && addr < (uint64_t)NIC_MSIX_WINDOW + NIC_MSIX_WINDOW_BYTES;
}

void count_mmio_write(nicsim_nic *n, uint32_t off)
{
	n->stats.mmio_writes++;
	if (off >= NIC_REG_QP_DB_BASE && off < NIC_REG_CQ_DB_BASE) {
		uint32_t in_page = off & ((1u << NIC_DB_PAGE_SHIFT) - 1);
		if (in_page == NIC_DB_SQ_PI)
			n->stats.sq_doorbells++;
		else if (in_page == NIC_DB_RQ_PI)
			n->stats.rq_doorbells++;
	} else if (off >= NIC_REG_CQ_DB_BASE && off < NIC_REG_MSIX_TABLE) {
		n->stats.cq_doorbells++;
	}
}

// Step 1 + 3: handshakes at this edge, then the next inputs.
void host_cycle(nicsim *w, nicsim_nic *n)
{
	const Outputs &o = n->out;
	Inputs &in = n->in;
	const uint64_t now = w->cycle;

	// ---- handshakes that complete at this rising edge (decided on pre-edge values)
	const bool hs_axil_aw = in.axil_awvalid && o.axil_awready;
	const bool hs_axil_w = in.axil_wvalid && o.axil_wready;
	const bool hs_axil_b = o.axil_bvalid && in.axil_bready;
	const bool hs_axil_ar = in.axil_arvalid && o.axil_arready;
	const bool hs_axil_r = o.axil_rvalid && in.axil_rready;
	const bool hs_aw = o.awvalid && in.awready;
	const bool hs_w = o.wvalid && in.wready;
	const bool hs_b = in.bvalid && o.bready;
	const bool hs_ar = o.arvalid && in.arready;
	const bool hs_r = in.rvalid && o.rready;

	// ---- MMIO writes
	if (hs_axil_aw)
		n->mmio_aw_done = true;
	if (hs_axil_w)
		n->mmio_w_done = true;
	if (n->mmio_aw_done && n->mmio_w_done && !n->mmio_wait_b) {
		count_mmio_write(n, n->mmio_queue.front().offset);
		n->mmio_queue.pop_front();
		n->mmio_wait_b = true;
	}
	if (hs_axil_b) {
		n->mmio_wait_b = false;
		n->mmio_aw_done = n->mmio_w_done = false;
	}
	// ---- MMIO read
	if (hs_axil_ar)
		n->mmio_read_pending = false;
	if (hs_axil_r) {
		n->mmio_read_value = o.axil_rdata;
		n->mmio_read_done = true;
		n->stats.mmio_reads++;
	}

	// ---- DMA read requests: firewall, snapshot, timing
	if (hs_ar) {
		const unsigned beat_bytes = 1u << o.arsize;
		const unsigned beats = o.arlen + 1;
		const uint64_t base = o.araddr & ~(uint64_t)(beat_bytes - 1);
		const uint64_t span = (uint64_t)beats * beat_bytes;
		const uint64_t bytes = base + span - o.araddr;
		if (beat_bytes > n->bus_bytes)
			fatal(w, "NIC %u DMA read with beats of %u bytes on a %u-byte bus",
			      n->index, beat_bytes, n->bus_bytes);
		if ((base & 0xfff) + span > 4096)
			fatal(w, "NIC %u DMA read at 0x%llx of %llu bytes crosses a 4 KiB boundary",
			      n->index, (unsigned long long)o.araddr, (unsigned long long)bytes);
		const Region *r = find_region(n, o.araddr, bytes);
		if (!r)
			fatal(w,
			      "NIC %u DMA read of %llu bytes at 0x%llx: memory the driver did not allocate",
			      n->index, (unsigned long long)bytes, (unsigned long long)o.araddr);
		DmaRead rd;
		rd.id = o.arid;
		rd.base = base;
		rd.beats = beats;
		rd.beat_bytes = beat_bytes;
		rd.sent = 0;
		rd.data.assign(span, 0);
		std::memcpy(rd.data.data() + (o.araddr - base), r->va + (o.araddr - r->logical),
			    bytes);
		// PCIe ordering: a read request does not pass the NIC's earlier posted writes, so it
		// sees every write whose last beat the NIC sent before it, landed in host memory or
		// not yet (they are applied in order, as they will land)
		for (const DmaWrite &pw : n->posted) {
			const uint64_t lo = std::max<uint64_t>(pw.base, o.araddr);
			const uint64_t hi =
				std::min<uint64_t>(pw.base + pw.data.size(), o.araddr + bytes);
			for (uint64_t a = lo; a < hi; a++)
				if (pw.strb[a - pw.base])
					rd.data[a - base] = pw.data[a - pw.base];
		}
		// fixed round trip, then the payload at the link's bandwidth, one read after another
		const uint64_t xfer = (uint64_t)(bytes / w->bytes_per_cycle + 0.999999);
		uint64_t start = now + w->dma_read_cycles;
		if (start < n->pcie_rd_free)
			start = n->pcie_rd_free;
		rd.ready = start + xfer;
		n->pcie_rd_free = rd.ready;
		n->reads.push_back(std::move(rd));
		n->stats.dma_reads++;
		n->stats.dma_read_bytes += bytes;
		if (r->kind == NICSIM_MEM_SQ) {
			n->stats.wqe_fetch_reads++;
			n->stats.wqes_fetched += bytes / NIC_WQE_BYTES;
		}
	}
	if (hs_r) {
		DmaRead &rd = n->reads.front();
		if (++rd.sent == rd.beats)
			n->reads.pop_front();
	}

	// ---- DMA writes
	if (hs_aw) {
		DmaWrite wr;
		wr.beat_bytes = 1u << o.awsize;
		wr.beats = o.awlen + 1;
		wr.addr = o.awaddr;
		wr.base = o.awaddr & ~(uint64_t)(wr.beat_bytes - 1);
		wr.got = 0;
		wr.id = o.awid;
		const uint64_t span = (uint64_t)wr.beats * wr.beat_bytes;
		wr.data.assign(span, 0);
		wr.strb.assign(span, 0);
		if (wr.beat_bytes > n->bus_bytes)
			fatal(w, "NIC %u DMA write with beats of %u bytes on a %u-byte bus",
			      n->index, wr.beat_bytes, n->bus_bytes);
		if ((wr.base & 0xfff) + span > 4096)
			fatal(w,
			      "NIC %u DMA write at 0x%llx of %llu bytes crosses a 4 KiB boundary",
			      n->index, (unsigned long long)wr.addr, (unsigned long long)span);
		if (!is_msix(wr.addr) && !find_region(n, wr.addr, wr.base + span - wr.addr))
			fatal(w,
			      "NIC %u DMA write of %llu bytes at 0x%llx: memory the driver did not allocate",
			      n->index, (unsigned long long)(wr.base + span - wr.addr),
			      (unsigned long long)wr.addr);
		n->writes.push_back(std::move(wr));
	}
	if (hs_w) {
		if (n->writes.empty())
			fatal(w, "NIC %u W beat before its AW (this harness needs AW first)",
			      n->index);
		DmaWrite &wr = n->writes.front();
		const uint64_t beat_addr = wr.base + (uint64_t)wr.got * wr.beat_bytes;
		const unsigned lane0 = (unsigned)(beat_addr % n->bus_bytes);
		for (unsigned i = 0; i < wr.beat_bytes; i++) {
			const unsigned lane = lane0 + i;
			const size_t k = (size_t)wr.got * wr.beat_bytes + i;
			if ((o.wstrb >> lane & 1) && wr.base + k >= wr.addr) {
				wr.data[k] = o.wdata[lane];
				wr.strb[k] = 1;
			}
		}
		if (o.wstrb & ~(((1ull << wr.beat_bytes) - 1) << lane0))
			fatal(w,
			      "NIC %u write strobes 0x%x outside the lanes of a %u-byte beat at 0x%llx",
			      n->index, o.wstrb, wr.beat_bytes, (unsigned long long)beat_addr);
		wr.got++;
		if (o.wlast != (wr.got == wr.beats))
			fatal(w, "NIC %u WLAST on beat %u of a %u-beat burst", n->index, wr.got,
			      wr.beats);
		if (wr.got == wr.beats) {
			const uint64_t bytes = (uint64_t)wr.beats * wr.beat_bytes;
			const uint64_t xfer = (uint64_t)(bytes / w->bytes_per_cycle + 0.999999);
			uint64_t start = now;
			if (start < n->pcie_wr_free)
				start = n->pcie_wr_free;
			n->pcie_wr_free = start + xfer;
			wr.visible = start + xfer + w->dma_write_cycles;
			n->b_ids.push_back(wr.id);
			n->posted.push_back(std::move(wr));
			n->writes.pop_front();
		}
	}
	if (hs_b)
		n->b_ids.pop_front();
	// writes land in host memory in order; an MSI-X message becomes an interrupt then
	while (!n->posted.empty() && n->posted.front().visible <= now) {
		DmaWrite wr = std::move(n->posted.front());
		n->posted.pop_front();
		uint64_t bytes = 0;
		for (uint8_t s : wr.strb)
			bytes += s;
		if (is_msix(wr.addr)) {
			uint32_t data = 0;
			unsigned k = 0;
			for (size_t i = 0; i < wr.data.size() && k < 4; i++)
				if (wr.strb[i])
					data |= (uint32_t)wr.data[i] << (8 * k++);
			n->stats.interrupts++;
			if (w->irq_fn)
				w->irq_fn(w->irq_ctx, n->index, wr.addr, data);
			continue;
		}
		const uint64_t end = wr.base + wr.data.size();
		const Region *r = find_region(n, wr.addr, end - wr.addr);
		if (!r) // freed while the write was in flight
			fatal(w, "NIC %u DMA write at 0x%llx landed in memory freed meanwhile",
			      n->index, (unsigned long long)wr.addr);
		for (uint64_t a = wr.addr; a < end; a++)
			if (wr.strb[a - wr.base])
				r->va[a - r->logical] = wr.data[a - wr.base];
		n->stats.dma_writes++;
		n->stats.dma_write_bytes += bytes;
		// a CQ region is its ring followed by one 32-byte error record (formats/nic.toml)
		if (r->kind == NICSIM_MEM_CQ && end != r->logical + r->length)
			n->stats.cqes_written += (end - wr.addr) / NIC_CQE_BYTES;
	}

	// ---- next inputs
	in.rst = now < kResetCycles;
	// MMIO write: present the head of the queue once it is due
	const bool mmio_write_active = !n->mmio_queue.empty() && n->mmio_queue.front().due <= now &&
				       !n->mmio_wait_b;
	in.axil_awvalid = mmio_write_active && !n->mmio_aw_done;
	in.axil_wvalid = mmio_write_active && !n->mmio_w_done;
	if (mmio_write_active) {
		in.axil_awaddr = n->mmio_queue.front().offset;
		in.axil_wdata = n->mmio_queue.front().value;
		in.axil_wstrb = n->mmio_queue.front().strb;
	}
	in.axil_bready = true;
	in.axil_arvalid = n->mmio_read_pending;
	in.axil_araddr = n->mmio_read_offset;
	in.axil_rready = true;

	in.arready = n->reads.size() < kMaxReadsInFlight;
	in.rvalid = false;
	if (!n->reads.empty() && n->reads.front().ready <= now) {
		const DmaRead &rd = n->reads.front();
		in.rvalid = true;
		in.rid = rd.id;
		in.rresp = 0;
		in.rlast = rd.sent + 1 == rd.beats;
		const unsigned lane0 =
			(unsigned)((rd.base + (uint64_t)rd.sent * rd.beat_bytes) % n->bus_bytes);
		std::memset(in.rdata, 0, sizeof(in.rdata));
		std::memcpy(in.rdata + lane0, rd.data.data() + (size_t)rd.sent * rd.beat_bytes,
			    rd.beat_bytes);
	}
	in.awready = n->writes.size() < 4;
	in.wready = !n->writes.empty();
	in.bvalid = !n->b_ids.empty();
	in.bid = in.bvalid ? n->b_ids.front() : 0;
	// one pulse per microsecond: seen by the rising edge of every cycle that is a multiple
	// of clock_mhz (these inputs are sampled at the next edge, cycle now + 1)
	in.us_tick = (now + 1) % w->cfg.clock_mhz == 0;
	// docs/transport.md: NIC i is 02:00:00:00:00:(i+1), 10.0.0.(i+1)
	in.port_mac = 0x020000000000ull | (n->index + 1);
	in.port_ipv4 = 0x0a000000u | (n->index + 1);
}

// Outputs compare equal: the fields a model drives every cycle; wdata and tx_tdata are sampled
// only with their valid, so a stale copy compares as unchanged.
bool same_outputs(const Outputs &a, const Outputs &b)
{
	return a.axil_awready == b.axil_awready && a.axil_wready == b.axil_wready &&
	       a.axil_bvalid == b.axil_bvalid && a.axil_arready == b.axil_arready &&
	       a.axil_rvalid == b.axil_rvalid && a.axil_rdata == b.axil_rdata &&
	       a.awvalid == b.awvalid && a.awid == b.awid && a.awaddr == b.awaddr &&
	       a.awlen == b.awlen && a.awsize == b.awsize && a.wvalid == b.wvalid &&
	       a.wlast == b.wlast && a.wstrb == b.wstrb && a.bready == b.bready &&
	       a.arvalid == b.arvalid && a.arid == b.arid && a.araddr == b.araddr &&
	       a.arlen == b.arlen && a.arsize == b.arsize && a.rready == b.rready &&
	       !std::memcmp(a.wdata, b.wdata, sizeof(a.wdata)) &&
	       a.stream.tx_tvalid == b.stream.tx_tvalid && a.stream.tx_tlast == b.stream.tx_tlast &&
	       a.stream.tx_tkeep == b.stream.tx_tkeep && a.stream.rx_tready == b.stream.rx_tready &&
	       !std::memcmp(a.stream.tx_tdata, b.stream.tx_tdata, sizeof(a.stream.tx_tdata));
}

// Quiescence. When a whole cycle (the same inputs driven again, rising and falling edge)
// leaves every bit of a model's state as it was, the model is at a fixed point:
// as long as its inputs stay the same, every later cycle would compute that same state again,
// with the same outputs and the same (passing) assertions. Such a NIC is not evaluated until
// the host drives a different input; its host side (handshakes, timers, memory) still runs
// every cycle on the unchanged outputs. Nothing observable changes: an idle NIC, a NIC waiting
// for a DMA read to come back or for the host simply costs no model evaluation. Finding the
// fixed point costs a snapshot and a compare of the model state (a few tens of KiB); a probe
// that finds the model still working waits twice as long before the next one (up to
// kMaxProbeBackoff cycles). Off while tracing (the waveform keeps every clock edge) and with
// NDK_SIM_SKIP_QUIET=0; NDK_SIM_SKIP_QUIET=check evaluates quiet NICs anyway and stops the run
// if a cycle changed their state (a self-test of the mechanism).
constexpr unsigned kMaxProbeBackoff = 64;

// A probe that finds the model still changing (or sees its inputs change before it could
// compare) makes the next one wait twice as long.
void probe_failed(nicsim_nic *n)
{
	n->probe_wait = n->probe_backoff;
	if (n->probe_backoff < kMaxProbeBackoff)
		n->probe_backoff *= 2;
}

// The NIC's state is the snapshot's, a fixed point for the inputs it was just driven with: skip
// it from now on, and remember the fixed point for a NIC woken from it (rewake).
void enter_quiet(nicsim *w, nicsim_nic *n)
{
	if (w->check_quiet) // every byte, for the self-test in world_cycle
		n->model->snapshot_whole();
	n->quiet = true;
	n->snap_valid = false;
	n->snap_fixed = true;
	n->snap_in = n->driven;
	n->probe_backoff = 1;
	n->rewake = 0;
}

// After each eval of a NIC: take a snapshot once its inputs repeat, compare with it after the
// next cycle with the same inputs.
void probe_quiet(nicsim *w, nicsim_nic *n, bool same)
{
	// the head of the state (the model's narrow signals), compared with and recorded after
	// every eval: did this cycle leave it unchanged?
	const bool head_same = n->model->same_head();
	n->model->record_head();
	if (n->rewake) {
		n->rewake--;
		// the fixed point's inputs again and its state again: back at the fixed point, with no
		// snapshot to take (a state that differs mostly differs early, so memcmp stops soon)
		if (n->snap_fixed && same_inputs(n->driven, n->snap_in) &&
		    n->model->same_as_snapshot()) {
			enter_quiet(w, n);
			return;
		}
	}
	if (!same) { // new inputs: a fixed point needs two evals with the same ones
		if (n->snap_valid)
			probe_failed(n);
		n->snap_valid = false;
		return;
	}
	if (n->snap_valid) {
		n->snap_valid = false;
		if (n->model->same_as_snapshot()) {
			enter_quiet(w, n);
		} else {
			probe_failed(n);
		}
		return;
	}
	if (n->probe_wait) {
		n->probe_wait--;
		return;
	}
	// A model at a fixed point drives the same outputs cycle after cycle: while they still
	// change, the state does too, and the snapshot (tens of KiB) would be wasted. A cheap
	// necessary condition, not a decision: the state compare still decides.
	if (!same_outputs(n->out, n->out_before))
		return;
	// Likewise for the head of the state: a copy of the whole state is taken only once a
	// cycle left the narrow signals unchanged. Most probes of a busy model stop here, at the
	// cost of a 1 KiB compare and copy per eval instead of a copy of the whole state.
	if (!head_same)
		return;
	n->model->snapshot();
	n->snap_valid = true;
	n->snap_fixed = false;
}

// The output hash (NDK_SIM_OUTHASH, tools/outhash.sh): the proof that a change which should not
// change behaviour does not. Every output pin of every NIC, in every cycle, as the handshakes
// of that cycle see them (a quiet NIC's outputs are the ones sampled last, which is what it
// drives), folded with FNV-1a. Data pins are taken only with their valid, like the harness
// itself reads them, and into a hash of their own: they carry the driver's request contexts,
// which in a few tests are host pointers and move when the program's size does.
void outhash_bytes(uint64_t &h, const void *p, size_t len)
{
	const uint8_t *b = static_cast<const uint8_t *>(p);
	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
}

template <class T> void outhash_value(uint64_t &h, T v)
{
	const uint64_t x = static_cast<uint64_t>(v);
	outhash_bytes(h, &x, sizeof(x));
}

void outhash_cycle(nicsim *w)
{
	uint64_t &h = w->outhash_ctl, &d = w->outhash_data;
	for (const auto &n : w->nics) {
		const Outputs &o = n->out;
		const uint64_t bits[] = {
			o.axil_awready,
			o.axil_wready,
			o.axil_bvalid,
			o.axil_arready,
			o.axil_rvalid,
			o.axil_rvalid ? o.axil_rdata : 0,
			o.awvalid,
			o.awid,
			o.awaddr,
			o.awlen,
			o.awsize,
			o.wvalid,
			o.wlast,
			o.wstrb,
			o.bready,
			o.arvalid,
			o.arid,
			o.araddr,
			o.arlen,
			o.arsize,
			o.rready,
			o.stream.tx_tvalid,
			o.stream.rx_tready,
		};
		for (uint64_t b : bits)
			outhash_value(h, b);
		if (o.wvalid)
			outhash_bytes(d, o.wdata, n->bus_bytes);
		if (o.stream.tx_tvalid) {
			outhash_value(h, o.stream.tx_tlast);
			outhash_value(h, o.stream.tx_tkeep);
			outhash_bytes(d, o.stream.tx_tdata, n->bus_bytes);
		}
	}
}

// Appends "label world cycles nics ctl-hash data-hash" to the NDK_SIM_OUTHASH file. The label names the
// program and, in the Criterion suite, the test (Criterion's criterion_current_test, a weak
// reference: other programs do not link Criterion); world counts the worlds of the process.
extern "C" {
struct outhash_criterion_test {
	const char *name;
	const char *category;
};
extern const struct outhash_criterion_test *const criterion_current_test __attribute__((weak));
}

void outhash_write(const nicsim *w)
{
	static unsigned worlds; // per process: a Criterion test is a process of its own
	std::string label = program_invocation_short_name;
	if (&criterion_current_test && criterion_current_test)
		label += std::string(":") + criterion_current_test->category + "/" +
			 criterion_current_test->name;
	if (const char *l = std::getenv("NDK_SIM_OUTHASH_LABEL"))
		label += std::string(":") + l;
	FILE *f = std::fopen(w->outhash_path.c_str(), "a");
	if (!f) {
		std::fprintf(stderr, "nicsim: cannot append to NDK_SIM_OUTHASH=%s\n",
			     w->outhash_path.c_str());
		return;
	}
	std::fprintf(f, "%s %u %llu %zu %016llx %016llx\n", label.c_str(), worlds++,
		     (unsigned long long)w->cycle, w->nics.size(),
		     (unsigned long long)w->outhash_ctl, (unsigned long long)w->outhash_data);
	std::fclose(f);
}

void world_cycle(nicsim *w)
{
	if (w->cycle >= w->cfg.cycle_limit)
		fatal(w, "cycle limit %llu reached (a hang?); raise it with NDK_SIM_CYCLE_LIMIT",
		      (unsigned long long)w->cfg.cycle_limit);
	// Verilated's per-thread "current context" receives $stop / assertion failures: with
	// several worlds in one process it must be this world's before its models run
	Verilated::threadContextp(w->ctx.get());
	// outputs as they stand before the edge decide this edge's handshakes (a quiet model's
	// outputs are the ones sampled last)
	for (auto &n : w->nics)
		if (!n->quiet) {
			n->out_before = n->out;
			n->model->sample(n->out);
		}
	if (!w->outhash_path.empty())
		outhash_cycle(w);
	for (auto &n : w->nics)
		host_cycle(w, n.get());
	if (const char *err = w->net->cycle(w->cycle))
		fatal(w, "%s", err);
	w->ctx->timeInc(1);
	for (auto &n : w->nics) {
		n->evaluated = false;
		const bool same = same_inputs(n->in, n->driven);
		if (n->quiet && same && w->check_quiet) {
			n->model->drive(n->in);
			n->model->edge(true);
			n->model->edge(false);
			if (w->ctx->gotError() || !n->model->same_as_whole())
				fatal(w, "NIC %u: a cycle changed the state of a quiescent model",
				      n->index);
			continue;
		}
		if (n->quiet) {
			if (same)
				continue; // still at its fixed point: nothing to evaluate
			// new inputs: the edges skipped meanwhile changed no state (fixed point)
			n->quiet = false;
			// a microsecond tick is gone again after two evals (its own, and the cycle after
			// it, which registers its end)
			n->rewake = 2;
		}
		n->model->drive(n->in);
		n->model->edge(true);
		n->model->trace_dump(2 * w->cycle + 1);
		n->evaluated = true;
		n->same = same;
	}
	if (w->ctx->gotError())
		fatal(w, "RTL assertion failed (message above)");
	w->ctx->timeInc(1);
	for (auto &n : w->nics) {
		if (!n->evaluated)
			continue;
		n->model->edge(false);
		n->model->trace_dump(2 * w->cycle + 2);
		n->driven = n->in;
		if (w->skip_quiet)
			probe_quiet(w, n.get(), n->same);
	}
	w->cycle++;
}

} // namespace

extern "C" {

int nicsim_create(const struct nicsim_config *config, struct nicsim **world)
{
	if (!config || !world || config->nics < 1 || config->nics > 64 || !config->clock_mhz ||
	    !config->pcie_mbps || (config->data_width != 64 && config->data_width != 256))
		return -EINVAL;
	auto w = std::make_unique<nicsim>();
	nicnet::Network::Config nc;
	nc.ports = config->nics;
	nc.bus_bytes = config->data_width / 8;
	nc.clock_mhz = config->clock_mhz;
	nc.link_mbps = config->link_mbps ? config->link_mbps : nicnet::kDefaultLinkMbps;
	nc.link_cycles = ceil_div((uint64_t)config->link_ns * config->clock_mhz, 1000);
	w->net = std::make_unique<nicnet::Network>(nc);
	// first, so a capture that cannot be created refuses the world before any model exists
	if (config->pcap_path && config->pcap_path[0] && w->net->open_pcap(config->pcap_path))
		return -EINVAL;
	w->cfg = *config;
	if (w->cfg.cycle_limit == 0)
		w->cfg.cycle_limit = ~0ull;
	if (config->trace_path && config->trace_path[0])
		w->trace_path = config->trace_path;
	w->ctx = std::make_unique<VerilatedContext>();
	Verilated::threadContextp(w->ctx.get());
	w->ctx->fatalOnError(false); // an assertion fails the run through fatal(), with its cycle
	w->ctx->assertOn(true);
	if (!w->trace_path.empty())
		w->ctx->traceEverOn(true);
	const char *skip = std::getenv("NDK_SIM_SKIP_QUIET");
	w->skip_quiet = w->trace_path.empty() && !(skip && !std::strcmp(skip, "0"));
	w->check_quiet = skip && !std::strcmp(skip, "check");
	if (const char *oh = std::getenv("NDK_SIM_OUTHASH"))
		w->outhash_path = oh;
	w->outhash_ctl = w->outhash_data = 0xcbf29ce484222325ull;
	w->bytes_per_cycle = (double)config->pcie_mbps / config->clock_mhz;
	w->dma_read_cycles = nicsim_ns_to_cycles(w.get(), config->dma_read_ns);
	w->dma_write_cycles = nicsim_ns_to_cycles(w.get(), config->dma_write_ns);
	w->mmio_write_cycles = nicsim_ns_to_cycles(w.get(), config->mmio_write_ns);
	w->mmio_read_cycles = nicsim_ns_to_cycles(w.get(), config->mmio_read_ns);
	for (unsigned i = 0; i < config->nics; i++) {
		auto n = std::make_unique<nicsim_nic>();
		n->index = i;
		std::string name = "nic" + std::to_string(i);
		if (config->data_width == 64)
			n->model = std::make_unique<ModelOf<Vnic_core_w64, 64>>(w->ctx.get(),
										name.c_str());
		else
			n->model = std::make_unique<ModelOf<Vnic_core_w256, 256>>(w->ctx.get(),
										  name.c_str());
		if (!w->trace_path.empty()) {
			std::string p = w->trace_path;
			if (i > 0) {
				size_t dot = p.rfind('.');
				std::string suffix = ".nic" + std::to_string(i);
				p = dot == std::string::npos ?
					    p + suffix :
					    p.substr(0, dot) + suffix + p.substr(dot);
			}
			n->model->trace_open(p.c_str());
		}
		n->bus_bytes = config->data_width / 8;
		w->net->attach(i, &n->out.stream, &n->in.stream);
		n->in.rst = true;
		n->model->drive(n->in);
		n->model->edge(false);
		n->driven = n->in;
		w->nics.push_back(std::move(n));
	}
	// reset: assertions are disabled by the RTL's `disable iff (rst_i)` while it is high
	for (unsigned c = 0; c < kResetCycles + 2; c++)
		world_cycle(w.get());
	*world = w.release();
	return 0;
}

void nicsim_destroy(struct nicsim *world)
{
	if (!world)
		return;
	// the models' destructors unregister their scopes from the thread's current context
	Verilated::threadContextp(world->ctx.get());
	if (!world->outhash_path.empty())
		outhash_write(world);
	world->net.reset(); // flushes and closes the capture (a failure is reported on stderr)
	for (auto &n : world->nics) {
		n->model->trace_close();
		for (auto &r : n->regions)
			munmap(r.second.va, r.second.alloc_len);
	}
	world->nics.clear();
	delete world;
}

void nicsim_set_irq_handler(struct nicsim *world, nicsim_irq_fn fn, void *ctx)
{
	world->irq_fn = fn;
	world->irq_ctx = ctx;
}

uint64_t nicsim_cycle(const struct nicsim *world)
{
	return world->cycle;
}

void nicsim_step(struct nicsim *world, uint64_t cycles)
{
	while (cycles--)
		world_cycle(world);
}

uint64_t nicsim_ns_to_cycles(const struct nicsim *world, uint64_t ns)
{
	return ceil_div(ns * world->cfg.clock_mhz, 1000);
}

void nicsim_host_ns(struct nicsim *world, uint64_t ns)
{
	world->host_acc += ns * world->cfg.clock_mhz;
	uint64_t cycles = world->host_acc / 1000;
	world->host_acc %= 1000;
	nicsim_step(world, cycles);
}

void nicsim_mmio_write32_strb(struct nicsim *world, unsigned nic, uint32_t offset, uint32_t value,
			      uint32_t strb)
{
	if (nic >= world->nics.size())
		fatal(world, "MMIO write to NIC %u, which does not exist", nic);
	nicsim_nic *n = world->nics[nic].get();
	uint64_t due = world->cycle + world->mmio_write_cycles;
	n->mmio_queue.push_back({ due, offset, value, strb });
}

void nicsim_mmio_write32(struct nicsim *world, unsigned nic, uint32_t offset, uint32_t value)
{
	nicsim_mmio_write32_strb(world, nic, offset, value, 0xf);
}

uint32_t nicsim_mmio_read32(struct nicsim *world, unsigned nic, uint32_t offset)
{
	if (nic >= world->nics.size())
		fatal(world, "MMIO read from NIC %u, which does not exist", nic);
	nicsim_nic *n = world->nics[nic].get();
	const uint64_t start = world->cycle;
	// a read does not pass the posted writes before it (PCIe ordering)
	const uint64_t limit = world->cycle + 1000000;
	while (!n->mmio_queue.empty() || n->mmio_wait_b) {
		if (world->cycle > limit)
			fatal(world, "NIC %u does not accept MMIO writes (AXI4-Lite hang at 0x%x)",
			      nic, n->mmio_queue.empty() ? 0 : n->mmio_queue.front().offset);
		world_cycle(world);
	}
	n->mmio_read_offset = offset;
	n->mmio_read_pending = true;
	n->mmio_read_done = false;
	while (!n->mmio_read_done) {
		if (world->cycle > limit)
			fatal(world, "NIC %u does not answer an MMIO read of 0x%x", nic, offset);
		world_cycle(world);
	}
	// PCIe ordering: the read's completion does not pass the NIC's posted writes issued before
	// it, so once the read returns, every earlier DMA write is visible (drivers rely on this
	// before freeing memory the NIC may still write)
	while (!n->writes.empty() || !n->posted.empty()) {
		if (world->cycle > limit)
			fatal(world, "NIC %u DMA writes never complete", nic);
		world_cycle(world);
	}
	// the rest of the round trip the bus did not already take
	const uint64_t spent = world->cycle - start;
	if (spent < world->mmio_read_cycles)
		nicsim_step(world, world->mmio_read_cycles - spent);
	return n->mmio_read_value;
}

int nicsim_dma_alloc(struct nicsim *world, unsigned nic, size_t length, enum nicsim_mem_kind kind,
		     void **va, uint64_t *logical)
{
	if (nic >= world->nics.size() || !length || !va || !logical)
		return -EINVAL;
	nicsim_nic *n = world->nics[nic].get();
	const size_t alloc_len = (length + 4095) & ~(size_t)4095;
	if (n->allocated + alloc_len > world->cfg.host_memory_bytes)
		return -ENOMEM;
	uint8_t *p = host_pages_alloc(alloc_len); // zeroed
	if (!p)
		return -ENOMEM;
	Region r{ n->next_logical, length, alloc_len, kind, p };
	n->regions[r.logical] = r;
	n->last_hit = nullptr;
	n->next_logical += alloc_len + kGuard;
	n->allocated += alloc_len;
	*va = p;
	*logical = r.logical;
	return 0;
}

void nicsim_dma_free(struct nicsim *world, unsigned nic, uint64_t logical)
{
	if (nic >= world->nics.size())
		return;
	nicsim_nic *n = world->nics[nic].get();
	auto it = n->regions.find(logical);
	if (it == n->regions.end())
		return;
	n->allocated -= it->second.alloc_len;
	munmap(it->second.va, it->second.alloc_len);
	n->regions.erase(it);
	n->last_hit = nullptr;
}

void nicsim_get_stats(const struct nicsim *world, unsigned nic, struct nicsim_stats *stats)
{
	if (nic < world->nics.size()) {
		*stats = world->nics[nic]->stats;
		world->net->add_stats(nic, stats);
	} else {
		std::memset(stats, 0, sizeof(*stats));
	}
}

const char *nicsim_pcap_path(const struct nicsim *world)
{
	return world->net->pcap_path();
}

int nicsim_pcap_flush(struct nicsim *world)
{
	return world->net->flush_pcap();
}

int nicsim_port_inject(struct nicsim *world, unsigned nic, const uint8_t *bytes, size_t len)
{
	return world->net->inject(nic, bytes, len);
}

void nicsim_set_frame_handler(struct nicsim *world, nicsim_frame_fn fn, void *ctx)
{
	world->net->set_frame_handler(fn, ctx);
}

} // extern "C"
