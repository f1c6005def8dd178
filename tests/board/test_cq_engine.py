# SPDX-License-Identifier: MIT
"""Module bench of nic_cq_engine (rtl/core) with a reference model (a scoreboard), seeded random
stimulus and random back-pressure on the record-write and interrupt interfaces.

Built by run.py as bench `cq_engine` (NumCqs 4, LogMaxCqDepth 3, MsixVectors 4) with the RTL's
own assertions and its `ifdef FORMAL properties on. Each seed drives, cycle by cycle: CQ_CREATE /
CQ_DESTROY commands (valid and malformed), CI_ARM doorbells (consumer indices in range and past
pi, arms of every type, 3 included), completion requests held until taken (solicited, error
status, for CQs that do not exist), wr_ready and irq_ready at random.

The reference model decides every record from the CQ state it keeps (ring base, depth, pi, ci,
error): the exact address and 32 bytes of each CQE (owner bit of pi's pass, the rest as
requested) or the overflow record (BUFFER_OVERFLOW, producer_index) at the ring's end, in order;
it checks every write the engine makes against that queue. Interrupts: never more than the arms
a CQ got (cumulative), and at the end of each run, per live CQ, each arm type against the entries
the model says are in [ci, pi): ANY fires iff entries or error, SOLICITED iff a solicited / error
entry or error, ERRORS iff error; exactly once, and a second arm fires again (level, C6); a merge
ERRORS then SOLICITED acts as SOLICITED (C8).
Not modelled: interrupt moderation (no MODERATION word is sent; docs/verification.md).
"""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

NUM_CQS, LOG_MAX, VECTORS = 4, 3, 4
CMD_CQ_CREATE, CMD_CQ_DESTROY = 0x4, 0x5
ARM_ERRORS, ARM_ANY, ARM_SOLICITED = 0, 1, 2
FLAG_SOLICITED = 0x2
STATUS_BUFFER_OVERFLOW = 0x80000005


class Cq:
    def __init__(self, base, logd, vec):
        self.base, self.logd, self.vec = base, logd, vec
        self.pi = self.ci = 0
        self.error = False
        self.inflight = False  # a CQE taken, not yet written: the engine's pi does not count it
        self.sol = {}          # ring index -> solicited or error status

    @property
    def depth(self):
        return 1 << self.logd


class Model:
    def __init__(self):
        self.cqs = [None] * NUM_CQS
        self.expected = []     # (the Cq it was decided for, cqn, addr, data) in write order
        self.arms = [0] * NUM_CQS
        self.irqs = [0] * NUM_CQS

    def command(self, op, index, base, logd, vec):
        if index >= NUM_CQS:
            return
        if op == CMD_CQ_CREATE and logd <= LOG_MAX and vec < VECTORS and base % 4096 == 0:
            self.cqs[index] = Cq(base, logd, vec)
        elif op == CMD_CQ_DESTROY:
            self.cqs[index] = None

    def doorbell(self, cqn, ci, arm):
        cq = self.cqs[cqn] if cqn < NUM_CQS else None
        if cq is None:
            return
        pi_now = (cq.pi - cq.inflight) % 65536    # the engine's pi: written CQEs only
        if (ci - cq.ci) % 65536 <= (pi_now - cq.ci) % 65536:
            cq.ci = ci
        if arm:
            self.arms[cqn] += 1

    def accept(self, cqn, cqe):
        cq = self.cqs[cqn] if cqn < NUM_CQS else None
        if cq is None or cq.error:
            return
        if (cq.pi - cq.ci) % 65536 >= cq.depth:
            rec = STATUS_BUFFER_OVERFLOW | (cq.pi << 32)
            self.expected.append((cq, cqn, cq.base + cq.depth * 32, rec))
            cq.error = True      # the engine commits it at the write; nothing is taken meanwhile
        else:
            owner = ((cq.pi >> cq.logd) & 1) ^ 1
            data = (cqe & ~(0xff << 248)) | (owner << 248)
            self.expected.append((cq, cqn, cq.base + (cq.pi % cq.depth) * 32, data))
            cq.inflight = True
            status = cqe & 0xffffffff
            flags = (cqe >> 144) & 0xff
            cq.sol[cq.pi % 65536] = bool(flags & FLAG_SOLICITED) or status != 0
            cq.pi = (cq.pi + 1) % 65536

    def satisfied(self, cqn, arm_type):
        cq = self.cqs[cqn]
        entries = [(cq.ci + i) % 65536 for i in range((cq.pi - cq.ci) % 65536)]
        if cq.error:
            return True
        if arm_type == ARM_ANY:
            return bool(entries)
        if arm_type == ARM_SOLICITED:
            return any(cq.sol.get(i, False) for i in entries)
        return False


async def cycle(dut):
    """Wait until the inputs driven for this cycle have settled the outputs (before the edge)."""
    await ReadOnly()


async def run_seed(dut, seed, cycles=4000):
    rng = random.Random(seed)
    model = Model()
    log = dut._log
    for sig in ("cmd_valid_i", "db_valid_i", "db_moderation_i", "cpl_valid_i", "us_tick_i",
                "wr_ready_i", "irq_ready_i"):
        getattr(dut, sig).value = 0
    dut.cmd_op_i.value = 0
    dut.cmd_index_i.value = 0
    dut.cmd_args_i.value = 0
    dut.db_cqn_i.value = 0
    dut.db_data_i.value = 0
    dut.cpl_cqn_i.value = 0
    dut.cpl_cqe_i.value = 0
    dut.state_rd_cqn_i.value = 0
    dut.rst_i.value = 1
    for _ in range(4):
        await RisingEdge(dut.clk_i)
    dut.rst_i.value = 0
    wr_p = rng.choice([0.2, 0.6, 1.0])
    irq_p = rng.choice([0.2, 0.6, 1.0])
    cpl = None             # (cqn, cqe) offered until taken
    writes = 0

    def drive(stimulus):
        nonlocal cpl
        cmd = db = None
        if stimulus:
            r = rng.random()
            if r < 0.02:
                op = rng.choice([CMD_CQ_CREATE, CMD_CQ_CREATE, CMD_CQ_DESTROY])
                index = rng.randrange(NUM_CQS + 1)
                logd = rng.choice([0, 1, 2, 3, 3, 9])
                base = rng.randrange(1, 64) * 4096 + (8 if rng.random() < 0.05 else 0)
                vec = index if rng.random() < 0.95 else VECTORS
                cmd = (op, index, base, logd, vec)
            elif r < 0.12:
                cqn = rng.randrange(NUM_CQS + 1)
                cq = model.cqs[cqn] if cqn < NUM_CQS else None
                if cq is not None and rng.random() < 0.9:
                    ci = (cq.ci + rng.randint(0, (cq.pi - cq.ci) % 65536)) % 65536
                else:
                    ci = rng.getrandbits(16)
                arm = rng.random() < 0.4
                db = (cqn, ci, arm, rng.randrange(4))
            if cpl is None and rng.random() < 0.3:
                cqn = rng.randrange(NUM_CQS + 1)
                cqe = rng.getrandbits(256)
                if rng.random() < 0.7:
                    cqe &= ~0xffffffff          # status SUCCESS mostly
                cpl = (cqn, cqe)
        dut.cmd_valid_i.value = cmd is not None
        if cmd:
            op, index, base, logd, vec = cmd
            dut.cmd_op_i.value = op
            dut.cmd_index_i.value = index
            dut.cmd_args_i.value = base | (logd << 64) | (vec << 80)
        dut.db_valid_i.value = db is not None
        if db:
            cqn, ci, arm, atype = db
            dut.db_cqn_i.value = cqn
            dut.db_data_i.value = ci | (int(arm) << 16) | (atype << 17)
        dut.cpl_valid_i.value = cpl is not None
        if cpl:
            dut.cpl_cqn_i.value = cpl[0]
            dut.cpl_cqe_i.value = cpl[1]
        dut.wr_ready_i.value = (not stimulus) or rng.random() < wr_p
        dut.irq_ready_i.value = (not stimulus) or rng.random() < irq_p
        return cmd, db

    async def step(stimulus=True, db_force=None):
        """One cycle: drive, let the outputs settle, update the model with what the edge takes."""
        nonlocal cpl, writes
        cmd, db = drive(stimulus)
        if db_force is not None:
            db = db_force
            cqn, ci, arm, atype = db
            dut.db_valid_i.value = 1
            dut.db_cqn_i.value = cqn
            dut.db_data_i.value = ci | (int(arm) << 16) | (atype << 17)
        await ReadOnly()
        if cmd:
            model.command(*cmd)
        if db:
            model.doorbell(db[0], db[1], db[2])
        if dut.wr_valid_o.value and dut.wr_ready_i.value:
            got = (int(dut.wr_addr_o.value), int(dut.wr_data_o.value))
            assert model.expected, f"seed {seed}: a record write nobody asked for: {got[0]:#x}"
            cq, cqn, addr, data = model.expected.pop(0)
            cq.inflight = False
            assert got == (addr, data), (f"seed {seed}: CQ {cqn} record: got addr {got[0]:#x} "
                                         f"data {got[1]:#x}, want {addr:#x} {data:#x}")
            writes += 1
        if dut.irq_valid_o.value and dut.irq_ready_i.value:
            v = int(dut.irq_vector_o.value)
            model.irqs[v] += 1
            assert model.irqs[v] <= model.arms[v], (
                f"seed {seed}: interrupt {model.irqs[v]} of vector {v} after {model.arms[v]} arms")
        if cpl is not None and dut.cpl_ready_o.value:
            model.accept(*cpl)
            cpl = None
        await RisingEdge(dut.clk_i)

    for _ in range(cycles):
        await step()
    # drain: no new stimulus (the held completion request still goes in), every write taken
    for _ in range(40):
        await step(stimulus=False)
    assert not model.expected, f"seed {seed}: {len(model.expected)} record(s) never written"

    # the arm rules, CQ by CQ, against the model's entries
    async def arm_and_count(cqn, arm_type, second_type=None):
        before = model.irqs[cqn]
        cq = model.cqs[cqn]
        await step(stimulus=False, db_force=(cqn, cq.ci, True, arm_type))
        if second_type is not None:
            await step(stimulus=False, db_force=(cqn, cq.ci, True, second_type))
        for _ in range(20):
            await step(stimulus=False)
        return model.irqs[cqn] - before

    checked = 0
    for cqn in range(NUM_CQS):
        if model.cqs[cqn] is None:
            continue
        for arm_type in (ARM_ANY, ARM_SOLICITED, ARM_ERRORS):
            want = model.satisfied(cqn, arm_type)
            got = await arm_and_count(cqn, arm_type)
            if want:
                assert got == 1, f"seed {seed}: CQ {cqn} arm {arm_type}: {got} interrupts, want 1"
                # level-based: armed again with the same entries, it fires again (C6)
                got = await arm_and_count(cqn, arm_type)
                assert got == 1, f"seed {seed}: CQ {cqn} re-arm {arm_type}: {got} interrupts, want 1"
            else:
                assert got == 0, f"seed {seed}: CQ {cqn} arm {arm_type} not satisfied, {got} interrupts"
                # disarm it: leave the CQ unarmed for the next check (a CQE write would fire it)
                await arm_and_count(cqn, ARM_ANY) if model.satisfied(cqn, ARM_ANY) else None
            checked += 1
        # the merge table: ERRORS then SOLICITED acts as SOLICITED (only when it would differ)
        if not model.satisfied(cqn, ARM_ERRORS) and model.satisfied(cqn, ARM_SOLICITED):
            got = await arm_and_count(cqn, ARM_ERRORS, ARM_SOLICITED)
            assert got == 1, f"seed {seed}: CQ {cqn} ERRORS+SOLICITED merge: {got} interrupts, want 1"
            checked += 1
    log.info("seed %d: %d records written and checked, %d arm checks, interrupts %s of arms %s",
             seed, writes, checked, model.irqs, model.arms)
    return writes


@cocotb.test()
async def random_traffic_against_reference_model(dut):
    """Seeded random commands, doorbells, completions and back-pressure; every write checked."""
    cocotb.start_soon(Clock(dut.clk_i, 4, units="ns").start())
    total = 0
    for seed in range(1, 9):
        total += await run_seed(dut, seed)
    assert total > 500, f"only {total} records written: the stimulus does not exercise the engine"
