`default_nettype none
// nic_tp_qp_ctx: the transport's per-QP connection context, one copy for the requester and the
// responder, as QP_CONNECT sets it: the peer (MAC, IPv4, QPN), the path MTU and the read limits
// (ORD: outbound, the requester's; IRD: inbound, the responder's). Written only by QP_CONNECT,
// before any use (no reset: RAM-like tables).
//
// Why a second context module beside nic_core's nic_qp_ctx: no field is in both. nic_qp_ctx owns
// what every QP has (state, PD, CQ numbers, the rings) and judges the QP commands (a QP_CONNECT
// with an MTU or read limit out of range leaves the QP READY); this module holds what only a
// connected QP of a core with the transport has, and only the transport reads it. The fields of
// the connection that loss recovery adds belong here too.
//
// Read ports (combinational, as LUT RAM), each at a QP its reader holds for several cycles, so
// a registered read can later sit behind any of them:
//   in_*   the requester's intake: peer, MTU, ORD
//   ak_*   the requester's acknowledgement classifier (nic_req_rnr): rnr_retry
//   d_*    the responder's dispatcher: peer QPN, MTU, IRD
//   nq_* / pq_*  the responder's read-response planner: the MTU at the next and the planned
//          Read's QP
module nic_tp_qp_ctx #(
  parameter int NumQps = 16     // queue pairs, <= 256
) (
  input  logic                                    clk_i,
  // QP_CONNECT (QP in range)
  input  logic                                    cmd_connect_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  input  logic [255:0]                            cmd_args_i,
  // the requester's intake
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] in_qpn_i,
  output logic [47:0]                             in_peer_mac_o,
  output logic [31:0]                             in_peer_ip_o,
  output logic [23:0]                             in_peer_qpn_o,
  output logic [3:0]                              in_log_mtu_o,
  output logic [7:0]                              in_ord_o,
  // the requester's acknowledgement classifier
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ak_qpn_i,
  output logic [2:0]                              ak_rnr_retry_o,
  // the responder's dispatcher
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] d_qpn_i,
  output logic [23:0]                             d_peer_qpn_o,
  output logic [3:0]                              d_log_mtu_o,
  output logic [7:0]                              d_ird_o,
  // the responder's read-response planner
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] nq_qpn_i,
  output logic [3:0]                              nq_log_mtu_o,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] pq_qpn_i,
  output logic [3:0]                              pq_log_mtu_o
);

  logic [47:0] peer_mac_q [NumQps];
  logic [31:0] peer_ip_q  [NumQps];
  logic [23:0] peer_qpn_q [NumQps];
  logic [3:0]  log_mtu_q  [NumQps];
  logic [7:0]  ord_q      [NumQps];
  logic [7:0]  ird_q      [NumQps];
  logic [2:0]  rnr_retry_q [NumQps];

  // the arguments, as the generated format (formats/nic.toml) lays them out
  nic_pkg::cmd_qp_connect_t connect_args;
  assign connect_args = cmd_args_i;

  always_ff @(posedge clk_i) begin
    if (cmd_connect_i) begin
      peer_mac_q[cmd_qpn_i] <= connect_args.peer_mac;
      peer_ip_q[cmd_qpn_i]  <= connect_args.peer_ipv4;
      peer_qpn_q[cmd_qpn_i] <= connect_args.peer_qpn;
      log_mtu_q[cmd_qpn_i]  <= connect_args.log_mtu[3:0];     // 8..12 (nic_qp_ctx checks)
      ord_q[cmd_qpn_i]      <= connect_args.outbound_read_limit;
      ird_q[cmd_qpn_i]      <= connect_args.inbound_read_limit;
      rnr_retry_q[cmd_qpn_i] <= connect_args.rnr_retry;
    end
  end

  assign in_peer_mac_o = peer_mac_q[in_qpn_i];
  assign in_peer_ip_o  = peer_ip_q[in_qpn_i];
  assign in_peer_qpn_o = peer_qpn_q[in_qpn_i];
  assign in_log_mtu_o  = log_mtu_q[in_qpn_i];
  assign in_ord_o      = ord_q[in_qpn_i];
  assign ak_rnr_retry_o = rnr_retry_q[ak_qpn_i];
  assign d_peer_qpn_o  = peer_qpn_q[d_qpn_i];
  assign d_log_mtu_o   = log_mtu_q[d_qpn_i];
  assign d_ird_o       = ird_q[d_qpn_i];
  assign nq_log_mtu_o  = log_mtu_q[nq_qpn_i];
  assign pq_log_mtu_o  = log_mtu_q[pq_qpn_i];

  // the fields of QP_CONNECT not kept here (the PSNs are kept by their users; the reserved fields)
  logic unused_args;
  assign unused_args = ^{connect_args.rsvd_216, connect_args.log_mtu[7:4], connect_args.rsvd_187, connect_args.rq_psn,
                         connect_args.rsvd_155, connect_args.retry_count, connect_args.sq_psn,
                         connect_args.rsvd_125, connect_args.ack_timeout, connect_args.rsvd_48};

endmodule
