/* SPDX-License-Identifier: MIT */
/*
 * The sim backend's own state, shared by its two files and nothing else of the driver:
 * backend_sim.c (the ops table over one NIC of a world) and ndk_sim.c (the world of ndk_sim.h
 * over sim/nicsim.h: configuration, time, interrupt delivery). The driver core (ndk_*.c but
 * ndk_sim.c) never includes this: it reaches the world only through the ops table.
 *
 * Tests of the harness may include it to reach the world behind an ndk_sim (sim->world).
 */
#ifndef NDK_BACKEND_SIM_H
#define NDK_BACKEND_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndk_internal.h"
#include "ndk_sim.h"

struct nicsim;

struct ndk_sim_irq {
	unsigned nic; /* UINT32_MAX: dropped (its adapter closed) */
	uint32_t data;
	uint64_t address;
};

struct ndk_sim {
	struct nicsim *world;
	struct ndk_sim_config config;
	char *trace_path;	       /* our copy of config.trace_path */
	struct ndk_adapter **adapters; /* per NIC: the open adapter, or NULL */
	bool owned;		       /* created for ndk_open_adapter("sim"): its adapter's close
					   destroys it */
	bool destroying;
	/* interrupts raised since the last delivery, in order (FIFO) */
	struct ndk_sim_irq *irqs;
	size_t irq_head, irq_tail, irq_cap;
	/* ndk_sim_set_fault_hook: called through nicsim's hook */
	ndk_sim_fault_fn fault_fn;
	void *fault_arg;
};

/* the sim backend (backend_sim.c) for NIC `nic` of the world */
int ndk_sim_backend_open(struct ndk_sim *sim, unsigned nic, const struct ndk_backend_ops **ops,
			 void **dev);
/* the world of an adapter whose backend is the sim backend, else NULL (ndk_sim_of) */
struct ndk_sim *ndk_sim_backend_world(const struct ndk_adapter *adapter);
/* the sim backend of NIC `nic` closed (ndk_sim.c): forget its adapter and its queued
 * interrupts; a world owned by that adapter is destroyed */
void ndk_sim_detach(struct ndk_sim *sim, unsigned nic);

#endif /* NDK_BACKEND_SIM_H */
