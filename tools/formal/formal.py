#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The formal proofs of the RTL's `ifdef FORMAL properties (docs/verification.md).

    tools/formal/formal.py [--only JOB ...] [--solver yices|z3] [--override PATH=COPY ...]
                           [--quiet] [--stop-on-fail] [--build DIR]

Each job reads its RTL and proof harness (tests/formal/*_formal.sv) with Yosys 0.23
(read_verilog -sv -formal -DSYNTHESIS: the `ifdef FORMAL blocks, not the simulation-only
`ifndef SYNTHESIS ones), writes an SMT-LIB2 model, and runs yosys-smtbmc three times:
  bmc     every assertion holds for BMC_DEPTH cycles from reset (the base case),
  prove   k-induction (-i): every assertion holds in any state whose previous k states satisfy
          all assertions, so, with the base case, in every reachable state (unbounded);
  cover   every cover statement (one per state of the machines, see the RTL) is reachable from
          reset within COVER_DEPTH cycles (a proof of an unreachable state is vacuous).
A job passes when all three do. --override replaces a source file by a copy (the planted bugs
of tools/formal/plant.py). Exit 0 when every job passed; the last line is
`formal: N passed, N failed`.
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
PKGS = ["rtl/pkg/nic_pkg.sv", "rtl/pkg/nic_roce_pkg.sv"]

# name: (top, sources after the packages, bmc depth, induction depth, cover depth). The base case
# needs no more depth than the induction (k steps from reset, then the k-inductive step); the
# cover depth is the deepest cover's (cq_engine: 7 cycles, wqe_fetch: 5).
JOBS = {
    "psn_le": ("psn_le_formal", ["tests/formal/psn_le_formal.sv"], 3, 1, 3),
    "cq_engine": ("nic_cq_engine_formal",
                  ["rtl/core/nic_cq_engine.sv", "tests/formal/nic_cq_engine_formal.sv"], 5, 4, 10),
    "wqe_fetch": ("nic_wqe_fetch_formal",
                  ["rtl/lib/nic_ram_1r1w.sv", "rtl/core/nic_wqe_fetch.sv",
                   "tests/formal/nic_wqe_fetch_formal.sv"], 5, 4, 8),
    "ack_timer": ("nic_req_ack_timer_formal",
                  ["rtl/lib/nic_rr_pick.sv", "rtl/transport/nic_req_ack_timer.sv",
                   "tests/formal/nic_req_ack_timer_formal.sv"], 3, 2, 15),
    "psn_check": ("nic_rsp_psn_check_formal",
                  ["rtl/transport/nic_rsp_psn_check.sv", "tests/formal/nic_rsp_psn_check_formal.sv"],
                  3, 2, 6),
    "rnr": ("nic_req_rnr_formal",
            ["rtl/transport/nic_req_rnr.sv", "tests/formal/nic_req_rnr_formal.sv"], 3, 2, 15),
    "rr_nak": ("nic_rsp_dispatch_formal",
               ["rtl/pkg/nic_dma_pkg.sv", "rtl/lib/nic_ram_1r1w.sv", "rtl/lib/nic_lutram_1r1w.sv",
                "rtl/transport/nic_rsp_psn_check.sv",
                "rtl/transport/nic_rsp_dispatch.sv", "tests/formal/nic_rsp_dispatch_formal.sv"],
               3, 2, 11),
}


def solver_path(solver):
    """The solver's directory to put first on PATH (the venv's yices), or None."""
    if solver == "yices":
        d = os.path.join(ROOT, "build", "formal", "venv", "bin")
        if os.path.exists(os.path.join(d, "yices-smt2")):
            return d
        if shutil.which("yices-smt2"):
            return None
        sys.exit("formal: yices-smt2 not found: make formal installs it (tests/formal/requirements.txt)")
    if not shutil.which("z3"):
        sys.exit("formal: z3 not found (apt-get install z3)")
    return None


def failed_props(log):
    """The properties a failing yosys-smtbmc run names: labels, or the source line's text."""
    out = []
    for m in re.finditer(r"(?:Assert failed|Unreached cover statement) (?:in [^:]+: |at )(\S+)", log):
        what = m.group(1)
        # Yosys 0.23's location of a procedural assertion starts at the end of the statement
        # before it: its last line is the assertion's
        loc = re.match(r"([^:]+\.sv):\d+\.\d+-(\d+)", what)
        if loc:
            try:
                with open(os.path.join(ROOT, loc.group(1))) as f:
                    what = f"{what.split('.', 1)[0]}.sv:{loc.group(2)} `{f.readlines()[int(loc.group(2)) - 1].strip()}`"
            except (OSError, IndexError):
                pass
        if what not in out:
            out.append(what)
    return out


def run_job(name, args, env):
    top, srcs, bmc, ind, cov = JOBS[name]
    wd = os.path.join(args.build, name)
    os.makedirs(wd, exist_ok=True)
    files = [args.override.get(f, os.path.join(ROOT, f)) for f in PKGS + srcs]
    smt2 = os.path.join(wd, "model.smt2")
    script = (f"read_verilog -sv -formal -DSYNTHESIS {' '.join(files)}; prep -top {top}; "
              f"memory_map; opt -fast; async2sync; dffunmap; write_smt2 -wires {smt2}")
    t0 = time.time()
    result = {"name": name, "ok": True, "steps": [], "props": []}
    with open(os.path.join(wd, "yosys.log"), "w") as log:
        rc = subprocess.run(["yosys", "-q", "-p", script], stdout=log, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        result["ok"] = False
        result["steps"].append(("yosys", False, time.time() - t0))
        result["props"].append(f"yosys failed: {wd}/yosys.log")
        return result
    result["steps"].append(("yosys", True, time.time() - t0))
    for step, opts in (("bmc", ["-t", str(bmc)]), ("prove", ["-i", "-t", str(ind)]),
                       ("cover", ["-c", "-t", str(cov)])):
        t0 = time.time()
        # its own process group, so a timeout also ends the solver it started
        p = subprocess.Popen(["yosys-smtbmc", "-s", args.solver, "--presat", *opts, smt2],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out = p.communicate()[0] + f"\nformal: timed out after {args.timeout} s\n"
        with open(os.path.join(wd, f"{step}.log"), "w") as f:
            f.write(out)
        ok = p.returncode == 0 and "Status: PASSED" in out
        result["steps"].append((step, ok, time.time() - t0))
        if not ok:
            result["ok"] = False
            result["props"] += [f"{step}: {x}" for x in failed_props(out)] or \
                [f"{step}: failed, see {wd}/{step}.log"]
            if step == "bmc" or args.stop_on_fail:
                break   # a counterexample from reset: the induction would only repeat it
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(JOBS), help="run only these jobs")
    ap.add_argument("--solver", default="yices", choices=["yices", "z3"])
    ap.add_argument("--override", nargs="*", default=[], metavar="PATH=COPY")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "formal"))
    ap.add_argument("--timeout", type=int, default=600, help="seconds per solver run")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--stop-on-fail", action="store_true",
                    help="no further step after a failed one (the planted bugs: no cover run)")
    args = ap.parse_args()
    args.override = dict(o.split("=", 1) for o in args.override)
    env = dict(os.environ)
    d = solver_path(args.solver)
    if d:
        env["PATH"] = d + os.pathsep + env["PATH"]
    passed = failed = 0
    t_all = time.time()
    for name in args.only or list(JOBS):
        r = run_job(name, args, env)
        steps = ", ".join(f"{s} {'ok' if ok else 'FAILED'} {t:.1f} s" for s, ok, t in r["steps"])
        if not args.quiet or not r["ok"]:
            print(f"[{'PASS' if r['ok'] else 'FAIL'}] formal {name}: {steps}")
            for p in r["props"]:
                print(f"    {p}")
        passed += r["ok"]
        failed += not r["ok"]
    if not args.quiet:
        print(f"formal: {time.time() - t_all:.0f} s ({args.solver})")
    print(f"formal: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
