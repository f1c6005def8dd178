// SPDX-License-Identifier: MIT
//
// nicsim's network, internal to the harness (sim/nicsim.cpp drives it; nicsim.h is the C API):
// the link model of every TX port, the switch (or the loopback of a one-NIC world), the RX ports,
// the pcap capture and the frame statistics. docs/transport.md ("The harness's network") is the
// contract; docs/timing-model.md gives the timing, cycle by cycle.
//
// Once per cycle, after the rising edge, Network::cycle(now) takes the stream handshakes of that
// edge from the pins sampled before it (StreamOut) and the inputs driven for it (StreamIn), moves
// frames along, and computes the StreamIn every DUT sees at the next edge.
//
// Faults (docs/bad-input.md "The network's faults"): when a frame's last byte leaves its sender
// and the switch has found its destination, the frame's fate is drawn from the random stream of
// its link (sender, receiver: one stream per direction, seeded from the world's seed) and then
// handed to the fault hook, whose answer replaces it. Off (all rates 0, no hook), nothing of
// this runs and the network is the perfect one it always was.
#ifndef NICSIM_NET_H
#define NICSIM_NET_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "nicsim.h"

namespace nicnet
{

constexpr unsigned kMaxBusBytes = 32;	     // DataWidth 256
constexpr size_t kMinFrameBytes = 14;	     // an Ethernet header
constexpr size_t kMaxFrameBytes = 16384;     // beyond any MTU: a TX frame without TLAST is a bug
constexpr uint32_t kDefaultLinkMbps = 12500; // 100 Gb/s

// The stream pins of one NIC: sampled from the DUT before the rising edge (StreamOut), and
// driven into it (StreamIn). C structs of nicsim.h, so tests can play the DUT.
using StreamOut = nicsim_stream_out;
using StreamIn = nicsim_stream_in;
static_assert(sizeof(StreamOut::tx_tdata) == kMaxBusBytes &&
		      sizeof(StreamIn::rx_tdata) == kMaxBusBytes,
	      "stream pins hold one beat of the widest bus");

struct Frame {
	std::vector<uint8_t> bytes;
	uint64_t when; // on the wire: the cycle its last byte leaves; in an RX queue: when it arrives
};

struct Port {
	const StreamOut *out = nullptr;
	StreamIn *in = nullptr;
	// TX: the frame the DUT is streaming, the link's work in hand, frames on the wire
	std::vector<uint8_t> tx_frame;
	uint64_t backlog = 0; // ticks of serialization left at the start of the cycle (see .cpp)
	std::deque<std::vector<uint8_t>> injected; // nicsim_port_inject, waiting for the link
	std::deque<Frame> on_wire;		   // complete, last byte not yet gone; in order
	// RX: frames that arrived or will, in order; the head is being offered beat by beat
	std::deque<Frame> rx_queue;
	size_t rx_offset = 0;	       // bytes of the head the DUT accepted
	std::vector<uint8_t> rx_frame; // those bytes, as the accepted beats carried them
	uint64_t frames_sent = 0, frames_received = 0, frames_dropped = 0;
	// faults injected on the frames this port sent
	uint64_t faults_dropped = 0, faults_corrupted = 0, faults_duplicated = 0,
		 faults_reordered = 0;
};

// The fault rates of the links, validated by Network::check.
struct Faults {
	double drop = 0, corrupt = 0, duplicate = 0, reorder = 0;
	uint32_t reorder_depth = 4;
	bool any() const
	{
		return drop > 0 || corrupt > 0 || duplicate > 0 || reorder > 0;
	}
};

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: one stream per link direction.
class Rng {
    public:
	void seed(uint64_t seed);
	uint64_t next();
	double uniform() // [0, 1), 53 bits
	{
		return (double)(next() >> 11) * 0x1.0p-53;
	}

    private:
	uint64_t s_[4] = {};
};

// One direction of a link through the switch (sender -> receiver): its random stream and the
// frames reordering holds back.
struct Link {
	struct Held {
		Frame frame;	   // `when`: the cycle it would have arrived
		uint32_t left;	   // later frames of this link still to pass it
		uint64_t deadline; // it arrives by then anyway (a link that falls silent)
	};
	Rng rng;
	std::deque<Held> held; // in the order they were held
};

class Network {
    public:
	struct Config {
		unsigned ports;
		unsigned bus_bytes; // DataWidth / 8
		uint32_t clock_mhz;
		uint32_t link_mbps;
		uint64_t link_cycles; // link_ns in cycles
		uint64_t seed;
		Faults faults;
	};
	// nullptr, or why the config cannot make a network
	static const char *check(const Config &config);

	explicit Network(const Config &config);
	~Network();
	Network(const Network &) = delete;
	Network &operator=(const Network &) = delete;

	// 0, or -errno with the reason printed on stderr
	int open_pcap(const char *path);
	int flush_pcap();
	const char *pcap_path() const
	{
		return pcap_ ? pcap_path_.c_str() : nullptr;
	}

	// the pins of port i; they live in the NIC's state, which outlives the network
	void attach(unsigned port, const StreamOut *out, StreamIn *in);
	int inject(unsigned port, const uint8_t *bytes, size_t len);
	void set_frame_handler(nicsim_frame_fn fn, void *ctx)
	{
		frame_fn_ = fn;
		frame_ctx_ = ctx;
	}
	void set_fault_hook(nicsim_fault_fn fn, void *arg)
	{
		hook_fn_ = fn;
		hook_arg_ = arg;
	}
	void add_stats(unsigned port, nicsim_stats *stats) const;

	// One cycle. Returns nullptr, or the message of a fatal protocol error of the DUT.
	const char *cycle(uint64_t now)
	{
		if (frames_ == 0 && !any_tx_activity())
			return nullptr; // nothing in flight: the pins already say "idle, ready"
		return busy_cycle(now);
	}

    private:
	bool any_tx_activity() const
	{
		for (const Port &p : ports_)
			if (p.out->tx_tvalid || p.backlog || !p.tx_frame.empty())
				return true;
		return false;
	}
	const char *busy_cycle(uint64_t now);
	const char *fail(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	const char *tx_handshake(unsigned i, uint64_t now);
	void rx_handshake(unsigned i, uint64_t now);
	void put_on_wire(Port &p, std::vector<uint8_t> &&bytes, uint64_t now);
	const char *leave(unsigned i, Frame &&f);
	enum nicsim_fault draw(Link &l, const std::vector<uint8_t> &bytes, uint32_t *hold,
			       size_t *bit);
	void arrive(unsigned d, Link &l, Frame &&f);
	void pass(unsigned d, Link &l, size_t older, uint64_t when);
	void release_due(uint64_t now);
	Link &link(unsigned from, unsigned to)
	{
		return links_[(size_t)from * ports_.size() + to];
	}
	void drive_rx(Port &p, uint64_t now);
	int destination(unsigned from, const std::vector<uint8_t> &bytes) const;
	void capture(const Frame &f);
	void event(nicsim_frame_event e, unsigned port, uint64_t cycle, const uint8_t *bytes,
		   size_t len)
	{
		if (frame_fn_)
			frame_fn_(frame_ctx_, e, port, cycle, bytes, len);
	}

	Config cfg_;
	std::vector<Port> ports_;
	std::vector<Link> links_;  // [from * ports + to]
	bool faults_on_ = false;   // a rate above 0: draw a fate for every frame
	uint64_t held_ = 0;	   // frames held back by reordering, on every link
	uint64_t hold_cycles_ = 0; // the longest a held frame waits per step of reorder_depth
	nicsim_fault_fn hook_fn_ = nullptr;
	void *hook_arg_ = nullptr;
	uint64_t frames_ = 0; // frames anywhere: injected, on a wire, in an RX queue
	std::string error_;
	nicsim_frame_fn frame_fn_ = nullptr;
	void *frame_ctx_ = nullptr;
	FILE *pcap_ = nullptr;
	std::string pcap_path_;
	int pcap_err_ = 0; // -errno of the first write error; the capture stopped there
};

} // namespace nicnet

#endif // NICSIM_NET_H
