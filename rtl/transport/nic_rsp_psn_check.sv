`default_nettype none
// nic_rsp_psn_check: the responder's expected PSN per QP, the classification of a request
// packet's PSN against it, and the NAK-sent state (docs/transport.md "Retransmission").
//
// For the dispatcher's QP (qpn_i) and its packet's PSN (psn_i), in the same cycle: the
// expected PSN (epsn_o) and whether the packet is a duplicate (dup_o: within the 2^23 PSNs
// before the expected one, 24-bit wrap), the expected one, or ahead of it (ahead_o: a packet
// was lost). A packet ahead gets ONE PSN-sequence NAK carrying the expected PSN (nak_o: ahead,
// and no NAK is out for this gap); once the dispatcher has taken a packet ahead (ahead_taken_i,
// with its NAK or without) the QP is in the
// NAK-sent state, and later packets ahead are dropped silently until the expected PSN arrives
// and is taken (expected_taken_i: the gap is closed). The expected PSN moves only forward, by the
// packets the dispatcher executes (advance_i: adv_i PSNs, 1 for a request packet, the response
// count for a Read); a duplicate never moves it. QP_CONNECT sets it (connect_i) and clears the
// NAK-sent state, as does QP_CREATE / QP_DESTROY (reset_i). An entry not written since reset
// reads 0 (epsn_set_q).
//
// The expected PSNs are two tables with one writer each, so that each is a LUT RAM (a table with
// two writers is flip-flops, 384 of them): the dispatcher's (epsn_q) and QP_CONNECT's
// (conn_psn_q); a bit per QP (epsn_conn_q) says which of the two was written last.
module nic_rsp_psn_check #(
  parameter int NumQps = 16  // queue pairs, <= 256
) (
  input  logic                    clk_i,
  input  logic                    rst_i,
  // the dispatcher's QP and its packet
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] qpn_i,
  input  logic [23:0]             psn_i,
  output logic [23:0]             epsn_o,
  output logic                    dup_o,
  output logic                    ahead_o,
  output logic                    nak_o,         // ahead, and no sequence NAK out yet: send one
  input  logic                    ahead_taken_i,    // the packet ahead was taken (NAK sent or not)
  input  logic                    expected_taken_i,    // the expected packet was taken: the gap is closed
  input  logic                    advance_i,     // the expected PSN moves on by adv_i
  input  logic [23:0]             adv_i,
  // commands (they come last in a cycle)
  input  logic                    connect_i,
  input  logic                    reset_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  input  logic [23:0]             connect_psn_i
);

  logic [23:0]       epsn_q     [NumQps];   // the dispatcher's writes
  logic [23:0]       conn_psn_q [NumQps];   // QP_CONNECT's
  logic [NumQps-1:0] epsn_set_q;            // written since reset
  logic [NumQps-1:0] epsn_conn_q;           // ... last by QP_CONNECT
  logic [NumQps-1:0] nak_q, nak_d;     // a PSN-sequence NAK is out for the QP's current gap
  logic [23:0]       q_epsn;

  assign q_epsn  = !epsn_set_q[qpn_i] ? 24'd0 : epsn_conn_q[qpn_i] ? conn_psn_q[qpn_i] : epsn_q[qpn_i];
  assign epsn_o  = q_epsn;
  assign dup_o   = psn_i != q_epsn && nic_roce_pkg::psn_le(psn_i, q_epsn - 24'd1);
  assign ahead_o = psn_i != q_epsn && !nic_roce_pkg::psn_le(psn_i, q_epsn - 24'd1);
  assign nak_o   = ahead_o && !nak_q[qpn_i];

  always_comb begin
    nak_d = nak_q;
    if (ahead_taken_i) begin
      nak_d[qpn_i] = 1'b1;
    end
    if (expected_taken_i) begin
      nak_d[qpn_i] = 1'b0;
    end
    if (connect_i || reset_i) begin
      nak_d[cmd_qpn_i] = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      nak_q <= '0;
    end else begin
      nak_q <= nak_d;
    end
  end

  // the dispatcher's write, then the command's (QP_CONNECT starts the expected PSN)
  always_ff @(posedge clk_i) begin
    if (advance_i) begin
      epsn_q[qpn_i] <= q_epsn + adv_i;
    end
    if (connect_i) begin
      conn_psn_q[cmd_qpn_i] <= connect_psn_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      epsn_set_q  <= '0;
      epsn_conn_q <= '0;
    end else begin
      if (advance_i) begin
        epsn_set_q[qpn_i]  <= 1'b1;
        epsn_conn_q[qpn_i] <= 1'b0;
      end
      if (connect_i) begin
        epsn_set_q[cmd_qpn_i]  <= 1'b1;
        epsn_conn_q[cmd_qpn_i] <= 1'b1;
      end
    end
  end

`ifdef FORMAL
  // ---- formal properties (docs/verification.md) -------------------------------------------------
  // Proven for all inputs by induction on tests/formal/nic_rsp_psn_check_formal.sv (2 QPs:
  // tools/formal/formal.py); the simulation compiles them too (Verilator +define+FORMAL), so
  // every cycle of the suite checks them in nic_rsp_dispatch, assumptions included.
  // Shadow (written from the events, never from nak_q): per QP, a packet ahead was taken since
  // the gap was last closed.
  logic [NumQps-1:0] f_gap_q;
  logic [23:0]       f_fwd;        // the packet's distance after the expected PSN (mod 2^24)
  logic [23:0]       f_back;       // ... before it
  assign f_fwd  = psn_i - q_epsn;
  assign f_back = q_epsn - psn_i;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      f_gap_q <= '0;
    end else begin
      if (ahead_taken_i) begin
        f_gap_q[qpn_i] <= 1'b1;
      end
      if (expected_taken_i) begin
        f_gap_q[qpn_i] <= 1'b0;
      end
      if (connect_i || reset_i) begin
        f_gap_q[cmd_qpn_i] <= 1'b0;
      end
    end
  end
  // The expected PSN before and after the dispatcher's write (registers: Verilator 5.006 cannot
  // take $past of an array element).
  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  logic        f_adv_q;
  logic [QW-1:0] f_adv_qpn_q;
  logic [23:0] f_adv_old_q, f_adv_n_q;
  always_ff @(posedge clk_i) begin
    f_adv_q     <= !rst_i && advance_i && !(connect_i && cmd_qpn_i == qpn_i);
    f_adv_qpn_q <= qpn_i;
    f_adv_old_q <= q_epsn;
    f_adv_n_q   <= adv_i;
  end
  logic [23:0] f_adv_new;
  assign f_adv_new = !epsn_set_q[f_adv_qpn_q] ? 24'd0
                   : epsn_conn_q[f_adv_qpn_q] ? conn_psn_q[f_adv_qpn_q] : epsn_q[f_adv_qpn_q];

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // What the dispatcher guarantees (assumed by the proof, checked by the simulation): it
      // takes a packet ahead only when it is ahead, closes the gap only with the expected PSN,
      // and moves the expected PSN by 1 .. 2^23 - 1 PSNs (a Read of up to 2^31 bytes but one at
      // the smallest MTU, 256), only for the expected packet (a duplicate never moves it).
      f_ahead_taken_is_ahead: assume (!ahead_taken_i || ahead_o);
      f_gap_closed_by_expected: assume (!expected_taken_i || (!dup_o && !ahead_o));
      f_advance_in_window: assume (!advance_i || (adv_i != 24'd0 && adv_i < 24'h800000
                                                  && !dup_o && !ahead_o));
      // Classification, against a reference: a duplicate is 1 .. 2^23 PSNs before the expected
      // PSN, a packet ahead 1 .. 2^23 - 1 after it (24-bit wrap); exactly one of duplicate,
      // expected, ahead.
      f_dup_reference: assert (dup_o == (f_back != 24'd0 && f_back <= 24'h800000));
      f_ahead_reference: assert (ahead_o == (f_fwd != 24'd0 && f_fwd < 24'h800000));
      f_one_class: assert (!(dup_o && ahead_o) && ((psn_i == q_epsn) == (!dup_o && !ahead_o)));
      // One sequence NAK per gap: a NAK (carrying the expected PSN) only for a packet ahead,
      // and none while a packet ahead of the same gap has been taken and the expected PSN has
      // not arrived since.
      f_nak_only_ahead: assert (!nak_o || ahead_o);
      f_one_nak_per_gap: assert (nak_o == (ahead_o && !f_gap_q[qpn_i]));
      // (what makes it inductive: the NAK-sent state of every QP is exactly the shadow's)
      f_nak_state_is_gap: assert (nak_q == f_gap_q);
      // The expected PSN never moves back: a write moves it forward by exactly the PSNs taken.
      if (f_adv_q) begin
        f_epsn_moves_forward: assert (f_adv_new == f_adv_old_q + f_adv_n_q
                                      && nic_roce_pkg::psn_le(f_adv_old_q, f_adv_new)
                                      && f_adv_new != f_adv_old_q);
      end
      c_dup: cover (dup_o);
      c_ahead_nak: cover (nak_o && ahead_taken_i);
      c_ahead_silent: cover (ahead_o && !nak_o && ahead_taken_i);
      c_gap_closed: cover (expected_taken_i && f_gap_q[qpn_i]);
      c_wrap_dup: cover (dup_o && psn_i > q_epsn);
      c_wrap_ahead: cover (ahead_o && psn_i < q_epsn);
      c_advance_wraps: cover (advance_i && q_epsn + adv_i < q_epsn);
    end
  end
`endif

endmodule
