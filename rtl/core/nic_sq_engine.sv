`default_nettype none
// nic_sq_engine: the send-queue engine. It owns the QP contexts and the MR/MW table, fetches
// WQEs by DMA, executes the local requests and hands one completion per WQE to the CQ engine.
//
//   nic_csr ──cmd / doorbells──▶ QP contexts (here) ──▶ nic_wqe_fetch ──WQEs──▶ nic_local_exec
//                                                          │ AR/R (ID 0)          │ AR/R (ID 1)
//                                                          └──────▶ nic_dma_rd ◀──┘ page lists
//                                                 nic_mr_table ◀──▶ nic_local_exec ──▶ cpl_*
//
// QP context (per QP): state, pd, send/receive CQ numbers here; the SQ ring base and depth next
// to the SQ indices, in nic_wqe_fetch; the receive ring and the connection in nic_transport.
// Transport WQEs (Send, Write, ...) of a connected QP go from nic_local_exec to nic_transport
// (tp_*), which also reads the MR table (xl_*) and DMA (clients 2 and 3). Commands (one-cycle
// pulses from nic_csr, applied in that cycle; a queue number >= NumQps / an MR index >= NumMrs
// is ignored):
//   QP_CREATE: READY with all indices 0 if sq_log_depth <= LogMaxSqDepth and the SQ ring is
//              4 KiB aligned, else the QP stays / goes to RESET (the driver reads QP_STATE).
//   QP_DESTROY: RESET; WQEs of the QP still in flight are discarded without completion.
//   QP_FLUSH: ERROR (a QP in RESET stays there): outstanding and later WQEs complete CANCELLED.
//   QP_CONNECT: READY -> RTS (connected).
//   MR_INIT / MR_FREE: to the MR/MW table.
// A QP leaves READY or RTS for ERROR when one of its WQEs fails (here or in the transport), when a
// doorbell would overrun its ring (a software bug: the doorbell is dropped), or when its send or
// receive CQ is in error (overflow: the CQ and all its QPs are unusable).
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
  input  logic sq_db_bf_i, input logic [511:0] sq_db_bf_data_i,  // BlueFlame copy (nic_wqe_fetch)
  output logic [2*NumQps-1:0] qp_state_o,                // nic_pkg QP_STATE_* per QP, QP n in [2n+1:2n]
  input  logic [NumCqs-1:0] cq_error_i,                  // CQ n is in error (overflow)
  // completions, one per WQE (none for a successful SILENT_SUCCESS one), in WQE order per QP
  output logic cpl_valid_o, output logic [7:0] cpl_cqn_o, output nic_pkg::cqe_t cpl_cqe_o, input logic cpl_ready_i,
  // AXI4 read master (DMA reads: WQE fetch, page lists)
  output logic [3:0] m_axi_arid_o, output logic [63:0] m_axi_araddr_o, output logic [7:0] m_axi_arlen_o,
  output logic [2:0] m_axi_arsize_o, output logic [1:0] m_axi_arburst_o, output logic m_axi_arvalid_o, input logic m_axi_arready_i,
  input  logic [3:0] m_axi_rid_i, input logic [DataWidth-1:0] m_axi_rdata_i, input logic [1:0] m_axi_rresp_i,
  input  logic m_axi_rlast_i, input logic m_axi_rvalid_i, output logic m_axi_rready_o,
  // nic_transport: its WQEs (tp_*), its QP errors, the MR table's translation port (xl_*) and
  // two DMA read clients (a: requester payload, ARID 2; b: responder receive WQEs, ARID 3)
  output logic tp_valid_o, input logic tp_ready_i, output logic [511:0] tp_data_o,
  output logic [7:0] tp_qpn_o, output logic [15:0] tp_idx_o, input logic [NumQps-1:0] tp_busy_i,
  input  logic tp_err0_i, input logic [7:0] tp_err0_qpn_i,
  input  logic tp_err1_i, input logic [7:0] tp_err1_qpn_i,
  input  logic xl_valid_i, input logic [31:0] xl_token_i, input logic [63:0] xl_va_i,
  input  logic [31:0] xl_len_i, input logic [15:0] xl_pd_i, input logic [15:0] xl_access_i,
  input  logic xl_inv_i,
  output logic xl_valid_o, output logic [31:0] xl_status_o, output logic [51:0] xl_pfn_o,
  output logic [11:0] xl_page_off_o,
  input  logic tpa_ar_valid_i, output logic tpa_ar_ready_o, input logic [63:0] tpa_ar_addr_i,
  input  logic [7:0] tpa_ar_len_i, output logic tpa_r_valid_o, input logic tpa_r_ready_i,
  input  logic tpb_ar_valid_i, output logic tpb_ar_ready_o, input logic [63:0] tpb_ar_addr_i,
  input  logic [7:0] tpb_ar_len_i, output logic tpb_r_valid_o, input logic tpb_r_ready_i,
  output logic [DataWidth-1:0] tp_r_data_o, output logic [1:0] tp_r_resp_o, output logic tp_r_last_o
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
  nic_pkg::cmd_qp_create_t qp_create_args;
  nic_pkg::cmd_mr_init_t   mr_init_args;
  logic        cmd_qp, cmd_mr;
  logic [7:0]  cmd_qpn;
  logic        qp_create, qp_destroy, qp_flush, qp_reset, create_ok;
  logic        mr_init, mr_free;

  assign qp_create_args = cmd_args_i;
  assign mr_init_args   = cmd_args_i;

  assign cmd_qp     = cmd_valid_i && 32'(cmd_index_i) < NumQps;
  assign cmd_mr     = cmd_valid_i && 32'(cmd_index_i) < NumMrs;
  assign cmd_qpn    = cmd_index_i[7:0];
  assign qp_create  = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_CREATE;
  assign qp_destroy = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_DESTROY;
  assign qp_flush   = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_FLUSH;
  assign qp_reset   = qp_create || qp_destroy;     // either way the old ring's WQEs are gone
  assign create_ok  = 32'(qp_create_args.sq_log_depth) <= LogMaxSqDepth &&
                      qp_create_args.sq_base[11:0] == 12'd0;
  assign mr_init    = cmd_mr && cmd_op_i == nic_pkg::CMD_MR_INIT;
  assign mr_free    = cmd_mr && cmd_op_i == nic_pkg::CMD_MR_FREE;

  // ---- QP contexts --------------------------------------------------------------------------
  // Tables written like RAMs, by the command or event that names the QP: the state (with reset,
  // kept as one vector, which is also what nic_csr reads), the active bits (state != RESET), and,
  // without reset (QP_CREATE writes them before any use), pd, CQ numbers and the RQ ring. The SQ
  // ring (base, depth) lives with its indices in nic_wqe_fetch. Nothing is evaluated per QP in a
  // cycle without an event, except while a CQ is in error (below).
  localparam int QpW = (NumQps > 1) ? $clog2(NumQps) : 1;     // table index of a QP

  logic [255:0]          cq_err_all;     // one bit per possible CQ number (absent CQs: 0)
  logic [2*NumQps-1:0]   qp_state_q;     // nic_pkg QP_STATE_* per QP, QP n in [2n+1:2n]
  logic [NumQps-1:0]     qp_active_q;    // state != RESET
  logic [15:0]           pd_q      [NumQps];
  logic [7:0]            sq_cqn_q  [NumQps];
  logic [7:0]            rq_cqn_q  [NumQps];
  logic                  db_err, exec_err;
  logic [7:0]            db_err_qpn, exec_err_qpn;
  logic [QpW-1:0]        cmd_idx, db_err_idx, exec_err_idx;
  logic                  db_err_hit, exec_err_hit;

  assign cq_err_all   = 256'(cq_error_i);
  assign cmd_idx      = QpW'(cmd_qpn);
  assign db_err_idx   = QpW'(db_err_qpn);
  assign exec_err_idx = QpW'(exec_err_qpn);
  // a live QP: READY or connected (RTS); errors move it to ERROR
  function automatic logic live(input logic [1:0] st);
    live = st == nic_pkg::QP_STATE_READY || st == nic_pkg::QP_STATE_RTS;
  endfunction
  logic [QpW-1:0] tp_err0_idx, tp_err1_idx;
  logic           tp_err0_hit, tp_err1_hit, qp_connect;
  assign tp_err0_idx  = QpW'(tp_err0_qpn_i);
  assign tp_err1_idx  = QpW'(tp_err1_qpn_i);
  assign tp_err0_hit  = tp_err0_i && 32'(tp_err0_qpn_i) < NumQps &&
                        live(qp_state_q[2*tp_err0_idx +: 2]);
  assign tp_err1_hit  = tp_err1_i && 32'(tp_err1_qpn_i) < NumQps &&
                        live(qp_state_q[2*tp_err1_idx +: 2]);
  assign qp_connect   = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign db_err_hit   = db_err && 32'(db_err_qpn) < NumQps &&
                        live(qp_state_q[2*db_err_idx +: 2]);
  assign exec_err_hit = exec_err && 32'(exec_err_qpn) < NumQps &&
                        live(qp_state_q[2*exec_err_idx +: 2]);

  // State: READY -> ERROR when a WQE fails, a doorbell overruns the ring or the send or receive
  // CQ is in error; commands come last: they win over same-cycle events of the old incarnation.
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      qp_state_q  <= {NumQps{nic_pkg::QP_STATE_RESET}};
      qp_active_q <= '0;
    end else begin
      // A CQ in error stays so until it is destroyed, and a QP created on it fails at once: the
      // check of every QP runs in the cycles some CQ is in error (overflow), and only then.
      if (cq_error_i != '0) begin
        for (int q = 0; q < NumQps; q++) begin
          if (live(qp_state_q[2*q +: 2]) &&
              (cq_err_all[sq_cqn_q[q]] || cq_err_all[rq_cqn_q[q]])) begin
            qp_state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
          end
        end
      end
      if (db_err_hit) begin
        qp_state_q[2*db_err_idx +: 2] <= nic_pkg::QP_STATE_ERROR;
      end
      if (exec_err_hit) begin
        qp_state_q[2*exec_err_idx +: 2] <= nic_pkg::QP_STATE_ERROR;
      end
      if (tp_err0_hit) begin
        qp_state_q[2*tp_err0_idx +: 2] <= nic_pkg::QP_STATE_ERROR;
      end
      if (tp_err1_hit) begin
        qp_state_q[2*tp_err1_idx +: 2] <= nic_pkg::QP_STATE_ERROR;
      end
      // QP_CONNECT: READY -> RTS (ignored in any other state)
      if (qp_connect && qp_state_q[2*cmd_idx +: 2] == nic_pkg::QP_STATE_READY) begin
        qp_state_q[2*cmd_idx +: 2] <= nic_pkg::QP_STATE_RTS;
      end
      if (qp_flush && qp_state_q[2*cmd_idx +: 2] != nic_pkg::QP_STATE_RESET) begin
        qp_state_q[2*cmd_idx +: 2] <= nic_pkg::QP_STATE_ERROR;
      end
      if (qp_destroy) begin
        qp_state_q[2*cmd_idx +: 2] <= nic_pkg::QP_STATE_RESET;
        qp_active_q[cmd_idx]       <= 1'b0;
      end
      if (qp_create) begin
        qp_state_q[2*cmd_idx +: 2] <= create_ok ? nic_pkg::QP_STATE_READY : nic_pkg::QP_STATE_RESET;
        qp_active_q[cmd_idx]       <= create_ok;
      end
    end
  end

  // The static fields: written by QP_CREATE (whether or not the QP becomes READY).
  always_ff @(posedge clk_i) begin
    if (qp_create) begin
      pd_q[cmd_idx]      <= qp_create_args.pd;
      sq_cqn_q[cmd_idx]  <= qp_create_args.sq_cqn;
      rq_cqn_q[cmd_idx]  <= qp_create_args.rq_cqn;
    end
  end

  assign qp_state_o = qp_state_q;

  // The executor's read port: the context of the QP of the WQE it executes.
  logic [7:0]     ex_qpn;
  logic [QpW-1:0] ex_idx;
  logic [1:0]     ex_state;
  logic [15:0]    ex_pd;
  logic [7:0]     ex_sq_cqn;

  assign ex_idx    = QpW'(ex_qpn);
  assign ex_state  = (32'(ex_qpn) < NumQps) ? qp_state_q[2*ex_idx +: 2] : nic_pkg::QP_STATE_RESET;
  assign ex_pd     = pd_q[ex_idx];
  assign ex_sq_cqn = sq_cqn_q[ex_idx];

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  logic           chk_cmd_q;
  logic [QpW-1:0] chk_cmd_idx_q;
  always_ff @(posedge clk_i) begin
    chk_cmd_q     <= !rst_i && cmd_qp;
    chk_cmd_idx_q <= cmd_idx;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // The active bits summarise the states: checked for the QP a command changed.
      if (chk_cmd_q) begin
        a_qp_active_matches: assert (qp_active_q[chk_cmd_idx_q] ==
                                     (qp_state_q[2*chk_cmd_idx_q +: 2] != nic_pkg::QP_STATE_RESET));
      end
      if (cpl_valid_o) begin
        a_cpl_cqn_of_qp: assert (32'(cpl_cqe_o.qpn) < NumQps);
      end
    end
  end
`endif

  // The receive ring and the connection are the transport's; the SQ ring's low address bits are
  // only checked.
  logic unused_args;
  assign unused_args = ^{qp_create_args.rq_log_depth, qp_create_args.rq_base,
                         qp_create_args.rsvd_192, qp_create_args.rsvd_112,
                         qp_create_args.sq_log_depth[7:4], mr_init_args};

  // ---- DMA reads: client 0 = WQE fetch (ARID 0), client 1 = page lists (ARID 1) --------------
  logic [3:0]           cl_ar_valid, cl_ar_ready, cl_r_valid, cl_r_ready;
  logic [255:0]         cl_ar_addr;
  logic [31:0]          cl_ar_len;
  logic [DataWidth-1:0] cl_r_data;
  logic [1:0]           cl_r_resp;
  logic                 cl_r_last;

  nic_dma_rd #(
    .DataWidth  (DataWidth),
    .NumClients (4)
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
    .qp_create_i    (qp_create),
    .qp_create_base_i      (qp_create_args.sq_base[63:12]),
    .qp_create_log_depth_i (qp_create_args.sq_log_depth[3:0]),
    .qp_active_i    (qp_active_q),
    .sq_db_valid_i  (sq_db_valid_i),
    .sq_db_qpn_i    (sq_db_qpn_i),
    .sq_db_pi_i     (sq_db_pi_i),
    .sq_db_bf_i     (sq_db_bf_i),
    .sq_db_bf_data_i(sq_db_bf_data_i),
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

  nic_mr_table #(
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries)
  ) u_mr_table (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .init_i            (mr_init),
    .free_i            (mr_free),
    .cmd_idx_i         (cmd_index_i[MrW-1:0]),
    .init_pd_i         (mr_init_args.pd),
    .init_max_pages_i  (mr_init_args.max_pages),
    .init_mtt_offset_i (mr_init_args.mtt_offset),
    .init_is_mw_i      (mr_init_args.is_mw),
    .init_remote_ok_i  (mr_init_args.remote_access_ok),
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
    .xl_valid_i        (xl_valid_i),
    .xl_token_i        (xl_token_i),
    .xl_va_i           (xl_va_i),
    .xl_len_i          (xl_len_i),
    .xl_pd_i           (xl_pd_i),
    .xl_access_i       (xl_access_i),
    .xl_inv_i          (xl_inv_i),
    .xl_valid_o        (xl_valid_o),
    .xl_status_o       (xl_status_o),
    .xl_pfn_o          (xl_pfn_o),
    .xl_page_off_o     (xl_page_off_o)
  );

  // DMA read clients 2 and 3: the transport's
  assign cl_ar_valid[3:2]   = {tpb_ar_valid_i, tpa_ar_valid_i};
  assign cl_ar_addr[255:128] = {tpb_ar_addr_i, tpa_ar_addr_i};
  assign cl_ar_len[31:16]   = {tpb_ar_len_i, tpa_ar_len_i};
  assign cl_r_ready[3:2]    = {tpb_r_ready_i, tpa_r_ready_i};
  assign tpa_ar_ready_o     = cl_ar_ready[2];
  assign tpb_ar_ready_o     = cl_ar_ready[3];
  assign tpa_r_valid_o      = cl_r_valid[2];
  assign tpb_r_valid_o      = cl_r_valid[3];
  assign tp_r_data_o        = cl_r_data;
  assign tp_r_resp_o        = cl_r_resp;
  assign tp_r_last_o        = cl_r_last;

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
    .tp_valid_o        (tp_valid_o),
    .tp_ready_i        (tp_ready_i),
    .tp_data_o         (tp_data_o),
    .tp_qpn_o          (tp_qpn_o),
    .tp_idx_o          (tp_idx_o),
    .tp_busy_i         (tp_busy_i),
    .qp_reset_i        (qp_reset),
    .qp_reset_qpn_i    (cmd_qpn),
    .qp_rd_qpn_o       (ex_qpn),
    .qp_rd_state_i     (ex_state),
    .qp_rd_pd_i        (ex_pd),
    .qp_rd_sq_cqn_i    (ex_sq_cqn),
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

endmodule
