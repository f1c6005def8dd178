/* SPDX-License-Identifier: MIT */
/*
 * pcispeed: what the NIC costs as a PCI device, measured from the host that owns it (inside
 * the guest of tools/guest/guest.sh: docs/devserver.md has the numbers).
 *
 *   pcispeed [--reads N] [--size BYTES] [--count N] [URI]      (URI default "pci")
 *
 * 1. MMIO: BAR0 mapped through libpciaccess; N reads of the SCRATCH register (each a
 *    non-posted round trip to the NIC's AXI4-Lite port), then N posted writes followed by one
 *    read (which waits for them all). Prints the mean time per read and per write.
 * 2. DMA: a QP of the adapter connected to itself (the port is looped back); --count RDMA
 *    Writes of --size bytes from one buffer into a registered region, one at a time, then as
 *    many Reads back. Every byte crosses the NIC's DMA twice per operation (read from the
 *    source, written to the destination). Prints bytes per second of payload, and checks the
 *    data (exit status 1 when a byte differs or a completion fails).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pciaccess.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndk.h"

#define VENDOR_ID   0x1d1d
#define DEVICE_ID   0x0001
#define REG_SCRATCH 0x100
#define MAX_SIZE    (1u << 20)

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int mmio_speed(unsigned reads)
{
	struct pci_id_match match = { VENDOR_ID, DEVICE_ID, PCI_MATCH_ANY, PCI_MATCH_ANY, 0, 0, 0 };
	struct pci_device_iterator *it;
	struct pci_device *dev;
	void *bar;
	int rc = 1;

	if (pci_system_init()) {
		fprintf(stderr, "pcispeed: no PCI bus access\n");
		return 1;
	}
	it = pci_id_match_iterator_create(&match);
	dev = it ? pci_device_next(it) : NULL;
	pci_iterator_destroy(it);
	if (!dev || pci_device_probe(dev)) {
		fprintf(stderr, "pcispeed: no ndknic on the PCI bus\n");
		goto out;
	}
	pci_device_enable(dev);
	if (pci_device_map_range(dev, dev->regions[0].base_addr, 4096, PCI_DEV_MAP_FLAG_WRITABLE,
				 &bar)) {
		fprintf(stderr, "pcispeed: cannot map BAR0\n");
		goto out;
	}
	volatile uint32_t *scratch = (volatile uint32_t *)((char *)bar + REG_SCRATCH);
	uint32_t sum = 0;
	double t0 = now_s();
	for (unsigned i = 0; i < reads; i++)
		sum += *scratch;
	double t1 = now_s();
	for (unsigned i = 0; i < reads; i++)
		*scratch = i;
	uint32_t last = *scratch; /* waits for every posted write before it */
	double t2 = now_s();
	printf("mmio: %u reads: %.1f us per read round trip; %u posted writes + 1 read: %.1f us "
	       "per write\n",
	       reads, (t1 - t0) * 1e6 / reads, reads, (t2 - t1) * 1e6 / reads);
	rc = last == reads - 1 ? 0 : 1;
	if (rc)
		fprintf(stderr, "pcispeed: SCRATCH reads 0x%x after writing 0x%x (sum %u)\n", last,
			reads - 1, sum);
	pci_device_unmap_range(dev, bar, 4096);
out:
	pci_system_cleanup();
	return rc;
}

static int wait_one(struct ndk_cq *cq, uint32_t type)
{
	struct ndk_result_ex r;
	double t0 = now_s();
	while (ndk_get_cq_results_ex(cq, &r, 1) == 0)
		if (now_s() - t0 > 60) {
			fprintf(stderr, "pcispeed: no completion within 60 s\n");
			return 1;
		}
	if (r.status != NDK_STATUS_SUCCESS || r.type != type) {
		fprintf(stderr, "pcispeed: completion %s type %u\n", ndk_status_name(r.status),
			r.type);
		return 1;
	}
	return 0;
}

static int dma_speed(const char *uri, uint32_t size, unsigned count)
{
	struct ndk_adapter *ad;
	struct ndk_pd *pd;
	struct ndk_cq *cq;
	struct ndk_qp *qp;
	struct ndk_mr *mr;
	struct ndk_buffer src, dst, target;
	struct ndk_qp_address me;
	uint64_t pages[MAX_SIZE / NDK_PAGE_SIZE];
	uint32_t npages = (size + NDK_PAGE_SIZE - 1) / NDK_PAGE_SIZE;
	int rc = 1;

	if (ndk_open_adapter(uri, &ad) != NDK_STATUS_SUCCESS) {
		fprintf(stderr, "pcispeed: cannot open %s\n", uri);
		return 1;
	}
	struct ndk_qp_attr a = { 0 };
	if (ndk_create_pd(ad, &pd) || ndk_create_cq(ad, 64, NULL, NULL, &cq))
		goto out;
	a.receive_cq = a.initiator_cq = cq;
	a.initiator_queue_depth = 16;
	a.max_initiator_request_sge = 1;
	if (ndk_create_qp(pd, &a, &qp) || ndk_get_qp_address(qp, &me) ||
	    ndk_connect_qp(qp, &me, 1, 1) || ndk_alloc_buffer(ad, size, &src) ||
	    ndk_alloc_buffer(ad, size, &dst) || ndk_alloc_buffer(ad, size, &target) ||
	    ndk_create_mr(pd, &mr) || ndk_initialize_fast_register_mr(mr, npages, true)) {
		fprintf(stderr, "pcispeed: set-up failed\n");
		goto out;
	}
	for (uint32_t i = 0; i < npages; i++)
		pages[i] = target.logical + (uint64_t)i * NDK_PAGE_SIZE;
	if (ndk_fast_register(qp, NULL, mr, npages, pages, 0, size, (uint64_t)(uintptr_t)target.va,
			      NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ |
				      NDK_OP_FLAG_ALLOW_LOCAL_WRITE) ||
	    wait_one(cq, NDK_OP_FAST_REGISTER))
		goto out;
	for (uint32_t i = 0; i < size; i++)
		((uint8_t *)src.va)[i] = (uint8_t)(i * 13 + 5);
	struct ndk_sge s_src = { src.logical, size, ndk_get_privileged_token(pd) };
	struct ndk_sge s_dst = { dst.logical, size, ndk_get_privileged_token(pd) };
	uint64_t rva = (uint64_t)(uintptr_t)target.va;
	uint32_t token = ndk_get_remote_token_from_mr(mr);
	double t0 = now_s();
	for (unsigned i = 0; i < count; i++)
		if (ndk_write(qp, NULL, &s_src, 1, rva, token, 0) || wait_one(cq, NDK_OP_WRITE))
			goto out;
	double t1 = now_s();
	for (unsigned i = 0; i < count; i++)
		if (ndk_read(qp, NULL, &s_dst, 1, rva, token, 0) || wait_one(cq, NDK_OP_READ))
			goto out;
	double t2 = now_s();
	if (memcmp(src.va, target.va, size) || memcmp(src.va, dst.va, size)) {
		fprintf(stderr, "pcispeed: the data differs after the Writes and Reads\n");
		goto out;
	}
	printf("dma: %u Writes of %u B: %.2f MB/s; %u Reads of %u B: %.2f MB/s (payload; each "
	       "byte is read and written by DMA once per operation)\n",
	       count, size, (double)size * count / (t1 - t0) / 1e6, count, size,
	       (double)size * count / (t2 - t1) / 1e6);
	rc = 0;
out:
	ndk_close_adapter(ad); /* releases every object of the adapter */
	return rc;
}

int main(int argc, char **argv)
{
	unsigned reads = 1000, count = 16;
	uint32_t size = 65536;
	const char *uri = "pci";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reads") && i + 1 < argc)
			reads = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (argv[i][0] != '-')
			uri = argv[i];
		else {
			fprintf(stderr,
				"usage: pcispeed [--reads N] [--size BYTES] [--count N] [URI]\n");
			return 2;
		}
	}
	if (!reads || !count || !size || size > MAX_SIZE) {
		fprintf(stderr, "pcispeed: --reads and --count > 0, 0 < --size <= %u\n", MAX_SIZE);
		return 2;
	}
	if (mmio_speed(reads))
		return 1;
	return dma_speed(uri, size, count);
}
