`default_nettype none
// nic_responder: the responder side of the RC transport (docs/transport.md), and the receive
// path's dispatcher. It takes every checked packet from nic_roce_rx, one at a time:
//   - ACKs / NAKs go to nic_requester (ack_*, through one register stage: see "the ACK / NAK
//     handoff" below); their payload (none) is drained;
//   - requests for a connected QP (RTS) are checked for their PSN and opcode sequence, then:
//     Send: the payload goes into the next receive WQE's SGEs (the WQE is read by DMA when the
//     message starts); Write: into the region named by the RETH (R_Key, range and remote-write
//     right checked once per message by the MR table, then translated page by page);
//     Read request: R_Key, range and remote-read right checked by the MR table, then the
//     responses (READ_RESPONSE_FIRST / MIDDLE / LAST / ONLY, at most the path MTU each, AETH with
//     the MSN on FIRST / LAST / ONLY) go out with their payload gathered by DMA reads, page by
//     page. An accepted Read joins the read-response queue and the dispatcher goes on with the
//     next packet; the queue's engine (below) plans the responses' pieces, translates them and
//     keeps up to GfDepth DMA reads in flight, and a sender streams the returning beats out
//     behind each response's header. An ACK / NAK of a QP waits until that QP's queued Reads
//     are answered, so every response goes out in PSN order;
//   - read responses for this side's Reads: placed into the Read's sink SGEs (nic_requester's
//     read context) with the same placement engine as a Send's receive SGEs; each placed response
//     acknowledges its PSN to nic_requester (ack_*), the last one also ends the Read's placement
//     (rdone_*); a response behind the Read's first PSN not placed is a duplicate (dropped), one
//     beyond it, or an ACK / NAK that acknowledges that PSN, skipped lost responses: an implied
//     NAK, handed to the requester as a PSN-sequence NAK of that PSN (ack_implied_o), which
//     sends the Read again whole (nic_rsp_dispatch's header says why); a bad response (opcode
//     out of sequence, more or fewer bytes than asked, a sink the QP may not write) fails the
//     Read at the requester (a NAK on ack_*), nothing is sent;
//   - anything else is drained: packets for unknown or unconnected QPs.
// After a packet's payload is in host memory: the expected PSN advances; at the end of a message
// an ACK goes back (when the requester asked for one) and a Send's receive completes (type
// RECEIVE, bytes, CQE flag SOLICITED when the Send carried SE) once its payload writes were
// accepted by nic_dma_wr, so the CQE can never overtake them on the single-ID write channel.
//
// Errors: a PSN ahead of the expected one: NAK "PSN sequence error" (once until it is fixed);
// behind it (a duplicate): a Send / Write is re-ACKed and dropped, a Read is answered again from
// the ring of saved Reads (also one that starts inside the original); a Send with no receive posted: RNR NAK, drop (the
// requester retries, or fails the Send with IO_TIMEOUT); a bad opcode sequence, or a Read on a QP
// connected with inbound read limit (IRD) 0: NAK "invalid request"; an R_Key / range / right violation: NAK "remote access error"; a Send
// longer than its receive: NAK "invalid request" and the receive completes DATA_OVERRUN. The
// last three move the QP to ERROR (qp_err_o). A QP in ERROR completes every posted receive
// CANCELLED, in order, without reading it. An RQ doorbell that moves the producer index back
// behind receives already prefetched is dropped and moves its QP to ERROR too (nic_rsp_rq).
//
// Per QP it keeps the receive ring (from QP_CREATE), the RQ producer index (from RQ doorbells),
// expected PSN, MSN, receive-queue consumer index, whether a message is in progress, and the
// message's placement state in a RAM (the receive WQE and the offset, or the Write's address,
// R_Key and bytes left). Its PD and receive CQ (nic_core's nic_qp_ctx), peer QPN, path MTU and
// IRD (nic_tp_qp_ctx) are read through the ctx_* ports.
//
// SendAndInvalidate: after the last packet's payload is placed, the IETH's token is invalidated
// through the MR table's translation port (xl_inv_o: VALID, same key, same PD as the QP); then
// the ACK and the receive completion (type RECEIVE_AND_INVALIDATE, the token in type_specific,
// CQE flag INVALIDATED). A token that cannot be invalidated: NAK "invalid request", the receive
// completes ACCESS_VIOLATION and the QP goes to ERROR (NDK: the receiver aborts the connection).
//
// The modules (one job each; docs/transport.md):
//   nic_rsp_dispatch     the packet FSM: checks, translations and write requests of the payload
//                        pieces, ACK / NAK, receive completions, the flush; the per-QP PSN / MSN
//                        and message state
//   nic_rsp_placer       payload bytes -> aligned write beats with strobes, one piece at a time
//   nic_rsp_rq           the receive queues: indices, the receive-WQE prefetch and its cache
//   nic_rsp_read_engine  the Reads accepted: response planning, gather reads, the responses
// This file wires them and arbitrates what they share: the MR table's translation port (the
// dispatcher first; the answer goes to whoever was granted two cycles before), the DMA read
// client (the engine's requests first; a FIFO of one bit per burst in flight says whose the R
// beats are), the transmit port (the engine's packets, and between them the dispatcher's
// ACK / NAK).
//
// Not built yet: several placements in flight.
module nic_responder #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16,   // queue pairs, <= 256
  parameter int MaxReads  = 32    // the largest IRD: Read requests kept per QP for duplicates
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // commands
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  // QP states (nic_sq_engine) and RQ doorbells (nic_csr)
  input  logic [2*NumQps-1:0]           qp_state_i,
  input  logic                          rq_db_valid_i,
  input  logic [7:0]                    rq_db_qpn_i,
  input  logic [15:0]                   rq_db_pi_i,
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o,
  // packets from nic_roce_rx
  input  logic                          pkt_valid_i,
  input  nic_roce_pkg::rx_pkt_t         pkt_i,
  output logic                          pkt_ready_o,
  input  logic                          pl_valid_i,
  input  logic [DataWidth-1:0]          pl_data_i,
  input  logic [$clog2(DataWidth/8):0]  pl_nbytes_i,
  input  logic                          pl_last_i,
  output logic                          pl_ready_o,
  // acknowledgements for nic_requester (registered: a cycle after the dispatcher's decision)
  output logic                          ack_valid_o,
  output logic [7:0]                    ack_qpn_o,
  output logic [23:0]                   ack_psn_o,
  output logic [7:0]                    ack_syndrome_o,
  output logic                          ack_implied_o,   // an implied NAK was made (a Read skipped;
                                                         // the event, also when the ACK was dropped)
  // events (port counters; nic_rsp_dispatch): a wire ACK / NAK and its syndrome, a request
  // ahead of / behind the expected PSN
  output logic                          ev_ack_rx_o,
  output logic [7:0]                    ev_ack_syn_o,
  output logic                          ev_out_of_seq_o,
  output logic                          ev_dup_req_o,
  // Two client ports of nic_core's translation arbiter (nic_xl_arb, which routes each answer to
  // its client by tag): the dispatcher's (xl_*) and the read-response engine's (rr_xl_*); the
  // answer's status, pfn and page offset are shared.
  output logic                          xl_req_o,
  input  logic                          xl_gnt_i,
  output logic [31:0]                   xl_token_o,
  output logic [63:0]                   xl_va_o,
  output logic [31:0]                   xl_len_o,
  output logic [15:0]                   xl_pd_o,
  output logic [15:0]                   xl_access_o,
  output logic                          xl_inv_o,
  input  logic                          xl_rsp_valid_i,
  output logic                          rr_xl_req_o,
  input  logic                          rr_xl_gnt_i,
  output logic [31:0]                   rr_xl_token_o,
  output logic [63:0]                   rr_xl_va_o,
  output logic [31:0]                   rr_xl_len_o,
  output logic [15:0]                   rr_xl_pd_o,
  output logic [15:0]                   rr_xl_access_o,
  input  logic                          rr_xl_rsp_valid_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  // DMA read client (receive WQEs)
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // read contexts (nic_requester): the oldest Read not yet placed, one cycle after the request
  output logic                          rctx_req_o,
  output logic [7:0]                    rctx_qpn_o,
  input  logic                          rctx_avail_i,
  input  nic_roce_pkg::read_ctx_t       rctx_i,
  output logic                          rdone_o,
  output logic [7:0]                    rdone_qpn_o,
  // DMA writes (nic_dma_wr port 2)
  output logic                          wr_req_valid_o,
  output logic [63:0]                   wr_req_addr_o,
  output logic [7:0]                    wr_req_len_o,
  output logic [7:0]                    wr_req_qpn_o,     // the QP of the packet being placed
  input  logic                          wr_req_ready_i,
  output logic                          wr_valid_o,
  output logic [DataWidth-1:0]          wr_data_o,
  output logic [DataWidth/8-1:0]        wr_strb_o,
  input  logic                          wr_ready_i,
  // ACK / NAK and read response packets to nic_roce_tx (through the TX arbiter), and the
  // responses' payload
  output logic                          tx_valid_o,
  output nic_roce_pkg::tx_pkt_t         tx_pkt_o,
  input  logic                          tx_ready_i,
  output logic                          tx_pl_valid_o,
  output logic [DataWidth-1:0]          tx_pl_data_o,
  output logic [$clog2(DataWidth/8):0]  tx_pl_nbytes_o,
  output logic                          tx_pl_poison_o,   // a read response's payload read failed
  input  logic                          tx_pl_ready_i,
  // the QP contexts (PD, CQ, receive ring: nic_core's nic_qp_ctx; the connection:
  // nic_tp_qp_ctx): at the dispatcher's QP, at the QP a receive completion is for, at the
  // read-response planner's next and current QPs, at the receive-WQE prefetch's QP
  output logic [7:0]                    ctx_qpn_o,
  input  logic [15:0]                   ctx_pd_i,
  input  logic [23:0]                   ctx_peer_qpn_i,
  input  logic [3:0]                    ctx_log_mtu_i,
  input  logic [7:0]                    ctx_ird_i,
  output logic [7:0]                    ctx_cpl_qpn_o,
  input  logic [7:0]                    ctx_rq_cqn_i,
  output logic [7:0]                    ctx_nq_o,
  input  logic [3:0]                    ctx_nq_log_mtu_i,
  output logic [7:0]                    ctx_pq_o,
  input  logic [3:0]                    ctx_pq_log_mtu_i,
  input  logic [15:0]                   ctx_pq_pd_i,
  output logic [7:0]                    ctx_rq_qpn_o,
  input  logic [63:0]                   ctx_rq_base_i,
  input  logic [3:0]                    ctx_rq_ld_i,
  // receive completions
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_responder: DataWidth must be 64 or 256");
  end
  if (nic_pkg::QP_STATE_ERROR != 2'b10) begin : gen_bad_err_code
    $fatal(1, "nic_responder: nic_rsp_rq's flush search expects QP_STATE_ERROR == 2'b10");
  end

  logic          cmd_in_range, cmd_create, cmd_connect, cmd_reset;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_create   = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CREATE;
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign cmd_reset    = cmd_valid_i && cmd_in_range
                        && (cmd_op_i == nic_pkg::CMD_QP_CREATE || cmd_op_i == nic_pkg::CMD_QP_DESTROY);

  // ---- signals between the modules ------------------------------------------------------------
  // the dispatcher's
  logic                  d_ack_valid, d_ack_implied, d_ev_ack_rx;   // its ACK / NAK (registered below)
  logic [7:0]            d_ack_qpn, d_ack_syn, d_ev_ack_syn;
  logic [23:0]           d_ack_psn;
  logic                  d_xl_req, d_xl_inv, d_tx_valid, d_qp_err;
  logic [31:0]           d_xl_token, d_xl_len;
  logic [63:0]           d_xl_va;
  logic [15:0]           d_xl_pd, d_xl_access;
  nic_roce_pkg::tx_pkt_t d_tx_pkt;
  logic [QW-1:0]         d_qpn;
  // the placer's
  logic                  pc_start, pc_active, pc_drain, pc_done, pc_word_done;
  logic [$clog2(DataWidth/8)-1:0] pc_lane;
  logic [12:0]           pc_len;
  logic [7:0]            pc_beats;
  // the receive queues'
  logic [15:0]           rq_ci, rq_pi, fl_ci;
  logic [4:0]            rq_cached;
  logic                  rq_cache_re, rq_consume;
  logic [511:0]          rq_cache_wqe, rq_cache_wdata;
  logic                  rq_cache_fwd, rq_cache_hit;
  logic                  fl_find, fl_found, fl_active, fl_done;
  logic [QW-1:0]         fl_found_qpn, fl_qpn;
  logic [QW-1:0]         rq_ring_qpn;
  logic                  pf_ar_valid, pf_ar_push;
  logic [63:0]           pf_ar_addr;
  logic [7:0]            pf_ar_len;
  // the read-response engine's
  logic                  rdq_push, rdq_push_ack, rdq_full, rdq_has_en, rdq_has;
  logic [63:0]           push_va;
  logic [31:0]           push_key, push_len, push_ip;
  logic [23:0]           push_psn, push_msn, push_peer_qpn;
  logic [7:0]            push_syn;
  logic [47:0]           push_mac;
  logic [QW-1:0]         e_nq, e_pq;
  logic [QW-1:0]         d_cpl_qpn;
  logic                  g_ar_valid, g_ar_push;
  logic [63:0]           g_ar_addr;
  logic [7:0]            g_ar_len;
  logic                  e_xl_req, e_xl_gnt, e_xl_rsp;
  logic [31:0]           e_xl_token, e_xl_len;
  logic [63:0]           e_xl_va;
  logic [15:0]           e_xl_pd;
  logic                  e_tx_valid, e_in_pkt, e_qp_err;
  logic                  rq_db_err;           // an RQ doorbell behind the prefetched receives
  logic [QW-1:0]         rq_db_err_qpn;
  nic_roce_pkg::tx_pkt_t e_pkt;
  logic [7:0]            e_qp_err_qpn;
  // the arbiters'
  logic                  d_xl_gnt, d_xl_rsp;
  logic                  ord_head_pf, ord_head_g;   // the R beats are the prefetch's / the engine's

  nic_rsp_dispatch #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (MaxReads)
  ) u_dispatch (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .cmd_valid_i      (cmd_valid_i),
    .cmd_op_i         (cmd_op_i),
    .cmd_index_i      (cmd_index_i),
    .cmd_args_i       (cmd_args_i),
    .qp_state_i       (qp_state_i),
    .pkt_valid_i      (pkt_valid_i),
    .pkt_i            (pkt_i),
    .pkt_ready_o      (pkt_ready_o),
    .pl_valid_i       (pl_valid_i),
    .pl_last_i        (pl_last_i),
    .pl_ready_o       (pl_ready_o),
    .ack_valid_o      (d_ack_valid),
    .ack_qpn_o        (d_ack_qpn),
    .ack_psn_o        (d_ack_psn),
    .ack_syndrome_o   (d_ack_syn),
    .ack_implied_o    (d_ack_implied),
    .ev_ack_rx_o      (d_ev_ack_rx),
    .ev_ack_syn_o     (d_ev_ack_syn),
    .ev_out_of_seq_o  (ev_out_of_seq_o),
    .ev_dup_req_o     (ev_dup_req_o),
    .xl_req_o         (d_xl_req),
    .xl_gnt_i         (d_xl_gnt),
    .xl_token_o       (d_xl_token),
    .xl_va_o          (d_xl_va),
    .xl_len_o         (d_xl_len),
    .xl_pd_o          (d_xl_pd),
    .xl_access_o      (d_xl_access),
    .xl_inv_o         (d_xl_inv),
    .xl_rsp_i         (d_xl_rsp),
    .xl_status_i      (xl_status_i),
    .xl_pfn_i         (xl_pfn_i),
    .xl_page_off_i    (xl_page_off_i),
    .rctx_req_o       (rctx_req_o),
    .rctx_qpn_o       (rctx_qpn_o),
    .rctx_avail_i     (rctx_avail_i),
    .rctx_i           (rctx_i),
    .rdone_o          (rdone_o),
    .rdone_qpn_o      (rdone_qpn_o),
    .wr_req_valid_o   (wr_req_valid_o),
    .wr_req_addr_o    (wr_req_addr_o),
    .wr_req_len_o     (wr_req_len_o),
    .wr_req_ready_i   (wr_req_ready_i),
    .place_start_o    (pc_start),
    .place_lane_o     (pc_lane),
    .place_len_o      (pc_len),
    .place_beats_o    (pc_beats),
    .place_active_o   (pc_active),
    .place_drain_o    (pc_drain),
    .place_done_i     (pc_done),
    .place_word_done_i(pc_word_done),
    .qpn_o            (d_qpn),
    .rq_ci_i          (rq_ci),
    .rq_pi_i          (rq_pi),
    .rq_cached_i      (rq_cached),
    .rq_cache_re_o    (rq_cache_re),
    .rq_cache_wqe_i   (rq_cache_wqe),
    .rq_cache_fwd_i   (rq_cache_fwd),
    .rq_cache_hit_i   (rq_cache_hit),
    .rq_cache_wdata_i (rq_cache_wdata),
    .rq_consume_o     (rq_consume),
    .flush_find_o     (fl_find),
    .flush_found_i    (fl_found),
    .flush_found_qpn_i(fl_found_qpn),
    .flush_o          (fl_active),
    .flush_qpn_o      (fl_qpn),
    .flush_ci_i       (fl_ci),
    .flush_done_o     (fl_done),
    .push_read_o      (rdq_push),
    .push_ack_o       (rdq_push_ack),
    .push_va_o        (push_va),
    .push_key_o       (push_key),
    .push_len_o       (push_len),
    .push_psn_o       (push_psn),
    .push_msn_o       (push_msn),
    .push_syn_o       (push_syn),
    .push_peer_qpn_o  (push_peer_qpn),
    .push_mac_o       (push_mac),
    .push_ip_o        (push_ip),
    .rdq_full_i       (rdq_full),
    .rdq_has_en_o     (rdq_has_en),
    .rdq_has_i        (rdq_has),
    .ctx_pd_i         (ctx_pd_i),
    .ctx_peer_qpn_i   (ctx_peer_qpn_i),
    .ctx_log_mtu_i    (ctx_log_mtu_i),
    .ctx_ird_i        (ctx_ird_i),
    .cpl_qpn_o        (d_cpl_qpn),
    .cpl_rq_cqn_i     (ctx_rq_cqn_i),
    .tx_valid_o       (d_tx_valid),
    .tx_pkt_o         (d_tx_pkt),
    .tx_ready_i       (tx_ready_i),
    .tx_free_i        (!e_tx_valid && !e_in_pkt),
    .qp_err_o         (d_qp_err),
    .cpl_valid_o      (cpl_valid_o),
    .cpl_cqn_o        (cpl_cqn_o),
    .cpl_cqe_o        (cpl_cqe_o),
    .cpl_ready_i      (cpl_ready_i)
  );

  // ---- the ACK / NAK handoff to nic_requester: one register stage ----------------------------
  // The dispatcher's ACK / NAK (from the wire, implied, or a placed read response's) and its
  // events leave through flip-flops (51 of them), so that no path runs through two engines in one
  // cycle: before, the dispatcher's packet state ran combinationally through nic_req_rnr's
  // classification into nic_req_completer's, nic_req_ack_timer's and nic_req_rnr's tables
  // (docs/timing-area.md, "The acknowledgement handoff registered"). The requester sees every
  // acknowledgement one cycle later. Why no stale state results:
  //   - A QP_CONNECT / QP_CREATE / QP_DESTROY of the ACK's QP in the cycle the dispatcher hands it
  //     (the cycle it is registered) drops it. Before, the two met in the requester in one cycle
  //     and the command won (every requester table clears its QP after the ACK's write: the
  //     completer's acknowledged PSN and NAK, the ACK timer, the RNR state, the read ring). Passed
  //     on, the ACK would arrive after the command had reset the QP and act on its next life: an
  //     old PSN acknowledged in the PSN space of a new connection, an old NAK failing a new WQE.
  //     A command in the cycle the registered ACK is delivered meets it in the requester, where the
  //     command still wins. So an ACK is dropped by a command of its QP in either of two cycles
  //     (before: in one); an ACK dropped in the second would have written only state that the
  //     command then cleared. Either way the ACK belongs to the QP's life the command ended.
  //   - The QP's state (qp_state_i) is no hazard: the dispatcher checks only the QP number of an
  //     ACK, and the requester judges each ACK against the state of the cycle it arrives in (the
  //     ACK timer's RTS check, the completer's ERROR rule when it decides), as it would an ACK one
  //     cycle later off the wire.
  //   - The end of a Read's placement (rdone_o) is not delayed: the dispatcher's next lookup of the
  //     oldest Read not placed (rctx_req_o) may come two cycles after it and must see it. So the
  //     requester's read ring counts a Read placed one cycle before the ACK of its last response
  //     (handed in the same cycle, a_rdone_with_ack) reaches the completer, which retires a Read
  //     only on that ACK: placed before completed, as before. A command that drops the ACK also
  //     clears the read ring's QP (the same three commands), so the two never disagree.
  // The events (ev_ack_rx_o: the port counters) are registered with the ACK and not dropped: a
  // wire ACK / NAK was received whatever became of the QP. ack_implied_o is the implied NAK's event
  // alone (made by the dispatcher, ack_valid: the port counter counts it also when it is dropped).
  logic       ack_drop;                // a command resets the ACK's QP in this cycle
  logic       ack_valid_q, ack_implied_q, ev_ack_rx_q;
  logic [7:0] ack_qpn_q, ack_syn_q, ev_ack_syn_q;
  logic [23:0] ack_psn_q;
  assign ack_drop = (cmd_connect || cmd_reset) && 32'(d_ack_qpn) < NumQps && cmd_qpn == QW'(d_ack_qpn);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ack_valid_q   <= 1'b0;
      ack_implied_q <= 1'b0;
      ev_ack_rx_q   <= 1'b0;
    end else begin
      ack_valid_q   <= d_ack_valid && !ack_drop;
      ack_implied_q <= d_ack_valid && d_ack_implied;
      ev_ack_rx_q   <= d_ev_ack_rx;
    end
  end
  // the data only with an acknowledgement or its event (an idle NIC moves no flip-flop)
  always_ff @(posedge clk_i) begin
    if (d_ack_valid) begin
      ack_qpn_q <= d_ack_qpn;
      ack_psn_q <= d_ack_psn;
      ack_syn_q <= d_ack_syn;
    end
    if (d_ev_ack_rx) begin
      ev_ack_syn_q <= d_ev_ack_syn;
    end
  end
  assign ack_valid_o    = ack_valid_q;
  assign ack_qpn_o      = ack_qpn_q;
  assign ack_psn_o      = ack_psn_q;
  assign ack_syndrome_o = ack_syn_q;
  assign ack_implied_o  = ack_implied_q;
  assign ev_ack_rx_o    = ev_ack_rx_q;
  assign ev_ack_syn_o   = ev_ack_syn_q;

  nic_rsp_placer #(
    .DataWidth(DataWidth)
  ) u_placer (
    .clk_i        (clk_i),
    .rst_i        (rst_i),
    .start_i      (pc_start),
    .start_lane_i (pc_lane),
    .start_len_i  (pc_len),
    .start_beats_i(pc_beats),
    .active_i     (pc_active),
    .drain_i      (pc_drain),
    .done_o       (pc_done),
    .pl_valid_i   (pl_valid_i),
    .pl_data_i    (pl_data_i),
    .pl_nbytes_i  (pl_nbytes_i),
    .word_done_o  (pc_word_done),
    .wr_valid_o   (wr_valid_o),
    .wr_data_o    (wr_data_o),
    .wr_strb_o    (wr_strb_o),
    .wr_ready_i   (wr_ready_i)
  );

  nic_rsp_rq #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps)
  ) u_rq (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .qp_state_i       (qp_state_i),
    .cmd_create_i     (cmd_create),
    .cmd_reset_i      (cmd_reset),
    .cmd_qpn_i        (cmd_qpn),
    .ring_qpn_o       (rq_ring_qpn),
    .ring_base_i      (ctx_rq_base_i),
    .ring_ld_i        (ctx_rq_ld_i),
    .rq_db_valid_i    (rq_db_valid_i),
    .rq_db_qpn_i      (rq_db_qpn_i),
    .rq_db_pi_i       (rq_db_pi_i),
    .db_err_o         (rq_db_err),
    .db_err_qpn_o     (rq_db_err_qpn),
    .db_err_take_i    (!d_qp_err && !e_qp_err),
    .disp_qpn_i       (d_qpn),
    .ci_o             (rq_ci),
    .pi_o             (rq_pi),
    .cached_o         (rq_cached),
    .cache_re_i       (rq_cache_re),
    .cache_wqe_o      (rq_cache_wqe),
    .cache_fwd_o      (rq_cache_fwd),
    .cache_hit_o      (rq_cache_hit),
    .cache_wdata_o    (rq_cache_wdata),
    .consume_i        (rq_consume),
    .flush_find_i     (fl_find),
    .flush_found_o    (fl_found),
    .flush_found_qpn_o(fl_found_qpn),
    .flush_i          (fl_active),
    .flush_qpn_i      (fl_qpn),
    .flush_ci_o       (fl_ci),
    .flush_done_i     (fl_done),
    .ar_valid_o       (pf_ar_valid),
    .ar_grant_i       (ar_ready_i && !g_ar_valid),
    .ar_addr_o        (pf_ar_addr),
    .ar_len_o         (pf_ar_len),
    .ar_push_o        (pf_ar_push),
    .r_beat_i         (r_valid_i && ord_head_pf),
    .r_data_i         (r_data_i),
    .r_last_i         (r_last_i)
  );

  nic_rsp_read_engine #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps)
  ) u_read_engine (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .qp_state_i     (qp_state_i),
    .cmd_connect_i  (cmd_connect),
    .cmd_reset_i    (cmd_reset),
    .cmd_qpn_i      (cmd_qpn),
    .push_read_i    (rdq_push),
    .push_ack_i     (rdq_push_ack),
    .push_qpn_i     (d_qpn),
    .push_va_i      (push_va),
    .push_key_i     (push_key),
    .push_len_i     (push_len),
    .push_psn_i     (push_psn),
    .push_msn_i     (push_msn),
    .push_syn_i     (push_syn),
    .push_peer_qpn_i(push_peer_qpn),
    .push_mac_i     (push_mac),
    .push_ip_i      (push_ip),
    .full_o         (rdq_full),
    .has_en_i       (rdq_has_en),
    .has_qpn_i      (d_qpn),
    .has_o          (rdq_has),
    .nq_qpn_o       (e_nq),
    .nq_log_mtu_i   (ctx_nq_log_mtu_i),
    .pq_qpn_o       (e_pq),
    .pq_log_mtu_i   (ctx_pq_log_mtu_i),
    .pq_pd_i        (ctx_pq_pd_i),
    .xl_req_o       (e_xl_req),
    .xl_gnt_i       (e_xl_gnt),
    .xl_token_o     (e_xl_token),
    .xl_va_o        (e_xl_va),
    .xl_len_o       (e_xl_len),
    .xl_pd_o        (e_xl_pd),
    .xl_rsp_i       (e_xl_rsp),
    .xl_status_i    (xl_status_i),
    .xl_pfn_i       (xl_pfn_i),
    .xl_page_off_i  (xl_page_off_i),
    .ar_valid_o     (g_ar_valid),
    .ar_ready_i     (ar_ready_i),
    .ar_addr_o      (g_ar_addr),
    .ar_len_o       (g_ar_len),
    .ar_push_o      (g_ar_push),
    .r_beat_i       (r_valid_i && ord_head_g),
    .r_data_i       (r_data_i),
    .r_err_i        (r_resp_i != 2'b00),
    .tx_valid_o     (e_tx_valid),
    .tx_pkt_o       (e_pkt),
    .tx_ready_i     (tx_ready_i),
    .tx_pl_valid_o  (tx_pl_valid_o),
    .tx_pl_data_o   (tx_pl_data_o),
    .tx_pl_nbytes_o (tx_pl_nbytes_o),
    .tx_pl_poison_o (tx_pl_poison_o),
    .tx_pl_ready_i  (tx_pl_ready_i),
    .in_pkt_o       (e_in_pkt),
    .qp_err_o       (e_qp_err),
    .qp_err_qpn_o   (e_qp_err_qpn)
  );

  // ---- the DMA read client: the engine's requests go first (the prefetch is ahead of its
  // Sends). One AXI ID returns bursts in request order, so a FIFO of one bit per burst in flight
  // (ord, 1: the engine's) says whose the R beats are; both land in buffers that reserved room.
  localparam int OrdDepth = 32;        // bursts in flight: >= the prefetch's 4 + the engine's 16
  localparam int OrdW     = $clog2(OrdDepth);
  logic [OrdDepth-1:0] ord_q;
  logic [OrdW:0]       ord_wr_q, ord_rd_q;
  logic [OrdW:0]       ord_used;
  logic                ord_pop;
  assign ord_used    = ord_wr_q - ord_rd_q;
  assign ord_head_pf = ord_used != '0 && !ord_q[ord_rd_q[OrdW-1:0]];
  assign ord_head_g  = ord_used != '0 && ord_q[ord_rd_q[OrdW-1:0]];
  assign r_ready_o   = ord_head_pf || ord_head_g;
  assign ord_pop     = r_valid_i && r_ready_o && r_last_i;

  assign ar_valid_o  = g_ar_valid || pf_ar_valid;
  assign ar_addr_o   = g_ar_valid ? g_ar_addr : pf_ar_addr;
  assign ar_len_o    = g_ar_valid ? g_ar_len : pf_ar_len;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ord_wr_q <= '0;
      ord_rd_q <= '0;
    end else begin
      ord_wr_q <= ord_wr_q + (OrdW+1)'(g_ar_push || pf_ar_push);
      ord_rd_q <= ord_rd_q + (OrdW+1)'(ord_pop);
    end
  end
  always_ff @(posedge clk_i) begin
    if (g_ar_push || pf_ar_push) begin
      ord_q[ord_wr_q[OrdW-1:0]] <= g_ar_push;
    end
  end

  // ---- the translation client ports: the dispatcher's and the engine's are separate clients of
  // nic_xl_arb (the dispatcher's first), which owns the MR table's latency
  assign xl_req_o       = d_xl_req;
  assign d_xl_gnt       = xl_gnt_i;
  assign xl_token_o     = d_xl_token;
  assign xl_inv_o       = d_xl_req && d_xl_inv;
  assign xl_va_o        = d_xl_va;
  assign xl_len_o       = d_xl_len;
  assign xl_pd_o        = d_xl_pd;
  assign xl_access_o    = d_xl_access;
  assign d_xl_rsp       = xl_rsp_valid_i;
  assign rr_xl_req_o    = e_xl_req;
  assign e_xl_gnt       = rr_xl_gnt_i;
  assign rr_xl_token_o  = e_xl_token;
  assign rr_xl_va_o     = e_xl_va;
  assign rr_xl_len_o    = e_xl_len;
  assign rr_xl_pd_o     = e_xl_pd;
  assign rr_xl_access_o = nic_pkg::FLAG_ALLOW_REMOTE_READ;
  assign e_xl_rsp       = rr_xl_rsp_valid_i;

  // ---- the transmit port: the engine's packets, and between them the dispatcher's ACK / NAK
  assign tx_valid_o   = e_tx_valid || d_tx_valid;
  assign tx_pkt_o     = e_tx_valid ? e_pkt : d_tx_pkt;
  // (a dropped RQ doorbell waits in nic_rsp_rq while the pipeline reports one of its own)
  assign qp_err_o     = d_qp_err || e_qp_err || rq_db_err;
  assign qp_err_qpn_o = e_qp_err ? e_qp_err_qpn : d_qp_err ? 8'(d_qpn) : 8'(rq_db_err_qpn);

  assign ctx_qpn_o     = 8'(d_qpn);
  assign wr_req_qpn_o  = 8'(d_qpn);
  assign ctx_cpl_qpn_o = 8'(d_cpl_qpn);
  assign ctx_nq_o      = 8'(e_nq);
  assign ctx_pq_o      = 8'(e_pq);
  assign ctx_rq_qpn_o  = 8'(rq_ring_qpn);

  // The read engine honours r_resp_i on its payload reads; a DMA error on a receive-WQE read
  // (the prefetch) is not reported yet.

`ifndef SYNTHESIS
  // The end of a Read's placement and the ACK of its last response: handed together, delivered
  // one cycle apart (the ACK registered above), unless a command resetting the QP drops the ACK.
  logic       chk_rdone_q;
  logic [7:0] chk_rdone_qpn_q;
  always_ff @(posedge clk_i) begin
    chk_rdone_q <= !rst_i && rdone_o && !ack_drop;
    if (rdone_o) begin
      chk_rdone_qpn_q <= rdone_qpn_o;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (rdone_o) begin
        a_rdone_with_ack: assert (d_ack_valid && d_ack_qpn == rdone_qpn_o
                                  && d_ack_syn == nic_roce_pkg::AETH_ACK);
      end
      if (chk_rdone_q) begin
        a_rdone_ack_delivered: assert (ack_valid_o && ack_qpn_o == chk_rdone_qpn_q
                                       && ack_syndrome_o == nic_roce_pkg::AETH_ACK);
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // beats come only for a burst in flight
      if (r_valid_i) begin
        a_r_expected: assert (ord_used != '0);
      end
      if (g_ar_push || pf_ar_push) begin
        a_ord_room: assert (32'(ord_used) < OrdDepth);
      end
    end
  end
`endif

endmodule
