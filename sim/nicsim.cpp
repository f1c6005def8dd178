// SPDX-License-Identifier: MIT
//
// nicsim: a deterministic world of Verilated nic_core instances and their hosts (the world API
// of nicsim.h, and its clock). The parts, one file each, all reusable by another front end:
//
//   nic_model.h     the model adaptor: Model over the two Verilated models, snapshots
//   quiescence.h    QuiescentModel: a Model stepped per cycle, skipped at a fixed point
//   host_memory.h   DmaMemory (what the DMA slave reads and writes), RegionMemory (the world's:
//                   regions, the firewall, the fixed-address mapping)
//   pcie_host.h     AxiLiteMaster (MMIO), DmaSlave (DMA with the PCIe timing model, MSI-X)
//   nic_host.h      NicHost: one NIC with all of the above but the memory, stepped per cycle
//   nicsim_net.h    the network: links, switch, RX ports, pcap capture
//
// This file owns the world: per NIC a RegionMemory and a NicHost over it, one network, one
// VerilatedContext, the cycle count, the output hash, and fatal errors. The structure of one
// clock cycle (world_cycle), per NIC:
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
// Statistics are counted on the buses (pcie_host.cpp, nicsim_net.cpp), never read from the RTL.

#include "nicsim.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "host_memory.h"
#include "nic_hw.h"
#include "nic_host.h"
#include "nic_model.h"
#include "nicsim_net.h"
#include "verilated.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#include <unistd.h>
#endif

using nicsim_hw::NicHost;
using nicsim_hw::Outputs;
using nicsim_hw::RegionMemory;

namespace
{

constexpr unsigned kResetCycles = 8;

uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

} // namespace

// One NIC of the world: its host memory, and the NIC with its host side (nic_host.h).
struct nicsim_nic {
	nicsim_nic(const NicHost::Config &c, std::unique_ptr<nicsim_hw::Model> model,
		   uint64_t memory_bytes)
		: index(c.index)
		, bus_bytes(c.bus_bytes)
		, memory(memory_bytes)
		, host(c, std::move(model), &memory)
	{
	}
	unsigned index;
	unsigned bus_bytes; // DataWidth / 8
	RegionMemory memory;
	NicHost host;
};

struct nicsim {
	nicsim_config cfg{};
	std::string trace_path;
	std::unique_ptr<VerilatedContext> ctx;
	std::vector<std::unique_ptr<nicsim_nic>> nics;
	std::unique_ptr<nicnet::Network> net; // links, switch, RX ports, pcap capture
	uint64_t cycle = 0;
	uint64_t host_acc = 0; // host time carried over, in ns * clock_mhz units (1000 = 1 cycle)
	uint64_t mmio_write_cycles = 0, mmio_read_cycles = 0;
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
		n->host.core.model().trace_close();
	if (w->net) // the capture up to the failure helps to find it
		w->net->flush_pcap();
	std::fflush(stdout);
	std::fflush(stderr);
	std::abort();
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
		const Outputs &o = n->host.core.out;
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
	// outputs as they stand before the edge decide this edge's handshakes
	for (auto &n : w->nics)
		n->host.sample();
	if (!w->outhash_path.empty())
		outhash_cycle(w);
	for (auto &n : w->nics)
		if (const char *err = n->host.host(w->cycle))
			fatal(w, "%s", err);
	if (const char *err = w->net->cycle(w->cycle))
		fatal(w, "%s", err);
	w->ctx->timeInc(1);
	for (auto &n : w->nics)
		if (!n->host.rise(w->cycle))
			fatal(w, "NIC %u: a cycle changed the state of a quiescent model",
			      n->index);
	if (w->ctx->gotError())
		fatal(w, "RTL assertion failed (message above)");
	w->ctx->timeInc(1);
	for (auto &n : w->nics)
		n->host.fall(w->cycle);
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
	nc.seed = config->seed;
	nc.faults.drop = config->drop_rate;
	nc.faults.corrupt = config->corrupt_rate;
	nc.faults.duplicate = config->duplicate_rate;
	nc.faults.reorder = config->reorder_rate;
	nc.faults.reorder_depth = config->reorder_depth;
	if (const char *why = nicnet::Network::check(nc)) {
		std::fprintf(stderr, "nicsim: %s\n", why);
		return -EINVAL;
	}
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
	// the quiescence skip (quiescence.h): off while tracing (the waveform keeps every clock
	// edge) and with NDK_SIM_SKIP_QUIET=0; =check is its self-test
	const char *skip = std::getenv("NDK_SIM_SKIP_QUIET");
	const bool skip_quiet = w->trace_path.empty() && !(skip && !std::strcmp(skip, "0"));
	const bool check_quiet = skip && !std::strcmp(skip, "check");
	if (const char *oh = std::getenv("NDK_SIM_OUTHASH"))
		w->outhash_path = oh;
	w->outhash_ctl = w->outhash_data = 0xcbf29ce484222325ull;
	NicHost::Config hc{};
	hc.bus_bytes = config->data_width / 8;
	hc.clock_mhz = config->clock_mhz;
	hc.reset_cycles = kResetCycles;
	hc.timing.bytes_per_cycle = (double)config->pcie_mbps / config->clock_mhz;
	hc.timing.dma_read_cycles = nicsim_ns_to_cycles(w.get(), config->dma_read_ns);
	hc.timing.dma_write_cycles = nicsim_ns_to_cycles(w.get(), config->dma_write_ns);
	hc.msix_base = NIC_MSIX_WINDOW;
	hc.msix_bytes = NIC_MSIX_WINDOW_BYTES;
	hc.skip_quiet = skip_quiet;
	hc.check_quiet = check_quiet;
	w->mmio_write_cycles = nicsim_ns_to_cycles(w.get(), config->mmio_write_ns);
	w->mmio_read_cycles = nicsim_ns_to_cycles(w.get(), config->mmio_read_ns);
	for (unsigned i = 0; i < config->nics; i++) {
		std::string name = "nic" + std::to_string(i);
		hc.index = i;
		// docs/transport.md: NIC i is 02:00:00:00:00:(i+1), 10.0.0.(i+1)
		hc.port_mac = 0x020000000000ull | (i + 1);
		hc.port_ipv4 = 0x0a000000u | (i + 1);
		auto n = std::make_unique<nicsim_nic>(
			hc, nicsim_hw::make_model(config->data_width, w->ctx.get(), name.c_str()),
			config->host_memory_bytes);
		if (!w->trace_path.empty()) {
			std::string p = w->trace_path;
			if (i > 0) {
				size_t dot = p.rfind('.');
				std::string suffix = ".nic" + std::to_string(i);
				p = dot == std::string::npos ?
					    p + suffix :
					    p.substr(0, dot) + suffix + p.substr(dot);
			}
			n->host.core.model().trace_open(p.c_str());
		}
		w->net->attach(i, &n->host.core.out.stream, &n->host.in.stream);
		n->host.start();
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
#if VM_COVERAGE
	// the coverage build (make coverage): this world's counts, one file per world
	if (const char *dir = std::getenv("NDK_SIM_COVERAGE")) {
		static unsigned worlds;
		std::string p = std::string(dir) + "/world-" + std::to_string(getpid()) + "-" +
				std::to_string(worlds++) + ".dat";
		world->ctx->coveragep()->write(p.c_str());
	}
#endif
	world->net.reset(); // flushes and closes the capture (a failure is reported on stderr)
	for (auto &n : world->nics)
		n->host.core.model().trace_close();
	world->nics.clear(); // the models, and the host memory (unmapped)
	delete world;
}

void nicsim_set_irq_handler(struct nicsim *world, nicsim_irq_fn fn, void *ctx)
{
	for (auto &n : world->nics)
		n->host.dma.set_irq_handler(fn, ctx);
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
	n->host.mmio.post_write(due, offset, value, strb);
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
	while (n->host.mmio.writes_pending()) {
		if (world->cycle > limit)
			fatal(world, "NIC %u does not accept MMIO writes (AXI4-Lite hang at 0x%x)",
			      nic, n->host.mmio.head_offset());
		world_cycle(world);
	}
	n->host.mmio.start_read(offset);
	while (!n->host.mmio.read_done()) {
		if (world->cycle > limit)
			fatal(world, "NIC %u does not answer an MMIO read of 0x%x", nic, offset);
		world_cycle(world);
	}
	// PCIe ordering: the read's completion does not pass the NIC's posted writes issued before
	// it, so once the read returns, every earlier DMA write is visible (drivers rely on this
	// before freeing memory the NIC may still write)
	while (n->host.dma.writes_pending()) {
		if (world->cycle > limit)
			fatal(world, "NIC %u DMA writes never complete", nic);
		world_cycle(world);
	}
	// the rest of the round trip the bus did not already take
	const uint64_t spent = world->cycle - start;
	if (spent < world->mmio_read_cycles)
		nicsim_step(world, world->mmio_read_cycles - spent);
	return n->host.mmio.read_value();
}

int nicsim_dma_alloc(struct nicsim *world, unsigned nic, size_t length, enum nicsim_mem_kind kind,
		     void **va, uint64_t *logical)
{
	if (nic >= world->nics.size() || !length || !va || !logical)
		return -EINVAL;
	return world->nics[nic]->memory.alloc(length, kind, va, logical);
}

void nicsim_dma_free(struct nicsim *world, unsigned nic, uint64_t logical)
{
	if (nic < world->nics.size())
		world->nics[nic]->memory.free(logical);
}

int nicsim_dma_fault(struct nicsim *world, unsigned nic, int write, uint64_t addr, uint64_t len,
		     unsigned skip, unsigned count)
{
	if (nic >= world->nics.size())
		return -EINVAL;
	world->nics[nic]->host.dma.set_fault(write != 0, addr, len, skip, count);
	return 0;
}

int nicsim_msix_function_mask(struct nicsim *world, unsigned nic, int masked)
{
	if (nic >= world->nics.size())
		return -EINVAL;
	world->nics[nic]->host.in.msix_fn_masked = masked != 0;
	return 0;
}

void nicsim_get_stats(const struct nicsim *world, unsigned nic, struct nicsim_stats *stats)
{
	if (nic < world->nics.size()) {
		*stats = world->nics[nic]->host.stats;
		world->net->add_stats(nic, stats);
		stats->model_evals = world->nics[nic]->host.core.evals();
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

void nicsim_set_fault_hook(struct nicsim *world, nicsim_fault_fn fn, void *arg)
{
	world->net->set_fault_hook(fn, arg);
}

} // extern "C"
