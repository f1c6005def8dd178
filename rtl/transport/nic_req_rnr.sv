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

  // the clock runs only while some QP waits: due times are relative to it, and a tick that
  // finds no waiting QP changes no state. A QP armed now does not run it: its due time is
  // written in the next cycle, relative to the clock then, with the tick of the NAK's cycle
  // taken off there (arm_tick_q) whether the clock counted that tick or not.
  assign now_us_d = now_us_q + ((us_tick_i && rnr_wait_q != '0) ? 24'd1 : 24'd0);

  // The due time of a timer armed now is written in the next cycle (arm_*_q): its write enable
  // is the classification's (the QP's rnr_retry, the episode's PSN compare), and the sum behind
  // it added a carry chain to that path. The due time is now_us_q then + the code's wait + 1 -
  // the tick of the NAK's cycle (counted in now_us_q if another QP waited, else not: either way
  // the pulses still to come are the wait + 1 - that tick). In the
  // cycle it is written the QP's entry still holds an older time: the scan does not expire the
  // QP then (its wait is at least 10 us: it cannot be due).
  logic          arm_q;
  logic [QW-1:0] arm_qpn_q;
  logic [4:0]    arm_code_q;
  logic          arm_tick_q;
  logic          arm_scan;       // the scanned QP's due time is written this cycle
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      arm_q <= 1'b0;
    end else begin
      arm_q <= rnr_arm;
    end
    if (ack_take && ack_kind == 3'b001) begin
      arm_qpn_q  <= ack_q;
      arm_code_q <= ack_syndrome_i[4:0];
      arm_tick_q <= us_tick_i;
    end
  end
  assign arm_scan = arm_q && arm_qpn_q == scan_q;

  // one QP looked at a cycle while any waits; the scan stays on an expired one until it replays
  logic [23:0] scan_due;
  always_comb begin
    scan_due = rnr_due_q[scan_q];
    rnr_go_o = rnr_wait_q[scan_q] && ((now_us_q - scan_due) & 24'h800000) == 24'd0;
    if (arm_scan) begin
      rnr_go_o = 1'b0;
    end
    scan_d   = scan_q;
    if (!rnr_go_o && rnr_wait_q != '0) begin
      scan_d = (32'(scan_q) == NumQps - 1) ? '0 : scan_q + QW'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (arm_q) begin
      // one microsecond more than the code: the first tick may come at once (in the NAK's
      // cycle: arm_tick_q, already in now_us_q)
      rnr_due_q[arm_qpn_q] <= now_us_q + 24'(rnr_wait_us(arm_code_q)) + (arm_tick_q ? 24'd0 : 24'd1);
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

`ifdef FORMAL
  // ---- formal properties (docs/verification.md) -------------------------------------------------
  // The RNR timers and the classification. Proven for all inputs by induction on
  // tests/formal/nic_req_rnr_formal.sv (2 QPs: tools/formal/formal.py); the simulation compiles
  // them too (Verilator +define+FORMAL), so every cycle of the suite checks them on the full-size
  // requester, assumptions included. Per QP the states are: at rest; an RNR episode open (an RNR
  // NAK of PSN p came, no ACK has covered p since); the timer armed (wait_o: an RNR NAK granted a
  // retry; until the replay starts); expired (armed, its time run out: offered on rnr_go_o); the
  // budget spent (the RNR NAK that fails the Send: the episode stays open, nothing is armed).
  //
  // The proof's own bookkeeping (shadows: written from the events docs/transport.md "RNR
  // retries" names, never from the RTL's tables): per QP the episode (open, its PSN, the
  // retries of it granted, 7 meaning 7 or more), the timer (armed, the PSN its replay starts
  // at, the us_tick pulses still to come before it may expire, counted from the NAK's own
  // cycle, and the pulses since it ran out) and the QP's rnr_retry as its RNR NAKs carried it.
  localparam int FRemW  = 20;   // > the longest wait + 1 (code 0: 655361 us)
  localparam int FLateW = 23;   // the pulses since expiry, saturating: up to 2^23 - 1 (8.4 s)

  logic              f_take;           // an acknowledgement of one of this side's QPs
  logic [QW-1:0]     f_aq;
  logic [2:0]        f_kind;
  logic              f_ack;            // ... an ACK
  logic              f_rnr;            // ... an RNR NAK
  logic              f_seqnak;         // ... a PSN-sequence NAK
  assign f_take   = ack_valid_i && 32'(ack_qpn_i) < NumQps;
  assign f_aq     = ack_qpn_i[QW-1:0];
  assign f_kind   = ack_syndrome_i[7:5];
  assign f_ack    = f_take && f_kind == 3'b000;
  assign f_rnr    = f_take && f_kind == 3'b001;
  assign f_seqnak = f_take && ack_syndrome_i == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;

  logic [NumQps-1:0] f_armed_q, f_armed_d;   // the timer armed
  logic [NumQps-1:0] f_open_q, f_open_d;     // an RNR episode open
  logic [NumQps-1:0] f_rrv_q, f_rrv_d;       // an RNR NAK of the QP came since its last clear
  logic [23:0]       f_epsn_q [NumQps];      // the episode's PSN
  logic [2:0]        f_cnt_q  [NumQps];      // the retries of it granted (saturating at 7)
  logic [2:0]        f_rr_q   [NumQps];      // the QP's rnr_retry, as its RNR NAKs carried it
  logic [23:0]       f_rpsn_q [NumQps];      // the PSN the timer's replay starts at
  logic [FRemW*NumQps-1:0]  f_rem_w;         // per QP: pulses still to come before expiry
  logic [FLateW*NumQps-1:0] f_late_w;        // per QP: pulses since it ran out

  // this cycle's acknowledgement, per the shadows: the PSN of the QP's open episode; the retries
  // of it granted so far (an RNR NAK of another PSN starts its own count); a retry granted:
  // rnr_retry 7 is for ever, 0..6 allow that many
  logic       f_in_ep;
  logic [2:0] f_before;
  logic       f_grant;
  assign f_in_ep  = f_open_q[f_aq] && f_epsn_q[f_aq] == ack_psn_i;
  assign f_before = f_in_ep ? f_cnt_q[f_aq] : 3'd0;
  assign f_grant  = ack_rnr_retry_i == 3'd7 || f_before < ack_rnr_retry_i;

  always_comb begin
    f_armed_d = f_armed_q;
    f_open_d  = f_open_q;
    f_rrv_d   = f_rrv_q;
    if (rnr_start_i) begin
      f_armed_d[scan_o] = 1'b0;          // the replay of the QP offered starts
    end
    if (f_ack && f_open_q[f_aq] && nic_roce_pkg::psn_le(f_epsn_q[f_aq], ack_psn_i)) begin
      f_open_d[f_aq] = 1'b0;             // an ACK covers the episode's PSN
    end
    if (f_rnr) begin
      f_open_d[f_aq] = 1'b1;             // also the RNR NAK that fails (no retry granted)
      f_rrv_d[f_aq]  = 1'b1;
      if (f_grant) begin
        f_armed_d[f_aq] = 1'b1;
      end
    end
    if (cmd_clear_i) begin
      f_armed_d[cmd_qpn_i] = 1'b0;
      f_open_d[cmd_qpn_i]  = 1'b0;
      f_rrv_d[cmd_qpn_i]   = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      f_armed_q <= '0;
      f_open_q  <= '0;
      f_rrv_q   <= '0;
    end else begin
      f_armed_q <= f_armed_d;
      f_open_q  <= f_open_d;
      f_rrv_q   <= f_rrv_d;
    end
    if (f_rnr) begin
      f_epsn_q[f_aq] <= ack_psn_i;
      f_rr_q[f_aq]   <= ack_rnr_retry_i;
      f_cnt_q[f_aq]  <= !f_grant ? f_before : (f_before == 3'd7) ? 3'd7 : f_before + 3'd1;
    end
    if (f_rnr && f_grant) begin
      f_rpsn_q[f_aq] <= ack_psn_i;
    end else if (f_ack && f_armed_q[f_aq] && nic_roce_pkg::psn_le(f_rpsn_q[f_aq], ack_psn_i)) begin
      f_rpsn_q[f_aq] <= ack_psn_i + 24'd1;   // the replay starts after what the ACK covers
    end
  end

  // the time: the code's wait plus one pulse, the pulse of the NAK's own cycle counted (it may
  // come at once); then every pulse counts down, and after expiry counts the lateness
  for (genvar q = 0; q < NumQps; q++) begin : gen_f_tm
    logic [FRemW-1:0]  f_rem_q;
    logic [FLateW-1:0] f_late_q;
    always_ff @(posedge clk_i) begin
      if (f_rnr && f_grant && f_aq == QW'(q)) begin
        f_rem_q  <= FRemW'(rnr_wait_us(ack_syndrome_i[4:0])) + FRemW'(1) - FRemW'(us_tick_i);
        f_late_q <= '0;
      end else if (us_tick_i && f_armed_q[q]) begin
        // counted only while armed (the only time they are read): a counter running in an
        // idle NIC would change its state every microsecond and defeat the simulation's
        // quiescence skip (docs/sim-speed.md)
        if (f_rem_q != '0) begin
          f_rem_q <= f_rem_q - FRemW'(1);
        end else if (f_late_q != '1) begin
          f_late_q <= f_late_q + FLateW'(1);
        end
      end
    end
    assign f_rem_w[FRemW*q +: FRemW]    = f_rem_q;
    assign f_late_w[FLateW*q +: FLateW] = f_late_q;

    // Per QP (unnamed: Yosys 0.23 gives a procedural assertion in a generate loop the same name
    // in every iteration; a failing one is reported by its source line).
    logic [23:0] f_psn, f_due, f_epsn, f_rpsn;
    logic [2:0]  f_cnt, f_rr, f_fcnt;
    assign f_psn  = rnr_psn_q[q];
    // (the due time as written at the end of this cycle where arm_q writes it: the scan does
    // not expire the QP in that cycle, arm_scan)
    assign f_due  = (arm_q && arm_qpn_q == QW'(q))
                    ? now_us_q + 24'(rnr_wait_us(arm_code_q)) + (arm_tick_q ? 24'd0 : 24'd1)
                    : rnr_due_q[q];
    assign f_cnt  = rnr_cnt_q[q];
    assign f_epsn = f_epsn_q[q];
    assign f_rpsn = f_rpsn_q[q];
    assign f_fcnt = f_cnt_q[q];
    assign f_rr   = f_rr_q[q];
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        // A QP waits (wait_o) exactly while its timer is armed: from an RNR NAK that grants a
        // retry until its replay starts or the QP is cleared (QP_CONNECT / QP_CREATE /
        // QP_DESTROY); a NAK that fails leaves a running timer alone (the intake's walk ends at
        // once for a QP that left RTS).
        assert (rnr_wait_q[q] == f_armed_q[q]);
        // An episode is open from an RNR NAK until an ACK covers its PSN or a clear.
        assert (rnr_open_q[q] == f_open_q[q]);
        if (f_open_q[q]) begin
          // ... its PSN and the retries of it granted (none granted: only with rnr_retry 0)
          assert (f_psn == f_epsn && f_rrv_q[q]);
          assert (f_fcnt != 3'd0 || f_rr == 3'd0);
          assert (f_fcnt == 3'd0 || f_cnt == f_fcnt);
        end
        if (f_armed_q[q]) begin
          // ... the replay's PSN: the NAK's, moved past what ACKs cover since
          assert (f_psn == f_rpsn && f_rrv_q[q] && f_rr != 3'd0);
          // ... and the time: due - now is the pulses still to come, now - due the lateness
          if (f_rem_q != '0) begin
            assert (f_due - now_us_q == 24'(f_rem_q) && f_late_q == '0);
          end else if (f_late_q != '1) begin
            assert (now_us_q - f_due == 24'(f_late_q));
          end
        end
        cover (f_armed_q[q] && rnr_go_o && scan_o == QW'(q));
        cover (f_armed_q[q] && !f_open_q[q]);  // an ACK closed the episode while the timer runs
      end
    end
  end

  logic [FRemW-1:0]  f_rem_scan;
  logic [FLateW-1:0] f_late_scan;
  logic [23:0]       f_rpsn_scan;
  logic [2:0]        f_rr_ack;
  logic [QW-1:0]     f_scan_next;
  assign f_rem_scan  = f_rem_w[FRemW*32'(scan_o) +: FRemW];
  assign f_late_scan = f_late_w[FLateW*32'(scan_o) +: FLateW];
  assign f_rpsn_scan = f_rpsn_q[scan_o];
  assign f_rr_ack    = f_rr_q[f_aq];
  assign f_scan_next = (32'(scan_o) == NumQps - 1) ? '0 : scan_o + QW'(1);

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // What the neighbours guarantee (assumed by the proof, checked by the simulation): the
      // intake starts only the replay offered (nic_requester: rnr_start = rp_start && rnr_go);
      // a QP's rnr_retry changes only at QP_CONNECT, which clears it here (nic_tp_qp_ctx).
      f_start_is_offered: assume (!rnr_start_i || rnr_go_o);
      if (f_rnr && f_rrv_q[f_aq]) begin
        f_rnr_retry_fixed: assume (ack_rnr_retry_i == f_rr_ack);
      end
      // The classification of an acknowledgement of one of this side's QPs (none of another),
      // against the reference: an ACK acknowledges up to its PSN and fails nothing; every NAK
      // acknowledges up to the PSN before; an RNR NAK fails the PSN only when its retries are
      // spent; a PSN-sequence NAK fails nothing: it orders a go-back-N (ack_seq_o) unless it
      // names the PSN of the QP's open RNR episode (a packet dropped behind the RNR NAK); any
      // other NAK fails the PSN. Never both a failure and a go-back-N.
      f_take_in_range: assert (ack_take_o == f_take && (!f_take || ack_q_o == f_aq));
      if (f_take) begin
        f_ack_upto: assert (ack_upto_o == ((f_kind == 3'b000) ? ack_psn_i : ack_psn_i - 24'd1));
        f_nak_or_seq: assert (!(ack_nak_o && ack_seq_o));
        f_ack_classified: assert (
            (f_kind == 3'b000) ? (!ack_nak_o && !ack_seq_o)
          : (f_kind == 3'b001) ? !ack_seq_o
          : f_seqnak         ? (!ack_nak_o && ack_seq_o == !f_in_ep)
          :                    (ack_nak_o && !ack_seq_o));
        // The retry budget: rnr_retry retries of one episode's PSN (7: for ever), the next RNR
        // NAK of it fails the Send
        if (f_rnr) begin
          f_rnr_budget: assert (ack_nak_o == !f_grant);
        end
        // ... with IO_TIMEOUT; a NAK "remote access error" ACCESS_VIOLATION, any other
        // REMOTE_ERROR
        if (ack_nak_o) begin
          f_nak_status: assert (ack_nak_status_o ==
              ((f_kind == 3'b001) ? nic_pkg::STATUS_IO_TIMEOUT
             : (ack_syndrome_i == nic_roce_pkg::AETH_NAK_REMOTE_ACCESS) ? nic_pkg::STATUS_ACCESS_VIOLATION
             : nic_pkg::STATUS_REMOTE_ERROR));
        end
      end
      // The expiry: a replay is offered only for a QP whose timer is armed and has run out
      // (never before the code's wait + 1 pulses, the NAK's own cycle's counted, so at least
      // the code's time after the NAK), and it is offered whenever the scan looks at an armed
      // QP that has run out (up to 2^23 - 1 us late), from the NAK's PSN moved past what ACKs
      // covered since.
      if (rnr_go_o) begin
        f_go_not_early: assert (f_armed_q[scan_o] && f_rem_scan == '0);
        f_replay_psn: assert (scan_psn_o == f_rpsn_scan);
      end
      if (f_armed_q[scan_o] && f_rem_scan == '0 && f_late_scan != '1) begin
        f_go_when_due: assert (rnr_go_o);
      end
      // The scan: one QP a cycle while any waits; it stays on an expired one until its replay
      // starts (including that cycle); at rest while none waits.
      f_scan_moves: assert (scan_d == ((rnr_go_o || f_armed_q == '0) ? scan_o : f_scan_next));
      // The microsecond clock moves only while a QP waits (an idle requester is at a fixed
      // point, docs/sim-speed.md).
      if (f_armed_q == '0) begin
        f_idle_at_rest: assert (now_us_d == now_us_q);
      end
      c_armed: cover (rnr_wait_q != '0);
      c_both_armed: cover (rnr_wait_q == '1);
      c_expired: cover (rnr_go_o);
      c_expired_late: cover (rnr_go_o && f_late_scan != '0);
      c_replay_started: cover (rnr_start_i);
      c_rearmed_in_its_start: cover (rnr_start_i && f_rnr && f_grant && f_aq == scan_o);
      c_rearmed_while_waiting: cover (f_rnr && f_grant && f_armed_q[f_aq]);
      c_budget_spent: cover (f_rnr && !f_grant && f_before != 3'd0);
      c_budget_spent_at_once: cover (f_rnr && !f_grant && ack_rnr_retry_i == 3'd0);
      c_forever: cover (f_rnr && f_grant && ack_rnr_retry_i == 3'd7 && f_before == 3'd7);
      c_seq_nak_in_episode: cover (f_seqnak && f_in_ep);
      c_seq_nak_after_episode: cover (f_seqnak && !f_in_ep && f_rrv_q[f_aq]);
      c_episode_closed: cover (f_ack && f_open_q[f_aq]
                               && nic_roce_pkg::psn_le(f_epsn_q[f_aq], ack_psn_i));
      c_replay_moved: cover (f_ack && f_armed_q[f_aq]
                             && nic_roce_pkg::psn_le(f_rpsn_q[f_aq], ack_psn_i));
      c_cleared: cover (cmd_clear_i && f_armed_q[cmd_qpn_i] && f_open_q[cmd_qpn_i]);
      c_out_of_range: cover (ack_valid_i && !ack_take_o && ack_syndrome_i[7:5] == 3'b001);
    end
  end
`endif

endmodule
