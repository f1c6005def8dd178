/* SPDX-License-Identifier: MIT */
/*
 * ndkperf: perftest-style latency and bandwidth tests over libndk, on a simulated pair of
 * NICs (docs/ndkperf.md is its manual page); with --server or --peer HOST, one side of a run
 * against perftest itself on a real network (tools/ndkperf_perftest.h, docs/interop.md).
 *
 *   ndkperf send_lat|send_bw|write_lat|write_bw|read_lat [options]
 *
 * Both hosts live in this process, in one simulated world: NIC 0 is the client (it measures),
 * NIC 1 the server. Every time is simulated time: cycles of the world's clock, reported in
 * microseconds at the configured clock_mhz, exact and repeatable.
 *
 * The two hosts share the world's one timeline: host work the library charges (WQEs,
 * doorbells, empty polls) advances every NIC. The server's work is therefore kept out of the
 * timed loop where the test allows it (receives are posted before the clock starts), so a
 * bandwidth run measures the client and the NICs, not a second CPU that does not exist.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ndk.h"
#include "ndk_sim.h"

#define EXIT_USAGE	 2
#define EXIT_UNSUPPORTED 3

/* the interop modes: --server / --peer HOST against perftest on a real network */
#include "ndkperf_perftest.h"

/* a completion that does not come within this many cycles is a hang: stop with a message */
#define HANG_CYCLES 50000000ull

enum test { SEND_LAT, SEND_BW, WRITE_LAT, WRITE_BW, READ_LAT, TEST_COUNT };
static const char *const test_name[TEST_COUNT] = { "send_lat", "send_bw", "write_lat", "write_bw",
						   "read_lat" };
static const char *const test_title[TEST_COUNT] = { "Send Latency Test", "Send BW Test",
						    "RDMA_Write Latency Test", "RDMA_Write BW Test",
						    "RDMA_Read Latency Test" };

static bool is_bw(enum test t)
{
	return t == SEND_BW || t == WRITE_BW;
}

struct options {
	enum test test;
	uint32_t size;	    /* -s */
	uint32_t iters;	    /* -n */
	uint32_t post_list; /* -l */
	uint32_t cq_mod;    /* -Q */
	bool cq_mod_given;
	bool events;	     /* -e */
	int64_t inline_size; /* -I; < 0: the test's default */
	uint32_t tx_depth;   /* -t */
	bool json;
	/* the connection (ndk_connect_qp_ex): the client's attributes; the server's PSNs mirror */
	struct ndk_connect_attr attr;
	bool port_counters; /* --port-counters: read them on a lossless run too */
};

/* a CQ with what event mode needs: the callback clears `armed` and raises `event` */
struct cqw {
	struct ndk_cq *cq;
	bool armed, event;
	uint64_t callbacks;
};

/* one host: its adapter, a send CQ and a receive CQ, the QP, and two buffers: `src` (local
 * reads: the source of sends and writes, reached with the PD's privileged token) and `dst`
 * (what the peer targets: receives land there, writes and reads reach it through `mr`) */
struct side {
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct cqw scq, rcq;
	struct ndk_qp *qp;
	struct ndk_buffer src, dst;
	struct ndk_mr *mr;
	uint32_t priv;
	uint32_t rq_depth, recv_posted;
	uint32_t sends_outstanding;
};

struct perf {
	struct options o;
	struct ndk_sim_config cfg;
	struct ndk_sim *sim;
	struct ndk_adapter_info info;
	struct side s[2]; /* 0: client, 1: server */
	uint32_t inline_size;
	uint32_t buf_bytes;
	/* progress on stderr */
	bool progress;
	int progress_shown;
	/* the network's faults (--drop ...): lossy runs read the port counters and print the
	 * loss report, also when the run fails */
	bool lossy, counters_on;
	struct ndk_port_counters pc0[2]; /* the port counters before the run */
};

static struct perf *g_perf; /* for the loss report of a failing run */
static void loss_report(FILE *f, const struct perf *p);

static const char *prog = "ndkperf";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s TEST [options]\n"
		"  TEST: send_lat | send_bw | write_lat | write_bw | read_lat\n"
		"  -s, --size=BYTES        message size (default 2 for *_lat, 65536 for *_bw)\n"
		"  -n, --iters=N           iterations, at least 5 (default 1000 for *_lat, 5000 for *_bw)\n"
		"  -l, --post_list=N       requests chained per doorbell (DEFER), *_bw only (default 1)\n"
		"  -Q, --cq-mod=N          a completion every N requests (SILENT_SUCCESS between), *_bw only\n"
		"                          (default 100, lowered to fit tx depth and post list)\n"
		"  -e, --events            wait for CQ notifications instead of polling (not write_lat)\n"
		"  -I, --inline_size=BYTES payloads up to BYTES are posted INLINE (default: the device's\n"
		"                          maximum for send_lat / write_lat, 0 otherwise)\n"
		"  -t, --tx-depth=N        send queue depth (default 128)\n"
		"      --json              machine-readable output on stdout instead of the tables\n"
		"  simulation:\n"
		"      --width=64|256      data width of the cores (default: ndk_sim's, 256 or NDK_SIM_WIDTH)\n"
		"      --mtu=BYTES         path MTU 256..4096 (default 1024)\n"
		"      --link-gbps=G       link rate, Gbit/s of frame bytes (default 100)\n"
		"      --clock-mhz=MHZ     core clock (default 250)\n"
		"      --poll-cycles=N     cycles an empty poll costs (default 0: polled every cycle)\n"
		"      --seed=N            the world's seed: the faults drawn (default 1)\n"
		"  the network's faults (probabilities per frame, 0..1, each link and direction):\n"
		"      --drop=P  --corrupt=P  --duplicate=P  --reorder=P\n"
		"      --reorder-depth=N   a reordered frame waits behind up to N later ones (default 4)\n"
		"      --port-counters     read the NICs' port counters on a lossless run too\n"
		"  the connection (ndk_connect_qp_ex):\n"
		"      --ack-timeout=T     local ACK timeout 4.096 us x 2^T, 0..31, 0 = none (default 14)\n"
		"      --retry-count=N     retransmissions before a request fails, 0..7 (default 7)\n"
		"      --rnr-retry=N       RNR NAK retries 0..6, 7 = forever (default 7)\n"
		"      --local-psn=PSN     the client's first PSN, 24 bits (default 0)\n"
		"      --remote-psn=PSN    the server's first PSN, 24 bits (default 0)\n"
		"  -h, --help              this text\n"
		"exit status: 0 done, 1 the run failed, 2 usage error, 3 the core lacks the operation\n",
		prog);
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(%s --help lists the options)\n", prog);
	exit(EXIT_USAGE);
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	struct perf *q = g_perf;
	g_perf = NULL; /* once: the report's own failure ends here */
	if (q)
		loss_report(stderr, q);
	exit(EXIT_FAILURE);
}

static void check(const char *what, ndk_status st)
{
	if (st != NDK_STATUS_SUCCESS)
		fail("%s: %s", what, ndk_status_name(st));
}

/* a decimal number in [min, max] for option `name`, or a usage error */
static uint64_t number(const char *name, const char *text, uint64_t min, uint64_t max)
{
	char *end;
	errno = 0;
	if (!text || !*text || *text == '-')
		usage_error("%s: '%s' is not a number", name, text ? text : "");
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end)
		usage_error("%s: '%s' is not a number", name, text);
	if (v < min || v > max)
		usage_error("%s: %llu is out of range (%" PRIu64 "..%" PRIu64 ")", name, v, min,
			    max);
	return v;
}

/* a probability per frame for option `name`, or a usage error */
static double probability(const char *name, const char *text)
{
	char *end;
	errno = 0;
	if (!text || !*text)
		usage_error("%s: '' is not a probability", name);
	double v = strtod(text, &end);
	if (errno || *end || !(v >= 0.0 && v <= 1.0))
		usage_error("%s: '%s' is not a probability (0 to 1, per frame)", name, text);
	return v;
}

/* ---------------------------------------------------------------------------------------------
 * Progress bar: on stderr, only when stderr is a terminal (a log or a pipe gets none)
 */

static void progress(struct perf *p, uint64_t done, uint64_t total)
{
	if (!p->progress || !total)
		return;
	int pct = (int)(done * 100 / total);
	if (pct == p->progress_shown)
		return;
	p->progress_shown = pct;
	const int width = 40;
	int fill = pct * width / 100;
	fprintf(stderr, "\r%s [%.*s%*s] %3d%%", test_name[p->o.test], fill,
		"########################################", width - fill, "", pct);
	if (done >= total)
		fprintf(stderr, "\r%*s\r", width + 20, "");
	fflush(stderr);
}

/* ---------------------------------------------------------------------------------------------
 * Completions
 */

static void cq_callback(void *context, ndk_status cq_status)
{
	struct cqw *w = context;
	(void)cq_status; /* an overflow would show up as an error completion or a hang */
	w->armed = false;
	w->event = true;
	w->callbacks++;
}

static bool event_raised(void *arg)
{
	return ((struct cqw *)arg)->event;
}

static void deadline_check(struct perf *p, uint64_t deadline, const char *what)
{
	if (ndk_sim_cycle(p->sim) > deadline)
		fail("cycle %" PRIu64 ": %s did not complete within %llu cycles",
		     ndk_sim_cycle(p->sim), what, HANG_CYCLES);
}

/* dequeue up to `max` completions without waiting; any error status ends the run */
static size_t cq_take(struct cqw *w, struct ndk_result_ex *r, size_t max, const char *what)
{
	size_t n = ndk_get_cq_results_ex(w->cq, r, max);
	for (size_t i = 0; i < n; i++)
		if (r[i].status != NDK_STATUS_SUCCESS)
			fail("%s: completion status %s (type %u)", what,
			     ndk_status_name(r[i].status), r[i].type);
	return n;
}

/* When nothing is there: let time pass until something may be. Polling: one cycle (or the
 * empty poll already cost poll_cycles). Events: arm the CQ once, poll again (a completion may
 * have come before the arm), then sleep in the world until the callback runs. */
static void cq_idle(struct perf *p, struct cqw *w, uint64_t deadline, const char *what)
{
	if (p->o.events) {
		if (!w->armed) {
			w->armed = true;
			w->event = false;
			ndk_arm_cq(w->cq, NDK_CQ_NOTIFY_ANY);
			return;
		}
		uint64_t now = ndk_sim_cycle(p->sim);
		if (!ndk_sim_run_until(p->sim, event_raised, w,
				       deadline > now ? deadline - now : 1))
			deadline_check(p, deadline, what);
		w->event = false;
		return;
	}
	if (!p->cfg.poll_cycles)
		ndk_sim_step(p->sim, 1);
	deadline_check(p, deadline, what);
}

/* Wait for at least one completion; *seen = the cycle it was visible to the host (the cycle
 * before the poll that returned it: that call's own host work comes after). */
static size_t cq_wait(struct perf *p, struct cqw *w, struct ndk_result_ex *r, size_t max,
		      uint64_t *seen, const char *what)
{
	uint64_t deadline = ndk_sim_cycle(p->sim) + HANG_CYCLES;
	for (;;) {
		uint64_t before = ndk_sim_cycle(p->sim);
		size_t n = cq_take(w, r, max, what);
		if (n) {
			if (seen)
				*seen = before;
			return n;
		}
		cq_idle(p, w, deadline, what);
	}
}

/* ---------------------------------------------------------------------------------------------
 * Set-up
 */

static void side_open(struct perf *p, unsigned nic, uint32_t rq_depth)
{
	struct side *s = &p->s[nic];
	check("create pd", ndk_create_pd(s->ad, &s->pd));
	s->priv = ndk_get_privileged_token(s->pd);
	/* a send CQ deep enough for every request the queue holds plus the registration */
	check("create send cq",
	      ndk_create_cq(s->ad, p->o.tx_depth + 1, cq_callback, &s->scq, &s->scq.cq));
	check("create receive cq",
	      ndk_create_cq(s->ad, rq_depth ? rq_depth : 1, cq_callback, &s->rcq, &s->rcq.cq));
	struct ndk_qp_attr a = {
		.receive_cq = s->rcq.cq,
		.initiator_cq = s->scq.cq,
		.qp_context = s,
		.receive_queue_depth = rq_depth,
		.initiator_queue_depth = p->o.tx_depth,
		.max_receive_request_sge = 1,
		.max_initiator_request_sge = 1,
		.inline_data_size = p->inline_size,
	};
	check("create qp", ndk_create_qp(s->pd, &a, &s->qp));
	s->rq_depth = rq_depth;
	check("alloc buffer", ndk_alloc_buffer(s->ad, p->buf_bytes, &s->src));
	check("alloc buffer", ndk_alloc_buffer(s->ad, p->buf_bytes, &s->dst));
	memset(s->src.va, 0, p->buf_bytes);
	memset(s->dst.va, 0, p->buf_bytes);

	/* `dst` as a region the peer may write and read (remote token), registered before the
	 * connection: a fast register is a local request */
	uint32_t npages = p->buf_bytes / NDK_PAGE_SIZE;
	uint64_t pages[64];
	for (uint32_t i = 0; i < npages; i++)
		pages[i] = s->dst.logical + (uint64_t)i * NDK_PAGE_SIZE;
	check("create mr", ndk_create_mr(s->pd, &s->mr));
	check("initialize mr", ndk_initialize_fast_register_mr(s->mr, npages, true));
	check("fast register",
	      ndk_fast_register(s->qp, NULL, s->mr, npages, pages, 0, p->buf_bytes,
				(uint64_t)(uintptr_t)s->dst.va,
				NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ));
	struct ndk_result_ex r;
	cq_wait(p, &s->scq, &r, 1, NULL, "fast register");
}

static void side_close(struct side *s)
{
	if (s->qp)
		ndk_close_qp(s->qp);
	if (s->mr)
		ndk_close_mr(s->mr);
	if (s->scq.cq)
		ndk_close_cq(s->scq.cq);
	if (s->rcq.cq)
		ndk_close_cq(s->rcq.cq);
	if (s->src.va)
		ndk_free_buffer(s->ad, &s->src);
	if (s->dst.va)
		ndk_free_buffer(s->ad, &s->dst);
	if (s->pd)
		ndk_close_pd(s->pd);
	if (s->ad)
		ndk_close_adapter(s->ad);
}

static void read_unsupported(void)
{
	fprintf(stderr,
		"%s: read not supported by this core: its CAP_TRANSPORT does not advertise RDMA Read "
		"(max_outbound_read_limit is 0)\n",
		prog);
	exit(EXIT_UNSUPPORTED);
}

static void connect_pair(struct perf *p)
{
	struct ndk_qp_address a0, a1;
	check("qp address", ndk_get_qp_address(p->s[0].qp, &a0));
	check("qp address", ndk_get_qp_address(p->s[1].qp, &a1));
	/* Reads: as many outstanding as the device allows (a device without Reads allows 0) */
	uint32_t rd = p->info.max_outbound_read_limit < p->info.max_inbound_read_limit ?
			      p->info.max_outbound_read_limit :
			      p->info.max_inbound_read_limit;
	struct ndk_connect_attr c = p->o.attr, s = p->o.attr;
	c.inbound_read_limit = c.outbound_read_limit = rd;
	s.inbound_read_limit = s.outbound_read_limit = rd;
	s.local_psn = c.remote_psn;
	s.remote_psn = c.local_psn;
	check("connect", ndk_connect_qp_ex(p->s[0].qp, &a1, &c));
	check("connect", ndk_connect_qp_ex(p->s[1].qp, &a0, &s));
}

static void post_receive(struct side *s, uint32_t size)
{
	struct ndk_sge g = { .address = s->dst.logical, .length = size, .token = s->priv };
	check("receive", ndk_receive(s->qp, NULL, &g, 1));
	s->recv_posted++;
}

/* ---------------------------------------------------------------------------------------------
 * Posting
 */

/* the local SGE of a send or write of `size` bytes: the CPU's copy when INLINE */
static uint32_t source_sge(struct perf *p, struct side *s, struct ndk_sge *g)
{
	uint32_t size = p->o.size;
	if (size <= p->inline_size) {
		*g = (struct ndk_sge){ .address = (uint64_t)(uintptr_t)s->src.va, .length = size };
		return NDK_OP_FLAG_INLINE;
	}
	*g = (struct ndk_sge){ .address = s->src.logical, .length = size, .token = s->priv };
	return 0;
}

static ndk_status post_one(struct perf *p, struct side *s, struct side *peer, void *ctx,
			   uint32_t flags)
{
	struct ndk_sge g;
	switch (p->o.test) {
	case SEND_LAT:
	case SEND_BW:
		flags |= source_sge(p, s, &g);
		return ndk_send(s->qp, ctx, &g, 1, flags);
	case WRITE_LAT:
	case WRITE_BW:
		flags |= source_sge(p, s, &g);
		return ndk_write(s->qp, ctx, &g, 1, (uint64_t)(uintptr_t)peer->dst.va,
				 ndk_get_remote_token_from_mr(peer->mr), flags);
	case READ_LAT:
		/* the data lands in the local `dst`, reached with the privileged token */
		g = (struct ndk_sge){ .address = s->dst.logical,
				      .length = p->o.size,
				      .token = s->priv };
		return ndk_read(s->qp, ctx, &g, 1, (uint64_t)(uintptr_t)peer->dst.va,
				ndk_get_remote_token_from_mr(peer->mr), flags);
	default:
		return NDK_STATUS_INTERNAL_ERROR;
	}
}

/* ---------------------------------------------------------------------------------------------
 * Results
 */

struct counters {
	struct ndk_sim_stats nic[2];
};

static void counters_take(struct perf *p, struct counters *c)
{
	for (unsigned i = 0; i < 2; i++)
		ndk_sim_get_stats(p->sim, i, &c->nic[i]);
}

static void counters_diff(struct counters *d, const struct counters *a, const struct counters *b)
{
	for (unsigned i = 0; i < 2; i++) {
		const uint64_t *x = (const uint64_t *)&a->nic[i], *y = (const uint64_t *)&b->nic[i];
		uint64_t *z = (uint64_t *)&d->nic[i];
		for (size_t k = 0; k < sizeof(struct ndk_sim_stats) / sizeof(uint64_t); k++)
			z[k] = y[k] - x[k];
	}
}

struct bw_result {
	uint64_t cycles; /* first post to the last completion seen */
	double peak_bytes_per_cycle;
};

struct lat_result {
	double *cycles; /* one per iteration (half round trips for send_lat and write_lat) */
	double min, typical, max, avg, stdev, p99, p999;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void lat_stats(struct lat_result *l, uint32_t n)
{
	double sum = 0, sq = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += l->cycles[i];
	l->avg = sum / n;
	for (uint32_t i = 0; i < n; i++)
		sq += (l->cycles[i] - l->avg) * (l->cycles[i] - l->avg);
	l->stdev = sqrt(sq / n);
	qsort(l->cycles, n, sizeof(double), cmp_double);
	l->min = l->cycles[0];
	l->max = l->cycles[n - 1];
	l->typical = l->cycles[n / 2];
	/* the sample below which 99 % (99.9 %) of them lie, as perftest picks it */
	l->p99 = l->cycles[(size_t)ceil(n * 0.99) - 1];
	l->p999 = l->cycles[(size_t)ceil(n * 0.999) - 1];
}

/* ---------------------------------------------------------------------------------------------
 * Latency tests
 */

/* Drain the send CQ of `s` without waiting (the signaled sends of a ping-pong complete behind
 * the peer's answer); when the queue is full, wait for one. */
static void sends_reap(struct perf *p, struct side *s)
{
	struct ndk_result_ex r[64];
	size_t n;
	while (s->sends_outstanding && (n = cq_take(&s->scq, r, 64, "send")) > 0)
		s->sends_outstanding -= (uint32_t)n;
	while (s->sends_outstanding >= p->o.tx_depth) {
		n = cq_wait(p, &s->scq, r, 64, NULL, "send");
		s->sends_outstanding -= (uint32_t)n;
	}
}

static void replenish(struct perf *p, struct side *s, uint32_t received)
{
	/* keep at least half the ring posted, topping it up off the measured path */
	while (s->recv_posted - received < s->rq_depth / 2 + 1 && s->recv_posted < p->o.iters)
		post_receive(s, p->o.size);
}

static void post_checked(struct perf *p, struct side *s, struct side *peer, uint32_t flags)
{
	ndk_status st = post_one(p, s, peer, NULL, flags);
	if (st == NDK_STATUS_NOT_SUPPORTED && p->o.test == READ_LAT)
		read_unsupported();
	check(test_name[p->o.test], st);
	s->sends_outstanding++;
}

/* wait for the byte `tag` at the end of the peer's write into `s`: the host polls its memory */
static uint64_t wait_tag(struct perf *p, struct side *s, uint8_t tag)
{
	volatile uint8_t *last = (volatile uint8_t *)s->dst.va + p->o.size - 1;
	uint64_t deadline = ndk_sim_cycle(p->sim) + HANG_CYCLES;
	while (*last != tag) {
		ndk_sim_step(p->sim, 1);
		deadline_check(p, deadline, "write");
	}
	return ndk_sim_cycle(p->sim);
}

static void run_lat(struct perf *p, struct lat_result *l)
{
	struct side *a = &p->s[0], *b = &p->s[1];
	uint32_t n = p->o.iters;
	struct ndk_result_ex r;
	l->cycles = calloc(n, sizeof(double));
	if (!l->cycles)
		fail("out of memory");
	uint32_t a_received = 0, b_received = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t tag = (uint8_t)(i % 255 + 1);
		((uint8_t *)a->src.va)[p->o.size - 1] = tag;
		((uint8_t *)b->src.va)[p->o.size - 1] = tag;
		uint64_t t0 = ndk_sim_cycle(p->sim), t1;
		switch (p->o.test) {
		case SEND_LAT:
			post_checked(p, a, b, 0);
			cq_wait(p, &b->rcq, &r, 1, NULL, "receive");
			b_received++;
			post_checked(p, b, a, 0);
			cq_wait(p, &a->rcq, &r, 1, &t1, "receive");
			a_received++;
			l->cycles[i] = (double)(t1 - t0) / 2;
			replenish(p, a, a_received);
			replenish(p, b, b_received);
			break;
		case WRITE_LAT:
			post_checked(p, a, b, 0);
			wait_tag(p, b, tag);
			post_checked(p, b, a, 0);
			t1 = wait_tag(p, a, tag);
			l->cycles[i] = (double)(t1 - t0) / 2;
			break;
		case READ_LAT:
			post_checked(p, a, b, 0);
			cq_wait(p, &a->scq, &r, 1, &t1, "read");
			a->sends_outstanding--;
			l->cycles[i] = (double)(t1 - t0);
			break;
		default:
			break;
		}
		sends_reap(p, a);
		sends_reap(p, b);
		progress(p, i + 1, n);
	}
	lat_stats(l, n);
}

/* ---------------------------------------------------------------------------------------------
 * Bandwidth tests
 */

static void run_bw(struct perf *p, struct bw_result *res)
{
	struct side *a = &p->s[0], *b = &p->s[1];
	const uint32_t n = p->o.iters, list = p->o.post_list, q = p->o.cq_mod;
	/* the cycle each signaled completion was seen and how many requests it covered */
	uint64_t *seen_at = calloc(n, sizeof(uint64_t));
	uint32_t *seen_done = calloc(n, sizeof(uint32_t));
	uint32_t nseen = 0;
	if (!seen_at || !seen_done)
		fail("out of memory");
	uint32_t posted = 0, done = 0, b_received = 0;
	uint64_t deadline = ndk_sim_cycle(p->sim) + HANG_CYCLES;
	uint64_t t0 = ndk_sim_cycle(p->sim), t_last = t0;
	struct ndk_result_ex r[64];

	while (done < n) {
		/* post whole lists while they fit in the queue */
		while (posted < n) {
			uint32_t chain = n - posted < list ? n - posted : list;
			if (posted - done + chain > p->o.tx_depth)
				break;
			for (uint32_t k = 0; k < chain; k++) {
				uint32_t i = posted + k;
				uint32_t flags = 0;
				/* a completion every q requests and for the last one; the context
				 * carries the index, so its completion retires everything before it */
				if ((i + 1) % q && i + 1 != n)
					flags |= NDK_OP_FLAG_SILENT_SUCCESS;
				if (k + 1 < chain)
					flags |= NDK_OP_FLAG_DEFER;
				check(test_name[p->o.test],
				      post_one(p, a, b, (void *)(uintptr_t)(i + 1), flags));
			}
			posted += chain;
		}
		/* the server tops up its receives only when the client could run it dry: with
		 * iters <= its ring everything was posted before the clock started */
		if (p->o.test == SEND_BW && b->recv_posted < n &&
		    b->recv_posted < posted + p->o.tx_depth) {
			size_t k = cq_take(&b->rcq, r, 64, "receive");
			b_received += (uint32_t)k;
			replenish(p, b, b_received);
		}
		uint64_t before = ndk_sim_cycle(p->sim);
		size_t k = cq_take(&a->scq, r, 64, test_name[p->o.test]);
		if (!k) {
			cq_idle(p, &a->scq, deadline, test_name[p->o.test]);
			continue;
		}
		for (size_t j = 0; j < k; j++) {
			uint32_t upto = (uint32_t)(uintptr_t)r[j].request_context;
			if (upto <= done || upto > posted)
				fail("completion for request %u out of order (done %u, posted %u)",
				     upto, done, posted);
			done = upto;
			seen_at[nseen] = before;
			seen_done[nseen++] = done;
		}
		t_last = before;
		deadline = before + HANG_CYCLES;
		progress(p, done, n);
	}
	res->cycles = t_last - t0;
	/* peak: the best rate over any stretch of at least a tenth of the run (and at least the
	 * moderation interval), from a signaled completion (or the first post) to a later one;
	 * for each end the latest start that still spans the stretch */
	uint32_t window = n / 10 > q ? n / 10 : q;
	if (window > n)
		window = n;
	double peak = 0;
	int64_t start = -1; /* -1: the first post */
	for (uint32_t e = 0; e < nseen; e++) {
		while (start + 1 < (int64_t)e && seen_done[e] - seen_done[start + 1] >= window)
			start++;
		uint32_t from = start < 0 ? 0 : seen_done[start];
		uint64_t since = start < 0 ? t0 : seen_at[start];
		if (seen_done[e] - from >= window && seen_at[e] > since) {
			double rate = (double)(seen_done[e] - from) / (double)(seen_at[e] - since);
			if (rate > peak)
				peak = rate;
		}
	}
	/* the whole run is such a stretch too */
	if (res->cycles && (double)n / res->cycles > peak)
		peak = (double)n / res->cycles;
	res->peak_bytes_per_cycle = peak * p->o.size;
	free(seen_at);
	free(seen_done);
}

/* ---------------------------------------------------------------------------------------------
 * Output
 */

/*
 * Under loss, a bandwidth test's request packets sent again, counted on the wire: the client
 * (the requester; in send_bw and write_bw it sends nothing else) sent frames beyond the packets
 * of its messages (one per path MTU, at least one). The port counter retransmitted_packets has
 * no source in the RTL yet, so this is the harness's count. -1 for a latency test.
 */
static int64_t wire_retransmitted(const struct perf *p, const struct counters *d)
{
	if (!is_bw(p->o.test))
		return -1;
	uint64_t pkts = p->o.size == 0 ? 1 : (p->o.size + p->cfg.path_mtu - 1) / p->cfg.path_mtu;
	return (int64_t)d->nic[0].frames_sent - (int64_t)(pkts * p->o.iters);
}

static double goodput_gbps(const struct perf *p, const struct bw_result *bw)
{
	double bytes = (double)p->o.size * p->o.iters;
	return bytes * 8 / (bw->cycles / (p->cfg.clock_mhz * 1e6)) / 1e9;
}

static double cycles_to_us(const struct perf *p, double cycles)
{
	return cycles / p->cfg.clock_mhz;
}

static void print_header(const struct perf *p)
{
	const struct options *o = &p->o;
	const char *line =
		"---------------------------------------------------------------------------"
		"------------";
	printf("%s\n", line);
	printf("                    %s (ndkperf, simulated)\n", test_title[o->test]);
	printf(" NICs            : 2 simulated        Transport type : RoCEv2\n");
	printf(" Connection type : RC                 Clock          : %u MHz\n", p->cfg.clock_mhz);
	printf(" Data width      : %-3u bits           Link           : %.1f Gb/s, %u ns\n",
	       p->cfg.data_width, p->cfg.link_mbps * 8 / 1000.0, p->cfg.link_ns);
	printf(" TX depth        : %-18u Mtu            : %u[B]\n", o->tx_depth, p->cfg.path_mtu);
	if (is_bw(o->test))
		printf(" Post list       : %-18u CQ Moderation  : %u\n", o->post_list, o->cq_mod);
	char inl[32];
	snprintf(inl, sizeof(inl), "%u[B]", p->inline_size);
	printf(" Max inline data : %-18s Completions    : %s\n", inl,
	       o->events ? "events" : "polling");
	printf("%s\n", line);
}

static void print_bw(const struct perf *p, const struct bw_result *bw)
{
	double bytes = (double)p->o.size * p->o.iters;
	double secs = bw->cycles / (p->cfg.clock_mhz * 1e6);
	double avg_bps = bytes / secs;
	double peak_bps = bw->peak_bytes_per_cycle * p->cfg.clock_mhz * 1e6;
	printf(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   BW peak[MB/sec]    "
	       "BW average[MB/sec]   MsgRate[Mpps]\n");
	printf(" %-10u %-14u %-18.2f %-20.2f %-18.2f %-20.2f %.6f\n", p->o.size, p->o.iters,
	       peak_bps * 8 / 1e9, avg_bps * 8 / 1e9, peak_bps / 1048576.0, avg_bps / 1048576.0,
	       p->o.iters / secs / 1e6);
	printf(" cycles: %" PRIu64 ", %.3f bytes/cycle (link %.2f, DMA %.2f, datapath %u)\n",
	       bw->cycles, bytes / bw->cycles, (double)p->cfg.link_mbps / p->cfg.clock_mhz,
	       (double)p->cfg.pcie_mbps / p->cfg.clock_mhz, p->cfg.data_width / 8);
}

static void print_lat(const struct perf *p, const struct lat_result *l)
{
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
	       "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
	printf(" %-6u %-14u %-14.3f %-12.3f %-18.3f %-14.3f %-15.3f %-22.3f %.3f\n", p->o.size,
	       p->o.iters, cycles_to_us(p, l->min), cycles_to_us(p, l->max),
	       cycles_to_us(p, l->typical), cycles_to_us(p, l->avg), cycles_to_us(p, l->stdev),
	       cycles_to_us(p, l->p99), cycles_to_us(p, l->p999));
	printf(" %s\n", p->o.test == READ_LAT ? "(full round trips)" : "(half round trips)");
}

static void json_stats(const char *name, const struct ndk_sim_stats *s, bool last)
{
	printf("    \"%s\": {\"sq_doorbells\": %" PRIu64 ", \"rq_doorbells\": %" PRIu64
	       ", \"cq_doorbells\": %" PRIu64 ", \"wqe_fetch_reads\": %" PRIu64
	       ", \"wqes_fetched\": %" PRIu64 ", \"dma_reads\": %" PRIu64
	       ", \"dma_read_bytes\": %" PRIu64 ", \"dma_writes\": %" PRIu64
	       ", \"dma_write_bytes\": %" PRIu64 ", \"cqes_written\": %" PRIu64
	       ", \"interrupts\": %" PRIu64 ", \"frames_sent\": %" PRIu64
	       ", \"frames_received\": %" PRIu64 "}%s\n",
	       name, s->sq_doorbells, s->rq_doorbells, s->cq_doorbells, s->wqe_fetch_reads,
	       s->wqes_fetched, s->dma_reads, s->dma_read_bytes, s->dma_writes, s->dma_write_bytes,
	       s->cqes_written, s->interrupts, s->frames_sent, s->frames_received, last ? "" : ",");
}

/* ---------------------------------------------------------------------------------------------
 * Under loss: the harness's fault counts and the NICs' port counters over the run
 */

static void port_counters_take(const struct perf *p, struct ndk_port_counters pc[2])
{
	for (unsigned i = 0; i < 2; i++)
		check("port counters", ndk_query_port_counters(p->s[i].ad, &pc[i]));
}

/* the port counters of both NICs since the run started (one reading of both: the reads take
 * simulated time, in which the NICs go on) */
static void port_counters_run(const struct perf *p, struct ndk_port_counters d[2])
{
	struct ndk_port_counters now[2];
	port_counters_take(p, now);
	for (unsigned i = 0; i < 2; i++) {
		const uint64_t *a = (const uint64_t *)&p->pc0[i], *b = (const uint64_t *)&now[i];
		uint64_t *z = (uint64_t *)&d[i];
		for (size_t k = 0; k < sizeof(d[i]) / sizeof(uint64_t); k++)
			z[k] = b[k] - a[k];
	}
}

/* One line per NIC: what the harness did to the frames it sent, and what its port counted. */
static void loss_report(FILE *f, const struct perf *p)
{
	if (!p->lossy && !p->counters_on)
		return;
	static const char *const who[2] = { "client", "server" };
	struct ndk_port_counters pc[2];
	if (p->counters_on)
		port_counters_run(p, pc);
	fprintf(f,
		" network: drop %g, corrupt %g, duplicate %g, reorder %g (depth %u), seed %" PRIu64
		"\n",
		p->cfg.drop_rate, p->cfg.corrupt_rate, p->cfg.duplicate_rate, p->cfg.reorder_rate,
		p->cfg.reorder_depth, p->cfg.seed);
	for (unsigned i = 0; i < 2; i++) {
		struct ndk_sim_stats s;
		ndk_sim_get_stats(p->sim, i, &s);
		fprintf(f,
			" %s: faults on its frames: %" PRIu64 " dropped, %" PRIu64
			" corrupted, %" PRIu64 " duplicated, %" PRIu64 " reordered\n",
			who[i], s.faults_dropped, s.faults_corrupted, s.faults_duplicated,
			s.faults_reordered);
		if (!p->counters_on)
			continue;
		const struct ndk_port_counters c = pc[i];
		fprintf(f,
			" %s: port: %" PRIu64 " tx, %" PRIu64 " rx, %" PRIu64
			" rx dropped, %" PRIu64 " retransmitted, %" PRIu64 " ACK timeouts, %" PRIu64
			"/%" PRIu64 " sequence NAKs sent/received, %" PRIu64
			" implied NAKs, %" PRIu64 " out of sequence, %" PRIu64
			" duplicates, %" PRIu64 "/%" PRIu64 " RNR NAKs sent/received\n",
			who[i], c.tx_packets, c.rx_packets, c.rx_dropped, c.retransmitted_packets,
			c.local_ack_timeouts, c.seq_naks_sent, c.seq_naks_received, c.implied_naks,
			c.out_of_sequence, c.duplicate_requests, c.rnr_naks_sent,
			c.rnr_naks_received);
	}
}

static void json_loss(const struct perf *p)
{
	static const char *const who[2] = { "client", "server" };
	printf("  \"loss\": {\"drop_rate\": %g, \"corrupt_rate\": %g, \"duplicate_rate\": %g, "
	       "\"reorder_rate\": %g, \"reorder_depth\": %u, \"ack_timeout\": %u, "
	       "\"retry_count\": %u, \"rnr_retry\": %u, \"local_psn\": %u, \"remote_psn\": %u,\n",
	       p->cfg.drop_rate, p->cfg.corrupt_rate, p->cfg.duplicate_rate, p->cfg.reorder_rate,
	       p->cfg.reorder_depth, p->o.attr.ack_timeout, p->o.attr.retry_count,
	       p->o.attr.rnr_retry, p->o.attr.local_psn, p->o.attr.remote_psn);
	printf("    \"faults\": {");
	for (unsigned i = 0; i < 2; i++) {
		struct ndk_sim_stats s;
		ndk_sim_get_stats(p->sim, i, &s);
		printf("\"%s\": {\"dropped\": %" PRIu64 ", \"corrupted\": %" PRIu64
		       ", \"duplicated\": %" PRIu64 ", \"reordered\": %" PRIu64 "}%s",
		       who[i], s.faults_dropped, s.faults_corrupted, s.faults_duplicated,
		       s.faults_reordered, i ? "" : ", ");
	}
	printf("},\n    \"port_counters\": ");
	if (!p->counters_on) {
		printf("null},\n");
		return;
	}
	struct ndk_port_counters pc[2];
	port_counters_run(p, pc);
	printf("{");
	for (unsigned i = 0; i < 2; i++) {
		const struct ndk_port_counters c = pc[i];
		printf("\"%s\": {\"tx_packets\": %" PRIu64 ", \"rx_packets\": %" PRIu64
		       ", \"rx_dropped\": %" PRIu64 ", \"retransmitted_packets\": %" PRIu64
		       ", \"local_ack_timeouts\": %" PRIu64 ", \"seq_naks_sent\": %" PRIu64
		       ", \"seq_naks_received\": %" PRIu64 ", \"implied_naks\": %" PRIu64
		       ", \"out_of_sequence\": %" PRIu64 ", \"duplicate_requests\": %" PRIu64
		       ", \"rnr_naks_sent\": %" PRIu64 ", \"rnr_naks_received\": %" PRIu64 "}%s",
		       who[i], c.tx_packets, c.rx_packets, c.rx_dropped, c.retransmitted_packets,
		       c.local_ack_timeouts, c.seq_naks_sent, c.seq_naks_received, c.implied_naks,
		       c.out_of_sequence, c.duplicate_requests, c.rnr_naks_sent,
		       c.rnr_naks_received, i ? "" : ", ");
	}
	printf("}},\n");
}

static void print_json(const struct perf *p, const struct bw_result *bw, const struct lat_result *l,
		       const struct counters *c)
{
	const struct ndk_sim_config *cfg = &p->cfg;
	const struct options *o = &p->o;
	printf("{\n  \"test\": \"%s\",\n", test_name[o->test]);
	printf("  \"options\": {\"size\": %u, \"iters\": %u, \"post_list\": %u, \"cq_mod\": %u, "
	       "\"events\": %s, \"inline_size\": %u, \"tx_depth\": %u},\n",
	       o->size, o->iters, o->post_list, o->cq_mod, o->events ? "true" : "false",
	       p->inline_size, o->tx_depth);
	printf("  \"config\": {\"nics\": %u, \"clock_mhz\": %u, \"data_width\": %u, \"path_mtu\": %u, "
	       "\"link_mbps\": %u, \"link_ns\": %u, \"pcie_mbps\": %u, \"dma_read_ns\": %u, "
	       "\"dma_write_ns\": %u, \"mmio_write_ns\": %u, \"host_wqe_ns\": %u, "
	       "\"host_doorbell_ns\": %u, \"poll_cycles\": %u, \"seed\": %" PRIu64 "},\n",
	       cfg->nics, cfg->clock_mhz, cfg->data_width, cfg->path_mtu, cfg->link_mbps,
	       cfg->link_ns, cfg->pcie_mbps, cfg->dma_read_ns, cfg->dma_write_ns,
	       cfg->mmio_write_ns, cfg->host_wqe_ns, cfg->host_doorbell_ns, cfg->poll_cycles,
	       cfg->seed);
	printf("  \"limits_bytes_per_cycle\": {\"link\": %.4f, \"dma\": %.4f, \"datapath\": %u},\n",
	       (double)cfg->link_mbps / cfg->clock_mhz, (double)cfg->pcie_mbps / cfg->clock_mhz,
	       cfg->data_width / 8);
	printf("  \"results\": {\"bytes\": %u, \"iterations\": %u, ", o->size, o->iters);
	if (bw) {
		double bytes = (double)o->size * o->iters;
		double secs = bw->cycles / (cfg->clock_mhz * 1e6);
		double peak_bps = bw->peak_bytes_per_cycle * cfg->clock_mhz * 1e6;
		printf("\"total_bytes\": %.0f, \"cycles\": %" PRIu64 ", \"bytes_per_cycle\": %.4f, "
		       "\"bw_peak_gbps\": %.4f, \"bw_average_gbps\": %.4f, \"bw_peak_MBps\": %.2f, "
		       "\"bw_average_MBps\": %.2f, \"msg_rate_mpps\": %.6f},\n",
		       bytes, bw->cycles, bytes / bw->cycles, peak_bps * 8 / 1e9,
		       bytes / secs * 8 / 1e9, peak_bps / 1048576.0, bytes / secs / 1048576.0,
		       o->iters / secs / 1e6);
	} else {
		printf("\"round_trip\": \"%s\", \"t_min_usec\": %.4f, \"t_typical_usec\": %.4f, "
		       "\"t_max_usec\": %.4f, \"t_avg_usec\": %.4f, \"t_stdev_usec\": %.4f, "
		       "\"t_p99_usec\": %.4f, \"t_p999_usec\": %.4f, \"t_min_cycles\": %.1f, "
		       "\"t_typical_cycles\": %.1f, \"t_max_cycles\": %.1f},\n",
		       o->test == READ_LAT ? "full" : "half", cycles_to_us(p, l->min),
		       cycles_to_us(p, l->typical), cycles_to_us(p, l->max),
		       cycles_to_us(p, l->avg), cycles_to_us(p, l->stdev), cycles_to_us(p, l->p99),
		       cycles_to_us(p, l->p999), l->min, l->typical, l->max);
	}
	json_loss(p);
	if (p->lossy && bw)
		printf("  \"goodput\": {\"goodput_gbps\": %.4f, \"client_frames\": %" PRIu64
		       ", \"retransmitted_packets_wire\": %" PRId64 "},\n",
		       goodput_gbps(p, bw), c->nic[0].frames_sent, wire_retransmitted(p, c));
	printf("  \"counters\": {\n");
	json_stats("client", &c->nic[0], false);
	json_stats("server", &c->nic[1], true);
	printf("  }\n}\n");
}

/* ---------------------------------------------------------------------------------------------
 * Command line
 */

enum long_only {
	OPT_JSON = 256,
	OPT_WIDTH,
	OPT_MTU,
	OPT_LINK,
	OPT_CLOCK,
	OPT_POLL,
	OPT_SEED,
	OPT_DROP,
	OPT_CORRUPT,
	OPT_DUPLICATE,
	OPT_REORDER,
	OPT_REORDER_DEPTH,
	OPT_PORT_COUNTERS,
	OPT_ACK_TIMEOUT,
	OPT_RETRY_COUNT,
	OPT_RNR_RETRY,
	OPT_LOCAL_PSN,
	OPT_REMOTE_PSN,
};

static void parse(int argc, char **argv, struct perf *p)
{
	static const struct option longs[] = {
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "post_list", required_argument, NULL, 'l' },
		{ "cq-mod", required_argument, NULL, 'Q' },
		{ "events", no_argument, NULL, 'e' },
		{ "inline_size", required_argument, NULL, 'I' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "mtu", required_argument, NULL, OPT_MTU },
		{ "link-gbps", required_argument, NULL, OPT_LINK },
		{ "clock-mhz", required_argument, NULL, OPT_CLOCK },
		{ "poll-cycles", required_argument, NULL, OPT_POLL },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "drop", required_argument, NULL, OPT_DROP },
		{ "corrupt", required_argument, NULL, OPT_CORRUPT },
		{ "duplicate", required_argument, NULL, OPT_DUPLICATE },
		{ "reorder", required_argument, NULL, OPT_REORDER },
		{ "reorder-depth", required_argument, NULL, OPT_REORDER_DEPTH },
		{ "port-counters", no_argument, NULL, OPT_PORT_COUNTERS },
		{ "ack-timeout", required_argument, NULL, OPT_ACK_TIMEOUT },
		{ "retry-count", required_argument, NULL, OPT_RETRY_COUNT },
		{ "rnr-retry", required_argument, NULL, OPT_RNR_RETRY },
		{ "local-psn", required_argument, NULL, OPT_LOCAL_PSN },
		{ "remote-psn", required_argument, NULL, OPT_REMOTE_PSN },
		{ NULL, 0, NULL, 0 },
	};
	struct options *o = &p->o;
	int64_t size = -1, iters = -1, list = -1, qmod = -1;
	o->inline_size = -1;
	o->tx_depth = 128;
	ndk_connect_attr_default(&o->attr);
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:n:l:Q:eI:t:h", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			size = (int64_t)number("-s", optarg, 1, UINT32_MAX);
			break;
		case 'n':
			iters = (int64_t)number("-n", optarg, 5, 100000000);
			break;
		case 'l':
			list = (int64_t)number("-l", optarg, 1, 4096);
			break;
		case 'Q':
			qmod = (int64_t)number("-Q", optarg, 1, 4096);
			break;
		case 'e':
			o->events = true;
			break;
		case 'I':
			o->inline_size = (int64_t)number("-I", optarg, 0, UINT32_MAX);
			break;
		case 't':
			o->tx_depth = (uint32_t)number("-t", optarg, 1, 4096);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_WIDTH:
			p->cfg.data_width = (unsigned)number("--width", optarg, 64, 256);
			if (p->cfg.data_width != 64 && p->cfg.data_width != 256)
				usage_error("--width: %u is not a data width (64 or 256)",
					    p->cfg.data_width);
			break;
		case OPT_MTU: {
			uint32_t m = (uint32_t)number("--mtu", optarg, 256, 4096);
			if (m & (m - 1))
				usage_error("--mtu: %u is not one of 256, 512, 1024, 2048, 4096",
					    m);
			p->cfg.path_mtu = m;
			break;
		}
		case OPT_LINK:
			/* Gbit/s to the config's MB/s of frame bytes */
			p->cfg.link_mbps = (uint32_t)number("--link-gbps", optarg, 1, 400) * 125;
			break;
		case OPT_CLOCK:
			p->cfg.clock_mhz = (uint32_t)number("--clock-mhz", optarg, 1, 2000);
			break;
		case OPT_POLL:
			p->cfg.poll_cycles = (uint32_t)number("--poll-cycles", optarg, 0, 1000000);
			break;
		case OPT_SEED:
			p->cfg.seed = number("--seed", optarg, 0, UINT64_MAX);
			break;
		case OPT_DROP:
			p->cfg.drop_rate = probability("--drop", optarg);
			break;
		case OPT_CORRUPT:
			p->cfg.corrupt_rate = probability("--corrupt", optarg);
			break;
		case OPT_DUPLICATE:
			p->cfg.duplicate_rate = probability("--duplicate", optarg);
			break;
		case OPT_REORDER:
			p->cfg.reorder_rate = probability("--reorder", optarg);
			break;
		case OPT_REORDER_DEPTH:
			p->cfg.reorder_depth = (uint32_t)number("--reorder-depth", optarg, 1, 1024);
			break;
		case OPT_PORT_COUNTERS:
			o->port_counters = true;
			break;
		case OPT_ACK_TIMEOUT:
			o->attr.ack_timeout = (uint8_t)number("--ack-timeout", optarg, 0, 31);
			break;
		case OPT_RETRY_COUNT:
			o->attr.retry_count = (uint8_t)number("--retry-count", optarg, 0, 7);
			break;
		case OPT_RNR_RETRY:
			o->attr.rnr_retry = (uint8_t)number("--rnr-retry", optarg, 0, 7);
			break;
		case OPT_LOCAL_PSN:
			o->attr.local_psn = (uint32_t)number("--local-psn", optarg, 0, 0xffffff);
			break;
		case OPT_REMOTE_PSN:
			o->attr.remote_psn = (uint32_t)number("--remote-psn", optarg, 0, 0xffffff);
			break;
		case ':':
			usage_error("option %s needs a value", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option -%c", optopt);
			usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_error("which test? (send_lat, send_bw, write_lat, write_bw or read_lat)");
	if (optind + 1 < argc)
		usage_error(
			"unexpected argument '%s' (ndkperf runs one test, on the simulated pair)",
			argv[optind + 1]);
	const char *t = argv[optind];
	o->test = TEST_COUNT;
	for (int i = 0; i < TEST_COUNT; i++)
		if (!strcmp(t, test_name[i]))
			o->test = (enum test)i;
	if (o->test == TEST_COUNT)
		usage_error("unknown test '%s' (send_lat, send_bw, write_lat, write_bw, read_lat)",
			    t);

	bool bw = is_bw(o->test);
	o->size = size >= 0 ? (uint32_t)size : bw ? 65536 : 2;
	o->iters = iters >= 0 ? (uint32_t)iters : bw ? 5000 : 1000;
	if (!bw && list >= 0)
		usage_error("-l (post list) is for the bandwidth tests only");
	if (!bw && qmod >= 0)
		usage_error("-Q (CQ moderation) is for the bandwidth tests only");
	if (o->test == WRITE_LAT && o->events)
		usage_error("-e: write_lat polls the buffer for the peer's data, not a CQ");
	if (o->test == READ_LAT && o->inline_size > 0)
		usage_error("-I: a Read carries no inline data");
	o->post_list = list >= 0 ? (uint32_t)list : 1;
	if (o->post_list > o->tx_depth)
		usage_error("-l %u is longer than the send queue (-t %u)", o->post_list,
			    o->tx_depth);
	/* A full queue must hold a signaled request, or nothing would ever free it: with lists of
	 * l posted whole, a queue of t holds q + l - 1 <= t requests before it stalls. */
	uint32_t qmax = o->tx_depth - o->post_list + 1;
	if (qmod >= 0) {
		o->cq_mod = (uint32_t)qmod;
		o->cq_mod_given = true;
		if (o->cq_mod > qmax)
			usage_error(
				"-Q %u: with -t %u and -l %u a completion is needed at least every "
				"%u requests",
				o->cq_mod, o->tx_depth, o->post_list, qmax);
	} else {
		o->cq_mod = bw ? (100 < qmax ? 100 : qmax) : 1;
	}
}

int main(int argc, char **argv)
{
	static struct perf p;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--server") == 0 || strcmp(argv[i], "--peer") == 0 ||
		    strncmp(argv[i], "--peer=", 7) == 0)
			return perftest_main(argc, argv);
	ndk_sim_default_config(&p.cfg);
	p.cfg.nics = 2;
	/* polled every cycle: a completion is seen in the cycle it becomes visible */
	p.cfg.poll_cycles = 0;
	parse(argc, argv, &p);
	const struct options *o = &p.o;

	check("create the simulated world", ndk_sim_create(&p.cfg, &p.sim));

	/* the device's limits, from the client NIC: checked before anything is posted */
	for (unsigned i = 0; i < 2; i++)
		check("open adapter", ndk_sim_open_adapter(p.sim, i, &p.s[i].ad));
	check("adapter info", ndk_query_adapter_info(p.s[0].ad, &p.info));
	uint32_t max_size = p.info.frmr_page_count * NDK_PAGE_SIZE;
	if (p.info.max_transfer_length < max_size)
		max_size = p.info.max_transfer_length;
	if (o->size > max_size)
		usage_error("-s %u: larger than a region this device registers (%u bytes)", o->size,
			    max_size);
	if (o->tx_depth > p.info.max_initiator_queue_depth)
		usage_error("-t %u: deeper than the device's send queues (%u)", o->tx_depth,
			    p.info.max_initiator_queue_depth);
	if (o->inline_size > (int64_t)p.info.max_inline_data_size)
		usage_error("-I %" PRId64 ": more than the device's inline limit (%u bytes)",
			    o->inline_size, p.info.max_inline_data_size);
	if (o->inline_size >= 0)
		p.inline_size = (uint32_t)o->inline_size;
	else
		p.inline_size = (o->test == SEND_LAT || o->test == WRITE_LAT) ?
					p.info.max_inline_data_size :
					0;
	if (o->test == READ_LAT && p.info.max_outbound_read_limit == 0)
		read_unsupported();
	p.buf_bytes = (o->size + NDK_PAGE_SIZE - 1) / NDK_PAGE_SIZE * NDK_PAGE_SIZE;

	/* receives: enough for the whole run when the ring holds it (no server work while the
	 * clock runs), else a full ring topped up as it drains */
	uint32_t rq = 0;
	if (o->test == SEND_LAT || o->test == SEND_BW) {
		rq = o->iters < p.info.max_receive_queue_depth ? o->iters :
								 p.info.max_receive_queue_depth;
		if (rq < 2)
			rq = 2;
	}
	side_open(&p, 0, rq);
	side_open(&p, 1, rq);
	connect_pair(&p);
	for (int i = 0; i < 2; i++)
		while (p.s[i].recv_posted < rq)
			post_receive(&p.s[i], o->size);

	p.progress = isatty(STDERR_FILENO);
	p.progress_shown = -1;
	/* a lossy run (or --port-counters) reads the port counters around the run: MMIO reads
	 * a lossless run does not make, so its numbers and cycles stay those of before */
	p.lossy = p.cfg.drop_rate > 0 || p.cfg.corrupt_rate > 0 || p.cfg.duplicate_rate > 0 ||
		  p.cfg.reorder_rate > 0;
	p.counters_on = p.lossy || o->port_counters;
	if (p.counters_on)
		port_counters_take(&p, p.pc0);
	g_perf = &p;
	struct counters c0, c1, d;
	struct bw_result bw = { 0 };
	struct lat_result lat = { 0 };
	counters_take(&p, &c0);
	if (is_bw(o->test))
		run_bw(&p, &bw);
	else
		run_lat(&p, &lat);
	counters_take(&p, &c1);
	counters_diff(&d, &c0, &c1);

	if (o->json) {
		print_json(&p, is_bw(o->test) ? &bw : NULL, &lat, &d);
	} else {
		print_header(&p);
		if (is_bw(o->test))
			print_bw(&p, &bw);
		else
			print_lat(&p, &lat);
		printf(" doorbells (client): %" PRIu64 " send queue, %" PRIu64
		       " WQE fetch reads for %" PRIu64 " WQEs\n",
		       d.nic[0].sq_doorbells, d.nic[0].wqe_fetch_reads, d.nic[0].wqes_fetched);
		loss_report(stdout, &p);
		if (p.lossy && is_bw(o->test))
			printf(" goodput under loss: %.2f Gb/s; %" PRId64
			       " request packets sent again (client frames beyond its messages' %" PRIu64
			       ")\n",
			       goodput_gbps(&p, &bw), wire_retransmitted(&p, &d),
			       d.nic[0].frames_sent - (uint64_t)wire_retransmitted(&p, &d));
		printf("---------------------------------------------------------------------------"
		       "------------\n");
	}
	g_perf = NULL;
	free(lat.cycles);
	side_close(&p.s[0]);
	side_close(&p.s[1]);
	ndk_sim_destroy(p.sim);
	return 0;
}
