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
