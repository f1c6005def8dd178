`default_nettype none
// nic_eth_mac_tx: the transmit MAC of a 10G / 25G port, between a 64-bit AXI4-Stream of frames
// without FCS and the XGMII of the PCS (nic_eth_pcs_tx).
//
// Each frame becomes: a start word (/S/, six preamble bytes 0x55, SFD 0xD5; /S/ always in lane 0),
// the frame's bytes, zero padding up to 60 bytes, the FCS (CRC-32 of the frame and its padding,
// IEEE 802.3 3.2.9, least significant byte first), /T/, then idles. The inter-packet gap (/T/ and
// the idles after it, up to the next /S/) is at least MinGapBytes (12: 96 bit times) and at most
// 7 more, since every /S/ is in lane 0.
//
// Input: tkeep contiguous from byte 0, only the last beat partial. The stream must not run dry
// inside a frame (nic_eth_port feeds it from a store-and-forward FIFO); if it does, the frame is
// ended with /E/ characters (the receiver drops it) and underrun_o pulses. Frames are taken once
// every ce_i cycle may carry a word (ce_i: see nic_eth_pcs_tx); s_tready_o is high only with ce_i.
module nic_eth_mac_tx #(
  parameter int MinGapBytes = 12   // least inter-packet gap in bytes, /T/ included: 12 (IEEE), 5..16
) (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic        ce_i,
  input  logic [63:0] s_tdata_i,
  input  logic [7:0]  s_tkeep_i,
  input  logic        s_tlast_i,
  input  logic        s_tvalid_i,
  output logic        s_tready_o,
  output logic [63:0] xgmii_txd_o,
  output logic [7:0]  xgmii_txc_o,
  output logic        frame_sent_o,    // pulse: a frame's /T/ went out
  output logic        underrun_o       // pulse: a frame was cut short (/E/) for want of data
);

  localparam logic [63:0] IdleD  = {8{8'h07}};
  localparam logic [63:0] StartD = 64'hD555_5555_5555_55FB;
  localparam logic [63:0] ErrorD = {8{8'hFE}};
  localparam int MinFrame = 60;   // bytes before the FCS

  if (MinGapBytes < 5 || MinGapBytes > 16) begin : gen_bad_gap
    $fatal(1, "nic_eth_mac_tx: MinGapBytes must be 5..16");
  end

  typedef enum logic [2:0] {
    StIdle, StData, StPad, StTail
  } state_e;

  state_e      state_q, state_d;
  logic [13:0] cnt_q, cnt_d;             // frame bytes sent so far (before the FCS)
  logic [31:0] crc_q, crc_d;
  logic [4:0]  gap_q, gap_d;             // gap bytes still owed before the next /S/
  logic [63:0] tail_d_q, tail_d_d;       // the word after the last data word, when /T/ spills
  logic [7:0]  tail_c_q, tail_c_d;
  logic [63:0] txd_d;
  logic [7:0]  txc_d;
  logic        sent_d, underrun_d;

  // The word of this cycle's data (s_tdata_i or padding) and how many bytes of it count.
  logic [63:0] word;
  logic [3:0]  nbytes;        // 1..8
  logic        final_word;    // this word is the last one before the FCS
  logic [7:0]  lane_en;
  logic [31:0] crc_word;
  logic [127:0] buf_d;        // final word, FCS, /T/, idles: 16 lanes
  logic [15:0]  buf_c;
  logic [3:0]  keep_n;
  logic [4:0]  t_pos;         // lane of /T/ in buf_d, 4..12

  nic_crc32_lanes #(.Bytes(8)) u_crc (
    .crc_i(crc_q), .data_i(word), .en_i(lane_en), .crc_o(crc_word)
  );

  always_comb begin
    keep_n = '0;
    for (int i = 0; i < 8; i++) begin
      keep_n = keep_n + {3'b0, s_tkeep_i[i]};
    end
  end

  // The data word of StData / StPad (s_tdata_i or padding), how many of its bytes count, and
  // whether it is the last one before the FCS.
  always_comb begin
    word       = '0;
    nbytes     = 4'd8;
    final_word = 1'b0;
    if (state_q == StData) begin
      for (int i = 0; i < 8; i++) begin
        word[8*i +: 8] = s_tkeep_i[i] ? s_tdata_i[8*i +: 8] : 8'h00;
      end
      if (s_tlast_i) begin
        // Bytes of this word: the data, or up to 60 with padding.
        if ({10'd0, keep_n} + cnt_q >= 14'(MinFrame)) begin
          nbytes     = keep_n;
          final_word = 1'b1;
        end else if (cnt_q + 14'd8 >= 14'(MinFrame)) begin
          nbytes     = 4'(MinFrame - 32'(cnt_q));
          final_word = 1'b1;
        end
      end
    end else if (state_q == StPad) begin
      if (cnt_q + 14'd8 >= 14'(MinFrame)) begin
        nbytes     = 4'(MinFrame - 32'(cnt_q));
        final_word = 1'b1;
      end
    end
    lane_en = 8'hFF >> (4'd8 - nbytes);
  end

  // The final word followed by the FCS and /T/ in a 16-lane buffer.
  always_comb begin
    buf_d = {16{8'h07}};
    buf_c = 16'hFFFF;
    for (int i = 0; i < 8; i++) begin
      if (i < 32'(nbytes)) begin
        buf_d[8*i +: 8] = word[8*i +: 8];
        buf_c[i]        = 1'b0;
      end
    end
    for (int i = 1; i < 16; i++) begin
      if (i >= 32'(nbytes) && i < 32'(nbytes) + 4) begin
        buf_d[8*i +: 8] = ~crc_word[8*(i - 32'(nbytes)) +: 8];
        buf_c[i]        = 1'b0;
      end else if (i == 32'(nbytes) + 4) begin
        buf_d[8*i +: 8] = 8'hFD;
      end
    end
    t_pos = {1'b0, nbytes} + 5'd4;
  end

  always_comb begin
    state_d    = state_q;
    cnt_d      = cnt_q;
    crc_d      = crc_q;
    gap_d      = gap_q;
    tail_d_d   = tail_d_q;
    tail_c_d   = tail_c_q;
    txd_d      = IdleD;
    txc_d      = 8'hFF;
    sent_d     = 1'b0;
    underrun_d = 1'b0;
    s_tready_o = 1'b0;

    if (ce_i) begin
      gap_d = (gap_q > 5'd8) ? gap_q - 5'd8 : 5'd0;
      unique case (state_q)
        StIdle: begin
          if (gap_q <= 5'd8 && gap_q != 5'd0) begin
            // This idle word pays the rest of the gap.
          end else if (gap_q == 5'd0 && s_tvalid_i) begin
            txd_d   = StartD;
            txc_d   = 8'h01;
            state_d = StData;
            cnt_d   = '0;
            crc_d   = {32{1'b1}};
          end
        end
        StData, StPad: begin
          s_tready_o = state_q == StData;
          if (state_q == StData && !s_tvalid_i) begin
            txd_d      = ErrorD;
            txc_d      = 8'hFF;
            underrun_d = 1'b1;
            state_d    = StIdle;
            gap_d      = 5'(MinGapBytes);
          end else if (final_word) begin
            txd_d  = buf_d[63:0];
            txc_d  = buf_c[7:0];
            if (t_pos >= 5'd8) begin
              tail_d_d = buf_d[127:64];
              tail_c_d = buf_c[15:8];
              state_d  = StTail;
            end else begin
              state_d = StIdle;
              sent_d  = 1'b1;
              gap_d   = (5'(MinGapBytes) > 5'd8 - t_pos) ? 5'(MinGapBytes) - (5'd8 - t_pos) : 5'd0;
            end
          end else begin
            txd_d = word;
            txc_d = 8'h00;
            crc_d = crc_word;
            cnt_d = cnt_q + 14'd8;
            if (state_q == StData && s_tlast_i) begin
              state_d = StPad;
            end
          end
        end
        StTail: begin
          txd_d   = tail_d_q;
          txc_d   = tail_c_q;
          state_d = StIdle;
          sent_d  = 1'b1;
          gap_d   = (5'(MinGapBytes) > 5'd16 - t_pos_tail(tail_c_q))
                    ? 5'(MinGapBytes) - (5'd16 - t_pos_tail(tail_c_q)) : 5'd0;
        end
        default: state_d = StIdle;
      endcase
    end
  end

  // Lane of /T/ in the spilled word, plus 8: the first control lane.
  function automatic logic [4:0] t_pos_tail(input logic [7:0] c);
    t_pos_tail = 5'd15;
    for (int i = 7; i >= 0; i--) begin
      if (c[i]) begin
        t_pos_tail = 5'(8 + i);
      end
    end
  endfunction

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q      <= StIdle;
      cnt_q        <= '0;
      crc_q        <= '0;
      gap_q        <= '0;
      tail_d_q     <= IdleD;
      tail_c_q     <= 8'hFF;
      xgmii_txd_o  <= IdleD;
      xgmii_txc_o  <= 8'hFF;
      frame_sent_o <= 1'b0;
      underrun_o   <= 1'b0;
    end else begin
      frame_sent_o <= 1'b0;
      underrun_o   <= 1'b0;
      if (ce_i) begin
        state_q      <= state_d;
        cnt_q        <= cnt_d;
        crc_q        <= crc_d;
        gap_q        <= gap_d;
        tail_d_q     <= tail_d_d;
        tail_c_q     <= tail_c_d;
        xgmii_txd_o  <= txd_d;
        xgmii_txc_o  <= txc_d;
        frame_sent_o <= sent_d;
        underrun_o   <= underrun_d;
      end
    end
  end

endmodule
