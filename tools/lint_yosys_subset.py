#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Refuse RTL constructs that Yosys 0.23 synthesizes silently wrong (no error, a wrong netlist).

Verilator simulates them correctly, so neither the suite nor Verilator's lint can see them; only
the post-synthesis simulation would, and only where a smoke test happens to drive them. This
check names them at lint time instead:

- an unpacked array whose element type is a named (typedef) type, e.g. `pkg::pkt_t mem [16]`:
  Yosys 0.23 drops the unpacked dimension and keeps one element (found by the netlist
  simulation, docs/timing-area.md). Write `logic [$bits(sig)-1:0] mem [16]` and cast on the way
  in and out (`$bits` of a signal, not of a type: the latter is a syntax error in Yosys 0.23).
- `arr[i].field`, a member of an element of an array of structs: Yosys 0.23 reads the wrong bits.
  Copy the element into a struct variable first.
- `'1` as a parameter value (a default, or an override `.P('1)`): Yosys 0.23 makes it 1, not all
  ones. Write `{W{1'b1}}`.

One construct it synthesizes right but at a cost out of all proportion, refused for the same
reason (nothing else would name it; docs/timing-area.md measured 0.4k to 2.5k LUTs per case):

- a write to a part-select whose offset is computed from a signal, `r[8*cnt +: 8] <= x` or
  `r[W-1-8*cnt -: 8] = x`: Yosys 0.23 builds a shifter of the whole register (data and mask)
  for every such statement. Write a loop over the offset's values with a constant slice each,
  `for (int b = 0; b < N; b++) if (cnt == b) r[8*b +: 8] <= x;`. An offset made only of loop
  variables, parameters (CamelCase, as the house style names them) and literals is constant
  per iteration and fine.

Usage: lint_yosys_subset.py FILE...   (exit 1 and one line per finding when a file has one)
"""
import re
import sys

# Types Yosys handles as arrays: the built-in vector and integer types.
BUILTIN = {"logic", "bit", "reg", "wire", "byte", "shortint", "int", "longint", "integer",
           "genvar", "signed", "unsigned", "var", "parameter", "localparam", "typedef",
           "return", "assign", "else", "begin", "end", "case", "if", "for", "module",
           "input", "output", "inout", "automatic", "static", "const"}

# [direction] TYPE NAME[, NAME...] [dims] ;   with TYPE a plain or package-scoped identifier and
# no packed dimension between the type and the name (a packed dimension would start with '[').
DECL = re.compile(
    r"^\s*(?:(?:input|output|inout|var)\s+)*"
    r"(?P<type>(?:[A-Za-z_]\w*::)?[A-Za-z_]\w*)\s+"
    r"(?P<name>[A-Za-z_]\w*)\s*\[(?P<dim>[^\]]+)\]")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


# an element's member: NAME[...].member (not a generate-block path like gen_x[i].u_y.sig, which
# RTL does not use: modules reach each other only through ports)
ELEMENT_MEMBER = re.compile(r"\b(?P<name>[A-Za-z_]\w*)\s*\[[^\]\[]*\]\s*\.\s*(?P<member>[A-Za-z_]\w*)")
# '1 as a parameter value: `parameter ... = '1` or an override `.Name('1)`
ALL_ONES_PARAM = re.compile(r"(\bparameter\b[^;]*=\s*'1\b)|(\.\s*[A-Z]\w*\s*\(\s*'1\s*\))")


# the target of an assignment (a statement's start: a line's, or after `;`, `)`, `begin`, `else`):
# NAME[OFFSET +: W] or NAME[OFFSET -: W] followed by = or <=
PART_SELECT_WRITE = re.compile(
    r"(?:^|[;)]|\bbegin\b|\belse\b)\s*(?P<name>[A-Za-z_]\w*)\s*\[(?P<offset>(?:[^\[\]]|\[[^\[\]]*\])*?)(?:\+:|-:)"
    r"(?:[^\[\]]|\[[^\[\]]*\])*\]\s*<?=(?!=)")
# loop variables: `for (int i`, `for (genvar i`, `genvar i, j`
LOOP_VAR = re.compile(r"\bfor\s*\(\s*(?:int|integer|genvar)\s+(?P<a>[A-Za-z_]\w*)"
                      r"|\bgenvar\s+(?P<b>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)")
IDENT = re.compile(r"(?<!['\w$])[A-Za-z_]\w*(?!\s*\()")


def loop_vars(lines):
    names = set()
    for line in lines:
        for m in LOOP_VAR.finditer(line):
            if m.group("a"):
                names.add(m.group("a"))
            else:
                names.update(n.strip() for n in m.group("b").split(","))
    return names


def computed_offset(offset, loops):
    """The signals an offset expression reads: identifiers that are neither loop variables nor
    parameters (CamelCase or UPPER_CASE) nor a cast's type (`32'(x)` reads x, not 32)."""
    return [n for n in IDENT.findall(offset)
            if n not in loops and not n[0].isupper() and n not in BUILTIN]


def findings(path):
    with open(path, encoding="utf-8") as f:
        lines = strip_comments(f.read()).split("\n")
    loops = loop_vars(lines)
    for number, line in enumerate(lines, 1):
        for m in PART_SELECT_WRITE.finditer(line):
            signals = computed_offset(m.group("offset"), loops)
            if signals:
                target = line[m.start("name"):m.end()].strip()
                yield (f"{path}:{number}: '{target}', a write at an offset computed "
                       f"from {', '.join(sorted(set(signals)))}: Yosys 0.23 builds a shifter of "
                       f"the whole '{m.group('name')}' for it (loop over the offset's values with "
                       f"a constant slice each)")
        for m in ELEMENT_MEMBER.finditer(line):
            yield (f"{path}:{number}: '{m.group(0)}', a member of an array element: Yosys 0.23 "
                   f"reads the wrong bits (copy the element into a struct variable first)")
        if ALL_ONES_PARAM.search(line):
            yield (f"{path}:{number}: '1 as a parameter value: Yosys 0.23 makes it 1 "
                   f"(write {{W{{1'b1}}}})")
        m = DECL.match(line)
        if not m:
            continue
        base = m.group("type").split("::")[-1]
        if base in BUILTIN or m.group("name") in BUILTIN:
            continue
        yield (f"{path}:{number}: unpacked array '{m.group('name')}' of the named type "
               f"'{m.group('type')}': Yosys 0.23 keeps one element (use logic "
               f"[$bits(...)-1:0] {m.group('name')} [{m.group('dim').strip()}])")


def main(paths):
    bad = [f for p in paths for f in findings(p)]
    for f in bad:
        print(f)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
