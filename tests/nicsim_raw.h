/* SPDX-License-Identifier: MIT */
/*
 * For the tests that drive the simulated world below the driver (sim/nicsim.h): the data width
 * they run at and the world's default timing model (docs/timing-model.md), so each test states
 * only what it changes.
 */
#ifndef NDK_TESTS_NICSIM_RAW_H
#define NDK_TESTS_NICSIM_RAW_H

#include <stdlib.h>

#include "nicsim.h"

/* NDK_SIM_WIDTH (tools/run_tests.sh runs the suite at 64 and 256) */
static inline unsigned raw_width(void)
{
	const char *e = getenv("NDK_SIM_WIDTH");
	return e && atoi(e) == 256 ? 256 : 64;
}

/* `nics` NICs at 250 MHz, the default PCIe costs, 16 MiB of host memory each */
static inline struct nicsim_config raw_config(unsigned nics)
{
	struct nicsim_config c = {
		.nics = nics,
		.data_width = raw_width(),
		.clock_mhz = 250,
		.mmio_write_ns = 300,
		.mmio_read_ns = 1000,
		.dma_read_ns = 500,
		.dma_write_ns = 300,
		.pcie_mbps = 7000,
		.host_memory_bytes = 1 << 24,
		.cycle_limit = 10000000,
	};
	return c;
}

#endif /* NDK_TESTS_NICSIM_RAW_H */
