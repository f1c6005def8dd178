/* SPDX-License-Identifier: MIT */
/*
 * nicsim: the simulated world behind the sim backend.
 *
 * A world holds one or more Verilated nic_core instances sharing one deterministic clock, and,
 * for each NIC, a host: its memory (only what the driver allocated is reachable by DMA, like an
 * IOMMU), a PCIe timing model (posted MMIO writes, DMA reads of fixed latency + size /
 * bandwidth, DMA writes becoming visible after a delay) and an MSI-X capture (writes into the
 * interrupt window become interrupts, in order with the CQE writes before them).
 *
 * Statistics are observed on the buses by the world itself, never read from the RTL.
 * Everything is deterministic: the same calls give the same cycle counts.
 *
 * C API; the implementation is C++ (sim/nicsim.cpp) and owns the Verilated models.
 */
#ifndef NICSIM_H
#define NICSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nicsim;

struct nicsim_config {
	unsigned nics;	     /* NICs in the world (>= 1) */
	unsigned data_width; /* 64 or 256: which Verilated model */
	uint32_t clock_mhz;
	uint32_t mmio_write_ns; /* posted write reaching the NIC */
	uint32_t mmio_read_ns;	/* full round trip of a (slow-path) MMIO read */
	uint32_t dma_read_ns;	/* fixed part of a DMA read round trip */
	uint32_t dma_write_ns;	/* NIC write becoming visible in host memory */
	uint32_t pcie_mbps;	/* DMA bandwidth, MB/s, each direction */
	uint32_t link_ns;
	uint64_t host_memory_bytes; /* per NIC host */
	uint64_t seed;
	uint64_t cycle_limit;	/* a run past this cycle is a fatal error (hang guard) */
	const char *trace_path; /* FST waveform file, NULL = no tracing */
};

/* what DMA memory is used for: lets the world classify DMA traffic for its statistics */
enum nicsim_mem_kind {
	NICSIM_MEM_DATA = 0, /* buffers, page lists */
	NICSIM_MEM_SQ = 1,   /* send-queue rings: reads from here are WQE fetches */
	NICSIM_MEM_RQ = 2,   /* receive-queue rings */
	NICSIM_MEM_CQ = 3,   /* completion rings: writes here are CQEs */
};

struct nicsim_stats {
	uint64_t mmio_writes, mmio_reads;
	uint64_t sq_doorbells, rq_doorbells, cq_doorbells;
	uint64_t dma_reads, dma_read_bytes;
	uint64_t dma_writes, dma_write_bytes;
	uint64_t wqe_fetch_reads, wqes_fetched;
	uint64_t cqes_written;
	uint64_t interrupts;
	uint64_t frames_sent, frames_received;
};

/* An MSI-X message became visible in host memory order: called from inside nicsim_step. */
typedef void (*nicsim_irq_fn)(void *ctx, unsigned nic, uint64_t address, uint32_t data);

/* 0 or -errno (-EINVAL for a bad config, -ENOMEM) */
int nicsim_create(const struct nicsim_config *config, struct nicsim **world);
void nicsim_destroy(struct nicsim *world);
void nicsim_set_irq_handler(struct nicsim *world, nicsim_irq_fn fn, void *ctx);

uint64_t nicsim_cycle(const struct nicsim *world);
/* Advance every NIC by `cycles` clock cycles. */
void nicsim_step(struct nicsim *world, uint64_t cycles);
/* Host CPU time: advances the clock by ns, carrying fractions of a cycle to the next call. */
void nicsim_host_ns(struct nicsim *world, uint64_t ns);
uint64_t nicsim_ns_to_cycles(const struct nicsim *world, uint64_t ns); /* rounded up */

/* MMIO on NIC `nic`'s BAR0. Writes are posted (queued, delivered in order after mmio_write_ns);
 * a read first drains the posted writes, then steps the world for its round trip. */
void nicsim_mmio_write32(struct nicsim *world, unsigned nic, uint32_t offset, uint32_t value);
uint32_t nicsim_mmio_read32(struct nicsim *world, unsigned nic, uint32_t offset);

/* Host memory the NIC may reach: page aligned, zeroed. 0 or -ENOMEM. */
int nicsim_dma_alloc(struct nicsim *world, unsigned nic, size_t length, enum nicsim_mem_kind kind,
		     void **va, uint64_t *logical);
void nicsim_dma_free(struct nicsim *world, unsigned nic, uint64_t logical);

void nicsim_get_stats(const struct nicsim *world, unsigned nic, struct nicsim_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* NICSIM_H */
