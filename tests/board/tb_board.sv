`default_nettype none
// tb_board: nic_board_core for tests/board/test_board.py. The signals the models drive are plain
// signals, not ports (see tb_pcie_if.sv: with Verilator 5.006, writes to discovered top-level
// port handles are lost). The Ethernet line is the test's (baser.SerdesLine): the TX blocks go
// onto a modelled serial line and come back as 66-bit windows at a bit offset the receiver finds
// by slipping; TX and RX user clocks are separate, as the transceiver's are.
module tb_board #(
  parameter int CoreClockMhz     = 100,
  parameter int CplTimeoutCycles = 8000
);
  logic           clk;          // PCIe user clock (the block model drives it)
  logic           rst;          // PCIe user reset (the block model drives it)
  logic           core_clk;
  logic           eth_tx_clk;
  logic           eth_rx_clk;
  logic [255:0]   s_axis_rq_tdata;
  logic [7:0]     s_axis_rq_tkeep;
  logic           s_axis_rq_tlast;
  logic [61:0]    s_axis_rq_tuser;
  logic           s_axis_rq_tvalid;
  logic           s_axis_rq_tready;
  logic [255:0]   m_axis_rc_tdata;
  logic [7:0]     m_axis_rc_tkeep;
  logic           m_axis_rc_tlast;
  logic [74:0]    m_axis_rc_tuser;
  logic           m_axis_rc_tvalid;
  logic           m_axis_rc_tready;
  logic [255:0]   m_axis_cq_tdata;
  logic [7:0]     m_axis_cq_tkeep;
  logic           m_axis_cq_tlast;
  logic [87:0]    m_axis_cq_tuser;
  logic           m_axis_cq_tvalid;
  logic           m_axis_cq_tready;
  logic [1:0]     pcie_cq_np_req;
  logic [5:0]     pcie_cq_np_req_count;
  logic [255:0]   s_axis_cc_tdata;
  logic [7:0]     s_axis_cc_tkeep;
  logic           s_axis_cc_tlast;
  logic [32:0]    s_axis_cc_tuser;
  logic           s_axis_cc_tvalid;
  logic           s_axis_cc_tready;
  logic [1:0]     cfg_max_payload;
  logic [2:0]     cfg_max_read_req;
  logic [3:0]     cfg_interrupt_msix_enable;
  logic [3:0]     cfg_interrupt_msix_mask;
  logic [63:0]    eth_tx_data;
  logic [1:0]     eth_tx_hdr;
  logic [63:0]    eth_rx_data;
  logic [1:0]     eth_rx_hdr;
  logic           eth_rx_valid;
  logic           eth_rx_slip, eth_block_lock;
  logic           unused_tb;
  assign unused_tb = ^{pcie_cq_np_req_count};

  nic_board_core #(
    .DataWidth(256), .NumQps(16), .NumCqs(16), .NumMrs(256), .MttEntries(1024), .MsixVectors(16),
    .CoreClockMhz(CoreClockMhz), .CplTimeoutCycles(CplTimeoutCycles)
  ) u_dut (
    .rst_i(rst), .core_clk_i(core_clk), .pcie_clk_i(clk),
    .s_axis_rq_tdata_o(s_axis_rq_tdata), .s_axis_rq_tkeep_o(s_axis_rq_tkeep),
    .s_axis_rq_tlast_o(s_axis_rq_tlast), .s_axis_rq_tuser_o(s_axis_rq_tuser),
    .s_axis_rq_tvalid_o(s_axis_rq_tvalid), .s_axis_rq_tready_i(s_axis_rq_tready),
    .m_axis_rc_tdata_i(m_axis_rc_tdata), .m_axis_rc_tkeep_i(m_axis_rc_tkeep),
    .m_axis_rc_tlast_i(m_axis_rc_tlast), .m_axis_rc_tuser_i(m_axis_rc_tuser),
    .m_axis_rc_tvalid_i(m_axis_rc_tvalid), .m_axis_rc_tready_o(m_axis_rc_tready),
    .m_axis_cq_tdata_i(m_axis_cq_tdata), .m_axis_cq_tkeep_i(m_axis_cq_tkeep),
    .m_axis_cq_tlast_i(m_axis_cq_tlast), .m_axis_cq_tuser_i(m_axis_cq_tuser),
    .m_axis_cq_tvalid_i(m_axis_cq_tvalid), .m_axis_cq_tready_o(m_axis_cq_tready),
    .pcie_cq_np_req_o(pcie_cq_np_req),
    .s_axis_cc_tdata_o(s_axis_cc_tdata), .s_axis_cc_tkeep_o(s_axis_cc_tkeep),
    .s_axis_cc_tlast_o(s_axis_cc_tlast), .s_axis_cc_tuser_o(s_axis_cc_tuser),
    .s_axis_cc_tvalid_o(s_axis_cc_tvalid), .s_axis_cc_tready_i(s_axis_cc_tready),
    .cfg_max_payload_i(cfg_max_payload), .cfg_max_read_req_i(cfg_max_read_req),
    .cfg_msix_enable_i(cfg_interrupt_msix_enable[0]), .cfg_msix_mask_i(cfg_interrupt_msix_mask[0]),
    .cfg_bus_number_i(8'd1),
    .eth_tx_clk_i(eth_tx_clk), .eth_tx_data_o(eth_tx_data), .eth_tx_hdr_o(eth_tx_hdr),
    .eth_rx_clk_i(eth_rx_clk), .eth_rx_data_i(eth_rx_data), .eth_rx_hdr_i(eth_rx_hdr),
    .eth_rx_valid_i(eth_rx_valid), .eth_rx_slip_o(eth_rx_slip), .eth_block_lock_o(eth_block_lock)
  );
endmodule
