/* SPDX-License-Identifier: MIT */
/*
 * The responder's receive-WQE prefetch (docs/transport.md, "RTL structure"): posted receives are
 * read on chip when their doorbell rings, so a Send finds its receive without a DMA round trip;
 * the cache follows the ring across wraps and never serves a receive of a QP's earlier
 * incarnation.
 */
#include "backend_sim.h" /* the world behind an ndk_sim: raw MMIO */
#include "cosim_pair.h"
#include "ndk_internal.h"
#include "nic_hw.h"
#include "nicsim.h"

#define CTX(n)		((void *)(uintptr_t)(0x4000 + (n)))
#define SETTLE_CYCLES	2000 /* a doorbell's trip and a WQE burst's round trip, with margin */
#define CPL_WAIT_CYCLES 200000

static struct ndk_sim_stats nic_stats(struct pair *p, unsigned nic)
{
	struct ndk_sim_stats s;
	ndk_sim_get_stats(p->sim, nic, &s);
	return s;
}

static void send_inline(struct pair *p, struct side *a, size_t off, uint32_t len, void *ctx)
{
	struct world w = { .sim = p->sim };
	/* inline data is read by the host from its own address */
	struct ndk_sge s = { .address = (uint64_t)(uintptr_t)((uint8_t *)a->buf.va + off),
			     .length = len };
	expect_status(&w, ndk_send(a->qp, ctx, &s, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_SUCCESS);
}

/* The receive posted ahead is read when its doorbell rings; the Send that consumes it causes no
 * DMA read at the receiver (before the prefetch it read the WQE when the Send arrived). */
Test(rq_prefetch, a_send_finds_its_posted_receive_on_chip)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world w = { .sim = p.sim };
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	fill(src, 32, 5);
	memset(dst, 0xEE, 64);

	struct ndk_sim_stats b0 = nic_stats(&p, 1);
	struct ndk_sge r = sge_of(b, 0, 64);
	expect_status(&w, ndk_receive(b->qp, CTX(1), &r, 1), NDK_STATUS_SUCCESS);
	ndk_sim_step(p.sim, SETTLE_CYCLES);
	struct ndk_sim_stats b1 = nic_stats(&p, 1);
	uint64_t read_bytes = b1.dma_read_bytes - b0.dma_read_bytes;
	cr_expect(read_bytes == 64,
		  "the receiver read %" PRIu64 " bytes after the RQ doorbell, want its WQE (64)",
		  read_bytes);

	send_inline(&p, a, 0, 32, CTX(2));
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 32);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(2), 0);
	struct ndk_sim_stats b2 = nic_stats(&p, 1);
	uint64_t reads = b2.dma_reads - b1.dma_reads;
	cr_expect(reads == 0,
		  "the receiver issued %" PRIu64 " DMA reads for an inline Send to a prefetched "
		  "receive, want 0",
		  reads);
	cr_expect(memcmp(src, dst, 32) == 0, "the received bytes differ from the sent ones");
	cr_expect_eq(dst[32], 0xEE, "a byte past the message was written");
	pair_close(&p);
}

/* A small receive ring (4 slots: fewer than the 8 a QP keeps on chip) wrapped many times, with
 * receives posted in batches of 1 to 4 and Sends of distinct contents: every receive completes
 * in order with its own context, bytes and buffer. */
Test(rq_prefetch, a_small_ring_wraps_with_receives_in_order)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	const struct pair_opts o = { .rq_depth = 4 };
	struct pair p;
	pair_open_opts(&p, &c, &o);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world w = { .sim = p.sim };
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	uint32_t n = 0;

	for (uint32_t round = 0; round < 12; round++) {
		uint32_t batch = 1 + round % 4;
		for (uint32_t i = 0; i < batch; i++) {
			uint32_t k = n + i;
			memset(dst + 256 * (k % 16), 0xEE, 256);
			struct ndk_sge r = sge_of(b, 256 * (k % 16), 200);
			expect_status(&w, ndk_receive(b->qp, CTX(k), &r, 1), NDK_STATUS_SUCCESS);
		}
		for (uint32_t i = 0; i < batch; i++) {
			uint32_t k = n + i;
			fill(src + 256 * (k % 16), 100 + k, k);
			struct ndk_sge s = sge_of(a, 256 * (k % 16), 100 + k);
			expect_status(&w, ndk_send(a->qp, CTX(1000 + k), &s, 1, 0),
				      NDK_STATUS_SUCCESS);
		}
		for (uint32_t i = 0; i < batch; i++) {
			uint32_t k = n + i;
			expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(k), 100 + k);
			cr_expect(memcmp(src + 256 * (k % 16), dst + 256 * (k % 16), 100 + k) == 0,
				  "receive %u: the bytes differ from its Send's", k);
			cr_expect_eq(dst[256 * (k % 16) + 100 + k], 0xEE,
				     "receive %u: a byte past the message was written", k);
		}
		for (uint32_t i = 0; i < batch; i++)
			expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(1000 + n + i), 0);
		n += batch;
	}
	pair_close(&p);
}

/* Side b's QP is closed with a receive posted (and prefetched, or its prefetch still in flight:
 * `settle` cycles after the doorbell, DMA reads taking dma_read_ns) and created again at the
 * same index; both sides connect new QPs. The new QP's first Send must land in the new
 * incarnation's receive, never in the buffer of the receive the old one had on chip. */
static void recreate_case(uint64_t settle, uint32_t dma_read_ns)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	if (dma_read_ns)
		c.dma_read_ns = dma_read_ns;
	struct pair p;
	pair_open_cfg(&p, &c);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world w = { .sim = p.sim };
	uint8_t *src = a->buf.va, *dst = b->buf.va;
	memset(dst, 0xEE, 16384);

	struct ndk_qp_address old_addr, new_addr;
	cr_assert_eq(ndk_get_qp_address(b->qp, &old_addr), NDK_STATUS_SUCCESS);
	struct ndk_sge r_old = sge_of(b, 0, 64);
	expect_status(&w, ndk_receive(b->qp, CTX(1), &r_old, 1), NDK_STATUS_SUCCESS);
	ndk_sim_step(p.sim, settle);
	ndk_close_qp(b->qp);
	b->qp = NULL;
	ndk_close_qp(a->qp);
	a->qp = NULL;

	struct ndk_qp_attr at = {
		.receive_cq = b->cq,
		.initiator_cq = b->cq,
		.qp_context = QP_CONTEXT,
		.receive_queue_depth = 64,
		.initiator_queue_depth = 64,
		.max_receive_request_sge = b->info.max_receive_request_sge,
		.max_initiator_request_sge = b->info.max_initiator_request_sge,
		.inline_data_size = b->info.max_inline_data_size,
	};
	/* QP indices are handed out round robin: create until the old index comes back */
	for (unsigned tries = 0;; tries++) {
		cr_assert_eq(ndk_create_qp(b->pd, &at, &b->qp), NDK_STATUS_SUCCESS);
		cr_assert_eq(ndk_get_qp_address(b->qp, &new_addr), NDK_STATUS_SUCCESS);
		if (new_addr.qp_number == old_addr.qp_number)
			break;
		cr_assert(tries < 64, "QP index %u never came back", old_addr.qp_number);
		ndk_close_qp(b->qp);
	}
	at.receive_cq = a->cq;
	at.initiator_cq = a->cq;
	at.max_receive_request_sge = a->info.max_receive_request_sge;
	at.max_initiator_request_sge = a->info.max_initiator_request_sge;
	at.inline_data_size = a->info.max_inline_data_size;
	cr_assert_eq(ndk_create_qp(a->pd, &at, &a->qp), NDK_STATUS_SUCCESS);
	qps_connect(a->qp, b->qp);
	/* what the old QP's close left on the CQs (its receive, cancelled) is not this test's */
	ndk_sim_step(p.sim, SETTLE_CYCLES);
	struct ndk_result_ex stale;
	while (ndk_get_cq_results_ex(b->cq, &stale, 1) != 0)
		cr_expect_neq(stale.status, NDK_STATUS_SUCCESS, "the old receive completed");

	struct ndk_sge r_new = sge_of(b, 8192, 64);
	expect_status(&w, ndk_receive(b->qp, CTX(2), &r_new, 1), NDK_STATUS_SUCCESS);
	fill(src, 40, 9);
	send_inline(&p, a, 0, 40, CTX(3));
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(2), 40);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(3), 0);
	cr_expect(memcmp(src, dst + 8192, 40) == 0, "the new receive's buffer lacks the message");
	for (uint32_t i = 0; i < 64; i++)
		cr_expect_eq(dst[i], 0xEE, "byte %u of the old receive's buffer was written", i);
	pair_close(&p);
}

Test(rq_prefetch, a_recreated_qp_never_uses_a_receive_its_old_incarnation_had_on_chip)
{
	recreate_case(SETTLE_CYCLES, 0);
}

Test(rq_prefetch, a_recreated_qp_drops_a_prefetch_still_in_flight_for_its_old_incarnation)
{
	/* the old QP's close lands while its receive's read is still on its way (20 us) */
	recreate_case(0, 20000);
}

/* An RQ doorbell that moves the producer index back, behind receives the NIC has already
 * prefetched (a doorbell of 3 that no driver writes on an empty ring, then the driver's own
 * doorbell of 1 for the receive it posts), is bad input: the NIC drops that doorbell and moves
 * the QP to ERROR, as it does for a bad SQ doorbell (docs/bad-input.md). The receive posted
 * completes CANCELLED, a Send to the QP is dropped instead of being taken, and nothing aborts
 * or hangs. Found by the fuzzer: the next Send tripped nic_rsp_dispatch.a_pf_within_posted (the
 * cache held more receives than the doorbell said were posted). */
Test(rq_prefetch, an_rq_doorbell_moving_the_index_back_puts_the_qp_in_error)
{
	struct pair p;
	pair_open(&p, 2);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct world w = { .sim = p.sim };
	fill(a->buf.va, 32, 9);

	nicsim_mmio_write32(p.sim->world, 1, b->qp->db + NIC_DB_RQ_PI, 3);
	ndk_sim_step(p.sim, SETTLE_CYCLES); /* the prefetch reads ring slots 0..2 */
	struct ndk_sge r = sge_of(b, 0, 64);
	expect_status(&w, ndk_receive(b->qp, CTX(1), &r, 1), NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_CANCELLED, NDK_OP_RECEIVE, CTX(1), 0);

	/* the Send reaches a QP in ERROR: dropped (the requester's ACK timer would fail it much
	   later), never placed into a receive */
	send_inline(&p, a, 0, 32, CTX(2));
	expect_no_cpl(&p, a->cq, SETTLE_CYCLES * 10);
	pair_close(&p);
}

/* A QP created or destroyed (or flushed) marks its own prefetch bursts in flight stale. The mark
 * once went by the QP number in every descriptor slot, also the slot being filled in that very
 * cycle by another QP's burst, whose previous occupant was that QP's: the other QP's receive
 * WQE was then dropped as stale while its count said it was on chip, and its next Send read a
 * cache slot never written (NAK remote operational error, the QP in ERROR) or an old receive.
 * Found by the responder's module bench (tests/board/test_responder.py, 256 bits, seed 228: a QP
 * created again in the cycle another QP's burst was granted). Here side b's second QP fills all
 * four descriptor slots with its bursts, then b's connected QP rings a receive doorbell and the
 * second QP is closed `delay` cycles later, swept across the cycle of the burst's grant: the
 * Send must land in its receive every time. */
Test(rq_prefetch, a_qp_closed_in_the_cycle_of_another_qps_burst_leaves_that_burst_alone)
{
	for (uint64_t delay = 0; delay < 40; delay++) {
		struct pair p;
		pair_open(&p, 2);
		struct side *a = &p.s[0], *b = &p.s[1];
		struct world w = { .sim = p.sim };
		uint8_t *src = a->buf.va, *dst = b->buf.va;
		memset(dst, 0xEE, 16384);

		struct ndk_qp_attr at = {
			.receive_cq = b->cq,
			.initiator_cq = b->cq,
			.qp_context = QP_CONTEXT,
			.receive_queue_depth = 64,
			.initiator_queue_depth = 64,
			.max_receive_request_sge = b->info.max_receive_request_sge,
			.max_initiator_request_sge = b->info.max_initiator_request_sge,
			.inline_data_size = b->info.max_inline_data_size,
		};
		struct ndk_qp *other;
		cr_assert_eq(ndk_create_qp(b->pd, &at, &other), NDK_STATUS_SUCCESS);
		for (uint32_t i = 0; i < 4; i++) { /* one burst each: every descriptor slot */
			struct ndk_sge r = sge_of(b, 4096 + 64 * i, 64);
			expect_status(&w, ndk_receive(other, CTX(100 + i), &r, 1),
				      NDK_STATUS_SUCCESS);
			ndk_sim_step(p.sim, SETTLE_CYCLES);
		}
		struct ndk_sge r = sge_of(b, 0, 64);
		expect_status(&w, ndk_receive(b->qp, CTX(1), &r, 1), NDK_STATUS_SUCCESS);
		ndk_sim_step(p.sim, delay);
		ndk_close_qp(other);
		ndk_sim_step(p.sim, SETTLE_CYCLES);
		struct ndk_result_ex gone;
		while (ndk_get_cq_results_ex(b->cq, &gone, 1) != 0)
			cr_expect_eq(gone.status, NDK_STATUS_CANCELLED,
				     "delay %" PRIu64 ": a receive of the closed QP completed %#x",
				     delay, gone.status);

		fill(src, 40, 9);
		send_inline(&p, a, 0, 40, CTX(3));
		expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, CTX(1), 40);
		expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, CTX(3), 0);
		cr_expect(memcmp(src, dst, 40) == 0,
			  "delay %" PRIu64 ": the receive lacks the message", delay);
		pair_close(&p);
	}
}
