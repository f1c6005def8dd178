// SPDX-License-Identifier: MIT
//
// The world's host memory (host_memory.h): regions, the firewall, the fixed-address mapping.

#include "host_memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace nicsim_hw
{
namespace
{

// Host memory at addresses that do not depend on the program. Buffers' virtual addresses reach
// the NIC (memory-region VAs in RETHs, request contexts), so a buffer from the C heap would
// make the NIC's outputs depend on where the heap happens to be, which moves whenever the
// program's size does. The DMA regions are mapped instead at a process-wide bump address from
// a fixed base, never reused, with a guard page between regions: the same calls give the same
// addresses in every build (NDK_SIM_OUTHASH relies on it). If the address is taken, the kernel
// picks one (the run is still correct, only not address-repeatable).
constexpr uint64_t kHostVaBase = 0x3f0000000000ull;
std::atomic<uint64_t> next_host_va{ kHostVaBase };

uint8_t *host_pages_alloc(size_t len)
{
	const uint64_t at = next_host_va.fetch_add(len + RegionMemory::kGuard);
	void *p = mmap(reinterpret_cast<void *>(at), len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}

} // namespace

RegionMemory::~RegionMemory()
{
	for (auto &r : regions_)
		munmap(r.second.va, r.second.alloc_len);
}

int RegionMemory::alloc(size_t length, nicsim_mem_kind kind, void **va, uint64_t *logical)
{
	if (!length)
		return -EINVAL;
	const size_t alloc_len = (length + 4095) & ~(size_t)4095;
	if (allocated_ + alloc_len > limit_)
		return -ENOMEM;
	uint8_t *p = host_pages_alloc(alloc_len); // zeroed
	if (!p)
		return -ENOMEM;
	Region r{ next_logical_, length, alloc_len, kind, p };
	regions_[r.logical] = r;
	last_hit_ = nullptr;
	next_logical_ += alloc_len + kGuard;
	allocated_ += alloc_len;
	*va = p;
	*logical = r.logical;
	return 0;
}

void RegionMemory::free(uint64_t logical)
{
	auto it = regions_.find(logical);
	if (it == regions_.end())
		return;
	allocated_ -= it->second.alloc_len;
	munmap(it->second.va, it->second.alloc_len);
	regions_.erase(it);
	last_hit_ = nullptr;
}

const RegionMemory::Region *RegionMemory::find(uint64_t addr, uint64_t len)
{
	const Region *r = last_hit_;
	if (!r || addr < r->logical || addr + len > r->logical + r->length) {
		auto it = regions_.upper_bound(addr);
		if (it == regions_.begin())
			return nullptr;
		--it;
		r = &it->second;
		if (addr < r->logical || addr + len > r->logical + r->length)
			return nullptr;
		last_hit_ = r;
	}
	return r;
}

bool RegionMemory::dma_read(uint64_t addr, uint64_t len, uint8_t *to, nicsim_mem_kind *kind)
{
	const Region *r = find(addr, len);
	if (!r)
		return false;
	std::memcpy(to, r->va + (addr - r->logical), len);
	*kind = r->kind;
	return true;
}

bool RegionMemory::may_write(uint64_t addr, uint64_t len)
{
	return find(addr, len) != nullptr;
}

bool RegionMemory::dma_write(uint64_t addr, const uint8_t *data, const uint8_t *strb, uint64_t len,
			     nicsim_mem_kind *kind)
{
	const Region *r = find(addr, len);
	if (!r)
		return false;
	uint8_t *to = r->va + (addr - r->logical);
	for (uint64_t i = 0; i < len; i++)
		if (strb[i])
			to[i] = data[i];
	// a CQ region is its ring followed by one error record: a write that ends at the region's
	// end is the record
	*kind = r->kind == NICSIM_MEM_CQ && addr + len == r->logical + r->length ? NICSIM_MEM_DATA :
										   r->kind;
	return true;
}

} // namespace nicsim_hw
