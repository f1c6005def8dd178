/* SPDX-License-Identifier: MIT */
/*
 * Host-memory faults: a DMA read or write the host answers with an AXI error (SLVERR), as the
 * board's PCIe interface answers a completion error or a completion timeout (docs/pcie.md). The
 * harness's DMA slave answers the bursts that touch an address range with SLVERR
 * (nicsim_dma_fault). What each gets is in docs/bad-input.md "Host-memory faults": the request
 * whose payload read failed completes INTERNAL_ERROR and never sends the data (its packet is
 * stomped: the peer drops it); a Read whose payload read failed at the responder is answered
 * with NAK remote operational error (REMOTE_ERROR at the requester); a failed CQE write puts
 * the CQ in error with INTERNAL_ERROR. Another connection between the same two NICs keeps
 * working and loses nothing in every case.
 */
#include "cosim_pair.h"
#include "ndk_internal.h"
#include "backend_sim.h" /* the world behind an ndk_sim */
#include "nicsim.h"

#define CTX(n) ((void *)(uintptr_t)(0x7000 + (n)))
#define QUIET  20000 /* cycles in which nothing more may complete */

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
		    (flags & (NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE)) !=
			    0);
	expect_status(&w, region_register(&w, r, CTX(ctx), flags), NDK_STATUS_SUCCESS);
	expect_cpl(p, s, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(ctx), 0);
}

static void region_off(struct pair *p, struct side *s, struct region *r)
{
	struct world w = world_of(p, s);
	region_free(&w, r);
}

static void side_close(struct side *s)
{
	ndk_close_qp(s->qp);
	ndk_close_cq(s->cq);
	ndk_free_buffer(s->ad, &s->buf);
	ndk_close_pd(s->pd);
}

/* a second connection between the same two NICs (its own PD, CQs, QPs and buffers) */
static void neighbour_open(struct pair *p, struct side x[2])
{
	const struct pair_opts o = { 0 };
	side_open(p, 0, &x[0], p->s[0].ad, &o, 0);
	side_open(p, 1, &x[1], p->s[1].ad, &o, 1);
	qps_connect_limits(x[0].qp, x[1].qp, 1, 1);
}

/* the neighbour connection: a 3000-byte Send each way, a 2000-byte Write and a 256-byte Read
 * from x[0]; every completion successful, every byte where it belongs */
static void neighbour_check_close(struct pair *p, struct side x[2])
{
	struct world w0 = world_of(p, &x[0]);
	struct region rr;
	region_on(p, &x[1], &rr, 1,
		  NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
			  NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
		  90);
	fill(rr.buf.va, 4096, 31);
	fill(x[0].buf.va, 8192, 32);
	fill((uint8_t *)x[1].buf.va + 8192, 3000, 33);
	struct ndk_sge r0 = sge_of(&x[0], 16384, 3000), r1 = sge_of(&x[1], 16384, 3000);
	expect_status(&w0, ndk_receive(x[0].qp, CTX(91), &r0, 1), NDK_STATUS_SUCCESS);
	expect_status(&w0, ndk_receive(x[1].qp, CTX(92), &r1, 1), NDK_STATUS_SUCCESS);
	struct ndk_sge s0 = sge_of(&x[0], 0, 3000), s1 = sge_of(&x[1], 8192, 3000),
		       wsrc = sge_of(&x[0], 4096, 2000), rdst = sge_of(&x[0], 32768, 256);
	expect_status(&w0, ndk_send(x[0].qp, CTX(93), &s0, 1, 0), NDK_STATUS_SUCCESS);
	expect_status(&w0, ndk_send(x[1].qp, CTX(94), &s1, 1, 0), NDK_STATUS_SUCCESS);
	expect_status(&w0,
		      ndk_write(x[0].qp, CTX(95), &wsrc, 1, (uint64_t)(uintptr_t)rr.buf.va + 1024,
				ndk_get_remote_token_from_mr(rr.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_status(&w0,
		      ndk_read(x[0].qp, CTX(96), &rdst, 1, (uint64_t)(uintptr_t)rr.buf.va,
			       ndk_get_remote_token_from_mr(rr.mr), 0),
		      NDK_STATUS_SUCCESS);
	/* x[0]: its Send, Write and Read in order, its receive at any point between them */
	void *want[] = { CTX(93), CTX(95), CTX(96) };
	int next = 0, recvs = 0;
	for (int k = 0; k < 4; k++) {
		struct ndk_result_ex r;
		poll_cq(p, x[0].cq, &r, 200000);
		cr_expect_eq(r.status, NDK_STATUS_SUCCESS, "neighbour %p: %s", r.request_context,
			     ndk_status_name(r.status));
		if (r.type == NDK_OP_RECEIVE) {
			cr_expect_eq(r.request_context, CTX(91));
			cr_expect_eq(r.bytes_transferred, 3000);
			recvs++;
		} else {
			cr_expect_eq(r.request_context, want[next < 3 ? next : 2],
				     "neighbour order");
			next++;
		}
	}
	cr_expect_eq(recvs, 1);
	/* x[1]: its Send and its receive (two queues: either order) */
	for (int k = 0; k < 2; k++) {
		struct ndk_result_ex r;
		poll_cq(p, x[1].cq, &r, 200000);
		cr_expect_eq(r.status, NDK_STATUS_SUCCESS, "neighbour %p: %s", r.request_context,
			     ndk_status_name(r.status));
		cr_expect(r.request_context == CTX(92) || r.request_context == CTX(94));
	}
	expect_no_cpl(p, x[0].cq, QUIET);
	expect_no_cpl(p, x[1].cq, QUIET);
	cr_expect(memcmp(x[0].buf.va, (uint8_t *)x[1].buf.va + 16384, 3000) == 0,
		  "neighbour Send 0 -> 1");
	cr_expect(memcmp((uint8_t *)x[1].buf.va + 8192, (uint8_t *)x[0].buf.va + 16384, 3000) == 0,
		  "neighbour Send 1 -> 0");
	cr_expect(memcmp((uint8_t *)x[0].buf.va + 4096, (uint8_t *)rr.buf.va + 1024, 2000) == 0,
		  "neighbour Write");
	cr_expect(memcmp((uint8_t *)x[0].buf.va + 32768, rr.buf.va, 256) == 0, "neighbour Read");
	region_off(p, &x[1], &rr);
	side_close(&x[0]);
	side_close(&x[1]);
}

static bool all_bytes(const uint8_t *b, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

/*
 * A's Send or Write of 4 KiB (path MTU 1024: four packets) whose payload read of the second KiB
 * fails: the request completes INTERNAL_ERROR and A's next request CANCELLED; the second packet
 * goes out stomped (ICRC inverted: B drops and counts it) and B drops the later ones as out of
 * sequence, so nothing from the failed KiB on reaches B's memory and B completes nothing.
 */
static void payload_read_fault_case(bool write)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct side x[2];
	neighbour_open(&p, x);
	struct region r;
	region_on(&p, b, &r, 1, NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_LOCAL_WRITE, 1);
	memset(r.buf.va, 0x5A, 4096);
	memset(b->buf.va, 0x5A, 4096);
	fill(a->buf.va, 4096, 7);
	struct ndk_sge rcv = sge_of(b, 0, 4096), g = sge_of(a, 0, 4096), g2 = sge_of(a, 0, 8);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	const uint32_t drops0 = nicsim_mmio_read32(p.sim->world, 1, NIC_REG_RX_DROPS);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 0, 0, a->buf.logical + 1024, 1024, 0, 0), 0);
	expect_status(&wa,
		      write ? ndk_write(a->qp, CTX(2), &g, 1, (uint64_t)(uintptr_t)r.buf.va,
					ndk_get_remote_token_from_mr(r.mr), 0) :
			      ndk_send(a->qp, CTX(2), &g, 1, 0),
		      NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &g2, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_INTERNAL_ERROR, write ? NDK_OP_WRITE : NDK_OP_SEND, CTX(2), 0);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	expect_no_cpl(&p, b->cq, QUIET);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 0, 0, 0, 0, 0, 0), 0);
	/* the failed packet was stomped: B dropped it (bad ICRC) */
	cr_expect_geq(nicsim_mmio_read32(p.sim->world, 1, NIC_REG_RX_DROPS), drops0 + 1,
		      "B dropped the stomped packet");
	/* nothing from the failed KiB on reached B: never zeros, never the rest */
	const uint8_t *dst = write ? r.buf.va : b->buf.va;
	cr_expect(memcmp(dst, a->buf.va, 1024) == 0, "the first packet landed");
	cr_expect(all_bytes(dst + 1024, 3072, 0x5A), "bytes of the failed request reached B");
	neighbour_check_close(&p, x);
	region_off(&p, b, &r);
	pair_close(&p);
}

Test(dma_fault, a_sends_payload_read_error_completes_internal_error_and_sends_no_bad_data)
{
	payload_read_fault_case(false);
}

Test(dma_fault, a_writes_payload_read_error_completes_internal_error_and_sends_no_bad_data)
{
	payload_read_fault_case(true);
}

/*
 * A reads 8 KiB from B; B's payload read of the second page fails: B answers with NAK remote
 * operational error instead of the data, A's Read completes REMOTE_ERROR and A's QP is in error
 * (a later request CANCELLED), B's QP goes to error (its posted receive CANCELLED). A's sink gets the first page
 * and nothing of the second (the response in flight is stomped, the later ones are not sent).
 */
Test(dma_fault, a_read_whose_payload_read_fails_at_the_responder_gets_nak_remote_operational_error)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct side x[2];
	neighbour_open(&p, x);
	struct region r;
	region_on(&p, b, &r, 2, NDK_OP_FLAG_ALLOW_REMOTE_READ, 1);
	fill(r.buf.va, 8192, 11);
	memset(a->buf.va, 0xEE, 8192);
	struct ndk_sge rcv = sge_of(b, 0, 64), rs = sge_of(a, 0, 8192), ss = sge_of(a, 16384, 8);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 1, 0, r.buf.logical + 4096, 4096, 0, 0), 0);
	expect_status(&wa,
		      ndk_read(a->qp, CTX(2), &rs, 1, (uint64_t)(uintptr_t)r.buf.va,
			       ndk_get_remote_token_from_mr(r.mr), 0),
		      NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_REMOTE_ERROR, NDK_OP_READ, CTX(2), 0);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(1), 0);
	/* A's QP is in error: a later request is CANCELLED */
	expect_status(&wa, ndk_send(a->qp, CTX(3), &ss, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 1, 0, 0, 0, 0, 0), 0);
	cr_expect(memcmp(a->buf.va, r.buf.va, 4096) == 0, "the first page arrived");
	cr_expect(all_bytes((uint8_t *)a->buf.va + 4096, 4096, 0xEE),
		  "bytes of the failed page reached A's sink");
	neighbour_check_close(&p, x);
	region_off(&p, b, &r);
	pair_close(&p);
}

static ndk_status notified_status;
static int notifications;
static void on_cq(void *ctx, ndk_status status)
{
	(void)ctx;
	notified_status = status;
	notifications++;
}

/*
 * The write of A's second CQE fails: A's CQ goes to error with INTERNAL_ERROR (the error record,
 * the notification of an armed CQ), its QP refuses posts, nothing more is written into the ring;
 * the neighbour connection (other CQs) keeps working.
 */
Test(dma_fault, a_failed_cqe_write_puts_the_cq_in_error_with_internal_error)
{
	struct pair p;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	const struct pair_opts o = { .cq_fn = on_cq };
	pair_open_opts(&p, &c, &o);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct side x[2];
	neighbour_open(&p, x);
	notifications = 0;
	struct ndk_cq *cq = a->cq;
	/* the ring's slot 1 (the first CQE goes to slot 0) */
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 0, 1, cq->ring_logical + NIC_CQE_BYTES,
				      NIC_CQE_BYTES, 0, 1),
		     0);
	struct ndk_sge rcv = sge_of(b, 0, 64), g = sge_of(a, 0, 8);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_receive(b->qp, CTX(2), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &g, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(3), 0);
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ERRORS);
	expect_status(&wa, ndk_send(a->qp, CTX(4), &g, 1, 0), NDK_STATUS_SUCCESS);
	/* the second CQE's write fails: the CQ reports INTERNAL_ERROR */
	uint64_t deadline = ndk_sim_cycle(p.sim) + 200000;
	while (!notifications && ndk_sim_cycle(p.sim) < deadline)
		ndk_sim_step(p.sim, 100);
	cr_assert_eq(notifications, 1, "one notification of the CQ error");
	cr_expect_eq(notified_status, NDK_STATUS_INTERNAL_ERROR, "notified %s",
		     ndk_status_name(notified_status));
	cr_expect_eq(ndk_cq_error(cq), NDK_STATUS_INTERNAL_ERROR);
	cr_expect(nicsim_mmio_read32(p.sim->world, 0, NIC_REG_CQ_STATE_BASE + 4 * cq->cqn) >> 31,
		  "the CQ's state says error");
	/* the failed CQE is not in the ring, and nothing is: its QP refuses posts */
	struct ndk_result_ex r;
	cr_expect_eq(ndk_get_cq_results_ex(cq, &r, 1), 0, "a CQE after the failed one");
	expect_status(&wa, ndk_send(a->qp, CTX(5), &g, 1, 0), NDK_STATUS_INVALID_DEVICE_STATE);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 0, 1, 0, 0, 0, 0), 0);
	/* B received both Sends */
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 8);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 8);
	neighbour_check_close(&p, x);
	pair_close(&p);
}

/*
 * B's write of a received Send's payload fails: B's QP goes to error (a receive posted after it
 * completes CANCELLED); the neighbour connection keeps working.
 */
Test(dma_fault, a_failed_payload_write_puts_the_receiving_qp_in_error)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct side x[2];
	neighbour_open(&p, x);
	struct ndk_sge rcv = sge_of(b, 0, 4096), rcv2 = sge_of(b, 8192, 64), g = sge_of(a, 0, 4096);
	fill(a->buf.va, 4096, 5);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 1, 1, b->buf.logical, 4096, 0, 0), 0);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	expect_status(&wa, ndk_send(a->qp, CTX(2), &g, 1, 0), NDK_STATUS_SUCCESS);
	/* the receive's own completion may precede the failed write's response (see
	 * docs/bad-input.md); what follows is certain: the QP is in error */
	struct ndk_result_ex r;
	poll_cq(&p, b->cq, &r, 200000);
	cr_log_info("the receive whose write failed completed %s", ndk_status_name(r.status));
	cr_expect_eq(r.request_context, CTX(1));
	expect_status(&wa, ndk_receive(b->qp, CTX(3), &rcv2, 1), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(3), 0);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 1, 1, 0, 0, 0, 0), 0);
	neighbour_check_close(&p, x);
	pair_close(&p);
}

/*
 * The DMA read that fetches A's next send-queue WQE fails: that WQE completes INTERNAL_ERROR (its
 * request context, from its ring slot), nothing is sent for it, A's QP goes to error (the next
 * request CANCELLED) and B completes nothing; the neighbour connection keeps working.
 */
Test(dma_fault, a_wqe_fetch_read_error_completes_internal_error_and_sends_nothing)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world wa = world_of(&p, a);
	struct side x[2];
	neighbour_open(&p, x);
	struct ndk_sge rcv = sge_of(b, 0, 4096), g = sge_of(a, 0, 64);
	expect_status(&wa, ndk_receive(b->qp, CTX(1), &rcv, 1), NDK_STATUS_SUCCESS);
	memset(b->buf.va, 0x5A, 4096);
	struct ndk_wq *sq = &a->qp->sq;
	uint64_t slot = sq->ring_logical + (sq->pi & (sq->depth - 1)) * NIC_WQE_BYTES;
	struct ndk_sim_stats s0;
	ndk_sim_get_stats(p.sim, 0, &s0);
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 0, 0, slot, NIC_WQE_BYTES, 0, 1), 0);
	expect_status(&wa, ndk_send(a->qp, CTX(2), &g, 1, 0), NDK_STATUS_SUCCESS);
	struct ndk_result_ex r;
	poll_cq(&p, a->cq, &r, 200000);
	cr_expect_eq(r.status, NDK_STATUS_INTERNAL_ERROR, "the WQE completed %s",
		     ndk_status_name(r.status));
	cr_expect_eq(r.request_context, CTX(2));
	cr_assert_eq(nicsim_dma_fault(p.sim->world, 0, 0, 0, 0, 0, 0), 0);
	expect_status(&wa, ndk_send(a->qp, CTX(3), &g, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_CANCELLED, NDK_OP_SEND, CTX(3), 0);
	struct ndk_sim_stats s1;
	ndk_sim_get_stats(p.sim, 0, &s1);
	cr_expect_eq(s1.frames_sent, s0.frames_sent, "A sent %" PRIu64 " frames",
		     s1.frames_sent - s0.frames_sent);
	expect_no_cpl(&p, b->cq, QUIET);
	cr_expect(all_bytes(b->buf.va, 4096, 0x5A), "B's receive buffer was written");
	neighbour_check_close(&p, x);
	pair_close(&p);
}

/*
 * The DMA read of a FastRegister's page list fails: the FastRegister completes INTERNAL_ERROR
 * and registers nothing (the QP to error, the request behind it CANCELLED); the MR stays
 * unregistered: a FastRegister of it on another QP, its page list readable again, succeeds.
 */
Test(dma_fault, a_fast_register_whose_page_list_read_fails_registers_nothing)
{
	struct world w;
	world_open(&w, 16, 16);
	struct region r;
	region_make(&w, &r, 2, false);
	expect_status(&w, region_register(&w, &r, CTX(1), NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	const struct nic_wqe_fast_reg *wqe =
		(const struct nic_wqe_fast_reg *)((const uint8_t *)w.qp->sq.ring +
						  ((w.qp->sq.pi - 1) & (w.qp->sq.depth - 1)) *
							  NIC_WQE_BYTES);
	cr_assert_eq(wqe->opcode, NIC_WQE_OP_FAST_REG);
	cr_assert_eq(nicsim_dma_fault(w.sim->world, 0, 0, le64toh(wqe->page_list_addr), 16, 0, 0),
		     0);
	expect_status(&w, ndk_invalidate_mr(w.qp, CTX(2), r.mr, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_INTERNAL_ERROR, NDK_OP_FAST_REGISTER, CTX(1));
	expect_completion(&w, w.cq, NDK_STATUS_CANCELLED, NDK_OP_INVALIDATE, CTX(2));
	cr_assert_eq(nicsim_dma_fault(w.sim->world, 0, 0, 0, 0, 0, 0), 0);
	struct ndk_qp *qp2;
	struct ndk_qp_attr a = { .receive_cq = w.cq,
				 .initiator_cq = w.cq,
				 .qp_context = QP_CONTEXT,
				 .initiator_queue_depth = 8,
				 .max_initiator_request_sge = 1 };
	cr_assert_eq(ndk_create_qp(w.pd, &a, &qp2), NDK_STATUS_SUCCESS);
	expect_status(&w,
		      ndk_fast_register(qp2, CTX(3), r.mr, 2, r.pages, 0, 2 * NDK_PAGE_SIZE,
					(uint64_t)(uintptr_t)r.buf.va, 0),
		      NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(3));
	ndk_close_qp(qp2);
	region_free(&w, &r);
	world_close(&w);
}
