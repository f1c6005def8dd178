`default_nettype none
// nic_req_sender: the requester's transmit side. The intake plans ahead of it: it queues each
// packet's descriptor (with its inline bytes, if any: pkt_push_i) and, per payload piece, the
// piece (its first byte lane and length: piece_push_i) in the cycle the piece's DMA read is
// issued. The sender offers the oldest packet to nic_roce_tx (tx_pkt_*: valid / ready), then
// streams its payload (tx_pl_*): the inline bytes, or the beats of its pieces from the read data
// buffer (gb_*: nic_gather_buf, which every read of the requester reserved room in; the beats
// come in request order, so in piece order), shifted so that the packet's bytes are contiguous.
// A marked piece (piece_mark_i) is not payload but a replay's WQE read of the intake: the sender
// waits in front of it until the intake has taken its beats and pops it (mark_pop_i).
//
// A beat whose DMA read failed (gb_err_i: the AXI read response was SLVERR / DECERR, e.g. a PCIe
// completion error or timeout) never goes out as data: from it to the end of its packet the
// payload is zeros and poisoned (tx_pl_poison_o: nic_roce_tx inverts the frame's ICRC, so the
// peer drops it), and the packet's QP and PSN are reported once (fail_*) so the WQE completes
// with INTERNAL_ERROR and the QP goes to ERROR (the peer then drops the QP's later packets as
// out of sequence).
//
// The queues hold PktDepth descriptors and PieceDepth pieces (reads in flight); full / empty are
// outputs so the intake waits. The descriptor queue is the natural place for a register stage
// between the intake and the sender (both sides are valid / ready already).
module nic_req_sender #(
  parameter int DataWidth = 64   // stream width: 64 or 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // the intake: packets and pieces
  input  logic                          pkt_push_i,
  input  nic_roce_pkg::tx_pkt_t         pkt_i,
  input  logic [383:0]                  inl_i,       // inline payload, from its first byte
  input  logic                          is_inl_i,    // the payload is inline_i's
  output logic                          pq_full_o,
  input  logic                          piece_push_i,
  input  logic [$clog2(DataWidth/8)-1:0] piece_lane_i,
  input  logic [12:0]                   piece_len_i,
  input  logic                          piece_mark_i,   // not payload: a replay's WQE read
  output logic                          pc_full_o,
  // the head piece is a WQE read's: its beats are the intake's (it pops the marker with the
  // last of them); the sender waits in front of it
  output logic                          mark_head_o,
  input  logic                          mark_pop_i,
  // the read data buffer (beat with its r_last)
  input  logic                          gb_valid_i,
  input  logic [DataWidth-1:0]          gb_data_i,
  input  logic                          gb_last_i,
  input  logic                          gb_err_i,    // the beat's DMA read failed
  output logic                          gb_take_o,
  // a packet's payload read failed: its QP and PSN (one cycle per failed packet)
  output logic                          fail_o,
  output logic [7:0]                    fail_qpn_o,
  output logic [23:0]                   fail_psn_o,
  // to nic_roce_tx (through the TX arbiter)
  output logic                          tx_pkt_valid_o,
  output nic_roce_pkg::tx_pkt_t         tx_pkt_o,
  input  logic                          tx_pkt_ready_i,
  output logic                          tx_pl_valid_o,
  output logic [DataWidth-1:0]          tx_pl_data_o,
  output logic [$clog2(DataWidth/8):0]  tx_pl_nbytes_o,
  output logic                          tx_pl_poison_o,
  input  logic                          tx_pl_ready_i
);

  localparam int W8 = DataWidth / 8;
  localparam int LW = $clog2(W8);
  localparam int NB = LW + 1;

  // the inline bytes in words of the stream: an inline packet's beats take whole words of them
  // (every beat but the last carries W8 bytes), so a beat's offset into them is a multiple of W8
  localparam int InlBits  = 384;
  localparam int InlWords = (InlBits + DataWidth - 1) / DataWidth;
  localparam int InlIdxW  = 6 - LW;   // the word index: the 6-bit byte offset's bits above LW

  localparam int PktDepth   = 16;
  localparam int PieceDepth = 16;
  localparam int PkW = $clog2(PktDepth);
  localparam int PcW = $clog2(PieceDepth);

  // A queued descriptor holds only what a request packet carries: no AETH (the requester sends
  // no acknowledgement or Read response; the intake leaves it zero) and the sending QP as its
  // index (the intake's sqpn is always QPN_BASE + an 8-bit index). 48 bits of LUT RAM fewer a
  // slot; the descriptor offered to nic_roce_tx is rebuilt from it bit for bit
  // (a_pkt_fits_the_queue).
  typedef struct packed {
    logic [47:0]         dst_mac;
    logic [31:0]         dst_ip;
    logic [7:0]          opcode;
    logic                se;
    logic                ackreq;
    logic [23:0]         dqpn;
    logic [7:0]          sqpn_idx;   // sqpn - QPN_BASE
    logic [23:0]         psn;
    logic [63:0]         reth_va;     // nic_roce_pkg::reth_t's fields (Yosys 0.23 cannot nest a
    logic [31:0]         reth_rkey;   // package's struct type in a module's)
    logic [31:0]         reth_dma_len;
    logic [31:0]         ieth_rkey;
    logic [12:0]         pay_len;
  } pq_pkt_t;

  // Plain vectors of the descriptor's width, not an array of pq_pkt_t: Yosys 0.23 silently drops
  // the unpacked dimension of an array whose element is a packed-struct type (one register
  // instead of PktDepth; STYLE.md). Assigned to and from pq_pkt_t as it is.
  // (the width is pq_pkt_t's: the descriptor less its AETH and 16 bits of sqpn; Yosys 0.23 has
  // no $bits of a module's own typedef, Verilator's width check holds the two equal)
  localparam int PqPktW = $bits(pkt_i) - 32 - 16;
  logic [PqPktW-1:0]     pq_pkt_mem [PktDepth];
  pq_pkt_t               pq_wr;   // the descriptor pushed, as the queue holds it
  pq_pkt_t               pq_rd;   // the head slot
  logic [383:0]          pq_inl_mem [PktDepth];
  logic                  pq_isinl_mem [PktDepth];
  logic [LW-1:0]         pc_lane_mem [PieceDepth];   // byte lane of the piece's first byte
  logic [12:0]           pc_len_mem  [PieceDepth];
  logic                  pc_mark_mem [PieceDepth];   // a marker: a WQE read, not payload
  logic [PkW:0]          pq_wp_q, pq_wp_d, pq_rp_q, pq_rp_d;
  logic [PcW:0]          pc_wp_q, pc_wp_d, pc_rp_q, pc_rp_d;
  logic                  pq_pop, pc_pop;
  logic                  pq_full, pq_empty, pc_full, pc_empty;
  logic                  pc_head_mark;   // the head piece is a marker
  logic                  pc_avail;       // the head piece is payload (this packet's)
  assign pq_full  = (pq_wp_q - pq_rp_q) == (PkW+1)'(PktDepth);
  assign pq_empty = pq_wp_q == pq_rp_q;
  assign pc_full  = (pc_wp_q - pc_rp_q) == (PcW+1)'(PieceDepth);
  assign pc_empty = pc_wp_q == pc_rp_q;
  assign pc_head_mark = !pc_empty && pc_mark_mem[pc_rp_q[PcW-1:0]];
  assign pc_avail     = !pc_empty && !pc_head_mark;

  always_comb begin
    pq_wr.dst_mac   = pkt_i.dst_mac;
    pq_wr.dst_ip    = pkt_i.dst_ip;
    pq_wr.opcode    = pkt_i.opcode;
    pq_wr.se        = pkt_i.se;
    pq_wr.ackreq    = pkt_i.ackreq;
    pq_wr.dqpn      = pkt_i.dqpn;
    pq_wr.sqpn_idx  = 8'(pkt_i.sqpn - nic_pkg::QPN_BASE);
    pq_wr.psn       = pkt_i.psn;
    pq_wr.reth_va      = pkt_i.reth.va;
    pq_wr.reth_rkey    = pkt_i.reth.rkey;
    pq_wr.reth_dma_len = pkt_i.reth.dma_len;
    pq_wr.ieth_rkey = pkt_i.ieth_rkey;
    pq_wr.pay_len   = pkt_i.pay_len;
  end

  always_ff @(posedge clk_i) begin
    if (pkt_push_i) begin
      pq_pkt_mem[pq_wp_q[PkW-1:0]]   <= pq_wr;
      pq_inl_mem[pq_wp_q[PkW-1:0]]   <= inl_i;
      pq_isinl_mem[pq_wp_q[PkW-1:0]] <= is_inl_i;
    end
    if (piece_push_i) begin
      pc_lane_mem[pc_wp_q[PcW-1:0]] <= piece_lane_i;
      pc_len_mem[pc_wp_q[PcW-1:0]]  <= piece_len_i;
      pc_mark_mem[pc_wp_q[PcW-1:0]] <= piece_mark_i;
    end
  end

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
  logic                  o_poison_q, o_poison_d; // a beat of this packet's payload failed
  logic                  o_bad;                  // this beat is sent as poisoned zeros
  nic_roce_pkg::tx_pkt_t o_head;                 // the head descriptor (for its QP and PSN)
  logic [23:0]           o_head_psn;
  nic_roce_pkg::tx_pkt_t o_pkt;
  logic [383:0]          o_inl;
  logic [InlWords*DataWidth-1:0] o_inl_words;   // the inline bytes, zero-padded to whole words
  logic [5:0]            o_inl_off;              // the beat's byte offset into the inline bytes
  logic [DataWidth-1:0]  o_inl_beat;             // the beat's word of them
  logic                  o_isinl;
  logic [LW-1:0]         o_lane_head, lane0;
  logic [12:0]           o_len_head, o_cur_left;
  logic [NB-1:0]         chunk_n;
  logic [DataWidth-1:0]  chunk_data;
  logic                  o_beat;                 // a DMA beat goes to nic_roce_tx this cycle

  always_comb begin
    // the head descriptor while it is offered (nic_roce_tx looks at it only then) or its inline
    // bytes are sent
    pq_rd  = pq_pkt_mem[pq_rp_q[PkW-1:0]];
    o_head = '0;   // aeth: none in a request
    o_head.dst_mac   = pq_rd.dst_mac;
    o_head.dst_ip    = pq_rd.dst_ip;
    o_head.opcode    = pq_rd.opcode;
    o_head.se        = pq_rd.se;
    o_head.ackreq    = pq_rd.ackreq;
    o_head.dqpn      = pq_rd.dqpn;
    o_head.sqpn      = nic_pkg::QPN_BASE + 24'(pq_rd.sqpn_idx);
    o_head.psn       = pq_rd.psn;
    o_head.reth.va      = pq_rd.reth_va;
    o_head.reth.rkey    = pq_rd.reth_rkey;
    o_head.reth.dma_len = pq_rd.reth_dma_len;
    o_head.ieth_rkey = pq_rd.ieth_rkey;
    o_head.pay_len   = pq_rd.pay_len;
    o_pkt       = '0;
    if ((ostate_q == O_IDLE && !pq_empty) || ostate_q == O_INLINE) begin
      o_pkt = o_head;
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
    o_inl_off     = '0;
    o_inl_words   = '0;
    o_inl_beat    = '0;
    o_head_psn  = pq_rd.psn;
    o_bad  = ostate_q == O_DATA && (o_poison_q || gb_err_i);
    if (ostate_q == O_DATA && !o_bad) begin
      chunk_data = gb_data_i >> (8 * 32'(lane0));
    end
    if (ostate_q == O_INLINE) begin
      o_inl     = pq_inl_mem[pq_rp_q[PkW-1:0]];
      o_inl_off = 6'(o_pkt.pay_len - o_left_q);
      // The beat's word, selected at constant slices (its offset is a multiple of W8: a_inl_
      // offset_whole_words) rather than shifted by the byte offset, which would be a 384-bit
      // barrel shifter by 48 byte positions. An offset past the bytes reads zeros, as the shift.
      o_inl_words = (InlWords*DataWidth)'(o_inl);
      for (int k = 0; k < InlWords; k++) begin
        if (o_inl_off[5:LW] == InlIdxW'(k)) begin
          o_inl_beat = o_inl_words[k*DataWidth +: DataWidth];
        end
      end
    end
  end

  // The payload offered to nic_roce_tx, from the state and the data only (never from tx_pl_ready_i,
  // which nic_roce_tx computes from it).
  always_comb begin
    tx_pkt_valid_o = ostate_q == O_IDLE && !pq_empty;
    tx_pkt_o       = o_pkt;
    tx_pl_valid_o  = 1'b0;
    tx_pl_data_o   = chunk_data;
    tx_pl_nbytes_o = chunk_n;
    if (ostate_q == O_DATA) begin
      tx_pl_valid_o = gb_valid_i && pc_avail;
    end else if (ostate_q == O_INLINE) begin
      tx_pl_valid_o  = 1'b1;
      tx_pl_data_o   = o_inl_beat;
      tx_pl_nbytes_o = (o_left_q >= 13'(W8)) ? NB'(W8) : NB'(o_left_q);
    end
  end
  assign o_beat = ostate_q == O_DATA && pc_avail && gb_valid_i && tx_pl_ready_i;

  always_comb begin
    ostate_d  = ostate_q;
    o_left_d  = o_left_q;
    o_pleft_d = o_pleft_q;
    o_first_d = o_first_q;
    o_poison_d = o_poison_q;
    pq_pop    = 1'b0;
    pc_pop    = 1'b0;
    unique case (ostate_q)
      O_IDLE: begin
        if (!pq_empty && tx_pkt_ready_i) begin
          o_left_d  = o_pkt.pay_len;
          o_first_d = 1'b1;
          o_poison_d = 1'b0;
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
          o_poison_d = o_bad;
          o_pleft_d = o_cur_left - 13'(chunk_n);
          o_left_d  = o_left_q - 13'(chunk_n);
          if (gb_last_i) begin
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
        if (tx_pl_ready_i) begin
          o_left_d = o_left_q - 13'(tx_pl_nbytes_o);
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
    pq_wp_d = pq_wp_q + (PkW+1)'(pkt_push_i);
    pq_rp_d = pq_rp_q + (PkW+1)'(pq_pop);
    pc_wp_d = pc_wp_q + (PcW+1)'(piece_push_i);
    pc_rp_d = pc_rp_q + (PcW+1)'(pc_pop || mark_pop_i);
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
    if (rst_i) begin
      o_poison_q <= 1'b0;
    end else begin
      o_poison_q <= o_poison_d;
    end
  end

  always_ff @(posedge clk_i) begin
    o_left_q  <= o_left_d;
    o_pleft_q <= o_pleft_d;
    o_first_q <= o_first_d;
  end

  assign pq_full_o  = pq_full;
  assign pc_full_o  = pc_full;
  assign mark_head_o = pc_head_mark;
  assign gb_take_o  = o_beat;
  assign tx_pl_poison_o = o_bad;
  assign fail_o     = o_beat && gb_err_i && !o_poison_q;
  assign fail_qpn_o = pq_rd.sqpn_idx;
  assign fail_psn_o = o_head_psn;

  logic unused_aeth;                     // a request carries none (a_pkt_fits_the_queue)
  assign unused_aeth = ^pkt_i.aeth;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i && o_beat) begin
      // a piece's beats: each carries bytes; its last beat (r_last) ends the piece exactly
      a_chunk_nonempty: assert (chunk_n != '0 && 13'(chunk_n) <= o_cur_left);
      a_piece_ends_on_rlast: assert (gb_last_i == (o_cur_left == 13'(chunk_n)));
      a_packet_ends_on_a_piece: assert (o_left_q != 13'(chunk_n) || gb_last_i);
    end
    if (!rst_i && pkt_push_i) begin
      // what the queue drops of a descriptor: its AETH is zero, its sqpn QPN_BASE + an index
      a_pkt_fits_the_queue: assert (pkt_i.aeth == '0
                                    && pkt_i.sqpn - nic_pkg::QPN_BASE < 24'd256);
    end
    if (!rst_i && ostate_q == O_INLINE) begin
      // every inline beat but the last carries W8 bytes, so a beat starts at a whole word
      a_inl_offset_whole_words: assert (o_inl_off[LW-1:0] == '0);
    end
    if (!rst_i && mark_pop_i) begin
      // the intake pops only a marker at the head, never a payload piece
      a_mark_pop_at_a_marker: assert (pc_head_mark);
    end
  end
`endif

endmodule
