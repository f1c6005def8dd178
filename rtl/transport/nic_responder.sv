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
  localparam int CB  = $clog2(2 * W8) + 1;
  localparam int NB  = LW + 1;
  localparam int RqBeats = 64 / W8;
  // Receive WQEs kept on chip (or on their way) per QP, prefetched ahead of the Sends that
  // consume them. A DMA read takes ~130-150 cycles, so a QP's Sends are served at best one per
  // 150 / RqCache cycles: 16 gives ~10, below the responder's own per-packet pipeline (~18
  // cycles), so the prefetch is not the bound. Area: NumQps x 16 x 512 bits = 128 Kbit in one
  // RAM of 256 x 512 bits: 8 BRAM36 (72 bits x 512 deep each), the same count any depth from
  // 1 to 32 takes at NumQps = 16 (the width sets it); as LUT RAM it would cost ~2.3 k LUTs.
  localparam int RqCache  = 16;
  localparam int RcW      = $clog2(RqCache);
  localparam int RqBeatW  = $clog2(RqBeats) + 1;
  // message state: the receive WQE, the message offset; the Write's VA, R_Key, bytes left
  localparam int MsgW = 512 + 32 + 64 + 32 + 32;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_responder: DataWidth must be 64 or 256");
  end
  if (nic_pkg::QP_STATE_ERROR != 2'b10) begin : gen_bad_err_code
    $fatal(1, "nic_responder: fl_any_err expects QP_STATE_ERROR == 2'b10");
  end

  function automatic logic [W8-1:0] lanes_below(input logic [CB-1:0] n);
    for (int i = 0; i < W8; i++) begin
      lanes_below[i] = CB'(i) < n;
    end
  endfunction

  // ---- per-QP state -------------------------------------------------------------------------
  // expected PSN, MSN, receive-queue consumer index: written only at the QP an event names
  // (one write of the dispatcher's or the flush's, one of a command's); a QP's entry not written
  // since reset reads 0 (its bit in *_set_q is clear), as a reset register would
  logic [23:0]          epsn_q     [NumQps];
  logic [23:0]          msn_q      [NumQps];
  logic [15:0]          rq_ci_q    [NumQps];
  logic [NumQps-1:0]    epsn_set_q, msn_set_q, rq_ci_set_q;
  logic                 epsn_we, msn_we, rq_ci_we;  // this cycle's write of the dispatcher's QP
  logic [23:0]          epsn_wd, msn_wd;            // (rq_ci: or the flushed QP's, rq_ci_wq)
  logic [15:0]          rq_ci_wd;
  logic [QW-1:0]        rq_ci_wq;
  logic [23:0]          peer_qpn_q [NumQps];
  logic [15:0]          pd_q       [NumQps];
  logic [7:0]           rq_cqn_q   [NumQps];
  logic [63:0]          rq_base_q  [NumQps];
  logic [3:0]           rq_ld_q    [NumQps];
  logic [15:0]          rq_pi_q    [NumQps];
  logic [NumQps-1:0]    in_msg_q, in_msg_d;        // a message is half received
  logic [NumQps-1:0]    msg_wr_q, msg_wr_d;        // ... and it is a Write (else a Send)
  logic [NumQps-1:0]    nak_q, nak_d;              // a PSN-sequence NAK is out
  logic [NumQps-1:0]    rr_in_q, rr_in_d;          // a Read's responses are half placed
  logic [3:0]           log_mtu_q  [NumQps];       // the path MTU of the responses
  logic [7:0]           ird_q      [NumQps];       // inbound read limit (IRD)

  logic          cmd_in_range, cmd_connect, cmd_reset;
  logic [QW-1:0] cmd_qpn;
  assign cmd_in_range = 32'(cmd_index_i) < NumQps;
  assign cmd_qpn      = QW'(cmd_index_i);
  assign cmd_connect  = cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign cmd_reset    = cmd_valid_i && cmd_in_range
                        && (cmd_op_i == nic_pkg::CMD_QP_CREATE || cmd_op_i == nic_pkg::CMD_QP_DESTROY);

  // RAM-like: written by QP_CREATE / QP_CONNECT / RQ doorbells before any use, no reset needed
  logic rq_db_hit;
  assign rq_db_hit = rq_db_valid_i && 32'(rq_db_qpn_i) < NumQps
                     && qp_state_i[2*QW'(rq_db_qpn_i) +: 2] != nic_pkg::QP_STATE_RESET;
  always_ff @(posedge clk_i) begin
    if (cmd_valid_i && cmd_in_range && cmd_op_i == nic_pkg::CMD_QP_CREATE) begin
      pd_q[cmd_qpn]      <= cmd_args_i[79:64];
      rq_cqn_q[cmd_qpn]  <= cmd_args_i[95:88];
      rq_ld_q[cmd_qpn]   <= cmd_args_i[107:104];
      rq_base_q[cmd_qpn] <= {cmd_args_i[191:160], cmd_args_i[159:128]};
      rq_pi_q[cmd_qpn]   <= '0;
    end else if (rq_db_hit) begin
      rq_pi_q[QW'(rq_db_qpn_i)] <= rq_db_pi_i;
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
  logic [7:0]             beats_left_q, beats_left_d;
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
  logic [15:0]   q_ci, q_pi;
  logic [23:0]   q_msn;
  logic [15:0]   q_pd;
  logic [1:0]    q_state;
  assign q_epsn    = epsn_set_q[qpn_q] ? epsn_q[qpn_q] : 24'd0;
  assign q_msn     = msn_set_q[qpn_q] ? msn_q[qpn_q] : 24'd0;
  assign q_ci      = rq_ci_set_q[qpn_q] ? rq_ci_q[qpn_q] : 16'd0;
  assign q_pi      = rq_pi_q[qpn_q];
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

  // ---- the placer: payload bytes -> beats aligned to the host address, with strobes ----------
  logic [DataWidth-1:0]   rd_word;                 // the payload word in hand (pl_data_i)
  logic [LW:0]            rd_off_q, rd_off_d;      // its bytes already used
  logic [2*DataWidth-1:0] acc_q;                  // (wide: loaded only when it changes)
  logic [2*W8-1:0]        sacc_q;                  // the strobes of acc
  logic [CB-1:0]          cnt_out;                 // cnt after this cycle's beat out
  logic [CB-1:0]          cnt_q, cnt_d;            // lanes filled in acc (leading gap included)
  logic [12:0]            take_left_q, take_left_d;// bytes of the piece still to take
  logic [LW:0]            ch_n;                    // bytes taken this cycle
  logic                   ch_take, beat_out, last_beat;

  assign rd_word = pl_data_i;

  // this cycle's chunk: the unused bytes of the word in hand, at most what the piece still takes,
  // shifted to lane 0 and cut to ch_n bytes (stray bytes would corrupt the lanes after them)
  logic [DataWidth-1:0] chunk_bytes;
  // (cut only in a cycle that takes a chunk, its one reader)
  always_comb begin
    chunk_bytes = '0;
    if (ch_take) begin
      chunk_bytes = rd_word >> (8 * 32'(rd_off_q));
      for (int i = 0; i < W8; i++) begin
        if ((LW+1)'(i) >= ch_n) begin
          chunk_bytes[8*i +: 8] = 8'd0;
        end
      end
    end
  end

  always_comb begin
    ch_n = pl_nbytes_i - rd_off_q;
    if (13'(ch_n) > take_left_q) begin
      ch_n = (LW+1)'(take_left_q);
    end
    // a beat goes out when W8 lanes are filled, or the piece is all taken and lanes remain
    last_beat = beats_left_q == 8'd1;
    beat_out  = state_q == R_WDATA
                && (cnt_q >= CB'(W8) || (take_left_q == '0 && cnt_q != '0 && last_beat));
    ch_take   = state_q == R_WDATA && take_left_q != '0 && pl_valid_i
                && (cnt_q - ((beat_out && wr_ready_i) ? CB'(W8) : '0)) <= CB'(W8);
    cnt_out   = (beat_out && wr_ready_i) ? ((cnt_q >= CB'(W8)) ? cnt_q - CB'(W8) : '0) : cnt_q;
  end

  assign wr_valid_o = beat_out;
  assign wr_data_o  = acc_q[DataWidth-1:0];
  assign wr_strb_o  = sacc_q[W8-1:0];

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

  // a QP in ERROR with posted receives (looked for only when the dispatcher is idle, the one
  // state that reads it, and some QP is in ERROR: QP_STATE_ERROR is 2'b10)
  localparam logic [2*NumQps-1:0] StLow = {NumQps{2'b01}};   // the low bit of each QP's state
  logic          fl_any_err;
  logic          fl_found;
  logic [QW-1:0] fl_qpn;
  logic [15:0]   fl_ci;                 // the flushed QP's consumer index
  assign fl_any_err = ((qp_state_i >> 1) & ~qp_state_i & StLow) != '0;
  always_comb begin
    fl_found = 1'b0;
    fl_qpn   = '0;
    if (state_q == R_IDLE && fl_any_err) begin
      for (int q = 0; q < NumQps; q++) begin
        if (!fl_found && qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_ERROR
            && (rq_ci_set_q[q] ? rq_ci_q[q] : 16'd0) != rq_pi_q[q]) begin
          fl_found = 1'b1;
          fl_qpn   = QW'(q);
        end
      end
    end
  end
  assign fl_ci = rq_ci_set_q[flush_q] ? rq_ci_q[flush_q] : 16'd0;

  // shared by the dispatcher (next state, below), the prefetch and the read-response engine
  logic m_xl_req, m_xl_gnt, m_xl_rsp;     // the dispatcher's translation request, grant, answer
  logic m_tx_valid, m_tx_ok, m_qp_err;    // its ACK / NAK offered, allowed; its QP to ERROR
  logic rdq_push, rdq_full;               // a Read accepted into the read-response queue
  logic rdq_push_ack;                     // ... or an ACK / NAK that goes after the QP's Reads
  logic ord_head_pf;                      // the R beats are the prefetch's
  logic g_ar_valid;                       // the read-response gather requests a DMA read

  // ---- receive-WQE prefetch ----------------------------------------------------------------------
  // Per QP the receive WQEs [ci, ci + pf_n) are on chip, in cache slot (ring index mod RqCache),
  // and the next pf_fl are on their way. A QP is marked wanting (pf_want) when something may let
  // it fetch more: an RQ doorbell, a consumed receive, a fetch that ended. The engine takes one
  // wanting QP at a time (round robin) and requests a burst of its posted WQEs after those (at
  // most its free slots, inside the ring and a 4 KiB page; at least half the cache unless that
  // is everything posted, so a fast consumer does not split the reads into single WQEs). Up to
  // PfOut bursts are in flight; one AXI ID returns them in order, so a FIFO of their
  // descriptors says where each beat goes. A Send consumes only a cached WQE, so ci + pf_n +
  // pf_fl, the ring index of the next request, holds while ci moves. A QP created, destroyed or
  // flushed forgets its cache, and its bursts in flight are marked stale: their data is dropped,
  // never written into the cache of the QP's next incarnation. A QP in ERROR never reads its
  // cache (only RTS QPs take Sends) and is not fetched for.
  localparam int PfOut = 4;            // bursts in flight (the descriptor FIFO's depth)
  localparam int PoW   = $clog2(PfOut);

  typedef enum logic [1:0] {
    PF_IDLE,    // pick a wanting QP
    PF_PLAN,    // size its burst
    PF_AR       // the burst's read request
  } pf_state_e;

  pf_state_e                 pf_st_q, pf_st_d;
  // cached WQEs and WQEs in flight per QP: written only at the QPs this cycle's events name (a
  // WQE arrived, a receive consumed, a burst planned; a flush, a command); a QP's entry not
  // written since reset reads 0 (its bit in pf_*_set_q is clear)
  logic [RcW:0]              pf_n_q     [NumQps];
  logic [RcW:0]              pf_fl_q    [NumQps];
  logic [NumQps-1:0]         pf_n_set_q, pf_fl_set_q;
  logic                      pf_arr;             // a whole WQE of the head burst's QP arrived
  logic                      pf_cons;            // the dispatcher's QP consumed a receive
  logic                      pf_plan;            // a burst is planned for pf_qpn
  logic [RcW:0]              h_pf_n, h_pf_fl;    // the head burst's QP's
  logic [RcW:0]              c_pf_n;             // the consuming QP's (q_pf_n)
  logic [NumQps-1:0]         pf_want_q, pf_want_d;
  logic [QW-1:0]             pf_qpn_q, pf_qpn_d; // the QP being planned for
  logic [QW-1:0]             pf_rr_q, pf_rr_d;   // round robin: the last QP picked
  logic [63:0]               pf_addr_q, pf_addr_d;
  logic [7:0]                pf_len_q, pf_len_d;
  logic [15:0]               pf_idx_q, pf_idx_d;
  // bursts in flight, oldest first: QP, ring index of the next WQE to arrive, stale
  logic [QW-1:0]             po_qpn_q   [PfOut];
  logic [15:0]               po_idx_q   [PfOut];
  logic [PfOut-1:0]          po_stale_q, po_stale_d;
  logic [PoW-1:0]            po_rd_q, po_rd_d, po_wr_q, po_wr_d;
  logic [PoW:0]              po_used_q, po_used_d;
  logic                      po_push, po_pop;
  logic [15:0]               po_idx_next;        // the head's index after this cycle
  logic [RqBeatW-1:0]        pf_beat_q, pf_beat_d;    // beat inside the arriving WQE
  logic [511-DataWidth:0]    pf_asm_q;                // the arriving WQE's beats but its last
  logic [511:0]              pf_wqe;                  // ... whole, with its last beat (pf_we)
  logic                      pf_ar_valid;
  logic                      pf_we;
  logic [QW+RcW-1:0]         pf_waddr;
  logic [511:0]              pf_rdata;
  logic [RcW:0]              q_pf_n;             // the packet's QP's cached WQEs
  logic [QW-1:0]             po_head_qpn;
  logic                      po_head_stale;

  assign pf_ar_valid   = pf_st_q == PF_AR;
  // a WQE is written into the cache with its last beat, the top one
  assign pf_wqe        = {r_data_i, pf_asm_q[511-DataWidth:0]};
  assign q_pf_n        = pf_n_set_q[qpn_q] ? pf_n_q[qpn_q] : '0;
  assign c_pf_n        = q_pf_n;
  assign h_pf_n        = pf_n_set_q[po_head_qpn] ? pf_n_q[po_head_qpn] : '0;
  assign h_pf_fl       = pf_fl_set_q[po_head_qpn] ? pf_fl_q[po_head_qpn] : '0;
  assign po_head_qpn   = po_qpn_q[po_rd_q];
  assign po_head_stale = po_stale_q[po_rd_q];

  // the Send path reads its QP's entry [ci] in R_LOAD; forwarding keeps it current while the
  // engine writes it (R_RQ_WAIT)
  nic_ram_1r1w #(
    .Width  (512),
    .Depth  (NumQps * RqCache),
    .Forward(1'b1)
  ) u_rq_cache (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (pf_we),
    .waddr_i(pf_waddr),
    .wdata_i(pf_wqe),
    .re_i   (state_q == R_LOAD),
    .raddr_i({qpn_q, q_ci[RcW-1:0]}),
    .rdata_o(pf_rdata)
  );

  // round robin over the wanting QPs, starting after the last one picked (evaluated only in
  // PF_IDLE, its one reader, and only while some QP wants)
  logic          pf_pick_ok;
  logic [QW-1:0] pf_pick;
  nic_rr_pick #(
    .N(NumQps)
  ) u_pf_pick (
    .en_i   (pf_st_q == PF_IDLE),
    .req_i  (pf_want_q),
    .last_i (pf_rr_q),
    .found_o(pf_pick_ok),
    .idx_o  (pf_pick)
  );

  // the burst for pf_qpn: the posted WQEs after the cached and requested ones, within the free
  // slots, the ring and the page
  logic [15:0]  pl_ci, pl_next, pl_posted, pl_slot;
  logic [16:0]  pl_mask, pl_ring_room;
  logic [RcW:0] pl_n, pl_fl;
  logic [63:0]  pl_addr;
  logic [6:0]   pl_page_room;
  logic [16:0]  pl_cnt;
  logic         pl_go;
  logic [1:0]   pl_state;
  // (evaluated only in PF_PLAN, the one state that reads it)
  always_comb begin
    pl_ci        = '0;
    pl_n         = '0;
    pl_fl        = '0;
    pl_state     = '0;
    pl_next      = '0;
    pl_posted    = '0;
    pl_mask      = '0;
    pl_slot      = '0;
    pl_ring_room = '0;
    pl_addr      = '0;
    pl_page_room = '0;
    pl_cnt       = '0;
    pl_go        = 1'b0;
    if (pf_st_q == PF_PLAN) begin
      pl_ci        = rq_ci_set_q[pf_qpn_q] ? rq_ci_q[pf_qpn_q] : 16'd0;
      pl_n         = pf_n_set_q[pf_qpn_q] ? pf_n_q[pf_qpn_q] : '0;
      pl_fl        = pf_fl_set_q[pf_qpn_q] ? pf_fl_q[pf_qpn_q] : '0;
      pl_state     = qp_state_i[2*pf_qpn_q +: 2];
      pl_next      = pl_ci + 16'(pl_n) + 16'(pl_fl);
      pl_posted    = rq_pi_q[pf_qpn_q] - pl_next;
      pl_mask      = (17'd1 << rq_ld_q[pf_qpn_q]) - 17'd1;
      pl_slot      = pl_next & pl_mask[15:0];
      pl_ring_room = pl_mask + 17'd1 - 17'(pl_slot);
      pl_addr      = rq_base_q[pf_qpn_q] + (64'(pl_slot) << 6);
      pl_page_room = 7'((13'd4096 - {1'b0, pl_addr[11:0]}) >> 6);
      pl_cnt       = 17'(RqCache) - 17'(pl_n) - 17'(pl_fl);
      if (17'(pl_posted) < pl_cnt) begin
        pl_cnt = 17'(pl_posted);
      end
      if (pl_ring_room < pl_cnt) begin
        pl_cnt = pl_ring_room;
      end
      if (17'(pl_page_room) < pl_cnt) begin
        pl_cnt = 17'(pl_page_room);
      end
      // a doorbell beyond the ring (bad input) posts nothing to fetch
      if (pl_posted > pl_mask[15:0] + 16'd1
          || (pl_state != nic_pkg::QP_STATE_READY && pl_state != nic_pkg::QP_STATE_RTS)) begin
        pl_cnt = '0;
      end
      // half the cache at least, unless the burst ends at the ring, the page or what is posted
      pl_go = pl_cnt != '0 && (pl_cnt >= 17'(RqCache / 2) || pl_cnt == 17'(pl_posted)
                               || pl_cnt == pl_ring_room || pl_cnt == 17'(pl_page_room));
    end
  end

  always_comb begin
    pf_st_d    = pf_st_q;
    pf_arr     = 1'b0;
    pf_cons    = 1'b0;
    pf_plan    = 1'b0;
    pf_want_d  = pf_want_q;
    pf_qpn_d   = pf_qpn_q;
    pf_rr_d    = pf_rr_q;
    pf_addr_d  = pf_addr_q;
    pf_len_d   = pf_len_q;
    pf_idx_d   = pf_idx_q;
    pf_beat_d  = pf_beat_q;
    po_stale_d = po_stale_q;
    po_rd_d    = po_rd_q;
    po_wr_d    = po_wr_q;
    po_push    = 1'b0;
    po_pop     = 1'b0;
    po_idx_next = po_idx_q[po_rd_q];
    pf_we      = 1'b0;
    pf_waddr   = {po_head_qpn, po_idx_q[po_rd_q][RcW-1:0]};

    // ---- requests
    unique case (pf_st_q)
      PF_IDLE: begin
        if (pf_pick_ok && 32'(po_used_q) < PfOut) begin
          pf_qpn_d           = pf_pick;
          pf_rr_d            = pf_pick;
          pf_want_d[pf_pick] = 1'b0;
          pf_st_d            = PF_PLAN;
        end
      end
      PF_PLAN: begin
        if (!pl_go) begin
          pf_st_d = PF_IDLE;
        end else begin
          pf_idx_d  = pl_next;
          pf_addr_d = pl_addr;
          pf_len_d  = 8'(32'(pl_cnt) * RqBeats - 1);
          pf_plan   = 1'b1;
          pf_st_d   = PF_AR;
        end
      end
      PF_AR: begin
        // (a gather's request goes first: the prefetch is ahead of its Sends)
        if (ar_ready_i && !g_ar_valid) begin
          po_push = 1'b1;
          pf_want_d[pf_qpn_q] = 1'b1;        // more may be posted beyond the burst
          pf_st_d = PF_IDLE;
        end
      end
      default: begin
        pf_st_d = PF_IDLE;
      end
    endcase

    // ---- data: beats -> WQEs -> the cache of the oldest burst's QP
    if (ord_head_pf && r_valid_i) begin
      pf_beat_d = pf_beat_q + RqBeatW'(1);
      if (32'(pf_beat_q) == RqBeats - 1) begin
        // a whole WQE: into the cache, unless its QP was reset or flushed meanwhile
        pf_we       = !po_head_stale;
        pf_beat_d   = '0;
        po_idx_next = po_idx_q[po_rd_q] + 16'd1;
        pf_arr      = !po_head_stale;
      end
      if (r_last_i) begin
        po_pop  = 1'b1;
        po_rd_d = (32'(po_rd_q) == PfOut - 1) ? '0 : po_rd_q + 1'b1;
      end
    end
    if (po_push) begin
      po_wr_d             = (32'(po_wr_q) == PfOut - 1) ? '0 : po_wr_q + 1'b1;
      po_stale_d[po_wr_q] = 1'b0;
    end

    // a receive consumed (its completion taken): the cache's head moves with ci, a slot frees
    if (state_q == R_CPL && cpl_ready_i) begin
      pf_cons = 1'b1;
      pf_want_d[qpn_q] = 1'b1;
    end
    if (rq_db_hit) begin
      pf_want_d[QW'(rq_db_qpn_i)] = 1'b1;
    end
    // a flushed QP (in ERROR) and QP_CREATE / QP_DESTROY (commands come last): the QP forgets
    // its cache and its bursts in flight (a loop over the few descriptors, not over the QPs)
    if (state_q == R_FLUSH || cmd_reset) begin
      for (int k = 0; k < PfOut; k++) begin
        if ((state_q == R_FLUSH && po_qpn_q[k] == flush_q) || (cmd_reset && po_qpn_q[k] == cmd_qpn)) begin
          po_stale_d[k] = 1'b1;
        end
      end
    end
    if (state_q == R_FLUSH) begin
      pf_want_d[flush_q] = 1'b0;
    end
    if (cmd_reset) begin
      pf_want_d[cmd_qpn] = 1'b0;
    end
    // a burst being requested for that QP right now is stale from the start
    if (po_push && ((state_q == R_FLUSH && pf_qpn_q == flush_q) || (cmd_reset && pf_qpn_q == cmd_qpn))) begin
      po_stale_d[po_wr_q] = 1'b1;
    end

    po_used_d = po_used_q + (PoW+1)'(po_push) - (PoW+1)'(po_pop);
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pf_st_q    <= PF_IDLE;
      pf_n_set_q  <= '0;
      pf_fl_set_q <= '0;
      pf_want_q  <= '0;
      pf_qpn_q   <= '0;
      pf_rr_q    <= '0;
      pf_beat_q  <= '0;
      po_rd_q    <= '0;
      po_wr_q    <= '0;
      po_used_q  <= '0;
      po_stale_q <= '0;
    end else begin
      pf_st_q    <= pf_st_d;
      if (pf_arr || pf_cons) begin
        pf_n_set_q[pf_arr ? po_head_qpn : qpn_q] <= 1'b1;
        pf_n_set_q[pf_cons ? qpn_q : po_head_qpn] <= 1'b1;
      end
      if (pf_arr) begin
        pf_fl_set_q[po_head_qpn] <= 1'b1;
      end
      if (pf_plan) begin
        pf_fl_set_q[pf_qpn_q] <= 1'b1;
      end
      if (state_q == R_FLUSH) begin
        pf_n_set_q[flush_q]  <= 1'b1;
        pf_fl_set_q[flush_q] <= 1'b1;
      end
      if (cmd_reset) begin
        pf_n_set_q[cmd_qpn]  <= 1'b1;
        pf_fl_set_q[cmd_qpn] <= 1'b1;
      end
      pf_want_q  <= pf_want_d;
      pf_qpn_q   <= pf_qpn_d;
      pf_rr_q    <= pf_rr_d;
      pf_beat_q  <= pf_beat_d;
      po_rd_q    <= po_rd_d;
      po_wr_q    <= po_wr_d;
      po_used_q  <= po_used_d;
      po_stale_q <= po_stale_d;
    end
  end

  // the per-QP counts (RAM-like, see pf_n_set_q; each event writes its QP's entry, so its bit
  // stands). A WQE arriving for the QP that consumes a receive in the same cycle leaves its count
  // as it is; one arriving for the QP a burst is planned for in the same cycle is taken off the
  // planned count. The flush and the commands come last: the QP forgets its cache.
  always_ff @(posedge clk_i) begin
    if (pf_arr) begin
      pf_n_q[po_head_qpn] <= (pf_cons && qpn_q == po_head_qpn) ? h_pf_n : h_pf_n + 1'b1;
    end
    if (pf_cons && !(pf_arr && qpn_q == po_head_qpn)) begin
      pf_n_q[qpn_q] <= (c_pf_n != '0) ? c_pf_n - 1'b1 : '0;
    end
    if (pf_plan) begin
      pf_fl_q[pf_qpn_q] <= pl_fl + (RcW+1)'(pl_cnt) - (RcW+1)'(pf_arr && po_head_qpn == pf_qpn_q);
    end
    if (pf_arr && !(pf_plan && po_head_qpn == pf_qpn_q)) begin
      pf_fl_q[po_head_qpn] <= h_pf_fl - 1'b1;
    end
    if (state_q == R_FLUSH) begin
      pf_n_q[flush_q]  <= '0;
      pf_fl_q[flush_q] <= '0;
    end
    if (cmd_reset) begin
      pf_n_q[cmd_qpn]  <= '0;
      pf_fl_q[cmd_qpn] <= '0;
    end
  end

  // the descriptors of the bursts in flight (RAM-like: written on request, read while used)
  always_ff @(posedge clk_i) begin
    if (po_push) begin
      po_qpn_q[po_wr_q] <= pf_qpn_q;
      po_idx_q[po_wr_q] <= pf_idx_q;
    end
    if (po_used_q != '0) begin
      po_idx_q[po_rd_q] <= po_idx_next;
    end
  end

  always_ff @(posedge clk_i) begin
    pf_addr_q <= pf_addr_d;
    pf_len_q  <= pf_len_d;
    pf_idx_q  <= pf_idx_d;
    if (ord_head_pf && r_valid_i && 32'(pf_beat_q) != RqBeats - 1) begin
      pf_asm_q[DataWidth*32'(pf_beat_q) +: DataWidth] <= r_data_i;
    end
  end

  // ---- read responses: the queue, the planner, the sender ------------------------------------------
  // An accepted Read (R_RD_START) joins the read-response queue: RdqDepth Reads of any QPs, in
  // arrival order. The planner walks the oldest Read not yet planned, response by response and,
  // inside a response, piece by piece (a piece ends at the response, a 4 KiB page and a burst):
  // each piece is translated (R_Key, range, remote read: the region may have gone since the
  // request's check), its DMA read is requested and its descriptor joins the gather FIFO. So up
  // to GfDepth reads are in flight: one takes ~130-150 cycles and a piece ~5 cycles to plan. The
  // sender takes the FIFO's head: a response's header, then the piece's beats from the R
  // channel, shifted to lane 0, straight into the payload stream.
  // A piece whose translation fails ends its Read: zeros to the end of a response already
  // started (its header promised the length), then a NAK "remote access error" with the Read's
  // PSN, and the QP goes to ERROR; the QP's later queued Reads are dropped (rd_dead), as is a
  // Read whose QP is no longer RTS when the planner reaches it. A Read's queue slot is freed
  // when its last piece has gone out, so "QP q has an entry queued" (rdq_has_q) covers every
  // response still to be sent. An ACK / NAK of the dispatcher's for such a QP joins the queue
  // behind them (an entry of its own, sent as it is) and the dispatcher goes on, so q's responses
  // and acknowledgements leave in PSN order without holding up the receive path; only a fatal
  // NAK (the QP goes to ERROR with it) waits for the queue instead.
  // The DMA read client is shared with the receive-WQE prefetch. One AXI ID returns bursts in
  // request order, so a FIFO of one bit per burst in flight (ord, 1: a gather's) says whose the
  // R beats are. A gather's beats land in the gather buffer (two pages), where its read reserved
  // room when it was requested: the R channel never waits for the transmit port. (It must not:
  // the requester's payload reads share the bus, and a packet of the requester's that nic_roce_tx
  // has begun would wait for them, while the sender's next header waits for that packet.)
  localparam int RdqDepth = 16;        // Reads accepted and not yet answered
  localparam int RdqW     = $clog2(RdqDepth);
  localparam int GfDepth  = 16;        // pieces planned and not yet sent
  localparam int GfW      = $clog2(GfDepth);
  localparam int OrdDepth = 32;        // bursts in flight: >= PfOut + GfDepth
  localparam int OrdW     = $clog2(OrdDepth);
  localparam int GbBeats  = 8192 / W8;  // the gather buffer: two pages of beats

  // what a gather FIFO entry sends
  localparam logic [2:0] GK_DMA   = 3'd0;   // payload read by DMA
  localparam logic [2:0] GK_EMPTY = 3'd1;   // a zero-length Read's response: the header only
  localparam logic [2:0] GK_FAIL  = 3'd2;   // the Read failed: zeros to the response's end, a NAK
  localparam logic [2:0] GK_SKIP  = 3'd3;   // the Read is dropped: nothing goes out
  localparam logic [2:0] GK_ACK   = 3'd4;   // a queued ACK / NAK of the dispatcher's

  // -- the queue (RAM-like fields: written on push, read while the Read is queued)
  logic [QW-1:0] rdq_qpn  [RdqDepth];
  logic [63:0]   rdq_va   [RdqDepth];
  logic [31:0]   rdq_key  [RdqDepth];
  logic [31:0]   rdq_len  [RdqDepth];
  logic [23:0]   rdq_psn  [RdqDepth];    // the request's PSN: the first response's
  logic [23:0]   rdq_msn  [RdqDepth];    // the MSN its responses carry
  logic [23:0]   rdq_peer [RdqDepth];
  logic [47:0]   rdq_mac  [RdqDepth];
  logic [31:0]   rdq_ip   [RdqDepth];
  logic          rdq_ack  [RdqDepth];    // the entry is an ACK / NAK (rdq_psn, rdq_syn), no Read
  logic [7:0]    rdq_syn  [RdqDepth];
  logic [RdqW:0] rdq_wr_q, rdq_pl_q, rdq_rd_q;   // next push, next to plan, next to free
  logic          rdq_pop, rdq_plan_next;
  logic [RdqW:0] rdq_used;
  logic          rdq_has_q;              // a Read of the dispatcher's QP is queued
  assign rdq_used = rdq_wr_q - rdq_rd_q;
  assign rdq_full = rdq_used == (RdqW+1)'(RdqDepth);

  // (looked for only in R_ACK, the one state that reads it, and only while the queue holds some)
  always_comb begin
    rdq_has_q = 1'b0;
    if (state_q == R_ACK && rdq_used != '0) begin
      for (int i = 0; i < RdqDepth; i++) begin
        if ((RdqW+1)'(RdqW'(i) - rdq_rd_q[RdqW-1:0]) < rdq_used && rdq_qpn[i] == qpn_q) begin
          rdq_has_q = 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rdq_push || rdq_push_ack) begin
      rdq_ack[rdq_wr_q[RdqW-1:0]]  <= rdq_push_ack;
      rdq_syn[rdq_wr_q[RdqW-1:0]]  <= ack_syn_q;
      rdq_qpn[rdq_wr_q[RdqW-1:0]]  <= qpn_q;
      rdq_va[rdq_wr_q[RdqW-1:0]]   <= wva_q;
      rdq_key[rdq_wr_q[RdqW-1:0]]  <= wkey_q;
      rdq_len[rdq_wr_q[RdqW-1:0]]  <= wleft_q;
      // a Read's MSN is taken in the cycle of the push; an ACK's was taken before
      rdq_psn[rdq_wr_q[RdqW-1:0]]  <= rdq_push_ack ? ack_psn_q : pkt_q.psn;
      rdq_msn[rdq_wr_q[RdqW-1:0]]  <= q_msn + 24'(rdq_push);
      rdq_peer[rdq_wr_q[RdqW-1:0]] <= peer_qpn_q[qpn_q];
      rdq_mac[rdq_wr_q[RdqW-1:0]]  <= pkt_q.src_mac;
      rdq_ip[rdq_wr_q[RdqW-1:0]]   <= pkt_q.src_ip;
    end
  end

  // -- the gather FIFO
  logic [2:0]    gf_kind  [GfDepth];
  logic [RdqW-1:0] gf_slot [GfDepth];    // the Read's queue slot
  logic          gf_hdr   [GfDepth];     // a response's header goes before the piece
  logic [7:0]    gf_opc   [GfDepth];     // ... its opcode, PSN and payload length
  logic [23:0]   gf_psn   [GfDepth];
  logic [12:0]   gf_plen  [GfDepth];
  logic [LW-1:0] gf_lane0 [GfDepth];     // the piece's first byte in its first DMA beat
  logic [12:0]   gf_len   [GfDepth];     // the piece's bytes (GK_FAIL: the zeros)
  logic          gf_plast [GfDepth];     // the piece ends its response
  logic          gf_rlast [GfDepth];     // ... and its Read
  logic [GfW:0]  gf_wr_q, gf_rd_q;
  logic [GfW:0]  gf_used;
  logic          gf_room, gf_push, gf_pop;
  logic [2:0]    gfi_kind;               // the entry pushed
  logic          gfi_hdr, gfi_plast, gfi_rlast;
  logic [7:0]    gfi_opc;
  logic [12:0]   gfi_plen, gfi_len;
  assign gf_used = gf_wr_q - gf_rd_q;
  assign gf_room = gf_used != (GfW+1)'(GfDepth);


  // -- the planner
  typedef enum logic [1:0] {
    PN_IDLE,     // take the next queued Read
    PN_PIECE,    // size the next piece, translate it
    PN_XL_RSP,   // its translation
    PN_AR        // its DMA read request
  } pn_state_e;

  pn_state_e         pn_st_q, pn_st_d;
  logic [QW-1:0]     pn_qpn_q, pn_qpn_d;
  logic [63:0]       pn_va_q, pn_va_d;        // the next byte to plan
  logic [31:0]       pn_key_q, pn_key_d;
  logic [31:0]       pn_left_q, pn_left_d;    // the Read's bytes not yet planned
  logic [12:0]       pn_plen_q, pn_plen_d;    // the response's payload
  logic [12:0]       pn_pleft_q, pn_pleft_d;  // ... not yet planned
  logic [23:0]       pn_psn_q, pn_psn_d;      // the response's PSN
  logic              pn_first_q, pn_first_d;  // it is the Read's first
  logic [12:0]       pn_piece_q, pn_piece_d;
  logic [63:0]       pn_phys_q, pn_phys_d;
  logic [NumQps-1:0] rd_dead_q, rd_dead_d;    // a Read of the QP failed: drop its later ones
  logic [RdqW-1:0]   pn_s;                    // the queue slot of the next Read to plan
  logic [QW-1:0]     pn_nq;                   // ... its QP
  logic [12:0]       pn_piece_len;
  logic              pn_rsp_end;              // the response reaches the Read's end
  logic              e_xl_req, e_xl_gnt, e_xl_rsp;
  logic [7:0]        g_ar_len;
  logic              ord_push_g;
  assign pn_s       = rdq_pl_q[RdqW-1:0];
  assign pn_nq      = rdq_qpn[pn_s];
  assign pn_rsp_end = pn_left_q == 32'(pn_pleft_q);
  assign g_ar_len   = nic_dma_pkg::burst_len(12'(pn_phys_q[LW-1:0]), pn_piece_q, W8);
  // the read is requested when the gather buffer has room for all its beats
  assign g_ar_valid = pn_st_q == PN_AR && gb_room;
  assign e_xl_req   = pn_st_q == PN_PIECE && gf_room;

  always_comb begin
    pn_piece_len = nic_dma_pkg::piece_clip(pn_pleft_q, pn_va_q[11:0], W8);
  end

  always_comb begin
    pn_st_d       = pn_st_q;
    pn_qpn_d      = pn_qpn_q;
    pn_va_d       = pn_va_q;
    pn_key_d      = pn_key_q;
    pn_left_d     = pn_left_q;
    pn_plen_d     = pn_plen_q;
    pn_pleft_d    = pn_pleft_q;
    pn_psn_d      = pn_psn_q;
    pn_first_d    = pn_first_q;
    pn_piece_d    = pn_piece_q;
    pn_phys_d     = pn_phys_q;
    rd_dead_d     = rd_dead_q;
    rdq_plan_next = 1'b0;
    gf_push       = 1'b0;
    ord_push_g    = 1'b0;
    gfi_kind      = GK_DMA;
    gfi_hdr       = pn_pleft_q == pn_plen_q;
    gfi_opc       = (pn_first_q && pn_rsp_end) ? nic_roce_pkg::OP_READ_RESP_ONLY
                  : pn_first_q ? nic_roce_pkg::OP_READ_RESP_FIRST
                  : pn_rsp_end ? nic_roce_pkg::OP_READ_RESP_LAST : nic_roce_pkg::OP_READ_RESP_MIDDLE;
    gfi_plen      = pn_plen_q;
    gfi_len       = pn_piece_q;
    gfi_plast     = pn_piece_q == pn_pleft_q;
    gfi_rlast     = 32'(pn_piece_q) == pn_left_q;

    unique case (pn_st_q)
      PN_IDLE: begin
        if (rdq_pl_q != rdq_wr_q && gf_room) begin
          pn_qpn_d   = pn_nq;
          pn_va_d    = rdq_va[pn_s];
          pn_key_d   = rdq_key[pn_s];
          pn_left_d  = rdq_len[pn_s];
          pn_psn_d   = rdq_psn[pn_s];
          pn_first_d = 1'b1;
          pn_plen_d  = nic_roce_pkg::pkt_len(rdq_len[pn_s], log_mtu_q[pn_nq]);
          pn_pleft_d = pn_plen_d;
          if (rdq_ack[pn_s]) begin
            // an ACK / NAK queued behind the QP's Reads: it goes out as it is
            gf_push       = 1'b1;
            gfi_kind      = GK_ACK;
            gfi_rlast     = 1'b1;
            rdq_plan_next = 1'b1;
          end else if (qp_state_i[2*pn_nq +: 2] != nic_pkg::QP_STATE_RTS || rd_dead_q[pn_nq]) begin
            gf_push       = 1'b1;
            gfi_kind      = GK_SKIP;
            gfi_rlast     = 1'b1;
            rdq_plan_next = 1'b1;
          end else if (rdq_len[pn_s] == 32'd0) begin
            // a zero-length Read: one READ_RESPONSE_ONLY without payload
            gf_push       = 1'b1;
            gfi_kind      = GK_EMPTY;
            gfi_hdr       = 1'b1;
            gfi_opc       = nic_roce_pkg::OP_READ_RESP_ONLY;
            gfi_plen      = '0;
            gfi_len       = '0;
            gfi_plast     = 1'b1;
            gfi_rlast     = 1'b1;
            rdq_plan_next = 1'b1;
          end else begin
            pn_st_d = PN_PIECE;
          end
        end
      end
      PN_PIECE: begin
        pn_piece_d = pn_piece_len;
        if (e_xl_gnt) begin
          pn_st_d = PN_XL_RSP;
        end
      end
      PN_XL_RSP: begin
        if (e_xl_rsp) begin
          if (xl_status_i != nic_pkg::STATUS_SUCCESS) begin
            // the region went away (or changed) since the request's check: the Read ends here
            gf_push       = 1'b1;
            gfi_kind      = GK_FAIL;
            gfi_hdr       = 1'b0;
            gfi_len       = (pn_pleft_q == pn_plen_q) ? 13'd0 : pn_pleft_q;
            gfi_rlast     = 1'b1;
            rd_dead_d[pn_qpn_q] = 1'b1;
            rdq_plan_next = 1'b1;
            pn_st_d       = PN_IDLE;
          end else begin
            pn_phys_d = {xl_pfn_i, xl_page_off_i};
            pn_st_d   = PN_AR;
          end
        end
      end
      PN_AR: begin
        // the gather goes before the prefetch on the AR port (see pf PF_AR)
        if (g_ar_valid && ar_ready_i) begin
          gf_push    = 1'b1;
          ord_push_g = 1'b1;
          pn_va_d    = pn_va_q + 64'(pn_piece_q);
          pn_left_d  = pn_left_q - 32'(pn_piece_q);
          pn_pleft_d = pn_pleft_q - pn_piece_q;
          if (gfi_plast) begin
            // the response is planned: the next one
            pn_psn_d   = pn_psn_q + 24'd1;
            pn_first_d = 1'b0;
            pn_plen_d  = nic_roce_pkg::pkt_len(pn_left_d, log_mtu_q[pn_qpn_q]);
            pn_pleft_d = pn_plen_d;
          end
          if (gfi_rlast) begin
            rdq_plan_next = 1'b1;
            pn_st_d       = PN_IDLE;
          end else begin
            pn_st_d = PN_PIECE;
          end
        end
      end
      default: begin
        pn_st_d = PN_IDLE;
      end
    endcase

    if (cmd_connect) begin
      rd_dead_d[cmd_qpn] = 1'b0;
    end
    if (cmd_reset) begin
      rd_dead_d[cmd_qpn] = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pn_st_q   <= PN_IDLE;
      rd_dead_q <= '0;
    end else begin
      pn_st_q   <= pn_st_d;
      rd_dead_q <= rd_dead_d;
    end
  end

  // working registers of the Read being planned: loaded in PN_IDLE before use (an idle planner
  // with nothing queued changes none of them, and does not copy them)
  always_ff @(posedge clk_i) begin
    if (pn_st_q != PN_IDLE || rdq_pl_q != rdq_wr_q) begin
      pn_qpn_q   <= pn_qpn_d;
      pn_va_q    <= pn_va_d;
      pn_key_q   <= pn_key_d;
      pn_left_q  <= pn_left_d;
      pn_plen_q  <= pn_plen_d;
      pn_pleft_q <= pn_pleft_d;
      pn_psn_q   <= pn_psn_d;
      pn_first_q <= pn_first_d;
      pn_piece_q <= pn_piece_d;
      pn_phys_q  <= pn_phys_d;
    end
  end

  // the gather FIFO's entries (RAM-like: written on push, read while queued)
  always_ff @(posedge clk_i) begin
    if (gf_push) begin
      gf_kind[gf_wr_q[GfW-1:0]]  <= gfi_kind;
      gf_slot[gf_wr_q[GfW-1:0]]  <= rdq_pl_q[RdqW-1:0];
      gf_hdr[gf_wr_q[GfW-1:0]]   <= gfi_hdr;
      gf_opc[gf_wr_q[GfW-1:0]]   <= gfi_opc;
      gf_psn[gf_wr_q[GfW-1:0]]   <= (pn_st_q == PN_IDLE) ? rdq_psn[rdq_pl_q[RdqW-1:0]] : pn_psn_q;
      gf_plen[gf_wr_q[GfW-1:0]]  <= gfi_plen;
      gf_lane0[gf_wr_q[GfW-1:0]] <= pn_phys_q[LW-1:0];
      gf_len[gf_wr_q[GfW-1:0]]   <= gfi_len;
      gf_plast[gf_wr_q[GfW-1:0]] <= gfi_plast;
      gf_rlast[gf_wr_q[GfW-1:0]] <= gfi_rlast;
    end
  end
  // -- the R channel's owner per burst
  logic [OrdDepth-1:0] ord_q;
  logic [OrdW:0]       ord_wr_q, ord_rd_q;
  logic [OrdW:0]       ord_used;
  logic                ord_head_g, ord_pop;
  assign ord_used    = ord_wr_q - ord_rd_q;
  assign ord_head_pf = ord_used != '0 && !ord_q[ord_rd_q[OrdW-1:0]];
  assign ord_head_g  = ord_used != '0 && ord_q[ord_rd_q[OrdW-1:0]];
  assign r_ready_o   = ord_head_pf || ord_head_g;
  assign ord_pop     = r_valid_i && r_ready_o && r_last_i;

  assign ar_valid_o  = g_ar_valid || pf_ar_valid;
  assign ar_addr_o   = g_ar_valid ? {pn_phys_q[63:LW], {LW{1'b0}}} : pf_addr_q;
  assign ar_len_o    = g_ar_valid ? g_ar_len : pf_len_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ord_wr_q <= '0;
      ord_rd_q <= '0;
    end else begin
      ord_wr_q <= ord_wr_q + (OrdW+1)'(ord_push_g || po_push);
      ord_rd_q <= ord_rd_q + (OrdW+1)'(ord_pop);
    end
  end
  always_ff @(posedge clk_i) begin
    if (ord_push_g || po_push) begin
      ord_q[ord_wr_q[OrdW-1:0]] <= ord_push_g;
    end
  end

  // -- the gather buffer: the beats, as they arrived (the sender shifts the first one)
  logic                 gb_take, gb_valid, gb_room;
  logic [DataWidth-1:0] gb_rdata;          // the oldest beat not yet sent

  nic_gather_buf #(
    .Width (DataWidth),
    .Depth (GbBeats),
    .OutReg(1'b0)
  ) u_gather_buf (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .req_beats_i(9'(g_ar_len) + 9'd1),
    .room_o     (gb_room),
    .reserve_i  (g_ar_valid && ar_ready_i),
    .we_i       (r_valid_i && ord_head_g),
    .wdata_i    (r_data_i),
    .valid_o    (gb_valid),
    .data_o     (gb_rdata),
    .take_i     (gb_take)
  );

  // -- the sender: the gather FIFO's head
  logic [GfW-1:0]  gh;                    // the head's index
  logic [RdqW-1:0] gh_slot;
  logic            sd_hdr_q, sd_hdr_d;    // the head's header is out
  logic            sd_in_pkt_q, sd_in_pkt_d;  // a response's header is out, not all its payload
  logic [12:0]     sd_done_q, sd_done_d;  // the head's bytes sent
  logic [12:0]     sd_rest;               // ... still to send
  logic [LW-1:0]   sd_lane0;              // the beat's first byte
  logic            e_tx_valid, e_tx_nak, e_tx_ack, e_qp_err;
  nic_roce_pkg::tx_pkt_t e_pkt;
  assign gh      = gf_rd_q[GfW-1:0];
  assign gh_slot = gf_slot[gh];
  assign sd_rest = gf_len[gh] - sd_done_q;
  assign sd_lane0 = (sd_done_q == '0) ? gf_lane0[gh] : '0;

  // what the head offers (apart from the ready inputs, which only the update below reads)
  logic sd_dma_body;                      // the head streams its DMA beats
  always_comb begin
    e_tx_valid     = 1'b0;
    e_tx_nak       = 1'b0;
    e_tx_ack       = 1'b0;
    sd_dma_body    = 1'b0;
    tx_pl_valid_o  = 1'b0;
    tx_pl_data_o   = gb_rdata >> (8 * 32'(sd_lane0));
    tx_pl_nbytes_o = NB'(W8) - NB'(sd_lane0);
    if (13'(tx_pl_nbytes_o) > sd_rest) begin
      tx_pl_nbytes_o = NB'(sd_rest);
    end
    if (gf_used != '0) begin
      unique case (gf_kind[gh])
        GK_SKIP: begin
        end
        GK_EMPTY: begin
          e_tx_valid = 1'b1;
        end
        GK_ACK: begin
          e_tx_valid = 1'b1;
          e_tx_ack   = 1'b1;
        end
        GK_DMA: begin
          if (gf_hdr[gh] && !sd_hdr_q) begin
            e_tx_valid = 1'b1;
          end else begin
            sd_dma_body   = 1'b1;
            tx_pl_valid_o = gb_valid;
          end
        end
        default: begin   // GK_FAIL: zeros to the response's end, then the NAK
          if (sd_rest != '0) begin
            tx_pl_valid_o  = 1'b1;
            tx_pl_data_o   = '0;
            tx_pl_nbytes_o = (sd_rest >= 13'(W8)) ? NB'(W8) : NB'(sd_rest);
          end else begin
            e_tx_valid = 1'b1;
            e_tx_nak   = 1'b1;
          end
        end
      endcase
    end
  end
  assign gb_take = sd_dma_body && tx_pl_valid_o && tx_pl_ready_i;

  always_comb begin
    sd_hdr_d    = sd_hdr_q;
    sd_in_pkt_d = sd_in_pkt_q;
    sd_done_d   = sd_done_q;
    gf_pop      = 1'b0;
    rdq_pop     = 1'b0;
    e_qp_err    = 1'b0;
    if (gf_used != '0) begin
      unique case (gf_kind[gh])
        GK_SKIP: begin
          gf_pop  = 1'b1;
          rdq_pop = 1'b1;
        end
        GK_EMPTY, GK_ACK: begin
          if (tx_ready_i) begin
            gf_pop  = 1'b1;
            rdq_pop = 1'b1;
          end
        end
        GK_DMA: begin
          if (e_tx_valid && tx_ready_i) begin
            sd_hdr_d    = 1'b1;
            sd_in_pkt_d = 1'b1;
          end else if (tx_pl_valid_o && tx_pl_ready_i) begin
            sd_done_d = sd_done_q + 13'(tx_pl_nbytes_o);
            if (13'(tx_pl_nbytes_o) == sd_rest) begin
              gf_pop    = 1'b1;
              rdq_pop   = gf_rlast[gh];
              sd_hdr_d  = 1'b0;
              sd_done_d = '0;
              if (gf_plast[gh]) begin
                sd_in_pkt_d = 1'b0;
              end
            end
          end
        end
        default: begin
          if (tx_pl_valid_o && tx_pl_ready_i) begin
            sd_done_d = sd_done_q + 13'(tx_pl_nbytes_o);
          end else if (e_tx_valid && tx_ready_i) begin
            e_qp_err    = 1'b1;
            gf_pop      = 1'b1;
            rdq_pop     = 1'b1;
            sd_hdr_d    = 1'b0;
            sd_in_pkt_d = 1'b0;
            sd_done_d   = '0;
          end
        end
      endcase
    end
  end

  // the header or the NAK the sender offers
  always_comb begin
    e_pkt               = '0;
    e_pkt.dst_mac       = rdq_mac[gh_slot];
    e_pkt.dst_ip        = rdq_ip[gh_slot];
    e_pkt.dqpn          = rdq_peer[gh_slot];
    e_pkt.sqpn          = nic_pkg::QPN_BASE + 24'(rdq_qpn[gh_slot]);
    e_pkt.aeth.msn      = rdq_msn[gh_slot];
    if (e_tx_nak || e_tx_ack) begin
      e_pkt.opcode        = nic_roce_pkg::OP_ACK;
      e_pkt.psn           = rdq_psn[gh_slot];
      e_pkt.aeth.syndrome = e_tx_ack ? rdq_syn[gh_slot] : nic_roce_pkg::AETH_NAK_REMOTE_ACCESS;
    end else begin
      e_pkt.opcode        = gf_opc[gh];
      e_pkt.psn           = gf_psn[gh];
      e_pkt.aeth.syndrome = nic_roce_pkg::AETH_ACK;
      e_pkt.pay_len       = gf_plen[gh];
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rdq_wr_q    <= '0;
      rdq_pl_q    <= '0;
      rdq_rd_q    <= '0;
      gf_wr_q     <= '0;
      gf_rd_q     <= '0;
      sd_hdr_q    <= 1'b0;
      sd_in_pkt_q <= 1'b0;
      sd_done_q   <= '0;
    end else begin
      rdq_wr_q    <= rdq_wr_q + (RdqW+1)'(rdq_push || rdq_push_ack);
      rdq_pl_q    <= rdq_pl_q + (RdqW+1)'(rdq_plan_next);
      rdq_rd_q    <= rdq_rd_q + (RdqW+1)'(rdq_pop);
      gf_wr_q     <= gf_wr_q + (GfW+1)'(gf_push);
      gf_rd_q     <= gf_rd_q + (GfW+1)'(gf_pop);
      sd_hdr_q    <= sd_hdr_d;
      sd_in_pkt_q <= sd_in_pkt_d;
      sd_done_q   <= sd_done_d;
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
      xl_token_o  = pn_key_q;
      xl_inv_o    = 1'b0;
      xl_va_o     = pn_va_q;
      xl_len_o    = 32'(pn_piece_len);
      xl_pd_o     = pd_q[pn_qpn_q];
      xl_access_o = nic_pkg::FLAG_ALLOW_REMOTE_READ;
    end
  end

  // -- the transmit port: the sender's packets, and between them the dispatcher's ACK / NAK
  assign m_tx_ok      = !e_tx_valid && !sd_in_pkt_q && !rdq_has_q;
  // the ACK / NAK goes after this QP's queued Reads are answered, between the sender's packets
  assign m_tx_valid   = state_q == R_ACK && !rr_q && m_tx_ok;
  assign tx_valid_o   = e_tx_valid || m_tx_valid;
  assign tx_pkt_o     = e_tx_valid ? e_pkt : ack_pkt;
  assign qp_err_o     = m_qp_err || e_qp_err;
  assign qp_err_qpn_o = e_qp_err ? 8'(rdq_qpn[gh_slot]) : 8'(qpn_q);

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
    beats_left_d = beats_left_q;
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
    rq_ci_we     = 1'b0;
    rq_ci_wq     = qpn_q;
    rq_ci_wd     = q_ci + 16'd1;
    in_msg_d     = in_msg_q;
    msg_wr_d     = msg_wr_q;
    nak_d        = nak_q;
    rd_off_d     = rd_off_q;
    cnt_d        = cnt_q;
    take_left_d  = take_left_q;
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
          beats_left_d = wr_req_len_o + 8'd1;
          take_left_d  = piece_q;
          cnt_d        = CB'(phys_q[LW-1:0]);        // leading lanes: not written
          state_d      = R_WDATA;
        end
      end
      R_WDATA: begin
        // beats out
        if (beat_out && wr_ready_i) begin
          cnt_d        = cnt_out;
          beats_left_d = beats_left_q - 8'd1;
        end
        // payload bytes in
        if (ch_take) begin
          cnt_d  = cnt_d + CB'(ch_n);
          take_left_d = take_left_q - 13'(ch_n);
          if (rd_off_q + ch_n == pl_nbytes_i) begin
            pl_ready_o = 1'b1;
            rd_off_d   = '0;
          end else begin
            rd_off_d = rd_off_q + ch_n;
          end
        end
        if (beat_out && wr_ready_i && last_beat) begin
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
          rq_ci_we = 1'b1;
          state_d = pkt_end;
        end
      end
      R_DRAIN: begin
        // every packet ends here: the payload words not placed (all of a dropped packet, the
        // rest of one that failed midway) are taken and dropped, up to the last one
        rd_off_d = '0;
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
          rq_ci_we = 1'b1;
          rq_ci_wq = flush_q;
          rq_ci_wd = fl_ci + 16'd1;
          state_d = R_IDLE;
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
      rd_off_q <= '0;
      cnt_q    <= '0;
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
      rd_off_q <= rd_off_d;
      cnt_q    <= cnt_d;
      qpn_q    <= qpn_d;
      flush_q  <= flush_d;
      pl_done_q <= pl_done_d;
      fatal_q  <= fatal_d;
      cpl_due_q <= cpl_due_d;
    end
  end

  // the per-QP PSN, MSN and consumer index (RAM-like, see epsn_set_q): the dispatcher's write,
  // then the command's (commands come last: QP_CONNECT starts the expected PSN and the MSN,
  // QP_CREATE / QP_DESTROY forget the consumer index)
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
    if (rq_ci_we) begin
      rq_ci_q[rq_ci_wq] <= rq_ci_wd;
    end
    if (cmd_reset) begin
      rq_ci_q[cmd_qpn] <= '0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      epsn_set_q  <= '0;
      msn_set_q   <= '0;
      rq_ci_set_q <= '0;
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
      if (rq_ci_we) begin
        rq_ci_set_q[rq_ci_wq] <= 1'b1;
      end
      if (cmd_reset) begin
        rq_ci_set_q[cmd_qpn] <= 1'b1;
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
      beats_left_q <= beats_left_d;
      ack_syn_q    <= ack_syn_d;
      ack_psn_q    <= ack_psn_d;
      cpl_status_q <= cpl_status_d;
      take_left_q  <= take_left_d;
    end
    // the placer's accumulator (wide): cleared for a piece, then shifted by a beat out and
    // filled by a chunk in
    if (state_q == R_WREQ && wr_req_ready_i) begin
      acc_q  <= '0;
      sacc_q <= '0;
    end else if (beat_out && wr_ready_i || ch_take) begin
      acc_q  <= ((beat_out && wr_ready_i) ? (acc_q >> DataWidth) : acc_q)
                | (ch_take ? ((2*DataWidth)'(chunk_bytes) << (8 * cnt_out)) : '0);
      sacc_q <= ((beat_out && wr_ready_i) ? (sacc_q >> W8) : sacc_q)
                | (ch_take ? ((2*W8)'(lanes_below(CB'(ch_n))) << cnt_out) : '0);
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
      if (wr_valid_o && last_beat && wr_ready_i) begin
        a_beats_match: assert (take_left_q == '0);
      end
      if (chk_cpl_held_q) begin
        a_cpl_stable: assert (cpl_valid_o && cpl_cqe_o == chk_cpl_cqe_q);
      end
      if (pn_st_q == PN_AR) begin
        a_gather_in_page: assert (pn_piece_q != '0 && 32'(pn_phys_q[11:0]) + 32'(pn_piece_q) <= 4096);
      end
      if (tx_pl_valid_o) begin
        a_gather_chunk: assert (tx_pl_nbytes_o != '0);
      end
      // beats come only for a burst in flight; a gather's last beat ends its piece exactly
      if (r_valid_i) begin
        a_r_expected: assert (ord_used != '0);
      end
      if (gb_take) begin
        // a piece's beats: the last one ends it
        a_gather_beat: assert (gf_kind[gh] == GK_DMA && tx_pl_nbytes_o != '0
                               && 32'(sd_done_q) + 32'(tx_pl_nbytes_o) <= 32'(gf_len[gh]));
      end
      if (ord_push_g || po_push) begin
        a_ord_room: assert (32'(ord_used) < OrdDepth);
      end
      a_gf_bounds: assert (32'(gf_used) <= GfDepth && 32'(rdq_used) <= RdqDepth
                           && (rdq_pl_q - rdq_rd_q) <= rdq_used);
      if (pf_st_q == PF_AR) begin
        // a burst of whole WQEs, inside a 4 KiB page
        a_pf_burst_in_page: assert (32'(pf_addr_q[11:0]) + (32'(pf_len_q) + 1) * W8 <= 4096
                                    && (32'(pf_len_q) + 1) % RqBeats == 0);
      end
      if (pf_we) begin
        // a WQE lands only in a slot its QP reserved
        a_pf_reserved: assert (h_pf_fl != '0 && 32'(h_pf_n) + 32'(h_pf_fl) <= RqCache);
      end
      if (pf_st_q == PF_PLAN) begin
        a_pf_no_overflow: assert (32'(pl_n) + 32'(pl_fl) <= RqCache);
      end
      if (state_q == R_CHECK && q_pf_n != '0) begin
        // what is on chip was posted: never more than the posted receives
        a_pf_within_posted: assert (16'(q_pf_n) <= q_pi - q_ci);
      end
    end
  end
`endif

endmodule
