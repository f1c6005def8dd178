# SPDX-License-Identifier: MIT
"""Shared set-up of the PCIe test benches: cocotbext-pcie's model of the AMD UltraScale+ block
(256-bit interface, DWORD-aligned, straddle off, client tags: what fw/<board>/ip configures)
attached to a root complex, and helpers to delay and reorder the root complex's completions."""
import logging
import random

import cocotb
from cocotb.triggers import RisingEdge, Timer
from cocotbext.axi import AxiStreamBus
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.core.tlp import TlpType
from cocotbext.pcie.xilinx.us import UltraScalePlusPcieDevice

BAR0_BYTES = 1 << 22


def make_pcie(dut, msix_vectors=16, msix_table=0x3000, msix_pba=0x3800):
    """The root complex and the UltraScale+ block model wired to dut's block-side ports. The
    model drives the user clock (250 MHz) and reset."""
    rc = RootComplex()
    dev = UltraScalePlusPcieDevice(
        pcie_generation=3, pcie_link_width=8, user_clk_frequency=250e6, alignment="dword",
        cq_straddle=False, cc_straddle=False, rq_straddle=False, rc_straddle=False,
        rc_4tlp_straddle=False, pf_count=1, max_payload_size=1024, enable_client_tag=True,
        enable_extended_tag=False, enable_parity=False, enable_rx_msg_interface=False,
        enable_sriov=False, enable_extended_configuration=False,
        pf0_msi_enable=False, pf0_msix_enable=True, pf0_msix_table_size=msix_vectors - 1,
        pf0_msix_table_bir=0, pf0_msix_table_offset=msix_table,
        pf0_msix_pba_bir=0, pf0_msix_pba_offset=msix_pba,
        user_clk=dut.clk, user_reset=dut.rst,
        rq_bus=AxiStreamBus.from_prefix(dut, "s_axis_rq"),
        rc_bus=AxiStreamBus.from_prefix(dut, "m_axis_rc"),
        cq_bus=AxiStreamBus.from_prefix(dut, "m_axis_cq"),
        pcie_cq_np_req=dut.pcie_cq_np_req, pcie_cq_np_req_count=dut.pcie_cq_np_req_count,
        cc_bus=AxiStreamBus.from_prefix(dut, "s_axis_cc"),
        cfg_max_payload=dut.cfg_max_payload, cfg_max_read_req=dut.cfg_max_read_req,
        cfg_interrupt_msix_enable=dut.cfg_interrupt_msix_enable,
        cfg_interrupt_msix_mask=dut.cfg_interrupt_msix_mask,
    )
    dev.log.setLevel(logging.WARNING)
    rc.log.setLevel(logging.WARNING)
    dev.functions[0].configure_bar(0, BAR0_BYTES)
    rc.make_port().connect(dev)
    return rc, dev


class CplShaper:
    """Replaces the root complex's Memory Read handler: each read is answered after a random
    delay (so completions of different requests come back out of order and interleaved), with
    every completion split at the 64-byte RCB when split is set; drop(n) makes the next n reads
    go unanswered (a completion timeout), releasing their tag in the block model as the real
    block does when its own completion timer fires."""

    def __init__(self, rc, dev, seed=1):
        self.rc = rc
        self.dev = dev
        self.orig = rc.rx_tlp_handler[TlpType.MEM_READ_64]
        self.rng = random.Random(seed)
        self.max_delay_ns = 0
        self.to_drop = 0
        self.dropped = []
        rc.register_rx_tlp_handler(TlpType.MEM_READ, self.handle)
        rc.register_rx_tlp_handler(TlpType.MEM_READ_64, self.handle)

    def reorder(self, max_delay_ns, split=True):
        self.max_delay_ns = max_delay_ns
        self.rc.split_on_all_rcb = split

    def drop(self, n):
        self.to_drop += n

    async def handle(self, tlp):
        if self.to_drop:
            self.to_drop -= 1
            self.dropped.append(tlp.tag)
            self.dev.active_request[tlp.tag] = None
            return
        if self.max_delay_ns:
            cocotb.start_soon(self.later(tlp, self.rng.randrange(1, self.max_delay_ns)))
        else:
            await self.orig(tlp)

    async def later(self, tlp, delay):
        await Timer(delay, "ns")
        await self.orig(tlp)


async def cycles_until(clk, cond, limit=100000):
    """Clock edges until cond() is true (checked after each rising edge)."""
    n = 0
    while not cond():
        await RisingEdge(clk)
        n += 1
        assert n < limit, "condition never became true"
    return n
