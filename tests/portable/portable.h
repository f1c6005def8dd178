/* SPDX-License-Identifier: MIT */
/*
 * The backend-independent tests (tests/portable/): one source, run on the simulated NIC and,
 * inside the guest of tools/guest/guest.sh, on the NIC as a PCI device through the pci
 * backend. NDK_TEST_ADAPTER chooses: "sim" (the default: a one-NIC world, the port looped
 * back) or a pci URI ("pci", "pci:0000:00:02.0").
 *
 * What differs by backend is hidden here and only here:
 * - time: the sim's clock moves only when the test steps it, so waits are in cycles; a device
 *   runs by itself, so waits are wall time (generous: the device server under a TCG guest is
 *   slow, and a wait that ends early only makes a "nothing happens" check weaker);
 * - counters (doorbells, DMA reads): nicsim's statistics on sim; on pci the device server's
 *   vendor capability in configuration space (sim/devserver/devserver_regs.h), read through
 *   sysfs. A pci device without it (a board) has no counters: the checks that need them are
 *   skipped there, and say so.
 */
#ifndef NDK_TESTS_PORTABLE_H
#define NDK_TESTS_PORTABLE_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devserver/devserver_regs.h"
#include "ndk.h"
#include "ndk_sim.h"

#define PW_QP_CONTEXT  ((void *)0x5150)
#define CTX(n)	       ((void *)(uintptr_t)(0x1000 + (n)))
#define PW_SETTLE_SIM  4000u	      /* cycles: far longer than a doorbell's trip + a DMA */
#define PW_SETTLE_US   300000u	      /* the same on a device: 0.3 s of wall time */
#define PW_TIMEOUT_SIM 200000u	      /* cycles before "no completion" */
#define PW_TIMEOUT_NS  60000000000ull /* 60 s on a device */

struct pw {
	struct ndk_sim *sim; /* NULL on a device */
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	int cfg_fd; /* the device's configuration space (sysfs), -1 without counters */
};

struct pw_counters {
	uint64_t sq_doorbells, dma_reads, dma_read_bytes, dma_refused;
};

static inline const char *pw_uri(void)
{
	const char *e = getenv("NDK_TEST_ADAPTER");
	return e && *e ? e : "sim";
}

static inline uint64_t pw_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* the sysfs configuration file of the first device with the register map's ids */
static inline int pw_open_config(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int fd = -1;
	if (!d)
		return -1;
	while (fd < 0 && (e = readdir(d))) {
		char path[300];
		unsigned vendor = 0, device = 0;
		FILE *f;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fscanf(f, "%x", &vendor) != 1)
			vendor = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fscanf(f, "%x", &device) != 1)
			device = 0;
		fclose(f);
		if (vendor != 0x1d1d || device != 0x0001)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	closedir(d);
	return fd;
}

static inline uint32_t pw_cfg32(int fd, unsigned off)
{
	uint32_t v = 0;
	cr_assert_eq(pread(fd, &v, 4, off), 4, "configuration read at 0x%x", off);
	return v;
}

/* the counters, or false when this backend has none */
static inline bool pw_counters(struct pw *w, struct pw_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (w->sim) {
		struct ndk_sim_stats s;
		ndk_sim_get_stats(w->sim, 0, &s);
		c->sq_doorbells = s.sq_doorbells;
		c->dma_reads = s.dma_reads;
		c->dma_read_bytes = s.dma_read_bytes;
		return true;
	}
	if (w->cfg_fd < 0 || pw_cfg32(w->cfg_fd, DEVSERVER_CAP_TAG) != DEVSERVER_TAG)
		return false;
#define PW_CNT(i)                                            \
	(pw_cfg32(w->cfg_fd, DEVSERVER_COUNTERS + 8 * (i)) | \
	 (uint64_t)pw_cfg32(w->cfg_fd, DEVSERVER_COUNTERS + 8 * (i) + 4) << 32)
	c->sq_doorbells = PW_CNT(DEVSERVER_CNT_SQ_DB);
	c->dma_reads = PW_CNT(DEVSERVER_CNT_DMA_RD);
	c->dma_read_bytes = PW_CNT(DEVSERVER_CNT_DMA_RD_B);
	c->dma_refused = PW_CNT(DEVSERVER_CNT_REFUSED);
#undef PW_CNT
	return true;
}

/* counters or a skip: the check needs them */
static inline struct pw_counters pw_counters_or_skip(struct pw *w)
{
	struct pw_counters c;
	if (!pw_counters(w, &c))
		cr_skip_test("no bus counters on %s (the device server has them; a board has not)",
			     pw_uri());
	return c;
}

/* let the NIC run for a while with no driver call */
static inline void pw_settle(struct pw *w)
{
	if (w->sim)
		ndk_sim_step(w->sim, PW_SETTLE_SIM);
	else
		usleep(PW_SETTLE_US);
}

static inline void pw_open_adapter(struct pw *w)
{
	memset(w, 0, sizeof(*w));
	w->cfg_fd = -1;
	if (!strcmp(pw_uri(), "sim")) {
		struct ndk_sim_config c;
		ndk_sim_default_config(&c);
		c.nics = 1;
		cr_assert_eq(ndk_sim_create(&c, &w->sim), NDK_STATUS_SUCCESS, "ndk_sim_create");
		cr_assert_eq(ndk_sim_open_adapter(w->sim, 0, &w->ad), NDK_STATUS_SUCCESS);
	} else {
		ndk_status st = ndk_open_adapter(pw_uri(), &w->ad);
		cr_assert_eq(st, NDK_STATUS_SUCCESS, "ndk_open_adapter(\"%s\"): %s", pw_uri(),
			     ndk_status_name(st));
		cr_assert_null(ndk_sim_of(w->ad), "a %s adapter is not simulated", pw_uri());
		w->cfg_fd = pw_open_config();
	}
	cr_assert_eq(ndk_query_adapter_info(w->ad, &w->info), NDK_STATUS_SUCCESS);
}

static inline void pw_open(struct pw *w, uint32_t cq_depth, uint32_t sq_depth, uint32_t rq_depth)
{
	pw_open_adapter(w);
	cr_assert_eq(ndk_create_pd(w->ad, &w->pd), NDK_STATUS_SUCCESS);
	if (cq_depth)
		cr_assert_eq(ndk_create_cq(w->ad, cq_depth, NULL, NULL, &w->cq),
			     NDK_STATUS_SUCCESS);
	if (sq_depth) {
		struct ndk_qp_attr a = {
			.receive_cq = w->cq,
			.initiator_cq = w->cq,
			.qp_context = PW_QP_CONTEXT,
			.receive_queue_depth = rq_depth,
			.initiator_queue_depth = sq_depth,
			.max_receive_request_sge = rq_depth ? 1 : 0,
			.max_initiator_request_sge = 1,
			.inline_data_size = 0,
		};
		cr_assert_eq(ndk_create_qp(w->pd, &a, &w->qp), NDK_STATUS_SUCCESS);
	}
}

static inline void pw_close(struct pw *w)
{
	if (w->qp)
		ndk_close_qp(w->qp);
	if (w->cq)
		ndk_close_cq(w->cq);
	if (w->pd)
		ndk_close_pd(w->pd);
	if (w->ad)
		ndk_close_adapter(w->ad);
	if (w->sim)
		ndk_sim_destroy(w->sim);
	if (w->cfg_fd >= 0)
		close(w->cfg_fd);
}

/* one completion through ndk_get_cq_results_ex (or ndk_get_cq_results when plain) */
static inline void pw_poll_one(struct pw *w, struct ndk_cq *cq, struct ndk_result_ex *r, bool plain)
{
	uint64_t cycle0 = w->sim ? ndk_sim_cycle(w->sim) : 0, t0 = pw_now_ns();
	for (;;) {
		if (plain) {
			struct ndk_result p;
			if (ndk_get_cq_results(cq, &p, 1) == 1) {
				memset(r, 0, sizeof(*r));
				r->status = p.status;
				r->qp_context = p.qp_context;
				r->request_context = p.request_context;
				r->bytes_transferred = p.bytes_transferred;
				r->type = ~0u;
				return;
			}
		} else if (ndk_get_cq_results_ex(cq, r, 1) == 1) {
			return;
		}
		if (w->sim) {
			if (ndk_sim_cycle(w->sim) - cycle0 > PW_TIMEOUT_SIM)
				cr_assert_fail("no completion within %u cycles", PW_TIMEOUT_SIM);
			ndk_sim_step(w->sim, 1);
		} else if (pw_now_ns() - t0 > PW_TIMEOUT_NS) {
			cr_assert_fail("no completion within %llu s",
				       (unsigned long long)(PW_TIMEOUT_NS / 1000000000u));
		}
	}
}

static inline void pw_expect_completion(struct pw *w, struct ndk_cq *cq, ndk_status status,
					uint32_t type, void *request_context)
{
	struct ndk_result_ex r;
	pw_poll_one(w, cq, &r, false);
	cr_expect_eq(r.status, status, "status %s, want %s", ndk_status_name(r.status),
		     ndk_status_name(status));
	cr_expect_eq(r.type, type, "completion type %u, want %u", r.type, type);
	cr_expect_eq(r.request_context, request_context, "request_context %p, want %p",
		     r.request_context, request_context);
	cr_expect_eq(r.qp_context, PW_QP_CONTEXT);
}

static inline void pw_expect_no_completion(struct pw *w, struct ndk_cq *cq)
{
	struct ndk_result_ex r;
	pw_settle(w);
	if (ndk_get_cq_results_ex(cq, &r, 1) != 0)
		cr_assert_fail("unexpected completion: status %s type %u request_context %p",
			       ndk_status_name(r.status), r.type, r.request_context);
}

/* A fast-register MR over `npages` pages of a fresh buffer. */
struct pw_region {
	struct ndk_buffer buf;
	struct ndk_mr *mr;
	uint64_t pages[64];
	uint32_t npages;
};

static inline void pw_region_make(struct pw *w, struct pw_region *r, uint32_t npages, bool remote)
{
	cr_assert_leq(npages, 64);
	cr_assert_eq(ndk_alloc_buffer(w->ad, (size_t)npages * NDK_PAGE_SIZE, &r->buf),
		     NDK_STATUS_SUCCESS);
	for (uint32_t i = 0; i < npages; i++)
		r->pages[i] = r->buf.logical + (uint64_t)i * NDK_PAGE_SIZE;
	r->npages = npages;
	cr_assert_eq(ndk_create_mr(w->pd, &r->mr), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_initialize_fast_register_mr(r->mr, npages, remote), NDK_STATUS_SUCCESS);
}

static inline void pw_region_free(struct pw *w, struct pw_region *r)
{
	ndk_close_mr(r->mr);
	ndk_free_buffer(w->ad, &r->buf);
}

static inline ndk_status pw_register(struct pw *w, struct pw_region *r, void *ctx, uint32_t flags)
{
	return ndk_fast_register(w->qp, ctx, r->mr, r->npages, r->pages, 0,
				 (uint64_t)r->npages * NDK_PAGE_SIZE,
				 (uint64_t)(uintptr_t)r->buf.va, flags);
}

#endif /* NDK_TESTS_PORTABLE_H */
