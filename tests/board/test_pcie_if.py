# SPDX-License-Identifier: MIT
"""Unit tests of rtl/pcie (pcie_us_if, 256-bit UltraScale+ interface) through tb_pcie_if: the
block model and root complex on one side; on the other, an AXI-Lite RAM standing for the core's
BAR0 and an AXI master standing for the core's DMA."""
import logging
import random

import cocotb
from cocotb.triggers import RisingEdge, Timer, with_timeout
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteRam, AxiMaster
from cocotbext.axi.constants import AxiResp

from pcie_tb import BAR0_BYTES, CplShaper, make_pcie


class TB:
    def __init__(self, dut):
        self.dut = dut
        logging.getLogger(f"cocotb.{dut._name}").setLevel(logging.WARNING)
        self.rc, self.dev = make_pcie(dut)
        self.bar_ram = AxiLiteRam(AxiLiteBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst,
                                  size=BAR0_BYTES)
        self.dma = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        self.shaper = CplShaper(self.rc, self.dev)
        for m in (self.bar_ram, self.dma):
            for ch in vars(m).values():
                if hasattr(ch, "log"):
                    ch.log.setLevel(logging.WARNING)

    async def init(self):
        await self.rc.enumerate()
        self.fn = self.rc.find_device(self.dev.functions[0].pcie_id)
        await self.fn.enable_device()
        await self.fn.set_master()
        self.bar0 = self.fn.bar_window[0]
        self.host_addr, self.host_mem = self.rc.alloc_region(1 << 20)
        await RisingEdge(self.dut.clk)

    def set_mps_mrrs(self, mps, mrrs):
        cap = self.dev.functions[0].pcie_cap
        cap.max_payload_size = (mps // 128).bit_length() - 1
        cap.max_read_request_size = (mrrs // 128).bit_length() - 1


@cocotb.test()
async def bar_reads_and_writes(dut):
    """BAR0 writes and reads of 1..8 bytes at every byte offset become AXI-Lite transactions
    with the right address and strobes; read completions carry the right bytes (the model
    checks tag, byte count and lower address against the request)."""
    tb = TB(dut)
    await tb.init()
    rng = random.Random(5)
    for length in (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 32):
        for offset in range(0, 4 if length < 8 else 1):
            addr = 0x1000 + 64 * length + offset
            data = bytes(rng.randrange(256) for _ in range(length))
            before = tb.bar_ram.read(addr - 4, length + 8)
            await tb.bar0.write(addr, data)
            await Timer(200, "ns")  # posted: let it land
            after = tb.bar_ram.read(addr - 4, length + 8)
            assert after[4:4 + length] == data, f"write of {length} at +{offset}"
            assert after[:4] == before[:4] and after[4 + length:] == before[4 + length:], \
                "bytes outside the write changed"
            back = await tb.bar0.read(addr, length)
            assert back == data, f"read of {length} at +{offset}: {back.hex()} != {data.hex()}"


@cocotb.test()
async def bar_unsupported_requests(dut):
    """A read longer than 8 DWORDs is answered with Completer Abort, a read of another BAR with
    Unsupported Request (completions, never a hang); a write to another BAR is dropped; BAR0
    keeps working."""
    from cocotbext.pcie.core.tlp import Tlp, TlpType, CplStatus
    tb = TB(dut)
    # a second BAR the interface does not serve (the board's IP has only BAR0)
    tb.dev.functions[0].configure_bar(2, 4096)
    await tb.init()
    tb.bar_ram.write(0x40, b"\x11\x22\x33\x44")

    async def read_tlp(addr, dws):
        req = Tlp()
        req.fmt_type = TlpType.MEM_READ
        req.address = addr
        req.length = dws
        req.first_be = 0xf
        req.last_be = 0xf if dws > 1 else 0
        cpls = await tb.rc.perform_nonposted_operation(req, timeout=10, timeout_unit="us")
        assert cpls, "no completion"
        return cpls[0]

    cpl = await read_tlp(tb.fn.bar[0] + 0x100, 16)
    assert cpl.status == CplStatus.CA, f"long read: {cpl}"
    cpl = await read_tlp(tb.fn.bar[2] + 0x40, 1)
    assert cpl.status == CplStatus.UR, f"read of BAR2: {cpl}"
    await tb.fn.bar_window[2].write(0x40, b"\xaa\xbb\xcc\xdd")
    await Timer(200, "ns")
    assert tb.bar_ram.read(0x40, 4) == b"\x11\x22\x33\x44", "a BAR2 write reached BAR0"
    assert await tb.bar0.read(0x40, 4) == b"\x11\x22\x33\x44"


@cocotb.test()
async def dma_reads_split_and_reordered(dut):
    """AXI read bursts of 1..128 beats at MRRS 128 / 256 / 512 come back whole and in order
    while the root complex answers each request after a random delay, split at every RCB."""
    tb = TB(dut)
    await tb.init()
    rng = random.Random(7)
    tb.host_mem[:1 << 20] = bytes(rng.randrange(256) for _ in range(1 << 20))
    tb.shaper.reorder(2000, split=True)
    for mrrs in (128, 256, 512):
        tb.set_mps_mrrs(256, mrrs)
        await Timer(100, "ns")
        assert int(dut.cfg_max_read_req.value) == (mrrs // 128).bit_length() - 1
        for beats in (1, 2, 3, 5, 16, 17, 64, 128):
            offset = rng.randrange(0, (1 << 20) - 4096) & ~31
            offset = (offset & ~0xfff) + min(offset & 0xfff, 4096 - 32 * beats)
            data = await with_timeout(tb.dma.read(tb.host_addr + offset, 32 * beats,
                                                  arid=rng.randrange(4)), 200, "us")
            assert data.data == bytes(tb.host_mem[offset:offset + 32 * beats]), \
                f"read of {beats} beats at +{offset:#x}, MRRS {mrrs}"
            assert data.resp == AxiResp.OKAY
    # many reads in flight at once, different IDs
    reqs = []
    for i in range(24):
        offset = (rng.randrange(0, 255) << 12) + 32 * rng.randrange(0, 64)
        reqs.append((offset, cocotb.start_soon(tb.dma.read(tb.host_addr + offset, 1024, arid=i % 16))))
    for offset, task in reqs:
        data = await with_timeout(task, 500, "us")
        assert data.data == bytes(tb.host_mem[offset:offset + 1024])
    assert int(dut.unexpected_cpls.value) == 0


@cocotb.test()
async def dma_writes(dut):
    """AXI write bursts of any byte range inside a 4 KiB page land exactly (no byte outside
    them touched) at MPS 128 / 256 / 512."""
    tb = TB(dut)
    await tb.init()
    rng = random.Random(9)
    for mps in (128, 256, 512):
        tb.set_mps_mrrs(mps, 512)
        await Timer(100, "ns")
        for length in (1, 3, 4, 31, 32, 33, 100, 255, 256, 257, 1000, 4096):
            page = rng.randrange(16, 200) << 12
            start = rng.randrange(0, 4096 - length + 1)
            tb.host_mem[page - 64:page + 4096 + 64] = b"\xee" * (4096 + 128)
            data = bytes(rng.randrange(256) for _ in range(length))
            await with_timeout(tb.dma.write(tb.host_addr + page + start, data), 200, "us")
            await Timer(500, "ns")
            got = bytes(tb.host_mem[page - 64:page + 4096 + 64])
            want = b"\xee" * (64 + start) + data + b"\xee" * (4096 - start - length + 64)
            assert got == want, f"write of {length} at +{start:#x}, MPS {mps}"


@cocotb.test()
async def completion_timeout(dut):
    """A read whose request gets no completion returns SLVERR beats after the timeout (never a
    hang); reads before and after it are unaffected, and a late tag is not reused early."""
    tb = TB(dut)
    await tb.init()
    tb.host_mem[0:4096] = bytes(range(256)) * 16
    ok = await tb.dma.read(tb.host_addr, 64)
    assert ok.resp == AxiResp.OKAY
    tb.shaper.drop(1)
    t0 = cocotb.utils.get_sim_time("ns")
    bad = await with_timeout(tb.dma.read(tb.host_addr + 256, 64), 200, "us")
    waited = cocotb.utils.get_sim_time("ns") - t0
    assert bad.resp == AxiResp.SLVERR
    assert int(dut.cpl_timeouts.value) == 1
    timeout_ns = int(dut.TimeoutCycles.value) * 4 if hasattr(dut, "TimeoutCycles") else 16000
    assert waited >= 4000 * 4, f"error after only {waited} ns"
    for i in range(40):  # more reads than tags: every tag comes round again
        ok = await with_timeout(tb.dma.read(tb.host_addr + 64 * (i % 60), 64), 200, "us")
        assert ok.resp == AxiResp.OKAY and ok.data == bytes(tb.host_mem[64 * (i % 60):64 * (i % 60) + 64])


@cocotb.test()
async def msix_gated_by_enable_and_mask(dut):
    """A 4-byte write with awsize 2 (the core's MSI-X message) reaches host memory only while
    MSI-X is enabled and the function is not masked; otherwise it is dropped and counted."""
    tb = TB(dut)
    await tb.init()
    fn = tb.dev.functions[0]
    msg_at = 0x8000

    async def send_msg(value):
        tb.host_mem[msg_at:msg_at + 4] = b"\0\0\0\0"
        await with_timeout(tb.dma.write(tb.host_addr + msg_at, value.to_bytes(4, "little"), size=2),
                           50, "us")
        await Timer(500, "ns")
        return int.from_bytes(tb.host_mem[msg_at:msg_at + 4], "little")

    fn.msix_cap.msix_enable = False
    await Timer(100, "ns")
    assert await send_msg(0x1234) == 0
    assert int(dut.msix_dropped.value) == 1
    fn.msix_cap.msix_enable = True
    fn.msix_cap.msix_function_mask = True
    await Timer(100, "ns")
    assert await send_msg(0x5678) == 0
    assert int(dut.msix_dropped.value) == 2
    fn.msix_cap.msix_function_mask = False
    await Timer(100, "ns")
    assert await send_msg(0x9abc) == 0x9abc
    assert int(dut.msix_dropped.value) == 2


@cocotb.test()
async def added_latency(dut):
    """The cycles the interface adds, measured on its ports and held exactly (a change shows):
    a BAR0 write from the CQ beat to AXI-Lite AW/W valid; a one-beat DMA read from the AR
    handshake to the request on RQ, and from the completion's last RC beat to R valid."""
    tb = TB(dut)
    await tb.init()
    clk = dut.clk

    async def edge_count_until(cond):
        n = 0
        while True:
            await RisingEdge(clk)
            n += 1
            if cond():
                return n

    # MMIO write: CQ beat accepted -> awvalid
    async def mmio():
        while not (dut.m_axis_cq_tvalid.value and dut.m_axis_cq_tready.value):
            await RisingEdge(clk)
        return await edge_count_until(lambda: dut.m_axil_awvalid.value == 1)
    task = cocotb.start_soon(mmio())
    await tb.bar0.write(0x100, b"\x01\x02\x03\x04")
    mmio_cycles = await task
    # DMA read: AR handshake -> RQ valid; last RC beat -> R valid
    async def dma():
        while not (dut.s_axi_arvalid.value and dut.s_axi_arready.value):
            await RisingEdge(clk)
        req = await edge_count_until(lambda: dut.s_axis_rq_tvalid.value == 1)
        while not (dut.m_axis_rc_tvalid.value and dut.m_axis_rc_tlast.value):
            await RisingEdge(clk)
        cpl = await edge_count_until(lambda: dut.s_axi_rvalid.value == 1)
        return req, cpl
    task = cocotb.start_soon(dma())
    await tb.dma.read(tb.host_addr, 32)
    req_cycles, cpl_cycles = await task
    dut._log.warning("added cycles: MMIO write CQ->AW %d; DMA read AR->RQ %d, RC->R %d",
                     mmio_cycles, req_cycles, cpl_cycles)
    assert (mmio_cycles, req_cycles, cpl_cycles) == (1, 2, 2)
