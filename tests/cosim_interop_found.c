/* SPDX-License-Identifier: MIT */
/*
 * interop_found   what the interoperability runs against Linux's rdma_rxe and rdma-core's tools
 *                 (docs/interop.md) found wrong in ndknic, each reduced to a run of its own.
 */
#include "cosim_pair.h"

#define CTX(n) ((void *)(uintptr_t)(n))

/*
 * A QP closed right after receives were posted: the NIC's prefetch of those receive WQEs was
 * planned, or its read request waiting for the bus, when QP_DESTROY came; the burst then went
 * out as if the QP still existed and its WQEs landed in a cache slot nobody reserved
 * (nic_responder's a_pf_reserved assertion; without assertions, the next QP of that number
 * would find a stranger's receive in its cache). Found by the ibv_rc_pingpong peer, which
 * replenishes its receives and then closes. The QP created next with that number must receive
 * into its own receive.
 */
Test(interop_found, a_qp_closed_with_its_receive_prefetch_in_flight_leaves_nothing_behind)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct ndk_sge stale = sge_of(b, 0, 64);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(ndk_receive(b->qp, CTX(i), &stale, 1), NDK_STATUS_SUCCESS);
	ndk_close_qp(b->qp);
	ndk_sim_step(p.sim, 5000);

	/* the next QP on B, connected to A's (a fresh QP on A too: A's is connected to the old) */
	ndk_close_qp(a->qp);
	struct ndk_qp_attr at = {
		.receive_cq = b->cq,
		.initiator_cq = b->cq,
		.qp_context = QP_CONTEXT,
		.receive_queue_depth = 64,
		.initiator_queue_depth = 64,
		.max_receive_request_sge = 1,
		.max_initiator_request_sge = 1,
	};
	cr_assert_eq(ndk_create_qp(b->pd, &at, &b->qp), NDK_STATUS_SUCCESS);
	at.receive_cq = at.initiator_cq = a->cq;
	cr_assert_eq(ndk_create_qp(a->pd, &at, &a->qp), NDK_STATUS_SUCCESS);
	qps_connect(a->qp, b->qp);
	struct ndk_sge fresh = sge_of(b, 4096, 64), snd = sge_of(a, 0, 64);
	memset((uint8_t *)b->buf.va, 0x11, 64);
	memset((uint8_t *)b->buf.va + 4096, 0x22, 64);
	fill(a->buf.va, 64, 1);
	cr_assert_eq(ndk_receive(b->qp, CTX(100), &fresh, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, CTX(200), &snd, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(200), 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(100), 64);
	cr_expect(memcmp((uint8_t *)b->buf.va + 4096, a->buf.va, 64) == 0,
		  "the Send landed in its receive's buffer");
	const uint8_t untouched[64] = { [0 ... 63] = 0x11 };
	cr_expect(memcmp(b->buf.va, untouched, 64) == 0, "the closed QP's receive buffer stays");
	pair_close(&p);
}
