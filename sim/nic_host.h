// SPDX-License-Identifier: MIT
//
// One NIC and the host side of its PCIe link, stepped one clock cycle at a time: the model with
// the quiescence skip (quiescence.h), the MMIO master and the DMA slave over a DmaMemory
// (pcie_host.h), and the inputs the platform drives (reset, the microsecond tick, the port's
// MAC and IPv4 address). Internal to the harness (C++). The world (nicsim.cpp) has one per NIC,
// over its RegionMemory; a front end with a single NIC (a device server presenting the core to
// a VM, its DMA served from guest RAM) uses one directly with its own DmaMemory and loop.
//
// Contract, per cycle `now` (0, 1, 2, ...), in this order:
//   sample()     the model's outputs before this edge (core.out)
//   host(now)    this edge's handshakes on MMIO and DMA, then the next inputs (`in`); nullptr,
//                or the message of a protocol or firewall error of the NIC (stop the run)
//   [the network's cycle, if there is one: it reads core.out.stream and writes in.stream]
//   rise(now)    the rising edge; false: the quiescence self-test failed (stop the run)
//   [the caller checks its VerilatedContext for failed assertions]
//   fall(now)    the falling edge and the quiescence probe
// With several NICs in one context, each step runs for every NIC before the next step (as
// world_cycle does), so that all see the same edge. The caller makes its VerilatedContext the
// thread's current one before it steps (Verilated::threadContextp). The network port is the
// caller's to connect: core.out.stream and in.stream (nicnet::Network::attach), or left idle.
// Reset: `in.rst` is high for the first reset_cycles cycles; start() evaluates the model once
// with reset high before the first cycle.
#ifndef NIC_HOST_H
#define NIC_HOST_H

#include <cstdint>
#include <memory>
#include <utility>

#include "host_memory.h"
#include "nic_model.h"
#include "nicsim.h"
#include "pcie_host.h"
#include "quiescence.h"

namespace nicsim_hw
{

class NicHost {
    public:
	struct Config {
		unsigned index;	    // in messages and MSI-X callbacks
		unsigned bus_bytes; // DataWidth / 8
		uint32_t clock_mhz; // the microsecond tick every clock_mhz cycles
		unsigned reset_cycles;
		uint64_t port_mac; // port_mac_i (48 bits), port_ipv4_i
		uint32_t port_ipv4;
		PcieTiming timing;
		uint64_t msix_base, msix_bytes; // the interrupt window of the DMA address space
		bool skip_quiet, check_quiet;	// quiescence.h
	};

	NicHost(const Config &c, std::unique_ptr<Model> model, DmaMemory *memory)
		: core(std::move(model), c.skip_quiet, c.check_quiet)
		, mmio(&stats)
		, dma(c.index, c.bus_bytes, c.timing, memory, c.msix_base, c.msix_bytes, &stats)
		, cfg_(c)
	{
	}

	nicsim_stats stats{}; // counted on the buses (the network adds its own)
	QuiescentModel core;  // the model; core.out: its outputs as sampled before this edge
	AxiLiteMaster mmio;
	DmaSlave dma;
	Inputs in{}; // the inputs for the next edge

	unsigned index() const
	{
		return cfg_.index;
	}

	void start()
	{
		in.rst = true;
		core.start(in);
	}
	void sample()
	{
		core.sample();
	}
	__attribute__((always_inline)) const char *host(uint64_t now)
	{
		mmio.cycle(now, core.out, in);
		if (const char *err = dma.cycle(now, core.out, in))
			return err;
		in.rst = now < cfg_.reset_cycles;
		// one pulse per microsecond: seen by the rising edge of every cycle that is a
		// multiple of clock_mhz (these inputs are sampled at the next edge, cycle now + 1)
		in.us_tick = (now + 1) % cfg_.clock_mhz == 0;
		in.port_mac = cfg_.port_mac;
		in.port_ipv4 = cfg_.port_ipv4;
		return nullptr;
	}
	__attribute__((always_inline)) bool rise(uint64_t now)
	{
		return core.rise(in, 2 * now + 1);
	}
	void fall(uint64_t now)
	{
		core.fall(2 * now + 2);
	}

    private:
	Config cfg_;
};

} // namespace nicsim_hw

#endif // NIC_HOST_H
