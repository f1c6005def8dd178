/* SPDX-License-Identifier: MIT */
/*
 * The doorbell-batching benchmark: what a chain of N requests costs, rung once (defer) or
 * once per request (immediate), on the simulated NICs with the default timing model, host
 * costs included. Prints a table and PASS/FAIL lines, writes build/bench/doorbell.json.
 *
 *   doorbell [--out DIR] [--quick]
 *
 * Times are simulated cycles at the configured clock: exact and repeatable. Completions are
 * detected at the exact cycle the CQE becomes visible in host memory (the benchmark polls
 * every cycle and empty polls cost nothing here: poll_cycles = 0).
 *
 * The bound for a chain of N local requests comes from the timing model alone
 * (docs/timing-model.md): host time to build N WQEs and ring one doorbell + the MMIO write
 * latency + one DMA read round trip for the chain's WQEs (fixed part + N x 64 B / bandwidth) +
 * the CQE write latency.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ndk.h"
#include "ndk_sim.h"

#define MAX_CHAIN 128
#define WQE_BYTES 64

enum mode { MODE_DEFER, MODE_IMMEDIATE, MODE_COUNT };
static const char *const mode_name[MODE_COUNT] = { "defer", "immediate" };

struct row {
	const char *op;
	enum mode mode;
	int chain;
	uint64_t sq_doorbells, wqe_fetch_reads, dma_read_bytes;
	uint64_t first_post_to_last_cqe, doorbell_to_last_cqe;
	double bound; /* < 0: not defined */
};

struct bench {
	struct ndk_sim_config cfg;
	struct ndk_sim *sim;
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_buffer buf;
	struct ndk_mr *mr[MAX_CHAIN];
	uint64_t page;
};

static void die(const char *what, ndk_status st)
{
	fprintf(stderr, "doorbell: %s: %s\n", what, ndk_status_name(st));
	exit(2);
}

static void check(const char *what, ndk_status st)
{
	if (st != NDK_STATUS_SUCCESS)
		die(what, st);
}

static void bench_open(struct bench *b)
{
	ndk_sim_default_config(&b->cfg);
	b->cfg.poll_cycles = 0;
	check("create world", ndk_sim_create(&b->cfg, &b->sim));
	check("open adapter", ndk_sim_open_adapter(b->sim, 0, &b->ad));
	check("pd", ndk_create_pd(b->ad, &b->pd));
	check("cq", ndk_create_cq(b->ad, 2 * MAX_CHAIN, NULL, NULL, &b->cq));
	struct ndk_qp_attr a = { .receive_cq = b->cq,
				 .initiator_cq = b->cq,
				 .qp_context = b,
				 .initiator_queue_depth = 2 * MAX_CHAIN,
				 .max_initiator_request_sge = 1 };
	check("qp", ndk_create_qp(b->pd, &a, &b->qp));
	check("buffer", ndk_alloc_buffer(b->ad, NDK_PAGE_SIZE, &b->buf));
	b->page = b->buf.logical;
	for (int i = 0; i < MAX_CHAIN; i++) {
		check("mr", ndk_create_mr(b->pd, &b->mr[i]));
		check("init mr", ndk_initialize_fast_register_mr(b->mr[i], 1, false));
	}
}

static void bench_close(struct bench *b)
{
	for (int i = 0; i < MAX_CHAIN; i++)
		ndk_close_mr(b->mr[i]);
	ndk_free_buffer(b->ad, &b->buf);
	ndk_close_qp(b->qp);
	ndk_close_cq(b->cq);
	ndk_close_pd(b->pd);
	ndk_close_adapter(b->ad);
	ndk_sim_destroy(b->sim);
}

static void wait_completions(struct bench *b, int n, const char *what)
{
	struct ndk_result r;
	uint64_t deadline = ndk_sim_cycle(b->sim) + 10000000;
	while (n > 0) {
		if (ndk_get_cq_results(b->cq, &r, 1)) {
			if (r.status != NDK_STATUS_SUCCESS)
				die(what, r.status);
			n--;
			continue;
		}
		if (ndk_sim_cycle(b->sim) > deadline)
			die(what, NDK_STATUS_IO_TIMEOUT);
		ndk_sim_step(b->sim, 1);
	}
}

/* Untimed set-up: register the chain's MRs so that the timed chain can invalidate them. */
static void register_all(struct bench *b, int n)
{
	for (int i = 0; i < n; i++)
		check("fast register",
		      ndk_fast_register(b->qp, NULL, b->mr[i], 1, &b->page, 0, NDK_PAGE_SIZE,
					(uint64_t)(uintptr_t)b->buf.va,
					i + 1 < n ? NDK_OP_FLAG_DEFER : 0));
	wait_completions(b, n, "fast register completion");
}

static double bound_cycles(const struct ndk_sim_config *c, int n)
{
	double ns = (double)n * c->host_wqe_ns + c->host_doorbell_ns + c->mmio_write_ns +
		    c->dma_read_ns + (double)n * WQE_BYTES * 1000.0 / c->pcie_mbps +
		    c->dma_write_ns;
	return ns * c->clock_mhz / 1000.0;
}

static void run_invalidate(struct bench *b, enum mode mode, int n, struct row *row)
{
	register_all(b, n);
	struct ndk_sim_stats s0, s1;
	ndk_sim_get_stats(b->sim, 0, &s0);
	uint64_t t0 = ndk_sim_cycle(b->sim);
	for (int i = 0; i < n; i++) {
		uint32_t flags = (mode == MODE_DEFER && i + 1 < n) ? NDK_OP_FLAG_DEFER : 0;
		check("invalidate", ndk_invalidate_mr(b->qp, NULL, b->mr[i], flags));
	}
	/* the cycle the chain's last doorbell reaches the NIC, as seen on the bus */
	uint64_t want = s0.sq_doorbells + (mode == MODE_DEFER ? 1 : (uint64_t)n);
	uint64_t t_db = 0;
	struct ndk_result r;
	int left = n;
	uint64_t t1 = 0;
	while (left > 0) {
		ndk_sim_get_stats(b->sim, 0, &s1);
		if (!t_db && s1.sq_doorbells >= want)
			t_db = ndk_sim_cycle(b->sim);
		/*
		 * The clock moves one cycle between empty polls (poll_cycles = 0), so the cycle
		 * before the poll that returns the last completion is when it became visible; the
		 * host work inside that call (a consumer-index doorbell every depth/2 polled) is
		 * after it.
		 */
		uint64_t before = ndk_sim_cycle(b->sim);
		if (ndk_get_cq_results(b->cq, &r, 1)) {
			if (r.status != NDK_STATUS_SUCCESS)
				die("invalidate completion", r.status);
			if (--left == 0)
				t1 = before;
			continue;
		}
		ndk_sim_step(b->sim, 1);
	}
	ndk_sim_get_stats(b->sim, 0, &s1);
	if (!t_db)
		t_db = t1;
	*row = (struct row){
		.op = "invalidate",
		.mode = mode,
		.chain = n,
		.sq_doorbells = s1.sq_doorbells - s0.sq_doorbells,
		.wqe_fetch_reads = s1.wqe_fetch_reads - s0.wqe_fetch_reads,
		.dma_read_bytes = s1.dma_read_bytes - s0.dma_read_bytes,
		.first_post_to_last_cqe = t1 - t0,
		.doorbell_to_last_cqe = t1 - t_db,
		.bound = bound_cycles(&b->cfg, n),
	};
}

static int verdict(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static int verdict(int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s: ", ok ? "PASS" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	return ok ? 0 : 1;
}

static void write_json(const char *path, const struct ndk_sim_config *c, const struct row *rows,
		       int nrows, double speed)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "doorbell: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fprintf(f,
		"{\n  \"config\": {\"nics\": %u, \"clock_mhz\": %u, \"mmio_write_ns\": %u, \"dma_read_ns\": %u, "
		"\"dma_write_ns\": %u, \"pcie_mbps\": %u, \"link_ns\": %u, \"host_wqe_ns\": %u, "
		"\"host_doorbell_ns\": %u, \"poll_cycles\": %u, \"data_width\": %u, \"seed\": %" PRIu64
		"},\n",
		c->nics, c->clock_mhz, c->mmio_write_ns, c->dma_read_ns, c->dma_write_ns,
		c->pcie_mbps, c->link_ns, c->host_wqe_ns, c->host_doorbell_ns, c->poll_cycles,
		c->data_width, c->seed);
	fprintf(f, "  \"sim_cycles_per_second\": %.0f,\n  \"rows\": [\n", speed);
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		fprintf(f,
			"    {\"op\": \"%s\", \"mode\": \"%s\", \"chain\": %d, \"sq_doorbells\": %" PRIu64
			", \"wqe_fetch_reads\": %" PRIu64 ", \"dma_read_bytes\": %" PRIu64
			", \"first_post_to_last_cqe_cycles\": %" PRIu64
			", \"doorbell_to_last_cqe_cycles\": %" PRIu64 ", \"bound_cycles\": ",
			r->op, mode_name[r->mode], r->chain, r->sq_doorbells, r->wqe_fetch_reads,
			r->dma_read_bytes, r->first_post_to_last_cqe, r->doorbell_to_last_cqe);
		if (r->bound < 0)
			fprintf(f, "null}");
		else
			fprintf(f, "%.1f}", r->bound);
		fprintf(f, "%s\n", i + 1 < nrows ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	fclose(f);
}

/* The same rows as a tab-separated table, one per line, for the plot (bench/doorbell.gp). */
static void write_tsv(const char *path, const struct row *rows, int nrows)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "doorbell: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fprintf(f, "op\tmode\tchain\tfirst_post_to_last_cqe_cycles\tbound_cycles\n");
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s\t%s\t%d\t%" PRIu64 "\t", r->op, mode_name[r->mode], r->chain,
			r->first_post_to_last_cqe);
		if (r->bound < 0)
			fprintf(f, "NaN\n");
		else
			fprintf(f, "%.1f\n", r->bound);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *out = "build/bench";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--out DIR]\n", argv[0]);
			return 2;
		}
	}
	static const int chains[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	const int nchains = sizeof(chains) / sizeof(chains[0]);
	struct row rows[MODE_COUNT * 8];
	int nrows = 0;
	struct bench b;
	bench_open(&b);
	struct timespec w0, w1;
	struct timespec u0, u1; /* CPU time: the run is short, wall-clock suffers from other load */
	clock_gettime(CLOCK_MONOTONIC, &w0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &u0);
	uint64_t c0 = ndk_sim_cycle(b.sim);
	for (int m = 0; m < MODE_COUNT; m++)
		for (int i = 0; i < nchains; i++)
			run_invalidate(&b, (enum mode)m, chains[i], &rows[nrows++]);
	clock_gettime(CLOCK_MONOTONIC, &w1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &u1);
	double secs = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
	double cpu_secs = (double)(u1.tv_sec - u0.tv_sec) + (double)(u1.tv_nsec - u0.tv_nsec) / 1e9;
	double speed = (double)(ndk_sim_cycle(b.sim) - c0) / secs;
	double cpu_speed = (double)(ndk_sim_cycle(b.sim) - c0) / cpu_secs;

	printf("doorbell batching, invalidate, %u NICs, %u MHz, data width %u (cycles)\n",
	       b.cfg.nics, b.cfg.clock_mhz, b.cfg.data_width);
	printf("%-10s %-9s %5s %9s %11s %12s %14s %12s %9s\n", "op", "mode", "chain", "doorbells",
	       "fetch_reads", "dma_rd_bytes", "post_to_cqe", "db_to_cqe", "bound");
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		printf("%-10s %-9s %5d %9" PRIu64 " %11" PRIu64 " %12" PRIu64 " %14" PRIu64
		       " %12" PRIu64 " %9.1f\n",
		       r->op, mode_name[r->mode], r->chain, r->sq_doorbells, r->wqe_fetch_reads,
		       r->dma_read_bytes, r->first_post_to_last_cqe, r->doorbell_to_last_cqe,
		       r->bound);
	}
	printf("simulation speed: %.2f M cycles/s (%u NICs, tracing off; %.2f M cycles per CPU second)\n",
	       speed / 1e6, b.cfg.nics, cpu_speed / 1e6);

	int failures = 0;
	const double doorbell_cycles = (double)b.cfg.host_doorbell_ns * b.cfg.clock_mhz / 1000.0;
	for (int i = 0; i < nchains; i++) {
		const struct row *d = &rows[i], *im = &rows[nchains + i];
		failures += verdict(d->sq_doorbells == 1,
				    "invalidate defer chain %d uses exactly one doorbell (%" PRIu64
				    ")",
				    d->chain, d->sq_doorbells);
		if (d->chain >= 8) {
			failures +=
				verdict((double)d->first_post_to_last_cqe <= 1.15 * d->bound,
					"invalidate defer chain %d within 1.15 x bound (%" PRIu64
					" <= %.1f)",
					d->chain, d->first_post_to_last_cqe, 1.15 * d->bound);
			double gain = (double)im->first_post_to_last_cqe -
				      (double)d->first_post_to_last_cqe;
			failures += verdict(
				gain >= 0.5 * (d->chain - 1) * doorbell_cycles,
				"invalidate defer beats immediate at chain %d by %.0f >= %.0f cycles",
				d->chain, gain, 0.5 * (d->chain - 1) * doorbell_cycles);
		}
	}
	char path[4096];
	mkdir(out, 0755);
	snprintf(path, sizeof(path), "%s/doorbell.json", out);
	write_json(path, &b.cfg, rows, nrows, speed);
	printf("wrote %s\n", path);
	snprintf(path, sizeof(path), "%s/doorbell.tsv", out);
	write_tsv(path, rows, nrows);
	bench_close(&b);
	return failures ? 1 : 0;
}
