// SPDX-License-Identifier: MIT
/*
 * ndk_sim_wire (ndk_sim_wire.h): a simulated world's switch port on UDP datagrams, one
 * Ethernet frame each, paced so the simulated clock never runs ahead of real time.
 */
#define _GNU_SOURCE /* ppoll, SOCK_NONBLOCK */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backend_sim.h"
#include "ndk_internal.h"
#include "ndk_sim_wire.h"
#include "nicsim.h"

#define WIRE_MIN_FRAME 14
#define WIRE_MAX_FRAME 16384
#define WIRE_QUEUE     65536 /* frames the paced queue holds */

struct wire_frame_buf {
	uint16_t len;
	uint8_t *bytes;
};

struct ndk_sim_wire {
	struct ndk_sim *sim;
	int fd;
	unsigned port_nic;
	uint8_t port_mac[6];
	bool have_remote;
	struct sockaddr_in remote;
	uint32_t ahead_ns;
	/* the paced queue (out_kbps != 0): a ring of frames, a token bucket in bytes */
	uint32_t out_kbps, out_burst;
	struct wire_frame_buf *q;
	size_t q_head, q_used;
	double tokens;
	struct timespec refill;
	uint64_t start_cycle;
	struct timespec start;
	struct ndk_sim_wire_stats stats;
	uint8_t rx[WIRE_MAX_FRAME + 1];
};

void ndk_sim_wire_default_config(struct ndk_sim_wire_config *config)
{
	if (!config)
		return;
	memset(config, 0, sizeof(*config));
	config->port_nic = UINT32_MAX;
	config->ahead_ns = 1000000;
	config->out_burst = 64;
}

/* "a.b.c.d:port" -> sin; 0 or -EINVAL */
static int parse_addr(const char *text, struct sockaddr_in *sin)
{
	char host[64];
	const char *colon = text ? strrchr(text, ':') : NULL;
	char *end;
	unsigned long port;

	if (!colon || (size_t)(colon - text) >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = 0;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port > 65535)
		return -EINVAL;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return -EINVAL;
	return 0;
}

static void wire_send(struct ndk_sim_wire *w, const uint8_t *frame, size_t len)
{
	if (!w->have_remote || sendto(w->fd, frame, len, 0, (const struct sockaddr *)&w->remote,
				      sizeof(w->remote)) != (ssize_t)len) {
		w->stats.frames_lost++;
		return;
	}
	w->stats.frames_out++;
	w->stats.bytes_out += len;
}

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec);
}

/* the paced queue: send what the token bucket allows now */
static void wire_drain_out(struct ndk_sim_wire *w)
{
	struct timespec now;
	const double cap = (double)w->out_burst * (WIRE_MAX_FRAME < 1600 ? WIRE_MAX_FRAME : 1600);

	if (!w->out_kbps || !w->q_used)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* kB/s = bytes per ms = 1e-6 bytes per ns */
	w->tokens += (double)ns_between(&w->refill, &now) * (double)w->out_kbps * 1e-6;
	if (w->tokens > cap)
		w->tokens = cap;
	w->refill = now;
	while (w->q_used && w->tokens >= (double)w->q[w->q_head].len) {
		struct wire_frame_buf *f = &w->q[w->q_head];
		w->tokens -= f->len;
		wire_send(w, f->bytes, f->len);
		free(f->bytes);
		f->bytes = NULL;
		w->q_head = (w->q_head + 1) % WIRE_QUEUE;
		w->q_used--;
	}
}

/* a frame a NIC of the world sent to no NIC of the world, or to port_nic: onto the wire */
static void wire_frame(void *ctx, enum nicsim_frame_event event, unsigned nic, uint64_t cycle,
		       const uint8_t *frame, size_t len)
{
	struct ndk_sim_wire *w = ctx;

	(void)cycle;
	/* the wire's own port sends only what came from the wire: never echo it back (frames
	   from the wire to port_nic itself are refused at the injection) */
	if (!(event == NICSIM_FRAME_DROPPED && nic != w->port_nic) &&
	    !(event == NICSIM_FRAME_RECEIVED && nic == w->port_nic))
		return;
	if (!w->out_kbps) {
		wire_send(w, frame, len);
		return;
	}
	struct wire_frame_buf *f = &w->q[(w->q_head + w->q_used) % WIRE_QUEUE];
	if (w->q_used == WIRE_QUEUE || !(f->bytes = malloc(len))) {
		w->stats.frames_lost++;
		return;
	}
	memcpy(f->bytes, frame, len);
	f->len = (uint16_t)len;
	w->q_used++;
	if (w->q_used > w->stats.frames_queued_max)
		w->stats.frames_queued_max = w->q_used;
	wire_drain_out(w);
}

ndk_status ndk_sim_wire_open(struct ndk_sim *sim, const struct ndk_sim_wire_config *config,
			     struct ndk_sim_wire **wire)
{
	struct sockaddr_in local;
	struct ndk_sim_wire *w;

	if (!sim || !config || !wire || sim->config.nics < 2 || parse_addr(config->local, &local) ||
	    (config->port_nic != UINT32_MAX && config->port_nic >= sim->config.nics))
		return NDK_STATUS_INVALID_PARAMETER;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	if (config->remote) {
		if (parse_addr(config->remote, &w->remote)) {
			free(w);
			return NDK_STATUS_INVALID_PARAMETER;
		}
		w->have_remote = true;
	}
	w->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd < 0 || bind(w->fd, (const struct sockaddr *)&local, sizeof(local)) != 0) {
		fprintf(stderr, "ndk_sim_wire: cannot bind UDP %s: %s\n", config->local,
			strerror(errno));
		if (w->fd >= 0)
			close(w->fd);
		free(w);
		return NDK_STATUS_INVALID_DEVICE_STATE;
	}
	/* the peer may send while this program is busy elsewhere (an out-of-band exchange, a
	   burst of the world's steps): room for a few thousand frames (root may exceed rmem_max) */
	{
		int bytes = 8 << 20;
		if (setsockopt(w->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) != 0)
			setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
	}
	w->sim = sim;
	w->port_nic = config->port_nic == UINT32_MAX ? sim->config.nics - 1 : config->port_nic;
	/* docs/transport.md: NIC i has the MAC 02:00:00:00:00:(i+1) */
	w->port_mac[0] = 0x02;
	w->port_mac[5] = (uint8_t)(w->port_nic + 1);
	w->ahead_ns = config->ahead_ns;
	w->out_kbps = config->out_kbps;
	w->out_burst = config->out_burst ? config->out_burst : 1;
	if (w->out_kbps) {
		w->q = calloc(WIRE_QUEUE, sizeof(*w->q));
		if (!w->q) {
			close(w->fd);
			free(w);
			return NDK_STATUS_INSUFFICIENT_RESOURCES;
		}
		clock_gettime(CLOCK_MONOTONIC, &w->refill);
	}
	w->start_cycle = ndk_sim_cycle(sim);
	clock_gettime(CLOCK_MONOTONIC, &w->start);
	nicsim_set_frame_handler(sim->world, wire_frame, w);
	*wire = w;
	return NDK_STATUS_SUCCESS;
}

void ndk_sim_wire_close(struct ndk_sim_wire *wire)
{
	if (!wire)
		return;
	nicsim_set_frame_handler(wire->sim->world, NULL, NULL);
	/* what the paced queue still holds leaves now (the peer may be waiting for it) */
	while (wire->q_used) {
		wire_drain_out(wire);
		if (wire->q_used)
			usleep(100);
	}
	free(wire->q);
	close(wire->fd);
	free(wire);
}

uint16_t ndk_sim_wire_local_port(const struct ndk_sim_wire *wire)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (!wire || getsockname(wire->fd, (struct sockaddr *)&sin, &len) != 0)
		return 0;
	return ntohs(sin.sin_port);
}

/* every datagram waiting: into the world */
static unsigned wire_drain(struct ndk_sim_wire *w)
{
	unsigned n = 0;

	for (;;) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		ssize_t len =
			recvfrom(w->fd, w->rx, sizeof(w->rx), 0, (struct sockaddr *)&from, &flen);
		if (len < 0)
			return n; /* EAGAIN: nothing more (other errors: nothing to read either) */
		if (!w->have_remote) {
			w->remote = from;
			w->have_remote = true;
		}
		if (len < WIRE_MIN_FRAME || len > WIRE_MAX_FRAME ||
		    memcmp(w->rx, w->port_mac, sizeof(w->port_mac)) == 0 ||
		    nicsim_port_inject(w->sim->world, w->port_nic, w->rx, (size_t)len) != 0) {
			w->stats.frames_refused++;
			continue;
		}
		w->stats.frames_in++;
		w->stats.bytes_in += (uint64_t)len;
		n++;
	}
}

static int64_t ns_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - t0->tv_sec) * 1000000000 + (now.tv_nsec - t0->tv_nsec);
}

unsigned ndk_sim_wire_poll(struct ndk_sim_wire *wire, uint32_t max_sleep_us)
{
	struct ndk_sim_wire *w = wire;
	unsigned n;
	int64_t sim_ns, ahead;

	if (!w)
		return 0;
	wire_drain_out(w);
	n = wire_drain(w);
	sim_ns = (int64_t)((ndk_sim_cycle(w->sim) - w->start_cycle) * 1000 /
			   w->sim->config.clock_mhz);
	ahead = sim_ns - ns_since(&w->start) - (int64_t)w->ahead_ns;
	/* frames waiting for their time: sleep no longer than the next one's */
	if (n == 0 && w->q_used && ahead > 20000)
		ahead = 20000;
	if (n == 0 && ahead > 0) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		struct timespec t0;
		int64_t sleep_ns = ahead;
		if (sleep_ns > (int64_t)max_sleep_us * 1000)
			sleep_ns = (int64_t)max_sleep_us * 1000;
		struct timespec to = { .tv_sec = sleep_ns / 1000000000,
				       .tv_nsec = sleep_ns % 1000000000 };
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ppoll(&p, 1, &to, NULL);
		w->stats.waits++;
		w->stats.wait_ns += (uint64_t)ns_since(&t0);
		n = wire_drain(w);
	}
	return n;
}

void ndk_sim_wire_get_stats(const struct ndk_sim_wire *wire, struct ndk_sim_wire_stats *stats)
{
	if (!stats)
		return;
	if (!wire) {
		memset(stats, 0, sizeof(*stats));
		return;
	}
	*stats = wire->stats;
}
