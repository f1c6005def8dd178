// SPDX-License-Identifier: MIT
/*
 * Loss recovery of the requester (docs/transport.md "Retransmission"): frames dropped by the
 * network's fault hook (ndk_sim_set_fault_hook), the requester's ACK timer, retry_count and
 * go-back-N replays, in worlds of two Verilated NICs. Start PSNs near 0xFFFFFF, so the
 * retransmissions cross the 24-bit wrap.
 *   loss::every_ack_dropped_retry_count_*   exactly retry_count retransmissions, spaced by the
 *                                            ACK timeout (cycle-checked), then IO_TIMEOUT, the
 *                                            later requests CANCELLED, a neighbouring connection
 *                                            unharmed
 *   loss::ack_timeout_0_never_retransmits
 *   loss::a_dropped_*                       one frame dropped, first transmission: the bytes
 *                                            right, every request completed once and in order,
 *                                            the retransmission's first PSN, at most one NAK
 *   loss::a_replayed_*                      a Send / Write replayed after its ACK was lost is
 *                                            not executed again (no second receive consumed,
 *                                            memory changed meanwhile not overwritten) and is
 *                                            acknowledged again
 *   loss::packets_2_pow_23_psns_ahead_*     far-off PSNs dropped, at most one NAK
 *   loss::a_nak_inside_a_message_*          a NAK for a packet of a message still being sent
 *                                            is taken (go-back-N at once, not at the timeout)
 *   loss::a_timeout_replay_while_the_ring_*  the ACK timer's replay while a new WQE waits for
 *                                            room in the full outstanding ring
 * Cost in `make test`: about 2 s per width.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backend_sim.h" /* the world behind an ndk_sim */
#include "cosim_pair.h"
#include "nicsim.h"
#include "roce_ref.h"
#include "roce_track.h"

#define MHZ    250 /* the default clock: the cycle windows below assume it */
#define CTX(n) ((void *)(uintptr_t)(0x5000 + (n)))

/* ---- the frames: the fault hook decides, the frame handler records ----------------------------- */

#define MAX_TX 256

struct tx {
	uint64_t cycle; /* its last byte left the sender */
	uint8_t opcode;
	uint32_t dest_qp, psn;
	uint8_t syndrome;
};

struct loss {
	struct roce_track *track;
	/* what to drop: every frame to drop_all_qp from NIC 1 (the peer's answers), or the one
	   frame of the request stream to drop_qp with packet drop_packet of message drop_message,
	   first transmission; or its answer (an ACK) of PSN drop_ack_psn */
	uint32_t drop_all_qp;
	uint32_t drop_qp;
	unsigned drop_message, drop_packet;
	bool drop_ack;
	bool drop_naks; /* every sequence NAK NIC 1 sends to drop_ack_qp */
	uint32_t drop_ack_qp, drop_ack_psn;
	unsigned dropped;
	/* frames sent by each NIC, in order */
	struct tx tx[2][MAX_TX];
	unsigned ntx[2];
};

static struct loss g_loss;

static enum ndk_sim_fault on_fault(void *arg, unsigned from, unsigned to, const uint8_t *frame,
				   size_t len)
{
	struct loss *l = arg;
	struct roce_frame f;
	if (!roce_track_frame(l->track, from, to, frame, len, &f))
		return NDK_SIM_FRAME_DELIVER;
	if (l->drop_all_qp && from == 1 && f.dest_qp == l->drop_all_qp) {
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	if (l->drop_qp && from == 0 && f.dest_qp == l->drop_qp && f.message == l->drop_message &&
	    f.packet == l->drop_packet && f.transmission == 1 && f.opcode != ROCE_OP_ACKNOWLEDGE) {
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	if (l->drop_naks && from == 1 && f.dest_qp == l->drop_ack_qp &&
	    f.opcode == ROCE_OP_ACKNOWLEDGE && f.fields.aeth_syndrome == 0x60) {
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	if (l->drop_ack && from == 1 && f.dest_qp == l->drop_ack_qp &&
	    f.opcode == ROCE_OP_ACKNOWLEDGE && f.psn == l->drop_ack_psn) {
		l->drop_ack = false; /* the first one only */
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	return NDK_SIM_FRAME_DELIVER;
}

static void on_frame(void *ctx, enum nicsim_frame_event what, unsigned nic, uint64_t cycle,
		     const uint8_t *bytes, size_t len)
{
	struct loss *l = ctx;
	struct roce_ref_fields f;
	if (what != NICSIM_FRAME_SENT || nic >= 2 || l->ntx[nic] >= MAX_TX)
		return;
	if (roce_ref_parse(bytes, len, &f) != ROCE_REF_OK)
		return;
	struct tx *t = &l->tx[nic][l->ntx[nic]++];
	t->cycle = cycle;
	t->opcode = f.opcode;
	t->dest_qp = f.dest_qp;
	t->psn = f.psn;
	t->syndrome = f.aeth_syndrome;
}

static uint32_t wire_qpn(struct ndk_qp *qp)
{
	struct ndk_qp_address a;
	cr_assert_eq(ndk_get_qp_address(qp, &a), NDK_STATUS_SUCCESS);
	return a.qp_number;
}

/* a pair connected with ack_timeout / retry_count, A sending from a_psn, B from b_psn */
static void loss_open(struct pair *p, uint8_t ack_timeout, uint8_t retry_count, uint32_t a_psn,
		      uint32_t b_psn)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	cr_assert_eq(c.clock_mhz, MHZ);
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr);
	attr.ack_timeout = ack_timeout;
	attr.retry_count = retry_count;
	attr.local_psn = a_psn;
	attr.remote_psn = b_psn;
	struct pair_opts o = { .attr = &attr };
	pair_open_opts(p, &c, &o);
	memset(&g_loss, 0, sizeof(g_loss));
	g_loss.track = roce_track_new();
	cr_assert_not_null(g_loss.track);
	ndk_sim_set_fault_hook(p->sim, on_fault, &g_loss);
	nicsim_set_frame_handler(p->sim->world, on_frame, &g_loss);
}

static void loss_close(struct pair *p)
{
	ndk_sim_set_fault_hook(p->sim, NULL, NULL);
	nicsim_set_frame_handler(p->sim->world, NULL, NULL);
	roce_track_free(g_loss.track);
	pair_close(p);
}

/* ceil(4.096 us x 2^t) in cycles at MHZ, and the timer's bound: one microsecond tick more */
static uint64_t period_cyc(unsigned t)
{
	return (4096ull << t) * MHZ / 1000;
}

/* ---- every answer dropped -------------------------------------------------------------------- */

/*
 * A's Send (1 packet, PSN 0xFFFFFE) and the Write and Send behind it; every answer B sends to
 * A's QP is dropped. A neighbouring connection (another QP pair on the same NICs) moves 8 Sends
 * meanwhile. The Send goes out 1 + retry_count times (only it: the later requests are replayed
 * behind it each time, from PSNs after it), each transmission of it at least the ACK timeout
 * (4.096 us x 2^2) and at most that rounded up plus 2 us after the one before; then the Send
 * completes IO_TIMEOUT, the Write and the Send behind it CANCELLED, and B received the Send
 * once (its duplicates are not executed again).
 */
static void every_ack_dropped(unsigned retry_count)
{
	const unsigned tmo = 2;
	const uint32_t a_psn = 0xFFFFFE;
	struct pair p;
	loss_open(&p, tmo, (uint8_t)retry_count, a_psn, 0x7FFFF0);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	g_loss.drop_all_qp = a_qpn;

	/* the neighbour: its own QPs, PDs and CQs on the same two NICs */
	struct side n0 = { 0 }, n1 = { 0 };
	const struct pair_opts no = { 0 };
	side_open(&p, 0, &n0, a->ad, &no, 0);
	side_open(&p, 1, &n1, b->ad, &no, 1);
	qps_connect(n0.qp, n1.qp);

	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 8192, 3);
	memset(dst, 0xEE, 8192);
	struct ndk_sge r1 = sge_of(b, 0, 4096), r2 = sge_of(b, 4096, 4096);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(b->qp, CTX(2), &r2, 1), NDK_STATUS_SUCCESS);
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);

	uint8_t *nsrc = n0.buf.va, *ndst = n1.buf.va;
	fill(nsrc, 8 * 512, 17);
	memset(ndst, 0xEE, 8 * 512);
	for (unsigned i = 0; i < 8; i++) {
		struct ndk_sge nr = sge_of(&n1, i * 512, 512);
		cr_assert_eq(ndk_receive(n1.qp, CTX(100 + i), &nr, 1), NDK_STATUS_SUCCESS);
	}

	uint64_t t0 = ndk_sim_cycle(p.sim);
	struct ndk_sge s1 = sge_of(a, 0, 100), w = sge_of(a, 4096, 2000);
	cr_assert_eq(ndk_send(a->qp, CTX(10), &s1, 1, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(a->qp, CTX(11), &w, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(12), &s1, 1, 0), NDK_STATUS_SUCCESS);
	for (unsigned i = 0; i < 8; i++) {
		struct ndk_sge ns = sge_of(&n0, i * 512, 512);
		cr_assert_eq(ndk_send(n0.qp, CTX(200 + i), &ns, 1, 0), NDK_STATUS_SUCCESS);
	}

	struct ndk_result_ex res;
	poll_cq(&p, a->cq, &res, (retry_count + 2) * (period_cyc(tmo) + 3 * MHZ) + 20000);
	uint64_t took = ndk_sim_cycle(p.sim) - t0;
	cr_expect_eq(res.status, NDK_STATUS_IO_TIMEOUT, "status %s", ndk_status_name(res.status));
	cr_expect_eq(res.request_context, CTX(10));
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(12), 0);
	cr_log_info("loss: retry_count %u: IO_TIMEOUT %" PRIu64 " cycles after the post",
		    retry_count, took);

	/* the neighbour: every Send completed, in order, every byte right */
	for (unsigned i = 0; i < 8; i++) {
		expect_cpl(&p, &n0, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(200 + i), 0);
		expect_cpl(&p, &n1, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(100 + i), 512);
	}
	cr_expect(memcmp(nsrc, ndst, 8 * 512) == 0, "the neighbour's bytes differ");

	/* B executed the Send once and the Write and the Send behind it once (their ACKs were
	   lost, not the requests): the second receive holds the second Send */
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 100);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 100);
	expect_no_cpl(&p, b->cq, 20000);
	expect_no_cpl(&p, a->cq, 1000);
	cr_expect(memcmp(src, dst, 100) == 0 && memcmp(src, dst + 4096, 100) == 0);
	cr_expect(memcmp(src + 4096, r.buf.va, 2000) == 0, "the Write's bytes differ");

	/* the transmissions of the Send's PSN, and their spacing */
	unsigned n = 0;
	uint64_t last = 0;
	const uint64_t lo = period_cyc(tmo), hi = (period_cyc(tmo) / MHZ + 3) * MHZ;
	for (unsigned i = 0; i < g_loss.ntx[0]; i++) {
		const struct tx *t = &g_loss.tx[0][i];
		if (t->dest_qp != b_qpn || t->psn != a_psn)
			continue;
		cr_expect_eq(t->opcode, ROCE_OP_SEND_ONLY);
		if (n > 0) {
			uint64_t gap = t->cycle - last;
			cr_expect(gap >= lo && gap <= hi,
				  "transmission %u came %" PRIu64
				  " cycles after the one before (%" PRIu64 "..%" PRIu64 ")",
				  n + 1, gap, lo, hi);
			cr_log_info("loss: transmission %u, %" PRIu64
				    " cycles after the one before",
				    n + 1, gap);
		}
		last = t->cycle;
		n++;
	}
	cr_expect_eq(n, 1 + retry_count, "the Send went out %u times", n);
	cr_expect_geq(took, (uint64_t)(retry_count + 1) * lo);
	cr_expect_leq(took, (uint64_t)(retry_count + 1) * hi + 2000);
	side_region_free(&p, b, &r);
	for (int i = 0; i < 2; i++) {
		struct side *s = i ? &n1 : &n0;
		ndk_close_qp(s->qp);
		ndk_close_cq(s->cq);
		ndk_free_buffer(s->ad, &s->buf);
		ndk_close_pd(s->pd);
	}
	loss_close(&p);
}

Test(loss, every_ack_dropped_retry_count_0)
{
	every_ack_dropped(0);
}

Test(loss, every_ack_dropped_retry_count_2)
{
	every_ack_dropped(2);
}

Test(loss, every_ack_dropped_retry_count_7)
{
	every_ack_dropped(7);
}

/* ack_timeout 0: no timer; with every ACK lost the Send goes out once and stays outstanding */
Test(loss, ack_timeout_0_never_retransmits)
{
	struct pair p;
	loss_open(&p, 0, 7, 0xFFFFFF, 0);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t b_qpn = wire_qpn(b->qp);
	g_loss.drop_all_qp = wire_qpn(a->qp);
	struct ndk_sge r1 = sge_of(b, 0, 4096), s1 = sge_of(a, 0, 64);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(10), &s1, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 64);
	/* longer than the longest timeout the tests use (code 4: 66 us) */
	expect_no_cpl(&p, a->cq, 100 * MHZ);
	unsigned n = 0;
	for (unsigned i = 0; i < g_loss.ntx[0]; i++)
		n += g_loss.tx[0][i].dest_qp == b_qpn;
	cr_expect_eq(n, 1, "A sent %u frames", n);
	loss_close(&p);
}

/* ---- one frame dropped ------------------------------------------------------------------------ */

/*
 * A: a 3-packet Send (MTU 1024), a 3-packet Write, a 1-packet Send, from PSN 0xFFFFFD; packet
 * `pkt` of message `msg` is dropped, its first transmission (or, with ack, the ACK of the
 * message). Everything arrives once, intact, every request completes SUCCESS once and in order,
 * B sends at most one sequence NAK, and the first retransmission is of the dropped message's
 * first PSN (the replay sends a message again whole; the responder drops what it has).
 */
static void drop_one(unsigned msg, unsigned pkt, bool ack)
{
	const uint32_t a_psn = 0xFFFFFD;
	/* the messages' first PSNs */
	const uint32_t first[4] = { 0, a_psn, (a_psn + 3) & 0xFFFFFF, (a_psn + 6) & 0xFFFFFF };
	const uint32_t last[4] = { 0, (a_psn + 2) & 0xFFFFFF, (a_psn + 5) & 0xFFFFFF,
				   (a_psn + 6) & 0xFFFFFF };
	struct pair p;
	loss_open(&p, 3, 7, a_psn, 0xABCDEF);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	if (ack) {
		g_loss.drop_ack = true;
		g_loss.drop_ack_qp = a_qpn;
		g_loss.drop_ack_psn = last[msg];
	} else {
		g_loss.drop_qp = b_qpn;
		g_loss.drop_message = msg;
		g_loss.drop_packet = pkt;
	}
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 16384, 21);
	memset(dst, 0xEE, 16384);
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);
	struct ndk_sge r1 = sge_of(b, 0, 4096), r2 = sge_of(b, 4096, 4096),
		       r3 = sge_of(b, 8192, 4096);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(b->qp, CTX(2), &r2, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(b->qp, CTX(3), &r3, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge s1 = sge_of(a, 0, 2500), w = sge_of(a, 4096, 3000), s3 = sge_of(a, 8192, 10);
	cr_assert_eq(ndk_send(a->qp, CTX(10), &s1, 1, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(a->qp, CTX(11), &w, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(12), &s3, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(12), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 2500);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 10);
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);
	cr_expect_eq(g_loss.dropped, 1, "%u frames dropped", g_loss.dropped);
	cr_expect(memcmp(src, dst, 2500) == 0, "the first Send's bytes differ");
	cr_expect_eq(dst[2500], 0xEE);
	cr_expect(memcmp(src + 8192, dst + 4096, 10) == 0, "the last Send's bytes differ");
	cr_expect(memcmp(src + 4096, r.buf.va, 3000) == 0, "the Write's bytes differ");
	cr_expect_eq(((uint8_t *)r.buf.va)[3000], 0x5A);

	/* B's sequence NAKs; A's first retransmission */
	unsigned naks = 0;
	for (unsigned i = 0; i < g_loss.ntx[1]; i++) {
		const struct tx *t = &g_loss.tx[1][i];
		naks += t->dest_qp == a_qpn && t->opcode == ROCE_OP_ACKNOWLEDGE &&
			t->syndrome == 0x60;
	}
	cr_expect_leq(naks, 1, "B sent %u sequence NAKs", naks);
	uint32_t next = a_psn, retx = 0xFFFFFFFF;
	for (unsigned i = 0; i < g_loss.ntx[0]; i++) {
		const struct tx *t = &g_loss.tx[0][i];
		if (t->dest_qp != b_qpn)
			continue;
		if (t->psn != next) {
			retx = t->psn;
			break;
		}
		next = (next + 1) & 0xFFFFFF;
	}
	cr_expect_eq(retx, first[msg], "the retransmission starts at PSN 0x%06x, want 0x%06x", retx,
		     first[msg]);
	cr_log_info("loss: message %u packet %u%s dropped: %u NAKs, retransmission from 0x%06x",
		    msg, pkt, ack ? " (its ACK)" : "", naks, retx);
	side_region_free(&p, b, &r);
	loss_close(&p);
}

Test(loss, a_dropped_send_first_packet)
{
	drop_one(1, 1, false);
}

Test(loss, a_dropped_send_middle_packet)
{
	drop_one(1, 2, false);
}

Test(loss, a_dropped_send_last_packet)
{
	drop_one(1, 3, false);
}

Test(loss, a_dropped_write_first_packet)
{
	drop_one(2, 1, false);
}

Test(loss, a_dropped_write_middle_packet)
{
	drop_one(2, 2, false);
}

Test(loss, a_dropped_write_last_packet)
{
	drop_one(2, 3, false);
}

Test(loss, a_dropped_last_send)
{
	drop_one(3, 1, false);
}

Test(loss, a_dropped_ack)
{
	drop_one(3, 1, true);
}

/* ---- duplicates: a replayed Send or Write is not executed twice
 * -------------------------------- */

static bool all_bytes(const uint8_t *b, uint8_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

/* frames NIC `nic` sent to QP qpn with PSN psn (opcode op; 0xFF: any), and the
 * cycle of the second one (0: none) */
static unsigned sent_count(unsigned nic, uint32_t qpn, uint32_t psn, uint8_t op, uint64_t *second)
{
	unsigned n = 0;
	if (second)
		*second = 0;
	for (unsigned i = 0; i < g_loss.ntx[nic]; i++) {
		const struct tx *t = &g_loss.tx[nic][i];
		if (t->dest_qp != qpn || t->psn != psn || (op != 0xFF && t->opcode != op))
			continue;
		if (++n == 2 && second)
			*second = t->cycle;
	}
	return n;
}

/*
 * The ACK of A's Send (PSN 0xFFFFFF) is lost: A's timer expires and the Send
 * goes out again. B has it already: it does not execute it again (the second
 * receive stays posted, untouched) and acknowledges it again, so A's Send
 * completes SUCCESS once. The next Send fills the second receive with its own
 * bytes.
 */
Test(loss, a_replayed_send_consumes_no_second_receive_and_is_acknowledged_again)
{
	const unsigned tmo = 2;
	const uint32_t a_psn = 0xFFFFFF;
	struct pair p;
	loss_open(&p, tmo, 7, a_psn, 0x123456);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	g_loss.drop_ack = true;
	g_loss.drop_ack_qp = a_qpn;
	g_loss.drop_ack_psn = a_psn;
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 8192, 41);
	memset(dst, 0xEE, 8192);
	struct ndk_sge r1 = sge_of(b, 0, 4096), r2 = sge_of(b, 4096, 4096);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(b->qp, CTX(2), &r2, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge s1 = sge_of(a, 0, 100);
	uint64_t t0 = ndk_sim_cycle(p.sim);
	cr_assert_eq(ndk_send(a->qp, CTX(10), &s1, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 100);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(10), 0);
	cr_expect_geq(ndk_sim_cycle(p.sim) - t0, period_cyc(tmo),
		      "the Send completed before the ACK timeout: its ACK was not "
		      "the one lost");
	/* the replay reached B (its ACK came back) and consumed nothing */
	expect_no_cpl(&p, b->cq, 4 * period_cyc(tmo));
	cr_expect_eq(g_loss.dropped, 1);
	uint64_t second;
	cr_expect_eq(sent_count(0, b_qpn, a_psn, ROCE_OP_SEND_ONLY, &second), 2,
		     "the Send went out %u times", sent_count(0, b_qpn, a_psn, 0xFF, NULL));
	cr_expect_eq(sent_count(1, a_qpn, a_psn, ROCE_OP_ACKNOWLEDGE, NULL), 2,
		     "B acknowledged PSN 0x%06x %u times", a_psn,
		     sent_count(1, a_qpn, a_psn, ROCE_OP_ACKNOWLEDGE, NULL));
	cr_expect(all_bytes(dst + 4096, 0xEE, 4096), "the second receive was written");
	cr_expect(memcmp(src, dst, 100) == 0 && dst[100] == 0xEE);
	/* the next Send takes the second receive */
	struct ndk_sge s2 = sge_of(a, 4096, 50);
	cr_assert_eq(ndk_send(a->qp, CTX(11), &s2, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(11), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 50);
	cr_expect(memcmp(src + 4096, dst + 4096, 50) == 0, "the second Send's bytes differ");
	cr_expect(memcmp(src, dst, 100) == 0, "the first receive changed");
	expect_no_cpl(&p, a->cq, 5000);
	loss_close(&p);
}

/*
 * The ACK of A's 3-packet Write is lost. Once the Write's bytes are in B's
 * memory, B's host writes other bytes over them; then A's timer expires and the
 * Write goes out again. B has every packet of it already: the replay does not
 * overwrite the memory again, B acknowledges it again and the Write completes
 * SUCCESS once.
 */
Test(loss, a_replayed_write_does_not_overwrite_memory_changed_meanwhile)
{
	const unsigned tmo = 2;
	const uint32_t a_psn = 0xFFFFFE, last = (a_psn + 2) & 0xFFFFFF;
	struct pair p;
	loss_open(&p, tmo, 7, a_psn, 0x0ABCDE);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	g_loss.drop_ack = true;
	g_loss.drop_ack_qp = a_qpn;
	g_loss.drop_ack_psn = last;
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *src = a->buf.va, *mem = r.buf.va;
	fill(src, 3000, 43);
	memset(mem, 0x5A, NDK_PAGE_SIZE);
	struct ndk_sge w = sge_of(a, 0, 3000);
	cr_assert_eq(ndk_write(a->qp, CTX(20), &w, 1, (uint64_t)(uintptr_t)mem,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		     NDK_STATUS_SUCCESS);
	/* the Write placed: B's host changes the memory */
	uint64_t deadline = ndk_sim_cycle(p.sim) + 20000;
	while (memcmp(mem, src, 3000) != 0) {
		if (ndk_sim_cycle(p.sim) > deadline)
			cr_assert_fail("cycle %" PRIu64 ": the Write never arrived",
				       ndk_sim_cycle(p.sim));
		ndk_sim_step(p.sim, 10);
	}
	memset(mem, 0x77, 3000);
	uint64_t changed = ndk_sim_cycle(p.sim);
	struct ndk_result_ex res;
	cr_assert_eq(ndk_get_cq_results_ex(a->cq, &res, 1), 0, "the Write completed: no ACK lost");
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(20), 0);
	ndk_sim_step(p.sim, 2000);
	cr_expect_eq(g_loss.dropped, 1);
	uint64_t second;
	cr_expect_eq(sent_count(0, b_qpn, a_psn, ROCE_OP_WRITE_FIRST, &second), 2,
		     "the Write's first packet went out %u times",
		     sent_count(0, b_qpn, a_psn, 0xFF, NULL));
	cr_expect_gt(second, changed, "the replay left before the memory was changed");
	cr_expect_eq(sent_count(0, b_qpn, last, ROCE_OP_WRITE_LAST, NULL), 2);
	cr_expect_eq(sent_count(1, a_qpn, last, ROCE_OP_ACKNOWLEDGE, NULL), 2,
		     "B acknowledged the Write %u times",
		     sent_count(1, a_qpn, last, ROCE_OP_ACKNOWLEDGE, NULL));
	cr_expect(all_bytes(mem, 0x77, 3000), "the replayed Write overwrote the memory again");
	cr_expect(all_bytes(mem + 3000, 0x5A, NDK_PAGE_SIZE - 3000));
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);
	side_region_free(&p, b, &r);
	loss_close(&p);
}

/*
 * Packets far from B's expected PSN e, injected as if from A's QP: a Write 2^23
 * PSNs ahead (in 24-bit arithmetic as far behind as ahead) and one 2^23 - 1
 * ahead (the farthest PSN that is ahead). Neither is executed (B's memory
 * untouched, no completion anywhere), B sends at most one sequence NAK, and A's
 * own requests from e on go through intact afterwards.
 */
static void inject_write(struct pair *p, uint32_t from_qpn, uint32_t to_qpn, uint32_t psn,
			 uint64_t va, uint32_t rkey, const uint8_t *payload, size_t n)
{
	struct roce_ref_fields f;
	uint8_t buf[ROCE_REF_MAX_FRAME(256)];
	roce_ref_init(&f, 0, from_qpn, 1);
	f.opcode = ROCE_OP_WRITE_ONLY;
	f.ackreq = true;
	f.dest_qp = to_qpn;
	f.psn = psn & 0xFFFFFF;
	f.reth_va = va;
	f.reth_rkey = rkey;
	f.reth_dma_len = (uint32_t)n;
	f.payload = payload;
	f.payload_len = n;
	size_t len = roce_ref_build(&f, buf, sizeof(buf));
	cr_assert_gt(len, 0);
	cr_assert_eq(nicsim_port_inject(p->sim->world, 0, buf, len), 0);
}

Test(loss, packets_2_pow_23_psns_ahead_are_dropped)
{
	const uint32_t a_psn = 0xFFFFF0;
	struct pair p;
	loss_open(&p, 2, 7, a_psn, 0x000010);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *mem = r.buf.va;
	memset(mem, 0x5A, NDK_PAGE_SIZE);
	const uint64_t va = (uint64_t)(uintptr_t)mem;
	const uint32_t rkey = ndk_get_remote_token_from_mr(r.mr);
	uint8_t junk[64];
	memset(junk, 0xAB, sizeof(junk));
	inject_write(&p, a_qpn, b_qpn, a_psn + 0x800000, va, rkey, junk, sizeof(junk));
	inject_write(&p, a_qpn, b_qpn, a_psn + 0x7FFFFF, va + 64, rkey, junk, sizeof(junk));
	expect_no_cpl(&p, b->cq, 20000);
	expect_no_cpl(&p, a->cq, 1000);
	cr_expect(all_bytes(mem, 0x5A, NDK_PAGE_SIZE), "a packet far from the PSN was executed");
	/* A's own traffic from the expected PSN on */
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 4096, 47);
	memset(dst, 0xEE, 4096);
	struct ndk_sge rcv = sge_of(b, 0, 4096), s = sge_of(a, 0, 1500), w = sge_of(a, 2048, 2000);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(10), &s, 1, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(a->qp, CTX(11), &w, 1, va + 1024, rkey, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 1500);
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);
	cr_expect(memcmp(src, dst, 1500) == 0, "the Send's bytes differ");
	cr_expect(memcmp(src + 2048, mem + 1024, 2000) == 0, "the Write's bytes differ");
	cr_expect(all_bytes(mem, 0x5A, 1024) && all_bytes(mem + 3024, 0x5A, NDK_PAGE_SIZE - 3024),
		  "bytes outside the Write were written");
	unsigned naks = 0;
	for (unsigned i = 0; i < g_loss.ntx[1]; i++) {
		const struct tx *t = &g_loss.tx[1][i];
		naks += t->dest_qp == a_qpn && t->opcode == ROCE_OP_ACKNOWLEDGE &&
			t->syndrome == 0x60;
	}
	cr_expect_leq(naks, 1, "B sent %u sequence NAKs", naks);
	cr_log_info("loss: 2^23 ahead: %u sequence NAKs", naks);
	side_region_free(&p, b, &r);
	loss_close(&p);
}

/*
 * A sequence NAK for a packet of a long message that the requester is still sending (the
 * message's outstanding entry is not appended yet), after the ACK of the message before it was
 * lost: the NAK acknowledges that earlier Write and orders a go-back-N from the dropped packet.
 * The ACK timer must take it (it once dropped it as stale, since it names a PSN beyond the last
 * appended WQE: the completer completed the Write from the NAK, the timer later replayed from the
 * Write's PSN, whose entry was gone, and the Send failed INVALID_PARAMETER). The Send is sent
 * again from its first PSN right after its last packet, long before the ACK timeout, and every
 * request completes SUCCESS once, in order, the bytes right.
 */
Test(loss, a_nak_inside_a_message_still_being_sent_is_taken)
{
	const unsigned tmo = 4; /* 65.5 us: far longer than the Send takes */
	const uint32_t a_psn = 0xFFFFFE, send_psn = (a_psn + 1) & 0xFFFFFF;
	const uint32_t send_len = 60 * 1024; /* 60 packets at MTU 1024 */
	struct pair p;
	loss_open(&p, tmo, 7, a_psn, 0x222222);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	g_loss.drop_ack = true; /* the Write's ACK */
	g_loss.drop_ack_qp = a_qpn;
	g_loss.drop_ack_psn = a_psn;
	g_loss.drop_qp = b_qpn; /* the Send's second packet, its first transmission */
	g_loss.drop_message = 2;
	g_loss.drop_packet = 2;
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, PAIR_BUF_BYTES, 53);
	memset(dst, 0xEE, PAIR_BUF_BYTES);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);
	struct ndk_sge rcv = sge_of(b, 0, PAIR_BUF_BYTES);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge w = sge_of(a, 0, 200), s = sge_of(a, 1024, send_len);
	cr_assert_eq(ndk_write(a->qp, CTX(10), &w, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(11), &s, 1, 0), NDK_STATUS_SUCCESS);
	uint64_t t0 = ndk_sim_cycle(p.sim);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(11), 0);
	uint64_t took = ndk_sim_cycle(p.sim) - t0;
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), send_len);
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);
	cr_expect_eq(g_loss.dropped, 2, "%u frames dropped", g_loss.dropped);
	cr_expect(memcmp(src + 1024, dst, send_len) == 0, "the Send's bytes differ");
	cr_expect(memcmp(src, r.buf.va, 200) == 0, "the Write's bytes differ");
	/* the NAK came while the Send's later packets were still going out */
	uint64_t nak_at = 0, last_first_tx = 0, retx_at = 0;
	for (unsigned i = 0; i < g_loss.ntx[1]; i++) {
		const struct tx *t = &g_loss.tx[1][i];
		if (t->dest_qp == a_qpn && t->opcode == ROCE_OP_ACKNOWLEDGE &&
		    t->syndrome == 0x60 && !nak_at)
			nak_at = t->cycle;
	}
	uint32_t next = a_psn;
	for (unsigned i = 0; i < g_loss.ntx[0]; i++) {
		const struct tx *t = &g_loss.tx[0][i];
		if (t->dest_qp != b_qpn)
			continue;
		if (!retx_at && t->psn == next) {
			last_first_tx = t->cycle;
			next = (next + 1) & 0xFFFFFF;
		} else if (!retx_at) {
			retx_at = t->cycle;
			cr_expect_eq(t->psn, send_psn,
				     "the retransmission starts at PSN 0x%06x, want 0x%06x", t->psn,
				     send_psn);
		}
	}
	cr_assert_neq(nak_at, 0, "B sent no sequence NAK");
	cr_expect_lt(nak_at, last_first_tx,
		     "the NAK (cycle %" PRIu64 ") came after the Send's last packet (cycle %" PRIu64
		     "): the test does not test what it says",
		     nak_at, last_first_tx);
	cr_expect_lt(retx_at - last_first_tx, period_cyc(tmo) / 4,
		     "the replay waited %" PRIu64 " cycles after the Send's last packet: the NAK "
		     "was not taken, the ACK timer did it",
		     retx_at - last_first_tx);
	cr_log_info("loss: NAK at cycle %" PRIu64 ", the Send's last packet at %" PRIu64
		    ", the replay at %" PRIu64 "; %" PRIu64 " cycles in all",
		    nak_at, last_first_tx, retx_at, took);
	side_region_free(&p, b, &r);
	loss_close(&p);
}

/*
 * 80 one-packet Writes posted at once: 64 fill the QP's outstanding ring and the 65th waits at
 * the intake for room. The first Write's packet is lost (its first transmission) and so is every
 * sequence NAK B sends about the gap, so only A's ACK timer can recover. Its replay needs the
 * intake, which holds the waiting WQE: the intake sets that WQE aside, replays, and takes it
 * again from the SQ ring (it once waited for the ring's room while the replay waited for it, until
 * the retries ran out: IO_TIMEOUT). Every Write completes SUCCESS once and in order, every byte
 * right, the first retransmission at the first Write's PSN about one ACK timeout after it.
 */
Test(loss, a_timeout_replay_while_the_ring_is_full_and_a_wqe_waits)
{
	const unsigned tmo = 2, n = 80, len = 512;
	const uint32_t a_psn = 0xFFFFF0;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr);
	attr.ack_timeout = tmo;
	attr.retry_count = 7;
	attr.local_psn = a_psn;
	attr.remote_psn = 0x456789;
	struct pair_opts o = { .attr = &attr, .sq_depth = 128, .cq_depth = 256 };
	struct pair p;
	pair_open_opts(&p, &c, &o);
	memset(&g_loss, 0, sizeof(g_loss));
	g_loss.track = roce_track_new();
	cr_assert_not_null(g_loss.track);
	ndk_sim_set_fault_hook(p.sim, on_fault, &g_loss);
	nicsim_set_frame_handler(p.sim->world, on_frame, &g_loss);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	g_loss.drop_qp = b_qpn;
	g_loss.drop_message = 1;
	g_loss.drop_packet = 1;
	g_loss.drop_naks = true;
	g_loss.drop_ack_qp = a_qpn;
	struct region r;
	side_region(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *src = a->buf.va, *mem = r.buf.va;
	fill(src, n * len, 59);
	memset(mem, 0x5A, 16 * NDK_PAGE_SIZE);
	for (unsigned i = 0; i < n; i++) {
		struct ndk_sge w = sge_of(a, i * len, len);
		cr_assert_eq(ndk_write(a->qp, CTX(100 + i), &w, 1,
				       (uint64_t)(uintptr_t)mem + (uint64_t)i * len,
				       ndk_get_remote_token_from_mr(r.mr), 0),
			     NDK_STATUS_SUCCESS);
	}
	for (unsigned i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(100 + i), 0);
	expect_no_cpl(&p, a->cq, 5000);
	cr_expect(memcmp(src, mem, n * len) == 0, "the Writes' bytes differ");
	cr_expect(all_bytes(mem + n * len, 0x5A, 16 * NDK_PAGE_SIZE - n * len));
	cr_expect_geq(g_loss.dropped, 2, "the packet and at least one NAK dropped (%u)",
		      g_loss.dropped);
	/* the first retransmission: the first Write's PSN, one ACK timeout after it went out */
	uint64_t first = 0, retx = 0;
	for (unsigned i = 0; i < g_loss.ntx[0]; i++) {
		const struct tx *t = &g_loss.tx[0][i];
		if (t->dest_qp != b_qpn || t->psn != a_psn)
			continue;
		if (!first)
			first = t->cycle;
		else if (!retx)
			retx = t->cycle;
	}
	cr_assert_neq(retx, 0, "the first Write was never sent again");
	cr_expect(retx - first >= period_cyc(tmo) && retx - first <= 3 * period_cyc(tmo),
		  "the retransmission came %" PRIu64 " cycles after the first transmission",
		  retx - first);
	side_region_free(&p, b, &r);
	loss_close(&p);
}
