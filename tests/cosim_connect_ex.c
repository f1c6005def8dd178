/* SPDX-License-Identifier: MIT */
/*
 * connect_ex   ndk_connect_qp_ex and ndk_connect_attr_default (ndk.h): the defaults, every
 *              refused value, and start PSNs chosen by the peer (as perftest and ibv_rc_pingpong
 *              draw them) obeyed on the wire: the requests' PSNs, the responses' and ACKs'
 *              PSNs, across the 24-bit wrap, and a peer expecting another PSN NAKs.
 */
#include "cosim_pair.h"
#include "nic_hw.h"
#include "backend_sim.h" /* the world behind an ndk_sim, to watch its frames */
#include "nicsim.h"
#include "roce_ref.h"

#define CTX(n) ((void *)(uintptr_t)(n))

Test(connect_ex, attr_default_is_the_documented_one)
{
	struct ndk_connect_attr a;
	memset(&a, 0xA5, sizeof(a));
	ndk_connect_attr_default(&a);
	cr_expect_eq(a.inbound_read_limit, 0);
	cr_expect_eq(a.outbound_read_limit, 0);
	cr_expect_eq(a.local_psn, 0);
	cr_expect_eq(a.remote_psn, 0);
	cr_expect_eq(a.ack_timeout, 14);
	cr_expect_eq(a.retry_count, 7);
	cr_expect_eq(a.rnr_retry, 7);
	ndk_connect_attr_default(NULL); /* a no-op, not a crash */
}

/* one QP pair, not connected */
static void pair_unconnected(struct pair *p)
{
	struct ndk_sim_config c;
	const struct pair_opts o = { 0 };
	ndk_sim_default_config(&c);
	c.nics = 2;
	memset(p, 0, sizeof(*p));
	cr_assert_eq(ndk_sim_create(&c, &p->sim), NDK_STATUS_SUCCESS);
	side_open(p, 0, &p->s[0], NULL, &o, 0);
	side_open(p, 1, &p->s[1], NULL, &o, 1);
}

Test(connect_ex, refuses_every_value_out_of_range_and_stays_connectable)
{
	struct pair p;
	pair_unconnected(&p);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct ndk_qp_address pb;
	cr_assert_eq(ndk_get_qp_address(b->qp, &pb), NDK_STATUS_SUCCESS);
	struct ndk_connect_attr good, bad;
	ndk_connect_attr_default(&good);

	cr_expect_eq(ndk_connect_qp_ex(NULL, &pb, &good), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_connect_qp_ex(a->qp, NULL, &good), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, NULL), NDK_STATUS_INVALID_PARAMETER);
	bad = good;
	bad.local_psn = 1u << 24;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "local_psn");
	bad = good;
	bad.remote_psn = 0xFFFFFFFFu;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "remote_psn");
	bad = good;
	bad.ack_timeout = 32;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "ack_timeout");
	bad = good;
	bad.retry_count = 8;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "retry_count");
	bad = good;
	bad.rnr_retry = 8;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "rnr_retry");
	bad = good;
	bad.inbound_read_limit = a->info.max_inbound_read_limit + 1;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "inbound_read_limit");
	bad = good;
	bad.outbound_read_limit = a->info.max_outbound_read_limit + 1;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_INVALID_PARAMETER,
		     "outbound_read_limit");
	struct ndk_qp_address far = pb;
	far.qp_number = 1u << 24;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &far, &good), NDK_STATUS_INVALID_PARAMETER,
		     "peer QP number");

	/* nothing refused reached the device: the QP connects now, once */
	bad = good;
	bad.local_psn = 0xFFFFFF;
	bad.remote_psn = 0xFFFFFF;
	bad.ack_timeout = 31;
	bad.retry_count = 0;
	bad.rnr_retry = 0;
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &bad), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_connect_qp_ex(a->qp, &pb, &good), NDK_STATUS_INVALID_DEVICE_STATE);
	pair_close(&p);
}

/* every RoCE frame each NIC sent: opcode, PSN, syndrome */
#define MAX_SEEN 64
struct seen {
	unsigned n[2];
	struct roce_ref_fields f[2][MAX_SEEN];
};

static void on_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
		     const uint8_t *frame, size_t len)
{
	struct seen *s = ctx;
	(void)cycle;
	if (ev != NICSIM_FRAME_SENT || nic > 1 || s->n[nic] == MAX_SEEN)
		return;
	struct roce_ref_fields f;
	if (roce_ref_parse(frame, len, &f) != ROCE_REF_OK)
		return;
	f.payload = NULL; /* the frame's bytes are gone after the call */
	s->f[nic][s->n[nic]++] = f;
}

static void connect_psns_retry(struct pair *p, uint32_t a_sends, uint32_t b_expects,
			       uint32_t b_sends, uint32_t a_expects, uint8_t ack_timeout,
			       uint8_t retry_count)
{
	struct side *a = &p->s[0], *b = &p->s[1];
	struct ndk_qp_address pa, pb;
	cr_assert_eq(ndk_get_qp_address(a->qp, &pa), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_get_qp_address(b->qp, &pb), NDK_STATUS_SUCCESS);
	struct ndk_connect_attr ca, cb;
	ndk_connect_attr_default(&ca);
	ca.inbound_read_limit = a->info.max_inbound_read_limit;
	ca.outbound_read_limit = a->info.max_outbound_read_limit;
	ca.ack_timeout = ack_timeout;
	ca.retry_count = retry_count;
	cb = ca;
	ca.local_psn = a_sends;
	ca.remote_psn = a_expects;
	cb.local_psn = b_sends;
	cb.remote_psn = b_expects;
	cr_assert_eq(ndk_connect_qp_ex(a->qp, &pb, &ca), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp_ex(b->qp, &pa, &cb), NDK_STATUS_SUCCESS);
}

static void connect_psns(struct pair *p, uint32_t a_sends, uint32_t b_expects, uint32_t b_sends,
			 uint32_t a_expects)
{
	connect_psns_retry(p, a_sends, b_expects, b_sends, a_expects, 14, 7);
}

/*
 * A sends from 0xFFFFFE, B from 0x123456. A's 4-packet Send (MTU 1024) carries PSNs FFFFFE,
 * FFFFFF, 0, 1 and B acknowledges in A's space; B's Send to A starts at 0x123456; A's Read of
 * B's region: its request takes A's next PSN and the 2 responses carry it and the one after.
 */
Test(connect_ex, start_psns_from_the_peer_are_obeyed_across_the_wrap)
{
	struct pair p;
	pair_unconnected(&p);
	struct side *a = &p.s[0], *b = &p.s[1];
	connect_psns(&p, 0xFFFFFE, 0xFFFFFE, 0x123456, 0x123456);
	struct seen *seen = calloc(1, sizeof(*seen));
	cr_assert(seen);
	nicsim_set_frame_handler(p.sim->world, on_frame, seen);

	const uint32_t len = 4096;
	fill(a->buf.va, len, 7);
	struct ndk_sge snd = sge_of(a, 0, len), rcv = sge_of(b, 0, len);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(2), &snd, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), len);
	cr_expect(memcmp(b->buf.va, a->buf.va, len) == 0, "the Send's data differs");

	/* B to A: 16 bytes, one packet */
	struct ndk_sge snd_b = sge_of(b, 8192, 16), rcv_a = sge_of(a, 8192, 16);
	fill((uint8_t *)b->buf.va + 8192, 16, 9);
	cr_assert_eq(ndk_receive(a->qp, CTX(3), &rcv_a, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(b->qp, CTX(4), &snd_b, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(4), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(3), 16);

	/* A reads 2048 bytes of B's region: 2 response packets */
	struct region r;
	side_region(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ);
	fill(r.buf.va, 2048, 11);
	struct ndk_sge rd = sge_of(a, 16384, 2048);
	cr_assert_eq(ndk_read(a->qp, CTX(5), &rd, 1, (uint64_t)(uintptr_t)r.buf.va,
			      ndk_get_remote_token_from_mr(r.mr), 0),
		     NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(5), 0);
	cr_expect(memcmp((uint8_t *)a->buf.va + 16384, r.buf.va, 2048) == 0,
		  "the Read's data differs");

	/* A's requests: SEND FIRST..LAST, then the Read request; B acknowledged in A's space */
	const uint32_t want_a[] = { 0xFFFFFE, 0xFFFFFF, 0, 1 };
	unsigned req = 0;
	bool read_seen = false, ack_seen = false;
	uint32_t read_psn = 0;
	for (unsigned i = 0; i < seen->n[0]; i++) {
		const struct roce_ref_fields *f = &seen->f[0][i];
		if (f->opcode <= 0x05) { /* RC SEND FIRST..ONLY_WITH_IMM */
			cr_assert_lt(req, 4u);
			cr_expect_eq(f->psn, want_a[req],
				     "A's Send packet %u: PSN 0x%06x, want 0x%06x", req, f->psn,
				     want_a[req]);
			req++;
		} else if (f->opcode == 0x0C) { /* RDMA READ request */
			read_seen = true;
			read_psn = f->psn;
			cr_expect_eq(f->psn, 2u, "the Read takes the PSN after the Send's last");
		} else if (f->opcode == 0x11 && f->psn == 0x123456) { /* A's ACK of B's Send */
			ack_seen = true;
		}
	}
	cr_expect_eq(req, 4u, "A sent %u Send packets", req);
	cr_expect(read_seen);
	cr_expect(ack_seen, "A acknowledged B's Send at PSN 0x123456");
	unsigned acks = 0, b_send = 0, responses = 0;
	for (unsigned i = 0; i < seen->n[1]; i++) {
		const struct roce_ref_fields *f = &seen->f[1][i];
		if (f->opcode == 0x11) {
			cr_expect(f->psn == 1 || f->psn == 0 || f->psn == 0xFFFFFF ||
					  f->psn == 0xFFFFFE,
				  "B's ACK of PSN 0x%06x: not one of A's Send", f->psn);
			acks++;
		} else if (f->opcode == 0x04) { /* SEND ONLY */
			cr_expect_eq(f->psn, 0x123456u);
			b_send++;
		} else if (f->opcode >= 0x0D && f->opcode <= 0x0F) { /* READ RESPONSE */
			cr_expect_eq(f->psn, read_psn + responses, "response %u: PSN 0x%06x",
				     responses, f->psn);
			responses++;
		}
	}
	cr_expect_geq(acks, 1u);
	cr_expect_eq(b_send, 1u);
	cr_expect_eq(responses, 2u);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	side_region_free(&p, b, &r);
	free(seen);
	pair_close(&p);
}

/*
 * A sends from PSN 5 where B expects 0: B finds the packet ahead and NAKs a sequence error once,
 * naming PSN 0 (before anything A has outstanding: A ignores it), then drops A's packets
 * silently. A's ACK timer (ack_timeout 1: 9 us) sends the Send again retry_count = 2 times, then
 * it fails IO_TIMEOUT; B received nothing (the same pair connected with matching PSNs delivers,
 * above).
 */
Test(connect_ex, a_peer_expecting_another_psn_naks_the_send)
{
	struct pair p;
	pair_unconnected(&p);
	struct side *a = &p.s[0], *b = &p.s[1];
	connect_psns_retry(&p, 5, 0, 0, 0, 1, 2);
	struct seen *seen = calloc(1, sizeof(*seen));
	cr_assert(seen);
	nicsim_set_frame_handler(p.sim->world, on_frame, seen);
	struct ndk_sge snd = sge_of(a, 0, 64), rcv = sge_of(b, 0, 64);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(2), &snd, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_IO_TIMEOUT, NDK_OP_SEND, CTX(2), 0);
	expect_no_cpl(&p, b->cq, 20000);
	unsigned sends = 0, naks = 0;
	for (unsigned i = 0; i < seen->n[0]; i++)
		sends += seen->f[0][i].opcode == 0x04 && seen->f[0][i].psn == 5;
	for (unsigned i = 0; i < seen->n[1]; i++)
		naks += seen->f[1][i].opcode == 0x11 && seen->f[1][i].aeth_syndrome == 0x60 &&
			seen->f[1][i].psn == 0;
	cr_expect_eq(sends, 3, "A sent the Send %u times", sends);
	cr_expect_eq(naks, 1, "B sent %u sequence NAKs", naks);
	nicsim_set_frame_handler(p.sim->world, NULL, NULL);
	free(seen);
	pair_close(&p);
}

/*
 * A QP_CONNECT for a QP that is connected already (written to BAR0 below the driver, which
 * refuses a second connect itself) is refused by the NIC: the QP stays RTS and its connection
 * keeps its peer and PSNs. The stray command names another peer QP and other start PSNs; had
 * the transport taken it, A's next Send would carry a PSN B does not expect, to a QP that does
 * not exist, and B's next Send would be NAKed as out of sequence.
 */
Test(connect_ex, a_connect_to_a_connected_qp_is_refused_and_the_connection_is_unchanged)
{
	struct pair p;
	pair_unconnected(&p);
	struct side *a = &p.s[0], *b = &p.s[1];
	connect_psns(&p, 0x000100, 0x000100, 0x000200, 0x000200);
	struct ndk_qp_address pa;
	cr_assert_eq(ndk_get_qp_address(a->qp, &pa), NDK_STATUS_SUCCESS);
	const uint32_t a_idx = pa.qp_number - NIC_QPN_BASE;

	/* one Send each way on the connection as made */
	struct ndk_sge snd = sge_of(a, 0, 64), rcv = sge_of(b, 0, 64);
	fill(a->buf.va, 64, 3);
	cr_assert_eq(ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(2), &snd, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 64);

	/* the stray QP_CONNECT on A's QP: another peer QP, MTU, read limits and PSNs */
	struct nic_cmd_qp_connect q = {
		.peer_mac = 0x02AABBCCDDEEull,
		.peer_ipv4 = 0x0a0000fe,
		.peer_qpn = pa.qp_number + 5,
		.sq_psn = 0x777777,
		.rq_psn = 0x555555,
		.log_mtu = NIC_LOG_MTU_MIN,
		.outbound_read_limit = 1,
		.inbound_read_limit = 1,
	};
	uint32_t args[NIC_CMD_QP_CONNECT_WORDS], word;
	const struct nic_cmd c = { .opcode = NIC_CMD_QP_CONNECT, .index = (uint16_t)a_idx };
	nic_cmd_qp_connect_pack(&q, args);
	for (unsigned i = 0; i < NIC_CMD_QP_CONNECT_WORDS; i++)
		nicsim_mmio_write32(p.sim->world, 0, NIC_REG_ARG0 + 4 * i, args[i]);
	nic_cmd_pack(&c, &word);
	nicsim_mmio_write32(p.sim->world, 0, NIC_REG_CMD, word);
	cr_assert_eq(nicsim_mmio_read32(p.sim->world, 0, NIC_REG_QP_STATE_BASE + 4 * a_idx),
		     NIC_QP_STATE_RTS, "the connected QP stays RTS");

	/* the connection is as it was: a 4 KiB Send A -> B and a Send B -> A, bytes intact */
	const uint32_t len = 4096;
	fill(a->buf.va, len, 5);
	snd = sge_of(a, 0, len);
	rcv = sge_of(b, 0, len);
	cr_assert_eq(ndk_receive(b->qp, CTX(3), &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(4), &snd, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(4), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(3), len);
	cr_expect(memcmp(b->buf.va, a->buf.va, len) == 0, "A's Send's data differs");
	struct ndk_sge snd_b = sge_of(b, 8192, 32), rcv_a = sge_of(a, 8192, 32);
	fill((uint8_t *)b->buf.va + 8192, 32, 6);
	cr_assert_eq(ndk_receive(a->qp, CTX(5), &rcv_a, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(b->qp, CTX(6), &snd_b, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(6), 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(5), 32);
	cr_expect(memcmp((uint8_t *)a->buf.va + 8192, (uint8_t *)b->buf.va + 8192, 32) == 0,
		  "B's Send's data differs");
	pair_close(&p);
}
