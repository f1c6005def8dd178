#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make soak: the long runs over a lossy network that CI has no time for (docs/transport.md
# "Seeded random runs under loss"). Not in make test. Two parts, both the Criterion suite
# loss_random (tests/cosim_loss_random.c) with more seeds and messages:
#   1. the million: SOAK_MESSAGES (default 1 000 000) messages at 1e-2 drop over SOAK_SEEDS
#      (default 100) seeds, at SOAK_WIDTH (default 256), sizes up to SOAK_MAX_LEN (default 65536);
#   2. the matrix (SOAK_MATRIX=0 leaves it out): every fault configuration of the suite over 16
#      seeds of 2 000 messages, at both widths.
# Every run checks every byte and completion and the counters; any failure stops the soak with
# its seed and replay command. The result goes to build/soak/soak.json (and is printed):
# messages, faults injected, request packets retransmitted, goodput, errors (0 when it passed).
# Cost: about 3 s of one core per 2 000 messages at width 256 (under 1e-2 drop); the million is
# ~25 min of one core, the matrix ~20 min more. Run it under nice on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
BIN=build/tests/ndk_tests
OUT=build/soak
SEEDS=${SOAK_SEEDS:-100}
MESSAGES=${SOAK_MESSAGES:-1000000}
WIDTH=${SOAK_WIDTH:-256}
MAX_LEN=${SOAK_MAX_LEN:-65536}
mkdir -p "$OUT"
rm -f "$OUT/million.jsonl" "$OUT/matrix.jsonl" "$OUT/soak.json"
start=$(date +%s)
echo "soak: $MESSAGES messages at 1e-2 drop over $SEEDS seeds, width $WIDTH, sizes up to $MAX_LEN"
NDK_LOSS_ALL=1 NDK_SIM_WIDTH=$WIDTH NDK_LOSS_SEEDS=$SEEDS NDK_LOSS_MESSAGES=$((MESSAGES / SEEDS)) \
	NDK_LOSS_SEED_BASE=0x50A70000 NDK_LOSS_MAX_LEN=$MAX_LEN NDK_LOSS_REPORT=$OUT/million.jsonl \
	$BIN --filter 'loss_random/drop_1e_2' --jobs 1 2>&1 | grep -v ' seed 0x' || true
[[ -s $OUT/million.jsonl ]] || { echo "soak: FAILED (the million-message run)"; exit 1; }
if [[ ${SOAK_MATRIX:-1} != 0 ]]; then
	for w in 64 256; do
		echo "soak: the matrix, 16 seeds x 2000 messages per configuration, width $w"
		NDK_LOSS_ALL=1 NDK_SIM_WIDTH=$w NDK_LOSS_SEEDS=16 NDK_LOSS_MESSAGES=2000 NDK_LOSS_REPORT=$OUT/matrix.jsonl \
			$BIN --filter 'loss_random/*' --jobs 2 2>&1 | grep -v ' seed 0x' || true
	done
	n=$(wc -l < "$OUT/matrix.jsonl" 2>/dev/null || echo 0)
	[[ $n == 18 ]] || { echo "soak: FAILED (the matrix: $n of 18 configurations passed)"; exit 1; }
fi
python3 - "$OUT" "$(($(date +%s) - start))" <<'PY'
import json, sys
out, wall = sys.argv[1], int(sys.argv[2])
def rows(name):
    try:
        return [json.loads(l) for l in open(f"{out}/{name}")]
    except FileNotFoundError:
        return []
m = rows("million.jsonl")[0]
res = {
    "million": {k: m[k] for k in ("width", "drop", "seeds", "messages", "sends", "writes", "reads",
                                  "bytes", "cycles", "goodput_bytes_per_cycle", "frames", "faults",
                                  "retransmitted_packets", "seq_naks", "errors")},
    "matrix": rows("matrix.jsonl"),
    "errors": 0,
    "wall_s": wall,
}
# both directions together (the four streams), at the default 250 MHz clock
res["million"]["goodput_gbps_both_ways_at_250mhz"] = round(m["goodput_bytes_per_cycle"] * 8 * 0.25, 3)
json.dump(res, open(f"{out}/soak.json", "w"), indent=1)
print(json.dumps(res["million"], indent=1))
print(f"soak: {len(res['matrix'])} matrix configurations passed; {out}/soak.json; {wall} s")
PY
