// SPDX-License-Identifier: MIT
/*
 * Memory regions (fast-register MRs) and memory windows: table indices, MTT ranges, page-list
 * buffers and the MR_INIT / MR_FREE commands. The registrations themselves are requests
 * (ndk_fast_register, ndk_bind, ndk_invalidate_*: ndk_qp.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

/* an MR/MW table index, held by `pd`; caller holds the lock */
static int index_alloc(struct ndk_pd *pd, uint32_t *index)
{
	int err;

	if (pd->closed)
		return -EINVAL;
	err = ndk_bitmap_alloc(&pd->adapter->mr_ids, index);
	if (err)
		return err;
	ndk_pd_get(pd);
	return 0;
}

/* caller holds the lock */
static void index_free(struct ndk_pd *pd, uint32_t index)
{
	struct ndk_adapter *adapter = pd->adapter;

	ndk_cmd(adapter, NIC_CMD_MR_FREE, index, NULL, 0);
	ndk_bitmap_free(&adapter->mr_ids, index);
	ndk_pd_put(pd);
}

ndk_status ndk_create_mr(struct ndk_pd *pd, struct ndk_mr **out)
{
	struct ndk_adapter *adapter;
	struct ndk_mr *mr;
	int err;

	if (!pd || !out)
		return NDK_STATUS_INVALID_PARAMETER;
	adapter = pd->adapter;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	mr->adapter = adapter;
	mr->pd = pd;
	pthread_mutex_lock(&adapter->lock);
	err = index_alloc(pd, &mr->index);
	if (err)
		goto out_unlock;
	adapter->mrs[mr->index] = mr;
	pthread_mutex_unlock(&adapter->lock);
	*out = mr;
	return NDK_STATUS_SUCCESS;

out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	free(mr);
	return ndk_status_from_errno(err);
}

/* a new page-list buffer, at the head of the MR's list */
static int page_list_add(struct ndk_mr *mr, struct ndk_page_list **out)
{
	struct ndk_adapter *adapter = mr->adapter;
	struct ndk_page_list *pl;
	int err;

	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	err = adapter->ops->dma_alloc(adapter->dev, mr->page_list_bytes, NDK_DMA_DATA, &pl->va,
				      &pl->logical);
	if (err) {
		free(pl);
		return err;
	}
	pl->bytes = mr->page_list_bytes;
	pl->next = mr->page_lists;
	mr->page_lists = pl;
	*out = pl;
	return 0;
}

static void page_list_free(struct ndk_adapter *adapter, struct ndk_page_list *pl)
{
	adapter->ops->dma_free(adapter->dev, pl->va, pl->logical, pl->bytes);
	free(pl);
}

/* Could the device still read this buffer (its registration's WQE not yet completed)? */
static bool page_list_busy(const struct ndk_page_list *pl)
{
	if (!pl->qp)
		return false;
	return __atomic_load_n(&pl->qp->sq.completed, __ATOMIC_ACQUIRE) <= pl->index;
}

/*
 * Free the orphaned page lists no registration can read any more: those whose FastRegister has
 * completed, and (qp not NULL) those of a QP being destroyed. With the adapter's lock held.
 */
static void orphan_page_lists_reap(struct ndk_adapter *adapter, const struct ndk_qp *qp)
{
	struct ndk_page_list **p = &adapter->orphan_page_lists, *pl;

	while ((pl = *p)) {
		if ((qp && pl->qp == qp) || !page_list_busy(pl)) {
			*p = pl->next;
			page_list_free(adapter, pl);
		} else {
			p = &pl->next;
		}
	}
}

int ndk_mr_page_list(struct ndk_mr *mr, struct ndk_page_list **out)
{
	struct ndk_page_list *pl;

	for (pl = mr->page_lists; pl; pl = pl->next) {
		if (!page_list_busy(pl)) {
			*out = pl;
			return 0;
		}
	}
	return page_list_add(mr, out);
}

ndk_status ndk_initialize_fast_register_mr(struct ndk_mr *mr, uint32_t adapter_page_count,
					   bool remote_access)
{
	struct ndk_adapter *adapter;
	struct ndk_page_list *pl;
	struct nic_cmd_mr_init init;
	uint32_t mtt_offset, args[NIC_CMD_MR_INIT_WORDS];
	int err;

	if (!mr || adapter_page_count == 0 || adapter_page_count > mr->adapter->mtt_entries)
		return NDK_STATUS_INVALID_PARAMETER;
	adapter = mr->adapter;
	if (mr->max_pages)
		return NDK_STATUS_INVALID_DEVICE_STATE;
	/* the first page-list buffer now, so most MRs never allocate while posting */
	mr->page_list_bytes = ((size_t)adapter_page_count * 8 + 63) & ~(size_t)63;
	err = page_list_add(mr, &pl);
	if (err)
		return ndk_status_from_errno(err);

	pthread_mutex_lock(&adapter->lock);
	err = ndk_range_alloc(&adapter->mtt, adapter_page_count, &mtt_offset);
	if (err)
		goto out_unlock;
	mr->mtt_offset = mtt_offset;
	mr->remote_access = remote_access;
	mr->max_pages = adapter_page_count;
	init.pd = (uint16_t)mr->pd->pdn;
	init.max_pages = adapter_page_count;
	init.mtt_offset = mtt_offset;
	init.remote_access_ok = remote_access;
	init.is_mw = 0;
	nic_cmd_mr_init_pack(&init, args);
	ndk_cmd(adapter, NIC_CMD_MR_INIT, mr->index, args, NIC_CMD_MR_INIT_WORDS);
	pthread_mutex_unlock(&adapter->lock);
	return NDK_STATUS_SUCCESS;

out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	mr->page_lists = NULL; /* the one just added: no registration has used it */
	page_list_free(adapter, pl);
	return ndk_status_from_errno(err);
}

uint32_t ndk_get_local_token_from_mr(struct ndk_mr *mr)
{
	return mr ? ndk_token(mr->index, mr->key) : 0;
}

uint32_t ndk_get_remote_token_from_mr(struct ndk_mr *mr)
{
	/* one token serves both: the device checks rights per access, not per token kind */
	return ndk_get_local_token_from_mr(mr);
}

void ndk_close_mr(struct ndk_mr *mr)
{
	struct ndk_adapter *adapter;
	struct ndk_page_list *pl;

	if (!mr)
		return;
	adapter = mr->adapter;
	pthread_mutex_lock(&adapter->lock);
	adapter->mrs[mr->index] = NULL;
	index_free(mr->pd, mr->index);
	if (mr->max_pages)
		ndk_range_free(&adapter->mtt, mr->mtt_offset, mr->max_pages);
	/*
	 * A page list whose FastRegister is still queued may yet be read by the device (the API
	 * says no request may use a closed MR, but the device must never read freed memory): it
	 * stays allocated, an orphan of the adapter, until that request completes or its QP is
	 * destroyed. The registration itself fails: its MR's entry is freed.
	 */
	while ((pl = mr->page_lists)) {
		mr->page_lists = pl->next;
		if (page_list_busy(pl)) {
			pl->next = adapter->orphan_page_lists;
			adapter->orphan_page_lists = pl;
		} else {
			page_list_free(adapter, pl);
		}
	}
	orphan_page_lists_reap(adapter, NULL);
	pthread_mutex_unlock(&adapter->lock);
	free(mr);
}

void ndk_mr_forget_qp(struct ndk_adapter *adapter, struct ndk_qp *qp)
{
	struct ndk_page_list *pl;
	uint32_t i;

	/* a destroyed QP executes nothing more: its registrations' page lists are free */
	orphan_page_lists_reap(adapter, qp);
	for (i = 0; i < adapter->num_mrs; i++) {
		struct ndk_mr *mr = adapter->mrs[i];

		if (!mr)
			continue;
		for (pl = mr->page_lists; pl; pl = pl->next)
			if (pl->qp == qp)
				pl->qp = NULL;
	}
}

ndk_status ndk_create_mw(struct ndk_pd *pd, struct ndk_mw **out)
{
	struct ndk_adapter *adapter;
	struct ndk_mw *mw;
	struct nic_cmd_mr_init init;
	uint32_t args[NIC_CMD_MR_INIT_WORDS];
	int err;

	if (!pd || !out)
		return NDK_STATUS_INVALID_PARAMETER;
	adapter = pd->adapter;
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	mw->adapter = adapter;
	mw->pd = pd;
	pthread_mutex_lock(&adapter->lock);
	err = index_alloc(pd, &mw->index);
	if (err)
		goto out_unlock;
	adapter->mws[mw->index] = mw;
	init.pd = (uint16_t)pd->pdn;
	init.max_pages = 0;
	init.mtt_offset = 0;
	/* a window exists to be reached remotely; the bind's flags say which rights */
	init.remote_access_ok = 1;
	init.is_mw = 1;
	nic_cmd_mr_init_pack(&init, args);
	ndk_cmd(adapter, NIC_CMD_MR_INIT, mw->index, args, NIC_CMD_MR_INIT_WORDS);
	pthread_mutex_unlock(&adapter->lock);
	*out = mw;
	return NDK_STATUS_SUCCESS;

out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	free(mw);
	return ndk_status_from_errno(err);
}

uint32_t ndk_get_remote_token_from_mw(struct ndk_mw *mw)
{
	return mw ? ndk_token(mw->index, mw->key) : 0;
}

void ndk_close_mw(struct ndk_mw *mw)
{
	struct ndk_adapter *adapter;

	if (!mw)
		return;
	adapter = mw->adapter;
	pthread_mutex_lock(&adapter->lock);
	adapter->mws[mw->index] = NULL;
	index_free(mw->pd, mw->index);
	pthread_mutex_unlock(&adapter->lock);
	free(mw);
}
