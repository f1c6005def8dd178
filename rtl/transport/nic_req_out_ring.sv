`default_nettype none
// nic_req_out_ring: the requester's outstanding WQEs, per QP a ring of OutDepth entries (the
// WQE's index, its last PSN, completion type, SILENT_SUCCESS, whether it went out and waits for
// its acknowledgement, the status decided at intake) in a RAM of NumQps * OutDepth entries, with
// a head and a count per QP.
//
// The intake appends behind a QP's entries (append_*), the completer pops a QP's head entry
// (pop_*); both in one cycle for one QP leave its count as it is. QP_CREATE / QP_DESTROY empty
// the QP's ring. Two read ports of the entries, each a RAM read answered the cycle after its
// request: the completer's (the head entry of the QP it looks at) and the replay walk's (the
// RAM is kept twice, one copy per port). The heads and counts are read combinationally at the
// QPs their users hold: the intake's (room, the slot to append to), the completer's, the QP the
// completer is about to pick, and the QP whose RNR timer the intake may replay.
//
// An entry is kept in 46 bits, not 90: its completion type is one of SEND, WRITE and READ (2
// bits) and its status one of the four the intake decides (SUCCESS, ACCESS_VIOLATION,
// INVALID_PARAMETER, CANCELLED: 2 bits); both are decoded at the read ports. Three block RAMs of
// 18 bits per copy instead of five (a_entry_encodable checks every append).
module nic_req_out_ring #(
  parameter int NumQps   = 16,  // queue pairs, <= 256
  parameter int OutDepth = 64,  // entries per QP: a power of two >= 2
  parameter int EntW     = 90   // bits of an entry
) (
  input  logic                       clk_i,
  input  logic                       rst_i,
  input  logic                       cmd_reset_i,    // QP_CREATE / QP_DESTROY: the ring empties
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  // the intake: append behind the QP's entries; its count
  input  logic                       append_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] in_qpn_i,
  input  logic [EntW-1:0]            append_entry_i,
  output logic [$clog2(OutDepth):0]  in_count_o,
  // the completer: pop the QP's head entry; its head and count
  input  logic                       pop_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cpl_qpn_i,
  output logic [$clog2(OutDepth)-1:0] cpl_head_o,
  output logic [$clog2(OutDepth):0]  cpl_count_o,
  // the QP the completer picks next: its head
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] pick_qpn_i,
  output logic [$clog2(OutDepth)-1:0] pick_head_o,
  // the QP whose RNR timer expired: its head and count (where a replay walk starts)
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] scan_qpn_i,
  output logic [$clog2(OutDepth)-1:0] scan_head_o,
  output logic [$clog2(OutDepth):0]  scan_count_o,
  // the QPs with entries
  output logic [NumQps-1:0]          nonempty_o,
  // entry read ports: {qpn, slot}, the entry the cycle after
  input  logic                       cpl_re_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)+$clog2(OutDepth)-1:0] cpl_raddr_i,
  output logic [EntW-1:0]            cpl_rdata_o,
  input  logic                       rp_re_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)+$clog2(OutDepth)-1:0] rp_raddr_i,
  output logic [EntW-1:0]            rp_rdata_o
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;
  localparam int OW = $clog2(OutDepth);
  localparam int PkW = 16 + 24 + 2 + 1 + 1 + 2;   // an entry as the RAMs keep it

  if (OutDepth < 2 || (OutDepth & (OutDepth - 1)) != 0) begin : gen_bad_depth
    $fatal(1, "nic_req_out_ring: OutDepth must be a power of two >= 2");
  end
  if (EntW != 16 + 24 + 16 + 1 + 1 + 32) begin : gen_bad_entry
    $fatal(1, "nic_req_out_ring: an entry is {idx 16, last PSN 24, type 16, silent, pend, status 32}");
  end

  // {idx, psn, type, silent, pend, status} <-> {idx, psn, type code, silent, pend, status code}:
  // type SEND 0x2 / READ 0x20 / WRITE 0x40 by bits 6 and 5; status SUCCESS 0 / ACCESS_VIOLATION
  // C0000005 / INVALID_PARAMETER C000000D / CANCELLED C0000120 by bits 8, 3 and 0
  logic [PkW-1:0]  app_pk, cpl_pk, rp_pk;
  logic [15:0]     app_type;
  logic [31:0]     app_status;
  assign app_type   = append_entry_i[EntW-41 -: 16];
  assign app_status = append_entry_i[31:0];
  assign app_pk = {append_entry_i[EntW-1 -: 40], app_type[6:5], append_entry_i[33:32],
                   app_status[8] | app_status[3], app_status[8] | (app_status[0] & !app_status[3])};

  function automatic logic [EntW-1:0] unpack_entry(input logic [PkW-1:0] pk);
    unpack_entry = {pk[PkW-1 -: 40],
                    (pk[5:4] == 2'b01) ? nic_pkg::NDK_OP_TYPE_READ
                    : (pk[5:4] == 2'b10) ? nic_pkg::NDK_OP_TYPE_WRITE : nic_pkg::NDK_OP_TYPE_SEND,
                    pk[3:2],
                    (pk[1:0] == 2'b01) ? nic_pkg::STATUS_ACCESS_VIOLATION
                    : (pk[1:0] == 2'b10) ? nic_pkg::STATUS_INVALID_PARAMETER
                    : (pk[1:0] == 2'b11) ? nic_pkg::STATUS_CANCELLED : nic_pkg::STATUS_SUCCESS};
  endfunction
  assign cpl_rdata_o = unpack_entry(cpl_pk);
  assign rp_rdata_o  = unpack_entry(rp_pk);
  logic unused_app;                 // (the bits the codes do not need)
  assign unused_app = ^{app_type[15:7], app_type[4:0], app_status[31:9], app_status[7:4],
                        app_status[2:1]};

  // head and count per QP, in tables written at the QP an event names; each reads 0 while its
  // valid bit is clear (the count's: the QP has entries)
  logic [OW-1:0]     head_q [NumQps];
  logic [NumQps-1:0] head_v_q, head_v_d;
  logic [OW:0]       count_q [NumQps];
  logic [NumQps-1:0] cnt_nz_q, cnt_nz_d;
  logic [OW-1:0]     in_head;       // the intake QP's head (where it appends)

  assign in_head    = head_v_q[in_qpn_i] ? head_q[in_qpn_i] : '0;
  assign in_count_o   = cnt_nz_q[in_qpn_i] ? count_q[in_qpn_i] : '0;
  assign cpl_head_o   = head_v_q[cpl_qpn_i] ? head_q[cpl_qpn_i] : '0;
  assign cpl_count_o  = cnt_nz_q[cpl_qpn_i] ? count_q[cpl_qpn_i] : '0;
  assign pick_head_o  = head_v_q[pick_qpn_i] ? head_q[pick_qpn_i] : '0;
  assign scan_head_o  = head_v_q[scan_qpn_i] ? head_q[scan_qpn_i] : '0;
  assign scan_count_o = cnt_nz_q[scan_qpn_i] ? count_q[scan_qpn_i] : '0;
  assign nonempty_o   = cnt_nz_q;

  // the counts of the QPs an append and a pop touch, the same QP when both name it
  logic [OW:0] app_count, pop_count;
  assign app_count = in_count_o + (OW+1)'(1) - (OW+1)'(pop_i && cpl_qpn_i == in_qpn_i);
  assign pop_count = cpl_count_o - (OW+1)'(1) + (OW+1)'(append_i && in_qpn_i == cpl_qpn_i);

  logic [QW+OW-1:0] waddr;
  assign waddr = {in_qpn_i, in_head + OW'(in_count_o)};

  nic_ram_1r1w #(
    .Width  (PkW),
    .Depth  (NumQps * OutDepth),
    .Forward(1'b1)
  ) u_out (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (append_i),
    .waddr_i(waddr),
    .wdata_i(app_pk),
    .re_i   (cpl_re_i),
    .raddr_i(cpl_raddr_i),
    .rdata_o(cpl_pk)
  );

  nic_ram_1r1w #(
    .Width  (PkW),
    .Depth  (NumQps * OutDepth),
    .Forward(1'b1)
  ) u_out_replay (
    .clk_i  (clk_i),
    .rst_i  (rst_i),
    .we_i   (append_i),
    .waddr_i(waddr),
    .wdata_i(app_pk),
    .re_i   (rp_re_i),
    .raddr_i(rp_raddr_i),
    .rdata_o(rp_pk)
  );

  // of two writes to one entry in a cycle the later one wins
  always_ff @(posedge clk_i) begin
    if (append_i) begin
      count_q[in_qpn_i] <= app_count;
    end
    if (pop_i) begin
      head_q[cpl_qpn_i]  <= cpl_head_o + OW'(1);
      count_q[cpl_qpn_i] <= pop_count;
    end
  end

  always_comb begin
    head_v_d = head_v_q;
    cnt_nz_d = cnt_nz_q;
    if (append_i) begin
      cnt_nz_d[in_qpn_i] = app_count != '0;
    end
    if (pop_i) begin
      head_v_d[cpl_qpn_i] = 1'b1;
      cnt_nz_d[cpl_qpn_i] = pop_count != '0;
    end
    if (cmd_reset_i) begin
      head_v_d[cmd_qpn_i] = 1'b0;
      cnt_nz_d[cmd_qpn_i] = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      head_v_q <= '0;
      cnt_nz_q <= '0;
    end else begin
      head_v_q <= head_v_d;
      cnt_nz_q <= cnt_nz_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      a_count_in_range: assert (32'(in_count_o) <= OutDepth);
      // a pop takes an entry the QP has
      if (pop_i) begin
        a_pop_nonempty: assert (cpl_count_o != '0 || (append_i && in_qpn_i == cpl_qpn_i));
      end
      // the non-empty bit of a QP agrees with its count where the count changes
      if (append_i) begin
        // the entry's type and status are of the sets the RAMs keep as codes
        a_entry_encodable: assert (unpack_entry(app_pk) == append_entry_i);
        a_count_nz_append: assert (!cnt_nz_q[in_qpn_i] || count_q[in_qpn_i] != '0);
        a_append_room: assert (32'(in_count_o) < OutDepth || (pop_i && cpl_qpn_i == in_qpn_i));
      end
    end
  end
`endif

endmodule
