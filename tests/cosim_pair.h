/* SPDX-License-Identifier: MIT */
/*
 * Two connected QPs for the transport tests: side 0 on NIC 0 and side 1 on NIC 1 (or both on
 * NIC 0 in a world of one NIC), each with an adapter, a PD, one CQ for both of its queues and a
 * buffer reached with the PD's privileged token and logical addresses. Polling helpers are
 * bounded in simulated cycles and name the cycle when they fail.
 */
#ifndef NDK_TESTS_COSIM_PAIR_H
#define NDK_TESTS_COSIM_PAIR_H

#include "cosim.h"

#define PAIR_BUF_BYTES (64 * 1024)

struct side {
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_buffer buf;
	struct ndk_adapter_info info;
	uint32_t priv;
};

struct pair {
	struct ndk_sim *sim;
	struct side s[2];
};

/* What a test may change about the pair; zero fields take the defaults. */
struct pair_opts {
	uint32_t cq_depth;	      /* default 256 */
	uint32_t sq_depth, rq_depth;  /* default 64 each */
	ndk_cq_notification_fn cq_fn; /* the CQs' notification callback (default none) */
	void *cq_fn_context[2];	      /* its context, per side */
	bool read_limits;	      /* connect with ird / ord (default: the adapter's largest) */
	uint32_t ird, ord;	      /* inbound / outbound read limits of both QPs */
	/* connect with ndk_connect_qp_ex and these attributes (side 0 as given, side 1 with the
	   PSNs swapped); read_limits / ird / ord are then ignored. NULL: ndk_connect_qp */
	const struct ndk_connect_attr *attr;
};

/* `ad`: an adapter already open on that NIC (a loopback pair shares it), or NULL */
static inline void side_open(struct pair *p, unsigned nic, struct side *s, struct ndk_adapter *ad,
			     const struct pair_opts *o, unsigned i)
{
	if (ad)
		s->ad = ad;
	else
		cr_assert_eq(ndk_sim_open_adapter(p->sim, nic, &s->ad), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_query_adapter_info(s->ad, &s->info), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_pd(s->ad, &s->pd), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(s->ad, o->cq_depth ? o->cq_depth : 256, o->cq_fn,
				   o->cq_fn_context[i], &s->cq),
		     NDK_STATUS_SUCCESS);
	struct ndk_qp_attr a = {
		.receive_cq = s->cq,
		.initiator_cq = s->cq,
		.qp_context = QP_CONTEXT,
		.receive_queue_depth = o->rq_depth ? o->rq_depth : 64,
		.initiator_queue_depth = o->sq_depth ? o->sq_depth : 64,
		.max_receive_request_sge = s->info.max_receive_request_sge,
		.max_initiator_request_sge = s->info.max_initiator_request_sge,
		.inline_data_size = s->info.max_inline_data_size,
	};
	cr_assert_eq(ndk_create_qp(s->pd, &a, &s->qp), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_alloc_buffer(s->ad, PAIR_BUF_BYTES, &s->buf), NDK_STATUS_SUCCESS);
	s->priv = ndk_get_privileged_token(s->pd);
}

/* connect two QPs to each other, both with the read limits ird (inbound) and ord (outbound) */
static inline void qps_connect_limits(struct ndk_qp *a, struct ndk_qp *b, uint32_t ird,
				      uint32_t ord)
{
	struct ndk_qp_address aa, ab;
	cr_assert_eq(ndk_get_qp_address(a, &aa), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_get_qp_address(b, &ab), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp(a, &ab, ird, ord), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp(b, &aa, ird, ord), NDK_STATUS_SUCCESS);
}

/* connect two QPs to each other, for no Reads (read limits 0) */
static inline void qps_connect(struct ndk_qp *a, struct ndk_qp *b)
{
	qps_connect_limits(a, b, 0, 0);
}

/* connect a with attr and b with attr's PSNs swapped (a's first PSN is the one b expects) */
static inline void qps_connect_attr(struct ndk_qp *a, struct ndk_qp *b,
				    const struct ndk_connect_attr *attr)
{
	struct ndk_qp_address aa, ab;
	struct ndk_connect_attr battr = *attr;
	battr.local_psn = attr->remote_psn;
	battr.remote_psn = attr->local_psn;
	cr_assert_eq(ndk_get_qp_address(a, &aa), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_get_qp_address(b, &ab), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp_ex(a, &ab, attr), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp_ex(b, &aa, &battr), NDK_STATUS_SUCCESS);
}

static inline void pair_open_opts(struct pair *p, const struct ndk_sim_config *c,
				  const struct pair_opts *o)
{
	memset(p, 0, sizeof(*p));
	cr_assert_eq(ndk_sim_create(c, &p->sim), NDK_STATUS_SUCCESS);
	side_open(p, 0, &p->s[0], NULL, o, 0);
	side_open(p, 1, &p->s[1], c->nics > 1 ? NULL : p->s[0].ad, o, 1);
	if (o->attr)
		qps_connect_attr(p->s[0].qp, p->s[1].qp, o->attr);
	else if (o->read_limits)
		qps_connect_limits(p->s[0].qp, p->s[1].qp, o->ird, o->ord);
	else
		qps_connect_limits(p->s[0].qp, p->s[1].qp, p->s[0].info.max_inbound_read_limit,
				   p->s[0].info.max_outbound_read_limit);
}

static inline void pair_open_cfg(struct pair *p, const struct ndk_sim_config *c)
{
	const struct pair_opts o = { 0 };
	pair_open_opts(p, c, &o);
}

static inline void pair_open(struct pair *p, unsigned nics)
{
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.nics = nics;
	pair_open_cfg(p, &c);
}

static inline void pair_close(struct pair *p)
{
	for (int i = 0; i < 2; i++) {
		struct side *s = &p->s[i];
		if (s->qp)
			ndk_close_qp(s->qp);
		if (s->cq)
			ndk_close_cq(s->cq);
		if (s->buf.va)
			ndk_free_buffer(s->ad, &s->buf);
		if (s->pd)
			ndk_close_pd(s->pd);
	}
	for (int i = 0; i < 2; i++)
		if (p->s[i].ad && (i == 0 || p->s[1].ad != p->s[0].ad))
			ndk_close_adapter(p->s[i].ad);
	ndk_sim_destroy(p->sim);
}

/* a struct world on the pair's simulation: for the helpers of cosim.h (stats_of is NIC 0) */
static inline struct world pair_world(struct pair *p, unsigned i)
{
	struct world w = { .sim = p->sim,
			   .ad = p->s[i].ad,
			   .pd = p->s[i].pd,
			   .cq = p->s[i].cq,
			   .qp = p->s[i].qp };
	return w;
}

static inline void fill(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16);
	}
}

/* poll one completion of a CQ within max cycles */
static inline void poll_cq(struct pair *p, struct ndk_cq *cq, struct ndk_result_ex *r, uint64_t max)
{
	uint64_t deadline = ndk_sim_cycle(p->sim) + max;
	while (ndk_get_cq_results_ex(cq, r, 1) == 0) {
		if (ndk_sim_cycle(p->sim) > deadline)
			cr_assert_fail("cycle %" PRIu64 ": no completion within %" PRIu64
				       " cycles (rerun with waves: NDK_SIM_TRACE=/tmp/t.fst)",
				       ndk_sim_cycle(p->sim), max);
		ndk_sim_step(p->sim, 1);
	}
}

/* poll one completion of `s` (either queue) within max cycles */
static inline void poll_side(struct pair *p, struct side *s, struct ndk_result_ex *r, uint64_t max)
{
	poll_cq(p, s->cq, r, max);
}

static inline void expect_cpl(struct pair *p, struct side *s, ndk_status status, uint32_t type,
			      void *ctx, uint32_t bytes)
{
	struct ndk_result_ex r;
	poll_side(p, s, &r, 200000);
	cr_expect_eq(r.status, status, "cycle %" PRIu64 ": %p: status %s, want %s",
		     ndk_sim_cycle(p->sim), ctx, ndk_status_name(r.status),
		     ndk_status_name(status));
	cr_expect_eq(r.type, type, "%p: type %u, want %u", ctx, r.type, type);
	cr_expect_eq(r.request_context, ctx, "request_context %p, want %p", r.request_context, ctx);
	cr_expect_eq(r.qp_context, QP_CONTEXT);
	if (type == NDK_OP_RECEIVE || type == NDK_OP_RECEIVE_AND_INVALIDATE)
		cr_expect_eq(r.bytes_transferred, bytes, "bytes %u, want %u", r.bytes_transferred,
			     bytes);
}

/* Run the world for `cycles` and require that the CQ stays empty. */
static inline void expect_no_cpl(struct pair *p, struct ndk_cq *cq, uint64_t cycles)
{
	struct ndk_result_ex r;
	ndk_sim_step(p->sim, cycles);
	if (ndk_get_cq_results_ex(cq, &r, 1) != 0)
		cr_assert_fail("cycle %" PRIu64
			       ": unexpected completion: status %s type %u request_context %p",
			       ndk_sim_cycle(p->sim), ndk_status_name(r.status), r.type,
			       r.request_context);
}

static inline struct ndk_sge sge_of(struct side *s, size_t off, uint32_t len)
{
	struct ndk_sge g = { .address = s->buf.logical + off, .length = len, .token = s->priv };
	return g;
}

/* A remote-writable region of side `s`: an MR over `pages` fresh pages, fast-registered with
 * `flags` (NDK_OP_FLAG_ALLOW_*) on s->qp, its completion consumed. */
static inline void side_region(struct pair *p, struct side *s, struct region *r, uint32_t pages,
			       uint32_t flags)
{
	struct world w = pair_world(p, (unsigned)(s - p->s));
	region_make(&w, r, pages, true);
	expect_status(&w, region_register(&w, r, (void *)0xF00D, flags), NDK_STATUS_SUCCESS);
	expect_cpl(p, s, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, (void *)0xF00D, 0);
}

static inline void side_region_free(struct pair *p, struct side *s, struct region *r)
{
	struct world w = pair_world(p, (unsigned)(s - p->s));
	region_free(&w, r);
}

#endif /* NDK_TESTS_COSIM_PAIR_H */
