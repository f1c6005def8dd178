`default_nettype none
// tb_eth_mac: the Ethernet MACs alone for test_eth_mac.py: nic_eth_mac_tx from a 64-bit stream to
// XGMII (checked by cocotbext-eth's XgmiiSink), nic_eth_mac_rx from XGMII (driven by cocotbext-eth's
// XgmiiSource) to a 64-bit stream. Counters of the RX MAC's pulses, so the bench reads totals.
module tb_eth_mac (
  input  wire        clk,
  input  wire        rst,
  input  wire [63:0] tx_tdata,
  input  wire [7:0]  tx_tkeep,
  input  wire        tx_tlast,
  input  wire        tx_tvalid,
  output wire        tx_tready,
  output wire [63:0] xgmii_txd,
  output wire [7:0]  xgmii_txc,
  input  wire [63:0] xgmii_rxd,
  input  wire [7:0]  xgmii_rxc,
  output wire [63:0] rx_tdata,
  output wire [7:0]  rx_tkeep,
  output wire        rx_tlast,
  output wire        rx_tuser,
  output wire        rx_tvalid,
  output logic [31:0] tx_frames,
  output logic [31:0] tx_underruns,
  output logic [31:0] rx_good,
  output logic [31:0] rx_bad_fcs,
  output logic [31:0] rx_errors
);

  wire sent, underrun, good, bad_fcs, error;

  nic_eth_mac_tx #(.MinGapBytes(12)) u_tx (
    .clk_i(clk), .rst_i(rst), .ce_i(1'b1),
    .s_tdata_i(tx_tdata), .s_tkeep_i(tx_tkeep), .s_tlast_i(tx_tlast), .s_tvalid_i(tx_tvalid),
    .s_tready_o(tx_tready), .xgmii_txd_o(xgmii_txd), .xgmii_txc_o(xgmii_txc),
    .frame_sent_o(sent), .underrun_o(underrun)
  );

  nic_eth_mac_rx #(.MaxFrameBytes(9618)) u_rx (
    .clk_i(clk), .rst_i(rst), .xgmii_rxd_i(xgmii_rxd), .xgmii_rxc_i(xgmii_rxc), .xgmii_valid_i(1'b1),
    .m_tdata_o(rx_tdata), .m_tkeep_o(rx_tkeep), .m_tlast_o(rx_tlast), .m_tuser_o(rx_tuser),
    .m_tvalid_o(rx_tvalid), .good_o(good), .bad_fcs_o(bad_fcs), .error_o(error)
  );

  always_ff @(posedge clk) begin
    if (rst) begin
      tx_frames    <= '0;
      tx_underruns <= '0;
      rx_good      <= '0;
      rx_bad_fcs   <= '0;
      rx_errors    <= '0;
    end else begin
      tx_frames    <= tx_frames + 32'(sent);
      tx_underruns <= tx_underruns + 32'(underrun);
      rx_good      <= rx_good + 32'(good);
      rx_bad_fcs   <= rx_bad_fcs + 32'(bad_fcs);
      rx_errors    <= rx_errors + 32'(error);
    end
  end

endmodule
