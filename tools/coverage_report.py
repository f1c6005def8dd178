#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The coverage report of make coverage (tools/coverage.sh): per module line and toggle
percentages, the RTL lines never reached, the FSM states never reached.

    tools/coverage_report.py MERGED.dat > report.txt

A coverage point counts once however many instances of its module there are (covered when any
instance reached it). Lines: Verilator's line coverage points (a block, a branch of an if or a
case item), reported by their first line. FSM states: Verilator 5.006 has no FSM coverage, so a
state counts as reached when the line point of its case item (`S_NAME: ...` in a `case` on an
enum state register) was reached. Only the RTL under rtl/ is reported; the `ifdef FORMAL
blocks' points (their cover statements) are left out (they are checks, not design).
"""
import collections
import os
import re
import sys


def parse(path):
    """Yields (kind, module, file, line, column, comment, count) per point of the data file."""
    for raw in open(path, encoding="latin-1"):
        m = re.match(r"C '(.*)' (\d+)$", raw.rstrip("\n"))
        if not m:
            continue
        kv = {}
        for field in m.group(1).split("\x01"):
            if "\x02" in field:
                k, v = field.split("\x02", 1)
                kv[k] = v
        page = kv.get("page", "")
        kind, _, module = page.partition("/")
        yield (kind, module, kv.get("f", ""), int(kv.get("l", 0) or 0), kv.get("n", ""),
               kv.get("o", ""), int(m.group(2)))


def formal_ranges(path, cache={}):
    """The line ranges of the `ifdef FORMAL blocks of a source file."""
    if path not in cache:
        ranges, start = [], None
        try:
            lines = open(path).read().splitlines()
        except OSError:
            lines = []
        for i, ln in enumerate(lines, 1):
            if ln.startswith("`ifdef FORMAL"):
                start = i
            elif start and ln.startswith("`endif"):
                ranges.append((start, i))
                start = None
        cache[path] = (ranges, lines)
    return cache[path]


def main():
    points = collections.defaultdict(int)   # (kind, module, file, line, col, comment) -> count
    for kind, module, f, line, col, comment, count in parse(sys.argv[1]):
        rel = os.path.relpath(f) if os.path.isabs(f) else f
        if not rel.startswith("rtl/"):
            continue
        ranges, _ = formal_ranges(rel)
        if any(a <= line <= b for a, b in ranges):
            continue
        key = (kind, module, rel, line, col, comment)
        points[key] = max(points[key], 0) + count
    per = collections.defaultdict(lambda: [0, 0, 0, 0])   # module -> line hit, line all, tgl hit, all
    total = [0, 0, 0, 0]
    unreached = collections.defaultdict(set)                 # file -> lines
    hit_lines = collections.defaultdict(set)
    for (kind, module, f, line, _c, _o), count in points.items():
        if kind == "v_line":
            i = 0
            if count:
                hit_lines[f].add(line)
            else:
                unreached[f].add(line)
        elif kind == "v_toggle":
            i = 2
        else:
            continue
        per[module][i + 1] += 1
        total[i + 1] += 1
        if count:
            per[module][i] += 1
            total[i] += 1
    # a line with one point reached and another not (two blocks on one line) is listed as unreached
    pct = lambda a, b: f"{100.0 * a / b:5.1f} %" if b else "    - "
    print(f"coverage: line {pct(total[0], total[1])} ({total[0]}/{total[1]} points), "
          f"toggle {pct(total[2], total[3])} ({total[2]}/{total[3]} bits), {len(per)} modules")
    print()
    print(f"{'module':28} {'line':>8} {'points':>12} {'toggle':>8} {'bits':>14}")
    for m in sorted(per):
        lh, la, th, ta = per[m]
        print(f"{m:28} {pct(lh, la):>8} {f'{lh}/{la}':>12} {pct(th, ta):>8} {f'{th}/{ta}':>14}")
    # FSM states: case items naming an enum state constant (S_*, ST_*), by the line point there
    print()
    print("FSM states never reached (case items of enum state machines whose line was never reached):")
    fsm_total = fsm_missed = 0
    for f in sorted(set(unreached) | set(hit_lines)):
        ranges, lines = formal_ranges(f)
        for i, ln in enumerate(lines, 1):
            m = re.match(r"\s*((?:[A-Za-z_]+::)?S[T]?_[A-Z0-9_]+)\s*(?:,\s*[A-Za-z_:0-9]+\s*)*:", ln)
            if not m or any(a <= i <= b for a, b in ranges):
                continue
            if i not in hit_lines[f] and i not in unreached[f]:
                continue     # no line point here (not a case item of a clocked/comb block)
            fsm_total += 1
            if i not in hit_lines[f]:
                fsm_missed += 1
                print(f"  {f}:{i}: {m.group(1)}")
    print(f"  ({fsm_missed} of {fsm_total} state case items never reached)")
    print()
    print("RTL lines never reached (file: lines; annotated sources: build/coverage/annotated/):")
    for f in sorted(unreached):
        lines = sorted(unreached[f] - hit_lines[f])
        if lines:
            print(f"  {f}: {len(lines)} line(s): {', '.join(map(str, lines))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
