#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run the libFuzzer harness tests/fuzz/ndk_fuzz.c (docs/verification.md "Fuzzing").
#
#   tools/fuzz/fuzz.sh check BIN SEEDS RUNS [libFuzzer flags...]      (make fuzz-check, in make test)
#   tools/fuzz/fuzz.sh run   BIN SEEDS SECONDS [libFuzzer flags...]   (make fuzz, for hours)
#
# check: every saved seed (SEEDS/*) runs once at width 64 and once at width 256 (each must
#   pass the oracle), then libFuzzer runs RUNS mutated inputs at width 64 (-seed=1 and a count,
#   not a time: every machine runs the same inputs, so CI is repeatable; at most 600 s; new
#   inputs go to build/fuzz/check-corpus, crashes to build/fuzz/check-crashes/). Last line:
#   `fuzz: N passed, N failed` (each replayed seed and the fuzzing run count one).
# run: the long run under nice -n 10: the corpus grows in build/fuzz/corpus (seeded from SEEDS),
#   crashes land in build/fuzz/crashes/; a random seed unless FUZZ_SEED is set.
# Reproduce a crash: NDK_SIM_WIDTH=64 BIN CRASHFILE (add NDK_SIM_TRACE=/tmp/t.fst for waves).
set -uo pipefail

mode=$1 bin=$2 seeds=$3 amount=$4
shift 4
out=$(dirname "$bin")

case $mode in
check)
	passed=0 failed=0
	t0=$(date +%s)
	for w in 64 256; do
		for f in "$seeds"/*; do
			if NDK_SIM_WIDTH=$w "$bin" "$@" "$f" >"$out/replay.log" 2>&1; then
				passed=$((passed + 1))
			else
				failed=$((failed + 1))
				echo "[FAIL] fuzz replay: NDK_SIM_WIDTH=$w $bin $f"
				grep -E 'ndk_fuzz: FAIL|nicsim: FATAL|Assertion|ERROR' "$out/replay.log" | head -n 5
			fi
		done
	done
	echo "=== fuzz: replayed $(ls "$seeds" | wc -l) seeds at widths 64 and 256 in $(($(date +%s) - t0)) s"
	rm -rf "$out/check-corpus" "$out/check-crashes"
	mkdir -p "$out/check-corpus" "$out/check-crashes"
	t0=$(date +%s)
	if NDK_SIM_WIDTH=64 "$bin" "$@" -seed=1 -runs="$amount" -max_total_time=600 \
		-artifact_prefix="$out/check-crashes/" "$out/check-corpus" "$seeds" \
		>"$out/check.log" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "[FAIL] fuzz: a crash after $(($(date +%s) - t0)) s (log $out/check.log; input:" \
			"$(ls "$out"/check-crashes/* 2>/dev/null | head -n 1))"
		grep -E 'ndk_fuzz: FAIL|nicsim: FATAL|Assertion' "$out/check.log" | head -n 5
	fi
	grep -E '^stat::(number_of_executed_units|new_units_added)' "$out/check.log" | tr '\n' ' '
	echo
	echo "=== fuzz: $amount fuzzed inputs at width 64 took $(($(date +%s) - t0)) s"
	echo "fuzz: $passed passed, $failed failed"
	((failed == 0))
	;;
run)
	mkdir -p "$out/corpus" "$out/crashes"
	NDK_SIM_WIDTH=${NDK_SIM_WIDTH:-64} exec nice -n 10 "$bin" "$@" ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
		-max_total_time="$amount" -artifact_prefix="$out/crashes/" "$out/corpus" "$seeds"
	;;
*)
	echo "usage: $0 check|run BIN SEEDS SECONDS [flags]" >&2
	exit 2
	;;
esac
