# SPDX-License-Identifier: MIT
"""cocotb bench of nic_eth_regs (rtl/eth): the port's host registers through AXI4-Lite. The MAC
and IPv4 address written by the host reach port_mac_o / port_ipv4_o (nic_core's port_mac_i /
port_ipv4_i) with byte strobes honoured; counters and link status read back; an offset outside
the block answers SLVERR; read-only registers ignore writes."""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly

OKAY, SLVERR = 0, 2


async def setup(dut):
    cocotb.start_soon(Clock(dut.clk_i, 10000, units="ps").start())
    dut.rst_i.value = 1
    for s in ("awvalid", "wvalid", "arvalid"):
        getattr(dut, f"s_axil_{s}_i").value = 0
    dut.s_axil_bready_i.value = 1
    dut.s_axil_rready_i.value = 1
    dut.s_axil_awaddr_i.value = 0
    dut.s_axil_araddr_i.value = 0
    dut.s_axil_wdata_i.value = 0
    dut.s_axil_wstrb_i.value = 0
    dut.block_lock_i.value = 1
    dut.hi_ber_i.value = 0
    for i, n in enumerate(("tx_frames", "tx_drops", "rx_frames", "rx_bad_fcs", "rx_errors", "rx_overflows")):
        getattr(dut, f"stat_{n}_i").value = 0x1000 + i
    await ClockCycles(dut.clk_i, 3)
    dut.rst_i.value = 0
    await ClockCycles(dut.clk_i, 1)


async def write(dut, addr, data, strb=0xF):
    dut.s_axil_awaddr_i.value = addr
    dut.s_axil_wdata_i.value = data
    dut.s_axil_wstrb_i.value = strb
    dut.s_axil_awvalid_i.value = 1
    dut.s_axil_wvalid_i.value = 1
    while True:
        await RisingEdge(dut.clk_i)
        if dut.s_axil_awready_o.value:
            break
    dut.s_axil_awvalid_i.value = 0
    dut.s_axil_wvalid_i.value = 0
    for _ in range(20):
        await ReadOnly()
        if dut.s_axil_bvalid_o.value:
            resp = dut.s_axil_bresp_o.value.integer
            await RisingEdge(dut.clk_i)
            return resp
        await RisingEdge(dut.clk_i)
    raise AssertionError("no write response")


async def read(dut, addr):
    dut.s_axil_araddr_i.value = addr
    dut.s_axil_arvalid_i.value = 1
    while True:
        await RisingEdge(dut.clk_i)
        if dut.s_axil_arready_o.value:
            break
    dut.s_axil_arvalid_i.value = 0
    for _ in range(20):
        await ReadOnly()
        if dut.s_axil_rvalid_o.value:
            r = (dut.s_axil_rdata_o.value.integer, dut.s_axil_rresp_o.value.integer)
            await RisingEdge(dut.clk_i)
            return r
        await RisingEdge(dut.clk_i)
    raise AssertionError("no read response")


@cocotb.test()
async def host_sets_mac_and_ipv4_and_the_core_sees_them(dut):
    await setup(dut)
    assert await read(dut, 0x00) == (0x4E444245, OKAY)
    assert dut.port_mac_o.value.integer == 0x020000000001       # the config's default
    assert dut.port_ipv4_o.value.integer == 0xC0A80001
    assert await write(dut, 0x04, 0x33445566) == OKAY
    assert await write(dut, 0x08, 0x00001122) == OKAY
    assert await write(dut, 0x0C, 0x0A000002) == OKAY
    await ClockCycles(dut.clk_i, 1)
    assert dut.port_mac_o.value.integer == 0x112233445566
    assert dut.port_ipv4_o.value.integer == 0x0A000002
    assert await read(dut, 0x04) == (0x33445566, OKAY)
    assert await read(dut, 0x08) == (0x1122, OKAY)
    # Byte strobes: only byte 1 of the IPv4 address changes.
    assert await write(dut, 0x0C, 0xFFFFABFF, strb=0b0010) == OKAY
    assert await read(dut, 0x0C) == (0x0A00AB02, OKAY)


@cocotb.test()
async def status_and_counters_read_back_and_bad_offsets_are_slverr(dut):
    await setup(dut)
    assert await read(dut, 0x10) == (0b01, OKAY)
    dut.hi_ber_i.value = 1
    dut.block_lock_i.value = 0
    await ClockCycles(dut.clk_i, 1)
    assert await read(dut, 0x10) == (0b10, OKAY)
    for i, off in enumerate(range(0x14, 0x2C, 4)):
        assert await read(dut, off) == (0x1000 + i, OKAY), hex(off)
    assert await read(dut, 0x2C) == (0, SLVERR)
    assert await read(dut, 0xFFFC) == (0, SLVERR)
    assert await write(dut, 0x40, 1) == SLVERR
    # A write to a read-only register is ignored.
    assert await write(dut, 0x14, 0xDEAD) == OKAY
    assert await read(dut, 0x14) == (0x1000, OKAY)
    assert await read(dut, 0x00) == (0x4E444245, OKAY)
