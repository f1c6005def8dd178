// SPDX-License-Identifier: MIT
/*
 * Unit tests: status names and the errno -> ndk_status conversion at the API boundary.
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_status.c
 *              host/src/ndk_status.c -lcriterion
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "ndk_internal.h"

struct status_case {
	ndk_status status;
	uint32_t value;
	const char *name;
};

static const struct status_case statuses[] = {
	{ NDK_STATUS_SUCCESS, 0x00000000, "STATUS_SUCCESS" },
	{ NDK_STATUS_PENDING, 0x00000103, "STATUS_PENDING" },
	{ NDK_STATUS_BUFFER_OVERFLOW, 0x80000005, "STATUS_BUFFER_OVERFLOW" },
	{ NDK_STATUS_NO_MORE_ENTRIES, 0x8000001A, "STATUS_NO_MORE_ENTRIES" },
	{ NDK_STATUS_ACCESS_VIOLATION, 0xC0000005, "STATUS_ACCESS_VIOLATION" },
	{ NDK_STATUS_INVALID_PARAMETER, 0xC000000D, "STATUS_INVALID_PARAMETER" },
	{ NDK_STATUS_NO_SUCH_DEVICE, 0xC000000E, "STATUS_NO_SUCH_DEVICE" },
	{ NDK_STATUS_INVALID_PARAMETER_MIX, 0xC0000030, "STATUS_INVALID_PARAMETER_MIX" },
	{ NDK_STATUS_DATA_OVERRUN, 0xC000003C, "STATUS_DATA_OVERRUN" },
	{ NDK_STATUS_INSUFFICIENT_RESOURCES, 0xC000009A, "STATUS_INSUFFICIENT_RESOURCES" },
	{ NDK_STATUS_IO_TIMEOUT, 0xC00000B5, "STATUS_IO_TIMEOUT" },
	{ NDK_STATUS_NOT_SUPPORTED, 0xC00000BB, "STATUS_NOT_SUPPORTED" },
	{ NDK_STATUS_INTERNAL_ERROR, 0xC00000E5, "STATUS_INTERNAL_ERROR" },
	{ NDK_STATUS_CANCELLED, 0xC0000120, "STATUS_CANCELLED" },
	{ NDK_STATUS_REMOTE_ERROR, 0xC000013D, "STATUS_REMOTE_ERROR" },
	{ NDK_STATUS_INVALID_DEVICE_STATE, 0xC0000184, "STATUS_INVALID_DEVICE_STATE" },
	{ NDK_STATUS_CONNECTION_INVALID, 0xC000023A, "STATUS_CONNECTION_INVALID" },
};

Test(unit_status, every_status_has_its_ntstatus_value_and_name)
{
	size_t i;

	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		cr_expect_eq((uint32_t)statuses[i].status, statuses[i].value, "%s: 0x%08x",
			     statuses[i].name, (unsigned)statuses[i].status);
		cr_expect_str_eq(ndk_status_name(statuses[i].status), statuses[i].name);
	}
}

Test(unit_status, unknown_status_name_is_never_null)
{
	cr_expect_str_eq(ndk_status_name((ndk_status)0xC0001234), "STATUS_UNKNOWN");
	cr_expect_str_eq(ndk_status_name((ndk_status)1), "STATUS_UNKNOWN");
}

Test(unit_status, cqe_statuses_of_the_register_map_are_the_api_values)
{
	cr_expect_eq((uint32_t)NDK_STATUS_SUCCESS, NIC_STATUS_SUCCESS);
	cr_expect_eq((uint32_t)NDK_STATUS_BUFFER_OVERFLOW, NIC_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq((uint32_t)NDK_STATUS_ACCESS_VIOLATION, NIC_STATUS_ACCESS_VIOLATION);
	cr_expect_eq((uint32_t)NDK_STATUS_INVALID_PARAMETER, NIC_STATUS_INVALID_PARAMETER);
	cr_expect_eq((uint32_t)NDK_STATUS_INVALID_DEVICE_STATE, NIC_STATUS_INVALID_DEVICE_STATE);
	cr_expect_eq((uint32_t)NDK_STATUS_CANCELLED, NIC_STATUS_CANCELLED);
	cr_expect_eq((uint32_t)NDK_STATUS_INTERNAL_ERROR, NIC_STATUS_INTERNAL_ERROR);
}

struct errno_case {
	int err;
	ndk_status status;
};

static const struct errno_case errnos[] = {
	{ 0, NDK_STATUS_SUCCESS },
	{ -EINVAL, NDK_STATUS_INVALID_PARAMETER },
	{ -EDOM, NDK_STATUS_INVALID_PARAMETER_MIX },
	{ -ENOMEM, NDK_STATUS_INSUFFICIENT_RESOURCES },
	{ -ENOSPC, NDK_STATUS_NO_MORE_ENTRIES },
	{ -E2BIG, NDK_STATUS_DATA_OVERRUN },
	{ -EACCES, NDK_STATUS_ACCESS_VIOLATION },
	{ -EPERM, NDK_STATUS_ACCESS_VIOLATION },
	{ -EBADFD, NDK_STATUS_INVALID_DEVICE_STATE },
	{ -EBUSY, NDK_STATUS_INVALID_DEVICE_STATE },
	{ -EOPNOTSUPP, NDK_STATUS_NOT_SUPPORTED },
	{ -ENODEV, NDK_STATUS_NO_SUCH_DEVICE },
	{ -ENOENT, NDK_STATUS_NO_SUCH_DEVICE },
	{ -ETIMEDOUT, NDK_STATUS_IO_TIMEOUT },
	{ -ENOTCONN, NDK_STATUS_CONNECTION_INVALID },
	{ -EREMOTEIO, NDK_STATUS_REMOTE_ERROR },
	{ -ECANCELED, NDK_STATUS_CANCELLED },
	{ -EOVERFLOW, NDK_STATUS_BUFFER_OVERFLOW },
	{ -EINPROGRESS, NDK_STATUS_PENDING },
	{ -EIO, NDK_STATUS_INTERNAL_ERROR },
	{ -12345, NDK_STATUS_INTERNAL_ERROR },
};

Test(unit_status, errno_converts_to_one_status_at_the_api_boundary)
{
	size_t i;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		ndk_status got = ndk_status_from_errno(errnos[i].err);

		cr_expect_eq(got, errnos[i].status, "errno %d: got %s, want %s", errnos[i].err,
			     ndk_status_name(got), ndk_status_name(errnos[i].status));
	}
}
