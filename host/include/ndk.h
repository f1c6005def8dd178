/* SPDX-License-Identifier: MIT */
/*
 * libndk: the host library of ndknic, an FPGA RDMA NIC whose queue-pair and completion engines
 * implement the NDK (Network Direct Kernel) request and completion rules.
 *
 * The interface follows NDKPI: the same objects (adapter, PD, CQ, QP, MR, MW), the same request
 * calls and flags, the same NTSTATUS numbering. The normative rules are Microsoft's "NDKPI
 * deferred processing scheme" and "NDKPI completion handling requirements"; where NDK leaves a
 * choice open, the comment on the call says what this library does.
 *
 * Threading. The library takes no lock on the fast path. As NDK requires, the caller serialises
 * the posts of one queue (the initiator queue and the receive queue of a QP may be used from two
 * threads), and serialises ndk_get_cq_results, ndk_get_cq_results_ex and ndk_arm_cq on one CQ.
 * Creating and closing objects may happen from any thread (the adapter serialises those). A
 * simulated adapter (ndk_sim.h) belongs to its world, which is driven from one thread at a time.
 *
 * Statuses: every call that can fail returns an ndk_status; a call returns NDK_STATUS_SUCCESS
 * or one of the statuses its comment lists (plus NDK_STATUS_INVALID_PARAMETER for NULL
 * pointers where a pointer is required).
 */
#ifndef NDK_H
#define NDK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t ndk_status; /* NTSTATUS numbering */
#define NDK_STATUS_SUCCESS		  ((ndk_status)0x00000000)
#define NDK_STATUS_PENDING		  ((ndk_status)0x00000103)
#define NDK_STATUS_BUFFER_OVERFLOW	  ((ndk_status)0x80000005) /* CQ overrun (callback status) */
#define NDK_STATUS_NO_MORE_ENTRIES	  ((ndk_status)0x8000001A) /* queue full, inline */
#define NDK_STATUS_ACCESS_VIOLATION	  ((ndk_status)0xC0000005)
#define NDK_STATUS_INVALID_PARAMETER	  ((ndk_status)0xC000000D)
#define NDK_STATUS_INVALID_PARAMETER_MIX  ((ndk_status)0xC0000030)
#define NDK_STATUS_DATA_OVERRUN		  ((ndk_status)0xC000003C) /* too many SGEs, inline */
#define NDK_STATUS_INSUFFICIENT_RESOURCES ((ndk_status)0xC000009A)
#define NDK_STATUS_IO_TIMEOUT		  ((ndk_status)0xC00000B5)
#define NDK_STATUS_NOT_SUPPORTED	  ((ndk_status)0xC00000BB)
#define NDK_STATUS_INTERNAL_ERROR	  ((ndk_status)0xC00000E5)
#define NDK_STATUS_CANCELLED		  ((ndk_status)0xC0000120) /* flushed */
#define NDK_STATUS_REMOTE_ERROR		  ((ndk_status)0xC000013D)
#define NDK_STATUS_INVALID_DEVICE_STATE	  ((ndk_status)0xC0000184)
#define NDK_STATUS_CONNECTION_INVALID	  ((ndk_status)0xC000023A)
/* Addition: ndk_open_adapter found no such device (STATUS_NO_SUCH_DEVICE). */
#define NDK_STATUS_NO_SUCH_DEVICE ((ndk_status)0xC000000E)

/*
 * The name of a status as NTSTATUS spells it ("STATUS_CANCELLED", ...). Never NULL: a value
 * this library does not know gives "STATUS_UNKNOWN".
 */
const char *ndk_status_name(ndk_status status);

/* request flags: the values of ndkpi.h */
#define NDK_OP_FLAG_SILENT_SUCCESS	       0x0001
#define NDK_OP_FLAG_READ_FENCE		       0x0002
#define NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT     0x0004
#define NDK_OP_FLAG_ALLOW_REMOTE_READ	       0x0008
#define NDK_OP_FLAG_ALLOW_LOCAL_WRITE	       0x0010
#define NDK_OP_FLAG_ALLOW_REMOTE_WRITE	       0x0030
#define NDK_OP_FLAG_INLINE		       0x0040
#define NDK_OP_FLAG_RDMA_READ_SINK	       0x0080
#define NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE 0x0100
/*
 * DEFER is a hint (NDKPI deferred processing scheme): the request's WQE is written to the ring
 * but the doorbell is not rung; the next post without DEFER on that queue rings once for the
 * whole chain. The provider may process a deferred request at any time: this library rings by
 * itself when the deferred WQEs of a queue reach half of its ring, when a post fails inline
 * (every earlier deferred request is indicated to the hardware before the failure is returned)
 * and on ndk_flush. The caller ends every chain with a post without DEFER.
 */
#define NDK_OP_FLAG_DEFER 0x0200

enum ndk_operation_type {
	NDK_OP_RECEIVE = 1,
	NDK_OP_SEND = 2,
	NDK_OP_FAST_REGISTER = 4,
	NDK_OP_BIND = 8,
	NDK_OP_INVALIDATE = 16,
	NDK_OP_READ = 32,
	NDK_OP_WRITE = 64,
	NDK_OP_RECEIVE_AND_INVALIDATE = 0x8001,
};
enum ndk_cq_notify_type {
	NDK_CQ_NOTIFY_ERRORS = 0,
	NDK_CQ_NOTIFY_ANY = 1,
	NDK_CQ_NOTIFY_SOLICITED = 2,
};

/* ndk_adapter_info.adapter_flags: the values of ndkinfo.h */
#define NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED		      0x00000001
#define NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED	      0x00000002
#define NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED    0x00000004
#define NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED		      0x00000008
#define NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED 0x00000010
#define NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED		      0x00000100
#define NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED	      0x00010000

#define NDK_PAGE_SIZE 4096u

struct ndk_adapter;
struct ndk_pd;
struct ndk_cq;
struct ndk_qp;
struct ndk_mr;
struct ndk_mw;

/* address: a virtual address inside a registered MR (token = that MR's local token) or a
 * logical (device) address (token = the PD's privileged token) */
struct ndk_sge {
	uint64_t address;
	uint32_t length;
	uint32_t token;
};

/* memory the device can reach: va for the CPU, logical for the device; page aligned */
struct ndk_buffer {
	void *va;
	uint64_t logical;
	size_t length;
};

struct ndk_result {
	ndk_status status;
	uint32_t bytes_transferred; /* defined for receives */
	void *qp_context;
	void *request_context;
};
struct ndk_result_ex {
	ndk_status status;
	uint32_t bytes_transferred;
	void *qp_context;
	void *request_context;
	uint32_t type;		/* enum ndk_operation_type */
	uint64_t type_specific; /* RECEIVE_AND_INVALIDATE: the invalidated token */
};

struct ndk_adapter_info {
	uint16_t version_major, version_minor;
	uint32_t vendor_id, device_id;
	uint64_t max_registration_size, max_window_size;
	uint32_t frmr_page_count;
	uint32_t max_initiator_request_sge, max_receive_request_sge, max_read_request_sge;
	uint32_t max_transfer_length, max_inline_data_size;
	uint32_t max_inbound_read_limit, max_outbound_read_limit;
	uint32_t max_receive_queue_depth, max_initiator_queue_depth, max_cq_depth;
	uint32_t max_qp_count, max_cq_count, max_mr_count;
	uint32_t adapter_flags;
};

/*
 * Called when an armed CQ's notification condition is met, once per arm. cq_status is
 * NDK_STATUS_SUCCESS, or the CQ's error (NDK_STATUS_BUFFER_OVERFLOW for an overrun,
 * NDK_STATUS_INTERNAL_ERROR) once the CQ is in error: it and its QPs are then unusable.
 * Callbacks of one CQ never run concurrently and never re-enter: a notification that becomes
 * due while that CQ's callback runs (for example through ndk_arm_cq inside it) is delivered
 * right after the callback returns.
 */
typedef void (*ndk_cq_notification_fn)(void *context, ndk_status cq_status);

/* ---------------------------------------------------------------------------------------------
 * Adapter
 */

/*
 * Open an adapter.
 * uri: "sim" = a private simulated world with one NIC whose port is looped back to itself
 *      (defaults of ndk_sim_default_config with nics = 1; the adapter owns the world and
 *      destroys it on close; ndk_sim_of() returns it);
 *      "pci" = the first ndknic device (vendor/device id of the register map) on the PCI bus;
 *      "pci:DDDD:BB:DD.F" (or "pci:BB:DD.F", domain 0) = the device at that address.
 * The driver checks the device's ID block: a magic other than "NDKN", or a register-interface
 * major version other than the one this library was built for, is refused.
 * The pci backend is polling-only: libpciaccess gives no interrupts (no VFIO), so CQ
 * notification callbacks never run on it. It needs 2 MiB hugepages and /proc/self/pagemap
 * (root) for DMA memory, and no IOMMU translation (logical address = physical address).
 * Returns: NDK_STATUS_SUCCESS;
 *   NDK_STATUS_INVALID_PARAMETER (NULL or malformed uri);
 *   NDK_STATUS_NO_SUCH_DEVICE (pci: no PCI bus access, no ndknic device, or nothing at that
 *   address);
 *   NDK_STATUS_NOT_SUPPORTED (the device is not an ndknic: wrong PCI ids, ID_MAGIC mismatch,
 *   incompatible VERSION major, BAR0 too small, or capabilities this driver cannot use);
 *   NDK_STATUS_ACCESS_VIOLATION (pci: no permission to map BAR0);
 *   NDK_STATUS_INSUFFICIENT_RESOURCES (out of memory).
 */
ndk_status ndk_open_adapter(const char *uri, struct ndk_adapter **adapter);
/*
 * Close an adapter. Objects still open on it (QPs, MRs, MWs, CQs, PDs) are closed first, in
 * that order; no notification callback runs after this returns. Buffers from ndk_alloc_buffer
 * should be freed before; the backend releases any that remain (freeing them afterwards is an
 * error). Not to be called from inside a notification callback of the adapter's CQs.
 */
void ndk_close_adapter(struct ndk_adapter *adapter);
/*
 * The adapter's limits, from its capability registers (read once, at open).
 * With the RoCEv2 transport (CAP_TRANSPORT.transport = 1) they are what one 64-byte WQE slot
 * holds: max_initiator_request_sge = max_read_request_sge = 2 (a Write or Read WQE holds 2
 * SGEs, a Send 3), max_receive_request_sge = 3, max_inline_data_size = 40 (a Write WQE holds 40
 * bytes, a Send 48); max_inbound_read_limit = max_outbound_read_limit = CAP_TRANSPORT[15:8];
 * max_receive_queue_depth = max_initiator_queue_depth; max_transfer_length = 1 GiB (2^30 bytes:
 * the WQE, RETH and completion lengths are 32-bit, and 2^30 bytes are 2^22 packets at the
 * smallest path MTU, well inside the 24-bit PSN space); adapter_flags has
 * NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED (a QP may connect to a QP of the same
 * adapter: its frames leave the port for the port's own MAC and come back, as the simulated
 * worlds do).
 * Without the transport: 4 SGEs, no inline data, read limits 0, receive queue depth 0 (so a QP
 * has no receive queue), max_transfer_length 1 GiB, no loopback flag.
 * Returns NDK_STATUS_SUCCESS or NDK_STATUS_INVALID_PARAMETER.
 */
ndk_status ndk_query_adapter_info(struct ndk_adapter *adapter, struct ndk_adapter_info *info);

/*
 * The port's counters, kept by the NIC (BAR0 PORT_COUNTERS, 64 bits each), counted since the
 * NIC was last reset: for a simulated NIC, since its world was created (so for the first
 * adapter opened on it, since that adapter opened; an adapter opened again on the same NIC
 * sees its predecessor's traffic too: take a reading first and subtract). The loss-recovery
 * counters (retransmitted_packets, local_ack_timeouts, implied_naks, out_of_sequence,
 * duplicate_requests) count the retransmission machinery's events (docs/transport.md
 * "Retransmission", "Port counters"). One call reads the 24 words (MMIO reads: a slow path, not for polling
 * loops).
 */
struct ndk_port_counters {
	uint64_t tx_packets, rx_packets;
	uint64_t rx_dropped; /* frames the receiver's checks dropped: bad ICRC, IPv4 checksum or
				lengths, not RoCEv2, not for this port (RX_DROPS); a well-formed
				packet for a QP that does not exist is not counted here yet */
	uint64_t retransmitted_packets; /* requester packets sent again (timeout, NAK, RNR) */
	uint64_t local_ack_timeouts;	/* requester ACK timer expiries */
	uint64_t seq_naks_sent, seq_naks_received;
	uint64_t implied_naks;	     /* Reads the requester found skipped */
	uint64_t out_of_sequence;    /* packets the responder received ahead of its PSN */
	uint64_t duplicate_requests; /* packets the responder received behind its PSN */
	uint64_t rnr_naks_sent, rnr_naks_received;
};
/* NDK_STATUS_SUCCESS; NDK_STATUS_INVALID_PARAMETER (NULL); NDK_STATUS_NOT_SUPPORTED (a device
   without the transport). */
ndk_status ndk_query_port_counters(struct ndk_adapter *adapter, struct ndk_port_counters *counters);

/*
 * Allocate memory the device can reach (page aligned, zeroed, length rounded up to whole
 * pages in buffer->length). Returns NDK_STATUS_SUCCESS, NDK_STATUS_INVALID_PARAMETER (length 0)
 * or NDK_STATUS_INSUFFICIENT_RESOURCES.
 */
ndk_status ndk_alloc_buffer(struct ndk_adapter *adapter, size_t length, struct ndk_buffer *buffer);
/* Free a buffer from ndk_alloc_buffer; the struct is zeroed. NULL or an empty buffer: no-op. */
void ndk_free_buffer(struct ndk_adapter *adapter, struct ndk_buffer *buffer);

/* ---------------------------------------------------------------------------------------------
 * Protection domains and memory
 */

/*
 * Create a protection domain (a 16-bit PD number the device checks on every MR, MW and QP).
 * Returns NDK_STATUS_SUCCESS, NDK_STATUS_INVALID_PARAMETER or
 * NDK_STATUS_INSUFFICIENT_RESOURCES (all PD numbers in use).
 */
ndk_status ndk_create_pd(struct ndk_adapter *adapter, struct ndk_pd **pd);
/*
 * Close a PD. If MRs, MWs or QPs of it are still open, its number stays reserved until the
 * last of them closes (so no new PD can reach their memory).
 */
void ndk_close_pd(struct ndk_pd *pd);
/*
 * The PD's privileged token: SGEs carrying it address logical (device) memory directly, with
 * local read/write rights only, for QPs of this PD. Encoding: 0xFF000000 | pd << 8 | 0xFF,
 * i.e. an MR index of 0xFF0000 | pd, which the MR table (at most 65535 entries) never hands
 * out. 0 for a NULL pd.
 */
uint32_t ndk_get_privileged_token(struct ndk_pd *pd);

/*
 * Create a fast-register MR: reserves an MR/MW table index (MRs and MWs share the table).
 * Returns NDK_STATUS_SUCCESS, NDK_STATUS_INVALID_PARAMETER or
 * NDK_STATUS_INSUFFICIENT_RESOURCES (table full).
 */
ndk_status ndk_create_mr(struct ndk_pd *pd, struct ndk_mr **mr); /* fast-register MR */
/*
 * Prepare an MR for ndk_fast_register of at most adapter_page_count pages: allocates that many
 * translation (MTT) entries and a page-list buffer, and initialises the table entry. An MR
 * initialised without remote_access refuses registrations that ask for remote access.
 * Returns NDK_STATUS_SUCCESS;
 *   NDK_STATUS_INVALID_PARAMETER (NULL mr, page count 0 or above the adapter's MTT size);
 *   NDK_STATUS_INVALID_DEVICE_STATE (the MR was already initialised);
 *   NDK_STATUS_INSUFFICIENT_RESOURCES (no free MTT range of that size, or no memory).
 */
ndk_status ndk_initialize_fast_register_mr(struct ndk_mr *mr, uint32_t adapter_page_count,
					   bool remote_access);
/*
 * Tokens are {table index << 8 | key}; the key changes at every registration, so tokens of an
 * earlier registration stop working. These return the token of the latest registration posted
 * (successful or still pending); the local and remote tokens are the same value. 0 for NULL.
 */
uint32_t ndk_get_local_token_from_mr(struct ndk_mr *mr);
uint32_t ndk_get_remote_token_from_mr(struct ndk_mr *mr);
/*
 * Close an MR: frees its table entry, MTT range and page list. No request may still use it; if a
 * FastRegister of it is still queued anyway, that request fails and the page list it may still
 * read is kept until it completes or its QP is closed (the device never reads freed memory).
 */
void ndk_close_mr(struct ndk_mr *mr);
/*
 * Create a memory window (a table index initialised as a window of the PD).
 * Returns NDK_STATUS_SUCCESS, NDK_STATUS_INVALID_PARAMETER or
 * NDK_STATUS_INSUFFICIENT_RESOURCES (table full).
 */
ndk_status ndk_create_mw(struct ndk_pd *pd, struct ndk_mw **mw);
/* The token of the MW's latest bind (successful or pending); 0 for NULL. */
uint32_t ndk_get_remote_token_from_mw(struct ndk_mw *mw);
/* Close an MW: frees its table entry. No request may still use it. */
void ndk_close_mw(struct ndk_mw *mw);

/* ---------------------------------------------------------------------------------------------
 * Completion queues
 */

/*
 * Create a CQ that holds at least `depth` completions (the ring has 2^ceil(log2(depth))
 * entries). fn may be NULL (a CQ that is only polled). The CQ's interrupt vector is its
 * number modulo the adapter's MSI-X vectors.
 * The consumer index reaches the device through CQ doorbells: one when more than
 * (ring - depth) consumed entries are unpublished at the end of a poll, and at least every
 * ring/2 entries; a depth below a power of two therefore batches those doorbells.
 * Returns NDK_STATUS_SUCCESS;
 *   NDK_STATUS_INVALID_PARAMETER (depth 0 or above max_cq_depth, NULL adapter or cq);
 *   NDK_STATUS_INSUFFICIENT_RESOURCES (all CQs in use, or no memory).
 */
ndk_status ndk_create_cq(struct ndk_adapter *adapter, uint32_t depth, ndk_cq_notification_fn fn,
			 void *context, struct ndk_cq **cq);
/*
 * Close a CQ. No callback of it runs after this returns: called from another thread while its
 * callback runs, it waits until the callback returns; called from inside the callback, the close
 * completes when the callback returns. If QPs still use it, the device object stays until the
 * last of them closes (NDK's "pending" close).
 */
void ndk_close_cq(struct ndk_cq *cq);
/*
 * Dequeue up to `count` completions, in the order the device wrote them; returns how many.
 * Each carries the status, bytes transferred (receives), the QP's context and the request's
 * context, as given when posting. A poll that finds nothing lets a simulated world advance
 * (ndk_sim_config.poll_cycles), so a polling loop makes progress.
 * The consumer serialises ndk_get_cq_results, ndk_get_cq_results_ex and ndk_arm_cq on one CQ
 * (the NDKPI completion handling rule), so this path takes no lock.
 */
size_t ndk_get_cq_results(struct ndk_cq *cq, struct ndk_result *results, size_t count);
/*
 * As ndk_get_cq_results, also giving the operation type (enum ndk_operation_type) and the
 * type-specific output (RECEIVE_AND_INVALIDATE: the token the peer invalidated).
 * Serialised by the consumer with ndk_get_cq_results and ndk_arm_cq on the same CQ: no lock.
 */
size_t ndk_get_cq_results_ex(struct ndk_cq *cq, struct ndk_result_ex *results, size_t count);
/*
 * Arm the CQ's notification: the callback runs once when a completion of the type arrives
 * (ANY: any completion; SOLICITED: a solicited receive or any error; ERRORS: a CQ error only),
 * at once if completions that were not notified yet are already in the CQ. Arming again before
 * it fires merges to the stronger type (ANY > SOLICITED > ERRORS). One doorbell, which also
 * publishes the consumer index. An unknown type is ignored.
 * Serialised by the consumer with ndk_get_cq_results(_ex) on the same CQ: no lock.
 */
void ndk_arm_cq(struct ndk_cq *cq, enum ndk_cq_notify_type type);
/*
 * Interrupt moderation (NdkControlCqInterruptModeration), done by the CQ engine per CQ. Once a
 * completion satisfies an arm, the notification may be held back, at most until
 *   - interval_us microseconds have passed (0 = no moderation at all; 0xFFFFFFFF = no time
 *     bound, count only). The hardware counts in whole microseconds and holds at most 65535:
 *     the hold lasts between interval_us - 1 and interval_us microseconds, and a longer
 *     interval is rounded down to 65535 (NDK allows rounding down);
 *   - count completions were placed in the CQ since its last notification (0 or 1 = no
 *     moderation; 0xFFFFFFFF or a count above the CQ's depth = no count bound, interval only),
 * whichever comes first. A CQ error (overflow) is never held back. The latest settings win and
 * apply to the arm in force. Default: off.
 * Returns NDK_STATUS_SUCCESS; NDK_STATUS_INVALID_PARAMETER (NULL cq);
 * NDK_STATUS_INVALID_PARAMETER_MIX (both interval and count "infinite"); NDK_STATUS_NOT_SUPPORTED
 * on a device without the capability (adapter_flags lacks
 * NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED).
 */
ndk_status ndk_control_cq_interrupt_moderation(struct ndk_cq *cq, uint32_t interval_us,
					       uint32_t count);

/* ---------------------------------------------------------------------------------------------
 * Queue pairs
 */

struct ndk_qp_attr {
	struct ndk_cq *receive_cq;
	struct ndk_cq *initiator_cq;
	void *qp_context;
	uint32_t receive_queue_depth, initiator_queue_depth;
	uint32_t max_receive_request_sge, max_initiator_request_sge;
	uint32_t inline_data_size;
};
struct ndk_qp_address {
	uint8_t mac[6];
	uint32_t ipv4;
	uint32_t qp_number;
};

/*
 * Create a QP. The initiator (send) queue holds at least initiator_queue_depth requests, the
 * receive queue at least receive_queue_depth receives (each ring has 2^ceil(log2(depth))
 * 64-byte WQEs; receive_queue_depth 0 = no receive queue: a receive posted to it gets
 * NDK_STATUS_NO_MORE_ENTRIES). Both CQs must belong to the adapter of the PD; they may be the
 * same CQ. max_initiator_request_sge, max_receive_request_sge and inline_data_size are checked
 * against the adapter's limits. The SGE counts are a minimum the QP gives: posts are held to
 * what the request's WQE holds (see the posting rules); inline_data_size is the most INLINE
 * bytes a post may carry.
 * The QP starts unconnected: local requests (FastRegister, Bind, Invalidate) and receives can
 * be posted; Send, SendAndInvalidate, Write and Read need ndk_connect_qp first.
 * Returns NDK_STATUS_SUCCESS;
 *   NDK_STATUS_INVALID_PARAMETER (NULL pointers, initiator depth 0, any value over its
 *   ndk_adapter_info limit (so a receive queue on a device without the transport), a CQ of
 *   another adapter or a closed one);
 *   NDK_STATUS_INSUFFICIENT_RESOURCES (all QPs in use, or no memory).
 */
ndk_status ndk_create_qp(struct ndk_pd *pd, const struct ndk_qp_attr *attr, struct ndk_qp **qp);
/* Destroy a QP: the device stops it; requests still outstanding produce no more completions. */
void ndk_close_qp(struct ndk_qp *qp);
/*
 * The QP's address for a peer: the port's MAC (mac[0] is the first byte on the wire, MAC[47:40]
 * of PORT_MAC_HI), its IPv4 address as a number (10.0.0.1 = 0x0A000001: PORT_IPV4, whose
 * [31:24] is the first byte on the wire) and the QP number (24 bits on the wire). The port
 * registers are read once, when the adapter opens. A device without the transport has no
 * network address: qp_number is filled, mac and ipv4 are zero, and the call returns
 * NDK_STATUS_NOT_SUPPORTED (NDK_STATUS_INVALID_PARAMETER for NULL pointers).
 */
ndk_status ndk_get_qp_address(struct ndk_qp *qp, struct ndk_qp_address *address);
/*
 * Connect the QP to a peer QP (from the peer's ndk_get_qp_address; the same adapter is fine,
 * see NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED). There is no connection manager: each
 * side connects to the other's address out of band; both start PSNs are 0 (ndk_connect_qp_ex
 * takes others). The path MTU is the
 * adapter's (1024 bytes unless the platform set another). inbound_read_limit = Reads the peer
 * may have outstanding on this QP, outbound_read_limit = Reads this QP may have outstanding
 * (0: it issues none: ndk_read then fails inline with NDK_STATUS_INVALID_DEVICE_STATE).
 * Returns NDK_STATUS_SUCCESS (the QP is connected: it takes every request type);
 *   NDK_STATUS_INVALID_PARAMETER (NULL pointers, a read limit over max_inbound_read_limit /
 *   max_outbound_read_limit, a peer QP number above 24 bits);
 *   NDK_STATUS_NOT_SUPPORTED (a device without the transport, after those checks);
 *   NDK_STATUS_INVALID_DEVICE_STATE (the QP is already connected, or in error: flushed or after
 *   an error completion; a QP connects once, right after it was created).
 */
ndk_status ndk_connect_qp(struct ndk_qp *qp, const struct ndk_qp_address *peer,
			  uint32_t inbound_read_limit, uint32_t outbound_read_limit);

/*
 * Every transport parameter of a connection. ndk_connect_qp(qp, peer, in, out) is
 * ndk_connect_qp_ex with ndk_connect_attr_default and those two limits.
 *
 * What today's device does with each (docs/interop.md):
 * - inbound_read_limit, outbound_read_limit, local_psn, remote_psn: carried to the NIC
 *   (QP_CONNECT) and obeyed. The PSNs are those a peer's connection manager or out-of-band
 *   exchange chose (perftest and ibv_rc_pingpong draw random ones).
 * - rnr_retry: carried to the NIC (QP_CONNECT) and obeyed: after rnr_retry RNR NAKs of one PSN
 *   (each retried after the NAK's timer) the next fails the Send NDK_STATUS_IO_TIMEOUT; 7
 *   retries for ever.
 * - ack_timeout, retry_count: carried to the NIC (QP_CONNECT) and obeyed for Sends and Writes:
 *   after an ACK timeout or a sequence NAK the device sends the outstanding requests again from
 *   the oldest one not acknowledged (go-back-N), retry_count times without progress, then the
 *   request fails NDK_STATUS_IO_TIMEOUT. A lost Read request or response is not recovered yet:
 *   the Read fails NDK_STATUS_IO_TIMEOUT after the retries (docs/transport.md,
 *   "Retransmission").
 */
struct ndk_connect_attr {
	uint32_t inbound_read_limit;  /* as ndk_connect_qp */
	uint32_t outbound_read_limit; /* as ndk_connect_qp */
	uint32_t local_psn;	      /* first PSN this QP sends, 24 bits. default 0 */
	uint32_t remote_psn;	      /* first PSN it expects from the peer, 24 bits. default 0 */
	uint8_t ack_timeout;	      /* IBA Local ACK Timeout: 4.096 us x 2^ack_timeout, 1..31;
					 0 = never time out. default 14 */
	uint8_t retry_count;	      /* retransmissions after a timeout or a sequence-error /
					 implied NAK before the request fails, 0..7. default 7 */
	uint8_t rnr_retry;	      /* RNR NAK retries 0..6; 7 = retry forever (IBA). default 7 */
};
/* Fill attr with the defaults above (read limits 0). NULL: no-op. */
void ndk_connect_attr_default(struct ndk_connect_attr *attr);
/*
 * Connect as ndk_connect_qp, with every parameter of attr. Returns as ndk_connect_qp;
 * NDK_STATUS_INVALID_PARAMETER also for a NULL attr, a PSN above 24 bits, ack_timeout above 31,
 * retry_count or rnr_retry above 7.
 */
ndk_status ndk_connect_qp_ex(struct ndk_qp *qp, const struct ndk_qp_address *peer,
			     const struct ndk_connect_attr *attr);
/*
 * Flush (connected or not): the QP enters the error state; every outstanding request of both
 * queues (deferred ones included: they are indicated to the device first) and every later one
 * completes with NDK_STATUS_CANCELLED, in posting order per queue. A connected QP stays
 * connected for the driver: later posts are accepted and complete CANCELLED.
 */
void ndk_flush(struct ndk_qp *qp);

/*
 * Posting. Common rules of every post below:
 * - NDK_STATUS_SUCCESS: exactly one completion follows (none for a successful
 *   SILENT_SUCCESS request), carrying request_context; completions of a queue come in posting
 *   order. Any other status: no completion, ever, and the request never reaches the device.
 * - Inline failures (checked in this order): NDK_STATUS_INVALID_PARAMETER (NULL pointers, a
 *   flag the request type does not take, malformed arguments), NDK_STATUS_ACCESS_VIOLATION,
 *   NDK_STATUS_DATA_OVERRUN (more SGEs than the request's WQE holds: Send, SendAndInvalidate
 *   and Receive 3, Write and Read 2, whatever the QP's max_*_request_sge: every WQE is a full
 *   slot), NDK_STATUS_BUFFER_OVERFLOW (a message longer than max_transfer_length: the
 *   NetworkDirect status for "more data than the hardware supports"), then for transport
 *   requests NDK_STATUS_NOT_SUPPORTED (a device without the transport) and
 *   NDK_STATUS_CONNECTION_INVALID (a Send, SendAndInvalidate, Write or Read on a QP that is not
 *   connected; receives need no connection), then NDK_STATUS_INVALID_DEVICE_STATE (the
 *   queue's CQ is in error), NDK_STATUS_NO_MORE_ENTRIES (the queue is full: as many requests
 *   outstanding as its ring holds; a silently successful request's slot is freed when a later
 *   completion of the QP's send queue is dequeued).
 * - Before returning any inline failure, every earlier deferred request of that queue is
 *   indicated to the device (the NDKPI deferred processing rule).
 * - NDK_OP_FLAG_DEFER: see its definition above.
 */

/*
 * Post a receive (no flags), connected or not: a wqe_recv with up to 3 SGEs in the receive
 * queue's ring, then one receive-queue doorbell (receives are never deferred). It completes on
 * the receive CQ with bytes_transferred, type NDK_OP_RECEIVE, or NDK_OP_RECEIVE_AND_INVALIDATE
 * with the token the peer's SendAndInvalidate invalidated in type_specific
 * (ndk_get_cq_results_ex; ndk_get_cq_results gives the same completion without the token).
 * Inline failures: INVALID_PARAMETER (NULL qp, no SGE list for nsge > 0), DATA_OVERRUN
 * (nsge > 3), BUFFER_OVERFLOW (the SGE lengths add up to more than max_transfer_length),
 * NOT_SUPPORTED (a device without the transport, after those checks), INVALID_DEVICE_STATE
 * (the receive CQ is in error), NO_MORE_ENTRIES (the receive queue is full, or the QP has none).
 */
ndk_status ndk_receive(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		       uint32_t nsge);
/*
 * Send / SendAndInvalidate (flags: SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT,
 * INLINE, DEFER), Write (SILENT_SUCCESS, READ_FENCE, INLINE, DEFER), Read (SILENT_SUCCESS,
 * READ_FENCE, DEFER; RDMA_READ_LOCAL_INVALIDATE is refused, see below), on a connected QP. The message length is the sum of the SGE lengths (Read: of the sink SGEs).
 * A zero-length message is allowed (a Read of 0 bytes completes after one empty response; its
 * remote token is not checked, as it names no memory).
 * A SendAndInvalidate asks the peer to invalidate remote_token when its receive completes; its
 * own completion has type NDK_OP_SEND.
 * INLINE: the SGEs' bytes (address = a CPU virtual address; tokens are ignored) are copied into
 * the WQE before the call returns, so the buffers may be reused at once. Their total is
 * limited by the QP's inline_data_size (over it, or data at a NULL address:
 * INVALID_PARAMETER), not by the SGE count.
 * Inline failures: the common ones above, INVALID_DEVICE_STATE for a Read on a QP connected
 * with outbound_read_limit 0, and NOT_SUPPORTED for a Read with RDMA_READ_LOCAL_INVALIDATE
 * (the adapter does not set NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED: invalidating
 * the sink's token when the Read completes is not built; it is refused at the place of the
 * device checks, after the argument checks, rather than run without the invalidation). On a device without the transport every call returns
 * NOT_SUPPORTED after the argument checks.
 */
ndk_status ndk_send(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		    uint32_t nsge, uint32_t flags);
ndk_status ndk_send_and_invalidate(struct ndk_qp *qp, void *request_context,
				   const struct ndk_sge *sgl, uint32_t nsge, uint32_t flags,
				   uint32_t remote_token);
ndk_status ndk_write(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		     uint32_t nsge, uint64_t remote_address, uint32_t remote_token, uint32_t flags);
ndk_status ndk_read(struct ndk_qp *qp, void *request_context, const struct ndk_sge *sgl,
		    uint32_t nsge, uint64_t remote_address, uint32_t remote_token, uint32_t flags);
/*
 * FastRegister `length` bytes starting first_byte_offset into the first of
 * adapter_page_count pages (4 KiB aligned logical addresses, copied before returning) at
 * base_virtual_address; the MR gets a new token (ndk_get_*_token_from_mr return it at once).
 * Flags: SILENT_SUCCESS, READ_FENCE, ALLOW_REMOTE_READ, ALLOW_LOCAL_WRITE, ALLOW_REMOTE_WRITE,
 * RDMA_READ_SINK (accepted and ignored: NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED), DEFER.
 * Inline failures: INVALID_PARAMETER (page count 0 or over the count the MR was initialised
 * with, an MR not initialised, a page not 4 KiB aligned, first_byte_offset >= 4096, length 0
 * or beyond the pages, base_virtual_address not first_byte_offset + n * 4096);
 * ACCESS_VIOLATION (remote access asked on an MR initialised without remote access); and the
 * common ones. Each registration of an MR still outstanding keeps its own copy of the page
 * list (the device reads it when it executes the request); when every copy is in use another
 * is allocated, and failing that the post returns INSUFFICIENT_RESOURCES.
 */
ndk_status ndk_fast_register(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr,
			     uint32_t adapter_page_count, const uint64_t *adapter_page_array,
			     uint32_t first_byte_offset, uint64_t length,
			     uint64_t base_virtual_address, uint32_t flags);
/*
 * Bind mw to [virtual_address, virtual_address + length) of mr's current registration; the MW
 * gets a new token. Flags: SILENT_SUCCESS, READ_FENCE, ALLOW_REMOTE_READ, ALLOW_REMOTE_WRITE,
 * DEFER. INVALID_PARAMETER also for length 0, an MR or MW of another adapter. The device
 * checks rights and ranges (errors come as completions).
 */
ndk_status ndk_bind(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr, struct ndk_mw *mw,
		    uint64_t virtual_address, uint64_t length, uint32_t flags);
/*
 * Invalidate the current token of a fast-registered MR / a bound MW.
 * Flags: SILENT_SUCCESS, READ_FENCE, DEFER.
 */
ndk_status ndk_invalidate_mr(struct ndk_qp *qp, void *request_context, struct ndk_mr *mr,
			     uint32_t flags);
ndk_status ndk_invalidate_mw(struct ndk_qp *qp, void *request_context, struct ndk_mw *mw,
			     uint32_t flags);

#ifdef __cplusplus
}
#endif
#endif /* NDK_H */
