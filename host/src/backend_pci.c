// SPDX-License-Identifier: MIT
/*
 * The pci backend: an ndknic on the PCI bus, reached through libpciaccess.
 *
 * - Discovery: the first device with the register map's vendor/device ids, or the one at the
 *   URI's address; it must carry those ids and a memory BAR0 of at least 4 MiB.
 * - MMIO: BAR0 mapped with pci_device_map_range; 32-bit volatile accesses (PCIe is
 *   little-endian).
 * - DMA memory: 2 MiB hugepages (MAP_HUGETLB with MAP_HUGE_2MB: 2 MiB pages also where the
 *   system's default hugepage size is 1 GiB), physical addresses from /proc/self/pagemap,
 *   which needs root (CAP_SYS_ADMIN) and no IOMMU translation (without VFIO the device sees
 *   physical addresses). Allocations up to 2 MiB are carved out of shared hugepages in 4 KiB
 *   pages; larger ones take dedicated hugepages that must be physically contiguous. When any
 *   of that is unavailable, allocations fail with -ENOMEM (NDK_STATUS_INSUFFICIENT_RESOURCES)
 *   and the reason, with what to do about it, is printed on stderr once per reason (no free
 *   2 MiB hugepages, not root, not physically contiguous).
 * - Interrupts: none. libpciaccess has no interrupt delivery (that needs VFIO), so this
 *   backend is polling-only: the adapter leaves every MSI-X vector masked and CQ notification
 *   callbacks never run.
 * - host_cost / idle_poll: nothing (real time passes by itself).
 */
#include <errno.h>
#include <fcntl.h>
#include <pciaccess.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ndk_internal.h"

#define HUGE_BYTES	   (2ul << 20)
#define HUGE_PAGES	   (HUGE_BYTES / NDK_PAGE_SIZE)
#define PCI_COMMAND	   0x04
#define PCI_COMMAND_MEMORY 0x2
#define PCI_COMMAND_MASTER 0x4
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_2MB_FLAG (21 << MAP_HUGE_SHIFT) /* log2(2 MiB) */

/* Why DMA memory could not be had: each reason is told once per process. */
enum dma_failure {
	DMA_NO_HUGEPAGES,
	DMA_NOT_ROOT,
	DMA_NOT_CONTIGUOUS,
	DMA_FAILURES,
};
static bool dma_failure_told[DMA_FAILURES];

static void tell_dma_failure(enum dma_failure why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tell_dma_failure(enum dma_failure why, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&dma_failure_told[why], true, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	fprintf(stderr, "libndk pci: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

/* a field of /proc/meminfo ("HugePages_Free"), or -1 */
static long meminfo(const char *field)
{
	char line[128];
	size_t n = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* free 2 MiB hugepages (the sysfs count of that size; meminfo's is of the default size) */
static long free_2mb_hugepages(void)
{
	long v = -1;
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	if (v < 0 && meminfo("Hugepagesize") == 2048)
		v = meminfo("HugePages_Free");
	return v;
}

/*
 * libpciaccess keeps its state in one process-wide object (pci_system_init /
 * pci_system_cleanup), so adapters share it: the one global of the library, counted so that
 * two pci adapters in one process work and the last close cleans up.
 */
static pthread_mutex_t pci_system_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned pci_system_users;

static int pci_system_get(void)
{
	int err = 0;

	pthread_mutex_lock(&pci_system_lock);
	if (pci_system_users == 0)
		err = pci_system_init(); /* positive errno */
	if (!err)
		pci_system_users++;
	pthread_mutex_unlock(&pci_system_lock);
	/* no PCI bus access at all (no sysfs): there is no such device for us */
	return err ? -ENODEV : 0;
}

static void pci_system_put(void)
{
	pthread_mutex_lock(&pci_system_lock);
	if (--pci_system_users == 0)
		pci_system_cleanup();
	pthread_mutex_unlock(&pci_system_lock);
}

/* hugepage-backed DMA memory */
struct huge_chunk {
	void *va;
	uint64_t phys;
	size_t bytes;
	bool shared; /* carved into 4 KiB pages through `pages` */
	struct ndk_range_alloc pages;
	struct huge_chunk *next;
};

struct pci_dev {
	struct pci_device *pdev;
	volatile uint8_t *bar;
	size_t bar_bytes;
	int pagemap_fd; /* -1 until first needed */
	struct huge_chunk *chunks;
	pthread_mutex_t lock; /* the chunk list (allocations are slow path) */
};

/* ---------------------------------------------------------------------------------------------
 * MMIO
 */

static void pci_mmio_write32(void *dev, uint32_t offset, uint32_t value)
{
	struct pci_dev *d = dev;

	if ((size_t)offset + 4 > d->bar_bytes)
		return;
	*(volatile uint32_t *)(d->bar + offset) = htole32(value);
}

static uint32_t pci_mmio_read32(void *dev, uint32_t offset)
{
	struct pci_dev *d = dev;

	if ((size_t)offset + 4 > d->bar_bytes)
		return 0xffffffffu; /* what a read of nothing returns on PCIe */
	return le32toh(*(volatile uint32_t *)(d->bar + offset));
}

/* ---------------------------------------------------------------------------------------------
 * DMA memory
 */

/* physical address of the (resident) page at va, or 0 when pagemap cannot say */
static uint64_t virt_to_phys(struct pci_dev *d, const void *va)
{
	uint64_t entry, pfn;
	long psize = sysconf(_SC_PAGESIZE);
	off_t off = (off_t)((uintptr_t)va / (uintptr_t)psize) * 8;

	if (d->pagemap_fd < 0)
		d->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (d->pagemap_fd < 0)
		return 0;
	if (pread(d->pagemap_fd, &entry, sizeof(entry), off) != (ssize_t)sizeof(entry))
		return 0;
	if (!(entry >> 63 & 1))
		return 0; /* not present */
	pfn = entry & ((1ull << 55) - 1);
	/* without CAP_SYS_ADMIN the kernel reports PFN 0 */
	if (!pfn)
		return 0;
	return pfn * (uint64_t)psize + ((uintptr_t)va % (uintptr_t)psize);
}

static void chunk_unmap(struct huge_chunk *c)
{
	if (c->shared)
		ndk_range_destroy(&c->pages);
	munmap(c->va, c->bytes);
	free(c);
}

/* n physically contiguous hugepages, locked and zeroed */
static int chunk_map(struct pci_dev *d, size_t n, bool shared, struct huge_chunk **out)
{
	struct huge_chunk *c;
	size_t i;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->bytes = n * HUGE_BYTES;
	c->va = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB_FLAG | MAP_POPULATE |
			     MAP_LOCKED,
		     -1, 0);
	if (c->va == MAP_FAILED) {
		err = -ENOMEM;
		tell_dma_failure(DMA_NO_HUGEPAGES,
				 "no DMA memory: %zu free 2 MiB hugepage(s) needed, %ld free (%s). "
				 "Reserve some as root: echo 64 > "
				 "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
				 n, free_2mb_hugepages(), strerror(errno));
		goto out_free_chunk;
	}
	memset(c->va, 0, c->bytes);
	c->phys = virt_to_phys(d, c->va);
	if (!c->phys) {
		err = -ENOMEM;
		tell_dma_failure(DMA_NOT_ROOT,
				 "no DMA memory: /proc/self/pagemap gives no physical addresses "
				 "(it needs CAP_SYS_ADMIN: run as root)");
		goto out_unmap;
	}
	for (i = 1; i < n; i++) {
		if (virt_to_phys(d, (char *)c->va + i * HUGE_BYTES) != c->phys + i * HUGE_BYTES) {
			err = -ENOMEM; /* the device needs one contiguous range */
			tell_dma_failure(DMA_NOT_CONTIGUOUS,
					 "no DMA memory for %zu MiB in one piece: the hugepages are "
					 "not physically contiguous (allocate at most 2 MiB at a time)",
					 n * 2);
			goto out_unmap;
		}
	}
	c->shared = shared;
	if (shared) {
		err = ndk_range_init(&c->pages, HUGE_PAGES);
		if (err)
			goto out_unmap;
	}
	*out = c;
	return 0;

out_unmap:
	munmap(c->va, c->bytes);
out_free_chunk:
	free(c);
	return err;
}

static int pci_dma_alloc(void *dev, size_t length, enum ndk_dma_kind kind, void **va,
			 uint64_t *logical)
{
	struct pci_dev *d = dev;
	size_t pages = (length + NDK_PAGE_SIZE - 1) / NDK_PAGE_SIZE;
	struct huge_chunk *c;
	uint32_t start;
	int err;

	(void)kind;
	if (length == 0)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (pages > HUGE_PAGES) {
		err = chunk_map(d, (length + HUGE_BYTES - 1) / HUGE_BYTES, false, &c);
		if (err)
			goto out_unlock;
		c->next = d->chunks;
		d->chunks = c;
		*va = c->va;
		*logical = c->phys;
		goto out_unlock;
	}
	for (c = d->chunks; c; c = c->next)
		if (c->shared && ndk_range_alloc(&c->pages, (uint32_t)pages, &start) == 0)
			break;
	if (!c) {
		err = chunk_map(d, 1, true, &c);
		if (err)
			goto out_unlock;
		c->next = d->chunks;
		d->chunks = c;
		err = ndk_range_alloc(&c->pages, (uint32_t)pages, &start);
		if (err)
			goto out_unlock;
	}
	*va = (char *)c->va + (size_t)start * NDK_PAGE_SIZE;
	*logical = c->phys + (uint64_t)start * NDK_PAGE_SIZE;
	/* the contract: zeroed memory, also when reused */
	memset(*va, 0, pages * NDK_PAGE_SIZE);
	err = 0;
out_unlock:
	pthread_mutex_unlock(&d->lock);
	return err;
}

static void pci_dma_free(void *dev, void *va, uint64_t logical, size_t length)
{
	struct pci_dev *d = dev;
	struct huge_chunk **p, *c;
	size_t pages = (length + NDK_PAGE_SIZE - 1) / NDK_PAGE_SIZE;

	(void)logical;
	pthread_mutex_lock(&d->lock);
	for (p = &d->chunks; (c = *p); p = &c->next) {
		if ((char *)va < (char *)c->va || (char *)va >= (char *)c->va + c->bytes)
			continue;
		if (c->shared) {
			ndk_range_free(&c->pages,
				       (uint32_t)(((char *)va - (char *)c->va) / NDK_PAGE_SIZE),
				       (uint32_t)pages);
			if (c->pages.available < c->pages.total)
				break;
		}
		/* dedicated, or a shared hugepage now empty: give it back to the system */
		*p = c->next;
		chunk_unmap(c);
		break;
	}
	pthread_mutex_unlock(&d->lock);
}

static void pci_host_cost(void *dev, enum ndk_host_cost what, uint32_t count)
{
	(void)dev;
	(void)what;
	(void)count;
}

static void pci_idle_poll(void *dev)
{
	(void)dev;
}

static void pci_close(void *dev)
{
	struct pci_dev *d = dev;
	struct huge_chunk *c;

	while ((c = d->chunks)) {
		d->chunks = c->next;
		chunk_unmap(c);
	}
	if (d->pagemap_fd >= 0)
		close(d->pagemap_fd);
	pci_device_unmap_range(d->pdev, (void *)d->bar, d->bar_bytes);
	pthread_mutex_destroy(&d->lock);
	free(d);
	pci_system_put();
}

static const struct ndk_backend_ops pci_ops = {
	.name = "pci",
	.mmio_write32 = pci_mmio_write32,
	.mmio_read32 = pci_mmio_read32,
	.dma_alloc = pci_dma_alloc,
	.dma_free = pci_dma_free,
	.host_cost = pci_host_cost,
	.idle_poll = pci_idle_poll,
	.close = pci_close,
};

/* ---------------------------------------------------------------------------------------------
 * Open
 */

static struct pci_device *find_device(const struct ndk_uri *uri)
{
	struct pci_id_match match = {
		.vendor_id = NIC_VENDOR_ID,
		.device_id = NIC_DEVICE_ID,
		.subvendor_id = PCI_MATCH_ANY,
		.subdevice_id = PCI_MATCH_ANY,
	};
	struct pci_device_iterator *it;
	struct pci_device *pdev;

	if (uri->has_slot)
		return pci_device_find_by_slot(uri->domain, uri->bus, uri->dev, uri->func);
	it = pci_id_match_iterator_create(&match);
	if (!it)
		return NULL;
	pdev = pci_device_next(it);
	pci_iterator_destroy(it);
	return pdev;
}

/* memory decoding and bus mastering (the device DMAs) */
static int enable_device(struct pci_device *pdev)
{
	uint16_t cmd;
	int err;

	pci_device_enable(pdev);
	err = pci_device_cfg_read_u16(pdev, &cmd, PCI_COMMAND);
	if (err)
		return -err;
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	return -pci_device_cfg_write_u16(pdev, cmd, PCI_COMMAND);
}

int ndk_pci_open(const struct ndk_uri *uri, const struct ndk_backend_ops **ops, void **dev)
{
	struct pci_device *pdev;
	struct pci_mem_region *bar0;
	struct pci_dev *d;
	void *bar;
	int err;

	err = pci_system_get();
	if (err)
		return err;
	pdev = find_device(uri);
	if (!pdev) {
		err = -ENODEV;
		goto out_put_system;
	}
	err = -pci_device_probe(pdev);
	if (err)
		goto out_put_system;
	/* never touch a device that is not ours (a wrong address in the URI) */
	if (pdev->vendor_id != NIC_VENDOR_ID || pdev->device_id != NIC_DEVICE_ID) {
		err = -EOPNOTSUPP;
		goto out_put_system;
	}
	bar0 = &pdev->regions[0];
	if (bar0->is_IO || bar0->size < (1ull << NIC_BAR0_ADDR_BITS)) {
		err = -EOPNOTSUPP;
		goto out_put_system;
	}
	err = enable_device(pdev);
	if (err)
		goto out_put_system;
	err = -pci_device_map_range(pdev, bar0->base_addr, bar0->size, PCI_DEV_MAP_FLAG_WRITABLE,
				    &bar);
	if (err)
		goto out_put_system;
	d = calloc(1, sizeof(*d));
	if (!d) {
		err = -ENOMEM;
		goto out_unmap_bar;
	}
	err = -pthread_mutex_init(&d->lock, NULL);
	if (err)
		goto out_free_dev;
	d->pdev = pdev;
	d->bar = bar;
	d->bar_bytes = bar0->size;
	d->pagemap_fd = -1;
	*ops = &pci_ops;
	*dev = d;
	return 0;

out_free_dev:
	free(d);
out_unmap_bar:
	pci_device_unmap_range(pdev, bar, bar0->size);
out_put_system:
	pci_system_put();
	return err;
}
