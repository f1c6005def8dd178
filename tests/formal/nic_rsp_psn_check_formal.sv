`default_nettype none
// nic_rsp_psn_check_formal: the proof harness of nic_rsp_psn_check, the responder's expected PSN,
// PSN classification and NAK-sent state (its properties are the module's own `ifdef FORMAL
// block, which also assumes what nic_rsp_dispatch guarantees). Bounded parameters: 2 QPs (a
// command to one while the dispatcher handles the other). Every input is free in every cycle:
// any PSN, any QP, QP_CONNECT with any starting PSN.
module nic_rsp_psn_check_formal (
  input logic        clk_i,
  input logic        rst_i,
  input logic        qpn_i,
  input logic [23:0] psn_i,
  input logic        ahead_taken_i,
  input logic        expected_taken_i,
  input logic        advance_i,
  input logic [23:0] adv_i,
  input logic        connect_i,
  input logic        reset_i,
  input logic        cmd_qpn_i,
  input logic [23:0] connect_psn_i
);
  logic [23:0] epsn;
  logic        dup, ahead, nak;

  initial assume (rst_i);

  nic_rsp_psn_check #(
    .NumQps(2)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .qpn_i           (qpn_i),
    .psn_i           (psn_i),
    .epsn_o          (epsn),
    .dup_o           (dup),
    .ahead_o         (ahead),
    .nak_o           (nak),
    .ahead_taken_i   (ahead_taken_i),
    .expected_taken_i(expected_taken_i),
    .advance_i       (advance_i),
    .adv_i           (adv_i),
    .connect_i       (connect_i),
    .reset_i         (reset_i),
    .cmd_qpn_i       (cmd_qpn_i),
    .connect_psn_i   (connect_psn_i)
  );
endmodule
