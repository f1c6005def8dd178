/* SPDX-License-Identifier: MIT */
/*
 * The backend ops table: everything the driver core needs from the thing behind BAR0.
 * The driver core (ndk_*.c) calls only these; it never knows whether a Verilated NIC (sim) or
 * a PCIe device (pci, through libpciaccess) answers.
 *
 * Internal convention: 0 or a negative errno; the public API converts once, at its boundary.
 */
#ifndef NDK_BACKEND_H
#define NDK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

enum ndk_host_cost {		       /* CPU work the sim backend charges as time */
		     NDK_COST_WQE = 0, /* building one WQE (host_wqe_ns) */
		     NDK_COST_DOORBELL =
			     1, /* one doorbell MMIO with its barrier (host_doorbell_ns) */
};

enum ndk_dma_kind { /* what the memory is for (the sim backend counts DMA traffic by it) */
		    NDK_DMA_DATA = 0,
		    NDK_DMA_SQ = 1,
		    NDK_DMA_RQ = 2,
		    NDK_DMA_CQ = 3,
};

struct ndk_backend_ops {
	const char *name;
	/* posted 32-bit write to BAR0 */
	void (*mmio_write32)(void *dev, uint32_t offset, uint32_t value);
	/* non-posted read: slow path only (probe, state queries), never on the fast path */
	uint32_t (*mmio_read32)(void *dev, uint32_t offset);
	/* device-reachable memory, page aligned and zeroed */
	int (*dma_alloc)(void *dev, size_t length, enum ndk_dma_kind kind, void **va,
			 uint64_t *logical);
	void (*dma_free)(void *dev, void *va, uint64_t logical, size_t length);
	/* the CPU did `count` units of work `what` (sim: the clock moves; pci: nothing). The driver
	 * charges a doorbell before issuing its MMIO write. */
	void (*host_cost)(void *dev, enum ndk_host_cost what, uint32_t count);
	/* a poll found nothing (sim: the clock moves poll_cycles so polling loops progress) */
	void (*idle_poll)(void *dev);
	void (*close)(void *dev);
};

#endif /* NDK_BACKEND_H */
