`default_nettype none
// nic_cpl_arb: the one completion arbiter. Three completion streams (valid/ready, each stable
// until taken) into the CQ engine's one: the local executor's (x_*), the requester's (q_*) and
// the responder's (s_*). Order within each stream is kept; the streams carry no order between
// them (a QP's send completions come from one stream at a time: see nic_local_exec's hold on QPs
// with transport WQEs outstanding; its receive completions all come from the responder).
//
// Policy: the executor and the transport take turns (when both wait, the one not served last
// goes), and within the transport's turns the requester and the responder take turns the same
// way; an offer not taken keeps its choice, so the output holds still until taken. (This is the
// order of the two cascaded arbiters this one replaced, kept so that no completion moves by a
// cycle.)
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
  logic          last_tr_q, held_q, held_tr_q;     // executor vs transport
  logic          last_s_q, held_t_q, held_s_q;     // requester vs responder
  logic          pick_tr, pick_s, tr_valid, tr_ready;
  logic [7:0]    tr_cqn;
  nic_pkg::cqe_t tr_cqe;

  assign pick_s    = held_t_q ? held_s_q : (s_valid_i && (!q_valid_i || !last_s_q));
  assign tr_valid  = q_valid_i || s_valid_i;
  assign tr_cqn    = pick_s ? s_cqn_i : q_cqn_i;
  assign tr_cqe    = pick_s ? s_cqe_i : q_cqe_i;
  assign q_ready_o = tr_ready && !pick_s;
  assign s_ready_o = tr_ready && pick_s;

  assign pick_tr     = held_q ? held_tr_q : (tr_valid && (!x_valid_i || !last_tr_q));
  assign cpl_valid_o = x_valid_i || tr_valid;
  assign cpl_cqn_o   = pick_tr ? tr_cqn : x_cqn_i;
  assign cpl_cqe_o   = pick_tr ? tr_cqe : x_cqe_i;
  assign x_ready_o   = cpl_ready_i && !pick_tr;
  assign tr_ready    = cpl_ready_i && pick_tr;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      last_tr_q <= 1'b0;
      held_q    <= 1'b0;
      held_tr_q <= 1'b0;
      last_s_q  <= 1'b0;
      held_t_q  <= 1'b0;
      held_s_q  <= 1'b0;
    end else begin
      if (cpl_valid_o && cpl_ready_i) begin
        last_tr_q <= pick_tr;
      end
      held_q    <= cpl_valid_o && !cpl_ready_i;
      held_tr_q <= pick_tr;
      if (tr_valid && tr_ready) begin
        last_s_q <= pick_s;
      end
      held_t_q <= tr_valid && !tr_ready;
      held_s_q <= pick_s;
    end
  end

endmodule
