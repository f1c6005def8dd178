// SPDX-License-Identifier: MIT
/*
 * ndk_open_adapter: from a URI to a backend, then to an adapter. The only file of the driver
 * core that knows which backends exist.
 */
#include <errno.h>

#include "ndk_internal.h"

static ndk_status open_pci(const struct ndk_uri *uri, struct ndk_adapter **adapter)
{
	const struct ndk_backend_ops *ops;
	void *dev;
	int err;

	err = ndk_pci_open(uri, &ops, &dev);
	if (err)
		return ndk_status_from_errno(err);
	/* polling only (no interrupts through libpciaccess), and a real device may hold objects
	 * of an earlier process */
	err = ndk_adapter_create(ops, dev, NDK_ADAPTER_F_POLLING_ONLY | NDK_ADAPTER_F_RESET_OBJECTS,
				 adapter);
	if (err) {
		ops->close(dev);
		return ndk_status_from_errno(err);
	}
	return NDK_STATUS_SUCCESS;
}

ndk_status ndk_open_adapter(const char *uri, struct ndk_adapter **adapter)
{
	struct ndk_uri u;
	int err;

	if (!adapter)
		return NDK_STATUS_INVALID_PARAMETER;
	err = ndk_parse_uri(uri, &u);
	if (err)
		return ndk_status_from_errno(err);
	if (u.kind == NDK_URI_SIM)
		return ndk_sim_open_private(adapter);
	return open_pci(&u, adapter);
}
