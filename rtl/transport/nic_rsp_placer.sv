`default_nettype none
// nic_rsp_placer: the responder's placement engine. It turns the payload bytes of a received
// packet (pl_*: words of pl_nbytes_i bytes from nic_roce_rx) into DMA write beats aligned to the
// host address, with byte strobes (wr_*: valid / ready, to nic_dma_wr), one piece at a time.
//
// The dispatcher plans a piece (a logical address translated to a physical one, inside one
// page and one burst), issues its write request and starts the placer in the same cycle
// (start_i, with the piece's first byte lane, length and beats). While active_i the placer
// takes bytes from the word in hand (a word may feed two pieces: rd_off remembers the bytes
// already used; word_done_o says the word is used up) and sends beats; done_o marks the cycle
// the piece's last beat is accepted. drain_i (the dispatcher drops the rest of a packet) forgets
// the bytes used of the word in hand.
module nic_rsp_placer #(
  parameter int DataWidth = 64    // stream and DMA width: 64 or 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // the piece
  input  logic                          start_i,
  input  logic [$clog2(DataWidth/8)-1:0] start_lane_i,   // its first byte's lane in its first beat
  input  logic [12:0]                   start_len_i,
  input  logic [7:0]                    start_beats_i,   // its beats (256: 0)
  input  logic                          active_i,        // the dispatcher places it
  input  logic                          drain_i,
  output logic                          done_o,
  // the payload
  input  logic                          pl_valid_i,
  input  logic [DataWidth-1:0]          pl_data_i,
  input  logic [$clog2(DataWidth/8):0]  pl_nbytes_i,
  output logic                          word_done_o,     // pl_ready for the word in hand
  // DMA write beats
  output logic                          wr_valid_o,
  output logic [DataWidth-1:0]          wr_data_o,
  output logic [DataWidth/8-1:0]        wr_strb_o,
  input  logic                          wr_ready_i
);

  localparam int W8 = DataWidth / 8;
  localparam int LW = $clog2(W8);
  localparam int CB = $clog2(2 * W8) + 1;

  logic [DataWidth-1:0]   rd_word;                 // the payload word in hand (pl_data_i)
  logic [LW:0]            rd_off_q, rd_off_d;      // its bytes already used
  logic [2*DataWidth-1:0] acc_q;                   // (wide: loaded only when it changes)
  logic [2*W8-1:0]        sacc_q;                  // the strobes of acc
  logic [CB-1:0]          cnt_out;                 // cnt after this cycle's beat out
  logic [CB-1:0]          cnt_q, cnt_d;            // lanes filled in acc (leading gap included)
  logic [12:0]            take_left_q, take_left_d;// bytes of the piece still to take
  logic [7:0]             beats_left_q, beats_left_d;
  logic [LW:0]            ch_n;                    // bytes taken this cycle
  logic                   ch_take, beat_out, last_beat;

  assign rd_word = pl_data_i;

  // this cycle's chunk: the unused bytes of the word in hand, at most what the piece still takes,
  // shifted to lane 0 and cut to ch_n bytes (stray bytes would corrupt the lanes after them).
  // Its lanes below ch_n = min(the word's bytes left, take_left_q) are found side by side, each
  // against one of the two (no compare after the min). Whether a chunk is taken at all (ch_take,
  // which waits for the DMA's wr_ready_i) gates it only after its shift into the accumulator,
  // not before: so the handshake does not run through the shifter's data.
  logic [DataWidth-1:0] chunk_data;
  logic [LW:0]          word_left;               // the word's bytes not yet used
  logic [W8-1:0]        chunk_lanes;             // the chunk's lanes: below ch_n
  always_comb begin
    word_left = pl_nbytes_i - rd_off_q;
    for (int i = 0; i < W8; i++) begin
      chunk_lanes[i] = (LW+1)'(i) < word_left && 13'(i) < take_left_q;
    end
    chunk_data = rd_word >> (8 * 32'(rd_off_q));
    for (int i = 0; i < W8; i++) begin
      if (!chunk_lanes[i]) begin
        chunk_data[8*i +: 8] = 8'd0;
      end
    end
  end

  always_comb begin
    ch_n = pl_nbytes_i - rd_off_q;
    if (13'(ch_n) > take_left_q) begin
      ch_n = (LW+1)'(take_left_q);
    end
    // a beat goes out when W8 lanes are filled, or the piece is all taken and lanes remain
    last_beat = beats_left_q == 8'd1;
    beat_out  = active_i
                && (cnt_q >= CB'(W8) || (take_left_q == '0 && cnt_q != '0 && last_beat));
    ch_take   = active_i && take_left_q != '0 && pl_valid_i
                && (cnt_q - ((beat_out && wr_ready_i) ? CB'(W8) : '0)) <= CB'(W8);
    cnt_out   = (beat_out && wr_ready_i) ? ((cnt_q >= CB'(W8)) ? cnt_q - CB'(W8) : '0) : cnt_q;
  end

  assign wr_valid_o = beat_out;
  assign wr_data_o  = acc_q[DataWidth-1:0];
  assign wr_strb_o  = sacc_q[W8-1:0];
  assign done_o     = beat_out && wr_ready_i && last_beat;

  always_comb begin
    rd_off_d     = rd_off_q;
    cnt_d        = cnt_q;
    take_left_d  = take_left_q;
    beats_left_d = beats_left_q;
    word_done_o  = 1'b0;
    if (start_i) begin
      beats_left_d = start_beats_i;
      take_left_d  = start_len_i;
      cnt_d        = CB'(start_lane_i);        // leading lanes: not written
    end
    if (active_i) begin
      // beats out
      if (beat_out && wr_ready_i) begin
        cnt_d        = cnt_out;
        beats_left_d = beats_left_q - 8'd1;
      end
      // payload bytes in
      if (ch_take) begin
        cnt_d       = cnt_d + CB'(ch_n);
        take_left_d = take_left_q - 13'(ch_n);
        if (rd_off_q + ch_n == pl_nbytes_i) begin
          word_done_o = 1'b1;
          rd_off_d    = '0;
        end else begin
          rd_off_d = rd_off_q + ch_n;
        end
      end
    end
    if (drain_i) begin
      rd_off_d = '0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rd_off_q <= '0;
      cnt_q    <= '0;
    end else begin
      rd_off_q <= rd_off_d;
      cnt_q    <= cnt_d;
    end
  end

  always_ff @(posedge clk_i) begin
    // (loaded only while a piece is started or placed: an idle placer copies nothing)
    if (start_i || active_i) begin
      take_left_q  <= take_left_d;
      beats_left_q <= beats_left_d;
    end
    // the accumulator (wide): cleared for a piece, then shifted by a beat out and filled by a
    // chunk in
    if (start_i) begin
      acc_q  <= '0;
      sacc_q <= '0;
    end else if (beat_out && wr_ready_i || ch_take) begin
      acc_q  <= ((beat_out && wr_ready_i) ? (acc_q >> DataWidth) : acc_q)
                | (ch_take ? ((2*DataWidth)'(chunk_data) << (8 * cnt_out)) : '0);
      sacc_q <= ((beat_out && wr_ready_i) ? (sacc_q >> W8) : sacc_q)
                | (ch_take ? ((2*W8)'(chunk_lanes) << cnt_out) : '0);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i && done_o) begin
      a_beats_match: assert (take_left_q == '0);
    end
  end
`endif

endmodule
