`default_nettype none
// pcie_us_if: ndknic's PCIe interface for the AMD UltraScale+ integrated block for PCI Express
// (pcie4_uscale_plus, PG213), configured with the 256-bit user interface at 250 MHz (Gen3 x8),
// DWORD-aligned, straddle off, client tags. Everything between the block's four AXI4-Stream
// interfaces and the core's two AXI ports, in the PCIe user clock domain:
//   pcie_us_cq_axil  CQ / CC: BAR0 reads and writes as AXI4-Lite (the core's BAR0 slave)
//   pcie_us_dma_rd   AXI4 AR / R from the core as Memory Read requests on RQ, completions on RC
//   pcie_us_dma_wr   AXI4 AW / W / B from the core as Memory Write requests on RQ (MSI-X
//                    messages only while MSI-X is enabled and the function not masked)
//   here             the RQ arbiter (whole packets; reads and writes alternate when both wait)
//                    and the configuration status the engines use (MPS, MRRS, MSI-X control).
// Why 256 bits: the core's datapath is 256 bits (DataWidth 256), so a DMA beat is a PCIe beat
// with no width converter; 256 bits at 250 MHz is 64 Gb/s per direction, Gen3 x8's raw rate
// (7.9 Gb/s per lane), far above the 10 / 25 Gb/s Ethernet port. Gen3 x16 would need the 512-bit
// interface and a 512-bit path for bandwidth the port cannot use. docs/pcie.md has the details.
module pcie_us_if #(
  parameter int BarBits       = 22,     // BAR0 size: 2^BarBits bytes (the core's register map)
  parameter int NumTags       = 32,     // read tags (client tags), <= 32
  parameter int TimeoutCycles = 50000   // completion timeout, user clock cycles (200 us at 250 MHz)
) (
  input  logic           clk_i,          // user_clk
  input  logic           rst_i,          // synchronous, active high (from user_reset)
  // requester request (RQ)
  output logic [255:0]   s_axis_rq_tdata_o,
  output logic [7:0]     s_axis_rq_tkeep_o,
  output logic           s_axis_rq_tlast_o,
  output logic [61:0]    s_axis_rq_tuser_o,
  output logic           s_axis_rq_tvalid_o,
  input  logic           s_axis_rq_tready_i,   // PG213: 4 bits, all copies of one ready
  // requester completion (RC)
  input  logic [255:0]   m_axis_rc_tdata_i,
  input  logic [7:0]     m_axis_rc_tkeep_i,
  input  logic           m_axis_rc_tlast_i,
  input  logic [74:0]    m_axis_rc_tuser_i,
  input  logic           m_axis_rc_tvalid_i,
  output logic           m_axis_rc_tready_o,
  // completer request (CQ)
  input  logic [255:0]   m_axis_cq_tdata_i,
  input  logic [7:0]     m_axis_cq_tkeep_i,
  input  logic           m_axis_cq_tlast_i,
  input  logic [87:0]    m_axis_cq_tuser_i,
  input  logic           m_axis_cq_tvalid_i,
  output logic           m_axis_cq_tready_o,
  output logic [1:0]     pcie_cq_np_req_o,
  // completer completion (CC)
  output logic [255:0]   s_axis_cc_tdata_o,
  output logic [7:0]     s_axis_cc_tkeep_o,
  output logic           s_axis_cc_tlast_o,
  output logic [32:0]    s_axis_cc_tuser_o,
  output logic           s_axis_cc_tvalid_o,
  input  logic           s_axis_cc_tready_i,
  // configuration status (PF0)
  input  logic [1:0]     cfg_max_payload_i,
  input  logic [2:0]     cfg_max_read_req_i,
  input  logic           cfg_msix_enable_i,    // cfg_interrupt_msix_enable[0]
  input  logic           cfg_msix_mask_i,      // cfg_interrupt_msix_mask[0]
  input  logic [7:0]     cfg_bus_number_i,
  // AXI4-Lite master: BAR0 (to the core)
  output logic [BarBits-1:0] m_axil_awaddr_o,
  output logic           m_axil_awvalid_o,
  input  logic           m_axil_awready_i,
  output logic [31:0]    m_axil_wdata_o,
  output logic [3:0]     m_axil_wstrb_o,
  output logic           m_axil_wvalid_o,
  input  logic           m_axil_wready_i,
  input  logic [1:0]     m_axil_bresp_i,
  input  logic           m_axil_bvalid_i,
  output logic           m_axil_bready_o,
  output logic [BarBits-1:0] m_axil_araddr_o,
  output logic           m_axil_arvalid_o,
  input  logic           m_axil_arready_i,
  input  logic [31:0]    m_axil_rdata_i,
  input  logic [1:0]     m_axil_rresp_i,
  input  logic           m_axil_rvalid_i,
  output logic           m_axil_rready_o,
  // AXI4 slave: DMA (from the core)
  input  logic [3:0]     s_axi_awid_i,
  input  logic [63:0]    s_axi_awaddr_i,
  input  logic [7:0]     s_axi_awlen_i,
  input  logic [2:0]     s_axi_awsize_i,
  input  logic           s_axi_awvalid_i,
  output logic           s_axi_awready_o,
  input  logic [255:0]   s_axi_wdata_i,
  input  logic [31:0]    s_axi_wstrb_i,
  input  logic           s_axi_wlast_i,
  input  logic           s_axi_wvalid_i,
  output logic           s_axi_wready_o,
  output logic [3:0]     s_axi_bid_o,
  output logic [1:0]     s_axi_bresp_o,
  output logic           s_axi_bvalid_o,
  input  logic           s_axi_bready_i,
  input  logic [3:0]     s_axi_arid_i,
  input  logic [63:0]    s_axi_araddr_i,
  input  logic [7:0]     s_axi_arlen_i,
  input  logic           s_axi_arvalid_i,
  output logic           s_axi_arready_o,
  output logic [3:0]     s_axi_rid_o,
  output logic [255:0]   s_axi_rdata_o,
  output logic [1:0]     s_axi_rresp_o,
  output logic           s_axi_rlast_o,
  output logic           s_axi_rvalid_o,
  input  logic           s_axi_rready_i,
  // status counters
  output logic [15:0]    unexpected_cpls_o,
  output logic [15:0]    cpl_timeouts_o,
  output logic [15:0]    msix_dropped_o
);

  pcie_us_cq_axil #(.AddrWidth(BarBits), .MaxReadDw(8)) u_cq (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .cq_tdata_i      (m_axis_cq_tdata_i),
    .cq_tkeep_i      (m_axis_cq_tkeep_i),
    .cq_tlast_i      (m_axis_cq_tlast_i),
    .cq_tuser_i      (m_axis_cq_tuser_i),
    .cq_tvalid_i     (m_axis_cq_tvalid_i),
    .cq_tready_o     (m_axis_cq_tready_o),
    .cq_np_req_o     (pcie_cq_np_req_o),
    .cc_tdata_o      (s_axis_cc_tdata_o),
    .cc_tkeep_o      (s_axis_cc_tkeep_o),
    .cc_tlast_o      (s_axis_cc_tlast_o),
    .cc_tuser_o      (s_axis_cc_tuser_o),
    .cc_tvalid_o     (s_axis_cc_tvalid_o),
    .cc_tready_i     (s_axis_cc_tready_i),
    .cfg_bus_number_i(cfg_bus_number_i),
    .m_axil_awaddr_o (m_axil_awaddr_o),
    .m_axil_awvalid_o(m_axil_awvalid_o),
    .m_axil_awready_i(m_axil_awready_i),
    .m_axil_wdata_o  (m_axil_wdata_o),
    .m_axil_wstrb_o  (m_axil_wstrb_o),
    .m_axil_wvalid_o (m_axil_wvalid_o),
    .m_axil_wready_i (m_axil_wready_i),
    .m_axil_bresp_i  (m_axil_bresp_i),
    .m_axil_bvalid_i (m_axil_bvalid_i),
    .m_axil_bready_o (m_axil_bready_o),
    .m_axil_araddr_o (m_axil_araddr_o),
    .m_axil_arvalid_o(m_axil_arvalid_o),
    .m_axil_arready_i(m_axil_arready_i),
    .m_axil_rdata_i  (m_axil_rdata_i),
    .m_axil_rresp_i  (m_axil_rresp_i),
    .m_axil_rvalid_i (m_axil_rvalid_i),
    .m_axil_rready_o (m_axil_rready_o)
  );

  logic [127:0] rd_desc;
  logic         rd_valid, rd_ready;
  pcie_us_dma_rd #(.NumTags(NumTags), .SlotBytes(512), .TimeoutCycles(TimeoutCycles)) u_rd (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .cfg_max_read_req_i(cfg_max_read_req_i),
    .s_axi_arid_i      (s_axi_arid_i),
    .s_axi_araddr_i    (s_axi_araddr_i),
    .s_axi_arlen_i     (s_axi_arlen_i),
    .s_axi_arvalid_i   (s_axi_arvalid_i),
    .s_axi_arready_o   (s_axi_arready_o),
    .s_axi_rid_o       (s_axi_rid_o),
    .s_axi_rdata_o     (s_axi_rdata_o),
    .s_axi_rresp_o     (s_axi_rresp_o),
    .s_axi_rlast_o     (s_axi_rlast_o),
    .s_axi_rvalid_o    (s_axi_rvalid_o),
    .s_axi_rready_i    (s_axi_rready_i),
    .rq_desc_o         (rd_desc),
    .rq_valid_o        (rd_valid),
    .rq_ready_i        (rd_ready),
    .rc_tdata_i        (m_axis_rc_tdata_i),
    .rc_tkeep_i        (m_axis_rc_tkeep_i),
    .rc_tlast_i        (m_axis_rc_tlast_i),
    .rc_tuser_i        (m_axis_rc_tuser_i),
    .rc_tvalid_i       (m_axis_rc_tvalid_i),
    .rc_tready_o       (m_axis_rc_tready_o),
    .unexpected_cpls_o (unexpected_cpls_o),
    .timeouts_o        (cpl_timeouts_o)
  );

  logic [255:0] wr_tdata;
  logic [7:0]   wr_tkeep, wr_be;
  logic         wr_tlast, wr_tvalid, wr_tready;
  pcie_us_dma_wr u_wr (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .cfg_max_payload_i(cfg_max_payload_i),
    .cfg_msix_enable_i(cfg_msix_enable_i),
    .cfg_msix_mask_i  (cfg_msix_mask_i),
    .s_axi_awid_i     (s_axi_awid_i),
    .s_axi_awaddr_i   (s_axi_awaddr_i),
    .s_axi_awlen_i    (s_axi_awlen_i),
    .s_axi_awsize_i   (s_axi_awsize_i),
    .s_axi_awvalid_i  (s_axi_awvalid_i),
    .s_axi_awready_o  (s_axi_awready_o),
    .s_axi_wdata_i    (s_axi_wdata_i),
    .s_axi_wstrb_i    (s_axi_wstrb_i),
    .s_axi_wlast_i    (s_axi_wlast_i),
    .s_axi_wvalid_i   (s_axi_wvalid_i),
    .s_axi_wready_o   (s_axi_wready_o),
    .s_axi_bid_o      (s_axi_bid_o),
    .s_axi_bresp_o    (s_axi_bresp_o),
    .s_axi_bvalid_o   (s_axi_bvalid_o),
    .s_axi_bready_i   (s_axi_bready_i),
    .rq_tdata_o       (wr_tdata),
    .rq_tkeep_o       (wr_tkeep),
    .rq_tlast_o       (wr_tlast),
    .rq_be_o          (wr_be),
    .rq_tvalid_o      (wr_tvalid),
    .rq_tready_i      (wr_tready),
    .msix_dropped_o   (msix_dropped_o)
  );

  // ---- RQ arbiter: whole packets; when both wait, the one not served last goes ----
  logic wr_lock_q;     // a write packet has begun and not ended
  logic last_wr_q;     // the last packet granted was a write
  logic grant_wr;
  always_comb begin
    if (wr_lock_q) grant_wr = 1'b1;
    else if (wr_tvalid && rd_valid) grant_wr = !last_wr_q;
    else grant_wr = wr_tvalid;
  end
  always_comb begin
    if (grant_wr) begin
      s_axis_rq_tdata_o = wr_tdata;
      s_axis_rq_tkeep_o = wr_tkeep;
      s_axis_rq_tlast_o = wr_tlast;
      s_axis_rq_tuser_o = {54'd0, wr_be};
      s_axis_rq_tvalid_o = wr_tvalid;
    end else begin
      s_axis_rq_tdata_o = {128'd0, rd_desc};
      s_axis_rq_tkeep_o = 8'h0f;
      s_axis_rq_tlast_o = 1'b1;
      s_axis_rq_tuser_o = {54'd0, 8'hff};  // first / last byte enables: whole DWORDs
      s_axis_rq_tvalid_o = rd_valid;
    end
  end
  assign wr_tready = grant_wr && s_axis_rq_tready_i;
  assign rd_ready  = !grant_wr && s_axis_rq_tready_i;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      wr_lock_q <= 1'b0;
      last_wr_q <= 1'b0;
    end else if (s_axis_rq_tvalid_o && s_axis_rq_tready_i) begin
      wr_lock_q <= grant_wr && !wr_tlast;
      if (s_axis_rq_tlast_o) last_wr_q <= grant_wr;
    end
  end

endmodule
