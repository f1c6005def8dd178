`default_nettype none
// nic_lutram_1r1w: the LUT RAM template. One synchronous write port and one read port with the
// ports of nic_ram_1r1w and the same one-cycle latency, built the way LUT RAM reads: the read
// address is registered (re_i loads it) and the word at the held address is read
// asynchronously. So rdata_o follows the held address: a write to it (in the cycle of the read or
// any later cycle) shows from the next cycle on, as nic_ram_1r1w's Forward = 1 does, here for
// free.
//
// For a shallow memory that block RAM would hold at a fraction of its depth: a block RAM's read
// data register is free, a LUT RAM's would cost Width flip-flops; this holds the address instead
// ($clog2(Depth) flip-flops). The memory is never reset.
module nic_lutram_1r1w #(
  parameter int Width = 8,     // bits per word
  parameter int Depth = 16     // words, >= 2 (need not be a power of two)
) (
  input  logic                     clk_i,
  input  logic                     rst_i,     // resets only the held address
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  localparam int AddrW = $clog2(Depth);
  if (Depth < 2) begin : gen_bad_depth
    $fatal(1, "nic_lutram_1r1w: Depth must be at least 2");
  end

  // (ram_style: Yosys otherwise folds the address register into a synchronous read port and
  // may choose block RAM for a deep one, which is what this template is there to avoid)
  (* ram_style = "distributed" *) logic [Width-1:0] mem_q [Depth];
  logic [AddrW-1:0] held_q;

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      mem_q[waddr_i] <= wdata_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      held_q <= '0;
    end else if (re_i) begin
      held_q <= raddr_i;
    end
  end

  assign rdata_o = mem_q[held_q];

`ifndef SYNTHESIS
  // Simulation only, as in nic_ram_1r1w: flips with every write, for the harness's quiescence
  // probe (tools/genramwords.py), which compares it instead of the words.
  logic sim_wr_flip_q /*verilator public_flat_rd*/;
  always_ff @(posedge clk_i) begin
    if (we_i) begin
      sim_wr_flip_q <= !sim_wr_flip_q;
    end
  end
`endif

endmodule
