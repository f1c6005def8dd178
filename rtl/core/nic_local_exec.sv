`default_nettype none
// nic_local_exec: executes send-queue WQEs in buffer order (so in ring order per QP) and hands
// one completion per WQE to the CQ engine.
//
// Pipeline: taking a WQE from the buffer loads it into `cur` and, in the same cycle, presents
// its token indices to the MR table; from the next cycle on the table data is valid (and kept
// current by the table), so a WQE executes in the cycle after it is taken and the next one is
// taken in that same cycle: one WQE per cycle while completions are accepted. FastRegister
// then waits for its page list (read by DMA into the MTT) before it registers the MR.
//
// Per WQE, in this order:
//   - stale (its QP was reset since it was fetched) or its QP is RESET: discarded, no completion,
//     not retired;
//   - QP in ERROR: CANCELLED without executing;
//   - a DMA error while fetching it: INTERNAL_ERROR;
//   - its `index` field differs from the ring index it was read from: INVALID_PARAMETER;
//   - NOP: SUCCESS; FAST_REG / BIND / INVALIDATE: the table checks below;
//   - SEND / SEND_INV / WRITE / READ of a connected (RTS) QP: handed to nic_transport (tp_*),
//     which completes it; on a QP that is not connected: INVALID_PARAMETER; any other opcode:
//     INVALID_PARAMETER.
// Completion order across the two executors: while tp_busy_i[q] (QP q has WQEs in the
// transport), every later WQE of q that would complete here waits; a transport WQE of q still
// goes to the transport then, also when q is in ERROR, so that it is cancelled in order there.
// Any status but SUCCESS moves the QP to ERROR (qp_err_o). A successful WQE with
// FLAG_SILENT_SUCCESS gives no completion; every other WQE gives one. The CQE carries status,
// wqe_index (the ring index), qpn and op_type; the rest is zero (owner is the CQ engine's).
module nic_local_exec #(
  parameter int DataWidth  = 64,    // AXI data width: 64, 128 or 256
  parameter int NumQps     = 16,    // queue pairs, 1..256
  parameter int NumMrs     = 256,   // MR/MW table entries
  parameter int MttEntries = 1024   // MTT entries
) (
  input  logic                      clk_i,
  input  logic                      rst_i,
  // WQE stream from nic_wqe_fetch
  input  logic                      wqe_valid_i,
  output logic                      wqe_ready_o,
  input  logic [511:0]              wqe_data_i,
  input  logic [7:0]                wqe_qpn_i,
  input  logic [15:0]               wqe_idx_i,
  input  logic                      wqe_dma_err_i,
  input  logic                      wqe_stale_i,
  // transport WQEs to nic_transport; tp_busy_i[q]: QP q has WQEs there
  output logic                      tp_valid_o,
  input  logic                      tp_ready_i,
  output logic [511:0]              tp_data_o,
  output logic [7:0]                tp_qpn_o,
  output logic [15:0]               tp_idx_o,
  input  logic [NumQps-1:0]         tp_busy_i,
  // QP context (owned by nic_qp_ctx): a read port for the QP of the WQE being executed
  input  logic                      qp_reset_i,        // QP created or destroyed this cycle
  input  logic [7:0]                qp_reset_qpn_i,
  output logic [7:0]                qp_rd_qpn_o,       // the QP whose context is read
  input  logic [1:0]                qp_rd_state_i,     // its state (RESET if out of range)
  input  logic [15:0]               qp_rd_pd_i,
  input  logic [7:0]                qp_rd_sq_cqn_i,
  output logic                      qp_err_o,          // the WQE failed: QP := ERROR
  output logic [7:0]                qp_err_qpn_o,
  output logic                      retire_o,          // a WQE was executed or cancelled
  output logic [7:0]                retire_qpn_o,
  output logic [15:0]               retire_idx_o,
  // completions
  output logic                      cpl_valid_o,
  output logic [7:0]                cpl_cqn_o,
  output nic_pkg::cqe_t             cpl_cqe_o,
  input  logic                      cpl_ready_i,
  // MR table (nic_mr_table)
  input  logic [2*NumMrs-1:0]       mr_state_i,
  output logic                      mr_a_re_o,
  output logic [$clog2(NumMrs)-1:0] mr_a_idx_o,
  input  logic [15:0]               mr_a_pd_i,
  input  logic                      mr_a_is_mw_i,
  input  logic                      mr_a_remote_ok_i,
  input  logic [31:0]               mr_a_max_pages_i,
  input  logic [31:0]               mr_a_mtt_offset_i,
  input  logic [7:0]                mr_a_key_i,
  input  logic [63:0]               mr_a_base_va_i,
  input  logic [63:0]               mr_a_length_i,
  input  logic [63:0]               mr_a_byte_off_i,
  input  logic [15:0]               mr_a_access_i,
  input  logic [$clog2(MttEntries)-1:0] mr_a_mtt_base_i,
  output logic                      mr_b_re_o,
  output logic [$clog2(NumMrs)-1:0] mr_b_idx_o,
  input  logic [15:0]               mr_b_pd_i,
  input  logic                      mr_b_is_mw_i,
  output logic                      mr_wr_o,
  output logic [$clog2(NumMrs)-1:0] mr_wr_idx_o,
  output logic [1:0]                mr_wr_state_o,
  output logic                      mr_wr_reg_o,
  output logic [7:0]                mr_wr_key_o,
  output logic [63:0]               mr_wr_base_va_o,
  output logic [63:0]               mr_wr_length_o,
  output logic [63:0]               mr_wr_byte_off_o,
  output logic [15:0]               mr_wr_access_o,
  output logic [$clog2(MttEntries)-1:0] mr_wr_mtt_base_o,
  output logic [$clog2(NumMrs)-1:0] mr_wr_parent_o,
  output logic                      mtt_we_o,
  output logic [$clog2(MttEntries)-1:0] mtt_idx_o,
  output logic [51:0]               mtt_pfn_o,
  // page-list DMA read client (nic_dma_rd)
  output logic                      pl_ar_valid_o,
  input  logic                      pl_ar_ready_i,
  output logic [63:0]               pl_ar_addr_o,
  output logic [7:0]                pl_ar_len_o,
  input  logic                      pl_r_valid_i,
  output logic                      pl_r_ready_o,
  input  logic [DataWidth-1:0]      pl_r_data_i,
  input  logic [1:0]                pl_r_resp_i,
  input  logic                      pl_r_last_i
);

  localparam int MrW       = $clog2(NumMrs);
  localparam int MttAW     = $clog2(MttEntries);
  localparam int BeatBytes = DataWidth / 8;
  localparam int BeatAW    = $clog2(BeatBytes);
  localparam int Lanes     = DataWidth / 64;               // page-list entries per beat
  localparam int LaneW     = (Lanes > 1) ? $clog2(Lanes) : 1;
  localparam int MaxSpan   = 256 * BeatBytes;              // bytes of a 256-beat burst
  localparam int BeatLast  = BeatBytes - 1;
  localparam logic [35:0] BeatRound = 36'(BeatLast);      // rounds a byte count up to beats

  // Access rights kept in an entry, and the ones that mean remote access.
  localparam logic [15:0] AccessMask = nic_pkg::FLAG_ALLOW_REMOTE_READ |
                                       nic_pkg::FLAG_ALLOW_LOCAL_WRITE |
                                       nic_pkg::FLAG_ALLOW_REMOTE_WRITE;
  localparam logic [15:0] RemoteWriteBit = nic_pkg::FLAG_ALLOW_REMOTE_WRITE &
                                           ~nic_pkg::FLAG_ALLOW_LOCAL_WRITE;
  localparam logic [15:0] RemoteMask = nic_pkg::FLAG_ALLOW_REMOTE_READ | RemoteWriteBit;

  if (DataWidth < 64 || DataWidth > 256 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_width
    $fatal(1, "nic_local_exec: DataWidth must be 64, 128 or 256");
  end
  if (NumQps < 1 || NumQps > 256) begin : gen_bad_qps
    $fatal(1, "nic_local_exec: NumQps must be 1..256");
  end
  if (NumMrs < 2 || NumMrs > 65535 || MttEntries < 2 || MttEntries > 65535) begin : gen_bad_table
    $fatal(1, "nic_local_exec: NumMrs and MttEntries must be 2..65535 (as nic_mr_table)");
  end

  // The CQE's op_type for a WQE opcode (unknown opcodes complete as SEND, the generic type).
  function automatic logic [15:0] op_type_of(input logic [7:0] opcode);
    case (opcode)
      nic_pkg::WQE_OP_FAST_REG:   op_type_of = nic_pkg::NDK_OP_TYPE_FAST_REGISTER;
      nic_pkg::WQE_OP_BIND:       op_type_of = nic_pkg::NDK_OP_TYPE_BIND;
      nic_pkg::WQE_OP_INVALIDATE: op_type_of = nic_pkg::NDK_OP_TYPE_INVALIDATE;
      nic_pkg::WQE_OP_WRITE:      op_type_of = nic_pkg::NDK_OP_TYPE_WRITE;
      nic_pkg::WQE_OP_READ:       op_type_of = nic_pkg::NDK_OP_TYPE_READ;
      default:                    op_type_of = nic_pkg::NDK_OP_TYPE_SEND;
    endcase
  endfunction

  typedef enum logic [1:0] {
    StRun,        // execute `cur` (if any) as soon as its table data is there
    StPageList,   // FastRegister: read the page list into the MTT
    StCommit      // FastRegister: page list in, register the MR and complete
  } state_e;

  // ---- the WQE being executed -------------------------------------------------------------------
  state_e       st_q, st_d;
  logic         cur_valid_q, cur_valid_d;
  logic [511:0] cur_wqe_q;
  logic [7:0]   cur_qpn_q, cur_qpn_d;
  logic [15:0]  cur_idx_q, cur_idx_d;
  logic         cur_dma_err_q, cur_dma_err_d;
  logic         cur_stale_q, cur_stale_d;

  // Views of `cur` and of the WQE being taken (head) in each format.
  nic_pkg::wqe_hdr_t        hdr, head_hdr;
  nic_pkg::wqe_fast_reg_t   fr, head_fr;
  nic_pkg::wqe_bind_t       bd, head_bd;
  nic_pkg::wqe_invalidate_t inv, head_inv;
  nic_pkg::token_t          head_token_a, tok_a;   // the token port A looks up
  nic_pkg::token_t          head_mw, mw;           // Bind's MW (port B)

  assign hdr      = cur_wqe_q;
  assign fr       = cur_wqe_q;
  assign bd       = cur_wqe_q;
  assign inv      = cur_wqe_q;
  assign head_hdr = wqe_data_i;
  assign head_fr  = wqe_data_i;
  assign head_bd  = wqe_data_i;
  assign head_inv = wqe_data_i;
  assign head_mw  = head_bd.mw_token;
  assign mw       = bd.mw_token;

  // The token the table's port A looks up: FastRegister's and Bind's MR, Invalidate's token.
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

  // The format views carry reserved bytes and fields only the transport will read.
  logic unused_views;
  assign unused_views = ^{hdr, fr, bd, inv, head_hdr, head_fr, head_bd, head_inv,
                          head_token_a, tok_a, head_mw, mw};

  // Table reads for the WQE being taken.
  logic load, finish;
  assign mr_a_re_o  = load;
  assign mr_a_idx_o = head_token_a.index[MrW-1:0];
  assign mr_b_re_o  = load;
  assign mr_b_idx_o = head_mw.index[MrW-1:0];

  // ---- its QP ---------------------------------------------------------------------------------
  logic [1:0]  qp_state;
  logic [15:0] qp_pd;
  logic [7:0]  qp_cqn;
  logic        discard;

  assign qp_rd_qpn_o = cur_qpn_q;
  assign qp_state    = qp_rd_state_i;
  assign qp_pd       = qp_rd_pd_i;
  assign qp_cqn      = qp_rd_sq_cqn_i;
  assign discard  = cur_stale_q || (qp_reset_i && qp_reset_qpn_i == cur_qpn_q) ||
                    qp_state == nic_pkg::QP_STATE_RESET;

  // ---- transport WQEs ---------------------------------------------------------------------------
  logic is_tp_op, tp_busy, to_tp, tp_hold;
  assign is_tp_op = hdr.opcode == nic_pkg::WQE_OP_SEND || hdr.opcode == nic_pkg::WQE_OP_SEND_INV ||
                    hdr.opcode == nic_pkg::WQE_OP_WRITE || hdr.opcode == nic_pkg::WQE_OP_READ;
  assign tp_busy  = 32'(cur_qpn_q) < NumQps && tp_busy_i[cur_qpn_q[$clog2(NumQps > 1 ? NumQps : 2)-1:0]];
  // to the transport: a well-formed transport WQE of a connected QP, or of a QP in error whose
  // earlier transport WQEs are still there (the transport cancels it after them)
  assign to_tp    = is_tp_op && !cur_dma_err_q && hdr.index == cur_idx_q &&
                    (qp_state == nic_pkg::QP_STATE_RTS ||
                     (qp_state == nic_pkg::QP_STATE_ERROR && tp_busy));
  // anything completed here waits while earlier WQEs of its QP are in the transport
  assign tp_hold  = !to_tp && tp_busy;

  assign tp_valid_o = st_q == StRun && cur_valid_q && !discard && to_tp;
  assign tp_data_o  = cur_wqe_q;
  assign tp_qpn_o   = cur_qpn_q;
  assign tp_idx_o   = cur_idx_q;

  // ---- table checks -----------------------------------------------------------------------------
  logic [MrW-1:0] a_idx, b_idx;
  logic           a_in_range, b_in_range;
  logic [1:0]     a_state, b_state;

  assign a_idx      = tok_a.index[MrW-1:0];
  assign b_idx      = mw.index[MrW-1:0];
  assign a_in_range = 32'(tok_a.index) < NumMrs;
  assign b_in_range = 32'(mw.index) < NumMrs;

  // The checks below matter only for a WQE in `cur` (run_status is used for nothing else), so
  // they are evaluated only then: a cycle without a WQE costs the simulation none of them.
  always_comb begin
    a_state = nic_pkg::MR_STATE_FREE;
    b_state = nic_pkg::MR_STATE_FREE;
    if (cur_valid_q) begin
      a_state = a_in_range ? mr_state_i[2*a_idx +: 2] : nic_pkg::MR_STATE_FREE;
      b_state = b_in_range ? mr_state_i[2*b_idx +: 2] : nic_pkg::MR_STATE_FREE;
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
    if (cur_valid_q && hdr.opcode == nic_pkg::WQE_OP_FAST_REG) begin
      fr_mr_ok     = a_state != nic_pkg::MR_STATE_FREE && !mr_a_is_mw_i && mr_a_pd_i == qp_pd;
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
    if (cur_valid_q && hdr.opcode == nic_pkg::WQE_OP_BIND) begin
      bd_mr_ok    = a_state == nic_pkg::MR_STATE_VALID && !mr_a_is_mw_i &&
                    mr_a_key_i == tok_a.key && mr_a_pd_i == qp_pd;
      bd_mw_ok    = b_state != nic_pkg::MR_STATE_FREE && mr_b_is_mw_i && mr_b_pd_i == qp_pd;
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
                      mr_a_pd_i == qp_pd;
  assign inv_status = inv_ok ? nic_pkg::STATUS_SUCCESS : nic_pkg::STATUS_ACCESS_VIOLATION;

  // The status of `cur` when it is reached (FastRegister: before its page list).
  logic [31:0] run_status;

  always_comb begin
    if (!cur_valid_q) begin
      run_status = nic_pkg::STATUS_SUCCESS;                 // no WQE: not used
    end else if (qp_state == nic_pkg::QP_STATE_ERROR) begin
      run_status = nic_pkg::STATUS_CANCELLED;
    end else if (cur_dma_err_q) begin
      run_status = nic_pkg::STATUS_INTERNAL_ERROR;
    end else if (hdr.index != cur_idx_q) begin
      run_status = nic_pkg::STATUS_INVALID_PARAMETER;       // stale or misplaced WQE
    end else begin
      case (hdr.opcode)
        nic_pkg::WQE_OP_NOP:        run_status = nic_pkg::STATUS_SUCCESS;
        nic_pkg::WQE_OP_FAST_REG:   run_status = fr_status;
        nic_pkg::WQE_OP_BIND:       run_status = bd_status;
        nic_pkg::WQE_OP_INVALIDATE: run_status = inv_status;
        default:                    run_status = nic_pkg::STATUS_INVALID_PARAMETER;
      endcase
    end
  end

  // ---- FastRegister page list -------------------------------------------------------------------
  logic [63:0]      pl_addr_q, pl_addr_d;      // next byte to request
  logic [31:0]      pl_left_q, pl_left_d;      // entries not yet requested
  logic [31:0]      pl_rcv_q, pl_rcv_d;        // entries received
  logic [LaneW-1:0] pl_lane_q, pl_lane_d;      // lane of the next entry in the current beat
  logic             pl_err_q, pl_err_d;        // a beat came with an error response
  logic             pl_bad_q, pl_bad_d;        // a page address was not 4 KiB aligned
  logic [31:0]      pl_mtt_off_q, pl_mtt_off_d;

  // The next burst: from pl_addr aligned down to a beat, up to the end of the list, the 4 KiB
  // page or 256 beats, whichever comes first.
  logic [63:0] pl_aligned;
  logic [12:0] pl_lead, pl_to_page;
  logic [35:0] pl_need, pl_span;
  logic [8:0]  pl_beats;
  logic [31:0] pl_burst_bytes, pl_covered;

  // Used only while the page list is read (StPageList): evaluated only then.
  always_comb begin
    pl_lead        = '0;
    pl_aligned     = '0;
    pl_to_page     = '0;
    pl_need        = '0;
    pl_span        = '0;
    pl_beats       = '0;
    pl_burst_bytes = '0;
    pl_covered     = '0;
    if (st_q == StPageList) begin
      pl_lead        = 13'(pl_addr_q[BeatAW-1:0]);
      pl_aligned     = {pl_addr_q[63:BeatAW], BeatAW'(0)};
      pl_to_page     = 13'd4096 - {1'b0, pl_aligned[11:0]};
      pl_need        = 36'(pl_lead) + {1'b0, pl_left_q, 3'd0};
      pl_span        = (pl_need < 36'(pl_to_page)) ?
                       ((pl_need < 36'(MaxSpan)) ? pl_need : 36'(MaxSpan)) :
                       ((36'(pl_to_page) < 36'(MaxSpan)) ? 36'(pl_to_page) : 36'(MaxSpan));
      pl_beats       = 9'((pl_span + BeatRound) >> BeatAW);
      pl_burst_bytes = {23'd0, pl_beats} << BeatAW;
      pl_covered     = (pl_burst_bytes - {19'd0, pl_lead}) >> 3;
    end
  end

  assign pl_ar_valid_o = st_q == StPageList && pl_left_q != '0;
  assign pl_ar_addr_o  = pl_aligned;
  assign pl_ar_len_o   = 8'(pl_beats - 9'd1);

  // The entry of the current lane.
  logic [63:0] pl_entry;
  logic        pl_take, pl_last_entry, pl_pop;

  always_comb begin
    pl_entry = pl_r_data_i[63:0];
    if (pl_r_valid_i) begin            // a page-list beat is offered: its only use
      for (int l = 0; l < Lanes; l++) begin
        if (pl_lane_q == LaneW'(l)) begin
          pl_entry = pl_r_data_i[64*l +: 64];
        end
      end
    end
  end

  assign pl_take       = st_q == StPageList && pl_r_valid_i && pl_rcv_q != fr.page_count;
  assign pl_last_entry = pl_rcv_q + 32'd1 == fr.page_count;
  assign pl_pop        = pl_take && (pl_lane_q == LaneW'(Lanes - 1) || pl_last_entry);
  assign pl_r_ready_o  = pl_pop;
  assign mtt_we_o      = pl_take;
  assign mtt_idx_o     = MttAW'(pl_mtt_off_q + pl_rcv_q);
  assign mtt_pfn_o     = pl_entry[63:12];

  // ---- the execution FSM ------------------------------------------------------------------------
  logic [31:0]        status, commit_status;
  logic               emit, need_cpl, out_free;
  logic               cpl_valid_q, cpl_valid_d;
  logic [7:0]         cpl_cqn_q, cpl_cqn_d;
  nic_pkg::cqe_t      cpl_cqe_q, cpl_cqe_d;

  // A FastRegister's final status: a DMA error first, then a misaligned page address.
  assign commit_status = pl_err_q ? nic_pkg::STATUS_INTERNAL_ERROR :
                         pl_bad_q ? nic_pkg::STATUS_INVALID_PARAMETER : nic_pkg::STATUS_SUCCESS;
  assign status   = (st_q == StCommit) ? commit_status : run_status;
  assign out_free = !cpl_valid_q || cpl_ready_i;
  assign need_cpl = !(status == nic_pkg::STATUS_SUCCESS &&
                      (hdr.flags & nic_pkg::FLAG_SILENT_SUCCESS) != '0);

  always_comb begin
    st_d         = st_q;
    finish       = 1'b0;
    emit         = 1'b0;
    pl_addr_d    = pl_addr_q;
    pl_left_d    = pl_left_q;
    pl_rcv_d     = pl_rcv_q;
    pl_lane_d    = pl_lane_q;
    pl_err_d     = pl_err_q;
    pl_bad_d     = pl_bad_q;
    pl_mtt_off_d = pl_mtt_off_q;
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

    unique case (st_q)
      StRun: begin
        if (cur_valid_q) begin
          if (discard) begin
            finish = 1'b1;
          end else if (to_tp) begin
            finish = tp_ready_i;                 // the transport takes it (and completes it)
          end else if (tp_hold) begin
            // wait: earlier WQEs of this QP complete in the transport first
          end else if (hdr.opcode == nic_pkg::WQE_OP_FAST_REG &&
                       run_status == nic_pkg::STATUS_SUCCESS) begin
            st_d         = StPageList;
            pl_addr_d    = fr.page_list_addr;
            pl_left_d    = fr.page_count;
            pl_rcv_d     = '0;
            pl_lane_d    = (Lanes > 1) ? LaneW'(fr.page_list_addr >> 3) : '0;
            pl_err_d     = 1'b0;
            pl_bad_d     = 1'b0;
            pl_mtt_off_d = mr_a_mtt_offset_i;
          end else if (!need_cpl || out_free) begin
            finish = 1'b1;
            emit   = need_cpl;
            if (run_status == nic_pkg::STATUS_SUCCESS) begin
              if (hdr.opcode == nic_pkg::WQE_OP_BIND) begin
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
              end else if (hdr.opcode == nic_pkg::WQE_OP_INVALIDATE) begin
                mr_wr_o       = 1'b1;
                mr_wr_idx_o   = a_idx;
                mr_wr_state_o = nic_pkg::MR_STATE_INVALID;
              end
            end
          end
        end
      end
      StPageList: begin
        if (pl_ar_valid_o && pl_ar_ready_i) begin
          pl_addr_d = pl_aligned + {32'd0, pl_burst_bytes};
          pl_left_d = (pl_covered >= pl_left_q) ? '0 : pl_left_q - pl_covered;
        end
        if (pl_take) begin
          pl_rcv_d  = pl_rcv_q + 32'd1;
          pl_lane_d = pl_pop ? '0 : pl_lane_q + LaneW'(1);
          pl_err_d  = pl_err_q || pl_r_resp_i != 2'b00;
          pl_bad_d  = pl_bad_q || pl_entry[11:0] != 12'd0;
        end
        if (pl_left_q == '0 && pl_rcv_q == fr.page_count) begin
          st_d = StCommit;
        end
      end
      StCommit: begin
        if (discard) begin
          finish = 1'b1;
          st_d   = StRun;
        end else if (!need_cpl || out_free) begin
          finish = 1'b1;
          emit   = need_cpl;
          st_d   = StRun;
          if (status == nic_pkg::STATUS_SUCCESS) begin
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
            mr_wr_mtt_base_o = MttAW'(pl_mtt_off_q);
            mr_wr_parent_o   = a_idx;
          end
        end
      end
      default: st_d = StRun;
    endcase
  end

  // Taking the next WQE: when there is none in `cur` or `cur` finishes this cycle.
  assign wqe_ready_o = !cur_valid_q || finish;
  assign load        = wqe_valid_i && wqe_ready_o;

  always_comb begin
    cur_valid_d   = cur_valid_q && !finish;
    cur_qpn_d     = cur_qpn_q;
    cur_idx_d     = cur_idx_q;
    cur_dma_err_d = cur_dma_err_q;
    cur_stale_d   = cur_stale_q || (qp_reset_i && qp_reset_qpn_i == cur_qpn_q);
    if (load) begin
      cur_valid_d   = 1'b1;
      cur_qpn_d     = wqe_qpn_i;
      cur_idx_d     = wqe_idx_i;
      cur_dma_err_d = wqe_dma_err_i;
      cur_stale_d   = wqe_stale_i || (qp_reset_i && qp_reset_qpn_i == wqe_qpn_i);
    end
  end

  // The WQE itself: loaded when taken, and only then (512 bits need no per-cycle copy).
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      cur_wqe_q <= '0;
    end else if (load) begin
      cur_wqe_q <= wqe_data_i;
    end
  end

  // The completion register: holds a CQE until the CQ engine takes it.
  always_comb begin
    cpl_valid_d = cpl_valid_q && !cpl_ready_i;
    cpl_cqn_d   = cpl_cqn_q;
    cpl_cqe_d   = cpl_cqe_q;
    if (emit) begin
      cpl_valid_d         = 1'b1;
      cpl_cqn_d           = qp_cqn;
      cpl_cqe_d           = '0;
      cpl_cqe_d.status    = status;
      cpl_cqe_d.wqe_index = cur_idx_q;
      cpl_cqe_d.qpn       = {8'd0, cur_qpn_q};
      cpl_cqe_d.op_type   = op_type_of(hdr.opcode);
    end
  end

  assign cpl_valid_o  = cpl_valid_q;
  assign cpl_cqn_o    = cpl_cqn_q;
  assign cpl_cqe_o    = cpl_cqe_q;
  assign qp_err_o     = finish && !discard && !to_tp && status != nic_pkg::STATUS_SUCCESS;
  assign qp_err_qpn_o = cur_qpn_q;
  assign retire_o     = finish && !discard;
  assign retire_qpn_o = cur_qpn_q;
  assign retire_idx_o = cur_idx_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      st_q          <= StRun;
      cur_valid_q   <= 1'b0;
      cur_qpn_q     <= '0;
      cur_idx_q     <= '0;
      cur_dma_err_q <= 1'b0;
      cur_stale_q   <= 1'b0;
      pl_addr_q     <= '0;
      pl_left_q     <= '0;
      pl_rcv_q      <= '0;
      pl_lane_q     <= '0;
      pl_err_q      <= 1'b0;
      pl_bad_q      <= 1'b0;
      pl_mtt_off_q  <= '0;
      cpl_valid_q   <= 1'b0;
      cpl_cqn_q     <= '0;
      cpl_cqe_q     <= '0;
    end else begin
      st_q          <= st_d;
      cur_valid_q   <= cur_valid_d;
      cur_qpn_q     <= cur_qpn_d;
      cur_idx_q     <= cur_idx_d;
      cur_dma_err_q <= cur_dma_err_d;
      cur_stale_q   <= cur_stale_d;
      pl_addr_q     <= pl_addr_d;
      pl_left_q     <= pl_left_d;
      pl_rcv_q      <= pl_rcv_d;
      pl_lane_q     <= pl_lane_d;
      pl_err_q      <= pl_err_d;
      pl_bad_q      <= pl_bad_d;
      pl_mtt_off_q  <= pl_mtt_off_d;
      cpl_valid_q   <= cpl_valid_d;
      cpl_cqn_q     <= cpl_cqn_d;
      cpl_cqe_q     <= cpl_cqe_d;
    end
  end

`ifndef SYNTHESIS
  // ---- assertions ---------------------------------------------------------------------------------
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).

  // Completions leave in WQE order per QP: each one's index is after the previous one's
  // (modulo 2^16; SILENT_SUCCESS WQEs leave gaps). A QP reset starts a fresh sequence. The last
  // index per QP is a table written at each completion (no per-QP work in other cycles).
  localparam int QpW = (NumQps > 1) ? $clog2(NumQps) : 1;
  logic [15:0]         last_idx_q [NumQps];
  logic [NumQps-1:0]   seen_q;
  logic                held_q;            // the offered completion was not taken last cycle

  // after the previous index, modulo 2^16 (within half the index space)
  function automatic logic in_order(input logic [15:0] idx, input logic [15:0] last);
    logic [15:0] gap;
    gap      = idx - last;
    in_order = gap != 16'd0 && gap <= 16'h8000;
  endfunction

  logic [7:0]          held_cqn_q;
  nic_pkg::cqe_t       held_cqe_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      seen_q <= '0;
    end else begin
      if (qp_reset_i && 32'(qp_reset_qpn_i) < NumQps) begin
        seen_q[QpW'(qp_reset_qpn_i)] <= 1'b0;
      end
      if (emit && 32'(cur_qpn_q) < NumQps) begin
        seen_q[QpW'(cur_qpn_q)] <= 1'b1;
      end
    end
    if (emit && 32'(cur_qpn_q) < NumQps) begin
      last_idx_q[QpW'(cur_qpn_q)] <= cur_idx_q;
    end
    held_q <= !rst_i && cpl_valid_o && !cpl_ready_i;
    if (cpl_valid_o && !cpl_ready_i) begin
      held_cqn_q <= cpl_cqn_o;
      held_cqe_q <= cpl_cqe_o;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (emit) begin
        if (32'(cur_qpn_q) < NumQps && seen_q[QpW'(cur_qpn_q)]) begin
          a_cpl_in_wqe_order: assert (in_order(cur_idx_q, last_idx_q[QpW'(cur_qpn_q)]));
        end
        a_cpl_not_lost: assert (out_free);
      end
      // The completion offered to the CQ engine stays until taken.
      if (held_q) begin
        a_cpl_stable: assert (cpl_valid_o && cpl_cqe_o == held_cqe_q && cpl_cqn_o == held_cqn_q);
      end
      if (cur_valid_q) begin
        a_cur_qpn_in_range: assert (32'(cur_qpn_q) < NumQps);
      end
      if (cpl_valid_o) begin
        a_cpl_cqn_of_qp: assert (32'(cpl_cqe_o.qpn) < NumQps);
      end
      // Only a FastRegister leaves StRun, and it keeps `cur` until it is done.
      if (st_q != StRun) begin
        a_page_list_owner: assert (cur_valid_q && hdr.opcode == nic_pkg::WQE_OP_FAST_REG);
      end
      // Page-list entries land inside the MTT range the MR was given.
      if (mtt_we_o) begin
        a_mtt_in_range: assert (33'(pl_mtt_off_q) + 33'(pl_rcv_q) < 33'(MttEntries));
      end
      if (pl_r_valid_i) begin
        a_pl_r_expected: assert (st_q == StPageList && pl_rcv_q != fr.page_count);
      end
      // The last entry comes with the last beat of the last burst.
      if (pl_take && pl_last_entry) begin
        a_pl_rlast: assert (pl_r_last_i);
      end
      if (pl_ar_valid_o) begin
        a_pl_burst_ok: assert (pl_beats != '0 && pl_beats <= 9'd256 &&
                               32'(pl_aligned[11:0]) + pl_burst_bytes <= 4096);
      end
    end
  end
`else
  logic unused_pl_last;
  assign unused_pl_last = pl_r_last_i;   // only checked by assertions: entries are counted
`endif

endmodule
