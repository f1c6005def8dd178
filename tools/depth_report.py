#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Logic depth of a synthesized ECP5 netlist: the quick proxy for Fmax (make depth).

    tools/depth_report.py NETLIST.json [--limit LEVELS] [--top N] [--json OUT]

NETLIST.json is a Yosys JSON of synth_ecp5's output: the flattened nic_core of make pnr /
make pnr-fit (build/pnr/<config>/nic_core.json), or one module synthesized alone. Every timing
endpoint is measured: the data, enable and reset inputs of a flip-flop, the inputs of a block
RAM, the write ports of a LUT RAM, and (for a module alone) the top's output ports. Its depth is
the number of logic levels on the deepest chain into it from a register, a RAM output or a
top-level input: a LUT4, PFUMX or L6MUX21 is a level, a carry cell a tenth of one (a carry chain
is fast), a LUT RAM's read a level (tools/pnr_report.py, Netlist).

Why a proxy: placing and routing the 4-QP core takes ~30 min and the default core ~2 h 15 min
here; this takes seconds after synthesis. Against the 4-QP core's placed and routed arrival
times (main at a468326, docs/timing-area.md "Logic depth, the proxy"), an endpoint at 8 levels
arrived at 9.8 ns (median), 12 levels at 12.8, 16 at 15.4, 21 at 17.3: about 0.9 ns a level and
2 ns of clock-to-out, setup and first route. 100 MHz wants every endpoint at 8 levels or fewer.

Prints the histogram (endpoint bits per depth), the instances and the registers over --limit
(default 8), deepest first, with the start of the deepest chain; --json writes it all.
Exit status 0 always: it measures, make pnr judges.
"""
import argparse
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pnr_report import Netlist, SEQUENTIAL, LUTRAM_WRITE_PORTS, register_of, rtl_label  # noqa: E402

CLOCK_PORTS = {"CLK", "CLKA", "CLKB", "WCK"}


def endpoints(nl):
    """(cell or port name, port, bit list) of every timing endpoint."""
    for name, c in nl.cells.items():
        t = c["type"]
        if t in SEQUENTIAL or t == "TRELLIS_DPR16X4":
            for port, bits in c["connections"].items():
                if c["port_directions"].get(port) != "input" or port in CLOCK_PORTS:
                    continue
                if t == "TRELLIS_DPR16X4" and not LUTRAM_WRITE_PORTS.match(port):
                    continue
                yield name, port, bits
    for pname, p in nl.mod.get("ports", {}).items():
        if p["direction"] == "output":
            yield f"<out> {pname}", "", p["bits"]


def bit_depth(nl, b):
    if not isinstance(b, int) or b not in nl.driver:
        return 0.0, None
    drv = nl.driver[b][0]
    return nl.cell_depth(drv)[0], drv


def chain_start(nl, cell):
    cur = cell
    while cur is not None and nl.cells[cur]["type"] not in SEQUENTIAL:
        nxt = nl.depth[cur][1]
        if nxt is None:
            return cur
        cur = nxt
    return cur


def input_ports(nl, cell):
    """' (name, ...)': the top-level input ports feeding a chain's first cell."""
    if not hasattr(nl, "port_of_bit"):
        nl.port_of_bit = {b: pname for pname, p in nl.mod.get("ports", {}).items()
                          if p["direction"] == "input" for b in p["bits"] if isinstance(b, int)}
    c = nl.cells[cell]
    names = sorted({nl.port_of_bit[b] for port, bits in c["connections"].items()
                    if c["port_directions"].get(port) == "input"
                    for b in bits if isinstance(b, int) and b in nl.port_of_bit})
    return f" ({', '.join(names)})" if names else ""


def measure(path, limit):
    nl = Netlist(path)
    sys.setrecursionlimit(100000)
    hist = collections.Counter()
    regs = {}  # register label -> [bits over, worst depth, start label]
    for cell, port, bits in endpoints(nl):
        worst, wdrv = 0.0, None
        for b in bits:
            d, drv = bit_depth(nl, b)
            lv = int(d)  # a carry chain's tenths do not make a level
            hist[lv] += 1
            if d > worst:
                worst, wdrv = d, drv
            if lv > limit:
                key = register_of(cell) if not cell.startswith("<out>") else cell
                r = regs.setdefault(key, [0, 0.0, None, cell])
                r[0] += 1
                if d > r[1]:
                    r[1], r[2] = d, wdrv
    out = []
    for key, (n, worst, drv, cell) in regs.items():
        if cell.startswith("<out>"):
            dst = f"nic_core: output {cell[6:]}"
        else:
            dst = nl.rtl_name(cell)
        start = chain_start(nl, drv) if drv else None
        if start is None:
            src = "?"
        elif nl.cells[start]["type"] in SEQUENTIAL:
            src = nl.rtl_name(start)
        else:
            src = "a top-level input" + input_ports(nl, start)
        out.append({"destination": dst, "bits_over": n, "levels": int(worst), "source": src})
    out.sort(key=lambda r: (-r["levels"], -r["bits_over"], r["destination"]))
    inst = collections.defaultdict(lambda: [0, 0, 0])
    for r in out:
        # by module (the src attribute), else by instance path: a flattened register's name
        # does not always carry its instance
        m = re.search(r"\((\w+)\):", r["destination"])
        i = m.group(1) if m else r["destination"].split(":")[0]
        inst[i][0] += r["bits_over"]
        inst[i][1] = max(inst[i][1], r["levels"])
        inst[i][2] += 1
    insts = [{"module": i, "bits_over": v[0], "registers_over": v[2], "levels": v[1]}
             for i, v in inst.items()]
    insts.sort(key=lambda r: (-r["levels"], -r["bits_over"]))
    total = sum(hist.values())
    return {"netlist": path, "limit": limit, "endpoint_bits": total,
            "bits_over": sum(v for k, v in hist.items() if k > limit),
            "max_levels": max(hist) if hist else 0,
            "histogram": {str(k): hist[k] for k in sorted(hist)},
            "modules": insts, "registers": out}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("netlist")
    ap.add_argument("--limit", type=int, default=8, help="levels allowed (default 8)")
    ap.add_argument("--top", type=int, default=40, help="registers listed (default 40)")
    ap.add_argument("--json", help="write the whole measurement here")
    a = ap.parse_args()
    r = measure(a.netlist, a.limit)
    print(f"depth: {r['endpoint_bits']} endpoint bits, deepest {r['max_levels']} levels, "
          f"{r['bits_over']} over {a.limit}")
    print("depth: levels: bits  " + "  ".join(f"{k}:{v}" for k, v in r["histogram"].items()))
    if r["modules"]:
        print(f"depth: modules with endpoints over {a.limit} levels (deepest, bits, registers):")
        for i in r["modules"]:
            print(f"  {i['levels']:3} lv {i['bits_over']:6} b {i['registers_over']:4} r  {i['module']}")
        print(f"depth: the {min(a.top, len(r['registers']))} deepest registers:")
        for x in r["registers"][:a.top]:
            print(f"  {x['levels']:3} lv {x['bits_over']:5} b  {x['destination']}\n{'':20}<- {x['source']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
