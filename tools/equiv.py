#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prove that a module's refactor changed no output in any cycle: Yosys's equivalence checker
between the module as it is in the work tree and as it was at a git revision.

    tools/equiv.py MODULE [--rev REV] [--param NAME=VALUE ...] [--seq N]

Both versions are read the way `make synth` reads the RTL (read_verilog -sv -DSYNTHESIS, the
packages and rtl/{lib,core,transport,eth,pcie}), elaborated with the parameters given, flattened,
their memories mapped to flip-flops, and compared by `equiv_make` (outputs and registers matched
by name), `equiv_simple -seq N` and `equiv_induct -seq N`. It passes when every matched signal
is proven equal (`equiv_status -assert`): for a combinational rewrite, or a sequential one that
keeps every register, that is the whole behaviour for every input sequence from any state the
registers can share, which is stronger than the per-cycle output hash of the test suite
(tools/outhash.sh) and costs seconds. A rewrite that adds, removes or renames registers cannot be
matched this way; use tools/outhash.sh for those.

Exit 0 when proven; the last line is `equiv: MODULE [params] PROVEN` or `... NOT PROVEN`.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ["rtl/lib", "rtl/core", "rtl/transport", "rtl/eth", "rtl/pcie"]


def sources(tree):
    pkgs = [os.path.join(tree, "rtl/pkg", f) for f in
            ("nic_pkg.sv", "nic_roce_pkg.sv", "nic_dma_pkg.sv")]
    files = []
    for d in DIRS:
        p = os.path.join(tree, d)
        files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".sv"))
    return [p for p in pkgs if os.path.exists(p)] + files


def export(rev, dest):
    """The RTL of REV into dest (git archive of rtl/)."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "rtl"], check=True,
                             stdout=subprocess.PIPE).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)


def elaborate(tree, module, params, name, out, log):
    chparam = " ".join(f"-set {k} {v}" for k, v in params)
    script = (f"read_verilog -sv -DSYNTHESIS {' '.join(sources(tree))}; "
              + (f"chparam {chparam} {module}; " if chparam else "")
              + f"hierarchy -check -top {module}; proc; flatten; opt_clean; memory -nomap; "
              f"memory_map; opt -fast; rename {module} {name}; write_rtlil {out}")
    r = subprocess.run(["yosys", "-q", "-l", log, "-p", script], stdout=subprocess.DEVNULL,
                       stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit(f"equiv: Yosys could not elaborate {module} in {tree} (log {log})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("module")
    ap.add_argument("--rev", default="HEAD", help="the revision to compare with (default HEAD)")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--seq", type=int, default=1)
    a = ap.parse_args()
    params = [tuple(p.split("=", 1)) for p in a.param]
    label = f"{a.module} [{', '.join(a.param) or 'default parameters'}] against {a.rev}"
    work = tempfile.mkdtemp(prefix="equiv-")
    try:
        export(a.rev, work)
        gold, gate = os.path.join(work, "gold.il"), os.path.join(work, "gate.il")
        elaborate(work, a.module, params, "gold", gold, os.path.join(work, "gold.log"))
        elaborate(ROOT, a.module, params, "gate", gate, os.path.join(work, "gate.log"))
        log = os.path.join(work, "equiv.log")
        script = (f"read_rtlil {gold}; read_rtlil {gate}; equiv_make gold gate eq; equiv_struct; "
                  f"hierarchy -top eq; equiv_simple -seq {a.seq}; equiv_induct -seq {a.seq}; "
                  f"equiv_status -assert")
        r = subprocess.run(["yosys", "-l", log, "-p", script], stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT)
        status = [l.strip() for l in open(log) if "equivalent" in l or "unproven" in l]
        for line in status[-3:]:
            print(f"  {line}")
        if r.returncode:
            print(f"equiv: {label} NOT PROVEN (log {log})")
            return 1
        print(f"equiv: {label} PROVEN")
        shutil.rmtree(work)
        return 0
    except BaseException:
        print(f"equiv: work directory kept: {work}")
        raise


if __name__ == "__main__":
    sys.exit(main())
