`default_nettype none
// nic_rsp_read_engine: the responder's read-response engine.
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
// Read whose QP is no longer RTS when the planner reaches it.
// A beat whose DMA read failed (r_err_i: rresp SLVERR / DECERR, e.g. a PCIe completion error or
// timeout) never goes out as data: the response in progress is finished with zeros and poisoned
// (tx_pl_poison_o: nic_roce_tx inverts its ICRC, the requester drops it), the Read's later
// responses are not sent (their beats are drained), and once its last piece is drained a NAK
// "remote operational error" with the Read's PSN goes out (IBA 9.7.5.2.4: the responder could
// not complete the request for a reason of its own) and the QP goes to ERROR. Reads of that QP
// planned behind it still go out (the requester's QP is in error by then and ignores them);
// those not yet planned are dropped as for any QP no longer RTS. A Read's queue slot is freed
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
//
// Interfaces: the dispatcher pushes an accepted Read or a queued ACK / NAK (push_*: full_o says
// whether there is room; has_o says whether a QP has entries queued); the planner's translation
// requests (xl_*: request / grant, the answer two cycles after the grant, marked by nic_responder);
// its DMA read requests (ar_*: valid / ready; ar_push_o marks the burst as the engine's in
// nic_responder's R-channel owner FIFO) and the R beats of its bursts (r_beat_i); the packets and
// their payload (tx_*: valid / ready); the QP context at the planner's QPs (nq_*, pq_*).
// Every boundary is valid / ready or request / response: a register can sit on each.
module nic_rsp_read_engine #(
  parameter int DataWidth = 64,   // DMA and stream width: 64 or 256
  parameter int NumQps    = 16    // queue pairs, <= 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic [2*NumQps-1:0]           qp_state_i,
  input  logic                          cmd_connect_i,
  input  logic                          cmd_reset_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  // the dispatcher: a Read accepted (push_read_i) or an ACK / NAK queued behind a QP's Reads
  input  logic                          push_read_i,
  input  logic                          push_ack_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] push_qpn_i,
  input  logic [63:0]                   push_va_i,
  input  logic [31:0]                   push_key_i,
  input  logic [31:0]                   push_len_i,
  input  logic [23:0]                   push_psn_i,     // the first response's (the ACK's) PSN
  input  logic [23:0]                   push_msn_i,
  input  logic [7:0]                    push_syn_i,     // the ACK / NAK's syndrome
  input  logic [23:0]                   push_peer_qpn_i,
  input  logic [47:0]                   push_mac_i,
  input  logic [31:0]                   push_ip_i,
  output logic                          full_o,
  input  logic                          has_en_i,       // has_o is looked for only then
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] has_qpn_i,
  output logic                          has_o,
  // the QP context: the path MTU at the next Read's QP and at the planned one, and its PD
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] nq_qpn_o,
  input  logic [3:0]                    nq_log_mtu_i,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] pq_qpn_o,
  input  logic [3:0]                    pq_log_mtu_i,
  input  logic [15:0]                   pq_pd_i,
  // MR table translations (R_Key, range, remote read) of the pieces
  output logic                          xl_req_o,
  input  logic                          xl_gnt_i,
  output logic [31:0]                   xl_token_o,
  output logic [63:0]                   xl_va_o,
  output logic [31:0]                   xl_len_o,
  output logic [15:0]                   xl_pd_o,
  input  logic                          xl_rsp_i,
  input  logic [31:0]                   xl_status_i,
  input  logic [51:0]                   xl_pfn_i,
  input  logic [11:0]                   xl_page_off_i,
  // DMA reads of the pieces, and their beats
  output logic                          ar_valid_o,
  input  logic                          ar_ready_i,
  output logic [63:0]                   ar_addr_o,
  output logic [7:0]                    ar_len_o,
  output logic                          ar_push_o,      // a burst of the engine's is requested
  input  logic                          r_beat_i,
  input  logic [DataWidth-1:0]          r_data_i,
  input  logic                          r_err_i,        // the beat's read failed (rresp != OKAY)
  // the responses and NAKs (the header, then the payload)
  output logic                          tx_valid_o,
  output nic_roce_pkg::tx_pkt_t         tx_pkt_o,
  input  logic                          tx_ready_i,
  output logic                          tx_pl_valid_o,
  output logic [DataWidth-1:0]          tx_pl_data_o,
  output logic [$clog2(DataWidth/8):0]  tx_pl_nbytes_o,
  output logic                          tx_pl_poison_o, // the chunk stands for failed DMA data
  input  logic                          tx_pl_ready_i,
  output logic                          in_pkt_o,       // a response's header is out, not all its payload
  // a Read failed: its QP goes to ERROR
  output logic                          qp_err_o,
  output logic [7:0]                    qp_err_qpn_o
);

  localparam int W8 = DataWidth / 8;
  localparam int LW = $clog2(W8);
  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int NB = LW + 1;

  logic g_ar_valid, e_xl_req, ar_push;

  localparam int RdqDepth = 16;        // Reads accepted and not yet answered
  localparam int RdqW     = $clog2(RdqDepth);
  localparam int GfDepth  = 16;        // pieces planned and not yet sent
  localparam int GfW      = $clog2(GfDepth);
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
  logic          rdq_has_q;              // a Read of has_qpn_i is queued
  logic          rdq_full;
  assign rdq_used = rdq_wr_q - rdq_rd_q;
  assign rdq_full = rdq_used == (RdqW+1)'(RdqDepth);

  // (looked for only in R_ACK, the one state that reads it, and only while the queue holds some)
  always_comb begin
    rdq_has_q = 1'b0;
    if (has_en_i && rdq_used != '0) begin
      for (int i = 0; i < RdqDepth; i++) begin
        if ((RdqW+1)'(RdqW'(i) - rdq_rd_q[RdqW-1:0]) < rdq_used && rdq_qpn[i] == has_qpn_i) begin
          rdq_has_q = 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (push_read_i || push_ack_i) begin
      rdq_ack[rdq_wr_q[RdqW-1:0]]  <= push_ack_i;
      rdq_syn[rdq_wr_q[RdqW-1:0]]  <= push_syn_i;
      rdq_qpn[rdq_wr_q[RdqW-1:0]]  <= push_qpn_i;
      rdq_va[rdq_wr_q[RdqW-1:0]]   <= push_va_i;
      rdq_key[rdq_wr_q[RdqW-1:0]]  <= push_key_i;
      rdq_len[rdq_wr_q[RdqW-1:0]]  <= push_len_i;
      rdq_psn[rdq_wr_q[RdqW-1:0]]  <= push_psn_i;
      rdq_msn[rdq_wr_q[RdqW-1:0]]  <= push_msn_i;
      rdq_peer[rdq_wr_q[RdqW-1:0]] <= push_peer_qpn_i;
      rdq_mac[rdq_wr_q[RdqW-1:0]]  <= push_mac_i;
      rdq_ip[rdq_wr_q[RdqW-1:0]]   <= push_ip_i;
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
  // The piece's burst length, burst_len(pn_phys_q, pn_piece_q), registered with them: it sizes
  // the gather buffer's room check, which is AR valid, which goes through nic_dma_rd's arbiter
  // into every DMA read client's ready (this engine's own ready selects the planner's next
  // values, so the chain was the core's deepest).
  logic [7:0]        g_ar_len_q;
  assign pn_s       = rdq_pl_q[RdqW-1:0];
  assign pn_nq      = rdq_qpn[pn_s];
  assign pn_rsp_end = pn_left_q == 32'(pn_pleft_q);
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
    ar_push    = 1'b0;
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
          pn_plen_d  = nic_roce_pkg::pkt_len(rdq_len[pn_s], nq_log_mtu_i);
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
        if (xl_gnt_i) begin
          pn_st_d = PN_XL_RSP;
        end
      end
      PN_XL_RSP: begin
        if (xl_rsp_i) begin
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
          ar_push    = 1'b1;
          pn_va_d    = pn_va_q + 64'(pn_piece_q);
          pn_left_d  = pn_left_q - 32'(pn_piece_q);
          pn_pleft_d = pn_pleft_q - pn_piece_q;
          if (gfi_plast) begin
            // the response is planned: the next one
            pn_psn_d   = pn_psn_q + 24'd1;
            pn_first_d = 1'b0;
            pn_plen_d  = nic_roce_pkg::pkt_len(pn_left_d, pq_log_mtu_i);
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

    if (cmd_connect_i) begin
      rd_dead_d[cmd_qpn_i] = 1'b0;
    end
    if (cmd_reset_i) begin
      rd_dead_d[cmd_qpn_i] = 1'b0;
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
      g_ar_len_q <= nic_dma_pkg::burst_len(12'(pn_phys_d[LW-1:0]), pn_piece_d, W8);
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
  // -- the gather buffer: the beats, as they arrived (the sender shifts the first one)
  logic                 gb_take, gb_valid, gb_room;
  logic [DataWidth:0]   gb_rdata;          // the oldest beat not yet sent, and its DMA error
  logic                 gb_err;
  assign gb_err = gb_rdata[DataWidth];

  nic_gather_buf #(
    .Width (DataWidth + 1),
    .Depth (GbBeats),
    .OutReg(1'b0)
  ) u_gather_buf (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .req_beats_i(9'(g_ar_len_q) + 9'd1),
    .room_o     (gb_room),
    .reserve_i  (g_ar_valid && ar_ready_i),
    .we_i       (r_beat_i),
    .wdata_i    ({r_err_i, r_data_i}),
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
  logic            tx_nak, tx_ack;
  logic            sd_err_q, sd_err_d;    // a beat of the head's Read failed its DMA read
  logic            sd_nak_q, sd_nak_d;    // ... and all its pieces are drained: its NAK is next
  logic            sd_skip;               // ... and its response in progress has ended: nothing
                                          // more of the Read goes out
  logic            sd_beat;               // a beat of the head's leaves the gather buffer
  assign sd_skip = sd_err_q && !sd_in_pkt_q;
  assign gh      = gf_rd_q[GfW-1:0];
  assign gh_slot = gf_slot[gh];
  assign sd_rest = gf_len[gh] - sd_done_q;
  assign sd_lane0 = (sd_done_q == '0) ? gf_lane0[gh] : '0;

  // what the head offers (apart from the ready inputs, which only the update below reads)
  logic sd_dma_body;                      // the head streams its DMA beats
  always_comb begin
    tx_valid_o     = 1'b0;
    tx_nak       = 1'b0;
    tx_ack       = 1'b0;
    sd_dma_body    = 1'b0;
    tx_pl_valid_o  = 1'b0;
    tx_pl_data_o   = gb_rdata[DataWidth-1:0] >> (8 * 32'(sd_lane0));
    tx_pl_poison_o = 1'b0;
    tx_pl_nbytes_o = NB'(W8) - NB'(sd_lane0);
    if (13'(tx_pl_nbytes_o) > sd_rest) begin
      tx_pl_nbytes_o = NB'(sd_rest);
    end
    if (gf_used != '0) begin
      unique case (gf_kind[gh])
        GK_SKIP: begin
        end
        GK_EMPTY: begin
          tx_valid_o = 1'b1;
        end
        GK_ACK: begin
          tx_valid_o = 1'b1;
          tx_ack   = 1'b1;
        end
        GK_DMA: begin
          if (sd_nak_q) begin
            tx_valid_o = 1'b1;
            tx_nak     = 1'b1;
          end else if (gf_hdr[gh] && !sd_hdr_q) begin
            tx_valid_o = !sd_skip;
          end else begin
            sd_dma_body   = 1'b1;
            tx_pl_valid_o = gb_valid && !sd_skip;
            if (sd_err_q || gb_err) begin
              tx_pl_data_o   = '0;
              tx_pl_poison_o = 1'b1;
            end
          end
        end
        default: begin   // GK_FAIL: zeros to the response's end, then the NAK
          if (sd_rest != '0 && !sd_skip) begin
            tx_pl_valid_o  = 1'b1;
            tx_pl_data_o   = '0;
            tx_pl_poison_o = sd_err_q;
            tx_pl_nbytes_o = (sd_rest >= 13'(W8)) ? NB'(W8) : NB'(sd_rest);
          end else begin
            tx_valid_o = 1'b1;
            tx_nak   = 1'b1;
          end
        end
      endcase
    end
  end
  assign gb_take = sd_dma_body && gb_valid && (sd_skip || tx_pl_ready_i);
  assign sd_beat = gb_take;

  always_comb begin
    sd_hdr_d    = sd_hdr_q;
    sd_in_pkt_d = sd_in_pkt_q;
    sd_done_d   = sd_done_q;
    sd_err_d    = sd_err_q;
    sd_nak_d    = sd_nak_q;
    gf_pop      = 1'b0;
    rdq_pop     = 1'b0;
    qp_err_o    = 1'b0;
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
          if (sd_nak_q) begin
            if (tx_ready_i) begin   // the NAK of a Read whose DMA read failed
              qp_err_o    = 1'b1;
              gf_pop      = 1'b1;
              rdq_pop     = 1'b1;
              sd_err_d    = 1'b0;
              sd_nak_d    = 1'b0;
            end
          end else if (gf_hdr[gh] && !sd_hdr_q) begin
            if (sd_skip) begin
              sd_hdr_d    = 1'b1;     // a later response of a failed Read: not sent
            end else if (tx_ready_i) begin
              sd_hdr_d    = 1'b1;
              sd_in_pkt_d = 1'b1;
            end
          end else if (sd_beat) begin
            sd_err_d  = sd_err_q || gb_err;
            sd_done_d = sd_done_q + 13'(tx_pl_nbytes_o);
            if (13'(tx_pl_nbytes_o) == sd_rest) begin
              sd_hdr_d  = 1'b0;
              sd_done_d = '0;
              if (gf_plast[gh]) begin
                sd_in_pkt_d = 1'b0;
              end
              if (gf_rlast[gh] && sd_err_d) begin
                sd_nak_d = 1'b1;          // the entry stays for the NAK
              end else begin
                gf_pop  = 1'b1;
                rdq_pop = gf_rlast[gh];
              end
            end
          end
        end
        default: begin
          if (tx_pl_valid_o && tx_pl_ready_i) begin
            sd_done_d = sd_done_q + 13'(tx_pl_nbytes_o);
          end else if (tx_valid_o && tx_ready_i) begin
            qp_err_o    = 1'b1;
            gf_pop      = 1'b1;
            rdq_pop     = 1'b1;
            sd_hdr_d    = 1'b0;
            sd_in_pkt_d = 1'b0;
            sd_done_d   = '0;
            sd_err_d    = 1'b0;
          end
        end
      endcase
    end
  end

  // the header or the NAK the sender offers. Which of the two is chosen from the head's kind and
  // sd_nak_q only, not from tx_nak / tx_ack (a failed entry's NAK waits for its zeros, a byte
  // count on a deeper path): the fields matter only while tx_valid_o, and then an ACK entry, a
  // failed one, or a DMA entry whose NAK is next offers an ACK / NAK (a_tx_ack_fields).
  logic tx_ack_fields;
  assign tx_ack_fields = !(gf_kind[gh] == GK_EMPTY || (gf_kind[gh] == GK_DMA && !sd_nak_q));
  always_comb begin
    tx_pkt_o             = '0;
    tx_pkt_o.dst_mac       = rdq_mac[gh_slot];
    tx_pkt_o.dst_ip        = rdq_ip[gh_slot];
    tx_pkt_o.dqpn          = rdq_peer[gh_slot];
    tx_pkt_o.sqpn          = nic_pkg::QPN_BASE + 24'(rdq_qpn[gh_slot]);
    tx_pkt_o.aeth.msn      = rdq_msn[gh_slot];
    if (tx_ack_fields) begin
      tx_pkt_o.opcode        = nic_roce_pkg::OP_ACK;
      tx_pkt_o.psn           = rdq_psn[gh_slot];
      tx_pkt_o.aeth.syndrome = (gf_kind[gh] == GK_ACK) ? rdq_syn[gh_slot]
                             : sd_err_q ? nic_roce_pkg::AETH_NAK_REMOTE_OP
                                        : nic_roce_pkg::AETH_NAK_REMOTE_ACCESS;
    end else begin
      tx_pkt_o.opcode        = gf_opc[gh];
      tx_pkt_o.psn           = gf_psn[gh];
      tx_pkt_o.aeth.syndrome = nic_roce_pkg::AETH_ACK;
      tx_pkt_o.pay_len       = gf_plen[gh];
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
      sd_err_q    <= 1'b0;
      sd_nak_q    <= 1'b0;
    end else begin
      rdq_wr_q    <= rdq_wr_q + (RdqW+1)'(push_read_i || push_ack_i);
      rdq_pl_q    <= rdq_pl_q + (RdqW+1)'(rdq_plan_next);
      rdq_rd_q    <= rdq_rd_q + (RdqW+1)'(rdq_pop);
      gf_wr_q     <= gf_wr_q + (GfW+1)'(gf_push);
      gf_rd_q     <= gf_rd_q + (GfW+1)'(gf_pop);
      sd_hdr_q    <= sd_hdr_d;
      sd_in_pkt_q <= sd_in_pkt_d;
      sd_done_q   <= sd_done_d;
      sd_err_q    <= sd_err_d;
      sd_nak_q    <= sd_nak_d;
    end
  end


  assign full_o       = rdq_full;
  assign has_o        = rdq_has_q;
  assign nq_qpn_o     = pn_nq;
  assign pq_qpn_o     = pn_qpn_q;
  assign xl_req_o     = e_xl_req;
  assign xl_token_o   = pn_key_q;
  assign xl_va_o      = pn_va_q;
  assign xl_len_o     = 32'(pn_piece_len);
  assign xl_pd_o      = pq_pd_i;
  assign ar_valid_o   = g_ar_valid;
  assign ar_addr_o    = {pn_phys_q[63:LW], {LW{1'b0}}};
  assign ar_len_o     = g_ar_len_q;
  assign ar_push_o    = ar_push;
  assign in_pkt_o     = sd_in_pkt_q;
  assign qp_err_qpn_o = 8'(rdq_qpn[gh_slot]);

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (pn_st_q == PN_AR) begin
        a_gather_in_page: assert (pn_piece_q != '0 && 32'(pn_phys_q[11:0]) + 32'(pn_piece_q) <= 4096);
        a_ar_len: assert (g_ar_len_q == nic_dma_pkg::burst_len(12'(pn_phys_q[LW-1:0]), pn_piece_q, W8));
      end
      if (tx_pl_valid_o) begin
        a_gather_chunk: assert (tx_pl_nbytes_o != '0);
      end
      if (tx_valid_o) begin
        a_tx_ack_fields: assert (tx_ack_fields == (tx_nak || tx_ack)
                                 && (gf_kind[gh] == GK_ACK) == tx_ack);
      end
      if (gb_take) begin
        // a piece's beats: the last one ends it
        a_gather_beat: assert (gf_kind[gh] == GK_DMA && tx_pl_nbytes_o != '0
                               && 32'(sd_done_q) + 32'(tx_pl_nbytes_o) <= 32'(gf_len[gh]));
      end
      a_gf_bounds: assert (32'(gf_used) <= GfDepth && 32'(rdq_used) <= RdqDepth
                           && (rdq_pl_q - rdq_rd_q) <= rdq_used);
    end
  end
`endif

endmodule
