// SPDX-License-Identifier: MIT
/*
 * Unit tests of the driver core against a test-local backend: a fake device that answers the
 * ID block, records every MMIO write and hands out plain memory as "DMA" memory. The tests play
 * the device's part by reading WQEs from the rings and writing CQEs into them, so the driver's
 * own rules are checked without a simulator: probing, the commands and their arguments, WQE
 * layout, deferral and doorbells, inline failures, slot accounting, CQ polling, consumer-index
 * publishing, arming, and notification dispatch.
 *
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_driver.c
 *   host/src/ndk_adapter.c host/src/ndk_cq.c host/src/ndk_mr.c host/src/ndk_qp.c
 *   host/src/ndk_util.c host/src/ndk_status.c -lcriterion -lpthread
 */
#include "fake_device.h"

/* ---------------------------------------------------------------------------------------------
 * Fixture: an adapter, a PD, a CQ (depth 16) and a QP (send queue 8) on the fake device
 */

static struct ndk_adapter *ad;
static struct ndk_pd *pd;
static struct ndk_cq *cq;
static struct ndk_qp *qp;
static int qp_ctx_tag;
#define QP_CTX ((void *)&qp_ctx_tag)

static struct ndk_qp_attr qp_attr(struct ndk_cq *c, uint32_t sq_depth)
{
	struct ndk_qp_attr a = {
		.receive_cq = c,
		.initiator_cq = c,
		.qp_context = QP_CTX,
		.initiator_queue_depth = sq_depth,
		.max_initiator_request_sge = 2,
		.max_receive_request_sge = 1,
	};
	return a;
}

static void open_adapter(void)
{
	fake_reset();
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &ad), 0);
}

static void setup(void)
{
	struct ndk_qp_attr a;

	open_adapter();
	cr_assert_eq(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(ad, 16, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
	a = qp_attr(cq, 8);
	cr_assert_eq(ndk_create_qp(pd, &a, &qp), NDK_STATUS_SUCCESS);
}

static void teardown(void)
{
	if (ad)
		ndk_close_adapter(ad);
	ad = NULL;
	cr_expect_eq(fk.live_allocs, 0, "the adapter's close left %u allocations", fk.live_allocs);
}

static uint32_t sq_db(void)
{
	return NIC_REG_QP_DB_BASE + (qp->qpn << NIC_DB_PAGE_SHIFT) + NIC_DB_SQ_PI;
}

static uint32_t cq_db(const struct ndk_cq *c)
{
	return NIC_REG_CQ_DB_BASE + (c->cqn << NIC_DB_PAGE_SHIFT) + NIC_DB_CQ_CI_ARM;
}

static void *sq_wqe(const struct ndk_qp *q, uint64_t index)
{
	return (char *)q->sq.ring + (index & (q->sq.depth - 1)) * NIC_WQE_BYTES;
}

/* the device's part: a CQE at the CQ's next producer slot */
static uint16_t dev_pi[256];

static void put_cqe_flags(struct ndk_cq *c, const struct ndk_qp *q, uint16_t wqe_index,
			  uint32_t status, uint16_t op, uint8_t flags, uint32_t type_specific)
{
	uint16_t pi = dev_pi[c->cqn]++;
	struct nic_cqe *e = &c->ring[pi & c->mask];

	memset(e, 0, sizeof(*e));
	e->status = htole32(status);
	e->bytes_transferred = htole32(0);
	e->type_specific = htole32(type_specific);
	e->wqe_index = htole16(wqe_index);
	e->qpn = htole16((uint16_t)q->qpn);
	e->op_type = htole16(op);
	e->flags = flags;
	/* first pass 1, second 0, ... (written last, as the device does) */
	e->owner = ((pi >> c->log_depth) & 1) ? 0 : 1;
}

static void put_cqe(struct ndk_cq *c, const struct ndk_qp *q, uint16_t wqe_index, uint32_t status)
{
	put_cqe_flags(c, q, wqe_index, status, NIC_NDK_OP_TYPE_INVALIDATE, 0, 0);
}

/* an MR initialised for `pages` pages */
static struct ndk_mr *new_mr(uint32_t pages, bool remote)
{
	struct ndk_mr *mr;

	cr_assert_eq(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_initialize_fast_register_mr(mr, pages, remote), NDK_STATUS_SUCCESS);
	return mr;
}

static const uint64_t pages4[4] = { 0x10000, 0x23000, 0x7000, 0xabc000 };

static ndk_status fast_register(struct ndk_mr *mr, void *ctx, uint32_t flags)
{
	return ndk_fast_register(qp, ctx, mr, 4, pages4, 0x10, 4 * 4096 - 0x10, 0x7f0000000010ull,
				 flags);
}

static ndk_status post_invalidate(void *ctx, uint32_t flags)
{
	static struct ndk_mw *mw;

	if (!mw)
		cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	return ndk_invalidate_mw(qp, ctx, mw, flags);
}

TestSuite(unit_driver, .init = setup, .fini = teardown);

/* ---------------------------------------------------------------------------------------------
 * Probe and adapter
 */

Test(unit_driver, probe_fills_adapter_info_from_the_capability_registers)
{
	struct ndk_adapter_info info;

	cr_assert_eq(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
	cr_expect_eq(info.version_major, NIC_VERSION_MAJOR);
	cr_expect_eq(info.version_minor, NIC_VERSION_MINOR);
	cr_expect_eq(info.vendor_id, NIC_VENDOR_ID);
	cr_expect_eq(info.device_id, NIC_DEVICE_ID);
	cr_expect_eq(info.max_qp_count, 16);
	cr_expect_eq(info.max_cq_count, 16);
	cr_expect_eq(info.max_mr_count, 64);
	cr_expect_eq(info.frmr_page_count, 16, "1024 MTT entries over 64 MRs");
	cr_expect_eq(info.max_registration_size, 1024ull * 4096);
	cr_expect_eq(info.max_initiator_queue_depth, 4096);
	cr_expect_eq(info.max_cq_depth, 8192, "the ring is twice the depth");
	cr_expect_eq(info.max_initiator_request_sge, 4);
	cr_expect_eq(info.max_inline_data_size, 0);
	cr_expect_eq(info.max_inbound_read_limit, 0);
	cr_expect_eq(info.max_outbound_read_limit, 0);
	cr_expect_eq(info.max_receive_queue_depth, 0);
	cr_expect_eq(info.adapter_flags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED,
		     NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED, "CAP_CQ.moderation");
	cr_expect_eq(ndk_query_adapter_info(ad, NULL), NDK_STATUS_INVALID_PARAMETER);
}

Test(unit_driver, probe_refuses_a_device_without_the_magic_or_with_another_major_version)
{
	struct ndk_adapter *other;

	fk.magic = 0xffffffff;
	cr_expect_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), -EOPNOTSUPP);
	fk.magic = NIC_MAGIC;
	fk.version = (NIC_VERSION_MAJOR + 1) << 16;
	cr_expect_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), -EOPNOTSUPP);
	fk.version = NIC_VERSION_MAJOR << 16 | 7; /* a newer minor is fine */
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), 0);
	ndk_close_adapter(other);
	fk.queues = 300u << 16 | 16; /* CQ numbers must fit QP_CREATE's 8-bit fields */
	cr_expect_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), -EOPNOTSUPP);
	cr_expect_eq(ndk_status_from_errno(-EOPNOTSUPP), NDK_STATUS_NOT_SUPPORTED);
}

Test(unit_driver, polling_only_adapter_masks_every_vector_and_programs_none)
{
	struct ndk_adapter *other;
	struct ndk_cq *c;
	unsigned v, from;

	from = fk.nwrites;
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, NDK_ADAPTER_F_POLLING_ONLY, &other), 0);
	for (v = 0; v < 16; v++)
		cr_expect_eq(last_write(NIC_REG_MSIX_TABLE + 16 * v + 12), 1, "vector %u", v);
	from = fk.nwrites;
	cr_assert_eq(ndk_create_cq(other, 4, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	for (v = 0; v < 16 * 16; v += 4)
		cr_expect_eq(writes_to(from, NIC_REG_MSIX_TABLE + v), 0);
	ndk_close_adapter(other);
}

Test(unit_driver, alloc_buffer_rounds_to_pages_and_free_zeroes_the_descriptor)
{
	struct ndk_buffer b;

	cr_expect_eq(ndk_alloc_buffer(ad, 0, &b), NDK_STATUS_INVALID_PARAMETER);
	cr_assert_eq(ndk_alloc_buffer(ad, 5000, &b), NDK_STATUS_SUCCESS);
	cr_expect_eq(b.length, 8192);
	cr_expect_eq(b.logical, (uintptr_t)b.va + LOGICAL_OFFSET);
	cr_expect_eq((uintptr_t)b.va & 4095, 0);
	ndk_free_buffer(ad, &b);
	cr_expect_null(b.va);
	ndk_free_buffer(ad, &b); /* an empty buffer: nothing */
}

Test(unit_driver, pd_numbers_are_16_bit_nonzero_and_the_privileged_token_encodes_the_pd)
{
	struct ndk_pd *p2;

	cr_expect_neq(pd->pdn, 0);
	cr_assert_eq(ndk_create_pd(ad, &p2), NDK_STATUS_SUCCESS);
	cr_expect_neq(p2->pdn, pd->pdn);
	cr_expect_eq(ndk_get_privileged_token(p2), 0xFF000000u | (uint32_t)p2->pdn << 8 | 0xFF);
	cr_expect_eq(ndk_get_privileged_token(NULL), 0);
	ndk_close_pd(p2);
}

Test(unit_driver, closing_an_adapter_closes_what_is_still_open)
{
	struct ndk_mw *mw;

	new_mr(4, false);
	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	ndk_close_adapter(ad);
	ad = NULL;
	cr_expect(fk.closed);
	cr_expect_geq(last_cmd(NIC_CMD_QP_DESTROY), 0);
	cr_expect_geq(last_cmd(NIC_CMD_CQ_DESTROY), 0);
	cr_expect_geq(last_cmd(NIC_CMD_MR_FREE), 0);
	/* teardown checks that no allocation is left */
}

/* ---------------------------------------------------------------------------------------------
 * CQ and QP creation
 */

Test(unit_driver, create_cq_programs_its_msix_vector_then_cq_create)
{
	struct ndk_cq *c;
	uint32_t entry;
	int cmd;

	cr_assert_eq(ndk_create_cq(ad, 100, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	cr_expect_eq(c->vector, c->cqn % 16);
	entry = NIC_REG_MSIX_TABLE + 16 * c->vector;
	cr_expect_eq(last_write(entry + 0), NIC_MSIX_WINDOW + 4 * c->vector);
	cr_expect_eq(last_write(entry + 4), 0);
	cr_expect_eq(last_write(entry + 8), c->vector);
	cr_expect_eq(last_write(entry + 12), 0, "unmasked");
	cmd = last_cmd(NIC_CMD_CQ_CREATE);
	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, c->cqn);
	cr_expect_eq(cmd_arg(cmd, 0), (uint32_t)(c->ring_logical));
	cr_expect_eq(cmd_arg(cmd, 1), (uint32_t)(c->ring_logical >> 32));
	cr_expect_eq(cmd_arg(cmd, 2), c->vector << 16 | 8, "a ring of 256 CQEs: twice depth 100");
	/* ring and error record in one CQ allocation */
	cr_expect_eq(c->ring_bytes, 256 * 32 + 32);
	cr_expect_eq((char *)c->err, (char *)c->ring + 256 * 32);
	ndk_close_cq(c);
}

Test(unit_driver, create_cq_rejects_depth_zero_and_above_the_maximum)
{
	struct ndk_cq *c;

	cr_expect_eq(ndk_create_cq(ad, 0, NULL, NULL, &c), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_create_cq(ad, 8193, NULL, NULL, &c), NDK_STATUS_INVALID_PARAMETER);
	/* the largest ring (2^14 CQEs) holds twice the largest depth */
	cr_assert_eq(ndk_create_cq(ad, 8192, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	ndk_close_cq(c);
}

Test(unit_driver, create_cq_reports_exhaustion_as_insufficient_resources)
{
	struct ndk_cq *c[16];
	unsigned i;

	/* the fixture holds one */
	for (i = 0; i < 15; i++)
		cr_assert_eq(ndk_create_cq(ad, 2, NULL, NULL, &c[i]), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_create_cq(ad, 2, NULL, NULL, &c[15]), NDK_STATUS_INSUFFICIENT_RESOURCES);
}

Test(unit_driver, create_qp_sends_qp_create_with_rings_cqs_pd_and_depths)
{
	int cmd = last_cmd(NIC_CMD_QP_CREATE);

	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, qp->qpn);
	cr_expect_eq(cmd_arg(cmd, 0), (uint32_t)qp->sq.ring_logical);
	cr_expect_eq(cmd_arg(cmd, 1), (uint32_t)(qp->sq.ring_logical >> 32));
	cr_expect_eq(cmd_arg(cmd, 2), cq->cqn << 24 | cq->cqn << 16 | pd->pdn);
	cr_expect_eq(cmd_arg(cmd, 3), 3, "rq log 0, sq log 3");
	/* no receive queue: the device is given the send ring's first WQE as its receive ring (a
	   stray RQ doorbell then reads the QP's own memory, never address 0: ndk_qp.c) */
	cr_expect_eq(cmd_arg(cmd, 4), (uint32_t)qp->sq.ring_logical,
		     "no receive queue: the SQ ring");
	cr_expect_eq(cmd_arg(cmd, 5), (uint32_t)(qp->sq.ring_logical >> 32));
	cr_expect_eq(qp->sq.ring_logical & 4095, 0);
}

Test(unit_driver, create_qp_validates_attributes_against_the_adapter)
{
	struct ndk_qp_attr a;
	struct ndk_qp *q;

	a = qp_attr(cq, 0);
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "depth 0");
	a = qp_attr(cq, 4097);
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "depth over max");
	a = qp_attr(cq, 4);
	a.receive_queue_depth = 1;
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "no RQ yet");
	a = qp_attr(cq, 4);
	a.max_initiator_request_sge = 5;
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "SGEs");
	a = qp_attr(cq, 4);
	a.inline_data_size = 1;
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "inline");
	a = qp_attr(NULL, 4);
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "no CQ");
	a = qp_attr(cq, 4096);
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS);
	cr_expect_eq(q->sq.depth, 4096);
	ndk_close_qp(q);
}

Test(unit_driver, closing_a_cq_still_used_by_a_qp_destroys_it_when_the_qp_closes)
{
	ndk_close_cq(cq);
	cr_expect_lt(last_cmd(NIC_CMD_CQ_DESTROY), 0, "destroyed under a live QP");
	cr_expect_null(ad->cqs[cq->cqn], "still reachable by interrupts");
	ndk_close_qp(qp);
	qp = NULL;
	cr_expect_geq(last_cmd(NIC_CMD_CQ_DESTROY), 0);
}

Test(unit_driver, closing_a_qp_destroys_it_and_reads_back_before_freeing_its_ring)
{
	unsigned reads = fk.reads;
	uint32_t qpn = qp->qpn;
	int cmd;

	ndk_close_qp(qp);
	cmd = last_cmd(NIC_CMD_QP_DESTROY);
	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, qpn);
	cr_expect_eq(fk.reads, reads + 1);
	cr_expect_null(ad->qps[qpn]);
}

/* ---------------------------------------------------------------------------------------------
 * Memory registration
 */

Test(unit_driver, initialize_fast_register_mr_takes_an_mtt_range_and_sends_mr_init)
{
	struct ndk_mr *a, *b;
	int cmd;

	a = new_mr(16, true);
	cmd = last_cmd(NIC_CMD_MR_INIT);
	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, a->index);
	cr_expect_eq(cmd_arg(cmd, 0), pd->pdn);
	cr_expect_eq(cmd_arg(cmd, 1), 16);
	cr_expect_eq(cmd_arg(cmd, 2), a->mtt_offset);
	cr_expect_eq(cmd_arg(cmd, 3), 1, "remote_access_ok, not a window");
	b = new_mr(8, false);
	cmd = last_cmd(NIC_CMD_MR_INIT);
	cr_expect_eq(cmd_arg(cmd, 3), 0);
	cr_expect(b->mtt_offset >= a->mtt_offset + 16 || b->mtt_offset + 8 <= a->mtt_offset,
		  "MTT ranges overlap");
	cr_expect_eq(ndk_initialize_fast_register_mr(b, 8, false), NDK_STATUS_INVALID_DEVICE_STATE);
}

Test(unit_driver, initialize_fast_register_mr_checks_its_page_count)
{
	struct ndk_mr *a, *b;

	cr_assert_eq(ndk_create_mr(pd, &a), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_initialize_fast_register_mr(a, 0, false), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_initialize_fast_register_mr(a, 1025, false), NDK_STATUS_INVALID_PARAMETER);
	cr_assert_eq(ndk_initialize_fast_register_mr(a, 1000, false), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_mr(pd, &b), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_initialize_fast_register_mr(b, 25, false),
		     NDK_STATUS_INSUFFICIENT_RESOURCES, "only 24 MTT entries are left");
	cr_expect_eq(ndk_initialize_fast_register_mr(b, 24, false), NDK_STATUS_SUCCESS);
	ndk_close_mr(a);
	cr_assert_eq(ndk_create_mr(pd, &a), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_initialize_fast_register_mr(a, 1000, false), NDK_STATUS_SUCCESS,
		     "closing an MR gives its MTT range back");
}

Test(unit_driver, create_mw_initialises_its_entry_as_a_window)
{
	struct ndk_mw *mw;
	int cmd;

	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	cmd = last_cmd(NIC_CMD_MR_INIT);
	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, mw->index);
	cr_expect_eq(cmd_arg(cmd, 0), pd->pdn);
	cr_expect_eq(cmd_arg(cmd, 3) & 2, 2, "is_mw");
	cr_expect_eq(ndk_get_remote_token_from_mw(mw), mw->index << 8);
	ndk_close_mw(mw);
	cmd = last_cmd(NIC_CMD_MR_FREE);
	cr_assert_geq(cmd, 0);
}

Test(unit_driver, mr_and_mw_share_the_table)
{
	struct ndk_mr *mr;
	struct ndk_mw *mw;
	unsigned i;

	for (i = 0; i < 32; i++) {
		cr_assert_eq(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
		cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	}
	cr_expect_eq(ndk_create_mr(pd, &mr), NDK_STATUS_INSUFFICIENT_RESOURCES);
	cr_expect_eq(ndk_create_mw(pd, &mw), NDK_STATUS_INSUFFICIENT_RESOURCES);
}

Test(unit_driver, closing_a_pd_in_use_keeps_its_number_until_the_last_user_closes)
{
	struct ndk_mr *mr;
	uint16_t pdn = pd->pdn;

	cr_assert_eq(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
	ndk_close_pd(pd);
	cr_expect(ndk_bitmap_test(&ad->pd_ids, pdn));
	ndk_close_qp(qp);
	qp = NULL;
	cr_expect(ndk_bitmap_test(&ad->pd_ids, pdn));
	ndk_close_mr(mr);
	cr_expect_not(ndk_bitmap_test(&ad->pd_ids, pdn));
}

/* ---------------------------------------------------------------------------------------------
 * Posting, deferral, doorbells
 */

Test(unit_driver, fast_register_builds_its_wqe_and_page_list)
{
	struct ndk_mr *mr = new_mr(4, true);
	uint32_t old = ndk_get_remote_token_from_mr(mr);
	struct nic_wqe_fast_reg *w;
	const uint64_t *list;
	unsigned i;

	cr_assert_eq(fast_register(mr, (void *)0x11,
				   NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_RDMA_READ_SINK),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_FAST_REG);
	cr_expect_eq(le16toh(w->flags), NDK_OP_FLAG_ALLOW_REMOTE_WRITE, "read-sink stays out");
	cr_expect_eq(le16toh(w->index), 0);
	cr_expect_eq(le32toh(w->mr_token), ndk_token(mr->index, 1));
	cr_expect_eq(le32toh(w->page_count), 4);
	cr_expect_eq(le64toh(w->length), 4 * 4096 - 0x10);
	cr_expect_eq(le64toh(w->base_va), 0x7f0000000010ull);
	cr_expect_eq(le32toh(w->fbo), 0x10);
	/* the page list, little-endian, where the WQE points (a logical address) */
	cr_assert_not_null(mr->page_lists);
	cr_assert_eq(le64toh(w->page_list_addr), mr->page_lists->logical);
	cr_assert_eq(mr->page_list_bytes, 64, "4 pages of 8 bytes, rounded up to 64");
	list = mr->page_lists->va;
	for (i = 0; i < 4; i++)
		cr_expect_eq(le64toh(list[i]), pages4[i]);
	/* the tokens change at once, to the posted registration's */
	cr_expect_neq(ndk_get_remote_token_from_mr(mr), old);
	cr_expect_eq(ndk_get_remote_token_from_mr(mr), ndk_token(mr->index, 1));
	cr_expect_eq(ndk_get_local_token_from_mr(mr), ndk_get_remote_token_from_mr(mr));
	cr_expect_eq(fk.wqe_costs, 1);
}

Test(unit_driver, a_non_deferred_post_rings_once_with_the_newest_producer_index)
{
	unsigned from = fk.nwrites;

	cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db()), 0, "deferred requests rang");
	cr_expect_eq(fk.doorbell_costs, 0);
	cr_assert_eq(post_invalidate(NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db()), 1);
	cr_expect_eq(last_write(sq_db()), 3);
	cr_expect_eq(fk.wqe_costs, 3);
	cr_expect_eq(fk.doorbell_costs, 1);
	/* every WQE carries its producer index; DEFER is not a WQE flag */
	cr_expect_eq(le16toh(((struct nic_wqe_hdr *)sq_wqe(qp, 1))->index), 1);
	cr_expect_eq(le16toh(((struct nic_wqe_hdr *)sq_wqe(qp, 0))->flags), 0);
}

Test(unit_driver, an_inline_failure_first_rings_for_the_earlier_deferred_requests)
{
	struct ndk_mr *mr = new_mr(4, false);
	unsigned from;

	cr_assert_eq(fast_register(mr, NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	from = fk.nwrites;
	/* the seed's example: the second fast register of a chain fails inline */
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 5, pages4, 0, 4096, 0, NDK_OP_FLAG_DEFER),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(writes_to(from, sq_db()), 1);
	cr_expect_eq(last_write(sq_db()), 1, "the first request, and only it, is indicated");
	cr_expect_eq(qp->sq.pi, 1, "the failed request reached the ring");
	/* nothing deferred any more: a second failure rings nothing */
	from = fk.nwrites;
	cr_expect_eq(fast_register(mr, NULL, 0x8000), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(writes_to(from, sq_db()), 0);
}

Test(unit_driver, every_kind_of_inline_failure_flushes_the_deferred_chain)
{
	struct ndk_mr *mr = new_mr(4, false);
	struct ndk_sge sge[3] = { { 0 } };
	ndk_status st;
	unsigned from, k;

	for (k = 0; k < 9; k++) {
		cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
		from = fk.nwrites;
		switch (k) {
		case 0:
			st = ndk_send(qp, NULL, sge, 1, NDK_OP_FLAG_DEFER);
			cr_expect_eq(st, NDK_STATUS_NOT_SUPPORTED);
			break;
		case 1:
			st = ndk_write(qp, NULL, sge, 3, 0, 0, NDK_OP_FLAG_DEFER);
			cr_expect_eq(st, NDK_STATUS_DATA_OVERRUN, "3 SGEs: a Write WQE holds 2");
			break;
		case 2:
			st = ndk_read(qp, NULL, sge, 1, 0, 0, NDK_OP_FLAG_INLINE);
			cr_expect_eq(st, NDK_STATUS_INVALID_PARAMETER);
			break;
		case 3:
			st = fast_register(mr, NULL, NDK_OP_FLAG_ALLOW_REMOTE_READ);
			cr_expect_eq(st, NDK_STATUS_ACCESS_VIOLATION);
			break;
		case 4:
			st = ndk_bind(qp, NULL, mr, NULL, 0, 1, 0);
			cr_expect_eq(st, NDK_STATUS_INVALID_PARAMETER);
			break;
		case 5:
			st = ndk_invalidate_mr(qp, NULL, NULL, 0);
			cr_expect_eq(st, NDK_STATUS_INVALID_PARAMETER);
			break;
		case 6:
			st = ndk_send_and_invalidate(qp, NULL, sge, 1, 0, 0);
			cr_expect_eq(st, NDK_STATUS_NOT_SUPPORTED);
			break;
		case 7:
			st = ndk_send(qp, NULL, NULL, 1, 0);
			cr_expect_eq(st, NDK_STATUS_INVALID_PARAMETER, "SGE list missing");
			break;
		default:
			st = ndk_send(qp, NULL, sge, 0, NDK_OP_FLAG_INLINE);
			cr_expect_eq(st, NDK_STATUS_NOT_SUPPORTED, "0 inline bytes fit");
			break;
		}
		cr_expect_eq(writes_to(from, sq_db()), 1, "case %u", k);
		cr_expect_eq(last_write(sq_db()), qp->sq.pi, "case %u", k);
		/* the device's completions keep the ring from filling */
		put_cqe(cq, qp, (uint16_t)(qp->sq.pi - 1), 0);
		struct ndk_result r;
		cr_assert_eq(ndk_get_cq_results(cq, &r, 1), 1);
	}
}

Test(unit_driver, receive_is_not_supported_yet_after_its_argument_checks)
{
	struct ndk_sge sge[4] = { { 0 } };

	cr_expect_eq(ndk_receive(NULL, NULL, sge, 1), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_receive(qp, NULL, sge, 4), NDK_STATUS_DATA_OVERRUN, "a WQE holds 3");
	cr_expect_eq(ndk_receive(qp, NULL, NULL, 1), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_receive(qp, NULL, sge, 1), NDK_STATUS_NOT_SUPPORTED);
}

Test(unit_driver, the_library_rings_by_itself_when_deferred_wqes_reach_half_the_ring)
{
	unsigned from = fk.nwrites, i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db()), 0);
	cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db()), 1, "4 deferred of a ring of 8");
	cr_expect_eq(last_write(sq_db()), 4);
}

Test(unit_driver, a_full_queue_fails_with_no_more_entries_until_a_completion_frees_slots)
{
	unsigned i;
	struct ndk_result r[8];

	for (i = 0; i < 8; i++)
		cr_assert_eq(post_invalidate((void *)(uintptr_t)(i + 1),
					     NDK_OP_FLAG_SILENT_SUCCESS),
			     NDK_STATUS_SUCCESS);
	cr_expect_eq(post_invalidate(NULL, 0), NDK_STATUS_NO_MORE_ENTRIES);
	/* one completion for WQE 5: silent successes 0..4 are done too */
	put_cqe(cq, qp, 5, 0);
	cr_assert_eq(ndk_get_cq_results(cq, r, 8), 1);
	cr_expect_eq(r[0].request_context, (void *)6);
	for (i = 0; i < 6; i++)
		cr_expect_eq(post_invalidate(NULL, 0), NDK_STATUS_SUCCESS, "slot %u", i);
	cr_expect_eq(post_invalidate(NULL, 0), NDK_STATUS_NO_MORE_ENTRIES);
}

Test(unit_driver, posting_to_a_qp_whose_cq_is_in_error_is_invalid_device_state)
{
	unsigned from;

	cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cq->err->status = htole32(NIC_STATUS_BUFFER_OVERFLOW);
	from = fk.nwrites;
	cr_expect_eq(post_invalidate(NULL, 0), NDK_STATUS_INVALID_DEVICE_STATE);
	cr_expect_eq(writes_to(from, sq_db()), 1, "the deferred request is still indicated");
}

Test(unit_driver, fast_register_checks_its_arguments_inline)
{
	struct ndk_mr *mr = new_mr(4, true), *fresh;
	uint64_t bad_pages[2] = { 0x1000, 0x2001 };

	cr_assert_eq(ndk_create_mr(pd, &fresh), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 5, pages4, 0, 4096, 0, 0),
		     NDK_STATUS_INVALID_PARAMETER, "more pages than initialised");
	cr_expect_eq(ndk_fast_register(qp, NULL, fresh, 1, pages4, 0, 4096, 0, 0),
		     NDK_STATUS_INVALID_PARAMETER, "MR never initialised");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 0, pages4, 0, 4096, 0, 0),
		     NDK_STATUS_INVALID_PARAMETER, "no pages");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 2, bad_pages, 0, 4096, 0, 0),
		     NDK_STATUS_INVALID_PARAMETER, "page not 4 KiB aligned");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 1, pages4, 4096, 1, 4096, 0),
		     NDK_STATUS_INVALID_PARAMETER, "fbo beyond the page");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 1, pages4, 8, 4089, 8, 0),
		     NDK_STATUS_INVALID_PARAMETER, "length beyond the pages");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 1, pages4, 8, 0, 8, 0),
		     NDK_STATUS_INVALID_PARAMETER, "length 0");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 1, pages4, 8, 16, 0x1000, 0),
		     NDK_STATUS_INVALID_PARAMETER, "base VA not fbo + n pages");
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 1, NULL, 0, 16, 0, 0),
		     NDK_STATUS_INVALID_PARAMETER, "no page array");
	cr_expect_eq(ndk_fast_register(NULL, NULL, mr, 1, pages4, 0, 16, 0, 0),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_fast_register(qp, NULL, mr, 1, pages4, 8, 4088, 0x5008, 0),
		     NDK_STATUS_SUCCESS);
	cr_expect_eq(qp->sq.pi, 1, "only the valid request reached the ring");
}

Test(unit_driver, remote_access_on_an_mr_initialised_without_it_is_an_access_violation)
{
	struct ndk_mr *mr = new_mr(4, false);

	cr_expect_eq(fast_register(mr, NULL, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_ACCESS_VIOLATION);
	cr_expect_eq(fast_register(mr, NULL, NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		     NDK_STATUS_ACCESS_VIOLATION);
	cr_expect_eq(fast_register(mr, NULL, NDK_OP_FLAG_ALLOW_LOCAL_WRITE), NDK_STATUS_SUCCESS);
}

static uint64_t fr_list_addr(const struct ndk_qp *q, uint64_t index)
{
	return le64toh(((struct nic_wqe_fast_reg *)sq_wqe(q, index))->page_list_addr);
}

Test(unit_driver, each_outstanding_registration_keeps_its_own_page_list)
{
	struct ndk_mr *mr = new_mr(4, false);
	struct ndk_result r[8];
	uint64_t a, b, c;
	unsigned allocs;

	/* FR, INV, FR, INV, FR: all outstanding at once, as a consumer may post them */
	cr_assert_eq(fast_register(mr, NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_invalidate_mr(qp, NULL, mr, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(fast_register(mr, NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_invalidate_mr(qp, NULL, mr, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	a = fr_list_addr(qp, 0);
	b = fr_list_addr(qp, 2);
	c = fr_list_addr(qp, 4);
	cr_expect(a != b && b != c && a != c, "two registrations share a page list");
	cr_expect_eq(ndk_get_local_token_from_mr(mr), ndk_token(mr->index, 3));
	/* all done: the next registration needs no new buffer */
	put_cqe(cq, qp, 4, 0);
	cr_assert_eq(ndk_get_cq_results(cq, r, 8), 1);
	allocs = fk.live_allocs;
	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(fk.live_allocs, allocs);
	cr_expect(fr_list_addr(qp, 5) == a || fr_list_addr(qp, 5) == b || fr_list_addr(qp, 5) == c);
}

Test(unit_driver, a_completed_registration_gives_its_page_list_back)
{
	struct ndk_mr *mr = new_mr(4, false);
	struct ndk_result r;
	unsigned allocs = fk.live_allocs;

	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	put_cqe(cq, qp, 0, 0);
	cr_assert_eq(ndk_get_cq_results(cq, &r, 1), 1);
	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(fr_list_addr(qp, 1), fr_list_addr(qp, 0));
	cr_expect_eq(fk.live_allocs, allocs);
	/* the device may still read the second one: a third takes a new buffer */
	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_neq(fr_list_addr(qp, 2), fr_list_addr(qp, 1));
	cr_expect_eq(fk.live_allocs, allocs + 1);
}

Test(unit_driver, registrations_of_a_destroyed_qp_leave_their_page_lists_free)
{
	struct ndk_mr *mr = new_mr(4, false);
	struct ndk_qp_attr a = qp_attr(cq, 4);
	struct ndk_qp *q2;
	uint64_t first;
	unsigned allocs;

	cr_assert_eq(ndk_create_qp(pd, &a, &q2), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_fast_register(q2, NULL, mr, 1, pages4, 0, 16, 0, 0), NDK_STATUS_SUCCESS);
	first = fr_list_addr(q2, 0);
	ndk_close_qp(q2);
	allocs = fk.live_allocs;
	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(fr_list_addr(qp, 0), first);
	cr_expect_eq(fk.live_allocs, allocs);
}

Test(unit_driver, bind_names_the_mr_token_and_a_new_mw_token)
{
	struct ndk_mr *mr = new_mr(4, true);
	struct ndk_mw *mw;
	struct nic_wqe_bind *w;

	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	cr_assert_eq(fast_register(mr, NULL, NDK_OP_FLAG_ALLOW_REMOTE_WRITE), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_bind(qp, NULL, mr, mw, 0x1000, 0, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_INVALID_PARAMETER, "length 0");
	cr_expect_eq(ndk_bind(qp, NULL, mr, mw, 0x1000, 16, NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
		     NDK_STATUS_INVALID_PARAMETER, "local write is no window right");
	cr_assert_eq(ndk_bind(qp, (void *)7, mr, mw, 0x7f0000000100ull, 256,
			      NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 1);
	cr_expect_eq(w->opcode, NIC_WQE_OP_BIND);
	cr_expect_eq(le16toh(w->flags),
		     NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	cr_expect_eq(le32toh(w->mr_token), ndk_get_remote_token_from_mr(mr));
	cr_expect_eq(le32toh(w->mw_token), ndk_token(mw->index, 1));
	cr_expect_eq(ndk_get_remote_token_from_mw(mw), ndk_token(mw->index, 1));
	cr_expect_eq(le64toh(w->va), 0x7f0000000100ull);
	cr_expect_eq(le64toh(w->length), 256);
}

Test(unit_driver, invalidate_names_the_current_token)
{
	struct ndk_mr *mr = new_mr(4, false), *fresh;
	struct nic_wqe_invalidate *w;

	cr_assert_eq(ndk_create_mr(pd, &fresh), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_invalidate_mr(qp, NULL, fresh, 0), NDK_STATUS_INVALID_PARAMETER,
		     "not a fast-register MR yet");
	cr_assert_eq(fast_register(mr, NULL, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_invalidate_mr(qp, NULL, mr, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_INVALID_PARAMETER, "not an invalidate flag");
	cr_assert_eq(ndk_invalidate_mr(qp, NULL, mr,
				       NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 1);
	cr_expect_eq(w->opcode, NIC_WQE_OP_INVALIDATE);
	cr_expect_eq(le32toh(w->token), ndk_get_local_token_from_mr(mr));
	cr_expect_eq(le16toh(w->flags), NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE);
}

Test(unit_driver, flush_indicates_deferred_requests_then_sends_qp_flush)
{
	unsigned from;
	int cmd;

	cr_assert_eq(post_invalidate(NULL, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	from = fk.nwrites;
	ndk_flush(qp);
	cr_expect_eq(writes_to(from, sq_db()), 1);
	cmd = last_cmd(NIC_CMD_QP_FLUSH);
	cr_assert_geq(cmd, 0);
	cr_expect_gt((unsigned)cmd, from, "flush before the doorbell");
	cr_expect_eq(fk.writes[cmd].value >> 8, qp->qpn);
	for (unsigned i = from; i < (unsigned)cmd; i++)
		if (fk.writes[i].offset == sq_db())
			return;
	cr_assert_fail("the doorbell did not precede QP_FLUSH");
}

Test(unit_driver, qp_address_gives_the_qp_number_but_no_network_address_yet)
{
	struct ndk_qp_address a;

	memset(&a, 0xff, sizeof(a));
	cr_expect_eq(ndk_get_qp_address(qp, &a), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(a.qp_number, NIC_QPN_BASE + qp->qpn, "the wire QPN");
	cr_expect_eq(a.ipv4, 0);
	cr_expect_eq(ndk_connect_qp(qp, &a, 0, 0), NDK_STATUS_NOT_SUPPORTED);
}

/* ---------------------------------------------------------------------------------------------
 * Completions
 */

Test(unit_driver, completions_carry_the_qp_and_request_contexts_in_order)
{
	struct ndk_result r[4];
	unsigned i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(post_invalidate((void *)(uintptr_t)(0x100 + i), 0),
			     NDK_STATUS_SUCCESS);
	put_cqe(cq, qp, 0, 0);
	put_cqe(cq, qp, 1, NIC_STATUS_ACCESS_VIOLATION);
	put_cqe(cq, qp, 2, NIC_STATUS_CANCELLED);
	cr_assert_eq(ndk_get_cq_results(cq, r, 4), 3);
	for (i = 0; i < 3; i++) {
		cr_expect_eq(r[i].qp_context, QP_CTX);
		cr_expect_eq(r[i].request_context, (void *)(uintptr_t)(0x100 + i));
	}
	cr_expect_eq(r[0].status, NDK_STATUS_SUCCESS);
	cr_expect_eq(r[1].status, NDK_STATUS_ACCESS_VIOLATION);
	cr_expect_eq(r[2].status, NDK_STATUS_CANCELLED);
	cr_expect_eq(qp->sq.completed, 3);
}

Test(unit_driver, results_ex_carry_the_type_and_type_specific_output)
{
	struct ndk_result_ex r;

	cr_assert_eq(post_invalidate((void *)5, 0), NDK_STATUS_SUCCESS);
	put_cqe_flags(cq, qp, 0, 0, NIC_NDK_OP_TYPE_INVALIDATE, 0, 0xabcdef);
	cr_assert_eq(ndk_get_cq_results_ex(cq, &r, 1), 1);
	cr_expect_eq(r.type, NDK_OP_INVALIDATE);
	cr_expect_eq(r.type_specific, 0xabcdef);
	cr_expect_eq(r.request_context, (void *)5);
	cr_expect_eq(r.qp_context, QP_CTX);
}

Test(unit_driver, an_empty_poll_lets_the_backend_idle)
{
	struct ndk_result r;

	cr_expect_eq(ndk_get_cq_results(cq, &r, 1), 0);
	cr_expect_eq(fk.idle_polls, 1);
	cr_expect_eq(ndk_get_cq_results(cq, &r, 0), 0, "nothing asked: no poll");
	cr_expect_eq(fk.idle_polls, 1);
}

Test(unit_driver, owner_phase_flips_on_every_pass_over_the_ring)
{
	struct ndk_cq *c;
	struct ndk_qp *q;
	struct ndk_qp_attr a;
	struct ndk_result r[4];
	unsigned pass, i;
	uint16_t next = 0;

	cr_assert_eq(ndk_create_cq(ad, 4, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	a = qp_attr(c, 4);
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS);
	for (pass = 0; pass < 5; pass++) {
		for (i = 0; i < 4; i++) {
			struct ndk_mw *mw;

			cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
			cr_assert_eq(ndk_invalidate_mw(q, (void *)(uintptr_t)(next + i + 1), mw, 0),
				     NDK_STATUS_SUCCESS);
			ndk_close_mw(mw);
		}
		/* the stale entries of the previous pass must not look new */
		cr_expect_eq(ndk_get_cq_results(c, r, 4), 0, "pass %u", pass);
		for (i = 0; i < 4; i++)
			put_cqe(c, q, (uint16_t)(next + i), 0);
		cr_assert_eq(ndk_get_cq_results(c, r, 4), 4, "pass %u", pass);
		for (i = 0; i < 4; i++)
			cr_expect_eq(r[i].request_context, (void *)(uintptr_t)(next + i + 1));
		next += 4;
	}
}

Test(unit_driver, a_completion_of_a_closed_qp_is_consumed_and_dropped)
{
	struct ndk_qp *q2;
	struct ndk_qp_attr a = qp_attr(cq, 4);
	struct ndk_result r[2];

	cr_assert_eq(ndk_create_qp(pd, &a, &q2), NDK_STATUS_SUCCESS);
	cr_assert_eq(post_invalidate((void *)9, 0), NDK_STATUS_SUCCESS);
	put_cqe(cq, q2, 0, 0);
	put_cqe(cq, qp, 0, 0);
	ndk_close_qp(q2);
	cr_assert_eq(ndk_get_cq_results(cq, r, 2), 1);
	cr_expect_eq(r[0].request_context, (void *)9);
	cr_expect_eq(cq->ci, 2);
}

/* The consumer index is published (a CQ doorbell) every depth/2 entries polled, not per poll:
 * each publish is an MMIO. The ring is twice the depth, so the entries the device still counts
 * as occupied never make it see an overflow the consumer did not cause. */
static void publish_case(uint32_t depth, unsigned per_poll, unsigned total)
{
	struct ndk_cq *c;
	struct ndk_qp *q;
	struct ndk_qp_attr a;
	struct ndk_result r[16];
	struct ndk_mw *mw;
	unsigned from, i, got = 0, half = depth / 2 ? depth / 2 : 1;

	cr_assert_eq(ndk_create_cq(ad, depth, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	cr_assert_geq(c->mask + 1, 2 * depth, "ring of %u for depth %u", c->mask + 1, depth);
	a = qp_attr(c, 16);
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	for (i = 0; i < total; i++) {
		cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, 0), NDK_STATUS_SUCCESS);
		put_cqe(c, q, (uint16_t)i, 0);
	}
	from = fk.nwrites;
	while (got < total) {
		size_t n = ndk_get_cq_results(c, r, per_poll);
		cr_assert_gt(n, 0);
		got += (unsigned)n;
		if (per_poll == 1)
			cr_expect_eq(writes_to(from, cq_db(c)), got / half, "after %u entries",
				     got);
	}
	cr_expect_eq(writes_to(from, cq_db(c)), total / half);
	if (total >= half)
		cr_expect_eq(last_write(cq_db(c)), total / half * half,
			     "consumer index, no arm bit");
	ndk_get_cq_results(c, r, 1);
	cr_expect_eq(writes_to(from, cq_db(c)), total / half, "an empty poll publishes nothing");
}

Test(unit_driver, consumer_index_is_published_every_half_depth_polled)
{
	publish_case(12, 1, 12); /* after 6 and after 12 */
}

Test(unit_driver, one_large_poll_publishes_every_half_depth)
{
	publish_case(9, 16, 9); /* at 4 and at 8 entries within one call */
}

Test(unit_driver, a_few_polled_entries_are_not_published_yet)
{
	publish_case(16, 1, 3); /* 3 < 8: no doorbell */
}

Test(unit_driver, arm_writes_type_arm_bit_and_consumer_index)
{
	struct ndk_result r;
	unsigned from;

	cr_assert_eq(post_invalidate(NULL, 0), NDK_STATUS_SUCCESS);
	put_cqe(cq, qp, 0, 0);
	cr_assert_eq(ndk_get_cq_results(cq, &r, 1), 1);
	from = fk.nwrites;
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_SOLICITED);
	cr_expect_eq(writes_to(from, cq_db(cq)), 1);
	cr_expect_eq(last_write(cq_db(cq)), 2u << 17 | 1u << 16 | 1);
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
	cr_expect_eq(last_write(cq_db(cq)), 1u << 17 | 1u << 16 | 1);
	ndk_arm_cq(cq, NDK_CQ_NOTIFY_ERRORS);
	cr_expect_eq(last_write(cq_db(cq)), 1u << 16 | 1);
	ndk_arm_cq(cq, (enum ndk_cq_notify_type)3);
	cr_expect_eq(writes_to(from, cq_db(cq)), 3, "an unknown type is ignored");
}

static uint32_t cq_moderation_db(struct ndk_cq *c)
{
	return NIC_REG_CQ_DB_BASE + (c->cqn << NIC_DB_PAGE_SHIFT) + NIC_DB_CQ_MODERATION;
}

Test(unit_driver, moderation_arguments_are_checked_and_written_to_the_cq_doorbell_page)
{
	unsigned from = fk.nwrites;

	cr_expect_eq(ndk_control_cq_interrupt_moderation(NULL, 20, 8),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 0xffffffff, 0xffffffff),
		     NDK_STATUS_INVALID_PARAMETER_MIX);
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 0xffffffff, 17),
		     NDK_STATUS_INVALID_PARAMETER_MIX, "count above the depth of 16");
	cr_expect_eq(writes_to(from, cq_moderation_db(cq)), 0, "a refused call writes nothing");

	/* {interval_us[31:16], count[15:0]}; 0 in a field = no bound by it */
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 20, 0xffffffff), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 20u << 16, "interval only");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 0xffffffff, 16), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 16u, "count only, count == depth");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 20, 8), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 20u << 16 | 8, "both");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 20, 17), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 20u << 16, "count above the depth");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 100000, 8), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 0xffffu << 16 | 8, "rounded down");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 0, 8), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 0, "interval 0: off");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 20, 1), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 0, "count 1: off");
	cr_expect_eq(ndk_control_cq_interrupt_moderation(cq, 0xffffffff, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(last_write(cq_moderation_db(cq)), 0, "count 0: off");
	cr_expect_eq(writes_to(from, cq_moderation_db(cq)), 8);
}

Test(unit_driver, moderation_is_not_supported_on_a_device_without_the_capability)
{
	struct ndk_adapter *other;
	struct ndk_adapter_info info;
	struct ndk_cq *c;
	unsigned from;

	fk.cap_cq = 14; /* CAP_CQ.moderation clear */
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), 0);
	cr_assert_eq(ndk_query_adapter_info(other, &info), NDK_STATUS_SUCCESS);
	cr_expect_eq(info.adapter_flags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED, 0);
	cr_assert_eq(ndk_create_cq(other, 16, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	from = fk.nwrites;
	cr_expect_eq(ndk_control_cq_interrupt_moderation(c, 20, 8), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_control_cq_interrupt_moderation(c, 0xffffffff, 0xffffffff),
		     NDK_STATUS_INVALID_PARAMETER_MIX, "the arguments are still checked first");
	cr_expect_eq(writes_to(from, cq_moderation_db(c)), 0);
	ndk_close_cq(c);
	ndk_close_adapter(other);
}

/* ---------------------------------------------------------------------------------------------
 * Notifications
 */

static struct notify_log {
	unsigned calls;
	ndk_status status[8];
	int depth, max_depth;
	struct ndk_cq *cq;
	bool rearm_and_fire, close_inside;
} nl;

static void on_notify(void *context, ndk_status status)
{
	cr_assert_eq(context, &nl);
	nl.depth++;
	if (nl.depth > nl.max_depth)
		nl.max_depth = nl.depth;
	if (nl.calls < 8)
		nl.status[nl.calls] = status;
	nl.calls++;
	if (nl.rearm_and_fire && nl.calls == 1) {
		/* re-arm, and the device fires at once: that notification must wait */
		ndk_arm_cq(nl.cq, NDK_CQ_NOTIFY_ANY);
		ndk_adapter_interrupt(ad, nl.cq->vector);
		cr_assert_eq(nl.calls, 1, "the callback was re-entered");
	}
	if (nl.close_inside)
		ndk_close_cq(nl.cq);
	nl.depth--;
}

static struct ndk_cq *notify_cq(void)
{
	struct ndk_cq *c;

	memset(&nl, 0, sizeof(nl));
	cr_assert_eq(ndk_create_cq(ad, 8, on_notify, &nl, &c), NDK_STATUS_SUCCESS);
	nl.cq = c;
	return c;
}

Test(unit_driver, an_interrupt_runs_the_callback_of_an_armed_cq_once)
{
	struct ndk_cq *c = notify_cq();

	ndk_adapter_interrupt(ad, c->vector);
	cr_expect_eq(nl.calls, 0, "not armed");
	ndk_arm_cq(c, NDK_CQ_NOTIFY_ANY);
	ndk_adapter_interrupt(ad, c->vector);
	cr_expect_eq(nl.calls, 1);
	cr_expect_eq(nl.status[0], NDK_STATUS_SUCCESS);
	ndk_adapter_interrupt(ad, (c->vector + 1) % 16);
	cr_expect_eq(nl.calls, 1, "another vector");
}

Test(unit_driver, the_callback_status_is_the_cq_error_once_the_cq_failed)
{
	struct ndk_cq *c = notify_cq();

	c->err->status = htole32(NIC_STATUS_BUFFER_OVERFLOW);
	ndk_arm_cq(c, NDK_CQ_NOTIFY_ERRORS);
	ndk_adapter_interrupt(ad, c->vector);
	cr_assert_eq(nl.calls, 1);
	cr_expect_eq(nl.status[0], NDK_STATUS_BUFFER_OVERFLOW);
}

Test(unit_driver, a_notification_due_during_the_callback_runs_right_after_it_returns)
{
	struct ndk_cq *c = notify_cq();

	nl.rearm_and_fire = true;
	ndk_arm_cq(c, NDK_CQ_NOTIFY_ANY);
	ndk_adapter_interrupt(ad, c->vector);
	cr_expect_eq(nl.calls, 2);
	cr_expect_eq(nl.max_depth, 1, "callbacks nested");
}

Test(unit_driver, no_callback_after_the_cq_is_closed_even_from_inside_its_callback)
{
	struct ndk_cq *c = notify_cq();
	uint32_t cqn = c->cqn, vector = c->vector;

	nl.close_inside = true;
	ndk_arm_cq(c, NDK_CQ_NOTIFY_ANY);
	ndk_arm_cq(c, NDK_CQ_NOTIFY_ANY);
	ndk_adapter_interrupt(ad, vector);
	cr_expect_eq(nl.calls, 1);
	cr_expect_geq(last_cmd(NIC_CMD_CQ_DESTROY), 0, "destroyed once the callback returned");
	cr_expect_null(ad->cqs[cqn]);
	ndk_adapter_interrupt(ad, vector);
	cr_expect_eq(nl.calls, 1);
}

static unsigned shared_calls[5];

static void on_shared(void *context, ndk_status status)
{
	(void)status;
	shared_calls[(uintptr_t)context]++;
}

Test(unit_driver, cqs_sharing_a_vector_are_called_only_when_armed)
{
	struct ndk_adapter *small;
	struct ndk_cq *c[5];
	uintptr_t i;

	fk.msix = 4; /* 5 CQs on 4 vectors: CQs 0 and 4 share vector 0 */
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &small), 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(ndk_create_cq(small, 2, on_shared, (void *)i, &c[i]),
			     NDK_STATUS_SUCCESS);
	cr_assert_eq(c[0]->vector, c[4]->vector);
	ndk_arm_cq(c[4], NDK_CQ_NOTIFY_ANY);
	ndk_adapter_interrupt(small, 0);
	cr_expect_eq(shared_calls[4], 1);
	cr_expect_eq(shared_calls[0], 0, "called without an arm");
	ndk_arm_cq(c[0], NDK_CQ_NOTIFY_ANY);
	ndk_adapter_interrupt(small, 0);
	cr_expect_eq(shared_calls[0], 1);
	cr_expect_eq(shared_calls[4], 1, "called twice for one arm");
	ndk_close_adapter(small);
}
