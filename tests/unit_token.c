// SPDX-License-Identifier: MIT
/*
 * Unit tests: token encoding, the privileged token, and the flag sets each request takes.
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_token.c -lcriterion
 */
#include <criterion/criterion.h>

#include "ndk_internal.h"

Test(unit_token, token_is_index_and_key)
{
	cr_expect_eq(ndk_token(0, 0), 0);
	cr_expect_eq(ndk_token(5, 1), 0x501);
	cr_expect_eq(ndk_token(0xffff, 0xff), 0xffffff);
	cr_expect_eq(ndk_token_index(0x1234ab), 0x1234);
	cr_expect_eq(ndk_token_key(0x1234ab), 0xab);
}

Test(unit_token, key_advance_wraps_within_eight_bits_and_changes_the_token)
{
	uint8_t key = 0xff;
	uint8_t next = (uint8_t)(key + 1);

	cr_expect_eq(next, 0);
	cr_expect_neq(ndk_token(7, key), ndk_token(7, next));
	cr_expect_eq(ndk_token_index(ndk_token(7, next)), 7);
}

Test(unit_token, privileged_token_is_never_a_table_token)
{
	uint32_t pd, index;

	for (pd = 0; pd <= 0xffff; pd += 0x101) {
		uint32_t t = ndk_privileged_token((uint16_t)pd);

		cr_assert(ndk_token_is_privileged(t));
		cr_assert_geq(ndk_token_index(t), 0x10000, "pd %u", pd);
		cr_assert_eq((t >> 8) & 0xffff, pd, "the PD is recoverable from it");
	}
	/* CAP_MEMORY's num_mrs is 16 bits: no table index reaches 0xFF0000 */
	for (index = 0; index <= 0xffff; index += 0xff)
		cr_assert_not(ndk_token_is_privileged(ndk_token(index, 0xff)), "index %u", index);
	cr_expect_neq(ndk_privileged_token(1), ndk_privileged_token(2));
}

Test(unit_token, defer_and_ignored_flags_never_reach_the_wqe)
{
	cr_expect_eq(NDK_FLAGS_TO_WQE & NDK_OP_FLAG_DEFER, 0);
	cr_expect_eq(NDK_FLAGS_TO_WQE & NDK_OP_FLAG_RDMA_READ_SINK, 0);
	cr_expect_eq(NDK_FLAGS_TO_WQE & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, 0);
	/* the WQE flag bits are the NDK values */
	cr_expect_eq(NIC_FLAG_SILENT_SUCCESS, NDK_OP_FLAG_SILENT_SUCCESS);
	cr_expect_eq(NIC_FLAG_READ_FENCE, NDK_OP_FLAG_READ_FENCE);
	cr_expect_eq(NIC_FLAG_ALLOW_REMOTE_WRITE, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	cr_expect_eq(NIC_FLAG_INLINE, NDK_OP_FLAG_INLINE);
}

Test(unit_token, remote_access_means_remote_read_or_remote_write_not_local_write)
{
	cr_expect(NDK_FLAGS_REMOTE_ACCESS & NDK_OP_FLAG_ALLOW_REMOTE_READ);
	cr_expect(NDK_FLAGS_REMOTE_ACCESS & NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
	cr_expect_eq(NDK_FLAGS_REMOTE_ACCESS & NDK_OP_FLAG_ALLOW_LOCAL_WRITE, 0);
}

Test(unit_token, each_request_takes_only_its_flags)
{
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_DEFER | NDK_OP_FLAG_SILENT_SUCCESS,
				     NDK_FLAGS_INVALIDATE),
		     0);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_ALLOW_REMOTE_READ, NDK_FLAGS_INVALIDATE), -EINVAL);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_ALLOW_LOCAL_WRITE, NDK_FLAGS_FAST_REG), 0);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_RDMA_READ_SINK, NDK_FLAGS_FAST_REG), 0);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_INLINE, NDK_FLAGS_FAST_REG), -EINVAL);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, NDK_FLAGS_WRITE), -EINVAL);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, NDK_FLAGS_SEND), 0);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_INLINE, NDK_FLAGS_READ), -EINVAL);
	cr_expect_eq(ndk_check_flags(NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, NDK_FLAGS_READ), 0);
	cr_expect_eq(ndk_check_flags(0x400, NDK_FLAGS_SEND), -EINVAL, "a bit no request takes");
}
