/* SPDX-License-Identifier: MIT */
/*
 * libndk driver core: the objects behind ndk.h and the small pure helpers they are built from
 * (exposed here so the unit tests can reach them).
 *
 * Error convention: internally 0 or a negative errno; ndk_status_from_errno() converts once, at
 * the public API boundary, with this mapping (the only place that gives errnos a meaning):
 *
 *   -EINVAL      NDK_STATUS_INVALID_PARAMETER       bad argument
 *   -EDOM        NDK_STATUS_INVALID_PARAMETER_MIX   arguments that are fine alone, not together
 *   -ENOMEM      NDK_STATUS_INSUFFICIENT_RESOURCES  memory, ids, MTT entries exhausted
 *   -ENOSPC      NDK_STATUS_NO_MORE_ENTRIES         work queue full
 *   -E2BIG       NDK_STATUS_DATA_OVERRUN            too many SGEs
 *   -EACCES/-EPERM NDK_STATUS_ACCESS_VIOLATION      access right missing
 *   -EBADFD/-EBUSY NDK_STATUS_INVALID_DEVICE_STATE  object in the wrong state
 *   -EOPNOTSUPP  NDK_STATUS_NOT_SUPPORTED           not (yet) supported / not an ndknic
 *   -ENODEV/-ENOENT NDK_STATUS_NO_SUCH_DEVICE       no such device
 *   -ETIMEDOUT   NDK_STATUS_IO_TIMEOUT
 *   -ENOTCONN    NDK_STATUS_CONNECTION_INVALID
 *   -EREMOTEIO   NDK_STATUS_REMOTE_ERROR
 *   -ECANCELED   NDK_STATUS_CANCELLED
 *   -EOVERFLOW   NDK_STATUS_BUFFER_OVERFLOW
 *   -EINPROGRESS NDK_STATUS_PENDING
 *   other        NDK_STATUS_INTERNAL_ERROR
 */
#ifndef NDK_INTERNAL_H
#define NDK_INTERNAL_H

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ndk.h"
#include "backend.h"
#include "nic_hw.h"

ndk_status ndk_status_from_errno(int err);

/* ---------------------------------------------------------------------------------------------
 * Barriers. Each is named for its purpose and used only for it.
 *
 * ndk_to_device_barrier(): between the CPU's memory accesses that the device must observe
 * (WQEs and page lists written into host memory, CQEs read out of the ring) and the MMIO
 * write that tells the device about them (a doorbell). Without it a weakly ordered CPU could
 * let the doorbell reach the device before the WQE is visible, so the device would fetch a
 * stale WQE, or publish a consumer index before the CQE was read, so the device could
 * overwrite an entry still being read. x86-64 keeps stores to write-back memory ordered before
 * a later uncached MMIO store and loads before later stores: a compiler barrier suffices.
 *
 * ndk_from_device_barrier(): between seeing a CQE's owner bit flip and reading the rest of the
 * CQE (and the CQ error record after a notification). The device writes the body before the
 * owner byte becomes visible, but the CPU could otherwise load the body early. x86-64 does
 * not reorder loads with loads: a compiler barrier suffices.
 */
static inline void ndk_to_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb osh" ::: "memory");
#else
	__sync_synchronize();
#endif
}

static inline void ndk_from_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb oshld" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Ring and index arithmetic. Device indices are 16-bit free-running counters; the driver keeps
 * 64-bit ones (they never wrap) and gives the device their low 16 bits.
 */

#define NDK_MAX_LOG_DEPTH 15u /* the owner-phase rule needs (index >> log_depth) within 16 bits */

/* smallest l with 2^l >= n (n >= 1) */
static inline unsigned ndk_log2_ceil(uint32_t n)
{
	unsigned l = 0;

	while (l < 32 && ((uint64_t)1 << l) < n)
		l++;
	return l;
}

/* A CQE is valid when its owner bit equals the phase the consumer index expects: 1 on the first
 * pass over the ring, 0 on the second, and so on. */
static inline bool ndk_cqe_owner_valid(uint8_t owner, uint16_t ci, unsigned log_depth)
{
	return (owner & 1u) == ((((unsigned)ci >> log_depth) & 1u) ^ 1u);
}

/* Requests outstanding on a queue with producer index pi and completed index completed. */
static inline bool ndk_wq_full(uint64_t pi, uint64_t completed, uint32_t depth)
{
	return pi - completed >= depth;
}

/*
 * A completion for the WQE at 16-bit index wqe_index: the 64-bit completed index becomes the
 * one just past it, provided that WQE is outstanding (posted at or after `completed`, before
 * `pi`). Returns the new completed index, or `completed` unchanged for an index outside that
 * window (a stale or corrupt CQE never moves the queue backwards or past what was posted).
 */
static inline uint64_t ndk_wq_complete(uint64_t completed, uint64_t pi, uint16_t wqe_index)
{
	uint16_t ahead = (uint16_t)(wqe_index - (uint16_t)completed);

	if ((uint64_t)ahead >= pi - completed)
		return completed;
	return completed + ahead + 1;
}

/* Deferred WQEs of a queue at which the library rings by itself: half the ring (at least 1). */
static inline uint32_t ndk_defer_limit(uint32_t depth)
{
	return depth / 2 ? depth / 2 : 1;
}

/*
 * BlueFlame for the QPs created from now on: NDK_BLUEFLAME=1 in the environment (read at
 * ndk_create_qp, as mlx5 reads MLX5_POST_SEND_PREFER_BF at context creation). Off by default
 * and for any other value (docs/blueflame.md).
 */
static inline bool ndk_blueflame_wanted(void)
{
	const char *env = getenv("NDK_BLUEFLAME");

	return env && !strcmp(env, "1");
}

/* ---------------------------------------------------------------------------------------------
 * Tokens (the words token and priv_token of formats/nic.toml): a table index and a key. The
 * privileged token of a PD has an index beyond any table (CAP_MEMORY gives at most 65535
 * entries).
 */
static inline uint32_t ndk_token(uint32_t index, uint8_t key)
{
	struct nic_token t = { .key = key, .index = index };
	uint32_t word;

	nic_token_pack(&t, &word);
	return word;
}

static inline uint32_t ndk_token_index(uint32_t token)
{
	struct nic_token t;

	nic_token_unpack(&token, &t);
	return t.index;
}

static inline uint8_t ndk_token_key(uint32_t token)
{
	struct nic_token t;

	nic_token_unpack(&token, &t);
	return t.key;
}

static inline uint32_t ndk_privileged_token(uint16_t pdn)
{
	struct nic_priv_token t = {
		.key = NIC_PRIV_TOKEN_KEY,
		.pd = pdn,
		.marker = NIC_PRIV_TOKEN_MARKER,
	};
	uint32_t word;

	nic_priv_token_pack(&t, &word);
	return word;
}

static inline bool ndk_token_is_privileged(uint32_t token)
{
	struct nic_priv_token t;

	nic_priv_token_unpack(&token, &t);
	return t.marker == NIC_PRIV_TOKEN_MARKER;
}

/* ---------------------------------------------------------------------------------------------
 * Request flags each request type takes (anything else is NDK_STATUS_INVALID_PARAMETER), and
 * the bits that reach the WQE (DEFER is a driver matter; RDMA_READ_SINK is accepted and
 * ignored; RDMA_READ_LOCAL_INVALIDATE is a Read's flag, refused with NOT_SUPPORTED by
 * xport_check while the adapter does not support it).
 */
#define NDK_FLAGS_COMMON (NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_DEFER)
#define NDK_FLAGS_SEND	 (NDK_FLAGS_COMMON | NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | NDK_OP_FLAG_INLINE)
#define NDK_FLAGS_WRITE	 (NDK_FLAGS_COMMON | NDK_OP_FLAG_INLINE)
#define NDK_FLAGS_READ	 (NDK_FLAGS_COMMON | NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE)
#define NDK_FLAGS_FAST_REG                                                                  \
	(NDK_FLAGS_COMMON | NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_LOCAL_WRITE | \
	 NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_RDMA_READ_SINK)
#define NDK_FLAGS_BIND \
	(NDK_FLAGS_COMMON | NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
#define NDK_FLAGS_INVALIDATE NDK_FLAGS_COMMON
#define NDK_FLAGS_REMOTE_ACCESS          \
	(NDK_OP_FLAG_ALLOW_REMOTE_READ | \
	 (NDK_OP_FLAG_ALLOW_REMOTE_WRITE & ~NDK_OP_FLAG_ALLOW_LOCAL_WRITE))
#define NDK_FLAGS_TO_WQE                                                                         \
	(NIC_FLAG_SILENT_SUCCESS | NIC_FLAG_READ_FENCE | NIC_FLAG_SEND_AND_SOLICIT_EVENT |       \
	 NIC_FLAG_ALLOW_REMOTE_READ | NIC_FLAG_ALLOW_LOCAL_WRITE | NIC_FLAG_ALLOW_REMOTE_WRITE | \
	 NIC_FLAG_INLINE)

/* 0, or -EINVAL when flags has a bit outside `allowed` */
static inline int ndk_check_flags(uint32_t flags, uint32_t allowed)
{
	return (flags & ~allowed) ? -EINVAL : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Pure helpers (ndk_util.c)
 */

/* URIs of ndk_open_adapter */
enum ndk_uri_kind { NDK_URI_SIM, NDK_URI_PCI };
struct ndk_uri {
	enum ndk_uri_kind kind;
	bool has_slot; /* pci with an address */
	uint32_t domain, bus, dev, func;
};
/* "sim", "pci", "pci:DDDD:BB:DD.F", "pci:BB:DD.F" (hex, dev <= 0x1f, func <= 7). 0 / -EINVAL */
int ndk_parse_uri(const char *uri, struct ndk_uri *out);

/* Id allocator over [0, nbits): next-fit, so a freed id is reused as late as possible (a stale
 * CQE or token then names nothing rather than a new object). */
struct ndk_bitmap {
	uint64_t *words;
	uint32_t nbits;
	uint32_t next; /* where the next search starts */
	uint32_t used;
};
int ndk_bitmap_init(struct ndk_bitmap *bm, uint32_t nbits); /* 0 / -ENOMEM */
void ndk_bitmap_destroy(struct ndk_bitmap *bm);
int ndk_bitmap_alloc(struct ndk_bitmap *bm, uint32_t *id);   /* 0 / -ENOMEM (full) */
void ndk_bitmap_reserve(struct ndk_bitmap *bm, uint32_t id); /* mark used for good */
void ndk_bitmap_free(struct ndk_bitmap *bm, uint32_t id);
bool ndk_bitmap_test(const struct ndk_bitmap *bm, uint32_t id);

/* First-fit allocator of contiguous ranges over [0, total) (MTT entries, hugepage pages).
 * Free ranges are kept sorted and coalesced. */
struct ndk_range {
	uint32_t start, count;
};
struct ndk_range_alloc {
	struct ndk_range *free; /* sorted by start, never adjacent */
	uint32_t nfree, cap;
	uint32_t total, available;
};
int ndk_range_init(struct ndk_range_alloc *ra, uint32_t total); /* 0 / -ENOMEM */
void ndk_range_destroy(struct ndk_range_alloc *ra);
/* 0 / -EINVAL (count 0) / -ENOMEM (no free range that large) */
int ndk_range_alloc(struct ndk_range_alloc *ra, uint32_t count, uint32_t *start);
/* 0 / -EINVAL (outside [0, total) or overlapping a free range: a double free) */
int ndk_range_free(struct ndk_range_alloc *ra, uint32_t start, uint32_t count);

/* NdkControlCqInterruptModeration argument rules: 0, or -EDOM when both the interval
 * (0xFFFFFFFF) and the count (0xFFFFFFFF or above the CQ depth) are "infinite". */
#define NDK_MODERATION_INFINITE 0xFFFFFFFFu
int ndk_moderation_check(uint32_t interval_us, uint32_t count, uint32_t cq_depth);
/* the MODERATION doorbell word {interval_us[31:16], count[15:0]} for checked arguments */
uint32_t ndk_moderation_word(uint32_t interval_us, uint32_t count, uint32_t cq_depth);

/* ---------------------------------------------------------------------------------------------
 * Objects
 */

/* ndk_adapter_create flags */
#define NDK_ADAPTER_F_POLLING_ONLY  0x1u /* no interrupts: leave every MSI-X vector masked */
#define NDK_ADAPTER_F_RESET_OBJECTS 0x2u /* destroy device objects a previous owner left */

/* ---------------------------------------------------------------------------------------------
 * The transport (CAP_TRANSPORT) and its limits
 */

/* CAP_TRANSPORT's fields: struct nic_cap_transport (formats/nic.toml) */

/* SGE limits reported by a device without the transport (no request uses them) */
#define NDK_NO_TRANSPORT_MAX_SGE 4u

/*
 * What one 64-byte WQE slot holds (docs/transport.md): SGEs from the first SGE field to the end
 * of the slot, or as many bytes of inline data. Send and Receive: 3 SGEs (a Send: 48 inline
 * bytes, but the QP's inline size is at most the Write's); Write and Read: 2 SGEs (40 inline
 * bytes). A post with more SGEs fails with DATA_OVERRUN, whatever the QP's max_*_request_sge
 * (they only promise at least that many; every WQE is a full slot).
 */
#define NDK_SEND_MAX_SGE    NIC_WQE_SEND_MAX_SGE
#define NDK_RDMA_MAX_SGE    NIC_WQE_RDMA_MAX_SGE
#define NDK_RECV_MAX_SGE    NIC_WQE_RECV_MAX_SGE
#define NDK_RDMA_MAX_INLINE NIC_WQE_RDMA_MAX_INLINE

/*
 * The longest message (the sum of a request's SGE lengths), with and without the transport:
 * 1 GiB. The WQE length, the RETH DMA length and bytes_transferred are 32-bit fields, and a
 * message of 2^30 bytes is 2^22 packets at the smallest path MTU (256 bytes): a quarter of the
 * 24-bit PSN space, so one message never spans the half of it a responder uses to tell a
 * duplicate from a new packet.
 */
#define NDK_MAX_TRANSFER_LENGTH (1u << 30)

/* Path MTU of the connections an adapter makes (cmd_qp_connect.log_mtu): the device accepts
   NIC_LOG_MTU_MIN..NIC_LOG_MTU_MAX (256..4096 bytes) */
#define NDK_LOG_MTU_DEFAULT 10u /* 1024 bytes */

struct ndk_pd {
	struct ndk_adapter *adapter;
	uint16_t pdn;
	unsigned refs;		    /* MRs, MWs and QPs of this PD */
	bool closed;		    /* ndk_close_pd called; freed at refs == 0 */
	struct ndk_pd *prev, *next; /* adapter->pds */
};

struct ndk_qp;

/*
 * A page-list buffer of an MR. The device reads a FastRegister's page list when it executes
 * the WQE, which may be long after the post returned, and a consumer may post several
 * registrations of one MR before the first executes (FR, INV, FR, ...): each outstanding
 * registration keeps its own buffer. The MR starts with one (allocated by
 * ndk_initialize_fast_register_mr) and grows a new one only when all are in use.
 */
struct ndk_page_list {
	void *va;
	uint64_t logical;
	struct ndk_qp *qp; /* the QP of the registration using it; NULL: free */
	uint64_t index;	   /* that FAST_REG WQE's 64-bit producer index */
	size_t bytes;	   /* the buffer's size (the MR's page_list_bytes) */
	struct ndk_page_list *next;
};

struct ndk_mr {
	struct ndk_adapter *adapter;
	struct ndk_pd *pd;
	uint32_t index;	    /* MR/MW table index */
	uint8_t key;	    /* key of the latest registration (pending or done) */
	uint32_t max_pages; /* 0: not initialised */
	bool remote_access;
	uint32_t mtt_offset;
	size_t page_list_bytes; /* of each buffer: max_pages * 8, rounded up */
	struct ndk_page_list *page_lists;
};

struct ndk_mw {
	struct ndk_adapter *adapter;
	struct ndk_pd *pd;
	uint32_t index;
	uint8_t key; /* key of the latest bind (pending or done) */
};

struct ndk_cq {
	struct ndk_adapter *adapter;
	uint32_t cqn;
	uint32_t vector;
	uint32_t depth;	    /* as asked */
	unsigned log_depth; /* ring = 2^log_depth CQEs */
	uint32_t mask;
	struct nic_cqe *ring;
	volatile struct nic_cq_error_record *err; /* right after the ring */
	uint64_t ring_logical;
	size_t ring_bytes;
	/* consumer side: owned by the (serialised) poll / arm caller */
	uint16_t ci;	    /* next CQE to read */
	uint16_t published; /* last consumer index the device was told */
	/* notification */
	ndk_cq_notification_fn fn;
	void *context;
	/*
	 * The device fires at most once per arm, so a CQ takes a callback only while it has had
	 * more arms than callbacks: an interrupt on a vector shared with other CQs then never
	 * reaches a CQ that was not armed (two arms merged by the device leave one spare, which
	 * can let one interrupt of a vector-sharing CQ through: a spurious callback, never a
	 * lost one).
	 */
	uint32_t arms;	    /* ndk_arm_cq calls (atomic) */
	uint32_t callbacks; /* notifications delivered */
	bool in_callback;   /* its callback is running (set and cleared under adapter->lock) */
	pthread_t callback_thread; /* the thread running it */
	bool notify_pending;	   /* a notification came while it ran */
	/* lifetime, under adapter->lock */
	unsigned refs;		/* QPs using it */
	bool closed;		/* ndk_close_cq called */
	unsigned close_waiters; /* ndk_close_cq calls waiting for the callback to return */
};

struct ndk_wq {
	void *ring;
	uint64_t ring_logical;
	size_t ring_bytes;
	unsigned log_depth;
	uint32_t depth;	    /* 2^log_depth; 0 = no queue */
	uint64_t pi;	    /* next producer index */
	uint64_t rung;	    /* producer index of the last doorbell */
	uint64_t completed; /* WQEs before it are done (written by the poller) */
	void **ctx;	    /* request_context per slot */
};

struct ndk_qp {
	struct ndk_adapter *adapter;
	struct ndk_pd *pd;
	struct ndk_cq *rcq, *icq;
	void *qp_context;
	uint32_t qpn;
	uint32_t inline_size; /* attr->inline_data_size: the most INLINE bytes a post may carry */
	uint32_t db;	      /* BAR0 offset of its doorbell page */
	struct ndk_wq sq, rq;
	/* set once by ndk_connect_qp (under adapter->lock), read by posts (atomic) */
	bool connected;
	uint32_t outbound_read_limit; /* of its connection: 0 = it may not issue Reads */
	/* a doorbell for a single new WQE also writes the WQE through the doorbell page's
	 * BlueFlame area (NDK_BLUEFLAME=1 at ndk_create_qp, on a core with CAP_SQ_BF) */
	bool blueflame;
};

struct ndk_adapter {
	const struct ndk_backend_ops *ops;
	void *dev;
	unsigned flags; /* NDK_ADAPTER_F_* */
	struct ndk_adapter_info info;
	uint32_t num_qps, num_cqs, num_mrs, mtt_entries, msix_vectors, data_width;
	/* slow path: command registers, allocators, object tables and lists */
	pthread_mutex_t lock;
	pthread_cond_t callback_done; /* a CQ's callback returned (ndk_close_cq waits for it) */
	struct ndk_bitmap pd_ids, qp_ids, cq_ids, mr_ids;
	struct ndk_range_alloc mtt;
	struct ndk_qp **qps; /* by qpn; read by the poller without the lock (atomic) */
	struct ndk_cq **cqs; /* by cqn */
	struct ndk_mr **mrs; /* by table index (an index holds an MR or an MW) */
	struct ndk_mw **mws;
	struct ndk_pd *pds;
	/* page lists of closed MRs that a queued FastRegister may still read (ndk_close_mr): freed
	   when it has completed or its QP is destroyed */
	struct ndk_page_list *orphan_page_lists;
	/* the transport (CAP_TRANSPORT: transport, read, send_inv); the port's address is read at
	 * probe */
	bool transport, transport_read, transport_send_inv;
	uint32_t sq_bf_bytes; /* CAP_SQ_BF: the BlueFlame area of a QP doorbell page, 0 = none */
	uint8_t mac[6];	      /* mac[0] = MAC[47:40], the first byte on the wire */
	uint32_t ipv4;	      /* ip[31:24] is the first byte on the wire */
	unsigned log_mtu;     /* path MTU of the next QP_CONNECT (ndk_adapter_set_path_mtu) */
};

/*
 * Probe the device behind (ops, dev) and make an adapter of it. On success the adapter owns
 * dev (ops->close runs in ndk_close_adapter); on failure the caller still does.
 */
int ndk_adapter_create(const struct ndk_backend_ops *ops, void *dev, unsigned flags,
		       struct ndk_adapter **adapter);

/*
 * The backend saw MSI-X vector `vector` fire: run the callbacks of the adapter's CQs on it
 * (serialised per CQ, never nested; see ndk_cq_notification_fn). Interrupt delivery is the
 * backend's: it calls this only from a place where callbacks may run, never from inside one of
 * its ops (the sim backend: from the world's step, ndk_sim.c; the pci backend is polling-only
 * and never calls it).
 */
void ndk_adapter_interrupt(struct ndk_adapter *adapter, uint32_t vector);

/*
 * The path MTU (payload bytes per packet: 256, 512, 1024, 2048 or 4096) of the connections the
 * adapter makes from now on: ndk_connect_qp passes it in QP_CONNECT; connected QPs keep theirs.
 * Default 1024. There is no path MTU discovery: whoever builds the network (the simulated world,
 * a board's setup) sets it. 0, or -EINVAL for any other value.
 */
int ndk_adapter_set_path_mtu(struct ndk_adapter *adapter, uint32_t mtu);

/* Slow-path command: ARG0.. then CMD. Caller holds adapter->lock. */
void ndk_cmd(struct ndk_adapter *adapter, uint32_t op, uint32_t index, const uint32_t *args,
	     unsigned nargs);

/* PD references held by MRs, MWs and QPs (caller holds adapter->lock) */
void ndk_pd_get(struct ndk_pd *pd);
void ndk_pd_put(struct ndk_pd *pd);
/* CQ references held by QPs (caller holds adapter->lock) */
void ndk_cq_get(struct ndk_cq *cq);
void ndk_cq_put(struct ndk_cq *cq);
/* the CQ's error status (0 while healthy): read from the error record after its ring */
ndk_status ndk_cq_error(const struct ndk_cq *cq);
/* a page-list buffer of the MR the device no longer needs (a new one when all are in use):
 * 0 / -ENOMEM */
int ndk_mr_page_list(struct ndk_mr *mr, struct ndk_page_list **pl);
/* forget FastRegisters pending on a QP being destroyed (caller holds adapter->lock) */
void ndk_mr_forget_qp(struct ndk_adapter *adapter, struct ndk_qp *qp);

/* ---------------------------------------------------------------------------------------------
 * Backends: how ndk_open_adapter (ndk_open.c) reaches them. Everything else of a backend stays
 * behind its ops table; the driver core never knows which one it talks to.
 */

/* the pci backend (backend_pci.c): 0 or -errno; on success ops and dev describe the device */
int ndk_pci_open(const struct ndk_uri *uri, const struct ndk_backend_ops **ops, void **dev);
/* the sim backend (ndk_sim.c): an adapter on a world of its own, with one NIC, which the
 * adapter's close destroys */
ndk_status ndk_sim_open_private(struct ndk_adapter **adapter);

#endif /* NDK_INTERNAL_H */
