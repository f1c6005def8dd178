`default_nettype none
// tb_pcie_if: pcie_us_if with the port names of the AMD block (as cocotbext-pcie's UltraScale+
// model connects them) and of plain AXI buses (as cocotbext-axi's models connect them), for
// tests/board/test_pcie_if.py. Nothing but wires.

module tb_pcie_if #(
  parameter int TimeoutCycles = 4000
);
  // Signals, not ports: with Verilator 5.006 a top-level port handle found by cocotb's
  // discovery (which the bus models' case-insensitive lookup runs) is a copy the design does
  // not read, so writes to it are lost; an undriven public signal has one copy only.
  logic clk;
  logic rst;
  logic [255:0]   s_axis_rq_tdata;
  logic [7:0]     s_axis_rq_tkeep;
  logic s_axis_rq_tlast;
  logic [61:0]    s_axis_rq_tuser;
  logic s_axis_rq_tvalid;
  logic s_axis_rq_tready;
  logic [255:0]   m_axis_rc_tdata;
  logic [7:0]     m_axis_rc_tkeep;
  logic m_axis_rc_tlast;
  logic [74:0]    m_axis_rc_tuser;
  logic m_axis_rc_tvalid;
  logic m_axis_rc_tready;
  logic [255:0]   m_axis_cq_tdata;
  logic [7:0]     m_axis_cq_tkeep;
  logic m_axis_cq_tlast;
  logic [87:0]    m_axis_cq_tuser;
  logic m_axis_cq_tvalid;
  logic m_axis_cq_tready;
  logic [1:0]     pcie_cq_np_req;
  logic [5:0]     pcie_cq_np_req_count;
  logic [255:0]   s_axis_cc_tdata;
  logic [7:0]     s_axis_cc_tkeep;
  logic s_axis_cc_tlast;
  logic [32:0]    s_axis_cc_tuser;
  logic s_axis_cc_tvalid;
  logic s_axis_cc_tready;
  logic [1:0]     cfg_max_payload;
  logic [2:0]     cfg_max_read_req;
  logic [3:0]     cfg_interrupt_msix_enable;
  logic [3:0]     cfg_interrupt_msix_mask;
  // BAR0 side
  logic [21:0]    m_axil_awaddr;
  logic [2:0]     m_axil_awprot;
  logic m_axil_awvalid;
  logic m_axil_awready;
  logic [31:0]    m_axil_wdata;
  logic [3:0]     m_axil_wstrb;
  logic m_axil_wvalid;
  logic m_axil_wready;
  logic [1:0]     m_axil_bresp;
  logic m_axil_bvalid;
  logic m_axil_bready;
  logic [21:0]    m_axil_araddr;
  logic [2:0]     m_axil_arprot;
  logic m_axil_arvalid;
  logic m_axil_arready;
  logic [31:0]    m_axil_rdata;
  logic [1:0]     m_axil_rresp;
  logic m_axil_rvalid;
  logic m_axil_rready;
  // DMA side
  logic [3:0]     s_axi_awid;
  logic [63:0]    s_axi_awaddr;
  logic [7:0]     s_axi_awlen;
  logic [2:0]     s_axi_awsize;
  logic [1:0]     s_axi_awburst;
  logic s_axi_awvalid;
  logic s_axi_awready;
  logic [255:0]   s_axi_wdata;
  logic [31:0]    s_axi_wstrb;
  logic s_axi_wlast;
  logic s_axi_wvalid;
  logic s_axi_wready;
  logic [3:0]     s_axi_bid;
  logic [1:0]     s_axi_bresp;
  logic s_axi_bvalid;
  logic s_axi_bready;
  logic [3:0]     s_axi_arid;
  logic [63:0]    s_axi_araddr;
  logic [7:0]     s_axi_arlen;
  logic [2:0]     s_axi_arsize;
  logic [1:0]     s_axi_arburst;
  logic s_axi_arvalid;
  logic s_axi_arready;
  logic [3:0]     s_axi_rid;
  logic [255:0]   s_axi_rdata;
  logic [1:0]     s_axi_rresp;
  logic s_axi_rlast;
  logic s_axi_rvalid;
  logic s_axi_rready;
  logic [15:0]    unexpected_cpls;
  logic [15:0]    cpl_timeouts;
  logic [15:0]    msix_dropped;

  assign m_axil_awprot = 3'd0;
  assign m_axil_arprot = 3'd0;
  logic unused_tb;
  assign unused_tb = ^{pcie_cq_np_req_count, s_axi_awburst, s_axi_arsize, s_axi_arburst};

  pcie_us_if #(.BarBits(22), .NumTags(32), .TimeoutCycles(TimeoutCycles)) u_dut (
    .clk_i(clk), .rst_i(rst),
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
    .cfg_bus_number_i(8'd0),
    .m_axil_awaddr_o(m_axil_awaddr), .m_axil_awvalid_o(m_axil_awvalid), .m_axil_awready_i(m_axil_awready),
    .m_axil_wdata_o(m_axil_wdata), .m_axil_wstrb_o(m_axil_wstrb), .m_axil_wvalid_o(m_axil_wvalid),
    .m_axil_wready_i(m_axil_wready), .m_axil_bresp_i(m_axil_bresp), .m_axil_bvalid_i(m_axil_bvalid),
    .m_axil_bready_o(m_axil_bready), .m_axil_araddr_o(m_axil_araddr), .m_axil_arvalid_o(m_axil_arvalid),
    .m_axil_arready_i(m_axil_arready), .m_axil_rdata_i(m_axil_rdata), .m_axil_rresp_i(m_axil_rresp),
    .m_axil_rvalid_i(m_axil_rvalid), .m_axil_rready_o(m_axil_rready),
    .s_axi_awid_i(s_axi_awid), .s_axi_awaddr_i(s_axi_awaddr), .s_axi_awlen_i(s_axi_awlen),
    .s_axi_awsize_i(s_axi_awsize), .s_axi_awvalid_i(s_axi_awvalid), .s_axi_awready_o(s_axi_awready),
    .s_axi_wdata_i(s_axi_wdata), .s_axi_wstrb_i(s_axi_wstrb), .s_axi_wlast_i(s_axi_wlast),
    .s_axi_wvalid_i(s_axi_wvalid), .s_axi_wready_o(s_axi_wready),
    .s_axi_bid_o(s_axi_bid), .s_axi_bresp_o(s_axi_bresp), .s_axi_bvalid_o(s_axi_bvalid),
    .s_axi_bready_i(s_axi_bready),
    .s_axi_arid_i(s_axi_arid), .s_axi_araddr_i(s_axi_araddr), .s_axi_arlen_i(s_axi_arlen),
    .s_axi_arvalid_i(s_axi_arvalid), .s_axi_arready_o(s_axi_arready),
    .s_axi_rid_o(s_axi_rid), .s_axi_rdata_o(s_axi_rdata), .s_axi_rresp_o(s_axi_rresp),
    .s_axi_rlast_o(s_axi_rlast), .s_axi_rvalid_o(s_axi_rvalid), .s_axi_rready_i(s_axi_rready),
    .unexpected_cpls_o(unexpected_cpls), .cpl_timeouts_o(cpl_timeouts), .msix_dropped_o(msix_dropped)
  );
endmodule
