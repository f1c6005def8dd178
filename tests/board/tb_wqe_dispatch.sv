`default_nettype none
// tb_wqe_dispatch: the module bench's top for nic_wqe_dispatch (tests/board/test_wqe_dispatch.py).
//
// nic_wqe_dispatch with the real nic_qp_ctx wired as nic_core wires them: the dispatcher's QP
// read port (state, PD, send CQ), its registered error (qp_err_o -> exec_err_i) and the QP
// resets of the commands. The QP states the dispatcher reads are therefore exactly as late as in
// the core: a failure the dispatcher retires in cycle F + 1 shows in nic_qp_ctx's state from
// F + 2 on, and the dispatcher's bypass is what covers cycle F + 1. The bench gives the QP
// commands (QP_CREATE, QP_CONNECT) on nic_csr's command bus; nic_qp_ctx's other error events
// (doorbells, the transport, CQs in error, payload writes) stay quiet. Everything else of the
// dispatcher (the WQE stream of nic_wqe_fetch, nic_transport's port and busy bits, the
// completion port, nic_mem_op's status and nic_page_list's progress) is the bench's, driven at
// the dispatcher's own ports. The completion's fields are brought out one by one.
module tb_wqe_dispatch #(
  parameter int NumQps = 4,          // queue pairs (QP numbers 0..NumQps-1)
  parameter int NumCqs = 4           // completion queues nic_qp_ctx knows of
) (
  input  logic                  clk_i,
  input  logic                  rst_i,
  // QP commands (nic_csr)
  input  logic                  cmd_valid_i,
  input  logic [7:0]            cmd_op_i,
  input  logic [15:0]           cmd_index_i,
  input  logic [255:0]          cmd_args_i,
  output logic [2*NumQps-1:0]   qp_state_o,        // nic_qp_ctx's state vector
  output logic                  qp_reset_o,
  // WQE stream (nic_wqe_fetch)
  input  logic                  wqe_valid_i,
  output logic                  wqe_ready_o,
  input  logic [511:0]          wqe_data_i,
  input  logic [7:0]            wqe_qpn_i,
  input  logic [15:0]           wqe_idx_i,
  input  logic                  wqe_dma_err_i,
  input  logic                  wqe_stale_i,
  // transport (nic_transport)
  output logic                  tp_valid_o,
  input  logic                  tp_ready_i,
  output logic [511:0]          tp_data_o,
  output logic [7:0]            tp_qpn_o,
  output logic [15:0]           tp_idx_o,
  input  logic [NumQps-1:0]     tp_busy_i,
  // the dispatcher's retire, error and rewind (nic_wqe_fetch, nic_qp_ctx)
  output logic                  qp_err_o,
  output logic [7:0]            qp_err_qpn_o,
  output logic                  retire_o,
  output logic [7:0]            retire_qpn_o,
  output logic [15:0]           retire_idx_o,
  output logic                  rewind_o,
  output logic [7:0]            rewind_qpn_o,
  input  logic                  rewind_busy_i,
  // completions (nic_cpl_arb)
  output logic                  cpl_valid_o,
  input  logic                  cpl_ready_i,
  output logic [7:0]            cpl_cqn_o,
  output logic [31:0]           cpl_status_o,
  output logic [15:0]           cpl_wqe_index_o,
  output logic [15:0]           cpl_qpn_o,
  output logic [15:0]           cpl_op_type_o,
  output logic                  cpl_rest_zero_o,   // every other CQE field is zero
  // nic_mem_op
  output logic                  mo_load_o,
  output logic                  mo_cur_valid_o,
  output logic [511:0]          mo_cur_wqe_o,
  output logic [15:0]           mo_qp_pd_o,
  input  logic [31:0]           mo_status_i,
  input  logic                  mo_ok_i,
  input  logic                  mo_ready_i,
  input  logic [31:0]           mo_fr_mtt_offset_i,
  output logic                  mo_exec_o,
  output logic                  mo_commit_o,
  // nic_page_list
  output logic                  pl_load_o,
  output logic [63:0]           pl_addr_o,
  output logic [31:0]           pl_mtt_off_o,
  output logic                  pl_active_o,
  output logic [31:0]           pl_count_o,
  input  logic                  pl_done_i,
  input  logic                  pl_err_i,
  input  logic                  pl_bad_i
);

  logic [7:0]    qp_reset_qpn, rd_qpn, rd_sq_cqn;
  logic [1:0]    rd_state;
  logic [15:0]   rd_pd;
  nic_pkg::cqe_t cqe;

  assign cpl_status_o    = cqe.status;
  assign cpl_wqe_index_o = cqe.wqe_index;
  assign cpl_qpn_o       = cqe.qpn;
  assign cpl_op_type_o   = cqe.op_type;
  assign cpl_rest_zero_o = cqe.owner == '0 && cqe.rsvd_19 == '0 && cqe.flags == '0 &&
                           cqe.type_specific == '0 && cqe.bytes_transferred == '0;

  nic_qp_ctx #(
    .NumQps       (NumQps),
    .NumCqs       (NumCqs),
    .LogMaxSqDepth(12),
    .MaxReads     (32)
  ) u_qp_ctx (
    .clk_i                (clk_i),
    .rst_i                (rst_i),
    .cmd_valid_i          (cmd_valid_i),
    .cmd_op_i             (cmd_op_i),
    .cmd_index_i          (cmd_index_i),
    .cmd_args_i           (cmd_args_i),
    .qp_reset_o           (qp_reset_o),
    .qp_reset_qpn_o       (qp_reset_qpn),
    .connect_taken_o      (),
    .ring_db_qpn_i        (8'd0),
    .ring_db_log_depth_o  (),
    .ring_rd_qpn_i        (8'd0),
    .ring_rd_base_o       (),
    .ring_rd_log_depth_o  (),
    .qp_state_o           (qp_state_o),
    .qp_active_o          (),
    .cq_error_i           ('0),
    .db_err_i             (1'b0),
    .db_err_qpn_i         (8'd0),
    .exec_err_i           (qp_err_o),
    .exec_err_qpn_i       (qp_err_qpn_o),
    .req_err_i            (1'b0),
    .req_err_qpn_i        (8'd0),
    .rsp_err_i            (1'b0),
    .rsp_err_qpn_i        (8'd0),
    .wr_err_i             (1'b0),
    .wr_err_qpn_i         (8'd0),
    .rd_qpn_i             (rd_qpn),
    .rd_state_o           (rd_state),
    .rd_pd_o              (rd_pd),
    .rd_sq_cqn_o          (rd_sq_cqn),
    .tp_in_qpn_i          (8'd0),
    .tp_in_pd_o           (),
    .tp_in_sq_base_o      (),
    .tp_in_sq_ld_o        (),
    .tp_scq_qpn_i         (8'd0),
    .tp_scq_cqn_o         (),
    .tp_d_qpn_i           (8'd0),
    .tp_d_pd_o            (),
    .tp_rcq_qpn_i         (8'd0),
    .tp_rcq_cqn_o         (),
    .tp_pq_qpn_i          (8'd0),
    .tp_pq_pd_o           (),
    .tp_rq_qpn_i          (8'd0),
    .tp_rq_base_o         (),
    .tp_rq_ld_o           ()
  );

  nic_wqe_dispatch #(
    .NumQps(NumQps)
  ) u_dispatch (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .wqe_valid_i       (wqe_valid_i),
    .wqe_ready_o       (wqe_ready_o),
    .wqe_data_i        (wqe_data_i),
    .wqe_qpn_i         (wqe_qpn_i),
    .wqe_idx_i         (wqe_idx_i),
    .wqe_dma_err_i     (wqe_dma_err_i),
    .wqe_stale_i       (wqe_stale_i),
    .tp_valid_o        (tp_valid_o),
    .tp_ready_i        (tp_ready_i),
    .tp_data_o         (tp_data_o),
    .tp_qpn_o          (tp_qpn_o),
    .tp_idx_o          (tp_idx_o),
    .tp_busy_i         (tp_busy_i),
    .qp_reset_i        (qp_reset_o),
    .qp_reset_qpn_i    (qp_reset_qpn),
    .qp_rd_qpn_o       (rd_qpn),
    .qp_rd_state_i     (rd_state),
    .qp_rd_pd_i        (rd_pd),
    .qp_rd_sq_cqn_i    (rd_sq_cqn),
    .qp_err_o          (qp_err_o),
    .qp_err_qpn_o      (qp_err_qpn_o),
    .retire_o          (retire_o),
    .retire_qpn_o      (retire_qpn_o),
    .retire_idx_o      (retire_idx_o),
    .rewind_o          (rewind_o),
    .rewind_qpn_o      (rewind_qpn_o),
    .rewind_busy_i     (rewind_busy_i),
    .cpl_valid_o       (cpl_valid_o),
    .cpl_cqn_o         (cpl_cqn_o),
    .cpl_cqe_o         (cqe),
    .cpl_ready_i       (cpl_ready_i),
    .mo_load_o         (mo_load_o),
    .mo_cur_valid_o    (mo_cur_valid_o),
    .mo_cur_wqe_o      (mo_cur_wqe_o),
    .mo_qp_pd_o        (mo_qp_pd_o),
    .mo_status_i       (mo_status_i),
    .mo_ok_i           (mo_ok_i),
    .mo_ready_i        (mo_ready_i),
    .mo_fr_mtt_offset_i(mo_fr_mtt_offset_i),
    .mo_exec_o         (mo_exec_o),
    .mo_commit_o       (mo_commit_o),
    .pl_load_o         (pl_load_o),
    .pl_addr_o         (pl_addr_o),
    .pl_mtt_off_o      (pl_mtt_off_o),
    .pl_active_o       (pl_active_o),
    .pl_count_o        (pl_count_o),
    .pl_done_i         (pl_done_i),
    .pl_err_i          (pl_err_i),
    .pl_bad_i          (pl_bad_i)
  );

endmodule
