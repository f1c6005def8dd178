`default_nettype none
// nic_board_core: the board-independent NIC, everything between the FPGA's vendor hard blocks:
//   pcie_us_if      the UltraScale+ PCIe block's four AXI4-Stream interfaces <-> BAR0 (AXI-Lite)
//                   and DMA (AXI4), in the PCIe user clock domain (250 MHz)
//   clock crossings BAR0 requests / responses and the five DMA channels through
//                   nic_cdc_async_fifo between the PCIe and the core clock
//   BAR0 decode     offsets 0x3F0000..0x3FFFFF (addr[21:16] == 0x3F) to nic_eth_regs, the rest
//                   to nic_core (its register map leaves that 64 KiB unused)
//   nic_eth_port    10GBASE-R MAC / PCS with its own crossings to the transceiver clocks
//   nic_eth_regs    the port's MAC / IPv4 address (host-written) and counters
//   nic_core        in its own clock, CoreClockMhz (the board's config)
// The ports are the ones docs/board.md lists (the board tops instantiate this module).
//
// Reset: rst_i is asynchronous (PCIe user_reset, MMCM unlocked, transceivers not ready); one
// nic_cdc_reset per clock domain derives that domain's synchronous reset from it, so every
// async FIFO sees both its resets asserted together (nic_cdc_async_fifo's contract).
//
// BAR0 crossing: pcie_us_cq_axil issues one AXI-Lite access at a time; each becomes one request
// word (write flag, address, data, strobes) into the core domain, where a small master performs
// it on nic_core or nic_eth_regs and sends one response word (write flag, response, read data)
// back. DMA crossing: nic_core's AW, W, AR go to the PCIe domain and B, R come back, each channel
// its own FIFO (AXI allows the channels to be decoupled; the write engine in pcie_us_dma_wr
// waits for a burst's W beats itself).
module nic_board_core #(
  parameter int DataWidth     = 256,    // core datapath: must be 256 (the PCIe interface's width)
  parameter int NumQps        = 16,
  parameter int NumCqs        = 16,
  parameter int NumMrs        = 256,
  parameter int MttEntries    = 1024,
  parameter int MsixVectors   = 16,
  parameter int CoreClockMhz  = 40,     // core clock in MHz (the microsecond tick divides it)
  parameter int CplTimeoutCycles = 250000  // DMA read completion timeout, PCIe user clock cycles (1 ms)
) (
  input  logic           rst_i,
  input  logic           core_clk_i,
  input  logic           pcie_clk_i,
  // PCIe block (pcie_clk_i domain)
  output logic [255:0]   s_axis_rq_tdata_o,
  output logic [7:0]     s_axis_rq_tkeep_o,
  output logic           s_axis_rq_tlast_o,
  output logic [61:0]    s_axis_rq_tuser_o,
  output logic           s_axis_rq_tvalid_o,
  input  logic           s_axis_rq_tready_i,
  input  logic [255:0]   m_axis_rc_tdata_i,
  input  logic [7:0]     m_axis_rc_tkeep_i,
  input  logic           m_axis_rc_tlast_i,
  input  logic [74:0]    m_axis_rc_tuser_i,
  input  logic           m_axis_rc_tvalid_i,
  output logic           m_axis_rc_tready_o,
  input  logic [255:0]   m_axis_cq_tdata_i,
  input  logic [7:0]     m_axis_cq_tkeep_i,
  input  logic           m_axis_cq_tlast_i,
  input  logic [87:0]    m_axis_cq_tuser_i,
  input  logic           m_axis_cq_tvalid_i,
  output logic           m_axis_cq_tready_o,
  output logic [1:0]     pcie_cq_np_req_o,
  output logic [255:0]   s_axis_cc_tdata_o,
  output logic [7:0]     s_axis_cc_tkeep_o,
  output logic           s_axis_cc_tlast_o,
  output logic [32:0]    s_axis_cc_tuser_o,
  output logic           s_axis_cc_tvalid_o,
  input  logic           s_axis_cc_tready_i,
  input  logic [1:0]     cfg_max_payload_i,
  input  logic [2:0]     cfg_max_read_req_i,
  input  logic           cfg_msix_enable_i,
  input  logic           cfg_msix_mask_i,
  input  logic [7:0]     cfg_bus_number_i,
  // Ethernet transceiver (its TX / RX user clocks)
  input  logic           eth_tx_clk_i,
  output logic [63:0]    eth_tx_data_o,
  output logic [1:0]     eth_tx_hdr_o,
  input  logic           eth_rx_clk_i,
  input  logic [63:0]    eth_rx_data_i,
  input  logic [1:0]     eth_rx_hdr_i,
  input  logic           eth_rx_valid_i,
  output logic           eth_rx_slip_o,
  output logic           eth_block_lock_o   // core clock domain
);

  if (DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_board_core: DataWidth must be 256 (the PCIe interface is 256 bits)");
  end
  if (CoreClockMhz < 1) begin : gen_bad_clock
    $fatal(1, "nic_board_core: CoreClockMhz must be at least 1");
  end

  // ---- resets, one per domain ----
  logic pcie_rst, core_rst, eth_tx_rst, eth_rx_rst;
  nic_cdc_reset u_rst_pcie   (.clk_i(pcie_clk_i),   .rst_i(rst_i), .rst_o(pcie_rst));
  nic_cdc_reset u_rst_core   (.clk_i(core_clk_i),   .rst_i(rst_i), .rst_o(core_rst));
  nic_cdc_reset u_rst_eth_tx (.clk_i(eth_tx_clk_i), .rst_i(rst_i), .rst_o(eth_tx_rst));
  nic_cdc_reset u_rst_eth_rx (.clk_i(eth_rx_clk_i), .rst_i(rst_i), .rst_o(eth_rx_rst));

  // ---- PCIe interface (pcie domain) ----
  logic [21:0]  p_awaddr, p_araddr;
  logic         p_awvalid, p_awready, p_wvalid, p_wready, p_bvalid, p_bready;
  logic         p_arvalid, p_arready, p_rvalid, p_rready;
  logic [31:0]  p_wdata, p_rdata;
  logic [3:0]   p_wstrb;
  logic [1:0]   p_bresp, p_rresp;
  // DMA, pcie side of the crossing
  logic [3:0]   pd_awid, pd_bid, pd_arid, pd_rid;
  logic [63:0]  pd_awaddr, pd_araddr;
  logic [7:0]   pd_awlen, pd_arlen;
  logic [2:0]   pd_awsize;
  logic         pd_awvalid, pd_awready, pd_wvalid, pd_wready, pd_wlast, pd_bvalid, pd_bready;
  logic         pd_arvalid, pd_arready, pd_rvalid, pd_rready, pd_rlast;
  logic [255:0] pd_wdata, pd_rdata;
  logic [31:0]  pd_wstrb;
  logic [1:0]   pd_bresp, pd_rresp;
  logic [15:0]  unexpected_cpls, cpl_timeouts, msix_dropped;

  pcie_us_if #(.BarBits(22), .NumTags(32), .TimeoutCycles(CplTimeoutCycles)) u_pcie (
    .clk_i(pcie_clk_i), .rst_i(pcie_rst),
    .s_axis_rq_tdata_o(s_axis_rq_tdata_o), .s_axis_rq_tkeep_o(s_axis_rq_tkeep_o),
    .s_axis_rq_tlast_o(s_axis_rq_tlast_o), .s_axis_rq_tuser_o(s_axis_rq_tuser_o),
    .s_axis_rq_tvalid_o(s_axis_rq_tvalid_o), .s_axis_rq_tready_i(s_axis_rq_tready_i),
    .m_axis_rc_tdata_i(m_axis_rc_tdata_i), .m_axis_rc_tkeep_i(m_axis_rc_tkeep_i),
    .m_axis_rc_tlast_i(m_axis_rc_tlast_i), .m_axis_rc_tuser_i(m_axis_rc_tuser_i),
    .m_axis_rc_tvalid_i(m_axis_rc_tvalid_i), .m_axis_rc_tready_o(m_axis_rc_tready_o),
    .m_axis_cq_tdata_i(m_axis_cq_tdata_i), .m_axis_cq_tkeep_i(m_axis_cq_tkeep_i),
    .m_axis_cq_tlast_i(m_axis_cq_tlast_i), .m_axis_cq_tuser_i(m_axis_cq_tuser_i),
    .m_axis_cq_tvalid_i(m_axis_cq_tvalid_i), .m_axis_cq_tready_o(m_axis_cq_tready_o),
    .pcie_cq_np_req_o(pcie_cq_np_req_o),
    .s_axis_cc_tdata_o(s_axis_cc_tdata_o), .s_axis_cc_tkeep_o(s_axis_cc_tkeep_o),
    .s_axis_cc_tlast_o(s_axis_cc_tlast_o), .s_axis_cc_tuser_o(s_axis_cc_tuser_o),
    .s_axis_cc_tvalid_o(s_axis_cc_tvalid_o), .s_axis_cc_tready_i(s_axis_cc_tready_i),
    .cfg_max_payload_i(cfg_max_payload_i), .cfg_max_read_req_i(cfg_max_read_req_i),
    .cfg_msix_enable_i(cfg_msix_enable_i), .cfg_msix_mask_i(cfg_msix_mask_i),
    .cfg_bus_number_i(cfg_bus_number_i),
    .m_axil_awaddr_o(p_awaddr), .m_axil_awvalid_o(p_awvalid), .m_axil_awready_i(p_awready),
    .m_axil_wdata_o(p_wdata), .m_axil_wstrb_o(p_wstrb), .m_axil_wvalid_o(p_wvalid),
    .m_axil_wready_i(p_wready), .m_axil_bresp_i(p_bresp), .m_axil_bvalid_i(p_bvalid),
    .m_axil_bready_o(p_bready), .m_axil_araddr_o(p_araddr), .m_axil_arvalid_o(p_arvalid),
    .m_axil_arready_i(p_arready), .m_axil_rdata_i(p_rdata), .m_axil_rresp_i(p_rresp),
    .m_axil_rvalid_i(p_rvalid), .m_axil_rready_o(p_rready),
    .s_axi_awid_i(pd_awid), .s_axi_awaddr_i(pd_awaddr), .s_axi_awlen_i(pd_awlen),
    .s_axi_awsize_i(pd_awsize), .s_axi_awvalid_i(pd_awvalid), .s_axi_awready_o(pd_awready),
    .s_axi_wdata_i(pd_wdata), .s_axi_wstrb_i(pd_wstrb), .s_axi_wlast_i(pd_wlast),
    .s_axi_wvalid_i(pd_wvalid), .s_axi_wready_o(pd_wready),
    .s_axi_bid_o(pd_bid), .s_axi_bresp_o(pd_bresp), .s_axi_bvalid_o(pd_bvalid), .s_axi_bready_i(pd_bready),
    .s_axi_arid_i(pd_arid), .s_axi_araddr_i(pd_araddr), .s_axi_arlen_i(pd_arlen),
    .s_axi_arvalid_i(pd_arvalid), .s_axi_arready_o(pd_arready),
    .s_axi_rid_o(pd_rid), .s_axi_rdata_o(pd_rdata), .s_axi_rresp_o(pd_rresp),
    .s_axi_rlast_o(pd_rlast), .s_axi_rvalid_o(pd_rvalid), .s_axi_rready_i(pd_rready),
    .unexpected_cpls_o(unexpected_cpls), .cpl_timeouts_o(cpl_timeouts), .msix_dropped_o(msix_dropped)
  );

  // ---- BAR0 crossing ----
  // request word: {write, addr[21:0], data[31:0], strb[3:0]}; response word: {write, resp, data}
  localparam int ReqW = 1 + 22 + 32 + 4;
  localparam int RspW = 1 + 2 + 32;
  logic [ReqW-1:0] preq_data, creq_data;
  logic            preq_valid, preq_ready, creq_valid, creq_ready;
  logic [RspW-1:0] crsp_data, prsp_data;
  logic            crsp_valid, crsp_ready, prsp_valid, prsp_ready;

  // pcie side: an access becomes a request once AW and W (or AR) are both there
  assign preq_valid = (p_awvalid && p_wvalid) || p_arvalid;
  assign preq_data  = (p_awvalid && p_wvalid) ? {1'b1, p_awaddr, p_wdata, p_wstrb}
                                              : {1'b0, p_araddr, 32'd0, 4'd0};
  assign p_awready  = preq_ready && p_awvalid && p_wvalid;
  assign p_wready   = p_awready;
  assign p_arready  = preq_ready && p_arvalid && !(p_awvalid && p_wvalid);
  // responses back to B or R
  assign p_bvalid   = prsp_valid && prsp_data[RspW-1];
  assign p_rvalid   = prsp_valid && !prsp_data[RspW-1];
  assign p_bresp    = prsp_data[33:32];
  assign p_rresp    = prsp_data[33:32];
  assign p_rdata    = prsp_data[31:0];
  assign prsp_ready = prsp_data[RspW-1] ? p_bready : p_rready;

  nic_cdc_async_fifo #(.Width(ReqW), .LogDepth(2)) u_bar_req (
    .wr_clk_i(pcie_clk_i), .wr_rst_i(pcie_rst), .wr_data_i(preq_data), .wr_valid_i(preq_valid),
    .wr_ready_o(preq_ready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(core_clk_i), .rd_rst_i(core_rst), .rd_data_o(creq_data), .rd_valid_o(creq_valid),
    .rd_ready_i(creq_ready)
  );
  nic_cdc_async_fifo #(.Width(RspW), .LogDepth(2)) u_bar_rsp (
    .wr_clk_i(core_clk_i), .wr_rst_i(core_rst), .wr_data_i(crsp_data), .wr_valid_i(crsp_valid),
    .wr_ready_o(crsp_ready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(pcie_clk_i), .rd_rst_i(pcie_rst), .rd_data_o(prsp_data), .rd_valid_o(prsp_valid),
    .rd_ready_i(prsp_ready)
  );

  // core side: perform the request on nic_core or nic_eth_regs, then answer
  typedef enum logic [1:0] {BarIdle, BarAccess, BarResp} bar_e;
  bar_e        bar_q, bar_d;
  logic        aw_done_q, aw_done_d, w_done_q, w_done_d;
  logic [1:0]  rsp_resp_q, rsp_resp_d;
  logic [31:0] rsp_data_q, rsp_data_d;
  logic        req_write, req_eth;
  logic [21:0] req_addr;
  logic [31:0] req_wdata;
  logic [3:0]  req_strb;
  assign {req_write, req_addr, req_wdata, req_strb} = creq_data;
  assign req_eth = req_addr[21:16] == nic_pkg::REG_BOARD_ETH_BASE[21:16];   // formats/nic.toml

  // the two BAR0 slaves
  logic        c_awvalid, c_awready, c_wvalid, c_wready, c_bvalid, c_arvalid, c_arready, c_rvalid;
  logic [1:0]  c_bresp, c_rresp;
  logic [31:0] c_rdata;
  logic        e_awvalid, e_awready, e_wvalid, e_wready, e_bvalid, e_arvalid, e_arready, e_rvalid;
  logic [1:0]  e_bresp, e_rresp;
  logic [31:0] e_rdata;
  logic        awvalid, wvalid, arvalid, awready, wready, arready, bvalid, rvalid;
  logic [1:0]  bresp, rresp;
  logic [31:0] rdata;

  always_comb begin
    awvalid = bar_q == BarAccess && req_write && !aw_done_q;
    wvalid  = bar_q == BarAccess && req_write && !w_done_q;
    arvalid = bar_q == BarAccess && !req_write && !aw_done_q;
    c_awvalid = awvalid && !req_eth;
    e_awvalid = awvalid && req_eth;
    c_wvalid  = wvalid && !req_eth;
    e_wvalid  = wvalid && req_eth;
    c_arvalid = arvalid && !req_eth;
    e_arvalid = arvalid && req_eth;
    awready = req_eth ? e_awready : c_awready;
    wready  = req_eth ? e_wready : c_wready;
    arready = req_eth ? e_arready : c_arready;
    bvalid  = req_eth ? e_bvalid : c_bvalid;
    bresp   = req_eth ? e_bresp : c_bresp;
    rvalid  = req_eth ? e_rvalid : c_rvalid;
    rresp   = req_eth ? e_rresp : c_rresp;
    rdata   = req_eth ? e_rdata : c_rdata;
  end

  always_comb begin
    bar_d      = bar_q;
    aw_done_d  = aw_done_q;
    w_done_d   = w_done_q;
    rsp_resp_d = rsp_resp_q;
    rsp_data_d = rsp_data_q;
    creq_ready = 1'b0;
    unique case (bar_q)
      BarIdle: if (creq_valid) bar_d = BarAccess;
      BarAccess: begin
        if (req_write) begin
          if (awvalid && awready) aw_done_d = 1'b1;
          if (wvalid && wready) w_done_d = 1'b1;
          if (aw_done_q && w_done_q && bvalid) begin
            rsp_resp_d = bresp;
            rsp_data_d = 32'd0;
            bar_d      = BarResp;
          end
        end else begin
          if (arvalid && arready) aw_done_d = 1'b1;
          if (aw_done_q && rvalid) begin
            rsp_resp_d = rresp;
            rsp_data_d = rdata;
            bar_d      = BarResp;
          end
        end
      end
      BarResp: begin
        if (crsp_ready) begin
          creq_ready = 1'b1;  // the request is done: take it off the FIFO
          aw_done_d  = 1'b0;
          w_done_d   = 1'b0;
          bar_d      = BarIdle;
        end
      end
      default: bar_d = BarIdle;
    endcase
  end
  assign crsp_valid = bar_q == BarResp;
  assign crsp_data  = {req_write, rsp_resp_q, rsp_data_q};

  always_ff @(posedge core_clk_i) begin
    if (core_rst) begin
      bar_q     <= BarIdle;
      aw_done_q <= 1'b0;
      w_done_q  <= 1'b0;
    end else begin
      bar_q     <= bar_d;
      aw_done_q <= aw_done_d;
      w_done_q  <= w_done_d;
    end
  end
  always_ff @(posedge core_clk_i) begin
    rsp_resp_q <= rsp_resp_d;
    rsp_data_q <= rsp_data_d;
  end
  // B / R are accepted in the cycle the FSM sees them (it leaves BarAccess then)
  logic bar_bready, bar_rready;
  assign bar_bready = bar_q == BarAccess && req_write && aw_done_q && w_done_q;
  assign bar_rready = bar_q == BarAccess && !req_write && aw_done_q;

  // ---- DMA crossing ----
  logic [3:0]   c_m_awid, c_m_arid, c_m_bid, c_m_rid;
  logic [63:0]  c_m_awaddr, c_m_araddr;
  logic [7:0]   c_m_awlen, c_m_arlen;
  logic [2:0]   c_m_awsize, c_m_arsize;
  logic [1:0]   c_m_awburst, c_m_arburst, c_m_bresp, c_m_rresp;
  logic         c_m_awvalid, c_m_awready, c_m_wvalid, c_m_wready, c_m_wlast, c_m_bvalid, c_m_bready;
  logic         c_m_arvalid, c_m_arready, c_m_rvalid, c_m_rready, c_m_rlast;
  logic [255:0] c_m_wdata, c_m_rdata;
  logic [31:0]  c_m_wstrb;

  nic_cdc_async_fifo #(.Width(4 + 64 + 8 + 3), .LogDepth(4)) u_dma_aw (
    .wr_clk_i(core_clk_i), .wr_rst_i(core_rst), .wr_data_i({c_m_awid, c_m_awaddr, c_m_awlen, c_m_awsize}),
    .wr_valid_i(c_m_awvalid), .wr_ready_o(c_m_awready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(pcie_clk_i), .rd_rst_i(pcie_rst), .rd_data_o({pd_awid, pd_awaddr, pd_awlen, pd_awsize}),
    .rd_valid_o(pd_awvalid), .rd_ready_i(pd_awready)
  );
  nic_cdc_async_fifo #(.Width(256 + 32 + 1), .LogDepth(5)) u_dma_w (
    .wr_clk_i(core_clk_i), .wr_rst_i(core_rst), .wr_data_i({c_m_wdata, c_m_wstrb, c_m_wlast}),
    .wr_valid_i(c_m_wvalid), .wr_ready_o(c_m_wready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(pcie_clk_i), .rd_rst_i(pcie_rst), .rd_data_o({pd_wdata, pd_wstrb, pd_wlast}),
    .rd_valid_o(pd_wvalid), .rd_ready_i(pd_wready)
  );
  nic_cdc_async_fifo #(.Width(4 + 2), .LogDepth(3)) u_dma_b (
    .wr_clk_i(pcie_clk_i), .wr_rst_i(pcie_rst), .wr_data_i({pd_bid, pd_bresp}),
    .wr_valid_i(pd_bvalid), .wr_ready_o(pd_bready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(core_clk_i), .rd_rst_i(core_rst), .rd_data_o({c_m_bid, c_m_bresp}),
    .rd_valid_o(c_m_bvalid), .rd_ready_i(c_m_bready)
  );
  nic_cdc_async_fifo #(.Width(4 + 64 + 8), .LogDepth(4)) u_dma_ar (
    .wr_clk_i(core_clk_i), .wr_rst_i(core_rst), .wr_data_i({c_m_arid, c_m_araddr, c_m_arlen}),
    .wr_valid_i(c_m_arvalid), .wr_ready_o(c_m_arready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(pcie_clk_i), .rd_rst_i(pcie_rst), .rd_data_o({pd_arid, pd_araddr, pd_arlen}),
    .rd_valid_o(pd_arvalid), .rd_ready_i(pd_arready)
  );
  nic_cdc_async_fifo #(.Width(4 + 256 + 2 + 1), .LogDepth(5)) u_dma_r (
    .wr_clk_i(pcie_clk_i), .wr_rst_i(pcie_rst), .wr_data_i({pd_rid, pd_rdata, pd_rresp, pd_rlast}),
    .wr_valid_i(pd_rvalid), .wr_ready_o(pd_rready), .wr_commit_i(1'b0), .wr_drop_i(1'b0),
    .rd_clk_i(core_clk_i), .rd_rst_i(core_rst), .rd_data_o({c_m_rid, c_m_rdata, c_m_rresp, c_m_rlast}),
    .rd_valid_o(c_m_rvalid), .rd_ready_i(c_m_rready)
  );

  // ---- MSI-X enable / function mask into the core (nic_msix holds messages as pending bits
  // while the function may not send them): registered in the PCIe domain, then synchronised;
  // masked while the core leaves reset
  logic msix_fn_masked_p, msix_fn_masked;
  always_ff @(posedge pcie_clk_i) begin
    msix_fn_masked_p <= !cfg_msix_enable_i || cfg_msix_mask_i;
  end
  nic_cdc_sync #(.Width(1), .Stages(2), .ResetValue(1'b1)) u_msix_mask_sync (
    .clk_i(core_clk_i), .rst_i(core_rst), .d_i(msix_fn_masked_p), .q_o(msix_fn_masked)
  );

  // ---- the microsecond tick ----
  logic [$clog2(CoreClockMhz + 1)-1:0] tick_cnt_q;
  logic us_tick;
  assign us_tick = tick_cnt_q == '0;
  always_ff @(posedge core_clk_i) begin
    if (core_rst || us_tick) tick_cnt_q <= ($clog2(CoreClockMhz + 1))'(CoreClockMhz - 1);
    else tick_cnt_q <= tick_cnt_q - 1'b1;
  end

  // ---- Ethernet port and its registers (core domain side) ----
  logic [255:0] tx_tdata, rx_tdata;
  logic [31:0]  tx_tkeep, rx_tkeep;
  logic         tx_tlast, tx_tvalid, tx_tready, rx_tlast, rx_tvalid, rx_tready;
  logic [31:0]  st_tx_frames, st_tx_drops, st_rx_frames, st_rx_bad_fcs, st_rx_errors, st_rx_overflows;
  logic         block_lock, hi_ber;
  logic [47:0]  port_mac;
  logic [31:0]  port_ipv4;

  nic_eth_port #(.DataWidth(256)) u_eth (
    .clk_i(core_clk_i), .rst_i(core_rst),
    .s_axis_tx_tdata_i(tx_tdata), .s_axis_tx_tkeep_i(tx_tkeep), .s_axis_tx_tlast_i(tx_tlast),
    .s_axis_tx_tvalid_i(tx_tvalid), .s_axis_tx_tready_o(tx_tready),
    .m_axis_rx_tdata_o(rx_tdata), .m_axis_rx_tkeep_o(rx_tkeep), .m_axis_rx_tlast_o(rx_tlast),
    .m_axis_rx_tvalid_o(rx_tvalid), .m_axis_rx_tready_i(rx_tready),
    .stat_tx_frames_o(st_tx_frames), .stat_tx_drops_o(st_tx_drops), .stat_rx_frames_o(st_rx_frames),
    .stat_rx_bad_fcs_o(st_rx_bad_fcs), .stat_rx_errors_o(st_rx_errors),
    .stat_rx_overflows_o(st_rx_overflows), .rx_block_lock_o(block_lock), .rx_hi_ber_o(hi_ber),
    .tx_clk_i(eth_tx_clk_i), .tx_rst_i(eth_tx_rst), .tx_ce_i(1'b1),
    .serdes_tx_data_o(eth_tx_data_o), .serdes_tx_hdr_o(eth_tx_hdr_o),
    .rx_clk_i(eth_rx_clk_i), .rx_rst_i(eth_rx_rst), .serdes_rx_data_i(eth_rx_data_i),
    .serdes_rx_hdr_i(eth_rx_hdr_i), .serdes_rx_valid_i(eth_rx_valid_i), .serdes_rx_slip_o(eth_rx_slip_o)
  );
  assign eth_block_lock_o = block_lock;

  nic_eth_regs u_eth_regs (
    .clk_i(core_clk_i), .rst_i(core_rst),
    .s_axil_awaddr_i(req_addr[15:0]), .s_axil_awvalid_i(e_awvalid), .s_axil_awready_o(e_awready),
    .s_axil_wdata_i(req_wdata), .s_axil_wstrb_i(req_strb), .s_axil_wvalid_i(e_wvalid),
    .s_axil_wready_o(e_wready), .s_axil_bresp_o(e_bresp), .s_axil_bvalid_o(e_bvalid),
    .s_axil_bready_i(bar_bready && req_eth),
    .s_axil_araddr_i(req_addr[15:0]), .s_axil_arvalid_i(e_arvalid), .s_axil_arready_o(e_arready),
    .s_axil_rdata_o(e_rdata), .s_axil_rresp_o(e_rresp), .s_axil_rvalid_o(e_rvalid),
    .s_axil_rready_i(bar_rready && req_eth),
    .port_mac_o(port_mac), .port_ipv4_o(port_ipv4), .block_lock_i(block_lock), .hi_ber_i(hi_ber),
    .stat_tx_frames_i(st_tx_frames), .stat_tx_drops_i(st_tx_drops), .stat_rx_frames_i(st_rx_frames),
    .stat_rx_bad_fcs_i(st_rx_bad_fcs), .stat_rx_errors_i(st_rx_errors),
    .stat_rx_overflows_i(st_rx_overflows)
  );

  // ---- the core ----
  nic_core #(
    .DataWidth(256), .NumQps(NumQps), .NumCqs(NumCqs), .NumMrs(NumMrs), .MttEntries(MttEntries),
    .MsixVectors(MsixVectors)
  ) u_core (
    .clk_i(core_clk_i), .rst_i(core_rst), .us_tick_i(us_tick), .msix_fn_masked_i(msix_fn_masked),
    .port_mac_i(port_mac), .port_ipv4_i(port_ipv4),
    .s_axil_awaddr_i(req_addr), .s_axil_awvalid_i(c_awvalid), .s_axil_awready_o(c_awready),
    .s_axil_wdata_i(req_wdata), .s_axil_wstrb_i(req_strb), .s_axil_wvalid_i(c_wvalid),
    .s_axil_wready_o(c_wready), .s_axil_bresp_o(c_bresp), .s_axil_bvalid_o(c_bvalid),
    .s_axil_bready_i(bar_bready && !req_eth),
    .s_axil_araddr_i(req_addr), .s_axil_arvalid_i(c_arvalid), .s_axil_arready_o(c_arready),
    .s_axil_rdata_o(c_rdata), .s_axil_rresp_o(c_rresp), .s_axil_rvalid_o(c_rvalid),
    .s_axil_rready_i(bar_rready && !req_eth),
    .m_axi_awid_o(c_m_awid), .m_axi_awaddr_o(c_m_awaddr), .m_axi_awlen_o(c_m_awlen),
    .m_axi_awsize_o(c_m_awsize), .m_axi_awburst_o(c_m_awburst), .m_axi_awvalid_o(c_m_awvalid),
    .m_axi_awready_i(c_m_awready),
    .m_axi_wdata_o(c_m_wdata), .m_axi_wstrb_o(c_m_wstrb), .m_axi_wlast_o(c_m_wlast),
    .m_axi_wvalid_o(c_m_wvalid), .m_axi_wready_i(c_m_wready),
    .m_axi_bid_i(c_m_bid), .m_axi_bresp_i(c_m_bresp), .m_axi_bvalid_i(c_m_bvalid),
    .m_axi_bready_o(c_m_bready),
    .m_axi_arid_o(c_m_arid), .m_axi_araddr_o(c_m_araddr), .m_axi_arlen_o(c_m_arlen),
    .m_axi_arsize_o(c_m_arsize), .m_axi_arburst_o(c_m_arburst), .m_axi_arvalid_o(c_m_arvalid),
    .m_axi_arready_i(c_m_arready),
    .m_axi_rid_i(c_m_rid), .m_axi_rdata_i(c_m_rdata), .m_axi_rresp_i(c_m_rresp),
    .m_axi_rlast_i(c_m_rlast), .m_axi_rvalid_i(c_m_rvalid), .m_axi_rready_o(c_m_rready),
    .m_axis_tx_tdata_o(tx_tdata), .m_axis_tx_tkeep_o(tx_tkeep), .m_axis_tx_tlast_o(tx_tlast),
    .m_axis_tx_tvalid_o(tx_tvalid), .m_axis_tx_tready_i(tx_tready),
    .s_axis_rx_tdata_i(rx_tdata), .s_axis_rx_tkeep_i(rx_tkeep), .s_axis_rx_tlast_i(rx_tlast),
    .s_axis_rx_tvalid_i(rx_tvalid), .s_axis_rx_tready_o(rx_tready)
  );

  // INCR bursts of full beats are the core's contract (checked in nic_dma_rd / nic_dma_wr), so
  // burst type and arsize need not cross; the PCIe status counters have no register yet.
  logic unused_board;
  assign unused_board = ^{c_m_awburst, c_m_arburst, c_m_arsize, unexpected_cpls, cpl_timeouts,
                          msix_dropped};

endmodule
