`default_nettype none
// nic_rsp_rq: the responder's receive queues: per QP the producer index (RQ doorbells), the consumer index (a receive completed or flushed), and
// the receive-WQE prefetch into an on-chip cache. The ring (base and depth, from QP_CREATE) is
// nic_core's nic_qp_ctx's: read at the QP being planned (ring_qpn_o -> ring_*_i).
// Per QP the receive WQEs [ci, ci + pf_n) are on chip, in cache slot (ring index mod RqCache), and
// the next pf_fl are on their way (counted from their read's grant). A QP is marked wanting
// (pf_want) when something may let it fetch more: an RQ doorbell, a consumed receive, a fetch that
// ended. The engine takes one wanting QP at a time (round robin) and requests a burst of its posted
// WQEs after those (at most its free slots, inside the ring and a 4 KiB page; at least half the
// cache unless that is everything posted, so a fast consumer does not split the reads into single
// WQEs). Up to PfOut bursts are in flight; one AXI ID returns them in order, so a FIFO of their
// descriptors says where each beat goes. A Send consumes only a cached WQE, so ci + pf_n + pf_fl,
// the ring index of the next request, holds while ci moves. A QP created, destroyed or flushed
// forgets its cache, and its bursts in flight are marked stale: their data is dropped, never
// written into the cache of the QP's next incarnation. A QP in ERROR never reads its cache (only
// RTS QPs take Sends) and is not fetched for.
//
// An RQ doorbell whose producer index is behind receives already prefetched (pi - ci below
// what is cached, in flight or requested: the index moved backwards, a driver bug) is dropped and
// reported (db_err_o, one QP at a time, db_err_take_i when taken): the owner moves the QP to
// ERROR, as nic_wqe_fetch does for a bad SQ doorbell, and its posted receives (up to the last
// good index) then complete CANCELLED. A doorbell far beyond the ring posts nothing to fetch.
//
// Interfaces: the dispatcher's QP (disp_qpn_i): its indices and cached count, the cache read of
// its WQE at ci (cache_re_i, the WQE the cycle after; cache_fwd_o / cache_hit_o / cache_wdata_o:
// the writes to that entry since, which the reader keeps itself), a receive consumed (consume_i); the
// flush of a QP in ERROR (flush_find_i looks for one, flush_i / flush_done_i while it is
// flushed); DMA read requests (ar_*: valid, grant; the bursts in flight are the responder's
// R-channel owner FIFO's) and the R beats of the prefetch's bursts (r_beat_i).
module nic_rsp_rq #(
  parameter int DataWidth = 64,   // DMA width: 64 or 256
  parameter int NumQps    = 16    // queue pairs, <= 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic [2*NumQps-1:0]           qp_state_i,
  input  logic                          cmd_create_i,
  input  logic                          cmd_reset_i,    // QP_CREATE / QP_DESTROY
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  // the ring of the QP being planned (nic_qp_ctx's read port)
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ring_qpn_o,
  input  logic [63:0]                   ring_base_i,
  input  logic [3:0]                    ring_ld_i,      // log2 of its depth
  // RQ doorbells (nic_csr)
  input  logic                          rq_db_valid_i,
  input  logic [7:0]                    rq_db_qpn_i,
  input  logic [15:0]                   rq_db_pi_i,
  // a doorbell dropped (behind the prefetched receives): the QP must go to ERROR
  output logic                          db_err_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] db_err_qpn_o,
  input  logic                          db_err_take_i,
  // the dispatcher's QP
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] disp_qpn_i,
  output logic [15:0]                   ci_o,
  output logic [15:0]                   pi_o,
  output logic [$clog2(16):0]           cached_o,       // its WQEs on chip, from ci on
  input  logic                          cache_re_i,     // read its WQE at ci ...
  output logic [511:0]                  cache_wqe_o,    // ... here the cycle after (held, as read)
  output logic                          cache_fwd_o,    // the entry read was written since the read
  output logic                          cache_hit_o,    // this cycle's write is to the entry read ...
  output logic [511:0]                  cache_wdata_o,  // ... with this WQE
  input  logic                          consume_i,      // its receive at ci completed
  // the flush of a QP in ERROR with posted receives
  input  logic                          flush_find_i,
  output logic                          flush_found_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] flush_found_qpn_o,
  input  logic                          flush_i,        // QP flush_qpn_i is being flushed
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] flush_qpn_i,
  output logic [15:0]                   flush_ci_o,
  input  logic                          flush_done_i,   // its receive at ci completed CANCELLED
  // DMA reads of receive WQEs, and their beats
  output logic                          ar_valid_o,
  input  logic                          ar_grant_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  output logic                          ar_push_o,      // a burst of the prefetch's is requested
  input  logic                          r_beat_i,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic                          r_last_i
);

  localparam int W8      = DataWidth / 8;
  localparam int QW      = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int RqBeats = 64 / W8;
  // Receive WQEs kept on chip (or on their way) per QP, prefetched ahead of the Sends that
  // consume them. A DMA read takes ~130-150 cycles, so a QP's Sends are served at best one per
  // 150 / RqCache cycles: 16 gives ~10, below the responder's own per-packet pipeline (~18
  // cycles), so the prefetch is not the bound. Area: NumQps x 16 x 512 bits = 128 Kbit in one
  // RAM of 256 x 512 bits: 8 BRAM36 (72 bits x 512 deep each), the same count any depth from
  // 1 to 32 takes at NumQps = 16 (the width sets it); as LUT RAM it would cost ~2.3 k LUTs.
  localparam int RqCache  = 16;
  localparam int RcW      = $clog2(RqCache);
  localparam int RqBeatW  = $clog2(RqBeats) + 1;
  // A cache entry keeps what the dispatcher reads of a receive WQE (nic_pkg::wqe_recv_t): the
  // three SGEs, the length, the SGE count as far as it is compared (0, 1, 2, or 3 for 3 and
  // more) and whether the opcode is RECV; not the flags, index and reserved bytes. 419 bits
  // instead of 512. The length (32 bits) is kept apart in LUT RAM (nic_lutram_1r1w, ~130
  // DPR16X4), the rest, 387 bits, in 11 block RAMs of 36 bits instead of 12 (15 for the whole
  // WQE). The LUT RAM follows writes to the held entry where the block RAM does not: the two
  // differ only when the prefetch wrote the entry after its read (c_fwd_q), and then the
  // dispatcher takes the written WQE itself (cache_fwd_o) and reads neither.
  localparam int CacheW   = 3 * 128 + 32 + 2 + 1;
  localparam int LenLo    = 3;                    // the length's bits in an entry: [34:3]

  // ---- the rings: producer index (doorbells; QP_CREATE zeroes it), consumer index (written at
  // the QP an event names; reads 0 until written, rq_ci_set_q)
  logic [15:0]       rq_pi_q   [NumQps];
  logic [15:0]       rq_ci_q   [NumQps];
  logic [NumQps-1:0] rq_ci_set_q;
  logic [15:0]       q_ci;
  logic              rq_db_hit;
  logic              db_good;            // a doorbell taken (rq_db_hit, not behind: below)
  assign rq_db_hit = rq_db_valid_i && 32'(rq_db_qpn_i) < NumQps
                     && qp_state_i[2*QW'(rq_db_qpn_i) +: 2] != nic_pkg::QP_STATE_RESET;
  assign q_ci       = rq_ci_set_q[disp_qpn_i] ? rq_ci_q[disp_qpn_i] : 16'd0;
  assign ci_o       = q_ci;
  assign pi_o       = rq_pi_q[disp_qpn_i];
  assign flush_ci_o = rq_ci_set_q[flush_qpn_i] ? rq_ci_q[flush_qpn_i] : 16'd0;

  always_ff @(posedge clk_i) begin
    // (QP_CREATE goes before a doorbell of the same cycle, of any QP; per QP with constant
    // indices, so that the doorbell check is the enable of its QP's entry, not a mux tree)
    for (int q = 0; q < NumQps; q++) begin
      if (cmd_create_i) begin
        if (cmd_qpn_i == QW'(q)) begin
          rq_pi_q[q] <= '0;
        end
      end else if (db_good && QW'(rq_db_qpn_i) == QW'(q)) begin
        rq_pi_q[q] <= rq_db_pi_i;
      end
    end
    // a receive completed or flushed; QP_CREATE / QP_DESTROY (last) forget the index
    if (consume_i) begin
      rq_ci_q[disp_qpn_i] <= q_ci + 16'd1;
    end else if (flush_done_i) begin
      rq_ci_q[flush_qpn_i] <= flush_ci_o + 16'd1;
    end
    if (cmd_reset_i) begin
      rq_ci_q[cmd_qpn_i] <= '0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rq_ci_set_q <= '0;
    end else begin
      if (consume_i) begin
        rq_ci_set_q[disp_qpn_i] <= 1'b1;
      end else if (flush_done_i) begin
        rq_ci_set_q[flush_qpn_i] <= 1'b1;
      end
      if (cmd_reset_i) begin
        rq_ci_set_q[cmd_qpn_i] <= 1'b1;
      end
    end
  end

  // ---- a QP in ERROR with posted receives (looked for only when the dispatcher is idle, the
  // one state that reads it, and some QP is in ERROR: QP_STATE_ERROR is 2'b10)
  localparam logic [2*NumQps-1:0] StLow = {NumQps{2'b01}};   // the low bit of each QP's state
  logic fl_any_err;
  assign fl_any_err = ((qp_state_i >> 1) & ~qp_state_i & StLow) != '0;
  always_comb begin
    flush_found_o     = 1'b0;
    flush_found_qpn_o = '0;
    if (flush_find_i && fl_any_err) begin
      for (int q = 0; q < NumQps; q++) begin
        if (!flush_found_o && qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_ERROR
            && (rq_ci_set_q[q] ? rq_ci_q[q] : 16'd0) != rq_pi_q[q]) begin
          flush_found_o     = 1'b1;
          flush_found_qpn_o = QW'(q);
        end
      end
    end
  end

  // ---- the prefetch
  localparam int PfOut = 4;            // bursts in flight (the descriptor FIFO's depth)
  localparam int PoW   = $clog2(PfOut);

  // A burst is made in registered steps, so that no path runs from the tables through the ring
  // read and the burst arithmetic into the doorbell check, nor from the DMA grant into it:
  //   PF_IDLE  the round robin picks a wanting QP into pf_qpn_q (which addresses the ring read);
  //   PF_PLAN  from its tables and its ring (read at the registered pf_qpn_q): the ring index of
  //            its next request (pf_idx_q = ci + cached + in flight), the address (pf_addr_q), the
  //            burst's limit by the free slots, the ring's end and the page's (pf_lim_q; pf_edge_q:
  //            the limit is the ring's or the page's end), the ring's depth (pf_ld_q);
  //   PF_SIZE  the burst: the limit against what is posted (pi, read at pf_qpn_q, less pf_idx_q),
  //            registered as the request (pf_len_q, pf_cnt_q), or nothing worth a read;
  //   PF_AR    the request is offered; when granted its WQEs are reserved (pf_fl += pf_cnt_q).
  // What PF_PLAN registered stays true until the grant: a WQE arriving or a receive consumed
  // leaves ci + pf_n + pf_fl as it is (a consumed one frees a slot: the limit only errs low),
  // nothing else reserves for the QP, and a flush or a command marks the burst lost (pf_lost_q).
  // Only the producer index may move: PF_SIZE reads it, and a doorbell of the QP in PF_SIZE's
  // cycle sizes the burst again in the next. A doorbell is checked against the receives cached,
  // in flight and requested: in PF_AR pf_cnt_q counts, granted in this cycle or not, so the grant
  // only writes (the reservation, the descriptor, the want bit).
  typedef enum logic [1:0] {
    PF_IDLE,    // pick a wanting QP
    PF_PLAN,    // read its tables and ring: next index, address, limits
    PF_SIZE,    // size its burst against what is posted
    PF_AR       // the burst's read request
  } pf_state_e;

  pf_state_e                 pf_st_q, pf_st_d;
  // cached WQEs and WQEs in flight per QP: written only at the QPs this cycle's events name (a
  // WQE arrived, a receive consumed, a burst granted; a flush, a command); a QP's entry not
  // written since reset reads 0 (its bit in pf_*_set_q is clear)
  logic [RcW:0]              pf_n_q     [NumQps];
  logic [RcW:0]              pf_fl_q    [NumQps];
  logic [NumQps-1:0]         pf_n_set_q, pf_fl_set_q;
  logic                      pf_arr;             // a whole WQE of the head burst's QP arrived
  logic                      pf_cons;            // the dispatcher's QP consumed a receive
  logic                      pf_rsv;             // the request for pf_qpn is granted: its WQEs reserved
  logic [RcW:0]              h_pf_n, h_pf_fl;    // the head burst's QP's
  logic [RcW:0]              c_pf_n;             // the consuming QP's (q_pf_n)
  logic [RcW:0]              r_pf_fl;            // pf_qpn's in flight (the reservation's)
  logic [NumQps-1:0]         pf_want_q, pf_want_d;
  logic [QW-1:0]             pf_qpn_q, pf_qpn_d; // the QP being planned for
  assign ring_qpn_o = pf_qpn_q;
  logic [QW-1:0]             pf_rr_q, pf_rr_d;   // round robin: the last QP picked
  logic [63:0]               pf_addr_q, pf_addr_d;
  logic [7:0]                pf_len_q, pf_len_d;
  logic [15:0]               pf_idx_q, pf_idx_d;
  logic [RcW:0]              pf_lim_q, pf_lim_d;     // PF_PLAN's limit (<= RqCache)
  logic                      pf_edge_q, pf_edge_d;   // ... the ring's or the page's end
  logic [3:0]                pf_ld_q, pf_ld_d;       // the ring's depth, log2
  logic [RcW:0]              pf_cnt_q, pf_cnt_d;     // the request's WQEs (PF_AR)
  // bursts in flight, oldest first: QP, ring index of the next WQE to arrive, stale
  logic [QW-1:0]             po_qpn_q   [PfOut];
  logic [15:0]               po_idx_q   [PfOut];
  logic [PfOut-1:0]          po_stale_q, po_stale_d;
  // the QP of the burst being planned or requested (PF_PLAN, PF_SIZE, PF_AR) was reset or
  // flushed since: its descriptor goes in stale when the request is finally taken
  logic                      pf_lost_q, pf_lost_d;
  logic [PoW-1:0]            po_rd_q, po_rd_d, po_wr_q, po_wr_d;
  logic [PoW:0]              po_used_q, po_used_d;
  logic                      po_push, po_pop;
  logic [15:0]               po_idx_next;        // the head's index after this cycle
  logic [RqBeatW-1:0]        pf_beat_q, pf_beat_d;    // beat inside the arriving WQE
  logic [511-DataWidth:0]    pf_asm_q;                // the arriving WQE's beats but its last
  logic [511:0]              pf_wqe;                  // ... whole, with its last beat (pf_we)
  logic                      pf_ar_valid;
  logic                      pf_we;
  logic [QW+RcW-1:0]         pf_waddr;
  logic [CacheW-1:0]         pf_rdata;
  logic [RcW:0]              q_pf_n;             // the packet's QP's cached WQEs
  logic [QW-1:0]             po_head_qpn;
  logic                      po_head_stale;

  assign pf_ar_valid   = pf_st_q == PF_AR;
  // a WQE is written into the cache with its last beat, the top one
  assign pf_wqe        = {r_data_i, pf_asm_q[511-DataWidth:0]};
  assign q_pf_n        = pf_n_set_q[disp_qpn_i] ? pf_n_q[disp_qpn_i] : '0;
  assign c_pf_n        = q_pf_n;
  assign h_pf_n        = pf_n_set_q[po_head_qpn] ? pf_n_q[po_head_qpn] : '0;
  assign h_pf_fl       = pf_fl_set_q[po_head_qpn] ? pf_fl_q[po_head_qpn] : '0;
  assign r_pf_fl       = pf_fl_set_q[pf_qpn_q] ? pf_fl_q[pf_qpn_q] : '0;
  assign po_head_qpn   = po_qpn_q[po_rd_q];
  assign po_head_stale = po_stale_q[po_rd_q];

  // a receive WQE as the cache keeps it (c_wpack), and back (c_rwqe, c_wwqe: the fields not
  // kept read 0, a non-RECV opcode reads as ~RECV, an SGE count above 3 as 3)
  nic_pkg::wqe_recv_t c_win, c_rwqe, c_wwqe;
  logic [CacheW-1:0]  c_wpack;
  always_comb begin
    c_win   = pf_wqe;
    c_wpack = {c_win.sge2, c_win.sge1, c_win.sge0, c_win.length,
               (c_win.nsge >= 8'd3) ? 2'd3 : c_win.nsge[1:0],
               c_win.opcode == nic_pkg::WQE_OP_RECV};
    c_rwqe        = '0;
    c_rwqe.sge2   = pf_rdata[CacheW-1 -: 128];
    c_rwqe.sge1   = pf_rdata[CacheW-129 -: 128];
    c_rwqe.sge0   = pf_rdata[CacheW-257 -: 128];
    c_rwqe.length = pf_rdata[34:3];
    c_rwqe.nsge   = 8'(pf_rdata[2:1]);
    c_rwqe.opcode = pf_rdata[0] ? nic_pkg::WQE_OP_RECV : ~nic_pkg::WQE_OP_RECV;
    c_wwqe        = '0;
    c_wwqe.sge2   = c_wpack[CacheW-1 -: 128];
    c_wwqe.sge1   = c_wpack[CacheW-129 -: 128];
    c_wwqe.sge0   = c_wpack[CacheW-257 -: 128];
    c_wwqe.length = c_wpack[34:3];
    c_wwqe.nsge   = 8'(c_wpack[2:1]);
    c_wwqe.opcode = c_wpack[0] ? nic_pkg::WQE_OP_RECV : ~nic_pkg::WQE_OP_RECV;
  end
  logic unused_c_win;                     // (the dispatcher does not read them)
  assign unused_c_win = ^{c_win.rsvd_6, c_win.index, c_win.flags};

  // The Send path reads its QP's entry [ci] in R_LOAD and takes it in R_CHECK, or in R_RQ_WAIT
  // when the prefetch writes it meanwhile. The RAM does not forward those writes: the dispatcher
  // keeps the written WQE itself (in its receive-WQE register, which holds nothing else then),
  // told which writes hit the entry it read (cache_hit_o) and whether one did (cache_fwd_o): the
  // forwarding of nic_ram_1r1w without its copy of the data (512 flip-flops).
  logic [QW+RcW-1:0] c_raddr, c_held_q;   // the entry read, and held since
  logic              c_fwd_q, c_hit;
  assign c_raddr = {disp_qpn_i, q_ci[RcW-1:0]};
  assign c_hit   = pf_we && (cache_re_i ? pf_waddr == c_raddr : pf_waddr == c_held_q);
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      c_held_q <= '0;
      c_fwd_q  <= 1'b0;
    end else begin
      if (cache_re_i) begin
        c_held_q <= c_raddr;
      end
      c_fwd_q <= c_hit || (!cache_re_i && c_fwd_q);
    end
  end

  nic_ram_1r1w #(
    .Width  (CacheW - 32),
    .Depth  (NumQps * RqCache),
    .Forward(1'b0)
  ) u_rq_cache (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (pf_we),
    .waddr_i(pf_waddr),
    .wdata_i({c_wpack[CacheW-1:LenLo+32], c_wpack[LenLo-1:0]}),
    .re_i   (cache_re_i),
    .raddr_i(c_raddr),
    .rdata_o({pf_rdata[CacheW-1:LenLo+32], pf_rdata[LenLo-1:0]})
  );
  nic_lutram_1r1w #(
    .Width  (32),
    .Depth  (NumQps * RqCache)
  ) u_rq_len (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (pf_we),
    .waddr_i(pf_waddr),
    .wdata_i(c_wpack[LenLo +: 32]),
    .re_i   (cache_re_i),
    .raddr_i(c_raddr),
    .rdata_o(pf_rdata[LenLo +: 32])
  );

  // round robin over the wanting QPs, starting after the last one picked (evaluated only in
  // PF_IDLE, its one reader, and only while some QP wants)
  logic          pf_pick_ok;
  logic [QW-1:0] pf_pick;
  logic          pf_start;                       // a QP picked in this cycle
  nic_rr_pick #(
    .N(NumQps)
  ) u_pf_pick (
    .en_i   (pf_st_q == PF_IDLE),
    .req_i  (pf_want_q),
    .last_i (pf_rr_q),
    .found_o(pf_pick_ok),
    .idx_o  (pf_pick)
  );
  assign pf_start = pf_pick_ok && 32'(po_used_q) < PfOut;

  // PF_PLAN: pf_qpn's next request index and the limits of its burst: the free slots, the ring
  // and the page (evaluated only in PF_PLAN, the one state that reads it)
  logic [15:0]  pl_ci, pl_next, pl_slot;
  logic [16:0]  pl_mask, pl_ring_room, pl_free;
  logic [RcW:0] pl_n, pl_fl, pl_held;
  logic [63:0]  pl_addr;
  logic [6:0]   pl_page_room;
  logic         pl_ring_lt, pl_page_lt, pl_page_lt_ring;
  always_comb begin
    pl_ci           = '0;
    pl_n            = '0;
    pl_fl           = '0;
    pl_held         = '0;
    pl_next         = '0;
    pl_mask         = '0;
    pl_slot         = '0;
    pl_ring_room    = '0;
    pl_free         = '0;
    pl_addr         = '0;
    pl_page_room    = '0;
    pl_ring_lt      = 1'b0;
    pl_page_lt      = 1'b0;
    pl_page_lt_ring = 1'b0;
    pf_lim_d        = pf_lim_q;
    pf_edge_d       = pf_edge_q;
    pf_ld_d         = pf_ld_q;
    if (pf_st_q == PF_PLAN) begin
      pl_ci        = rq_ci_set_q[pf_qpn_q] ? rq_ci_q[pf_qpn_q] : 16'd0;
      pl_n         = pf_n_set_q[pf_qpn_q] ? pf_n_q[pf_qpn_q] : '0;
      pl_fl        = pf_fl_set_q[pf_qpn_q] ? pf_fl_q[pf_qpn_q] : '0;
      pl_held      = pl_n + pl_fl;                 // <= RqCache
      pl_next      = pl_ci + 16'(pl_held);
      pl_mask      = (17'd1 << ring_ld_i) - 17'd1;
      pl_slot      = pl_next & pl_mask[15:0];
      pl_ring_room = pl_mask + 17'd1 - 17'(pl_slot);
      pl_addr      = ring_base_i + (64'(pl_slot) << 6);
      pl_page_room = 7'((13'd4096 - {1'b0, pl_addr[11:0]}) >> 6);
      pl_free      = 17'(RqCache) - 17'(pl_held);
      // the least of the three, by comparisons side by side
      pl_ring_lt      = pl_ring_room < pl_free;
      pl_page_lt      = 17'(pl_page_room) < pl_free;
      pl_page_lt_ring = 17'(pl_page_room) < pl_ring_room;
      if (pl_page_lt && pl_page_lt_ring) begin
        pf_lim_d = (RcW+1)'(pl_page_room);
      end else if (pl_ring_lt) begin
        pf_lim_d = (RcW+1)'(pl_ring_room);
      end else begin
        pf_lim_d = (RcW+1)'(pl_free);
      end
      // the limit is the ring's or the page's end (not the free slots alone)
      pf_edge_d    = pl_ring_room <= pl_free || 17'(pl_page_room) <= pl_free;
      pf_ld_d      = ring_ld_i;
    end
  end

  // PF_SIZE: the burst, the posted WQEs after pf_idx within the limit (evaluated only in
  // PF_SIZE). At least half the cache, unless the burst ends at what is posted, the ring or the
  // page, so a fast consumer does not split the reads into single WQEs; a doorbell beyond the
  // ring (bad input) posts nothing to fetch.
  logic [15:0]  sz_posted;
  logic [15:0]  sz_mask;
  logic [1:0]   sz_state;
  logic         sz_fits, sz_go;
  always_comb begin
    sz_posted = '0;
    sz_mask   = '0;
    sz_state  = '0;
    sz_fits   = 1'b0;
    sz_go     = 1'b0;
    pf_cnt_d  = pf_cnt_q;
    if (pf_st_q == PF_SIZE) begin
      sz_posted = rq_pi_q[pf_qpn_q] - pf_idx_q;
      sz_mask   = 16'((17'd1 << pf_ld_q) - 17'd1);
      sz_state  = qp_state_i[2*pf_qpn_q +: 2];
      sz_fits   = sz_posted <= 16'(pf_lim_q);
      pf_cnt_d  = sz_fits ? (RcW+1)'(sz_posted) : pf_lim_q;
      sz_go     = pf_cnt_d != '0 && (sz_fits || 32'(pf_lim_q) >= RqCache / 2 || pf_edge_q)
                  && !(sz_posted > sz_mask + 16'd1)
                  && (sz_state == nic_pkg::QP_STATE_READY || sz_state == nic_pkg::QP_STATE_RTS);
    end
  end

  // A doorbell behind what the prefetch has cached, in flight or requested (ci + cached + in
  // flight + the request offered in PF_AR) is dropped: the cache would hold receives the
  // producer index says are not posted. Counted from ci: (pi - ci) against a count <= RqCache.
  logic [QW-1:0]  db_q;
  logic [15:0]    db_ci, db_diff;
  logic [RcW:0]   db_n, db_fl;
  logic [RcW+1:0] db_ahead;
  logic           db_behind;
  logic [NumQps-1:0] db_bad_q, db_bad_d;     // per QP: a dropped doorbell not reported yet
  assign db_q      = QW'(rq_db_qpn_i);
  assign db_ci     = rq_ci_set_q[db_q] ? rq_ci_q[db_q] : 16'd0;
  assign db_n      = pf_n_set_q[db_q] ? pf_n_q[db_q] : '0;
  assign db_fl     = pf_fl_set_q[db_q] ? pf_fl_q[db_q] : '0;
  assign db_ahead  = (RcW+2)'(db_n) + (RcW+2)'(db_fl)
                     + ((pf_st_q == PF_AR && !pf_lost_q && pf_qpn_q == db_q) ? (RcW+2)'(pf_cnt_q) : '0);
  assign db_diff   = rq_db_pi_i - db_ci;
  assign db_behind = db_diff[15:RcW+2] == '0 && db_diff[RcW+1:0] < db_ahead;
  assign db_good   = rq_db_hit && !db_behind;

  // the report: the lowest QP with a dropped doorbell; per QP bit, its events side by side
  always_comb begin
    db_err_o     = 1'b0;
    db_err_qpn_o = '0;
    for (int q = NumQps - 1; q >= 0; q--) begin
      if (db_bad_q[q]) begin
        db_err_o     = 1'b1;
        db_err_qpn_o = QW'(q);
      end
    end
    for (int q = 0; q < NumQps; q++) begin
      db_bad_d[q] = db_bad_q[q];
      if (db_err_o && db_err_take_i && db_err_qpn_o == QW'(q)) begin
        db_bad_d[q] = 1'b0;
      end
      if (rq_db_hit && db_behind && db_q == QW'(q) && !(cmd_create_i && cmd_qpn_i == db_q)) begin
        db_bad_d[q] = 1'b1;
      end
      if ((cmd_create_i || cmd_reset_i) && cmd_qpn_i == QW'(q)) begin
        db_bad_d[q] = 1'b0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      db_bad_q <= '0;
    end else begin
      db_bad_q <= db_bad_d;
    end
  end

  always_comb begin
    pf_st_d    = pf_st_q;
    pf_lost_d  = (pf_st_q == PF_IDLE) ? 1'b0 : pf_lost_q;
    pf_arr     = 1'b0;
    pf_cons    = 1'b0;
    pf_qpn_d   = pf_qpn_q;
    pf_rr_d    = pf_rr_q;
    pf_addr_d  = pf_addr_q;
    pf_len_d   = pf_len_q;
    pf_idx_d   = pf_idx_q;
    pf_beat_d  = pf_beat_q;
    po_stale_d = po_stale_q;
    po_rd_d    = po_rd_q;
    po_wr_d    = po_wr_q;
    po_push    = 1'b0;
    po_pop     = 1'b0;
    po_idx_next = po_idx_q[po_rd_q];
    pf_we      = 1'b0;
    pf_waddr   = {po_head_qpn, po_idx_q[po_rd_q][RcW-1:0]};

    // ---- requests
    unique case (pf_st_q)
      PF_IDLE: begin
        if (pf_start) begin
          pf_qpn_d = pf_pick;
          pf_rr_d  = pf_pick;
          pf_st_d  = PF_PLAN;
        end
      end
      PF_PLAN: begin
        pf_idx_d  = pl_next;
        pf_addr_d = pl_addr;
        pf_st_d   = PF_SIZE;
      end
      PF_SIZE: begin
        // (a doorbell of the QP in this cycle: pi moves, size again with it)
        if (!(rq_db_valid_i && rq_db_qpn_i == 8'(pf_qpn_q))) begin
          if (!sz_go) begin
            pf_st_d = PF_IDLE;
          end else begin
            pf_len_d = 8'(32'(pf_cnt_d) * RqBeats - 1);
            pf_st_d  = PF_AR;
          end
        end
      end
      PF_AR: begin
        // (a gather's request goes first: the prefetch is ahead of its Sends)
        if (ar_grant_i) begin
          po_push = 1'b1;
          pf_st_d = PF_IDLE;
        end
      end
      default: begin
        pf_st_d = PF_IDLE;
      end
    endcase

    // ---- data: beats -> WQEs -> the cache of the oldest burst's QP
    if (r_beat_i) begin
      pf_beat_d = pf_beat_q + RqBeatW'(1);
      if (32'(pf_beat_q) == RqBeats - 1) begin
        // a whole WQE: into the cache, unless its QP was reset or flushed meanwhile
        pf_we       = !po_head_stale;
        pf_beat_d   = '0;
        po_idx_next = po_idx_q[po_rd_q] + 16'd1;
        pf_arr      = !po_head_stale;
      end
      if (r_last_i) begin
        po_pop  = 1'b1;
        po_rd_d = (32'(po_rd_q) == PfOut - 1) ? '0 : po_rd_q + 1'b1;
      end
    end
    if (po_push) begin
      po_wr_d             = (32'(po_wr_q) == PfOut - 1) ? '0 : po_wr_q + 1'b1;
      po_stale_d[po_wr_q] = 1'b0;
    end

    // a receive consumed (its completion taken): the cache's head moves with ci, a slot frees
    pf_cons = consume_i;

    // the want bits, per QP, the events side by side: picked (clear), its request granted (more
    // may be posted beyond the burst), a receive consumed, a doorbell taken (set); a flushed QP
    // (in ERROR) and QP_CREATE / QP_DESTROY come last (clear)
    for (int q = 0; q < NumQps; q++) begin
      pf_want_d[q] = pf_want_q[q];
      if (pf_st_q == PF_IDLE && pf_start && pf_pick == QW'(q)) begin
        pf_want_d[q] = 1'b0;
      end
      if ((po_push && pf_qpn_q == QW'(q)) || (consume_i && disp_qpn_i == QW'(q))
          || (db_good && db_q == QW'(q))) begin
        pf_want_d[q] = 1'b1;
      end
      if ((flush_i && flush_qpn_i == QW'(q)) || (cmd_reset_i && cmd_qpn_i == QW'(q))) begin
        pf_want_d[q] = 1'b0;
      end
    end

    // a flushed QP and QP_CREATE / QP_DESTROY: the QP forgets its cache and its bursts in
    // flight (a loop over the few descriptors, not over the QPs). The slot being filled this
    // cycle is another burst's, whatever QP its old contents name: it is stale only if its own
    // QP is the one reset (pf_lost_d, below). (It once took the mark of its previous occupant's
    // QP: another QP's burst granted in the cycle of a command dropped its WQEs while their
    // count said they were on chip.)
    if (flush_i || cmd_reset_i) begin
      for (int k = 0; k < PfOut; k++) begin
        if (!(po_push && PoW'(k) == po_wr_q)
            && ((flush_i && po_qpn_q[k] == flush_qpn_i) || (cmd_reset_i && po_qpn_q[k] == cmd_qpn_i))) begin
          po_stale_d[k] = 1'b1;
        end
      end
    end
    // a burst planned or being requested for that QP is stale from the start
    if (pf_st_q != PF_IDLE
        && ((flush_i && pf_qpn_q == flush_qpn_i) || (cmd_reset_i && pf_qpn_q == cmd_qpn_i))) begin
      pf_lost_d = 1'b1;
    end
    if (po_push && pf_lost_d) begin
      po_stale_d[po_wr_q] = 1'b1;
    end

    po_used_d = po_used_q + (PoW+1)'(po_push) - (PoW+1)'(po_pop);
  end
  // the reservation: a granted request of a burst not lost (a flush or command of this cycle
  // comes after it, below, and forgets it)
  assign pf_rsv = po_push && !pf_lost_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pf_st_q    <= PF_IDLE;
      pf_n_set_q  <= '0;
      pf_fl_set_q <= '0;
      pf_want_q  <= '0;
      pf_qpn_q   <= '0;
      pf_rr_q    <= '0;
      pf_beat_q  <= '0;
      po_rd_q    <= '0;
      po_wr_q    <= '0;
      po_used_q  <= '0;
      po_stale_q <= '0;
      pf_lost_q  <= 1'b0;
    end else begin
      pf_st_q    <= pf_st_d;
      pf_lost_q  <= pf_lost_d;
      // (per QP, constant indices: every event that writes a QP's count sets its bit)
      for (int q = 0; q < NumQps; q++) begin
        if ((pf_arr && po_head_qpn == QW'(q)) || (pf_cons && disp_qpn_i == QW'(q))
            || (flush_i && flush_qpn_i == QW'(q)) || (cmd_reset_i && cmd_qpn_i == QW'(q))) begin
          pf_n_set_q[q] <= 1'b1;
        end
        if ((pf_arr && po_head_qpn == QW'(q)) || (pf_rsv && pf_qpn_q == QW'(q))
            || (flush_i && flush_qpn_i == QW'(q)) || (cmd_reset_i && cmd_qpn_i == QW'(q))) begin
          pf_fl_set_q[q] <= 1'b1;
        end
      end
      pf_want_q  <= pf_want_d;
      pf_qpn_q   <= pf_qpn_d;
      pf_rr_q    <= pf_rr_d;
      pf_beat_q  <= pf_beat_d;
      po_rd_q    <= po_rd_d;
      po_wr_q    <= po_wr_d;
      po_used_q  <= po_used_d;
      po_stale_q <= po_stale_d;
    end
  end

  // the per-QP counts (RAM-like, see pf_n_set_q; each event writes its QP's entry, so its bit
  // stands). A WQE arriving for the QP that consumes a receive in the same cycle leaves its count
  // as it is; one arriving for the QP whose request is granted in the same cycle is taken off
  // the reservation. The flush and the commands come last: the QP forgets its cache.
  always_ff @(posedge clk_i) begin
    if (pf_arr) begin
      pf_n_q[po_head_qpn] <= (pf_cons && disp_qpn_i == po_head_qpn) ? h_pf_n : h_pf_n + 1'b1;
    end
    if (pf_cons && !(pf_arr && disp_qpn_i == po_head_qpn)) begin
      pf_n_q[disp_qpn_i] <= (c_pf_n != '0) ? c_pf_n - 1'b1 : '0;
    end
    if (pf_rsv) begin
      pf_fl_q[pf_qpn_q] <= r_pf_fl + pf_cnt_q - (RcW+1)'(pf_arr && po_head_qpn == pf_qpn_q);
    end
    if (pf_arr && !(pf_rsv && po_head_qpn == pf_qpn_q)) begin
      pf_fl_q[po_head_qpn] <= h_pf_fl - 1'b1;
    end
    if (flush_i) begin
      pf_n_q[flush_qpn_i]  <= '0;
      pf_fl_q[flush_qpn_i] <= '0;
    end
    if (cmd_reset_i) begin
      pf_n_q[cmd_qpn_i]  <= '0;
      pf_fl_q[cmd_qpn_i] <= '0;
    end
  end

  // the descriptors of the bursts in flight (RAM-like: written on request, read while used)
  always_ff @(posedge clk_i) begin
    if (po_push) begin
      po_qpn_q[po_wr_q] <= pf_qpn_q;
      po_idx_q[po_wr_q] <= pf_idx_q;
    end
    if (po_used_q != '0) begin
      po_idx_q[po_rd_q] <= po_idx_next;
    end
  end

  always_ff @(posedge clk_i) begin
    pf_addr_q <= pf_addr_d;
    pf_len_q  <= pf_len_d;
    pf_idx_q  <= pf_idx_d;
    pf_lim_q  <= pf_lim_d;
    pf_edge_q <= pf_edge_d;
    pf_ld_q   <= pf_ld_d;
    pf_cnt_q  <= pf_cnt_d;
    // one constant slice per beat (a write at a computed offset is a shifter of the whole
    // register in Yosys 0.23)
    for (int b = 0; b < RqBeats - 1; b++) begin
      if (r_beat_i && pf_beat_q == RqBeatW'(b)) begin
        pf_asm_q[DataWidth*b +: DataWidth] <= r_data_i;
      end
    end
  end


  assign cached_o    = q_pf_n;
  assign cache_wqe_o   = c_rwqe;
  assign cache_fwd_o   = c_fwd_q;
  assign cache_hit_o   = c_hit;
  assign cache_wdata_o = c_wwqe;
  assign ar_valid_o  = pf_ar_valid;
  assign ar_addr_o   = pf_addr_q;
  assign ar_len_o    = pf_len_q;
  assign ar_push_o   = po_push;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (pf_st_q == PF_AR) begin
        // a burst of whole WQEs, inside a 4 KiB page
        a_pf_burst_in_page: assert (32'(pf_addr_q[11:0]) + (32'(pf_len_q) + 1) * W8 <= 4096
                                    && (32'(pf_len_q) + 1) % RqBeats == 0);
      end
      if (pf_we) begin
        // a WQE lands only in a slot its QP reserved
        a_pf_reserved: assert (h_pf_fl != '0 && 32'(h_pf_n) + 32'(h_pf_fl) <= RqCache);
      end
      if (pf_st_q == PF_PLAN) begin
        a_pf_no_overflow: assert (32'(pl_n) + 32'(pl_fl) <= RqCache);
      end
      if (pf_st_q == PF_AR && !pf_lost_q) begin
        // the request offered fits the QP's free slots (cached and in flight as they are now)
        a_pf_request_fits: assert ((pf_n_set_q[pf_qpn_q] ? 32'(pf_n_q[pf_qpn_q]) : 32'd0) + 32'(r_pf_fl)
                                   + 32'(pf_cnt_q) <= RqCache && pf_cnt_q != '0);
      end
      a_one_ci_write: assert (!(consume_i && flush_done_i));
    end
  end
`endif

endmodule
