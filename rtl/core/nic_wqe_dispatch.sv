`default_nettype none
// nic_wqe_dispatch: takes the send-queue WQEs from nic_wqe_fetch in buffer order (so in ring
// order per QP), decides what happens to each, sends the transport's to nic_transport and the
// memory operations' checks and writes to nic_mem_op (with nic_page_list reading a
// FastRegister's page list), and hands one completion per WQE it completes to nic_cpl_arb.
//
// Pipeline: taking a WQE from the buffer loads it into `cur` and, in the same cycle, nic_mem_op
// presents its token indices to the MR table; from the next cycle on the table data is valid, so
// a WQE is dispatched in the cycle after it is taken and the next one is taken in that same
// cycle: one WQE per cycle while completions are accepted. A memory operation (FastRegister,
// Bind, Invalidate) waits one cycle more: nic_mem_op's checks are registered, and its status is
// current (mo_ready_i) from the second cycle after the take on, later when its table entries
// were written in the cycle before (the status then waits for the checks of the table as it is).
// FastRegister then waits for its page list before it registers the MR; its commit, too, waits
// for mo_ready_i.
//
// Per WQE, in this order:
//   - stale (its QP was reset since it was fetched) or its QP is RESET: discarded, no completion,
//     not retired;
//   - QP in ERROR: CANCELLED without executing;
//   - a DMA error while fetching it: INTERNAL_ERROR;
//   - its `index` field differs from the ring index it was read from: INVALID_PARAMETER;
//   - NOP: SUCCESS; FAST_REG / BIND / INVALIDATE: nic_mem_op's status;
//   - SEND / SEND_INV / WRITE / READ of a connected (RTS) QP: handed to nic_transport (tp_*),
//     which completes it; on a QP that is not connected: INVALID_PARAMETER; any other opcode:
//     INVALID_PARAMETER.
// Completion order across the two completers: while tp_busy_i[q] (QP q has WQEs in the
// transport), every later WQE of q that would complete here waits; a transport WQE of q still
// goes to the transport then, also when q is in ERROR, so that it is cancelled in order there.
// tp_busy_i may stay high a cycle after q's last WQE left the transport (nic_core gives the
// transport's registered busy bits, nic_requester's busy_reg_o), never low while it has one:
// a WQE of q completed here then waits that cycle more (or is given back, below), and a
// transport WQE of q in ERROR goes to the transport, which cancels it, in order.
// Such a WQE waits in `cur` only while nothing else is waiting behind it: when a WQE (of any QP)
// is offered behind it, it is given back to nic_wqe_fetch (rewind_o: not retired, no
// completion), which fetches q again from it once q has nothing in the transport. So a QP whose
// transport WQEs take long (an RNR episode retried for ever, a peer that does not answer) holds
// only its own later WQEs, never the other QPs'.
// Any status but SUCCESS moves the QP to ERROR (qp_err_o). The retire (retire_o) and the
// error (qp_err_o) of a WQE are registered: they leave in the cycle after its finish (a WQE
// dispatched in that cycle sees its QP's error through a bypass: see "its QP"). A successful
// WQE with FLAG_SILENT_SUCCESS gives no completion; every other WQE gives one. The CQE carries status,
// wqe_index (the ring index), qpn and op_type; the rest is zero (owner is the CQ engine's).
//
// Interfaces: wqe_* and tp_* and cpl_* are valid/ready; the QP context read port (qp_rd_*) is
// request / response, combinational today; nic_mem_op's status is registered (mo_ready_i says
// it is `cur`'s, current).
module nic_wqe_dispatch #(
  parameter int NumQps = 16        // queue pairs, 1..256
) (
  input  logic                          clk_i,
  input  logic                          rst_i,
  // WQE stream from nic_wqe_fetch
  input  logic                          wqe_valid_i,
  output logic                          wqe_ready_o,
  input  logic [511:0]                  wqe_data_i,
  input  logic [7:0]                    wqe_qpn_i,
  input  logic [15:0]                   wqe_idx_i,
  input  logic                          wqe_dma_err_i,
  input  logic                          wqe_stale_i,
  // transport WQEs to nic_transport; tp_busy_i[q]: QP q has WQEs there
  output logic                          tp_valid_o,
  input  logic                          tp_ready_i,
  output logic [511:0]                  tp_data_o,
  output logic [7:0]                    tp_qpn_o,
  output logic [15:0]                   tp_idx_o,
  input  logic [NumQps-1:0]             tp_busy_i,
  // QP context (nic_qp_ctx): a read port for the QP of the WQE in `cur`
  input  logic                          qp_reset_i,        // QP created or destroyed this cycle
  input  logic [7:0]                    qp_reset_qpn_i,
  output logic [7:0]                    qp_rd_qpn_o,       // the QP whose context is read
  input  logic [1:0]                    qp_rd_state_i,     // its state (RESET if out of range)
  input  logic [15:0]                   qp_rd_pd_i,
  input  logic [7:0]                    qp_rd_sq_cqn_i,
  output logic                          qp_err_o,          // a WQE failed: QP := ERROR (registered)
  output logic [7:0]                    qp_err_qpn_o,
  output logic                          retire_o,          // a WQE was executed or cancelled
                                                           // (registered: a cycle after its finish)
  output logic [7:0]                    retire_qpn_o,
  output logic [15:0]                   retire_idx_o,
  output logic                          rewind_o,          // `cur` is given back to the fetch
  output logic [7:0]                    rewind_qpn_o,
  input  logic                          rewind_busy_i,     // ... which has not applied the last
  // completions
  output logic                          cpl_valid_o,
  output logic [7:0]                    cpl_cqn_o,
  output nic_pkg::cqe_t                 cpl_cqe_o,
  input  logic                          cpl_ready_i,
  // nic_mem_op
  output logic                          mo_load_o,         // a WQE is taken (wqe_data_i)
  output logic                          mo_cur_valid_o,    // `cur` holds a WQE ...
  output logic [511:0]                  mo_cur_wqe_o,      // ... this one
  output logic [15:0]                   mo_qp_pd_o,        // ... of a QP of this PD
  input  logic [31:0]                   mo_status_i,       // its checks' status
  input  logic                          mo_ok_i,           // ... is SUCCESS
  input  logic                          mo_ready_i,        // ... are `cur`'s checks now
  input  logic [31:0]                   mo_fr_mtt_offset_i,
  output logic                          mo_exec_o,         // Bind / Invalidate: write now
  output logic                          mo_commit_o,       // FastRegister: register now
  // nic_page_list
  output logic                          pl_load_o,         // idle: load `cur`'s list parameters
  output logic [63:0]                   pl_addr_o,
  output logic [31:0]                   pl_mtt_off_o,
  output logic                          pl_active_o,
  output logic [31:0]                   pl_count_o,
  input  logic                          pl_done_i,
  input  logic                          pl_err_i,
  input  logic                          pl_bad_i
);

  localparam int QpW   = (NumQps > 1) ? $clog2(NumQps) : 1;

  if (NumQps < 1 || NumQps > 256) begin : gen_bad_qps
    $fatal(1, "nic_wqe_dispatch: NumQps must be 1..256");
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
    StRun,        // dispatch `cur` (if any) as soon as its table data is there
    StPageList,   // FastRegister: nic_page_list reads the page list into the MTT
    StCommit      // FastRegister: page list in, register the MR and complete
  } state_e;

  // ---- the WQE in `cur` ---------------------------------------------------------------------------
  state_e                 st_q, st_d;
  logic                   cur_valid_q, cur_valid_d;
  logic [511:0]           cur_wqe_q;
  logic [7:0]             cur_qpn_q, cur_qpn_d;
  logic [15:0]            cur_idx_q, cur_idx_d;
  logic                   cur_dma_err_q, cur_dma_err_d;
  logic                   cur_stale_q, cur_stale_d;
  nic_pkg::wqe_hdr_t      hdr;
  nic_pkg::wqe_fast_reg_t fr;
  logic                   load, finish;
  logic                   bounce;           // `cur` waits for the transport with WQEs behind it

  assign hdr = cur_wqe_q;
  assign fr  = cur_wqe_q;

  // What the decisions ask of `cur`'s WQE, decoded when it is taken and held with it (equal to
  // decoding cur_wqe_q, see a_decode_of_cur): the decisions start from flip-flops, not from
  // the opcode and index compares of the 512-bit register.
  nic_pkg::wqe_hdr_t head;
  logic              cur_tp_op_q, cur_tp_op_d;     // SEND / SEND_INV / WRITE / READ
  logic              cur_mo_q, cur_mo_d;           // FAST_REG / BIND / INVALIDATE
  logic              cur_fr_q, cur_fr_d;           // FAST_REG
  logic              cur_nop_q, cur_nop_d;         // NOP
  logic              cur_silent_q, cur_silent_d;   // FLAG_SILENT_SUCCESS
  logic              cur_idx_ok_q, cur_idx_ok_d;   // its `index` is the ring index it came from

  assign head = wqe_data_i;

  logic unused_views;               // the rest is the transport's and nic_mem_op's
  assign unused_views = ^{hdr, fr, head};

  // ---- its QP -------------------------------------------------------------------------------------
  // The retire and the error of a WQE leave registered (retire_q, qp_err_q: a cycle after its
  // finish), so that nothing from `cur` and nic_mem_op's checks reaches nic_wqe_fetch's tables or
  // nic_qp_ctx's state in one cycle. nic_qp_ctx's state therefore shows a failure one cycle
  // later than it used to: the WQE dispatched in that cycle (the next one, taken at the finish)
  // sees its QP through the bypass below, as ERROR when the failure was of its QP. (nic_qp_ctx
  // moves only a live QP to ERROR: a QP in RESET, or one reset this cycle, is discarded anyway.)
  logic       retire_q, qp_err_q;
  logic [7:0] retire_qpn_q;
  logic [15:0] retire_idx_q;
  logic [1:0] qp_state;
  logic       discard;

  assign qp_rd_qpn_o = cur_qpn_q;
  assign qp_state    = (qp_err_q && retire_qpn_q == cur_qpn_q &&
                        qp_rd_state_i != nic_pkg::QP_STATE_RESET) ? nic_pkg::QP_STATE_ERROR
                                                                  : qp_rd_state_i;
  assign discard     = cur_stale_q || (qp_reset_i && qp_reset_qpn_i == cur_qpn_q) ||
                       qp_state == nic_pkg::QP_STATE_RESET;

  // ---- transport WQEs -----------------------------------------------------------------------------
  logic is_tp_op, tp_busy, to_tp, tp_hold;
  assign is_tp_op = cur_tp_op_q;
  assign tp_busy  = 32'(cur_qpn_q) < NumQps && tp_busy_i[QpW'(cur_qpn_q)];
  // to the transport: a well-formed transport WQE of a connected QP, or of a QP in error whose
  // earlier transport WQEs are still there (the transport cancels it after them)
  assign to_tp    = is_tp_op && !cur_dma_err_q && cur_idx_ok_q &&
                    (qp_state == nic_pkg::QP_STATE_RTS ||
                     (qp_state == nic_pkg::QP_STATE_ERROR && tp_busy));
  // anything completed here waits while earlier WQEs of its QP are in the transport
  assign tp_hold  = !to_tp && tp_busy;

  assign tp_valid_o = st_q == StRun && cur_valid_q && !discard && to_tp;
  assign tp_data_o  = cur_wqe_q;
  assign tp_qpn_o   = cur_qpn_q;
  assign tp_idx_o   = cur_idx_q;

  // ---- the status of `cur` when it is reached (FastRegister: before its page list) ----------------
  // run_ok is run_status == SUCCESS, as one AND of registered decodes and nic_mem_op's ok: the
  // decisions need only that bit; the 32-bit status goes only into the CQE.
  logic [31:0] run_status;
  logic        run_ok;

  assign run_ok = !cur_valid_q ||
                  (qp_state != nic_pkg::QP_STATE_ERROR && !cur_dma_err_q && cur_idx_ok_q &&
                   (cur_nop_q || (cur_mo_q && mo_ok_i)));

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
        nic_pkg::WQE_OP_FAST_REG,
        nic_pkg::WQE_OP_BIND,
        nic_pkg::WQE_OP_INVALIDATE: run_status = mo_status_i;
        default:                    run_status = nic_pkg::STATUS_INVALID_PARAMETER;
      endcase
    end
  end

  assign mo_cur_valid_o = cur_valid_q;
  assign mo_cur_wqe_o   = cur_wqe_q;
  assign mo_qp_pd_o     = qp_rd_pd_i;

  // ---- the FSM --------------------------------------------------------------------------------------
  logic [31:0]   status, commit_status;
  logic          ok, commit_ok;                 // status / commit_status is SUCCESS
  logic          emit, need_cpl, out_free;
  logic          cpl_valid_q, cpl_valid_d;
  logic [7:0]    cpl_cqn_q, cpl_cqn_d;
  nic_pkg::cqe_t cpl_cqe_q, cpl_cqe_d;

  // A FastRegister's final status: a DMA error first, then a misaligned page address, then
  // nic_mem_op's checks as they are now (its MR freed or initialised again meanwhile: the MR
  // is not registered; otherwise they pass as they did before the page list).
  assign commit_status = pl_err_i ? nic_pkg::STATUS_INTERNAL_ERROR :
                         pl_bad_i ? nic_pkg::STATUS_INVALID_PARAMETER : mo_status_i;
  assign commit_ok     = !pl_err_i && !pl_bad_i && mo_ok_i;
  assign status   = (st_q == StCommit) ? commit_status : run_status;
  assign ok       = (st_q == StCommit) ? commit_ok : run_ok;
  assign out_free = !cpl_valid_q || cpl_ready_i;
  assign need_cpl = !(ok && cur_silent_q);

  always_comb begin
    st_d        = st_q;
    finish      = 1'b0;
    emit        = 1'b0;
    bounce      = 1'b0;
    mo_exec_o   = 1'b0;
    mo_commit_o = 1'b0;

    unique case (st_q)
      StRun: begin
        if (cur_valid_q) begin
          if (discard) begin
            finish = 1'b1;
          end else if (to_tp) begin
            finish = tp_ready_i;                 // the transport takes it (and completes it)
          end else if (tp_hold) begin
            // earlier WQEs of this QP complete in the transport first: wait, unless another WQE
            // waits behind: then give it back to the fetch (it comes again once the QP is idle)
            bounce = wqe_valid_i && !rewind_busy_i;
            finish = bounce;
          end else if (cur_mo_q && !mo_ready_i) begin
            // a memory operation: its registered checks are not yet current
          end else if (cur_fr_q && run_ok) begin
            st_d       = StPageList;
          end else if (!need_cpl || out_free) begin
            finish    = 1'b1;
            emit      = need_cpl;
            mo_exec_o = run_ok;                  // Bind / Invalidate write
          end
        end
      end
      StPageList: begin
        if (pl_done_i) begin
          st_d = StCommit;
        end
      end
      StCommit: begin
        if (discard) begin
          finish = 1'b1;
          st_d   = StRun;
        end else if (!mo_ready_i) begin
          // the checks again, as they are at the commit: not yet current
        end else if (!need_cpl || out_free) begin
          finish      = 1'b1;
          emit        = need_cpl;
          st_d        = StRun;
          mo_commit_o = ok;
        end
      end
      default: st_d = StRun;
    endcase
  end

  // The reader loads while `cur` is not in its page list or commit (StRun, a registered
  // decision): when a FastRegister goes to StPageList it has loaded that cycle's values, the
  // ones a start pulse in that cycle would have given it.
  assign pl_load_o     = st_q == StRun;
  assign pl_addr_o     = fr.page_list_addr;
  assign pl_mtt_off_o  = mo_fr_mtt_offset_i;
  assign pl_active_o   = st_q == StPageList;
  assign pl_count_o    = fr.page_count;

  // Taking the next WQE: when there is none in `cur` or `cur` finishes this cycle (not in a
  // rewind's cycle: nic_wqe_fetch marks the rewound QP's WQEs stale from the next cycle on).
  assign wqe_ready_o = !cur_valid_q || (finish && !bounce);
  assign load        = wqe_valid_i && wqe_ready_o;
  assign mo_load_o   = load;

  always_comb begin
    cur_valid_d   = cur_valid_q && !finish;
    cur_qpn_d     = cur_qpn_q;
    cur_idx_d     = cur_idx_q;
    cur_dma_err_d = cur_dma_err_q;
    cur_stale_d   = cur_stale_q || (qp_reset_i && qp_reset_qpn_i == cur_qpn_q);
    cur_tp_op_d   = cur_tp_op_q;
    cur_mo_d      = cur_mo_q;
    cur_fr_d      = cur_fr_q;
    cur_nop_d     = cur_nop_q;
    cur_silent_d  = cur_silent_q;
    cur_idx_ok_d  = cur_idx_ok_q;
    if (load) begin
      cur_valid_d   = 1'b1;
      cur_qpn_d     = wqe_qpn_i;
      cur_idx_d     = wqe_idx_i;
      cur_dma_err_d = wqe_dma_err_i;
      cur_stale_d   = wqe_stale_i || (qp_reset_i && qp_reset_qpn_i == wqe_qpn_i);
      cur_tp_op_d   = head.opcode == nic_pkg::WQE_OP_SEND || head.opcode == nic_pkg::WQE_OP_SEND_INV ||
                      head.opcode == nic_pkg::WQE_OP_WRITE || head.opcode == nic_pkg::WQE_OP_READ;
      cur_mo_d      = head.opcode == nic_pkg::WQE_OP_FAST_REG || head.opcode == nic_pkg::WQE_OP_BIND ||
                      head.opcode == nic_pkg::WQE_OP_INVALIDATE;
      cur_fr_d      = head.opcode == nic_pkg::WQE_OP_FAST_REG;
      cur_nop_d     = head.opcode == nic_pkg::WQE_OP_NOP;
      cur_silent_d  = (head.flags & nic_pkg::FLAG_SILENT_SUCCESS) != '0;
      cur_idx_ok_d  = head.index == wqe_idx_i;
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

  // The completion register: holds a CQE until it is taken.
  always_comb begin
    cpl_valid_d = cpl_valid_q && !cpl_ready_i;
    cpl_cqn_d   = cpl_cqn_q;
    cpl_cqe_d   = cpl_cqe_q;
    if (emit) begin
      cpl_valid_d         = 1'b1;
      cpl_cqn_d           = qp_rd_sq_cqn_i;
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
  // The retire and the error, registered (see "its QP" above); a failed WQE is retired too, so the
  // two share the QP number.
  logic retire_d, qp_err_d;
  assign retire_d     = finish && !discard && !bounce;
  assign qp_err_d     = retire_d && !to_tp && !ok;
  assign qp_err_o     = qp_err_q;
  assign qp_err_qpn_o = retire_qpn_q;
  assign retire_o     = retire_q;
  assign retire_qpn_o = retire_qpn_q;
  assign retire_idx_o = retire_idx_q;
  assign rewind_o     = bounce;
  assign rewind_qpn_o = cur_qpn_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      st_q          <= StRun;
      cur_valid_q   <= 1'b0;
      cur_qpn_q     <= '0;
      cur_idx_q     <= '0;
      cur_dma_err_q <= 1'b0;
      cur_stale_q   <= 1'b0;
      cur_tp_op_q   <= 1'b0;             // as the all-zero WQE of the reset decodes: a NOP
      cur_mo_q      <= 1'b0;
      cur_fr_q      <= 1'b0;
      cur_nop_q     <= 1'b1;
      cur_silent_q  <= 1'b0;
      cur_idx_ok_q  <= 1'b1;
      cpl_valid_q   <= 1'b0;
      cpl_cqn_q     <= '0;
      cpl_cqe_q     <= '0;
      retire_q      <= 1'b0;
      qp_err_q      <= 1'b0;
      retire_qpn_q  <= '0;
      retire_idx_q  <= '0;
    end else begin
      st_q          <= st_d;
      cur_valid_q   <= cur_valid_d;
      cur_qpn_q     <= cur_qpn_d;
      cur_idx_q     <= cur_idx_d;
      cur_dma_err_q <= cur_dma_err_d;
      cur_stale_q   <= cur_stale_d;
      cur_tp_op_q   <= cur_tp_op_d;
      cur_mo_q      <= cur_mo_d;
      cur_fr_q      <= cur_fr_d;
      cur_nop_q     <= cur_nop_d;
      cur_silent_q  <= cur_silent_d;
      cur_idx_ok_q  <= cur_idx_ok_d;
      cpl_valid_q   <= cpl_valid_d;
      cpl_cqn_q     <= cpl_cqn_d;
      cpl_cqe_q     <= cpl_cqe_d;
      retire_q      <= retire_d;
      qp_err_q      <= qp_err_d;
      retire_qpn_q  <= cur_qpn_q;
      retire_idx_q  <= cur_idx_q;
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
  logic [15:0]       last_idx_q [NumQps];
  logic [NumQps-1:0] seen_q;
  logic              held_q;            // the offered completion was not taken last cycle

  // after the previous index, modulo 2^16 (within half the index space)
  function automatic logic in_order(input logic [15:0] idx, input logic [15:0] last);
    logic [15:0] gap;
    gap      = idx - last;
    in_order = gap != 16'd0 && gap <= 16'h8000;
  endfunction

  logic [7:0]    held_cqn_q;
  nic_pkg::cqe_t held_cqe_q;

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
      // The completion offered stays until taken.
      if (held_q) begin
        a_cpl_stable: assert (cpl_valid_o && cpl_cqe_o == held_cqe_q && cpl_cqn_o == held_cqn_q);
      end
      if (cur_valid_q) begin
        a_cur_qpn_in_range: assert (32'(cur_qpn_q) < NumQps);
        a_decode_of_cur: assert (
          cur_tp_op_q == (hdr.opcode == nic_pkg::WQE_OP_SEND || hdr.opcode == nic_pkg::WQE_OP_SEND_INV ||
                          hdr.opcode == nic_pkg::WQE_OP_WRITE || hdr.opcode == nic_pkg::WQE_OP_READ) &&
          cur_mo_q == (hdr.opcode == nic_pkg::WQE_OP_FAST_REG || hdr.opcode == nic_pkg::WQE_OP_BIND ||
                       hdr.opcode == nic_pkg::WQE_OP_INVALIDATE) &&
          cur_fr_q == (hdr.opcode == nic_pkg::WQE_OP_FAST_REG) &&
          cur_nop_q == (hdr.opcode == nic_pkg::WQE_OP_NOP) &&
          cur_silent_q == ((hdr.flags & nic_pkg::FLAG_SILENT_SUCCESS) != '0) &&
          cur_idx_ok_q == (hdr.index == cur_idx_q));
        a_ok_is_success: assert (ok == (status == nic_pkg::STATUS_SUCCESS));
      end
      if (cpl_valid_o) begin
        a_cpl_cqn_of_qp: assert (32'(cpl_cqe_o.qpn) < NumQps);
      end
      // Only a FastRegister leaves StRun, and it keeps `cur` until it is done.
      if (st_q != StRun) begin
        a_page_list_owner: assert (cur_valid_q && hdr.opcode == nic_pkg::WQE_OP_FAST_REG);
      end
      // A memory operation's write is of a successful one, and only one kind at a time.
      if (mo_commit_o) begin
        a_commit_is_fast_reg: assert (hdr.opcode == nic_pkg::WQE_OP_FAST_REG && !mo_exec_o);
      end
      // A memory operation is decided (finished, or sent to its page list) only on its current
      // checks.
      if (cur_valid_q && cur_mo_q && !discard && !bounce &&
          (finish || (st_q == StRun && st_d == StPageList))) begin
        a_mem_op_decided_ready: assert (mo_ready_i);
      end
    end
  end
`endif

endmodule
