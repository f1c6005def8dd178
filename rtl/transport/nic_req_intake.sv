`default_nettype none
// nic_req_intake: the requester's intake and packetiser. It takes the transport WQEs (Send,
// SendAndInvalidate, Write, Read) of connected QPs in ring order (wqe_*: valid / ready), waits
// for room in the QP's outstanding ring (and, for a Read, below the QP's ORD; with READ_FENCE,
// for every earlier Read to complete), checks the SGEs against the MR table (xl_*: request /
// grant, the answer two cycles later) and cuts the message into packets of at most the path
// MTU. Per packet it queues the descriptor for nic_req_sender (with the inline bytes of an
// INLINE WQE); per payload piece (inside the SGE, the packet, a 4 KiB page and one burst) it
// translates the piece and issues its DMA read (ar_*), reserving the beats in the read data
// buffer, and queues the piece for the sender. A Read sends one READ_REQUEST, takes the PSNs of
// its responses and writes its read context (nic_req_read_ring). At the end it appends the
// WQE's outstanding entry (nic_req_out_ring; a WQE that failed a check completes with that
// status), and the QP's next PSN moves on.
//
// Replay: when a QP's RNR timer expires (nic_req_rnr), or a go-back-N is ordered (an ACK
// timeout or a PSN-sequence NAK, nic_req_ack_timer; the requester offers one replay at a time on
// rnr_go_i / scan_i / scan_psn_i) the intake walks the QP's outstanding entries from the head
// and sends every one from the given PSN on again with its original PSNs, re-reading each WQE by
// DMA from its slot of the SQ ring (the first one whole, also when the PSN lies inside it); a
// WQE that is not the one recorded (type, PSN count) fails (rp_fail_o) and the walk ends. A
// WQE's read is queued in the sender's piece queue as a marker (piece_mark_o) right behind the
// previous WQE's payload pieces, and the intake takes its beats when the sender has reached the
// marker (mark_head_i): the read overlaps the previous WQE's payload.
//
// Owns: the WQE in hand and the packetising state, and the next PSN per QP (QP_CONNECT sets
// it). Every other per-QP value is read from its owner at the QP in hand (qpn_o).
module nic_req_intake #(
  parameter int DataWidth = 64,   // DMA width: 64 or 256
  parameter int NumQps    = 16,   // queue pairs, <= 256
  parameter int OutDepth  = 64,   // outstanding WQEs per QP (nic_req_out_ring)
  parameter int MaxReads  = 32,   // outstanding Reads per QP (nic_req_read_ring; as nic_core)
  parameter int EntW      = 90,   // bits of an outstanding entry
  // cycles a new WQE waits for room (ring, ORD, READ_FENCE) while other work is offered before
  // it is deferred: well above a lossless round trip, so that flow control alone never defers
  parameter int SpaceWait = 1024
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic                          cmd_connect_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  input  logic [23:0]                   cmd_sq_psn_i,     // QP_CONNECT: the first PSN to send
  input  logic [3:0]                    cmd_log_mtu_i,    // ... and the path MTU (log_mtu_i next)
  input  logic [2*NumQps-1:0]           qp_state_i,
  output logic [NumQps-1:0]             busy_o,           // the WQE in hand's QP
  output logic [NumQps-1:0]             busy_rise_o,      // QPs whose busy_o may rise next cycle
  // transport WQEs, in ring order per QP
  input  logic                          wqe_valid_i,
  input  logic [511:0]                  wqe_data_i,
  input  logic [7:0]                    wqe_qpn_i,
  input  logic [15:0]                   wqe_idx_i,
  output logic                          wqe_ready_o,
  // the QP in hand, and its context (nic_qp_ctx, nic_tp_qp_ctx)
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] qpn_o,
  input  logic [15:0]                   pd_i,
  input  logic [47:0]                   peer_mac_i,
  input  logic [31:0]                   peer_ip_i,
  input  logic [23:0]                   peer_qpn_i,
  input  logic [3:0]                    log_mtu_i,
  input  logic [7:0]                    ord_i,
  input  logic [51:0]                   sq_base_i,
  input  logic [3:0]                    sq_ld_i,
  // its Reads outstanding, and a Read's request going out with its context (nic_req_read_ring)
  input  logic [$clog2(MaxReads):0]     reads_out_i,
  output logic                          rd_issue_o,
  output nic_roce_pkg::read_ctx_t       rd_ctx_o,
  // its outstanding ring (nic_req_out_ring): count, the append, the replay's reads
  input  logic [$clog2(OutDepth):0]     in_count_i,
  output logic                          append_o,
  output logic [EntW-1:0]               append_entry_o,
  output logic                          append_pend_o,   // the entry waits for its ACK
  // a new WQE of qpn_o being packetised: its packets up to sending_psn_o may be out already
  // (an acknowledgement may name one of them before the WQE's entry is appended)
  output logic                          sending_o,
  output logic [23:0]                   sending_psn_o,
  output logic                          rp_re_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)+$clog2(OutDepth)-1:0] rp_raddr_o,
  input  logic [EntW-1:0]               rp_rdata_i,
  // RNR timers (nic_req_rnr): the QPs waiting, the scanned QP and whether it replays now
  input  logic [NumQps-1:0]             rnr_wait_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] scan_i,
  input  logic                          rnr_go_i,
  input  logic [23:0]                   scan_psn_i,
  input  logic [$clog2(OutDepth)-1:0]   scan_head_i,
  input  logic [$clog2(OutDepth):0]     scan_count_i,
  output logic                          rnr_start_o,
  // an outstanding entry of QP pop_qpn_i completed (room in its ring, a Read done)
  input  logic                          pop_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] pop_qpn_i,
  // a replayed WQE failed: its entry completes with status_o (as a NAK of psn_o)
  output logic                          rp_fail_o,
  output logic [23:0]                   rp_fail_psn_o,
  output logic [31:0]                   rp_fail_status_o,
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
  // DMA read requests (payload pieces, a replay's WQE); the read data buffer's room and, for a
  // replay's WQE, its beats
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          gb_room_i,
  input  logic                          gb_valid_i,
  input  logic [DataWidth-1:0]          gb_data_i,
  input  logic                          gb_last_i,
  output logic                          rp_take_o,
  input  logic                          mark_head_i,      // the sender's next piece is a WQE's
  // the sender's queues (nic_req_sender)
  output logic                          pkt_push_o,
  output logic                          ev_retx_o,        // ... and it is a replay's (sent again)
  output nic_roce_pkg::tx_pkt_t         pkt_o,
  output logic [383:0]                  inl_o,
  output logic                          is_inl_o,
  input  logic                          pq_full_i,
  output logic                          piece_push_o,
  output logic [$clog2(DataWidth/8)-1:0] piece_lane_o,
  output logic [12:0]                   piece_len_o,
  output logic                          piece_mark_o,     // the piece is a replay's WQE read
  input  logic                          pc_full_i
);

  localparam int W8 = DataWidth / 8;
  localparam int LW = $clog2(W8);
  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int OW = $clog2(OutDepth);
  localparam int RW = $clog2(MaxReads);
  localparam int WqeBeats = 64 / W8;    // beats of one 64-byte WQE slot

  // the next PSN per QP (valid where next_psn_v: 0 before QP_CONNECT, as a reset register)
  logic [23:0]       next_psn_q [NumQps];
  logic [NumQps-1:0] next_psn_v_q, next_psn_v_d;
  // a WQE of the QP failed here (its entry carries the error status): the QP's later WQEs
  // complete CANCELLED and send nothing. The QP's error state comes only when that entry
  // completes, behind the QP's outstanding ones, a round trip or an RNR episode later; until
  // then the state still reads RTS. QP_CONNECT (the QP's next life) clears it.
  logic [NumQps-1:0] failed_q, failed_d;
  logic [OW:0]       in_count;
  assign in_count = in_count_i;

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
  logic [31:0]    msg_off_q, msg_off_d;     // message bytes already packetised (or, resumed,
                                            // acknowledged before the replay's first packet)
  logic [31:0]    skip_q, skip_d;           // a resumed Send / Write: payload bytes of the SGEs
                                            // still to step over before the first piece
  logic [12:0]    pkt_left_q, pkt_left_d;   // payload bytes of the current packet still to gather
  logic [23:0]    psn_q, psn_d;             // PSN of the current packet
  logic [31:0]    sge_off_q, sge_off_d;     // bytes of the current SGE already gathered
  logic [63:0]    phys_q, phys_d;           // the piece's logical address
  // the piece's burst length, from the values phys_q and piece_q take: the AR request's length
  // sizes the read data buffer's room check, which is AR valid, which goes through nic_dma_rd's
  // arbiter into every DMA read client's ready
  logic [7:0]     piece_ar_len_q;
  logic [12:0]    piece_q, piece_d;         // the piece's length
  logic           rp_q, rp_d;               // the WQE in hand is a replay (after an RNR NAK)
  logic [OW-1:0]  rp_slot_q, rp_slot_d;     // the outstanding entry being replayed
  logic [OW:0]    rp_left_q, rp_left_d;     // entries of the walk still to look at
  logic [23:0]    rp_last_q, rp_last_d;     // the replayed entry's last PSN, as recorded
  logic [15:0]    rp_type_q, rp_type_d;     // its completion type
  logic [2:0]     rp_beat_q, rp_beat_d;     // beat of the WQE re-read
  logic           rp_head_q, rp_head_d;     // the first WQE the walk sends again: the replay's
                                            // PSN may lie inside it (go-back-N)
  logic [23:0]    rp_first;                 // the first PSN of the WQE re-read, as recorded
  logic           rp_fail;                  // the replayed WQE fails: status_q from psn_q on
  logic           rnr_start;                // S_IDLE starts the replay of QP scan_q
  // A new WQE waiting in S_SPACE (its QP's ring full, a READ_FENCE, ORD reached) waits for
  // acknowledgements; if a replay is due meanwhile, the intake sets the WQE aside (its QP and
  // index: it stays in the SQ ring) and runs the replay, whose acknowledgements are what the
  // WQE waits for, then reads the WQE again from the ring and goes on with it. Without this the
  // replay waited for the intake and the intake for the replay's ACKs until the retries ran out.
  logic           held_q, held_d;
  logic           resume_q, resume_d;       // the WQE read from the ring now is the held one
  logic [QW-1:0]  held_qpn_q, held_qpn_d;
  logic [15:0]    held_idx_q, held_idx_d;
  logic           start_walk;               // start the replay of QP scan_q now
  // A new WQE of a QP whose replay is due or whose RNR timer runs (rnr_wait_i) is deferred: the
  // intake takes it off the stream at once and notes only its ring index, so the WQEs of every
  // other QP go on. Per QP the deferred WQEs are one run of ring indices, dfr_first .. dfr_end - 1
  // (they arrive in ring order, and once a QP has a run every later WQE of it joins the run); the
  // intake reads them again from the SQ ring one by one, in order, before any newer WQE of that
  // QP, once it is no longer waiting (or has left RTS: they then complete CANCELLED; a QP reset
  // drops its run, its ring may be gone). Without this, a QP retrying RNR for ever (rnr_retry 7,
  // a peer that never posts a receive) kept its next WQE in front of the intake, and no other QP
  // got a new WQE into the transport.
  logic [NumQps-1:0] dfr_v_q, dfr_v_d;       // the QP has deferred WQEs
  logic [15:0]    dfr_first_mem [NumQps];   // the oldest deferred ring index
  logic [15:0]    dfr_end_mem [NumQps];     // one past the newest
  logic           dfr_first_we, dfr_end_we;
  logic [QW-1:0]  dfr_first_wa;
  logic [15:0]    dfr_first_wd;
  logic [NumQps-1:0] dfr_ready;             // deferred WQEs that can be read again now
  logic           dfr_any;
  logic [QW-1:0]  dfr_pick;                 // the lowest such QP
  logic           dfr_q, dfr_d;             // the resume in progress is of a deferred WQE
  logic           defer_wqe;                // S_IDLE: the incoming WQE joins its QP's run
  // A new WQE that waits in S_SPACE for its QP's acknowledgements (the outstanding ring full,
  // ORD reached, a READ_FENCE) is deferred too once it has waited SpaceWait cycles while another
  // WQE (or a deferred run) is offered: without an ACK timer (ack_timeout 0) and with a frame
  // lost, that wait has no end, and it held every other QP's WQEs. Its QP's run is then read
  // again only after one of its entries completes (dfr_space_q).
  logic [$clog2(SpaceWait)-1:0] space_wait_q, space_wait_d;
  logic           defer_self;               // S_SPACE: the WQE in hand heads its QP's run
  logic [NumQps-1:0] dfr_space_q, dfr_space_d;  // the run waits for an entry to complete
  logic [QW-1:0]  dfr_end_wa;
  logic [15:0]    dfr_end_wd;
  logic           chk_end;                  // every SGE is checked with this cycle's (below)
  // The lengths must add up to the message's: the sum with the SGE of S_CHECK_RSP is compared in
  // the S_CHECK before it (the sum, the SGE and the WQE do not change between the two), so the
  // check ends without an adder and a 32-bit compare on the state's path
  logic           chk_sum_next_q;           // sum_q + the current SGE's length == msg_len
  logic           chk_sum_ok;               // sum_d == msg_len when chk_end

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
  nic_pkg::priv_token_t cur_priv;            // its token, read as a PD's privileged token
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

  // the SGE check's end (chk_end): S_CHECK ends with no SGE of this cycle (sum_d = sum_q),
  // S_CHECK_RSP with its SGE's length added (compared a cycle before, chk_sum_next_q)
  assign chk_sum_ok = (state_q == S_CHECK_RSP) ? chk_sum_next_q : sum_q == msg_len;

  // the current packet
  nic_roce_pkg::tx_pkt_t plan_pkt;
  logic [31:0]  pkt_len_full;
  logic [12:0]  pkt_len;
  logic         pkt_first, pkt_last;
  logic [7:0]   pkt_opcode;
  always_comb begin
    pkt_len_full = msg_len - msg_off_q;
    pkt_len      = nic_roce_pkg::pkt_len(pkt_len_full, log_mtu_i);
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
      plan_pkt.dst_mac   = peer_mac_i;
      plan_pkt.dst_ip    = peer_ip_i;
      plan_pkt.opcode    = pkt_opcode;
      plan_pkt.se        = pkt_last && !is_rdma && (wflags & nic_pkg::FLAG_SEND_AND_SOLICIT_EVENT) != 16'd0;
      plan_pkt.ackreq    = pkt_last;
      plan_pkt.dqpn      = peer_qpn_i;
      plan_pkt.sqpn      = nic_pkg::QPN_BASE + 24'(qpn_q);
      plan_pkt.psn       = psn_q;
      // (a Read resumed from a later response: msg_off_q bytes of it are placed already)
      plan_pkt.reth.va   = wr.remote_va + (is_read ? 64'(msg_off_q) : 64'd0);
      plan_pkt.reth.rkey = wr.remote_token;
      plan_pkt.reth.dma_len = msg_len - (is_read ? msg_off_q : 32'd0);
      plan_pkt.ieth_rkey = ws.inv_token;
      plan_pkt.pay_len   = pkt_len;
    end
  end

  // a Read's responses: ceil(length / MTU) packets, at least one (a zero-length Read has one)
  // (the PSNs of a Send or Write alike). These counts and the packet's size are registered from
  // the cycle before the one that reads them, where their inputs are already what they are then
  // (a_npkts_registered, a_pkt_registered): the message's count in S_RP_CHECK (the length is in
  // the WQE's first 16 bytes, a beat before the slot's last one; the QP is the walk's); the
  // count of the request going out, the packet's length and whether it is the message's last in
  // S_PIECE / S_AR, where the packet ends (msg_off_q moves only as a packet ends, and leaves
  // these states then). The division by the MTU (a shifter) and the packet's size (a
  // subtraction, a compare and a choice) are then off the PSN's and the state's paths. The MTU
  // is log_mtu_i as it is in the next cycle (log_mtu_next): QP_CONNECT is its only writer, and
  // one of the QP in hand (destroyed, created and connected again while its old WQE is still
  // being packetised) writes nic_tp_qp_ctx now, which shows it then.
  logic [23:0] rd_npkts_q, rd_npkts_sent_q;
  logic [12:0] pkt_len_q;
  logic        pkt_last_q;
  logic [3:0]  log_mtu_next;
  logic [31:0] pkt_left_next;   // the message's bytes from this packet on (pkt_len_full)
  assign log_mtu_next  = (cmd_connect_i && cmd_qpn_i == qpn_q) ? cmd_log_mtu_i : log_mtu_i;
  assign pkt_left_next = msg_len - msg_off_q;
  assign rp_first = rp_last_q - rd_npkts_q + 24'd1;
  // the packets of the walk's first WQE before the replay's PSN (acknowledged already)
  logic [23:0] rp_skip_pkts;
  assign rp_skip_pkts = psn_q - rp_first;

  // the intake QP's Reads not completed, its read limit
  logic [RW:0] in_rd_out;
  logic [7:0]  in_ord;
  logic        in_fenced, in_ord_full;
  always_comb begin
    in_rd_out   = reads_out_i;
    in_ord      = ord_i;
    in_fenced   = (wflags & nic_pkg::FLAG_READ_FENCE) != 16'd0 && in_rd_out != '0;
    in_ord_full = is_read && (32'(in_rd_out) >= 32'(in_ord) || 32'(in_rd_out) >= MaxReads);
  end

  // S_SPACE's ways out: the WQE goes on (room in the ring; READ_FENCE: no earlier Read
  // outstanding; a Read: fewer than ORD outstanding (a QP connected with ORD 0 takes no Read: it
  // fails, never waits); a replayed WQE has its entry, its PSNs and its read context already),
  // or, waiting, it is deferred (below)
  logic space_go, space_defer;
  assign space_go    = rp_q || (32'(in_count) < OutDepth && !in_fenced
                                && !(in_ord_full && in_ord != 8'd0));
  assign space_defer = !rp_q && qp_state_i[2*qpn_q +: 2] == nic_pkg::QP_STATE_RTS
                       && space_wait_q == '1 && (wqe_valid_i || dfr_any);

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
    cur_priv   = cur_sge.token;
    priv_token = cur_priv.marker == nic_pkg::PRIV_TOKEN_MARKER;
  end


  // the entry the replay walk reads, and its WQE's slot in the SQ ring
  logic [15:0] rp_idx;
  logic [23:0] rp_psn;
  logic [15:0] rp_etype;
  logic        rp_silent, rp_pend;
  logic [31:0] rp_status;
  logic [15:0] rp_ring_slot;
  assign {rp_idx, rp_psn, rp_etype, rp_silent, rp_pend, rp_status} = rp_rdata_i;
  assign rp_ring_slot = idx_q & 16'((17'd1 << sq_ld_i) - 17'd1);

  logic intake_append;          // S_RECORD appends this cycle
  logic rd_issue;               // a Read's request is queued for nic_roce_tx this cycle
  logic rpe_re, pq_push, pc_push, pc_mark;

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
    skip_d       = skip_q;
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
    rp_head_d    = rp_head_q;
    held_d       = held_q;
    resume_d     = resume_q;
    held_qpn_d   = held_qpn_q;
    held_idx_d   = held_idx_q;
    start_walk   = 1'b0;
    dfr_d        = dfr_q;
    dfr_first_we = 1'b0;
    dfr_first_wa = wq;
    dfr_first_wd = wqe_idx_i;
    defer_wqe    = 1'b0;
    defer_self   = 1'b0;
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
    xl_pd_o      = pd_i;
    // a Read's SGEs are its sink: they need local write; a gather only reads
    xl_access_o  = is_read ? nic_pkg::FLAG_ALLOW_LOCAL_WRITE : 16'd0;
    rd_issue     = 1'b0;
    ar_valid_o   = 1'b0;
    ar_addr_o    = {phys_q[63:LW], {LW{1'b0}}};
    ar_len_o     = piece_ar_len_q;
    if (state_q == S_RP_AR) begin
      ar_addr_o = {sq_base_i, 12'd0} + {42'd0, rp_ring_slot, 6'd0};
      ar_len_o  = 8'(WqeBeats - 1);
    end
    rp_take_o    = 1'b0;
    pq_push      = 1'b0;
    pc_push      = 1'b0;
    pc_mark      = 1'b0;

    unique case (state_q)
      S_IDLE: begin
        if (rnr_go_i) begin
          // a QP's RNR timer expired, or its ACK timer or a sequence NAK ordered a go-back-N:
          // send its outstanding WQEs again from that PSN on
          start_walk = 1'b1;
        end else if (dfr_any) begin
          // a QP's deferred WQEs, oldest first: read again from the ring (rp_q until S_SPACE)
          resume_d = 1'b1;
          dfr_d    = 1'b1;
          rp_d     = 1'b1;
          qpn_d    = dfr_pick;
          idx_d    = dfr_first_mem[dfr_pick];
          state_d  = S_RP_AR;
        end else begin
          wqe_ready_o = 1'b1;
          if (wqe_valid_i && (rnr_wait_i[wq] || dfr_v_q[wq])) begin
            // its QP waits for an RNR timer or a replay, or has deferred WQEs: defer it too
            defer_wqe    = 1'b1;
            dfr_first_we = !dfr_v_q[wq];
          end else if (wqe_valid_i) begin
            wqe_load  = 1'b1;
            qpn_d     = wq;
            idx_d     = wqe_idx_i;
            rp_d      = 1'b0;
            status_d  = nic_pkg::STATUS_SUCCESS;
            sge_d     = '0;
            sum_d     = '0;
            msg_off_d = '0;
            skip_d    = '0;
            state_d   = S_SPACE;
          end
        end
      end
      S_RP_READ: begin
        // stop when the walk is done, the QP left RTS, or another RNR NAK re-armed its timer
        if (rp_left_q == '0 || rnr_wait_i[qpn_q]
            || qp_state_i[2*qpn_q +: 2] != nic_pkg::QP_STATE_RTS) begin
          rp_d    = 1'b0;
          state_d = S_IDLE;
          if (held_q) begin
            // the WQE set aside: read it again from its slot (rp_q until it is back in S_SPACE)
            resume_d = 1'b1;
            rp_d    = 1'b1;
            qpn_d   = held_qpn_q;
            idx_d   = held_idx_q;
            state_d = S_RP_AR;
          end
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
        // The WQE's beats come back in the read data buffer behind the payload of the pieces
        // queued before them: its read is queued as a marked piece, so that the sender stops
        // in front of them and the intake takes them (S_RP_DATA). The read so overlaps the
        // previous WQE's payload instead of waiting for it to drain: a go-back-N of k WQEs
        // used to cost k DMA round trips more than its payload.
        ar_valid_o = !pc_full_i && gb_room_i;
        if (!pc_full_i && gb_room_i && ar_ready_i) begin
          pc_push   = 1'b1;
          pc_mark   = 1'b1;
          rp_beat_d = '0;
          state_d   = S_RP_DATA;
        end else if (!(!pc_full_i && gb_room_i)
                     && qp_state_i[2*qpn_q +: 2] != nic_pkg::QP_STATE_RTS
                     && !(resume_q && qp_state_i[2*qpn_q +: 2] != nic_pkg::QP_STATE_RESET)) begin
          // the QP left RTS (flushed, destroyed) while the walk waited for the read client:
          // stop before the read, its ring may be freed by now (found by the fuzzer,
          // tests/fuzz/: the WQE was read from a destroyed QP's freed ring). The walk's WQEs
          // have their outstanding entries, which complete without it. A WQE set aside has
          // none: it is still read again and completes CANCELLED (S_SPACE), unless its QP was
          // destroyed (found by the fuzzer too: a flush during the walk lost the held WQE and
          // its request never completed).
          rp_d    = 1'b0;
          state_d = S_IDLE;
          if (resume_q) begin
            // (a deferred run of a QP reset is dropped by the reset itself, below)
            if (!dfr_q) begin
              held_d = 1'b0;
            end
            resume_d = 1'b0;
            dfr_d    = 1'b0;
          end else if (held_q) begin
            resume_d = 1'b1;
            rp_d     = 1'b1;
            qpn_d    = held_qpn_q;
            idx_d    = held_idx_q;
            state_d  = S_RP_AR;
          end
        end
      end
      S_RP_DATA: begin
        // the beats at the buffer's head are the WQE's once the sender reached its marker
        rp_take_o = gb_valid_i && mark_head_i;
        if (gb_valid_i && mark_head_i) begin
          wqe_beat  = 1'b1;
          rp_beat_d = rp_beat_q + 3'd1;
          if (gb_last_i) begin
            status_d  = nic_pkg::STATUS_SUCCESS;
            sge_d     = '0;
            sum_d     = '0;
            msg_off_d = '0;
            skip_d    = '0;
            state_d   = S_RP_CHECK;
            if (resume_q) begin
              // the WQE set aside (or deferred) is back: a new WQE again
              if (!dfr_q) begin
                held_d = 1'b0;
              end
              resume_d = 1'b0;
              dfr_d    = 1'b0;
              rp_d    = 1'b0;
              state_d = S_SPACE;
              if (dfr_q) begin
                // the run moves on past it; a QP reset meanwhile dropped it (and the WQE)
                dfr_first_we = 1'b1;
                dfr_first_wa = qpn_q;
                dfr_first_wd = idx_q + 16'd1;
                if (qp_state_i[2*qpn_q +: 2] == nic_pkg::QP_STATE_RESET
                    || qp_state_i[2*qpn_q +: 2] == nic_pkg::QP_STATE_READY) begin
                  state_d = S_IDLE;
                end
              end
            end
          end
        end
      end
      S_RP_CHECK: begin
        // the slot may not change before the WQE completes; one that did fails here, before
        // anything of it is sent again. The walk's first WQE may hold the replay's PSN anywhere
        // (a go-back-N from a NAK's or the oldest unacknowledged PSN, an implied NAK of a Read's
        // first response not placed): everything before that PSN is acknowledged (of a Read:
        // placed), so the WQE goes on from that packet: a Send or Write from its MIDDLE / LAST
        // packet at that PSN (msg_off_q: the MTUs before it; no RETH, as the IBA wants it only
        // on a Write's first packet; the responder is inside the message there), a Read asked
        // for again from that response on (its PSN, the RETH's VA advanced and its length
        // shortened by the MTUs before it; IBA 9.7.4.1.4, as Linux rxe's req_retry).
        if (rec_type != rp_type_q
            || !(rp_first == psn_q
                 || (rp_head_q && nic_roce_pkg::psn_le(rp_first, psn_q)
                     && nic_roce_pkg::psn_le(psn_q, rp_last_q)))) begin
          status_d = nic_pkg::STATUS_INVALID_PARAMETER;
          state_d  = S_RECORD;
        end else begin
          psn_d     = rp_first;
          rp_head_d = 1'b0;
          state_d   = S_SPACE;
          if (rp_head_q && psn_q != rp_first) begin
            psn_d     = psn_q;
            msg_off_d = 32'(rp_skip_pkts) << log_mtu_i;
            skip_d    = is_read ? 32'd0 : 32'(rp_skip_pkts) << log_mtu_i;
          end
        end
      end
      S_SPACE: begin
        // room for the WQE (space_go, above), else a replay due or the wait deferred
        if (space_go) begin
          if (!rp_q) begin
            psn_d = next_psn_v_q[qpn_q] ? next_psn_q[qpn_q] : '0;
          end
          if (qp_state_i[2*qpn_q +: 2] != nic_pkg::QP_STATE_RTS || (!rp_q && failed_q[qpn_q])) begin
            status_d = nic_pkg::STATUS_CANCELLED;
            state_d  = S_RECORD;
          end else if ((op != nic_pkg::WQE_OP_SEND && op != nic_pkg::WQE_OP_SEND_INV
                        && !is_rdma) || (is_read && (inline_data || in_ord == 8'd0))) begin
            status_d = nic_pkg::STATUS_INVALID_PARAMETER;
            state_d  = S_RECORD;
          end else if (inline_data) begin
            // INLINE: at most 48 (Send) / 40 (Write) bytes, in the WQE
            status_d = (msg_len > (is_write ? 32'(nic_pkg::WQE_RDMA_MAX_INLINE)
                                            : 32'(nic_pkg::WQE_SEND_MAX_INLINE)))
                       ? nic_pkg::STATUS_INVALID_PARAMETER
                                                               : nic_pkg::STATUS_SUCCESS;
            state_d  = (status_d == nic_pkg::STATUS_SUCCESS) ? S_PKT : S_RECORD;
          end else if (32'(nsge) > (is_rdma ? nic_pkg::WQE_RDMA_MAX_SGE : nic_pkg::WQE_SEND_MAX_SGE)
                       || 32'(ws.nsge) > nic_pkg::WQE_SEND_MAX_SGE) begin
            status_d = nic_pkg::STATUS_INVALID_PARAMETER;
            state_d  = S_RECORD;
          end else begin
            state_d = S_CHECK;
          end
        end else if (rnr_go_i && !held_q) begin
          // waiting for acknowledgements while a replay is due: set the WQE aside, replay
          held_d     = 1'b1;
          held_qpn_d = qpn_q;
          held_idx_d = idx_q;
          start_walk = 1'b1;
        end else if (space_defer) begin
          // waited long enough with other work offered: the WQE goes back to the head of its
          // QP's run (it stays in the SQ ring), read again once an entry of its QP completes
          defer_self   = 1'b1;
          dfr_first_we = 1'b1;
          dfr_first_wa = qpn_q;
          dfr_first_wd = idx_q;
          state_d      = S_IDLE;
        end
      end
      S_CHECK: begin
        if (sge_q == nsge) begin
          chk_end = 1'b1;
        end else if (cur_sge.length == 32'd0) begin
          sge_d = sge_q + 2'd1;
        end else if (priv_token) begin
          // a logical address under the PD's privileged token: local access, same PD only
          if (cur_priv.pd != pd_i) begin
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
        if (!pq_full_i) begin
          pq_push    = 1'b1;
          rd_issue   = is_read && !rp_q;  // its context, for the responses (a replay has it)
          pkt_left_d = inline_data ? '0 : pkt_len;   // inline bytes travel with the descriptor
          state_d    = S_PIECE;
        end
      end
      S_PIECE: begin
        if (skip_q != '0) begin
          // a resumed Send / Write: step over the SGE bytes of the packets acknowledged already
          if (cur_sge.length - sge_off_q <= skip_q) begin
            skip_d    = skip_q - (cur_sge.length - sge_off_q);
            sge_d     = sge_q + 2'd1;
            sge_off_d = '0;
          end else begin
            sge_off_d = sge_off_q + skip_q;
            skip_d    = '0;
          end
        end else if (pkt_left_q == '0) begin
          // the packet is out
          msg_off_d = msg_off_q + 32'(pkt_len_q);
          psn_d     = psn_q + (is_read ? rd_npkts_sent_q : 24'd1);
          state_d   = pkt_last_q ? S_RECORD : S_PKT;
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
        ar_valid_o = !pc_full_i && gb_room_i;
        if (!pc_full_i && gb_room_i && ar_ready_i) begin
          pc_push    = 1'b1;
          pkt_left_d = pkt_left_q - piece_q;
          sge_off_d  = sge_off_q + 32'(piece_q);
          state_d    = S_PIECE;
          if (pkt_left_q == piece_q) begin
            // the packet's last piece: the packet is out (S_PIECE's first case, a cycle sooner)
            msg_off_d = msg_off_q + 32'(pkt_len_q);
            psn_d     = psn_q + (is_read ? rd_npkts_sent_q : 24'd1);
            state_d   = pkt_last_q ? S_RECORD : S_PKT;
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
          if (held_q) begin
            // a WQE set aside for this walk is still read again (found by the fuzzer: a QP
            // that failed during the walk left its held Read waiting for ever, and the next
            // WQE completed before it)
            resume_d = 1'b1;
            rp_d     = 1'b1;
            qpn_d    = held_qpn_q;
            idx_d    = held_idx_q;
            state_d  = S_RP_AR;
          end
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
    if (start_walk) begin
      rnr_start = 1'b1;
      rp_d      = 1'b1;
      qpn_d     = scan_i;
      rp_slot_d = scan_head_i;
      rp_left_d = scan_count_i;
      rp_head_d = 1'b1;
      psn_d     = scan_psn_i;
      state_d   = S_RP_READ;
    end
    // the SGE check is over (in S_CHECK, or as the last SGE's translation answers): the lengths,
    // sum_d with this cycle's SGE, must add up to the message
    if (chk_end) begin
      if (!chk_sum_ok) begin
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
  nic_roce_pkg::read_ctx_t rctx_wdata;
  always_comb begin
    rctx_wdata        = '0;
    if (rd_issue) begin
      rctx_wdata.psn    = psn_q;
      rctx_wdata.length = msg_len;
      rctx_wdata.nsge   = nsge;
      rctx_wdata.sge0   = wr.sge0;
      rctx_wdata.sge1   = wr.sge1;
    end
  end

  // the WQE in hand's QP, the QP of a WQE set aside for another QP's replay walk and the QPs with
  // deferred WQEs: their later WQEs must not complete around them (found by the fuzzer: a QP that
  // failed while its WQE was set aside had its later WQEs cancelled by nic_wqe_dispatch before
  // that WQE)
  assign busy_o = ((state_q != S_IDLE) ? NumQps'(1) << qpn_q : '0)
                | (held_q ? NumQps'(1) << held_qpn_q : '0) | dfr_v_q;
  // A QP's bit rises only with a WQE taken here (in hand, or deferred) or a replay walk started
  // (its QP in hand, even when the walk finds nothing to send again): busy_o of the next cycle
  // is within busy_o | busy_rise_o of this one (nic_requester's busy_reg_o relies on it).
  assign busy_rise_o = ((wqe_valid_i && wqe_ready_o) ? NumQps'(1) << wq : '0)
                     | (start_walk ? NumQps'(1) << scan_i : '0);

  // ---- deferred WQEs ---------------------------------------------------------------------------
  // A run can be read again once its QP no longer waits, or has left RTS (its WQEs then complete
  // CANCELLED in S_SPACE). A QP in RESET or READY (destroyed, or created again) has no run: its
  // ring may be freed or reused, and nic_wqe_dispatch discards what it fetched of the old one.
  always_comb begin
    dfr_ready = '0;
    dfr_pick  = '0;
    dfr_v_d   = dfr_v_q;
    for (int q = 0; q < NumQps; q++) begin
      dfr_ready[q] = dfr_v_q[q] && ((qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_RTS && !rnr_wait_i[q]
                                     && !dfr_space_q[q])
                                    || qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_ERROR);
    end
    for (int q = NumQps - 1; q >= 0; q--) begin
      if (dfr_ready[q]) begin
        dfr_pick = QW'(q);
      end
    end
    if (defer_wqe) begin
      dfr_v_d[wq] = 1'b1;
    end
    if (defer_self) begin
      dfr_v_d[qpn_q] = 1'b1;
    end
    // the resumed WQE was the run's last
    if (dfr_first_we && !defer_wqe && !defer_self && dfr_first_wd == dfr_end_mem[dfr_first_wa]) begin
      dfr_v_d[dfr_first_wa] = 1'b0;
    end
    for (int q = 0; q < NumQps; q++) begin
      if (qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_RESET
          || qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_READY) begin
        dfr_v_d[q] = 1'b0;
      end
    end
  end
  assign dfr_any    = dfr_ready != '0;
  // a run's end moves with each WQE deferred at S_IDLE; a WQE deferred from S_SPACE with no run
  // behind it starts one of its own
  assign dfr_end_we = defer_wqe || (defer_self && !dfr_v_q[qpn_q]);
  assign dfr_end_wa = defer_wqe ? wq : qpn_q;
  assign dfr_end_wd = defer_wqe ? wqe_idx_i + 16'd1 : idx_q + 16'd1;

  // the runs deferred for room: free again when an entry of their QP completes, or the QP leaves
  // RTS (its WQEs then complete CANCELLED, or its run is dropped)
  always_comb begin
    dfr_space_d = dfr_space_q;
    for (int q = 0; q < NumQps; q++) begin
      if ((pop_i && pop_qpn_i == QW'(q)) || qp_state_i[2*q +: 2] != nic_pkg::QP_STATE_RTS) begin
        dfr_space_d[q] = 1'b0;
      end
    end
    if (defer_self) begin
      dfr_space_d[qpn_q] = 1'b1;
    end
  end
  // (from S_SPACE's own three ways out, not from state_d: the state's whole next-state logic,
  // the SGE sums and the packet sizes of the other states, is no part of this counter's path)
  logic space_stay;             // S_SPACE stays in S_SPACE this cycle
  assign space_stay   = state_q == S_SPACE && !space_go && !(rnr_go_i && !held_q) && !space_defer;
  assign space_wait_d = (space_stay && space_wait_q != '1) ? space_wait_q + 1'b1
                      : space_stay ? space_wait_q : '0;

  always_ff @(posedge clk_i) begin
    if (dfr_first_we) begin
      dfr_first_mem[dfr_first_wa] <= dfr_first_wd;
    end
    if (dfr_end_we) begin
      dfr_end_mem[dfr_end_wa] <= dfr_end_wd;
    end
  end


  // the sender's queues
  assign pkt_push_o   = pq_push;
  assign ev_retx_o    = pq_push && rp_q;
  assign pkt_o        = plan_pkt;
  // inline data (one packet of at most WQE_*_MAX_INLINE bytes) from the WQE's first SGE field
  assign inl_o        = is_rdma ? 384'(wqe_q >> (8 * nic_pkg::WQE_RDMA_SGE_OFFSET))
                                : 384'(wqe_q >> (8 * nic_pkg::WQE_SEND_SGE_OFFSET));
  assign is_inl_o     = inline_data && plan_pkt.pay_len != '0;
  assign piece_push_o = pc_push;
  assign piece_lane_o = phys_q[LW-1:0];
  assign piece_len_o  = piece_q;
  assign piece_mark_o = pc_mark;

  assign qpn_o            = qpn_q;
  // psn_q is the QP's next PSN from the state after S_SPACE on (S_SPACE loads it)
  assign sending_o        = !rp_q && state_q != S_IDLE && state_q != S_SPACE;
  assign sending_psn_o    = psn_q - 24'd1;
  assign rd_issue_o       = rd_issue;
  assign rd_ctx_o         = rctx_wdata;
  assign rnr_start_o      = rnr_start;
  assign rp_fail_o        = rp_fail;
  assign rp_fail_psn_o    = psn_q;
  assign rp_fail_status_o = status_q;
  assign rp_re_o          = rpe_re;
  assign rp_raddr_o       = {qpn_q, rp_slot_q};

  // the entry S_RECORD appends, behind the QP's outstanding ones
  assign append_o       = intake_append;
  assign append_pend_o  = rec_pend;
  assign append_entry_o = {idx_q, psn_q - 24'd1, rec_type,
                           (wflags & nic_pkg::FLAG_SILENT_SUCCESS) != 16'd0, rec_pend, status_q};

  // the next PSN: a finished WQE's PSNs are used up; QP_CONNECT starts them (last: it wins)
  always_ff @(posedge clk_i) begin
    if (intake_append) begin
      next_psn_q[qpn_q] <= psn_q;
    end
    if (cmd_connect_i) begin
      next_psn_q[cmd_qpn_i] <= cmd_sq_psn_i;
    end
  end
  always_comb begin
    next_psn_v_d = next_psn_v_q;
    if (intake_append) begin
      next_psn_v_d[qpn_q] = 1'b1;
    end
    if (cmd_connect_i) begin
      next_psn_v_d[cmd_qpn_i] = 1'b1;
    end
  end
  always_comb begin
    failed_d = failed_q;
    if ((intake_append && status_q != nic_pkg::STATUS_SUCCESS) || rp_fail) begin
      failed_d[qpn_q] = 1'b1;
    end
    if (cmd_connect_i) begin
      failed_d[cmd_qpn_i] = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q      <= S_IDLE;
      next_psn_v_q <= '0;
      failed_q     <= '0;
      qpn_q        <= '0;
      rp_q         <= 1'b0;
      held_q       <= 1'b0;
      resume_q     <= 1'b0;
      dfr_q        <= 1'b0;
      dfr_v_q      <= '0;
      dfr_space_q  <= '0;
      space_wait_q <= '0;
    end else begin
      dfr_q        <= dfr_d;
      dfr_v_q      <= dfr_v_d;
      dfr_space_q  <= dfr_space_d;
      space_wait_q <= space_wait_d;
      state_q      <= state_d;
      held_q       <= held_d;
      resume_q     <= resume_d;
      next_psn_v_q <= next_psn_v_d;
      failed_q     <= failed_d;
      qpn_q        <= qpn_d;
      rp_q         <= rp_d;
    end
  end

  // Working registers of the WQE in hand: loaded before use.
  always_ff @(posedge clk_i) begin
    if (wqe_load) begin
      wqe_q <= wqe_data_i;
    end
    // one constant slice per beat (a write at a computed offset is a shifter of the whole
    // register in Yosys 0.23)
    for (int b = 0; b < WqeBeats; b++) begin
      if (wqe_beat && rp_beat_q == 3'(b)) begin
        wqe_q[DataWidth*b +: DataWidth] <= gb_data_i;
      end
    end
    idx_q        <= idx_d;
    chk_sum_next_q  <= sum_q + cur_sge.length == msg_len;
    rd_npkts_q      <= nic_roce_pkg::read_npkts(msg_len, log_mtu_next);
    rd_npkts_sent_q <= nic_roce_pkg::read_npkts(pkt_left_next, log_mtu_next);
    pkt_len_q       <= is_read ? 13'd0 : nic_roce_pkg::pkt_len(pkt_left_next, log_mtu_next);
    // the packet takes all that is left (pkt_len(pkt_left_next, log_mtu_next) ==
    // pkt_left_next, the same for every value: the packet's size's compare, without its mux
    // and a 32-bit compare behind it)
    pkt_last_q      <= is_read || (pkt_left_next <= (32'd1 << log_mtu_next)
                                   && pkt_left_next < 32'd8192);
    status_q     <= status_d;
    sge_q        <= sge_d;
    sum_q        <= sum_d;
    msg_off_q    <= msg_off_d;
    skip_q       <= skip_d;
    pkt_left_q   <= pkt_left_d;
    psn_q        <= psn_d;
    sge_off_q    <= sge_off_d;
    phys_q       <= phys_d;
    piece_q      <= piece_d;
    piece_ar_len_q <= nic_dma_pkg::burst_len(12'(phys_d[LW-1:0]), piece_d, W8);
    rp_slot_q    <= rp_slot_d;
    rp_left_q    <= rp_left_d;
    rp_last_q    <= rp_last_d;
    rp_type_q    <= rp_type_d;
    rp_beat_q    <= rp_beat_d;
    rp_head_q    <= rp_head_d;
    held_qpn_q   <= held_qpn_d;
    held_idx_q   <= held_idx_d;
  end

  logic unused_fields;
  assign unused_fields = ^{cur_priv.key, rp_silent, rp_status, wr.rsvd_56, ws.index, wr.opcode, wr.nsge, wr.flags,
                           wr.index, wr.rsvd_6, wr.length, ws.rsvd_6, wqe_qpn_i};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (state_q == S_AR) begin
        a_piece_nonempty: assert (piece_q != '0 && 32'(ar_len_o) < 256);
        a_piece_in_page: assert (32'(phys_q[11:0]) + 32'(piece_q) <= 4096);
        a_piece_ar_len: assert (piece_ar_len_q == nic_dma_pkg::burst_len(12'(phys_q[LW-1:0]), piece_q, W8));
      end
      // a replayed WQE takes exactly the PSNs it took the first time
      if (state_q == S_RECORD && rp_q && status_q == nic_pkg::STATUS_SUCCESS) begin
        a_replay_psns_as_recorded: assert (psn_q - 24'd1 == rp_last_q);
      end
      // the WQE re-read is one slot: WqeBeats beats, the last one marked
      if (state_q == S_RP_DATA && gb_valid_i && mark_head_i) begin
        a_replay_wqe_beats: assert (32'(rp_beat_q) < WqeBeats
                                    && gb_last_i == (32'(rp_beat_q) == WqeBeats - 1));
      end
      a_reads_out_in_range: assert (32'(in_rd_out) <= MaxReads);
      // the registered checks and counts are those of this cycle's inputs where they are read
      if (state_q == S_CHECK_RSP) begin
        a_sum_check_registered: assert (chk_sum_next_q == (sum_q + cur_sge.length == msg_len));
      end
      if (state_q == S_RP_CHECK) begin
        a_npkts_registered: assert (rd_npkts_q == nic_roce_pkg::read_npkts(msg_len, log_mtu_i));
      end
      if (state_q == S_PIECE || state_q == S_AR) begin
        a_npkts_sent_registered: assert (rd_npkts_sent_q == nic_roce_pkg::read_npkts(
                                           msg_len - msg_off_q, log_mtu_i));
        a_pkt_registered: assert (pkt_len_q == pkt_len && pkt_last_q == pkt_last);
      end
    end
  end
`endif

endmodule
