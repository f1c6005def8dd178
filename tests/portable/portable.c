/* SPDX-License-Identifier: MIT */
/*
 * The backend-independent subset of the suite (portable.h says how one source runs on both):
 * adapter open and info, FastRegister / Bind / Invalidate, DEFER chains with one doorbell each,
 * the seed's inline-failure example, polling with both get-results calls, ring wrap-around, bad
 * input, and Send / Write / Read of a QP connected to itself over the NIC's looped-back port.
 *
 *   build/tests/ndk_portable                          (the simulated NIC)
 *   tools/guest/guest.sh run --env NDK_TEST_ADAPTER=pci -- build/tests/ndk_portable --jobs 1
 */
#include "portable.h"

Test(adapter, opens_and_reports_the_device)
{
	struct pw w;
	pw_open_adapter(&w);
	cr_expect_eq(w.info.version_major, 1);
	cr_expect_eq(w.info.vendor_id, 0x1d1d);
	cr_expect_eq(w.info.device_id, 0x0001);
	cr_expect_geq(w.info.frmr_page_count, 16);
	cr_expect_geq(w.info.max_qp_count, 2);
	cr_expect_geq(w.info.max_cq_count, 2);
	cr_expect_geq(w.info.max_mr_count, 2);
	cr_expect_geq(w.info.max_initiator_queue_depth, 64);
	cr_expect_geq(w.info.max_cq_depth, 64);
	cr_expect(w.info.adapter_flags & NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED);
	pw_close(&w);
}

Test(adapter, buffers_are_page_aligned_distinct_and_zeroed)
{
	struct pw w;
	pw_open(&w, 0, 0, 0);
	struct ndk_buffer b1, b2;
	cr_assert_eq(ndk_alloc_buffer(w.ad, 100, &b1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_alloc_buffer(w.ad, 3 * NDK_PAGE_SIZE, &b2), NDK_STATUS_SUCCESS);
	cr_expect_eq((uintptr_t)b1.va % NDK_PAGE_SIZE, 0);
	cr_expect_eq(b1.logical % NDK_PAGE_SIZE, 0);
	cr_expect_neq(b1.logical, b2.logical);
	for (size_t i = 0; i < 3 * NDK_PAGE_SIZE; i++)
		if (((uint8_t *)b2.va)[i])
			cr_assert_fail("byte %zu of a new buffer is 0x%02x", i,
				       ((uint8_t *)b2.va)[i]);
	ndk_free_buffer(w.ad, &b1);
	ndk_free_buffer(w.ad, &b2);
	pw_close(&w);
}

Test(local_ops, fast_register_then_invalidate_round_trip)
{
	struct pw w;
	pw_open(&w, 16, 16, 0);
	struct pw_region r;
	pw_region_make(&w, &r, 4, false);
	struct pw_counters c0, c1;
	bool counted = pw_counters(&w, &c0);
	cr_assert_eq(pw_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		     NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	uint32_t token = ndk_get_local_token_from_mr(r.mr);
	cr_assert_eq(ndk_invalidate_mr(w.qp, CTX(2), r.mr, 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(2));
	if (counted && pw_counters(&w, &c1)) {
		cr_expect_eq(c1.sq_doorbells - c0.sq_doorbells, 2);
		/* two WQEs and the page list (4 entries of 8 bytes) were read by DMA */
		cr_expect_geq(c1.dma_read_bytes - c0.dma_read_bytes, 2 * 64 + 4 * 8);
		cr_expect_eq(c1.dma_refused, c0.dma_refused, "a DMA was refused");
	}
	/* once invalidated the MR can be registered again, with a new key */
	cr_assert_eq(pw_register(&w, &r, CTX(3), 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(3));
	cr_expect_neq(ndk_get_local_token_from_mr(r.mr), token);
	pw_region_free(&w, &r);
	pw_close(&w);
}

Test(local_ops, bind_window_then_invalidate_window)
{
	struct pw w;
	pw_open(&w, 16, 16, 0);
	struct pw_region r;
	pw_region_make(&w, &r, 2, true);
	struct ndk_mw *mw;
	cr_assert_eq(ndk_create_mw(w.pd, &mw), NDK_STATUS_SUCCESS);
	cr_assert_eq(pw_register(&w, &r, CTX(1), NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		     NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va + 512;
	cr_assert_eq(ndk_bind(w.qp, CTX(2), r.mr, mw, va, 1024, NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		     NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(2));
	uint32_t t1 = ndk_get_remote_token_from_mw(mw);
	cr_assert_eq(ndk_invalidate_mw(w.qp, CTX(3), mw, 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_INVALIDATE, CTX(3));
	cr_assert_eq(ndk_bind(w.qp, CTX(4), r.mr, mw, va, 64, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_BIND, CTX(4));
	cr_expect_neq(ndk_get_remote_token_from_mw(mw), t1);
	ndk_close_mw(mw);
	pw_region_free(&w, &r);
	pw_close(&w);
}

/* An invalid token is the device's to find: an error completion, then the QP is in error and
 * later requests complete CANCELLED. */
Test(local_ops, invalidating_an_invalid_token_completes_with_an_error)
{
	struct pw w;
	pw_open(&w, 16, 16, 0);
	struct pw_region r;
	pw_region_make(&w, &r, 1, false);
	cr_assert_eq(ndk_invalidate_mr(w.qp, CTX(1), r.mr, 0), NDK_STATUS_SUCCESS);
	struct ndk_result_ex res;
	pw_poll_one(&w, w.cq, &res, false);
	cr_expect_neq(res.status, NDK_STATUS_SUCCESS, "invalidating a never registered MR");
	cr_expect_eq(res.request_context, CTX(1));
	cr_assert_eq(pw_register(&w, &r, CTX(2), 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_CANCELLED, NDK_OP_FAST_REGISTER, CTX(2));
	pw_expect_no_completion(&w, w.cq);
	pw_region_free(&w, &r);
	pw_close(&w);
}

Test(results, both_get_results_calls_return_the_contexts)
{
	struct pw w;
	pw_open(&w, 16, 16, 0);
	struct pw_region r;
	pw_region_make(&w, &r, 1, false);
	struct ndk_result_ex res;
	cr_assert_eq(pw_register(&w, &r, CTX(7), 0), NDK_STATUS_SUCCESS);
	pw_poll_one(&w, w.cq, &res, true); /* ndk_get_cq_results */
	cr_expect_eq(res.status, NDK_STATUS_SUCCESS);
	cr_expect_eq(res.request_context, CTX(7));
	cr_expect_eq(res.qp_context, PW_QP_CONTEXT);
	cr_assert_eq(ndk_invalidate_mr(w.qp, CTX(8), r.mr, 0), NDK_STATUS_SUCCESS);
	pw_poll_one(&w, w.cq, &res, false); /* ndk_get_cq_results_ex */
	cr_expect_eq(res.status, NDK_STATUS_SUCCESS);
	cr_expect_eq(res.type, NDK_OP_INVALIDATE);
	cr_expect_eq(res.request_context, CTX(8));
	cr_expect_eq(res.qp_context, PW_QP_CONTEXT);
	/* nothing more: both calls return 0 */
	pw_settle(&w);
	struct ndk_result plain[2];
	cr_expect_eq(ndk_get_cq_results(w.cq, plain, 2), 0);
	cr_expect_eq(ndk_get_cq_results_ex(w.cq, &res, 1), 0);
	pw_region_free(&w, &r);
	pw_close(&w);
}

/* Request i of a chain: FastRegister of MR i/2 when i is even, its Invalidate when odd (every
 * request depends on the one before: a lost or reordered WQE becomes an error completion). */
static ndk_status chain_post(struct pw *w, struct pw_region *r, int i, uint32_t flags)
{
	if (i % 2)
		return ndk_invalidate_mr(w->qp, CTX(i), r[i / 2].mr, flags);
	return pw_register(w, &r[i / 2], CTX(i), flags);
}

static void chain_of(int n)
{
	struct pw w;
	pw_open(&w, 256, 256, 0);
	const int nmr = n / 2 + 1;
	struct pw_region *r = calloc((size_t)nmr, sizeof(*r));
	cr_assert_not_null(r);
	for (int i = 0; i < nmr; i++)
		pw_region_make(&w, &r[i], 1, false);
	struct pw_counters c0 = pw_counters_or_skip(&w), c1, c2;

	for (int i = 0; i < n; i++)
		cr_assert_eq(chain_post(&w, r, i, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	/* deferred: no doorbell, and the NIC reads nothing however long we wait */
	pw_settle(&w);
	pw_counters(&w, &c1);
	cr_expect_eq(c1.sq_doorbells, c0.sq_doorbells, "a deferred request rang");
	cr_expect_eq(c1.dma_reads, c0.dma_reads, "the NIC read while every request was deferred");
	cr_expect_eq(ndk_get_cq_results_ex(w.cq, &(struct ndk_result_ex){ 0 }, 1), 0);

	/* the terminating request rings once for the whole chain */
	cr_assert_eq(chain_post(&w, r, n, 0), NDK_STATUS_SUCCESS);
	for (int i = 0; i <= n; i++)
		pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS,
				     i % 2 ? NDK_OP_INVALIDATE : NDK_OP_FAST_REGISTER, CTX(i));
	pw_expect_no_completion(&w, w.cq);
	pw_counters(&w, &c2);
	cr_expect_eq(c2.sq_doorbells - c0.sq_doorbells, 1, "doorbells for a chain of %d", n + 1);
	/* WQE fetches in bursts of at most 16 (nic_core's MaxBurstWqes) plus one page-list read
	 * per FastRegister */
	uint64_t max_reads = (uint64_t)(n + 1 + 15) / 16 + (uint64_t)(n / 2 + 1);
	cr_expect_leq(c2.dma_reads - c0.dma_reads, max_reads, "%" PRIu64 " DMA reads for %d WQEs",
		      c2.dma_reads - c0.dma_reads, n + 1);
	for (int i = 0; i < nmr; i++)
		pw_region_free(&w, &r[i]);
	free(r);
	pw_close(&w);
}

Test(defer, chain_of_7_rings_once)
{
	chain_of(7);
}

Test(defer, chain_of_31_rings_once)
{
	chain_of(31);
}

/* The seed's own example: a deferred request, then one that fails inline; the failing call
 * indicates the first to the NIC before it returns. */
Test(defer, inline_failure_indicates_earlier_deferred_requests_seed_example)
{
	struct pw w;
	pw_open(&w, 16, 16, 0);
	struct pw_region r1, r2;
	pw_region_make(&w, &r1, 1, false);
	pw_region_make(&w, &r2, 1, false);
	struct pw_counters c0 = pw_counters_or_skip(&w), c1;
	cr_assert_eq(pw_register(&w, &r1, CTX(1), NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	pw_settle(&w);
	pw_counters(&w, &c1);
	cr_assert_eq(c1.sq_doorbells, c0.sq_doorbells, "DEFER rang a doorbell");
	/* more pages than its MR was initialised with: fails inline */
	uint64_t pages[2] = { r2.pages[0], r2.pages[0] + NDK_PAGE_SIZE };
	cr_assert_eq(ndk_fast_register(w.qp, CTX(2), r2.mr, 2, pages, 0, 2 * NDK_PAGE_SIZE,
				       (uint64_t)(uintptr_t)r2.buf.va, NDK_OP_FLAG_DEFER),
		     NDK_STATUS_INVALID_PARAMETER);
	/* no further driver call: the first completes, the second never does */
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(1));
	pw_expect_no_completion(&w, w.cq);
	pw_counters(&w, &c1);
	cr_expect_eq(c1.sq_doorbells - c0.sq_doorbells, 1);
	pw_region_free(&w, &r1);
	pw_region_free(&w, &r2);
	pw_close(&w);
}

Test(bad_input, bad_parameters_fail_inline_without_a_completion)
{
	struct pw w;
	pw_open(&w, 16, 16, 0);
	struct pw_region r;
	pw_region_make(&w, &r, 2, false);
	uint64_t va = (uint64_t)(uintptr_t)r.buf.va;
	struct pw_counters c0, c1;
	bool counted = pw_counters(&w, &c0);
	cr_expect_eq(ndk_fast_register(w.qp, CTX(1), r.mr, 3, r.pages, 0, 3 * NDK_PAGE_SIZE, va, 0),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_fast_register(w.qp, CTX(2), r.mr, 2, r.pages, 0, 2 * NDK_PAGE_SIZE, va,
				       NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_ACCESS_VIOLATION);
	cr_expect_neq(ndk_fast_register(w.qp, CTX(3), r.mr, 2, NULL, 0, 2 * NDK_PAGE_SIZE, va, 0),
		      NDK_STATUS_SUCCESS);
	cr_expect_neq(ndk_invalidate_mr(w.qp, CTX(4), NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_neq(ndk_invalidate_mr(w.qp, CTX(5), r.mr, NDK_OP_FLAG_INLINE),
		      NDK_STATUS_SUCCESS);
	cr_expect_neq(ndk_fast_register(w.qp, CTX(6), r.mr, 2, r.pages, 0, 3 * NDK_PAGE_SIZE, va,
					0),
		      NDK_STATUS_SUCCESS);
	/* transport requests on an unconnected QP */
	struct ndk_sge sge = { .address = r.buf.logical,
			       .length = 64,
			       .token = ndk_get_privileged_token(w.pd) };
	cr_expect_eq(ndk_send(w.qp, CTX(8), &sge, 1, 0), NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_write(w.qp, CTX(9), &sge, 1, 0x1000, 0x100, 0),
		     NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_read(w.qp, CTX(10), &sge, 1, 0x1000, 0x100, 0),
		     NDK_STATUS_CONNECTION_INVALID);
	pw_expect_no_completion(&w, w.cq);
	if (counted && pw_counters(&w, &c1)) {
		cr_expect_eq(c1.sq_doorbells, c0.sq_doorbells, "a failed post rang");
		cr_expect_eq(c1.dma_reads, c0.dma_reads, "a failed post reached the NIC");
	}
	/* the QP is still usable */
	cr_assert_eq(pw_register(&w, &r, CTX(7), 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(7));
	pw_region_free(&w, &r);
	pw_close(&w);
}

Test(bad_input, a_full_queue_returns_no_more_entries)
{
	struct pw w;
	pw_open(&w, 64, 8, 0);
	struct pw_region r[9];
	for (int i = 0; i < 9; i++)
		pw_region_make(&w, &r[i], 1, false);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(pw_register(&w, &r[i], CTX(i), NDK_OP_FLAG_DEFER * (i < 7)),
			     NDK_STATUS_SUCCESS);
	cr_expect_eq(pw_register(&w, &r[8], CTX(8), 0), NDK_STATUS_NO_MORE_ENTRIES);
	for (int i = 0; i < 8; i++)
		pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(i));
	pw_expect_no_completion(&w, w.cq);
	cr_assert_eq(pw_register(&w, &r[8], CTX(8), 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(8));
	for (int i = 0; i < 9; i++)
		pw_region_free(&w, &r[i]);
	pw_close(&w);
}

/* Three times the depth of requests: both rings wrap, the CQE owner bit flips, and every
 * completion carries the right contexts in posting order. */
Test(rings, send_and_completion_rings_wrap_around)
{
	struct pw w;
	pw_open(&w, 8, 8, 0);
	struct pw_region r;
	pw_region_make(&w, &r, 1, false);
	const int pairs = 24;
	int next = 0;
	for (int i = 0; i < pairs; i++) {
		cr_assert_eq(pw_register(&w, &r, CTX(2 * i), NDK_OP_FLAG_DEFER),
			     NDK_STATUS_SUCCESS);
		cr_assert_eq(ndk_invalidate_mr(w.qp, CTX(2 * i + 1), r.mr, 0), NDK_STATUS_SUCCESS);
		if (i % 3 == 2 || i == pairs - 1) {
			for (; next < 2 * (i + 1); next++)
				pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS,
						     next % 2 ? NDK_OP_INVALIDATE :
								NDK_OP_FAST_REGISTER,
						     CTX(next));
		}
	}
	pw_expect_no_completion(&w, w.cq);
	pw_region_free(&w, &r);
	pw_close(&w);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* Send, Write and Read of a QP connected to itself: the frames leave the NIC's port and come
 * back (the port is looped back), several packets each at the path MTU. */
Test(loopback, send_write_read_to_itself)
{
	struct pw w;
	pw_open(&w, 64, 16, 16);
	struct ndk_qp_address me;
	cr_assert_eq(ndk_get_qp_address(w.qp, &me), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp(w.qp, &me, 4, 4), NDK_STATUS_SUCCESS);
	const uint32_t len = 5000; /* five packets at the default path MTU of 1024 */
	struct ndk_buffer src, dst;
	cr_assert_eq(ndk_alloc_buffer(w.ad, 2 * NDK_PAGE_SIZE, &src), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_alloc_buffer(w.ad, 2 * NDK_PAGE_SIZE, &dst), NDK_STATUS_SUCCESS);
	uint32_t priv = ndk_get_privileged_token(w.pd);
	struct ndk_sge s_src = { .address = src.logical, .length = len, .token = priv };
	struct ndk_sge s_dst = { .address = dst.logical, .length = len + 64, .token = priv };

	/* Send into a posted receive */
	fill(src.va, len, 1);
	memset(dst.va, 0xee, 2 * NDK_PAGE_SIZE);
	cr_assert_eq(ndk_receive(w.qp, CTX(1), &s_dst, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(w.qp, CTX(2), &s_src, 1, 0), NDK_STATUS_SUCCESS);
	struct ndk_result_ex a, b;
	pw_poll_one(&w, w.cq, &a, false);
	pw_poll_one(&w, w.cq, &b, false);
	struct ndk_result_ex *rx = a.type == NDK_OP_RECEIVE ? &a : &b;
	struct ndk_result_ex *tx = a.type == NDK_OP_RECEIVE ? &b : &a;
	cr_expect_eq(rx->status, NDK_STATUS_SUCCESS, "receive: %s", ndk_status_name(rx->status));
	cr_expect_eq(rx->type, NDK_OP_RECEIVE);
	cr_expect_eq(rx->request_context, CTX(1));
	cr_expect_eq(rx->bytes_transferred, len);
	cr_expect_eq(tx->status, NDK_STATUS_SUCCESS, "send: %s", ndk_status_name(tx->status));
	cr_expect_eq(tx->type, NDK_OP_SEND);
	cr_expect(!memcmp(src.va, dst.va, len), "the received bytes differ from the sent ones");
	cr_expect_eq(((uint8_t *)dst.va)[len], 0xee, "a byte past the message was written");

	/* Write into a registered region, then Read it back into a third buffer */
	struct pw_region target;
	pw_region_make(&w, &target, 2, true);
	cr_assert_eq(pw_register(&w, &target, CTX(3),
				 NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ |
					 NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		     NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, CTX(3));
	uint64_t remote_va = (uint64_t)(uintptr_t)target.buf.va + 100;
	uint32_t rtoken = ndk_get_remote_token_from_mr(target.mr);
	fill(src.va, len, 2);
	cr_assert_eq(ndk_write(w.qp, CTX(4), &s_src, 1, remote_va, rtoken, 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_WRITE, CTX(4));
	cr_expect(!memcmp((uint8_t *)target.buf.va + 100, src.va, len),
		  "the written bytes differ from the source");
	memset(dst.va, 0, 2 * NDK_PAGE_SIZE);
	struct ndk_sge s_read = { .address = dst.logical, .length = len, .token = priv };
	cr_assert_eq(ndk_read(w.qp, CTX(5), &s_read, 1, remote_va, rtoken, 0), NDK_STATUS_SUCCESS);
	pw_expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_READ, CTX(5));
	cr_expect(!memcmp(dst.va, src.va, len), "the read bytes differ from the written ones");

	pw_region_free(&w, &target);
	ndk_free_buffer(w.ad, &src);
	ndk_free_buffer(w.ad, &dst);
	pw_close(&w);
}
