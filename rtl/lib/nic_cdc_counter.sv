`default_nettype none
// nic_cdc_counter: an event counter kept in one clock domain and read in another. Each src_inc_i
// adds one (at most one per source cycle, so the count moves through Gray code one bit at a time);
// the Gray value crosses through nic_cdc_sync and dst_count_o is its binary value, a few
// destination cycles late, never a mix of old and new bits. Wraps at 2^Width. The path from
// src_gray_q into the synchroniser is constrained like an async FIFO's pointer
// (constraints/common/nic_cdc.tcl).
module nic_cdc_counter #(
  parameter int Width = 32   // counter bits, >= 2
) (
  input  logic             src_clk_i,
  input  logic             src_rst_i,
  input  logic             src_inc_i,
  input  logic             dst_clk_i,
  input  logic             dst_rst_i,
  output logic [Width-1:0] dst_count_o
);

  logic [Width-1:0] src_cnt_q;
  logic [Width-1:0] src_gray_q;
  logic [Width-1:0] dst_gray;
  logic [Width-1:0] dst_bin;

  always_ff @(posedge src_clk_i) begin
    if (src_rst_i) begin
      src_cnt_q  <= '0;
      src_gray_q <= '0;
    end else if (src_inc_i) begin
      src_cnt_q  <= src_cnt_q + 1'b1;
      src_gray_q <= (src_cnt_q + 1'b1) ^ ((src_cnt_q + 1'b1) >> 1);
    end
  end

  nic_cdc_sync #(.Width(Width), .Stages(2), .ResetValue(1'b0)) u_sync (
    .clk_i(dst_clk_i), .rst_i(dst_rst_i), .d_i(src_gray_q), .q_o(dst_gray)
  );

  always_comb begin
    dst_bin[Width-1] = dst_gray[Width-1];
    for (int i = Width - 2; i >= 0; i--) begin
      dst_bin[i] = dst_bin[i+1] ^ dst_gray[i];
    end
  end

  always_ff @(posedge dst_clk_i) begin
    if (dst_rst_i) begin
      dst_count_o <= '0;
    end else begin
      dst_count_o <= dst_bin;
    end
  end

endmodule
