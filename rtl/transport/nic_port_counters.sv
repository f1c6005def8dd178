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

  // Where the counts live. Twelve 64-bit counters in flip-flops were 768 flip-flops and twelve
  // 64-bit incrementers, fed straight by the engines' event logic. Instead:
  //  - ev_q: the events, registered (the event pulses come out of deep logic in the engines;
  //    the counters start from a register);
  //  - pend_q: per counter, the events registered but not yet in its word (4 bits: see drain);
  //  - word_q: per counter, the 64-bit word in LUT RAM, with init_q (the word has been written
  //    since reset: a LUT RAM is not reset, so an entry not yet written reads 0);
  //  - the drain: while anything is pending it visits one counter per cycle, round robin
  //    (vis_q), adds its pending count into its word and keeps only that cycle's event pending.
  //    Each counter is visited every N cycles and gains at most one event a cycle, so pending
  //    never exceeds N = 12 (a_pending_fits; with the cycle's event, 13 on the read side).
  //    When nothing is pending nothing moves: the module is at rest as soon as the last events
  //    are drained.
  // A counter's value is word + pend + ev (the events up to the last cycle), which is exactly what
  // the flip-flop counter held: rd_data_o and hi_q are the same in every cycle.
  localparam int VisW = 4;         // a counter's number (rd_word_i[4:1])

  logic [N-1:0]    ev_q;
  logic [4*N-1:0]  pend_q, pend_d;
  logic [63:0]     word_q [16];    // indexed by the 4-bit counter number; 12 of 16 used
  logic [15:0]     init_q;
  logic [VisW-1:0] vis_q;
  logic            busy;
  logic [63:0]     vis_base;
  logic [31:0]     hi_q, hi_d;
  logic [3:0]      rd_idx;
  logic [63:0]     rd_base, rd_cnt;
  logic [3:0]      rd_pend;

  assign rd_idx = rd_word_i[4:1];
  assign busy   = |ev_q || |pend_q;

  // the word of an entry: what the LUT RAM holds once written, 0 before (two read ports: the
  // drain's and the CSR's; the RAM is small enough to be held twice)
  assign vis_base = init_q[vis_q] ? word_q[vis_q] : 64'd0;
  assign rd_base  = init_q[rd_idx] ? word_q[rd_idx] : 64'd0;

  always_comb begin
    pend_d = pend_q;
    for (int i = 0; i < N; i++) begin
      if (busy && VisW'(i) == vis_q) begin
        pend_d[4*i +: 4] = {3'd0, ev_q[i]};
      end else begin
        pend_d[4*i +: 4] = pend_q[4*i +: 4] + {3'd0, ev_q[i]};
      end
    end
  end

  always_comb begin
    rd_pend = 4'd0;
    for (int i = 0; i < N; i++) begin
      if (32'(rd_idx) == i) begin
        rd_pend = pend_q[4*i +: 4] + {3'd0, ev_q[i]};
      end
    end
    rd_cnt = rd_base + {60'd0, rd_pend};
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

  // the LUT RAM: one write port (the drain), never reset
  always_ff @(posedge clk_i) begin
    if (!rst_i && busy) begin
      word_q[vis_q] <= vis_base + {60'd0, pend_q[4*vis_q +: 4]};
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ev_q   <= '0;
      pend_q <= '0;
      init_q <= '0;
      vis_q  <= '0;
      hi_q   <= '0;
    end else begin
      ev_q   <= ev;
      pend_q <= pend_d;
      hi_q   <= hi_d;
      if (busy) begin
        init_q[vis_q] <= 1'b1;
        vis_q         <= vis_q == VisW'(N - 1) ? '0 : vis_q + 1'b1;
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      for (int i = 0; i < N; i++) begin
        a_pending_fits: assert (pend_q[4*i +: 4] <= 4'(N));
      end
    end
  end
`endif

endmodule
