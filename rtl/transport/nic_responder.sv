`default_nettype none
// nic_responder: the responder side of the RC transport (docs/transport.md), and the receive
// path's dispatcher. It takes every checked packet from nic_roce_rx, one at a time:
//   - ACKs / NAKs go to nic_requester (ack_*); their payload (none) is drained;
//   - requests for a connected QP (RTS) are checked for their PSN and opcode sequence, then:
//     Send: the payload goes into the next receive WQE's SGEs (the WQE is read by DMA when the
//     message starts); Write: into the region named by the RETH (R_Key, range and remote-write
//     right checked once per message by the MR table, then translated page by page);
//     Read request: R_Key, range and remote-read right checked by the MR table, then the
//     responses (READ_RESPONSE_FIRST / MIDDLE / LAST / ONLY, at most the path MTU each, AETH with
//     the MSN on FIRST / LAST / ONLY) go out with their payload gathered by DMA reads, page by
//     page. An accepted Read joins the read-response queue and the dispatcher goes on with the
//     next packet; the queue's engine (below) plans the responses' pieces, translates them and
//     keeps up to GfDepth DMA reads in flight, and a sender streams the returning beats out
//     behind each response's header. An ACK / NAK of a QP waits until that QP's queued Reads
//     are answered, so every response goes out in PSN order;
//   - read responses for this side's Reads: placed into the Read's sink SGEs (nic_requester's
//     read context) with the same placement engine as a Send's receive SGEs; each placed response
//     acknowledges its PSN to nic_requester (ack_*), the last one also ends the Read's placement
//     (rdone_*); a bad response (PSN or opcode out of sequence, more or fewer bytes than asked, a
//     sink the QP may not write) fails the Read at the requester (a NAK on ack_*), nothing is sent;
//   - anything else is drained: packets for unknown or unconnected QPs.
// After a packet's payload is in host memory: the expected PSN advances; at the end of a message
// an ACK goes back (when the requester asked for one) and a Send's receive completes (type
// RECEIVE, bytes, CQE flag SOLICITED when the Send carried SE) once its payload writes were
// accepted by nic_dma_wr, so the CQE can never overtake them on the single-ID write channel.
//
// Errors: a PSN ahead of the expected one: NAK "PSN sequence error" (once until it is fixed);
// behind it (a duplicate): re-ACK, drop; a Send with no receive posted: RNR NAK, drop (the
// requester retries, or fails the Send with IO_TIMEOUT); a bad opcode sequence, or a Read on a QP
// connected with inbound read limit (IRD) 0: NAK "invalid request"; an R_Key / range / right violation: NAK "remote access error"; a Send
// longer than its receive: NAK "invalid request" and the receive completes DATA_OVERRUN. The
// last three move the QP to ERROR (qp_err_o). A QP in ERROR completes every posted receive
// CANCELLED, in order, without reading it.
//
// Per QP: its PD, receive CQ and receive ring (latched from QP_CREATE on the command bus), the
// RQ producer index (from RQ doorbells), expected PSN, MSN, receive-queue consumer index, the
// peer's QPN (latched from QP_CONNECT), whether a message is in progress, and the message's placement state in a RAM
// (the receive WQE and the offset, or the Write's address, R_Key and bytes left).
//
// SendAndInvalidate: after the last packet's payload is placed, the IETH's token is invalidated
// through the MR table's translation port (xl_inv_o: VALID, same key, same PD as the QP); then
// the ACK and the receive completion (type RECEIVE_AND_INVALIDATE, the token in type_specific,
// CQE flag INVALIDATED). A token that cannot be invalidated: NAK "invalid request", the receive
// completes ACCESS_VIOLATION and the QP goes to ERROR (NDK: the receiver aborts the connection).
//
// Not built yet: several placements in flight.
module nic_responder #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16    // queue pairs, <= 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // commands
  input  logic                          cmd_valid_i,
  input  logic [7:0]                    cmd_op_i,
  input  logic [15:0]                   cmd_index_i,
  input  logic [255:0]                  cmd_args_i,
  // QP states (nic_sq_engine) and RQ doorbells (nic_csr)
  input  logic [2*NumQps-1:0]           qp_state_i,
  input  logic                          rq_db_valid_i,
  input  logic [7:0]                    rq_db_qpn_i,
  input  logic [15:0]                   rq_db_pi_i,
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o,
  // packets from nic_roce_rx
  input  logic                          pkt_valid_i,
  input  nic_roce_pkg::rx_pkt_t         pkt_i,
  output logic                          pkt_ready_o,
  input  logic                          pl_valid_i,
  input  logic [DataWidth-1:0]          pl_data_i,
  input  logic [$clog2(DataWidth/8):0]  pl_nbytes_i,
  input  logic                          pl_last_i,
  output logic                          pl_ready_o,
  // acknowledgements for nic_requester
  output logic                          ack_valid_o,
  output logic [7:0]                    ack_qpn_o,
  output logic [23:0]                   ack_psn_o,
  output logic [7:0]                    ack_syndrome_o,
  // MR table translation port (through the arbiter)
  output logic                          xl_req_o,
  input  logic                          xl_gnt_i,
  output logic [31:0]                   xl_token_o,
  output logic [63:0]                   xl_va_o,
  output logic [31:0]                   xl_len_o,
  output logic [15:0]                   xl_pd_o,
  output logic [15:0]                   xl_access_o,
  output logic                          xl_inv_o,
  input  logic                          xl_rsp_valid_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  // DMA read client (receive WQEs)
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  input  logic                          r_valid_i,
  output logic                          r_ready_o,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic [1:0]                    r_resp_i,
  input  logic                          r_last_i,
  // read contexts (nic_requester): the oldest Read not yet placed, one cycle after the request
  output logic                          rctx_req_o,
  output logic [7:0]                    rctx_qpn_o,
  input  logic                          rctx_avail_i,
  input  nic_roce_pkg::read_ctx_t       rctx_i,
  output logic                          rdone_o,
  output logic [7:0]                    rdone_qpn_o,
  // DMA writes (nic_dma_wr port 2)
  output logic                          wr_req_valid_o,
  output logic [63:0]                   wr_req_addr_o,
  output logic [7:0]                    wr_req_len_o,
  input  logic                          wr_req_ready_i,
  output logic                          wr_valid_o,
  output logic [DataWidth-1:0]          wr_data_o,
  output logic [DataWidth/8-1:0]        wr_strb_o,
  input  logic                          wr_ready_i,
  // ACK / NAK and read response packets to nic_roce_tx (through the TX arbiter), and the
  // responses' payload
  output logic                          tx_valid_o,
  output nic_roce_pkg::tx_pkt_t         tx_pkt_o,
  input  logic                          tx_ready_i,
  output logic                          tx_pl_valid_o,
  output logic [DataWidth-1:0]          tx_pl_data_o,
  output logic [$clog2(DataWidth/8):0]  tx_pl_nbytes_o,
  input  logic                          tx_pl_ready_i,
  // receive completions
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i
);

  localparam int W8  = DataWidth / 8;
  localparam int LW  = $clog2(W8);
  localparam int QW  = (NumQps > 1) ? $clog2(NumQps) : 1;
  // message state: the receive WQE, the message offset; the Write's VA, R_Key, bytes left
  localparam int MsgW = 512 + 32 + 64 + 32 + 32;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_responder: DataWidth must be 64 or 256");
  end
  if (nic_pkg::QP_STATE_ERROR != 2'b10) begin : gen_bad_err_code
    $fatal(1, "nic_responder: fl_any_err expects QP_STATE_ERROR == 2'b10");
  end

  // ---- per-QP state -------------------------------------------------------------------------
  // expected PSN, MSN, receive-queue consumer index: written only at the QP an event names
  // (one write of the dispatcher's or the flush's, one of a command's); a QP's entry not written
  // since reset reads 0 (its bit in *_set_q is clear), as a reset register would
  logic [23:0]          epsn_q     [NumQps];
  logic [23:0]          msn_q      [NumQps];
  logic [NumQps-1:0]    epsn_set_q, msn_set_q;
  logic                 epsn_we, msn_we;            // this cycle's write of the dispatcher's QP
  logic [23:0]          epsn_wd, msn_wd;
  logic [23:0]          peer_qpn_q [NumQps];
  logic [15:0]          pd_q       [NumQps];
  logic [7:0]           rq_cqn_q   [NumQps];
  logic [NumQps-1:0]    in_msg_q, in_msg_d;        // a message is half received
  logic [NumQps-1:0]    msg_wr_q, msg_wr_d;        // ... and it is a Write (else a Send)
  logic [NumQps-1:0]    nak_q, nak_d;              // a PSN-sequence NAK is out
  logic [NumQps-1:0]    rr_in_q, rr_in_d;          // a Read's responses are half placed
  logic [3:0]           log_mtu_q  [NumQps];       // the path MTU of the responses
  logic [7:0]           ird_q      [NumQps];       // inbound read limit (IRD)

  logic          cmd_in_range, cmd_create, cmd_connect, cmd_reset;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_create   = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CREATE;
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign cmd_reset    = cmd_valid_i && cmd_in_range
                        && (cmd_op_i == nic_pkg::CMD_QP_CREATE || cmd_op_i == nic_pkg::CMD_QP_DESTROY);

  // RAM-like: written by QP_CREATE / QP_CONNECT before any use, no reset needed
  always_ff @(posedge clk_i) begin
    if (cmd_create) begin
      pd_q[cmd_qpn]      <= cmd_args_i[79:64];
      rq_cqn_q[cmd_qpn]  <= cmd_args_i[95:88];
    end
    if (cmd_connect) begin
      peer_qpn_q[cmd_qpn] <= cmd_args_i[119:96];
      log_mtu_q[cmd_qpn]  <= cmd_args_i[195:192];
      ird_q[cmd_qpn]      <= cmd_args_i[215:208];
    end
  end

  // message state RAM: per QP one slot for the peer's request in progress ({0, qpn}) and one for
  // the responses of this side's Read in progress ({1, qpn}), which may interleave with it
  logic             ms_we, ms_re;
  logic [QW:0]      ms_waddr, ms_raddr;
  logic [MsgW-1:0]  ms_wdata, ms_rdata;

  nic_ram_1r1w #(
    .Width  (MsgW),
    .Depth  (2 << QW),
    .Forward(1'b1)
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
    R_RD_START   // accepted: its PSNs and MSN are taken, it joins the read-response queue
  } state_e;

  state_e                 state_q, state_d;
  nic_roce_pkg::rx_pkt_t  pkt_q;                  // loaded when taken (pkt_ready_o)
  logic [QW-1:0]          qpn_q, qpn_d;
  logic [511:0]           rwqe_q;                 // the receive WQE of the Send in progress
  logic                   rwqe_ld_pf;             // ... loaded from the prefetch cache
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
  assign q_epsn    = epsn_set_q[qpn_q] ? epsn_q[qpn_q] : 24'd0;
  assign q_msn     = msn_set_q[qpn_q] ? msn_q[qpn_q] : 24'd0;
  assign q_pd      = pd_q[qpn_q];
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
      piece_priv = piece_token[31:24] == 8'hFF && !by_rkey;
    end
  end

  // ---- the placer (nic_rsp_placer): payload bytes -> write beats, one piece at a time ---------
  logic pc_start, pc_done, pc_word_done;
  assign pc_start = state_q == R_WREQ && wr_req_ready_i;

  nic_rsp_placer #(
    .DataWidth(DataWidth)
  ) u_placer (
    .clk_i        (clk_i),
    .rst_i        (rst_i),
    .start_i      (pc_start),
    .start_lane_i (phys_q[LW-1:0]),
    .start_len_i  (piece_q),
    .start_beats_i(wr_req_len_o + 8'd1),
    .active_i     (state_q == R_WDATA),
    .drain_i      (state_q == R_DRAIN),
    .done_o       (pc_done),
    .pl_valid_i   (pl_valid_i),
    .pl_data_i    (pl_data_i),
    .pl_nbytes_i  (pl_nbytes_i),
    .word_done_o  (pc_word_done),
    .wr_valid_o   (wr_valid_o),
    .wr_data_o    (wr_data_o),
    .wr_strb_o    (wr_strb_o),
    .wr_ready_i   (wr_ready_i)
  );

  // ---- a Read request: how many PSNs its responses take ----------------------------------------
  logic [23:0] rd_npkts;                // responses: ceil(length / MTU), at least one
  assign rd_npkts = nic_roce_pkg::read_npkts(wleft_q, log_mtu_q[qpn_q]);

  // a Read's context as a receive WQE, so its responses are placed like a Send's payload
  // (built only in R_RR_CTX, the one state that loads it)
  nic_pkg::wqe_recv_t rr_wqe;
  always_comb begin
    rr_wqe = '0;
    if (state_q == R_RR_CTX) begin
      rr_wqe.opcode = nic_pkg::WQE_OP_RECV;
      rr_wqe.nsge   = 8'(rctx_i.nsge);
      rr_wqe.length = rctx_i.length;
      rr_wqe.sge0   = rctx_i.sge0;
      rr_wqe.sge1   = rctx_i.sge1;
    end
  end

  // ---- the dispatcher's ACK / NAK, and the completion --------------------------------------------
  nic_roce_pkg::tx_pkt_t ack_pkt;
  always_comb begin
    ack_pkt               = '0;
    ack_pkt.dst_mac       = pkt_q.src_mac;
    ack_pkt.dst_ip        = pkt_q.src_ip;
    ack_pkt.opcode        = nic_roce_pkg::OP_ACK;
    ack_pkt.dqpn          = peer_qpn_q[qpn_q];
    ack_pkt.sqpn          = nic_pkg::QPN_BASE + 24'(qpn_q);
    ack_pkt.psn           = ack_psn_q;
    ack_pkt.aeth.syndrome = ack_syn_q;
    ack_pkt.aeth.msn      = q_msn;
    ack_pkt.pay_len       = '0;
  end

  nic_pkg::cqe_t cqe;
  always_comb begin
    cqe                   = '0;
    cqe.status            = (state_q == R_FLUSH) ? nic_pkg::STATUS_CANCELLED : cpl_status_q;
    cqe.bytes_transferred = (state_q != R_FLUSH && cpl_status_q == nic_pkg::STATUS_SUCCESS)
                            ? moff_q : 32'd0;
    cqe.wqe_index         = (state_q == R_FLUSH) ? fl_ci : q_ci;
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
  assign cpl_cqn_o   = rq_cqn_q[(state_q == R_FLUSH) ? flush_q : qpn_q];
  assign cpl_cqe_o   = cqe;

  // the receive queues (nic_rsp_rq): the dispatcher's QP's indices, the flush of a QP in ERROR
  logic [15:0]   q_ci, q_pi, fl_ci;
  logic [4:0]    q_pf_n;                // the dispatcher's QP's receive WQEs on chip
  logic [511:0]  pf_rdata;              // its WQE at ci, the cycle after R_LOAD
  logic          fl_found;
  logic [QW-1:0] fl_qpn;

  // shared by the dispatcher (next state, below), the prefetch and the read-response engine
  logic m_xl_req, m_xl_gnt, m_xl_rsp;     // the dispatcher's translation request, grant, answer
  logic m_tx_valid, m_tx_ok, m_qp_err;    // its ACK / NAK offered, allowed; its QP to ERROR
  logic rdq_push, rdq_full;               // a Read accepted into the read-response queue
  logic rdq_push_ack;                     // ... or an ACK / NAK that goes after the QP's Reads
  logic rdq_has_q;                        // the dispatcher's QP has Reads (or ACKs) queued

  // ---- the receive queues and their prefetch ------------------------------------------------------
  logic          pf_ar_valid, pf_ar_push;
  logic [63:0]   pf_ar_addr;
  logic [7:0]    pf_ar_len;
  logic          ord_head_pf, ord_head_g;   // the R beats are the prefetch's / the engine's

  nic_rsp_rq #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps)
  ) u_rq (
    .clk_i            (clk_i),
    .rst_i            (rst_i),
    .qp_state_i       (qp_state_i),
    .cmd_create_i     (cmd_create),
    .cmd_reset_i      (cmd_reset),
    .cmd_qpn_i        (cmd_qpn),
    .cmd_rq_base_i    ({cmd_args_i[191:160], cmd_args_i[159:128]}),
    .cmd_rq_ld_i      (cmd_args_i[107:104]),
    .rq_db_valid_i    (rq_db_valid_i),
    .rq_db_qpn_i      (rq_db_qpn_i),
    .rq_db_pi_i       (rq_db_pi_i),
    .disp_qpn_i       (qpn_q),
    .ci_o             (q_ci),
    .pi_o             (q_pi),
    .cached_o         (q_pf_n),
    .cache_re_i       (state_q == R_LOAD),
    .cache_wqe_o      (pf_rdata),
    .consume_i        (state_q == R_CPL && cpl_ready_i),
    .flush_find_i     (state_q == R_IDLE),
    .flush_found_o    (fl_found),
    .flush_found_qpn_o(fl_qpn),
    .flush_i          (state_q == R_FLUSH),
    .flush_qpn_i      (flush_q),
    .flush_ci_o       (fl_ci),
    .flush_done_i     (state_q == R_FLUSH && cpl_ready_i),
    .ar_valid_o       (pf_ar_valid),
    .ar_grant_i       (ar_ready_i && !g_ar_valid),
    .ar_addr_o        (pf_ar_addr),
    .ar_len_o         (pf_ar_len),
    .ar_push_o        (pf_ar_push),
    .r_beat_i         (r_valid_i && ord_head_pf),
    .r_data_i         (r_data_i),
    .r_last_i         (r_last_i)
  );

  // ---- the read-response engine -------------------------------------------------------------
  logic                  g_ar_valid, g_ar_push;
  logic [63:0]           g_ar_addr;
  logic [7:0]            g_ar_len;
  logic                  e_xl_req, e_xl_gnt, e_xl_rsp;
  logic [31:0]           e_xl_token, e_xl_len;
  logic [63:0]           e_xl_va;
  logic [15:0]           e_xl_pd;
  logic [QW-1:0]         e_nq, e_pq;
  logic                  e_tx_valid, e_in_pkt, e_qp_err;
  nic_roce_pkg::tx_pkt_t e_pkt;
  logic [7:0]            e_qp_err_qpn;

  nic_rsp_read_engine #(
    .DataWidth(DataWidth),
    .NumQps   (NumQps)
  ) u_read_engine (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .qp_state_i     (qp_state_i),
    .cmd_connect_i  (cmd_connect),
    .cmd_reset_i    (cmd_reset),
    .cmd_qpn_i      (cmd_qpn),
    .push_read_i    (rdq_push),
    .push_ack_i     (rdq_push_ack),
    .push_qpn_i     (qpn_q),
    .push_va_i      (wva_q),
    .push_key_i     (wkey_q),
    .push_len_i     (wleft_q),
    // a Read's MSN is taken in the cycle of the push; an ACK's was taken before
    .push_psn_i     (rdq_push_ack ? ack_psn_q : pkt_q.psn),
    .push_msn_i     (q_msn + 24'(rdq_push)),
    .push_syn_i     (ack_syn_q),
    .push_peer_qpn_i(peer_qpn_q[qpn_q]),
    .push_mac_i     (pkt_q.src_mac),
    .push_ip_i      (pkt_q.src_ip),
    .full_o         (rdq_full),
    .has_en_i       (state_q == R_ACK),
    .has_qpn_i      (qpn_q),
    .has_o          (rdq_has_q),
    .nq_qpn_o       (e_nq),
    .nq_log_mtu_i   (log_mtu_q[e_nq]),
    .pq_qpn_o       (e_pq),
    .pq_log_mtu_i   (log_mtu_q[e_pq]),
    .pq_pd_i        (pd_q[e_pq]),
    .xl_req_o       (e_xl_req),
    .xl_gnt_i       (e_xl_gnt),
    .xl_token_o     (e_xl_token),
    .xl_va_o        (e_xl_va),
    .xl_len_o       (e_xl_len),
    .xl_pd_o        (e_xl_pd),
    .xl_rsp_i       (e_xl_rsp),
    .xl_status_i    (xl_status_i),
    .xl_pfn_i       (xl_pfn_i),
    .xl_page_off_i  (xl_page_off_i),
    .ar_valid_o     (g_ar_valid),
    .ar_ready_i     (ar_ready_i),
    .ar_addr_o      (g_ar_addr),
    .ar_len_o       (g_ar_len),
    .ar_push_o      (g_ar_push),
    .r_beat_i       (r_valid_i && ord_head_g),
    .r_data_i       (r_data_i),
    .tx_valid_o     (e_tx_valid),
    .tx_pkt_o       (e_pkt),
    .tx_ready_i     (tx_ready_i),
    .tx_pl_valid_o  (tx_pl_valid_o),
    .tx_pl_data_o   (tx_pl_data_o),
    .tx_pl_nbytes_o (tx_pl_nbytes_o),
    .tx_pl_ready_i  (tx_pl_ready_i),
    .in_pkt_o       (e_in_pkt),
    .qp_err_o       (e_qp_err),
    .qp_err_qpn_o   (e_qp_err_qpn)
  );

  // ---- the DMA read client: shared by the prefetch and the engine (the engine's requests go
  // first: the prefetch is ahead of its Sends). One AXI ID returns bursts in request order, so a
  // FIFO of one bit per burst in flight (ord, 1: the engine's) says whose the R beats are.
  localparam int OrdDepth = 32;        // bursts in flight: >= the prefetch's 4 + the engine's 16
  localparam int OrdW     = $clog2(OrdDepth);
  // -- the R channel's owner per burst
  logic [OrdDepth-1:0] ord_q;
  logic [OrdW:0]       ord_wr_q, ord_rd_q;
  logic [OrdW:0]       ord_used;
  logic                ord_pop;
  assign ord_used    = ord_wr_q - ord_rd_q;
  assign ord_head_pf = ord_used != '0 && !ord_q[ord_rd_q[OrdW-1:0]];
  assign ord_head_g  = ord_used != '0 && ord_q[ord_rd_q[OrdW-1:0]];
  assign r_ready_o   = ord_head_pf || ord_head_g;
  assign ord_pop     = r_valid_i && r_ready_o && r_last_i;

  assign ar_valid_o  = g_ar_valid || pf_ar_valid;
  assign ar_addr_o   = g_ar_valid ? g_ar_addr : pf_ar_addr;
  assign ar_len_o    = g_ar_valid ? g_ar_len : pf_ar_len;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ord_wr_q <= '0;
      ord_rd_q <= '0;
    end else begin
      ord_wr_q <= ord_wr_q + (OrdW+1)'(g_ar_push || pf_ar_push);
      ord_rd_q <= ord_rd_q + (OrdW+1)'(ord_pop);
    end
  end
  always_ff @(posedge clk_i) begin
    if (g_ar_push || pf_ar_push) begin
      ord_q[ord_wr_q[OrdW-1:0]] <= g_ar_push;
    end
  end

  // -- the MR table's translation port: the dispatcher first; each answer comes two cycles after
  // its grant, to whoever was granted
  logic [1:0] xl_eng_q;                   // the grant one / two cycles ago was the planner's
  assign m_xl_gnt = m_xl_req && xl_gnt_i;
  assign e_xl_gnt = e_xl_req && !m_xl_req && xl_gnt_i;
  assign m_xl_rsp = xl_rsp_valid_i && !xl_eng_q[1];
  assign e_xl_rsp = xl_rsp_valid_i && xl_eng_q[1];
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      xl_eng_q <= '0;
    end else begin
      xl_eng_q <= {xl_eng_q[0], e_xl_gnt};
    end
  end

  always_comb begin
    xl_req_o = m_xl_req || e_xl_req;
    if (m_xl_req) begin
      xl_token_o  = (state_q == R_WR_XL || state_q == R_RD_XL) ? pkt_q.reth.rkey
                  : (state_q == R_INV) ? pkt_q.ieth_rkey : piece_token;
      xl_inv_o    = state_q == R_INV;
      xl_va_o     = (state_q == R_WR_XL || state_q == R_RD_XL) ? pkt_q.reth.va : piece_va;
      xl_len_o    = (state_q == R_WR_XL || state_q == R_RD_XL) ? pkt_q.reth.dma_len
                                                                : 32'(piece_q);
      xl_pd_o     = q_pd;
      xl_access_o = (state_q == R_RD_XL) ? nic_pkg::FLAG_ALLOW_REMOTE_READ
                  : (pl_wr || state_q == R_WR_XL) ? nic_pkg::FLAG_ALLOW_REMOTE_WRITE
                  : nic_pkg::FLAG_ALLOW_LOCAL_WRITE;
    end else begin
      xl_token_o  = e_xl_token;
      xl_inv_o    = 1'b0;
      xl_va_o     = e_xl_va;
      xl_len_o    = e_xl_len;
      xl_pd_o     = e_xl_pd;
      xl_access_o = nic_pkg::FLAG_ALLOW_REMOTE_READ;
    end
  end

  // -- the transmit port: the sender's packets, and between them the dispatcher's ACK / NAK
  assign m_tx_ok      = !e_tx_valid && !e_in_pkt && !rdq_has_q;
  // the ACK / NAK goes after this QP's queued Reads are answered, between the sender's packets
  assign m_tx_valid   = state_q == R_ACK && !rr_q && m_tx_ok;
  assign tx_valid_o   = e_tx_valid || m_tx_valid;
  assign tx_pkt_o     = e_tx_valid ? e_pkt : ack_pkt;
  assign qp_err_o     = m_qp_err || e_qp_err;
  assign qp_err_qpn_o = e_qp_err ? e_qp_err_qpn : 8'(qpn_q);

  // ---- next state ---------------------------------------------------------------------------
  // where a packet ends: its payload all taken (placed), nothing is left to drop
  state_e pkt_end;
  assign pkt_end = (pkt_q.pay_len == '0 || pl_done_q) ? R_IDLE : R_DRAIN;

  always_comb begin
    state_d      = state_q;
    qpn_d        = qpn_q;
    rwqe_ld_pf   = 1'b0;
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
    epsn_wd      = q_epsn + 24'd1;
    msn_we       = 1'b0;
    msn_wd       = q_msn + 24'd1;
    in_msg_d     = in_msg_q;
    msg_wr_d     = msg_wr_q;
    nak_d        = nak_q;
    rr_d         = rr_q;
    ph_ok_d      = ph_ok_q;
    rr_in_d      = rr_in_q;

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
    ms_wdata       = {rwqe_q, poff_q, wva_q, wkey_q, wleft_q};
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
          ms_re       = 1'b1;
          ms_raddr    = {rr_d, QW'(pkt_i.dqpn - nic_pkg::QPN_BASE)};
          state_d     = R_LOAD;
        end
      end
      R_LOAD: begin
        // the message state arrives; restore the in-progress placement
        // (rwqe_q: loaded from ms_rdata in the clocked block)
        {moff_d, wva_d, wkey_d, wleft_d} = ms_rdata[MsgW-513:0];
        ack_psn_d = pkt_q.psn;
        state_d   = R_CHECK;
      end
      R_CHECK: begin
        poff_d  = moff_q;
        pleft_d = pkt_q.pay_len;
        if (is_ack) begin
          // ACK / NAK: the requester's
          ack_valid_o = local_qpn;
          state_d     = pkt_end;
        end else if (!local_qpn || q_state != nic_pkg::QP_STATE_RTS) begin
          state_d = R_DRAIN;
        end else if (is_rresp) begin
          // a response to this side's Read (its PSN range is the requester's, not q_epsn);
          // wva[23:0]: the Read's first PSN, wkey[23:0]: the next response's PSN
          fatal_d   = 1'b0;
          cpl_due_d = 1'b0;
          if (rr_first && rr_in_q[qpn_q]) begin
            ack_syn_d = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;   // the last one never came
            state_d   = R_ACK;
          end else if (rr_first) begin
            rctx_req_o = 1'b1;
            state_d    = R_RR_CTX;
          end else if (!rr_in_q[qpn_q]) begin
            state_d = R_DRAIN;               // no Read of ours in progress: a stray, ignored
          end else if (pkt_q.psn != wkey_q[23:0]) begin
            ack_syn_d = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;
            state_d   = R_ACK;
          end else begin
            state_d = R_PIECE;
          end
        end else if (pkt_q.psn != q_epsn) begin
          if (nic_roce_pkg::psn_le(pkt_q.psn, q_epsn - 24'd1)) begin
            // a duplicate: acknowledge what we have, drop it
            ack_syn_d = nic_roce_pkg::AETH_ACK;
            ack_psn_d = q_epsn - 24'd1;
            fatal_d   = 1'b0;
            cpl_due_d = 1'b0;
            state_d   = pkt_q.ackreq ? R_ACK : R_DRAIN;
          end else begin
            // ahead of the expected PSN: a packet was lost; NAK once
            ack_syn_d = nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;
            ack_psn_d = q_epsn;
            fatal_d   = 1'b0;
            cpl_due_d = 1'b0;
            state_d   = nak_q[qpn_q] ? R_DRAIN : R_ACK;
            nak_d[qpn_q] = 1'b1;
          end
        end else if (is_rreq && !in_msg_q[qpn_q] && ird_q[qpn_q] != 8'd0) begin
          // a Read request: checked here, answered by the read-response engine
          nak_d[qpn_q] = 1'b0;
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
          nak_d[qpn_q] = 1'b0;
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
              rwqe_ld_pf = 1'b1;           // prefetched: read from the cache in R_LOAD
              state_d = R_PIECE;
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
          rwqe_ld_pf = 1'b1;
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
            if (piece_token[23:8] != q_pd) begin
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
        pl_ready_o = pc_word_done;
        if (pc_done) begin
          pleft_d = pleft_q - piece_q;
          poff_d  = poff_q + 32'(piece_q);
          wva_d   = wva_q + 64'(piece_q);
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
            rdone_o        = rr_last;
            ms_we          = !rr_last;
            ms_wdata       = {rwqe_q, poff_q, wva_q, {8'd0, pkt_q.psn + 24'd1}, wleft_q};
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
          ms_wdata        = {rwqe_q, poff_q, wva_q, wkey_q, wleft_q};
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
        // (rwqe_q: the Read's context as a receive WQE, in the clocked block)
        wva_d   = 64'(rctx_i.psn);
        moff_d  = '0;
        poff_d  = '0;
        if (!rctx_avail_i) begin
          state_d = R_DRAIN;                 // no Read of ours outstanding: a stray, ignored
        end else if (pkt_q.psn != rctx_i.psn) begin
          ack_syn_d = nic_roce_pkg::AETH_NAK_INVALID_REQUEST;
          state_d   = R_ACK;
        end else begin
          state_d = R_PIECE;
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
          epsn_we                = 1'b1;
          epsn_wd                = q_epsn + rd_npkts;
          msn_we                 = 1'b1;
          state_d                = pkt_end;
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
      nak_d[cmd_qpn]           = 1'b0;
      rr_in_d[cmd_qpn]         = 1'b0;
    end
    if (cmd_reset) begin
      in_msg_d[cmd_qpn]         = 1'b0;
      nak_d[cmd_qpn]            = 1'b0;
      rr_in_d[cmd_qpn]          = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q  <= R_IDLE;
      in_msg_q <= '0;
      msg_wr_q <= '0;
      nak_q    <= '0;
      rr_in_q  <= '0;
      rr_q     <= 1'b0;
      ph_ok_q  <= 1'b0;
      qpn_q    <= '0;
      flush_q  <= '0;
      pl_done_q <= 1'b0;
      fatal_q  <= 1'b0;
      cpl_due_q <= 1'b0;
    end else begin
      state_q  <= state_d;
      in_msg_q <= in_msg_d;
      msg_wr_q <= msg_wr_d;
      nak_q    <= nak_d;
      rr_in_q  <= rr_in_d;
      rr_q     <= rr_d;
      ph_ok_q  <= ph_ok_d;
      qpn_q    <= qpn_d;
      flush_q  <= flush_d;
      pl_done_q <= pl_done_d;
      fatal_q  <= fatal_d;
      cpl_due_q <= cpl_due_d;
    end
  end

  // the per-QP PSN and MSN (RAM-like, see epsn_set_q): the dispatcher's write, then the
  // command's (commands come last: QP_CONNECT starts the expected PSN and the MSN)
  always_ff @(posedge clk_i) begin
    if (epsn_we) begin
      epsn_q[qpn_q] <= epsn_wd;
    end
    if (cmd_connect) begin
      epsn_q[cmd_qpn] <= cmd_args_i[183:160];
    end
    if (msn_we) begin
      msn_q[qpn_q] <= msn_wd;
    end
    if (cmd_connect) begin
      msn_q[cmd_qpn] <= '0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      epsn_set_q  <= '0;
      msn_set_q   <= '0;
    end else begin
      if (epsn_we) begin
        epsn_set_q[qpn_q] <= 1'b1;
      end
      if (cmd_connect) begin
        epsn_set_q[cmd_qpn] <= 1'b1;
      end
      if (msn_we) begin
        msn_set_q[qpn_q] <= 1'b1;
      end
      if (cmd_connect) begin
        msn_set_q[cmd_qpn] <= 1'b1;
      end
    end
  end

  // Working registers of the packet in hand: loaded before use.
  always_ff @(posedge clk_i) begin
    // the packet and the receive WQE (wide): loaded only when they change
    if (pkt_ready_o) begin
      pkt_q <= pkt_i;
    end
    if (state_q == R_LOAD) begin
      rwqe_q <= ms_rdata[MsgW-1 -: 512];
    end else if (rwqe_ld_pf) begin
      rwqe_q <= pf_rdata;
    end else if (state_q == R_RR_CTX) begin
      rwqe_q <= rr_wqe;
    end
    // (R_IDLE changes none of these: an idle dispatcher does not copy them)
    if (state_q != R_IDLE) begin
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
  assign unused_misc = ^{r_resp_i, cmd_args_i[255:216], cmd_args_i[207:196], cmd_args_i[191:184],
                         cmd_args_i[159:120], cmd_args_i[95:0], 
                         pkt_q.aeth.msn, rw.flags, rw.index, rw.rsvd_6};

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
      // beats come only for a burst in flight
      if (r_valid_i) begin
        a_r_expected: assert (ord_used != '0);
      end
      if (g_ar_push || pf_ar_push) begin
        a_ord_room: assert (32'(ord_used) < OrdDepth);
      end
      if (state_q == R_CHECK && q_pf_n != '0) begin
        // what is on chip was posted: never more than the posted receives
        a_pf_within_posted: assert (16'(q_pf_n) <= q_pi - q_ci);
      end
    end
  end
`endif

endmodule
