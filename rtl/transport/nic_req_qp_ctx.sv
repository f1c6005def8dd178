`default_nettype none
// nic_req_qp_ctx: the requester's per-QP context, as the QP commands set it: from QP_CREATE the
// PD, the send CQ and the SQ ring (base, depth; a replay re-reads WQEs from it), from QP_CONNECT
// the peer (MAC, IPv4, QPN), the path MTU and the outbound read limit (ORD). Written only by the
// commands, before any use (no reset: RAM-like tables).
//
// Read ports (combinational, as LUT RAM): the intake's QP (every field but the CQ) and the
// completer's QP (the send CQ). A registered read can later sit behind either port: its readers
// hold their QP for several cycles.
module nic_req_qp_ctx #(
  parameter int NumQps = 16     // queue pairs, <= 256
) (
  input  logic                                    clk_i,
  // the QP commands, decoded by nic_requester (QP in range)
  input  logic                                    cmd_create_i,
  input  logic                                    cmd_connect_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  input  logic [255:0]                            cmd_args_i,
  // the intake's QP
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] in_qpn_i,
  output logic [15:0]                             in_pd_o,
  output logic [47:0]                             in_peer_mac_o,
  output logic [31:0]                             in_peer_ip_o,
  output logic [23:0]                             in_peer_qpn_o,
  output logic [3:0]                              in_log_mtu_o,
  output logic [7:0]                              in_ord_o,
  output logic [51:0]                             in_sq_base_o,   // [63:12] of the ring
  output logic [3:0]                              in_sq_ld_o,     // log2 of its depth
  // the completer's QP
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cpl_qpn_i,
  output logic [7:0]                              cpl_cqn_o
);

  logic [15:0] pd_q       [NumQps];
  logic [7:0]  sq_cqn_q   [NumQps];
  logic [51:0] sq_base_q  [NumQps];
  logic [3:0]  sq_ld_q    [NumQps];
  logic [47:0] peer_mac_q [NumQps];
  logic [31:0] peer_ip_q  [NumQps];
  logic [23:0] peer_qpn_q [NumQps];
  logic [3:0]  log_mtu_q  [NumQps];
  logic [7:0]  ord_q      [NumQps];

  always_ff @(posedge clk_i) begin
    if (cmd_create_i) begin
      pd_q[cmd_qpn_i]      <= cmd_args_i[79:64];
      sq_cqn_q[cmd_qpn_i]  <= cmd_args_i[87:80];
      sq_base_q[cmd_qpn_i] <= {cmd_args_i[63:32], cmd_args_i[31:12]};
      sq_ld_q[cmd_qpn_i]   <= cmd_args_i[99:96];
    end
    if (cmd_connect_i) begin
      peer_mac_q[cmd_qpn_i] <= {cmd_args_i[47:32], cmd_args_i[31:0]};
      peer_ip_q[cmd_qpn_i]  <= cmd_args_i[95:64];
      peer_qpn_q[cmd_qpn_i] <= cmd_args_i[119:96];
      log_mtu_q[cmd_qpn_i]  <= cmd_args_i[195:192];
      ord_q[cmd_qpn_i]      <= cmd_args_i[207:200];
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
  assign cpl_cqn_o     = sq_cqn_q[cpl_qpn_i];

  // the fields of the commands the requester does not keep
  logic unused_args;
  assign unused_args = ^{cmd_args_i[255:208], cmd_args_i[199:196], cmd_args_i[191:120]};

endmodule
