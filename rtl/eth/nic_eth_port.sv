`default_nettype none
// nic_eth_port: one 10GBASE-R (or 25GBASE-R) Ethernet port between nic_core's AXI4-Stream ports
// (DataWidth bits, frames without FCS, in the core clock) and a transceiver's 64-bit parallel
// interface with a 2-bit sync header (the GTY with its 64B/66B gearbox, see nic_eth_pcs_tx).
//
//   core clock                    | TX line clock (TXUSRCLK2)
//   s_axis_tx -> store-and-forward async FIFO (DataWidth) -> DataWidth:64 -> MAC TX -> PCS TX -> serdes_tx
//   m_axis_rx <- store-and-forward async FIFO (DataWidth) <- 64:DataWidth <- MAC RX <- PCS RX <- serdes_rx
//   core clock                    | RX line clock (RXUSRCLK2)
//
// Transmit: a frame leaves only once it is whole in the FIFO, so the MAC never runs dry inside it.
// A frame longer than the FIFO (2^TxLogDepth words) can never be whole there: it is dropped and
// counted (stat_tx_drops_o) instead of stalling the core. Receive: the MAC's frames are written
// into the FIFO as they arrive and committed at their last word if good; a bad frame (FCS,
// runt, too long, errors) or one that finds the FIFO full is dropped there, and counted.
// The core's RX stream may stall; the FIFO then fills and later frames are dropped (counted in
// stat_rx_overflows_o), never half delivered.
//
// Clocks and resets: the three resets come from one source through nic_cdc_reset into each
// domain (nic_cdc_async_fifo's contract). 10G: line clocks 156.25 MHz; 25G: 390.625 MHz; the
// core clock must carry the line rate at DataWidth: f_core * DataWidth >= 64 * f_line (at
// DataWidth 256 and 10G, 39.1 MHz; at 25G, 97.7 MHz).
//
// Statistics: counters kept in their own domain, read in the core clock (nic_cdc_counter),
// wrapping at 2^32.
module nic_eth_port #(
  parameter int DataWidth     = 64,     // core stream width: 64 or 256
  parameter int TxLogDepth    = 14 + 3 - $clog2(DataWidth),  // 2^.. words: 16 KiB by default
  parameter int RxLogDepth    = 15 + 3 - $clog2(DataWidth),  // 32 KiB: three jumbo frames
  parameter int MaxFrameBytes = 9618,   // longest received frame, FCS included
  parameter int HiBerBlocks   = 19531   // 125 us in blocks: 19531 at 10G, 48828 at 25G
) (
  // core clock domain
  input  logic                   clk_i,
  input  logic                   rst_i,
  input  logic [DataWidth-1:0]   s_axis_tx_tdata_i,
  input  logic [DataWidth/8-1:0] s_axis_tx_tkeep_i,
  input  logic                   s_axis_tx_tlast_i,
  input  logic                   s_axis_tx_tvalid_i,
  output logic                   s_axis_tx_tready_o,
  output logic [DataWidth-1:0]   m_axis_rx_tdata_o,
  output logic [DataWidth/8-1:0] m_axis_rx_tkeep_o,
  output logic                   m_axis_rx_tlast_o,
  output logic                   m_axis_rx_tvalid_o,
  input  logic                   m_axis_rx_tready_i,
  output logic [31:0]            stat_tx_frames_o,     // frames sent
  output logic [31:0]            stat_tx_drops_o,      // frames dropped: too long, or cut by underrun
  output logic [31:0]            stat_rx_frames_o,     // good frames received (delivered or overflowed)
  output logic [31:0]            stat_rx_bad_fcs_o,    // frames dropped for a wrong FCS
  output logic [31:0]            stat_rx_errors_o,     // frames dropped for any other fault
  output logic [31:0]            stat_rx_overflows_o,  // good frames dropped: RX FIFO full
  output logic                   rx_block_lock_o,
  output logic                   rx_hi_ber_o,
  // transmit line clock domain
  input  logic                   tx_clk_i,
  input  logic                   tx_rst_i,
  input  logic                   tx_ce_i,             // the transceiver takes a block (1 with the async gearbox)
  output logic [63:0]            serdes_tx_data_o,
  output logic [1:0]             serdes_tx_hdr_o,
  // receive line clock domain
  input  logic                   rx_clk_i,
  input  logic                   rx_rst_i,
  input  logic [63:0]            serdes_rx_data_i,
  input  logic [1:0]             serdes_rx_hdr_i,
  input  logic                   serdes_rx_valid_i,
  output logic                   serdes_rx_slip_o
);

  localparam int KeepW  = DataWidth / 8;
  localparam int Beats  = DataWidth / 64;          // 64-bit beats per core word
  localparam int WordW  = DataWidth + KeepW + 1;   // {last, keep, data}
  localparam int BeatW  = (Beats > 1) ? $clog2(Beats) : 1;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_eth_port: DataWidth must be 64 or 256");
  end
  if ((1 << TxLogDepth) * DataWidth < 16384 * 8 / 4) begin : gen_small_tx
    $fatal(1, "nic_eth_port: the TX FIFO must hold at least 4 KiB");
  end

  // ================= transmit =================
  // ---- core side: store-and-forward write, dropping frames the FIFO can never hold ----
  logic             txw_ready;
  logic             txw_valid;
  logic             txw_drop;
  logic             tx_discard_q, tx_discard_d;   // dropping the rest of a too-long frame
  logic [TxLogDepth:0] tx_words_q, tx_words_d;    // words of the current frame written
  logic             tx_oversize;

  always_comb begin
    tx_discard_d = tx_discard_q;
    tx_words_d   = tx_words_q;
    txw_valid    = 1'b0;
    txw_drop     = 1'b0;
    tx_oversize  = 1'b0;
    s_axis_tx_tready_o = tx_discard_q || txw_ready;
    if (s_axis_tx_tvalid_i) begin
      if (tx_discard_q) begin
        if (s_axis_tx_tlast_i) begin
          tx_discard_d = 1'b0;
        end
      end else if (!s_axis_tx_tlast_i && tx_words_q == (TxLogDepth+1)'((1 << TxLogDepth) - 1)) begin
        // This word would fill the FIFO with an unfinished frame: drop the frame.
        s_axis_tx_tready_o = 1'b1;
        txw_drop     = 1'b1;
        tx_oversize  = 1'b1;
        tx_discard_d = 1'b1;
        tx_words_d   = '0;
      end else begin
        txw_valid = 1'b1;
        if (txw_ready) begin
          tx_words_d = s_axis_tx_tlast_i ? '0 : tx_words_q + 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      tx_discard_q <= 1'b0;
      tx_words_q   <= '0;
    end else begin
      tx_discard_q <= tx_discard_d;
      tx_words_q   <= tx_words_d;
    end
  end

  logic [WordW-1:0] txr_word;
  logic             txr_valid, txr_ready;

  nic_cdc_async_fifo #(.Width(WordW), .LogDepth(TxLogDepth), .PacketMode(1'b1)) u_tx_fifo (
    .wr_clk_i(clk_i), .wr_rst_i(rst_i),
    .wr_data_i({s_axis_tx_tlast_i, s_axis_tx_tkeep_i, s_axis_tx_tdata_i}),
    .wr_valid_i(txw_valid), .wr_ready_o(txw_ready),
    .wr_commit_i(s_axis_tx_tlast_i), .wr_drop_i(txw_drop),
    .rd_clk_i(tx_clk_i), .rd_rst_i(tx_rst_i),
    .rd_data_o(txr_word), .rd_valid_o(txr_valid), .rd_ready_i(txr_ready)
  );

  // ---- line side: DataWidth -> 64 ----
  logic [BeatW-1:0] tx_beat_q, tx_beat_d;
  logic [63:0]      mtx_tdata;
  logic [7:0]       mtx_tkeep;
  logic             mtx_tlast, mtx_tready;
  logic             txr_last;
  logic [KeepW-1:0] txr_keep;
  logic [DataWidth-1:0] txr_data;
  logic             beat_is_last_of_word;

  assign {txr_last, txr_keep, txr_data} = txr_word;

  always_comb begin
    mtx_tdata = txr_data[64*tx_beat_q +: 64];
    mtx_tkeep = txr_keep[8*tx_beat_q +: 8];
    if (Beats == 1) begin
      beat_is_last_of_word = 1'b1;
    end else begin
      beat_is_last_of_word = (32'(tx_beat_q) == Beats - 1) || !txr_keep[8*(32'(tx_beat_q)+1)];
    end
    mtx_tlast = txr_last && beat_is_last_of_word;
    txr_ready = mtx_tready && beat_is_last_of_word;
    tx_beat_d = tx_beat_q;
    if (txr_valid && mtx_tready) begin
      tx_beat_d = beat_is_last_of_word ? '0 : tx_beat_q + 1'b1;
    end
  end

  always_ff @(posedge tx_clk_i) begin
    if (tx_rst_i) begin
      tx_beat_q <= '0;
    end else begin
      tx_beat_q <= tx_beat_d;
    end
  end

  logic [63:0] txd;
  logic [7:0]  txc;
  logic        tx_sent, tx_underrun;

  nic_eth_mac_tx #(.MinGapBytes(12)) u_mac_tx (
    .clk_i(tx_clk_i), .rst_i(tx_rst_i), .ce_i(tx_ce_i),
    .s_tdata_i(mtx_tdata), .s_tkeep_i(mtx_tkeep), .s_tlast_i(mtx_tlast),
    .s_tvalid_i(txr_valid), .s_tready_o(mtx_tready),
    .xgmii_txd_o(txd), .xgmii_txc_o(txc),
    .frame_sent_o(tx_sent), .underrun_o(tx_underrun)
  );

  nic_eth_pcs_tx u_pcs_tx (
    .clk_i(tx_clk_i), .rst_i(tx_rst_i), .ce_i(tx_ce_i),
    .xgmii_txd_i(txd), .xgmii_txc_i(txc),
    .serdes_tx_data_o(serdes_tx_data_o), .serdes_tx_hdr_o(serdes_tx_hdr_o)
  );

  // ================= receive =================
  logic [63:0] rxd;
  logic [7:0]  rxc;
  logic        rxd_valid;
  logic        rx_lock, rx_hi_ber, rx_err_block;

  nic_eth_pcs_rx #(.SlipWaitCycles(16), .HiBerBlocks(HiBerBlocks)) u_pcs_rx (
    .clk_i(rx_clk_i), .rst_i(rx_rst_i),
    .serdes_rx_data_i(serdes_rx_data_i), .serdes_rx_hdr_i(serdes_rx_hdr_i),
    .serdes_rx_valid_i(serdes_rx_valid_i), .serdes_rx_slip_o(serdes_rx_slip_o),
    .xgmii_rxd_o(rxd), .xgmii_rxc_o(rxc), .xgmii_valid_o(rxd_valid),
    .block_lock_o(rx_lock), .hi_ber_o(rx_hi_ber), .error_block_o(rx_err_block)
  );

  logic [63:0] mrx_tdata;
  logic [7:0]  mrx_tkeep;
  logic        mrx_tlast, mrx_tuser, mrx_tvalid;
  logic        rx_good, rx_bad_fcs, rx_error;

  nic_eth_mac_rx #(.MaxFrameBytes(MaxFrameBytes)) u_mac_rx (
    .clk_i(rx_clk_i), .rst_i(rx_rst_i),
    .xgmii_rxd_i(rxd), .xgmii_rxc_i(rxc), .xgmii_valid_i(rxd_valid),
    .m_tdata_o(mrx_tdata), .m_tkeep_o(mrx_tkeep), .m_tlast_o(mrx_tlast), .m_tuser_o(mrx_tuser),
    .m_tvalid_o(mrx_tvalid),
    .good_o(rx_good), .bad_fcs_o(rx_bad_fcs), .error_o(rx_error)
  );

  // ---- 64 -> DataWidth, then the store-and-forward write ----
  logic [DataWidth-1:0] acc_data_q, acc_data_d;
  logic [KeepW-1:0]     acc_keep_q, acc_keep_d;
  logic [BeatW-1:0]     rx_beat_q, rx_beat_d;
  logic [WordW-1:0]     rxw_word_q, rxw_word_d;
  logic                 rxw_valid_q, rxw_valid_d;
  logic                 rxw_bad_q, rxw_bad_d;       // with a last word: drop the frame
  logic                 rxw_ready;
  logic                 rx_ovf_q, rx_ovf_d;         // this frame lost a word: drop it at its end
  logic                 rxw_commit, rxw_drop, rxw_write;
  logic                 rx_overflow;

  always_comb begin
    acc_data_d  = acc_data_q;
    acc_keep_d  = acc_keep_q;
    rx_beat_d   = rx_beat_q;
    rxw_word_d  = rxw_word_q;
    rxw_valid_d = 1'b0;
    rxw_bad_d   = 1'b0;
    if (mrx_tvalid) begin
      // one constant slice per beat (a write at the computed offset 64*rx_beat_q would be a
      // shifter of the whole word in Yosys 0.23)
      for (int b = 0; b < Beats; b++) begin
        if (32'(rx_beat_q) == b) begin
          acc_data_d[64*b +: 64] = mrx_tdata;
          acc_keep_d[8*b +: 8]   = mrx_tkeep;
        end
      end
      if (mrx_tlast || 32'(rx_beat_q) == Beats - 1) begin
        rxw_word_d  = {mrx_tlast, acc_keep_d, acc_data_d};
        rxw_valid_d = 1'b1;
        rxw_bad_d   = mrx_tlast && mrx_tuser;
        acc_keep_d  = '0;
        acc_data_d  = '0;
        rx_beat_d   = '0;
      end else begin
        rx_beat_d = rx_beat_q + 1'b1;
      end
    end
  end

  logic rxw_last;
  assign rxw_last = rxw_word_q[WordW-1];

  always_comb begin
    rx_ovf_d    = rx_ovf_q;
    rxw_write   = 1'b0;
    rxw_commit  = 1'b0;
    rxw_drop    = 1'b0;
    rx_overflow = 1'b0;
    if (rxw_valid_q) begin
      if (rxw_last) begin
        if (rxw_bad_q || rx_ovf_q || !rxw_ready) begin
          rxw_drop    = 1'b1;
          rx_overflow = !rxw_bad_q;
        end else begin
          rxw_write  = 1'b1;
          rxw_commit = 1'b1;
        end
        rx_ovf_d = 1'b0;
      end else if (rx_ovf_q || !rxw_ready) begin
        rx_ovf_d = 1'b1;
      end else begin
        rxw_write = 1'b1;
      end
    end
  end

  always_ff @(posedge rx_clk_i) begin
    if (rx_rst_i) begin
      acc_data_q  <= '0;
      acc_keep_q  <= '0;
      rx_beat_q   <= '0;
      rxw_word_q  <= '0;
      rxw_valid_q <= 1'b0;
      rxw_bad_q   <= 1'b0;
      rx_ovf_q    <= 1'b0;
    end else begin
      acc_data_q  <= acc_data_d;
      acc_keep_q  <= acc_keep_d;
      rx_beat_q   <= rx_beat_d;
      rxw_word_q  <= rxw_word_d;
      rxw_valid_q <= rxw_valid_d;
      rxw_bad_q   <= rxw_bad_d;
      rx_ovf_q    <= rx_ovf_d;
    end
  end

  logic [WordW-1:0] rxr_word;

  nic_cdc_async_fifo #(.Width(WordW), .LogDepth(RxLogDepth), .PacketMode(1'b1)) u_rx_fifo (
    .wr_clk_i(rx_clk_i), .wr_rst_i(rx_rst_i),
    .wr_data_i(rxw_word_q), .wr_valid_i(rxw_write), .wr_ready_o(rxw_ready),
    .wr_commit_i(rxw_commit), .wr_drop_i(rxw_drop),
    .rd_clk_i(clk_i), .rd_rst_i(rst_i),
    .rd_data_o(rxr_word), .rd_valid_o(m_axis_rx_tvalid_o), .rd_ready_i(m_axis_rx_tready_i)
  );

  assign {m_axis_rx_tlast_o, m_axis_rx_tkeep_o, m_axis_rx_tdata_o} = rxr_word;

  // ================= statistics and status, read in the core clock =================
  logic [31:0] tx_oversize_cnt_q;
  logic [31:0] tx_underrun_cnt;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      tx_oversize_cnt_q <= '0;
    end else if (tx_oversize) begin
      tx_oversize_cnt_q <= tx_oversize_cnt_q + 1'b1;
    end
  end

  assign stat_tx_drops_o = tx_oversize_cnt_q + tx_underrun_cnt;

  nic_cdc_counter #(.Width(32)) u_cnt_tx_frames (
    .src_clk_i(tx_clk_i), .src_rst_i(tx_rst_i), .src_inc_i(tx_sent),
    .dst_clk_i(clk_i), .dst_rst_i(rst_i), .dst_count_o(stat_tx_frames_o)
  );
  nic_cdc_counter #(.Width(32)) u_cnt_tx_underrun (
    .src_clk_i(tx_clk_i), .src_rst_i(tx_rst_i), .src_inc_i(tx_underrun),
    .dst_clk_i(clk_i), .dst_rst_i(rst_i), .dst_count_o(tx_underrun_cnt)
  );
  nic_cdc_counter #(.Width(32)) u_cnt_rx_frames (
    .src_clk_i(rx_clk_i), .src_rst_i(rx_rst_i), .src_inc_i(rx_good),
    .dst_clk_i(clk_i), .dst_rst_i(rst_i), .dst_count_o(stat_rx_frames_o)
  );
  nic_cdc_counter #(.Width(32)) u_cnt_rx_bad_fcs (
    .src_clk_i(rx_clk_i), .src_rst_i(rx_rst_i), .src_inc_i(rx_bad_fcs),
    .dst_clk_i(clk_i), .dst_rst_i(rst_i), .dst_count_o(stat_rx_bad_fcs_o)
  );
  nic_cdc_counter #(.Width(32)) u_cnt_rx_errors (
    .src_clk_i(rx_clk_i), .src_rst_i(rx_rst_i), .src_inc_i(rx_error),
    .dst_clk_i(clk_i), .dst_rst_i(rst_i), .dst_count_o(stat_rx_errors_o)
  );
  nic_cdc_counter #(.Width(32)) u_cnt_rx_overflows (
    .src_clk_i(rx_clk_i), .src_rst_i(rx_rst_i), .src_inc_i(rx_overflow),
    .dst_clk_i(clk_i), .dst_rst_i(rst_i), .dst_count_o(stat_rx_overflows_o)
  );
  nic_cdc_sync #(.Width(2), .Stages(2), .ResetValue(1'b0)) u_status_sync (
    .clk_i(clk_i), .rst_i(rst_i), .d_i({rx_hi_ber, rx_lock}), .q_o({rx_hi_ber_o, rx_block_lock_o})
  );

  // An error block outside a frame is no frame error; the PCS reports it for diagnosis only.
  logic unused_rx_err_block;
  assign unused_rx_err_block = rx_err_block;

endmodule
