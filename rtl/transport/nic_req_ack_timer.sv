`default_nettype none
// nic_req_ack_timer: the requester's local ACK timer and retry budget per QP, and the go-back-N
// replays they order (docs/transport.md "Retransmission").
//
// Per QP, from QP_CONNECT: ack_timeout (IBA: the timer runs 4.096 us x 2^ack_timeout; 0 = no
// timer) and retry_count (retransmissions allowed without progress, 0..7). The module keeps the
// last PSN acknowledged and the last PSN of the newest WQE that went out (its outstanding entry's
// append), so "something is unacknowledged" is sent != acked. An acknowledgement (or a sequence
// NAK) may name any PSN up to the last one that can have gone out: while the intake still
// packetises a new WQE of the QP, the PSN it has reached (sending_*), since the responder may
// acknowledge or NAK a packet of a long message before the message's entry is appended.
//
// - The timer is armed when a WQE that went out is appended while it was not armed, restarted
//   by every acknowledgement that makes progress, and disarmed when everything sent is
//   acknowledged, when a NAK fails a request, or while the QP is not RTS. It counts us_tick_i
//   pulses (the platform's microsecond, as the RNR timer and the CQ moderation do): it expires
//   between P and P + 1 us after it was (re)started, P = ceil(4.096 us x 2^ack_timeout).
// - Progress (an acknowledgement beyond the last one) restores the retry budget.
// - A timeout, or a PSN-sequence NAK (seq_i: the responder's expected PSN, everything before it
//   acknowledged; one naming a PSN already acknowledged is stale and ignored), spends one retry and orders a replay: from the oldest PSN not acknowledged
//   (timeout) or the NAK's PSN. With no retry left, the oldest request not acknowledged fails
//   instead (fail_*: IO_TIMEOUT, the completer moves the QP to ERROR).
// - The replays wait in pend (one per QP, the latest PSN wins: a later order only lowers or keeps
//   the PSN, since everything before a NAK's PSN is acknowledged), and an acknowledgement that
//   makes progress while one waits moves its PSN past what it acknowledged (the completer pops
//   those entries before the walk reads the ring); go_o / go_qpn_o / go_psn_o
//   offer one of them (round robin) to the intake, start_i says it took it. While a replay is
//   pending the QP's new WQEs wait (pend_o), as they do for an RNR timer.
//
// The microsecond clock moves only while some QP is armed and the scan only in the NumQps cycles
// after a tick, so an idle requester, and one waiting for an ACK between ticks, stays at a fixed
// point (the simulation's quiescence skip relies on it, docs/sim-speed.md).
module nic_req_ack_timer #(
  parameter int NumQps = 16  // queue pairs, <= 256
) (
  input  logic                    clk_i,
  input  logic                    rst_i,
  input  logic                    us_tick_i,     // one-cycle pulse every microsecond
  input  logic [2*NumQps-1:0]     qp_state_i,
  // QP_CONNECT (its arguments) and QP_CREATE / QP_DESTROY
  input  logic                    cmd_connect_i,
  input  logic                    cmd_reset_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  input  logic [4:0]              cmd_ack_timeout_i,
  input  logic [2:0]              cmd_retry_count_i,
  input  logic [23:0]             cmd_sq_psn_i,
  // the acknowledgement as nic_req_rnr takes it (its QP, in range): classified, it arrives on
  // ack_* in the next cycle (nic_requester's acknowledgement stage); its QP's entries are read
  // for it now (the sn_* registers below)
  input  logic                    raw_take_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] raw_q_i,
  // the acknowledgement of this cycle, classified (nic_req_rnr, registered by nic_requester)
  input  logic                    ack_take_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ack_q_i,
  input  logic                    ack_nak_i,     // a NAK that fails a request
  input  logic                    ack_seq_i,     // a PSN-sequence NAK: go back to ack_upto_i + 1
  input  logic [23:0]             ack_upto_i,
  // an outstanding entry appended (pend: it went out; psn: its last PSN)
  input  logic                    append_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] append_qpn_i,
  input  logic                    append_pend_i,
  input  logic [23:0]             append_psn_i,
  // the intake's WQE in progress (its QP is append_qpn_i): the last PSN it may have sent, so
  // an acknowledgement inside a message not appended yet is taken, not dropped as stale
  input  logic                    sending_i,
  input  logic [23:0]             sending_psn_i,
  // the replays ordered
  output logic [NumQps-1:0]       pend_o,
  output logic                    go_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] go_qpn_o,
  output logic [23:0]             go_psn_o,
  input  logic                    start_i,       // the intake replays go_qpn_o from go_psn_o now
  // no retry left: the request holding fail_psn_o fails IO_TIMEOUT
  output logic                    fail_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] fail_qpn_o,
  output logic [23:0]             fail_psn_o,
  // events (port counters): a timer expired; a retry was spent (a replay ordered)
  output logic                    ev_timeout_o,
  output logic                    ev_retry_o
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;

  // ceil(4.096 us x 2^code) in microseconds (code 0: no timer)
  function automatic logic [35:0] ack_period_us(input logic [4:0] code);
    unique case (code)
      5'd1:  ack_period_us = 36'd9;
      5'd2:  ack_period_us = 36'd17;
      5'd3:  ack_period_us = 36'd33;
      5'd4:  ack_period_us = 36'd66;
      5'd5:  ack_period_us = 36'd132;
      5'd6:  ack_period_us = 36'd263;
      5'd7:  ack_period_us = 36'd525;
      5'd8:  ack_period_us = 36'd1049;
      5'd9:  ack_period_us = 36'd2098;
      5'd10: ack_period_us = 36'd4195;
      5'd11: ack_period_us = 36'd8389;
      5'd12: ack_period_us = 36'd16778;
      5'd13: ack_period_us = 36'd33555;
      5'd14: ack_period_us = 36'd67109;
      5'd15: ack_period_us = 36'd134218;
      5'd16: ack_period_us = 36'd268436;
      5'd17: ack_period_us = 36'd536871;
      5'd18: ack_period_us = 36'd1073742;
      5'd19: ack_period_us = 36'd2147484;
      5'd20: ack_period_us = 36'd4294968;
      5'd21: ack_period_us = 36'd8589935;
      5'd22: ack_period_us = 36'd17179870;
      5'd23: ack_period_us = 36'd34359739;
      5'd24: ack_period_us = 36'd68719477;
      5'd25: ack_period_us = 36'd137438954;
      5'd26: ack_period_us = 36'd274877907;
      5'd27: ack_period_us = 36'd549755814;
      5'd28: ack_period_us = 36'd1099511628;
      5'd29: ack_period_us = 36'd2199023256;
      5'd30: ack_period_us = 36'd4398046512;
      5'd31: ack_period_us = 36'd8796093023;
      default: ack_period_us = 36'd0;
    endcase
  endfunction

  // per QP (tables written at the QP an event names; meaningful after QP_CONNECT)
  logic [4:0]        tmo_q   [NumQps];   // ack_timeout
  logic [2:0]        rcnt_q  [NumQps];   // retry_count
  logic [2:0]        left_q  [NumQps];   // retries left
  logic [23:0]       acked_q [NumQps];   // last PSN acknowledged
  logic [23:0]       sent_q  [NumQps];   // last PSN of the newest WQE that went out
  logic [35:0]       start_q [NumQps];   // now_us at the timer's last (re)start
  logic [23:0]       pend_psn_q [NumQps];
  logic [NumQps-1:0] armed_q, armed_d;
  logic [NumQps-1:0] pend_q, pend_d;
  logic [35:0]       now_us_q, now_us_d;
  logic [QW-1:0]     scan_q, scan_d;
  logic [QW-1:0]     last_go_q, last_go_d;

  // the QPs that are RTS (only they keep a timer or a replay)
  logic [NumQps-1:0] qp_rts;
  always_comb begin
    for (int q = 0; q < NumQps; q++) begin
      qp_rts[q] = qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_RTS;
    end
  end

  // ---- the acknowledgement ------------------------------------------------------------------
  // The entries of the acknowledgement's QP (last PSN acknowledged and sent, retry count and
  // budget, whether it has a timer, the pending replay's PSN) are read in the cycle before it
  // arrives classified, at nic_req_rnr's QP (raw_q_i), and registered (sn_*), with the writes
  // of that cycle to that QP forwarded: they are what the tables hold in the acknowledgement's
  // cycle (a_snap_*). nic_requester's stage drops an acknowledgement whose QP a QP_CONNECT /
  // QP_CREATE / QP_DESTROY names in that cycle, so the command's writes need no forwarding. The
  // checks below then start from flip-flops, not from a multiplexer of every QP's entries
  // behind the acknowledgement's QP number.
  logic [23:0] sn_acked_q, sn_sent_q, sn_pend_psn_q;
  logic [2:0]  sn_rcnt_q, sn_left_q;
  logic        sn_tmo_q;     // the QP has a timer (ack_timeout != 0)
  logic        sn_rcnt_z_q, sn_left_z_q;   // sn_rcnt_q == 0, sn_left_q == 0
  // The last PSN an acknowledgement of the QP may name: that of its newest appended WQE, or,
  // while the intake is packetising a new WQE of the QP, the last PSN of that WQE planned so
  // far (its earlier packets may have been acknowledged, or NAKed, before it is appended).
  // (ack_hi_ok: the acknowledgement's PSN is not beyond it; both compares are made, and the
  // choice between them follows, rather than a compare behind the choice)
  logic ack_sending;   // the last PSN is the intake's, not the newest appended WQE's
  logic ack_hi_ok;
  assign ack_sending = sending_i && append_qpn_i == ack_q_i
                       && nic_roce_pkg::psn_le(sn_sent_q, sending_psn_i);
  assign ack_hi_ok   = ack_sending ? nic_roce_pkg::psn_le(ack_upto_i, sending_psn_i)
                                   : nic_roce_pkg::psn_le(ack_upto_i, sn_sent_q);

  logic ack_progress;   // beyond the last PSN acknowledged, not beyond what went out
  logic ack_all;        // ... and everything sent is acknowledged
  assign ack_progress = ack_take_i && !ack_nak_i
                        && ack_upto_i != sn_acked_q
                        && nic_roce_pkg::psn_le(sn_acked_q, ack_upto_i)
                        && ack_hi_ok;
  assign ack_all      = ack_progress && ack_upto_i == sn_sent_q;

  logic       seq_in;         // a sequence NAK whose PSN is outstanding (or the next to go):
                              // one naming an older PSN is stale, and ignored
  logic       seq_go;         // a sequence NAK orders a replay
  logic       seq_fail;       // ... with no retry left: fails instead
  logic [2:0] seq_left;       // the budget the NAK finds (restored by its own progress)
  assign seq_left = ack_progress ? sn_rcnt_q : sn_left_q;
  assign seq_in   = ack_take_i && ack_seq_i && !ack_nak_i && qp_rts[ack_q_i]
                    && nic_roce_pkg::psn_le(sn_acked_q, ack_upto_i)
                    && ack_hi_ok;
  logic       seq_none;       // seq_left == 0, from the snapshot's two counts
  assign seq_none = ack_progress ? sn_rcnt_z_q : sn_left_z_q;
  assign seq_go   = seq_in && !seq_none;
  assign seq_fail = seq_in && seq_none;

  // ---- the timers: one QP looked at a cycle while any is armed -------------------------------
  logic tmo_hit;              // the scanned QP's timer expired (not in a cycle its ACK comes)
  logic tmo_go, tmo_fail;
  // It expires when now_us reaches start + P + 1: now_us - (start + P + 1) is not negative
  // (modulo 2^36), written (now_us - start) + ~P. Only the scanned QP's expiry is computed,
  // from its start and its code: tmo_q of an armed QP cannot change (QP_CONNECT disarms it).
  // It is computed a cycle early, for the QP the scan moves to (scan_d), from the clock of the
  // next cycle (now_us_d) and the QP's start and code as they are now, and registered
  // (tmo_due_q; a_tmo_due_registered): the table reads, the period table and the two 36-bit
  // sums are then off the path of the timeout's decision. A start written in this cycle
  // (restart, at now_us_q) is not in it: such a QP cannot expire in the next cycle (P >= 9
  // ticks), tmo_restarted_q says so.
  logic [35:0] tmo_elapsed;   // now_us - start - P - 1 of the QP scanned next, in the next cycle
  logic        tmo_due_q, tmo_restarted_q;
  assign tmo_elapsed = (now_us_d - start_q[scan_d]) + ~ack_period_us(tmo_q[scan_d]);
  assign tmo_hit  = sweep_q != '0 && armed_q[scan_q] && tmo_due_q && !tmo_restarted_q
                    && !(ack_take_i && ack_q_i == scan_q);
  assign tmo_go   = tmo_hit && left_q[scan_q] != 3'd0;
  assign tmo_fail = tmo_hit && left_q[scan_q] == 3'd0;

  // A sweep of the QPs follows each microsecond tick (a timer can expire only at a tick): the
  // scan rests between sweeps, so a requester waiting for an ACK is at a fixed point between
  // ticks.
  logic [QW:0] sweep_q, sweep_d;     // QPs the sweep has still to look at
  always_comb begin
    scan_d  = scan_q;
    sweep_d = sweep_q;
    if (sweep_q != '0) begin
      scan_d  = (32'(scan_q) == NumQps - 1) ? '0 : scan_q + QW'(1);
      sweep_d = sweep_q - (QW+1)'(1);
    end
    if (us_tick_i && armed_q != '0) begin
      sweep_d = (QW+1)'(NumQps);
    end
  end

  // the clock runs only while some QP is armed (or one arms now)
  assign now_us_d = now_us_q + ((us_tick_i && armed_q != '0) ? 36'd1 : 36'd0);

  // ---- the replay offered to the intake -------------------------------------------------------
  logic          go_found;
  logic [QW-1:0] go_q;
  nic_rr_pick #(
    .N(NumQps)
  ) u_go_pick (
    .en_i   (1'b1),
    .req_i  (pend_q),
    .last_i (last_go_q),
    .found_o(go_found),
    .idx_o  (go_q)
  );
  assign go_o     = go_found;
  assign go_qpn_o = go_q;
  assign go_psn_o = pend_psn_q[go_q];
  assign pend_o   = pend_q;
  assign last_go_d = start_i ? go_q : last_go_q;

  // a failure: the sequence NAK's (its QP) before the timer's (the scanned QP), in one cycle at
  // most one is reported; a timer expiry that loses is seen again at the next pass of the scan
  logic tmo_fail_now;
  assign tmo_fail_now = tmo_fail && !seq_fail;
  assign fail_o       = seq_fail || tmo_fail_now;
  assign fail_qpn_o   = seq_fail ? ack_q_i : scan_q;
  assign fail_psn_o   = seq_fail ? ack_upto_i + 24'd1 : acked_q[scan_q] + 24'd1;
  assign ev_timeout_o = tmo_hit && !(tmo_fail && seq_fail);
  assign ev_retry_o   = seq_go || tmo_go;

  // ---- per-QP tables ----------------------------------------------------------------------------
  // The timer's (re)starts: arming by an append, progress, a timeout or sequence NAK that orders
  // a replay. Every one records the same value (now_us), so a QP's start costs an enable only.
  logic [NumQps-1:0] restart;
  always_comb begin
    restart = '0;
    if (append_i && append_pend_i && !armed_q[append_qpn_i]) begin
      restart[append_qpn_i] = 1'b1;
    end
    if (tmo_go) begin
      restart[scan_q] = 1'b1;
    end
    if (ack_progress) begin
      restart[ack_q_i] = 1'b1;
    end
    if (seq_go) begin
      restart[ack_q_i] = 1'b1;
    end
  end

  // The replay's PSN: a timeout's (the scanned QP: the oldest PSN not acknowledged), or the
  // ACK's QP's: a sequence NAK's, or, after progress while a replay is pending, the first PSN
  // after what is acknowledged now (the completer pops the entries this ACK covers, and a walk
  // from a PSN inside one of them would find its first WQE beginning after the replay's PSN,
  // and fail it INVALID_PARAMETER). Both writes of the ACK's QP write the same value, and a
  // timeout is never of the ACK's QP (tmo_hit), so a QP's entry takes one of two values.
  logic pend_psn_ack;   // the ACK's QP's replay PSN moves to ack_upto_i + 1
  assign pend_psn_ack = seq_go || (ack_progress && pend_q[ack_q_i]
                                   && nic_roce_pkg::psn_le(sn_pend_psn_q, ack_upto_i));

  always_ff @(posedge clk_i) begin
    for (int q = 0; q < NumQps; q++) begin
      if (restart[q]) begin
        start_q[q] <= now_us_q;
      end
    end
    if (tmo_go) begin
      pend_psn_q[scan_q] <= acked_q[scan_q] + 24'd1;
    end
    if (pend_psn_ack) begin
      pend_psn_q[ack_q_i] <= ack_upto_i + 24'd1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (append_i && append_pend_i) begin
      sent_q[append_qpn_i] <= append_psn_i;
    end
    if (tmo_go) begin
      left_q[scan_q]     <= left_q[scan_q] - 3'd1;
    end
    if (ack_progress) begin
      acked_q[ack_q_i] <= ack_upto_i;
      left_q[ack_q_i]  <= sn_rcnt_q;
    end
    if (seq_go) begin
      left_q[ack_q_i]     <= seq_left - 3'd1;
    end
    if (cmd_connect_i) begin
      tmo_q[cmd_qpn_i]   <= cmd_ack_timeout_i;
      rcnt_q[cmd_qpn_i]  <= cmd_retry_count_i;
      left_q[cmd_qpn_i]  <= cmd_retry_count_i;
      acked_q[cmd_qpn_i] <= cmd_sq_psn_i - 24'd1;
      sent_q[cmd_qpn_i]  <= cmd_sq_psn_i - 24'd1;
    end
  end

  always_comb begin
    armed_d = armed_q;
    pend_d  = pend_q;
    if (start_i) begin
      pend_d[go_q] = 1'b0;
    end
    if (append_i && append_pend_i && tmo_q[append_qpn_i] != 5'd0) begin
      armed_d[append_qpn_i] = 1'b1;
    end
    if (tmo_go) begin
      pend_d[scan_q] = 1'b1;
    end
    if (tmo_fail_now) begin
      armed_d[scan_q] = 1'b0;
    end
    if (ack_all || (ack_take_i && ack_nak_i) || seq_fail) begin
      armed_d[ack_q_i] = 1'b0;
    end
    if (seq_go) begin
      pend_d[ack_q_i]  = 1'b1;
      armed_d[ack_q_i] = sn_tmo_q;
    end
    if (ack_take_i && ack_nak_i) begin
      pend_d[ack_q_i] = 1'b0;
    end
    if (cmd_connect_i || cmd_reset_i) begin
      armed_d[cmd_qpn_i] = 1'b0;
      pend_d[cmd_qpn_i]  = 1'b0;
    end
    // a QP that left RTS (an error, a flush) keeps no timer and replays nothing
    armed_d = armed_d & qp_rts;
    pend_d  = pend_d & qp_rts;
  end

  always_ff @(posedge clk_i) begin
    tmo_due_q       <= (tmo_elapsed & 36'h8_0000_0000) == 36'd0;
    tmo_restarted_q <= restart[scan_d];
  end

  // the acknowledgement's entries for the next cycle (above): the table, or what this cycle
  // writes to the same QP (the later write wins, as in the tables' own order)
  logic        raw_is_ack, raw_is_scan;
  assign raw_is_ack  = ack_q_i == raw_q_i;
  assign raw_is_scan = scan_q == raw_q_i;
  always_ff @(posedge clk_i) begin
    if (raw_take_i) begin
      sn_acked_q <= (ack_progress && raw_is_ack) ? ack_upto_i : acked_q[raw_q_i];
      sn_sent_q  <= (append_i && append_pend_i && append_qpn_i == raw_q_i)
                    ? append_psn_i : sent_q[raw_q_i];
      sn_rcnt_q  <= rcnt_q[raw_q_i];
      sn_rcnt_z_q <= rcnt_q[raw_q_i] == 3'd0;
      sn_left_z_q <= ((seq_go && raw_is_ack) ? seq_left - 3'd1
                    : (ack_progress && raw_is_ack) ? sn_rcnt_q
                    : (tmo_go && raw_is_scan) ? left_q[scan_q] - 3'd1 : left_q[raw_q_i]) == 3'd0;
      sn_tmo_q   <= tmo_q[raw_q_i] != 5'd0;
      sn_left_q  <= (seq_go && raw_is_ack) ? seq_left - 3'd1
                  : (ack_progress && raw_is_ack) ? sn_rcnt_q
                  : (tmo_go && raw_is_scan) ? left_q[scan_q] - 3'd1 : left_q[raw_q_i];
      sn_pend_psn_q <= (pend_psn_ack && raw_is_ack) ? ack_upto_i + 24'd1
                     : (tmo_go && raw_is_scan) ? acked_q[scan_q] + 24'd1 : pend_psn_q[raw_q_i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      armed_q   <= '0;
      pend_q    <= '0;
      now_us_q  <= '0;
      scan_q    <= '0;
      sweep_q   <= '0;
      last_go_q <= '0;
    end else begin
      armed_q   <= armed_d;
      pend_q    <= pend_d;
      now_us_q  <= now_us_d;
      scan_q    <= scan_d;
      sweep_q   <= sweep_d;
      last_go_q <= last_go_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i && start_i) begin
      // the intake takes only a replay that is offered
      a_start_offered: assert (go_found);
    end
  end
`endif

`ifdef FORMAL
  // The values read a cycle early equal what they replace: checked by the simulation in every
  // cycle (it compiles the FORMAL blocks) and proven with the module's other properties (the
  // proof's harness assumes the acknowledgement stage: an acknowledgement of a QP was taken by
  // nic_req_rnr, raw_*, in the cycle before).
  always_ff @(posedge clk_i) begin
    // the expiry test made a cycle early is this cycle's, for an armed QP not restarted since
    if (!rst_i && armed_q[scan_q] && !tmo_restarted_q) begin
      a_tmo_due_registered: assert (tmo_due_q == ((((now_us_q - start_q[scan_q])
                                     + ~ack_period_us(tmo_q[scan_q])) & 36'h8_0000_0000) == 36'd0));
    end
    // the entries read a cycle early are the tables' in the acknowledgement's cycle (the timer's
    // code only as far as the snapshot keeps it)
    if (!rst_i && ack_take_i) begin
      a_snap_acked: assert (sn_acked_q == acked_q[ack_q_i] && sn_sent_q == sent_q[ack_q_i]);
      a_snap_retries: assert (sn_rcnt_q == rcnt_q[ack_q_i] && sn_left_q == left_q[ack_q_i]
                              && sn_rcnt_z_q == (sn_rcnt_q == 3'd0) && sn_left_z_q == (sn_left_q == 3'd0)
                              && sn_tmo_q == (tmo_q[ack_q_i] != 5'd0));
      if (pend_q[ack_q_i]) begin
        a_snap_pend_psn: assert (sn_pend_psn_q == pend_psn_q[ack_q_i]);
      end
    end
  end
`endif

`ifdef FORMAL
  // ---- formal properties (docs/verification.md) -------------------------------------------------
  // The retry / timeout state machine. Proven for all inputs by induction on
  // tests/formal/nic_req_ack_timer_formal.sv (2 QPs: tools/formal/formal.py); the simulation
  // compiles them too (Verilator +define+FORMAL), so every cycle of the suite checks them on the
  // full-size requester. Per QP, the states are: not connected; connected and idle (not armed);
  // armed (the timer runs); a replay pending (pend_q); failed (a NAK or no retry left: the QP
  // goes to ERROR, nothing of it is armed or replayed until it is connected again).
  //
  // The proof's own bookkeeping (shadows: written from the events the IBA names, never from the
  // tables they check): per QP, connected since QP_CONNECT, the retries spent since the last
  // progress (f_spent_q), and the microsecond of the timer's last (re)start with the code it
  // was (re)started with (f_start_q, f_tmo_q): the timer must expire P + 1 ticks after it,
  // P = ceil(4.096 us x 2^ack_timeout) of that code. The RTL keeps the start and computes the
  // expiry from it and tmo_q (tmo_hit); the shadows are in the same representation, so the
  // per-QP invariants are equalities bit for bit (an invariant in arithmetic form, such as
  // start + P + 1 == due, did not finish within 10 minutes in Yices), and the expiry test itself
  // is checked against start + P + 1 at the scanned QP in the cycle it is made
  // (f_timeout_when_due: arithmetic of one cycle, not an invariant; proven in seconds).
  logic [NumQps-1:0] f_conn_q, f_conn_d;
  logic [2:0]        f_spent_q [NumQps];
  logic [35:0]       f_start_q [NumQps];
  logic [4:0]        f_tmo_q [NumQps];
  logic [2:0]        f_spent_ack;        // the ACK's QP's spent retries after its own progress
  logic [2:0]        f_spent_scan;       // the scanned QP's
  logic [2:0]        f_rcnt_ack, f_rcnt_scan;
  assign f_spent_ack   = ack_progress ? 3'd0 : f_spent_q[ack_q_i];
  assign f_spent_scan  = f_spent_q[scan_q];
  assign f_rcnt_ack    = rcnt_q[ack_q_i];
  assign f_rcnt_scan   = rcnt_q[scan_q];

  always_comb begin
    f_conn_d = f_conn_q;
    if (cmd_connect_i) begin
      f_conn_d[cmd_qpn_i] = 1'b1;
    end
  end

  // The shadows' next values: a retry is spent by a timeout or a sequence NAK that orders a
  // replay, all are restored by progress (an ACK of a PSN not acknowledged before); the timer
  // (re)starts when a WQE goes out while it is not armed, and at every progress, timeout and
  // sequence NAK.
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      f_conn_q <= '0;
    end else begin
      f_conn_q <= f_conn_d;
    end
    if (append_i && append_pend_i && !armed_q[append_qpn_i]) begin
      f_start_q[append_qpn_i] <= now_us_q;
      f_tmo_q[append_qpn_i]   <= tmo_q[append_qpn_i];
    end
    if (tmo_go) begin
      f_spent_q[scan_q] <= f_spent_scan + 3'd1;
      f_start_q[scan_q] <= now_us_q;
      f_tmo_q[scan_q]   <= tmo_q[scan_q];
    end
    if (ack_progress) begin
      f_spent_q[ack_q_i] <= 3'd0;
      f_start_q[ack_q_i] <= now_us_q;
      f_tmo_q[ack_q_i]   <= tmo_q[ack_q_i];
    end
    if (seq_go) begin
      f_spent_q[ack_q_i] <= f_spent_ack + 3'd1;
      f_start_q[ack_q_i] <= now_us_q;
      f_tmo_q[ack_q_i]   <= tmo_q[ack_q_i];
    end
    if (cmd_connect_i) begin
      f_spent_q[cmd_qpn_i] <= 3'd0;
    end
  end

  // Per QP (unnamed: Yosys 0.23 gives a procedural assertion in a generate loop the same name
  // in every iteration; a failing one is reported by its source line).
  for (genvar q = 0; q < NumQps; q++) begin : gen_f_qp
    logic [2:0]  f_spent, f_left, f_rcnt;
    logic [4:0]  f_tmo, f_tmo_spec;
    logic [35:0] f_start, f_start_spec;
    assign f_spent = f_spent_q[q];
    assign f_left  = left_q[q];
    assign f_rcnt  = rcnt_q[q];
    assign f_tmo   = tmo_q[q];
    assign f_start = start_q[q];
    assign f_start_spec = f_start_q[q];
    assign f_tmo_spec   = f_tmo_q[q];
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        // Code 0 means no timer: a QP with ack_timeout 0 is never armed.
        assert (!armed_q[q] || f_tmo != 5'd0);
        // Only a connected QP has a timer or a replay (a QP_CONNECT starts both afresh).
        assert (!(armed_q[q] || pend_q[q]) || f_conn_q[q]);
        if (f_conn_q[q]) begin
          // Never more retries than retry_count without progress (none left: the next timeout
          // or sequence NAK fails instead); the budget left is exactly retry_count - spent.
          assert (f_spent <= f_rcnt);
          assert (f_left == f_rcnt - f_spent);
          // An armed timer expires P + 1 ticks after its last (re)start: it was restarted at
          // every event that restarts it (a WQE out while not armed, progress, a timeout or
          // sequence NAK that orders a replay), and it runs with the period of the code it was
          // (re)started with (tmo_hit reads tmo_q: no QP_CONNECT changed it since).
          if (armed_q[q]) begin
            assert (f_start == f_start_spec);
            assert (f_tmo == f_tmo_spec);
          end
        end
        cover (f_conn_q[q] && armed_q[q] && pend_q[q]);
        cover (f_conn_q[q] && f_spent != 3'd0 && f_spent == f_rcnt);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // What the neighbours guarantee (assumed by the proof, checked by the simulation): the
      // intake takes only a replay that is offered (a_start_offered below); nic_qp_ctx makes a
      // QP RTS only through a QP_CONNECT, which this module has seen.
      f_start_is_offered: assume (!start_i || go_found);
      f_rts_is_connected: assume ((qp_rts & ~f_conn_q) == '0);
      // A timeout only of an armed timer of a connected QP whose code is not 0 (when: the
      // per-QP invariant above, due = P + 1 ticks after the last restart).
      if (tmo_hit) begin
        f_no_early_timeout: assert (f_conn_q[scan_q] && tmo_q[scan_q] != 5'd0);
      end
      // The scanned armed timer expires exactly when now_us has reached its last (re)start
      // + P + 1 (modulo 2^36, as a signed difference), P of the code it was (re)started with.
      if (sweep_q != '0 && armed_q[scan_q] && !(ack_take_i && ack_q_i == scan_q)) begin
        f_timeout_when_due: assert (tmo_hit == (((now_us_q - (f_start_q[scan_q]
                                                  + ack_period_us(f_tmo_q[scan_q]) + 36'd1))
                                                 & 36'h8_0000_0000) == 36'd0));
      end
      // A retry is ordered only with one left; none left, the timeout or sequence NAK fails the
      // oldest request not acknowledged (IO_TIMEOUT) instead of replaying.
      if (seq_in && f_conn_q[ack_q_i]) begin
        f_seq_nak_spends_or_fails: assert (f_spent_ack < f_rcnt_ack ? (seq_go && ev_retry_o)
                                           : (fail_o && fail_qpn_o == ack_q_i
                                              && fail_psn_o == ack_upto_i + 24'd1));
      end
      if (tmo_hit && !seq_fail) begin
        f_timeout_spends_or_fails: assert (f_spent_scan < f_rcnt_scan ? (tmo_go && ev_retry_o)
                                           : (fail_o && fail_qpn_o == scan_q
                                              && fail_psn_o == acked_q[scan_q] + 24'd1));
      end
      if (fail_o) begin
        f_fail_only_when_spent: assert (f_conn_q[fail_qpn_o]
                                         && (seq_fail ? f_spent_ack == f_rcnt_ack
                                                      : f_spent_scan == f_rcnt_scan));
      end
      // Progress restores the budget and restarts the timer (checked a cycle later through the
      // invariants above: left = retry_count - spent, due = start + P + 1).
      c_armed: cover (armed_q != '0);
      c_timeout_retry: cover (tmo_go);
      c_timeout_fail: cover (tmo_fail_now);
      c_seq_nak_retry: cover (seq_go);
      c_seq_nak_fail: cover (seq_fail);
      c_progress_restores: cover (ack_progress && f_conn_q[ack_q_i] && f_spent_q[ack_q_i] != 3'd0);
      c_progress_while_pending: cover (ack_progress && pend_q[ack_q_i]);
      c_replay_started: cover (start_i);
      c_nak_disarms: cover (ack_take_i && ack_nak_i && armed_q[ack_q_i]);
      c_all_acked: cover (ack_all && armed_q[ack_q_i]);
      c_failed_idle: cover (f_conn_q[0] && !armed_q[0] && !pend_q[0] && f_spent_q[0] == rcnt_q[0]
                            && rcnt_q[0] != 3'd0);
    end
  end
`endif

endmodule
