// SPDX-License-Identifier: MIT
/*
 * Unit tests: ring and index arithmetic (ring sizes, the CQE owner phase, queue fullness,
 * completions freeing send-queue slots, the deferral limit).
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_ring.c -lcriterion
 */
#include <criterion/criterion.h>

#include "ndk_internal.h"

Test(unit_ring, ring_size_is_the_next_power_of_two)
{
	cr_expect_eq(ndk_log2_ceil(1), 0);
	cr_expect_eq(ndk_log2_ceil(2), 1);
	cr_expect_eq(ndk_log2_ceil(3), 2);
	cr_expect_eq(ndk_log2_ceil(4), 2);
	cr_expect_eq(ndk_log2_ceil(5), 3);
	cr_expect_eq(ndk_log2_ceil(100), 7);
	cr_expect_eq(ndk_log2_ceil(4096), 12);
	cr_expect_eq(ndk_log2_ceil(4097), 13);
	cr_expect_eq(ndk_log2_ceil(16384), 14);
	cr_expect_eq(ndk_log2_ceil(0x80000000u), 31);
	cr_expect_eq(ndk_log2_ceil(0x80000001u), 32);
}

Test(unit_ring, cqe_owner_is_one_on_the_first_pass_and_flips_on_every_wrap)
{
	unsigned log;
	uint32_t ci;

	for (log = 0; log <= NDK_MAX_LOG_DEPTH; log++) {
		uint32_t ring = 1u << log;

		for (ci = 0; ci < 4 * ring && ci<70000; ci += ring> 64 ? ring / 8 : 1) {
			uint8_t expect = ((ci / ring) & 1) ? 0 : 1;

			cr_assert(ndk_cqe_owner_valid(expect, (uint16_t)ci, log), "log %u ci %u",
				  log, ci);
			cr_assert_not(ndk_cqe_owner_valid(expect ^ 1, (uint16_t)ci, log),
				      "log %u ci %u", log, ci);
		}
	}
	/* only bit 0 of the owner byte counts */
	cr_expect(ndk_cqe_owner_valid(0xff, 0, 4));
	cr_expect(ndk_cqe_owner_valid(0xfe, 16, 4));
}

Test(unit_ring, cqe_phase_stays_right_across_the_16_bit_index_wrap)
{
	/* 2^16 is a multiple of every ring, so the phase of index 0 after a wrap is the first
	 * pass's again, as it is for the device's 16-bit counter */
	cr_expect(ndk_cqe_owner_valid(1, (uint16_t)65536u, 15));
	cr_expect(ndk_cqe_owner_valid(0, (uint16_t)(65536u - 1), 15));
	cr_expect(ndk_cqe_owner_valid(0, (uint16_t)(65536u - 1), 4));
}

Test(unit_ring, queue_is_full_with_depth_requests_outstanding)
{
	cr_expect_not(ndk_wq_full(0, 0, 4));
	cr_expect_not(ndk_wq_full(3, 0, 4));
	cr_expect(ndk_wq_full(4, 0, 4));
	cr_expect_not(ndk_wq_full(5, 2, 4));
	/* 64-bit driver indices never wrap: far past 2^16 the arithmetic is the same */
	cr_expect(ndk_wq_full(0x10003, 0xffff, 4));
	cr_expect_not(ndk_wq_full(0x10003, 0x10000, 4));
}

Test(unit_ring, completion_frees_every_slot_up_to_and_including_its_wqe)
{
	/* WQEs 0..4 posted; a completion of WQE 2 (0 and 1 were silent successes) */
	cr_expect_eq(ndk_wq_complete(0, 5, 2), 3);
	cr_expect_eq(ndk_wq_complete(3, 5, 4), 5);
	cr_expect_eq(ndk_wq_complete(0, 5, 0), 1);
}

Test(unit_ring, completion_of_a_wqe_not_outstanding_moves_nothing)
{
	/* completed 3, posted 5: WQE 1 (already done) and WQE 5 (never posted) */
	cr_expect_eq(ndk_wq_complete(3, 5, 1), 3);
	cr_expect_eq(ndk_wq_complete(3, 5, 5), 3);
	cr_expect_eq(ndk_wq_complete(5, 5, 5), 5, "nothing outstanding");
}

Test(unit_ring, completion_index_extends_across_the_16_bit_wrap)
{
	uint64_t completed = 0xfffe, pi = 0x10002;

	/* the device reports 16-bit indices: 0xffff, then 0x0001 */
	completed = ndk_wq_complete(completed, pi, 0xffff);
	cr_expect_eq(completed, 0x10000);
	completed = ndk_wq_complete(completed, pi, 0x0001);
	cr_expect_eq(completed, 0x10002);
	/* and again three wraps later */
	cr_expect_eq(ndk_wq_complete(0x3fff0, 0x40008, 0x0003), 0x40004);
}

Test(unit_ring, deferred_wqes_ring_by_themselves_at_half_the_ring)
{
	cr_expect_eq(ndk_defer_limit(1), 1);
	cr_expect_eq(ndk_defer_limit(2), 1);
	cr_expect_eq(ndk_defer_limit(8), 4);
	cr_expect_eq(ndk_defer_limit(4096), 2048);
}
