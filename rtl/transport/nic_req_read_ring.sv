`default_nettype none
// nic_req_read_ring: the requester's outstanding Reads, per QP a ring of MaxReads read contexts
// (first PSN, sink SGEs; the length is their sum) with three pointers: issued (tail: the Read's request went
// out), placed (nic_responder placed its last response) and completed (head: the completer
// retired its WQE). nic_responder looks up the oldest Read not yet placed when its first
// response arrives (rctx_*: a request / response port, the answer one cycle later).
//
// Ports: issue (the intake, with the context), place (nic_responder), complete (the completer),
// the intake's QP's Reads outstanding (issued, not completed: the ORD and READ_FENCE checks), and
// the commands (QP_CONNECT, QP_CREATE, QP_DESTROY empty the QP's ring).
module nic_req_read_ring #(
  parameter int NumQps   = 16,  // queue pairs, <= 256
  parameter int MaxReads = 32   // Reads per QP: a power of two in 2..128 (as nic_core)
) (
  input  logic                    clk_i,
  input  logic                    rst_i,
  input  logic                    cmd_clear_i,   // the QP's ring empties
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  // a Read's request goes out (the intake)
  input  logic                    issue_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] issue_qpn_i,
  input  nic_roce_pkg::read_ctx_t issue_ctx_i,
  // the intake's QP: its Reads issued and not completed
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] out_qpn_i,
  output logic [$clog2(MaxReads):0] out_count_o,
  // a Read's WQE completes (the completer)
  input  logic                    done_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] done_qpn_i,
  // nic_responder: the oldest Read not yet placed, one cycle after the request
  input  logic                    rctx_req_i,
  input  logic [7:0]              rctx_qpn_i,
  output logic                    rctx_avail_o,
  output nic_roce_pkg::read_ctx_t rctx_o,
  // ... and it placed that Read's last response
  input  logic                    rdone_i,
  input  logic [7:0]              rdone_qpn_i
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int RW = $clog2(MaxReads);   // ring slot; the pointers have one more bit

  if (MaxReads < 2 || MaxReads > 128 || (MaxReads & (MaxReads - 1)) != 0) begin : gen_bad_reads
    $fatal(1, "nic_req_read_ring: MaxReads must be a power of two in 2..128");
  end

  // The pointers per QP, in tables written at the QP an event names; a pointer whose valid bit
  // is clear reads 0, as a reset register would.
  logic [RW:0]       rd_tail_q  [NumQps];
  logic [RW:0]       rd_place_q [NumQps];
  logic [RW:0]       rd_head_q  [NumQps];
  logic [NumQps-1:0] rd_tail_v_q, rd_tail_v_d, rd_place_v_q, rd_place_v_d, rd_head_v_q, rd_head_v_d;

  logic [QW-1:0] rctx_q;
  logic [RW:0]   rctx_place, rctx_tail, issue_tail, out_tail, out_head, done_head;
  logic          rctx_avail_q;
  logic          rdone_take;
  logic [QW-1:0] rdone_q;
  logic [RW:0]   rdone_place;

  assign rctx_q      = QW'(rctx_qpn_i);
  assign rctx_place  = rd_place_v_q[rctx_q] ? rd_place_q[rctx_q] : '0;
  assign rctx_tail   = rd_tail_v_q[rctx_q] ? rd_tail_q[rctx_q] : '0;
  assign issue_tail  = rd_tail_v_q[issue_qpn_i] ? rd_tail_q[issue_qpn_i] : '0;
  assign out_tail    = rd_tail_v_q[out_qpn_i] ? rd_tail_q[out_qpn_i] : '0;
  assign out_head    = rd_head_v_q[out_qpn_i] ? rd_head_q[out_qpn_i] : '0;
  assign out_count_o = out_tail - out_head;
  assign done_head   = rd_head_v_q[done_qpn_i] ? rd_head_q[done_qpn_i] : '0;
  assign rdone_take  = rdone_i && 32'(rdone_qpn_i) < NumQps;
  assign rdone_q     = QW'(rdone_qpn_i);
  assign rdone_place = rd_place_v_q[rdone_q] ? rd_place_q[rdone_q] : '0;

  // the contexts: written when a Read's request goes out, read by nic_responder. Without
  // forwarding: nic_responder uses the answer only in the cycle after its request, and only when
  // it says a Read is there (rctx_avail), i.e. the slot read is at place, before tail; the write
  // of that cycle goes to tail, which is never the same slot, since the intake issues no Read
  // while MaxReads are outstanding (a_rctx_not_written_as_read). A write shows on a later read.
  //
  // A context is kept without its length: a Read is issued only when its length is the sum of
  // its SGEs' (the intake's check, modulo 2^32, SGEs beyond nsge not counted), so the read port
  // adds them again (a_ctx_length_is_sum). 282 bits a word instead of 314: 8 block RAMs of 36
  // bits instead of 9.
  localparam int KeptW = nic_roce_pkg::READ_CTX_BITS - 32;
  logic [KeptW-1:0]        kept_wdata, kept_rdata;
  nic_roce_pkg::read_ctx_t kept_ctx;

  // the length the read port gives a context: its SGEs' sum
  // (an SGE is {token, length, address}: its length is bits 95:64)
  function automatic logic [31:0] sge_sum(input logic [1:0] nsge, input logic [31:0] len0,
                                          input logic [31:0] len1);
    sge_sum = ((nsge != 2'd0) ? len0 : 32'd0) + (nsge[1] ? len1 : 32'd0);
  endfunction

  assign kept_wdata = {issue_ctx_i.psn, issue_ctx_i.nsge, issue_ctx_i.sge0, issue_ctx_i.sge1};
  always_comb begin
    kept_ctx        = '0;
    {kept_ctx.psn, kept_ctx.nsge, kept_ctx.sge0, kept_ctx.sge1} = kept_rdata;
    rctx_o          = kept_ctx;
    rctx_o.length   = sge_sum(kept_ctx.nsge, kept_ctx.sge0[95:64], kept_ctx.sge1[95:64]);
  end

  nic_ram_1r1w #(
    .Width  (KeptW),
    .Depth  (NumQps * MaxReads),
    .Forward(1'b0)
  ) u_rctx (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (issue_i),
    .waddr_i({issue_qpn_i, issue_tail[RW-1:0]}),
    .wdata_i(kept_wdata),
    .re_i   (rctx_req_i),
    .raddr_i({rctx_q, rctx_place[RW-1:0]}),
    .rdata_o(kept_rdata)
  );

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rctx_avail_q <= 1'b0;
    end else if (rctx_req_i) begin
      rctx_avail_q <= 32'(rctx_qpn_i) < NumQps && rctx_place != rctx_tail;
    end
  end
  assign rctx_avail_o = rctx_avail_q;

  always_ff @(posedge clk_i) begin
    if (done_i) begin
      rd_head_q[done_qpn_i] <= done_head + (RW+1)'(1);
    end
    if (issue_i) begin
      rd_tail_q[issue_qpn_i] <= issue_tail + (RW+1)'(1);
    end
    if (rdone_take) begin
      rd_place_q[rdone_q] <= rdone_place + (RW+1)'(1);
    end
  end

  always_comb begin
    rd_tail_v_d  = rd_tail_v_q;
    rd_place_v_d = rd_place_v_q;
    rd_head_v_d  = rd_head_v_q;
    if (issue_i) begin
      rd_tail_v_d[issue_qpn_i] = 1'b1;
    end
    if (rdone_take) begin
      rd_place_v_d[rdone_q] = 1'b1;
    end
    if (done_i) begin
      rd_head_v_d[done_qpn_i] = 1'b1;
    end
    if (cmd_clear_i) begin
      rd_tail_v_d[cmd_qpn_i]  = 1'b0;
      rd_place_v_d[cmd_qpn_i] = 1'b0;
      rd_head_v_d[cmd_qpn_i]  = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rd_tail_v_q  <= '0;
      rd_place_v_q <= '0;
      rd_head_v_q  <= '0;
    end else begin
      rd_tail_v_q  <= rd_tail_v_d;
      rd_place_v_q <= rd_place_v_d;
      rd_head_v_q  <= rd_head_v_d;
    end
  end

`ifndef SYNTHESIS
  // the package's width constant matches the struct (Verilator checks it; Yosys cannot)
  if (nic_roce_pkg::READ_CTX_BITS != $bits(nic_roce_pkg::read_ctx_t)) begin : gen_bad_ctx_bits
    $fatal(1, "nic_req_read_ring: nic_roce_pkg::READ_CTX_BITS differs from read_ctx_t's width");
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      a_reads_in_range: assert (32'(out_count_o) <= MaxReads);
      if (issue_i) begin
        a_ctx_length_is_sum: assert (issue_ctx_i.length == sge_sum(issue_ctx_i.nsge,
                                     issue_ctx_i.sge0[95:64], issue_ctx_i.sge1[95:64]));
      end
      if (rctx_req_i && issue_i && issue_qpn_i == rctx_q
          && issue_tail[RW-1:0] == rctx_place[RW-1:0]) begin
        // a context written as it is read is not one nic_responder uses (no Read is there)
        a_rctx_not_written_as_read: assert (!(32'(rctx_qpn_i) < NumQps && rctx_place != rctx_tail));
      end
    end
  end
`endif

endmodule
