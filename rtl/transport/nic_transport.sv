`default_nettype none
// nic_transport: the RoCEv2 reliable-connection transport (docs/transport.md), between the send
// queue engine and the network port.
//
//   nic_wqe_dispatch ─transport WQEs─▶ nic_requester ─packets─┐
//                                      ▲ ACK / NAK           ├─▶ nic_roce_tx ─▶ m_axis_tx
//                                      │                     │   (descriptor arbiter:
//   s_axis_rx ─▶ nic_roce_rx ─packets─▶ nic_responder ─ACKs──┘    alternating)
//
// The requester, the responder's dispatcher and its read-response engine each have a client port
// of nic_core's translation arbiter (nic_xl_arb in front of nic_mr_table: rq_xl_*, rs_xl_*,
// rr_xl_*); the requester and the responder each have one of its DMA read master (nic_dma_rd:
// a_* requester payload, b_* responder receive WQEs and read response payload), and each hands its completions to nic_core's completion arbiter (rq_cpl_*, rs_cpl_*). The
// responder writes payload (Sends, Writes, and the responses to this side's Reads) through
// nic_dma_wr's payload port.
// Both send packets with payload (requests; read responses): nic_roce_tx takes a packet's
// payload right after its descriptor, so the payload port follows the descriptor last taken.
// The responder places the responses to the requester's Reads (it dispatches every received
// packet and owns the placement engine); the requester keeps the Reads' contexts (rctx_*).
module nic_transport #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16,   // queue pairs, <= 256
  parameter int MaxReads  = 32    // outstanding Reads per QP (largest ORD, IRD): a power of two in 2..128 (as nic_core)
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic [47:0]                   port_mac_i,
  input  logic [31:0]                   port_ipv4_i,
  input  logic                          us_tick_i,      // one-cycle pulse every microsecond (RNR timer)
  // commands, QP states, RQ doorbells
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  input  logic [2*NumQps-1:0]           qp_state_i,
  input  logic                          rq_db_valid_i,
  input  logic [7:0]                    rq_db_qpn_i,
  input  logic [15:0]                   rq_db_pi_i,
  // The QP's local fields, read from nic_core's QP context (nic_qp_ctx, their one owner): a QP
  // number out, its fields in (combinational today; a register may sit on either side).
  output logic [7:0]                    qc_in_qpn_o,      // the requester's intake
  input  logic [15:0]                   qc_in_pd_i,
  input  logic [51:0]                   qc_in_sq_base_i,  // SQ ring [63:12] (replays re-read it)
  input  logic [3:0]                    qc_in_sq_ld_i,
  output logic [7:0]                    qc_scq_qpn_o,     // the requester's completer
  input  logic [7:0]                    qc_scq_cqn_i,
  output logic [7:0]                    qc_d_qpn_o,       // the responder's dispatcher
  input  logic [15:0]                   qc_d_pd_i,
  output logic [7:0]                    qc_rcq_qpn_o,     // the responder's receive completions
  input  logic [7:0]                    qc_rcq_cqn_i,
  output logic [7:0]                    qc_pq_qpn_o,      // the responder's read-response planner
  input  logic [15:0]                   qc_pq_pd_i,
  output logic [7:0]                    qc_rq_qpn_o,      // the responder's receive-WQE prefetch
  input  logic [63:0]                   qc_rq_base_i,
  input  logic [3:0]                    qc_rq_ld_i,
  // transport WQEs from nic_wqe_dispatch; busy_o holds a QP's later WQEs there
  input  logic                          wqe_valid_i,
  input  logic [511:0]                  wqe_data_i,
  input  logic [7:0]                    wqe_qpn_i,
  input  logic [15:0]                   wqe_idx_i,
  output logic                          wqe_ready_o,
  output logic [NumQps-1:0]             busy_o,
  output logic [NumQps-1:0]             busy_reg_o,       // busy_o from a register (nic_requester)
  // QP errors (two sources, possibly in the same cycle)
  output logic                          req_err_o,
  output logic [7:0]                    req_err_qpn_o,
  output logic                          rsp_err_o,
  output logic [7:0]                    rsp_err_qpn_o,
  // translation client ports (nic_xl_arb): a request is taken when req and gnt are high; its
  // answer comes with rsp_valid (status, pfn and page offset are shared by both ports)
  output logic                          rq_xl_req_o,
  input  logic                          rq_xl_gnt_i,
  output logic [31:0]                   rq_xl_token_o,
  output logic [63:0]                   rq_xl_va_o,
  output logic [31:0]                   rq_xl_len_o,
  output logic [15:0]                   rq_xl_pd_o,
  output logic [15:0]                   rq_xl_access_o,
  input  logic                          rq_xl_rsp_valid_i,
  output logic                          rs_xl_req_o,
  input  logic                          rs_xl_gnt_i,
  output logic [31:0]                   rs_xl_token_o,
  output logic [63:0]                   rs_xl_va_o,
  output logic [31:0]                   rs_xl_len_o,
  output logic [15:0]                   rs_xl_pd_o,
  output logic [15:0]                   rs_xl_access_o,
  output logic                          rs_xl_inv_o,       // a remote invalidation
  input  logic                          rs_xl_rsp_valid_i,
  output logic                          rr_xl_req_o,       // the responder's read-response engine
  input  logic                          rr_xl_gnt_i,
  output logic [31:0]                   rr_xl_token_o,
  output logic [63:0]                   rr_xl_va_o,
  output logic [31:0]                   rr_xl_len_o,
  output logic [15:0]                   rr_xl_pd_o,
  output logic [15:0]                   rr_xl_access_o,
  input  logic                          rr_xl_rsp_valid_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  // DMA read clients: requester payload (a), responder receive WQEs (b)
  output logic                          a_ar_valid_o,
  input  logic                          a_ar_ready_i,
  output logic [63:0]                   a_ar_addr_o,
  output logic [7:0]                    a_ar_len_o,
  input  logic                          a_r_valid_i,
  output logic                          a_r_ready_o,
  output logic                          b_ar_valid_o,
  input  logic                          b_ar_ready_i,
  output logic [63:0]                   b_ar_addr_o,
  output logic [7:0]                    b_ar_len_o,
  input  logic                          b_r_valid_i,
  output logic                          b_r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,       // shared by both clients
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // DMA writes (nic_dma_wr port 2)
  output logic                          wr_req_valid_o,
  output logic [63:0]                   wr_req_addr_o,
  output logic [7:0]                    wr_req_len_o,
  output logic [7:0]                    wr_req_qpn_o,   // the QP the burst is for
  input  logic                          wr_req_ready_i,
  output logic                          wr_valid_o,
  output logic [DataWidth-1:0]          wr_data_o,
  output logic [DataWidth/8-1:0]        wr_strb_o,
  input  logic                          wr_ready_i,
  // completions of the requester (send queue) and of the responder (receive queue, and the
  // requester's Reads it finished placing), to nic_cpl_arb
  output logic                          rq_cpl_valid_o,
  output logic [7:0]                    rq_cpl_cqn_o,
  output nic_pkg::cqe_t                 rq_cpl_cqe_o,
  input  logic                          rq_cpl_ready_i,
  output logic                          rs_cpl_valid_o,
  output logic [7:0]                    rs_cpl_cqn_o,
  output nic_pkg::cqe_t                 rs_cpl_cqe_o,
  input  logic                          rs_cpl_ready_i,
  // network port
  output logic [DataWidth-1:0]          tx_tdata_o,
  output logic [DataWidth/8-1:0]        tx_tkeep_o,
  output logic                          tx_tlast_o,
  output logic                          tx_tvalid_o,
  input  logic                          tx_tready_i,
  input  logic [DataWidth-1:0]          rx_tdata_i,
  input  logic [DataWidth/8-1:0]        rx_tkeep_i,
  input  logic                          rx_tlast_i,
  input  logic                          rx_tvalid_i,
  output logic                          rx_tready_o,
  output logic [31:0]                   rx_drops_o,
  // the port counters' read port (nic_csr: BAR0 PORT_COUNTERS)
  input  logic                          cnt_rd_i,
  input  logic [4:0]                    cnt_rd_word_i,
  output logic [31:0]                   cnt_rd_data_o
);

  localparam int NB = $clog2(DataWidth / 8) + 1;

  // ---- the QP contexts: the local fields from nic_qp_ctx (qc_*), the connection from
  // nic_tp_qp_ctx (one copy for the requester and the responder) -------------------------------
  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  logic          cmd_in_range, cmd_connect;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;

  logic [7:0]  c_rq_in_qpn, c_rq_cpl_qpn, c_rs_qpn, c_rs_cpl_qpn, c_rs_nq, c_rs_pq, c_rs_rq_qpn;
  logic [15:0] c_rq_pd, c_rs_pd, c_rs_pq_pd;
  logic [47:0] c_rq_peer_mac;
  logic [31:0] c_rq_peer_ip;
  logic [23:0] c_rq_peer_qpn, c_rs_peer_qpn;
  logic [3:0]  c_rq_log_mtu, c_rq_sq_ld, c_rs_log_mtu, c_rs_nq_log_mtu, c_rs_pq_log_mtu, c_rs_rq_ld;
  logic [7:0]  c_rq_ord, c_rq_cqn, c_rs_ird, c_rs_cqn;
  logic [51:0] c_rq_sq_base;
  logic [63:0] c_rs_rq_base;
  logic [7:0]  c_rq_ak_qpn;
  logic [2:0]  c_rq_rnr_retry;

  nic_tp_qp_ctx #(
    .NumQps(NumQps)
  ) u_qp_ctx (
    .clk_i        (clk_i),
    .cmd_connect_i(cmd_connect),
    .cmd_qpn_i    (cmd_qpn),
    .cmd_args_i   (cmd_args_i),
    .in_qpn_i     (QW'(c_rq_in_qpn)),
    .in_peer_mac_o(c_rq_peer_mac),
    .in_peer_ip_o (c_rq_peer_ip),
    .in_peer_qpn_o(c_rq_peer_qpn),
    .in_log_mtu_o (c_rq_log_mtu),
    .in_ord_o     (c_rq_ord),
    .ak_qpn_i     (QW'(c_rq_ak_qpn)),
    .ak_rnr_retry_o(c_rq_rnr_retry),
    .d_qpn_i      (QW'(c_rs_qpn)),
    .d_peer_qpn_o (c_rs_peer_qpn),
    .d_log_mtu_o  (c_rs_log_mtu),
    .d_ird_o      (c_rs_ird),
    .nq_qpn_i     (QW'(c_rs_nq)),
    .nq_log_mtu_o (c_rs_nq_log_mtu),
    .pq_qpn_i     (QW'(c_rs_pq)),
    .pq_log_mtu_o (c_rs_pq_log_mtu)
  );
  // (the QP numbers are 8 bits wide on the module ports; NumQps may need fewer)
  logic unused_ctx_qpns;
  assign unused_ctx_qpns = ^{c_rq_in_qpn, c_rq_ak_qpn, c_rs_qpn, c_rs_nq, c_rs_pq};

  assign qc_in_qpn_o  = c_rq_in_qpn;
  assign c_rq_pd      = qc_in_pd_i;
  assign c_rq_sq_base = qc_in_sq_base_i;
  assign c_rq_sq_ld   = qc_in_sq_ld_i;
  assign qc_scq_qpn_o = c_rq_cpl_qpn;
  assign c_rq_cqn     = qc_scq_cqn_i;
  assign qc_d_qpn_o   = c_rs_qpn;
  assign c_rs_pd      = qc_d_pd_i;
  assign qc_rcq_qpn_o = c_rs_cpl_qpn;
  assign c_rs_cqn     = qc_rcq_cqn_i;
  assign qc_pq_qpn_o  = c_rs_pq;
  assign c_rs_pq_pd   = qc_pq_pd_i;
  assign qc_rq_qpn_o  = c_rs_rq_qpn;
  assign c_rs_rq_base = qc_rq_base_i;
  assign c_rs_rq_ld   = qc_rq_ld_i;

  // ---- requester -------------------------------------------------------------------------------
  logic                  rctx_req, rctx_avail, rdone;
  logic [7:0]            rctx_qpn, rdone_qpn;
  nic_roce_pkg::read_ctx_t rctx;
  logic                  rs_pl_valid, rs_pl_ready, rq_pl_ready, rs_pl_poison, pl_poison;
  logic [DataWidth-1:0]  rs_pl_data;
  logic [NB-1:0]         rs_pl_nbytes;
  logic                  rq_pkt_valid, rq_pkt_ready;
  nic_roce_pkg::tx_pkt_t rq_pkt;
  logic                  pl_valid, pl_ready;
  logic [DataWidth-1:0]  pl_data;
  logic [NB-1:0]         pl_nbytes;
  logic                  ack_valid;
  logic [7:0]            ack_qpn, ack_syndrome;
  logic [23:0]           ack_psn;
  logic                  ack_implied;                // an implied NAK was made (its event)
  logic                  ev_ack_rx;                  // a wire ACK / NAK of a local QP ...
  logic [7:0]            ev_ack_syn;                 // ... its syndrome
  logic                  ev_retransmitted, ev_local_ack_timeout;   // port counter events
  logic                  ev_implied_nak, ev_out_of_sequence, ev_duplicate_request;

  nic_requester #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (MaxReads)
  ) u_requester (
    .clk_i         (clk_i),
    .rst_i         (rst_i),
    .us_tick_i     (us_tick_i),
    .cmd_valid_i   (cmd_valid_i),
    .cmd_op_i      (cmd_op_i),
    .cmd_index_i   (cmd_index_i),
    .cmd_args_i    (cmd_args_i),
    .qp_state_i    (qp_state_i),
    .busy_o        (busy_o),
    .busy_reg_o    (busy_reg_o),
    .qp_err_o      (req_err_o),
    .qp_err_qpn_o  (req_err_qpn_o),
    .wqe_valid_i   (wqe_valid_i),
    .wqe_data_i    (wqe_data_i),
    .wqe_qpn_i     (wqe_qpn_i),
    .wqe_idx_i     (wqe_idx_i),
    .wqe_ready_o   (wqe_ready_o),
    .xl_req_o      (rq_xl_req_o),
    .xl_gnt_i      (rq_xl_gnt_i),
    .xl_token_o    (rq_xl_token_o),
    .xl_va_o       (rq_xl_va_o),
    .xl_len_o      (rq_xl_len_o),
    .xl_pd_o       (rq_xl_pd_o),
    .xl_access_o   (rq_xl_access_o),
    .xl_rsp_valid_i(rq_xl_rsp_valid_i),
    .xl_status_i   (xl_status_i),
    .xl_pfn_i      (xl_pfn_i),
    .xl_page_off_i (xl_page_off_i),
    .ar_valid_o    (a_ar_valid_o),
    .ar_ready_i    (a_ar_ready_i),
    .ar_addr_o     (a_ar_addr_o),
    .ar_len_o      (a_ar_len_o),
    .r_valid_i     (a_r_valid_i),
    .r_ready_o     (a_r_ready_o),
    .r_data_i      (r_data_i),
    .r_resp_i      (r_resp_i),
    .r_last_i      (r_last_i),
    .pkt_valid_o   (rq_pkt_valid),
    .pkt_o         (rq_pkt),
    .pkt_ready_i   (rq_pkt_ready),
    .pl_valid_o    (pl_valid),
    .pl_data_o     (pl_data),
    .pl_nbytes_o   (pl_nbytes),
    .pl_poison_o   (pl_poison),
    .pl_ready_i    (rq_pl_ready),
    .ack_valid_i   (ack_valid),
    .ack_qpn_i     (ack_qpn),
    .ack_psn_i     (ack_psn),
    .ack_syndrome_i(ack_syndrome),
    .ev_retransmitted_o(ev_retransmitted),
    .ev_ack_timeout_o  (ev_local_ack_timeout),
    .rctx_req_i    (rctx_req),
    .rctx_qpn_i    (rctx_qpn),
    .rctx_avail_o  (rctx_avail),
    .rctx_o        (rctx),
    .rdone_i       (rdone),
    .rdone_qpn_i   (rdone_qpn),
    .ctx_in_qpn_o     (c_rq_in_qpn),
    .ctx_in_pd_i      (c_rq_pd),
    .ctx_in_peer_mac_i(c_rq_peer_mac),
    .ctx_in_peer_ip_i (c_rq_peer_ip),
    .ctx_in_peer_qpn_i(c_rq_peer_qpn),
    .ctx_in_log_mtu_i (c_rq_log_mtu),
    .ctx_in_ord_i     (c_rq_ord),
    .ctx_in_sq_base_i (c_rq_sq_base),
    .ctx_in_sq_ld_i   (c_rq_sq_ld),
    .ctx_cpl_qpn_o    (c_rq_cpl_qpn),
    .ctx_cpl_cqn_i    (c_rq_cqn),
    .ctx_ak_qpn_o     (c_rq_ak_qpn),
    .ctx_ak_rnr_retry_i(c_rq_rnr_retry),
    .cpl_valid_o   (rq_cpl_valid_o),
    .cpl_cqn_o     (rq_cpl_cqn_o),
    .cpl_cqe_o     (rq_cpl_cqe_o),
    .cpl_ready_i   (rq_cpl_ready_i)
  );

  // ---- responder -------------------------------------------------------------------------------
  logic                  rx_pkt_valid, rx_pkt_ready;
  nic_roce_pkg::rx_pkt_t rx_pkt;
  logic                  rx_pl_valid, rx_pl_ready, rx_pl_last;
  logic [DataWidth-1:0]  rx_pl_data;
  logic [NB-1:0]         rx_pl_nbytes;
  logic                  rs_tx_valid, rs_tx_ready;
  nic_roce_pkg::tx_pkt_t rs_tx_pkt;

  nic_responder #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (MaxReads)
  ) u_responder (
    .clk_i         (clk_i),
    .rst_i         (rst_i),
    .cmd_valid_i   (cmd_valid_i),
    .cmd_op_i      (cmd_op_i),
    .cmd_index_i   (cmd_index_i),
    .cmd_args_i    (cmd_args_i),
    .qp_state_i    (qp_state_i),
    .rq_db_valid_i (rq_db_valid_i),
    .rq_db_qpn_i   (rq_db_qpn_i),
    .rq_db_pi_i    (rq_db_pi_i),
    .qp_err_o      (rsp_err_o),
    .qp_err_qpn_o  (rsp_err_qpn_o),
    .pkt_valid_i   (rx_pkt_valid),
    .pkt_i         (rx_pkt),
    .pkt_ready_o   (rx_pkt_ready),
    .pl_valid_i    (rx_pl_valid),
    .pl_data_i     (rx_pl_data),
    .pl_nbytes_i   (rx_pl_nbytes),
    .pl_last_i     (rx_pl_last),
    .pl_ready_o    (rx_pl_ready),
    .ack_valid_o   (ack_valid),
    .ack_qpn_o     (ack_qpn),
    .ack_psn_o     (ack_psn),
    .ack_syndrome_o(ack_syndrome),
    .ack_implied_o (ack_implied),
    .ev_ack_rx_o   (ev_ack_rx),
    .ev_ack_syn_o  (ev_ack_syn),
    .ev_out_of_seq_o(ev_out_of_sequence),
    .ev_dup_req_o  (ev_duplicate_request),
    .xl_req_o      (rs_xl_req_o),
    .xl_gnt_i      (rs_xl_gnt_i),
    .xl_token_o    (rs_xl_token_o),
    .xl_va_o       (rs_xl_va_o),
    .xl_len_o      (rs_xl_len_o),
    .xl_pd_o       (rs_xl_pd_o),
    .xl_access_o   (rs_xl_access_o),
    .xl_inv_o      (rs_xl_inv_o),
    .xl_rsp_valid_i(rs_xl_rsp_valid_i),
    .rr_xl_req_o   (rr_xl_req_o),
    .rr_xl_gnt_i   (rr_xl_gnt_i),
    .rr_xl_token_o (rr_xl_token_o),
    .rr_xl_va_o    (rr_xl_va_o),
    .rr_xl_len_o   (rr_xl_len_o),
    .rr_xl_pd_o    (rr_xl_pd_o),
    .rr_xl_access_o(rr_xl_access_o),
    .rr_xl_rsp_valid_i(rr_xl_rsp_valid_i),
    .xl_status_i   (xl_status_i),
    .xl_pfn_i      (xl_pfn_i),
    .xl_page_off_i (xl_page_off_i),
    .ar_valid_o    (b_ar_valid_o),
    .ar_ready_i    (b_ar_ready_i),
    .ar_addr_o     (b_ar_addr_o),
    .ar_len_o      (b_ar_len_o),
    .r_valid_i     (b_r_valid_i),
    .r_ready_o     (b_r_ready_o),
    .r_data_i      (r_data_i),
    .r_resp_i      (r_resp_i),
    .r_last_i      (r_last_i),
    .rctx_req_o    (rctx_req),
    .rctx_qpn_o    (rctx_qpn),
    .rctx_avail_i  (rctx_avail),
    .rctx_i        (rctx),
    .rdone_o       (rdone),
    .rdone_qpn_o   (rdone_qpn),
    .wr_req_valid_o(wr_req_valid_o),
    .wr_req_addr_o (wr_req_addr_o),
    .wr_req_len_o  (wr_req_len_o),
    .wr_req_qpn_o  (wr_req_qpn_o),
    .wr_req_ready_i(wr_req_ready_i),
    .wr_valid_o    (wr_valid_o),
    .wr_data_o     (wr_data_o),
    .wr_strb_o     (wr_strb_o),
    .wr_ready_i    (wr_ready_i),
    .tx_valid_o    (rs_tx_valid),
    .tx_pkt_o      (rs_tx_pkt),
    .tx_ready_i    (rs_tx_ready),
    .tx_pl_valid_o (rs_pl_valid),
    .tx_pl_data_o  (rs_pl_data),
    .tx_pl_nbytes_o(rs_pl_nbytes),
    .tx_pl_poison_o(rs_pl_poison),
    .tx_pl_ready_i (rs_pl_ready),
    .ctx_qpn_o       (c_rs_qpn),
    .ctx_pd_i        (c_rs_pd),
    .ctx_peer_qpn_i  (c_rs_peer_qpn),
    .ctx_log_mtu_i   (c_rs_log_mtu),
    .ctx_ird_i       (c_rs_ird),
    .ctx_cpl_qpn_o   (c_rs_cpl_qpn),
    .ctx_rq_cqn_i    (c_rs_cqn),
    .ctx_nq_o        (c_rs_nq),
    .ctx_nq_log_mtu_i(c_rs_nq_log_mtu),
    .ctx_pq_o        (c_rs_pq),
    .ctx_pq_log_mtu_i(c_rs_pq_log_mtu),
    .ctx_pq_pd_i     (c_rs_pq_pd),
    .ctx_rq_qpn_o    (c_rs_rq_qpn),
    .ctx_rq_base_i   (c_rs_rq_base),
    .ctx_rq_ld_i     (c_rs_rq_ld),
    .cpl_valid_o   (rs_cpl_valid_o),
    .cpl_cqn_o     (rs_cpl_cqn_o),
    .cpl_cqe_o     (rs_cpl_cqe_o),
    .cpl_ready_i   (rs_cpl_ready_i)
  );

  // ---- TX: packet descriptors, alternating when both wait; the payload from the owner of the
  // packet last taken. Alternation, not a fixed priority: a Read's responses (up to 2^31 bytes)
  // must not stall this side's own requests for their whole length, nor the reverse.
  logic                  tx_pkt_valid, tx_pkt_ready;
  nic_roce_pkg::tx_pkt_t tx_pkt;
  logic                  pl_rs_q;         // the packet being sent (last taken) is the responder's
  logic                  grant_rs;

  assign grant_rs     = rs_tx_valid && (!rq_pkt_valid || !pl_rs_q);
  assign tx_pkt_valid = rs_tx_valid || rq_pkt_valid;
  assign tx_pkt       = grant_rs ? rs_tx_pkt : rq_pkt;
  assign rs_tx_ready  = tx_pkt_ready && grant_rs;
  assign rq_pkt_ready = tx_pkt_ready && !grant_rs;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pl_rs_q <= 1'b0;
    end else if (tx_pkt_valid && tx_pkt_ready) begin
      pl_rs_q <= grant_rs;
    end
  end
  // the payload of the owner, through a registered stage: no path from the owner's payload
  // logic into nic_roce_tx's packer (docs/timing-area.md)
  logic                  own_pl_valid, own_pl_ready;
  logic [DataWidth-1:0]  own_pl_data;
  logic [NB-1:0]         own_pl_nbytes;
  logic                  own_pl_poison;
  assign own_pl_valid  = pl_rs_q ? rs_pl_valid : pl_valid;
  assign own_pl_poison = pl_rs_q ? rs_pl_poison : pl_poison;
  assign own_pl_data   = pl_rs_q ? rs_pl_data : pl_data;
  assign own_pl_nbytes = pl_rs_q ? rs_pl_nbytes : pl_nbytes;
  assign rs_pl_ready   = own_pl_ready && pl_rs_q;
  assign rq_pl_ready   = own_pl_ready && !pl_rs_q;

  logic                  tx_pl_valid;
  logic [DataWidth-1:0]  tx_pl_data;
  logic [NB-1:0]         tx_pl_nbytes;
  logic                  tx_pl_poison;

  nic_tx_pl_stage #(
    .DataWidth(DataWidth)
  ) u_tx_pl_stage (
    .clk_i       (clk_i),
    .rst_i       (rst_i),
    .take_i      (tx_pkt_valid && tx_pkt_ready),
    .take_len_i  (tx_pkt.pay_len),
    .in_valid_i  (own_pl_valid),
    .in_data_i   (own_pl_data),
    .in_nbytes_i (own_pl_nbytes),
    .in_poison_i (own_pl_poison),
    .in_ready_o  (own_pl_ready),
    .out_valid_o (tx_pl_valid),
    .out_data_o  (tx_pl_data),
    .out_nbytes_o(tx_pl_nbytes),
    .out_poison_o(tx_pl_poison),
    .out_ready_i (pl_ready)
  );

  nic_roce_tx #(
    .DataWidth(DataWidth)
  ) u_tx (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .port_mac_i (port_mac_i),
    .port_ipv4_i(port_ipv4_i),
    .pkt_valid_i(tx_pkt_valid),
    .pkt_i      (tx_pkt),
    .pkt_ready_o(tx_pkt_ready),
    .pl_valid_i (tx_pl_valid),
    .pl_data_i  (tx_pl_data),
    .pl_nbytes_i(tx_pl_nbytes),
    .pl_poison_i(tx_pl_poison),
    .pl_ready_o (pl_ready),
    .tx_tdata_o (tx_tdata_o),
    .tx_tkeep_o (tx_tkeep_o),
    .tx_tlast_o (tx_tlast_o),
    .tx_tvalid_o(tx_tvalid_o),
    .tx_tready_i(tx_tready_i)
  );

  logic rx_drop;   // the receiver dropped a frame (a port counter event)

  nic_roce_rx #(
    .DataWidth(DataWidth)
  ) u_rx (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .port_mac_i (port_mac_i),
    .port_ipv4_i(port_ipv4_i),
    .rx_tdata_i (rx_tdata_i),
    .rx_tkeep_i (rx_tkeep_i),
    .rx_tlast_i (rx_tlast_i),
    .rx_tvalid_i(rx_tvalid_i),
    .rx_tready_o(rx_tready_o),
    .pkt_valid_o(rx_pkt_valid),
    .pkt_o      (rx_pkt),
    .pkt_ready_i(rx_pkt_ready),
    .pl_valid_o (rx_pl_valid),
    .pl_data_o  (rx_pl_data),
    .pl_nbytes_o(rx_pl_nbytes),
    .pl_last_o  (rx_pl_last),
    .pl_ready_i (rx_pl_ready),
    .drop_o     (rx_drop),
    .drops_o    (rx_drops_o)
  );

  // ---- the port counters (BAR0 PORT_COUNTERS, ndk_query_port_counters) -------------------------
  // Events seen at this module's edges: frames on the port, the receiver's drops, RNR NAKs and
  // PSN sequence error NAKs the responder sends (an ACK packet with that syndrome) and those
  // handed to the requester (a received ACK packet's syndrome).
  logic ev_tx_packet, ev_rx_packet, ev_rnr_nak_sent, ev_rnr_nak_received;
  logic ev_seq_nak_sent, ev_seq_nak_received;
  assign ev_tx_packet        = tx_tvalid_o && tx_tready_i && tx_tlast_o;
  assign ev_rx_packet        = rx_tvalid_i && rx_tready_o && rx_tlast_i;
  assign ev_rnr_nak_sent     = rs_tx_valid && rs_tx_ready
                               && rs_tx_pkt.opcode == nic_roce_pkg::OP_ACK
                               && rs_tx_pkt.aeth.syndrome[7:5] == 3'b001;
  assign ev_rnr_nak_received = ev_ack_rx && ev_ack_syn[7:5] == 3'b001;
  assign ev_seq_nak_sent     = rs_tx_valid && rs_tx_ready
                               && rs_tx_pkt.opcode == nic_roce_pkg::OP_ACK
                               && rs_tx_pkt.aeth.syndrome == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
  assign ev_seq_nak_received = ev_ack_rx && ev_ack_syn == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;

  // The loss-recovery events, each a one-cycle pulse per event: a packet the requester's replay
  // queued again (nic_req_intake), an ACK timer that expired (nic_req_ack_timer), an implied NAK
  // handed to the requester (a Read skipped, nic_rsp_dispatch), a request packet ahead of /
  // behind the responder's expected PSN (nic_rsp_dispatch).
  assign ev_implied_nak = ack_implied;

  nic_port_counters u_counters (
    .clk_i              (clk_i),
    .rst_i              (rst_i),
    .tx_packet_i        (ev_tx_packet),
    .rx_packet_i        (ev_rx_packet),
    .rx_dropped_i       (rx_drop),
    .retransmitted_i    (ev_retransmitted),
    .local_ack_timeout_i(ev_local_ack_timeout),
    .seq_nak_sent_i     (ev_seq_nak_sent),
    .seq_nak_received_i (ev_seq_nak_received),
    .implied_nak_i      (ev_implied_nak),
    .out_of_sequence_i  (ev_out_of_sequence),
    .duplicate_request_i(ev_duplicate_request),
    .rnr_nak_sent_i     (ev_rnr_nak_sent),
    .rnr_nak_received_i (ev_rnr_nak_received),
    .rd_i               (cnt_rd_i),
    .rd_word_i          (cnt_rd_word_i),
    .rd_data_o          (cnt_rd_data_o)
  );

endmodule
