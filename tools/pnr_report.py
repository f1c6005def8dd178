#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The report of make pnr: utilisation, Fmax and the worst paths of nic_core on the ECP5-85F.

    tools/pnr_report.py fit DIR [--min-free PCT] after nextpnr --pack-only: does it fit (and
                                                leave PCT % of the logic cells free)?
    tools/pnr_report.py report DIR --target MHZ [--min-free PCT]
                                                after place and route: Fmax and the worst paths

DIR is build/pnr/<config> (the Makefile's pnr section): synth.log (Yosys, ending with `stat`),
nic_core.json (the synthesized netlist), pack.log (nextpnr --pack-only), report.json (nextpnr
--report --detailed-timing-report), nextpnr.log. Both steps print a summary and write DIR/pnr.json
(machine-readable: utilisation, Fmax, target, fits, paths, run times). Exit status 1 when the
design does not fit the part (fit), when fewer than PCT % of the logic cells (TRELLIS_COMB) are
free (fit with --min-free: make pnr-fit, the area check CI runs), or when Fmax is below the
target or fewer than PCT % (default 30) are free (report).

The worst paths. nextpnr reports one critical path per clock in full; its detailed report adds
the arrival time at every timing endpoint (a register or block-RAM input), which is exact. The
ten worst paths are the ten endpoints with the latest arrival, one per pair of source and
destination register (a 64-bit register is one destination, not 64). The destination and its
arrival are nextpnr's. The source of a path other than the critical one is found in the
synthesized netlist: the register at the start of the deepest chain of logic into that
endpoint (LUT4 and wide-mux levels; carry cells count a tenth, as a carry chain is fast). Names
are mapped to the RTL: the instance path (u_transport.u_requester...), the module (from the
`src` attribute Yosys keeps: rtl/.../nic_req_sender.sv) and the signal.
"""
import argparse
import json
import os
import re
import sys

PART = "LFE5UM5G-85F, speed 8"
# Resources reported, in this order (nextpnr's bel buckets); the rest are listed when used.
MAIN_BELS = ["TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D", "ALU54B"]
# Cells of Yosys's stat worth naming (synth_ecp5's output).
YOSYS_CELLS = ["LUT4", "TRELLIS_FF", "CCU2C", "PFUMX", "L6MUX21", "DP16KD", "TRELLIS_DPR16X4",
               "MULT18X18D"]


def die(msg):
    print(f"pnr: {msg}", file=sys.stderr)
    sys.exit(1)


def read_seconds(path):
    try:
        return int(open(path).read().strip())
    except (OSError, ValueError):
        return None


def yosys_stat(log):
    """Cell counts of the last `stat` in a Yosys log (the flattened nic_core). Yosys 0.23 prints
    `name count`, 0.70 `count name`: both are read."""
    text = open(log).read()
    start = text.rfind("=== nic_core ===")
    if start < 0:
        die(f"no `=== nic_core ===` stat in {log}")
    cells = {}
    for line in text[start:].splitlines()[1:]:
        m = re.match(r"^\s+(\$?\w+)\s+(\d+)$", line)
        n = re.match(r"^\s+(\d+)\s+(\$?\w+)$", line)
        if m:
            cells[m.group(1)] = int(m.group(2))
        elif n:
            cells[n.group(2)] = int(n.group(1))
        elif line.startswith("==="):
            break
    return cells


def utilisation(pack_log):
    """nextpnr's `Device utilisation` table: {bel: (used, available)}."""
    util = {}
    for line in open(pack_log):
        m = re.match(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", line)
        if m:
            util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if not util:
        die(f"no `Device utilisation` table in {pack_log}")
    return util


def pct(used, avail):
    return 100.0 * used / avail if avail else 0.0


def print_util(util, stat):
    print(f"pnr: utilisation on the {PART} (after packing):")
    shown = [b for b in MAIN_BELS if b in util] + sorted(
        b for b in util if b not in MAIN_BELS and util[b][0])
    for b in shown:
        used, avail = util[b]
        note = "  logic cells (LUT4 and carry halves)" if b == "TRELLIS_COMB" else ""
        print(f"  {b:<13} {used:>7} / {avail:<7} {pct(used, avail):5.1f} %{note}")
    print("pnr: Yosys cells: " + ", ".join(f"{c} {stat[c]}" for c in YOSYS_CELLS if c in stat))


def base_json(d, util, stat):
    return {
        "part": PART,
        "config": os.path.basename(os.path.normpath(d)),
        "yosys_cells": stat,
        "lut4": stat.get("LUT4", 0),
        "ff": stat.get("TRELLIS_FF", 0),
        "dp16kd": stat.get("DP16KD", 0),
        "utilisation": {b: {"used": u, "available": a, "percent": round(pct(u, a), 1)}
                        for b, (u, a) in util.items() if u or b in MAIN_BELS},
        "fits": all(u <= a for u, a in util.values()),
        "synth_seconds": read_seconds(os.path.join(d, "synth.seconds")),
        "nextpnr_seconds": read_seconds(os.path.join(d, "nextpnr.seconds")),
    }


def write_json(d, data):
    with open(os.path.join(d, "pnr.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def cmd_fit(d, min_free=None):
    util = utilisation(os.path.join(d, "pack.log"))
    stat = yosys_stat(os.path.join(d, "synth.log"))
    print_util(util, stat)
    data = base_json(d, util, stat)
    over = [(b, u, a) for b, (u, a) in util.items() if u > a]
    if over:
        data["fmax_mhz"] = None
        write_json(d, data)
        for b, u, a in over:
            print(f"pnr: FAIL: nic_core does not fit the {PART}: {b} {u} of {a} "
                  f"({pct(u, a):.0f} %); no placement attempted (report: {d}/pnr.json)")
        sys.exit(1)
    if min_free is None:
        print(f"pnr: fits; placing and routing")
        return
    # the area check alone (make pnr-fit): no placement, so no Fmax
    used, avail = util["TRELLIS_COMB"]
    free = 100.0 - pct(used, avail)
    data["fmax_mhz"] = None
    data["target_free_pct"] = min_free
    write_json(d, data)
    ok = free >= min_free
    print(f"pnr: {'PASS' if ok else 'FAIL'}: TRELLIS_COMB {used} of {avail}, {free:.1f} % free, "
          f"target at least {min_free} % free (packed, not placed; report: {d}/pnr.json)")
    sys.exit(0 if ok else 1)


# ---- the worst paths ------------------------------------------------------------------------

# Weight of a cell in the logic-depth search (see the docstring): LUTs and wide muxes are a
# level, a carry cell a tenth of one.
LEVEL_WEIGHT = {"LUT4": 1.0, "PFUMX": 1.0, "L6MUX21": 1.0, "CCU2C": 0.1, "TRELLIS_DPR16X4": 1.0}
# Cells whose outputs start paths (registers and block RAMs).
SEQUENTIAL = {"TRELLIS_FF", "DP16KD", "MULT18X18D", "ALU54B"}
# LUT RAM: its write inputs end paths, its read address is combinational to its output.
LUTRAM_WRITE_PORTS = re.compile(r"^(DI|WAD|WRE|WCK)")


class Netlist:
    """The synthesized netlist (Yosys JSON): drivers and logic depth of every bit."""

    def __init__(self, path):
        mods = json.load(open(path))["modules"]
        top = [m for m in mods.values() if m.get("attributes", {}).get("top")]
        self.mod = top[0] if top else mods["nic_core"]
        self.cells = self.mod["cells"]
        self.driver = {}  # bit -> (cell name, port)
        for name, c in self.cells.items():
            for port, bits in c["connections"].items():
                if c["port_directions"].get(port) == "output":
                    for b in bits:
                        if isinstance(b, int):
                            self.driver[b] = (name, port)
        self.bitname = {}  # bit -> a readable net name
        for net, n in self.mod["netnames"].items():
            for i, b in enumerate(n["bits"]):
                if not isinstance(b, int):
                    continue
                nm = net if len(n["bits"]) == 1 else f"{net}[{i}]"
                rank = (net.startswith("$") or bool(n.get("hide_name")), len(nm))
                if b not in self.bitname or rank < self.bitname[b][0]:
                    self.bitname[b] = (rank, nm)
        self.bitname = {b: v[1] for b, v in self.bitname.items()}
        self.depth = {}  # cell -> (depth, predecessor start/comb cell)

    def inputs(self, cname):
        c = self.cells[cname]
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) != "input":
                continue
            if c["type"] == "TRELLIS_DPR16X4" and LUTRAM_WRITE_PORTS.match(port):
                continue
            for b in bits:
                if isinstance(b, int) and b in self.driver:
                    yield self.driver[b][0]

    def is_constant(self, cname):
        """A combinational cell none of whose inputs is driven by a cell or a port."""
        c = self.cells[cname]
        if c["type"] in SEQUENTIAL:
            return False
        return not any(isinstance(b, int) for port, bits in c["connections"].items()
                       if c["port_directions"].get(port) == "input" for b in bits)

    def cell_depth(self, cname):
        """(depth, predecessor) of a combinational cell's output; iterative, memoised."""
        stack = [cname]
        while stack:
            top = stack[-1]
            if top in self.depth:
                stack.pop()
                continue
            c = self.cells[top]
            if c["type"] in SEQUENTIAL:
                self.depth[top] = (0.0, None)
                stack.pop()
                continue
            pending = [p for p in self.inputs(top) if p not in self.depth and p not in stack]
            if pending:
                stack.extend(pending)
                continue
            best, pred = 0.0, None
            for p in self.inputs(top):
                dp = self.depth.get(p, (0.0, None))[0]
                # on a tie, a chain from a register before one from a constant cell (a LUT
                # whose inputs are all constants starts no real path)
                if pred is None or dp > best or (dp == best and self.is_constant(pred)
                                                 and not self.is_constant(p)):
                    best, pred = dp, p
            self.depth[top] = (best + LEVEL_WEIGHT.get(c["type"], 1.0), pred)
            stack.pop()
        return self.depth[cname]

    def source_of(self, cname, port):
        """The start (register / RAM) of the deepest logic chain into cell.port, and the levels."""
        c = self.cells.get(cname)
        if c is None:
            return None, 0
        bits = c["connections"].get(port, [])
        best, start, levels = -1.0, None, 0
        for b in bits:
            if not isinstance(b, int) or b not in self.driver:
                continue
            drv = self.driver[b][0]
            d, _ = self.cell_depth(drv)
            if d > best:
                best, start = d, drv
        # walk back to the sequential cell, counting LUT-like levels
        cur = start
        while cur is not None and self.cells[cur]["type"] not in SEQUENTIAL:
            if LEVEL_WEIGHT.get(self.cells[cur]["type"], 1.0) >= 1.0:
                levels += 1
            cur = self.depth[cur][1]
        return cur, levels

    def rtl_name(self, cname):
        """'instance.path (module) signal' for a register / RAM cell."""
        c = self.cells.get(cname)
        signal = register_of(cname)
        if c is not None and c["type"] == "TRELLIS_FF":
            for port in ("Q",):
                bits = c["connections"].get(port)
                if bits and isinstance(bits[0], int) and bits[0] in self.bitname:
                    signal = self.bitname[bits[0]]
                    break
        return rtl_label(signal, c["attributes"].get("src", "") if c else "")


def register_of(cell_name):
    """The register / RAM a packed cell belongs to (the bus, not the bit)."""
    n = re.sub(r"_TRELLIS_FF_Q(_\d+)?$", "", cell_name)
    n = re.sub(r"(\.\d+)+$", "", n)  # DP16KD tiles of one memory: mem_q.0.3
    return re.sub(r"\[\d+\]$", "", n)


def rtl_label(name, src):
    """Split a flattened name into instance path and signal; the module from the src file."""
    name = re.sub(r"\[\d+\]$", "", name.lstrip("\\"))
    mod = ""
    for s in src.split("|"):
        m = re.search(r"(?:^|/)rtl/\w+/(\w+)\.sv:", s)
        if m:
            mod = m.group(1)
            break
    parts = name.split(".")
    inst, sig = (".".join(parts[:-1]), parts[-1]) if len(parts) > 1 else ("", name)
    where = inst or "nic_core"
    return f"{where}{f' ({mod})' if mod else ''}: {sig}"


def worst_paths(d, report, target, count=10):
    period = 1000.0 / target
    crit = report["critical_paths"][0]["path"] if report.get("critical_paths") else []
    setup = next((s["delay"] for s in reversed(crit) if s["type"] == "setup"), 0.0)
    ends = []
    for net in report.get("detailed_net_timings", []):
        for e in net["endpoints"]:
            ends.append((e["delay"][1], e["cell"], e["port"]))
    ends.sort(reverse=True)
    netlist = Netlist(os.path.join(d, "nic_core.json"))
    paths, seen = [], set()
    # the critical path as nextpnr names it, first
    if crit:
        src_cell, dst_cell = crit[0]["from"]["cell"], crit[-1]["to"]["cell"]
        levels = sum(1 for s in crit if s["type"] == "logic" and not s["from"]["port"].startswith("FCI"))
        arrival = sum(s["delay"] for s in crit)
        key = (register_of(src_cell), register_of(dst_cell))
        seen.add(key)
        paths.append(path_entry(netlist, src_cell, dst_cell, crit[-1]["to"]["port"], arrival,
                                period, levels, "nextpnr critical path"))
    for arrival, cell, port in ends:
        if len(paths) >= count:
            break
        dst = register_of(cell)
        src_cell, levels = netlist.source_of(cell, port)
        key = (register_of(src_cell) if src_cell else "?", dst)
        if key in seen:
            continue
        seen.add(key)
        paths.append(path_entry(netlist, src_cell, cell, port, arrival + setup, period, levels,
                                "endpoint arrival"))
    return paths


def path_entry(netlist, src_cell, dst_cell, dst_port, delay, period, levels, how):
    return {
        "delay_ns": round(delay, 2),
        "slack_ns": round(period - delay, 2),
        "logic_levels": levels,
        "source": netlist.rtl_name(src_cell) if src_cell else "?",
        "destination": netlist.rtl_name(dst_cell) + f" ({dst_port})",
        "source_cell": src_cell,
        "destination_cell": dst_cell,
        "found_by": how,
    }


def cmd_report(d, target, min_free):
    report = json.load(open(os.path.join(d, "report.json")))
    util = utilisation(os.path.join(d, "pack.log"))
    stat = yosys_stat(os.path.join(d, "synth.log"))
    print_util(util, stat)
    data = base_json(d, util, stat)
    fmax = min((v["achieved"] for v in report["fmax"].values()), default=None)
    data["fmax_mhz"] = round(fmax, 2) if fmax is not None else None
    data["target_mhz"] = target
    data["target_free_pct"] = min_free
    data["worst_paths"] = worst_paths(d, report, target)
    write_json(d, data)
    print(f"pnr: worst paths at {target} MHz ({1000.0 / target:.2f} ns): delay, slack, logic levels")
    for i, p in enumerate(data["worst_paths"], 1):
        print(f"  {i:2}. {p['delay_ns']:6.2f} ns {p['slack_ns']:7.2f} ns {p['logic_levels']:3} lv  "
              f"{p['source']}\n{'':32}-> {p['destination']}")
    t = [f"synthesis {data['synth_seconds']} s" if data["synth_seconds"] is not None else None,
         f"place and route {data['nextpnr_seconds']} s" if data["nextpnr_seconds"] is not None else None]
    t = ", ".join(x for x in t if x)
    print(f"pnr: run time: {t} (report: {d}/pnr.json)" if t else f"pnr: report: {d}/pnr.json")
    if fmax is None:
        die("nextpnr reported no Fmax")
    free = 100.0 - pct(*util["TRELLIS_COMB"])
    ok_time, ok_area = fmax >= target, free >= min_free
    print(f"pnr: {'PASS' if ok_time else 'FAIL'}: Fmax {fmax:.2f} MHz, target {target} MHz")
    print(f"pnr: {'PASS' if ok_area else 'FAIL'}: TRELLIS_COMB {util['TRELLIS_COMB'][0]} of "
          f"{util['TRELLIS_COMB'][1]}, {free:.1f} % free, target at least {min_free} % free")
    sys.exit(0 if ok_time and ok_area else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["fit", "report"])
    ap.add_argument("dir")
    ap.add_argument("--target", type=float, default=100.0, help="MHz")
    ap.add_argument("--min-free", type=float, default=None,
                    help="the share of logic cells (TRELLIS_COMB) that must stay free, in %% "
                         "(report: default 30; fit: checked only when given)")
    a = ap.parse_args()
    if a.step == "fit":
        cmd_fit(a.dir, a.min_free)
    else:
        cmd_report(a.dir, a.target, 30.0 if a.min_free is None else a.min_free)


if __name__ == "__main__":
    main()
