`default_nettype none
// tb_requester: the module bench's top for the RC requester, nic_requester and its nic_req_*
// modules (tests/board/test_requester.py).
//
// nic_requester with the QP contexts it reads, as nic_transport and nic_core give them: the
// connection (peer, path MTU, ORD, rnr_retry) from the real nic_tp_qp_ctx, written by QP_CONNECT
// on the command bus; PD, send CQ and SQ ring from a small table written by QP_CREATE (the part of
// nic_qp_ctx the requester reads: its arguments as the generated format lays them out), read
// combinationally at the QP each reader names. The QP states (nic_sq_engine's) are the bench's
// input. Everything else (the WQE stream, the translation port, the DMA read client, the transmit
// port, the acknowledgements, the responder's read-context lookups, the completions, the
// microsecond pulse) is the bench's.
module tb_requester #(
  parameter int DataWidth = 64,
  parameter int NumQps    = 4,
  parameter int OutDepth  = 8,
  parameter int MaxReads  = 4
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic                          us_tick_i,
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  input  logic [2*NumQps-1:0]           qp_state_i,
  output logic [NumQps-1:0]             busy_o,
  output logic [NumQps-1:0]             busy_reg_o,
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o,
  input  logic                          wqe_valid_i,
  input  logic [511:0]                  wqe_data_i,
  input  logic [7:0]                    wqe_qpn_i,
  input  logic [15:0]                   wqe_idx_i,
  output logic                          wqe_ready_o,
  output logic                          xl_req_o,
  input  logic                          xl_gnt_i,
  output logic [31:0]                   xl_token_o,
  output logic [63:0]                   xl_va_o,
  output logic [31:0]                   xl_len_o,
  output logic [15:0]                   xl_pd_o,
  output logic [15:0]                   xl_access_o,
  input  logic                          xl_rsp_valid_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  output logic                          pkt_valid_o,
  output nic_roce_pkg::tx_pkt_t         pkt_o,
  input  logic                          pkt_ready_i,
  output logic                          pl_valid_o,
  output logic [DataWidth-1:0]          pl_data_o,
  output logic [$clog2(DataWidth/8):0]  pl_nbytes_o,
  output logic                          pl_poison_o,
  input  logic                          pl_ready_i,
  input  logic                          ack_valid_i,
  input  logic [7:0]                    ack_qpn_i,
  input  logic [23:0]                   ack_psn_i,
  input  logic [7:0]                    ack_syndrome_i,
  output logic                          ev_retransmitted_o,
  output logic                          ev_ack_timeout_o,
  input  logic                          rctx_req_i,
  input  logic [7:0]                    rctx_qpn_i,
  output logic                          rctx_avail_o,
  output nic_roce_pkg::read_ctx_t       rctx_o,
  input  logic                          rdone_i,
  input  logic [7:0]                    rdone_qpn_i,
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;

  // ---- nic_qp_ctx's part: PD, send CQ, SQ ring (QP_CREATE) --------------------------------
  nic_pkg::cmd_qp_create_t create_args;
  assign create_args = cmd_args_i;
  logic [15:0] pd_q      [NumQps];
  logic [7:0]  cqn_q     [NumQps];
  logic [51:0] sq_base_q [NumQps];
  logic [3:0]  sq_ld_q   [NumQps];
  logic        cmd_in_range;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  always_ff @(posedge clk_i) begin
    if (cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CREATE) begin
      pd_q[QW'(cmd_index_i)]      <= create_args.pd;
      cqn_q[QW'(cmd_index_i)]     <= create_args.sq_cqn;
      sq_base_q[QW'(cmd_index_i)] <= create_args.sq_base[63:12];
      sq_ld_q[QW'(cmd_index_i)]   <= create_args.sq_log_depth[3:0];
    end
  end

  logic [7:0]  in_qpn, cpl_qpn, ak_qpn;
  logic [47:0] in_peer_mac;
  logic [31:0] in_peer_ip;
  logic [23:0] in_peer_qpn;
  logic [3:0]  in_log_mtu;
  logic [7:0]  in_ord;
  logic [2:0]  ak_rnr_retry;

  // ---- nic_tp_qp_ctx: the connection (QP_CONNECT) -----------------------------------------
  nic_tp_qp_ctx #(
    .NumQps(NumQps)
  ) u_tp_ctx (
    .clk_i         (clk_i),
    .cmd_connect_i (cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT),
    .cmd_qpn_i     (QW'(cmd_index_i)),
    .cmd_args_i    (cmd_args_i),
    .in_qpn_i      (QW'(in_qpn)),
    .in_peer_mac_o (in_peer_mac),
    .in_peer_ip_o  (in_peer_ip),
    .in_peer_qpn_o (in_peer_qpn),
    .in_log_mtu_o  (in_log_mtu),
    .in_ord_o      (in_ord),
    .ak_qpn_i      (QW'(ak_qpn)),
    .ak_rnr_retry_o(ak_rnr_retry),
    // the responder's read ports are not used here
    .d_qpn_i       ('0),
    .d_peer_qpn_o  (),
    .d_log_mtu_o   (),
    .d_ird_o       (),
    .nq_qpn_i      ('0),
    .nq_log_mtu_o  (),
    .pq_qpn_i      ('0),
    .pq_log_mtu_o  ()
  );

  nic_requester #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .OutDepth (OutDepth),
    .MaxReads (MaxReads)
  ) u_req (
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .us_tick_i         (us_tick_i),
    .cmd_valid_i       (cmd_valid_i),
    .cmd_op_i          (cmd_op_i),
    .cmd_index_i       (cmd_index_i),
    .cmd_args_i        (cmd_args_i),
    .qp_state_i        (qp_state_i),
    .busy_o            (busy_o),
    .busy_reg_o        (busy_reg_o),
    .qp_err_o          (qp_err_o),
    .qp_err_qpn_o      (qp_err_qpn_o),
    .wqe_valid_i       (wqe_valid_i),
    .wqe_data_i        (wqe_data_i),
    .wqe_qpn_i         (wqe_qpn_i),
    .wqe_idx_i         (wqe_idx_i),
    .wqe_ready_o       (wqe_ready_o),
    .xl_req_o          (xl_req_o),
    .xl_gnt_i          (xl_gnt_i),
    .xl_token_o        (xl_token_o),
    .xl_va_o           (xl_va_o),
    .xl_len_o          (xl_len_o),
    .xl_pd_o           (xl_pd_o),
    .xl_access_o       (xl_access_o),
    .xl_rsp_valid_i    (xl_rsp_valid_i),
    .xl_status_i       (xl_status_i),
    .xl_pfn_i          (xl_pfn_i),
    .xl_page_off_i     (xl_page_off_i),
    .ar_valid_o        (ar_valid_o),
    .ar_ready_i        (ar_ready_i),
    .ar_addr_o         (ar_addr_o),
    .ar_len_o          (ar_len_o),
    .r_valid_i         (r_valid_i),
    .r_ready_o         (r_ready_o),
    .r_data_i          (r_data_i),
    .r_resp_i          (r_resp_i),
    .r_last_i          (r_last_i),
    .pkt_valid_o       (pkt_valid_o),
    .pkt_o             (pkt_o),
    .pkt_ready_i       (pkt_ready_i),
    .pl_valid_o        (pl_valid_o),
    .pl_data_o         (pl_data_o),
    .pl_nbytes_o       (pl_nbytes_o),
    .pl_poison_o       (pl_poison_o),
    .pl_ready_i        (pl_ready_i),
    .ack_valid_i       (ack_valid_i),
    .ack_qpn_i         (ack_qpn_i),
    .ack_psn_i         (ack_psn_i),
    .ack_syndrome_i    (ack_syndrome_i),
    .ev_retransmitted_o(ev_retransmitted_o),
    .ev_ack_timeout_o  (ev_ack_timeout_o),
    .rctx_req_i        (rctx_req_i),
    .rctx_qpn_i        (rctx_qpn_i),
    .rctx_avail_o      (rctx_avail_o),
    .rctx_o            (rctx_o),
    .rdone_i           (rdone_i),
    .rdone_qpn_i       (rdone_qpn_i),
    .ctx_in_qpn_o      (in_qpn),
    .ctx_in_pd_i       (pd_q[QW'(in_qpn)]),
    .ctx_in_peer_mac_i (in_peer_mac),
    .ctx_in_peer_ip_i  (in_peer_ip),
    .ctx_in_peer_qpn_i (in_peer_qpn),
    .ctx_in_log_mtu_i  (in_log_mtu),
    .ctx_in_ord_i      (in_ord),
    .ctx_in_sq_base_i  (sq_base_q[QW'(in_qpn)]),
    .ctx_in_sq_ld_i    (sq_ld_q[QW'(in_qpn)]),
    .ctx_cpl_qpn_o     (cpl_qpn),
    .ctx_cpl_cqn_i     (cqn_q[QW'(cpl_qpn)]),
    .ctx_ak_qpn_o      (ak_qpn),
    .ctx_ak_rnr_retry_i(ak_rnr_retry),
    .cpl_valid_o       (cpl_valid_o),
    .cpl_cqn_o         (cpl_cqn_o),
    .cpl_cqe_o         (cpl_cqe_o),
    .cpl_ready_i       (cpl_ready_i)
  );

endmodule
