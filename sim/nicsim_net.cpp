// SPDX-License-Identifier: MIT
//
// nicsim's network: see nicsim_net.h, docs/transport.md ("The harness's network") and
// docs/timing-model.md ("The network").
//
// Time on a link is counted in ticks: one cycle is link_mbps ticks and one byte takes clock_mhz
// ticks, so bytes per cycle = link_mbps / clock_mhz exactly, with no rounding until a frame's
// last byte leaves: that happens in cycle now + ceil(backlog / link_mbps), where backlog is the
// link's work in hand (ticks) counted from the start of cycle `now`. A TX beat accepted at the
// edge of cycle `now` (or an injected frame taken in cycle `now`) joins the backlog then; the
// harness accepts the next beat only while less than one cycle of work is left, so a link slower
// than the stream back-pressures it without ever idling, and a faster one never does.

#include "nicsim_net.h"

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <memory>
#include <utility>

namespace nicnet
{

namespace
{

constexpr uint32_t kPcapMagicNs = 0xa1b23c4d; // classic pcap, nanosecond timestamps
constexpr uint32_t kPcapSnaplen = 65535;
constexpr uint32_t kLinktypeEthernet = 1;

void put32(uint8_t *p, uint32_t v)
{
	std::memcpy(p, &v, 4); // pcap files are in the writer's byte order (the magic tells)
}

void put16(uint8_t *p, uint16_t v)
{
	std::memcpy(p, &v, 2);
}

uint32_t keep_mask(unsigned bytes)
{
	return bytes >= 32 ? 0xffffffffu : (1u << bytes) - 1;
}

} // namespace

Network::Network(const Config &config)
	: cfg_(config)
	, ports_(config.ports)
{
}

Network::~Network()
{
	if (!pcap_)
		return;
	flush_pcap();
	if (std::fclose(pcap_) != 0 && !pcap_err_)
		std::fprintf(stderr, "nicsim: closing the pcap capture %s failed: %s\n",
			     pcap_path_.c_str(), std::strerror(errno));
}

int Network::open_pcap(const char *path)
{
	FILE *f = std::fopen(path, "wb");
	if (!f) {
		const int err = errno ? errno : EIO;
		std::fprintf(stderr, "nicsim: cannot create the pcap file %s: %s\n", path,
			     std::strerror(err));
		return -err;
	}
	pcap_ = f;
	pcap_path_ = path;
	uint8_t h[24];
	put32(h + 0, kPcapMagicNs);
	put16(h + 4, 2); // version 2.4
	put16(h + 6, 4);
	put32(h + 8, 0); // thiszone: timestamps are simulated time since the world was created
	put32(h + 12, 0);
	put32(h + 16, kPcapSnaplen);
	put32(h + 20, kLinktypeEthernet);
	if (std::fwrite(h, sizeof(h), 1, f) != 1) {
		const int err = errno ? errno : EIO;
		std::fprintf(stderr, "nicsim: cannot write the pcap file %s: %s\n", path,
			     std::strerror(err));
		std::fclose(f);
		pcap_ = nullptr;
		return -err;
	}
	return 0;
}

int Network::flush_pcap()
{
	if (!pcap_)
		return 0;
	if (!pcap_err_ && std::fflush(pcap_) != 0) {
		pcap_err_ = -(errno ? errno : EIO);
		std::fprintf(
			stderr,
			"nicsim: writing the pcap capture %s failed: %s; the capture stops here\n",
			pcap_path_.c_str(), std::strerror(-pcap_err_));
	}
	return pcap_err_;
}

void Network::capture(const Frame &f)
{
	if (!pcap_ || pcap_err_)
		return;
	// simulated time in ns (whole ns: exact at clocks that divide 1000 MHz)
	const uint64_t ns = f.when * 1000 / cfg_.clock_mhz;
	uint8_t h[16];
	put32(h + 0, (uint32_t)(ns / 1000000000u));
	put32(h + 4, (uint32_t)(ns % 1000000000u));
	put32(h + 8, (uint32_t)f.bytes.size());
	put32(h + 12, (uint32_t)f.bytes.size());
	if (std::fwrite(h, sizeof(h), 1, pcap_) != 1 ||
	    std::fwrite(f.bytes.data(), f.bytes.size(), 1, pcap_) != 1) {
		pcap_err_ = -(errno ? errno : EIO);
		std::fprintf(
			stderr,
			"nicsim: writing the pcap capture %s failed at cycle %llu: %s; the capture"
			" stops here\n",
			pcap_path_.c_str(), (unsigned long long)f.when, std::strerror(-pcap_err_));
	}
}

const char *Network::fail(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error_ = msg;
	return error_.c_str();
}

void Network::attach(unsigned port, const StreamOut *out, StreamIn *in)
{
	Port &p = ports_[port];
	p.out = out;
	p.in = in;
	// the idle state every busy cycle ends in (so idle cycles can skip the network)
	in->tx_tready = true;
	in->rx_tvalid = false;
	in->rx_tlast = false;
	in->rx_tkeep = 0;
}

int Network::inject(unsigned port, const uint8_t *bytes, size_t len)
{
	if (port >= ports_.size() || !bytes || len < kMinFrameBytes || len > kMaxFrameBytes)
		return -EINVAL;
	ports_[port].injected.emplace_back(bytes, bytes + len);
	frames_++;
	return 0;
}

void Network::add_stats(unsigned port, nicsim_stats *stats) const
{
	if (port >= ports_.size())
		return;
	stats->frames_sent += ports_[port].frames_sent;
	stats->frames_received += ports_[port].frames_received;
	stats->frames_dropped += ports_[port].frames_dropped;
}

// docs/transport.md: NIC i has the MAC 02:00:00:00:00:(i+1). One NIC: its port is looped back.
int Network::destination(unsigned from, const std::vector<uint8_t> &bytes) const
{
	if (ports_.size() == 1)
		return (int)from;
	static const uint8_t prefix[5] = { 0x02, 0, 0, 0, 0 };
	if (std::memcmp(bytes.data(), prefix, sizeof(prefix)) != 0 || bytes[5] == 0 ||
	    bytes[5] > ports_.size())
		return -1;
	return bytes[5] - 1;
}

void Network::put_on_wire(Port &p, std::vector<uint8_t> &&bytes, uint64_t now)
{
	const uint64_t L = cfg_.link_mbps;
	p.on_wire.push_back(Frame{ std::move(bytes), now + (p.backlog + L - 1) / L });
}

// The frame's last byte left port i: count, capture, switch.
void Network::leave(unsigned i, Frame &&f)
{
	Port &p = ports_[i];
	p.frames_sent++;
	capture(f);
	event(NICSIM_FRAME_SENT, i, f.when, f.bytes.data(), f.bytes.size());
	const int d = destination(i, f.bytes);
	if (d < 0) {
		p.frames_dropped++;
		frames_--;
		event(NICSIM_FRAME_DROPPED, i, f.when, f.bytes.data(), f.bytes.size());
		return;
	}
	f.when += cfg_.link_cycles;
	ports_[d].rx_queue.push_back(std::move(f));
}

const char *Network::tx_handshake(unsigned i, uint64_t now)
{
	Port &p = ports_[i];
	const StreamOut &o = *p.out;
	if (!o.tx_tvalid || !p.in->tx_tready)
		return nullptr;
	const uint32_t full = keep_mask(cfg_.bus_bytes);
	const uint32_t keep = o.tx_tkeep & full;
	if (keep == 0 || ((uint64_t)keep & ((uint64_t)keep + 1)) != 0)
		return fail(
			"NIC %u TX beat with TKEEP 0x%x: the valid bytes must be contiguous from"
			" byte 0",
			i, keep);
	if (!o.tx_tlast && keep != full)
		return fail("NIC %u TX beat with TKEEP 0x%x before TLAST: only a frame's last beat"
			    " may be partial",
			    i, keep);
	const unsigned n = (unsigned)__builtin_popcount(keep);
	p.tx_frame.insert(p.tx_frame.end(), o.tx_tdata, o.tx_tdata + n);
	p.backlog += (uint64_t)n * cfg_.clock_mhz;
	if (p.tx_frame.size() > kMaxFrameBytes)
		return fail("NIC %u streamed %zu bytes without TLAST", i, p.tx_frame.size());
	if (o.tx_tlast) {
		if (p.tx_frame.size() < kMinFrameBytes)
			return fail("NIC %u sent a frame of %zu bytes: shorter than an Ethernet"
				    " header",
				    i, p.tx_frame.size());
		frames_++;
		put_on_wire(p, std::move(p.tx_frame), now);
		p.tx_frame.clear();
	}
	return nullptr;
}

void Network::rx_handshake(unsigned i, uint64_t now)
{
	Port &p = ports_[i];
	const StreamIn &in = *p.in;
	if (!in.rx_tvalid || !p.out->rx_tready)
		return;
	for (unsigned lane = 0; lane < cfg_.bus_bytes; lane++)
		if (in.rx_tkeep >> lane & 1)
			p.rx_frame.push_back(in.rx_tdata[lane]);
	p.rx_offset += (size_t)__builtin_popcount(in.rx_tkeep);
	if (!in.rx_tlast)
		return;
	p.frames_received++;
	event(NICSIM_FRAME_RECEIVED, i, now, p.rx_frame.data(), p.rx_frame.size());
	p.rx_queue.pop_front();
	p.rx_offset = 0;
	p.rx_frame.clear();
	frames_--;
}

// Offer the head of the RX queue, one beat per cycle, from the cycle it arrives.
void Network::drive_rx(Port &p, uint64_t now)
{
	StreamIn &in = *p.in;
	if (p.rx_queue.empty() || p.rx_queue.front().when > now) {
		in.rx_tvalid = false;
		in.rx_tlast = false;
		in.rx_tkeep = 0;
		return;
	}
	const std::vector<uint8_t> &b = p.rx_queue.front().bytes;
	const size_t left = b.size() - p.rx_offset;
	const unsigned n = left < cfg_.bus_bytes ? (unsigned)left : cfg_.bus_bytes;
	std::memcpy(in.rx_tdata, b.data() + p.rx_offset, n);
	std::memset(in.rx_tdata + n, 0, kMaxBusBytes - n);
	in.rx_tvalid = true;
	in.rx_tlast = n == left;
	in.rx_tkeep = keep_mask(n);
}

const char *Network::busy_cycle(uint64_t now)
{
	const uint64_t L = cfg_.link_mbps;
	const unsigned nports = (unsigned)ports_.size();
	// frames whose last byte left by now reach the switch (in port order: deterministic)
	for (unsigned i = 0; i < nports; i++) {
		Port &p = ports_[i];
		while (!p.on_wire.empty() && p.on_wire.front().when <= now) {
			Frame f = std::move(p.on_wire.front());
			p.on_wire.pop_front();
			leave(i, std::move(f));
		}
	}
	// the handshakes of this edge; an injected frame takes an idle link between RTL frames
	for (unsigned i = 0; i < nports; i++) {
		Port &p = ports_[i];
		rx_handshake(i, now);
		if (const char *e = tx_handshake(i, now))
			return e;
		if (p.tx_frame.empty() && !p.injected.empty() && p.backlog < L) {
			p.backlog += (uint64_t)p.injected.front().size() * cfg_.clock_mhz;
			put_on_wire(p, std::move(p.injected.front()), now);
			p.injected.pop_front();
		}
	}
	// the inputs of the next edge: the link has served one more cycle
	for (unsigned i = 0; i < nports; i++) {
		Port &p = ports_[i];
		p.backlog = p.backlog > L ? p.backlog - L : 0;
		// an injected frame waiting goes before the RTL's next frame
		p.in->tx_tready = p.backlog < L && (!p.tx_frame.empty() || p.injected.empty());
		drive_rx(p, now);
	}
	return nullptr;
}

} // namespace nicnet

// ---- the network alone (nicsim.h): the test plays the NICs' stream ports ---------------------

struct nicsim_net {
	std::vector<nicsim_stream_out> outs;
	std::vector<nicsim_stream_in> ins;
	std::unique_ptr<nicnet::Network> net;
};

extern "C" {

int nicsim_net_create(const struct nicsim_config *config, struct nicsim_net **out)
{
	if (!config || !out || config->nics < 1 || config->nics > 64 || !config->clock_mhz ||
	    (config->data_width != 64 && config->data_width != 256))
		return -EINVAL;
	auto n = std::make_unique<nicsim_net>();
	nicnet::Network::Config nc;
	nc.ports = config->nics;
	nc.bus_bytes = config->data_width / 8;
	nc.clock_mhz = config->clock_mhz;
	nc.link_mbps = config->link_mbps ? config->link_mbps : nicnet::kDefaultLinkMbps;
	nc.link_cycles = ((uint64_t)config->link_ns * config->clock_mhz + 999) / 1000;
	n->net = std::make_unique<nicnet::Network>(nc);
	if (config->pcap_path && config->pcap_path[0] && n->net->open_pcap(config->pcap_path))
		return -EINVAL;
	n->outs.assign(config->nics, nicsim_stream_out{});
	n->ins.assign(config->nics, nicsim_stream_in{});
	for (unsigned i = 0; i < config->nics; i++)
		n->net->attach(i, &n->outs[i], &n->ins[i]);
	*out = n.release();
	return 0;
}

void nicsim_net_destroy(struct nicsim_net *net)
{
	delete net;
}

struct nicsim_stream_out *nicsim_net_port_out(struct nicsim_net *net, unsigned port)
{
	return port < net->outs.size() ? &net->outs[port] : nullptr;
}

const struct nicsim_stream_in *nicsim_net_port_in(const struct nicsim_net *net, unsigned port)
{
	return port < net->ins.size() ? &net->ins[port] : nullptr;
}

const char *nicsim_net_cycle(struct nicsim_net *net, uint64_t cycle)
{
	return net->net->cycle(cycle);
}

int nicsim_net_inject(struct nicsim_net *net, unsigned port, const uint8_t *bytes, size_t len)
{
	return net->net->inject(port, bytes, len);
}

void nicsim_net_set_frame_handler(struct nicsim_net *net, nicsim_frame_fn fn, void *ctx)
{
	net->net->set_frame_handler(fn, ctx);
}

void nicsim_net_get_stats(const struct nicsim_net *net, unsigned port, struct nicsim_stats *stats)
{
	std::memset(stats, 0, sizeof(*stats));
	net->net->add_stats(port, stats);
}

} // extern "C"
