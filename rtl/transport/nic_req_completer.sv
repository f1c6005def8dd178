`default_nettype none
// nic_req_completer: completes the requester's WQEs, in posting order per QP. It keeps what the
// acknowledgements said per QP (the PSN acknowledged so far; a NAK's PSN and status until the
// entry it fails completes) and one "work" bit per QP (something may be completable: an ACK or
// NAK came, an entry decided at intake was appended, the QP is in ERROR with entries). It picks
// one QP with work (round robin after the QP it picked last: nic_rr_pick, as every engine),
// reads its oldest outstanding entry (nic_req_out_ring, one cycle) and decides, in this order:
//   - decided at intake (SGE checks failed, QP not RTS, a replayed WQE that changed): that status;
//   - an ACK covers its last PSN: SUCCESS (no CQE for a SILENT_SUCCESS WQE);
//   - a NAK names a PSN up to its last one: the NAK's status, and the QP goes to ERROR (also
//     the retries running out, nic_req_ack_timer: IO_TIMEOUT);
//   - its QP is in ERROR: CANCELLED.
// A completable entry is offered as a CQE (cpl_*: valid / ready, held until taken) and popped
// when it is taken; otherwise the QP's work bit clears.
module nic_req_completer #(
  parameter int NumQps   = 16,  // queue pairs, <= 256
  parameter int OutDepth = 64,  // outstanding entries per QP (nic_req_out_ring)
  parameter int EntW     = 90   // bits of an entry
) (
  input  logic                       clk_i,
  input  logic                       rst_i,
  input  logic [2*NumQps-1:0]        qp_state_i,
  input  logic                       cmd_connect_i,
  input  logic                       cmd_reset_i,    // QP_CREATE / QP_DESTROY
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cmd_qpn_i,
  // the acknowledgement of this cycle, not classified yet (its QP, in range): work for the pick
  input  logic                       ack_now_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ack_now_q_i,
  // the acknowledgement of the cycle before, classified (nic_req_rnr, nic_requester's stage)
  input  logic                       ack_take_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] ack_q_i,
  input  logic                       ack_nak_i,
  input  logic [23:0]                ack_psn_i,      // the NAK's PSN
  input  logic [23:0]                ack_upto_i,
  input  logic [31:0]                ack_nak_status_i,
  // the intake appends an entry (pend: it went out and waits for its acknowledgement)
  input  logic                       append_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] append_qpn_i,
  input  logic                       append_pend_i,
  // a replayed WQE failed its checks, or a packet's payload read failed (DMA error): the
  // entry of QP rp_fail_qpn_i holding psn completes with the status, as for a NAK of psn
  input  logic                       rp_fail_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] rp_fail_qpn_i,
  input  logic [23:0]                rp_fail_psn_i,
  input  logic [31:0]                rp_fail_status_i,
  // no retry left (nic_req_ack_timer): the request holding the PSN fails IO_TIMEOUT
  input  logic                       tm_fail_i,
  input  logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] tm_fail_qpn_i,
  input  logic [23:0]                tm_fail_psn_i,
  // the outstanding ring (nic_req_out_ring)
  input  logic [NumQps-1:0]          nonempty_i,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] pick_qpn_o,
  input  logic [$clog2(OutDepth)-1:0] pick_head_i,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)-1:0] cq_o,    // the QP being completed
  input  logic [$clog2(OutDepth)-1:0] cq_head_i,
  input  logic [$clog2(OutDepth):0]  cq_count_i,
  output logic                       ent_re_o,
  output logic [((NumQps > 1) ? $clog2(NumQps) : 1)+$clog2(OutDepth)-1:0] ent_raddr_o,
  input  logic [EntW-1:0]            ent_rdata_i,
  output logic                       pop_o,          // cq_o's head entry is done
  output logic                       pop_read_o,     // ... and it is a Read that went out
  // completions (the CQ number is the QP context's, at cq_o)
  output logic                       cpl_valid_o,
  output nic_pkg::cqe_t              cpl_cqe_o,
  input  logic                       cpl_ready_i,
  // a NAKed WQE, or one that failed its checks, moves the QP to ERROR when it completes
  output logic                       qp_err_o
);

  localparam int QW = (NumQps > 1) ? $clog2(NumQps) : 1;

  // A failure's status is one of a closed set: a NAK's (nic_req_rnr: IO_TIMEOUT for the RNR
  // retries spent, ACCESS_VIOLATION, REMOTE_ERROR), a replayed WQE's failed checks
  // (nic_req_intake's status_q: INVALID_PARAMETER, CANCELLED, ACCESS_VIOLATION), a payload read's
  // (nic_requester: INTERNAL_ERROR) and the ACK timer's (IO_TIMEOUT). The table keeps 3 bits a
  // QP instead of 32, decoded where it is read (nak_status). Bits 7, 6, 5, 3 and 0 of the status
  // tell the set's members apart; a_nak_status_encodable, a_fail_status_encodable and
  // a_timeout_encodable check that every status that arrives is one of them (decoding its code
  // gives it back).
  function automatic logic [2:0] nak_code(input logic [4:0] key);   // status[7:5,3,0]
    case (key)
      5'b10101: nak_code = 3'd1;   // IO_TIMEOUT         C00000B5
      5'b00001: nak_code = 3'd2;   // ACCESS_VIOLATION   C0000005
      5'b00111: nak_code = 3'd3;   // REMOTE_ERROR       C000013D
      5'b00011: nak_code = 3'd4;   // INVALID_PARAMETER  C000000D
      5'b00100: nak_code = 3'd5;   // CANCELLED          C0000120
      5'b11101: nak_code = 3'd6;   // INTERNAL_ERROR     C00000E5
      default:  nak_code = 3'd0;   // SUCCESS            00000000
    endcase
  endfunction
  localparam logic [2:0] NakCodeIoTimeout = 3'd1;

  function automatic logic [31:0] nak_status(input logic [2:0] code);
    case (code)
      3'd1:    nak_status = nic_pkg::STATUS_IO_TIMEOUT;
      3'd2:    nak_status = nic_pkg::STATUS_ACCESS_VIOLATION;
      3'd3:    nak_status = nic_pkg::STATUS_REMOTE_ERROR;
      3'd4:    nak_status = nic_pkg::STATUS_INVALID_PARAMETER;
      3'd5:    nak_status = nic_pkg::STATUS_CANCELLED;
      3'd6:    nak_status = nic_pkg::STATUS_INTERNAL_ERROR;
      default: nak_status = nic_pkg::STATUS_SUCCESS;
    endcase
  endfunction

  typedef enum logic [1:0] {
    C_IDLE,   // pick a QP with work
    C_READ,   // its oldest entry is being read
    C_DECIDE, // decide and, if it completes, offer the CQE
    C_CPL     // CQE offered
  } cstate_e;

  cstate_e        cstate_q, cstate_d;
  logic [QW-1:0]  cq_q, cq_d;
  nic_pkg::cqe_t  cqe_q, cqe_d;
  logic           cqe_load;
  logic           pick_found;
  logic [QW-1:0]  pick_q;
  logic           c_pop, c_nak_used, c_no_work;
  // the QP of the completion decided or offered was reset (QP_DESTROY / QP_CREATE) since its
  // entry was read: the out ring forgot the entry, so taking the completion pops nothing (a
  // pop would take a count of 0 below zero; found by the fuzzer, tests/fuzz/)
  logic           cpl_gone_q, cpl_gone_d;

  // per QP: the PSN acknowledged, a NAK not yet used (tables written at the QP an event names;
  // a value means something only where its valid bit is set)
  logic [23:0]       acked_psn_q [NumQps];
  logic [NumQps-1:0] acked_v_q, acked_v_d;
  logic [NumQps-1:0] nak_v_q, nak_v_d;
  logic [23:0]       nak_psn_q [NumQps];
  logic [2:0]        nak_code_q [NumQps];   // the NAK's status, encoded (nak_code)
  logic [NumQps-1:0] work_q, work_d;

  // round robin over the QPs with work, after the one picked last (cq_q; only in C_IDLE, its
  // one reader). The acknowledgement of this cycle counts as work already: nic_responder
  // registers its ACKs (a cycle later than the dispatcher's decision), and the pass of the ACK's
  // QP starts in the cycle it arrives, as it did when it came combinationally and set work_q for
  // the next cycle (a completion moved by that cycle delayed each Read of a chain: the CQE and
  // the next response's payload meet in nic_dma_wr, docs/timing-area.md). A flip-flop's short
  // path: the ACK stage's valid and QP number (nic_req_rnr's range check) into the pick. Its
  // classification arrives a cycle later (ack_take_i: its tables move then, in time for the
  // pass's decision two cycles after the pick) and counts as work in that cycle too, as the
  // work bit it sets is seen only in the next.
  logic [NumQps-1:0] pick_req;
  assign pick_req = work_q | (ack_now_i ? NumQps'(1) << ack_now_q_i : NumQps'(0))
                           | (ack_take_i ? NumQps'(1) << ack_q_i : NumQps'(0));
  nic_rr_pick #(
    .N(NumQps)
  ) u_pick (
    .en_i   (cstate_q == C_IDLE),
    .req_i  (pick_req),
    .last_i (cq_q),
    .found_o(pick_found),
    .idx_o  (pick_q)
  );
  assign pick_qpn_o = pick_q;
  assign cq_o       = cq_q;

  // the head entry, as read
  logic [15:0] e_idx;
  logic [23:0] e_psn;
  logic [15:0] e_type;
  logic        e_silent, e_pend;
  logic [31:0] e_status;
  assign {e_idx, e_psn, e_type, e_silent, e_pend, e_status} = ent_rdata_i;

  logic [31:0] c_status;
  logic        c_done;
  always_comb begin
    c_done     = 1'b0;
    c_status   = nic_pkg::STATUS_SUCCESS;
    c_nak_used = 1'b0;
    if (!e_pend) begin
      c_done   = 1'b1;
      c_status = e_status;
    end else if (acked_v_q[cq_q] && nic_roce_pkg::psn_le(e_psn, acked_psn_q[cq_q])) begin
      c_done   = 1'b1;
    end else if (nak_v_q[cq_q] && nic_roce_pkg::psn_le(nak_psn_q[cq_q], e_psn)) begin
      c_done     = 1'b1;
      c_status   = nak_status(nak_code_q[cq_q]);
      c_nak_used = 1'b1;
    end else if (qp_state_i[2*cq_q +: 2] == nic_pkg::QP_STATE_ERROR) begin
      c_done   = 1'b1;
      c_status = nic_pkg::STATUS_CANCELLED;
    end
  end

  always_comb begin
    cstate_d    = cstate_q;
    cq_d        = cq_q;
    cqe_d       = '0;
    cqe_load    = 1'b0;
    c_pop       = 1'b0;
    c_no_work   = 1'b0;
    ent_re_o    = 1'b0;
    ent_raddr_o = {cq_q, cq_head_i};
    unique case (cstate_q)
      C_IDLE: begin
        if (pick_found) begin
          cq_d        = pick_q;
          ent_re_o    = 1'b1;
          ent_raddr_o = {pick_q, pick_head_i};
          cstate_d    = C_READ;
        end
      end
      C_READ: begin
        cstate_d = C_DECIDE;     // the RAM answers now
      end
      C_DECIDE: begin
        if (cq_count_i == '0 || !c_done) begin
          c_no_work = 1'b1;
          cstate_d  = C_IDLE;
        end else begin
          cqe_load        = 1'b1;
          cqe_d.status    = c_status;
          cqe_d.wqe_index = e_idx;
          cqe_d.qpn       = 16'(cq_q);
          cqe_d.op_type   = e_type;
          if (c_status == nic_pkg::STATUS_SUCCESS && e_silent) begin
            c_pop    = 1'b1;                 // silent success: the slot frees without a CQE
            cstate_d = C_IDLE;
          end else begin
            cstate_d = C_CPL;
          end
        end
      end
      C_CPL: begin
        if (cpl_ready_i) begin
          c_pop    = !cpl_gone_q;
          cstate_d = C_IDLE;
        end
      end
      default: begin
        cstate_d = C_IDLE;
      end
    endcase
  end

  always_comb begin
    cpl_gone_d = (cstate_q == C_CPL) ? cpl_gone_q : 1'b0;
    if (cmd_reset_i && cmd_qpn_i == cq_q && (cstate_q == C_DECIDE || cstate_q == C_CPL)) begin
      cpl_gone_d = 1'b1;
    end
  end

  assign cpl_valid_o = cstate_q == C_CPL;
  assign cpl_cqe_o   = cqe_q;
  assign pop_o       = c_pop;
  assign pop_read_o  = c_pop && e_type == nic_pkg::NDK_OP_TYPE_READ && e_pend;
  // only the pop of an offered CQE (C_CPL): a silent success pops in C_DECIDE, where cqe_q still
  // holds the CQE offered before it, maybe another QP's failure (which moved this QP to ERROR)
  assign qp_err_o    = c_pop && cstate_q == C_CPL && cqe_q.status != nic_pkg::STATUS_SUCCESS
                       && cqe_q.status != nic_pkg::STATUS_CANCELLED;

  // the QPs in ERROR
  logic [NumQps-1:0] qp_error;
  always_comb begin
    for (int q = 0; q < NumQps; q++) begin
      qp_error[q] = qp_state_i[2*q +: 2] == nic_pkg::QP_STATE_ERROR;
    end
  end

  logic [2:0] rp_fail_code, ack_nak_code;
  assign rp_fail_code = nak_code({rp_fail_status_i[7:5], rp_fail_status_i[3], rp_fail_status_i[0]});
  assign ack_nak_code = nak_code({ack_nak_status_i[7:5], ack_nak_status_i[3], ack_nak_status_i[0]});

  always_ff @(posedge clk_i) begin
    if (tm_fail_i) begin
      nak_psn_q[tm_fail_qpn_i]    <= tm_fail_psn_i;
      nak_code_q[tm_fail_qpn_i]   <= NakCodeIoTimeout;
    end
    if (rp_fail_i) begin
      nak_psn_q[rp_fail_qpn_i]    <= rp_fail_psn_i;
      nak_code_q[rp_fail_qpn_i]   <= rp_fail_code;
    end
    if (ack_take_i) begin
      // the acknowledged PSN only moves forward: an ACK overtaken on the wire by a later one
      // (reordered, duplicated) acknowledges nothing new, and taking its PSN would leave the
      // entries between it and the later one waiting for an ACK that never comes again
      if (!acked_v_q[ack_q_i] || nic_roce_pkg::psn_le(acked_psn_q[ack_q_i], ack_upto_i)) begin
        acked_psn_q[ack_q_i] <= ack_upto_i;
      end
      if (ack_nak_i) begin
        nak_psn_q[ack_q_i]    <= ack_psn_i;
        nak_code_q[ack_q_i]   <= ack_nak_code;
      end
    end
  end

  always_comb begin
    acked_v_d = acked_v_q;
    nak_v_d   = nak_v_q;
    work_d    = work_q;
    if (c_pop && c_nak_used) begin
      nak_v_d[cq_q] = 1'b0;
    end
    if (c_no_work) begin
      work_d[cq_q] = 1'b0;
    end
    // after the clear, so that an entry appended in the same cycle is not lost: one decided at
    // intake completes at once, and so does one whose NAK came while its later packets were
    // still being sent (the NAK waits in nak_v for its entry)
    if (append_i && (!append_pend_i || nak_v_q[append_qpn_i])) begin
      work_d[append_qpn_i] = 1'b1;
    end
    if (tm_fail_i) begin
      nak_v_d[tm_fail_qpn_i] = 1'b1;
      work_d[tm_fail_qpn_i]  = 1'b1;
    end
    if (rp_fail_i) begin
      nak_v_d[rp_fail_qpn_i] = 1'b1;
      work_d[rp_fail_qpn_i]  = 1'b1;
    end
    // a QP in ERROR with entries has work (they complete CANCELLED)
    work_d = work_d | (qp_error & nonempty_i
                       & ~(c_no_work ? NumQps'(1) << cq_q : NumQps'(0)));
    if (ack_take_i) begin
      acked_v_d[ack_q_i] = 1'b1;
      if (ack_nak_i) begin
        nak_v_d[ack_q_i] = 1'b1;
      end
      work_d[ack_q_i] = 1'b1;
    end
    if (cmd_connect_i) begin
      acked_v_d[cmd_qpn_i] = 1'b0;
      nak_v_d[cmd_qpn_i]   = 1'b0;
    end
    if (cmd_reset_i) begin
      acked_v_d[cmd_qpn_i] = 1'b0;
      nak_v_d[cmd_qpn_i]   = 1'b0;
      work_d[cmd_qpn_i]    = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      cstate_q  <= C_IDLE;
      cpl_gone_q <= 1'b0;
      cq_q      <= '0;
      acked_v_q <= '0;
      nak_v_q   <= '0;
      work_q    <= '0;
    end else begin
      cstate_q  <= cstate_d;
      cpl_gone_q <= cpl_gone_d;
      cq_q      <= cq_d;
      acked_v_q <= acked_v_d;
      nak_v_q   <= nak_v_d;
      work_q    <= work_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (cqe_load) begin
      cqe_q <= cqe_d;
    end
  end

`ifndef SYNTHESIS
  // The completion offered and not taken, kept only in the cycles that happens (a_cpl_stable).
  logic          chk_cpl_held_q;
  nic_pkg::cqe_t chk_cpl_cqe_q;
  always_ff @(posedge clk_i) begin
    chk_cpl_held_q <= !rst_i && cpl_valid_o && !cpl_ready_i;
    if (cpl_valid_o && !cpl_ready_i) begin
      chk_cpl_cqe_q <= cpl_cqe_o;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i && chk_cpl_held_q) begin
      // an offered completion stays offered, unchanged, until taken
      a_cpl_stable: assert (cpl_valid_o && cpl_cqe_o == chk_cpl_cqe_q);
    end
    // every failure's status is one nak_code encodes (the table keeps only its code)
    if (!rst_i && ack_take_i && ack_nak_i) begin
      a_nak_status_encodable: assert (nak_status(ack_nak_code) == ack_nak_status_i);
    end
    if (!rst_i && tm_fail_i) begin
      a_timeout_encodable: assert (nak_status(NakCodeIoTimeout) == nic_pkg::STATUS_IO_TIMEOUT);
    end
    if (!rst_i && rp_fail_i) begin
      a_fail_status_encodable: assert (nak_status(rp_fail_code) == rp_fail_status_i);
    end
  end
`endif

endmodule
