`default_nettype none
// nic_port_counters: the port's event counters (BAR0 PORT_COUNTERS, formats/nic.toml; read by
// libndk's ndk_query_port_counters).
//
// One 64-bit counter per event input, counted since reset, wrapping (at one event per cycle a
// 64-bit counter needs millennia to wrap). Every event input is a one-cycle pulse: the counter
// of an input high in a cycle is one more after that cycle's edge. The counter's index (its
// place in nic_pkg::PORT_COUNTER_*, the order of struct ndk_port_counters) fixes its address:
// BAR0 PORT_COUNTERS + 8 * index holds its low word, + 4 its high word.
//
// Read port (nic_csr): rd_word_i is the word offset from PORT_COUNTERS (bit 0: the high word);
// rd_data_o answers it in the same cycle (combinational). A 64-bit value is read as two 32-bit
// reads, so the high word is latched: rd_i high (a read taken) at a low word copies that
// counter's high half into hi_q, and every high-word read returns hi_q. Reading low then high
// gives one consistent 64-bit value even while the counter runs (a carry between the two reads
// is not torn). A word past the last counter reads 0.
module nic_port_counters (
  input  logic        clk_i,
  input  logic        rst_i,
  // events, one-cycle pulses (the order of nic_pkg::PORT_COUNTER_*)
  input  logic        tx_packet_i,              // a frame's last beat left the TX port
  input  logic        rx_packet_i,              // a frame's last beat entered the RX port
  input  logic        rx_dropped_i,             // the receiver dropped a frame (RX_DROPS)
  input  logic        retransmitted_i,          // the requester sent a packet again
  input  logic        local_ack_timeout_i,      // a requester ACK timer expired
  input  logic        seq_nak_sent_i,           // the responder sent a PSN sequence error NAK
  input  logic        seq_nak_received_i,       // the requester received one
  input  logic        implied_nak_i,            // the requester found a Read skipped
  input  logic        out_of_sequence_i,        // the responder got a packet ahead of its PSN
  input  logic        duplicate_request_i,      // the responder got a packet behind its PSN
  input  logic        rnr_nak_sent_i,           // the responder sent an RNR NAK
  input  logic        rnr_nak_received_i,       // the requester received one
  // read port (nic_csr)
  input  logic        rd_i,
  input  logic [4:0]  rd_word_i,
  output logic [31:0] rd_data_o
);

  localparam int N = 32'(nic_pkg::PORT_COUNTER_COUNT);

  if (N != 12 || 2 * N > 32) begin : gen_bad_count
    $fatal(1, "nic_port_counters: the event inputs are the 12 of nic_pkg::PORT_COUNTER_*");
  end

  logic [N-1:0] ev;
  always_comb begin
    ev = '0;
    ev[4'(nic_pkg::PORT_COUNTER_TX_PACKETS)]             = tx_packet_i;
    ev[4'(nic_pkg::PORT_COUNTER_RX_PACKETS)]             = rx_packet_i;
    ev[4'(nic_pkg::PORT_COUNTER_RX_DROPPED)]             = rx_dropped_i;
    ev[4'(nic_pkg::PORT_COUNTER_RETRANSMITTED_PACKETS)]  = retransmitted_i;
    ev[4'(nic_pkg::PORT_COUNTER_LOCAL_ACK_TIMEOUTS)]     = local_ack_timeout_i;
    ev[4'(nic_pkg::PORT_COUNTER_SEQ_NAKS_SENT)]          = seq_nak_sent_i;
    ev[4'(nic_pkg::PORT_COUNTER_SEQ_NAKS_RECEIVED)]      = seq_nak_received_i;
    ev[4'(nic_pkg::PORT_COUNTER_IMPLIED_NAKS)]           = implied_nak_i;
    ev[4'(nic_pkg::PORT_COUNTER_OUT_OF_SEQUENCE)]        = out_of_sequence_i;
    ev[4'(nic_pkg::PORT_COUNTER_DUPLICATE_REQUESTS)]     = duplicate_request_i;
    ev[4'(nic_pkg::PORT_COUNTER_RNR_NAKS_SENT)]          = rnr_nak_sent_i;
    ev[4'(nic_pkg::PORT_COUNTER_RNR_NAKS_RECEIVED)]      = rnr_nak_received_i;
  end

  // the counters, one 64-bit word each in a flat vector (no multidimensional packed arrays)
  logic [64*N-1:0] cnt_q, cnt_d;
  logic [31:0]     hi_q, hi_d;
  logic [3:0]      rd_idx;
  logic [63:0]     rd_cnt;

  assign rd_idx = rd_word_i[4:1];

  always_comb begin
    cnt_d = cnt_q;
    for (int i = 0; i < N; i++) begin
      if (ev[i]) begin
        cnt_d[64*i +: 64] = cnt_q[64*i +: 64] + 64'd1;
      end
    end
  end

  always_comb begin
    rd_cnt = '0;
    for (int i = 0; i < N; i++) begin
      if (32'(rd_idx) == i) begin
        rd_cnt = cnt_q[64*i +: 64];
      end
    end
    hi_d = hi_q;
    if (rd_i && !rd_word_i[0]) begin
      hi_d = rd_cnt[63:32];
    end
    if (32'(rd_idx) >= N) begin
      rd_data_o = 32'd0;
    end else if (rd_word_i[0]) begin
      rd_data_o = hi_q;
    end else begin
      rd_data_o = rd_cnt[31:0];
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      cnt_q <= '0;
      hi_q  <= '0;
    end else begin
      cnt_q <= cnt_d;
      hi_q  <= hi_d;
    end
  end

endmodule
