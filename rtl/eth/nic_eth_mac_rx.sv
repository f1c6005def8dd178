`default_nettype none
// nic_eth_mac_rx: the receive MAC of a 10G / 25G port, from the XGMII of the PCS (nic_eth_pcs_rx)
// to a 64-bit AXI4-Stream of frames without preamble and FCS.
//
// A frame starts with /S/ in lane 0 or lane 4 (a start in lane 4 is realigned to lane 0 here by
// delaying the stream half a word until the next start in lane 0, dropping the half word of idles
// before it), is checked for the SFD (0xD5), and ends at /T/. Its FCS is checked over every
// byte after the SFD (the CRC register of the frame and its FCS is the residue 0xDEBB20E3 when
// the FCS is right) and removed; the stream therefore runs one word behind the XGMII.
//
// Every frame that produced output ends with a beat with m_tlast_o; m_tuser_o on that beat says
// the frame is bad and must be dropped: FCS wrong (bad_fcs_o), or shorter than 64 bytes with FCS,
// longer than MaxFrameBytes, a control character other than /T/ inside it, or no valid SFD
// (error_o). Good frames pulse good_o. There is no back-pressure: the consumer takes every beat
// (nic_eth_port writes them into a store-and-forward FIFO that drops what does not fit).
module nic_eth_mac_rx #(
  parameter int MaxFrameBytes = 9618   // longest frame accepted, FCS included (9600 + header + FCS)
) (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic [63:0] xgmii_rxd_i,
  input  logic [7:0]  xgmii_rxc_i,
  input  logic        xgmii_valid_i,
  output logic [63:0] m_tdata_o,
  output logic [7:0]  m_tkeep_o,
  output logic        m_tlast_o,
  output logic        m_tuser_o,     // with m_tlast_o: drop this frame
  output logic        m_tvalid_o,
  output logic        good_o,        // pulse: a good frame ended
  output logic        bad_fcs_o,     // pulse: a frame with a wrong FCS ended
  output logic        error_o        // pulse: a frame ended for any other fault
);

  localparam logic [31:0] CrcResidue = 32'hDEBB20E3;
  localparam logic [63:0] IdleD = {8{8'h07}};

  if (MaxFrameBytes < 64 || MaxFrameBytes > 16383) begin : gen_bad_max
    $fatal(1, "nic_eth_mac_rx: MaxFrameBytes must be 64..16383");
  end

  // ---- lane-4 start realignment ----
  logic        shift_q, shift_d;
  logic [31:0] hi_d_q;         // the upper half of the previous word
  logic [3:0]  hi_c_q;
  logic [63:0] ad;             // aligned word
  logic [7:0]  ac;
  logic        start4, start0;

  assign start0 = xgmii_rxc_i[0] && xgmii_rxd_i[7:0] == 8'hFB;
  assign start4 = xgmii_rxc_i[4] && xgmii_rxd_i[39:32] == 8'hFB;

  always_comb begin
    shift_d = shift_q;
    ad      = xgmii_rxd_i;
    ac      = xgmii_rxc_i;
    if (!shift_q) begin
      if (start4 && !start0) begin
        // The lower half (perhaps the end of the last frame) now, the start next cycle.
        ad      = {IdleD[31:0], xgmii_rxd_i[31:0]};
        ac      = {4'hF, xgmii_rxc_i[3:0]};
        shift_d = 1'b1;
      end
    end else if (start0) begin
      // Back to lane 0: the half word held (idles in any legal gap) is dropped.
      shift_d = 1'b0;
    end else begin
      ad = {xgmii_rxd_i[31:0], hi_d_q};
      ac = {xgmii_rxc_i[3:0], hi_c_q};
    end
  end

  // ---- framing, FCS, one word of delay ----
  typedef enum logic [1:0] {
    StIdle, StFrame, StSkip
  } state_e;

  state_e      state_q, state_d;
  logic [63:0] held_q, held_d;         // the previous data word, not yet sent
  logic        held_v_q, held_v_d;
  logic [63:0] last_q, last_d;         // a final partial word, sent the cycle after /T/
  logic [2:0]  last_n_q, last_n_d;     // its byte count (1..3 stands for 1..3, 0 = none)
  logic        last_bad_q, last_bad_d;
  logic        last_v_q, last_v_d;
  logic [13:0] cnt_q, cnt_d;           // bytes after the SFD so far, FCS included
  logic [31:0] crc_q, crc_d;
  logic [31:0] crc_word;
  logic [7:0]  lane_en;
  logic [3:0]  t_lane;                 // first control lane of ad, 8 if none
  logic        is_term;

  logic [63:0] o_data_d;
  logic [7:0]  o_keep_d;
  logic        o_last_d, o_user_d, o_valid_d;
  logic        good_d, bad_fcs_d, error_d;
  logic        frame_bad;

  always_comb begin
    t_lane = 4'd8;
    for (int i = 7; i >= 0; i--) begin
      if (ac[i]) begin
        t_lane = 4'(i);
      end
    end
    is_term = t_lane != 4'd8 && ad[8*t_lane[2:0] +: 8] == 8'hFD;
    lane_en = (t_lane == 4'd8) ? 8'hFF : ~(8'hFF << t_lane);
  end

  nic_crc32_lanes #(.Bytes(8)) u_crc (
    .crc_i(crc_q), .data_i(ad), .en_i(lane_en), .crc_o(crc_word)
  );

  always_comb begin
    state_d    = state_q;
    held_d     = held_q;
    held_v_d   = held_v_q;
    last_d     = last_q;
    last_n_d   = last_n_q;
    last_bad_d = last_bad_q;
    last_v_d   = 1'b0;
    cnt_d      = cnt_q;
    crc_d      = crc_q;
    o_data_d   = held_q;
    o_keep_d   = 8'hFF;
    o_last_d   = 1'b0;
    o_user_d   = 1'b0;
    o_valid_d  = 1'b0;
    good_d     = 1'b0;
    bad_fcs_d  = 1'b0;
    error_d    = 1'b0;
    frame_bad  = 1'b0;

    // The partial last word of a frame that ended last cycle goes out first.
    if (last_v_q) begin
      o_data_d  = last_q;
      o_keep_d  = ~(8'hFF << last_n_q);
      o_last_d  = 1'b1;
      o_user_d  = last_bad_q;
      o_valid_d = 1'b1;
    end

    if (xgmii_valid_i) begin
      unique case (state_q)
        StIdle, StSkip: begin
          if (ac[0] && ad[7:0] == 8'hFB) begin
            held_v_d = 1'b0;
            cnt_d    = '0;
            crc_d    = {32{1'b1}};
            if (ac[7:1] == 7'h00 && ad[63:56] == 8'hD5) begin
              state_d = StFrame;
            end else begin
              state_d = StSkip;
              error_d = 1'b1;
            end
          end
        end
        StFrame: begin
          if (t_lane == 4'd8) begin
            // A whole data word: the held one goes out.
            crc_d = crc_word;
            cnt_d = cnt_q + 14'd8;
            if (held_v_q) begin
              o_data_d  = held_q;
              o_keep_d  = 8'hFF;
              o_valid_d = 1'b1;
            end
            held_d   = ad;
            held_v_d = 1'b1;
            if (cnt_q + 14'd8 > 14'(MaxFrameBytes)) begin
              // Too long: end the frame here as bad and skip the rest.
              o_data_d  = held_q;
              o_keep_d  = 8'hFF;
              o_last_d  = 1'b1;
              o_user_d  = 1'b1;
              o_valid_d = held_v_q;
              error_d   = 1'b1;
              state_d   = StSkip;
            end
          end else begin
            // The end: /T/ (good or bad FCS) or any other control character (error).
            state_d   = StIdle;
            frame_bad = !is_term || crc_word != CrcResidue
                        || cnt_q + 14'(t_lane) < 14'd64;
            if (is_term && crc_word != CrcResidue && cnt_q + 14'(t_lane) >= 14'd64) begin
              bad_fcs_d = 1'b1;
            end else if (frame_bad) begin
              error_d = 1'b1;
            end else begin
              good_d = 1'b1;
            end
            if (held_v_q) begin
              // held (8 bytes) + t_lane bytes, minus the 4 of the FCS.
              if (!is_term || t_lane <= 4'd4) begin
                o_data_d  = held_q;
                o_keep_d  = is_term ? ~(8'hFF << (t_lane + 4'd4)) : 8'hFF;
                o_last_d  = 1'b1;
                o_user_d  = frame_bad;
                o_valid_d = 1'b1;
              end else begin
                o_data_d   = held_q;
                o_keep_d   = 8'hFF;
                o_valid_d  = 1'b1;
                last_d     = ad;
                last_n_d   = 3'(t_lane - 4'd4);
                last_bad_d = frame_bad;
                last_v_d   = 1'b1;
              end
            end
            held_v_d = 1'b0;
          end
        end
        default: state_d = StIdle;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      shift_q    <= 1'b0;
      hi_d_q     <= IdleD[31:0];
      hi_c_q     <= 4'hF;
      state_q    <= StIdle;
      held_q     <= '0;
      held_v_q   <= 1'b0;
      last_q     <= '0;
      last_n_q   <= '0;
      last_bad_q <= 1'b0;
      last_v_q   <= 1'b0;
      cnt_q      <= '0;
      crc_q      <= '0;
      m_tdata_o  <= '0;
      m_tkeep_o  <= '0;
      m_tlast_o  <= 1'b0;
      m_tuser_o  <= 1'b0;
      m_tvalid_o <= 1'b0;
      good_o     <= 1'b0;
      bad_fcs_o  <= 1'b0;
      error_o    <= 1'b0;
    end else begin
      if (xgmii_valid_i) begin
        shift_q <= shift_d;
        hi_d_q  <= xgmii_rxd_i[63:32];
        hi_c_q  <= xgmii_rxc_i[7:4];
      end
      state_q    <= state_d;
      held_q     <= held_d;
      held_v_q   <= held_v_d;
      last_q     <= last_d;
      last_n_q   <= last_n_d;
      last_bad_q <= last_bad_d;
      last_v_q   <= last_v_d;
      cnt_q      <= cnt_d;
      crc_q      <= crc_d;
      m_tdata_o  <= o_data_d;
      m_tkeep_o  <= o_keep_d;
      m_tlast_o  <= o_last_d;
      m_tuser_o  <= o_user_d;
      m_tvalid_o <= o_valid_d;
      good_o     <= good_d;
      bad_fcs_o  <= bad_fcs_d;
      error_o    <= error_d;
    end
  end

endmodule
