`default_nettype none
// nic_cdc_sync: a level synchroniser, Stages flip-flops in the destination clock per bit. Each bit
// crosses on its own, so a multi-bit value must be Gray-coded or held stable while it is sampled
// (nic_cdc_async_fifo does both). The first stage is the only register fed from another clock:
// the constraints give the path into it a false path (constraints/common/nic_cdc.tcl) and the
// ASYNC_REG attribute keeps the stages in one slice.
module nic_cdc_sync #(
  parameter int Width  = 1,   // independent bits
  parameter int Stages = 2,   // flip-flops per bit, >= 2
  parameter bit ResetValue = 1'b0  // value after rst_i, on every bit
) (
  input  logic             clk_i,   // destination clock
  input  logic             rst_i,   // destination-domain synchronous reset
  input  logic [Width-1:0] d_i,     // from any clock domain
  output logic [Width-1:0] q_o
);

  if (Stages < 2) begin : gen_bad_stages
    $fatal(1, "nic_cdc_sync: Stages must be at least 2");
  end

  // Stage s holds bits [s*Width +: Width]; stage 0 is the one fed from the other domain.
  (* ASYNC_REG = "TRUE" *) logic [Stages*Width-1:0] sync_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      sync_q <= {(Stages * Width){ResetValue}};
    end else begin
      sync_q <= {sync_q[(Stages-1)*Width-1:0], d_i};
    end
  end

  assign q_o = sync_q[(Stages-1)*Width +: Width];

endmodule
