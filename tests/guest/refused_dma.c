/* SPDX-License-Identifier: MIT */
/*
 * The device server's DMA firewall, seen from the guest (run by tools/run_tests.sh in a boot of
 * its own: the NIC does not survive it).
 *
 *   tools/guest/guest.sh run -- build/tests/refused_dma
 *
 * A memory region is fast-registered over one page at guest-physical 0x7f0000000 (31.75 GiB:
 * not RAM of the 512 MiB guest), then a QP connected to itself Writes 64 bytes into it: the
 * responder's DMA write goes outside guest RAM. The device server must refuse it and stop the
 * NIC (its report: "outside guest RAM"; its exit status 70, which guest.sh returns when this
 * program passed). This program passes when the FastRegister completed and the Write did not
 * complete successfully within 5 s; the refusal itself is checked by the caller on the server's
 * report.
 */
#include <stdio.h>
#include <time.h>

#include <ndk.h>

#define OUTSIDE_RAM 0x7f0000000ull

static int poll_for(struct ndk_cq *cq, struct ndk_result_ex *r, int seconds)
{
	time_t t0 = time(NULL);
	while (time(NULL) - t0 < seconds)
		if (ndk_get_cq_results_ex(cq, r, 1) == 1)
			return 1;
	return 0;
}

int main(void)
{
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_mr *mr;
	struct ndk_buffer src;
	struct ndk_qp_address me;
	struct ndk_result_ex r;
	uint64_t page = OUTSIDE_RAM;

	if (ndk_open_adapter("pci", &ad) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "refused_dma: cannot open pci\n");
		return 1;
	}
	struct ndk_qp_attr a = { 0 };
	if (ndk_create_pd(ad, &pd) || ndk_create_cq(ad, 64, NULL, NULL, &cq))
		return 1;
	a.receive_cq = a.initiator_cq = cq;
	a.initiator_queue_depth = 16;
	a.max_initiator_request_sge = 1;
	if (ndk_create_qp(pd, &a, &qp) || ndk_get_qp_address(qp, &me) ||
	    ndk_connect_qp(qp, &me, 1, 1) || ndk_alloc_buffer(ad, 4096, &src) ||
	    ndk_create_mr(pd, &mr) || ndk_initialize_fast_register_mr(mr, 1, true)) {
		fprintf(stderr, "refused_dma: set-up failed\n");
		return 1;
	}
	if (ndk_fast_register(qp, NULL, mr, 1, &page, 0, 4096, 0x10000,
			      NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_LOCAL_WRITE) ||
	    !poll_for(cq, &r, 60) || r.status != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "refused_dma: the FastRegister did not complete\n");
		return 1;
	}
	struct ndk_sge s = { src.logical, 64, ndk_get_privileged_token(pd) };
	if (ndk_write(qp, NULL, &s, 1, 0x10000, ndk_get_remote_token_from_mr(mr), 0)) {
		fprintf(stderr, "refused_dma: the Write was not posted\n");
		return 1;
	}
	if (poll_for(cq, &r, 5) && r.status == NDK_STATUS_SUCCESS) {
		fprintf(stderr, "refused_dma: a Write into memory outside guest RAM succeeded\n");
		return 1;
	}
	printf("refused_dma: the Write into 0x%llx did not complete\n", OUTSIDE_RAM);
	/* no ndk_close_adapter: the stopped NIC would not answer its commands */
	return 0;
}
