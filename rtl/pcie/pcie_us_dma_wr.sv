`default_nettype none
// pcie_us_dma_wr: the core's AXI4 writes (AW / W / B) as PCIe Memory Write requests on the
// UltraScale+ block's requester request interface (RQ, 256-bit, DWORD-aligned: the 4-DWORD
// descriptor, then the payload from DWORD 4 of the first beat).
//
// Contract (AXI side, what the core's nic_dma_wr issues): INCR bursts inside one 4 KiB page;
// the enabled bytes of a burst are one contiguous range (full beats between a first beat enabled
// from some byte up and a last beat enabled up to some byte). A burst with awsize 2 is an MSI-X
// message (nic_dma_wr's port 1: one beat, 4 bytes); every other write has awsize 5.
//
// A burst is stored whole (store and forward: the TLP header needs its length, which the last
// beat's strobes decide), in one half of a two-burst buffer, so one burst's W beats come in while
// the previous burst's TLPs go out. Its bytes are cut into TLPs at Max_Payload_Size boundaries
// (cfg_max_payload_i, the function's Device Control register); each TLP's first / last byte
// enables come from the range's ends. The buffer is eight 32-bit lane RAMs read at their own
// addresses, so the payload is shifted to DWORD 4 of the first TLP beat without a barrel shifter
// on the data path's critical beat. B (OKAY) is returned once the burst's last TLP has been
// accepted on RQ: the writes are posted, and PCIe keeps posted writes in order, so a later write
// or read of the core cannot overtake them.
//
// MSI-X: a message is sent only while MSI-X is enabled and the function is not masked
// (cfg_msix_enable_i / cfg_msix_mask_i, from the function's MSI-X Message Control). Otherwise it
// does not reach the link: it is dropped, counted (msix_dropped_o) and answered with B OKAY. The
// core does not know: its PBA bit for that vector is already clear (docs/pcie.md).
module pcie_us_dma_wr (
  input  logic         clk_i,
  input  logic         rst_i,
  input  logic [1:0]   cfg_max_payload_i,   // Device Control MPS: 128 << n bytes
  input  logic         cfg_msix_enable_i,
  input  logic         cfg_msix_mask_i,
  // AXI4 write slave (from the core)
  input  logic [3:0]   s_axi_awid_i,
  input  logic [63:0]  s_axi_awaddr_i,
  input  logic [7:0]   s_axi_awlen_i,
  input  logic [2:0]   s_axi_awsize_i,
  input  logic         s_axi_awvalid_i,
  output logic         s_axi_awready_o,
  input  logic [255:0] s_axi_wdata_i,
  input  logic [31:0]  s_axi_wstrb_i,
  input  logic         s_axi_wlast_i,
  input  logic         s_axi_wvalid_i,
  output logic         s_axi_wready_o,
  output logic [3:0]   s_axi_bid_o,
  output logic [1:0]   s_axi_bresp_o,
  output logic         s_axi_bvalid_o,
  input  logic         s_axi_bready_i,
  // write TLPs to the RQ mux (multi-beat packets)
  output logic [255:0] rq_tdata_o,
  output logic [7:0]   rq_tkeep_o,
  output logic         rq_tlast_o,
  output logic [7:0]   rq_be_o,             // {last_be, first_be} (RQ tuser[7:0])
  output logic         rq_tvalid_o,
  input  logic         rq_tready_i,
  output logic [15:0]  msix_dropped_o
);

  // ---- fill: AW + W into buffer half fill_sel_q ----
  logic        fill_sel_q, emit_sel_q;
  logic [1:0]  full_q;              // half h holds a complete burst
  logic        filling_q;           // AW taken, W beats coming
  logic [6:0]  fill_row_q;
  // per-half burst descriptors
  logic [63:0] h_addr_q  [2];
  logic [3:0]  h_id_q    [2];
  logic        h_msg_q   [2];
  logic [6:0]  h_last_row_q [2];
  logic [31:0] h_first_strb_q [2], h_last_strb_q [2];

  assign s_axi_awready_o = !filling_q && !full_q[fill_sel_q];
  assign s_axi_wready_o  = filling_q;

  // first / last enabled byte of a strobe vector
  function automatic logic [4:0] lowest(input logic [31:0] strb);
    lowest = 5'd0;
    for (int i = 31; i >= 0; i--) if (strb[i]) lowest = 5'(i);
  endfunction
  function automatic logic [4:0] highest(input logic [31:0] strb);
    highest = 5'd0;
    for (int i = 0; i < 32; i++) if (strb[i]) highest = 5'(i);
  endfunction

  logic        first_beat_q;
  logic        emit_done;           // the emitting half's burst has gone out (and B is taken)

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      fill_sel_q <= 1'b0;
      filling_q  <= 1'b0;
      full_q     <= 2'b00;
    end else begin
      if (s_axi_awvalid_i && s_axi_awready_o) begin
        filling_q              <= 1'b1;
        fill_row_q             <= 7'd0;
        first_beat_q           <= 1'b1;
        h_addr_q[fill_sel_q]   <= s_axi_awaddr_i;
        h_id_q[fill_sel_q]     <= s_axi_awid_i;
        h_msg_q[fill_sel_q]    <= s_axi_awsize_i == 3'd2;
      end
      if (s_axi_wvalid_i && s_axi_wready_o) begin
        fill_row_q   <= fill_row_q + 7'd1;
        first_beat_q <= 1'b0;
        if (first_beat_q) h_first_strb_q[fill_sel_q] <= s_axi_wstrb_i;
        if (s_axi_wlast_i) begin
          h_last_strb_q[fill_sel_q] <= s_axi_wstrb_i;
          h_last_row_q[fill_sel_q]  <= fill_row_q;
          filling_q                 <= 1'b0;
          full_q[fill_sel_q]        <= 1'b1;
          fill_sel_q                <= !fill_sel_q;
        end
      end
      if (emit_done) full_q[emit_sel_q] <= 1'b0;
    end
  end

  // ---- emit: TLPs from half emit_sel_q ----
  typedef enum logic [1:0] {EmIdle, EmTlp, EmResp} emit_e;
  emit_e       em_q;
  logic [12:0] cur_q;        // next byte to send, relative to the burst's 32-byte aligned base
  logic [12:0] end_q;        // last enabled byte, relative to the base
  logic [12:0] tlp_end;      // last byte of the TLP starting at cur_q
  logic [12:0] mps;
  logic [4:0]  beat_q, beats;    // beat of the current TLP / its number of beats (<= 17)
  logic [10:0] tlp_dws;
  logic [10:0] dw0;          // buffer DWORD of the TLP's first payload DWORD
  logic        drop_q;       // the burst is an MSI-X message that must not be sent
  logic [15:0] dropped_q;
  logic        out_valid_q, out_last_q;
  logic [127:0] out_desc_q;
  logic [7:0]  out_keep_q, out_be_q;
  logic [2:0]  out_rot_q;    // buffer lane of output lane 0
  logic        out_first_q;
  logic        advance;      // a TLP beat moves into the output stage
  logic        ram_re;
  logic [7:0]  ram_row [8];  // per lane RAM read row

  always_comb begin
    mps = 13'd128 << cfg_max_payload_i;
    // the TLP ends at the burst's end or at the next MPS boundary of the address
    tlp_end = (({1'b0, h_addr_q[emit_sel_q][11:5], 5'd0} + cur_q) | (mps - 13'd1))
              - {1'b0, h_addr_q[emit_sel_q][11:5], 5'd0};
    if (tlp_end > end_q) tlp_end = end_q;
    tlp_dws = 11'(tlp_end[12:2] - cur_q[12:2] + 11'd1);
    beats   = 5'((14'(tlp_dws) + 14'd4 + 14'd7) >> 3);
    dw0     = cur_q[12:2];
  end

  assign advance = em_q == EmTlp && !drop_q && (!out_valid_q || rq_tready_i);
  assign ram_re  = advance;

  // Output beat k, lane L carries payload DWORD 8k + L - 4, i.e. buffer DWORD
  // dw0 + 8k + L - 4: lane RAM (dw0 + L - 4) mod 8 at row (dw0 + 8k + L - 4) / 8.
  always_comb begin
    for (int m = 0; m < 8; m++) begin
      logic [2:0] l;  // the output lane lane RAM m feeds
      l = 3'(m + 4) - dw0[2:0];
      // row of buffer DWORD dw0 + 8k + l - 4 (a burst has at most 1024 DWORDs)
      ram_row[m] = {emit_sel_q, 7'((10'(dw0) + 10'({beat_q, 3'b000}) + 10'(l) - 10'd4) >> 3)};
    end
  end

  logic [31:0] ram_rd [8];
  for (genvar m = 0; m < 8; m++) begin : gen_lane
    nic_ram_1r1w #(.Width(32), .Depth(256)) u_ram (
      .clk_i  (clk_i),
      .rst_i  (rst_i),
      .we_i   (s_axi_wvalid_i && s_axi_wready_o),
      .waddr_i({fill_sel_q, fill_row_q}),
      .wdata_i(s_axi_wdata_i[32*m +: 32]),
      .re_i   (ram_re),
      .raddr_i(ram_row[m]),
      .rdata_o(ram_rd[m])
    );
  end

  // the output beat: lanes rotated from the lane RAMs; beat 0 lanes 0..3 the descriptor
  always_comb begin
    for (int l = 0; l < 8; l++) begin
      rq_tdata_o[32*l +: 32] = ram_rd[out_rot_q + 3'(l)];
    end
    if (out_first_q) rq_tdata_o[127:0] = out_desc_q;
  end
  assign rq_tvalid_o = out_valid_q;
  assign rq_tlast_o  = out_last_q;
  assign rq_tkeep_o  = out_keep_q;
  assign rq_be_o     = out_be_q;
  // B once the last beat has left on RQ (not merely reached the output register)
  assign s_axi_bvalid_o = em_q == EmResp && !out_valid_q;
  assign s_axi_bresp_o  = 2'b00;
  assign s_axi_bid_o    = h_id_q[emit_sel_q];
  assign emit_done      = s_axi_bvalid_o && s_axi_bready_i;
  assign msix_dropped_o = dropped_q;

  // descriptor and byte enables of the TLP starting at cur_q
  logic [63:0]  tlp_addr;
  logic [3:0]   fbe, lbe;
  logic [127:0] desc;
  logic [11:0]  remaining_dws;
  always_comb begin
    tlp_addr = {h_addr_q[emit_sel_q][63:5], 5'd0} + 64'(cur_q);
    fbe = 4'hf << cur_q[1:0];
    lbe = 4'hf >> (2'd3 - tlp_end[1:0]);
    if (tlp_dws == 11'd1) begin
      fbe = fbe & lbe;
      lbe = 4'h0;
    end
    desc = {1'b0, 3'b000, 3'b000, 1'b0, 16'd0, 8'd0,            // DW3: tag unused (posted)
            16'd0, 1'b0, 4'b0001, tlp_dws,                       // DW2: Memory Write
            tlp_addr[63:2], 2'b00};                              // DW1..0
    remaining_dws = 12'(tlp_dws) + 12'd4 - 12'({beat_q, 3'b000});
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      em_q        <= EmIdle;
      emit_sel_q  <= 1'b0;
      out_valid_q <= 1'b0;
      dropped_q   <= '0;
    end else begin
      if (out_valid_q && rq_tready_i) out_valid_q <= 1'b0;
      unique case (em_q)
        EmIdle: begin
          if (full_q[emit_sel_q]) begin
            em_q   <= EmTlp;
            beat_q <= 5'd0;
            cur_q  <= 13'(lowest(h_first_strb_q[emit_sel_q]));
            end_q  <= {1'b0, h_last_row_q[emit_sel_q], 5'd0} + 13'(highest(h_last_strb_q[emit_sel_q]));
            drop_q <= h_msg_q[emit_sel_q] && (!cfg_msix_enable_i || cfg_msix_mask_i);
          end
        end
        EmTlp: begin
          if (drop_q) begin
            dropped_q <= dropped_q + 1'b1;
            em_q      <= EmResp;
          end else if (advance) begin
            out_valid_q <= 1'b1;
            out_first_q <= beat_q == 5'd0;
            out_desc_q  <= desc;
            out_rot_q   <= dw0[2:0] - 3'd4;
            out_last_q  <= beat_q == beats - 5'd1;
            out_keep_q  <= remaining_dws >= 12'd8 ? 8'hff : 8'hff >> (4'd8 - remaining_dws[3:0]);
            out_be_q    <= {lbe, fbe};
            if (beat_q == beats - 5'd1) begin
              beat_q <= 5'd0;
              cur_q  <= tlp_end + 13'd1;
              if (tlp_end == end_q) em_q <= EmResp;
            end else begin
              beat_q <= beat_q + 5'd1;
            end
          end
        end
        EmResp: begin
          if (emit_done) begin
            em_q       <= EmIdle;
            emit_sel_q <= !emit_sel_q;
          end
        end
        default: em_q <= EmIdle;
      endcase
    end
  end

  logic unused_wr;
  assign unused_wr = ^{s_axi_awlen_i, s_axi_awaddr_i[4:0], tlp_addr[1:0], dw0[10]};

`ifndef SYNTHESIS
  a_rq_stable: assert property (@(posedge clk_i) disable iff (rst_i)
    rq_tvalid_o && !rq_tready_i |=> rq_tvalid_o && $stable(rq_tdata_o) && $stable(rq_tkeep_o));
  a_burst_fits: assert property (@(posedge clk_i) disable iff (rst_i)
    s_axi_awvalid_i && s_axi_awready_o |-> s_axi_awlen_i < 8'd128);
`endif

endmodule
