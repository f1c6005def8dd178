/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up for the cosimulation tests: a simulated world, an adapter, a PD, CQs and QPs,
 * and polling helpers bounded in simulated cycles. Every failure message names the cycle.
 * The data width comes from NDK_SIM_WIDTH (tools/run_tests.sh runs the suite at 64 and 256).
 */
#ifndef NDK_TESTS_COSIM_H
#define NDK_TESTS_COSIM_H

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndk.h"
#include "ndk_sim.h"

struct world {
	struct ndk_sim *sim;
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
};

#define QP_CONTEXT ((void *)0x5150)

/* fail with the simulated cycle in the message */
#define sim_fail(w, fmt, ...)                                              \
	cr_assert_fail("cycle %" PRIu64 ": " fmt                           \
		       " (rerun with waves: NDK_SIM_TRACE=/tmp/t.fst and " \
		       "--filter)",                                        \
		       ndk_sim_cycle((w)->sim), ##__VA_ARGS__)

#define expect_status(w, got, want)                                                             \
	do {                                                                                    \
		ndk_status got_ = (got), want_ = (want);                                        \
		if (got_ != want_)                                                              \
			sim_fail(w, "%s: got %s (0x%08x), want %s (0x%08x)", #got,              \
				 ndk_status_name(got_), (unsigned)got_, ndk_status_name(want_), \
				 (unsigned)want_);                                              \
	} while (0)

static inline void world_config(struct ndk_sim_config *c)
{
	ndk_sim_default_config(c);
	c->nics = 1;
}

static inline void world_open_cfg(struct world *w, const struct ndk_sim_config *c,
				  uint32_t cq_depth, uint32_t sq_depth)
{
	memset(w, 0, sizeof(*w));
	cr_assert_eq(ndk_sim_create(c, &w->sim), NDK_STATUS_SUCCESS, "ndk_sim_create");
	cr_assert_eq(ndk_sim_open_adapter(w->sim, 0, &w->ad), NDK_STATUS_SUCCESS, "open adapter");
	cr_assert_eq(ndk_query_adapter_info(w->ad, &w->info), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_pd(w->ad, &w->pd), NDK_STATUS_SUCCESS);
	if (cq_depth)
		cr_assert_eq(ndk_create_cq(w->ad, cq_depth, NULL, NULL, &w->cq),
			     NDK_STATUS_SUCCESS);
	if (sq_depth) {
		struct ndk_qp_attr a = {
			.receive_cq = w->cq,
			.initiator_cq = w->cq,
			.qp_context = QP_CONTEXT,
			.receive_queue_depth = 0,
			.initiator_queue_depth = sq_depth,
			.max_receive_request_sge = 0,
			.max_initiator_request_sge = 1,
			.inline_data_size = 0,
		};
		cr_assert_eq(ndk_create_qp(w->pd, &a, &w->qp), NDK_STATUS_SUCCESS);
	}
}

static inline void world_open(struct world *w, uint32_t cq_depth, uint32_t sq_depth)
{
	struct ndk_sim_config c;
	world_config(&c);
	world_open_cfg(w, &c, cq_depth, sq_depth);
}

static inline void world_close(struct world *w)
{
	if (w->qp)
		ndk_close_qp(w->qp);
	if (w->cq)
		ndk_close_cq(w->cq);
	if (w->pd)
		ndk_close_pd(w->pd);
	if (w->ad)
		ndk_close_adapter(w->ad);
	if (w->sim)
		ndk_sim_destroy(w->sim);
}

/* Poll one completion; fail the test when none arrives within max_cycles. */
static inline void poll_one(struct world *w, struct ndk_cq *cq, struct ndk_result_ex *r,
			    uint64_t max_cycles)
{
	uint64_t deadline = ndk_sim_cycle(w->sim) + max_cycles;
	while (ndk_get_cq_results_ex(cq, r, 1) == 0) {
		if (ndk_sim_cycle(w->sim) > deadline)
			sim_fail(w, "no completion within %" PRIu64 " cycles", max_cycles);
		ndk_sim_step(w->sim, 1);
	}
}

/* Run the world for `cycles` and require that the CQ stays empty. */
static inline void expect_no_completion(struct world *w, struct ndk_cq *cq, uint64_t cycles)
{
	struct ndk_result_ex r;
	ndk_sim_step(w->sim, cycles);
	if (ndk_get_cq_results_ex(cq, &r, 1) != 0)
		sim_fail(w, "unexpected completion: status %s type %u request_context %p",
			 ndk_status_name(r.status), r.type, r.request_context);
}

static inline void expect_completion(struct world *w, struct ndk_cq *cq, ndk_status status,
				     uint32_t type, void *request_context)
{
	struct ndk_result_ex r;
	poll_one(w, cq, &r, 100000);
	expect_status(w, r.status, status);
	if (r.type != type)
		sim_fail(w, "completion type %u, want %u", r.type, type);
	if (r.request_context != request_context)
		sim_fail(w, "request_context %p, want %p", r.request_context, request_context);
	if (r.qp_context != QP_CONTEXT)
		sim_fail(w, "qp_context %p, want %p", r.qp_context, QP_CONTEXT);
}

static inline struct ndk_sim_stats stats_of(struct world *w)
{
	struct ndk_sim_stats s;
	ndk_sim_get_stats(w->sim, 0, &s);
	return s;
}

/* DEFER checks, shared by the local and the transport tests (NIC 0 posts). */
#define DEFER_SETTLE_CYCLES 4000 /* far longer than a doorbell's trip + a DMA round trip */
#define MAX_BURST_WQES	    16	 /* nic_core's MaxBurstWqes default (CAP_SQ[15:8]) */

/* While only deferred requests are posted: no doorbell and no WQE fetch, however long we wait. */
static inline void expect_deferred_idle(struct world *w, const struct ndk_sim_stats *s0,
					const char *what)
{
	ndk_sim_step(w->sim, DEFER_SETTLE_CYCLES);
	struct ndk_sim_stats s1 = stats_of(w);
	if (s1.sq_doorbells != s0->sq_doorbells || s1.wqes_fetched != s0->wqes_fetched)
		sim_fail(w,
			 "%s: %" PRIu64 " doorbells, %" PRIu64 " WQEs fetched while deferred, "
			 "want 0, 0",
			 what, s1.sq_doorbells - s0->sq_doorbells,
			 s1.wqes_fetched - s0->wqes_fetched);
}

/* After the terminating post: step cycle by cycle until its doorbell reaches the NIC, and
 * require that no WQE was fetched before it. */
static inline void await_doorbell_without_fetch(struct world *w, const struct ndk_sim_stats *s0)
{
	uint64_t posted = ndk_sim_cycle(w->sim);
	while (stats_of(w).sq_doorbells == s0->sq_doorbells) {
		if (stats_of(w).wqes_fetched != s0->wqes_fetched)
			sim_fail(w, "a WQE was fetched before the doorbell reached the NIC");
		if (ndk_sim_cycle(w->sim) - posted > DEFER_SETTLE_CYCLES)
			sim_fail(w, "the terminating doorbell never reached the NIC");
		ndk_sim_step(w->sim, 1);
	}
}

/* A whole chain is behind us: exactly one doorbell and n WQEs fetched in bursts of at most
 * max_burst WQEs (nic_core's MaxBurstWqes). */
static inline void expect_one_doorbell_burst_fetch(struct world *w, const struct ndk_sim_stats *s0,
						   uint64_t n, uint64_t max_burst, const char *what)
{
	struct ndk_sim_stats s2 = stats_of(w);
	cr_expect_eq(s2.sq_doorbells - s0->sq_doorbells, 1, "%s: doorbells", what);
	cr_expect_eq(s2.wqes_fetched - s0->wqes_fetched, n, "%s: WQEs fetched", what);
	uint64_t max_reads = (n + max_burst - 1) / max_burst;
	cr_expect_leq(s2.wqe_fetch_reads - s0->wqe_fetch_reads, max_reads,
		      "%s: %" PRIu64 " fetch reads for %" PRIu64 " WQEs", what,
		      s2.wqe_fetch_reads - s0->wqe_fetch_reads, n);
}

/* A fast-register MR over `pages` pages of a fresh buffer. */
struct region {
	struct ndk_buffer buf;
	struct ndk_mr *mr;
	uint64_t pages[64];
	uint32_t npages;
};

static inline void region_make(struct world *w, struct region *r, uint32_t npages, bool remote)
{
	cr_assert_leq(npages, 64);
	cr_assert_eq(ndk_alloc_buffer(w->ad, (size_t)npages * NDK_PAGE_SIZE, &r->buf),
		     NDK_STATUS_SUCCESS);
	for (uint32_t i = 0; i < npages; i++)
		r->pages[i] = r->buf.logical + (uint64_t)i * NDK_PAGE_SIZE;
	r->npages = npages;
	cr_assert_eq(ndk_create_mr(w->pd, &r->mr), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_initialize_fast_register_mr(r->mr, npages, remote), NDK_STATUS_SUCCESS);
}

static inline void region_free(struct world *w, struct region *r)
{
	ndk_close_mr(r->mr);
	ndk_free_buffer(w->ad, &r->buf);
}

static inline ndk_status region_register(struct world *w, struct region *r, void *ctx,
					 uint32_t flags)
{
	(void)w;
	return ndk_fast_register(w->qp, ctx, r->mr, r->npages, r->pages, 0,
				 (uint64_t)r->npages * NDK_PAGE_SIZE,
				 (uint64_t)(uintptr_t)r->buf.va, flags);
}

#endif /* NDK_TESTS_COSIM_H */
