`default_nettype none
// nic_page_list: reads a FastRegister's page list by DMA into the MTT.
//
// While load_i (the dispatcher is not reading or committing a list) the reader loads the list's
// address, the MTT entry of its first page and the lane of its first entry, in every cycle: the
// values of the cycle in which active_i rises are those of the FastRegister then in the
// dispatcher, and the load needs no decision of the dispatcher's (a start pulse would wait for
// its checks). While active_i it requests the list in bursts (from the
// next address aligned down to a beat, up to the end of the list, the 4 KiB page or 256 beats,
// whichever comes first) and writes each 64-bit entry's page frame number (entry >> 12) into
// MTT[mtt_off + n], one entry per cycle. done_o says every entry was requested and received;
// err_o that a beat came with an error response, bad_o that an entry was not 4 KiB aligned;
// mtt_base_o is the MTT entry of the first page (the MR's mtt_base, to nic_mem_op). The list's length, count_i,
// and active_i come from the dispatcher, which holds the WQE (and its page_count) for the whole
// read: the reader needs no copy of them.
module nic_page_list #(
  parameter int DataWidth  = 64,    // AXI data width: 64, 128 or 256
  parameter int MttEntries = 1024   // MTT entries, 2..65535
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // control (nic_wqe_dispatch)
  input  logic                          load_i,      // idle: load the list's parameters
  input  logic [63:0]                   addr_i,      // the list's logical address (8-byte aligned)
  input  logic [31:0]                   mtt_off_i,   // the MTT entry of its first page
  input  logic                          active_i,    // the list is being read
  input  logic [31:0]                   count_i,     // its entries (stable while active_i)
  output logic                          done_o,      // every entry received
  output logic                          err_o,       // a beat came with an error response
  output logic                          bad_o,       // an entry was not 4 KiB aligned
  output logic [$clog2(MttEntries)-1:0] mtt_base_o,
  // DMA read client (nic_dma_rd)
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // MTT write port (nic_mr_table)
  output logic                          mtt_we_o,
  output logic [$clog2(MttEntries)-1:0] mtt_idx_o,
  output logic [51:0]                   mtt_pfn_o
);

  localparam int MttAW     = $clog2(MttEntries);
  localparam int BeatBytes = DataWidth / 8;
  localparam int BeatAW    = $clog2(BeatBytes);
  localparam int Lanes     = DataWidth / 64;               // page-list entries per beat
  localparam int LaneW     = (Lanes > 1) ? $clog2(Lanes) : 1;
  localparam int MaxSpan   = 256 * BeatBytes;              // bytes of a 256-beat burst
  localparam int BeatLast  = BeatBytes - 1;
  localparam logic [35:0] BeatRound = 36'(BeatLast);      // rounds a byte count up to beats

  if (DataWidth < 64 || DataWidth > 256 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_width
    $fatal(1, "nic_page_list: DataWidth must be 64, 128 or 256");
  end
  if (MttEntries < 2 || MttEntries > 65535) begin : gen_bad_mtt
    $fatal(1, "nic_page_list: MttEntries must be 2..65535");
  end

  logic [63:0]      addr_q, addr_d;        // next byte to request
  logic [31:0]      left_q, left_d;        // entries not yet requested
  logic [31:0]      rcv_q, rcv_d;          // entries received
  logic [LaneW-1:0] lane_q, lane_d;        // lane of the next entry in the current beat
  logic             err_q, err_d;
  logic             bad_q, bad_d;
  logic [31:0]      mtt_off_q, mtt_off_d;

  // The next burst. Used only while the list is read: evaluated only then.
  logic [63:0] aligned;
  logic [12:0] lead, to_page;
  logic [35:0] need, span;
  logic [8:0]  beats;
  logic [31:0] burst_bytes, covered;

  always_comb begin
    lead        = '0;
    aligned     = '0;
    to_page     = '0;
    need        = '0;
    span        = '0;
    beats       = '0;
    burst_bytes = '0;
    covered     = '0;
    if (active_i) begin
      lead        = 13'(addr_q[BeatAW-1:0]);
      aligned     = {addr_q[63:BeatAW], BeatAW'(0)};
      to_page     = 13'd4096 - {1'b0, aligned[11:0]};
      need        = 36'(lead) + {1'b0, left_q, 3'd0};
      span        = (need < 36'(to_page)) ? ((need < 36'(MaxSpan)) ? need : 36'(MaxSpan)) :
                    ((36'(to_page) < 36'(MaxSpan)) ? 36'(to_page) : 36'(MaxSpan));
      beats       = 9'((span + BeatRound) >> BeatAW);
      burst_bytes = {23'd0, beats} << BeatAW;
      covered     = (burst_bytes - {19'd0, lead}) >> 3;
    end
  end

  assign ar_valid_o = active_i && left_q != '0;
  assign ar_addr_o  = aligned;
  assign ar_len_o   = 8'(beats - 9'd1);

  // The entry of the current lane.
  logic [63:0] entry;
  logic        take, last_entry, pop;

  always_comb begin
    entry = r_data_i[63:0];
    if (r_valid_i) begin            // a page-list beat is offered: its only use
      for (int l = 0; l < Lanes; l++) begin
        if (lane_q == LaneW'(l)) begin
          entry = r_data_i[64*l +: 64];
        end
      end
    end
  end

  assign take       = active_i && r_valid_i && rcv_q != count_i;
  assign last_entry = rcv_q + 32'd1 == count_i;
  assign pop        = take && (lane_q == LaneW'(Lanes - 1) || last_entry);
  assign r_ready_o  = pop;
  assign mtt_we_o   = take;
  assign mtt_idx_o  = MttAW'(mtt_off_q + rcv_q);
  assign mtt_pfn_o  = entry[63:12];

  assign done_o    = left_q == '0 && rcv_q == count_i;
  assign err_o     = err_q;
  assign bad_o     = bad_q;
  assign mtt_base_o = MttAW'(mtt_off_q);

  always_comb begin
    addr_d    = addr_q;
    left_d    = left_q;
    rcv_d     = rcv_q;
    lane_d    = lane_q;
    err_d     = err_q;
    bad_d     = bad_q;
    mtt_off_d = mtt_off_q;
    if (load_i) begin
      addr_d    = addr_i;
      left_d    = count_i;
      rcv_d     = '0;
      lane_d    = (Lanes > 1) ? LaneW'(addr_i >> 3) : '0;
      err_d     = 1'b0;
      bad_d     = 1'b0;
      mtt_off_d = mtt_off_i;
    end
    if (active_i) begin
      if (ar_valid_o && ar_ready_i) begin
        addr_d = aligned + {32'd0, burst_bytes};
        left_d = (covered >= left_q) ? '0 : left_q - covered;
      end
      if (take) begin
        rcv_d  = rcv_q + 32'd1;
        lane_d = pop ? '0 : lane_q + LaneW'(1);
        err_d  = err_q || r_resp_i != 2'b00;
        bad_d  = bad_q || entry[11:0] != 12'd0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      addr_q    <= '0;
      left_q    <= '0;
      rcv_q     <= '0;
      lane_q    <= '0;
      err_q     <= 1'b0;
      bad_q     <= 1'b0;
      mtt_off_q <= '0;
    end else begin
      addr_q    <= addr_d;
      left_q    <= left_d;
      rcv_q     <= rcv_d;
      lane_q    <= lane_d;
      err_q     <= err_d;
      bad_q     <= bad_d;
      mtt_off_q <= mtt_off_d;
    end
  end

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block (see nic_wqe_fetch for why not concurrent ones).
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // Page-list entries land inside the MTT range the MR was given.
      if (mtt_we_o) begin
        a_mtt_in_range: assert (33'(mtt_off_q) + 33'(rcv_q) < 33'(MttEntries));
      end
      if (r_valid_i) begin
        a_pl_r_expected: assert (active_i && rcv_q != count_i);
      end
      // The last entry comes with the last beat of the last burst.
      if (take && last_entry) begin
        a_pl_rlast: assert (r_last_i);
      end
      if (ar_valid_o) begin
        a_pl_burst_ok: assert (beats != '0 && beats <= 9'd256 &&
                               32'(aligned[11:0]) + burst_bytes <= 4096);
      end
      if (load_i) begin
        a_load_idle: assert (!active_i);
      end
    end
  end
`else
  logic unused_r_last;
  assign unused_r_last = r_last_i;   // only checked by assertions: entries are counted
`endif

endmodule
