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
 *                                            the retransmission from the lost packet (its
 *                                            PSN and opcode), at most one NAK
 * Reads under loss and duplicates at the responder (implied NAKs, the saved Reads):
 *   loss::a_dropped_read_*, loss::*read_response*, loss::*ack*_a_read
 *                                            a Read request, a response (first / middle / last,
 *                                            all, one twice), a NAK or an ACK around a 3-packet
 *                                            Read lost: every byte right, every request once and
 *                                            in order, the Read asked for again from the lost
 *                                            response (PSN, VA, length), the port counters
 *                                            reconciled with the hook
 *   loss::a_fatal_nak_over_an_unplaced_read_*  the Read takes the NAK's status at once
 *   loss::a_late_first_response_*           a stale FIRST of a half-placed Read is a duplicate
 *   loss::duplicate_requests_*              a Read injected again whole and partial (the same
 *                                            bytes), a Write and a Send again (not executed)
 *   loss::a_duplicate_read_in_the_middle_of_a_write
 *   loss::packets_ahead_*                   one sequence NAK then silence, 2^23 across the wrap
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
	uint64_t reth_va; /* a Read request's RETH */
	uint32_t reth_dma_len;
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
	bool drop_nak_of; /* every sequence NAK of PSN drop_nak_psn NIC 1 sends to drop_ack_qp */
	uint32_t drop_nak_psn;
	/* held back behind the next frame of its link: the first transmission of packet
	   reorder_packet of message reorder_message to reorder_qp (from NIC 0), or NIC 1's first
	   ACK of PSN reorder_ack_psn to drop_ack_qp */
	uint32_t reorder_qp;
	unsigned reorder_message, reorder_packet;
	bool reorder_ack;
	uint32_t reorder_ack_psn;
	/* NIC 1's ACKs of the drop_ack_count PSNs from drop_ack_first to drop_ack_qp */
	uint32_t drop_ack_first;
	unsigned drop_ack_count;
	unsigned dropped, reordered;
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
	if (l->drop_nak_of && from == 1 && f.dest_qp == l->drop_ack_qp &&
	    f.opcode == ROCE_OP_ACKNOWLEDGE && f.fields.aeth_syndrome == 0x60 &&
	    f.psn == l->drop_nak_psn) {
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	if (l->reorder_qp && from == 0 && f.dest_qp == l->reorder_qp &&
	    f.message == l->reorder_message && f.packet == l->reorder_packet &&
	    f.transmission == 1 && f.opcode != ROCE_OP_ACKNOWLEDGE) {
		l->reordered++;
		return NDK_SIM_FRAME_REORDER;
	}
	if (l->drop_ack_count && from == 1 && f.dest_qp == l->drop_ack_qp &&
	    f.opcode == ROCE_OP_ACKNOWLEDGE && (f.fields.aeth_syndrome & 0xE0) == 0 &&
	    ((f.psn - l->drop_ack_first) & 0xFFFFFF) < l->drop_ack_count) {
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	if (l->reorder_ack && from == 1 && f.dest_qp == l->drop_ack_qp &&
	    f.opcode == ROCE_OP_ACKNOWLEDGE && (f.fields.aeth_syndrome & 0xE0) == 0 &&
	    f.psn == l->reorder_ack_psn) {
		l->reorder_ack = false; /* the first one only */
		l->reordered++;
		return NDK_SIM_FRAME_REORDER;
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
	attr.inbound_read_limit = attr.outbound_read_limit = 4; /* Reads allowed both ways */
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

/*
 * The ACK timer runs the time ack_timeout names (IBA: 4.096 us x 2^ack_timeout, rounded up to
 * the microsecond), for the codes above those the other tests use (6 to 8: 263 us, 525 us,
 * 1049 us): a first Send is acknowledged (SUCCESS: the ACK restarts the timer with the code's
 * period), then every answer to A's QP is dropped, retry_count 1: A's second Send goes out
 * twice, the second transmission between the period and the period plus 3 us after the first,
 * then IO_TIMEOUT one period later; B executed it once.
 */
Test(loss, the_ack_timer_runs_the_time_each_ack_timeout_code_names)
{
	for (unsigned tmo = 6; tmo <= 8; tmo++) {
		struct pair p;
		loss_open(&p, (uint8_t)tmo, 1, 0x100, 0x200);
		struct side *a = &p.s[0], *b = &p.s[1];
		uint32_t b_qpn = wire_qpn(b->qp);
		struct ndk_sge r0 = sge_of(b, 8192, 64), s0 = sge_of(a, 8192, 64);
		cr_assert_eq(ndk_receive(b->qp, CTX(0), &r0, 1), NDK_STATUS_SUCCESS);
		cr_assert_eq(ndk_send(a->qp, CTX(9), &s0, 1, 0), NDK_STATUS_SUCCESS);
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(0), 64);
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(9), 0);
		g_loss.drop_all_qp = wire_qpn(a->qp);
		const uint64_t period_us = ((4096ull << tmo) + 999) / 1000;
		const uint64_t lo = period_us * MHZ, hi = (period_us + 3) * MHZ;
		struct ndk_sge r1 = sge_of(b, 0, 4096), s1 = sge_of(a, 0, 64);
		fill(a->buf.va, 64, tmo);
		cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
		uint64_t t0 = ndk_sim_cycle(p.sim);
		cr_assert_eq(ndk_send(a->qp, CTX(10), &s1, 1, 0), NDK_STATUS_SUCCESS);
		struct ndk_result_ex res;
		poll_cq(&p, a->cq, &res, 2 * hi + 20000);
		uint64_t took = ndk_sim_cycle(p.sim) - t0;
		cr_expect_eq(res.status, NDK_STATUS_IO_TIMEOUT, "code %u: status %s", tmo,
			     ndk_status_name(res.status));
		cr_expect_eq(res.request_context, CTX(10));
		cr_expect_geq(took, 2 * lo, "code %u: IO_TIMEOUT after %" PRIu64 " cycles", tmo,
			      took);
		cr_expect_leq(took, 2 * hi + 2000, "code %u: IO_TIMEOUT after %" PRIu64 " cycles",
			      tmo, took);
		unsigned n = 0;
		uint64_t first = 0;
		for (unsigned i = 0; i < g_loss.ntx[0]; i++) {
			const struct tx *t = &g_loss.tx[0][i];
			if (t->dest_qp != b_qpn || t->psn != 0x101)
				continue;
			if (n == 1) {
				uint64_t gap = t->cycle - first;
				cr_expect(gap >= lo && gap <= hi,
					  "code %u: the Send again %" PRIu64
					  " cycles after its first "
					  "transmission (%" PRIu64 "..%" PRIu64 ")",
					  tmo, gap, lo, hi);
				cr_log_info("loss: ack_timeout %u: the Send again %" PRIu64
					    " cycles after its first transmission",
					    tmo, gap);
			}
			first = t->cycle;
			n++;
		}
		cr_expect_eq(n, 2, "code %u: the Send went out %u times", tmo, n);
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 64);
		expect_no_cpl(&p, b->cq, 2000);
		loss_close(&p);
	}
}

/* ---- one frame dropped ------------------------------------------------------------------------ */

/*
 * A: a 3-packet Send (MTU 1024), a 3-packet Write, a 1-packet Send, from PSN 0xFFFFFD; packet
 * `pkt` of message `msg` is dropped, its first transmission (or, with ack, the ACK of the
 * message). Everything arrives once, intact, every request completes SUCCESS once and in order,
 * B sends at most one sequence NAK, and the first retransmission is of the dropped packet's PSN
 * with its opcode (a FIRST, MIDDLE or LAST: the replay goes on from the first packet not
 * acknowledged, a Write's MIDDLE / LAST without a RETH); with ack, of the message's first PSN.
 */
static void drop_one(unsigned msg, unsigned pkt, bool ack)
{
	const uint32_t a_psn = 0xFFFFFD;
	/* the messages' first PSNs */
	const uint32_t first[4] = { 0, a_psn, (a_psn + 3) & 0xFFFFFF, (a_psn + 6) & 0xFFFFFF };
	const uint32_t last[4] = { 0, (a_psn + 2) & 0xFFFFFF, (a_psn + 5) & 0xFFFFFF,
				   (a_psn + 6) & 0xFFFFFF };
	cr_assert(msg >= 1 && msg <= 3 && pkt >= 1 && pkt <= 3);
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
	uint8_t retx_op = 0;
	for (unsigned i = 0; i < g_loss.ntx[0]; i++) {
		const struct tx *t = &g_loss.tx[0][i];
		if (t->dest_qp != b_qpn)
			continue;
		if (t->psn != next) {
			retx = t->psn;
			retx_op = t->opcode;
			break;
		}
		next = (next + 1) & 0xFFFFFF;
	}
	uint32_t want = ack ? first[msg] : (first[msg] + pkt - 1) & 0xFFFFFF;
	cr_expect_eq(retx, want, "the retransmission starts at PSN 0x%06x, want 0x%06x", retx,
		     want);
	if (!ack && msg <= 2) {
		/* 3-packet messages: the dropped packet's own opcode */
		static const uint8_t ops[3][4] = {
			{ 0 },
			{ 0, ROCE_OP_SEND_FIRST, ROCE_OP_SEND_MIDDLE, ROCE_OP_SEND_LAST },
			{ 0, ROCE_OP_WRITE_FIRST, ROCE_OP_WRITE_MIDDLE, ROCE_OP_WRITE_LAST },
		};
		cr_expect_eq(retx_op, ops[msg][pkt],
			     "the retransmission's opcode 0x%02x, want 0x%02x", retx_op,
			     ops[msg][pkt]);
	}
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

/* ---- Reads under loss (docs/transport.md "Retransmission": implied NAKs, the responder's saved
 * Reads) --------------------------------------------------------------------------------------- */

/*
 * What the Read tests drop, by bit masks of transmissions (bit t-1: transmission t): A's Read
 * request, response packet k (1..3) of B's first response message, the Write's packet k (1..3),
 * B's first sequence NAK, B's first ACK of a PSN. The hook also models B's expected PSN over the
 * request frames it delivers (a Read takes its responses' PSNs) and counts what the port
 * counters must show: A's packets sent again, B's requests ahead of / behind its PSN, the
 * sequence NAKs delivered to A.
 */
struct rdloss {
	struct roce_track *track;
	uint32_t a_qpn, b_qpn;
	unsigned req_mask, resp_mask[4], write_mask[4];
	unsigned write_msg; /* the message number of the Write write_mask names */
	bool drop_nak;
	bool drop_ack;
	uint32_t drop_ack_psn;
	unsigned dropped;
	uint32_t epsn;	  /* B's expected PSN, as modelled */
	unsigned log_mtu; /* for a Read's PSN count */
	unsigned retx;	  /* A -> B request frames that are not their PSN's first transmission,
			      or a Read request from a later response of a Read sent before */
	uint32_t rd_first, rd_n; /* the PSNs of the last Read request first sent */
	unsigned ooo, dup;	 /* delivered to B ahead of / behind epsn */
	unsigned seq_naks;	 /* B's sequence NAKs delivered to A */
	/* the frames each NIC sent to the other's QP, in order */
	struct tx tx[2][MAX_TX];
	unsigned ntx[2];
	/* B's responses seen after `capture` is set: payload per PSN offset from cap_psn */
	bool capture;
	uint32_t cap_psn;
	uint8_t cap[4][1024];
	unsigned cap_len[4], cap_n[4];
	uint8_t cap_op[4];
	/* A's first Read request, Write and Send as first sent (for crafted duplicates) */
	bool have_req, have_write, have_send, have_first;
	uint8_t first_frame[1200]; /* B's first READ_RESPONSE_FIRST */
	size_t first_len;
	unsigned resp_seen; /* B's read responses that went through the hook */
	uint8_t req_frame[256], write_frame[512], send_frame[512];
	size_t req_len, write_len, send_len;
};

static struct rdloss g_rd;

static bool bit_of(unsigned mask, unsigned transmission)
{
	return transmission >= 1 && transmission <= 8 && (mask >> (transmission - 1)) & 1u;
}

static enum ndk_sim_fault on_rd_fault(void *arg, unsigned from, unsigned to, const uint8_t *frame,
				      size_t len)
{
	struct rdloss *l = arg;
	struct roce_frame f;
	if (!roce_track_frame(l->track, from, to, frame, len, &f))
		return NDK_SIM_FRAME_DELIVER;
	bool drop = false;
	if (from == 0 && f.dest_qp == l->b_qpn) {
		if (f.opcode == ROCE_OP_READ_REQUEST) {
			/* a Read asked for again from a later response: a new PSN on the stream, but
			   the request is sent again (A's counter counts it) */
			uint32_t dl = f.fields.reth_dma_len;
			uint32_t n = (dl + (1u << l->log_mtu) - 1) >> l->log_mtu;
			if (f.transmission == 1 && l->rd_n &&
			    ((f.psn - l->rd_first) & 0xFFFFFF) < l->rd_n)
				l->retx++;
			else if (f.transmission == 1) {
				l->rd_first = f.psn;
				l->rd_n = n ? n : 1;
			}
		}
		if (f.transmission > 1)
			l->retx++;
		if (f.opcode == ROCE_OP_READ_REQUEST) {
			if (!l->have_req && len <= sizeof(l->req_frame)) {
				memcpy(l->req_frame, frame, len);
				l->req_len = len;
				l->have_req = true;
			}
			drop = bit_of(l->req_mask, f.transmission);
		}
		if (f.opcode == ROCE_OP_WRITE_ONLY && !l->have_write &&
		    len <= sizeof(l->write_frame)) {
			memcpy(l->write_frame, frame, len);
			l->write_len = len;
			l->have_write = true;
		}
		if (f.opcode == ROCE_OP_SEND_ONLY && !l->have_send &&
		    len <= sizeof(l->send_frame)) {
			memcpy(l->send_frame, frame, len);
			l->send_len = len;
			l->have_send = true;
		}
		if (roce_track_is_write(f.opcode) && f.message == l->write_msg && f.packet >= 1 &&
		    f.packet <= 3)
			drop = bit_of(l->write_mask[f.packet], f.transmission);
		if (!drop) {
			/* B's expected PSN, modelled */
			if (f.psn == l->epsn) {
				uint32_t n = 1;
				if (f.opcode == ROCE_OP_READ_REQUEST) {
					uint32_t dl = f.fields.reth_dma_len;
					n = (dl + (1u << l->log_mtu) - 1) >> l->log_mtu;
					n = n ? n : 1;
				}
				l->epsn = (l->epsn + n) & 0xFFFFFF;
			} else if (((l->epsn - 1 - f.psn) & 0x800000) == 0) {
				l->dup++;
			} else {
				l->ooo++;
			}
		}
	}
	if (from == 1 && f.dest_qp == l->a_qpn) {
		if (roce_track_is_read_response(f.opcode))
			l->resp_seen++;
		if (f.opcode == ROCE_OP_READ_RESPONSE_FIRST && !l->have_first &&
		    len <= sizeof(l->first_frame)) {
			memcpy(l->first_frame, frame, len);
			l->first_len = len;
			l->have_first = true;
		}
		if (roce_track_is_read_response(f.opcode) && f.message == 1 && f.packet >= 1 &&
		    f.packet <= 3)
			drop = bit_of(l->resp_mask[f.packet], f.transmission);
		if (f.opcode == ROCE_OP_ACKNOWLEDGE && f.fields.aeth_syndrome == 0x60 &&
		    l->drop_nak) {
			l->drop_nak = false;
			drop = true;
		}
		if (f.opcode == ROCE_OP_ACKNOWLEDGE && (f.fields.aeth_syndrome & 0xE0) == 0 &&
		    l->drop_ack && f.psn == l->drop_ack_psn) {
			l->drop_ack = false;
			drop = true;
		}
		if (!drop && f.opcode == ROCE_OP_ACKNOWLEDGE && f.fields.aeth_syndrome == 0x60)
			l->seq_naks++;
	}
	if (drop) {
		l->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	return NDK_SIM_FRAME_DELIVER;
}

static void on_rd_frame(void *ctx, enum nicsim_frame_event what, unsigned nic, uint64_t cycle,
			const uint8_t *bytes, size_t len)
{
	struct rdloss *l = ctx;
	struct roce_ref_fields f;
	if (what != NICSIM_FRAME_SENT || nic >= 2)
		return;
	if (roce_ref_parse(bytes, len, &f) != ROCE_REF_OK)
		return;
	if (l->capture && nic == 1 && f.dest_qp == l->a_qpn && f.opcode >= 0x0d &&
	    f.opcode <= 0x10) {
		uint32_t k = (f.psn - l->cap_psn) & 0xFFFFFF;
		if (k < 4 && f.payload_len <= sizeof(l->cap[k])) {
			memcpy(l->cap[k], f.payload, f.payload_len);
			l->cap_len[k] = (unsigned)f.payload_len;
			l->cap_op[k] = f.opcode;
			l->cap_n[k]++;
		}
	}
	if (l->ntx[nic] >= MAX_TX || f.dest_qp != (nic ? l->a_qpn : l->b_qpn))
		return;
	struct tx *t = &l->tx[nic][l->ntx[nic]++];
	t->cycle = cycle;
	t->opcode = f.opcode;
	t->dest_qp = f.dest_qp;
	t->psn = f.psn;
	t->syndrome = f.aeth_syndrome;
	t->reth_va = f.reth_va;
	t->reth_dma_len = f.reth_dma_len;
}

static void rd_open(struct pair *p, uint32_t a_psn)
{
	loss_open(p, 3, 7, a_psn, 0x123456);
	ndk_sim_set_fault_hook(p->sim, NULL, NULL);
	nicsim_set_frame_handler(p->sim->world, NULL, NULL);
	roce_track_free(g_loss.track);
	g_loss.track = NULL;
	memset(&g_rd, 0, sizeof(g_rd));
	g_rd.track = roce_track_new();
	cr_assert_not_null(g_rd.track);
	g_rd.a_qpn = wire_qpn(p->s[0].qp);
	g_rd.b_qpn = wire_qpn(p->s[1].qp);
	g_rd.epsn = a_psn;
	g_rd.log_mtu = 10; /* the default path MTU, 1024 */
	ndk_sim_set_fault_hook(p->sim, on_rd_fault, &g_rd);
	nicsim_set_frame_handler(p->sim->world, on_rd_frame, &g_rd);
}

static void rd_close(struct pair *p)
{
	ndk_sim_set_fault_hook(p->sim, NULL, NULL);
	nicsim_set_frame_handler(p->sim->world, NULL, NULL);
	roce_track_free(g_rd.track);
	pair_close(p);
}

static struct ndk_port_counters port_counters(struct side *s)
{
	struct ndk_port_counters c;
	cr_assert_eq(ndk_query_port_counters(s->ad, &c), NDK_STATUS_SUCCESS);
	return c;
}

/* the port counters against what the hook saw: A's packets sent again, B's requests ahead of /
   behind its PSN, sequence NAKs, implied NAKs (as the scenario expects) */
static void rd_reconcile(struct side *a, struct side *b, unsigned implied)
{
	struct ndk_port_counters ca = port_counters(a), cb = port_counters(b);
	cr_expect_eq(ca.retransmitted_packets, g_rd.retx, "A retransmitted %" PRIu64 ", saw %u",
		     ca.retransmitted_packets, g_rd.retx);
	cr_expect_eq(cb.out_of_sequence, g_rd.ooo, "B out_of_sequence %" PRIu64 ", saw %u",
		     cb.out_of_sequence, g_rd.ooo);
	cr_expect_eq(cb.duplicate_requests, g_rd.dup, "B duplicate_requests %" PRIu64 ", saw %u",
		     cb.duplicate_requests, g_rd.dup);
	cr_expect_eq(ca.seq_naks_received, g_rd.seq_naks, "A seq_naks_received %" PRIu64 ", saw %u",
		     ca.seq_naks_received, g_rd.seq_naks);
	cr_expect_eq(ca.implied_naks, implied, "A implied_naks %" PRIu64 ", want %u",
		     ca.implied_naks, implied);
	cr_expect_eq(cb.retransmitted_packets + cb.implied_naks + cb.local_ack_timeouts, 0);
	cr_expect_eq(ca.out_of_sequence + ca.duplicate_requests, 0);
	cr_log_info("loss: counters A: %" PRIu64 " retransmitted, %" PRIu64
		    " ACK timeouts, %" PRIu64 " implied NAKs, %" PRIu64
		    " seq NAKs received; B: %" PRIu64 " out of sequence, %" PRIu64 " duplicates",
		    ca.retransmitted_packets, ca.local_ack_timeouts, ca.implied_naks,
		    ca.seq_naks_received, cb.out_of_sequence, cb.duplicate_requests);
}

/*
 * A (from PSN 0xFFFFFD): a 1-packet Write, a 3-packet Read of 2500 bytes (MTU 1024) into two
 * sink SGEs, a 1-packet Send; the Read's PSNs 0xFFFFFE, 0xFFFFFF, 0x000000 cross the wrap. The
 * frames the masks name are dropped. Every request completes SUCCESS once and in order, every
 * byte of the sink is the source's (the bytes around it untouched), the Write's bytes and the
 * Send's are right and B received the Send once; B sent at most one sequence NAK; A's first
 * retransmission starts at want_retx (0xFFFFFFFF: none). When a response was lost, A asks for
 * the Read again from its first response not placed (want_retx): the request's PSN, its RETH's
 * VA advanced and its length shortened by the 1024-byte responses before it, and B answers with
 * a READ_RESPONSE_FIRST (or ONLY) at that PSN that A places where the Read stopped. The port
 * counters reconcile with the hook (implied: the implied NAKs A must count).
 */
static void read_loss(void (*setup)(void), uint32_t want_retx, unsigned implied)
{
	const uint32_t a_psn = 0xFFFFFD, rd_psn = 0xFFFFFE;
	struct pair p;
	rd_open(&p, a_psn);
	struct side *a = &p.s[0], *b = &p.s[1];
	setup();
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 16384, 41);
	memset(src + 8192, 0xEE, 8192);
	memset(dst, 0xEE, 16384);
	struct region w_reg, r_reg;
	side_region(&p, b, &w_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	side_region(&p, b, &r_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	memset(w_reg.buf.va, 0x5A, NDK_PAGE_SIZE);
	fill(r_reg.buf.va, NDK_PAGE_SIZE, 77);
	struct ndk_sge rcv = sge_of(b, 0, 4096);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);

	struct ndk_sge w = sge_of(a, 0, 700), s = sge_of(a, 1024, 33);
	struct ndk_sge sink[2] = { sge_of(a, 8192, 1000), sge_of(a, 12288, 1500) };
	cr_assert_eq(ndk_write(a->qp, CTX(10), &w, 1, (uint64_t)(uintptr_t)w_reg.buf.va,
			       ndk_get_remote_token_from_mr(w_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_read(a->qp, CTX(11), sink, 2, (uint64_t)(uintptr_t)r_reg.buf.va,
			      ndk_get_remote_token_from_mr(r_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(12), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(12), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 33);
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);

	const uint8_t *rsrc = r_reg.buf.va;
	cr_expect(memcmp(a->buf.va + 8192, rsrc, 1000) == 0, "the Read's first SGE differs");
	cr_expect(memcmp(a->buf.va + 12288, rsrc + 1000, 1500) == 0,
		  "the Read's second SGE differs");
	cr_expect_eq(((uint8_t *)a->buf.va)[8192 + 1000], 0xEE);
	cr_expect_eq(((uint8_t *)a->buf.va)[12287], 0xEE);
	cr_expect_eq(((uint8_t *)a->buf.va)[12288 + 1500], 0xEE);
	cr_expect(memcmp(src, w_reg.buf.va, 700) == 0, "the Write's bytes differ");
	cr_expect_eq(((uint8_t *)w_reg.buf.va)[700], 0x5A);
	cr_expect(memcmp(src + 1024, dst, 33) == 0, "the Send's bytes differ");
	cr_expect_eq(dst[33], 0xEE);

	unsigned naks = 0;
	for (unsigned i = 0; i < g_rd.ntx[1]; i++)
		naks += g_rd.tx[1][i].opcode == ROCE_OP_ACKNOWLEDGE &&
			g_rd.tx[1][i].syndrome == 0x60;
	cr_expect_leq(naks, 1, "B sent %u sequence NAKs", naks);
	/* A's first retransmission: the first frame whose PSN breaks the sequence (a Read takes
	   three PSNs) */
	uint32_t next = a_psn, retx = 0xFFFFFFFF;
	for (unsigned i = 0; i < g_rd.ntx[0]; i++) {
		const struct tx *t = &g_rd.tx[0][i];
		if (t->psn != next) {
			retx = t->psn;
			break;
		}
		next = (next + (t->opcode == ROCE_OP_READ_REQUEST ? 3 : 1)) & 0xFFFFFF;
	}
	cr_expect_geq(g_rd.dropped, 1, "nothing was dropped");
	cr_expect_eq(retx, want_retx, "A's retransmission starts at PSN 0x%06x, want 0x%06x", retx,
		     want_retx);
	bool resp_lost = g_rd.resp_mask[1] | g_rd.resp_mask[2] | g_rd.resp_mask[3];
	uint32_t skip = (want_retx - rd_psn) & 0xFFFFFF;
	if (want_retx != 0xFFFFFFFF && skip < 3) {
		/* A asked for the Read again from want_retx: PSN, VA and length advanced past the
		   responses placed (every re-request of it, the first one at least) */
		unsigned reqs = 0, bad = 0;
		for (unsigned i = 0; i < g_rd.ntx[0]; i++) {
			const struct tx *t = &g_rd.tx[0][i];
			if (t->opcode != ROCE_OP_READ_REQUEST)
				continue;
			uint32_t k = (t->psn - rd_psn) & 0xFFFFFF;
			reqs++;
			bad += k >= 3 ||
			       t->reth_va !=
				       (uint64_t)(uintptr_t)r_reg.buf.va + ((uint64_t)k << 10) ||
			       t->reth_dma_len != 2500 - (k << 10);
			if (reqs == 2)
				cr_expect_eq(
					t->psn, want_retx,
					"A's Read request sent again at PSN 0x%06x, want 0x%06x",
					t->psn, want_retx);
		}
		cr_expect_eq(bad, 0, "%u Read requests with a RETH that does not match their PSN",
			     bad);
		cr_expect_geq(reqs, 2, "A sent the Read request %u times", reqs);
		/* B answered from there: a READ_RESPONSE_FIRST / ONLY at want_retx (for the Read's
		   first PSN, a second one) */
		unsigned firsts = 0;
		for (unsigned i = 0; i < g_rd.ntx[1]; i++)
			firsts += (g_rd.tx[1][i].opcode == ROCE_OP_READ_RESPONSE_FIRST ||
				   g_rd.tx[1][i].opcode == ROCE_OP_READ_RESPONSE_ONLY) &&
				  g_rd.tx[1][i].psn == want_retx;
		if (resp_lost)
			cr_expect_geq(firsts, skip == 0 ? 2 : 1,
				      "B sent a first response at PSN 0x%06x %u times", want_retx,
				      firsts);
	}
	cr_log_info("loss: %u frames dropped, %u NAKs, retransmission from 0x%06x", g_rd.dropped,
		    naks, retx);
	rd_reconcile(a, b, implied);
	side_region_free(&p, b, &w_reg);
	side_region_free(&p, b, &r_reg);
	rd_close(&p);
}

static void drop_read_request(void)
{
	g_rd.req_mask = 1;
}
static void drop_resp_first(void)
{
	g_rd.resp_mask[1] = 1;
}
static void drop_resp_middle(void)
{
	g_rd.resp_mask[2] = 1;
}
static void drop_resp_last(void)
{
	g_rd.resp_mask[3] = 1;
}
static void drop_resp_all(void)
{
	g_rd.resp_mask[1] = g_rd.resp_mask[2] = g_rd.resp_mask[3] = 1;
}
static void drop_resp_middle_twice(void)
{
	g_rd.resp_mask[2] = 3; /* its first and its second transmission */
}
static void drop_request_and_nak(void)
{
	g_rd.req_mask = 1;
	g_rd.drop_nak = true;
}
static void drop_write_ack(void)
{
	g_rd.drop_ack = true;
	g_rd.drop_ack_psn = 0xFFFFFD;
}
static void drop_send_ack(void)
{
	g_rd.drop_ack = true;
	g_rd.drop_ack_psn = 0x000001;
}

/* the Read request lost: the Send after it draws a sequence NAK of the Read's PSN */
Test(loss, a_dropped_read_request)
{
	read_loss(drop_read_request, 0xFFFFFE, 0);
}

/* a response lost: the next one (or the Send's ACK, for the last) skips it: an implied NAK, the
   Read asked for again from the lost response on (the first: whole), its placement going on
   where it stopped */
Test(loss, a_dropped_read_response_first)
{
	read_loss(drop_resp_first, 0xFFFFFE, 1);
}

Test(loss, a_dropped_read_response_middle)
{
	read_loss(drop_resp_middle, 0xFFFFFF, 1);
}

Test(loss, a_dropped_read_response_last)
{
	read_loss(drop_resp_last, 0x000000, 1);
}

/* every response lost: the Send's ACK covers the Read, which must not complete without its
   data: an implied NAK */
Test(loss, every_read_response_dropped_the_ack_is_an_implied_nak)
{
	read_loss(drop_resp_all, 0xFFFFFE, 1);
}

/* the middle response lost twice: the first loss is an implied NAK, the Read is asked for again
   from that response; its answer's first response is lost again and nothing was placed since
   (one implied NAK per gap): the ACK timer asks for it again, from the same response */
Test(loss, a_read_response_dropped_twice)
{
	read_loss(drop_resp_middle_twice, 0xFFFFFF, 1);
}

/* the Read request and the sequence NAK it draws lost: the ACK timer resends */
Test(loss, a_dropped_read_request_and_its_nak)
{
	read_loss(drop_request_and_nak, 0xFFFFFE, 0);
}

/* the Write's ACK lost: the Read's responses acknowledge it; nothing is sent again */
Test(loss, a_dropped_ack_before_a_read)
{
	read_loss(drop_write_ack, 0xFFFFFFFF, 0);
}

/* the Send's ACK lost: the timer sends the Send again, B acknowledges the duplicate */
Test(loss, a_dropped_ack_after_a_read)
{
	read_loss(drop_send_ack, 0x000001, 0);
}

/*
 * A fatal NAK over a Read not placed: A's 3-packet Read (its responses all lost) and then a
 * Write with a bad remote token. B answers the Read (lost), NAKs the Write "remote access error"
 * and its QP goes to error. The NAK skips the unplaced Read: it is not an implied NAK (B would
 * answer a Read sent again with nothing, and the Read would end IO_TIMEOUT after every retry):
 * the Read completes with the NAK's status, at once, nothing is sent again, the Write and a Send
 * behind it complete CANCELLED, and B's receive CANCELLED. The bytes of the sink stay untouched.
 */
Test(loss, a_fatal_nak_over_an_unplaced_read_fails_it_with_the_naks_status)
{
	const uint32_t a_psn = 0xFFFFFD;
	struct pair p;
	rd_open(&p, a_psn);
	struct side *a = &p.s[0], *b = &p.s[1];
	drop_resp_all();
	memset(a->buf.va, 0xEE, 16384);
	struct region r_reg;
	side_region(&p, b, &r_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	fill(r_reg.buf.va, NDK_PAGE_SIZE, 77);
	struct ndk_sge rcv = sge_of(b, 0, 64);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge sink = sge_of(a, 8192, 2500), w = sge_of(a, 0, 100);
	uint64_t t0 = ndk_sim_cycle(p.sim);
	cr_assert_eq(ndk_read(a->qp, CTX(10), &sink, 1, (uint64_t)(uintptr_t)r_reg.buf.va,
			      ndk_get_remote_token_from_mr(r_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(a->qp, CTX(11), &w, 1, 0x10000, 0x00001234u, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(12), &w, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_READ, CTX(10), 0);
	uint64_t took = ndk_sim_cycle(p.sim) - t0;
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(12), 0);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(1), 0);
	expect_no_cpl(&p, a->cq, 5000);
	/* well inside one ACK timeout (ack_timeout 3: 32.8 us = 8192 cycles): nothing waited for a
	   retry */
	cr_expect_lt(took, 8192, "the Read failed %" PRIu64 " cycles after the post", took);
	unsigned reqs = 0;
	for (unsigned i = 0; i < g_rd.ntx[0]; i++)
		reqs += g_rd.tx[0][i].opcode == ROCE_OP_READ_REQUEST;
	cr_expect_eq(reqs, 1, "A sent the Read request %u times", reqs);
	cr_expect_eq(g_rd.retx, 0, "A sent %u packets again", g_rd.retx);
	for (unsigned i = 0; i < 2500; i++)
		if (((uint8_t *)a->buf.va)[8192 + i] != 0xEE) {
			cr_expect_fail("the sink was written at byte %u", i);
			break;
		}
	struct ndk_port_counters ca = port_counters(a);
	cr_expect_eq(ca.implied_naks, 0, "A implied_naks %" PRIu64, ca.implied_naks);
	cr_log_info("loss: the Read failed ACCESS_VIOLATION %" PRIu64 " cycles after the post",
		    took);
	side_region_free(&p, b, &r_reg);
	rd_close(&p);
}

static bool half_the_responses_seen(void *arg)
{
	(void)arg;
	return g_rd.resp_seen >= 4;
}

/*
 * A late copy of a Read's READ_RESPONSE_FIRST (a duplicate the network delivered late, or the
 * answer to an earlier transmission) arrives while the Read is half placed: it is a duplicate
 * and dropped. (It once started the Read's placement over, so the next real response looked
 * like a gap: an implied NAK and a Read asked for again with nothing lost.) A: an 8-response
 * Read (8 KiB); after B's 4th response went through, B's FIRST is put on B's port again. The
 * Read completes SUCCESS with every byte right, A counts no implied NAK and sends nothing again.
 */
Test(loss, a_late_first_response_of_a_half_placed_read_is_a_duplicate)
{
	const uint32_t a_psn = 0xFFFFFD;
	struct pair p;
	rd_open(&p, a_psn);
	struct side *a = &p.s[0], *b = &p.s[1];
	memset(a->buf.va, 0xEE, 16384);
	struct region r_reg;
	side_region(&p, b, &r_reg, 2, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	fill(r_reg.buf.va, 2 * NDK_PAGE_SIZE, 91);
	struct ndk_sge sink = sge_of(a, 4096, 8192);
	cr_assert_eq(ndk_read(a->qp, CTX(10), &sink, 1, (uint64_t)(uintptr_t)r_reg.buf.va,
			      ndk_get_remote_token_from_mr(r_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert(ndk_sim_run_until(p.sim, half_the_responses_seen, NULL, 100000));
	cr_assert(g_rd.have_first);
	cr_assert_eq(nicsim_port_inject(p.sim->world, 1, g_rd.first_frame, g_rd.first_len), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(10), 0);
	expect_no_cpl(&p, a->cq, 5000);
	cr_expect(memcmp((uint8_t *)a->buf.va + 4096, r_reg.buf.va, 8192) == 0,
		  "the Read's bytes differ");
	cr_expect_eq(((uint8_t *)a->buf.va)[4095], 0xEE);
	cr_expect_eq(((uint8_t *)a->buf.va)[4096 + 8192], 0xEE);
	cr_expect_eq(g_rd.resp_seen, 9, "%u responses went through the hook", g_rd.resp_seen);
	struct ndk_port_counters ca = port_counters(a);
	cr_expect_eq(ca.implied_naks, 0, "A implied_naks %" PRIu64, ca.implied_naks);
	cr_expect_eq(ca.retransmitted_packets, 0, "A retransmitted %" PRIu64,
		     ca.retransmitted_packets);
	cr_expect_eq(g_rd.retx, 0, "A sent %u packets again", g_rd.retx);
	side_region_free(&p, b, &r_reg);
	rd_close(&p);
}

/* B's responses captured since cap_reset, by PSN from cap_psn */
static void cap_reset(uint32_t psn)
{
	g_rd.capture = true;
	g_rd.cap_psn = psn;
	memset(g_rd.cap_len, 0, sizeof(g_rd.cap_len));
	memset(g_rd.cap_n, 0, sizeof(g_rd.cap_n));
	memset(g_rd.cap_op, 0, sizeof(g_rd.cap_op));
}

/* A's saved Read request again, from `skip` responses on (PSN, VA and length advanced as the IBA
   lets a requester resume a Read), on A's port as if A had sent it */
static void inject_read(struct pair *p, unsigned skip)
{
	struct roce_ref_fields f;
	cr_assert(g_rd.have_req);
	cr_assert_eq(roce_ref_parse(g_rd.req_frame, g_rd.req_len, &f), ROCE_REF_OK);
	f.psn = (f.psn + skip) & 0xFFFFFF;
	f.reth_va += (uint64_t)skip << g_rd.log_mtu;
	f.reth_dma_len -= skip << g_rd.log_mtu;
	uint8_t frame[256];
	size_t n = roce_ref_build(&f, frame, sizeof(frame));
	cr_assert_gt(n, 0);
	cr_assert_eq(nicsim_port_inject(p->sim->world, 0, frame, n), 0);
}

/*
 * Duplicates that arrive after everything completed, injected on A's port as A's own frames: a
 * Read request again whole and from its second response on (B answers each from its saved Read,
 * the same bytes, FIRST..LAST from the duplicate's PSN), a Write again over memory B changed
 * meanwhile (not executed again: the memory keeps B's bytes; B acknowledges it again with its
 * last PSN), a Send again (it does not consume B's next receive). B's expected PSN does not move
 * back: a new Send and a new Read afterwards complete, and B's counters show 3 duplicates.
 */
Test(loss, duplicate_requests_are_answered_again_not_executed_again)
{
	const uint32_t a_psn =
		0xFFFFFD; /* Write 0xFFFFFD, Read 0xFFFFFE..0x000000, Send 0x000001 */
	const uint32_t rd_psn = 0xFFFFFE;
	struct pair p;
	rd_open(&p, a_psn);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 8192, 5);
	memset(src + 8192, 0xEE, 8192);
	memset(dst, 0xEE, 16384);
	struct region w_reg, r_reg;
	side_region(&p, b, &w_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	side_region(&p, b, &r_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	fill(r_reg.buf.va, NDK_PAGE_SIZE, 99);
	const uint8_t *rsrc = r_reg.buf.va;
	struct ndk_sge r1 = sge_of(b, 0, 4096), r2 = sge_of(b, 4096, 4096);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(b->qp, CTX(2), &r2, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge w = sge_of(a, 0, 300), s = sge_of(a, 1024, 40);
	struct ndk_sge sink = sge_of(a, 8192, 2500);
	const uint64_t rva = (uint64_t)(uintptr_t)r_reg.buf.va;
	const uint32_t rkey = ndk_get_remote_token_from_mr(r_reg.mr);
	cr_assert_eq(ndk_write(a->qp, CTX(10), &w, 1, (uint64_t)(uintptr_t)w_reg.buf.va,
			       ndk_get_remote_token_from_mr(w_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_read(a->qp, CTX(11), &sink, 1, rva, rkey, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(12), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(12), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 40);
	cr_expect(memcmp(src + 8192, rsrc, 2500) == 0, "the Read's bytes differ");

	/* the Read again, whole: three responses from its first PSN, the same bytes */
	cap_reset(rd_psn);
	inject_read(&p, 0);
	expect_no_cpl(&p, a->cq, 5000);
	static const uint8_t ops[3] = { ROCE_OP_READ_RESPONSE_FIRST, ROCE_OP_READ_RESPONSE_MIDDLE,
					ROCE_OP_READ_RESPONSE_LAST };
	static const unsigned lens[3] = { 1024, 1024, 452 };
	for (unsigned k = 0; k < 3; k++) {
		cr_expect_eq(g_rd.cap_n[k], 1, "whole: response %u sent %u times", k,
			     g_rd.cap_n[k]);
		cr_expect_eq(g_rd.cap_op[k], ops[k], "whole: response %u opcode 0x%02x", k,
			     g_rd.cap_op[k]);
		cr_expect_eq(g_rd.cap_len[k], lens[k]);
		cr_expect(memcmp(g_rd.cap[k], rsrc + 1024 * k, lens[k]) == 0,
			  "whole: response %u's bytes differ", k);
	}
	/* from its second response on (PSN 0xFFFFFF, across the wrap): two responses, FIRST and
	   LAST, the source's bytes from 1024 on */
	cap_reset(rd_psn);
	inject_read(&p, 1);
	expect_no_cpl(&p, a->cq, 5000);
	cr_expect_eq(g_rd.cap_n[0], 0, "partial: the first response was sent");
	cr_expect_eq(g_rd.cap_n[1], 1);
	cr_expect_eq(g_rd.cap_n[2], 1);
	cr_expect_eq(g_rd.cap_op[1], ROCE_OP_READ_RESPONSE_FIRST);
	cr_expect_eq(g_rd.cap_op[2], ROCE_OP_READ_RESPONSE_LAST);
	cr_expect_eq(g_rd.cap_len[1], 1024);
	cr_expect_eq(g_rd.cap_len[2], 452);
	cr_expect(memcmp(g_rd.cap[1], rsrc + 1024, 1024) == 0, "partial: bytes differ");
	cr_expect(memcmp(g_rd.cap[2], rsrc + 2048, 452) == 0, "partial: bytes differ");
	g_rd.capture = false;

	/* the Write again over memory B changed: not executed again, acknowledged again */
	memset(w_reg.buf.va, 0x33, 300);
	unsigned acks = 0, before = g_rd.ntx[1];
	cr_assert(g_rd.have_write && g_rd.have_send);
	cr_assert_eq(nicsim_port_inject(p.sim->world, 0, g_rd.write_frame, g_rd.write_len), 0);
	/* the Send again: B's second receive stays posted */
	cr_assert_eq(nicsim_port_inject(p.sim->world, 0, g_rd.send_frame, g_rd.send_len), 0);
	expect_no_cpl(&p, b->cq, 5000);
	for (unsigned i = before; i < g_rd.ntx[1]; i++)
		acks += g_rd.tx[1][i].opcode == ROCE_OP_ACKNOWLEDGE &&
			(g_rd.tx[1][i].syndrome & 0xE0) == 0 && g_rd.tx[1][i].psn == 0x000001;
	cr_expect_eq(acks, 2, "B acknowledged the duplicates %u times with its last PSN", acks);
	for (unsigned i = 0; i < 300; i++)
		if (((uint8_t *)w_reg.buf.va)[i] != 0x33)
			cr_assert_fail("the duplicate Write overwrote byte %u", i);

	/* B's expected PSN did not move back: a new Send and a new Read complete */
	struct ndk_sge sink2 = sge_of(a, 12288, 100);
	cr_assert_eq(ndk_send(a->qp, CTX(13), &s, 1, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_read(a->qp, CTX(14), &sink2, 1, rva + 100, rkey, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(13), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(14), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 40);
	cr_expect(memcmp(src + 12288, rsrc + 100, 100) == 0, "the new Read's bytes differ");
	expect_no_cpl(&p, a->cq, 2000);
	const struct ndk_port_counters cb = port_counters(b);
	cr_expect_eq(cb.duplicate_requests, 4, "B duplicate_requests %" PRIu64,
		     cb.duplicate_requests);
	cr_expect_eq(cb.out_of_sequence, 0);
	side_region_free(&p, b, &w_reg);
	side_region_free(&p, b, &r_reg);
	rd_close(&p);
}

/*
 * A duplicate Read that arrives in the middle of a Write: A sends a 3-packet Read, a 3-packet
 * Write (3000 bytes) and a Send; every response of the Read and the Write's middle packet are
 * lost (first transmissions). B NAKs the Write's last packet (sequence error: it expects the
 * middle one); the NAK acknowledges the Read, which is not placed: an implied NAK, A replays
 * from the Read. B, in the middle of the Write, answers the duplicate Read from its saved Read,
 * drops the Write's first packet (a duplicate) and goes on with the Write's middle packet.
 * Every byte right, every request once and in order.
 */
static void drop_resp_all_and_write_middle(void)
{
	g_rd.resp_mask[1] = g_rd.resp_mask[2] = g_rd.resp_mask[3] = 1;
	g_rd.write_mask[2] = 1;
	g_rd.write_msg = 2; /* the Read is message 1 */
}

Test(loss, a_duplicate_read_in_the_middle_of_a_write)
{
	const uint32_t a_psn = 0xFFFFFE; /* Read 0xFFFFFE..0x000000, Write 0x000001..3, Send 4 */
	struct pair p;
	rd_open(&p, a_psn);
	struct side *a = &p.s[0], *b = &p.s[1];
	drop_resp_all_and_write_middle();
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 8192, 8);
	memset(src + 8192, 0xEE, 8192);
	memset(dst, 0xEE, 16384);
	struct region w_reg, r_reg;
	side_region(&p, b, &w_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	side_region(&p, b, &r_reg, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	memset(w_reg.buf.va, 0x5A, NDK_PAGE_SIZE);
	fill(r_reg.buf.va, NDK_PAGE_SIZE, 123);
	struct ndk_sge rcv = sge_of(b, 0, 4096);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge sink = sge_of(a, 8192, 2500), w = sge_of(a, 0, 3000),
		       s = sge_of(a, 4096, 64);
	cr_assert_eq(ndk_read(a->qp, CTX(11), &sink, 1, (uint64_t)(uintptr_t)r_reg.buf.va,
			      ndk_get_remote_token_from_mr(r_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(a->qp, CTX(12), &w, 1, (uint64_t)(uintptr_t)w_reg.buf.va,
			       ndk_get_remote_token_from_mr(w_reg.mr), 0),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(13), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(12), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(13), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 64);
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);
	cr_expect_eq(g_rd.dropped, 4, "%u frames dropped", g_rd.dropped);
	cr_expect(memcmp(src + 8192, r_reg.buf.va, 2500) == 0, "the Read's bytes differ");
	cr_expect_eq(src[8192 + 2500], 0xEE);
	cr_expect(memcmp(src, w_reg.buf.va, 3000) == 0, "the Write's bytes differ");
	cr_expect_eq(((uint8_t *)w_reg.buf.va)[3000], 0x5A);
	cr_expect(memcmp(src + 4096, dst, 64) == 0, "the Send's bytes differ");
	/* A's first retransmission is the Read's; B sent one sequence NAK */
	unsigned naks = 0;
	for (unsigned i = 0; i < g_rd.ntx[1]; i++)
		naks += g_rd.tx[1][i].opcode == ROCE_OP_ACKNOWLEDGE &&
			g_rd.tx[1][i].syndrome == 0x60;
	cr_expect_eq(naks, 1, "B sent %u sequence NAKs", naks);
	uint32_t next = a_psn, retx = 0xFFFFFFFF;
	for (unsigned i = 0; i < g_rd.ntx[0]; i++) {
		const struct tx *t = &g_rd.tx[0][i];
		if (t->psn != next) {
			retx = t->psn;
			break;
		}
		next = (next + (t->opcode == ROCE_OP_READ_REQUEST ? 3 : 1)) & 0xFFFFFF;
	}
	cr_expect_eq(retx, a_psn, "A's retransmission starts at PSN 0x%06x", retx);
	rd_reconcile(a, b, 1);
	side_region_free(&p, b, &w_reg);
	side_region_free(&p, b, &r_reg);
	rd_close(&p);
}

/* A's saved Send again with PSN psn, on A's port */
static void inject_send(struct pair *p, uint32_t psn)
{
	struct roce_ref_fields f;
	cr_assert(g_rd.have_send);
	cr_assert_eq(roce_ref_parse(g_rd.send_frame, g_rd.send_len, &f), ROCE_REF_OK);
	f.psn = psn & 0xFFFFFF;
	uint8_t frame[512];
	size_t n = roce_ref_build(&f, frame, sizeof(frame));
	cr_assert_gt(n, 0);
	cr_assert_eq(nicsim_port_inject(p->sim->world, 0, frame, n), 0);
}

/*
 * Packets ahead of B's expected PSN E (0x000000 after a Send from 0xFFFFFF): E + 5 draws one
 * sequence NAK naming E; E + 1 and E + 2^23 - 1 (the farthest ahead, across the wrap) are dropped
 * in silence; E + 2^23 is as far behind as ahead and, as in the IBA's and Linux's arithmetic
 * (psn_le), counts as behind: a duplicate, acknowledged with E - 1, not executed. None consumes a
 * receive. Then A's next Send, at E, is taken: B's PSN never moved.
 */
Test(loss, packets_ahead_draw_one_nak_then_silence_across_the_wrap)
{
	struct pair p;
	rd_open(&p, 0xFFFFFF);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 4096, 3);
	memset(dst, 0xEE, 8192);
	struct ndk_sge r1 = sge_of(b, 0, 4096), r2 = sge_of(b, 4096, 4096), s = sge_of(a, 0, 50);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(b->qp, CTX(2), &r2, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(10), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(10), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 50);
	const uint32_t e = 0x000000;
	const unsigned before = g_rd.ntx[1];
	const uint32_t ahead[4] = { e + 5, e + 1, e + 0x7FFFFF, e + 0x800000 };
	for (unsigned i = 0; i < 4; i++) {
		inject_send(&p, ahead[i]);
		ndk_sim_step(p.sim, 1500);
	}
	expect_no_cpl(&p, b->cq, 2000);
	unsigned naks = 0, acks = 0, other = 0;
	for (unsigned i = before; i < g_rd.ntx[1]; i++) {
		const struct tx *t = &g_rd.tx[1][i];
		if (t->opcode == ROCE_OP_ACKNOWLEDGE && t->syndrome == 0x60 && t->psn == e)
			naks++;
		else if (t->opcode == ROCE_OP_ACKNOWLEDGE && (t->syndrome & 0xE0) == 0 &&
			 t->psn == ((e - 1) & 0xFFFFFF))
			acks++;
		else
			other++;
	}
	cr_expect_eq(naks, 1, "B sent %u sequence NAKs of 0x%06x", naks, e);
	cr_expect_eq(acks, 1, "B acknowledged the one behind %u times", acks);
	cr_expect_eq(other, 0, "B sent %u other frames", other);
	const struct ndk_port_counters cb = port_counters(b);
	cr_expect_eq(cb.out_of_sequence, 3, "B out_of_sequence %" PRIu64, cb.out_of_sequence);
	cr_expect_eq(cb.duplicate_requests, 1, "B duplicate_requests %" PRIu64,
		     cb.duplicate_requests);
	cr_expect_eq(cb.seq_naks_sent, 1);
	/* the expected PSN is still E: A's next Send is taken, into the second receive */
	cr_assert_eq(ndk_send(a->qp, CTX(11), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(11), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 50);
	cr_expect(memcmp(src, dst + 4096, 50) == 0);
	expect_no_cpl(&p, b->cq, 2000);
	rd_close(&p);
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
 * again from its lost packet right after its last packet, long before the ACK timeout, and every
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
			/* from the lost packet on (the Send's second) */
			cr_expect_eq(t->psn, (send_psn + 1) & 0xFFFFFF,
				     "the retransmission starts at PSN 0x%06x, want 0x%06x", t->psn,
				     (send_psn + 1) & 0xFFFFFF);
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

/*
 * Without an ACK timer (ack_timeout 0) a lost answer leaves a request outstanding for ever, as the
 * IBA's code 0 says; it must not stop the NIC's other QPs. Every answer B sends to A's QP is
 * dropped and A posts 70 one-packet Writes: 64 fill its outstanding ring, the 65th waits at the
 * intake for room that never comes. A neighbouring connection on the same NICs then sends 8
 * Sends: they complete, in order, every byte right, while A's Writes stay outstanding (the
 * waiting WQE is deferred by ring index once it has waited with other work offered, and A's
 * later Writes join it; it once waited in front of the intake for ever, and no other QP of the
 * NIC got a request out). B holds the first 64 Writes' bytes and none of the other 6 (they never
 * left A). A flush of A then completes all 70 CANCELLED, in posting order, the deferred ones
 * after the outstanding ones.
 */
Test(loss, a_qp_waiting_for_ring_room_without_an_ack_timer_does_not_stop_the_other_qps)
{
	const unsigned n = 70, ring = 64, len = 512;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr);
	attr.ack_timeout = 0; /* no timer: nothing outstanding is ever sent again */
	attr.local_psn = 0xFFFFE0;
	attr.remote_psn = 0x000040;
	struct pair_opts o = { .attr = &attr, .sq_depth = 128, .cq_depth = 256 };
	struct pair p;
	pair_open_opts(&p, &c, &o);
	memset(&g_loss, 0, sizeof(g_loss));
	g_loss.track = roce_track_new();
	cr_assert_not_null(g_loss.track);
	ndk_sim_set_fault_hook(p.sim, on_fault, &g_loss);
	nicsim_set_frame_handler(p.sim->world, on_frame, &g_loss);
	struct side *a = &p.s[0], *b = &p.s[1];
	g_loss.drop_all_qp = wire_qpn(a->qp);

	/* the neighbour: its own QPs, PDs and CQs on the same two NICs */
	struct side n0 = { 0 }, n1 = { 0 };
	const struct pair_opts no = { 0 };
	side_open(&p, 0, &n0, a->ad, &no, 0);
	side_open(&p, 1, &n1, b->ad, &no, 1);
	qps_connect(n0.qp, n1.qp);

	struct region r;
	side_region(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *src = a->buf.va, *mem = r.buf.va;
	fill(src, n * len, 83);
	memset(mem, 0x5A, 16 * NDK_PAGE_SIZE);
	for (unsigned i = 0; i < n; i++) {
		struct ndk_sge w = sge_of(a, i * len, len);
		cr_assert_eq(ndk_write(a->qp, CTX(100 + i), &w, 1,
				       (uint64_t)(uintptr_t)mem + (uint64_t)i * len,
				       ndk_get_remote_token_from_mr(r.mr), 0),
			     NDK_STATUS_SUCCESS);
	}
	/* the ring's 64 Writes are out and their answers lost; the 65th waits for room */
	expect_no_cpl(&p, a->cq, 40000);
	cr_expect(memcmp(src, mem, ring * len) == 0, "the first %u Writes' bytes differ", ring);
	cr_expect(all_bytes(mem + ring * len, 0x5A, 16 * NDK_PAGE_SIZE - ring * len),
		  "a Write beyond A's outstanding ring reached B");

	uint8_t *nsrc = n0.buf.va, *ndst = n1.buf.va;
	fill(nsrc, 8 * 512, 19);
	memset(ndst, 0xEE, 8 * 512);
	for (unsigned i = 0; i < 8; i++) {
		struct ndk_sge nr = sge_of(&n1, i * 512, 512);
		cr_assert_eq(ndk_receive(n1.qp, CTX(300 + i), &nr, 1), NDK_STATUS_SUCCESS);
	}
	for (unsigned i = 0; i < 8; i++) {
		struct ndk_sge ns = sge_of(&n0, i * 512, 512);
		cr_assert_eq(ndk_send(n0.qp, CTX(200 + i), &ns, 1, 0), NDK_STATUS_SUCCESS);
	}
	for (unsigned i = 0; i < 8; i++) {
		expect_cpl(&p, &n0, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(200 + i), 0);
		expect_cpl(&p, &n1, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(300 + i), 512);
	}
	cr_expect(memcmp(nsrc, ndst, 8 * 512) == 0, "the neighbour's bytes differ");
	expect_no_cpl(&p, a->cq, 20000);
	cr_expect(all_bytes(mem + ring * len, 0x5A, 16 * NDK_PAGE_SIZE - ring * len),
		  "a Write beyond A's outstanding ring reached B");

	ndk_flush(a->qp);
	for (unsigned i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_WRITE, CTX(100 + i), 0);
	expect_no_cpl(&p, a->cq, 5000);

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

/*
 * A sequence NAK orders a go-back-N, and an ACK that covers the NAK's PSN comes before the replay
 * starts: A's Writes W1 (PSN 0xFFFFFE) and W2 (0xFFFFFF), then a 60-packet Send from 0x000000.
 * W2's packet is held back behind the Send's first, so B NAKs 0xFFFFFF, then takes W2 and
 * acknowledges it; B's NAK of the Send's first PSN (its next gap) is lost. The intake is still
 * packetising the Send when both answers arrive, so the replay the NAK ordered starts only after
 * the completer popped W2: it must start at the Send's first PSN, past what the ACK covered (it
 * once started at the NAK's PSN, found the Send beginning after it and failed it
 * INVALID_PARAMETER; the seeded runs met it at reorder and drop 1e-2). Every request completes
 * SUCCESS once, in order, the bytes right, the first retransmission at 0x000000.
 */
Test(loss, an_ack_after_a_sequence_nak_moves_the_pending_replay_past_it)
{
	const unsigned tmo = 4; /* 65.5 us: the NAK's replay, not the timer's, must do it */
	const uint32_t a_psn = 0xFFFFFE, w2_psn = 0xFFFFFF, send_psn = 0x000000;
	const uint32_t send_len = 60 * 1024; /* 60 packets at MTU 1024 */
	struct pair p;
	loss_open(&p, tmo, 7, a_psn, 0x333333);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp), b_qpn = wire_qpn(b->qp);
	g_loss.reorder_qp = b_qpn; /* W2's packet, behind the Send's first */
	g_loss.reorder_message = 2;
	g_loss.reorder_packet = 1;
	g_loss.drop_nak_of = true; /* B's NAK of the Send's first PSN */
	g_loss.drop_ack_qp = a_qpn;
	g_loss.drop_nak_psn = send_psn;
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, PAIR_BUF_BYTES, 61);
	memset(dst, 0xEE, PAIR_BUF_BYTES);
	memset(r.buf.va, 0x5A, NDK_PAGE_SIZE);
	struct ndk_sge rcv = sge_of(b, 0, PAIR_BUF_BYTES);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge w1 = sge_of(a, 0, 100), w2 = sge_of(a, 512, 100);
	struct ndk_sge s = sge_of(a, 1024, send_len);
	const uint32_t token = ndk_get_remote_token_from_mr(r.mr);
	const uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	cr_assert_eq(ndk_write(a->qp, CTX(10), &w1, 1, va, token, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(a->qp, CTX(11), &w2, 1, va + 512, token, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(12), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(11), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(12), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), send_len);
	expect_no_cpl(&p, a->cq, 5000);
	expect_no_cpl(&p, b->cq, 1000);
	cr_expect_eq(g_loss.reordered, 1, "%u frames reordered", g_loss.reordered);
	cr_expect_geq(g_loss.dropped, 1,
		      "B's NAK of 0x%06x was not dropped: the test does not "
		      "test what it says",
		      send_psn);
	cr_expect(memcmp(src + 1024, dst, send_len) == 0, "the Send's bytes differ");
	cr_expect(memcmp(src, r.buf.va, 100) == 0, "W1's bytes differ");
	cr_expect(memcmp(src + 512, (uint8_t *)r.buf.va + 512, 100) == 0, "W2's bytes differ");
	/* B NAKed W2's PSN, then acknowledged it */
	unsigned nak_at = 0, ack_at = 0;
	for (unsigned i = 0; i < g_loss.ntx[1]; i++) {
		const struct tx *t = &g_loss.tx[1][i];
		if (t->dest_qp != a_qpn || t->opcode != ROCE_OP_ACKNOWLEDGE || t->psn != w2_psn)
			continue;
		if (t->syndrome == 0x60 && !nak_at)
			nak_at = i + 1;
		else if ((t->syndrome & 0xE0) == 0 && !ack_at)
			ack_at = i + 1;
	}
	cr_expect(nak_at && ack_at > nak_at,
		  "B did not NAK then acknowledge 0x%06x (frames %u, %u): the test does not test "
		  "what it says",
		  w2_psn, nak_at, ack_at);
	/* A's first retransmission: the Send's first PSN */
	uint32_t next = a_psn;
	bool retx = false;
	for (unsigned i = 0; i < g_loss.ntx[0] && !retx; i++) {
		const struct tx *t = &g_loss.tx[0][i];
		if (t->dest_qp != b_qpn)
			continue;
		if (t->psn == next) {
			next = (next + 1) & 0xFFFFFF;
		} else {
			retx = true;
			cr_expect_eq(t->psn, send_psn,
				     "the retransmission starts at PSN 0x%06x, want 0x%06x", t->psn,
				     send_psn);
		}
	}
	cr_expect(retx, "the Send was never sent again");
	side_region_free(&p, b, &r);
	loss_close(&p);
}

/*
 * An ACK overtaken on the wire by a later one: 48 one-packet Writes from PSN 0xFFFFF0; B's ACKs
 * of the 2nd to the 46th are lost and its ACK of the 47th is held back behind that of the 48th.
 * So A takes the 48th's ACK, which covers 47 Writes, and while it is still completing them, the
 * 47th's. The older ACK acknowledges nothing new: the 48th Write completes (the completer once
 * took the older PSN as the PSN acknowledged, and the last Write waited for an ACK that never
 * came again; the ACK timer, with everything acknowledged, was disarmed: a hang the seeded
 * reorder runs met). Nothing is sent again.
 */
Test(loss, an_ack_overtaken_by_a_later_one_holds_no_completion_back)
{
	const unsigned n = 48, len = 64;
	const uint32_t a_psn = 0xFFFFF0;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	/* a short link: the held-back ACK follows the later one by little more than its own
	   length, not by a link's latency, while A completes the 47 Writes (at both widths) */
	c.link_ns = 20;
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr);
	attr.ack_timeout = 4; /* 65.5 us: far longer than the test */
	attr.retry_count = 7;
	attr.local_psn = a_psn;
	attr.remote_psn = 0x444444;
	struct pair_opts o = { .attr = &attr, .sq_depth = 128, .cq_depth = 256 };
	struct pair p;
	pair_open_opts(&p, &c, &o);
	memset(&g_loss, 0, sizeof(g_loss));
	g_loss.track = roce_track_new();
	cr_assert_not_null(g_loss.track);
	ndk_sim_set_fault_hook(p.sim, on_fault, &g_loss);
	nicsim_set_frame_handler(p.sim->world, on_frame, &g_loss);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint32_t a_qpn = wire_qpn(a->qp);
	g_loss.drop_ack_qp = a_qpn;
	g_loss.drop_ack_first = (a_psn + 1) & 0xFFFFFF; /* the ACKs of the 2nd to the 46th */
	g_loss.drop_ack_count = n - 3;
	g_loss.reorder_ack = true; /* the 47th's, behind the 48th's */
	g_loss.reorder_ack_psn = (a_psn + n - 2) & 0xFFFFFF;
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	uint8_t *src = a->buf.va, *mem = r.buf.va;
	fill(src, n * len, 67);
	memset(mem, 0x5A, NDK_PAGE_SIZE);
	const uint32_t token = ndk_get_remote_token_from_mr(r.mr);
	for (unsigned i = 0; i < n; i++) {
		struct ndk_sge w = sge_of(a, i * len, len);
		cr_assert_eq(ndk_write(a->qp, CTX(100 + i), &w, 1,
				       (uint64_t)(uintptr_t)mem + (uint64_t)i * len, token, 0),
			     NDK_STATUS_SUCCESS);
	}
	for (unsigned i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(100 + i), 0);
	expect_no_cpl(&p, a->cq, 5000);
	cr_expect_eq(g_loss.reordered, 1, "%u frames reordered", g_loss.reordered);
	cr_expect_eq(g_loss.dropped, n - 3, "%u frames dropped", g_loss.dropped);
	cr_expect(memcmp(src, mem, n * len) == 0, "the Writes' bytes differ");
	cr_expect(all_bytes(mem + n * len, 0x5A, NDK_PAGE_SIZE - n * len));
	/* B acknowledged each Write once, and nothing was sent again */
	unsigned acks = 0, retx = 0;
	for (unsigned i = 0; i < g_loss.ntx[1]; i++) {
		const struct tx *t = &g_loss.tx[1][i];
		acks += t->dest_qp == a_qpn && t->opcode == ROCE_OP_ACKNOWLEDGE &&
			(t->syndrome & 0xE0) == 0;
	}
	for (unsigned i = n; i < g_loss.ntx[0]; i++)
		retx += g_loss.tx[0][i].opcode != ROCE_OP_ACKNOWLEDGE;
	cr_expect_eq(acks, n, "B sent %u ACKs", acks);
	cr_expect_eq(retx, 0, "A sent %u request packets again", retx);
	side_region_free(&p, b, &r);
	loss_close(&p);
}

/*
 * A QP that fails while a replay walk holds a WQE set aside. B has no receive, so A's two Sends
 * draw RNR NAKs (rnr_retry 1: one replay, then the first Send fails). Behind them four Reads fill
 * the QP's ORD of 4 and a fifth and sixth wait at the intake. The RNR timer's replay finds the
 * fifth Read waiting for ORD room and sets it aside; the second RNR NAK fails the QP during that
 * walk, so the walk's next WQE records CANCELLED. The Read set aside must still be read again
 * and complete CANCELLED before the sixth (it once stayed set aside for ever: the sixth Read
 * completed first, found by the fuzzer). Every request completes once, in posting order.
 */
Test(loss, a_qp_failing_during_a_replay_still_completes_the_wqe_set_aside_in_order)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 1; /* a loopback pair: one NIC's requester and responder (as the fuzzer's) */
	struct ndk_connect_attr attr;
	ndk_connect_attr_default(&attr);
	attr.inbound_read_limit = attr.outbound_read_limit = 4;
	attr.ack_timeout = 2;
	attr.retry_count = 2;
	attr.rnr_retry = 1;
	struct pair_opts o = { .attr = &attr };
	struct pair p;
	pair_open_opts(&p, &c, &o);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct region r;
	side_region(&p, b, &r, 2, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	uint8_t *dst = a->buf.va;
	static const uint32_t send_len[2] = { 1607, 924 };
	for (unsigned i = 0; i < 2; i++) {
		struct ndk_sge s = sge_of(a, 8192 + i * 2048, send_len[i]);
		cr_assert_eq(ndk_send(a->qp, CTX(10 + i), &s, 1, 0), NDK_STATUS_SUCCESS);
	}
	memset(dst, 0xEE, 8 * 1424);
	for (unsigned i = 0; i < 6; i++) {
		struct ndk_sge s = sge_of(a, i * 1424, 1424);
		cr_assert_eq(ndk_read(a->qp, CTX(20 + i), &s, 1, (uint64_t)(uintptr_t)r.buf.va,
				      ndk_get_remote_token_from_mr(r.mr), 0),
			     NDK_STATUS_SUCCESS);
	}
	expect_cpl(&p, a, NDK_STATUS_IO_TIMEOUT, NDK_OP_SEND, CTX(10), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(11), 0);
	for (unsigned i = 0; i < 6; i++)
		expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_READ, CTX(20 + i), 0);
	expect_no_cpl(&p, a->cq, 20000);
	cr_expect(all_bytes(dst, 0xEE, 6 * 1424), "a cancelled Read placed data");
	side_region_free(&p, b, &r);
	pair_close(&p);
}

/*
 * A WQE set aside for ANOTHER QP's replay walk still counts as its own QP's work. A neighbour QP
 * on the same NIC sends 3 Sends to a peer without receives: RNR NAKs, its RNR timer runs. Then A
 * reads 64 KiB (answered over thousands of cycles); A's zero-length Send behind it carries
 * READ_FENCE and waits at the intake, three more wait in the dispatcher. The neighbour's RNR
 * replay walk sets A's waiting Send aside; A is flushed as soon as the walk's first retransmission
 * is on the wire. A's Read is cancelled at once, and the Send set aside and the three behind it
 * must complete CANCELLED in that order (the three once completed first: nic_wqe_dispatch
 * cancelled them because the held Send did not make A busy; found by the fuzzer).
 */
Test(loss, a_wqe_set_aside_for_another_qps_replay_keeps_its_qps_later_wqes_behind_it)
{
	struct pair p;
	loss_open(&p, 14, 7, 0x100000, 0x200000);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct side n0 = { 0 }, n1 = { 0 };
	const struct pair_opts no = { 0 };
	side_open(&p, 0, &n0, a->ad, &no, 0);
	side_open(&p, 1, &n1, b->ad, &no, 1);
	qps_connect(n0.qp, n1.qp);
	uint32_t n1_qpn = wire_qpn(n1.qp);
	struct region r;
	side_region(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	for (unsigned i = 0; i < 3; i++) {
		struct ndk_sge ns = sge_of(&n0, i * 256, 256);
		cr_assert_eq(ndk_send(n0.qp, CTX(200 + i), &ns, 1, 0), NDK_STATUS_SUCCESS);
	}
	/* the neighbour's first Send on the wire, then its RNR NAK: its timer runs (10 us) */
	for (unsigned t = 0; t < 20000 && g_loss.ntx[0] == 0; t += 8)
		ndk_sim_step(p.sim, 8);
	cr_assert_gt(g_loss.ntx[0], 0, "the neighbour sent nothing");
	ndk_sim_step(p.sim, 1000);
	struct ndk_sge rd = sge_of(a, 0, 65536);
	cr_assert_eq(ndk_read(a->qp, CTX(10), &rd, 1, (uint64_t)(uintptr_t)r.buf.va,
			      ndk_get_remote_token_from_mr(r.mr), 0),
		     NDK_STATUS_SUCCESS);
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(ndk_send(a->qp, CTX(11 + i), NULL, 0,
				      i == 0 ? NDK_OP_FLAG_READ_FENCE : 0),
			     NDK_STATUS_SUCCESS);
	/* the neighbour's replay: a second transmission of its first Send's PSN */
	bool replay = false;
	for (unsigned t = 0; t < 200000 && !replay; t += 8) {
		ndk_sim_step(p.sim, 8);
		uint32_t first = UINT32_MAX;
		for (unsigned i = 0; i < g_loss.ntx[0] && !replay; i++) {
			const struct tx *x = &g_loss.tx[0][i];
			if (x->dest_qp != n1_qpn)
				continue;
			if (first == UINT32_MAX)
				first = x->psn;
			else if (x->psn == first)
				replay = true;
		}
	}
	cr_assert(replay, "the neighbour's RNR replay never started");
	ndk_flush(a->qp);
	/* every completion of A within 100 000 cycles: the Read (cancelled, or done just before the
	   flush), then the four Sends CANCELLED, in posting order */
	struct ndk_result_ex res[8];
	unsigned n = 0;
	for (unsigned t = 0; t < 100000 && n < 8; t += 64) {
		ndk_sim_step(p.sim, 64);
		n += (unsigned)ndk_get_cq_results_ex(a->cq, res + n, 8 - n);
	}
	cr_expect_eq(n, 5, "%u completions of A, want 5", n);
	cr_expect(n == 0 || res[0].request_context == CTX(10), "first %p, want the Read",
		  res[0].request_context);
	for (unsigned i = 0; i < 4 && 1 + i < n; i++) {
		cr_expect_eq(res[1 + i].request_context, CTX(11 + i), "completion %u: %p, want %p",
			     1 + i, res[1 + i].request_context, CTX(11 + i));
		cr_expect_eq(res[1 + i].status, NDK_STATUS_CANCELLED, "completion %u: %s", 1 + i,
			     ndk_status_name(res[1 + i].status));
	}
	ndk_flush(n0.qp);
	side_region_free(&p, b, &r);
	ndk_close_qp(n0.qp);
	ndk_close_qp(n1.qp);
	ndk_close_cq(n0.cq);
	ndk_close_cq(n1.cq);
	ndk_free_buffer(n0.ad, &n0.buf);
	ndk_free_buffer(n1.ad, &n1.buf);
	ndk_close_pd(n0.pd);
	ndk_close_pd(n1.pd);
	loss_close(&p);
}
