# SPDX-License-Identifier: MIT
"""cocotb bench of nic_cdc_async_fifo (rtl/lib) under random clock ratios, random valid / ready
on both sides. PacketMode=0: every word arrives once, in order. PacketMode=1 (built separately):
only committed frames arrive, whole and in order; dropped ones never. run.py builds both."""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly


async def run_ratio(dut, seed, wr_ps, rd_ps, words=600):
    rng = random.Random(seed)
    packet = int(dut.PacketMode.value) if hasattr(dut, "PacketMode") else 0
    width = len(dut.wr_data_i)
    wclk = cocotb.start_soon(Clock(dut.wr_clk_i, wr_ps, units="ps").start())
    rclk = cocotb.start_soon(Clock(dut.rd_clk_i, rd_ps, units="ps").start())
    dut.wr_rst_i.value = 1
    dut.rd_rst_i.value = 1
    dut.wr_valid_i.value = 0
    dut.wr_commit_i.value = 0
    dut.wr_drop_i.value = 0
    dut.rd_ready_i.value = 0
    await ClockCycles(dut.wr_clk_i, 4)
    await ClockCycles(dut.rd_clk_i, 4)
    dut.wr_rst_i.value = 0
    dut.rd_rst_i.value = 0
    expected = []
    got = []
    wr_p = rng.choice([0.3, 0.7, 1.0])
    rd_p = rng.choice([0.3, 0.7, 1.0])

    async def writer():
        pending = []
        n = 0
        while n < words:
            v = rng.random() < wr_p
            val = rng.getrandbits(width)
            frame_end = packet and rng.random() < 0.15
            drop = packet and frame_end and rng.random() < 0.3
            dut.wr_valid_i.value = int(v)
            dut.wr_data_i.value = val
            dut.wr_commit_i.value = int(bool(frame_end and not drop))
            dut.wr_drop_i.value = int(bool(v and drop))
            await RisingEdge(dut.wr_clk_i)
            if v and (drop or dut.wr_ready_o.value):
                n += 1
                if not packet:
                    expected.append(val)
                elif drop:
                    pending = []
                else:
                    pending.append(val)
                    if frame_end:
                        expected.extend(pending)
                        pending = []
        dut.wr_valid_i.value = 0
        dut.wr_drop_i.value = 0
        dut.wr_commit_i.value = 0

    async def reader():
        while True:
            r = rng.random() < rd_p
            dut.rd_ready_i.value = int(r)
            await RisingEdge(dut.rd_clk_i)
            if r and dut.rd_valid_o.value:
                got.append(dut.rd_data_o.value.integer)

    w = cocotb.start_soon(writer())
    rd = cocotb.start_soon(reader())
    await w
    for _ in range(2000):
        await RisingEdge(dut.rd_clk_i)
        if len(got) >= len(expected):
            break
    await ClockCycles(dut.rd_clk_i, 20)
    rd.kill()
    assert got == expected, f"ratio {wr_ps}:{rd_ps}: {len(got)} words read, {len(expected)} expected"
    wclk.kill()
    rclk.kill()


@cocotb.test()
async def random_clock_ratios_keep_order_and_lose_nothing(dut):
    """Eight random write:read clock period pairs from 1:4 to 4:1, random valid and ready."""
    rng = random.Random(7)
    for i in range(8):
        wr_ps = 2 * rng.randint(1000, 6000)   # even: the half period is a whole ps
        rd_ps = 2 * rng.randint(1000, 6000)
        await run_ratio(dut, 100 + i, wr_ps, rd_ps)


@cocotb.test()
async def extreme_ratios(dut):
    """A fast writer into a reader 7x slower, and the other way round."""
    await run_ratio(dut, 1, 2000, 14000, words=300)
    await run_ratio(dut, 2, 14000, 2000, words=300)
