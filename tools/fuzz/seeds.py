#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the saved seeds of the fuzzer (tests/fuzz/corpus/) from readable scenarios.

    tools/fuzz/seeds.py [OUTDIR]        (default tests/fuzz/corpus)

Each seed is a list of operations in the byte encoding tests/fuzz/ndk_fuzz.c decodes (run_op):
an opcode byte, then its argument bytes, 16-bit values little-endian. The scenarios are what a
regression suite would hold: each kind of post, deferred chains, polls and arms, a full CQ,
doorbells no driver writes, malformed WQEs, every kind of injected frame, network faults,
flushes. libFuzzer adds its own inputs beside them (build/fuzz/corpus) when it runs.
"""
import os
import struct
import sys

QA, QB, QC = 0, 1, 2
DEFER, SILENT, SOLICIT, INLINE, FENCE = 1, 2, 4, 8, 16


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def send(q, flags=0, length=64):
    return bytes([0, 1 if q == QB else 0, flags]) + u16(length)


def write(length=64, off=0, flags=0, bad=False):
    return bytes([2, flags | (0x80 if bad else 0)]) + u16(length) + u16(off)


def read(length=64, off=0, flags=0, bad=False):
    return bytes([4, flags | (0x80 if bad else 0)]) + u16(length) + u16(off)


def recv(q, length=2048):
    return bytes([5, 1 if q == QB else 0]) + u16(length)


def local(qa=False, inval=False, flags=0):
    return bytes([6, (1 if qa else 0) | (2 if inval else 0) | (flags << 2)])


def poll(cq, n=16):
    return bytes([7, cq, (n - 1) % 16])


def arm(cq, kind):  # kind: 0 errors, 1 solicited, 2 any
    return bytes([8, cq | (kind << 1)])


def step(cycles):
    if cycles <= 4096:
        return bytes([9, max(1, (cycles + 15) // 16) - 1])
    return bytes([10, min(256, (cycles + 1023) // 1024) - 1])


def raw_sq_db(q, pi):
    return bytes([11, 0x00, q]) + u16(pi)


def raw_rq_db(q, pi):
    return bytes([11, 0x40, q]) + u16(pi)


def raw_cq_db(cq, word, moderation=False):
    return bytes([11, 0x80, cq]) + u16(word) + u16(word >> 16) + bytes([1 if moderation else 0])


def malformed(q, edits):
    out = bytes([12, q, len(edits) - 1])
    for at, x in edits:
        out += bytes([at, x])
    return out


def inject(which, how, a=0, b=0):  # how: 0 replay, 1 truncate, 2 bad ICRC, 3 other QP, 4 opcode, 5 byte
    return bytes([13, which, how, a, b])


def fault(kind, count=1):  # kind: 0 drop, 1 corrupt, 2 duplicate, 3 reorder
    return bytes([14, kind | ((count - 1) << 2)])


def flush(q):
    return bytes([15, 0x80 | q])


def fine_step(cycles):  # 1..64 cycles
    return bytes([15, 0x40 | (cycles - 1)])


def timed_db(q, part, delay, repeat=False):
    """the driver's doorbell of the first `part` unrung WQEs, then `delay` (0..31) cycles later of
    the rest (or of the same index again, repeat)"""
    return bytes([15, 0x20 | (1 if q == QB else 0), (part - 1) | (0x80 if repeat else 0), delay])


def moderation(cq, interval, count):
    return bytes([15, cq, interval, count])


SEEDS = {
    "send_each_way": [recv(QB), recv(QA), send(QA), step(3000), send(QB, length=200), step(8000),
                      poll(0), poll(1)],
    "write_read_send": [recv(QB), write(128, 0), read(128, 0), send(QA, length=512), step(20000),
                        poll(0), poll(1)],
    "multi_packet_messages": [recv(QB, 4000), write(2400, 100), send(QA, length=2100),
                              read(2300, 4000), step(60000), poll(0), poll(1)],
    "deferred_chain_then_ring": [write(64, 0, DEFER), write(64, 64, DEFER), write(64, 128, DEFER),
                                 write(64, 192), step(16000), poll(0)],
    "doorbells_while_fetching": [write(32, 0), step(200), write(32, 32), step(100), write(32, 64),
                                 step(50), write(32, 96), step(16000), poll(0)],
    "doorbells_cycles_apart": [write(32, 0, DEFER), write(32, 32), fine_step(40), write(32, 64),
                               fine_step(7), write(32, 96), fine_step(1), write(32, 128),
                               step(16000), poll(0)],
    # the driver's doorbells of deferred chains at a few cycles' distance (the fuzzer moves them)
    "timed_doorbells_of_deferred_chains": [write(32, 0, DEFER), write(32, 32, DEFER),
                                           write(32, 64, DEFER), timed_db(QA, 1, 12),
                                           recv(QA), send(QB, DEFER), send(QB, DEFER),
                                           timed_db(QB, 1, 20), step(16000), poll(0), poll(1)],
    # the second doorbell arrives in the cycle the fetch issues the read of the first one's WQE
    # (3 cycles after it, since the fetch's pick and request are registered stages)
    "doorbell_in_the_fetch_read_cycle": [write(32, 0, DEFER), write(32, 32, DEFER),
                                         write(32, 64, DEFER), timed_db(QA, 1, 3), step(16000),
                                         poll(0)],
    "silent_and_fenced": [write(64, 0, SILENT), write(64, 64, SILENT), read(64, 0, FENCE),
                          write(64, 128, SILENT | DEFER), write(8, 200, INLINE), step(20000),
                          poll(0)],
    "inline_sends_solicited": [recv(QB), recv(QB), arm(1, 1), send(QA, INLINE | SOLICIT, 20),
                               send(QA, 0, 10), step(10000), poll(1), arm(1, 2), step(2000)],
    "arms_and_moderation": [moderation(0, 3, 2), arm(0, 2), write(16, 0), write(16, 16),
                            step(4000), poll(0, 1), arm(0, 0), arm(0, 2), step(8000), poll(0)],
    "cq_full_without_polling": [write(16, 16 * i) for i in range(8)] + [step(30000), poll(0, 8)],
    "cq_overrun": [write(16, 16 * i) for i in range(8)] + [recv(QA), send(QB), step(30000),
                                                           arm(0, 0), step(2000), poll(0)],
    "bad_tokens": [write(64, 0, bad=True), step(8000), write(64, 0), read(32, 0, bad=True),
                   step(8000), poll(0)],
    "send_without_receive": [send(QA, length=64), step(60000), poll(0), poll(1)],
    "local_ops": [local(), local(inval=True), local(qa=True), local(qa=True, inval=True),
                  step(20000), poll(0), poll(1)],
    "flush_with_outstanding": [recv(QA), recv(QB), write(512, 0, DEFER), flush(QA), write(64, 0),
                               step(8000), poll(0), poll(1)],
    "raw_sq_doorbell_ahead": [write(16, 0), raw_sq_db(QA, 40), step(8000), write(16, 16),
                              step(8000), poll(0), poll(1)],
    "raw_sq_doorbell_back": [write(16, 0), step(8000), raw_sq_db(QC, 0xFFFF), local(),
                             step(8000), poll(1)],
    "raw_rq_and_cq_doorbells": [raw_rq_db(QB, 9), raw_cq_db(1, 0x40007), raw_cq_db(0, 0x3, True),
                                send(QA), step(20000), poll(0), poll(1)],
    "malformed_wqe_opcode": [write(16, 0), step(8000), malformed(QA, [(0, 0x3C)]),
                             write(16, 32), step(8000), poll(0)],
    "malformed_wqe_fields": [local(), step(8000), malformed(QC, [(2, 0x11), (9, 0xFF), (17, 0x80)]),
                             step(8000), poll(1)],
    "replay_duplicate_write": [write(64, 0), step(8000), write(64, 0), step(8000), poll(0),
                               inject(1, 0), step(8000), poll(0)],
    "replay_duplicate_send": [recv(QB), recv(QB), send(QA), step(8000), inject(1, 0), step(8000),
                              send(QA), step(8000), poll(0), poll(1)],
    "inject_truncated": [recv(QB), send(QA), step(8000), inject(1, 1, 40), step(8000), poll(0),
                         poll(1)],
    "inject_bad_icrc": [write(64, 0), step(8000), inject(1, 2, 4), step(8000), poll(0)],
    "inject_other_qp": [write(64, 0), step(8000), inject(1, 3, 0x77, 0), step(8000), poll(0)],
    "inject_bad_opcode": [recv(QB), send(QA), step(8000), inject(1, 4, 0x1F), step(8000),
                          write(32, 0), step(8000), poll(0), poll(1)],
    "inject_changed_byte": [write(64, 0), step(8000), inject(1, 5, 0x40, 5), step(8000), poll(0)],
    "network_faults": [fault(0), write(64, 0), step(40000), fault(2), write(64, 64), step(20000),
                       fault(3, 2), write(64, 128), write(64, 192), step(40000), fault(1),
                       recv(QB), send(QA), step(40000), poll(0), poll(1)],
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "tests", "fuzz", "corpus")
    os.makedirs(out, exist_ok=True)
    for name, ops in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"".join(ops))
    print(f"seeds: wrote {len(SEEDS)} seeds to {out}")


if __name__ == "__main__":
    main()
