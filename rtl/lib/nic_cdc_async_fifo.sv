`default_nettype none
// nic_cdc_async_fifo: a FIFO between two unrelated clocks, 2^LogDepth words of Width bits in one
// dual-clock RAM (block RAM once Width x Depth is large enough), first-word-fall-through on the
// read side, one word per cycle on each side.
//
// Pointers are LogDepth+1 bits (the extra bit tells full from empty). The read pointer crosses
// to the write side Gray-coded through nic_cdc_sync; it moves by at most one per read cycle, so
// the write side sees either the old or the new value, never a mix.
//
// PacketMode = 0: the write pointer crosses the same way (Gray), every written word is visible
//   to the reader a few read cycles later. wr_commit_i and wr_drop_i are ignored.
// PacketMode = 1 (store and forward): the reader sees only committed words. A write with
//   wr_commit_i commits every word written so far, that one included; wr_drop_i (a pulse, with or
//   without a write; a word written in that cycle is discarded too) forgets every word written
//   since the last commit. The committed pointer jumps by a whole frame at once, so it does not
//   cross Gray-coded: it is copied into wr_hold_q, which then stays stable while a toggle
//   (req/ack, each through nic_cdc_sync) tells the read side to sample it. Commits made while a
//   transfer is under way are sent together by the next one. A frame therefore reaches the
//   reader whole, never word by word, which is what a MAC transmitter that must not run dry
//   mid-frame needs, and what lets a receiver drop a bad frame after its last word.
//
// Contract: wr_rst_i and rd_rst_i are asserted together (both derived from one reset through
// nic_cdc_reset) and each lasts at least three cycles of the slower clock. A word is written
// when wr_valid_i && wr_ready_o; wr_ready_o is low only when all 2^LogDepth words are in use
// (written and not yet fetched by the read side; in PacketMode uncommitted words count too, so
// a frame longer than the FIFO can never commit: the writer must drop it, see nic_eth_port).
// rd_data_o is valid while rd_valid_o and stays unchanged until rd_ready_i takes it.
//
// Timing constraints (constraints/common/nic_cdc.tcl, applied to every instance by cell name):
// wr_gray_q -> the read side's u_wr_sync, rd_gray_q -> the write side's u_rd_sync and wr_hold_q ->
// rd_wr_ptr_q are set_max_delay -datapath_only of the smaller clock period with set_bus_skew,
// the req/ack toggles and the RAM's read path from the write clock are asynchronous.
module nic_cdc_async_fifo #(
  parameter int Width      = 8,     // bits per word
  parameter int LogDepth   = 4,     // 2^LogDepth words, >= 1
  parameter bit PacketMode = 1'b0   // 1: words become visible only when committed (see above)
) (
  input  logic             wr_clk_i,
  input  logic             wr_rst_i,
  input  logic [Width-1:0] wr_data_i,
  input  logic             wr_valid_i,
  output logic             wr_ready_o,
  input  logic             wr_commit_i,
  input  logic             wr_drop_i,

  input  logic             rd_clk_i,
  input  logic             rd_rst_i,
  output logic [Width-1:0] rd_data_o,
  output logic             rd_valid_o,
  input  logic             rd_ready_i
);

  localparam int Depth = 1 << LogDepth;
  localparam int PtrW  = LogDepth + 1;

  if (LogDepth < 1) begin : gen_bad_depth
    $fatal(1, "nic_cdc_async_fifo: LogDepth must be at least 1");
  end

  function automatic logic [PtrW-1:0] bin2gray(input logic [PtrW-1:0] b);
    bin2gray = b ^ (b >> 1);
  endfunction

  function automatic logic [PtrW-1:0] gray2bin(input logic [PtrW-1:0] g);
    logic [PtrW-1:0] b;
    b[PtrW-1] = g[PtrW-1];
    for (int i = PtrW - 2; i >= 0; i--) begin
      b[i] = b[i+1] ^ g[i];
    end
    gray2bin = b;
  endfunction

  (* no_rw_check *) logic [Width-1:0] mem_q [Depth];

  // ---- write side ----
  logic [PtrW-1:0] wr_ptr_q, wr_ptr_d;          // next word to write
  logic [PtrW-1:0] wr_commit_q, wr_commit_d;    // PacketMode: end of the committed words
  logic [PtrW-1:0] wr_gray_q;                   // PacketMode = 0: Gray of wr_ptr_q, to the reader
  logic [PtrW-1:0] wr_hold_q, wr_hold_d;        // PacketMode = 1: committed pointer on offer
  logic            wr_req_q, wr_req_d;          // PacketMode = 1: toggles when wr_hold_q changes
  logic            wr_ack;                      // the reader's ack toggle, synchronised
  logic [PtrW-1:0] wr_rd_gray;                  // the reader's pointer, synchronised
  logic [PtrW-1:0] wr_rd_ptr;
  logic            wr_full;
  logic            wr_do;

  // ---- read side ----
  logic [PtrW-1:0] rd_ptr_q, rd_ptr_d;          // next word to fetch from the RAM
  logic [PtrW-1:0] rd_gray_q;                   // Gray of rd_ptr_q, to the writer
  logic [PtrW-1:0] rd_wr_ptr_q, rd_wr_ptr_d;    // PacketMode = 1: committed pointer received
  logic            rd_ack_q, rd_ack_d;          // PacketMode = 1: last request taken
  logic            rd_req;                      // the writer's request toggle, synchronised
  logic [PtrW-1:0] rd_wr_gray;                  // PacketMode = 0: writer's Gray pointer, synchronised
  logic [PtrW-1:0] rd_wr_ptr;                   // what the reader may read up to
  logic            rd_fetch;
  logic            rd_valid_q, rd_valid_d;
  logic [Width-1:0] rd_data_q;

  // ---- write side ----
  assign wr_rd_ptr  = gray2bin(wr_rd_gray);
  assign wr_full    = (wr_ptr_q[PtrW-1] != wr_rd_ptr[PtrW-1])
                      && (wr_ptr_q[PtrW-2:0] == wr_rd_ptr[PtrW-2:0]);
  assign wr_ready_o = !wr_full;
  assign wr_do      = wr_valid_i && !wr_full && !(PacketMode && wr_drop_i);

  always_comb begin
    wr_ptr_d    = wr_ptr_q;
    wr_commit_d = wr_commit_q;
    wr_hold_d   = wr_hold_q;
    wr_req_d    = wr_req_q;
    if (wr_do) begin
      wr_ptr_d = wr_ptr_q + PtrW'(1);
    end
    if (PacketMode) begin
      if (wr_drop_i) begin
        wr_ptr_d = wr_commit_q;
      end else if (wr_do && wr_commit_i) begin
        wr_commit_d = wr_ptr_q + PtrW'(1);
      end
      // Offer the committed pointer when the previous offer has been taken.
      if (wr_req_q == wr_ack && wr_hold_q != wr_commit_q) begin
        wr_hold_d = wr_commit_q;
        wr_req_d  = ~wr_req_q;
      end
    end
  end

  always_ff @(posedge wr_clk_i) begin
    if (wr_rst_i) begin
      wr_ptr_q    <= '0;
      wr_commit_q <= '0;
      wr_gray_q   <= '0;
      wr_hold_q   <= '0;
      wr_req_q    <= 1'b0;
    end else begin
      wr_ptr_q    <= wr_ptr_d;
      wr_commit_q <= wr_commit_d;
      wr_gray_q   <= bin2gray(wr_ptr_d);
      wr_hold_q   <= wr_hold_d;
      wr_req_q    <= wr_req_d;
    end
  end

  // The RAM: the write port in the write clock, the registered read port in the read clock.
  always_ff @(posedge wr_clk_i) begin
    if (wr_do) begin
      mem_q[wr_ptr_q[PtrW-2:0]] <= wr_data_i;
    end
  end

  nic_cdc_sync #(.Width(PtrW), .Stages(2), .ResetValue(1'b0)) u_rd_sync (
    .clk_i(wr_clk_i), .rst_i(wr_rst_i), .d_i(rd_gray_q), .q_o(wr_rd_gray)
  );
  nic_cdc_sync #(.Width(1), .Stages(2), .ResetValue(1'b0)) u_ack_sync (
    .clk_i(wr_clk_i), .rst_i(wr_rst_i), .d_i(rd_ack_q), .q_o(wr_ack)
  );

  // ---- read side ----
  nic_cdc_sync #(.Width(PtrW), .Stages(2), .ResetValue(1'b0)) u_wr_sync (
    .clk_i(rd_clk_i), .rst_i(rd_rst_i), .d_i(wr_gray_q), .q_o(rd_wr_gray)
  );
  nic_cdc_sync #(.Width(1), .Stages(2), .ResetValue(1'b0)) u_req_sync (
    .clk_i(rd_clk_i), .rst_i(rd_rst_i), .d_i(wr_req_q), .q_o(rd_req)
  );

  assign rd_wr_ptr = PacketMode ? rd_wr_ptr_q : gray2bin(rd_wr_gray);
  assign rd_fetch  = (rd_ptr_q != rd_wr_ptr) && (!rd_valid_q || rd_ready_i);

  always_comb begin
    rd_ptr_d    = rd_ptr_q;
    rd_valid_d  = rd_valid_q;
    rd_wr_ptr_d = rd_wr_ptr_q;
    rd_ack_d    = rd_ack_q;
    if (rd_fetch) begin
      rd_ptr_d   = rd_ptr_q + PtrW'(1);
      rd_valid_d = 1'b1;
    end else if (rd_ready_i) begin
      rd_valid_d = 1'b0;
    end
    // wr_hold_q has been stable since the toggle that rd_req now shows.
    if (PacketMode && rd_req != rd_ack_q) begin
      rd_wr_ptr_d = wr_hold_q;
      rd_ack_d    = rd_req;
    end
  end

  always_ff @(posedge rd_clk_i) begin
    if (rd_rst_i) begin
      rd_ptr_q    <= '0;
      rd_gray_q   <= '0;
      rd_valid_q  <= 1'b0;
      rd_wr_ptr_q <= '0;
      rd_ack_q    <= 1'b0;
    end else begin
      rd_ptr_q    <= rd_ptr_d;
      rd_gray_q   <= bin2gray(rd_ptr_d);
      rd_valid_q  <= rd_valid_d;
      rd_wr_ptr_q <= rd_wr_ptr_d;
      rd_ack_q    <= rd_ack_d;
    end
  end

  always_ff @(posedge rd_clk_i) begin
    if (rd_fetch) begin
      rd_data_q <= mem_q[rd_ptr_q[PtrW-2:0]];
    end
  end

  assign rd_data_o  = rd_data_q;
  assign rd_valid_o = rd_valid_q;

`ifndef SYNTHESIS
  a_wr_no_overflow: assert property (@(posedge wr_clk_i) disable iff (wr_rst_i)
    (wr_ptr_q - wr_rd_ptr) <= PtrW'(Depth));
  a_rd_stable: assert property (@(posedge rd_clk_i) disable iff (rd_rst_i)
    (rd_valid_q && !rd_ready_i) |=> (rd_valid_q && $stable(rd_data_q)));
`endif

endmodule
