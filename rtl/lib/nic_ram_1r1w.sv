`default_nettype none
// nic_ram_1r1w: the one RAM inference template of the send-queue engine. One synchronous write
// port, one synchronous read port whose registered output holds its value until the next read
// (a read enable, so a stalled reader keeps its data without re-reading).
//
// The memory carries (* no_rw_check *): a read of the address written in the same cycle returns
// undefined data in the memory itself, which saves Yosys the bypass logic around every block RAM.
// Readers that can hit that case set Forward = 1: the output then follows the held address, i.e.
// a write to the address last read (in the cycle of that read or any later cycle) shows on
// rdata_o from the next cycle on. A reader that keeps an entry for several cycles while the same
// entry is being updated therefore never sees stale data. The memory itself is never reset.
module nic_ram_1r1w #(
  parameter int Width   = 8,     // bits per word
  parameter int Depth   = 16,    // words, >= 2 (need not be a power of two)
  parameter bit Forward = 1'b0,  // 1: keep rdata_o current with writes to the held address
  // Where synthesis puts the words: "auto" (the tool's choice), "block" (block RAM) or
  // "distributed" (LUT RAM). Yosys and Vivado read it as the memory's ram_style attribute; it
  // changes no cycle (the read is registered either way). Yosys's own choice puts shallow, wide
  // memories (depth <= 32) into LUT RAM, which costs far more LUTs than the block RAMs they
  // would take.
  parameter RamStyle = "auto"
) (
  input  logic                     clk_i,
  input  logic                     rst_i,     // resets only the forwarding state
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);

  localparam int AddrW = $clog2(Depth);

  if (Depth < 2) begin : gen_bad_depth
    $fatal(1, "nic_ram_1r1w: Depth must be at least 2");
  end

  (* no_rw_check, ram_style = RamStyle *) logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] ram_rdata_q;

  // The inference template: the write and the enabled registered read, nothing else.
  always_ff @(posedge clk_i) begin
    if (we_i) begin
      mem_q[waddr_i] <= wdata_i;
    end
    if (re_i) begin
      ram_rdata_q <= mem_q[raddr_i];
    end
  end

`ifndef SYNTHESIS
  // Simulation only: flips with every write. The harness's quiescence probe compares it instead
  // of the words (sim/nic_model.cpp, "RAM words"): a cycle that left it unchanged wrote nothing, so
  // it left mem_q unchanged. Public, so that Verilator keeps it although nothing reads it
  // (tools/genramwords.py checks that it is there).
  logic sim_wr_flip_q /*verilator public_flat_rd*/;
  always_ff @(posedge clk_i) begin
    if (we_i) begin
      sim_wr_flip_q <= !sim_wr_flip_q;
    end
  end
`endif

  if (Forward) begin : gen_forward
    logic [AddrW-1:0] held_q, held_d;       // the address whose word rdata_o shows
    logic             fwd_q, fwd_d;         // a write to it came after (or with) the read
    logic             fwd_hit;              // this cycle's write is to the held address
    logic [Width-1:0] fwd_data_q;           // that write's data (loaded only then)

    // fwd_hit compares the write address with both candidates of held_d and picks by re_i: the
    // same as waddr_i == held_d, but the two compares do not wait for a late read enable.
    always_comb begin
      held_d  = re_i ? raddr_i : held_q;
      fwd_hit = we_i && (re_i ? waddr_i == raddr_i : waddr_i == held_q);
      fwd_d   = fwd_hit || (!re_i && fwd_q);
    end

    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        held_q     <= '0;
        fwd_q      <= 1'b0;
        fwd_data_q <= '0;
      end else begin
        held_q <= held_d;
        fwd_q  <= fwd_d;
        if (fwd_hit) begin
          fwd_data_q <= wdata_i;
        end
      end
    end

    assign rdata_o = fwd_q ? fwd_data_q : ram_rdata_q;
  end else begin : gen_plain
    logic unused_rst;
    assign unused_rst = rst_i;   // nothing to reset: the memory and its output are never reset
    assign rdata_o = ram_rdata_q;
  end

endmodule
