`default_nettype none
// psn_le_formal: the proof harness of nic_roce_pkg::psn_le, the 24-bit PSN order of every
// transport engine (PSNs wrap at 2^24; a <= b when b is at most 2^23 - 1 after a, IBTA 9.7.2's
// window). The function is combinational, so the proof is a single-step one: the solver checks
// the assertions for every pair (a, b) of PSNs (2^48 of them), which is complete.
//
// Properties (tools/formal/formal.py runs them; tools/formal/plant.py plants their bugs):
//   a_psn_reference   psn_le(a, b) equals the definition, computed independently in 25 bits:
//                     (b - a) mod 2^24 < 2^23
//   a_psn_reflexive   psn_le(a, a)
//   a_psn_wrap        a PSN just below the wrap is before one just after it (2^24 - 1 <= 0)
//   a_psn_total       for a != b at a distance other than 2^23, exactly one of a <= b, b <= a
//   a_psn_successor   a <= a + 1 and not a + 1 <= a (the next PSN is later, across the wrap too)
// Covers: both outcomes, across the wrap and not, and the one unordered distance 2^23.
module psn_le_formal (
  input logic        clk_i,
  input logic [23:0] a_i,
  input logic [23:0] b_i
);
  logic        le_ab, le_ba, le_succ, le_succ_rev, le_aa;
  logic [24:0] dist;    // (b - a) mod 2^24, in 25 bits so the reference does not share the wrap
  logic [23:0] a_next;

  assign le_ab       = nic_roce_pkg::psn_le(a_i, b_i);
  assign le_ba       = nic_roce_pkg::psn_le(b_i, a_i);
  assign le_aa       = nic_roce_pkg::psn_le(a_i, a_i);
  assign a_next      = a_i + 24'd1;
  assign le_succ     = nic_roce_pkg::psn_le(a_i, a_next);
  assign le_succ_rev = nic_roce_pkg::psn_le(a_next, a_i);
  assign dist        = ({1'b0, b_i} + 25'h1000000 - {1'b0, a_i}) % 25'h1000000;

  always_ff @(posedge clk_i) begin
    a_psn_reference: assert (le_ab == (dist < 25'h800000));
    a_psn_reflexive: assert (le_aa);
    a_psn_wrap: assert (nic_roce_pkg::psn_le(24'hffffff, 24'h000000)
                        && !nic_roce_pkg::psn_le(24'h000000, 24'hffffff));
    if (a_i != b_i && dist != 25'h800000) begin
      a_psn_total: assert (le_ab != le_ba);
    end
    a_psn_successor: assert (le_succ && !le_succ_rev);
    c_psn_le_wraps: cover (le_ab && b_i < a_i);
    c_psn_le_plain: cover (le_ab && b_i > a_i);
    c_psn_gt_wraps: cover (!le_ab && b_i > a_i);
    c_psn_gt_plain: cover (!le_ab && b_i < a_i);
    c_psn_half: cover (!le_ab && !le_ba);
  end
endmodule
