/* SPDX-License-Identifier: MIT */
/*
 * Cosimulation tests of the foundation: adapter probe, memory objects and tokens, the local
 * requests (FastRegister, Bind, Invalidate) executed by the RTL, error completions and the
 * QP error state, inline failures, ring wrap-around, and the harness' own guards.
 */
#include <signal.h>

#include "cosim.h"
#include "ndk_internal.h" /* ndk_cmd and the MR's table index: a command no driver sends then */
#include "nic_hw.h"

#define CTX(n) ((void *)(uintptr_t)(0x1000 + (n)))

Test(adapter, sim_uri_opens_and_reports_the_device)
{
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	cr_assert_eq(ndk_open_adapter("sim", &ad), NDK_STATUS_SUCCESS);
	cr_assert_not_null(ndk_sim_of(ad), "a sim adapter belongs to a world");
	cr_assert_eq(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
	cr_expect_eq(info.version_major, 1);
	cr_expect_eq(info.vendor_id, 0x1d1d);
	cr_expect_eq(info.device_id, 0x0001);
	cr_expect_geq(info.frmr_page_count, 16);
	cr_expect_geq(info.max_qp_count, 2);
	cr_expect_geq(info.max_cq_count, 2);
	cr_expect_geq(info.max_mr_count, 2);
	cr_expect_geq(info.max_initiator_queue_depth, 64);
	cr_expect_geq(info.max_cq_depth, 64);
	ndk_close_adapter(ad);
}

Test(adapter, unknown_uri_is_refused)
{
	struct ndk_adapter *ad = NULL;
	cr_expect_neq(ndk_open_adapter("bogus", &ad), NDK_STATUS_SUCCESS);
	cr_expect_neq(ndk_open_adapter(NULL, &ad), NDK_STATUS_SUCCESS);
}

Test(adapter, two_worlds_in_one_process_are_independent)
{
	struct world a, b;
	world_open(&a, 16, 16);
	world_open(&b, 16, 16);
	struct region ra;
	region_make(&a, &ra, 1, false);
	expect_status(&a, region_register(&a, &ra, CTX(1), 0), NDK_STATUS_SUCCESS);
	expect_completion(&a, a.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	cr_expect_eq(stats_of(&b).sq_doorbells, 0, "world b saw a doorbell of world a");
	cr_expect_eq(stats_of(&a).sq_doorbells, 1);
	region_free(&a, &ra);
	world_close(&b);
	world_close(&a);
}

Test(memory, buffers_are_page_aligned_and_reachable)
{
	struct world w;
	world_open(&w, 0, 0);
	struct ndk_buffer b1, b2;
	cr_assert_eq(ndk_alloc_buffer(w.ad, 100, &b1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_alloc_buffer(w.ad, 3 * NDK_PAGE_SIZE, &b2), NDK_STATUS_SUCCESS);
	cr_expect_eq((uintptr_t)b1.va % NDK_PAGE_SIZE, 0);
	cr_expect_eq(b1.logical % NDK_PAGE_SIZE, 0);
	cr_expect_neq(b1.logical, b2.logical);
	memset(b2.va, 0xab, 3 * NDK_PAGE_SIZE);
	ndk_free_buffer(w.ad, &b1);
	ndk_free_buffer(w.ad, &b2);
	world_close(&w);
}

Test(memory, tokens_change_at_every_registration)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 2, true);
	uint32_t seen[4];
	for (int i = 0; i < 4; i++) {
		expect_status(&w, region_register(&w, &r, CTX(i), NDK_OP_FLAG_ALLOW_REMOTE_READ),
			      NDK_STATUS_SUCCESS);
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
		seen[i] = ndk_get_remote_token_from_mr(r.mr);
		cr_expect_eq(ndk_get_local_token_from_mr(r.mr), seen[i]);
		for (int j = 0; j < i; j++)
			cr_expect_neq(seen[i], seen[j], "registration %d reused the token of %d", i,
				      j);
		expect_status(&w, ndk_invalidate_mr(w.qp, CTX(100 + i), r.mr, 0),
			      NDK_STATUS_SUCCESS);
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(100 + i));
	}
	region_free(&w, &r);
	world_close(&w);
}

Test(local_ops, fast_register_then_invalidate_round_trip)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 4, false);
	struct ndk_sim_stats s0 = stats_of(&w);
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(2), r.mr, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(2));
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 2);
	cr_expect_eq(s1.wqes_fetched - s0.wqes_fetched, 2);
	cr_expect_eq(s1.cqes_written - s0.cqes_written, 2);
	/* the page list was read by DMA: 4 entries of 8 bytes */
	cr_expect_geq(s1.dma_read_bytes - s0.dma_read_bytes, 2 * 64 + 4 * 8);
	/* once invalidated the MR can be registered again */
	expect_status(&w, region_register(&w, &r, CTX(3), 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(3));
	region_free(&w, &r);
	world_close(&w);
}

Test(local_ops, get_cq_results_returns_both_contexts)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	expect_status(&w, region_register(&w, &r, CTX(7), 0), NDK_STATUS_SUCCESS);
	struct ndk_result res;
	uint64_t deadline = ndk_sim_cycle(w.sim) + 100000;
	while (ndk_get_cq_results(w.cq, &res, 1) == 0) {
		if (ndk_sim_cycle(w.sim) > deadline)
			sim_fail(&w, "no completion");
		ndk_sim_step(w.sim, 1);
	}
	expect_status(&w, res.status, NDK_STATUS_SUCCESS);
	cr_expect_eq(res.request_context, CTX(7));
	cr_expect_eq(res.qp_context, QP_CONTEXT);
	region_free(&w, &r);
	world_close(&w);
}

Test(local_ops, bind_window_then_invalidate_window)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 2, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va + 512;
	expect_status(&w,
		      ndk_bind(w.qp, CTX(2), r.mr, mw, va, 1024, NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(2));
	uint32_t t1 = ndk_get_remote_token_from_mw(mw);
	expect_status(&w, ndk_invalidate_mw(w.qp, CTX(3), mw, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(3));
	/* bind again: a new key */
	expect_status(&w, ndk_bind(w.qp, CTX(4), r.mr, mw, va, 64, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(4));
	cr_expect_neq(ndk_get_remote_token_from_mw(mw), t1);
	ndk_close_mw(mw);
	region_free(&w, &r);
	world_close(&w);
}

/* After an error completion the QP is in error: later requests complete CANCELLED, in order. */
static void expect_cancelled_after(struct world *w, struct region *r, int first_ctx)
{
	expect_status(w, ndk_invalidate_mr(w->qp, CTX(first_ctx), r->mr, 0), NDK_STATUS_SUCCESS);
	expect_status(w, region_register(w, r, CTX(first_ctx + 1), 0), NDK_STATUS_SUCCESS);
	expect_completion(w, w->cq, NDK_STATUS_CANCELLED, NDK_OP_INVALIDATE, CTX(first_ctx));
	expect_completion(w, w->cq, NDK_STATUS_CANCELLED, NDK_OP_FAST_REGISTER, CTX(first_ctx + 1));
	expect_no_completion(w, w->cq, 2000);
}

Test(errors, invalidating_an_invalid_token_completes_with_an_error)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	/* the MR was never registered: its token is not valid */
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(1), r.mr, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(1));
	expect_cancelled_after(&w, &r, 10);
	region_free(&w, &r);
	world_close(&w);
}

/*
 * The request right behind a failed one is cancelled, also when the dispatcher takes it in the
 * cycle of the failure and dispatches it in the next: nic_wqe_dispatch's error leaves registered
 * (docs/timing-area.md), so nic_qp_ctx has it a cycle later and the dispatcher reads its QP as
 * ERROR through a bypass. The first FastRegister's page list read holds the dispatcher long
 * enough for the two requests behind it to wait in the WQE buffer; the second would succeed
 * silently (it invalidates the MR the first registered) if it were executed, and a silent one
 * does not wait for the completion register, so nothing else delays it by a cycle.
 */
Test(errors, the_request_right_behind_a_failed_one_is_cancelled)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r1, r2;
	region_make(&w, &r1, 2, false);
	region_make(&w, &r2, 1, false);
	uint64_t va = (uint64_t)(uintptr_t)r1.buf.va;
	expect_status(&w,
		      ndk_fast_register(w.qp, CTX(1), r1.mr, 2, r1.pages, 0, 2 * NDK_PAGE_SIZE, va,
					NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	/* r2's MR was never registered: its token is not valid */
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(2), r2.mr, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	/* silent: executed, it would finish at once without waiting for the completion path */
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(3), r1.mr, NDK_OP_FLAG_SILENT_SUCCESS),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(2));
	expect_completion(&w, w.cq, NDK_STATUS_CANCELLED, NDK_OP_INVALIDATE, CTX(3));
	expect_no_completion(&w, w.cq, 2000);
	region_free(&w, &r2);
	region_free(&w, &r1);
	world_close(&w);
}

Test(errors, binding_through_an_mr_without_local_write_fails)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	/* registered read-only: a window asking remote write needs local write on the MR */
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_status(&w,
		      ndk_bind(w.qp, CTX(2), r.mr, mw, (uint64_t)(uintptr_t)r.buf.va, 64,
			       NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_BIND, CTX(2));
	expect_cancelled_after(&w, &r, 10);
	ndk_close_mw(mw);
	region_free(&w, &r);
	world_close(&w);
}

Test(errors, binding_outside_the_mr_fails)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_status(&w,
		      ndk_bind(w.qp, CTX(2), r.mr, mw, (uint64_t)(uintptr_t)r.buf.va + 4000, 200,
			       NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_BIND, CTX(2));
	ndk_close_mw(mw);
	region_free(&w, &r);
	world_close(&w);
}

Test(errors, fast_registering_a_still_valid_mr_fails)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	expect_status(&w, region_register(&w, &r, CTX(1), 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	expect_status(&w, region_register(&w, &r, CTX(2), 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_INVALID_DEVICE_STATE, NDK_OP_FAST_REGISTER, CTX(2));
	expect_cancelled_after(&w, &r, 10);
	region_free(&w, &r);
	world_close(&w);
}

/*
 * The MR of a FastRegister freed (MR_FREE) after the WQE's checks, while its page list is read
 * (docs/verification.md, the MR/MW table's bench): the registration must not make the freed
 * entry VALID with the old token. It completes ACCESS_VIOLATION (the QP goes to error) and the
 * token names nothing. Before the fix the dispatcher committed on the page list's status alone:
 * SUCCESS, and a freed entry usable by the old token until the index was initialised again.
 */
Test(errors, an_mr_freed_while_its_page_list_is_read_is_not_registered)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 4, false);
	struct ndk_sim_stats s0 = stats_of(&w);
	expect_status(&w, region_register(&w, &r, CTX(1), 0), NDK_STATUS_SUCCESS);
	/* the WQE's read, then the page list's: the WQE has passed its checks */
	for (int i = 0; i < 5000 && stats_of(&w).dma_reads < s0.dma_reads + 2; i++)
		ndk_sim_step(w.sim, 1);
	cr_assert_eq(stats_of(&w).dma_reads, s0.dma_reads + 2, "the page list read was not issued");
	cr_assert_eq(stats_of(&w).cqes_written, s0.cqes_written);
	/* MR_FREE lands an MMIO write later (~75 cycles), before the list's data (~125 cycles) */
	ndk_cmd(w.ad, NIC_CMD_MR_FREE, r.mr->index, NULL, 0);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_FAST_REGISTER, CTX(1));
	region_free(&w, &r);
	world_close(&w);
}

/* A second QP of the world's PD on its CQ: for checks after the first went to error. */
static struct ndk_qp *extra_qp(struct world *w)
{
	struct ndk_qp *qp;
	struct ndk_qp_attr a = { .receive_cq = w->cq,
				 .initiator_cq = w->cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 8,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w->pd, &a, &qp), NDK_STATUS_SUCCESS);
	return qp;
}

/*
 * The QP of a FastRegister destroyed (ndk_close_qp) while the WQE's page list is read: the WQE
 * is discarded when the list has come, so it completes nothing (its QP is gone) and registers
 * nothing: a FastRegister of the same MR on another QP then succeeds (a registered MR would
 * refuse it with INVALID_DEVICE_STATE).
 */
Test(errors, a_qp_closed_while_its_fast_registers_page_list_is_read_registers_nothing)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 4, false);
	struct ndk_sim_stats s0 = stats_of(&w);
	expect_status(&w, region_register(&w, &r, CTX(1), 0), NDK_STATUS_SUCCESS);
	/* the WQE's read, then the page list's: the WQE has passed its checks */
	for (int i = 0; i < 5000 && stats_of(&w).dma_reads < s0.dma_reads + 2; i++)
		ndk_sim_step(w.sim, 1);
	cr_assert_eq(stats_of(&w).dma_reads, s0.dma_reads + 2, "the page list read was not issued");
	/* QP_DESTROY lands an MMIO write later (~75 cycles), before the list's data (~125) */
	ndk_close_qp(w.qp);
	w.qp = NULL;
	expect_no_completion(&w, w.cq, 3000);
	cr_expect_eq(stats_of(&w).cqes_written, s0.cqes_written, "a CQE was written");
	struct ndk_qp *qp2 = extra_qp(&w);
	expect_status(&w,
		      ndk_fast_register(qp2, CTX(2), r.mr, 4, r.pages, 0, 4 * NDK_PAGE_SIZE,
					(uint64_t)(uintptr_t)r.buf.va, 0),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(2));
	ndk_close_qp(qp2);
	region_free(&w, &r);
	world_close(&w);
}

/*
 * An application closes an MR while its FastRegister is still in the send queue: against the
 * API's rule (no request may still use it), but the NIC must not read memory the driver has
 * freed meanwhile (the world's DMA firewall stops a run that does). ndk_close_mr keeps a page list
 * its registration may still read until that request has completed or its QP is destroyed. The
 * close lands 0..160 cycles after the WQE's read is issued: from ~70 to ~140 cycles the WQE has
 * passed its checks and its page list's read comes after the close (the run stopped at the
 * firewall there before the fix, at both widths). Each time the registration completes
 * ACCESS_VIOLATION (its MR's entry is freed) and nothing else is read.
 */
Test(errors, an_mr_closed_while_its_fast_register_is_queued_leaves_its_page_list_readable)
{
	for (unsigned delay = 0; delay <= 160; delay += 20) {
		struct world w;
		world_open(&w, 16, 16);
		struct region r;
		region_make(&w, &r, 4, false);
		struct ndk_sim_stats s0 = stats_of(&w);
		expect_status(&w, region_register(&w, &r, CTX(1), 0), NDK_STATUS_SUCCESS);
		for (int i = 0; i < 5000 && stats_of(&w).dma_reads < s0.dma_reads + 1; i++)
			ndk_sim_step(w.sim, 1);
		cr_assert_eq(stats_of(&w).dma_reads, s0.dma_reads + 1,
			     "the WQE read was not issued");
		ndk_sim_step(w.sim, delay);
		ndk_close_mr(r.mr);
		expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_FAST_REGISTER,
				  CTX(1));
		ndk_free_buffer(w.ad, &r.buf);
		world_close(&w);
	}
}

Test(errors, an_error_on_one_qp_leaves_another_qp_running)
{
	struct world w;
	world_open(&w, 16, 16);
	struct ndk_qp *qp2;
	struct ndk_qp_attr a = { .receive_cq = w.cq,
				 .initiator_cq = w.cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 8,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w.pd, &a, &qp2), NDK_STATUS_SUCCESS);
	struct region r1, r2;
	region_make(&w, &r1, 1, false);
	region_make(&w, &r2, 1, false);
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(1), r1.mr, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(1));
	expect_status(&w,
		      ndk_fast_register(qp2, CTX(2), r2.mr, 1, r2.pages, 0, NDK_PAGE_SIZE,
					(uint64_t)(uintptr_t)r2.buf.va, 0),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(2));
	ndk_close_qp(qp2);
	region_free(&w, &r1);
	region_free(&w, &r2);
	world_close(&w);
}

/* A Bind whose MR was never registered (an index in MR_INVALID): ACCESS_VIOLATION, the QP goes
 * to error, and the window stays unbound (invalidating it fails too). */
Test(errors, binding_through_an_unregistered_mr_fails)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 1, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	expect_status(&w,
		      ndk_bind(w.qp, CTX(1), r.mr, mw, (uint64_t)(uintptr_t)r.buf.va, 64,
			       NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_BIND, CTX(1));
	expect_cancelled_after(&w, &r, 10);
	struct ndk_qp *qp2 = extra_qp(&w);
	expect_status(&w, ndk_invalidate_mw(qp2, CTX(20), mw, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(20));
	ndk_close_qp(qp2);
	ndk_close_mw(mw);
	region_free(&w, &r);
	world_close(&w);
}

/* A second Bind of a window that is bound (IBA: a type 2 window must be invalidated before it is
 * bound again): INVALID_DEVICE_STATE, the QP goes to error, and the first binding is untouched:
 * the refused bind's key names nothing, the first bind's key still invalidates the window. */
Test(errors, binding_a_bound_window_again_fails_and_keeps_the_first_binding)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 2, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	expect_status(&w, ndk_bind(w.qp, CTX(2), r.mr, mw, va, 1024, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(2));
	uint8_t first_key = mw->key;
	expect_status(&w,
		      ndk_bind(w.qp, CTX(3), r.mr, mw, va + 4096, 512,
			       NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_INVALID_DEVICE_STATE, NDK_OP_BIND, CTX(3));
	expect_cancelled_after(&w, &r, 10);
	cr_assert_neq(mw->key, first_key, "the refused bind carried a new key");
	struct ndk_qp *qp2 = extra_qp(&w);
	expect_status(&w, ndk_invalidate_mw(qp2, CTX(20), mw, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(20));
	ndk_close_qp(qp2);
	mw->key = first_key; /* the token of the binding in force */
	qp2 = extra_qp(&w);
	expect_status(&w, ndk_invalidate_mw(qp2, CTX(21), mw, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(21));
	ndk_close_qp(qp2);
	ndk_close_mw(mw);
	region_free(&w, &r);
	world_close(&w);
}

/*
 * FastRegister WQEs whose parameters libndk would refuse inline, written into the ring by hand
 * (a broken or hostile driver; the doorbell page can be mapped into a process): more pages than
 * the MR was initialised with (their MTT entries would overwrite another MR's), a first-byte
 * offset of a whole page, a length beyond the pages, a page list address not 8-byte aligned.
 * Each completes INVALID_PARAMETER and puts its QP in error (the request behind it completes
 * CANCELLED); the MR stays unregistered: a good FastRegister of it then succeeds (a registered
 * MR would refuse it with INVALID_DEVICE_STATE).
 */
enum fr_defect { FR_PAGES, FR_FBO, FR_LENGTH, FR_LIST_ALIGN, FR_DEFECTS };

Test(errors, a_fast_register_wqe_with_bad_parameters_fails_and_registers_nothing)
{
	struct world w;
	world_open(&w, 64, 0);
	struct region r;
	region_make(&w, &r, 2, false);
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	for (int d = 0; d < FR_DEFECTS; d++) {
		struct ndk_qp *qp = extra_qp(&w);
		/* posted deferred (no doorbell), then spoilt in the ring */
		expect_status(&w,
			      ndk_fast_register(qp, CTX(10 * d + 1), r.mr, 2, r.pages, 0,
						2 * NDK_PAGE_SIZE, va, NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
		struct nic_wqe_fast_reg *wqe =
			(struct nic_wqe_fast_reg *)((uint8_t *)qp->sq.ring +
						    ((qp->sq.pi - 1) & (qp->sq.depth - 1)) *
							    NIC_WQE_BYTES);
		cr_assert_eq(wqe->opcode, NIC_WQE_OP_FAST_REG);
		switch (d) {
		case FR_PAGES:
			wqe->page_count = htole32(r.mr->max_pages + 1);
			break;
		case FR_FBO:
			wqe->fbo = htole32(NDK_PAGE_SIZE);
			break;
		case FR_LENGTH:
			wqe->length = htole64(2 * NDK_PAGE_SIZE + 1);
			break;
		case FR_LIST_ALIGN:
			wqe->page_list_addr = htole64(le64toh(wqe->page_list_addr) + 4);
			break;
		}
		/* the next post rings the doorbell for both */
		expect_status(&w, ndk_invalidate_mr(qp, CTX(10 * d + 2), r.mr, 0),
			      NDK_STATUS_SUCCESS);
		expect_completion(&w, w.cq, NDK_STATUS_INVALID_PARAMETER, NDK_OP_FAST_REGISTER,
				  CTX(10 * d + 1));
		expect_completion(&w, w.cq, NDK_STATUS_CANCELLED, NDK_OP_INVALIDATE,
				  CTX(10 * d + 2));
		ndk_close_qp(qp);
	}
	struct ndk_qp *qp = extra_qp(&w);
	expect_status(
		&w, ndk_fast_register(qp, CTX(100), r.mr, 2, r.pages, 0, 2 * NDK_PAGE_SIZE, va, 0),
		NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(100));
	ndk_close_qp(qp);
	region_free(&w, &r);
	world_close(&w);
}

Test(inline_failures, bad_parameters_fail_inline_without_a_completion)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 2, false);
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	struct ndk_sim_stats s0 = stats_of(&w);
	/* more pages than the MR was initialised with */
	expect_status(
		&w, ndk_fast_register(w.qp, CTX(1), r.mr, 3, r.pages, 0, 3 * NDK_PAGE_SIZE, va, 0),
		NDK_STATUS_INVALID_PARAMETER);
	/* remote access on an MR initialised without it */
	expect_status(&w,
		      ndk_fast_register(w.qp, CTX(2), r.mr, 2, r.pages, 0, 2 * NDK_PAGE_SIZE, va,
					NDK_OP_FLAG_ALLOW_REMOTE_READ),
		      NDK_STATUS_ACCESS_VIOLATION);
	/* no page array, no MR */
	cr_expect_neq(ndk_fast_register(w.qp, CTX(3), r.mr, 2, NULL, 0, 2 * NDK_PAGE_SIZE, va, 0),
		      NDK_STATUS_SUCCESS);
	cr_expect_neq(ndk_invalidate_mr(w.qp, CTX(4), NULL, 0), NDK_STATUS_SUCCESS);
	/* a flag the request does not take */
	cr_expect_neq(ndk_invalidate_mr(w.qp, CTX(5), r.mr, NDK_OP_FLAG_INLINE),
		      NDK_STATUS_SUCCESS);
	/* length beyond the pages */
	cr_expect_neq(ndk_fast_register(w.qp, CTX(6), r.mr, 2, r.pages, 0, 3 * NDK_PAGE_SIZE, va,
					0),
		      NDK_STATUS_SUCCESS);
	expect_no_completion(&w, w.cq, 5000);
	struct ndk_sim_stats s1 = stats_of(&w);
	cr_expect_eq(s1.wqes_fetched, s0.wqes_fetched, "a failed post reached the NIC");
	/* the QP is still usable */
	expect_status(&w, region_register(&w, &r, CTX(7), 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(7));
	region_free(&w, &r);
	world_close(&w);
}

Test(inline_failures, a_full_queue_returns_no_more_entries)
{
	struct world w;
	world_open(&w, 64, 8);
	struct region r[9];
	for (int i = 0; i < 9; i++)
		region_make(&w, &r[i], 1, false);
	for (int i = 0; i < 8; i++)
		expect_status(&w, region_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER * (i < 7)),
			      NDK_STATUS_SUCCESS);
	expect_status(&w, region_register(&w, &r[8], CTX(8), 0), NDK_STATUS_NO_MORE_ENTRIES);
	for (int i = 0; i < 8; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	expect_no_completion(&w, w.cq, 3000);
	/* slots are free again once their completions were polled */
	expect_status(&w, region_register(&w, &r[8], CTX(8), 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(8));
	for (int i = 0; i < 9; i++)
		region_free(&w, &r[i]);
	world_close(&w);
}

/* On a QP that is not connected, Send, Write, Read and SendAndInvalidate fail inline with
 * CONNECTION_INVALID. None completes. */
Test(inline_failures, transport_requests_on_an_unconnected_qp_fail_inline)
{
	struct world w;
	world_open(&w, 16, 16);
	struct ndk_buffer b;
	cr_assert_eq(ndk_alloc_buffer(w.ad, 4096, &b), NDK_STATUS_SUCCESS);
	struct ndk_sge sge = { .address = b.logical,
			       .length = 64,
			       .token = ndk_get_privileged_token(w.pd) };
	cr_expect_eq(ndk_send(w.qp, CTX(1), &sge, 1, 0), NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_write(w.qp, CTX(2), &sge, 1, 0x1000, 0x100, 0),
		     NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_read(w.qp, CTX(3), &sge, 1, 0x1000, 0x100, 0),
		     NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_send_and_invalidate(w.qp, CTX(4), &sge, 1, 0, 0x100),
		     NDK_STATUS_CONNECTION_INVALID);
	expect_no_completion(&w, w.cq, 3000);
	ndk_free_buffer(w.ad, &b);
	world_close(&w);
}

/* At least three times the queue depth of requests: SQ and CQ rings wrap, the CQE owner bit
 * flips, and every completion carries the right contexts in posting order. */
Test(rings, send_and_completion_rings_wrap_around)
{
	struct world w;
	world_open(&w, 8, 8);
	struct region r;
	region_make(&w, &r, 1, false);
	const int pairs = 24; /* 48 requests through an 8-deep SQ and an 8-deep CQ */
	int next_expected = 0;
	for (int i = 0; i < pairs; i++) {
		expect_status(&w, region_register(&w, &r, CTX(2 * i), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
		expect_status(&w, ndk_invalidate_mr(w.qp, CTX(2 * i + 1), r.mr, 0),
			      NDK_STATUS_SUCCESS);
		/* leave up to 3 pairs outstanding before draining */
		if (i % 3 == 2 || i == pairs - 1) {
			while (next_expected < 2 * (i + 1)) {
				uint32_t type = next_expected % 2 ? NDK_OP_INVALIDATE :
								    NDK_OP_FAST_REGISTER;
				expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, type,
						  CTX(next_expected));
				next_expected++;
			}
		}
	}
	expect_no_completion(&w, w.cq, 2000);
	cr_expect_eq(stats_of(&w).cqes_written, 2 * pairs);
	region_free(&w, &r);
	world_close(&w);
}

Test(determinism, same_config_gives_the_same_cycle_counts)
{
	uint64_t cycles[2];
	for (int run = 0; run < 2; run++) {
		struct world w;
		world_open(&w, 16, 16);
		struct region r;
		region_make(&w, &r, 3, false);
		expect_status(&w, region_register(&w, &r, CTX(1), 0), NDK_STATUS_SUCCESS);
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
		cycles[run] = ndk_sim_cycle(w.sim);
		region_free(&w, &r);
		world_close(&w);
	}
	cr_expect_eq(cycles[0], cycles[1]);
}

/* The harness' guards end a run with a message instead of hanging or corrupting memory. */
Test(harness, cycle_limit_stops_a_runaway_run, .signal = SIGABRT)
{
	struct ndk_sim_config c;
	world_config(&c);
	c.cycle_limit = 5000;
	struct ndk_sim *sim;
	cr_assert_eq(ndk_sim_create(&c, &sim), NDK_STATUS_SUCCESS);
	ndk_sim_step(sim, 10000);
}
