`default_nettype none
// nic_rr_pick: round-robin pick of one requester out of N (combinational).
//
// Contract: with en_i high and some bit of req_i set, found_o is high and idx_o names the first
// set bit after last_i, going up and wrapping (last_i itself comes last: it is picked only when
// no other bit is set). With en_i low or req_i all zero, found_o is low and idx_o is 0. The
// caller keeps last_i (the index it picked last) in a register; last_i = N - 1 makes the pick a
// fixed priority, lowest index first.
//
// Built as two priority encoders, not a loop over (last + i) mod N: the bits above last_i, and,
// when none of them is set, all bits. The outputs are zero while en_i is low, so a caller can
// gate the pick to the cycles that read it (the quiescence skip and the waveforms then see no
// toggling).
module nic_rr_pick #(
  parameter int N = 16   // requesters, >= 1
) (
  input  logic                           en_i,
  input  logic [N-1:0]                   req_i,
  input  logic [((N > 1) ? $clog2(N) : 1)-1:0] last_i,
  output logic                           found_o,
  output logic [((N > 1) ? $clog2(N) : 1)-1:0] idx_o
);

  localparam int IW = (N > 1) ? $clog2(N) : 1;

  if (N < 1) begin : gen_bad_n
    $fatal(1, "nic_rr_pick: N must be at least 1");
  end

  logic [N-1:0] above;      // the requests after last_i
  logic         hi_found;
  logic [IW-1:0] hi_idx, lo_idx;

  always_comb begin
    for (int i = 0; i < N; i++) begin
      above[i] = req_i[i] && IW'(i) > last_i;
    end
    hi_found = 1'b0;
    hi_idx   = '0;
    lo_idx   = '0;
    for (int i = N - 1; i >= 0; i--) begin
      if (above[i]) begin
        hi_found = 1'b1;
        hi_idx   = IW'(i);
      end
      if (req_i[i]) begin
        lo_idx = IW'(i);
      end
    end
    found_o = en_i && req_i != '0;
    idx_o   = '0;
    if (found_o) begin
      idx_o = hi_found ? hi_idx : lo_idx;
    end
  end

endmodule
