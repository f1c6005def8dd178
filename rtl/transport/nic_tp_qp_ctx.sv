`default_nettype none
// nic_tp_qp_ctx: the transport's per-QP context, one copy for the requester and the responder,
// as the QP commands set it: from QP_CREATE the PD, the send and receive CQs and the SQ ring
// (base, depth: a replay re-reads WQEs from it), from QP_CONNECT the peer (MAC, IPv4, QPN), the
// path MTU, the read limits (ORD: outbound, the requester's; IRD: inbound, the responder's) and
// the requester's retry limits (rnr_retry; ack_timeout and retry_count for the ACK timer).
// Written only by the commands, before any use (no reset: RAM-like tables).
//
// Read ports (combinational, as LUT RAM), each at a QP its reader holds for several cycles, so
// a registered read can later sit behind any of them:
//   in_*   the requester's intake: PD, peer, MTU, ORD, SQ ring
//   scq_*  the requester's completer: the send CQ
//   ak_*   the requester's acknowledgement classifier (nic_req_rnr): rnr_retry
//   d_*    the responder's dispatcher: PD, peer QPN, MTU, IRD
//   rcq_*  the responder's receive completion: the receive CQ
//   nq_* / pq_*  the responder's read-response planner: the MTU (and the PD) at the next and the
//          planned Read's QP
// The core-level QP context (nic_core) will own these fields; this module is the transport's
// single copy until then.
module nic_tp_qp_ctx #(
  parameter int NumQps = 16     // queue pairs, <= 256
) (
  input  logic                                    clk_i,
  // the QP commands (QP in range)
  input  logic                                    cmd_create_i,
  input  logic                                    cmd_connect_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  input  logic [255:0]                            cmd_args_i,
  // the requester's intake
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] in_qpn_i,
  output logic [15:0]                             in_pd_o,
  output logic [47:0]                             in_peer_mac_o,
  output logic [31:0]                             in_peer_ip_o,
  output logic [23:0]                             in_peer_qpn_o,
  output logic [3:0]                              in_log_mtu_o,
  output logic [7:0]                              in_ord_o,
  output logic [51:0]                             in_sq_base_o,   // [63:12] of the ring
  output logic [3:0]                              in_sq_ld_o,     // log2 of its depth
  // the requester's completer
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] scq_qpn_i,
  output logic [7:0]                              scq_cqn_o,
  // the requester's acknowledgement classifier
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ak_qpn_i,
  output logic [2:0]                              ak_rnr_retry_o,
  // the responder's dispatcher
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] d_qpn_i,
  output logic [15:0]                             d_pd_o,
  output logic [23:0]                             d_peer_qpn_o,
  output logic [3:0]                              d_log_mtu_o,
  output logic [7:0]                              d_ird_o,
  // the responder's receive completions
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] rcq_qpn_i,
  output logic [7:0]                              rcq_cqn_o,
  // the responder's read-response planner
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] nq_qpn_i,
  output logic [3:0]                              nq_log_mtu_o,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] pq_qpn_i,
  output logic [3:0]                              pq_log_mtu_o,
  output logic [15:0]                             pq_pd_o
);

  logic [15:0] pd_q       [NumQps];
  logic [7:0]  sq_cqn_q   [NumQps];
  logic [7:0]  rq_cqn_q   [NumQps];
  logic [51:0] sq_base_q  [NumQps];
  logic [3:0]  sq_ld_q    [NumQps];
  logic [47:0] peer_mac_q [NumQps];
  logic [31:0] peer_ip_q  [NumQps];
  logic [23:0] peer_qpn_q [NumQps];
  logic [3:0]  log_mtu_q  [NumQps];
  logic [7:0]  ord_q      [NumQps];
  logic [7:0]  ird_q      [NumQps];
  logic [2:0]  rnr_retry_q [NumQps];

  // the arguments, as the generated formats (formats/nic.toml) lay them out
  nic_pkg::cmd_qp_create_t  create_args;
  nic_pkg::cmd_qp_connect_t connect_args;
  assign create_args  = cmd_args_i;
  assign connect_args = cmd_args_i;

  always_ff @(posedge clk_i) begin
    if (cmd_create_i) begin
      pd_q[cmd_qpn_i]      <= create_args.pd;
      sq_cqn_q[cmd_qpn_i]  <= create_args.sq_cqn;
      rq_cqn_q[cmd_qpn_i]  <= create_args.rq_cqn;
      sq_base_q[cmd_qpn_i] <= create_args.sq_base[63:12];      // 4 KiB aligned
      sq_ld_q[cmd_qpn_i]   <= create_args.sq_log_depth[3:0];   // <= 15 (16-bit ring indices)
    end
    if (cmd_connect_i) begin
      peer_mac_q[cmd_qpn_i] <= connect_args.peer_mac;
      peer_ip_q[cmd_qpn_i]  <= connect_args.peer_ipv4;
      peer_qpn_q[cmd_qpn_i] <= connect_args.peer_qpn;
      log_mtu_q[cmd_qpn_i]  <= connect_args.log_mtu[3:0];     // 8..12
      ord_q[cmd_qpn_i]      <= connect_args.outbound_read_limit;
      ird_q[cmd_qpn_i]      <= connect_args.inbound_read_limit;
      rnr_retry_q[cmd_qpn_i] <= connect_args.rnr_retry;
    end
  end

  assign in_pd_o       = pd_q[in_qpn_i];
  assign in_peer_mac_o = peer_mac_q[in_qpn_i];
  assign in_peer_ip_o  = peer_ip_q[in_qpn_i];
  assign in_peer_qpn_o = peer_qpn_q[in_qpn_i];
  assign in_log_mtu_o  = log_mtu_q[in_qpn_i];
  assign in_ord_o      = ord_q[in_qpn_i];
  assign in_sq_base_o  = sq_base_q[in_qpn_i];
  assign in_sq_ld_o    = sq_ld_q[in_qpn_i];
  assign scq_cqn_o     = sq_cqn_q[scq_qpn_i];
  assign ak_rnr_retry_o = rnr_retry_q[ak_qpn_i];
  assign d_pd_o        = pd_q[d_qpn_i];
  assign d_peer_qpn_o  = peer_qpn_q[d_qpn_i];
  assign d_log_mtu_o   = log_mtu_q[d_qpn_i];
  assign d_ird_o       = ird_q[d_qpn_i];
  assign rcq_cqn_o     = rq_cqn_q[rcq_qpn_i];
  assign nq_log_mtu_o  = log_mtu_q[nq_qpn_i];
  assign pq_log_mtu_o  = log_mtu_q[pq_qpn_i];
  assign pq_pd_o       = pd_q[pq_qpn_i];

  // the fields of the commands the transport does not keep here (the responder's receive ring
  // and the PSNs are kept by their users; the reserved fields)
  logic unused_args;
  assign unused_args = ^{create_args.rsvd_192, create_args.rq_base, create_args.rsvd_112, create_args.rq_log_depth,
                         create_args.sq_log_depth[7:4], create_args.sq_base[11:0],
                         connect_args.rsvd_216, connect_args.log_mtu[7:4], connect_args.rsvd_187, connect_args.rq_psn,
                         connect_args.rsvd_155, connect_args.retry_count, connect_args.sq_psn,
                         connect_args.rsvd_125, connect_args.ack_timeout, connect_args.rsvd_48};

endmodule
