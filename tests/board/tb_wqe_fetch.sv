`default_nettype none
// tb_wqe_fetch: the module bench's top for nic_wqe_fetch (tests/board/test_wqe_fetch.py).
//
// nic_wqe_fetch at nic_core's sizes, with the part of nic_qp_ctx it reads combinationally: each
// QP's send ring (base, log depth) and its active bit, written by the bench's QP commands
// (create: the ring, active; destroy: inactive), which also pulse qp_reset_i as nic_qp_ctx does.
// The ring stays fixed while the QP is active (nic_qp_ctx's behaviour, an assumption of the
// proof). Everything else (doorbells, the dispatcher, the DMA read channel) is the bench's.
module tb_wqe_fetch #(
  parameter int DataWidth     = 64,
  parameter int NumQps        = 16,
  parameter int MaxBurstWqes  = 16,
  parameter int WqeBufEntries = 128,
  parameter int LogMaxSqDepth = 12,
  parameter int MaxReads      = 4
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // QP commands (nic_qp_ctx): create with a ring, or destroy
  input  logic                   qp_cmd_i,
  input  logic                   qp_create_i,
  input  logic [7:0]             qp_cmd_qpn_i,
  input  logic [51:0]            qp_base_i,
  input  logic [3:0]             qp_log_depth_i,
  output logic [NumQps-1:0]      qp_active_o,
  output logic [7:0]             ring_rd_qpn_o,    // the QP the fetch reads (its pick)
  // doorbells
  input  logic                   sq_db_valid_i,
  input  logic [7:0]             sq_db_qpn_i,
  input  logic [15:0]            sq_db_pi_i,
  input  logic                   sq_db_bf_i,
  input  logic [511:0]           sq_db_bf_data_i,
  output logic                   db_err_o,
  output logic [7:0]             db_err_qpn_o,
  // the dispatcher
  input  logic                   retire_i,
  input  logic [7:0]             retire_qpn_i,
  input  logic [15:0]            retire_idx_i,
  output logic                   wqe_valid_o,
  input  logic                   wqe_ready_i,
  output logic [511:0]           wqe_data_o,
  output logic [7:0]             wqe_qpn_o,
  output logic [15:0]            wqe_idx_o,
  output logic                   wqe_dma_err_o,
  output logic                   wqe_stale_o,
  // DMA read client
  output logic                   ar_valid_o,
  input  logic                   ar_ready_i,
  output logic [63:0]            ar_addr_o,
  output logic [7:0]             ar_len_o,
  input  logic                   r_valid_i,
  output logic                   r_ready_o,
  input  logic [DataWidth-1:0]   r_data_i,
  input  logic [1:0]             r_resp_i,
  input  logic                   r_last_i
);

  localparam int QpW = (NumQps > 1) ? $clog2(NumQps) : 1;

  logic [51:0]       ring_base_q [NumQps];
  logic [3:0]        ring_ld_q [NumQps];
  logic [NumQps-1:0] active_q;
  logic [7:0]        ring_db_qpn;
  logic [QpW-1:0]    cmd_idx;

  assign cmd_idx = QpW'(qp_cmd_qpn_i);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      active_q <= '0;
    end else if (qp_cmd_i) begin
      active_q[cmd_idx] <= qp_create_i;
    end
    if (qp_cmd_i && qp_create_i) begin
      ring_base_q[cmd_idx] <= qp_base_i;
      ring_ld_q[cmd_idx]   <= qp_log_depth_i;
    end
  end

  assign qp_active_o = active_q;

  nic_wqe_fetch #(
    .DataWidth     (DataWidth),
    .NumQps        (NumQps),
    .MaxBurstWqes  (MaxBurstWqes),
    .WqeBufEntries (WqeBufEntries),
    .LogMaxSqDepth (LogMaxSqDepth),
    .MaxReads      (MaxReads)
  ) u_fetch (
    .clk_i               (clk_i),
    .rst_i               (rst_i),
    .qp_reset_i          (qp_cmd_i),
    .qp_reset_qpn_i      (qp_cmd_qpn_i),
    .ring_db_qpn_o       (ring_db_qpn),
    .ring_db_log_depth_i (ring_ld_q[QpW'(ring_db_qpn)]),
    .ring_rd_qpn_o       (ring_rd_qpn_o),
    .ring_rd_base_i      (ring_base_q[QpW'(ring_rd_qpn_o)]),
    .ring_rd_log_depth_i (ring_ld_q[QpW'(ring_rd_qpn_o)]),
    .qp_active_i         (active_q),
    .sq_db_valid_i       (sq_db_valid_i),
    .sq_db_qpn_i         (sq_db_qpn_i),
    .sq_db_pi_i          (sq_db_pi_i),
    .sq_db_bf_i          (sq_db_bf_i),
    .sq_db_bf_data_i     (sq_db_bf_data_i),
    .db_err_o            (db_err_o),
    .db_err_qpn_o        (db_err_qpn_o),
    .retire_i            (retire_i),
    .retire_qpn_i        (retire_qpn_i),
    .retire_idx_i        (retire_idx_i),
    // rewinds are not driven here (the formal proof and the core's suite cover them)
    .rewind_i            (1'b0),
    .rewind_qpn_i        (8'd0),
    .busy_i              ('0),
    .rewind_busy_o       (),
    .ar_valid_o          (ar_valid_o),
    .ar_ready_i          (ar_ready_i),
    .ar_addr_o           (ar_addr_o),
    .ar_len_o            (ar_len_o),
    .r_valid_i           (r_valid_i),
    .r_ready_o           (r_ready_o),
    .r_data_i            (r_data_i),
    .r_resp_i            (r_resp_i),
    .r_last_i            (r_last_i),
    .wqe_valid_o         (wqe_valid_o),
    .wqe_ready_i         (wqe_ready_i),
    .wqe_data_o          (wqe_data_o),
    .wqe_qpn_o           (wqe_qpn_o),
    .wqe_idx_o           (wqe_idx_o),
    .wqe_dma_err_o       (wqe_dma_err_o),
    .wqe_stale_o         (wqe_stale_o)
  );

endmodule
