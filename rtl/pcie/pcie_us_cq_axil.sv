`default_nettype none
// pcie_us_cq_axil: the completer side of the PCIe interface. Requests the UltraScale+ integrated
// block (pcie4_uscale_plus, AMD PG213) delivers on its completer request interface (CQ) become
// AXI4-Lite transactions on BAR0; read data goes back on the completer completion interface (CC).
//
// Interface: 256-bit CQ / CC, DWORD-aligned, straddle off (PG213 "Completer Interface"). A CQ
// packet starts with the 128-bit descriptor (address, DWORD count, request type, requester ID,
// tag, BAR, TC, attributes) and its payload follows from DWORD 4 of the first beat; the byte
// enables of the first and last payload DWORD are tuser[3:0] / tuser[7:4]. A CC packet is a
// 96-bit descriptor with the payload from DWORD 3.
//
// What is answered how (PCIe Base Specification, "Completion Rules" / "Unsupported Request"):
//   - Memory Write to BAR0: one AXI-Lite write per payload DWORD, in address order, with that
//     DWORD's byte enables as wstrb (DWORDs with no byte enabled are skipped: a zero-length write
//     is a no-op). Posted: no completion.
//   - Memory Read of BAR0, 1..MaxReadDw DWORDs: one AXI-Lite read per DWORD, then one completion
//     with data (CplD, status SC) carrying the request's tag, its byte count (from the length and
//     first / last byte enables, spec table "Calculating Byte Count") and lower address (address
//     bits [6:2] and the first enabled byte). A read of more DWORDs gets a completion with status
//     Completer Abort (the register map has no wider registers; the spec lets a completer abort
//     a request that violates its programming model).
//   - Any other request (I/O, atomics, locked reads, another BAR, a message): the payload is
//     drained; a non-posted one gets a completion without data, status Unsupported Request.
//   - An AXI-Lite error response on a read gives that completion status Completer Abort.
// One request is handled at a time: later requests wait in the hard block (tready low).
// pcie_cq_np_req asks the block for non-posted requests one at a time, when this module is idle.
module pcie_us_cq_axil #(
  parameter int AddrWidth = 22,  // BAR0 size is 2^AddrWidth bytes (the AXI-Lite address width)
  parameter int MaxReadDw = 8    // longest BAR0 read answered with data, DWORDs, 1..8
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  // completer request (CQ), from the hard block
  input  logic [255:0]         cq_tdata_i,
  input  logic [7:0]           cq_tkeep_i,
  input  logic                 cq_tlast_i,
  input  logic [87:0]          cq_tuser_i,
  input  logic                 cq_tvalid_i,
  output logic                 cq_tready_o,
  output logic [1:0]           cq_np_req_o,
  // completer completion (CC), to the hard block
  output logic [255:0]         cc_tdata_o,
  output logic [7:0]           cc_tkeep_o,
  output logic                 cc_tlast_o,
  output logic [32:0]          cc_tuser_o,
  output logic                 cc_tvalid_o,
  input  logic                 cc_tready_i,
  // the function's completer ID (bus / device from the block's configuration status)
  input  logic [7:0]           cfg_bus_number_i,
  // AXI4-Lite master to BAR0
  output logic [AddrWidth-1:0] m_axil_awaddr_o,
  output logic                 m_axil_awvalid_o,
  input  logic                 m_axil_awready_i,
  output logic [31:0]          m_axil_wdata_o,
  output logic [3:0]           m_axil_wstrb_o,
  output logic                 m_axil_wvalid_o,
  input  logic                 m_axil_wready_i,
  input  logic [1:0]           m_axil_bresp_i,
  input  logic                 m_axil_bvalid_i,
  output logic                 m_axil_bready_o,
  output logic [AddrWidth-1:0] m_axil_araddr_o,
  output logic                 m_axil_arvalid_o,
  input  logic                 m_axil_arready_i,
  input  logic [31:0]          m_axil_rdata_i,
  input  logic [1:0]           m_axil_rresp_i,
  input  logic                 m_axil_rvalid_i,
  output logic                 m_axil_rready_o
);

  if (MaxReadDw < 1 || MaxReadDw > 8) begin : gen_bad_max_read
    $fatal(1, "pcie_us_cq_axil: MaxReadDw must be 1..8");
  end
  if (AddrWidth < 3 || AddrWidth > 32) begin : gen_bad_addr_width
    $fatal(1, "pcie_us_cq_axil: AddrWidth must be 3..32");
  end

  // PG213 request types (descriptor DW2 [14:11]) and completion status codes
  localparam logic [3:0] ReqMemRead  = 4'b0000;
  localparam logic [3:0] ReqMemWrite = 4'b0001;
  localparam logic [2:0] CplSc = 3'b000;
  localparam logic [2:0] CplUr = 3'b001;
  localparam logic [2:0] CplCa = 3'b100;

  typedef enum logic [3:0] {
    StIdle,     // waiting for the first beat of a request
    StWrite,    // AXI-Lite write of the current payload DWORD
    StWriteB,   // waiting for its B response
    StNextBeat, // waiting for the next beat of a write's payload
    StRead,     // AXI-Lite read of the current DWORD
    StReadR,    // waiting for its R response
    StDrain,    // discarding the rest of an unsupported request's packet
    StCpl0,     // completion beat 0 (descriptor and DWORDs 0..4)
    StCpl1      // completion beat 1 (DWORDs 5..7)
  } state_e;

  state_e        state_q, state_d;
  logic [255:0]  beat_q, beat_d;        // the CQ beat being worked through
  logic [2:0]    lane_q, lane_d;        // its DWORD lane of the current payload DWORD
  logic [10:0]   dw_left_q, dw_left_d;  // payload DWORDs still to write / read
  logic [10:0]   dw_count_q, dw_count_d;
  logic [3:0]    dw_idx_q, dw_idx_d;    // read: DWORD index into rd_data_q
  logic [AddrWidth-1:2] addr_q, addr_d; // address of the current DWORD
  logic [3:0]    first_be_q, first_be_d, last_be_q, last_be_d;
  logic          first_q, first_d;      // the current DWORD is the first of the request
  logic [15:0]   requester_id_q, requester_id_d;
  logic [7:0]    tag_q, tag_d, function_q, function_d;
  logic [2:0]    tc_q, tc_d, attr_q, attr_d, status_q, status_d;
  logic [6:0]    lower_addr_q, lower_addr_d;
  logic [12:0]   byte_count_q, byte_count_d;
  logic          with_data_q, with_data_d;  // the completion carries data
  logic          cpl_after_q, cpl_after_d;  // drain: answer with a completion afterwards
  logic [255:0]  rd_data_q, rd_data_d;      // read DWORDs 0..7
  logic          aw_done_q, aw_done_d, w_done_q, w_done_d;
  logic          advance;

  // ---- the first beat's descriptor ----
  logic [63:0]  d_addr;
  logic [10:0]  d_dw_count;
  logic [3:0]   d_req_type;
  logic [15:0]  d_requester_id;
  logic [7:0]   d_tag, d_function;
  logic [2:0]   d_bar_id, d_tc, d_attr;
  logic [3:0]   d_first_be, d_last_be;
  logic         d_supported, d_posted;
  always_comb begin
    d_addr         = {cq_tdata_i[63:2], 2'b00};
    d_dw_count     = cq_tdata_i[74:64];
    d_req_type     = cq_tdata_i[78:75];
    d_requester_id = cq_tdata_i[95:80];
    d_tag          = cq_tdata_i[103:96];
    d_function     = cq_tdata_i[111:104];
    d_bar_id       = cq_tdata_i[114:112];
    d_tc           = cq_tdata_i[123:121];
    d_attr         = cq_tdata_i[126:124];
    d_first_be     = cq_tuser_i[3:0];
    d_last_be      = cq_tuser_i[7:4];
    // Memory writes and messages are posted; everything else the block delivers is non-posted.
    d_posted       = d_req_type == ReqMemWrite || d_req_type[3:2] == 2'b11;
    d_supported    = d_bar_id == 3'd0 && (d_req_type == ReqMemRead || d_req_type == ReqMemWrite);
  end

  // Byte count and lower address of a memory read's completion (PCIe Base Spec, "Calculating
  // Byte Count" and "Calculating Lower Address"): bytes from the first enabled byte of the first
  // DWORD to the last enabled byte of the last DWORD.
  function automatic logic [12:0] read_byte_count(input logic [10:0] dws, input logic [3:0] fbe,
                                                  input logic [3:1] lbe);
    logic [12:0] n;
    if (dws == 11'd1) begin
      if (fbe[3] && fbe[0]) n = 13'd4;
      else if (fbe[3] && fbe[1]) n = 13'd3;
      else if (fbe[2] && fbe[0]) n = 13'd3;
      else if (fbe == 4'b0011 || fbe == 4'b0110 || fbe == 4'b1100) n = 13'd2;
      else n = 13'd1;
    end else begin
      // a length of 0 means 1024 DWORDs
      n = (dws == 11'd0) ? 13'd4096 : {dws, 2'b00};
      if (!fbe[0]) n = n - 13'd1;
      if (!fbe[0] && !fbe[1]) n = n - 13'd1;
      if (!fbe[0] && !fbe[1] && !fbe[2]) n = n - 13'd1;
      if (!lbe[3]) n = n - 13'd1;
      if (!lbe[3] && !lbe[2]) n = n - 13'd1;
      if (!lbe[3] && !lbe[2] && !lbe[1]) n = n - 13'd1;
    end
    read_byte_count = n;
  endfunction

  function automatic logic [1:0] first_byte(input logic [3:0] fbe);
    if (fbe[0]) first_byte = 2'd0;
    else if (fbe[1]) first_byte = 2'd1;
    else if (fbe[2]) first_byte = 2'd2;
    else if (fbe[3]) first_byte = 2'd3;
    else first_byte = 2'd0;
  endfunction

  // byte enables of the current payload DWORD
  logic [3:0] cur_be;
  logic [31:0] cur_dw;
  always_comb begin
    if (first_q) cur_be = first_be_q;
    else if (dw_left_q == 11'd1) cur_be = last_be_q;
    else cur_be = 4'hf;
    cur_dw = beat_q[32*lane_q +: 32];
  end

  always_comb begin
    state_d        = state_q;
    beat_d         = beat_q;
    lane_d         = lane_q;
    dw_left_d      = dw_left_q;
    dw_count_d     = dw_count_q;
    dw_idx_d       = dw_idx_q;
    addr_d         = addr_q;
    first_be_d     = first_be_q;
    last_be_d      = last_be_q;
    first_d        = first_q;
    requester_id_d = requester_id_q;
    tag_d          = tag_q;
    function_d     = function_q;
    tc_d           = tc_q;
    attr_d         = attr_q;
    status_d       = status_q;
    lower_addr_d   = lower_addr_q;
    byte_count_d   = byte_count_q;
    with_data_d    = with_data_q;
    cpl_after_d    = cpl_after_q;
    rd_data_d      = rd_data_q;
    aw_done_d      = aw_done_q;
    w_done_d       = w_done_q;
    cq_tready_o    = 1'b0;
    advance        = 1'b0;

    unique case (state_q)
      StIdle: begin
        cq_tready_o = 1'b1;
        if (cq_tvalid_i) begin
          beat_d         = cq_tdata_i;
          lane_d         = 3'd4;
          dw_count_d     = d_dw_count;
          dw_left_d      = (d_dw_count == 11'd0) ? 11'd1024 : d_dw_count;  // 0 means 1024
          dw_idx_d       = 4'd0;
          addr_d         = d_addr[AddrWidth-1:2];
          first_be_d     = d_first_be;
          last_be_d      = (d_dw_count == 11'd1) ? d_first_be : d_last_be;
          first_d        = 1'b1;
          requester_id_d = d_requester_id;
          tag_d          = d_tag;
          function_d     = d_function;
          tc_d           = d_tc;
          attr_d         = d_attr;
          status_d       = CplSc;
          with_data_d    = 1'b0;
          lower_addr_d   = 7'd0;
          byte_count_d   = 13'd4;
          aw_done_d      = 1'b0;
          w_done_d       = 1'b0;
          if (!d_supported) begin
            status_d    = CplUr;
            cpl_after_d = !d_posted;
            if (d_req_type == ReqMemRead) begin
              lower_addr_d = {d_addr[6:2], first_byte(d_first_be)};
              byte_count_d = read_byte_count(d_dw_count, d_first_be, d_last_be[3:1]);
            end
            state_d = cq_tlast_i ? (!d_posted ? StCpl0 : StIdle) : StDrain;
          end else if (d_req_type == ReqMemWrite) begin
            state_d = StWrite;
          end else begin
            // a read: its data completion (or Completer Abort if too long)
            lower_addr_d = {d_addr[6:2], first_byte(d_first_be)};
            byte_count_d = read_byte_count(d_dw_count, d_first_be, d_last_be[3:1]);
            if (d_dw_count == 11'd0 || d_dw_count > 11'(MaxReadDw)) begin
              status_d    = CplCa;
              cpl_after_d = 1'b1;
              state_d     = cq_tlast_i ? StCpl0 : StDrain;
            end else begin
              state_d = StRead;
            end
          end
        end
      end

      StWrite: begin
        if (cur_be == 4'h0) begin
          advance = 1'b1;  // nothing enabled in this DWORD: no AXI-Lite write
        end else begin
          if (m_axil_awready_i) aw_done_d = 1'b1;
          if (m_axil_wready_i) w_done_d = 1'b1;
          if (aw_done_d && w_done_d) state_d = StWriteB;
        end
      end

      StWriteB: begin
        if (m_axil_bvalid_i) advance = 1'b1;
      end

      StNextBeat: begin
        cq_tready_o = 1'b1;
        if (cq_tvalid_i) begin
          beat_d  = cq_tdata_i;
          state_d = StWrite;
        end
      end

      StRead: begin
        if (m_axil_arready_i) state_d = StReadR;
      end

      StReadR: begin
        if (m_axil_rvalid_i) begin
          for (int w = 0; w < 8; w++) begin      // a constant slice per DWORD (Yosys: no shifter)
            if (dw_idx_q[2:0] == 3'(w)) rd_data_d[32*w +: 32] = m_axil_rdata_i;
          end
          if (m_axil_rresp_i != 2'b00) status_d = CplCa;
          dw_idx_d  = dw_idx_q + 4'd1;
          addr_d    = addr_q + 1'b1;
          dw_left_d = dw_left_q - 11'd1;
          if (dw_left_q == 11'd1) begin
            state_d     = StCpl0;
            with_data_d = status_d == CplSc;
          end else begin
            state_d = StRead;
          end
        end
      end

      StDrain: begin
        cq_tready_o = 1'b1;
        if (cq_tvalid_i && cq_tlast_i) state_d = cpl_after_q ? StCpl0 : StIdle;
      end

      StCpl0: begin
        if (cc_tready_i) state_d = (with_data_q && dw_count_q > 11'd5) ? StCpl1 : StIdle;
      end

      StCpl1: begin
        if (cc_tready_i) state_d = StIdle;
      end

      default: state_d = StIdle;
    endcase

    // the next payload DWORD of a write (from the next beat after lane 7)
    if (advance) begin
      aw_done_d = 1'b0;
      w_done_d  = 1'b0;
      first_d   = 1'b0;
      addr_d    = addr_q + 1'b1;
      dw_left_d = dw_left_q - 11'd1;
      lane_d    = lane_q + 3'd1;
      if (dw_left_q == 11'd1) state_d = StIdle;
      else if (lane_q == 3'd7) state_d = StNextBeat;
      else state_d = StWrite;
    end
  end

  // ---- AXI-Lite ----
  assign m_axil_awaddr_o  = {addr_q, 2'b00};
  assign m_axil_awvalid_o = state_q == StWrite && cur_be != 4'h0 && !aw_done_q;
  assign m_axil_wdata_o   = cur_dw;
  assign m_axil_wstrb_o   = cur_be;
  assign m_axil_wvalid_o  = state_q == StWrite && cur_be != 4'h0 && !w_done_q;
  assign m_axil_bready_o  = state_q == StWriteB;
  assign m_axil_araddr_o  = {addr_q, 2'b00};
  assign m_axil_arvalid_o = state_q == StRead;
  assign m_axil_rready_o  = state_q == StReadR;

  // ---- completion ----
  logic [95:0] cc_desc;
  logic [10:0] cc_dw_count;
  always_comb begin
    cc_dw_count = with_data_q ? dw_count_q : 11'd0;
    cc_desc = {1'b0, attr_q, tc_q, 1'b0, cfg_bus_number_i, 5'd0, function_q[2:0], tag_q,   // DW2
               requester_id_q, 2'b00, status_q, cc_dw_count,                               // DW1
               3'b000, byte_count_q, 6'd0, 2'b00, 1'b0, lower_addr_q};                    // DW0
    if (state_q == StCpl1) begin
      cc_tdata_o = {160'd0, rd_data_q[255:160]};
      cc_tkeep_o = 8'hff >> (8 - (dw_count_q - 11'd5));
      cc_tlast_o = 1'b1;
    end else begin
      cc_tdata_o = {rd_data_q[159:0], cc_desc};
      if (with_data_q && dw_count_q < 11'd5) cc_tkeep_o = 8'hff >> (5 - dw_count_q);
      else if (with_data_q) cc_tkeep_o = 8'hff;
      else cc_tkeep_o = 8'h07;
      cc_tlast_o = !(with_data_q && dw_count_q > 11'd5);
    end
  end
  assign cc_tvalid_o = state_q == StCpl0 || state_q == StCpl1;
  assign cc_tuser_o  = 33'd0;
  // one non-posted request at a time: ask for the next when idle
  assign cq_np_req_o = {1'b0, state_q == StIdle};

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q   <= StIdle;
      aw_done_q <= 1'b0;
      w_done_q  <= 1'b0;
    end else begin
      state_q   <= state_d;
      aw_done_q <= aw_done_d;
      w_done_q  <= w_done_d;
    end
  end

  always_ff @(posedge clk_i) begin
    beat_q         <= beat_d;
    lane_q         <= lane_d;
    dw_left_q      <= dw_left_d;
    dw_count_q     <= dw_count_d;
    dw_idx_q       <= dw_idx_d;
    addr_q         <= addr_d;
    first_be_q     <= first_be_d;
    last_be_q      <= last_be_d;
    first_q        <= first_d;
    requester_id_q <= requester_id_d;
    tag_q          <= tag_d;
    function_q     <= function_d;
    tc_q           <= tc_d;
    attr_q         <= attr_d;
    status_q       <= status_d;
    lower_addr_q   <= lower_addr_d;
    byte_count_q   <= byte_count_d;
    with_data_q    <= with_data_d;
    cpl_after_q    <= cpl_after_d;
    rd_data_q      <= rd_data_d;
  end

  // descriptor and tkeep bits this module does not need (address above BAR0, AT, aperture,
  // per-byte enables, parity, discontinue): the hard block checks them
  logic unused_cq;
  assign unused_cq = ^{cq_tdata_i[1:0], cq_tdata_i[127], cq_tdata_i[120:115], cq_tkeep_i,
                       cq_tuser_i[87:8], d_addr[63:AddrWidth], d_addr[1:0],
                       m_axil_bresp_i, function_q[7:3]};

`ifndef SYNTHESIS
  a_cc_stable: assert property (@(posedge clk_i) disable iff (rst_i)
    cc_tvalid_o && !cc_tready_i |=> cc_tvalid_o && $stable(cc_tdata_o) && $stable(cc_tkeep_o));
`endif

endmodule
