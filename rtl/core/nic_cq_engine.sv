`default_nettype none
// nic_cq_engine: completion queues. It owns the CQ contexts, writes each completion as a 32-byte
// CQE into the CQ's ring in host memory (through nic_dma_wr), detects overflow from the consumer
// index, and turns arms into MSI-X interrupt requests (through nic_msix).
//
// Ports (besides clock and reset):
//   cmd_*   one-cycle command broadcast from nic_csr; this engine applies CQ_CREATE (arguments
//           nic_pkg::cmd_cq_create_t: ring base, 4 KiB aligned; log_depth; msix_vector) and
//           CQ_DESTROY in the cycle they arrive. A CQ_CREATE with cqn >= NumCqs, log_depth >
//           LogMaxCqDepth, msix_vector >= MsixVectors or an unaligned base is ignored (the CQ
//           stays as it was).
//   db_*    one-cycle CQ doorbell from nic_csr: db_moderation_i = 0 for the CI_ARM word
//           (nic_pkg::cq_ci_arm_t), 1 for the MODERATION word (nic_pkg::cq_moderation_t).
//   cpl_*   completion requests from nic_cpl_arb (valid/ready; cpl_cqe_i.owner is ignored).
//   wr_*    32-byte record writes to nic_dma_wr port 0 (valid/ready; stable until accepted).
//   irq_*   interrupt requests to nic_msix (valid/ready; stable until accepted).
//   wr_fault_*  nic_dma_wr: a record write of CQ wr_fault_cqn_i got an AXI error response (the
//           CQE did not land): the CQ enters error with INTERNAL_ERROR (below).
//   cq_error_o[n]            CQ n is in error (overflowed, or a record write failed).
//   state_rd_cqn_i -> state_rd_data_o   combinational CSR read-back (nic_pkg::cq_state_t).
//
// Why this file passes ~800 lines: its logic ends near line 700; the rest is what checks it,
// kept beside the state it speaks of: the simulation assertions (not SYNTHESIS) and the formal
// properties (FORMAL, proven by make formal, docs/verification.md), which the simulation
// compiles too. Yosys 0.23 has no bind statement to move them into a file of their own.
//
// This engine is the only owner of CQ state: no other module keeps a copy of a per-CQ field
// (nic_qp_ctx reads cq_error_o; the QPs' CQ numbers are QP state).
//
// Per CQ: producer index pi and consumer index ci (16-bit free running), error, arm state, and
// since_sol: how many CQEs were written after the latest solicited or error one (saturating).
// The ring holds 2^log_depth CQEs; the cq_error_record sits right after the last slot.
//
// A completion for a CQ that is not created or already in error is accepted and dropped. If
// pi - ci == depth the CQ overflows: it enters error and the error record (BUFFER_OVERFLOW,
// producer_index = pi) is written instead of the CQE; no CQE is ever written over an entry the
// consumer has not released. Otherwise the CQE goes to slot pi mod depth with
// owner = ((pi >> log_depth) & 1) ^ 1 and pi advances.
//
// A CQE write that failed (wr_fault_i, AXI SLVERR / DECERR on its B response, reported after
// the CQ may have written more) loses that CQE, so the CQ cannot be trusted any more: it enters
// error as on overflow, with the error record's status INTERNAL_ERROR (NDK: the notification
// reports STATUS_INTERNAL_ERROR, "fatal, usually hardware"; the CQ and its QPs are unusable).
// The record is written before any further completion is taken; a failure of the error record
// itself changes nothing more (the CQ is already in error; its state register says so).
//
// pi, error and since_sol change only when nic_dma_wr accepts the write, so everything the arm
// logic looks at is already ahead of the interrupt on the single-ID write channel: the MSI-X
// message always follows the CQE (or error record) that caused it.
//
// Consumer index: a CI_ARM word whose consumer_index would move ci backwards or past pi is a
// driver bug; the engine keeps the old ci (the arm bit still counts), so ci stays in [ci, pi]
// and the "never overwrite an unreleased entry" guarantee cannot be broken from the host.
//
// Arming (NDK's NdkArmCq rules, quoted with their tests in docs/conformance.md, C3-C8): an arm
// is one-shot; the engine clears it when it fires. A second arm before the first fired merges to
// the stronger (ANY > SOLICITED > ERRORS, NDK's table, C8); arm_type 3 is not defined and is taken as ANY, so that a malformed arm can at
// worst cause a spurious interrupt, never a lost one. ANY is satisfied by any entry in [ci, pi),
// SOLICITED by an entry that is solicited or has an error status (since_sol < pi - ci), ERRORS
// only by a CQ error; a CQ error satisfies every type.
// Our choice for NDK's "may" case (C6): the fire condition is a level over [ci, pi), not an edge
// on new entries, so an arm with entries present fires at once whether or not they were newly
// placed since the last notification (the "must" case, C5) or already notified (the "may"
// case). mlx5 and Corundum do the same; it closes the lost-wake-up race in which the consumer
// arms just after its last poll missed an entry. An arm on a CQ in error fires at once.
// A CQ fires again only after its previous interrupt request went to nic_msix, so every arm
// gets its own request.
//
// Interrupt moderation (NdkControlCqInterruptModeration), per CQ, from the MODERATION doorbell
// word (interval_us, count). "Satisfied" is the arm condition above;
// without moderation (word 0) a satisfied arm fires at once. With it, the satisfied arm is held
// until one of its bounds is reached, the NDK reading of both values as maxima:
//   - count != 0: at least `count` CQEs were written since the CQ's last notification (new_q,
//     saturating, cleared when the CQ fires);
//   - interval != 0: `interval` ticks of us_tick_i arrived while the arm stayed satisfied
//     (tim_q counts them and restarts from 0 whenever the arm is not satisfied). With a 1 us
//     tick the hold lasts between interval - 1 and interval microseconds (NDK lets a provider
//     round the interval down to its timer's granularity).
// A CQ error is never held: it fires at once (the CQ is dead, no count would ever be reached).
// A new word takes effect in the next cycle ("latest settings win"); the timer keeps running.
module nic_cq_engine #(
  parameter int NumCqs        = 16,  // completion queues, 1..256
  parameter int LogMaxCqDepth = 14,  // largest CQ: 2^LogMaxCqDepth CQEs, <= 15 (16-bit indices)
  parameter int MsixVectors   = 16   // MSI-X vectors a CQ may name, 1..2048
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  input  logic                 us_tick_i,    // one-cycle pulse every microsecond (moderation)
  // commands
  input  logic                 cmd_valid_i,
  input  logic [7:0]           cmd_op_i,
  input  logic [15:0]          cmd_index_i,
  input  logic [255:0]         cmd_args_i,
  // CQ doorbells
  input  logic                 db_valid_i,
  input  logic [7:0]           db_cqn_i,
  input  logic                 db_moderation_i,
  input  logic [31:0]          db_data_i,
  // completion requests
  input  logic                 cpl_valid_i,
  input  logic [7:0]           cpl_cqn_i,
  input  nic_pkg::cqe_t        cpl_cqe_i,
  output logic                 cpl_ready_o,
  // record writes (nic_dma_wr port 0)
  output logic                 wr_valid_o,
  output logic [63:0]          wr_addr_o,
  output logic [255:0]         wr_data_o,
  output logic [7:0]           wr_cqn_o,     // the CQ of the record offered
  input  logic                 wr_ready_i,
  // a record write failed (nic_dma_wr's B response)
  input  logic                 wr_fault_i,
  input  logic [7:0]           wr_fault_cqn_i,
  // interrupt requests (nic_msix)
  output logic                 irq_valid_o,
  output logic [15:0]          irq_vector_o,
  input  logic                 irq_ready_i,
  // status
  output logic [NumCqs-1:0]    cq_error_o,
  input  logic [7:0]           state_rd_cqn_i,
  output logic [31:0]          state_rd_data_o
);

  localparam int CqBits   = (NumCqs > 1) ? $clog2(NumCqs) : 1;
  localparam int BaseBits = 52;                    // ring base address [63:12] (4 KiB aligned)

  if (NumCqs < 1 || NumCqs > 256) begin : gen_bad_num_cqs
    $fatal(1, "nic_cq_engine: NumCqs must be 1..256");
  end
  if (LogMaxCqDepth < 0 || LogMaxCqDepth > 15) begin : gen_bad_log_depth
    $fatal(1, "nic_cq_engine: LogMaxCqDepth must be 0..15 (indices are 16 bits)");
  end
  if (MsixVectors < 1 || MsixVectors > 2048) begin : gen_bad_vectors
    $fatal(1, "nic_cq_engine: MsixVectors must be 1..2048");
  end

  // ---- CQ contexts ----
  // How they are kept is the simulation's main cost in this engine, so:
  //   - the flags the arm logic reads are one bit per CQ in vectors, and "satisfied / held /
  //     fire" are vector operations on them, with no loop over the CQs;
  //   - what the hold needs from the 16-bit counters is kept as derived bits, updated by the
  //     events that change a counter (creach: count reached; treach: interval reached), and the
  //     counters reset lazily (newz: `new` is 0; tlive: `tim` is not 0), so a notification or
  //     the end of a hold touches only bits;
  //   - the indices are written at the one entry an event names; the only loop over the CQs
  //     runs on a microsecond tick while some arm is held (the timers of the held CQs).
  logic [NumCqs-1:0]    valid_q, valid_d;
  logic [NumCqs-1:0]    error_q, error_d;
  logic [NumCqs-1:0]    armed_q, armed_d;
  logic [NumCqs-1:0]    any_q, any_d;          // the arm's type is ANY
  logic [NumCqs-1:0]    sol_q, sol_d;          // ... SOLICITED (neither: ERRORS)
  logic [NumCqs-1:0]    npend_q, npend_d;      // fired, interrupt request not yet issued
  logic [NumCqs-1:0]    nonempty_q, nonempty_d;  // pi != ci
  logic [NumCqs-1:0]    solp_q, solp_d;        // a solicited/error entry is in [ci, pi)
  logic [NumCqs-1:0]    modded_q, modded_d;    // the moderation word is not 0
  logic [NumCqs-1:0]    creach_q, creach_d;    // count != 0 and new >= count
  logic [NumCqs-1:0]    newz_q, newz_d;        // new is 0 (new_q's entry is stale)
  logic [NumCqs-1:0]    tlive_q, tlive_d;      // tim is not 0: tim_q's entry holds it
  logic [NumCqs-1:0]    treach_q, treach_d;    // with tlive: interval != 0 and tim >= interval
  logic [NumCqs-1:0]    fault_q, fault_d;      // a record write failed: the error record is due
  // The indices pi, ci and ss (since_sol) of each CQ: LUT RAMs with one write port each (pi, ss:
  // the commit; ci: the doorbell), beside bits that say what an entry reads instead of its word
  // since a reset or a command (pi, ci: 0; ss: 0 after the reset, 0xffff after a command), so
  // no entry needs a second write port and no index lives in flip-flops read through a 16-way
  // mux at each of the nine ports below.
  logic [15:0]          pi_mem [NumCqs];
  logic [15:0]          ci_mem [NumCqs];
  logic [15:0]          ss_mem [NumCqs];
  logic [NumCqs-1:0]    pi_z_q, ci_z_q;        // reads 0
  logic [NumCqs-1:0]    ss_r_q, ss_c_q;        // reads 0 (reset), reads 0xffff (command)
  // RAM-like: written (by CQ_CREATE, or before the bit that validates them is set) before use
  logic [BaseBits-1:0]  base_q [NumCqs];
  logic [3:0]           logd_q [NumCqs];       // log2(depth)
  logic [15:0]          vec_q  [NumCqs];       // MSI-X vector
  logic [31:0]          mod_q  [NumCqs];       // moderation word {interval, count}
  logic [15:0]          new_q  [NumCqs];       // CQEs written since the last notification
  logic [15:0]          tim_q  [NumCqs];       // us ticks while the arm is satisfied and held

  // ---- completion FSM ----
  typedef enum logic [0:0] {
    S_IDLE,   // ready for a completion request
    S_WRITE   // a record is offered to nic_dma_wr
  } state_e;

  state_e              state_q, state_d;
  logic [63:0]         wr_addr_q, wr_addr_d;
  logic [255:0]        wr_data_q, wr_data_d;
  logic [CqBits-1:0]   wr_cqn_q, wr_cqn_d;
  logic                wr_is_err_q, wr_is_err_d;  // the record is the CQ error record
  logic                wr_sol_q, wr_sol_d;        // the CQE is solicited or has an error status
  logic                stale_q, stale_d;          // the CQ was created/destroyed meanwhile

  // ---- interrupt request register ----
  logic                irq_valid_q, irq_valid_d;
  logic [15:0]         irq_vector_q, irq_vector_d;
  logic [CqBits-1:0]   irq_cqn_q, irq_cqn_d;
  logic [CqBits-1:0]   rr_q, rr_d;                // round-robin start among fired CQs

  // ---- helpers ----
  function automatic logic [1:0] arm_merge(input logic [1:0] a, input logic [1:0] b);
    // NDK's table (docs/conformance.md C8): ANY beats everything, SOLICITED beats ERRORS
    if (a == nic_pkg::ARM_ANY || b == nic_pkg::ARM_ANY) begin
      arm_merge = nic_pkg::ARM_ANY;
    end else if (a == nic_pkg::ARM_SOLICITED || b == nic_pkg::ARM_SOLICITED) begin
      arm_merge = nic_pkg::ARM_SOLICITED;
    end else begin
      arm_merge = nic_pkg::ARM_ERRORS;
    end
  endfunction

  function automatic logic [16:0] depth_of(input logic [3:0] logd);
    depth_of = 17'd1 << logd;
  endfunction

  // a saturating 16-bit counter's next value
  function automatic logic [15:0] sat_inc(input logic [15:0] v);
    sat_inc = (v == 16'hffff) ? v : v + 16'd1;
  endfunction

  // ---- command decode ----
  logic              cmd_in_range, cmd_create, cmd_destroy, cmd_any;
  logic [CqBits-1:0] cmd_cqn;
  logic [63:0]       cmd_base;
  logic [7:0]        cmd_logd;
  logic [15:0]       cmd_vec;
  nic_pkg::cmd_cq_create_t create_args;

  assign create_args = cmd_args_i;

  always_comb begin
    cmd_in_range = cmd_index_i < 16'(NumCqs);
    cmd_cqn      = CqBits'(cmd_index_i);
    cmd_base     = create_args.base;
    cmd_logd     = create_args.log_depth;
    cmd_vec      = create_args.msix_vector;
    cmd_create   = cmd_valid_i && cmd_op_i == nic_pkg::CMD_CQ_CREATE && cmd_in_range
                   && 32'(cmd_logd) <= LogMaxCqDepth && 32'(cmd_vec) < MsixVectors
                   && cmd_base[11:0] == 12'd0;
    cmd_destroy  = cmd_valid_i && cmd_op_i == nic_pkg::CMD_CQ_DESTROY && cmd_in_range;
    cmd_any      = cmd_create || cmd_destroy;
  end

  // ---- doorbell decode ----
  logic              db_in_range, db_ci, db_arm, db_mod, db_ci_ok;
  logic [CqBits-1:0] db_cqn;
  logic [15:0]       db_new_ci, db_old_ci, db_pi;
  logic [1:0]        db_type;
  nic_pkg::cq_ci_arm_t     db_ci_arm;
  nic_pkg::cq_moderation_t db_moderation;

  assign db_ci_arm     = db_data_i;
  assign db_moderation = db_data_i;

  always_comb begin
    db_in_range = {1'b0, db_cqn_i} < 9'(NumCqs);
    db_cqn      = CqBits'(db_cqn_i);
    db_ci       = db_valid_i && !db_moderation_i && db_in_range && valid_q[db_cqn];
    db_arm      = db_ci && db_ci_arm.arm;
    db_mod      = db_valid_i && db_moderation_i && db_in_range && valid_q[db_cqn];
    db_new_ci   = db_ci_arm.consumer_index;
    db_old_ci   = ci_z_q[db_cqn] ? 16'd0 : ci_mem[db_cqn];
    db_pi       = pi_z_q[db_cqn] ? 16'd0 : pi_mem[db_cqn];
    // ci may only move forward, and not past pi (see the header)
    db_ci_ok    = (db_new_ci - db_old_ci) <= (db_pi - db_old_ci);
    db_type     = (db_ci_arm.arm_type == 2'd3) ? nic_pkg::ARM_ANY : db_ci_arm.arm_type;
  end

  // ---- completion request decode (the context as it is now; see S_IDLE) ----
  logic                      acc_in_range, acc_live, acc_full;
  logic [CqBits-1:0]         acc_cqn;
  logic [15:0]               acc_pi, acc_ci, acc_occ, acc_slot;
  logic [3:0]                acc_logd;
  logic [16:0]               acc_depth;
  logic [63:0]               acc_ring;
  nic_pkg::cqe_t             acc_cqe;
  nic_pkg::cq_error_record_t acc_rec;
  logic                      acc_sol;

  // A CQ whose record write failed goes first (the lowest such CQ): its error record is written
  // instead of taking a completion.
  logic              flt_any;
  logic [CqBits-1:0] flt_cqn;
  logic [NumCqs-1:0] flt_live;          // due, and the CQ still live and not in error
  always_comb begin
    flt_live = fault_q & valid_q & ~error_q;
    flt_any  = flt_live != '0;
    flt_cqn  = '0;
    for (int c = NumCqs - 1; c >= 0; c--) begin
      if (flt_live[c]) begin
        flt_cqn = CqBits'(c);
      end
    end
  end
  assign acc_cqn = flt_any ? flt_cqn : CqBits'(cpl_cqn_i);

  // The decision (S_IDLE) and the commit (S_WRITE) never fall in one cycle, so they share one
  // read of the indices: ctx_cqn, selected by the state register alone. (Read separately, Yosys
  // merges the two reads into one anyway, with an address mux selected by the whole decision:
  // that put the completion request, the fault pick and the FSM in front of the index RAMs.)
  logic [CqBits-1:0] ctx_cqn;
  logic [15:0]       ctx_pi, ctx_ci;
  always_comb begin
    ctx_cqn = (state_q == S_WRITE) ? wr_cqn_q : acc_cqn;
    ctx_pi  = pi_z_q[ctx_cqn] ? 16'd0 : pi_mem[ctx_cqn];
    ctx_ci  = ci_z_q[ctx_cqn] ? 16'd0 : ci_mem[ctx_cqn];
  end

  always_comb begin
    acc_in_range = {1'b0, cpl_cqn_i} < 9'(NumCqs);
    acc_live     = acc_in_range && valid_q[acc_cqn] && !error_q[acc_cqn];
    acc_pi       = ctx_pi;
    acc_ci       = ctx_ci;
    acc_logd     = logd_q[acc_cqn];
    acc_depth    = depth_of(acc_logd);
    acc_occ      = acc_pi - acc_ci;
    acc_full     = 17'(acc_occ) >= acc_depth;
    acc_slot     = acc_pi & 16'(acc_depth - 17'd1);
    acc_ring     = {base_q[acc_cqn], 12'd0};

    acc_cqe       = cpl_cqe_i;
    acc_cqe.owner = {7'd0, ~acc_pi[acc_logd]};
    acc_sol       = (cpl_cqe_i.flags & nic_pkg::CQE_FLAG_SOLICITED) != 8'd0
                    || cpl_cqe_i.status != nic_pkg::STATUS_SUCCESS;

    acc_rec                = '0;
    acc_rec.status         = flt_any ? nic_pkg::STATUS_INTERNAL_ERROR
                                     : nic_pkg::STATUS_BUFFER_OVERFLOW;
    acc_rec.producer_index = acc_pi;
  end

  // Control pulses cannot wait, so a completion is not taken in a cycle that carries one: the
  // decision then always sees a settled context.
  assign cpl_ready_o = (state_q == S_IDLE) && !cmd_valid_i && !db_valid_i && !flt_any;

  // ---- the arm condition, for every CQ at once, from registered state ----
  // satisfied: the arm's condition holds; held: moderation holds it (neither bound reached);
  // fire: it goes out now; hold: satisfied and held (the CQ's timer runs).
  logic [NumCqs-1:0] satisfied, held, fire, hold;

  assign satisfied = valid_q & armed_q & ~npend_q
                     & (error_q | (any_q & nonempty_q) | (sol_q & solp_q));
  assign held      = ~error_q & modded_q & ~creach_q & ~(tlive_q & treach_q);
  assign fire      = satisfied & ~held;
  assign hold      = satisfied & held;

  // ---- interrupt request pick: round robin over fired CQs ----
  // The lowest pending CQ at or above rr_q, else the lowest pending one.
  logic              pick_found;
  logic [CqBits-1:0] pick_cqn;
  logic              irq_free;
  logic [NumCqs-1:0] pend_hi, pend_cand, pick_onehot, pick_sel;

  assign pick_found  = npend_q != '0;
  assign pend_hi     = npend_q & ~((NumCqs'(1) << rr_q) - NumCqs'(1));
  assign pend_cand   = (pend_hi != '0) ? pend_hi : npend_q;
  assign pick_onehot = pend_cand & (~pend_cand + NumCqs'(1));
  for (genvar b = 0; b < CqBits; b++) begin : gen_pick_encode
    // bit b of the index of the one set bit: an OR over the CQs whose number has bit b set
    logic [NumCqs-1:0] has_bit;
    for (genvar c = 0; c < NumCqs; c++) begin : gen_has_bit
      assign has_bit[c] = ((c >> b) & 1) == 1;
    end
    assign pick_cqn[b] = (pick_onehot & has_bit) != '0;
  end

  assign irq_free = !irq_valid_q || irq_ready_i;
  assign pick_sel = (irq_free && pick_found) ? pick_onehot : '0;

  // ---- next state ----
  logic              commit;        // the record write is accepted and updates the context
  logic              commit_cqe;    // ... and it is a CQE (not the error record)
  logic [15:0]       wr_pi_now, wr_ci_now, wr_ss_now;
  logic [15:0]       c_pi, c_ss, c_ci;      // commit CQ after this cycle
  logic [15:0]       d_pi, d_ss, d_ci;      // doorbell CQ after this cycle
  logic [1:0]        db_atype_now, db_atype_new;
  logic              db_armed_after_fire;
  logic              c_same_d;               // commit and doorbell name the same CQ

  always_comb begin
    state_d     = state_q;
    wr_addr_d   = wr_addr_q;
    wr_data_d   = wr_data_q;
    wr_cqn_d    = wr_cqn_q;
    wr_is_err_d = wr_is_err_q;
    wr_sol_d    = wr_sol_q;
    stale_d     = stale_q;
    commit      = 1'b0;

    // Completion FSM.
    unique case (state_q)
      S_IDLE: begin
        if (flt_any && !cmd_valid_i && !db_valid_i) begin
          // the error record of a CQ whose record write failed (fault_d clears its bit)
          state_d     = S_WRITE;
          wr_cqn_d    = flt_cqn;
          wr_sol_d    = 1'b1;
          stale_d     = 1'b0;
          wr_is_err_d = 1'b1;
          wr_addr_d   = acc_ring + (64'(acc_depth) << 5);
          wr_data_d   = 256'(acc_rec);
        end else if (cpl_valid_i && cpl_ready_o && acc_live) begin
          state_d     = S_WRITE;
          wr_cqn_d    = acc_cqn;
          wr_sol_d    = acc_sol;
          stale_d     = 1'b0;
          wr_is_err_d = acc_full;
          if (acc_full) begin
            wr_addr_d = acc_ring + (64'(acc_depth) << 5);
            wr_data_d = 256'(acc_rec);
          end else begin
            wr_addr_d = acc_ring + (64'(acc_slot) << 5);
            wr_data_d = acc_cqe;
          end
        end
      end
      S_WRITE: begin
        if (wr_ready_i) begin
          state_d = S_IDLE;
          commit  = !stale_q;
        end
      end
      default: begin
        state_d = S_IDLE;
      end
    endcase

    // A CQ created or destroyed while its record is offered: the record still goes out (it
    // cannot be withdrawn), but it no longer belongs to the CQ's new life, so it must not move
    // its indices or raise its interrupt.
    if (cmd_any && state_q == S_WRITE && wr_cqn_q == cmd_cqn) begin
      stale_d = 1'b1;
      commit  = 1'b0;
    end
    commit_cqe = commit && !wr_is_err_q;
  end

  // The new indices of the commit CQ and of the doorbell CQ (they may be the same CQ).
  always_comb begin
    // (the shared read: these are wr_cqn_q's indices in S_WRITE, the only state that commits)
    wr_pi_now = ctx_pi;
    wr_ci_now = ctx_ci;
    wr_ss_now = ss_r_q[wr_cqn_q] ? 16'd0 : ss_c_q[wr_cqn_q] ? 16'hffff : ss_mem[wr_cqn_q];
    c_same_d  = db_ci && (db_cqn == wr_cqn_q);

    c_pi = commit_cqe ? wr_pi_now + 16'd1 : wr_pi_now;
    c_ss = !commit_cqe ? wr_ss_now : wr_sol_q ? 16'd0 : sat_inc(wr_ss_now);
    c_ci = (c_same_d && db_ci_ok) ? db_new_ci : wr_ci_now;

    d_pi = (c_same_d && commit_cqe) ? c_pi : db_pi;
    d_ss = (c_same_d && commit_cqe) ? c_ss
         : ss_r_q[db_cqn] ? 16'd0 : ss_c_q[db_cqn] ? 16'hffff : ss_mem[db_cqn];
    d_ci = db_ci_ok ? db_new_ci : db_old_ci;

    // An arm that lands in the cycle the previous one fired is a new arm, not a merge.
    db_atype_now        = any_q[db_cqn] ? nic_pkg::ARM_ANY
                        : sol_q[db_cqn] ? nic_pkg::ARM_SOLICITED : nic_pkg::ARM_ERRORS;
    db_armed_after_fire = armed_q[db_cqn] && !fire[db_cqn];
    db_atype_new        = db_armed_after_fire ? arm_merge(db_atype_now, db_type) : db_type;
  end

  // The moderation counters: `new` of the commit CQ after the commit, and both counters of the
  // doorbell CQ after this cycle (a MODERATION word recomputes its derived bits with them).
  logic [15:0] c_new_eff, c_new_next;
  logic [15:0] d_new_eff, d_new_next, d_tim_eff, d_tim_next;
  logic [15:0] d_count, d_interval;

  always_comb begin
    c_new_eff  = newz_q[wr_cqn_q] ? 16'd0 : new_q[wr_cqn_q];
    c_new_next = sat_inc(c_new_eff);

    d_new_eff  = newz_q[db_cqn] ? 16'd0 : new_q[db_cqn];
    d_new_next = fire[db_cqn] ? 16'd0
               : (commit_cqe && wr_cqn_q == db_cqn) ? sat_inc(d_new_eff) : d_new_eff;
    d_tim_eff  = tlive_q[db_cqn] ? tim_q[db_cqn] : 16'd0;
    d_tim_next = !hold[db_cqn] ? 16'd0 : us_tick_i ? sat_inc(d_tim_eff) : d_tim_eff;
    d_count    = db_moderation.count;
    d_interval = db_moderation.interval_us;
  end

  logic [NumCqs*16-1:0] tim_tick;   // on a tick: the held CQs' timers after it
  nic_pkg::cq_moderation_t tick_mod, wr_mod;  // a CQ's moderation word, read as its format
  logic unused_mod_fields;          // the timer needs only the interval, a CQE only the count
  assign unused_mod_fields = ^{tick_mod.count, wr_mod.interval_us};

  always_comb begin
    valid_d    = valid_q;
    error_d    = error_q;
    any_d      = any_q;
    sol_d      = sol_q;
    nonempty_d = nonempty_q;
    solp_d     = solp_q;
    modded_d   = modded_q;
    treach_d   = treach_q;

    // 1. Fire: the arm is used up; the interrupt request waits in npend until picked. A
    //    notification covers every CQE written up to it, this cycle's included (the CQE is
    //    ahead of the message on the write channel): `new` restarts from 0.
    armed_d = armed_q & ~fire;
    npend_d = (npend_q | fire) & ~pick_sel;
    creach_d = creach_q;
    newz_d   = newz_q;
    // Moderation: the timer runs while the arm is satisfied and held; it restarts otherwise.
    tlive_d = hold & (tlive_q | {NumCqs{us_tick_i}});
    tim_tick = '0;
    tick_mod = '0;
    if (us_tick_i && hold != '0) begin
      for (int c = 0; c < NumCqs; c++) begin
        if (hold[c]) begin
          tick_mod             = mod_q[c];
          tim_tick[16*c +: 16] = sat_inc(tlive_q[c] ? tim_q[c] : 16'd0);
          // "interval != 0 and tim >= interval" as an equality: a held CQ has not reached its
          // interval (held needs !(tlive && treach)), so its timer is below the interval or the
          // interval is 0; one tick reaches a nonzero interval exactly, and a timer after a
          // tick is never 0
          treach_d[c] = tim_tick[16*c +: 16] == tick_mod.interval_us;
        end
      end
    end

    // 2. The accepted record: a CQE advances pi, the error record sets error.
    wr_mod = mod_q[wr_cqn_q];
    if (commit) begin
      if (wr_is_err_q) begin
        error_d[wr_cqn_q] = 1'b1;
      end else begin
        nonempty_d[wr_cqn_q] = c_pi != c_ci;
        solp_d[wr_cqn_q]     = c_ss < (c_pi - c_ci);
        newz_d[wr_cqn_q]     = 1'b0;
        creach_d[wr_cqn_q]   = wr_mod.count != 16'd0 && c_new_next >= wr_mod.count;
      end
    end
    newz_d   = newz_d | fire;
    creach_d = creach_d & ~fire;

    // 3. Doorbells.
    if (db_ci) begin
      nonempty_d[db_cqn] = d_pi != d_ci;
      solp_d[db_cqn]     = d_ss < (d_pi - d_ci);
      if (db_arm) begin
        armed_d[db_cqn] = 1'b1;
        any_d[db_cqn]   = db_atype_new == nic_pkg::ARM_ANY;
        sol_d[db_cqn]   = db_atype_new == nic_pkg::ARM_SOLICITED;
      end
    end
    if (db_mod) begin
      modded_d[db_cqn] = db_data_i != 32'd0;
      creach_d[db_cqn] = d_count != 16'd0 && d_new_next >= d_count;
      treach_d[db_cqn] = d_interval != 16'd0 && d_tim_next >= d_interval;
    end

    // A failed record write of a live CQ makes its error record due; taking it clears that.
    fault_d = flt_live;
    if (state_q == S_IDLE && flt_any && !cmd_valid_i && !db_valid_i) begin
      fault_d[flt_cqn] = 1'b0;
    end
    if (wr_fault_i && {1'b0, wr_fault_cqn_i} < 9'(NumCqs)
        && valid_q[CqBits'(wr_fault_cqn_i)] && !error_q[CqBits'(wr_fault_cqn_i)]) begin
      fault_d[CqBits'(wr_fault_cqn_i)] = 1'b1;
    end

    // 4. Commands override everything else for their CQ.
    if (cmd_any) begin
      fault_d[cmd_cqn]    = 1'b0;
      valid_d[cmd_cqn]    = cmd_create;
      error_d[cmd_cqn]    = 1'b0;
      armed_d[cmd_cqn]    = 1'b0;
      any_d[cmd_cqn]      = 1'b0;               // arm type ERRORS
      sol_d[cmd_cqn]      = 1'b0;
      npend_d[cmd_cqn]    = 1'b0;
      nonempty_d[cmd_cqn] = 1'b0;
      solp_d[cmd_cqn]     = 1'b0;
      modded_d[cmd_cqn]   = 1'b0;
      creach_d[cmd_cqn]   = 1'b0;
      newz_d[cmd_cqn]     = 1'b1;
      tlive_d[cmd_cqn]    = 1'b0;
      treach_d[cmd_cqn]   = 1'b0;
    end
  end

  // Interrupt requests: one register, refilled from the fired CQs.
  always_comb begin
    irq_valid_d  = irq_valid_q;
    irq_vector_d = irq_vector_q;
    irq_cqn_d    = irq_cqn_q;
    rr_d         = rr_q;
    if (irq_valid_q && irq_ready_i) begin
      irq_valid_d = 1'b0;
    end
    if (irq_free && pick_found) begin
      irq_valid_d  = 1'b1;
      irq_vector_d = vec_q[pick_cqn];
      irq_cqn_d    = pick_cqn;
      rr_d         = (32'(pick_cqn) == NumCqs - 1) ? '0 : pick_cqn + CqBits'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      valid_q      <= '0;
      error_q      <= '0;
      armed_q      <= '0;
      any_q        <= '0;
      sol_q        <= '0;
      npend_q      <= '0;
      nonempty_q   <= '0;
      solp_q       <= '0;
      modded_q     <= '0;
      creach_q     <= '0;
      newz_q       <= '1;
      tlive_q      <= '0;
      treach_q     <= '0;
      fault_q      <= '0;
      state_q      <= S_IDLE;
      wr_addr_q    <= '0;
      wr_data_q    <= '0;
      wr_cqn_q     <= '0;
      wr_is_err_q  <= 1'b0;
      wr_sol_q     <= 1'b0;
      stale_q      <= 1'b0;
      irq_valid_q  <= 1'b0;
      irq_vector_q <= '0;
      irq_cqn_q    <= '0;
      rr_q         <= '0;
    end else begin
      valid_q      <= valid_d;
      error_q      <= error_d;
      armed_q      <= armed_d;
      any_q        <= any_d;
      sol_q        <= sol_d;
      npend_q      <= npend_d;
      nonempty_q   <= nonempty_d;
      solp_q       <= solp_d;
      modded_q     <= modded_d;
      creach_q     <= creach_d;
      newz_q       <= newz_d;
      tlive_q      <= tlive_d;
      treach_q     <= treach_d;
      fault_q      <= fault_d;
      state_q      <= state_d;
      wr_addr_q    <= wr_addr_d;
      wr_data_q    <= wr_data_d;
      wr_cqn_q     <= wr_cqn_d;
      wr_is_err_q  <= wr_is_err_d;
      wr_sol_q     <= wr_sol_d;
      stale_q      <= stale_d;
      irq_valid_q  <= irq_valid_d;
      irq_vector_q <= irq_vector_d;
      irq_cqn_q    <= irq_cqn_d;
      rr_q         <= rr_d;
    end
  end

  // The indices: written at the entry of the event (a command wins over the others).
  always_ff @(posedge clk_i) begin
    if (commit_cqe) begin
      pi_mem[wr_cqn_q] <= c_pi;
      ss_mem[wr_cqn_q] <= c_ss;
    end
    if (db_ci) begin
      ci_mem[db_cqn] <= d_ci;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pi_z_q <= '1;
      ci_z_q <= '1;
      ss_r_q <= '1;
      ss_c_q <= '0;
    end else begin
      if (commit_cqe) begin
        pi_z_q[wr_cqn_q] <= 1'b0;
        ss_r_q[wr_cqn_q] <= 1'b0;
        ss_c_q[wr_cqn_q] <= 1'b0;
      end
      if (db_ci) begin
        ci_z_q[db_cqn] <= 1'b0;
      end
      if (cmd_any) begin
        pi_z_q[cmd_cqn] <= 1'b1;
        ci_z_q[cmd_cqn] <= 1'b1;
        ss_r_q[cmd_cqn] <= 1'b0;
        ss_c_q[cmd_cqn] <= 1'b1;              // no solicited entry yet
      end
    end
  end

  // The indices as the vectors they stand for (entry n in [16n +: 16]), for the assertions and
  // the proofs only.
`ifndef SYNTHESIS
`define NIC_CQ_ENGINE_INDEX_VIEW
`elsif FORMAL
`define NIC_CQ_ENGINE_INDEX_VIEW
`endif
`ifdef NIC_CQ_ENGINE_INDEX_VIEW
  logic [NumCqs*16-1:0] pi_q, ci_q, ss_q;
  always_comb begin
    for (int c = 0; c < NumCqs; c++) begin
      pi_q[16*c +: 16] = pi_z_q[c] ? 16'd0 : pi_mem[c];
      ci_q[16*c +: 16] = ci_z_q[c] ? 16'd0 : ci_mem[c];
      ss_q[16*c +: 16] = ss_r_q[c] ? 16'd0 : ss_c_q[c] ? 16'hffff : ss_mem[c];
    end
  end
  logic unused_ss_view;                 // ss is read by the proofs only (`ifdef FORMAL)
  assign unused_ss_view = ^ss_q;
`undef NIC_CQ_ENGINE_INDEX_VIEW
`endif

  // The RAM-like parts: the static context from CQ_CREATE, the moderation word, and the
  // counters (their newz / tlive bits say when an entry is current).
  always_ff @(posedge clk_i) begin
    if (cmd_create) begin
      base_q[cmd_cqn] <= cmd_base[63:12];
      logd_q[cmd_cqn] <= cmd_logd[3:0];
      vec_q[cmd_cqn]  <= cmd_vec;
    end
    if (db_mod) begin
      mod_q[db_cqn] <= db_data_i;
    end
    if (cmd_any) begin
      mod_q[cmd_cqn] <= 32'd0;
    end
    if (commit_cqe) begin
      new_q[wr_cqn_q] <= c_new_next;
    end
    if (us_tick_i && hold != '0) begin
      for (int c = 0; c < NumCqs; c++) begin
        if (hold[c]) begin
          tim_q[c] <= tim_tick[16*c +: 16];
        end
      end
    end
  end

  assign wr_valid_o   = (state_q == S_WRITE);
  assign wr_addr_o    = wr_addr_q;
  assign wr_data_o    = wr_data_q;
  assign wr_cqn_o     = 8'(wr_cqn_q);
  assign irq_valid_o  = irq_valid_q;
  assign irq_vector_o = irq_vector_q;
  assign cq_error_o   = error_q;

  logic              rd_in_range;
  logic [CqBits-1:0] rd_cqn;
  assign rd_in_range     = {1'b0, state_rd_cqn_i} < 9'(NumCqs);
  assign rd_cqn          = CqBits'(state_rd_cqn_i);
  nic_pkg::cq_state_t rd_state;

  always_comb begin
    rd_state = '0;
    if (rd_in_range) begin
      rd_state.error          = error_q[rd_cqn];
      rd_state.producer_index = pi_z_q[rd_cqn] ? 16'd0 : pi_mem[rd_cqn];
    end
  end

  assign state_rd_data_o = rd_state;

  // irq_cqn_q names the CQ behind the request in flight, for waveforms and debugging.
  logic unused_irq_cqn;
  assign unused_irq_cqn = ^irq_cqn_q;
  // The command arguments this engine does not read belong to the other commands' layouts.
  logic unused_cmd_args;
  assign unused_cmd_args = ^{create_args.rsvd_96, create_args.rsvd_72, db_ci_arm.rsvd_19};

`ifndef SYNTHESIS
  // Immediate assertions in clocked blocks: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds
  // (see nic_wqe_fetch). The per-CQ checks run on the CQ an event touched, in the cycle after.

  // The written record, seen as a CQE (for the owner-bit check).
  nic_pkg::cqe_t wr_cqe_view;
  assign wr_cqe_view = wr_data_q;
  // Only the owner byte of the view is checked; the rest of the CQE is the SQ engine's.
  logic        unused_wr_view;
  assign unused_wr_view = ^wr_cqe_view;

  logic [16:0] wr_depth;
  logic [15:0] wr_pi, wr_ci, wr_slot;
  logic [63:0] wr_ring;
  assign wr_depth = depth_of(logd_q[wr_cqn_q]);
  assign wr_pi    = pi_q[16*wr_cqn_q +: 16];
  assign wr_ci    = ci_q[16*wr_cqn_q +: 16];
  assign wr_slot  = wr_pi & 16'(wr_depth - 17'd1);
  assign wr_ring  = {base_q[wr_cqn_q], 12'd0};

  // Shadow state: the owner bit of each CQ's last CQE, whether the current arm of each CQ has
  // already fired, the CQs an event touched (checked next cycle), and held outputs.
  logic [NumCqs-1:0] last_owner_q, arm_used_q;
  logic              chk_c_q, chk_d_q;
  logic [CqBits-1:0] chk_c_cqn_q, chk_d_cqn_q;
  logic              wr_held_q, irq_held_q;
  logic [63:0]       wr_addr_held_q;
  logic [255:0]      wr_data_held_q;
  logic [15:0]       irq_vector_held_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      last_owner_q <= '0;
      arm_used_q   <= '0;
      chk_c_q      <= 1'b0;
      chk_d_q      <= 1'b0;
      wr_held_q    <= 1'b0;
      irq_held_q   <= 1'b0;
    end else begin
      arm_used_q <= (arm_used_q | fire)
                    & ~(db_arm ? (NumCqs'(1) << db_cqn) : '0)
                    & ~(cmd_any ? (NumCqs'(1) << cmd_cqn) : '0);
      if (commit && !wr_is_err_q) begin
        last_owner_q[wr_cqn_q] <= wr_cqe_view.owner[0];
      end
      chk_c_q     <= commit || cmd_any;
      chk_c_cqn_q <= commit ? wr_cqn_q : cmd_cqn;
      chk_d_q     <= db_ci || db_mod;
      chk_d_cqn_q <= db_cqn;
      wr_held_q   <= wr_valid_o && !wr_ready_i;
      irq_held_q  <= irq_valid_o && !irq_ready_i;
    end
    if (wr_valid_o && !wr_ready_i) begin
      wr_addr_held_q <= wr_addr_o;
      wr_data_held_q <= wr_data_o;
    end
    if (irq_valid_o && !irq_ready_i) begin
      irq_vector_held_q <= irq_vector_o;
    end
  end

  // The per-CQ invariants of CQ n: indices in range, and the derived bits equal to what they
  // summarise.
  function automatic logic cq_consistent(input logic [CqBits-1:0] n);
    logic [15:0] pi, ci, cnt, intv, nw, tm;
    nic_pkg::cq_moderation_t m;
    pi   = pi_q[16*n +: 16];
    ci   = ci_q[16*n +: 16];
    m    = mod_q[n];
    cnt  = m.count;
    intv = m.interval_us;
    nw   = newz_q[n] ? 16'd0 : new_q[n];
    tm   = tlive_q[n] ? tim_q[n] : 16'd0;
    cq_consistent = !valid_q[n]
                    || ({1'b0, pi - ci} <= depth_of(logd_q[n])
                        && 32'(logd_q[n]) <= LogMaxCqDepth
                        && nonempty_q[n] == (pi != ci)
                        && modded_q[n] == (mod_q[n] != 32'd0)
                        && creach_q[n] == (cnt != 16'd0 && nw >= cnt)
                        && (tlive_q[n] & treach_q[n]) == (intv != 16'd0 && tm >= intv)
                        && (!tlive_q[n] || tm != 16'd0));
  endfunction

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // Pointers in range, derived bits current: for the CQs the last cycle's events touched,
      // and for every held CQ after a timer tick.
      if (chk_c_q) begin
        a_cq_consistent_after_commit: assert (cq_consistent(chk_c_cqn_q));
      end
      if (chk_d_q) begin
        a_cq_consistent_after_doorbell: assert (cq_consistent(chk_d_cqn_q));
      end
      if (us_tick_i && hold != '0) begin
        for (int c = 0; c < NumCqs; c++) begin
          if (hold[c]) begin
            a_cq_consistent_while_held: assert (cq_consistent(CqBits'(c)));
          end
        end
      end
      // A notification only for an armed CQ, and at most one per arm.
      a_fire_only_when_armed: assert ((fire & ~(armed_q & valid_q)) == '0);
      a_one_notification_per_arm: assert ((fire & arm_used_q) == '0);
      // Moderation only delays: without a moderation word a satisfied arm fires at once.
      a_unmoderated_fires_at_once: assert ((satisfied & ~modded_q & ~fire) == '0);
      // An armed CQ in error fires at once (unless its previous interrupt is still waiting).
      a_error_fires: assert ((valid_q & armed_q & error_q & ~npend_q & ~fire) == '0);
      if (commit && !wr_is_err_q) begin
        // No CQE is written into a full ring; it goes to slot pi mod depth.
        a_no_cqe_when_full: assert ({1'b0, wr_pi - wr_ci} < wr_depth);
        a_cqe_in_slot: assert (wr_addr_q == wr_ring + (64'(wr_slot) << 5));
        // Owner bit: 1 on the first pass, and it flips exactly when the slot wraps to 0.
        if (17'(wr_pi) < wr_depth) begin
          a_owner_first_pass: assert (wr_cqe_view.owner == 8'd1);
        end else begin
          a_owner_flips_on_wrap: assert ((wr_cqe_view.owner[0] != last_owner_q[wr_cqn_q])
                                         == (wr_slot == 16'd0));
        end
      end
      // The error record is written once, at the ring's end.
      if (commit && wr_is_err_q) begin
        a_error_record_once: assert (!error_q[wr_cqn_q]
                                     && wr_addr_q == wr_ring + (64'(wr_depth) << 5));
      end
      // Records and interrupt requests hold still until taken.
      if (wr_held_q) begin
        a_wr_stable: assert (wr_valid_o && wr_addr_o == wr_addr_held_q
                             && wr_data_o == wr_data_held_q);
      end
      if (irq_held_q) begin
        a_irq_stable: assert (irq_valid_o && irq_vector_o == irq_vector_held_q);
      end
      if (irq_valid_o) begin
        a_irq_vector_in_range: assert (32'(irq_vector_o) < MsixVectors);
      end
    end
  end
`endif

`ifdef FORMAL
  // ---- formal properties (docs/verification.md) -------------------------------------------------
  // Proven for all inputs by induction on tests/formal/nic_cq_engine_formal.sv (2 CQs, depth up
  // to 4: tools/formal/formal.py); the simulation compiles them too (Verilator +define+FORMAL),
  // so every cycle of the suite checks them on the full-size engine. The engine needs nothing of
  // its environment: every input may do anything in any cycle. Each f_* assertion is either a
  // property the issue names or an invariant the induction needs (said so); each has a planted
  // bug that breaks it (tools/formal/plant.py).
  logic              f_live_q;              // the previous cycle was out of reset: $past is valid
  logic [NumCqs-1:0] f_fired_q;             // the CQ's current arm has fired
  nic_pkg::cqe_t     f_wr_cqe;              // the offered record, seen as a CQE
  logic [1:0]        f_db_req_type, f_db_old_type, f_db_expect;
  logic              f_db_merges;           // the arm meets an earlier arm still standing

  logic              f_unused_wr_cqe;       // only its owner byte is checked
  logic [15:0]       f_wr_slot;             // slot pi mod depth of the record's CQ

  assign f_wr_cqe        = wr_data_q;
  assign f_unused_wr_cqe = ^f_wr_cqe;
  assign f_wr_slot       = wr_pi_now & 16'(depth_of(logd_q[wr_cqn_q]) - 17'd1);
  assign f_db_req_type = db_ci_arm.arm_type;
  assign f_db_old_type = any_q[db_cqn] ? nic_pkg::ARM_ANY
                       : sol_q[db_cqn] ? nic_pkg::ARM_SOLICITED : nic_pkg::ARM_ERRORS;
  assign f_db_merges   = armed_q[db_cqn] && !fire[db_cqn];

  // NDK's merge table (docs/conformance.md C8), cell by cell; arm_type 3 is taken as ANY.
  always_comb begin
    f_db_expect = (f_db_req_type == 2'd3) ? nic_pkg::ARM_ANY : f_db_req_type;
    if (f_db_merges) begin
      unique case ({f_db_old_type, f_db_expect})
        {nic_pkg::ARM_ERRORS, nic_pkg::ARM_ERRORS}:       f_db_expect = nic_pkg::ARM_ERRORS;
        {nic_pkg::ARM_ERRORS, nic_pkg::ARM_SOLICITED}:    f_db_expect = nic_pkg::ARM_SOLICITED;
        {nic_pkg::ARM_ERRORS, nic_pkg::ARM_ANY}:          f_db_expect = nic_pkg::ARM_ANY;
        {nic_pkg::ARM_SOLICITED, nic_pkg::ARM_ERRORS}:    f_db_expect = nic_pkg::ARM_SOLICITED;
        {nic_pkg::ARM_SOLICITED, nic_pkg::ARM_SOLICITED}: f_db_expect = nic_pkg::ARM_SOLICITED;
        {nic_pkg::ARM_SOLICITED, nic_pkg::ARM_ANY}:       f_db_expect = nic_pkg::ARM_ANY;
        {nic_pkg::ARM_ANY, nic_pkg::ARM_ERRORS}:          f_db_expect = nic_pkg::ARM_ANY;
        {nic_pkg::ARM_ANY, nic_pkg::ARM_SOLICITED}:       f_db_expect = nic_pkg::ARM_ANY;
        {nic_pkg::ARM_ANY, nic_pkg::ARM_ANY}:             f_db_expect = nic_pkg::ARM_ANY;
        default:                                          f_db_expect = nic_pkg::ARM_ANY;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      f_live_q  <= 1'b0;
      f_fired_q <= '0;
    end else begin
      f_live_q  <= 1'b1;
      f_fired_q <= (f_fired_q | fire)
                   & ~(db_arm ? (NumCqs'(1) << db_cqn) : '0)
                   & ~(cmd_any ? (NumCqs'(1) << cmd_cqn) : '0);
    end
  end

  // Per CQ: what the CQ's registers must satisfy in every reachable state.
  // (Unnamed: Yosys 0.23 gives a procedural assertion in a generate loop the same name in every
  // iteration; a failing one is reported by its source line.)
  for (genvar c = 0; c < NumCqs; c++) begin : gen_f_cq
    logic [15:0] f_pi, f_ci, f_ss, f_occ, f_new, f_tim, f_cnt, f_intv;
    logic [16:0] f_depth;
    logic        f_entries, f_sol_entries, f_count_hit, f_timer_hit;
    assign f_pi          = pi_q[16*c +: 16];
    assign f_ci          = ci_q[16*c +: 16];
    assign f_ss          = ss_q[16*c +: 16];
    assign f_occ         = f_pi - f_ci;
    assign f_depth       = depth_of(logd_q[c]);
    assign f_new         = newz_q[c] ? 16'd0 : new_q[c];
    assign f_tim         = tlive_q[c] ? tim_q[c] : 16'd0;
    assign f_cnt         = mod_q[c][15:0];
    assign f_intv        = mod_q[c][31:16];
    assign f_entries     = f_pi != f_ci;
    assign f_sol_entries = f_ss < f_occ;
    assign f_count_hit   = f_cnt != 16'd0 && f_new >= f_cnt;
    assign f_timer_hit   = f_intv != 16'd0 && f_tim >= f_intv;

    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        // Notify: none without an arm, at most one per arm, and one interrupt request per
        // notification (a CQ never fires while its previous request waits to be picked).
        assert (!fire[c] || (valid_q[c] && armed_q[c]));
        assert (!(fire[c] && f_fired_q[c]));
        assert (!(fire[c] && npend_q[c]));
        // (invariants) a fired arm is spent; an arm has one type; a request waits only for a
        // live CQ
        assert (!(f_fired_q[c] && armed_q[c]));
        assert (!(any_q[c] && sol_q[c]));
        assert (!npend_q[c] || valid_q[c]);
        if (valid_q[c]) begin
          // An arm with un-notified entries fires: exactly when its type's condition holds on
          // the entries in [ci, pi) (or the CQ is in error), and moderation has reached one of
          // its bounds (or is off, or the CQ is in error).
          assert (fire[c] == (armed_q[c] && !npend_q[c]
              && (error_q[c] || (((any_q[c] && f_entries) || (sol_q[c] && f_sol_entries))
                                 && (mod_q[c] == 32'd0 || f_count_hit || f_timer_hit)))));
          // Pointers: the ring never holds more than its depth (so no CQE is ever written
          // over an entry the consumer has not released; ci stays in [ci, pi]).
          assert (17'(f_occ) <= f_depth);
          assert (32'(logd_q[c]) <= LogMaxCqDepth);
          assert (32'(vec_q[c]) < MsixVectors);
          // (invariants) the summary bits equal what they summarise
          assert (nonempty_q[c] == f_entries);
          assert (solp_q[c] == f_sol_entries);
          assert (modded_q[c] == (mod_q[c] != 32'd0));
          assert (creach_q[c] == f_count_hit);
          assert ((tlive_q[c] && treach_q[c]) == f_timer_hit);
          assert (!tlive_q[c] || f_tim != 16'd0);
        end
        cover (valid_q[c] && armed_q[c] && any_q[c] && !f_entries);
        cover (valid_q[c] && armed_q[c] && sol_q[c] && f_entries);
        cover (valid_q[c] && armed_q[c] && !any_q[c] && !sol_q[c] && f_entries);
        cover (fire[c] && any_q[c]);
        cover (fire[c] && sol_q[c]);
        cover (fire[c] && !any_q[c] && !sol_q[c] && error_q[c]);
        cover (hold[c]);
        cover (fire[c] && modded_q[c] && creach_q[c] && !error_q[c]);
        cover (fire[c] && modded_q[c] && !creach_q[c] && !error_q[c]);
        cover (npend_q[c] && armed_q[c]);
        cover (valid_q[c] && 17'(f_occ) == f_depth);
        cover (valid_q[c] && error_q[c]);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // The completion FSM: a record being offered still fits the CQ it was decided for
      // (nothing else moves that CQ's pi, and ci only moves toward pi), so what it commits is a
      // CQE into a free slot, at slot pi mod depth, with the owner bit of pi's pass.
      if (state_q == S_WRITE && !stale_q) begin
        f_write_cq_live: assert (valid_q[wr_cqn_q] && !error_q[wr_cqn_q]);
        if (!wr_is_err_q) begin
          f_write_fits: assert ({1'b0, wr_pi_now - wr_ci_now} < depth_of(logd_q[wr_cqn_q]));
          f_write_slot: assert (wr_addr_q == {base_q[wr_cqn_q], 12'd0}
                                + (64'(f_wr_slot) << 5));
          f_write_phase: assert (f_wr_cqe.owner == {7'd0, ~wr_pi_now[logd_q[wr_cqn_q]]});
        end else begin
          f_error_record_at_end: assert (wr_addr_q == {base_q[wr_cqn_q], 12'd0}
                                         + (64'(depth_of(logd_q[wr_cqn_q])) << 5));
        end
      end
      if (commit_cqe) begin
        f_no_cqe_when_full: assert ({1'b0, wr_pi_now - wr_ci_now} < depth_of(logd_q[wr_cqn_q]));
      end
      c_write_cqe: cover (commit_cqe);
      c_write_error_record: cover (commit && wr_is_err_q);
      c_write_stale: cover (state_q == S_WRITE && stale_q && wr_ready_i);
      c_write_held: cover (state_q == S_WRITE && !wr_ready_i);
      c_phase_flip: cover (commit_cqe && wr_pi_now[logd_q[wr_cqn_q]]);
      c_irq_offered: cover (irq_valid_q && !irq_ready_i);

      // The merge table: the type an arm leaves, given the arm still standing (if any).
      if (f_live_q && $past(db_arm) && !$past(cmd_any && cmd_cqn == db_cqn)) begin
        f_arm_merge_table: assert (armed_q[$past(db_cqn)]
            && any_q[$past(db_cqn)] == ($past(f_db_expect) == nic_pkg::ARM_ANY)
            && sol_q[$past(db_cqn)] == ($past(f_db_expect) == nic_pkg::ARM_SOLICITED));
      end
      c_merge_err_sol: cover (db_arm && f_db_merges && f_db_old_type == nic_pkg::ARM_ERRORS
                              && f_db_req_type == nic_pkg::ARM_SOLICITED);
      c_merge_any_err: cover (db_arm && f_db_merges && f_db_old_type == nic_pkg::ARM_ANY
                              && f_db_req_type == nic_pkg::ARM_ERRORS);
      c_merge_sol_err: cover (db_arm && f_db_merges && f_db_old_type == nic_pkg::ARM_SOLICITED
                              && f_db_req_type == nic_pkg::ARM_ERRORS);
      c_arm_type3: cover (db_arm && f_db_req_type == 2'd3);
    end
  end
`endif

endmodule
