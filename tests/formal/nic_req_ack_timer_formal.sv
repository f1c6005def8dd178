`default_nettype none
// nic_req_ack_timer_formal: the proof harness of nic_req_ack_timer, the requester's ACK timer
// and retry budget (its properties are the module's own `ifdef FORMAL block). Bounded
// parameters: 2 QPs (so a timeout of one QP and an acknowledgement of the other meet in one
// cycle). Every input is free in every cycle (any PSN, any acknowledgement kind, ticks in any
// cycle, any ack_timeout code and retry_count). What the module needs of its neighbours is
// assumed in its own FORMAL block, so the simulation checks it of the real ones: the intake
// takes only a replay that is offered, and a QP is RTS only after a QP_CONNECT (nic_qp_ctx).
module nic_req_ack_timer_formal (
  input logic        clk_i,
  input logic        rst_i,
  input logic        us_tick_i,
  input logic [3:0]  qp_state_i,
  input logic        cmd_connect_i,
  input logic        cmd_reset_i,
  input logic        cmd_qpn_i,
  input logic [4:0]  cmd_ack_timeout_i,
  input logic [2:0]  cmd_retry_count_i,
  input logic [23:0] cmd_sq_psn_i,
  input logic        raw_take_i,
  input logic        raw_q_i,
  input logic        ack_take_i,
  input logic        ack_q_i,
  input logic        ack_nak_i,
  input logic        ack_seq_i,
  input logic [23:0] ack_upto_i,
  input logic        append_i,
  input logic        append_qpn_i,
  input logic        append_pend_i,
  input logic [23:0] append_psn_i,
  input logic        sending_i,
  input logic [23:0] sending_psn_i,
  input logic        start_i
);
  localparam int NumQps = 2;

  logic [NumQps-1:0] pend;
  logic              go, fail, ev_timeout, ev_retry;
  logic              go_qpn, fail_qpn;
  logic [23:0]       go_psn, fail_psn;

  initial assume (rst_i);

  // nic_requester's acknowledgement stage: a classified acknowledgement (ack_*) comes the cycle
  // after nic_req_rnr took it (raw_*), unless a command of its QP came in that cycle
  logic f_raw_take_q, f_raw_q_q;
  always_ff @(posedge clk_i) begin
    f_raw_take_q <= !rst_i && raw_take_i && !((cmd_connect_i || cmd_reset_i) && cmd_qpn_i == raw_q_i);
    f_raw_q_q    <= raw_q_i;
  end
  always @(*) begin
    if (!rst_i && ack_take_i) begin
      assume (f_raw_take_q && f_raw_q_q == ack_q_i);
    end
  end

  nic_req_ack_timer #(
    .NumQps(NumQps)
  ) u_dut (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .us_tick_i        (us_tick_i),
    .qp_state_i       (qp_state_i),
    .cmd_connect_i    (cmd_connect_i),
    .cmd_reset_i      (cmd_reset_i),
    .cmd_qpn_i        (cmd_qpn_i),
    .cmd_ack_timeout_i(cmd_ack_timeout_i),
    .cmd_retry_count_i(cmd_retry_count_i),
    .cmd_sq_psn_i     (cmd_sq_psn_i),
    .raw_take_i       (raw_take_i),
    .raw_q_i          (raw_q_i),
    .ack_take_i       (ack_take_i),
    .ack_q_i          (ack_q_i),
    .ack_nak_i        (ack_nak_i),
    .ack_seq_i        (ack_seq_i),
    .ack_upto_i       (ack_upto_i),
    .append_i         (append_i),
    .append_qpn_i     (append_qpn_i),
    .append_pend_i    (append_pend_i),
    .append_psn_i     (append_psn_i),
    .sending_i        (sending_i),
    .sending_psn_i    (sending_psn_i),
    .pend_o           (pend),
    .go_o             (go),
    .go_qpn_o         (go_qpn),
    .go_psn_o         (go_psn),
    .start_i          (start_i),
    .fail_o           (fail),
    .fail_qpn_o       (fail_qpn),
    .fail_psn_o       (fail_psn),
    .ev_timeout_o     (ev_timeout),
    .ev_retry_o       (ev_retry)
  );
endmodule
