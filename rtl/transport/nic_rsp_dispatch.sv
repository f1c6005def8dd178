`default_nettype none
// nic_rsp_dispatch: the responder's dispatcher (docs/transport.md). It takes every checked
// packet from nic_roce_rx, one at a time, and decides what it is and what happens to it:
// ACKs / NAKs go to nic_requester; requests of a connected QP are checked for their PSN and
// opcode sequence; a Send's payload is placed into the QP's next receive WQE (nic_rsp_rq's
// cache), a Write's by its RETH (checked once per message by the MR table), a response to this
// side's Read into the Read's sink SGEs (nic_requester's read context); a Read request is
// checked and handed to the read-response engine (nic_rsp_read_engine). Each piece of payload
// (inside an SGE or region, a page and a burst) is translated here and its write request
// issued; nic_rsp_placer moves its bytes. After a packet: the expected PSN, the ACK / NAK, the
// receive completion. A QP in ERROR: its posted receives complete CANCELLED (the flush).
//
// Owns per QP: the expected PSN, the MSN, whether a message (a peer's request, the responses to
// this side's Read) is half received and its placement state (a RAM), the PSN-sequence NAK
// state, the implied-NAK state of this side's Reads (rr_nak) and the saved Reads (a RAM ring of
// the last MaxReads Read requests: duplicates are answered again from it).
//
// Loss and this side's Reads (docs/transport.md "Retransmission"): a Read completes only when
// its data is placed, so every acknowledgement is checked against the QP's oldest Read not
// placed here, where its placement state lives: one that skips it (lost responses) becomes an
// implied NAK of its first PSN not placed, and the requester replays from there. The replay sends
// the Read again whole and the placement starts over at its FIRST, rather than a request for the
// rest (PSN of the first missing response, VA and length advanced, which the IBA allows and the
// saved Reads below serve): the requester's replay re-reads WQEs from the SQ ring and sends each
// from its first PSN; a resumed Read would need the placed byte count from here, an advanced
// RETH and a sink walk from the middle there. Whole costs only the bytes sent again. The QP's PD and receive CQ (nic_qp_ctx), peer QPN, path MTU and IRD (nic_tp_qp_ctx)
// are read through the ctx_* ports.
// The rest of the contract is nic_responder's header.
//
// Why this file passes ~800 lines: it is one state machine over one packet in hand. Its states
// share that packet, the message state and the QP's PSN / MSN; the per-state work that stands
// on its own is already outside (placer, receive queues, read-response engine, QP context).
// Cutting the FSM itself would put its next-state decision across a module edge, the opposite
// of what the timing work needs (registers between modules, not combinational paths through
// them). What would shrink it next: the piece planning (R_PIECE / R_XL: SGE walk, clipping,
// translation) as a request / response unit of its own, shared with the requester's intake; and
// the header checks (QP, PSN, opcode sequence, IRD: the decision the packet's first state makes)
// apart from the execution (placement, translation, ACK, completion), with a register on the
// verdict between them. That cut waits for loss recovery's PSN checks, which change exactly
// that decision, so the two changes do not collide.
module nic_rsp_dispatch #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16,   // queue pairs, <= 256
  parameter int MaxReads  = 32    // the largest IRD: Read requests kept per QP for duplicates
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // commands
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  input  logic [2*NumQps-1:0]           qp_state_i,
  // packets from nic_roce_rx
  input  logic                          pkt_valid_i,
  input  nic_roce_pkg::rx_pkt_t         pkt_i,
  output logic                          pkt_ready_o,
  input  logic                          pl_valid_i,
  input  logic                          pl_last_i,
  output logic                          pl_ready_o,
  // acknowledgements for nic_requester
  output logic                          ack_valid_o,
  output logic [7:0]                    ack_qpn_o,
  output logic [23:0]                   ack_psn_o,
  output logic [7:0]                    ack_syndrome_o,
  output logic                          ack_implied_o,    // ... an implied NAK made here
  // events (port counters), one-cycle pulses: a wire ACK / NAK of a local QP (its syndrome is
  // ev_ack_syn_o), a request packet ahead of / behind the expected PSN
  output logic                          ev_ack_rx_o,
  output logic [7:0]                    ev_ack_syn_o,
  output logic                          ev_out_of_seq_o,
  output logic                          ev_dup_req_o,
  // its translation requests (nic_responder arbitrates: the dispatcher first)
  output logic                          xl_req_o,
  input  logic                          xl_gnt_i,
  output logic [31:0]                   xl_token_o,
  output logic [63:0]                   xl_va_o,
  output logic [31:0]                   xl_len_o,
  output logic [15:0]                   xl_pd_o,
  output logic [15:0]                   xl_access_o,
  output logic                          xl_inv_o,
  input  logic                          xl_rsp_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  // read contexts (nic_requester)
  output logic                          rctx_req_o,
  output logic [7:0]                    rctx_qpn_o,
  input  logic                          rctx_avail_i,
  input  nic_roce_pkg::read_ctx_t       rctx_i,
  output logic                          rdone_o,
  output logic [7:0]                    rdone_qpn_o,
  // DMA write requests (the beats are the placer's)
  output logic                          wr_req_valid_o,
  output logic [63:0]                   wr_req_addr_o,
  output logic [7:0]                    wr_req_len_o,
  input  logic                          wr_req_ready_i,
  // the placer (nic_rsp_placer)
  output logic                          place_start_o,
  output logic [$clog2(DataWidth/8)-1:0] place_lane_o,
  output logic [12:0]                   place_len_o,
  output logic [7:0]                    place_beats_o,
  output logic                          place_active_o,
  output logic                          place_drain_o,
  input  logic                          place_done_i,
  input  logic                          place_word_done_i,
  // the receive queues (nic_rsp_rq), at the dispatcher's QP (qpn_o)
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] qpn_o,
  input  logic [15:0]                   rq_ci_i,
  input  logic [15:0]                   rq_pi_i,
  input  logic [4:0]                    rq_cached_i,
  output logic                          rq_cache_re_o,
  input  logic [511:0]                  rq_cache_wqe_i,   // the entry as read (not forwarded)
  input  logic                          rq_cache_fwd_i,   // ... written since: rwqe_q holds it
  input  logic                          rq_cache_hit_i,   // this cycle's write to that entry
  input  logic [511:0]                  rq_cache_wdata_i, // ... its WQE
  output logic                          rq_consume_o,
  output logic                          flush_find_o,
  input  logic                          flush_found_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] flush_found_qpn_i,
  output logic                          flush_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] flush_qpn_o,
  input  logic [15:0]                   flush_ci_i,
  output logic                          flush_done_o,
  // the read-response engine (nic_rsp_read_engine): a Read accepted or an ACK / NAK queued
  output logic                          push_read_o,
  output logic                          push_ack_o,
  output logic [63:0]                   push_va_o,
  output logic [31:0]                   push_key_o,
  output logic [31:0]                   push_len_o,
  output logic [23:0]                   push_psn_o,
  output logic [23:0]                   push_msn_o,
  output logic [7:0]                    push_syn_o,
  output logic [23:0]                   push_peer_qpn_o,
  output logic [47:0]                   push_mac_o,
  output logic [31:0]                   push_ip_o,
  input  logic                          rdq_full_i,
  output logic                          rdq_has_en_o,
  input  logic                          rdq_has_i,
  // the QP contexts (nic_qp_ctx, nic_tp_qp_ctx) at qpn_o, and the receive CQ of the QP completing
  input  logic [15:0]                   ctx_pd_i,
  input  logic [23:0]                   ctx_peer_qpn_i,
  input  logic [3:0]                    ctx_log_mtu_i,
  input  logic [7:0]                    ctx_ird_i,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cpl_qpn_o,
  input  logic [7:0]                    cpl_rq_cqn_i,
  // its ACK / NAK to nic_roce_tx (sent when the engine leaves the port free: tx_free_i)
  output logic                          tx_valid_o,
  output nic_roce_pkg::tx_pkt_t         tx_pkt_o,
  input  logic                          tx_ready_i,
  input  logic                          tx_free_i,
  // its QP goes to ERROR
  output logic                          qp_err_o,
  // receive completions
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i
);

  localparam int W8  = DataWidth / 8;
  localparam int LW  = $clog2(W8);
  localparam int QW  = (NumQps > 1) ? $clog2(NumQps) : 1;
  // message state: the message offset; the Write's VA, R_Key, bytes left. (Not the receive WQE:
  // a Send's is read again from the prefetch cache for each of its packets, a read response's
  // from its Read's context: see rwqe_q.)
  localparam int MsgW = 32 + 64 + 32 + 32;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_responder: DataWidth must be 64 or 256");
  end
  if (nic_pkg::QP_STATE_ERROR != 2'b10) begin : gen_bad_err_code
    $fatal(1, "nic_responder: fl_any_err expects QP_STATE_ERROR == 2'b10");
  end

  // ---- per-QP state -------------------------------------------------------------------------
  // expected PSN, MSN: written only at the QP an event names (the MSN by the dispatcher only);
  // a QP's entry not written since reset or since QP_CONNECT reads 0 (its bit in *_set_q is
  // clear), as a reset register would
  logic [23:0]          msn_q      [NumQps];
  logic [NumQps-1:0]    msn_set_q;
  logic                 epsn_we, msn_we;            // this cycle's write of the dispatcher's QP
  logic [23:0]          epsn_adv, msn_wd;           // (the expected PSN moves on by epsn_adv)
  logic [NumQps-1:0]    in_msg_q, in_msg_d;        // a message is half received
  logic [NumQps-1:0]    msg_wr_q, msg_wr_d;        // ... and it is a Write (else a Send)
  logic                 psn_dup, psn_ahead;        // the packet's PSN (nic_rsp_psn_check)
  logic                 psn_nak;                   // ... ahead, and no sequence NAK out yet
  logic                 psn_ahead_taken, psn_expected_taken;
  logic [NumQps-1:0]    rr_in_q, rr_in_d;          // a Read's responses are half placed
  logic [NumQps-1:0]    rr_nak_q, rr_nak_d;        // an implied NAK is out (one per gap)

  nic_pkg::cmd_qp_connect_t connect_args;     // QP_CONNECT's arguments (the generated format)
  assign connect_args = cmd_args_i;
  logic          cmd_in_range, cmd_connect, cmd_reset;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign cmd_reset    = cmd_valid_i && cmd_in_range
                        && (cmd_op_i == nic_pkg::CMD_QP_CREATE || cmd_op_i == nic_pkg::CMD_QP_DESTROY);

  // message state RAM: per QP one slot for the peer's request in progress ({0, qpn}) and one for
  // the responses of this side's Read in progress ({1, qpn}), which may interleave with it
  logic             ms_we, ms_re;
  logic [QW:0]      ms_waddr, ms_raddr;
  logic [MsgW-1:0]  ms_wdata, ms_rdata;

  // LUT RAM (nic_lutram_1r1w: the held read address and an asynchronous read, 160 bits x 2 *
  // NumQps): as a block RAM it took 5 DP16KD at a sixteenth of their depth, the scarce
  // resource; its registered address costs QW + 1 flip-flops where a LUT RAM's data register
  // would cost 160. It is read in R_IDLE and its data taken in R_LOAD, the next cycle, and
  // written only in R_DONE, so no write meets the held read before its data is used (the
  // template's following of the held address changes nothing here).
  nic_lutram_1r1w #(
    .Width   (MsgW),
    .Depth   (2 << QW)
  ) u_msg (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (ms_we),
    .waddr_i(ms_waddr),
    .wdata_i(ms_wdata),
    .re_i   (ms_re),
    .raddr_i(ms_raddr),
    .rdata_o(ms_rdata)
  );

  // the Reads this side answered: per QP a ring of the last MaxReads Read requests (first PSN,
  // PSNs taken, VA, length, R_Key), written when a new Read is accepted. A duplicate Read request (a PSN
  // behind the expected one: the requester sent it again because responses were lost) is
  // answered again from the saved Read whose PSNs hold it, from that PSN on (a duplicate may
  // start in the middle of the original); only the IRD newest are looked at. The expected PSN
  // and the MSN do not move.
  localparam int DRW  = (MaxReads > 1) ? $clog2(MaxReads) : 1;
  localparam int DupW = 24 + 24 + 64 + 32 + 32;
  logic [DRW-1:0]    dr_wp_q [NumQps];    // the QP's next slot to write
  logic [DRW:0]      dr_n_q  [NumQps];    // Reads saved, up to MaxReads
  logic [NumQps-1:0] dr_set_q, dr_set_d;  // the QP's pointers were written (clear: both read 0)
  logic [DRW-1:0]    q_dr_wp;
  logic [DRW:0]      q_dr_n, q_dr_lim;    // saved; of them, the ones to look at (IRD newest)
  logic              dr_we, dr_re;
  logic [DRW-1:0]    dr_rslot;
  logic [DupW-1:0]   dr_rdata;
  logic [DRW:0]      dup_k_q, dup_k_d;    // the saved Read looked at: dup_k before the newest
  logic              dup_q, dup_d;        // the Read request in hand is a duplicate


  // ---- packet FSM -------------------------------------------------------------------------------
  typedef enum logic [4:0] {
    R_IDLE,      // take a packet
    R_LOAD,      // its QP's message state is being read
    R_CHECK,     // PSN and opcode sequence
    R_RQ_WAIT,   // the receive WQE is posted but not on chip yet: wait for its prefetch
    R_WR_XL,     // check the Write's RETH (whole range)
    R_WR_XL_RSP,
    R_PIECE,     // plan the next piece of the payload
    R_XL,        // translate it
    R_XL_RSP,
    R_WREQ,      // its DMA write request
    R_WDATA,     // its beats
    R_INV,       // SendAndInvalidate: invalidate the IETH's token
    R_INV_RSP,
    R_DONE,      // the packet's payload is placed
    R_ACK,       // ACK / NAK out
    R_CPL,       // receive completion out
    R_DRAIN,     // drop the packet's payload
    R_FLUSH,     // a QP in ERROR: cancel its posted receives
    R_RR_CTX,    // a Read's first response: its read context arrives
    R_RD_XL,     // a Read request: check its RETH (whole range, remote read)
    R_RD_XL_RSP,
    R_RD_START,  // accepted: its PSNs and MSN are taken, it joins the read-response queue
    R_DUP_CMP    // a duplicate Read request: the saved Read looked at holds its PSN?
  } state_e;

  state_e                 state_q, state_d;
  nic_roce_pkg::rx_pkt_t  pkt_q;                  // loaded when taken (pkt_ready_o)
  logic [QW-1:0]          qpn_q, qpn_d;
  logic [511:0]           rwqe_q;                 // the receive WQE of the Send in progress
  logic                   rwqe_ld_pf;             // ... loaded from the prefetch cache (below)
  logic                   rwqe_ld_rr;             // ... from the Read's context (a response)
  logic                   rwqe_cap;               // ... from a write to the cache entry read
  logic [31:0]            moff_q, moff_d;         // message bytes placed before this packet
  logic [63:0]            wva_q, wva_d;           // Write: VA of the next byte
  logic [31:0]            wkey_q, wkey_d;         // Write: R_Key
  logic [31:0]            wleft_q, wleft_d;       // Write: bytes still expected
  logic [12:0]            pleft_q, pleft_d;       // this packet's bytes still to place
  logic [31:0]            poff_q, poff_d;         // message offset of the next byte to place
  logic [63:0]            phys_q, phys_d;         // the piece's logical address
  logic [12:0]            piece_q, piece_d;
  logic [7:0]             ack_syn_q, ack_syn_d;   // the ACK / NAK to send
  logic [23:0]            ack_psn_q, ack_psn_d;
  logic                   fatal_q, fatal_d;       // the QP goes to ERROR after the NAK
  logic [31:0]            cpl_status_q, cpl_status_d;
  logic                   cpl_due_q, cpl_due_d;   // a receive completes after the ACK
  logic [QW-1:0]          flush_q, flush_d;       // the QP whose receives are cancelled
  logic                   pl_done_q, pl_done_d;   // the packet's last payload word was taken
  logic                   rr_q, rr_d;             // the packet is a response to place
  logic                   ph_ok_q, ph_ok_d;       // phys holds the translation of wva (a Write's
                                                  // range check gave it): no translation needed

  // the packet in hand
  logic [7:0]  op;
  logic        is_send, is_write, is_first, is_last, is_ack, is_inv;
  logic        is_rreq, is_rresp, rr_first, rr_last;
  always_comb begin
    op          = pkt_q.opcode;
    is_send     = op <= nic_roce_pkg::OP_SEND_LAST || op == nic_roce_pkg::OP_SEND_ONLY
                  || op == nic_roce_pkg::OP_SEND_LAST_INV || op == nic_roce_pkg::OP_SEND_ONLY_INV;
    is_write    = (op >= nic_roce_pkg::OP_WRITE_FIRST && op <= nic_roce_pkg::OP_WRITE_LAST)
                  || op == nic_roce_pkg::OP_WRITE_ONLY;
    is_first    = op == nic_roce_pkg::OP_SEND_FIRST || op == nic_roce_pkg::OP_SEND_ONLY
                  || op == nic_roce_pkg::OP_SEND_ONLY_INV || op == nic_roce_pkg::OP_WRITE_FIRST
                  || op == nic_roce_pkg::OP_WRITE_ONLY;
    is_last     = op == nic_roce_pkg::OP_SEND_LAST || op == nic_roce_pkg::OP_SEND_ONLY
                  || op == nic_roce_pkg::OP_SEND_LAST_INV || op == nic_roce_pkg::OP_SEND_ONLY_INV
                  || op == nic_roce_pkg::OP_WRITE_LAST || op == nic_roce_pkg::OP_WRITE_ONLY;
    is_inv      = op == nic_roce_pkg::OP_SEND_LAST_INV || op == nic_roce_pkg::OP_SEND_ONLY_INV;
    is_ack      = op == nic_roce_pkg::OP_ACK;
    is_rreq     = op == nic_roce_pkg::OP_READ_REQUEST;
    is_rresp    = op >= nic_roce_pkg::OP_READ_RESP_FIRST && op <= nic_roce_pkg::OP_READ_RESP_ONLY;
    rr_first    = op == nic_roce_pkg::OP_READ_RESP_FIRST || op == nic_roce_pkg::OP_READ_RESP_ONLY;
    rr_last     = op == nic_roce_pkg::OP_READ_RESP_LAST || op == nic_roce_pkg::OP_READ_RESP_ONLY;
  end

  // the QP in hand: wire QPN = QPN_BASE + index
  logic          local_qpn;
  assign local_qpn = pkt_q.dqpn >= nic_pkg::QPN_BASE && pkt_q.dqpn - nic_pkg::QPN_BASE < 24'(NumQps);
  logic [23:0]   q_epsn;
  logic [23:0]   q_msn;
  logic [15:0]   q_pd;
  logic [1:0]    q_state;
  assign q_msn     = msn_set_q[qpn_q] ? msn_q[qpn_q] : 24'd0;

  // the expected PSN, the packet's PSN against it (duplicate, expected, ahead) and the
  // NAK-sent state: one sequence NAK per gap (proven: tests/formal/nic_rsp_psn_check_formal.sv)
  nic_rsp_psn_check #(
    .NumQps(NumQps)
  ) u_psn_check (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .qpn_i           (qpn_q),
    .psn_i           (pkt_q.psn),
    .epsn_o          (q_epsn),
    .dup_o           (psn_dup),
    .ahead_o         (psn_ahead),
    .nak_o           (psn_nak),
    .ahead_taken_i   (psn_ahead_taken),
    .expected_taken_i(psn_expected_taken),
    .advance_i       (epsn_we),
    .adv_i           (epsn_adv),
    .connect_i       (cmd_connect),
    .reset_i         (cmd_reset),
    .cmd_qpn_i       (cmd_qpn),
    .connect_psn_i   (connect_args.rq_psn)
  );
  assign q_pd      = ctx_pd_i;
  assign q_state   = qp_state_i[2*qpn_q +: 2];


  // the states that read the next piece (below): it is planned in R_PIECE, and R_XL / R_INV
  // show its token and VA on the translation port
  logic piece_use;
  assign piece_use = state_q == R_PIECE || state_q == R_XL || state_q == R_INV;

  // the receive WQE
  nic_pkg::wqe_recv_t rw;
  nic_pkg::sge_t      rsge;         // the SGE holding message offset poff
  logic [31:0]        rsge_start;   // its first byte's message offset
  always_comb begin
    rw         = rwqe_q;
    rsge       = rw.sge0;
    rsge_start = 32'd0;
    if (piece_use && rw.nsge >= 8'd2 && poff_q >= rw.sge0.length) begin
      rsge       = rw.sge1;
      rsge_start = rw.sge0.length;
      if (rw.nsge >= 8'd3 && poff_q >= rw.sge0.length + rw.sge1.length) begin
        rsge       = rw.sge2;
        rsge_start = rw.sge0.length + rw.sge1.length;
      end
    end
  end

  // the next piece: inside the SGE (Send, read response), the packet, a page and a burst; a
  // Write's placement runs through a region by VA and R_Key (wva, wkey)
  logic        by_rkey;
  logic [63:0] piece_va;
  logic [31:0] piece_token;
  nic_pkg::priv_token_t piece_tok;      // piece_token read as a PD's privileged token
  assign piece_tok = piece_token;
  logic [12:0] piece_len;
  logic        piece_priv;
  logic        pl_wr;                   // the placement is a Write's (else a receive's or a
  assign pl_wr   = msg_wr_q[qpn_q] && !rr_q;   // read response's: by SGE, local write)
  assign by_rkey = pl_wr;
  always_comb begin
    piece_va    = '0;
    piece_token = '0;
    piece_len   = '0;
    piece_priv  = 1'b0;
    if (piece_use) begin
      if (by_rkey) begin
        piece_va    = wva_q;
        piece_token = wkey_q;
        piece_len   = pleft_q;
      end else begin
        piece_va    = rsge.address + 64'(32'(poff_q - rsge_start));
        piece_token = rsge.token;
        piece_len   = pleft_q;
        if (rsge.length - (poff_q - rsge_start) < 32'(piece_len)) begin
          piece_len = 13'(rsge.length - (poff_q - rsge_start));
        end
      end
      piece_len = nic_dma_pkg::piece_clip(piece_len, piece_va[11:0], W8);
      piece_priv = piece_tok.marker == nic_pkg::PRIV_TOKEN_MARKER && !by_rkey;
    end
  end

  // ---- the placer (nic_rsp_placer) places each piece: started with its write request
  assign place_start_o  = state_q == R_WREQ && wr_req_ready_i;
  assign place_lane_o   = phys_q[LW-1:0];
  assign place_len_o    = piece_q;
  assign place_beats_o  = wr_req_len_o + 8'd1;
  assign place_active_o = state_q == R_WDATA;
  assign place_drain_o  = state_q == R_DRAIN;

  // ---- a Read request: how many PSNs its responses take ----------------------------------------
  // Read in R_RD_START (the PSNs a new Read takes, saved with it), where wleft_q has not moved
  // since the cycle before unless the Read has length 0 (R_CHECK went straight there; 0 bytes
  // take one PSN whatever the MTU): so it is registered, computed one cycle early from the same
  // wleft_q, and the division by the MTU (a shift by the QP context's log_mtu, an add) is not
  // on the path into the expected PSN's adder and the saved Reads' RAM. (A duplicate, which may
  // come to R_RD_START with a new wleft, takes no PSN and saves nothing.) The MTU of the cycle
  // before is the one of R_RD_START unless QP_CONNECT connected the QP anew in that very cycle,
  // which needs its request's QP destroyed, created and connected while the request was being
  // checked.
  logic [23:0] rd_npkts;                // responses: ceil(length / MTU), at least one
  logic [23:0] rd_npkts_q;              // ... of wleft_q as it was in the cycle before
  assign rd_npkts = (wleft_q == 32'd0) ? 24'd1 : rd_npkts_q;

  // a Read's context as a receive WQE, so its responses are placed like a Send's payload
  // (loaded in R_RR_CTX and R_CHECK only: rwqe_ld_rr)
  nic_pkg::wqe_recv_t rr_wqe;
  always_comb begin
    rr_wqe        = '0;
    rr_wqe.opcode = nic_pkg::WQE_OP_RECV;
    rr_wqe.nsge   = 8'(rctx_i.nsge);
    rr_wqe.length = rctx_i.length;
    rr_wqe.sge0   = rctx_i.sge0;
    rr_wqe.sge1   = rctx_i.sge1;
  end

  // ---- the dispatcher's ACK / NAK, and the completion --------------------------------------------
  nic_roce_pkg::tx_pkt_t ack_pkt;
  always_comb begin
    ack_pkt               = '0;
    ack_pkt.dst_mac       = pkt_q.src_mac;
    ack_pkt.dst_ip        = pkt_q.src_ip;
    ack_pkt.opcode        = nic_roce_pkg::OP_ACK;
    ack_pkt.dqpn          = ctx_peer_qpn_i;
    ack_pkt.sqpn          = nic_pkg::QPN_BASE + 24'(qpn_q);
    ack_pkt.psn           = ack_psn_q;
    ack_pkt.aeth.syndrome = ack_syn_q;
    ack_pkt.aeth.msn      = q_msn;
    ack_pkt.pay_len       = '0;
  end

  // The QP of the completion offered (or about to be) was reset by QP_DESTROY / QP_CREATE: its
  // receive indices are gone (nic_rsp_rq forgot them), so the offered CQE keeps the WQE index it
  // was offered with (cpl_idx_q) and taking it moves no index of the QP's next incarnation
  // (found by the fuzzer, tests/fuzz/: the index changed under a held completion).
  // Set when the completion's QP is reset in a cycle that enters or stays in R_CPL / R_FLUSH,
  // kept while it stays. Written from the transitions themselves rather than from state_d (the
  // whole next-state decision), which made it the deepest register of the dispatcher: staying
  // (the completion not taken; its QP and flush_q do not move), entering R_FLUSH (from R_IDLE,
  // at fl_qpn), entering R_CPL (the last packet of a Send placed without an ACK asked for, or
  // the ACK / NAK handed with a receive completion due, at qpn_q).
  logic          cpl_gone_q, cpl_gone_d;
  logic [15:0]   cpl_idx_q;
  logic          cpl_stay, cpl_to_flush, cpl_to_cpl;
  always_comb begin
    cpl_stay     = (state_q == R_CPL || state_q == R_FLUSH) && !cpl_ready_i;
    cpl_to_flush = state_q == R_IDLE && fl_found;
    cpl_to_cpl   = (state_q == R_DONE && !rr_q && is_last && !pkt_q.ackreq && is_send)
                   || (state_q == R_ACK && !rr_q && cpl_due_q
                       && ((m_tx_valid && tx_ready_i) || (!fatal_q && rdq_has_q && !rdq_full)));
    cpl_gone_d   = (cpl_stay && (cpl_gone_q || (cmd_reset && cmd_qpn == cpl_qpn_o)))
                   || (cpl_to_flush && cmd_reset && cmd_qpn == fl_qpn)
                   || (cpl_to_cpl && cmd_reset && cmd_qpn == qpn_q);
  end

  always_ff @(posedge clk_i) begin
    cpl_idx_q <= cpl_cqe_o.wqe_index;   // the index offered this cycle
  end

  nic_pkg::cqe_t cqe;
  always_comb begin
    cqe                   = '0;
    cqe.status            = (state_q == R_FLUSH) ? nic_pkg::STATUS_CANCELLED : cpl_status_q;
    cqe.bytes_transferred = (state_q != R_FLUSH && cpl_status_q == nic_pkg::STATUS_SUCCESS)
                            ? moff_q : 32'd0;
    cqe.wqe_index         = cpl_gone_q ? cpl_idx_q : ((state_q == R_FLUSH) ? fl_ci : q_ci);
    cqe.qpn               = (state_q == R_FLUSH) ? 16'(flush_q) : 16'(qpn_q);
    cqe.op_type           = nic_pkg::NDK_OP_TYPE_RECEIVE;
    cqe.flags             = nic_pkg::CQE_FLAG_RECV_QUEUE;
    if (state_q != R_FLUSH && cpl_status_q == nic_pkg::STATUS_SUCCESS) begin
      if (pkt_q.se) begin
        cqe.flags = cqe.flags | nic_pkg::CQE_FLAG_SOLICITED;
      end
      if (is_inv) begin
        cqe.op_type       = nic_pkg::NDK_OP_TYPE_RECEIVE_AND_INVALIDATE;
        cqe.flags         = cqe.flags | nic_pkg::CQE_FLAG_INVALIDATED;
        cqe.type_specific = pkt_q.ieth_rkey;
      end
    end
  end

  assign cpl_valid_o = state_q == R_CPL || state_q == R_FLUSH;
  assign cpl_qpn_o   = (state_q == R_FLUSH) ? flush_q : qpn_q;
  assign cpl_cqn_o   = cpl_rq_cqn_i;
  assign cpl_cqe_o   = cqe;

  // the receive queues (nic_rsp_rq): the dispatcher's QP's indices, the flush of a QP in ERROR
  logic [15:0]   q_ci, q_pi, fl_ci;
  logic [4:0]    q_pf_n;                // the dispatcher's QP's receive WQEs on chip
  logic [511:0]  pf_rdata;              // its WQE at ci, the cycle after R_LOAD (current)
  logic          fl_found;
  logic [QW-1:0] fl_qpn;
  assign q_ci          = rq_ci_i;
  assign q_pi          = rq_pi_i;
  assign q_pf_n        = rq_cached_i;
  // (rwqe_q holds the entry's last write since the read when there was one: rwqe_cap)
  assign pf_rdata      = rq_cache_fwd_i ? rwqe_q : rq_cache_wqe_i;
  assign fl_found      = flush_found_i;
  assign fl_qpn        = flush_found_qpn_i;
  assign fl_ci         = flush_ci_i;
  assign qpn_o         = qpn_q;
  assign rq_cache_re_o = state_q == R_LOAD;
  assign rq_consume_o  = state_q == R_CPL && cpl_ready_i && !cpl_gone_q;
  assign flush_find_o  = state_q == R_IDLE;
  assign flush_o       = state_q == R_FLUSH;
  assign flush_qpn_o   = flush_q;
  assign flush_done_o  = state_q == R_FLUSH && cpl_ready_i && !cpl_gone_q;

  // shared by the dispatcher (next state, below), the prefetch and the read-response engine
  logic m_xl_req, m_xl_gnt, m_xl_rsp;     // the dispatcher's translation request, grant, answer
  logic m_tx_valid, m_tx_ok, m_qp_err;    // its ACK / NAK offered, allowed; its QP to ERROR
  logic rdq_push, rdq_full;               // a Read accepted into the read-response queue
  logic rdq_push_ack;                     // ... or an ACK / NAK that goes after the QP's Reads
  logic rdq_has_q;                        // the dispatcher's QP has Reads (or ACKs) queued
  assign m_xl_gnt  = xl_gnt_i;
  assign m_xl_rsp  = xl_rsp_i;
  assign rdq_full  = rdq_full_i;
  assign rdq_has_q = rdq_has_i;

  // the read-response engine's pushes
  assign push_read_o     = rdq_push;
  assign push_ack_o      = rdq_push_ack;
  assign push_va_o       = wva_q;
  assign push_key_o      = wkey_q;
  assign push_len_o      = wleft_q;
  // a Read's MSN is taken in the cycle of the push; an ACK's was taken before
  assign push_psn_o      = rdq_push_ack ? ack_psn_q : pkt_q.psn;
  assign push_msn_o      = q_msn + 24'(rdq_push && !dup_q);   // a duplicate takes none
  assign push_syn_o      = ack_syn_q;
  assign push_peer_qpn_o = ctx_peer_qpn_i;
  assign push_mac_o      = pkt_q.src_mac;
  assign push_ip_o       = pkt_q.src_ip;
  assign rdq_has_en_o    = state_q == R_ACK;

  // ---- the translation request (its fields, whenever it is made) ----------------------------
  assign xl_req_o = m_xl_req;
  always_comb begin
    // a Read's range is wva / wkey / wleft: its RETH's, or a duplicate's part of the saved one
    xl_token_o  = (state_q == R_WR_XL) ? pkt_q.reth.rkey : (state_q == R_RD_XL) ? wkey_q
                : (state_q == R_INV) ? pkt_q.ieth_rkey : piece_token;
    xl_inv_o    = state_q == R_INV;
    xl_va_o     = (state_q == R_WR_XL) ? pkt_q.reth.va : (state_q == R_RD_XL) ? wva_q : piece_va;
    xl_len_o    = (state_q == R_WR_XL) ? pkt_q.reth.dma_len : (state_q == R_RD_XL) ? wleft_q
                                                              : 32'(piece_q);
    xl_pd_o     = q_pd;
    xl_access_o = (state_q == R_RD_XL) ? nic_pkg::FLAG_ALLOW_REMOTE_READ
                : (pl_wr || state_q == R_WR_XL) ? nic_pkg::FLAG_ALLOW_REMOTE_WRITE
                : nic_pkg::FLAG_ALLOW_LOCAL_WRITE;
  end

  // ---- the ACK / NAK: after this QP's queued Reads are answered, between the engine's packets
  assign m_tx_ok    = tx_free_i && !rdq_has_q;
  assign m_tx_valid = state_q == R_ACK && !rr_q && m_tx_ok;
  assign tx_valid_o = m_tx_valid;
  assign tx_pkt_o   = ack_pkt;
  assign qp_err_o   = m_qp_err;

  nic_ram_1r1w #(
    .Width  (DupW),
    .Depth  (NumQps << DRW),
    .Forward(1'b0)
  ) u_dup_reads (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (dr_we),
    .waddr_i({qpn_q, q_dr_wp}),
    .wdata_i({pkt_q.psn, rd_npkts, wva_q, wleft_q, wkey_q}),
    .re_i   (dr_re),
    .raddr_i({qpn_q, dr_rslot}),
    .rdata_o(dr_rdata)
  );

  // the saved Read read (dr_rdata, in R_DUP_CMP) and whether it holds the duplicate's PSN. Its
  // PSN count (de_npkts) is saved with it, computed when it was accepted (rd_npkts, the PSNs it
  // took), not again from its length and the path MTU when it is looked at: the division by the
  // MTU (a shift by the QP context's log_mtu, an add and a test for zero) ran from the RAM's
  // output through the compare into the next state. The MTU is the same then and now: it is
  // written only by QP_CONNECT, which forgets the QP's saved Reads (dr_set). (Only a lookup
  // already under way, for a request of the QP's previous life, would meet a new MTU: the QP
  // destroyed, created and connected again within the lookup's at most IRD cycles.)
  logic [23:0] de_psn, de_off, de_npkts;
  logic [63:0] de_va;
  logic [31:0] de_len, de_key, de_skip;
  logic        de_hit;
  assign {de_psn, de_npkts, de_va, de_len, de_key} = dr_rdata;
  assign de_off  = pkt_q.psn - de_psn;                       // responses before the duplicate's
  assign de_hit  = de_off < de_npkts;
  assign de_skip = 32'(de_off) << ctx_log_mtu_i;             // ... and their bytes
  assign q_dr_wp  = dr_set_q[qpn_q] ? dr_wp_q[qpn_q] : '0;
  assign q_dr_n   = dr_set_q[qpn_q] ? dr_n_q[qpn_q] : '0;
  assign q_dr_lim = (32'(ctx_ird_i) < 32'(q_dr_n)) ? (DRW+1)'(ctx_ird_i) : q_dr_n;

  // ---- the responses to this side's Reads: the oldest Read not yet placed (rctx_*, asked for
  // in R_LOAD for an ACK / NAK or a response, again in R_CHECK for a FIRST / ONLY) and its first
  // PSN not placed (rr_next: the next response of a half-placed Read, else the Read's first
  // PSN). A response beyond rr_next, or an ACK / NAK that acknowledges rr_next, skipped it: an
  // implied NAK (IBA 9.7.5.1.4): nothing beyond rr_next is acknowledged to the requester, which
  // is told a PSN-sequence NAK of rr_next instead (once until a response is placed: rr_nak) and
  // asks for the Read again from rr_next (its answer's FIRST at rr_next continues the
  // placement). A response behind rr_next is a duplicate of one placed already, a FIRST at the
  // half-placed Read's first PSN too (a duplicated or late frame: once a response is placed the
  // requester never asks for the Read from its first PSN again): dropped.
  logic [23:0] rr_next, ack_upto_w;
  logic        rr_skip_ack;              // the ACK / NAK in hand acknowledges rr_next
  assign rr_next     = rr_in_q[qpn_q] ? wkey_q[23:0] : rctx_i.psn;
  assign ack_upto_w  = (pkt_q.aeth.syndrome[7:5] == 3'b000) ? pkt_q.psn : pkt_q.psn - 24'd1;
  assign rr_skip_ack = rctx_avail_i && nic_roce_pkg::psn_le(rr_next, ack_upto_w);
  // a NAK that ends the connection (syndrome 011x_xxxx, not the PSN sequence error 0x60)
  logic        rr_fatal_nak;
  assign rr_fatal_nak = pkt_q.aeth.syndrome[7:5] == 3'b011
                        && pkt_q.aeth.syndrome != nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;

  // ---- next state ---------------------------------------------------------------------------
  // where a packet ends: its payload all taken (placed), nothing is left to drop
  state_e pkt_end;
  assign pkt_end = (pkt_q.pay_len == '0 || pl_done_q) ? R_IDLE : R_DRAIN;

  always_comb begin
    state_d      = state_q;
    qpn_d        = qpn_q;
    moff_d       = moff_q;
    wva_d        = wva_q;
    wkey_d       = wkey_q;
    wleft_d      = wleft_q;
    pleft_d      = pleft_q;
    poff_d       = poff_q;
    phys_d       = phys_q;
    piece_d      = piece_q;
    ack_syn_d    = ack_syn_q;
    ack_psn_d    = ack_psn_q;
    fatal_d      = fatal_q;
    cpl_status_d = cpl_status_q;
    cpl_due_d    = cpl_due_q;
    flush_d      = flush_q;
    pl_done_d    = pl_done_q;
    epsn_we      = 1'b0;
    epsn_adv     = 24'd1;
    msn_we       = 1'b0;
    msn_wd       = q_msn + 24'd1;
    in_msg_d     = in_msg_q;
    msg_wr_d     = msg_wr_q;
    psn_ahead_taken    = 1'b0;
    psn_expected_taken = 1'b0;
    rr_d         = rr_q;
    ph_ok_d      = ph_ok_q;
    rr_in_d      = rr_in_q;
    rr_nak_d     = rr_nak_q;
    dup_d        = dup_q;
    dup_k_d      = dup_k_q;
    dr_we        = 1'b0;
    dr_re        = 1'b0;
    dr_rslot     = q_dr_wp - DRW'(1);
    ack_implied_o   = 1'b0;
    ev_ack_rx_o     = 1'b0;
    ev_ack_syn_o    = pkt_q.aeth.syndrome;
    ev_out_of_seq_o = 1'b0;
    ev_dup_req_o    = 1'b0;

    pkt_ready_o    = 1'b0;
    pl_ready_o     = 1'b0;
    ack_valid_o    = 1'b0;
    ack_qpn_o      = 8'(pkt_q.dqpn - nic_pkg::QPN_BASE);
    ack_psn_o      = pkt_q.psn;
    ack_syndrome_o = pkt_q.aeth.syndrome;
    m_xl_req       = 1'b0;
    wr_req_valid_o = 1'b0;
    wr_req_addr_o  = {phys_q[63:LW], {LW{1'b0}}};
    wr_req_len_o   = nic_dma_pkg::burst_len(12'(phys_q[LW-1:0]), piece_q, W8);
    rdq_push       = 1'b0;
    rdq_push_ack   = 1'b0;
    ms_re          = 1'b0;
    ms_raddr       = {rr_q, qpn_q};
    ms_we          = 1'b0;
    ms_waddr       = {rr_q, qpn_q};
    rctx_req_o     = 1'b0;
    rctx_qpn_o     = 8'(qpn_q);
    rdone_o        = 1'b0;
    rdone_qpn_o    = 8'(qpn_q);
    ms_wdata       = {poff_q, wva_q, wkey_q, wleft_q};
    m_qp_err       = 1'b0;

    unique case (state_q)
      R_IDLE: begin
        if (fl_found) begin
          flush_d = fl_qpn;
          state_d = R_FLUSH;
        end else if (pkt_valid_i) begin
          pkt_ready_o = 1'b1;
          pl_done_d   = 1'b0;
          ph_ok_d     = 1'b0;
          qpn_d       = QW'(pkt_i.dqpn - nic_pkg::QPN_BASE);
          // a read response's placement state is in the QP's second slot
          rr_d        = pkt_i.opcode >= nic_roce_pkg::OP_READ_RESP_FIRST
                        && pkt_i.opcode <= nic_roce_pkg::OP_READ_RESP_ONLY;
          dup_d       = 1'b0;
          ms_re       = 1'b1;
          // an ACK / NAK reads the response slot too: its placement state says rr_next
          ms_raddr    = {rr_d || pkt_i.opcode == nic_roce_pkg::OP_ACK,
                         QW'(pkt_i.dqpn - nic_pkg::QPN_BASE)};
          state_d     = R_LOAD;
        end
      end
      R_LOAD: begin
        // the message state arrives; restore the in-progress placement
        {moff_d, wva_d, wkey_d, wleft_d} = ms_rdata;
        ack_psn_d = pkt_q.psn;
        rctx_req_o = is_ack || is_rresp;     // the oldest Read not placed, for R_CHECK
        state_d   = R_CHECK;
      end
      R_CHECK: begin
        poff_d  = moff_q;
        pleft_d = pkt_q.pay_len;
        if (is_ack) begin
          // ACK / NAK: the requester's, unless it skips a Read of ours not placed (an implied
          // NAK of rr_next instead, once)
          ev_ack_rx_o = local_qpn;
          ack_valid_o = local_qpn && !rr_skip_ack;
          if (local_qpn && rr_skip_ack && rr_fatal_nak) begin
            // a fatal NAK (invalid request, remote access or operational error) of a later
            // request: the peer's QP is in error and will answer nothing again, so asking for the
            // Read again could only end IO_TIMEOUT after every retry. The requester is given the
            // NAK itself at rr_next: the Read, whose data did not come, completes with the NAK's
            // status and the QP goes to error (the requests after it complete CANCELLED)
            ack_valid_o    = 1'b1;
            ack_psn_o      = rr_next;
          end else if (local_qpn && rr_skip_ack) begin
            ack_valid_o    = !rr_nak_q[qpn_q];
            ack_psn_o      = rr_next;
            ack_syndrome_o = nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
            ack_implied_o  = 1'b1;
            rr_nak_d[qpn_q] = 1'b1;
          end
          state_d     = pkt_end;
        end else if (!local_qpn || q_state != nic_pkg::QP_STATE_RTS) begin
          state_d = R_DRAIN;
        end else if (is_rresp) begin
          // a response to this side's Read (its PSN range is the requester's, not q_epsn);
          // wva[23:0]: the Read's first PSN, wkey[23:0]: the next response's PSN
          fatal_d   = 1'b0;
          cpl_due_d = 1'b0;
          if (rr_first) begin
            rctx_req_o = 1'b1;
            state_d    = R_RR_CTX;
          end else if (!rctx_avail_i) begin
            state_d = R_DRAIN;               // no Read of ours outstanding: a stray, ignored
          end else if (rr_in_q[qpn_q] && pkt_q.psn == wkey_q[23:0]) begin
            state_d = R_PIECE;               // the next response of the Read in progress
          end else if (nic_roce_pkg::psn_le(pkt_q.psn, rr_next - 24'd1)) begin
            state_d = R_DRAIN;               // a duplicate of a response placed already
          end else if (!rr_in_q[qpn_q] && pkt_q.psn == rctx_i.psn) begin
            // a MIDDLE / LAST where the Read's FIRST belongs: out of opcode sequence
            wva_d     = 64'(rctx_i.psn);
            ack_syn_d = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;
            state_d   = R_ACK;
          end else begin
            // beyond rr_next: the responses between were lost (an implied NAK)
            ack_valid_o     = !rr_nak_q[qpn_q];
            ack_psn_o       = rr_next;
            ack_syndrome_o  = nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
            ack_implied_o   = 1'b1;
            rr_nak_d[qpn_q] = 1'b1;
            state_d         = R_DRAIN;
          end
        end else if (psn_dup || psn_ahead) begin
          if (psn_dup) begin
            // a duplicate: not executed again; acknowledge what we have (the last PSN and
            // MSN) if it asks, drop it. A duplicate Read is answered again from the saved Read
            // that holds its PSN (R_DUP_CMP), or acknowledged so if none does.
            ev_dup_req_o = 1'b1;
            ack_syn_d = nic_roce_pkg::AETH_ACK;
            ack_psn_d = q_epsn - 24'd1;
            fatal_d   = 1'b0;
            cpl_due_d = 1'b0;
            state_d   = pkt_q.ackreq ? R_ACK : R_DRAIN;
            if (is_rreq && q_dr_lim != '0) begin
              dr_re   = 1'b1;                // the newest saved Read
              dup_k_d = '0;
              state_d = R_DUP_CMP;
            end
          end else begin
            // ahead of the expected PSN: a packet was lost; NAK once
            ev_out_of_seq_o = 1'b1;
            ack_syn_d = nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
            ack_psn_d = q_epsn;
            fatal_d   = 1'b0;
            cpl_due_d = 1'b0;
            state_d   = psn_nak ? R_ACK : R_DRAIN;
            psn_ahead_taken = 1'b1;
          end
        end else if (is_rreq && !in_msg_q[qpn_q] && ctx_ird_i != 8'd0) begin
          // a Read request: checked here, answered by the read-response engine
          psn_expected_taken = 1'b1;
          dup_d    = 1'b0;
          wva_d    = pkt_q.reth.va;
          wkey_d   = pkt_q.reth.rkey;
          wleft_d  = pkt_q.reth.dma_len;
          fatal_d  = 1'b0;
          cpl_due_d = 1'b0;
          // a zero-length Read names no memory: its R_Key is not checked
          state_d  = (pkt_q.reth.dma_len == 32'd0) ? R_RD_START : R_RD_XL;
        end else if (!(is_send || is_write) || is_first == in_msg_q[qpn_q]
                     || (!is_first && msg_wr_q[qpn_q] != is_write)) begin
          // FIRST/ONLY inside a message, MIDDLE/LAST outside one, a Read inside a message or
          // beyond an IRD of 0
          ack_syn_d = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;
          fatal_d   = 1'b1;
          cpl_due_d = 1'b0;
          state_d   = R_ACK;
        end else begin
          psn_expected_taken = 1'b1;
          if (is_first) begin
            msg_wr_d[qpn_q] = is_write;
            poff_d          = '0;
            moff_d          = '0;
          end
          if (is_send && is_first) begin
            if (q_ci == q_pi) begin
              // no receive posted: RNR NAK, the requester retries
              ack_syn_d = nic_roce_pkg::AETH_RNR_NAK;
              fatal_d   = 1'b0;
              cpl_due_d = 1'b0;
              state_d   = R_ACK;
            end else if (q_pf_n != '0) begin
              state_d = R_PIECE;           // prefetched: read from the cache in R_LOAD
            end else begin
              state_d = R_RQ_WAIT;
            end
          end else if (is_write && is_first) begin
            wva_d   = pkt_q.reth.va;
            wkey_d  = pkt_q.reth.rkey;
            wleft_d = pkt_q.reth.dma_len;
            state_d = (pkt_q.reth.dma_len == 32'd0) ? R_PIECE : R_WR_XL;
          end else begin
            state_d = R_PIECE;
          end
        end
      end
      R_RQ_WAIT: begin
        // the prefetch is on its way (it serves every QP with a posted WQE not on chip); the
        // cache read of R_LOAD follows writes to the held entry, so its data is current
        if (q_state != nic_pkg::QP_STATE_RTS || q_ci == q_pi) begin
          state_d = R_DRAIN;               // the QP failed or was destroyed meanwhile
        end else if (q_pf_n != '0) begin
          state_d = R_PIECE;
        end
      end
      R_WR_XL: begin
        m_xl_req = 1'b1;
        if (m_xl_gnt) begin
          state_d = R_WR_XL_RSP;
        end
      end
      R_WR_XL_RSP: begin
        if (m_xl_rsp) begin
          if (xl_status_i != nic_pkg::STATUS_SUCCESS) begin
            ack_syn_d = nic_roce_pkg::AETH_NAK_REMOTE_ACCESS;
            fatal_d   = 1'b1;
            cpl_due_d = 1'b0;
            state_d   = R_ACK;
          end else begin
            // the check translated the first byte's page too
            phys_d  = {xl_pfn_i, xl_page_off_i};
            ph_ok_d = 1'b1;
            state_d = R_PIECE;
          end
        end
      end
      R_PIECE: begin
        ph_ok_d = 1'b0;
        if (!pl_wr && rw.opcode != nic_pkg::WQE_OP_RECV) begin
          // not a receive WQE where one should be: the ring is corrupt
          ack_syn_d    = nic_roce_pkg::AETH_NAK_REMOTE_OP;
          fatal_d      = 1'b1;
          cpl_due_d    = 1'b1;
          cpl_status_d = nic_pkg::STATUS_INVALID_PARAMETER;
          state_d      = R_ACK;
        end else if ((!pl_wr && poff_q + 32'(pleft_q) > rw.length)
                     || (pl_wr && 32'(pleft_q) > wleft_q)) begin
          // the message is longer than the receive (Send), than its RETH said (Write) or than
          // the Read asked (read response)
          ack_syn_d    = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;
          fatal_d      = 1'b1;
          cpl_due_d    = !pl_wr && !rr_q;
          cpl_status_d = nic_pkg::STATUS_DATA_OVERRUN;
          state_d      = R_ACK;
        end else if (pleft_q == '0) begin
          // the packet is placed; the last of a SendAndInvalidate first invalidates its token
          state_d = (is_inv && is_last) ? R_INV : R_DONE;
        end else begin
          piece_d = piece_len;
          if (piece_priv) begin
            if (piece_tok.pd != q_pd) begin
              ack_syn_d    = rr_q ? nic_roce_pkg::AETH_NAK_REMOTE_ACCESS
                                  : nic_roce_pkg::AETH_NAK_REMOTE_OP;
              fatal_d      = 1'b1;
              cpl_due_d    = !rr_q;
              cpl_status_d = nic_pkg::STATUS_ACCESS_VIOLATION;
              state_d      = R_ACK;
            end else begin
              phys_d  = piece_va;
              state_d = R_WREQ;
            end
          end else begin
            state_d = (pl_wr && ph_ok_q) ? R_WREQ : R_XL;
          end
        end
      end
      R_XL: begin
        m_xl_req = 1'b1;
        if (m_xl_gnt) begin
          state_d = R_XL_RSP;
        end
      end
      R_XL_RSP: begin
        if (m_xl_rsp) begin
          if (xl_status_i != nic_pkg::STATUS_SUCCESS) begin
            // a receive or Read sink SGE the QP may not write, or a Write / Read region gone
            // since its check (a Read's response is already on its way: zeros complete it)
            ack_syn_d    = (pl_wr || rr_q) ? nic_roce_pkg::AETH_NAK_REMOTE_ACCESS
                                           : nic_roce_pkg::AETH_NAK_REMOTE_OP;
            fatal_d      = 1'b1;
            cpl_due_d    = !pl_wr && !rr_q;
            cpl_status_d = nic_pkg::STATUS_ACCESS_VIOLATION;
            state_d      = R_ACK;
          end else begin
            phys_d  = {xl_pfn_i, xl_page_off_i};
            state_d = R_WREQ;
          end
        end
      end
      R_INV: begin
        m_xl_req = 1'b1;
        if (m_xl_gnt) begin
          state_d = R_INV_RSP;
        end
      end
      R_INV_RSP: begin
        if (m_xl_rsp) begin
          if (xl_status_i != nic_pkg::STATUS_SUCCESS) begin
            // not a token this QP may invalidate (unknown, not VALID, another key or PD): the
            // connection is aborted, as NDK requires; the receive reports the violation
            ack_syn_d    = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;
            fatal_d      = 1'b1;
            cpl_due_d    = 1'b1;
            cpl_status_d = nic_pkg::STATUS_ACCESS_VIOLATION;
            state_d      = R_ACK;
          end else begin
            state_d = R_DONE;
          end
        end
      end
      R_WREQ: begin
        wr_req_valid_o = 1'b1;
        if (wr_req_ready_i) begin
          state_d = R_WDATA;                         // the placer starts (pc_start)
        end
      end
      R_WDATA: begin
        // the placer takes the payload and sends the beats
        pl_ready_o = place_word_done_i;
        if (place_done_i) begin
          pleft_d = pleft_q - piece_q;
          poff_d  = poff_q + 32'(piece_q);
          // (a read response keeps its Read's first PSN in wva: a failing one NAKs that PSN)
          wva_d   = rr_q ? wva_q : wva_q + 64'(piece_q);
          wleft_d = wleft_q - 32'(piece_q);
          // the packet's last piece: straight on (R_PIECE has nothing more to check)
          state_d = (pleft_q != piece_q) ? R_PIECE : (is_inv && is_last) ? R_INV : R_DONE;
        end
      end
      R_DONE: begin
        if (rr_q) begin
          // a response is placed (its writes accepted by nic_dma_wr, so no completion can
          // overtake them): it acknowledges its PSN and everything before it
          if (rr_last && poff_q != rw.length) begin
            ack_syn_d = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;   // fewer bytes than asked
            state_d   = R_ACK;
          end else begin
            ack_valid_o    = 1'b1;
            ack_psn_o      = pkt_q.psn;
            ack_syndrome_o = nic_roce_pkg::AETH_ACK;
            rr_in_d[qpn_q] = !rr_last;
            rr_nak_d[qpn_q] = 1'b0;          // progress: a later gap gets its implied NAK
            rdone_o        = rr_last;
            ms_we          = !rr_last;
            ms_wdata       = {poff_q, wva_q, {8'd0, pkt_q.psn + 24'd1}, wleft_q};
            state_d        = pkt_end;
          end
        end else begin
        // the packet is placed
        epsn_we   = 1'b1;
        moff_d    = poff_q;
        ack_syn_d = nic_roce_pkg::AETH_ACK;
        fatal_d   = 1'b0;
        cpl_status_d = nic_pkg::STATUS_SUCCESS;
        cpl_due_d = is_send && is_last;
        if (is_last) begin
          in_msg_d[qpn_q]       = 1'b0;
          msn_we          = 1'b1;
          state_d = pkt_q.ackreq ? R_ACK : (is_send ? R_CPL : pkt_end);
        end else begin
          in_msg_d[qpn_q] = 1'b1;
          ms_we           = 1'b1;
          ms_wdata        = {poff_q, wva_q, wkey_q, wleft_q};
          state_d         = pkt_q.ackreq ? R_ACK : pkt_end;
        end
        end
      end
      R_ACK: begin
        if (rr_q) begin
          // a bad response fails this side's Read: a NAK of its first PSN to the requester
          // (nothing goes on the wire; the requester's completion moves the QP to ERROR)
          ack_valid_o    = 1'b1;
          ack_psn_o      = wva_q[23:0];
          ack_syndrome_o = ack_syn_q;
          rr_in_d[qpn_q] = 1'b0;
          state_d        = R_DRAIN;
        end
        if (m_tx_valid && tx_ready_i) begin
          if (fatal_q) begin
            m_qp_err        = 1'b1;
            in_msg_d[qpn_q] = 1'b0;
          end
          state_d = cpl_due_q ? R_CPL : pkt_end;
        end else if (!rr_q && !fatal_q && rdq_has_q && !rdq_full) begin
          // Reads of this QP are still being answered: the ACK / NAK joins the read-response
          // queue behind them and the dispatcher goes on (a fatal NAK waits, it ends the QP)
          rdq_push_ack = 1'b1;
          state_d      = cpl_due_q ? R_CPL : pkt_end;
        end
      end
      R_CPL: begin
        if (cpl_ready_i) begin
          state_d = pkt_end;                 // the receive is consumed (nic_rsp_rq)
        end
      end
      R_DRAIN: begin
        // every packet ends here: the payload words not placed (all of a dropped packet, the
        // rest of one that failed midway) are taken and dropped, up to the last one
        if (pkt_q.pay_len == '0 || pl_done_q) begin
          state_d = R_IDLE;
        end else begin
          pl_ready_o = 1'b1;
          if (pl_valid_i && pl_last_i) begin
            state_d = R_IDLE;
          end
        end
      end
      R_RR_CTX: begin
        // the read context of the QP's oldest Read not yet placed
        // (rwqe_q: the Read's context as a receive WQE, in the clocked block, as in R_CHECK)
        wva_d   = 64'(rctx_i.psn);
        moff_d  = '0;
        poff_d  = '0;
        if (!rctx_avail_i) begin
          state_d = R_DRAIN;                 // no Read of ours outstanding: a stray, ignored
        end else if (!rr_in_q[qpn_q] && pkt_q.psn == rctx_i.psn) begin
          // its first response
          state_d = R_PIECE;
        end else if (rr_in_q[qpn_q] && pkt_q.psn == wkey_q[23:0]) begin
          // a FIRST / ONLY where the Read's next response belongs: the answer to the Read asked
          // for again from there (the requester resumes a half-placed Read at its first
          // response not placed): its placement goes on where it stopped
          wva_d   = wva_q;
          moff_d  = moff_q;
          poff_d  = poff_q;
          state_d = R_PIECE;
        end else if (nic_roce_pkg::psn_le(pkt_q.psn, rr_next - 24'd1)) begin
          state_d = R_DRAIN;                 // a duplicate of a response placed already
        end else begin
          // a later Read's response: this Read's were lost (an implied NAK)
          ack_valid_o     = !rr_nak_q[qpn_q];
          ack_psn_o       = rr_next;
          ack_syndrome_o  = nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
          ack_implied_o   = 1'b1;
          rr_nak_d[qpn_q] = 1'b1;
          state_d         = R_DRAIN;
        end
      end
      R_RD_XL: begin
        m_xl_req = 1'b1;
        if (m_xl_gnt) begin
          state_d = R_RD_XL_RSP;
        end
      end
      R_RD_XL_RSP: begin
        if (m_xl_rsp) begin
          if (xl_status_i != nic_pkg::STATUS_SUCCESS) begin
            ack_syn_d = nic_roce_pkg::AETH_NAK_REMOTE_ACCESS;
            fatal_d   = 1'b1;
            state_d   = R_ACK;
          end else begin
            state_d = R_RD_START;
          end
        end
      end
      R_RD_START: begin
        // the Read is accepted: it takes one PSN per response and is one message; its
        // responses are the read-response engine's (the queue has room for it)
        if (!rdq_full) begin
          rdq_push = 1'b1;
          // a new Read is saved for its duplicates and moves the PSN and MSN; a duplicate not
          epsn_we                = !dup_q;
          epsn_adv               = rd_npkts;
          msn_we                 = !dup_q;
          dr_we                  = !dup_q;
          state_d                = pkt_end;
        end
      end
      R_DUP_CMP: begin
        // the saved Read dup_k before the newest (read last cycle): does it hold the PSN?
        if (de_hit) begin
          // answered again from the duplicate's PSN on: the saved range past the responses
          // before it, checked against the MR table again
          dup_d   = 1'b1;
          wva_d   = de_va + 64'(de_skip);
          wkey_d  = de_key;
          wleft_d = de_len - de_skip;
          // nothing left (de_len == de_skip) only for a Read of length 0: with a hit, de_off is
          // below ceil(de_len / MTU), so de_skip < de_len whenever de_len != 0
          state_d = (de_len == 32'd0) ? R_RD_START : R_RD_XL;
        end else if (32'(dup_k_q) + 32'd1 < 32'(q_dr_lim)) begin
          dr_re    = 1'b1;
          dr_rslot = q_dr_wp - DRW'(1) - DRW'(dup_k_q + (DRW+1)'(1));
          dup_k_d  = dup_k_q + (DRW+1)'(1);
        end else begin
          // older than the Reads kept: acknowledged as a duplicate (ack_* set in R_CHECK)
          state_d = R_ACK;
        end
      end
      R_FLUSH: begin
        if (cpl_ready_i) begin
          state_d = R_IDLE;                  // its receive is flushed (nic_rsp_rq)
        end
      end
      default: begin
        state_d = R_IDLE;
      end
    endcase

    if (pl_valid_i && pl_ready_o && pl_last_i) begin
      pl_done_d = 1'b1;
    end

    // QP_CONNECT starts the expected PSN; QP_CREATE / QP_DESTROY forget the QP
    if (cmd_connect) begin
      in_msg_d[cmd_qpn]        = 1'b0;
      rr_in_d[cmd_qpn]         = 1'b0;
      rr_nak_d[cmd_qpn]        = 1'b0;
    end
    if (cmd_reset) begin
      in_msg_d[cmd_qpn]         = 1'b0;
      rr_in_d[cmd_qpn]          = 1'b0;
      rr_nak_d[cmd_qpn]         = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q  <= R_IDLE;
      cpl_gone_q <= 1'b0;
      in_msg_q <= '0;
      msg_wr_q <= '0;
      rr_in_q  <= '0;
      rr_nak_q <= '0;
      dup_q    <= 1'b0;
      dup_k_q  <= '0;
      rr_q     <= 1'b0;
      ph_ok_q  <= 1'b0;
      qpn_q    <= '0;
      flush_q  <= '0;
      pl_done_q <= 1'b0;
      fatal_q  <= 1'b0;
      cpl_due_q <= 1'b0;
    end else begin
      state_q  <= state_d;
      cpl_gone_q <= cpl_gone_d;
      in_msg_q <= in_msg_d;
      msg_wr_q <= msg_wr_d;
      rr_in_q  <= rr_in_d;
      rr_nak_q <= rr_nak_d;
      dup_q    <= dup_d;
      dup_k_q  <= dup_k_d;
      rr_q     <= rr_d;
      ph_ok_q  <= ph_ok_d;
      qpn_q    <= qpn_d;
      flush_q  <= flush_d;
      pl_done_q <= pl_done_d;
      fatal_q  <= fatal_d;
      cpl_due_q <= cpl_due_d;
    end
  end

  // the per-QP MSN: one writer, the dispatcher (so it is a LUT RAM); QP_CONNECT starts the MSN
  // at 0 by clearing the QP's msn_set_q bit (reads 0 until written), after the dispatcher's
  // write: a command wins a same-cycle clash (the expected PSN is u_psn_check's)
  always_ff @(posedge clk_i) begin
    if (msn_we) begin
      msn_q[qpn_q] <= msn_wd;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      msn_set_q   <= '0;
    end else begin
      if (msn_we) begin
        msn_set_q[qpn_q] <= 1'b1;
      end
      if (cmd_connect) begin
        msn_set_q[cmd_qpn] <= 1'b0;
      end
    end
  end

  // the saved Reads' pointers (dr_set_q clear: the QP's read 0); QP_CONNECT, QP_CREATE and
  // QP_DESTROY forget the QP's saved Reads
  always_ff @(posedge clk_i) begin
    if (dr_we) begin
      dr_wp_q[qpn_q] <= q_dr_wp + DRW'(1);
      dr_n_q[qpn_q]  <= (32'(q_dr_n) == MaxReads) ? q_dr_n : q_dr_n + (DRW+1)'(1);
    end
  end
  always_comb begin
    dr_set_d = dr_set_q;
    if (dr_we) begin
      dr_set_d[qpn_q] = 1'b1;
    end
    if (cmd_connect || cmd_reset) begin
      dr_set_d[cmd_qpn] = 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      dr_set_q <= '0;
    end else begin
      dr_set_q <= dr_set_d;
    end
  end

  // The receive WQE is taken from the prefetch cache (read in R_LOAD, current in R_RQ_WAIT) when a
  // Send's packet finds it on chip, in R_CHECK or R_RQ_WAIT. It is loaded on that test alone, not
  // on the whole of R_CHECK's verdict (PSN, QP state, opcode sequence: one select of 512
  // flip-flops), so it is also loaded for a packet that is then dropped, NAKed or found RNR;
  // rwqe_q is dead on all those paths (only R_PIECE, R_XL, R_INV and a response's R_DONE read
  // it, and every packet that gets there loaded it in R_CHECK, R_RQ_WAIT or R_RR_CTX).
  // A MIDDLE / LAST reads the WQE its FIRST read (the message state kept a copy of it before):
  // a receive stays in the cache, at ci, until its message completes (R_CPL consumes it), and
  // the prefetch writes only slots past the cached ones; QP_CREATE / QP_DESTROY, which forget
  // the cache, end the message too (in_msg). A read response's MIDDLE / LAST likewise builds it
  // again from its Read's context (asked for in R_LOAD, here in R_CHECK): the oldest Read not
  // placed, the one half placed (rr_in), whose context is not written before it is placed.
  // The simulation checks both against the copy the message state kept (a_rwqe_as_kept).
  assign rwqe_ld_pf = ((state_q == R_CHECK && is_send) || state_q == R_RQ_WAIT)
                      && q_pf_n != '0;
  assign rwqe_ld_rr = state_q == R_RR_CTX || (state_q == R_CHECK && is_rresp);
  // The cache entry read in R_LOAD may be written by the prefetch from that cycle on (in R_RQ_WAIT
  // it is, a cycle before q_pf_n counts it). nic_rsp_rq does not keep a copy of the write
  // (nic_ram_1r1w's forwarding, 512 flip-flops): rwqe_q takes it, in the states between the read
  // and the load (R_LOAD, R_CHECK, R_RQ_WAIT), in which rwqe_q holds nothing else (a response's
  // load from its Read's context goes first; a packet that is neither a Send nor a response
  // does not read rwqe_q). pf_rdata is then the cache's output as forwarding made it.
  assign rwqe_cap   = rq_cache_hit_i
                      && (state_q == R_LOAD || state_q == R_CHECK || state_q == R_RQ_WAIT);

  // Working registers of the packet in hand: loaded before use.
  always_ff @(posedge clk_i) begin
    // the packet and the receive WQE (wide): loaded only when they change
    if (pkt_ready_o) begin
      pkt_q <= pkt_i;
    end
    if (rwqe_ld_pf) begin
      rwqe_q <= pf_rdata;
    end else if (rwqe_ld_rr) begin
      rwqe_q <= rr_wqe;
    end else if (rwqe_cap) begin
      rwqe_q <= rq_cache_wdata_i;
    end
    // (R_IDLE changes none of these: an idle dispatcher does not copy them)
    if (state_q != R_IDLE) begin
      rd_npkts_q   <= nic_roce_pkg::read_npkts(wleft_q, ctx_log_mtu_i);
      moff_q       <= moff_d;
      wva_q        <= wva_d;
      wkey_q       <= wkey_d;
      wleft_q      <= wleft_d;
      pleft_q      <= pleft_d;
      poff_q       <= poff_d;
      phys_q       <= phys_d;
      piece_q      <= piece_d;
      ack_syn_q    <= ack_syn_d;
      ack_psn_q    <= ack_psn_d;
      cpl_status_q <= cpl_status_d;
    end
  end

  // A DMA error on a receive-WQE read is not reported yet; the fields a responder ignores.
  logic unused_misc;
  assign unused_misc = ^{connect_args.rsvd_216, connect_args.inbound_read_limit,
                         connect_args.outbound_read_limit, connect_args.log_mtu,
                         connect_args.rsvd_187, connect_args.rnr_retry, connect_args.rsvd_155,
                         connect_args.retry_count, connect_args.sq_psn, connect_args.rsvd_125,
                         connect_args.ack_timeout, connect_args.peer_qpn, connect_args.peer_ipv4,
                         connect_args.rsvd_48, connect_args.peer_mac,
                         piece_tok.key, pkt_q.aeth.msn, rw.flags, rw.index, rw.rsvd_6};

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block (as nic_wqe_fetch): they read the values before the
  // edge, and each is evaluated only in the cycles its condition holds.
  logic          chk_cpl_held_q;     // the completion offered last cycle was not taken
  nic_pkg::cqe_t chk_cpl_cqe_q;
  always_ff @(posedge clk_i) begin
    chk_cpl_held_q <= !rst_i && cpl_valid_o && !cpl_ready_i;
    chk_cpl_cqe_q  <= cpl_cqe_o;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (state_q == R_WREQ) begin
        a_write_in_page: assert (piece_q != '0 && 32'(phys_q[11:0]) + 32'(piece_q) <= 4096);
      end
      if (chk_cpl_held_q) begin
        a_cpl_stable: assert (cpl_valid_o && cpl_cqe_o == chk_cpl_cqe_q);
      end
      if (state_q == R_CHECK && q_pf_n != '0) begin
        // what is on chip was posted: never more than the posted receives
        a_pf_within_posted: assert (16'(q_pf_n) <= q_pi - q_ci);
      end
      if ((piece_use || (state_q == R_DONE && rr_q)) && !pl_wr) begin
        // the receive WQE read is the one the message state kept a copy of before (below)
        a_rwqe_as_kept: assert (rwqe_q == chk_rwqe_q);
      end
      if ((state_q == R_CHECK && (is_ack || is_rresp)) || state_q == R_RR_CTX) begin
        // the Read's context is used only in the cycle after it was asked for (nic_req_read_ring
        // does not forward later writes)
        a_rctx_fresh: assert (chk_rctx_req_q);
      end
      if (rwqe_ld_pf) begin
        // the entry read is the cache's as forwarding would show it
        a_rwqe_fwd: assert (pf_rdata == chk_pf_rdata);
      end
    end
  end

  // The receive WQE as it was loaded when the message state kept it: from the state's copy in
  // R_LOAD (written with the state, read with it), else from the cache on a FIRST / ONLY and in
  // R_RQ_WAIT, else from the Read's context in R_RR_CTX.
  // The cache's output as nic_ram_1r1w's forwarding made it (chk_pf_rdata): the last write to the
  // entry since the read, kept here in simulation only.
  logic [511:0] chk_ms_wqe_q [2 << QW];
  logic [511:0] chk_rwqe_q;
  logic [QW:0]  chk_ms_raddr_q;
  logic [511:0] chk_fwd_data_q, chk_pf_rdata;
  logic         chk_rctx_req_q;
  assign chk_pf_rdata = rq_cache_fwd_i ? chk_fwd_data_q : rq_cache_wqe_i;
  always_ff @(posedge clk_i) begin
    chk_rctx_req_q <= rctx_req_o;
    if (rq_cache_hit_i) begin
      chk_fwd_data_q <= rq_cache_wdata_i;
    end
    if (ms_we) begin
      chk_ms_wqe_q[ms_waddr] <= chk_rwqe_q;
    end
    if (ms_re) begin
      chk_ms_raddr_q <= ms_raddr;
    end
    if (state_q == R_LOAD) begin
      chk_rwqe_q <= chk_ms_wqe_q[chk_ms_raddr_q];
    end else if (((state_q == R_CHECK && is_send && is_first) || state_q == R_RQ_WAIT)
                 && q_pf_n != '0) begin
      chk_rwqe_q <= chk_pf_rdata;
    end else if (state_q == R_RR_CTX) begin
      chk_rwqe_q <= rr_wqe;
    end
  end
`endif

`ifdef FORMAL
  // ---- formal properties (docs/verification.md) -------------------------------------------------
  // The implied-NAK state of this side's Reads (rr_nak). Proven for all inputs by induction on
  // tests/formal/nic_rsp_dispatch_formal.sv (2 QPs, every input free: tools/formal/formal.py);
  // the simulation compiles them too. Shadow (written from the events, never from rr_nak): per
  // QP, an implied NAK was given to the requester since a response to this side's Read was last
  // placed (progress) or the QP was connected, created or destroyed.
  logic [NumQps-1:0] f_inak_q;
  logic              f_loaded_q;     // a packet was taken since reset (qpn_q is its QP)
  logic              f_placed;       // a response to this side's Read placed: its ACK goes out
  assign f_placed = state_q == R_DONE && rr_q && ack_valid_o
                    && ack_syndrome_o == nic_roce_pkg::AETH_ACK;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      f_inak_q   <= '0;
      f_loaded_q <= 1'b0;
    end else begin
      if (pkt_ready_o) begin
        f_loaded_q <= 1'b1;
      end
      if (ack_valid_o && ack_implied_o) begin
        f_inak_q[qpn_q] <= 1'b1;
      end
      if (f_placed) begin
        f_inak_q[qpn_q] <= 1'b0;
      end
      if (cmd_connect || cmd_reset) begin
        f_inak_q[cmd_qpn] <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // One implied NAK per gap: where the responses to this side's Read skip its first PSN not
      // placed, the first such finding goes to the requester (a PSN-sequence NAK of rr_next,
      // for the packet's QP) and every later one is dropped until a response is placed or the
      // QP starts afresh.
      if (ack_implied_o) begin
        f_one_implied_nak_per_gap: assert (ack_valid_o == !f_inak_q[qpn_q]);
        f_implied_nak_is_seq_nak: assert (ack_syndrome_o == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR
                                           && ack_psn_o == rr_next);
        f_implied_nak_qpn: assert (f_loaded_q && ack_qpn_o[QW-1:0] == qpn_q);
      end
      // what makes it inductive
      f_rr_nak_is_gap: assert (rr_nak_q == f_inak_q);
      f_packet_in_hand: assert (state_q == R_IDLE || state_q == R_FLUSH || f_loaded_q);
      if (f_loaded_q) begin
        f_qpn_is_packets: assert (qpn_q == QW'(pkt_q.dqpn - nic_pkg::QPN_BASE));
      end
      c_implied_nak: cover (ack_valid_o && ack_implied_o);
      c_implied_nak_dropped: cover (ack_implied_o && !ack_valid_o);
      c_read_gap_closed: cover (f_placed && f_inak_q[qpn_q]);
      c_gap_cleared: cover ((cmd_connect || cmd_reset) && f_inak_q[cmd_qpn]);
    end
  end
`endif

endmodule
