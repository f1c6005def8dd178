/* SPDX-License-Identifier: MIT */
/*
 * BlueFlame (docs/blueflame.md): a WQE written through the QP's doorbell page together with
 * the SQ doorbell replaces the WQE fetch, but only when the copy is complete and is exactly
 * the one WQE the doorbell adds; anything else falls back to the fetch from the ring.
 *
 * The fallback cases drive BAR0 directly (below the driver, as cosim_harness.c does) so that
 * the ring and the copy can disagree: the ring holds a NOP where the copy holds a WQE that
 * would fail (a bad opcode), or the other way round, and the CQE tells which one ran.
 * The driver case checks that NDK_BLUEFLAME=1 makes single posts fetch nothing.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cosim.h"
#include "nic_hw.h"
#include "nicsim.h"
#include "nicsim_raw.h"

#define BAD_OPCODE    0xee /* no such WQE opcode: it completes INVALID_PARAMETER */
#define SQ_LOG_DEPTH  4
#define CQ_LOG_DEPTH  4
#define SETTLE_CYCLES 3000 /* a doorbell's trip + a fetch round trip + the CQE, with margin */

struct raw {
	struct nicsim *w;
	uint8_t *sq;
	struct nic_cqe *cq;
	uint64_t sq_la, cq_la;
	unsigned cqes_seen;
};

static uint32_t qp_page(unsigned qpn)
{
	return NIC_REG_QP_DB_BASE + (qpn << NIC_DB_PAGE_SHIFT);
}

static void cmd(struct raw *r, const uint32_t *args, unsigned nargs, uint32_t op)
{
	for (unsigned i = 0; i < nargs; i++)
		nicsim_mmio_write32(r->w, 0, NIC_REG_ARG0 + 4 * i, args[i]);
	nicsim_mmio_write32(r->w, 0, NIC_REG_CMD, op);
}

/* one NIC, CQ 0 and QP 0 (send ring of 16 WQEs) created by commands */
static void raw_open(struct raw *r)
{
	struct nicsim_config c = raw_config(1);
	void *va;
	memset(r, 0, sizeof(*r));
	cr_assert_eq(nicsim_create(&c, &r->w), 0);
	cr_assert_eq(nicsim_mmio_read32(r->w, 0, NIC_REG_CAP_SQ_BF), NIC_WQE_BYTES,
		     "CAP_SQ_BF: the core has a 64-byte BlueFlame area");
	cr_assert_eq(nicsim_dma_alloc(r->w, 0, ((size_t)1 << CQ_LOG_DEPTH) * 32 + 32, NICSIM_MEM_CQ,
				      &va, &r->cq_la),
		     0);
	r->cq = va;
	cr_assert_eq(nicsim_dma_alloc(r->w, 0, ((size_t)1 << SQ_LOG_DEPTH) * NIC_WQE_BYTES,
				      NICSIM_MEM_SQ, &va, &r->sq_la),
		     0);
	r->sq = va;
	const uint32_t cq_args[] = { (uint32_t)r->cq_la, (uint32_t)(r->cq_la >> 32), CQ_LOG_DEPTH };
	cmd(r, cq_args, 3, NIC_CMD_CQ_CREATE);
	const uint32_t qp_args[] = {
		(uint32_t)r->sq_la, (uint32_t)(r->sq_la >> 32), 0, SQ_LOG_DEPTH, 0, 0
	};
	cmd(r, qp_args, 6, NIC_CMD_QP_CREATE);
	nicsim_step(r->w, 200);
}

/* a WQE with this opcode and index (a NOP completes SUCCESS; BAD_OPCODE INVALID_PARAMETER) */
static void wqe_make(uint8_t *wqe, uint8_t opcode, uint16_t index)
{
	struct nic_wqe_hdr h;
	memset(&h, 0, sizeof(h));
	h.opcode = opcode;
	h.index = htole16(index);
	memcpy(wqe, &h, sizeof(h));
}

static void ring_put(struct raw *r, uint16_t index, uint8_t opcode)
{
	wqe_make(r->sq + (index & ((1u << SQ_LOG_DEPTH) - 1)) * NIC_WQE_BYTES, opcode, index);
}

/* the first `words` words of a copy of a WQE, through QP qpn's BlueFlame area */
static void bf_write(struct raw *r, unsigned qpn, uint8_t opcode, uint16_t index, unsigned words)
{
	uint8_t wqe[NIC_WQE_BYTES];
	wqe_make(wqe, opcode, index);
	for (unsigned i = 0; i < words; i++) {
		uint32_t v;
		memcpy(&v, wqe + 4 * i, 4);
		nicsim_mmio_write32(r->w, 0, qp_page(qpn) + NIC_DB_SQ_BF + 4 * i, le32toh(v));
	}
}

static void doorbell(struct raw *r, uint16_t pi)
{
	nicsim_mmio_write32(r->w, 0, qp_page(0) + NIC_DB_SQ_PI, pi);
}

static uint64_t fetch_reads(struct raw *r)
{
	struct nicsim_stats s;
	nicsim_get_stats(r->w, 0, &s);
	return s.wqe_fetch_reads;
}

/* the next CQE: its WQE index and status */
static void expect_cqe(struct raw *r, uint16_t index, uint32_t status, const char *what)
{
	const struct nic_cqe *e = &r->cq[r->cqes_seen % (1u << CQ_LOG_DEPTH)];
	cr_assert_eq(e->owner & 1, 1, "%s: no CQE for WQE %u by cycle %" PRIu64, what, index,
		     nicsim_cycle(r->w));
	cr_expect_eq(le16toh(e->wqe_index), index, "%s: CQE of WQE %u, want %u", what,
		     le16toh(e->wqe_index), index);
	cr_expect_eq(le32toh(e->status), status, "%s: status 0x%08x, want 0x%08x", what,
		     le32toh(e->status), status);
	r->cqes_seen++;
}

/* Post WQE `index`, let the NIC run, and check which copy ran and how many fetches it cost. */
static void expect_run(struct raw *r, uint16_t index, uint64_t reads_before, uint64_t want_reads,
		       const char *what)
{
	nicsim_step(r->w, SETTLE_CYCLES);
	expect_cqe(r, index, NIC_STATUS_SUCCESS, what);
	cr_expect_eq(r->cq[r->cqes_seen % (1u << CQ_LOG_DEPTH)].owner & 1, 0,
		     "%s: a CQE more than expected", what);
	cr_expect_eq(fetch_reads(r) - reads_before, want_reads,
		     "%s: %" PRIu64 " fetch reads, want %" PRIu64, what,
		     fetch_reads(r) - reads_before, want_reads);
}

Test(blueflame, a_complete_copy_of_the_next_wqe_replaces_the_fetch)
{
	struct raw r;
	raw_open(&r);
	/* the ring holds a WQE that would fail; the copy is a good NOP: SUCCESS proves the
	 * copy ran, and no fetch was made */
	for (uint16_t i = 0; i < 3; i++) {
		uint64_t f0 = fetch_reads(&r);
		ring_put(&r, i, BAD_OPCODE);
		bf_write(&r, 0, NIC_WQE_OP_NOP, i, 16);
		doorbell(&r, (uint16_t)(i + 1));
		expect_run(&r, i, f0, 0, "complete copy");
	}
	nicsim_destroy(r.w);
}

Test(blueflame, a_partial_stale_or_foreign_copy_falls_back_to_the_fetch)
{
	struct raw r;
	raw_open(&r);
	uint16_t i = 0;
	uint64_t f0;

	/* 15 of 16 words: the copy (a failing WQE) is not used; the ring's NOP runs */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, i, 15);
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "partial copy");

	/* all 16 words, but one of them written again with partial strobes: not a copy */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, i, 16);
	nicsim_mmio_write32_strb(r.w, 0, qp_page(0) + NIC_DB_SQ_BF + 4 * 5, 0, 0x3);
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "a word with partial strobes");

	/* complete, but of another index than the one the doorbell adds */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, (uint16_t)(i + 1), 16);
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "copy of another index");

	/* complete and of the first WQE, but the doorbell adds two: both fetched in one read */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	ring_put(&r, (uint16_t)(i + 1), NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, i, 16);
	i = (uint16_t)(i + 2);
	doorbell(&r, i);
	nicsim_step(r.w, SETTLE_CYCLES);
	expect_cqe(&r, (uint16_t)(i - 2), NIC_STATUS_SUCCESS, "two WQEs, first");
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "two WQEs, second");

	/* complete, then a command: discarded (it may belong to an earlier incarnation) */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, i, 16);
	nicsim_mmio_write32(r.w, 0, NIC_REG_CMD, NIC_CMD_QP_FLUSH | (0xffffu << 8));
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "copy before a command");

	/* complete, written to another QP's page: not this QP's copy */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, i, 8);
	bf_write(&r, 1, BAD_OPCODE, i, 16);
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "copy on another QP's page");

	/* consumed by a doorbell that added nothing: the next doorbell fetches */
	f0 = fetch_reads(&r);
	ring_put(&r, i, NIC_WQE_OP_NOP);
	bf_write(&r, 0, BAD_OPCODE, i, 16);
	doorbell(&r, i);
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 1, "copy consumed by an earlier doorbell");

	/* and a good copy still works after all that */
	f0 = fetch_reads(&r);
	ring_put(&r, i, BAD_OPCODE);
	bf_write(&r, 0, NIC_WQE_OP_NOP, i, 16);
	doorbell(&r, ++i);
	expect_run(&r, (uint16_t)(i - 1), f0, 0, "good copy afterwards");
	nicsim_destroy(r.w);
}

/* Through the driver: with NDK_BLUEFLAME=1 a single post fetches nothing, a chain is fetched. */
Test(blueflame, driver_single_posts_fetch_nothing_and_chains_are_fetched)
{
	setenv("NDK_BLUEFLAME", "1", 1);
	struct world w;
	world_open(&w, 64, 64);
	unsetenv("NDK_BLUEFLAME");
	struct region reg[3];
	for (int i = 0; i < 3; i++)
		region_make(&w, &reg[i], 1, false);
	struct ndk_sim_stats s0 = stats_of(&w);
	expect_status(&w, region_register(&w, &reg[0], (void *)1, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, (void *)1);
	expect_status(&w, ndk_invalidate_mr(w.qp, (void *)2, reg[0].mr, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, (void *)2);
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.wqe_fetch_reads - s0.wqe_fetch_reads, 0,
		     "single posts with BlueFlame: %" PRIu64 " fetch reads",
		     s1.wqe_fetch_reads - s0.wqe_fetch_reads);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 2);
	/* a deferred chain of two rings once for two WQEs: fetched, in one read */
	expect_status(&w, region_register(&w, &reg[1], (void *)4, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &reg[2], (void *)5, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, (void *)4);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, (void *)5);
	struct ndk_sim_stats s2 = stats_of(&w);
	cr_expect_eq(s2.wqe_fetch_reads - s1.wqe_fetch_reads, 1, "a chain is fetched");
	/* registering a valid MR again fails on the NIC: the copy is checked like a fetched WQE */
	expect_status(&w, region_register(&w, &reg[2], (void *)6, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_INVALID_DEVICE_STATE, NDK_OP_FAST_REGISTER,
			  (void *)6);
	cr_expect_eq(stats_of(&w).wqe_fetch_reads, s2.wqe_fetch_reads, "single post: no fetch");
	for (int i = 0; i < 3; i++)
		region_free(&w, &reg[i]);
	world_close(&w);
}
