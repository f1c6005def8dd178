`default_nettype none
// nic_mr_table: the MR/MW table and the MTT (memory translation table).
//
// MRs and MWs share NumMrs entries; a token is {index[31:8], key[7:0]}. Each entry has
//   - a state (FREE / INVALID / VALID), in flops: every reader sees it current, and both the
//     slow-path commands and nic_mem_op write it (a command wins a same-cycle clash);
//   - init fields from MR_INIT (pd, is_mw, remote_access_ok, max_pages, mtt_offset), in RAM,
//     written only by commands;
//   - registration fields (key, base_va, length, byte_off, access, mtt_base, parent), in RAM,
//     written only by nic_mem_op (FastRegister for an MR, Bind for an MW).
// An entry's pages are MTT[mtt_base + ((va - base_va + byte_off) >> 12)]. For an MR,
// mtt_base = mtt_offset and byte_off = the first-byte offset; a bound MW copies its parent MR's
// mtt_base and stores the offset of its own first byte within the parent's pages, so MRs and MWs
// translate the same way. The MTT holds page frame numbers (address >> 12).
//
// Read ports (RAM latency one cycle, so each is "present an index with re, use the data from the
// next cycle on"): the data is kept current with later writes to the same entry (the RAMs
// forward), so a reader may hold an entry across stall cycles.
//   A: nic_mem_op's token (FastRegister / Bind MR / Invalidate): all fields, and the entry's
//      state (a_state_o: a register kept current with every state write, as the RAM data are).
//   B: nic_mem_op's Bind MW: pd and is_mw, and the entry's state (b_state_o, as a_state_o).
//   xl: translation for the transport (RDMA Read/Write/Send data placement), a two-stage
//       pipeline, one request per cycle: a request {token, va, len, pd, needed access, tag} gives
//       {status, pfn, page offset, the same tag} XlLatency cycles later, the tag naming the asker
//       (nic_xl_arb routes the answer by it, so no client counts the latency); the answer's
//       status, pfn and offset are of the page holding va: ACCESS_VIOLATION unless the token is
//       VALID with that key and pd,
//       grants the access, [va, va + len) lies inside it and, for an MW, its parent MR is VALID.
//       A request of length 0 is checked as [va, va + 1): the answer names the page holding va,
//       which must be one of the entry's (else, at the entry's end, it would be the next entry's
//       page or lie past the MTT). The transport never asks for length 0 (a zero-length SGE,
//       Write or Read names no memory and is not translated).
//       A transfer that spans pages asks once per page.
//       With xl_inv_i the request is a remote invalidation (SendAndInvalidate at the responder):
//       va, len and the access are ignored; SUCCESS, and the entry becomes INVALID, when the
//       token is VALID with that key and pd. Exactly one of two invalidations of one entry
//       wins: if nic_mem_op writes that entry in the cycle of the check, the remote one fails.
//
// Commands (one-cycle pulses from nic_csr, applied in that cycle; an index >= NumMrs is ignored):
// MR_INIT (arguments cmd_mr_init_t): state := INVALID, the init fields written; MR_FREE:
// state := FREE.
module nic_mr_table #(
  parameter int NumMrs     = 256,   // table entries, 2..65535
  parameter int MttEntries = 1024,  // MTT entries (4 KiB pages), 2..65535
  parameter int XlTagW     = 1      // bits of a translation request's tag
) (
  input  logic                      clk_i,
  input  logic                      rst_i,
  // slow-path commands
  input  logic                      cmd_valid_i,
  input  logic [7:0]                cmd_op_i,
  input  logic [15:0]               cmd_index_i,
  input  logic [255:0]              cmd_args_i,
  // every entry's state (nic_pkg::MR_STATE_*), entry n in [2n+1:2n]
  output logic [2*NumMrs-1:0]       state_o,
  // a command (MR_INIT / MR_FREE) writes entry cmd_wr_idx_o this cycle (for nic_mem_op)
  output logic                      cmd_wr_o,
  output logic [$clog2(NumMrs)-1:0] cmd_wr_idx_o,
  // a remote invalidation may write entry inv_wr_idx_o's state this cycle (for nic_mem_op: it
  // does unless nic_mem_op writes that entry in this cycle)
  output logic                      inv_wr_o,
  output logic [$clog2(NumMrs)-1:0] inv_wr_idx_o,
  // read port A
  input  logic                      a_re_i,
  input  logic [$clog2(NumMrs)-1:0] a_idx_i,
  output logic [15:0]               a_pd_o,
  output logic                      a_is_mw_o,
  output logic                      a_remote_ok_o,
  output logic [31:0]               a_max_pages_o,
  output logic [31:0]               a_mtt_offset_o,
  output logic [7:0]                a_key_o,
  output logic [63:0]               a_base_va_o,
  output logic [63:0]               a_length_o,
  output logic [63:0]               a_byte_off_o,
  output logic [15:0]               a_access_o,
  output logic [$clog2(MttEntries)-1:0] a_mtt_base_o,
  output logic [1:0]                a_state_o,      // state_o's entry a_idx_i (as read)
  // read port B
  input  logic                      b_re_i,
  input  logic [$clog2(NumMrs)-1:0] b_idx_i,
  output logic [15:0]               b_pd_o,
  output logic                      b_is_mw_o,
  output logic [1:0]                b_state_o,
  // nic_mem_op's write port: state, and with wr_reg_i the registration fields
  input  logic                      wr_i,
  input  logic [$clog2(NumMrs)-1:0] wr_idx_i,
  input  logic [1:0]                wr_state_i,
  input  logic                      wr_reg_i,
  input  logic [7:0]                wr_key_i,
  input  logic [63:0]               wr_base_va_i,
  input  logic [63:0]               wr_length_i,
  input  logic [63:0]               wr_byte_off_i,
  input  logic [15:0]               wr_access_i,
  input  logic [$clog2(MttEntries)-1:0] wr_mtt_base_i,
  input  logic [$clog2(NumMrs)-1:0] wr_parent_i,
  // MTT write port (FastRegister page lists)
  input  logic                      mtt_we_i,
  input  logic [$clog2(MttEntries)-1:0] mtt_idx_i,
  input  logic [51:0]               mtt_pfn_i,
  // translation port (two-cycle latency, one request per cycle)
  input  logic                      xl_valid_i,
  input  logic [31:0]               xl_token_i,
  input  logic [63:0]               xl_va_i,
  input  logic [31:0]               xl_len_i,
  input  logic [15:0]               xl_pd_i,
  input  logic [15:0]               xl_access_i,        // nic_pkg::FLAG_ALLOW_* bits needed
  input  logic                      xl_inv_i,           // invalidate the token instead
  input  logic [XlTagW-1:0]         xl_tag_i,           // who asks (returned with the answer)
  output logic                      xl_valid_o,
  output logic [XlTagW-1:0]         xl_tag_o,
  output logic [31:0]               xl_status_o,        // SUCCESS or ACCESS_VIOLATION
  output logic [51:0]               xl_pfn_o,           // page frame of va (0 unless SUCCESS)
  output logic [11:0]               xl_page_off_o       // va's offset in that page
);

  localparam int MrW   = $clog2(NumMrs);
  localparam int MttAW = $clog2(MttEntries);
  localparam logic [15:0] AccessMask = nic_pkg::FLAG_ALLOW_REMOTE_READ |
                                       nic_pkg::FLAG_ALLOW_LOCAL_WRITE |
                                       nic_pkg::FLAG_ALLOW_REMOTE_WRITE;

  if (NumMrs < 2 || NumMrs > 65535) begin : gen_bad_mrs
    $fatal(1, "nic_mr_table: NumMrs must be 2..65535 (a table index of the 16-bit CMD index)");
  end
  if (MttEntries < 2 || MttEntries > 65535) begin : gen_bad_mtt
    $fatal(1, "nic_mr_table: MttEntries must be 2..65535");
  end
  if (XlTagW < 1) begin : gen_bad_tag
    $fatal(1, "nic_mr_table: XlTagW must be at least 1");
  end

  // ---- commands -------------------------------------------------------------------------------
  nic_pkg::cmd_mr_init_t init_args;
  logic                  cmd_mr, mr_init, mr_free;
  logic [MrW-1:0]        cmd_idx;
  logic [15:0]           init_pd;
  logic [31:0]           init_max_pages, init_mtt_offset;
  logic                  init_is_mw, init_remote_ok;

  assign init_args         = cmd_args_i;
  assign cmd_mr            = cmd_valid_i && 32'(cmd_index_i) < NumMrs;
  assign mr_init            = cmd_mr && cmd_op_i == nic_pkg::CMD_MR_INIT;
  assign mr_free            = cmd_mr && cmd_op_i == nic_pkg::CMD_MR_FREE;
  assign cmd_idx         = cmd_index_i[MrW-1:0];
  assign init_pd         = init_args.pd;
  assign init_max_pages  = init_args.max_pages;
  assign init_mtt_offset = init_args.mtt_offset;
  assign init_is_mw      = init_args.is_mw;
  assign init_remote_ok  = init_args.remote_access_ok;

  logic unused_init_args;               // the other commands' arguments
  assign unused_init_args = ^{init_args.rsvd_98, init_args.rsvd_16};

  // ---- word layouts ---------------------------------------------------------------------------
  // The RAMs keep only what the checks can tell apart (block RAM is the scarce resource):
  // - max_pages and mtt_offset at most MttEntries (PgW bits): nic_mem_op's only use is
  //   page_count <= max_pages && mtt_offset + page_count <= MttEntries with 0 < page_count, which
  //   is the same with both clamped to MttEntries; its page list is loaded only when that holds,
  //   so the mtt_offset it loads at is below MttEntries, unclamped.
  // - length and byte_off in LenW bits: an MR's length is at most page_count * 4 KiB - fbo
  //   (page_count <= MttEntries) and its byte_off is fbo < 4 KiB; an MW's length and byte_off lie
  //   within its parent MR's length + fbo (the Bind's range check). Both are below
  //   MttEntries * 4 KiB <= 2^(MttAW + 12) (a_wr_fits).
  // - access: the three bits nic_mem_op keeps (AccessMask, FLAG_ALLOW_* bits 5:3).
  // init word: {mtt_offset, max_pages, remote_ok, is_mw, pd}; id word: {is_mw, pd}
  localparam int PgW   = $clog2(MttEntries + 1);
  localparam int LenW  = MttAW + 13;
  localparam int InitW = 16 + 1 + 1 + PgW + PgW;
  localparam int IdW   = 16 + 1;
  // registration word: {parent, mtt_base, access, byte_off, length, base_va, key}; port A's
  // copy without the parent (nic_mem_op never needs it)
  localparam int OffLen = 72;                // the fields' offsets in the word
  localparam int OffOff = OffLen + LenW;
  localparam int OffAcc = OffOff + LenW;
  localparam int OffMtt = OffAcc + 3;
  localparam int OffPar = OffMtt + MttAW;
  localparam int RegAW = OffPar;
  localparam int RegW  = OffPar + MrW;
  localparam logic [15:0] AccessBits = 16'h0038;   // AccessMask's bits, 5:3
  if (AccessMask != AccessBits) begin : gen_bad_access_bits
    $fatal(1, "nic_mr_table: the access flags moved; AccessBits must follow AccessMask");
  end

  logic [InitW-1:0] init_wdata, a_init;
  logic [IdW-1:0]   id_wdata, b_id, xl_id;
  logic [RegW-1:0]  reg_wdata, xl_reg;
  logic [RegAW-1:0] a_reg;
  logic             reg_we;

  // min(v, MttEntries)
  function automatic logic [PgW-1:0] pages_clamped(input logic [31:0] v);
    pages_clamped = (v > 32'(MttEntries)) ? PgW'(MttEntries) : PgW'(v);
  endfunction

  assign init_wdata = {pages_clamped(init_mtt_offset), pages_clamped(init_max_pages),
                       init_remote_ok, init_is_mw, init_pd};
  assign id_wdata   = {init_is_mw, init_pd};
  assign reg_we     = wr_i && wr_reg_i;
  assign reg_wdata  = {wr_parent_i, wr_mtt_base_i, wr_access_i[5:3], wr_byte_off_i[LenW-1:0],
                       wr_length_i[LenW-1:0], wr_base_va_i, wr_key_i};
  logic unused_wr_bits;                 // zero in every write (a_wr_fits)
  assign unused_wr_bits = ^{wr_length_i[63:LenW], wr_byte_off_i[63:LenW], wr_access_i[15:6],
                            wr_access_i[2:0]};

  // ---- entry states ---------------------------------------------------------------------------
  // One vector of flops (it needs a reset and every reader sees it current), written like a RAM:
  // only the entry a write names changes, nothing is evaluated per entry in other cycles. The
  // commands win a same-cycle clash on one entry; a remote invalidation never writes the entry
  // nic_mem_op writes in its cycle (see x1_inv_ok), so the state writes take the invalidation
  // without that clash term (x1_inv_pre) behind nic_mem_op's write: the same next state, and
  // nic_mem_op's write (late in the cycle: the dispatcher's decision) does not pass through
  // the invalidation's check on its way into the states.
  logic [2*NumMrs-1:0] state_q;
  logic                x1_inv_pre;
  logic [MrW-1:0]      x1_inv_idx;

  // Each writer's index decoded once, as the AND of a decoded high half and a decoded low half
  // (shared by the entries; a comparison per entry and writer costs several LUTs each).
  localparam int DecW = (MrW < 2) ? 2 : MrW;   // the indices widened to have two halves
  localparam int LoW  = DecW / 2;
  localparam int HiW  = DecW - LoW;
  logic [DecW-1:0]   wr_dec_idx, inv_dec_idx, cmd_dec_idx;
  logic [2**LoW-1:0] wr_lo, inv_lo, cmd_lo;
  logic [2**HiW-1:0] wr_hi, inv_hi, cmd_hi;
  always_comb begin
    wr_dec_idx  = DecW'(wr_idx_i);
    inv_dec_idx = DecW'(x1_inv_idx);
    cmd_dec_idx = DecW'(cmd_idx);
    for (int i = 0; i < 2**LoW; i++) begin
      wr_lo[i]  = wr_dec_idx[LoW-1:0] == LoW'(i);
      inv_lo[i] = inv_dec_idx[LoW-1:0] == LoW'(i);
      cmd_lo[i] = cmd_dec_idx[LoW-1:0] == LoW'(i);
    end
    for (int i = 0; i < 2**HiW; i++) begin
      wr_hi[i]  = wr_i && wr_dec_idx[DecW-1:LoW] == HiW'(i);
      inv_hi[i] = x1_inv_pre && inv_dec_idx[DecW-1:LoW] == HiW'(i);
      cmd_hi[i] = (mr_init || mr_free) && cmd_dec_idx[DecW-1:LoW] == HiW'(i);
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= {NumMrs{nic_pkg::MR_STATE_FREE}};
    end else begin
      // One constant slice per entry, enabled by the decoded indices: a write at a computed
      // offset (state_q[2*wr_idx_i +: 2]) is a shifter of the whole vector in Yosys 0.23.
      for (int e = 0; e < NumMrs; e++) begin
        if (cmd_lo[e % (2**LoW)] && cmd_hi[e / (2**LoW)]) begin
          state_q[2*e +: 2] <= mr_init ? nic_pkg::MR_STATE_INVALID : nic_pkg::MR_STATE_FREE;
        end else if (wr_lo[e % (2**LoW)] && wr_hi[e / (2**LoW)]) begin
          state_q[2*e +: 2] <= wr_state_i;
        end else if (inv_lo[e % (2**LoW)] && inv_hi[e / (2**LoW)]) begin
          state_q[2*e +: 2] <= nic_pkg::MR_STATE_INVALID;
        end
      end
    end
  end

  assign state_o      = state_q;

  // Bit 1 of each state: VALID is the only state with it set (no entry is ever in state 3, see
  // a_wr_state_known), so a reader that asks only "VALID?" reads one bit per entry.
  logic [NumMrs-1:0] state_valid;
  always_comb begin
    for (int e = 0; e < NumMrs; e++) begin
      state_valid[e] = state_q[2*e+1];
    end
  end
  assign cmd_wr_o     = mr_init || mr_free;
  assign cmd_wr_idx_o = cmd_idx;

  // ---- the states of ports A and B's entries ------------------------------------------------------
  // Registers that hold state_q's entry of the index last read on port A (B), updated by the same
  // writes in the same priority: equal to state_q[2*held +: 2] in every cycle
  // (a_held_state_current), without a 2*NumMrs-to-2 mux after the reader's index. Each write's
  // hit compares its index with both candidates of the held index, so the compares do not wait
  // for the read enable (a_re_i is the dispatcher's take, late in its cycle).
  logic [MrW-1:0] a_held_q, a_held_d, b_held_q, b_held_d;
  logic [1:0]     a_st_q, a_st_d, b_st_q, b_st_d;

  function automatic logic [1:0] held_state_next(
      input logic re, input logic [MrW-1:0] raddr, input logic [MrW-1:0] held,
      input logic [1:0] now, input logic [2*NumMrs-1:0] states,
      input logic cmd_w, input logic cmd_init, input logic [MrW-1:0] cmd_i,
      input logic inv_w, input logic [MrW-1:0] inv_i,
      input logic wr_w, input logic [MrW-1:0] wr_ix, input logic [1:0] wr_st);
    logic cmd_hit, inv_hit, wr_hit;
    cmd_hit = cmd_w && (re ? cmd_i == raddr : cmd_i == held);
    inv_hit = inv_w && (re ? inv_i == raddr : inv_i == held);
    wr_hit  = wr_w && (re ? wr_ix == raddr : wr_ix == held);
    if (cmd_hit) begin
      held_state_next = cmd_init ? nic_pkg::MR_STATE_INVALID : nic_pkg::MR_STATE_FREE;
    end else if (wr_hit) begin
      held_state_next = wr_st;
    end else if (inv_hit) begin
      held_state_next = nic_pkg::MR_STATE_INVALID;
    end else if (re) begin
      held_state_next = states[2*raddr +: 2];
    end else begin
      held_state_next = now;
    end
  endfunction

  always_comb begin
    a_held_d = a_re_i ? a_idx_i : a_held_q;
    b_held_d = b_re_i ? b_idx_i : b_held_q;
    a_st_d   = held_state_next(a_re_i, a_idx_i, a_held_q, a_st_q, state_q, mr_init || mr_free,
                               mr_init, cmd_idx, x1_inv_pre, x1_inv_idx, wr_i, wr_idx_i, wr_state_i);
    b_st_d   = held_state_next(b_re_i, b_idx_i, b_held_q, b_st_q, state_q, mr_init || mr_free,
                               mr_init, cmd_idx, x1_inv_pre, x1_inv_idx, wr_i, wr_idx_i, wr_state_i);
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      a_held_q <= '0;
      b_held_q <= '0;
      a_st_q   <= nic_pkg::MR_STATE_FREE;
      b_st_q   <= nic_pkg::MR_STATE_FREE;
    end else begin
      a_held_q <= a_held_d;
      b_held_q <= b_held_d;
      a_st_q   <= a_st_d;
      b_st_q   <= b_st_d;
    end
  end

  assign a_state_o = a_st_q;
  assign b_state_o = b_st_q;

  // ---- RAMs: one copy per read port -------------------------------------------------------------
  nic_ram_1r1w #(.Width(InitW), .Depth(NumMrs), .Forward(1'b1)) u_init_a (
    .clk_i (clk_i), .rst_i (rst_i),
    .we_i (mr_init), .waddr_i (cmd_idx), .wdata_i (init_wdata),
    .re_i (a_re_i), .raddr_i (a_idx_i), .rdata_o (a_init)
  );
  nic_ram_1r1w #(.Width(IdW), .Depth(NumMrs), .Forward(1'b1)) u_id_b (
    .clk_i (clk_i), .rst_i (rst_i),
    .we_i (mr_init), .waddr_i (cmd_idx), .wdata_i (id_wdata),
    .re_i (b_re_i), .raddr_i (b_idx_i), .rdata_o (b_id)
  );
  nic_ram_1r1w #(.Width(RegAW), .Depth(NumMrs), .Forward(1'b1)) u_reg_a (
    .clk_i (clk_i), .rst_i (rst_i),
    .we_i (reg_we), .waddr_i (wr_idx_i), .wdata_i (reg_wdata[RegAW-1:0]),
    .re_i (a_re_i), .raddr_i (a_idx_i), .rdata_o (a_reg)
  );

  assign a_pd_o         = a_init[15:0];
  assign a_is_mw_o      = a_init[16];
  assign a_remote_ok_o  = a_init[17];
  assign a_max_pages_o  = 32'(a_init[18 +: PgW]);
  assign a_mtt_offset_o = 32'(a_init[18+PgW +: PgW]);
  assign a_key_o        = a_reg[7:0];
  assign a_base_va_o    = a_reg[71:8];
  assign a_length_o     = 64'(a_reg[OffLen +: LenW]);
  assign a_byte_off_o   = 64'(a_reg[OffOff +: LenW]);
  assign a_access_o     = {10'd0, a_reg[OffAcc +: 3], 3'd0};
  assign a_mtt_base_o   = a_reg[OffMtt +: MttAW];
  assign b_pd_o         = b_id[15:0];
  assign b_is_mw_o      = b_id[16];

  // ---- translation port -----------------------------------------------------------------------
  // stage 0: read the entry; stage 1: check it and read the MTT; stage 2: answer.
  logic             x1_valid_q, x1_valid_d;
  logic [31:0]      x1_token_q, x1_token_d;
  logic [63:0]      x1_va_q, x1_va_d;
  logic [31:0]      x1_len_q, x1_len_d;
  logic [15:0]      x1_pd_q, x1_pd_d;
  logic [15:0]      x1_access_q, x1_access_d;
  logic             x1_inv_q, x1_inv_d;
  logic [XlTagW-1:0] x1_tag_q, x1_tag_d, x2_tag_q, x2_tag_d;
  logic             x2_valid_q, x2_valid_d;
  logic             x2_ok_q, x2_ok_d;
  logic [11:0]      x2_page_off_q, x2_page_off_d;
  logic [51:0]      mtt_rdata;
  nic_pkg::token_t  xl_tok, x1_tok;     // the tokens of stage 0 and stage 1

  assign xl_tok = xl_token_i;
  assign x1_tok = x1_token_q;
  logic  unused_xl_tok;                 // stage 0 reads the entry; stage 1 checks the whole token
  assign unused_xl_tok = ^xl_tok;

  nic_ram_1r1w #(.Width(IdW), .Depth(NumMrs), .Forward(1'b1)) u_id_xl (
    .clk_i (clk_i), .rst_i (rst_i),
    .we_i (mr_init), .waddr_i (cmd_idx), .wdata_i (id_wdata),
    .re_i (xl_valid_i), .raddr_i (xl_tok.index[MrW-1:0]), .rdata_o (xl_id)
  );
  nic_ram_1r1w #(.Width(RegW), .Depth(NumMrs), .Forward(1'b1)) u_reg_xl (
    .clk_i (clk_i), .rst_i (rst_i),
    .we_i (reg_we), .waddr_i (wr_idx_i), .wdata_i (reg_wdata),
    .re_i (xl_valid_i), .raddr_i (xl_tok.index[MrW-1:0]), .rdata_o (xl_reg)
  );

  logic             x1_in_range, x1_entry_ok, x1_access_ok, x1_range_ok, x1_parent_ok, x1_ok;
  logic             x1_inv_ok;
  logic             x1_valid, x1_parent_valid;   // the entry / its parent is VALID
  logic [MrW-1:0]   x1_idx, x1_parent;
  logic [63:0]      x1_base_va, x1_length, x1_byte_off, x1_off;
  logic [31:0]      x1_span;            // the length checked: len, or 1 for a length of 0
  logic [15:0]      x1_entry_access;
  logic [MttAW-1:0] x1_mtt_base, x1_mtt_idx;

  // Evaluated only while a request is in stage 1 (its only use: the port idles otherwise).
  always_comb begin
    x1_idx          = x1_tok.index[MrW-1:0];
    x1_in_range     = 1'b0;
    x1_valid        = 1'b0;
    x1_base_va      = '0;
    x1_length       = '0;
    x1_byte_off     = '0;
    x1_entry_access = '0;
    x1_mtt_base     = '0;
    x1_parent       = '0;
    x1_parent_valid = 1'b0;
    x1_entry_ok     = 1'b0;
    x1_access_ok    = 1'b0;
    x1_range_ok     = 1'b0;
    x1_parent_ok    = 1'b0;
    x1_ok           = 1'b0;
    x1_inv_ok       = 1'b0;
    x1_off          = '0;
    x1_mtt_idx      = '0;
    x1_span         = '0;
    if (x1_valid_q) begin
      x1_in_range     = 32'(x1_tok.index) < NumMrs;
      x1_valid        = x1_in_range && state_valid[x1_idx];
      x1_base_va      = xl_reg[71:8];
      x1_length       = 64'(xl_reg[OffLen +: LenW]);
      x1_byte_off     = 64'(xl_reg[OffOff +: LenW]);
      x1_entry_access = {10'd0, xl_reg[OffAcc +: 3], 3'd0};
      x1_mtt_base     = xl_reg[OffMtt +: MttAW];
      x1_parent       = xl_reg[OffPar +: MrW];
      x1_parent_valid = state_valid[x1_parent];
      x1_entry_ok     = x1_valid &&
                        xl_reg[7:0] == x1_tok.key && xl_id[15:0] == x1_pd_q;
      x1_access_ok    = (x1_access_q & AccessMask & ~x1_entry_access) == '0;
      // a request of length 0 is checked as one byte: the page holding va must be the entry's
      x1_span         = x1_len_q | {31'd0, x1_len_q == '0};
      x1_range_ok     = {1'b0, x1_va_q} >= {1'b0, x1_base_va} &&
                        {1'b0, x1_va_q} + 65'(x1_span) <= {1'b0, x1_base_va} + {1'b0, x1_length};
      x1_parent_ok    = !xl_id[16] || x1_parent_valid;
      x1_inv_ok       = x1_entry_ok && !(wr_i && wr_idx_i == x1_idx);
      x1_ok           = x1_inv_q ? x1_inv_ok
                                 : x1_entry_ok && x1_access_ok && x1_range_ok && x1_parent_ok;
      x1_off          = x1_va_q - x1_base_va + x1_byte_off;
      x1_mtt_idx      = x1_mtt_base + MttAW'(x1_off >> 12);
    end
  end

  // A remote invalidation that succeeds (x1_inv_ok) writes its entry INVALID; the state writes
  // take it without x1_inv_ok's clash term (they order nic_mem_op's write first instead).
  assign x1_inv_pre   = x1_valid_q && x1_inv_q && x1_entry_ok;
  assign x1_inv_idx   = x1_idx;
  assign inv_wr_o     = x1_inv_pre;
  assign inv_wr_idx_o = x1_inv_idx;

  always_comb begin
    x1_valid_d    = xl_valid_i;
    x1_token_d    = xl_valid_i ? xl_token_i : x1_token_q;
    x1_va_d       = xl_valid_i ? xl_va_i : x1_va_q;
    x1_len_d      = xl_valid_i ? xl_len_i : x1_len_q;
    x1_pd_d       = xl_valid_i ? xl_pd_i : x1_pd_q;
    x1_access_d   = xl_valid_i ? xl_access_i : x1_access_q;
    x1_inv_d      = xl_valid_i ? xl_inv_i : x1_inv_q;
    x1_tag_d      = xl_valid_i ? xl_tag_i : x1_tag_q;
    x2_tag_d      = x1_valid_q ? x1_tag_q : x2_tag_q;
    x2_valid_d    = x1_valid_q;
    x2_ok_d       = x1_valid_q ? x1_ok : x2_ok_q;
    x2_page_off_d = x1_valid_q ? x1_off[11:0] : x2_page_off_q;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      x1_valid_q    <= 1'b0;
      x1_token_q    <= '0;
      x1_va_q       <= '0;
      x1_len_q      <= '0;
      x1_pd_q       <= '0;
      x1_access_q   <= '0;
      x1_inv_q      <= 1'b0;
      x1_tag_q      <= '0;
      x2_tag_q      <= '0;
      x2_valid_q    <= 1'b0;
      x2_ok_q       <= 1'b0;
      x2_page_off_q <= '0;
    end else begin
      x1_valid_q    <= x1_valid_d;
      x1_token_q    <= x1_token_d;
      x1_va_q       <= x1_va_d;
      x1_len_q      <= x1_len_d;
      x1_pd_q       <= x1_pd_d;
      x1_access_q   <= x1_access_d;
      x1_inv_q      <= x1_inv_d;
      x1_tag_q      <= x1_tag_d;
      x2_tag_q      <= x2_tag_d;
      x2_valid_q    <= x2_valid_d;
      x2_ok_q       <= x2_ok_d;
      x2_page_off_q <= x2_page_off_d;
    end
  end

  // The MTT: written by FastRegister page-list loads, read by translation. A page-list load only
  // writes entries of an MR that is not VALID, which translation never reads: no forwarding.
  nic_ram_1r1w #(.Width(52), .Depth(MttEntries), .Forward(1'b0)) u_mtt (
    .clk_i (clk_i), .rst_i (rst_i),
    .we_i (mtt_we_i), .waddr_i (mtt_idx_i), .wdata_i (mtt_pfn_i),
    .re_i (x1_valid_q), .raddr_i (x1_mtt_idx), .rdata_o (mtt_rdata)
  );

  assign xl_valid_o    = x2_valid_q;
  assign xl_tag_o      = x2_tag_q;
  assign xl_status_o   = x2_ok_q ? nic_pkg::STATUS_SUCCESS : nic_pkg::STATUS_ACCESS_VIOLATION;
  assign xl_pfn_o      = x2_ok_q ? mtt_rdata : '0;
  assign xl_page_off_o = x2_page_off_q;

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (mr_init || mr_free) begin
        a_cmd_idx_in_range: assert (32'(cmd_idx) < NumMrs);
      end
      if (wr_i) begin
        a_wr_idx_in_range: assert (32'(wr_idx_i) < NumMrs);
        // No entry is ever in the undefined state 3: the states change only by these writes,
        // and the commands write constants, so checking nic_mem_op's written state covers
        // every entry.
        a_wr_state_known: assert (wr_state_i != 2'd3);
      end
      if (reg_we) begin
        // What the registration RAMs keep of a write is all of it (see the word layouts).
        a_wr_fits: assert ((wr_length_i >> LenW) == '0 && (wr_byte_off_i >> LenW) == '0 &&
                           (wr_access_i & ~AccessBits) == '0);
      end
      if (mtt_we_i) begin
        a_mtt_idx_in_range: assert (32'(mtt_idx_i) < MttEntries);
      end
      // The invalidation the state writes take is the successful one, or one on the entry
      // nic_mem_op writes in that cycle (whose write then lands instead, as x1_inv_ok refuses it).
      if (x1_inv_pre && !x1_inv_ok) begin
        a_inv_clash_is_mem_op_write: assert (wr_i && wr_idx_i == x1_inv_idx);
      end
      a_held_state_current: assert (a_st_q == state_q[2*a_held_q +: 2] &&
                                    b_st_q == state_q[2*b_held_q +: 2]);
      // A successful translation's page lies in the MTT.
      if (x1_valid_q && x1_ok && !x1_inv_q) begin
        a_xl_mtt_in_range: assert (32'(x1_mtt_base) + 32'(x1_off >> 12) < MttEntries);
      end
    end
  end
`endif

endmodule
