/* SPDX-License-Identifier: MIT */
/*
 * Tests of the simulated world itself (sim/nicsim.h) and of nic_core's register interface,
 * below the driver: BAR0 ID block, scratch register, the DMA firewall.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "nic_hw.h"
#include "nicsim.h"
#include "nicsim_raw.h"

static struct nicsim *make_world(void)
{
	struct nicsim_config c = raw_config(1);
	struct nicsim *w;
	cr_assert_eq(nicsim_create(&c, &w), 0);
	return w;
}

Test(bar0, id_block_comes_first_and_names_the_device)
{
	struct nicsim *w = make_world();
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_ID_MAGIC), NIC_MAGIC);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_VERSION) >> 16, NIC_VERSION_MAJOR);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_IDS), NIC_DEVICE_ID << 16 | NIC_VENDOR_ID);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_CAP_DATA_WIDTH), raw_width());
	cr_expect_neq(nicsim_mmio_read32(w, 0, NIC_REG_CAP_QUEUES), 0);
	nicsim_destroy(w);
}

/* docs/transport.md: the world gives NIC i the MAC 02:00:00:00:00:(i+1) and 10.0.0.(i+1) */
Test(bar0, each_port_reports_the_identity_the_platform_gave_it)
{
	struct nicsim_config c = raw_config(3);
	c.host_memory_bytes = 1 << 20;
	c.cycle_limit = 1000000;
	struct nicsim *w;
	cr_assert_eq(nicsim_create(&c, &w), 0);
	for (unsigned i = 0; i < 3; i++) {
		cr_expect_eq(nicsim_mmio_read32(w, i, NIC_REG_PORT_MAC_LO), i + 1, "NIC %u", i);
		cr_expect_eq(nicsim_mmio_read32(w, i, NIC_REG_PORT_MAC_HI), 0x0200, "NIC %u", i);
		cr_expect_eq(nicsim_mmio_read32(w, i, NIC_REG_PORT_IPV4), 0x0a000000u + i + 1,
			     "NIC %u", i);
	}
	nicsim_destroy(w);
}

Test(bar0, scratch_register_reads_back_after_posted_writes)
{
	struct nicsim *w = make_world();
	nicsim_mmio_write32(w, 0, NIC_REG_SCRATCH, 0xdeadbeef);
	nicsim_mmio_write32(w, 0, NIC_REG_SCRATCH, 0x12345678);
	/* a read does not pass the posted writes before it */
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_SCRATCH), 0x12345678);
	struct nicsim_stats s;
	nicsim_get_stats(w, 0, &s);
	cr_expect_eq(s.mmio_writes, 2);
	cr_expect_eq(s.mmio_reads, 1);
	nicsim_destroy(w);
}

/* The command argument registers ARG0..ARG7 read back what was written, each its own word (a
 * driver may read them back to check a command's arguments); a write changes only its word. */
Test(bar0, command_argument_registers_read_back_each_word)
{
	struct nicsim *w = make_world();
	for (uint32_t i = 0; i < 8; i++)
		nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 4 * i, 0xA5000000u | (i << 16) | (7 - i));
	for (uint32_t i = 0; i < 8; i++)
		cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_ARG0 + 4 * i),
			     0xA5000000u | (i << 16) | (7 - i), "ARG%u", i);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 12, 0);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_ARG0 + 12), 0, "ARG3 rewritten");
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_ARG0 + 16), 0xA5040003u, "ARG4 kept");
	nicsim_destroy(w);
}

/* Reads of write-only registers (CMD, the doorbells) and of unmapped offsets (between the
 * regions, past the port counters) return 0 and change nothing. */
Test(bar0, write_only_and_unmapped_registers_read_as_zero)
{
	struct nicsim *w = make_world();
	nicsim_mmio_write32(w, 0, NIC_REG_SCRATCH, 0x5a5a5a5a);
	const uint32_t offs[] = { NIC_REG_CMD,
				  NIC_REG_QP_DB_BASE + NIC_DB_SQ_PI,
				  NIC_REG_CQ_DB_BASE,
				  NIC_REG_SCRATCH + 4,
				  0x80,
				  NIC_REG_PORT_COUNTERS + 8 * NIC_PORT_COUNTER_COUNT,
				  0x3000 };
	for (unsigned i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		cr_expect_eq(nicsim_mmio_read32(w, 0, offs[i]), 0, "offset 0x%x", offs[i]);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_SCRATCH), 0x5a5a5a5a);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_ID_MAGIC), NIC_MAGIC);
	nicsim_destroy(w);
}

Test(bar0, mmio_read_takes_its_round_trip)
{
	struct nicsim *w = make_world();
	uint64_t t0 = nicsim_cycle(w);
	(void)nicsim_mmio_read32(w, 0, NIC_REG_ID_MAGIC);
	cr_expect_geq(nicsim_cycle(w) - t0, nicsim_ns_to_cycles(w, 1000));
	nicsim_destroy(w);
}

Test(bar0, writes_to_unknown_queues_are_ignored)
{
	struct nicsim *w = make_world();
	/* a doorbell for a QP and a CQ that do not exist, and a command for one */
	nicsim_mmio_write32(w, 0, NIC_REG_QP_DB_BASE + (255u << NIC_DB_PAGE_SHIFT), 5);
	nicsim_mmio_write32(w, 0, NIC_REG_CQ_DB_BASE + (255u << NIC_DB_PAGE_SHIFT), 1u << 16);
	nicsim_mmio_write32(w, 0, NIC_REG_CMD, 0xffff00u | NIC_CMD_QP_FLUSH);
	nicsim_step(w, 2000);
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_ID_MAGIC), NIC_MAGIC,
		     "the NIC still answers");
	struct nicsim_stats s;
	nicsim_get_stats(w, 0, &s);
	cr_expect_eq(s.dma_reads + s.dma_writes, 0, "no DMA for queues that do not exist");
	nicsim_destroy(w);
}

Test(dma, host_memory_is_zeroed_page_aligned_and_exact)
{
	struct nicsim *w = make_world();
	void *va;
	uint64_t la;
	cr_assert_eq(nicsim_dma_alloc(w, 0, 100, NICSIM_MEM_DATA, &va, &la), 0);
	cr_expect_eq(la % 4096, 0);
	cr_expect_eq((uintptr_t)va % 4096, 0);
	for (int i = 0; i < 100; i++)
		cr_expect_eq(((unsigned char *)va)[i], 0);
	cr_expect_neq(nicsim_dma_alloc(w, 0, (size_t)1 << 30, NICSIM_MEM_DATA, &va, &la), 0,
		      "over host_memory_bytes");
	nicsim_destroy(w);
}

/* A QP whose send ring points at memory the driver never allocated: the WQE fetch hits the
 * DMA firewall, which ends the run naming the address and the cycle. */
Test(dma, firewall_stops_dma_to_unallocated_memory, .signal = SIGABRT)
{
	struct nicsim *w = make_world();
	void *va;
	uint64_t cq;
	cr_assert_eq(nicsim_dma_alloc(w, 0, 17 * 32, NICSIM_MEM_CQ, &va, &cq), 0);
	const uint64_t bogus = 0x7700000000ull;
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 0, (uint32_t)cq);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 4, (uint32_t)(cq >> 32));
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 8, 4);
	nicsim_mmio_write32(w, 0, NIC_REG_CMD, NIC_CMD_CQ_CREATE);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 0, (uint32_t)bogus);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 4, (uint32_t)(bogus >> 32));
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 8, 0);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 12, 3);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 16, 0);
	nicsim_mmio_write32(w, 0, NIC_REG_ARG0 + 20, 0);
	nicsim_mmio_write32(w, 0, NIC_REG_CMD, NIC_CMD_QP_CREATE);
	nicsim_mmio_write32(w, 0, NIC_REG_QP_DB_BASE + NIC_DB_SQ_PI, 1);
	nicsim_step(w, 100000);
	cr_assert_fail("the firewall did not stop the fetch");
}

/*
 * docs/sim-speed.md: an idle NIC is evaluated only in a microsecond tick's cycle and the one after
 * it. State that changes in an idle NIC (a free-running counter, a proof's shadow register left
 * counting in simulation) would keep it awake: it still passes every functional test, but the
 * suite and `make run` slow down by up to 100x (a 1 MHz world). This counts the evaluations.
 */
Test(quiescence, an_idle_nic_wakes_only_for_the_microsecond_tick)
{
	const char *skip = getenv("NDK_SIM_SKIP_QUIET");
	if (skip && strcmp(skip, "0") == 0)
		cr_skip_test("NDK_SIM_SKIP_QUIET=0: every cycle is evaluated");
	struct nicsim_config c = raw_config(2);
	struct nicsim *w;
	cr_assert_eq(nicsim_create(&c, &w), 0);
	/* a CQ created and a register read: some work, then idle again */
	void *va;
	uint64_t cq;
	cr_assert_eq(nicsim_dma_alloc(w, 1, 17 * 32, NICSIM_MEM_CQ, &va, &cq), 0);
	nicsim_mmio_write32(w, 1, NIC_REG_ARG0 + 0, (uint32_t)cq);
	nicsim_mmio_write32(w, 1, NIC_REG_ARG0 + 4, (uint32_t)(cq >> 32));
	nicsim_mmio_write32(w, 1, NIC_REG_ARG0 + 8, 4);
	nicsim_mmio_write32(w, 1, NIC_REG_CMD, NIC_CMD_CQ_CREATE);
	cr_assert_eq(nicsim_mmio_read32(w, 1, NIC_REG_SCRATCH), 0);
	nicsim_step(w, 5000); /* settle: the probe finds the fixed point */
	struct nicsim_stats before[2], after[2];
	for (unsigned n = 0; n < 2; n++)
		nicsim_get_stats(w, n, &before[n]);
	const uint64_t cycles = 100000;
	nicsim_step(w, cycles);
	const uint64_t ticks = cycles / c.clock_mhz;
	for (unsigned n = 0; n < 2; n++) {
		nicsim_get_stats(w, n, &after[n]);
		const uint64_t evals = after[n].model_evals - before[n].model_evals;
		cr_expect_leq(
			evals, 2 * ticks + 2,
			"NIC %u: %llu evaluations in %llu idle cycles (%llu microsecond ticks)", n,
			(unsigned long long)evals, (unsigned long long)cycles,
			(unsigned long long)ticks);
		cr_expect_geq(evals, ticks, "NIC %u: each tick is an input change: evaluated", n);
	}
	nicsim_destroy(w);
}
