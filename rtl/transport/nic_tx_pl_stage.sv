`default_nettype none
// nic_tx_pl_stage: a registered stage on the payload stream into nic_roce_tx (docs/timing-area.md
// "The payload into nic_roce_tx registered").
//
// Why: without it the engine that offers a payload chunk (nic_req_sender's inline data and DMA
// beats, nic_rsp_read_engine's gather) and nic_roce_tx's packer (the shift of the chunk into
// acc_q, the ICRC) were one combinational path through two engines, the deepest of the placed
// core. Here the source sees only registers: in_ready_o is a function of this stage's state, and
// nic_roce_tx sees a registered chunk.
//
// A two-entry FIFO (a full chunk every cycle with a registered ready) that takes only the bytes
// of the packet nic_roce_tx has taken (accepted into its descriptor register, docs/timing-area.md
// "The packet descriptor registered"): take_i / take_len_i load the byte count of that packet,
// and in_ready_o is low once it is covered. So a source that offers its next packet's payload
// early (the same engine, or after the TX arbiter switched owner at the take) waits, as it did
// while nic_roce_tx took payload only in its payload state. nic_roce_tx spends at least three
// cycles on the descriptor and the headers after a take, so the first chunk is here before it
// asks for it: a chunk offered at once costs nothing; a chunk that arrives after nic_roce_tx
// waits for it (a DMA beat) reaches the packer one cycle later than before.
//
// Contract: the packet's chunks sum to take_len_i (nic_roce_tx asserts it), and a take comes
// only after the previous packet's payload has left the stage (nic_roce_tx takes a packet only
// when all the previous one's payload is in its packer): both asserted below.
module nic_tx_pl_stage #(
  parameter int DataWidth = 64   // stream width in bits: 64 or 256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // nic_roce_tx takes a packet with take_len_i payload bytes (0..4096)
  input  logic                          take_i,
  input  logic [12:0]                   take_len_i,
  // from the engine that owns the packet
  input  logic                          in_valid_i,
  input  logic [DataWidth-1:0]          in_data_i,
  input  logic [$clog2(DataWidth/8):0]  in_nbytes_i,
  input  logic                          in_poison_i,
  output logic                          in_ready_o,
  // to nic_roce_tx
  output logic                          out_valid_o,
  output logic [DataWidth-1:0]          out_data_o,
  output logic [$clog2(DataWidth/8):0]  out_nbytes_o,
  output logic                          out_poison_o,
  input  logic                          out_ready_i
);

  localparam int NB = $clog2(DataWidth / 8) + 1;

  logic [12:0]          left_q;                // bytes of the taken packet not yet in the FIFO
  logic [1:0]           cnt_q;                 // chunks held: 0, 1 or 2
  logic [DataWidth-1:0] data0_q, data1_q;      // entry 0 is the head
  logic [NB-1:0]        nbytes0_q, nbytes1_q;
  logic                 poison0_q, poison1_q;
  logic                 push, pop;

  assign in_ready_o   = cnt_q != 2'd2 && left_q != '0;
  assign push         = in_valid_i && in_ready_o;
  assign out_valid_o  = cnt_q != 2'd0;
  assign pop          = out_valid_o && out_ready_i;
  assign out_data_o   = data0_q;
  assign out_nbytes_o = nbytes0_q;
  assign out_poison_o = poison0_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      left_q <= '0;
      cnt_q  <= '0;
    end else begin
      if (take_i) begin
        left_q <= take_len_i;
      end else if (push) begin
        left_q <= left_q - 13'(in_nbytes_i);
      end
      cnt_q <= cnt_q + 2'(push) - 2'(pop);
    end
  end

  // The entries need no reset (read only while counted) and load only on a push or a pop, so an
  // idle port holds still (the quiescence skip, docs/sim-speed.md).
  always_ff @(posedge clk_i) begin
    if (push && (cnt_q == 2'd0 || (cnt_q == 2'd1 && pop))) begin
      data0_q   <= in_data_i;
      nbytes0_q <= in_nbytes_i;
      poison0_q <= in_poison_i;
    end else if (pop && cnt_q == 2'd2) begin
      data0_q   <= data1_q;
      nbytes0_q <= nbytes1_q;
      poison0_q <= poison1_q;
    end
    if (push && cnt_q == 2'd1 && !pop) begin
      data1_q   <= in_data_i;
      nbytes1_q <= in_nbytes_i;
      poison1_q <= in_poison_i;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (take_i) begin
        a_take_after_the_payload_left: assert (left_q == '0 && cnt_q == 2'd0);
      end
      if (push) begin
        a_chunk_within_the_packet: assert (in_nbytes_i != '0 && 13'(in_nbytes_i) <= left_q);
      end
      a_count_in_range: assert (cnt_q <= 2'd2);
    end
  end
`endif

endmodule
