`default_nettype none
// nic_requester: the requester side of the RC transport (docs/transport.md). It takes the
// transport WQEs (Send, SendAndInvalidate, Write, Read) of connected QPs from nic_local_exec in
// ring order, checks their SGEs against the MR table, cuts each message into packets of at most
// the path MTU, gathers their payload by DMA (or from the WQE for INLINE data), hands the packets
// to nic_roce_tx, and completes each WQE, in posting order per QP, once an ACK covers its last PSN.
//
// A Read sends one READ_REQUEST and takes the PSNs of its responses (ceil(length / MTU), at least
// one). Its sink SGEs are checked here with local-write access, then kept in the read context
// RAM (per QP a ring of MaxReads entries: first PSN, length, SGEs) where nic_responder, which
// dispatches every received packet and owns the placement engine, looks up the oldest Read not
// yet placed (rctx_*) when its first response arrives. nic_responder reports each response it
// placed as an acknowledgement of that response's PSN (so a Read completes once its last
// response is in host memory, and implicitly acknowledges the Sends and Writes before it), a
// failed placement as a NAK, and the end of each Read's placement (rdone_*). It also filters the
// ACKs / NAKs from the wire: one that skips a Read not fully placed reaches the requester as a
// PSN-sequence NAK of the Read's first PSN not placed (an implied NAK: a retry spent, the Read
// replayed whole), so no acknowledgement covers a Read whose data is not in host memory. At most ORD Reads
// (QP_CONNECT ARG6, at most MaxReads) are outstanding per QP, and a WQE with READ_FENCE waits
// for every earlier Read of its QP to complete: both wait at intake (S_SPACE).
//
// Per QP it keeps the next PSN, the PSN acknowledged so far, and a ring of outstanding WQEs
// (their index, last PSN, completion type and flags) in a RAM of NumQps * OutDepth entries; a
// WQE waits at intake while its QP's ring is full. Its PD, send CQ, SQ ring and connection (peer
// MAC, IPv4, QPN, path MTU, ORD) are read from the QP contexts (ctx_* ports).
//
// Completion rules (checked in this order for a QP's oldest outstanding WQE):
//   - decided at intake (its SGEs failed the checks: ACCESS_VIOLATION; its QP was not RTS:
//     CANCELLED): completes with that status;
//   - an ACK covers its last PSN: SUCCESS (no CQE for a SILENT_SUCCESS WQE);
//   - a NAK names a PSN up to its last one: the NAK's status (remote access error:
//     ACCESS_VIOLATION; the RNR NAK past rnr_retry: IO_TIMEOUT; any other: REMOTE_ERROR), and the
//     QP goes to ERROR;
//   - its QP is in ERROR: CANCELLED.
// busy_o[q] is high while QP q has a WQE here: nic_local_exec then holds q's later WQEs, so
// completions stay in posting order across local and transport requests.
//
// RNR retries (docs/transport.md "RNR retries"): an RNR NAK of PSN p acknowledges the PSNs before
// it and arms the QP's timer (the NAK's timer code, counted in us_tick_i pulses). When it expires
// the intake FSM walks the QP's outstanding entries and sends every one from p on again with its
// original PSNs, re-reading each WQE by DMA from its slot of the SQ ring (base and depth from
// QP_CREATE) through the payload read client. Meanwhile the QP's new WQEs wait; a PSN-sequence
// NAK of p (a packet the responder dropped behind the RNR NAK) is ignored. After rnr_retry
// (QP_CONNECT) retries of one PSN the next RNR NAK fails the Send with IO_TIMEOUT (7: never). The timers are looked at
// one QP a cycle (no loop over the QPs).
//
// Gather: the intake FSM plans ahead of the sender. It queues each packet's descriptor (with its
// inline bytes) and, per piece, translates it and issues its DMA read (the piece queue holds the
// reads in flight, up to PieceDepth); the sender offers the packets to nic_roce_tx in order and
// streams their payload from the read data buffer, where every read reserved its beats when it
// was issued (R beats are never held up: the R channel is shared with nic_responder).
//
// The modules (one job each; docs/transport.md):
//   nic_req_intake     WQE intake, SGE checks, packetising, piece planning, RNR replay walk;
//                      owns the next PSN per QP
//   nic_req_sender     packet and piece queues, the packets and their payload to nic_roce_tx
//   nic_gather_buf     the read data buffer (rtl/lib; reserve at issue)
//   nic_req_out_ring   the outstanding WQEs per QP (RAM, head, count)
//   nic_req_read_ring  the outstanding Reads per QP and their contexts (nic_responder's lookup)
//   nic_req_rnr        RNR timers and the classification of each acknowledgement
//   nic_req_completer  the acknowledgement state per QP, the completions in order
// The QP context is read through the ctx_* ports: PD, send CQ and SQ ring from nic_core's
// nic_qp_ctx, the connection (peer, MTU, ORD) from nic_tp_qp_ctx in nic_transport. This file
// only decodes the commands and wires the modules.
//
// Not built yet (the transport's next steps): retransmission after loss (timeouts: the link is
// lossless and in order).
module nic_requester #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16,   // queue pairs, <= 256
  parameter int OutDepth  = 64,   // outstanding WQEs per QP: a power of two >= 2
  parameter int MaxReads  = 32    // outstanding Reads per QP (the largest ORD): a power of two in 2..128 (as nic_core)
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic                          us_tick_i,   // one-cycle pulse every microsecond (RNR timer)
  // commands (QP_CONNECT, QP_CREATE, QP_DESTROY)
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  // QP states (nic_sq_engine)
  input  logic [2*NumQps-1:0]           qp_state_i,
  output logic [NumQps-1:0]             busy_o,
  output logic [NumQps-1:0]             busy_reg_o,       // busy_o from a register (see below)
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o,
  // transport WQEs, in ring order per QP
  input  logic                          wqe_valid_i,
  input  logic [511:0]                  wqe_data_i,
  input  logic [7:0]                    wqe_qpn_i,
  input  logic [15:0]                   wqe_idx_i,
  output logic                          wqe_ready_o,
  // MR table translation port (through an arbiter: a request waits for its grant)
  output logic                          xl_req_o,
  input  logic                          xl_gnt_i,
  output logic [31:0]                   xl_token_o,
  output logic [63:0]                   xl_va_o,
  output logic [31:0]                   xl_len_o,
  output logic [15:0]                   xl_pd_o,
  output logic [15:0]                   xl_access_o,
  input  logic                          xl_rsp_valid_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  // DMA read client (payload)
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // packets to nic_roce_tx (through the TX arbiter)
  output logic                          pkt_valid_o,
  output nic_roce_pkg::tx_pkt_t         pkt_o,
  input  logic                          pkt_ready_i,
  output logic                          pl_valid_o,
  output logic [DataWidth-1:0]          pl_data_o,
  output logic [$clog2(DataWidth/8):0]  pl_nbytes_o,
  output logic                          pl_poison_o,   // the chunk's DMA read failed: stomp the frame
  input  logic                          pl_ready_i,
  // acknowledgements for this side's QPs (nic_responder's, registered: nic_req_completer's pick
  // takes the ACK's QP in the cycle it arrives)
  input  logic                          ack_valid_i,
  input  logic [7:0]                    ack_qpn_i,
  input  logic [23:0]                   ack_psn_i,
  input  logic [7:0]                    ack_syndrome_i,
  // events (port counters): a packet queued again by a replay; an ACK timer expired
  output logic                          ev_retransmitted_o,
  output logic                          ev_ack_timeout_o,
  // the read context of a QP's oldest Read not yet placed (for nic_responder), one cycle after
  // the request: rctx_avail_o says whether there is one
  input  logic                          rctx_req_i,
  input  logic [7:0]                    rctx_qpn_i,
  output logic                          rctx_avail_o,
  output nic_roce_pkg::read_ctx_t            rctx_o,
  // nic_responder placed the last response of that Read
  input  logic                          rdone_i,
  input  logic [7:0]                    rdone_qpn_i,
  // the QP contexts (nic_qp_ctx, nic_tp_qp_ctx) at the intake's QP and at the completer's QP
  output logic [7:0]                    ctx_in_qpn_o,
  input  logic [15:0]                   ctx_in_pd_i,
  input  logic [47:0]                   ctx_in_peer_mac_i,
  input  logic [31:0]                   ctx_in_peer_ip_i,
  input  logic [23:0]                   ctx_in_peer_qpn_i,
  input  logic [3:0]                    ctx_in_log_mtu_i,
  input  logic [7:0]                    ctx_in_ord_i,
  input  logic [51:0]                   ctx_in_sq_base_i,
  input  logic [3:0]                    ctx_in_sq_ld_i,
  output logic [7:0]                    ctx_cpl_qpn_o,
  input  logic [7:0]                    ctx_cpl_cqn_i,
  output logic [7:0]                    ctx_ak_qpn_o,      // the acknowledgement's QP
  input  logic [2:0]                    ctx_ak_rnr_retry_i,
  // completions
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i
);

  localparam int W8   = DataWidth / 8;
  localparam int QW   = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int OW   = $clog2(OutDepth);
  localparam int RW   = $clog2(MaxReads);
  localparam int EntW = 16 + 24 + 16 + 1 + 1 + 32;   // idx, last psn, op type, silent, pend, status
  localparam int DqDepth = 8192 / W8;                // read data buffer: two pages of beats

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_requester: DataWidth must be 64 or 256");
  end

  // ---- the commands (QP in range) ------------------------------------------------------------
  logic          cmd_in_range, cmd_connect, cmd_reset;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign cmd_reset    = cmd_valid_i && cmd_in_range
                        && (cmd_op_i == nic_pkg::CMD_QP_CREATE || cmd_op_i == nic_pkg::CMD_QP_DESTROY);

  nic_pkg::cmd_qp_connect_t connect_args;     // QP_CONNECT's arguments (the generated format)
  assign connect_args = cmd_args_i;

  // ---- signals between the modules ------------------------------------------------------------
  logic [QW-1:0]           in_qpn, cq, pick_qpn, rnr_scan, scan;
  logic                    in_sending;       // the intake packetises a new WQE of in_qpn ...
  logic [23:0]             in_sending_psn;   // ... up to this PSN so far
  logic [23:0]             rnr_psn, scan_psn;
  logic [RW:0]             reads_out;
  logic                    rd_issue;
  nic_roce_pkg::read_ctx_t rd_ctx;
  logic [OW-1:0]           cq_head, pick_head, scan_head;
  logic [OW:0]             in_count, cq_count, scan_count;
  logic                    append, append_pend;
  logic [EntW-1:0]         append_entry;
  logic                    rp_re, cpl_re;
  logic [QW+OW-1:0]        rp_raddr, cpl_raddr;
  logic [EntW-1:0]         rp_rdata, cpl_rdata;
  logic [NumQps-1:0]       nonempty, rnr_wait, busy_intake, busy_rise;
  logic                    rnr_go, rnr_start;
  logic                    rp_fail, sd_fail, fail_v, sf_v_q;
  logic [7:0]              sd_fail_qpn, sf_qpn_q;
  logic [23:0]             rp_fail_psn, sd_fail_psn, sf_psn_q;
  logic [QW-1:0]           fail_qpn;
  logic [23:0]             fail_psn;
  logic [31:0]             fail_status;
  logic [NumQps-1:0]       tm_pend, rp_wait;
  logic                    tm_go, tm_start, rp_go, rp_start;
  logic [QW-1:0]           tm_qpn, tm_fail_qpn;
  logic [23:0]             tm_psn, tm_fail_psn;
  logic                    tm_fail, ev_ack_timeout, ev_retry;
  logic                    ack_seq;
  logic [31:0]             rp_fail_status;
  logic                    ack_take, ack_nak;
  logic [QW-1:0]           ack_q;
  logic [23:0]             ack_upto;
  logic [31:0]             ack_nak_status;
  logic                    ak_take_q, ak_nak_q, ak_seq_q;   // the classification, registered
  logic [QW-1:0]           ak_q_q;
  logic [23:0]             ak_upto_q, ak_psn_q;
  logic [31:0]             ak_status_q;
  logic                    pop, pop_read;
  logic                    pkt_push, is_inl, pq_full, piece_push, piece_mark, pc_full, mark_head;
  nic_roce_pkg::tx_pkt_t   plan_pkt;
  logic [383:0]            inl;
  logic [$clog2(W8)-1:0]   piece_lane;
  logic [12:0]             piece_len;
  logic                    gb_room, gb_valid, rp_take, send_take;
  logic [DataWidth+1:0]    gb_rdata;      // {DMA error, r_last, data}
  logic                    pl_poison;

  nic_req_intake #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .OutDepth (OutDepth),
    .MaxReads (MaxReads),
    .EntW     (EntW)
  ) u_intake (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .cmd_connect_i   (cmd_connect),
    .cmd_qpn_i       (cmd_qpn),
    .cmd_sq_psn_i    (connect_args.sq_psn),
    .cmd_log_mtu_i   (connect_args.log_mtu[3:0]),
    .qp_state_i      (qp_state_i),
    .busy_o          (busy_intake),
    .busy_rise_o     (busy_rise),
    .wqe_valid_i     (wqe_valid_i),
    .wqe_data_i      (wqe_data_i),
    .wqe_qpn_i       (wqe_qpn_i),
    .wqe_idx_i       (wqe_idx_i),
    .wqe_ready_o     (wqe_ready_o),
    .qpn_o           (in_qpn),
    .sending_o       (in_sending),
    .sending_psn_o   (in_sending_psn),
    .pd_i            (ctx_in_pd_i),
    .peer_mac_i      (ctx_in_peer_mac_i),
    .peer_ip_i       (ctx_in_peer_ip_i),
    .peer_qpn_i      (ctx_in_peer_qpn_i),
    .log_mtu_i       (ctx_in_log_mtu_i),
    .ord_i           (ctx_in_ord_i),
    .sq_base_i       (ctx_in_sq_base_i),
    .sq_ld_i         (ctx_in_sq_ld_i),
    .reads_out_i     (reads_out),
    .rd_issue_o      (rd_issue),
    .rd_ctx_o        (rd_ctx),
    .in_count_i      (in_count),
    .append_o        (append),
    .append_entry_o  (append_entry),
    .append_pend_o   (append_pend),
    .rp_re_o         (rp_re),
    .rp_raddr_o      (rp_raddr),
    .rp_rdata_i      (rp_rdata),
    .rnr_wait_i      (rp_wait),
    .scan_i          (scan),
    .rnr_go_i        (rp_go),
    .scan_psn_i      (scan_psn),
    .scan_head_i     (scan_head),
    .scan_count_i    (scan_count),
    .rnr_start_o     (rp_start),
    .pop_i           (pop),
    .pop_qpn_i       (cq),
    .rp_fail_o       (rp_fail),
    .rp_fail_psn_o   (rp_fail_psn),
    .rp_fail_status_o(rp_fail_status),
    .xl_req_o        (xl_req_o),
    .xl_gnt_i        (xl_gnt_i),
    .xl_token_o      (xl_token_o),
    .xl_va_o         (xl_va_o),
    .xl_len_o        (xl_len_o),
    .xl_pd_o         (xl_pd_o),
    .xl_access_o     (xl_access_o),
    .xl_rsp_valid_i  (xl_rsp_valid_i),
    .xl_status_i     (xl_status_i),
    .xl_pfn_i        (xl_pfn_i),
    .xl_page_off_i   (xl_page_off_i),
    .ar_valid_o      (ar_valid_o),
    .ar_ready_i      (ar_ready_i),
    .ar_addr_o       (ar_addr_o),
    .ar_len_o        (ar_len_o),
    .gb_room_i       (gb_room),
    .gb_valid_i      (gb_valid),
    .gb_data_i       (gb_rdata[DataWidth-1:0]),
    .gb_last_i       (gb_rdata[DataWidth]),
    .rp_take_o       (rp_take),
    .mark_head_i     (mark_head),
    .pkt_push_o      (pkt_push),
    .ev_retx_o       (ev_retransmitted_o),
    .pkt_o           (plan_pkt),
    .inl_o           (inl),
    .is_inl_o        (is_inl),
    .pq_full_i       (pq_full),
    .piece_push_o    (piece_push),
    .piece_lane_o    (piece_lane),
    .piece_len_o     (piece_len),
    .piece_mark_o    (piece_mark),
    .pc_full_i       (pc_full)
  );

  // The read data buffer: every DMA read of the requester (payload pieces, a replay's WQE)
  // reserves its beats when it is issued, so R beats are always taken at once (r_ready_o is
  // constant): the R channel is shared with nic_responder's reads, in request order. Each beat
  // keeps whether its read failed (rresp SLVERR / DECERR).
  assign r_ready_o = 1'b1;

  nic_gather_buf #(
    .Width (DataWidth + 2),
    .Depth (DqDepth),
    .OutReg(1'b1)
  ) u_rdata (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .req_beats_i(9'(ar_len_o) + 9'd1),
    .room_o     (gb_room),
    .reserve_i  (ar_valid_o && ar_ready_i),
    .we_i       (r_valid_i),
    .wdata_i    ({r_resp_i != 2'b00, r_last_i, r_data_i}),
    .valid_o    (gb_valid),
    .data_o     (gb_rdata),
    .take_i     (rp_take || send_take)   // one at a time: the intake's beats are a marker's
  );

  nic_req_sender #(
    .DataWidth(DataWidth)
  ) u_sender (
    .clk_i         (clk_i),
    .rst_i         (rst_i),
    .pkt_push_i    (pkt_push),
    .pkt_i         (plan_pkt),
    .inl_i         (inl),
    .is_inl_i      (is_inl),
    .pq_full_o     (pq_full),
    .piece_push_i  (piece_push),
    .piece_lane_i  (piece_lane),
    .piece_len_i   (piece_len),
    .piece_mark_i  (piece_mark),
    .pc_full_o     (pc_full),
    .mark_head_o   (mark_head),
    .mark_pop_i    (rp_take && gb_rdata[DataWidth]),
    .gb_valid_i    (gb_valid),
    .gb_data_i     (gb_rdata[DataWidth-1:0]),
    .gb_last_i     (gb_rdata[DataWidth]),
    .gb_err_i      (gb_rdata[DataWidth+1]),
    .gb_take_o     (send_take),
    .fail_o        (sd_fail),
    .fail_qpn_o    (sd_fail_qpn),
    .fail_psn_o    (sd_fail_psn),
    .tx_pkt_valid_o(pkt_valid_o),
    .tx_pkt_o      (pkt_o),
    .tx_pkt_ready_i(pkt_ready_i),
    .tx_pl_valid_o (pl_valid_o),
    .tx_pl_data_o  (pl_data_o),
    .tx_pl_nbytes_o(pl_nbytes_o),
    .tx_pl_poison_o(pl_poison),
    .tx_pl_ready_i (pl_ready_i)
  );

  nic_req_out_ring #(
    .NumQps  (NumQps),
    .OutDepth(OutDepth),
    .EntW    (EntW)
  ) u_out_ring (
    .clk_i         (clk_i),
    .rst_i         (rst_i),
    .cmd_reset_i   (cmd_reset),
    .cmd_qpn_i     (cmd_qpn),
    .append_i      (append),
    .in_qpn_i      (in_qpn),
    .append_entry_i(append_entry),
    .in_count_o    (in_count),
    .pop_i         (pop),
    .cpl_qpn_i     (cq),
    .cpl_head_o    (cq_head),
    .cpl_count_o   (cq_count),
    .pick_qpn_i    (pick_qpn),
    .pick_head_o   (pick_head),
    .scan_qpn_i    (scan),
    .scan_head_o   (scan_head),
    .scan_count_o  (scan_count),
    .nonempty_o    (nonempty),
    .cpl_re_i      (cpl_re),
    .cpl_raddr_i   (cpl_raddr),
    .cpl_rdata_o   (cpl_rdata),
    .rp_re_i       (rp_re),
    .rp_raddr_i    (rp_raddr),
    .rp_rdata_o    (rp_rdata)
  );

  nic_req_read_ring #(
    .NumQps  (NumQps),
    .MaxReads(MaxReads)
  ) u_read_ring (
    .clk_i       (clk_i),
    .rst_i       (rst_i),
    .cmd_clear_i (cmd_connect || cmd_reset),
    .cmd_qpn_i   (cmd_qpn),
    .issue_i     (rd_issue),
    .issue_qpn_i (in_qpn),
    .issue_ctx_i (rd_ctx),
    .out_qpn_i   (in_qpn),
    .out_count_o (reads_out),
    .done_i      (pop_read),
    .done_qpn_i  (cq),
    .rctx_req_i  (rctx_req_i),
    .rctx_qpn_i  (rctx_qpn_i),
    .rctx_avail_o(rctx_avail_o),
    .rctx_o      (rctx_o),
    .rdone_i     (rdone_i),
    .rdone_qpn_i (rdone_qpn_i)
  );

  nic_req_rnr #(
    .NumQps(NumQps)
  ) u_rnr (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .us_tick_i       (us_tick_i),
    .cmd_clear_i     (cmd_connect || cmd_reset),
    .cmd_qpn_i       (cmd_qpn),
    .ack_valid_i     (ack_valid_i),
    .ack_qpn_i       (ack_qpn_i),
    .ack_psn_i       (ack_psn_i),
    .ack_syndrome_i  (ack_syndrome_i),
    .ack_rnr_retry_i (ctx_ak_rnr_retry_i),
    .ack_take_o      (ack_take),
    .ack_q_o         (ack_q),
    .ack_nak_o       (ack_nak),
    .ack_seq_o       (ack_seq),
    .ack_upto_o      (ack_upto),
    .ack_nak_status_o(ack_nak_status),
    .wait_o          (rnr_wait),
    .scan_o          (rnr_scan),
    .rnr_go_o        (rnr_go),
    .scan_psn_o      (rnr_psn),
    .rnr_start_i     (rnr_start)
  );

  // The acknowledgement stage: nic_req_rnr's classification (which reads the QP's rnr_retry in
  // nic_tp_qp_ctx at the acknowledgement's QP, and the RNR episode's PSN) is registered here, and
  // its consumers (nic_req_ack_timer, nic_req_completer) take it in the next cycle: the one cycle
  // every acknowledgement costs (docs/timing-area.md). nic_req_rnr's own tables still move in
  // the acknowledgement's cycle. An acknowledgement of a QP that a QP_CONNECT / QP_CREATE /
  // QP_DESTROY clears in its own cycle is dropped: taken in that cycle, the command's clear won
  // over it in every table, and it must not reach the tables the command has just set.
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ak_take_q <= 1'b0;
    end else begin
      ak_take_q <= ack_take && !((cmd_connect || cmd_reset) && cmd_qpn == ack_q);
    end
  end
  always_ff @(posedge clk_i) begin
    if (ack_take) begin
      ak_q_q      <= ack_q;
      ak_nak_q    <= ack_nak;
      ak_seq_q    <= ack_seq;
      ak_upto_q   <= ack_upto;
      ak_psn_q    <= ack_psn_i;
      ak_status_q <= ack_nak_status;
    end
  end

  nic_req_ack_timer #(
    .NumQps(NumQps)
  ) u_ack_timer (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .us_tick_i        (us_tick_i),
    .qp_state_i       (qp_state_i),
    .cmd_connect_i    (cmd_connect),
    .cmd_reset_i      (cmd_reset),
    .cmd_qpn_i        (cmd_qpn),
    .cmd_ack_timeout_i(connect_args.ack_timeout),
    .cmd_retry_count_i(connect_args.retry_count),
    .cmd_sq_psn_i     (connect_args.sq_psn),
    .raw_take_i       (ack_take),
    .raw_q_i          (ack_q),
    .ack_take_i       (ak_take_q),
    .ack_q_i          (ak_q_q),
    .ack_nak_i        (ak_nak_q),
    .ack_seq_i        (ak_seq_q),
    .ack_upto_i       (ak_upto_q),
    .append_i         (append),
    .append_qpn_i     (in_qpn),
    .append_pend_i    (append_pend),
    .append_psn_i     (append_entry[EntW-17 -: 24]),
    .sending_i        (in_sending),
    .sending_psn_i    (in_sending_psn),
    .pend_o           (tm_pend),
    .go_o             (tm_go),
    .go_qpn_o         (tm_qpn),
    .go_psn_o         (tm_psn),
    .start_i          (tm_start),
    .fail_o           (tm_fail),
    .fail_qpn_o       (tm_fail_qpn),
    .fail_psn_o       (tm_fail_psn),
    .ev_timeout_o     (ev_ack_timeout),
    .ev_retry_o       (ev_retry)
  );

  // One replay at a time for the intake: an expired RNR timer first, then a go-back-N. The QPs
  // with either pending hold their new WQEs.
  assign rp_go     = rnr_go || tm_go;
  assign scan      = rnr_go ? rnr_scan : (tm_go ? tm_qpn : rnr_scan);
  assign scan_psn  = rnr_go ? rnr_psn : tm_psn;
  assign rnr_start = rp_start && rnr_go;
  assign tm_start  = rp_start && !rnr_go;
  assign rp_wait   = rnr_wait | tm_pend;

  nic_req_completer #(
    .NumQps  (NumQps),
    .OutDepth(OutDepth),
    .EntW    (EntW)
  ) u_completer (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .qp_state_i      (qp_state_i),
    .cmd_connect_i   (cmd_connect),
    .cmd_reset_i     (cmd_reset),
    .cmd_qpn_i       (cmd_qpn),
    .ack_now_i       (ack_take),
    .ack_now_q_i     (ack_q),
    .ack_take_i      (ak_take_q),
    .ack_q_i         (ak_q_q),
    .ack_nak_i       (ak_nak_q),
    .ack_psn_i       (ak_psn_q),
    .ack_upto_i      (ak_upto_q),
    .ack_nak_status_i(ak_status_q),
    .append_i        (append),
    .append_qpn_i    (in_qpn),
    .append_pend_i   (append_pend),
    .rp_fail_i       (fail_v),
    .rp_fail_qpn_i   (fail_qpn),
    .rp_fail_psn_i   (fail_psn),
    .rp_fail_status_i(fail_status),
    .tm_fail_i       (tm_fail),
    .tm_fail_qpn_i   (tm_fail_qpn),
    .tm_fail_psn_i   (tm_fail_psn),
    .nonempty_i      (nonempty),
    .pick_qpn_o      (pick_qpn),
    .pick_head_i     (pick_head),
    .cq_o            (cq),
    .cq_head_i       (cq_head),
    .cq_count_i      (cq_count),
    .ent_re_o        (cpl_re),
    .ent_raddr_o     (cpl_raddr),
    .ent_rdata_i     (cpl_rdata),
    .pop_o           (pop),
    .pop_read_o      (pop_read),
    .cpl_valid_o     (cpl_valid_o),
    .cpl_cqe_o       (cpl_cqe_o),
    .cpl_ready_i     (cpl_ready_i),
    .qp_err_o        (qp_err_o)
  );

  assign qp_err_qpn_o  = 8'(cq);
  assign ctx_in_qpn_o  = 8'(in_qpn);
  assign ctx_cpl_qpn_o = 8'(cq);
  assign ctx_ak_qpn_o  = 8'(ack_q);
  assign cpl_cqn_o     = ctx_cpl_cqn_i;
  assign busy_o       = busy_intake | nonempty;

  // busy_reg_o: busy_o as a register, for nic_wqe_dispatch's decisions (docs/timing-area.md "The
  // transport's busy bits registered"): last cycle's busy_o with the bits that could rise since
  // (busy_rise: a WQE taken, a replay walk started; the outstanding ring fills only while its
  // QP's WQE is in hand) ORed in. So it is high in every cycle busy_o is (a_busy_reg_covers),
  // and one cycle longer where busy_o falls.
  logic [NumQps-1:0] busy_reg_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      busy_reg_q <= '0;
    end else begin
      busy_reg_q <= busy_o | busy_rise;
    end
  end
  assign busy_reg_o = busy_reg_q;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      a_busy_reg_covers: assert ((busy_o & ~busy_reg_q) == '0);
    end
  end
`endif

  // Failures for the completer: a replayed WQE's (the intake's QP) first, else the sender's
  // payload read failure (held one cycle when both come at once): INTERNAL_ERROR, as the WQE
  // fetch and the local executor report a DMA error (docs/bad-input.md).
  assign fail_v      = rp_fail || sf_v_q;
  assign fail_qpn    = rp_fail ? in_qpn : QW'(sf_qpn_q);
  assign fail_psn    = rp_fail ? rp_fail_psn : sf_psn_q;
  assign fail_status = rp_fail ? rp_fail_status : nic_pkg::STATUS_INTERNAL_ERROR;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      sf_v_q <= 1'b0;
    end else begin
      sf_v_q <= sd_fail || (sf_v_q && rp_fail);
    end
  end
  always_ff @(posedge clk_i) begin
    if (sd_fail) begin
      sf_qpn_q <= sd_fail_qpn;
      sf_psn_q <= sd_fail_psn;
    end
  end
  assign pl_poison_o = pl_poison;
  logic unused_fail_qpn;                 // the QP number's bits above the QP index
  assign unused_fail_qpn = ^sf_qpn_q;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // a held failure is taken in the next cycle without a replay failure: never overwritten
      a_fail_not_lost: assert (!(sd_fail && sf_v_q && rp_fail));
    end
  end
`endif
  // the retransmission events, for the port counters (a retry spent has no counter of its own:
  // it is a timeout, a sequence NAK or an implied NAK, each counted)
  assign ev_ack_timeout_o = ev_ack_timeout;
  logic unused_events;
  assign unused_events = ev_retry;
  // the command fields the requester reads itself: QP_CONNECT's first PSN, ack_timeout and
  // retry_count, the path MTU (the intake's registered packet counts, a cycle ahead of
  // nic_tp_qp_ctx); the rest is the QP contexts', nic_qp_ctx and nic_tp_qp_ctx
  logic unused_args;
  assign unused_args = ^{connect_args.rsvd_216, connect_args.inbound_read_limit,
                         connect_args.outbound_read_limit, connect_args.log_mtu[7:4],
                         connect_args.rsvd_187, connect_args.rnr_retry, connect_args.rq_psn,
                         connect_args.rsvd_155, connect_args.rsvd_125,
                         connect_args.peer_qpn, connect_args.peer_ipv4,
                         connect_args.rsvd_48, connect_args.peer_mac};

endmodule
