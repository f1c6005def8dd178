/* SPDX-License-Identifier: MIT */
/*
 * NDK completion handling (shared/spec/seed-completion-handling.md), checked cycle by cycle:
 * arm types and the merge table, one notification per arm, arming with entries present, the
 * serialised callbacks, CQ overflow. docs/conformance.md maps the seed's rules to these tests.
 *
 * Until the transport lands, SOLICITED is exercised with error completions (which satisfy it)
 * and successful local completions (which must not).
 */
#include <pthread.h>
#include <sched.h>

#include "cosim.h"
#include "ndk_internal.h"
#include "backend_sim.h" /* the world behind an ndk_sim */
#include "nicsim.h"

#define CTX(n)	      ((void *)(uintptr_t)(0x1000 + (n)))
#define SETTLE_CYCLES 3000

struct notes {
	struct world *w;
	int calls;
	int running; /* a callback of this CQ is running */
	int nested;  /* a callback started while another ran: must stay 0 */
	ndk_status last_status;
	uint64_t last_cycle;
	int rearm_in_callback; /* arm ANY from inside the first callback */
	struct ndk_cq *cq;
};

static void on_notify(void *context, ndk_status cq_status)
{
	struct notes *n = context;
	if (n->running)
		n->nested++;
	n->running = 1;
	n->calls++;
	n->last_status = cq_status;
	n->last_cycle = ndk_sim_cycle(n->w->sim);
	if (n->rearm_in_callback && n->calls == 1) {
		/* entries are present and not consumed: the NIC fires at once, but the callback
		 * for that must wait until this one returns; time moves inside this call */
		ndk_arm_cq(n->cq, NDK_CQ_NOTIFY_ANY);
		ndk_sim_step(n->w->sim, 500);
	}
	n->running = 0;
}

static void open_with_notes(struct world *w, struct notes *n, uint32_t cq_depth, uint32_t sq_depth)
{
	memset(n, 0, sizeof(*n));
	world_open(w, 0, 0);
	n->w = w;
	cr_assert_eq(ndk_create_cq(w->ad, cq_depth, on_notify, n, &w->cq), NDK_STATUS_SUCCESS);
	n->cq = w->cq;
	struct ndk_qp_attr a = { .receive_cq = w->cq,
				 .initiator_cq = w->cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = sq_depth,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w->pd, &a, &w->qp), NDK_STATUS_SUCCESS);
}

/* arm, and wait until the CQ doorbell has reached the NIC */
static void arm(struct world *w, enum ndk_cq_notify_type type)
{
	uint64_t before = stats_of(w).cq_doorbells;
	ndk_arm_cq(w->cq, type);
	uint64_t t = ndk_sim_cycle(w->sim);
	while (stats_of(w).cq_doorbells == before) {
		if (ndk_sim_cycle(w->sim) - t > SETTLE_CYCLES)
			sim_fail(w, "the arm doorbell never reached the NIC");
		ndk_sim_step(w->sim, 1);
	}
}

/* a successful completion (FastRegister), left in the CQ */
static void complete_success(struct world *w, struct region *r)
{
	uint64_t before = stats_of(w).cqes_written;
	expect_status(w, region_register(w, r, CTX(1), 0), NDK_STATUS_SUCCESS);
	uint64_t t = ndk_sim_cycle(w->sim);
	while (stats_of(w).cqes_written == before) {
		if (ndk_sim_cycle(w->sim) - t > SETTLE_CYCLES)
			sim_fail(w, "no CQE written");
		ndk_sim_step(w->sim, 1);
	}
	ndk_sim_step(w->sim, SETTLE_CYCLES);
}

/* an error completion: invalidating the token of an MR that is not registered */
static void complete_error(struct world *w, struct region *unregistered)
{
	uint64_t before = stats_of(w).cqes_written;
	expect_status(w, ndk_invalidate_mr(w->qp, CTX(2), unregistered->mr, 0), NDK_STATUS_SUCCESS);
	uint64_t t = ndk_sim_cycle(w->sim);
	while (stats_of(w).cqes_written == before) {
		if (ndk_sim_cycle(w->sim) - t > SETTLE_CYCLES)
			sim_fail(w, "no CQE written");
		ndk_sim_step(w->sim, 1);
	}
	ndk_sim_step(w->sim, SETTLE_CYCLES);
}

/*
 * Successful requests, none polled, until the CQ overflows: the ring holds at least the depth
 * asked for and at most four times it, so 4 * depth + 2 requests are enough. Once the driver
 * has seen the CQ's error its QP refuses posts inline, which ends the loop. Returns how many
 * were posted.
 */
static uint32_t overflow(struct world *w, struct region *r, uint32_t depth, uint32_t first_ctx)
{
	uint32_t i;
	for (i = 0; i < 4 * depth + 2; i++) {
		ndk_status st = i % 2 ? ndk_invalidate_mr(w->qp, CTX(first_ctx + i), r->mr, 0) :
					region_register(w, r, CTX(first_ctx + i), 0);
		if (st == NDK_STATUS_INVALID_DEVICE_STATE && i > depth)
			break;
		expect_status(w, st, NDK_STATUS_SUCCESS);
	}
	ndk_sim_step(w->sim, 3 * SETTLE_CYCLES);
	return i;
}

static void expect_calls(struct world *w, struct notes *n, int calls, const char *why)
{
	if (n->calls != calls)
		sim_fail(w, "%s: %d notifications, want %d", why, n->calls, calls);
	cr_expect_eq(n->nested, 0, "a callback ran inside another");
}

/* The seed's table: the resulting arm type when NdkArmCq is called twice before the first arm
 * is satisfied. Each cell is shown by which completion fires the merged arm and which does not:
 * ANY fires on a successful completion; SOLICITED not on a success but on an error completion;
 * ERRORS on neither, only on a CQ error (overflow). */
static void merge_cell(enum ndk_cq_notify_type first, enum ndk_cq_notify_type second,
		       enum ndk_cq_notify_type expected)
{
	struct world w;
	struct notes n;
	const uint32_t depth = 4;
	open_with_notes(&w, &n, depth, 64);
	struct region ok, bad;
	region_make(&w, &ok, 1, false);
	region_make(&w, &bad, 1, false);
	arm(&w, first);
	arm(&w, second);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	expect_calls(&w, &n, 0, "two arms on an empty CQ");
	complete_success(&w, &ok);
	if (expected == NDK_CQ_NOTIFY_ANY) {
		expect_calls(&w, &n, 1, "merged ANY after a successful completion");
		cr_expect_eq(n.last_status, NDK_STATUS_SUCCESS);
		goto out;
	}
	expect_calls(&w, &n, 0, "merged SOLICITED/ERRORS after a successful completion");
	complete_error(&w, &bad);
	if (expected == NDK_CQ_NOTIFY_SOLICITED) {
		expect_calls(&w, &n, 1, "merged SOLICITED after an error completion");
		cr_expect_eq(n.last_status, NDK_STATUS_SUCCESS);
		goto out;
	}
	expect_calls(&w, &n, 0, "merged ERRORS after an error completion");
	overflow(&w, &ok, depth,
		 10); /* the QP is in error: these complete CANCELLED, overflowing */
	expect_calls(&w, &n, 1, "merged ERRORS after a CQ overflow");
	expect_status(&w, n.last_status, NDK_STATUS_BUFFER_OVERFLOW);
out:
	region_free(&w, &ok);
	region_free(&w, &bad);
	world_close(&w);
}

#define A NDK_CQ_NOTIFY_ANY
#define E NDK_CQ_NOTIFY_ERRORS
#define S NDK_CQ_NOTIFY_SOLICITED
Test(arm_merge, any_then_any_is_any)
{
	merge_cell(A, A, A);
}
Test(arm_merge, any_then_errors_is_any)
{
	merge_cell(A, E, A);
}
Test(arm_merge, any_then_solicited_is_any)
{
	merge_cell(A, S, A);
}
Test(arm_merge, errors_then_any_is_any)
{
	merge_cell(E, A, A);
}
Test(arm_merge, errors_then_errors_is_errors)
{
	merge_cell(E, E, E);
}
Test(arm_merge, errors_then_solicited_is_solicited)
{
	merge_cell(E, S, S);
}
Test(arm_merge, solicited_then_any_is_any)
{
	merge_cell(S, A, A);
}
Test(arm_merge, solicited_then_errors_is_solicited)
{
	merge_cell(S, E, S);
}
Test(arm_merge, solicited_then_solicited_is_solicited)
{
	merge_cell(S, S, S);
}

Test(notify, no_callback_without_an_arm)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	complete_success(&w, &r);
	expect_calls(&w, &n, 0, "completion without an arm");
	cr_expect_eq(stats_of(&w).interrupts, 0);
	region_free(&w, &r);
	world_close(&w);
}

Test(notify, one_notification_per_arm)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	arm(&w, NDK_CQ_NOTIFY_ANY);
	complete_success(&w, &r);
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(3), r.mr, 0), NDK_STATUS_SUCCESS);
	ndk_sim_step(w.sim, 2 * SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).cqes_written, 2);
	expect_calls(&w, &n, 1, "two completions after one arm");
	cr_expect_eq(stats_of(&w).interrupts, 1, "MSI-X messages");
	region_free(&w, &r);
	world_close(&w);
}

/* The seed's "must": an arm while the CQ holds an entry placed since the last notification is
 * satisfied at once, within a bounded number of cycles of the arm doorbell reaching the NIC. */
Test(notify, arm_with_new_entries_fires_at_once)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	complete_success(&w, &r);
	expect_calls(&w, &n, 0, "not armed yet");
	arm(&w, NDK_CQ_NOTIFY_ANY);
	uint64_t t_db = ndk_sim_cycle(w.sim);
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	/* the message's own trip (dma_write_ns) plus a few engine cycles */
	uint64_t bound = (uint64_t)c.dma_write_ns * c.clock_mhz / 1000 + 32;
	while (n.calls == 0) {
		if (ndk_sim_cycle(w.sim) - t_db > bound)
			sim_fail(&w, "no notification within %" PRIu64 " cycles of the arm", bound);
		ndk_sim_step(w.sim, 1);
	}
	cr_log_info("arm doorbell at the NIC -> callback: %" PRIu64 " cycles", n.last_cycle - t_db);
	region_free(&w, &r);
	world_close(&w);
}

/* The seed's "may", and our documented choice: an arm while the CQ holds only entries that were
 * there at the last notification is also satisfied at once (as mlx5 and Corundum do: a
 * consumer that arms without draining never sleeps on a non-empty queue). */
Test(notify, arm_with_only_notified_entries_fires_at_once_by_choice)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	arm(&w, NDK_CQ_NOTIFY_ANY);
	complete_success(&w, &r);
	expect_calls(&w, &n, 1, "first arm");
	arm(&w, NDK_CQ_NOTIFY_ANY);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	expect_calls(&w, &n, 2, "re-arm with the same entry still in the CQ");
	/* once drained, an arm waits for a new completion */
	struct ndk_result_ex res;
	cr_expect_eq(ndk_get_cq_results_ex(w.cq, &res, 1), 1);
	arm(&w, NDK_CQ_NOTIFY_ANY);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	expect_calls(&w, &n, 2, "arm on a drained CQ");
	region_free(&w, &r);
	world_close(&w);
}

/* A notification that becomes due while the callback runs (the callback re-arms and the NIC
 * fires at once) is delivered after the callback returns, never inside it. */
Test(notify, arm_inside_callback_is_delivered_after_it_returns)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	n.rearm_in_callback = 1;
	struct region r;
	region_make(&w, &r, 1, false);
	arm(&w, NDK_CQ_NOTIFY_ANY);
	complete_success(&w, &r);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	expect_calls(&w, &n, 2, "callback, then the re-arm's callback");
	cr_expect_eq(n.nested, 0, "the second callback ran inside the first");
	region_free(&w, &r);
	world_close(&w);
}

Test(notify, errors_arm_is_silent_on_successful_completions)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	arm(&w, NDK_CQ_NOTIFY_ERRORS);
	complete_success(&w, &r);
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(3), r.mr, 0), NDK_STATUS_SUCCESS);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	expect_calls(&w, &n, 0, "ERRORS arm, successful completions");
	region_free(&w, &r);
	world_close(&w);
}

/* Overflow: the NIC never writes past the consumer index; everything before the overflow point
 * is intact; the CQ reports BUFFER_OVERFLOW through the notification whatever the arm type;
 * its QPs refuse posts inline; another CQ and its QP are untouched. */
Test(overflow, loses_nothing_before_and_writes_nothing_after)
{
	struct world w;
	struct notes n;
	const uint32_t depth = 8;
	open_with_notes(&w, &n, depth, 64);
	struct ndk_cq *cq2;
	struct ndk_qp *qp2;
	cr_assert_eq(ndk_create_cq(w.ad, 16, NULL, NULL, &cq2), NDK_STATUS_SUCCESS);
	struct ndk_qp_attr a = { .receive_cq = cq2,
				 .initiator_cq = cq2,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 8,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w.pd, &a, &qp2), NDK_STATUS_SUCCESS);
	struct region r, r2;
	region_make(&w, &r, 1, false);
	region_make(&w, &r2, 1, false);
	arm(&w, NDK_CQ_NOTIFY_SOLICITED);
	/* more successful requests than the CQ holds, none polled */
	const uint32_t posted = overflow(&w, &r, depth, 0);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	const uint64_t written = stats_of(&w).cqes_written;
	if (written < depth || written >= posted)
		sim_fail(&w, "%" PRIu64 " CQEs written for %u requests into a CQ of depth %u",
			 written, posted, depth);
	expect_calls(&w, &n, 1, "overflow with a SOLICITED arm");
	expect_status(&w, n.last_status, NDK_STATUS_BUFFER_OVERFLOW);
	/* everything before the overflow point, in order, and nothing after it */
	for (uint64_t i = 0; i < written; i++)
		expect_completion(&w, w.cq, NDK_STATUS_SUCCESS,
				  i % 2 ? NDK_OP_INVALIDATE : NDK_OP_FAST_REGISTER, CTX(i));
	expect_no_completion(&w, w.cq, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).cqes_written, written, "a CQE written after the overflow");
	/* its QP refuses posts inline */
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(99), r.mr, 0),
		      NDK_STATUS_INVALID_DEVICE_STATE);
	/* the other CQ and QP are untouched */
	expect_status(&w,
		      ndk_fast_register(qp2, CTX(50), r2.mr, 1, r2.pages, 0, NDK_PAGE_SIZE,
					(uint64_t)(uintptr_t)r2.buf.va, 0),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, cq2, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(50));
	ndk_close_qp(qp2);
	ndk_close_cq(cq2);
	region_free(&w, &r);
	region_free(&w, &r2);
	world_close(&w);
}

Test(overflow, unarmed_overflow_is_reported_at_the_next_arm)
{
	struct world w;
	struct notes n;
	const uint32_t depth = 4;
	open_with_notes(&w, &n, depth, 64);
	struct region r;
	region_make(&w, &r, 1, false);
	overflow(&w, &r, depth, 10);
	expect_calls(&w, &n, 0, "overflow without an arm");
	arm(&w, NDK_CQ_NOTIFY_ERRORS);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	expect_calls(&w, &n, 1, "ERRORS arm on an overflowed CQ");
	expect_status(&w, n.last_status, NDK_STATUS_BUFFER_OVERFLOW);
	region_free(&w, &r);
	world_close(&w);
}

Test(close, no_callback_after_close_returns)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	arm(&w, NDK_CQ_NOTIFY_ANY);
	expect_status(&w, region_register(&w, &r, CTX(1), 0), NDK_STATUS_SUCCESS);
	/* close the QP and the CQ while the completion and its notification are on the way */
	ndk_sim_step(w.sim, 10);
	ndk_close_qp(w.qp);
	w.qp = NULL;
	ndk_close_cq(w.cq);
	w.cq = NULL;
	int calls = n.calls;
	ndk_sim_step(w.sim, 2 * SETTLE_CYCLES);
	cr_expect_eq(n.calls, calls, "a callback ran after ndk_close_cq returned");
	region_free(&w, &r);
	world_close(&w);
}

/* NDK object lifetime: closing a CQ from another thread while its callback runs pends until the
 * callback returns. The callback starts the closing thread, then keeps running (yielding the CPU
 * many times, so a close that did not wait would return meanwhile); ndk_close_cq must return
 * only after the callback did. */
struct close_race {
	struct ndk_cq *cq;
	pthread_t closer;
	int started;	    /* the closer thread was created */
	int cb_done;	    /* the callback returned (set as its last action) */
	int close_returned; /* ndk_close_cq returned */
	int done_at_return; /* cb_done as the closer saw it when close returned */
	int early;	    /* the callback saw close_returned while still running */
};

static void *close_from_another_thread(void *arg)
{
	struct close_race *r = arg;
	ndk_close_cq(r->cq);
	__atomic_store_n(&r->done_at_return, __atomic_load_n(&r->cb_done, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&r->close_returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_notify_close_race(void *context, ndk_status cq_status)
{
	struct close_race *r = context;
	(void)cq_status;
	if (r->started)
		return;
	r->started = 1;
	cr_assert_eq(pthread_create(&r->closer, NULL, close_from_another_thread, r), 0);
	for (int i = 0; i < 200000; i++) {
		if (__atomic_load_n(&r->close_returned, __ATOMIC_ACQUIRE))
			r->early = 1;
		sched_yield();
	}
	__atomic_store_n(&r->cb_done, 1, __ATOMIC_RELEASE);
}

Test(close, close_from_another_thread_waits_for_the_running_callback)
{
	struct world w;
	world_open(&w, 0, 0);
	struct close_race r = { 0 };
	cr_assert_eq(ndk_create_cq(w.ad, 16, on_notify_close_race, &r, &w.cq), NDK_STATUS_SUCCESS);
	r.cq = w.cq;
	struct ndk_qp_attr a = { .receive_cq = w.cq,
				 .initiator_cq = w.cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 16,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w.pd, &a, &w.qp), NDK_STATUS_SUCCESS);
	struct region reg;
	region_make(&w, &reg, 1, false);
	ndk_arm_cq(w.cq, NDK_CQ_NOTIFY_ANY);
	expect_status(&w, region_register(&w, &reg, CTX(1), 0), NDK_STATUS_SUCCESS);
	uint64_t t = ndk_sim_cycle(w.sim);
	while (!r.started) {
		if (ndk_sim_cycle(w.sim) - t > 2 * SETTLE_CYCLES)
			sim_fail(&w, "no callback");
		ndk_sim_step(w.sim, 1);
	}
	cr_assert_eq(pthread_join(r.closer, NULL), 0);
	cr_expect_eq(r.early, 0, "ndk_close_cq returned while the callback was still running");
	cr_expect_eq(r.done_at_return, 1, "ndk_close_cq returned before the callback did");
	w.cq = NULL; /* closed; its QP (which still holds it) closes in world_close */
	region_free(&w, &reg);
	world_close(&w);
}

/*
 * MSI-X enable / function mask (PCIe Message Control, nic_core's msix_fn_masked_i): an armed
 * CQ's notification raised while the function is masked sends no message and sets its vector's
 * pending bit (MSIX_PBA); unmasking sends it (once) and clears the bit. Nothing is lost.
 */
Test(notify, a_notification_while_the_function_is_masked_waits_in_the_pba)
{
	struct world w;
	struct notes n;
	open_with_notes(&w, &n, 16, 16);
	struct region r;
	region_make(&w, &r, 1, false);
	const uint32_t vec = w.cq->vector;
	const uint32_t pba = NIC_REG_MSIX_PBA + 4 * (vec / 32), bit = 1u << (vec % 32);
	cr_assert_eq(nicsim_msix_function_mask(w.sim->world, 0, 1), 0);
	arm(&w, NDK_CQ_NOTIFY_ANY);
	complete_success(&w, &r);
	cr_expect_eq(stats_of(&w).interrupts, 0, "a message while the function is masked");
	expect_calls(&w, &n, 0, "notification while the function is masked");
	cr_expect(nicsim_mmio_read32(w.sim->world, 0, pba) & bit, "the vector's pending bit");
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).interrupts, 0, "a message while the function is masked");
	cr_assert_eq(nicsim_msix_function_mask(w.sim->world, 0, 0), 0);
	ndk_sim_step(w.sim, SETTLE_CYCLES);
	cr_expect_eq(stats_of(&w).interrupts, 1, "the pending message after the unmask");
	expect_calls(&w, &n, 1, "the pending notification after the unmask");
	cr_expect_eq(nicsim_mmio_read32(w.sim->world, 0, pba) & bit, 0, "the pending bit cleared");
	region_free(&w, &r);
	world_close(&w);
}
