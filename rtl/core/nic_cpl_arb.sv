`default_nettype none
// nic_cpl_arb: the one completion arbiter. Three completion streams (valid/ready, each stable
// until taken) into the CQ engine's one: the dispatcher's (x_*: nic_wqe_dispatch), the
// requester's (q_*) and the responder's (s_*). Order within each stream is kept; the streams
// carry no order between them (a QP's send completions come from one stream at a time: see
// nic_wqe_dispatch's hold on QPs with transport WQEs outstanding; its receive completions all
// come from the responder).
//
// Policy: the dispatcher and the transport take turns (when both wait, the one not served last
// goes), and within the transport's turns the requester and the responder take turns the same
// way; an offer not taken keeps its choice, so the output holds still until taken. (This is the
// order of the two cascaded arbiters this one replaced.)
//
// Output register (timing): the pick goes into a register (out_*_q), and the CQ engine takes the
// completion from there, so no combinational path runs from a producer's state through this
// arbiter into the CQ engine's record build (docs/timing-area.md, "The completion arbiter's
// output registered"). The register is loaded only when it is empty, so the producers' ready
// does not depend on the CQ engine either. The cost is one cycle on every completion's way to
// its CQ; the rate stays one completion every two cycles, the CQ engine's own (it offers each
// record for at least a cycle before it takes the next), because the register refills in the
// cycle the CQ engine offers the record.
module nic_cpl_arb (
  input  logic          clk_i,
  input  logic          rst_i,
  input  logic          x_valid_i,
  input  logic [7:0]    x_cqn_i,
  input  nic_pkg::cqe_t x_cqe_i,
  output logic          x_ready_o,
  input  logic          q_valid_i,
  input  logic [7:0]    q_cqn_i,
  input  nic_pkg::cqe_t q_cqe_i,
  output logic          q_ready_o,
  input  logic          s_valid_i,
  input  logic [7:0]    s_cqn_i,
  input  nic_pkg::cqe_t s_cqe_i,
  output logic          s_ready_o,
  output logic          cpl_valid_o,
  output logic [7:0]    cpl_cqn_o,
  output nic_pkg::cqe_t cpl_cqe_o,
  input  logic          cpl_ready_i
);

  // tr_*: the transport's side (requester or responder). last_*_q: the second of a pair was
  // served last, so the first goes when both wait; held_*_q / held_*2_q: the choice of an offer
  // not taken last cycle.
  logic          last_tr_q, held_q, held_tr_q;     // dispatcher vs transport
  logic          last_s_q, held_t_q, held_s_q;     // requester vs responder
  logic          pick_tr, pick_s, tr_valid, tr_ready;
  logic          arb_valid, arb_ready;             // the pick, into the output register
  logic [7:0]    arb_cqn;
  nic_pkg::cqe_t arb_cqe;
  logic          out_valid_q;                      // the output register
  logic [7:0]    out_cqn_q;
  nic_pkg::cqe_t out_cqe_q;
  logic [7:0]    tr_cqn;
  nic_pkg::cqe_t tr_cqe;

  assign pick_s    = held_t_q ? held_s_q : (s_valid_i && (!q_valid_i || !last_s_q));
  assign tr_valid  = q_valid_i || s_valid_i;
  assign tr_cqn    = pick_s ? s_cqn_i : q_cqn_i;
  assign tr_cqe    = pick_s ? s_cqe_i : q_cqe_i;
  assign q_ready_o = tr_ready && !pick_s;
  assign s_ready_o = tr_ready && pick_s;

  assign pick_tr   = held_q ? held_tr_q : (tr_valid && (!x_valid_i || !last_tr_q));
  assign arb_valid = x_valid_i || tr_valid;
  assign arb_cqn   = pick_tr ? tr_cqn : x_cqn_i;
  assign arb_cqe   = pick_tr ? tr_cqe : x_cqe_i;
  assign arb_ready = !out_valid_q;
  assign x_ready_o = arb_ready && !pick_tr;
  assign tr_ready  = arb_ready && pick_tr;

  assign cpl_valid_o = out_valid_q;
  assign cpl_cqn_o   = out_cqn_q;
  assign cpl_cqe_o   = out_cqe_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      last_tr_q <= 1'b0;
      held_q    <= 1'b0;
      held_tr_q <= 1'b0;
      last_s_q  <= 1'b0;
      held_t_q  <= 1'b0;
      held_s_q  <= 1'b0;
    end else begin
      if (arb_valid && arb_ready) begin
        last_tr_q <= pick_tr;
      end
      held_q    <= arb_valid && !arb_ready;
      held_tr_q <= pick_tr;
      if (tr_valid && tr_ready) begin
        last_s_q <= pick_s;
      end
      held_t_q <= tr_valid && !tr_ready;
      held_s_q <= pick_s;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      out_valid_q <= 1'b0;
    end else if (arb_valid && arb_ready) begin
      out_valid_q <= 1'b1;
    end else if (cpl_ready_i) begin
      out_valid_q <= 1'b0;
    end
  end

  // The data needs no reset: it is read only with out_valid_q.
  always_ff @(posedge clk_i) begin
    if (arb_valid && arb_ready) begin
      out_cqn_q <= arb_cqn;
      out_cqe_q <= arb_cqe;
    end
  end

endmodule
