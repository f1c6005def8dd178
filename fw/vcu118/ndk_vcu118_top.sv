`default_nettype none
// ndk_vcu118_top: ndknic on the AMD VCU118 (XCVU9P-L2FLGA2104E): the PCIe x16 edge connector used
// as Gen3 x8, one 10GBASE-R port on lane 1 of QSFP28 cage 1, the board's 125 MHz oscillator for
// the core clock. Pins and I/O standards: constraints/vcu118/vcu118.xdc. The parameters are set
// by fw/vcu118/config.tcl (the board's one configuration), passed here as generics.
//
// Clocks: PCIe user clock 250 MHz (from the hard block), core clock CoreClockMhz (MMCM from
// 125 MHz), Ethernet TX / RX user clocks 156.25 MHz (GTY), 125 MHz from the same MMCM for the GTY
// reset helper.
// Reset: one asynchronous source (PCIe user_reset, MMCM not locked, transceiver reset not done)
// that nic_board_core synchronises into each of its domains.
// LEDs (led[7:0], led[0] nearest the edge of the board): see fw/vcu118/README.md.
module ndk_vcu118_top #(
  parameter int  DataWidth    = 256,
  parameter int  NumQps       = 64,
  parameter int  NumCqs       = 64,
  parameter int  NumMrs       = 1024,
  parameter int  MttEntries   = 4096,
  parameter int  MsixVectors  = 64,
  parameter int  CoreClockMhz = 40,
  parameter int  MmcmMult     = 8,      // 125 MHz x 8 = 1000 MHz VCO
  parameter int  MmcmDiv      = 1,
  parameter int  MmcmOutDiv   = 25,     // 1000 / 25 = 40 MHz
  parameter int  MmcmAuxDiv   = 8       // 1000 / 8 = 125 MHz for the transceiver reset helper
) (
  input  wire       clk_125mhz_p,
  input  wire       clk_125mhz_n,
  output wire [7:0] led,
  // PCIe
  input  wire       pcie_refclk_p,
  input  wire       pcie_refclk_n,
  input  wire       pcie_reset_n,
  input  wire [7:0] pcie_rx_p,
  input  wire [7:0] pcie_rx_n,
  output wire [7:0] pcie_tx_p,
  output wire [7:0] pcie_tx_n,
  // QSFP28 cage 1, lane 1
  input  wire       qsfp1_mgt_refclk_0_p,
  input  wire       qsfp1_mgt_refclk_0_n,
  input  wire       qsfp1_rx1_p,
  input  wire       qsfp1_rx1_n,
  output wire       qsfp1_tx1_p,
  output wire       qsfp1_tx1_n,
  output wire       qsfp1_modsell,
  output wire       qsfp1_resetl,
  input  wire       qsfp1_modprsl,
  input  wire       qsfp1_intl,
  output wire       qsfp1_lpmode
);

  wire freerun_clk, core_clk, mmcm_locked;
  wire pcie_perst_n;

  IBUF u_perst_buf (.I(pcie_reset_n), .O(pcie_perst_n));

  ndk_core_clock #(
    .InPeriodNs(8.0), .Mult(MmcmMult), .Div(MmcmDiv), .OutDiv(MmcmOutDiv), .AuxDiv(MmcmAuxDiv)
  ) u_clocks (
    .clk_p_i(clk_125mhz_p), .clk_n_i(clk_125mhz_n), .rst_i(1'b0),
    .aux_clk_o(freerun_clk), .core_clk_o(core_clk), .locked_o(mmcm_locked)
  );

  // ---- PCIe ----
  wire         pcie_clk, pcie_rst, pcie_lnk_up;
  wire [255:0] rq_tdata, rc_tdata, cq_tdata, cc_tdata;
  wire [7:0]   rq_tkeep, rc_tkeep, cq_tkeep, cc_tkeep;
  wire         rq_tlast, rc_tlast, cq_tlast, cc_tlast;
  wire [61:0]  rq_tuser;
  wire [74:0]  rc_tuser;
  wire [87:0]  cq_tuser;
  wire [32:0]  cc_tuser;
  wire         rq_tvalid, rc_tvalid, cq_tvalid, cc_tvalid;
  wire         rq_tready, rc_tready, cq_tready, cc_tready;
  wire [1:0]   cq_np_req;
  wire [1:0]   cfg_max_payload;
  wire [2:0]   cfg_max_read_req;
  wire         cfg_msix_enable, cfg_msix_mask;
  wire [7:0]   cfg_bus_number;

  ndk_pcie_block u_pcie (
    .refclk_p_i(pcie_refclk_p), .refclk_n_i(pcie_refclk_n), .perst_n_i(pcie_perst_n),
    .rx_p_i(pcie_rx_p), .rx_n_i(pcie_rx_n), .tx_p_o(pcie_tx_p), .tx_n_o(pcie_tx_n),
    .user_clk_o(pcie_clk), .user_reset_o(pcie_rst), .user_lnk_up_o(pcie_lnk_up),
    .s_axis_rq_tdata_i(rq_tdata), .s_axis_rq_tkeep_i(rq_tkeep), .s_axis_rq_tlast_i(rq_tlast),
    .s_axis_rq_tuser_i(rq_tuser), .s_axis_rq_tvalid_i(rq_tvalid), .s_axis_rq_tready_o(rq_tready),
    .m_axis_rc_tdata_o(rc_tdata), .m_axis_rc_tkeep_o(rc_tkeep), .m_axis_rc_tlast_o(rc_tlast),
    .m_axis_rc_tuser_o(rc_tuser), .m_axis_rc_tvalid_o(rc_tvalid), .m_axis_rc_tready_i(rc_tready),
    .m_axis_cq_tdata_o(cq_tdata), .m_axis_cq_tkeep_o(cq_tkeep), .m_axis_cq_tlast_o(cq_tlast),
    .m_axis_cq_tuser_o(cq_tuser), .m_axis_cq_tvalid_o(cq_tvalid), .m_axis_cq_tready_i(cq_tready),
    .pcie_cq_np_req_i(cq_np_req),
    .s_axis_cc_tdata_i(cc_tdata), .s_axis_cc_tkeep_i(cc_tkeep), .s_axis_cc_tlast_i(cc_tlast),
    .s_axis_cc_tuser_i(cc_tuser), .s_axis_cc_tvalid_i(cc_tvalid), .s_axis_cc_tready_o(cc_tready),
    .cfg_max_payload_o(cfg_max_payload), .cfg_max_read_req_o(cfg_max_read_req),
    .cfg_msix_enable_o(cfg_msix_enable), .cfg_msix_mask_o(cfg_msix_mask),
    .cfg_bus_number_o(cfg_bus_number)
  );

  // ---- Ethernet: QSFP28 cage 1, lane 1 ----
  wire        eth_tx_clk, eth_tx_rst, eth_rx_clk, eth_rx_rst;
  wire [63:0] eth_tx_data, eth_rx_data;
  wire [1:0]  eth_tx_hdr, eth_rx_hdr;
  wire        eth_rx_valid, eth_rx_slip, eth_block_lock;

  ndk_eth_gty u_eth_gty (
    .freerun_clk_i(freerun_clk), .rst_i(!mmcm_locked),
    .gt_refclk_p_i(qsfp1_mgt_refclk_0_p), .gt_refclk_n_i(qsfp1_mgt_refclk_0_n),
    .gt_rx_p_i(qsfp1_rx1_p), .gt_rx_n_i(qsfp1_rx1_n), .gt_tx_p_o(qsfp1_tx1_p), .gt_tx_n_o(qsfp1_tx1_n),
    .tx_clk_o(eth_tx_clk), .tx_rst_o(eth_tx_rst), .rx_clk_o(eth_rx_clk), .rx_rst_o(eth_rx_rst),
    .serdes_tx_data_i(eth_tx_data), .serdes_tx_hdr_i(eth_tx_hdr),
    .serdes_rx_data_o(eth_rx_data), .serdes_rx_hdr_o(eth_rx_hdr), .serdes_rx_valid_o(eth_rx_valid),
    .serdes_rx_slip_i(eth_rx_slip)
  );

  // QSFP28 management: module selected, out of reset, high-power mode (no I2C access is made).
  assign qsfp1_modsell = 1'b0;
  assign qsfp1_resetl  = 1'b1;
  assign qsfp1_lpmode  = 1'b0;

  // ---- the board-independent NIC ----
  wire board_rst = pcie_rst || !mmcm_locked || eth_tx_rst || eth_rx_rst;

  nic_board_core #(
    .DataWidth(DataWidth), .NumQps(NumQps), .NumCqs(NumCqs), .NumMrs(NumMrs),
    .MttEntries(MttEntries), .MsixVectors(MsixVectors), .CoreClockMhz(CoreClockMhz)
  ) u_nic (
    .rst_i(board_rst),
    .core_clk_i(core_clk),
    .pcie_clk_i(pcie_clk),
    .s_axis_rq_tdata_o(rq_tdata), .s_axis_rq_tkeep_o(rq_tkeep), .s_axis_rq_tlast_o(rq_tlast),
    .s_axis_rq_tuser_o(rq_tuser), .s_axis_rq_tvalid_o(rq_tvalid), .s_axis_rq_tready_i(rq_tready),
    .m_axis_rc_tdata_i(rc_tdata), .m_axis_rc_tkeep_i(rc_tkeep), .m_axis_rc_tlast_i(rc_tlast),
    .m_axis_rc_tuser_i(rc_tuser), .m_axis_rc_tvalid_i(rc_tvalid), .m_axis_rc_tready_o(rc_tready),
    .m_axis_cq_tdata_i(cq_tdata), .m_axis_cq_tkeep_i(cq_tkeep), .m_axis_cq_tlast_i(cq_tlast),
    .m_axis_cq_tuser_i(cq_tuser), .m_axis_cq_tvalid_i(cq_tvalid), .m_axis_cq_tready_o(cq_tready),
    .pcie_cq_np_req_o(cq_np_req),
    .s_axis_cc_tdata_o(cc_tdata), .s_axis_cc_tkeep_o(cc_tkeep), .s_axis_cc_tlast_o(cc_tlast),
    .s_axis_cc_tuser_o(cc_tuser), .s_axis_cc_tvalid_o(cc_tvalid), .s_axis_cc_tready_i(cc_tready),
    .cfg_max_payload_i(cfg_max_payload), .cfg_max_read_req_i(cfg_max_read_req),
    .cfg_msix_enable_i(cfg_msix_enable), .cfg_msix_mask_i(cfg_msix_mask),
    .cfg_bus_number_i(cfg_bus_number),
    .eth_tx_clk_i(eth_tx_clk), .eth_tx_data_o(eth_tx_data), .eth_tx_hdr_o(eth_tx_hdr),
    .eth_rx_clk_i(eth_rx_clk), .eth_rx_data_i(eth_rx_data), .eth_rx_hdr_i(eth_rx_hdr),
    .eth_rx_valid_i(eth_rx_valid), .eth_rx_slip_o(eth_rx_slip),
    .eth_block_lock_o(eth_block_lock)
  );

  // ---- LEDs ----
  wire [5:0] status;

  ndk_board_status #(.CoreClockMhz(CoreClockMhz)) u_status (
    .core_clk_i(core_clk), .eth_tx_clk_i(eth_tx_clk),
    .pcie_link_up_i(pcie_lnk_up), .eth_block_lock_i(eth_block_lock),
    .qsfp_present_i(!qsfp1_modprsl), .clocks_ok_i(mmcm_locked && !eth_tx_rst && !eth_rx_rst),
    .led_o(status)
  );

  assign led = {1'b0, !qsfp1_intl, status};

endmodule
