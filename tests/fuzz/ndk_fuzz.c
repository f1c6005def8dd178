/* SPDX-License-Identifier: MIT */
/*
 * ndk_fuzz: a libFuzzer harness around the Verilated nic_core and libndk (docs/verification.md,
 * "Fuzzing").
 *
 * Every input runs in a fresh simulated world of one NIC whose port is looped back to itself:
 * QP A and QP B connected to each other (A's send and receive CQ is a small CQ0 of depth 4, B's
 * is CQ1), QP C unconnected (local requests, CQ1), one MR over 8 pages of host memory. The
 * input's bytes are a list of operations, each an opcode byte and its argument bytes (missing
 * bytes read as zero), decoded by run_op():
 *
 *   posts through libndk (Send, Write with a good or a bad token, Read, Receive, FastRegister /
 *   Invalidate of a second MR; with DEFER, SILENT_SUCCESS, SOLICIT, INLINE), polls, arms,
 *   moderation, flushes, time steps (1..64, 16..4096 and 1 K..256 K cycles); the driver's own
 *   doorbells of a deferred chain, the second 0..31 cycles after the first; doorbells no driver
 *   would write (SQ / RQ producer indices anywhere, CQ consumer indices and arm words anywhere);
 *   malformed WQEs written straight into a send ring (a copy of the last WQE with bytes of the
 *   input XORed in) and rung; received frames injected into the NIC's receive side (a frame the
 *   NIC sent earlier replayed as it was, truncated, with a bad ICRC, to another QP, with another
 *   opcode, or with a byte changed and the ICRC made good again); the network's faults (drop,
 *   corrupt, duplicate, reorder) on the next frames.
 *
 * After the last operation the world runs until quiet, then every QP is flushed and the world
 * runs again. The oracle:
 *   - the RTL's assertions and FORMAL properties (on in simulation: a failure aborts the world),
 *     the DMA firewall and the world's other fatal checks (nicsim: abort);
 *   - the scoreboard: on a queue the input did not tamper with (no raw doorbell, no malformed
 *     WQE, no injected frame other than exact replays, CQ not in error), every request posted
 *     with NDK_STATUS_SUCCESS completes exactly once (none for a successful SILENT_SUCCESS one),
 *     in posting order, with a known NDK status; a Write with a bad token never succeeds and
 *     changes no byte; the Write target holds exactly what the successful Writes wrote, in
 *     posting order (a replayed duplicate must not be executed again); with no disturbance of
 *     the A-B pair at all (no error, flush, fault or injection), every Write succeeds;
 *   - the hang watchdog: after the final flush, a request of an untampered queue that does not
 *     complete within FLUSH_CYCLES is a hang.
 * A violation prints what and where, and aborts (libFuzzer saves the input as a crash).
 *
 * libFuzzer's own coverage of this harness is widened with extra counters (the
 * __libfuzzer_extra_counters section) set from what the NIC did, as seen through its ports and
 * host memory only: completion (queue, type, status), the opcodes and AETH syndromes of the frames
 * it sent, CQ errors, notifications. The RTL model itself is not instrumented (docs say why).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_sim.h" /* the world behind an ndk_sim: frames, raw MMIO */
#include "ndk.h"
#include "ndk_internal.h" /* the rings, to write malformed WQEs straight into them */
#include "ndk_sim.h"
#include "nic_hw.h"
#include "nicsim.h"
#include "roce_ref.h"

#define MAX_OPS	     96
#define MAX_REQS     512
#define MAX_FRAMES   32
#define FRAME_CAP    2048
#define BUF_PAGES    8
#define SRC_OFF	     0	   /* pages 0-3: data of Sends and Writes, a fresh slice per post */
#define SRC_BYTES    16384 /* */
#define TGT_OFF	     16384 /* pages 4-5: the Write target (and what Reads read) */
#define TGT_BYTES    8192
#define SINK_OFF     24576 /* pages 6-7: receives and Read sinks */
#define SINK_BYTES   8192
#define QUIET_CYCLES 300000 /* after the last operation: let everything finish */
#define FLUSH_CYCLES 300000 /* after the flush: every untampered request must be done */

/* ---- extra counters: feedback from the NIC's behaviour ----------------------------------- */
__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t nic_feedback[512];

static void feedback(unsigned kind, unsigned value)
{
	unsigned h = (kind * 0x9E3779B1u) ^ (value * 0x85EBCA6Bu);
	h ^= h >> 15;
	nic_feedback[h % sizeof(nic_feedback)]++;
}

/* ---- the world of one input -------------------------------------------------------------- */
enum qsel { QA, QB, QC, NQ };
enum req_kind { K_SEND, K_WRITE, K_READ, K_RECV, K_FASTREG, K_INVAL, K_MALFORMED, K_SETUP };
static const char *const kind_name[] = { "send",    "write",	  "read",      "receive",
					 "fastreg", "invalidate", "malformed", "setup" };

struct req {
	unsigned qp;	/* enum qsel */
	bool rq;	/* on the receive queue */
	unsigned kind;	/* enum req_kind */
	unsigned seq;	/* posting order on its queue */
	bool silent;	/* SILENT_SUCCESS */
	bool bad_token; /* a Write whose remote token is wrong on purpose */
	uint32_t off, len;
	uint8_t fill; /* its data: fill + byte index */
	unsigned completions;
	ndk_status status;
};

struct fz {
	struct ndk_sim *sim;
	struct nicsim *world;
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq[2];
	struct ndk_qp *qp[NQ];
	struct ndk_mr *mr, *mr2;
	struct ndk_buffer buf;
	uint32_t ltoken, rtoken;
	struct req reqs[MAX_REQS];
	unsigned nreqs;
	unsigned posted[NQ][2], seen[NQ][2]; /* per queue: posted, and completions seen in order */
	bool tampered[NQ];		     /* the input went around the driver on this QP */
	bool cq_tampered[2];
	bool disturbed;	  /* the A-B pair saw an error, flush, fault or injection */
	bool mem_unknown; /* a mutated frame was injected: the target may change */
	unsigned src_used;
	unsigned notifications[2];
	ndk_status notify_status[2];
	/* frames the NIC sent, for replays */
	uint8_t frames[MAX_FRAMES][FRAME_CAP];
	size_t frame_len[MAX_FRAMES];
	unsigned nframes;
	/* network faults to apply to the next frames */
	enum ndk_sim_fault fault;
	unsigned fault_left;
	const uint8_t *in;
	size_t in_len, pos;
};

static struct fz *cur; /* for the failure messages */

static void report(struct fz *f);

__attribute__((noreturn, format(printf, 1, 2))) static void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "ndk_fuzz: FAIL at cycle %" PRIu64 ": ", cur ? ndk_sim_cycle(cur->sim) : 0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (cur && getenv("NDK_FUZZ_VERBOSE")) {
		report(cur);		   /* what every request did up to the failure */
		ndk_sim_destroy(cur->sim); /* closes NDK_SIM_TRACE's and NDK_SIM_PCAP's files */
	}
	fflush(stderr);
	abort();
}

static uint8_t in8(struct fz *f)
{
	return f->pos < f->in_len ? f->in[f->pos++] : 0;
}

static uint16_t in16(struct fz *f)
{
	uint16_t lo = in8(f);
	return (uint16_t)(lo | (uint16_t)in8(f) << 8);
}

static uint8_t *bufp(struct fz *f, uint32_t off)
{
	return (uint8_t *)f->buf.va + off;
}

static uint64_t bufva(struct fz *f, uint32_t off)
{
	return (uint64_t)(uintptr_t)f->buf.va + off;
}

static const ndk_status known_status[] = {
	NDK_STATUS_SUCCESS,
	NDK_STATUS_BUFFER_OVERFLOW,
	NDK_STATUS_ACCESS_VIOLATION,
	NDK_STATUS_INVALID_PARAMETER,
	NDK_STATUS_DATA_OVERRUN,
	NDK_STATUS_INSUFFICIENT_RESOURCES,
	NDK_STATUS_IO_TIMEOUT,
	NDK_STATUS_NOT_SUPPORTED,
	NDK_STATUS_INTERNAL_ERROR,
	NDK_STATUS_CANCELLED,
	NDK_STATUS_REMOTE_ERROR,
	NDK_STATUS_INVALID_DEVICE_STATE,
	NDK_STATUS_CONNECTION_INVALID,
	NDK_STATUS_INVALID_PARAMETER_MIX,
};

static bool status_known(ndk_status s)
{
	for (size_t i = 0; i < sizeof(known_status) / sizeof(known_status[0]); i++)
		if (known_status[i] == s)
			return true;
	return false;
}

static unsigned cq_of(unsigned qp)
{
	return qp == QA ? 0 : 1;
}

static bool queue_checked(struct fz *f, unsigned qp)
{
	unsigned c = cq_of(qp);
	return !f->tampered[qp] && !f->cq_tampered[c] && f->cq[c]->err->status == 0;
}

/* ---- posting ----------------------------------------------------------------------------- */
static struct req *new_req(struct fz *f, unsigned qp, bool rq, unsigned kind)
{
	if (f->nreqs >= MAX_REQS)
		return NULL;
	struct req *r = &f->reqs[f->nreqs++];
	memset(r, 0, sizeof(*r));
	r->qp = qp;
	r->rq = rq;
	r->kind = kind;
	return r;
}

static void *ctx_of(struct fz *f, struct req *r)
{
	return (void *)(uintptr_t)(0x1000 + (r - f->reqs));
}

/* a post returned: keep the request when the device got it */
static void posted(struct fz *f, struct req *r, ndk_status s)
{
	feedback(1, r->kind * 64 + (s & 0x3f));
	if (s != NDK_STATUS_SUCCESS) {
		f->nreqs--; /* no completion, ever */
		return;
	}
	r->seq = f->posted[r->qp][r->rq]++;
}

static uint32_t src_slice(struct fz *f, uint32_t len, uint8_t fill)
{
	/* never reused: a deferred or retried request may read its data long after the post */
	if (f->src_used + len > SRC_BYTES)
		return UINT32_MAX;
	uint32_t off = SRC_OFF + f->src_used;
	f->src_used += (len + 63) & ~63u;
	for (uint32_t i = 0; i < len; i++)
		bufp(f, off)[i] = (uint8_t)(fill + i);
	return off;
}

static uint32_t post_flags(uint8_t b, uint32_t allowed)
{
	uint32_t fl = 0;
	if (b & 1)
		fl |= NDK_OP_FLAG_DEFER;
	if (b & 2)
		fl |= NDK_OP_FLAG_SILENT_SUCCESS;
	if (b & 4)
		fl |= NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT;
	if (b & 8)
		fl |= NDK_OP_FLAG_INLINE;
	if (b & 16)
		fl |= NDK_OP_FLAG_READ_FENCE;
	return fl & allowed;
}

static void op_send(struct fz *f)
{
	unsigned qp = in8(f) & 1 ? QB : QA;
	uint8_t fb = in8(f);
	uint32_t len = in16(f) % 3000;
	uint32_t fl = post_flags(fb, NDK_OP_FLAG_DEFER | NDK_OP_FLAG_SILENT_SUCCESS |
					     NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT |
					     NDK_OP_FLAG_INLINE | NDK_OP_FLAG_READ_FENCE);
	struct req *r = new_req(f, qp, false, K_SEND);
	if (!r)
		return;
	if (fl & NDK_OP_FLAG_INLINE)
		len %= 32;
	r->fill = (uint8_t)(f->nreqs * 7);
	r->len = len;
	r->silent = fl & NDK_OP_FLAG_SILENT_SUCCESS;
	uint32_t off = src_slice(f, len, r->fill);
	if (off == UINT32_MAX) {
		f->nreqs--; /* the data arena is used up: no post */
		return;
	}
	struct ndk_sge sge = { .address = bufva(f, off), .length = len, .token = f->ltoken };
	posted(f, r, ndk_send(f->qp[qp], ctx_of(f, r), &sge, len ? 1 : 0, fl));
}

static void op_write(struct fz *f)
{
	uint8_t fb = in8(f);
	uint32_t len = in16(f) % 2500;
	uint32_t toff = in16(f) % TGT_BYTES;
	bool bad = fb & 0x80;
	uint32_t fl = post_flags(fb, NDK_OP_FLAG_DEFER | NDK_OP_FLAG_SILENT_SUCCESS |
					     NDK_OP_FLAG_INLINE | NDK_OP_FLAG_READ_FENCE);
	if (fl & NDK_OP_FLAG_INLINE)
		len %= 32;
	if (toff + len > TGT_BYTES)
		len = TGT_BYTES - toff;
	struct req *r = new_req(f, QA, false, K_WRITE);
	if (!r)
		return;
	r->fill = (uint8_t)(f->nreqs * 13 + 1);
	r->off = toff;
	r->len = len;
	r->bad_token = bad && len > 0; /* a zero-length Write names no memory: no key check */
	r->silent = fl & NDK_OP_FLAG_SILENT_SUCCESS;
	uint32_t off = src_slice(f, len, r->fill);
	if (off == UINT32_MAX) {
		f->nreqs--; /* the data arena is used up: no post */
		return;
	}
	struct ndk_sge sge = { .address = bufva(f, off), .length = len, .token = f->ltoken };
	uint32_t tok = bad ? f->rtoken ^ 0x5a : f->rtoken;
	posted(f, r,
	       ndk_write(f->qp[QA], ctx_of(f, r), &sge, len ? 1 : 0, bufva(f, TGT_OFF + toff), tok,
			 fl));
}

static void op_read(struct fz *f)
{
	uint8_t fb = in8(f);
	uint32_t len = in16(f) % 2500;
	uint32_t toff = in16(f) % TGT_BYTES;
	uint32_t fl = post_flags(fb, NDK_OP_FLAG_DEFER | NDK_OP_FLAG_SILENT_SUCCESS |
					     NDK_OP_FLAG_READ_FENCE);
	if (toff + len > TGT_BYTES)
		len = TGT_BYTES - toff;
	struct req *r = new_req(f, QA, false, K_READ);
	if (!r)
		return;
	r->silent = fl & NDK_OP_FLAG_SILENT_SUCCESS;
	struct ndk_sge sge = { .address = bufva(f, SINK_OFF + (toff % 4096)),
			       .length = len > 4096 ? 4096 : len,
			       .token = f->ltoken };
	r->len = sge.length;
	r->bad_token = (fb & 0x80) && len > 0;
	posted(f, r,
	       ndk_read(f->qp[QA], ctx_of(f, r), &sge, 1, bufva(f, TGT_OFF + toff),
			fb & 0x80 ? f->rtoken ^ 0x33 : f->rtoken, fl));
}

static void op_receive(struct fz *f)
{
	unsigned qp = in8(f) & 1 ? QB : QA;
	uint32_t len = in16(f) % 4096;
	struct req *r = new_req(f, qp, true, K_RECV);
	if (!r)
		return;
	r->len = len;
	struct ndk_sge sge = { .address = bufva(f, SINK_OFF + (qp == QB ? 4096 : 0)),
			       .length = len,
			       .token = f->ltoken };
	posted(f, r, ndk_receive(f->qp[qp], ctx_of(f, r), &sge, 1));
}

static void op_local(struct fz *f)
{
	uint8_t b = in8(f);
	unsigned qp = b & 1 ? QA : QC;
	struct req *r = new_req(f, qp, false, b & 2 ? K_INVAL : K_FASTREG);
	if (!r)
		return;
	uint32_t fl = post_flags(b >> 2, NDK_OP_FLAG_DEFER | NDK_OP_FLAG_SILENT_SUCCESS);
	r->silent = fl & NDK_OP_FLAG_SILENT_SUCCESS;
	if (r->kind == K_INVAL) {
		posted(f, r, ndk_invalidate_mr(f->qp[qp], ctx_of(f, r), f->mr2, fl));
	} else {
		uint64_t pages[2] = { f->buf.logical + SINK_OFF, f->buf.logical + SINK_OFF + 4096 };
		posted(f, r,
		       ndk_fast_register(f->qp[qp], ctx_of(f, r), f->mr2, 2, pages, 0, 8192,
					 bufva(f, SINK_OFF),
					 fl | NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
						 NDK_OP_FLAG_ALLOW_REMOTE_READ));
	}
}

/* ---- completions ------------------------------------------------------------------------- */
static void take(struct fz *f, unsigned c, const struct ndk_result_ex *x)
{
	uintptr_t v = (uintptr_t)x->request_context;
	feedback(2, c * 1024 + (x->type & 0xff) * 4 + (x->status == NDK_STATUS_SUCCESS));
	feedback(3, x->status & 0xff);
	if (v < 0x1000 || v >= 0x1000 + f->nreqs) {
		/* only a tampered queue (a stale slot rung again) may give an unknown context */
		bool any_tampered = f->cq_tampered[c];
		for (unsigned q = 0; q < NQ; q++)
			any_tampered |= f->tampered[q] && cq_of(q) == c;
		if (!any_tampered)
			fuzz_fail(
				"CQ%u: a completion with an unknown request context %p (status %s)",
				c, x->request_context, ndk_status_name(x->status));
		return;
	}
	struct req *r = &f->reqs[v - 0x1000];
	r->completions++;
	r->status = x->status;
	if (x->status != NDK_STATUS_SUCCESS && r->qp != QC)
		f->disturbed = true;
	if (!queue_checked(f, r->qp))
		return;
	if (cq_of(r->qp) != c)
		fuzz_fail("%s %u of QP %u completed on CQ%u", kind_name[r->kind], r->seq, r->qp, c);
	if (r->completions > 1)
		fuzz_fail("%s %u of QP %u%s completed twice (status %s)", kind_name[r->kind],
			  r->seq, r->qp, r->rq ? " RQ" : "", ndk_status_name(x->status));
	if (!status_known(x->status))
		fuzz_fail("%s %u of QP %u: unknown status 0x%08x", kind_name[r->kind], r->seq,
			  r->qp, (unsigned)x->status);
	if (r->silent && x->status == NDK_STATUS_SUCCESS)
		fuzz_fail("%s %u of QP %u: SILENT_SUCCESS request completed with SUCCESS",
			  kind_name[r->kind], r->seq, r->qp);
	if (r->bad_token && x->status == NDK_STATUS_SUCCESS)
		fuzz_fail("%s %u with a bad remote token succeeded", kind_name[r->kind], r->seq);
	/* posting order per queue: every earlier request of the queue is done (silent ones
	   included: they complete implicitly) */
	unsigned *seen = &f->seen[r->qp][r->rq];
	if (r->seq < *seen)
		fuzz_fail("%s %u of QP %u completed after %u: out of posting order",
			  kind_name[r->kind], r->seq, r->qp, *seen - 1);
	for (unsigned i = 0; i < f->nreqs; i++) {
		struct req *e = &f->reqs[i];
		if (e->qp == r->qp && e->rq == r->rq && e->seq < r->seq && e->seq >= *seen &&
		    !e->silent && e->completions == 0)
			fuzz_fail("%s %u of QP %u completed before %s %u, posted earlier",
				  kind_name[r->kind], r->seq, r->qp, kind_name[e->kind], e->seq);
		if (e->qp == r->qp && e->rq == r->rq && e->seq < r->seq && e->silent &&
		    e->completions == 0)
			e->completions = 1, e->status = NDK_STATUS_SUCCESS;
	}
	*seen = r->seq + 1;
}

static void poll_cq(struct fz *f, unsigned c, unsigned max)
{
	struct ndk_result_ex x[8];
	while (max) {
		size_t n = ndk_get_cq_results_ex(f->cq[c], x, max < 8 ? max : 8);
		for (size_t i = 0; i < n; i++)
			take(f, c, &x[i]);
		if (n == 0)
			break;
		max -= (unsigned)n;
	}
}

static void poll_all(struct fz *f)
{
	poll_cq(f, 0, 1000);
	poll_cq(f, 1, 1000);
}

static void notified(void *context, ndk_status s)
{
	unsigned c = (unsigned)(uintptr_t)context;
	cur->notifications[c]++;
	cur->notify_status[c] = s;
	feedback(4, c * 4 + (s == NDK_STATUS_SUCCESS));
}

/* ---- going around the driver ------------------------------------------------------------- */
static uint32_t qp_db(struct fz *f, unsigned qp)
{
	return f->qp[qp]->db;
}

static void op_raw_sq_doorbell(struct fz *f)
{
	unsigned qp = in8(f) % NQ;
	uint16_t pi = in16(f);
	f->tampered[qp] = true;
	if (qp != QC)
		f->disturbed = true;
	nicsim_mmio_write32(f->world, 0, qp_db(f, qp) + NIC_DB_SQ_PI, pi);
}

static void op_raw_rq_doorbell(struct fz *f)
{
	unsigned qp = in8(f) % NQ;
	uint16_t pi = in16(f);
	f->tampered[qp] = true;
	if (qp != QC)
		f->disturbed = true;
	nicsim_mmio_write32(f->world, 0, qp_db(f, qp) + NIC_DB_RQ_PI, pi);
}

static void op_raw_cq_doorbell(struct fz *f)
{
	unsigned c = in8(f) & 1;
	uint32_t word = (uint32_t)in16(f) | (uint32_t)in16(f) << 16;
	uint8_t where = in8(f);
	f->cq_tampered[c] = true;
	f->disturbed = true;
	nicsim_mmio_write32(f->world, 0,
			    NIC_REG_CQ_DB_BASE + (f->cq[c]->cqn << NIC_DB_PAGE_SHIFT) +
				    (where & 1 ? NIC_DB_CQ_MODERATION : NIC_DB_CQ_CI_ARM),
			    word);
}

/*
 * The driver's own doorbells of a deferred chain, timed to the cycle: the first 1..n of the n WQEs
 * posted since the last doorbell are rung, then 0..31 cycles later the rest (or the same index
 * again, a repeat a driver may write). Both are indices the driver would write, in order, so the
 * queue stays checked. MMIO writes reach the NIC a fixed latency after they are posted, so the
 * step between them is the distance between their arrivals (at least the AXI4-Lite write's own
 * cycles): the second can be placed in the cycle the fetch issues the read of the first (the
 * coalescing window a doorbell must not be lost in).
 */
static void op_timed_doorbell(struct fz *f, uint8_t b)
{
	unsigned qp = b & 1 ? QB : QA;
	struct ndk_wq *sq = &f->qp[qp]->sq;
	uint8_t part = in8(f);
	unsigned delay = in8(f) % 32;
	uint64_t unrung = sq->pi - sq->rung;
	if (getenv("NDK_FUZZ_VERBOSE"))
		fprintf(stderr, "ndk_fuzz: timed doorbell of QP %u: %" PRIu64 " unrung, delay %u\n",
			qp, unrung, delay);
	if (unrung == 0)
		return;
	uint64_t first = sq->rung + 1 + (part & 0x7f) % unrung;
	uint64_t second = part & 0x80 ? first : sq->pi;
	nicsim_mmio_write32(f->world, 0, qp_db(f, qp) + NIC_DB_SQ_PI, (uint16_t)first);
	sq->rung = first;
	if (delay)
		ndk_sim_step(f->sim, delay);
	nicsim_mmio_write32(f->world, 0, qp_db(f, qp) + NIC_DB_SQ_PI, (uint16_t)second);
	sq->rung = second;
	feedback(9, (unsigned)(second - first) * 32 + delay);
}

/* A malformed WQE: the ring's last written WQE with input bytes XORed in, at the next slot,
 * rung with the driver's own index bookkeeping moved past it. */
static void op_malformed_wqe(struct fz *f)
{
	unsigned qp = in8(f) % NQ;
	struct ndk_wq *sq = &f->qp[qp]->sq;
	uint8_t wqe[NIC_WQE_BYTES];
	const uint8_t *prev =
		(const uint8_t *)sq->ring + ((sq->pi - 1) & (sq->depth - 1)) * NIC_WQE_BYTES;
	memcpy(wqe, prev, sizeof(wqe));
	unsigned n = in8(f) % 8 + 1;
	for (unsigned i = 0; i < n; i++) {
		uint8_t at = in8(f) % NIC_WQE_BYTES;
		wqe[at] ^= in8(f);
	}
	f->tampered[qp] = true;
	if (qp != QC)
		f->disturbed = true;
	if (sq->pi - sq->completed >= sq->depth)
		return; /* full: nothing written */
	struct req *r = new_req(f, qp, false, K_MALFORMED);
	if (!r)
		return;
	memcpy((uint8_t *)sq->ring + (sq->pi & (sq->depth - 1)) * NIC_WQE_BYTES, wqe, sizeof(wqe));
	sq->ctx[sq->pi & (sq->depth - 1)] = ctx_of(f, r);
	r->seq = f->posted[qp][0]++;
	r->silent = true; /* a discarded WQE may complete silently: no completion is required */
	sq->pi++;
	sq->rung = sq->pi;
	nicsim_mmio_write32(f->world, 0, qp_db(f, qp) + NIC_DB_SQ_PI, (uint16_t)sq->pi);
}

/* frames the NIC sends: kept for replays, and their opcodes are feedback */
static void on_frame(void *ctx, enum nicsim_frame_event ev, unsigned nic, uint64_t cycle,
		     const uint8_t *frame, size_t len)
{
	struct fz *f = ctx;
	(void)nic;
	(void)cycle;
	if (ev != NICSIM_FRAME_SENT || len < 14 + 20 + 8 + 12)
		return;
	const uint8_t *bth = frame + 14 + 20 + 8;
	feedback(5, bth[0]);
	if (bth[0] == ROCE_OP_ACKNOWLEDGE && len >= 14 + 20 + 8 + 12 + 4)
		feedback(6, bth[12] >> 5);
	if (len > FRAME_CAP)
		return;
	unsigned k = f->nframes++ % MAX_FRAMES;
	memcpy(f->frames[k], frame, len);
	f->frame_len[k] = len;
}

static void fix_icrc(uint8_t *fr, size_t len)
{
	uint32_t icrc = roce_ref_icrc(fr, len - 4);
	for (unsigned i = 0; i < 4; i++)
		fr[len - 4 + i] = (uint8_t)(icrc >> (8 * i));
}

static void op_inject(struct fz *f)
{
	uint8_t which = in8(f), how = in8(f), a = in8(f), b = in8(f);
	if (f->nframes == 0)
		return;
	unsigned avail = f->nframes < MAX_FRAMES ? f->nframes : MAX_FRAMES;
	unsigned k = (f->nframes - 1 - which % avail) % MAX_FRAMES;
	uint8_t fr[FRAME_CAP];
	size_t len = f->frame_len[k];
	memcpy(fr, f->frames[k], len);
	uint8_t *bth = fr + 14 + 20 + 8;
	switch (how % 6) {
	case 0: /* replayed as sent: a duplicate the responder / requester must drop */
		break;
	case 1: /* truncated */
		len = 14 + (a % (len - 14));
		break;
	case 2: /* bad ICRC */
		fr[len - 1 - b % 4] ^= (uint8_t)(a | 1);
		break;
	case 3: /* another QP (24-bit destination QP), ICRC good */
		bth[7] = a;
		bth[6] = b & 1 ? b : bth[6];
		fix_icrc(fr, len);
		break;
	case 4: /* another opcode, ICRC good */
		bth[0] = a;
		fix_icrc(fr, len);
		break;
	case 5: /* a byte past the UDP header changed (BTH, extension headers, payload) */
		bth[b % (len - 14 - 20 - 8 - 4)] ^= (uint8_t)(a | 1);
		fix_icrc(fr, len);
		break;
	}
	feedback(7, how % 6 * 256 + bth[0]);
	if (how % 6 != 0) {
		f->disturbed = true;
		f->mem_unknown = true;
		f->tampered[QA] = f->tampered[QB] = true;
	} else {
		/* an exact duplicate of a request or response leaves the exchange intact; a replayed
		   ACK / NAK may make the requester retry: a disturbance, not tampering */
		f->disturbed = true;
	}
	if (nicsim_port_inject(f->world, 0, fr, len) != 0)
		fuzz_fail("nicsim_port_inject refused a frame of %zu bytes", len);
}

static enum ndk_sim_fault on_fault(void *arg, unsigned from, unsigned to, const uint8_t *frame,
				   size_t len)
{
	struct fz *f = arg;
	(void)from, (void)to, (void)frame, (void)len;
	if (f->fault_left == 0)
		return NDK_SIM_FRAME_DELIVER;
	f->fault_left--;
	return f->fault;
}

static void op_fault(struct fz *f)
{
	uint8_t b = in8(f);
	static const enum ndk_sim_fault kinds[] = { NDK_SIM_FRAME_DROP, NDK_SIM_FRAME_CORRUPT,
						    NDK_SIM_FRAME_DUPLICATE,
						    NDK_SIM_FRAME_REORDER };
	f->fault = kinds[b & 3];
	f->fault_left = (b >> 2) % 4 + 1;
	f->disturbed = true;
}

/* ---- one input --------------------------------------------------------------------------- */
static void must(ndk_status s, const char *what)
{
	if (s != NDK_STATUS_SUCCESS)
		fuzz_fail("setup: %s: %s", what, ndk_status_name(s));
}

static void setup(struct fz *f)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = 1;
	c.poll_cycles = 0;
	c.cycle_limit = 50000000;
	must(ndk_sim_create(&c, &f->sim), "ndk_sim_create");
	f->world = f->sim->world;
	nicsim_set_frame_handler(f->world, on_frame, f);
	ndk_sim_set_fault_hook(f->sim, on_fault, f);
	must(ndk_sim_open_adapter(f->sim, 0, &f->ad), "open adapter");
	must(ndk_create_pd(f->ad, &f->pd), "pd");
	must(ndk_create_cq(f->ad, 4, notified, (void *)0, &f->cq[0]), "cq0");
	must(ndk_create_cq(f->ad, 64, notified, (void *)1, &f->cq[1]), "cq1");
	for (unsigned q = 0; q < NQ; q++) {
		struct ndk_qp_attr a = {
			.receive_cq = f->cq[cq_of(q)],
			.initiator_cq = f->cq[cq_of(q)],
			.qp_context = (void *)(uintptr_t)(0x100 + q),
			.receive_queue_depth = q == QC ? 0 : 8,
			.initiator_queue_depth = 8,
			.max_receive_request_sge = q == QC ? 0 : 1,
			.max_initiator_request_sge = 1,
			.inline_data_size = 32,
		};
		must(ndk_create_qp(f->pd, &a, &f->qp[q]), "qp");
	}
	struct ndk_qp_address aa, ab;
	must(ndk_get_qp_address(f->qp[QA], &aa), "address A");
	must(ndk_get_qp_address(f->qp[QB], &ab), "address B");
	struct ndk_connect_attr ca;
	ndk_connect_attr_default(&ca);
	ca.inbound_read_limit = 4;
	ca.outbound_read_limit = 4;
	ca.ack_timeout = 2; /* 16 us: losses recover within the run */
	ca.retry_count = 2;
	ca.rnr_retry = 1;
	must(ndk_connect_qp_ex(f->qp[QA], &ab, &ca), "connect A");
	must(ndk_connect_qp_ex(f->qp[QB], &aa, &ca), "connect B");
	must(ndk_alloc_buffer(f->ad, BUF_PAGES * NDK_PAGE_SIZE, &f->buf), "buffer");
	uint64_t pages[BUF_PAGES];
	for (unsigned i = 0; i < BUF_PAGES; i++)
		pages[i] = f->buf.logical + (uint64_t)i * NDK_PAGE_SIZE;
	must(ndk_create_mr(f->pd, &f->mr), "mr");
	must(ndk_initialize_fast_register_mr(f->mr, BUF_PAGES, true), "mr init");
	must(ndk_create_mr(f->pd, &f->mr2), "mr2");
	must(ndk_initialize_fast_register_mr(f->mr2, 2, true), "mr2 init");
	must(ndk_fast_register(f->qp[QC], (void *)1, f->mr, BUF_PAGES, pages, 0,
			       BUF_PAGES * NDK_PAGE_SIZE, bufva(f, 0),
			       NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
				       NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
	     "fast register");
	struct ndk_result_ex x;
	uint64_t end = ndk_sim_cycle(f->sim) + 100000;
	while (ndk_get_cq_results_ex(f->cq[1], &x, 1) == 0) {
		if (ndk_sim_cycle(f->sim) > end)
			fuzz_fail("setup: the MR registration never completed");
		ndk_sim_step(f->sim, 64);
	}
	must(x.status, "registration");
	f->posted[QC][0] = 1;
	f->seen[QC][0] = 1;
	f->ltoken = ndk_get_local_token_from_mr(f->mr);
	f->rtoken = ndk_get_remote_token_from_mr(f->mr);
	f->nframes = 0;
}

static void run_op(struct fz *f)
{
	uint8_t op = in8(f);
	if (getenv("NDK_FUZZ_VERBOSE"))
		fprintf(stderr, "ndk_fuzz: cycle %" PRIu64 ": op %u at byte %u\n",
			ndk_sim_cycle(f->sim), op % 16, (unsigned)f->pos - 1);
	switch (op % 16) {
	case 0:
	case 1:
		op_send(f);
		break;
	case 2:
	case 3:
		op_write(f);
		break;
	case 4:
		op_read(f);
		break;
	case 5:
		op_receive(f);
		break;
	case 6:
		op_local(f);
		break;
	case 7:
		poll_cq(f, in8(f) & 1, in8(f) % 16 + 1);
		break;
	case 8: {
		static const enum ndk_cq_notify_type t[] = { NDK_CQ_NOTIFY_ERRORS,
							     NDK_CQ_NOTIFY_SOLICITED,
							     NDK_CQ_NOTIFY_ANY, NDK_CQ_NOTIFY_ANY };
		uint8_t b = in8(f);
		ndk_arm_cq(f->cq[b & 1], t[(b >> 1) & 3]);
		break;
	}
	case 9:
		ndk_sim_step(f->sim, (uint64_t)(in8(f) + 1) * 16);
		break;
	case 10:
		ndk_sim_step(f->sim, (uint64_t)(in8(f) + 1) * 1024);
		break;
	case 11: {
		uint8_t b = in8(f);
		if (b & 0x80)
			op_raw_cq_doorbell(f);
		else if (b & 0x40)
			op_raw_rq_doorbell(f);
		else
			op_raw_sq_doorbell(f);
		break;
	}
	case 12:
		op_malformed_wqe(f);
		break;
	case 13:
		op_inject(f);
		break;
	case 14:
		op_fault(f);
		break;
	case 15: {
		uint8_t b = in8(f);
		if (b & 0x80) {
			unsigned q = b % NQ;
			if (q != QC)
				f->disturbed = true;
			ndk_flush(f->qp[q]);
		} else if (b & 0x40) {
			/* a fine step, 1..64 cycles: lets the input place a doorbell in a given cycle
			   of the NIC's own work (a fetch read being issued, a packet being checked) */
			ndk_sim_step(f->sim, (uint64_t)(b & 0x3f) + 1);
		} else if (b & 0x20) {
			op_timed_doorbell(f, b);
		} else {
			ndk_control_cq_interrupt_moderation(f->cq[b & 1], in8(f) % 8, in8(f) % 8);
		}
		break;
	}
	}
}

static bool all_done(struct fz *f)
{
	for (unsigned i = 0; i < f->nreqs; i++) {
		struct req *r = &f->reqs[i];
		if (r->completions == 0 && !r->silent && queue_checked(f, r->qp))
			return false;
	}
	return true;
}

static void run_until_done(struct fz *f, uint64_t max_cycles)
{
	uint64_t end = ndk_sim_cycle(f->sim) + max_cycles;
	while (ndk_sim_cycle(f->sim) < end) {
		poll_all(f);
		if (all_done(f))
			return;
		ndk_sim_step(f->sim, 512);
	}
	poll_all(f);
}

/* the Write target: what the successful Writes wrote, in posting order; a bad-token Write and a
 * replayed duplicate change nothing */
static void check_memory(struct fz *f)
{
	static uint8_t want[TGT_BYTES];
	static bool known[TGT_BYTES];
	memset(want, 0, sizeof(want));
	memset(known, 1, sizeof(known));
	for (unsigned s = 0; s < f->posted[QA][0]; s++) {
		for (unsigned i = 0; i < f->nreqs; i++) {
			struct req *r = &f->reqs[i];
			if (r->qp != QA || r->rq || r->seq != s || r->kind != K_WRITE)
				continue;
			if (r->bad_token && r->completions == 1)
				break; /* refused: no byte written */
			bool ok = r->completions == 1 && r->status == NDK_STATUS_SUCCESS;
			for (uint32_t j = 0; j < r->len; j++) {
				want[r->off + j] = (uint8_t)(r->fill + j);
				known[r->off + j] = ok;
			}
		}
	}
	const uint8_t *got = bufp(f, TGT_OFF);
	for (uint32_t j = 0; j < TGT_BYTES; j++)
		if (known[j] && got[j] != want[j])
			fuzz_fail(
				"Write target byte %u is 0x%02x, want 0x%02x (a Write executed twice, "
				"out of order, or placed where it should not be)",
				j, got[j], want[j]);
}

/* NDK_FUZZ_VERBOSE=1: what one input did (to write and check seeds) */
static void report(struct fz *f)
{
	fprintf(stderr,
		"ndk_fuzz: %u ops bytes, %" PRIu64 " cycles, %u frames sent, CQ errors %u %u,"
		" notifications %u %u%s%s\n",
		(unsigned)f->in_len, ndk_sim_cycle(f->sim), f->nframes,
		(unsigned)f->cq[0]->err->status, (unsigned)f->cq[1]->err->status,
		f->notifications[0], f->notifications[1], f->disturbed ? ", disturbed" : "",
		f->mem_unknown ? ", target unchecked" : "");
	for (unsigned i = 0; i < f->nreqs; i++) {
		struct req *r = &f->reqs[i];
		fprintf(stderr, "  QP %u%s %-10s #%u len %u%s%s: %u completion(s), %s%s\n", r->qp,
			r->rq ? " RQ" : "", kind_name[r->kind], r->seq, r->len,
			r->silent ? " silent" : "", r->bad_token ? " bad-token" : "",
			r->completions, r->completions ? ndk_status_name(r->status) : "-",
			queue_checked(f, r->qp) ? "" : " (queue not checked)");
	}
}

static void finish(struct fz *f)
{
	run_until_done(f, QUIET_CYCLES);
	for (unsigned q = 0; q < NQ; q++)
		ndk_flush(f->qp[q]);
	run_until_done(f, FLUSH_CYCLES);
	for (unsigned i = 0; i < f->nreqs; i++) {
		struct req *r = &f->reqs[i];
		if (r->completions == 0 && !r->silent && queue_checked(f, r->qp))
			fuzz_fail("hang: %s %u of QP %u%s never completed (%" PRIu64
				  " cycles after the flush)",
				  kind_name[r->kind], r->seq, r->qp, r->rq ? " RQ" : "",
				  (uint64_t)FLUSH_CYCLES);
	}
	for (unsigned c = 0; c < 2; c++)
		if (f->cq[c]->err->status != 0)
			feedback(8, c);
	if (!f->disturbed && queue_checked(f, QA) && queue_checked(f, QB)) {
		for (unsigned i = 0; i < f->nreqs; i++) {
			struct req *r = &f->reqs[i];
			if (r->kind == K_WRITE && r->qp == QA && !r->bad_token &&
			    r->status != NDK_STATUS_SUCCESS)
				fuzz_fail("write %u failed (%s) on an undisturbed connection",
					  r->seq, ndk_status_name(r->status));
		}
	}
	if (!f->mem_unknown && queue_checked(f, QA))
		check_memory(f);
	if (getenv("NDK_FUZZ_VERBOSE"))
		report(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz f;
	memset(&f, 0, sizeof(f));
	cur = &f;
	f.in = data;
	f.in_len = size;
	setup(&f);
	for (unsigned n = 0; n < MAX_OPS && f.pos < f.in_len; n++)
		run_op(&f);
	finish(&f);
	/* the adapter's close destroys the QPs first, then releases the buffer: a request of a
	   tampered queue may still be reading it */
	ndk_close_adapter(f.ad);
	ndk_sim_destroy(f.sim);
	cur = NULL;
	return 0;
}
