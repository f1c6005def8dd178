// SPDX-License-Identifier: MIT
/*
 * Unit tests: NdkControlCqInterruptModeration argument rules (ndk-semantics.md section 3).
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_moderation.c
 *              host/src/ndk_util.c host/src/ndk_status.c -lcriterion
 */
#include <criterion/criterion.h>

#include "ndk_internal.h"

#define INF NDK_MODERATION_INFINITE

Test(unit_moderation, interval_and_count_both_infinite_is_a_parameter_mix)
{
	cr_expect_eq(ndk_moderation_check(INF, INF, 64), -EDOM);
	/* a count above the depth can never be reached: as infinite as MAXULONG */
	cr_expect_eq(ndk_moderation_check(INF, 65, 64), -EDOM);
	cr_expect_eq(ndk_status_from_errno(ndk_moderation_check(INF, INF, 64)),
		     NDK_STATUS_INVALID_PARAMETER_MIX);
}

Test(unit_moderation, one_finite_bound_is_valid)
{
	cr_expect_eq(ndk_moderation_check(INF, 64, 64), 0, "count only, count == depth");
	cr_expect_eq(ndk_moderation_check(INF, 1, 64), 0, "count only");
	cr_expect_eq(ndk_moderation_check(20, INF, 64), 0, "interval only (the sample's choice)");
	cr_expect_eq(ndk_moderation_check(20, 100, 64), 0, "interval only, count over depth");
	cr_expect_eq(ndk_moderation_check(20, 8, 64), 0, "both");
}

Test(unit_moderation, interval_zero_turns_moderation_off_whatever_the_count)
{
	cr_expect_eq(ndk_moderation_check(0, INF, 64), 0);
	cr_expect_eq(ndk_moderation_check(0, 0, 64), 0);
	cr_expect_eq(ndk_moderation_check(0, 1, 64), 0);
}

Test(unit_moderation, the_doorbell_word_reads_a_zero_field_as_no_bound)
{
	/* {interval_us[31:16], count[15:0]} */
	cr_expect_eq(ndk_moderation_word(20, INF, 64), 20u << 16, "interval only");
	cr_expect_eq(ndk_moderation_word(20, 65, 64), 20u << 16, "a count above the depth");
	cr_expect_eq(ndk_moderation_word(INF, 8, 64), 8u, "count only");
	cr_expect_eq(ndk_moderation_word(INF, 64, 64), 64u, "count == depth still counts");
	cr_expect_eq(ndk_moderation_word(20, 8, 64), 20u << 16 | 8u, "both");
	cr_expect_eq(ndk_moderation_word(0x10000, 8, 64), 0xffffu << 16 | 8u,
		     "an interval beyond 16 bits is rounded down");
	cr_expect_eq(ndk_moderation_word(0xfffffffe, INF, 64), 0xffffu << 16);
}

Test(unit_moderation, interval_zero_or_count_zero_or_one_is_no_moderation)
{
	cr_expect_eq(ndk_moderation_word(0, 8, 64), 0);
	cr_expect_eq(ndk_moderation_word(0, INF, 64), 0);
	cr_expect_eq(ndk_moderation_word(20, 0, 64), 0);
	cr_expect_eq(ndk_moderation_word(20, 1, 64), 0,
		     "at most one accumulates: the first notifies");
	cr_expect_eq(ndk_moderation_word(INF, 1, 64), 0);
}
