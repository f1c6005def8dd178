# SPDX-License-Identifier: MIT
"""Module bench of the MR/MW table (nic_mr_table with nic_mem_op and nic_xl_arb, wired as
nic_core wires them: tests/board/tb_mr_table.sv) with a reference model (a scoreboard), seeded
random stimulus and random back-pressure.

Built by run.py as bench `mr_table` (8 entries, 32 MTT pages) with the RTL's own assertions on.
Each seed drives, cycle by cycle:
- the host's commands: MR_INIT (MRs and MWs, PDs 1..3, with and without remote access, MTT ranges
  inside the MTT, up to its top, and beyond it), MR_FREE, and malformed ones (an index beyond
  the table, another command's opcode);
- the dispatcher: it takes a memory-operation WQE (FastRegister, Bind, Invalidate; right and
  wrong tokens, keys and PDs, ranges inside, at the edges of and outside their MR, regions at the
  top of the 64-bit address space), holds it a random number of cycles (its back-pressure: a
  completion not taken, earlier WQEs in the transport) and then, in a cycle in which nic_mem_op's
  registered checks are current (ready_o: not in the cycle after the take, nor after a cycle
  that wrote an entry they read: checked in every cycle), finishes it, writing (exec /
  commit) when the status is SUCCESS; a FastRegister first loads its page list into the MTT,
  one entry per cycle at random gaps, and sometimes fails there (no commit, as on a DMA error);
- three translation clients on the arbiter (client 0 may also ask remote invalidations), each
  holding, changing or dropping a request that is not granted, lookups of live and dead tokens,
  right and wrong PDs, every access combination, ranges at the start, the end, past the end,
  of length 0 and crossing 2^64.
Commands, invalidations and registrations race the lookups in flight and the held WQE.

The reference model is written from the ports' contracts (nic_mr_table's and nic_mem_op's file
headers, docs/transport.md), not from the RTL: entry states FREE / INVALID / VALID, the init
fields of MR_INIT, the registration of FastRegister / Bind. It decides in every cycle in which
ready_o is due the status nic_mem_op gives the held WQE, and for every granted lookup its answer, taken against the table
as it is in the cycle after the grant (the check; all writes of earlier cycles seen, none of that
cycle): SUCCESS with the page frame of va and va's offset in its page, or ACCESS_VIOLATION with
frame 0; a remote invalidation SUCCESS only on a VALID entry with that key and PD, and not when
nic_mem_op writes that entry in that cycle (exactly one of two invalidations wins). The writes of
a cycle land in the order nic_mem_op, the remote invalidation, the command (a command wins).
Every answer is checked (status, frame, offset, which client it goes to, that it comes two
cycles after the grant), every grant (the lowest requesting client), and the table's state
vector against the model's states in every cycle.
"""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

NUM_MRS, MTT = 8, 32
CMD_MR_INIT, CMD_MR_FREE, CMD_OTHER = 0x6, 0x7, 0x4
FREE, INVALID, VALID = 0, 1, 2
OP_FAST_REG, OP_BIND, OP_INVALIDATE = 0x5, 0x6, 0x7
SUCCESS, ACCESS_VIOLATION = 0x0, 0xC0000005
INVALID_PARAMETER, INVALID_DEVICE_STATE = 0xC000000D, 0xC0000184
REMOTE_READ, LOCAL_WRITE, REMOTE_WRITE = 0x8, 0x10, 0x30
ACCESS_BITS = REMOTE_READ | LOCAL_WRITE | REMOTE_WRITE
TOP = 1 << 64


def token(index, key):
    return ((index & 0xffffff) << 8) | (key & 0xff)


class Entry:
    def __init__(self):
        self.state = FREE
        self.init = None      # (pd, is_mw, remote_ok, max_pages, mtt_offset) once MR_INIT
        self.reg = None       # dict of the registration fields once registered / bound


class Model:
    def __init__(self):
        self.e = [Entry() for _ in range(NUM_MRS)]
        self.mtt = [None] * MTT

    def entry(self, index):
        return self.e[index] if index < NUM_MRS else None

    # ---- nic_mem_op's checks (its header) ---------------------------------------------------------
    def memop_status(self, w, pd, moved=False):
        """moved: a command wrote the WQE's (port A) entry since the WQE was taken."""
        op = w["op"]
        if op == OP_FAST_REG:
            idx, key = w["mr"] >> 8, w["mr"] & 0xff
            e = self.entry(idx)
            if moved or e is None or e.state == FREE or e.init[1] or e.init[0] != pd:
                return ACCESS_VIOLATION
            if e.state != INVALID:
                return INVALID_DEVICE_STATE
            pd_, is_mw, remote_ok, max_pages, mtt_off = e.init
            n, fbo = w["pages"], w["fbo"]
            if not (0 < n <= max_pages and fbo < 4096 and w["length"] <= n * 4096 - fbo
                    and w["list"] % 8 == 0 and mtt_off + n <= MTT):
                return INVALID_PARAMETER
            if w["flags"] & (REMOTE_READ | (REMOTE_WRITE & ~LOCAL_WRITE)) and not remote_ok:
                return ACCESS_VIOLATION
            return SUCCESS
        if op == OP_BIND:
            mi, mk = w["mr"] >> 8, w["mr"] & 0xff
            wi = w["mw"] >> 8
            mr, mw = self.entry(mi), self.entry(wi)
            mr_ok = (mr is not None and mr.state == VALID and not mr.init[1] and mr.reg["key"] == mk
                     and mr.init[0] == pd)
            mw_ok = mw is not None and mw.state != FREE and mw.init[1] and mw.init[0] == pd
            if not (mr_ok and mw_ok):
                return ACCESS_VIOLATION
            if mw.state != INVALID:
                return INVALID_DEVICE_STATE
            r = mr.reg
            if not (w["va"] >= r["base"] and w["va"] + w["length"] <= r["base"] + r["length"]):
                return ACCESS_VIOLATION
            if w["flags"] & (REMOTE_WRITE & ~LOCAL_WRITE) and not r["access"] & LOCAL_WRITE:
                return ACCESS_VIOLATION
            return SUCCESS
        if op == OP_INVALIDATE:
            idx, key = w["tok"] >> 8, w["tok"] & 0xff
            e = self.entry(idx)
            if e is not None and e.state == VALID and e.reg["key"] == key and e.init[0] == pd:
                return SUCCESS
            return ACCESS_VIOLATION
        return INVALID_PARAMETER

    def memop_write(self, w, mtt_base=None):
        """The entry nic_mem_op writes and the write itself (applied later in the cycle)."""
        if w["op"] == OP_BIND:
            mi, wi = w["mr"] >> 8, w["mw"] >> 8
            r = self.e[mi].reg
            reg = {"key": w["mw"] & 0xff, "base": w["va"], "length": w["length"],
                   "off": (w["va"] - r["base"] + r["off"]) % TOP, "access": w["flags"] & ACCESS_BITS,
                   "mtt_base": r["mtt_base"], "parent": mi}
            return wi, VALID, reg
        if w["op"] == OP_INVALIDATE:
            return w["tok"] >> 8, INVALID, None
        idx = w["mr"] >> 8
        reg = {"key": w["mr"] & 0xff, "base": w["base"], "length": w["length"], "off": w["fbo"],
               "access": w["flags"] & ACCESS_BITS, "mtt_base": mtt_base, "parent": idx}
        return idx, VALID, reg

    # ---- the translation port (nic_mr_table's header) ----------------------------------------------
    def lookup(self, req, memop_idx):
        """The answer to a request checked now: (status, pfn or None, page offset or None)."""
        idx, key = req["tok"] >> 8, req["tok"] & 0xff
        e = self.entry(idx)
        live = (e is not None and e.state == VALID and e.reg["key"] == key and e.init[0] == req["pd"])
        if req["inv"]:
            ok = live and memop_idx != idx
            return (SUCCESS if ok else ACCESS_VIOLATION), None, None, (idx if ok else None)
        if not live:
            return ACCESS_VIOLATION, 0, None, None
        r = e.reg
        need = req["access"] & ACCESS_BITS
        if need & ~r["access"]:
            return ACCESS_VIOLATION, 0, None, None
        # [va, va + len) inside the region; length 0 as one byte (the page of va is the region's)
        if not (req["va"] >= r["base"] and req["va"] + max(req["len"], 1) <= r["base"] + r["length"]):
            return ACCESS_VIOLATION, 0, None, None
        if e.init[1] and self.e[r["parent"]].state != VALID:
            return ACCESS_VIOLATION, 0, None, None
        off = req["va"] - r["base"] + r["off"]
        page = r["mtt_base"] + (off >> 12)
        assert page < MTT, f"the model's successful lookup {req} lies beyond the MTT"
        return SUCCESS, self.mtt[page], off & 0xfff, None


def a_index(w):
    """The entry nic_mem_op reads through port A for WQE w (its MR, or the token invalidated)."""
    return (w["tok"] if w["op"] == OP_INVALIDATE else w["mr"]) >> 8


def encode_wqe(w):
    v = w["op"] | (w.get("flags", 0) << 16)
    if w["op"] == OP_FAST_REG:
        v |= (w["mr"] << 64) | (w["pages"] << 96) | (w["list"] << 128) | (w["length"] << 192)
        v |= (w["base"] << 256) | (w["fbo"] << 320)
    elif w["op"] == OP_BIND:
        v |= (w["mr"] << 64) | (w["mw"] << 96) | (w["va"] << 128) | (w["length"] << 192)
    else:
        v |= w["tok"] << 64
    return v


async def run_seed(dut, seed, cycles=3000):
    rng = random.Random(seed)
    m = Model()
    keys = [0] * NUM_MRS           # the key each entry was last given (what a driver would use)
    stats = {"lookups": 0, "ok": 0, "inv_ok": 0, "memops": {}, "cmds": 0, "commits refused": 0}
    # the races and corners the bench must reach (checked over all seeds)
    races = dict.fromkeys(["command at the lookup's grant", "command at the lookup's check",
                           "local write at the lookup's grant", "local write at the lookup's check",
                           "remote and local invalidation of one entry at once",
                           "command during a FastRegister's page list",
                           "length 0 at a region's end", "region ending at or past 2^64 granted",
                           "MW refused for its parent"], 0)

    for sig in ("cmd_valid_i", "load_i", "cur_valid_i", "exec_i", "commit_i", "mtt_we_i",
                "xc_req_i", "xc_inv0_i"):
        getattr(dut, sig).value = 0
    for sig in ("cmd_op_i", "cmd_index_i", "cmd_args_i", "head_wqe_i", "cur_wqe_i", "qp_pd_i",
                "mtt_base_i", "mtt_idx_i", "mtt_pfn_i", "xc_token_i", "xc_va_i", "xc_len_i",
                "xc_pd_i", "xc_access_i"):
        getattr(dut, sig).value = 0
    dut.rst_i.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk_i)
    dut.rst_i.value = 0

    finish_p = rng.choice([0.2, 0.5, 1.0])     # the dispatcher's back-pressure on itself
    give_up_p = rng.choice([0.0, 0.1, 0.3])    # a client not granted drops / changes its request
    req_p = rng.choice([0.2, 0.5, 0.9])
    cmd_p = rng.choice([0.01, 0.03])

    # ---- stimulus makers ----------------------------------------------------------------------------
    def rand_va(r):
        """A va around entry registration r (or anywhere)."""
        if r is None or rng.random() < 0.1:
            return rng.choice([0, rng.getrandbits(64), TOP - 1, TOP - 4096])
        end = r["base"] + r["length"]
        inside = r["base"] + rng.randint(0, max(r["length"], 1))
        return rng.choice([r["base"], inside, inside, inside, end, end - 1, r["base"] - 1,
                           end + 1]) % TOP

    def rand_len(r, va):
        if r is None:
            return rng.choice([0, 1, 4096, rng.getrandbits(32)])
        left = r["base"] + r["length"] - va
        return rng.choice([0, 1, 64, max(left, 0), max(left, 0) + 1, max(left - 1, 0),
                           rng.randint(0, 9000)]) & 0xffffffff

    def rand_idx(want=None):
        """An entry index: with want, mostly one the model has in that (state, is_mw) shape."""
        if want is not None and rng.random() < 0.75:
            fits = [i for i, e in enumerate(m.e) if e.init is not None and want(e)]
            if fits:
                return rng.choice(fits)
        return rng.choice(list(range(NUM_MRS)) * 4 + [NUM_MRS, 0xfff, 0xffffff])

    def rand_key(idx):
        k = keys[idx] if idx < NUM_MRS else 0
        return k if rng.random() < 0.85 else rng.getrandbits(8)

    def rand_pd(idx):
        e = m.entry(idx)
        if e is not None and e.init is not None and rng.random() < 0.9:
            return e.init[0]
        return rng.randint(1, 3)

    def make_memop():
        op = rng.choice([OP_FAST_REG, OP_FAST_REG, OP_BIND, OP_BIND, OP_INVALIDATE])
        if op == OP_FAST_REG:
            idx = rand_idx(lambda e: e.state == INVALID and not e.init[1])
            if idx < NUM_MRS and rng.random() < 0.9:
                keys[idx] = (keys[idx] + 1) & 0xff     # a driver gives each registration a new key
            n = rng.choice([1, 1, 2, 3, 4, 0, 5])
            fbo = rng.choice([0, 0, 8, 4095, 4096])
            length = rng.choice([n * 4096 - fbo, n * 4096 - fbo, max(n * 4096 - fbo - rng.randint(0, 5000), 0),
                                 n * 4096 - fbo + 1, 0]) % TOP
            if rng.random() < 0.2:
                base = TOP - rng.randint(1, 3 * 4096)    # at (or across) the top of the space
            else:
                base = rng.randrange(0, 1 << 48, 4096) + rng.choice([0, fbo])
            return {"op": op, "flags": rng.choice([0, REMOTE_READ, LOCAL_WRITE, REMOTE_WRITE,
                                                   REMOTE_READ | REMOTE_WRITE, REMOTE_READ | REMOTE_WRITE,
                                                   0x1]),
                    "mr": token(idx, keys[idx] if idx < NUM_MRS else 1), "pages": n,
                    "list": rng.choice([0x10000, 0x10000, 0x10008, 0x10004]), "length": length,
                    "base": base % TOP, "fbo": fbo}, rand_pd(idx)
        if op == OP_BIND:
            mi = rand_idx(lambda e: e.state == VALID and not e.init[1])
            mr = m.entry(mi)
            pd = rand_pd(mi)
            wi = rand_idx(lambda e: e.state == INVALID and e.init[1] and e.init[0] == pd)
            r = mr.reg if mr is not None and mr.state == VALID else None
            va = rand_va(r)
            if wi < NUM_MRS and rng.random() < 0.9:
                keys[wi] = (keys[wi] + 1) & 0xff
            return {"op": op, "flags": rng.choice([REMOTE_READ, REMOTE_WRITE, 0, LOCAL_WRITE,
                                                   REMOTE_READ | REMOTE_WRITE]),
                    "mr": token(mi, rand_key(mi)), "mw": token(wi, keys[wi] if wi < NUM_MRS else 2),
                    "va": va, "length": rand_len(r, va)}, pd
        idx = rand_idx(lambda e: e.state == VALID)
        return {"op": op, "tok": token(idx, rand_key(idx))}, rand_pd(idx)

    def make_request(client):
        if (client == 0 and cur is not None and cur["w"]["op"] == OP_INVALIDATE
                and rng.random() < 0.3):
            # the race of the two invalidations: this one is checked as the held WQE executes
            return {"tok": cur["w"]["tok"], "va": 0, "len": 0, "pd": cur["pd"], "access": 0,
                    "inv": True, "client": 0}
        idx = rand_idx(lambda e: e.state == VALID)
        e = m.entry(idx)
        r = e.reg if e is not None and e.state == VALID else None
        va = rand_va(r)
        granted = r["access"] if r is not None else 0
        access = rng.choice([0, REMOTE_READ, LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ | REMOTE_WRITE,
                             granted, granted])
        return {"tok": token(idx, rand_key(idx)), "va": va, "len": rand_len(r, va),
                "pd": rand_pd(idx), "access": access,
                "inv": client == 0 and rng.random() < 0.05, "client": client}

    def make_command(setup=None):
        r = 1.0 if setup is not None else rng.random()
        idx = setup if setup is not None else rand_idx() if rng.random() < 0.9 else rng.getrandbits(16)
        if r < 0.1:
            return (CMD_OTHER, idx & 0xffff, rng.getrandbits(256))
        if r < 0.25:
            return (CMD_MR_FREE, idx & 0xffff, 0)
        pd = rng.choice([1, 1, 2, 2, 3])
        is_mw = rng.random() < 0.35
        remote_ok = rng.random() < 0.7
        slot = idx % NUM_MRS
        mtt_off, max_pages = slot * 4, 4                 # disjoint ranges; the last one at the top
        if rng.random() < 0.1:
            mtt_off, max_pages = MTT - 2, 4              # its range runs past the MTT's end
        args = pd | (max_pages << 32) | (mtt_off << 64) | (int(remote_ok) << 96) | (int(is_mw) << 97)
        return (CMD_MR_INIT, idx & 0xffff, args)

    # ---- per-cycle state ------------------------------------------------------------------------------
    clients = [None, None, None]    # each client's request offered (held until granted)
    stage1 = None                   # the request granted last cycle: checked this cycle
    answer = None                   # the answer decided last cycle: on the port this cycle
    cur = None                      # the dispatcher's WQE: (wqe, pd, phase, ...)
    loaded = None                   # the WQE loaded at this cycle's edge
    pl = None                       # the page list being loaded: [next n, count, mtt_off, fail]

    for cyc in range(cycles + 40):
        stim = cyc < cycles
        # ---- decide this cycle's inputs (from the model: the bench's dispatcher acts on what the
        # model says nic_mem_op answers, and the answer is checked against the RTL below)
        cmd = make_command() if stim and rng.random() < cmd_p else None
        if cyc < NUM_MRS:
            cmd = make_command(setup=cyc)     # every entry initialised first
        elif stim and cur is not None and cur["phase"] == "pl" and rng.random() < 0.03:
            # the MR freed, or freed and made again for the same PD, while its page list loads
            idx = cur["w"]["mr"] >> 8
            if rng.random() < 0.5:
                cmd = (CMD_MR_FREE, idx, 0)
            else:
                pd_, _, remote_ok, max_pages, mtt_off = m.e[idx].init
                cmd = (CMD_MR_INIT, idx, pd_ | (max_pages << 32) | (mtt_off << 64) | (remote_ok << 96))
        check_status = cur is not None and cur["phase"] == "run" and cur["ready"]
        exec_w = commit_w = None
        finishing = False
        mtt_w = None
        # a remote invalidation of the held Invalidate's token checked now: finish it now, mostly
        race_inv = (cur is not None and cur["phase"] == "run" and stage1 is not None and stage1["inv"]
                    and cur["w"]["op"] == OP_INVALIDATE and stage1["tok"] == cur["w"]["tok"]
                    and rng.random() < 0.8)
        ready = cur is not None and cur["ready"]
        if cur is not None and cur["phase"] == "run":
            if ready and (rng.random() < finish_p or not stim or race_inv):
                finishing = True
                st = m.memop_status(cur["w"], cur["pd"], cur["moved"])
                cur["status"] = st
                if st == SUCCESS and cur["w"]["op"] == OP_FAST_REG:
                    e = m.e[cur["w"]["mr"] >> 8]
                    cur["phase"] = "pl"
                    finishing = False
                    pl = [0, cur["w"]["pages"], e.init[4], rng.random() < 0.1]
                elif st == SUCCESS and rng.random() < 0.95:   # else: cancelled by the QP's error
                    exec_w = cur["w"]
        elif cur is not None and cur["phase"] == "pl":
            if pl[0] < pl[1]:
                if rng.random() < 0.6:
                    mtt_w = (pl[2] + pl[0], rng.getrandbits(40))
                    pl[0] += 1
            elif ready and (rng.random() < 0.5 or not stim):
                finishing = True
                check_status = True           # the checks again, as they are at the commit
                if not pl[3]:
                    cur["status"] = m.memop_status(cur["w"], cur["pd"], cur["moved"])
                    if cur["status"] == SUCCESS:
                        commit_w = cur["w"]
                    else:
                        stats["commits refused"] += 1
        load = None
        if (cur is None or finishing) and stim and rng.random() < 0.5:
            load = make_memop()
        for c in range(3):
            if clients[c] is None:
                if stim and rng.random() < req_p:
                    clients[c] = make_request(c)
            elif rng.random() < give_up_p:
                clients[c] = make_request(c) if rng.random() < 0.5 else None

        # ---- drive
        dut.cmd_valid_i.value = cmd is not None
        if cmd:
            dut.cmd_op_i.value, dut.cmd_index_i.value, dut.cmd_args_i.value = cmd
        dut.load_i.value = load is not None
        if load:
            dut.head_wqe_i.value = encode_wqe(load[0])
        dut.cur_valid_i.value = cur is not None
        if cur:
            dut.cur_wqe_i.value = encode_wqe(cur["w"])
            dut.qp_pd_i.value = cur["pd"]
        dut.exec_i.value = exec_w is not None
        dut.commit_i.value = commit_w is not None
        if commit_w:
            dut.mtt_base_i.value = pl[2] % MTT
        dut.mtt_we_i.value = mtt_w is not None
        if mtt_w:
            dut.mtt_idx_i.value = mtt_w[0] % MTT
            dut.mtt_pfn_i.value = mtt_w[1]
        req = 0
        tokv = vav = lenv = pdv = accv = 0
        for c, q in enumerate(clients):
            if q is not None:
                req |= 1 << c
                tokv |= q["tok"] << (32 * c)
                vav |= q["va"] << (64 * c)
                lenv |= q["len"] << (32 * c)
                pdv |= q["pd"] << (16 * c)
                accv |= q["access"] << (16 * c)
        dut.xc_req_i.value = req
        dut.xc_token_i.value = tokv
        dut.xc_va_i.value = vav
        dut.xc_len_i.value = lenv
        dut.xc_pd_i.value = pdv
        dut.xc_access_i.value = accv
        dut.xc_inv0_i.value = clients[0] is not None and clients[0]["inv"]
        await ReadOnly()

        # ---- check what the RTL answers in this cycle
        if cur is not None:
            got_ready = int(dut.ready_o.value)
            assert got_ready == cur["ready"], (f"seed {seed} cycle {cyc}: {cur['w']}: ready {got_ready}, "
                                               f"want {int(cur['ready'])}")
        want_state = sum(e.state << (2 * i) for i, e in enumerate(m.e))
        got_state = int(dut.state_o.value)
        assert got_state == want_state, f"seed {seed} cycle {cyc}: states {got_state:#x}, want {want_state:#x}"
        if check_status:
            want = m.memop_status(cur["w"], cur["pd"], cur["moved"])
            got = int(dut.status_o.value)
            assert got == want, (f"seed {seed} cycle {cyc}: {cur['w']} pd {cur['pd']}: status {got:#x}, "
                                 f"want {want:#x}")
            if cur["w"]["op"] == OP_FAST_REG and want != ACCESS_VIOLATION:
                e = m.e[cur["w"]["mr"] >> 8]
                assert int(dut.fr_mtt_offset_o.value) == e.init[4], f"seed {seed}: MTT offset"
        memop = None                     # (entry, state, registration) nic_mem_op writes now
        if exec_w is not None:
            memop = m.memop_write(exec_w)
        elif commit_w is not None:
            memop = m.memop_write(commit_w, pl[2] % MTT)
        if cur is not None and cur.get("status") is not None and finishing:
            k = cur["w"]["op"]
            stats["memops"][(k, cur["status"])] = stats["memops"].get((k, cur["status"]), 0) + 1
        gnt = int(dut.xc_gnt_o.value)
        want_gnt = (req & -req) if req else 0
        assert gnt == want_gnt, f"seed {seed} cycle {cyc}: grant {gnt:#x} of requests {req:#x}"
        rsp = int(dut.xc_rsp_o.value)
        if answer is None:
            assert rsp == 0, f"seed {seed} cycle {cyc}: an answer ({rsp:#x}) to no request"
        else:
            client, status, pfn, off, q = answer
            assert rsp == 1 << client, f"seed {seed} cycle {cyc}: answer to {rsp:#x}, want client {client}"
            got = (int(dut.xl_status_o.value), int(dut.xl_pfn_o.value), int(dut.xl_page_off_o.value))
            assert got[0] == status, f"seed {seed} cycle {cyc}: {q}: status {got[0]:#x}, want {status:#x}"
            if pfn is not None:
                assert got[1] == pfn, f"seed {seed} cycle {cyc}: {q}: pfn {got[1]:#x}, want {pfn:#x}"
            if off is not None:
                assert got[2] == off, f"seed {seed} cycle {cyc}: {q}: offset {got[2]:#x}, want {off:#x}"
        # the request in its check cycle: decided on the table as it is now
        inv_idx = None
        answer = None
        cmd_idx = cmd[1] if cmd is not None and cmd[0] in (CMD_MR_INIT, CMD_MR_FREE) else None
        if stage1 is not None:
            sidx = stage1["tok"] >> 8
            races["command at the lookup's check"] += cmd_idx == sidx
            races["local write at the lookup's check"] += memop is not None and memop[0] == sidx
            races["remote and local invalidation of one entry at once"] += (
                stage1["inv"] and memop is not None and memop[0] == sidx and m.memop_status(
                    {"op": OP_INVALIDATE, "tok": stage1["tok"]}, stage1["pd"]) == SUCCESS)
            e = m.entry(sidx)
            if e is not None and e.state == VALID and not stage1["inv"]:
                r = e.reg
                races["length 0 at a region's end"] += (stage1["len"] == 0
                                                        and stage1["va"] == r["base"] + r["length"])
            status, pfn, off, inv_idx = m.lookup(stage1, memop[0] if memop else None)
            if status == SUCCESS and not stage1["inv"]:
                races["region ending at or past 2^64 granted"] += e.reg["base"] + e.reg["length"] >= TOP
            if (status != SUCCESS and e is not None and e.state == VALID and e.init[1]
                    and m.e[e.reg["parent"]].state != VALID):
                races["MW refused for its parent"] += 1
            answer = (stage1["client"], status, pfn, off, stage1)
            stats["lookups"] += 1
            stats["ok"] += status == SUCCESS and not stage1["inv"]
            stats["inv_ok"] += inv_idx is not None
        stage1 = None
        if gnt:
            c = gnt.bit_length() - 1
            stage1 = clients[c]
            clients[c] = None
            races["command at the lookup's grant"] += cmd_idx == stage1["tok"] >> 8
            races["local write at the lookup's grant"] += memop is not None and memop[0] == stage1["tok"] >> 8
        if pl is not None and cmd_idx == cur["w"]["mr"] >> 8:
            races["command during a FastRegister's page list"] += 1

        # ---- the writes of this cycle, in the table's order
        if memop is not None:
            i, st, reg = memop
            m.e[i].state = st
            if reg is not None:
                m.e[i].reg = reg
        if inv_idx is not None:
            m.e[inv_idx].state = INVALID
        if cmd is not None:
            op, idx, args = cmd
            stats["cmds"] += 1
            if idx < NUM_MRS and op == CMD_MR_INIT:
                m.e[idx].state = INVALID
                m.e[idx].init = (args & 0xffff, (args >> 97) & 1, (args >> 96) & 1,
                                 (args >> 32) & 0xffffffff, (args >> 64) & 0xffffffff)
            elif idx < NUM_MRS and op == CMD_MR_FREE:
                m.e[idx].state = FREE
        if mtt_w is not None:
            m.mtt[mtt_w[0] % MTT] = mtt_w[1]
        # the dispatcher moves on
        if finishing:
            cur = None
            pl = None
        elif cur is not None:
            if cmd_idx is not None and cmd_idx == a_index(cur["w"]):
                cur["moved"] = True
            # the registered checks are current in the next cycle unless this cycle wrote the
            # state or init fields of an entry they read (a command, a remote invalidation)
            written = {i for i in (cmd_idx, inv_idx) if i is not None and i < NUM_MRS}
            read = {a_index(cur["w"])}
            if cur["w"]["op"] == OP_BIND:
                read.add(cur["w"]["mw"] >> 8)
            cur["ready"] = not (written & read)
        if load is not None:
            cur = {"w": load[0], "pd": load[1], "phase": "run", "moved": False, "ready": False}
        await RisingEdge(dut.clk_i)

    dut._log.info("seed %d: %d lookups (%d granted access, %d remote invalidations), %d commands, "
                  "memory operations %s", seed, stats["lookups"], stats["ok"], stats["inv_ok"],
                  stats["cmds"], {f"{k[0]}:{k[1]:#x}": v for k, v in sorted(stats["memops"].items())})
    dut._log.info("seed %d: races and corners reached: %s", seed, races)
    stats["races"] = races
    return stats


@cocotb.test()
async def random_traffic_against_reference_model(dut):
    """Seeded random commands, memory operations and lookups; every status and answer checked."""
    cocotb.start_soon(Clock(dut.clk_i, 4, units="ns").start())
    total = {"ok": 0, "inv_ok": 0, "lookups": 0, "reg": 0, "bind": 0}
    races = {}
    for seed in range(1, 7):
        s = await run_seed(dut, seed)
        total["ok"] += s["ok"]
        total["inv_ok"] += s["inv_ok"]
        total["lookups"] += s["lookups"]
        total["reg"] += s["memops"].get((OP_FAST_REG, SUCCESS), 0)
        total["bind"] += s["memops"].get((OP_BIND, SUCCESS), 0)
        races["FastRegister refused at its commit"] = races.get("FastRegister refused at its commit", 0) + s["commits refused"]
        for k, v in s["races"].items():
            races[k] = races.get(k, 0) + v
    missed = [k for k, v in races.items() if v == 0]
    assert not missed, f"the stimulus never reached: {missed}"
    # the stimulus must reach the interesting answers, not only the refusals
    assert total["ok"] > 200 and total["inv_ok"] > 10 and total["reg"] > 30 and total["bind"] > 10, total
