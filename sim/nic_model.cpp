// SPDX-License-Identifier: MIT
//
// The model adaptor (nic_model.h): ModelOf, one Verilated nic_sim_top of a given data width
// behind Model. The only file of the harness that includes the Verilated models' headers.

#include "nic_model.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "Vnic_core_w256.h"
#include "Vnic_core_w256___024root.h" // only its size: see ModelOf::snapshot
#include "Vnic_core_w256_ram_words.h"
#include "Vnic_core_w64.h"
#include "Vnic_core_w64___024root.h"
#include "Vnic_core_w64_ram_words.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace nicsim_hw
{
namespace
{

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
		m_->msix_fn_masked_i = in.msix_fn_masked;
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
		m_->m_axi_bresp_i = in.bresp;
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
	bool got_error() const override
	{
		return m_->contextp()->gotError();
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

} // namespace

std::unique_ptr<Model> make_model(unsigned data_width, VerilatedContext *ctx, const char *name)
{
	if (data_width == 64)
		return std::make_unique<ModelOf<Vnic_core_w64, 64>>(ctx, name);
	if (data_width == 256)
		return std::make_unique<ModelOf<Vnic_core_w256, 256>>(ctx, name);
	return nullptr;
}

} // namespace nicsim_hw
