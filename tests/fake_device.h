/* SPDX-License-Identifier: MIT */
/*
 * The fake device of the driver unit tests (unit_driver.c, unit_transport.c): a backend that
 * answers the ID and capability block, keeps each QP's state as the command doc says
 * (QP_CREATE -> READY, QP_CONNECT READY -> RTS, QP_FLUSH -> ERROR, QP_DESTROY -> RESET), records
 * every MMIO write and hands out plain memory as "DMA" memory. The tests play the rest of the
 * device's part: they read the WQEs the driver wrote into the rings and write CQEs.
 *
 * Each test file gets its own `fk` (everything here is static). fake_reset() gives a device
 * without the transport; a test file changes the fields it needs after it.
 */
#ifndef NDK_TESTS_FAKE_DEVICE_H
#define NDK_TESTS_FAKE_DEVICE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

#define FAKE_MAX_WRITES 4096
#define FAKE_MAX_ALLOCS 256
#define LOGICAL_OFFSET	0x100000000000ull /* logical != va: the driver must use the right one */

struct fake_write {
	uint32_t offset, value;
};

struct fake_alloc {
	void *va;
	size_t length;
	enum ndk_dma_kind kind;
};

static struct fake {
	/* what the capability registers read */
	uint32_t magic, version, queues, memory, msix, cap_cq;
	uint32_t cap_transport, mac_lo, mac_hi, ipv4;
	uint32_t cap_sq_bf;				    /* 0: no BlueFlame area (fake_reset) */
	uint32_t port_counters[2 * NIC_PORT_COUNTER_COUNT]; /* the PORT_COUNTERS words */
	uint32_t qp_state[256];
	struct fake_write writes[FAKE_MAX_WRITES];
	unsigned nwrites;
	unsigned reads;
	struct fake_alloc allocs[FAKE_MAX_ALLOCS];
	unsigned live_allocs;
	unsigned wqe_costs, doorbell_costs, idle_polls;
	bool closed;
} fk;

/* the device's part of a command: the QP states of the cmd doc */
static inline void fake_cmd(uint32_t value)
{
	uint32_t op = value & 0xff, index = value >> 8;
	uint32_t *state = &fk.qp_state[index & 0xff];

	switch (op) {
	case NIC_CMD_QP_CREATE:
		*state = NIC_QP_STATE_READY;
		break;
	case NIC_CMD_QP_DESTROY:
		*state = NIC_QP_STATE_RESET;
		break;
	case NIC_CMD_QP_FLUSH:
		if (*state != NIC_QP_STATE_RESET)
			*state = NIC_QP_STATE_ERROR;
		break;
	case NIC_CMD_QP_CONNECT:
		if (*state == NIC_QP_STATE_READY)
			*state = NIC_QP_STATE_RTS;
		break;
	default:
		break;
	}
}

static inline void fake_write32(void *dev, uint32_t offset, uint32_t value)
{
	(void)dev;
	cr_assert_lt(fk.nwrites, FAKE_MAX_WRITES);
	fk.writes[fk.nwrites].offset = offset;
	fk.writes[fk.nwrites].value = value;
	fk.nwrites++;
	if (offset == NIC_REG_CMD)
		fake_cmd(value);
}

static inline uint32_t fake_read32(void *dev, uint32_t offset)
{
	(void)dev;
	fk.reads++;
	if (offset >= NIC_REG_QP_STATE_BASE && offset < NIC_REG_QP_STATE_BASE + 4 * 256)
		return fk.qp_state[(offset - NIC_REG_QP_STATE_BASE) / 4];
	switch (offset) {
	case NIC_REG_ID_MAGIC:
		return fk.magic;
	case NIC_REG_VERSION:
		return fk.version;
	case NIC_REG_IDS:
		return NIC_DEVICE_ID << 16 | NIC_VENDOR_ID;
	case NIC_REG_CAP_DATA_WIDTH:
		return 64;
	case NIC_REG_CAP_QUEUES:
		return fk.queues;
	case NIC_REG_CAP_MEMORY:
		return fk.memory;
	case NIC_REG_CAP_MSIX:
		return fk.msix;
	case NIC_REG_CAP_SQ:
		return 32u << 16 | 16u << 8 | 12u;
	case NIC_REG_CAP_CQ:
		return fk.cap_cq;
	case NIC_REG_CAP_TRANSPORT:
		return fk.cap_transport;
	case NIC_REG_CAP_SQ_BF:
		return fk.cap_sq_bf;
	case NIC_REG_PORT_MAC_LO:
		return fk.mac_lo;
	case NIC_REG_PORT_MAC_HI:
		return fk.mac_hi;
	case NIC_REG_PORT_IPV4:
		return fk.ipv4;
	default:
		if (offset >= NIC_REG_PORT_COUNTERS &&
		    offset < NIC_REG_PORT_COUNTERS + 8 * NIC_PORT_COUNTER_COUNT)
			return fk.port_counters[(offset - NIC_REG_PORT_COUNTERS) / 4];
		return 0;
	}
}

static inline int fake_dma_alloc(void *dev, size_t length, enum ndk_dma_kind kind, void **va,
				 uint64_t *logical)
{
	size_t len = (length + 4095) & ~(size_t)4095;
	unsigned i;

	(void)dev;
	for (i = 0; i < FAKE_MAX_ALLOCS; i++) {
		if (fk.allocs[i].va)
			continue;
		fk.allocs[i].va = aligned_alloc(4096, len);
		cr_assert_not_null(fk.allocs[i].va);
		memset(fk.allocs[i].va, 0, len);
		fk.allocs[i].length = length;
		fk.allocs[i].kind = kind;
		fk.live_allocs++;
		*va = fk.allocs[i].va;
		*logical = (uintptr_t)fk.allocs[i].va + LOGICAL_OFFSET;
		return 0;
	}
	return -ENOMEM;
}

static inline void fake_dma_free(void *dev, void *va, uint64_t logical, size_t length)
{
	unsigned i;

	(void)dev;
	for (i = 0; i < FAKE_MAX_ALLOCS; i++) {
		if (fk.allocs[i].va != va)
			continue;
		cr_assert_eq(logical, (uintptr_t)va + LOGICAL_OFFSET, "freed with a wrong logical");
		cr_assert_eq(length, fk.allocs[i].length, "freed with a wrong length");
		free(va);
		fk.allocs[i].va = NULL;
		fk.live_allocs--;
		return;
	}
	cr_assert_fail("dma_free of memory that was never allocated");
}

/* the kind of the allocation holding va */
static inline enum ndk_dma_kind fake_kind(const void *va)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_ALLOCS; i++)
		if (fk.allocs[i].va == va)
			return fk.allocs[i].kind;
	cr_assert_fail("no allocation at %p", va);
	return NDK_DMA_DATA;
}

static inline void fake_host_cost(void *dev, enum ndk_host_cost what, uint32_t count)
{
	(void)dev;
	if (what == NDK_COST_WQE)
		fk.wqe_costs += count;
	else
		fk.doorbell_costs += count;
}

static inline void fake_idle_poll(void *dev)
{
	(void)dev;
	fk.idle_polls++;
}

static inline void fake_close(void *dev)
{
	(void)dev;
	fk.closed = true;
}

static const struct ndk_backend_ops fake_ops = {
	.name = "fake",
	.mmio_write32 = fake_write32,
	.mmio_read32 = fake_read32,
	.dma_alloc = fake_dma_alloc,
	.dma_free = fake_dma_free,
	.host_cost = fake_host_cost,
	.idle_poll = fake_idle_poll,
	.close = fake_close,
};

/* a device without the transport: 16 QPs and CQs, 64 MRs over 1024 MTT entries, 16 vectors,
 * CQ moderation */
static inline void fake_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	fk.magic = NIC_MAGIC;
	fk.version = NIC_VERSION_MAJOR << 16 | NIC_VERSION_MINOR;
	fk.queues = 16u << 16 | 16u;
	fk.memory = 1024u << 16 | 64u;
	fk.msix = 16;
	fk.cap_cq = NIC_CAP_CQ_MODERATION | 14;
}

/* writes to `offset` since write number `from` */
static inline unsigned writes_to(unsigned from, uint32_t offset)
{
	unsigned i, n = 0;

	for (i = from; i < fk.nwrites; i++)
		n += fk.writes[i].offset == offset;
	return n;
}

/* the value of the last write to `offset`, which must exist */
static inline uint32_t last_write(uint32_t offset)
{
	unsigned i = fk.nwrites;

	while (i--)
		if (fk.writes[i].offset == offset)
			return fk.writes[i].value;
	cr_assert_fail("no write to 0x%x", offset);
	return 0;
}

/* the index of the last CMD write with this opcode, or -1 */
static inline int last_cmd(uint32_t op)
{
	unsigned i = fk.nwrites;

	while (i--)
		if (fk.writes[i].offset == NIC_REG_CMD && (fk.writes[i].value & 0xff) == op)
			return (int)i;
	return -1;
}

/* ARGn as it was when command number `cmd` (a write index) was issued */
static inline uint32_t cmd_arg(int cmd, unsigned n)
{
	int i;

	for (i = cmd - 1; i >= 0; i--)
		if (fk.writes[i].offset == NIC_REG_ARG0 + 4 * n)
			return fk.writes[i].value;
	cr_assert_fail("ARG%u never written before command %d", n, cmd);
	return 0;
}

#endif /* NDK_TESTS_FAKE_DEVICE_H */
