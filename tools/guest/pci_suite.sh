#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The pci backend's checks, run INSIDE the guest (busybox sh) against the device server's NIC:
#
#   tools/guest/guest.sh run --file build/tests/ndk_portable --file build/examples/fastreg_roundtrip \
#       --file build/bench/pcispeed -- tools/guest/pci_suite.sh "$PWD/build"
#
# (tools/run_tests.sh does this in `make test`.) One boot runs, in order:
#   1. without hugepages: the example through "pci" must fail with
#      NDK_STATUS_INSUFFICIENT_RESOURCES and libndk's message saying how to reserve them;
#   2. the example program through "pci";
#   3. the backend-independent suite (tests/portable) with NDK_TEST_ADAPTER=pci;
#   4. bench/pcispeed: MMIO round trip and DMA rate, with its data check.
# The last line is "pci: N passed, N failed"; the exit status is 0 when nothing failed.
build=${1:?usage: pci_suite.sh BUILD_DIR}
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "[PASS] pci: $1"; }
bad() { failed=$((failed + 1)); echo "[FAIL] pci: $1"; }
hugepages() { echo "$1" > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages; }

hugepages 0
out=$("$build/examples/fastreg_roundtrip" pci 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q 'INSUFFICIENT_RESOURCES' &&
	echo "$out" | grep -q 'libndk pci: no DMA memory: .*nr_hugepages'; then
	ok "without hugepages the adapter fails with INSUFFICIENT_RESOURCES and says why"
else
	bad "without hugepages: exit $rc, output:"
	echo "$out" | sed 's/^/    /'
fi
hugepages 64

if "$build/examples/fastreg_roundtrip" pci; then
	ok "example fastreg_roundtrip pci"
else
	bad "example fastreg_roundtrip pci (exit $?)"
fi

NDK_TEST_ADAPTER=pci "$build/tests/ndk_portable" --jobs 1 --timeout 600 --tap=/tmp/portable.tap 2>&1
rc=$?
n_ok=$(grep -c '^ok ' /tmp/portable.tap 2>/dev/null)
n_skip=$(grep -c '^ok .*# SKIP' /tmp/portable.tap 2>/dev/null)
n_bad=$(grep -c '^not ok ' /tmp/portable.tap 2>/dev/null)
plan=$(sed -n 's/^1\.\.//p' /tmp/portable.tap 2>/dev/null)
n_ok=$((${n_ok:-0} - ${n_skip:-0}))
echo "=== pci: tests/portable: $n_ok passed, ${n_bad:-0} failed, ${n_skip:-0} skipped of ${plan:-?}"
grep '^not ok ' /tmp/portable.tap 2>/dev/null | sed 's/^/    /'
if [ -z "$plan" ] || [ $((n_ok + n_bad + n_skip)) -ne "$plan" ] || { [ $rc -ne 0 ] && [ "$n_bad" -eq 0 ]; }; then
	bad "tests/portable did not report every test (exit $rc)"
fi
passed=$((passed + n_ok))
failed=$((failed + ${n_bad:-0}))

if "$build/bench/pcispeed"; then
	ok "bench/pcispeed (MMIO and DMA, data checked)"
else
	bad "bench/pcispeed (exit $?)"
fi

echo "pci: $passed passed, $failed failed"
[ $failed -eq 0 ]
