# SPDX-License-Identifier: MIT
"""Module bench of nic_wqe_fetch (rtl/core) at nic_core's sizes (16 QPs, bursts of up to 16 WQEs,
a 128-slot buffer, 4 reads in flight, rings up to 2^12) with a reference model (a scoreboard),
seeded random stimulus and back-pressure on every interface (tests/board/tb_wqe_fetch.sv adds
nic_qp_ctx's ring table).

Each seed drives, cycle by cycle:
- QP create (a new ring of 1..256 WQEs, so rings that span two 4 KiB pages too) and destroy;
- doorbells as a driver writes them (WQEs written into the ring first, the new producer index,
  several while a read of the QP is in flight or before its fetch: coalescing), some with a
  BlueFlame copy of the one WQE they add (right, or of another index), and doorbells no driver
  writes: the same index again, an index moved back (not behind the fetch), behind the fetch
  index, beyond the ring (pi - exec > depth), to a QP that is not active or does not exist;
- the DMA read channel: AR accepted at random, each read answered after a random latency
  (2..40 cycles) in order (one ARID), beats with random gaps, now and then an error response;
- the dispatcher: WQEs taken at random (slow seeds fill the buffer), each taken WQE retired in
  ring order some cycles later (not when its QP was reset since: it is discarded).

The reference model follows the rules of nic_wqe_fetch's header: per QP pi / fetch / exec; a
doorbell is refused (db_err_o) when pi - exec > depth or pi is behind what was fetched (this
cycle's retire and read counted); a read of a QP with pi != fetch takes all its new WQEs up to
the ring end, the 4 KiB page and 16, and only when they fit in the buffer; a BlueFlame copy
replaces the fetch exactly when it is the next and only WQE, no read is in flight or offered and
the buffer has room; the buffer hands WQEs out in reservation order; a QP reset makes its
WQEs in flight or buffered stale. Checked: every AR (a live QP with WQEs to fetch, the address of
its fetch index in its ring, the burst length, reads in flight <= 4, never in a reset cycle), no
read withheld when one is due and fits (work conserving: the pick and the burst are registered
stages, so a read is offered at the latest in the third cycle it is due, when no doorbell, QP
reset or read came in the two cycles before, each of which restarts the pipeline), round robin (a pending QP waits for at
most 15 reads of others), every doorbell's refusal and every BlueFlame hit, every WQE handed out
(QP, ring index, the 64 bytes written at that slot or the copy as the buffer keeps them: header
bits 63:32 see as_buffered; DMA error flag, stale flag) in
order, so each doorbelled WQE exactly once, in order per QP, and never one that was not
doorbelled; at the end of each seed (no more stimulus) every doorbelled WQE of a live QP is
fetched, handed out and retired (nothing lost, no hang).
"""
import collections
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

NUM_QPS, MAX_BURST, BUF, MAX_READS = 16, 16, 128, 4
M16 = 0xffff


class Qp:
    def __init__(self):
        self.active = False
        self.inc = 0
        self.base = 0
        self.ld = 0
        self.pi = self.fetch = self.exec = 0

    @property
    def depth(self):
        return 1 << self.ld


async def run_seed(dut, seed, width, cycles=4000):
    rng = random.Random(seed)
    beats_per_wqe = 512 // width
    bmask = (1 << width) - 1
    qps = [Qp() for _ in range(NUM_QPS)]
    mem = {}                          # ring slot address -> the 64 bytes the driver wrote there
    fifo = collections.deque()        # buffer slots in reservation order: what must come out
    reads = collections.deque()       # reads in flight: their beats, in issue order
    retires = collections.deque()     # WQEs taken, to retire in order
    taken = reserved = 0
    waits = [0] * NUM_QPS             # reads of other QPs since this QP became pending
    calm_due = 0                      # cycles in a row a read was due with no event (see the top)
    st = collections.Counter()

    for sig in ("qp_cmd_i", "qp_create_i", "qp_cmd_qpn_i", "qp_base_i", "qp_log_depth_i",
                "sq_db_valid_i", "sq_db_qpn_i", "sq_db_pi_i", "sq_db_bf_i", "sq_db_bf_data_i",
                "retire_i", "retire_qpn_i", "retire_idx_i", "wqe_ready_i", "ar_ready_i",
                "r_valid_i", "r_data_i", "r_resp_i", "r_last_i"):
        getattr(dut, sig).value = 0
    dut.rst_i.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk_i)
    dut.rst_i.value = 0

    ar_p = rng.choice([0.3, 0.7, 1.0])
    r_p = rng.choice([0.3, 0.8, 1.0])
    take_p = rng.choice([0.03, 0.3, 0.9])   # 0.03: the buffer fills up
    retire_p = rng.choice([0.3, 1.0])
    db_p = rng.choice([0.02, 0.06])         # a WQE costs 8 beats at 64 bits: about what the DMA takes
    lat_max = rng.choice([4, 40])

    def burst_of(p):
        """The WQEs one read of QP p takes: all new ones up to the ring end, the page and 16."""
        slot = p.fetch & (p.depth - 1)
        return min((p.pi - p.fetch) & M16, p.depth - slot, 64 - slot % 64, MAX_BURST)

    def as_buffered(data, idx):
        """The WQE as the buffer gives it back: the header's reserved bits 63:48 read 0, its
        index (47:32) is the ring index when it was equal to it, else the ring index's
        complement (the dispatcher only compares the two)."""
        field = (data >> 32) & M16
        kept = field if field == idx else ~idx & M16
        return (data & ~(((1 << 32) - 1) << 32)) | (kept << 32)

    def wqe_content(idx):
        return (rng.getrandbits(512) & ~(M16 << 32)) | (idx << 32)

    def make_doorbell(q_post=None):
        """A doorbell (qpn, pi, bf, bf_data) after writing what it posts into the ring (q_post:
        a post to that QP)."""
        r = 1.0 if q_post is not None else rng.random()
        live = [q for q in range(NUM_QPS) if qps[q].active]
        if q_post is not None:
            q = q_post
        elif r < 0.03 or not live:
            q = rng.randrange(NUM_QPS + 4)
            if q >= NUM_QPS or not qps[q].active:
                return (q, rng.getrandbits(16), 0, 0)
        else:
            q = rng.choice(live)
        p = qps[q]
        used = (p.pi - p.exec) & M16
        r = 1.0 if q_post is not None else rng.random()
        if r < 0.06:
            return (q, p.pi, 0, 0)                                         # the same again
        if r < 0.09:
            return (q, (p.fetch - rng.randint(1, 3)) & M16, 0, 0)        # behind the fetch
        if r < 0.12:
            return (q, (p.exec + p.depth + rng.randint(1, 4)) & M16, 0, 0)   # beyond the ring
        if r < 0.2 and p.pi != p.fetch:
            return (q, (p.fetch + rng.randint(0, (p.pi - p.fetch) & M16)) & M16, 0, 0)  # moved back
        free = p.depth - used
        if free <= 0:
            return (q, p.pi, 0, 0)
        k = 1 if rng.random() < 0.4 else rng.randint(1, min(free, rng.choice([4, 16, 64])))
        k = min(k, free)
        for i in range(k):
            idx = (p.pi + i) & M16
            mem[p.base * 4096 + (idx & (p.depth - 1)) * 64] = wqe_content(idx)
        pi_new = (p.pi + k) & M16
        if k == 1 and rng.random() < 0.6:
            data = mem[p.base * 4096 + (p.pi & (p.depth - 1)) * 64] ^ (1 << 511)   # marks the copy
            if rng.random() < 0.15:
                data = (data & ~(M16 << 32)) | (((p.pi + 1) & M16) << 32)  # a copy of another WQE
            return (q, pi_new, 1, data)
        return (q, pi_new, 0, 0)

    for cyc in range(cycles + 20000):
        stim = cyc < cycles
        drain = not stim
        # ---- this cycle's inputs
        cmd = None
        if stim and rng.random() < 0.004:
            q = rng.randrange(NUM_QPS)
            if qps[q].active and rng.random() < 0.5:
                cmd = (q, 0, 0, 0)
            elif not qps[q].active:
                cmd = (q, 1, (0x100000 + q * 0x1000 + (qps[q].inc % 16) * 0x100), rng.choice([0, 1, 2, 3, 4, 6, 7, 8]))
        if cyc < 6:
            cmd = (cyc * 2, 1, 0x100000 + cyc * 2 * 0x1000, rng.choice([2, 4, 6, 7, 8]))
        db = make_doorbell() if stim and rng.random() < db_p else None
        # the coalescing window: more WQEs doorbelled in the very cycle their QP's read is issued
        # (the only pending QP, a read due and granted now)
        pending0 = [q for q in range(NUM_QPS) if qps[q].active and qps[q].pi != qps[q].fetch]
        force_ar = False
        if (stim and cmd is None and len(pending0) == 1 and len(reads) < MAX_READS
                and burst_of(qps[pending0[0]]) <= BUF - (reserved - taken) and rng.random() < 0.3):
            p = qps[pending0[0]]
            if p.depth - ((p.pi - p.exec) & M16) > 0:
                db = make_doorbell(pending0[0])
                force_ar = True
        ret = None
        while retires and retires[0][1] != qps[retires[0][0]].inc:
            retires.popleft()                       # its QP was reset since: discarded
        if retires and (drain or rng.random() < retire_p):
            ret = retires[0]
        beat = None
        if reads and cyc >= reads[0]["at"] and (drain or rng.random() < r_p):
            rd = reads[0]
            beat = rd["beats"][rd["next"]]
        dut.qp_cmd_i.value = cmd is not None
        if cmd:
            dut.qp_cmd_qpn_i.value, dut.qp_create_i.value = cmd[0], cmd[1]
            dut.qp_base_i.value, dut.qp_log_depth_i.value = cmd[2], cmd[3]
        dut.sq_db_valid_i.value = db is not None
        if db:
            dut.sq_db_qpn_i.value, dut.sq_db_pi_i.value = db[0] & 0xff, db[1]
            dut.sq_db_bf_i.value, dut.sq_db_bf_data_i.value = db[2], db[3]
        dut.retire_i.value = ret is not None
        if ret:
            dut.retire_qpn_i.value, dut.retire_idx_i.value = ret[0], ret[2]
        dut.r_valid_i.value = beat is not None
        if beat:
            dut.r_data_i.value, dut.r_resp_i.value, dut.r_last_i.value = beat
        dut.ar_ready_i.value = drain or force_ar or rng.random() < ar_p
        dut.wqe_ready_i.value = drain or rng.random() < take_p
        await ReadOnly()

        # ---- the read issued this cycle
        reset_q = cmd[0] if cmd else None
        pending = [q for q in range(NUM_QPS) if qps[q].active and qps[q].pi != qps[q].fetch]
        free_low = BUF - (reserved - taken)         # the output register may hold one more
        issue = None
        if int(dut.ar_valid_o.value):
            assert reset_q is None, f"seed {seed} cycle {cyc}: a read offered in a QP reset cycle"
            assert len(reads) < MAX_READS, f"seed {seed} cycle {cyc}: a fifth read in flight"
        due = False
        if pending and len(reads) < MAX_READS and reset_q is None:
            # whichever pending QP the round robin picks, its burst fits: a read is due; it is
            # offered once the pick and the request stages have run on an unchanged state
            due = all(burst_of(qps[q]) <= free_low for q in pending)
            if not due and not int(dut.ar_valid_o.value):
                st["read waits for buffer room"] += 1
        if not int(dut.ar_valid_o.value):
            assert not (due and calm_due >= 2), (f"seed {seed} cycle {cyc}: no read offered, QPs "
                                                 f"{pending} wait and fit since two cycles")
        if int(dut.ar_valid_o.value) and int(dut.ar_ready_i.value):
            q = int(dut.ring_rd_qpn_o.value)
            p = qps[q]
            assert q in pending, f"seed {seed} cycle {cyc}: read for QP {q}, which has nothing to fetch"
            slot = p.fetch & (p.depth - 1)
            addr, alen = int(dut.ar_addr_o.value), int(dut.ar_len_o.value)
            assert addr == p.base * 4096 + slot * 64, (f"seed {seed} cycle {cyc}: QP {q} read at "
                                                       f"{addr:#x}, want fetch {p.fetch}'s slot")
            assert (alen + 1) % beats_per_wqe == 0, f"seed {seed} cycle {cyc}: arlen {alen}"
            n = (alen + 1) // beats_per_wqe
            avail = (p.pi - p.fetch) & M16
            want = burst_of(p)
            assert n == want, (f"seed {seed} cycle {cyc}: QP {q} burst of {n}, want {want} (avail "
                               f"{avail}, to the ring end {p.depth - slot}, to the page {64 - slot % 64})")
            assert n <= free_low + 1, f"seed {seed} cycle {cyc}: a burst of {n} with {free_low} free"
            st["limit " + ("avail" if want == avail else "ring end" if want == p.depth - slot
                           else "page" if want == 64 - slot % 64 else "burst")] += 1
            for other in pending:
                waits[other] = 0 if other == q else waits[other] + 1
                assert waits[other] < NUM_QPS, f"seed {seed} cycle {cyc}: QP {other} starved"
            beats = []
            err_beat = rng.randrange(n * beats_per_wqe) if rng.random() < 0.03 else -1
            slots = []
            for i in range(n):
                idx = (p.fetch + i) & M16
                # A doorbell no driver writes can still be in range (beyond the ring by one in
                # the cycle of a retire): its WQEs are whatever the ring holds, a slot never
                # written an empty WQE with its index.
                data = mem.get(p.base * 4096 + (idx & (p.depth - 1)) * 64, idx << 32)
                err = err_beat // beats_per_wqe == i
                slots.append({"q": q, "inc": p.inc, "idx": idx, "data": data, "err": err})
                for b in range(beats_per_wqe):
                    last = i == n - 1 and b == beats_per_wqe - 1
                    resp = 2 if i * beats_per_wqe + b == err_beat else 0
                    beats.append(((data >> (width * b)) & bmask, resp, int(last)))
            issue = (q, n, {"beats": beats, "next": 0, "at": cyc + rng.randint(2, lat_max)}, slots)
            st["reads"] += 1
            st["dma errors"] += err_beat >= 0
        for q in range(NUM_QPS):
            if q not in pending:
                waits[q] = 0
        calm_due = calm_due + 1 if due and db is None and cmd is None and issue is None else 0

        # ---- the doorbell
        bf_hit = False
        if db is not None:
            q, pi_new, bf, bf_data = db
            take = q < NUM_QPS and qps[q].active and reset_q != q
            bad = False
            if take:
                p = qps[q]
                exec_now = (p.exec + (ret is not None and ret[0] == q)) & M16
                fetch_now = (p.fetch + (issue[1] if issue and issue[0] == q else 0)) & M16
                outstanding = (pi_new - exec_now) & M16
                fetched = (fetch_now - exec_now) & M16
                bad = outstanding > p.depth or outstanding < fetched
                st["refused" if bad else "accepted"] += 1
                if not bad and p.pi != p.fetch:
                    st["coalesced (WQEs still to fetch)"] += 1
                if not bad and issue and issue[0] == q and pi_new != fetch_now:
                    st["doorbell in its QP's issue cycle"] += 1
                if not bad and any(rd.get("q") == q for rd in reads):
                    st["during a read of the QP"] += 1
                if not bad and pi_new != (p.pi) and ((pi_new - p.pi) & M16) > 0x8000:
                    st["moved back"] += 1
            got_err = int(dut.db_err_o.value)
            assert got_err == (take and bad), (f"seed {seed} cycle {cyc}: doorbell {q} pi {pi_new}: "
                                               f"db_err {got_err}, want {int(take and bad)}")
            if got_err:
                assert int(dut.db_err_qpn_o.value) == q
            if take and not bad and bf:
                p = qps[q]
                cond = (p.pi == p.fetch and not int(dut.ar_valid_o.value) and not reads
                        and pi_new == (p.fetch + 1) & M16
                        and (bf_data >> 32) & M16 == p.fetch)
                got = int(dut.u_fetch.bf_hit.value)
                if free_low >= 1:
                    assert got == cond, (f"seed {seed} cycle {cyc}: BlueFlame copy for QP {q}: hit {got}, "
                                         f"want {int(cond)}")
                else:
                    assert not got or cond, f"seed {seed} cycle {cyc}: BlueFlame hit against its rules"
                bf_hit = bool(got)
                st["BlueFlame hits"] += bf_hit
                st["BlueFlame copies fetched instead"] += not bf_hit

        # ---- the WQE handed out
        if int(dut.wqe_valid_o.value) and int(dut.wqe_ready_i.value):
            assert fifo, f"seed {seed} cycle {cyc}: a WQE handed out that was never fetched"
            s = fifo.popleft()
            got = (int(dut.wqe_qpn_o.value), int(dut.wqe_idx_o.value))
            assert got == (s["q"], s["idx"]), (f"seed {seed} cycle {cyc}: WQE of QP {got[0]} index "
                                               f"{got[1]}, want QP {s['q']} index {s['idx']}")
            assert int(dut.wqe_data_o.value) == as_buffered(s["data"], s["idx"]), \
                f"seed {seed} cycle {cyc}: QP {got[0]} WQE {got[1]} data"
            assert int(dut.wqe_dma_err_o.value) == s["err"], f"seed {seed} cycle {cyc}: DMA error flag"
            stale = s["inc"] != qps[s["q"]].inc
            assert int(dut.wqe_stale_o.value) == stale, (f"seed {seed} cycle {cyc}: QP {got[0]} WQE "
                                                         f"{got[1]} stale {int(dut.wqe_stale_o.value)}")
            taken += 1
            st["stale"] += stale
            st["wrapped"] += s["idx"] >= qps[s["q"]].depth
            if not stale:
                retires.append((s["q"], s["inc"], s["idx"]))

        # ---- the model moves on (retire, read, copy, doorbell, reset: the RTL's order)
        st["max buffer use"] = max(st["max buffer use"], reserved - taken)
        if ret is not None:
            retires.popleft()
            qps[ret[0]].exec = (qps[ret[0]].exec + 1) & M16
        if issue is not None:
            q, n, rd, slots = issue
            rd["q"] = q
            qps[q].fetch = (qps[q].fetch + n) & M16
            reads.append(rd)
            fifo.extend(slots)
            reserved += n
        if db is not None and db[0] < NUM_QPS and qps[db[0]].active and reset_q != db[0] and not int(dut.db_err_o.value):
            p = qps[db[0]]
            if bf_hit:
                fifo.append({"q": db[0], "inc": p.inc, "idx": p.fetch, "data": db[3], "err": False})
                p.fetch = (p.fetch + 1) & M16
                reserved += 1
            p.pi = db[1]
        if beat is not None:
            rd = reads[0]
            rd["next"] += 1
            if rd["next"] == len(rd["beats"]):
                reads.popleft()
        if cmd is not None:
            q, create, base, ld = cmd
            p = qps[q]
            p.inc += 1
            p.active = bool(create)
            p.pi = p.fetch = p.exec = 0
            if create:
                p.base, p.ld = base, ld
            st["QP resets"] += 1
        await RisingEdge(dut.clk_i)
        if drain and not fifo and not reads and not retires and all(
                not p.active or (p.pi == p.fetch == p.exec) for p in qps):
            break

    assert not fifo and not reads, (f"seed {seed}: {len(fifo)} WQEs never handed out (a hang): reads "
                                    f"{[(rd['q'], rd['next'], len(rd['beats']), rd['at']) for rd in reads]} at cycle {cyc}, first "
                                    f"{dict((k, v) for k, v in fifo[0].items() if k != 'data') if fifo else None}, "
                                    f"valid {int(dut.wqe_valid_o.value)}")
    for q, p in enumerate(qps):
        assert not p.active or p.pi == p.fetch == p.exec, (
            f"seed {seed}: QP {q} pi {p.pi} fetch {p.fetch} exec {p.exec} at the end (lost)")
    dut._log.info("seed %d (%d cycles): %s", seed, cyc, dict(sorted(st.items())))
    return st


@cocotb.test()
async def random_traffic_against_reference_model(dut):
    """Seeded random QPs, doorbells, DMA latency and back-pressure; every read and WQE checked."""
    cocotb.start_soon(Clock(dut.clk_i, 4, units="ns").start())
    width = len(dut.r_data_i)
    total = collections.Counter()
    most = 0
    for seed in range(1, 7):
        st = await run_seed(dut, seed, width)
        most = max(most, st.pop("max buffer use"))
        total.update(st)
    total["max buffer use"] = most
    dut._log.info("all seeds: %s", dict(sorted(total.items())))
    missed = [k for k in ("BlueFlame hits", "BlueFlame copies fetched instead", "refused",
                          "coalesced (WQEs still to fetch)", "during a read of the QP", "moved back",
                          "limit avail", "limit ring end", "limit page", "limit burst", "dma errors",
                          "stale", "wrapped", "QP resets", "read waits for buffer room",
                          "doorbell in its QP's issue cycle") if total[k] == 0]
    assert not missed, f"the stimulus never reached: {missed}"
