/* SPDX-License-Identifier: MIT */
/*
 * A program written only against the public headers (ndk.h, ndk_sim.h) and linked through
 * build/ndk.pc, as a user outside the repository would:
 *
 *     make lib
 *     cc -o fastreg_roundtrip examples/fastreg_roundtrip.c $(pkg-config --cflags --libs build/ndk.pc)
 *
 * It opens the simulated NIC (or the adapter of the URI given as its argument: "pci" for the
 * first ndknic on the PCI bus, as in the guest of tools/guest/guest.sh), fast-registers a
 * 4-page buffer, invalidates it, and prints what each step cost: simulated cycles on the sim
 * backend, wall time on a PCI device. Exit status 0 means both completions came back right.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ndk.h>
#include <ndk_sim.h>

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* simulated cycles on the sim backend, nanoseconds of wall time on a device */
static uint64_t now_of(struct ndk_sim *sim)
{
	return sim ? ndk_sim_cycle(sim) : now_ns();
}

/* a completion within a million cycles (sim), or 30 s (a device) */
static int poll_one(struct ndk_adapter *ad, struct ndk_cq *cq, struct ndk_result_ex *r)
{
	struct ndk_sim *sim = ndk_sim_of(ad);
	uint64_t deadline = now_of(sim) + (sim ? 1000000u : 30000000000u);
	while (now_of(sim) < deadline) {
		if (ndk_get_cq_results_ex(cq, r, 1) == 1)
			return 0;
		if (sim)
			ndk_sim_step(sim, 1);
	}
	return -1;
}

static int check(const char *what, ndk_status st)
{
	if (st != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "%s: %s\n", what, ndk_status_name(st));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "sim";
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_mr *mr;
	struct ndk_buffer buf;
	struct ndk_result_ex r;
	uint64_t pages[4];
	int rc = 1;

	if (check(uri, ndk_open_adapter(uri, &ad)))
		return 1;
	struct ndk_sim *sim = ndk_sim_of(ad); /* NULL: not simulated */
	const char *unit = sim ? "cycles" : "ns";
	if (check("pd", ndk_create_pd(ad, &pd)) ||
	    check("cq", ndk_create_cq(ad, 64, NULL, NULL, &cq)))
		goto out_adapter;
	struct ndk_qp_attr attr = {
		.receive_cq = cq,
		.initiator_cq = cq,
		.qp_context = &attr,
		.initiator_queue_depth = 64,
		.max_initiator_request_sge = 1,
	};
	if (check("qp", ndk_create_qp(pd, &attr, &qp)) ||
	    check("buffer", ndk_alloc_buffer(ad, sizeof(pages) * 512, &buf)) ||
	    check("mr", ndk_create_mr(pd, &mr)) ||
	    check("init mr", ndk_initialize_fast_register_mr(mr, 4, false)))
		goto out_adapter;
	for (int i = 0; i < 4; i++)
		pages[i] = buf.logical + (uint64_t)i * NDK_PAGE_SIZE;

	uint64_t t0 = now_of(sim);
	if (check("fast register",
		  ndk_fast_register(qp, (void *)1, mr, 4, pages, 0, 4 * NDK_PAGE_SIZE,
				    (uint64_t)(uintptr_t)buf.va, NDK_OP_FLAG_ALLOW_LOCAL_WRITE)))
		goto out_adapter;
	if (poll_one(ad, cq, &r) || check("fast register completion", r.status) ||
	    r.type != NDK_OP_FAST_REGISTER || r.request_context != (void *)1 ||
	    r.qp_context != &attr) {
		fprintf(stderr, "fast register: wrong completion\n");
		goto out_adapter;
	}
	uint64_t t1 = now_of(sim);
	printf("FastRegister of 4 pages: token 0x%08x, %" PRIu64 " %s to its completion\n",
	       ndk_get_local_token_from_mr(mr), t1 - t0, unit);
	if (check("invalidate", ndk_invalidate_mr(qp, (void *)2, mr, 0)))
		goto out_adapter;
	if (poll_one(ad, cq, &r) || check("invalidate completion", r.status) ||
	    r.type != NDK_OP_INVALIDATE || r.request_context != (void *)2) {
		fprintf(stderr, "invalidate: wrong completion\n");
		goto out_adapter;
	}
	printf("Invalidate: %" PRIu64 " %s to its completion\n", now_of(sim) - t1, unit);
	rc = 0;
	ndk_close_mr(mr);
	ndk_free_buffer(ad, &buf);
	ndk_close_qp(qp);
	ndk_close_cq(cq);
	ndk_close_pd(pd);
out_adapter:
	ndk_close_adapter(ad);
	return rc;
}
