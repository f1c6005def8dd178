`default_nettype none
// nic_mem_op: the memory operations of the send queue (FastRegister, Bind, Invalidate): their
// checks against the MR/MW table and their writes to it.
//
// Reads: when the dispatcher takes a WQE (load_i, head_wqe_i), its tokens' entries are read
// through the table's ports A (FastRegister's and Bind's MR, Invalidate's token) and B (Bind's
// MW); from the next cycle on the table data is valid and kept current by the table. The checks
// of the WQE held by the dispatcher (cur_valid_i, cur_wqe_i, its QP's PD) run on that data in
// every cycle and are registered: status_o and ok_o (its one bit "status_o is SUCCESS", what the
// dispatcher's decisions need) are the checks of the previous cycle, so no path runs from the
// table's read data through the checks into the dispatcher's decisions and the table's writes.
// ready_o says they are the held WQE's checks as the table is now: the WQE was held in the
// previous cycle too (not taken then) and nothing wrote its entries in that cycle (a command on
// port A's or, for a Bind, port B's entry, or a remote invalidation of one of them: the table's
// inv_wr; nic_mem_op's own writes come only with the WQE's finish). The dispatcher decides a
// memory operation only with ready_o: the first time in the second cycle after its take (one
// cycle later than the checks could answer unregistered), and one cycle later again for each
// cycle in which its entries were written. What the checks compute from the table for the
// writes (a Bind's window offset) is registered with them.
// What the checks select by (the opcode's kind, the token indices, port A's key) is decoded from
// the WQE being taken and registered at load_i (the `cur_*` registers below), so the state read
// and the checks start from flip-flops instead of from the opcode mux of the held WQE.
// Checks, in this order (each failure is the status):
//   FastRegister: no command (MR_INIT / MR_FREE) has written the MR's entry since the WQE was
//     taken, the MR exists, is an MR, has the QP's PD (else ACCESS_VIOLATION); it is not
//     registered (INVALID_DEVICE_STATE); 0 < page_count <= max_pages, fbo < 4096, length fits the
//     pages, the list 8-byte aligned, the MTT range inside the MTT (INVALID_PARAMETER); remote
//     access only if the MR allows it (ACCESS_VIOLATION).
//   Bind: the MR VALID with that key and PD and an MR, the MW exists with that PD and is an MW
//     (ACCESS_VIOLATION); the MW not bound (INVALID_DEVICE_STATE); the window inside the MR, and
//     remote write only on an MR with local write (ACCESS_VIOLATION).
//   Invalidate: the entry VALID with that key and PD (ACCESS_VIOLATION).
// Writes (the table's write port), when the dispatcher says the WQE succeeded:
//   exec_i: Bind (the MW becomes a window onto the MR's pages) or Invalidate (INVALID);
//   commit_i: FastRegister, once its page list is in the MTT (mtt_base_i): the MR becomes VALID.
//     The dispatcher commits on the status of the checks as they are then (they are evaluated
//     again in that cycle): an MR freed, or freed and initialised again, while its page list was
//     read fails ACCESS_VIOLATION instead of becoming VALID with the old registration.
// fr_mtt_offset_o is the MR's MTT range, where its page list goes.
module nic_mem_op #(
  parameter int NumMrs     = 256,   // MR/MW table entries, 2..65535
  parameter int MttEntries = 1024   // MTT entries, 2..65535
) (
  // the WQE being taken (table reads)
  input  logic                          load_i,
  input  logic [511:0]                  head_wqe_i,
  // the WQE held by the dispatcher, and its QP's protection domain
  input  logic                          cur_valid_i,
  input  logic [511:0]                  cur_wqe_i,
  input  logic [15:0]                   qp_pd_i,
  output logic [31:0]                   status_o,        // its checks' status (memory ops only)
  output logic                          ok_o,            // status_o == SUCCESS
  output logic                          ready_o,         // ... are the checks of the WQE now
  output logic [31:0]                   fr_mtt_offset_o, // FastRegister: the MR's MTT range
  // writes
  input  logic                          exec_i,          // Bind / Invalidate succeeded
  input  logic                          commit_i,        // FastRegister succeeded
  input  logic [$clog2(MttEntries)-1:0] mtt_base_i,      // ... with its pages from here
  input  logic                          clk_i,
  input  logic                          rst_i,
  // MR table (nic_mr_table)
  input  logic [2*NumMrs-1:0]           mr_state_i,      // every entry's state (assertions only)
  input  logic                          mr_cmd_wr_i,     // a command writes this entry now
  input  logic [$clog2(NumMrs)-1:0]     mr_cmd_wr_idx_i,
  input  logic                          mr_inv_wr_i,     // a remote invalidation writes ...
  input  logic [$clog2(NumMrs)-1:0]     mr_inv_wr_idx_i, // ... this entry's state now
  output logic                          mr_a_re_o,
  output logic [$clog2(NumMrs)-1:0]     mr_a_idx_o,
  input  logic [15:0]                   mr_a_pd_i,
  input  logic                          mr_a_is_mw_i,
  input  logic                          mr_a_remote_ok_i,
  input  logic [31:0]                   mr_a_max_pages_i,
  input  logic [31:0]                   mr_a_mtt_offset_i,
  input  logic [7:0]                    mr_a_key_i,
  input  logic [63:0]                   mr_a_base_va_i,
  input  logic [63:0]                   mr_a_length_i,
  input  logic [63:0]                   mr_a_byte_off_i,
  input  logic [15:0]                   mr_a_access_i,
  input  logic [$clog2(MttEntries)-1:0] mr_a_mtt_base_i,
  input  logic [1:0]                    mr_a_state_i,    // port A's entry's state, current
  output logic                          mr_b_re_o,
  output logic [$clog2(NumMrs)-1:0]     mr_b_idx_o,
  input  logic [15:0]                   mr_b_pd_i,
  input  logic                          mr_b_is_mw_i,
  input  logic [1:0]                    mr_b_state_i,
  output logic                          mr_wr_o,
  output logic [$clog2(NumMrs)-1:0]     mr_wr_idx_o,
  output logic [1:0]                    mr_wr_state_o,
  output logic                          mr_wr_reg_o,
  output logic [7:0]                    mr_wr_key_o,
  output logic [63:0]                   mr_wr_base_va_o,
  output logic [63:0]                   mr_wr_length_o,
  output logic [63:0]                   mr_wr_byte_off_o,
  output logic [15:0]                   mr_wr_access_o,
  output logic [$clog2(MttEntries)-1:0] mr_wr_mtt_base_o,
  output logic [$clog2(NumMrs)-1:0]     mr_wr_parent_o
);

  localparam int MrW = $clog2(NumMrs);

  // Access rights kept in an entry, and the ones that mean remote access.
  localparam logic [15:0] AccessMask = nic_pkg::FLAG_ALLOW_REMOTE_READ |
                                       nic_pkg::FLAG_ALLOW_LOCAL_WRITE |
                                       nic_pkg::FLAG_ALLOW_REMOTE_WRITE;
  localparam logic [15:0] RemoteWriteBit = nic_pkg::FLAG_ALLOW_REMOTE_WRITE &
                                           ~nic_pkg::FLAG_ALLOW_LOCAL_WRITE;
  localparam logic [15:0] RemoteMask = nic_pkg::FLAG_ALLOW_REMOTE_READ | RemoteWriteBit;

  if (NumMrs < 2 || NumMrs > 65535 || MttEntries < 2 || MttEntries > 65535) begin : gen_bad_table
    $fatal(1, "nic_mem_op: NumMrs and MttEntries must be 2..65535 (as nic_mr_table)");
  end

  // Views of the held WQE (cur) and of the WQE being taken (head) in each format.
  nic_pkg::wqe_hdr_t        hdr, head_hdr;
  nic_pkg::wqe_fast_reg_t   fr, head_fr;
  nic_pkg::wqe_bind_t       bd, head_bd;
  nic_pkg::wqe_invalidate_t inv, head_inv;
  nic_pkg::token_t          head_token_a, tok_a;   // the token port A looks up
  nic_pkg::token_t          head_mw, mw;           // Bind's MW (port B)

  assign hdr      = cur_wqe_i;
  assign fr       = cur_wqe_i;
  assign bd       = cur_wqe_i;
  assign inv      = cur_wqe_i;
  assign head_hdr = head_wqe_i;
  assign head_fr  = head_wqe_i;
  assign head_bd  = head_wqe_i;
  assign head_inv = head_wqe_i;
  assign head_mw  = head_bd.mw_token;
  assign mw       = bd.mw_token;

  always_comb begin
    case (head_hdr.opcode)
      nic_pkg::WQE_OP_FAST_REG:   head_token_a = head_fr.mr_token;
      nic_pkg::WQE_OP_BIND:       head_token_a = head_bd.mr_token;
      nic_pkg::WQE_OP_INVALIDATE: head_token_a = head_inv.token;
      default:                    head_token_a = '0;
    endcase
    case (hdr.opcode)
      nic_pkg::WQE_OP_FAST_REG:   tok_a = fr.mr_token;
      nic_pkg::WQE_OP_BIND:       tok_a = bd.mr_token;
      nic_pkg::WQE_OP_INVALIDATE: tok_a = inv.token;
      default:                    tok_a = '0;
    endcase
  end

  // The format views carry reserved bytes and fields other engines read.
  logic unused_views;
  assign unused_views = ^{hdr, fr, bd, inv, head_hdr, head_fr, head_bd, head_inv,
                          head_token_a, tok_a, head_mw, mw};

  // ---- table reads for the WQE being taken ----------------------------------------------------
  assign mr_a_re_o  = load_i;
  assign mr_a_idx_o = head_token_a.index[MrW-1:0];
  assign mr_b_re_o  = load_i;
  assign mr_b_idx_o = head_mw.index[MrW-1:0];

  // ---- the held WQE's decode, registered when it is taken -----------------------------------------
  // The WQE in `cur` is the one taken at the last load_i (the dispatcher's contract), so what the
  // checks select by is decoded once from head_wqe_i and kept with it: the kind of memory
  // operation, the indices of ports A and B (the table's RAMs hold the same addresses), whether
  // they are table entries, and port A's key; and a FastRegister's checks of its own fields
  // (the ones that need no table data) and both kinds' remote-access flags. Equal to decoding
  // cur_wqe_i in every cycle (a_decode_of_cur).
  logic           cur_fr_q, cur_fr_d, cur_bd_q, cur_bd_d, cur_inv_q, cur_inv_d;
  logic [MrW-1:0] a_idx_q, a_idx_d, b_idx_q, b_idx_d;
  logic           a_in_q, a_in_d, b_in_q, b_in_d;
  logic [7:0]     a_key_q, a_key_d;
  logic           fr_args_ok_q, fr_args_ok_d;   // page_count, fbo, length and list alignment
  logic           fr_remote_q, fr_remote_d;     // the FastRegister asks for remote access
  logic           bd_remote_wr_q, bd_remote_wr_d;  // the Bind asks for remote write

  // A FastRegister's checks of its own fields (fr_params_ok without the MR's max_pages and MTT
  // range).
  function automatic logic fr_args_ok(input logic [31:0] page_count, input logic [31:0] fbo,
                                      input logic [63:0] length, input logic [2:0] list_lo);
    fr_args_ok = page_count != '0 && fbo < 32'd4096 &&
                 length <= {20'd0, page_count, 12'd0} - 64'(fbo) && list_lo == 3'd0;
  endfunction

  always_comb begin
    cur_fr_d  = cur_fr_q;
    cur_bd_d  = cur_bd_q;
    cur_inv_d = cur_inv_q;
    a_idx_d   = a_idx_q;
    b_idx_d   = b_idx_q;
    a_in_d    = a_in_q;
    b_in_d    = b_in_q;
    a_key_d   = a_key_q;
    fr_args_ok_d   = fr_args_ok_q;
    fr_remote_d    = fr_remote_q;
    bd_remote_wr_d = bd_remote_wr_q;
    if (load_i) begin
      cur_fr_d  = head_hdr.opcode == nic_pkg::WQE_OP_FAST_REG;
      cur_bd_d  = head_hdr.opcode == nic_pkg::WQE_OP_BIND;
      cur_inv_d = head_hdr.opcode == nic_pkg::WQE_OP_INVALIDATE;
      a_idx_d   = head_token_a.index[MrW-1:0];
      b_idx_d   = head_mw.index[MrW-1:0];
      a_in_d    = 32'(head_token_a.index) < NumMrs;
      b_in_d    = 32'(head_mw.index) < NumMrs;
      a_key_d   = head_token_a.key;
      fr_args_ok_d   = fr_args_ok(head_fr.page_count, head_fr.fbo, head_fr.length,
                                  head_fr.page_list_addr[2:0]);
      fr_remote_d    = (head_fr.flags & RemoteMask) != '0;
      bd_remote_wr_d = (head_bd.flags & RemoteWriteBit) != '0;
    end
  end

  // Reset as an all-zero WQE decodes (cur_wqe_i resets to zero in the dispatcher).
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      cur_fr_q  <= 1'b0;
      cur_bd_q  <= 1'b0;
      cur_inv_q <= 1'b0;
      a_idx_q   <= '0;
      b_idx_q   <= '0;
      a_in_q    <= 1'b1;
      b_in_q    <= 1'b1;
      a_key_q   <= '0;
      fr_args_ok_q   <= 1'b0;   // page_count 0
      fr_remote_q    <= 1'b0;
      bd_remote_wr_q <= 1'b0;
    end else begin
      cur_fr_q  <= cur_fr_d;
      cur_bd_q  <= cur_bd_d;
      cur_inv_q <= cur_inv_d;
      a_idx_q   <= a_idx_d;
      b_idx_q   <= b_idx_d;
      a_in_q    <= a_in_d;
      b_in_q    <= b_in_d;
      a_key_q   <= a_key_d;
      fr_args_ok_q   <= fr_args_ok_d;
      fr_remote_q    <= fr_remote_d;
      bd_remote_wr_q <= bd_remote_wr_d;
    end
  end

  // ---- checks ---------------------------------------------------------------------------------
  logic [MrW-1:0] a_idx, b_idx;
  logic           a_in_range, b_in_range;
  logic [1:0]     a_state, b_state;

  assign a_idx      = a_idx_q;
  assign b_idx      = b_idx_q;
  assign a_in_range = a_in_q;
  assign b_in_range = b_in_q;

  // The checks matter only for a held WQE, so they are evaluated only then: a cycle without a
  // WQE costs the simulation none of them. The entries' states come from the table's ports A and
  // B (read with the WQE's take at the same indices, kept current: mr_state_i[2*a_idx +: 2]).
  always_comb begin
    a_state = nic_pkg::MR_STATE_FREE;
    b_state = nic_pkg::MR_STATE_FREE;
    if (cur_valid_i) begin
      a_state = a_in_range ? mr_a_state_i : nic_pkg::MR_STATE_FREE;
      b_state = b_in_range ? mr_b_state_i : nic_pkg::MR_STATE_FREE;
    end
  end

  // The held WQE's port-A entry was written by a command since the WQE was taken (a command in
  // the cycle it is taken lands before its checks, which see it: not counted).
  logic fr_moved_q, fr_moved_d;
  always_comb begin
    fr_moved_d = fr_moved_q || (cur_valid_i && mr_cmd_wr_i && a_in_range && mr_cmd_wr_idx_i == a_idx);
    if (load_i) begin
      fr_moved_d = 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      fr_moved_q <= 1'b0;
    end else begin
      fr_moved_q <= fr_moved_d;
    end
  end

  // The checks' status as a code of the four it can be (registered, decoded into status_o).
  typedef enum logic [1:0] {
    CodeSuccess,
    CodeAccessViolation,
    CodeInvalidDeviceState,
    CodeInvalidParameter
  } code_e;

  function automatic logic [31:0] status_of(input logic [1:0] c);
    case (c)
      CodeSuccess:            status_of = nic_pkg::STATUS_SUCCESS;
      CodeAccessViolation:    status_of = nic_pkg::STATUS_ACCESS_VIOLATION;
      CodeInvalidDeviceState: status_of = nic_pkg::STATUS_INVALID_DEVICE_STATE;
      default:                status_of = nic_pkg::STATUS_INVALID_PARAMETER;
    endcase
  endfunction

  // FastRegister
  logic  fr_mr_ok, fr_params_ok;
  code_e fr_code;

  always_comb begin
    fr_mr_ok     = 1'b0;
    fr_params_ok = 1'b0;
    fr_code      = CodeSuccess;
    if (cur_valid_i && cur_fr_q) begin
      fr_mr_ok     = !fr_moved_q && a_state != nic_pkg::MR_STATE_FREE && !mr_a_is_mw_i &&
                     mr_a_pd_i == qp_pd_i;
      fr_params_ok = fr_args_ok_q && fr.page_count <= mr_a_max_pages_i &&
                     33'(mr_a_mtt_offset_i) + 33'(fr.page_count) <= 33'(MttEntries);
      if (!fr_mr_ok) begin
        fr_code = CodeAccessViolation;
      end else if (a_state != nic_pkg::MR_STATE_INVALID) begin
        fr_code = CodeInvalidDeviceState;                   // still registered
      end else if (!fr_params_ok) begin
        fr_code = CodeInvalidParameter;
      end else if (fr_remote_q && !mr_a_remote_ok_i) begin
        fr_code = CodeAccessViolation;                      // remote access not allowed
      end else begin
        fr_code = CodeSuccess;
      end
    end
  end

  // Bind
  logic        bd_mr_ok, bd_mw_ok, bd_range_ok;
  logic [64:0] bd_end, mr_end;
  code_e       bd_code;

  always_comb begin
    bd_mr_ok    = 1'b0;
    bd_mw_ok    = 1'b0;
    bd_end      = '0;
    mr_end      = '0;
    bd_range_ok = 1'b0;
    bd_code     = CodeSuccess;
    if (cur_valid_i && cur_bd_q) begin
      bd_mr_ok    = a_state == nic_pkg::MR_STATE_VALID && !mr_a_is_mw_i &&
                    mr_a_key_i == a_key_q && mr_a_pd_i == qp_pd_i;
      bd_mw_ok    = b_state != nic_pkg::MR_STATE_FREE && mr_b_is_mw_i && mr_b_pd_i == qp_pd_i;
      bd_end      = {1'b0, bd.va} + {1'b0, bd.length};
      mr_end      = {1'b0, mr_a_base_va_i} + {1'b0, mr_a_length_i};
      bd_range_ok = bd.va >= mr_a_base_va_i && bd_end <= mr_end;
      if (!bd_mr_ok || !bd_mw_ok) begin
        bd_code = CodeAccessViolation;
      end else if (b_state != nic_pkg::MR_STATE_INVALID) begin
        bd_code = CodeInvalidDeviceState;                   // the MW is bound already
      end else if (!bd_range_ok) begin
        bd_code = CodeAccessViolation;
      end else if (bd_remote_wr_q &&
                   (mr_a_access_i & nic_pkg::FLAG_ALLOW_LOCAL_WRITE) == '0) begin
        bd_code = CodeAccessViolation;                      // the MR lacks the needed access
      end else begin
        bd_code = CodeSuccess;
      end
    end
  end

  // Invalidate
  logic  inv_ok;
  code_e inv_code;

  assign inv_ok   = a_state == nic_pkg::MR_STATE_VALID && mr_a_key_i == a_key_q &&
                    mr_a_pd_i == qp_pd_i;
  assign inv_code = inv_ok ? CodeSuccess : CodeAccessViolation;

  // The checks of this cycle, and what a Bind writes that comes from the table (the window's
  // offset in its MR's pages; the MR's mtt_base goes with it).
  code_e                   code;
  logic [63:0]             bd_off;
  always_comb begin
    if (cur_fr_q) begin
      code = fr_code;
    end else if (cur_bd_q) begin
      code = bd_code;
    end else if (cur_inv_q) begin
      code = inv_code;
    end else begin
      code = CodeInvalidParameter;                          // not one
    end
    bd_off = bd.va - mr_a_base_va_i + mr_a_byte_off_i;
  end

  // ---- the checks registered ------------------------------------------------------------------
  // code_q / ok_q: the checks of the previous cycle. fresh_q (ready_o): they are the held WQE's
  // and the table has not changed for it since (see the header). The entries the checks read are
  // port A's (every memory operation; none when its index is beyond the table: then the checks
  // fail whatever the data) and, for a Bind, port B's.
  code_e                         code_q;
  logic                          ok_q, fresh_q, fresh_d, hit_a, hit_b;
  logic [63:0]                   bd_off_q;
  logic [$clog2(MttEntries)-1:0] bd_mtt_base_q;

  always_comb begin
    hit_a   = a_in_range && ((mr_cmd_wr_i && mr_cmd_wr_idx_i == a_idx) ||
                             (mr_inv_wr_i && mr_inv_wr_idx_i == a_idx));
    hit_b   = cur_bd_q && b_in_range && ((mr_cmd_wr_i && mr_cmd_wr_idx_i == b_idx) ||
                                         (mr_inv_wr_i && mr_inv_wr_idx_i == b_idx));
    fresh_d = cur_valid_i && !load_i && !hit_a && !hit_b;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      code_q        <= CodeInvalidParameter;
      ok_q          <= 1'b0;
      fresh_q       <= 1'b0;
      bd_off_q      <= '0;
      bd_mtt_base_q <= '0;
    end else begin
      code_q        <= code;
      ok_q          <= code == CodeSuccess;
      fresh_q       <= fresh_d;
      bd_off_q      <= bd_off;
      bd_mtt_base_q <= mr_a_mtt_base_i;
    end
  end

  assign status_o = status_of(code_q);
  assign ok_o     = ok_q;
  assign ready_o  = fresh_q;

  assign fr_mtt_offset_o = mr_a_mtt_offset_i;

  // ---- writes ---------------------------------------------------------------------------------
  always_comb begin
    mr_wr_o          = 1'b0;
    mr_wr_idx_o      = a_idx;
    mr_wr_state_o    = nic_pkg::MR_STATE_VALID;
    mr_wr_reg_o      = 1'b0;
    mr_wr_key_o      = '0;
    mr_wr_base_va_o  = '0;
    mr_wr_length_o   = '0;
    mr_wr_byte_off_o = '0;
    mr_wr_access_o   = '0;
    mr_wr_mtt_base_o = '0;
    mr_wr_parent_o   = a_idx;
    if (exec_i && cur_bd_q) begin
      // The MW becomes a window onto the MR's pages.
      mr_wr_o          = 1'b1;
      mr_wr_idx_o      = b_idx;
      mr_wr_state_o    = nic_pkg::MR_STATE_VALID;
      mr_wr_reg_o      = 1'b1;
      mr_wr_key_o      = mw.key;
      mr_wr_base_va_o  = bd.va;
      mr_wr_length_o   = bd.length;
      mr_wr_byte_off_o = bd_off_q;
      mr_wr_access_o   = bd.flags & AccessMask;
      mr_wr_mtt_base_o = bd_mtt_base_q;
      mr_wr_parent_o   = a_idx;
    end else if (exec_i && cur_inv_q) begin
      mr_wr_o       = 1'b1;
      mr_wr_idx_o   = a_idx;
      mr_wr_state_o = nic_pkg::MR_STATE_INVALID;
    end else if (commit_i) begin
      // Only now, with the whole page list in the MTT, does the MR become usable.
      mr_wr_o          = 1'b1;
      mr_wr_idx_o      = a_idx;
      mr_wr_state_o    = nic_pkg::MR_STATE_VALID;
      mr_wr_reg_o      = 1'b1;
      mr_wr_key_o      = a_key_q;
      mr_wr_base_va_o  = fr.base_va;
      mr_wr_length_o   = fr.length;
      mr_wr_byte_off_o = 64'(fr.fbo);
      mr_wr_access_o   = fr.flags & AccessMask;
      mr_wr_mtt_base_o = mtt_base_i;
      mr_wr_parent_o   = a_idx;
    end
  end

`ifndef SYNTHESIS
  // The registered checks equal the checks of this cycle whenever ready_o says so. The held QP's
  // PD is an input the table writes do not cover: it changes only with a QP_CREATE of that QP,
  // whose WQE the dispatcher then discards as stale without reading its status; so the
  // comparison is made when the PD is the one the registered checks saw.
  logic [15:0] pd_prev_q;
  always_ff @(posedge clk_i) begin
    pd_prev_q <= qp_pd_i;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i && fresh_q && cur_valid_i && qp_pd_i == pd_prev_q) begin
      a_ready_checks_current: assert (code_q == code && bd_off_q == bd_off &&
                                      bd_mtt_base_q == mr_a_mtt_base_i);
    end
    // The writes are decided on current checks (exec_i also comes with a NOP's finish, and
    // writes nothing then).
    if (!rst_i && mr_wr_o) begin
      a_write_when_ready: assert (fresh_q && cur_valid_i);
    end
  end

  // The registered decode is the held WQE's, and ok_o is status_o's SUCCESS.
  always_ff @(posedge clk_i) begin
    if (!rst_i && cur_valid_i) begin
      a_decode_of_cur: assert (cur_fr_q == (hdr.opcode == nic_pkg::WQE_OP_FAST_REG) &&
                               cur_bd_q == (hdr.opcode == nic_pkg::WQE_OP_BIND) &&
                               cur_inv_q == (hdr.opcode == nic_pkg::WQE_OP_INVALIDATE) &&
                               a_idx_q == tok_a.index[MrW-1:0] && a_key_q == tok_a.key &&
                               a_in_q == (32'(tok_a.index) < NumMrs) &&
                               b_idx_q == mw.index[MrW-1:0] && b_in_q == (32'(mw.index) < NumMrs) &&
                               fr_args_ok_q == fr_args_ok(fr.page_count, fr.fbo, fr.length,
                                                           fr.page_list_addr[2:0]) &&
                               fr_remote_q == ((fr.flags & RemoteMask) != '0) &&
                               bd_remote_wr_q == ((bd.flags & RemoteWriteBit) != '0));
      a_ok_is_success: assert (ok_o == (status_o == nic_pkg::STATUS_SUCCESS));
      if (a_in_range) begin
        a_port_a_state: assert (mr_a_state_i == mr_state_i[2*a_idx +: 2]);
      end
      if (b_in_range) begin
        a_port_b_state: assert (mr_b_state_i == mr_state_i[2*b_idx +: 2]);
      end
    end
  end
`else
  logic unused_mr_state;
  assign unused_mr_state = ^mr_state_i;   // the ports' states replace it; the assertions read it
`endif

endmodule
