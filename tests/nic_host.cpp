// SPDX-License-Identifier: MIT
//
// A front end other than the world (sim/nic_host.h): one Verilated NIC in a VerilatedContext of
// the test's own, its DMA served from a memory of the test's own, stepped by the test's loop,
// with no network attached. BAR0 answers through the MMIO master, the platform inputs the test
// configured reach the core, and the quiescence skip works in such a loop (the NIC stops being
// evaluated when idle and wakes for the next access). The width is NDK_SIM_WIDTH's (256 when
// unset), like the rest of the suite.

#include <criterion/criterion.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "host_memory.h"
#include "nic_host.h"
#include "nic_hw.h"
#include "verilated.h"

using nicsim_hw::DmaMemory;
using nicsim_hw::NicHost;

namespace
{

// Nothing is reachable: any DMA would be refused (and fail the test through host()).
class NoMemory final : public DmaMemory {
    public:
	bool dma_read(uint64_t, uint64_t, uint8_t *, nicsim_mem_kind *) override
	{
		return false;
	}
	bool may_write(uint64_t, uint64_t) override
	{
		return false;
	}
	bool dma_write(uint64_t, const uint8_t *, const uint8_t *, uint64_t,
		       nicsim_mem_kind *) override
	{
		return false;
	}
};

unsigned width()
{
	const char *w = std::getenv("NDK_SIM_WIDTH");
	return w && *w ? (unsigned)std::strtoul(w, nullptr, 0) : 256;
}

struct Device {
	VerilatedContext ctx;
	NoMemory memory;
	std::unique_ptr<NicHost> nic;
	uint64_t now = 0;
	unsigned evaluated = 0; // cycles in which the model was not quiet

	Device()
	{
		Verilated::threadContextp(&ctx);
		ctx.fatalOnError(false);
		ctx.assertOn(true);
		NicHost::Config c{};
		c.index = 0;
		c.bus_bytes = width() / 8;
		c.clock_mhz = 250;
		c.reset_cycles = 8;
		c.port_mac = 0x02000000abcdull;
		c.port_ipv4 = 0xc0a80063u; // 192.168.0.99
		c.timing = { 28.0, 125, 75 };
		c.msix_base = 0xfee00000ull;
		c.msix_bytes = 0x100000;
		c.skip_quiet = true;
		c.check_quiet = false;
		auto model = nicsim_hw::make_model(width(), &ctx, "dev");
		cr_assert(model, "no model of width %u", width());
		nic = std::make_unique<NicHost>(c, std::move(model), &memory);
		nic->start();
	}
	void cycle()
	{
		nic->sample();
		const char *err = nic->host(now);
		cr_assert_null(err, "%s", err);
		cr_assert(nic->rise(now));
		cr_assert(!ctx.gotError(), "RTL assertion failed at cycle %llu",
			  (unsigned long long)now);
		nic->fall(now);
		if (!nic->core.quiet())
			evaluated++;
		now++;
	}
	uint32_t read(uint32_t offset)
	{
		nic->mmio.start_read(offset);
		for (unsigned i = 0; i < 1000 && !nic->mmio.read_done(); i++)
			cycle();
		cr_assert(nic->mmio.read_done(), "no answer to a read of 0x%x", offset);
		return nic->mmio.read_value();
	}
	void write(uint32_t offset, uint32_t value)
	{
		nic->mmio.post_write(now, offset, value, 0xf);
		for (unsigned i = 0; i < 1000 && nic->mmio.writes_pending(); i++)
			cycle();
		cr_assert(!nic->mmio.writes_pending(), "a write of 0x%x is not taken", offset);
	}
};

} // namespace

Test(nic_host, bar0_answers_with_the_platform_inputs_the_front_end_drives)
{
	Device d;
	for (unsigned i = 0; i < 20; i++) // reset, and a few cycles after it
		d.cycle();
	cr_expect_eq(d.read(NIC_REG_ID_MAGIC), NIC_MAGIC);
	cr_expect_eq(d.read(NIC_REG_PORT_IPV4), 0xc0a80063u);
	cr_expect_eq(d.read(NIC_REG_PORT_MAC_LO), 0x0000abcdu);
	d.write(NIC_REG_SCRATCH, 0x5a5aa5a5u);
	cr_expect_eq(d.read(NIC_REG_SCRATCH), 0x5a5aa5a5u);
	cr_expect_eq(d.nic->stats.mmio_reads, 4);
	cr_expect_eq(d.nic->stats.mmio_writes, 1);
}

Test(nic_host, an_idle_nic_goes_quiet_in_a_loop_of_its_own_and_wakes_for_an_access)
{
	Device d;
	for (unsigned i = 0; i < 20; i++)
		d.cycle();
	cr_expect_eq(d.read(NIC_REG_ID_MAGIC), NIC_MAGIC);
	// idle: the probe finds the fixed point within a few hundred cycles; a microsecond tick
	// (every 250 cycles) wakes the model for a couple of evaluations only
	const unsigned before = d.evaluated;
	for (unsigned i = 0; i < 10000; i++)
		d.cycle();
	cr_expect_lt(d.evaluated - before, 1000, "%u of 10000 idle cycles evaluated",
		     d.evaluated - before);
	// and the next access still gets its answer
	cr_expect_eq(d.read(NIC_REG_PORT_IPV4), 0xc0a80063u);
}
