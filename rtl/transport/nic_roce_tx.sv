`default_nettype none
// nic_roce_tx: turns packets (a nic_roce_pkg::tx_pkt_t and its payload) into RoCEv2 frames on the
// AXI-Stream TX port (docs/transport.md): Ethernet / IPv4 / UDP / BTH, the extension header the
// opcode needs, the payload, the pad to a multiple of 4 and the ICRC.
//
// Ports (besides clock and reset):
//   port_mac_i, port_ipv4_i   the port's own addresses (source of every frame)
//   pkt_*     one packet descriptor (valid/ready); accepted into a register while the previous
//             frame's tail is built, its headers built from that register (pkt_ready_o is a
//             function of registers)
//   pl_*      its payload: chunks of pl_nbytes_i (1..DataWidth/8) bytes in lanes [0, n), lane 0
//             first, pkt.pay_len bytes in all, in order (valid/ready). A packet with pay_len 0
//             takes no chunk.
//   tx_*      AXI4-Stream: tkeep marks valid bytes, contiguous from lane 0; only the last beat
//             of a frame may be partial.
//
// Datapath: every piece of the frame (header chunks of up to DataWidth/8 bytes, payload chunks,
// then {pad, ICRC}) is appended to a packer that holds up to two beats and emits full beats, and
// the final partial one with tlast. So a chunk of any length lands at any lane without a
// per-packet realignment stage, and payload chunks from unaligned DMA reads just flow through.
// The ICRC is computed from the packer's side (docs/timing-area.md "The ICRC pipelined"), so its
// depth does not depend on which bytes a piece enables: every beat of the frame before its last
// leaves the packer whole and goes through a data stage (its contribution from a zero register,
// bytes before frame byte 14 zero, the variant header fields all-ones: nic_crc32_beat) and a fold
// stage (crc = A^W8 * crc ^ d). The last beat of data (with its pad: the packer's empty lanes are
// zero) is folded where it is once all of it is in; it counts as W8 bytes, so the register ends
// z = W8 - n bytes too far on, and the tail carries the complement of A^-z of it (z is 2 mod 4,
// known from the frame's length), written into the packer's lanes after the pad. That costs one
// cycle at the frame's tail (its last beat folded) before {pad, ICRC} goes in.
// Throughput: one chunk per cycle, so a full-beat payload streams at the port's width.
module nic_roce_tx #(
  parameter int DataWidth = 64   // stream width in bits: 64 or 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  input  logic [47:0]                   port_mac_i,
  input  logic [31:0]                   port_ipv4_i,
  // packets
  input  logic                          pkt_valid_i,
  input  nic_roce_pkg::tx_pkt_t         pkt_i,
  output logic                          pkt_ready_o,
  // payload chunks
  input  logic                          pl_valid_i,
  input  logic [DataWidth-1:0]          pl_data_i,
  input  logic [$clog2(DataWidth/8):0]  pl_nbytes_i,
  input  logic                          pl_poison_i,
  output logic                          pl_ready_o,
  // AXI4-Stream TX
  output logic [DataWidth-1:0]          tx_tdata_o,
  output logic [DataWidth/8-1:0]        tx_tkeep_o,
  output logic                          tx_tlast_o,
  output logic                          tx_tvalid_o,
  input  logic                          tx_tready_i
);

  localparam int W8   = DataWidth / 8;           // bytes per beat
  localparam int NB   = $clog2(W8) + 1;          // bits of a chunk length 0..W8
  localparam int CB   = $clog2(2 * W8) + 1;      // bits of the packer count 0..2*W8
  localparam int HB   = 8 * nic_roce_pkg::HDR_BUF_BYTES;
  localparam int LW   = $clog2(W8);
  localparam int ZqBits = $clog2(W8 / 4);   // bits of zq = (z - 2) / 4 (z: the last beat's gap)
  // beats that hold a byte the ICRC reads differently (before byte 14, or a variant field):
  // positions 0 .. POS_BTH_RESV8
  localparam int MaskBeats = (nic_roce_pkg::POS_BTH_RESV8 + W8) / W8;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_roce_tx: DataWidth must be 64 or 256");
  end

  // ---- the packer ---------------------------------------------------------------------------
  logic [2*DataWidth-1:0] acc_q;           // bytes not yet sent, lane 0 first
  logic [CB-1:0]          cnt_q, cnt_d;    // how many
  logic                   end_q, end_d;    // the frame's last piece is in: flush with tlast
  logic                   out_valid, out_last, out_fire;
  logic [CB-1:0]          cnt_after;
  logic                   in_valid, in_ready, in_end, in_fire;
  logic [DataWidth-1:0]   in_data;         // the piece: its bytes from lane in_n on are zero
  logic [2*DataWidth-1:0] in_placed;       // ... at its lanes of the packer (cnt_after on)
  logic                   in_up;           // ... one beat further than the low bits of cnt_q
  logic [NB-1:0]          in_n;

  function automatic logic [W8-1:0] lanes_below(input logic [CB-1:0] n);
    for (int i = 0; i < W8; i++) begin
      lanes_below[i] = CB'(i) < n;
    end
  endfunction

  function automatic logic [DataWidth-1:0] keep_bytes(input logic [DataWidth-1:0] d,
                                                       input logic [NB-1:0] n);
    for (int i = 0; i < W8; i++) begin
      keep_bytes[8*i +: 8] = (NB'(i) < n) ? d[8*i +: 8] : 8'd0;
    end
  endfunction

  always_comb begin
    out_valid = cnt_q >= CB'(W8) || (end_q && cnt_q != '0);
    out_last  = end_q && cnt_q <= CB'(W8);
    out_fire  = out_valid && tx_tready_i;
    cnt_after = cnt_q;
    if (out_fire) begin
      cnt_after = out_last ? '0 : cnt_q - CB'(W8);
    end
    // A frame's last beat and the next frame's first piece may cross in one cycle: the beat
    // leaving with tlast empties the packer (cnt_after is 0), so back-to-back frames leave
    // back to back.
    // cnt_after <= W8, written without cnt_after: a beat out leaves at most W8 (cnt_q <= 2 * W8)
    in_ready = (!end_q || (out_fire && out_last)) && (out_fire || cnt_q <= CB'(W8));
    in_fire  = in_valid && in_ready;

    cnt_d = cnt_after;
    end_d = end_q;
    if (out_fire && out_last) begin
      end_d = 1'b0;
    end
    if (in_fire) begin
      cnt_d = cnt_after + CB'(in_n);
      end_d = in_end;
    end
  end

  assign tx_tvalid_o = out_valid;
  assign tx_tlast_o  = out_last;
  assign tx_tdata_o  = acc_q[DataWidth-1:0];
  assign tx_tkeep_o  = out_last ? lanes_below(cnt_q) : {W8{1'b1}};

  // ---- the frame sequencer ------------------------------------------------------------------
  typedef enum logic [1:0] {
    S_IDLE,   // waiting for a packet
    S_HDR,    // header chunks into the packer
    S_PAY,    // payload chunks
    S_TAIL    // {pad, ICRC}
  } state_e;

  state_e        state_q, state_d;
  logic [HB-1:0] hdr_q;              // the headers not yet packed, first byte in the top bits;
                                     // between frames the accepted descriptor's header fields
  logic [6:0]    hpos_q, hpos_d;     // frame position of hdr_q's top byte
  logic [6:0]    hlen_q, hlen_d;     // header bytes: 54 + extension
  logic [12:0]   left_q, left_d;     // payload bytes still to come
  logic [1:0]    pad_q, pad_d;
  logic          poison_q, poison_d;  // a payload chunk of this frame was poisoned

  // The packet descriptor register (docs/timing-area.md "The packet descriptor registered"): a
  // descriptor is accepted while no frame's payload is still to come (S_IDLE, or S_TAIL: the
  // payload stage and the TX arbiter switch to the next packet's owner at the accept) into the
  // registers the sequencer does not use then: its header fields copied as they are into hdr_q,
  // its payload length into left_q. They load in every cycle the descriptor is ready
  // (pkt_ready_o, a function of registers), not only at the accept: whether a descriptor is
  // offered, and whose it is, depends on the engines' deeper logic, and sets only pkt_v_q. The
  // take moves it to the sequencer from S_IDLE, or in S_TAIL in the cycle the frame's {pad,
  // ICRC} piece goes into the packer, and fills in the fields computed from the lengths (the
  // IPv4 total length and checksum, the UDP length, the pad count) and the port's addresses,
  // from registers only. So no path runs from the engine that offers a packet into the header
  // build: where frames follow each other the descriptor is accepted in the tail's first cycle
  // and the next frame starts as before; a lone packet starts one cycle later.
  logic                    pkt_v_q;    // a descriptor is accepted and not yet taken
  logic                    accept;
  logic                    take;
  logic                    tail_done;  // (assigned after the ICRC's registers, below)

  // the descriptor's header fields, as accepted: the computed fields and the port's zero
  nic_roce_pkg::base_hdr_t acc_base;
  logic [127:0]            acc_ext;
  logic [4:0]              acc_ext_n;
  // the headers at the take
  nic_roce_pkg::base_hdr_t base;
  logic [4:0]              ext_n;
  logic [1:0]              pad_new;
  logic [12:0]             frame_len;  // without FCS: headers + payload + pad + ICRC

  assign pkt_ready_o = !pkt_v_q && (state_q == S_IDLE || state_q == S_TAIL);
  assign accept      = pkt_valid_i && pkt_ready_o;
  // A packet is taken in S_IDLE, or in S_TAIL in the cycle the frame's {pad, ICRC} piece goes
  // into the packer (the ICRC is computed from this cycle's registers, which the take then
  // reloads): the next frame's headers start while the last beat is still to leave, so the
  // cycle the pipelined ICRC costs a frame is not a gap on the wire between frames. The tail
  // piece always fits when the ICRC is ready (less than a beat in the packer, a_tail_fits).
  assign take        = pkt_v_q && (state_q == S_IDLE || tail_done);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pkt_v_q <= 1'b0;
    end else if (accept) begin
      pkt_v_q <= 1'b1;
    end else if (take) begin
      pkt_v_q <= 1'b0;
    end
  end

  // Used only while a packet may be accepted: evaluated only then.
  always_comb begin
    acc_ext_n = '0;
    acc_base  = '0;
    acc_ext   = '0;
    if (pkt_ready_o) begin
      acc_ext_n = nic_roce_pkg::ext_bytes(pkt_i.opcode);

      acc_base                = '0;
      acc_base.eth.dst_mac    = pkt_i.dst_mac;
      acc_base.eth.ethertype  = nic_roce_pkg::ETHERTYPE_IPV4;
      acc_base.ip.version     = 4'd4;
      acc_base.ip.ihl         = 4'd5;
      acc_base.ip.flags_frag  = nic_roce_pkg::IP_FLAGS_DF;
      acc_base.ip.ttl         = nic_roce_pkg::IP_TTL;
      acc_base.ip.proto       = nic_roce_pkg::IP_PROTO_UDP;
      acc_base.ip.dst         = pkt_i.dst_ip;
      acc_base.udp.sport      = {2'b11, pkt_i.sqpn[13:0]};
      acc_base.udp.dport      = nic_roce_pkg::UDP_PORT_ROCE;
      acc_base.bth.opcode     = pkt_i.opcode;
      acc_base.bth.se         = pkt_i.se;
      acc_base.bth.pkey       = nic_roce_pkg::PKEY_DEFAULT;
      acc_base.bth.dqpn       = pkt_i.dqpn;
      acc_base.bth.ackreq     = pkt_i.ackreq;
      acc_base.bth.psn        = pkt_i.psn;

      acc_ext = '0;
      if (acc_ext_n == 5'd16) begin
        acc_ext = pkt_i.reth;
      end else if (acc_ext_n == 5'd4) begin
        acc_ext[127:96] = (pkt_i.opcode == nic_roce_pkg::OP_SEND_LAST_INV
                           || pkt_i.opcode == nic_roce_pkg::OP_SEND_ONLY_INV) ? pkt_i.ieth_rkey
                                                                               : pkt_i.aeth;
      end
    end
  end

  // The IPv4 header checksum at the take, from registers, in few levels: the header's 16-bit
  // words summed in ones' complement (mod 2^16 - 1, where 2^16 = 1) by a carry-save tree whose
  // carries wrap around from bit 15 to bit 0, then one add with its carry wrapped around (both
  // sums computed, the carry picks one). The header's constant words and the lengths' constant
  // part are one word chosen by the extension's size and the pad; the payload length rounded
  // down to 4 bytes is another. The sum is never zero (the constant words are not), so it is
  // the value nic_roce_pkg::ipv4_sum gives (a_checksum_matches_reference).
  localparam logic [15:0] IpConstSum = nic_roce_pkg::ipv4_sum({4'd4, 4'd5, 8'd0, 16'd0, 16'd0,
      nic_roce_pkg::IP_FLAGS_DF, nic_roce_pkg::IP_TTL, nic_roce_pkg::IP_PROTO_UDP, 16'd0,
      32'd0, 32'd0});
  // the IPv4 total length without the payload rounded down to 4: headers after the Ethernet
  // one, the pad's 4 when the payload is not a multiple of 4, the ICRC
  function automatic logic [15:0] ip_len_const(input logic [4:0] ext_bytes, input logic padded);
    ip_len_const = 16'(nic_roce_pkg::BASE_HDR_BYTES - nic_roce_pkg::ETH_BYTES
                       + nic_roce_pkg::ICRC_BYTES) + 16'(ext_bytes) + (padded ? 16'd4 : 16'd0);
  endfunction
  function automatic logic [15:0] ones_add(input logic [15:0] a, input logic [15:0] b);
    logic [16:0] t;
    t = 17'(a) + 17'(b);
    ones_add = t[15:0] + 16'(t[16]);
  endfunction
  // that word by {16-byte extension, 4-byte extension, padded}
  function automatic logic [8*16-1:0] csum_k_table();
    for (int i = 0; i < 8; i++) begin
      csum_k_table[16*i +: 16] = ones_add(IpConstSum, ip_len_const((i >= 4) ? 5'd16
                                                                   : (i >= 2) ? 5'd4 : 5'd0,
                                                                   i % 2 == 1));
    end
  endfunction
  localparam logic [8*16-1:0] CsumK = csum_k_table();
  // a carry-save step: three words into a sum and a carry word (the carry of bit 15 to bit 0)
  function automatic logic [31:0] csa_wrap(input logic [15:0] a, input logic [15:0] b,
                                           input logic [15:0] c);
    logic [15:0] m;
    m = (a & b) | (a & c) | (b & c);
    csa_wrap = {m[14:0], m[15], a ^ b ^ c};
  endfunction

  // the fields the take fills in (the others are the accepted ones), in base_hdr_t's order
  // (a constant vector: Yosys 0.23 takes no function of a struct type; a_take_fields checks it)
  localparam logic [8*nic_roce_pkg::BASE_HDR_BYTES-1:0] TakeFields = {
      48'd0, {48{1'b1}}, 16'd0,                                   // Ethernet: the source MAC
      16'd0, {16{1'b1}}, 16'd0, 16'd0, 16'd0, {16{1'b1}},         // IPv4: total length, checksum,
      {32{1'b1}}, 32'd0,                                          // ... the source address
      16'd0, 16'd0, {16{1'b1}}, 16'd0,                            // UDP: the length
      8'd0, 2'd0, 2'b11, 4'd0, 16'd0, 8'd0, 24'd0, 8'd0, 24'd0};  // BTH: the pad count

  logic        ext16_q;       // the accepted packet has a 16-byte extension header (RETH)
  logic        ext4_q;        // ... a 4-byte one (AETH, IETH)
  logic        padded;        // its payload is not a multiple of 4
  logic [15:0] ip_len;        // the IPv4 total length
  logic [15:0] csum_k;        // the constant words and the lengths' constant part
  logic [31:0] csum_1, csum_2, csum_3, csum_4;
  logic [16:0] csum_p0;
  logic [15:0] csum_p1;

  // Used only when a packet is taken: evaluated only then. The accepted fields are in hdr_q,
  // the payload length in left_q.
  always_comb begin
    ext_n     = '0;
    pad_new   = '0;
    frame_len = '0;
    base      = '0;
    padded    = 1'b0;
    ip_len    = '0;
    csum_k    = '0;
    csum_1    = '0;
    csum_2    = '0;
    csum_3    = '0;
    csum_4    = '0;
    csum_p0   = '0;
    csum_p1   = '0;
    if (take) begin
      base      = hdr_q[HB-1 -: 8 * nic_roce_pkg::BASE_HDR_BYTES];
      ext_n     = ext16_q ? 5'd16 : ext4_q ? 5'd4 : 5'd0;
      padded    = left_q[1:0] != 2'd0;
      pad_new   = 2'(3'd4 - {1'b0, left_q[1:0]});
      ip_len    = ip_len_const(ext_n, padded) + {3'd0, left_q[12:2], 2'd0};
      frame_len = 13'(ip_len) + 13'(nic_roce_pkg::ETH_BYTES);

      csum_k  = CsumK[16 * {ext16_q, ext4_q, padded} +: 16];
      csum_1  = csa_wrap(port_ipv4_i[31:16], port_ipv4_i[15:0], base.ip.dst[31:16]);
      csum_2  = csa_wrap(base.ip.dst[15:0], {3'd0, left_q[12:2], 2'd0}, csum_k);
      csum_3  = csa_wrap(csum_1[15:0], csum_1[31:16], csum_2[15:0]);
      csum_4  = csa_wrap(csum_3[15:0], csum_3[31:16], csum_2[31:16]);
      csum_p0 = 17'(csum_4[15:0]) + 17'(csum_4[31:16]);
      csum_p1 = csum_4[15:0] + csum_4[31:16] + 16'd1;

      base.eth.src_mac    = port_mac_i;
      base.ip.total_len   = ip_len;
      base.ip.src         = port_ipv4_i;
      base.ip.csum        = ~(csum_p0[16] ? csum_p1 : csum_p0[15:0]);
      base.udp.len        = ip_len - 16'd20;
      base.bth.padcnt     = pad_new;
    end
  end

  always_ff @(posedge clk_i) begin
    if (pkt_ready_o) begin
      ext16_q <= acc_ext_n == 5'd16;
      ext4_q  <= acc_ext_n == 5'd4;
    end
  end

  // ---- the ICRC: a data stage and the fold ------------------------------------------------------
  // The register starts at A^-14 * seed: bytes 0..13 count as zeros, which leave it at the seed.
  localparam logic [31:0]   CrcInit  = nic_roce_pkg::crc32_adv(nic_roce_pkg::ICRC_SEED,
                                                               -nic_roce_pkg::ETH_BYTES);
  localparam logic [1023:0] FoldRows = nic_roce_pkg::crc32_adv_rows(W8);
  localparam logic [1023:0] Fold2Rows = nic_roce_pkg::crc32_adv_rows(2 * W8);   // two folds
  // At the tail the register is W8 bytes on per beat folded. Every frame has 54 + 4k bytes before
  // its ICRC, so the last beat of them holds n = W8 - z bytes with z = 2 mod 4, z = 4 * zq + 2:
  // the register is moved back z bytes (A^-2 or A^-6 by zq[0], then A^-(4 * 2^s) for each further
  // bit of zq). When the pad runs 2 bytes into a beat of its own, that beat (zeros) is not
  // folded: the register is moved on 2 bytes instead (A^2).
  function automatic logic [1024*(ZqBits+2)-1:0] fix_rows(input int back2);
    fix_rows = '0;
    fix_rows[1023:0] = nic_roce_pkg::crc32_adv_rows(-back2);
    for (int s = 0; s < ZqBits; s++) begin
      fix_rows[1024*(s+1) +: 1024] = nic_roce_pkg::crc32_adv_rows((s == 0) ? -back2 - 4
                                                                           : -4 * (1 << s));
    end
    fix_rows[1024*(ZqBits+1) +: 1024] = nic_roce_pkg::crc32_adv_rows(back2);
  endfunction
  localparam logic [1024*(ZqBits+2)-1:0] FixRows = fix_rows(2);

  logic [31:0]          crc_q, crc_d;      // the register over the beats folded so far
  logic [12:0]          cleft_q, cleft_d;  // bytes of the frame before its ICRC not yet taken
  logic                 cbusy_q, cbusy_d;  // cleft_q is not zero (a register, not a compare)
  logic [ZqBits-1:0]    zq_q, zq_d;        // (z - 2) / 4: z the empty lanes of the last beat
  logic                 cross_q, cross_d;  // the pad ran into a beat of its own
  logic [2:0]           obeat_q, obeat_d;  // the frame's beat at the packer's output (saturating)
  logic                 take_full;         // a whole beat into the data stage
  logic                 take_tail;         // the last beat of data folded where it is
  logic [DataWidth-1:0] crc_beat;          // the beat as the ICRC reads it
  logic [31:0]          beat_crc;          // its contribution
  logic [31:0]          d_q;               // the data stage
  logic                 d_v_q;
  logic [31:0]          crc_pre;           // crc_q with d_q folded in
  logic                 icrc_rdy;          // every beat folded: crc_q is the frame's
  logic [31:0]          crc_fix;           // crc_q moved back z bytes (or on 2)
  logic [31:0]          icrc;
  logic [2*DataWidth-1:0] icrc_place;      // the ICRC at its lanes of the packer

  // The frame's beats before its ICRC leave the packer whole (not end_q) and go through the data
  // stage. Its last beat of data is never whole (n is 2 mod 4): once all of it is in (S_TAIL,
  // less than a beat in the packer) it is folded where it is, in the same cycle as its
  // contribution (with the data stage's beat before it, if that is not folded yet), so the ICRC
  // goes in one cycle later.
  assign take_full = out_fire && !end_q;
  assign take_tail = state_q == S_TAIL && cbusy_q && cnt_q < CB'(W8);
  assign icrc_rdy  = !cbusy_q && !d_v_q;

  assign tail_done   = state_q == S_TAIL && icrc_rdy;

  // Evaluated only while a beat may be offered or the tail folded: a frame is in the sequencer
  // or its last beat still in the packer (a condition of three register bits, on the way of
  // every bit of the beat: not out_valid's or take_tail's, which are deeper).
  always_comb begin
    crc_beat = '0;
    if (state_q != S_IDLE || end_q) begin
      crc_beat = acc_q[DataWidth-1:0];
      for (int b = 0; b < MaskBeats; b++) begin
        if (obeat_q == 3'(b)) begin
          for (int j = 0; j < W8; j++) begin
            if (b * W8 + j < nic_roce_pkg::ETH_BYTES) begin
              crc_beat[8*j +: 8] = 8'd0;
            end else begin
              crc_beat[8*j +: 8] = nic_roce_pkg::icrc_mask(acc_q[8*j +: 8], 13'(b * W8 + j));
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

  assign crc_pre = d_v_q ? nic_roce_pkg::crc32_mul(FoldRows, crc_q) ^ d_q : crc_q;

  // The correction, then the ICRC (a poisoned frame: inverted) placed after the pad: it starts
  // at byte cnt_q + pad_q of the packer, which is W8 - z, or W8 + 2 when the pad crossed (the
  // packer sends nothing in that cycle: less than a beat in it and not end_q).
  always_comb begin
    crc_fix = nic_roce_pkg::crc32_mul(zq_q[0] ? FixRows[1024 +: 1024] : FixRows[1023:0], crc_q);
    for (int s = 1; s < ZqBits; s++) begin
      if (zq_q[s]) begin
        crc_fix = nic_roce_pkg::crc32_mul(FixRows[1024*(s+1) +: 1024], crc_fix);
      end
    end
    if (cross_q) begin
      crc_fix = nic_roce_pkg::crc32_mul(FixRows[1024*(ZqBits+1) +: 1024], crc_q);
    end
    icrc = poison_q ? crc_fix : ~crc_fix;
    icrc_place = '0;
    for (int m = 0; m <= W8 / 4; m++) begin
      if ((m == W8 / 4) ? cross_q : (!cross_q && 32'(zq_q) == W8 / 4 - 1 - m)) begin
        icrc_place[8*(4*m + 2) +: 32] = icrc;
      end
    end
  end

  always_comb begin
    crc_d   = crc_pre;
    cleft_d = cleft_q;
    cbusy_d = cbusy_q;
    zq_d    = zq_q;
    cross_d = cross_q;
    obeat_d = obeat_q;
    if (take_full) begin
      cleft_d = cleft_q - 13'(W8);
    end
    if (take_tail) begin
      // A^W8 * crc_pre ^ beat, with crc_pre's fold of d_q distributed (A^W8 is linear): the
      // two products side by side instead of one after the other
      crc_d   = (d_v_q ? nic_roce_pkg::crc32_mul(Fold2Rows, crc_q)
                         ^ nic_roce_pkg::crc32_mul(FoldRows, d_q)
                       : nic_roce_pkg::crc32_mul(FoldRows, crc_q)) ^ beat_crc;
      cleft_d = '0;
      cbusy_d = 1'b0;
      cross_d = cleft_q > 13'(W8);
    end
    if (out_fire) begin
      obeat_d = out_last ? '0 : (obeat_q == 3'd7) ? obeat_q : obeat_q + 3'd1;
    end
    if (take) begin
      crc_d   = CrcInit;
      cleft_d = frame_len - 13'(nic_roce_pkg::ICRC_BYTES);
      cbusy_d = 1'b1;
      cross_d = 1'b0;
      // z = W8 - n for the n bytes of the last beat before the ICRC: -(frame_len - 4) mod W8
      zq_d    = ZqBits'((LW'(13'(nic_roce_pkg::ICRC_BYTES) - frame_len)) >> 2);
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      crc_q   <= '0;
      cleft_q <= '0;
      cbusy_q <= 1'b0;
      zq_q    <= '0;
      cross_q <= 1'b0;
      obeat_q <= '0;
      d_v_q   <= 1'b0;
    end else begin
      crc_q   <= crc_d;
      cleft_q <= cleft_d;
      cbusy_q <= cbusy_d;
      zq_q    <= zq_d;
      cross_q <= cross_d;
      obeat_q <= obeat_d;
      d_v_q   <= take_full;
    end
  end

  always_ff @(posedge clk_i) begin
    if (take_full) begin
      d_q <= beat_crc;
    end
  end

  // ---- the piece offered to the packer ----------------------------------------------------------
  always_comb begin
    in_valid = 1'b0;
    in_data  = '0;
    in_n     = '0;
    in_end   = 1'b0;
    unique case (state_q)
      S_HDR: begin
        // no mask: hdr_q is zero after the headers (the extension's unused bytes, the spare
        // bytes, the zeros shifted in)
        in_valid = 1'b1;
        for (int j = 0; j < W8; j++) begin
          in_data[8*j +: 8] = hdr_q[HB-1-8*j -: 8];
        end
        in_n = (32'(hlen_q) - 32'(hpos_q) >= W8) ? NB'(W8) : NB'(hlen_q - hpos_q);
      end
      S_PAY: begin
        in_valid = pl_valid_i;
        in_data  = keep_bytes(pl_data_i, pl_nbytes_i);
        in_n     = pl_nbytes_i;
      end
      S_TAIL: begin
        // the pad bytes (zeros), then the ICRC, once every beat before it is folded; its bytes
        // go into the packer directly (icrc_place), not through the packer's shifter
        in_valid = icrc_rdy;
        in_end   = 1'b1;
        in_n     = NB'(pad_q) + NB'(nic_roce_pkg::ICRC_BYTES);
      end
      default: begin
      end
    endcase
  end

  assign pl_ready_o  = state_q == S_PAY && in_ready;

  // The piece lands cnt_after bytes up: with a piece in, cnt_after is cnt_q (<= W8) without a
  // beat out, cnt_q - W8 with one, 0 with the frame's last one. The shift by the low bits of
  // cnt_q runs from registers; whether it goes one beat further (cnt_q is W8, or 2 * W8 with a
  // beat out) and the last beat's case, which depend on the port's ready, are picked after it.
  assign in_up = out_fire ? cnt_q[LW+1] : cnt_q[LW];
  always_comb begin
    in_placed = (2*DataWidth)'(in_data) << (8 * cnt_q[LW-1:0]);
    if (in_up) begin
      in_placed = in_placed << DataWidth;
    end
    if (out_fire && out_last) begin
      in_placed = (2*DataWidth)'(in_data);
    end
  end

  always_comb begin
    state_d = state_q;
    hpos_d  = hpos_q;
    hlen_d  = hlen_q;
    left_d  = left_q;
    pad_d   = pad_q;
    poison_d = poison_q;
    unique case (state_q)
      S_IDLE: begin
      end
      S_HDR: begin
        if (in_fire) begin
          hpos_d = hpos_q + 7'(W8);
          if (32'(hpos_q) + W8 >= 32'(hlen_q)) begin
            state_d = (left_q != '0) ? S_PAY : S_TAIL;
          end
        end
      end
      S_PAY: begin
        if (in_fire) begin
          poison_d = poison_q || pl_poison_i;
          left_d = left_q - 13'(in_n);
          if (left_q <= 13'(in_n)) begin
            state_d = S_TAIL;
          end
        end
      end
      S_TAIL: begin
        if (in_fire) begin
          state_d = S_IDLE;
        end
      end
      default: begin
        state_d = S_IDLE;
      end
    endcase
    if (pkt_ready_o) begin
      left_d  = pkt_i.pay_len;
    end
    if (take) begin
      poison_d = 1'b0;
      state_d = S_HDR;
      hpos_d  = '0;
      hlen_d  = 7'(nic_roce_pkg::BASE_HDR_BYTES) + 7'(ext_n);
      pad_d   = pad_new;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= S_IDLE;
      acc_q   <= '0;
      cnt_q   <= '0;
      end_q   <= 1'b0;
      hpos_q  <= '0;
      hlen_q  <= '0;
      left_q  <= '0;
      pad_q   <= '0;
      poison_q <= 1'b0;
    end else begin
      state_q <= state_d;
      // the packer's bytes change only with a beat out or a piece in (wide: loaded only then)
      if (out_fire || in_fire) begin
        acc_q <= (out_fire ? (out_last ? '0 : (acc_q >> DataWidth)) : acc_q)
               | (in_fire ? in_placed : '0)
               | ((in_fire && state_q == S_TAIL) ? icrc_place : '0);
      end
      cnt_q   <= cnt_d;
      end_q   <= end_d;
      hpos_q  <= hpos_d;
      hlen_q  <= hlen_d;
      left_q  <= left_d;
      pad_q   <= pad_d;
      poison_q <= poison_d;
    end
  end

  // The header shift register is loaded before any use: it needs no reset. Loaded (wide) only
  // while a packet may be accepted (the ready's cycles: S_IDLE, the frame's tail), when one is
  // taken (the computed fields) or a header chunk goes into the packer.
  always_ff @(posedge clk_i) begin
    if (pkt_ready_o) begin
      hdr_q <= {acc_base, acc_ext, 16'd0};
    end else if (take) begin
      hdr_q[HB-1 -: 8 * nic_roce_pkg::BASE_HDR_BYTES] <=
          (hdr_q[HB-1 -: 8 * nic_roce_pkg::BASE_HDR_BYTES] & ~TakeFields) | (base & TakeFields);
    end else if (state_q == S_HDR && in_fire) begin
      hdr_q <= hdr_q << DataWidth;
    end
  end

`ifndef SYNTHESIS
  // The reference: the byte-serial ICRC as it was computed before the pipeline (nic_crc32_lanes
  // over each piece as it enters the packer, the pad at the tail); a_icrc_matches_reference
  // checks that every frame's tail carries the same ICRC.
  logic [31:0]          ref_crc_q;
  logic [DataWidth-1:0] ref_data;
  logic [W8-1:0]        ref_en;
  logic [31:0]          ref_next;

  nic_crc32_lanes #(
    .Bytes(W8)
  ) u_crc_ref (
    .crc_i (ref_crc_q),
    .data_i(ref_data),
    .en_i  (ref_en),
    .crc_o (ref_next)
  );

  // Evaluated only when a piece goes in.
  always_comb begin
    ref_data = '0;
    ref_en   = '0;
    if (in_fire) begin
      if (state_q == S_HDR) begin
        for (int j = 0; j < W8; j++) begin
          ref_data[8*j +: 8] = nic_roce_pkg::icrc_mask(hdr_q[HB-1-8*j -: 8], 13'(hpos_q) + 13'(j));
          ref_en[j]          = 32'(hpos_q) + j >= nic_roce_pkg::ETH_BYTES
                               && 32'(hpos_q) + j < 32'(hlen_q);
        end
      end else if (state_q == S_PAY) begin
        ref_data = pl_data_i;
        ref_en   = lanes_below(CB'(pl_nbytes_i));
      end else if (state_q == S_TAIL) begin
        ref_en = lanes_below(CB'(pad_q));   // the pad: zeros
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (take) begin
      ref_crc_q <= nic_roce_pkg::ICRC_SEED;
    end else if (in_fire) begin
      ref_crc_q <= ref_next;
    end
  end

  nic_roce_pkg::base_hdr_t take_fields_ref;
  always_comb begin
    take_fields_ref               = '0;
    take_fields_ref.eth.src_mac   = '1;
    take_fields_ref.ip.total_len  = '1;
    take_fields_ref.ip.src        = '1;
    take_fields_ref.ip.csum       = '1;
    take_fields_ref.udp.len       = '1;
    take_fields_ref.bth.padcnt    = '1;
  end

  // Immediate assertions in a clocked block (cheaper in simulation than concurrent ones; see
  // nic_wqe_fetch): the values before the edge, a consequent only when its antecedent holds.
  logic                 tx_held_q;
  logic [DataWidth-1:0] tx_data_held_q;
  logic [W8-1:0]        tx_keep_held_q;
  logic                 tx_last_held_q;
  always_ff @(posedge clk_i) begin
    tx_held_q <= !rst_i && tx_tvalid_o && !tx_tready_i;
    if (tx_tvalid_o && !tx_tready_i) begin
      tx_data_held_q <= tx_tdata_o;
      tx_keep_held_q <= tx_tkeep_o;
      tx_last_held_q <= tx_tlast_o;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (state_q == S_PAY && pl_valid_i) begin
        a_chunk_length: assert (pl_nbytes_i != '0 && 32'(pl_nbytes_i) <= W8
                                && 13'(pl_nbytes_i) <= left_q);
      end
      a_packer_in_bounds: assert (32'(cnt_q) <= 2 * W8);
      if (out_valid || take_tail) begin
        a_beat_evaluated: assert (state_q != S_IDLE || end_q);
      end
      if (in_fire) begin
        a_piece_zero_from_its_length: assert (keep_bytes(in_data, in_n) == in_data);
        a_piece_placed: assert (in_placed == (2*DataWidth)'(in_data) << (8 * cnt_after)
                                && cnt_after <= CB'(W8));
      end
      a_cbusy_is_cleft_nonzero: assert (cbusy_q == (cleft_q != '0));
      a_take_fields: assert (TakeFields == take_fields_ref);
      if (take_full) begin
        a_whole_beat_before_the_last: assert (cleft_q > 13'(W8));
      end
      if (take_tail) begin
        a_tail_is_the_last_beat: assert (cleft_q < 13'(2 * W8)
                                         && (cleft_q > 13'(W8)) == (32'(cnt_q) + 32'(pad_q) > W8));
      end
      if (tail_done) begin
        a_tail_fits: assert (in_fire);
      end
      if (state_q == S_TAIL && in_fire) begin
        a_icrc_lanes: assert (!out_fire && 32'(cnt_q) + 32'(pad_q)
                              == (cross_q ? W8 + 2 : W8 - 4 * 32'(zq_q) - 2));
      end
      if (take) begin
        a_checksum_matches_reference: assert (base.ip.csum == ~nic_roce_pkg::ipv4_sum(
                                                {base.ip[159:80], 16'd0, base.ip[63:0]}));
        a_frame_length_2_mod_4: assert (frame_len[1:0] == 2'd2);
        a_icrc_done_before_next_frame: assert (cleft_q == '0 && !d_v_q);
      end
      if (state_q == S_TAIL && in_fire) begin
        a_icrc_matches_reference: assert (icrc == (poison_q ? ref_next : ~ref_next));
      end
      if (tx_held_q) begin
        a_tx_stable: assert (tx_tvalid_o && tx_tdata_o == tx_data_held_q
                             && tx_tkeep_o == tx_keep_held_q && tx_tlast_o == tx_last_held_q);
      end
    end
  end
`endif

endmodule
