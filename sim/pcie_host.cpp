// SPDX-License-Identifier: MIT
//
// The PCIe host model of one NIC (pcie_host.h): the AXI4-Lite master for MMIO, the AXI4 DMA
// slave with the timing model and the MSI-X capture.

#include "pcie_host.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "nic_hw.h"

namespace nicsim_hw
{

// ---- MMIO (AXI4-Lite master) ------------------------------------------------------------------

void AxiLiteMaster::count_write(uint32_t off)
{
	stats_->mmio_writes++;
	if (off >= NIC_REG_QP_DB_BASE && off < NIC_REG_CQ_DB_BASE) {
		uint32_t in_page = off & ((1u << NIC_DB_PAGE_SHIFT) - 1);
		if (in_page == NIC_DB_SQ_PI)
			stats_->sq_doorbells++;
		else if (in_page == NIC_DB_RQ_PI)
			stats_->rq_doorbells++;
	} else if (off >= NIC_REG_CQ_DB_BASE && off < NIC_REG_MSIX_TABLE) {
		stats_->cq_doorbells++;
	}
}

void AxiLiteMaster::cycle_busy(uint64_t now, const Outputs &o, Inputs &in)
{
	// handshakes that complete at this rising edge (decided on pre-edge values)
	const bool hs_aw = in.axil_awvalid && o.axil_awready;
	const bool hs_w = in.axil_wvalid && o.axil_wready;
	const bool hs_b = o.axil_bvalid && in.axil_bready;
	const bool hs_ar = in.axil_arvalid && o.axil_arready;
	const bool hs_r = o.axil_rvalid && in.axil_rready;

	// writes
	if (hs_aw)
		aw_done_ = true;
	if (hs_w)
		w_done_ = true;
	if (aw_done_ && w_done_ && !wait_b_) {
		count_write(queue_.front().offset);
		queue_.pop_front();
		wait_b_ = true;
	}
	if (hs_b) {
		wait_b_ = false;
		aw_done_ = w_done_ = false;
	}
	// read
	if (hs_ar)
		read_pending_ = false;
	if (hs_r) {
		read_value_ = o.axil_rdata;
		read_done_ = true;
		stats_->mmio_reads++;
	}

	// next inputs: present the head of the write queue once it is due
	const bool write_active = !queue_.empty() && queue_.front().due <= now && !wait_b_;
	in.axil_awvalid = write_active && !aw_done_;
	in.axil_wvalid = write_active && !w_done_;
	if (write_active) {
		in.axil_awaddr = queue_.front().offset;
		in.axil_wdata = queue_.front().value;
		in.axil_wstrb = queue_.front().strb;
	}
	in.axil_bready = true;
	in.axil_arvalid = read_pending_;
	in.axil_araddr = read_offset_;
	in.axil_rready = true;
}

// ---- DMA (AXI4 slave) --------------------------------------------------------------------------

const char *DmaSlave::error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	error_ = buf;
	return error_.c_str();
}

const char *DmaSlave::cycle_busy(uint64_t now, const Outputs &o, Inputs &in)
{
	// handshakes that complete at this rising edge (decided on pre-edge values)
	const bool hs_aw = o.awvalid && in.awready;
	const bool hs_w = o.wvalid && in.wready;
	const bool hs_b = in.bvalid && o.bready;
	const bool hs_ar = o.arvalid && in.arready;
	const bool hs_r = in.rvalid && o.rready;

	// ---- read requests: firewall, snapshot, timing
	if (hs_ar) {
		const unsigned beat_bytes = 1u << o.arsize;
		const unsigned beats = o.arlen + 1;
		const uint64_t base = o.araddr & ~(uint64_t)(beat_bytes - 1);
		const uint64_t span = (uint64_t)beats * beat_bytes;
		const uint64_t bytes = base + span - o.araddr;
		if (beat_bytes > bus_bytes_)
			return error("NIC %u DMA read with beats of %u bytes on a %u-byte bus",
				     nic_, beat_bytes, bus_bytes_);
		if ((base & 0xfff) + span > 4096)
			return error(
				"NIC %u DMA read at 0x%llx of %llu bytes crosses a 4 KiB boundary",
				nic_, (unsigned long long)o.araddr, (unsigned long long)bytes);
		Read rd;
		rd.id = o.arid;
		rd.base = base;
		rd.beats = beats;
		rd.beat_bytes = beat_bytes;
		rd.sent = 0;
		rd.err = fault_hits(rd_fault_, o.araddr, o.araddr + bytes);
		rd.data.assign(span, 0);
		nicsim_mem_kind kind = NICSIM_MEM_DATA;
		if (!memory_->dma_read(o.araddr, bytes, rd.data.data() + (o.araddr - base), &kind))
			return error(
				"NIC %u DMA read of %llu bytes at 0x%llx: memory the driver did not allocate",
				nic_, (unsigned long long)bytes, (unsigned long long)o.araddr);
		// PCIe ordering: a read request does not pass the NIC's earlier posted writes, so it
		// sees every write whose last beat the NIC sent before it, landed in host memory or
		// not yet (they are applied in order, as they will land)
		for (const Write &pw : posted_) {
			const uint64_t lo = std::max<uint64_t>(pw.base, o.araddr);
			const uint64_t hi =
				std::min<uint64_t>(pw.base + pw.data.size(), o.araddr + bytes);
			for (uint64_t a = lo; a < hi; a++)
				if (pw.strb[a - pw.base])
					rd.data[a - base] = pw.data[a - pw.base];
		}
		if (rd.err) // a failed read returns no data
			std::fill(rd.data.begin(), rd.data.end(), 0);
		// fixed round trip, then the payload at the link's bandwidth, one read after another
		const uint64_t xfer = (uint64_t)(bytes / timing_.bytes_per_cycle + 0.999999);
		uint64_t start = now + timing_.dma_read_cycles;
		if (start < rd_free_)
			start = rd_free_;
		rd.ready = start + xfer;
		rd_free_ = rd.ready;
		reads_.push_back(std::move(rd));
		stats_->dma_reads++;
		stats_->dma_read_bytes += bytes;
		if (kind == NICSIM_MEM_SQ) {
			stats_->wqe_fetch_reads++;
			stats_->wqes_fetched += bytes / NIC_WQE_BYTES;
		}
	}
	if (hs_r) {
		Read &rd = reads_.front();
		if (++rd.sent == rd.beats)
			reads_.pop_front();
	}

	// ---- writes
	if (hs_aw) {
		Write wr;
		wr.beat_bytes = 1u << o.awsize;
		wr.beats = o.awlen + 1;
		wr.addr = o.awaddr;
		wr.base = o.awaddr & ~(uint64_t)(wr.beat_bytes - 1);
		wr.got = 0;
		wr.id = o.awid;
		wr.err = false;
		const uint64_t span = (uint64_t)wr.beats * wr.beat_bytes;
		wr.data.assign(span, 0);
		wr.strb.assign(span, 0);
		if (wr.beat_bytes > bus_bytes_)
			return error("NIC %u DMA write with beats of %u bytes on a %u-byte bus",
				     nic_, wr.beat_bytes, bus_bytes_);
		if ((wr.base & 0xfff) + span > 4096)
			return error(
				"NIC %u DMA write at 0x%llx of %llu bytes crosses a 4 KiB boundary",
				nic_, (unsigned long long)wr.addr, (unsigned long long)span);
		if (!is_msix(wr.addr) && !memory_->may_write(wr.addr, wr.base + span - wr.addr))
			return error(
				"NIC %u DMA write of %llu bytes at 0x%llx: memory the driver did not allocate",
				nic_, (unsigned long long)(wr.base + span - wr.addr),
				(unsigned long long)wr.addr);
		wr.err = fault_hits(wr_fault_, wr.addr, wr.base + span);
		writes_.push_back(std::move(wr));
	}
	if (hs_w) {
		if (writes_.empty())
			return error("NIC %u W beat before its AW (this harness needs AW first)",
				     nic_);
		Write &wr = writes_.front();
		const uint64_t beat_addr = wr.base + (uint64_t)wr.got * wr.beat_bytes;
		const unsigned lane0 = (unsigned)(beat_addr % bus_bytes_);
		for (unsigned i = 0; i < wr.beat_bytes; i++) {
			const unsigned lane = lane0 + i;
			const size_t k = (size_t)wr.got * wr.beat_bytes + i;
			if ((o.wstrb >> lane & 1) && wr.base + k >= wr.addr) {
				wr.data[k] = o.wdata[lane];
				wr.strb[k] = 1;
			}
		}
		if (o.wstrb & ~(((1ull << wr.beat_bytes) - 1) << lane0))
			return error(
				"NIC %u write strobes 0x%x outside the lanes of a %u-byte beat at 0x%llx",
				nic_, o.wstrb, wr.beat_bytes, (unsigned long long)beat_addr);
		wr.got++;
		if (o.wlast != (wr.got == wr.beats))
			return error("NIC %u WLAST on beat %u of a %u-beat burst", nic_, wr.got,
				     wr.beats);
		if (wr.got == wr.beats) {
			const uint64_t bytes = (uint64_t)wr.beats * wr.beat_bytes;
			const uint64_t xfer =
				(uint64_t)(bytes / timing_.bytes_per_cycle + 0.999999);
			uint64_t start = now;
			if (start < wr_free_)
				start = wr_free_;
			wr_free_ = start + xfer;
			wr.visible = start + xfer + timing_.dma_write_cycles;
			b_ids_.push_back({ wr.id, wr.err ? 2u : 0u });
			posted_.push_back(std::move(wr));
			writes_.pop_front();
		}
	}
	if (hs_b)
		b_ids_.pop_front();
	// writes land in host memory in order; an MSI-X message becomes an interrupt then
	while (!posted_.empty() && posted_.front().visible <= now) {
		Write wr = std::move(posted_.front());
		posted_.pop_front();
		if (wr.err) // a failed write lands nowhere
			continue;
		if (is_msix(wr.addr)) {
			uint32_t data = 0;
			unsigned k = 0;
			for (size_t i = 0; i < wr.data.size() && k < 4; i++)
				if (wr.strb[i])
					data |= (uint32_t)wr.data[i] << (8 * k++);
			stats_->interrupts++;
			if (irq_fn_)
				irq_fn_(irq_ctx_, nic_, wr.addr, data);
			continue;
		}
		uint64_t bytes = 0;
		for (uint8_t s : wr.strb)
			bytes += s;
		const uint64_t end = wr.base + wr.data.size();
		const size_t from = wr.addr - wr.base;
		nicsim_mem_kind kind = NICSIM_MEM_DATA;
		if (!memory_->dma_write(wr.addr, wr.data.data() + from, wr.strb.data() + from,
					end - wr.addr,
					&kind)) // freed while the write was in flight
			return error("NIC %u DMA write at 0x%llx landed in memory freed meanwhile",
				     nic_, (unsigned long long)wr.addr);
		stats_->dma_writes++;
		stats_->dma_write_bytes += bytes;
		if (kind == NICSIM_MEM_CQ)
			stats_->cqes_written += (end - wr.addr) / NIC_CQE_BYTES;
	}

	// ---- next inputs
	in.arready = reads_.size() < kMaxReadsInFlight;
	in.rvalid = false;
	if (!reads_.empty() && reads_.front().ready <= now) {
		const Read &rd = reads_.front();
		in.rvalid = true;
		in.rid = rd.id;
		in.rresp = rd.err ? 2 : 0; // SLVERR
		in.rlast = rd.sent + 1 == rd.beats;
		const unsigned lane0 =
			(unsigned)((rd.base + (uint64_t)rd.sent * rd.beat_bytes) % bus_bytes_);
		std::memset(in.rdata, 0, sizeof(in.rdata));
		std::memcpy(in.rdata + lane0, rd.data.data() + (size_t)rd.sent * rd.beat_bytes,
			    rd.beat_bytes);
	}
	in.awready = writes_.size() < kMaxWritesAccepted;
	in.wready = !writes_.empty();
	in.bvalid = !b_ids_.empty();
	in.bid = in.bvalid ? b_ids_.front().id : 0;
	in.bresp = in.bvalid ? b_ids_.front().resp : 0;
	return nullptr;
}

} // namespace nicsim_hw
