/* SPDX-License-Identifier: MIT */
/*
 * NDK deferred processing (shared/spec/seed-deferred-processing.md), checked cycle by cycle on
 * the simulated NIC: NDK_OP_FLAG_DEFER writes the WQE and rings no doorbell; the next request
 * without DEFER rings once for the whole chain; an inline failure first indicates every earlier
 * deferred request; the library rings by itself when deferred WQEs fill half the ring.
 * docs/conformance.md maps each rule of the seed to the tests here.
 */
#include "cosim.h"

#define CTX(n)	      ((void *)(uintptr_t)(0x1000 + (n)))
#define SETTLE_CYCLES DEFER_SETTLE_CYCLES

static struct region *regions_make(struct world *w, int n)
{
	struct region *r = calloc((size_t)n, sizeof(*r));
	cr_assert_not_null(r);
	for (int i = 0; i < n; i++)
		region_make(w, &r[i], 1, false);
	return r;
}

static void regions_free(struct world *w, struct region *r, int n)
{
	for (int i = 0; i < n; i++)
		region_free(w, &r[i]);
	free(r);
}

/* Request i of a chain: FastRegister of MR i/2 when i is even, its Invalidate when odd, so
 * that a chain of any length needs half as many MRs and every request depends on the one
 * before (a lost or reordered WQE turns into an error completion). */
static ndk_status chain_post(struct world *w, struct region *r, int i, uint32_t flags)
{
	if (i % 2)
		return ndk_invalidate_mr(w->qp, CTX(i), r[i / 2].mr, flags);
	return region_register(w, &r[i / 2], CTX(i), flags);
}

static uint32_t chain_type(int i)
{
	return i % 2 ? NDK_OP_INVALIDATE : NDK_OP_FAST_REGISTER;
}

/* A chain of n deferred requests plus one terminating request. */
static void chain_of(int n)
{
	struct world w;
	world_open(&w, 256, 256);
	const int nmr = n / 2 + 1;
	struct region *r = regions_make(&w, nmr);
	struct ndk_sim_stats s0 = stats_of(&w);

	for (int i = 0; i < n; i++)
		expect_status(&w, chain_post(&w, r, i, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	/* deferred: no doorbell, and the NIC fetches nothing however long we wait */
	expect_deferred_idle(&w, &s0, "deferred chain");
	cr_expect_eq(ndk_get_cq_results_ex(w.cq, &(struct ndk_result_ex){ 0 }, 1), 0);

	/* the terminating request rings once, with the newest producer index */
	expect_status(&w, chain_post(&w, r, n, 0), NDK_STATUS_SUCCESS);
	/* until the doorbell reaches the NIC, still nothing is fetched */
	await_doorbell_without_fetch(&w, &s0);
	for (int i = 0; i <= n; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, chain_type(i), CTX(i));
	expect_one_doorbell_burst_fetch(&w, &s0, (uint64_t)n + 1, MAX_BURST_WQES, "chain");
	expect_no_completion(&w, w.cq, 2000);
	regions_free(&w, r, nmr);
	world_close(&w);
}

Test(defer, chain_of_1_rings_once_and_fetches_in_one_burst)
{
	chain_of(1);
}
Test(defer, chain_of_7_rings_once_and_fetches_in_one_burst)
{
	chain_of(7);
}
Test(defer, chain_of_31_rings_once_and_fetches_in_bursts)
{
	chain_of(31);
}
Test(defer, chain_of_127_rings_once_and_fetches_in_bursts)
{
	chain_of(127);
}

/* The seed's own example, step by step. */
Test(defer, inline_failure_indicates_earlier_deferred_requests_seed_example)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r1, r2;
	region_make(&w, &r1, 1, false);
	region_make(&w, &r2, 1, false);
	struct ndk_sim_stats s0 = stats_of(&w);
	/* 1. the first FastRegister (DEFER) succeeds */
	expect_status(&w, region_register(&w, &r1, CTX(1), NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	cr_assert_eq(stats_of(&w).sq_doorbells, s0.sq_doorbells, "DEFER rang a doorbell");
	/* 2. the second (DEFER) fails inline: more pages than its MR was initialised with */
	uint64_t pages[2] = { r2.pages[0], r2.pages[0] + NDK_PAGE_SIZE };
	expect_status(&w,
		      ndk_fast_register(w.qp, CTX(2), r2.mr, 2, pages, 0, 2 * NDK_PAGE_SIZE,
					(uint64_t)(uintptr_t)r2.buf.va, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_INVALID_PARAMETER);
	/* 3. before that call returned, the first was indicated: its doorbell is on the way and
	 * reaches the NIC with no further driver call (the clock only) */
	uint64_t t = ndk_sim_cycle(w.sim);
	while (stats_of(&w).sq_doorbells == s0.sq_doorbells) {
		if (ndk_sim_cycle(w.sim) - t > SETTLE_CYCLES)
			sim_fail(&w, "the deferred request was not indicated by the failing call");
		ndk_sim_step(w.sim, 1);
	}
	/* 4. the first completes; 5. the second never does; nothing else was posted */
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_no_completion(&w, w.cq, SETTLE_CYCLES);
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 1);
	cr_expect_eq(s1.wqes_fetched - s0.wqes_fetched, 1);
	region_free(&w, &r1);
	region_free(&w, &r2);
	world_close(&w);
}

/* A non-deferred request that fails inline after deferred ones: they still complete. */
Test(defer, non_deferred_inline_failure_after_deferred_requests)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region *r = regions_make(&w, 3);
	for (int i = 0; i < 3; i++)
		expect_status(&w, region_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(9), NULL, 0), NDK_STATUS_INVALID_PARAMETER);
	for (int i = 0; i < 3; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	expect_no_completion(&w, w.cq, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).sq_doorbells, 1);
	regions_free(&w, r, 3);
	world_close(&w);
}

/* Every request type that takes DEFER goes through the same failure rule: queue full. */
Test(defer, queue_full_after_deferred_requests_indicates_them)
{
	struct world w;
	world_open(&w, 16, 4);
	struct region *r = regions_make(&w, 5);
	for (int i = 0; i < 4; i++)
		expect_status(&w, region_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
	/* a 4-deep ring: the library may already have rung at half the ring (2); the failure
	 * must have indicated all four by the time it returns */
	expect_status(&w, region_register(&w, &r[4], CTX(4), NDK_OP_FLAG_DEFER),
		      NDK_STATUS_NO_MORE_ENTRIES);
	for (int i = 0; i < 4; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	expect_no_completion(&w, w.cq, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).wqes_fetched, 4);
	regions_free(&w, r, 5);
	world_close(&w);
}

/* DEFER is a hint: when deferred WQEs reach half the ring, the library rings by itself, so a
 * long chain never runs the queue out of space or stalls. */
Test(defer, long_chain_rings_by_itself_at_half_the_ring)
{
	struct world w;
	world_open(&w, 64, 16);
	struct region *r = regions_make(&w, 12);
	struct ndk_sim_stats s0 = stats_of(&w);
	for (int i = 0; i < 7; i++)
		expect_status(&w, region_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).sq_doorbells, s0.sq_doorbells, "rang before half the ring");
	expect_status(&w, region_register(&w, &r[7], CTX(7), NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).sq_doorbells, s0.sq_doorbells + 1,
		     "8 deferred of 16: the library rings");
	for (int i = 0; i < 8; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	for (int i = 8; i < 11; i++)
		expect_status(&w, region_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &r[11], CTX(11), 0), NDK_STATUS_SUCCESS);
	for (int i = 8; i < 12; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	cr_expect_eq(stats_of(&w).sq_doorbells, s0.sq_doorbells + 2);
	regions_free(&w, r, 12);
	world_close(&w);
}

/* A deferred chain across the end of the ring: the fetch splits at the ring end, nothing else. */
Test(defer, deferred_chain_across_the_ring_wrap)
{
	struct world w;
	world_open(&w, 64, 16);
	struct region *r = regions_make(&w, 18);
	for (int i = 0; i < 10; i++) { /* move the producer index to slot 10 */
		expect_status(&w, region_register(&w, &r[i], CTX(i), 0), NDK_STATUS_SUCCESS);
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	}
	struct ndk_sim_stats s0 = stats_of(&w);
	for (int i = 10; i < 17; i++) /* slots 10..15, then 0 */
		expect_status(&w, region_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &r[17], CTX(17), 0), NDK_STATUS_SUCCESS); /* slot 1 */
	for (int i = 10; i < 18; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 1);
	cr_expect_eq(s1.wqes_fetched - s0.wqes_fetched, 8);
	cr_expect_eq(s1.wqe_fetch_reads - s0.wqe_fetch_reads, 2,
		     "one read to the ring end, one after");
	regions_free(&w, r, 18);
	world_close(&w);
}

/*
 * Local requests execute at least as fast as their WQEs stream in: a chain of MaxBurstWqes
 * Invalidates arrives in one DMA read whose beats follow one per cycle, WQE_BYTES / (width / 8)
 * beats a WQE. From the first CQE write to the last, the engine may take no more cycles per WQE
 * than that (plus a constant for the pipeline), so execution never adds a bubble per WQE.
 */
Test(defer, local_requests_keep_up_with_the_wqe_stream)
{
	struct ndk_sim_config c;
	world_config(&c);
	struct world w;
	world_open_cfg(&w, &c, 64, 64);
	const int n = MAX_BURST_WQES;
	struct region *r = regions_make(&w, n);
	for (int i = 0; i < n; i++) {
		expect_status(&w, region_register(&w, &r[i], CTX(i), 0), NDK_STATUS_SUCCESS);
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	}
	struct ndk_sim_stats s0 = stats_of(&w);
	for (int i = 0; i < n; i++)
		expect_status(&w,
			      ndk_invalidate_mr(w.qp, CTX(100 + i), r[i].mr,
						i + 1 < n ? NDK_OP_FLAG_DEFER : 0),
			      NDK_STATUS_SUCCESS);
	/* watch every cycle for the CQE writes */
	uint64_t first = 0, last = 0, start = ndk_sim_cycle(w.sim);
	while (stats_of(&w).cqes_written - s0.cqes_written < (uint64_t)n) {
		uint64_t before = stats_of(&w).cqes_written;
		ndk_sim_step(w.sim, 1);
		uint64_t now = stats_of(&w).cqes_written;
		if (now != before) {
			if (before == s0.cqes_written)
				first = ndk_sim_cycle(w.sim);
			last = ndk_sim_cycle(w.sim);
		}
		if (ndk_sim_cycle(w.sim) - start > SETTLE_CYCLES)
			sim_fail(&w, "%" PRIu64 " of %d CQEs written",
				 stats_of(&w).cqes_written - s0.cqes_written, n);
	}
	cr_expect_eq(stats_of(&w).wqe_fetch_reads - s0.wqe_fetch_reads, 1, "one burst");
	const uint64_t beats_per_wqe = 64 / (c.data_width / 8);
	const uint64_t pipeline_slack = 4;
	uint64_t span = last - first;
	cr_log_info("width %u: %d CQEs written over %" PRIu64 " cycles (%.2f cycles per WQE)",
		    c.data_width, n, span, (double)span / (n - 1));
	if (span > (uint64_t)(n - 1) * beats_per_wqe + pipeline_slack)
		sim_fail(&w,
			 "%d CQEs took %" PRIu64 " cycles from first to last; the WQE stream "
			 "brings one every %" PRIu64 " cycles (bound %" PRIu64 ")",
			 n, span, beats_per_wqe,
			 (uint64_t)(n - 1) * beats_per_wqe + pipeline_slack);
	for (int i = 0; i < n; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(100 + i));
	regions_free(&w, r, n);
	world_close(&w);
}

/* Thousands of doorbells, most arriving while fetches of that queue are in flight: every WQE is
 * fetched exactly once and completes once, in order. */
Test(defer, doorbell_storm_loses_and_repeats_nothing, .timeout = 120)
{
	struct ndk_sim_config c;
	world_config(&c);
	c.host_wqe_ns = 0;
	c.host_doorbell_ns = 0; /* doorbells as fast as the bus takes them */
	struct world w;
	world_open_cfg(&w, &c, 4096, 4096);
	struct region r;
	region_make(&w, &r, 1, false);
	struct ndk_sim_stats s0 = stats_of(&w);
	const int n = 2000;
	/* alternate FastRegister / Invalidate of one MR: any lost, repeated or reordered WQE
	 * turns into an error completion */
	for (int i = 0; i < n; i++) {
		ndk_status st = i % 2 ? ndk_invalidate_mr(w.qp, CTX(i), r.mr, 0) :
					region_register(&w, &r, CTX(i), 0);
		expect_status(&w, st, NDK_STATUS_SUCCESS);
	}
	for (int i = 0; i < n; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS,
				  i % 2 ? NDK_OP_INVALIDATE : NDK_OP_FAST_REGISTER, CTX(i));
	expect_no_completion(&w, w.cq, SETTLE_CYCLES);
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, (uint64_t)n);
	cr_expect_eq(s1.wqes_fetched - s0.wqes_fetched, (uint64_t)n, "WQEs fetched");
	cr_expect_lt(s1.wqe_fetch_reads - s0.wqe_fetch_reads, (uint64_t)n,
		     "doorbells coalesced into bursts");
	region_free(&w, &r);
	world_close(&w);
}

/* Two QPs with interleaved chains: each chain rings its own queue once, all complete, per-QP
 * order holds. */
Test(defer, two_qps_with_interleaved_chains)
{
	struct world w;
	world_open(&w, 64, 16);
	struct ndk_qp *qp2;
	struct ndk_qp_attr a = { .receive_cq = w.cq,
				 .initiator_cq = w.cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 16,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w.pd, &a, &qp2), NDK_STATUS_SUCCESS);
	struct region *r = regions_make(&w, 10);
	struct ndk_sim_stats s0 = stats_of(&w);
	for (int i = 0; i < 5; i++) {
		uint32_t f = i < 4 ? NDK_OP_FLAG_DEFER : 0;
		expect_status(&w, region_register(&w, &r[i], CTX(i), f), NDK_STATUS_SUCCESS);
		expect_status(&w,
			      ndk_fast_register(qp2, CTX(100 + i), r[5 + i].mr, 1, r[5 + i].pages,
						0, NDK_PAGE_SIZE,
						(uint64_t)(uintptr_t)r[5 + i].buf.va, f),
			      NDK_STATUS_SUCCESS);
	}
	int next1 = 0, next2 = 0;
	while (next1 < 5 || next2 < 5) {
		struct ndk_result_ex res;
		poll_one(&w, w.cq, &res, 100000);
		expect_status(&w, res.status, NDK_STATUS_SUCCESS);
		if (res.request_context == CTX(next1))
			next1++;
		else if (res.request_context == CTX(100 + next2))
			next2++;
		else
			sim_fail(&w, "completion %p out of per-QP order (next %d / %d)",
				 res.request_context, next1, next2);
	}
	cr_expect_eq(stats_of(&w).sq_doorbells - s0.sq_doorbells, 2);
	ndk_close_qp(qp2);
	regions_free(&w, r, 10);
	world_close(&w);
}

/* DEFER is accepted by FastRegister, Bind and Invalidate (MR and MW): one chain, one doorbell. */
Test(defer, every_local_request_type_takes_defer)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	struct ndk_sim_stats s0 = stats_of(&w);
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	expect_status(&w,
		      region_register(&w, &r, CTX(1),
				      NDK_OP_FLAG_DEFER | NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_status(&w,
		      ndk_bind(w.qp, CTX(2), r.mr, mw, va, 128,
			       NDK_OP_FLAG_DEFER | NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_SUCCESS);
	expect_status(&w, ndk_invalidate_mw(w.qp, CTX(3), mw, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).sq_doorbells, s0.sq_doorbells);
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(4), r.mr, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(2));
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(3));
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(4));
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 1);
	cr_expect_eq(s1.wqe_fetch_reads - s0.wqe_fetch_reads, 1);
	ndk_close_mw(mw);
	region_free(&w, &r);
	world_close(&w);
}

/* Read / Send / SendAndInvalidate / Write take DEFER on the same posting path; until the
 * transport lands they fail inline, and that failure indicates the deferred requests before. */
Test(defer, transport_request_failing_inline_indicates_deferred_requests)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	struct ndk_sge sge = { .address = r.buf.logical,
			       .length = 64,
			       .token = ndk_get_privileged_token(w.pd) };
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	/* the QP is not connected: Send, Write, Read and SendAndInvalidate all fail inline */
	expect_status(&w, ndk_send(w.qp, CTX(2), &sge, 1, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_CONNECTION_INVALID);
	expect_status(&w, ndk_write(w.qp, CTX(3), &sge, 1, 0x1000, 0x100, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_CONNECTION_INVALID);
	expect_status(&w, ndk_read(w.qp, CTX(4), &sge, 1, 0x1000, 0x100, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_CONNECTION_INVALID);
	expect_status(&w, ndk_send_and_invalidate(w.qp, CTX(5), &sge, 1, NDK_OP_FLAG_DEFER, 0x100),
		      NDK_STATUS_CONNECTION_INVALID);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_no_completion(&w, w.cq, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).sq_doorbells, 1);
	region_free(&w, &r);
	world_close(&w);
}
