#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Planted bugs: each formal property must catch the bug it guards against.

    tools/formal/plant.py [--only BUG ...]

For every bug below, a copy of the module with the bug planted (one exact text substitution,
which must match once) goes through tools/formal/formal.py's job, and the proof must FAIL;
the clean design must pass (make formal runs it first). Exit 0 only when every planted bug was
caught; the last line is `plant: N caught, N missed`.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CQ = "rtl/core/nic_cq_engine.sv"
WF = "rtl/core/nic_wqe_fetch.sv"
PSN = "rtl/pkg/nic_roce_pkg.sv"
AT = "rtl/transport/nic_req_ack_timer.sv"
PC = "rtl/transport/nic_rsp_psn_check.sv"
RN = "rtl/transport/nic_req_rnr.sv"
RD = "rtl/transport/nic_rsp_dispatch.sv"

# name: (job, file, text, replacement, the property that must catch it)
BUGS = {
    "cq_merge_solicited_beats_any": (
        "cq_engine", CQ,
        "if (a == nic_pkg::ARM_ANY || b == nic_pkg::ARM_ANY) begin\n      arm_merge = nic_pkg::ARM_ANY;\n"
        "    end else if (a == nic_pkg::ARM_SOLICITED || b == nic_pkg::ARM_SOLICITED) begin\n"
        "      arm_merge = nic_pkg::ARM_SOLICITED;",
        "if (a == nic_pkg::ARM_SOLICITED || b == nic_pkg::ARM_SOLICITED) begin\n      arm_merge = nic_pkg::ARM_SOLICITED;\n"
        "    end else if (a == nic_pkg::ARM_ANY || b == nic_pkg::ARM_ANY) begin\n"
        "      arm_merge = nic_pkg::ARM_ANY;",
        "f_arm_merge_table (the merge table, C8)"),
    "cq_arm_not_cleared_on_fire": (
        "cq_engine", CQ, "armed_d = armed_q & ~fire;", "armed_d = armed_q;",
        "at most one notification per arm"),
    "cq_fire_without_arm": (
        "cq_engine", CQ, "assign satisfied = valid_q & armed_q & ~npend_q",
        "assign satisfied = valid_q & ~npend_q", "no notification without an arm"),
    "cq_fire_while_request_pending": (
        "cq_engine", CQ, "assign satisfied = valid_q & armed_q & ~npend_q",
        "assign satisfied = valid_q & armed_q", "one interrupt request per notification"),
    "cq_arm_waits_for_new_entry": (
        "cq_engine", CQ, "(any_q & nonempty_q)", "(any_q & nonempty_q & ~newz_q)",
        "an arm with un-notified entries fires (the lost wake-up, C6)"),
    "cq_cqe_into_full_ring": (
        "cq_engine", CQ, "acc_full     = 17'(acc_occ) >= acc_depth;",
        "acc_full     = 17'(acc_occ) > acc_depth;", "no CQE written into a full CQ"),
    "cq_ci_past_pi": (
        "cq_engine", CQ, "db_ci_ok    = (db_new_ci - db_old_ci) <= (db_pi - db_old_ci);",
        "db_ci_ok    = 1'b1;", "occupancy <= depth (ci stays in [ci, pi])"),
    "cq_phase_not_flipped": (
        "cq_engine", CQ, "acc_cqe.owner = {7'd0, ~acc_pi[acc_logd]};",
        "acc_cqe.owner = {7'd0, ~acc_pi[0]};", "f_write_phase (owner bit of pi's pass)"),
    "wqe_doorbell_lost_in_coalescing_window": (
        "wqe_fetch", WF, "assign pend_db_new    = !bf_hit && sq_db_pi_i != db_fetch_new;",
        "assign pend_db_new    = !bf_hit && sq_db_pi_i != fetch_db;",
        "a doorbelled WQE stays pending (no doorbell lost)"),
    "wqe_doorbell_lost_in_the_read_cycle": (
        "wqe_fetch", WF,
        "        end else if (db_ok && db_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pend_db_new;\n"
        "        end else if (issue && pick_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pend_issue_new;\n",
        "        end else if (issue && pick_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pi_pick != issue_fetch_new && (pend_issue_new || 1'b1);\n"
        "        end else if (db_ok && db_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pend_db_new;\n",
        "a doorbelled WQE stays pending (a doorbell in its QP's read cycle is not lost; the "
        "fuzzer's planted bug of the same kind)"),
    "wqe_coalesced_doorbell_dropped": (
        "wqe_fetch", WF, "    if (db_ok) begin\n      pi_mem[db_idx] <= sq_db_pi_i;",
        "    if (db_ok && !pend_q[db_idx]) begin\n      pi_mem[db_idx] <= sq_db_pi_i;",
        "f_db_index_kept (no doorbell lost)"),
    "wqe_last_wqe_fetched_twice": (
        "wqe_fetch", WF, "assign issue_fetch_new = fetch_pick + 16'(issue_n);",
        "assign issue_fetch_new = fetch_pick + 16'(issue_n) - 16'(issue_n > NW'(1));",
        "f_fetch_moves_past_read (no doorbell repeated)"),
    "wqe_fetch_beyond_doorbell": (
        "wqe_fetch", WF, "assign avail     = 17'(sel_avail);", "assign avail     = 17'(sel_avail) + 17'd1;",
        "f_req_takes_doorbelled / f_issue_takes_doorbelled (nothing fetched that was not doorbelled)"),
    "wqe_request_kept_past_its_read": (
        "wqe_fetch", WF, "assign pick_keep = pick_v_q && pending[pick_idx] && !issue &&",
        "assign pick_keep = pick_v_q && pending[pick_idx] &&",
        "f_req_reads_next / f_req_takes_doorbelled (a registered request is dropped when its QP's fetch moves)"),
    "wqe_rewind_lets_a_read_through": (
        "wqe_fetch", WF, "                      !qp_reset_i && !rw_v_q;",
        "                      !qp_reset_i;",
        "f_fetch_moves_past_read / f_rewind_pending_fetched (no read is issued while a rewind waits: it would move the fetch the rewind names)"),
    "wqe_rewind_not_to_exec": (
        "wqe_fetch", WF, "<= rw_apply ? exec_rw : bf_hit ? sq_db_pi_i : issue_fetch_new;",
        "<= rw_apply ? exec_rw + 16'd1 : bf_hit ? sq_db_pi_i : issue_fetch_new;",
        "f_rewind_to_exec (the WQE given back is fetched again, not skipped)"),
    "wqe_request_kept_past_a_doorbell": (
        "wqe_fetch", WF, "assign req_kill = !pick_keep || (db_take && db_sel == pick_qpn_q) ||",
        "assign req_kill = !pick_keep ||",
        "f_req_takes_doorbelled (a registered request is dropped when its QP's pi moves)"),
    "psn_le_without_wrap": (
        "psn_le", PSN, "psn_le = ((b - a) & 24'h800000) == 24'd0;", "psn_le = a <= b;",
        "a_psn_reference / a_psn_wrap"),
    "psn_le_half_window_off_by_one": (
        "psn_le", PSN, "psn_le = ((b - a) & 24'h800000) == 24'd0;",
        "psn_le = (b - a) <= 24'h800000;", "a_psn_reference / a_psn_total"),
    "ack_timer_retry_not_restored_on_progress": (
        "ack_timer", AT, "      left_q[ack_q_i]  <= sn_rcnt_q;\n", "",
        "budget left = retry_count - spent (progress restores it)"),
    "ack_timer_not_restarted_on_progress": (
        "ack_timer", AT, "    if (ack_progress) begin\n      restart[ack_q_i] = 1'b1;\n    end\n", "",
        "an armed timer expires P + 1 ticks after its last restart"),
    "ack_timer_expires_one_tick_early": (
        "ack_timer", AT, "(now_us_d - start_q[scan_d]) + ~ack_period_us(tmo_q[scan_d]);",
        "(now_us_d - start_q[scan_d]) - ack_period_us(tmo_q[scan_d]);",
        "f_timeout_when_due (expiry P + 1 ticks after the last restart)"),
    "ack_timer_armed_with_code_0": (
        "ack_timer", AT, "if (append_i && append_pend_i && tmo_q[append_qpn_i] != 5'd0) begin",
        "if (append_i && append_pend_i) begin", "code 0: never armed, no timeout"),
    "ack_timer_one_retry_too_many": (
        "ack_timer", AT, "      left_q[cmd_qpn_i]  <= cmd_retry_count_i;",
        "      left_q[cmd_qpn_i]  <= cmd_retry_count_i + 3'd1;",
        "never more than retry_count retries without progress"),
    "ack_timer_sequence_nak_spends_no_retry": (
        "ack_timer", AT, "      left_q[ack_q_i]     <= seq_left - 3'd1;", "      left_q[ack_q_i]     <= seq_left;",
        "f_seq_nak_spends_or_fails (a sequence NAK spends a retry)"),
    "psn_nak_for_every_packet_ahead": (
        "psn_check", PC, "assign nak_o   = ahead_o && !nak_q[qpn_i];", "assign nak_o   = ahead_o;",
        "f_one_nak_per_gap (one sequence NAK per gap)"),
    "psn_nak_sent_not_recorded": (
        "psn_check", PC, "      nak_d[qpn_i] = 1'b1;", "      nak_d[qpn_i] = 1'b0;",
        "f_nak_state_is_gap / f_one_nak_per_gap"),
    "psn_nak_state_survives_connect": (
        "psn_check", PC, "      nak_d[cmd_qpn_i] = 1'b0;\n", "",
        "f_nak_state_is_gap (QP_CONNECT starts without a gap)"),
    "psn_duplicate_without_wrap": (
        "psn_check", PC, "assign dup_o   = psn_i != q_epsn && nic_roce_pkg::psn_le(psn_i, q_epsn - 24'd1);",
        "assign dup_o   = psn_i < q_epsn;", "f_dup_reference (duplicate vs new with 24-bit wrap)"),
    "psn_expected_moves_back": (
        "psn_check", PC, "      epsn_q[qpn_i] <= q_epsn + adv_i;", "      epsn_q[qpn_i] <= q_epsn - adv_i;",
        "f_epsn_moves_forward (the expected PSN never moves back)"),
    "rnr_one_retry_too_many": (
        "rnr", RN, "rnr_spent = ack_rnr_retry_i != 3'd7 && rnr_done >= ack_rnr_retry_i;",
        "rnr_spent = ack_rnr_retry_i != 3'd7 && rnr_done > ack_rnr_retry_i;",
        "f_rnr_budget (rnr_retry retries of one PSN, then the RNR NAK fails)"),
    "rnr_retry_7_not_for_ever": (
        "rnr", RN, "rnr_spent = ack_rnr_retry_i != 3'd7 && rnr_done >= ack_rnr_retry_i;",
        "rnr_spent = rnr_done >= ack_rnr_retry_i;",
        "f_rnr_budget (rnr_retry 7 retries for ever)"),
    "rnr_count_not_restarted_for_another_psn": (
        "rnr", RN, "rnr_done  = ack_rnr_same ? rnr_cnt_q[ack_q] : 3'd0;",
        "rnr_done  = rnr_open_q[ack_q] ? rnr_cnt_q[ack_q] : 3'd0;",
        "f_rnr_budget (an RNR NAK of another PSN starts its own count)"),
    "rnr_episode_not_closed_by_ack": (
        "rnr", RN, "        rnr_open_d[ack_q] = 1'b0;      // the retried message got through\n", "",
        "the episode closes when an ACK covers its PSN (rnr_open == shadow; f_ack_classified)"),
    "rnr_failing_nak_opens_no_episode": (
        "rnr", RN, "      if (ack_kind == 3'b001) begin\n        // also the RNR NAK that fails the Send",
        "      if (ack_rnr) begin\n        // also the RNR NAK that fails the Send",
        "the RNR NAK that fails opens the episode too (rnr_open == shadow; f_ack_classified)"),
    "rnr_seq_nak_in_episode_replays": (
        "rnr", RN, "ack_seq_o = ack_syndrome_i == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR && !ack_rnr_same;",
        "ack_seq_o = ack_syndrome_i == nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;",
        "f_ack_classified (a sequence NAK of the open episode's PSN orders no go-back-N)"),
    "rnr_seq_nak_fails": (
        "rnr", RN, "ack_nak  = !ack_ack && !ack_rnr && ack_syndrome_i != nic_roce_pkg::AETH_NAK_PSN_SEQ_ERR;",
        "ack_nak  = !ack_ack && !ack_rnr;",
        "f_nak_or_seq / f_ack_classified (a sequence NAK fails nothing)"),
    "rnr_nak_upto_its_psn": (
        "rnr", RN, "ack_upto_o = ack_ack ? ack_psn_i : ack_psn_i - 24'd1;", "ack_upto_o = ack_psn_i;",
        "f_ack_upto (a NAK acknowledges up to the PSN before its own)"),
    "rnr_spent_nak_remote_error": (
        "rnr", RN, "(ack_kind == 3'b001) ? nic_pkg::STATUS_IO_TIMEOUT", "(ack_kind == 3'b001) ? nic_pkg::STATUS_REMOTE_ERROR",
        "f_nak_status (the RNR NAK past rnr_retry fails IO_TIMEOUT)"),
    "rnr_out_of_range_qp_taken": (
        "rnr", RN, "ack_take = ack_valid_i && 32'(ack_qpn_i) < NumQps;", "ack_take = ack_valid_i;",
        "f_take_in_range (no acknowledgement of another side's QP is taken)"),
    "rnr_timer_one_tick_short": (
        "rnr", RN, "rnr_due_q[arm_qpn_q] <= now_us_q + 24'(rnr_wait_us(arm_code_q)) + (arm_tick_q ? 24'd0 : 24'd1);",
        "rnr_due_q[arm_qpn_q] <= now_us_q + 24'(rnr_wait_us(arm_code_q)) + (arm_tick_q ? 24'hFFFFFF : 24'd0);",
        "f_go_not_early (never before the code's wait + 1 pulses)"),
    "rnr_due_ignores_the_arming_tick": (
        "rnr", RN, "(arm_tick_q ? 24'd0 : 24'd1);\n    end", "24'd1;\n    end",
        "f_go_when_due / the due time (a tick in the NAK's own cycle counts: the retry is not a microsecond late)"),
    "rnr_clock_runs_while_idle": (
        "rnr", RN, "(us_tick_i && rnr_wait_q != '0)", "(us_tick_i)",
        "f_idle_at_rest (the clock stands still while no QP waits)"),
    "rnr_go_without_wait": (
        "rnr", RN, "rnr_go_o = rnr_wait_q[scan_q] && ((now_us_q - scan_due) & 24'h800000) == 24'd0;",
        "rnr_go_o = ((now_us_q - scan_due) & 24'h800000) == 24'd0;",
        "f_go_not_early (a replay only for a QP whose timer is armed)"),
    "rnr_scan_leaves_an_expired_qp": (
        "rnr", RN, "if (!rnr_go_o && rnr_wait_q != '0) begin", "if (rnr_wait_q != '0) begin",
        "f_scan_moves (the scan stays on an expired QP until its replay starts)"),
    "rnr_replay_psn_not_moved_by_ack": (
        "rnr", RN, "      rnr_psn_q[ack_q] <= ack_psn_i + 24'd1;\n", "",
        "f_replay_psn (an ACK covering the timer's PSN moves the replay past it)"),
    "rnr_wait_survives_its_replay": (
        "rnr", RN, "    if (rnr_start_i) begin\n      rnr_wait_d[scan_q] = 1'b0;\n    end\n", "",
        "wait_o exactly while armed (the replay's start disarms)"),
    "rnr_clear_keeps_the_timer": (
        "rnr", RN, "      rnr_wait_d[cmd_qpn_i] = 1'b0;\n", "",
        "wait_o exactly while armed (a clear disarms)"),
    "rnr_clear_keeps_the_episode": (
        "rnr", RN, "      rnr_open_d[cmd_qpn_i] = 1'b0;\n", "",
        "the episode closes at a clear (rnr_open == shadow)"),
    "rr_nak_not_cleared_by_progress": (
        "rr_nak", RD, "            rr_nak_d[qpn_q] = 1'b0;          // progress: a later gap gets its implied NAK\n", "",
        "f_rr_nak_is_gap / f_one_implied_nak_per_gap (a placed response: the next gap gets its implied NAK)"),
    "rr_nak_every_skipped_response_naks": (
        "rr_nak", RD, "            ack_valid_o     = !rr_nak_q[qpn_q];\n", "            ack_valid_o     = 1'b1;\n",
        "f_one_implied_nak_per_gap (a response beyond rr_next: one implied NAK per gap)"),
    "rr_nak_every_skipping_ack_naks": (
        "rr_nak", RD, "            ack_valid_o    = !rr_nak_q[qpn_q];\n", "            ack_valid_o    = 1'b1;\n",
        "f_one_implied_nak_per_gap (an ACK / NAK that skips rr_next: one implied NAK per gap)"),
    "rr_nak_not_recorded": (
        "rr_nak", RD, "          rr_nak_d[qpn_q] = 1'b1;\n          state_d         = R_DRAIN;\n",
        "          state_d         = R_DRAIN;\n",
        "f_rr_nak_is_gap (a later Read's response: the implied NAK given is recorded)"),
    "rr_nak_survives_connect": (
        "rr_nak", RD, "      rr_nak_d[cmd_qpn]        = 1'b0;\n", "",
        "f_rr_nak_is_gap (QP_CONNECT starts without an implied NAK out)"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(BUGS))
    ap.add_argument("--solver", default="yices", choices=["yices", "z3"])
    args = ap.parse_args()
    caught = missed = 0
    t_all = time.time()
    with tempfile.TemporaryDirectory(prefix="ndk-plant-") as tmp:
        for name in args.only or list(BUGS):
            job, path, text, repl, prop = BUGS[name]
            src = open(os.path.join(ROOT, path)).read()
            if src.count(text) != 1:
                print(f"[MISS] plant {name}: the text to replace occurs {src.count(text)} times in {path} "
                      "(the RTL changed: update tools/formal/plant.py)")
                missed += 1
                continue
            copy = os.path.join(tmp, f"{name}.sv")
            with open(copy, "w") as f:
                f.write(src.replace(text, repl))
            t0 = time.time()
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools/formal/formal.py"), "--only", job,
                                "--solver", args.solver, "--stop-on-fail", "--override", f"{path}={copy}",
                                "--build", os.path.join(ROOT, "build", "formal", "plant", name)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            lines = [ln.strip() for ln in p.stdout.splitlines() if ln.startswith("    ")]
            # caught: the proof (bmc or induction) failed, not the tools (a copy Yosys cannot read)
            if p.returncode != 0 and "1 failed" in p.stdout and lines and \
                    lines[0].startswith(("bmc:", "prove:")):
                print(f"[CAUGHT] plant {name} ({prop}): {time.time() - t0:.0f} s; {lines[0] if lines else ''}")
                caught += 1
            else:
                print(f"[MISS] plant {name}: the proof of {job} still passes with the bug planted ({prop})")
                missed += 1
    print(f"plant: {time.time() - t_all:.0f} s")
    print(f"plant: {caught} caught, {missed} missed")
    return 0 if missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
