// SPDX-License-Identifier: MIT
//
// The model adaptor: one Verilated nic_core (the nic_sim_top of tools/gensimtop.py, at data
// width 64 or 256) behind an interface that does not depend on the width, so that everything
// else in sim/ is compiled once. Internal to the harness (C++); nicsim.h is the C API.
//
// Contract:
// - Outputs and Inputs are the core's ports as plain data. sample() reads every output pin
//   (the wide data buses only with their valid); drive() sets every input pin (the wide data
//   buses only with their valid), with no evaluation; edge(clk) sets the clock and evaluates.
// - A cycle is drive(in), edge(true), edge(false): the rising edge takes the inputs, the
//   falling edge only records the clock level (nothing is sensitive to it).
// - The model's state is Verilator's root object, handled as opaque bytes: snapshot() /
//   same_as_snapshot() copy and compare it without the words of the nic_ram_1r1w instances
//   (see ModelOf::leave_out_ram_words in nic_model.cpp for why that is exact),
//   snapshot_whole() / same_as_whole() every byte, record_head() / same_head() its first
//   kHeadBytes (the narrow signals: a cheap necessary condition). The quiescence skip
//   (quiescence.h) is built on them.
// - Every model of one VerilatedContext reports assertion failures and $stop to that context
//   (got_error()); the caller makes it the thread's current context before it evaluates.
//
// Only nic_model.cpp includes the Verilated headers.
#ifndef NIC_MODEL_H
#define NIC_MODEL_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "nicsim_net.h"

class VerilatedContext;

namespace nicsim_hw
{

// Verilator lays out a model's root object with its 8-bit and 16-bit signals first (state
// machines, counters, flags: ~1.1 KiB for nic_core), the wide signals and memories after them.
constexpr size_t kHeadBytes = 1024;
using nicnet::kMaxBusBytes; // DataWidth 256

// The core's outputs, as they stand before a rising edge.
struct Outputs {
	bool axil_awready, axil_wready, axil_bvalid, axil_arready, axil_rvalid;
	uint32_t axil_rdata;
	bool awvalid;
	uint32_t awid, awlen, awsize;
	uint64_t awaddr;
	bool wvalid, wlast;
	uint8_t wdata[kMaxBusBytes];
	uint32_t wstrb;
	bool bready;
	bool arvalid;
	uint32_t arid, arlen, arsize;
	uint64_t araddr;
	bool rready;
	nicnet::StreamOut stream; // the network port
};

// The core's inputs, driven for a rising edge.
struct Inputs {
	bool rst;
	bool us_tick;	     // the core's microsecond time base
	bool msix_fn_masked; // MSI-X disabled or the function masked (a test's; normally 0)
	uint64_t port_mac;   // the port's identity (constant per NIC)
	uint32_t port_ipv4;
	uint32_t axil_awaddr, axil_wdata, axil_araddr;
	uint32_t axil_wstrb;
	bool axil_awvalid, axil_wvalid, axil_bready, axil_arvalid, axil_rready;
	bool awready, wready, bvalid;
	uint32_t bid, bresp;
	bool arready;
	bool rvalid, rlast;
	uint32_t rid, rresp;
	uint8_t rdata[kMaxBusBytes];
	nicnet::StreamIn stream; // the network port (computed by the network)
};

// Inputs compare equal: every field, whether a valid qualifies it or not (what is driven).
inline bool same_inputs(const Inputs &a, const Inputs &b)
{
	return a.rst == b.rst && a.us_tick == b.us_tick && a.msix_fn_masked == b.msix_fn_masked &&
	       a.port_mac == b.port_mac && a.port_ipv4 == b.port_ipv4 &&
	       a.axil_awaddr == b.axil_awaddr && a.axil_wdata == b.axil_wdata &&
	       a.axil_wstrb == b.axil_wstrb && a.axil_araddr == b.axil_araddr &&
	       a.axil_awvalid == b.axil_awvalid && a.axil_wvalid == b.axil_wvalid &&
	       a.axil_bready == b.axil_bready && a.axil_arvalid == b.axil_arvalid &&
	       a.axil_rready == b.axil_rready && a.awready == b.awready && a.wready == b.wready &&
	       a.bvalid == b.bvalid && a.bid == b.bid && a.bresp == b.bresp &&
	       a.arready == b.arready && a.rvalid == b.rvalid && a.rlast == b.rlast &&
	       a.rid == b.rid && a.rresp == b.rresp &&
	       !std::memcmp(a.rdata, b.rdata, sizeof(a.rdata)) &&
	       a.stream.tx_tready == b.stream.tx_tready &&
	       a.stream.rx_tvalid == b.stream.rx_tvalid && a.stream.rx_tlast == b.stream.rx_tlast &&
	       a.stream.rx_tkeep == b.stream.rx_tkeep &&
	       !std::memcmp(a.stream.rx_tdata, b.stream.rx_tdata, sizeof(a.stream.rx_tdata));
}

// Outputs compare equal: the fields a model drives every cycle; wdata and tx_tdata are sampled
// only with their valid, so a stale copy compares as unchanged.
inline bool same_outputs(const Outputs &a, const Outputs &b)
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

// One Verilated model behind a width-independent interface.
class Model {
    public:
	virtual ~Model() = default;
	virtual void sample(Outputs &o) = 0;
	virtual void drive(const Inputs &in) = 0;
	virtual void edge(bool clk) = 0;
	// an assertion failed or $stop ran in this model's context
	virtual bool got_error() const = 0;
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
	// QuiescentModel::probe): remember them, and compare them with what was remembered.
	virtual void record_head() = 0;
	virtual bool same_head() const = 0;
};

// The model of nic_core at data_width 64 or 256 in context ctx (scope name `name`); nullptr
// for any other width.
std::unique_ptr<Model> make_model(unsigned data_width, VerilatedContext *ctx, const char *name);

} // namespace nicsim_hw

#endif // NIC_MODEL_H
