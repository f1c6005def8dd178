`default_nettype none
// nic_roce_rx: receives RoCEv2 frames from the AXI-Stream RX port, stores each whole frame,
// checks it, and hands the transport engines one packet at a time: a descriptor
// (nic_roce_pkg::rx_pkt_t) and then its payload as a dense stream (lane 0 = payload byte 0).
//
// Store and forward: nothing of a frame is passed on before its last byte and its checks, so a
// bad frame never reaches host memory. A frame is dropped, and counted in drops_o, unless it is
// Ethernet II / IPv4 (version 4, IHL 5, not fragmented, header checksum right, total length =
// the frame's) / UDP to port 4791 (length = the frame's) / BTH with TVer 0 and an opcode this
// transport knows, addressed to this port's MAC and IPv4 address, long enough for its headers,
// pad and ICRC, with at most 4096 payload bytes, and its ICRC right (docs/transport.md).
//
// Datapath: the first 72 bytes of a frame are captured into a header register; the bytes from
// the payload on are realigned as they arrive (the header length is known from the BTH opcode by
// then) and written to a RAM so that the payload starts at lane 0 of a word: the read side just
// streams words. The ICRC is checked by its residue (docs/timing-area.md "The ICRC pipelined"):
// the CRC over the frame from byte 14 on, its ICRC included, leaves a constant (0xDEBB20E3) in
// the register when the ICRC is right. Every beat counts as a whole beat (lanes past tkeep zero,
// bytes before byte 14 zero, the variant header fields all-ones): a data stage registers its
// contribution (nic_crc32_beat), a fold stage the register (A^W8 * crc ^ d), so no path chains
// two beats' CRC. The last beat's z empty lanes leave the register z bytes on: it is compared
// with A^z of the residue, a constant per tkeep. After tlast the port stalls for one cycle in
// which the last beat is folded and the checks decide (and a frame's last realigned word is
// written).
//
// Ports (besides clock and reset):
//   port_mac_i, port_ipv4_i   this port's addresses: other destinations are dropped
//   rx_*      AXI4-Stream in (tkeep contiguous from lane 0; only a frame's last beat partial)
//   pkt_*     the next packet's descriptor (valid/ready); once taken, its payload follows on pl_*
//   pl_*      payload words (valid/ready): pl_nbytes_o bytes in lanes [0, n), pl_last_o on the
//             last; a packet without payload has none. The consumer takes every word.
//   drop_o    a one-cycle pulse in the cycle a frame is dropped (counted in drops_o after it)
//   drops_o   frames dropped so far (wraps)
module nic_roce_rx #(
  parameter int DataWidth = 64,     // stream width in bits: 64 or 256
  parameter int BufBytes  = 16384,  // payload RAM: at least two largest payloads; power of two
  parameter int MaxPkts   = 4       // checked packets waiting for the consumer, >= 1
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic [47:0]                   port_mac_i,
  input  logic [31:0]                   port_ipv4_i,
  // AXI4-Stream RX
  input  logic [DataWidth-1:0]          rx_tdata_i,
  input  logic [DataWidth/8-1:0]        rx_tkeep_i,
  input  logic                          rx_tlast_i,
  input  logic                          rx_tvalid_i,
  output logic                          rx_tready_o,
  // packets
  output logic                          pkt_valid_o,
  output nic_roce_pkg::rx_pkt_t         pkt_o,
  input  logic                          pkt_ready_i,
  output logic                          pl_valid_o,
  output logic [DataWidth-1:0]          pl_data_o,
  output logic [$clog2(DataWidth/8):0]  pl_nbytes_o,
  output logic                          pl_last_o,
  input  logic                          pl_ready_i,
  output logic                          drop_o,    // a frame dropped this cycle (one-cycle pulse)
  output logic [31:0]                   drops_o
);

  localparam int W8     = DataWidth / 8;
  localparam int LW     = $clog2(W8);                          // lane index bits
  localparam int Depth  = BufBytes / W8;                       // RAM words
  localparam int AW     = $clog2(Depth);
  localparam int NCap   = (nic_roce_pkg::HDR_BUF_BYTES + W8 - 1) / W8;   // beats captured
  localparam int CapB   = NCap * DataWidth;
  localparam int HB     = 8 * nic_roce_pkg::HDR_BUF_BYTES;
  // the most RAM words one frame writes: payload, pad and ICRC
  localparam int MaxWords = (nic_roce_pkg::MAX_PAYLOAD + 3 + nic_roce_pkg::ICRC_BYTES + W8 - 1) / W8 + 1;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_roce_rx: DataWidth must be 64 or 256");
  end
  if ((BufBytes & (BufBytes - 1)) != 0 || Depth < 2 * MaxWords) begin : gen_bad_buf
    $fatal(1, "nic_roce_rx: BufBytes must be a power of two holding two largest payloads");
  end
  if (MaxPkts < 1) begin : gen_bad_pkts
    $fatal(1, "nic_roce_rx: MaxPkts must be at least 1");
  end

  function automatic logic [W8-1:0] lanes_below(input logic [LW+1:0] n);
    for (int i = 0; i < W8; i++) begin
      lanes_below[i] = (LW+2)'(i) < n;
    end
  endfunction

  function automatic logic [LW:0] keep_count(input logic [W8-1:0] keep);
    keep_count = '0;
    for (int i = 0; i < W8; i++) begin
      keep_count = keep_count + (LW+1)'(keep[i]);
    end
  endfunction

  // ---- receive state ------------------------------------------------------------------------
  typedef enum logic [1:0] {
    S_FRAME,  // taking beats
    S_CHECK,  // the frame is in: check it, write its last word, publish or drop it
    S_BLOCK   // the check passed but the descriptor FIFO is full: wait
  } state_e;

  state_e            state_q, state_d;
  logic [CapB-1:0]   cap_q;                  // the first NCap beats, byte 0 in the top bits
  logic [15:0]       len_q, len_d;           // frame bytes so far (saturating)
  logic [15:0]       beat_q, beat_d;         // beats so far (saturating)
  logic [DataWidth-1:0] prev_q;              // the previous beat (ICRC and realignment)
  logic [LW:0]       prev_n_q, prev_n_d;     // its byte count
  logic [7:0]        op_q, op_d;             // the BTH opcode once seen
  logic [AW:0]       wptr_q, wptr_d;         // next RAM word (one wrap bit)
  logic [AW:0]       fstart_q, fstart_d;     // the frame's first RAM word
  logic [AW:0]       rel_q, rel_d;           // RAM words before this are free
  logic              too_long_q, too_long_d;
  logic              flush_q, flush_d;       // a last realigned word is due in S_CHECK
  logic [DataWidth-1:0] flush_word_q;
  logic [31:0]       drops_q, drops_d;

  // descriptor FIFO (flops: a few small entries)
  localparam int PW = (MaxPkts > 1) ? $clog2(MaxPkts) : 1;
  // vectors of the descriptor's width, not an array of rx_pkt_t: Yosys 0.23 drops the unpacked
  // dimension of an array of a packed-struct type (STYLE.md)
  logic [$bits(pkt_o)-1:0] fifo_pkt_q [MaxPkts];
  logic [AW:0]       fifo_start_q [MaxPkts];
  logic [AW:0]       fifo_end_q [MaxPkts];
  logic [PW:0]       fifo_count_q, fifo_count_d;
  logic [PW-1:0]     fifo_head_q, fifo_head_d, fifo_tail_q, fifo_tail_d;
  logic              fifo_push, fifo_pop;
  nic_roce_pkg::rx_pkt_t push_pkt;
  logic              fifo_full;

  assign fifo_full = 32'(fifo_count_q) == MaxPkts;

  // ---- the beat being taken ------------------------------------------------------------------
  logic              beat_fire;
  logic [LW:0]       cur_n;
  logic [15:0]       cur_pos;                // frame position of lane 0
  logic [7:0]        op_now;                 // opcode, including from this very beat
  logic [6:0]        hlen_now;               // 54 + extension
  logic [LW-1:0]     rot;                    // payload start lane: hlen % W8
  logic [15:0]       hbeat;                  // the beat holding the payload start: hlen / W8
  logic [AW:0]       free_words;

  logic [AW:0]       fwords;                 // RAM words this frame has written
  logic [AW:0]       used_words;
  assign fwords     = wptr_q - fstart_q;
  assign used_words = wptr_q - rel_q;
  assign free_words = (AW+1)'(Depth) - used_words;
  // Room for this beat's word and a possible flush word; none while checking.
  assign rx_tready_o = state_q == S_FRAME && free_words >= (AW+1)'(2);
  assign beat_fire   = rx_tvalid_i && rx_tready_o;

  always_comb begin
    cur_n   = keep_count(rx_tkeep_i);
    cur_pos = 16'(beat_q) * 16'(W8);
    op_now  = op_q;
    // byte 42 (the BTH opcode) is in this beat
    if (32'(beat_q) == 42 / W8) begin
      op_now = rx_tdata_i[8*(42 % W8) +: 8];
    end
    hlen_now = 7'(nic_roce_pkg::BASE_HDR_BYTES) + 7'(nic_roce_pkg::ext_bytes(op_now));
    rot      = LW'(hlen_now);
    hbeat    = 16'(hlen_now) / 16'(W8);
  end

  // ---- the ICRC: a data stage, the fold, the residue -------------------------------------------
  // The register starts at A^-14 * seed: bytes 0..13 count as zeros, which leave it at the seed.
  localparam logic [31:0]   CrcInit   = nic_roce_pkg::crc32_adv(nic_roce_pkg::ICRC_SEED,
                                                                -nic_roce_pkg::ETH_BYTES);
  localparam logic [1023:0] FoldRows  = nic_roce_pkg::crc32_adv_rows(W8);
  // beats that hold a byte the ICRC reads differently (before byte 14, or a variant field)
  localparam int            MaskBeats = (nic_roce_pkg::POS_BTH_RESV8 + W8) / W8;

  // The residue after a good frame (the register over its bytes and its ICRC: 0xDEBB20E3, the
  // seed's value) moved on z zero bytes, for the z = W8 - n empty lanes of a last beat of n.
  function automatic logic [32*W8-1:0] residues(input int nbytes);
    residues = '0;
    for (int z = 0; z < nbytes; z++) begin
      residues[32*z +: 32] = nic_roce_pkg::crc32_adv(nic_roce_pkg::ICRC_SEED, z);
    end
  endfunction
  localparam logic [32*W8-1:0] Residues = residues(W8);

  logic [31:0]          crc_m_q, crc_m_d;  // the register over the beats folded so far, times A^W8
  logic [DataWidth-1:0] crc_beat;          // the beat being taken, as the ICRC reads it
  logic [31:0]          beat_crc;            // its contribution
  logic [31:0]          d_q;               // the data stage
  logic                 d_v_q;
  logic [31:0]          crc_fold;          // the register with d_q folded in
  logic [LW-1:0]        last_z;            // the empty lanes of the last beat (S_CHECK)
  logic                 icrc_ok;           // S_CHECK: the residue is right

  // Evaluated only while a beat is offered.
  always_comb begin
    crc_beat = '0;
    if (rx_tvalid_i) begin
      for (int j = 0; j < W8; j++) begin
        crc_beat[8*j +: 8] = rx_tkeep_i[j] ? rx_tdata_i[8*j +: 8] : 8'd0;
      end
      for (int b = 0; b < MaskBeats; b++) begin
        if (beat_q == 16'(b)) begin
          for (int j = 0; j < W8; j++) begin
            if (b * W8 + j < nic_roce_pkg::ETH_BYTES) begin
              crc_beat[8*j +: 8] = 8'd0;
            end else if (rx_tkeep_i[j]) begin
              crc_beat[8*j +: 8] = nic_roce_pkg::icrc_mask(rx_tdata_i[8*j +: 8], 13'(b * W8 + j));
            end
          end
        end
      end
    end
  end

  nic_crc32_beat #(
    .Bytes(W8)
  ) u_crc_beat (
    .data_i(crc_beat),
    .d_o   (beat_crc)
  );

  // The register is kept moved on by one beat (timing): crc_m_q = A^W8 * crc, so the fold is one
  // XOR (crc_fold = A^W8 * crc ^ d = crc_m_q ^ d_q) and the matrix is applied when the folded
  // value is registered (crc_m_d = A^W8 * crc_fold): S_CHECK's verdict reads crc_fold through
  // no matrix (a_crc_m_matches_reference compares with the register as it was).
  localparam logic [31:0] CrcMInit = nic_roce_pkg::crc32_mul(FoldRows, CrcInit);
  assign crc_fold = crc_m_q ^ d_q;
  // prev_n_q holds the last beat's count in S_CHECK: z = W8 - n = -n mod W8
  assign last_z   = LW'((LW+1)'(0) - prev_n_q);

  assign icrc_ok  = crc_fold == Residues[32*last_z +: 32];

  // Realignment: payload word q = frame bytes [hlen + q*W8, ...): from beats hbeat+q and
  // hbeat+q+1, or just hbeat+q when the payload starts at lane 0.
  logic                 wr_we;
  logic [AW-1:0]        wr_addr;
  logic [DataWidth-1:0] wr_data;
  logic [DataWidth-1:0] merged;

  always_comb begin
    merged = (rot == '0) ? rx_tdata_i
             : ((prev_q >> (8 * 32'(rot))) | (rx_tdata_i << (8 * (W8 - 32'(rot)))));
  end

  // ---- checks (S_CHECK: everything is registered by now) -----------------------------------------
  // The header's checks that read no frame length and no port address (the IPv4 checksum the
  // deepest) are precomputed (timing): hchk_ok_q takes them in every cycle over cap_sel, the
  // capture with the beat offered in its slot, which is the capture S_CHECK sees when that beat
  // is the last. The length checks read the header's IPv4 total length instead of the frame's:
  // with total_len + 14 == len (the one compare left to S_CHECK, against hchk_tl_q) the UDP
  // length check is udp.len == total_len - 20 and the payload length total_len + 14 - min_len.
  // a_good_matches_reference compares the verdict with the one computed all in S_CHECK.

  // nic_roce_pkg::ipv4_sum's ones' complement sum, added as a tree rather than a chain
  function automatic logic [15:0] ipv4_sum_tree(input logic [159:0] h);
    logic [16:0] p0, p1, p2, p3, p4;
    logic [19:0] t;
    p0 = 17'(h[15:0])    + 17'(h[31:16]);
    p1 = 17'(h[47:32])   + 17'(h[63:48]);
    p2 = 17'(h[79:64])   + 17'(h[95:80]);
    p3 = 17'(h[111:96])  + 17'(h[127:112]);
    p4 = 17'(h[143:128]) + 17'(h[159:144]);
    t = (20'(p0) + 20'(p1)) + (20'(p2) + 20'(p3)) + 20'(p4);
    t = 20'(t[15:0]) + 20'(t[19:16]);
    t = 20'(t[15:0]) + 20'(t[19:16]);
    ipv4_sum_tree = t[15:0];
  endfunction

  logic [CapB-1:0]         cap_sel;
  nic_roce_pkg::base_hdr_t sel_base;
  logic                    hchk_ok_q;
  logic [16:0]             hchk_tl_q;      // the header's IPv4 total length + 14

  // A frame shorter than 58 bytes (its last beat before beat MinLast) fails the length check
  // whatever the others say: the beats before MinLast are never the last beat of a frame that
  // may pass, and cap_sel takes them from cap_q alone (at width 64 the whole base header: its
  // checks read registers only).
  localparam int MinLast = (nic_roce_pkg::BASE_HDR_BYTES + nic_roce_pkg::ICRC_BYTES - 1) / W8;
  always_comb begin
    cap_sel = cap_q;
    for (int b = MinLast; b < NCap; b++) begin
      if (beat_q == 16'(b)) begin
        for (int j = 0; j < W8; j++) begin
          cap_sel[CapB - 1 - DataWidth * b - 8 * j -: 8] = rx_tdata_i[8*j +: 8];
        end
      end
    end
    sel_base = cap_sel[CapB-1 -: 8 * nic_roce_pkg::BASE_HDR_BYTES];
  end

  logic [6:0]  hchk_hl;
  logic [16:0] hchk_ml, hchk_tl;
  logic        hchk_ok;
  always_comb begin
    hchk_hl = 7'(nic_roce_pkg::BASE_HDR_BYTES) + 7'(nic_roce_pkg::ext_bytes(sel_base.bth.opcode));
    hchk_ml = 17'(hchk_hl) + 17'(sel_base.bth.padcnt) + 17'(nic_roce_pkg::ICRC_BYTES);
    hchk_tl = 17'(sel_base.ip.total_len) + 17'(nic_roce_pkg::ETH_BYTES);
    hchk_ok = hchk_tl >= hchk_ml && hchk_tl - hchk_ml <= 17'(nic_roce_pkg::MAX_PAYLOAD)
              && sel_base.eth.ethertype == nic_roce_pkg::ETHERTYPE_IPV4
              && sel_base.ip.version == 4'd4 && sel_base.ip.ihl == 4'd5
              && (sel_base.ip.flags_frag & 16'h3FFF) == 16'd0
              && ipv4_sum_tree(sel_base.ip) == 16'hFFFF
              && sel_base.ip.proto == nic_roce_pkg::IP_PROTO_UDP
              && sel_base.udp.dport == nic_roce_pkg::UDP_PORT_ROCE
              && sel_base.udp.len == sel_base.ip.total_len - 16'(20)
              && sel_base.bth.tver == 4'd0
              && nic_roce_pkg::opcode_known(sel_base.bth.opcode);
  end

  always_ff @(posedge clk_i) begin
    hchk_ok_q <= hchk_ok;
    hchk_tl_q <= hchk_tl;
  end
  // the checks read the base header of cap_sel only
  logic unused_cap_sel_tail;
  assign unused_cap_sel_tail = ^cap_sel[CapB - 8 * nic_roce_pkg::BASE_HDR_BYTES - 1:0];

  logic [HB-1:0]           hdr;
  nic_roce_pkg::base_hdr_t base;
  logic [127:0]            ext;
  logic [6:0]              hlen;
  logic [15:0]             min_len;
  logic [15:0]             pay_len;
  logic                    good;

  // Used only in S_CHECK / S_BLOCK: evaluated only there.
  always_comb begin
    hdr      = cap_q[CapB-1 -: HB];
    base     = '0;
    ext      = '0;
    hlen     = '0;
    min_len  = '0;
    pay_len  = '0;
    good     = 1'b0;
    push_pkt = '0;
    if (state_q != S_FRAME) begin
      base    = hdr[HB-1 -: 8 * nic_roce_pkg::BASE_HDR_BYTES];
      ext     = hdr[HB-1-8*nic_roce_pkg::BASE_HDR_BYTES -: 128];
      hlen    = 7'(nic_roce_pkg::BASE_HDR_BYTES) + 7'(nic_roce_pkg::ext_bytes(base.bth.opcode));
      min_len = 16'(hlen) + 16'(base.bth.padcnt) + 16'(nic_roce_pkg::ICRC_BYTES);
      pay_len = len_q - min_len;
      good    = !too_long_q && icrc_ok && hchk_ok_q && {1'b0, len_q} == hchk_tl_q
                && base.eth.dst_mac == port_mac_i
                && base.ip.dst == port_ipv4_i;

      push_pkt           = '0;
      push_pkt.src_mac   = base.eth.src_mac;
      push_pkt.src_ip    = base.ip.src;
      push_pkt.opcode    = base.bth.opcode;
      push_pkt.se        = base.bth.se;
      push_pkt.ackreq    = base.bth.ackreq;
      push_pkt.dqpn      = base.bth.dqpn;
      push_pkt.psn       = base.bth.psn;
      push_pkt.pay_len   = 13'(pay_len);
      if (nic_roce_pkg::ext_bytes(base.bth.opcode) == 5'd16) begin
        push_pkt.reth = ext;
      end else if (nic_roce_pkg::ext_bytes(base.bth.opcode) == 5'd4) begin
        push_pkt.aeth      = ext[127:96];
        push_pkt.ieth_rkey = ext[127:96];
      end
    end
  end

  // ---- next state ---------------------------------------------------------------------------
  always_comb begin
    state_d      = state_q;
    len_d        = len_q;
    beat_d       = beat_q;
    prev_n_d     = prev_n_q;
    crc_m_d      = d_v_q ? nic_roce_pkg::crc32_mul(FoldRows, crc_fold) : crc_m_q;
    op_d         = op_q;
    wptr_d       = wptr_q;
    fstart_d     = fstart_q;
    too_long_d   = too_long_q;
    flush_d      = flush_q;
    drops_d      = drops_q;
    wr_we        = 1'b0;
    wr_addr      = wptr_q[AW-1:0];
    wr_data      = merged;
    fifo_push    = 1'b0;

    unique case (state_q)
      S_FRAME: begin
        if (beat_fire) begin
          // header capture: cap_q, below
          op_d   = op_now;
          len_d  = (len_q > 16'hFFFF - 16'(W8)) ? 16'hFFFF : len_q + 16'(cur_n);
          beat_d = (beat_q == 16'hFFFF) ? beat_q : beat_q + 16'd1;
          prev_n_d = cur_n;
          // payload words
          if ((rot == '0 && beat_q >= hbeat) || (rot != '0 && beat_q >= hbeat + 16'd1)) begin
            if (32'(fwords) < MaxWords) begin
              wr_we  = 1'b1;
              wptr_d = wptr_q + (AW+1)'(1);
            end else begin
              too_long_d = 1'b1;
            end
          end
          if (rx_tlast_i) begin
            state_d   = S_CHECK;
            // the payload's tail still in this beat, past the last merged word
            // (the earlier beats were full: len_q = W8 * beat_q, and the bytes the merged
            // words hold end at hlen + W8 * beats_past = len_q + rot: a_flush_matches_reference)
            flush_d      = rot != '0 && beat_q >= hbeat && cur_n > (LW+1)'(rot);
          end
        end
      end
      S_CHECK, S_BLOCK: begin
        if (state_q == S_CHECK && flush_q) begin
          if (32'(fwords) < MaxWords) begin
            wr_we   = 1'b1;
            wr_data = flush_word_q;
            wptr_d  = wptr_q + (AW+1)'(1);
          end else begin
            too_long_d = 1'b1;
          end
          flush_d = 1'b0;
        end
        if (state_q == S_CHECK && (!good || (flush_q && 32'(fwords) >= MaxWords))) begin
          drops_d = drops_q + 32'd1;
          wptr_d  = fstart_q;             // the frame's words are given back
          state_d = S_FRAME;
        end else if (!fifo_full) begin
          fifo_push = 1'b1;
          state_d   = S_FRAME;
        end else begin
          state_d = S_BLOCK;
        end
        // Ready for the next frame. The registers S_BLOCK does not read start over in S_CHECK
        // whatever the verdict (timing: their inputs do not wait for it); the frame length (the
        // descriptor's payload length in S_BLOCK) when the state leaves for S_FRAME; the frame's
        // first RAM word when the FIFO has room: after this frame, or (dropped: wptr_d is
        // fstart_q) its own start, as when the state leaves.
        beat_d     = '0;
        crc_m_d    = CrcMInit;
        op_d       = '0;
        too_long_d = 1'b0;
        if (state_d == S_FRAME) begin
          len_d = '0;
        end
        if (!fifo_full) begin
          fstart_d = wptr_d;
        end
      end
      default: begin
        state_d = S_FRAME;
      end
    endcase
  end

  // The wide registers of the write side, loaded only in the cycles that change them: a beat
  // taken (the header capture of the first NCap beats, the previous beat, the flush word of
  // the last one). The capture is not cleared between frames: a frame shorter than the header
  // leaves bytes of an earlier one in it, but no check and no descriptor field reads them
  // (every check passing needs len = total_len + 14 >= min_len >= 58, so bytes 0..57 and the
  // opcode's header length are this frame's, and a descriptor is pushed only when they pass).
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      cap_q        <= '0;
      prev_q       <= '0;
      d_q          <= '0;
      flush_word_q <= '0;
    end else if (state_q == S_FRAME) begin
      if (beat_fire) begin
        // (one constant slice per captured beat: a part-select at an offset computed from
        // beat_q makes Yosys build a CapB-bit shifter per byte lane for the write)
        for (int b = 0; b < NCap; b++) begin
          if (beat_q == 16'(b)) begin
            for (int j = 0; j < W8; j++) begin
              cap_q[CapB - 1 - DataWidth * b - 8 * j -: 8] <= rx_tdata_i[8*j +: 8];
            end
          end
        end
        prev_q <= rx_tdata_i;
        d_q    <= beat_crc;
        if (rx_tlast_i) begin
          flush_word_q <= rx_tdata_i >> (8 * 32'(rot));
        end
      end
    end
  end

  // ---- read side: descriptors, then payload words -----------------------------------------------
  typedef enum logic [0:0] {
    R_IDLE,   // the head descriptor is offered
    R_PAY     // its payload words stream out
  } rstate_e;

  rstate_e       rstate_q, rstate_d;
  logic [AW:0]   rptr_q, rptr_d;           // next word to read
  logic [12:0]   rleft_q, rleft_d;         // payload bytes not yet read from the RAM
  logic [AW:0]   rend_q, rend_d;           // the frame's end: released when its payload is out
  logic          rv_q, rv_d;               // the RAM output holds a word not yet taken
  logic [LW:0]   rv_n_q, rv_n_d;           // its byte count
  logic          rv_last_q, rv_last_d;
  logic          re;
  logic [DataWidth-1:0] rdata;
  logic          pl_fire;

  assign pkt_valid_o = rstate_q == R_IDLE && fifo_count_q != '0;
  assign pkt_o       = fifo_pkt_q[fifo_head_q];
  assign pl_valid_o  = rv_q;
  assign pl_data_o   = rdata;
  assign pl_nbytes_o = rv_n_q;
  assign pl_last_o   = rv_last_q;
  assign pl_fire     = rv_q && pl_ready_i;

  always_comb begin
    rstate_d  = rstate_q;
    rptr_d    = rptr_q;
    rleft_d   = rleft_q;
    rend_d    = rend_q;
    rv_d      = rv_q;
    rv_n_d    = rv_n_q;
    rv_last_d = rv_last_q;
    rel_d     = rel_q;
    fifo_pop  = 1'b0;
    re        = 1'b0;
    if (pl_fire) begin
      rv_d = 1'b0;
    end
    unique case (rstate_q)
      R_IDLE: begin
        if (pkt_valid_o && pkt_ready_i) begin
          fifo_pop = 1'b1;
          rptr_d   = fifo_start_q[fifo_head_q];
          rend_d   = fifo_end_q[fifo_head_q];
          rleft_d  = pkt_o.pay_len;
          if (pkt_o.pay_len == '0) begin
            rel_d = fifo_end_q[fifo_head_q];
          end else begin
            rstate_d = R_PAY;
          end
        end
      end
      R_PAY: begin
        // read the next word when the output register is free or being taken
        if (rleft_q != '0 && (!rv_q || pl_fire)) begin
          re        = 1'b1;
          rptr_d    = rptr_q + (AW+1)'(1);
          rv_d      = 1'b1;
          rv_n_d    = (rleft_q >= 13'(W8)) ? (LW+1)'(W8) : (LW+1)'(rleft_q);
          rv_last_d = rleft_q <= 13'(W8);
          rleft_d   = (rleft_q >= 13'(W8)) ? rleft_q - 13'(W8) : '0;
        end
        if (pl_fire && rv_last_q) begin
          rel_d    = rend_q;
          rstate_d = R_IDLE;
        end
      end
      default: begin
        rstate_d = R_IDLE;
      end
    endcase
  end

  nic_ram_1r1w #(
    .Width  (DataWidth),
    .Depth  (Depth),
    .Forward(1'b0)
  ) u_buf (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (wr_we),
    .waddr_i(wr_addr),
    .wdata_i(wr_data),
    .re_i   (re),
    .raddr_i(rptr_q[AW-1:0]),
    .rdata_o(rdata)
  );

  // descriptor FIFO bookkeeping
  always_comb begin
    fifo_count_d = fifo_count_q + (PW+1)'(fifo_push) - (PW+1)'(fifo_pop);
    fifo_head_d  = fifo_pop ? ((32'(fifo_head_q) == MaxPkts - 1) ? '0 : fifo_head_q + PW'(1))
                            : fifo_head_q;
    fifo_tail_d  = fifo_push ? ((32'(fifo_tail_q) == MaxPkts - 1) ? '0 : fifo_tail_q + PW'(1))
                             : fifo_tail_q;
  end

  always_ff @(posedge clk_i) begin
    if (fifo_push) begin
      fifo_pkt_q[fifo_tail_q]   <= push_pkt;
      fifo_start_q[fifo_tail_q] <= fstart_q;
      fifo_end_q[fifo_tail_q]   <= wptr_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q      <= S_FRAME;
      len_q        <= '0;
      beat_q       <= '0;
      prev_n_q     <= '0;
      crc_m_q      <= CrcMInit;
      d_v_q        <= 1'b0;
      op_q         <= '0;
      wptr_q       <= '0;
      fstart_q     <= '0;
      rel_q        <= '0;
      too_long_q   <= 1'b0;
      flush_q      <= 1'b0;
      drops_q      <= '0;
      fifo_count_q <= '0;
      fifo_head_q  <= '0;
      fifo_tail_q  <= '0;
      rstate_q     <= R_IDLE;
      rptr_q       <= '0;
      rleft_q      <= '0;
      rend_q       <= '0;
      rv_q         <= 1'b0;
      rv_n_q       <= '0;
      rv_last_q    <= 1'b0;
    end else begin
      state_q      <= state_d;
      len_q        <= len_d;
      beat_q       <= beat_d;
      prev_n_q     <= prev_n_d;
      crc_m_q      <= crc_m_d;
      d_v_q        <= beat_fire;
      op_q         <= op_d;
      wptr_q       <= wptr_d;
      fstart_q     <= fstart_d;
      rel_q        <= rel_d;
      too_long_q   <= too_long_d;
      flush_q      <= flush_d;
      drops_q      <= drops_d;
      fifo_count_q <= fifo_count_d;
      fifo_head_q  <= fifo_head_d;
      fifo_tail_q  <= fifo_tail_d;
      rstate_q     <= rstate_d;
      rptr_q       <= rptr_d;
      rleft_q      <= rleft_d;
      rend_q       <= rend_d;
      rv_q         <= rv_d;
      rv_n_q       <= rv_n_d;
      rv_last_q    <= rv_last_d;
    end
  end

  assign drops_o = drops_q;
  assign drop_o  = drops_d != drops_q;

  // The header buffer's last two bytes lie past the longest header (70 bytes).
  logic unused_hdr_tail;
  assign unused_hdr_tail = ^hdr[15:0];
  // the capture's bytes past the header buffer (a beat wider than its tail) are never read
  if (CapB > HB) begin : gen_cap_tail
    logic unused_cap_tail;
    assign unused_cap_tail = ^cap_q[CapB-HB-1:0];
  end

`ifndef SYNTHESIS
  // The reference: the byte-serial ICRC check as it was before the pipeline (the register one
  // beat behind the input over prev's bytes, at tlast the last beat's bytes before the ICRC, the
  // ICRC compared with its complement); a_icrc_check_matches_reference checks that the residue
  // gives the same verdict for every frame whose verdict counts: at least 58 bytes (a shorter
  // one fails the length check either way; below 51 bytes the ICRC would overlap bytes the ICRC
  // reads as zeros or all-ones, and only there the two checks may differ).
  logic              ref_prev_v_q;
  logic [31:0]       ref_crc_q;
  logic              ref_icrc_ok_q;
  logic [DataWidth-1:0] ref_prev_data, ref_cur_data;
  logic [W8-1:0]        ref_prev_en, ref_cur_en;
  logic [31:0]          ref_mid, ref_fin;
  logic [31:0]          icrc_rx;             // the frame's ICRC, first byte in [7:0]

  nic_crc32_lanes #(.Bytes(W8)) u_ref_prev (
    .crc_i (ref_crc_q),
    .data_i(ref_prev_data),
    .en_i  (ref_prev_en),
    .crc_o (ref_mid)
  );
  nic_crc32_lanes #(.Bytes(W8)) u_ref_cur (
    .crc_i (ref_mid),
    .data_i(ref_cur_data),
    .en_i  (ref_cur_en),
    .crc_o (ref_fin)
  );

  // Used only when a beat is taken (beat_fire): evaluated only while one is offered.
  always_comb begin
    logic [15:0] prev_pos;
    logic [LW+1:0] keep_prev;
    prev_pos      = cur_pos - 16'(W8);
    ref_prev_data = '0;
    ref_cur_data  = '0;
    ref_prev_en   = '0;
    ref_cur_en    = '0;
    icrc_rx       = '0;
    keep_prev     = '0;
    if (rx_tvalid_i) begin
      // the variant header fields read as all-ones; payload beats pass as they are
      ref_prev_data = prev_q;
      ref_cur_data  = rx_tdata_i;
      if (32'(prev_pos) < nic_roce_pkg::HDR_BUF_BYTES) begin
        for (int j = 0; j < W8; j++) begin
          if (32'(prev_pos) + j < nic_roce_pkg::HDR_BUF_BYTES) begin
            ref_prev_data[8*j +: 8] = nic_roce_pkg::icrc_mask(prev_q[8*j +: 8],
                                                              13'(prev_pos) + 13'(j));
          end
        end
      end
      if (32'(cur_pos) < nic_roce_pkg::HDR_BUF_BYTES) begin
        for (int j = 0; j < W8; j++) begin
          if (32'(cur_pos) + j < nic_roce_pkg::HDR_BUF_BYTES) begin
            ref_cur_data[8*j +: 8] = nic_roce_pkg::icrc_mask(rx_tdata_i[8*j +: 8],
                                                             13'(cur_pos) + 13'(j));
          end
        end
      end
      // which lanes of prev and of this beat the ICRC register takes
      keep_prev = (LW+2)'(prev_n_q);
      if (rx_tlast_i && cur_n < (LW+1)'(4)) begin
        keep_prev = (LW+2)'(prev_n_q) - ((LW+2)'(4) - (LW+2)'(cur_n));   // the ICRC starts in prev
      end
      ref_prev_en = ref_prev_v_q ? lanes_below(keep_prev) : '0;
      ref_cur_en  = '0;
      if (rx_tlast_i && cur_n >= (LW+1)'(4)) begin
        ref_cur_en = lanes_below((LW+2)'(cur_n) - (LW+2)'(4));
      end
      for (int j = 0; j < W8; j++) begin
        if (32'(prev_pos) + j < nic_roce_pkg::ETH_BYTES) begin
          ref_prev_en[j] = 1'b0;
        end
        if (32'(cur_pos) + j < nic_roce_pkg::ETH_BYTES) begin
          ref_cur_en[j] = 1'b0;
        end
      end
      // the ICRC bytes: the last four of the frame
      icrc_rx = '0;
      for (int k = 0; k < 4; k++) begin
        if (cur_n >= (LW+1)'(4)) begin
          icrc_rx[8*k +: 8] = rx_tdata_i[8*(32'(cur_n) - 4 + k) +: 8];
        end else if (k < 4 - 32'(cur_n)) begin
          icrc_rx[8*k +: 8] = prev_q[8*(W8 - (4 - 32'(cur_n)) + k) +: 8];
        end else begin
          icrc_rx[8*k +: 8] = rx_tdata_i[8*(k - (4 - 32'(cur_n))) +: 8];
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ref_prev_v_q  <= 1'b0;
      ref_crc_q     <= nic_roce_pkg::ICRC_SEED;
      ref_icrc_ok_q <= 1'b0;
    end else if (state_q == S_FRAME) begin
      if (beat_fire) begin
        ref_crc_q    <= ref_mid;
        ref_prev_v_q <= 1'b1;
        if (rx_tlast_i) begin
          ref_icrc_ok_q <= ~ref_fin == icrc_rx;
        end
      end
    end else if (state_d == S_FRAME) begin
      ref_crc_q    <= nic_roce_pkg::ICRC_SEED;
      ref_prev_v_q <= 1'b0;
    end
  end

  // The ICRC register as it was (crc_q: the beats folded so far, the fold A^W8 * crc_q ^ d_q).
  logic [31:0] ref_fold_crc_q;
  always_ff @(posedge clk_i) begin
    if (rst_i || state_q != S_FRAME) begin
      ref_fold_crc_q <= CrcInit;
    end else if (d_v_q) begin
      ref_fold_crc_q <= nic_roce_pkg::crc32_mul(FoldRows, ref_fold_crc_q) ^ d_q;
    end
  end

  // The references of the precomputed checks: the ICRC verdict, the frame's verdict and the
  // flush flag as they were computed before (all in S_CHECK, and from the frame length).
  logic        ref_good;
  logic        ref_flush;
  logic [15:0] beats_past;                 // beats after the payload's first
  assign beats_past = beat_q - hbeat;
  always_comb begin
    ref_good = !too_long_q && icrc_ok
               && len_q >= min_len && pay_len <= 16'(nic_roce_pkg::MAX_PAYLOAD)
               && base.eth.dst_mac == port_mac_i
               && base.eth.ethertype == nic_roce_pkg::ETHERTYPE_IPV4
               && base.ip.version == 4'd4 && base.ip.ihl == 4'd5
               && (base.ip.flags_frag & 16'h3FFF) == 16'd0
               && nic_roce_pkg::ipv4_sum(base.ip) == 16'hFFFF
               && base.ip.total_len == len_q - 16'(nic_roce_pkg::ETH_BYTES)
               && base.ip.proto == nic_roce_pkg::IP_PROTO_UDP
               && base.ip.dst == port_ipv4_i
               && base.udp.dport == nic_roce_pkg::UDP_PORT_ROCE
               && base.udp.len == len_q - 16'(nic_roce_pkg::ETH_BYTES + 20)
               && base.bth.tver == 4'd0
               && nic_roce_pkg::opcode_known(base.bth.opcode);
    ref_flush = rot != '0 && beat_q >= hbeat
                && 32'(len_q) + 32'(cur_n) > 32'(hlen_now) + W8 * 32'(beats_past);
  end

  // Immediate assertions in a clocked block (cheaper in simulation than concurrent ones; see
  // nic_wqe_fetch): the values before the edge, a consequent only when its antecedent holds.
  logic                 pl_held_q;
  logic [DataWidth-1:0] pl_data_held_q;
  logic [LW:0]          pl_nbytes_held_q;
  always_ff @(posedge clk_i) begin
    pl_held_q <= !rst_i && pl_valid_o && !pl_ready_i;
    if (pl_valid_o && !pl_ready_i) begin
      pl_data_held_q   <= pl_data_o;
      pl_nbytes_held_q <= pl_nbytes_o;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (beat_fire) begin
        a_keep_contiguous: assert ((rx_tkeep_i == lanes_below((LW+2)'(cur_n))) && cur_n != '0);
        if (!rx_tlast_i) begin
          a_full_beats_before_last: assert (32'(cur_n) == W8);
        end
      end
      a_crc_m_matches_reference: assert (crc_m_q
                                         == nic_roce_pkg::crc32_mul(FoldRows, ref_fold_crc_q));
      a_ram_not_overrun: assert (32'(used_words) <= Depth);
      a_fifo_in_range: assert (32'(fifo_count_q) <= MaxPkts);
      if (state_q == S_CHECK) begin
        a_last_beat_folded_in_check: assert (d_v_q);
        if (len_q >= 16'(nic_roce_pkg::BASE_HDR_BYTES + nic_roce_pkg::ICRC_BYTES)) begin
          a_icrc_check_matches_reference: assert (icrc_ok == ref_icrc_ok_q);
        end
        a_good_matches_reference: assert (good == ref_good);
      end
      if (beat_fire && rx_tlast_i && len_q < 16'h8000) begin
        a_flush_matches_reference: assert (flush_d == ref_flush);
      end
      if (pl_held_q) begin
        a_pl_stable: assert (pl_valid_o && pl_data_o == pl_data_held_q
                             && pl_nbytes_o == pl_nbytes_held_q);
      end
    end
  end
`endif

endmodule
