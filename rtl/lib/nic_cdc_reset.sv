`default_nettype none
// nic_cdc_reset: a reset synchroniser. rst_o rises asynchronously with rst_i (so a domain whose
// clock is not yet running is still held in reset) and falls synchronously, Stages clock edges
// after rst_i falls. Everything downstream uses rst_o as an ordinary synchronous reset. The
// constraints cut the asynchronous set path (constraints/common/nic_cdc.tcl).
module nic_cdc_reset #(
  parameter int Stages = 3    // flip-flops, >= 2
) (
  input  logic clk_i,   // destination clock
  input  logic rst_i,   // active-high reset from any domain (or a pin)
  output logic rst_o    // active-high, deasserted synchronously to clk_i
);

  if (Stages < 2) begin : gen_bad_stages
    $fatal(1, "nic_cdc_reset: Stages must be at least 2");
  end

  (* ASYNC_REG = "TRUE" *) logic [Stages-1:0] rst_sync_q;

  always_ff @(posedge clk_i or posedge rst_i) begin
    if (rst_i) begin
      rst_sync_q <= {Stages{1'b1}};
    end else begin
      rst_sync_q <= {rst_sync_q[Stages-2:0], 1'b0};
    end
  end

  assign rst_o = rst_sync_q[Stages-1];

endmodule
