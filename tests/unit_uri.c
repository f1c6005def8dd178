// SPDX-License-Identifier: MIT
/*
 * Unit tests: the adapter URIs of ndk_open_adapter.
 * Build alone: gcc -std=gnu11 -Ihost/include -Ihost/src tests/unit_uri.c host/src/ndk_util.c
 *              -lcriterion
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ndk_internal.h"

Test(unit_uri, sim_and_pci_parse_without_an_address)
{
	struct ndk_uri u;

	cr_assert_eq(ndk_parse_uri("sim", &u), 0);
	cr_expect_eq(u.kind, NDK_URI_SIM);
	cr_expect_not(u.has_slot);
	cr_assert_eq(ndk_parse_uri("pci", &u), 0);
	cr_expect_eq(u.kind, NDK_URI_PCI);
	cr_expect_not(u.has_slot);
}

Test(unit_uri, pci_address_parses_domain_bus_device_function)
{
	struct ndk_uri u;

	cr_assert_eq(ndk_parse_uri("pci:0000:01:00.0", &u), 0);
	cr_expect_eq(u.kind, NDK_URI_PCI);
	cr_expect(u.has_slot);
	cr_expect_eq(u.domain, 0);
	cr_expect_eq(u.bus, 1);
	cr_expect_eq(u.dev, 0);
	cr_expect_eq(u.func, 0);

	cr_assert_eq(ndk_parse_uri("pci:00aB:fF:1F.7", &u), 0);
	cr_expect_eq(u.domain, 0xab);
	cr_expect_eq(u.bus, 0xff);
	cr_expect_eq(u.dev, 0x1f);
	cr_expect_eq(u.func, 7);
}

Test(unit_uri, pci_address_without_domain_means_domain_zero)
{
	struct ndk_uri u;

	cr_assert_eq(ndk_parse_uri("pci:3b:02.1", &u), 0);
	cr_expect(u.has_slot);
	cr_expect_eq(u.domain, 0);
	cr_expect_eq(u.bus, 0x3b);
	cr_expect_eq(u.dev, 2);
	cr_expect_eq(u.func, 1);
}

Test(unit_uri, malformed_uris_are_invalid_and_leave_the_output_alone)
{
	static const char *const bad[] = {
		"",
		"SIM",
		"sim:",
		"sim0",
		"pcix",
		"pci:",
		"pci:0000:01:00",
		"pci:0000:01:20.0",
		"pci:0000:01:00.8",
		"pci:000:01:00.0",
		"pci:0000:01:00.0x",
		"pci:0000-01:00.0",
		"pci:0000:01.00.0",
		"pci:g000:01:00.0",
		"pci:01:00",
		"pci:1:0.0",
		" sim",
	};
	struct ndk_uri u;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&u, 0x5a, sizeof(u));
		cr_expect_eq(ndk_parse_uri(bad[i], &u), -EINVAL, "\"%s\" was accepted", bad[i]);
		cr_expect_eq(u.domain, 0x5a5a5a5a, "\"%s\" wrote the output", bad[i]);
	}
	cr_expect_eq(ndk_parse_uri(NULL, &u), -EINVAL);
	cr_expect_eq(ndk_parse_uri("sim", NULL), -EINVAL);
}
