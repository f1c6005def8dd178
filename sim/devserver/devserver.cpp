// SPDX-License-Identifier: MIT
//
// ndk-devserver: the Verilated nic_core as a PCI device of a QEMU guest (docs/devserver.md).
//
//   ndk-devserver [--width 64|256] [--clock-mhz N] [--pcap FILE] [--quiet]
//                 -- qemu-system-x86_64 ... -device x-pci-proxy-dev,fd=@FD@ ...
//
// It creates a socket pair, starts the QEMU command line with one end (the argument text @FD@
// becomes that descriptor's number) and serves QEMU's multi-process protocol (QEMU 7.2,
// hw/remote: x-pci-proxy-dev on the QEMU side) on the other until QEMU exits; then it prints
// its report on stderr and exits with QEMU's exit status (or kExitNicStopped, 70).
//
// What the guest sees: a conventional PCI function with the register map's vendor / device
// ids and class (formats/nic.toml), a 32-bit memory BAR0 of 2^bar0_addr_bits bytes (QEMU's
// proxy registers every BAR as a 32-bit memory BAR: a 64-bit BAR cannot be shown through it),
// an MSI-X capability whose table and PBA point into BAR0 where the core has them, and a
// vendor-specific capability with the device server's counters (devserver_regs.h).
//
// What the NIC sees: the harness's NicHost (sim/nic_host.h: the model with the quiescence skip,
// the AXI4-Lite master and the DMA slave), as a world uses one per NIC, with the sim backend's
// default PCIe timing
// (ndk_sim_default_config): BAR0 reads and writes become AXI4-Lite transactions on the core's
// register port (posted writes: QEMU's vCPU gets its reply at once, the write reaches the core
// mmio_write_ns later; a read waits for the writes before it and the core's answer); the
// core's AXI4 DMA is served from guest RAM at guest-physical addresses (QEMU shares the RAM as
// memfd descriptors; GuestMemory below is the DmaMemory). A DMA outside guest RAM, or while
// the guest has bus mastering off, is refused, like the harness's firewall: nothing is read or
// written, the reason goes to stderr and the NIC stops (the guest then reads all-ones from
// BAR0, like a device gone from the bus) and the server exits with kExitNicStopped. The
// core's MSI-X messages (DMA writes into the x86 MSI window) are counted and reported, not
// delivered: x-pci-proxy-dev has no MSI path (docs/devserver.md says why). The NIC's Ethernet
// port is looped back to itself through nicsim's network model (nicsim_net.h: the link
// model, the pcap capture of NDK_SIM_PCAP or --pcap).
//
// Time: the core runs cycle by cycle while anything is pending (a register access, a DMA
// burst, a frame on the port) or its state still changes, and stops when a probe finds its
// whole state unchanged across a microsecond tick with nothing pending: then the server
// sleeps in poll() until QEMU sends the next message. No simulated time passes while it
// sleeps; the core's time is its own, not the guest's.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "devserver_regs.h"
#include "host_memory.h"
#include "nic_host.h"
#include "ndk_sim.h"
#include "nic_hw.h"
#include "nic_model.h"
#include "nicsim_net.h"
#include "verilated.h"

namespace
{

// ---------------------------------------------------------------------------------------------
// QEMU's multi-process protocol (QEMU 7.2, include/hw/remote/mpqemu-link.h): a 16-byte header
// {int cmd; size_t size} with up to 8 descriptors attached, then `size` bytes of data.
// Requests that expect an answer get a RET message whose data is one u64.

enum MpCmd : int32_t {
	kSyncSysmem = 0,
	kRet = 1,
	kCfgWrite = 2,
	kCfgRead = 3,
	kBarWrite = 4,
	kBarRead = 5,
	kSetIrqfd = 6,
	kDeviceReset = 7,
};
constexpr int kMaxFds = 8;

struct SyncSysmem {
	uint64_t gpas[kMaxFds];
	uint64_t sizes[kMaxFds];
	int64_t offsets[kMaxFds];
};
struct PciConf {
	uint32_t addr, val;
	int32_t len;
};
struct BarAccess {
	uint64_t addr, val;
	uint32_t size;
	uint8_t memory;
};
struct MpHeader {
	int32_t cmd;
	uint32_t pad;
	uint64_t size;
};
struct MpMsg {
	MpHeader h;
	union {
		uint64_t u64;
		PciConf conf;
		SyncSysmem sysmem;
		BarAccess bar;
		uint8_t bytes[sizeof(SyncSysmem)];
	} d;
	int fds[kMaxFds];
	int nfds;
};
static_assert(sizeof(MpHeader) == 16, "mpqemu header");
static_assert(sizeof(BarAccess) == 24 && sizeof(PciConf) == 12 && sizeof(SyncSysmem) == 192,
	      "mpqemu message layouts (x86-64)");

bool quiet = false;

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	std::fprintf(stderr, "devserver: ");
	std::vfprintf(stderr, fmt, ap);
	std::fputc('\n', stderr);
	va_end(ap);
}

[[noreturn]] void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::fprintf(stderr, "devserver: error: ");
	std::vfprintf(stderr, fmt, ap);
	std::fputc('\n', stderr);
	va_end(ap);
	std::exit(125);
}

// 1 message, 0 end of stream; dies on a protocol error
int recv_msg(int sock, MpMsg &m)
{
	std::memset(&m, 0, sizeof(m));
	struct iovec iov = { &m.h, sizeof(m.h) };
	alignas(struct cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * kMaxFds)];
	struct msghdr mh = {};
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	ssize_t n;
	do
		n = recvmsg(sock, &mh, MSG_WAITALL | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;
	if (n != (ssize_t)sizeof(m.h))
		die("short message header from QEMU (%zd bytes)", n);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			m.nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			std::memcpy(m.fds, CMSG_DATA(c), sizeof(int) * m.nfds);
		}
	}
	if (m.h.size > sizeof(m.d))
		die("message %d of %llu bytes from QEMU", m.h.cmd, (unsigned long long)m.h.size);
	size_t got = 0;
	while (got < m.h.size) {
		n = recv(sock, m.d.bytes + got, m.h.size - got, MSG_WAITALL);
		if (n <= 0 && errno != EINTR)
			die("message %d cut short", m.h.cmd);
		if (n > 0)
			got += n;
	}
	return 1;
}

void send_ret(int sock, uint64_t value, bool with_value = true)
{
	struct {
		MpHeader h;
		uint64_t v;
	} r = { { kRet, 0, with_value ? 8u : 0u }, value };
	const size_t len = with_value ? sizeof(r) : sizeof(r.h);
	if (send(sock, &r, len, MSG_NOSIGNAL) != (ssize_t)len)
		die("cannot answer QEMU: %s", std::strerror(errno));
}

double now_s()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

constexpr uint32_t kBar0Bytes = 1u << NIC_BAR0_ADDR_BITS;
constexpr unsigned kResetCycles = 8;
constexpr uint8_t kCmdMemory = 0x2, kCmdMaster = 0x4;
constexpr uint16_t kCmdIntxOff = 0x400;
constexpr int kExitNicStopped = 70; // the NIC stopped on a fatal error (the report says which)

// ---------------------------------------------------------------------------------------------
// Guest RAM as the NIC's DMA sees it (nicsim_hw::DmaMemory over QEMU's memfd regions).

struct GuestRegion {
	uint64_t gpa, size;
	uint8_t *va;
};

class GuestMemory final : public nicsim_hw::DmaMemory {
    public:
	explicit GuestMemory(const uint8_t *cfg)
		: cfg_(cfg)
	{
	}
	~GuestMemory() override
	{
		unmap();
	}
	void unmap()
	{
		for (auto &r : ram_)
			munmap(r.va, r.size);
		ram_.clear();
	}
	void map(MpMsg &m)
	{
		unmap();
		const SyncSysmem &s = m.d.sysmem;
		for (int i = 0; i < m.nfds; i++) {
			void *p = mmap(nullptr, s.sizes[i], PROT_READ | PROT_WRITE, MAP_SHARED,
				       m.fds[i], s.offsets[i]);
			close(m.fds[i]);
			if (p == MAP_FAILED)
				die("cannot map guest RAM [0x%llx, +0x%llx): %s",
				    (unsigned long long)s.gpas[i], (unsigned long long)s.sizes[i],
				    std::strerror(errno));
			ram_.push_back({ s.gpas[i], s.sizes[i], static_cast<uint8_t *>(p) });
		}
	}
	// DMA reads accepted (each is one burst; the device counts the R beats that end them)
	uint64_t reads_accepted = 0;
	// why the last access was refused (for the report)
	const char *refusal = "";

	bool dma_read(uint64_t addr, uint64_t len, uint8_t *to, nicsim_mem_kind *kind) override
	{
		*kind = NICSIM_MEM_DATA;
		const uint8_t *from = at(addr, len);
		if (!from)
			return false;
		std::memcpy(to, from, len);
		reads_accepted++;
		return true;
	}
	bool may_write(uint64_t addr, uint64_t len) override
	{
		return at(addr, len) != nullptr;
	}
	bool dma_write(uint64_t addr, const uint8_t *data, const uint8_t *strb, uint64_t len,
		       nicsim_mem_kind *kind) override
	{
		*kind = NICSIM_MEM_DATA;
		uint8_t *to = at(addr, len);
		if (!to)
			return false;
		for (uint64_t i = 0; i < len; i++)
			if (strb[i])
				to[i] = data[i];
		return true;
	}

    private:
	// [gpa, gpa + len) in one RAM region, with the guest letting the device master the bus
	uint8_t *at(uint64_t gpa, uint64_t len)
	{
		if (!(cfg_[0x04] & kCmdMaster)) {
			refusal = "bus mastering is off (PCI command register)";
			return nullptr;
		}
		for (auto &r : ram_)
			if (gpa >= r.gpa && gpa + len <= r.gpa + r.size && gpa + len >= gpa)
				return r.va + (gpa - r.gpa);
		refusal = "outside guest RAM";
		return nullptr;
	}
	const uint8_t *cfg_; // the configuration space: bus mastering
	std::vector<GuestRegion> ram_;
};

// ---------------------------------------------------------------------------------------------
// The device: configuration space, the core with the harness's bus agents, the port.

class Device {
    public:
	Device(unsigned width, const ndk_sim_config &c, const char *pcap)
		: clock_mhz_(c.clock_mhz)
		, memory_(cfg_)
	{
		ctx_ = std::make_unique<VerilatedContext>();
		Verilated::threadContextp(ctx_.get());
		ctx_->fatalOnError(false); // an assertion stops the device with a report instead
		ctx_->assertOn(true);
		auto model = nicsim_hw::make_model(width, ctx_.get(), "nic");
		if (!model)
			die("no model of DataWidth %u", width);
		nicsim_hw::NicHost::Config hc{};
		hc.index = 0;
		hc.bus_bytes = width / 8;
		hc.clock_mhz = c.clock_mhz;
		hc.reset_cycles = kResetCycles;
		hc.port_mac = 0x020000000001ull; // a one-NIC world's NIC 0: 02:00:00:00:00:01
		hc.port_ipv4 = 0x0a000001u;	 // 10.0.0.1
		hc.timing = timing_of(c);
		hc.msix_base = NIC_MSIX_WINDOW;
		hc.msix_bytes = NIC_MSIX_WINDOW_BYTES;
		hc.skip_quiet = true;
		hc.check_quiet = false; // the whole-state snapshot is probe_idle's
		nic_ = std::make_unique<nicsim_hw::NicHost>(hc, std::move(model), &memory_);
		mmio_write_cycles_ = (uint64_t)c.mmio_write_ns * c.clock_mhz / 1000;
		nic_->dma.set_irq_handler(on_msix, this);
		nicnet::Network::Config nc{};
		nc.ports = 1;
		nc.bus_bytes = width / 8;
		nc.clock_mhz = c.clock_mhz;
		nc.link_mbps = c.link_mbps;
		nc.link_cycles = ((uint64_t)c.link_ns * c.clock_mhz + 999) / 1000;
		net_ = std::make_unique<nicnet::Network>(nc);
		if (pcap && *pcap && net_->open_pcap(pcap))
			die("cannot capture to %s", pcap);
		net_->attach(0, &nic_->core.out.stream, &nic_->in.stream);
		net_->set_frame_handler(on_frame, this);
		nic_->start();
		for (unsigned i = 0; i < kResetCycles + 2; i++)
			cycle();
		msix_vectors_ = mmio_read(NIC_REG_CAP_MSIX) & 0x7ff;
		init_config();
	}
	~Device()
	{
		Verilated::threadContextp(ctx_.get());
		net_.reset(); // flushes the capture
	}
	bool failed() const
	{
		return failed_;
	}

	// ---- QEMU's requests
	void handle(int sock, MpMsg &m)
	{
		switch (m.h.cmd) {
		case kSyncSysmem:
			memory_.map(m);
			break;
		case kCfgRead:
			send_ret(sock, cfg_read(m.d.conf.addr, m.d.conf.len));
			break;
		case kCfgWrite:
			cfg_write(m.d.conf.addr, m.d.conf.val, m.d.conf.len);
			send_ret(sock, 0);
			break;
		case kBarWrite:
			bar_write(m.d.bar);
			send_ret(sock, 0);
			break;
		case kBarRead:
			send_ret(sock, bar_read(m.d.bar));
			break;
		case kSetIrqfd:
			// INTx through eventfds: the device raises no INTx (no pin; MSI-X counted)
			for (int i = 0; i < m.nfds; i++)
				close(m.fds[i]);
			break;
		case kDeviceReset:
			// a reset from QEMU (system reset): the configuration space only; the core
			// keeps its state, as a function without FLR would
			init_config();
			send_ret(sock, 0, false);
			break;
		default:
			die("unknown message %d from QEMU", m.h.cmd);
		}
		if (m.h.cmd != kSyncSysmem && m.h.cmd != kSetIrqfd)
			for (int i = 0; i < m.nfds; i++)
				close(m.fds[i]);
	}

	// Serve QEMU's messages until its end of the socket closes; the core runs between them
	// while anything is pending, and stops when it is idle.
	void serve(int sock)
	{
		MpMsg m;
		for (;;) {
			struct pollfd p = { sock, POLLIN, 0 };
			int r = poll(&p, 1, idle() ? -1 : 0);
			if (r < 0 && errno != EINTR)
				die("poll: %s", std::strerror(errno));
			if (r > 0) {
				if (!recv_msg(sock, m))
					return;
				handle(sock, m);
				idle_ = false;
				continue;
			}
			// nothing from QEMU: run the core a while (a poll per cycle would cost more
			// than the cycle)
			for (unsigned i = 0; i < 64 && !idle(); i++)
				cycle();
		}
	}

	void report(FILE *f)
	{
		nicsim_stats s = nic_->stats;
		net_->add_stats(0, &s);
		std::fprintf(
			f,
			"devserver: %llu cycles (%.1f s running), BAR0 %llu writes %llu reads, "
			"doorbells SQ %llu RQ %llu CQ %llu, DMA %llu reads (%llu B) %llu writes "
			"(%llu B), %llu refused, %llu MSI-X messages (not delivered), frames "
			"%llu sent %llu received%s\n",
			(unsigned long long)cycle_, run_s_, (unsigned long long)s.mmio_writes,
			(unsigned long long)s.mmio_reads, (unsigned long long)s.sq_doorbells,
			(unsigned long long)s.rq_doorbells, (unsigned long long)s.cq_doorbells,
			(unsigned long long)s.dma_reads, (unsigned long long)s.dma_read_bytes,
			(unsigned long long)s.dma_writes, (unsigned long long)s.dma_write_bytes,
			(unsigned long long)refused_, (unsigned long long)s.interrupts,
			(unsigned long long)s.frames_sent, (unsigned long long)s.frames_received,
			failed_ ? "; the NIC STOPPED on the error above" : "");
	}

    private:
	static nicsim_hw::PcieTiming timing_of(const ndk_sim_config &c)
	{
		nicsim_hw::PcieTiming t;
		t.bytes_per_cycle = (double)c.pcie_mbps / c.clock_mhz;
		t.dma_read_cycles = ((uint64_t)c.dma_read_ns * c.clock_mhz + 999) / 1000;
		t.dma_write_cycles = ((uint64_t)c.dma_write_ns * c.clock_mhz + 999) / 1000;
		return t;
	}

	// ---- configuration space (conventional PCI, 256 bytes)
	void put8(unsigned a, uint8_t v)
	{
		cfg_[a] = v;
	}
	void put16(unsigned a, uint16_t v)
	{
		cfg_[a] = (uint8_t)v;
		cfg_[a + 1] = (uint8_t)(v >> 8);
	}
	void put32(unsigned a, uint32_t v)
	{
		put16(a, (uint16_t)v);
		put16(a + 2, (uint16_t)(v >> 16));
	}
	uint16_t get16(unsigned a) const
	{
		return (uint16_t)(cfg_[a] | cfg_[a + 1] << 8);
	}
	uint32_t get32(unsigned a) const
	{
		return get16(a) | (uint32_t)get16(a + 2) << 16;
	}

	void init_config()
	{
		std::memset(cfg_, 0, sizeof(cfg_));
		put16(0x00, NIC_VENDOR_ID);
		put16(0x02, NIC_DEVICE_ID);
		put16(0x06, 0x0010); // status: capability list
		put8(0x08, (uint8_t)NIC_VERSION_MAJOR);
		put8(0x09, (uint8_t)NIC_CLASS_CODE);	      // programming interface
		put16(0x0a, (uint16_t)(NIC_CLASS_CODE >> 8)); // subclass, class
		put8(0x0e, 0x00);			      // header type 0, one function
		put32(0x10, 0x0);	    // BAR0: 32-bit memory, non-prefetchable
		put16(0x2c, NIC_VENDOR_ID); // subsystem vendor / id
		put16(0x2e, NIC_DEVICE_ID);
		put8(0x34, DEVSERVER_CAP_MSIX);
		put8(0x3d, 0x00); // no INTx pin
		// MSI-X: table and PBA in BAR0 (BIR 0) where the core decodes them
		put8(DEVSERVER_CAP_MSIX + 0, 0x11);
		put8(DEVSERVER_CAP_MSIX + 1, DEVSERVER_CAP_VENDOR);
		put16(DEVSERVER_CAP_MSIX + 2, (uint16_t)((msix_vectors_ ? msix_vectors_ : 1) - 1));
		put32(DEVSERVER_CAP_MSIX + 4, NIC_REG_MSIX_TABLE | 0);
		put32(DEVSERVER_CAP_MSIX + 8, NIC_REG_MSIX_PBA | 0);
		put8(DEVSERVER_CAP_VENDOR + 0, 0x09);
		put8(DEVSERVER_CAP_VENDOR + 1, 0x00);
		put8(DEVSERVER_CAP_VENDOR + 2,
		     (uint8_t)(DEVSERVER_COUNTERS + 8 * DEVSERVER_NUM_COUNTERS -
			       DEVSERVER_CAP_VENDOR));
		put32(DEVSERVER_CAP_TAG, DEVSERVER_TAG);
		bar0_ = 0;
	}

	uint64_t cfg_read(uint32_t addr, int len)
	{
		if (len < 1 || len > 4 || addr >= sizeof(cfg_) || addr + len > sizeof(cfg_))
			return ~0u;
		// the counters: reading the tag latches them
		if (addr <= DEVSERVER_CAP_TAG && addr + len > DEVSERVER_CAP_TAG) {
			nicsim_stats s = nic_->stats;
			net_->add_stats(0, &s);
			const uint64_t c[DEVSERVER_NUM_COUNTERS] = {
				cycle_,		s.mmio_writes,	   s.mmio_reads, s.sq_doorbells,
				s.rq_doorbells, s.cq_doorbells,	   s.dma_reads,	 s.dma_read_bytes,
				s.dma_writes,	s.dma_write_bytes, refused_,	 s.interrupts,
				s.frames_sent,	s.frames_received,
			};
			for (unsigned i = 0; i < DEVSERVER_NUM_COUNTERS; i++)
				for (unsigned b = 0; b < 8; b++)
					cfg_[DEVSERVER_COUNTERS + 8 * i + b] =
						(uint8_t)(c[i] >> 8 * b);
		}
		uint32_t v = 0;
		for (int i = 0; i < len; i++)
			v |= (uint32_t)cfg_[addr + i] << 8 * i;
		return v;
	}

	void cfg_write(uint32_t addr, uint32_t val, int len)
	{
		for (int i = 0; i < len && addr + i < sizeof(cfg_); i++) {
			const unsigned a = addr + i;
			const uint8_t b = (uint8_t)(val >> 8 * i);
			if (a == 0x04) // command: memory space, bus master
				cfg_[a] = b & (kCmdMemory | kCmdMaster);
			else if (a == 0x05)
				cfg_[a] = b & (kCmdIntxOff >> 8);
			else if (a >= 0x10 && a < 0x14) // BAR0: size-aligned base, low bits fixed
				cfg_[a] = b &
					  (uint8_t)((~(kBar0Bytes - 1) & ~0xfu) >> 8 * (a - 0x10));
			else if (a == 0x3c) // interrupt line: scratch for the OS
				cfg_[a] = b;
			else if (a ==
				 DEVSERVER_CAP_MSIX + 3) // MSI-X enable [15], function mask [14]
				cfg_[a] = b & 0xc0;
		}
		bar0_ = get32(0x10) & ~0xfu;
	}

	// ---- BAR0: QEMU gives the guest-physical address of the access; the BAR's base is ours
	bool bar_offset(const BarAccess &b, uint32_t &off) const
	{
		if (!b.memory || b.addr < bar0_ || b.addr + b.size > (uint64_t)bar0_ + kBar0Bytes)
			return false;
		off = (uint32_t)(b.addr - bar0_);
		return true;
	}

	void bar_write(const BarAccess &b)
	{
		uint32_t off;
		if (!bar_offset(b, off)) {
			note("BAR write outside BAR0 at 0x%llx ignored",
			     (unsigned long long)b.addr);
			return;
		}
		if (failed_)
			return;
		const uint64_t due = cycle_ + mmio_write_cycles_;
		if (b.size == 8) { // two 32-bit writes, low first (the bus is AXI4-Lite, 32 bits)
			nic_->mmio.post_write(due, off, (uint32_t)b.val, 0xf);
			nic_->mmio.post_write(due, off + 4, (uint32_t)(b.val >> 32), 0xf);
			return;
		}
		const unsigned lane = off & 3;
		const uint32_t strb = ((1u << b.size) - 1) << lane;
		nic_->mmio.post_write(due, off & ~3u, (uint32_t)(b.val << 8 * lane), strb & 0xf);
	}

	uint64_t bar_read(const BarAccess &b)
	{
		uint32_t off;
		if (!bar_offset(b, off)) {
			note("BAR read outside BAR0 at 0x%llx", (unsigned long long)b.addr);
			return ~0ull;
		}
		if (b.size == 8)
			return mmio_read(off) | (uint64_t)mmio_read(off + 4) << 32;
		const uint32_t v = mmio_read(off & ~3u) >> 8 * (off & 3);
		return b.size == 4 ? v : v & ((1u << 8 * b.size) - 1);
	}

	// A non-posted read: it waits for the posted writes before it (PCIe ordering), then for
	// the core's answer. A stopped NIC answers all-ones, like a device gone from the bus.
	uint32_t mmio_read(uint32_t off)
	{
		while (!failed_ && nic_->mmio.writes_pending())
			cycle();
		if (failed_)
			return ~0u;
		nic_->mmio.start_read(off);
		read_in_flight_ = true;
		while (!failed_ && !nic_->mmio.read_done())
			cycle();
		read_in_flight_ = false;
		return failed_ ? ~0u : nic_->mmio.read_value();
	}

	// ---- events from the harness classes
	static void on_msix(void *ctx, unsigned, uint64_t address, uint32_t data)
	{
		Device *d = static_cast<Device *>(ctx);
		if (d->nic_->stats.interrupts <= kMaxNotes)
			note("MSI-X message 0x%08x to 0x%llx (counted, not delivered)", data,
			     (unsigned long long)address);
	}
	static void on_frame(void *ctx, nicsim_frame_event e, unsigned, uint64_t, const uint8_t *,
			     size_t)
	{
		Device *d = static_cast<Device *>(ctx);
		if (e == NICSIM_FRAME_SENT)
			d->frames_in_flight_++;
		else
			d->frames_in_flight_--;
	}

	// The NIC cannot go on (a refused DMA, a bus protocol error, a failed RTL assertion): it is
	// stopped, as the sim's world stops, but the guest keeps running and sees a device that
	// reads all-ones. The report says so and the server's exit status is kExitNicStopped.
	void stop(const char *why)
	{
		std::fprintf(stderr, "devserver: FATAL at cycle %llu: %s\n",
			     (unsigned long long)cycle_, why);
		failed_ = true;
	}

	// ---- the clock
	// Something is in flight on a bus or on the port: the core must run.
	bool busy() const
	{
		const nicsim_hw::Outputs &o = nic_->core.out;
		return nic_->mmio.writes_pending() || read_in_flight_ ||
		       nic_->dma.writes_pending() || memory_.reads_accepted != reads_done_ ||
		       o.awvalid || o.arvalid || o.wvalid || o.stream.tx_tvalid ||
		       nic_->in.stream.rx_tvalid || frames_in_flight_ > 0 ||
		       cycle_ < kResetCycles + 2;
	}

	bool idle() const
	{
		return failed_ || (idle_ && !busy());
	}

	// One clock cycle, as the world runs one (sim/nicsim.cpp world_cycle): the outputs before
	// the edge decide its handshakes, the bus agents compute the next inputs, the network
	// moves frames, then the edges.
	void cycle()
	{
		if (failed_)
			return;
		const double t0 = now_s();
		Verilated::threadContextp(ctx_.get());
		nic_->sample();
		// a DMA read burst ends with the R beat that has RLAST (the reads in flight: busy())
		if (nic_->in.rvalid && nic_->core.out.rready && nic_->in.rlast)
			reads_done_++;
		if (const char *err = nic_->host(cycle_)) {
			if (std::strstr(err, "did not allocate")) {
				refused_++;
				std::string why = std::string(err) + " (" + memory_.refusal + ")";
				stop(why.c_str());
			} else {
				stop(err);
			}
			return;
		}
		if (const char *err = net_->cycle(cycle_)) {
			stop(err);
			return;
		}
		ctx_->timeInc(1);
		nic_->rise(cycle_);
		if (ctx_->gotError()) {
			stop("RTL assertion failed (message above)");
			return;
		}
		ctx_->timeInc(1);
		nic_->fall(cycle_);
		cycle_++;
		probe_idle();
		run_s_ += now_s() - t0;
	}

	// Idle: nothing in flight, and the whole model state right after a microsecond tick is the
	// one of the tick before (so no timer is counting either): nothing would change however
	// long the core ran. The server then sleeps until QEMU's next message.
	void probe_idle()
	{
		if (busy()) {
			snap_valid_ = false;
			return;
		}
		if (cycle_ % clock_mhz_ != 1 % clock_mhz_)
			return;
		if (snap_valid_ && nic_->core.model().same_as_whole()) {
			idle_ = true;
			return;
		}
		nic_->core.model().snapshot_whole();
		snap_valid_ = true;
	}

	static constexpr unsigned kMaxNotes = 20;

	const uint32_t clock_mhz_;
	uint8_t cfg_[256] = {};
	uint32_t bar0_ = 0;
	unsigned msix_vectors_ = 0;
	GuestMemory memory_;
	std::unique_ptr<VerilatedContext> ctx_;
	std::unique_ptr<nicsim_hw::NicHost> nic_; // the model, its MMIO master and DMA slave
	std::unique_ptr<nicnet::Network> net_;
	uint64_t cycle_ = 0, mmio_write_cycles_ = 0, reads_done_ = 0, refused_ = 0;
	bool read_in_flight_ = false;
	int64_t frames_in_flight_ = 0;
	bool snap_valid_ = false, idle_ = false, failed_ = false;
	double run_s_ = 0;
};

void usage()
{
	std::fprintf(stderr, "usage: ndk-devserver [--width 64|256] [--clock-mhz N] [--pcap FILE] "
			     "[--quiet] -- QEMU-COMMAND... (with fd=@FD@ in x-pci-proxy-dev)\n");
	std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
	// the sim backend's defaults: the same clock, PCIe timing and link as a simulated world
	ndk_sim_config config;
	ndk_sim_default_config(&config); // NDK_SIM_WIDTH and NDK_SIM_PCAP are read here
	unsigned width = config.data_width;
	uint32_t clock_mhz = config.clock_mhz;
	const char *pcap = config.pcap_path;
	int i = 1;
	for (; i < argc && std::strcmp(argv[i], "--"); i++) {
		if (!std::strcmp(argv[i], "--width") && i + 1 < argc)
			width = (unsigned)std::strtoul(argv[++i], nullptr, 0);
		else if (!std::strcmp(argv[i], "--clock-mhz") && i + 1 < argc)
			clock_mhz = (uint32_t)std::strtoul(argv[++i], nullptr, 0);
		else if (!std::strcmp(argv[i], "--pcap") && i + 1 < argc)
			pcap = argv[++i];
		else if (!std::strcmp(argv[i], "--quiet"))
			quiet = true;
		else
			usage();
	}
	if (i + 1 >= argc || (width != 64 && width != 256) || clock_mhz == 0)
		usage();

	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", std::strerror(errno));
	// the device exists (reset, its MSI-X vector count read) before QEMU asks about it
	config.clock_mhz = clock_mhz;
	Device dev(width, config, pcap);

	std::vector<std::string> args;
	const std::string fd = std::to_string(sv[1]);
	for (int k = i + 1; k < argc; k++) {
		std::string a = argv[k];
		for (size_t at; (at = a.find("@FD@")) != std::string::npos;)
			a.replace(at, 4, fd);
		args.push_back(a);
	}
	const pid_t qemu = fork();
	if (qemu < 0)
		die("fork: %s", std::strerror(errno));
	if (qemu == 0) {
		std::vector<char *> av;
		for (auto &a : args)
			av.push_back(a.data());
		av.push_back(nullptr);
		// QEMU's end of the socket stays open across exec
		const int fl = fcntl(sv[1], F_GETFD);
		fcntl(sv[1], F_SETFD, fl & ~FD_CLOEXEC);
		execvp(av[0], av.data());
		std::fprintf(stderr, "devserver: cannot run %s: %s\n", av[0], std::strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	signal(SIGPIPE, SIG_IGN);
	dev.serve(sv[0]);
	close(sv[0]);
	int status = 0;
	while (waitpid(qemu, &status, 0) < 0 && errno == EINTR) {
	}
	dev.report(stderr);
	if (dev.failed())
		return kExitNicStopped;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
