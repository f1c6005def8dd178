/* SPDX-License-Identifier: MIT */
/*
 * Data integrity between two simulated hosts: a randomized run moving at least 16 MiB each way
 * over several connections at once, Sends and Writes mixed, message sizes from 1 byte to 64 KiB,
 * every SGE count each WQE format holds (Send and Receive 3, Write 2), INLINE data, DEFER chains
 * and SILENT_SUCCESS requests. Every byte is checked against the source it came from (and the
 * bytes around it against the pattern they held), every completion against the expected one:
 * type, status, bytes, request and QP context, per-queue order.
 *
 * NDK_INTEGRITY_SEED=n reruns with another seed (the seed used is printed);
 * NDK_INTEGRITY_BYTES=n changes the bytes moved each way (default 16 MiB), NDK_INTEGRITY_MTU=n
 * the path MTU (default 1024). Each stream (a
 * connection and direction) draws from its own generator, so a seed gives the same requests at
 * both data widths whatever the timing. The run goes in epochs per stream: up to EPOCH_OPS
 * requests into fresh destinations, the last a plain Send (RC order: when its receive completed,
 * every Write before it was placed); when all of an epoch's completions are in, its bytes are
 * checked and the destinations reused.
 */
#include <time.h>

#include "cosim_pair.h"

#define CONNS	     3		       /* connections between the two sides */
#define STREAMS	     (2 * CONNS)       /* one per connection and direction */
#define EPOCH_OPS    8		       /* requests per stream and epoch; the last is a plain Send */
#define MAX_LEN	     65536u	       /* the largest message */
#define POOL_BYTES   (256u << 10)      /* each stream's source bytes */
#define RECV_SLOT    (MAX_LEN + 1024u) /* a receive's room: message, slack, gaps */
#define WRITE_SLOTS  4		       /* Writes per epoch: one 64 KiB slot each */
#define WRITE_PAGES  (WRITE_SLOTS * MAX_LEN / NDK_PAGE_SIZE)
#define CANARY	     0xC3
#define STALL_CYCLES 500000 /* no completion for this long: the run hangs */
#define DEFAULT_SEED 0x5EED0005u
/* Reads: as likely as a Send or a Write. A stream's Read brings bytes of the receiving side's
 * read source (random, never written) into one of the sending side's read slots. */
#define READ_WEIGHT  1
#define READ_SLOTS   2
#define RD_SRC_PAGES 32
#define RD_SRC_BYTES (RD_SRC_PAGES * NDK_PAGE_SIZE)

enum op_kind { OP_SEND, OP_WRITE, OP_READ };

struct piece {
	uint32_t off, len; /* Send / Write: in the sender's pool; Receive: in the receive slot */
};

struct op {
	enum op_kind kind;
	bool silent, inline_data;
	uint32_t len, seq;
	uint32_t nsge, nrecv; /* source SGEs; receive SGEs (Send) */
	struct piece src[3], dst[3];
	uint32_t slot, slot_off; /* Write: region slot and offset in it; Send: receive slot;
				    Read: read slot, and its source offset in src[0].off */
};

struct stream {
	int conn, from; /* connection, sending side */
	struct ndk_qp *qp_tx, *qp_rx;
	struct ndk_buffer pool; /* sender's source bytes (never written after set-up) */
	struct ndk_buffer recv; /* receiver's receive slots */
	struct region wr;	/* receiver's remote-writable region (WRITE_SLOTS slots) */
	struct region rd;	/* receiver's remote-readable region: a Read's source */
	struct ndk_buffer sink; /* sender's read slots (READ_SLOTS of RECV_SLOT bytes) */
	uint32_t tx_priv, rx_priv;
	struct op ops[EPOCH_OPS];
	int nops;
	int sq_next, rq_next; /* the next expected completion, index into ops */
	uint32_t seq;
	uint64_t bytes, target;
	uint64_t rbytes; /* bytes its Reads brought the other way */
	uint64_t rng;	 /* the stream's own PRNG: its requests do not depend on the timing */
	bool busy;
};

struct run {
	struct pair p;
	struct ndk_qp *qp[CONNS][2];
	struct ndk_cq *cq[CONNS][2];
	struct stream st[STREAMS];
	uint64_t state;		   /* PRNG */
	uint64_t sge_counts[3][4]; /* [send, write, receive][nsge] */
	uint64_t kinds[3], silent, inlined, deferred, epochs, cpls;
};

static uint64_t rnd(uint64_t *state)
{
	/* splitmix64: the whole run follows from the seed */
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t rnd_below(uint64_t *r, uint32_t n)
{
	return (uint32_t)(rnd(r) % n);
}

/* 1 .. MAX_LEN, log-uniform: every power of two as likely as the next */
static uint32_t rnd_len(uint64_t *r)
{
	uint32_t b = rnd_below(r, 17);
	uint32_t lo = 1u << b, len = lo + rnd_below(r, lo);
	return len > MAX_LEN ? MAX_LEN : len;
}

static void *qp_ctx(int conn, int side)
{
	return (void *)(uintptr_t)(0x7100 + 2 * conn + side);
}

static void *req_ctx(int stream, uint32_t seq, bool recv)
{
	return (void *)(uintptr_t)((uint64_t)(stream + 1) << 40 | (uint64_t)recv << 39 | seq);
}

/* split len into n pieces of at least one byte */
static void split(uint64_t *r, uint32_t len, uint32_t n, uint32_t *out)
{
	uint32_t left = len;
	for (uint32_t i = 0; i + 1 < n; i++) {
		uint32_t most = left - (n - 1 - i);
		out[i] = 1 + rnd_below(r, most);
		left -= out[i];
	}
	out[n - 1] = left;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static void run_open(struct run *r, uint64_t seed, uint64_t target)
{
	memset(r, 0, sizeof(*r));
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 2;
	c.path_mtu = (uint32_t)env_u64("NDK_INTEGRITY_MTU", c.path_mtu);
	pair_open_cfg(&r->p, &c);
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
		qps_connect_limits(r->qp[k][0], r->qp[k][1], r->p.s[0].info.max_inbound_read_limit,
				   r->p.s[0].info.max_outbound_read_limit);
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
		st->rng = seed ^ (0x1000193ull * (uint64_t)(n + 1));
		for (uint32_t i = 0; i < POOL_BYTES; i++)
			((uint8_t *)st->pool.va)[i] = (uint8_t)rnd(&st->rng);
		side_region(&r->p, rx, &st->wr, WRITE_PAGES, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
		side_region(&r->p, rx, &st->rd, RD_SRC_PAGES, NDK_OP_FLAG_ALLOW_REMOTE_READ);
		for (uint32_t i = 0; i < RD_SRC_BYTES; i++)
			((uint8_t *)st->rd.buf.va)[i] = (uint8_t)rnd(&st->rng);
		cr_assert_eq(ndk_alloc_buffer(tx->ad, (size_t)READ_SLOTS * RECV_SLOT, &st->sink),
			     NDK_STATUS_SUCCESS);
		st->target = (target + CONNS - 1) / CONNS;
	}
}

static void run_close(struct run *r)
{
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

static void post_ok(struct run *r, ndk_status st, const char *what, int stream, uint32_t seq)
{
	if (st != NDK_STATUS_SUCCESS)
		cr_assert_fail("cycle %" PRIu64 ": stream %d request %u: %s: %s",
			       ndk_sim_cycle(r->p.sim), stream, seq, what, ndk_status_name(st));
}

/* choose the requests of one epoch */
static void epoch_plan(struct run *r, struct stream *st, int n)
{
	const uint32_t max_inline = r->p.s[st->from].info.max_inline_data_size;
	uint32_t writes = 0, sends = 0, reads = 0;
	st->nops = EPOCH_OPS;
	for (int i = 0; i < EPOCH_OPS; i++) {
		struct op *o = &st->ops[i];
		memset(o, 0, sizeof(*o));
		o->seq = st->seq++;
		bool last = i + 1 == EPOCH_OPS;
		uint32_t pick = rnd_below(&st->rng, 2 + READ_WEIGHT);
		o->kind = last || pick == 0 || (pick == 1 && writes == WRITE_SLOTS) ||
					  (pick == 2 && reads == READ_SLOTS) ?
				  OP_SEND :
			  pick == 1 ? OP_WRITE :
				      OP_READ;
		/* the extremes early in every stream: 1 byte and 64 KiB */
		o->len = o->seq == 0 ? 1 : o->seq == 1 ? MAX_LEN : rnd_len(&st->rng);
		o->silent = !last && rnd_below(&st->rng, 4) == 0;
		o->inline_data = o->len <= max_inline && rnd_below(&st->rng, 2) == 0 &&
				 o->kind != OP_READ;
		uint32_t max_sge = o->kind == OP_SEND ? 3 : 2;
		o->nsge = 1 + rnd_below(&st->rng, max_sge);
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
			/* its sink: the SGEs as split above, with gaps of up to 15 bytes */
			o->slot = reads++;
			o->src[0].off = rnd_below(&st->rng, RD_SRC_BYTES - o->len + 1);
			uint32_t at = rnd_below(&st->rng, 16);
			for (uint32_t k = 0; k < o->nsge; k++) {
				o->dst[k].off = at;
				o->dst[k].len = lens[k];
				at += lens[k] + rnd_below(&st->rng, 16);
			}
		} else if (o->kind == OP_SEND) {
			/* its receive: 1..3 SGEs holding the message and up to 64 bytes more,
			 * with gaps of up to 15 bytes between them */
			o->slot = sends++;
			uint32_t room = o->len + rnd_below(&st->rng, 65);
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
		(void)n;
	}
}

/* post one epoch: the receives first, then the requests (DEFER chains on the way) */
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
		r->sge_counts[2][o->nrecv]++;
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
		r->silent += o->silent;
		r->inlined += o->inline_data;
		r->deferred += (flags & NDK_OP_FLAG_DEFER) != 0;
		if (!o->inline_data)
			r->sge_counts[o->kind == OP_SEND ? 0 : 1][o->nsge]++;
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
	st->sq_next = 0;
	st->rq_next = 0;
	st->busy = true;
	r->epochs++;
}

/* the message's bytes, gathered from the pool as its SGEs name them */
static void gather(const struct stream *st, const struct op *o, uint8_t *out)
{
	uint32_t at = 0;
	for (uint32_t k = 0; k < o->nsge; k++) {
		memcpy(out + at, (const uint8_t *)st->pool.va + o->src[k].off, o->src[k].len);
		at += o->src[k].len;
	}
}

static bool all_canary(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != CANARY)
			return false;
	return true;
}

/* every byte of the epoch: messages where they belong, the pattern everywhere else */
static void epoch_check(struct run *r, struct stream *st, int n)
{
	static uint8_t want[MAX_LEN];
	bool recv_used[EPOCH_OPS] = { false }, slot_used[WRITE_SLOTS] = { false },
	     read_used[READ_SLOTS] = { false };
	for (int i = 0; i < st->nops; i++) {
		const struct op *o = &st->ops[i];
		if (o->kind == OP_READ) {
			/* the source bytes in the sink SGEs, the pattern in the gaps and after */
			const uint8_t *src = (uint8_t *)st->rd.buf.va + o->src[0].off;
			const uint8_t *slot = (uint8_t *)st->sink.va + (size_t)o->slot * RECV_SLOT;
			read_used[o->slot] = true;
			uint32_t at = 0, prev_end = 0;
			for (uint32_t k = 0; k < o->nsge; k++) {
				const struct piece *d = &o->dst[k];
				if (!all_canary(slot + prev_end, d->off - prev_end))
					cr_assert_fail(
						"stream %d Read %u: a gap before sink SGE %u "
						"was written",
						n, o->seq, k);
				if (memcmp(slot + d->off, src + at, d->len) != 0)
					cr_assert_fail(
						"stream %d Read %u (%u bytes, %u SGEs): sink "
						"SGE %u differs",
						n, o->seq, o->len, o->nsge, k);
				at += d->len;
				prev_end = d->off + d->len;
			}
			if (!all_canary(slot + prev_end, RECV_SLOT - prev_end))
				cr_assert_fail("stream %d Read %u: written past its sink", n,
					       o->seq);
			st->rbytes += o->len;
			continue;
		}
		gather(st, o, want);
		if (o->kind == OP_WRITE) {
			const uint8_t *slot = (uint8_t *)st->wr.buf.va + (size_t)o->slot * MAX_LEN;
			slot_used[o->slot] = true;
			if (memcmp(slot + o->slot_off, want, o->len) != 0)
				cr_assert_fail("stream %d Write %u (%u bytes, %u SGEs%s): the data "
					       "differs",
					       n, o->seq, o->len, o->nsge,
					       o->inline_data ? ", inline" : "");
			if (!all_canary(slot, o->slot_off) ||
			    !all_canary(slot + o->slot_off + o->len,
					MAX_LEN - o->slot_off - o->len))
				cr_assert_fail("stream %d Write %u: bytes outside it were written",
					       n, o->seq);
		} else {
			const uint8_t *slot = (uint8_t *)st->recv.va + (size_t)o->slot * RECV_SLOT;
			recv_used[o->slot] = true;
			uint32_t at = 0, prev_end = 0;
			for (uint32_t k = 0; k < o->nrecv; k++) {
				const struct piece *d = &o->dst[k];
				if (!all_canary(slot + prev_end, d->off - prev_end))
					cr_assert_fail(
						"stream %d Send %u: a gap before receive SGE "
						"%u was written",
						n, o->seq, k);
				uint32_t take = at >= o->len	     ? 0 :
						o->len - at < d->len ? o->len - at :
								       d->len;
				if (memcmp(slot + d->off, want + at, take) != 0)
					cr_assert_fail("stream %d Send %u (%u bytes, %u SGEs -> %u "
						       "SGEs%s): receive SGE %u differs",
						       n, o->seq, o->len, o->nsge, o->nrecv,
						       o->inline_data ? ", inline" : "", k);
				if (!all_canary(slot + d->off + take, d->len - take))
					cr_assert_fail("stream %d Send %u: receive SGE %u written "
						       "past the message",
						       n, o->seq, k);
				at += take;
				prev_end = d->off + d->len;
			}
			if (!all_canary(slot + prev_end, RECV_SLOT - prev_end))
				cr_assert_fail("stream %d Send %u: written past its receive", n,
					       o->seq);
		}
		st->bytes += o->len;
	}
	for (int k = 0; k < EPOCH_OPS; k++)
		if (!recv_used[k] &&
		    !all_canary((uint8_t *)st->recv.va + (size_t)k * RECV_SLOT, RECV_SLOT))
			cr_assert_fail("stream %d: an unused receive slot was written", n);
	for (int k = 0; k < READ_SLOTS; k++)
		if (!read_used[k] &&
		    !all_canary((uint8_t *)st->sink.va + (size_t)k * RECV_SLOT, RECV_SLOT))
			cr_assert_fail("stream %d: an unused read slot was written", n);
	for (int k = 0; k < WRITE_SLOTS; k++)
		if (!slot_used[k] &&
		    !all_canary((uint8_t *)st->wr.buf.va + (size_t)k * MAX_LEN, MAX_LEN))
			cr_assert_fail("stream %d: an unused Write slot was written", n);
	(void)r;
}

/* the next op of the stream that completes on its send queue / its receive queue */
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

static bool epoch_done(const struct stream *st)
{
	return next_sq(st, st->sq_next) == st->nops && next_rq(st, st->rq_next) == st->nops;
}

/* one completion of connection k's CQ on side i */
static void take(struct run *r, int k, int i, const struct ndk_result_ex *res)
{
	bool recv = res->type == NDK_OP_RECEIVE;
	/* side i sends stream 2k + i and receives stream 2k + (1 - i) */
	int n = 2 * k + (recv ? 1 - i : i);
	struct stream *st = &r->st[n];
	r->cpls++;
	if (res->qp_context != qp_ctx(k, i))
		cr_assert_fail("connection %d side %d: qp_context %p, want %p", k, i,
			       res->qp_context, qp_ctx(k, i));
	int at = recv ? next_rq(st, st->rq_next) : next_sq(st, st->sq_next);
	if (!st->busy || at == st->nops)
		cr_assert_fail("stream %d: an unexpected completion (%s, type %u, context %p)", n,
			       ndk_status_name(res->status), res->type, res->request_context);
	const struct op *o = &st->ops[at];
	void *want = req_ctx(n, o->seq, recv);
	if (res->request_context != want)
		cr_assert_fail("stream %d: completion %p, want %p (%s of request %u): out of "
			       "order, lost or repeated",
			       n, res->request_context, want, recv ? "receive" : "send queue",
			       o->seq);
	if (res->status != NDK_STATUS_SUCCESS)
		cr_assert_fail("stream %d request %u (%s): %s", n, o->seq, recv ? "receive" : "",
			       ndk_status_name(res->status));
	uint32_t type = recv		   ? NDK_OP_RECEIVE :
			o->kind == OP_SEND ? NDK_OP_SEND :
			o->kind == OP_READ ? NDK_OP_READ :
					     NDK_OP_WRITE;
	if (res->type != type)
		cr_assert_fail("stream %d request %u: type %u, want %u", n, o->seq, res->type,
			       type);
	if (recv && res->bytes_transferred != o->len)
		cr_assert_fail("stream %d receive %u: %u bytes, want %u", n, o->seq,
			       res->bytes_transferred, o->len);
	if (recv)
		st->rq_next = at + 1;
	else
		st->sq_next = at + 1;
	if (epoch_done(st)) {
		epoch_check(r, st, n);
		st->busy = false;
	}
}

Test(integrity, sixteen_mib_each_way_in_random_sends_writes_and_reads_over_three_connections,
     .timeout = 600)
{
	uint64_t seed = env_u64("NDK_INTEGRITY_SEED", DEFAULT_SEED);
	uint64_t target = env_u64("NDK_INTEGRITY_BYTES", 16ull << 20);
	fprintf(stderr,
		"integrity: seed 0x%" PRIx64 " (NDK_INTEGRITY_SEED), %" PRIu64 " bytes each way\n",
		seed, target);
	static struct run r;
	run_open(&r, seed, target);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t c0 = ndk_sim_cycle(r.p.sim), last_progress = c0;
	for (;;) {
		bool running = false;
		for (int n = 0; n < STREAMS; n++) {
			struct stream *st = &r.st[n];
			if (!st->busy && st->bytes < st->target) {
				epoch_plan(&r, st, n);
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
			cr_assert_fail("cycle %" PRIu64
				       ": no completion for %u cycles (seed 0x%" PRIx64 ")",
				       ndk_sim_cycle(r.p.sim), STALL_CYCLES, seed);
		else
			ndk_sim_step(r.p.sim, 4);
	}
	/* nothing more may complete */
	ndk_sim_step(r.p.sim, 5000);
	for (int k = 0; k < CONNS; k++)
		for (int i = 0; i < 2; i++) {
			struct ndk_result_ex res;
			cr_expect_eq(ndk_get_cq_results_ex(r.cq[k][i], &res, 1), 0,
				     "a completion after the run");
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uint64_t cycles = ndk_sim_cycle(r.p.sim) - c0;
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	uint64_t way[2] = { 0, 0 };
	for (int n = 0; n < STREAMS; n++)
		way[r.st[n].from] += r.st[n].bytes, way[1 - r.st[n].from] += r.st[n].rbytes;
	fprintf(stderr,
		"integrity: %" PRIu64 " bytes 0->1, %" PRIu64 " bytes 1->0 in %" PRIu64
		" epochs, %" PRIu64 " Sends, %" PRIu64 " Writes, %" PRIu64 " Reads (%" PRIu64
		" silent, %" PRIu64 " inline, %" PRIu64 " deferred), %" PRIu64
		" completions; %" PRIu64 " cycles (%.1f bytes per cycle both ways), %.1f s wall\n",
		way[0], way[1], r.epochs, r.kinds[OP_SEND], r.kinds[OP_WRITE], r.kinds[OP_READ],
		r.silent, r.inlined, r.deferred, r.cpls, cycles,
		(double)(way[0] + way[1]) / (double)cycles, wall);
	cr_expect_geq(way[0], target, "bytes from side 0 to side 1");
	cr_expect_geq(way[1], target, "bytes from side 1 to side 0");
	/* every SGE count each format holds was used */
	for (uint32_t k = 1; k <= 3; k++) {
		cr_expect_gt(r.sge_counts[0][k], 0, "Sends with %u SGEs", k);
		cr_expect_gt(r.sge_counts[2][k], 0, "Receives with %u SGEs", k);
	}
	for (uint32_t k = 1; k <= 2; k++)
		cr_expect_gt(r.sge_counts[1][k], 0, "Writes with %u SGEs", k);
	cr_expect_gt(r.kinds[OP_READ], 0, "Reads");
	cr_expect_gt(r.inlined, 0);
	cr_expect_gt(r.silent, 0);
	run_close(&r);
}
