`default_nettype none
// nic_dma_wr: the NIC's only AXI4 write master. It serialises three request ports onto AW/W/B,
// one request at a time, in the order the requests were accepted:
//   port 0 (req0_*): a 32-byte record (CQE or CQ error record) to a 32-byte aligned address;
//                    req0_data_i byte 0 is bits [7:0] (the little-endian memory image).
//   port 1 (req1_*): an MSI-X message: a 4-byte write of req1_data_i to a 4-byte aligned address.
//   port 2 (req2_*, w2_*): a payload burst: req2_len_i + 1 beats to a beat-aligned address inside
//                    one 4 KiB page; the caller supplies the beats with their byte strobes on w2_*
//                    (valid/ready) once the request is accepted.
// Every port is valid/ready: a request is accepted in a cycle with valid and ready high, and its
// fields must stay stable while valid is high and ready is low.
//
// Every write uses AXI ID 0: one ID keeps the interconnect from reordering, which is how a CQE
// and the MSI-X message that announces it stay in PCIe posted-write order. Bursts are INCR; a
// 32-byte record at a 32-byte aligned address and a 4-byte message never cross 4 KiB.
// DataWidth 64: a record is one 4-beat burst (awsize 3); DataWidth 256: one beat (awsize 5).
// A message is one beat, awsize 2, with only the 4 strobes of its byte lanes set.
// B responses are always accepted, in AW order (one ID). A queue of the writes whose B is owed
// (their port and the requester's tag: the CQ of a record, the QP of a payload burst; BqDepth
// of them, a request waits while it is full) says whose each B is; a B with an error response
// (SLVERR / DECERR: a host-memory fault; PCIe posted writes never get one from pcie_us_if) is
// reported on b_err_* for one cycle: a record's to the CQ engine (the CQ enters error with
// INTERNAL_ERROR), a payload burst's to the QP context (the QP goes to ERROR). A failed MSI-X
// message is dropped: its CQE is in memory and the CQ keeps its state (docs/bad-input.md).
module nic_dma_wr #(
  parameter int DataWidth = 64  // AXI data width in bits: 64 or 256 (the CQE spans 1..4 beats)
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // port 0: 32-byte records
  input  logic                   req0_valid_i,
  input  logic [63:0]            req0_addr_i,
  input  logic [255:0]           req0_data_i,
  input  logic [7:0]             req0_tag_i,       // the record's CQ
  output logic                   req0_ready_o,
  // port 1: MSI-X messages
  input  logic                   req1_valid_i,
  input  logic [63:0]            req1_addr_i,
  input  logic [31:0]            req1_data_i,
  output logic                   req1_ready_o,
  // port 2: payload bursts
  input  logic                   req2_valid_i,
  input  logic [63:0]            req2_addr_i,
  input  logic [7:0]             req2_len_i,
  input  logic [7:0]             req2_tag_i,       // the burst's QP
  output logic                   req2_ready_o,
  input  logic                   w2_valid_i,
  input  logic [DataWidth-1:0]   w2_data_i,
  input  logic [DataWidth/8-1:0] w2_strb_i,
  output logic                   w2_ready_o,
  // AXI4 write channels
  output logic [3:0]             m_axi_awid_o,
  output logic [63:0]            m_axi_awaddr_o,
  output logic [7:0]             m_axi_awlen_o,
  output logic [2:0]             m_axi_awsize_o,
  output logic [1:0]             m_axi_awburst_o,
  output logic                   m_axi_awvalid_o,
  input  logic                   m_axi_awready_i,
  output logic [DataWidth-1:0]   m_axi_wdata_o,
  output logic [DataWidth/8-1:0] m_axi_wstrb_o,
  output logic                   m_axi_wlast_o,
  output logic                   m_axi_wvalid_o,
  input  logic                   m_axi_wready_i,
  input  logic [3:0]             m_axi_bid_i,
  input  logic [1:0]             m_axi_bresp_i,
  input  logic                   m_axi_bvalid_i,
  output logic                   m_axi_bready_o,
  // a write failed (its B response was not OKAY): which port, and its request's tag
  output logic                   b_err_rec_o,      // a record (tag: CQ)
  output logic                   b_err_pay_o,      // a payload burst (tag: QP)
  output logic [7:0]             b_err_tag_o
);

  localparam int BeatBytes  = DataWidth / 8;
  localparam int LaneBits   = $clog2(BeatBytes);          // address bits that select a byte lane
  localparam int RecBeats   = 32 / BeatBytes;             // beats of one 32-byte record
  localparam int BeatBits   = (RecBeats > 1) ? $clog2(RecBeats) : 1;

  if (DataWidth != 64 && DataWidth != 256) begin : gen_bad_width
    $fatal(1, "nic_dma_wr: DataWidth must be 64 or 256");
  end

  // The request being written. aw_pend: its AW is not yet accepted; w_pend: beats remain.
  logic                 aw_pend_q, aw_pend_d;
  logic                 w_pend_q, w_pend_d;
  logic                 is_msg_q, is_msg_d;
  logic                 is_pay_q, is_pay_d;               // a payload burst (port 2)
  logic [63:0]          addr_q;
  logic [255:0]         data_q;                           // record, or the message in [31:0]
  logic                 take0, take1, take2;              // port 0 / 1 / 2 request accepted
  logic [7:0]           beat_q, beat_d;
  logic [7:0]           len_q;                            // payload burst: beats - 1

  logic                 idle;                             // no request in progress after this cycle
  logic                 bq_full;                          // BqDepth writes owe their B
  logic                 aw_fire, w_fire, w_last;
  logic [DataWidth-1:0]   msg_wdata;
  logic [BeatBytes-1:0]   msg_wstrb;

  assign aw_fire = m_axi_awvalid_o && m_axi_awready_i;
  assign w_fire  = m_axi_wvalid_o && m_axi_wready_i;
  assign w_last  = is_msg_q || (is_pay_q ? beat_q == len_q : beat_q == 8'(RecBeats - 1));

  // The request slot frees in the cycle its last handshake happens, so a new request can be
  // accepted back to back.
  assign idle = (!aw_pend_q || aw_fire) && (!w_pend_q || (w_fire && w_last));

  // MSI-X requests win the arbitration: they are rare, and a CQE stream must not delay an
  // interrupt. Order between the two ports is the order of acceptance, which is what the CQ
  // engine relies on (it raises the interrupt only after its record was accepted here).
  assign req1_ready_o = idle && !bq_full;
  assign req0_ready_o = idle && !bq_full && !req1_valid_i;
  assign req2_ready_o = idle && !bq_full && !req1_valid_i && !req0_valid_i;
  assign take1        = req1_valid_i && req1_ready_o;
  assign take0        = req0_valid_i && req0_ready_o;
  assign take2        = req2_valid_i && req2_ready_o;

  always_comb begin
    aw_pend_d = aw_pend_q;
    w_pend_d  = w_pend_q;
    is_msg_d  = is_msg_q;
    is_pay_d  = is_pay_q;
    beat_d    = beat_q;

    if (aw_fire) begin
      aw_pend_d = 1'b0;
    end
    if (w_fire) begin
      if (w_last) begin
        w_pend_d = 1'b0;
      end else begin
        beat_d = beat_q + 8'd1;
      end
    end

    if (take1) begin
      aw_pend_d = 1'b1;
      w_pend_d  = 1'b1;
      is_msg_d  = 1'b1;
      is_pay_d  = 1'b0;
      beat_d    = '0;
    end else if (take0) begin
      aw_pend_d = 1'b1;
      w_pend_d  = 1'b1;
      is_msg_d  = 1'b0;
      is_pay_d  = 1'b0;
      beat_d    = '0;
    end else if (take2) begin
      aw_pend_d = 1'b1;
      w_pend_d  = 1'b1;
      is_msg_d  = 1'b0;
      is_pay_d  = 1'b1;
      beat_d    = '0;
    end
  end

  // The request's address and data: loaded when a request is accepted, and only then (no
  // 256-bit next-state copy in the other cycles).
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      addr_q <= '0;
      data_q <= '0;
    end else if (take1) begin
      addr_q <= req1_addr_i;
      data_q <= {224'b0, req1_data_i};
    end else if (take0) begin
      addr_q <= req0_addr_i;
      data_q <= req0_data_i;
    end else if (take2) begin
      addr_q <= req2_addr_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (take2) begin
      len_q <= req2_len_i;     // read only while a payload burst is in progress
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      aw_pend_q <= 1'b0;
      w_pend_q  <= 1'b0;
      is_msg_q  <= 1'b0;
      is_pay_q  <= 1'b0;
      beat_q    <= '0;
    end else begin
      aw_pend_q <= aw_pend_d;
      w_pend_q  <= w_pend_d;
      is_msg_q  <= is_msg_d;
      is_pay_q  <= is_pay_d;
      beat_q    <= beat_d;
    end
  end

  // A message sits on the byte lanes its address selects (AXI narrow transfer). The address is
  // 4-byte aligned, so it selects one of the beat's 32-bit words.
  always_comb begin
    msg_wdata = '0;
    msg_wstrb = '0;
    if (is_msg_q) begin
      // a constant slice per word (a write at the computed offset would be a shifter in Yosys)
      for (int w = 0; w < BeatBytes / 4; w++) begin
        if (32'(addr_q[LaneBits-1:2]) == w) begin
          msg_wdata[32*w +: 32] = data_q[31:0];
          msg_wstrb[4*w +: 4]   = 4'hf;
        end
      end
    end
  end

  assign m_axi_awid_o    = 4'd0;
  assign m_axi_awaddr_o  = addr_q;
  assign m_axi_awlen_o   = is_msg_q ? 8'd0 : is_pay_q ? len_q : 8'(RecBeats - 1);
  assign m_axi_awsize_o  = is_msg_q ? 3'd2 : 3'(LaneBits);
  assign m_axi_awburst_o = 2'b01;  // INCR
  assign m_axi_awvalid_o = aw_pend_q;

  assign m_axi_wdata_o  = is_msg_q ? msg_wdata : is_pay_q ? w2_data_i
                          : data_q[DataWidth*beat_q[BeatBits-1:0] +: DataWidth];
  assign m_axi_wstrb_o  = is_msg_q ? msg_wstrb : is_pay_q ? w2_strb_i : {BeatBytes{1'b1}};
  assign m_axi_wlast_o  = w_last;
  assign m_axi_wvalid_o = w_pend_q && (!is_pay_q || w2_valid_i);
  assign w2_ready_o     = w_pend_q && is_pay_q && m_axi_wready_i;

  assign m_axi_bready_o = 1'b1;

  // ---- the writes whose B is owed: {port 0 / 2 (2 bits: record, payload), tag}, in order
  localparam int BqDepth = 16;
  localparam int BqW     = $clog2(BqDepth);
  logic [9:0]  bq_mem [BqDepth];
  logic [BqW:0] bq_wr_q, bq_rd_q;
  logic        bq_push, bq_pop;
  logic [9:0]  bq_head;
  assign bq_full = (bq_wr_q - bq_rd_q) == (BqW+1)'(BqDepth);
  assign bq_push = take0 || take1 || take2;
  assign bq_pop  = m_axi_bvalid_i && m_axi_bready_o && bq_wr_q != bq_rd_q;
  assign bq_head = bq_mem[bq_rd_q[BqW-1:0]];
  always_ff @(posedge clk_i) begin
    if (bq_push) begin
      bq_mem[bq_wr_q[BqW-1:0]] <= take1 ? 10'd0 : take0 ? {2'b01, req0_tag_i} : {2'b10, req2_tag_i};
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      bq_wr_q <= '0;
      bq_rd_q <= '0;
    end else begin
      bq_wr_q <= bq_wr_q + (BqW+1)'(bq_push);
      bq_rd_q <= bq_rd_q + (BqW+1)'(bq_pop);
    end
  end
  assign b_err_rec_o = bq_pop && m_axi_bresp_i != 2'b00 && bq_head[8];
  assign b_err_pay_o = bq_pop && m_axi_bresp_i != 2'b00 && bq_head[9];
  assign b_err_tag_o = bq_head[7:0];

  logic unused_bid;                      // one ID: BID is always 0
  assign unused_bid = ^m_axi_bid_i;

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  logic                 aw_held_q, w_held_q;   // AW / W offered and not taken last cycle
  logic [63:0]          aw_addr_held_q;
  logic [7:0]           aw_len_held_q;
  logic [2:0]           aw_size_held_q;
  logic [DataWidth-1:0] w_data_held_q;
  logic [BeatBytes-1:0] w_strb_held_q;
  logic                 w_last_held_q;

  always_ff @(posedge clk_i) begin
    aw_held_q <= !rst_i && m_axi_awvalid_o && !m_axi_awready_i;
    w_held_q  <= !rst_i && m_axi_wvalid_o && !m_axi_wready_i;
    if (m_axi_awvalid_o && !m_axi_awready_i) begin
      aw_addr_held_q <= m_axi_awaddr_o;
      aw_len_held_q  <= m_axi_awlen_o;
      aw_size_held_q <= m_axi_awsize_o;
    end
    if (m_axi_wvalid_o && !m_axi_wready_i) begin
      w_data_held_q <= m_axi_wdata_o;
      w_strb_held_q <= m_axi_wstrb_o;
      w_last_held_q <= m_axi_wlast_o;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // Records are 32-byte aligned, messages 4-byte aligned: both fit in one 4 KiB page.
      if (req0_valid_i) begin
        a_req0_aligned: assert (req0_addr_i[4:0] == 5'd0);
      end
      if (req1_valid_i) begin
        a_req1_aligned: assert (req1_addr_i[1:0] == 2'd0);
      end
      // No burst crosses a 4 KiB boundary (AXI forbids it; PCIe would split it).
      if (m_axi_awvalid_o) begin
        a_no_4k_cross: assert (({1'b0, m_axi_awaddr_o[11:0]}
                                + ((13'(m_axi_awlen_o) + 13'd1) << m_axi_awsize_o)) <= 13'h1000);
      end
      // AW and W hold still until accepted (AXI valid/ready rule).
      if (aw_held_q) begin
        a_aw_stable: assert (m_axi_awvalid_o && m_axi_awaddr_o == aw_addr_held_q &&
                             m_axi_awlen_o == aw_len_held_q && m_axi_awsize_o == aw_size_held_q);
      end
      if (w_held_q) begin
        a_w_stable: assert (m_axi_wvalid_o && m_axi_wdata_o == w_data_held_q &&
                            m_axi_wstrb_o == w_strb_held_q && m_axi_wlast_o == w_last_held_q);
      end
      // Every record burst has exactly RecBeats beats: the beat counter never passes the last
      // beat.
      if (m_axi_wvalid_o) begin
        a_beat_in_range: assert (is_msg_q ? (beat_q == '0)
                                 : is_pay_q ? (beat_q <= len_q) : (32'(beat_q) < RecBeats));
      end
      // Payload bursts start at a beat boundary.
      if (req2_valid_i) begin
        a_req2_aligned: assert (req2_addr_i[LaneBits-1:0] == '0);
      end
      if (m_axi_bvalid_i) begin
        a_b_owed: assert (bq_wr_q != bq_rd_q);   // a B response only for a write made
      end
    end
  end
`endif

endmodule
