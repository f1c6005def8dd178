# SPDX-License-Identifier: MIT
"""Board-level tests: nic_board_core (PCIe interface, clock crossings, Ethernet port, nic_core)
through tb_board, with cocotbext-pcie's UltraScale+ block model and root complex as the host and
baser.SerdesLine as the transceiver's serial side: the port's 66-bit blocks go onto a modelled
line looped back to the receiver at a bit offset it must slip to (block lock), and every frame
on the line is descrambled, decoded and checked independently of the RTL.
The driver below programs the core with the register map of formats/nic.toml (nicregs)."""
import logging
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, Timer, with_timeout

from cocotbext.pcie.core.caps import PciCapId

import baser
from nicregs import DEVICE, ENUM, OFF, REG, pack, unpack
from pcie_tb import BAR0_BYTES, CplShaper, make_pcie

CORE_NS = 10        # core clock period (tb_board CoreClockMhz = 100)
ETH_PS = 6400       # 156.25 MHz line clocks (TX, and RX 2.3 ns behind it)
LINE_OFFSET = 29    # the bit offset the looped line starts at: 37 slips to block lock

# nic_eth_regs in BAR0 (docs/ethernet.md "Host registers"): the board wrapper's block beside the
# core's register map
ETH_REGS = 0x3F0000
ETH = dict(ETH_ID=0x00, PORT_MAC_LO=0x04, PORT_MAC_HI=0x08, PORT_IPV4=0x0C, LINK_STATUS=0x10,
           TX_FRAMES=0x14, TX_DROPS=0x18, RX_FRAMES=0x1C, RX_BAD_FCS=0x20, RX_ERRORS=0x24,
           RX_OVERFLOWS=0x28)
ROCE_UDP_PORT = 4791


class Board:
    def __init__(self, dut):
        self.dut = dut
        logging.getLogger(f"cocotb.{dut._name}").setLevel(logging.WARNING)
        cocotb.start_soon(Clock(dut.core_clk, CORE_NS, "ns").start())
        cocotb.start_soon(Clock(dut.eth_tx_clk, ETH_PS, "ps").start())
        cocotb.start_soon(self._rx_clock())
        self.line = baser.SerdesLine(dut.eth_tx_clk, dut.eth_tx_hdr, dut.eth_tx_data,
                                     dut.eth_rx_clk, dut.eth_rx_hdr, dut.eth_rx_data,
                                     dut.eth_rx_valid, dut.eth_rx_slip, offset=LINE_OFFSET)
        self.line.start()
        self.rc, self.dev = make_pcie(dut, msix_vectors=16, msix_table=REG["MSIX_TABLE"],
                                      msix_pba=REG["MSIX_PBA"])
        self.dev.functions[0].vendor_id = DEVICE["vendor_id"]
        self.dev.functions[0].device_id = DEVICE["device_id"]
        self.shaper = CplShaper(self.rc, self.dev)
        self.irqs = [0] * 16
        self.irq_time = [None] * 16

    async def _rx_clock(self):
        # the recovered clock: the TX clock's frequency (a looped line), another phase
        await Timer(2300, "ps")
        cocotb.start_soon(Clock(self.dut.eth_rx_clk, ETH_PS, "ps").start())

    async def init(self):
        await self.rc.enumerate()
        self.fn = self.rc.find_device(self.dev.functions[0].pcie_id)
        await self.fn.enable_device()
        await self.fn.set_master()
        self.bar0 = self.fn.bar_window[0]
        self.mem_addr, self.mem = self.rc.alloc_region(1 << 20)
        await self.fn.alloc_irq_vectors(1, 16)
        for k in range(16):
            self.fn.request_irq(k, self._irq_handler(k))

    def _irq_handler(self, k):
        def handler():
            self.irqs[k] += 1
            self.irq_time[k] = cocotb.utils.get_sim_time("ns")
        return handler

    async def rd(self, reg):
        return await self.bar0.read_dword(reg)

    async def wr(self, reg, value):
        await self.bar0.write_dword(reg, value & 0xffffffff)

    async def cmd(self, op, index, args):
        for i, a in enumerate(args):
            await self.wr(REG["ARG0"] + 4 * i, a)
        await self.wr(REG["CMD"], (index << 8) | ENUM["cmd"][op])

    async def create_cq(self, cqn, ring, log_depth, vector):
        await self.cmd("CQ_CREATE", cqn, [ring & 0xffffffff, ring >> 32, (vector << 16) | log_depth])

    async def create_qp(self, qpn, sq, sq_log, rq, rq_log, sq_cqn, rq_cqn, pd=0):
        await self.cmd("QP_CREATE", qpn, [sq & 0xffffffff, sq >> 32, (rq_cqn << 24) | (sq_cqn << 16) | pd,
                                          (rq_log << 8) | sq_log, rq & 0xffffffff, rq >> 32])

    async def eth_rd(self, name):
        return await self.bar0.read_dword(ETH_REGS + ETH[name])

    async def eth_wr(self, name, value):
        await self.bar0.write_dword(ETH_REGS + ETH[name], value & 0xffffffff)

    async def wait_block_lock(self):
        """The PCS slips from the line's starting offset to the block boundary and locks; the
        host sees it in LINK_STATUS."""
        t = 0
        while not self.dut.eth_block_lock.value:
            await Timer(100, "ns")
            t += 100
            assert t < 200000, f"no block lock ({self.line.slips} slips)"
        assert self.line.channel.offset == 0, f"locked at bit offset {self.line.channel.offset}"
        assert self.line.slips >= 66 - LINE_OFFSET, f"{self.line.slips} slips"
        assert (await self.eth_rd("LINK_STATUS")) & 1, "LINK_STATUS.block_lock"

    async def connect_pair(self, a, b, mac, ip, ack_timeout=0, retry_count=0):
        """QP a and QP b of this NIC connected to each other over the port's address."""
        base = DEVICE["qpn_base"]
        for me, peer in ((a, b), (b, a)):
            await self.cmd("QP_CONNECT", me, [mac & 0xffffffff, mac >> 32, ip,
                                              (ack_timeout << 24) | (base + peer),
                                              retry_count << 24, 0, 10])
            assert await self.rd(REG["QP_STATE_BASE"] + 4 * me) == ENUM["qp_state"]["RTS"]

    def qp_db(self, qpn, off):
        return REG["QP_DB_BASE"] + (qpn << OFF["DB_PAGE_SHIFT"]) + OFF[off]

    def cq_db(self, cqn, off):
        return REG["CQ_DB_BASE"] + (cqn << OFF["DB_PAGE_SHIFT"]) + OFF[off]


def roce_frames(line):
    """The frames the port sent, as seen on the line (FCS checked by the model), parsed:
    Ethernet, IPv4, UDP, and the BTH's opcode and PSN when the UDP port is RoCEv2's."""
    out = []
    for frame, gap in line.tx_frames:
        f = dict(dst=int.from_bytes(frame[0:6], "big"), src=int.from_bytes(frame[6:12], "big"),
                 ethertype=int.from_bytes(frame[12:14], "big"), gap=gap, length=len(frame))
        if f["ethertype"] == 0x0800:
            f.update(ip_src=int.from_bytes(frame[26:30], "big"), ip_dst=int.from_bytes(frame[30:34], "big"),
                     udp_dst=int.from_bytes(frame[36:38], "big"), opcode=frame[42],
                     psn=int.from_bytes(frame[50:54], "big") & 0xffffff)
        out.append(f)
    return out


async def check_line_against_counters(b, mac, ip):
    """Every frame on the line is RoCEv2 from and to the port's (host-set) addresses, was sent
    at least 12 lanes after the one before, and the port's counters (BAR0) count exactly the
    frames the line carried: all sent, all received, none bad."""
    await Timer(3000, "ns")     # the last ACK through the line and the counters' crossings
    frames = roce_frames(b.line)
    assert frames, "nothing on the line"
    for i, f in enumerate(frames):
        assert f["ethertype"] == 0x0800 and f["udp_dst"] == ROCE_UDP_PORT, f"frame {i}: {f}"
        assert f["src"] == f["dst"] == mac and f["ip_src"] == f["ip_dst"] == ip, f"frame {i}: {f}"
        assert i == 0 or f["gap"] >= 12, f"frame {i}: inter-packet gap {f['gap']} lanes"
    n = len(frames)
    assert await b.eth_rd("TX_FRAMES") == n
    assert await b.eth_rd("RX_FRAMES") == n - len(b.line.corrupted)
    assert await b.eth_rd("RX_BAD_FCS") == len(b.line.corrupted)
    assert await b.eth_rd("RX_ERRORS") == 0 and await b.eth_rd("TX_DROPS") == 0
    return frames


@cocotb.test()
async def enumeration_and_id_block(dut):
    """The host enumerates the function (IDs, BAR0 of the register map's size, MSI-X with the
    table and PBA in BAR0) and reads the ID block and capabilities through BAR0."""
    b = Board(dut)
    await b.init()
    fn = b.fn
    assert fn.vendor_id == DEVICE["vendor_id"] and fn.device_id == DEVICE["device_id"]
    assert fn.bar_size[0] == 1 << DEVICE["bar0_addr_bits"] == BAR0_BYTES
    msix = await fn.capability_read_dword(PciCapId.MSIX, 0)
    assert ((msix >> 16) & 0x7ff) + 1 == 16 and msix >> 31, f"MSI-X control {msix:#x}"
    assert (await fn.capability_read_dword(PciCapId.MSIX, 4)) == REG["MSIX_TABLE"]
    assert (await fn.capability_read_dword(PciCapId.MSIX, 8)) == REG["MSIX_PBA"]
    assert await b.rd(REG["ID_MAGIC"]) == DEVICE["magic"]
    assert await b.rd(REG["VERSION"]) == (DEVICE["version_major"] << 16) | DEVICE["version_minor"]
    assert await b.rd(REG["IDS"]) == (DEVICE["device_id"] << 16) | DEVICE["vendor_id"]
    assert await b.rd(REG["CAP_DATA_WIDTH"]) == 256
    assert await b.rd(REG["CAP_QUEUES"]) == (16 << 16) | 16
    assert await b.rd(REG["CAP_MSIX"]) == 16
    await b.wr(REG["SCRATCH"], 0x5a5aa5a5)
    assert await b.rd(REG["SCRATCH"]) == 0x5a5aa5a5
    # the MSI-X table the host programmed is in the core's BAR0 window
    vec0 = b.fn.msi_vectors[0]
    assert await b.rd(REG["MSIX_TABLE"]) == vec0.addr & 0xffffffff
    assert await b.rd(REG["MSIX_TABLE"] + 8) == vec0.data


async def setup_queues(b, cqn=1, qpn=2, vector=3, sq_log=6, cq_log=6, base=0):
    """CQ cqn (ring at base + 0x10000, vector) and QP qpn (SQ at base + 0x20000, RQ at
    base + 0x30000) on it."""
    cq_ring, sq, rq = base + 0x10000, base + 0x20000, base + 0x30000
    b.mem[cq_ring:cq_ring + (32 << cq_log) + 32] = bytes((32 << cq_log) + 32)
    await b.create_cq(cqn, b.mem_addr + cq_ring, cq_log, vector)
    await b.create_qp(qpn, b.mem_addr + sq, sq_log, b.mem_addr + rq, 4, cqn, cqn)
    assert await b.rd(REG["QP_STATE_BASE"] + 4 * qpn) == ENUM["qp_state"]["READY"]
    return cq_ring, sq


def cqe_at(b, cq_ring, i, cq_log):
    slot = i & ((1 << cq_log) - 1)
    raw = bytes(b.mem[cq_ring + 32 * slot:cq_ring + 32 * slot + 32])
    cqe = unpack("cqe", raw)
    phase = ((i >> cq_log) & 1) ^ 1
    return cqe if (cqe["owner"] & 1) == phase else None


async def wait_cqes(b, cq_ring, first, n, cq_log, limit_ns=200000):
    t = 0
    while cqe_at(b, cq_ring, first + n - 1, cq_log) is None:
        await Timer(4, "ns")
        t += 4
        assert t < limit_ns, f"CQE {first + n - 1} never came"
    return [cqe_at(b, cq_ring, first + k, cq_log) for k in range(n)]


async def run_chain(b, n, first=0, cqn=1, qpn=2, vector=3, base=0):
    """Post n NOPs at SQ indices first.., arm the CQ, ring one doorbell; return the CQEs and the
    ns from the doorbell write's issue to the last CQE in memory and to the MSI-X message."""
    cq_ring, sq = base + 0x10000, base + 0x20000
    for i in range(first, first + n):
        slot = i & 63
        b.mem[sq + 64 * slot:sq + 64 * slot + 64] = pack("wqe_hdr", opcode=ENUM["wqe_op"]["NOP"], index=i)
    await b.wr(b.cq_db(cqn, "DB_CQ_CI_ARM"), (ENUM["arm"]["ANY"] << 17) | (1 << 16) | first)
    irqs = b.irqs[vector]
    t0 = cocotb.utils.get_sim_time("ns")
    await b.wr(b.qp_db(qpn, "DB_SQ_PI"), first + n)
    cqes = await wait_cqes(b, cq_ring, first, n, 6)
    t_cqe = cocotb.utils.get_sim_time("ns") - t0
    t = 0
    while b.irqs[vector] == irqs:
        await Timer(4, "ns")
        t += 4
        assert t < 100000, "no MSI-X message"
    return cqes, t_cqe, b.irq_time[vector] - t0


@cocotb.test()
async def deferred_chain_one_doorbell(dut):
    """A QP and a CQ are created; eight NOP WQEs are written to the SQ and rung with one
    doorbell; eight successful CQEs land in the root complex's memory, and the armed CQ sends
    exactly one MSI-X message through the block model. The WQE fetch's completions come back
    out of order and split at every RCB."""
    b = Board(dut)
    await b.init()
    b.shaper.reorder(300, split=True)
    await setup_queues(b)
    n = 8
    cqes, t_cqe, t_irq = await run_chain(b, n)
    for i, c in enumerate(cqes):
        assert c["status"] == ENUM["status"]["SUCCESS"], f"CQE {i}: {c}"
        assert c["wqe_index"] == i, f"CQE {i}: {c}"
    await Timer(5000, "ns")
    assert b.irqs == [0, 0, 0, 1] + [0] * 12, f"interrupts {b.irqs}"
    assert await b.rd(REG["CQ_STATE_BASE"] + 4) & 0xffff == n
    # the same chain again, completions in order and unsplit: the latency the board adds
    b.shaper.reorder(0, split=False)
    for n2, first in ((1, 8), (8, 9)):
        cqes, t_cqe, t_irq = await run_chain(b, n2, first=first)
        assert [c["wqe_index"] for c in cqes] == list(range(first, first + n2))
        dut._log.warning("deferred chain of %d NOPs: doorbell write issued by the root complex -> "
                         "last CQE in host memory %d ns (%d core cycles at %d MHz), -> the MSI-X "
                         "message (after the first CQE: arm ANY) %d ns",
                         n2, t_cqe, t_cqe // CORE_NS, 1000 // CORE_NS, t_irq)


@cocotb.test()
async def msix_function_mask_holds_the_message_in_the_pba(dut):
    """The root complex sets the MSI-X Function Mask in the function's configuration space (the
    block model drives cfg_interrupt_msix_mask): an armed CQ's notification then sends no
    message and sets its vector's pending bit (BAR0 MSIX_PBA); clearing the mask sends the
    message, once, and clears the bit. Then MSI-X Enable off and on again: the same."""
    b = Board(dut)
    await b.init()
    cq_ring, sq = await setup_queues(b)
    vector = 3
    ctrl = (await b.fn.capability_read_dword(PciCapId.MSIX, 0)) >> 16
    for i, masked_ctrl in enumerate((ctrl | 0x4000, ctrl & ~0x8000)):   # function mask; MSI-X off
        await b.fn.capability_write_word(PciCapId.MSIX, 2, masked_ctrl)
        await Timer(200, "ns")
        b.mem[sq + 64 * i:sq + 64 * i + 64] = pack("wqe_hdr", opcode=ENUM["wqe_op"]["NOP"], index=i)
        await b.wr(b.cq_db(1, "DB_CQ_CI_ARM"), (ENUM["arm"]["ANY"] << 17) | (1 << 16) | i)
        irqs = b.irqs[vector]
        await b.wr(b.qp_db(2, "DB_SQ_PI"), i + 1)
        cqes = await wait_cqes(b, cq_ring, i, 1, 6)
        assert cqes[0]["status"] == ENUM["status"]["SUCCESS"]
        await Timer(3000, "ns")
        assert b.irqs[vector] == irqs, "a message while the function may not send one"
        assert (await b.rd(REG["MSIX_PBA"])) == 1 << vector, "the vector's pending bit"
        await b.fn.capability_write_word(PciCapId.MSIX, 2, ctrl)
        t = 0
        while b.irqs[vector] == irqs:
            await Timer(4, "ns")
            t += 4
            assert t < 20000, "the pending message was not sent after the unmask"
        await Timer(2000, "ns")
        assert b.irqs[vector] == irqs + 1, f"messages {b.irqs}"
        assert (await b.rd(REG["MSIX_PBA"])) == 0, "the pending bit after the message"


@cocotb.test()
async def fetch_timeout_is_an_error_completion(dut):
    """A WQE fetch whose read request the root complex never answers becomes, after the
    completion timeout, an error completion (never a hang); the NIC keeps serving."""
    b = Board(dut)
    await b.init()
    await setup_queues(b)
    await setup_queues(b, cqn=4, qpn=5, vector=6, base=0x40000)
    b.shaper.drop(1)
    b.mem[0x20000:0x20040] = pack("wqe_hdr", opcode=ENUM["wqe_op"]["NOP"], index=0)
    await b.wr(b.qp_db(2, "DB_SQ_PI"), 1)
    cqes = await wait_cqes(b, 0x10000, 0, 1, 6, limit_ns=400000)
    dut._log.warning("CQE after a fetch timeout: %s", cqes[0])
    # the DMA error the interface returned is the core's INTERNAL_ERROR ("DMA error response")
    assert cqes[0]["status"] == ENUM["status"]["INTERNAL_ERROR"]
    assert int(dut.u_dut.u_pcie.u_rd.timeouts_q.value) == 1
    # another QP on its own CQ still works
    ok = await run_chain(b, 2, cqn=4, qpn=5, vector=6, base=0x40000)
    assert all(c["status"] == ENUM["status"]["SUCCESS"] for c in ok[0])


@cocotb.test()
async def send_looped_back_through_the_ethernet_port(dut):
    """The host sets the port's MAC and IPv4 address (nic_eth_regs through BAR0); the PCS slips
    to block lock on the serial line; QP 2 and QP 3 of the same NIC are connected to each other
    over those addresses; a Send from QP 2 goes out through the MAC / PCS, crosses the looped
    serial line and lands in QP 3's receive buffer: both CQEs successful, the bytes equal. Then a
    chain of 4 KiB Sends, rung once, gives the board-level goodput. The line carried exactly the
    Send frames expected (and ACKs), all to and from the host-set addresses, and the port's
    counters agree with it."""
    from nicregs import privileged_token
    b = Board(dut)
    await b.init()
    cq_s, sq_s = await setup_queues(b, cqn=1, qpn=2, vector=1, base=0)
    cq_r, _ = await setup_queues(b, cqn=2, qpn=3, vector=2, base=0x40000)
    rq_r = 0x40000 + 0x30000
    # the host sets the port's MAC and IPv4 address (nic_eth_regs); the core's read-only copies
    # follow, and the frames on the line carry them
    mac, ip = 0x02_5A_17_C0_FF_EE, 0x0A_2A_00_07
    assert await b.eth_rd("ETH_ID") == 0x4E444245
    await b.eth_wr("PORT_MAC_LO", mac)
    await b.eth_wr("PORT_MAC_HI", mac >> 32)
    await b.eth_wr("PORT_IPV4", ip)
    assert (await b.rd(REG["PORT_MAC_HI"]) << 32) | await b.rd(REG["PORT_MAC_LO"]) == mac
    assert await b.rd(REG["PORT_IPV4"]) == ip
    await b.wait_block_lock()
    await b.connect_pair(2, 3, mac, ip)
    tok = privileged_token(0)
    src, dst, n_msgs, size = 0x80000, 0xA0000, 8, 4096
    rng = random.Random(3)
    payload = bytes(rng.randrange(256) for _ in range(size * n_msgs))
    b.mem[src:src + len(payload)] = payload
    b.mem[dst:dst + len(payload)] = bytes(len(payload))
    # receives first (RQ of QP 3, log depth 4), then the Sends, each chain rung once
    for i in range(n_msgs):
        b.mem[rq_r + 64 * i:rq_r + 64 * i + 64] = pack(
            "wqe_recv", opcode=ENUM["wqe_op"]["RECV"], nsge=1, index=i, length=size,
            sge0=dict(address=b.mem_addr + dst + size * i, length=size, token=tok))
    await b.wr(b.qp_db(3, "DB_RQ_PI"), n_msgs)
    for i in range(n_msgs):
        b.mem[sq_s + 64 * i:sq_s + 64 * i + 64] = pack(
            "wqe_send", opcode=ENUM["wqe_op"]["SEND"], nsge=1, index=i, length=size,
            sge0=dict(address=b.mem_addr + src + size * i, length=size, token=tok))
    t0 = cocotb.utils.get_sim_time("ns")
    await b.wr(b.qp_db(2, "DB_SQ_PI"), 1)        # one Send alone first
    rx = await wait_cqes(b, cq_r, 0, 1, 6, limit_ns=400000)
    t1 = cocotb.utils.get_sim_time("ns")
    sx = await wait_cqes(b, cq_s, 0, 1, 6, limit_ns=400000)
    assert sx[0]["status"] == ENUM["status"]["SUCCESS"], f"send CQE {sx[0]}"
    assert rx[0]["status"] == ENUM["status"]["SUCCESS"], f"receive CQE {rx[0]}"
    assert rx[0]["bytes_transferred"] == size
    assert bytes(b.mem[dst:dst + size]) == payload[:size]
    dut._log.warning("one 4 KiB Send looped back: doorbell -> receive CQE %d ns", t1 - t0)
    t0 = cocotb.utils.get_sim_time("ns")
    await b.wr(b.qp_db(2, "DB_SQ_PI"), n_msgs)   # the other 7, rung once
    rx = await wait_cqes(b, cq_r, 1, n_msgs - 1, 6, limit_ns=2000000)
    t1 = cocotb.utils.get_sim_time("ns")
    assert all(c["status"] == ENUM["status"]["SUCCESS"] for c in rx)
    assert bytes(b.mem[dst:dst + size * n_msgs]) == payload
    gbps = (n_msgs - 1) * size * 8 / (t1 - t0)
    dut._log.warning("%d x 4 KiB Sends rung once: %d ns, goodput %.2f Gb/s (10GBASE-R line)",
                     n_msgs - 1, t1 - t0, gbps)
    frames = await check_line_against_counters(b, mac, ip)
    sends = [f for f in frames if f["opcode"] in (0x00, 0x01, 0x02, 0x04)]   # RC SEND_FIRST/MIDDLE/LAST/ONLY
    # path MTU 1024: each 4 KiB Send is FIRST, MIDDLE, MIDDLE, LAST, PSNs consecutive
    assert [f["opcode"] for f in sends] == [0x00, 0x01, 0x01, 0x02] * n_msgs
    assert [f["psn"] for f in sends] == list(range(4 * n_msgs))
    assert all(f["length"] == 14 + 20 + 8 + 12 + 1024 + 4 for f in sends)
    dut._log.warning("line: %d frames (%d Send frames, %d others), %d slips to block lock",
                     len(frames), len(sends), len(frames) - len(sends), b.line.slips)


@cocotb.test()
async def write_goodput_looped_back_through_the_ethernet_port(dut):
    """QP 3 registers eight pages for remote write (MR_INIT, then a FAST_REG WQE with a page
    list in host memory); QP 2, connected to QP 3 over the port's own addresses, writes 4 KiB
    into each page: one Write alone, then seven rung with one doorbell, looped back through the
    MAC / PCS. Every Write completes successfully (acknowledged), the pages hold the bytes; the
    time from the doorbell to the last Write's CQE gives the board-level 4 KiB Write goodput."""
    from nicregs import privileged_token
    b = Board(dut)
    await b.init()
    cq_s, sq_s = await setup_queues(b, cqn=1, qpn=2, vector=1, base=0)
    cq_r, sq_r = await setup_queues(b, cqn=2, qpn=3, vector=2, base=0x40000)
    mac = (await b.rd(REG["PORT_MAC_HI"]) << 32) | await b.rd(REG["PORT_MAC_LO"])
    ip = await b.rd(REG["PORT_IPV4"])
    await b.wait_block_lock()
    await b.connect_pair(2, 3, mac, ip)
    tok = privileged_token(0)
    n_msgs, size = 8, 4096
    src, dst, page_list, va = 0x80000, 0xC0000, 0xB0000, 0x7000_0000_0000
    # MR 1 of PD 0, eight MTT entries, remote access allowed; registered by QP 3's FAST_REG
    mr_index, key = 1, 0x5C
    rtoken = (mr_index << 8) | key
    await b.cmd("MR_INIT", mr_index, [0, n_msgs, 0, 1])
    for i in range(n_msgs):
        b.mem[page_list + 8 * i:page_list + 8 * i + 8] = (b.mem_addr + dst + size * i).to_bytes(8, "little")
    b.mem[sq_r:sq_r + 64] = pack(
        "wqe_fast_reg", opcode=ENUM["wqe_op"]["FAST_REG"], index=0,
        flags=ENUM["flag"]["ALLOW_REMOTE_WRITE"], mr_token=rtoken, page_count=n_msgs,
        page_list_addr=b.mem_addr + page_list, length=size * n_msgs, base_va=va, fbo=0)
    await b.wr(b.qp_db(3, "DB_SQ_PI"), 1)
    fr = await wait_cqes(b, cq_r, 0, 1, 6, limit_ns=200000)
    assert fr[0]["status"] == ENUM["status"]["SUCCESS"], f"FAST_REG CQE {fr[0]}"
    rng = random.Random(5)
    payload = bytes(rng.randrange(256) for _ in range(size * n_msgs))
    b.mem[src:src + len(payload)] = payload
    b.mem[dst:dst + len(payload)] = bytes(len(payload))
    for i in range(n_msgs):
        b.mem[sq_s + 64 * i:sq_s + 64 * i + 64] = pack(
            "wqe_rdma", opcode=ENUM["wqe_op"]["WRITE"], nsge=1, index=i, remote_token=rtoken,
            length=size, remote_va=va + size * i,
            sge0=dict(address=b.mem_addr + src + size * i, length=size, token=tok))
    t0 = cocotb.utils.get_sim_time("ns")
    await b.wr(b.qp_db(2, "DB_SQ_PI"), 1)        # one Write alone first
    wx = await wait_cqes(b, cq_s, 0, 1, 6, limit_ns=400000)
    t1 = cocotb.utils.get_sim_time("ns")
    assert wx[0]["status"] == ENUM["status"]["SUCCESS"], f"write CQE {wx[0]}"
    assert bytes(b.mem[dst:dst + size]) == payload[:size]
    dut._log.warning("one 4 KiB Write looped back: doorbell -> its CQE (acknowledged) %d ns", t1 - t0)
    t0 = cocotb.utils.get_sim_time("ns")
    await b.wr(b.qp_db(2, "DB_SQ_PI"), n_msgs)   # the other 7, rung once
    wx = await wait_cqes(b, cq_s, 1, n_msgs - 1, 6, limit_ns=2000000)
    t1 = cocotb.utils.get_sim_time("ns")
    assert all(c["status"] == ENUM["status"]["SUCCESS"] for c in wx), f"write CQEs {wx}"
    assert bytes(b.mem[dst:dst + size * n_msgs]) == payload
    gbps = (n_msgs - 1) * size * 8 / (t1 - t0)
    dut._log.warning("%d x 4 KiB Writes rung once: %d ns to the last CQE, goodput %.2f Gb/s "
                     "(10GBASE-R line)", n_msgs - 1, t1 - t0, gbps)
    frames = await check_line_against_counters(b, mac, ip)
    writes = [f for f in frames if f["opcode"] in (0x06, 0x07, 0x08, 0x0A)]  # RC RDMA WRITE_*
    assert [f["opcode"] for f in writes] == [0x06, 0x07, 0x07, 0x08] * n_msgs


@cocotb.test()
async def bit_error_on_the_line_is_dropped_and_recovered(dut):
    """A bit error on the line inside the second frame of a 4 KiB Send: the receiving MAC drops
    the frame for its FCS and counts it (RX_BAD_FCS through BAR0), the responder NAKs the next
    frame's PSN as out of sequence and the requester goes back (go-back-N) and sends PSN 1 again:
    both messages arrive whole, all CQEs successful, every PSN on the line, PSN 1 twice."""
    from nicregs import privileged_token
    b = Board(dut)
    await b.init()
    cq_s, sq_s = await setup_queues(b, cqn=1, qpn=2, vector=1, base=0)
    cq_r, _ = await setup_queues(b, cqn=2, qpn=3, vector=2, base=0x40000)
    rq_r = 0x40000 + 0x30000
    mac = (await b.rd(REG["PORT_MAC_HI"]) << 32) | await b.rd(REG["PORT_MAC_LO"])
    ip = await b.rd(REG["PORT_IPV4"])
    await b.wait_block_lock()
    await b.connect_pair(2, 3, mac, ip, ack_timeout=3, retry_count=3)
    tok = privileged_token(0)
    src, dst, n_msgs, size = 0x80000, 0xA0000, 2, 4096
    rng = random.Random(11)
    payload = bytes(rng.randrange(256) for _ in range(size * n_msgs))
    b.mem[src:src + len(payload)] = payload
    b.mem[dst:dst + len(payload)] = bytes(len(payload))
    for i in range(n_msgs):
        b.mem[rq_r + 64 * i:rq_r + 64 * i + 64] = pack(
            "wqe_recv", opcode=ENUM["wqe_op"]["RECV"], nsge=1, index=i, length=size,
            sge0=dict(address=b.mem_addr + dst + size * i, length=size, token=tok))
        b.mem[sq_s + 64 * i:sq_s + 64 * i + 64] = pack(
            "wqe_send", opcode=ENUM["wqe_op"]["SEND"], nsge=1, index=i, length=size,
            sge0=dict(address=b.mem_addr + src + size * i, length=size, token=tok))
    await b.wr(b.qp_db(3, "DB_RQ_PI"), n_msgs)
    b.line.corrupt(1)                    # frame 1 on the line: the first Send's SEND_MIDDLE, PSN 1
    await b.wr(b.qp_db(2, "DB_SQ_PI"), n_msgs)
    rx = await wait_cqes(b, cq_r, 0, n_msgs, 6, limit_ns=800000)
    sx = await wait_cqes(b, cq_s, 0, n_msgs, 6, limit_ns=800000)
    assert b.line.corrupted == [1]
    assert all(c["status"] == ENUM["status"]["SUCCESS"] for c in rx + sx), f"CQEs {rx} {sx}"
    assert [c["bytes_transferred"] for c in rx] == [size] * n_msgs
    assert bytes(b.mem[dst:dst + size * n_msgs]) == payload
    frames = await check_line_against_counters(b, mac, ip)
    psns = [f["psn"] for f in frames if f["opcode"] in (0x00, 0x01, 0x02, 0x04)]
    assert psns[:2] == [0, 1] and psns.count(1) == 2, f"Send PSNs on the line {psns}"
    assert sorted(set(psns)) == list(range(4 * n_msgs)), f"Send PSNs on the line {psns}"
    dut._log.warning("bit error in frame 1: Send PSNs on the line %s", psns)
