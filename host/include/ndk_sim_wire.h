/* SPDX-License-Identifier: MIT */
/*
 * ndk_sim_wire: a simulated NIC's Ethernet port on a real network, so ndknic meets another
 * RoCEv2 implementation (Linux's rdma_rxe in a QEMU guest: docs/interop.md).
 *
 * The wire is a pair of UDP sockets' worth of datagrams, one Ethernet frame (without FCS) per
 * datagram, unchanged both ways: what QEMU's `-netdev dgram` and `-netdev socket,udp=` carry
 * for a guest's NIC. Inside the world the wire is a port of the switch: one NIC of the world
 * (`port_nic`, by default the last; no adapter should open it) stands for it.
 * - Out: every frame another NIC of the world sends to a MAC no NIC of the world has (the
 *   switch's "dropped" frames: ndk_sim_stats.frames_dropped counts them too) leaves as one
 *   datagram to `remote` when its last byte leaves the NIC; so does every frame sent to
 *   port_nic's own MAC, when port_nic's RX accepted it (two wired worlds then reach each other:
 *   tests/cosim_wire.c).
 * - In: every datagram arriving at `local` enters the world as a frame sent by `port_nic`
 *   (nicsim_port_inject): the switch delivers it by destination MAC (to NIC 0 for
 *   02:00:00:00:00:01); frames for no NIC of the world (broadcast ARP, ...) are dropped there.
 * Both directions are captured by the world's pcap (ndk_sim_config.pcap_path) like any frame.
 *
 * Time: the guest lives in real time, the world in simulated time. ndk_sim_wire_poll keeps
 * the world's clock from running ahead of real time (since the wire opened) by more than
 * `ahead_ns`: when it has, the call sleeps on the socket until real time catches up or a frame
 * arrives. A world that steps in large idle chunks (the quiescence skip) therefore idles the
 * CPU instead of racing its clock ahead; a busy world runs slower than real time (~100x), so the
 * peer sees the NIC's latencies stretched by that factor (rxe's ACK timeout, 4.096 us x 2^14 =
 * 67 ms by default, is far above them). ndknic itself has no timer that real time could starve.
 */
#ifndef NDK_SIM_WIRE_H
#define NDK_SIM_WIRE_H

#include "ndk_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ndk_sim_wire;

struct ndk_sim_wire_config {
	const char *local;  /* "IPV4:PORT" the wire's socket binds to (port 0: any) */
	const char *remote; /* "IPV4:PORT" frames are sent to; NULL: the source of the first
			       datagram received (frames sent before that are counted lost) */
	unsigned port_nic;  /* the NIC standing for the wire. default: the world's last */
	uint32_t out_kbps;  /* frames leave at most at this rate in real time, kB/s (token bucket;
			       frames wait in a queue of the wire, outside the world): a guest whose
			       kernel drops what it cannot take fast enough (QEMU's socket netdev with a
			       full virtio ring) loses nothing, and ndknic has no loss recovery yet.
			       default 0: no limit */
	uint32_t out_burst; /* frames that may leave back to back. default 64 */
	uint32_t ahead_ns;  /* how far the simulated clock may run ahead of real time.
			       default 1000000 (1 ms) */
};

struct ndk_sim_wire_stats {
	uint64_t frames_out, bytes_out; /* datagrams sent */
	uint64_t frames_in, bytes_in;	/* datagrams received and injected */
	uint64_t frames_refused;	/* datagrams not injected: no Ethernet frame (under 14
					   or over 16384 bytes), or addressed to port_nic itself */
	uint64_t frames_lost;		/* frames not sent: no remote yet, sendto failed, or the
					   paced queue (65536 frames) full */
	uint64_t frames_queued_max;	/* the paced queue's high-water mark */
	uint64_t waits, wait_ns;	/* sleeps of ndk_sim_wire_poll and their real time */
};

void ndk_sim_wire_default_config(struct ndk_sim_wire_config *config);
/*
 * Open the wire on a world of at least 2 NICs. Returns NDK_STATUS_SUCCESS;
 * NDK_STATUS_INVALID_PARAMETER (NULL pointers, a world of one NIC, port_nic out of range, an
 * address that is not IPV4:PORT); NDK_STATUS_INVALID_DEVICE_STATE
 * (the socket cannot be bound: the reason on stderr); NDK_STATUS_INSUFFICIENT_RESOURCES.
 * The world's frame hook (sim/nicsim.h nicsim_set_frame_handler) belongs to the wire until it
 * closes.
 */
ndk_status ndk_sim_wire_open(struct ndk_sim *sim, const struct ndk_sim_wire_config *config,
			     struct ndk_sim_wire **wire);
/* Close the wire (before the world is destroyed). NULL: no-op. */
void ndk_sim_wire_close(struct ndk_sim_wire *wire);
/* the UDP port the wire's socket is bound to (useful with port 0) */
uint16_t ndk_sim_wire_local_port(const struct ndk_sim_wire *wire);
/*
 * Send the paced frames that are due, inject every datagram waiting on the socket, then pace:
 * if the world's clock is more than
 * ahead_ns ahead of real time, sleep on the socket (at most max_sleep_us) and inject what
 * arrives. Call it from every waiting loop of a program on a wired world. Returns the number of
 * frames injected.
 */
unsigned ndk_sim_wire_poll(struct ndk_sim_wire *wire, uint32_t max_sleep_us);
void ndk_sim_wire_get_stats(const struct ndk_sim_wire *wire, struct ndk_sim_wire_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* NDK_SIM_WIRE_H */
