`default_nettype none
// tb_responder: the module bench's top for nic_responder (tests/board/test_responder.py).
//
// nic_responder (its dispatcher, placer, receive queues and read-response engine) with what
// nic_core gives it as small tables the bench writes through ports:
//   - the QP contexts it reads combinationally (nic_qp_ctx: PD, receive CQ, receive ring;
//     nic_tp_qp_ctx: peer QPN, path MTU, IRD), written by the same QP_CREATE / QP_CONNECT
//     commands the responder sees, as nic_qp_ctx and nic_tp_qp_ctx take them;
//   - the MR table behind nic_xl_arb's two responder clients: a table of RegionCount regions
//     (key, PD, VA range, rights, physical base: contiguous pages), the dispatcher's client
//     first, each answer two cycles after its grant to the client granted (nic_mr_table's
//     latency). A translation succeeds when a region has the token as key, the QP's PD, every
//     right asked for and [va, va + max(len, 1)) inside it; else ACCESS_VIOLATION. xl_stall_i
//     withholds the grant (another client of nic_core's arbiter holds the table). Remote
//     invalidations (SendAndInvalidate) are refused: the bench sends none.
// The received packets, the DMA read and write channels, the transmit port and the completions
// are the bench's (tests/board/test_responder.py); the packet and the transmitted packet are
// flattened into fields for it. This side's Reads (read contexts of nic_requester) do not exist
// here: rctx_avail_i is 0 and the bench sends no ACK or read response into the responder.
module tb_responder #(
  parameter int DataWidth   = 64,
  parameter int NumQps      = 4,
  parameter int MaxReads    = 8,
  parameter int RegionCount = 4
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // commands (QP_CREATE / QP_CONNECT / QP_DESTROY) and the QP states
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  input  logic [2*NumQps-1:0]           qp_state_i,
  input  logic                          rq_db_valid_i,
  input  logic [7:0]                    rq_db_qpn_i,
  input  logic [15:0]                   rq_db_pi_i,
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o,
  // the regions of the translation model
  input  logic                          rg_we_i,
  input  logic [$clog2(RegionCount)-1:0] rg_idx_i,
  input  logic [31:0]                   rg_key_i,
  input  logic [15:0]                   rg_pd_i,
  input  logic [63:0]                   rg_va_i,
  input  logic [63:0]                   rg_len_i,
  input  logic [15:0]                   rg_access_i,
  input  logic [63:0]                   rg_phys_i,
  input  logic                          xl_stall_i,
  output logic [31:0]                   xl_count_o,     // translations answered
  // a received packet (nic_roce_rx), flattened, and its payload
  input  logic                          pkt_valid_i,
  output logic                          pkt_ready_o,
  input  logic [47:0]                   pkt_src_mac_i,
  input  logic [31:0]                   pkt_src_ip_i,
  input  logic [7:0]                    pkt_opcode_i,
  input  logic                          pkt_se_i,
  input  logic                          pkt_ackreq_i,
  input  logic [23:0]                   pkt_dqpn_i,
  input  logic [23:0]                   pkt_psn_i,
  input  logic [63:0]                   pkt_va_i,
  input  logic [31:0]                   pkt_rkey_i,
  input  logic [31:0]                   pkt_dma_len_i,
  input  logic [12:0]                   pkt_pay_len_i,
  input  logic                          pl_valid_i,
  input  logic [DataWidth-1:0]          pl_data_i,
  input  logic [$clog2(DataWidth/8):0]  pl_nbytes_i,
  input  logic                          pl_last_i,
  output logic                          pl_ready_o,
  // what goes to nic_requester (never, here) and the events
  output logic                          ack_valid_o,
  output logic                          rdone_o,
  output logic                          ev_out_of_seq_o,
  output logic                          ev_dup_req_o,
  // DMA read client
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // DMA writes
  output logic                          wr_req_valid_o,
  output logic [63:0]                   wr_req_addr_o,
  output logic [7:0]                    wr_req_len_o,
  output logic [7:0]                    wr_req_qpn_o,
  input  logic                          wr_req_ready_i,
  output logic                          wr_valid_o,
  output logic [DataWidth-1:0]          wr_data_o,
  output logic [DataWidth/8-1:0]        wr_strb_o,
  input  logic                          wr_ready_i,
  // the transmit port, flattened, and the responses' payload
  output logic                          tx_valid_o,
  input  logic                          tx_ready_i,
  output logic [47:0]                   tx_dst_mac_o,
  output logic [31:0]                   tx_dst_ip_o,
  output logic [7:0]                    tx_opcode_o,
  output logic                          tx_se_o,
  output logic                          tx_ackreq_o,
  output logic [23:0]                   tx_dqpn_o,
  output logic [23:0]                   tx_sqpn_o,
  output logic [23:0]                   tx_psn_o,
  output logic [7:0]                    tx_syn_o,
  output logic [23:0]                   tx_msn_o,
  output logic [12:0]                   tx_pay_len_o,
  output logic                          tx_pl_valid_o,
  output logic [DataWidth-1:0]          tx_pl_data_o,
  output logic [$clog2(DataWidth/8):0]  tx_pl_nbytes_o,
  output logic                          tx_pl_poison_o,
  input  logic                          tx_pl_ready_i,
  // receive completions, flattened
  output logic                          cpl_valid_o,
  input  logic                          cpl_ready_i,
  output logic [7:0]                    cpl_cqn_o,
  output logic [31:0]                   cpl_status_o,
  output logic [31:0]                   cpl_bytes_o,
  output logic [15:0]                   cpl_qpn_o,
  output logic [15:0]                   cpl_wqe_index_o,
  output logic [15:0]                   cpl_op_type_o,
  output logic [7:0]                    cpl_flags_o
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int RW = $clog2(RegionCount);

  // ---- the QP contexts (nic_qp_ctx, nic_tp_qp_ctx): written by the commands ------------------
  nic_pkg::cmd_qp_create_t  create_args;
  nic_pkg::cmd_qp_connect_t connect_args;
  assign create_args  = cmd_args_i;
  assign connect_args = cmd_args_i;

  logic [15:0] c_pd_q [NumQps];
  logic [7:0]  c_cqn_q [NumQps];
  logic [63:0] c_rq_base_q [NumQps];
  logic [3:0]  c_rq_ld_q [NumQps];
  logic [23:0] c_peer_q [NumQps];
  logic [3:0]  c_mtu_q [NumQps];
  logic [7:0]  c_ird_q [NumQps];
  logic        cmd_in_range;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);

  always_ff @(posedge clk_i) begin
    if (cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CREATE) begin
      c_pd_q[cmd_qpn]      <= create_args.pd;
      c_cqn_q[cmd_qpn]     <= create_args.rq_cqn;
      c_rq_base_q[cmd_qpn] <= create_args.rq_base;
      c_rq_ld_q[cmd_qpn]   <= 4'(create_args.rq_log_depth);
    end
    if (cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT) begin
      c_peer_q[cmd_qpn] <= connect_args.peer_qpn;
      c_mtu_q[cmd_qpn]  <= 4'(connect_args.log_mtu);
      c_ird_q[cmd_qpn]  <= connect_args.inbound_read_limit;
    end
  end

  logic [7:0]  ctx_qpn, ctx_cpl_qpn, ctx_nq, ctx_pq, ctx_rq_qpn;

  // ---- the translation model (nic_xl_arb + nic_mr_table, two clients) -----------------------
  logic [31:0] rg_key_q [RegionCount];
  logic [15:0] rg_pd_q [RegionCount];
  logic [63:0] rg_va_q [RegionCount];
  logic [63:0] rg_len_q [RegionCount];
  logic [15:0] rg_acc_q [RegionCount];
  logic [63:0] rg_phys_q [RegionCount];
  logic [RegionCount-1:0] rg_live_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rg_live_q <= '0;
    end else if (rg_we_i) begin
      rg_live_q[rg_idx_i] <= 1'b1;
    end
    if (rg_we_i) begin
      rg_key_q[rg_idx_i]  <= rg_key_i;
      rg_pd_q[rg_idx_i]   <= rg_pd_i;
      rg_va_q[rg_idx_i]   <= rg_va_i;
      rg_len_q[rg_idx_i]  <= rg_len_i;
      rg_acc_q[rg_idx_i]  <= rg_access_i;
      rg_phys_q[rg_idx_i] <= rg_phys_i;
    end
  end

  logic        d_xl_req, d_xl_inv, e_xl_req;
  logic [31:0] d_xl_token, d_xl_len, e_xl_token, e_xl_len;
  logic [63:0] d_xl_va, e_xl_va;
  logic [15:0] d_xl_pd, d_xl_access, e_xl_pd, e_xl_access;
  logic        d_gnt, e_gnt;
  assign d_gnt = d_xl_req && !xl_stall_i;
  assign e_gnt = e_xl_req && !d_xl_req && !xl_stall_i;

  // stage 1: the granted request; stage 2: its answer, to the client granted
  logic        s1_valid_q, s1_client_q, s1_inv_q;
  logic [31:0] s1_token_q, s1_len_q;
  logic [63:0] s1_va_q;
  logic [15:0] s1_pd_q, s1_access_q;
  logic        s2_valid_q, s2_client_q;
  logic [31:0] s2_status_q, xl_count_q;
  logic [51:0] s2_pfn_q;
  logic [11:0] s2_off_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      s1_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= d_gnt || e_gnt;
    end
    s1_client_q <= e_gnt;
    s1_inv_q    <= d_gnt && d_xl_inv;
    s1_token_q  <= d_gnt ? d_xl_token : e_xl_token;
    s1_va_q     <= d_gnt ? d_xl_va : e_xl_va;
    s1_len_q    <= d_gnt ? d_xl_len : e_xl_len;
    s1_pd_q     <= d_gnt ? d_xl_pd : e_xl_pd;
    s1_access_q <= d_gnt ? d_xl_access : e_xl_access;
  end

  logic        hit;
  logic [63:0] hit_phys, s1_end;
  assign s1_end = s1_va_q + ((s1_len_q == 32'd0) ? 64'd1 : 64'(s1_len_q));
  always_comb begin
    hit      = 1'b0;
    hit_phys = '0;
    for (int i = 0; i < RegionCount; i++) begin
      if (!hit && rg_live_q[i] && rg_key_q[i] == s1_token_q && rg_pd_q[i] == s1_pd_q
          && (rg_acc_q[i] & s1_access_q) == s1_access_q && s1_va_q >= rg_va_q[i]
          && s1_end <= rg_va_q[i] + rg_len_q[i] && s1_end > s1_va_q && !s1_inv_q) begin
        hit      = 1'b1;
        hit_phys = rg_phys_q[i] + (s1_va_q - rg_va_q[i]);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      s2_valid_q <= 1'b0;
      xl_count_q <= '0;
    end else begin
      s2_valid_q <= s1_valid_q;
      xl_count_q <= xl_count_q + 32'(s1_valid_q);
    end
    s2_client_q <= s1_client_q;
    s2_status_q <= hit ? nic_pkg::STATUS_SUCCESS : nic_pkg::STATUS_ACCESS_VIOLATION;
    s2_pfn_q    <= hit ? hit_phys[63:12] : '0;
    s2_off_q    <= hit ? hit_phys[11:0] : '0;
  end
  assign xl_count_o = xl_count_q;

  // ---- the responder --------------------------------------------------------------------------
  nic_roce_pkg::rx_pkt_t pkt;
  always_comb begin
    pkt              = '0;
    pkt.src_mac      = pkt_src_mac_i;
    pkt.src_ip       = pkt_src_ip_i;
    pkt.opcode       = pkt_opcode_i;
    pkt.se           = pkt_se_i;
    pkt.ackreq       = pkt_ackreq_i;
    pkt.dqpn         = pkt_dqpn_i;
    pkt.psn          = pkt_psn_i;
    pkt.reth.va      = pkt_va_i;
    pkt.reth.rkey    = pkt_rkey_i;
    pkt.reth.dma_len = pkt_dma_len_i;
    pkt.pay_len      = pkt_pay_len_i;
  end

  nic_roce_pkg::tx_pkt_t tx_pkt;
  assign tx_dst_mac_o = tx_pkt.dst_mac;
  assign tx_dst_ip_o  = tx_pkt.dst_ip;
  assign tx_opcode_o  = tx_pkt.opcode;
  assign tx_se_o      = tx_pkt.se;
  assign tx_ackreq_o  = tx_pkt.ackreq;
  assign tx_dqpn_o    = tx_pkt.dqpn;
  assign tx_sqpn_o    = tx_pkt.sqpn;
  assign tx_psn_o     = tx_pkt.psn;
  assign tx_syn_o     = tx_pkt.aeth.syndrome;
  assign tx_msn_o     = tx_pkt.aeth.msn;
  assign tx_pay_len_o = tx_pkt.pay_len;

  nic_pkg::cqe_t cqe;
  assign cpl_status_o    = cqe.status;
  assign cpl_bytes_o     = cqe.bytes_transferred;
  assign cpl_qpn_o       = cqe.qpn;
  assign cpl_wqe_index_o = cqe.wqe_index;
  assign cpl_op_type_o   = cqe.op_type;
  assign cpl_flags_o     = cqe.flags;

  nic_roce_pkg::read_ctx_t no_rctx;
  assign no_rctx = '0;

  nic_responder #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (MaxReads)
  ) u_rsp (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .cmd_valid_i      (cmd_valid_i),
    .cmd_op_i         (cmd_op_i),
    .cmd_index_i      (cmd_index_i),
    .cmd_args_i       (cmd_args_i),
    .qp_state_i       (qp_state_i),
    .rq_db_valid_i    (rq_db_valid_i),
    .rq_db_qpn_i      (rq_db_qpn_i),
    .rq_db_pi_i       (rq_db_pi_i),
    .qp_err_o         (qp_err_o),
    .qp_err_qpn_o     (qp_err_qpn_o),
    .pkt_valid_i      (pkt_valid_i),
    .pkt_i            (pkt),
    .pkt_ready_o      (pkt_ready_o),
    .pl_valid_i       (pl_valid_i),
    .pl_data_i        (pl_data_i),
    .pl_nbytes_i      (pl_nbytes_i),
    .pl_last_i        (pl_last_i),
    .pl_ready_o       (pl_ready_o),
    .ack_valid_o      (ack_valid_o),
    .ack_qpn_o        (),
    .ack_psn_o        (),
    .ack_syndrome_o   (),
    .ack_implied_o    (),
    .ev_ack_rx_o      (),
    .ev_ack_syn_o     (),
    .ev_out_of_seq_o  (ev_out_of_seq_o),
    .ev_dup_req_o     (ev_dup_req_o),
    .xl_req_o         (d_xl_req),
    .xl_gnt_i         (d_gnt),
    .xl_token_o       (d_xl_token),
    .xl_va_o          (d_xl_va),
    .xl_len_o         (d_xl_len),
    .xl_pd_o          (d_xl_pd),
    .xl_access_o      (d_xl_access),
    .xl_inv_o         (d_xl_inv),
    .xl_rsp_valid_i   (s2_valid_q && !s2_client_q),
    .rr_xl_req_o      (e_xl_req),
    .rr_xl_gnt_i      (e_gnt),
    .rr_xl_token_o    (e_xl_token),
    .rr_xl_va_o       (e_xl_va),
    .rr_xl_len_o      (e_xl_len),
    .rr_xl_pd_o       (e_xl_pd),
    .rr_xl_access_o   (e_xl_access),
    .rr_xl_rsp_valid_i(s2_valid_q && s2_client_q),
    .xl_status_i      (s2_status_q),
    .xl_pfn_i         (s2_pfn_q),
    .xl_page_off_i    (s2_off_q),
    .ar_valid_o       (ar_valid_o),
    .ar_ready_i       (ar_ready_i),
    .ar_addr_o        (ar_addr_o),
    .ar_len_o         (ar_len_o),
    .r_valid_i        (r_valid_i),
    .r_ready_o        (r_ready_o),
    .r_data_i         (r_data_i),
    .r_resp_i         (r_resp_i),
    .r_last_i         (r_last_i),
    .rctx_req_o       (),
    .rctx_qpn_o       (),
    .rctx_avail_i     (1'b0),
    .rctx_i           (no_rctx),
    .rdone_o          (rdone_o),
    .rdone_qpn_o      (),
    .wr_req_valid_o   (wr_req_valid_o),
    .wr_req_addr_o    (wr_req_addr_o),
    .wr_req_len_o     (wr_req_len_o),
    .wr_req_qpn_o     (wr_req_qpn_o),
    .wr_req_ready_i   (wr_req_ready_i),
    .wr_valid_o       (wr_valid_o),
    .wr_data_o        (wr_data_o),
    .wr_strb_o        (wr_strb_o),
    .wr_ready_i       (wr_ready_i),
    .tx_valid_o       (tx_valid_o),
    .tx_pkt_o         (tx_pkt),
    .tx_ready_i       (tx_ready_i),
    .tx_pl_valid_o    (tx_pl_valid_o),
    .tx_pl_data_o     (tx_pl_data_o),
    .tx_pl_nbytes_o   (tx_pl_nbytes_o),
    .tx_pl_poison_o   (tx_pl_poison_o),
    .tx_pl_ready_i    (tx_pl_ready_i),
    .ctx_qpn_o        (ctx_qpn),
    .ctx_pd_i         (c_pd_q[QW'(ctx_qpn)]),
    .ctx_peer_qpn_i   (c_peer_q[QW'(ctx_qpn)]),
    .ctx_log_mtu_i    (c_mtu_q[QW'(ctx_qpn)]),
    .ctx_ird_i        (c_ird_q[QW'(ctx_qpn)]),
    .ctx_cpl_qpn_o    (ctx_cpl_qpn),
    .ctx_rq_cqn_i     (c_cqn_q[QW'(ctx_cpl_qpn)]),
    .ctx_nq_o         (ctx_nq),
    .ctx_nq_log_mtu_i (c_mtu_q[QW'(ctx_nq)]),
    .ctx_pq_o         (ctx_pq),
    .ctx_pq_log_mtu_i (c_mtu_q[QW'(ctx_pq)]),
    .ctx_pq_pd_i      (c_pd_q[QW'(ctx_pq)]),
    .ctx_rq_qpn_o     (ctx_rq_qpn),
    .ctx_rq_base_i    (c_rq_base_q[QW'(ctx_rq_qpn)]),
    .ctx_rq_ld_i      (c_rq_ld_q[QW'(ctx_rq_qpn)]),
    .cpl_valid_o      (cpl_valid_o),
    .cpl_cqn_o        (cpl_cqn_o),
    .cpl_cqe_o        (cqe),
    .cpl_ready_i      (cpl_ready_i)
  );

endmodule
