/* SPDX-License-Identifier: MIT */
/*
 * The RoCEv2 transport between two simulated hosts (docs/transport.md): Send / Receive and Write
 * across the ideal switch, data checked byte for byte, completions on both sides, the ACK /
 * NAK rules, and the deferral rules for transport requests.
 */
#include <unistd.h>

#include "cosim_pair.h"
#include "pcap_check.h"

#define CTX(n) ((void *)(uintptr_t)(0x3000 + (n)))
/* Send `len` bytes from A's buffer at src_off into B's receive at dst_off, over nsge SGEs on
 * each side; check the bytes and both completions. */
static void send_case(unsigned nics, uint32_t len, uint32_t nsge_send, uint32_t nsge_recv,
		      size_t src_off, size_t dst_off)
{
	struct pair p;
	pair_open(&p, nics);
	struct side *a = &p.s[0], *b = &p.s[1];
	uint8_t *src = (uint8_t *)a->buf.va + src_off;
	uint8_t *dst = (uint8_t *)b->buf.va + dst_off;
	fill(src, len, len);
	memset(dst, 0xEE, len + 64);

	/* the receive: len split over nsge_recv SGEs (the last one longer by 16 bytes) */
	struct ndk_sge rs[3];
	uint32_t part = nsge_recv ? len / nsge_recv : 0, used = 0;
	for (uint32_t i = 0; i < nsge_recv; i++) {
		uint32_t l = i + 1 == nsge_recv ? len - used + 16 : part;
		rs[i] = sge_of(b, dst_off + used, l);
		used += l;
	}
	expect_status(&(struct world){ .sim = p.sim }, ndk_receive(b->qp, CTX(1), rs, nsge_recv),
		      NDK_STATUS_SUCCESS);
	struct ndk_sge ss[3];
	part = nsge_send ? len / nsge_send : 0;
	used = 0;
	for (uint32_t i = 0; i < nsge_send; i++) {
		uint32_t l = i + 1 == nsge_send ? len - used : part;
		ss[i] = sge_of(a, src_off + used, l);
		used += l;
	}
	expect_status(&(struct world){ .sim = p.sim }, ndk_send(a->qp, CTX(2), ss, nsge_send, 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), len);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	cr_expect(memcmp(src, dst, len) == 0, "the received bytes differ from the sent ones");
	for (uint32_t i = 0; i < 16; i++)
		cr_expect_eq(dst[len + i], 0xEE, "byte %u past the message was written", len + i);
	struct ndk_sim_stats s0;
	ndk_sim_get_stats(p.sim, 0, &s0);
	cr_log_info("send %u B: %" PRIu64 " frames sent by A", len, s0.frames_sent);
	pair_close(&p);
}

Test(transport, send_of_one_packet_between_two_hosts)
{
	send_case(2, 40, 1, 1, 0, 0);
}

Test(transport, send_looped_back_on_one_nic)
{
	send_case(1, 100, 1, 1, 0, 8192);
}

Test(transport, send_of_several_packets_with_unaligned_sges)
{
	send_case(2, 5000, 3, 3, 3, 4097 + 5);
}

Test(transport, send_of_zero_bytes)
{
	send_case(2, 0, 0, 1, 0, 0);
}

/* Write: A writes into B's buffer through an MR B registered with remote write; nothing
 * completes at B; a Send after it finds the data there (RC ordering). */
Test(transport, write_then_send_arrive_in_order)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wb = { .sim = p.sim, .ad = b->ad, .pd = b->pd, .cq = b->cq, .qp = b->qp };
	struct region r;
	region_make(&wb, &r, 4, true);
	expect_status(&wb,
		      region_register(&wb, &r, CTX(9),
				      NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
					      NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(9), 0);
	const uint32_t len = 3000, at = 777;
	uint8_t *src = a->buf.va;
	fill(src, len, 7);
	memset(r.buf.va, 0, 4 * NDK_PAGE_SIZE);
	struct ndk_sge ws = sge_of(a, 0, len);
	struct ndk_sge rcv = sge_of(b, 0, 64);
	expect_status(&wb, ndk_receive(b->qp, CTX(3), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wb,
		      ndk_write(a->qp, CTX(4), &ws, 1, (uint64_t)(uintptr_t)r.buf.va + at,
				ndk_get_remote_token_from_mr(r.mr), 0),
		      NDK_STATUS_SUCCESS);
	struct ndk_sge ss = sge_of(a, 8192, 8);
	expect_status(&wb, ndk_send(a->qp, CTX(5), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(3), 8);
	cr_expect(memcmp((uint8_t *)r.buf.va + at, src, len) == 0, "written bytes differ");
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(4), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(5), 0);
	region_free(&wb, &r);
	pair_close(&p);
}

/* A Write with a wrong remote token: the responder NAKs, the Write completes ACCESS_VIOLATION at
 * the requester, later requests CANCELLED, and the responder's QP goes to error too (its posted
 * receive completes CANCELLED). */
Test(transport, write_with_a_bad_remote_token_fails_both_qps)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = { .sim = p.sim };
	struct ndk_sge rcv = sge_of(b, 0, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge ws = sge_of(a, 0, 100);
	expect_status(&wa, ndk_write(a->qp, CTX(2), &ws, 1, 0x10000, 0x00001234u, 0),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &ws, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_WRITE, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(1), 0);
	pair_close(&p);
}

/* A Send longer than the receive: the receive completes DATA_OVERRUN, the Send fails with the
 * NAK's status; both QPs are in error. */
Test(transport, send_longer_than_the_receive_fails)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = { .sim = p.sim };
	struct ndk_sge rcv = sge_of(b, 0, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge ss = sge_of(a, 0, 65);
	expect_status(&wa, ndk_send(a->qp, CTX(2), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_DATA_OVERRUN, NDK_OP_RECEIVE, CTX(1), 0);
	expect_cpl(&p, a, NDK_STATUS_REMOTE_ERROR, NDK_OP_SEND, CTX(2), 0);
	pair_close(&p);
}

/* INLINE: the bytes travel in the WQE; the caller's buffer may change right after the call. */
Test(transport, inline_send_copies_the_data_at_post_time)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = { .sim = p.sim };
	uint8_t data[40];
	fill(data, sizeof(data), 3);
	uint8_t expect[40];
	memcpy(expect, data, sizeof(data));
	struct ndk_sge rcv = sge_of(b, 0, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge in = { .address = (uint64_t)(uintptr_t)data, .length = sizeof(data) };
	expect_status(&wa, ndk_send(a->qp, CTX(2), &in, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_SUCCESS);
	memset(data, 0, sizeof(data));
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), sizeof(data));
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	cr_expect(memcmp(b->buf.va, expect, sizeof(expect)) == 0);
	pair_close(&p);
}

/* DEFER on Sends: one doorbell for the chain, every Send delivered in order. */
Test(transport, deferred_send_chain_rings_once)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = { .sim = p.sim };
	const int n = 8;
	for (int i = 0; i < n; i++) {
		struct ndk_sge rcv = sge_of(b, 256 * i, 256);
		expect_status(&wa, ndk_receive(b->qp, CTX(100 + i), &rcv, 1), NDK_STATUS_SUCCESS);
	}
	struct ndk_sim_stats s0, s1;
	ndk_sim_get_stats(p.sim, 0, &s0);
	for (int i = 0; i < n; i++) {
		fill((uint8_t *)a->buf.va + 256 * i, 64, i);
		struct ndk_sge ss = sge_of(a, 256 * i, 64);
		expect_status(&wa,
			      ndk_send(a->qp, CTX(200 + i), &ss, 1,
				       i + 1 < n ? NDK_OP_FLAG_DEFER : 0),
			      NDK_STATUS_SUCCESS);
	}
	for (int i = 0; i < n; i++)
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(100 + i), 64);
	for (int i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(200 + i), 0);
	ndk_sim_get_stats(p.sim, 0, &s1);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 1, "doorbells for a chain of %d", n);
	for (int i = 0; i < n; i++)
		cr_expect(memcmp((uint8_t *)a->buf.va + 256 * i, (uint8_t *)b->buf.va + 256 * i,
				 64) == 0,
			  "message %d", i);
	pair_close(&p);
}

/* The capture of a real exchange (multi-packet Send, Write, their ACKs) decodes cleanly: tshark
 * sees RoCEv2 (UDP 4791) with the right BTH opcodes and nothing malformed, and the reference
 * checker (tests/roce_ref) accepts every ICRC and every field choice of docs/transport.md. */
Test(transport, capture_decodes_cleanly_with_the_right_opcodes)
{
	char path[] = "/tmp/ndknic-transport-XXXXXX.pcap";
	int fd = mkstemps(path, 5);
	cr_assert_geq(fd, 0);
	close(fd);
	struct pair p;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	c.pcap_path = path;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = { .sim = p.sim };
	struct ndk_sge rcv = sge_of(b, 0, 4096);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge ss = sge_of(a, 0, 2500); /* FIRST, MIDDLE, LAST at MTU 1024 */
	expect_status(&wa, ndk_send(a->qp, CTX(2), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 2500);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	pair_close(&p);

	struct roce_pcap_check chk;
	cr_assert_eq(roce_pcap_check(path, true, &chk), 0, "%s", chk.log);
	int seen[256] = { 0 };
	for (size_t i = 0; i < chk.frames; i++)
		if (chk.frame[i].opcode >= 0 && chk.frame[i].opcode < 256)
			seen[chk.frame[i].opcode]++;
	cr_expect_eq(chk.frames, 4, "3 Send packets and one ACK");
	cr_expect_eq(seen[0x00], 1, "SEND_FIRST");
	cr_expect_eq(seen[0x01], 1, "SEND_MIDDLE");
	cr_expect_eq(seen[0x02], 1, "SEND_LAST");
	cr_expect_eq(seen[0x11], 1, "ACKNOWLEDGE");
	roce_pcap_check_free(&chk);
	unlink(path);
}

/* Segmentation at the path MTU (ndk_sim_config.path_mtu): a 5000-byte Send is
 * ceil(5000 / MTU) packets, and arrives whole whatever the MTU. */
static void mtu_case(uint32_t mtu)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	c.path_mtu = mtu;
	struct pair p;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = { .sim = p.sim };
	const uint32_t len = 5000;
	fill(a->buf.va, len, mtu);
	struct ndk_sge rcv = sge_of(b, 0, 8192), ss = sge_of(a, 0, len);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(2), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), len);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	cr_expect(memcmp(a->buf.va, b->buf.va, len) == 0);
	struct ndk_sim_stats sa;
	ndk_sim_get_stats(p.sim, 0, &sa);
	cr_expect_eq(sa.frames_sent, (len + mtu - 1) / mtu, "packets of a %u-byte Send at MTU %u",
		     len, mtu);
	pair_close(&p);
}

Test(transport, segmentation_at_path_mtu_256)
{
	mtu_case(256);
}

Test(transport, segmentation_at_path_mtu_4096)
{
	mtu_case(4096);
}

Test(transport, a_path_mtu_that_is_not_a_power_of_two_in_256_to_4096_is_refused)
{
	struct ndk_sim_config c;
	struct ndk_sim *sim;
	ndk_sim_default_config(&c);
	const uint32_t bad[] = { 0, 128, 1000, 8192 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.path_mtu = bad[i];
		cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER, "path_mtu %u",
			     bad[i]);
	}
}

/* ---- SendAndInvalidate: the receiver invalidates the token (completion seed, C2) ---------- */

/* a side's objects as a struct world (for the cosim.h helpers) */
static struct world side_world(struct pair *p, struct side *s)
{
	struct world w = { .sim = p->sim, .ad = s->ad, .pd = s->pd, .cq = s->cq, .qp = s->qp };
	return w;
}

/* s registers a 2-page region with remote write */
static void register_remote(struct pair *p, struct side *s, struct region *r, void *ctx)
{
	struct world w = side_world(p, s);
	region_make(&w, r, 2, true);
	expect_status(&w,
		      region_register(&w, r, ctx,
				      NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
					      NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_cpl(p, s, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, ctx, 0);
}

/* A sends 24 bytes with SendAndInvalidate(token) into B's posted receive */
static void send_inv(struct pair *p, uint32_t token)
{
	struct side *a = &p->s[0], *b = &p->s[1];
	struct world wa = { .sim = p->sim };
	struct ndk_sge rcv = sge_of(b, 0, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	fill(a->buf.va, 24, 24);
	struct ndk_sge ss = sge_of(a, 0, 24);
	expect_status(&wa, ndk_send_and_invalidate(a->qp, CTX(2), &ss, 1, 0, token),
		      NDK_STATUS_SUCCESS);
}

/* B invalidates the MR itself afterwards: it must fail, the token being invalid already */
static void expect_local_invalidate_fails(struct pair *p, struct region *r)
{
	struct side *b = &p->s[1];
	struct world wb = side_world(p, b);
	expect_status(&wb, ndk_invalidate_mr(b->qp, CTX(7), r->mr, 0), NDK_STATUS_SUCCESS);
	expect_cpl(p, b, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(7), 0);
}

/* Polled with ndk_get_cq_results_ex, the receive reports RECEIVE_AND_INVALIDATE and the token;
 * the token is gone: a Write through it is refused. */
Test(transport, send_and_invalidate_reports_the_token_through_get_cq_results_ex)
{
	struct pair p;
	pair_open(&p, 2);
	struct world w0 = side_world(&p, &p.s[0]);
	struct region r;
	register_remote(&p, &p.s[1], &r, CTX(9));
	uint32_t token = ndk_get_remote_token_from_mr(r.mr);
	send_inv(&p, token);
	struct ndk_result_ex rx;
	poll_side(&p, &p.s[1], &rx, 200000);
	cr_expect_eq(rx.status, NDK_STATUS_SUCCESS, "status %s", ndk_status_name(rx.status));
	cr_expect_eq(rx.type, NDK_OP_RECEIVE_AND_INVALIDATE, "type %#x", rx.type);
	cr_expect_eq(rx.type_specific, token, "type_specific %#x, want the token %#x",
		     rx.type_specific, token);
	cr_expect_eq(rx.bytes_transferred, 24);
	cr_expect_eq(rx.request_context, CTX(1));
	cr_expect(memcmp(p.s[1].buf.va, p.s[0].buf.va, 24) == 0, "the received bytes differ");
	expect_cpl(&p, &p.s[0], NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	/* the region refuses A's Write now: the remote token is gone (both QPs go to error) */
	struct ndk_sge ws = sge_of(&p.s[0], 0, 16);
	expect_status(&w0,
		      ndk_write(p.s[0].qp, CTX(3), &ws, 1, (uint64_t)(uintptr_t)r.buf.va, token, 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, &p.s[0], NDK_STATUS_ACCESS_VIOLATION, NDK_OP_WRITE, CTX(3), 0);
	region_free(&w0, &r);
	pair_close(&p);
}

/* Polled with plain ndk_get_cq_results the invalidation is not reported, but it still happened:
 * a later ndk_invalidate of that token fails. */
Test(transport, send_and_invalidate_still_invalidates_through_get_cq_results)
{
	struct pair p;
	pair_open(&p, 2);
	struct world w0 = side_world(&p, &p.s[0]);
	struct region r;
	register_remote(&p, &p.s[1], &r, CTX(9));
	uint32_t token = ndk_get_remote_token_from_mr(r.mr);
	send_inv(&p, token);
	struct ndk_result res;
	uint64_t deadline = ndk_sim_cycle(p.sim) + 200000;
	while (ndk_get_cq_results(p.s[1].cq, &res, 1) == 0) {
		if (ndk_sim_cycle(p.sim) > deadline)
			sim_fail(&w0, "no receive completion");
		ndk_sim_step(p.sim, 1);
	}
	cr_expect_eq(res.status, NDK_STATUS_SUCCESS, "status %s", ndk_status_name(res.status));
	cr_expect_eq(res.bytes_transferred, 24);
	cr_expect_eq(res.request_context, CTX(1));
	expect_cpl(&p, &p.s[0], NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	expect_local_invalidate_fails(&p, &r);
	region_free(&w0, &r);
	pair_close(&p);
}

/* An MW's token: the window goes, its MR stays registered (a Write through the MR still lands) */
Test(transport, send_and_invalidate_of_a_window_leaves_its_mr_valid)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wb = side_world(&p, b);
	struct region r;
	register_remote(&p, b, &r, CTX(9));
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(b->pd, &mw), NDK_STATUS_SUCCESS);
	expect_status(&wb,
		      ndk_bind(b->qp, CTX(8), r.mr, mw, (uint64_t)(uintptr_t)r.buf.va, 256,
			       NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(8), 0);
	uint32_t mw_token = ndk_get_remote_token_from_mw(mw);
	send_inv(&p, mw_token);
	struct ndk_result_ex rx;
	poll_side(&p, b, &rx, 200000);
	cr_expect_eq(rx.status, NDK_STATUS_SUCCESS, "status %s", ndk_status_name(rx.status));
	cr_expect_eq(rx.type, NDK_OP_RECEIVE_AND_INVALIDATE);
	cr_expect_eq(rx.type_specific, mw_token);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	/* the MR still takes a Write; then a Send shows it arrived (RC order) */
	memset(r.buf.va, 0, 64);
	fill((uint8_t *)a->buf.va + 1024, 32, 5);
	struct ndk_sge ws = sge_of(a, 1024, 32);
	expect_status(&wb,
		      ndk_write(a->qp, CTX(3), &ws, 1, (uint64_t)(uintptr_t)r.buf.va,
				ndk_get_remote_token_from_mr(r.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(3), 0);
	cr_expect(memcmp(r.buf.va, (uint8_t *)a->buf.va + 1024, 32) == 0, "written bytes differ");
	/* the window is gone: invalidating it locally fails */
	expect_status(&wb, ndk_invalidate_mw(b->qp, CTX(6), mw, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_INVALIDATE, CTX(6), 0);
	ndk_close_mw(mw);
	region_free(&wb, &r);
	pair_close(&p);
}

/* A token the receiver cannot invalidate (none such; or a valid one of another PD): the receive
 * completes ACCESS_VIOLATION, the Send REMOTE_ERROR (NAK "invalid request"), both QPs go to
 * error; the token of the other PD stays valid. */
static void send_inv_bad_token(bool other_pd)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wb = side_world(&p, b);
	struct ndk_pd *pd2 = NULL;
	struct region r;
	uint32_t token = 0x00000542u;
	if (other_pd) {
		/* a region of B's other PD, registered through B's QP of that PD */
		cr_assert_eq(ndk_create_pd(b->ad, &pd2), NDK_STATUS_SUCCESS);
		struct ndk_qp *qp2;
		struct ndk_qp_attr qa = {
			.receive_cq = b->cq,
			.initiator_cq = b->cq,
			.qp_context = QP_CONTEXT,
			.receive_queue_depth = 4,
			.initiator_queue_depth = 4,
			.max_receive_request_sge = 1,
			.max_initiator_request_sge = 1,
		};
		cr_assert_eq(ndk_create_qp(pd2, &qa, &qp2), NDK_STATUS_SUCCESS);
		struct world w2 = { .sim = p.sim, .ad = b->ad, .pd = pd2, .cq = b->cq, .qp = qp2 };
		region_make(&w2, &r, 2, true);
		expect_status(&w2,
			      region_register(&w2, &r, CTX(9),
					      NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
						      NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
			      NDK_STATUS_SUCCESS);
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(9), 0);
		token = ndk_get_remote_token_from_mr(r.mr);
		send_inv(&p, token);
		expect_cpl(&p, b, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_RECEIVE, CTX(1), 0);
		expect_cpl(&p, a, NDK_STATUS_REMOTE_ERROR, NDK_OP_SEND, CTX(2), 0);
		/* the other PD's region is untouched: its own QP still invalidates it */
		expect_status(&w2, ndk_invalidate_mr(qp2, CTX(7), r.mr, 0), NDK_STATUS_SUCCESS);
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(7), 0);
		ndk_close_qp(qp2);
		region_free(&w2, &r);
		ndk_close_pd(pd2);
	} else {
		send_inv(&p, token);
		expect_cpl(&p, b, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_RECEIVE, CTX(1), 0);
		expect_cpl(&p, a, NDK_STATUS_REMOTE_ERROR, NDK_OP_SEND, CTX(2), 0);
	}
	/* both QPs are in error: a later request of each is cancelled */
	struct ndk_sge ss = sge_of(a, 0, 8);
	expect_status(&wb, ndk_send(a->qp, CTX(4), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(4), 0);
	struct ndk_sge rcv = sge_of(b, 0, 8);
	expect_status(&wb, ndk_receive(b->qp, CTX(5), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(5), 0);
	pair_close(&p);
}

Test(transport, send_and_invalidate_of_an_unknown_token_aborts_the_connection)
{
	send_inv_bad_token(false);
}

Test(transport, send_and_invalidate_of_another_pds_token_aborts_and_leaves_it_valid)
{
	send_inv_bad_token(true);
}

/* DEFER with SendAndInvalidate inside a chain: posting rings nothing and the NIC reads nothing
 * until the last (undeferred) request; then one doorbell, one burst fetch of the three WQEs, and
 * the receives complete in order, the middle one as RECEIVE_AND_INVALIDATE. */
Test(transport, deferred_chain_with_send_and_invalidate_rings_once)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wb = side_world(&p, b);
	struct region r;
	register_remote(&p, b, &r, CTX(9));
	uint32_t token = ndk_get_remote_token_from_mr(r.mr);
	for (int i = 0; i < 3; i++) {
		struct ndk_sge rcv = sge_of(b, 256 * i, 256);
		expect_status(&wb, ndk_receive(b->qp, CTX(100 + i), &rcv, 1), NDK_STATUS_SUCCESS);
	}
	struct ndk_sim_stats s0, s1;
	ndk_sim_get_stats(p.sim, 0, &s0);
	struct ndk_sge ss[3] = { sge_of(a, 0, 16), sge_of(a, 256, 32), sge_of(a, 512, 48) };
	fill(a->buf.va, 1024, 11);
	expect_status(&wb, ndk_send(a->qp, CTX(200), &ss[0], 1, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wb,
		      ndk_send_and_invalidate(a->qp, CTX(201), &ss[1], 1, NDK_OP_FLAG_DEFER, token),
		      NDK_STATUS_SUCCESS);
	/* deferred: a long wait shows no doorbell and no fetch */
	ndk_sim_step(p.sim, 2000);
	ndk_sim_get_stats(p.sim, 0, &s1);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 0, "a deferred request rang");
	cr_expect_eq(s1.wqe_fetch_reads - s0.wqe_fetch_reads, 0, "the NIC read a deferred WQE");
	expect_status(&wb, ndk_send(a->qp, CTX(202), &ss[2], 1, 0), NDK_STATUS_SUCCESS);
	struct ndk_result_ex rx;
	uint32_t want_bytes[3] = { 16, 32, 48 };
	for (int i = 0; i < 3; i++) {
		poll_side(&p, b, &rx, 200000);
		cr_expect_eq(rx.status, NDK_STATUS_SUCCESS, "receive %d: %s", i,
			     ndk_status_name(rx.status));
		cr_expect_eq(rx.request_context, CTX(100 + i), "receive %d out of order", i);
		cr_expect_eq(rx.bytes_transferred, want_bytes[i]);
		cr_expect_eq(rx.type, i == 1 ? NDK_OP_RECEIVE_AND_INVALIDATE : NDK_OP_RECEIVE);
		if (i == 1)
			cr_expect_eq(rx.type_specific, token);
		cr_expect(memcmp((uint8_t *)b->buf.va + 256 * i, (uint8_t *)a->buf.va + 256 * i,
				 want_bytes[i]) == 0,
			  "message %d", i);
	}
	for (int i = 0; i < 3; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(200 + i), 0);
	ndk_sim_get_stats(p.sim, 0, &s1);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 1, "doorbells for the chain");
	cr_expect_eq(s1.wqe_fetch_reads - s0.wqe_fetch_reads, 1, "fetch reads for the chain");
	cr_expect_eq(s1.wqes_fetched - s0.wqes_fetched, 3);
	region_free(&wb, &r);
	pair_close(&p);
}
