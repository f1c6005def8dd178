`default_nettype none
// nic_rsp_dispatch_formal: the proof harness of nic_rsp_dispatch's implied-NAK state of this
// side's Read responses (rr_nak; its properties are the module's own `ifdef FORMAL block).
// Bounded parameters: 2 QPs, the 64-bit data path, 2 saved Reads per QP. Every input is free in
// every cycle (packets, payload, the neighbours' answers, commands and QP states): the proof
// needs nothing of the rest of the responder. nic_rsp_psn_check's FORMAL block comes along: its
// assumptions about the dispatcher are assumptions here too (the simulation asserts them).
module nic_rsp_dispatch_formal (
  input logic                    clk_i,
  input logic                    rst_i,
  input logic                    cmd_valid_i,
  input logic [7:0]              cmd_op_i,
  input logic [15:0]             cmd_index_i,
  input logic [255:0]            cmd_args_i,
  input logic [3:0]              qp_state_i,
  input logic                    pkt_valid_i,
  input nic_roce_pkg::rx_pkt_t   pkt_i,
  input logic                    pl_valid_i,
  input logic                    pl_last_i,
  input logic                    xl_gnt_i,
  input logic                    xl_rsp_i,
  input logic [31:0]             xl_status_i,
  input logic [51:0]             xl_pfn_i,
  input logic [11:0]             xl_page_off_i,
  input logic                    rctx_avail_i,
  input nic_roce_pkg::read_ctx_t rctx_i,
  input logic                    wr_req_ready_i,
  input logic                    place_done_i,
  input logic                    place_word_done_i,
  input logic [15:0]             rq_ci_i,
  input logic [15:0]             rq_pi_i,
  input logic [4:0]              rq_cached_i,
  input logic [511:0]            rq_cache_wqe_i,
  input logic                    rq_cache_fwd_i,
  input logic                    rq_cache_hit_i,
  input logic [511:0]            rq_cache_wdata_i,
  input logic                    flush_found_i,
  input logic                    flush_found_qpn_i,
  input logic [15:0]             flush_ci_i,
  input logic                    rdq_full_i,
  input logic                    rdq_has_i,
  input logic [15:0]             ctx_pd_i,
  input logic [23:0]             ctx_peer_qpn_i,
  input logic [3:0]              ctx_log_mtu_i,
  input logic [7:0]              ctx_ird_i,
  input logic [7:0]              cpl_rq_cqn_i,
  input logic                    tx_ready_i,
  input logic                    tx_free_i,
  input logic                    cpl_ready_i
);
  localparam int NumQps    = 2;
  localparam int DataWidth = 64;
  localparam int QW        = 1;
  localparam int LW        = 3;

  logic                  pkt_ready;
  logic                  pl_ready;
  logic                  ack_valid;
  logic [7:0]            ack_qpn;
  logic [23:0]           ack_psn;
  logic [7:0]            ack_syndrome;
  logic                  ack_implied;
  logic                  ev_ack_rx;
  logic [7:0]            ev_ack_syn;
  logic                  ev_out_of_seq;
  logic                  ev_dup_req;
  logic                  xl_req;
  logic [31:0]           xl_token;
  logic [63:0]           xl_va;
  logic [31:0]           xl_len;
  logic [15:0]           xl_pd;
  logic [15:0]           xl_access;
  logic                  xl_inv;
  logic                  rctx_req;
  logic [7:0]            rctx_qpn;
  logic                  rdone;
  logic [7:0]            rdone_qpn;
  logic                  wr_req_valid;
  logic [63:0]           wr_req_addr;
  logic [7:0]            wr_req_len;
  logic                  place_start;
  logic [LW-1:0]         place_lane;
  logic [12:0]           place_len;
  logic [7:0]            place_beats;
  logic                  place_active;
  logic                  place_drain;
  logic [QW-1:0]         qpn;
  logic                  rq_cache_re;
  logic                  rq_consume;
  logic                  flush_find;
  logic                  flush;
  logic [QW-1:0]         flush_qpn;
  logic                  flush_done;
  logic                  push_read;
  logic                  push_ack;
  logic [63:0]           push_va;
  logic [31:0]           push_key;
  logic [31:0]           push_len;
  logic [23:0]           push_psn;
  logic [23:0]           push_msn;
  logic [7:0]            push_syn;
  logic [23:0]           push_peer_qpn;
  logic [47:0]           push_mac;
  logic [31:0]           push_ip;
  logic                  rdq_has_en;
  logic [QW-1:0]         cpl_qpn;
  logic                  tx_valid;
  nic_roce_pkg::tx_pkt_t tx_pkt;
  logic                  qp_err;
  logic                  cpl_valid;
  logic [7:0]            cpl_cqn;
  nic_pkg::cqe_t         cpl_cqe;

  initial assume (rst_i);

  nic_rsp_dispatch #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps),
    .MaxReads (2)
  ) u_dut (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .cmd_valid_i      (cmd_valid_i),
    .cmd_op_i         (cmd_op_i),
    .cmd_index_i      (cmd_index_i),
    .cmd_args_i       (cmd_args_i),
    .qp_state_i       (qp_state_i),
    .pkt_valid_i      (pkt_valid_i),
    .pkt_i            (pkt_i),
    .pkt_ready_o      (pkt_ready),
    .pl_valid_i       (pl_valid_i),
    .pl_last_i        (pl_last_i),
    .pl_ready_o       (pl_ready),
    .ack_valid_o      (ack_valid),
    .ack_qpn_o        (ack_qpn),
    .ack_psn_o        (ack_psn),
    .ack_syndrome_o   (ack_syndrome),
    .ack_implied_o    (ack_implied),
    .ev_ack_rx_o      (ev_ack_rx),
    .ev_ack_syn_o     (ev_ack_syn),
    .ev_out_of_seq_o  (ev_out_of_seq),
    .ev_dup_req_o     (ev_dup_req),
    .xl_req_o         (xl_req),
    .xl_gnt_i         (xl_gnt_i),
    .xl_token_o       (xl_token),
    .xl_va_o          (xl_va),
    .xl_len_o         (xl_len),
    .xl_pd_o          (xl_pd),
    .xl_access_o      (xl_access),
    .xl_inv_o         (xl_inv),
    .xl_rsp_i         (xl_rsp_i),
    .xl_status_i      (xl_status_i),
    .xl_pfn_i         (xl_pfn_i),
    .xl_page_off_i    (xl_page_off_i),
    .rctx_req_o       (rctx_req),
    .rctx_qpn_o       (rctx_qpn),
    .rctx_avail_i     (rctx_avail_i),
    .rctx_i           (rctx_i),
    .rdone_o          (rdone),
    .rdone_qpn_o      (rdone_qpn),
    .wr_req_valid_o   (wr_req_valid),
    .wr_req_addr_o    (wr_req_addr),
    .wr_req_len_o     (wr_req_len),
    .wr_req_ready_i   (wr_req_ready_i),
    .place_start_o    (place_start),
    .place_lane_o     (place_lane),
    .place_len_o      (place_len),
    .place_beats_o    (place_beats),
    .place_active_o   (place_active),
    .place_drain_o    (place_drain),
    .place_done_i     (place_done_i),
    .place_word_done_i(place_word_done_i),
    .qpn_o            (qpn),
    .rq_ci_i          (rq_ci_i),
    .rq_pi_i          (rq_pi_i),
    .rq_cached_i      (rq_cached_i),
    .rq_cache_re_o    (rq_cache_re),
    .rq_cache_wqe_i   (rq_cache_wqe_i),
    .rq_cache_fwd_i   (rq_cache_fwd_i),
    .rq_cache_hit_i   (rq_cache_hit_i),
    .rq_cache_wdata_i (rq_cache_wdata_i),
    .rq_consume_o     (rq_consume),
    .flush_find_o     (flush_find),
    .flush_found_i    (flush_found_i),
    .flush_found_qpn_i(flush_found_qpn_i),
    .flush_o          (flush),
    .flush_qpn_o      (flush_qpn),
    .flush_ci_i       (flush_ci_i),
    .flush_done_o     (flush_done),
    .push_read_o      (push_read),
    .push_ack_o       (push_ack),
    .push_va_o        (push_va),
    .push_key_o       (push_key),
    .push_len_o       (push_len),
    .push_psn_o       (push_psn),
    .push_msn_o       (push_msn),
    .push_syn_o       (push_syn),
    .push_peer_qpn_o  (push_peer_qpn),
    .push_mac_o       (push_mac),
    .push_ip_o        (push_ip),
    .rdq_full_i       (rdq_full_i),
    .rdq_has_en_o     (rdq_has_en),
    .rdq_has_i        (rdq_has_i),
    .ctx_pd_i         (ctx_pd_i),
    .ctx_peer_qpn_i   (ctx_peer_qpn_i),
    .ctx_log_mtu_i    (ctx_log_mtu_i),
    .ctx_ird_i        (ctx_ird_i),
    .cpl_qpn_o        (cpl_qpn),
    .cpl_rq_cqn_i     (cpl_rq_cqn_i),
    .tx_valid_o       (tx_valid),
    .tx_pkt_o         (tx_pkt),
    .tx_ready_i       (tx_ready_i),
    .tx_free_i        (tx_free_i),
    .qp_err_o         (qp_err),
    .cpl_valid_o      (cpl_valid),
    .cpl_cqn_o        (cpl_cqn),
    .cpl_cqe_o        (cpl_cqe),
    .cpl_ready_i      (cpl_ready_i)
  );
endmodule
