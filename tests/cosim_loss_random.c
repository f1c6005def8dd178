/* SPDX-License-Identifier: MIT */
/*
 * Seeded random runs over a lossy network (issue 16, docs/transport.md "Seeded random runs under
 * loss"): two NICs, two connections, a stream of requests each way on each (four streams),
 * Sends and Writes (and Reads behind LOSS_RANDOM_READS) of sizes 0, 1, MTU-1, MTU, MTU+1 and
 * log-uniform up to 64 KiB, 1-3 SGEs, INLINE, SILENT_SUCCESS and DEFER chains, while the
 * network drops, corrupts, duplicates or reorders frames at the test's rates (both directions
 * of every link, drawn from the world's seed). The requester's ACK timer and go-back-N replays
 * must bring every message through. The oracle:
 *   - every byte of every destination equals its source, and nothing around it was written;
 *   - every completion arrives once, in posting order per queue, SUCCESS, with the right type,
 *     bytes and contexts, and nothing completes after the run;
 *   - no hang: a run with no completion for STALL_CYCLES fails (the watchdog);
 *   - the counters reconcile: per NIC, the port's TX / RX packets are the harness's frames sent /
 *     received, its rx_dropped the frames the peer's link corrupted, frames received = the
 *     peer's frames sent - dropped + duplicated, and the sequence-error / RNR NAKs it counts sent
 *     and received are those seen on the wire (received: those that arrived intact).
 * The retransmissions are counted on the wire (request packets whose PSN went out before on
 * their stream, tests/roce_track) and printed with the faults; the port counters that have no
 * source in the RTL yet (retransmitted_packets, local_ack_timeouts, implied_naks,
 * out_of_sequence, duplicate_requests) are printed, not checked.
 *
 * Each test is one fault configuration over NDK_LOSS_SEEDS seeds (default LOSS_CI_SEEDS) of
 * NDK_LOSS_MESSAGES messages (default 2000): seed k is NDK_LOSS_SEED_BASE (default LOSS_SEED_BASE)
 * + k. A failure names its
 * seed and the one-line command that replays it alone (NDK_LOSS_SEED=s). NDK_LOSS_READS=1 puts
 * Reads among the requests (LOSS_RANDOM_READS is the default); NDK_LOSS_MAX_LEN caps the random
 * sizes; NDK_LOSS_REPORT=path appends one JSON line per test with its totals (make soak).
 *
 * Cost in `make test`: 3-9 s of one core per run of 2000 messages at width 256 (about 3x that
 * at width 64); the nine tests at LOSS_CI_SEEDS seeds, ~80 s at width 256 and ~3-6 min at width
 * 64 on a loaded machine (docs/transport.md has the measured figures); `make soak`
 * runs the full matrix (16 seeds each) and the million-message run at 1e-2 drop.
 */
#include <time.h>

#include "backend_sim.h" /* the world behind an ndk_sim: its frame handler */
#include "cosim_pair.h"
#include "nicsim.h"
#include "roce_ref.h"
#include "roce_track.h"

/* Reads among the requests (NDK_LOSS_READS=0 leaves them out) */
#define LOSS_RANDOM_READS 1
#define LOSS_CI_SEEDS	  2 /* seeds per configuration in make test; make soak runs 16 */
#define LOSS_SEED_BASE	  0x10550000ull

#define CONNS	     2
#define STREAMS	     (2 * CONNS)
#define EPOCH_OPS    8 /* requests per stream and epoch; the last a plain Send */
#define MAX_LEN	     65536u
#define POOL_BYTES   (256u << 10)
#define RECV_SLOT    (MAX_LEN + 1024u)
#define WRITE_SLOTS  4
#define WRITE_PAGES  (WRITE_SLOTS * MAX_LEN / NDK_PAGE_SIZE)
#define READ_SLOTS   2
#define RD_SRC_PAGES 32
#define RD_SRC_BYTES (RD_SRC_PAGES * NDK_PAGE_SIZE)
#define CANARY	     0xC3
/* the watchdog: no completion for this long is a hang. The longest legitimate silence is
 * retry_count + 1 ACK timeouts in a row (8 x 131 us at ack_timeout 5 = 262 144 cycles) */
#define STALL_CYCLES 2000000
/* 131 us (NDK_LOSS_ACK_TIMEOUT overrides it). With Reads a QP can wait longer than 65.5 us
 * (ack_timeout 4) for any acknowledgement without a loss: its Read queued at the peer behind the
 * other connection's Reads (the read-response queue holds 16 Reads of up to 64 KiB), while its
 * own requests and the peer's responses share the links. At width 64 (~10 B/cycle) that made
 * 5-11 ACK timeouts per run and hundreds of packets sent again with nothing lost; at 131 us
 * none (duplicate 1e-2, both seeds). */
#define ACK_TIMEOUT 5
#define RETRY_COUNT 7

enum op_kind { OP_SEND, OP_WRITE, OP_READ };

struct piece {
	uint32_t off, len;
};

struct op {
	enum op_kind kind;
	bool silent, inline_data;
	uint32_t len, seq;
	uint32_t nsge, nrecv;
	struct piece src[3], dst[3];
	uint32_t slot, slot_off;
};

struct stream {
	int conn, from;
	struct ndk_qp *qp_tx, *qp_rx;
	struct ndk_buffer pool, recv, sink;
	struct region wr, rd;
	uint32_t tx_priv, rx_priv;
	struct op ops[EPOCH_OPS];
	int nops, sq_next, rq_next;
	uint32_t seq;
	uint64_t msgs, target;
	uint64_t rng;
	bool busy;
};

/* what the wire showed (the frame handler) */
struct wire {
	struct roce_track *track;
	bool log;		   /* NDK_LOSS_LOG=1: every frame sent, on stderr */
	uint64_t retransmitted[2]; /* request packets a NIC sent again */
	uint64_t seq_naks_sent[2], seq_naks_rcvd[2], rnr_naks_sent[2], rnr_naks_rcvd[2];
};

struct fault_cfg {
	const char *name;
	double drop, corrupt, duplicate, reorder;
	uint32_t reorder_depth;
};

/* the totals of one test over its seeds (the report) */
struct totals {
	uint64_t runs, msgs, bytes, cycles, frames, retransmitted;
	uint64_t faults[4]; /* dropped, corrupted, duplicated, reordered */
	uint64_t seq_naks, kinds[3];
	double wall;
};

struct run {
	struct pair p;
	const struct fault_cfg *fc;
	uint64_t seed;
	uint32_t mtu, max_len;
	bool reads;
	struct ndk_qp *qp[CONNS][2];
	struct ndk_cq *cq[CONNS][2];
	struct stream st[STREAMS];
	struct wire w;
	uint64_t kinds[3], bytes, cpls;
};

static uint64_t rnd(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull); /* splitmix64 */
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t rnd_below(uint64_t *r, uint32_t n)
{
	return (uint32_t)(rnd(r) % n);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/* half the messages one of the edge sizes, half log-uniform 1 .. max */
static uint32_t rnd_len(struct run *r, uint64_t *g)
{
	const uint32_t edge[5] = { 0, 1, r->mtu - 1, r->mtu, r->mtu + 1 };
	if (rnd_below(g, 2) == 0)
		return edge[rnd_below(g, 5)];
	uint32_t b = rnd_below(g, 17);
	uint32_t lo = 1u << b, len = lo + rnd_below(g, lo);
	return len > r->max_len ? r->max_len : len;
}

static void *qp_ctx(int conn, int side)
{
	return (void *)(uintptr_t)(0x7100 + 2 * conn + side);
}

static void *req_ctx(int stream, uint32_t seq, bool recv)
{
	return (void *)(uintptr_t)((uint64_t)(stream + 1) << 40 | (uint64_t)recv << 39 | seq);
}

static void split(uint64_t *g, uint32_t len, uint32_t n, uint32_t *out)
{
	uint32_t left = len;
	for (uint32_t i = 0; i + 1 < n; i++) {
		uint32_t most = left - (n - 1 - i);
		out[i] = 1 + rnd_below(g, most);
		left -= out[i];
	}
	if (n)
		out[n - 1] = left;
}

/* the replay line every failure ends with */
#define REPLAY_FMT                                                                    \
	" [seed 0x%" PRIx64 "; replay: NDK_LOSS_SEED=0x%" PRIx64 " NDK_SIM_WIDTH=%u " \
	"build/tests/ndk_tests --filter 'loss_random/%s']"
#define REPLAY_ARGS(r) (r)->seed, (r)->seed, (r)->p.sim->config.data_width, (r)->fc->name

#define run_fail(r, fmt, ...)                                                           \
	cr_assert_fail("cycle %" PRIu64 ": " fmt REPLAY_FMT, ndk_sim_cycle((r)->p.sim), \
		       ##__VA_ARGS__, REPLAY_ARGS(r))

/* ---- the wire ------------------------------------------------------------------------------ */

static bool is_request(uint8_t op)
{
	return roce_track_is_send(op) || roce_track_is_write(op) || op == ROCE_OP_READ_REQUEST;
}

static void on_frame(void *ctx, enum nicsim_frame_event what, unsigned nic, uint64_t cycle,
		     const uint8_t *bytes, size_t len)
{
	struct wire *w = ctx;
	if (nic >= 2)
		return;
	if (what == NICSIM_FRAME_SENT) {
		struct roce_frame f;
		if (!roce_track_frame(w->track, nic, 1 - nic, bytes, len, &f))
			return;
		if (w->log)
			fprintf(stderr,
				"loss_random: cycle %" PRIu64
				" NIC %u sent %s QP 0x%x PSN 0x%06x%s "
				"syndrome 0x%02x msn 0x%06x, transmission %u\n",
				cycle, nic, roce_ref_opcode_name(f.opcode), f.dest_qp, f.psn,
				f.ackreq ? " AckReq" : "", f.fields.aeth_syndrome,
				f.fields.aeth_msn, f.transmission);
		if (is_request(f.opcode) && f.transmission > 1)
			w->retransmitted[nic]++;
		if (f.opcode == ROCE_OP_ACKNOWLEDGE) {
			w->seq_naks_sent[nic] += f.fields.aeth_syndrome == 0x60;
			w->rnr_naks_sent[nic] += (f.fields.aeth_syndrome >> 5) == 1;
		}
	} else if (what == NICSIM_FRAME_RECEIVED) {
		struct roce_ref_fields f;
		if (roce_ref_parse(bytes, len, &f) != ROCE_REF_OK)
			return; /* a corrupted frame: the NIC drops it */
		if (w->log)
			fprintf(stderr,
				"loss_random: cycle %" PRIu64 " NIC %u received %s QP 0x%x PSN "
				"0x%06x syndrome 0x%02x\n",
				cycle, nic, roce_ref_opcode_name(f.opcode), f.dest_qp, f.psn,
				f.aeth_syndrome);
		if (f.opcode != ROCE_OP_ACKNOWLEDGE)
			return;
		w->seq_naks_rcvd[nic] += f.aeth_syndrome == 0x60;
		w->rnr_naks_rcvd[nic] += (f.aeth_syndrome >> 5) == 1;
	}
}

/* ---- set-up ---------------------------------------------------------------------------------- */

static void run_open(struct run *r, const struct fault_cfg *fc, uint64_t seed, uint64_t msgs)
{
	memset(r, 0, sizeof(*r));
	r->fc = fc;
	r->seed = seed;
	r->reads = env_u64("NDK_LOSS_READS", LOSS_RANDOM_READS) != 0;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	c.seed = seed;
	c.drop_rate = fc->drop;
	c.corrupt_rate = fc->corrupt;
	c.duplicate_rate = fc->duplicate;
	c.reorder_rate = fc->reorder;
	if (fc->reorder_depth)
		c.reorder_depth = fc->reorder_depth;
	r->mtu = c.path_mtu;
	r->max_len = (uint32_t)env_u64("NDK_LOSS_MAX_LEN", MAX_LEN);
	if (r->max_len < r->mtu + 1 || r->max_len > MAX_LEN)
		r->max_len = MAX_LEN;
	/* the pair's own QPs stay idle; the run's connections are its own */
	struct ndk_connect_attr none;
	ndk_connect_attr_default(&none);
	struct pair_opts po = { .attr = &none };
	pair_open_opts(&r->p, &c, &po);
	r->w.track = roce_track_new();
	r->w.log = env_u64("NDK_LOSS_LOG", 0) != 0;
	cr_assert_not_null(r->w.track);
	nicsim_set_frame_handler(r->p.sim->world, on_frame, &r->w);
	uint64_t g = seed ^ 0xC0FFEEull;
	for (int k = 0; k < CONNS; k++) {
		for (int i = 0; i < 2; i++) {
			struct side *s = &r->p.s[i];
			cr_assert_eq(ndk_create_cq(s->ad, 64, NULL, NULL, &r->cq[k][i]),
				     NDK_STATUS_SUCCESS);
			struct ndk_qp_attr a = {
				.receive_cq = r->cq[k][i],
				.initiator_cq = r->cq[k][i],
				.qp_context = qp_ctx(k, i),
				.receive_queue_depth = 2 * EPOCH_OPS,
				.initiator_queue_depth = 2 * EPOCH_OPS,
				.max_receive_request_sge = s->info.max_receive_request_sge,
				.max_initiator_request_sge = s->info.max_initiator_request_sge,
				.inline_data_size = s->info.max_inline_data_size,
			};
			cr_assert_eq(ndk_create_qp(s->pd, &a, &r->qp[k][i]), NDK_STATUS_SUCCESS);
		}
		/* start PSNs drawn near the top, so every run crosses the 24-bit wrap */
		struct ndk_connect_attr attr;
		ndk_connect_attr_default(&attr);
		attr.ack_timeout = (uint8_t)env_u64("NDK_LOSS_ACK_TIMEOUT", ACK_TIMEOUT);
		attr.retry_count = RETRY_COUNT;
		attr.local_psn = 0xFFFFFF - rnd_below(&g, 64);
		attr.remote_psn = 0xFFFFFF - rnd_below(&g, 64);
		attr.inbound_read_limit = r->p.s[0].info.max_inbound_read_limit;
		attr.outbound_read_limit = r->p.s[0].info.max_outbound_read_limit;
		qps_connect_attr(r->qp[k][0], r->qp[k][1], &attr);
	}
	for (int n = 0; n < STREAMS; n++) {
		struct stream *st = &r->st[n];
		st->conn = n / 2;
		st->from = n % 2;
		struct side *tx = &r->p.s[st->from], *rx = &r->p.s[1 - st->from];
		st->qp_tx = r->qp[st->conn][st->from];
		st->qp_rx = r->qp[st->conn][1 - st->from];
		st->tx_priv = tx->priv;
		st->rx_priv = rx->priv;
		cr_assert_eq(ndk_alloc_buffer(tx->ad, POOL_BYTES, &st->pool), NDK_STATUS_SUCCESS);
		cr_assert_eq(ndk_alloc_buffer(rx->ad, (size_t)EPOCH_OPS * RECV_SLOT, &st->recv),
			     NDK_STATUS_SUCCESS);
		cr_assert_eq(ndk_alloc_buffer(tx->ad, (size_t)READ_SLOTS * RECV_SLOT, &st->sink),
			     NDK_STATUS_SUCCESS);
		st->rng = seed ^ (0x1000193ull * (uint64_t)(n + 1));
		for (uint32_t i = 0; i < POOL_BYTES; i++)
			((uint8_t *)st->pool.va)[i] = (uint8_t)rnd(&st->rng);
		side_region(&r->p, rx, &st->wr, WRITE_PAGES, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
		side_region(&r->p, rx, &st->rd, RD_SRC_PAGES, NDK_OP_FLAG_ALLOW_REMOTE_READ);
		for (uint32_t i = 0; i < RD_SRC_BYTES; i++)
			((uint8_t *)st->rd.buf.va)[i] = (uint8_t)rnd(&st->rng);
		st->target = (msgs + STREAMS - 1) / STREAMS;
	}
}

static void run_close(struct run *r)
{
	nicsim_set_frame_handler(r->p.sim->world, NULL, NULL);
	roce_track_free(r->w.track);
	for (int n = 0; n < STREAMS; n++) {
		struct stream *st = &r->st[n];
		struct side *tx = &r->p.s[st->from], *rx = &r->p.s[1 - st->from];
		side_region_free(&r->p, rx, &st->wr);
		side_region_free(&r->p, rx, &st->rd);
		ndk_free_buffer(tx->ad, &st->sink);
		ndk_free_buffer(tx->ad, &st->pool);
		ndk_free_buffer(rx->ad, &st->recv);
	}
	for (int k = 0; k < CONNS; k++)
		for (int i = 0; i < 2; i++) {
			ndk_close_qp(r->qp[k][i]);
			ndk_close_cq(r->cq[k][i]);
		}
	pair_close(&r->p);
}

/* ---- one epoch: plan, post, check ----------------------------------------------------------- */

static void epoch_plan(struct run *r, struct stream *st)
{
	const uint32_t max_inline = r->p.s[st->from].info.max_inline_data_size;
	uint32_t writes = 0, reads = 0, sends = 0;
	st->nops = EPOCH_OPS;
	for (int i = 0; i < EPOCH_OPS; i++) {
		struct op *o = &st->ops[i];
		memset(o, 0, sizeof(*o));
		o->seq = st->seq++;
		bool last = i + 1 == EPOCH_OPS;
		uint32_t pick = rnd_below(&st->rng, r->reads ? 3 : 2);
		o->kind = last || pick == 0 || (pick == 1 && writes == WRITE_SLOTS) ||
					  (pick == 2 && reads == READ_SLOTS) ?
				  OP_SEND :
			  pick == 1 ? OP_WRITE :
				      OP_READ;
		o->len = rnd_len(r, &st->rng);
		o->silent = !last && rnd_below(&st->rng, 4) == 0;
		o->inline_data = o->len > 0 && o->len <= max_inline &&
				 rnd_below(&st->rng, 2) == 0 && o->kind != OP_READ;
		uint32_t max_sge = o->kind == OP_SEND ? 3 : 2;
		o->nsge = o->len == 0 ? 0 : 1 + rnd_below(&st->rng, max_sge);
		if (o->nsge > o->len)
			o->nsge = o->len;
		uint32_t lens[3];
		split(&st->rng, o->len, o->nsge, lens);
		for (uint32_t k = 0; k < o->nsge; k++) {
			o->src[k].len = lens[k];
			o->src[k].off = rnd_below(&st->rng, POOL_BYTES - lens[k] + 1);
		}
		if (o->kind == OP_WRITE) {
			o->slot = writes++;
			o->slot_off = rnd_below(&st->rng, MAX_LEN - o->len + 1);
		} else if (o->kind == OP_READ) {
			o->slot = reads++;
			o->src[0].off = rnd_below(&st->rng, RD_SRC_BYTES - o->len + 1);
			uint32_t at = rnd_below(&st->rng, 16);
			for (uint32_t k = 0; k < o->nsge; k++) {
				o->dst[k].off = at;
				o->dst[k].len = lens[k];
				at += lens[k] + rnd_below(&st->rng, 16);
			}
		} else {
			/* the receive: 1..3 SGEs, the message and up to 64 bytes more, gaps */
			o->slot = sends++;
			uint32_t room = o->len + 1 + rnd_below(&st->rng, 64);
			o->nrecv = 1 + rnd_below(&st->rng, 3);
			if (o->nrecv > room)
				o->nrecv = room;
			split(&st->rng, room, o->nrecv, lens);
			uint32_t at = rnd_below(&st->rng, 16);
			for (uint32_t k = 0; k < o->nrecv; k++) {
				o->dst[k].off = at;
				o->dst[k].len = lens[k];
				at += lens[k] + rnd_below(&st->rng, 16);
			}
		}
	}
}

static void post_ok(struct run *r, ndk_status s, const char *what, int n, uint32_t seq)
{
	if (s != NDK_STATUS_SUCCESS)
		run_fail(r, "stream %d request %u: %s: %s", n, seq, what, ndk_status_name(s));
}

static void epoch_post(struct run *r, struct stream *st, int n)
{
	memset(st->recv.va, CANARY, (size_t)EPOCH_OPS * RECV_SLOT);
	memset(st->wr.buf.va, CANARY, (size_t)WRITE_PAGES * NDK_PAGE_SIZE);
	memset(st->sink.va, CANARY, (size_t)READ_SLOTS * RECV_SLOT);
	for (int i = 0; i < st->nops; i++) {
		struct op *o = &st->ops[i];
		if (o->kind != OP_SEND)
			continue;
		struct ndk_sge g[3];
		for (uint32_t k = 0; k < o->nrecv; k++) {
			g[k].address =
				st->recv.logical + (uint64_t)o->slot * RECV_SLOT + o->dst[k].off;
			g[k].length = o->dst[k].len;
			g[k].token = st->rx_priv;
		}
		post_ok(r, ndk_receive(st->qp_rx, req_ctx(n, o->seq, true), g, o->nrecv), "receive",
			n, o->seq);
	}
	for (int i = 0; i < st->nops; i++) {
		struct op *o = &st->ops[i];
		struct ndk_sge g[3];
		for (uint32_t k = 0; k < o->nsge; k++) {
			g[k].address = o->inline_data ?
					       (uint64_t)(uintptr_t)st->pool.va + o->src[k].off :
					       st->pool.logical + o->src[k].off;
			g[k].length = o->src[k].len;
			g[k].token = st->tx_priv;
			if (o->kind == OP_READ) {
				g[k].address = st->sink.logical + (uint64_t)o->slot * RECV_SLOT +
					       o->dst[k].off;
				g[k].length = o->dst[k].len;
			}
		}
		uint32_t flags = 0;
		if (o->silent)
			flags |= NDK_OP_FLAG_SILENT_SUCCESS;
		if (o->inline_data)
			flags |= NDK_OP_FLAG_INLINE;
		if (i + 1 < st->nops && rnd_below(&st->rng, 3) == 0)
			flags |= NDK_OP_FLAG_DEFER;
		r->kinds[o->kind]++;
		void *ctx = req_ctx(n, o->seq, false);
		switch (o->kind) {
		case OP_SEND:
			post_ok(r, ndk_send(st->qp_tx, ctx, g, o->nsge, flags), "send", n, o->seq);
			break;
		case OP_WRITE:
			post_ok(r,
				ndk_write(st->qp_tx, ctx, g, o->nsge,
					  (uint64_t)(uintptr_t)st->wr.buf.va +
						  (uint64_t)o->slot * MAX_LEN + o->slot_off,
					  ndk_get_remote_token_from_mr(st->wr.mr), flags),
				"write", n, o->seq);
			break;
		case OP_READ:
			post_ok(r,
				ndk_read(st->qp_tx, ctx, g, o->nsge,
					 (uint64_t)(uintptr_t)st->rd.buf.va + o->src[0].off,
					 ndk_get_remote_token_from_mr(st->rd.mr), flags),
				"read", n, o->seq);
			break;
		}
	}
	st->msgs += (uint64_t)st->nops;
	st->sq_next = 0;
	st->rq_next = 0;
	st->busy = true;
}

static bool all_canary(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != CANARY)
			return false;
	return true;
}

/* the bytes of SGE-scattered destinations (receive or Read sink) against the message */
static void check_scatter(struct run *r, int n, const struct op *o, const uint8_t *slot,
			  const uint8_t *want, uint32_t nd, const char *what)
{
	uint32_t at = 0, prev_end = 0;
	for (uint32_t k = 0; k < nd; k++) {
		const struct piece *d = &o->dst[k];
		if (!all_canary(slot + prev_end, d->off - prev_end))
			run_fail(r, "stream %d %s %u: a gap before SGE %u was written", n, what,
				 o->seq, k);
		uint32_t take = at >= o->len ? 0 : o->len - at < d->len ? o->len - at : d->len;
		if (memcmp(slot + d->off, want + at, take) != 0)
			run_fail(r, "stream %d %s %u (%u bytes): SGE %u differs", n, what, o->seq,
				 o->len, k);
		if (!all_canary(slot + d->off + take, d->len - take))
			run_fail(r, "stream %d %s %u: SGE %u written past the message", n, what,
				 o->seq, k);
		at += take;
		prev_end = d->off + d->len;
	}
	if (!all_canary(slot + prev_end, RECV_SLOT - prev_end))
		run_fail(r, "stream %d %s %u: written past its destination", n, what, o->seq);
}

static void epoch_check(struct run *r, struct stream *st, int n)
{
	static uint8_t want[MAX_LEN];
	bool recv_used[EPOCH_OPS] = { false }, slot_used[WRITE_SLOTS] = { false },
	     read_used[READ_SLOTS] = { false };
	for (int i = 0; i < st->nops; i++) {
		const struct op *o = &st->ops[i];
		if (o->kind == OP_READ) {
			read_used[o->slot] = true;
			check_scatter(r, n, o, (uint8_t *)st->sink.va + (size_t)o->slot * RECV_SLOT,
				      (uint8_t *)st->rd.buf.va + o->src[0].off, o->nsge, "Read");
			r->bytes += o->len;
			continue;
		}
		uint32_t at = 0;
		for (uint32_t k = 0; k < o->nsge; k++) {
			memcpy(want + at, (const uint8_t *)st->pool.va + o->src[k].off,
			       o->src[k].len);
			at += o->src[k].len;
		}
		if (o->kind == OP_WRITE) {
			const uint8_t *slot = (uint8_t *)st->wr.buf.va + (size_t)o->slot * MAX_LEN;
			slot_used[o->slot] = true;
			if (memcmp(slot + o->slot_off, want, o->len) != 0)
				run_fail(r,
					 "stream %d Write %u (%u bytes, %u SGEs%s): data differs",
					 n, o->seq, o->len, o->nsge,
					 o->inline_data ? ", inline" : "");
			if (!all_canary(slot, o->slot_off) ||
			    !all_canary(slot + o->slot_off + o->len,
					MAX_LEN - o->slot_off - o->len))
				run_fail(r, "stream %d Write %u: bytes outside it were written", n,
					 o->seq);
		} else {
			recv_used[o->slot] = true;
			check_scatter(r, n, o, (uint8_t *)st->recv.va + (size_t)o->slot * RECV_SLOT,
				      want, o->nrecv, "Send");
		}
		r->bytes += o->len;
	}
	for (int k = 0; k < EPOCH_OPS; k++)
		if (!recv_used[k] &&
		    !all_canary((uint8_t *)st->recv.va + (size_t)k * RECV_SLOT, RECV_SLOT))
			run_fail(r, "stream %d: an unused receive slot was written", n);
	for (int k = 0; k < READ_SLOTS; k++)
		if (!read_used[k] &&
		    !all_canary((uint8_t *)st->sink.va + (size_t)k * RECV_SLOT, RECV_SLOT))
			run_fail(r, "stream %d: an unused read slot was written", n);
	for (int k = 0; k < WRITE_SLOTS; k++)
		if (!slot_used[k] &&
		    !all_canary((uint8_t *)st->wr.buf.va + (size_t)k * MAX_LEN, MAX_LEN))
			run_fail(r, "stream %d: an unused Write slot was written", n);
}

static int next_sq(const struct stream *st, int from)
{
	while (from < st->nops && st->ops[from].silent)
		from++;
	return from;
}

static int next_rq(const struct stream *st, int from)
{
	while (from < st->nops && st->ops[from].kind != OP_SEND)
		from++;
	return from;
}

static void take(struct run *r, int k, int i, const struct ndk_result_ex *res)
{
	bool recv = res->type == NDK_OP_RECEIVE;
	int n = 2 * k + (recv ? 1 - i : i);
	struct stream *st = &r->st[n];
	r->cpls++;
	if (res->qp_context != qp_ctx(k, i))
		run_fail(r, "connection %d side %d: qp_context %p", k, i, res->qp_context);
	int at = recv ? next_rq(st, st->rq_next) : next_sq(st, st->sq_next);
	if (!st->busy || at == st->nops)
		run_fail(r, "stream %d: an unexpected completion (%s, type %u, context %p)", n,
			 ndk_status_name(res->status), res->type, res->request_context);
	const struct op *o = &st->ops[at];
	if (res->request_context != req_ctx(n, o->seq, recv))
		run_fail(r,
			 "stream %d: completion %p, want %p (%s of request %u): out of order, "
			 "lost or repeated",
			 n, res->request_context, req_ctx(n, o->seq, recv),
			 recv ? "receive" : "send queue", o->seq);
	if (res->status != NDK_STATUS_SUCCESS)
		run_fail(r, "stream %d request %u (%s, %u bytes, %u SGEs%s%s, epoch place %d): %s",
			 n, o->seq,
			 recv		     ? "receive" :
			 o->kind == OP_SEND  ? "Send" :
			 o->kind == OP_WRITE ? "Write" :
					       "Read",
			 o->len, o->nsge, o->inline_data ? ", inline" : "",
			 o->silent ? ", silent" : "", at, ndk_status_name(res->status));
	uint32_t type = recv		   ? NDK_OP_RECEIVE :
			o->kind == OP_SEND ? NDK_OP_SEND :
			o->kind == OP_READ ? NDK_OP_READ :
					     NDK_OP_WRITE;
	if (res->type != type)
		run_fail(r, "stream %d request %u: type %u, want %u", n, o->seq, res->type, type);
	if (recv && res->bytes_transferred != o->len)
		run_fail(r, "stream %d receive %u: %u bytes, want %u", n, o->seq,
			 res->bytes_transferred, o->len);
	if (recv)
		st->rq_next = at + 1;
	else
		st->sq_next = at + 1;
	if (next_sq(st, st->sq_next) == st->nops && next_rq(st, st->rq_next) == st->nops) {
		epoch_check(r, st, n);
		st->busy = false;
	}
}

/* ---- the counters ---------------------------------------------------------------------------- */

static void reconcile(struct run *r, const struct ndk_port_counters pc0[2],
		      const struct ndk_sim_stats s0[2])
{
	struct ndk_port_counters pc[2];
	struct ndk_sim_stats s[2];
	for (unsigned i = 0; i < 2; i++) {
		struct ndk_port_counters now;
		cr_assert_eq(ndk_query_port_counters(r->p.s[i].ad, &now), NDK_STATUS_SUCCESS);
		const uint64_t *a = (const uint64_t *)&pc0[i], *b = (const uint64_t *)&now;
		uint64_t *z = (uint64_t *)&pc[i];
		for (size_t k = 0; k < sizeof(now) / sizeof(uint64_t); k++)
			z[k] = b[k] - a[k];
		{
			struct ndk_sim_stats t;
			ndk_sim_get_stats(r->p.sim, i, &t);
			const uint64_t *c = (const uint64_t *)&s0[i], *d = (const uint64_t *)&t;
			uint64_t *y = (uint64_t *)&s[i];
			for (size_t k = 0; k < sizeof(t) / sizeof(uint64_t); k++)
				y[k] = d[k] - c[k];
		}
	}
	for (unsigned i = 0; i < 2; i++) {
		unsigned j = 1 - i; /* i receives what j sent */
		if (pc[i].tx_packets != s[i].frames_sent)
			run_fail(r, "NIC %u: port tx_packets %" PRIu64 ", the harness saw %" PRIu64,
				 i, pc[i].tx_packets, s[i].frames_sent);
		if (pc[i].rx_packets != s[i].frames_received)
			run_fail(r, "NIC %u: port rx_packets %" PRIu64 ", the harness saw %" PRIu64,
				 i, pc[i].rx_packets, s[i].frames_received);
		if (s[i].frames_received !=
		    s[j].frames_sent - s[j].faults_dropped + s[j].faults_duplicated)
			run_fail(r,
				 "NIC %u received %" PRIu64 " frames; NIC %u sent %" PRIu64
				 ", %" PRIu64 " dropped, %" PRIu64 " duplicated",
				 i, s[i].frames_received, j, s[j].frames_sent, s[j].faults_dropped,
				 s[j].faults_duplicated);
		if (pc[i].rx_dropped != s[j].faults_corrupted)
			run_fail(r, "NIC %u: port rx_dropped %" PRIu64 ", %" PRIu64 " corrupted", i,
				 pc[i].rx_dropped, s[j].faults_corrupted);
		if (pc[i].seq_naks_sent != r->w.seq_naks_sent[i] ||
		    pc[i].seq_naks_received != r->w.seq_naks_rcvd[i])
			run_fail(r,
				 "NIC %u: sequence NAKs sent / received %" PRIu64 " / %" PRIu64
				 ", on the wire %" PRIu64 " / %" PRIu64,
				 i, pc[i].seq_naks_sent, pc[i].seq_naks_received,
				 r->w.seq_naks_sent[i], r->w.seq_naks_rcvd[i]);
		if (pc[i].rnr_naks_sent != r->w.rnr_naks_sent[i] ||
		    pc[i].rnr_naks_received != r->w.rnr_naks_rcvd[i])
			run_fail(r,
				 "NIC %u: RNR NAKs sent / received %" PRIu64 " / %" PRIu64
				 ", on the wire %" PRIu64 " / %" PRIu64,
				 i, pc[i].rnr_naks_sent, pc[i].rnr_naks_received,
				 r->w.rnr_naks_sent[i], r->w.rnr_naks_rcvd[i]);
	}
	cr_log_info("loss_random/%s seed 0x%" PRIx64 ": port counters without a source yet: "
		    "retransmitted %" PRIu64 "/%" PRIu64 ", ACK timeouts %" PRIu64 "/%" PRIu64,
		    r->fc->name, r->seed, pc[0].retransmitted_packets, pc[1].retransmitted_packets,
		    pc[0].local_ack_timeouts, pc[1].local_ack_timeouts);
}

/* ---- one run, one test ------------------------------------------------------------------------ */

static void one_run(const struct fault_cfg *fc, uint64_t seed, uint64_t msgs, struct totals *t)
{
	static struct run r;
	run_open(&r, fc, seed, msgs);
	struct ndk_port_counters pc0[2];
	struct ndk_sim_stats s0[2];
	for (unsigned i = 0; i < 2; i++) {
		cr_assert_eq(ndk_query_port_counters(r.p.s[i].ad, &pc0[i]), NDK_STATUS_SUCCESS);
		ndk_sim_get_stats(r.p.sim, i, &s0[i]);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t c0 = ndk_sim_cycle(r.p.sim), last_progress = c0;
	for (;;) {
		bool running = false;
		for (int n = 0; n < STREAMS; n++) {
			struct stream *st = &r.st[n];
			if (!st->busy && st->msgs < st->target) {
				epoch_plan(&r, st);
				epoch_post(&r, st, n);
			}
			running |= st->busy;
		}
		if (!running)
			break;
		bool got = false;
		for (int k = 0; k < CONNS; k++)
			for (int i = 0; i < 2; i++) {
				struct ndk_result_ex res[16];
				size_t m = ndk_get_cq_results_ex(r.cq[k][i], res, 16);
				for (size_t j = 0; j < m; j++)
					take(&r, k, i, &res[j]);
				got |= m > 0;
			}
		if (got)
			last_progress = ndk_sim_cycle(r.p.sim);
		else if (ndk_sim_cycle(r.p.sim) - last_progress > STALL_CYCLES)
			run_fail(&r, "no completion for %u cycles: a hang", STALL_CYCLES);
		else
			ndk_sim_step(r.p.sim, 4);
	}
	uint64_t cycles = ndk_sim_cycle(r.p.sim) - c0;
	/* nothing more may complete: longer than a replay after an ACK timeout */
	ndk_sim_step(r.p.sim,
		     2 * (4096ull << env_u64("NDK_LOSS_ACK_TIMEOUT", ACK_TIMEOUT)) * 250 / 1000);
	for (int k = 0; k < CONNS; k++)
		for (int i = 0; i < 2; i++) {
			struct ndk_result_ex res;
			if (ndk_get_cq_results_ex(r.cq[k][i], &res, 1) != 0)
				run_fail(&r, "a completion after the run (%s, context %p)",
					 ndk_status_name(res.status), res.request_context);
		}
	reconcile(&r, pc0, s0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	uint64_t msgs_done = 0, retx = r.w.retransmitted[0] + r.w.retransmitted[1];
	struct ndk_sim_stats s[2];
	uint64_t f[4] = { 0 }, frames = 0;
	for (unsigned i = 0; i < 2; i++) {
		ndk_sim_get_stats(r.p.sim, i, &s[i]);
		f[0] += s[i].faults_dropped - s0[i].faults_dropped;
		f[1] += s[i].faults_corrupted - s0[i].faults_corrupted;
		f[2] += s[i].faults_duplicated - s0[i].faults_duplicated;
		f[3] += s[i].faults_reordered - s0[i].faults_reordered;
		frames += s[i].frames_sent - s0[i].frames_sent;
	}
	for (int n = 0; n < STREAMS; n++)
		msgs_done += r.st[n].msgs;
	fprintf(stderr,
		"loss_random/%s seed 0x%" PRIx64 ": %" PRIu64 " messages (%" PRIu64
		" Sends, %" PRIu64 " Writes, %" PRIu64 " Reads), %" PRIu64 " bytes, %" PRIu64
		" cycles (%.2f B/cycle); "
		"%" PRIu64 " frames, faults %" PRIu64 " dropped %" PRIu64 " corrupted %" PRIu64
		" duplicated %" PRIu64 " reordered; %" PRIu64
		" request packets retransmitted, %" PRIu64 " sequence NAKs; %.1f s\n",
		fc->name, seed, msgs_done, r.kinds[OP_SEND], r.kinds[OP_WRITE], r.kinds[OP_READ],
		r.bytes, cycles, (double)r.bytes / (double)cycles, frames, f[0], f[1], f[2], f[3],
		retx, r.w.seq_naks_sent[0] + r.w.seq_naks_sent[1], wall);
	t->runs++;
	t->msgs += msgs_done;
	t->bytes += r.bytes;
	t->cycles += cycles;
	t->frames += frames;
	t->retransmitted += retx;
	for (int k = 0; k < 4; k++)
		t->faults[k] += f[k];
	t->seq_naks += r.w.seq_naks_sent[0] + r.w.seq_naks_sent[1];
	for (int k = 0; k < 3; k++)
		t->kinds[k] += r.kinds[k];
	t->wall += wall;
	/* the rates were in force: a lossy configuration injected its faults */
	if ((fc->drop >= 1e-3 && f[0] == 0) || (fc->corrupt >= 1e-3 && f[1] == 0) ||
	    (fc->duplicate > 0 && f[2] == 0) || (fc->reorder > 0 && f[3] == 0))
		run_fail(&r, "a configured fault was never injected");
	run_close(&r);
}

/* the report line of make soak: appended to NDK_LOSS_REPORT */
static void report(const struct fault_cfg *fc, const struct totals *t, unsigned width)
{
	const char *path = getenv("NDK_LOSS_REPORT");
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "a");
	cr_assert_not_null(f, "NDK_LOSS_REPORT=%s cannot be opened", path);
	fprintf(f,
		"{\"test\": \"loss_random/%s\", \"width\": %u, \"drop\": %g, \"corrupt\": %g, "
		"\"duplicate\": %g, \"reorder\": %g, \"reorder_depth\": %u, \"seeds\": %" PRIu64
		", \"messages\": %" PRIu64 ", \"sends\": %" PRIu64 ", \"writes\": %" PRIu64
		", \"reads\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"cycles\": %" PRIu64
		", \"goodput_bytes_per_cycle\": %.4f, \"frames\": %" PRIu64
		", \"faults\": {\"dropped\": %" PRIu64 ", \"corrupted\": %" PRIu64
		", \"duplicated\": %" PRIu64 ", \"reordered\": %" PRIu64
		"}, \"retransmitted_packets\": %" PRIu64 ", \"seq_naks\": %" PRIu64
		", \"errors\": 0, \"wall_s\": %.1f}\n",
		fc->name, width, fc->drop, fc->corrupt, fc->duplicate, fc->reorder,
		fc->reorder_depth, t->runs, t->msgs, t->kinds[0], t->kinds[1], t->kinds[2],
		t->bytes, t->cycles, (double)t->bytes / (double)t->cycles, t->frames, t->faults[0],
		t->faults[1], t->faults[2], t->faults[3], t->retransmitted, t->seq_naks, t->wall);
	fclose(f);
}

static void run_cfg(const struct fault_cfg *fc)
{
	uint64_t msgs = env_u64("NDK_LOSS_MESSAGES", 2000);
	const char *one = getenv("NDK_LOSS_SEED");
	struct totals t = { 0 };
	unsigned width = 0;
	if (one && *one) {
		one_run(fc, strtoull(one, NULL, 0), msgs, &t);
	} else {
		uint64_t seeds = env_u64("NDK_LOSS_SEEDS", LOSS_CI_SEEDS);
		uint64_t base = env_u64("NDK_LOSS_SEED_BASE", LOSS_SEED_BASE);
		for (uint64_t k = 0; k < seeds; k++)
			one_run(fc, base + k, msgs, &t);
	}
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	width = c.data_width;
	fprintf(stderr,
		"loss_random/%s: %" PRIu64 " runs, %" PRIu64 " messages, %" PRIu64
		" faults, %" PRIu64 " retransmitted packets, %.3f B/cycle, 0 errors, %.1f s\n",
		fc->name, t.runs, t.msgs, t.faults[0] + t.faults[1] + t.faults[2] + t.faults[3],
		t.retransmitted, (double)t.bytes / (double)t.cycles, t.wall);
	report(fc, &t, width);
}

/* A configuration whose runs still find a bug of the transport (`known` names it; docs/transport.md
 * "Seeded random runs under loss") is skipped in make test, with the reason, unless
 * NDK_LOSS_ALL=1: make soak and a developer run it. Remove the reason when the bug is fixed. */
#define LOSS_TEST(nm, d, c, du, re, depth, known)                                       \
	Test(loss_random, nm, .timeout = 14400)                                         \
	{                                                                               \
		static const struct fault_cfg fc = { #nm, d, c, du, re, depth };        \
		if ((known) && !env_u64("NDK_LOSS_ALL", 0) && !getenv("NDK_LOSS_SEED")) \
			cr_skip_test("known bug: %s (NDK_LOSS_ALL=1 runs it)",          \
				     (const char *)(known));                            \
		run_cfg(&fc);                                                           \
	}

/* one fault kind at a time, then all mixed (no bug known: `known` is NULL everywhere) */
LOSS_TEST(drop_1e_4, 1e-4, 0, 0, 0, 0, NULL)
LOSS_TEST(drop_1e_3, 1e-3, 0, 0, 0, 0, NULL)
LOSS_TEST(drop_1e_2, 1e-2, 0, 0, 0, 0, NULL)
LOSS_TEST(drop_5e_2, 5e-2, 0, 0, 0, 0, NULL)
LOSS_TEST(corrupt_1e_3, 0, 1e-3, 0, 0, 0, NULL)
LOSS_TEST(corrupt_1e_2, 0, 1e-2, 0, 0, 0, NULL)
LOSS_TEST(duplicate_1e_2, 0, 0, 1e-2, 0, 0, NULL)
LOSS_TEST(reorder_1e_2, 0, 0, 0, 1e-2, 8, NULL)
LOSS_TEST(mixed, 1e-2, 1e-3, 1e-2, 1e-2, 8, NULL)
