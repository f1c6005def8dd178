#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check Yosys synthesis logs and report the resources nic_core uses.

    tools/synth_report.py [--json OUT] build/synth/ecp5.log build/synth/xc7.log

The target is the log's file name (ecp5, xc7). For each log: fail when it holds an ERROR, an
"is implicitly declared" warning (Yosys 0.23 turns an undeclared name into a 1-bit wire) or a
latch; otherwise print a table of LUTs, flip-flops and block RAMs parsed from the last `stat`
of the log. OUT gets the same numbers as JSON. Exit 1 on any problem, 0 otherwise.
"""
import argparse
import json
import pathlib
import re
import sys

# Per target: how its cells count as LUTs, FFs and RAMs. A cell type is matched by a regex.
# ECP5: a CCU2C carry cell is two LUT4s of one slice; DP16KD is the 18 Kbit block RAM.
# 7-series: RAMB36E1 is two RAMB18E1 halves; FD* are the four flip-flop flavours.
TARGETS = {
    "ecp5": {
        "title": "Lattice ECP5 (synth_ecp5)",
        "rows": [
            ("LUT4", r"LUT4"),
            ("CCU2C (carry, 2 LUT4 each)", r"CCU2C"),
            ("PFUMX / L6MUX21 (wide muxes)", r"PFUMX|L6MUX21"),
            ("TRELLIS_FF", r"TRELLIS_FF"),
            ("DP16KD (18 Kbit block RAM)", r"DP16KD"),
            ("TRELLIS_DPR16X4 (LUT RAM)", r"TRELLIS_DPR16X4"),
            ("MULT18X18D / ALU54B (DSP)", r"MULT18X18D|ALU54B"),
        ],
        "luts": lambda c: c.get("LUT4", 0) + 2 * c.get("CCU2C", 0),
        "luts_how": "LUT4 + 2 x CCU2C",
        "ffs": lambda c: c.get("TRELLIS_FF", 0),
        "brams": lambda c: c.get("DP16KD", 0),
        "brams_how": "DP16KD",
    },
    "xc7": {
        "title": "Xilinx 7-series (synth_xilinx -family xc7)",
        "rows": [
            ("LUT1", r"LUT1"), ("LUT2", r"LUT2"), ("LUT3", r"LUT3"),
            ("LUT4", r"LUT4"), ("LUT5", r"LUT5"), ("LUT6", r"LUT6"),
            ("CARRY4", r"CARRY4"),
            ("MUXF7 / MUXF8", r"MUXF[78]"),
            ("FD* (FDRE FDSE FDCE FDPE)", r"FD[RSCP]E(_1)?"),
            ("RAMB18E1", r"RAMB18E1"),
            ("RAMB36E1", r"RAMB36E1"),
            ("LUT RAM / SRL", r"RAM\d+[MXS].*|SRL16E|SRLC32E"),
            ("DSP48E1", r"DSP48E1"),
        ],
        "luts": lambda c: sum(c.get(f"LUT{i}", 0) for i in range(1, 7)),
        "luts_how": "LUT1..LUT6",
        "ffs": lambda c: sum(n for t, n in c.items() if re.fullmatch(r"FD[RSCP]E(_1)?", t)),
        "brams": lambda c: c.get("RAMB18E1", 0) + 2 * c.get("RAMB36E1", 0),
        "brams_how": "RAMB18E1 + 2 x RAMB36E1",
    },
}

LATCH_CELL = re.compile(r"\$_?DLATCH.*|\$dlatch.*|LD[CP]?E?(_1)?")


def last_stat(lines):
    """Cell counts of the last `stat` in the log: {cell type: count}.

    Flattened designs print one `=== nic_core ===` block; a hierarchical one ends with a
    `=== design hierarchy ===` block whose counts cover the whole design. Either way the last
    "Number of cells:" block is the whole design."""
    start = None
    for i, line in enumerate(lines):
        if line.rstrip().endswith("Printing statistics."):
            start = i
    if start is None:
        return None
    cells = None
    in_cells = False
    for line in lines[start:]:
        if re.match(r"^\s+Number of cells:\s+\d+", line):
            cells, in_cells = {}, True
            continue
        if not in_cells:
            continue
        m = re.match(r"^\s{5,}(\S+)\s+(\d+)\s*$", line)
        if m:
            cells[m.group(1)] = int(m.group(2))
        elif line.strip():
            in_cells = False
    return cells


def analyse(target, path):
    text = path.read_text(errors="replace")
    lines = text.splitlines()
    problems = []
    for no, line in enumerate(lines, 1):
        if "ERROR" in line:
            problems.append(f"{path}:{no}: {line.strip()}")
        if "is implicitly declared" in line:
            problems.append(f"{path}:{no}: {line.strip()}")
        if "Latch inferred for signal" in line:
            problems.append(f"{path}:{no}: {line.strip()}")
    cells = last_stat(lines)
    if cells is None:
        problems.append(f"{path}: no `stat` output: the synthesis did not finish")
        cells = {}
    for cell, n in sorted(cells.items()):
        if LATCH_CELL.fullmatch(cell):
            problems.append(f"{path}: {n} latch cell(s) {cell} in the netlist")

    warnings = sorted({l.strip() for l in lines if l.startswith("Warning:")})
    # The first `check` is the one fw/synth/*.ys runs on the RTL, the last the final netlist.
    check = [int(m.group(1)) for m in re.finditer(r"Found and reported (\d+) problems", text)]
    width = re.search(r"chparam -set DataWidth (\d+)", text)
    cpu = re.search(r"End of script\..*CPU: user ([\d.]+)s system ([\d.]+)s", text)

    spec = TARGETS[target]
    rows = []
    matched = set()
    for label, pattern in spec["rows"]:
        types = [t for t in cells if re.fullmatch(pattern, t)]
        matched.update(types)
        rows.append((label, sum(cells[t] for t in types)))
    other = {t: n for t, n in cells.items() if t not in matched}
    return {
        "title": spec["title"],
        "log": str(path),
        "data_width": int(width.group(1)) if width else None,
        "luts": spec["luts"](cells),
        "luts_counted_as": spec["luts_how"],
        "ffs": spec["ffs"](cells),
        "brams": spec["brams"](cells),
        "brams_counted_as": spec["brams_how"],
        "rows": rows,
        "other_cells": other,
        "cells": cells,
        "warnings": warnings,
        "check_problems": {"rtl": check[0], "netlist": check[-1]} if check else None,
        "cpu_seconds": round(float(cpu.group(1)) + float(cpu.group(2)), 1) if cpu else None,
        "problems": problems,
    }


def print_report(target, r):
    width = f", DataWidth {r['data_width']}" if r["data_width"] else ""
    cpu = f", {r['cpu_seconds']} s CPU" if r["cpu_seconds"] is not None else ""
    print(f"{target}: {r['title']}{width}{cpu}")
    print(f"  {'resource':<46} {'count':>8}")
    for label, n in r["rows"]:
        print(f"  {label:<46} {n:>8}")
    if r["other_cells"]:
        other = ", ".join(f"{t} {n}" for t, n in sorted(r["other_cells"].items()))
        print(f"  {'other cells':<46} {other}")
    print(f"  {'= LUTs (' + r['luts_counted_as'] + ')':<46} {r['luts']:>8}")
    print(f"  {'= FFs':<46} {r['ffs']:>8}")
    print(f"  {'= block RAMs (' + r['brams_counted_as'] + ')':<46} {r['brams']:>8}")
    checks = r["check_problems"]
    before_after = f"{checks['rtl']} / {checks['netlist']}" if checks else "n/a"
    print(f"  Yosys `check` problems before / after synthesis: {before_after}; "
          f"{len(r['warnings'])} distinct warnings in {r['log']}")
    for w in r["warnings"][:10]:
        print(f"    {w[:160]}")
    if len(r["warnings"]) > 10:
        print(f"    ... {len(r['warnings']) - 10} more in the log")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=pathlib.Path, help="write the numbers here as JSON")
    ap.add_argument("logs", nargs="+", type=pathlib.Path, help="Yosys logs named TARGET.log")
    args = ap.parse_args()

    report = {}
    failed = False
    for path in args.logs:
        target = path.name.split(".")[0]
        if target not in TARGETS:
            sys.exit(f"synth_report: unknown target {target!r} ({path}); known: "
                     f"{', '.join(TARGETS)}")
        if not path.exists():
            sys.exit(f"synth_report: {path} does not exist (run make synth)")
        r = analyse(target, path)
        report[target] = r
        print_report(target, r)
        if r["problems"]:
            failed = True
            print(f"  FAILED: {len(r['problems'])} problem(s):")
            for p in r["problems"][:40]:
                print(f"    {p[:200]}")
        print()

    if args.json:
        out = {t: {k: v for k, v in r.items() if k != "rows"} | {"table": dict(r["rows"])}
               for t, r in report.items()}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
        print(f"synth: report written to {args.json}")
    if failed:
        print("synth: FAILED (errors, implicit declarations or latches above). Reproduce with: "
              "make synth (the Yosys command lines are in the logs' first lines)")
        return 1
    print("synth: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
