`default_nettype none
// nic_mem_op: the memory operations of the send queue (FastRegister, Bind, Invalidate): their
// checks against the MR/MW table and their writes to it.
//
// Reads: when the dispatcher takes a WQE (load_i, head_wqe_i), its tokens' entries are read
// through the table's ports A (FastRegister's and Bind's MR, Invalidate's token) and B (Bind's
// MW); from the next cycle on the table data is valid and kept current by the table, so the
// checks of the WQE then held by the dispatcher (cur_valid_i, cur_wqe_i, its QP's PD) answer in
// the same cycle (status_o: request / response, combinational today).
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
  output logic [31:0]                   fr_mtt_offset_o, // FastRegister: the MR's MTT range
  // writes
  input  logic                          exec_i,          // Bind / Invalidate succeeded
  input  logic                          commit_i,        // FastRegister succeeded
  input  logic [$clog2(MttEntries)-1:0] mtt_base_i,      // ... with its pages from here
  input  logic                          clk_i,
  input  logic                          rst_i,
  // MR table (nic_mr_table)
  input  logic [2*NumMrs-1:0]           mr_state_i,
  input  logic                          mr_cmd_wr_i,     // a command writes this entry now
  input  logic [$clog2(NumMrs)-1:0]     mr_cmd_wr_idx_i,
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
  output logic                          mr_b_re_o,
  output logic [$clog2(NumMrs)-1:0]     mr_b_idx_o,
  input  logic [15:0]                   mr_b_pd_i,
  input  logic                          mr_b_is_mw_i,
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

  // ---- checks ---------------------------------------------------------------------------------
  logic [MrW-1:0] a_idx, b_idx;
  logic           a_in_range, b_in_range;
  logic [1:0]     a_state, b_state;

  assign a_idx      = tok_a.index[MrW-1:0];
  assign b_idx      = mw.index[MrW-1:0];
  assign a_in_range = 32'(tok_a.index) < NumMrs;
  assign b_in_range = 32'(mw.index) < NumMrs;

  // The checks matter only for a held WQE, so they are evaluated only then: a cycle without a
  // WQE costs the simulation none of them.
  always_comb begin
    a_state = nic_pkg::MR_STATE_FREE;
    b_state = nic_pkg::MR_STATE_FREE;
    if (cur_valid_i) begin
      a_state = a_in_range ? mr_state_i[2*a_idx +: 2] : nic_pkg::MR_STATE_FREE;
      b_state = b_in_range ? mr_state_i[2*b_idx +: 2] : nic_pkg::MR_STATE_FREE;
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

  // FastRegister
  logic        fr_mr_ok, fr_params_ok;
  logic [63:0] fr_len_limit;
  logic [31:0] fr_status;

  always_comb begin
    fr_mr_ok     = 1'b0;
    fr_len_limit = '0;
    fr_params_ok = 1'b0;
    fr_status    = nic_pkg::STATUS_SUCCESS;
    if (cur_valid_i && hdr.opcode == nic_pkg::WQE_OP_FAST_REG) begin
      fr_mr_ok     = !fr_moved_q && a_state != nic_pkg::MR_STATE_FREE && !mr_a_is_mw_i &&
                     mr_a_pd_i == qp_pd_i;
      fr_len_limit = {20'd0, fr.page_count, 12'd0} - 64'(fr.fbo);
      fr_params_ok = fr.page_count != '0 && fr.page_count <= mr_a_max_pages_i &&
                     fr.fbo < 32'd4096 && fr.length <= fr_len_limit &&
                     fr.page_list_addr[2:0] == 3'd0 &&
                     33'(mr_a_mtt_offset_i) + 33'(fr.page_count) <= 33'(MttEntries);
      if (!fr_mr_ok) begin
        fr_status = nic_pkg::STATUS_ACCESS_VIOLATION;
      end else if (a_state != nic_pkg::MR_STATE_INVALID) begin
        fr_status = nic_pkg::STATUS_INVALID_DEVICE_STATE;     // still registered
      end else if (!fr_params_ok) begin
        fr_status = nic_pkg::STATUS_INVALID_PARAMETER;
      end else if ((fr.flags & RemoteMask) != '0 && !mr_a_remote_ok_i) begin
        fr_status = nic_pkg::STATUS_ACCESS_VIOLATION;         // remote access not allowed
      end else begin
        fr_status = nic_pkg::STATUS_SUCCESS;
      end
    end
  end

  // Bind
  logic        bd_mr_ok, bd_mw_ok, bd_range_ok;
  logic [64:0] bd_end, mr_end;
  logic [31:0] bd_status;

  always_comb begin
    bd_mr_ok    = 1'b0;
    bd_mw_ok    = 1'b0;
    bd_end      = '0;
    mr_end      = '0;
    bd_range_ok = 1'b0;
    bd_status   = nic_pkg::STATUS_SUCCESS;
    if (cur_valid_i && hdr.opcode == nic_pkg::WQE_OP_BIND) begin
      bd_mr_ok    = a_state == nic_pkg::MR_STATE_VALID && !mr_a_is_mw_i &&
                    mr_a_key_i == tok_a.key && mr_a_pd_i == qp_pd_i;
      bd_mw_ok    = b_state != nic_pkg::MR_STATE_FREE && mr_b_is_mw_i && mr_b_pd_i == qp_pd_i;
      bd_end      = {1'b0, bd.va} + {1'b0, bd.length};
      mr_end      = {1'b0, mr_a_base_va_i} + {1'b0, mr_a_length_i};
      bd_range_ok = bd.va >= mr_a_base_va_i && bd_end <= mr_end;
      if (!bd_mr_ok || !bd_mw_ok) begin
        bd_status = nic_pkg::STATUS_ACCESS_VIOLATION;
      end else if (b_state != nic_pkg::MR_STATE_INVALID) begin
        bd_status = nic_pkg::STATUS_INVALID_DEVICE_STATE;     // the MW is bound already
      end else if (!bd_range_ok) begin
        bd_status = nic_pkg::STATUS_ACCESS_VIOLATION;
      end else if ((bd.flags & RemoteWriteBit) != '0 &&
                   (mr_a_access_i & nic_pkg::FLAG_ALLOW_LOCAL_WRITE) == '0) begin
        bd_status = nic_pkg::STATUS_ACCESS_VIOLATION;         // the MR lacks the needed access
      end else begin
        bd_status = nic_pkg::STATUS_SUCCESS;
      end
    end
  end

  // Invalidate
  logic        inv_ok;
  logic [31:0] inv_status;

  assign inv_ok     = a_state == nic_pkg::MR_STATE_VALID && mr_a_key_i == tok_a.key &&
                      mr_a_pd_i == qp_pd_i;
  assign inv_status = inv_ok ? nic_pkg::STATUS_SUCCESS : nic_pkg::STATUS_ACCESS_VIOLATION;

  always_comb begin
    case (hdr.opcode)
      nic_pkg::WQE_OP_FAST_REG:   status_o = fr_status;
      nic_pkg::WQE_OP_BIND:       status_o = bd_status;
      nic_pkg::WQE_OP_INVALIDATE: status_o = inv_status;
      default:                    status_o = nic_pkg::STATUS_INVALID_PARAMETER;   // not one
    endcase
  end

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
    if (exec_i && hdr.opcode == nic_pkg::WQE_OP_BIND) begin
      // The MW becomes a window onto the MR's pages.
      mr_wr_o          = 1'b1;
      mr_wr_idx_o      = b_idx;
      mr_wr_state_o    = nic_pkg::MR_STATE_VALID;
      mr_wr_reg_o      = 1'b1;
      mr_wr_key_o      = mw.key;
      mr_wr_base_va_o  = bd.va;
      mr_wr_length_o   = bd.length;
      mr_wr_byte_off_o = bd.va - mr_a_base_va_i + mr_a_byte_off_i;
      mr_wr_access_o   = bd.flags & AccessMask;
      mr_wr_mtt_base_o = mr_a_mtt_base_i;
      mr_wr_parent_o   = a_idx;
    end else if (exec_i && hdr.opcode == nic_pkg::WQE_OP_INVALIDATE) begin
      mr_wr_o       = 1'b1;
      mr_wr_idx_o   = a_idx;
      mr_wr_state_o = nic_pkg::MR_STATE_INVALID;
    end else if (commit_i) begin
      // Only now, with the whole page list in the MTT, does the MR become usable.
      mr_wr_o          = 1'b1;
      mr_wr_idx_o      = a_idx;
      mr_wr_state_o    = nic_pkg::MR_STATE_VALID;
      mr_wr_reg_o      = 1'b1;
      mr_wr_key_o      = tok_a.key;
      mr_wr_base_va_o  = fr.base_va;
      mr_wr_length_o   = fr.length;
      mr_wr_byte_off_o = 64'(fr.fbo);
      mr_wr_access_o   = fr.flags & AccessMask;
      mr_wr_mtt_base_o = mtt_base_i;
      mr_wr_parent_o   = a_idx;
    end
  end

endmodule
