/* SPDX-License-Identifier: MIT */
/*
 * fuzz_found   what the fuzzer (tests/fuzz/ndk_fuzz.c, docs/verification.md "Fuzzing") found
 *              wrong in ndknic, each reduced to a run of its own.
 */
#include "backend_sim.h" /* the world behind an ndk_sim: raw MMIO */
#include "cosim.h"
#include "ndk_internal.h" /* the QP's doorbell page */
#include "nic_hw.h"
#include "nicsim.h"

/*
 * A QP created without a receive queue was given to the device as a one-WQE receive ring at
 * logical address 0. An RQ doorbell that no driver writes (the doorbell page can be mapped into
 * an unprivileged process) then made the NIC read a receive WQE from address 0, memory nobody
 * gave it (the world's DMA firewall stopped the run). The NIC must read only memory of the QP,
 * and the QP must go on working.
 */
Test(fuzz_found, an_rq_doorbell_on_a_qp_without_receive_queue_reads_no_foreign_memory)
{
	struct world w;
	world_open(&w, 16, 8);
	nicsim_mmio_write32(w.sim->world, 0, w.qp->db + NIC_DB_RQ_PI, 1);
	ndk_sim_step(w.sim, 20000); /* the prefetch would have read by now */
	struct region r;
	region_make(&w, &r, 1, false);
	expect_status(&w, region_register(&w, &r, (void *)0x77, 0), NDK_STATUS_SUCCESS);
	expect_completion(&w, w.cq, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, (void *)0x77);
	region_free(&w, &r);
	world_close(&w);
}
