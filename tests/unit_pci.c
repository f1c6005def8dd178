// SPDX-License-Identifier: MIT
/*
 * Unit tests: the pci backend without an ndknic on the bus (as on CI): opening one fails with
 * a clear status and never touches a device that is not ours.
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_pci.c host/src/backend_pci.c
 *              host/src/ndk_util.c host/src/ndk_status.c -lcriterion -lpciaccess -lpthread
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "ndk_internal.h"

/* Is there an ndknic (our vendor/device ids) on this machine's PCI bus? */
static bool ndknic_present(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[512];
		unsigned vendor = 0, device = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%x", &vendor) != 1)
			vendor = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%x", &device) != 1)
			device = 0;
		fclose(f);
		found = vendor == NIC_VENDOR_ID && device == NIC_DEVICE_ID;
	}
	closedir(d);
	return found;
}

/* the first PCI device of the machine, which is not an ndknic ("" when there is none) */
static void first_device(char *slot, size_t len)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;

	slot[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strlen(e->d_name) == 12) {
			snprintf(slot, len, "pci:%s", e->d_name);
			break;
		}
	closedir(d);
}

static int open_uri(const char *uri)
{
	const struct ndk_backend_ops *ops;
	struct ndk_uri u;
	void *dev;
	int err;

	cr_assert_eq(ndk_parse_uri(uri, &u), 0, "%s", uri);
	err = ndk_pci_open(&u, &ops, &dev);
	if (!err)
		ops->close(dev);
	return err;
}

Test(unit_pci, without_an_ndknic_pci_is_no_such_device)
{
	if (ndknic_present())
		cr_skip_test("an ndknic is present on this machine");
	cr_expect_eq(open_uri("pci"), -ENODEV);
	cr_expect_eq(ndk_status_from_errno(-ENODEV), NDK_STATUS_NO_SUCH_DEVICE);
}

Test(unit_pci, an_address_with_no_device_is_no_such_device)
{
	/* domain ffff bus ff slot 1f.7: not a real machine's address */
	cr_expect_eq(open_uri("pci:ffff:ff:1f.7"), -ENODEV);
}

Test(unit_pci, a_device_that_is_not_an_ndknic_is_refused_untouched)
{
	char slot[64];

	first_device(slot, sizeof(slot));
	if (!slot[0] || ndknic_present())
		cr_skip_test("no foreign PCI device to try");
	cr_expect_eq(open_uri(slot), -EOPNOTSUPP, "%s", slot);
}

Test(unit_pci, the_library_state_is_released_after_each_failed_open)
{
	unsigned i;

	/* pci_system_init / cleanup are counted: repeated failures leave nothing behind and
	 * keep working */
	for (i = 0; i < 3; i++)
		cr_expect_eq(open_uri("pci:ffff:ff:1f.7"), -ENODEV);
}
