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
// its report on stderr and exits with QEMU's exit status.
//
// What the guest sees: a conventional PCI function with the register map's vendor / device
// ids and class (formats/nic.toml), a 32-bit memory BAR0 of 2^bar0_addr_bits bytes (QEMU's
// proxy registers every BAR as a 32-bit memory BAR: a 64-bit BAR cannot be shown through it),
// an MSI-X capability whose table and PBA point into BAR0 where the core has them, and a
// vendor-specific capability with the device server's counters (devserver_regs.h).
//
// What the NIC sees: BAR0 reads and writes become AXI4-Lite transactions on the core's
// register port (posted writes: QEMU's vCPU gets its reply at once; a read waits for the
// core's answer); the core's AXI4 DMA reads and writes are served from guest RAM at
// guest-physical addresses (QEMU shares the RAM as memfd descriptors). A DMA burst outside
// guest RAM, or while the guest has bus mastering off, is refused: SLVERR to the core, nothing
// read or written, and a line on stderr (the sim harness's firewall, without stopping the
// run). The core's MSI-X messages (DMA writes into the x86 MSI window) are counted and
// reported, not delivered: x-pci-proxy-dev has no MSI path (docs/devserver.md says why).
// The NIC's Ethernet port is looped back to itself through nicsim's network model (the same
// link model, switch and pcap capture as a one-NIC world).
//
// Time: the core runs cycle by cycle while anything is pending (a register access, a DMA
// burst, a frame on the port) or its state still changes, and stops when a probe finds it at
// a fixed point across a microsecond tick with nothing pending: then the server sleeps in
// poll() until QEMU sends the next message. No simulated time passes while it sleeps.
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

#include "Vnic_core_w256.h"
#include "Vnic_core_w256___024root.h"
#include "Vnic_core_w64.h"
#include "Vnic_core_w64___024root.h"
#include "devserver_regs.h"
#include "nic_hw.h"
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

// ---------------------------------------------------------------------------------------------
// The core's pins and one Verilated model behind a width-independent interface.

struct Outputs {
	bool axil_awready, axil_wready, axil_bvalid, axil_arready, axil_rvalid;
	uint32_t axil_rdata;
	bool awvalid;
	uint32_t awid, awlen, awsize;
	uint64_t awaddr;
	bool wvalid, wlast;
	uint8_t wdata[32];
	uint32_t wstrb;
	bool bready;
	bool arvalid;
	uint32_t arid, arlen, arsize;
	uint64_t araddr;
	bool rready;
	nicnet::StreamOut stream;
};

struct Inputs {
	bool rst, us_tick;
	uint64_t port_mac;
	uint32_t port_ipv4;
	uint32_t axil_awaddr, axil_wdata, axil_araddr, axil_wstrb;
	bool axil_awvalid, axil_wvalid, axil_bready, axil_arvalid, axil_rready;
	bool awready, wready, bvalid;
	uint32_t bid, bresp;
	bool arready, rvalid, rlast;
	uint32_t rid, rresp;
	uint8_t rdata[32];
	nicnet::StreamIn stream;
};

class Model {
    public:
	virtual ~Model() = default;
	virtual void sample(Outputs &o) = 0;
	virtual void drive(const Inputs &in) = 0;
	virtual void edge(bool clk) = 0;
	// the whole model state, as opaque bytes (the quiescence probe)
	virtual const uint8_t *state() const = 0;
	virtual size_t state_bytes() const = 0;
};

template <class M, unsigned W> class ModelOf final : public Model {
    public:
	explicit ModelOf(VerilatedContext *ctx)
		: m_(new M{ ctx, "nic" })
	{
	}
	~ModelOf() override
	{
		m_->final();
	}
	void sample(Outputs &o) override
	{
		o.axil_awready = m_->s_axil_awready_o;
		o.axil_wready = m_->s_axil_wready_o;
		o.axil_bvalid = m_->s_axil_bvalid_o;
		o.axil_arready = m_->s_axil_arready_o;
		o.axil_rvalid = m_->s_axil_rvalid_o;
		o.axil_rdata = m_->s_axil_rdata_o;
		o.awvalid = m_->m_axi_awvalid_o;
		o.awid = m_->m_axi_awid_o;
		o.awaddr = m_->m_axi_awaddr_o;
		o.awlen = m_->m_axi_awlen_o;
		o.awsize = m_->m_axi_awsize_o;
		o.wvalid = m_->m_axi_wvalid_o;
		o.wlast = m_->m_axi_wlast_o;
		o.wstrb = m_->m_axi_wstrb_o;
		if (o.wvalid)
			get_wide(m_->m_axi_wdata_o, o.wdata);
		o.bready = m_->m_axi_bready_o;
		o.arvalid = m_->m_axi_arvalid_o;
		o.arid = m_->m_axi_arid_o;
		o.araddr = m_->m_axi_araddr_o;
		o.arlen = m_->m_axi_arlen_o;
		o.arsize = m_->m_axi_arsize_o;
		o.rready = m_->m_axi_rready_o;
		o.stream.tx_tvalid = m_->m_axis_tx_tvalid_o;
		if (o.stream.tx_tvalid) {
			o.stream.tx_tlast = m_->m_axis_tx_tlast_o;
			o.stream.tx_tkeep = m_->m_axis_tx_tkeep_o;
			get_wide(m_->m_axis_tx_tdata_o, o.stream.tx_tdata);
		}
		o.stream.rx_tready = m_->s_axis_rx_tready_o;
	}
	void drive(const Inputs &in) override
	{
		m_->rst_i = in.rst;
		m_->us_tick_i = in.us_tick;
		m_->port_mac_i = in.port_mac;
		m_->port_ipv4_i = in.port_ipv4;
		m_->s_axil_awaddr_i = in.axil_awaddr;
		m_->s_axil_awvalid_i = in.axil_awvalid;
		m_->s_axil_wdata_i = in.axil_wdata;
		m_->s_axil_wstrb_i = in.axil_wstrb;
		m_->s_axil_wvalid_i = in.axil_wvalid;
		m_->s_axil_bready_i = in.axil_bready;
		m_->s_axil_araddr_i = in.axil_araddr;
		m_->s_axil_arvalid_i = in.axil_arvalid;
		m_->s_axil_rready_i = in.axil_rready;
		m_->m_axi_awready_i = in.awready;
		m_->m_axi_wready_i = in.wready;
		m_->m_axi_bid_i = in.bid;
		m_->m_axi_bresp_i = in.bresp;
		m_->m_axi_bvalid_i = in.bvalid;
		m_->m_axi_arready_i = in.arready;
		m_->m_axi_rid_i = in.rid;
		m_->m_axi_rresp_i = in.rresp;
		m_->m_axi_rlast_i = in.rlast;
		m_->m_axi_rvalid_i = in.rvalid;
		if (in.rvalid)
			set_wide(m_->m_axi_rdata_i, in.rdata);
		m_->m_axis_tx_tready_i = in.stream.tx_tready;
		m_->s_axis_rx_tvalid_i = in.stream.rx_tvalid;
		m_->s_axis_rx_tlast_i = in.stream.rx_tlast;
		m_->s_axis_rx_tkeep_i = in.stream.rx_tkeep;
		if (in.stream.rx_tvalid)
			set_wide(m_->s_axis_rx_tdata_i, in.stream.rx_tdata);
	}
	void edge(bool clk) override
	{
		m_->clk_i = clk;
		m_->eval();
	}
	const uint8_t *state() const override
	{
		return reinterpret_cast<const uint8_t *>(m_->rootp);
	}
	size_t state_bytes() const override
	{
		return sizeof(*m_->rootp);
	}

    private:
	template <class T> static void get_wide(const T &v, uint8_t *bytes)
	{
		if constexpr (W == 64) {
			uint64_t x = v;
			std::memcpy(bytes, &x, 8);
		} else {
			for (unsigned i = 0; i < W / 32; i++) {
				uint32_t x = v[i];
				std::memcpy(bytes + 4 * i, &x, 4);
			}
		}
	}
	template <class T> static void set_wide(T &v, const uint8_t *bytes)
	{
		if constexpr (W == 64) {
			uint64_t x;
			std::memcpy(&x, bytes, 8);
			v = x;
		} else {
			for (unsigned i = 0; i < W / 32; i++) {
				uint32_t x;
				std::memcpy(&x, bytes + 4 * i, 4);
				v[i] = x;
			}
		}
	}
	std::unique_ptr<M> m_;
};

// ---------------------------------------------------------------------------------------------
// The device: configuration space, guest RAM, the core with its bus agents, the port.

constexpr uint32_t kBar0Bytes = 1u << NIC_BAR0_ADDR_BITS;
constexpr unsigned kMaxReadsInFlight = 32;
constexpr unsigned kResetCycles = 8;
constexpr uint16_t kCmdMemory = 0x2, kCmdMaster = 0x4, kCmdIntxOff = 0x400;
constexpr unsigned kMaxRefusedNotes = 20;

struct GuestRam {
	uint64_t gpa, size;
	uint8_t *va;
};

struct MmioOp {
	bool write;
	uint32_t offset, value, strb;
};

struct DmaRead {
	uint32_t id;
	unsigned beats, sent, beat_bytes;
	uint64_t base; // the first beat's address aligned down to the beat size
	uint64_t addr; // the request's address
	bool refused;
	std::vector<uint8_t> data; // [addr & ~(bus-1), ...): lanes as the bus carries them
};

struct DmaWrite {
	uint64_t addr, base;
	uint32_t id;
	unsigned beats, got, beat_bytes;
	std::vector<uint8_t> data, strb; // by byte address from base & ~(bus-1)
};

class Device {
    public:
	Device(unsigned width, uint32_t clock_mhz, const char *pcap)
		: width_(width)
		, bus_(width / 8)
		, clock_mhz_(clock_mhz)
	{
		ctx_ = std::make_unique<VerilatedContext>();
		ctx_->fatalOnError(true);
		if (width == 64)
			model_ = std::make_unique<ModelOf<Vnic_core_w64, 64>>(ctx_.get());
		else
			model_ = std::make_unique<ModelOf<Vnic_core_w256, 256>>(ctx_.get());
		nicnet::Network::Config nc{};
		nc.ports = 1;
		nc.bus_bytes = bus_;
		nc.clock_mhz = clock_mhz;
		nc.link_mbps = nicnet::kDefaultLinkMbps;
		nc.link_cycles = (500ull * clock_mhz + 999) / 1000; // 500 ns, as the sim's default
		net_ = std::make_unique<nicnet::Network>(nc);
		net_->attach(0, &out_.stream, &in_.stream);
		net_->set_frame_handler(on_frame, this);
		if (pcap && *pcap && net_->open_pcap(pcap))
			die("cannot capture to %s", pcap);
		snap_.resize(model_->state_bytes());
		reset();
		msix_vectors_ = mmio_read(NIC_REG_CAP_MSIX) & 0x7ff;
		init_config();
	}
	~Device()
	{
		unmap_ram();
		if (net_)
			net_->flush_pcap();
	}

	// ---- QEMU's requests
	void handle(int sock, MpMsg &m)
	{
		switch (m.h.cmd) {
		case kSyncSysmem:
			map_ram(m);
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
			// INTx through eventfds: the device raises no INTx (polling; MSI-X counted)
			for (int i = 0; i < m.nfds; i++)
				close(m.fds[i]);
			break;
		case kDeviceReset:
			reset();
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

	// Run until the core is idle, serving QEMU's messages as they come; returns at the end of
	// QEMU's stream.
	void serve(int sock)
	{
		MpMsg m;
		for (;;) {
			const bool idle = !busy() && quiescent_;
			struct pollfd p = { sock, POLLIN, 0 };
			int r = poll(&p, 1, idle ? -1 : 0);
			if (r < 0 && errno != EINTR)
				die("poll: %s", std::strerror(errno));
			if (r > 0) {
				if (!recv_msg(sock, m))
					return;
				handle(sock, m);
				quiescent_ = false;
				continue;
			}
			// nothing from QEMU: run the core a while (a poll per cycle would cost more
			// than the cycle)
			for (unsigned i = 0; i < 64 && !(quiescent_ && !busy()); i++)
				cycle();
		}
	}

	void report(FILE *f) const
	{
		const uint64_t *c = counters_;
		std::fprintf(
			f,
			"devserver: %llu cycles (%.1f s running), BAR0 %llu writes %llu reads, "
			"doorbells SQ %llu RQ %llu CQ %llu, DMA %llu reads (%llu B) %llu writes "
			"(%llu B), %llu refused, %llu MSI-X messages (not delivered), frames "
			"%llu sent %llu received\n",
			(unsigned long long)c[DEVSERVER_CNT_CYCLES], run_s_,
			(unsigned long long)c[DEVSERVER_CNT_MMIO_WR],
			(unsigned long long)c[DEVSERVER_CNT_MMIO_RD],
			(unsigned long long)c[DEVSERVER_CNT_SQ_DB],
			(unsigned long long)c[DEVSERVER_CNT_RQ_DB],
			(unsigned long long)c[DEVSERVER_CNT_CQ_DB],
			(unsigned long long)c[DEVSERVER_CNT_DMA_RD],
			(unsigned long long)c[DEVSERVER_CNT_DMA_RD_B],
			(unsigned long long)c[DEVSERVER_CNT_DMA_WR],
			(unsigned long long)c[DEVSERVER_CNT_DMA_WR_B],
			(unsigned long long)c[DEVSERVER_CNT_REFUSED],
			(unsigned long long)c[DEVSERVER_CNT_MSIX],
			(unsigned long long)c[DEVSERVER_CNT_FRAMES_TX],
			(unsigned long long)c[DEVSERVER_CNT_FRAMES_RX]);
	}

    private:
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
		if (addr >= sizeof(cfg_) || len < 1 || len > 4 || addr + len > sizeof(cfg_))
			return 0xffffffffu >> (32 - 8 * (len > 0 && len <= 4 ? len : 4));
		// the counters: reading the tag latches them
		if (addr <= DEVSERVER_CAP_TAG && addr + len > DEVSERVER_CAP_TAG)
			std::memcpy(latched_, counters_, sizeof(latched_));
		for (unsigned i = 0; i < DEVSERVER_NUM_COUNTERS; i++)
			for (unsigned b = 0; b < 8; b++)
				cfg_[DEVSERVER_COUNTERS + 8 * i + b] =
					(uint8_t)(latched_[i] >> 8 * b);
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

	bool bus_master() const
	{
		return get16(0x04) & kCmdMaster;
	}

	// ---- BAR0
	// QEMU gives the guest-physical address of the access; the BAR's base is ours to know
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
		if (b.size == 8) { // two 32-bit writes, low first (the bus is AXI4-Lite, 32 bits)
			mmio_.push_back({ true, off, (uint32_t)b.val, 0xf });
			mmio_.push_back({ true, off + 4, (uint32_t)(b.val >> 32), 0xf });
			return;
		}
		const unsigned lane = off & 3;
		const uint32_t strb = ((1u << b.size) - 1) << lane;
		mmio_.push_back({ true, off & ~3u, (uint32_t)(b.val << 8 * lane), strb & 0xf });
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

	// a non-posted read: the posted writes before it first, then the core's answer
	uint32_t mmio_read(uint32_t off)
	{
		mmio_.push_back({ false, off, 0, 0 });
		const uint64_t serial = ++reads_issued_;
		while (reads_done_ < serial)
			cycle();
		return read_value_;
	}

	// ---- guest RAM
	void unmap_ram()
	{
		for (auto &r : ram_)
			munmap(r.va, r.size);
		ram_.clear();
	}

	void map_ram(MpMsg &m)
	{
		unmap_ram();
		for (int i = 0; i < m.nfds; i++) {
			const SyncSysmem &s = m.d.sysmem;
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

	// host address of [gpa, gpa + len) when it lies in one RAM region and the guest lets the
	// device master the bus; nullptr otherwise
	uint8_t *guest(uint64_t gpa, uint64_t len)
	{
		if (!bus_master() || len == 0)
			return nullptr;
		for (auto &r : ram_)
			if (gpa >= r.gpa && gpa + len <= r.gpa + r.size && gpa + len > gpa)
				return r.va + (gpa - r.gpa);
		return nullptr;
	}

	void refused(const char *what, uint64_t addr, uint64_t len)
	{
		counters_[DEVSERVER_CNT_REFUSED]++;
		if (counters_[DEVSERVER_CNT_REFUSED] <= kMaxRefusedNotes)
			note("refused DMA %s of %llu bytes at 0x%llx: %s (cycle %llu)", what,
			     (unsigned long long)len, (unsigned long long)addr,
			     bus_master() ? "outside guest RAM" : "bus mastering is off",
			     (unsigned long long)counters_[DEVSERVER_CNT_CYCLES]);
	}

	static bool is_msix(uint64_t addr)
	{
		return addr >= NIC_MSIX_WINDOW &&
		       addr < (uint64_t)NIC_MSIX_WINDOW + NIC_MSIX_WINDOW_BYTES;
	}

	// ---- the port
	static void on_frame(void *ctx, nicsim_frame_event e, unsigned, uint64_t, const uint8_t *,
			     size_t)
	{
		Device *d = static_cast<Device *>(ctx);
		if (e == NICSIM_FRAME_SENT) {
			d->frames_in_flight_++;
			d->counters_[DEVSERVER_CNT_FRAMES_TX]++;
		} else {
			d->frames_in_flight_--;
			if (e == NICSIM_FRAME_RECEIVED)
				d->counters_[DEVSERVER_CNT_FRAMES_RX]++;
		}
	}

	// ---- the clock
	void reset()
	{
		mmio_.clear();
		reads_.clear();
		writes_.clear();
		b_queue_.clear();
		mmio_busy_ = false;
		in_ = Inputs{};
		in_.port_mac = 0x020000000001ull;
		in_.port_ipv4 = 0x0a000001u;
		in_.axil_bready = in_.axil_rready = true;
		in_.rst = true;
		for (unsigned i = 0; i < kResetCycles; i++)
			cycle();
		in_.rst = false;
		quiescent_ = false;
	}

	// Something is in flight on a bus or the port (the core must run).
	bool busy() const
	{
		return !mmio_.empty() || mmio_busy_ || !reads_.empty() || !writes_.empty() ||
		       !b_queue_.empty() || out_.awvalid || out_.arvalid || out_.wvalid ||
		       out_.stream.tx_tvalid || in_.stream.rx_tvalid || frames_in_flight_ > 0;
	}

	// One clock cycle: the handshakes of this rising edge (outputs sampled after the last
	// edge against the inputs driven for it), the agents' next inputs, the network, the edge.
	void cycle()
	{
		const double t0 = now_s();
		const Outputs &o = out_;
		Inputs &in = in_;
		const uint64_t now = counters_[DEVSERVER_CNT_CYCLES];

		// ---- AXI4-Lite master: one transaction at a time
		if (in.axil_awvalid && o.axil_awready)
			in.axil_awvalid = false;
		if (in.axil_wvalid && o.axil_wready)
			in.axil_wvalid = false;
		if (in.axil_arvalid && o.axil_arready)
			in.axil_arvalid = false;
		if (mmio_busy_ && o.axil_bvalid && in.axil_bready)
			mmio_busy_ = false;
		if (mmio_busy_ && o.axil_rvalid && in.axil_rready) {
			read_value_ = o.axil_rdata;
			reads_done_++;
			mmio_busy_ = false;
		}
		if (!mmio_busy_ && !mmio_.empty() && !in.rst) {
			const MmioOp op = mmio_.front();
			mmio_.pop_front();
			mmio_busy_ = true;
			if (op.write) {
				in.axil_awaddr = op.offset;
				in.axil_wdata = op.value;
				in.axil_wstrb = op.strb;
				in.axil_awvalid = in.axil_wvalid = true;
				count_write(op.offset);
			} else {
				in.axil_araddr = op.offset;
				in.axil_arvalid = true;
				counters_[DEVSERVER_CNT_MMIO_RD]++;
			}
		}

		// ---- AXI4 DMA slave: reads
		if (in.rvalid && o.rready) {
			DmaRead &r = reads_.front();
			if (++r.sent == r.beats)
				reads_.pop_front();
		}
		if (o.arvalid && in.arready)
			accept_read(o);
		in.arready = reads_.size() < kMaxReadsInFlight;
		in.rvalid = !reads_.empty();
		if (in.rvalid) {
			const DmaRead &r = reads_.front();
			in.rid = r.id;
			in.rlast = r.sent + 1 == r.beats;
			in.rresp = r.refused ? 2 : 0; // SLVERR
			const uint64_t beat = r.base + (uint64_t)r.sent * r.beat_bytes;
			const uint64_t lanes = beat & ~(uint64_t)(bus_ - 1);
			std::memcpy(in.rdata,
				    r.data.data() + (lanes - (r.addr & ~(uint64_t)(bus_ - 1))),
				    bus_);
		}

		// ---- writes: AW, W, B
		if (in.bvalid && o.bready)
			b_queue_.pop_front();
		if (o.awvalid && in.awready) {
			DmaWrite w{};
			w.addr = o.awaddr;
			w.id = o.awid;
			w.beats = o.awlen + 1;
			w.beat_bytes = 1u << o.awsize;
			w.base = o.awaddr & ~(uint64_t)(w.beat_bytes - 1);
			const uint64_t span =
				(w.base & (bus_ - 1)) + (uint64_t)w.beats * w.beat_bytes;
			w.data.assign(span + bus_, 0);
			w.strb.assign(span + bus_, 0);
			writes_.push_back(std::move(w));
		}
		if (o.wvalid && in.wready) {
			DmaWrite &w = writes_.front();
			const uint64_t beat = w.base + (uint64_t)w.got * w.beat_bytes;
			const uint64_t lanes = beat & ~(uint64_t)(bus_ - 1);
			const uint64_t first = w.base & ~(uint64_t)(bus_ - 1);
			for (unsigned j = 0; j < bus_; j++) {
				const uint64_t a = lanes + j;
				if ((o.wstrb >> j & 1) && a >= beat && a < beat + w.beat_bytes &&
				    a >= w.addr) {
					w.data[a - first] = o.wdata[j];
					w.strb[a - first] = 1;
				}
			}
			if (++w.got == w.beats || o.wlast) {
				b_queue_.push_back({ w.id, finish_write(w) });
				writes_.pop_front();
			}
		}
		in.awready = writes_.size() < 4;
		in.wready = !writes_.empty();
		in.bvalid = !b_queue_.empty();
		if (in.bvalid) {
			in.bid = b_queue_.front().first;
			in.bresp = b_queue_.front().second;
		}

		// ---- time base and port
		in.us_tick = (now + 1) % clock_mhz_ == 0;
		if (const char *err = net_->cycle(now))
			die("the NIC's port: %s", err);

		// ---- the edge
		model_->drive(in);
		model_->edge(true);
		model_->edge(false);
		model_->sample(out_);
		counters_[DEVSERVER_CNT_CYCLES] = now + 1;
		probe(now + 1);
		run_s_ += now_s() - t0;
	}

	// Quiescence: with nothing in flight, a snapshot of the model's whole state taken right
	// after a microsecond tick; if the next tick finds every byte as it was and nothing moved
	// on a bus in between, nothing would change however long the core ran: it is idle.
	void probe(uint64_t cycle)
	{
		if (busy() || in_.rst) {
			snap_valid_ = false;
			quiescent_ = false;
			return;
		}
		if (cycle % clock_mhz_ != 1 % clock_mhz_)
			return;
		if (snap_valid_ && !std::memcmp(snap_.data(), model_->state(), snap_.size())) {
			quiescent_ = true;
			return;
		}
		std::memcpy(snap_.data(), model_->state(), snap_.size());
		snap_valid_ = true;
	}

	void count_write(uint32_t off)
	{
		counters_[DEVSERVER_CNT_MMIO_WR]++;
		if (off >= NIC_REG_QP_DB_BASE && off < NIC_REG_CQ_DB_BASE) {
			const uint32_t in_page = off & ((1u << NIC_DB_PAGE_SHIFT) - 1);
			if (in_page == NIC_DB_SQ_PI)
				counters_[DEVSERVER_CNT_SQ_DB]++;
			else if (in_page == NIC_DB_RQ_PI)
				counters_[DEVSERVER_CNT_RQ_DB]++;
		} else if (off >= NIC_REG_CQ_DB_BASE && off < NIC_REG_MSIX_TABLE) {
			counters_[DEVSERVER_CNT_CQ_DB]++;
		}
	}

	// AXI4 INCR burst: beat i covers [base + i * size, base + (i + 1) * size), base the start
	// aligned down to the beat size; bytes below the start address carry no data. The data is
	// read when the request arrives (the device's view at that moment).
	void accept_read(const Outputs &o)
	{
		DmaRead r{};
		r.id = o.arid;
		r.addr = o.araddr;
		r.beats = o.arlen + 1;
		r.beat_bytes = 1u << o.arsize;
		r.base = o.araddr & ~(uint64_t)(r.beat_bytes - 1);
		const uint64_t first = r.addr & ~(uint64_t)(bus_ - 1);
		const uint64_t end = r.base + (uint64_t)r.beats * r.beat_bytes;
		r.data.assign(end - first + bus_, 0);
		const uint8_t *src = guest(r.addr, end - r.addr);
		if (src) {
			std::memcpy(r.data.data() + (r.addr - first), src, end - r.addr);
			counters_[DEVSERVER_CNT_DMA_RD]++;
			counters_[DEVSERVER_CNT_DMA_RD_B] += end - r.addr;
		} else {
			r.refused = true;
			refused("read", r.addr, end - r.addr);
		}
		reads_.push_back(std::move(r));
	}

	// A complete burst lands in guest RAM (or is an MSI-X message, or is refused); its B
	// response code.
	uint32_t finish_write(const DmaWrite &w)
	{
		const uint64_t first = w.base & ~(uint64_t)(bus_ - 1);
		uint64_t lo = ~0ull, hi = 0;
		for (size_t i = 0; i < w.strb.size(); i++)
			if (w.strb[i]) {
				lo = std::min<uint64_t>(lo, first + i);
				hi = first + i + 1;
			}
		if (hi == 0)
			return 0; // no byte enabled
		if (is_msix(lo)) {
			counters_[DEVSERVER_CNT_MSIX]++;
			uint32_t data = 0;
			std::memcpy(&data, &w.data[lo - first], std::min<uint64_t>(4, hi - lo));
			if (counters_[DEVSERVER_CNT_MSIX] <= kMaxRefusedNotes)
				note("MSI-X message 0x%08x to 0x%llx (counted, not delivered)",
				     data, (unsigned long long)lo);
			return 0;
		}
		uint8_t *dst = guest(lo, hi - lo);
		if (!dst) {
			refused("write", lo, hi - lo);
			return 2; // SLVERR
		}
		for (uint64_t a = lo; a < hi; a++)
			if (w.strb[a - first])
				dst[a - lo] = w.data[a - first];
		counters_[DEVSERVER_CNT_DMA_WR]++;
		counters_[DEVSERVER_CNT_DMA_WR_B] += hi - lo;
		return 0;
	}

	const unsigned width_, bus_;
	const uint32_t clock_mhz_;
	std::unique_ptr<VerilatedContext> ctx_;
	std::unique_ptr<Model> model_;
	std::unique_ptr<nicnet::Network> net_;
	Outputs out_{};
	Inputs in_{};
	uint8_t cfg_[256] = {};
	uint32_t bar0_ = 0;
	unsigned msix_vectors_ = 0;
	std::vector<GuestRam> ram_;
	std::deque<MmioOp> mmio_;
	bool mmio_busy_ = false;
	uint64_t reads_issued_ = 0, reads_done_ = 0;
	uint32_t read_value_ = 0;
	std::deque<DmaRead> reads_;
	std::deque<DmaWrite> writes_;
	std::deque<std::pair<uint32_t, uint32_t>> b_queue_; // {id, resp}
	int64_t frames_in_flight_ = 0;
	std::vector<uint8_t> snap_;
	bool snap_valid_ = false, quiescent_ = false;
	uint64_t counters_[DEVSERVER_NUM_COUNTERS] = {};
	uint64_t latched_[DEVSERVER_NUM_COUNTERS] = {};
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
	unsigned width = 256;
	uint32_t clock_mhz = 250;
	const char *pcap = nullptr;
	if (const char *e = getenv("NDK_SIM_WIDTH"); e && *e)
		width = (unsigned)std::strtoul(e, nullptr, 0);
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
	Device dev(width, clock_mhz, pcap);

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
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
