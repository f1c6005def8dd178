// SPDX-License-Identifier: MIT
/*
 * The simulated world of ndk_sim.h over sim/nicsim.h: configuration, time, and the delivery of
 * interrupts as notification callbacks (only here, never inside a driver call).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_sim.h"
#include "nicsim.h"

#define IRQ_DROPPED UINT32_MAX

void ndk_sim_default_config(struct ndk_sim_config *config)
{
	const char *env;

	if (!config)
		return;
	memset(config, 0, sizeof(*config));
	config->nics = 2;
	config->clock_mhz = 250;
	config->mmio_write_ns = 300;
	config->dma_read_ns = 500;
	config->dma_write_ns = 300;
	config->pcie_mbps = 7000;
	config->link_ns = 500;
	config->host_wqe_ns = 30;
	config->host_doorbell_ns = 150;
	config->poll_cycles = 16;
	config->host_memory_bytes = 256ull << 20;
	config->seed = 1;
	config->trace_path = getenv("NDK_SIM_TRACE");
	/* 256 bits at 250 MHz (8 GB/s) keeps up with the Gen3 x8 link of pcie_mbps; 64 bits
	 * (2 GB/s) would make the datapath, not PCIe, the bottleneck */
	config->data_width = 256;
	config->mmio_read_ns = 1000;
	config->cycle_limit = 2000000000ull;
	config->link_mbps = 12500; /* 100 Gb/s */
	config->path_mtu = 1024;
	config->reorder_depth = 4;
	env = getenv("NDK_SIM_PCAP");
	config->pcap_path = env && *env ? env : NULL;
	/* an unparsable value is kept as 0, so ndk_sim_create refuses it loudly */
	env = getenv("NDK_SIM_WIDTH");
	if (env && *env)
		config->data_width = (unsigned)strtoul(env, NULL, 0);
	env = getenv("NDK_SIM_CYCLE_LIMIT");
	if (env && *env)
		config->cycle_limit = strtoull(env, NULL, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Interrupts: queued by nicsim's handler (inside any nicsim call, driver calls included),
 * delivered in order by sim_deliver (only from ndk_sim_step / ndk_sim_run_until).
 */

static void sim_irq(void *ctx, unsigned nic, uint64_t address, uint32_t data)
{
	struct ndk_sim *sim = ctx;
	struct ndk_sim_irq *irqs;
	size_t cap;

	if (sim->irq_tail == sim->irq_cap) {
		cap = sim->irq_cap ? 2 * sim->irq_cap : 64;
		irqs = realloc(sim->irqs, cap * sizeof(*irqs));
		if (!irqs) {
			/* cannot be reported from inside the clock; a lost interrupt would hang
			 * the test silently instead */
			fprintf(stderr, "ndk_sim: out of memory queueing an interrupt\n");
			abort();
		}
		sim->irqs = irqs;
		sim->irq_cap = cap;
	}
	sim->irqs[sim->irq_tail].nic = nic;
	sim->irqs[sim->irq_tail].address = address;
	sim->irqs[sim->irq_tail].data = data;
	sim->irq_tail++;
}

static void sim_deliver(struct ndk_sim *sim)
{
	while (sim->irq_head != sim->irq_tail) {
		struct ndk_sim_irq irq = sim->irqs[sim->irq_head++];
		struct ndk_adapter *adapter;

		if (sim->irq_head == sim->irq_tail)
			sim->irq_head = sim->irq_tail = 0;
		if (irq.nic >= sim->config.nics)
			continue;
		adapter = sim->adapters[irq.nic];
		/* the driver programs vector v to write v at NIC_MSIX_WINDOW + 4 * v */
		if (!adapter || irq.address < NIC_MSIX_WINDOW ||
		    irq.address >= (uint64_t)NIC_MSIX_WINDOW + NIC_MSIX_WINDOW_BYTES)
			continue;
		/* callbacks may step the world: this loop picks up what they raise */
		ndk_adapter_interrupt(adapter, irq.data);
	}
}

/* ---------------------------------------------------------------------------------------------
 * World
 */

/* NULL, or why the network cannot have these faults */
static const char *sim_fault_config_error(const struct ndk_sim_config *config)
{
	static _Thread_local char msg[128];
	const struct {
		const char *name;
		double rate;
	} rates[] = { { "drop_rate", config->drop_rate },
		      { "corrupt_rate", config->corrupt_rate },
		      { "duplicate_rate", config->duplicate_rate },
		      { "reorder_rate", config->reorder_rate } };
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (!(rates[i].rate >= 0.0 && rates[i].rate <= 1.0)) { /* NaN fails both */
			snprintf(msg, sizeof(msg), "%s %g is not a probability (0 to 1, per frame)",
				 rates[i].name, rates[i].rate);
			return msg;
		}
	if (config->reorder_rate > 0 && config->reorder_depth == 0)
		return "reorder_depth 0 with reorder_rate above 0: a reordered frame must be held"
		       " behind at least 1 later frame";
	return NULL;
}

ndk_status ndk_sim_create(const struct ndk_sim_config *config, struct ndk_sim **out)
{
	struct nicsim_config nc;
	struct ndk_sim *sim;
	const char *trace, *pcap, *why;
	int err;

	if (!config || !out || config->nics == 0 || config->clock_mhz == 0 ||
	    config->link_mbps == 0 || (config->data_width != 64 && config->data_width != 256) ||
	    config->path_mtu < 256 || config->path_mtu > 4096 ||
	    (config->path_mtu & (config->path_mtu - 1)))
		return NDK_STATUS_INVALID_PARAMETER;
	why = sim_fault_config_error(config);
	if (why) {
		fprintf(stderr, "ndk_sim: %s\n", why);
		return NDK_STATUS_INVALID_PARAMETER;
	}
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return NDK_STATUS_INSUFFICIENT_RESOURCES;
	sim->config = *config;
	sim->adapters = calloc(config->nics, sizeof(*sim->adapters));
	if (!sim->adapters) {
		err = -ENOMEM;
		goto out_free_sim;
	}
	/* NDK_SIM_TRACE wins, so any test can be rerun with waves without editing it */
	trace = getenv("NDK_SIM_TRACE");
	if (!trace || !*trace)
		trace = config->trace_path;
	if (trace) {
		sim->trace_path = strdup(trace);
		if (!sim->trace_path) {
			err = -ENOMEM;
			goto out_free_adapters;
		}
	}
	sim->config.trace_path = sim->trace_path;

	memset(&nc, 0, sizeof(nc));
	nc.nics = config->nics;
	nc.data_width = config->data_width;
	nc.clock_mhz = config->clock_mhz;
	nc.mmio_write_ns = config->mmio_write_ns;
	nc.mmio_read_ns = config->mmio_read_ns;
	nc.dma_read_ns = config->dma_read_ns;
	nc.dma_write_ns = config->dma_write_ns;
	nc.pcie_mbps = config->pcie_mbps;
	nc.link_ns = config->link_ns;
	nc.host_memory_bytes = config->host_memory_bytes;
	nc.seed = config->seed;
	nc.cycle_limit = config->cycle_limit;
	nc.trace_path = sim->trace_path;
	nc.link_mbps = config->link_mbps;
	/* NDK_SIM_PCAP wins too, so any test can be rerun with a capture */
	pcap = getenv("NDK_SIM_PCAP");
	nc.pcap_path = pcap && *pcap ? pcap : config->pcap_path;
	nc.drop_rate = config->drop_rate;
	nc.corrupt_rate = config->corrupt_rate;
	nc.duplicate_rate = config->duplicate_rate;
	nc.reorder_rate = config->reorder_rate;
	nc.reorder_depth = config->reorder_depth;
	err = nicsim_create(&nc, &sim->world);
	if (err)
		goto out_free_trace;
	/* the world keeps its own copy of the path; the caller's string may go away */
	sim->config.pcap_path = nicsim_pcap_path(sim->world);
	nicsim_set_irq_handler(sim->world, sim_irq, sim);
	*out = sim;
	return NDK_STATUS_SUCCESS;

out_free_trace:
	free(sim->trace_path);
out_free_adapters:
	free(sim->adapters);
out_free_sim:
	free(sim);
	return ndk_status_from_errno(err);
}

void ndk_sim_destroy(struct ndk_sim *sim)
{
	unsigned i;

	if (!sim)
		return;
	/* closing the adapters must not destroy the world a second time */
	sim->destroying = true;
	for (i = 0; i < sim->config.nics; i++)
		if (sim->adapters[i])
			ndk_close_adapter(sim->adapters[i]);
	nicsim_destroy(sim->world);
	free(sim->irqs);
	free(sim->trace_path);
	free(sim->adapters);
	free(sim);
}

ndk_status ndk_sim_open_adapter(struct ndk_sim *sim, unsigned nic, struct ndk_adapter **out)
{
	const struct ndk_backend_ops *ops;
	struct ndk_adapter *adapter;
	void *dev;
	int err;

	if (!sim || !out || nic >= sim->config.nics)
		return NDK_STATUS_INVALID_PARAMETER;
	if (sim->adapters[nic])
		return NDK_STATUS_INVALID_DEVICE_STATE;
	err = ndk_sim_backend_open(sim, nic, &ops, &dev);
	if (err)
		return ndk_status_from_errno(err);
	err = ndk_adapter_create(ops, dev, 0, &adapter);
	if (err) {
		ops->close(dev);
		return ndk_status_from_errno(err);
	}
	/* checked by ndk_sim_create: cannot fail */
	(void)ndk_adapter_set_path_mtu(adapter, sim->config.path_mtu);
	sim->adapters[nic] = adapter;
	*out = adapter;
	return NDK_STATUS_SUCCESS;
}

struct ndk_sim *ndk_sim_of(struct ndk_adapter *adapter)
{
	return ndk_sim_backend_world(adapter);
}

ndk_status ndk_sim_open_private(struct ndk_adapter **adapter)
{
	struct ndk_sim_config config;
	struct ndk_sim *sim;
	ndk_status status;

	ndk_sim_default_config(&config);
	config.nics = 1;
	status = ndk_sim_create(&config, &sim);
	if (status != NDK_STATUS_SUCCESS)
		return status;
	status = ndk_sim_open_adapter(sim, 0, adapter);
	if (status != NDK_STATUS_SUCCESS) {
		ndk_sim_destroy(sim);
		return status;
	}
	/* the adapter's close destroys the world */
	sim->owned = true;
	return NDK_STATUS_SUCCESS;
}

uint64_t ndk_sim_cycle(const struct ndk_sim *sim)
{
	return sim ? nicsim_cycle(sim->world) : 0;
}

void ndk_sim_step(struct ndk_sim *sim, uint64_t cycles)
{
	uint64_t i;

	if (!sim)
		return;
	sim_deliver(sim);
	/* one cycle at a time: a callback runs in the cycle its interrupt arrived */
	for (i = 0; i < cycles; i++) {
		nicsim_step(sim->world, 1);
		sim_deliver(sim);
	}
}

bool ndk_sim_run_until(struct ndk_sim *sim, bool (*done)(void *arg), void *arg, uint64_t max_cycles)
{
	uint64_t i;

	if (!sim || !done)
		return false;
	sim_deliver(sim);
	if (done(arg))
		return true;
	for (i = 0; i < max_cycles; i++) {
		nicsim_step(sim->world, 1);
		sim_deliver(sim);
		if (done(arg))
			return true;
	}
	return false;
}

void ndk_sim_get_stats(const struct ndk_sim *sim, unsigned nic, struct ndk_sim_stats *stats)
{
	struct nicsim_stats s;

	if (!stats)
		return;
	memset(stats, 0, sizeof(*stats));
	if (!sim || nic >= sim->config.nics)
		return;
	nicsim_get_stats(sim->world, nic, &s);
	stats->mmio_writes = s.mmio_writes;
	stats->mmio_reads = s.mmio_reads;
	stats->sq_doorbells = s.sq_doorbells;
	stats->rq_doorbells = s.rq_doorbells;
	stats->cq_doorbells = s.cq_doorbells;
	stats->dma_reads = s.dma_reads;
	stats->dma_read_bytes = s.dma_read_bytes;
	stats->dma_writes = s.dma_writes;
	stats->dma_write_bytes = s.dma_write_bytes;
	stats->wqe_fetch_reads = s.wqe_fetch_reads;
	stats->wqes_fetched = s.wqes_fetched;
	stats->cqes_written = s.cqes_written;
	stats->interrupts = s.interrupts;
	stats->frames_sent = s.frames_sent;
	stats->frames_received = s.frames_received;
	stats->frames_dropped = s.frames_dropped;
	stats->faults_dropped = s.faults_dropped;
	stats->faults_corrupted = s.faults_corrupted;
	stats->faults_duplicated = s.faults_duplicated;
	stats->faults_reordered = s.faults_reordered;
}

/* ---------------------------------------------------------------------------------------------
 * The fault hook: nicsim's enum has the same values (checked here)
 */

_Static_assert((int)NDK_SIM_FRAME_DELIVER == (int)NICSIM_FRAME_DELIVER &&
		       (int)NDK_SIM_FRAME_DROP == (int)NICSIM_FRAME_DROP &&
		       (int)NDK_SIM_FRAME_CORRUPT == (int)NICSIM_FRAME_CORRUPT &&
		       (int)NDK_SIM_FRAME_DUPLICATE == (int)NICSIM_FRAME_DUPLICATE &&
		       (int)NDK_SIM_FRAME_REORDER == (int)NICSIM_FRAME_REORDER,
	       "enum ndk_sim_fault and enum nicsim_fault agree");

static enum nicsim_fault sim_fault_hook(void *arg, unsigned from_nic, unsigned to_nic,
					const uint8_t *frame, size_t len)
{
	struct ndk_sim *sim = arg;

	return (enum nicsim_fault)sim->fault_fn(sim->fault_arg, from_nic, to_nic, frame, len);
}

void ndk_sim_set_fault_hook(struct ndk_sim *sim, ndk_sim_fault_fn fn, void *arg)
{
	if (!sim)
		return;
	sim->fault_fn = fn;
	sim->fault_arg = arg;
	nicsim_set_fault_hook(sim->world, fn ? sim_fault_hook : NULL, sim);
}

/* ---------------------------------------------------------------------------------------------
 * Called by the sim backend when its adapter closes
 */

void ndk_sim_detach(struct ndk_sim *sim, unsigned nic)
{
	size_t i;

	sim->adapters[nic] = NULL;
	/* queued interrupts of that NIC belong to no one now (a later adapter would take them
	 * as its own) */
	for (i = sim->irq_head; i < sim->irq_tail; i++)
		if (sim->irqs[i].nic == nic)
			sim->irqs[i].nic = IRQ_DROPPED;
	if (sim->owned && !sim->destroying)
		ndk_sim_destroy(sim);
}
