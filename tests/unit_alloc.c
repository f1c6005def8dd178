// SPDX-License-Identifier: MIT
/*
 * Unit tests: the id allocator (PDs, QPs, CQs, MR/MW table) and the first-fit range allocator
 * (MTT entries, hugepage pages).
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_alloc.c host/src/ndk_util.c
 *              -lcriterion
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

Test(unit_alloc, bitmap_hands_out_every_id_once_then_reports_exhaustion)
{
	struct ndk_bitmap bm;
	bool seen[100] = { false };
	uint32_t id, i;

	cr_assert_eq(ndk_bitmap_init(&bm, 100), 0);
	for (i = 0; i < 100; i++) {
		cr_assert_eq(ndk_bitmap_alloc(&bm, &id), 0, "allocation %u", i);
		cr_assert_lt(id, 100);
		cr_expect_not(seen[id], "id %u handed out twice", id);
		seen[id] = true;
	}
	cr_expect_eq(ndk_bitmap_alloc(&bm, &id), -ENOMEM);
	ndk_bitmap_free(&bm, 42);
	cr_assert_eq(ndk_bitmap_alloc(&bm, &id), 0);
	cr_expect_eq(id, 42);
	ndk_bitmap_destroy(&bm);
}

Test(unit_alloc, bitmap_reuses_a_freed_id_as_late_as_possible)
{
	struct ndk_bitmap bm;
	uint32_t a, b, c;

	cr_assert_eq(ndk_bitmap_init(&bm, 4), 0);
	cr_assert_eq(ndk_bitmap_alloc(&bm, &a), 0);
	ndk_bitmap_free(&bm, a);
	/* next-fit: the other ids come first, so a stale CQE or token names nothing */
	cr_assert_eq(ndk_bitmap_alloc(&bm, &b), 0);
	cr_expect_neq(b, a);
	cr_assert_eq(ndk_bitmap_alloc(&bm, &c), 0);
	cr_expect_neq(c, a);
	ndk_bitmap_destroy(&bm);
}

Test(unit_alloc, bitmap_reserved_id_is_never_handed_out_and_free_is_idempotent)
{
	struct ndk_bitmap bm;
	uint32_t id, i;

	cr_assert_eq(ndk_bitmap_init(&bm, 8), 0);
	ndk_bitmap_reserve(&bm, 0);
	for (i = 0; i < 7; i++) {
		cr_assert_eq(ndk_bitmap_alloc(&bm, &id), 0);
		cr_expect_neq(id, 0);
	}
	cr_expect_eq(ndk_bitmap_alloc(&bm, &id), -ENOMEM);
	ndk_bitmap_free(&bm, 3);
	ndk_bitmap_free(&bm, 3);
	cr_expect_eq(bm.used, 7);
	ndk_bitmap_free(&bm, 1000); /* out of range: ignored */
	cr_expect_eq(bm.used, 7);
	ndk_bitmap_destroy(&bm);
}

Test(unit_alloc, range_allocator_is_first_fit)
{
	struct ndk_range_alloc ra;
	uint32_t a, b, c, d;

	cr_assert_eq(ndk_range_init(&ra, 1024), 0);
	cr_assert_eq(ndk_range_alloc(&ra, 16, &a), 0);
	cr_assert_eq(ndk_range_alloc(&ra, 32, &b), 0);
	cr_assert_eq(ndk_range_alloc(&ra, 16, &c), 0);
	cr_expect_eq(a, 0);
	cr_expect_eq(b, 16);
	cr_expect_eq(c, 48);
	cr_assert_eq(ndk_range_free(&ra, b, 32), 0);
	/* the hole at 16 is the first that fits */
	cr_assert_eq(ndk_range_alloc(&ra, 8, &d), 0);
	cr_expect_eq(d, 16);
	cr_expect_eq(ra.available, 1024 - 16 - 8 - 16);
	ndk_range_destroy(&ra);
}

Test(unit_alloc, range_allocator_coalesces_in_any_free_order)
{
	static const uint32_t orders[][4] = {
		{ 0, 1, 2, 3 },
		{ 3, 2, 1, 0 },
		{ 1, 3, 0, 2 },
		{ 2, 0, 3, 1 },
	};
	struct ndk_range_alloc ra;
	uint32_t start[4], o, i;

	for (o = 0; o < 4; o++) {
		cr_assert_eq(ndk_range_init(&ra, 40), 0);
		for (i = 0; i < 4; i++)
			cr_assert_eq(ndk_range_alloc(&ra, 10, &start[i]), 0);
		cr_expect_eq(ndk_range_alloc(&ra, 1, &start[0]), -ENOMEM);
		for (i = 0; i < 4; i++)
			cr_assert_eq(ndk_range_free(&ra, start[orders[o][i]], 10), 0);
		cr_expect_eq(ra.nfree, 1, "order %u left %u free ranges", o, ra.nfree);
		cr_expect_eq(ra.available, 40);
		ndk_range_destroy(&ra);
	}
}

Test(unit_alloc, range_allocator_needs_a_contiguous_range_not_just_enough_entries)
{
	struct ndk_range_alloc ra;
	uint32_t s[4], x;

	cr_assert_eq(ndk_range_init(&ra, 40), 0);
	for (x = 0; x < 4; x++)
		cr_assert_eq(ndk_range_alloc(&ra, 10, &s[x]), 0);
	cr_assert_eq(ndk_range_free(&ra, s[0], 10), 0);
	cr_assert_eq(ndk_range_free(&ra, s[2], 10), 0);
	cr_expect_eq(ra.available, 20);
	cr_expect_eq(ndk_range_alloc(&ra, 20, &x), -ENOMEM);
	cr_expect_eq(ndk_range_alloc(&ra, 10, &x), 0);
	ndk_range_destroy(&ra);
}

Test(unit_alloc, range_allocator_rejects_double_free_out_of_range_and_zero)
{
	struct ndk_range_alloc ra;
	uint32_t a;

	cr_assert_eq(ndk_range_init(&ra, 64), 0);
	cr_assert_eq(ndk_range_alloc(&ra, 8, &a), 0);
	cr_expect_eq(ndk_range_alloc(&ra, 0, &a), -EINVAL);
	cr_expect_eq(ndk_range_free(&ra, 0, 8), 0);
	cr_expect_eq(ndk_range_free(&ra, 0, 8), -EINVAL, "double free");
	cr_expect_eq(ndk_range_free(&ra, 4, 8), -EINVAL, "overlaps a free range");
	cr_expect_eq(ndk_range_free(&ra, 60, 8), -EINVAL, "beyond the end");
	cr_expect_eq(ndk_range_free(&ra, 0, 0), -EINVAL);
	cr_expect_eq(ra.available, 64);
	cr_expect_eq(ra.nfree, 1);
	ndk_range_destroy(&ra);
}

/* a deterministic random workload checked against a plain array of owners */
Test(unit_alloc, range_allocator_matches_a_reference_model)
{
	enum { TOTAL = 257, SLOTS = 40 };
	struct ndk_range_alloc ra;
	uint32_t start[SLOTS], count[SLOTS];
	int owner[TOTAL];
	uint32_t seed = 12345, step, i, j;

	memset(owner, -1, sizeof(owner));
	memset(count, 0, sizeof(count));
	cr_assert_eq(ndk_range_init(&ra, TOTAL), 0);
	for (step = 0; step < 20000; step++) {
		seed = seed * 1103515245u + 12345u;
		i = (seed >> 8) % SLOTS;
		if (count[i]) {
			for (j = 0; j < count[i]; j++)
				owner[start[i] + j] = -1;
			cr_assert_eq(ndk_range_free(&ra, start[i], count[i]), 0);
			count[i] = 0;
			continue;
		}
		uint32_t want = 1 + (seed >> 20) % 24, run = 0, first = UINT32_MAX;

		/* the reference: the first run of `want` free entries */
		for (j = 0; j < TOTAL && first == UINT32_MAX; j++) {
			run = owner[j] < 0 ? run + 1 : 0;
			if (run == want)
				first = j + 1 - want;
		}
		if (first == UINT32_MAX) {
			cr_assert_eq(ndk_range_alloc(&ra, want, &start[i]), -ENOMEM, "step %u",
				     step);
			continue;
		}
		cr_assert_eq(ndk_range_alloc(&ra, want, &start[i]), 0, "step %u", step);
		cr_assert_eq(start[i], first, "step %u: got %u, first fit is %u", step, start[i],
			     first);
		for (j = 0; j < want; j++)
			owner[first + j] = (int)i;
		count[i] = want;
	}
	ndk_range_destroy(&ra);
}
