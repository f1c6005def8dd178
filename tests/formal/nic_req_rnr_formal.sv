`default_nettype none
// nic_req_rnr_formal: the proof harness of nic_req_rnr, the requester's RNR retry timers and the
// classification of every acknowledgement (its properties are the module's own `ifdef FORMAL
// block, which also assumes what its neighbours guarantee). Bounded parameters: 2 QPs (one QP's
// timer runs out while an acknowledgement of the other arrives, and the scan is held by an
// expired QP while the other waits). Every input is free in every cycle: any acknowledgement
// (any QP number of the 8 bits, also out of range; any PSN; any syndrome, RNR timer codes 0..31
// and NAK codes included), any rnr_retry 0..7, microsecond ticks in any cycle, a clear of either
// QP in any cycle.
module nic_req_rnr_formal (
  input logic        clk_i,
  input logic        rst_i,
  input logic        us_tick_i,
  input logic        cmd_clear_i,
  input logic        cmd_qpn_i,
  input logic        ack_valid_i,
  input logic [7:0]  ack_qpn_i,
  input logic [23:0] ack_psn_i,
  input logic [7:0]  ack_syndrome_i,
  input logic [2:0]  ack_rnr_retry_i,
  input logic        rnr_start_i
);
  localparam int NumQps = 2;

  logic              ack_take, ack_q, ack_nak, ack_seq;
  logic [23:0]       ack_upto;
  logic [31:0]       ack_nak_status;
  logic [NumQps-1:0] rnr_wait;
  logic              scan, rnr_go;
  logic [23:0]       scan_psn;

  initial assume (rst_i);

  nic_req_rnr #(
    .NumQps(NumQps)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .us_tick_i       (us_tick_i),
    .cmd_clear_i     (cmd_clear_i),
    .cmd_qpn_i       (cmd_qpn_i),
    .ack_valid_i     (ack_valid_i),
    .ack_qpn_i       (ack_qpn_i),
    .ack_psn_i       (ack_psn_i),
    .ack_syndrome_i  (ack_syndrome_i),
    .ack_rnr_retry_i (ack_rnr_retry_i),
    .ack_take_o      (ack_take),
    .ack_q_o         (ack_q),
    .ack_nak_o       (ack_nak),
    .ack_seq_o       (ack_seq),
    .ack_upto_o      (ack_upto),
    .ack_nak_status_o(ack_nak_status),
    .wait_o          (rnr_wait),
    .scan_o          (scan),
    .rnr_go_o        (rnr_go),
    .scan_psn_o      (scan_psn),
    .rnr_start_i     (rnr_start_i)
  );
endmodule
