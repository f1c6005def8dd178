/* SPDX-License-Identifier: MIT */
/*
 * The RoCEv2 transport between two simulated hosts (docs/transport.md): Send / Receive, Write and
 * Read across the ideal switch, data checked byte for byte, completions on both sides, the ACK /
 * NAK rules, the Read limits and fence, and the deferral rules for transport requests.
 */
#include <unistd.h>

#include "cosim_pair.h"
#include "ndk_internal.h"
#include "backend_sim.h" /* the world behind an ndk_sim */
#include "nicsim.h"
#include "pcap_check.h"

#define CTX(n)	  ((void *)(uintptr_t)(0x3000 + (n)))
#define BUF_BYTES PAIR_BUF_BYTES

/* A pair connected with the read limits (inbound ird, outbound ord) on both sides. */
static void pair_open_limits(struct pair *p, const struct ndk_sim_config *c, uint32_t ird,
			     uint32_t ord)
{
	const struct pair_opts o = { .read_limits = true, .ird = ird, .ord = ord };
	pair_open_opts(p, c, &o);
}

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

static struct world world_of(struct pair *p, struct side *s)
{
	struct world w = { .sim = p->sim, .ad = s->ad, .pd = s->pd, .cq = s->cq, .qp = s->qp };
	return w;
}

/* A fast-registered MR of `s` over npages fresh pages with the access `flags`. */
static void region_on(struct pair *p, struct side *s, struct region *r, uint32_t npages,
		      uint32_t flags, int ctx)
{
	struct world w = world_of(p, s);
	region_make(&w, r, npages,
		    (flags & NDK_OP_FLAG_ALLOW_REMOTE_READ) ||
			    (flags & NDK_OP_FLAG_ALLOW_REMOTE_WRITE) ==
				    NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	expect_status(&w, region_register(&w, r, CTX(ctx), flags), NDK_STATUS_SUCCESS);
	expect_cpl(p, s, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(ctx), 0);
}

static void region_off(struct pair *p, struct side *s, struct region *r)
{
	struct world w = world_of(p, s);
	region_free(&w, r);
}

static void expect_quiet(struct pair *p, struct side *s, uint64_t cycles)
{
	struct ndk_result_ex r;
	uint64_t end = ndk_sim_cycle(p->sim) + cycles;
	while (ndk_sim_cycle(p->sim) < end) {
		cr_assert_eq(ndk_get_cq_results_ex(s->cq, &r, 1), 0,
			     "cycle %" PRIu64 ": unexpected completion %p, %s",
			     ndk_sim_cycle(p->sim), r.request_context, ndk_status_name(r.status));
		ndk_sim_step(p->sim, 100);
	}
}

static uint64_t frames_sent(struct pair *p, unsigned nic)
{
	struct ndk_sim_stats s;
	ndk_sim_get_stats(p->sim, nic, &s);
	return s.frames_sent;
}

/* the BTH opcode of a captured RoCEv2 frame (Ethernet 14 + IPv4 20 + UDP 8 bytes before it) */
#define BTH_AT 42
static int frame_opcode(const uint8_t *f, size_t len)
{
	return len > BTH_AT ? f[BTH_AT] : -1;
}

/* The capture of a real exchange (a multi-packet Send and its ACK, a three-response Read and a
 * one-response Read) decodes cleanly: tshark sees RoCEv2 (UDP 4791) with the right BTH opcodes
 * (READ_REQUEST 0x0C, READ_RESPONSE 0x0D..0x10 with their RETH / AETH) and nothing malformed, and
 * the reference checker (tests/roce_ref) accepts every ICRC and every field choice of
 * docs/transport.md. */
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
	struct region r;
	region_on(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	fill(r.buf.va, 2500, 8);
	struct ndk_sge rs = sge_of(a, 8192, 2500), rs1 = sge_of(a, 16384, 10);
	uint32_t rkey = ndk_get_remote_token_from_mr(r.mr);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(3), &rs, 1, (uint64_t)(uintptr_t)r.buf.va, rkey,
			       NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(4), &rs1, 1, (uint64_t)(uintptr_t)r.buf.va + 7, rkey, 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(3), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(4), 0);
	cr_expect(memcmp((uint8_t *)a->buf.va + 8192, r.buf.va, 2500) == 0);
	region_off(&p, b, &r);
	pair_close(&p);

	struct roce_pcap_check chk;
	cr_assert_eq(roce_pcap_check(path, true, &chk), 0, "%s", chk.log);
	int seen[256] = { 0 };
	for (size_t i = 0; i < chk.frames; i++)
		if (chk.frame[i].opcode >= 0 && chk.frame[i].opcode < 256)
			seen[chk.frame[i].opcode]++;
	cr_expect_eq(chk.frames, 10, "3 Send packets, one ACK, 2 Read requests, 4 responses");
	cr_expect_eq(seen[0x00], 1, "SEND_FIRST");
	cr_expect_eq(seen[0x01], 1, "SEND_MIDDLE");
	cr_expect_eq(seen[0x02], 1, "SEND_LAST");
	cr_expect_eq(seen[0x11], 1, "ACKNOWLEDGE");
	cr_expect_eq(seen[0x0C], 2, "RDMA_READ_REQUEST");
	cr_expect_eq(seen[0x0D], 1, "RDMA_READ_RESPONSE_FIRST");
	cr_expect_eq(seen[0x0E], 1, "RDMA_READ_RESPONSE_MIDDLE");
	cr_expect_eq(seen[0x0F], 1, "RDMA_READ_RESPONSE_LAST");
	cr_expect_eq(seen[0x10], 1, "RDMA_READ_RESPONSE_ONLY");
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

/* ---- RDMA Read ---------------------------------------------------------------------------------- */

/*
 * A reads `len` bytes at remote_off of an MR of B (remote read) into nsge SGEs of its own buffer
 * that start at local_off, 3 bytes apart (unaligned, with gaps that must stay untouched). Checks
 * the bytes, the completion (READ, nothing at B), the frames (one request, ceil(len / MTU)
 * responses, at least one) and returns the cycles from the post to the completion.
 */
static uint64_t read_case(unsigned nics, uint32_t mtu, uint32_t len, uint32_t nsge,
			  size_t local_off, size_t remote_off)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = nics;
	if (mtu)
		c.path_mtu = mtu;
	mtu = c.path_mtu;
	struct pair p;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 4, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	uint8_t *src = (uint8_t *)r.buf.va + remote_off;
	fill(src, len, len + 11);
	memset(a->buf.va, 0xEE, BUF_BYTES);

	struct ndk_sge sg[2];
	uint32_t part = nsge ? len / nsge : 0, used = 0;
	size_t at = local_off;
	for (uint32_t i = 0; i < nsge; i++) {
		uint32_t l = i + 1 == nsge ? len - used : part;
		sg[i] = sge_of(a, at, l);
		used += l;
		at += l + 3;
	}
	uint64_t fa = frames_sent(&p, 0), fb = frames_sent(&p, 1);
	uint64_t t0 = ndk_sim_cycle(p.sim);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), sg, nsge, (uint64_t)(uintptr_t)src,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(2), 0);
	uint64_t cycles = ndk_sim_cycle(p.sim) - t0;

	const uint8_t *buf = a->buf.va;
	used = 0;
	for (uint32_t i = 0; i < nsge; i++) {
		const uint8_t *d = buf + (sg[i].address - a->buf.logical);
		cr_expect(memcmp(d, src + used, sg[i].length) == 0, "SGE %u: the bytes differ", i);
		cr_expect_eq(d[sg[i].length], 0xEE, "SGE %u: the byte after it was written", i);
		used += sg[i].length;
	}
	if (local_off)
		cr_expect_eq(buf[local_off - 1], 0xEE, "the byte before the sink was written");
	uint32_t responses = len ? (len + mtu - 1) / mtu : 1;
	if (nics > 1) {
		cr_expect_eq(frames_sent(&p, 0) - fa, 1, "A sends one READ_REQUEST");
		cr_expect_eq(frames_sent(&p, 1) - fb, responses, "B sends %u responses at MTU %u",
			     responses, mtu);
	} else {
		cr_expect_eq(frames_sent(&p, 0) - fa, 1 + responses,
			     "one READ_REQUEST and %u responses at MTU %u on the one NIC",
			     responses, mtu);
	}
	expect_quiet(&p, b, 2000);
	cr_log_info("read %u B at MTU %u: %" PRIu64 " cycles from post to completion", len, mtu,
		    cycles);
	region_off(&p, b, &r);
	pair_close(&p);
	return cycles;
}

/* NDK says nothing against a zero-length Read (no SGE, or SGEs of length 0): it completes
 * SUCCESS after one READ_RESPONSE_ONLY without payload; like a zero-length Write it names no
 * memory, so no token is checked (docs/transport.md). */
Test(transport, read_of_zero_bytes_completes_after_one_empty_response)
{
	read_case(2, 0, 0, 0, 0, 0);
}

Test(transport, read_of_one_byte)
{
	read_case(2, 0, 1, 1, 5, 7);
}

Test(transport, read_of_one_packet_between_two_hosts)
{
	read_case(2, 0, 100, 1, 0, 0);
}

Test(transport, read_looped_back_on_one_nic)
{
	read_case(1, 0, 300, 2, 8, 16);
}

Test(transport, read_of_several_packets_with_unaligned_sges_at_mtu_256)
{
	read_case(2, 256, 5000, 2, 3, 1001);
}

Test(transport, read_of_several_packets_with_unaligned_sges_at_mtu_4096)
{
	read_case(2, 4096, 9000, 2, 5, 1001);
}

/* The latency of a 4 KiB Read (one response at MTU 4096), post to completion, for the report */
Test(transport, read_of_4_kib_in_one_response)
{
	uint64_t cycles = read_case(2, 4096, 4096, 1, 0, 0);
	cr_log_info("4 KiB Read: %" PRIu64 " cycles", cycles);
	cr_expect_lt(cycles, 20000, "a 4 KiB Read took %" PRIu64 " cycles", cycles);
}

/* A Read after a Write on the same QP sees the written bytes (RC: the responder serves them in
 * order). */
Test(transport, read_after_write_on_the_same_qp_sees_the_written_data)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 2,
		  NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
			  NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
		  9);
	memset(r.buf.va, 0, 2 * NDK_PAGE_SIZE);
	const uint32_t len = 3000;
	uint8_t *src = a->buf.va;
	fill(src, len, 21);
	memset((uint8_t *)a->buf.va + 16384, 0xEE, len);
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va + 333;
	uint32_t rkey = ndk_get_remote_token_from_mr(r.mr);
	struct ndk_sge ws = sge_of(a, 0, len), rs = sge_of(a, 16384, len);
	expect_status(&wa, ndk_write(a->qp, CTX(3), &ws, 1, va, rkey, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_read(a->qp, CTX(4), &rs, 1, va, rkey, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(3), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(4), 0);
	cr_expect(memcmp((uint8_t *)a->buf.va + 16384, src, len) == 0,
		  "the Read does not return the bytes the Write wrote");
	region_off(&p, b, &r);
	pair_close(&p);
}

/* What A's frames show about a Read followed by a Send: the cycle the Send's first packet left,
 * whether the Read's data was in A's memory then, and when the last response arrived. */
struct fence_watch {
	const uint8_t *sink, *want;
	size_t len;
	bool send_seen, data_there;
	uint64_t send_cycle, last_response_cycle;
};

static void on_fence_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
			   const uint8_t *f, size_t len)
{
	struct fence_watch *w = ctx;
	int op = frame_opcode(f, len);
	if (nic != 0)
		return;
	if (ev == NICSIM_FRAME_RECEIVED && (op == 0x0F || op == 0x10))
		w->last_response_cycle = cycle;
	if (ev == NICSIM_FRAME_SENT && !w->send_seen && (op == 0x00 || op == 0x04)) {
		w->send_seen = true;
		w->send_cycle = cycle;
		w->data_there = memcmp(w->sink, w->want, w->len) == 0;
	}
}

/* READ_FENCE: a Send posted after a Read (same doorbell) with READ_FENCE leaves A only once the
 * Read's responses are placed in A's memory; without the flag it leaves before (the check can
 * tell the two apart). */
Test(transport, read_fence_holds_a_send_until_the_read_is_placed)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 2, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	const uint32_t len = 4096;
	fill(r.buf.va, len, 5);
	struct fence_watch fw = { .sink = (uint8_t *)a->buf.va + 8192,
				  .want = r.buf.va,
				  .len = len };
	nicsim_set_frame_handler(p.sim->world, on_fence_frame, &fw);
	struct ndk_sge rs = sge_of(a, 8192, len), ss = sge_of(a, 0, 16), rcv = sge_of(b, 0, 64);
	const uint32_t fences[2] = { 0, NDK_OP_FLAG_READ_FENCE };
	for (int round = 0; round < 2; round++) {
		memset((uint8_t *)a->buf.va + 8192, 0xEE, len);
		fw.send_seen = false;
		fw.last_response_cycle = 0;
		expect_status(&wa, ndk_receive(b->qp, CTX(10 + round), &rcv, 1),
			      NDK_STATUS_SUCCESS);
		expect_status(&wa,
			      ndk_read(a->qp, CTX(20 + round), &rs, 1,
				       (uint64_t)(uintptr_t)r.buf.va,
				       ndk_get_remote_token_from_mr(r.mr), NDK_OP_FLAG_DEFER),
			      NDK_STATUS_SUCCESS);
		expect_status(&wa, ndk_send(a->qp, CTX(30 + round), &ss, 1, fences[round]),
			      NDK_STATUS_SUCCESS);
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(20 + round), 0);
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(30 + round), 0);
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(10 + round), 16);
		cr_assert(fw.send_seen, "round %d: no Send frame seen", round);
		if (fences[round]) {
			cr_expect(fw.data_there,
				  "READ_FENCE: the Send left A at cycle %" PRIu64
				  " before the Read's data was in memory",
				  fw.send_cycle);
			cr_expect_gt(fw.send_cycle, fw.last_response_cycle,
				     "READ_FENCE: the Send left at cycle %" PRIu64
				     ", the last response arrived at %" PRIu64,
				     fw.send_cycle, fw.last_response_cycle);
			cr_log_info("READ_FENCE: last response in at cycle %" PRIu64
				    ", the Send out at %" PRIu64,
				    fw.last_response_cycle, fw.send_cycle);
		} else {
			cr_expect(!fw.data_there,
				  "without READ_FENCE the Send should leave before the Read's data "
				  "is back (else this test cannot tell)");
		}
		cr_expect(memcmp((uint8_t *)a->buf.va + 8192, r.buf.va, len) == 0, "round %d",
			  round);
	}
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	region_off(&p, b, &r);
	pair_close(&p);
}

/* Read requests A has on the wire: sent, and their last response not yet back */
struct ord_watch {
	int out, max, requests;
};

static void on_ord_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
			 const uint8_t *f, size_t len)
{
	struct ord_watch *w = ctx;
	int op = frame_opcode(f, len);
	(void)cycle;
	if (nic != 0)
		return;
	if (ev == NICSIM_FRAME_SENT && op == 0x0C) {
		w->requests++;
		if (++w->out > w->max)
			w->max = w->out;
	}
	if (ev == NICSIM_FRAME_RECEIVED && (op == 0x0F || op == 0x10))
		w->out--;
}

/* ORD: with outbound_read_limit 2, six Reads posted at once all complete, in order, and A never
 * has more than 2 Read requests outstanding on the wire (the later ones wait, they do not fail). */
Test(transport, reads_beyond_the_outbound_limit_wait_and_all_complete_in_order)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	struct pair p;
	pair_open_limits(&p, &c, 2, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 4, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	const int n = 6;
	const uint32_t len = 2000;
	fill(r.buf.va, 4 * NDK_PAGE_SIZE, 99);
	memset(a->buf.va, 0xEE, BUF_BYTES);
	struct ord_watch ow = { 0 };
	nicsim_set_frame_handler(p.sim->world, on_ord_frame, &ow);
	for (int i = 0; i < n; i++) {
		struct ndk_sge rs = sge_of(a, 2048 * i, len);
		expect_status(&wa,
			      ndk_read(a->qp, CTX(40 + i), &rs, 1,
				       (uint64_t)(uintptr_t)r.buf.va + 1000 * i,
				       ndk_get_remote_token_from_mr(r.mr),
				       i + 1 < n ? NDK_OP_FLAG_DEFER : 0),
			      NDK_STATUS_SUCCESS);
	}
	for (int i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(40 + i), 0);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	cr_expect_eq(ow.requests, n, "READ_REQUEST frames");
	cr_expect_eq(ow.max, 2, "most Read requests outstanding on the wire (ORD 2)");
	for (int i = 0; i < n; i++)
		cr_expect(memcmp((uint8_t *)a->buf.va + 2048 * i, (uint8_t *)r.buf.va + 1000 * i,
				 len) == 0,
			  "Read %d", i);
	region_off(&p, b, &r);
	pair_close(&p);
}

/* DEFER on Reads: one doorbell for the chain, every Read done in order. */
Test(transport, deferred_read_chain_rings_once)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	fill(r.buf.va, NDK_PAGE_SIZE, 17);
	const int n = 8;
	struct ndk_sim_stats s0, s1;
	ndk_sim_get_stats(p.sim, 0, &s0);
	for (int i = 0; i < n; i++) {
		struct ndk_sge rs = sge_of(a, 256 * i, 64);
		expect_status(&wa,
			      ndk_read(a->qp, CTX(200 + i), &rs, 1,
				       (uint64_t)(uintptr_t)r.buf.va + 64 * i,
				       ndk_get_remote_token_from_mr(r.mr),
				       i + 1 < n ? NDK_OP_FLAG_DEFER : 0),
			      NDK_STATUS_SUCCESS);
	}
	for (int i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(200 + i), 0);
	ndk_sim_get_stats(p.sim, 0, &s1);
	cr_expect_eq(s1.sq_doorbells - s0.sq_doorbells, 1, "doorbells for a chain of %d", n);
	for (int i = 0; i < n; i++)
		cr_expect(memcmp((uint8_t *)a->buf.va + 256 * i, (uint8_t *)r.buf.va + 64 * i,
				 64) == 0,
			  "Read %d", i);
	region_off(&p, b, &r);
	pair_close(&p);
}

/* A second connected QP pair on the same adapters */
static void side_close(struct side *s)
{
	ndk_close_qp(s->qp);
	ndk_close_cq(s->cq);
	ndk_free_buffer(s->ad, &s->buf);
	ndk_close_pd(s->pd);
}

static void other_pair_open(struct pair *p, struct side x[2])
{
	const struct pair_opts o = { 0 };
	side_open(p, 0, &x[0], p->s[0].ad, &o, 0);
	side_open(p, 1, &x[1], p->s[1].ad, &o, 1);
	qps_connect_limits(x[0].qp, x[1].qp, 1, 1);
}

/*
 * A Read the responder refuses (bad R_Key, range or right): the Read completes with `status` at
 * A, A's later Send CANCELLED, B's QP is in error too (its posted receive CANCELLED), and another
 * QP pair on the same NICs still does a Read and a Send.
 */
static void refused_read_case(uint32_t flags, uint32_t npages, uint64_t offset, uint32_t len,
			      bool bad_token, ndk_status status)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct side x[2];
	other_pair_open(&p, x);
	struct region r;
	region_on(&p, b, &r, npages, flags, 9);
	struct ndk_sge rcv = sge_of(b, 0, 64), rs = sge_of(a, 0, len), ss = sge_of(a, 0, 8);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	uint32_t rkey = ndk_get_remote_token_from_mr(r.mr);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &rs, 1, (uint64_t)(uintptr_t)r.buf.va + offset,
			       bad_token ? rkey ^ 0x01 : rkey, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, status, NDK_OP_READ, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(1), 0);

	/* the other pair: a Read from B's side and a Send both work */
	struct region r2;
	region_on(&p, &x[1], &r2, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 19);
	fill(r2.buf.va, 256, 3);
	struct ndk_sge xrs = sge_of(&x[0], 0, 256), xss = sge_of(&x[0], 0, 32),
		       xrcv = sge_of(&x[1], 0, 64);
	expect_status(&wa, ndk_receive(x[1].qp, CTX(4), &xrcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa,
		      ndk_read(x[0].qp, CTX(5), &xrs, 1, (uint64_t)(uintptr_t)r2.buf.va,
			       ndk_get_remote_token_from_mr(r2.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(x[0].qp, CTX(6), &xss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, &x[0], NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(5), 0);
	expect_cpl(&p, &x[0], NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(6), 0);
	expect_cpl(&p, &x[1], NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(4), 32);
	cr_expect(memcmp(x[0].buf.va, r2.buf.va, 256) == 0, "the other pair's Read");
	region_off(&p, &x[1], &r2);
	region_off(&p, b, &r);
	side_close(&x[0]);
	side_close(&x[1]);
	pair_close(&p);
}

Test(transport, read_with_a_bad_remote_token_fails_both_qps_and_spares_the_others)
{
	refused_read_case(NDK_OP_FLAG_ALLOW_REMOTE_READ, 1, 0, 100, true,
			  NDK_STATUS_ACCESS_VIOLATION);
}

Test(transport, read_beyond_the_remote_region_fails_both_qps)
{
	refused_read_case(NDK_OP_FLAG_ALLOW_REMOTE_READ, 1, NDK_PAGE_SIZE - 50, 100, false,
			  NDK_STATUS_ACCESS_VIOLATION);
}

Test(transport, read_from_a_region_without_remote_read_fails_both_qps)
{
	refused_read_case(NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_LOCAL_WRITE, 1, 0, 100,
			  false, NDK_STATUS_ACCESS_VIOLATION);
}

/* A Read into a local MR registered without local write fails at A's checks, before anything is
 * sent: ACCESS_VIOLATION, A's QP in error, B untouched. */
Test(transport, read_into_a_local_region_without_local_write_fails_and_sends_nothing)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region rb, ra;
	region_on(&p, b, &rb, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	region_on(&p, a, &ra, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 10);
	uint64_t fa = frames_sent(&p, 0);
	struct ndk_sge rs = { .address = (uint64_t)(uintptr_t)ra.buf.va,
			      .length = 100,
			      .token = ndk_get_local_token_from_mr(ra.mr) };
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &rs, 1, (uint64_t)(uintptr_t)rb.buf.va,
			       ndk_get_remote_token_from_mr(rb.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_READ, CTX(2), 0);
	cr_expect_eq(frames_sent(&p, 0) - fa, 0, "A sent a frame for a Read it refused");
	expect_quiet(&p, b, 3000);
	region_off(&p, a, &ra);
	region_off(&p, b, &rb);
	pair_close(&p);
}

/* A responder connected with inbound_read_limit 0 takes no Read: a Read from a peer that goes
 * beyond it is refused with NAK invalid request (REMOTE_ERROR at the requester). */
Test(transport, a_read_beyond_the_responders_inbound_limit_is_refused)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	struct pair p;
	pair_open_limits(&p, &c, 0, 1);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	struct ndk_sge rs = sge_of(a, 0, 64);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &rs, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_REMOTE_ERROR, NDK_OP_READ, CTX(2), 0);
	region_off(&p, b, &r);
	pair_close(&p);
}

/* B's read responses seen leaving its port */
struct response_watch {
	int responses;
};

static void on_response_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
			      const uint8_t *f, size_t len)
{
	struct response_watch *w = ctx;
	int op = frame_opcode(f, len);
	(void)cycle;
	if (nic == 1 && ev == NICSIM_FRAME_SENT && op >= 0x0D && op <= 0x10)
		w->responses++;
}

/* B invalidates its MR while it is sending a 64 KiB Read's responses: the response on the wire is
 * finished with zeros, a NAK remote access error follows, the Read completes ACCESS_VIOLATION at
 * A and B's QP goes to error (its posted receive CANCELLED). */
Test(transport, a_read_whose_region_is_invalidated_midway_fails_with_access_violation)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	fill(r.buf.va, 16 * NDK_PAGE_SIZE, 4);
	struct ndk_sge rcv = sge_of(b, 0, 64), rs = sge_of(a, 0, BUF_BYTES);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	struct response_watch rw = { 0 };
	nicsim_set_frame_handler(p.sim->world, on_response_frame, &rw);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &rs, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		      NDK_STATUS_SUCCESS);
	uint64_t deadline = ndk_sim_cycle(p.sim) + 100000;
	while (rw.responses == 0) {
		cr_assert_lt(ndk_sim_cycle(p.sim), deadline, "no response from B");
		ndk_sim_step(p.sim, 1);
	}
	expect_status(&wa, ndk_invalidate_mr(b->qp, CTX(3), r.mr, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(3), 0);
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_READ, CTX(2), 0);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(1), 0);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	cr_expect_lt(rw.responses, BUF_BYTES / 1024, "B stopped sending responses");
	cr_log_info("invalidated after %d of %d responses", rw.responses, BUF_BYTES / 1024);
	region_off(&p, b, &r);
	pair_close(&p);
}

/* Whether A received a Send packet while the responses of its Read were half in */
struct interleave_watch {
	bool in_read, interleaved;
};

static void on_interleave_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
				const uint8_t *f, size_t len)
{
	struct interleave_watch *w = ctx;
	int op = frame_opcode(f, len);
	(void)cycle;
	if (nic != 0 || ev != NICSIM_FRAME_RECEIVED)
		return;
	if (op == 0x0D)
		w->in_read = true;
	else if (op == 0x0F)
		w->in_read = false;
	else if (op >= 0x00 && op <= 0x04 && w->in_read)
		w->interleaved = true;
}

/* On one QP pair at once: A reads 20000 bytes from B, B reads 20000 bytes from A and B sends a
 * 5000-byte message to A. A's responder receives B's Send packets between the responses of its
 * own Read (each has its own placement state), both responders serve a Read while their
 * requesters send; every byte arrives where it should. */
Test(transport, reads_both_ways_and_a_send_interleave_on_one_qp_pair)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region ra, rb;
	region_on(&p, a, &ra, 8, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	region_on(&p, b, &rb, 8, NDK_OP_FLAG_ALLOW_REMOTE_READ, 10);
	const uint32_t rlen = 20000, slen = 5000;
	fill(ra.buf.va, rlen, 1);
	fill(rb.buf.va, rlen, 2);
	fill((uint8_t *)b->buf.va + 40000, slen, 3);
	memset(a->buf.va, 0xEE, BUF_BYTES);
	struct interleave_watch iw = { 0 };
	nicsim_set_frame_handler(p.sim->world, on_interleave_frame, &iw);
	struct ndk_sge arcv = sge_of(a, 32768, 8192), ars = sge_of(a, 0, rlen),
		       brs = sge_of(b, 0, rlen), bss = sge_of(b, 40000, slen);
	expect_status(&wa, ndk_receive(a->qp, CTX(1), &arcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &ars, 1, (uint64_t)(uintptr_t)rb.buf.va,
			       ndk_get_remote_token_from_mr(rb.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa,
		      ndk_read(b->qp, CTX(3), &brs, 1, (uint64_t)(uintptr_t)ra.buf.va,
			       ndk_get_remote_token_from_mr(ra.mr), NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(b->qp, CTX(4), &bss, 1, 0), NDK_STATUS_SUCCESS);
	/* A's receive and Read complete on one CQ in no defined order between the two queues */
	struct ndk_result_ex res[2];
	poll_side(&p, a, &res[0], 200000);
	poll_side(&p, a, &res[1], 200000);
	int rcv_at = res[0].request_context == CTX(1) ? 0 : 1;
	cr_expect_eq(res[rcv_at].request_context, CTX(1));
	cr_expect_eq(res[rcv_at].status, NDK_STATUS_SUCCESS);
	cr_expect_eq(res[rcv_at].type, NDK_OP_RECEIVE);
	cr_expect_eq(res[rcv_at].bytes_transferred, slen);
	cr_expect_eq(res[1 - rcv_at].request_context, CTX(2));
	cr_expect_eq(res[1 - rcv_at].status, NDK_STATUS_SUCCESS, "A's Read: %s",
		     ndk_status_name(res[1 - rcv_at].status));
	cr_expect_eq(res[1 - rcv_at].type, NDK_OP_READ);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(3), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(4), 0);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	cr_expect(iw.interleaved, "no Send packet reached A between its Read's responses");
	cr_expect(memcmp(a->buf.va, rb.buf.va, rlen) == 0, "A's Read");
	cr_expect(memcmp(b->buf.va, ra.buf.va, rlen) == 0, "B's Read");
	cr_expect(memcmp((uint8_t *)a->buf.va + 32768, (uint8_t *)b->buf.va + 40000, slen) == 0,
		  "B's Send");
	region_off(&p, a, &ra);
	region_off(&p, b, &rb);
	pair_close(&p);
}

/* B's responder answers Reads from its read-response queue and goes on receiving: A reads 30000
 * bytes from B (30 responses at MTU 1024) and then sends B 64 bytes on the same QP. B's receive
 * completes while most of the Read's responses are still to come (a responder that served the
 * Read before taking the next packet would complete it only after the last response). A's Send
 * completes after its Read: B's ACK of the Send waits for the Read's responses (PSN order). */
Test(transport, a_responder_receives_while_it_answers_a_read)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region rb;
	region_on(&p, b, &rb, 8, NDK_OP_FLAG_ALLOW_REMOTE_READ, 11);
	const uint32_t rlen = 30000, slen = 64;
	fill(rb.buf.va, rlen, 4);
	fill((uint8_t *)a->buf.va + 40000, slen, 5);
	struct response_watch rc = { 0 };
	nicsim_set_frame_handler(p.sim->world, on_response_frame, &rc);
	struct ndk_sge brcv = sge_of(b, 0, 4096), ars = sge_of(a, 0, rlen),
		       ass = sge_of(a, 40000, slen);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &brcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &ars, 1, (uint64_t)(uintptr_t)rb.buf.va,
			       ndk_get_remote_token_from_mr(rb.mr), NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &ass, 1, 0), NDK_STATUS_SUCCESS);
	struct ndk_result_ex r;
	poll_side(&p, b, &r, 200000);
	int at_receive = rc.responses;
	cr_expect_eq(r.request_context, CTX(1));
	cr_expect_eq(r.status, NDK_STATUS_SUCCESS);
	cr_expect_eq(r.bytes_transferred, slen);
	cr_expect_lt(at_receive, 15, "B's receive completed after %d of the Read's 30 responses",
		     at_receive);
	cr_log_info("B's receive completed after %d of 30 responses", at_receive);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(3), 0);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	cr_expect_eq(rc.responses, 30);
	cr_expect(memcmp(a->buf.va, rb.buf.va, rlen) == 0, "A's Read");
	cr_expect(memcmp(b->buf.va, (uint8_t *)a->buf.va + 40000, slen) == 0, "A's Send");
	region_off(&p, b, &rb);
	pair_close(&p);
}

/* The core advertises Reads (CAP_TRANSPORT.read) and its read limit (READ_LIMIT: 32 per QP in
 * each direction); ndk_connect_qp takes limits up to it and refuses one above. */
Test(transport, the_adapter_reports_reads_and_their_limit)
{
	struct ndk_sim *sim;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	cr_assert_eq(ndk_sim_create(&c, &sim), NDK_STATUS_SUCCESS);
	struct ndk_adapter *ad;
	cr_assert_eq(ndk_sim_open_adapter(sim, 0, &ad), NDK_STATUS_SUCCESS);
	struct ndk_adapter_info info;
	cr_assert_eq(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
	cr_expect_eq(info.max_inbound_read_limit, 32);
	cr_expect_eq(info.max_outbound_read_limit, 32);
	cr_expect_eq(info.max_read_request_sge, 2);
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	cr_assert_eq(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(ad, 16, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
	struct ndk_qp_attr a = { .receive_cq = cq,
				 .initiator_cq = cq,
				 .receive_queue_depth = 4,
				 .initiator_queue_depth = 4,
				 .max_receive_request_sge = 1,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(pd, &a, &qp), NDK_STATUS_SUCCESS);
	struct ndk_qp_address self;
	cr_assert_eq(ndk_get_qp_address(qp, &self), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_connect_qp(qp, &self, 33, 32), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_connect_qp(qp, &self, 32, 33), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_connect_qp(qp, &self, 32, 32), NDK_STATUS_SUCCESS);
	ndk_close_qp(qp);
	ndk_close_cq(cq);
	ndk_close_pd(pd);
	ndk_close_adapter(ad);
	ndk_sim_destroy(sim);
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

/*
 * The requester keeps several payload reads in flight (docs/transport.md, "RTL structure"): eight
 * 4 KiB Writes in one DEFER chain stream at a rate only overlapped reads give. One read at a time
 * (a DMA round trip per 1024-byte packet) took 801 cycles a Write at 256 bits and 1185 at 64;
 * overlapped, 180 and 564. The bound allows 1500 cycles of start-up (doorbell, WQE fetch, the
 * first round trips, the last ACK and CQE) plus 16 / 6 bytes a cycle (256 / 64 bits). Every byte
 * is checked.
 */
Test(transport, writes_of_4_kib_overlap_their_payload_reads)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	struct pair p;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	const unsigned n = 8;
	struct region r;
	region_on(&p, b, &r, n, NDK_OP_FLAG_ALLOW_REMOTE_WRITE, 9);
	memset(r.buf.va, 0, n * NDK_PAGE_SIZE);
	fill(a->buf.va, n * NDK_PAGE_SIZE, 33);
	uint32_t rkey = ndk_get_remote_token_from_mr(r.mr);
	uint64_t t0 = ndk_sim_cycle(p.sim);
	for (unsigned i = 0; i < n; i++) {
		struct ndk_sge g = sge_of(a, i * NDK_PAGE_SIZE, NDK_PAGE_SIZE);
		expect_status(&wa,
			      ndk_write(a->qp, CTX(20 + i), &g, 1,
					(uint64_t)(uintptr_t)r.buf.va + i * NDK_PAGE_SIZE, rkey,
					i + 1 < n ? NDK_OP_FLAG_DEFER : 0),
			      NDK_STATUS_SUCCESS);
	}
	for (unsigned i = 0; i < n; i++)
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(20 + i), 0);
	uint64_t took = ndk_sim_cycle(p.sim) - t0;
	uint64_t bound = 1500 + (uint64_t)n * NDK_PAGE_SIZE / (c.data_width == 256 ? 16 : 6);
	cr_expect_leq(took, bound, "%u Writes of 4 KiB took %" PRIu64 " cycles, bound %" PRIu64, n,
		      took, bound);
	cr_expect(memcmp(a->buf.va, r.buf.va, n * NDK_PAGE_SIZE) == 0,
		  "the written bytes differ from the source");
	cr_log_info("%u Writes of 4 KiB at width %u: %" PRIu64 " cycles post to last CQE", n,
		    c.data_width, took);
	region_off(&p, b, &r);
	pair_close(&p);
}

/*
 * The requester gathers a message's bytes through a local MR whose pages are not in address
 * order (buffer pages 2, 0, 1 registered as the MR's pages 0, 1, 2), so every piece must be
 * translated on its own: after the first packet, in the SGEs after the first, and where an SGE
 * crosses a page. A Send (a zero-length SGE first, then two SGEs in the MR, one across a page
 * boundary) and a Write (an SGE across a page boundary in the MR, then a privileged one) deliver
 * exactly the bytes the MR's addresses name, at 256-byte packets.
 */
static void expect_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			cr_assert_fail("%s: byte %zu is 0x%02x, want 0x%02x", what, i, got[i],
				       want[i]);
}

Test(transport, send_and_write_gather_through_a_region_whose_pages_are_out_of_order)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	c.path_mtu = 256;
	struct pair p;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region ra, rb;
	static const unsigned perm[3] = { 2, 0, 1 };
	region_make(&wa, &ra, 3, false);
	for (unsigned i = 0; i < 3; i++)
		ra.pages[i] = ra.buf.logical + (uint64_t)perm[i] * NDK_PAGE_SIZE;
	expect_status(&wa, region_register(&wa, &ra, CTX(1), 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1), 0);
	region_on(&p, b, &rb, 2, NDK_OP_FLAG_ALLOW_REMOTE_WRITE, 2);
	fill(ra.buf.va, 3 * NDK_PAGE_SIZE, 77);
	/* the byte at the MR's address va + x */
	const uint8_t *bytes = ra.buf.va;
#define MR_BYTE(x) bytes[perm[(x) / NDK_PAGE_SIZE] * NDK_PAGE_SIZE + (x) % NDK_PAGE_SIZE]
	uint64_t va = (uint64_t)(uintptr_t)ra.buf.va;
	uint32_t lkey = ndk_get_local_token_from_mr(ra.mr);

	/* Send: 0 bytes at va + 50, 5000 at va + 100 (pages 0 and 1), 2000 at va + 9000 (page 2) */
	static uint8_t want[8000];
	size_t n = 0;
	for (uint32_t x = 100; x < 5100; x++)
		want[n++] = MR_BYTE(x);
	for (uint32_t x = 9000; x < 11000; x++)
		want[n++] = MR_BYTE(x);
	uint8_t *dst = b->buf.va;
	memset(dst, 0xEE, n + 64);
	struct ndk_sge rcv = sge_of(b, 0, (uint32_t)n + 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(3), &rcv, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge ss[3] = { { .address = va + 50, .length = 0, .token = lkey },
				 { .address = va + 100, .length = 5000, .token = lkey },
				 { .address = va + 9000, .length = 2000, .token = lkey } };
	expect_status(&wa, ndk_send(a->qp, CTX(4), ss, 3, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(3), (uint32_t)n);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(4), 0);
	expect_bytes(dst, want, n, "Send");
	for (size_t i = n; i < n + 64; i++)
		cr_assert_eq(dst[i], 0xEE, "byte %zu past the Send was written", i);

	/* Write: 3000 bytes at va + 3000 (pages 0 and 1), then 500 privileged bytes of A's buffer */
	n = 0;
	for (uint32_t x = 3000; x < 6000; x++)
		want[n++] = MR_BYTE(x);
	fill(a->buf.va, 500, 78);
	memcpy(want + n, a->buf.va, 500);
	n += 500;
#undef MR_BYTE
	memset(rb.buf.va, 0xEE, 2 * NDK_PAGE_SIZE);
	struct ndk_sge ws[2] = { { .address = va + 3000, .length = 3000, .token = lkey },
				 sge_of(a, 0, 500) };
	expect_status(&wa,
		      ndk_write(a->qp, CTX(5), ws, 2, (uint64_t)(uintptr_t)rb.buf.va + 10,
				ndk_get_remote_token_from_mr(rb.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(5), 0);
	const uint8_t *wdst = (const uint8_t *)rb.buf.va + 10;
	expect_bytes(wdst, want, n, "Write");
	cr_assert_eq(wdst[-1], 0xEE, "the byte before the Write was written");
	cr_assert_eq(wdst[n], 0xEE, "the byte after the Write was written");
	region_off(&p, b, &rb);
	region_off(&p, a, &ra);
	pair_close(&p);
}

/*
 * A local request behind a transport request of the same QP waits for it (IBA: the send queue
 * completes in order): a FastRegister posted right after a Send that finds no receive (it is
 * retried on RNR NAKs) neither executes nor completes while the Send is outstanding; once the
 * receive is posted the Send completes, then the FastRegister, in that order.
 */
Test(transport, a_local_request_behind_a_send_waits_for_it)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_make(&wa, &r, 1, false);
	fill(a->buf.va, 64, 5);
	struct ndk_sge s = sge_of(a, 0, 64);
	expect_status(&wa, ndk_send(a->qp, CTX(1), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_status(&wa, region_register(&wa, &r, CTX(2), 0), NDK_STATUS_SUCCESS);
	expect_no_cpl(&p, a->cq, 20000); /* two RNR retries at 10 us */
	struct ndk_sge rcv = sge_of(b, 0, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(3), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(3), 64);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(1), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(2), 0);
	cr_expect(memcmp(a->buf.va, b->buf.va, 64) == 0, "the received bytes differ");
	region_off(&p, a, &r);
	pair_close(&p);
}

/*
 * A Read WQE with the INLINE flag (a Read has no inline data; libndk never writes one: this one
 * is spoilt in the ring after a deferred post): INVALID_PARAMETER at the requester's checks,
 * before anything is sent; the QP goes to error and the Send behind it completes CANCELLED.
 */
Test(transport, a_read_wqe_with_the_inline_flag_fails_and_sends_nothing)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	uint64_t fa = frames_sent(&p, 0);
	struct ndk_sge rs = sge_of(a, 0, 100), s = sge_of(a, 200, 16);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &rs, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	struct nic_wqe_rdma *wqe =
		(struct nic_wqe_rdma *)((uint8_t *)a->qp->sq.ring +
					((a->qp->sq.pi - 1) & (a->qp->sq.depth - 1)) *
						NIC_WQE_BYTES);
	cr_assert_eq(wqe->opcode, NIC_WQE_OP_READ);
	wqe->flags = htole16(le16toh(wqe->flags) | NDK_OP_FLAG_INLINE);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_INVALID_PARAMETER, NDK_OP_READ, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	expect_quiet(&p, b, 3000);
	cr_expect_eq(frames_sent(&p, 0) - fa, 0, "A sent %" PRIu64 " frames",
		     frames_sent(&p, 0) - fa);
	region_off(&p, b, &r);
	pair_close(&p);
}

/*
 * A receive queue entry that is no receive WQE (opcode SEND, written by hand and rung): the
 * responder takes the ring as corrupt: the Send that would land there is refused with NAK remote
 * operational error (REMOTE_ERROR at the requester), the entry completes INVALID_PARAMETER at
 * the responder, nothing is written into the memory it names, and the responder's QP goes to
 * error (a receive posted after it completes CANCELLED).
 */
Test(transport, a_receive_queue_entry_that_is_no_receive_fails_the_send_landing_on_it)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct ndk_wq *rq = &b->qp->rq;
	struct nic_wqe_recv *wqe =
		(struct nic_wqe_recv *)((uint8_t *)rq->ring +
					(rq->pi & (rq->depth - 1)) * NIC_WQE_BYTES);
	memset(wqe, 0, sizeof(*wqe));
	wqe->opcode = NIC_WQE_OP_SEND;
	wqe->nsge = 1;
	wqe->index = htole16((uint16_t)rq->pi);
	wqe->length = htole32(64);
	wqe->sge0.address = htole64(b->buf.logical);
	wqe->sge0.length = htole32(64);
	wqe->sge0.token = htole32(b->priv);
	rq->ctx[rq->pi & (rq->depth - 1)] = CTX(1);
	rq->pi++;
	rq->rung = rq->pi;
	nicsim_mmio_write32(p.sim->world, 1, b->qp->db + NIC_DB_RQ_PI, (uint16_t)rq->pi);
	memset(b->buf.va, 0xEE, 128);
	fill(a->buf.va, 64, 6);
	struct ndk_sge s = sge_of(a, 0, 64);
	expect_status(&wa, ndk_send(a->qp, CTX(2), &s, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_REMOTE_ERROR, NDK_OP_SEND, CTX(2), 0);
	struct ndk_result_ex res;
	poll_side(&p, b, &res, 200000);
	cr_expect_eq(res.status, NDK_STATUS_INVALID_PARAMETER, "the entry completed %s",
		     ndk_status_name(res.status));
	cr_expect_eq(res.request_context, CTX(1));
	for (int i = 0; i < 128; i++)
		cr_assert_eq(((uint8_t *)b->buf.va)[i], 0xEE, "byte %d of the receive was written",
			     i);
	struct ndk_sge rcv = sge_of(b, 256, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(3), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(3), 0);
	pair_close(&p);
}

/*
 * A request behind one that fails the requester's own checks is flushed, never sent: a Send, a
 * Read into a local MR registered without local write (ACCESS_VIOLATION before anything goes
 * out) and a second Send, posted in one chain. The first Send is delivered and completes
 * SUCCESS; the Read fails; the second Send completes CANCELLED and the peer never sees it: its
 * receive stays posted and its buffer untouched, and A sends one request in all. (The QP's
 * error state arrives only when the failed entry completes, behind the first Send's ACK; before
 * the fix the second Send went out meanwhile and was received while A reported it CANCELLED.)
 */
Test(transport, a_send_behind_a_request_that_fails_its_local_checks_is_cancelled_and_never_sent)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region rb, ra;
	region_on(&p, b, &rb, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	region_on(&p, a, &ra, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ, 10);
	struct ndk_sge r1 = sge_of(b, 0, 64), r2 = sge_of(b, 256, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &r1, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_receive(b->qp, CTX(2), &r2, 1), NDK_STATUS_SUCCESS);
	memset(b->buf.va, 0xEE, 512);
	fill(a->buf.va, 512, 8);
	uint64_t fa = frames_sent(&p, 0);
	struct ndk_sge s1 = sge_of(a, 0, 64), s2 = sge_of(a, 256, 64);
	struct ndk_sge rs = { .address = (uint64_t)(uintptr_t)ra.buf.va,
			      .length = 100,
			      .token = ndk_get_local_token_from_mr(ra.mr) };
	expect_status(&wa, ndk_send(a->qp, CTX(3), &s1, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(4), &rs, 1, (uint64_t)(uintptr_t)rb.buf.va,
			       ndk_get_remote_token_from_mr(rb.mr), NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(5), &s2, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 64);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(3), 0);
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_READ, CTX(4), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(5), 0);
	expect_quiet(&p, b, 5000);
	cr_expect(memcmp(b->buf.va, a->buf.va, 64) == 0, "the first Send's bytes differ");
	for (int i = 256; i < 512; i++)
		cr_assert_eq(((uint8_t *)b->buf.va)[i], 0xEE,
			     "byte %d of the second receive was written", i);
	cr_expect_eq(frames_sent(&p, 0) - fa, 1, "A sent %" PRIu64 " frames, want the first Send",
		     frames_sent(&p, 0) - fa);
	region_off(&p, a, &ra);
	region_off(&p, b, &rb);
	pair_close(&p);
}

/* B's read responses by PSN, and A's Read requests' PSNs */
struct read_psn_watch {
	uint32_t req_psn[2];
	int reqs;
	int responses_from[2]; /* responses with a PSN from req_psn[i] on */
};

static void on_read_psn_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
			      const uint8_t *f, size_t len)
{
	struct read_psn_watch *w = ctx;
	struct roce_ref_fields r;
	(void)cycle;
	if (ev != NICSIM_FRAME_SENT || roce_ref_parse(f, len, &r) != ROCE_REF_OK)
		return;
	if (nic == 0 && r.opcode == 0x0C && w->reqs < 2)
		w->req_psn[w->reqs++] = r.psn;
	if (nic == 1 && r.opcode >= 0x0D && r.opcode <= 0x10)
		for (int i = 0; i < w->reqs; i++)
			w->responses_from[i] += r.psn >= w->req_psn[i];
}

/*
 * Two Reads from one region of B's; B invalidates the region while the first one's responses
 * are on the wire. The first fails ACCESS_VIOLATION (NAK remote access error); the second, queued
 * at B's read engine behind it, is dropped there: B sends not one response for it, and it
 * completes CANCELLED at A (its QP in error), its sink untouched.
 */
Test(transport, a_read_queued_behind_one_that_fails_midway_is_dropped_by_the_responder)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct region r;
	region_on(&p, b, &r, 16, NDK_OP_FLAG_ALLOW_REMOTE_READ, 9);
	fill(r.buf.va, 16 * NDK_PAGE_SIZE, 4);
	memset(a->buf.va, 0xEE, BUF_BYTES);
	struct ndk_sge rs1 = sge_of(a, 0, 48 * 1024), rs2 = sge_of(a, 60 * 1024, 1024);
	struct read_psn_watch rw = { 0 };
	nicsim_set_frame_handler(p.sim->world, on_read_psn_frame, &rw);
	uint32_t rkey = ndk_get_remote_token_from_mr(r.mr);
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	expect_status(&wa, ndk_read(a->qp, CTX(2), &rs1, 1, va, rkey, NDK_OP_FLAG_DEFER),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_read(a->qp, CTX(3), &rs2, 1, va + 4096, rkey, 0),
		      NDK_STATUS_SUCCESS);
	uint64_t deadline = ndk_sim_cycle(p.sim) + 100000;
	while (rw.reqs < 2 || rw.responses_from[0] == 0) {
		cr_assert_lt(ndk_sim_cycle(p.sim), deadline, "no response from B");
		ndk_sim_step(p.sim, 1);
	}
	expect_status(&wa, ndk_invalidate_mr(b->qp, CTX(4), r.mr, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(4), 0);
	expect_cpl(&p, a, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_READ, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_READ, CTX(3), 0);
	expect_quiet(&p, a, 5000);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	cr_expect_lt(rw.responses_from[0], 48, "B stopped sending the first Read's responses");
	cr_expect_eq(rw.responses_from[1], 0, "B sent %d responses of the second Read",
		     rw.responses_from[1]);
	for (int i = 60 * 1024; i < 61 * 1024; i++)
		cr_assert_eq(((uint8_t *)a->buf.va)[i], 0xEE, "byte %d of the second sink written",
			     i);
	cr_log_info("invalidated after %d of 48 responses", rw.responses_from[0]);
	region_off(&p, b, &r);
	pair_close(&p);
}
