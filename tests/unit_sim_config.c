// SPDX-License-Identifier: MIT
/*
 * Unit tests: the simulated world's configuration (defaults and environment overrides) and
 * the argument checks of ndk_sim.h and ndk_open_adapter, none of which needs a world.
 * Links the library (ndk_sim.c sits on the harness): part of build/tests/ndk_tests.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ndk.h"
#include "ndk_sim.h"

static void clear_env(void)
{
	unsetenv("NDK_SIM_WIDTH");
	unsetenv("NDK_SIM_CYCLE_LIMIT");
	unsetenv("NDK_SIM_TRACE");
}

Test(unit_sim_config, defaults_are_the_measured_pcie_and_host_costs, .init = clear_env)
{
	struct ndk_sim_config c;

	memset(&c, 0xa5, sizeof(c));
	ndk_sim_default_config(&c);
	cr_expect_eq(c.nics, 2);
	cr_expect_eq(c.clock_mhz, 250);
	cr_expect_eq(c.mmio_write_ns, 300);
	cr_expect_eq(c.dma_read_ns, 500);
	cr_expect_eq(c.dma_write_ns, 300);
	cr_expect_eq(c.pcie_mbps, 7000);
	cr_expect_eq(c.link_ns, 500);
	cr_expect_eq(c.host_wqe_ns, 30);
	cr_expect_eq(c.host_doorbell_ns, 150);
	cr_expect_eq(c.poll_cycles, 16);
	cr_expect_eq(c.host_memory_bytes, 256ull << 20);
	cr_expect_eq(c.seed, 1);
	cr_expect_null(c.trace_path);
	cr_expect_eq(c.data_width, 256);
	cr_expect_eq(c.mmio_read_ns, 1000);
	cr_expect_eq(c.cycle_limit, 2000000000ull);
}

Test(unit_sim_config, environment_overrides_width_cycle_limit_and_trace, .init = clear_env)
{
	struct ndk_sim_config c;

	setenv("NDK_SIM_WIDTH", "64", 1);
	setenv("NDK_SIM_CYCLE_LIMIT", "123456", 1);
	setenv("NDK_SIM_TRACE", "/tmp/ndk_unit.fst", 1);
	ndk_sim_default_config(&c);
	cr_expect_eq(c.data_width, 64);
	cr_expect_eq(c.cycle_limit, 123456);
	cr_expect_str_eq(c.trace_path, "/tmp/ndk_unit.fst");
}

Test(unit_sim_config, a_bad_width_from_the_environment_is_refused_loudly, .init = clear_env)
{
	struct ndk_sim_config c;
	struct ndk_sim *sim = NULL;

	setenv("NDK_SIM_WIDTH", "wide", 1);
	ndk_sim_default_config(&c);
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_null(sim);
}

Test(unit_sim_config, create_refuses_configs_no_world_can_have, .init = clear_env)
{
	struct ndk_sim_config c;
	struct ndk_sim *sim = NULL;

	ndk_sim_default_config(&c);
	c.data_width = 128;
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER);
	ndk_sim_default_config(&c);
	c.nics = 0;
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER);
	ndk_sim_default_config(&c);
	c.clock_mhz = 0;
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_sim_create(NULL, &sim), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_sim_create(&c, NULL), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_null(sim);
}

Test(unit_sim_config, world_calls_tolerate_null)
{
	struct ndk_sim_stats s;
	struct ndk_adapter *ad = NULL;

	memset(&s, 0xff, sizeof(s));
	ndk_sim_get_stats(NULL, 0, &s);
	cr_expect_eq(s.mmio_writes, 0);
	cr_expect_eq(s.interrupts, 0);
	cr_expect_null(ndk_sim_of(NULL));
	cr_expect_eq(ndk_sim_cycle(NULL), 0);
	ndk_sim_step(NULL, 10);
	ndk_sim_destroy(NULL);
	cr_expect_eq(ndk_sim_open_adapter(NULL, 0, &ad), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_null(ad);
}

Test(unit_sim_config, open_adapter_refuses_malformed_uris)
{
	struct ndk_adapter *ad = NULL;

	cr_expect_eq(ndk_open_adapter(NULL, &ad), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_open_adapter("bogus", &ad), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_open_adapter("pci:zz", &ad), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_open_adapter("sim", NULL), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_null(ad);
}
