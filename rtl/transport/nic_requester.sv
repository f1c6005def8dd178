`default_nettype none
// nic_requester: the requester side of the RC transport (docs/transport.md). It takes the
// transport WQEs (Send, SendAndInvalidate, Write, Read) of connected QPs from nic_local_exec in
// ring order, checks their SGEs against the MR table, cuts each message into packets of at most
// the path MTU, gathers their payload by DMA (or from the WQE for INLINE data), hands the packets
// to nic_roce_tx, and completes each WQE, in posting order per QP, once an ACK covers its last PSN.
//
// A Read sends one READ_REQUEST and takes the PSNs of its responses (ceil(length / MTU), at least
// one). Its sink SGEs are checked here with local-write access, then kept in the read context
// RAM (per QP a ring of MaxReads entries: first PSN, length, SGEs) where nic_responder, which
// dispatches every received packet and owns the placement engine, looks up the oldest Read not
// yet placed (rctx_*) when its first response arrives. nic_responder reports each response it
// placed as an acknowledgement of that response's PSN (so a Read completes once its last
// response is in host memory, and implicitly acknowledges the Sends and Writes before it), a
// failed placement as a NAK, and the end of each Read's placement (rdone_*). At most ORD Reads
// (QP_CONNECT ARG6, at most MaxReads) are outstanding per QP, and a WQE with READ_FENCE waits
// for every earlier Read of its QP to complete: both wait at intake (S_SPACE).
//
// Per QP: its PD and send CQ (latched from QP_CREATE on the command bus), the connection (peer
// MAC, IPv4, QPN, path MTU: latched from QP_CONNECT), the next PSN, the PSN acknowledged so far, and a ring of outstanding WQEs (their index,
// last PSN, completion type and flags) in a RAM of NumQps * OutDepth entries. A WQE waits at
// intake while its QP's ring is full.
//
// Completion rules (checked in this order for a QP's oldest outstanding WQE):
//   - decided at intake (its SGEs failed the checks: ACCESS_VIOLATION; its QP was not RTS:
//     CANCELLED): completes with that status;
//   - an ACK covers its last PSN: SUCCESS (no CQE for a SILENT_SUCCESS WQE);
//   - a NAK names a PSN up to its last one: the NAK's status (remote access error:
//     ACCESS_VIOLATION; the 8th RNR NAK of one PSN: IO_TIMEOUT; any other: REMOTE_ERROR), and the
//     QP goes to ERROR;
//   - its QP is in ERROR: CANCELLED.
// busy_o[q] is high while QP q has a WQE here: nic_local_exec then holds q's later WQEs, so
// completions stay in posting order across local and transport requests.
//
// RNR retries (docs/transport.md "RNR retries"): an RNR NAK of PSN p acknowledges the PSNs before
// it and arms the QP's timer (the NAK's timer code, counted in us_tick_i pulses). When it expires
// the intake FSM walks the QP's outstanding entries and sends every one from p on again with its
// original PSNs, re-reading each WQE by DMA from its slot of the SQ ring (base and depth from
// QP_CREATE) through the payload read client. Meanwhile the QP's new WQEs wait; a PSN-sequence
// NAK of p (a packet the responder dropped behind the RNR NAK) is ignored. After RnrRetries
// retries of one PSN the next RNR NAK fails the Send with IO_TIMEOUT. The timers are looked at
// one QP a cycle (no loop over the QPs).
//
// Gather: the intake FSM plans ahead of the sender. It queues each packet's descriptor (with its
// inline bytes) and, per piece, translates it and issues its DMA read (the piece queue holds the
// reads in flight, up to PieceDepth); the sender offers the packets to nic_roce_tx in order and
// streams their payload from the read data buffer, where every read reserved its beats when it
// was issued (R beats are never held up: the R channel is shared with nic_responder).
//
// Not built yet (the transport's next steps): retransmission after loss (timeouts: the link is
// lossless and in order).
module nic_requester #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16,   // queue pairs, <= 256
  parameter int OutDepth  = 64,   // outstanding WQEs per QP: a power of two >= 2
  parameter int MaxReads  = 8     // outstanding Reads per QP (the largest ORD): a power of two >= 2
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic                          us_tick_i,   // one-cycle pulse every microsecond (RNR timer)
  // commands (QP_CONNECT, QP_CREATE, QP_DESTROY)
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  // QP states (nic_sq_engine)
  input  logic [2*NumQps-1:0]           qp_state_i,
  output logic [NumQps-1:0]             busy_o,
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o,
  // transport WQEs, in ring order per QP
  input  logic                          wqe_valid_i,
  input  logic [511:0]                  wqe_data_i,
  input  logic [7:0]                    wqe_qpn_i,
  input  logic [15:0]                   wqe_idx_i,
  output logic                          wqe_ready_o,
  // MR table translation port (through an arbiter: a request waits for its grant)
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
  // DMA read client (payload)
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // packets to nic_roce_tx (through the TX arbiter)
  output logic                          pkt_valid_o,
  output nic_roce_pkg::tx_pkt_t         pkt_o,
  input  logic                          pkt_ready_i,
  output logic                          pl_valid_o,
  output logic [DataWidth-1:0]          pl_data_o,
  output logic [$clog2(DataWidth/8):0]  pl_nbytes_o,
  input  logic                          pl_ready_i,
  // acknowledgements for this side's QPs (from nic_roce_rx)
  input  logic                          ack_valid_i,
  input  logic [7:0]                    ack_qpn_i,
  input  logic [23:0]                   ack_psn_i,
  input  logic [7:0]                    ack_syndrome_i,
  // the read context of a QP's oldest Read not yet placed (for nic_responder), one cycle after
  // the request: rctx_avail_o says whether there is one
  input  logic                          rctx_req_i,
  input  logic [7:0]                    rctx_qpn_i,
  output logic                          rctx_avail_o,
  output nic_roce_pkg::read_ctx_t            rctx_o,
  // nic_responder placed the last response of that Read
  input  logic                          rdone_i,
  input  logic [7:0]                    rdone_qpn_i,
  // completions
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i
);

  localparam int W8   = DataWidth / 8;
  localparam int LW   = $clog2(W8);
  localparam int NB   = LW + 1;
  localparam int QW   = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int OW   = $clog2(OutDepth);
  localparam int EntW = 16 + 24 + 16 + 1 + 1 + 32;   // idx, last psn, op type, silent, pend, status

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_requester: DataWidth must be 64 or 256");
  end
  if (OutDepth < 2 || (OutDepth & (OutDepth - 1)) != 0) begin : gen_bad_depth
    $fatal(1, "nic_requester: OutDepth must be a power of two >= 2");
  end
  if (MaxReads < 2 || MaxReads > 128 || (MaxReads & (MaxReads - 1)) != 0) begin : gen_bad_reads
    $fatal(1, "nic_requester: MaxReads must be a power of two in 2..128");
  end
  localparam int RW = $clog2(MaxReads);   // read ring slot; its pointers have one more bit
  // RNR retries of one PSN before its Send fails IO_TIMEOUT (IB's rnr_retry is 3 bits; 7 is its
  // largest finite value; NDK has no knob for it)
  localparam int RnrRetries = 7;
  localparam int WqeBeats   = 64 / W8;    // beats of one 64-byte WQE slot

  // IBA RNR timer codes (AETH bits [4:0]) in microseconds: code 0 is the longest, 655.36 ms
  function automatic logic [19:0] rnr_wait_us(input logic [4:0] code);
    unique case (code)
      5'd0:  rnr_wait_us = 20'd655360;
      5'd1:  rnr_wait_us = 20'd10;
      5'd2:  rnr_wait_us = 20'd20;
      5'd3:  rnr_wait_us = 20'd30;
      5'd4:  rnr_wait_us = 20'd40;
      5'd5:  rnr_wait_us = 20'd60;
      5'd6:  rnr_wait_us = 20'd80;
      5'd7:  rnr_wait_us = 20'd120;
      5'd8:  rnr_wait_us = 20'd160;
      5'd9:  rnr_wait_us = 20'd240;
      5'd10: rnr_wait_us = 20'd320;
      5'd11: rnr_wait_us = 20'd480;
      5'd12: rnr_wait_us = 20'd640;
      5'd13: rnr_wait_us = 20'd960;
      5'd14: rnr_wait_us = 20'd1280;
      5'd15: rnr_wait_us = 20'd1920;
      5'd16: rnr_wait_us = 20'd2560;
      5'd17: rnr_wait_us = 20'd3840;
      5'd18: rnr_wait_us = 20'd5120;
      5'd19: rnr_wait_us = 20'd7680;
      5'd20: rnr_wait_us = 20'd10240;
      5'd21: rnr_wait_us = 20'd15360;
      5'd22: rnr_wait_us = 20'd20480;
      5'd23: rnr_wait_us = 20'd30720;
      5'd24: rnr_wait_us = 20'd40960;
      5'd25: rnr_wait_us = 20'd61440;
      5'd26: rnr_wait_us = 20'd81920;
      5'd27: rnr_wait_us = 20'd122880;
      5'd28: rnr_wait_us = 20'd163840;
      5'd29: rnr_wait_us = 20'd245760;
      5'd30: rnr_wait_us = 20'd327680;
      default: rnr_wait_us = 20'd491520;
    endcase
  endfunction

  // ---- context and connection per QP (tables written by their commands) ------------------------
  logic [15:0]          pd_q       [NumQps];
  logic [7:0]           sq_cqn_q   [NumQps];
  logic [47:0]          peer_mac_q [NumQps];
  logic [31:0]          peer_ip_q  [NumQps];
  logic [23:0]          peer_qpn_q [NumQps];
  logic [3:0]           log_mtu_q  [NumQps];
  // Per-QP values in tables written at the QP an event names (no whole-vector next = current
  // copies). Those that a reset or a QP command zeroes keep a valid bit per QP: a value reads as 0
  // while its bit is clear, exactly as a zeroed register would.
  logic [23:0]          next_psn_q [NumQps];       // valid where next_psn_v
  logic [NumQps-1:0]    next_psn_v_q, next_psn_v_d;
  logic [23:0]          acked_psn_q [NumQps];      // meaningful where acked_v
  logic [NumQps-1:0]    acked_v_q, acked_v_d;      // acked_psn holds an ACK
  logic [NumQps-1:0]    nak_v_q, nak_v_d;          // a NAK arrived: nak_psn, nak_status
  logic [23:0]          nak_psn_q [NumQps];
  logic [31:0]          nak_status_q [NumQps];
  logic [OW-1:0]        head_q [NumQps];           // valid where head_v
  logic [NumQps-1:0]    head_v_q, head_v_d;
  logic [OW:0]          count_q [NumQps];          // valid where cnt_nz: the count is not 0
  logic [NumQps-1:0]    cnt_nz_q, cnt_nz_d;
  logic [NumQps-1:0]    work_q, work_d;            // the completer should look at the QP
  // the read ring: Reads issued (tail), placed by nic_responder (place), completed (head)
  logic [RW:0]          rd_tail_q  [NumQps];       // each valid where its _v bit is set
  logic [RW:0]          rd_place_q [NumQps];
  logic [RW:0]          rd_head_q  [NumQps];
  logic [NumQps-1:0]    rd_tail_v_q, rd_tail_v_d, rd_place_v_q, rd_place_v_d, rd_head_v_q, rd_head_v_d;
  logic [7:0]           ord_q      [NumQps];       // the QP's outbound read limit (ORD)
  logic [51:0]          sq_base_q  [NumQps];       // SQ ring base [63:12]: a replay re-reads WQEs
  logic [3:0]           sq_ld_q    [NumQps];       // SQ ring depth, log2
  // RNR: a NAK arms the QP's timer (rnr_wait, rnr_due in microseconds of now_us); when it expires
  // the outstanding WQEs from the NAKed PSN on are sent again. Until an ACK covers rnr_psn
  // (rnr_open) a PSN-sequence NAK naming it comes from a packet the responder dropped behind the
  // RNR NAK and is ignored. rnr_cnt counts the retries of rnr_psn.
  logic [23:0]          now_us_q, now_us_d;
  logic [NumQps-1:0]    rnr_wait_q, rnr_wait_d;
  logic [NumQps-1:0]    rnr_open_q, rnr_open_d;
  logic [23:0]          rnr_psn_q  [NumQps];       // meaningful where rnr_open or rnr_wait
  logic [2:0]           rnr_cnt_q  [NumQps];
  logic [23:0]          rnr_due_q  [NumQps];
  logic                 rnr_arm;                   // an RNR NAK schedules a retry this cycle
  logic [QW-1:0]        scan_q, scan_d;            // the QP whose timer is looked at (one a cycle)
  logic                 rnr_go;                    // ... and it has expired: replay it

  logic       cmd_in_range, cmd_connect, cmd_reset;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign cmd_reset    = cmd_valid_i && cmd_in_range
                        && (cmd_op_i == nic_pkg::CMD_QP_CREATE || cmd_op_i == nic_pkg::CMD_QP_DESTROY);

  // RAM-like: written by QP_CREATE / QP_CONNECT before any use, no reset needed
  always_ff @(posedge clk_i) begin
    if (cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CREATE) begin
      pd_q[cmd_qpn]      <= cmd_args_i[79:64];
      sq_cqn_q[cmd_qpn]  <= cmd_args_i[87:80];
      sq_base_q[cmd_qpn] <= {cmd_args_i[63:32], cmd_args_i[31:12]};
      sq_ld_q[cmd_qpn]   <= cmd_args_i[99:96];
    end
    if (rnr_arm) begin
      // one microsecond more than the code: the first tick may come at once
      rnr_due_q[ack_qpn_i[QW-1:0]] <= now_us_q + 24'(rnr_wait_us(ack_syndrome_i[4:0])) + 24'd1;
    end
    if (cmd_connect) begin
      peer_mac_q[cmd_qpn] <= {cmd_args_i[47:32], cmd_args_i[31:0]};
      peer_ip_q[cmd_qpn]  <= cmd_args_i[95:64];
      peer_qpn_q[cmd_qpn] <= cmd_args_i[119:96];
      log_mtu_q[cmd_qpn]  <= cmd_args_i[195:192];
      ord_q[cmd_qpn]      <= cmd_args_i[207:200];
    end
  end

  // ---- read context RAM: written when a Read's request goes out, read by nic_responder ---------
  logic                     rctx_we;
  logic [QW+RW-1:0]         rctx_waddr;
  nic_roce_pkg::read_ctx_t  rctx_wdata;
  logic [QW-1:0]            rctx_q;
  logic [RW:0]              rctx_place, rctx_tail;
  logic                     rctx_avail_q;

  assign rctx_q     = QW'(rctx_qpn_i);
  assign rctx_place = rd_place_v_q[rctx_q] ? rd_place_q[rctx_q] : '0;
  assign rctx_tail  = rd_tail_v_q[rctx_q] ? rd_tail_q[rctx_q] : '0;

  nic_ram_1r1w #(
    .Width  (nic_roce_pkg::READ_CTX_BITS),
    .Depth  (NumQps * MaxReads),
    .Forward(1'b1)
  ) u_rctx (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (rctx_we),
    .waddr_i(rctx_waddr),
    .wdata_i(rctx_wdata),
    .re_i   (rctx_req_i),
    .raddr_i({rctx_q, rctx_place[RW-1:0]}),
    .rdata_o(rctx_o)
  );

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rctx_avail_q <= 1'b0;
    end else if (rctx_req_i) begin
      rctx_avail_q <= 32'(rctx_qpn_i) < NumQps && rctx_place != rctx_tail;
    end
  end
  assign rctx_avail_o = rctx_avail_q;

  // ---- outstanding WQE ring (RAM) ------------------------------------------------------------------
  logic              ent_we;
  logic [QW+OW-1:0]  ent_waddr;
  logic [EntW-1:0]   ent_wdata;
  logic              ent_re;
  logic [QW+OW-1:0]  ent_raddr;
  logic [EntW-1:0]   ent_rdata;

  nic_ram_1r1w #(
    .Width  (EntW),
    .Depth  (NumQps * OutDepth),
    .Forward(1'b1)
  ) u_out (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (ent_we),
    .waddr_i(ent_waddr),
    .wdata_i(ent_wdata),
    .re_i   (ent_re),
    .raddr_i(ent_raddr),
    .rdata_o(ent_rdata)
  );

  // A copy of the outstanding ring for the replay walk (the completer owns the other read port).
  logic              rpe_re;
  logic [EntW-1:0]   rpe_rdata;

  nic_ram_1r1w #(
    .Width  (EntW),
    .Depth  (NumQps * OutDepth),
    .Forward(1'b1)
  ) u_out_replay (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (ent_we),
    .waddr_i(ent_waddr),
    .wdata_i(ent_wdata),
    .re_i   (rpe_re),
    .raddr_i({qpn_q, rp_slot_q}),
    .rdata_o(rpe_rdata)
  );

  // ---- intake and packet generation -----------------------------------------------------------
  typedef enum logic [4:0] {
    S_IDLE,     // wait for a WQE
    S_SPACE,    // wait for room in the QP's outstanding ring
    S_CHECK,    // check the next SGE (privileged: the PD; else a translation request)
    S_CHECK_RSP,// the translation answer
    S_PKT,      // queue the next packet's descriptor (with its inline data) for the sender
    S_PIECE,    // plan the next piece of the packet's payload
    S_XL,       // translation request for the piece
    S_XL_RSP,   // its answer
    S_AR,       // DMA read request; the piece is queued for the sender
    S_RECORD,   // append the outstanding entry (a replay: go on with the next one)
    S_RP_READ,  // replay: read the next outstanding entry of the QP
    S_RP_ENT,   // replay: the entry: skip it (acknowledged, or never sent) or re-read its WQE
    S_RP_AR,    // replay: DMA read of the WQE's slot in the SQ ring
    S_RP_DATA,  // replay: the WQE's beats
    S_RP_CHECK  // replay: the WQE must still be the one recorded (type, PSN count)
  } state_e;

  state_e         state_q, state_d;
  logic [511:0]   wqe_q;
  logic           wqe_load;                 // wqe_q takes a new WQE
  logic           wqe_beat;                 // ... or a beat of a replayed one (rp_beat_q)
  logic [QW-1:0]  qpn_q, qpn_d;
  logic [15:0]    idx_q, idx_d;
  logic [31:0]    status_q, status_d;       // SUCCESS while the WQE is fine
  logic [1:0]     sge_q, sge_d;             // SGE being checked / gathered
  logic [31:0]    sum_q, sum_d;             // sum of the SGE lengths
  logic [31:0]    msg_off_q, msg_off_d;     // message bytes already packetised
  logic [12:0]    pkt_left_q, pkt_left_d;   // payload bytes of the current packet still to gather
  logic [23:0]    psn_q, psn_d;             // PSN of the current packet
  logic [31:0]    sge_off_q, sge_off_d;     // bytes of the current SGE already gathered
  logic [63:0]    phys_q, phys_d;           // the piece's logical address
  logic [12:0]    piece_q, piece_d;         // the piece's length
  logic           rp_q, rp_d;               // the WQE in hand is a replay (after an RNR NAK)
  logic [OW-1:0]  rp_slot_q, rp_slot_d;     // the outstanding entry being replayed
  logic [OW:0]    rp_left_q, rp_left_d;     // entries of the walk still to look at
  logic [23:0]    rp_last_q, rp_last_d;     // the replayed entry's last PSN, as recorded
  logic [15:0]    rp_type_q, rp_type_d;     // its completion type
  logic [2:0]     rp_beat_q, rp_beat_d;     // beat of the WQE re-read
  logic           rp_fail;                  // the replayed WQE fails: status_q from psn_q on
  logic           rnr_start;                // S_IDLE starts the replay of QP scan_q
  logic           chk_end;                  // every SGE is checked with this cycle's (below)

  // the WQE, seen both ways
  nic_pkg::wqe_send_t ws;
  nic_pkg::wqe_rdma_t wr;
  logic [7:0]         op;
  logic               is_write;
  logic               is_read;
  logic               is_rdma;               // Write or Read: the wqe_rdma layout
  logic [15:0]        wflags;
  logic [31:0]        msg_len;
  logic [1:0]         nsge;
  logic               inline_data;
  nic_pkg::sge_t      cur_sge;
  logic [QW-1:0]      wq;                    // the incoming WQE's QP

  assign ws = wqe_q;
  assign wr = wqe_q;
  always_comb begin
    op          = ws.opcode;
    is_write    = op == nic_pkg::WQE_OP_WRITE;
    is_read     = op == nic_pkg::WQE_OP_READ;
    is_rdma     = is_write || is_read;
    wflags      = ws.flags;
    msg_len     = ws.length;
    nsge        = ws.nsge[1:0];
    inline_data = (wflags & nic_pkg::FLAG_INLINE) != 16'd0;
    // the SGE, in the states that check or gather it (the translation port's fields matter only
    // with a request: nic_mr_table takes them with xl_valid)
    cur_sge     = '0;
    if (state_q == S_CHECK || state_q == S_CHECK_RSP || state_q == S_PIECE || state_q == S_XL) begin
      cur_sge = is_rdma ? ((sge_q == 2'd0) ? wr.sge0 : wr.sge1)
                        : ((sge_q == 2'd0) ? ws.sge0 : (sge_q == 2'd1) ? ws.sge1 : ws.sge2);
    end
    wq          = QW'(wqe_qpn_i);
  end

  // the current packet
  nic_roce_pkg::tx_pkt_t plan_pkt;
  logic [31:0]  pkt_len_full;
  logic [12:0]  pkt_len;
  logic         pkt_first, pkt_last;
  logic [7:0]   pkt_opcode;
  always_comb begin
    pkt_len_full = msg_len - msg_off_q;
    pkt_len      = nic_roce_pkg::pkt_len(pkt_len_full, log_mtu_q[qpn_q]);
    pkt_first    = msg_off_q == 32'd0;
    pkt_last     = 32'(pkt_len) == pkt_len_full;
    if (is_read) begin
      // one request without payload; the data comes back in the responses
      pkt_len  = '0;
      pkt_last = 1'b1;
    end
    if (is_read) begin
      pkt_opcode = nic_roce_pkg::OP_READ_REQUEST;
    end else if (is_write) begin
      pkt_opcode = (pkt_first && pkt_last) ? nic_roce_pkg::OP_WRITE_ONLY
                 : pkt_first ? nic_roce_pkg::OP_WRITE_FIRST
                 : pkt_last ? nic_roce_pkg::OP_WRITE_LAST : nic_roce_pkg::OP_WRITE_MIDDLE;
    end else if (op == nic_pkg::WQE_OP_SEND_INV) begin
      pkt_opcode = (pkt_first && pkt_last) ? nic_roce_pkg::OP_SEND_ONLY_INV
                 : pkt_first ? nic_roce_pkg::OP_SEND_FIRST
                 : pkt_last ? nic_roce_pkg::OP_SEND_LAST_INV : nic_roce_pkg::OP_SEND_MIDDLE;
    end else begin
      pkt_opcode = (pkt_first && pkt_last) ? nic_roce_pkg::OP_SEND_ONLY
                 : pkt_first ? nic_roce_pkg::OP_SEND_FIRST
                 : pkt_last ? nic_roce_pkg::OP_SEND_LAST : nic_roce_pkg::OP_SEND_MIDDLE;
    end

    // the descriptor, only in the cycles it can be queued (S_PKT)
    plan_pkt           = '0;
    if (state_q == S_PKT) begin
      plan_pkt.dst_mac   = peer_mac_q[qpn_q];
      plan_pkt.dst_ip    = peer_ip_q[qpn_q];
      plan_pkt.opcode    = pkt_opcode;
      plan_pkt.se        = pkt_last && !is_rdma && (wflags & nic_pkg::FLAG_SEND_AND_SOLICIT_EVENT) != 16'd0;
      plan_pkt.ackreq    = pkt_last;
      plan_pkt.dqpn      = peer_qpn_q[qpn_q];
      plan_pkt.sqpn      = nic_pkg::QPN_BASE + 24'(qpn_q);
      plan_pkt.psn       = psn_q;
      plan_pkt.reth.va   = wr.remote_va;
      plan_pkt.reth.rkey = wr.remote_token;
      plan_pkt.reth.dma_len = msg_len;
      plan_pkt.ieth_rkey = ws.inv_token;
      plan_pkt.pay_len   = pkt_len;
    end
  end

  // a Read's responses: ceil(length / MTU) packets, at least one (a zero-length Read has one)
  logic [23:0] rd_npkts;
  assign rd_npkts = nic_roce_pkg::read_npkts(msg_len, log_mtu_q[qpn_q]);

  // the intake QP's Reads not completed, its read limit
  logic [RW:0] in_rd_tail, in_rd_head, in_rd_out;
  logic [7:0]  in_ord;
  logic        in_fenced, in_ord_full;
  always_comb begin
    in_rd_tail  = rd_tail_v_q[qpn_q] ? rd_tail_q[qpn_q] : '0;
    in_rd_head  = rd_head_v_q[qpn_q] ? rd_head_q[qpn_q] : '0;
    in_rd_out   = in_rd_tail - in_rd_head;
    in_ord      = ord_q[qpn_q];
    in_fenced   = (wflags & nic_pkg::FLAG_READ_FENCE) != 16'd0 && in_rd_out != '0;
    in_ord_full = is_read && (32'(in_rd_out) >= 32'(in_ord) || 32'(in_rd_out) >= MaxReads);
  end

  // the next piece of a gather: inside the SGE, the packet, a page and one burst
  logic [63:0] piece_va;
  logic [31:0] sge_left;
  logic [12:0] piece_len;
  logic        priv_token;
  always_comb begin
    piece_va   = '0;
    sge_left   = '0;
    piece_len  = '0;
    if (state_q == S_PIECE || state_q == S_XL) begin
      piece_va   = cur_sge.address + 64'(sge_off_q);
      sge_left   = cur_sge.length - sge_off_q;
      piece_len  = pkt_left_q;
      if (sge_left < 32'(piece_len)) begin
        piece_len = 13'(sge_left);
      end
      piece_len = nic_dma_pkg::piece_clip(piece_len, piece_va[11:0], W8);
    end
    priv_token = cur_sge.token[31:24] == 8'hFF;
  end


  // ---- the sender's queues: the intake plans packets and pieces (translation, DMA read
  // request) ahead while earlier payload streams to nic_roce_tx --------------------------------
  // PktDepth packet descriptors (each with its inline data), PieceDepth pieces whose DMA reads
  // are in flight (nic_dma_rd returns one client's data in request order, so the pieces' data
  // arrives in queue order).
  localparam int PktDepth   = 16;
  localparam int PieceDepth = 16;
  localparam int PkW = $clog2(PktDepth);
  localparam int PcW = $clog2(PieceDepth);

  nic_roce_pkg::tx_pkt_t pq_pkt_mem [PktDepth];
  logic [383:0]          pq_inl_mem [PktDepth];
  logic                  pq_isinl_mem [PktDepth];
  logic [LW-1:0]         pc_lane_mem [PieceDepth];   // byte lane of the piece's first byte
  logic [12:0]           pc_len_mem  [PieceDepth];
  logic [PkW:0]          pq_wp_q, pq_wp_d, pq_rp_q, pq_rp_d;
  logic [PcW:0]          pc_wp_q, pc_wp_d, pc_rp_q, pc_rp_d;
  logic                  pq_push, pq_pop, pc_push, pc_pop;
  logic                  pq_full, pq_empty, pc_full, pc_empty;
  assign pq_full  = (pq_wp_q - pq_rp_q) == (PkW+1)'(PktDepth);
  assign pq_empty = pq_wp_q == pq_rp_q;
  assign pc_full  = (pc_wp_q - pc_rp_q) == (PcW+1)'(PieceDepth);
  assign pc_empty = pc_wp_q == pc_rp_q;

  always_ff @(posedge clk_i) begin
    if (pq_push) begin
      pq_pkt_mem[pq_wp_q[PkW-1:0]]   <= plan_pkt;
      // inline data (one packet of at most 48 bytes) from WQE byte 16 (a Send) or 24 (a Write)
      pq_inl_mem[pq_wp_q[PkW-1:0]]   <= is_rdma ? {64'd0, wqe_q[511:192]} : wqe_q[511:128];
      pq_isinl_mem[pq_wp_q[PkW-1:0]] <= inline_data && plan_pkt.pay_len != '0;
    end
    if (pc_push) begin
      pc_lane_mem[pc_wp_q[PcW-1:0]] <= phys_q[LW-1:0];
      pc_len_mem[pc_wp_q[PcW-1:0]]  <= piece_q;
    end
  end

  // The read data buffer: every DMA read of this client (payload pieces, a replay's WQE) reserves
  // its beats here when its request is issued, so R beats are always taken at once. The R channel
  // is shared with nic_responder's reads and returns data in request order across clients: a
  // client that held its data until nic_roce_tx took its packet could block the responder's data
  // behind it, and the responder's packet may be what nic_roce_tx waits for.
  localparam int DqDepth = 8192 / W8;            // beats: two pages of payload in flight
  logic                  dq_take;                 // the beat offered is consumed
  logic                  dq_v;                    // a beat is offered
  logic [DataWidth:0]    dq_rdata;
  logic [DataWidth-1:0]  dq_data;
  logic                  dq_last;
  logic                  dq_room;
  assign dq_data  = dq_rdata[DataWidth-1:0];
  assign dq_last  = dq_rdata[DataWidth];
  assign r_ready_o = 1'b1;                        // room was reserved

  nic_gather_buf #(
    .Width (DataWidth + 1),
    .Depth (DqDepth),
    .OutReg(1'b1)
  ) u_rdata (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .req_beats_i(9'(ar_len_o) + 9'd1),
    .room_o     (dq_room),
    .reserve_i  (ar_valid_o && ar_ready_i),
    .we_i       (r_valid_i),
    .wdata_i    ({r_last_i, r_data_i}),
    .valid_o    (dq_v),
    .data_o     (dq_rdata),
    .take_i     (dq_take)
  );

  // the sender: offers the oldest packet, then its payload (inline bytes, or the data of its
  // pieces as their DMA reads return)
  typedef enum logic [1:0] {
    O_IDLE,     // offer the next packet's descriptor
    O_DATA,     // its payload from the pieces' DMA data
    O_INLINE    // its payload from the inline bytes
  } ostate_e;

  ostate_e               ostate_q, ostate_d;
  logic [12:0]           o_left_q, o_left_d;     // payload bytes of the packet still to send
  logic [12:0]           o_pleft_q, o_pleft_d;   // bytes of the head piece still to send
  logic                  o_first_q, o_first_d;   // the next beat is the head piece's first
  nic_roce_pkg::tx_pkt_t o_pkt;
  logic [383:0]          o_inl, o_inl_shifted;
  logic                  o_isinl;
  logic [LW-1:0]         o_lane_head, lane0;
  logic [12:0]           o_len_head, o_cur_left;
  logic [NB-1:0]         chunk_n;
  logic [DataWidth-1:0]  chunk_data;
  logic                  o_beat;                 // a DMA beat goes to nic_roce_tx this cycle

  always_comb begin
    // the head descriptor while it is offered (nic_roce_tx looks at it only then) or its inline
    // bytes are sent
    o_pkt       = '0;
    if ((ostate_q == O_IDLE && !pq_empty) || ostate_q == O_INLINE) begin
      o_pkt = pq_pkt_mem[pq_rp_q[PkW-1:0]];
    end
    o_isinl     = pq_isinl_mem[pq_rp_q[PkW-1:0]];
    o_lane_head = pc_lane_mem[pc_rp_q[PcW-1:0]];
    o_len_head  = pc_len_mem[pc_rp_q[PcW-1:0]];
    lane0       = o_first_q ? o_lane_head : '0;
    o_cur_left  = o_first_q ? o_len_head : o_pleft_q;
    chunk_n     = NB'(W8) - NB'(lane0);
    if (13'(chunk_n) > o_cur_left) begin
      chunk_n = NB'(o_cur_left);
    end
    // the payload's bytes, only in the state that sends them (nic_roce_tx looks at them only
    // while it takes this packet's payload)
    chunk_data    = '0;
    o_inl         = '0;
    o_inl_shifted = '0;
    if (ostate_q == O_DATA) begin
      chunk_data = dq_data >> (8 * 32'(lane0));
    end
    if (ostate_q == O_INLINE) begin
      o_inl         = pq_inl_mem[pq_rp_q[PkW-1:0]];
      o_inl_shifted = o_inl >> (8 * 32'(6'(o_pkt.pay_len - o_left_q)));
    end
  end

  // The payload offered to nic_roce_tx, from the state and the data only (never from pl_ready_i,
  // which nic_roce_tx computes from it).
  always_comb begin
    pkt_valid_o = ostate_q == O_IDLE && !pq_empty;
    pkt_o       = o_pkt;
    pl_valid_o  = 1'b0;
    pl_data_o   = chunk_data;
    pl_nbytes_o = chunk_n;
    if (ostate_q == O_DATA) begin
      pl_valid_o = dq_v && !pc_empty;
    end else if (ostate_q == O_INLINE) begin
      pl_valid_o  = 1'b1;
      pl_data_o   = o_inl_shifted[DataWidth-1:0];
      pl_nbytes_o = (o_left_q >= 13'(W8)) ? NB'(W8) : NB'(o_left_q);
    end
  end
  assign o_beat = ostate_q == O_DATA && !pc_empty && dq_v && pl_ready_i;

  always_comb begin
    ostate_d  = ostate_q;
    o_left_d  = o_left_q;
    o_pleft_d = o_pleft_q;
    o_first_d = o_first_q;
    pq_pop    = 1'b0;
    pc_pop    = 1'b0;
    unique case (ostate_q)
      O_IDLE: begin
        if (!pq_empty && pkt_ready_i) begin
          o_left_d  = o_pkt.pay_len;
          o_first_d = 1'b1;
          if (o_pkt.pay_len == '0) begin
            pq_pop = 1'b1;
          end else begin
            ostate_d = o_isinl ? O_INLINE : O_DATA;
          end
        end
      end
      O_DATA: begin
        if (o_beat) begin
          o_first_d = 1'b0;
          o_pleft_d = o_cur_left - 13'(chunk_n);
          o_left_d  = o_left_q - 13'(chunk_n);
          if (dq_last) begin
            pc_pop    = 1'b1;
            o_first_d = 1'b1;
            if (o_left_q == 13'(chunk_n)) begin
              pq_pop   = 1'b1;
              ostate_d = O_IDLE;
            end
          end
        end
      end
      O_INLINE: begin
        if (pl_ready_i) begin
          o_left_d = o_left_q - 13'(pl_nbytes_o);
          if (o_left_q <= 13'(W8)) begin
            pq_pop   = 1'b1;
            ostate_d = O_IDLE;
          end
        end
      end
      default: begin
        ostate_d = O_IDLE;
      end
    endcase
    pq_wp_d = pq_wp_q + (PkW+1)'(pq_push);
    pq_rp_d = pq_rp_q + (PkW+1)'(pq_pop);
    pc_wp_d = pc_wp_q + (PcW+1)'(pc_push);
    pc_rp_d = pc_rp_q + (PcW+1)'(pc_pop);
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ostate_q <= O_IDLE;
      pq_wp_q  <= '0;
      pq_rp_q  <= '0;
      pc_wp_q  <= '0;
      pc_rp_q  <= '0;
    end else begin
      ostate_q <= ostate_d;
      pq_wp_q  <= pq_wp_d;
      pq_rp_q  <= pq_rp_d;
      pc_wp_q  <= pc_wp_d;
      pc_rp_q  <= pc_rp_d;
    end
  end

  always_ff @(posedge clk_i) begin
    o_left_q  <= o_left_d;
    o_pleft_q <= o_pleft_d;
    o_first_q <= o_first_d;
  end

  // outstanding ring of the intake QP
  logic [OW-1:0]  in_head;
  logic [OW:0]    in_count;
  assign in_head  = head_v_q[qpn_q] ? head_q[qpn_q] : '0;
  assign in_count = cnt_nz_q[qpn_q] ? count_q[qpn_q] : '0;

  // the entry the replay walk reads, and its WQE's slot in the SQ ring
  logic [15:0] rp_idx;
  logic [23:0] rp_psn;
  logic [15:0] rp_etype;
  logic        rp_silent, rp_pend;
  logic [31:0] rp_status;
  logic [15:0] rp_ring_slot;
  assign {rp_idx, rp_psn, rp_etype, rp_silent, rp_pend, rp_status} = rpe_rdata;
  assign rp_ring_slot = idx_q & 16'((17'd1 << sq_ld_q[qpn_q]) - 17'd1);

  logic intake_append;          // S_RECORD appends this cycle
  logic rd_issue;               // a Read's request is queued for nic_roce_tx this cycle
  logic [NumQps-1:0] busy_intake;

  always_comb begin
    state_d      = state_q;
    wqe_load     = 1'b0;
    wqe_beat     = 1'b0;
    qpn_d        = qpn_q;
    idx_d        = idx_q;
    status_d     = status_q;
    sge_d        = sge_q;
    sum_d        = sum_q;
    msg_off_d    = msg_off_q;
    pkt_left_d   = pkt_left_q;
    psn_d        = psn_q;
    sge_off_d    = sge_off_q;
    phys_d       = phys_q;
    piece_d      = piece_q;
    rp_d         = rp_q;
    rp_slot_d    = rp_slot_q;
    rp_left_d    = rp_left_q;
    rp_last_d    = rp_last_q;
    rp_type_d    = rp_type_q;
    rp_beat_d    = rp_beat_q;
    rp_fail      = 1'b0;
    rnr_start    = 1'b0;
    rpe_re       = 1'b0;
    intake_append = 1'b0;
    chk_end      = 1'b0;

    wqe_ready_o  = 1'b0;
    xl_req_o     = 1'b0;
    xl_token_o   = cur_sge.token;
    xl_va_o      = (state_q == S_CHECK) ? cur_sge.address : piece_va;
    xl_len_o     = (state_q == S_CHECK) ? cur_sge.length : 32'(piece_q);
    xl_pd_o      = pd_q[qpn_q];
    // a Read's SGEs are its sink: they need local write; a gather only reads
    xl_access_o  = is_read ? nic_pkg::FLAG_ALLOW_LOCAL_WRITE : 16'd0;
    rd_issue     = 1'b0;
    ar_valid_o   = 1'b0;
    ar_addr_o    = {phys_q[63:LW], {LW{1'b0}}};
    ar_len_o     = nic_dma_pkg::burst_len(12'(phys_q[LW-1:0]), piece_q, W8);
    if (state_q == S_RP_AR) begin
      ar_addr_o = {sq_base_q[qpn_q], 12'd0} + {42'd0, rp_ring_slot, 6'd0};
      ar_len_o  = 8'(WqeBeats - 1);
    end
    dq_take      = o_beat;
    pq_push      = 1'b0;
    pc_push      = 1'b0;

    unique case (state_q)
      S_IDLE: begin
        if (rnr_go) begin
          // a QP's RNR timer expired: send its outstanding WQEs again from the NAKed PSN on
          rnr_start = 1'b1;
          rp_d      = 1'b1;
          qpn_d     = scan_q;
          rp_slot_d = head_v_q[scan_q] ? head_q[scan_q] : '0;
          rp_left_d = cnt_nz_q[scan_q] ? count_q[scan_q] : '0;
          psn_d     = rnr_psn_q[scan_q];
          state_d   = S_RP_READ;
        end else begin
          // a new WQE of a QP waiting for its RNR timer waits too (it holds the intake)
          wqe_ready_o = !rnr_wait_q[wq];
          if (wqe_valid_i && !rnr_wait_q[wq]) begin
            wqe_load  = 1'b1;
            qpn_d     = wq;
            idx_d     = wqe_idx_i;
            rp_d      = 1'b0;
            status_d  = nic_pkg::STATUS_SUCCESS;
            sge_d     = '0;
            sum_d     = '0;
            msg_off_d = '0;
            state_d   = S_SPACE;
          end
        end
      end
      S_RP_READ: begin
        // stop when the walk is done, the QP left RTS, or another RNR NAK re-armed its timer
        if (rp_left_q == '0 || rnr_wait_q[qpn_q]
            || qp_state_i[2*qpn_q +: 2] != nic_pkg::QP_STATE_RTS) begin
          rp_d    = 1'b0;
          state_d = S_IDLE;
        end else begin
          rpe_re  = 1'b1;
          state_d = S_RP_ENT;
        end
      end
      S_RP_ENT: begin
        if (!rp_pend || nic_roce_pkg::psn_le(rp_psn, psn_q - 24'd1)) begin
          // acknowledged by the NAK (the completer pops it), or it never went out
          rp_slot_d = rp_slot_q + OW'(1);
          rp_left_d = rp_left_q - (OW+1)'(1);
          state_d   = S_RP_READ;
        end else begin
          idx_d     = rp_idx;
          rp_last_d = rp_psn;
          rp_type_d = rp_etype;
          state_d   = S_RP_AR;
        end
      end
      S_RP_AR: begin
        // the WQE's data must not meet payload data on the read client: no piece in flight
        ar_valid_o = pc_empty && dq_room;
        if (pc_empty && dq_room && ar_ready_i) begin
          rp_beat_d = '0;
          state_d   = S_RP_DATA;
        end
      end
      S_RP_DATA: begin
        dq_take = dq_v;
        if (dq_v) begin
          wqe_beat  = 1'b1;
          rp_beat_d = rp_beat_q + 3'd1;
          if (dq_last) begin
            status_d  = nic_pkg::STATUS_SUCCESS;
            sge_d     = '0;
            sum_d     = '0;
            msg_off_d = '0;
            state_d   = S_RP_CHECK;
          end
        end
      end
      S_RP_CHECK: begin
        // the slot may not change before the WQE completes; one that did fails here, before
        // anything of it is sent again
        if (rec_type != rp_type_q || psn_q + rd_npkts - 24'd1 != rp_last_q) begin
          status_d = nic_pkg::STATUS_INVALID_PARAMETER;
          state_d  = S_RECORD;
        end else begin
          state_d = S_SPACE;
        end
      end
      S_SPACE: begin
        // room in the ring; READ_FENCE: no earlier Read outstanding; a Read: fewer than ORD
        // outstanding (a QP connected with ORD 0 takes no Read: it fails below, never waits).
        // A replayed WQE has its entry, its PSNs and its read context already.
        if (rp_q || (32'(in_count) < OutDepth && !in_fenced && !(in_ord_full && in_ord != 8'd0))) begin
          if (!rp_q) begin
            psn_d = next_psn_v_q[qpn_q] ? next_psn_q[qpn_q] : '0;
          end
          if (qp_state_i[2*qpn_q +: 2] != nic_pkg::QP_STATE_RTS) begin
            status_d = nic_pkg::STATUS_CANCELLED;
            state_d  = S_RECORD;
          end else if ((op != nic_pkg::WQE_OP_SEND && op != nic_pkg::WQE_OP_SEND_INV
                        && !is_rdma) || (is_read && (inline_data || in_ord == 8'd0))) begin
            status_d = nic_pkg::STATUS_INVALID_PARAMETER;
            state_d  = S_RECORD;
          end else if (inline_data) begin
            // INLINE: at most 48 (Send) / 40 (Write) bytes, in the WQE
            status_d = (msg_len > (is_write ? 32'd40 : 32'd48)) ? nic_pkg::STATUS_INVALID_PARAMETER
                                                               : nic_pkg::STATUS_SUCCESS;
            state_d  = (status_d == nic_pkg::STATUS_SUCCESS) ? S_PKT : S_RECORD;
          end else if (32'(nsge) > (is_rdma ? 32'd2 : 32'd3) || ws.nsge > 8'd3) begin
            status_d = nic_pkg::STATUS_INVALID_PARAMETER;
            state_d  = S_RECORD;
          end else begin
            state_d = S_CHECK;
          end
        end
      end
      S_CHECK: begin
        if (sge_q == nsge) begin
          chk_end = 1'b1;
        end else if (cur_sge.length == 32'd0) begin
          sge_d = sge_q + 2'd1;
        end else if (priv_token) begin
          // a logical address under the PD's privileged token: local access, same PD only
          if (cur_sge.token[23:8] != pd_q[qpn_q]) begin
            status_d = nic_pkg::STATUS_ACCESS_VIOLATION;
            state_d  = S_RECORD;
          end else begin
            sum_d = sum_q + cur_sge.length;
            sge_d = sge_q + 2'd1;
          end
        end else begin
          xl_req_o = 1'b1;
          if (xl_gnt_i) begin
            state_d = S_CHECK_RSP;
          end
        end
      end
      S_CHECK_RSP: begin
        if (xl_rsp_valid_i) begin
          if (xl_status_i != nic_pkg::STATUS_SUCCESS) begin
            status_d = nic_pkg::STATUS_ACCESS_VIOLATION;
            state_d  = S_RECORD;
          end else begin
            sum_d   = sum_q + cur_sge.length;
            sge_d   = sge_q + 2'd1;
            state_d = S_CHECK;
            chk_end = 3'(sge_q) + 3'd1 == 3'(nsge);   // the last one: no S_CHECK to see it
            // the range check translated the SGE's first byte: SGE 0's is where the payload's
            // first piece starts, which then needs no translation of its own (S_PIECE)
            if (sge_q == 2'd0) begin
              phys_d = {xl_pfn_i, xl_page_off_i};
            end
          end
        end
      end
      S_PKT: begin
        if (!pq_full) begin
          pq_push    = 1'b1;
          rd_issue   = is_read && !rp_q;  // its context, for the responses (a replay has it)
          pkt_left_d = inline_data ? '0 : pkt_len;   // inline bytes travel with the descriptor
          state_d    = S_PIECE;
        end
      end
      S_PIECE: begin
        if (pkt_left_q == '0) begin
          // the packet is out
          msg_off_d = msg_off_q + 32'(pkt_len);
          psn_d     = psn_q + (is_read ? rd_npkts : 24'd1);
          state_d   = pkt_last ? S_RECORD : S_PKT;
        end else if (sge_off_q == cur_sge.length) begin
          sge_d     = sge_q + 2'd1;
          sge_off_d = '0;
        end else begin
          piece_d      = piece_len;
          if (priv_token) begin
            phys_d  = piece_va;
            state_d = S_AR;
          end else if (sge_q == 2'd0 && sge_off_q == '0) begin
            // the message's first piece, in an SGE the range check translated (a zero-length
            // one is skipped above, a privileged one is not translated): phys_q holds that
            // translation of this very address
            state_d = S_AR;
          end else begin
            state_d = S_XL;
          end
        end
      end
      S_XL: begin
        xl_req_o = 1'b1;
        if (xl_gnt_i) begin
          state_d = S_XL_RSP;
        end
      end
      S_XL_RSP: begin
        if (xl_rsp_valid_i) begin
          phys_d  = {xl_pfn_i, xl_page_off_i};
          state_d = S_AR;
        end
      end
      S_AR: begin
        // a read in flight per queued piece: its data goes out in order behind the others
        ar_valid_o = !pc_full && dq_room;
        if (!pc_full && dq_room && ar_ready_i) begin
          pc_push    = 1'b1;
          pkt_left_d = pkt_left_q - piece_q;
          sge_off_d  = sge_off_q + 32'(piece_q);
          state_d    = S_PIECE;
          if (pkt_left_q == piece_q) begin
            // the packet's last piece: the packet is out (S_PIECE's first case, a cycle sooner)
            msg_off_d = msg_off_q + 32'(pkt_len);
            psn_d     = psn_q + (is_read ? rd_npkts : 24'd1);
            state_d   = pkt_last ? S_RECORD : S_PKT;
          end
        end
      end
      S_RECORD: begin
        if (!rp_q) begin
          intake_append = 1'b1;
          state_d       = S_IDLE;
        end else if (status_q != nic_pkg::STATUS_SUCCESS) begin
          // the replayed WQE failed its checks: it completes with that status (as a NAK of its
          // first PSN would), the QP goes to error, the walk ends
          rp_fail = 1'b1;
          rp_d    = 1'b0;
          state_d = S_IDLE;
        end else begin
          rp_slot_d = rp_slot_q + OW'(1);
          rp_left_d = rp_left_q - (OW+1)'(1);
          state_d   = S_RP_READ;
        end
      end
      default: begin
        state_d = S_IDLE;
      end
    endcase
    // the SGE check is over (in S_CHECK, or as the last SGE's translation answers): the lengths,
    // sum_d with this cycle's SGE, must add up to the message
    if (chk_end) begin
      if (sum_d != msg_len) begin
        status_d = nic_pkg::STATUS_INVALID_PARAMETER;
        state_d  = S_RECORD;
      end else begin
        sge_d     = '0;
        sge_off_d = '0;
        state_d   = S_PKT;
      end
    end
  end


  // the entry S_RECORD appends: a WQE that went out waits for its ACK (pend)
  logic       rec_pend;
  logic [15:0] rec_type;
  assign rec_pend = status_q == nic_pkg::STATUS_SUCCESS;
  assign rec_type = is_read ? nic_pkg::NDK_OP_TYPE_READ
                  : is_write ? nic_pkg::NDK_OP_TYPE_WRITE : nic_pkg::NDK_OP_TYPE_SEND;

  // the read context of the Read whose request goes out now
  always_comb begin
    rctx_we           = rd_issue;
    rctx_waddr        = {qpn_q, in_rd_tail[RW-1:0]};
    rctx_wdata        = '0;
    if (rd_issue) begin
      rctx_wdata.psn    = psn_q;
      rctx_wdata.length = msg_len;
      rctx_wdata.nsge   = nsge;
      rctx_wdata.sge0   = wr.sge0;
      rctx_wdata.sge1   = wr.sge1;
    end
  end

  assign busy_intake = (state_q != S_IDLE) ? NumQps'(1) << qpn_q : '0;

  // ---- completer --------------------------------------------------------------------------------
  typedef enum logic [1:0] {
    C_IDLE,   // pick a QP with work
    C_READ,   // its oldest entry is being read
    C_DECIDE, // decide and, if it completes, offer the CQE
    C_CPL     // CQE offered
  } cstate_e;

  cstate_e        cstate_q, cstate_d;
  logic [QW-1:0]  cq_q, cq_d;                 // the QP being completed
  nic_pkg::cqe_t  cqe_q, cqe_d;
  logic           cqe_load;                   // cqe_q takes cqe_d
  logic           pick_found;
  logic [QW-1:0]  pick_q;
  logic           c_pop;                      // the head entry is done this cycle
  logic           c_nak_used;                 // ... by its NAK
  logic           c_no_work;                  // nothing completable: clear work

  always_comb begin
    pick_found = 1'b0;
    pick_q     = '0;
    if (cstate_q == C_IDLE && work_q != '0) begin
      for (int q = 0; q < NumQps; q++) begin
        if (!pick_found && work_q[q]) begin
          pick_found = 1'b1;
          pick_q     = QW'(q);
        end
      end
    end
  end

  // the head entry, as read
  logic [15:0] e_idx;
  logic [23:0] e_psn;
  logic [15:0] e_type;
  logic        e_silent, e_pend;
  logic [31:0] e_status;
  assign {e_idx, e_psn, e_type, e_silent, e_pend, e_status} = ent_rdata;

  logic [31:0] c_status;
  logic        c_done;
  logic [OW:0]   c_count;
  logic [OW-1:0] c_head, pick_head;
  always_comb begin
    c_count  = cnt_nz_q[cq_q] ? count_q[cq_q] : '0;
    c_head   = head_v_q[cq_q] ? head_q[cq_q] : '0;
    pick_head = head_v_q[pick_q] ? head_q[pick_q] : '0;
    c_done   = 1'b0;
    c_status = nic_pkg::STATUS_SUCCESS;
    c_nak_used = 1'b0;
    if (!e_pend) begin
      c_done   = 1'b1;
      c_status = e_status;
    end else if (acked_v_q[cq_q] && nic_roce_pkg::psn_le(e_psn, acked_psn_q[cq_q])) begin
      c_done   = 1'b1;
    end else if (nak_v_q[cq_q] && nic_roce_pkg::psn_le(nak_psn_q[cq_q], e_psn)) begin
      c_done     = 1'b1;
      c_status   = nak_status_q[cq_q];
      c_nak_used = 1'b1;
    end else if (qp_state_i[2*cq_q +: 2] == nic_pkg::QP_STATE_ERROR) begin
      c_done   = 1'b1;
      c_status = nic_pkg::STATUS_CANCELLED;
    end
  end

  always_comb begin
    cstate_d  = cstate_q;
    cq_d      = cq_q;
    cqe_d     = '0;
    cqe_load  = 1'b0;
    c_pop     = 1'b0;
    c_no_work = 1'b0;
    ent_re    = 1'b0;
    ent_raddr = {cq_q, c_head};
    unique case (cstate_q)
      C_IDLE: begin
        if (pick_found) begin
          cq_d      = pick_q;
          ent_re    = 1'b1;
          ent_raddr = {pick_q, pick_head};
          cstate_d  = C_READ;
        end
      end
      C_READ: begin
        cstate_d = C_DECIDE;     // the RAM answers now
      end
      C_DECIDE: begin
        if (c_count == '0 || !c_done) begin
          c_no_work = 1'b1;
          cstate_d  = C_IDLE;
        end else begin
          cqe_load        = 1'b1;
          cqe_d.status    = c_status;
          cqe_d.wqe_index = e_idx;
          cqe_d.qpn       = 16'(cq_q);
          cqe_d.op_type   = e_type;
          if (c_status == nic_pkg::STATUS_SUCCESS && e_silent) begin
            c_pop    = 1'b1;                 // silent success: the slot frees without a CQE
            cstate_d = C_IDLE;
          end else begin
            cstate_d = C_CPL;
          end
        end
      end
      C_CPL: begin
        if (cpl_ready_i) begin
          c_pop    = 1'b1;
          cstate_d = C_IDLE;
        end
      end
      default: begin
        cstate_d = C_IDLE;
      end
    endcase
  end

  assign cpl_valid_o = cstate_q == C_CPL;
  assign cpl_cqn_o   = sq_cqn_q[cq_q];
  assign cpl_cqe_o   = cqe_q;

  // A NAKed WQE, or one that failed its checks, moves the QP to ERROR when it completes.
  logic c_err_pop;
  assign c_err_pop    = c_pop && cqe_q.status != nic_pkg::STATUS_SUCCESS
                        && cqe_q.status != nic_pkg::STATUS_CANCELLED;
  assign qp_err_o     = c_err_pop;
  assign qp_err_qpn_o = 8'(cq_q);

  // ---- per-QP bookkeeping ---------------------------------------------------------------------
  logic [2:0]    ack_kind;
  logic [QW-1:0] ack_q;
  logic          ack_rnr_same;   // the NAK names the PSN of the QP's open RNR episode
  assign ack_kind     = ack_syndrome_i[7:5];
  assign ack_q        = ack_qpn_i[QW-1:0];
  assign ack_rnr_same = rnr_open_q[ack_q] && rnr_psn_q[ack_q] == ack_psn_i;

  // the read ring counters an event advances
  logic          rdone_take;
  logic [QW-1:0] rdone_q;
  logic [RW:0]   rdone_place, in_rd_head_c;
  assign rdone_take   = rdone_i && 32'(rdone_qpn_i) < NumQps;
  assign rdone_q      = QW'(rdone_qpn_i);
  assign rdone_place  = rd_place_v_q[rdone_q] ? rd_place_q[rdone_q] : '0;
  assign in_rd_head_c = rd_head_v_q[cq_q] ? rd_head_q[cq_q] : '0;

  // the clock runs only while some QP waits (or one starts to): due times are relative to it,
  // and a tick that finds no waiting QP then changes no state, so a quiescent NIC stays at its
  // fixed point through it (docs/sim-speed.md)
  assign now_us_d = now_us_q + ((us_tick_i && (rnr_wait_q != '0 || rnr_arm)) ? 24'd1 : 24'd0);

  // the RNR timers: one QP looked at a cycle while any waits; the scan stays on an expired one
  // until it replays
  logic [23:0] scan_due;
  always_comb begin
    scan_due = rnr_due_q[scan_q];
    rnr_go   = rnr_wait_q[scan_q] && ((now_us_q - scan_due) & 24'h800000) == 24'd0;
    scan_d   = scan_q;
    // it moves only while some QP waits: an idle requester stays at a fixed point, which the
    // simulation's quiescence skip relies on (docs/sim-speed.md)
    if (!rnr_go && rnr_wait_q != '0) begin
      scan_d = (32'(scan_q) == NumQps - 1) ? '0 : scan_q + QW'(1);
    end
  end

  // The acknowledgement of this cycle, by kind: ACK = everything up to the PSN; NAK = up to the
  // one before, that one failed; RNR NAK = up to the one before, that one is sent again after the
  // NAK's timer (RnrRetries times, then it fails IO_TIMEOUT); a PSN-sequence NAK of the open RNR
  // PSN = up to the one before (the replay covers it).
  logic        ack_take, ack_ack, ack_rnr, ack_nak;
  logic [23:0] ack_upto;        // the PSN acknowledged
  logic [31:0] ack_nak_status;
  always_comb begin
    ack_take = ack_valid_i && 32'(ack_qpn_i) < NumQps;
    ack_ack  = ack_kind == 3'b000;
    ack_rnr  = ack_kind == 3'b001 && !(ack_rnr_same && 32'(rnr_cnt_q[ack_q]) >= RnrRetries);
    ack_nak  = !ack_ack && !ack_rnr
               && !(ack_syndrome_i == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR && ack_rnr_same);
    ack_upto = ack_ack ? ack_psn_i : ack_psn_i - 24'd1;
    ack_nak_status =
        (ack_kind == 3'b001) ? nic_pkg::STATUS_IO_TIMEOUT
      : (ack_syndrome_i == nic_roce_pkg::AETH_NAK_REMOTE_ACCESS) ? nic_pkg::STATUS_ACCESS_VIOLATION
      : nic_pkg::STATUS_REMOTE_ERROR;
    rnr_arm  = ack_take && ack_rnr;
  end

  // the counts of the QPs an append (intake) and a pop (completer) touch, the same QP when both
  // name it
  logic [OW:0] app_count, pop_count;
  logic        pop_rd;          // the popped entry is a Read that went out
  assign app_count = in_count + (OW+1)'(1) - (OW+1)'(c_pop && cq_q == qpn_q);
  assign pop_count = c_count - (OW+1)'(1) + (OW+1)'(intake_append && qpn_q == cq_q);
  assign pop_rd    = c_pop && e_type == nic_pkg::NDK_OP_TYPE_READ && e_pend;

  // the QPs in ERROR
  logic [NumQps-1:0] qp_error;
  always_comb begin
    for (int q = 0; q < NumQps; q++) begin
      qp_error[q] = qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_ERROR;
    end
  end

  // The tables, written at the QP each event names; of two writes to one entry in a cycle the
  // later one wins (QP_CONNECT / QP_CREATE / QP_DESTROY last).
  always_ff @(posedge clk_i) begin
    // a finished WQE: its PSNs are used up, its entry appended
    if (intake_append) begin
      next_psn_q[qpn_q] <= psn_q;
      count_q[qpn_q]    <= app_count;
    end
    if (cmd_connect) begin
      next_psn_q[cmd_qpn] <= cmd_args_i[151:128];
    end
    // the completer
    if (c_pop) begin
      head_q[cq_q]  <= c_head + OW'(1);
      count_q[cq_q] <= pop_count;
    end
    if (pop_rd) begin
      // a Read that went out is complete (its entry is still the RAM's output)
      rd_head_q[cq_q] <= in_rd_head_c + (RW+1)'(1);
    end
    if (rd_issue) begin
      rd_tail_q[qpn_q] <= in_rd_tail + (RW+1)'(1);
    end
    if (rdone_take) begin
      rd_place_q[rdone_q] <= rdone_place + (RW+1)'(1);
    end
    // a replayed WQE that failed: its entry (the first one not acknowledged) completes with the
    // status, as for a NAK of its first PSN
    if (rp_fail) begin
      nak_psn_q[qpn_q]    <= psn_q;
      nak_status_q[qpn_q] <= status_q;
    end
    if (ack_take) begin
      acked_psn_q[ack_q] <= ack_upto;
      if (ack_nak) begin
        nak_psn_q[ack_q]    <= ack_psn_i;
        nak_status_q[ack_q] <= ack_nak_status;
      end
      if (ack_rnr) begin
        rnr_psn_q[ack_q] <= ack_psn_i;
        rnr_cnt_q[ack_q] <= ack_rnr_same ? rnr_cnt_q[ack_q] + 3'd1 : 3'd1;
      end
    end
  end

  always_comb begin
    next_psn_v_d = next_psn_v_q;
    acked_v_d    = acked_v_q;
    nak_v_d      = nak_v_q;
    head_v_d     = head_v_q;
    cnt_nz_d     = cnt_nz_q;
    rd_tail_v_d  = rd_tail_v_q;
    rd_place_v_d = rd_place_v_q;
    rd_head_v_d  = rd_head_v_q;
    work_d       = work_q;
    rnr_wait_d   = rnr_wait_q;
    rnr_open_d   = rnr_open_q;
    if (rd_issue) begin
      rd_tail_v_d[qpn_q] = 1'b1;
    end
    if (rdone_take) begin
      rd_place_v_d[rdone_q] = 1'b1;
    end
    if (rnr_start) begin
      rnr_wait_d[scan_q] = 1'b0;
    end
    if (intake_append) begin
      next_psn_v_d[qpn_q] = 1'b1;
      cnt_nz_d[qpn_q]     = app_count != '0;
    end
    // the completer
    if (c_pop) begin
      if (pop_rd) begin
        rd_head_v_d[cq_q] = 1'b1;
      end
      head_v_d[cq_q] = 1'b1;
      cnt_nz_d[cq_q] = pop_count != '0;
      if (c_nak_used) begin
        nak_v_d[cq_q] = 1'b0;
      end
    end
    if (c_no_work) begin
      work_d[cq_q] = 1'b0;
    end
    // after the completer's clear, so that an entry appended in the same cycle is not lost:
    // one decided at intake completes at once, and so does one whose NAK came while its
    // later packets were still being sent (the NAK waits in nak_v for its entry)
    if (intake_append && (!rec_pend || nak_v_q[qpn_q])) begin
      work_d[qpn_q] = 1'b1;
    end
    if (rp_fail) begin
      nak_v_d[qpn_q] = 1'b1;
      work_d[qpn_q]  = 1'b1;
    end
    // a QP in ERROR with entries has work (they complete CANCELLED)
    work_d = work_d | (qp_error & cnt_nz_q
                       & ~(c_no_work ? NumQps'(1) << cq_q : NumQps'(0)));
    if (ack_take) begin
      acked_v_d[ack_q] = 1'b1;
      if (ack_ack && rnr_open_q[ack_q] && nic_roce_pkg::psn_le(rnr_psn_q[ack_q], ack_psn_i)) begin
        rnr_open_d[ack_q] = 1'b0;      // the retried message got through
      end
      if (ack_rnr) begin
        rnr_wait_d[ack_q] = 1'b1;
        rnr_open_d[ack_q] = 1'b1;
      end
      if (ack_nak) begin
        nak_v_d[ack_q] = 1'b1;
      end
      work_d[ack_q] = 1'b1;
    end
    // QP_CONNECT starts the PSNs; QP_CREATE / QP_DESTROY forget everything
    if (cmd_connect) begin
      next_psn_v_d[cmd_qpn] = 1'b1;
      acked_v_d[cmd_qpn]    = 1'b0;
      nak_v_d[cmd_qpn]      = 1'b0;
    end
    if (cmd_connect || cmd_reset) begin
      rnr_wait_d[cmd_qpn]   = 1'b0;
      rnr_open_d[cmd_qpn]   = 1'b0;
      rd_tail_v_d[cmd_qpn]  = 1'b0;
      rd_place_v_d[cmd_qpn] = 1'b0;
      rd_head_v_d[cmd_qpn]  = 1'b0;
    end
    if (cmd_reset) begin
      head_v_d[cmd_qpn]  = 1'b0;
      cnt_nz_d[cmd_qpn]  = 1'b0;
      acked_v_d[cmd_qpn] = 1'b0;
      nak_v_d[cmd_qpn]   = 1'b0;
      work_d[cmd_qpn]    = 1'b0;
    end
  end

  assign busy_o = busy_intake | cnt_nz_q;

  // the entry S_RECORD appends, behind the QP's outstanding ones
  assign ent_we    = intake_append;
  assign ent_waddr = {qpn_q, in_head + OW'(in_count)};
  assign ent_wdata = {idx_q, psn_q - 24'd1, rec_type,
                      (wflags & nic_pkg::FLAG_SILENT_SUCCESS) != 16'd0, rec_pend, status_q};

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q      <= S_IDLE;
      cstate_q     <= C_IDLE;
      next_psn_v_q <= '0;
      acked_v_q    <= '0;
      nak_v_q      <= '0;
      head_v_q     <= '0;
      cnt_nz_q     <= '0;
      work_q       <= '0;
      rd_tail_v_q  <= '0;
      rd_place_v_q <= '0;
      rd_head_v_q  <= '0;
      qpn_q        <= '0;
      cq_q         <= '0;
      now_us_q     <= '0;
      rnr_wait_q   <= '0;
      rnr_open_q   <= '0;
      scan_q       <= '0;
      rp_q         <= 1'b0;
    end else begin
      state_q      <= state_d;
      cstate_q     <= cstate_d;
      next_psn_v_q <= next_psn_v_d;
      acked_v_q    <= acked_v_d;
      nak_v_q      <= nak_v_d;
      head_v_q     <= head_v_d;
      cnt_nz_q     <= cnt_nz_d;
      work_q       <= work_d;
      rd_tail_v_q  <= rd_tail_v_d;
      rd_place_v_q <= rd_place_v_d;
      rd_head_v_q  <= rd_head_v_d;
      qpn_q        <= qpn_d;
      cq_q         <= cq_d;
      now_us_q     <= now_us_d;
      rnr_wait_q   <= rnr_wait_d;
      rnr_open_q   <= rnr_open_d;
      scan_q       <= scan_d;
      rp_q         <= rp_d;
    end
  end

  // Working registers of the WQE in hand: loaded before use.
  always_ff @(posedge clk_i) begin
    if (wqe_load) begin
      wqe_q <= wqe_data_i;
    end
    if (wqe_beat) begin
      wqe_q[DataWidth*32'(rp_beat_q) +: DataWidth] <= dq_data;
    end
    idx_q        <= idx_d;
    status_q     <= status_d;
    sge_q        <= sge_d;
    sum_q        <= sum_d;
    msg_off_q    <= msg_off_d;
    pkt_left_q   <= pkt_left_d;
    psn_q        <= psn_d;
    sge_off_q    <= sge_off_d;
    phys_q       <= phys_d;
    piece_q      <= piece_d;
    if (cqe_load) begin
      cqe_q <= cqe_d;
    end
    rp_slot_q    <= rp_slot_d;
    rp_left_q    <= rp_left_d;
    rp_last_q    <= rp_last_d;
    rp_type_q    <= rp_type_d;
    rp_beat_q    <= rp_beat_d;
  end

  // A DMA error on a payload read is not reported yet (the data goes out as read).
  logic unused_rresp;
  assign unused_rresp = ^r_resp_i;
  logic unused_args;
  assign unused_args = ^{cmd_args_i[255:208], cmd_args_i[199:196], cmd_args_i[191:152], cmd_args_i[127:120],
                         rp_silent, rp_status, wr.rsvd_56, ws.index, wr.opcode, wr.nsge, wr.flags, wr.index,
                         wr.rsvd_6, wr.length, ws.rsvd_6,
                         wqe_qpn_i, o_inl_shifted[383:DataWidth]};

`ifndef SYNTHESIS
  // the package's width constant matches the struct (Verilator checks it; Yosys cannot)
  if (nic_roce_pkg::READ_CTX_BITS != $bits(nic_roce_pkg::read_ctx_t)) begin : gen_bad_ctx_bits
    $fatal(1, "nic_requester: nic_roce_pkg::READ_CTX_BITS differs from read_ctx_t's width");
  end
  // The completion offered and not taken, kept only in the cycles that happens (a_cpl_stable).
  logic          chk_cpl_held_q;
  nic_pkg::cqe_t chk_cpl_cqe_q;
  always_ff @(posedge clk_i) begin
    chk_cpl_held_q <= !rst_i && cpl_valid_o && !cpl_ready_i;
    if (cpl_valid_o && !cpl_ready_i) begin
      chk_cpl_cqe_q <= cpl_cqe_o;
    end
  end

  // Immediate assertions (operands read before the edge, consequents only when they apply).
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      a_count_in_range: assert (32'(in_count) <= OutDepth);
      // the non-empty bit of a QP agrees with its count, where the count is used (the intake's
      // room check, the completer's decision)
      if (state_q == S_SPACE) begin
        a_count_nz_intake: assert (!cnt_nz_q[qpn_q] || count_q[qpn_q] != '0);
      end
      if (cstate_q == C_DECIDE) begin
        a_count_nz_completer: assert (!cnt_nz_q[cq_q] || count_q[cq_q] != '0);
      end
      a_reads_in_range: assert (32'(in_rd_out) <= MaxReads);
      if (state_q == S_AR) begin
        a_piece_nonempty: assert (piece_q != '0 && 32'(ar_len_o) < 256);
        a_piece_in_page: assert (32'(phys_q[11:0]) + 32'(piece_q) <= 4096);
      end
      // an offered completion stays offered, unchanged, until taken
      if (chk_cpl_held_q) begin
        a_cpl_stable: assert (cpl_valid_o && cpl_cqe_o == chk_cpl_cqe_q);
      end
      // a replayed WQE takes exactly the PSNs it took the first time
      if (state_q == S_RECORD && rp_q && status_q == nic_pkg::STATUS_SUCCESS) begin
        a_replay_psns_as_recorded: assert (psn_q - 24'd1 == rp_last_q);
      end
      // a piece's beats: each carries bytes; its last beat (r_last) ends the piece exactly
      if (o_beat) begin
        a_chunk_nonempty: assert (chunk_n != '0 && 13'(chunk_n) <= o_cur_left);
        a_piece_ends_on_rlast: assert (dq_last == (o_cur_left == 13'(chunk_n)));
        a_packet_ends_on_a_piece: assert (o_left_q != 13'(chunk_n) || dq_last);
      end
      // the WQE re-read is one slot: WqeBeats beats, the last one marked
      if (state_q == S_RP_DATA && dq_v) begin
        a_replay_wqe_beats: assert (32'(rp_beat_q) < WqeBeats
                                    && dq_last == (32'(rp_beat_q) == WqeBeats - 1));
      end
    end
  end
`endif

endmodule
