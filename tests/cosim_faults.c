// SPDX-License-Identifier: MIT
/*
 * The network's faults (docs/bad-input.md "The network's faults", sim/nicsim_net.cpp):
 *   faults_link    the network alone (no Verilated model: fast), the test injecting RoCEv2
 *                  frames and reading what arrives: rates honoured within the binomial
 *                  distribution's spread, one seed one outcome, every link and direction its
 *                  own stream, what a corruption flips, the reorder bound, the fault hook, the
 *                  counts per sending port
 *   faults_config  the rates and depth ndk_sim_create and nicsim refuse
 * The worlds with Verilated NICs (a corrupted frame dropped by the receiver's checks, a drop in
 * the capture) are in tests/cosim_faults_world.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_sim.h"
#include "nicsim.h"
#include "nicsim_raw.h"
#include "roce_ref.h"

#define PAYLOAD	   24
#define FRAME_MAX  ROCE_REF_MAX_FRAME(PAYLOAD)
#define MAX_FRAMES 40000
#define MAX_PORTS  3

/* ---- the network alone, frames injected on its ports ----------------------------------------- */

struct sent {
	uint8_t bytes[FRAME_MAX];
	size_t len;
};

struct arrival {
	unsigned port;	/* the receiving port */
	unsigned src;	/* the sending port (from the frame's source MAC: never corrupted) */
	uint32_t seq;	/* the sender's frame number to that port (from the original it matches) */
	bool corrupted; /* it differs from that original */
	int diff_bit;	/* the one bit that differs (bit 8 * byte + k), or -1 */
	uint64_t cycle;
};

struct hook_call {
	unsigned from, to;
	uint32_t seq;
};

struct fnet {
	struct nicsim_net *net;
	uint64_t now;
	unsigned ports;
	/* per (sender, receiver): the frames injected, numbered from 0 */
	struct sent *sent[MAX_PORTS][MAX_PORTS];
	uint32_t nsent[MAX_PORTS][MAX_PORTS];
	struct arrival *arr;
	size_t narr;
	size_t received; /* RECEIVED events */
	/* the fault hook's script: its answer per (from, to, seq); calls recorded */
	enum nicsim_fault (*script)(unsigned from, unsigned to, uint32_t seq);
	struct hook_call *calls;
	size_t ncalls;
	bool hook_checks_bytes; /* the hook's frame is the one injected */
};

static struct fnet g; /* one per test process (Criterion runs each test in its own) */

static uint32_t frame_seq(const uint8_t *b)
{
	return (uint32_t)b[51] << 16 | (uint32_t)b[52] << 8 | b[53]; /* the BTH's PSN */
}

static void build(uint8_t *buf, size_t *len, unsigned src, unsigned dst, uint32_t seq)
{
	struct roce_ref_fields f;
	uint8_t payload[PAYLOAD];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(seq * 7 + i * 13 + src);
	roce_ref_init(&f, src, 0x100 + src, dst);
	f.opcode = ROCE_OP_SEND_ONLY;
	f.dest_qp = 0x200 + dst;
	f.psn = seq & 0xffffff;
	f.payload = payload;
	f.payload_len = sizeof(payload);
	*len = roce_ref_build(&f, buf, FRAME_MAX);
	cr_assert_gt(*len, 0);
}

/* the original of a received frame: the one of its sender with a 0- or 1-bit difference */
static void identify(struct arrival *a, const uint8_t *b, size_t len)
{
	const unsigned src = b[11] - 1;
	cr_assert_lt(src, g.ports, "a frame from no port");
	a->src = src;
	/* most frames: the PSN tells; a corrupted PSN needs the search */
	const uint32_t guess = frame_seq(b);
	const uint32_t n = g.nsent[src][a->port];
	for (uint32_t k = 0; k <= n; k++) {
		const uint32_t seq = k == 0 ? guess : k - 1;
		if (seq >= n || (k > 0 && seq == guess))
			continue;
		const struct sent *s = &g.sent[src][a->port][seq];
		if (s->len != len)
			continue;
		int bits = 0, bit = -1;
		for (size_t i = 0; i < len && bits < 2; i++) {
			const uint8_t x = s->bytes[i] ^ b[i];
			if (x) {
				bits += __builtin_popcount(x);
				bit = (int)(8 * i + (unsigned)__builtin_ctz(x));
			}
		}
		if (bits < 2) {
			a->seq = seq;
			a->corrupted = bits == 1;
			a->diff_bit = bits == 1 ? bit : -1;
			return;
		}
	}
	cr_assert_fail("port %u received a frame from %u that matches none it sent", a->port, src);
}

static void on_frame(void *ctx, enum nicsim_frame_event what, unsigned nic, uint64_t cycle,
		     const uint8_t *bytes, size_t len)
{
	(void)ctx;
	if (what != NICSIM_FRAME_RECEIVED)
		return;
	g.received++;
	if (!g.arr)
		return;
	cr_assert_lt(g.narr, 2 * MAX_FRAMES);
	struct arrival *a = &g.arr[g.narr++];
	a->port = nic;
	a->cycle = cycle;
	identify(a, bytes, len);
}

static enum nicsim_fault on_fault(void *arg, unsigned from, unsigned to, const uint8_t *frame,
				  size_t len)
{
	(void)arg;
	const uint32_t seq = frame_seq(frame);
	if (g.hook_checks_bytes) {
		cr_assert_lt(seq, g.nsent[from][to]);
		const struct sent *s = &g.sent[from][to][seq];
		cr_assert(len == s->len && !memcmp(frame, s->bytes, len),
			  "the hook sees frame %u from %u to %u as it was sent", seq, from, to);
	}
	if (g.calls) {
		cr_assert_lt(g.ncalls, MAX_FRAMES);
		g.calls[g.ncalls++] = (struct hook_call){ from, to, seq };
	}
	return g.script(from, to, seq);
}

static struct nicsim_config fconfig(unsigned ports, uint64_t seed)
{
	struct nicsim_config c = raw_config(ports);
	c.link_ns = 500; /* 125 cycles */
	c.seed = seed;
	return c;
}

static void fnet_open(const struct nicsim_config *c, bool keep_arrivals)
{
	memset(&g, 0, sizeof(g));
	g.ports = c->nics;
	cr_assert_leq(g.ports, MAX_PORTS);
	cr_assert_eq(nicsim_net_create(c, &g.net), 0);
	nicsim_net_set_frame_handler(g.net, on_frame, NULL);
	for (unsigned i = 0; i < g.ports; i++) {
		nicsim_net_port_out(g.net, i)->rx_tready = true;
		for (unsigned j = 0; j < g.ports; j++) {
			g.sent[i][j] = calloc(MAX_FRAMES, sizeof(struct sent));
			cr_assert_not_null(g.sent[i][j]);
		}
	}
	if (keep_arrivals) {
		g.arr = calloc(2 * MAX_FRAMES, sizeof(*g.arr));
		cr_assert_not_null(g.arr);
	}
}

static void fnet_close(void)
{
	nicsim_net_destroy(g.net);
	for (unsigned i = 0; i < g.ports; i++)
		for (unsigned j = 0; j < g.ports; j++)
			free(g.sent[i][j]);
	free(g.arr);
	free(g.calls);
	g.net = NULL;
}

static void fnet_hook(enum nicsim_fault (*script)(unsigned, unsigned, uint32_t), bool record)
{
	g.script = script;
	if (record) {
		g.calls = calloc(MAX_FRAMES, sizeof(*g.calls));
		cr_assert_not_null(g.calls);
	}
	nicsim_net_set_fault_hook(g.net, on_fault, NULL);
}

/* queue the sender's next frame to dst on its port */
static void fnet_send(unsigned src, unsigned dst)
{
	const uint32_t seq = g.nsent[src][dst];
	cr_assert_lt(seq, MAX_FRAMES);
	struct sent *s = &g.sent[src][dst][seq];
	build(s->bytes, &s->len, src, dst, seq);
	g.nsent[src][dst]++;
	cr_assert_eq(nicsim_net_inject(g.net, src, s->bytes, s->len), 0);
}

/* run until the network is empty (nothing arrived for a while and every port idle) */
static void fnet_drain(void)
{
	uint64_t quiet = 0;
	size_t last = g.received;
	while (quiet < 20000) {
		const char *err = nicsim_net_cycle(g.net, g.now++);
		cr_assert_null(err, "cycle %" PRIu64 ": %s", g.now - 1, err);
		if (g.received != last) {
			last = g.received;
			quiet = 0;
		} else {
			quiet++;
		}
		cr_assert_lt(g.now, 50000000, "the network never drains");
	}
}

static struct nicsim_stats fstats(unsigned port)
{
	struct nicsim_stats s;
	nicsim_net_get_stats(g.net, port, &s);
	return s;
}

/* The count of a kind among n frames, each hit with probability p, stays within z standard
 * deviations of n * p. The outcome is fixed by the seed, so this never flakes: it fails only
 * if the draw is biased (z = 5: a fair draw falls outside for ~1 seed in 1.7 million). */
static void expect_binomial(uint64_t count, uint64_t n, double p, const char *what)
{
	const double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));
	const double tol = 5 * sd;
	cr_expect(fabs((double)count - mean) <= tol,
		  "%s: %" PRIu64 " of %" PRIu64 " frames, want %.1f +- %.1f (5 sigma)", what, count,
		  n, mean, tol);
}

/* ---- the rates -------------------------------------------------------------------------------- */

struct kind_counts {
	uint64_t dropped, corrupted, duplicated, reordered;
};

/* n frames from port 0 to port 1 at these rates; what the receiver saw, checked against the
 * sender's fault counts */
static struct kind_counts run_rates(uint64_t seed, unsigned n, double drop, double corrupt,
				    double dup, double reorder, uint32_t depth)
{
	struct nicsim_config c = fconfig(2, seed);
	c.drop_rate = drop;
	c.corrupt_rate = corrupt;
	c.duplicate_rate = dup;
	c.reorder_rate = reorder;
	c.reorder_depth = depth;
	fnet_open(&c, true);
	for (unsigned i = 0; i < n; i++)
		fnet_send(0, 1);
	fnet_drain();
	const struct nicsim_stats s = fstats(0);
	struct kind_counts k = { s.faults_dropped, s.faults_corrupted, s.faults_duplicated,
				 s.faults_reordered };
	/* what arrived agrees with what the sender's counts say happened */
	uint32_t *copies = calloc(n, sizeof(*copies));
	uint64_t corrupted = 0, late = 0;
	uint32_t highest = 0;
	bool any = false;
	for (size_t i = 0; i < g.narr; i++) {
		const struct arrival *a = &g.arr[i];
		cr_assert_eq(a->port, 1);
		copies[a->seq]++;
		corrupted += a->corrupted;
		if (any && a->seq < highest)
			late++;
		if (!any || a->seq > highest)
			highest = a->seq;
		any = true;
	}
	uint64_t lost = 0, twice = 0;
	for (unsigned i = 0; i < n; i++) {
		lost += copies[i] == 0;
		twice += copies[i] == 2;
		cr_assert_leq(copies[i], 2, "frame %u arrived %u times", i, copies[i]);
	}
	free(copies);
	cr_expect_eq(lost, k.dropped, "frames lost vs faults_dropped");
	cr_expect_eq(twice, k.duplicated, "frames that arrived twice vs faults_duplicated");
	cr_expect_eq(corrupted, k.corrupted, "corrupted frames vs faults_corrupted");
	cr_expect_eq(g.narr, (uint64_t)n - k.dropped + k.duplicated);
	cr_expect_eq(s.frames_sent, n);
	cr_expect_eq(fstats(1).frames_received, g.narr);
	if (k.reordered)
		cr_expect_gt(late, 0, "reordered frames arrived after later ones");
	else
		cr_expect_eq(late, 0, "nothing reordered, yet frames arrived out of order");
	fnet_close();
	return k;
}

Test(faults_link, each_rate_alone_is_honoured_within_the_binomial_spread)
{
	static const double rates[] = { 0.001, 0.01, 0.05, 0.3 };
	const unsigned n = 20000;

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		const double p = rates[r];
		for (uint64_t seed = 1; seed <= 2; seed++) {
			char what[64];
			struct kind_counts k;

			k = run_rates(seed, n, p, 0, 0, 0, 4);
			snprintf(what, sizeof(what), "drop %g seed %" PRIu64, p, seed);
			expect_binomial(k.dropped, n, p, what);
			cr_expect_eq(k.corrupted + k.duplicated + k.reordered, 0);
			k = run_rates(seed, n, 0, p, 0, 0, 4);
			snprintf(what, sizeof(what), "corrupt %g seed %" PRIu64, p, seed);
			expect_binomial(k.corrupted, n, p, what);
			k = run_rates(seed, n, 0, 0, p, 0, 4);
			snprintf(what, sizeof(what), "duplicate %g seed %" PRIu64, p, seed);
			expect_binomial(k.duplicated, n, p, what);
			k = run_rates(seed, n, 0, 0, 0, p, 4);
			snprintf(what, sizeof(what), "reorder %g seed %" PRIu64, p, seed);
			expect_binomial(k.reordered, n, p, what);
		}
	}
}

/* All four at once: tried in the order drop, corrupt, duplicate, reorder, the first that hits
 * decides, so each later kind hits the frames none before it took. */
Test(faults_link, mixed_rates_each_take_their_share_in_order)
{
	const unsigned n = 30000;
	const double d = 0.04, c = 0.06, u = 0.05, r = 0.08;

	for (uint64_t seed = 11; seed <= 13; seed++) {
		const struct kind_counts k = run_rates(seed, n, d, c, u, r, 8);
		expect_binomial(k.dropped, n, d, "dropped");
		expect_binomial(k.corrupted, n, (1 - d) * c, "corrupted");
		expect_binomial(k.duplicated, n, (1 - d) * (1 - c) * u, "duplicated");
		expect_binomial(k.reordered, n, (1 - d) * (1 - c) * (1 - u) * r, "reordered");
	}
}

/* rate 1 hits every frame, rate 0 none */
Test(faults_link, rate_one_hits_every_frame)
{
	struct kind_counts k = run_rates(5, 500, 1, 0, 0, 0, 4);
	cr_expect_eq(k.dropped, 500);
	k = run_rates(5, 500, 0, 1, 0, 0, 4);
	cr_expect_eq(k.corrupted, 500);
	k = run_rates(5, 500, 0, 0, 1, 0, 4);
	cr_expect_eq(k.duplicated, 500);
}

/* ---- determinism -------------------------------------------------------------------------------- */

/* a digest of everything port 1 received: order, frame numbers, corruptions, cycles */
static uint64_t arrivals_digest(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < g.narr; i++) {
		const struct arrival *a = &g.arr[i];
		const uint64_t v[] = { a->port, a->src, a->seq, (uint64_t)(a->diff_bit + 1),
				       a->cycle };
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++)
			h = (h ^ v[j]) * 0x100000001b3ull;
	}
	return h;
}

static uint64_t mixed_run(uint64_t seed)
{
	struct nicsim_config c = fconfig(2, seed);
	c.drop_rate = 0.05;
	c.corrupt_rate = 0.05;
	c.duplicate_rate = 0.05;
	c.reorder_rate = 0.05;
	c.reorder_depth = 4;
	fnet_open(&c, true);
	for (unsigned i = 0; i < 3000; i++)
		fnet_send(0, 1);
	fnet_drain();
	const uint64_t h = arrivals_digest();
	fnet_close();
	return h;
}

Test(faults_link, the_same_seed_gives_the_same_faults_another_seed_others)
{
	const uint64_t a = mixed_run(42), b = mixed_run(42), c = mixed_run(43);
	cr_expect_eq(a, b, "seed 42 twice: different outcomes");
	cr_expect_neq(a, c, "seeds 42 and 43: the same outcome");
}

/* Raising a rate keeps the faults of the lower one: every frame takes the same draws whatever
 * the rates. */
Test(faults_link, a_higher_rate_drops_a_superset)
{
	bool low_lost[4000] = { false }, high_lost[4000] = { false };
	for (int pass = 0; pass < 2; pass++) {
		struct nicsim_config c = fconfig(2, 9);
		c.drop_rate = pass ? 0.1 : 0.02;
		fnet_open(&c, true);
		for (unsigned i = 0; i < 4000; i++)
			fnet_send(0, 1);
		fnet_drain();
		bool *lost = pass ? high_lost : low_lost;
		for (unsigned i = 0; i < 4000; i++)
			lost[i] = true;
		for (size_t i = 0; i < g.narr; i++)
			lost[g.arr[i].seq] = false;
		fnet_close();
	}
	unsigned low = 0, high = 0;
	for (unsigned i = 0; i < 4000; i++) {
		low += low_lost[i];
		high += high_lost[i];
		cr_expect(!low_lost[i] || high_lost[i], "frame %u lost at 2 %% but not at 10 %%",
			  i);
	}
	cr_expect_lt(low, high);
}

/* Each link and direction has its own stream: what happens on 0 -> 1 is the same whether or
 * not 0 -> 2, 2 -> 1 and 1 -> 0 carry traffic meanwhile. */
static void link_outcome(bool others, bool *lost, unsigned n)
{
	struct nicsim_config c = fconfig(3, 77);
	c.drop_rate = 0.1;
	fnet_open(&c, true);
	for (unsigned i = 0; i < n; i++) {
		fnet_send(0, 1);
		if (others && i % 3 != 2) {
			fnet_send(0, 2);
			fnet_send(2, 1);
			fnet_send(1, 0);
		}
	}
	fnet_drain();
	for (unsigned i = 0; i < n; i++)
		lost[i] = true;
	for (size_t i = 0; i < g.narr; i++)
		if (g.arr[i].src == 0 && g.arr[i].port == 1)
			lost[g.arr[i].seq] = false;
	fnet_close();
}

Test(faults_link, every_link_and_direction_draws_from_its_own_stream)
{
	enum { N = 2000 };
	static bool alone[N], busy[N];
	link_outcome(false, alone, N);
	link_outcome(true, busy, N);
	unsigned lost = 0;
	for (unsigned i = 0; i < N; i++) {
		lost += alone[i];
		cr_expect_eq(alone[i], busy[i],
			     "frame %u of 0 -> 1: lost %d alone, %d with traffic", i, alone[i],
			     busy[i]);
	}
	cr_expect_gt(lost, 0);
	/* and the two directions of one link differ */
	struct nicsim_config c = fconfig(2, 77);
	c.drop_rate = 0.1;
	fnet_open(&c, true);
	for (unsigned i = 0; i < N; i++) {
		fnet_send(0, 1);
		fnet_send(1, 0);
	}
	fnet_drain();
	static bool got01[N], got10[N];
	for (size_t i = 0; i < g.narr; i++)
		(g.arr[i].port == 1 ? got01 : got10)[g.arr[i].seq] = true;
	unsigned same = 0;
	for (unsigned i = 0; i < N; i++)
		same += got01[i] == got10[i];
	cr_expect_lt(same, N, "0 -> 1 and 1 -> 0 lost the same frames");
	fnet_close();
}

/* ---- what a corruption does --------------------------------------------------------------------- */

/* One bit, in what the receiver checks: never the Ethernet header (the switch routed the frame
 * already), the UDP checksum or the BTH byte the ICRC masks. Every corrupted RoCEv2 frame then
 * fails roce_ref's checks (IPv4 header checksum, lengths or ICRC), and the bits hit spread over
 * the whole frame. */
Test(faults_link, a_corruption_flips_one_bit_the_receiver_checks)
{
	struct nicsim_config c = fconfig(2, 3);
	c.corrupt_rate = 1;
	fnet_open(&c, true);
	for (unsigned i = 0; i < 2000; i++)
		fnet_send(0, 1);
	fnet_drain();
	cr_assert_eq(g.narr, 2000);
	const size_t len = g.sent[0][1][0].len;
	bool byte_hit[FRAME_MAX] = { false };
	for (size_t i = 0; i < g.narr; i++) {
		const struct arrival *a = &g.arr[i];
		cr_assert(a->corrupted, "frame %u arrived intact", a->seq);
		const size_t byte = (size_t)a->diff_bit / 8;
		cr_expect_geq(byte, 14, "frame %u: bit %d of the Ethernet header", a->seq,
			      a->diff_bit);
		cr_expect(byte != 40 && byte != 41 && byte != 46,
			  "frame %u: bit %d is one no check covers", a->seq, a->diff_bit);
		byte_hit[byte] = true;
		uint8_t copy[FRAME_MAX];
		memcpy(copy, g.sent[0][1][a->seq].bytes, len);
		copy[byte] ^= (uint8_t)(1u << (a->diff_bit % 8));
		const enum roce_ref_status st = roce_ref_parse(copy, len, NULL);
		cr_expect_neq(st, ROCE_REF_OK, "frame %u with bit %d flipped passes the checks",
			      a->seq, a->diff_bit);
	}
	unsigned hit = 0;
	for (size_t b = 14; b < len; b++)
		hit += byte_hit[b];
	cr_expect_eq(hit, len - 14 - 3, "2000 corruptions hit %u of the %zu bytes they may", hit,
		     len - 14 - 3);
	fnet_close();
}

/* ---- reordering ---------------------------------------------------------------------------------- */

/* A reordered frame is passed by at most reorder_depth later frames of its link (every depth
 * up to the bound is drawn), arrives, and no frame is lost or made twice. */
Test(faults_link, reorder_never_holds_a_frame_beyond_its_depth)
{
	static const uint32_t depths[] = { 1, 2, 4, 8 };
	const unsigned n = 6000;

	for (size_t k = 0; k < sizeof(depths) / sizeof(depths[0]); k++) {
		const uint32_t depth = depths[k];
		struct nicsim_config c = fconfig(2, 100 + depth);
		c.reorder_rate = 0.25;
		c.reorder_depth = depth;
		fnet_open(&c, true);
		for (unsigned i = 0; i < n; i++)
			fnet_send(0, 1);
		fnet_drain();
		cr_assert_eq(g.narr, n, "depth %u: %zu frames arrived of %u", depth, g.narr, n);
		/* passed[s]: frames sent after s that arrived before it */
		static bool arrived[6000];
		memset(arrived, 0, sizeof(arrived));
		unsigned most = 0, held = 0;
		for (size_t i = 0; i < g.narr; i++) {
			const uint32_t s = g.arr[i].seq;
			cr_assert(!arrived[s], "depth %u: frame %u arrived twice", depth, s);
			arrived[s] = true;
			unsigned passed = 0;
			for (size_t j = 0; j < i; j++)
				passed += g.arr[j].seq > s;
			cr_expect_leq(passed, depth, "depth %u: frame %u passed by %u later frames",
				      depth, s, passed);
			if (passed > most)
				most = passed;
			held += passed > 0;
		}
		cr_expect_eq(most, depth, "depth %u: no frame was held the whole depth", depth);
		cr_expect_gt(held, n / 8, "depth %u: %u frames were passed", depth, held);
		fnet_close();
	}
}

static enum nicsim_fault reorder_first(unsigned from, unsigned to, uint32_t seq)
{
	(void)from;
	(void)to;
	return seq == 0 ? NICSIM_FRAME_REORDER : NICSIM_FRAME_DELIVER;
}

/* A held frame whose link falls silent still arrives: after its drawn count times the link's
 * latency (at least 64 cycles each). With depth 1 that is one latency late, to the cycle. */
Test(faults_link, a_held_frame_on_a_silent_link_arrives_one_latency_per_step_late)
{
	uint64_t cycle[2];
	for (int pass = 0; pass < 2; pass++) {
		struct nicsim_config c = fconfig(2, 1);
		c.reorder_depth = 1;
		fnet_open(&c, true);
		if (pass)
			fnet_hook(reorder_first, false);
		fnet_send(0, 1);
		fnet_drain();
		cr_assert_eq(g.narr, 1);
		cycle[pass] = g.arr[0].cycle;
		cr_expect_eq(fstats(0).faults_reordered, (uint64_t)pass);
		fnet_close();
	}
	cr_expect_eq(cycle[1], cycle[0] + 125,
		     "held: received in cycle %" PRIu64 ", unheld in %" PRIu64
		     "; the latency is 125 cycles",
		     cycle[1], cycle[0]);
}

/* ---- the hook ----------------------------------------------------------------------------------- */

static enum nicsim_fault deliver_all(unsigned from, unsigned to, uint32_t seq)
{
	(void)from;
	(void)to;
	(void)seq;
	return NICSIM_FRAME_DELIVER;
}

/* its answer replaces the draw: drop rate 1, yet every frame arrives */
Test(faults_link, the_hook_overrides_the_drawn_fault)
{
	struct nicsim_config c = fconfig(2, 1);
	c.drop_rate = 1;
	fnet_open(&c, true);
	fnet_hook(deliver_all, true);
	g.hook_checks_bytes = true;
	for (unsigned i = 0; i < 50; i++)
		fnet_send(0, 1);
	fnet_drain();
	cr_expect_eq(g.narr, 50);
	cr_expect_eq(g.ncalls, 50, "the hook saw every frame once");
	cr_expect_eq(fstats(0).faults_dropped, 0);
	fnet_close();
}

static enum nicsim_fault script_each(unsigned from, unsigned to, uint32_t seq)
{
	(void)from;
	(void)to;
	switch (seq) {
	case 3:
		return NICSIM_FRAME_DROP;
	case 5:
		return NICSIM_FRAME_CORRUPT;
	case 7:
		return NICSIM_FRAME_DUPLICATE;
	case 9:
		return NICSIM_FRAME_REORDER;
	default:
		return NICSIM_FRAME_DELIVER;
	}
}

/* One frame of each fate, chosen by its PSN; the rest untouched, in order. */
Test(faults_link, the_hook_targets_single_frames)
{
	struct nicsim_config c = fconfig(2, 1);
	c.reorder_depth = 1;
	fnet_open(&c, true);
	fnet_hook(script_each, true);
	g.hook_checks_bytes = true;
	for (unsigned i = 0; i < 12; i++)
		fnet_send(0, 1);
	fnet_drain();
	static const uint32_t want[] = { 0, 1, 2, 4, 5, 6, 7, 7, 8, 10, 9, 11 };
	cr_assert_eq(g.narr, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < g.narr; i++) {
		cr_expect_eq(g.arr[i].seq, want[i], "arrival %zu: frame %u, want %u", i,
			     g.arr[i].seq, want[i]);
		cr_expect_eq(g.arr[i].corrupted, g.arr[i].seq == 5, "frame %u", g.arr[i].seq);
	}
	const struct nicsim_stats s = fstats(0);
	cr_expect_eq(s.faults_dropped, 1);
	cr_expect_eq(s.faults_corrupted, 1);
	cr_expect_eq(s.faults_duplicated, 1);
	cr_expect_eq(s.faults_reordered, 1);
	cr_expect_eq(g.ncalls, 12);
	for (size_t i = 0; i < g.ncalls; i++)
		cr_expect(g.calls[i].from == 0 && g.calls[i].to == 1 && g.calls[i].seq == i,
			  "call %zu: %u -> %u frame %u", i, g.calls[i].from, g.calls[i].to,
			  g.calls[i].seq);
	fnet_close();
}

/* One port: its frames loop back, and the hook sees them, from and to that port. */
Test(faults_link, the_hook_sees_looped_back_frames)
{
	struct nicsim_config c = fconfig(1, 1);
	fnet_open(&c, true);
	fnet_hook(script_each, true);
	for (unsigned i = 0; i < 5; i++)
		fnet_send(0, 0);
	fnet_drain();
	cr_expect_eq(g.ncalls, 5);
	for (size_t i = 0; i < g.ncalls; i++)
		cr_expect(g.calls[i].from == 0 && g.calls[i].to == 0);
	cr_expect_eq(g.narr, 4, "frame 3 dropped on the loopback");
	cr_expect_eq(fstats(0).faults_dropped, 1);
	fnet_close();
}

static enum nicsim_fault answer_nonsense(unsigned from, unsigned to, uint32_t seq)
{
	(void)from;
	(void)to;
	(void)seq;
	return (enum nicsim_fault)9;
}

/* an answer that is no fate stops the network with a message (a world makes it fatal) */
Test(faults_link, a_hook_answer_that_is_no_fate_is_an_error)
{
	struct nicsim_config c = fconfig(2, 1);
	fnet_open(&c, false);
	fnet_hook(answer_nonsense, false);
	fnet_send(0, 1);
	const char *err = NULL;
	for (int i = 0; i < 1000 && !err; i++)
		err = nicsim_net_cycle(g.net, g.now++);
	cr_expect(err && strstr(err, "fault hook answered 9"), "%s", err ? err : "no error");
	fnet_close();
}

static enum nicsim_fault by_sender(unsigned from, unsigned to, uint32_t seq)
{
	(void)to;
	(void)seq;
	return from == 0 ? NICSIM_FRAME_DROP :
	       from == 2 ? NICSIM_FRAME_DUPLICATE :
			   NICSIM_FRAME_DELIVER;
}

/* Faults are counted on the NIC that sent the frame, whoever receives it. */
Test(faults_link, faults_are_counted_per_sending_port)
{
	struct nicsim_config c = fconfig(3, 1);
	fnet_open(&c, true);
	fnet_hook(by_sender, false);
	for (unsigned i = 0; i < 5; i++) {
		fnet_send(0, 1);
		fnet_send(0, 2);
	}
	for (unsigned i = 0; i < 3; i++)
		fnet_send(2, 1);
	for (unsigned i = 0; i < 4; i++)
		fnet_send(1, 2);
	fnet_drain();
	const struct nicsim_stats s0 = fstats(0), s1 = fstats(1), s2 = fstats(2);
	cr_expect_eq(s0.faults_dropped, 10);
	cr_expect_eq(s0.faults_duplicated, 0);
	cr_expect_eq(s1.faults_dropped + s1.faults_duplicated + s1.faults_corrupted +
			     s1.faults_reordered,
		     0);
	cr_expect_eq(s2.faults_duplicated, 3);
	cr_expect_eq(s2.faults_dropped, 0);
	cr_expect_eq(s1.frames_received, 6, "port 1: 3 frames of port 2, twice each");
	cr_expect_eq(s2.frames_received, 4);
	fnet_close();
}

/* ---- the configuration ----------------------------------------------------------------------- */

Test(faults_config, nicsim_refuses_rates_that_are_no_probability)
{
	static const double bad[] = { -0.1, 1.0001, 2, NAN, INFINITY, -INFINITY };
	struct nicsim_net *net = NULL;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (int kind = 0; kind < 4; kind++) {
			struct nicsim_config c = fconfig(2, 1);
			double *r[] = { &c.drop_rate, &c.corrupt_rate, &c.duplicate_rate,
					&c.reorder_rate };
			c.reorder_depth = 4;
			*r[kind] = bad[i];
			cr_expect_eq(nicsim_net_create(&c, &net), -EINVAL, "kind %d rate %g", kind,
				     bad[i]);
		}
	struct nicsim_config c = fconfig(2, 1);
	c.reorder_rate = 0.1;
	c.reorder_depth = 0;
	cr_expect_eq(nicsim_net_create(&c, &net), -EINVAL, "reorder with depth 0");
	c.reorder_rate = 0;
	cr_assert_eq(nicsim_net_create(&c, &net), 0, "depth 0 without reordering is fine");
	nicsim_net_destroy(net);
	c = fconfig(2, 1);
	c.drop_rate = c.corrupt_rate = c.duplicate_rate = c.reorder_rate = 1;
	c.reorder_depth = 1;
	cr_assert_eq(nicsim_net_create(&c, &net), 0, "every rate 1");
	nicsim_net_destroy(net);
}

Test(faults_config, ndk_sim_defaults_are_a_perfect_network_and_depth_4)
{
	struct ndk_sim_config c;
	memset(&c, 0x5a, sizeof(c));
	ndk_sim_default_config(&c);
	cr_expect_eq(c.drop_rate, 0);
	cr_expect_eq(c.corrupt_rate, 0);
	cr_expect_eq(c.duplicate_rate, 0);
	cr_expect_eq(c.reorder_rate, 0);
	cr_expect_eq(c.reorder_depth, 4);
}

Test(faults_config, ndk_sim_create_refuses_bad_rates_and_a_zero_depth)
{
	static const double bad[] = { -1e-9, 1.5, NAN };
	struct ndk_sim *sim = NULL;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (int kind = 0; kind < 4; kind++) {
			struct ndk_sim_config c;
			ndk_sim_default_config(&c);
			double *r[] = { &c.drop_rate, &c.corrupt_rate, &c.duplicate_rate,
					&c.reorder_rate };
			*r[kind] = bad[i];
			cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER,
				     "kind %d rate %g", kind, bad[i]);
			cr_expect_null(sim);
		}
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.reorder_rate = 0.01;
	c.reorder_depth = 0;
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_null(sim);
}
