// SPDX-License-Identifier: MIT
/*
 * Adapter: probing the device, its limits, device memory, protection domains and slow-path
 * commands (interrupt dispatch lives with the CQs, in ndk_cq.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

/* ---------------------------------------------------------------------------------------------
 * Commands
 */

void ndk_cmd(struct ndk_adapter *adapter, uint32_t op, uint32_t index, const uint32_t *args,
	     unsigned nargs)
{
	struct nic_cmd cmd = { .opcode = (uint8_t)op, .index = (uint16_t)index };
	uint32_t word;
	unsigned i;

	for (i = 0; i < nargs; i++)
		adapter->ops->mmio_write32(adapter->dev, NIC_REG_ARG0 + 4 * i, args[i]);
	nic_cmd_pack(&cmd, &word);
	adapter->ops->mmio_write32(adapter->dev, NIC_REG_CMD, word);
}

/* ---------------------------------------------------------------------------------------------
 * Probe
 */

static uint32_t rd(struct ndk_adapter *adapter, uint32_t offset)
{
	return adapter->ops->mmio_read32(adapter->dev, offset);
}

static void msix_mask_all(struct ndk_adapter *adapter)
{
	uint32_t v;

	for (v = 0; v < adapter->msix_vectors; v++)
		adapter->ops->mmio_write32(
			adapter->dev,
			NIC_REG_MSIX_TABLE + 16 * v + offsetof(struct nic_msix_entry, control), 1);
}

/* Objects a previous owner of a real device left behind would keep reading and writing
 * memory that is no longer theirs: stop them all before handing the device out. */
static void reset_objects(struct ndk_adapter *adapter)
{
	uint32_t i;

	for (i = 0; i < adapter->num_qps; i++)
		ndk_cmd(adapter, NIC_CMD_QP_DESTROY, i, NULL, 0);
	for (i = 0; i < adapter->num_cqs; i++)
		ndk_cmd(adapter, NIC_CMD_CQ_DESTROY, i, NULL, 0);
	for (i = 0; i < adapter->num_mrs; i++)
		ndk_cmd(adapter, NIC_CMD_MR_FREE, i, NULL, 0);
	/* the read drains the posted writes before the device is used */
	(void)rd(adapter, NIC_REG_ID_MAGIC);
}

/*
 * The transport's limits (docs/transport.md): what one WQE slot holds, the read limit of
 * CAP_TRANSPORT, receive queues as deep as send queues, and the port's address.
 */
static void probe_transport(struct ndk_adapter *adapter, uint32_t cap)
{
	struct ndk_adapter_info *info = &adapter->info;
	struct nic_port_mac_hi mac_hi;
	uint32_t lo, hi;
	uint64_t mac;
	unsigned i;

	adapter->transport = true;
	adapter->transport_read = cap & NIC_CAP_TRANSPORT_READ;
	adapter->transport_send_inv = cap & NIC_CAP_TRANSPORT_SEND_INV;
	/* every initiator request: a Write or Read WQE holds 2 SGEs (a Send 3) */
	info->max_initiator_request_sge = NDK_RDMA_MAX_SGE;
	info->max_read_request_sge = NDK_RDMA_MAX_SGE;
	info->max_receive_request_sge = NDK_RECV_MAX_SGE;
	/* what both a Send and a Write WQE hold */
	info->max_inline_data_size = NDK_RDMA_MAX_INLINE;
	/* a device without Reads takes none, whatever its read limit field says */
	if (adapter->transport_read) {
		info->max_inbound_read_limit = NDK_CAP_TRANSPORT_READ_LIMIT(cap);
		info->max_outbound_read_limit = NDK_CAP_TRANSPORT_READ_LIMIT(cap);
	}
	info->max_receive_queue_depth = info->max_initiator_queue_depth;
	/*
	 * A QP may connect to a QP of its own adapter: its frames go out of the port addressed to
	 * the port's own MAC and come back in (the simulated worlds loop a lone NIC's port and
	 * switch frames by destination MAC; on a board the network must do the same).
	 */
	info->adapter_flags |= NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED;

	lo = rd(adapter, NIC_REG_PORT_MAC_LO);
	hi = rd(adapter, NIC_REG_PORT_MAC_HI);
	nic_port_mac_hi_unpack(&hi, &mac_hi);
	mac = (uint64_t)mac_hi.mac_hi << 32 | lo;
	for (i = 0; i < 6; i++) /* mac[0] = MAC[47:40], the first byte on the wire */
		adapter->mac[i] = (uint8_t)(mac >> (8 * (5 - i)));
	adapter->ipv4 = rd(adapter, NIC_REG_PORT_IPV4);
}

static int probe(struct ndk_adapter *adapter)
{
	struct ndk_adapter_info *info = &adapter->info;
	uint32_t version_word, ids_word, queues_word, memory_word, sq_word, sq_bf_word, cq,
		transport;
	struct nic_version version;
	struct nic_ids ids;
	struct nic_cap_queues queues;
	struct nic_cap_memory memory;
	struct nic_cap_sq sq;
	struct nic_cap_sq_bf sq_bf;
	unsigned log_sq, log_cq;

	if (rd(adapter, NIC_REG_ID_MAGIC) != NIC_MAGIC)
		return -EOPNOTSUPP;
	version_word = rd(adapter, NIC_REG_VERSION);
	nic_version_unpack(&version_word, &version);
	if (version.major != NIC_VERSION_MAJOR)
		return -EOPNOTSUPP;
	ids_word = rd(adapter, NIC_REG_IDS);
	nic_ids_unpack(&ids_word, &ids);
	adapter->data_width = rd(adapter, NIC_REG_CAP_DATA_WIDTH);
	queues_word = rd(adapter, NIC_REG_CAP_QUEUES);
	nic_cap_queues_unpack(&queues_word, &queues);
	memory_word = rd(adapter, NIC_REG_CAP_MEMORY);
	nic_cap_memory_unpack(&memory_word, &memory);
	adapter->msix_vectors = rd(adapter, NIC_REG_CAP_MSIX);
	sq_word = rd(adapter, NIC_REG_CAP_SQ);
	nic_cap_sq_unpack(&sq_word, &sq);
	cq = rd(adapter, NIC_REG_CAP_CQ);
	transport = rd(adapter, NIC_REG_CAP_TRANSPORT);
	/* a core without BlueFlame reads 0 here (the address was unmapped before) */
	sq_bf_word = rd(adapter, NIC_REG_CAP_SQ_BF);
	nic_cap_sq_bf_unpack(&sq_bf_word, &sq_bf);
	adapter->sq_bf_bytes = sq_bf.bf_bytes;

	adapter->num_qps = queues.num_qps;
	adapter->num_cqs = queues.num_cqs;
	adapter->num_mrs = memory.num_mrs;
	adapter->mtt_entries = memory.mtt_entries;
	log_sq = sq.log_max_depth;
	log_cq = cq & NIC_CAP_CQ_LOG_MAX_DEPTH_MASK;
	/*
	 * What this driver can drive: CQ numbers travel in 8-bit QP_CREATE fields, ring indices
	 * are 16 bits (so the owner phase needs log depth <= 15), and NDK promises at least 16
	 * pages per fast-register MR.
	 */
	if (adapter->num_qps == 0 || adapter->num_cqs == 0 || adapter->num_cqs > 256 ||
	    adapter->num_mrs == 0 || adapter->mtt_entries < 16 || log_sq > NDK_MAX_LOG_DEPTH ||
	    log_cq > NDK_MAX_LOG_DEPTH || adapter->msix_vectors > 2048)
		return -EOPNOTSUPP;

	memset(info, 0, sizeof(*info));
	info->version_major = version.major;
	info->version_minor = version.minor;
	info->vendor_id = ids.vendor_id;
	info->device_id = ids.device_id;
	info->max_registration_size = (uint64_t)adapter->mtt_entries * NDK_PAGE_SIZE;
	info->max_window_size = info->max_registration_size;
	/* the size with which the most FRMRs fit: the MTT shared evenly by the table */
	info->frmr_page_count = adapter->mtt_entries / adapter->num_mrs;
	if (info->frmr_page_count < 16)
		info->frmr_page_count = 16;
	/*
	 * Without the transport: no inline data, no reads and no receive queue (so no receive can
	 * be posted); the SGE counts are the values reported before the transport existed.
	 */
	info->max_initiator_request_sge = NDK_NO_TRANSPORT_MAX_SGE;
	info->max_receive_request_sge = NDK_NO_TRANSPORT_MAX_SGE;
	info->max_read_request_sge = NDK_NO_TRANSPORT_MAX_SGE;
	info->max_transfer_length = NDK_MAX_TRANSFER_LENGTH;
	info->max_inline_data_size = 0;
	info->max_inbound_read_limit = 0;
	info->max_outbound_read_limit = 0;
	info->max_receive_queue_depth = 0;
	info->max_initiator_queue_depth = 1u << log_sq;
	/* a CQ's ring is twice its depth (ndk_cq.c: lazily published consumer index) */
	info->max_cq_depth = 1u << (log_cq ? log_cq - 1 : 0);
	info->max_qp_count = adapter->num_qps;
	info->max_cq_count = adapter->num_cqs;
	info->max_mr_count = adapter->num_mrs;
	/* the device has no separate read-sink right: the flag is accepted and ignored */
	info->adapter_flags = NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED;
	if (cq & NIC_CAP_CQ_MODERATION)
		info->adapter_flags |= NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED;
	adapter->log_mtu = NDK_LOG_MTU_DEFAULT;
	if (transport & NIC_CAP_TRANSPORT_TRANSPORT)
		probe_transport(adapter, transport);
	return 0;
}

static int alloc_tables(struct ndk_adapter *adapter)
{
	int err;

	adapter->qps = calloc(adapter->num_qps, sizeof(*adapter->qps));
	adapter->cqs = calloc(adapter->num_cqs, sizeof(*adapter->cqs));
	adapter->mrs = calloc(adapter->num_mrs, sizeof(*adapter->mrs));
	adapter->mws = calloc(adapter->num_mrs, sizeof(*adapter->mws));
	if (!adapter->qps || !adapter->cqs || !adapter->mrs || !adapter->mws)
		return -ENOMEM;
	err = ndk_bitmap_init(&adapter->pd_ids, 1u << 16);
	if (err)
		return err;
	/* PD 0 is never handed out: a zeroed table entry then matches no live PD */
	ndk_bitmap_reserve(&adapter->pd_ids, 0);
	err = ndk_bitmap_init(&adapter->qp_ids, adapter->num_qps);
	if (err)
		return err;
	err = ndk_bitmap_init(&adapter->cq_ids, adapter->num_cqs);
	if (err)
		return err;
	err = ndk_bitmap_init(&adapter->mr_ids, adapter->num_mrs);
	if (err)
		return err;
	return ndk_range_init(&adapter->mtt, adapter->mtt_entries);
}

/* frees what alloc_tables made (each part may be missing) */
static void free_tables(struct ndk_adapter *adapter)
{
	ndk_range_destroy(&adapter->mtt);
	ndk_bitmap_destroy(&adapter->mr_ids);
	ndk_bitmap_destroy(&adapter->cq_ids);
	ndk_bitmap_destroy(&adapter->qp_ids);
	ndk_bitmap_destroy(&adapter->pd_ids);
	free(adapter->mws);
	free(adapter->mrs);
	free(adapter->cqs);
	free(adapter->qps);
}

int ndk_adapter_create(const struct ndk_backend_ops *ops, void *dev, unsigned flags,
		       struct ndk_adapter **out)
{
	struct ndk_adapter *adapter;
	int err;

	adapter = calloc(1, sizeof(*adapter));
	if (!adapter)
		return -ENOMEM;
	adapter->ops = ops;
	adapter->dev = dev;
	adapter->flags = flags;
	err = probe(adapter);
	if (err)
		goto out_free_adapter;
	err = alloc_tables(adapter);
	if (err)
		goto out_free_tables;
	err = -pthread_mutex_init(&adapter->lock, NULL);
	if (err)
		goto out_free_tables;
	err = -pthread_cond_init(&adapter->callback_done, NULL);
	if (err)
		goto out_destroy_lock;
	if (flags & NDK_ADAPTER_F_POLLING_ONLY)
		msix_mask_all(adapter);
	if (flags & NDK_ADAPTER_F_RESET_OBJECTS)
		reset_objects(adapter);
	*out = adapter;
	return 0;

out_destroy_lock:
	pthread_mutex_destroy(&adapter->lock);
out_free_tables:
	free_tables(adapter);
out_free_adapter:
	free(adapter);
	return err;
}

void ndk_close_adapter(struct ndk_adapter *adapter)
{
	struct ndk_pd *pd, *next;
	uint32_t i;

	if (!adapter)
		return;
	/* children before parents: QPs hold CQs and PDs, MRs and MWs hold PDs */
	for (i = 0; i < adapter->num_qps; i++)
		if (adapter->qps[i])
			ndk_close_qp(adapter->qps[i]);
	for (i = 0; i < adapter->num_mrs; i++) {
		if (adapter->mws[i])
			ndk_close_mw(adapter->mws[i]);
		if (adapter->mrs[i])
			ndk_close_mr(adapter->mrs[i]);
	}
	for (i = 0; i < adapter->num_cqs; i++)
		if (adapter->cqs[i])
			ndk_close_cq(adapter->cqs[i]);
	for (pd = adapter->pds; pd; pd = next) {
		next = pd->next;
		ndk_close_pd(pd);
	}
	adapter->ops->close(adapter->dev);
	pthread_cond_destroy(&adapter->callback_done);
	pthread_mutex_destroy(&adapter->lock);
	free_tables(adapter);
	free(adapter);
}

int ndk_adapter_set_path_mtu(struct ndk_adapter *adapter, uint32_t mtu)
{
	unsigned log_mtu = ndk_log2_ceil(mtu);

	if (!adapter || log_mtu < NDK_LOG_MTU_MIN || log_mtu > NDK_LOG_MTU_MAX ||
	    mtu != 1u << log_mtu)
		return -EINVAL;
	pthread_mutex_lock(&adapter->lock);
	adapter->log_mtu = log_mtu;
	pthread_mutex_unlock(&adapter->lock);
	return 0;
}

ndk_status ndk_query_adapter_info(struct ndk_adapter *adapter, struct ndk_adapter_info *info)
{
	if (!adapter || !info)
		return NDK_STATUS_INVALID_PARAMETER;
	*info = adapter->info;
	return NDK_STATUS_SUCCESS;
}

/* The fields of struct ndk_port_counters are the counters of PORT_COUNTERS, in order. */
_Static_assert(sizeof(struct ndk_port_counters) == NIC_PORT_COUNTER_COUNT * sizeof(uint64_t),
	       "one field per counter");
_Static_assert(offsetof(struct ndk_port_counters, rnr_naks_received) ==
			       NIC_PORT_COUNTER_RNR_NAKS_RECEIVED * sizeof(uint64_t) &&
		       offsetof(struct ndk_port_counters, rx_dropped) ==
			       NIC_PORT_COUNTER_RX_DROPPED * sizeof(uint64_t) &&
		       offsetof(struct ndk_port_counters, retransmitted_packets) ==
			       NIC_PORT_COUNTER_RETRANSMITTED_PACKETS * sizeof(uint64_t) &&
		       offsetof(struct ndk_port_counters, duplicate_requests) ==
			       NIC_PORT_COUNTER_DUPLICATE_REQUESTS * sizeof(uint64_t),
	       "the fields in the order of the counters");

ndk_status ndk_query_port_counters(struct ndk_adapter *adapter, struct ndk_port_counters *counters)
{
	uint64_t v[NIC_PORT_COUNTER_COUNT];
	uint32_t lo, hi, i, at;

	if (!adapter || !counters)
		return NDK_STATUS_INVALID_PARAMETER;
	if (!adapter->transport)
		return NDK_STATUS_NOT_SUPPORTED;
	/* the low word latches its counter's high word, which the next high-word read returns:
	 * the two reads of a counter must not interleave with another thread's */
	pthread_mutex_lock(&adapter->lock);
	for (i = 0; i < NIC_PORT_COUNTER_COUNT; i++) {
		at = NIC_REG_PORT_COUNTERS + 8 * i;
		lo = rd(adapter, at);
		hi = rd(adapter, at + 4);
		v[i] = (uint64_t)hi << 32 | lo;
	}
	pthread_mutex_unlock(&adapter->lock);
	memcpy(counters, v, sizeof(v));
	return NDK_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Device memory
 */

ndk_status ndk_alloc_buffer(struct ndk_adapter *adapter, size_t length, struct ndk_buffer *buffer)
{
	size_t len;
	void *va;
	uint64_t logical;
	int err;

	if (!adapter || !buffer || length == 0 || length > SIZE_MAX - NDK_PAGE_SIZE)
		return NDK_STATUS_INVALID_PARAMETER;
	len = (length + NDK_PAGE_SIZE - 1) & ~(size_t)(NDK_PAGE_SIZE - 1);
	err = adapter->ops->dma_alloc(adapter->dev, len, NDK_DMA_DATA, &va, &logical);
	if (err)
		return ndk_status_from_errno(err);
	buffer->va = va;
	buffer->logical = logical;
	buffer->length = len;
	return NDK_STATUS_SUCCESS;
}

void ndk_free_buffer(struct ndk_adapter *adapter, struct ndk_buffer *buffer)
{
	if (!adapter || !buffer || !buffer->va)
		return;
	adapter->ops->dma_free(adapter->dev, buffer->va, buffer->logical, buffer->length);
	memset(buffer, 0, sizeof(*buffer));
}

/* ---------------------------------------------------------------------------------------------
 * Protection domains
 */

ndk_status ndk_create_pd(struct ndk_adapter *adapter, struct ndk_pd **out)
{
	struct ndk_pd *pd;
	uint32_t pdn;
	int err;

	if (!adapter || !out)
		return NDK_STATUS_INVALID_PARAMETER;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	pthread_mutex_lock(&adapter->lock);
	err = ndk_bitmap_alloc(&adapter->pd_ids, &pdn);
	if (err)
		goto out_unlock;
	pd->adapter = adapter;
	pd->pdn = (uint16_t)pdn;
	pd->next = adapter->pds;
	if (adapter->pds)
		adapter->pds->prev = pd;
	adapter->pds = pd;
	pthread_mutex_unlock(&adapter->lock);
	*out = pd;
	return NDK_STATUS_SUCCESS;

out_unlock:
	pthread_mutex_unlock(&adapter->lock);
	free(pd);
	return ndk_status_from_errno(err);
}

/* caller holds the lock */
static void pd_release(struct ndk_pd *pd)
{
	struct ndk_adapter *adapter = pd->adapter;

	if (!pd->closed || pd->refs)
		return;
	if (pd->prev)
		pd->prev->next = pd->next;
	else
		adapter->pds = pd->next;
	if (pd->next)
		pd->next->prev = pd->prev;
	ndk_bitmap_free(&adapter->pd_ids, pd->pdn);
	free(pd);
}

void ndk_pd_get(struct ndk_pd *pd)
{
	pd->refs++;
}

void ndk_pd_put(struct ndk_pd *pd)
{
	pd->refs--;
	pd_release(pd);
}

void ndk_close_pd(struct ndk_pd *pd)
{
	struct ndk_adapter *adapter;

	if (!pd || pd->closed)
		return;
	adapter = pd->adapter;
	pthread_mutex_lock(&adapter->lock);
	pd->closed = true;
	pd_release(pd);
	pthread_mutex_unlock(&adapter->lock);
}

uint32_t ndk_get_privileged_token(struct ndk_pd *pd)
{
	return pd ? ndk_privileged_token(pd->pdn) : 0;
}
