# SPDX-License-Identifier: MIT
"""Module bench of nic_wqe_dispatch (rtl/core) for its error bypass, cycle by cycle
(tests/board/tb_wqe_dispatch.sv: the dispatcher with the real nic_qp_ctx, wired as nic_core
wires them; bench `wqe_dispatch` of run.py, with the RTL's assertions on).

The rule under test (nic_wqe_dispatch.sv's header and its "its QP" section): a WQE that fails
moves its QP to ERROR through the dispatcher's registered error (qp_err_o, in the cycle after
the WQE's finish), so nic_qp_ctx's state shows ERROR one cycle later still. The WQE the
dispatcher takes in the failure's finish cycle F is decided in F + 1, while nic_qp_ctx still
says RTS: the bypass makes it see its QP as ERROR when the failure was of its QP, so it completes
CANCELLED here (the dispatcher's completion register, CQE in F + 2) instead of going to the
transport (tp_valid_o in F + 1). A CQE-level test of the whole core cannot tell the two apart
(the transport would cancel the request too, with the same CQE); this bench watches the ports.

The bench plays the dispatcher's neighbours from their contracts (their file headers):
- nic_wqe_fetch: offers the scenario's WQEs in order (valid / ready), each as soon as the one
  before it was taken ("right behind") or from a given cycle on;
- nic_mem_op: its status is registered: mo_ready_i is 1 when `cur` held a WQE in the previous
  cycle that was not taken in it (so a memory operation is decided from the second cycle after
  its take on); mo_status_i / mo_ok_i are the previous cycle's checks of the held WQE (the
  scenario's status for a memory operation; INVALID_PARAMETER for any other WQE); an MR freed
  while a FastRegister's page list is read changes the status from the cycle after the page
  list starts, with mo_ready_i low for that one cycle (the table was written);
- nic_page_list: pl_done_i once pl_active_o was high for PL_CYCLES cycles, with pl_err_i /
  pl_bad_i when the scenario says the list failed;
- nic_transport and nic_cpl_arb: ready as the scenario says (always, by default), tp_busy_i 0;
- nic_csr: QP_CREATE and QP_CONNECT of the scenario's QPs (nic_qp_ctx: RTS) after a reset.

Every scenario records, per cycle, what the dispatcher does at its ports (takes, transport
offers and hand-overs, completions offered / taken with their fields, retires, errors, memory
writes, page-list starts) and every change of nic_qp_ctx's states, and compares that whole trace
with the one the rule gives, cycle for cycle (cycles counted from the first WQE's offer; F is the
memory operation's finish). A failure prints both, per differing cycle, with the reason each
expected event is due.
"""
import collections
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

import nicregs as nr

OP = nr.ENUM["wqe_op"]
ST = nr.ENUM["status"]
OPT = nr.ENUM["ndk_op_type"]
QPS = nr.ENUM["qp_state"]
CMD = nr.ENUM["cmd"]
ST_NAME = {v: k for k, v in ST.items()}
OPT_NAME = {v: k for k, v in OPT.items()}
QPS_NAME = {v: k for k, v in QPS.items()}
OP_NAME = {v: k for k, v in OP.items()}
MEM_OPS = (OP["FAST_REG"], OP["BIND"], OP["INVALIDATE"])
TP_OPS = (OP["SEND"], OP["SEND_INV"], OP["WRITE"], OP["READ"])
# the CQE's op_type of a WQE (docs/formats.md, ndk_op_type): NOP and the sends complete as SEND
OP_TYPE = {OP["FAST_REG"]: "FAST_REGISTER", OP["BIND"]: "BIND", OP["INVALIDATE"]: "INVALIDATE",
           OP["WRITE"]: "WRITE", OP["READ"]: "READ"}

NUM_QPS = 4
PL_CYCLES = 3                 # the page list's read, in cycles of pl_active_o
MTT_OFFSET = 0x11             # nic_mem_op's MTT range for the FastRegister (passed to the reader)
QA, QB = 1, 2                 # the QP of the memory operation, and another one
SQ_CQN = {QA: 3, QB: 0}
PD = {QA: 0x21, QB: 0x35}


def pack_args(word_name, **values):
    """The 256 command argument bits (ARG0..ARG7) of a [[words]] entry of formats/nic.toml."""
    v = 0
    for f in nr.WORD[word_name]["fields"]:
        x = values.get(f["name"], 0)
        assert x < (1 << f["bits"]), f"{word_name}.{f['name']} = {x:#x} does not fit"
        v |= x << (32 * f.get("arg", 0) + f["lsb"])
    return v


class Wqe:
    """One send-queue WQE as nic_wqe_fetch hands it over."""

    def __init__(self, rng, name, qpn, op, idx, offer_at=None, run=ST["SUCCESS"], commit=None,
                 pl_err=False, pl_bad=False):
        self.name, self.qpn, self.op, self.idx = name, qpn, op, idx
        self.offer_at = offer_at              # None: as soon as the WQE before it is taken
        self.run = run                        # memory op: nic_mem_op's status at its take
        self.commit = run if commit is None else commit   # ... and at a FastRegister's commit
        self.pl_err, self.pl_bad = pl_err, pl_bad
        if op == OP["FAST_REG"]:
            self.pl_addr = 0x7_0000_1000 + rng.randrange(64) * 8
            self.pl_count = rng.randint(1, 8)
            img = nr.pack("wqe_fast_reg", opcode=op, index=idx, mr_token=0x0305,
                          page_count=self.pl_count, page_list_addr=self.pl_addr,
                          length=self.pl_count * 4096, base_va=0x4000_0000, fbo=0)
            self.data = int.from_bytes(img, "little")
        else:
            img = nr.pack("wqe_hdr", opcode=op, index=idx, nsge=1 if op in TP_OPS else 0)
            # the rest of the 64 bytes: arbitrary, the transport gets all 512 bits
            self.data = int.from_bytes(img, "little") | (rng.getrandbits(448) << 64)

    @property
    def final(self):
        """A memory operation's status as the dispatcher completes it (a FastRegister that
        passes its checks: its page list's DMA error, then a misaligned page, then the checks
        at the commit)."""
        if self.op == OP["FAST_REG"] and self.run == ST["SUCCESS"]:
            if self.pl_err:
                return ST["INTERNAL_ERROR"]
            if self.pl_bad:
                return ST["INVALID_PARAMETER"]
            return self.commit
        return self.run

    def __repr__(self):
        return f"{self.name} ({OP_NAME[self.op]} QP {self.qpn} #{self.idx})"


class Expect:
    """The expected trace: per cycle, each event and why it is due then."""

    def __init__(self):
        self.ev = collections.defaultdict(dict)

    def at(self, cycle, event, why):
        assert event not in self.ev[cycle], f"event {event} expected twice at cycle {cycle}"
        self.ev[cycle][event] = why


def cqe(w, status, state="taken"):
    return ("cqe", w.name, ST_NAME[status], OP_TYPE.get(w.op, "SEND"), f"CQ {SQ_CQN[w.qpn]}", state)


async def start(dut):
    cocotb.start_soon(Clock(dut.clk_i, 10, units="ns").start())
    for sig in ("cmd_valid_i", "cmd_op_i", "cmd_index_i", "cmd_args_i", "wqe_valid_i", "wqe_data_i",
                "wqe_qpn_i", "wqe_idx_i", "wqe_dma_err_i", "wqe_stale_i", "tp_ready_i", "tp_busy_i",
                "rewind_busy_i", "cpl_ready_i", "mo_status_i", "mo_ok_i", "mo_ready_i",
                "mo_fr_mtt_offset_i", "pl_done_i", "pl_err_i", "pl_bad_i"):
        getattr(dut, sig).value = 0


def qp_states(dut):
    v = int(dut.qp_state_o.value)
    return [(v >> (2 * q)) & 3 for q in range(NUM_QPS)]


async def reset_and_connect(dut, qpns):
    """Reset, then QP_CREATE and QP_CONNECT each QP (nic_qp_ctx: RTS)."""
    await RisingEdge(dut.clk_i)
    dut.rst_i.value = 1
    dut.wqe_valid_i.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk_i)
    dut.rst_i.value = 0
    for q in qpns:
        for op, args in ((CMD["QP_CREATE"], pack_args("cmd_qp_create", sq_base=0x10_0000 * (q + 1), pd=PD[q],
                                                       sq_cqn=SQ_CQN[q], rq_cqn=SQ_CQN[q],
                                                       sq_log_depth=6, rq_log_depth=6)),
                         (CMD["QP_CONNECT"], pack_args("cmd_qp_connect", peer_mac=0x02_00_00_00_00_09,
                                                       peer_ipv4=0x0a00_0009, peer_qpn=0x100 + q, log_mtu=10,
                                                       outbound_read_limit=4, inbound_read_limit=4))):
            await RisingEdge(dut.clk_i)
            dut.cmd_valid_i.value, dut.cmd_op_i.value = 1, op
            dut.cmd_index_i.value, dut.cmd_args_i.value = q, args
    await RisingEdge(dut.clk_i)
    dut.cmd_valid_i.value = 0
    await ReadOnly()
    st = qp_states(dut)
    for q in qpns:
        assert st[q] == QPS["RTS"], f"setup: QP {q} is {QPS_NAME[st[q]]} after QP_CREATE and QP_CONNECT"


async def play(dut, wqes, cycles, tp_ready=lambda c: True, cpl_ready=lambda c: True):
    """Play the neighbours for `cycles` cycles; the trace: per cycle, the set of events."""
    queue = list(wqes)
    by_key = {(w.qpn, w.idx): w for w in wqes}
    by_data = {w.data: w for w in wqes}
    trace = []
    prev = None
    pl_cycles = 0                         # cycles pl_active_o was high since the reader's load
    pl_start = {}                         # WQE name -> the cycle its page list started
    states = qp_states(dut)

    def name(qpn, idx):
        w = by_key.get((qpn, idx))
        return w.name if w else f"?QP {qpn} #{idx}"

    for c in range(cycles):
        await RisingEdge(dut.clk_i)
        # nic_wqe_fetch: the head of the queue, once its time has come
        head = queue[0] if queue and (queue[0].offer_at is None or c >= queue[0].offer_at) else None
        dut.wqe_valid_i.value = head is not None
        dut.wqe_data_i.value = head.data if head else 0
        dut.wqe_qpn_i.value = head.qpn if head else 0
        dut.wqe_idx_i.value = head.idx if head else 0
        # nic_mem_op: the previous cycle's checks of the WQE held then
        held = by_data.get(prev["cur_wqe"]) if prev and prev["cur_valid"] else None
        ready = bool(prev and prev["cur_valid"] and not prev["load"])
        status = ST["INVALID_PARAMETER"]
        if held is not None and held.op in MEM_OPS:
            started = pl_start.get(held.name)
            status = held.commit if started is not None and c > started else held.run
            if started is not None and c == started + 1 and held.commit != held.run:
                ready = False             # its MR's entry was written in the cycle before
        dut.mo_ready_i.value = ready
        dut.mo_status_i.value = status
        dut.mo_ok_i.value = status == ST["SUCCESS"]
        dut.mo_fr_mtt_offset_i.value = MTT_OFFSET
        # nic_page_list: done after PL_CYCLES cycles of reading, with the list's errors
        done = pl_cycles >= PL_CYCLES
        dut.pl_done_i.value = done
        dut.pl_err_i.value = done and held is not None and held.pl_err
        dut.pl_bad_i.value = done and held is not None and held.pl_bad
        # nic_transport, nic_cpl_arb
        dut.tp_ready_i.value = bool(tp_ready(c))
        dut.cpl_ready_i.value = bool(cpl_ready(c))
        await ReadOnly()

        s = {k: int(getattr(dut, k + "_o").value) for k in (
            "wqe_ready", "tp_valid", "tp_qpn", "tp_idx", "qp_err", "qp_err_qpn", "retire", "retire_qpn",
            "retire_idx", "rewind", "rewind_qpn", "cpl_valid", "cpl_cqn", "cpl_status", "cpl_wqe_index",
            "cpl_qpn", "cpl_op_type", "cpl_rest_zero", "mo_load", "mo_cur_valid", "mo_qp_pd", "mo_exec",
            "mo_commit", "pl_load", "pl_active", "pl_addr", "pl_count", "pl_mtt_off")}
        s["cur_valid"], s["load"] = s["mo_cur_valid"], s["mo_load"]
        s["cur_wqe"] = int(dut.mo_cur_wqe_o.value)
        s["tp_ready"] = int(dut.tp_ready_i.value)
        s["cpl_ready"] = int(dut.cpl_ready_i.value)
        cur = by_data.get(s["cur_wqe"]) if s["cur_valid"] else None
        ev = set()
        if head is not None and s["wqe_ready"]:
            ev.add(("take", head.name))
        if s["tp_valid"]:
            w = by_key.get((s["tp_qpn"], s["tp_idx"]))
            ev.add(("tp", name(s["tp_qpn"], s["tp_idx"]), "taken" if s["tp_ready"] else "offered"))
            if w is None or int(dut.tp_data_o.value) != w.data:
                ev.add(("VIOLATION", "tp_data_o is not the WQE's 64 bytes"))
        if prev and prev["tp_valid"] and not prev["tp_ready"] and not (
                s["tp_valid"] and (s["tp_qpn"], s["tp_idx"]) == (prev["tp_qpn"], prev["tp_idx"])):
            ev.add(("VIOLATION", "tp_valid_o withdrawn before tp_ready_i",
                    name(prev["tp_qpn"], prev["tp_idx"])))
        if s["cpl_valid"]:
            ev.add(("cqe", name(s["cpl_qpn"], s["cpl_wqe_index"]),
                    ST_NAME.get(s["cpl_status"], hex(s["cpl_status"])),
                    OPT_NAME.get(s["cpl_op_type"], hex(s["cpl_op_type"])), f"CQ {s['cpl_cqn']}",
                    "taken" if s["cpl_ready"] else "held"))
            if not s["cpl_rest_zero"]:
                ev.add(("VIOLATION", "a CQE field besides status, wqe_index, qpn, op_type is not 0"))
        if s["retire"]:
            ev.add(("retire", name(s["retire_qpn"], s["retire_idx"])))
        if s["qp_err"]:
            ev.add(("qp_err", f"QP {s['qp_err_qpn']}"))
        if s["rewind"]:
            ev.add(("rewind", f"QP {s['rewind_qpn']}"))
        if s["mo_exec"]:
            ev.add(("exec", cur.name if cur else "?"))
        if s["mo_commit"]:
            ev.add(("commit", cur.name if cur else "?"))
        if s["pl_active"] and not (prev and prev["pl_active"]):
            ev.add(("page_list", cur.name if cur else "?"))
            if cur is None or (s["pl_addr"], s["pl_count"], s["pl_mtt_off"]) != (
                    cur.pl_addr, cur.pl_count, MTT_OFFSET):
                ev.add(("VIOLATION", "the page list's address, count or MTT offset is not the WQE's"))
        if cur is not None and s["mo_qp_pd"] != PD[cur.qpn]:
            ev.add(("VIOLATION", f"mo_qp_pd_o {s['mo_qp_pd']:#x} is not QP {cur.qpn}'s PD"))
        now = qp_states(dut)
        for q in range(NUM_QPS):
            if now[q] != states[q]:
                ev.add(("ctx", f"QP {q}", QPS_NAME[now[q]]))
        states = now
        trace.append(ev)
        # the neighbours' state for the next cycle
        if s["pl_load"]:
            pl_cycles = 0
        elif s["pl_active"]:
            pl_cycles += 1
            if cur is not None:
                pl_start.setdefault(cur.name, c)
        if head is not None and s["wqe_ready"]:
            queue.pop(0)
        prev = s
    return trace


def check(trace, x, label, f=None):
    """None when the trace equals the expected one in every cycle, else what differs."""
    bad = []
    for c, got in enumerate(trace):
        want = x.ev.get(c, {})
        if got != set(want):
            rel = f" = F{c - f:+d}" if f is not None else ""
            lines = [f"  cycle {c}{rel}:"]
            lines += [f"    missing    {e}   ({want[e]})" for e in sorted(set(want) - got)]
            lines += [f"    unexpected {e}" for e in sorted(got - set(want))]
            bad.append("\n".join(lines))
    beyond = sorted(c for c in x.ev if c >= len(trace))
    if beyond:
        bad.append(f"  events expected after the scenario's last cycle {len(trace) - 1}: cycles {beyond}")
    if not bad:
        return None
    full = "\n".join(f"  {c:3d}{'' if f is None else f' F{c - f:+d}':>5}  {sorted(ev)}"
                     for c, ev in enumerate(trace) if ev)
    return (f"{label}: the dispatcher's trace differs from the rule's in {len(bad)} cycle(s) "
            f"(cycles from the first WQE's offer; F = the memory operation's finish)\n"
            + "\n".join(bad) + f"\n  the whole trace:\n{full}")


class Results:
    """A test's scenarios: every one runs; the test fails at the end with what failed."""

    def __init__(self, test):
        self.test, self.ran, self.failed = test, [], []

    def add(self, label, error):
        self.ran.append(label)
        if error:
            self.failed.append((label, error))

    def done(self):
        if self.failed:
            shown = "\n\n".join(e for _, e in self.failed[:2])
            names = "\n".join(f"  - {label}" for label, _ in self.failed)
            raise AssertionError(
                f"{len(self.failed)} of {len(self.ran)} scenarios failed:\n{names}\n\n{shown}"
                + ("\n\n(the others' traces left out)" if len(self.failed) > 2 else "")
                + f"\n  rerun: make test-board TESTBENCH=wqe_dispatch TESTCASE={self.test}")
        cocotb.log.info(f"{self.test}: {len(self.ran)} scenarios passed")


# ---- the memory operations ---------------------------------------------------------------------
# (label, opcode, status at the checks, keyword arguments of Wqe)
FAILING = [
    ("Bind refused at its checks", OP["BIND"], ST["ACCESS_VIOLATION"], {}),
    ("Invalidate refused at its checks", OP["INVALIDATE"], ST["ACCESS_VIOLATION"], {}),
    ("FastRegister refused at its checks", OP["FAST_REG"], ST["INVALID_PARAMETER"], {}),
    ("FastRegister whose page list read fails", OP["FAST_REG"], ST["SUCCESS"], {"pl_err": True}),
    ("FastRegister whose page list has a misaligned page", OP["FAST_REG"], ST["SUCCESS"], {"pl_bad": True}),
    ("FastRegister whose MR is freed during its page list", OP["FAST_REG"], ST["SUCCESS"],
     {"commit": ST["ACCESS_VIOLATION"]}),
]
SUCCEEDING = [
    ("Bind", OP["BIND"], ST["SUCCESS"], {}),
    ("Invalidate", OP["INVALIDATE"], ST["SUCCESS"], {}),
    ("FastRegister", OP["FAST_REG"], ST["SUCCESS"], {}),
]
BEHIND = [OP["SEND"], OP["SEND_INV"], OP["WRITE"], OP["READ"], OP["NOP"]]


def memop_expect(x, m):
    """M's own events (taken in cycle 0 by an empty dispatcher); returns F, its finish cycle."""
    x.at(0, ("take", m.name), "the first WQE, taken by the empty dispatcher")
    if m.op == OP["FAST_REG"] and m.run == ST["SUCCESS"]:
        # checks current in cycle 2 (mo_ready_i: the second cycle after the take) and passed: the
        # page list is read from cycle 3 (PL_CYCLES cycles, pl_done_i in the next), commit after
        x.at(3, ("page_list", m.name), "the FastRegister passed its checks in cycle 2")
        f = 3 + PL_CYCLES + 1
        why = f"the commit: the cycle after pl_done_i (cycle {f - 1})"
    else:
        # a memory operation is decided when nic_mem_op's registered checks are current
        f = 2
        why = "decided when mo_ready_i first says its checks are current (2 cycles after its take)"
    ok = m.final == ST["SUCCESS"]
    if ok:
        x.at(f, ("commit" if m.op == OP["FAST_REG"] else "exec", m.name),
             "the write of a successful one, at " + why)
    x.at(f + 1, cqe(m, m.final), "M's completion, registered: the cycle after its finish, " + why)
    x.at(f + 1, ("retire", m.name), "M's retire, registered: the cycle after its finish")
    if not ok:
        x.at(f + 1, ("qp_err", f"QP {m.qpn}"), "M failed: its error, registered (F + 1)")
        x.at(f + 2, ("ctx", f"QP {m.qpn}", "ERROR"), "nic_qp_ctx takes the error in F + 1: ERROR from F + 2")
    return f


def behind_expect(x, w, f, path):
    """W, offered right behind M, is taken at M's finish F and decided in F + 1: path 'cancel'
    (completed CANCELLED by the dispatcher), 'transport' (handed to the transport) or 'success'
    (a NOP completed SUCCESS)."""
    x.at(f, ("take", w.name), "offered since M's take: taken in M's finish cycle F")
    if path == "cancel":
        x.at(f + 2, cqe(w, ST["CANCELLED"]),
             "decided in F + 1, when only the bypass says its QP is in ERROR: CANCELLED here, CQE in F + 2")
        x.at(f + 2, ("retire", w.name), "retired by the dispatcher, registered (F + 2)")
        x.at(f + 2, ("qp_err", f"QP {w.qpn}"), "its CANCELLED completion is a failure too (F + 2)")
    elif path == "transport":
        x.at(f + 1, ("tp", w.name, "taken"), "its QP is RTS: handed to the transport in F + 1")
        x.at(f + 2, ("retire", w.name), "retired as the transport takes it, registered (F + 2)")
    else:
        x.at(f + 1, ("exec", w.name), "mo_exec_o comes with a successful NOP's finish too "
             "(nic_mem_op writes nothing for it)")
        x.at(f + 2, cqe(w, ST["SUCCESS"]), "a NOP of an RTS QP: SUCCESS, CQE in F + 2")
        x.at(f + 2, ("retire", w.name), "retired by the dispatcher, registered (F + 2)")


async def one_behind(dut, res, rng, kind, op2, qp2, path):
    label, op, run, kw = kind
    m = Wqe(rng, "M", QA, op, 5, run=run, **kw)
    w = Wqe(rng, "W", qp2, op2, 6 if qp2 == QA else 12)
    await reset_and_connect(dut, [QA, QB])
    x = Expect()
    f = memop_expect(x, m)
    behind_expect(x, w, f, path)
    trace = await play(dut, [m, w], f + 6)
    what = f"{label}, then {w!r} right behind"
    res.add(what, check(trace, x, what, f))


@cocotb.test()
async def a_request_right_behind_a_failed_memory_operation_is_cancelled_through_the_bypass(dut):
    """Each failing memory operation of QP A, then a WQE of QP A right behind it (SEND, SEND_INV,
    WRITE, READ, NOP): taken at F, decided at F + 1 while nic_qp_ctx still says RTS; it must never
    reach tp_valid_o, and the dispatcher completes it CANCELLED (CQE, retire and error at F + 2)."""
    rng = random.Random(1)
    res = Results("a_request_right_behind_a_failed_memory_operation_is_cancelled_through_the_bypass")
    await start(dut)
    for kind in FAILING:
        for op2 in BEHIND:
            await one_behind(dut, res, rng, kind, op2, QA, "cancel")
    res.done()


@cocotb.test()
async def a_request_right_behind_a_successful_memory_operation_goes_on(dut):
    """The positive counterpart: the same sequences with the memory operation succeeding. The
    transport WQE behind it is handed to the transport at F + 1 (a NOP completes SUCCESS, CQE at
    F + 2); nothing is cancelled, no error."""
    rng = random.Random(2)
    res = Results("a_request_right_behind_a_successful_memory_operation_goes_on")
    await start(dut)
    for kind in SUCCEEDING:
        for op2 in BEHIND:
            await one_behind(dut, res, rng, kind, op2, QA, "transport" if op2 in TP_OPS else "success")
    res.done()


@cocotb.test()
async def a_request_of_another_qp_right_behind_a_failed_memory_operation_is_not_affected(dut):
    """Each failing memory operation of QP A, then a WQE of QP B right behind it: the bypass is of
    A only: B's transport WQE goes to the transport at F + 1, B's NOP completes SUCCESS at F + 2;
    QP B stays RTS."""
    rng = random.Random(3)
    res = Results("a_request_of_another_qp_right_behind_a_failed_memory_operation_is_not_affected")
    await start(dut)
    for kind in FAILING:
        for op2 in BEHIND:
            await one_behind(dut, res, rng, kind, op2, QB, "transport" if op2 in TP_OPS else "success")
    res.done()


@cocotb.test()
async def the_failed_qp_is_in_error_for_every_later_request_without_a_gap(dut):
    """A train right behind a failed Bind of QP A: A's SEND (F + 1: the bypass), A's WRITE (F + 2:
    nic_qp_ctx's ERROR, and the SEND's own error through the bypass), B's SEND (F + 3: to the
    transport) and A's NOP (F + 4): one WQE per cycle, each of A cancelled by the dispatcher. Then
    a WQE of A offered only after the failure (taken at F + 1 or F + 2, decided when nic_qp_ctx
    already says ERROR): cancelled as well, so the bypass and the context leave no cycle uncovered."""
    rng = random.Random(4)
    res = Results("the_failed_qp_is_in_error_for_every_later_request_without_a_gap")
    await start(dut)
    m = Wqe(rng, "M", QA, OP["BIND"], 5, run=ST["ACCESS_VIOLATION"])
    w2 = Wqe(rng, "W2", QA, OP["SEND"], 6)
    w3 = Wqe(rng, "W3", QA, OP["WRITE"], 7)
    w4 = Wqe(rng, "W4", QB, OP["SEND"], 12)
    w5 = Wqe(rng, "W5", QA, OP["NOP"], 8)
    await reset_and_connect(dut, [QA, QB])
    x = Expect()
    f = memop_expect(x, m)
    for k, w in enumerate((w2, w3, w4, w5)):
        x.at(f + k, ("take", w.name), f"one WQE per cycle behind M: taken at F + {k}")
    for k, w in ((1, w2), (2, w3), (4, w5)):
        x.at(f + k + 1, cqe(w, ST["CANCELLED"]), f"QP A is in ERROR at F + {k} "
             + ("(only the bypass knows)" if k == 1 else "(nic_qp_ctx)") + ": CANCELLED by the dispatcher")
        x.at(f + k + 1, ("retire", w.name), "retired by the dispatcher, registered")
        x.at(f + k + 1, ("qp_err", f"QP {QA}"), "its CANCELLED completion is a failure too")
    x.at(f + 3, ("tp", w4.name, "taken"), "QP B is RTS: to the transport at F + 3")
    x.at(f + 4, ("retire", w4.name), "retired as the transport takes it")
    trace = await play(dut, [m, w2, w3, w4, w5], f + 8)
    what = "a failed Bind of QP A, then A SEND, A WRITE, B SEND, A NOP"
    res.add(what, check(trace, x, what, f))

    for late in (1, 2):
        m = Wqe(rng, "M", QA, OP["INVALIDATE"], 5, run=ST["ACCESS_VIOLATION"])
        w = Wqe(rng, "W", QA, OP["SEND"], 6, offer_at=2 + late)
        await reset_and_connect(dut, [QA, QB])
        x = Expect()
        f = memop_expect(x, m)
        x.at(f + late, ("take", w.name), f"offered from F + {late} on, to an empty dispatcher")
        x.at(f + late + 2, cqe(w, ST["CANCELLED"]),
             f"decided at F + {late + 1}, when nic_qp_ctx says ERROR: CANCELLED by the dispatcher")
        x.at(f + late + 2, ("retire", w.name), "retired by the dispatcher, registered")
        x.at(f + late + 2, ("qp_err", f"QP {QA}"), "its CANCELLED completion is a failure too")
        trace = await play(dut, [m, w], f + late + 6)
        what = f"a failed Invalidate of QP A, then A SEND offered from F + {late}"
        res.add(what, check(trace, x, what, f))
    res.done()


@cocotb.test()
async def a_request_behind_a_failure_that_must_wait_is_never_offered_to_the_transport(dut):
    """The WQE right behind a failed Invalidate of its QP, with back-pressure in F + 1: the
    completion port not ready in F + 1 and F + 2 (M's CQE held): it waits in `cur` (not offered to
    the transport in F + 1, which the bypass decides) and completes CANCELLED when the port frees
    (CQE at F + 4); the transport not ready from F + 1 to F + 3: it is never offered there, and
    is cancelled at F + 1 as without back-pressure (CQE at F + 2)."""
    rng = random.Random(5)
    res = Results("a_request_behind_a_failure_that_must_wait_is_never_offered_to_the_transport")
    await start(dut)
    f = 2
    m = Wqe(rng, "M", QA, OP["INVALIDATE"], 5, run=ST["ACCESS_VIOLATION"])
    w = Wqe(rng, "W", QA, OP["SEND"], 6)
    await reset_and_connect(dut, [QA, QB])
    x = Expect()
    assert memop_expect(x, m) == f
    x.ev[f + 1].pop(cqe(m, m.run))
    x.at(f + 1, cqe(m, m.run, "held"), "M's completion, offered at F + 1, not taken")
    x.at(f + 2, cqe(m, m.run, "held"), "... nor at F + 2")
    x.at(f + 3, cqe(m, m.run), "... taken at F + 3")
    x.at(f, ("take", w.name), "offered since M's take: taken in M's finish cycle F")
    x.at(f + 4, cqe(w, ST["CANCELLED"]), "waited for the completion register; CANCELLED, CQE at F + 4")
    x.at(f + 4, ("retire", w.name), "retired by the dispatcher, registered")
    x.at(f + 4, ("qp_err", f"QP {QA}"), "its CANCELLED completion is a failure too")
    trace = await play(dut, [m, w], f + 8, cpl_ready=lambda c: c not in (f + 1, f + 2))
    what = "a failed Invalidate of QP A, A SEND behind it, completions held in F + 1 and F + 2"
    res.add(what, check(trace, x, what, f))

    m = Wqe(rng, "M", QA, OP["INVALIDATE"], 5, run=ST["ACCESS_VIOLATION"])
    w = Wqe(rng, "W", QA, OP["SEND"], 6)
    await reset_and_connect(dut, [QA, QB])
    x = Expect()
    memop_expect(x, m)
    behind_expect(x, w, f, "cancel")
    trace = await play(dut, [m, w], f + 8, tp_ready=lambda c: c not in (f + 1, f + 2, f + 3))
    what = "a failed Invalidate of QP A, A SEND behind it, the transport not ready from F + 1 to F + 3"
    res.add(what, check(trace, x, what, f))
    res.done()
