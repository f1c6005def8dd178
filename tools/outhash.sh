#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The proof that a change which should not change behaviour does not: every output pin of
# every NIC in every cycle, hashed per simulated world (the world, sim/nicsim.cpp: NDK_SIM_OUTHASH), over
# the whole suite at both widths, both benchmarks, simspeed, ndkperf's checks and the examples.
#
#   tools/outhash.sh [OUT]            take the hashes (default build/outhash/outhash.txt)
#   tools/outhash.sh --compare A B    compare two such files; exit 1 if they differ
#
# Run the first on the commit before a change and on the commit after, then compare. The
# programs must be built (make build-tests bench); PGO does not matter (it changes no
# simulated cycle). Address-space randomisation is off (setarch -R) and the suite runs one test
# at a time, so the runs are repeatable.
#
# A line of OUT: "<program>[:<suite/test>]:<run>#<n> <cycles> <nics> <control hash> <data hash>":
# n counts the worlds of that label in order. The control hash covers every pin but the DMA
# write data and the TX stream data; the data hash covers those two. --compare fails on any
# difference in cycles or control hashes, and on a data hash that differs in a world whose data
# hash is stable from run to run (a few tests give host pointers as request contexts, and those
# move when the program's size does: they are listed, not failed, when only their data differ).
# A world paced by the wall clock on purpose (WALL_PACED below: it checks that the simulation
# does not run ahead of real time) has a load-dependent cycle count: listed, never failed.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=build

if [[ ${1:-} == --compare ]]; then
	a=$2 b=$3
	python3 - "$a" "$b" <<'EOF'
import sys
def load(p):
    d = {}
    for line in open(p):
        k, cyc, nics, ctl, data = line.split()
        d[k] = (cyc, nics, ctl, data)
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
WALL_PACED = ("wire/the_clock_does_not_run_ahead_of_real_time",)
bad = 0
for k in sorted(set(a) | set(b)):
    if k not in a or k not in b:
        print(f"only in {'first' if k in a else 'second'}: {k}")
        bad += 1
    elif a[k][:3] != b[k][:3] and any(w in k for w in WALL_PACED):
        print(f"paced by the wall clock, not compared: {k}")
    elif a[k][:3] != b[k][:3]:
        print(f"DIFFERS {k}: cycles/nics/control {a[k][:3]} -> {b[k][:3]}")
        bad += 1
data_only = [k for k in a if k in b and a[k][:3] == b[k][:3] and a[k][3] != b[k][3]]
for k in sorted(data_only):
    print(f"data only {k}")
same = sum(1 for k in a if k in b and a[k] == b[k])
print(f"outhash: {len(a)} / {len(b)} worlds, {same} identical, {len(data_only)} differ in "
      f"data only, {bad} differ in cycles or control")
sys.exit(1 if bad else 0)
EOF
	exit $?
fi

out=${1:-$BUILD/outhash/outhash.txt}
mkdir -p "$(dirname "$out")"
raw=$(realpath -m "$out.raw") # absolute: the programs may run elsewhere
rm -f "$raw"
for f in $BUILD/tests/ndk_tests $BUILD/bench/doorbell $BUILD/bench/simspeed $BUILD/bin/ndkperf; do
	[[ -x $f ]] || { echo "outhash: $f is missing (make build-tests bench)"; exit 1; }
done

run() { # run <label> <command...>: one program, its worlds labelled
	echo "outhash: $1: ${*:2}"
	NDK_SIM_OUTHASH=$raw NDK_SIM_OUTHASH_LABEL=$1 setarch -R "${@:2}" >/dev/null 2>&1 ||
		echo "outhash: $1 exited non-zero (the hash is still taken)"
}

for w in 64 256; do
	NDK_SIM_WIDTH=$w run "w$w" $BUILD/tests/ndk_tests --jobs 1
	NDK_SIM_WIDTH=$w run "w$w" $BUILD/bench/doorbell
done
run all $BUILD/bench/simspeed --all --cycles 20000 --runs 1
for e in $BUILD/examples/*; do
	[[ -x $e ]] && run example "$e"
done
run check python3 tests/ndkperf_check.py $BUILD/bin/ndkperf

# number the worlds of each label in the order they ran, then sort by that key
awk '{ k = $1 ":" $2; n[k]++; print k "#" n[k] - 1, $3, $4, $5, $6 }' "$raw" | sort >"$out"
rm -f "$raw"
echo "outhash: $(wc -l <"$out") worlds -> $out"
