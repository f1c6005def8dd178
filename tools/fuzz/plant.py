#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Planted bugs: the fuzzer must find each from the saved seeds within a time bound.

    tools/fuzz/plant.py [--only BUG ...] [--seconds S] [--keep]      (make fuzz-plant)

For every bug below: a copy of the RTL with the bug planted (one exact text substitution, which
must match once) is Verilated at width 64 into build/fuzz/plant/BUG/ (the width-256 model, the
driver and harness objects are taken from build/, which `make fuzz-build` must have made), the
fuzz harness is linked against it, and libFuzzer runs from tests/fuzz/corpus (-seed=1, fork mode,
going on after failures) at most S seconds (default 600). Caught: an input the fuzzer saved fails
on the planted build and passes on the clean one (build/fuzz/ndk_fuzz); inputs failing on both
are bugs of the clean design, listed and not counted. The script prints the time to detection
and the oracle's message. Heavy (one model build per
bug, ~5-10 minutes of one core each): not in make test. The last line is
`fuzz-plant: N caught, N missed`; exit 0 only when every bug was caught.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CQ = "rtl/core/nic_cq_engine.sv"
WF = "rtl/core/nic_wqe_fetch.sv"
RD = "rtl/transport/nic_rsp_dispatch.sv"

# name: (file, text, replacement, what it breaks)
BUGS = {
    "cqe_written_past_consumer_index": (
        CQ, "acc_full     = 17'(acc_occ) >= acc_depth;", "acc_full     = 17'(acc_occ) > acc_depth;",
        "a CQ holding `depth` unconsumed CQEs takes one more: the CQE overwrites the slot at the "
        "consumer index instead of putting the CQ in error"),
    "doorbell_lost_in_coalescing_window": (
        WF,
        "        end else if (db_ok && db_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pend_db_new;\n"
        "        end else if (issue && pick_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pend_issue_new;\n",
        # the update wins and sees the QP's old pi (pend_issue_new stays used, so that
        # Verilator's -Wall lint passes)
        "        end else if (issue && pick_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pi_pick != issue_fetch_new && (pend_issue_new || 1'b1);\n"
        "        end else if (db_ok && db_idx == QpW'(q)) begin\n"
        "          pend_q[q] <= pend_db_new;\n",
        "a doorbell that arrives in the cycle its QP's fetch read is issued is lost: the read's "
        "update of the pending bit wins and compares the new fetch index with the QP's old "
        "producer index, so WQEs the doorbell added beyond the read are never fetched"),
    "duplicate_write_executed_twice": (
        RD,
        "        end else if (psn_dup || psn_ahead) begin\n"
        "          if (psn_dup) begin",
        "        end else if ((psn_dup && !is_write) || psn_ahead) begin\n"
        "          if (psn_dup) begin",
        "a duplicate RDMA Write request (PSN before the expected one) is executed again instead "
        "of being acknowledged and dropped"),
}


def run(cmd, log, **kw):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, **kw).returncode


def build(bug, pdir, log):
    path, text, repl, _ = BUGS[bug]
    with open(os.path.join(ROOT, path)) as f:
        src = f.read()
    if src.count(text) != 1:
        raise RuntimeError(f"{path}: the text to replace matches {src.count(text)} times, not once "
                           "(the RTL changed: update BUGS)")
    planted = os.path.join(pdir, path)
    os.makedirs(os.path.dirname(planted), exist_ok=True)
    with open(planted, "w") as f:
        f.write(src.replace(text, repl))
    # the width-256 model and the objects of the clean build, timestamps kept (not rebuilt)
    b = os.path.join(pdir, "build")
    for sub in ("verilated/w256", "obj", "include"):
        dst = os.path.join(b, sub)
        if not os.path.exists(dst):
            shutil.copytree(os.path.join(ROOT, "build", sub), dst, symlinks=True)
    rtl = subprocess.run(["make", "-s", "--no-print-directory", "-f", "Makefile", "print-rtl-srcs"],
                         cwd=ROOT, capture_output=True, text=True).stdout.split()
    if path not in rtl:
        raise RuntimeError(f"{path} is not among the RTL sources {rtl}")
    rtl = [os.path.relpath(planted, ROOT) if p == path else p for p in rtl]
    vdir = os.path.join(b, "verilated")
    keep = [f"{vdir}/w256/Vnic_core_w256.mk", f"{vdir}/w256/Vnic_core_w256__ALL.a",
            f"{vdir}/w256/Vnic_core_w256_ram_words.h"]
    cmd = ["nice", "-n", "10", "make", "--no-print-directory", "-j2", "PGO=0",
           f"BUILD={os.path.relpath(b, ROOT)}", "RTL_SRCS=" + " ".join(rtl)]
    for k in keep:
        cmd += ["-o", os.path.relpath(k, ROOT)]
    cmd.append(os.path.relpath(os.path.join(b, "fuzz", "ndk_fuzz"), ROOT))
    if run(cmd, log) != 0:
        raise RuntimeError(f"the build failed (log {log})")
    return os.path.join(b, "fuzz", "ndk_fuzz")


def failure_of(binary, crash):
    """None when the input passes on binary, else the lines that say why it failed"""
    env = dict(os.environ, NDK_SIM_WIDTH="64")
    r = subprocess.run([binary, crash], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, cwd=ROOT)
    if r.returncode == 0:
        return None
    return [l.strip() for l in r.stdout.splitlines()
            if re.search(r"ndk_fuzz: FAIL|nicsim: FATAL|%Error|Assertion failed", l)][:3]


def fuzz(binary, clean, pdir, seconds, log, seeds):
    """libFuzzer in fork mode (-ignore_crashes: it goes on after a failure) from the saved seeds;
    every failing input it saves is run on the clean build: one that fails there too is a bug
    of the clean design (reported, not counted), the first that passes there is the planted
    bug caught."""
    crashes = os.path.join(pdir, "crashes") + "/"
    work = os.path.join(pdir, "corpus")
    for d in (crashes, work):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    env = dict(os.environ, NDK_SIM_WIDTH="64")
    cmd = ["nice", "-n", "10", binary, "-max_len=512", "-timeout=300", "-rss_limit_mb=4096",
           "-seed=1", "-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1",
           f"-max_total_time={seconds}", f"-artifact_prefix={crashes}", work, seeds]
    t0 = time.time()
    seen, clean_bugs, caught = set(), [], None
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
                                start_new_session=True)
        while caught is None:
            done = proc.poll() is not None
            for name in sorted(os.listdir(crashes)):
                if name in seen:
                    continue
                seen.add(name)
                path = os.path.join(crashes, name)
                if failure_of(clean, path) is None:
                    caught = (time.time() - t0, path, failure_of(binary, path) or [])
                    break
                clean_bugs.append(path)
            if done:
                break
            time.sleep(2)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
    with open(log) as f:
        text = f.read().split("$ " + cmd[0])[-1]
    execs = re.findall(r"^#(\d+)", text, re.M)
    return caught, time.time() - t0, (execs[-1] if execs else "?"), clean_bugs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(BUGS))
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--drop-seed", nargs="*", default=[],
                    help="fuzz from the saved seeds without these (to measure a bug a seed "
                    "reaches directly)")
    args = ap.parse_args()
    clean = os.path.join(ROOT, "build", "fuzz", "ndk_fuzz")
    if not os.access(clean, os.X_OK):
        print("fuzz-plant: build/fuzz/ndk_fuzz is missing: run make fuzz-build first")
        return 1
    caught = missed = 0
    for bug in args.only or BUGS:
        pdir = os.path.join(ROOT, "build", "fuzz", "plant", bug)
        os.makedirs(pdir, exist_ok=True)
        log = os.path.join(pdir, "plant.log")
        open(log, "w").close()
        print(f"=== {bug}: {BUGS[bug][3]}", flush=True)
        t0 = time.time()
        try:
            binary = build(bug, pdir, log)
        except RuntimeError as e:
            print(f"[MISSED] {bug}: {e}")
            missed += 1
            continue
        print(f"    built in {time.time() - t0:.0f} s", flush=True)
        seeds = os.path.join(ROOT, "tests", "fuzz", "corpus")
        if args.drop_seed:
            seeds = os.path.join(pdir, "seeds")
            shutil.rmtree(seeds, ignore_errors=True)
            shutil.copytree(os.path.join(ROOT, "tests", "fuzz", "corpus"), seeds)
            for name in args.drop_seed:
                os.remove(os.path.join(seeds, name))
            print(f"    seeds: tests/fuzz/corpus without {' '.join(args.drop_seed)}")
        hit, wall, execs, clean_bugs = fuzz(binary, clean, pdir, args.seconds, log, seeds)
        for c in clean_bugs:
            print(f"    (a failure of the clean design too, not counted: {os.path.relpath(c, ROOT)})")
        if hit:
            caught += 1
            print(f"[CAUGHT] {bug}: after {hit[0]:.0f} s of fuzzing (wall time, the seeds' replay "
                  f"included; {execs} executions by then); input {os.path.relpath(hit[1], ROOT)}")
            for l in hit[2]:
                print(f"    {l}")
        else:
            missed += 1
            print(f"[MISSED] {bug}: no failure of its own in {wall:.0f} s ({execs} executions; "
                  f"log {log})")
    print(f"fuzz-plant: {caught} caught, {missed} missed")
    return 0 if missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
