// SPDX-License-Identifier: MIT
/*
 * Queue pairs and posting: WQEs are built in the send-queue and receive-queue rings in host
 * memory; a doorbell (an MMIO write of the newest producer index) tells the device, unless
 * NDK_OP_FLAG_DEFER holds a send-queue doorbell back for a chain. No lock on this path: the
 * consumer serialises posts per queue (the two queues of a QP may be posted from two threads:
 * they share nothing the posts write).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

/* ---------------------------------------------------------------------------------------------
 * Create / close
 */

static int qp_check_attr(const struct ndk_adapter *adapter, const struct ndk_qp_attr *attr)
{
	const struct ndk_adapter_info *info = &adapter->info;

	if (!attr->initiator_cq || !attr->receive_cq || attr->initiator_cq->adapter != adapter ||
	    attr->receive_cq->adapter != adapter || attr->initiator_cq->closed ||
	    attr->receive_cq->closed)
		return -EINVAL;
	if (attr->initiator_queue_depth == 0 ||
	    attr->initiator_queue_depth > info->max_initiator_queue_depth ||
	    attr->receive_queue_depth > info->max_receive_queue_depth ||
	    attr->max_initiator_request_sge > info->max_initiator_request_sge ||
	    attr->max_receive_request_sge > info->max_receive_request_sge ||
	    attr->inline_data_size > info->max_inline_data_size)
		return -EINVAL;
	return 0;
}

static int wq_alloc(struct ndk_adapter *adapter, struct ndk_wq *wq, uint32_t depth,
		    enum ndk_dma_kind kind)
{
	void *va;
	int err;

	memset(wq, 0, sizeof(*wq));
	if (depth == 0)
		return 0;
	wq->log_depth = ndk_log2_ceil(depth);
	wq->depth = 1u << wq->log_depth;
	/* whole pages, so the ring is 4 KiB aligned and the device's bursts never cross into
	 * memory that is not the ring */
	wq->ring_bytes = ((size_t)wq->depth * NIC_WQE_BYTES + NDK_PAGE_SIZE - 1) &
			 ~(size_t)(NDK_PAGE_SIZE - 1);
	wq->ctx = calloc(wq->depth, sizeof(*wq->ctx));
	if (!wq->ctx)
		return -ENOMEM;
	err = adapter->ops->dma_alloc(adapter->dev, wq->ring_bytes, kind, &va, &wq->ring_logical);
	if (err) {
		free(wq->ctx);
		wq->ctx = NULL;
		return err;
	}
	wq->ring = va;
	return 0;
}

static void wq_free(struct ndk_adapter *adapter, struct ndk_wq *wq)
{
	if (wq->ring)
		adapter->ops->dma_free(adapter->dev, wq->ring, wq->ring_logical, wq->ring_bytes);
	free(wq->ctx);
	memset(wq, 0, sizeof(*wq));
}

ndk_status ndk_create_qp(struct ndk_pd *pd, const struct ndk_qp_attr *attr, struct ndk_qp **out)
{
	struct ndk_adapter *adapter;
	struct ndk_qp *qp;
	struct nic_cmd_qp_create create;
	uint32_t qpn, args[NIC_CMD_QP_CREATE_WORDS];
	int err;

	if (!pd || !attr || !out)
		return NDK_STATUS_INVALID_PARAMETER;
	adapter = pd->adapter;
	err = qp_check_attr(adapter, attr);
	if (err)
		return ndk_status_from_errno(err);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	qp->adapter = adapter;
	qp->pd = pd;
	qp->icq = attr->initiator_cq;
	qp->rcq = attr->receive_cq;
	qp->qp_context = attr->qp_context;
	qp->inline_size = attr->inline_data_size;
	qp->blueflame = ndk_blueflame_wanted() && adapter->sq_bf_bytes >= NIC_WQE_BYTES;
	err = wq_alloc(adapter, &qp->sq, attr->initiator_queue_depth, NDK_DMA_SQ);
	if (err)
		goto out_free_qp;
	err = wq_alloc(adapter, &qp->rq, attr->receive_queue_depth, NDK_DMA_RQ);
	if (err)
		goto out_free_sq;

	pthread_mutex_lock(&adapter->lock);
	/* re-checked under the lock: they may have been closed meanwhile */
	if (pd->closed || qp->icq->closed || qp->rcq->closed) {
		err = -EINVAL;
		goto out_unlock;
	}
	err = ndk_bitmap_alloc(&adapter->qp_ids, &qpn);
	if (err)
		goto out_unlock;
	qp->qpn = qpn;
	qp->db = NIC_REG_QP_DB_BASE + (qpn << NIC_DB_PAGE_SHIFT);
	ndk_pd_get(pd);
	ndk_cq_get(qp->icq);
	ndk_cq_get(qp->rcq);
	create.sq_base = qp->sq.ring_logical;
	create.pd = (uint16_t)pd->pdn;
	create.sq_cqn = (uint8_t)qp->icq->cqn;
	create.rq_cqn = (uint8_t)qp->rcq->cqn;
	create.sq_log_depth = (uint8_t)qp->sq.log_depth;
	create.rq_log_depth = (uint8_t)qp->rq.log_depth;
	/* A QP without a receive queue still has a receive ring in the device's eyes (QP_CREATE
	 * cannot say "none": rq_log_depth 0 is a ring of one WQE). It is given the first WQE of
	 * the send ring, memory of this QP, so an RQ doorbell that no driver writes (the doorbell
	 * page may be mapped into an unprivileged process) makes the device read that WQE and
	 * judge it like any receive WQE, never DMA from address 0, which nobody gave it (found by
	 * the fuzzer, tests/fuzz/). Receives are still refused inline (rq.depth is 0). */
	create.rq_base = qp->rq.depth ? qp->rq.ring_logical : qp->sq.ring_logical;
	nic_cmd_qp_create_pack(&create, args);
	ndk_cmd(adapter, NIC_CMD_QP_CREATE, qpn, args, NIC_CMD_QP_CREATE_WORDS);
	__atomic_store_n(&adapter->qps[qpn], qp, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&adapter->lock);
	*out = qp;
	return NDK_STATUS_SUCCESS;

out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	wq_free(adapter, &qp->rq);
out_free_sq:
	wq_free(adapter, &qp->sq);
out_free_qp:
	free(qp);
	return ndk_status_from_errno(err);
}

void ndk_close_qp(struct ndk_qp *qp)
{
	struct ndk_adapter *adapter;

	if (!qp)
		return;
	adapter = qp->adapter;
	pthread_mutex_lock(&adapter->lock);
	ndk_cmd(adapter, NIC_CMD_QP_DESTROY, qp->qpn, NULL, 0);
	/*
	 * The read returns once the destroy took effect and, by PCIe ordering, after the writes
	 * (CQEs) the device issued before it; from then on the device does not touch the rings.
	 */
	(void)adapter->ops->mmio_read32(adapter->dev, NIC_REG_QP_STATE_BASE + 4 * qp->qpn);
	__atomic_store_n(&adapter->qps[qp->qpn], NULL, __ATOMIC_RELEASE);
	ndk_bitmap_free(&adapter->qp_ids, qp->qpn);
	ndk_mr_forget_qp(adapter, qp);
	ndk_cq_put(qp->icq);
	ndk_cq_put(qp->rcq);
	ndk_pd_put(qp->pd);
	pthread_mutex_unlock(&adapter->lock);
	wq_free(adapter, &qp->rq);
	wq_free(adapter, &qp->sq);
	free(qp);
}

ndk_status ndk_get_qp_address(struct ndk_qp *qp, struct ndk_qp_address *address)
{
	struct ndk_adapter *adapter;

	if (!qp || !address)
		return NDK_STATUS_INVALID_PARAMETER;
	adapter = qp->adapter;
	memset(address, 0, sizeof(*address));
	/* on the wire a QP is NIC_QPN_BASE + its index (QP 0 and 1 are InfiniBand's management QPs) */
	address->qp_number = NIC_QPN_BASE + qp->qpn;
	/* without the transport the NIC has no network address */
	if (!adapter->transport)
		return NDK_STATUS_NOT_SUPPORTED;
	memcpy(address->mac, adapter->mac, sizeof(address->mac));
	address->ipv4 = adapter->ipv4;
	return NDK_STATUS_SUCCESS;
}

static int qp_connect(struct ndk_qp *qp, const struct ndk_qp_address *peer,
		      const struct ndk_connect_attr *attr)
{
	struct ndk_adapter *adapter = qp->adapter;
	const uint8_t *mac = peer->mac;
	struct nic_cmd_qp_connect connect;
	uint32_t args[NIC_CMD_QP_CONNECT_WORDS], state;
	unsigned i;
	int err = 0;

	pthread_mutex_lock(&adapter->lock);
	if (qp->connected) {
		err = -EBUSY;
		goto out_unlock;
	}
	connect.peer_mac = 0;
	for (i = 0; i < 6; i++) /* mac[0] = MAC[47:40], the first byte on the wire */
		connect.peer_mac = connect.peer_mac << 8 | mac[i];
	connect.peer_ipv4 = peer->ipv4;
	connect.peer_qpn = peer->qp_number;
	connect.sq_psn = attr->local_psn;
	connect.rq_psn = attr->remote_psn;
	connect.log_mtu = (uint8_t)adapter->log_mtu;
	connect.outbound_read_limit = (uint8_t)attr->outbound_read_limit;
	connect.inbound_read_limit = (uint8_t)attr->inbound_read_limit;
	connect.ack_timeout = attr->ack_timeout;
	connect.retry_count = attr->retry_count;
	connect.rnr_retry = attr->rnr_retry;
	nic_cmd_qp_connect_pack(&connect, args);
	ndk_cmd(adapter, NIC_CMD_QP_CONNECT, qp->qpn, args, NIC_CMD_QP_CONNECT_WORDS);
	/*
	 * The device connects only a READY QP (one in error, after a flush or an error completion,
	 * ignores the command). The read returns once the command took effect.
	 */
	state = adapter->ops->mmio_read32(adapter->dev, NIC_REG_QP_STATE_BASE + 4 * qp->qpn);
	if (state != NIC_QP_STATE_RTS) {
		err = -EBADFD;
		goto out_unlock;
	}
	qp->outbound_read_limit = attr->outbound_read_limit;
	__atomic_store_n(&qp->connected, true, __ATOMIC_RELEASE);
out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	return err;
}

void ndk_connect_attr_default(struct ndk_connect_attr *attr)
{
	if (!attr)
		return;
	memset(attr, 0, sizeof(*attr));
	attr->ack_timeout = 14;
	attr->retry_count = 7;
	attr->rnr_retry = 7;
}

ndk_status ndk_connect_qp_ex(struct ndk_qp *qp, const struct ndk_qp_address *peer,
			     const struct ndk_connect_attr *attr)
{
	const struct ndk_adapter_info *info;

	if (!qp || !peer || !attr)
		return NDK_STATUS_INVALID_PARAMETER;
	info = &qp->adapter->info;
	/* QP numbers and PSNs are 24 bits on the wire */
	if (attr->inbound_read_limit > info->max_inbound_read_limit ||
	    attr->outbound_read_limit > info->max_outbound_read_limit || peer->qp_number >> 24 ||
	    attr->local_psn >> 24 || attr->remote_psn >> 24 || attr->ack_timeout > 31 ||
	    attr->retry_count > 7 || attr->rnr_retry > 7)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!qp->adapter->transport)
		return NDK_STATUS_NOT_SUPPORTED;
	return ndk_status_from_errno(qp_connect(qp, peer, attr));
}

ndk_status ndk_connect_qp(struct ndk_qp *qp, const struct ndk_qp_address *peer,
			  uint32_t inbound_read_limit, uint32_t outbound_read_limit)
{
	struct ndk_connect_attr attr;

	ndk_connect_attr_default(&attr);
	attr.inbound_read_limit = inbound_read_limit;
	attr.outbound_read_limit = outbound_read_limit;
	return ndk_connect_qp_ex(qp, peer, &attr);
}

/* ---------------------------------------------------------------------------------------------
 * Send-queue doorbells
 */

/*
 * BlueFlame (docs/blueflame.md), as mlx5 does for a single small WQE: the WQE the doorbell
 * adds is also written through the doorbell page (a write-combined 64-byte burst on hardware),
 * so the device need not fetch it. It stays in the ring too: the device falls back to the
 * fetch whenever the copy does not qualify. The CPU cost is the doorbell's (charged by
 * sq_ring): a WQE of at most 64 bytes written by MMIO is one MMIO with its barrier, like the
 * doorbell it comes with (Kalia et al. count N x ceil(D / 64) MMIOs for WQE-by-MMIO).
 */
static void sq_write_blueflame(struct ndk_qp *qp, uint64_t index)
{
	struct ndk_adapter *adapter = qp->adapter;
	const uint32_t *wqe = (const uint32_t *)((const char *)qp->sq.ring +
						 (index & (qp->sq.depth - 1)) * NIC_WQE_BYTES);

	for (unsigned w = 0; w < NIC_WQE_BYTES / 4; w++)
		adapter->ops->mmio_write32(adapter->dev, qp->db + NIC_DB_SQ_BF + 4 * w,
					   le32toh(wqe[w]));
}

/* A producer-index doorbell word (SQ_PI, RQ_PI): the index modulo 2^16 */
static uint32_t db_pi_word(uint64_t pi)
{
	struct nic_qp_db_pi db = { .producer_index = (uint16_t)pi };
	uint32_t word;

	nic_qp_db_pi_pack(&db, &word);
	return word;
}

/* Tell the device about every WQE written so far (nothing if it knows them all). */
static void sq_ring(struct ndk_qp *qp)
{
	struct ndk_adapter *adapter = qp->adapter;
	uint64_t pi = qp->sq.pi;

	if (pi == qp->sq.rung)
		return;
	adapter->ops->host_cost(adapter->dev, NDK_COST_DOORBELL, 1);
	ndk_to_device_barrier();
	if (qp->blueflame && pi - qp->sq.rung == 1)
		sq_write_blueflame(qp, pi - 1);
	adapter->ops->mmio_write32(adapter->dev, qp->db + NIC_DB_SQ_PI, db_pi_word(pi));
	qp->sq.rung = pi;
}

/*
 * Every inline failure goes through here: the requests deferred before it are indicated to
 * the device first (NDKPI deferred processing rule), then the failure is returned. The failed
 * request itself never reached the ring.
 */
static ndk_status sq_fail(struct ndk_qp *qp, int err)
{
	sq_ring(qp);
	return ndk_status_from_errno(err);
}

/* the checks every initiator post makes after its own: CQ state, then room in the ring */
static int sq_check_room(struct ndk_qp *qp)
{
	if (ndk_cq_error(qp->icq))
		return -EBADFD;
	if (ndk_wq_full(qp->sq.pi, __atomic_load_n(&qp->sq.completed, __ATOMIC_ACQUIRE),
			qp->sq.depth))
		return -ENOSPC;
	return 0;
}

/* the ring slot of the next WQE, zeroed, with its header; charges the CPU's work */
static void *sq_wqe_begin(struct ndk_qp *qp, uint8_t opcode, uint32_t flags)
{
	struct ndk_adapter *adapter = qp->adapter;
	struct nic_wqe_hdr *hdr;

	adapter->ops->host_cost(adapter->dev, NDK_COST_WQE, 1);
	hdr = (struct nic_wqe_hdr *)((char *)qp->sq.ring +
				     (qp->sq.pi & (qp->sq.depth - 1)) * NIC_WQE_BYTES);
	memset(hdr, 0, sizeof(*hdr));
	hdr->opcode = opcode;
	hdr->nsge = 0;
	hdr->flags = htole16((uint16_t)(flags & NDK_FLAGS_TO_WQE));
	/* the device checks it, so a stale slot is never executed as a new request */
	hdr->index = htole16((uint16_t)qp->sq.pi);
	return hdr;
}

/* the WQE is complete: publish it, and ring unless deferred (or too much is deferred) */
static void sq_wqe_commit(struct ndk_qp *qp, void *request_context, uint32_t flags)
{
	struct ndk_wq *sq = &qp->sq;

	sq->ctx[sq->pi & (sq->depth - 1)] = request_context;
	__atomic_store_n(&sq->pi, sq->pi + 1, __ATOMIC_RELEASE);
	if (!(flags & NDK_OP_FLAG_DEFER) || sq->pi - sq->rung >= ndk_defer_limit(sq->depth))
		sq_ring(qp);
}

/* ---------------------------------------------------------------------------------------------
 * Memory requests
 */

ndk_status ndk_fast_register(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr,
			     uint32_t adapter_page_count, const uint64_t *adapter_page_array,
			     uint32_t first_byte_offset, uint64_t length,
			     uint64_t base_virtual_address, uint32_t flags)
{
	struct nic_wqe_fast_reg *wqe;
	struct ndk_page_list *pl;
	uint64_t *list;
	uint32_t i;
	uint8_t key;
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = ndk_check_flags(flags, NDK_FLAGS_FAST_REG);
	if (err)
		return sq_fail(qp, err);
	if (!mr || mr->adapter != qp->adapter || mr->max_pages == 0 || adapter_page_count == 0 ||
	    adapter_page_count > mr->max_pages || !adapter_page_array ||
	    first_byte_offset >= NDK_PAGE_SIZE || length == 0 ||
	    length > (uint64_t)adapter_page_count * NDK_PAGE_SIZE - first_byte_offset ||
	    (base_virtual_address & (NDK_PAGE_SIZE - 1)) != first_byte_offset)
		return sq_fail(qp, -EINVAL);
	for (i = 0; i < adapter_page_count; i++)
		if (adapter_page_array[i] & (NDK_PAGE_SIZE - 1))
			return sq_fail(qp, -EINVAL);
	if ((flags & NDK_FLAGS_REMOTE_ACCESS) && !mr->remote_access)
		return sq_fail(qp, -EACCES);
	err = sq_check_room(qp);
	if (err)
		return sq_fail(qp, err);
	/* a page-list buffer the device is done with (or a new one) */
	err = ndk_mr_page_list(mr, &pl);
	if (err)
		return sq_fail(qp, err);

	list = pl->va;
	for (i = 0; i < adapter_page_count; i++)
		list[i] = htole64(adapter_page_array[i]);
	key = (uint8_t)(mr->key + 1);
	wqe = sq_wqe_begin(qp, NIC_WQE_OP_FAST_REG, flags);
	wqe->mr_token = htole32(ndk_token(mr->index, key));
	wqe->page_count = htole32(adapter_page_count);
	wqe->page_list_addr = htole64(pl->logical);
	wqe->length = htole64(length);
	wqe->base_va = htole64(base_virtual_address);
	wqe->fbo = htole32(first_byte_offset);
	mr->key = key;
	pl->qp = qp;
	pl->index = qp->sq.pi;
	sq_wqe_commit(qp, request_context, flags);
	return NDK_STATUS_SUCCESS;
}

ndk_status ndk_bind(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr, struct ndk_mw *mw,
		    uint64_t virtual_address, uint64_t length, uint32_t flags)
{
	struct nic_wqe_bind *wqe;
	uint8_t key;
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = ndk_check_flags(flags, NDK_FLAGS_BIND);
	/* LOCAL_WRITE alone is no window right (it is only part of REMOTE_WRITE) */
	if (!err && (flags & NDK_OP_FLAG_ALLOW_REMOTE_WRITE) == NDK_OP_FLAG_ALLOW_LOCAL_WRITE)
		err = -EINVAL;
	if (err)
		return sq_fail(qp, err);
	if (!mr || !mw || mr->adapter != qp->adapter || mw->adapter != qp->adapter || length == 0)
		return sq_fail(qp, -EINVAL);
	err = sq_check_room(qp);
	if (err)
		return sq_fail(qp, err);

	key = (uint8_t)(mw->key + 1);
	wqe = sq_wqe_begin(qp, NIC_WQE_OP_BIND, flags);
	wqe->mr_token = htole32(ndk_token(mr->index, mr->key));
	wqe->mw_token = htole32(ndk_token(mw->index, key));
	wqe->va = htole64(virtual_address);
	wqe->length = htole64(length);
	mw->key = key;
	sq_wqe_commit(qp, request_context, flags);
	return NDK_STATUS_SUCCESS;
}

static ndk_status post_invalidate(struct ndk_qp *qp, void *request_context, uint32_t token,
				  uint32_t flags)
{
	struct nic_wqe_invalidate *wqe;
	int err;

	err = sq_check_room(qp);
	if (err)
		return sq_fail(qp, err);
	wqe = sq_wqe_begin(qp, NIC_WQE_OP_INVALIDATE, flags);
	wqe->token = htole32(token);
	sq_wqe_commit(qp, request_context, flags);
	return NDK_STATUS_SUCCESS;
}

ndk_status ndk_invalidate_mr(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr,
			     uint32_t flags)
{
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = ndk_check_flags(flags, NDK_FLAGS_INVALIDATE);
	if (err)
		return sq_fail(qp, err);
	/* only fast-register MRs can be invalidated, and only initialised ones were ever valid */
	if (!mr || mr->adapter != qp->adapter || mr->max_pages == 0)
		return sq_fail(qp, -EINVAL);
	return post_invalidate(qp, request_context, ndk_token(mr->index, mr->key), flags);
}

ndk_status ndk_invalidate_mw(struct ndk_qp *qp, void *request_context, struct ndk_mw *mw,
			     uint32_t flags)
{
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = ndk_check_flags(flags, NDK_FLAGS_INVALIDATE);
	if (err)
		return sq_fail(qp, err);
	if (!mw || mw->adapter != qp->adapter)
		return sq_fail(qp, -EINVAL);
	return post_invalidate(qp, request_context, ndk_token(mw->index, mw->key), flags);
}

/* ---------------------------------------------------------------------------------------------
 * Transport requests
 */

/*
 * The SGE list of a request: -EINVAL (no list for nsge > 0; INLINE data at a NULL address),
 * -E2BIG (more SGEs than the WQE holds; INLINE data is bounded by bytes, not by SGE count),
 * -EINVAL (INLINE bytes over the QP's inline_data_size), -EOVERFLOW (a message longer than
 * max_transfer_length). *length is the message length.
 */
static int check_sgl(const struct ndk_qp *qp, const struct ndk_sge *sgl, uint32_t nsge,
		     uint32_t flags, uint32_t max_sge, uint64_t *length)
{
	uint64_t bytes = 0;
	uint32_t i;

	if (nsge && !sgl)
		return -EINVAL;
	if (flags & NDK_OP_FLAG_INLINE) {
		for (i = 0; i < nsge; i++) {
			/* the data is copied from the CPU's address space */
			if (sgl[i].length && !sgl[i].address)
				return -EINVAL;
			bytes += sgl[i].length;
			if (bytes > qp->inline_size)
				return -EINVAL;
		}
	} else {
		if (nsge > max_sge)
			return -E2BIG;
		for (i = 0; i < nsge; i++)
			bytes += sgl[i].length;
	}
	if (bytes > qp->adapter->info.max_transfer_length)
		return -EOVERFLOW;
	*length = bytes;
	return 0;
}

/*
 * Everything an initiator transport request checks, in the order of ndk.h: its flags and SGE
 * list, then the transport, the connection, and room in the ring.
 */
static int xport_check(struct ndk_qp *qp, uint8_t opcode, const struct ndk_sge *sgl, uint32_t nsge,
		       uint32_t flags, uint32_t allowed, uint32_t max_sge, uint64_t *length)
{
	int err;

	err = ndk_check_flags(flags, allowed);
	if (err)
		return err;
	err = check_sgl(qp, sgl, nsge, flags, max_sge, length);
	if (err)
		return err;
	if (!qp->adapter->transport)
		return -EOPNOTSUPP;
	/* the parts of the transport the device may lack (CAP_TRANSPORT) */
	if ((opcode == NIC_WQE_OP_READ && !qp->adapter->transport_read) ||
	    (opcode == NIC_WQE_OP_SEND_INV && !qp->adapter->transport_send_inv))
		return -EOPNOTSUPP;
	/* invalidating the sink's token when the Read completes is not built: refused, not
	 * ignored (the adapter does not set RDMA_READ_LOCAL_INVALIDATE_SUPPORTED) */
	if ((flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE) &&
	    !(qp->adapter->info.adapter_flags &
	      NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED))
		return -EOPNOTSUPP;
	if (!__atomic_load_n(&qp->connected, __ATOMIC_ACQUIRE))
		return -ENOTCONN;
	/* a connection made with outbound_read_limit 0 promised no Reads: one would never start */
	if (opcode == NIC_WQE_OP_READ && !qp->outbound_read_limit)
		return -EBADFD;
	return sq_check_room(qp);
}

/* the SGE fields (or inline data) of a WQE: `offset` bytes into its slot */
static void *wqe_at(void *wqe, size_t offset)
{
	return (char *)wqe + offset;
}

/* SGEs into a WQE's SGE fields (the layout of ndk_sge, little-endian) */
static void put_sges(struct nic_sge *dst, const struct ndk_sge *sgl, uint32_t nsge)
{
	uint32_t i;

	for (i = 0; i < nsge; i++) {
		dst[i].address = htole64(sgl[i].address);
		dst[i].length = htole32(sgl[i].length);
		dst[i].token = htole32(sgl[i].token);
	}
}

/* INLINE: the SGEs' bytes, back to back, copied now (the caller may reuse them on return) */
static void put_inline(void *dst, const struct ndk_sge *sgl, uint32_t nsge)
{
	char *p = dst;
	uint32_t i;

	for (i = 0; i < nsge; i++) {
		if (!sgl[i].length)
			continue;
		memcpy(p, (const void *)(uintptr_t)sgl[i].address, sgl[i].length);
		p += sgl[i].length;
	}
}

/* Send (inv_token 0) and SendAndInvalidate */
static ndk_status post_send(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
			    uint32_t nsge, uint32_t flags, uint8_t opcode, uint32_t inv_token)
{
	struct nic_wqe_send *wqe;
	uint64_t length;
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = xport_check(qp, opcode, sgl, nsge, flags, NDK_FLAGS_SEND, NDK_SEND_MAX_SGE, &length);
	if (err)
		return sq_fail(qp, err);

	wqe = sq_wqe_begin(qp, opcode, flags);
	wqe->inv_token = htole32(inv_token);
	wqe->length = htole32((uint32_t)length);
	if (flags & NDK_OP_FLAG_INLINE) {
		put_inline(wqe_at(wqe, offsetof(struct nic_wqe_send, sge0)), sgl, nsge);
	} else {
		wqe->nsge = (uint8_t)nsge;
		put_sges(wqe_at(wqe, offsetof(struct nic_wqe_send, sge0)), sgl, nsge);
	}
	sq_wqe_commit(qp, request_context, flags);
	return NDK_STATUS_SUCCESS;
}

/* Write and Read */
static ndk_status post_rdma(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
			    uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
			    uint32_t flags, uint8_t opcode, uint32_t allowed)
{
	struct nic_wqe_rdma *wqe;
	uint64_t length;
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = xport_check(qp, opcode, sgl, nsge, flags, allowed, NDK_RDMA_MAX_SGE, &length);
	if (err)
		return sq_fail(qp, err);

	wqe = sq_wqe_begin(qp, opcode, flags);
	wqe->remote_token = htole32(remote_token);
	wqe->length = htole32((uint32_t)length);
	wqe->remote_va = htole64(remote_address);
	if (flags & NDK_OP_FLAG_INLINE) {
		put_inline(wqe_at(wqe, offsetof(struct nic_wqe_rdma, sge0)), sgl, nsge);
	} else {
		wqe->nsge = (uint8_t)nsge;
		put_sges(wqe_at(wqe, offsetof(struct nic_wqe_rdma, sge0)), sgl, nsge);
	}
	sq_wqe_commit(qp, request_context, flags);
	return NDK_STATUS_SUCCESS;
}

ndk_status ndk_send(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		    uint32_t nsge, uint32_t flags)
{
	return post_send(qp, request_context, sgl, nsge, flags, NIC_WQE_OP_SEND, 0);
}

ndk_status ndk_send_and_invalidate(struct ndk_qp *qp, void *request_context,
				   const struct ndk_sge *sgl, uint32_t nsge, uint32_t flags,
				   uint32_t remote_token)
{
	return post_send(qp, request_context, sgl, nsge, flags, NIC_WQE_OP_SEND_INV, remote_token);
}

ndk_status ndk_write(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		     uint32_t nsge, uint64_t remote_address, uint32_t remote_token, uint32_t flags)
{
	return post_rdma(qp, request_context, sgl, nsge, remote_address, remote_token, flags,
			 NIC_WQE_OP_WRITE, NDK_FLAGS_WRITE);
}

ndk_status ndk_read(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		    uint32_t nsge, uint64_t remote_address, uint32_t remote_token, uint32_t flags)
{
	/* a read's SGEs are its sink: INLINE is not among its flags, the check refuses it */
	return post_rdma(qp, request_context, sgl, nsge, remote_address, remote_token, flags,
			 NIC_WQE_OP_READ, NDK_FLAGS_READ);
}

/* ---------------------------------------------------------------------------------------------
 * Receives: never deferred, so every post rings the RQ doorbell and a failure has nothing to
 * indicate first
 */

static void rq_ring(struct ndk_qp *qp)
{
	struct ndk_adapter *adapter = qp->adapter;
	uint64_t pi = qp->rq.pi;

	adapter->ops->host_cost(adapter->dev, NDK_COST_DOORBELL, 1);
	ndk_to_device_barrier();
	adapter->ops->mmio_write32(adapter->dev, qp->db + NIC_DB_RQ_PI, db_pi_word(pi));
	qp->rq.rung = pi;
}

static int rq_check(struct ndk_qp *qp, const struct ndk_sge *sgl, uint32_t nsge, uint64_t *length)
{
	int err;

	err = check_sgl(qp, sgl, nsge, 0, NDK_RECV_MAX_SGE, length);
	if (err)
		return err;
	if (!qp->adapter->transport)
		return -EOPNOTSUPP;
	if (ndk_cq_error(qp->rcq))
		return -EBADFD;
	/* a QP created with receive_queue_depth 0 has a queue that is always full */
	if (ndk_wq_full(qp->rq.pi, __atomic_load_n(&qp->rq.completed, __ATOMIC_ACQUIRE),
			qp->rq.depth))
		return -ENOSPC;
	return 0;
}

ndk_status ndk_receive(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		       uint32_t nsge)
{
	struct ndk_adapter *adapter;
	struct ndk_wq *rq;
	struct nic_wqe_recv *wqe;
	uint64_t length;
	int err;

	if (!qp)
		return NDK_STATUS_INVALID_PARAMETER;
	err = rq_check(qp, sgl, nsge, &length);
	if (err)
		return ndk_status_from_errno(err);

	adapter = qp->adapter;
	rq = &qp->rq;
	adapter->ops->host_cost(adapter->dev, NDK_COST_WQE, 1);
	wqe = (struct nic_wqe_recv *)((char *)rq->ring +
				      (rq->pi & (rq->depth - 1)) * NIC_WQE_BYTES);
	memset(wqe, 0, sizeof(*wqe));
	wqe->opcode = NIC_WQE_OP_RECV;
	wqe->nsge = (uint8_t)nsge;
	wqe->flags = 0;
	/* the device checks it, as on the send queue */
	wqe->index = htole16((uint16_t)rq->pi);
	wqe->length = htole32((uint32_t)length);
	put_sges(wqe_at(wqe, offsetof(struct nic_wqe_recv, sge0)), sgl, nsge);
	rq->ctx[rq->pi & (rq->depth - 1)] = request_context;
	__atomic_store_n(&rq->pi, rq->pi + 1, __ATOMIC_RELEASE);
	rq_ring(qp);
	return NDK_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Flush
 */

void ndk_flush(struct ndk_qp *qp)
{
	struct ndk_adapter *adapter;

	if (!qp)
		return;
	adapter = qp->adapter;
	/*
	 * Deferred requests were posted successfully: the device must know them to cancel them.
	 * (NDK lets a flush race a post of the same queue; this doorbell is then not ordered with
	 * the poster's. The usual flush comes after the posts, at teardown or on an error.)
	 */
	sq_ring(qp);
	pthread_mutex_lock(&adapter->lock);
	ndk_cmd(adapter, NIC_CMD_QP_FLUSH, qp->qpn, NULL, 0);
	pthread_mutex_unlock(&adapter->lock);
}
