`default_nettype none
// nic_gather_buf: the reserve-at-issue read-data buffer of a DMA read client.
//
// The R channel of nic_dma_rd is shared by several clients and returns their bursts in request
// order: a client that held its R beats until its own consumer was ready could block another
// client's data behind them, and that data may be what its consumer waits for. So every read
// reserves room for all its beats here when its request is issued (reserve_i, in the cycle of
// the AR handshake, of req_beats_i beats; room_o says whether they fit), and every R beat of the
// client is written at once (we_i: it always has room). The consumer takes the beats in arrival
// order (valid_o / data_o, take_i); each taken beat frees its reservation.
//
// Two read sides (OutReg), because the requester and the responder were built with different
// latencies and the core's behaviour is kept cycle for cycle:
//   OutReg = 1: a FIFO with a registered output: a beat written in cycle t is offered from t + 2.
//   OutReg = 0: a read-ahead ring with forwarding: a beat written in cycle t is offered from t + 1.
// Giving both clients the same side changes their timing (a step of its own).
module nic_gather_buf #(
  parameter int Width  = 64,     // bits per beat (the caller may add side bits, e.g. r_last)
  parameter int Depth  = 1024,   // beats: a power of two >= 2
  parameter bit OutReg = 1'b1    // read side, see above
) (
  input  logic             clk_i,
  input  logic             rst_i,
  // reservation: the client's next read needs req_beats_i beats (1..256)
  input  logic [8:0]       req_beats_i,
  output logic             room_o,
  input  logic             reserve_i,     // its request is issued this cycle
  // the R beats of the client's reads
  input  logic             we_i,
  input  logic [Width-1:0] wdata_i,
  // the consumer
  output logic             valid_o,
  output logic [Width-1:0] data_o,
  input  logic             take_i         // only with valid_o
);

  localparam int AW = $clog2(Depth);

  if (Depth < 2 || (Depth & (Depth - 1)) != 0) begin : gen_bad_depth
    $fatal(1, "nic_gather_buf: Depth must be a power of two >= 2");
  end

  // The room is kept as the beats not reserved (free_q = Depth - reserved), so room_o is one
  // compare of a register with the request's beats: room_o feeds the client's AR valid, which
  // goes through nic_dma_rd's arbiter into every client's ready (an add before the compare was
  // on the core's deepest path).
  logic [AW:0] free_q, free_d;   // beats not reserved by issued reads not yet taken
  assign room_o = 32'(req_beats_i) <= 32'(free_q);
  assign free_d = free_q - (reserve_i ? (AW+1)'(req_beats_i) : '0) + (AW+1)'(take_i);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      free_q <= (AW+1)'(Depth);
    end else begin
      free_q <= free_d;
    end
  end

  if (OutReg) begin : gen_out_reg
    logic [AW:0] wp_q, rp_q;     // RAM write / read pointers
    logic [AW:0] fill;           // beats in the RAM (the output register aside)
    logic        re;             // RAM read into the output
    logic        v_q, v_d;       // the RAM output holds a beat not yet taken
    assign fill = wp_q - rp_q;

    nic_ram_1r1w #(
      .Width  (Width),
      .Depth  (Depth),
      .Forward(1'b0)
    ) u_ram (
      .clk_i  (clk_i),
      .rst_i  (rst_i),
      .we_i   (we_i),
      .waddr_i(wp_q[AW-1:0]),
      .wdata_i(wdata_i),
      .re_i   (re),
      .raddr_i(rp_q[AW-1:0]),
      .rdata_o(data_o)
    );

    always_comb begin
      // refill the output when it is empty or taken now (one beat a cycle)
      re  = fill != '0 && (!v_q || take_i);
      v_d = re || (v_q && !take_i);
    end
    assign valid_o = v_q;

    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        wp_q <= '0;
        rp_q <= '0;
        v_q  <= 1'b0;
      end else begin
        wp_q <= wp_q + (AW+1)'(we_i);
        rp_q <= rp_q + (AW+1)'(re);
        v_q  <= v_d;
      end
    end

`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i && we_i) begin
        a_write_reserved: assert (32'(fill) < Depth);
      end
    end
`endif
  end else begin : gen_read_ahead
    logic [AW-1:0] wp_q, rp_q, rp_d;
    logic [AW:0]   avail_q;      // beats arrived, not yet taken
    assign rp_d = rp_q + AW'(take_i);

    // the word at rp_q, current from the cycle after it is written (re every cycle, forwarding)
    nic_ram_1r1w #(
      .Width  (Width),
      .Depth  (Depth),
      .Forward(1'b1)
    ) u_ram (
      .clk_i  (clk_i),
      .rst_i  (rst_i),
      .we_i   (we_i),
      .waddr_i(wp_q),
      .wdata_i(wdata_i),
      .re_i   (1'b1),
      .raddr_i(rp_d),
      .rdata_o(data_o)
    );
    assign valid_o = avail_q != '0;

    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        wp_q    <= '0;
        rp_q    <= '0;
        avail_q <= '0;
      end else begin
        wp_q    <= wp_q + AW'(we_i);
        rp_q    <= rp_d;
        avail_q <= avail_q + (AW+1)'(we_i) - (AW+1)'(take_i);
      end
    end

`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        a_avail_reserved: assert (32'(avail_q) + 32'(free_q) <= Depth);
      end
    end
`endif
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      a_free_in_range: assert (32'(free_q) <= Depth);
      if (take_i) begin
        a_take_valid: assert (valid_o);
      end
    end
  end
`endif

endmodule
