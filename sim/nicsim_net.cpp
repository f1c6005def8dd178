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
#include <cmath>
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

uint64_t splitmix64(uint64_t &x)
{
	uint64_t z = (x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

// A held frame that fewer later frames pass than it waits for still arrives after this many
// cycles per frame it waited for (at least, one link latency per frame): a link that falls
// silent does not hold a frame forever.
constexpr uint64_t kMinHoldStepCycles = 64;

// The bytes a corruption may hit: those the receiver's checks cover (docs/bad-input.md). In a
// RoCEv2 frame everything after the Ethernet header (IPv4 header checksum, lengths, ICRC) but
// the two fields neither covers: the UDP checksum (masked in the ICRC, 0 on the wire) and the
// BTH byte the ICRC masks. The Ethernet header is left alone: the switch already chose the
// port, and the frame carries no FCS that would catch it. Any other frame: every byte after the
// Ethernet header (all of a bare header).
struct CorruptSpan {
	size_t first;
	size_t skip[3]; // byte offsets left out (SIZE_MAX: none), increasing
};

CorruptSpan corrupt_span(const std::vector<uint8_t> &b)
{
	constexpr size_t kUdpChecksum = 14 + 20 + 6, kBthResv8a = 14 + 20 + 8 + 4;
	CorruptSpan s{ 14, { SIZE_MAX, SIZE_MAX, SIZE_MAX } };
	if (b.size() <= 14)
		s.first = 0;
	const bool roce = b.size() >= 14 + 20 + 8 + 12 + 4 && b[12] == 0x08 && b[13] == 0x00 &&
			  b[14] == 0x45 && b[23] == 17 && b[36] == 0x12 && b[37] == 0xb7;
	if (roce) {
		s.skip[0] = kUdpChecksum;
		s.skip[1] = kUdpChecksum + 1;
		s.skip[2] = kBthResv8a;
	}
	return s;
}

} // namespace

void Rng::seed(uint64_t seed)
{
	uint64_t x = seed;
	for (uint64_t &w : s_)
		w = splitmix64(x);
}

uint64_t Rng::next()
{
	const uint64_t result = rotl(s_[1] * 5, 7) * 9;
	const uint64_t t = s_[1] << 17;
	s_[2] ^= s_[0];
	s_[3] ^= s_[1];
	s_[1] ^= s_[2];
	s_[0] ^= s_[3];
	s_[2] ^= t;
	s_[3] = rotl(s_[3], 45);
	return result;
}

const char *Network::check(const Config &c)
{
	const struct {
		const char *name;
		double rate;
	} rates[] = { { "drop_rate", c.faults.drop },
		      { "corrupt_rate", c.faults.corrupt },
		      { "duplicate_rate", c.faults.duplicate },
		      { "reorder_rate", c.faults.reorder } };
	static thread_local char msg[128];
	for (const auto &r : rates)
		if (!(r.rate >= 0.0 && r.rate <= 1.0)) { // NaN fails both
			std::snprintf(msg, sizeof(msg),
				      "%s %g is not a probability (0 to 1, per frame)", r.name,
				      r.rate);
			return msg;
		}
	if (c.faults.reorder > 0 && c.faults.reorder_depth == 0)
		return "reorder_depth 0 with reorder_rate above 0: a reordered frame must be held"
		       " behind at least 1 later frame";
	return nullptr;
}

Network::Network(const Config &config)
	: cfg_(config)
	, ports_(config.ports)
	, links_((size_t)config.ports * config.ports)
	, faults_on_(config.faults.any())
{
	// one stream per direction of every link, from the world's seed and the link's ends, so
	// what happens on one link never depends on the traffic of another
	for (unsigned from = 0; from < config.ports; from++)
		for (unsigned to = 0; to < config.ports; to++) {
			uint64_t x = config.seed ^ ((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^
				     0x6e646b6e69632d6eull; // "ndknic-n"
			link(from, to).rng.seed(splitmix64(x));
		}
	hold_cycles_ = config.link_cycles > kMinHoldStepCycles ? config.link_cycles :
								 kMinHoldStepCycles;
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
	stats->faults_dropped += ports_[port].faults_dropped;
	stats->faults_corrupted += ports_[port].faults_corrupted;
	stats->faults_duplicated += ports_[port].faults_duplicated;
	stats->faults_reordered += ports_[port].faults_reordered;
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

// The random fate of one frame. Every frame takes the same six draws from its link's stream,
// whatever the rates, so a seed gives every frame the same numbers at any rates: raising a rate
// only adds faults. The kinds are tried in the order drop, corrupt, duplicate, reorder; the
// first that hits decides (so with several rates on, a later kind's share of all frames is its
// rate times the chance that none before it hit).
enum nicsim_fault Network::draw(Link &l, const std::vector<uint8_t> &bytes, uint32_t *hold,
				size_t *bit)
{
	const Faults &f = cfg_.faults;
	const double u_drop = l.rng.uniform(), u_corrupt = l.rng.uniform();
	const double u_duplicate = l.rng.uniform(), u_reorder = l.rng.uniform();
	const uint64_t r_bit = l.rng.next(), r_hold = l.rng.next();
	*hold = f.reorder_depth ? 1 + (uint32_t)(r_hold % f.reorder_depth) : 1;
	const CorruptSpan span = corrupt_span(bytes);
	size_t skipped = 0;
	for (size_t k : span.skip)
		skipped += k != SIZE_MAX;
	const size_t nbits = (bytes.size() - span.first - skipped) * 8;
	size_t b = span.first * 8 + (size_t)(r_bit % nbits);
	for (size_t k : span.skip) // step over the bytes left out
		if (k != SIZE_MAX && b >= k * 8)
			b += 8;
	*bit = b;
	if (u_drop < f.drop)
		return NICSIM_FRAME_DROP;
	if (u_corrupt < f.corrupt)
		return NICSIM_FRAME_CORRUPT;
	if (u_duplicate < f.duplicate)
		return NICSIM_FRAME_DUPLICATE;
	if (u_reorder < f.reorder)
		return NICSIM_FRAME_REORDER;
	return NICSIM_FRAME_DELIVER;
}

// A frame reaches the RX queue of port d through link l: it passes every frame l holds back.
void Network::arrive(unsigned d, Link &l, Frame &&f)
{
	const uint64_t when = f.when;
	ports_[d].rx_queue.push_back(std::move(f));
	pass(d, l, l.held.size(), when);
}

// A frame newer than the first `older` frames held on l (the oldest first) arrived at port d:
// each of them has been passed once more. Those passed as often as they wait for arrive right
// behind it, and each of those passes the frames held before it: a held frame is passed by
// exactly its count of later frames, never more.
void Network::pass(unsigned d, Link &l, size_t older, uint64_t when)
{
	for (size_t i = 0; i < older; i++)
		l.held[i].left--;
	for (;;) {
		size_t i = 0;
		while (i < l.held.size() && l.held[i].left)
			i++;
		if (i == l.held.size())
			return;
		Frame f = std::move(l.held[i].frame);
		l.held.erase(l.held.begin() + (std::ptrdiff_t)i);
		held_--;
		f.when = when;
		ports_[d].rx_queue.push_back(std::move(f));
		for (size_t j = 0; j < i; j++)
			l.held[j].left--;
	}
}

// Held frames whose deadline came arrive now (links in order: deterministic), passing the
// frames held before them.
void Network::release_due(uint64_t now)
{
	const unsigned n = (unsigned)ports_.size();
	for (unsigned from = 0; from < n; from++)
		for (unsigned to = 0; to < n; to++) {
			Link &l = link(from, to);
			for (size_t i = 0; i < l.held.size();) {
				if (l.held[i].deadline > now) {
					i++;
					continue;
				}
				Frame f = std::move(l.held[i].frame);
				l.held.erase(l.held.begin() + (std::ptrdiff_t)i);
				held_--;
				f.when = now;
				ports_[to].rx_queue.push_back(std::move(f));
				pass(to, l, i, now);
				i = 0; // passing may have released others: look again
			}
		}
}

// The frame's last byte left port i: count, capture, switch (and the faults on its way).
const char *Network::leave(unsigned i, Frame &&f)
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
		return nullptr;
	}
	f.when += cfg_.link_cycles;
	Link &l = link(i, (unsigned)d);
	if (!faults_on_ && !hook_fn_) {
		arrive((unsigned)d, l, std::move(f));
		return nullptr;
	}
	uint32_t hold = 1;
	size_t bit = 0;
	enum nicsim_fault fate = NICSIM_FRAME_DELIVER;
	fate = draw(l, f.bytes, &hold, &bit); // DELIVER when only the hook is on
	if (hook_fn_) {
		fate = hook_fn_(hook_arg_, i, (unsigned)d, f.bytes.data(), f.bytes.size());
		if ((unsigned)fate > NICSIM_FRAME_REORDER)
			return fail("the fault hook answered %d for a frame from NIC %u to NIC %u:"
				    " not an enum nicsim_fault",
				    (int)fate, i, d);
	}
	switch (fate) {
	case NICSIM_FRAME_DELIVER:
		arrive((unsigned)d, l, std::move(f));
		break;
	case NICSIM_FRAME_DROP:
		p.faults_dropped++;
		frames_--;
		break;
	case NICSIM_FRAME_CORRUPT:
		p.faults_corrupted++;
		f.bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		arrive((unsigned)d, l, std::move(f));
		break;
	case NICSIM_FRAME_DUPLICATE: {
		p.faults_duplicated++;
		frames_++;
		Frame copy = f;
		arrive((unsigned)d, l, std::move(f));
		arrive((unsigned)d, l, std::move(copy));
		break;
	}
	case NICSIM_FRAME_REORDER: {
		p.faults_reordered++;
		const uint64_t deadline = f.when + (uint64_t)hold * hold_cycles_;
		l.held.push_back(Link::Held{ std::move(f), hold, deadline });
		held_++;
		break;
	}
	}
	return nullptr;
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
			if (const char *e = leave(i, std::move(f)))
				return e;
		}
	}
	if (held_)
		release_due(now);
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
	nc.seed = config->seed;
	nc.faults.drop = config->drop_rate;
	nc.faults.corrupt = config->corrupt_rate;
	nc.faults.duplicate = config->duplicate_rate;
	nc.faults.reorder = config->reorder_rate;
	nc.faults.reorder_depth = config->reorder_depth;
	if (const char *why = nicnet::Network::check(nc)) {
		std::fprintf(stderr, "nicsim: %s\n", why);
		return -EINVAL;
	}
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

void nicsim_net_set_fault_hook(struct nicsim_net *net, nicsim_fault_fn fn, void *arg)
{
	net->net->set_fault_hook(fn, arg);
}

void nicsim_net_get_stats(const struct nicsim_net *net, unsigned port, struct nicsim_stats *stats)
{
	std::memset(stats, 0, sizeof(*stats));
	net->net->add_stats(port, stats);
}

} // extern "C"
