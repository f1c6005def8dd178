/* SPDX-License-Identifier: MIT */
/*
 * The NDK request and completion rules that need a peer, checked between two simulated hosts:
 * solicited events (SEND_AND_SOLICIT_EVENT and the arm types), SILENT_SUCCESS and the send
 * queue's slot accounting, ndk_flush and QP error with requests in flight, DEFER chains of
 * transport requests on the NIC, bad input on one connection while another one carries
 * traffic, and RNR retries (a Send that finds no receive posted). docs/conformance.md and docs/bad-input.md map the rules to these tests.
 */
#include <unistd.h>

#include "backend_sim.h" /* the world behind an ndk_sim: frame injection */
#include "cosim_pair.h"
#include "nicsim.h"
#include "pcap_check.h"

#define CTX(n)	     ((void *)(uintptr_t)(0x6000 + (n)))
#define QUIET_CYCLES 3000 /* far longer than a CQE write + an MSI-X message's trip */
#define CPL_CYCLES   200000

static struct ndk_sim_stats nic_stats(struct pair *p, unsigned nic)
{
	struct ndk_sim_stats s;
	ndk_sim_get_stats(p->sim, nic, &s);
	return s;
}

static void post_ok(struct pair *p, ndk_status st, const char *what)
{
	if (st != NDK_STATUS_SUCCESS)
		cr_assert_fail("cycle %" PRIu64 ": %s: %s", ndk_sim_cycle(p->sim), what,
			       ndk_status_name(st));
}

/* ---------------------------------------------------------------------------------------------
 * Solicited events
 */

struct notes {
	struct pair *p;
	int calls;
	uint64_t last_cycle;
	ndk_status last_status;
};

static void on_notify(void *context, ndk_status cq_status)
{
	struct notes *n = context;
	n->calls++;
	n->last_status = cq_status;
	n->last_cycle = ndk_sim_cycle(n->p->sim);
}

/* A pair whose CQs notify into notes[0] / notes[1]. */
static void open_notified(struct pair *p, struct notes n[2])
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	struct pair_opts o = { .cq_fn = on_notify, .cq_fn_context = { &n[0], &n[1] } };
	memset(n, 0, 2 * sizeof(*n));
	pair_open_opts(p, &c, &o);
	n[0].p = n[1].p = p;
}

/* arm side i's CQ and wait until the arm doorbell has reached its NIC */
static void arm_side(struct pair *p, unsigned i, enum ndk_cq_notify_type type)
{
	uint64_t before = nic_stats(p, i).cq_doorbells;
	ndk_arm_cq(p->s[i].cq, type);
	uint64_t t = ndk_sim_cycle(p->sim);
	while (nic_stats(p, i).cq_doorbells == before) {
		if (ndk_sim_cycle(p->sim) - t > QUIET_CYCLES)
			cr_assert_fail("cycle %" PRIu64 ": the arm never reached NIC %u",
				       ndk_sim_cycle(p->sim), i);
		ndk_sim_step(p->sim, 1);
	}
}

/* step until NIC i has written `count` more CQEs than `before`; returns the cycle */
static uint64_t await_cqes(struct pair *p, unsigned i, uint64_t before, uint64_t count)
{
	uint64_t t = ndk_sim_cycle(p->sim);
	while (nic_stats(p, i).cqes_written < before + count) {
		if (ndk_sim_cycle(p->sim) - t > CPL_CYCLES)
			cr_assert_fail("cycle %" PRIu64 ": NIC %u wrote %" PRIu64 " of %" PRIu64
				       " CQEs",
				       ndk_sim_cycle(p->sim), i,
				       nic_stats(p, i).cqes_written - before, count);
		ndk_sim_step(p->sim, 1);
	}
	return ndk_sim_cycle(p->sim);
}

/* step until the notes count `calls` callbacks; returns the cycle */
static uint64_t await_calls(struct pair *p, struct notes *n, int calls)
{
	uint64_t t = ndk_sim_cycle(p->sim);
	while (n->calls < calls) {
		if (ndk_sim_cycle(p->sim) - t > QUIET_CYCLES)
			cr_assert_fail("cycle %" PRIu64 ": %d notifications, want %d",
				       ndk_sim_cycle(p->sim), n->calls, calls);
		ndk_sim_step(p->sim, 1);
	}
	return ndk_sim_cycle(p->sim);
}

static void expect_calls(struct pair *p, struct notes *n, int calls, const char *why)
{
	if (n->calls != calls)
		cr_assert_fail("cycle %" PRIu64 ": %s: %d notifications, want %d",
			       ndk_sim_cycle(p->sim), why, n->calls, calls);
}

/* a Send of `len` bytes from side 0 into a receive of side 1 (posted here) */
static void send_one(struct pair *p, int ctx, uint32_t len, uint32_t recv_len, uint32_t flags)
{
	struct side *a = &p->s[0], *b = &p->s[1];
	struct ndk_sge rcv = sge_of(b, 0, recv_len), snd = sge_of(a, 0, len);
	post_ok(p, ndk_receive(b->qp, CTX(ctx), &rcv, 1), "receive");
	post_ok(p, ndk_send(a->qp, CTX(ctx + 1), &snd, 1, flags), "send");
}

/*
 * SOLICITED armed at the receiver: an unsolicited Send's receive completion is written and no
 * notification follows (QUIET_CYCLES after the CQE); a Send with SEND_AND_SOLICIT_EVENT then
 * fires exactly one, after its CQE, and the arm is spent (a second solicited Send alone gives
 * nothing).
 */
Test(solicited, solicited_arm_fires_on_a_solicited_receive_and_not_on_an_unsolicited_one)
{
	struct pair p;
	struct notes n[2];
	open_notified(&p, n);
	arm_side(&p, 1, NDK_CQ_NOTIFY_SOLICITED);

	uint64_t cqes = nic_stats(&p, 1).cqes_written, irq = nic_stats(&p, 1).interrupts;
	send_one(&p, 0, 64, 64, 0);
	uint64_t seen = await_cqes(&p, 1, cqes, 1);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], 0, "unsolicited receive under a SOLICITED arm");
	cr_expect_eq(nic_stats(&p, 1).interrupts, irq, "an MSI-X message for an unsolicited CQE");
	cr_log_info("unsolicited receive CQE at cycle %" PRIu64 ", quiet until %" PRIu64, seen,
		    ndk_sim_cycle(p.sim));

	send_one(&p, 2, 64, 64, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
	uint64_t written = await_cqes(&p, 1, cqes, 2);
	uint64_t fired = await_calls(&p, &n[1], 1);
	cr_expect_geq(fired, written, "the notification came before the solicited CQE");
	cr_log_info("solicited CQE at %" PRIu64 ", notification at %" PRIu64 " (+%" PRIu64 ")",
		    written, fired, fired - written);
	cr_expect_eq(n[1].last_status, NDK_STATUS_SUCCESS);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], 1, "one arm, one notification");
	cr_expect_eq(nic_stats(&p, 1).interrupts, irq + 1);

	/* the arm is spent: another solicited receive without a new arm notifies nothing */
	send_one(&p, 4, 64, 64, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
	await_cqes(&p, 1, cqes, 3);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], 1, "a solicited receive after the arm fired");

	/* all three receives in order, the sender's three Sends in order; the sender's CQ was
	 * never armed */
	for (int i = 0; i < 3; i++)
		expect_cpl(&p, &p.s[1], NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2 * i), 64);
	for (int i = 0; i < 3; i++)
		expect_cpl(&p, &p.s[0], NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2 * i + 1), 0);
	expect_calls(&p, &n[0], 0, "the sender's unarmed CQ");
	pair_close(&p);
}

/* The SE bit travels only on a Send's last packet: a multi-packet solicited Send fires once,
 * after the whole message was placed. */
Test(solicited, multi_packet_solicited_send_fires_once_after_its_last_packet)
{
	struct pair p;
	struct notes n[2];
	open_notified(&p, n);
	arm_side(&p, 1, NDK_CQ_NOTIFY_SOLICITED);
	uint64_t cqes = nic_stats(&p, 1).cqes_written;
	fill(p.s[0].buf.va, 5000, 11);
	send_one(&p, 0, 5000, 8192, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
	uint64_t written = await_cqes(&p, 1, cqes, 1);
	uint64_t fired = await_calls(&p, &n[1], 1);
	cr_expect_geq(fired, written);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], 1, "one multi-packet solicited Send");
	expect_cpl(&p, &p.s[1], NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(0), 5000);
	cr_expect(memcmp(p.s[0].buf.va, p.s[1].buf.va, 5000) == 0);
	expect_cpl(&p, &p.s[0], NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(1), 0);
	pair_close(&p);
}

/* ANY fires on an unsolicited receive, once. */
Test(solicited, any_arm_fires_on_an_unsolicited_receive)
{
	struct pair p;
	struct notes n[2];
	open_notified(&p, n);
	arm_side(&p, 1, NDK_CQ_NOTIFY_ANY);
	uint64_t cqes = nic_stats(&p, 1).cqes_written;
	send_one(&p, 0, 100, 100, 0);
	uint64_t written = await_cqes(&p, 1, cqes, 1);
	uint64_t fired = await_calls(&p, &n[1], 1);
	cr_expect_geq(fired, written);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], 1, "ANY: one notification");
	expect_cpl(&p, &p.s[1], NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(0), 100);
	expect_cpl(&p, &p.s[0], NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(1), 0);
	pair_close(&p);
}

/*
 * A receive that completes with an error (a Send longer than it: DATA_OVERRUN) satisfies a
 * SOLICITED arm (error completions always do), but not an ERRORS arm: ERRORS is for CQ-level
 * faults only (shared/spec/ndk-semantics.md, "Arming"). The sender's Send fails REMOTE_ERROR.
 */
static void receive_error_case(enum ndk_cq_notify_type type, int want_calls)
{
	struct pair p;
	struct notes n[2];
	open_notified(&p, n);
	arm_side(&p, 1, type);
	uint64_t cqes = nic_stats(&p, 1).cqes_written;
	send_one(&p, 0, 65, 64, 0);
	uint64_t written = await_cqes(&p, 1, cqes, 1);
	if (want_calls) {
		uint64_t fired = await_calls(&p, &n[1], 1);
		cr_expect_geq(fired, written);
	}
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], want_calls, "a receive completing with an error");
	expect_cpl(&p, &p.s[1], NDK_STATUS_DATA_OVERRUN, NDK_OP_RECEIVE, CTX(0), 0);
	expect_cpl(&p, &p.s[0], NDK_STATUS_REMOTE_ERROR, NDK_OP_SEND, CTX(1), 0);
	pair_close(&p);
}

Test(solicited, solicited_arm_fires_on_a_receive_that_completes_with_an_error)
{
	receive_error_case(NDK_CQ_NOTIFY_SOLICITED, 1);
}

Test(solicited, errors_arm_does_not_fire_on_a_receive_error_completion)
{
	receive_error_case(NDK_CQ_NOTIFY_ERRORS, 0);
}

/*
 * The seed's merge table with receives: two arms before either is satisfied, then an
 * unsolicited Send and a solicited one. The merged arm fires on the unsolicited receive when it
 * is ANY, on the solicited one when it is SOLICITED, on neither when it is ERRORS.
 */
static void merge_cell_with_receives(enum ndk_cq_notify_type first, enum ndk_cq_notify_type second)
{
	static const int rank[] = {
		[NDK_CQ_NOTIFY_ERRORS] = 0, [NDK_CQ_NOTIFY_SOLICITED] = 1, [NDK_CQ_NOTIFY_ANY] = 2
	};
	enum ndk_cq_notify_type merged = rank[first] >= rank[second] ? first : second;
	struct pair p;
	struct notes n[2];
	open_notified(&p, n);
	arm_side(&p, 1, first);
	arm_side(&p, 1, second);
	uint64_t cqes = nic_stats(&p, 1).cqes_written;
	send_one(&p, 0, 64, 64, 0);
	await_cqes(&p, 1, cqes, 1);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], merged == NDK_CQ_NOTIFY_ANY, "after an unsolicited receive");
	send_one(&p, 2, 64, 64, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
	await_cqes(&p, 1, cqes, 2);
	ndk_sim_step(p.sim, QUIET_CYCLES);
	expect_calls(&p, &n[1], merged != NDK_CQ_NOTIFY_ERRORS, "after a solicited receive");
	for (int i = 0; i < 2; i++)
		expect_cpl(&p, &p.s[1], NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2 * i), 64);
	pair_close(&p);
}

Test(solicited, merge_table_with_receives_all_nine_cells)
{
	static const enum ndk_cq_notify_type t[] = { NDK_CQ_NOTIFY_ERRORS, NDK_CQ_NOTIFY_SOLICITED,
						     NDK_CQ_NOTIFY_ANY };
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			merge_cell_with_receives(t[i], t[j]);
}

/* ---------------------------------------------------------------------------------------------
 * SILENT_SUCCESS
 */

/* A silent Send and a silent Write succeed without a completion at the sender (the receive
 * still completes at the peer); a silent Write with a bad remote token completes, with its
 * error, and the QP's later request CANCELLED. */
Test(silent, silent_send_and_write_complete_only_on_error)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	fill(a->buf.va, 4096, 5);
	struct ndk_sge rcv = sge_of(b, 0, 2000), snd = sge_of(a, 0, 2000);
	post_ok(&p, ndk_receive(b->qp, CTX(1), &rcv, 1), "receive");
	post_ok(&p, ndk_send(a->qp, CTX(2), &snd, 1, NDK_OP_FLAG_SILENT_SUCCESS), "silent send");
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 2000);
	cr_expect(memcmp(a->buf.va, b->buf.va, 2000) == 0);
	struct ndk_sge ws = sge_of(a, 0, 3000);
	post_ok(&p,
		ndk_write(a->qp, CTX(3), &ws, 1, (uint64_t)(uintptr_t)r.buf.va,
			  ndk_get_remote_token_from_mr(r.mr), NDK_OP_FLAG_SILENT_SUCCESS),
		"silent write");
	uint64_t frames = nic_stats(&p, 1).frames_sent;
	/* the Write's ACK leaves the responder: then nothing may complete at the requester */
	uint64_t t = ndk_sim_cycle(p.sim);
	while (nic_stats(&p, 1).frames_sent == frames) {
		if (ndk_sim_cycle(p.sim) - t > CPL_CYCLES)
			cr_assert_fail("no ACK for the silent Write");
		ndk_sim_step(p.sim, 1);
	}
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	cr_expect(memcmp(a->buf.va, r.buf.va, 3000) == 0, "the silent Write's bytes");

	/* the error of a silent request completes, and the QP is in error after it */
	post_ok(&p,
		ndk_write(a->qp, CTX(4), &ws, 1, 0x10000, 0x00001234u, NDK_OP_FLAG_SILENT_SUCCESS),
		"silent write with a bad token");
	post_ok(&p, ndk_send(a->qp, CTX(5), &snd, 1, NDK_OP_FLAG_SILENT_SUCCESS), "silent send");
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_WRITE, CTX(4), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(5), 0);
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	side_region_free(&p, b, &r);
	pair_close(&p);
}

/*
 * A failed request of one QP and a silent success of another: the requester's completer offers
 * the failure's CQE, and right after it takes it may pop the other QP's silent success (no CQE).
 * That pop must not report the failure again: it once raised qp_err_o with the failed CQE still
 * in its register and the silent success's QP as the QP, which moved that healthy QP to ERROR
 * (its later requests CANCELLED). Found by the requester's module bench (docs/verification.md).
 * QP B (the pair's) sends 7 silent Writes and a signalled one per round; a fresh QP A of the same
 * NIC fails a Write (bad remote token: NAK remote access) at 16 offsets against B's round, so
 * that A's failure lands among B's acknowledgements. Every round B's signalled Write completes
 * SUCCESS and A's ACCESS_VIOLATION.
 */
Test(silent, a_failure_on_one_qp_leaves_another_qps_silent_successes_alone)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint64_t rva = (uint64_t)(uintptr_t)r.buf.va;
	uint32_t rtok = ndk_get_remote_token_from_mr(r.mr);
	fill(a->buf.va, 4096, 9);
	struct ndk_sge g = sge_of(a, 0, 64);
	for (int k = 0; k < 16; k++) {
		struct ndk_cq *fcq[2];
		struct ndk_qp *fqp[2];
		for (int i = 0; i < 2; i++) {
			struct side *s = &p.s[i];
			cr_assert_eq(ndk_create_cq(s->ad, 16, NULL, NULL, &fcq[i]),
				     NDK_STATUS_SUCCESS);
			struct ndk_qp_attr at = { .receive_cq = fcq[i],
						  .initiator_cq = fcq[i],
						  .qp_context = QP_CONTEXT,
						  .receive_queue_depth = 4,
						  .initiator_queue_depth = 4,
						  .max_receive_request_sge = 1,
						  .max_initiator_request_sge = 1 };
			cr_assert_eq(ndk_create_qp(s->pd, &at, &fqp[i]), NDK_STATUS_SUCCESS);
		}
		qps_connect(fqp[0], fqp[1]);
		for (int m = 0; m < 8; m++)
			post_ok(&p,
				ndk_write(a->qp, CTX(100 + m), &g, 1, rva + 64 * (uint64_t)m, rtok,
					  m < 7 ? NDK_OP_FLAG_SILENT_SUCCESS : 0),
				"B's write");
		ndk_sim_step(p.sim, 40 + 11 * (uint64_t)k);
		post_ok(&p, ndk_write(fqp[0], CTX(200 + k), &g, 1, rva, rtok ^ 0x100u, 0),
			"A's write with a bad remote token");
		struct ndk_result_ex res;
		poll_cq(&p, fcq[0], &res, CPL_CYCLES);
		cr_expect_eq(res.status, NDK_STATUS_ACCESS_VIOLATION, "round %d: A's write %s", k,
			     ndk_status_name(res.status));
		poll_side(&p, a, &res, CPL_CYCLES);
		cr_assert_eq(res.status, NDK_STATUS_SUCCESS,
			     "round %d: B's signalled write %s (B's QP was moved to ERROR)", k,
			     ndk_status_name(res.status));
		cr_expect_eq(res.request_context, CTX(107));
		expect_no_cpl(&p, a->cq, 200);
		for (int i = 0; i < 2; i++) {
			ndk_close_qp(fqp[i]);
			ndk_close_cq(fcq[i]);
		}
	}
	side_region_free(&p, b, &r);
	pair_close(&p);
}

/*
 * Slot accounting: a 16-deep send queue carries 20 times its depth of silent Sends and Writes,
 * each group of depth - 1 silent requests followed by one that completes; the driver frees the
 * silent requests' slots when that completion is dequeued (ndk.h: "a silently successful
 * request's slot is freed when a later completion of the QP's send queue is dequeued"). Every
 * post succeeds, every completing request completes once, in order, and the ring is full at
 * exactly `depth` outstanding requests.
 */
Test(silent, silent_requests_many_times_the_queue_depth_keep_the_slots_right)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	const uint32_t depth = 16, rounds = 20;
	struct pair_opts o = { .sq_depth = depth, .rq_depth = 64 };
	struct pair p;
	pair_open_opts(&p, &c, &o);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint64_t rva = (uint64_t)(uintptr_t)r.buf.va;
	uint32_t rtok = ndk_get_remote_token_from_mr(r.mr);
	fill(a->buf.va, PAIR_BUF_BYTES, 9);
	uint32_t recv_ctx = 0;
	for (uint32_t round = 0; round < rounds; round++) {
		/* the Sends of this round need receives (the peer's ring is 64 deep) */
		for (uint32_t i = 0; i < depth; i += 2) {
			struct ndk_sge rcv = sge_of(b, 64 * (recv_ctx % 512), 64);
			post_ok(&p, ndk_receive(b->qp, CTX(10000 + recv_ctx), &rcv, 1), "receive");
			recv_ctx++;
		}
		for (uint32_t i = 0; i < depth; i++) {
			uint32_t flags = i + 1 < depth ? NDK_OP_FLAG_SILENT_SUCCESS : 0;
			uint32_t id = round * depth + i;
			struct ndk_sge g = sge_of(a, 64 * (id % 512), 64);
			ndk_status st = i % 2 ? ndk_write(a->qp, CTX(id), &g, 1,
							  rva + 64 * (id % 64), rtok, flags) :
						ndk_send(a->qp, CTX(id), &g, 1, flags);
			if (st != NDK_STATUS_SUCCESS)
				cr_assert_fail("round %u post %u: %s (slots leaked)", round, i,
					       ndk_status_name(st));
		}
		/* depth outstanding: the ring is full until the completing request is dequeued */
		struct ndk_sge g = sge_of(a, 0, 8);
		expect_status(&(struct world){ .sim = p.sim },
			      ndk_send(a->qp, CTX(99999), &g, 1, 0), NDK_STATUS_NO_MORE_ENTRIES);
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(round * depth + depth - 1),
			   0);
		for (uint32_t i = 0; i < depth; i += 2) {
			uint32_t id = round * depth + i, rc = recv_ctx - depth / 2 + i / 2;
			expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(10000 + rc), 64);
			cr_expect(memcmp((uint8_t *)b->buf.va + 64 * (rc % 512),
					 (uint8_t *)a->buf.va + 64 * (id % 512), 64) == 0,
				  "silent Send %u's bytes", id);
		}
		for (uint32_t i = 1; i < depth; i += 2) {
			uint32_t id = round * depth + i;
			cr_expect(memcmp((uint8_t *)r.buf.va + 64 * (id % 64),
					 (uint8_t *)a->buf.va + 64 * (id % 512), 64) == 0,
				  "silent Write %u's bytes", id);
		}
	}
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_no_cpl(&p, b->cq, QUIET_CYCLES);
	side_region_free(&p, b, &r);
	pair_close(&p);
}

/* ---------------------------------------------------------------------------------------------
 * Flush and QP error with requests in flight
 */

/* Drain side s's CQ until `n` completions have come; sort them into the send and receive
 * sequences (contexts CTX(100 + i) are receives, CTX(200 + i) initiator requests). */
struct seq {
	void *ctx[64];
	ndk_status status[64];
	uint32_t type[64];
	int n;
};

static void drain(struct pair *p, struct side *s, int n, struct seq *rq, struct seq *sq)
{
	memset(rq, 0, sizeof(*rq));
	memset(sq, 0, sizeof(*sq));
	for (int i = 0; i < n; i++) {
		struct ndk_result_ex r;
		poll_side(p, s, &r, CPL_CYCLES);
		uintptr_t c = (uintptr_t)r.request_context - 0x6000;
		struct seq *q = c >= 100 && c < 200 ? rq : sq;
		cr_assert_lt(q->n, 64);
		q->ctx[q->n] = r.request_context;
		q->status[q->n] = r.status;
		q->type[q->n] = r.type;
		q->n++;
	}
	expect_no_cpl(p, s->cq, QUIET_CYCLES);
}

/* A sequence in posting order (contexts base, base + 1, ...): `ok` successes, then one
 * completion with `err` (unless err is SUCCESS), then CANCELLED to the end. */
static void expect_seq(const struct seq *q, int base, int n, int ok, ndk_status err,
		       const char *what)
{
	cr_assert_eq(q->n, n, "%s: %d completions, want %d", what, q->n, n);
	for (int i = 0; i < n; i++) {
		ndk_status want = i < ok			       ? NDK_STATUS_SUCCESS :
				  i == ok && err != NDK_STATUS_SUCCESS ? err :
									 NDK_STATUS_CANCELLED;
		cr_expect_eq(q->ctx[i], CTX(base + i), "%s #%d: context %p, want %p (order)", what,
			     i, q->ctx[i], CTX(base + i));
		cr_expect_eq(q->status[i], want, "%s #%d: %s, want %s", what, i,
			     ndk_status_name(q->status[i]), ndk_status_name(want));
	}
}

/* the length of the first `ok` completions whose status is SUCCESS */
static int successes(const struct seq *q)
{
	int i = 0;
	while (i < q->n && q->status[i] == NDK_STATUS_SUCCESS)
		i++;
	return i;
}

/*
 * Side 0 posts 6 receives (none will be matched) and 8 initiator requests (Sends and 16 KiB
 * Writes, the peer has receives for every Send); once its first packet is on the wire it is
 * flushed. Every receive completes CANCELLED in posting order; the initiator requests complete
 * in posting order: those whose ACK came before the flush SUCCESS, all later ones CANCELLED
 * (at least the last ones: the flush came while they were queued or in flight). Then the peer
 * is flushed: its unmatched receives complete CANCELLED, in order, after the matched ones.
 */
static int flush_case(uint64_t delay, bool must_cancel)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct region r;
	side_region(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	const int nrecv = 6, nreq = 8;
	for (int i = 0; i < nrecv; i++) {
		struct ndk_sge g = sge_of(a, 1024 * i, 1024);
		post_ok(&p, ndk_receive(a->qp, CTX(100 + i), &g, 1), "receive");
	}
	for (int i = 0; i < nreq; i++) {
		struct ndk_sge g = sge_of(b, 4096 * i, 4096);
		post_ok(&p, ndk_receive(b->qp, CTX(100 + i), &g, 1), "peer receive");
	}
	uint64_t frames = nic_stats(&p, 0).frames_sent;
	for (int i = 0; i < nreq; i++) {
		struct ndk_sge g = sge_of(a, 16384 * (i % 4), i % 2 ? 16384 : 4000);
		ndk_status st = i % 2 ? ndk_write(a->qp, CTX(200 + i), &g, 1,
						  (uint64_t)(uintptr_t)r.buf.va + 4096 * i,
						  ndk_get_remote_token_from_mr(r.mr), 0) :
					ndk_send(a->qp, CTX(200 + i), &g, 1, 0);
		post_ok(&p, st, "request");
	}
	uint64_t t = ndk_sim_cycle(p.sim);
	while (nic_stats(&p, 0).frames_sent == frames) {
		if (ndk_sim_cycle(p.sim) - t > CPL_CYCLES)
			cr_assert_fail("nothing was sent");
		ndk_sim_step(p.sim, 1);
	}
	ndk_sim_step(p.sim, delay);
	ndk_flush(a->qp);
	struct seq rq, sq;
	drain(&p, a, nrecv + nreq, &rq, &sq);
	expect_seq(&rq, 100, nrecv, 0, NDK_STATUS_SUCCESS, "receives after the flush");
	int ok = successes(&sq);
	cr_log_info("flush: %d of %d requests had completed, %d cancelled", ok, nreq, nreq - ok);
	if (must_cancel)
		cr_expect_lt(ok, nreq - 2, "the flush came too late to cancel requests in flight");
	expect_seq(&sq, 200, nreq, ok, NDK_STATUS_SUCCESS, "requests after the flush");
	for (int i = 0; i < sq.n; i++)
		cr_expect_eq(sq.type[i], i % 2 ? NDK_OP_WRITE : NDK_OP_SEND, "#%d type", i);

	/* the peer: the Sends that got through completed their receives; the rest are cancelled
	 * by its own flush, in order */
	ndk_sim_step(p.sim, QUIET_CYCLES);
	ndk_flush(b->qp);
	drain(&p, b, nreq, &rq, &sq);
	int got = successes(&rq);
	cr_expect_leq(got, nreq / 2, "more receives than Sends");
	cr_expect_geq(got, (ok + 1) / 2, "a Send that completed at the sender was not received");
	expect_seq(&rq, 100, nreq, got, NDK_STATUS_SUCCESS, "the peer's receives");
	for (int k = 0; k < got; k++) /* a receive that succeeded holds its whole Send */
		cr_expect(memcmp((uint8_t *)b->buf.va + 4096 * k,
				 (uint8_t *)a->buf.va + 16384 * ((2 * k) % 4), 4000) == 0,
			  "flush after %" PRIu64 " cycles: receive %d", delay, k);
	cr_expect_eq(sq.n, 0);
	side_region_free(&p, b, &r);
	pair_close(&p);
	return ok;
}

Test(flush, flush_cancels_receives_and_requests_in_flight_in_posting_order)
{
	flush_case(0, true);
}

/* The same flush at every moment of the exchange, 233 cycles apart (a prime: the moments fall on
 * every phase of the packet and DMA timing), until everything had completed before it: whenever
 * it comes, nothing is lost, repeated or reordered, and a receive that succeeded holds its whole
 * Send. */
Test(flush, flush_at_any_moment_loses_and_reorders_nothing)
{
	int runs = 0;
	for (uint64_t delay = 0; runs < 400; delay += 233, runs++)
		if (flush_case(delay, false) == 8)
			break;
	cr_log_info("flush sweep: %d moments", runs + 1);
	cr_expect_lt(runs, 400, "the requests never all completed before the flush");
}

/*
 * QP error in the middle of a connected QP's work: `before` Sends succeed, then a bad request of
 * bad_len bytes (a Write with a bad remote token: ACCESS_VIOLATION; or a Send longer than its
 * 64-byte receive: REMOTE_ERROR, the receive DATA_OVERRUN), then 5 more Sends: every later
 * request and every receive of both QPs complete CANCELLED in posting order.
 */
static void error_case(int before, uint32_t bad_len, bool bad_send)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	const int nrecv = 5, after = 5, peer_recv = before + 4;
	for (int i = 0; i < nrecv; i++) {
		struct ndk_sge g = sge_of(a, 1024 * i, 1024);
		post_ok(&p, ndk_receive(a->qp, CTX(100 + i), &g, 1), "receive");
	}
	for (int i = 0; i < peer_recv; i++) {
		struct ndk_sge g = sge_of(b, 4096 * i, bad_send && i == before ? 64 : 4096);
		post_ok(&p, ndk_receive(b->qp, CTX(100 + i), &g, 1), "peer receive");
	}
	for (int i = 0; i < before + 1 + after; i++) {
		struct ndk_sge g = sge_of(a, 4096 * (i % 8), i == before ? bad_len : 3000);
		ndk_status st = i == before && !bad_send ? ndk_write(a->qp, CTX(200 + i), &g, 1,
								     0x10000, 0x00001234u, 0) :
							   ndk_send(a->qp, CTX(200 + i), &g, 1, 0);
		post_ok(&p, st, "request");
	}
	struct seq rq, sq;
	drain(&p, a, nrecv + before + 1 + after, &rq, &sq);
	expect_seq(&sq, 200, before + 1 + after, before,
		   bad_send ? NDK_STATUS_REMOTE_ERROR : NDK_STATUS_ACCESS_VIOLATION, "requests");
	expect_seq(&rq, 100, nrecv, 0, NDK_STATUS_SUCCESS, "receives");
	/* the peer went to error with its NAK: its first `before` receives got their Sends, the
	 * rest complete CANCELLED without a flush (after DATA_OVERRUN for a short receive) */
	drain(&p, b, peer_recv, &rq, &sq);
	expect_seq(&rq, 100, peer_recv, before,
		   bad_send ? NDK_STATUS_DATA_OVERRUN : NDK_STATUS_SUCCESS, "the peer's receives");
	pair_close(&p);
}

Test(flush, an_error_completion_cancels_later_requests_and_all_receives_in_order)
{
	error_case(3, 3000, false);
}

/* The same at every size of the failing request around the packet boundaries (one packet, a
 * full MTU, one byte more, several packets: the NAK then comes while its later packets are still
 * being sent) and with 0, 1 or 3 requests before it. */
Test(flush, error_completions_of_every_size_cancel_in_order)
{
	static const uint32_t write_len[] = { 1, 1024, 1025, 3000, 8000 };
	static const uint32_t send_len[] = { 65, 1024, 1025, 3000, 8000 };
	static const int before[] = { 0, 1, 3 };
	for (size_t b = 0; b < sizeof(before) / sizeof(before[0]); b++)
		for (size_t l = 0; l < sizeof(write_len) / sizeof(write_len[0]); l++) {
			error_case(before[b], write_len[l], false);
			error_case(before[b], send_len[l], true);
		}
}

/* ---------------------------------------------------------------------------------------------
 * DEFER chains of transport requests, on the NIC (the cycle checks of defer::chain_of_*)
 */

enum chain_kind { CHAIN_SEND, CHAIN_WRITE, CHAIN_SEND_INV, CHAIN_MIXED };
enum chain_op { OP_SEND, OP_WRITE, OP_SEND_INV };

/* request i of a chain; a mixed chain rotates Send, Write, SendAndInvalidate */
static enum chain_op chain_op(enum chain_kind kind, int i)
{
	switch (kind) {
	case CHAIN_SEND:
		return OP_SEND;
	case CHAIN_WRITE:
		return OP_WRITE;
	case CHAIN_SEND_INV:
		return OP_SEND_INV;
	default:
		return (enum chain_op)(i % 3);
	}
}

#define CHAIN_MAX 32

/*
 * A chain of n transport requests from side 0, all but the last DEFER: while only deferred ones
 * are posted nothing is rung or fetched (DEFER_SETTLE_CYCLES), no WQE is fetched before the
 * terminating doorbell reaches the NIC, then one doorbell and bursts of at most MaxBurstWqes.
 * Every message arrives whole and in order; each SendAndInvalidate's receive reports the token
 * (a fresh MR of the peer each).
 */
static void transport_chain(enum chain_kind kind, int n)
{
	cr_assert_leq(n, CHAIN_MAX);
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = pair_world(&p, 0); /* side 0 posts on NIC 0: stats_of(&wa) */
	struct region r, inv[CHAIN_MAX];
	side_region(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	for (int i = 0; i < n; i++)
		if (chain_op(kind, i) == OP_SEND_INV)
			side_region(&p, b, &inv[i], 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	fill(a->buf.va, PAIR_BUF_BYTES, (uint32_t)n);
	memset(r.buf.va, 0, 16 * NDK_PAGE_SIZE);
	memset(b->buf.va, 0, PAIR_BUF_BYTES);
	const uint32_t len = 1000;
	for (int i = 0; i < n; i++) {
		struct ndk_sge g = sge_of(b, 1024 * i, 1024);
		post_ok(&p, ndk_receive(b->qp, CTX(100 + i), &g, 1), "receive");
	}
	struct ndk_sim_stats s0 = stats_of(&wa);
	for (int i = 0; i < n; i++) {
		struct ndk_sge g = sge_of(a, 1024 * i, len);
		uint32_t flags = i + 1 < n ? NDK_OP_FLAG_DEFER : 0;
		ndk_status st;
		switch (chain_op(kind, i)) {
		case OP_WRITE:
			st = ndk_write(a->qp, CTX(200 + i), &g, 1,
				       (uint64_t)(uintptr_t)r.buf.va + 1024 * i,
				       ndk_get_remote_token_from_mr(r.mr), flags);
			break;
		case OP_SEND_INV:
			st = ndk_send_and_invalidate(a->qp, CTX(200 + i), &g, 1, flags,
						     ndk_get_remote_token_from_mr(inv[i].mr));
			break;
		default:
			st = ndk_send(a->qp, CTX(200 + i), &g, 1, flags);
			break;
		}
		post_ok(&p, st, "chain request");
		if (i + 2 == n) /* all but the last are posted: nothing moves */
			expect_deferred_idle(&wa, &s0, "deferred transport chain");
	}
	await_doorbell_without_fetch(&wa, &s0);
	int sends = 0;
	for (int i = 0; i < n; i++) {
		enum chain_op op = chain_op(kind, i);
		if (op == OP_WRITE)
			continue;
		struct ndk_result_ex rx;
		poll_side(&p, b, &rx, CPL_CYCLES);
		cr_expect_eq(rx.status, NDK_STATUS_SUCCESS, "receive of request %d: %s", i,
			     ndk_status_name(rx.status));
		cr_expect_eq(rx.request_context, CTX(100 + sends), "receive of request %d", i);
		cr_expect_eq(rx.bytes_transferred, len);
		cr_expect_eq(rx.type,
			     op == OP_SEND_INV ? NDK_OP_RECEIVE_AND_INVALIDATE : NDK_OP_RECEIVE,
			     "receive of request %d: type %u", i, rx.type);
		if (op == OP_SEND_INV)
			cr_expect_eq(rx.type_specific, ndk_get_remote_token_from_mr(inv[i].mr),
				     "the invalidated token of request %d", i);
		sends++;
	}
	for (int i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS,
			   chain_op(kind, i) == OP_WRITE ? NDK_OP_WRITE : NDK_OP_SEND, CTX(200 + i),
			   0);
	expect_one_doorbell_burst_fetch(&wa, &s0, (uint64_t)n, MAX_BURST_WQES, "transport chain");
	/* every message arrived whole, in order */
	int k = 0;
	for (int i = 0; i < n; i++) {
		const uint8_t *dst = chain_op(kind, i) == OP_WRITE ?
					     (uint8_t *)r.buf.va + 1024 * i :
					     (uint8_t *)b->buf.va + 1024 * k++;
		cr_expect(memcmp(dst, (uint8_t *)a->buf.va + 1024 * i, len) == 0, "message %d", i);
	}
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	for (int i = 0; i < n; i++)
		if (chain_op(kind, i) == OP_SEND_INV)
			side_region_free(&p, b, &inv[i]);
	side_region_free(&p, b, &r);
	pair_close(&p);
}

Test(transport_defer, chain_of_7_sends_rings_once_and_fetches_in_one_burst)
{
	transport_chain(CHAIN_SEND, 7);
}

Test(transport_defer, chain_of_24_sends_rings_once_and_fetches_in_bursts)
{
	transport_chain(CHAIN_SEND, 24);
}

Test(transport_defer, chain_of_7_writes_rings_once_and_fetches_in_one_burst)
{
	transport_chain(CHAIN_WRITE, 7);
}

Test(transport_defer, chain_of_24_writes_rings_once_and_fetches_in_bursts)
{
	transport_chain(CHAIN_WRITE, 24);
}

Test(transport_defer, chain_of_7_sends_and_invalidates_rings_once_and_fetches_in_one_burst)
{
	transport_chain(CHAIN_SEND_INV, 7);
}

Test(transport_defer, chain_of_31_sends_writes_and_send_and_invalidates_rings_once)
{
	transport_chain(CHAIN_MIXED, 31);
}

/*
 * The inline failure rule for transport requests on a connected QP: deferred Sends and Writes,
 * then a request that fails inline (a Write with three SGEs: DATA_OVERRUN; a Send with a flag
 * it does not take: INVALID_PARAMETER; a SendAndInvalidate with four SGEs, a Read with three:
 * DATA_OVERRUN). With no further call, the deferred requests' doorbell reaches the NIC, they all
 * complete and are delivered, the failed one never completes, and exactly the deferred WQEs
 * were fetched.
 */
static void inline_failure_case(int failure)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = pair_world(&p, 0);
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	fill(a->buf.va, 8192, 3);
	const int n = 4;
	for (int i = 0; i < n; i++) {
		struct ndk_sge g = sge_of(b, 512 * i, 512);
		post_ok(&p, ndk_receive(b->qp, CTX(100 + i), &g, 1), "receive");
	}
	struct ndk_sim_stats s0 = stats_of(&wa);
	for (int i = 0; i < n; i++) {
		struct ndk_sge g = sge_of(a, 512 * i, 500);
		ndk_status st = i % 2 ? ndk_write(a->qp, CTX(200 + i), &g, 1,
						  (uint64_t)(uintptr_t)r.buf.va + 512 * i,
						  ndk_get_remote_token_from_mr(r.mr),
						  NDK_OP_FLAG_DEFER) :
					ndk_send(a->qp, CTX(200 + i), &g, 1, NDK_OP_FLAG_DEFER);
		post_ok(&p, st, "deferred request");
	}
	expect_deferred_idle(&wa, &s0, "deferred Sends and Writes");
	struct ndk_sge three[3] = { sge_of(a, 0, 8), sge_of(a, 8, 8), sge_of(a, 16, 8) };
	ndk_status st;
	switch (failure) {
	case 0:
		st = ndk_write(a->qp, CTX(300), three, 3, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), NDK_OP_FLAG_DEFER);
		expect_status(&wa, st, NDK_STATUS_DATA_OVERRUN);
		break;
	case 1:
		st = ndk_send(a->qp, CTX(300), three, 1,
			      NDK_OP_FLAG_DEFER | NDK_OP_FLAG_ALLOW_REMOTE_READ);
		expect_status(&wa, st, NDK_STATUS_INVALID_PARAMETER);
		break;
	case 2: {
		struct ndk_sge four[4] = { three[0], three[1], three[2], sge_of(a, 24, 8) };
		st = ndk_send_and_invalidate(a->qp, CTX(300), four, 4, NDK_OP_FLAG_DEFER,
					     ndk_get_remote_token_from_mr(r.mr));
		expect_status(&wa, st, NDK_STATUS_DATA_OVERRUN);
		break;
	}
	default: /* the SGE count is checked before whether the core has Reads */
		st = ndk_read(a->qp, CTX(300), three, 3, (uint64_t)(uintptr_t)r.buf.va,
			      ndk_get_remote_token_from_mr(r.mr), NDK_OP_FLAG_DEFER);
		expect_status(&wa, st, NDK_STATUS_DATA_OVERRUN);
		break;
	}
	/* no further driver call: the clock alone brings the doorbell, no fetch before it */
	await_doorbell_without_fetch(&wa, &s0);
	for (int i = 0; i < n; i += 2)
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(100 + i / 2), 500);
	for (int i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, i % 2 ? NDK_OP_WRITE : NDK_OP_SEND,
			   CTX(200 + i), 0);
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_one_doorbell_burst_fetch(&wa, &s0, (uint64_t)n, MAX_BURST_WQES,
					"chain ended by an inline failure");
	side_region_free(&p, b, &r);
	pair_close(&p);
}

Test(transport_defer, write_failing_inline_indicates_the_deferred_sends_and_writes)
{
	inline_failure_case(0);
}

Test(transport_defer, send_failing_inline_indicates_the_deferred_sends_and_writes)
{
	inline_failure_case(1);
}

Test(transport_defer, send_and_invalidate_failing_inline_indicates_the_deferred_chain)
{
	inline_failure_case(2);
}

Test(transport_defer, read_failing_inline_indicates_the_deferred_chain)
{
	inline_failure_case(3);
}

/* ---------------------------------------------------------------------------------------------
 * Bad input on one connection while another connection between the same hosts runs traffic
 */

/* A second connection between the two sides: its own CQs and QPs, traffic both ways. */
struct bystander {
	struct ndk_cq *cq[2];
	struct ndk_qp *qp[2];
	struct region r[2]; /* each side's remote-writable region */
};

#define BY_MSGS	   6
#define BY_LEN	   3000
#define BY_RECV_AT 16384 /* the bystander's receives; its sources are the buffer's upper half */

static void bystander_open(struct pair *p, struct bystander *by)
{
	for (int i = 0; i < 2; i++) {
		struct side *s = &p->s[i];
		cr_assert_eq(ndk_create_cq(s->ad, 64, NULL, NULL, &by->cq[i]), NDK_STATUS_SUCCESS);
		struct ndk_qp_attr a = {
			.receive_cq = by->cq[i],
			.initiator_cq = by->cq[i],
			.qp_context = QP_CONTEXT,
			.receive_queue_depth = 16,
			.initiator_queue_depth = 16,
			.max_receive_request_sge = 1,
			.max_initiator_request_sge = 1,
		};
		cr_assert_eq(ndk_create_qp(s->pd, &a, &by->qp[i]), NDK_STATUS_SUCCESS);
		side_region(p, s, &by->r[i], 8, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
		memset(by->r[i].buf.va, 0, 8 * NDK_PAGE_SIZE);
	}
	qps_connect(by->qp[0], by->qp[1]);
}

/* Each side sends BY_MSGS alternating Sends and Writes to the other, from the upper half of its
 * buffer (Sends land at BY_RECV_AT in the peer's buffer, Writes in the peer's region). */
static void bystander_start(struct pair *p, struct bystander *by)
{
	for (int i = 0; i < 2; i++) {
		struct side *s = &p->s[i];
		fill((uint8_t *)s->buf.va + PAIR_BUF_BYTES / 2, PAIR_BUF_BYTES / 2, 77 + i);
		for (int m = 0; m < BY_MSGS; m += 2) {
			struct ndk_sge g = sge_of(s, BY_RECV_AT + 4096 * (m / 2), 4096);
			post_ok(p, ndk_receive(by->qp[i], CTX(400 + m), &g, 1),
				"bystander receive");
		}
	}
	for (int i = 0; i < 2; i++) {
		struct side *s = &p->s[i];
		struct region *peer = &by->r[1 - i];
		for (int m = 0; m < BY_MSGS; m++) {
			struct ndk_sge g = sge_of(s, PAIR_BUF_BYTES / 2 + 4096 * m, BY_LEN);
			ndk_status st =
				m % 2 ? ndk_write(by->qp[i], CTX(500 + m), &g, 1,
						  (uint64_t)(uintptr_t)peer->buf.va + 4096 * m,
						  ndk_get_remote_token_from_mr(peer->mr), 0) :
					ndk_send(by->qp[i], CTX(500 + m), &g, 1, 0);
			post_ok(p, st, "bystander request");
		}
	}
}

/* every bystander completion in order, every byte where it belongs */
static void bystander_check_close(struct pair *p, struct bystander *by)
{
	for (int i = 0; i < 2; i++) {
		int next_recv = 0, next_req = 0;
		for (int k = 0; k < BY_MSGS + BY_MSGS / 2; k++) {
			struct ndk_result_ex r;
			poll_cq(p, by->cq[i], &r, CPL_CYCLES);
			cr_expect_eq(r.status, NDK_STATUS_SUCCESS, "bystander side %d: %p %s", i,
				     r.request_context, ndk_status_name(r.status));
			if (r.type == NDK_OP_RECEIVE) {
				cr_expect_eq(r.request_context, CTX(400 + 2 * next_recv),
					     "bystander receive order");
				cr_expect_eq(r.bytes_transferred, BY_LEN);
				next_recv++;
			} else {
				cr_expect_eq(r.request_context, CTX(500 + next_req),
					     "bystander request order");
				cr_expect_eq(r.type, next_req % 2 ? NDK_OP_WRITE : NDK_OP_SEND);
				next_req++;
			}
		}
		expect_no_cpl(p, by->cq[i], QUIET_CYCLES);
	}
	for (int i = 0; i < 2; i++) {
		struct side *s = &p->s[i], *peer = &p->s[1 - i];
		for (int m = 0; m < BY_MSGS; m++) {
			const uint8_t *src = (uint8_t *)s->buf.va + PAIR_BUF_BYTES / 2 + 4096 * m;
			/* a Send m lands in the peer's receive m / 2 */
			const uint8_t *dst =
				m % 2 ? (uint8_t *)by->r[1 - i].buf.va + 4096 * m :
					(uint8_t *)peer->buf.va + BY_RECV_AT + 4096 * (m / 2);
			cr_expect(memcmp(src, dst, BY_LEN) == 0, "bystander side %d message %d", i,
				  m);
		}
	}
	for (int i = 0; i < 2; i++) {
		ndk_close_qp(by->qp[i]);
		side_region_free(p, &p->s[i], &by->r[i]);
		ndk_close_cq(by->cq[i]);
	}
}

enum bad_kind { BAD_TOKEN, BAD_RANGE, BAD_RIGHT, BAD_RECV_SMALL, BAD_UNCONNECTED };

/*
 * One bad input on the main connection (side 0 -> side 1) while the bystander connection moves
 * data both ways. The bad request completes with its documented status, the next request of
 * that QP CANCELLED, the peer's posted receive as the NAK table says; the bystander loses
 * nothing.
 */
static void bad_case(enum bad_kind kind)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct bystander by;
	bystander_open(&p, &by);
	struct region r;
	/* BAD_RIGHT: remote access, but only remote read */
	side_region(&p, b, &r, 1,
		    kind == BAD_RIGHT ? NDK_OP_FLAG_ALLOW_REMOTE_READ :
					NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint64_t rva = (uint64_t)(uintptr_t)r.buf.va;
	uint32_t rtok = ndk_get_remote_token_from_mr(r.mr);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);
	fill(a->buf.va, 8192, 1);
	struct ndk_sge rcv = sge_of(b, 0, 64);
	post_ok(&p, ndk_receive(b->qp, CTX(1), &rcv, 1), "receive");

	bystander_start(&p, &by);
	struct ndk_sge g = sge_of(a, 0, 2500);
	ndk_status want = NDK_STATUS_ACCESS_VIOLATION;
	uint32_t type = NDK_OP_WRITE;
	ndk_status peer_recv = NDK_STATUS_CANCELLED;
	switch (kind) {
	case BAD_TOKEN:
		post_ok(&p, ndk_write(a->qp, CTX(2), &g, 1, rva, rtok ^ 0x100u, 0), "write");
		break;
	case BAD_RANGE: /* 2500 bytes from 2000 bytes into a one-page region */
		post_ok(&p, ndk_write(a->qp, CTX(2), &g, 1, rva + 2000, rtok, 0), "write");
		break;
	case BAD_RIGHT:
		post_ok(&p, ndk_write(a->qp, CTX(2), &g, 1, rva, rtok, 0), "write");
		break;
	case BAD_RECV_SMALL:
		g.length = 65;
		post_ok(&p, ndk_send(a->qp, CTX(2), &g, 1, 0), "send");
		want = NDK_STATUS_REMOTE_ERROR;
		type = NDK_OP_SEND;
		peer_recv = NDK_STATUS_DATA_OVERRUN;
		break;
	case BAD_UNCONNECTED: {
		struct ndk_qp *lone;
		struct ndk_qp_attr at = { .receive_cq = a->cq,
					  .initiator_cq = a->cq,
					  .qp_context = QP_CONTEXT,
					  .receive_queue_depth = 4,
					  .initiator_queue_depth = 4,
					  .max_receive_request_sge = 1,
					  .max_initiator_request_sge = 1 };
		cr_assert_eq(ndk_create_qp(a->pd, &at, &lone), NDK_STATUS_SUCCESS);
		struct world wa = pair_world(&p, 0);
		expect_status(&wa, ndk_send(lone, CTX(2), &g, 1, 0), NDK_STATUS_CONNECTION_INVALID);
		expect_status(&wa, ndk_write(lone, CTX(3), &g, 1, rva, rtok, 0),
			      NDK_STATUS_CONNECTION_INVALID);
		expect_status(&wa, ndk_send(lone, CTX(4), &g, 1, NDK_OP_FLAG_DEFER),
			      NDK_STATUS_CONNECTION_INVALID);
		/* the main connection still works meanwhile */
		g.length = 64;
		post_ok(&p, ndk_send(a->qp, CTX(5), &g, 1, 0), "send");
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 64);
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(5), 0);
		bystander_check_close(&p, &by);
		expect_no_cpl(&p, a->cq, QUIET_CYCLES);
		ndk_close_qp(lone);
		side_region_free(&p, b, &r);
		pair_close(&p);
		return;
	}
	}
	post_ok(&p, ndk_send(a->qp, CTX(3), &g, 1, 0), "the request after it");
	expect_cpl(&p, a, want, type, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	expect_cpl(&p, b, peer_recv, NDK_OP_RECEIVE, CTX(1), 0);
	/* nothing of a refused Write reached the region */
	for (uint32_t i = 0; i < NDK_PAGE_SIZE; i++)
		if (((uint8_t *)r.buf.va)[i] != 0x5A)
			cr_assert_fail("byte %u of the region was written by a refused request", i);
	bystander_check_close(&p, &by);
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_no_cpl(&p, b->cq, QUIET_CYCLES);
	side_region_free(&p, b, &r);
	pair_close(&p);
}

Test(bad_input, write_with_a_wrong_remote_token_while_another_connection_runs)
{
	bad_case(BAD_TOKEN);
}

Test(bad_input, write_beyond_the_remote_region_while_another_connection_runs)
{
	bad_case(BAD_RANGE);
}

Test(bad_input, write_without_the_remote_write_right_while_another_connection_runs)
{
	bad_case(BAD_RIGHT);
}

Test(bad_input, send_longer_than_the_receive_while_another_connection_runs)
{
	bad_case(BAD_RECV_SMALL);
}

Test(bad_input, posts_on_an_unconnected_qp_while_other_connections_run)
{
	bad_case(BAD_UNCONNECTED);
}

/* ---------------------------------------------------------------------------------------------
 * RNR retries: a Send that finds no receive posted is NAKed RNR (timer code 1: 10 us); the
 * requester sends it and every later outstanding request of the QP again after the timer, at
 * most rnr_retry times (7: for ever), then the Send fails IO_TIMEOUT and the QP goes to error.
 */
#define RNR_WAIT_NS  10000 /* timer code 1 */
#define RNR_WAIT_CYC 2500  /* ... at the default 250 MHz */
#define RNR_RTT_CYC \
	2000 /* a bound on a retry's round trip with the other connection busy (measured ~1400 at width 64) */

/* What a capture shows of one connection's requests and of the RNR NAKs answering them. */
struct rnr_trace {
	unsigned rnr_naks;	      /* ACKNOWLEDGE frames with an RNR syndrome (001x xxxx) */
	unsigned rnr_code_1;	      /* ... carrying timer code 1 */
	unsigned sends_of_psn;	      /* SEND_FIRST / SEND_ONLY frames with PSN `psn` */
	uint64_t min_gap_ns;	      /* shortest time from an RNR NAK to the next of those */
	unsigned writes_before_first; /* Write packets before the first retransmission that got in */
};

/* Read the capture at path (the world destroyed): frames to QPN `dqpn` (the requests) and from
 * it (`sqpn_peer`: the responder's answers go to the requester's QPN). */
static void rnr_trace_read(const char *path, uint32_t req_dqpn, uint32_t rsp_dqpn, uint32_t psn,
			   struct rnr_trace *t)
{
	struct pcap_capture cap;
	char err[256];
	memset(t, 0, sizeof(*t));
	t->min_gap_ns = UINT64_MAX;
	cr_assert_eq(pcap_read(path, &cap, err, sizeof(err)), 0, "%s", err);
	uint64_t last_nak = 0;
	bool nak_seen = false;
	for (size_t i = 0; i < cap.count; i++) {
		struct roce_ref_fields f;
		const struct pcap_record *rec = &cap.records[i];
		if (roce_ref_parse(rec->bytes, rec->len, &f) != ROCE_REF_OK)
			continue;
		if (f.dest_qp == rsp_dqpn && f.opcode == 0x11 && (f.aeth_syndrome & 0xE0) == 0x20) {
			t->rnr_naks++;
			t->rnr_code_1 += (f.aeth_syndrome & 0x1F) == 1;
			last_nak = rec->ts_ns;
			nak_seen = true;
		}
		if (f.dest_qp == req_dqpn && f.psn == psn &&
		    (f.opcode == 0x00 || f.opcode == 0x04)) {
			t->sends_of_psn++;
			if (nak_seen && rec->ts_ns - last_nak < t->min_gap_ns)
				t->min_gap_ns = rec->ts_ns - last_nak;
			nak_seen = false;
		}
	}
	pcap_free(&cap);
}

/* attr: NULL connects with ndk_connect_qp */
static void rnr_pair_open_attr(struct pair *p, char *path, const struct ndk_connect_attr *attr)
{
	int fd = mkstemps(path, 5);
	cr_assert_geq(fd, 0);
	close(fd);
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	c.pcap_path = path;
	cr_assert_eq(c.clock_mhz, 250, "the cycle windows below assume 250 MHz");
	struct pair_opts o = { .attr = attr };
	pair_open_opts(p, &c, &o);
}

static void rnr_pair_open(struct pair *p, char *path)
{
	rnr_pair_open_attr(p, path, NULL);
}

static uint32_t wire_qpn(struct ndk_qp *qp)
{
	struct ndk_qp_address a;
	cr_assert_eq(ndk_get_qp_address(qp, &a), NDK_STATUS_SUCCESS);
	return a.qp_number;
}

/*
 * A Send (3 packets) posted before its receive, then a Write, a Read of what the Write wrote and
 * an INLINE Send of the same QP (all replayed from their WQEs re-read from the ring); a fifth
 * request is posted while the retries run. The receives come 30 us after the first Send, so the
 * Send is retried (each retry at least 10 us after its RNR NAK, the NAK carrying code 1) until
 * one finds them: it completes SUCCESS with its data intact, each receive completes exactly once,
 * and the Write and the later Sends arrive after it, in order (the Write's region stays
 * untouched until the first receive has completed).
 */
Test(rnr, a_send_before_its_receive_is_retried_and_later_requests_follow_in_order)
{
	char path[] = "/tmp/ndknic-rnr-XXXXXX.pcap";
	struct pair p;
	rnr_pair_open(&p, path);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 32768, 5);
	memset(dst, 0xEE, 32768);
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	uint64_t t0 = ndk_sim_cycle(p.sim);

	struct ndk_sge s1 = sge_of(a, 0, 2500), w = sge_of(a, 4096, 3000),
		       s3 = sge_of(a, 12288, 100);
	/* INLINE: the library copies from a CPU pointer */
	struct ndk_sge s2 = { .address = (uint64_t)(uintptr_t)(src + 8192), .length = 40 };
	post_ok(&p, ndk_send(a->qp, CTX(10), &s1, 1, 0), "send 1");
	post_ok(&p,
		ndk_write(a->qp, CTX(11), &w, 1, (uint64_t)(uintptr_t)r.buf.va,
			  ndk_get_remote_token_from_mr(r.mr), 0),
		"write");
	/* a Read of part of what the Write wrote, into two sink SGEs: replayed too, its read
	 * context unchanged, so it brings the written bytes */
	struct ndk_sge rd[2] = { sge_of(a, 20480, 700), sge_of(a, 24576, 1300) };
	memset(src + 20480, 0xEE, 8192);
	post_ok(&p,
		ndk_read(a->qp, CTX(14), rd, 2, (uint64_t)(uintptr_t)r.buf.va + 1000,
			 ndk_get_remote_token_from_mr(r.mr), 0),
		"read");
	post_ok(&p, ndk_send(a->qp, CTX(12), &s2, 1, NDK_OP_FLAG_INLINE), "send 2 (inline)");
	expect_no_cpl(&p, a->cq, 2 * RNR_WAIT_CYC); /* retries run, nothing completes */
	post_ok(&p, ndk_send(a->qp, CTX(13), &s3, 1, 0), "send 3, while the retries run");
	expect_no_cpl(&p, a->cq, RNR_WAIT_CYC);
	cr_expect_eq(((uint8_t *)r.buf.va)[0], 0x5A, "the Write went ahead of the retried Send");

	struct ndk_sge r1 = sge_of(b, 0, 4096), r2 = sge_of(b, 8192, 4096),
		       r3 = sge_of(b, 16384, 4096);
	post_ok(&p, ndk_receive(b->qp, CTX(1), &r1, 1), "receive 1");
	post_ok(&p, ndk_receive(b->qp, CTX(2), &r2, 1), "receive 2");
	post_ok(&p, ndk_receive(b->qp, CTX(3), &r3, 1), "receive 3");
	/* until the first receive completes, the Write (behind it in PSN order) has not landed */
	struct ndk_result_ex res;
	uint64_t deadline = ndk_sim_cycle(p.sim) + CPL_CYCLES;
	while (ndk_get_cq_results_ex(b->cq, &res, 1) == 0) {
		const uint8_t *rv = r.buf.va;
		if (rv[0] != 0x5A || rv[2999] != 0x5A)
			cr_assert_fail("cycle %" PRIu64
				       ": the Write landed before the retried Send",
				       ndk_sim_cycle(p.sim));
		if (ndk_sim_cycle(p.sim) > deadline)
			cr_assert_fail("cycle %" PRIu64 ": the retried Send never arrived",
				       ndk_sim_cycle(p.sim));
		ndk_sim_step(p.sim, 1);
	}
	cr_expect_eq(res.status, NDK_STATUS_SUCCESS, "receive 1: %s", ndk_status_name(res.status));
	cr_expect_eq(res.request_context, CTX(1), "the first receive completes first");
	cr_expect_eq(res.bytes_transferred, 2500);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 40);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(3), 100);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(14), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(12), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(13), 0);
	uint64_t t1 = ndk_sim_cycle(p.sim);
	cr_expect(memcmp(src, dst, 2500) == 0, "send 1's bytes differ");
	cr_expect_eq(dst[2500], 0xEE, "a byte past send 1 was written");
	cr_expect(memcmp(src + 8192, dst + 8192, 40) == 0, "send 2's (inline) bytes differ");
	cr_expect(memcmp(src + 12288, dst + 16384, 100) == 0, "send 3's bytes differ");
	cr_expect(memcmp(src + 4096, r.buf.va, 3000) == 0, "the Write's bytes differ");
	cr_expect(memcmp(src + 20480, src + 4096 + 1000, 700) == 0, "the Read's first sink");
	cr_expect(memcmp(src + 24576, src + 4096 + 1700, 1300) == 0, "the Read's second sink");
	cr_expect_eq(src[20480 + 700], 0xEE, "a byte past the Read's first sink was written");
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_no_cpl(&p, b->cq, QUIET_CYCLES);
	cr_log_info("RNR: Send retried until its receive came: %" PRIu64 " cycles post to done",
		    t1 - t0);
	side_region_free(&p, b, &r);
	pair_close(&p);

	struct roce_pcap_check chk;
	cr_assert_eq(roce_pcap_check(path, true, &chk), 0, "%s", chk.log);
	roce_pcap_check_free(&chk);
	struct rnr_trace t;
	rnr_trace_read(path, b_qpn, a_qpn, 0, &t);
	/* receives posted after 30 us: NAKs at ~0, ~10, ~20 us, one more may race them */
	cr_expect(t.rnr_naks >= 2 && t.rnr_naks <= 4, "%u RNR NAKs", t.rnr_naks);
	cr_expect_eq(t.rnr_code_1, t.rnr_naks, "every RNR NAK carries timer code 1");
	cr_expect_eq(t.sends_of_psn, t.rnr_naks + 1, "the Send went out once and once per NAK");
	cr_expect_geq(t.min_gap_ns, RNR_WAIT_NS, "a retry came %" PRIu64 " ns after its NAK",
		      t.min_gap_ns);
	cr_log_info("RNR: %u NAKs, %u transmissions of the Send", t.rnr_naks, t.sends_of_psn);
	unlink(path);
}

/*
 * A Send that never finds a receive, with a Write and a Send behind it, while another connection
 * runs traffic both ways, on a connection made with rnr_retry (0..6) and start PSN `psn`: the
 * Send goes out 1 + rnr_retry times, each retry after its NAK's 10 us, then completes
 * IO_TIMEOUT; the Write and the Send behind it complete CANCELLED, in order; the other connection
 * loses nothing.
 */
static void rnr_retries_run_out(unsigned rnr_retry, uint32_t psn)
{
	char path[] = "/tmp/ndknic-rnr-XXXXXX.pcap";
	struct pair p;
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr);
	attr.inbound_read_limit = attr.outbound_read_limit = 0;
	attr.local_psn = psn;
	attr.remote_psn = 0xFFFFF0;
	attr.rnr_retry = (uint8_t)rnr_retry;
	rnr_pair_open_attr(&p, path, &attr);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct bystander by;
	bystander_open(&p, &by);
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	bystander_start(&p, &by);
	uint64_t t0 = ndk_sim_cycle(p.sim);
	struct ndk_sge s1 = sge_of(a, 0, 64), w = sge_of(a, 4096, 2000);
	post_ok(&p, ndk_send(a->qp, CTX(10), &s1, 1, 0), "send");
	post_ok(&p,
		ndk_write(a->qp, CTX(11), &w, 1, (uint64_t)(uintptr_t)r.buf.va,
			  ndk_get_remote_token_from_mr(r.mr), 0),
		"write");
	post_ok(&p, ndk_send(a->qp, CTX(12), &s1, 1, 0), "send behind");
	struct ndk_result_ex res;
	poll_cq(&p, a->cq, &res, CPL_CYCLES);
	uint64_t took = ndk_sim_cycle(p.sim) - t0;
	cr_expect_eq(res.status, NDK_STATUS_IO_TIMEOUT, "status %s", ndk_status_name(res.status));
	cr_expect_eq(res.request_context, CTX(10));
	cr_expect_eq(res.type, NDK_OP_SEND);
	/* rnr_retry waits of 10..11 us (the timer counts whole microsecond ticks), plus
	 * rnr_retry + 1 round trips and the first post's WQE fetch beside the other connection's
	 * traffic (measured ~3200 cycles to the first NAK's IO_TIMEOUT at width 64) */
	cr_expect_geq(took, rnr_retry * RNR_WAIT_CYC, "IO_TIMEOUT after %" PRIu64 " cycles", took);
	cr_expect_leq(took, rnr_retry * (RNR_WAIT_CYC + 250) + (rnr_retry + 2) * RNR_RTT_CYC,
		      "IO_TIMEOUT after %" PRIu64 " cycles", took);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(12), 0);
	cr_log_info("RNR: rnr_retry %u, IO_TIMEOUT %" PRIu64 " cycles after the post", rnr_retry,
		    took);
	bystander_check_close(&p, &by);
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_no_cpl(&p, b->cq, QUIET_CYCLES);
	for (uint32_t i = 0; i < NDK_PAGE_SIZE; i++)
		if (((uint8_t *)r.buf.va)[i] != 0x5A)
			cr_assert_fail("byte %u of the region was written by a cancelled Write", i);
	side_region_free(&p, b, &r);
	pair_close(&p);

	struct rnr_trace t;
	rnr_trace_read(path, b_qpn, a_qpn, psn, &t);
	cr_expect_eq(t.rnr_naks, rnr_retry + 1, "%u RNR NAKs", t.rnr_naks);
	cr_expect_eq(t.sends_of_psn, rnr_retry + 1, "%u transmissions of the Send", t.sends_of_psn);
	cr_expect_geq(t.min_gap_ns, RNR_WAIT_NS, "a retry came %" PRIu64 " ns after its NAK",
		      t.min_gap_ns);
	unlink(path);
}

/* the Write's two PSNs and the Send behind cross the 24-bit wrap */
Test(rnr, a_send_that_never_finds_a_receive_fails_io_timeout_after_six_retries)
{
	rnr_retries_run_out(6, 0xFFFFFD);
}

Test(rnr, rnr_retry_0_fails_the_send_at_its_first_rnr_nak)
{
	rnr_retries_run_out(0, 0xFFFFFF);
}

Test(rnr, rnr_retry_3_fails_the_send_after_three_retries)
{
	rnr_retries_run_out(3, 0x000010);
}

/*
 * rnr_retry 7 retries for ever (IBA): a Send whose receive comes 150 us late (about 11 RNR NAKs,
 * more than any finite rnr_retry allows) completes SUCCESS with its bytes, once.
 */
Test(rnr, rnr_retry_7_retries_for_ever)
{
	char path[] = "/tmp/ndknic-rnr-XXXXXX.pcap";
	struct pair p;
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr); /* rnr_retry 7 */
	attr.local_psn = 0xFFFFFF;
	attr.remote_psn = 0x123456;
	rnr_pair_open_attr(&p, path, &attr);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 4096, 9);
	memset(dst, 0xEE, 4096);
	struct ndk_sge s1 = sge_of(a, 0, 1500), r1 = sge_of(b, 0, 4096);
	post_ok(&p, ndk_send(a->qp, CTX(10), &s1, 1, 0), "send");
	expect_no_cpl(&p, a->cq, 15 * RNR_WAIT_CYC);
	post_ok(&p, ndk_receive(b->qp, CTX(1), &r1, 1), "receive");
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 1500);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(10), 0);
	cr_expect(memcmp(src, dst, 1500) == 0, "the Send's bytes differ");
	cr_expect_eq(dst[1500], 0xEE, "a byte past the Send was written");
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_no_cpl(&p, b->cq, QUIET_CYCLES);
	pair_close(&p);

	struct rnr_trace t;
	rnr_trace_read(path, b_qpn, a_qpn, 0xFFFFFF, &t);
	/* more than the 7 NAKs after which the largest finite rnr_retry (6) fails the Send */
	cr_expect_geq(t.rnr_naks, 9, "%u RNR NAKs", t.rnr_naks);
	cr_expect_eq(t.sends_of_psn, t.rnr_naks + 1, "the Send went out once and once per NAK");
	cr_expect_geq(t.min_gap_ns, RNR_WAIT_NS, "a retry came %" PRIu64 " ns after its NAK",
		      t.min_gap_ns);
	cr_log_info("RNR: rnr_retry 7, %u NAKs, %u transmissions", t.rnr_naks, t.sends_of_psn);
	unlink(path);
}

/*
 * A QP retrying RNR for ever does not hold up the NIC's other QPs. Side 0 posts 20 Sends to a
 * peer that has posted no receive (rnr_retry 7): the first one draws RNR NAKs, and the later ones
 * reach the intake while the QP waits for its RNR timer, where they are deferred (set aside by
 * ring index) rather than held in front of the intake. With `bind`, a Bind of a memory window
 * sits between Sends 9 and 10: it must complete after the Sends before it, so it waits for them;
 * the dispatcher gives it back to the fetch rather than hold every other QP's WQEs behind it. A
 * second connection's Sends and Writes, both ways, complete meanwhile (once a waiting QP's WQE
 * stayed in front of the intake, or of the dispatcher, for ever, and no other QP of the NIC got
 * a request out). When the receives come, everything of side 0 completes SUCCESS in order, each
 * receive once with its Send's bytes.
 */
static void rnr_for_ever_beside_another_connection(bool bind)
{
	enum { SENDS = 20, LEN = 200, BIND_AFTER = 9 };
	char path[] = "/tmp/ndknic-rnr-XXXXXX.pcap";
	struct pair p;
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr); /* rnr_retry 7 */
	attr.local_psn = 0xFFFFF8;	 /* the Sends cross the 24-bit wrap */
	attr.remote_psn = 0x000100;
	rnr_pair_open_attr(&p, path, &attr);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct bystander by;
	bystander_open(&p, &by);
	struct region r;
	struct ndk_mw *mw = NULL;
	if (bind) {
		side_region(&p, a, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
		cr_assert_eq(ndk_create_mw(a->pd, &mw), NDK_STATUS_SUCCESS);
	}
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, SENDS * 256, 31);
	memset(dst, 0xEE, SENDS * 256);
	for (int k = 0; k < SENDS; k++) {
		struct ndk_sge s = sge_of(a, 256 * k, LEN);
		post_ok(&p, ndk_send(a->qp, CTX(100 + k), &s, 1, 0), "send");
		if (bind && k == BIND_AFTER)
			post_ok(&p,
				ndk_bind(a->qp, CTX(99), r.mr, mw, (uint64_t)(uintptr_t)r.buf.va,
					 1024, NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
				"bind");
	}
	/* the first RNR NAK is back and the later requests have reached the NIC */
	expect_no_cpl(&p, a->cq, 2 * RNR_WAIT_CYC);
	bystander_start(&p, &by);
	bystander_check_close(&p, &by);
	expect_no_cpl(&p, a->cq, RNR_WAIT_CYC);
	for (int k = 0; k < SENDS; k++) {
		struct ndk_sge rs = sge_of(b, 256 * k, 256);
		post_ok(&p, ndk_receive(b->qp, CTX(200 + k), &rs, 1), "receive");
	}
	for (int k = 0; k < SENDS; k++)
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(200 + k), LEN);
	for (int k = 0; k < SENDS; k++) {
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(100 + k), 0);
		if (bind && k == BIND_AFTER)
			expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(99), 0);
	}
	for (int k = 0; k < SENDS; k++) {
		cr_expect(memcmp(src + 256 * k, dst + 256 * k, LEN) == 0, "Send %d's bytes differ",
			  k);
		cr_expect_eq(dst[256 * k + LEN], 0xEE, "a byte past Send %d was written", k);
	}
	expect_no_cpl(&p, a->cq, QUIET_CYCLES);
	expect_no_cpl(&p, b->cq, QUIET_CYCLES);
	struct ndk_port_counters pc;
	cr_assert_eq(ndk_query_port_counters(a->ad, &pc), NDK_STATUS_SUCCESS);
	/* the Sends were retried all along while the other connection ran */
	cr_expect_geq(pc.rnr_naks_received, 4, "%" PRIu64 " RNR NAKs", pc.rnr_naks_received);
	cr_log_info("RNR for ever beside a second connection%s: %" PRIu64 " RNR NAKs received",
		    bind ? " (a Bind among the Sends)" : "", pc.rnr_naks_received);
	if (bind) {
		ndk_close_mw(mw);
		side_region_free(&p, a, &r);
	}
	pair_close(&p);
	unlink(path);
}

Test(rnr, a_qp_retrying_rnr_for_ever_does_not_stop_the_other_qps)
{
	rnr_for_ever_beside_another_connection(false);
}

Test(rnr, a_local_wqe_behind_an_rnr_episode_does_not_stop_the_other_qps)
{
	rnr_for_ever_beside_another_connection(true);
}

/*
 * The requester waits the time an RNR NAK's timer code names (IBA table 45, AETH bits 4..0), not
 * only the 10 us of code 1 that ndknic's own responder sends: a peer's RNR NAKs are replaced by
 * injected ones carrying codes 1 to 12 (10 us to 640 us), one per transmission of a Send that
 * finds no receive. The time from a NAK's arrival to the Send's next transmission is the code's
 * wait plus a fixed latency (the replay's WQE fetch and the frame's way out), measured with code
 * 1: each code's gap exceeds code 1's by its wait minus 10 us, within the microsecond tick.
 * Then the receive is posted: the Send completes SUCCESS with its bytes intact.
 */
static const uint32_t rnr_code_us[13] = { 655360, 10,  20,  30,	 40,  60, 80,
					  120,	  160, 240, 320, 480, 640 };

static struct rnr_codes {
	uint32_t a_qpn, b_qpn;
	unsigned pass;	       /* injected RNR NAKs to deliver */
	unsigned dropped;      /* the responder's own RNR NAKs dropped */
	unsigned sends;	       /* A's transmissions of the Send */
	uint32_t psn;	       /* their PSN */
	uint64_t send_cycle;   /* the latest left A's port */
	uint64_t nak_rx_cycle; /* the latest RNR NAK A's port accepted */
} g_rc;

static bool rnr_nak_of(const uint8_t *f, size_t len)
{
	struct roce_ref_fields r;
	return roce_ref_parse(f, len, &r) == ROCE_REF_OK && r.opcode == 0x11 &&
	       (r.aeth_syndrome & 0xE0) == 0x20 && r.dest_qp == g_rc.a_qpn;
}

static enum ndk_sim_fault rc_fault(void *arg, unsigned from, unsigned to, const uint8_t *f,
				   size_t len)
{
	(void)arg;
	if (from == 1 && to == 0 && rnr_nak_of(f, len)) {
		if (g_rc.pass) {
			g_rc.pass--;
			return NDK_SIM_FRAME_DELIVER;
		}
		g_rc.dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	return NDK_SIM_FRAME_DELIVER;
}

static void rc_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
		     const uint8_t *f, size_t len)
{
	struct roce_ref_fields r;
	(void)ctx;
	if (nic != 0 || roce_ref_parse(f, len, &r) != ROCE_REF_OK)
		return;
	if (ev == NICSIM_FRAME_SENT && r.opcode == 0x04 && r.dest_qp == g_rc.b_qpn) {
		g_rc.sends++;
		g_rc.psn = r.psn;
		g_rc.send_cycle = cycle;
	}
	if (ev == NICSIM_FRAME_RECEIVED && rnr_nak_of(f, len))
		g_rc.nak_rx_cycle = cycle;
}

/* step until A has sent the Send `sends` times and `dropped` of B's RNR NAKs were dropped */
static void rc_await(struct pair *p, unsigned sends, unsigned dropped, uint64_t max)
{
	uint64_t end = ndk_sim_cycle(p->sim) + max;
	while (g_rc.sends < sends || g_rc.dropped < dropped) {
		if (ndk_sim_cycle(p->sim) > end)
			cr_assert_fail("cycle %" PRIu64 ": %u transmissions, %u NAKs dropped; want "
				       "%u, %u",
				       ndk_sim_cycle(p->sim), g_rc.sends, g_rc.dropped, sends,
				       dropped);
		ndk_sim_step(p->sim, 1);
	}
	cr_assert_eq(g_rc.sends, sends, "transmissions of the Send");
}

static void rc_inject_nak(struct pair *p, unsigned code)
{
	struct roce_ref_fields f;
	uint8_t buf[ROCE_REF_MAX_FRAME(0)];
	roce_ref_init(&f, 1, g_rc.b_qpn, 0);
	f.opcode = 0x11; /* ACKNOWLEDGE */
	f.dest_qp = g_rc.a_qpn;
	f.psn = g_rc.psn;
	f.aeth_syndrome = (uint8_t)(0x20 | code);
	f.aeth_msn = 0;
	size_t len = roce_ref_build(&f, buf, sizeof(buf));
	cr_assert_gt(len, 0);
	g_rc.pass = 1;
	cr_assert_eq(nicsim_port_inject(p->sim->world, 1, buf, len), 0);
}

Test(rnr, the_requester_waits_the_time_each_rnr_nak_timer_code_names)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	cr_assert_eq(c.clock_mhz, 250, "the cycle windows below assume 250 MHz");
	const uint64_t us = 250; /* cycles */
	struct pair p;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	memset(&g_rc, 0, sizeof(g_rc));
	g_rc.a_qpn = wire_qpn(a->qp);
	g_rc.b_qpn = wire_qpn(b->qp);
	ndk_sim_set_fault_hook(p.sim, rc_fault, NULL);
	nicsim_set_frame_handler(p.sim->world, rc_frame, NULL);
	fill(a->buf.va, 64, 12);
	memset(b->buf.va, 0xEE, 128);
	struct ndk_sge s = sge_of(a, 0, 64);
	post_ok(&p, ndk_send(a->qp, CTX(1), &s, 1, 0), "send");
	uint64_t gap[13] = { 0 };
	for (unsigned code = 1; code <= 12; code++) {
		/* transmission `code` was NAKed by B (dropped): NAK it with `code` instead */
		rc_await(&p, code, code, 4000);
		rc_inject_nak(&p, code);
		rc_await(&p, code + 1, code, (uint64_t)rnr_code_us[code] * us + 4000);
		gap[code] = g_rc.send_cycle - g_rc.nak_rx_cycle;
		cr_log_info("RNR timer code %u (%u us): the Send again %" PRIu64
			    " cycles after the NAK",
			    code, rnr_code_us[code], gap[code]);
	}
	cr_expect_geq(gap[1], 10 * us, "code 1: the Send again after %" PRIu64 " cycles", gap[1]);
	for (unsigned code = 2; code <= 12; code++) {
		uint64_t extra = (rnr_code_us[code] - 10) * us;
		cr_expect(gap[code] + us >= gap[1] + extra && gap[code] <= gap[1] + extra + us,
			  "code %u: the Send again %" PRIu64 " cycles after the NAK, want %" PRIu64
			  " +- %" PRIu64,
			  code, gap[code], gap[1] + extra, us);
	}
	/* the receive, then one more NAK (B's own for transmission 13 was dropped): it lands */
	rc_await(&p, 13, 13, 4000);
	struct ndk_sge rcv = sge_of(b, 0, 64);
	post_ok(&p, ndk_receive(b->qp, CTX(2), &rcv, 1), "receive");
	rc_inject_nak(&p, 1);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 64);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(1), 0);
	cr_expect(memcmp(a->buf.va, b->buf.va, 64) == 0, "the received bytes differ");
	cr_expect_eq(((uint8_t *)b->buf.va)[64], 0xEE, "a byte past the receive was written");
	cr_expect_eq(g_rc.sends, 14, "%u transmissions of the Send", g_rc.sends);
	ndk_sim_set_fault_hook(p.sim, NULL, NULL);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	pair_close(&p);
}
