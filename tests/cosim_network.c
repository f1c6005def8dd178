// SPDX-License-Identifier: MIT
/*
 * The simulated network (docs/transport.md "The harness's network", docs/timing-model.md "The
 * network"), checked cycle by cycle:
 *   network         worlds of Verilated NICs; frames put on the wire with nicsim_port_inject
 *                   (the RTL does not transmit yet): loopback, switch, link timing, order
 *   network_link    the network alone, the test playing the NICs' stream ports: back-pressure,
 *                   TKEEP rules, RX beats, injected frames between streamed ones
 *   network_pcap    the capture, and tshark's view of roce_ref's frames
 *   network_config  the ndk_sim.h side: defaults, NDK_SIM_PCAP, statistics
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ndk_internal.h"
#include "backend_sim.h" /* the world behind an ndk_sim */
#include "nicsim.h"
#include "nicsim_raw.h"
#include "pcap_check.h"
#include "roce_ref.h"

#define CLOCK_MHZ 250

static unsigned bus_bytes(void)
{
	return raw_width() / 8;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* the cycle a frame of len bytes, alone on an idle link from cycle c, has left the port */
static uint64_t serialized(uint64_t c, size_t len, uint32_t link_mbps)
{
	return c + div_up((uint64_t)len * CLOCK_MHZ, link_mbps);
}

static struct nicsim_config config(unsigned nics, uint32_t link_mbps, uint32_t link_ns,
				   const char *pcap)
{
	struct nicsim_config c = raw_config(nics);
	cr_assert_eq(c.clock_mhz, CLOCK_MHZ);
	c.link_ns = link_ns;
	c.host_memory_bytes = 1 << 20;
	c.cycle_limit = 50000000;
	c.link_mbps = link_mbps;
	c.pcap_path = pcap;
	return c;
}

static struct nicsim *world(unsigned nics, uint32_t link_mbps, uint32_t link_ns, const char *pcap)
{
	struct nicsim_config c = config(nics, link_mbps, link_ns, pcap);
	struct nicsim *w = NULL;
	cr_assert_eq(nicsim_create(&c, &w), 0, "nicsim_create");
	return w;
}

/* ---- frame events ---------------------------------------------------------------------------- */

#define MAX_EVENTS 256
#define MAX_BYTES  2048

struct event {
	enum nicsim_frame_event what;
	unsigned nic;
	uint64_t cycle;
	size_t len;
	uint8_t bytes[MAX_BYTES];
};

struct event_log {
	size_t n;
	struct event ev[MAX_EVENTS];
};

static struct event_log g_log; /* one per test process (Criterion runs each test in its own) */

static void on_frame(void *ctx, enum nicsim_frame_event what, unsigned nic, uint64_t cycle,
		     const uint8_t *bytes, size_t len)
{
	struct event_log *l = ctx;
	struct event *e;

	cr_assert_lt(l->n, MAX_EVENTS, "more frame events than the test expects");
	e = &l->ev[l->n++];
	e->what = what;
	e->nic = nic;
	e->cycle = cycle;
	e->len = len;
	memcpy(e->bytes, bytes, len < MAX_BYTES ? len : MAX_BYTES);
}

static size_t count(const struct event_log *l, enum nicsim_frame_event what)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->ev[i].what == what;
	return n;
}

/* the k-th event (from 0) of that kind */
static const struct event *nth(const struct event_log *l, enum nicsim_frame_event what, size_t k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].what == what && k-- == 0)
			return &l->ev[i];
	cr_assert_fail("no event %d number %zu", what, k);
	return NULL;
}

/* the k-th event (from 0) of that kind on that NIC */
static const struct event *nth_of(const struct event_log *l, enum nicsim_frame_event what,
				  unsigned nic, size_t k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ev[i].what == what && l->ev[i].nic == nic && k-- == 0)
			return &l->ev[i];
	cr_assert_fail("no event %d of NIC %u number %zu", what, nic, k);
	return NULL;
}

/* step the world until `want` events of that kind happened; fail after max cycles */
static void run_until(struct nicsim *w, enum nicsim_frame_event what, size_t want, uint64_t max)
{
	const uint64_t deadline = nicsim_cycle(w) + max;
	while (count(&g_log, what) < want) {
		if (nicsim_cycle(w) > deadline)
			cr_assert_fail("cycle %" PRIu64
				       ": %zu of %zu frame events %d after %" PRIu64 " cycles",
				       nicsim_cycle(w), count(&g_log, what), want, what, max);
		nicsim_step(w, 1);
	}
}

/* An Ethernet frame of len bytes from NIC src to NIC dst's MAC, numbered by seq */
static size_t make_frame(uint8_t *b, unsigned dst, unsigned src, size_t len, unsigned seq)
{
	roce_ref_nic_mac(dst, b);
	roce_ref_nic_mac(src, b + 6);
	b[12] = 0x88; /* EtherType 0x88b5: local experimental */
	b[13] = 0xb5;
	for (size_t i = 14; i < len; i++)
		b[i] = (uint8_t)(seq * 31 + i * 13);
	b[14] = (uint8_t)seq;
	b[15] = (uint8_t)src;
	return len;
}

static void expect_bytes(const struct event *e, const uint8_t *want, size_t len, const char *what)
{
	cr_expect_eq(e->len, len, "%s: %zu bytes, want %zu", what, e->len, len);
	if (e->len == len)
		cr_expect_eq(memcmp(e->bytes, want, len), 0, "%s: bytes differ", what);
}

static struct nicsim_stats stats(struct nicsim *w, unsigned nic)
{
	struct nicsim_stats s;
	nicsim_get_stats(w, nic, &s);
	return s;
}

/* ---- network: worlds of Verilated NICs -------------------------------------------------------- */

Test(network, one_nic_loops_its_port_back_to_itself_whatever_the_destination)
{
	struct nicsim *w = world(1, 12500, 500, NULL);
	uint8_t a[100], b[80];

	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	make_frame(a, 7, 0, sizeof(a), 1); /* a MAC no NIC of this world has */
	make_frame(b, 0, 0, sizeof(b), 2);
	memset(b, 0xff, 6); /* broadcast */
	cr_assert_eq(nicsim_port_inject(w, 0, a, sizeof(a)), 0);
	cr_assert_eq(nicsim_port_inject(w, 0, b, sizeof(b)), 0);
	run_until(w, NICSIM_FRAME_RECEIVED, 2, 10000);
	expect_bytes(nth(&g_log, NICSIM_FRAME_RECEIVED, 0), a, sizeof(a), "first frame");
	expect_bytes(nth(&g_log, NICSIM_FRAME_RECEIVED, 1), b, sizeof(b), "second frame");
	cr_expect_eq(nth(&g_log, NICSIM_FRAME_RECEIVED, 1)->nic, 0);
	cr_expect_eq(stats(w, 0).frames_sent, 2);
	cr_expect_eq(stats(w, 0).frames_received, 2);
	cr_expect_eq(stats(w, 0).frames_dropped, 0);
	nicsim_destroy(w);
}

Test(network, switch_forwards_each_frame_to_the_port_of_its_destination_mac_only)
{
	static const struct {
		unsigned src, dst;
		size_t len;
	} plan[] = { { 0, 2, 64 }, { 1, 0, 333 }, { 2, 1, 90 }, { 0, 1, 1500 }, { 2, 2, 70 } };
	const size_t n = sizeof(plan) / sizeof(plan[0]);
	struct nicsim *w = world(3, 12500, 500, NULL);
	uint8_t frames[5][1500];
	unsigned want_rx[3] = { 0 }, want_tx[3] = { 0 };
	bool seen[5] = { false };

	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	for (size_t k = 0; k < n; k++) {
		make_frame(frames[k], plan[k].dst, plan[k].src, plan[k].len, (unsigned)k);
		cr_assert_eq(nicsim_port_inject(w, plan[k].src, frames[k], plan[k].len), 0);
		want_rx[plan[k].dst]++;
		want_tx[plan[k].src]++;
	}
	run_until(w, NICSIM_FRAME_RECEIVED, n, 20000);
	nicsim_step(w, 2000);
	for (size_t i = 0; i < count(&g_log, NICSIM_FRAME_RECEIVED); i++) {
		const struct event *e = nth(&g_log, NICSIM_FRAME_RECEIVED, i);
		const unsigned k = e->bytes[14];
		cr_assert_lt(k, n, "a frame nobody sent");
		cr_expect_not(seen[k], "frame %u received twice", k);
		seen[k] = true;
		cr_expect_eq(e->nic, plan[k].dst, "frame %u (for NIC %u) reached NIC %u", k,
			     plan[k].dst, e->nic);
		expect_bytes(e, frames[k], plan[k].len, "received frame");
	}
	for (unsigned i = 0; i < 3; i++) {
		cr_expect_eq(stats(w, i).frames_received, want_rx[i],
			     "NIC %u received %" PRIu64 ", want %u", i, stats(w, i).frames_received,
			     want_rx[i]);
		cr_expect_eq(stats(w, i).frames_sent, want_tx[i], "NIC %u sent", i);
		cr_expect_eq(stats(w, i).frames_dropped, 0);
	}
	nicsim_destroy(w);
}

Test(network, a_frame_for_an_unknown_mac_is_dropped_and_counted_on_the_sender)
{
	static const uint8_t unknown[][6] = {
		{ 0x02, 0, 0, 0, 0, 0x04 },		/* NIC 3: not in a world of three */
		{ 0x02, 0, 0, 0, 0, 0x00 },		/* "NIC -1" */
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, /* broadcast: no flooding */
		{ 0x02, 0, 0, 0, 0x01, 0x01 },
		{ 0x06, 0, 0, 0, 0, 0x01 },
	};
	const size_t n = sizeof(unknown) / sizeof(unknown[0]);
	struct nicsim *w = world(3, 12500, 500, NULL);
	uint8_t f[100];

	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	for (size_t k = 0; k < n; k++) {
		make_frame(f, 0, 1, sizeof(f), (unsigned)k);
		memcpy(f, unknown[k], 6);
		cr_assert_eq(nicsim_port_inject(w, 1, f, sizeof(f)), 0);
	}
	run_until(w, NICSIM_FRAME_DROPPED, n, 10000);
	nicsim_step(w, 2000);
	for (size_t k = 0; k < n; k++) {
		const struct event *d = nth(&g_log, NICSIM_FRAME_DROPPED, k);
		cr_expect_eq(d->nic, 1);
		cr_expect_eq(memcmp(d->bytes, unknown[k], 6), 0, "drop %zu: another frame", k);
		cr_expect_eq(d->cycle, nth(&g_log, NICSIM_FRAME_SENT, k)->cycle,
			     "dropped when its last byte left");
	}
	cr_expect_eq(count(&g_log, NICSIM_FRAME_RECEIVED), 0);
	cr_expect_eq(stats(w, 1).frames_sent, n);
	cr_expect_eq(stats(w, 1).frames_dropped, n);
	for (unsigned i = 0; i < 3; i++)
		cr_expect_eq(stats(w, i).frames_received, 0, "NIC %u", i);
	nicsim_destroy(w);
}

/* docs/timing-model.md: injected in cycle c on an idle link, a frame of L bytes has left at
 * c + ceil(L * clock_mhz / link_mbps); it arrives link_cycles = ceil(link_ns * clock_mhz / 1000)
 * later, is offered from that cycle one beat per cycle, and its last beat is taken `beats`
 * cycles after it arrived. */
Test(network, a_frame_arrives_link_ns_after_its_last_byte_left_the_sender)
{
	static const struct {
		uint32_t link_mbps, link_ns;
		size_t len;
	} cases[] = {
		{ 12500, 500, 100 }, { 3000, 37, 100 }, { 1250, 0, 61 },
		{ 12500, 1, 1500 },  { 700, 2000, 64 }, { 100000, 4, 1000 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const uint32_t mbps = cases[k].link_mbps, ns = cases[k].link_ns;
		const size_t len = cases[k].len;
		struct nicsim *w = world(2, mbps, ns, NULL);
		uint8_t f[1500];

		g_log.n = 0;
		nicsim_set_frame_handler(w, on_frame, &g_log);
		make_frame(f, 1, 0, len, (unsigned)k);
		const uint64_t c = nicsim_cycle(w);
		cr_assert_eq(nicsim_port_inject(w, 0, f, len), 0);
		const uint64_t sent = serialized(c, len, mbps);
		const uint64_t arrive = sent + div_up((uint64_t)ns * CLOCK_MHZ, 1000);
		const uint64_t received = arrive + div_up(len, bus_bytes());

		/* the counters change in exactly those cycles */
		nicsim_step(w, sent - c);
		cr_expect_eq(stats(w, 0).frames_sent, 0, "case %zu: sent before cycle %" PRIu64, k,
			     sent);
		nicsim_step(w, 1);
		cr_expect_eq(stats(w, 0).frames_sent, 1, "case %zu: not sent in cycle %" PRIu64, k,
			     sent);
		nicsim_step(w, received - sent - 1);
		cr_expect_eq(stats(w, 1).frames_received, 0,
			     "case %zu: received before cycle %" PRIu64, k, received);
		nicsim_step(w, 1);
		cr_expect_eq(stats(w, 1).frames_received, 1,
			     "case %zu: not received in cycle %" PRIu64, k, received);

		const struct event *s = nth(&g_log, NICSIM_FRAME_SENT, 0);
		const struct event *r = nth(&g_log, NICSIM_FRAME_RECEIVED, 0);
		cr_expect_eq(s->cycle, sent,
			     "case %zu (%u MB/s, %u ns, %zu B): sent in cycle %" PRIu64
			     ", want %" PRIu64,
			     k, mbps, ns, len, s->cycle, sent);
		cr_expect_eq(r->cycle, received,
			     "case %zu (%u MB/s, %u ns, %zu B): received in cycle %" PRIu64
			     ", want %" PRIu64,
			     k, mbps, ns, len, r->cycle, received);
		cr_expect_eq(r->nic, 1);
		expect_bytes(r, f, len, "received frame");
		nicsim_destroy(w);
	}
}

/* Three frames queued at once on a link of 12 B/cycle: 100 B take 8.33 cycles, so they have left
 * after 9, 17 and 25 cycles (fractions carry over, none is rounded twice); the receiver takes
 * them one beat per cycle, each after the one before. The other direction runs independently. */
Test(network, serialization_carries_fractions_of_a_cycle_from_frame_to_frame)
{
	const uint32_t mbps = 3000, ns = 100;
	const size_t len = 100, beats = div_up(len, bus_bytes());
	const uint64_t link = div_up((uint64_t)ns * CLOCK_MHZ, 1000);
	struct nicsim *w = world(2, mbps, ns, NULL);
	uint8_t f[4][100];
	uint64_t rx_done = 0;

	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	const uint64_t c = nicsim_cycle(w);
	for (unsigned k = 0; k < 3; k++) {
		make_frame(f[k], 1, 0, len, k);
		cr_assert_eq(nicsim_port_inject(w, 0, f[k], len), 0);
	}
	make_frame(f[3], 0, 1, len, 3);
	cr_assert_eq(nicsim_port_inject(w, 1, f[3], len), 0);
	run_until(w, NICSIM_FRAME_RECEIVED, 4, 10000);

	for (unsigned k = 0; k < 3; k++) {
		const uint64_t sent = serialized(c, (k + 1) * len, mbps);
		const struct event *s = nth_of(&g_log, NICSIM_FRAME_SENT, 0, k);
		const struct event *r = nth_of(&g_log, NICSIM_FRAME_RECEIVED, 1, k);

		/* the receiving core takes a frame's beats one per cycle, then stalls one cycle
		 * to check it (nic_roce_rx) before it takes the next frame's first beat */
		const uint64_t ready = k ? rx_done + 1 : 0;
		rx_done = (sent + link > ready ? sent + link : ready) + beats;
		cr_expect_eq(s->cycle, sent, "frame %u left in cycle %" PRIu64 ", want %" PRIu64, k,
			     s->cycle, sent);
		cr_expect_eq(r->cycle, rx_done,
			     "frame %u received in cycle %" PRIu64 ", want %" PRIu64, k, r->cycle,
			     rx_done);
		expect_bytes(s, f[k], len, "sent frame");
		expect_bytes(r, f[k], len, "received frame (in order)");
	}
	cr_expect_eq(nth_of(&g_log, NICSIM_FRAME_SENT, 1, 0)->cycle, serialized(c, len, mbps));
	cr_expect_eq(nth_of(&g_log, NICSIM_FRAME_RECEIVED, 0, 0)->cycle,
		     serialized(c, len, mbps) + link + beats);
	nicsim_destroy(w);
}

/* Two senders, forty frames of many lengths for one receiver: all arrive, intact, each sender's
 * in the order it sent them (lossless, in order per port pair), whatever the interleaving. */
Test(network, frames_for_one_port_are_lossless_and_in_order_per_sender)
{
	enum { PER_SENDER = 20 };
	static uint8_t f[2][PER_SENDER][1500];
	static size_t len[2][PER_SENDER];
	const unsigned senders[2] = { 0, 2 };
	unsigned next[2] = { 0, 0 };
	struct nicsim *w = world(3, 5000, 300, NULL);

	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	for (unsigned k = 0; k < PER_SENDER; k++)
		for (unsigned s = 0; s < 2; s++) {
			len[s][k] = 60 + (k * 397 + s * 151) % 1441;
			make_frame(f[s][k], 1, senders[s], len[s][k], k);
			cr_assert_eq(nicsim_port_inject(w, senders[s], f[s][k], len[s][k]), 0);
		}
	run_until(w, NICSIM_FRAME_RECEIVED, 2 * PER_SENDER, 100000);
	for (size_t i = 0; i < 2 * PER_SENDER; i++) {
		const struct event *r = nth(&g_log, NICSIM_FRAME_RECEIVED, i);
		const unsigned s = r->bytes[15] == 0 ? 0 : 1;
		cr_expect_eq(r->nic, 1);
		cr_assert_lt(next[s], PER_SENDER);
		cr_expect_eq(r->bytes[14], next[s], "from NIC %u: frame %u arrived when %u was due",
			     senders[s], r->bytes[14], next[s]);
		expect_bytes(r, f[s][next[s]], len[s][next[s]], "received frame");
		next[s]++;
		if (i > 0)
			cr_expect_geq(r->cycle,
				      nth(&g_log, NICSIM_FRAME_RECEIVED, i - 1)->cycle + 1,
				      "one frame at a time on the RX port");
	}
	cr_expect_eq(stats(w, 1).frames_received, 2 * PER_SENDER);
	nicsim_destroy(w);
}

Test(network, inject_refuses_what_is_not_a_frame_of_an_existing_nic)
{
	struct nicsim *w = world(2, 12500, 500, NULL);
	static uint8_t f[16385];

	make_frame(f, 1, 0, 100, 0);
	cr_expect_eq(nicsim_port_inject(w, 2, f, 100), -EINVAL, "no NIC 2");
	cr_expect_eq(nicsim_port_inject(w, 0, f, 13), -EINVAL, "shorter than an Ethernet header");
	cr_expect_eq(nicsim_port_inject(w, 0, f, sizeof(f)), -EINVAL, "over 16384 bytes");
	cr_expect_eq(nicsim_port_inject(w, 0, NULL, 100), -EINVAL);
	cr_expect_eq(nicsim_port_inject(w, 0, f, 14), 0);
	cr_expect_eq(nicsim_port_inject(w, 0, f, 16384), 0);
	nicsim_destroy(w);
}

/* ---- network_link: the network alone, the test plays the NICs' stream ports ------------------ */

struct net {
	struct nicsim_net *net;
	uint64_t now;
};

static void net_open(struct net *n, unsigned ports, uint32_t link_mbps, uint32_t link_ns)
{
	struct nicsim_config c = config(ports, link_mbps, link_ns, NULL);
	cr_assert_eq(nicsim_net_create(&c, &n->net), 0);
	n->now = 0;
	g_log.n = 0;
	nicsim_net_set_frame_handler(n->net, on_frame, &g_log);
	for (unsigned i = 0; i < ports; i++)
		nicsim_net_port_out(n->net, i)->rx_tready = true;
}

/* What a NIC streams on its TX port: frames, one beat per cycle while TREADY allows. */
struct streamer {
	const uint8_t *bytes;
	size_t len, off;
	unsigned accepted; /* beats */
	uint64_t last_accept;
};

/* the pins of the next beat (before the edge) */
static void stream_pins(struct nicsim_stream_out *o, const struct streamer *s)
{
	const size_t left = s->bytes ? s->len - s->off : 0;
	const unsigned n = left < bus_bytes() ? (unsigned)left : bus_bytes();

	o->tx_tvalid = left > 0;
	o->tx_tlast = left > 0 && n == left;
	o->tx_tkeep = n >= 32 ? 0xffffffffu : (1u << n) - 1;
	memset(o->tx_tdata, 0, sizeof(o->tx_tdata));
	if (left)
		memcpy(o->tx_tdata, s->bytes + s->off, n);
}

/* one cycle of port 0 streaming s; returns the network's error, if any */
static const char *net_cycle(struct net *n, struct streamer *s)
{
	struct nicsim_stream_out *o = nicsim_net_port_out(n->net, 0);
	const bool accepted = s && s->bytes && nicsim_net_port_in(n->net, 0)->tx_tready;
	const char *err;

	if (s)
		stream_pins(o, s);
	else
		o->tx_tvalid = false;
	err = nicsim_net_cycle(n->net, n->now);
	if (accepted && !err) {
		s->off += o->tx_tkeep == 0xffffffffu ? 32 : (size_t)__builtin_popcount(o->tx_tkeep);
		s->accepted++;
		s->last_accept = n->now;
		if (s->off == s->len)
			s->bytes = NULL;
	}
	n->now++;
	return err;
}

static void net_run_until(struct net *n, struct streamer *s, enum nicsim_frame_event what,
			  size_t want)
{
	while (count(&g_log, what) < want) {
		cr_assert_lt(n->now, 1000000, "cycle %" PRIu64 ": waiting for frame event %d",
			     n->now, what);
		const char *err = net_cycle(n, s);
		cr_assert_null(err, "cycle %" PRIu64 ": %s", n->now - 1, err);
	}
}

/* A link slower than the stream: the harness takes beats at exactly the link rate, never letting
 * the link idle, so the last byte of a frame streamed from cycle 0 leaves in cycle
 * ceil(L * clock_mhz / link_mbps); a link faster than the stream never back-pressures it. */
Test(network_link, a_slower_link_back_pressures_the_stream_to_exactly_its_rate)
{
	static const uint32_t rates[] = { 1250, 3000, 7000, 12500, 100000 };
	static uint8_t f[1003];

	make_frame(f, 1, 0, sizeof(f), 1);
	for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
		const uint32_t mbps = rates[k];
		const size_t beats = div_up(sizeof(f), bus_bytes());
		const bool slower = (uint64_t)mbps < (uint64_t)bus_bytes() * CLOCK_MHZ;
		struct streamer s = { f, sizeof(f), 0, 0, 0 };
		struct net n;

		net_open(&n, 2, mbps, 200);
		net_run_until(&n, &s, NICSIM_FRAME_SENT, 1);
		const struct event *e = nth(&g_log, NICSIM_FRAME_SENT, 0);
		const uint64_t want =
			slower ? serialized(0, sizeof(f), mbps) :
				 beats - 1 +
					 div_up((sizeof(f) - (beats - 1) * bus_bytes()) * CLOCK_MHZ,
						mbps);
		cr_expect_eq(s.accepted, beats);
		cr_expect_eq(e->cycle, want,
			     "%u MB/s: the last byte left in cycle %" PRIu64 ", want %" PRIu64,
			     mbps, e->cycle, want);
		if (!slower)
			cr_expect_eq(s.last_accept, beats - 1, "%u MB/s: back-pressured", mbps);
		else
			cr_expect_gt(s.last_accept, beats - 1, "%u MB/s: never back-pressured",
				     mbps);
		expect_bytes(e, f, sizeof(f), "sent frame");
		net_run_until(&n, NULL, NICSIM_FRAME_RECEIVED, 1);
		expect_bytes(nth(&g_log, NICSIM_FRAME_RECEIVED, 0), f, sizeof(f), "received frame");
		nicsim_net_destroy(n.net);
	}
}

/* RX: one beat per cycle while the NIC is ready, the beat held steady while it is not, the last
 * beat's TKEEP covering the bytes left; nothing lost however long the NIC stalls. */
Test(network_link, rx_beats_wait_for_tready_and_hold_steady)
{
	static uint8_t f[3][301];
	struct nicsim_stream_out *o1;
	const struct nicsim_stream_in *in1;
	struct nicsim_stream_in prev;
	size_t got = 0, frame = 0;
	struct net n;

	net_open(&n, 2, 12500, 40);
	o1 = nicsim_net_port_out(n.net, 1);
	in1 = nicsim_net_port_in(n.net, 1);
	for (unsigned k = 0; k < 3; k++) {
		make_frame(f[k], 1, 0, sizeof(f[k]) - k, k);
		cr_assert_eq(nicsim_net_inject(n.net, 0, f[k], sizeof(f[k]) - k), 0);
	}
	memset(&prev, 0, sizeof(prev));
	while (frame < 3) {
		cr_assert_lt(n.now, 100000);
		o1->rx_tready = n.now % 3 == 0 || n.now % 7 == 0;
		const bool take = in1->rx_tvalid && o1->rx_tready;
		if (in1->rx_tvalid) {
			const size_t len = sizeof(f[frame]) - frame, left = len - got;
			const unsigned nb = left < bus_bytes() ? (unsigned)left : bus_bytes();
			cr_assert_eq(in1->rx_tkeep, nb >= 32 ? 0xffffffffu : (1u << nb) - 1,
				     "cycle %" PRIu64 ": TKEEP 0x%x with %zu bytes left", n.now,
				     in1->rx_tkeep, left);
			cr_assert_eq(in1->rx_tlast, nb == left, "cycle %" PRIu64 ": TLAST", n.now);
			cr_assert_eq(memcmp(in1->rx_tdata, f[frame] + got, nb), 0,
				     "cycle %" PRIu64 ": frame %zu bytes %zu..", n.now, frame, got);
			if (take) {
				got += nb;
				if (got == len) {
					got = 0;
					frame++;
				}
			}
		}
		prev = *in1;
		cr_assert_null(net_cycle(&n, NULL));
		if (prev.rx_tvalid && !take)
			cr_assert(in1->rx_tvalid && in1->rx_tlast == prev.rx_tlast &&
					  in1->rx_tkeep == prev.rx_tkeep &&
					  !memcmp(in1->rx_tdata, prev.rx_tdata,
						  sizeof(prev.rx_tdata)),
				  "cycle %" PRIu64 ": the RX beat changed before it was taken",
				  n.now - 1);
	}
	cr_expect_eq(count(&g_log, NICSIM_FRAME_RECEIVED), 3);
	for (unsigned k = 0; k < 3; k++)
		expect_bytes(nth(&g_log, NICSIM_FRAME_RECEIVED, k), f[k], sizeof(f[k]) - k,
			     "received frame");
	nicsim_net_destroy(n.net);
}

static const char *stream_one(uint32_t tkeep_first, bool last_first, size_t len)
{
	static uint8_t f[64];
	struct nicsim_stream_out *o;
	const char *err = NULL;
	struct net n;
	static char msg[256];

	make_frame(f, 1, 0, sizeof(f), 0);
	net_open(&n, 2, 12500, 100);
	o = nicsim_net_port_out(n.net, 0);
	memcpy(o->tx_tdata, f, bus_bytes());
	o->tx_tvalid = true;
	o->tx_tlast = last_first;
	o->tx_tkeep = tkeep_first;
	err = nicsim_net_cycle(n.net, 0);
	for (size_t off = bus_bytes(); !err && off < len; off += bus_bytes()) {
		o->tx_tlast = off + bus_bytes() >= len;
		o->tx_tkeep = o->tx_tlast ? (1u << (len - off)) - 1 :
					    (uint32_t)~0u >> (32 - bus_bytes());
		err = nicsim_net_cycle(n.net, ++n.now);
	}
	snprintf(msg, sizeof(msg), "%s", err ? err : "");
	nicsim_net_destroy(n.net);
	return err ? msg : NULL;
}

/* AXI-Stream as docs/transport.md fixes it: TKEEP marks the valid bytes, contiguous from byte 0;
 * only a frame's last beat may be partial; a frame holds at least an Ethernet header. A world
 * makes any of these a fatal error of the run. */
Test(network_link, tkeep_rules_of_the_tx_stream_are_enforced)
{
	const uint32_t full = (uint32_t)~0u >> (32 - bus_bytes());
	const char *e;

	e = stream_one(0x05, true, 0);
	cr_expect(e && strstr(e, "contiguous"), "TKEEP 0x05: %s", e ? e : "accepted");
	e = stream_one(0x00, true, 0);
	cr_expect(e && strstr(e, "contiguous"), "TKEEP 0: %s", e ? e : "accepted");
	e = stream_one(0x0f, false, 40);
	cr_expect(e && strstr(e, "last beat"), "partial beat before TLAST: %s", e ? e : "accepted");
	e = stream_one(0x0f, true, 0);
	cr_expect(e && strstr(e, "Ethernet header"), "4-byte frame: %s", e ? e : "accepted");
	e = stream_one(full, false, 60);
	cr_expect_null(e, "a good 60-byte frame: %s", e);
}

/* An injected frame takes the link only between the RTL's frames, and goes before the RTL's
 * next frame: the RTL waits (TREADY low) until the injected frame has been taken. */
Test(network_link, injected_frame_goes_between_streamed_frames)
{
	static uint8_t a[200], b[100], c[90];
	struct streamer s = { a, sizeof(a), 0, 0, 0 };
	struct net n;

	make_frame(a, 1, 0, sizeof(a), 1);
	make_frame(b, 1, 0, sizeof(b), 2);
	make_frame(c, 1, 0, sizeof(c), 3);
	net_open(&n, 2, 3000, 40);
	for (int i = 0; i < 3; i++)
		cr_assert_null(net_cycle(&n, &s)); /* frame a under way */
	cr_assert_eq(nicsim_net_inject(n.net, 0, b, sizeof(b)), 0);
	while (s.bytes)
		cr_assert_null(net_cycle(&n, &s));
	/* a is complete: c is ready at once, but b goes first */
	s.bytes = c;
	s.len = sizeof(c);
	s.off = 0;
	const unsigned before = s.accepted;
	cr_assert_null(net_cycle(&n, &s));
	cr_expect_eq(s.accepted, before, "the RTL's next frame started before the injected one");
	net_run_until(&n, &s, NICSIM_FRAME_SENT, 3);
	expect_bytes(nth(&g_log, NICSIM_FRAME_SENT, 0), a, sizeof(a), "first frame sent");
	expect_bytes(nth(&g_log, NICSIM_FRAME_SENT, 1), b, sizeof(b), "second frame sent");
	expect_bytes(nth(&g_log, NICSIM_FRAME_SENT, 2), c, sizeof(c), "third frame sent");
	nicsim_net_destroy(n.net);
}

/* ---- network_pcap ------------------------------------------------------------------------------ */

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "/tmp/ndk_net_%s_%d_w%u.pcap", name, (int)getpid(), raw_width());
}

static void read_capture(const char *path, struct pcap_capture *cap)
{
	char err[256];
	cr_assert_eq(pcap_read(path, cap, err, sizeof(err)), 0, "%s", err);
}

/* Every frame once, when its last byte left (dropped frames too: they did leave), in that
 * order, stamped with the simulated time in ns, as the bytes that were sent. */
Test(network_pcap, records_every_frame_once_with_its_send_time_and_bytes)
{
	char path[128];
	struct pcap_capture cap;
	static uint8_t f[12][1500];
	size_t len[12];
	struct nicsim *w;

	tmp_path(path, sizeof(path), "records");
	w = world(3, 7000, 200, path);
	cr_expect_str_eq(nicsim_pcap_path(w), path);
	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	for (unsigned k = 0; k < 12; k++) {
		const unsigned src = k % 3, dst = k == 5 ? 9 : (k + 1) % 3;
		len[k] = 60 + k * 113;
		make_frame(f[k], dst, src, len[k], k);
		cr_assert_eq(nicsim_port_inject(w, src, f[k], len[k]), 0);
	}
	run_until(w, NICSIM_FRAME_RECEIVED, 11, 100000);
	cr_assert_eq(count(&g_log, NICSIM_FRAME_SENT), 12);
	nicsim_destroy(w); /* completes the file */

	read_capture(path, &cap);
	cr_expect_eq(cap.magic, 0xa1b23c4du, "nanosecond pcap in this machine's byte order");
	cr_expect(cap.nanoseconds);
	cr_expect_eq(cap.version_major, 2);
	cr_expect_eq(cap.version_minor, 4);
	cr_expect_eq(cap.linktype, 1, "LINKTYPE_ETHERNET");
	cr_expect_geq(cap.snaplen, 16384);
	cr_assert_eq(cap.count, 12, "%zu records, want 12", cap.count);
	for (size_t i = 0; i < cap.count; i++) {
		const struct pcap_record *r = &cap.records[i];
		const struct event *e = nth(&g_log, NICSIM_FRAME_SENT, i);
		const unsigned k = e->bytes[14];
		cr_expect_eq(r->ts_ns, e->cycle * 1000 / CLOCK_MHZ,
			     "record %zu: %" PRIu64 " ns, sent in cycle %" PRIu64, i, r->ts_ns,
			     e->cycle);
		if (i > 0)
			cr_expect_geq(r->ts_ns, cap.records[i - 1].ts_ns, "record %zu: time order",
				      i);
		cr_expect_eq(r->len, len[k], "record %zu: %u bytes, frame %u has %zu", i, r->len, k,
			     len[k]);
		cr_expect_eq(r->orig_len, r->len);
		if (r->len == len[k])
			cr_expect_eq(memcmp(r->bytes, f[k], len[k]), 0, "record %zu: bytes", i);
	}
	pcap_free(&cap);
	unlink(path);
}

Test(network_pcap, flush_makes_the_capture_readable_while_the_world_runs)
{
	char path[128];
	struct pcap_capture cap;
	uint8_t f[200];
	struct nicsim *w;

	tmp_path(path, sizeof(path), "flush");
	w = world(2, 12500, 500, path);
	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	make_frame(f, 1, 0, sizeof(f), 0);
	cr_assert_eq(nicsim_port_inject(w, 0, f, sizeof(f)), 0);
	run_until(w, NICSIM_FRAME_SENT, 1, 1000);
	cr_assert_eq(nicsim_pcap_flush(w), 0);
	read_capture(path, &cap);
	cr_expect_eq(cap.count, 1);
	pcap_free(&cap);
	nicsim_destroy(w);
	unlink(path);
}

/* /dev/full takes the file but no byte of it: the failure is reported on stderr, naming the
 * file and the reason, the run goes on (frames still travel) and nothing crashes. */
Test(network_pcap, a_write_error_is_reported_and_the_network_keeps_working)
{
	char msg[1024] = "";
	uint8_t f[300];
	struct nicsim *w;
	FILE *err = tmpfile();
	int saved;

	cr_assert_not_null(err);
	cr_assert_eq(access("/dev/full", W_OK), 0, "this test writes its capture to /dev/full");
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(err), 2);
	w = world(2, 12500, 500, "/dev/full");
	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	make_frame(f, 1, 0, sizeof(f), 0);
	cr_assert_eq(nicsim_port_inject(w, 0, f, sizeof(f)), 0);
	run_until(w, NICSIM_FRAME_SENT, 1, 1000);
	const int e1 = nicsim_pcap_flush(w);
	const int e2 = nicsim_pcap_flush(w);
	cr_assert_eq(nicsim_port_inject(w, 0, f, sizeof(f)), 0);
	run_until(w, NICSIM_FRAME_RECEIVED, 2, 10000);
	nicsim_destroy(w);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	msg[fread(msg, 1, sizeof(msg) - 1, err)] = 0;
	fclose(err);

	cr_expect_eq(e1, -ENOSPC, "flush: %d", e1);
	cr_expect_eq(e2, -ENOSPC, "the error stays");
	cr_expect(strstr(msg, "/dev/full") && strstr(msg, strerror(ENOSPC)),
		  "stderr does not name the file and the reason: \"%s\"", msg);
	cr_expect_eq(count(&g_log, NICSIM_FRAME_RECEIVED), 2);
}

Test(network_pcap, a_capture_that_cannot_be_created_refuses_the_world)
{
	struct nicsim_config c = config(2, 12500, 500, "/nonexistent-ndk-dir/x.pcap");
	struct nicsim *w = NULL;
	struct nicsim_net *n = NULL;

	cr_expect_eq(nicsim_create(&c, &w), -EINVAL);
	cr_expect_null(w);
	cr_expect_eq(nicsim_net_create(&c, &n), -EINVAL);
	cr_expect_null(n);
}

/* The RoCEv2 frames of docs/transport.md's wire format, built by roce_ref and put on the wire by
 * the harness: tshark decodes every one as UDP 4791 / InfiniBand with the right opcode, QP and
 * PSN, with no malformed packet and no expert warning or error (IPv4 checksums verified), and
 * shows the ICRC where roce_ref put it (tshark 4.0 does not verify the ICRC: roce_ref does). */
Test(network_pcap, tshark_decodes_every_roce_frame_as_its_opcode)
{
	static const struct {
		uint8_t opcode;
		unsigned src;
		size_t payload;
	} plan[] = {
		{ ROCE_OP_SEND_ONLY, 0, 61 },
		{ ROCE_OP_SEND_FIRST, 0, 1024 },
		{ ROCE_OP_SEND_MIDDLE, 0, 1024 },
		{ ROCE_OP_SEND_LAST, 0, 3 },
		{ ROCE_OP_WRITE_ONLY, 0, 200 },
		{ ROCE_OP_READ_REQUEST, 0, 0 },
		{ ROCE_OP_READ_RESPONSE_ONLY, 1, 130 },
		{ ROCE_OP_READ_RESPONSE_FIRST, 1, 1024 },
		{ ROCE_OP_READ_RESPONSE_MIDDLE, 1, 1024 },
		{ ROCE_OP_READ_RESPONSE_LAST, 1, 2 },
		{ ROCE_OP_ACKNOWLEDGE, 1, 0 },
		{ ROCE_OP_SEND_ONLY_INV, 0, 17 },
		{ ROCE_OP_SEND_LAST_INV, 0, 4 },
		{ ROCE_OP_WRITE_FIRST, 0, 1024 },
		{ ROCE_OP_WRITE_MIDDLE, 0, 1024 },
		{ ROCE_OP_WRITE_LAST, 0, 1 },
	};
	const size_t n = sizeof(plan) / sizeof(plan[0]);
	static uint8_t payload[1024], buf[ROCE_REF_MAX_FRAME(1024)];
	struct roce_pcap_check check;
	char path[128];
	struct nicsim *w;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i ^ 0x5a);
	tmp_path(path, sizeof(path), "tshark");
	w = world(2, 12500, 500, path);
	g_log.n = 0;
	nicsim_set_frame_handler(w, on_frame, &g_log);
	for (size_t k = 0; k < n; k++) {
		struct roce_ref_fields f;
		const unsigned src = plan[k].src;
		size_t len;

		roce_ref_init(&f, src, 0x10 + src, 1 - src);
		f.opcode = plan[k].opcode;
		f.dest_qp = 0x11 - src;
		f.psn = (uint32_t)(0xfffff0 + k) & 0xffffff;
		f.ackreq = plan[k].opcode == ROCE_OP_SEND_ONLY ||
			   plan[k].opcode == ROCE_OP_SEND_LAST;
		f.se = plan[k].opcode == ROCE_OP_SEND_ONLY;
		f.reth_va = 0x00007fabcdef0000ull + k;
		f.reth_rkey = 0x0100 + (uint32_t)k;
		f.reth_dma_len = 2048;
		f.aeth_syndrome = 0x1f; /* ACK, credits invalid */
		f.aeth_msn = (uint32_t)k;
		f.ieth_rkey = 0xa5a50001;
		f.payload = payload;
		f.payload_len = plan[k].payload;
		len = roce_ref_build(&f, buf, sizeof(buf));
		cr_assert_neq(len, 0, "roce_ref_build %s", roce_ref_opcode_name(plan[k].opcode));
		cr_assert_eq(nicsim_port_inject(w, src, buf, len), 0);
	}
	run_until(w, NICSIM_FRAME_RECEIVED, n, 100000);
	nicsim_destroy(w);

	const int problems = roce_pcap_check(path, true, &check);
	cr_assert_eq(problems, 0, "%s", check.log);
	cr_assert_eq(check.frames, n);
	for (size_t i = 0; i < n; i++) {
		const struct event *e = nth(&g_log, NICSIM_FRAME_SENT, i);
		const int want = e->bytes[14 + 20 + 8]; /* the BTH opcode of the i-th frame sent */
		cr_expect_eq(check.frame[i].opcode, want,
			     "frame %zu: tshark says opcode %d (%s), want %d", i + 1,
			     check.frame[i].opcode, check.frame[i].protocols, want);
		cr_expect_eq(check.frame[i].udp_dstport, 4791);
		cr_expect_not(check.frame[i].malformed);
		cr_expect_eq(check.frame[i].ref, ROCE_REF_OK);
	}
	roce_pcap_check_free(&check);
	unlink(path);
}

/* The check above could not pass a broken frame: a bad ICRC (which only roce_ref sees), a bad
 * IPv4 checksum, a frame shorter than its IPv4 length, a UDP port that is not 4791. */
Test(network_pcap, the_capture_check_reports_each_broken_frame)
{
	uint8_t payload[40] = { 0 }, good[128], b[128];
	struct roce_pcap_check check;
	struct roce_ref_fields f;
	char path[128];
	struct nicsim *w;
	size_t len;

	tmp_path(path, sizeof(path), "broken");
	w = world(2, 12500, 500, path);
	roce_ref_init(&f, 0, 1, 1);
	f.opcode = ROCE_OP_SEND_ONLY;
	f.dest_qp = 2;
	f.payload = payload;
	f.payload_len = sizeof(payload);
	len = roce_ref_build(&f, good, sizeof(good));
	cr_assert_eq(nicsim_port_inject(w, 0, good, len), 0); /* frame 1: good */
	memcpy(b, good, len);
	b[len - 1] ^= 0x80;
	cr_assert_eq(nicsim_port_inject(w, 0, b, len), 0); /* frame 2: ICRC */
	memcpy(b, good, len);
	b[14 + 11] ^= 0x01;
	cr_assert_eq(nicsim_port_inject(w, 0, b, len), 0);	  /* frame 3: IPv4 checksum */
	cr_assert_eq(nicsim_port_inject(w, 0, good, len - 8), 0); /* frame 4: truncated */
	memcpy(b, good, len);
	b[14 + 20 + 3] = 0xb8;				   /* UDP port 4792 */
	cr_assert_eq(nicsim_port_inject(w, 0, b, len), 0); /* frame 5 */
	nicsim_step(w, 2000);
	nicsim_destroy(w);

	const int problems = roce_pcap_check(path, true, &check);
	cr_expect_gt(problems, 0);
	cr_expect_eq(check.frames, 5);
	cr_expect_null(strstr(check.log, "frame 1:"), "the good frame: %s", check.log);
	cr_expect_not_null(strstr(check.log, "frame 2: roce_ref: BAD_ICRC"), "%s", check.log);
	cr_expect_not_null(strstr(check.log, "frame 3: tshark: IPv4 checksum"), "%s", check.log);
	cr_expect_not_null(strstr(check.log, "frame 4: tshark: malformed"), "%s", check.log);
	cr_expect_not_null(strstr(check.log, "frame 5: tshark dissects it as"), "%s", check.log);
	roce_pcap_check_free(&check);
	unlink(path);
}

/* ---- network_config: ndk_sim.h ----------------------------------------------------------------- */

static void clear_env(void)
{
	unsetenv("NDK_SIM_PCAP");
	unsetenv("NDK_SIM_TRACE");
}

Test(network_config, defaults_are_a_100g_link_500_ns_long_and_no_capture, .init = clear_env)
{
	struct ndk_sim_config c;

	ndk_sim_default_config(&c);
	cr_expect_eq(c.link_mbps, 12500);
	cr_expect_eq(c.link_ns, 500);
	cr_expect_null(c.pcap_path);
}

Test(network_config, link_mbps_0_is_refused, .init = clear_env)
{
	struct ndk_sim_config c;
	struct ndk_sim *sim = NULL;

	ndk_sim_default_config(&c);
	c.link_mbps = 0;
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_null(sim);
	ndk_sim_default_config(&c);
	c.pcap_path = "/nonexistent-ndk-dir/x.pcap";
	cr_expect_eq(ndk_sim_create(&c, &sim), NDK_STATUS_INVALID_PARAMETER,
		     "a capture that cannot be created");
	cr_expect_null(sim);
}

/* NDK_SIM_PCAP sets the default and wins over the config, so any test reruns with a capture */
Test(network_config, ndk_sim_pcap_overrides_the_config_path, .init = clear_env)
{
	char env_path[128], cfg_path[128];
	struct ndk_sim_config c;
	struct ndk_sim *sim;

	tmp_path(env_path, sizeof(env_path), "env");
	tmp_path(cfg_path, sizeof(cfg_path), "cfg");
	unlink(cfg_path);
	setenv("NDK_SIM_PCAP", env_path, 1);
	ndk_sim_default_config(&c);
	cr_expect_str_eq(c.pcap_path, env_path);
	c.pcap_path = cfg_path;
	c.nics = 1;
	cr_assert_eq(ndk_sim_create(&c, &sim), NDK_STATUS_SUCCESS);
	cr_expect_str_eq(nicsim_pcap_path(sim->world), env_path);
	ndk_sim_destroy(sim);
	cr_expect_eq(access(env_path, F_OK), 0, "%s not written", env_path);
	cr_expect_neq(access(cfg_path, F_OK), 0, "%s written", cfg_path);
	unlink(env_path);

	/* without the variable, the config's path */
	unsetenv("NDK_SIM_PCAP");
	ndk_sim_default_config(&c);
	c.nics = 1;
	c.pcap_path = cfg_path;
	cr_assert_eq(ndk_sim_create(&c, &sim), NDK_STATUS_SUCCESS);
	cr_expect_str_eq(sim->config.pcap_path, cfg_path, "the world's own copy of the path");
	cr_expect_neq(sim->config.pcap_path, (const char *)cfg_path);
	ndk_sim_destroy(sim);
	cr_expect_eq(access(cfg_path, F_OK), 0, "%s not written", cfg_path);
	unlink(cfg_path);
}

Test(network_config, ndk_sim_stats_report_the_frames_seen_on_the_ports, .init = clear_env)
{
	struct ndk_sim_config c;
	struct ndk_sim_stats s0, s1;
	struct ndk_sim *sim;
	uint8_t f[120];

	ndk_sim_default_config(&c);
	c.nics = 2;
	cr_assert_eq(ndk_sim_create(&c, &sim), NDK_STATUS_SUCCESS);
	make_frame(f, 1, 0, sizeof(f), 0);
	cr_assert_eq(nicsim_port_inject(sim->world, 0, f, sizeof(f)), 0);
	cr_assert_eq(nicsim_port_inject(sim->world, 0, f, sizeof(f)), 0);
	make_frame(f, 5, 1, sizeof(f), 1);
	cr_assert_eq(nicsim_port_inject(sim->world, 1, f, sizeof(f)), 0);
	ndk_sim_step(sim, 1000);
	ndk_sim_get_stats(sim, 0, &s0);
	ndk_sim_get_stats(sim, 1, &s1);
	cr_expect_eq(s0.frames_sent, 2);
	cr_expect_eq(s0.frames_received, 0);
	cr_expect_eq(s0.frames_dropped, 0);
	cr_expect_eq(s1.frames_sent, 1);
	cr_expect_eq(s1.frames_received, 2);
	cr_expect_eq(s1.frames_dropped, 1);
	ndk_sim_destroy(sim);
}

/* The core's receiver (nic_roce_rx) stores each frame whole, checks it and drops a bad one
 * before anything reaches host memory, counting it in BAR0 RX_DROPS: a bad ICRC, a bad IPv4
 * checksum, a length that disagrees with the headers, another UDP port or another IPv4 address.
 * A well-formed frame for a QP that is not connected is not a drop (the responder ignores it). */
Test(network, the_receiver_drops_and_counts_bad_frames)
{
	struct nicsim *w = world(2, 12500, 500, NULL);
	uint8_t payload[40], f[6][256];
	size_t len[6];
	memset(payload, 0x5a, sizeof(payload));
	struct roce_ref_fields base;
	roce_ref_init(&base, 0, NIC_QPN_BASE, 1);
	base.opcode = ROCE_OP_SEND_ONLY;
	base.ackreq = true;
	base.dest_qp = NIC_QPN_BASE + 3;
	base.payload = payload;
	base.payload_len = sizeof(payload);
	struct roce_ref_fields v;

	len[0] = roce_ref_build(&base, f[0], sizeof(f[0])); /* good: not a drop */
	memcpy(f[1], f[0], len[0]);
	len[1] = len[0];
	f[1][len[1] - 1] ^= 0x01; /* ICRC */
	memcpy(f[2], f[0], len[0]);
	len[2] = len[0];
	f[2][24] ^= 0x10; /* IPv4 header checksum */
	v = base;
	v.dst_port = 4792; /* not RoCEv2 */
	len[3] = roce_ref_build(&v, f[3], sizeof(f[3]));
	v = base;
	v.dst_ip = roce_ref_nic_ipv4(2); /* this port's MAC, another IPv4 address */
	len[4] = roce_ref_build(&v, f[4], sizeof(f[4]));
	memcpy(f[5], f[0], len[0]);
	len[5] = len[0] - 8; /* cut: the lengths in the headers disagree */
	for (unsigned i = 0; i < 6; i++) {
		cr_assert_gt(len[i], 0);
		cr_assert_eq(nicsim_port_inject(w, 0, f[i], len[i]), 0, "frame %u", i);
	}
	nicsim_step(w, 5000);
	struct nicsim_stats s;
	nicsim_get_stats(w, 1, &s);
	cr_expect_eq(s.frames_received, 6, "the core took every frame");
	cr_expect_eq(nicsim_mmio_read32(w, 1, NIC_REG_RX_DROPS), 5, "bad frames counted");
	cr_expect_eq(nicsim_mmio_read32(w, 0, NIC_REG_RX_DROPS), 0);
	nicsim_destroy(w);
}
