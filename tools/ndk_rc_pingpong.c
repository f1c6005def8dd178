/* SPDX-License-Identifier: MIT */
/*
 * ndk_rc_pingpong: rdma-core's ibv_rc_pingpong, the libndk side, for interoperability runs
 * against the unmodified tool (docs/interop.md). The simulated NIC's port is wired to a real
 * network (ndk_sim_wire.h: UDP datagrams, e.g. a QEMU guest's virtio-net running rdma_rxe).
 *
 *   ndk_rc_pingpong [options]          server: wait for ibv_rc_pingpong HOST
 *   ndk_rc_pingpong [options] HOST     client: against ibv_rc_pingpong (server) on HOST
 *
 * The out-of-band exchange is ibv_rc_pingpong's, byte for byte: over TCP (port 18515), the
 * client writes "LID:QPN:PSN:GID" ("%04x:%06x:%06x:" and 32 hex digits of the GID's 16 bytes in
 * wire order; 52 bytes with the NUL), the server answers with its own (after it connected its
 * QP), the client writes "done" (5 bytes). The GID is IPv4-mapped (::ffff:a.b.c.d, RoCEv2):
 * ours is the NIC's address, the peer's gives its IPv4 address; its MAC comes from --peer-mac
 * (the NIC does not resolve addresses). Start PSNs are drawn from --seed.
 *
 * The ping-pong is ibv_rc_pingpong's: every message is the whole buffer, sent back and forth
 * (-n times each way); the client sends first, the server echoes what it received. The buffer
 * starts as ibv_rc_pingpong's does with -c (--chk): 0x7b, with byte 0 of every 4096-byte page
 * 0. Every byte of every message received is checked against that (ibv_rc_pingpong -c checks
 * the page bytes of what it received last). Exit status 0 only if every exchange completed and
 * every byte matched.
 */
#include <getopt.h>

#include "ndk_wired.h"

#define PP_PAGE 4096u

struct pp {
	struct wired w;
	const char *host;
	unsigned port;
	uint32_t size, iters, rx_posted;
	uint8_t *expect;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ndk_rc_pingpong [options] [HOST]\n"
		"  -p, --port=PORT       TCP port of the exchange (default 18515)\n"
		"  -s, --size=BYTES      message size (default 4096)\n"
		"  -n, --iters=N         exchanges (default 1000)\n"
		"  -m, --mtu=BYTES       path MTU 256..4096 (default 1024)\n"
		"      --peer-mac=MAC    the peer's Ethernet address (default " WIRED_DEFAULT_PEER_MAC
		")\n"
		"      --wire-local=IP:PORT   UDP end of the wire here (default 127.0.0.1:18600)\n"
		"      --wire-remote=IP:PORT  UDP end of the peer (default: learnt from its first frame)\n"
		"      --pcap=FILE       capture every frame of the wire\n"
		"      --seed=N          world seed and start PSN (default 1)\n"
		"      --timeout=S       give up after S seconds of real time (default 120)\n"
		"      --wire-kbps=KBPS  frames leave at most at this real-time rate (default: no limit)\n"
		"      --nic=0|1         this side's NIC (MAC 02:00:00:00:00:01 / :02); the other\n"
		"                        stands for the wire (default 0)\n");
}

/* "LID:QPN:PSN:GID" as ibv_rc_pingpong writes it (lid 0: RoCE) */
#define PP_MSG_BYTES sizeof("0000:000000:000000:00000000000000000000000000000000")

static void pp_msg(char msg[PP_MSG_BYTES], uint32_t qpn, uint32_t psn, const uint8_t gid[16])
{
	int n = snprintf(msg, PP_MSG_BYTES, "%04x:%06x:%06x:", 0u, qpn, psn);
	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, PP_MSG_BYTES - (size_t)n, "%02x", gid[i]);
}

static void pp_parse(const char msg[PP_MSG_BYTES], uint32_t *qpn, uint32_t *psn, uint32_t *ipv4)
{
	unsigned lid, q, p;
	char hex[33];
	uint8_t gid[16];
	if (memchr(msg, 0, PP_MSG_BYTES) == NULL ||
	    sscanf(msg, "%x:%x:%x:%32s", &lid, &q, &p, hex) != 4 || strlen(hex) != 32)
		wired_fail("cannot parse the peer's address \"%.*s\"", (int)PP_MSG_BYTES, msg);
	for (int i = 0; i < 16; i++) {
		unsigned b;
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			wired_fail("bad GID in \"%s\"", msg);
		gid[i] = (uint8_t)b;
	}
	if (wired_ipv4_of_gid(gid, ipv4))
		wired_fail("the peer's GID %s is not IPv4-mapped: run ibv_rc_pingpong with -g and "
			   "the index of its RoCEv2 IPv4 GID",
			   hex);
	*qpn = q & 0xFFFFFF;
	*psn = p & 0xFFFFFF;
}

static void pp_post_receives(struct pp *p)
{
	struct wired *w = &p->w;
	/* receives land in the second half of the region, sends leave from the first */
	struct ndk_sge g = { .address = w->buf.logical + w->o.region_bytes / 2,
			     .length = p->size,
			     .token = w->priv };
	while (p->rx_posted < 16) {
		wired_check("receive", ndk_receive(w->qp, NULL, &g, 1));
		p->rx_posted++;
	}
}

static void pp_check(struct pp *p, const struct ndk_result_ex *r, uint32_t i)
{
	const uint8_t *got = (const uint8_t *)p->w.buf.va + p->w.o.region_bytes / 2;
	if (r->bytes_transferred != p->size)
		wired_fail("exchange %u: received %u bytes, want %u", i, r->bytes_transferred,
			   p->size);
	for (uint32_t b = 0; b < p->size; b++)
		if (got[b] != p->expect[b])
			wired_fail("exchange %u: byte %u is 0x%02x, want 0x%02x", i, b, got[b],
				   p->expect[b]);
	/* echo: what came is what goes (ibv_rc_pingpong uses one buffer for both) */
	memcpy(p->w.buf.va, got, p->size);
	memset((uint8_t *)p->w.buf.va + p->w.o.region_bytes / 2, 0xEE, p->size);
}

static void pp_send(struct pp *p)
{
	struct ndk_sge g = { .address = p->w.buf.logical, .length = p->size, .token = p->w.priv };
	wired_check("send", ndk_send(p->w.qp, NULL, &g, 1, 0));
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "peer-mac", required_argument, NULL, 'M' },
		{ "wire-local", required_argument, NULL, 'L' },
		{ "wire-remote", required_argument, NULL, 'R' },
		{ "pcap", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "wire-kbps", required_argument, NULL, 'W' },
		{ "nic", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct pp p = { .port = 18515, .size = 4096, .iters = 1000 };
	struct wired_opts o;
	int c;

	wired_default_opts(&o);
	while ((c = getopt_long(argc, argv, "p:s:n:m:h", longs, NULL)) != -1) {
		switch (c) {
		case 'p':
			p.port = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 's':
			p.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			p.iters = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o.mtu = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'M':
			if (wired_parse_mac(optarg, o.peer_mac)) {
				fprintf(stderr, "ndk_rc_pingpong: bad MAC %s\n", optarg);
				return 2;
			}
			break;
		case 'L':
			o.wire_local = optarg;
			break;
		case 'R':
			o.wire_remote = optarg;
			break;
		case 'P':
			o.pcap = optarg;
			break;
		case 'S':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'W':
			o.wire_kbps = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'T':
			o.timeout_s = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'N':
			o.nic = (unsigned)strtoul(optarg, NULL, 0) ? 1 : 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		p.host = argv[optind++];
	if (optind != argc || p.size == 0 || p.iters == 0 || p.port > 65535) {
		usage(stderr);
		return 2;
	}
	/* room for a send buffer and a receive buffer of `size`, in whole pages */
	o.region_bytes = 2 * ((p.size + PP_PAGE - 1) / PP_PAGE) * PP_PAGE;
	o.rq_depth = 32;
	o.sq_depth = 4;
	wired_open(&p.w, "ndk_rc_pingpong", &o);
	struct wired *w = &p.w;
	if (p.size > w->info.max_transfer_length)
		wired_fail("size %u over the device's largest message %u", p.size,
			   (unsigned)w->info.max_transfer_length);

	/* ibv_rc_pingpong's buffer with -c */
	p.expect = malloc(p.size);
	if (!p.expect)
		wired_fail("out of memory");
	memset(p.expect, 0x7b, p.size);
	for (uint32_t i = 0; i < p.size; i += PP_PAGE)
		p.expect[i] = 0;
	memcpy(w->buf.va, p.expect, p.size);
	pp_post_receives(&p);

	srand48((long)o.seed);
	const uint32_t my_psn = (uint32_t)lrand48() & 0xFFFFFF;
	uint8_t gid[16];
	char mine[PP_MSG_BYTES], theirs[PP_MSG_BYTES], done[sizeof("done")];
	uint32_t peer_qpn, peer_psn, peer_ip;
	wired_gid_of_ipv4(w->me.ipv4, gid);
	pp_msg(mine, w->me.qp_number, my_psn, gid);
	printf("  local address:  LID 0x0000, QPN 0x%06x, PSN 0x%06x, IPv4 %u.%u.%u.%u\n",
	       w->me.qp_number, my_psn, w->me.ipv4 >> 24, (w->me.ipv4 >> 16) & 255,
	       (w->me.ipv4 >> 8) & 255, w->me.ipv4 & 255);
	if (p.host) {
		int fd = oob_connect(p.host, p.port, w->deadline);
		oob_write(fd, mine, sizeof(mine), "address");
		oob_read(fd, theirs, sizeof(theirs), "address");
		oob_write(fd, "done", sizeof("done"), "done");
		close(fd);
		pp_parse(theirs, &peer_qpn, &peer_psn, &peer_ip);
		wired_connect(w, peer_qpn, peer_psn, peer_ip, my_psn, 1);
	} else {
		int fd = oob_accept(p.port);
		oob_read(fd, theirs, sizeof(theirs), "address");
		pp_parse(theirs, &peer_qpn, &peer_psn, &peer_ip);
		wired_connect(w, peer_qpn, peer_psn, peer_ip, my_psn, 1);
		oob_write(fd, mine, sizeof(mine), "address");
		oob_read(fd, done, sizeof(done), "done");
		close(fd);
	}
	printf("  remote address: LID 0x0000, QPN 0x%06x, PSN 0x%06x, IPv4 %u.%u.%u.%u\n", peer_qpn,
	       peer_psn, peer_ip >> 24, (peer_ip >> 16) & 255, (peer_ip >> 8) & 255, peer_ip & 255);

	const uint64_t c0 = ndk_sim_cycle(w->sim);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct ndk_result_ex r;
	for (uint32_t i = 0; i < p.iters; i++) {
		if (p.host) {
			pp_send(&p);
			wired_wait(w, w->scq, &r, 1, "send");
			wired_wait(w, w->rcq, &r, 1, "receive");
			p.rx_posted--;
			pp_check(&p, &r, i);
		} else {
			wired_wait(w, w->rcq, &r, 1, "receive");
			p.rx_posted--;
			pp_check(&p, &r, i);
			pp_send(&p);
			wired_wait(w, w->scq, &r, 1, "send");
		}
		pp_post_receives(&p);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	const uint64_t cycles = ndk_sim_cycle(w->sim) - c0;
	printf("%llu bytes in %.2f seconds (real); %u iters, every byte checked; %" PRIu64
	       " simulated cycles\n",
	       (unsigned long long)p.size * p.iters * 2, s, p.iters, cycles);
	wired_report();
	free(p.expect);
	wired_close(w);
	return 0;
}
