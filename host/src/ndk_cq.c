// SPDX-License-Identifier: MIT
/*
 * Completion queues: creation, polling (owner-bit CQEs in host memory, never an MMIO read),
 * consumer-index doorbells, arming, and the dispatch of interrupts to notification callbacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

static uint32_t cq_db(const struct ndk_cq *cq)
{
	return NIC_REG_CQ_DB_BASE + (cq->cqn << NIC_DB_PAGE_SHIFT) + NIC_DB_CQ_CI_ARM;
}

/* one CI_ARM doorbell (arming the CQ with `type` when `arm`); the device learns the consumer
 * index from every one */
static void cq_doorbell(struct ndk_cq *cq, bool arm, unsigned type)
{
	struct ndk_adapter *adapter = cq->adapter;
	struct nic_cq_ci_arm ci_arm = {
		.consumer_index = (uint16_t)cq->ci,
		.arm = arm,
		.arm_type = (uint8_t)type,
	};
	uint32_t word;

	nic_cq_ci_arm_pack(&ci_arm, &word);
	adapter->ops->host_cost(adapter->dev, NDK_COST_DOORBELL, 1);
	ndk_to_device_barrier();
	adapter->ops->mmio_write32(adapter->dev, cq_db(cq), word);
	cq->published = cq->ci;
}

ndk_status ndk_cq_error(const struct ndk_cq *cq)
{
	uint32_t status = cq->err->status;

	ndk_from_device_barrier();
	return (ndk_status)le32toh(status);
}

/* ---------------------------------------------------------------------------------------------
 * Create / close
 */

static void msix_program(struct ndk_adapter *adapter, uint32_t vector)
{
	uint32_t entry = NIC_REG_MSIX_TABLE + sizeof(struct nic_msix_entry) * vector;
	const struct ndk_backend_ops *ops = adapter->ops;
	const struct nic_msix_control unmasked = { .mask = 0 };
	uint32_t control;

	/* the message: a write of `vector` into the interrupt window, one word per vector */
	ops->mmio_write32(adapter->dev, entry + offsetof(struct nic_msix_entry, addr_lo),
			  NIC_MSIX_WINDOW + 4 * vector);
	ops->mmio_write32(adapter->dev, entry + offsetof(struct nic_msix_entry, addr_hi), 0);
	ops->mmio_write32(adapter->dev, entry + offsetof(struct nic_msix_entry, data), vector);
	/* unmasked last, once the entry is complete */
	nic_msix_control_pack(&unmasked, &control);
	ops->mmio_write32(adapter->dev, entry + offsetof(struct nic_msix_entry, control), control);
}

ndk_status ndk_create_cq(struct ndk_adapter *adapter, uint32_t depth, ndk_cq_notification_fn fn,
			 void *context, struct ndk_cq **out)
{
	struct ndk_cq *cq;
	void *va;
	struct nic_cmd_cq_create create;
	uint32_t cqn, args[NIC_CMD_CQ_CREATE_WORDS];
	int err;

	if (!adapter || !out || depth == 0 || depth > adapter->info.max_cq_depth)
		return NDK_STATUS_INVALID_PARAMETER;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	cq->adapter = adapter;
	cq->depth = depth;
	/*
	 * The ring holds at least twice the depth asked for. The consumer publishes its consumer
	 * index lazily (every depth/2 entries polled, and with every arm) because each publish is
	 * a doorbell MMIO; the device therefore sees up to depth/2 consumed entries as still
	 * occupied, and the ring must hold them on top of `depth` outstanding completions, or it
	 * would report an overflow the consumer never caused.
	 */
	cq->log_depth = ndk_log2_ceil(2 * depth);
	cq->mask = (1u << cq->log_depth) - 1;
	cq->fn = fn;
	cq->context = context;
	/* the ring, then the error record the device writes when the CQ fails */
	cq->ring_bytes =
		((size_t)1 << cq->log_depth) * NIC_CQE_BYTES + sizeof(struct nic_cq_error_record);
	err = adapter->ops->dma_alloc(adapter->dev, cq->ring_bytes, NDK_DMA_CQ, &va,
				      &cq->ring_logical);
	if (err)
		goto out_free_cq;
	cq->ring = va;
	cq->err =
		(volatile struct nic_cq_error_record *)((char *)va + ((size_t)1 << cq->log_depth) *
									     NIC_CQE_BYTES);

	pthread_mutex_lock(&adapter->lock);
	err = ndk_bitmap_alloc(&adapter->cq_ids, &cqn);
	if (err)
		goto out_unlock;
	cq->cqn = cqn;
	cq->vector = adapter->msix_vectors ? cqn % adapter->msix_vectors : 0;
	if (adapter->msix_vectors && !(adapter->flags & NDK_ADAPTER_F_POLLING_ONLY))
		msix_program(adapter, cq->vector);
	create.base = cq->ring_logical;
	create.log_depth = (uint8_t)cq->log_depth;
	create.msix_vector = (uint16_t)cq->vector;
	nic_cmd_cq_create_pack(&create, args);
	ndk_cmd(adapter, NIC_CMD_CQ_CREATE, cqn, args, NIC_CMD_CQ_CREATE_WORDS);
	__atomic_store_n(&adapter->cqs[cqn], cq, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&adapter->lock);
	*out = cq;
	return NDK_STATUS_SUCCESS;

out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	adapter->ops->dma_free(adapter->dev, va, cq->ring_logical, cq->ring_bytes);
out_free_cq:
	free(cq);
	return ndk_status_from_errno(err);
}

/* Destroy the device object once the CQ is closed, unused and not in its callback. Caller
 * holds the lock. */
static void cq_release(struct ndk_cq *cq)
{
	struct ndk_adapter *adapter = cq->adapter;

	if (!cq->closed || cq->refs || cq->in_callback)
		return;
	ndk_cmd(adapter, NIC_CMD_CQ_DESTROY, cq->cqn, NULL, 0);
	/*
	 * A read completes only after the destroy reached the device and, by PCIe ordering,
	 * after every CQE and MSI-X write the device issued before it: the ring is free now.
	 */
	(void)adapter->ops->mmio_read32(adapter->dev, NIC_REG_CQ_STATE_BASE + 4 * cq->cqn);
	ndk_bitmap_free(&adapter->cq_ids, cq->cqn);
	adapter->ops->dma_free(adapter->dev, cq->ring, cq->ring_logical, cq->ring_bytes);
	free(cq);
}

/*
 * Closing pends until a running callback of the CQ returns (NDK's object lifetime rule), then no
 * callback runs any more. Called from another thread, it waits here; called from inside the
 * callback (waiting would never end), cq_notify finishes the close when the callback returns.
 */
void ndk_close_cq(struct ndk_cq *cq)
{
	struct ndk_adapter *adapter;

	if (!cq)
		return;
	adapter = cq->adapter;
	pthread_mutex_lock(&adapter->lock);
	if (!cq->closed) {
		__atomic_store_n(&cq->closed, true, __ATOMIC_RELEASE);
		/* out of the table: no interrupt reaches it any more */
		__atomic_store_n(&adapter->cqs[cq->cqn], NULL, __ATOMIC_RELEASE);
	}
	if (cq->in_callback && !pthread_equal(cq->callback_thread, pthread_self())) {
		cq->close_waiters++;
		while (cq->in_callback)
			pthread_cond_wait(&adapter->callback_done, &adapter->lock);
		cq->close_waiters--;
	}
	cq_release(cq);
	pthread_mutex_unlock(&adapter->lock);
}

void ndk_cq_get(struct ndk_cq *cq)
{
	cq->refs++;
}

void ndk_cq_put(struct ndk_cq *cq)
{
	cq->refs--;
	cq_release(cq);
}

/* ---------------------------------------------------------------------------------------------
 * Polling
 */

static size_t cq_poll(struct ndk_cq *cq, struct ndk_result *res, struct ndk_result_ex *rex,
		      size_t count)
{
	struct ndk_adapter *adapter = cq->adapter;
	uint32_t half = cq->depth / 2 ? cq->depth / 2 : 1;
	bool consumed = false;
	size_t n = 0;

	while (n < count) {
		struct nic_cqe *cqe = &cq->ring[cq->ci & cq->mask];
		uint8_t owner = *(volatile uint8_t *)&cqe->owner;
		struct ndk_qp *qp = NULL;
		struct ndk_wq *wq;
		uint16_t qpn, wqe_index;
		uint64_t completed, pi;
		void *ctx = NULL;

		if (!ndk_cqe_owner_valid(owner, cq->ci, cq->log_depth))
			break;
		ndk_from_device_barrier();
		qpn = le16toh(cqe->qpn);
		wqe_index = le16toh(cqe->wqe_index);
		if (qpn < adapter->num_qps)
			qp = __atomic_load_n(&adapter->qps[qpn], __ATOMIC_ACQUIRE);
		if (qp) {
			wq = (cqe->flags & NIC_CQE_FLAG_RECV_QUEUE) ? &qp->rq : &qp->sq;
			if (wq->depth) {
				/* read the slot before freeing it: the poster may reuse it at once */
				ctx = wq->ctx[wqe_index & (wq->depth - 1)];
				completed = __atomic_load_n(&wq->completed, __ATOMIC_RELAXED);
				pi = __atomic_load_n(&wq->pi, __ATOMIC_ACQUIRE);
				/* completions are in order per queue: every slot up to this one is
				 * free (silent successes before it included) */
				__atomic_store_n(&wq->completed,
						 ndk_wq_complete(completed, pi, wqe_index),
						 __ATOMIC_RELEASE);
			}
			if (res) {
				res[n].status = (ndk_status)le32toh(cqe->status);
				res[n].bytes_transferred = le32toh(cqe->bytes_transferred);
				res[n].qp_context = qp->qp_context;
				res[n].request_context = ctx;
			} else {
				rex[n].status = (ndk_status)le32toh(cqe->status);
				rex[n].bytes_transferred = le32toh(cqe->bytes_transferred);
				rex[n].qp_context = qp->qp_context;
				rex[n].request_context = ctx;
				rex[n].type = le16toh(cqe->op_type);
				rex[n].type_specific = le32toh(cqe->type_specific);
			}
			n++;
		}
		/* else: a completion of a QP closed since; it has no one to go to */
		cq->ci++;
		consumed = true;
		if ((uint16_t)(cq->ci - cq->published) >= half)
			cq_doorbell(cq, false, 0);
	}
	if (!consumed)
		adapter->ops->idle_poll(adapter->dev);
	return n;
}

size_t ndk_get_cq_results(struct ndk_cq *cq, struct ndk_result *results, size_t count)
{
	if (!cq || !results || count == 0)
		return 0;
	return cq_poll(cq, results, NULL, count);
}

size_t ndk_get_cq_results_ex(struct ndk_cq *cq, struct ndk_result_ex *results, size_t count)
{
	if (!cq || !results || count == 0)
		return 0;
	return cq_poll(cq, NULL, results, count);
}

void ndk_arm_cq(struct ndk_cq *cq, enum ndk_cq_notify_type type)
{
	if (!cq || ((unsigned)type != NDK_CQ_NOTIFY_ERRORS && (unsigned)type != NDK_CQ_NOTIFY_ANY &&
		    (unsigned)type != NDK_CQ_NOTIFY_SOLICITED))
		return;
	/* counted before the doorbell, so the interrupt it may cause finds it */
	__atomic_add_fetch(&cq->arms, 1, __ATOMIC_RELEASE);
	cq_doorbell(cq, true, type);
}

ndk_status ndk_control_cq_interrupt_moderation(struct ndk_cq *cq, uint32_t interval_us,
					       uint32_t count)
{
	struct ndk_adapter *adapter;
	int err;

	if (!cq)
		return NDK_STATUS_INVALID_PARAMETER;
	err = ndk_moderation_check(interval_us, count, cq->depth);
	if (err)
		return ndk_status_from_errno(err);
	adapter = cq->adapter;
	if (!(adapter->info.adapter_flags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED))
		return NDK_STATUS_NOT_SUPPORTED;
	/* one doorbell-page write; the CQ engine applies it from the next cycle on */
	adapter->ops->host_cost(adapter->dev, NDK_COST_DOORBELL, 1);
	adapter->ops->mmio_write32(adapter->dev,
				   NIC_REG_CQ_DB_BASE + (cq->cqn << NIC_DB_PAGE_SHIFT) +
					   NIC_DB_CQ_MODERATION,
				   ndk_moderation_word(interval_us, count, cq->depth));
	return NDK_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Notifications
 */

/* the CQ's callback, serialised and never nested; struct ndk_cq explains the arm filter */
static void cq_notify(struct ndk_cq *cq)
{
	struct ndk_adapter *adapter = cq->adapter;
	uint32_t arms = __atomic_load_n(&cq->arms, __ATOMIC_ACQUIRE);

	if ((int32_t)(arms - cq->callbacks) <= 0)
		return;
	cq->callbacks++;
	if (cq->in_callback) {
		/* the running invocation delivers it right after its callback returns */
		cq->notify_pending = true;
		return;
	}
	pthread_mutex_lock(&adapter->lock);
	cq->in_callback = true;
	cq->callback_thread = pthread_self();
	pthread_mutex_unlock(&adapter->lock);
	do {
		cq->notify_pending = false;
		if (cq->fn && !__atomic_load_n(&cq->closed, __ATOMIC_ACQUIRE))
			cq->fn(cq->context, ndk_cq_error(cq));
	} while (cq->notify_pending && !__atomic_load_n(&cq->closed, __ATOMIC_ACQUIRE));
	pthread_mutex_lock(&adapter->lock);
	cq->in_callback = false;
	pthread_cond_broadcast(&adapter->callback_done);
	/* ndk_close_cq ran inside the callback: finish it now (a waiting close finishes itself) */
	if (cq->closed && !cq->close_waiters)
		cq_release(cq);
	pthread_mutex_unlock(&adapter->lock);
}

void ndk_adapter_interrupt(struct ndk_adapter *adapter, uint32_t vector)
{
	uint32_t i;

	/* the table is read afresh for every CQ: a callback may close or create CQs */
	for (i = 0; i < adapter->num_cqs; i++) {
		struct ndk_cq *cq = __atomic_load_n(&adapter->cqs[i], __ATOMIC_ACQUIRE);

		if (cq && cq->vector == vector)
			cq_notify(cq);
	}
}
