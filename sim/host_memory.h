// SPDX-License-Identifier: MIT
//
// Host memory as the NIC's DMA sees it. Internal to the harness (C++); nicsim.h is the C API.
//
// DmaMemory is the abstract memory the DMA slave (pcie_host.h) reads and writes: whatever
// front end steps the model supplies one. The world's is RegionMemory (below): the regions the
// driver allocated, with the firewall. Another front end (a device server presenting the core
// to a VM) implements DmaMemory over guest RAM at guest-physical addresses.
//
// Contract of a DmaMemory:
// - dma_read copies [addr, addr + len) into `to` at the moment the read request reaches the
//   host (the DMA slave takes its snapshot then); false refuses the whole read (nothing copied):
//   the address range is not memory the NIC may reach.
// - may_write is the firewall for a write at the moment its request (AW) arrives: false refuses
//   it. dma_write applies a write that became visible, byte by byte where strb[i] is nonzero;
//   false: the memory was taken away between the two (a fatal error in the world).
// - kind reports what the bytes are used for (statistics only; nicsim_mem_kind): the DMA slave
//   counts a read of NICSIM_MEM_SQ as a WQE fetch and a write to NICSIM_MEM_CQ as CQEs. A
//   memory that does not know reports NICSIM_MEM_DATA.
// - A memory is called only from inside the cycle of the model it belongs to (one thread).
#ifndef HOST_MEMORY_H
#define HOST_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>

#include "nicsim.h"

namespace nicsim_hw
{

class DmaMemory {
    public:
	virtual ~DmaMemory() = default;
	virtual bool dma_read(uint64_t addr, uint64_t len, uint8_t *to, nicsim_mem_kind *kind) = 0;
	virtual bool may_write(uint64_t addr, uint64_t len) = 0;
	virtual bool dma_write(uint64_t addr, const uint8_t *data, const uint8_t *strb,
			       uint64_t len, nicsim_mem_kind *kind) = 0;
};

// The memory of one host of the world: the regions its driver allocated (nicsim_dma_alloc), at
// logical (bus) addresses from kHostBase up, with an unmapped guard gap after each; only those
// bytes are reachable, exact to the byte of the requested length (an IOMMU's firewall, but
// finer). The pages are mapped at process-wide fixed addresses (see host_pages_alloc in
// host_memory.cpp) so that buffers' virtual addresses, which reach the NIC, do not depend on the
// program. A CQ region is its ring followed by one error record (formats/nic.toml): writes to
// the record report NICSIM_MEM_DATA, so only CQEs count as CQEs.
class RegionMemory final : public DmaMemory {
    public:
	static constexpr uint64_t kHostBase = 0x100000000ull; // logical addresses above 4 GiB
	static constexpr uint64_t kGuard = 4096;	      // unmapped gap after each region

	explicit RegionMemory(uint64_t limit_bytes)
		: limit_(limit_bytes)
	{
	}
	~RegionMemory() override;
	RegionMemory(const RegionMemory &) = delete;
	RegionMemory &operator=(const RegionMemory &) = delete;

	// nicsim_dma_alloc / nicsim_dma_free: page aligned, zeroed. 0, -EINVAL or -ENOMEM.
	int alloc(size_t length, nicsim_mem_kind kind, void **va, uint64_t *logical);
	void free(uint64_t logical);

	bool dma_read(uint64_t addr, uint64_t len, uint8_t *to, nicsim_mem_kind *kind) override;
	bool may_write(uint64_t addr, uint64_t len) override;
	bool dma_write(uint64_t addr, const uint8_t *data, const uint8_t *strb, uint64_t len,
		       nicsim_mem_kind *kind) override;

    private:
	struct Region {
		uint64_t logical;
		size_t length;	  // as requested: the firewall is exact to the byte
		size_t alloc_len; // page rounded
		nicsim_mem_kind kind;
		uint8_t *va;
	};
	// the region holding all of [addr, addr + len), or nullptr
	const Region *find(uint64_t addr, uint64_t len);

	uint64_t limit_;
	std::map<uint64_t, Region> regions_;
	uint64_t next_logical_ = kHostBase;
	uint64_t allocated_ = 0;
	const Region *last_hit_ = nullptr; // most DMA goes to the region of the one before
};

} // namespace nicsim_hw

#endif // HOST_MEMORY_H
