`default_nettype none
// nic_core: the portable ndknic core. BAR0 (AXI4-Lite) in, DMA (AXI4) out, a network port
// (AXI4-Stream, RoCEv2 frames) in and out.
//
//   nic_csr        BAR0 decode: ID block, commands, state read-back, doorbells, MSI-X window
//   nic_sq_engine  QP contexts, WQE fetch (AXI AR/R) and local execution, MR/MW table
//   nic_transport  RoCEv2 RC transport: requester, responder, framing (docs/transport.md)
//   nic_cpl_arb    the executor's and the transport's completions into one stream
//   nic_cq_engine  CQ contexts: CQE writes, overflow, arming; interrupt requests
//   nic_msix       MSI-X table and PBA; messages
//   nic_dma_wr     AXI AW/W/B: CQEs / error records (port 0), MSI-X messages (port 1) and payload
//                  (port 2), in acceptance order on one AXI ID, so a message never overtakes its
//                  CQE and a CQE never overtakes its payload
//
// Parameters are checked here at elaboration (and again by the modules that depend on them).
module nic_core #(
  parameter int DataWidth = 64,      // DMA and stream width in bits: 64 or 256
  parameter int NumQps = 16,         // queue pairs, 1..256
  parameter int NumCqs = 16,         // completion queues, 1..256
  parameter int NumMrs = 256,        // MR/MW table entries, 1..65535
  parameter int MttEntries = 1024,   // translation entries (4 KiB pages), 1..65535
  parameter int MsixVectors = 16,    // MSI-X table size, 1..2048
  parameter int MaxBurstWqes = 16,   // most WQEs fetched by one DMA read, 1..255
  parameter int WqeBufEntries = 128,  // WQE buffer between fetch and execution, 1..65535
  parameter int LogMaxSqDepth = 12,  // largest send queue: 2^LogMaxSqDepth WQEs, <= 15
  parameter int LogMaxCqDepth = 14,  // largest CQ: 2^LogMaxCqDepth CQEs, <= 15
  parameter int MaxReads = 32        // Reads a QP may have outstanding (ORD, IRD): 2..128, a power of two
) (
  input  logic clk_i, input logic rst_i,
  // Time base: a one-cycle pulse every microsecond, from the platform (a board top divides its
  // known clock; the cosimulation harness pulses it every clock_mhz cycles). Interrupt
  // moderation intervals count these ticks.
  input  logic us_tick_i,
  // The network port's identity, from the platform (a board top: its EEPROM or a constant; the
  // harness: NIC i is 02:00:00:00:00:(i+1), 10.0.0.(i+1)). Read back through BAR0.
  input  logic [47:0] port_mac_i, input logic [31:0] port_ipv4_i,
  // AXI4-Lite slave: BAR0 (22-bit byte address, 32-bit data)
  input  logic [21:0] s_axil_awaddr_i, input logic s_axil_awvalid_i, output logic s_axil_awready_o,
  input  logic [31:0] s_axil_wdata_i, input logic [3:0] s_axil_wstrb_i, input logic s_axil_wvalid_i, output logic s_axil_wready_o,
  output logic [1:0] s_axil_bresp_o, output logic s_axil_bvalid_o, input logic s_axil_bready_i,
  input  logic [21:0] s_axil_araddr_i, input logic s_axil_arvalid_i, output logic s_axil_arready_o,
  output logic [31:0] s_axil_rdata_o, output logic [1:0] s_axil_rresp_o, output logic s_axil_rvalid_o, input logic s_axil_rready_i,
  // AXI4 master: DMA (64-bit address, 4-bit IDs, INCR bursts, never across 4 KiB)
  output logic [3:0] m_axi_awid_o, output logic [63:0] m_axi_awaddr_o, output logic [7:0] m_axi_awlen_o,
  output logic [2:0] m_axi_awsize_o, output logic [1:0] m_axi_awburst_o, output logic m_axi_awvalid_o, input logic m_axi_awready_i,
  output logic [DataWidth-1:0] m_axi_wdata_o, output logic [DataWidth/8-1:0] m_axi_wstrb_o, output logic m_axi_wlast_o,
  output logic m_axi_wvalid_o, input logic m_axi_wready_i,
  input  logic [3:0] m_axi_bid_i, input logic [1:0] m_axi_bresp_i, input logic m_axi_bvalid_i, output logic m_axi_bready_o,
  output logic [3:0] m_axi_arid_o, output logic [63:0] m_axi_araddr_o, output logic [7:0] m_axi_arlen_o,
  output logic [2:0] m_axi_arsize_o, output logic [1:0] m_axi_arburst_o, output logic m_axi_arvalid_o, input logic m_axi_arready_i,
  input  logic [3:0] m_axi_rid_i, input logic [DataWidth-1:0] m_axi_rdata_i, input logic [1:0] m_axi_rresp_i,
  input  logic m_axi_rlast_i, input logic m_axi_rvalid_i, output logic m_axi_rready_o,
  // AXI4-Stream network port (idle until the transport exists: tx never valid, rx always ready and dropped)
  output logic [DataWidth-1:0] m_axis_tx_tdata_o, output logic [DataWidth/8-1:0] m_axis_tx_tkeep_o,
  output logic m_axis_tx_tlast_o, output logic m_axis_tx_tvalid_o, input logic m_axis_tx_tready_i,
  input  logic [DataWidth-1:0] s_axis_rx_tdata_i, input logic [DataWidth/8-1:0] s_axis_rx_tkeep_i,
  input  logic s_axis_rx_tlast_i, input logic s_axis_rx_tvalid_i, output logic s_axis_rx_tready_o
);

  // ---- parameter checks ----
  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_data_width
    $fatal(1, "nic_core: DataWidth must be 64 or 256");
  end
  if (NumQps < 1 || NumQps > 256) begin : gen_bad_num_qps
    $fatal(1, "nic_core: NumQps must be 1..256 (8-bit QP numbers)");
  end
  if (NumCqs < 1 || NumCqs > 256) begin : gen_bad_num_cqs
    $fatal(1, "nic_core: NumCqs must be 1..256 (8-bit CQ numbers)");
  end
  if (NumMrs < 1 || NumMrs > 65535 || MttEntries < 1 || MttEntries > 65535) begin : gen_bad_memory
    $fatal(1, "nic_core: NumMrs and MttEntries must be 1..65535 (16-bit CAP_MEMORY fields)");
  end
  if (MsixVectors < 1 || MsixVectors > 2048) begin : gen_bad_msix
    $fatal(1, "nic_core: MsixVectors must be 1..2048 (the table must end below MSIX_PBA)");
  end
  if (MaxBurstWqes < 1 || MaxBurstWqes > 255 || WqeBufEntries < 1 || WqeBufEntries > 65535)
  begin : gen_bad_sq_buffers
    $fatal(1, "nic_core: MaxBurstWqes must be 1..255 and WqeBufEntries 1..65535 (CAP_SQ fields)");
  end
  if (LogMaxSqDepth < 0 || LogMaxSqDepth > 15 || LogMaxCqDepth < 0 || LogMaxCqDepth > 15)
  begin : gen_bad_depths
    $fatal(1, "nic_core: LogMaxSqDepth and LogMaxCqDepth must be 0..15 (16-bit ring indices)");
  end

  // ---- nic_csr <-> engines ----
  logic                cmd_valid;
  logic [7:0]          cmd_op;
  logic [15:0]         cmd_index;
  logic [255:0]        cmd_args;
  logic                sq_db_valid, rq_db_valid, cq_db_valid, cq_db_moderation;
  logic [7:0]          sq_db_qpn, rq_db_qpn, cq_db_cqn;
  logic [15:0]         sq_db_pi, rq_db_pi;
  logic                sq_db_bf;
  logic [511:0]        sq_db_bf_data;
  logic [31:0]         cq_db_data;
  logic [2*NumQps-1:0] qp_state;
  logic [7:0]          cq_state_cqn;
  logic [31:0]         cq_state;
  logic                msix_wr_valid;
  logic [15:0]         msix_wr_addr, msix_rd_addr;
  logic [31:0]         msix_wr_data, msix_rd_data;
  logic [3:0]          msix_wr_strb;

  // ---- engines <-> engines ----
  logic                cpl_valid, cpl_ready;
  logic [7:0]          cpl_cqn;
  nic_pkg::cqe_t       cpl_cqe;
  logic                lx_cpl_valid, lx_cpl_ready, tr_cpl_valid, tr_cpl_ready;
  logic [7:0]          lx_cpl_cqn, tr_cpl_cqn;
  nic_pkg::cqe_t       lx_cpl_cqe, tr_cpl_cqe;

  // ---- nic_sq_engine <-> nic_transport ----
  logic                tp_valid, tp_ready;
  logic [511:0]        tp_data;
  logic [7:0]          tp_qpn, tp_req_err_qpn, tp_rsp_err_qpn;
  logic [15:0]         tp_idx;
  logic [NumQps-1:0]   tp_busy;
  logic                tp_req_err, tp_rsp_err;
  logic                xl_req_valid, xl_rsp_valid;
  logic [31:0]         xl_token, xl_len, xl_status;
  logic [63:0]         xl_va;
  logic [15:0]         xl_pd, xl_access;
  logic                xl_inv;
  logic [51:0]         xl_pfn;
  logic [11:0]         xl_page_off;
  logic                tpa_ar_valid, tpa_ar_ready, tpa_r_valid, tpa_r_ready;
  logic                tpb_ar_valid, tpb_ar_ready, tpb_r_valid, tpb_r_ready;
  logic [63:0]         tpa_ar_addr, tpb_ar_addr;
  logic [7:0]          tpa_ar_len, tpb_ar_len;
  logic [DataWidth-1:0] tp_r_data;
  logic [1:0]          tp_r_resp;
  logic                tp_r_last;
  logic                pay_req_valid, pay_req_ready, pay_w_valid, pay_w_ready;
  logic [63:0]         pay_req_addr;
  logic [7:0]          pay_req_len;
  logic [DataWidth-1:0] pay_w_data;
  logic [DataWidth/8-1:0] pay_w_strb;
  logic [31:0]         rx_drops;
  logic [NumCqs-1:0]   cq_error;
  logic                rec_valid, rec_ready;
  logic [63:0]         rec_addr;
  logic [255:0]        rec_data;
  logic                irq_valid, irq_ready;
  logic [15:0]         irq_vector;
  logic                msg_valid, msg_ready;
  logic [63:0]         msg_addr;
  logic [31:0]         msg_data;

  nic_csr #(
    .DataWidth    (DataWidth),
    .NumQps       (NumQps),
    .NumCqs       (NumCqs),
    .NumMrs       (NumMrs),
    .MttEntries   (MttEntries),
    .MsixVectors  (MsixVectors),
    .MaxBurstWqes (MaxBurstWqes),
    .WqeBufEntries(WqeBufEntries),
    .LogMaxSqDepth(LogMaxSqDepth),
    .LogMaxCqDepth(LogMaxCqDepth),
    .MaxReads     (MaxReads)
  ) u_csr (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .port_mac_i        (port_mac_i),
    .port_ipv4_i       (port_ipv4_i),
    .rx_drops_i        (rx_drops),
    .s_axil_awaddr_i   (s_axil_awaddr_i),
    .s_axil_awvalid_i  (s_axil_awvalid_i),
    .s_axil_awready_o  (s_axil_awready_o),
    .s_axil_wdata_i    (s_axil_wdata_i),
    .s_axil_wstrb_i    (s_axil_wstrb_i),
    .s_axil_wvalid_i   (s_axil_wvalid_i),
    .s_axil_wready_o   (s_axil_wready_o),
    .s_axil_bresp_o    (s_axil_bresp_o),
    .s_axil_bvalid_o   (s_axil_bvalid_o),
    .s_axil_bready_i   (s_axil_bready_i),
    .s_axil_araddr_i   (s_axil_araddr_i),
    .s_axil_arvalid_i  (s_axil_arvalid_i),
    .s_axil_arready_o  (s_axil_arready_o),
    .s_axil_rdata_o    (s_axil_rdata_o),
    .s_axil_rresp_o    (s_axil_rresp_o),
    .s_axil_rvalid_o   (s_axil_rvalid_o),
    .s_axil_rready_i   (s_axil_rready_i),
    .cmd_valid_o       (cmd_valid),
    .cmd_op_o          (cmd_op),
    .cmd_index_o       (cmd_index),
    .cmd_args_o        (cmd_args),
    .sq_db_valid_o     (sq_db_valid),
    .sq_db_qpn_o       (sq_db_qpn),
    .sq_db_pi_o        (sq_db_pi),
    .sq_db_bf_o        (sq_db_bf),
    .sq_db_bf_data_o   (sq_db_bf_data),
    .rq_db_valid_o     (rq_db_valid),
    .rq_db_qpn_o       (rq_db_qpn),
    .rq_db_pi_o        (rq_db_pi),
    .cq_db_valid_o     (cq_db_valid),
    .cq_db_cqn_o       (cq_db_cqn),
    .cq_db_moderation_o(cq_db_moderation),
    .cq_db_data_o      (cq_db_data),
    .qp_state_i        (qp_state),
    .cq_state_cqn_o    (cq_state_cqn),
    .cq_state_i        (cq_state),
    .msix_wr_valid_o   (msix_wr_valid),
    .msix_wr_addr_o    (msix_wr_addr),
    .msix_wr_data_o    (msix_wr_data),
    .msix_wr_strb_o    (msix_wr_strb),
    .msix_rd_addr_o    (msix_rd_addr),
    .msix_rd_data_i    (msix_rd_data)
  );

  nic_sq_engine #(
    .DataWidth    (DataWidth),
    .NumQps       (NumQps),
    .NumCqs       (NumCqs),
    .NumMrs       (NumMrs),
    .MttEntries   (MttEntries),
    .MaxBurstWqes (MaxBurstWqes),
    .WqeBufEntries(WqeBufEntries),
    .LogMaxSqDepth(LogMaxSqDepth)
  ) u_sq_engine (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .cmd_valid_i    (cmd_valid),
    .cmd_op_i       (cmd_op),
    .cmd_index_i    (cmd_index),
    .cmd_args_i     (cmd_args),
    .sq_db_valid_i  (sq_db_valid),
    .sq_db_qpn_i    (sq_db_qpn),
    .sq_db_pi_i     (sq_db_pi),
    .sq_db_bf_i     (sq_db_bf),
    .sq_db_bf_data_i(sq_db_bf_data),
    .qp_state_o     (qp_state),
    .cq_error_i     (cq_error),
    .cpl_valid_o    (lx_cpl_valid),
    .cpl_cqn_o      (lx_cpl_cqn),
    .cpl_cqe_o      (lx_cpl_cqe),
    .cpl_ready_i    (lx_cpl_ready),
    .m_axi_arid_o   (m_axi_arid_o),
    .m_axi_araddr_o (m_axi_araddr_o),
    .m_axi_arlen_o  (m_axi_arlen_o),
    .m_axi_arsize_o (m_axi_arsize_o),
    .m_axi_arburst_o(m_axi_arburst_o),
    .m_axi_arvalid_o(m_axi_arvalid_o),
    .m_axi_arready_i(m_axi_arready_i),
    .m_axi_rid_i    (m_axi_rid_i),
    .m_axi_rdata_i  (m_axi_rdata_i),
    .m_axi_rresp_i  (m_axi_rresp_i),
    .m_axi_rlast_i  (m_axi_rlast_i),
    .m_axi_rvalid_i (m_axi_rvalid_i),
    .m_axi_rready_o (m_axi_rready_o),
    .tp_valid_o     (tp_valid),
    .tp_ready_i     (tp_ready),
    .tp_data_o      (tp_data),
    .tp_qpn_o       (tp_qpn),
    .tp_idx_o       (tp_idx),
    .tp_busy_i      (tp_busy),
    .tp_err0_i      (tp_req_err),
    .tp_err0_qpn_i  (tp_req_err_qpn),
    .tp_err1_i      (tp_rsp_err),
    .tp_err1_qpn_i  (tp_rsp_err_qpn),
    .xl_valid_i     (xl_req_valid),
    .xl_token_i     (xl_token),
    .xl_va_i        (xl_va),
    .xl_len_i       (xl_len),
    .xl_pd_i        (xl_pd),
    .xl_access_i    (xl_access),
    .xl_inv_i       (xl_inv),
    .xl_valid_o     (xl_rsp_valid),
    .xl_status_o    (xl_status),
    .xl_pfn_o       (xl_pfn),
    .xl_page_off_o  (xl_page_off),
    .tpa_ar_valid_i (tpa_ar_valid),
    .tpa_ar_ready_o (tpa_ar_ready),
    .tpa_ar_addr_i  (tpa_ar_addr),
    .tpa_ar_len_i   (tpa_ar_len),
    .tpa_r_valid_o  (tpa_r_valid),
    .tpa_r_ready_i  (tpa_r_ready),
    .tpb_ar_valid_i (tpb_ar_valid),
    .tpb_ar_ready_o (tpb_ar_ready),
    .tpb_ar_addr_i  (tpb_ar_addr),
    .tpb_ar_len_i   (tpb_ar_len),
    .tpb_r_valid_o  (tpb_r_valid),
    .tpb_r_ready_i  (tpb_r_ready),
    .tp_r_data_o    (tp_r_data),
    .tp_r_resp_o    (tp_r_resp),
    .tp_r_last_o    (tp_r_last)
  );

  // ---- the transport, and its completions merged with the local executor's ----
  nic_transport #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (MaxReads)
  ) u_transport (
    .clk_i         (clk_i),
    .rst_i         (rst_i),
    .port_mac_i    (port_mac_i),
    .port_ipv4_i   (port_ipv4_i),
    .us_tick_i     (us_tick_i),
    .cmd_valid_i   (cmd_valid),
    .cmd_op_i      (cmd_op),
    .cmd_index_i   (cmd_index),
    .cmd_args_i    (cmd_args),
    .qp_state_i    (qp_state),
    .rq_db_valid_i (rq_db_valid),
    .rq_db_qpn_i   (rq_db_qpn),
    .rq_db_pi_i    (rq_db_pi),
    .wqe_valid_i   (tp_valid),
    .wqe_data_i    (tp_data),
    .wqe_qpn_i     (tp_qpn),
    .wqe_idx_i     (tp_idx),
    .wqe_ready_o   (tp_ready),
    .busy_o        (tp_busy),
    .req_err_o     (tp_req_err),
    .req_err_qpn_o (tp_req_err_qpn),
    .rsp_err_o     (tp_rsp_err),
    .rsp_err_qpn_o (tp_rsp_err_qpn),
    .xl_valid_o    (xl_req_valid),
    .xl_token_o    (xl_token),
    .xl_va_o       (xl_va),
    .xl_len_o      (xl_len),
    .xl_pd_o       (xl_pd),
    .xl_access_o   (xl_access),
    .xl_inv_o      (xl_inv),
    .xl_valid_i    (xl_rsp_valid),
    .xl_status_i   (xl_status),
    .xl_pfn_i      (xl_pfn),
    .xl_page_off_i (xl_page_off),
    .a_ar_valid_o  (tpa_ar_valid),
    .a_ar_ready_i  (tpa_ar_ready),
    .a_ar_addr_o   (tpa_ar_addr),
    .a_ar_len_o    (tpa_ar_len),
    .a_r_valid_i   (tpa_r_valid),
    .a_r_ready_o   (tpa_r_ready),
    .b_ar_valid_o  (tpb_ar_valid),
    .b_ar_ready_i  (tpb_ar_ready),
    .b_ar_addr_o   (tpb_ar_addr),
    .b_ar_len_o    (tpb_ar_len),
    .b_r_valid_i   (tpb_r_valid),
    .b_r_ready_o   (tpb_r_ready),
    .r_data_i      (tp_r_data),
    .r_resp_i      (tp_r_resp),
    .r_last_i      (tp_r_last),
    .wr_req_valid_o(pay_req_valid),
    .wr_req_addr_o (pay_req_addr),
    .wr_req_len_o  (pay_req_len),
    .wr_req_ready_i(pay_req_ready),
    .wr_valid_o    (pay_w_valid),
    .wr_data_o     (pay_w_data),
    .wr_strb_o     (pay_w_strb),
    .wr_ready_i    (pay_w_ready),
    .cpl_valid_o   (tr_cpl_valid),
    .cpl_cqn_o     (tr_cpl_cqn),
    .cpl_cqe_o     (tr_cpl_cqe),
    .cpl_ready_i   (tr_cpl_ready),
    .tx_tdata_o    (m_axis_tx_tdata_o),
    .tx_tkeep_o    (m_axis_tx_tkeep_o),
    .tx_tlast_o    (m_axis_tx_tlast_o),
    .tx_tvalid_o   (m_axis_tx_tvalid_o),
    .tx_tready_i   (m_axis_tx_tready_i),
    .rx_tdata_i    (s_axis_rx_tdata_i),
    .rx_tkeep_i    (s_axis_rx_tkeep_i),
    .rx_tlast_i    (s_axis_rx_tlast_i),
    .rx_tvalid_i   (s_axis_rx_tvalid_i),
    .rx_tready_o   (s_axis_rx_tready_o),
    .rx_drops_o    (rx_drops)
  );

  nic_cpl_arb u_cpl_arb (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .a_valid_i  (lx_cpl_valid),
    .a_cqn_i    (lx_cpl_cqn),
    .a_cqe_i    (lx_cpl_cqe),
    .a_ready_o  (lx_cpl_ready),
    .b_valid_i  (tr_cpl_valid),
    .b_cqn_i    (tr_cpl_cqn),
    .b_cqe_i    (tr_cpl_cqe),
    .b_ready_o  (tr_cpl_ready),
    .cpl_valid_o(cpl_valid),
    .cpl_cqn_o  (cpl_cqn),
    .cpl_cqe_o  (cpl_cqe),
    .cpl_ready_i(cpl_ready)
  );

  nic_cq_engine #(
    .NumCqs       (NumCqs),
    .LogMaxCqDepth(LogMaxCqDepth),
    .MsixVectors  (MsixVectors)
  ) u_cq_engine (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .us_tick_i      (us_tick_i),
    .cmd_valid_i    (cmd_valid),
    .cmd_op_i       (cmd_op),
    .cmd_index_i    (cmd_index),
    .cmd_args_i     (cmd_args),
    .db_valid_i     (cq_db_valid),
    .db_cqn_i       (cq_db_cqn),
    .db_moderation_i(cq_db_moderation),
    .db_data_i      (cq_db_data),
    .cpl_valid_i    (cpl_valid),
    .cpl_cqn_i      (cpl_cqn),
    .cpl_cqe_i      (cpl_cqe),
    .cpl_ready_o    (cpl_ready),
    .wr_valid_o     (rec_valid),
    .wr_addr_o      (rec_addr),
    .wr_data_o      (rec_data),
    .wr_ready_i     (rec_ready),
    .irq_valid_o    (irq_valid),
    .irq_vector_o   (irq_vector),
    .irq_ready_i    (irq_ready),
    .cq_error_o     (cq_error),
    .state_rd_cqn_i (cq_state_cqn),
    .state_rd_data_o(cq_state)
  );

  nic_msix #(
    .MsixVectors(MsixVectors)
  ) u_msix (
    .clk_i         (clk_i),
    .rst_i         (rst_i),
    .reg_wr_valid_i(msix_wr_valid),
    .reg_wr_addr_i (msix_wr_addr),
    .reg_wr_data_i (msix_wr_data),
    .reg_wr_strb_i (msix_wr_strb),
    .reg_rd_addr_i (msix_rd_addr),
    .reg_rd_data_o (msix_rd_data),
    .irq_valid_i   (irq_valid),
    .irq_vector_i  (irq_vector),
    .irq_ready_o   (irq_ready),
    .msg_valid_o   (msg_valid),
    .msg_addr_o    (msg_addr),
    .msg_data_o    (msg_data),
    .msg_ready_i   (msg_ready)
  );

  nic_dma_wr #(
    .DataWidth(DataWidth)
  ) u_dma_wr (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .req0_valid_i   (rec_valid),
    .req0_addr_i    (rec_addr),
    .req0_data_i    (rec_data),
    .req0_ready_o   (rec_ready),
    .req1_valid_i   (msg_valid),
    .req1_addr_i    (msg_addr),
    .req1_data_i    (msg_data),
    .req1_ready_o   (msg_ready),
    .req2_valid_i   (pay_req_valid),
    .req2_addr_i    (pay_req_addr),
    .req2_len_i     (pay_req_len),
    .req2_ready_o   (pay_req_ready),
    .w2_valid_i     (pay_w_valid),
    .w2_data_i      (pay_w_data),
    .w2_strb_i      (pay_w_strb),
    .w2_ready_o     (pay_w_ready),
    .m_axi_awid_o   (m_axi_awid_o),
    .m_axi_awaddr_o (m_axi_awaddr_o),
    .m_axi_awlen_o  (m_axi_awlen_o),
    .m_axi_awsize_o (m_axi_awsize_o),
    .m_axi_awburst_o(m_axi_awburst_o),
    .m_axi_awvalid_o(m_axi_awvalid_o),
    .m_axi_awready_i(m_axi_awready_i),
    .m_axi_wdata_o  (m_axi_wdata_o),
    .m_axi_wstrb_o  (m_axi_wstrb_o),
    .m_axi_wlast_o  (m_axi_wlast_o),
    .m_axi_wvalid_o (m_axi_wvalid_o),
    .m_axi_wready_i (m_axi_wready_i),
    .m_axi_bid_i    (m_axi_bid_i),
    .m_axi_bresp_i  (m_axi_bresp_i),
    .m_axi_bvalid_i (m_axi_bvalid_i),
    .m_axi_bready_o (m_axi_bready_o)
  );

endmodule
