`default_nettype none
// nic_wqe_fetch: send-queue doorbells, WQE fetch and the WQE buffer.
//
// Per QP it keeps three 16-bit free-running indices: pi (the latest doorbell: later doorbells
// overwrite earlier ones, which is the coalescing, and nothing is lost because the index is
// absolute), fetch (next WQE to read) and exec (next WQE the dispatcher retires). A doorbell that
// would put more than 2^log_depth WQEs outstanding (pi - exec > depth), or that moves pi behind
// what was already fetched, is a software bug: it is dropped and reported (db_err_o), and the
// owner moves the QP to ERROR; already fetched WQEs then complete CANCELLED, nothing hangs.
//
// Fetch: a round robin over the QPs with pi != fetch picks one QP, and one AXI burst reads all
// its new WQEs at once, bounded by the ring end (no wrap inside a burst), the 4 KiB page (a ring
// is 4 KiB aligned and a WQE is 64 bytes, so a page holds 64) and MaxBurstWqes; the read waits
// until the WQE buffer has that many free slots, which it reserves when the read is issued. The
// pick, the burst and the read are three pipeline stages, each registered (see "fetch
// scheduling" below): a doorbell's first read leaves two cycles after its pending bit is set.
// Up to MaxReads reads are in flight;
// they all use one ARID, so the data returns in issue order and fills the reserved slots in
// order. Beats are assembled into 512-bit WQEs (byte 0 in [7:0]) and written into the buffer RAM
// tagged with the ring index and a DMA-error flag (an R beat with an error response). The
// buffer keeps of the header's bits 63:32 (its `index` and 16 reserved bits) only whether the
// index equals the ring index: wqe_data_o gives the reserved bits as 0 and the index as the
// ring index, or its complement when they differed (see WordW).
//
// The buffer is a FIFO in issue order, so the dispatcher sees each QP's WQEs in ring order. Its
// output (wqe_*) is the RAM's registered read port, valid/ready, stable until taken. A QP reset
// (create or destroy) makes every WQE of that QP still in flight or buffered stale
// (wqe_stale_o): the dispatcher discards it without a completion, and a new incarnation of the
// QP never sees WQEs of the old one. Slots are reserved and read in one order, so "reserved
// before the QP's last reset" is "before the reservation pointer as it was at that reset": each
// QP keeps that pointer (its kill pointer) until the read pointer reaches it, and a slot read
// while its QP's kill pointer is ahead is stale. Each slot's QP number is written with the WQE
// (a small LUT RAM beside the buffer, read at the read pointer).
//
// Rewind: the dispatcher does not hold a WQE that must wait for its QP's transport WQEs while
// WQEs of other QPs wait behind it; it gives it back (rewind_i, not retired) and this module
// fetches the QP again from its exec index, which is that WQE's, once busy_i says the QP has
// nothing in the transport. Until then the QP is parked: out of the round robin. What was
// fetched or is being fetched for it goes stale as at a QP reset (the kill pointer), and the
// rewind is applied one cycle after it came (rw_v_q), in a cycle that issues no read, writes no
// BlueFlame copy and resets no QP.
//
// BlueFlame: a doorbell may carry a copy of a WQE the host wrote through the doorbell page
// (sq_db_bf_i, from nic_csr). It replaces the fetch only when it is exactly the next WQE and the
// only one the doorbell adds (pi = fetch + 1, nothing else of the QP waiting to be fetched, the
// copy's `index` = fetch) and no read of any QP is in flight (so every reserved slot is filled,
// the buffer's write port is free and the copy lands in FIFO order behind everything fetched
// before), no read is offered in the same cycle, and the buffer has a free slot. The copy is then
// written straight into the next slot as if it had been fetched, and fetch moves past it.
// Otherwise the doorbell is an ordinary one and the WQE is fetched from the ring: a copy that
// is stale, partial or for another WQE is never executed.
//
// The SQ ring (base, depth) is nic_qp_ctx's, read through its two ports (the doorbell's QP, the
// fetched QP). The per-QP state here (the three indices) is a table written like a RAM: an
// event writes only the entry it names. Nothing is evaluated per slot at all, and per QP only
// the kill pointers' comparison with the read pointer. The QPs with pi != fetch are kept as a
// registered bit vector next to the indices.
module nic_wqe_fetch #(
  parameter int DataWidth     = 64,  // AXI data width: 64, 128 or 256
  parameter int NumQps        = 16,  // queue pairs, 1..256
  parameter int MaxBurstWqes  = 16,  // most WQEs per read burst: 1..64, <= WqeBufEntries
  parameter int WqeBufEntries = 128, // WQE buffer slots: a power of two >= 2
  parameter int LogMaxSqDepth = 12,  // largest ring: 2^LogMaxSqDepth WQEs, <= 15
  parameter int MaxReads      = 4    // WQE reads in flight: a power of two >= 2
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // QP commands and state, from nic_qp_ctx
  input  logic                   qp_reset_i,       // QP created or destroyed this cycle
  input  logic [7:0]             qp_reset_qpn_i,   // (< NumQps)
  // the send ring (nic_qp_ctx's read ports): the doorbell's QP's depth, the fetched QP's ring
  output logic [7:0]             ring_db_qpn_o,
  input  logic [3:0]             ring_db_log_depth_i,
  output logic [7:0]             ring_rd_qpn_o,
  input  logic [51:0]            ring_rd_base_i,         // SQ ring base address [63:12]
  input  logic [3:0]             ring_rd_log_depth_i,
  input  logic [NumQps-1:0]      qp_active_i,      // state != RESET
  // send-queue doorbells (one-cycle pulses)
  input  logic                   sq_db_valid_i,
  input  logic [7:0]             sq_db_qpn_i,
  input  logic [15:0]            sq_db_pi_i,
  input  logic                   sq_db_bf_i,       // the doorbell carries a BlueFlame copy ...
  input  logic [511:0]           sq_db_bf_data_i,  // ... of this WQE
  output logic                   db_err_o,         // doorbell dropped: the QP must go to ERROR
  output logic [7:0]             db_err_qpn_o,
  // the dispatcher retired the QP's WQE at retire_idx_i (executed or cancelled, not discarded);
  // nic_wqe_dispatch registers it: it comes a cycle after the WQE's finish there
  input  logic                   retire_i,
  input  logic [7:0]             retire_qpn_i,
  input  logic [15:0]            retire_idx_i,
  // the dispatcher gave back the QP's oldest WQE not retired (it must wait for the transport,
  // and WQEs of other QPs wait behind it): fetch the QP again from there once it is no longer
  // busy in the transport (busy_i)
  input  logic                   rewind_i,
  input  logic [7:0]             rewind_qpn_i,
  input  logic [NumQps-1:0]      busy_i,
  output logic                   rewind_busy_o,    // a rewind is not applied yet: none may come
  // DMA read client (nic_dma_rd): a request is taken when valid and ready are high
  output logic                   ar_valid_o,
  input  logic                   ar_ready_i,
  output logic [63:0]            ar_addr_o,
  output logic [7:0]             ar_len_o,
  input  logic                   r_valid_i,
  output logic                   r_ready_o,
  input  logic [DataWidth-1:0]   r_data_i,
  input  logic [1:0]             r_resp_i,
  input  logic                   r_last_i,
  // WQE stream to the dispatcher
  output logic                   wqe_valid_o,
  input  logic                   wqe_ready_i,
  output logic [511:0]           wqe_data_o,       // header bits 63:32 as the buffer keeps them
  output logic [7:0]             wqe_qpn_o,
  output logic [15:0]            wqe_idx_o,        // the ring index the WQE was read from
  output logic                   wqe_dma_err_o,    // a beat of it came with an error response
  output logic                   wqe_stale_o       // its QP was reset since: discard it
);

  localparam int BeatsPerWqe = 512 / DataWidth;
  localparam int BwW         = $clog2(BeatsPerWqe);
  localparam int NW          = $clog2(MaxBurstWqes + 1);      // bits of a WQE count
  localparam int BufAW       = $clog2(WqeBufEntries);
  localparam int PtrW        = BufAW + 1;                     // buffer pointers with a wrap bit
  localparam int RdAW        = $clog2(MaxReads);
  localparam int RdPtrW      = RdAW + 1;
  // A buffer word: {dma_err, ring index, index_ok, the WQE without its header's bits 63:32}.
  // Those are the header's `index` (47:32), which the dispatcher only compares with the ring
  // index (kept as that compare, index_ok: the word gives back the ring index, or its
  // complement, there), and 16 reserved bits (63:48) no WQE type uses (they read 0). 498 bits
  // instead of 529: 14 block RAMs of 36 bits instead of 15.
  localparam int WordW       = 1 + 16 + 1 + 480;
  localparam int QpW         = (NumQps > 1) ? $clog2(NumQps) : 1;   // table index of a QP

  // ---- parameter checks -----------------------------------------------------------------------
  if (DataWidth < 64 || DataWidth > 256 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_width
    $fatal(1, "nic_wqe_fetch: DataWidth must be 64, 128 or 256");
  end
  if (NumQps < 1 || NumQps > 256) begin : gen_bad_qps
    $fatal(1, "nic_wqe_fetch: NumQps must be 1..256");
  end
  if (MaxBurstWqes < 1 || MaxBurstWqes > 64) begin : gen_bad_burst
    $fatal(1, "nic_wqe_fetch: MaxBurstWqes must be 1..64 (a 4 KiB page holds 64 WQEs)");
  end
  if (MaxBurstWqes * BeatsPerWqe > 256) begin : gen_bad_burst_beats
    $fatal(1, "nic_wqe_fetch: MaxBurstWqes * 64 / (DataWidth / 8) must be <= 256 (AXI4 burst)");
  end
  if (MaxBurstWqes > WqeBufEntries) begin : gen_bad_burst_buf
    $fatal(1, "nic_wqe_fetch: MaxBurstWqes must not exceed WqeBufEntries");
  end
  if (WqeBufEntries < 2 || (WqeBufEntries & (WqeBufEntries - 1)) != 0) begin : gen_bad_buf
    $fatal(1, "nic_wqe_fetch: WqeBufEntries must be a power of two >= 2 (pointer wrap)");
  end
  if (LogMaxSqDepth < 0 || LogMaxSqDepth > 15) begin : gen_bad_depth
    $fatal(1, "nic_wqe_fetch: LogMaxSqDepth must be 0..15 (16-bit free-running indices)");
  end
  if (MaxReads < 2 || (MaxReads & (MaxReads - 1)) != 0) begin : gen_bad_reads
    $fatal(1, "nic_wqe_fetch: MaxReads must be a power of two >= 2");
  end

  function automatic logic [16:0] min17(input logic [16:0] a, input logic [16:0] b);
    min17 = (a < b) ? a : b;
  endfunction

  // ---- per-QP tables ------------------------------------------------------------------------------
  // The SQ ring of each QP (base, depth) is nic_qp_ctx's: read at a doorbell and at a fetch.
  // The indices: pi, fetch and exec of each QP. No reset either: QP_CREATE (and QP_DESTROY) zero
  // them, and only an active QP's indices are used. Each is a LUT RAM with one write port (pi:
  // the doorbell; fetch: an issue or a BlueFlame copy, never both in one cycle; exec: a retire)
  // beside a bit per QP that says "reset since the last write: reads 0", which takes the QP
  // reset's write (so no entry needs a second write port, and no index lives in flip-flops read
  // through a 16-way mux at every port). The bits are RAM-like too: no reset.
  logic [15:0]          pi_mem      [NumQps];
  logic [15:0]          fetch_mem   [NumQps];
  logic [15:0]          exec_mem    [NumQps];
  logic [NumQps-1:0]    pi_z_q, fetch_z_q, exec_z_q;
  logic [15:0]          pi_pick, fetch_pick, fetch_db, exec_db, exec_ret;  // the read ports
  logic [NumQps-1:0]    pend_q;             // pi != fetch, per QP
  logic [NumQps-1:0]    pending;            // the QP has doorbelled WQEs not yet fetched

  logic                 issue;              // a WQE read is issued this cycle
  logic [NW-1:0]        issue_n;            // its WQE count (the registered request's)
  logic [7:0]           pick_qpn;           // the picked QP (registered): the request's, the read's
  logic                 req_v_q;            // a read request is registered (for pick_qpn)
  logic                 db_ok;              // the doorbell is taken
  logic                 bf_hit;             // ... and its BlueFlame copy replaces the fetch

  logic [QpW-1:0]       reset_idx, retire_idx, pick_idx, db_idx;
  assign reset_idx  = QpW'(qp_reset_qpn_i);
  assign retire_idx = QpW'(retire_qpn_i);
  assign pick_idx   = QpW'(pick_qpn);

  assign pi_pick    = pi_z_q[pick_idx] ? 16'd0 : pi_mem[pick_idx];
  assign fetch_pick = fetch_z_q[pick_idx] ? 16'd0 : fetch_mem[pick_idx];
  assign fetch_db   = fetch_z_q[db_idx] ? 16'd0 : fetch_mem[db_idx];
  assign exec_db    = exec_z_q[db_idx] ? 16'd0 : exec_mem[db_idx];
  assign exec_ret   = exec_z_q[retire_idx] ? 16'd0 : exec_mem[retire_idx];

  // The rewind, registered; applied (rw_apply) in the first cycle without a QP reset. A rewind of a
  // QP reset meanwhile is dropped: the reset started it afresh.
  logic              rw_v_q, rw_v_d, rw_apply;
  logic [7:0]        rw_qpn_q;
  logic [QpW-1:0]    rw_idx;
  logic [15:0]       exec_rw;
  logic [NumQps-1:0] parked_q, parked_d;   // rewound, waiting for its transport WQEs
  assign rw_idx   = QpW'(rw_qpn_q);
  assign exec_rw  = exec_z_q[rw_idx] ? 16'd0 : exec_mem[rw_idx];
  assign rw_apply = rw_v_q && !qp_reset_i;
  assign rewind_busy_o = rw_v_q;
  always_comb begin
    rw_v_d = (rw_v_q && !rw_apply && !(qp_reset_i && qp_reset_qpn_i == rw_qpn_q))
             || (rewind_i && !(qp_reset_i && qp_reset_qpn_i == rewind_qpn_i));
    for (int q = 0; q < NumQps; q++) begin     // constant indices (see the bits below)
      parked_d[q] = (parked_q[q] && busy_i[q]) || (rw_apply && rw_idx == QpW'(q));
      if (qp_reset_i && reset_idx == QpW'(q)) begin
        parked_d[q] = 1'b0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rw_v_q   <= 1'b0;
      parked_q <= '0;
    end else begin
      rw_v_q   <= rw_v_d;
      parked_q <= parked_d;
    end
    if (rewind_i) begin
      rw_qpn_q <= rewind_qpn_i;
    end
  end

  // The new pi and fetch of the QPs an issue or a doorbell touches (the same QP when both name it),
  // for their pending bits.
  logic [15:0] issue_fetch_new, issue_pi_new, db_fetch_new;
  assign issue_fetch_new = fetch_pick + 16'(issue_n);
  assign issue_pi_new    = (db_ok && db_idx == pick_idx) ? sq_db_pi_i : pi_pick;
  assign db_fetch_new    = (issue && db_idx == pick_idx) ? issue_fetch_new : fetch_db;
  // ... and their pending bits (a doorbell's wins when both name one QP: it saw the issue)
  logic pend_issue_new, pend_db_new;
  assign pend_issue_new = issue_pi_new != issue_fetch_new;
  assign pend_db_new    = !bf_hit && sq_db_pi_i != db_fetch_new;


  // Events in the order of precedence: a QP reset (QP_CREATE / QP_DESTROY: a fresh ring) comes
  // last and wins. It never meets an issue (no read is issued in a reset cycle) nor a doorbell of
  // its own QP (refused), only possibly a retire.
  always_ff @(posedge clk_i) begin
    if (retire_i) begin
      exec_mem[retire_idx] <= exec_ret + 16'd1;
    end
    // (a rewind's cycle issues no read and writes no BlueFlame copy)
    if (issue || bf_hit || rw_apply) begin
      fetch_mem[rw_apply ? rw_idx : bf_hit ? db_idx : pick_idx]
        <= rw_apply ? exec_rw : bf_hit ? sq_db_pi_i : issue_fetch_new;
    end
    if (db_ok) begin
      pi_mem[db_idx] <= sq_db_pi_i;
    end
  end

  // Per QP with a constant index: an event's bit write at a computed index (`z_q[idx] <= ...`)
  // is a decoder and a mux chain per event in Yosys 0.23, in series; here each bit sees its
  // events side by side (the same precedence: the reset last).
  always_ff @(posedge clk_i) begin
    for (int q = 0; q < NumQps; q++) begin
      if (qp_reset_i && reset_idx == QpW'(q)) begin
        pi_z_q[q]    <= 1'b1;
        fetch_z_q[q] <= 1'b1;
        exec_z_q[q]  <= 1'b1;
      end else begin
        if (retire_i && retire_idx == QpW'(q)) begin
          exec_z_q[q] <= 1'b0;
        end
        if ((issue && pick_idx == QpW'(q)) || (bf_hit && db_idx == QpW'(q))
            || (rw_apply && rw_idx == QpW'(q))) begin
          fetch_z_q[q] <= 1'b0;
        end
        if (db_ok && db_idx == QpW'(q)) begin
          pi_z_q[q] <= 1'b0;
        end
      end
    end
  end

  // The indices as the arrays they stand for, for the assertions and the proofs only.
`ifndef SYNTHESIS
`define NIC_WQE_FETCH_INDEX_VIEW
`elsif FORMAL
`define NIC_WQE_FETCH_INDEX_VIEW
`endif
`ifdef NIC_WQE_FETCH_INDEX_VIEW
  logic [15:0] pi_q [NumQps];
  logic [15:0] fetch_q [NumQps];
  logic [15:0] exec_q [NumQps];
  always_comb begin
    for (int q = 0; q < NumQps; q++) begin
      pi_q[q]    = pi_z_q[q] ? 16'd0 : pi_mem[q];
      fetch_q[q] = fetch_z_q[q] ? 16'd0 : fetch_mem[q];
      exec_q[q]  = exec_z_q[q] ? 16'd0 : exec_mem[q];
    end
  end
`undef NIC_WQE_FETCH_INDEX_VIEW
`endif

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pend_q <= '0;
    end else begin
      for (int q = 0; q < NumQps; q++) begin      // constant indices, as the bits above
        if (qp_reset_i && reset_idx == QpW'(q)) begin
          pend_q[q] <= 1'b0;
        end else if (rw_apply && rw_idx == QpW'(q)) begin
          pend_q[q] <= 1'b1;    // the WQE given back was doorbelled: pi is past it
        end else if (db_ok && db_idx == QpW'(q)) begin
          pend_q[q] <= pend_db_new;
        end else if (issue && pick_idx == QpW'(q)) begin
          pend_q[q] <= pend_issue_new;
        end
      end
    end
  end

  assign pending = qp_active_i & pend_q & ~parked_q;

  // ---- doorbells ---------------------------------------------------------------------------------
  // The check uses this cycle's exec and fetch (a retire or an issue in the same cycle counts),
  // so a doorbell is never refused for a WQE slot that is being freed right now. (The retire
  // comes registered from nic_wqe_dispatch, a cycle after the WQE finished there: a slot is
  // counted free one cycle after that finish, long before its completion can reach the host.)
  // Both answers are computed, with and without a read of the same QP issued in this cycle, and
  // the issue (nic_dma_rd's grant, late in the cycle) only chooses between them.
  logic        db_take, db_bad, db_bad_idle, db_bad_issue, db_ok_idle, db_issue_same;
  logic [7:0]  db_sel;
  // Differences of free-running indices are taken in 16 bits (modulo 2^16), then compared.
  logic [15:0] db_exec_now, db_fetch_issue, db_outstanding16, db_fetched16, db_fetched16_issue;
  logic [16:0] db_depth, db_outstanding, db_fetched, db_fetched_issue;
  logic [255:0] active_all;      // one bit per possible QP number (absent QPs: 0)

  assign active_all = 256'(qp_active_i);

  assign db_sel       = (32'(sq_db_qpn_i) < NumQps) ? sq_db_qpn_i : 8'd0;
  assign db_idx       = QpW'(db_sel);
  assign db_take      = sq_db_valid_i && active_all[sq_db_qpn_i] &&
                        !(qp_reset_i && qp_reset_qpn_i == sq_db_qpn_i);
  assign db_exec_now  = exec_db + 16'(retire_i && retire_qpn_i == db_sel);
  assign db_fetch_issue = fetch_db + 16'(issue_n);
  assign db_issue_same  = req_v_q && pick_qpn == db_sel;   // a read of this QP is offered
  assign ring_db_qpn_o  = db_sel;
  assign db_depth       = 17'd1 << ring_db_log_depth_i;
  assign db_outstanding16   = sq_db_pi_i - db_exec_now;
  assign db_fetched16       = fetch_db - db_exec_now;
  assign db_fetched16_issue = db_fetch_issue - db_exec_now;
  assign db_outstanding     = 17'(db_outstanding16);
  assign db_fetched         = 17'(db_fetched16);
  assign db_fetched_issue   = 17'(db_fetched16_issue);
  assign db_bad_idle    = db_outstanding > db_depth || db_outstanding < db_fetched;
  assign db_bad_issue   = db_outstanding > db_depth || db_outstanding < db_fetched_issue;
  assign db_bad         = (issue && db_issue_same) ? db_bad_issue : db_bad_idle;
  assign db_ok          = db_take && !db_bad;
  assign db_ok_idle     = db_take && !db_bad_idle;     // db_ok when no read is offered
  assign db_err_o       = db_take && db_bad;
  assign db_err_qpn_o   = sq_db_qpn_i;

  // ---- buffer pointers and the read FIFO ------------------------------------------------------
  // rsv: next slot to reserve (at issue); wr: next slot the R channel fills; rd: next slot to
  // read into the output register. rd <= wr <= rsv <= rd + WqeBufEntries.
  logic [PtrW-1:0]   rsv_ptr_q, rsv_ptr_d, wr_ptr_q, wr_ptr_d, rd_ptr_q, rd_ptr_d;
  logic [PtrW-1:0]   buf_used;
  logic [16:0]       buf_free;

  // The reads in flight, in issue order: first ring index and WQE count of each (written at issue,
  // one entry per read).
  logic [15:0]            rq_idx_q [MaxReads];
  logic [NW-1:0]          rq_n_q   [MaxReads];
  logic [QpW-1:0]         rq_qpn_q [MaxReads];   // the read's QP (its slots' QP)
  logic [RdPtrW-1:0]      rq_wp_q, rq_wp_d, rq_rp_q, rq_rp_d;
  logic                   rq_full, rq_empty;
  logic [RdPtrW-1:0]      rq_count;
  logic [15:0]            rq_head_idx;
  logic [NW-1:0]          rq_head_n;
  logic [QpW-1:0]         rq_head_qpn;

  assign buf_used    = rsv_ptr_q - rd_ptr_q;
  assign buf_free    = 17'(WqeBufEntries) - 17'(buf_used);
  assign rq_count    = rq_wp_q - rq_rp_q;
  assign rq_full     = rq_count == RdPtrW'(MaxReads);
  assign rq_empty    = rq_wp_q == rq_rp_q;
  assign rq_head_idx = rq_idx_q[rq_rp_q[RdAW-1:0]];
  assign rq_head_n   = rq_n_q[rq_rp_q[RdAW-1:0]];
  assign rq_head_qpn = rq_qpn_q[rq_rp_q[RdAW-1:0]];

  // ---- fetch scheduling: a registered pick, a registered request, then the read ------------------
  // Three stages, so that no combinational path runs from the pending bits through the pick, the
  // ring read of nic_qp_ctx and the burst arithmetic into nic_dma_rd's arbiter and back into the
  // tables here (the worst path of the placed core, docs/timing-area.md):
  //   pick:    a round robin over the pending QPs loads the pick register (pick_qpn). The pick
  //            holds its QP until a read of it is issued or the QP stops pending.
  //   request: the ring (nic_qp_ctx's read port, addressed by the registered pick) and the
  //            indices give the burst; its WQE count, address and length are registered.
  //   issue:   the registered request is offered to nic_dma_rd (ar_valid_o) when the buffer has
  //            room and a read FIFO entry is free (both from registered pointers).
  // A request is registered in one cycle and offered in the next, so it must still be exactly
  // what the request stage would compute then: it is dropped (req_v_q low) when anything that
  // fed it changes in between: a read of the QP issued (fetch moves), a doorbell for the QP
  // (pi moves; a BlueFlame copy is a doorbell too), a reset of the QP, or the pick moving to
  // another QP. Only the ring (fixed while the QP is active, docs/architecture.md) and the
  // read's own indices are read at the request, so nothing else can change it. The pick, and
  // so the request and the read, is one QP at a time; a doorbell's first read costs two cycles
  // more than a pick and burst in one cycle did, a read after an issued one of the same QP one.
  logic [7:0]  rr_q, rr_d;          // the QP picked last (round-robin base)
  logic        pick_v_q, pick_v_d;  // the pick register holds a QP
  logic [7:0]  pick_qpn_q, pick_qpn_d;
  logic        pick_again_q, pick_again_d;  // the pick was kept after its read: it may have more
  logic        pick_keep;           // the pick stays on its QP
  logic        cand_valid;          // the round robin's next QP, other than the pick's
  logic [7:0]  cand_qpn;
  logic        req_v_d, req_kill;
  logic [NW-1:0] req_n_q;
  logic [63:0] req_addr_q;
  logic [7:0]  req_len_q;
  logic [15:0] sel_pi, sel_fetch, sel_slot, sel_avail;
  logic [51:0] sel_base;
  logic [3:0]  sel_ld;
  logic [16:0] sel_depth, to_end, to_page, avail, burst;

  assign pick_qpn = pick_qpn_q;

  // The lowest pending QP above the last picked one, else the lowest pending QP; the QP in the
  // pick register is not a candidate (it is served, or about to be).
  always_comb begin
    cand_valid = 1'b0;
    cand_qpn   = '0;
    for (int q = NumQps - 1; q >= 0; q--) begin
      if (pending[q] && !(pick_v_q && pick_qpn_q == 8'(q))) begin
        cand_valid = 1'b1;
        cand_qpn   = 8'(q);
      end
    end
    for (int q = NumQps - 1; q >= 0; q--) begin
      if (pending[q] && !(pick_v_q && pick_qpn_q == 8'(q)) && 8'(q) > rr_q) begin
        cand_qpn = 8'(q);
      end
    end
  end

  // The pick stays while its QP is pending and not read in this cycle; a pick kept after its
  // read (a QP with more WQEs than a burst) gives way to any other pending QP, as the round
  // robin would have at that read.
  assign pick_keep = pick_v_q && pending[pick_idx] && !issue && !(pick_again_q && cand_valid);

  always_comb begin
    pick_v_d     = pick_v_q;
    pick_qpn_d   = pick_qpn_q;
    pick_again_d = pick_again_q;
    rr_d         = rr_q;
    if (!pick_keep) begin
      if (cand_valid) begin
        pick_v_d     = 1'b1;
        pick_qpn_d   = cand_qpn;
        pick_again_d = 1'b0;
        rr_d         = cand_qpn;
      end else if (issue) begin
        pick_v_d     = 1'b1;       // no other QP waits: the same one again, if it has more
        pick_again_d = 1'b1;
      end else begin
        pick_v_d     = 1'b0;
        pick_again_d = 1'b0;
      end
    end
  end

  // The request stage: the picked QP's ring and indices.
  assign sel_pi    = pi_pick;
  assign sel_fetch = fetch_pick;
  assign ring_rd_qpn_o = pick_qpn_q;
  assign sel_base  = ring_rd_base_i;
  assign sel_ld    = ring_rd_log_depth_i;
  assign sel_depth = 17'd1 << sel_ld;
  assign sel_slot  = sel_fetch & 16'(sel_depth - 17'd1);
  assign to_end    = sel_depth - 17'(sel_slot);              // slots up to the ring end
  assign to_page   = 17'd64 - 17'(sel_slot[5:0]);            // slots up to the 4 KiB boundary
  assign sel_avail = sel_pi - sel_fetch;                     // modulo 2^16
  assign avail     = 17'(sel_avail);                         // doorbelled, not fetched
  // The burst is all the QP's new WQEs up to the ring end, the 4 KiB page and MaxBurstWqes.
  // When the WQE buffer cannot take all of them the read waits for space instead of fetching
  // a smaller piece: a chain then costs ceil(WQEs / MaxBurstWqes) reads however slowly the
  // executor drains (a FastRegister waits for its page list), and the buffer still never
  // overflows (MaxBurstWqes <= WqeBufEntries, so the wait always ends). The request is
  // recomputed in every cycle it waits, so a doorbell that comes meanwhile joins the burst.
  assign burst     = min17(min17(avail, to_end), min17(to_page, 17'(MaxBurstWqes)));

  // What changes the request's inputs in this cycle (see above); the pick moving covers an
  // issue and the QP leaving the pending set.
  assign req_kill = !pick_keep || (db_take && db_sel == pick_qpn_q) ||
                    (qp_reset_i && qp_reset_qpn_i == pick_qpn_q) ||
                    (rw_v_q && rw_qpn_q == pick_qpn_q);
  assign req_v_d  = burst != '0 && !req_kill;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      req_v_q <= 1'b0;
    end else begin
      req_v_q <= req_v_d;
    end
  end

  // The request's fields: no reset (only read while req_v_q).
  always_ff @(posedge clk_i) begin
    req_n_q    <= NW'(burst);
    req_addr_q <= {sel_base, 12'h000} + {42'd0, sel_slot, 6'd0};
    req_len_q  <= 8'(32'(NW'(burst)) * BeatsPerWqe - 1);
  end

  // The issue stage. No read is issued in a cycle that resets a QP, so a reservation never
  // races the slot kill; the QP's pending bit covers a QP that left its active states.
  assign issue_n    = req_n_q;
  assign ar_valid_o = req_v_q && pending[pick_idx] && 17'(req_n_q) <= buf_free && !rq_full &&
                      !qp_reset_i && !rw_v_q;
  assign ar_addr_o  = req_addr_q;
  assign ar_len_o   = req_len_q;
  assign issue      = ar_valid_o && ar_ready_i;

  // ---- BlueFlame: the doorbell's copy instead of a fetch (see the top) ---------------------------
  nic_pkg::wqe_hdr_t bf_hdr;
  logic              unused_bf_hdr;    // only the index matters here; the dispatcher decodes the rest
  assign bf_hdr        = sq_db_bf_data_i;
  assign unused_bf_hdr = ^{bf_hdr.rsvd_6, bf_hdr.flags, bf_hdr.nsge, bf_hdr.opcode};
  // db_ok: the QP is live and the index is sane (no read is offered, so none is issued: the
  // grant of nic_dma_rd does not reach the copy's write). pi_q = fetch_q: nothing of it waits
  // to be fetched (so it is not picked, nor requested); rq_empty and no read offered: every
  // reserved slot is filled and none is reserved in this cycle, so rsv = wr and the copy takes
  // the slot the R channel would fill next (a request that waits is recomputed next cycle).
  assign bf_hit    = db_ok_idle && sq_db_bf_i && !pend_q[db_idx] && !ar_valid_o && rq_empty && !rw_v_q &&
                     buf_free != '0 && sq_db_pi_i == fetch_db + 16'd1 &&
                     bf_hdr.index == fetch_db;

  // ---- stale slots: the kill pointers ----------------------------------------------------------
  // At a QP's reset its kill pointer takes the reservation pointer: the slots before it, from the
  // read pointer on, were reserved before the reset (issue and reset never meet in one cycle; a
  // BlueFlame copy in the reset cycle is of another QP, refused for the reset one). The pointer
  // stays live until the read pointer reaches it (the read pointer moves one slot at a time and
  // never passes the reservation pointer, so it meets it exactly): a slot of the QP read while
  // its pointer is live is stale. The same answer as a stale mark per slot set by the reset.
  logic [NumQps-1:0]   kill_live_q, kill_live_d;    // the QP's kill pointer is ahead of rd
  logic [PtrW-1:0]     kill_ptr_q [NumQps];
  logic [NumQps-1:0]   kill_now;                    // ... as it is in this cycle

  always_comb begin
    for (int q = 0; q < NumQps; q++) begin
      kill_now[q] = kill_live_q[q] && kill_ptr_q[q] != rd_ptr_q;
    end
    for (int q = 0; q < NumQps; q++) begin     // constant indices (see the bits above)
      kill_live_d[q] = kill_now[q] || (qp_reset_i && reset_idx == QpW'(q))
                       || (rw_apply && rw_idx == QpW'(q));
    end
  end

  // (a rewind is applied only in a cycle without a reset: one write per cycle)
  always_ff @(posedge clk_i) begin
    if (qp_reset_i || rw_apply) begin
      kill_ptr_q[qp_reset_i ? reset_idx : rw_idx] <= rsv_ptr_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      kill_live_q <= '0;
    end else begin
      kill_live_q <= kill_live_d;
    end
  end

  // ---- R channel: assemble WQEs into the reserved slots -----------------------------------------
  logic [(BeatsPerWqe-1)*DataWidth-1:0] asm_q;          // the beats before the last one
  logic [BwW-1:0]   bw_q, bw_d;                         // beat within the WQE
  logic [NW-1:0]    wc_q, wc_d;                         // WQE within the burst
  logic             err_q, err_d;                       // an earlier beat of the WQE failed
  logic             beat_err, wqe_done, burst_done;
  logic             buf_we;
  logic [WordW-1:0] buf_wdata;

  assign r_ready_o  = 1'b1;             // the slots were reserved at issue: never any back-pressure
  assign beat_err   = r_resp_i != 2'b00;
  assign wqe_done   = r_valid_i && bw_q == BwW'(BeatsPerWqe - 1);
  assign burst_done = wqe_done && 32'(wc_q) + 1 == 32'(rq_head_n);
  // A BlueFlame copy is written only while no read is in flight: it never meets an R beat.
  assign buf_we     = wqe_done || bf_hit;
  logic [511:0] wr_wqe;                 // the WQE written
  logic         wr_err;
  logic [15:0]  wr_idx;                 // its ring index
  assign wr_wqe    = bf_hit ? sq_db_bf_data_i : {r_data_i, asm_q};
  assign wr_err    = !bf_hit && (err_q || beat_err);
  assign wr_idx    = bf_hit ? sq_db_pi_i - 16'd1 : rq_head_idx + 16'(wc_q);
  assign buf_wdata = {wr_err, wr_idx, wr_wqe[47:32] == wr_idx, wr_wqe[511:64], wr_wqe[31:0]};
  logic unused_wr_rsvd;                 // (read as 0: see WordW)
  assign unused_wr_rsvd = ^wr_wqe[63:48];

  always_comb begin
    bw_d  = bw_q;
    wc_d  = wc_q;
    err_d = err_q;
    if (r_valid_i) begin
      if (wqe_done) begin
        bw_d  = '0;
        err_d = 1'b0;
        wc_d  = burst_done ? '0 : wc_q + NW'(1);
      end else begin
        bw_d  = bw_q + BwW'(1);
        err_d = err_q || beat_err;
      end
    end
  end

  // Every beat but a WQE's last is kept in its place (the last goes straight into the RAM word).
  // One constant slice per beat, enabled by the beat counter: a write at a computed offset
  // (asm_q[DataWidth*bw_q +: DataWidth]) is a shifter of the whole register in Yosys 0.23.
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      asm_q <= '0;
    end else begin
      for (int b = 0; b < BeatsPerWqe - 1; b++) begin
        if (r_valid_i && !wqe_done && bw_q == BwW'(b)) begin
          asm_q[DataWidth*b +: DataWidth] <= r_data_i;
        end
      end
    end
  end

  // ---- the buffer and its output register ---------------------------------------------------------
  logic             out_valid_q, out_valid_d;
  logic [7:0]       out_qpn_q, out_qpn_d;
  logic             out_stale_q, out_stale_d;
  logic             buf_re;
  logic [BufAW-1:0] rd_lo;
  logic [7:0]       rd_slot_qpn;
  logic [WordW-1:0] buf_rdata;

  // Each slot's QP, written with the slot's WQE (at wr, the R channel's or the BlueFlame copy's
  // slot) and read at rd: a slot is read only after it was written.
  logic [QpW-1:0] slot_qpn_mem [WqeBufEntries];
  logic [QpW-1:0] rd_slot_idx;
  always_ff @(posedge clk_i) begin
    if (buf_we) begin
      slot_qpn_mem[wr_ptr_q[BufAW-1:0]] <= bf_hit ? db_idx : rq_head_qpn;
    end
  end

  assign rd_lo       = rd_ptr_q[BufAW-1:0];
  assign rd_slot_idx = slot_qpn_mem[rd_lo];
  assign rd_slot_qpn = 8'(rd_slot_idx);
  // Only slots written in an earlier cycle are read: no read-during-write on the RAM.
  assign buf_re      = (!out_valid_q || wqe_ready_i) && wr_ptr_q != rd_ptr_q;

  always_comb begin
    out_valid_d = out_valid_q && !wqe_ready_i;
    out_qpn_d   = out_qpn_q;
    out_stale_d = out_stale_q || (qp_reset_i && qp_reset_qpn_i == out_qpn_q)
                  || (rw_v_q && rw_qpn_q == out_qpn_q);
    if (buf_re) begin
      out_valid_d = 1'b1;
      out_qpn_d   = rd_slot_qpn;
      out_stale_d = kill_now[rd_slot_idx] || (qp_reset_i && qp_reset_qpn_i == rd_slot_qpn)
                    || (rw_v_q && rw_qpn_q == rd_slot_qpn);
    end
  end

  nic_ram_1r1w #(
    .Width   (WordW),
    .Depth   (WqeBufEntries),
    .Forward (1'b0)
  ) u_buf (
    .clk_i   (clk_i),
    .rst_i   (rst_i),
    .we_i    (buf_we),
    .waddr_i (wr_ptr_q[BufAW-1:0]),
    .wdata_i (buf_wdata),
    .re_i    (buf_re),
    .raddr_i (rd_lo),
    .rdata_o (buf_rdata)
  );

  assign wqe_valid_o   = out_valid_q;
  logic [15:0] rd_idx;
  assign rd_idx        = buf_rdata[496:481];
  assign wqe_data_o    = {buf_rdata[479:32], 16'd0, buf_rdata[480] ? rd_idx : ~rd_idx,
                          buf_rdata[31:0]};
  assign wqe_idx_o     = rd_idx;
  assign wqe_dma_err_o = buf_rdata[497];
  assign wqe_qpn_o     = out_qpn_q;
  // (a WQE of a QP being rewound is stale already in the rewind's cycle: the dispatcher may take
  // it then)
  assign wqe_stale_o   = out_stale_q || (rw_v_q && rw_qpn_q == out_qpn_q);

  // ---- pointer and FIFO updates -----------------------------------------------------------------
  always_comb begin
    rsv_ptr_d = rsv_ptr_q + (issue ? PtrW'(issue_n) : '0) + PtrW'(bf_hit);
    wr_ptr_d  = wr_ptr_q + PtrW'(buf_we);
    rd_ptr_d  = rd_ptr_q + PtrW'(buf_re);
    rq_wp_d   = rq_wp_q + RdPtrW'(issue);
    rq_rp_d   = rq_rp_q + RdPtrW'(burst_done);
  end

  // The read FIFO's entries: written at issue, no reset (only entries between rp and wp are read).
  always_ff @(posedge clk_i) begin
    if (issue) begin
      rq_idx_q[rq_wp_q[RdAW-1:0]] <= sel_fetch;
      rq_n_q[rq_wp_q[RdAW-1:0]]   <= issue_n;
      rq_qpn_q[rq_wp_q[RdAW-1:0]] <= pick_idx;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rr_q        <= 8'(NumQps - 1);
      pick_v_q    <= 1'b0;
      pick_qpn_q  <= '0;
      pick_again_q <= 1'b0;
      rsv_ptr_q   <= '0;
      wr_ptr_q    <= '0;
      rd_ptr_q    <= '0;
      rq_wp_q     <= '0;
      rq_rp_q     <= '0;
      bw_q        <= '0;
      wc_q        <= '0;
      err_q       <= 1'b0;
      out_valid_q <= 1'b0;
      out_qpn_q   <= '0;
      out_stale_q <= 1'b0;
    end else begin
      rr_q        <= rr_d;
      pick_v_q    <= pick_v_d;
      pick_qpn_q  <= pick_qpn_d;
      pick_again_q <= pick_again_d;
      rsv_ptr_q   <= rsv_ptr_d;
      wr_ptr_q    <= wr_ptr_d;
      rd_ptr_q    <= rd_ptr_d;
      rq_wp_q     <= rq_wp_d;
      rq_rp_q     <= rq_rp_d;
      bw_q        <= bw_d;
      wc_q        <= wc_d;
      err_q       <= err_d;
      out_valid_q <= out_valid_d;
      out_qpn_q   <= out_qpn_d;
      out_stale_q <= out_stale_d;
    end
  end

`ifndef SYNTHESIS
  // ---- assertions ---------------------------------------------------------------------------------
  // Immediate assertions in a clocked block: they read the values before the edge, which is what
  // a concurrent assertion samples, and a consequent is evaluated only in the cycles its
  // antecedent holds. (Verilator 5.006 copies every operand of a concurrent assertion and
  // evaluates the whole implication in every cycle; for the checks of this core that was about
  // a sixth of the simulation time.) `A |=> B` is a registered A checked with B a cycle later.

  // exec <= fetch <= pi <= exec + depth (modulo 2^16) for every live QP. The indices change only
  // through the events above, so the QPs an event touched are checked in the next cycle (a reset
  // zeroes them: nothing to check), which is when a per-QP check of every QP would first see it.
  function automatic logic indices_ok(input logic [15:0] pi, input logic [15:0] fetch,
                                      input logic [15:0] exec, input logic [3:0] ld);
    logic [15:0] n_fetched, n_posted;    // modulo 2^16: the indices are free running
    n_fetched  = fetch - exec;
    n_posted   = pi - exec;
    indices_ok = n_fetched <= n_posted && 17'(n_posted) <= (17'd1 << ld);
  endfunction

  logic             chk_retire_q, chk_issue_q, chk_db_q;
  logic [QpW-1:0]   chk_retire_idx_q, chk_issue_idx_q, chk_db_idx_q;
  logic [3:0]       chk_issue_ld_q, chk_db_ld_q;   // the ring depths read at the event
  logic             held_q;                  // the offered WQE was not taken last cycle
  logic [WordW-1:0] held_word_q;
  logic [7:0]       held_qpn_q;

  always_ff @(posedge clk_i) begin
    chk_retire_q     <= !rst_i && retire_i;
    chk_issue_q      <= !rst_i && issue;
    chk_db_q         <= !rst_i && db_ok;
    chk_retire_idx_q <= retire_idx;
    chk_issue_idx_q  <= pick_idx;
    chk_db_idx_q     <= db_idx;
    chk_issue_ld_q   <= sel_ld;
    chk_db_ld_q      <= ring_db_log_depth_i;
    held_q           <= !rst_i && wqe_valid_o && !wqe_ready_i;
    if (wqe_valid_o && !wqe_ready_i) begin
      held_word_q <= buf_rdata;
      held_qpn_q  <= wqe_qpn_o;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (chk_retire_q && qp_active_i[chk_retire_idx_q]) begin
        a_qp_indices_in_range_retire: assert (indices_ok(pi_q[chk_retire_idx_q],
            fetch_q[chk_retire_idx_q], exec_q[chk_retire_idx_q], 4'd15));
        // (a retire only shrinks pi - exec: its order is checked here, its bound held before)
      end
      if (chk_issue_q && qp_active_i[chk_issue_idx_q]) begin
        a_qp_indices_in_range_issue: assert (indices_ok(pi_q[chk_issue_idx_q],
            fetch_q[chk_issue_idx_q], exec_q[chk_issue_idx_q], chk_issue_ld_q));
      end
      if (chk_db_q && qp_active_i[chk_db_idx_q]) begin
        a_qp_indices_in_range_db: assert (indices_ok(pi_q[chk_db_idx_q], fetch_q[chk_db_idx_q],
            exec_q[chk_db_idx_q], chk_db_ld_q));
      end
      // The dispatcher retires this QP's WQEs one by one, in ring order, and only fetched ones.
      if (retire_i && !(qp_reset_i && qp_reset_qpn_i == retire_qpn_i)) begin
        a_retire_in_order: assert (32'(retire_qpn_i) < NumQps &&
            retire_idx_i == exec_q[retire_idx] && exec_q[retire_idx] != fetch_q[retire_idx]);
      end
      // A live QP's ring depth is in range wherever it is used, and the pending bits agree with
      // the indices they summarise, for the QPs used this cycle.
      if (pick_v_q && pending[pick_idx]) begin
        a_log_depth_in_range_fetch: assert (32'(sel_ld) <= LogMaxSqDepth);
        a_pending_matches_fetch: assert (sel_pi != sel_fetch);
      end
      // A registered request is for the picked QP, still pending (see the fetch scheduling).
      if (req_v_q) begin
        a_request_of_pick: assert (pick_v_q && pend_q[pick_idx]);
      end
      if (db_take) begin
        a_log_depth_in_range_db: assert (32'(ring_db_log_depth_i) <= LogMaxSqDepth);
        a_pending_matches_db: assert (pend_q[db_idx] == (pi_q[db_idx] != fetch_q[db_idx]));
      end
      a_no_issue_on_reset: assert (!(issue && qp_reset_i));
      if (bf_hit) begin
        // the copy fills the slot the R channel would fill next, and no beat is arriving
        a_bf_in_fifo_order: assert (rsv_ptr_q == wr_ptr_q && !r_valid_i && !issue);
      end

      // Reservation works: the buffer never holds more than its slots, data only lands in
      // reserved slots, and a read never reserves more than is free.
      a_buf_no_overflow: assert (32'(buf_used) <= WqeBufEntries);
      a_buf_writes_reserved: assert ((wr_ptr_q - rd_ptr_q) <= buf_used);
      a_read_fifo_no_overflow: assert (32'(rq_count) <= MaxReads);
      if (issue) begin
        a_issue_fits_buffer: assert (issue_n != '0 && 17'(issue_n) <= buf_free);
        // arlen matches the reserved WQE count
        a_arlen_matches_reserved: assert (32'(ar_len_o) + 1 == 32'(issue_n) * BeatsPerWqe);
        // A burst never wraps the ring and never crosses 4 KiB.
        a_burst_in_ring: assert (17'(sel_slot) + 17'(issue_n) <= sel_depth);
        a_no_4k_cross: assert (32'(ar_addr_o[11:0]) + 32'(issue_n) * 64 <= 4096);
      end
      // The slave's rlast falls exactly on the last beat of the last reserved WQE of the burst
      // (so beats and reserved slots stay in step).
      if (r_valid_i) begin
        a_rlast_matches_reserved: assert (r_last_i == burst_done);
        a_r_expected: assert (!rq_empty);
      end
      // The WQE offered to the dispatcher stays until taken (only its stale mark may rise).
      if (held_q) begin
        a_wqe_stable: assert (wqe_valid_o && buf_rdata == held_word_q &&
                              wqe_qpn_o == held_qpn_q);
      end
      if (wqe_valid_o) begin
        a_wqe_qpn_in_range: assert (32'(wqe_qpn_o) < NumQps);
      end
    end
  end
`else
  logic unused_r_last;
  assign unused_r_last = r_last_i;     // only checked by assertions: beats are counted
`endif

`ifdef FORMAL
  // ---- formal properties (docs/verification.md) -------------------------------------------------
  // The doorbell front end: no doorbell lost, none repeated. Proven for all inputs by induction
  // on tests/formal/nic_wqe_fetch_formal.sv (2 QPs, rings of up to 4 WQEs, a 2-slot buffer:
  // tools/formal/formal.py), which also states what this engine needs of its neighbours (a
  // QP's ring depth is fixed while it is active; the dispatcher retires fetched WQEs in order).
  // The simulation compiles them too (Verilator +define+FORMAL). A doorbell carries the absolute
  // producer index, so coalescing is "the latest index wins": nothing is lost as long as the
  // accepted index is kept and every WQE up to it is fetched once, in order, and only once.
  logic f_live_q;    // the previous cycle was out of reset: $past is valid
  always_ff @(posedge clk_i) begin
    f_live_q <= !rst_i;
  end

  // Per QP (unnamed: Yosys 0.23 gives a procedural assertion in a generate loop the same name
  // in every iteration; a failing one is reported by its source line).
  for (genvar q = 0; q < NumQps; q++) begin : gen_f_qp
    logic [15:0] f_fetched, f_posted;   // fetch - exec, pi - exec (modulo 2^16)
    assign f_fetched = fetch_q[q] - exec_q[q];
    assign f_posted  = pi_q[q] - exec_q[q];
    always_ff @(posedge clk_i) begin
      if (!rst_i && qp_active_i[q]) begin
        // Not lost: a doorbelled WQE not yet fetched keeps its QP in the fetch round robin.
        assert (pend_q[q] == (pi_q[q] != fetch_q[q]));
        // Not repeated, not invented: exec <= fetch <= pi (what is fetched was doorbelled).
        assert (f_fetched <= f_posted);
        cover (pend_q[q] && f_fetched != 16'd0);
        cover (f_posted == 16'd3 && f_fetched == 16'd1);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // What the neighbours guarantee (assumed by the proof, checked by the simulation): the
      // dispatcher retires a QP's next fetched WQE, in ring order; nic_dma_rd returns beats
      // only for reads in flight (rlast is checked against the count by a_rlast_matches_reserved).
      if (retire_i) begin
        f_retire_fetched_in_order: assume (32'(retire_qpn_i) < NumQps
                                           && exec_q[retire_idx] != fetch_q[retire_idx]
                                           && retire_idx_i == exec_q[retire_idx]);
      end
      if (r_valid_i) begin
        f_beats_only_when_asked: assume (!rq_empty);
      end
      // The dispatcher gives back only a WQE it took and did not retire (the QP's oldest not
      // retired: so fetch is ahead of exec, also past a retire of the QP in the same cycle,
      // which is the WQE before it: the dispatcher's retire is registered, a cycle after its
      // finish), one rewind at a time, and retires nothing of the QP until it is applied (its
      // WQEs are stale by then).
      if (rewind_i) begin
        f_rewind_fetched: assume (32'(rewind_qpn_i) < NumQps && !rw_v_q
                                  && exec_q[QpW'(rewind_qpn_i)]
                                     + 16'(retire_i && retire_qpn_i == rewind_qpn_i)
                                     != fetch_q[QpW'(rewind_qpn_i)]);
      end
      if (rw_v_q && retire_i) begin
        f_no_retire_while_rewinding: assume (retire_qpn_i != rw_qpn_q);
      end
      // A rewind waiting to be applied names a WQE fetched and not retired (nothing moves its
      // QP's fetch or exec meanwhile: no read, no BlueFlame copy, no retire of it).
      if (rw_v_q) begin
        f_rewind_pending_fetched: assert (32'(rw_qpn_q) < NumQps
                                          && exec_q[rw_idx] != fetch_q[rw_idx]);
      end
      // A rewind moves fetch back to exec: the QP's WQEs from there are fetched again.
      if (f_live_q && $past(rw_apply)) begin
        f_rewind_to_exec: assert (fetch_q[$past(rw_idx)] == exec_q[$past(rw_idx)]
                                  || $past(qp_reset_i));
      end
      c_rewind: cover (rw_apply && pend_q[rw_idx] == 1'b0);
      // Not lost: an accepted doorbell's index is the QP's producer index a cycle later (a
      // later doorbell only moves it on; a QP reset starts a new ring).
      if (f_live_q && $past(db_ok) && !$past(qp_reset_i && reset_idx == db_idx)) begin
        f_db_index_kept: assert (pi_q[$past(db_idx)] == $past(sq_db_pi_i));
      end
      // Not repeated: a read takes the next WQEs of the QP, at least one and no more than were
      // doorbelled, and fetch moves past them (the next read starts after them).
      if (issue) begin
        f_issue_takes_doorbelled: assert (issue_n != '0
                                          && 16'(issue_n) <= pi_q[pick_idx] - fetch_q[pick_idx]);
        f_issue_reads_next: assert (ar_addr_o[5:0] == 6'd0 && ar_addr_o[11:6]
                                    == 6'(fetch_q[pick_idx] & 16'((17'd1 << sel_ld) - 17'd1)));
      end
      // The registered request is what the request stage would compute now (the pipeline's
      // invariant; f_issue_* follow from it at the issue): its WQEs are doorbelled and next.
      if (req_v_q) begin
        f_req_takes_doorbelled: assert (issue_n != '0
                                        && 16'(issue_n) <= pi_q[pick_idx] - fetch_q[pick_idx]
                                        && issue_n == NW'(burst));
        f_req_reads_next: assert (ar_addr_o[11:0] == {sel_slot[5:0], 6'd0});
      end
      if (f_live_q && $past(issue) && !$past(qp_reset_i)) begin
        f_fetch_moves_past_read: assert (fetch_q[$past(pick_idx)] == $past(sel_fetch)
                                         + 16'($past(issue_n)));
      end
      // A BlueFlame copy stands for exactly the one WQE the doorbell adds.
      if (bf_hit) begin
        f_bf_is_the_next_wqe: assert (sq_db_pi_i == fetch_q[db_idx] + 16'd1
                                      && pi_q[db_idx] == fetch_q[db_idx]);
      end
      c_db_coalesced: cover (db_ok && pend_q[db_idx] && !issue);
      c_db_refused: cover (db_err_o);
      c_issue_two: cover (issue && issue_n == NW'(2));
      c_bf_hit: cover (bf_hit);
      c_db_during_issue: cover (db_ok && issue && db_idx == pick_idx);
    end
  end
`endif

endmodule
