/* SPDX-License-Identifier: MIT */
/*
 * ndk_sim: the simulated world of libndk. One deterministic clock drives one or more Verilated
 * ndknic cores, each with its own host (memory reachable only where the driver allocated it,
 * a PCIe timing model, MSI-X capture). Adapters on it are ordinary ndk.h adapters.
 *
 * Time moves only inside ndk_sim_step, ndk_sim_run_until, empty polls (poll_cycles > 0) and
 * library calls that do host work: host_wqe_ns per WQE built, host_doorbell_ns per doorbell
 * MMIO (send and receive doorbells, CQ consumer-index and arm writes), and the round trip of
 * the slow-path MMIO reads done when an adapter is opened or an object destroyed.
 * A driver call never runs a notification callback: interrupts raised meanwhile are queued and
 * their callbacks run inside ndk_sim_step / ndk_sim_run_until, in the order they were raised.
 * The same seed and config give the same cycle counts, run after run.
 *
 * Worlds are independent objects (several may exist in one process); a world and its adapters
 * are driven from one thread at a time.
 */
#ifndef NDK_SIM_H
#define NDK_SIM_H

#include "ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ndk_sim;

struct ndk_sim_config {
	unsigned nics;		    /* NICs in the world. default 2. One NIC: its port is looped
					back to itself; more: the ports meet in a switch that
					forwards by destination MAC */
	uint32_t clock_mhz;	    /* core clock. default 250 */
	uint32_t mmio_write_ns;	    /* CPU posted write reaching the NIC. default 300 */
	uint32_t dma_read_ns;	    /* fixed part of a DMA read round trip (pcie-bench: ~500) */
	uint32_t dma_write_ns;	    /* NIC write becoming visible in host memory. default 300 */
	uint32_t pcie_mbps;	    /* DMA bandwidth, MB/s, each direction. default 7000 */
	uint32_t link_ns;	    /* one-way latency port to port: a frame reaches the
					destination's RX port this long after its last byte left
					the sender. default 500 */
	uint32_t host_wqe_ns;	    /* CPU time to build one WQE (RAMCloud measured ~30 ns) */
	uint32_t host_doorbell_ns;  /* CPU time of one doorbell MMIO with its barrier (~150 ns) */
	uint32_t poll_cycles;	    /* cycles an empty ndk_get_cq_results costs (default 16 > 0,
					so a polling loop makes progress); 0 = time moves only in
					ndk_sim_step / ndk_sim_run_until */
	uint64_t host_memory_bytes; /* per NIC host. default 256 MiB */
	uint64_t seed;		    /* default 1 */
	const char *trace_path;	    /* FST waveform file, NULL = no tracing. The environment
					variable NDK_SIM_TRACE, when set, overrides it (in
					ndk_sim_default_config and in ndk_sim_create), so any test
					reruns with waves. Only one live world may trace to a path */
	/* additions */
	unsigned data_width;   /* DMA / stream width of the cores: 64 or 256. default 256 (keeps
					up with pcie_mbps at 250 MHz);
					the environment variable NDK_SIM_WIDTH overrides the
					default */
	uint32_t mmio_read_ns; /* round trip of a (slow-path) MMIO read. default 1000 */
	uint64_t cycle_limit;  /* running past this cycle is a fatal error (hang guard).
					default 2000000000; NDK_SIM_CYCLE_LIMIT overrides the
					default */
	uint32_t link_mbps;    /* each TX port's link rate in MB/s of frame bytes (no preamble,
					FCS or gap): bytes per cycle = link_mbps / clock_mhz; a
					link slower than the stream back-pressures it. default
					12500 (100 Gb/s); 0 is refused */
	const char *pcap_path; /* capture every frame, once, when its last byte leaves the
					sender, to this pcap file (Ethernet, nanosecond
					timestamps of simulated time); NULL = no capture. The
					environment variable NDK_SIM_PCAP, when set, overrides it
					(in ndk_sim_default_config and in ndk_sim_create). The file
					is complete when the world is destroyed; a file that cannot
					be created refuses the world (the reason on stderr) */
	uint32_t path_mtu;     /* payload bytes per packet of the QPs connected on this world's
					adapters: 256, 512, 1024, 2048 or 4096. default 1024;
					anything else is refused */
	/* faults on the links (docs/bad-input.md "The network's faults"), drawn per frame from
	   seed, independently for every link and direction: the same seed gives the same
	   faults, run after run. All default 0 (a perfect network). Each rate is a probability
	   per frame, 0..1 (anything else, NaN included, is refused); the kinds are tried in the
	   order drop, corrupt, duplicate, reorder and the first that hits decides. */
	double drop_rate;	/* the frame is lost */
	double corrupt_rate;	/* one bit of the frame is flipped (the receiver's ICRC check
				   then drops it) */
	double duplicate_rate;	/* the frame arrives twice */
	double reorder_rate;	/* the frame is held back behind up to reorder_depth later
				   frames of its link */
	uint32_t reorder_depth; /* default 4; 0 is refused while reorder_rate is above 0 */
};

struct ndk_sim_stats { /* observed on the buses by the harness, not by the RTL */
	uint64_t mmio_writes, mmio_reads;
	uint64_t sq_doorbells;		    /* MMIO writes to send-queue doorbells */
	uint64_t rq_doorbells;		    /* MMIO writes to receive-queue doorbells */
	uint64_t cq_doorbells;		    /* MMIO writes to CQ doorbells (consumer index / arm) */
	uint64_t dma_reads, dma_read_bytes; /* read requests issued by the NIC */
	uint64_t dma_writes, dma_write_bytes;
	uint64_t wqe_fetch_reads; /* DMA reads that carried send-queue WQEs */
	uint64_t wqes_fetched;	  /* send-queue WQEs the NIC read */
	uint64_t cqes_written;
	uint64_t interrupts;		       /* MSI-X messages */
	uint64_t frames_sent, frames_received; /* frames whose last byte left this NIC's TX port /
						  whose last beat its RX port accepted */
	/* additions */
	uint64_t frames_dropped; /* frames this NIC sent to a MAC no port of the switch has */
	/* faults injected on frames this NIC sent (by the rates or the fault hook) */
	uint64_t faults_dropped, faults_corrupted, faults_duplicated, faults_reordered;
};

/* What happens to one frame. */
enum ndk_sim_fault {
	NDK_SIM_FRAME_DELIVER = 0,
	NDK_SIM_FRAME_DROP,
	NDK_SIM_FRAME_CORRUPT,
	NDK_SIM_FRAME_DUPLICATE,
	/* addition: held back behind 1..reorder_depth later frames of its link (drawn; 1 when
	   reorder_depth is 0) */
	NDK_SIM_FRAME_REORDER,
};
/*
 * Called for every frame when it enters the switch (loopback included; not for a frame to a
 * MAC no port has), after the random faults were drawn: its answer replaces theirs. frame is
 * the whole Ethernet frame as sent (no FCS; valid only during the call). It runs inside the
 * world's clock: it must not call into the world or its adapters. An answer that is not an
 * enum ndk_sim_fault is a fatal error of the world.
 */
typedef enum ndk_sim_fault (*ndk_sim_fault_fn)(void *arg, unsigned from_nic, unsigned to_nic,
					       const uint8_t *frame, size_t bytes);
void ndk_sim_set_fault_hook(struct ndk_sim *sim, ndk_sim_fault_fn fn, void *arg); /* NULL: off */

/* Fill config with the defaults listed above (and the environment overrides). */
void ndk_sim_default_config(struct ndk_sim_config *config);
/*
 * Create a world. Returns NDK_STATUS_SUCCESS; NDK_STATUS_INVALID_PARAMETER (NULL pointers,
 * nics 0, clock_mhz 0, link_mbps 0, data_width other than 64 or 256, a path_mtu that is not a
 * power of two in 256..4096, a fault rate outside 0..1 or NaN, reorder_depth 0 with
 * reorder_rate above 0, a pcap file that cannot be created, or another config the world
 * refuses; the reason is printed on stderr);
 * NDK_STATUS_INSUFFICIENT_RESOURCES (no memory).
 */
ndk_status ndk_sim_create(const struct ndk_sim_config *config, struct ndk_sim **sim);
/*
 * Destroy a world; adapters still open on it are closed first. Not for the world of an
 * adapter opened as "sim" (ndk_close_adapter destroys that one). NULL: no-op.
 */
void ndk_sim_destroy(struct ndk_sim *sim);
/*
 * Open an adapter on NIC `nic` (0-based) of the world. Returns NDK_STATUS_SUCCESS;
 * NDK_STATUS_INVALID_PARAMETER (NULL pointers, nic out of range); NDK_STATUS_INVALID_DEVICE_STATE
 * (that NIC already has an open adapter); or a probe failure as ndk_open_adapter.
 */
ndk_status ndk_sim_open_adapter(struct ndk_sim *sim, unsigned nic, struct ndk_adapter **adapter);
struct ndk_sim *ndk_sim_of(struct ndk_adapter *adapter); /* the world of a simulated adapter
							       (also one opened as "sim"); NULL otherwise */
/* the world's clock, in core cycles since it was created */
uint64_t ndk_sim_cycle(const struct ndk_sim *sim);
/*
 * Advance every NIC; interrupts become notification callbacks here, serialised per CQ: those
 * queued before the call first, then after every cycle those raised in it.
 */
void ndk_sim_step(struct ndk_sim *sim, uint64_t cycles);
/*
 * Step until done(arg) is true (checked every cycle, after that cycle's callbacks, and once
 * before the first cycle) or max_cycles pass; returns done(arg).
 */
bool ndk_sim_run_until(struct ndk_sim *sim, bool (*done)(void *arg), void *arg,
		       uint64_t max_cycles);
/* Statistics of NIC `nic` (all zero for a nic out of range or a NULL pointer). */
void ndk_sim_get_stats(const struct ndk_sim *sim, unsigned nic, struct ndk_sim_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* NDK_SIM_H */
