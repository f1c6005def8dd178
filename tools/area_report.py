#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The area of nic_core per module and per instance on ECP5 (make area).

    tools/area_report.py DIR      (DIR = build/area: stat.json and netlist.json from Yosys)

Yosys synthesized the core with its hierarchy kept (fw/area/ecp5_hier.ys); `stat -json` counts
each module's own cells, the netlist names its instances. This prints and writes (DIR/area.md,
DIR/area.json):
- per module, all its instances together: its own cells (not its submodules'), ranked by LUT4;
- per instance, down the tree: its cells with everything below it.
Cells: LUT4, CCU2C (carry, two LUT4 each in a slice), PFUMX / L6MUX21 (wide muxes combining
LUT outputs), TRELLIS_FF, DP16KD (18 Kbit block RAM), TRELLIS_DPR16X4 (LUT RAM).
"""
import json
import os
import re
import sys

COLS = ["LUT4", "CCU2C", "MUX", "TRELLIS_FF", "DP16KD", "TRELLIS_DPR16X4"]


def base_name(mod):
    """nic_ram_1r1w from $paramod$<hash>\\nic_ram_1r1w or $paramod\\nic_x\\P=..."""
    m = re.match(r"^\$paramod(?:\$[0-9a-f]+)?\\([^\\]+)", mod)
    return m.group(1) if m else mod.lstrip("\\")


def own_cells(by_type, modules):
    c = dict.fromkeys(COLS, 0)
    for t, n in by_type.items():
        if t in modules:
            continue
        if t in ("PFUMX", "L6MUX21"):
            c["MUX"] += n
        elif t in c:
            c[t] += n
    return c


def add(a, b, k=1):
    for x in COLS:
        a[x] += k * b[x]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    stat = json.load(open(os.path.join(d, "stat.json")))["modules"]
    modules = set(stat)
    own = {m: own_cells(v["num_cells_by_type"], modules) for m, v in stat.items()}
    net = json.load(open(os.path.join(d, "netlist.json")))["modules"]
    children = {}
    top = None
    for m in modules:
        nm = m.lstrip("\\") if m.startswith("\\") else m
        jm = net.get(nm) or net.get(m)
        if jm is None:
            sys.exit(f"area: module {m} of stat.json is not in netlist.json")
        if jm.get("attributes", {}).get("top"):
            top = m
        kids = []
        for cname, c in jm["cells"].items():
            t = c["type"]
            key = t if t in modules else ("\\" + t if "\\" + t in modules else None)
            if key:
                kids.append((cname.lstrip("\\"), key))
        children[m] = sorted(kids)
    if top is None:
        sys.exit("area: no top module in netlist.json")

    incl_memo = {}

    def incl(m):
        if m not in incl_memo:
            c = dict(own[m])
            for _, k in children[m]:
                add(c, incl(k))
            incl_memo[m] = c
        return incl_memo[m]

    total = incl(top)
    # instances, depth first
    instances = []

    def walk(m, path, depth):
        instances.append({"instance": path, "module": base_name(m), "depth": depth,
                          "cells": incl(m), "own": own[m]})
        for name, k in children[m]:
            walk(k, f"{path}.{name}" if path != "nic_core" else name, depth + 1)

    walk(top, "nic_core", 0)
    # modules, all instances together (own cells)
    per_mod = {}
    for inst in instances:
        e = per_mod.setdefault(inst["module"], {"module": inst["module"], "instances": 0,
                                                "cells": dict.fromkeys(COLS, 0)})
        e["instances"] += 1
        add(e["cells"], inst["own"])
    ranking = sorted(per_mod.values(), key=lambda e: (-e["cells"]["LUT4"], e["module"]))

    def pct(n):
        return f"{100.0 * n / total['LUT4']:.1f}" if total["LUT4"] else "-"

    hdr = "| " + " | ".join(COLS) + " |"
    md = [f"Total (hierarchy kept): " + ", ".join(f"{c} {total[c]}" for c in COLS) + ".", "",
          "Per module, all instances together, own cells (without submodules), by LUT4:", "",
          "| # | module | instances | % of LUT4 " + hdr, "|" + "---|" * (4 + len(COLS))]
    for i, e in enumerate(ranking, 1):
        if not any(e["cells"].values()):
            continue
        md.append(f"| {i} | {e['module']} | {e['instances']} | {pct(e['cells']['LUT4'])} | "
                  + " | ".join(str(e["cells"][c]) for c in COLS) + " |")
    md += ["", "Per instance, with everything below it (instances under 0.5 % of the LUT4 left out):",
           "", "| instance | module | % of LUT4 " + hdr, "|" + "---|" * (3 + len(COLS))]
    for inst in instances:
        if inst["depth"] and inst["cells"]["LUT4"] < 0.005 * total["LUT4"]:
            continue
        name = "&nbsp;&nbsp;" * inst["depth"] + inst["instance"].split(".")[-1]
        md.append(f"| {name} | {inst['module']} | {pct(inst['cells']['LUT4'])} | "
                  + " | ".join(str(inst["cells"][c]) for c in COLS) + " |")
    text = "\n".join(md) + "\n"
    with open(os.path.join(d, "area.md"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "area.json"), "w") as f:
        json.dump({"total": total, "modules": ranking, "instances": instances}, f, indent=1)
        f.write("\n")
    print(f"area: nic_core on ECP5, hierarchy kept: " + ", ".join(f"{c} {total[c]}" for c in COLS))
    print("area: modules by LUT4 (own cells of all instances):")
    for i, e in enumerate(ranking[:10], 1):
        print(f"  {i:2}. {e['module']:<22} x{e['instances']:<3} LUT4 {e['cells']['LUT4']:>6} "
              f"({pct(e['cells']['LUT4']):>4} %)  FF {e['cells']['TRELLIS_FF']:>6}  "
              f"mux {e['cells']['MUX']:>5}  DP16KD {e['cells']['DP16KD']}")
    print(f"area: tables in {d}/area.md, {d}/area.json")


if __name__ == "__main__":
    main()
