/* SPDX-License-Identifier: MIT */
/*
 * ndkperf's interop modes (docs/ndkperf.md, docs/interop.md): one side of a perftest run on a
 * simulated NIC whose port is wired to a real network (ndk_sim_wire.h), the other side being
 * perftest itself (Debian's perftest 4.5-0.17, "6.06") on another RoCEv2 implementation.
 *
 *   ndkperf TEST --server [options]       the side `ib_TEST HOST` connects to
 *   ndkperf TEST --peer HOST [options]    the side that connects to `ib_TEST` (a server)
 *
 * TEST: send_bw, write_bw, read_bw, send_lat. The out-of-band exchange is perftest's over TCP
 * (port 18515, without rdma_cm), message for message: versions (16 bytes, "6.06"), the
 * page and cache-line sizes (4 bytes each, network order), the MTU ("3": 1024, 2 bytes), then
 * "keys" messages of 108 bytes ("%04x:%04x:%06x:%06x:%08x:%016llx:" LID, outstanding reads,
 * QPN, PSN, R_Key, VA, then the GID's 16 bytes "%02x:" each and the SRQ number "%08x:"), which
 * also serve as the barriers between phases, and the bandwidth reports (5 values of 8 bytes).
 * In every exchange the client writes first and the server answers with as many bytes.
 *
 * The server is driven by the client: after the keys it answers every message in kind (a
 * barrier with its keys, anything else with as many bytes) while its NIC runs, keeps receives
 * posted (send tests) and answers each Send with one of the same size (send_lat), until the
 * client closes the connection. The client follows perftest's phases for its test (the step
 * strings below) and runs the traffic: -n requests of -s bytes (Writes to / Reads from the
 * server's buffer with its R_Key, Sends, or a Send ping-pong).
 *
 * Times are simulated (the NIC's clock); the peer lives in real time (ndk_sim_wire.h).
 */
#ifndef NDKPERF_PERFTEST_H
#define NDKPERF_PERFTEST_H

#include "ndk_wired.h"

#define PT_VERSION	 "6.06" /* the perftest these modes were checked against */
#define PT_VERSION_BYTES 16	/* perftest's MAX_VERSION */
#define PT_KEYS_BYTES	 108	/* KEY_MSG_SIZE_GID */
#define PT_REPORT_VALUES 5	/* size, iters, bw_peak, bw_avg, msgRate_avg */

enum pt_test { PT_SEND_BW, PT_WRITE_BW, PT_READ_BW, PT_SEND_LAT, PT_TESTS };
static const char *const pt_names[PT_TESTS] = { "send_bw", "write_bw", "read_bw", "send_lat" };
/*
 * The client's phases, as perftest 6.06's server expects them: V versions, S page and cache-line
 * sizes, M MTU, K keys (then the QP connects), Y a barrier (keys again), R the traffic, P the
 * reports, Z the closing 5 bytes. Learnt from perftest 6.06's clients against --server, which
 * prints the sizes of what the client sent after its keys (write_bw: 108 108, the traffic,
 * 108, 8 x 5, 108, 5; send_lat: 108 x 3, the traffic, 108, 5). ndkperf --steps overrides
 * them (for another perftest version).
 */
static const char *const pt_steps[PT_TESTS] = { "VSMKYKYRYZ", "VSMKYYRYPYZ", "VSMKYYRYPYZ",
						"VSMKYYYRYZ" };

struct pt_keys {
	uint32_t lid, out_reads, qpn, psn, rkey, srqn;
	uint64_t vaddr;
	uint8_t gid[16];
};

struct pt {
	struct wired w;
	enum pt_test test;
	const char *peer; /* NULL: server */
	const char *steps;
	unsigned port;
	uint32_t size, iters, tx_depth;
	int fd;
	struct pt_keys mine, theirs;
	uint32_t peer_ip;
	uint32_t rx_posted;
	uint64_t run_cycles;
	uint64_t completed;
};

static void pt_keys_format(const struct pt_keys *k, char msg[PT_KEYS_BYTES])
{
	int n = snprintf(msg, PT_KEYS_BYTES, "%04x:%04x:%06x:%06x:%08x:%016llx:", k->lid,
			 k->out_reads, k->qpn, k->psn, k->rkey, (unsigned long long)k->vaddr);
	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, PT_KEYS_BYTES - (size_t)n, "%02x:", k->gid[i]);
	snprintf(msg + n, PT_KEYS_BYTES - (size_t)n, "%08x:", k->srqn);
}

static void pt_keys_parse(const char msg[PT_KEYS_BYTES], struct pt_keys *k)
{
	unsigned long long va;
	unsigned g[16];
	int used = 0;
	if (memchr(msg, 0, PT_KEYS_BYTES) == NULL ||
	    sscanf(msg, "%x:%x:%x:%x:%x:%llx:%n", &k->lid, &k->out_reads, &k->qpn, &k->psn,
		   &k->rkey, &va, &used) != 6 ||
	    used == 0)
		wired_fail("cannot parse perftest's keys \"%.*s\"", PT_KEYS_BYTES, msg);
	k->vaddr = va;
	const char *p = msg + used;
	for (int i = 0; i < 16; i++) {
		if (sscanf(p, "%2x:", &g[i]) != 1)
			wired_fail("cannot parse the GID in perftest's keys \"%s\"", msg);
		k->gid[i] = (uint8_t)g[i];
		p += 3;
	}
	k->srqn = 0;
	sscanf(p, "%x:", &k->srqn);
}

/* one exchange of n bytes: the client writes first, the server answers */
static void pt_xchg(struct pt *t, const void *mine, void *theirs, size_t n, const char *what)
{
	if (t->peer) {
		oob_write(t->fd, mine, n, what);
		oob_read(t->fd, theirs, n, what);
	} else {
		oob_read(t->fd, theirs, n, what);
		oob_write(t->fd, mine, n, what);
	}
}

static void pt_barrier(struct pt *t)
{
	char mine[PT_KEYS_BYTES], theirs[PT_KEYS_BYTES];
	pt_keys_format(&t->mine, mine);
	pt_xchg(t, mine, theirs, sizeof(mine), "barrier");
}

static uint64_t pt_be64(uint64_t v)
{
	return ((uint64_t)htonl((uint32_t)v) << 32) | htonl((uint32_t)(v >> 32));
}

static void pt_post_receives(struct pt *t, uint32_t want)
{
	struct wired *w = &t->w;
	struct ndk_sge g = { .address = w->buf.logical, .length = t->size, .token = w->priv };
	while (t->rx_posted < want) {
		wired_check("receive", ndk_receive(w->qp, NULL, &g, 1));
		t->rx_posted++;
	}
}

static void pt_send(struct pt *t)
{
	struct ndk_sge g = { .address = t->w.buf.logical, .length = t->size, .token = t->w.priv };
	wired_check("send", ndk_send(t->w.qp, NULL, &g, 1, 0));
}

/* the receives a send test keeps posted: the ring, or what the run needs */
static uint32_t pt_rx_want(const struct pt *t)
{
	if (t->test != PT_SEND_BW && t->test != PT_SEND_LAT)
		return 0;
	return t->w.o.rq_depth;
}

/* receive completions: count them, replenish, and (send_lat server) answer each one */
static unsigned pt_receives(struct pt *t)
{
	struct ndk_result_ex r[16];
	size_t n = ndk_get_cq_results_ex(t->w.rcq, r, 16);
	for (size_t i = 0; i < n; i++) {
		if (r[i].status != NDK_STATUS_SUCCESS)
			wired_fail("receive: completion %s", ndk_status_name(r[i].status));
		t->rx_posted--;
		if (!t->peer && t->test == PT_SEND_LAT)
			pt_send(t);
	}
	if (n)
		pt_post_receives(t, pt_rx_want(t));
	return (unsigned)n;
}

/* send-queue completions (the server's send_lat answers) */
static void pt_sends_reap(struct pt *t)
{
	struct ndk_result_ex r[16];
	size_t n = ndk_get_cq_results_ex(t->w.scq, r, 16);
	for (size_t i = 0; i < n; i++)
		if (r[i].status != NDK_STATUS_SUCCESS)
			wired_fail("send: completion %s", ndk_status_name(r[i].status));
}

/* ---- the server: answer the client in kind until it closes -------------------------------- */

static void pt_serve(struct pt *t)
{
	char buf[4096];
	struct pollfd pf = { .fd = t->fd, .events = POLLIN };
	/* what the client sent after its keys, for the record: its phases (--steps) */
	printf(" the client's messages after its keys (bytes):");
	for (;;) {
		pt_receives(t);
		pt_sends_reap(t);
		if (poll(&pf, 1, 0) > 0) {
			ssize_t n = read(t->fd, buf, sizeof(buf));
			if (n == 0) {
				printf(" (closed)\n");
				return; /* the client is done */
			}
			printf(" %zd", n);
			if (n < 0)
				wired_fail("out-of-band read: %s", strerror(errno));
			if (n == PT_KEYS_BYTES) {
				char mine[PT_KEYS_BYTES];
				pt_keys_format(&t->mine, mine);
				oob_write(t->fd, mine, sizeof(mine), "barrier");
			} else {
				/* a report value or anything else: as many bytes, zero (the reports are
				   the client's to print) */
				memset(buf, 0, (size_t)n);
				oob_write(t->fd, buf, (size_t)n, "answer");
			}
		}
		wired_idle(&t->w, "the perftest client");
	}
}

/* ---- the client: the traffic ------------------------------------------------------------- */

static void pt_run(struct pt *t)
{
	struct wired *w = &t->w;
	struct ndk_result_ex r[16];
	const uint64_t c0 = ndk_sim_cycle(w->sim);
	uint64_t posted = 0, done = 0;
	if (t->test == PT_SEND_LAT) {
		for (uint32_t i = 0; i < t->iters; i++) {
			pt_send(t);
			wired_wait(w, w->scq, r, 1, "send");
			while (pt_receives(t) == 0)
				wired_idle(w, "the perftest server's answer");
		}
		done = t->iters;
	} else {
		while (done < t->iters) {
			while (posted < t->iters && posted - done < t->tx_depth) {
				struct ndk_sge g = { .address = w->buf.logical,
						     .length = t->size,
						     .token = w->priv };
				ndk_status st;
				if (t->test == PT_SEND_BW)
					st = ndk_send(w->qp, NULL, &g, 1, 0);
				else if (t->test == PT_WRITE_BW)
					st = ndk_write(w->qp, NULL, &g, 1, t->theirs.vaddr,
						       t->theirs.rkey, 0);
				else
					st = ndk_read(w->qp, NULL, &g, 1, t->theirs.vaddr,
						      t->theirs.rkey, 0);
				wired_check("post", st);
				posted++;
			}
			done += wired_wait(w, w->scq, r, 16, "the traffic");
		}
	}
	t->run_cycles = ndk_sim_cycle(w->sim) - c0;
	t->completed = done;
}

static void pt_reports(struct pt *t)
{
	const double us = (double)t->run_cycles / 250.0;
	const double mbs = us > 0 ? (double)t->size * (double)t->completed / us : 0;
	const double mpps = us > 0 ? (double)t->completed / us : 0;
	uint64_t v[PT_REPORT_VALUES], theirs;
	double d[3] = { mbs, mbs, mpps };
	v[0] = pt_be64(t->size);
	v[1] = pt_be64(t->completed);
	for (int i = 0; i < 3; i++) {
		uint64_t bits;
		memcpy(&bits, &d[i], sizeof(bits));
		v[2 + i] = pt_be64(bits);
	}
	for (int i = 0; i < PT_REPORT_VALUES; i++)
		pt_xchg(t, &v[i], &theirs, sizeof(theirs), "report");
}

/* ---- the whole run ------------------------------------------------------------------------ */

static void pt_usage(FILE *f)
{
	fprintf(f,
		"usage: ndkperf send_bw|write_bw|read_bw|send_lat (--server | --peer HOST) [options]\n"
		"  -s, --size=BYTES        message size (default 65536 for *_bw, 2 for send_lat)\n"
		"  -n, --iters=N           iterations (default 5000 for *_bw, 1000 for send_lat)\n"
		"  -p, --port=PORT         perftest's TCP port (default 18515)\n"
		"  -t, --tx-depth=N        requests in flight (default 128)\n"
		"      --peer-mac=MAC      the peer's Ethernet address (default " WIRED_DEFAULT_PEER_MAC
		")\n"
		"      --wire-local=IP:PORT, --wire-remote=IP:PORT   the wire's UDP ends\n"
		"      --pcap=FILE, --seed=N, --timeout=S, --nic=0|1, --mtu=BYTES, --wire-kbps=KBPS\n"
		"      --steps=STRING      the client's phases (default: perftest 6.06's for TEST)\n");
}

static int perftest_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "server", no_argument, NULL, 'D' },
		{ "peer", required_argument, NULL, 'H' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "peer-mac", required_argument, NULL, 'M' },
		{ "wire-local", required_argument, NULL, 'L' },
		{ "wire-remote", required_argument, NULL, 'R' },
		{ "pcap", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "wire-kbps", required_argument, NULL, 'W' },
		{ "nic", required_argument, NULL, 'N' },
		{ "steps", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct pt t;
	struct wired_opts o;
	bool server = false;
	int c;

	t.port = 18515;
	t.tx_depth = 128;
	t.test = PT_TESTS;
	for (int i = 0; i < PT_TESTS; i++)
		if (argc > 1 && strcmp(argv[1], pt_names[i]) == 0)
			t.test = (enum pt_test)i;
	if (t.test == PT_TESTS) {
		pt_usage(stderr);
		return EXIT_USAGE;
	}
	wired_default_opts(&o);
	optind = 2;
	while ((c = getopt_long(argc, argv, "s:n:p:t:m:h", longs, NULL)) != -1) {
		switch (c) {
		case 'D':
			server = true;
			break;
		case 'H':
			t.peer = optarg;
			break;
		case 's':
			t.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			t.iters = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			t.port = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 't':
			t.tx_depth = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o.mtu = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'M':
			if (wired_parse_mac(optarg, o.peer_mac)) {
				fprintf(stderr, "ndkperf: bad MAC %s\n", optarg);
				return EXIT_USAGE;
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
			o.nic = strtoul(optarg, NULL, 0) ? 1 : 0;
			break;
		case 'X':
			t.steps = optarg;
			break;
		case 'h':
			pt_usage(stdout);
			return 0;
		default:
			pt_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || server == (t.peer != NULL) || t.tx_depth == 0) {
		pt_usage(stderr);
		return EXIT_USAGE;
	}
	const bool lat = t.test == PT_SEND_LAT;
	if (!t.size)
		t.size = lat ? 2 : 65536;
	if (!t.iters)
		t.iters = lat ? 1000 : 5000;
	if (!t.steps)
		t.steps = pt_steps[t.test];
	/* one buffer for everything, as perftest's (nobody checks its bytes): sends, receives,
	   the peer's writes and reads; perftest moves its address inside a 4 KiB cycle for small
	   messages */
	o.region_bytes = ((t.size < 8192 ? 8192 : t.size) + NDK_PAGE_SIZE - 1) / NDK_PAGE_SIZE *
			 NDK_PAGE_SIZE;
	o.sq_depth = t.tx_depth;
	o.rq_depth = (t.test == PT_SEND_BW || lat) ? 512 : 1;
	wired_open(&t.w, "ndkperf", &o);
	struct wired *w = &t.w;
	if (o.region_bytes / NDK_PAGE_SIZE > w->info.frmr_page_count)
		wired_fail("-s %u: larger than a region this device registers", t.size);
	pt_post_receives(&t, pt_rx_want(&t));

	srand48((long)o.seed);
	t.mine.lid = 0;
	t.mine.out_reads = w->info.max_inbound_read_limit;
	t.mine.qpn = w->me.qp_number;
	t.mine.psn = (uint32_t)lrand48() & 0xFFFFFF;
	t.mine.rkey = ndk_get_remote_token_from_mr(w->mr);
	t.mine.vaddr = (uint64_t)(uintptr_t)w->buf.va;
	wired_gid_of_ipv4(w->me.ipv4, t.mine.gid);
	t.fd = t.peer ? oob_connect(t.peer, t.port, w->deadline) : oob_accept(t.port);

	char ver[PT_VERSION_BYTES] = PT_VERSION, rver[PT_VERSION_BYTES];
	uint32_t sys[2] = { htonl(4096), htonl(64) }, rsys;
	char mtu[2] = { (char)('0' + __builtin_ctz(o.mtu) - 7), 0 }, rmtu[2];
	const char *steps = t.peer ? t.steps : "VSMK";
	bool connected = false;
	for (const char *s = steps; *s; s++) {
		switch (*s) {
		case 'V':
			pt_xchg(&t, ver, rver, sizeof(ver), "versions");
			rver[PT_VERSION_BYTES - 1] = 0;
			if (atof(rver) < 5.70)
				wired_fail(
					"perftest %s: older than 5.70, which this exchange needs",
					rver);
			break;
		case 'S':
			pt_xchg(&t, &sys[0], &rsys, 4, "page size");
			pt_xchg(&t, &sys[1], &rsys, 4, "cache line size");
			break;
		case 'M':
			pt_xchg(&t, mtu, rmtu, sizeof(mtu), "MTU");
			if (rmtu[0] < mtu[0])
				wired_fail(
					"the peer's MTU (%c) is below this side's (%c): use --mtu",
					rmtu[0], mtu[0]);
			break;
		case 'K': {
			char mine[PT_KEYS_BYTES], theirs[PT_KEYS_BYTES];
			pt_keys_format(&t.mine, mine);
			if (t.peer) {
				oob_write(t.fd, mine, sizeof(mine), "keys");
				oob_read(t.fd, theirs, sizeof(theirs), "keys");
			} else {
				oob_read(t.fd, theirs, sizeof(theirs), "keys");
			}
			pt_keys_parse(theirs, &t.theirs);
			if (connected) /* keys again (send_bw prints them after connecting) */
				break;
			connected = true;
			if (wired_ipv4_of_gid(t.theirs.gid, &t.peer_ip))
				wired_fail(
					"the peer's GID is not IPv4-mapped (RoCEv2 over IPv4 only)");
			wired_connect(w, t.theirs.qpn, t.theirs.psn, t.peer_ip, t.mine.psn,
				      t.theirs.out_reads ? t.theirs.out_reads : 1);
			if (!t.peer)
				oob_write(t.fd, mine, sizeof(mine), "keys");
			printf(" local address: QPN %#06x PSN %#06x RKey %#08x VAddr %#016llx\n"
			       " remote address: QPN %#06x PSN %#06x RKey %#08x VAddr %#016llx OUT %u\n",
			       t.mine.qpn, t.mine.psn, t.mine.rkey,
			       (unsigned long long)t.mine.vaddr, t.theirs.qpn, t.theirs.psn,
			       t.theirs.rkey, (unsigned long long)t.theirs.vaddr,
			       t.theirs.out_reads);
			fflush(stdout);
			break;
		}
		case 'Y':
			pt_barrier(&t);
			break;
		case 'R':
			pt_run(&t);
			break;
		case 'P':
			pt_reports(&t);
			break;
		case 'Z': {
			char done[5] = "done", rdone[5];
			pt_xchg(&t, done, rdone, sizeof(done), "close");
			break;
		}
		default:
			wired_fail("--steps: unknown step '%c'", *s);
		}
	}
	if (t.peer) {
		const double us = (double)t.run_cycles / 250.0;
		printf(" %s against perftest %s: %" PRIu64 " x %u bytes in %.2f us (simulated): "
		       "%.2f MB/s\n",
		       pt_names[t.test], rver, t.completed, t.size, us,
		       us > 0 ? (double)t.size * (double)t.completed / us : 0.0);
	} else {
		pt_serve(&t);
		printf(" %s server for perftest %s: the client closed the exchange\n",
		       pt_names[t.test], rver);
	}
	close(t.fd);
	wired_report();
	wired_close(w);
	return 0;
}

#endif /* NDKPERF_PERFTEST_H */
