# SPDX-License-Identifier: MIT
"""cocotb bench of the 10G MACs (nic_eth_mac_tx, nic_eth_mac_rx) against cocotbext-eth's XGMII
models: its XgmiiSink decodes what the TX MAC sends (preamble, SFD, FCS checked by the model), its
XgmiiSource sends frames with the deficit idle count, so starts fall in lane 0 and lane 4 and
gaps shrink to what the standard allows, which the RX MAC must realign and take whole."""
import random
import zlib

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource

import baser


async def setup(dut):
    cocotb.start_soon(Clock(dut.clk, 6400, units="ps").start())
    dut.rst.value = 1
    dut.tx_tvalid.value = 0
    dut.tx_tdata.value = 0
    dut.tx_tkeep.value = 0
    dut.tx_tlast.value = 0
    dut.xgmii_rxd.value = 0x0707070707070707
    dut.xgmii_rxc.value = 0xFF
    await ClockCycles(dut.clk, 5)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)


async def send_stream(dut, frame):
    for i in range(0, len(frame), 8):
        chunk = frame[i:i + 8]
        dut.tx_tdata.value = int.from_bytes(chunk.ljust(8, b"\0"), "little")
        dut.tx_tkeep.value = (1 << len(chunk)) - 1
        dut.tx_tlast.value = int(i + 8 >= len(frame))
        dut.tx_tvalid.value = 1
        while True:
            await RisingEdge(dut.clk)
            if dut.tx_tready.value:
                break
    dut.tx_tvalid.value = 0


async def collect_stream(dut, out):
    cur = bytearray()
    while True:
        await RisingEdge(dut.clk)
        if dut.rx_tvalid.value:
            keep = dut.rx_tkeep.value.integer
            n = bin(keep).count("1")
            assert keep == (1 << n) - 1
            cur += dut.rx_tdata.value.integer.to_bytes(8, "little")[:n]
            if dut.rx_tlast.value:
                out.append((bytes(cur), bool(dut.rx_tuser.value)))
                cur = bytearray()


@cocotb.test()
async def tx_frames_decode_in_the_xgmii_model(dut):
    """Frames of 14..9000 bytes sent back to back: the model sees each with a good FCS, padded
    to 60 bytes, starting in lane 0, and every byte equal."""
    await setup(dut)
    sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
    rng = random.Random(3)
    sizes = [14, 42, 59, 60, 61, 64, 65, 100, 1500, 9000] + [rng.randint(14, 2000) for _ in range(20)]
    frames = [baser.random_frame(rng, n) for n in sizes]

    async def sender():
        for f in frames:
            await send_stream(dut, f)
    cocotb.start_soon(sender())
    for f in frames:
        rx = await sink.recv()
        assert rx.check_fcs(), "FCS of the transmitted frame is wrong"
        assert rx.start_lane == 0
        payload = rx.get_payload()
        expect = f + bytes(max(0, 60 - len(f)))
        assert payload == expect, f"{len(f)}-byte frame: got {len(payload)} bytes"
    await ClockCycles(dut.clk, 10)
    assert dut.tx_frames.value.integer == len(frames)
    assert dut.tx_underruns.value.integer == 0


@cocotb.test()
async def rx_takes_model_frames_with_dic_and_lane4_starts(dut):
    """The model's frames (64..9000 bytes, minimum gap with deficit idle count, so starts in lane 0
    and lane 4) reach the stream whole, without FCS; frames with a wrong FCS come out marked bad
    and are counted."""
    await setup(dut)
    source = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
    source.enable_dic = True
    source.ifg = 12
    got = []
    cocotb.start_soon(collect_stream(dut, got))
    starts = {0: 0, 4: 0}

    async def count_starts():
        while True:
            await RisingEdge(dut.clk)
            d, c = dut.xgmii_rxd.value.integer, dut.xgmii_rxc.value.integer
            for lane in (0, 4):
                if c >> lane & 1 and (d >> (8 * lane)) & 0xFF == 0xFB:
                    starts[lane] += 1
    cocotb.start_soon(count_starts())
    rng = random.Random(5)
    sent = []
    for i in range(60):
        n = rng.choice([60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 200, 1500, rng.randint(60, 9000)])
        if i in (10, 30):
            n = 9000
        f = baser.random_frame(rng, n)
        bad = i % 7 == 3
        if bad:
            raw = bytearray(f + zlib.crc32(f).to_bytes(4, "little"))   # the model adds the preamble
            raw[-2] ^= 0x40
            await source.send(XgmiiFrame.from_raw_payload(bytes(raw)))
        else:
            await source.send(XgmiiFrame.from_payload(f))
        sent.append((f, bad))
    await source.wait()
    await ClockCycles(dut.clk, 20)
    assert len(got) == len(sent), f"{len(got)} frames out of {len(sent)}"
    for i, ((f, bad), (data, user)) in enumerate(zip(sent, got)):
        assert user == bad, f"frame {i}: bad flag {user}, expected {bad}"
        if not bad:
            assert data == f, f"frame {i} ({len(f)} bytes) differs"
    assert starts[4] >= 5 and starts[0] >= 5, f"starts by lane: {starts}"
    nbad = sum(1 for _, b in sent if b)
    assert dut.rx_good.value.integer == len(sent) - nbad
    assert dut.rx_bad_fcs.value.integer == nbad
    assert dut.rx_errors.value.integer == 0
