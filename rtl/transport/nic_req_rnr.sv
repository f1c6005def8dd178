`default_nettype none
// nic_req_rnr: the requester's RNR retry timers (docs/transport.md "RNR retries"), and the
// classification of every acknowledgement from nic_roce_rx, which depends on them.
//
// An acknowledgement of this cycle (ack_*_i) is, by kind: an ACK (everything up to its PSN); a
// PSN-sequence NAK (up to the PSN before; a go-back-N replay from it, ack_seq_o); another NAK
// (up to the PSN before; that one failed, with ack_nak_status_o); an RNR NAK (up to the PSN
// before; that one is sent again after the NAK's timer, rnr_retry times (the QP's QP_CONNECT
// argument, read at the acknowledgement's QP; 7 = forever, as the IBA says), then the next RNR
// NAK of it is a NAK that fails the Send with IO_TIMEOUT); a PSN-sequence NAK of the PSN of the QP's
// open RNR episode (a packet the responder dropped behind the RNR NAK: up to the PSN before, the
// replay covers it). An RNR NAK arms the QP's timer (its code, counted in us_tick_i pulses);
// the episode stays open until an ACK covers its PSN; such an ACK while the timer runs moves the
// replay's PSN past what it covers.
//
// The timers are looked at one QP a cycle (scan_o): rnr_go_o says that QP's timer expired; the
// scan stays on it until the intake starts its replay (rnr_start_i). The microsecond clock and
// the scan move only while some QP waits, so an idle requester stays at a fixed point (the
// simulation's quiescence skip relies on it, docs/sim-speed.md).
module nic_req_rnr #(
  parameter int NumQps = 16  // queue pairs, <= 256
) (
  input  logic                    clk_i,
  input  logic                    rst_i,
  input  logic                    us_tick_i,     // one-cycle pulse every microsecond
  input  logic                    cmd_clear_i,   // QP_CONNECT / QP_CREATE / QP_DESTROY
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  // the acknowledgement of this cycle (nic_roce_rx, through nic_responder)
  input  logic                    ack_valid_i,
  input  logic [7:0]              ack_qpn_i,
  input  logic [23:0]             ack_psn_i,
  input  logic [7:0]              ack_syndrome_i,
  input  logic [2:0]              ack_rnr_retry_i, // the QP's rnr_retry (nic_tp_qp_ctx at ack_q_o)
  // ... classified
  output logic                    ack_take_o,      // for one of this side's QPs
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ack_q_o,
  output logic                    ack_nak_o,       // a NAK that fails the PSN
  output logic                    ack_seq_o,       // a PSN-sequence NAK: go back to its PSN
  output logic [23:0]             ack_upto_o,      // the PSN acknowledged
  output logic [31:0]             ack_nak_status_o,
  // the QPs waiting for their timer (their new WQEs wait too)
  output logic [NumQps-1:0]       wait_o,
  // the scan: the QP looked at, whether its timer expired, the PSN its replay starts at
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] scan_o,
  output logic                    rnr_go_o,
  output logic [23:0]             scan_psn_o,
  input  logic                    rnr_start_i      // the intake replays QP scan_o from now
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;

  // IBA RNR timer codes (AETH bits [4:0]) in microseconds: code 0 is the longest, 655.36 ms
  function automatic logic [19:0] rnr_wait_us(input logic [4:0] code);
    unique case (code)
      5'd0:  rnr_wait_us = 20'd655360;
      5'd1:  rnr_wait_us = 20'd10;
      5'd2:  rnr_wait_us = 20'd20;
      5'd3:  rnr_wait_us = 20'd30;
      5'd4:  rnr_wait_us = 20'd40;
      5'd5:  rnr_wait_us = 20'd60;
      5'd6:  rnr_wait_us = 20'd80;
      5'd7:  rnr_wait_us = 20'd120;
      5'd8:  rnr_wait_us = 20'd160;
      5'd9:  rnr_wait_us = 20'd240;
      5'd10: rnr_wait_us = 20'd320;
      5'd11: rnr_wait_us = 20'd480;
      5'd12: rnr_wait_us = 20'd640;
      5'd13: rnr_wait_us = 20'd960;
      5'd14: rnr_wait_us = 20'd1280;
      5'd15: rnr_wait_us = 20'd1920;
      5'd16: rnr_wait_us = 20'd2560;
      5'd17: rnr_wait_us = 20'd3840;
      5'd18: rnr_wait_us = 20'd5120;
      5'd19: rnr_wait_us = 20'd7680;
      5'd20: rnr_wait_us = 20'd10240;
      5'd21: rnr_wait_us = 20'd15360;
      5'd22: rnr_wait_us = 20'd20480;
      5'd23: rnr_wait_us = 20'd30720;
      5'd24: rnr_wait_us = 20'd40960;
      5'd25: rnr_wait_us = 20'd61440;
      5'd26: rnr_wait_us = 20'd81920;
      5'd27: rnr_wait_us = 20'd122880;
      5'd28: rnr_wait_us = 20'd163840;
      5'd29: rnr_wait_us = 20'd245760;
      5'd30: rnr_wait_us = 20'd327680;
      default: rnr_wait_us = 20'd491520;
    endcase
  endfunction

  // RNR: a NAK arms the QP's timer (rnr_wait, rnr_due in microseconds of now_us); until an ACK
  // covers rnr_psn (rnr_open) a PSN-sequence NAK naming it is ignored. rnr_cnt counts the
  // retries of rnr_psn.
  logic [23:0]       now_us_q, now_us_d;
  logic [NumQps-1:0] rnr_wait_q, rnr_wait_d;
  logic [NumQps-1:0] rnr_open_q, rnr_open_d;
  logic [23:0]       rnr_psn_q  [NumQps];       // meaningful where rnr_open or rnr_wait
  logic [2:0]        rnr_cnt_q  [NumQps];
  logic [23:0]       rnr_due_q  [NumQps];
  logic              rnr_arm;                   // an RNR NAK schedules a retry this cycle
  logic [QW-1:0]     scan_q, scan_d;

  logic [2:0]    ack_kind;
  logic [QW-1:0] ack_q;
  logic          ack_rnr_same;   // the NAK names the PSN of the QP's open RNR episode
  logic          ack_take, ack_ack, ack_rnr, ack_nak;
  logic [2:0]    rnr_done;       // the retries of this NAK's PSN already made
  logic          rnr_spent;      // ... and rnr_retry allows no more
  assign ack_kind     = ack_syndrome_i[7:5];
  assign ack_q        = ack_qpn_i[QW-1:0];
  assign ack_rnr_same = rnr_open_q[ack_q] && rnr_psn_q[ack_q] == ack_psn_i;

  always_comb begin
    ack_take = ack_valid_i && 32'(ack_qpn_i) < NumQps;
    ack_ack  = ack_kind == 3'b000;
    rnr_done  = ack_rnr_same ? rnr_cnt_q[ack_q] : 3'd0;
    rnr_spent = ack_rnr_retry_i != 3'd7 && rnr_done >= ack_rnr_retry_i;
    ack_rnr   = ack_kind == 3'b001 && !rnr_spent;
    // a PSN-sequence NAK fails nothing: outside an RNR episode it orders a go-back-N replay
    // from its PSN (nic_req_ack_timer), inside one the RNR replay covers it
    ack_seq_o = ack_syndrome_i == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR && !ack_rnr_same;
    ack_nak  = !ack_ack && !ack_rnr && ack_syndrome_i != nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
    ack_upto_o = ack_ack ? ack_psn_i : ack_psn_i - 24'd1;
    ack_nak_status_o =
        (ack_kind == 3'b001) ? nic_pkg::STATUS_IO_TIMEOUT
      : (ack_syndrome_i == nic_roce_pkg::AETH_NAK_REMOTE_ACCESS) ? nic_pkg::STATUS_ACCESS_VIOLATION
      : nic_pkg::STATUS_REMOTE_ERROR;
    rnr_arm  = ack_take && ack_rnr;
  end
  assign ack_take_o = ack_take;
  assign ack_q_o    = ack_q;
  assign ack_nak_o  = ack_nak;
  assign wait_o     = rnr_wait_q;
  assign scan_o     = scan_q;
  assign scan_psn_o = rnr_psn_q[scan_q];

  // the clock runs only while some QP waits (or one starts to): due times are relative to it,
  // and a tick that finds no waiting QP then changes no state
  assign now_us_d = now_us_q + ((us_tick_i && (rnr_wait_q != '0 || rnr_arm)) ? 24'd1 : 24'd0);

  // one QP looked at a cycle while any waits; the scan stays on an expired one until it replays
  logic [23:0] scan_due;
  always_comb begin
    scan_due = rnr_due_q[scan_q];
    rnr_go_o = rnr_wait_q[scan_q] && ((now_us_q - scan_due) & 24'h800000) == 24'd0;
    scan_d   = scan_q;
    if (!rnr_go_o && rnr_wait_q != '0) begin
      scan_d = (32'(scan_q) == NumQps - 1) ? '0 : scan_q + QW'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (rnr_arm) begin
      // one microsecond more than the code: the first tick may come at once
      rnr_due_q[ack_q] <= now_us_q + 24'(rnr_wait_us(ack_syndrome_i[4:0])) + 24'd1;
    end
    if (ack_take && ack_kind == 3'b001) begin
      rnr_psn_q[ack_q] <= ack_psn_i;
    end else if (ack_take && ack_ack && rnr_wait_q[ack_q]
                 && nic_roce_pkg::psn_le(rnr_psn_q[ack_q], ack_psn_i)) begin
      // an ACK covers the PSN the timer's replay would start at (another replay of it, a
      // go-back-N after an ACK timeout, got through meanwhile): the replay starts after what
      // the ACK covers, as a pending go-back-N does (nic_req_ack_timer). From the old PSN the
      // walk found its first WQE already popped by the completer and failed the next one
      // INVALID_PARAMETER (found by the requester's module bench).
      rnr_psn_q[ack_q] <= ack_psn_i + 24'd1;
    end
    if (ack_take && ack_rnr) begin
      // saturates: with rnr_retry 7 the retries go on for ever
      rnr_cnt_q[ack_q] <= (rnr_done == 3'd7) ? 3'd7 : rnr_done + 3'd1;
    end
  end

  always_comb begin
    rnr_wait_d = rnr_wait_q;
    rnr_open_d = rnr_open_q;
    if (rnr_start_i) begin
      rnr_wait_d[scan_q] = 1'b0;
    end
    if (ack_take) begin
      if (ack_ack && rnr_open_q[ack_q] && nic_roce_pkg::psn_le(rnr_psn_q[ack_q], ack_psn_i)) begin
        rnr_open_d[ack_q] = 1'b0;      // the retried message got through
      end
      if (ack_rnr) begin
        rnr_wait_d[ack_q] = 1'b1;
      end
      if (ack_kind == 3'b001) begin
        // also the RNR NAK that fails the Send: the PSN-sequence NAKs of the packets the
        // responder drops behind it must not fail it a second time (rnr_retry 0 has no episode
        // open before it)
        rnr_open_d[ack_q] = 1'b1;
      end
    end
    if (cmd_clear_i) begin
      rnr_wait_d[cmd_qpn_i] = 1'b0;
      rnr_open_d[cmd_qpn_i] = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      now_us_q   <= '0;
      rnr_wait_q <= '0;
      rnr_open_q <= '0;
      scan_q     <= '0;
    end else begin
      now_us_q   <= now_us_d;
      rnr_wait_q <= rnr_wait_d;
      rnr_open_q <= rnr_open_d;
      scan_q     <= scan_d;
    end
  end

endmodule
