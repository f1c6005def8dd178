/* SPDX-License-Identifier: MIT */
/*
 * ndk_wired.h: what the interop programs (tools/ndk_rc_pingpong.c, ndkperf's --server /
 * --peer modes) share: one simulated NIC whose port is wired to a real network
 * (ndk_sim_wire.h), one RC QP on it with a registered region, bounded waiting loops that
 * keep the wire pumped, the TCP helpers of the out-of-band exchanges, and RoCEv2 GIDs
 * (IPv4-mapped IPv6, as rxe derives them from the interface's address).
 *
 * Everything here is static: each program includes it once.
 */
#ifndef NDK_WIRED_H
#define NDK_WIRED_H

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ndk.h"
#include "ndk_sim.h"
#include "ndk_sim_wire.h"

/* QEMU's default MAC of a guest's first NIC; the interop guest sets it explicitly */
#define WIRED_DEFAULT_PEER_MAC "52:54:00:12:34:56"

struct wired_opts {
	const char *wire_local;	 /* --wire-local IP:PORT (default 127.0.0.1:18600) */
	const char *wire_remote; /* --wire-remote IP:PORT (default: learnt from the first frame) */
	const char *pcap;	 /* --pcap FILE */
	uint8_t peer_mac[6];	 /* --peer-mac: the peer's Ethernet address (no ARP on ndknic) */
	uint32_t mtu;		 /* --mtu (default 1024) */
	uint64_t seed;		 /* --seed: the world's seed and the PSNs this side draws */
	unsigned timeout_s;	 /* --timeout: the whole run, real seconds (default 120) */
	uint32_t wire_kbps;	 /* --wire-kbps: frames leave at most at this real-time rate
				    (ndk_sim_wire_config.out_kbps; default 0: no limit) */
	unsigned nic;		 /* --nic 0|1: the NIC this side uses (default 0); the other one
				    stands for the wire (two ndknic sides on one host use 0 and 1) */
	uint32_t sq_depth, rq_depth, region_bytes;
};

struct wired {
	const char *prog;
	struct wired_opts o;
	struct ndk_sim *sim;
	struct ndk_sim_wire *wire;
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct ndk_pd *pd;
	struct ndk_cq *scq, *rcq;
	struct ndk_qp *qp;
	struct ndk_buffer buf; /* region_bytes: what the peer reads, writes and sends into */
	struct ndk_mr *mr;
	uint32_t priv;
	struct ndk_qp_address me;
	time_t deadline;
};

static struct wired *wired_current; /* for wired_fail's report */

static void wired_report(void)
{
	struct wired *w = wired_current;
	if (!w || !w->sim)
		return;
	struct ndk_sim_wire_stats s;
	struct ndk_sim_stats n;
	ndk_sim_wire_get_stats(w->wire, &s);
	ndk_sim_get_stats(w->sim, w->o.nic, &n);
	fprintf(stderr,
		"%s: cycle %" PRIu64 "; wire: %" PRIu64 " frames out, %" PRIu64 " in, %" PRIu64
		" refused, %" PRIu64 " lost; NIC: %" PRIu64 " sent, %" PRIu64 " received\n",
		w->prog, ndk_sim_cycle(w->sim), s.frames_out, s.frames_in, s.frames_refused,
		s.frames_lost, n.frames_sent, n.frames_received);
}

static void __attribute__((noreturn, format(printf, 1, 2))) wired_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", wired_current ? wired_current->prog : "ndk");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	wired_report();
	/* the capture is complete only when the world is destroyed */
	if (wired_current && wired_current->sim) {
		ndk_sim_wire_close(wired_current->wire);
		ndk_sim_destroy(wired_current->sim);
	}
	exit(1);
}

static void wired_check(const char *what, ndk_status st)
{
	if (st != NDK_STATUS_SUCCESS)
		wired_fail("%s: %s", what, ndk_status_name(st));
}

static int wired_parse_mac(const char *text, uint8_t mac[6])
{
	unsigned b[6];
	if (sscanf(text, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

static void wired_default_opts(struct wired_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->wire_local = "127.0.0.1:18600";
	wired_parse_mac(WIRED_DEFAULT_PEER_MAC, o->peer_mac);
	o->mtu = 1024;
	o->seed = 1;
	o->timeout_s = 120;
	o->sq_depth = 128;
	o->rq_depth = 512;
	o->region_bytes = 256 * 1024;
}

/* RoCEv2 GID of an IPv4 address (::ffff:a.b.c.d), raw bytes in wire order */
static void wired_gid_of_ipv4(uint32_t ipv4, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = (uint8_t)(ipv4 >> 24);
	gid[13] = (uint8_t)(ipv4 >> 16);
	gid[14] = (uint8_t)(ipv4 >> 8);
	gid[15] = (uint8_t)ipv4;
}

/* the IPv4 address of an IPv4-mapped GID; -1 for any other GID */
static int wired_ipv4_of_gid(const uint8_t gid[16], uint32_t *ipv4)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (memcmp(gid, prefix, sizeof(prefix)) != 0)
		return -1;
	*ipv4 = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 |
		gid[15];
	return 0;
}

/* One NIC, its port on the wire, one QP, one registered region. */
static void wired_open(struct wired *w, const char *prog, const struct wired_opts *o)
{
	struct ndk_sim_config c;
	struct ndk_sim_wire_config wc;

	memset(w, 0, sizeof(*w));
	w->prog = prog;
	w->o = *o;
	wired_current = w;
	w->deadline = time(NULL) + o->timeout_s;
	ndk_sim_default_config(&c);
	c.nics = 2; /* one NIC is ours, the other stands for the wire */
	c.seed = o->seed;
	c.path_mtu = o->mtu;
	c.pcap_path = o->pcap ? o->pcap : c.pcap_path;
	c.cycle_limit = UINT64_MAX / 2; /* real time (timeout_s) bounds the run */
	wired_check("ndk_sim_create", ndk_sim_create(&c, &w->sim));
	ndk_sim_wire_default_config(&wc);
	wc.local = o->wire_local;
	wc.remote = o->wire_remote;
	wc.port_nic = 1 - o->nic;
	wc.out_kbps = o->wire_kbps;
	wc.out_burst = 16; /* a few frames back to back: QEMU's socket netdev buffers ~100 */
	wired_check("ndk_sim_wire_open", ndk_sim_wire_open(w->sim, &wc, &w->wire));
	wired_check("open adapter", ndk_sim_open_adapter(w->sim, o->nic, &w->ad));
	wired_check("adapter info", ndk_query_adapter_info(w->ad, &w->info));
	wired_check("create pd", ndk_create_pd(w->ad, &w->pd));
	w->priv = ndk_get_privileged_token(w->pd);
	wired_check("create send cq", ndk_create_cq(w->ad, o->sq_depth + 1, NULL, NULL, &w->scq));
	wired_check("create receive cq", ndk_create_cq(w->ad, o->rq_depth, NULL, NULL, &w->rcq));
	struct ndk_qp_attr a = {
		.receive_cq = w->rcq,
		.initiator_cq = w->scq,
		.qp_context = w,
		.receive_queue_depth = o->rq_depth,
		.initiator_queue_depth = o->sq_depth,
		.max_receive_request_sge = 1,
		.max_initiator_request_sge = 1,
	};
	wired_check("create qp", ndk_create_qp(w->pd, &a, &w->qp));
	wired_check("qp address", ndk_get_qp_address(w->qp, &w->me));
	wired_check("alloc buffer", ndk_alloc_buffer(w->ad, o->region_bytes, &w->buf));
	memset(w->buf.va, 0, o->region_bytes);
	/* the whole buffer as a region the peer may write and read, at its own VA */
	const uint32_t npages = o->region_bytes / NDK_PAGE_SIZE;
	uint64_t *pages = calloc(npages, sizeof(*pages));
	if (!pages)
		wired_fail("out of memory");
	for (uint32_t i = 0; i < npages; i++)
		pages[i] = w->buf.logical + (uint64_t)i * NDK_PAGE_SIZE;
	wired_check("create mr", ndk_create_mr(w->pd, &w->mr));
	wired_check("initialize mr", ndk_initialize_fast_register_mr(w->mr, npages, true));
	wired_check("fast register",
		    ndk_fast_register(w->qp, NULL, w->mr, npages, pages, 0, o->region_bytes,
				      (uint64_t)(uintptr_t)w->buf.va,
				      NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
					      NDK_OP_FLAG_ALLOW_REMOTE_READ));
	free(pages);
	struct ndk_result_ex r;
	while (ndk_get_cq_results_ex(w->scq, &r, 1) == 0)
		ndk_sim_step(w->sim, 1);
	if (r.status != NDK_STATUS_SUCCESS)
		wired_fail("fast register: %s", ndk_status_name(r.status));
}

static void wired_close(struct wired *w)
{
	if (w->qp)
		ndk_close_qp(w->qp);
	if (w->mr)
		ndk_close_mr(w->mr);
	if (w->scq)
		ndk_close_cq(w->scq);
	if (w->rcq)
		ndk_close_cq(w->rcq);
	if (w->buf.va)
		ndk_free_buffer(w->ad, &w->buf);
	if (w->pd)
		ndk_close_pd(w->pd);
	if (w->ad)
		ndk_close_adapter(w->ad);
	ndk_sim_wire_close(w->wire);
	ndk_sim_destroy(w->sim);
	wired_current = NULL;
}

/* let a little time pass: the world steps, the wire moves frames, the deadline holds */
static void wired_idle(struct wired *w, const char *what)
{
	ndk_sim_step(w->sim, 16);
	ndk_sim_wire_poll(w->wire, 200);
	if (time(NULL) > w->deadline)
		wired_fail("%s: nothing within the run's %u s", what, w->o.timeout_s);
}

/* up to max completions of cq, waiting for at least one; an error status ends the run */
static size_t wired_wait(struct wired *w, struct ndk_cq *cq, struct ndk_result_ex *r, size_t max,
			 const char *what)
{
	size_t n;
	while ((n = ndk_get_cq_results_ex(cq, r, max)) == 0)
		wired_idle(w, what);
	for (size_t i = 0; i < n; i++)
		if (r[i].status != NDK_STATUS_SUCCESS)
			wired_fail("%s: completion %s (type %u)", what,
				   ndk_status_name(r[i].status), r[i].type);
	return n;
}

/* connect our QP to the peer: its QPN, its first PSN, its IPv4 (from its GID) */
static void wired_connect(struct wired *w, uint32_t peer_qpn, uint32_t peer_psn, uint32_t peer_ip,
			  uint32_t my_psn, uint32_t read_limit)
{
	struct ndk_qp_address peer = { .ipv4 = peer_ip, .qp_number = peer_qpn };
	struct ndk_connect_attr a;
	memcpy(peer.mac, w->o.peer_mac, 6);
	ndk_connect_attr_default(&a);
	a.local_psn = my_psn;
	a.remote_psn = peer_psn;
	a.inbound_read_limit = read_limit < w->info.max_inbound_read_limit ?
				       read_limit :
				       w->info.max_inbound_read_limit;
	a.outbound_read_limit = read_limit < w->info.max_outbound_read_limit ?
					read_limit :
					w->info.max_outbound_read_limit;
	wired_check("connect", ndk_connect_qp_ex(w->qp, &peer, &a));
}

/* ---- TCP for the out-of-band exchanges (blocking; the peer waits for us meanwhile) ------- */

static int oob_connect(const char *host, unsigned port, time_t deadline)
{
	char service[16];
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res, *t;
	snprintf(service, sizeof(service), "%u", port);
	int rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0)
		wired_fail("%s:%u: %s", host, port, gai_strerror(rc));
	/* the server may not listen yet: retry until the deadline */
	for (;;) {
		for (t = res; t; t = t->ai_next) {
			int fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
			if (fd < 0)
				continue;
			if (connect(fd, t->ai_addr, t->ai_addrlen) == 0) {
				int one = 1;
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				freeaddrinfo(res);
				return fd;
			}
			close(fd);
		}
		if (time(NULL) > deadline)
			wired_fail("cannot connect to %s:%u: %s", host, port, strerror(errno));
		usleep(100000);
	}
}

static int oob_accept(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		wired_fail("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0)
		wired_fail("listen on TCP port %u: %s", port, strerror(errno));
	printf("waiting for the peer on TCP port %u\n", port);
	fflush(stdout);
	int c = accept(fd, NULL, NULL);
	if (c < 0)
		wired_fail("accept: %s", strerror(errno));
	close(fd);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return c;
}

/* exactly n bytes, or fail: the tools send each message with one write() and read it with
   one read() of its full size, which a stream socket does not promise: loop */
static void oob_read(int fd, void *buf, size_t n, const char *what)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r <= 0)
			wired_fail("out-of-band %s: %s after %zu of %zu bytes", what,
				   r == 0 ? "the peer closed" : strerror(errno), got, n);
		got += (size_t)r;
	}
}

static void oob_write(int fd, const void *buf, size_t n, const char *what)
{
	if (write(fd, buf, n) != (ssize_t)n)
		wired_fail("out-of-band %s: write: %s", what, strerror(errno));
}

#endif /* NDK_WIRED_H */
