`default_nettype none
// nic_sq_engine: the send-queue engine. It owns the QP contexts and the MR/MW table, fetches
// WQEs by DMA, executes the local requests and hands one completion per WQE to the CQ engine.
//
//   nic_csr ──cmd / doorbells──▶ QP contexts (here) ──▶ nic_wqe_fetch ──WQEs──▶ nic_local_exec
//                                                          │ AR/R (ID 0)          │ AR/R (ID 1)
//                                                          └──────▶ nic_dma_rd ◀──┘ page lists
//                                                 nic_mr_table ◀──▶ nic_local_exec ──▶ cpl_*
//
// QP context (per QP, in flops): state, pd, send/receive CQ numbers, SQ ring base and depth, RQ
// ring base, depth and producer index. Commands (one-cycle pulses from nic_csr, applied in that
// cycle; a queue number >= NumQps / an MR index >= NumMrs is ignored):
//   QP_CREATE: READY with all indices 0 if sq_log_depth <= LogMaxSqDepth and the SQ ring is
//              4 KiB aligned, else the QP stays / goes to RESET (the driver reads QP_STATE).
//   QP_DESTROY: RESET; WQEs of the QP still in flight are discarded without completion.
//   QP_FLUSH: ERROR (a QP in RESET stays there): outstanding and later WQEs complete CANCELLED.
//   MR_INIT / MR_FREE: to the MR/MW table.
// A QP leaves READY for ERROR when one of its WQEs fails, when a doorbell would overrun its ring
// (a software bug: the doorbell is dropped), or when its send or receive CQ is in error
// (overflow: the CQ and all its QPs are unusable).
module nic_sq_engine #(
  parameter int DataWidth = 64,       // DMA data width: 64 or 256
  parameter int NumQps = 16,          // queue pairs, <= 256
  parameter int NumCqs = 16,          // completion queues, <= 256
  parameter int NumMrs = 64,          // MR/MW table entries
  parameter int MttEntries = 1024,    // translation entries (4 KiB pages)
  parameter int MaxBurstWqes = 16,    // most WQEs per fetch burst: <= 64, <= WqeBufEntries
  parameter int WqeBufEntries = 32,   // WQE buffer slots: a power of two
  parameter int LogMaxSqDepth = 12    // largest send queue: 2^LogMaxSqDepth WQEs
) (
  input  logic clk_i, input logic rst_i,
  input  logic cmd_valid_i, input logic [7:0] cmd_op_i, input logic [15:0] cmd_index_i,
  input  logic [255:0] cmd_args_i,                       // ARG0 in [31:0] ... ARG7 in [255:224]
  input  logic sq_db_valid_i, input logic [7:0] sq_db_qpn_i, input logic [15:0] sq_db_pi_i,
  input  logic rq_db_valid_i, input logic [7:0] rq_db_qpn_i, input logic [15:0] rq_db_pi_i,
  output logic [2*NumQps-1:0] qp_state_o,                // nic_pkg QP_STATE_* per QP, QP n in [2n+1:2n]
  input  logic [NumCqs-1:0] cq_error_i,                  // CQ n is in error (overflow)
  // completions, one per WQE (none for a successful SILENT_SUCCESS one), in WQE order per QP
  output logic cpl_valid_o, output logic [7:0] cpl_cqn_o, output nic_pkg::cqe_t cpl_cqe_o, input logic cpl_ready_i,
  // AXI4 read master (DMA reads: WQE fetch, page lists)
  output logic [3:0] m_axi_arid_o, output logic [63:0] m_axi_araddr_o, output logic [7:0] m_axi_arlen_o,
  output logic [2:0] m_axi_arsize_o, output logic [1:0] m_axi_arburst_o, output logic m_axi_arvalid_o, input logic m_axi_arready_i,
  input  logic [3:0] m_axi_rid_i, input logic [DataWidth-1:0] m_axi_rdata_i, input logic [1:0] m_axi_rresp_i,
  input  logic m_axi_rlast_i, input logic m_axi_rvalid_i, output logic m_axi_rready_o
);

  localparam int MrW   = $clog2(NumMrs);
  localparam int MttAW = $clog2(MttEntries);

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_sq_engine: DataWidth must be 64 or 256");
  end
  if (NumQps < 1 || NumQps > 256) begin : gen_bad_qps
    $fatal(1, "nic_sq_engine: NumQps must be 1..256");
  end
  if (NumCqs < 1 || NumCqs > 256) begin : gen_bad_cqs
    $fatal(1, "nic_sq_engine: NumCqs must be 1..256");
  end
  if (MaxBurstWqes * 64 / (DataWidth / 8) > 256) begin : gen_bad_burst_beats
    $fatal(1, "nic_sq_engine: MaxBurstWqes * 64 / (DataWidth / 8) must be <= 256");
  end
  if (MaxBurstWqes < 1 || MaxBurstWqes > 64 || MaxBurstWqes > WqeBufEntries) begin : gen_bad_burst
    $fatal(1, "nic_sq_engine: MaxBurstWqes must be 1..64 and <= WqeBufEntries");
  end
  if (WqeBufEntries < 2 || (WqeBufEntries & (WqeBufEntries - 1)) != 0) begin : gen_bad_buf
    $fatal(1, "nic_sq_engine: WqeBufEntries must be a power of two >= 2");
  end
  if (NumMrs < 2 || NumMrs > 65536) begin : gen_bad_mrs
    $fatal(1, "nic_sq_engine: NumMrs must be 2..65536 (the command index is 16 bits)");
  end
  if (LogMaxSqDepth < 0 || LogMaxSqDepth > 15) begin : gen_bad_depth
    $fatal(1, "nic_sq_engine: LogMaxSqDepth must be 0..15 (16-bit free-running indices)");
  end

  // ---- commands -----------------------------------------------------------------------------
  logic [31:0] arg0, arg1, arg2, arg3, arg4, arg5;
  logic        cmd_qp, cmd_mr;
  logic [7:0]  cmd_qpn;
  logic        qp_create, qp_destroy, qp_flush, qp_reset, create_ok;
  logic        mr_init, mr_free;

  assign arg0 = cmd_args_i[31:0];
  assign arg1 = cmd_args_i[63:32];
  assign arg2 = cmd_args_i[95:64];
  assign arg3 = cmd_args_i[127:96];
  assign arg4 = cmd_args_i[159:128];
  assign arg5 = cmd_args_i[191:160];

  assign cmd_qp     = cmd_valid_i && 32'(cmd_index_i) < NumQps;
  assign cmd_mr     = cmd_valid_i && 32'(cmd_index_i) < NumMrs;
  assign cmd_qpn    = cmd_index_i[7:0];
  assign qp_create  = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_CREATE;
  assign qp_destroy = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_DESTROY;
  assign qp_flush   = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_FLUSH;
  assign qp_reset   = qp_create || qp_destroy;     // either way the old ring's WQEs are gone
  assign create_ok  = 32'(arg3[7:0]) <= LogMaxSqDepth && arg0[11:0] == 12'd0;
  assign mr_init    = cmd_mr && cmd_op_i == nic_pkg::CMD_MR_INIT;
  assign mr_free    = cmd_mr && cmd_op_i == nic_pkg::CMD_MR_FREE;

  // ---- QP contexts --------------------------------------------------------------------------
  logic [255:0]          cq_err_all;     // one bit per possible CQ number (absent CQs: 0)
  logic [NumQps-1:0]     qp_active;
  logic [NumQps*52-1:0]  qp_base;
  logic [NumQps*4-1:0]   qp_log_depth;
  logic [NumQps*16-1:0]  qp_pd;
  logic [NumQps*8-1:0]   qp_sq_cqn;
  logic [NumQps*16-1:0]  qp_rq_pi;
  logic [NumQps*64-1:0]  qp_rq_base;
  logic [NumQps*8-1:0]   qp_rq_log_depth;
  logic                  db_err, exec_err;
  logic [7:0]            db_err_qpn, exec_err_qpn;

  assign cq_err_all = 256'(cq_error_i);

  for (genvar q = 0; q < NumQps; q++) begin : gen_qp
    logic [1:0]  state_q, state_d;
    logic [15:0] pd_q, pd_d;
    logic [7:0]  sq_cqn_q, sq_cqn_d, rq_cqn_q, rq_cqn_d;
    logic [51:0] base_q, base_d;
    logic [3:0]  ld_q, ld_d;
    logic [63:0] rq_base_q, rq_base_d;
    logic [7:0]  rq_ld_q, rq_ld_d;
    logic [15:0] rq_pi_q, rq_pi_d;
    logic        hit, fail;

    assign hit  = cmd_qpn == 8'(q);
    assign fail = (db_err && db_err_qpn == 8'(q)) || (exec_err && exec_err_qpn == 8'(q)) ||
                  cq_err_all[sq_cqn_q] || cq_err_all[rq_cqn_q];

    always_comb begin
      state_d   = state_q;
      pd_d      = pd_q;
      sq_cqn_d  = sq_cqn_q;
      rq_cqn_d  = rq_cqn_q;
      base_d    = base_q;
      ld_d      = ld_q;
      rq_base_d = rq_base_q;
      rq_ld_d   = rq_ld_q;
      rq_pi_d   = rq_pi_q;
      if (fail && state_q == nic_pkg::QP_STATE_READY) begin
        state_d = nic_pkg::QP_STATE_ERROR;
      end
      if (rq_db_valid_i && rq_db_qpn_i == 8'(q) && state_q != nic_pkg::QP_STATE_RESET) begin
        rq_pi_d = rq_db_pi_i;
      end
      // Commands come last: they win over same-cycle events of the old incarnation.
      if (qp_flush && hit && state_q != nic_pkg::QP_STATE_RESET) begin
        state_d = nic_pkg::QP_STATE_ERROR;
      end
      if (qp_destroy && hit) begin
        state_d = nic_pkg::QP_STATE_RESET;
      end
      if (qp_create && hit) begin
        state_d   = create_ok ? nic_pkg::QP_STATE_READY : nic_pkg::QP_STATE_RESET;
        pd_d      = arg2[15:0];
        sq_cqn_d  = arg2[23:16];
        rq_cqn_d  = arg2[31:24];
        base_d    = {arg1, arg0[31:12]};
        ld_d      = arg3[3:0];
        rq_base_d = {arg5, arg4};
        rq_ld_d   = arg3[15:8];
        rq_pi_d   = '0;
      end
    end

    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        state_q   <= nic_pkg::QP_STATE_RESET;
        pd_q      <= '0;
        sq_cqn_q  <= '0;
        rq_cqn_q  <= '0;
        base_q    <= '0;
        ld_q      <= '0;
        rq_base_q <= '0;
        rq_ld_q   <= '0;
        rq_pi_q   <= '0;
      end else begin
        state_q   <= state_d;
        pd_q      <= pd_d;
        sq_cqn_q  <= sq_cqn_d;
        rq_cqn_q  <= rq_cqn_d;
        base_q    <= base_d;
        ld_q      <= ld_d;
        rq_base_q <= rq_base_d;
        rq_ld_q   <= rq_ld_d;
        rq_pi_q   <= rq_pi_d;
      end
    end

    assign qp_state_o[2*q +: 2]          = state_q;
    assign qp_active[q]                  = state_q != nic_pkg::QP_STATE_RESET;
    assign qp_base[52*q +: 52]           = base_q;
    assign qp_log_depth[4*q +: 4]        = ld_q;
    assign qp_pd[16*q +: 16]             = pd_q;
    assign qp_sq_cqn[8*q +: 8]           = sq_cqn_q;
    assign qp_rq_pi[16*q +: 16]          = rq_pi_q;
    assign qp_rq_base[64*q +: 64]        = rq_base_q;
    assign qp_rq_log_depth[8*q +: 8]     = rq_ld_q;

`ifndef SYNTHESIS
    a_qp_state_known: assert property (@(posedge clk_i) disable iff (rst_i)
        state_q != 2'd3);
    a_qp_depth_in_range: assert property (@(posedge clk_i) disable iff (rst_i)
        state_q != nic_pkg::QP_STATE_RESET |-> 32'(ld_q) <= LogMaxSqDepth);
`endif
  end

  // The receive side is not built yet: the RQ producer index, ring base and depth are kept for
  // the transport, which will consume them.
  logic unused_rq;
  assign unused_rq = ^{qp_rq_pi, qp_rq_base, qp_rq_log_depth};
  // Command arguments no command of this engine uses.
  logic unused_args;
  assign unused_args = ^{cmd_args_i[255:192], arg0[31:16], arg3[31:16]};

  // ---- DMA reads: client 0 = WQE fetch (ARID 0), client 1 = page lists (ARID 1) --------------
  logic [1:0]           cl_ar_valid, cl_ar_ready, cl_r_valid, cl_r_ready;
  logic [127:0]         cl_ar_addr;
  logic [15:0]          cl_ar_len;
  logic [DataWidth-1:0] cl_r_data;
  logic [1:0]           cl_r_resp;
  logic                 cl_r_last;

  nic_dma_rd #(
    .DataWidth  (DataWidth),
    .NumClients (2)
  ) u_dma_rd (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .cl_ar_valid_i   (cl_ar_valid),
    .cl_ar_ready_o   (cl_ar_ready),
    .cl_ar_addr_i    (cl_ar_addr),
    .cl_ar_len_i     (cl_ar_len),
    .cl_r_valid_o    (cl_r_valid),
    .cl_r_ready_i    (cl_r_ready),
    .cl_r_data_o     (cl_r_data),
    .cl_r_resp_o     (cl_r_resp),
    .cl_r_last_o     (cl_r_last),
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

  // ---- WQE fetch ------------------------------------------------------------------------------
  logic         wqe_valid, wqe_ready, wqe_dma_err, wqe_stale;
  logic [511:0] wqe_data;
  logic [7:0]   wqe_qpn;
  logic [15:0]  wqe_idx;
  logic         retire;
  logic [7:0]   retire_qpn;
  logic [15:0]  retire_idx;

  nic_wqe_fetch #(
    .DataWidth     (DataWidth),
    .NumQps        (NumQps),
    .MaxBurstWqes  (MaxBurstWqes),
    .WqeBufEntries (WqeBufEntries),
    .LogMaxSqDepth (LogMaxSqDepth),
    .MaxReads      (4)
  ) u_fetch (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .qp_reset_i     (qp_reset),
    .qp_reset_qpn_i (cmd_qpn),
    .qp_active_i    (qp_active),
    .qp_base_i      (qp_base),
    .qp_log_depth_i (qp_log_depth),
    .sq_db_valid_i  (sq_db_valid_i),
    .sq_db_qpn_i    (sq_db_qpn_i),
    .sq_db_pi_i     (sq_db_pi_i),
    .db_err_o       (db_err),
    .db_err_qpn_o   (db_err_qpn),
    .retire_i       (retire),
    .retire_qpn_i   (retire_qpn),
    .retire_idx_i   (retire_idx),
    .ar_valid_o     (cl_ar_valid[0]),
    .ar_ready_i     (cl_ar_ready[0]),
    .ar_addr_o      (cl_ar_addr[63:0]),
    .ar_len_o       (cl_ar_len[7:0]),
    .r_valid_i      (cl_r_valid[0]),
    .r_ready_o      (cl_r_ready[0]),
    .r_data_i       (cl_r_data),
    .r_resp_i       (cl_r_resp),
    .r_last_i       (cl_r_last),
    .wqe_valid_o    (wqe_valid),
    .wqe_ready_i    (wqe_ready),
    .wqe_data_o     (wqe_data),
    .wqe_qpn_o      (wqe_qpn),
    .wqe_idx_o      (wqe_idx),
    .wqe_dma_err_o  (wqe_dma_err),
    .wqe_stale_o    (wqe_stale)
  );

  // ---- MR/MW table ----------------------------------------------------------------------------
  logic [2*NumMrs-1:0] mr_state;
  logic                mr_a_re, mr_b_re;
  logic [MrW-1:0]      mr_a_idx, mr_b_idx;
  logic [15:0]         mr_a_pd, mr_b_pd;
  logic                mr_a_is_mw, mr_a_remote_ok, mr_b_is_mw;
  logic [31:0]         mr_a_max_pages, mr_a_mtt_offset;
  logic [7:0]          mr_a_key;
  logic [63:0]         mr_a_base_va, mr_a_length, mr_a_byte_off;
  logic [15:0]         mr_a_access;
  logic [MttAW-1:0]    mr_a_mtt_base;
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
  // The translation port waits for the transport; until then it is idle.
  logic                xl_valid;
  logic [31:0]         xl_status;
  logic [51:0]         xl_pfn;
  logic [11:0]         xl_page_off;

  nic_mr_table #(
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries)
  ) u_mr_table (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .init_i            (mr_init),
    .free_i            (mr_free),
    .cmd_idx_i         (cmd_index_i[MrW-1:0]),
    .init_pd_i         (arg0[15:0]),
    .init_max_pages_i  (arg1),
    .init_mtt_offset_i (arg2),
    .init_is_mw_i      (arg3[1]),
    .init_remote_ok_i  (arg3[0]),
    .state_o           (mr_state),
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
    .b_re_i            (mr_b_re),
    .b_idx_i           (mr_b_idx),
    .b_pd_o            (mr_b_pd),
    .b_is_mw_o         (mr_b_is_mw),
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
    .xl_valid_i        (1'b0),
    .xl_token_i        (32'd0),
    .xl_va_i           (64'd0),
    .xl_len_i          (32'd0),
    .xl_pd_i           (16'd0),
    .xl_access_i       (16'd0),
    .xl_valid_o        (xl_valid),
    .xl_status_o       (xl_status),
    .xl_pfn_o          (xl_pfn),
    .xl_page_off_o     (xl_page_off)
  );

  logic unused_xl;
  assign unused_xl = ^{xl_valid, xl_status, xl_pfn, xl_page_off};

  // ---- execution ------------------------------------------------------------------------------
  nic_local_exec #(
    .DataWidth  (DataWidth),
    .NumQps     (NumQps),
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries)
  ) u_exec (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .wqe_valid_i       (wqe_valid),
    .wqe_ready_o       (wqe_ready),
    .wqe_data_i        (wqe_data),
    .wqe_qpn_i         (wqe_qpn),
    .wqe_idx_i         (wqe_idx),
    .wqe_dma_err_i     (wqe_dma_err),
    .wqe_stale_i       (wqe_stale),
    .qp_reset_i        (qp_reset),
    .qp_reset_qpn_i    (cmd_qpn),
    .qp_state_i        (qp_state_o),
    .qp_pd_i           (qp_pd),
    .qp_sq_cqn_i       (qp_sq_cqn),
    .qp_err_o          (exec_err),
    .qp_err_qpn_o      (exec_err_qpn),
    .retire_o          (retire),
    .retire_qpn_o      (retire_qpn),
    .retire_idx_o      (retire_idx),
    .cpl_valid_o       (cpl_valid_o),
    .cpl_cqn_o         (cpl_cqn_o),
    .cpl_cqe_o         (cpl_cqe_o),
    .cpl_ready_i       (cpl_ready_i),
    .mr_state_i        (mr_state),
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
    .mr_b_re_o         (mr_b_re),
    .mr_b_idx_o        (mr_b_idx),
    .mr_b_pd_i         (mr_b_pd),
    .mr_b_is_mw_i      (mr_b_is_mw),
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
    .mr_wr_parent_o    (mr_wr_parent),
    .mtt_we_o          (mtt_we),
    .mtt_idx_o         (mtt_idx),
    .mtt_pfn_o         (mtt_pfn),
    .pl_ar_valid_o     (cl_ar_valid[1]),
    .pl_ar_ready_i     (cl_ar_ready[1]),
    .pl_ar_addr_o      (cl_ar_addr[127:64]),
    .pl_ar_len_o       (cl_ar_len[15:8]),
    .pl_r_valid_i      (cl_r_valid[1]),
    .pl_r_ready_o      (cl_r_ready[1]),
    .pl_r_data_i       (cl_r_data),
    .pl_r_resp_i       (cl_r_resp),
    .pl_r_last_i       (cl_r_last)
  );

`ifndef SYNTHESIS
  a_cpl_cqn_of_qp: assert property (@(posedge clk_i) disable iff (rst_i)
      cpl_valid_o |-> 32'(cpl_cqe_o.qpn) < NumQps);
`endif

endmodule
