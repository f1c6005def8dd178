`default_nettype none
// nic_qp_ctx: the core's QP contexts, the one owner of every local per-QP field: the state
// (RESET / READY / RTS / ERROR), the protection domain, the send and receive CQ numbers, the send
// ring and the receive ring (base, depth). It applies the QP commands and the error events of the
// engines, and gives every engine that needs a field a read port.
//
// What is not here, and why: the connection (peer MAC / IPv4 / QPN, path MTU, ORD / IRD, and
// whatever loss recovery adds) is nic_tp_qp_ctx's, inside nic_transport: it exists only where the
// transport is built, only the transport reads it, and QP_CONNECT is its only writer. The moving
// state of the queues stays with the engine that moves it: the SQ indices (nic_wqe_fetch), the RQ
// indices and prefetch (nic_rsp_rq), the PSNs (the requester and the responder's dispatcher).
//
// Commands (one-cycle pulses from nic_csr, applied in that cycle; a QP number >= NumQps is
// ignored). nic_qp_ctx is the one place that judges the QP commands' arguments; a refused command
// leaves the state as it was, which the driver reads back (QP_STATE):
//   QP_CREATE: READY if sq_log_depth and rq_log_depth are <= LogMaxSqDepth (CAP_SQ's; receive
//              rings are as deep as send rings) and the SQ ring is 4 KiB aligned, else the QP
//              stays / goes to RESET. The fields are written either way.
//   QP_DESTROY: RESET. qp_reset_o pulses for QP_CREATE and QP_DESTROY alike (the old ring's WQEs
//              are gone either way).
//   QP_FLUSH: ERROR (a QP in RESET stays there).
//   QP_CONNECT: READY -> RTS if log_mtu is 8..12 and ORD and IRD are <= MaxReads (CAP_TRANSPORT's
//              read limit); ignored in any other state or with other arguments. connect_taken_o
//              says which: nic_core passes the transport only a QP_CONNECT that was taken, so a
//              refused one (a QP already connected, in error or in RESET) never rewrites a live
//              connection's peer or PSNs.
// Errors: a live QP (READY or RTS) goes to ERROR when one of its WQEs fails in the dispatcher or
// the transport, when a doorbell would overrun its ring (nic_wqe_fetch), or while its send or
// receive CQ is in error. Commands come last: they win over same-cycle events of the old
// incarnation; but a QP_CONNECT is refused in the cycle of the dispatcher's error of its QP
// (exec_err_i, registered in nic_wqe_dispatch: a cycle after the WQE failed), so that error
// always lands.
//
// Interfaces: qp_state_o is the whole state vector (nic_csr reads it back, the transport checks
// its QPs); every read port is a QP number in and the fields out, combinational today (LUT RAM),
// a request / response pair a register can later be put on:
//   rd_*      nic_wqe_dispatch: state, PD, send CQ
//   ring_db_* / ring_rd_*  nic_wqe_fetch: the send ring at a doorbell (depth) and at a fetch
//   tp_in_*   the requester's intake: PD, send ring (a replay re-reads WQEs from it)
//   tp_scq_*  the requester's completer: send CQ
//   tp_d_*    the responder's dispatcher: PD
//   tp_rcq_*  the responder's receive completions: receive CQ
//   tp_pq_*   the responder's read-response planner: PD
//   tp_rq_*   the responder's receive-WQE prefetch: receive ring
module nic_qp_ctx #(
  parameter int NumQps        = 16,  // queue pairs, 1..256
  parameter int NumCqs        = 16,  // completion queues, 1..256
  parameter int LogMaxSqDepth = 12,  // largest send (and receive) queue: 2^LogMaxSqDepth WQEs, <= 15
  parameter int MaxReads      = 32   // largest ORD and IRD QP_CONNECT accepts (as nic_core)
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // commands
  input  logic                cmd_valid_i,
  input  logic [7:0]          cmd_op_i,
  input  logic [15:0]         cmd_index_i,
  input  logic [255:0]        cmd_args_i,       // ARG0 in [31:0] ... ARG7 in [255:224]
  // what the commands mean for nic_wqe_fetch
  output logic                qp_reset_o,       // QP created or destroyed this cycle
  output logic [7:0]          qp_reset_qpn_o,
  // the QP_CONNECT of this cycle is taken (READY -> RTS): only then may the transport apply it
  output logic                connect_taken_o,
  // the send ring, for nic_wqe_fetch: at a doorbell (its depth) and at a fetch (base and depth)
  input  logic [7:0]          ring_db_qpn_i,
  output logic [3:0]          ring_db_log_depth_o,
  input  logic [7:0]          ring_rd_qpn_i,
  output logic [51:0]         ring_rd_base_o,       // SQ ring base address [63:12]
  output logic [3:0]          ring_rd_log_depth_o,
  // states
  output logic [2*NumQps-1:0] qp_state_o,       // nic_pkg QP_STATE_* per QP, QP n in [2n+1:2n]
  output logic [NumQps-1:0]   qp_active_o,      // state != RESET
  // error events (each: the QP goes to ERROR if it is live)
  input  logic [NumCqs-1:0]   cq_error_i,       // CQ n is in error (overflow)
  input  logic                db_err_i,         // a doorbell overran the ring
  input  logic [7:0]          db_err_qpn_i,
  input  logic                exec_err_i,       // a WQE failed in nic_wqe_dispatch
  input  logic [7:0]          exec_err_qpn_i,
  input  logic                req_err_i,        // ... in the requester
  input  logic [7:0]          req_err_qpn_i,
  input  logic                rsp_err_i,        // ... in the responder
  input  logic [7:0]          rsp_err_qpn_i,
  input  logic                wr_err_i,         // a payload write of the QP's failed (nic_dma_wr)
  input  logic [7:0]          wr_err_qpn_i,
  // the dispatcher's read port
  input  logic [7:0]          rd_qpn_i,
  output logic [1:0]          rd_state_o,       // RESET if rd_qpn_i >= NumQps
  output logic [15:0]         rd_pd_o,
  output logic [7:0]          rd_sq_cqn_o,
  // the transport's read ports (QP numbers < NumQps)
  input  logic [7:0]          tp_in_qpn_i,
  output logic [15:0]         tp_in_pd_o,
  output logic [51:0]         tp_in_sq_base_o,  // SQ ring base address [63:12]
  output logic [3:0]          tp_in_sq_ld_o,    // log2 of its depth
  input  logic [7:0]          tp_scq_qpn_i,
  output logic [7:0]          tp_scq_cqn_o,
  input  logic [7:0]          tp_d_qpn_i,
  output logic [15:0]         tp_d_pd_o,
  input  logic [7:0]          tp_rcq_qpn_i,
  output logic [7:0]          tp_rcq_cqn_o,
  input  logic [7:0]          tp_pq_qpn_i,
  output logic [15:0]         tp_pq_pd_o,
  input  logic [7:0]          tp_rq_qpn_i,
  output logic [63:0]         tp_rq_base_o,     // RQ ring base address
  output logic [3:0]          tp_rq_ld_o        // log2 of its depth
);

  localparam int QpW = (NumQps > 1) ? $clog2(NumQps) : 1;     // table index of a QP

  // ---- commands -----------------------------------------------------------------------------
  nic_pkg::cmd_qp_create_t  create_args;
  nic_pkg::cmd_qp_connect_t connect_args;
  logic                     cmd_qp, qp_create, qp_destroy, qp_flush, qp_connect;
  logic                     create_ok, connect_ok;
  logic [7:0]              cmd_qpn;
  logic [QpW-1:0]          cmd_idx;

  assign create_args  = cmd_args_i;
  assign connect_args = cmd_args_i;
  assign cmd_qp      = cmd_valid_i && 32'(cmd_index_i) < NumQps;
  assign cmd_qpn     = cmd_index_i[7:0];
  assign cmd_idx     = QpW'(cmd_qpn);
  assign qp_create   = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_CREATE;
  assign qp_destroy  = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_DESTROY;
  assign qp_flush    = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_FLUSH;
  assign qp_connect  = cmd_qp && cmd_op_i == nic_pkg::CMD_QP_CONNECT;
  assign create_ok   = 32'(create_args.sq_log_depth) <= LogMaxSqDepth &&
                       32'(create_args.rq_log_depth) <= LogMaxSqDepth &&
                       create_args.sq_base[11:0] == 12'd0;
  // the path MTUs the framing and the packet counts handle (256..4096 bytes), and no more Reads
  // than the requester's read ring holds and CAP_TRANSPORT reports
  assign connect_ok  = connect_args.log_mtu >= nic_pkg::LOG_MTU_MIN &&
                       connect_args.log_mtu <= nic_pkg::LOG_MTU_MAX &&
                       32'(connect_args.outbound_read_limit) <= MaxReads &&
                       32'(connect_args.inbound_read_limit) <= MaxReads;

  assign qp_reset_o     = qp_create || qp_destroy;
  assign qp_reset_qpn_o = cmd_qpn;
  // A QP_CONNECT meeting the dispatcher's error of the QP (registered there: the WQE failed in
  // the cycle before) is refused and the error taken: the failure is never lost to the connect.
  assign connect_taken_o = qp_connect && connect_ok &&
                           state_q[2*cmd_idx +: 2] == nic_pkg::QP_STATE_READY &&
                           !(exec_err_i && exec_err_qpn_i == cmd_qpn);

  // The SQ ring's low address bits and the depths' high bits are only checked. Of QP_CONNECT only
  // the checked fields are read here (the rest is the transport's: nic_tp_qp_ctx and the PSNs of
  // its engines), so the whole struct is named, not its fields one by one.
  logic unused_args;
  assign unused_args = ^{create_args.rsvd_192, create_args.rsvd_112, create_args.sq_log_depth[7:4],
                         create_args.rq_log_depth[7:4], connect_args};

  // ---- the tables -----------------------------------------------------------------------------
  // Written like RAMs, by the command or event that names the QP: the state (with reset, kept as
  // one vector, which is also what nic_csr reads), the active bits (state != RESET), and, without
  // reset (QP_CREATE writes them before any use), pd and the CQ numbers. Nothing is evaluated per
  // QP in a cycle without an event, except while a CQ is in error (below).
  logic [255:0]        cq_err_all;     // one bit per possible CQ number (absent CQs: 0)
  logic [2*NumQps-1:0] state_q;
  logic [NumQps-1:0]   active_q;
  logic [15:0]         pd_q      [NumQps];
  logic [7:0]          sq_cqn_q  [NumQps];
  logic [7:0]          rq_cqn_q  [NumQps];
  logic [51:0]         sq_base_q [NumQps];     // send ring base [63:12]
  logic [3:0]          sq_ld_q   [NumQps];     // send ring depth log2
  logic [63:0]         rq_base_q [NumQps];     // receive ring base
  logic [3:0]          rq_ld_q   [NumQps];     // receive ring depth log2

  // a live QP: READY or connected (RTS); errors move it to ERROR
  function automatic logic live(input logic [1:0] st);
    live = st == nic_pkg::QP_STATE_READY || st == nic_pkg::QP_STATE_RTS;
  endfunction

  logic [QpW-1:0] db_err_idx, exec_err_idx, req_err_idx, rsp_err_idx, wr_err_idx;
  logic           db_err_hit, exec_err_hit, req_err_hit, rsp_err_hit, wr_err_hit;

  assign cq_err_all   = 256'(cq_error_i);
  assign db_err_idx   = QpW'(db_err_qpn_i);
  assign exec_err_idx = QpW'(exec_err_qpn_i);
  assign req_err_idx  = QpW'(req_err_qpn_i);
  assign rsp_err_idx  = QpW'(rsp_err_qpn_i);
  assign wr_err_idx   = QpW'(wr_err_qpn_i);
  assign wr_err_hit   = wr_err_i && 32'(wr_err_qpn_i) < NumQps &&
                        live(state_q[2*wr_err_idx +: 2]);
  assign db_err_hit   = db_err_i && 32'(db_err_qpn_i) < NumQps && live(state_q[2*db_err_idx +: 2]);
  assign exec_err_hit = exec_err_i && 32'(exec_err_qpn_i) < NumQps &&
                        live(state_q[2*exec_err_idx +: 2]);
  assign req_err_hit  = req_err_i && 32'(req_err_qpn_i) < NumQps &&
                        live(state_q[2*req_err_idx +: 2]);
  assign rsp_err_hit  = rsp_err_i && 32'(rsp_err_qpn_i) < NumQps &&
                        live(state_q[2*rsp_err_idx +: 2]);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q  <= {NumQps{nic_pkg::QP_STATE_RESET}};
      active_q <= '0;
    end else begin
      // A CQ in error stays so until it is destroyed, and a QP created on it fails at once: the
      // check of every QP runs in the cycles some CQ is in error (overflow), and only then.
      if (cq_error_i != '0) begin
        for (int q = 0; q < NumQps; q++) begin
          if (live(state_q[2*q +: 2]) && (cq_err_all[sq_cqn_q[q]] || cq_err_all[rq_cqn_q[q]])) begin
            state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
          end
        end
      end
      // One constant slice per QP, enabled by the decoded indices: a write at a computed offset
      // (state_q[2*cmd_idx +: 2]) is a shifter of the whole vector per writer in Yosys 0.23.
      for (int q = 0; q < NumQps; q++) begin
        if (db_err_hit && db_err_idx == QpW'(q)) begin
          state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
        end
        if (exec_err_hit && exec_err_idx == QpW'(q)) begin
          state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
        end
        if (req_err_hit && req_err_idx == QpW'(q)) begin
          state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
        end
        if (rsp_err_hit && rsp_err_idx == QpW'(q)) begin
          state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
        end
        if (wr_err_hit && wr_err_idx == QpW'(q)) begin
          state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
        end
        if (cmd_idx == QpW'(q)) begin
          if (connect_taken_o) begin
            state_q[2*q +: 2] <= nic_pkg::QP_STATE_RTS;
          end
          if (qp_flush && state_q[2*q +: 2] != nic_pkg::QP_STATE_RESET) begin
            state_q[2*q +: 2] <= nic_pkg::QP_STATE_ERROR;
          end
          if (qp_destroy) begin
            state_q[2*q +: 2] <= nic_pkg::QP_STATE_RESET;
          end
          if (qp_create) begin
            state_q[2*q +: 2] <= create_ok ? nic_pkg::QP_STATE_READY : nic_pkg::QP_STATE_RESET;
          end
        end
      end
      if (qp_destroy) begin
        active_q[cmd_idx] <= 1'b0;
      end
      if (qp_create) begin
        active_q[cmd_idx] <= create_ok;
      end
    end
  end

  // The static fields: written by QP_CREATE (whether or not the QP becomes READY).
  always_ff @(posedge clk_i) begin
    if (qp_create) begin
      pd_q[cmd_idx]     <= create_args.pd;
      sq_cqn_q[cmd_idx] <= create_args.sq_cqn;
      rq_cqn_q[cmd_idx] <= create_args.rq_cqn;
      sq_base_q[cmd_idx] <= create_args.sq_base[63:12];
      sq_ld_q[cmd_idx]   <= create_args.sq_log_depth[3:0];
      rq_base_q[cmd_idx] <= create_args.rq_base;
      rq_ld_q[cmd_idx]   <= create_args.rq_log_depth[3:0];
    end
  end

  assign qp_state_o  = state_q;
  assign qp_active_o = active_q;

  // ---- the dispatcher's read port -----------------------------------------------------------------
  logic [QpW-1:0] rd_idx;

  assign rd_idx      = QpW'(rd_qpn_i);
  assign rd_state_o  = (32'(rd_qpn_i) < NumQps) ? state_q[2*rd_idx +: 2] : nic_pkg::QP_STATE_RESET;
  assign rd_pd_o     = pd_q[rd_idx];
  assign rd_sq_cqn_o = sq_cqn_q[rd_idx];

  // ---- nic_wqe_fetch's read ports (QP numbers < NumQps) --------------------------------------------
  assign ring_db_log_depth_o = sq_ld_q[QpW'(ring_db_qpn_i)];
  assign ring_rd_base_o      = sq_base_q[QpW'(ring_rd_qpn_i)];
  assign ring_rd_log_depth_o = sq_ld_q[QpW'(ring_rd_qpn_i)];

  // ---- the transport's read ports (QP numbers < NumQps) -------------------------------------------
  assign tp_in_pd_o      = pd_q[QpW'(tp_in_qpn_i)];
  assign tp_in_sq_base_o = sq_base_q[QpW'(tp_in_qpn_i)];
  assign tp_in_sq_ld_o   = sq_ld_q[QpW'(tp_in_qpn_i)];
  assign tp_scq_cqn_o    = sq_cqn_q[QpW'(tp_scq_qpn_i)];
  assign tp_d_pd_o       = pd_q[QpW'(tp_d_qpn_i)];
  assign tp_rcq_cqn_o    = rq_cqn_q[QpW'(tp_rcq_qpn_i)];
  assign tp_pq_pd_o      = pd_q[QpW'(tp_pq_qpn_i)];
  assign tp_rq_base_o    = rq_base_q[QpW'(tp_rq_qpn_i)];
  assign tp_rq_ld_o      = rq_ld_q[QpW'(tp_rq_qpn_i)];

  // the bits above a table index (the readers ask for QPs < NumQps)
  logic unused_port_qpns;
  assign unused_port_qpns = ^{ring_db_qpn_i, ring_rd_qpn_i, tp_in_qpn_i, tp_scq_qpn_i, tp_d_qpn_i,
                              tp_rcq_qpn_i, tp_pq_qpn_i, tp_rq_qpn_i};

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  logic           chk_cmd_q;
  logic [QpW-1:0] chk_cmd_idx_q;
  always_ff @(posedge clk_i) begin
    chk_cmd_q     <= !rst_i && cmd_qp;
    chk_cmd_idx_q <= cmd_idx;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // The active bits summarise the states: checked for the QP a command changed.
      if (chk_cmd_q) begin
        a_qp_active_matches: assert (active_q[chk_cmd_idx_q] ==
                                     (state_q[2*chk_cmd_idx_q +: 2] != nic_pkg::QP_STATE_RESET));
      end
    end
  end
`endif

endmodule
