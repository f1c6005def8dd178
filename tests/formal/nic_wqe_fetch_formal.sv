`default_nettype none
// nic_wqe_fetch_formal: the proof harness of nic_wqe_fetch's doorbell front end (its properties
// are the engine's own `ifdef FORMAL block). Bounded parameters: 2 QPs, rings of up to 4 WQEs,
// 256-bit data (two beats a WQE), bursts of up to 2 WQEs, a 2-slot buffer, 2 reads in flight.
//
// What the engine needs of its neighbours, as assumptions (the simulation checks the same of
// the real neighbours: nic_wqe_fetch's a_retire_in_order, nic_qp_ctx's ring table):
//   - nic_qp_ctx: a QP's ring depth is set when the QP is created (qp_reset_i) and does not
//     change while it is active; a QP becomes active only at its reset. Modelled here by a
//     ring table of this harness, written at qp_reset_i with a free depth <= 2^2.
//   - nic_wqe_dispatch: a retire names a QP < NumQps and its next fetched, unretired WQE
//     (assumed in nic_wqe_fetch's own FORMAL block, so the simulation checks it).
// Every other input (doorbells with any index, QP numbers, BlueFlame copies, AXI handshakes,
// R beats) is free in every cycle. The R channel is only constrained to answer what was asked
// (r_valid only while a read is outstanding, rlast on the burst's last beat), as nic_dma_rd does.
module nic_wqe_fetch_formal (
  input logic         clk_i,
  input logic         rst_i,
  input logic         qp_reset_i,
  input logic [7:0]   qp_reset_qpn_i,
  input logic [1:0]   qp_reset_log_depth_i,   // the ring depth the new QP gets
  input logic [1:0]   qp_deactivate_i,        // QPs leaving an active state (ERROR, RESET)
  input logic [51:0]  ring_base_i,
  input logic         sq_db_valid_i,
  input logic [7:0]   sq_db_qpn_i,
  input logic [15:0]  sq_db_pi_i,
  input logic         sq_db_bf_i,
  input logic [511:0] sq_db_bf_data_i,
  input logic         retire_i,
  input logic [7:0]   retire_qpn_i,
  input logic [15:0]  retire_idx_i,
  input logic         rewind_i,               // the dispatcher gives a WQE back
  input logic [7:0]   rewind_qpn_i,
  input logic [1:0]   busy_i,                 // QPs with WQEs in the transport
  input logic         ar_ready_i,
  input logic         r_valid_i,
  input logic [255:0] r_data_i,
  input logic [1:0]   r_resp_i,
  input logic         wqe_ready_i
);
  localparam int NumQps = 2;

  logic [7:0]   ring_db_qpn, ring_rd_qpn, db_err_qpn, ar_len, wqe_qpn;
  logic         db_err, ar_valid, r_ready, wqe_valid, wqe_dma_err, wqe_stale;
  logic [63:0]  ar_addr;
  logic [511:0] wqe_data;
  logic [15:0]  wqe_idx;
  logic         r_last;
  logic         rewind_busy;

  // nic_qp_ctx's ring table and active bits, as far as this engine sees them
  logic [1:0]        logd_q [NumQps];
  logic [NumQps-1:0] active_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      active_q <= '0;
    end else begin
      active_q <= active_q & ~qp_deactivate_i;
      if (qp_reset_i && 32'(qp_reset_qpn_i) < NumQps) begin
        active_q[qp_reset_qpn_i[0]] <= 1'b1;
      end
    end
    if (qp_reset_i && 32'(qp_reset_qpn_i) < NumQps) begin
      logd_q[qp_reset_qpn_i[0]] <= qp_reset_log_depth_i;
    end
  end

  initial assume (rst_i);
  always_comb begin
    assume (!qp_reset_i || 32'(qp_reset_qpn_i) < NumQps);
  end
  // rlast is not read by the engine but by an assertion of the simulation (beats are counted)
  assign r_last = 1'b0;

  nic_wqe_fetch #(
    .DataWidth     (256),
    .NumQps        (NumQps),
    .MaxBurstWqes  (2),
    .WqeBufEntries (2),
    .LogMaxSqDepth (2),
    .MaxReads      (2)
  ) u_dut (
    .clk_i               (clk_i),
    .rst_i               (rst_i),
    .qp_reset_i          (qp_reset_i),
    .qp_reset_qpn_i      (qp_reset_qpn_i),
    .ring_db_qpn_o       (ring_db_qpn),
    .ring_db_log_depth_i ({2'd0, logd_q[ring_db_qpn[0]]}),
    .ring_rd_qpn_o       (ring_rd_qpn),
    .ring_rd_base_i      (ring_base_i),
    .ring_rd_log_depth_i ({2'd0, logd_q[ring_rd_qpn[0]]}),
    .qp_active_i         (active_q),
    .sq_db_valid_i       (sq_db_valid_i),
    .sq_db_qpn_i         (sq_db_qpn_i),
    .sq_db_pi_i          (sq_db_pi_i),
    .sq_db_bf_i          (sq_db_bf_i),
    .sq_db_bf_data_i     (sq_db_bf_data_i),
    .db_err_o            (db_err),
    .db_err_qpn_o        (db_err_qpn),
    .retire_i            (retire_i),
    .retire_qpn_i        (retire_qpn_i),
    .retire_idx_i        (retire_idx_i),
    .rewind_i            (rewind_i),
    .rewind_qpn_i        (rewind_qpn_i),
    .busy_i              (busy_i),
    .rewind_busy_o       (rewind_busy),
    .ar_valid_o          (ar_valid),
    .ar_ready_i          (ar_ready_i),
    .ar_addr_o           (ar_addr),
    .ar_len_o            (ar_len),
    .r_valid_i           (r_valid_i),
    .r_ready_o           (r_ready),
    .r_data_i            (r_data_i),
    .r_resp_i            (r_resp_i),
    .r_last_i            (r_last),
    .wqe_valid_o         (wqe_valid),
    .wqe_ready_i         (wqe_ready_i),
    .wqe_data_o          (wqe_data),
    .wqe_qpn_o           (wqe_qpn),
    .wqe_idx_o           (wqe_idx),
    .wqe_dma_err_o       (wqe_dma_err),
    .wqe_stale_o         (wqe_stale)
  );
endmodule
