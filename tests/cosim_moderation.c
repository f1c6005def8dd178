/* SPDX-License-Identifier: MIT */
/*
 * Interrupt moderation (ndk_control_cq_interrupt_moderation, done by the CQ engine) and the
 * MSI-X vector mask, checked cycle by cycle. Times are taken on the buses (ndk_sim_stats): an
 * MMIO write counts when it reaches the NIC; a CQE and an MSI-X message count when they become
 * visible in host memory (dma_write_ns after the NIC issued them).
 */
#include "cosim.h"
#include "ndk_internal.h"

#define CTX(n) ((void *)(uintptr_t)(0x2000 + (n)))
#define INF    0xffffffffu

struct mod_world {
	struct world w;
	struct region r;
	uint32_t posted; /* requests posted so far: even = FastRegister, odd = Invalidate */
	int calls;	 /* notification callbacks */
	ndk_status last_status;
	uint64_t cycles_per_us;
};

static void on_notify(void *context, ndk_status cq_status)
{
	struct mod_world *m = context;
	m->calls++;
	m->last_status = cq_status;
}

static void mod_open(struct mod_world *m, uint32_t cq_depth)
{
	struct ndk_sim_config c;
	memset(m, 0, sizeof(*m));
	world_open(&m->w, 0, 0);
	ndk_sim_default_config(&c);
	m->cycles_per_us = c.clock_mhz;
	cr_assert_eq(ndk_create_cq(m->w.ad, cq_depth, on_notify, m, &m->w.cq), NDK_STATUS_SUCCESS);
	struct ndk_qp_attr a = { .receive_cq = m->w.cq,
				 .initiator_cq = m->w.cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 64,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(m->w.pd, &a, &m->w.qp), NDK_STATUS_SUCCESS);
	region_make(&m->w, &m->r, 1, false);
	struct ndk_adapter_info info;
	cr_assert_eq(ndk_query_adapter_info(m->w.ad, &info), NDK_STATUS_SUCCESS);
	cr_assert(info.adapter_flags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED);
}

static void mod_close(struct mod_world *m)
{
	region_free(&m->w, &m->r);
	world_close(&m->w);
}

static uint64_t now(struct mod_world *m)
{
	return ndk_sim_cycle(m->w.sim);
}

static uint64_t stat_cqes(struct mod_world *m)
{
	return stats_of(&m->w).cqes_written;
}

static uint64_t stat_irqs(struct mod_world *m)
{
	return stats_of(&m->w).interrupts;
}

/* the MSI-X message's own trip plus a few engine cycles: an unheld notification's bound */
static uint64_t message_bound(void)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	return (uint64_t)c.dma_write_ns * c.clock_mhz / 1000 + 32;
}

/* Post one successful request (alternately FastRegister and Invalidate of one MR) and return
 * the cycle at which its CQE was written. */
static uint64_t complete_one(struct mod_world *m)
{
	uint64_t before = stat_cqes(m);
	uint32_t i = m->posted++;
	ndk_status st = i % 2 ? ndk_invalidate_mr(m->w.qp, CTX(i), m->r.mr, 0) :
				region_register(&m->w, &m->r, CTX(i), 0);
	expect_status(&m->w, st, NDK_STATUS_SUCCESS);
	uint64_t t = now(m);
	while (stat_cqes(m) == before) {
		if (now(m) - t > 5000)
			sim_fail(&m->w, "no CQE written for request %u", i);
		ndk_sim_step(m->w.sim, 1);
	}
	return now(m);
}

/* arm, and step until the arm doorbell has reached the NIC; returns that cycle */
static uint64_t arm_at_nic(struct mod_world *m, enum ndk_cq_notify_type type)
{
	uint64_t before = stats_of(&m->w).cq_doorbells;
	ndk_arm_cq(m->w.cq, type);
	uint64_t t = now(m);
	while (stats_of(&m->w).cq_doorbells == before) {
		if (now(m) - t > 5000)
			sim_fail(&m->w, "the arm doorbell never reached the NIC");
		ndk_sim_step(m->w.sim, 1);
	}
	return now(m);
}

static void moderate(struct mod_world *m, uint32_t interval_us, uint32_t count)
{
	uint64_t before = stats_of(&m->w).mmio_writes;
	expect_status(&m->w, ndk_control_cq_interrupt_moderation(m->w.cq, interval_us, count),
		      NDK_STATUS_SUCCESS);
	uint64_t t = now(m);
	while (stats_of(&m->w).mmio_writes == before) {
		if (now(m) - t > 5000)
			sim_fail(&m->w, "the moderation word never reached the NIC");
		ndk_sim_step(m->w.sim, 1);
	}
}

/* step until the next MSI-X message leaves the NIC (fail after max cycles); its cycle */
static uint64_t wait_irq(struct mod_world *m, uint64_t max)
{
	uint64_t before = stat_irqs(m), t = now(m);
	while (stat_irqs(m) == before) {
		if (now(m) - t > max)
			sim_fail(&m->w, "no MSI-X message within %" PRIu64 " cycles", max);
		ndk_sim_step(m->w.sim, 1);
	}
	return now(m);
}

static void expect_no_irq(struct mod_world *m, uint64_t cycles, const char *why)
{
	uint64_t before = stat_irqs(m);
	for (uint64_t i = 0; i < cycles; i++) {
		ndk_sim_step(m->w.sim, 1);
		if (stat_irqs(m) != before)
			sim_fail(&m->w, "%s: an MSI-X message %" PRIu64 " cycles into the wait",
				 why, i + 1);
	}
}

/* Count only: the arm satisfied by the first completion is held until the 4th completion since
 * the last notification, which notifies as fast as an unmoderated CQ would. */
Test(moderation, count_holds_the_notification_until_count_completions)
{
	struct mod_world m;
	mod_open(&m, 16);
	moderate(&m, INF, 4);
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	for (int i = 0; i < 3; i++) {
		complete_one(&m);
		expect_no_irq(&m, 20 * m.cycles_per_us, "count 4, fewer completions");
	}
	uint64_t t_cqe = complete_one(&m);
	uint64_t t_irq = wait_irq(&m, message_bound());
	cr_log_info("count reached: CQE visible -> MSI-X message visible %" PRIu64 " cycles",
		    t_irq - t_cqe);
	ndk_sim_step(m.w.sim, 1000);
	cr_expect_eq(m.calls, 1);
	/* the count restarts at the notification: the next arm waits for 4 new ones again */
	struct ndk_result_ex res[4];
	cr_expect_eq(ndk_get_cq_results_ex(m.w.cq, res, 4), 4);
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	for (int i = 0; i < 3; i++) {
		complete_one(&m);
		expect_no_irq(&m, 5 * m.cycles_per_us, "count restarts after a notification");
	}
	complete_one(&m);
	wait_irq(&m, message_bound());
	mod_close(&m);
}

/* Interval only: one completion satisfies the arm; the message leaves between interval - 1 and
 * interval microseconds later (1 us timer granularity; NDK's interval is a maximum). */
Test(moderation, interval_holds_the_notification_at_most_interval_us)
{
	struct mod_world m;
	mod_open(&m, 16);
	const uint32_t interval = 10;
	moderate(&m, interval, INF);
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	uint64_t t_cqe = complete_one(&m);
	uint64_t t_irq = wait_irq(&m, (interval + 1) * m.cycles_per_us);
	uint64_t held = t_irq - t_cqe;
	cr_log_info("interval %u us: CQE visible -> MSI-X message visible %" PRIu64 " cycles",
		    interval, held);
	if (held < (interval - 1) * m.cycles_per_us || held > interval * m.cycles_per_us + 32)
		sim_fail(&m.w, "held %" PRIu64 " cycles, want [%" PRIu64 ", %" PRIu64 "]", held,
			 (interval - 1) * m.cycles_per_us, interval * m.cycles_per_us + 32);
	ndk_sim_step(m.w.sim, 1000);
	cr_expect_eq(m.calls, 1);
	expect_status(&m.w, m.last_status, NDK_STATUS_SUCCESS);
	mod_close(&m);
}

/* Both bounds: whichever is reached first releases the notification. */
Test(moderation, both_bounds_whichever_comes_first)
{
	struct mod_world m;
	mod_open(&m, 16);
	const uint32_t interval = 20;
	moderate(&m, interval, 3);
	/* two completions only: the interval releases it */
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	uint64_t t_first = complete_one(&m);
	complete_one(&m);
	uint64_t held = wait_irq(&m, (interval + 1) * m.cycles_per_us) - t_first;
	if (held < (interval - 1) * m.cycles_per_us)
		sim_fail(&m.w, "released after %" PRIu64 " cycles with 2 of 3 completions", held);
	struct ndk_result_ex res[3];
	cr_expect_eq(ndk_get_cq_results_ex(m.w.cq, res, 3), 2);
	/* three quick completions: the count releases it long before the interval */
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	t_first = complete_one(&m);
	complete_one(&m);
	uint64_t t_third = complete_one(&m);
	uint64_t t_irq = wait_irq(&m, message_bound());
	if (t_irq - t_first >= (interval - 1) * m.cycles_per_us)
		sim_fail(&m.w, "the count did not release it (%" PRIu64 " cycles)",
			 t_irq - t_first);
	cr_log_info("count 3 of interval 20 us: third CQE visible -> message visible %" PRIu64
		    " cycles",
		    t_irq - t_third);
	mod_close(&m);
}

/* Moderation never holds an arm that is not satisfied, and the latest settings win: turned off
 * again, a satisfied arm notifies at once. */
Test(moderation, latest_settings_win_and_off_notifies_at_once)
{
	struct mod_world m;
	mod_open(&m, 16);
	moderate(&m, 50, INF);
	moderate(&m, 0, INF);
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	uint64_t t_cqe = complete_one(&m);
	wait_irq(&m, message_bound());
	cr_log_info("moderation off: CQE visible -> MSI-X message visible %" PRIu64 " cycles",
		    now(&m) - t_cqe);
	/* a SOLICITED arm is not satisfied by successful completions: no timer runs for it */
	struct ndk_result_ex res[1];
	cr_expect_eq(ndk_get_cq_results_ex(m.w.cq, res, 1), 1);
	moderate(&m, 2, INF);
	arm_at_nic(&m, NDK_CQ_NOTIFY_SOLICITED);
	complete_one(&m);
	expect_no_irq(&m, 10 * m.cycles_per_us, "SOLICITED arm, successful completion");
	mod_close(&m);
}

/* A CQ error is never held back: an ERRORS arm with a long interval and a count the CQ cannot
 * reach fires on the overflow as fast as without moderation. */
Test(moderation, cq_error_is_never_held)
{
	struct mod_world m;
	const uint32_t depth = 4;
	mod_open(&m, depth);
	moderate(&m, 1000, depth);
	arm_at_nic(&m, NDK_CQ_NOTIFY_ERRORS);
	struct ndk_sim_stats s0 = stats_of(&m.w);
	/* successful requests, none polled, until the CQ overflows and its QP refuses posts */
	uint32_t i;
	for (i = 0; i < 4 * depth + 2; i++) {
		ndk_status st = i % 2 ? ndk_invalidate_mr(m.w.qp, CTX(i), m.r.mr, 0) :
					region_register(&m.w, &m.r, CTX(i), 0);
		if (st == NDK_STATUS_INVALID_DEVICE_STATE && i > depth)
			break;
		expect_status(&m.w, st, NDK_STATUS_SUCCESS);
	}
	uint64_t t = now(&m);
	while (m.calls == 0) {
		if (now(&m) - t > 20000)
			sim_fail(&m.w, "the overflow's notification was held (interval 1000 us)");
		ndk_sim_step(m.w.sim, 1);
	}
	expect_status(&m.w, m.last_status, NDK_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq(stats_of(&m.w).interrupts - s0.interrupts, 1);
	mod_close(&m);
}

/* MSI-X (PCIe): a message for a masked vector sets the vector's pending bit instead; the message
 * goes out when the vector is unmasked, and the pending bit clears. Reached through BAR0 like a
 * platform would, below the driver. */
Test(msix, masked_vector_sets_its_pending_bit_and_fires_when_unmasked)
{
	struct mod_world m;
	mod_open(&m, 16);
	struct ndk_adapter *ad = m.w.ad;
	uint32_t v = m.w.cq->vector;
	uint32_t control = NIC_REG_MSIX_TABLE + 16 * v + 12;
	uint32_t pba = NIC_REG_MSIX_PBA + 4 * (v / 32);
	ad->ops->mmio_write32(ad->dev, control, 1);
	cr_expect_eq(ad->ops->mmio_read32(ad->dev, pba) & (1u << (v % 32)), 0, "pending at start");
	arm_at_nic(&m, NDK_CQ_NOTIFY_ANY);
	complete_one(&m);
	expect_no_irq(&m, 4 * message_bound(), "masked vector");
	cr_expect_eq(m.calls, 0);
	cr_expect_neq(ad->ops->mmio_read32(ad->dev, pba) & (1u << (v % 32)), 0,
		      "the masked vector's pending bit");
	uint64_t before = stats_of(&m.w).mmio_writes;
	ad->ops->mmio_write32(ad->dev, control, 0);
	while (stats_of(&m.w).mmio_writes == before)
		ndk_sim_step(m.w.sim, 1);
	uint64_t t_unmask = now(&m);
	uint64_t t_irq = wait_irq(&m, message_bound());
	cr_log_info("unmask reaches the NIC -> MSI-X message visible %" PRIu64 " cycles",
		    t_irq - t_unmask);
	ndk_sim_step(m.w.sim, 1000);
	cr_expect_eq(m.calls, 1, "the pending notification is delivered once");
	cr_expect_eq(ad->ops->mmio_read32(ad->dev, pba) & (1u << (v % 32)), 0, "pending cleared");
	cr_expect_eq(stats_of(&m.w).interrupts, 1);
	mod_close(&m);
}
