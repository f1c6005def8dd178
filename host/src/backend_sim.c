// SPDX-License-Identifier: MIT
/*
 * The sim backend: the ops table over one NIC of a simulated world (sim/nicsim.h).
 * MMIO and DMA memory go straight to nicsim; the host's CPU work (WQEs built, doorbells
 * issued) and empty polls become simulated time, so the host is a timed agent.
 */
#include <errno.h>
#include <stdlib.h>

#include "backend_sim.h"
#include "nicsim.h"

/* the driver's kinds of DMA memory are the world's, value for value */
_Static_assert(NDK_DMA_DATA == (int)NICSIM_MEM_DATA && NDK_DMA_SQ == (int)NICSIM_MEM_SQ &&
		       NDK_DMA_RQ == (int)NICSIM_MEM_RQ && NDK_DMA_CQ == (int)NICSIM_MEM_CQ,
	       "enum ndk_dma_kind and enum nicsim_mem_kind differ");

/* one live DMA allocation: the world keeps host memory per NIC, not per adapter, so the
 * backend remembers what its adapter took and gives back what is left at close */
struct sim_alloc {
	uint64_t logical;
	struct sim_alloc *next;
};

struct sim_dev {
	struct ndk_sim *sim;
	unsigned nic;
	struct sim_alloc *allocs;
};

static void sim_mmio_write32(void *dev, uint32_t offset, uint32_t value)
{
	struct sim_dev *d = dev;

	nicsim_mmio_write32(d->sim->world, d->nic, offset, value);
}

static uint32_t sim_mmio_read32(void *dev, uint32_t offset)
{
	struct sim_dev *d = dev;

	return nicsim_mmio_read32(d->sim->world, d->nic, offset);
}

static int sim_dma_alloc(void *dev, size_t length, enum ndk_dma_kind kind, void **va,
			 uint64_t *logical)
{
	struct sim_dev *d = dev;
	struct sim_alloc *a;
	int err;

	a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	/* enum ndk_dma_kind has the values of enum nicsim_mem_kind */
	err = nicsim_dma_alloc(d->sim->world, d->nic, length, (enum nicsim_mem_kind)kind, va,
			       logical);
	if (err) {
		free(a);
		return err;
	}
	a->logical = *logical;
	a->next = d->allocs;
	d->allocs = a;
	return 0;
}

static void sim_dma_free(void *dev, void *va, uint64_t logical, size_t length)
{
	struct sim_dev *d = dev;
	struct sim_alloc **p, *a;

	(void)va;
	(void)length;
	for (p = &d->allocs; *p; p = &(*p)->next) {
		if ((*p)->logical != logical)
			continue;
		a = *p;
		*p = a->next;
		free(a);
		nicsim_dma_free(d->sim->world, d->nic, logical);
		return;
	}
	/* not ours (or freed twice): leave the world's memory alone */
}

static void sim_host_cost(void *dev, enum ndk_host_cost what, uint32_t count)
{
	struct sim_dev *d = dev;
	const struct ndk_sim_config *c = &d->sim->config;
	uint64_t ns =
		(uint64_t)count * (what == NDK_COST_WQE ? c->host_wqe_ns : c->host_doorbell_ns);

	if (ns)
		nicsim_host_ns(d->sim->world, ns);
}

static void sim_idle_poll(void *dev)
{
	struct sim_dev *d = dev;

	if (d->sim->config.poll_cycles)
		nicsim_step(d->sim->world, d->sim->config.poll_cycles);
}

static void sim_close(void *dev)
{
	struct sim_dev *d = dev;
	struct sim_alloc *a;

	while ((a = d->allocs)) {
		d->allocs = a->next;
		nicsim_dma_free(d->sim->world, d->nic, a->logical);
		free(a);
	}
	/* last: this may destroy the world */
	ndk_sim_detach(d->sim, d->nic);
	free(d);
}

static const struct ndk_backend_ops sim_ops = {
	.name = "sim",
	.mmio_write32 = sim_mmio_write32,
	.mmio_read32 = sim_mmio_read32,
	.dma_alloc = sim_dma_alloc,
	.dma_free = sim_dma_free,
	.host_cost = sim_host_cost,
	.idle_poll = sim_idle_poll,
	.close = sim_close,
};

struct ndk_sim *ndk_sim_backend_world(const struct ndk_adapter *adapter)
{
	if (!adapter || adapter->ops != &sim_ops)
		return NULL;
	return ((const struct sim_dev *)adapter->dev)->sim;
}

int ndk_sim_backend_open(struct ndk_sim *sim, unsigned nic, const struct ndk_backend_ops **ops,
			 void **dev)
{
	struct sim_dev *d;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->sim = sim;
	d->nic = nic;
	*ops = &sim_ops;
	*dev = d;
	return 0;
}
