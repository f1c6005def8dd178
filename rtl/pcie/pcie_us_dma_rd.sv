`default_nettype none
// pcie_us_dma_rd: the core's AXI4 reads (AR / R) as PCIe Memory Read requests on the
// UltraScale+ block's requester request interface (RQ), their completions from the requester
// completion interface (RC) put back into AXI R beats.
//
// Contract (AXI side): INCR bursts of full 32-byte beats (arsize 5), never across 4 KiB (the
// core's nic_dma_rd guarantees both). An unaligned araddr reads from the 32-byte aligned address
// below it, as AXI defines the first beat of a full-width burst. R beats come back in AR order
// (stronger than AXI's per-ID order).
//
// Requests: a burst is cut into Memory Read requests at min(Max_Read_Request_Size, SlotBytes)
// and at 4 KiB; each takes the next tag of a ring of NumTags client tags (tag = slot number) and
// owns that tag's SlotBytes slot of the completion buffer. MRRS comes from the function's
// Device Control register (cfg_max_read_req_i). A request is sent only when its tag is free, so
// at most NumTags reads are outstanding.
//
// Completions: any number per request, in any order across tags (PCIe returns the completions
// of one request in address order, and orders nothing across requests). Each completion's
// payload lands in its tag's slot after the DWORDs its request has already received (the lower
// address field of a completion has only 7 bits, so it cannot place a payload in a 512-byte slot) (the buffer is eight 32-bit lane RAMs with their own addresses, so a payload
// starting at any DWORD is written in one pass, one beat per cycle, rc_tready always high). A
// request is complete when all its DWORDs have arrived. The slots are drained strictly in tag
// order, which is AR order.
//
// Errors never hang: a completion with a status other than Successful Completion, a poisoned
// one, or one the block marks with an error code (PG213: including its own completion timeout,
// code 1001) ends its request with an error; so does this module's own timer when a request has
// waited TimeoutCycles. The request's beats are still returned, with rresp SLVERR (data
// undefined). A tag that timed out is not reused for another TimeoutCycles, so a late
// completion (dropped: its tag is not waiting) cannot land in a later request's slot.
module pcie_us_dma_rd #(
  parameter int NumTags       = 32,    // client tags (PCIe 5-bit tags: at most 32), 2..32, a power of two
  parameter int SlotBytes     = 512,   // completion buffer per tag, bytes: largest request, 128..4096
  parameter int TimeoutCycles = 50000  // completion timeout in clock cycles (PCIe default range 50 us..50 ms)
) (
  input  logic         clk_i,
  input  logic         rst_i,
  input  logic [2:0]   cfg_max_read_req_i,  // Device Control MRRS: 128 << n bytes
  // AXI4 read slave (from the core)
  input  logic [3:0]   s_axi_arid_i,
  input  logic [63:0]  s_axi_araddr_i,
  input  logic [7:0]   s_axi_arlen_i,
  input  logic         s_axi_arvalid_i,
  output logic         s_axi_arready_o,
  output logic [3:0]   s_axi_rid_o,
  output logic [255:0] s_axi_rdata_o,
  output logic [1:0]   s_axi_rresp_o,
  output logic         s_axi_rlast_o,
  output logic         s_axi_rvalid_o,
  input  logic         s_axi_rready_i,
  // read requests to the RQ mux: one beat each (4-DWORD descriptor)
  output logic [127:0] rq_desc_o,
  output logic         rq_valid_o,
  input  logic         rq_ready_i,
  // requester completion (RC), from the hard block
  input  logic [255:0] rc_tdata_i,
  input  logic [7:0]   rc_tkeep_i,
  input  logic         rc_tlast_i,
  input  logic [74:0]  rc_tuser_i,
  input  logic         rc_tvalid_i,
  output logic         rc_tready_o,
  // counters (free-running): completions dropped as unexpected, requests ended by the timer
  output logic [15:0]  unexpected_cpls_o,
  output logic [15:0]  timeouts_o
);

  localparam int TagW      = $clog2(NumTags);
  localparam int SlotRows  = SlotBytes / 32;         // 32-byte rows per slot
  localparam int RowW      = $clog2(SlotRows);
  localparam int Rows      = NumTags * SlotRows;
  localparam int AddrW     = $clog2(Rows);
  localparam int SlotDwW   = $clog2(SlotBytes / 4) + 1;  // DWORD counts 0..SlotBytes/4

  if (NumTags < 2 || NumTags > 32 || (NumTags & (NumTags - 1)) != 0) begin : gen_bad_tags
    $fatal(1, "pcie_us_dma_rd: NumTags must be a power of two, 2..32");
  end
  if (SlotBytes < 128 || SlotBytes > 4096 || (SlotBytes & (SlotBytes - 1)) != 0) begin : gen_bad_slot
    $fatal(1, "pcie_us_dma_rd: SlotBytes must be a power of two, 128..4096");
  end

  // tag states
  localparam logic [1:0] TagFree = 2'd0, TagWait = 2'd1, TagDone = 2'd2, TagQuar = 2'd3;

  logic [31:0] now_q;  // cycle counter for the timeout

  // ---- per-tag table ----
  logic [1:0]         tag_state_q [NumTags];
  logic [3:0]         tag_id_q    [NumTags];
  logic [RowW:0]      tag_beats_q [NumTags];
  logic               tag_last_q  [NumTags];
  logic               tag_err_q   [NumTags];
  logic               tag_tmo_q   [NumTags];
  logic [SlotDwW-1:0] tag_dw_left_q [NumTags];
  logic [31:0]        tag_time_q  [NumTags];

  // ---- issue: AR bursts into requests ----
  logic         burst_q;             // a burst is being cut into requests
  logic [63:0]  iss_addr_q;          // next request's address (32-byte aligned)
  logic [12:0]  iss_left_q;          // bytes of the burst still to request
  logic [3:0]   iss_id_q;
  logic [TagW-1:0] tail_q;           // next tag to use
  logic         rq_valid_q;
  logic [127:0] rq_desc_q;
  logic [12:0]  mrrs, piece, to_page;

  always_comb begin
    mrrs = 13'd128 << cfg_max_read_req_i;
    if (cfg_max_read_req_i > 3'd5) mrrs = 13'd4096;
    if (mrrs > 13'(SlotBytes)) mrrs = 13'(SlotBytes);
    to_page = 13'h1000 - {1'b0, iss_addr_q[11:0]};
    piece = iss_left_q;
    if (piece > mrrs) piece = mrrs;
    if (piece > to_page) piece = to_page;
  end

  logic issue;  // a request leaves the issue stage into rq_desc_q this cycle
  assign s_axi_arready_o = !burst_q;
  assign issue = burst_q && tag_state_q[tail_q] == TagFree && (!rq_valid_q || rq_ready_i);
  assign rq_valid_o = rq_valid_q;
  assign rq_desc_o  = rq_desc_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      burst_q    <= 1'b0;
      rq_valid_q <= 1'b0;
      tail_q     <= '0;
    end else begin
      if (rq_valid_q && rq_ready_i) rq_valid_q <= 1'b0;
      if (!burst_q && s_axi_arvalid_i) begin
        burst_q    <= 1'b1;
        iss_addr_q <= {s_axi_araddr_i[63:5], 5'd0};
        iss_left_q <= {s_axi_arlen_i, 5'd0} + 13'd32;
        iss_id_q   <= s_axi_arid_i;
      end
      if (issue) begin
        rq_valid_q <= 1'b1;
        // PG213 requester request descriptor: address, DWORD count, Memory Read, tag
        rq_desc_q  <= {1'b0, 3'b000, 3'b000, 1'b0, 16'd0, 3'd0, tail_q,     // DW3: tag
                       16'd0, 1'b0, 4'b0000, piece[12:2] & 11'h7ff,        // DW2
                       iss_addr_q[63:2], 2'b00};                           // DW1..0
        iss_addr_q <= iss_addr_q + 64'(piece);
        iss_left_q <= iss_left_q - piece;
        tail_q     <= tail_q + 1'b1;
        if (iss_left_q == piece) burst_q <= 1'b0;
      end
    end
  end

  // ---- completions ----
  logic         rc_busy_q;           // inside a completion packet (after its first beat)
  logic         rc_take_q;           // that packet's payload is written
  logic [TagW-1:0] rc_tag_q;
  logic [12:0]  rc_pos_q;            // slot DWORD of the beat's lane 0, plus 8 (see below)
  logic [10:0]  rc_dw_q;             // payload DWORDs of the packet
  logic         rc_err_q;
  logic [15:0]  unexpected_q, timeouts_q;

  // first-beat descriptor
  logic [11:0]  c_lower_addr;
  logic [3:0]   c_error_code;
  logic [10:0]  c_dw_count;
  logic [2:0]   c_status;
  logic         c_poisoned;
  logic [7:0]   c_tag;
  logic [TagW-1:0] c_slot;
  logic         c_expected, c_err;
  always_comb begin
    c_lower_addr = rc_tdata_i[11:0];
    c_error_code = rc_tdata_i[15:12];
    c_dw_count   = rc_tdata_i[42:32];
    c_status     = rc_tdata_i[45:43];
    c_poisoned   = rc_tdata_i[46];
    c_tag        = rc_tdata_i[71:64];
    c_slot       = c_tag[TagW-1:0];
    c_expected   = c_tag[7:TagW] == '0 && tag_state_q[c_slot] == TagWait;
    c_err        = c_status != 3'b000 || c_poisoned || c_error_code != 4'd0;
  end

  // lane l of this beat carries a payload DWORD: not a descriptor lane, not past the end
  function automatic logic lane_valid(input int l, input logic first, input logic [11:0] cnt,
                                      input logic [10:0] total);
    logic [11:0] idx;
    if (first) begin
      lane_valid = l >= 3 && 12'(l - 3) < {1'b0, total};
    end else begin
      idx = cnt + 12'(l);
      lane_valid = idx < {1'b0, total};
    end
  endfunction

  // This beat's payload: DWORD lane l carries payload DWORD p = 8n + l - 3 (n the beat number,
  // the descriptor takes lanes 0..2 of beat 0), which belongs at slot DWORD off + p. With
  // pos = off + 8n + 5, that is pos + l - 8 for every beat, so one adder per lane places it.
  logic         rc_first;
  logic [12:0]  pos;
  logic [10:0]  dw_total;
  logic [11:0]  rc_cnt_q;   // payload DWORDs delivered by the packet's earlier beats
  logic [TagW-1:0] slot;
  logic         take;
  logic [7:0]   lane_we;
  logic [AddrW-1:0] lane_addr [8];
  logic [31:0]  lane_wdata [8];
  always_comb begin
    rc_first = rc_tvalid_i && !rc_busy_q;
    if (rc_first) begin
      slot     = c_slot;
      take     = c_expected && !c_err;
      pos      = 13'({tag_beats_q[c_slot], 3'b000}) - 13'(tag_dw_left_q[c_slot]) + 13'd5;
      dw_total = c_dw_count;
    end else begin
      slot     = rc_tag_q;
      take     = rc_take_q;
      pos      = rc_pos_q;
      dw_total = rc_dw_q;
    end
    for (int m = 0; m < 8; m++) begin
      lane_we[m]    = 1'b0;
      lane_addr[m]  = '0;
      lane_wdata[m] = '0;
    end
    for (int l = 0; l < 8; l++) begin
      logic [RowW+2:0] dst;  // the slot DWORD lane l's payload belongs at
      dst = pos[RowW+2:0] + (RowW + 3)'(l) - (RowW + 3)'(8);
      lane_wdata[dst[2:0]] = rc_tdata_i[32*l +: 32];
      lane_addr[dst[2:0]]  = AddrW'({slot, dst[RowW+2:3]});
      lane_we[dst[2:0]]    = rc_tvalid_i && take && lane_valid(l, rc_first, rc_cnt_q, dw_total);
    end
  end


  logic            rd_re;
  logic [AddrW-1:0] rd_addr;

  for (genvar m = 0; m < 8; m++) begin : gen_lane
    logic [31:0] rd;
    nic_ram_1r1w #(.Width(32), .Depth(Rows)) u_ram (
      .clk_i  (clk_i),
      .rst_i  (rst_i),
      .we_i   (lane_we[m]),
      .waddr_i(lane_addr[m]),
      .wdata_i(lane_wdata[m]),
      .re_i   (rd_re),
      .raddr_i(rd_addr),
      .rdata_o(rd)
    );
    assign s_axi_rdata_o[32*m +: 32] = rd;
  end

  // ---- drain: R beats from the head tag's slot ----
  logic [TagW-1:0] head_q;
  logic [RowW:0]   beat_q;      // next beat of the head tag to read
  logic            r_valid_q, r_last_q;
  logic [1:0]      r_resp_q;
  logic [3:0]      r_id_q;
  logic            head_done, head_last_beat;
  assign head_done      = tag_state_q[head_q] == TagDone;
  assign head_last_beat = beat_q == tag_beats_q[head_q] - 1'b1;
  assign rd_re          = head_done && (!r_valid_q || s_axi_rready_i);
  assign rd_addr        = AddrW'({head_q, beat_q[RowW-1:0]});
  assign s_axi_rvalid_o = r_valid_q;
  assign s_axi_rlast_o  = r_last_q;
  assign s_axi_rresp_o  = r_resp_q;
  assign s_axi_rid_o    = r_id_q;
  assign rc_tready_o    = 1'b1;

  // ---- timeout scan: one tag per cycle ----
  logic [TagW-1:0] scan_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      now_q        <= '0;
      rc_busy_q    <= 1'b0;
      head_q       <= '0;
      beat_q       <= '0;
      r_valid_q    <= 1'b0;
      scan_q       <= '0;
      unexpected_q <= '0;
      timeouts_q   <= '0;
      for (int t = 0; t < NumTags; t++) tag_state_q[t] <= TagFree;
    end else begin
      now_q  <= now_q + 1'b1;
      scan_q <= scan_q + 1'b1;

      // issue: the tag now waits for its completions
      if (issue) begin
        tag_state_q[tail_q]   <= TagWait;
        tag_id_q[tail_q]      <= iss_id_q;
        tag_beats_q[tail_q]   <= (RowW + 1)'(piece[12:5]);
        tag_last_q[tail_q]    <= iss_left_q == piece;
        tag_err_q[tail_q]     <= 1'b0;
        tag_tmo_q[tail_q]     <= 1'b0;
        tag_dw_left_q[tail_q] <= SlotDwW'(piece[12:2]);
        tag_time_q[tail_q]    <= now_q;
      end

      // timeouts and the end of quarantine
      if (tag_state_q[scan_q] == TagWait && now_q - tag_time_q[scan_q] > 32'(TimeoutCycles)) begin
        tag_state_q[scan_q] <= TagDone;
        tag_err_q[scan_q]   <= 1'b1;
        tag_tmo_q[scan_q]   <= 1'b1;
        tag_time_q[scan_q]  <= now_q;
        timeouts_q          <= timeouts_q + 1'b1;
      end else if (tag_state_q[scan_q] == TagQuar
                   && now_q - tag_time_q[scan_q] > 32'(TimeoutCycles)) begin
        tag_state_q[scan_q] <= TagFree;
      end

      // completions
      if (rc_tvalid_i) begin
        if (rc_first) begin
          rc_tag_q  <= c_slot;
          rc_take_q <= take;
          rc_dw_q   <= c_dw_count;
          rc_err_q  <= c_expected && c_err;
          rc_cnt_q  <= 12'd5;
          if (!c_expected) unexpected_q <= unexpected_q + 1'b1;
        end else begin
          rc_cnt_q <= rc_cnt_q + 12'd8;
        end
        rc_pos_q  <= pos + 13'd8;
        rc_busy_q <= !rc_tlast_i;
        if (rc_tlast_i && tag_state_q[slot] == TagWait) begin
          // the packet is in: count its DWORDs, or end the request on an error
          if (rc_first ? (c_expected && c_err) : rc_err_q) begin
            tag_state_q[slot] <= TagDone;
            tag_err_q[slot]   <= 1'b1;
          end else if (take) begin
            tag_dw_left_q[slot] <= tag_dw_left_q[slot] - SlotDwW'(dw_total);
            if (tag_dw_left_q[slot] <= SlotDwW'(dw_total)) tag_state_q[slot] <= TagDone;
          end
        end
      end

      // drain
      if (r_valid_q && s_axi_rready_i) r_valid_q <= 1'b0;
      if (rd_re) begin
        r_valid_q <= 1'b1;
        r_id_q    <= tag_id_q[head_q];
        r_resp_q  <= tag_err_q[head_q] ? 2'b10 : 2'b00;
        r_last_q  <= head_last_beat && tag_last_q[head_q];
        if (head_last_beat) begin
          beat_q <= '0;
          head_q <= head_q + 1'b1;
          tag_state_q[head_q] <= tag_tmo_q[head_q] ? TagQuar : TagFree;
        end else begin
          beat_q <= beat_q + 1'b1;
        end
      end
    end
  end

  assign unexpected_cpls_o = unexpected_q;
  assign timeouts_o        = timeouts_q;

  logic unused_rd;
  assign unused_rd = ^{rc_tkeep_i, s_axi_araddr_i[4:0], c_lower_addr, pos[12:RowW+3], rc_tuser_i, rc_tdata_i[31:29], rc_tdata_i[28:16],
                       rc_tdata_i[63:47], rc_tdata_i[255:72]};

`ifndef SYNTHESIS
  a_r_stable: assert property (@(posedge clk_i) disable iff (rst_i)
    s_axi_rvalid_o && !s_axi_rready_i |=> s_axi_rvalid_o && $stable(s_axi_rdata_o));
  a_full_beats: assert property (@(posedge clk_i) disable iff (rst_i)
    s_axi_arvalid_i && s_axi_arready_o |-> ({1'b0, s_axi_araddr_i[11:5], 5'd0}
                                            + ({5'd0, s_axi_arlen_i} + 13'd1) * 13'd32) <= 13'h1000);
`endif

endmodule
