// SPDX-License-Identifier: MIT
/*
 * The port counters (BAR0 PORT_COUNTERS, rtl/transport/nic_port_counters.sv,
 * ndk_query_port_counters) against what the harness saw on the wire, and the network's faults
 * in worlds of Verilated NICs:
 *   port_counters  a known exchange (Sends of 1 and 3 packets, Writes, a Read, an RNR episode,
 *                  frames the receiver must drop; a sequence NAK): every counter equals the
 *                  harness's count of the frames on the wire
 *   faults_world   a corrupted frame is dropped by the receiving NIC's own checks and counted
 *                  in RX_DROPS and rx_dropped; a dropped Send is in the capture, counted on its
 *                  sender, and never reaches the peer
 * Today's transport does not recover from a loss (no retransmission): the tests with faults
 * look only at what happens to the faulted frame itself.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend_sim.h" /* the world behind an ndk_sim */
#include "cosim_pair.h"
#include "nicsim.h"
#include "nicsim_raw.h"
#include "pcap_check.h"
#include "roce_ref.h"
#include "roce_track.h"

/* ---- what the harness saw: frames by sender, decoded ------------------------------------------ */

struct seen {
	uint64_t sent[2], received[2];
	uint64_t rnr_naks[2]; /* RNR NAKs sent by NIC i */
	uint64_t seq_naks[2]; /* PSN sequence error NAKs sent by NIC i */
	uint64_t acks[2];
};

static struct seen g_seen;

static void on_frame(void *ctx, enum nicsim_frame_event what, unsigned nic, uint64_t cycle,
		     const uint8_t *bytes, size_t len)
{
	struct roce_ref_fields f;
	(void)ctx;
	(void)cycle;
	if (nic >= 2)
		return;
	if (what == NICSIM_FRAME_RECEIVED) {
		g_seen.received[nic]++;
		return;
	}
	if (what != NICSIM_FRAME_SENT)
		return;
	g_seen.sent[nic]++;
	if (roce_ref_parse(bytes, len, &f) == ROCE_REF_OK && f.opcode == ROCE_OP_ACKNOWLEDGE) {
		g_seen.acks[nic]++;
		if ((f.aeth_syndrome >> 5) == 1)
			g_seen.rnr_naks[nic]++;
		if (f.aeth_syndrome == 0x60) /* NAK: PSN sequence error */
			g_seen.seq_naks[nic]++;
	}
}

static struct ndk_port_counters counters(struct ndk_adapter *ad)
{
	struct ndk_port_counters c;
	cr_assert_eq(ndk_query_port_counters(ad, &c), NDK_STATUS_SUCCESS);
	return c;
}

/* a frame NIC 1 must drop: a Send whose ICRC is wrong */
static size_t bad_frame(uint8_t *buf, size_t cap)
{
	struct roce_ref_fields f;
	uint8_t payload[32];
	memset(payload, 0x33, sizeof(payload));
	roce_ref_init(&f, 0, NIC_QPN_BASE, 1);
	f.opcode = ROCE_OP_SEND_ONLY;
	f.dest_qp = NIC_QPN_BASE;
	f.payload = payload;
	f.payload_len = sizeof(payload);
	const size_t len = roce_ref_build(&f, buf, cap);
	cr_assert_gt(len, 0);
	buf[len - 1] ^= 0x40;
	return len;
}

Test(port_counters, equal_what_the_harness_saw_after_a_known_exchange)
{
	struct pair p;
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	pair_open_cfg(&p, &c);
	memset(&g_seen, 0, sizeof(g_seen));
	nicsim_set_frame_handler(p.sim->world, on_frame, NULL);
	struct side *a = &p.s[0], *b = &p.s[1];
	const uint32_t mtu = 1024;

	/* before anything: nothing (the probe's reads are not traffic) */
	struct ndk_port_counters c0 = counters(a->ad);
	cr_expect_eq(c0.tx_packets + c0.rx_packets + c0.rx_dropped, 0);

	/* a Send of 1 packet and one of 3, each into a receive */
	for (int i = 0; i < 2; i++) {
		struct ndk_sge r = sge_of(b, 0, 4 * mtu);
		cr_assert_eq(ndk_receive(b->qp, (void *)(uintptr_t)(10 + i), &r, 1),
			     NDK_STATUS_SUCCESS);
	}
	struct ndk_sge s1 = sge_of(a, 0, 100), s3 = sge_of(a, 0, 3 * mtu - 7);
	cr_assert_eq(ndk_send(a->qp, (void *)1, &s1, 1, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, (void *)2, &s3, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, (void *)1, 0);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, (void *)2, 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, (void *)10, 100);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, (void *)11, 3 * mtu - 7);
	/* a Write of 2 packets, a Read of 2 responses, into a region of b's with remote rights */
	struct world wb = pair_world(&p, 1);
	struct region reg;
	region_make(&wb, &reg, 2, true);
	cr_assert_eq(region_register(&wb, &reg, (void *)9,
				     NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
					     NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_SUCCESS);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_FAST_REGISTER, (void *)9, 0);
	const uint64_t remote = (uint64_t)(uintptr_t)reg.buf.va;
	const uint32_t rkey = ndk_get_remote_token_from_mr(reg.mr);
	struct ndk_sge w = sge_of(a, 0, 2 * mtu);
	cr_assert_eq(ndk_write(a->qp, (void *)3, &w, 1, remote, rkey, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_WRITE, (void *)3, 0);
	struct ndk_sge rd = sge_of(a, 16384, 2 * mtu);
	cr_assert_eq(ndk_read(a->qp, (void *)4, &rd, 1, remote, rkey, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_READ, (void *)4, 0);
	/* an RNR episode: a Send with no receive posted is NAKed until one is */
	struct ndk_sge s0 = sge_of(a, 0, 8);
	cr_assert_eq(ndk_send(a->qp, (void *)5, &s0, 1, 0), NDK_STATUS_SUCCESS);
	ndk_sim_step(p.sim, 4000); /* 16 us: the first NAK and at least one retry */
	struct ndk_sge r = sge_of(b, 0, 64);
	cr_assert_eq(ndk_receive(b->qp, (void *)12, &r, 1), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_SUCCESS, NDK_OP_SEND, (void *)5, 0);
	expect_cpl(&p, b, NDK_STATUS_SUCCESS, NDK_OP_RECEIVE, (void *)12, 8);
	/* three frames NIC 1 must drop */
	uint8_t f[256];
	const size_t len = bad_frame(f, sizeof(f));
	for (int i = 0; i < 3; i++)
		cr_assert_eq(nicsim_port_inject(p.sim->world, 0, f, len), 0);
	ndk_sim_step(p.sim, 2000);

	cr_expect_geq(g_seen.rnr_naks[1], 1, "the exchange had an RNR episode");
	/* the frames injected on NIC 0's port: the harness counts them as sent, the NIC does not */
	const uint64_t injected[2] = { 3, 0 };
	for (int i = 0; i < 2; i++) {
		const struct ndk_port_counters k = counters(p.s[i].ad);
		struct ndk_sim_stats st;
		ndk_sim_get_stats(p.sim, (unsigned)i, &st);
		cr_expect_eq(k.tx_packets, g_seen.sent[i] - injected[i],
			     "NIC %d tx_packets %" PRIu64 ", the harness saw %" PRIu64, i,
			     k.tx_packets, g_seen.sent[i]);
		cr_expect_eq(k.rx_packets, g_seen.received[i],
			     "NIC %d rx_packets %" PRIu64 ", the harness saw %" PRIu64, i,
			     k.rx_packets, g_seen.received[i]);
		cr_expect_eq(k.rx_packets, st.frames_received);
		cr_expect_eq(k.tx_packets, st.frames_sent - injected[i]);
		cr_expect_eq(k.rx_dropped, i == 1 ? 3 : 0, "NIC %d rx_dropped %" PRIu64, i,
			     k.rx_dropped);
		cr_expect_eq(k.rx_dropped,
			     nicsim_mmio_read32(p.sim->world, (unsigned)i, NIC_REG_RX_DROPS));
		cr_expect_eq(k.rnr_naks_sent, g_seen.rnr_naks[i], "NIC %d rnr_naks_sent", i);
		cr_expect_eq(k.rnr_naks_received, g_seen.rnr_naks[1 - i],
			     "NIC %d rnr_naks_received", i);
		cr_expect_eq(k.seq_naks_sent, g_seen.seq_naks[i]);
		/* nothing was lost: the only packets sent again are the RNR retries of the 1-packet
		   Send, one per RNR NAK; no timeout, no implied NAK, nothing out of sequence or
		   duplicate at the responder (an RNR retry comes with the expected PSN) */
		cr_expect_eq(k.retransmitted_packets, i == 0 ? g_seen.rnr_naks[1] : 0,
			     "NIC %d retransmitted_packets %" PRIu64, i, k.retransmitted_packets);
		cr_expect_eq(k.local_ack_timeouts + k.implied_naks + k.out_of_sequence +
				     k.duplicate_requests,
			     0);
	}
	region_free(&wb, &reg);
	pair_close(&p);
}

/* A peer expecting another PSN NAKs the Send (sequence error): one NAK sent by NIC 1, one
 * received by NIC 0, as on the wire. The NAK names PSN 0, before anything A has outstanding, so
 * A ignores it; its ACK timer (ack_timeout 1, retry_count 0) then fails the Send IO_TIMEOUT. */
Test(port_counters, count_the_sequence_naks_on_the_wire)
{
	struct pair p;
	struct ndk_sim_config c;
	const struct pair_opts o = { 0 };
	ndk_sim_default_config(&c);
	memset(&p, 0, sizeof(p));
	cr_assert_eq(ndk_sim_create(&c, &p.sim), NDK_STATUS_SUCCESS);
	side_open(&p, 0, &p.s[0], NULL, &o, 0);
	side_open(&p, 1, &p.s[1], NULL, &o, 1);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct ndk_qp_address pa, pb;
	cr_assert_eq(ndk_get_qp_address(a->qp, &pa), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_get_qp_address(b->qp, &pb), NDK_STATUS_SUCCESS);
	struct ndk_connect_attr ca, cb;
	ndk_connect_attr_default(&ca);
	ca.ack_timeout = 1;
	ca.retry_count = 0;
	cb = ca;
	ca.local_psn = 5; /* b expects 0 */
	cr_assert_eq(ndk_connect_qp_ex(a->qp, &pb, &ca), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp_ex(b->qp, &pa, &cb), NDK_STATUS_SUCCESS);
	memset(&g_seen, 0, sizeof(g_seen));
	nicsim_set_frame_handler(p.sim->world, on_frame, NULL);
	struct ndk_sge snd = sge_of(a, 0, 64), rcv = sge_of(b, 0, 64);
	cr_assert_eq(ndk_receive(b->qp, (void *)1, &rcv, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, (void *)2, &snd, 1, 0), NDK_STATUS_SUCCESS);
	expect_cpl(&p, a, NDK_STATUS_IO_TIMEOUT, NDK_OP_SEND, (void *)2, 0);
	ndk_sim_step(p.sim, 2000);
	cr_assert_eq(g_seen.seq_naks[1], 1, "one sequence NAK on the wire");
	const struct ndk_port_counters k0 = counters(a->ad), k1 = counters(b->ad);
	cr_expect_eq(k1.seq_naks_sent, 1);
	cr_expect_eq(k0.seq_naks_received, 1);
	cr_expect_eq(k0.seq_naks_sent + k1.seq_naks_received, 0);
	cr_expect_eq(k0.rnr_naks_received + k1.rnr_naks_sent, 0);
	/* B got PSN 5 while it expected 0: one packet out of sequence; A's timer expired once
	   (retry_count 0: the Send failed, nothing was sent again) */
	cr_expect_eq(k1.out_of_sequence, 1, "B out_of_sequence %" PRIu64, k1.out_of_sequence);
	cr_expect_eq(k0.local_ack_timeouts, 1, "A local_ack_timeouts %" PRIu64,
		     k0.local_ack_timeouts);
	cr_expect_eq(k0.retransmitted_packets + k0.implied_naks + k1.duplicate_requests, 0);
	pair_close(&p);
}

/* The 64-bit words read back as the RTL counts them, at the raw register level: a low word
 * latches the high word; words past the last counter read 0. */
Test(port_counters, registers_hold_64_bit_counters_and_nothing_past_them)
{
	struct nicsim_config c = raw_config(1);
	struct nicsim *w = NULL;
	cr_assert_eq(nicsim_create(&c, &w), 0);
	uint8_t f[256];
	const size_t len = bad_frame(f, sizeof(f));
	for (int i = 0; i < 5; i++)
		cr_assert_eq(nicsim_port_inject(w, 0, f, len), 0);
	nicsim_step(w, 3000);
	const uint32_t base = NIC_REG_PORT_COUNTERS;
	cr_expect_eq(nicsim_mmio_read32(w, 0, base + 8 * NIC_PORT_COUNTER_RX_PACKETS), 5);
	cr_expect_eq(nicsim_mmio_read32(w, 0, base + 8 * NIC_PORT_COUNTER_RX_PACKETS + 4), 0);
	cr_expect_eq(nicsim_mmio_read32(w, 0, base + 8 * NIC_PORT_COUNTER_RX_DROPPED), 5);
	cr_expect_eq(nicsim_mmio_read32(w, 0, base + 8 * NIC_PORT_COUNTER_TX_PACKETS), 0,
		     "injected frames are not the NIC's");
	for (uint32_t off = 8 * NIC_PORT_COUNTER_COUNT; off < 0x100; off += 4)
		cr_expect_eq(nicsim_mmio_read32(w, 0, base + off), 0, "PORT_COUNTERS + 0x%x", off);
	nicsim_destroy(w);
}

/* ---- faults in worlds of Verilated NICs -------------------------------------------------------- */

static uint64_t port_counter(struct nicsim *w, unsigned nic, unsigned index)
{
	const uint32_t lo = nicsim_mmio_read32(w, nic, NIC_REG_PORT_COUNTERS + 8 * index);
	const uint32_t hi = nicsim_mmio_read32(w, nic, NIC_REG_PORT_COUNTERS + 8 * index + 4);
	return (uint64_t)hi << 32 | lo;
}

/* Every corrupted frame, wherever its bit, fails the receiving NIC's checks (ICRC, IPv4
 * checksum, lengths) and is dropped and counted there; the same frames intact are taken. */
Test(faults_world, a_corrupted_frame_is_dropped_by_the_receivers_checks)
{
	enum { N = 48 };
	for (int corrupt = 0; corrupt < 2; corrupt++) {
		struct nicsim_config c = raw_config(2);
		c.link_ns = 500;
		c.seed = 1234;
		c.corrupt_rate = corrupt;
		struct nicsim *w = NULL;
		cr_assert_eq(nicsim_create(&c, &w), 0);
		for (unsigned i = 0; i < N; i++) {
			struct roce_ref_fields f;
			uint8_t payload[200], buf[ROCE_REF_MAX_FRAME(200)];
			for (size_t k = 0; k < sizeof(payload); k++)
				payload[k] = (uint8_t)(i + 7 * k);
			roce_ref_init(&f, 0, NIC_QPN_BASE, 1);
			f.opcode = i % 2 ? ROCE_OP_SEND_ONLY : ROCE_OP_WRITE_ONLY;
			f.dest_qp =
				NIC_QPN_BASE + 3; /* no such QP: an intact frame is not a drop */
			f.psn = i;
			f.reth_va = 0x1000;
			f.reth_dma_len = (uint32_t)(i % 5) * 40;
			f.payload = payload;
			f.payload_len = (i % 5) * 40;
			const size_t len = roce_ref_build(&f, buf, sizeof(buf));
			cr_assert_gt(len, 0);
			cr_assert_eq(nicsim_port_inject(w, 0, buf, len), 0);
		}
		nicsim_step(w, 20000);
		struct nicsim_stats s0, s1;
		nicsim_get_stats(w, 0, &s0);
		nicsim_get_stats(w, 1, &s1);
		cr_expect_eq(s0.faults_corrupted, corrupt ? N : 0);
		cr_expect_eq(s1.frames_received, N);
		cr_expect_eq(nicsim_mmio_read32(w, 1, NIC_REG_RX_DROPS), corrupt ? N : 0,
			     "corrupt %d: RX_DROPS", corrupt);
		cr_expect_eq(port_counter(w, 1, NIC_PORT_COUNTER_RX_DROPPED), corrupt ? N : 0);
		cr_expect_eq(port_counter(w, 1, NIC_PORT_COUNTER_RX_PACKETS), N);
		nicsim_destroy(w);
	}
}

struct drop_first_send {
	struct roce_track *track;
	unsigned calls, dropped;
};

/* drops the first transmission of the first Send NIC 0 sends */
static enum ndk_sim_fault drop_first_send(void *arg, unsigned from, unsigned to,
					  const uint8_t *frame, size_t len)
{
	struct drop_first_send *d = arg;
	struct roce_frame f;
	d->calls++;
	if (roce_track_frame(d->track, from, to, frame, len, &f) && from == 0 &&
	    roce_track_is_send(f.opcode) && f.message == 1 && f.packet == 1 &&
	    f.transmission == 1) {
		d->dropped++;
		return NDK_SIM_FRAME_DROP;
	}
	return NDK_SIM_FRAME_DELIVER;
}

/* The fault hook drops a Send: the capture holds it (it left NIC 0), NIC 0's faults_dropped
 * counts it, NIC 1 never receives it (no frame at all reaches NIC 1, so no ACK comes back). */
Test(faults_world, a_dropped_send_is_captured_counted_and_never_arrives)
{
	char path[128];
	snprintf(path, sizeof(path), "/tmp/ndk_faults_drop_%d_w%u.pcap", (int)getpid(),
		 raw_width());
	struct ndk_sim_config c;
	ndk_sim_default_config(&c);
	c.pcap_path = path;
	struct pair p;
	pair_open_cfg(&p, &c);
	struct drop_first_send d = { roce_track_new(), 0, 0 };
	cr_assert_not_null(d.track);
	ndk_sim_set_fault_hook(p.sim, drop_first_send, &d);
	struct side *a = &p.s[0], *b = &p.s[1];
	struct ndk_sge r = sge_of(b, 0, 256), s = sge_of(a, 0, 200);
	cr_assert_eq(ndk_receive(b->qp, (void *)10, &r, 1), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(a->qp, (void *)1, &s, 1, 0), NDK_STATUS_SUCCESS);
	ndk_sim_step(p.sim, 20000); /* 80 us: far less than any ACK timeout */
	cr_expect_eq(d.calls, 1, "the hook saw the one frame");
	cr_expect_eq(d.dropped, 1);
	struct ndk_sim_stats s0, s1;
	ndk_sim_get_stats(p.sim, 0, &s0);
	ndk_sim_get_stats(p.sim, 1, &s1);
	cr_expect_eq(s0.faults_dropped, 1);
	cr_expect_eq(s0.frames_sent, 1);
	cr_expect_eq(s1.frames_received, 0);
	cr_expect_eq(s1.faults_dropped + s1.faults_corrupted + s1.faults_duplicated +
			     s1.faults_reordered,
		     0);
	const struct ndk_port_counters k0 = counters(a->ad), k1 = counters(b->ad);
	cr_expect_eq(k0.tx_packets, 1);
	cr_expect_eq(k1.rx_packets, 0);
	cr_assert_eq(nicsim_pcap_flush(p.sim->world), 0);
	struct pcap_capture cap;
	char err[256];
	cr_assert_eq(pcap_read(path, &cap, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cap.count, 1, "the capture holds the dropped Send");
	struct roce_ref_fields f;
	cr_assert_eq(roce_ref_parse(cap.records[0].bytes, cap.records[0].len, &f), ROCE_REF_OK);
	cr_expect_eq(f.opcode, ROCE_OP_SEND_ONLY);
	cr_expect_eq(f.payload_len, 200);
	pcap_free(&cap);
	roce_track_free(d.track);
	pair_close(&p);
	unlink(path);
}
