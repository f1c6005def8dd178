`default_nettype none
// nic_roce_pkg: the RoCEv2 wire formats (docs/transport.md), shared by the framing modules
// (nic_roce_tx, nic_roce_rx) and the transport engines.
//
// Network headers are big-endian, unlike the little-endian host-memory formats of nic_pkg (which
// formats/nic.toml generates). So these structs list their fields in wire order: the packed
// vector's most significant byte is the first byte on the wire, and every multi-byte field is in
// network order by construction. A header of N bytes goes on the wire as
// hdr[8*N-1 -: 8], hdr[8*N-9 -: 8], ... (see the framing modules).
package nic_roce_pkg;

  // ---- constants ----------------------------------------------------------------------------
  localparam logic [15:0] ETHERTYPE_IPV4 = 16'h0800;
  localparam logic [7:0]  IP_PROTO_UDP   = 8'd17;
  localparam logic [15:0] UDP_PORT_ROCE  = 16'd4791;
  localparam logic [15:0] PKEY_DEFAULT   = 16'hFFFF;
  localparam logic [7:0]  IP_TTL         = 8'd64;
  localparam logic [15:0] IP_FLAGS_DF    = 16'h4000;   // don't fragment, offset 0

  localparam int BASE_HDR_BYTES = 54;   // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12
  localparam int MAX_HDR_BYTES  = 70;   // + RETH 16
  localparam int HDR_BUF_BYTES  = 72;   // header buffers: MAX_HDR_BYTES rounded up to 8
  localparam int ICRC_BYTES     = 4;
  localparam int ETH_BYTES      = 14;   // the ICRC covers everything after the Ethernet header
  localparam int MAX_PAYLOAD    = 4096; // the largest path MTU
  localparam logic [31:0] ICRC_SEED = 32'hDEBB20E3;   // CRC register after eight 0xFF bytes

  // BTH opcodes: InfiniBand reliable connection
  localparam logic [7:0] OP_SEND_FIRST       = 8'h00;
  localparam logic [7:0] OP_SEND_MIDDLE      = 8'h01;
  localparam logic [7:0] OP_SEND_LAST        = 8'h02;
  localparam logic [7:0] OP_SEND_ONLY        = 8'h04;
  localparam logic [7:0] OP_WRITE_FIRST      = 8'h06;
  localparam logic [7:0] OP_WRITE_MIDDLE     = 8'h07;
  localparam logic [7:0] OP_WRITE_LAST       = 8'h08;
  localparam logic [7:0] OP_WRITE_ONLY       = 8'h0A;
  localparam logic [7:0] OP_READ_REQUEST     = 8'h0C;
  localparam logic [7:0] OP_READ_RESP_FIRST  = 8'h0D;
  localparam logic [7:0] OP_READ_RESP_MIDDLE = 8'h0E;
  localparam logic [7:0] OP_READ_RESP_LAST   = 8'h0F;
  localparam logic [7:0] OP_READ_RESP_ONLY   = 8'h10;
  localparam logic [7:0] OP_ACK              = 8'h11;
  localparam logic [7:0] OP_SEND_LAST_INV    = 8'h16;
  localparam logic [7:0] OP_SEND_ONLY_INV    = 8'h17;

  // AETH syndromes: bits [7:5] = 000 ACK, 001 RNR NAK, 011 NAK (then the NAK code in [4:0])
  localparam logic [7:0] AETH_ACK                 = 8'h1F;  // ACK, credits "invalid" (no EE credit)
  // RNR NAK with timer code 1 (0.01 ms, the IBA table; code 0 would mean 655 ms): the responder
  // asks for a retry after 10 us; nic_requester waits whatever code a NAK carries
  localparam logic [7:0] AETH_RNR_NAK             = 8'h21;
  localparam logic [7:0] AETH_NAK_PSN_SEQ_ERR     = 8'h60;
  localparam logic [7:0] AETH_NAK_INVALID_REQUEST = 8'h61;
  localparam logic [7:0] AETH_NAK_REMOTE_ACCESS   = 8'h62;
  localparam logic [7:0] AETH_NAK_REMOTE_OP       = 8'h63;

  // Byte positions (from the start of the frame) of the fields the ICRC treats as all-ones.
  localparam int POS_IP_TOS    = 15;
  localparam int POS_IP_TTL    = 22;
  localparam int POS_IP_CSUM   = 24;   // and 25
  localparam int POS_UDP_CSUM  = 40;   // and 41
  localparam int POS_BTH_RESV8 = 46;

  // ---- headers, fields in wire order ----------------------------------------------------------
  typedef struct packed {
    logic [47:0] dst_mac;
    logic [47:0] src_mac;
    logic [15:0] ethertype;
  } eth_t;                     // 14 bytes

  typedef struct packed {
    logic [3:0]  version;
    logic [3:0]  ihl;
    logic [7:0]  tos;
    logic [15:0] total_len;
    logic [15:0] id;
    logic [15:0] flags_frag;
    logic [7:0]  ttl;
    logic [7:0]  proto;
    logic [15:0] csum;
    logic [31:0] src;
    logic [31:0] dst;
  } ipv4_t;                    // 20 bytes

  typedef struct packed {
    logic [15:0] sport;
    logic [15:0] dport;
    logic [15:0] len;
    logic [15:0] csum;
  } udp_t;                     // 8 bytes

  typedef struct packed {
    logic [7:0]  opcode;
    logic        se;           // solicited event
    logic        migreq;
    logic [1:0]  padcnt;       // zero bytes after the payload, to a multiple of 4
    logic [3:0]  tver;
    logic [15:0] pkey;
    logic [7:0]  resv8a;
    logic [23:0] dqpn;
    logic        ackreq;
    logic [6:0]  resv7;
    logic [23:0] psn;
  } bth_t;                     // 12 bytes

  typedef struct packed {
    eth_t  eth;
    ipv4_t ip;
    udp_t  udp;
    bth_t  bth;
  } base_hdr_t;                // 54 bytes

  typedef struct packed {
    logic [63:0] va;
    logic [31:0] rkey;
    logic [31:0] dma_len;
  } reth_t;                    // 16 bytes

  typedef struct packed {
    logic [7:0]  syndrome;
    logic [23:0] msn;
  } aeth_t;                    // 4 bytes

  // ---- what the transport engines exchange with the framing modules ---------------------------
  // One packet to send: nic_roce_tx builds the headers from it (the source MAC / IPv4 are the
  // port's; lengths, checksum, pad count and ICRC are computed) and appends pay_len payload bytes.
  typedef struct packed {
    logic [47:0] dst_mac;
    logic [31:0] dst_ip;
    logic [7:0]  opcode;
    logic        se;
    logic        ackreq;
    logic [23:0] dqpn;
    logic [23:0] sqpn;         // the sending QP: only for the UDP source port (flow entropy)
    logic [23:0] psn;
    reth_t       reth;         // used when ext_bytes(opcode) == 16
    aeth_t       aeth;         // used by ACK and READ_RESP_FIRST / LAST / ONLY
    logic [31:0] ieth_rkey;    // used by SEND_LAST_INV / SEND_ONLY_INV
    logic [12:0] pay_len;      // 0..4096
  } tx_pkt_t;

  // One packet received and checked by nic_roce_rx; its payload follows as a dense stream.
  typedef struct packed {
    logic [47:0] src_mac;
    logic [31:0] src_ip;
    logic [7:0]  opcode;
    logic        se;
    logic        ackreq;
    logic [23:0] dqpn;
    logic [23:0] psn;
    reth_t       reth;
    aeth_t       aeth;
    logic [31:0] ieth_rkey;
    logic [12:0] pay_len;
  } rx_pkt_t;

  // A Read's context, kept by nic_requester for nic_responder, which places its responses: the
  // PSN of its first response, its length and its sink SGEs (nic_pkg::sge_t, the WQE's).
  typedef struct packed {
    logic [23:0]  psn;
    logic [31:0]  length;
    logic [1:0]   nsge;
    logic [127:0] sge0;
    logic [127:0] sge1;
  } read_ctx_t;
  // its width, for RAM parameters (Yosys 0.23 rejects $bits of a package type)
  localparam int READ_CTX_BITS = 24 + 32 + 2 + 128 + 128;

  // ---- functions --------------------------------------------------------------------------------
  // Bytes of extension headers after the BTH: RETH 16, AETH or IETH 4.
  function automatic logic [4:0] ext_bytes(input logic [7:0] op);
    ext_bytes = 5'd0;
    if (op == nic_roce_pkg::OP_WRITE_FIRST || op == nic_roce_pkg::OP_WRITE_ONLY
        || op == nic_roce_pkg::OP_READ_REQUEST) begin
      ext_bytes = 5'd16;
    end else if (op == nic_roce_pkg::OP_ACK || op == nic_roce_pkg::OP_READ_RESP_FIRST
                 || op == nic_roce_pkg::OP_READ_RESP_LAST || op == nic_roce_pkg::OP_READ_RESP_ONLY
                 || op == nic_roce_pkg::OP_SEND_LAST_INV || op == nic_roce_pkg::OP_SEND_ONLY_INV) begin
      ext_bytes = 5'd4;
    end
  endfunction

  // The opcodes this transport sends and accepts (RC, without immediate data or atomics).
  function automatic logic opcode_known(input logic [7:0] op);
    opcode_known = (op <= nic_roce_pkg::OP_SEND_LAST) || op == nic_roce_pkg::OP_SEND_ONLY
                   || (op >= nic_roce_pkg::OP_WRITE_FIRST && op <= nic_roce_pkg::OP_WRITE_LAST)
                   || op == nic_roce_pkg::OP_WRITE_ONLY
                   || (op >= nic_roce_pkg::OP_READ_REQUEST && op <= nic_roce_pkg::OP_ACK)
                   || op == nic_roce_pkg::OP_SEND_LAST_INV || op == nic_roce_pkg::OP_SEND_ONLY_INV;
  endfunction

  // The one's-complement sum of the ten 16-bit words of an IPv4 header, folded: 16'hFFFF for a
  // header whose checksum is right; with csum = 0, its complement is the checksum to send.
  function automatic logic [15:0] ipv4_sum(input logic [159:0] h);
    logic [19:0] s;
    s = 20'd0;
    for (int i = 0; i < 10; i++) begin
      s = s + 20'(h[16*i +: 16]);
    end
    s = 20'(s[15:0]) + 20'(s[19:16]);
    s = 20'(s[15:0]) + 20'(s[19:16]);
    ipv4_sum = s[15:0];
  endfunction

  // 24-bit PSN arithmetic: PSNs wrap, so a <= b means b is at most half the PSN space (2^23)
  // after a. Sums and differences of PSNs are taken in 24 bits (they wrap by themselves).
  function automatic logic psn_le(input logic [23:0] a, input logic [23:0] b);
    psn_le = ((b - a) & 24'h800000) == 24'd0;
  endfunction

  // The payload of the next packet of a message with left bytes still to send: the path MTU
  // (2^log_mtu, log_mtu 8..12), or what is left.
  function automatic logic [12:0] pkt_len(input logic [31:0] left, input logic [3:0] log_mtu);
    pkt_len = (left <= (32'd1 << log_mtu)) ? 13'(left) : 13'(32'd1 << log_mtu);
  endfunction

  // The PSNs a Read of len bytes takes: one per response, ceil(len / MTU), at least one (a
  // zero-length Read has one response). Computed as the whole MTUs in len plus one for a part
  // of one more: the shift and the remainder's OR run side by side on len and only a 24-bit
  // increment follows them, where ceil as (len + MTU - 1) >> log_mtu chained a 33-bit adder,
  // the shifter and a 33-bit zero test (the same function for every len and log_mtu: proven
  // with Yosys `sat -prove`, docs/timing-area.md).
  function automatic logic [23:0] read_npkts(input logic [31:0] len, input logic [3:0] log_mtu);
    logic [23:0] whole;   // the whole MTUs in len (modulo 2^24, as the count is)
    logic        part;    // len leaves a part of one more
    whole      = 24'(len >> log_mtu);
    part       = (len & ~(32'hffffffff << log_mtu)) != 32'd0;
    read_npkts = (len == 32'd0) ? 24'd1 : whole + 24'(part);
  endfunction

  // One byte into a reflected CRC-32 register (the Ethernet polynomial, as crc32_le).
  // Eight bit steps of the reflected polynomial 0xEDB88320 at once: the step is linear, so
  // the result is c >> 8 plus (XOR) one constant per set bit of c[7:0] (the eight-step image
  // of that bit alone). Same function as the bit loop, without its serial dependency.
  function automatic logic [31:0] crc32_byte(input logic [31:0] crc, input logic [7:0] b);
    logic [31:0] c;
    c = crc ^ {24'd0, b};
    crc32_byte = (c >> 8)
      ^ ({32{c[0]}} & 32'h77073096) ^ ({32{c[1]}} & 32'hEE0E612C)
      ^ ({32{c[2]}} & 32'h076DC419) ^ ({32{c[3]}} & 32'h0EDB8832)
      ^ ({32{c[4]}} & 32'h1DB71064) ^ ({32{c[5]}} & 32'h3B6E20C8)
      ^ ({32{c[6]}} & 32'h76DC4190) ^ ({32{c[7]}} & 32'hEDB88320);
  endfunction

  // ---- the CRC's linear algebra (the pipelined ICRC of nic_roce_tx / nic_roce_rx) -------------
  // The register after a block of k bytes is A^k * crc ^ D(bytes), linear over GF(2), where A is
  // one zero byte into the register (crc32_byte(c, 8'd0)). These functions give the constant
  // matrices, evaluated at elaboration; crc32_mul applies one (a tree of XORs per output bit).
  // A is invertible: the reflected polynomial's top bit is set, so a bit step c -> (c >> 1) ^
  // (c[0] ? poly : 0) shows c[0] in its result's bit 31, and can be undone.

  // n zero bytes into the register (A^n), or for n < 0 the inverse of -n of them (A^n too).
  function automatic logic [31:0] crc32_adv(input logic [31:0] crc, input int n);
    logic [31:0] c;
    logic        b;
    c = crc;
    for (int i = 0; i < n; i++) begin
      c = nic_roce_pkg::crc32_byte(c, 8'd0);
    end
    for (int i = 0; i < -8 * n; i++) begin
      b = c[31];
      c = {c[30:0] ^ (b ? 31'h6DB88320 : 31'd0), b};   // undoes (c >> 1) ^ (c[0] ? 0xEDB88320 : 0)
    end
    crc32_adv = c;
  endfunction

  // A^n as 32 rows of 32 bits: row i (bits [32*i +: 32]) says which register bits are XORed
  // into bit i of crc32_adv(crc, n).
  function automatic logic [1023:0] crc32_adv_rows(input int n);
    logic [31:0] col;
    crc32_adv_rows = '0;
    for (int j = 0; j < 32; j++) begin
      col = nic_roce_pkg::crc32_adv(32'd1 << j, n);
      for (int i = 0; i < 32; i++) begin
        crc32_adv_rows[32*i + j] = col[i];
      end
    end
  endfunction

  // A matrix of crc32_adv_rows applied to v.
  function automatic logic [31:0] crc32_mul(input logic [1023:0] rows, input logic [31:0] v);
    for (int i = 0; i < 32; i++) begin
      crc32_mul[i] = ^(rows[32*i +: 32] & v);
    end
  endfunction

  // The value the ICRC uses for the byte at frame position pos (< 72): all-ones over the
  // variant fields (IPv4 TOS, TTL and checksum, UDP checksum, the BTH reserved byte).
  function automatic logic [7:0] icrc_mask(input logic [7:0] b, input logic [12:0] pos);
    icrc_mask = b;
    if (pos == 13'(nic_roce_pkg::POS_IP_TOS) || pos == 13'(nic_roce_pkg::POS_IP_TTL)
        || pos == 13'(nic_roce_pkg::POS_IP_CSUM) || pos == 13'(nic_roce_pkg::POS_IP_CSUM + 1)
        || pos == 13'(nic_roce_pkg::POS_UDP_CSUM) || pos == 13'(nic_roce_pkg::POS_UDP_CSUM + 1)
        || pos == 13'(nic_roce_pkg::POS_BTH_RESV8)) begin
      icrc_mask = 8'hFF;
    end
  endfunction

endpackage
