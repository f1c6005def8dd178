// SPDX-License-Identifier: MIT
/*
 * Status names and the one errno -> ndk_status conversion of the library (see ndk_internal.h
 * for the mapping and why it is the only one).
 */
#include <errno.h>

#include "ndk_internal.h"

const char *ndk_status_name(ndk_status status)
{
	switch (status) {
	case NDK_STATUS_SUCCESS:
		return "STATUS_SUCCESS";
	case NDK_STATUS_PENDING:
		return "STATUS_PENDING";
	case NDK_STATUS_BUFFER_OVERFLOW:
		return "STATUS_BUFFER_OVERFLOW";
	case NDK_STATUS_NO_MORE_ENTRIES:
		return "STATUS_NO_MORE_ENTRIES";
	case NDK_STATUS_ACCESS_VIOLATION:
		return "STATUS_ACCESS_VIOLATION";
	case NDK_STATUS_INVALID_PARAMETER:
		return "STATUS_INVALID_PARAMETER";
	case NDK_STATUS_NO_SUCH_DEVICE:
		return "STATUS_NO_SUCH_DEVICE";
	case NDK_STATUS_INVALID_PARAMETER_MIX:
		return "STATUS_INVALID_PARAMETER_MIX";
	case NDK_STATUS_DATA_OVERRUN:
		return "STATUS_DATA_OVERRUN";
	case NDK_STATUS_INSUFFICIENT_RESOURCES:
		return "STATUS_INSUFFICIENT_RESOURCES";
	case NDK_STATUS_IO_TIMEOUT:
		return "STATUS_IO_TIMEOUT";
	case NDK_STATUS_NOT_SUPPORTED:
		return "STATUS_NOT_SUPPORTED";
	case NDK_STATUS_INTERNAL_ERROR:
		return "STATUS_INTERNAL_ERROR";
	case NDK_STATUS_CANCELLED:
		return "STATUS_CANCELLED";
	case NDK_STATUS_REMOTE_ERROR:
		return "STATUS_REMOTE_ERROR";
	case NDK_STATUS_INVALID_DEVICE_STATE:
		return "STATUS_INVALID_DEVICE_STATE";
	case NDK_STATUS_CONNECTION_INVALID:
		return "STATUS_CONNECTION_INVALID";
	default:
		return "STATUS_UNKNOWN";
	}
}

ndk_status ndk_status_from_errno(int err)
{
	switch (err) {
	case 0:
		return NDK_STATUS_SUCCESS;
	case -EINVAL:
		return NDK_STATUS_INVALID_PARAMETER;
	case -EDOM:
		return NDK_STATUS_INVALID_PARAMETER_MIX;
	case -ENOMEM:
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	case -ENOSPC:
		return NDK_STATUS_NO_MORE_ENTRIES;
	case -E2BIG:
		return NDK_STATUS_DATA_OVERRUN;
	case -EACCES:
	case -EPERM:
		return NDK_STATUS_ACCESS_VIOLATION;
	case -EBADFD:
	case -EBUSY:
		return NDK_STATUS_INVALID_DEVICE_STATE;
	case -EOPNOTSUPP:
		return NDK_STATUS_NOT_SUPPORTED;
	case -ENODEV:
	case -ENOENT:
		return NDK_STATUS_NO_SUCH_DEVICE;
	case -ETIMEDOUT:
		return NDK_STATUS_IO_TIMEOUT;
	case -ENOTCONN:
		return NDK_STATUS_CONNECTION_INVALID;
	case -EREMOTEIO:
		return NDK_STATUS_REMOTE_ERROR;
	case -ECANCELED:
		return NDK_STATUS_CANCELLED;
	case -EOVERFLOW:
		return NDK_STATUS_BUFFER_OVERFLOW;
	case -EINPROGRESS:
		return NDK_STATUS_PENDING;
	default:
		return NDK_STATUS_INTERNAL_ERROR;
	}
}
