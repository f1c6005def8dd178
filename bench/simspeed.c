/* SPDX-License-Identifier: MIT */
/*
 * simspeed: how fast the simulated world runs, in simulated cycles per wall-clock second.
 *
 *   simspeed [--nics N] [--width 64|256] [--load idle|busy] [--cycles C] [--runs R] [--all]
 *
 * idle: the world only steps (every NIC reset and idle, no adapter open).
 * busy: on every NIC an adapter runs doorbell chains back to back: 32 FastRegisters rung
 *       once, then 32 Invalidates rung once, polling the CQ every cycle (as bench/doorbell.c
 *       does), so the NIC fetches, executes and writes CQEs most of the time.
 * Each configuration runs R times (default 5) and the median is printed, with the minimum and
 * maximum, as one line; cpu= is the same rate over the process's CPU time instead of wall-clock
 * time (steadier on a shared machine):
 *
 *   simspeed nics=2 width=256 load=busy cycles=200000 end_cycle=... median=... M cycles/s
 *   (min ... max ..., R runs) cpu=... M cycles/s
 *
 * --all measures the eight combinations of nics {1, 2}, width {64, 256}, load {idle, busy}.
 * The set-up (adapters, MRs) is not timed. The simulated cycle count of a busy run is printed
 * too (end_cycle=...): it is deterministic, so two builds that behave the same print the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndk.h"
#include "ndk_sim.h"

#define MAX_NICS 4
#define CHAIN	 32

struct nic_load {
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_buffer buf;
	struct ndk_mr *mr[CHAIN];
	uint64_t page;
	int phase;   /* 0: next chain registers, 1: next chain invalidates */
	int pending; /* completions still expected from the current chain */
};

static void check(const char *what, ndk_status st)
{
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "simspeed: %s: %s\n", what, ndk_status_name(st));
		exit(2);
	}
}

static void load_open(struct ndk_sim *sim, unsigned nic, struct nic_load *l)
{
	memset(l, 0, sizeof(*l));
	check("open adapter", ndk_sim_open_adapter(sim, nic, &l->ad));
	check("pd", ndk_create_pd(l->ad, &l->pd));
	check("cq", ndk_create_cq(l->ad, 4 * CHAIN, NULL, NULL, &l->cq));
	struct ndk_qp_attr a = { .receive_cq = l->cq,
				 .initiator_cq = l->cq,
				 .qp_context = l,
				 .initiator_queue_depth = 2 * CHAIN,
				 .max_initiator_request_sge = 1 };
	check("qp", ndk_create_qp(l->pd, &a, &l->qp));
	check("buffer", ndk_alloc_buffer(l->ad, NDK_PAGE_SIZE, &l->buf));
	l->page = l->buf.logical;
	for (int i = 0; i < CHAIN; i++) {
		check("mr", ndk_create_mr(l->pd, &l->mr[i]));
		check("init mr", ndk_initialize_fast_register_mr(l->mr[i], 1, false));
	}
}

/* Post the next chain: every request deferred but the last, so one doorbell per chain. */
static void load_post(struct nic_load *l)
{
	for (int i = 0; i < CHAIN; i++) {
		uint32_t flags = i + 1 < CHAIN ? NDK_OP_FLAG_DEFER : 0;
		if (l->phase == 0)
			check("fast register",
			      ndk_fast_register(l->qp, NULL, l->mr[i], 1, &l->page, 0,
						NDK_PAGE_SIZE, (uint64_t)(uintptr_t)l->buf.va,
						flags));
		else
			check("invalidate", ndk_invalidate_mr(l->qp, NULL, l->mr[i], flags));
	}
	l->phase ^= 1;
	l->pending = CHAIN;
}

static void load_poll(struct nic_load *l)
{
	struct ndk_result r;
	while (l->pending && ndk_get_cq_results(l->cq, &r, 1)) {
		if (r.status != NDK_STATUS_SUCCESS)
			check("completion", r.status);
		l->pending--;
	}
	if (!l->pending)
		load_post(l);
}

static double now_s(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * One timed run; returns cycles per wall-clock second, the cycles per CPU second in *cpu_rate
 * and the world's final cycle in *end_cycle.
 */
static double run_once(unsigned nics, unsigned width, int busy, uint64_t cycles, double *cpu_rate,
		       uint64_t *end_cycle)
{
	struct ndk_sim_config cfg;
	struct ndk_sim *sim;
	struct nic_load loads[MAX_NICS];

	ndk_sim_default_config(&cfg);
	cfg.nics = nics;
	cfg.data_width = width;
	cfg.poll_cycles = 0;
	check("create world", ndk_sim_create(&cfg, &sim));
	if (busy)
		for (unsigned i = 0; i < nics; i++) {
			load_open(sim, i, &loads[i]);
			load_post(&loads[i]);
		}
	const uint64_t c0 = ndk_sim_cycle(sim);
	const double t0 = now_s(CLOCK_MONOTONIC), u0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	if (busy) {
		/* host work (posting) also moves the clock: stop at the first cycle past the end */
		while (ndk_sim_cycle(sim) - c0 < cycles) {
			for (unsigned i = 0; i < nics; i++)
				load_poll(&loads[i]);
			ndk_sim_step(sim, 1);
		}
	} else {
		ndk_sim_step(sim, cycles);
	}
	const double t1 = now_s(CLOCK_MONOTONIC), u1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	const uint64_t done = ndk_sim_cycle(sim) - c0;
	*cpu_rate = (double)done / (u1 - u0);
	*end_cycle = ndk_sim_cycle(sim);
	ndk_sim_destroy(sim);
	return (double)done / (t1 - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void measure(unsigned nics, unsigned width, int busy, uint64_t cycles, int runs)
{
	double v[64], u[64];
	uint64_t end = 0;
	if (runs > 64)
		runs = 64;
	for (int i = 0; i < runs; i++)
		v[i] = run_once(nics, width, busy, cycles, &u[i], &end);
	qsort(v, (size_t)runs, sizeof(v[0]), cmp_double);
	qsort(u, (size_t)runs, sizeof(u[0]), cmp_double);
	printf("simspeed nics=%u width=%u load=%s cycles=%llu end_cycle=%llu median=%.3f M cycles/s"
	       " (min %.3f max %.3f, %d runs) cpu=%.3f M cycles/s\n",
	       nics, width, busy ? "busy" : "idle", (unsigned long long)cycles,
	       (unsigned long long)end, v[runs / 2] / 1e6, v[0] / 1e6, v[runs - 1] / 1e6, runs,
	       u[runs / 2] / 1e6);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned nics = 2, width = 256;
	int busy = 0, runs = 5, all = 0;
	uint64_t cycles = 200000;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nics") && i + 1 < argc)
			nics = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--width") && i + 1 < argc)
			width = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--load") && i + 1 < argc)
			busy = !strcmp(argv[++i], "busy");
		else if (!strcmp(argv[i], "--cycles") && i + 1 < argc)
			cycles = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--all"))
			all = 1;
		else {
			fprintf(stderr,
				"usage: %s [--nics N] [--width 64|256] [--load idle|busy]"
				" [--cycles C] [--runs R] [--all]\n",
				argv[0]);
			return 2;
		}
	}
	if (nics < 1 || nics > MAX_NICS || runs < 1) {
		fprintf(stderr, "simspeed: --nics must be 1..%d and --runs >= 1\n", MAX_NICS);
		return 2;
	}
	if (!all) {
		measure(nics, width, busy, cycles, runs);
		return 0;
	}
	static const unsigned widths[] = { 64, 256 };
	for (int b = 0; b < 2; b++)
		for (unsigned n = 1; n <= 2; n++)
			for (int w = 0; w < 2; w++)
				measure(n, widths[w], b, cycles, runs);
	return 0;
}
