# SPDX-License-Identifier: MIT
"""cocotb bench of nic_eth_port (rtl/eth): the whole Ethernet port, core streams to serdes words,
at the DataWidth it was built with (run.py builds it at 64 and 256).

The line side is checked against an independent model (baser.py): the transmitted blocks are
descrambled bit by bit by the standard's polynomial and decoded, every frame's preamble, SFD, FCS
(zlib's CRC-32) and inter-packet gap checked; received traffic is encoded and scrambled by the
same model and cut into 66-bit windows at an arbitrary bit offset, so the PCS must find block
lock by slipping. Core clock, TX and RX line clocks are separate (random core period).
"""
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

import baser

SEED = int(os.environ.get("NDK_ETH_SEED", "1"))
LINE_PS = 6400          # 156.25 MHz


class Tb:
    def __init__(self, dut, core_ps=None, offset=0):
        self.dut = dut
        self.rng = random.Random(SEED)
        self.width = len(dut.s_axis_tx_tdata_i)
        self.bpw = self.width // 8
        self.core_ps = core_ps or self.rng.choice([4000, 5000, 6000, 8000, 10000])
        cocotb.start_soon(Clock(dut.clk_i, self.core_ps, units="ps").start())
        cocotb.start_soon(Clock(dut.tx_clk_i, LINE_PS, units="ps").start())
        cocotb.start_soon(Clock(dut.rx_clk_i, LINE_PS, units="ps").start())
        # the transceiver's serial side: TX blocks onto a line (checked frame by frame), looped
        # back to RX at a bit offset the PCS must slip to, or carrying line.rx_words instead
        self.line = baser.SerdesLine(dut.tx_clk_i, dut.serdes_tx_hdr_o, dut.serdes_tx_data_o,
                                     dut.rx_clk_i, dut.serdes_rx_hdr_i, dut.serdes_rx_data_i,
                                     dut.serdes_rx_valid_i, dut.serdes_rx_slip_o, offset=offset)
        self.line.tx_takes = lambda: self.ce_hist.pop(0) if self.ce_hist else 1
        self.rx_frames = []
        self.rx_ready_prob = 1.0
        self.tx_burst_gaps = False
        self.gearbox_pause = False  # model the synchronous gearbox: tx_ce_i low 1 cycle in 33
        self.ce_hist = []

    async def reset(self):
        d = self.dut
        d.rst_i.value = 1
        d.tx_rst_i.value = 1
        d.rx_rst_i.value = 1
        d.tx_ce_i.value = 1
        d.s_axis_tx_tvalid_i.value = 0
        d.s_axis_tx_tdata_i.value = 0
        d.s_axis_tx_tkeep_i.value = 0
        d.s_axis_tx_tlast_i.value = 0
        d.m_axis_rx_tready_i.value = 1
        d.serdes_rx_valid_i.value = 0
        d.serdes_rx_data_i.value = 0
        d.serdes_rx_hdr_i.value = 1
        await ClockCycles(d.clk_i, 10)
        await ClockCycles(d.tx_clk_i, 10)
        d.rst_i.value = 0
        d.tx_rst_i.value = 0
        d.rx_rst_i.value = 0
        cocotb.start_soon(self.tx_ce_driver())
        self.line.start()
        cocotb.start_soon(self.core_rx_monitor())

    # ---- core side ----
    async def send(self, frame):
        d = self.dut
        for i in range(0, len(frame), self.bpw):
            chunk = frame[i:i + self.bpw]
            while self.tx_burst_gaps and self.rng.random() < 0.3:
                d.s_axis_tx_tvalid_i.value = 0
                await RisingEdge(d.clk_i)
            d.s_axis_tx_tdata_i.value = int.from_bytes(chunk.ljust(self.bpw, b"\0"), "little")
            d.s_axis_tx_tkeep_i.value = (1 << len(chunk)) - 1
            d.s_axis_tx_tlast_i.value = int(i + self.bpw >= len(frame))
            d.s_axis_tx_tvalid_i.value = 1
            while True:
                await RisingEdge(d.clk_i)
                if d.s_axis_tx_tready_o.value:
                    break
        d.s_axis_tx_tvalid_i.value = 0

    async def core_rx_monitor(self):
        d = self.dut
        cur = bytearray()
        while True:
            d.m_axis_rx_tready_i.value = int(self.rng.random() < self.rx_ready_prob)
            await RisingEdge(d.clk_i)
            if d.m_axis_rx_tvalid_o.value and d.m_axis_rx_tready_i.value:
                keep = d.m_axis_rx_tkeep_o.value.integer
                n = bin(keep).count("1")
                assert keep == (1 << n) - 1, f"tkeep {keep:#x} not contiguous from byte 0"
                data = d.m_axis_rx_tdata_o.value.integer.to_bytes(self.bpw, "little")
                last = d.m_axis_rx_tlast_o.value
                assert last or n == self.bpw, "partial beat before the last"
                cur += data[:n]
                if last:
                    self.rx_frames.append(bytes(cur))
                    cur = bytearray()

    # ---- line side ----
    async def tx_ce_driver(self):
        """tx_ce_i for the next rising edge, set at the falling edge before it and recorded, so
        the monitor knows which edges took a block."""
        d = self.dut
        n = 0
        while True:
            await FallingEdge(d.tx_clk_i)
            ce = 0 if (self.gearbox_pause and n % 33 == 32) else 1
            d.tx_ce_i.value = ce
            self.ce_hist.append(ce)
            n += 1

    async def wait_lock(self, limit=20000):
        for n in range(limit):
            await RisingEdge(self.dut.clk_i)
            if self.dut.rx_block_lock_o.value:
                return n
        raise AssertionError(f"no block lock after {limit} core cycles ({self.line.slips} slips)")

    async def wait_rx(self, count, limit=400000):
        for _ in range(limit):
            if len(self.rx_frames) >= count:
                return
            await RisingEdge(self.dut.clk_i)
        raise AssertionError(f"{len(self.rx_frames)} of {count} frames received")

    def stat(self, name):
        return getattr(self.dut, f"stat_{name}_o").value.integer


def padded(f):
    return f + bytes(max(0, 60 - len(f)))


@cocotb.test()
async def frames_60_to_9000_loop_back_whole(dut):
    """Frames of 14..9000 bytes sent on the core stream leave with preamble, FCS and a gap of
    12..19 lanes, come back through PCS and MAC, and arrive whole (short ones padded to 60)."""
    tb = Tb(dut, offset=17)
    tb.tx_burst_gaps = True
    await tb.reset()
    await tb.wait_lock()
    sizes = [14, 59, 60, 61, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 127, 1500, 9000]
    sizes += [tb.rng.randint(60, 9000) for _ in range(4)]
    frames = [baser.random_frame(tb.rng, n) for n in sizes]
    for f in frames:
        await tb.send(f)
    await tb.wait_rx(len(frames))
    assert [len(f) for f in tb.rx_frames] == [len(padded(f)) for f in frames]
    assert tb.rx_frames == [padded(f) for f in frames]
    assert [b for b, _ in tb.line.tx_frames] == [padded(f) for f in frames]
    for _, gap in tb.line.tx_frames[1:]:
        assert gap >= 12, f"inter-packet gap {gap} lanes"
    await ClockCycles(dut.clk_i, 20)
    assert tb.stat("tx_frames") == len(frames)
    assert tb.stat("rx_frames") == len(frames)
    assert tb.stat("rx_bad_fcs") == 0 and tb.stat("rx_errors") == 0 and tb.stat("tx_drops") == 0


@cocotb.test()
async def back_to_back_minimum_frames_keep_minimum_gap(dut):
    """64-byte frames queued back to back go out with exactly the least gap the lane-0 start
    allows (12 lanes for a 64-byte frame: /T/ in lane 4 of its word), none lost."""
    tb = Tb(dut, core_ps=4000, offset=0)
    await tb.reset()
    await tb.wait_lock()
    frames = [baser.random_frame(tb.rng, 60) for _ in range(20)]
    for f in frames:
        await tb.send(f)
    await tb.wait_rx(len(frames))
    for i, (a, b) in enumerate(zip(tb.rx_frames, frames)):
        assert a == b, f"frame {i}: got {a.hex()} sent {b.hex()}"
    assert len(tb.rx_frames) == len(frames)
    gaps = [g for _, g in tb.line.tx_frames[1:]]
    assert min(gaps) >= 12
    # 60 + 4 FCS + 8 start = 72 lanes, /T/ at lane 0 of the next word: 8 lanes of it, then one
    # idle word pays the remaining 4, so back-to-back frames have a gap of exactly 16.
    assert gaps.count(16) >= 10, f"gaps {gaps}"


@cocotb.test()
async def scrambler_output_matches_the_standard_polynomial(dut):
    """After reset the line carries idle blocks; the raw payloads equal the idle block scrambled
    bit by bit with G(x) = 1 + x^39 + x^58 from the all-ones state (figure 49-8)."""
    tb = Tb(dut)
    await tb.reset()
    await ClockCycles(dut.tx_clk_i, 80)
    ref = baser.Scrambler()
    idle_hdr, idle_payload = baser.encode([baser.IDLE] * 8, [True] * 8)
    # The first blocks after reset are idle; skip the reset cycles where the output is held.
    blocks = tb.line.tx_raw
    assert len(blocks) >= 32
    for hdr, raw in blocks[:32]:
        assert hdr == idle_hdr
        assert raw == ref.word(idle_payload), "scrambled payload differs from the standard's"


@cocotb.test()
async def bad_frames_are_counted_and_dropped(dut):
    """Received: good, bad FCS, good, an /E/ inside, a runt (54 bytes with FCS), a start in lane 4,
    a too-long frame: the core gets exactly the three good ones, each counter counts its kind."""
    tb = Tb(dut, offset=3)
    tb.line.loopback = False
    await tb.reset()
    await tb.wait_lock()
    rng = tb.rng
    good = [baser.random_frame(rng, n) for n in (60, 1000, 333)]
    words = []
    words += baser.lanes_to_words(baser.xgmii_frame(good[0]))
    words += baser.lanes_to_words(baser.xgmii_frame(baser.random_frame(rng, 100), bad_fcs=True))
    words += baser.lanes_to_words(baser.xgmii_frame(good[1]))
    words += baser.lanes_to_words(baser.xgmii_frame(baser.random_frame(rng, 200), error_at=50))
    words += baser.lanes_to_words(baser.xgmii_frame(baser.random_frame(rng, 50)))
    words += baser.lanes_to_words(baser.xgmii_frame(good[2], lane4=True))
    words += baser.lanes_to_words(baser.xgmii_frame(baser.random_frame(rng, 9700)))
    tb.line.rx_words += words
    try:
        await tb.wait_rx(3, limit=60000)
    finally:
        dut._log.info("got %s; rx_frames %d bad_fcs %d errors %d overflows %d",
                      [len(f) for f in tb.rx_frames], tb.stat("rx_frames"), tb.stat("rx_bad_fcs"),
                      tb.stat("rx_errors"), tb.stat("rx_overflows"))
    while tb.line.rx_words:   # the too-long frame is still on the line
        await RisingEdge(dut.rx_clk_i)
    await ClockCycles(dut.rx_clk_i, 200)
    assert tb.rx_frames == good
    assert tb.stat("rx_frames") == 3
    assert tb.stat("rx_bad_fcs") == 1
    assert tb.stat("rx_errors") == 3
    assert tb.stat("rx_overflows") == 0


@cocotb.test()
async def block_lock_after_bit_slips(dut):
    """From every tried bit offset the PCS slips to block lock within 66 slips and 64 good headers
    each; after the line moves by a few bits (lost alignment) it loses lock, slips back and
    traffic resumes whole."""
    tb = Tb(dut, offset=0)
    await tb.reset()
    for offset in (1, 33, 65):
        tb.line.channel.offset = offset
        tb.line.slips = 0
        await ClockCycles(dut.rx_clk_i, 4)
        await tb.wait_lock()
        assert tb.line.slips <= 66 + 1, f"{tb.line.slips} slips from offset {offset}"
        assert tb.line.channel.offset == 0 or tb.line.channel.offset % 66 == 0
        # Misalign while locked: 16 bad headers in a window of 64 lose lock.
        tb.line.channel.offset = (tb.line.channel.offset + 7) % 66
        for _ in range(2000):
            await RisingEdge(dut.clk_i)
            if not dut.rx_block_lock_o.value:
                break
        assert not dut.rx_block_lock_o.value, "lock kept on a misaligned line"
        tb.line.channel.offset = offset
    await tb.wait_lock()
    frames = [baser.random_frame(tb.rng, n) for n in (64, 777, 64)]
    for f in frames:
        await tb.send(f)
    await tb.wait_rx(3)
    assert tb.rx_frames == frames


@cocotb.test()
async def full_rx_fifo_drops_whole_frames_and_counts_them(dut):
    """With the core not taking received frames the RX FIFO fills; later frames are dropped
    whole and counted, and what was stored is delivered intact once the core reads again."""
    tb = Tb(dut, offset=5)
    tb.rx_ready_prob = 0.0
    await tb.reset()
    await tb.wait_lock()
    frames = [baser.random_frame(tb.rng, 9000) for _ in range(6)]
    for f in frames:
        await tb.send(f)
    while len(tb.line.tx_frames) < len(frames):
        await RisingEdge(dut.clk_i)
    await ClockCycles(dut.rx_clk_i, 2000)
    dropped = tb.stat("rx_overflows")
    assert dropped >= 1, "no frame dropped with the FIFO full"
    tb.rx_ready_prob = 0.7
    await tb.wait_rx(len(frames) - dropped)
    await ClockCycles(dut.clk_i, 2000)
    assert len(tb.rx_frames) == len(frames) - dropped
    assert tb.rx_frames == frames[:len(tb.rx_frames)]
    assert tb.stat("rx_frames") == len(frames)


@cocotb.test()
async def frame_longer_than_tx_fifo_is_dropped_and_counted(dut):
    """A frame longer than the TX FIFO can hold whole is dropped (TX_DROPS), not sent cut, and
    does not stall the core: the next frame goes out."""
    tb = Tb(dut, offset=9)
    await tb.reset()
    await tb.wait_lock()
    depth_bytes = (1 << len(dut.u_tx_fifo.wr_ptr_q) - 1) * tb.bpw
    big = baser.random_frame(tb.rng, depth_bytes + 100)
    small = baser.random_frame(tb.rng, 200)
    await tb.send(big)
    await tb.send(small)
    await tb.wait_rx(1)
    await ClockCycles(dut.clk_i, 500)
    assert tb.rx_frames == [small]
    assert tb.stat("tx_drops") == 1
    assert tb.stat("tx_frames") == 1


@cocotb.test()
async def synchronous_gearbox_pauses_lose_nothing(dut):
    """With tx_ce_i low one cycle in 33 (the GTY's synchronous gearbox) the TX path holds in the
    pauses, the looped-back RX side sees gaps in serdes_rx_valid_i, and frames still arrive whole."""
    tb = Tb(dut, offset=21)
    tb.gearbox_pause = True
    await tb.reset()
    await tb.wait_lock()
    frames = [baser.random_frame(tb.rng, n) for n in (60, 61, 64, 333, 1500, 9000, 64, 65)]
    for f in frames:
        await tb.send(f)
    await tb.wait_rx(len(frames))
    assert tb.rx_frames == frames
    assert [b for b, _ in tb.line.tx_frames] == frames
    await ClockCycles(dut.clk_i, 20)
    assert tb.stat("tx_drops") == 0 and tb.stat("rx_errors") == 0 and tb.stat("rx_bad_fcs") == 0
