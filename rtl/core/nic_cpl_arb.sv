`default_nettype none
// nic_cpl_arb: merges two completion streams (valid/ready, each stable until taken) into one,
// round robin. Order within each stream is kept; the streams themselves carry no order between
// them (a queue's completions all come from one stream at a time: see nic_local_exec's hold on
// QPs with transport WQEs outstanding).
module nic_cpl_arb (
  input  logic          clk_i,
  input  logic          rst_i,
  input  logic          a_valid_i,
  input  logic [7:0]    a_cqn_i,
  input  nic_pkg::cqe_t a_cqe_i,
  output logic          a_ready_o,
  input  logic          b_valid_i,
  input  logic [7:0]    b_cqn_i,
  input  nic_pkg::cqe_t b_cqe_i,
  output logic          b_ready_o,
  output logic          cpl_valid_o,
  output logic [7:0]    cpl_cqn_o,
  output nic_pkg::cqe_t cpl_cqe_o,
  input  logic          cpl_ready_i
);

  // last_b_q: B was served last, so A goes first when both wait. An offer not taken keeps its
  // choice (held_q, held_b_q), so the output holds still until taken.
  logic last_b_q, held_q, held_b_q, pick_b;

  assign pick_b      = held_q ? held_b_q : (b_valid_i && (!a_valid_i || !last_b_q));
  assign cpl_valid_o = a_valid_i || b_valid_i;
  assign cpl_cqn_o   = pick_b ? b_cqn_i : a_cqn_i;
  assign cpl_cqe_o   = pick_b ? b_cqe_i : a_cqe_i;
  assign a_ready_o   = cpl_ready_i && !pick_b;
  assign b_ready_o   = cpl_ready_i && pick_b;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      last_b_q <= 1'b0;
      held_q   <= 1'b0;
      held_b_q <= 1'b0;
    end else begin
      if (cpl_valid_o && cpl_ready_i) begin
        last_b_q <= pick_b;
      end
      held_q   <= cpl_valid_o && !cpl_ready_i;
      held_b_q <= pick_b;
    end
  end

endmodule
