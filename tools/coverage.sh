#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make coverage: Verilator line and toggle coverage of the whole Criterion suite, both widths.
#
#   tools/coverage.sh            build, run, merge, report (build/coverage/report.txt)
#   tools/coverage.sh --report   only merge and report the counts already taken
#   tools/coverage.sh --add FILTER
#                                the tests FILTER names (a Criterion --filter pattern) run at
#                                both widths on the models that took the counts, into a copy of
#                                the counts; merged and reported in build/coverage/add/ (the
#                                counts of the whole run plus those tests: "after" numbers for
#                                tests written since). Only the test objects are rebuilt: the
#                                library and its counting models are kept as they are (make -o),
#                                so the merged counts all come from the same RTL even when the
#                                sources moved on.
#
# The coverage build is the ordinary one in a tree of its own (make BUILD=build/coverage
# COVERAGE=1 PGO=0: the models count every line and toggle, sim/nicsim.cpp writes each simulated
# world's counts to NDK_SIM_COVERAGE/world-<pid>-<n>.dat). The suite runs at both widths;
# verilator_coverage merges the files (build/coverage/merged.dat) and annotates the sources
# (build/coverage/annotated/, a line under the minimum starts with %), and
# tools/coverage_report.py writes the report: per module line and toggle percentages, the RTL
# lines never reached, and the FSM states (case items of the enum state machines) never
# reached. Heavy (two coverage models, ~3x slower per cycle): not in CI.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
OUT=build/coverage
DAT=$OUT/dat

if [[ ${1:-} == --add ]]; then
	filter=${2:?"--add needs a test filter"}
	[[ -d $DAT ]] || { echo "coverage: no counts in $DAT to add to"; exit 1; }
	make --no-print-directory -j"${NDK_COVERAGE_JOBS:-2}" PGO=0 COVERAGE=1 BUILD=$OUT \
		-o $OUT/lib/libndk.a $OUT/tests/ndk_tests || exit 1
	rm -rf "$OUT/add"
	mkdir -p "$OUT/add"
	cp -r "$DAT" "$OUT/add/dat"
	for w in 64 256; do
		echo "coverage: NDK_SIM_WIDTH=$w $OUT/tests/ndk_tests --filter '$filter'"
		NDK_SIM_COVERAGE=$PWD/$OUT/add/dat NDK_SIM_WIDTH=$w "$OUT/tests/ndk_tests" \
			--jobs "${NDK_TEST_JOBS:-2}" --filter "$filter" >"$OUT/add/suite_w$w.log" 2>&1 ||
			echo "coverage: a test failed at width $w (see $OUT/add/suite_w$w.log); counting what ran"
		tail -n 1 "$OUT/add/suite_w$w.log"
	done
	OUT=$OUT/add
	DAT=$OUT/dat
elif [[ ${1:-} != --report ]]; then
	make --no-print-directory -j"${NDK_COVERAGE_JOBS:-2}" PGO=0 COVERAGE=1 BUILD=$OUT $OUT/tests/ndk_tests || exit 1
	rm -rf "$DAT"
	mkdir -p "$DAT"
	for w in 64 256; do
		echo "coverage: NDK_SIM_WIDTH=$w $OUT/tests/ndk_tests --jobs ${NDK_TEST_JOBS:-2}"
		NDK_SIM_COVERAGE=$PWD/$DAT NDK_SIM_WIDTH=$w "$OUT/tests/ndk_tests" --jobs "${NDK_TEST_JOBS:-2}" \
			--timeout 1800 >"$OUT/suite_w$w.log" 2>&1 ||
			echo "coverage: the suite at width $w failed (see $OUT/suite_w$w.log); counting what ran"
		tail -n 1 "$OUT/suite_w$w.log"
	done
fi
shopt -s nullglob
files=("$DAT"/*.dat)
if ((${#files[@]} == 0)); then
	echo "coverage: no counts in $DAT"
	exit 1
fi
echo "coverage: merging ${#files[@]} worlds"
verilator_coverage --write "$OUT/merged.dat" "${files[@]}" || exit 1
rm -rf "$OUT/annotated"
verilator_coverage --annotate "$OUT/annotated" --annotate-min 1 "$OUT/merged.dat" >/dev/null || exit 1
python3 tools/coverage_report.py "$OUT/merged.dat" >"$OUT/report.txt" || exit 1
sed -n '1,/^$/p' "$OUT/report.txt"
echo "coverage: report $OUT/report.txt, annotated sources $OUT/annotated/"
