`default_nettype none
// nic_cdc_pulse: carries single-cycle pulses from one clock to another. Each source pulse toggles a
// level that crosses through nic_cdc_sync; each toggle seen becomes one destination pulse. Pulses
// closer together than about three destination cycles plus one source cycle merge, so a caller
// that must count every event crosses a counter instead (the Ethernet statistics do: they
// accumulate in the source domain and cross as held values).
module nic_cdc_pulse (
  input  logic src_clk_i,
  input  logic src_rst_i,
  input  logic src_pulse_i,
  input  logic dst_clk_i,
  input  logic dst_rst_i,
  output logic dst_pulse_o
);

  logic src_toggle_q;
  logic dst_toggle;
  logic dst_toggle_q;

  always_ff @(posedge src_clk_i) begin
    if (src_rst_i) begin
      src_toggle_q <= 1'b0;
    end else if (src_pulse_i) begin
      src_toggle_q <= ~src_toggle_q;
    end
  end

  nic_cdc_sync #(.Width(1), .Stages(2), .ResetValue(1'b0)) u_sync (
    .clk_i(dst_clk_i), .rst_i(dst_rst_i), .d_i(src_toggle_q), .q_o(dst_toggle)
  );

  always_ff @(posedge dst_clk_i) begin
    if (dst_rst_i) begin
      dst_toggle_q <= 1'b0;
    end else begin
      dst_toggle_q <= dst_toggle;
    end
  end

  assign dst_pulse_o = dst_toggle ^ dst_toggle_q;

endmodule
