#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run what `make test` built: the Criterion suite at both data widths, then every example.
#
#   tools/run_tests.sh [criterion options...]     (make test TEST_ARGS='--filter cq_*/*')
#
# - build/tests/ndk_tests runs twice, NDK_SIM_WIDTH=64 then 256 (the Verilated model the
#   simulated world uses), with --jobs 2 (each test is its own process) and a TAP report that
#   is parsed for the counts. Criterion's own summary is printed as it runs.
# - Every build/examples/* program runs once and must exit 0.
# - Every tests/*_check.py script (checks of the command-line tools, e.g. ndkperf_check.py for
#   build/bin/ndkperf) runs once and must exit 0.
# - The backend-independent suite (build/tests/ndk_portable, tests/portable/) runs on the
#   simulated NIC at both widths, then through the pci backend inside the Linux guest
#   (tools/guest/guest.sh, docs/guest.md: the guest image is built from Debian's packages the
#   first time and cached in build/guest), and build/tests/refused_dma in a boot of its own
#   (the device server's DMA firewall stops the NIC). With criterion options (a filter while iterating)
#   only the main suite runs; NDK_TEST_GUEST=0 leaves the guest out.
# - The post-synthesis simulation (make test-netlist, docs/timing-area.md): build/tests/ndk_tests_netlist,
#   the same tests linked against the synthesized netlist of nic_core at width 64, runs the
#   smoke subset NETLIST_SMOKE below. Not with criterion options; NDK_TEST_NETLIST=0 leaves it
#   out. `tools/run_tests.sh --netlist` runs only it (make test-netlist). Cost: ~2 min of one
#   core, mostly the Yosys run and the model's C++ (docs/timing-area.md).
# - The board-level cocotb benches (make test-board, tests/board/) run last and add their
#   counts; not with criterion options; NDK_TEST_BOARD=0 leaves them out.
# - The formal proofs and the planted bugs (make formal, tools/formal/) run after them and add
#   their counts; not with criterion options; NDK_TEST_FORMAL=0 leaves them out.
# - The fuzz check (make fuzz-check, tests/fuzz/, docs/verification.md "Fuzzing") runs last:
#   every saved seed replayed at both widths, then FUZZ_CHECK_RUNS (3000) inputs of libFuzzer at
#   width 64 (-seed=1); not with criterion options; NDK_TEST_FUZZ=0 leaves it out.
# - The last line is exactly `tests: N passed, N failed`; exit 1 when anything failed, after
#   printing the command that reruns each failing part (and how to get its waveform).
#
# Environment: NDK_TEST_JOBS (default 2), NDK_TEST_TIMEOUT (seconds per test and per
# example, default 600).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=build
TESTS=$BUILD/tests/ndk_tests
JOBS=${NDK_TEST_JOBS:-2}
TIMEOUT=${NDK_TEST_TIMEOUT:-600}
WIDTHS=(64 256)
# The smoke subset the netlist model runs: local requests, a deferred chain with one doorbell, an
# arm and its notification, a CQ overflow, a Send, a Write and a Read between two NICs.
NETLIST_SMOKE=(
	local_ops/fast_register_then_invalidate_round_trip
	local_ops/bind_window_then_invalidate_window
	defer/chain_of_7_rings_once_and_fetches_in_one_burst
	notify/one_notification_per_arm
	overflow/loses_nothing_before_and_writes_nothing_after
	transport/send_of_one_packet_between_two_hosts
	transport/write_then_send_arrive_in_order
	transport/read_of_one_packet_between_two_hosts
)
NETLIST_TESTS=$BUILD/tests/ndk_tests_netlist

passed=0
failed=0
rerun=()

if [[ ${1:-} != --netlist && ! -x $TESTS ]]; then
	echo "run_tests: $TESTS is missing: build it with make test (or make build-tests)"
	echo "tests: 0 passed, 1 failed"
	exit 1
fi

# run_suite <width>: one Criterion run; adds to passed/failed, records rerun commands.
run_suite() {
	local width=$1 tap=$BUILD/tests/$(basename "$TESTS")_w$1.tap
	local rc ok=0 bad=0 skip=0 plan=0 line name
	local -a failing=()
	shift

	echo "=== tests: NDK_SIM_WIDTH=$width $TESTS --jobs $JOBS --timeout $TIMEOUT${*:+$(printf ' %q' "$@")}"
	rm -f "$tap"
	NDK_SIM_WIDTH=$width "$TESTS" --jobs "$JOBS" --timeout "$TIMEOUT" --tap="$tap" "$@" 2>&1
	rc=$?

	# TAP lines: "ok - suite::test  (0.01s)", "ok - suite::test  # SKIP why",
	# "not ok - suite::test ...". The plan ("1..N") counts skipped tests too.
	if [[ -f $tap ]]; then
		while IFS= read -r line; do
			case $line in
			1..*) plan=${line#1..} ;;
			"ok "*"# SKIP"*) skip=$((skip + 1)) ;;
			"ok "*) ok=$((ok + 1)) ;;
			"not ok "*)
				bad=$((bad + 1))
				name=${line#not ok - }
				name=${name%% *}
				failing+=("${name/::/\/}")
				;;
			esac
		done <"$tap"
	fi
	# A runner that died (or a test whose result never reached the report) counts as failed.
	local missing=$((plan - ok - bad - skip))
	if ((missing > 0)); then
		echo "run_tests: width $width: $missing test(s) in the plan reported no result"
		bad=$((bad + missing))
	fi
	if ((rc != 0 && bad == 0)); then
		echo "run_tests: width $width: $TESTS exited with $rc but reported no failing test"
		bad=1
		failing+=("*/*")
	fi
	echo "=== tests: width $width: $ok passed, $bad failed, $skip skipped (TAP report: $tap)"
	passed=$((passed + ok))
	failed=$((failed + bad))
	for name in "${failing[@]}"; do
		rerun+=("NDK_SIM_WIDTH=$width $TESTS --filter '$name' --verbose"$'\n'"      with waves: NDK_SIM_TRACE=/tmp/${name//[\/*]/_}_w$width.fst NDK_SIM_WIDTH=$width $TESTS --filter '$name' --verbose")
	done
}

# run_netlist: the smoke subset against the netlist model (built by make netlist).
run_netlist() {
	local filter t0
	filter="@($(IFS='|'; echo "${NETLIST_SMOKE[*]}"))"
	t0=$(date +%s)
	if [[ ! -x $NETLIST_TESTS ]]; then
		echo "[FAIL] netlist: $NETLIST_TESTS is missing: build it with make netlist"
		failed=$((failed + 1))
		rerun+=("make test-netlist")
		return
	fi
	TESTS=$NETLIST_TESTS run_suite 64 --filter "$filter"
	echo "=== netlist: $(($(date +%s) - t0)) s"
}

if [[ ${1:-} == --netlist ]]; then
	run_netlist
	if ((${#rerun[@]})); then
		echo "=== rerun a failing part with:"
		printf '  %s\n' "${rerun[@]}"
	fi
	echo "tests: $passed passed, $failed failed"
	((failed == 0))
	exit
fi

for width in "${WIDTHS[@]}"; do
	run_suite "$width" "$@"
done

# Examples: programs built against build/ndk.pc exactly as a user would; each must exit 0.
shopt -s nullglob
examples=("$BUILD"/examples/*)
if ((${#examples[@]})); then
	echo "=== examples: ${#examples[@]} program(s)"
fi
for ex in "${examples[@]}"; do
	[[ -f $ex && -x $ex ]] || continue
	log=$BUILD/tests/$(basename "$ex").log
	timeout "$TIMEOUT" "$ex" >"$log" 2>&1
	rc=$?
	if ((rc == 0)); then
		echo "[PASS] example $ex"
		passed=$((passed + 1))
	else
		echo "[FAIL] example $ex: exit $rc$( ((rc == 124)) && echo " (timed out after ${TIMEOUT}s)"); last lines of its output ($log):"
		tail -n 15 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
		rerun+=("$ex"$'\n'"      with waves: NDK_SIM_TRACE=/tmp/$(basename "$ex").fst $ex")
	fi
done

# Scripts that check the command-line tools (build/bin/*) from outside, as a user runs them.
scripts=(tests/*_check.py)
if ((${#scripts[@]})); then
	echo "=== scripts: ${#scripts[@]} program(s)"
fi
for sc in "${scripts[@]}"; do
	log=$BUILD/tests/$(basename "$sc" .py).log
	timeout "$TIMEOUT" python3 "$sc" >"$log" 2>&1
	rc=$?
	if ((rc == 0)); then
		echo "[PASS] script $sc"
		passed=$((passed + 1))
	else
		echo "[FAIL] script $sc: exit $rc$( ((rc == 124)) && echo " (timed out after ${TIMEOUT}s)"); its failing checks ($log):"
		grep -E '^FAIL|failure' "$log" | tail -n 15 | sed 's/^/    /'
		failed=$((failed + 1))
		rerun+=("python3 $sc")
	fi
done

# The backend-independent suite: on sim here, then on pci in the guest (one boot).
PORTABLE=$BUILD/tests/ndk_portable
if (($# == 0)); then
	if [[ -x $PORTABLE ]]; then
		for width in "${WIDTHS[@]}"; do
			TESTS=$PORTABLE run_suite "$width"
		done
	else
		echo "run_tests: $PORTABLE is missing: build it with make test (or make build-tests)"
		failed=$((failed + 1))
	fi
	if [[ ${NDK_TEST_GUEST:-1} == 0 ]]; then
		echo "=== pci: NDK_TEST_GUEST=0: the guest run is left out"
	else
		guest_cmd=(tools/guest/guest.sh run --timeout "$TIMEOUT" --file "$PORTABLE"
			--file "$BUILD/examples/fastreg_roundtrip" --file "$BUILD/bench/pcispeed"
			-- tools/guest/pci_suite.sh "$PWD/$BUILD")
		echo "=== pci: the pci backend in a Linux guest against the device server's NIC"
		echo "    ${guest_cmd[*]}"
		log=$BUILD/tests/guest.log
		t0=$(date +%s)
		"${guest_cmd[@]}" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		line=$(grep -E '^pci: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n1)
		if [[ -n $line ]]; then
			read -r _ p _ f _ <<<"$line"
			passed=$((passed + p))
			failed=$((failed + f))
			((f == 0 && rc == 0)) || rerun+=("${guest_cmd[*]}")
			((rc == 0 || f > 0)) || failed=$((failed + 1))
		else
			echo "[FAIL] pci: the guest run ended without its summary (exit $rc)"
			failed=$((failed + 1))
			rerun+=("${guest_cmd[*]}")
		fi
		# the DMA firewall: a boot of its own (the NIC stops); the server must refuse the
		# write, say why, and stop the NIC (guest.sh exit 70 with the program passing)
		fw_cmd=(tools/guest/guest.sh run --timeout "$TIMEOUT" -- "$BUILD/tests/refused_dma")
		echo "=== pci: a DMA outside guest RAM: ${fw_cmd[*]}"
		log=$BUILD/tests/guest_refused_dma.log
		"${fw_cmd[@]}" >"$log" 2>&1
		rc=$?
		if ((rc == 70)) && grep -q 'devserver: FATAL .*DMA write .*(outside guest RAM)' "$log"; then
			echo "[PASS] pci: a DMA write outside guest RAM is refused and stops the NIC"
			passed=$((passed + 1))
		else
			echo "[FAIL] pci: a DMA write outside guest RAM: exit $rc (want 70), log $log:"
			tail -n 15 "$log" | sed 's/^/    /'
			failed=$((failed + 1))
			rerun+=("${fw_cmd[*]}")
		fi
		echo "=== pci: $(($(date +%s) - t0)) s (log: $log)"
	fi
fi

# The post-synthesis simulation (not with criterion options; NDK_TEST_NETLIST=0 leaves it out).
if (($# == 0)); then
	if [[ ${NDK_TEST_NETLIST:-1} == 0 ]]; then
		echo "=== netlist: NDK_TEST_NETLIST=0: the post-synthesis simulation is left out"
	else
		log=$BUILD/tests/netlist_build.log
		echo "=== netlist: make netlist (Yosys netlist of nic_core, Verilated; log: $log)"
		t0=$(date +%s)
		if make --no-print-directory netlist >"$log" 2>&1; then
			echo "=== netlist: built in $(($(date +%s) - t0)) s"
			run_netlist
		else
			echo "[FAIL] netlist: make netlist failed; the end of $log:"
			tail -n 15 "$log" | sed 's/^/    /'
			failed=$((failed + 1))
			rerun+=("make test-netlist")
		fi
	fi
fi

# The board-level cocotb benches (tests/board/, `make test-board`: the Ethernet port, the clock
# crossings, the PCIe interface, nic_board_core with cocotbext-pcie's model of the PCIe block).
# Not with criterion options; NDK_TEST_BOARD=0 leaves them out.
if (($# == 0)); then
	if [[ ${NDK_TEST_BOARD:-1} == 0 ]]; then
		echo "=== board: NDK_TEST_BOARD=0: the board-level benches are left out"
	else
		log=$BUILD/tests/board.log
		t0=$(date +%s)
		echo "=== board: make test-board (log: $log)"
		make --no-print-directory test-board 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		summary=$(grep -E '^board: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
		if [[ $summary =~ ^board:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			passed=$((passed + BASH_REMATCH[1]))
			failed=$((failed + BASH_REMATCH[2]))
			((BASH_REMATCH[2] == 0 && rc == 0)) || rerun+=("make test-board (one bench: TESTBENCH=name, one test: TESTCASE=name)")
			((BASH_REMATCH[2] == 0 && rc != 0)) && failed=$((failed + 1))
		else
			echo "[FAIL] board: make test-board ended without its summary (exit $rc)"
			failed=$((failed + 1))
			rerun+=("make test-board")
		fi
		echo "=== board: $(($(date +%s) - t0)) s"
	fi
fi

# The formal proofs of the RTL's `ifdef FORMAL properties and the planted bugs each must catch
# (make formal, tools/formal/; ~55 s of CPU, ~2.5 minutes of wall time). Not with criterion options;
# NDK_TEST_FORMAL=0 leaves them out.
if (($# == 0)); then
	if [[ ${NDK_TEST_FORMAL:-1} == 0 ]]; then
		echo "=== formal: NDK_TEST_FORMAL=0: the proofs are left out"
	else
		log=$BUILD/tests/formal.log
		t0=$(date +%s)
		echo "=== formal: make formal (log: $log)"
		make --no-print-directory formal 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		for part in formal plant; do
			line=$(grep -E "^$part: [0-9]+ (passed|caught), [0-9]+ (failed|missed)$" "$log" | tail -n 1)
			if [[ $line =~ ^$part:\ ([0-9]+)\ [a-z]+,\ ([0-9]+) ]]; then
				passed=$((passed + BASH_REMATCH[1]))
				failed=$((failed + BASH_REMATCH[2]))
			else
				echo "[FAIL] $part: make formal ended without its summary (exit $rc)"
				failed=$((failed + 1))
			fi
		done
		((rc == 0)) || rerun+=("make formal (one proof: tools/formal/formal.py --only JOB; one planted bug: tools/formal/plant.py --only BUG)")
		echo "=== formal: $(($(date +%s) - t0)) s"
	fi
fi

# The fuzzer (make fuzz-check): the saved seeds replayed, then a short bounded run. Not with
# criterion options; NDK_TEST_FUZZ=0 leaves it out.
if (($# == 0)); then
	if [[ ${NDK_TEST_FUZZ:-1} == 0 ]]; then
		echo "=== fuzz: NDK_TEST_FUZZ=0: the fuzz check is left out"
	else
		log=$BUILD/tests/fuzz.log
		t0=$(date +%s)
		echo "=== fuzz: make fuzz-check (log: $log)"
		make --no-print-directory fuzz-check 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
		if [[ $line =~ ^fuzz:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			passed=$((passed + BASH_REMATCH[1]))
			failed=$((failed + BASH_REMATCH[2]))
		else
			echo "[FAIL] fuzz: make fuzz-check ended without its summary (exit $rc)"
			failed=$((failed + 1))
		fi
		((rc == 0)) || rerun+=("make fuzz-check (one input: NDK_SIM_WIDTH=64 build/fuzz/ndk_fuzz FILE; NDK_FUZZ_VERBOSE=1 traces it)")
		echo "=== fuzz: $(($(date +%s) - t0)) s"
	fi
fi

if ((${#rerun[@]})); then
	echo "=== rerun a failing part with:"
	for cmd in "${rerun[@]}"; do
		echo "  $cmd"
	done
fi
echo "tests: $passed passed, $failed failed"
((failed == 0))
