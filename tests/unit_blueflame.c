// SPDX-License-Identifier: MIT
/*
 * The driver's side of BlueFlame (docs/blueflame.md) against the fake device: with
 * NDK_BLUEFLAME=1 at QP creation and CAP_SQ_BF >= 64, a doorbell that adds exactly one WQE is
 * preceded by that WQE's 16 words written through the QP's doorbell page (the same bytes as in
 * the ring, which it still fills), at the cost of the doorbell alone; chains, QPs created
 * without the variable and cores without the area ring as before.
 */
#include "fake_device.h"

static struct ndk_adapter *ad;
static struct ndk_pd *pd;
static struct ndk_cq *cq;
static struct ndk_mw *mw;

static void setup(void)
{
	fake_reset();
	fk.cap_sq_bf = NIC_WQE_BYTES;
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &ad), 0);
	cr_assert_eq(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(ad, 16, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
}

static void teardown(void)
{
	unsetenv("NDK_BLUEFLAME");
	if (ad)
		ndk_close_adapter(ad);
	ad = NULL;
	cr_expect_eq(fk.live_allocs, 0, "the adapter's close left %u allocations", fk.live_allocs);
}

TestSuite(unit_blueflame, .init = setup, .fini = teardown);

static struct ndk_qp *new_qp(const char *env)
{
	struct ndk_qp_attr a = {
		.receive_cq = cq,
		.initiator_cq = cq,
		.initiator_queue_depth = 8,
		.max_initiator_request_sge = 1,
	};
	struct ndk_qp *q;

	if (env)
		setenv("NDK_BLUEFLAME", env, 1);
	else
		unsetenv("NDK_BLUEFLAME");
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS);
	unsetenv("NDK_BLUEFLAME");
	return q;
}

static uint32_t page_of(const struct ndk_qp *q)
{
	return NIC_REG_QP_DB_BASE + (q->qpn << NIC_DB_PAGE_SHIFT);
}

/* writes into q's BlueFlame area since write number `from` */
static unsigned bf_writes(const struct ndk_qp *q, unsigned from)
{
	unsigned n = 0;

	for (unsigned i = from; i < fk.nwrites; i++)
		n += fk.writes[i].offset >= page_of(q) + NIC_DB_SQ_BF &&
		     fk.writes[i].offset < page_of(q) + NIC_DB_SQ_BF + NIC_WQE_BYTES;
	return n;
}

Test(unit_blueflame, a_single_wqe_goes_through_the_doorbell_page_before_the_doorbell)
{
	struct ndk_qp *q = new_qp("1");
	unsigned from = fk.nwrites;

	cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, 0), NDK_STATUS_SUCCESS);
	/* the 16 words in order, then the doorbell with the new producer index, nothing else */
	cr_assert_eq(fk.nwrites - from, 17);
	const uint32_t *ring = q->sq.ring;
	for (unsigned w = 0; w < 16; w++) {
		cr_expect_eq(fk.writes[from + w].offset, page_of(q) + NIC_DB_SQ_BF + 4 * w);
		cr_expect_eq(fk.writes[from + w].value, le32toh(ring[w]), "word %u", w);
	}
	cr_expect_eq(fk.writes[from + 16].offset, page_of(q) + NIC_DB_SQ_PI);
	cr_expect_eq(fk.writes[from + 16].value, 1);
	/* the ring holds the WQE too, with its index */
	cr_expect_eq(((const struct nic_wqe_hdr *)q->sq.ring)->opcode, NIC_WQE_OP_INVALIDATE);
	cr_expect_eq(fk.wqe_costs, 1, "one WQE built");
	cr_expect_eq(fk.doorbell_costs, 1, "the copy costs no more than its doorbell");
}

Test(unit_blueflame, a_deferred_chain_rings_without_a_copy)
{
	struct ndk_qp *q = new_qp("1");
	unsigned from = fk.nwrites;

	cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(bf_writes(q, from), 0, "a doorbell for two WQEs carries no copy");
	cr_expect_eq(writes_to(from, page_of(q) + NIC_DB_SQ_PI), 1);
	/* the next single post after the chain uses it again, with the WQE at index 2 */
	from = fk.nwrites;
	cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(bf_writes(q, from), 16);
	cr_expect_eq(
		le16toh(((const struct nic_wqe_hdr *)((const char *)q->sq.ring + 2 * NIC_WQE_BYTES))
				->index),
		2);
	cr_expect_eq(fk.writes[from + 1].value & 0xffff, 2, "the copy's index field (bytes 4-5)");
}

Test(unit_blueflame, off_without_the_variable_or_without_the_area)
{
	struct ndk_qp *plain = new_qp(NULL), *other = new_qp("yes");
	unsigned from = fk.nwrites;

	cr_assert_eq(ndk_invalidate_mw(plain, NULL, mw, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_invalidate_mw(other, NULL, mw, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(bf_writes(plain, from) + bf_writes(other, from), 0);
	cr_expect_eq(fk.nwrites - from, 2, "two doorbells, nothing else");

	/* a core whose CAP_SQ_BF reads 0 (no area) */
	ndk_close_adapter(ad);
	fake_reset();
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &ad), 0);
	cr_assert_eq(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(ad, 16, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	struct ndk_qp *q = new_qp("1");
	from = fk.nwrites;
	cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(bf_writes(q, from), 0);
	cr_expect_eq(fk.nwrites - from, 1);
}
