`default_nettype none
// nic_core: the portable ndknic core. BAR0 (AXI4-Lite) in, DMA (AXI4) out, a network port
// (AXI4-Stream, RoCEv2 frames) in and out.
//
//   nic_csr        BAR0 decode: ID block, commands, state read-back, doorbells, MSI-X window
//   nic_qp_ctx     QP contexts: state, PD, CQ numbers, send and receive rings (their one owner);
//                  the QP commands and their checks; read ports for the engines and the transport
//   nic_wqe_fetch  SQ indices, WQE fetch by DMA (or from a BlueFlame copy), WQE buffer
//   nic_wqe_dispatch the WQE stream in ring order: transport WQEs to nic_transport, memory
//                  operations to nic_mem_op (checks, MR table writes) and nic_page_list (a
//                  FastRegister's page list into the MTT), the rest completed at once
//   nic_mr_table   MR/MW table and MTT; nic_xl_arb in front of its translation port
//   nic_dma_rd     AXI AR/R: WQE fetch (ARID 0), page lists (1), requester payload (2),
//                  responder receive WQEs and read-response payload (3)
//   nic_transport  RoCEv2 RC transport: requester, responder, framing (docs/transport.md)
//   nic_cpl_arb    the dispatcher's, the requester's and the responder's completions into one stream
//   nic_cq_engine  CQ contexts: CQE writes, overflow, arming; interrupt requests
//   nic_msix       MSI-X table and PBA; messages
//   nic_dma_wr     AXI AW/W/B: CQEs / error records (port 0), MSI-X messages (port 1) and payload
//                  (port 2), in acceptance order on one AXI ID, so a message never overtakes its
//                  CQE and a CQE never overtakes its payload
//
// This file is wiring only (the instances and their port lists, every port by name: that is why
// it passes ~800 lines); it holds no logic of its own beyond the parameter checks.
//
// The parameter checks below are the only ones that matter: every limit a submodule relies on
// is checked here (the submodules keep their own checks for when they are used alone), and the
// submodules' parameter defaults are the core's. The QP commands' arguments are judged in one
// place too, nic_qp_ctx (the CQ commands' in nic_cq_engine, the MR commands' in nic_mr_table).
module nic_core #(
  parameter int DataWidth = 64,      // DMA and stream width in bits: 64 or 256
  parameter int NumQps = 16,         // queue pairs, 1..256
  parameter int NumCqs = 16,         // completion queues, 1..256
  parameter int NumMrs = 256,        // MR/MW table entries, 2..65535
  parameter int MttEntries = 1024,   // translation entries (4 KiB pages), 2..65535
  parameter int MsixVectors = 16,    // MSI-X table size, 1..2048
  parameter int MaxBurstWqes = 16,   // most WQEs fetched by one DMA read, 1..64, <= WqeBufEntries,
                                     // and at most 256 beats: <= 4 * DataWidth / 8
  parameter int WqeBufEntries = 128,  // WQE buffer between fetch and execution: a power of two, 2..32768
  parameter int LogMaxSqDepth = 12,  // largest send queue: 2^LogMaxSqDepth WQEs, <= 15
  parameter int LogMaxCqDepth = 14,  // largest CQ: 2^LogMaxCqDepth CQEs, <= 15
  parameter int MaxReads = 32        // Reads a QP may have outstanding (ORD, IRD): 2..128, a power of two
) (
  input  logic clk_i, input logic rst_i,
  // Time base: a one-cycle pulse every microsecond, from the platform (a board top divides its
  // known clock; the cosimulation harness pulses it every clock_mhz cycles). Interrupt
  // moderation intervals count these ticks.
  input  logic us_tick_i,
  // MSI-X Message Control of the function, from the platform (a board: the PCIe configuration
  // space, synchronised; the harness: 0 unless a test masks it): high while MSI-X is disabled or
  // the function is masked. Messages then wait as pending bits (nic_msix), never lost.
  input  logic msix_fn_masked_i,
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
  if (NumMrs < 2 || NumMrs > 65535 || MttEntries < 2 || MttEntries > 65535) begin : gen_bad_memory
    $fatal(1, "nic_core: NumMrs and MttEntries must be 2..65535 (16-bit CAP_MEMORY fields; a table index needs a bit)");
  end
  if (MsixVectors < 1 || MsixVectors > 2048) begin : gen_bad_msix
    $fatal(1, "nic_core: MsixVectors must be 1..2048 (the table must end below MSIX_PBA)");
  end
  if (MaxBurstWqes < 1 || MaxBurstWqes > 64 || MaxBurstWqes > WqeBufEntries) begin : gen_bad_burst
    $fatal(1, "nic_core: MaxBurstWqes must be 1..64 (a 4 KiB page holds 64 WQEs) and <= WqeBufEntries");
  end
  if (MaxBurstWqes * nic_pkg::WQE_BYTES / (DataWidth / 8) > 256) begin : gen_bad_burst_beats
    $fatal(1, "nic_core: MaxBurstWqes * 64 / (DataWidth / 8) must be <= 256 (an AXI4 burst)");
  end
  if (WqeBufEntries < 2 || WqeBufEntries > 32768 || (WqeBufEntries & (WqeBufEntries - 1)) != 0)
  begin : gen_bad_wqe_buf
    $fatal(1, "nic_core: WqeBufEntries must be a power of two in 2..32768 (pointer wrap; 16-bit CAP_SQ field)");
  end
  if (MaxReads < 2 || MaxReads > 128 || (MaxReads & (MaxReads - 1)) != 0) begin : gen_bad_max_reads
    $fatal(1, "nic_core: MaxReads must be a power of two in 2..128 (the requester's read contexts)");
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
  logic                lx_cpl_valid, lx_cpl_ready, rq_cpl_valid, rq_cpl_ready;
  logic                rs_cpl_valid, rs_cpl_ready;
  logic [7:0]          lx_cpl_cqn, rq_cpl_cqn, rs_cpl_cqn;
  nic_pkg::cqe_t       lx_cpl_cqe, rq_cpl_cqe, rs_cpl_cqe;

  // ---- QP contexts, WQE fetch, dispatch ----
  logic                qp_reset, qp_connect_taken;
  logic [7:0]          qp_reset_qpn, ring_db_qpn, ring_rd_qpn;
  logic [51:0]         ring_rd_base;
  logic [3:0]          ring_db_log_depth, ring_rd_log_depth;
  logic [NumQps-1:0]   qp_active;
  logic                db_err, exec_err;
  logic [7:0]          db_err_qpn, exec_err_qpn;
  logic [7:0]          ex_qpn, ex_sq_cqn;
  logic [1:0]          ex_state;
  logic [15:0]         ex_pd;
  logic                wqe_valid, wqe_ready, wqe_dma_err, wqe_stale;
  logic [511:0]        wqe_data;
  logic [7:0]          wqe_qpn;
  logic [15:0]         wqe_idx;
  logic                retire;
  logic [7:0]          retire_qpn;
  logic [15:0]         retire_idx;
  logic                rewind;        // nic_wqe_dispatch gives a waiting WQE back to the fetch
  logic [7:0]          rewind_qpn;
  logic                rewind_busy;

  // ---- the transport's reads of the QP contexts (nic_qp_ctx's tp_* ports) ----
  logic [7:0]          qc_in_qpn, qc_scq_qpn, qc_d_qpn, qc_rcq_qpn, qc_pq_qpn, qc_rq_qpn;
  logic [15:0]         qc_in_pd, qc_d_pd, qc_pq_pd;
  logic [51:0]         qc_in_sq_base;
  logic [3:0]          qc_in_sq_ld, qc_rq_ld;
  logic [7:0]          qc_scq_cqn, qc_rcq_cqn;
  logic [63:0]         qc_rq_base;

  // ---- dispatch -> transport ----
  logic                tp_valid, tp_ready;
  logic [511:0]        tp_data;
  logic [7:0]          tp_qpn, tp_req_err_qpn, tp_rsp_err_qpn;
  logic [15:0]         tp_idx;
  logic [NumQps-1:0]   tp_busy;       // QPs with WQEs in the transport (the fetch's rewind)
  logic [NumQps-1:0]   tp_busy_reg;   // ... from a register, a cycle late as it falls (dispatch)
  logic                tp_req_err, tp_rsp_err;

  // ---- MR/MW table: nic_mem_op's ports, the translation clients (0 the responder's dispatcher,
  // 1 its read-response engine, 2 the requester) ----
  localparam int MrW   = $clog2(NumMrs);
  localparam int MttAW = $clog2(MttEntries);
  logic [2*NumMrs-1:0] mr_state;
  logic                mr_cmd_wr;
  logic [$clog2(NumMrs)-1:0] mr_cmd_wr_idx;
  logic                mr_inv_wr;
  logic [$clog2(NumMrs)-1:0] mr_inv_wr_idx;
  logic                mr_a_re, mr_b_re;
  logic [MrW-1:0]      mr_a_idx, mr_b_idx;
  logic [15:0]         mr_a_pd, mr_b_pd;
  logic                mr_a_is_mw, mr_a_remote_ok, mr_b_is_mw;
  logic [31:0]         mr_a_max_pages, mr_a_mtt_offset;
  logic [7:0]          mr_a_key;
  logic [63:0]         mr_a_base_va, mr_a_length, mr_a_byte_off;
  logic [15:0]         mr_a_access;
  logic [MttAW-1:0]    mr_a_mtt_base;
  logic [1:0]          mr_a_state, mr_b_state;   // ports A and B's entries' states
  logic                mr_wr, mr_wr_reg;
  logic [MrW-1:0]      mr_wr_idx, mr_wr_parent;
  logic [1:0]          mr_wr_state;
  logic [7:0]          mr_wr_key;
  logic [63:0]         mr_wr_base_va, mr_wr_length, mr_wr_byte_off;
  logic [15:0]         mr_wr_access;
  logic [MttAW-1:0]    mr_wr_mtt_base;
  logic                mtt_we;
  logic [MttAW-1:0]    mtt_idx;
  logic [51:0]         mtt_pfn;
  logic [2:0]          xc_req, xc_gnt, xc_rsp, xc_inv;
  logic [95:0]         xc_token, xc_len;
  logic [191:0]        xc_va;
  logic [47:0]         xc_pd, xc_access;
  logic                xl_valid, xl_inv, xl_rsp_valid;
  logic [31:0]         xl_token, xl_len, xl_status;
  logic [63:0]         xl_va;
  logic [15:0]         xl_pd, xl_access;
  logic [3:0]          xl_tag, xl_rsp_tag;
  logic [51:0]         xl_pfn;
  logic [11:0]         xl_page_off;

  // ---- DMA read clients: 0 WQE fetch, 1 page lists, 2 requester payload, 3 responder ----
  logic [3:0]           rd_ar_valid, rd_ar_ready, rd_r_valid, rd_r_ready;
  logic [255:0]         rd_ar_addr;
  logic [31:0]          rd_ar_len;
  logic [DataWidth-1:0] rd_r_data;
  logic [1:0]           rd_r_resp;
  logic                 rd_r_last;

  // ---- transport payload writes, CQ engine, MSI-X ----
  logic                pay_req_valid, pay_req_ready, pay_w_valid, pay_w_ready;
  logic [63:0]         pay_req_addr;
  logic [7:0]          pay_req_len, pay_req_qpn, rec_cqn, b_err_tag;
  logic                b_err_rec, b_err_pay;
  logic [DataWidth-1:0] pay_w_data;
  logic [DataWidth/8-1:0] pay_w_strb;
  logic [31:0]         rx_drops;
  logic                cnt_rd;
  logic [4:0]          cnt_rd_word;
  logic [31:0]         cnt_rd_data;
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
    .cnt_rd_o          (cnt_rd),
    .cnt_rd_word_o     (cnt_rd_word),
    .cnt_rd_data_i     (cnt_rd_data),
    .cq_state_i        (cq_state),
    .msix_wr_valid_o   (msix_wr_valid),
    .msix_wr_addr_o    (msix_wr_addr),
    .msix_wr_data_o    (msix_wr_data),
    .msix_wr_strb_o    (msix_wr_strb),
    .msix_rd_addr_o    (msix_rd_addr),
    .msix_rd_data_i    (msix_rd_data)
  );

  // ---- QP contexts ------------------------------------------------------------------------------
  nic_qp_ctx #(
    .NumQps       (NumQps),
    .NumCqs       (NumCqs),
    .LogMaxSqDepth(LogMaxSqDepth),
    .MaxReads     (MaxReads)
  ) u_qp_ctx (
    .clk_i                (clk_i),
    .rst_i                (rst_i),
    .cmd_valid_i          (cmd_valid),
    .cmd_op_i             (cmd_op),
    .cmd_index_i          (cmd_index),
    .cmd_args_i           (cmd_args),
    .qp_reset_o           (qp_reset),
    .qp_reset_qpn_o       (qp_reset_qpn),
    .connect_taken_o      (qp_connect_taken),
    .ring_db_qpn_i        (ring_db_qpn),
    .ring_db_log_depth_o  (ring_db_log_depth),
    .ring_rd_qpn_i        (ring_rd_qpn),
    .ring_rd_base_o       (ring_rd_base),
    .ring_rd_log_depth_o  (ring_rd_log_depth),
    .qp_state_o           (qp_state),
    .qp_active_o          (qp_active),
    .cq_error_i           (cq_error),
    .db_err_i             (db_err),
    .db_err_qpn_i         (db_err_qpn),
    .exec_err_i           (exec_err),
    .exec_err_qpn_i       (exec_err_qpn),
    .req_err_i            (tp_req_err),
    .req_err_qpn_i        (tp_req_err_qpn),
    .rsp_err_i            (tp_rsp_err),
    .rsp_err_qpn_i        (tp_rsp_err_qpn),
    .wr_err_i             (b_err_pay),
    .wr_err_qpn_i         (b_err_tag),
    .rd_qpn_i             (ex_qpn),
    .rd_state_o           (ex_state),
    .rd_pd_o              (ex_pd),
    .rd_sq_cqn_o          (ex_sq_cqn),
    .tp_in_qpn_i          (qc_in_qpn),
    .tp_in_pd_o           (qc_in_pd),
    .tp_in_sq_base_o      (qc_in_sq_base),
    .tp_in_sq_ld_o        (qc_in_sq_ld),
    .tp_scq_qpn_i         (qc_scq_qpn),
    .tp_scq_cqn_o         (qc_scq_cqn),
    .tp_d_qpn_i           (qc_d_qpn),
    .tp_d_pd_o            (qc_d_pd),
    .tp_rcq_qpn_i         (qc_rcq_qpn),
    .tp_rcq_cqn_o         (qc_rcq_cqn),
    .tp_pq_qpn_i          (qc_pq_qpn),
    .tp_pq_pd_o           (qc_pq_pd),
    .tp_rq_qpn_i          (qc_rq_qpn),
    .tp_rq_base_o         (qc_rq_base),
    .tp_rq_ld_o           (qc_rq_ld)
  );

  // ---- WQE fetch --------------------------------------------------------------------------------
  nic_wqe_fetch #(
    .DataWidth     (DataWidth),
    .NumQps        (NumQps),
    .MaxBurstWqes  (MaxBurstWqes),
    .WqeBufEntries (WqeBufEntries),
    .LogMaxSqDepth (LogMaxSqDepth),
    .MaxReads      (4)
  ) u_fetch (
    .clk_i                (clk_i),
    .rst_i                (rst_i),
    .qp_reset_i           (qp_reset),
    .qp_reset_qpn_i       (qp_reset_qpn),
    .ring_db_qpn_o        (ring_db_qpn),
    .ring_db_log_depth_i  (ring_db_log_depth),
    .ring_rd_qpn_o        (ring_rd_qpn),
    .ring_rd_base_i       (ring_rd_base),
    .ring_rd_log_depth_i  (ring_rd_log_depth),
    .qp_active_i          (qp_active),
    .sq_db_valid_i        (sq_db_valid),
    .sq_db_qpn_i          (sq_db_qpn),
    .sq_db_pi_i           (sq_db_pi),
    .sq_db_bf_i           (sq_db_bf),
    .sq_db_bf_data_i      (sq_db_bf_data),
    .db_err_o             (db_err),
    .db_err_qpn_o         (db_err_qpn),
    .retire_i             (retire),
    .retire_qpn_i         (retire_qpn),
    .retire_idx_i         (retire_idx),
    .rewind_i             (rewind),
    .rewind_qpn_i         (rewind_qpn),
    .busy_i               (tp_busy),
    .rewind_busy_o        (rewind_busy),
    .ar_valid_o           (rd_ar_valid[0]),
    .ar_ready_i           (rd_ar_ready[0]),
    .ar_addr_o            (rd_ar_addr[63:0]),
    .ar_len_o             (rd_ar_len[7:0]),
    .r_valid_i            (rd_r_valid[0]),
    .r_ready_o            (rd_r_ready[0]),
    .r_data_i             (rd_r_data),
    .r_resp_i             (rd_r_resp),
    .r_last_i             (rd_r_last),
    .wqe_valid_o          (wqe_valid),
    .wqe_ready_i          (wqe_ready),
    .wqe_data_o           (wqe_data),
    .wqe_qpn_o            (wqe_qpn),
    .wqe_idx_o            (wqe_idx),
    .wqe_dma_err_o        (wqe_dma_err),
    .wqe_stale_o          (wqe_stale)
  );

  // ---- dispatch, memory operations, page lists -----------------------------------------------------
  logic                mo_load, mo_cur_valid, mo_exec, mo_commit, mo_ok, mo_ready;
  logic [511:0]        mo_cur_wqe;
  logic [15:0]         mo_qp_pd;
  logic [31:0]         mo_status, mo_fr_mtt_offset;
  logic [MttAW-1:0]    mo_mtt_base;
  logic                pl_load, pl_active, pl_done, pl_err, pl_bad;
  logic [63:0]         pl_addr;
  logic [31:0]         pl_mtt_off, pl_count;

  nic_wqe_dispatch #(
    .NumQps(NumQps)
  ) u_dispatch (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .wqe_valid_i       (wqe_valid),
    .wqe_ready_o       (wqe_ready),
    .wqe_data_i        (wqe_data),
    .wqe_qpn_i         (wqe_qpn),
    .wqe_idx_i         (wqe_idx),
    .wqe_dma_err_i     (wqe_dma_err),
    .wqe_stale_i       (wqe_stale),
    .tp_valid_o        (tp_valid),
    .tp_ready_i        (tp_ready),
    .tp_data_o         (tp_data),
    .tp_qpn_o          (tp_qpn),
    .tp_idx_o          (tp_idx),
    .tp_busy_i         (tp_busy_reg),
    .qp_reset_i        (qp_reset),
    .qp_reset_qpn_i    (qp_reset_qpn),
    .qp_rd_qpn_o       (ex_qpn),
    .qp_rd_state_i     (ex_state),
    .qp_rd_pd_i        (ex_pd),
    .qp_rd_sq_cqn_i    (ex_sq_cqn),
    .qp_err_o          (exec_err),
    .qp_err_qpn_o      (exec_err_qpn),
    .retire_o          (retire),
    .retire_qpn_o      (retire_qpn),
    .retire_idx_o      (retire_idx),
    .rewind_o          (rewind),
    .rewind_qpn_o      (rewind_qpn),
    .rewind_busy_i     (rewind_busy),
    .cpl_valid_o       (lx_cpl_valid),
    .cpl_cqn_o         (lx_cpl_cqn),
    .cpl_cqe_o         (lx_cpl_cqe),
    .cpl_ready_i       (lx_cpl_ready),
    .mo_load_o         (mo_load),
    .mo_cur_valid_o    (mo_cur_valid),
    .mo_cur_wqe_o      (mo_cur_wqe),
    .mo_qp_pd_o        (mo_qp_pd),
    .mo_status_i       (mo_status),
    .mo_ok_i           (mo_ok),
    .mo_ready_i        (mo_ready),
    .mo_fr_mtt_offset_i(mo_fr_mtt_offset),
    .mo_exec_o         (mo_exec),
    .mo_commit_o       (mo_commit),
    .pl_load_o         (pl_load),
    .pl_addr_o         (pl_addr),
    .pl_mtt_off_o      (pl_mtt_off),
    .pl_active_o       (pl_active),
    .pl_count_o        (pl_count),
    .pl_done_i         (pl_done),
    .pl_err_i          (pl_err),
    .pl_bad_i          (pl_bad)
  );

  nic_mem_op #(
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries)
  ) u_mem_op (
    .load_i            (mo_load),
    .head_wqe_i        (wqe_data),
    .cur_valid_i       (mo_cur_valid),
    .cur_wqe_i         (mo_cur_wqe),
    .qp_pd_i           (mo_qp_pd),
    .status_o          (mo_status),
    .ok_o              (mo_ok),
    .ready_o           (mo_ready),
    .fr_mtt_offset_o   (mo_fr_mtt_offset),
    .exec_i            (mo_exec),
    .commit_i          (mo_commit),
    .mtt_base_i        (mo_mtt_base),
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .mr_state_i        (mr_state),
    .mr_cmd_wr_i       (mr_cmd_wr),
    .mr_cmd_wr_idx_i   (mr_cmd_wr_idx),
    .mr_inv_wr_i       (mr_inv_wr),
    .mr_inv_wr_idx_i   (mr_inv_wr_idx),
    .mr_a_re_o         (mr_a_re),
    .mr_a_idx_o        (mr_a_idx),
    .mr_a_pd_i         (mr_a_pd),
    .mr_a_is_mw_i      (mr_a_is_mw),
    .mr_a_remote_ok_i  (mr_a_remote_ok),
    .mr_a_max_pages_i  (mr_a_max_pages),
    .mr_a_mtt_offset_i (mr_a_mtt_offset),
    .mr_a_key_i        (mr_a_key),
    .mr_a_base_va_i    (mr_a_base_va),
    .mr_a_length_i     (mr_a_length),
    .mr_a_byte_off_i   (mr_a_byte_off),
    .mr_a_access_i     (mr_a_access),
    .mr_a_mtt_base_i   (mr_a_mtt_base),
    .mr_a_state_i      (mr_a_state),
    .mr_b_re_o         (mr_b_re),
    .mr_b_idx_o        (mr_b_idx),
    .mr_b_pd_i         (mr_b_pd),
    .mr_b_is_mw_i      (mr_b_is_mw),
    .mr_b_state_i      (mr_b_state),
    .mr_wr_o           (mr_wr),
    .mr_wr_idx_o       (mr_wr_idx),
    .mr_wr_state_o     (mr_wr_state),
    .mr_wr_reg_o       (mr_wr_reg),
    .mr_wr_key_o       (mr_wr_key),
    .mr_wr_base_va_o   (mr_wr_base_va),
    .mr_wr_length_o    (mr_wr_length),
    .mr_wr_byte_off_o  (mr_wr_byte_off),
    .mr_wr_access_o    (mr_wr_access),
    .mr_wr_mtt_base_o  (mr_wr_mtt_base),
    .mr_wr_parent_o    (mr_wr_parent)
  );

  nic_page_list #(
    .DataWidth  (DataWidth),
    .MttEntries (MttEntries)
  ) u_page_list (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .load_i     (pl_load),
    .addr_i     (pl_addr),
    .mtt_off_i  (pl_mtt_off),
    .active_i   (pl_active),
    .count_i    (pl_count),
    .done_o     (pl_done),
    .err_o      (pl_err),
    .bad_o      (pl_bad),
    .mtt_base_o (mo_mtt_base),
    .ar_valid_o (rd_ar_valid[1]),
    .ar_ready_i (rd_ar_ready[1]),
    .ar_addr_o  (rd_ar_addr[127:64]),
    .ar_len_o   (rd_ar_len[15:8]),
    .r_valid_i  (rd_r_valid[1]),
    .r_ready_o  (rd_r_ready[1]),
    .r_data_i   (rd_r_data),
    .r_resp_i   (rd_r_resp),
    .r_last_i   (rd_r_last),
    .mtt_we_o   (mtt_we),
    .mtt_idx_o  (mtt_idx),
    .mtt_pfn_o  (mtt_pfn)
  );

  // ---- MR/MW table and its translation arbiter ----------------------------------------------------
  nic_mr_table #(
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries),
    .XlTagW     (4)
  ) u_mr_table (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .cmd_valid_i       (cmd_valid),
    .cmd_op_i          (cmd_op),
    .cmd_index_i       (cmd_index),
    .cmd_args_i        (cmd_args),
    .state_o           (mr_state),
    .cmd_wr_o          (mr_cmd_wr),
    .cmd_wr_idx_o      (mr_cmd_wr_idx),
    .inv_wr_o          (mr_inv_wr),
    .inv_wr_idx_o      (mr_inv_wr_idx),
    .a_re_i            (mr_a_re),
    .a_idx_i           (mr_a_idx),
    .a_pd_o            (mr_a_pd),
    .a_is_mw_o         (mr_a_is_mw),
    .a_remote_ok_o     (mr_a_remote_ok),
    .a_max_pages_o     (mr_a_max_pages),
    .a_mtt_offset_o    (mr_a_mtt_offset),
    .a_key_o           (mr_a_key),
    .a_base_va_o       (mr_a_base_va),
    .a_length_o        (mr_a_length),
    .a_byte_off_o      (mr_a_byte_off),
    .a_access_o        (mr_a_access),
    .a_mtt_base_o      (mr_a_mtt_base),
    .a_state_o         (mr_a_state),
    .b_re_i            (mr_b_re),
    .b_idx_i           (mr_b_idx),
    .b_pd_o            (mr_b_pd),
    .b_is_mw_o         (mr_b_is_mw),
    .b_state_o         (mr_b_state),
    .wr_i              (mr_wr),
    .wr_idx_i          (mr_wr_idx),
    .wr_state_i        (mr_wr_state),
    .wr_reg_i          (mr_wr_reg),
    .wr_key_i          (mr_wr_key),
    .wr_base_va_i      (mr_wr_base_va),
    .wr_length_i       (mr_wr_length),
    .wr_byte_off_i     (mr_wr_byte_off),
    .wr_access_i       (mr_wr_access),
    .wr_mtt_base_i     (mr_wr_mtt_base),
    .wr_parent_i       (mr_wr_parent),
    .mtt_we_i          (mtt_we),
    .mtt_idx_i         (mtt_idx),
    .mtt_pfn_i         (mtt_pfn),
    .xl_valid_i        (xl_valid),
    .xl_token_i        (xl_token),
    .xl_va_i           (xl_va),
    .xl_len_i          (xl_len),
    .xl_pd_i           (xl_pd),
    .xl_access_i       (xl_access),
    .xl_inv_i          (xl_inv),
    .xl_tag_i          (xl_tag),
    .xl_valid_o        (xl_rsp_valid),
    .xl_tag_o          (xl_rsp_tag),
    .xl_status_o       (xl_status),
    .xl_pfn_o          (xl_pfn),
    .xl_page_off_o     (xl_page_off)
  );

  nic_xl_arb #(
    .NumClients(3),
    .OutReg    (1'b1)
  ) u_xl_arb (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .req_i      (xc_req),
    .gnt_o      (xc_gnt),
    .token_i    (xc_token),
    .va_i       (xc_va),
    .len_i      (xc_len),
    .pd_i       (xc_pd),
    .access_i   (xc_access),
    .inv_i      (xc_inv),
    .rsp_valid_o(xc_rsp),
    .xl_valid_o (xl_valid),
    .xl_token_o (xl_token),
    .xl_va_o    (xl_va),
    .xl_len_o   (xl_len),
    .xl_pd_o    (xl_pd),
    .xl_access_o(xl_access),
    .xl_inv_o   (xl_inv),
    .xl_tag_o   (xl_tag),
    .xl_valid_i (xl_rsp_valid),
    .xl_tag_i   (xl_rsp_tag)
  );

  assign xc_inv[2:1] = 2'b00;     // only the responder's dispatcher invalidates

  // ---- DMA reads ----------------------------------------------------------------------------------
  nic_dma_rd #(
    .DataWidth  (DataWidth),
    .NumClients (4)
  ) u_dma_rd (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .cl_ar_valid_i   (rd_ar_valid),
    .cl_ar_ready_o   (rd_ar_ready),
    .cl_ar_addr_i    (rd_ar_addr),
    .cl_ar_len_i     (rd_ar_len),
    .cl_r_valid_o    (rd_r_valid),
    .cl_r_ready_i    (rd_r_ready),
    .cl_r_data_o     (rd_r_data),
    .cl_r_resp_o     (rd_r_resp),
    .cl_r_last_o     (rd_r_last),
    .m_axi_arid_o    (m_axi_arid_o),
    .m_axi_araddr_o  (m_axi_araddr_o),
    .m_axi_arlen_o   (m_axi_arlen_o),
    .m_axi_arsize_o  (m_axi_arsize_o),
    .m_axi_arburst_o (m_axi_arburst_o),
    .m_axi_arvalid_o (m_axi_arvalid_o),
    .m_axi_arready_i (m_axi_arready_i),
    .m_axi_rid_i     (m_axi_rid_i),
    .m_axi_rdata_i   (m_axi_rdata_i),
    .m_axi_rresp_i   (m_axi_rresp_i),
    .m_axi_rlast_i   (m_axi_rlast_i),
    .m_axi_rvalid_i  (m_axi_rvalid_i),
    .m_axi_rready_o  (m_axi_rready_o)
  );

  // ---- the transport ------------------------------------------------------------------------------
  // The transport sees every command but a QP_CONNECT nic_qp_ctx refused: a refused connect
  // must not rewrite the peer, MTU or PSNs of a QP that is connected already.
  logic tp_cmd_valid;
  assign tp_cmd_valid = cmd_valid && (cmd_op != nic_pkg::CMD_QP_CONNECT || qp_connect_taken);

  nic_transport #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (MaxReads)
  ) u_transport (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .port_mac_i       (port_mac_i),
    .port_ipv4_i      (port_ipv4_i),
    .us_tick_i        (us_tick_i),
    .cmd_valid_i      (tp_cmd_valid),
    .cmd_op_i         (cmd_op),
    .cmd_index_i      (cmd_index),
    .cmd_args_i       (cmd_args),
    .qp_state_i       (qp_state),
    .rq_db_valid_i    (rq_db_valid),
    .rq_db_qpn_i      (rq_db_qpn),
    .rq_db_pi_i       (rq_db_pi),
    .qc_in_qpn_o      (qc_in_qpn),
    .qc_in_pd_i       (qc_in_pd),
    .qc_in_sq_base_i  (qc_in_sq_base),
    .qc_in_sq_ld_i    (qc_in_sq_ld),
    .qc_scq_qpn_o     (qc_scq_qpn),
    .qc_scq_cqn_i     (qc_scq_cqn),
    .qc_d_qpn_o       (qc_d_qpn),
    .qc_d_pd_i        (qc_d_pd),
    .qc_rcq_qpn_o     (qc_rcq_qpn),
    .qc_rcq_cqn_i     (qc_rcq_cqn),
    .qc_pq_qpn_o      (qc_pq_qpn),
    .qc_pq_pd_i       (qc_pq_pd),
    .qc_rq_qpn_o      (qc_rq_qpn),
    .qc_rq_base_i     (qc_rq_base),
    .qc_rq_ld_i       (qc_rq_ld),
    .wqe_valid_i      (tp_valid),
    .wqe_data_i       (tp_data),
    .wqe_qpn_i        (tp_qpn),
    .wqe_idx_i        (tp_idx),
    .wqe_ready_o      (tp_ready),
    .busy_o           (tp_busy),
    .busy_reg_o       (tp_busy_reg),
    .req_err_o        (tp_req_err),
    .req_err_qpn_o    (tp_req_err_qpn),
    .rsp_err_o        (tp_rsp_err),
    .rsp_err_qpn_o    (tp_rsp_err_qpn),
    .rq_xl_req_o      (xc_req[2]),
    .rq_xl_gnt_i      (xc_gnt[2]),
    .rq_xl_token_o    (xc_token[95:64]),
    .rq_xl_va_o       (xc_va[191:128]),
    .rq_xl_len_o      (xc_len[95:64]),
    .rq_xl_pd_o       (xc_pd[47:32]),
    .rq_xl_access_o   (xc_access[47:32]),
    .rq_xl_rsp_valid_i(xc_rsp[2]),
    .rs_xl_req_o      (xc_req[0]),
    .rs_xl_gnt_i      (xc_gnt[0]),
    .rs_xl_token_o    (xc_token[31:0]),
    .rs_xl_va_o       (xc_va[63:0]),
    .rs_xl_len_o      (xc_len[31:0]),
    .rs_xl_pd_o       (xc_pd[15:0]),
    .rs_xl_access_o   (xc_access[15:0]),
    .rs_xl_inv_o      (xc_inv[0]),
    .rs_xl_rsp_valid_i(xc_rsp[0]),
    .rr_xl_req_o      (xc_req[1]),
    .rr_xl_gnt_i      (xc_gnt[1]),
    .rr_xl_token_o    (xc_token[63:32]),
    .rr_xl_va_o       (xc_va[127:64]),
    .rr_xl_len_o      (xc_len[63:32]),
    .rr_xl_pd_o       (xc_pd[31:16]),
    .rr_xl_access_o   (xc_access[31:16]),
    .rr_xl_rsp_valid_i(xc_rsp[1]),
    .xl_status_i      (xl_status),
    .xl_pfn_i         (xl_pfn),
    .xl_page_off_i    (xl_page_off),
    .a_ar_valid_o     (rd_ar_valid[2]),
    .a_ar_ready_i     (rd_ar_ready[2]),
    .a_ar_addr_o      (rd_ar_addr[191:128]),
    .a_ar_len_o       (rd_ar_len[23:16]),
    .a_r_valid_i      (rd_r_valid[2]),
    .a_r_ready_o      (rd_r_ready[2]),
    .b_ar_valid_o     (rd_ar_valid[3]),
    .b_ar_ready_i     (rd_ar_ready[3]),
    .b_ar_addr_o      (rd_ar_addr[255:192]),
    .b_ar_len_o       (rd_ar_len[31:24]),
    .b_r_valid_i      (rd_r_valid[3]),
    .b_r_ready_o      (rd_r_ready[3]),
    .r_data_i         (rd_r_data),
    .r_resp_i         (rd_r_resp),
    .r_last_i         (rd_r_last),
    .wr_req_valid_o   (pay_req_valid),
    .wr_req_addr_o    (pay_req_addr),
    .wr_req_len_o     (pay_req_len),
    .wr_req_qpn_o     (pay_req_qpn),
    .wr_req_ready_i   (pay_req_ready),
    .wr_valid_o       (pay_w_valid),
    .wr_data_o        (pay_w_data),
    .wr_strb_o        (pay_w_strb),
    .wr_ready_i       (pay_w_ready),
    .rq_cpl_valid_o   (rq_cpl_valid),
    .rq_cpl_cqn_o     (rq_cpl_cqn),
    .rq_cpl_cqe_o     (rq_cpl_cqe),
    .rq_cpl_ready_i   (rq_cpl_ready),
    .rs_cpl_valid_o   (rs_cpl_valid),
    .rs_cpl_cqn_o     (rs_cpl_cqn),
    .rs_cpl_cqe_o     (rs_cpl_cqe),
    .rs_cpl_ready_i   (rs_cpl_ready),
    .tx_tdata_o       (m_axis_tx_tdata_o),
    .tx_tkeep_o       (m_axis_tx_tkeep_o),
    .tx_tlast_o       (m_axis_tx_tlast_o),
    .tx_tvalid_o      (m_axis_tx_tvalid_o),
    .tx_tready_i      (m_axis_tx_tready_i),
    .rx_tdata_i       (s_axis_rx_tdata_i),
    .rx_tkeep_i       (s_axis_rx_tkeep_i),
    .rx_tlast_i       (s_axis_rx_tlast_i),
    .rx_tvalid_i      (s_axis_rx_tvalid_i),
    .rx_tready_o      (s_axis_rx_tready_o),
    .rx_drops_o       (rx_drops),
    .cnt_rd_i         (cnt_rd),
    .cnt_rd_word_i    (cnt_rd_word),
    .cnt_rd_data_o    (cnt_rd_data)
  );

  // ---- completions: one arbiter ------------------------------------------------------------------
  nic_cpl_arb u_cpl_arb (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .x_valid_i  (lx_cpl_valid),
    .x_cqn_i    (lx_cpl_cqn),
    .x_cqe_i    (lx_cpl_cqe),
    .x_ready_o  (lx_cpl_ready),
    .q_valid_i  (rq_cpl_valid),
    .q_cqn_i    (rq_cpl_cqn),
    .q_cqe_i    (rq_cpl_cqe),
    .q_ready_o  (rq_cpl_ready),
    .s_valid_i  (rs_cpl_valid),
    .s_cqn_i    (rs_cpl_cqn),
    .s_cqe_i    (rs_cpl_cqe),
    .s_ready_o  (rs_cpl_ready),
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
    .wr_cqn_o       (rec_cqn),
    .wr_ready_i     (rec_ready),
    .wr_fault_i     (b_err_rec),
    .wr_fault_cqn_i (b_err_tag),
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
    .fn_masked_i   (msix_fn_masked_i),
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
    .req0_tag_i     (rec_cqn),
    .req0_ready_o   (rec_ready),
    .req1_valid_i   (msg_valid),
    .req1_addr_i    (msg_addr),
    .req1_data_i    (msg_data),
    .req1_ready_o   (msg_ready),
    .req2_valid_i   (pay_req_valid),
    .req2_addr_i    (pay_req_addr),
    .req2_len_i     (pay_req_len),
    .req2_tag_i     (pay_req_qpn),
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
    .m_axi_bready_o (m_axi_bready_o),
    .b_err_rec_o    (b_err_rec),
    .b_err_pay_o    (b_err_pay),
    .b_err_tag_o    (b_err_tag)
  );

endmodule
