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
 * The NICs' AXI-Stream ports meet in a network (sim/nicsim_net.cpp, docs/transport.md "The
 * harness's network", docs/timing-model.md): one NIC is looped back to itself; several meet in
 * a switch that forwards by destination MAC. Each TX port is a link of link_mbps; a frame
 * reaches its destination link_ns after its last byte left. Frames can be captured to a pcap
 * file. The network is perfect unless faults are asked for: drop, corrupt, duplicate and reorder
 * rates (drawn per frame from the seed, per link and direction), and a per-frame hook.
 *
 * Statistics are observed on the buses by the world itself, never read from the RTL.
 * Everything is deterministic: the same calls give the same cycle counts.
 *
 * C API; the implementation is C++ (sim/nicsim.cpp, the world, on the parts in sim/: model
 * adaptor, quiescence, host memory, PCIe host model, network) and owns the Verilated models.
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
	uint32_t link_mbps; /* each TX port's link rate, MB/s of frame bytes; 0 = 12500 (100 Gb/s) */
	const char *pcap_path; /* capture every frame to this pcap file; NULL or "" = none */
	/* faults on the links (docs/bad-input.md "The network's faults"): probabilities per frame,
	 * 0..1, drawn from seed independently for every link and direction; all 0 = a perfect
	 * network. nicsim_create / nicsim_net_create refuse (-EINVAL, the reason on stderr) a
	 * rate outside 0..1 or NaN, and reorder_depth 0 with reorder_rate above 0. */
	double drop_rate;	/* the frame is lost */
	double corrupt_rate;	/* one bit the receiver's checks cover is flipped */
	double duplicate_rate;	/* the frame arrives twice, back to back */
	double reorder_rate;	/* held back behind up to reorder_depth later frames of its link */
	uint32_t reorder_depth; /* 1.. (the world's default is 4) */
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
	uint64_t frames_sent;	  /* frames whose last byte left this NIC's TX port */
	uint64_t frames_received; /* frames whose last beat this NIC's RX port accepted */
	uint64_t frames_dropped;  /* frames this NIC sent to a MAC no port of the switch has */
	/* faults injected on frames this NIC sent (rates or hook) */
	uint64_t faults_dropped, faults_corrupted, faults_duplicated, faults_reordered;
	/* the harness: cycles the model was evaluated in (the quiescence skip, docs/sim-speed.md) */
	uint64_t model_evals;
};

/* An MSI-X message became visible in host memory order: called from inside nicsim_step. */
typedef void (*nicsim_irq_fn)(void *ctx, unsigned nic, uint64_t address, uint32_t data);

/* 0 or -errno (-EINVAL for a bad config, including a pcap file that cannot be created: the
 * reason is printed on stderr; -ENOMEM) */
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
/* the same with byte strobes strb[3:0] (tests of partial writes; the driver never makes one) */
void nicsim_mmio_write32_strb(struct nicsim *world, unsigned nic, uint32_t offset, uint32_t value,
			      uint32_t strb);
uint32_t nicsim_mmio_read32(struct nicsim *world, unsigned nic, uint32_t offset);

/* Host memory the NIC may reach: page aligned, zeroed. 0 or -ENOMEM. */
int nicsim_dma_alloc(struct nicsim *world, unsigned nic, size_t length, enum nicsim_mem_kind kind,
		     void **va, uint64_t *logical);
void nicsim_dma_free(struct nicsim *world, unsigned nic, uint64_t logical);

void nicsim_get_stats(const struct nicsim *world, unsigned nic, struct nicsim_stats *stats);

/* Test hook (fault injection): NIC `nic`'s DMA bursts in one direction (write = 0: reads,
 * 1: writes) that overlap [addr, addr + len) are answered with AXI SLVERR, as the board's PCIe
 * interface answers a completion error or a completion timeout: a failed read returns SLVERR on
 * every beat and zeros, a failed write lands nowhere (no memory change, no interrupt) and its
 * B response is SLVERR. The first `skip` matching bursts are served normally, then `count`
 * fail (0: every later one). len 0 removes the direction's rule. -EINVAL for a bad nic. */
int nicsim_dma_fault(struct nicsim *world, unsigned nic, int write, uint64_t addr, uint64_t len,
		     unsigned skip, unsigned count);

/* Test hook: NIC `nic`'s MSI-X Message Control as the PCIe configuration space would give it:
 * masked != 0 is MSI-X disabled or the function masked (nic_core's msix_fn_masked_i; 0, enabled
 * and unmasked, unless a test sets it). -EINVAL for a bad nic. */
int nicsim_msix_function_mask(struct nicsim *world, unsigned nic, int masked);

/* ---- the network: capture, and hooks for tests ------------------------------------------- */

/* The pcap file this world captures to (its own copy of the path), NULL when not capturing. */
const char *nicsim_pcap_path(const struct nicsim *world);
/*
 * Write what the capture buffered so far to the file. 0, or -errno of the first write error
 * (the capture stops at that error; the error is also printed on stderr, once). The file is
 * flushed and closed by nicsim_destroy, which reports a failure on stderr. 0 when not capturing.
 */
int nicsim_pcap_flush(struct nicsim *world);

/*
 * Harness test hook: queue `len` bytes (a whole Ethernet frame without FCS, 14..16384 bytes) on
 * NIC `nic`'s TX port as if that NIC had transmitted it. It takes the same path as a frame of
 * the RTL: the link's serialization (after the frame the RTL may be sending, before the next
 * one), the switch, the statistics, the pcap capture and the destination's RX port. It starts
 * serializing in the next cycle the world runs. 0, or -EINVAL (no such NIC, bad length).
 */
int nicsim_port_inject(struct nicsim *world, unsigned nic, const uint8_t *bytes, size_t len);

enum nicsim_frame_event {
	NICSIM_FRAME_SENT = 0,	  /* its last byte left NIC `nic`'s TX port (pcap records it) */
	NICSIM_FRAME_DROPPED = 1, /* just sent by `nic` to a MAC no port has: the switch drops it */
	NICSIM_FRAME_RECEIVED = 2, /* NIC `nic`'s RX port accepted its last beat; the bytes are
				      those of the beats it accepted (TKEEP lanes) */
};
/*
 * Harness test hook: called from inside nicsim_step for every frame event, with the cycle it
 * happened in (the world's clock while that cycle runs) and the frame's bytes (valid only during
 * the call). For one frame: SENT, then DROPPED or, later, RECEIVED.
 */
typedef void (*nicsim_frame_fn)(void *ctx, enum nicsim_frame_event event, unsigned nic,
				uint64_t cycle, const uint8_t *frame, size_t len);
void nicsim_set_frame_handler(struct nicsim *world, nicsim_frame_fn fn, void *ctx);

/* What happens to one frame on its way through the switch (the values of ndk_sim.h's
 * enum ndk_sim_fault). */
enum nicsim_fault {
	NICSIM_FRAME_DELIVER = 0,
	NICSIM_FRAME_DROP = 1,
	NICSIM_FRAME_CORRUPT = 2,
	NICSIM_FRAME_DUPLICATE = 3,
	NICSIM_FRAME_REORDER = 4,
};
/*
 * Harness test hook: called from inside nicsim_step for every frame the switch forwards
 * (loopback included; not for a frame to an unknown MAC), when its last byte left the sender,
 * after the random faults were drawn for it: the answer replaces the drawn fault. frame is the
 * whole frame as sent (valid only during the call). Any other answer is a fatal error of the
 * world. NULL: no hook.
 */
typedef enum nicsim_fault (*nicsim_fault_fn)(void *arg, unsigned from_nic, unsigned to_nic,
					     const uint8_t *frame, size_t len);
void nicsim_set_fault_hook(struct nicsim *world, nicsim_fault_fn fn, void *arg);

/* ---- the network alone, for unit tests of the link model ---------------------------------- */
/*
 * The same network a world uses, without Verilated models: the test plays every NIC's stream
 * ports. Per cycle it sets each port's nicsim_stream_out as the DUT's outputs would stand
 * before the rising edge, then calls nicsim_net_cycle(cycle), which takes the handshakes of
 * that edge (out against the nicsim_stream_in of the previous call) and computes the next
 * nicsim_stream_in. Cycles are counted by the caller, one call per cycle, increasing by one.
 */
struct nicsim_stream_out { /* a NIC's outputs: its TX stream and its RX ready */
	bool tx_tvalid, tx_tlast;
	uint32_t tx_tkeep;    /* bit i: byte i valid (contiguous from byte 0) */
	uint8_t tx_tdata[32]; /* byte i = bits 8i+7..8i of TDATA */
	bool rx_tready;
};
struct nicsim_stream_in { /* what the harness drives: TX ready and the RX stream */
	bool tx_tready;
	bool rx_tvalid, rx_tlast;
	uint32_t rx_tkeep;
	uint8_t rx_tdata[32];
};
struct nicsim_net;
/* from config: nics (ports), data_width, clock_mhz, link_mbps, link_ns, pcap_path, seed and the
 * faults. 0 or -EINVAL */
int nicsim_net_create(const struct nicsim_config *config, struct nicsim_net **net);
void nicsim_net_destroy(struct nicsim_net *net);
struct nicsim_stream_out *nicsim_net_port_out(struct nicsim_net *net, unsigned port);
const struct nicsim_stream_in *nicsim_net_port_in(const struct nicsim_net *net, unsigned port);
/* NULL, or the message of a stream protocol error of the test's "DUT" (a world makes it fatal) */
const char *nicsim_net_cycle(struct nicsim_net *net, uint64_t cycle);
int nicsim_net_inject(struct nicsim_net *net, unsigned port, const uint8_t *bytes, size_t len);
void nicsim_net_set_frame_handler(struct nicsim_net *net, nicsim_frame_fn fn, void *ctx);
void nicsim_net_set_fault_hook(struct nicsim_net *net, nicsim_fault_fn fn, void *arg);
/* only the frame and fault counters are filled in */
void nicsim_net_get_stats(const struct nicsim_net *net, unsigned port, struct nicsim_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* NICSIM_H */
