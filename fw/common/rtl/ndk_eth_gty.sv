`default_nettype none
// ndk_eth_gty: one 10GBASE-R lane of a board: the GTY transceiver IP (eth_gty_10g, configured by
// fw/common/ip/eth_gty_10g.tcl: 64B/66B asynchronous gearbox, 64-bit interface), its reference
// clock buffer, the TX and RX user clocks (BUFG_GT of TXOUTCLK / RXOUTCLK, 156.25 MHz) and the
// bit order between rtl/eth's serdes ports (IEEE order: bit 0 first on the line) and the GTY's.
//
// Bit order: the GTY's gearbox sends TXHEADER[1] first (AM002 / UG578: "H1 corresponds to
// TxB<0>") and, in the working open designs on these transceivers (Corundum's eth_phy_10g with
// BIT_REVERSE = 1), the data word reversed as well; both are reversed here, in both directions.
// Not verified on hardware: if a link partner never reaches block lock, this is the first place
// to look (docs/ethernet.md).
//
// tx_rst_o / rx_rst_o: high until the wizard's reset controller reports the TX / RX datapath
// done; asynchronous outputs (from the free-running domain), to be synchronised by the user
// (the board top makes one reset of them for every domain of the Ethernet port).
module ndk_eth_gty (
  input  wire         freerun_clk_i,     // free-running clock of the wizard's reset helper
  input  wire         rst_i,             // resets the transceiver (free-running domain)
  input  wire         gt_refclk_p_i,     // 156.25 MHz QSFP reference clock
  input  wire         gt_refclk_n_i,
  input  wire         gt_rx_p_i,
  input  wire         gt_rx_n_i,
  output wire         gt_tx_p_o,
  output wire         gt_tx_n_o,
  output wire         tx_clk_o,          // TXUSRCLK2, 156.25 MHz
  output wire         tx_rst_o,
  output wire         rx_clk_o,          // RXUSRCLK2, 156.25 MHz (recovered)
  output wire         rx_rst_o,
  input  wire [63:0]  serdes_tx_data_i,
  input  wire [1:0]   serdes_tx_hdr_i,
  output logic [63:0] serdes_rx_data_o,
  output logic [1:0]  serdes_rx_hdr_o,
  output wire         serdes_rx_valid_o,
  input  wire         serdes_rx_slip_i
);

  wire gt_refclk;
  wire txoutclk, rxoutclk;
  wire tx_pma_done, tx_prgdiv_done, rx_pma_done, rx_prgdiv_done;
  wire tx_done, rx_done;
  wire [127:0] rxdata;
  wire [5:0]   rxheader;
  wire [1:0]   rxdatavalid, rxheadervalid;
  logic [63:0] txdata_rev;
  logic [1:0]  txheader_rev;
  logic        tx_active_q, rx_active_q;

  IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) u_refclk_buf (
    .I(gt_refclk_p_i), .IB(gt_refclk_n_i), .CEB(1'b0), .O(gt_refclk), .ODIV2()
  );

  // The user clocks may run once the PMA and the programmable divider are out of reset.
  BUFG_GT u_tx_usrclk (
    .I(txoutclk), .CE(1'b1), .CEMASK(1'b0), .CLR(!(tx_pma_done && tx_prgdiv_done)), .CLRMASK(1'b0),
    .DIV(3'd0), .O(tx_clk_o)
  );
  BUFG_GT u_rx_usrclk (
    .I(rxoutclk), .CE(1'b1), .CEMASK(1'b0), .CLR(!(rx_pma_done && rx_prgdiv_done)), .CLRMASK(1'b0),
    .DIV(3'd0), .O(rx_clk_o)
  );

  // "user clock active" for the wizard: set by the first edge of the running user clock.
  always_ff @(posedge tx_clk_o or negedge tx_pma_done) begin
    if (!tx_pma_done) begin
      tx_active_q <= 1'b0;
    end else begin
      tx_active_q <= 1'b1;
    end
  end
  always_ff @(posedge rx_clk_o or negedge rx_pma_done) begin
    if (!rx_pma_done) begin
      rx_active_q <= 1'b0;
    end else begin
      rx_active_q <= 1'b1;
    end
  end

  always_comb begin
    for (int i = 0; i < 64; i++) begin
      txdata_rev[i]       = serdes_tx_data_i[63 - i];
      serdes_rx_data_o[i] = rxdata[63 - i];
    end
    txheader_rev    = {serdes_tx_hdr_i[0], serdes_tx_hdr_i[1]};
    serdes_rx_hdr_o = {rxheader[0], rxheader[1]};
  end

  assign serdes_rx_valid_o = rxdatavalid[0] && rxheadervalid[0];
  assign tx_rst_o = !tx_done;
  assign rx_rst_o = !rx_done;

  eth_gty_10g u_gty (
    .gtwiz_userclk_tx_active_in(tx_active_q),
    .gtwiz_userclk_rx_active_in(rx_active_q),
    .gtwiz_reset_clk_freerun_in(freerun_clk_i),
    .gtwiz_reset_all_in(rst_i),
    .gtwiz_reset_tx_pll_and_datapath_in(1'b0),
    .gtwiz_reset_tx_datapath_in(1'b0),
    .gtwiz_reset_rx_pll_and_datapath_in(1'b0),
    .gtwiz_reset_rx_datapath_in(1'b0),
    .gtwiz_reset_rx_cdr_stable_out(),
    .gtwiz_reset_tx_done_out(tx_done),
    .gtwiz_reset_rx_done_out(rx_done),
    .gtrefclk00_in(gt_refclk),
    .qpll0outclk_out(),
    .qpll0outrefclk_out(),
    .gtyrxn_in(gt_rx_n_i),
    .gtyrxp_in(gt_rx_p_i),
    .rxgearboxslip_in(serdes_rx_slip_i),
    .rxusrclk_in(rx_clk_o),
    .rxusrclk2_in(rx_clk_o),
    .txdata_in({64'd0, txdata_rev}),
    .txheader_in({4'd0, txheader_rev}),
    .txsequence_in(7'd0),               // asynchronous gearbox: no sequence counter
    .txusrclk_in(tx_clk_o),
    .txusrclk2_in(tx_clk_o),
    .gtpowergood_out(),
    .gtytxn_out(gt_tx_n_o),
    .gtytxp_out(gt_tx_p_o),
    .rxdata_out(rxdata),
    .rxdatavalid_out(rxdatavalid),
    .rxheader_out(rxheader),
    .rxheadervalid_out(rxheadervalid),
    .rxoutclk_out(rxoutclk),
    .rxpmaresetdone_out(rx_pma_done),
    .rxprgdivresetdone_out(rx_prgdiv_done),
    .rxstartofseq_out(),
    .txoutclk_out(txoutclk),
    .txpmaresetdone_out(tx_pma_done),
    .txprgdivresetdone_out(tx_prgdiv_done)
  );

  // The upper halves of the 128-bit ports belong to the 128-bit interface, unused at 64 bits.
  wire unused_rx = ^{rxdata[127:64], rxheader[5:2], rxdatavalid[1], rxheadervalid[1]};

endmodule
