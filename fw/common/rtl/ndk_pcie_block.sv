`default_nettype none
// ndk_pcie_block: the PCIe hard block of a board (pcie4_uscale_plus_0, configured by
// fw/common/ip/pcie4_uscale_plus.tcl: Gen3 x8 endpoint, 256-bit interface at 250 MHz, MSI-X
// external), its reference clock buffers (PG213: sys_clk_gt from the IBUFDS_GTE4's O, sys_clk
// from ODIV2 through a BUFG_GT) and PERST#. Exposes the four AXI4-Stream interfaces and the
// configuration status that rtl/pcie's pcie_us_if uses; every other IP input is tied to its
// inactive value here, once for every board.
module ndk_pcie_block (
  input  wire         refclk_p_i,        // 100 MHz PCIe reference clock from the slot
  input  wire         refclk_n_i,
  input  wire         perst_n_i,         // PERST#, already through its input buffer
  input  wire [7:0]   rx_p_i,
  input  wire [7:0]   rx_n_i,
  output wire [7:0]   tx_p_o,
  output wire [7:0]   tx_n_o,
  output wire         user_clk_o,        // 250 MHz
  output wire         user_reset_o,      // synchronous to user_clk_o, active high
  output wire         user_lnk_up_o,
  // requester request
  input  wire [255:0] s_axis_rq_tdata_i,
  input  wire [7:0]   s_axis_rq_tkeep_i,
  input  wire         s_axis_rq_tlast_i,
  input  wire [61:0]  s_axis_rq_tuser_i,
  input  wire         s_axis_rq_tvalid_i,
  output wire         s_axis_rq_tready_o,
  // requester completion
  output wire [255:0] m_axis_rc_tdata_o,
  output wire [7:0]   m_axis_rc_tkeep_o,
  output wire         m_axis_rc_tlast_o,
  output wire [74:0]  m_axis_rc_tuser_o,
  output wire         m_axis_rc_tvalid_o,
  input  wire         m_axis_rc_tready_i,
  // completer request
  output wire [255:0] m_axis_cq_tdata_o,
  output wire [7:0]   m_axis_cq_tkeep_o,
  output wire         m_axis_cq_tlast_o,
  output wire [87:0]  m_axis_cq_tuser_o,
  output wire         m_axis_cq_tvalid_o,
  input  wire         m_axis_cq_tready_i,
  input  wire [1:0]   pcie_cq_np_req_i,
  // completer completion
  input  wire [255:0] s_axis_cc_tdata_i,
  input  wire [7:0]   s_axis_cc_tkeep_i,
  input  wire         s_axis_cc_tlast_i,
  input  wire [32:0]  s_axis_cc_tuser_i,
  input  wire         s_axis_cc_tvalid_i,
  output wire         s_axis_cc_tready_o,
  // configuration status (PF0)
  output wire [1:0]   cfg_max_payload_o,
  output wire [2:0]   cfg_max_read_req_o,
  output wire         cfg_msix_enable_o,
  output wire         cfg_msix_mask_o,
  output wire [7:0]   cfg_bus_number_o
);

  wire sys_clk_gt, sys_clk_div2, sys_clk;
  wire [3:0] rq_tready, cc_tready, msix_enable, msix_mask;

  IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) u_refclk_buf (
    .I(refclk_p_i), .IB(refclk_n_i), .CEB(1'b0), .O(sys_clk_gt), .ODIV2(sys_clk_div2)
  );
  BUFG_GT u_sys_clk (
    .I(sys_clk_div2), .CE(1'b1), .CEMASK(1'b0), .CLR(1'b0), .CLRMASK(1'b0), .DIV(3'd0),
    .O(sys_clk)
  );

  // PG213: the four tready bits are copies of one.
  assign s_axis_rq_tready_o = rq_tready[0];
  assign s_axis_cc_tready_o = cc_tready[0];
  assign cfg_msix_enable_o  = msix_enable[0];
  assign cfg_msix_mask_o    = msix_mask[0];

  pcie4_uscale_plus_0 u_pcie (
    .pci_exp_txn(tx_n_o), .pci_exp_txp(tx_p_o), .pci_exp_rxn(rx_n_i), .pci_exp_rxp(rx_p_i),
    .user_clk(user_clk_o), .user_reset(user_reset_o), .user_lnk_up(user_lnk_up_o),
    .s_axis_rq_tdata(s_axis_rq_tdata_i), .s_axis_rq_tkeep(s_axis_rq_tkeep_i),
    .s_axis_rq_tlast(s_axis_rq_tlast_i), .s_axis_rq_tready(rq_tready),
    .s_axis_rq_tuser(s_axis_rq_tuser_i), .s_axis_rq_tvalid(s_axis_rq_tvalid_i),
    .m_axis_rc_tdata(m_axis_rc_tdata_o), .m_axis_rc_tkeep(m_axis_rc_tkeep_o),
    .m_axis_rc_tlast(m_axis_rc_tlast_o), .m_axis_rc_tready(m_axis_rc_tready_i),
    .m_axis_rc_tuser(m_axis_rc_tuser_o), .m_axis_rc_tvalid(m_axis_rc_tvalid_o),
    .m_axis_cq_tdata(m_axis_cq_tdata_o), .m_axis_cq_tkeep(m_axis_cq_tkeep_o),
    .m_axis_cq_tlast(m_axis_cq_tlast_o), .m_axis_cq_tready(m_axis_cq_tready_i),
    .m_axis_cq_tuser(m_axis_cq_tuser_o), .m_axis_cq_tvalid(m_axis_cq_tvalid_o),
    .s_axis_cc_tdata(s_axis_cc_tdata_i), .s_axis_cc_tkeep(s_axis_cc_tkeep_i),
    .s_axis_cc_tlast(s_axis_cc_tlast_i), .s_axis_cc_tready(cc_tready),
    .s_axis_cc_tuser(s_axis_cc_tuser_i), .s_axis_cc_tvalid(s_axis_cc_tvalid_i),
    .pcie_rq_seq_num0(), .pcie_rq_seq_num_vld0(), .pcie_rq_seq_num1(), .pcie_rq_seq_num_vld1(),
    .pcie_rq_tag0(), .pcie_rq_tag1(), .pcie_rq_tag_av(), .pcie_rq_tag_vld0(), .pcie_rq_tag_vld1(),
    .pcie_tfc_nph_av(), .pcie_tfc_npd_av(),
    .pcie_cq_np_req(pcie_cq_np_req_i), .pcie_cq_np_req_count(),
    .cfg_phy_link_down(), .cfg_phy_link_status(), .cfg_negotiated_width(), .cfg_current_speed(),
    .cfg_max_payload(cfg_max_payload_o), .cfg_max_read_req(cfg_max_read_req_o),
    .cfg_function_status(), .cfg_function_power_state(), .cfg_link_power_state(),
    .cfg_err_cor_out(), .cfg_err_nonfatal_out(), .cfg_err_fatal_out(),
    .cfg_local_error_valid(), .cfg_local_error_out(), .cfg_ltssm_state(),
    .cfg_rx_pm_state(), .cfg_tx_pm_state(), .cfg_rcb_status(), .cfg_obff_enable(),
    .cfg_pl_status_change(), .cfg_tph_requester_enable(), .cfg_tph_st_mode(),
    .cfg_mgmt_addr(10'd0), .cfg_mgmt_function_number(8'd0), .cfg_mgmt_write(1'b0),
    .cfg_mgmt_write_data(32'd0), .cfg_mgmt_byte_enable(4'd0), .cfg_mgmt_read(1'b0),
    .cfg_mgmt_read_data(), .cfg_mgmt_read_write_done(), .cfg_mgmt_debug_access(1'b0),
    .cfg_msg_received(), .cfg_msg_received_data(), .cfg_msg_received_type(),
    .cfg_msg_transmit(1'b0), .cfg_msg_transmit_type(3'd0), .cfg_msg_transmit_data(32'd0),
    .cfg_msg_transmit_done(),
    .cfg_fc_ph(), .cfg_fc_pd(), .cfg_fc_nph(), .cfg_fc_npd(), .cfg_fc_cplh(), .cfg_fc_cpld(),
    .cfg_fc_sel(3'd0),
    .cfg_dsn(64'd0), .cfg_power_state_change_ack(1'b1), .cfg_power_state_change_interrupt(),
    .cfg_err_cor_in(1'b0), .cfg_err_uncor_in(1'b0),
    .cfg_flr_in_process(), .cfg_flr_done(4'd0), .cfg_link_training_enable(1'b1),
    .cfg_hot_reset_out(), .cfg_config_space_enable(1'b1), .cfg_req_pm_transition_l23_ready(1'b0),
    .cfg_hot_reset_in(1'b0), .cfg_ds_port_number(8'd0), .cfg_ds_bus_number(8'd0),
    .cfg_ds_device_number(5'd0), .cfg_bus_number(cfg_bus_number_o),
    // MSI-X messages are the core's own memory writes on RQ (docs/pcie.md): the interrupt
    // ports of the block stay idle; only the enable and function mask are read.
    .cfg_interrupt_int(4'd0), .cfg_interrupt_pending(4'd0), .cfg_interrupt_sent(),
    .cfg_interrupt_msix_enable(msix_enable), .cfg_interrupt_msix_mask(msix_mask),
    .cfg_interrupt_msix_address(64'd0), .cfg_interrupt_msix_data(32'd0),
    .cfg_interrupt_msix_int(1'b0), .cfg_interrupt_msix_vec_pending(2'd0),
    .cfg_interrupt_msix_vec_pending_status(), .cfg_interrupt_msix_sent(),
    .cfg_interrupt_msix_fail(), .cfg_interrupt_msi_function_number(8'd0),
    .sys_clk(sys_clk), .sys_clk_gt(sys_clk_gt), .sys_reset(perst_n_i), .phy_rdy_out()
  );

  wire unused = ^{rq_tready[3:1], cc_tready[3:1], msix_enable[3:1], msix_mask[3:1]};

endmodule
