// SPDX-License-Identifier: MIT
/*
 * pcap_check: pcap reading and the tshark + roce_ref check of RoCEv2 captures (pcap_check.h).
 */
#include "pcap_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PI_WARN 0x00600000u /* Wireshark's expert severities (epan/proto.h) */

/* ---- pcap files ------------------------------------------------------------------------------ */

static uint32_t swap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint32_t rd32(const uint8_t *p, bool swapped)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swapped ? swap32(v) : v;
}

static uint16_t rd16(const uint8_t *p, bool swapped)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

int pcap_read(const char *path, struct pcap_capture *cap, char *err, size_t errlen)
{
	uint8_t h[24], rh[16];
	size_t cap_records = 0;
	FILE *f;

	memset(cap, 0, sizeof(*cap));
	err[0] = 0;
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(h, sizeof(h), 1, f) != 1) {
		snprintf(err, errlen, "%s: shorter than a pcap file header", path);
		goto out_fail;
	}
	memcpy(&cap->magic, h, 4);
	switch (cap->magic) {
	case 0xa1b23c4d:
		cap->nanoseconds = true;
		break;
	case 0xa1b2c3d4:
		break;
	case 0x4d3cb2a1:
		cap->nanoseconds = cap->swapped = true;
		break;
	case 0xd4c3b2a1:
		cap->swapped = true;
		break;
	default:
		snprintf(err, errlen, "%s: not a pcap file (magic 0x%08x)", path, cap->magic);
		goto out_fail;
	}
	cap->version_major = rd16(h + 4, cap->swapped);
	cap->version_minor = rd16(h + 6, cap->swapped);
	cap->thiszone = (int32_t)rd32(h + 8, cap->swapped);
	cap->sigfigs = rd32(h + 12, cap->swapped);
	cap->snaplen = rd32(h + 16, cap->swapped);
	cap->linktype = rd32(h + 20, cap->swapped);
	for (;;) {
		struct pcap_record *r;
		size_t got = fread(rh, 1, sizeof(rh), f);

		if (got == 0)
			break;
		if (got != sizeof(rh)) {
			snprintf(err, errlen, "%s: record %zu: truncated header", path,
				 cap->count + 1);
			goto out_fail;
		}
		if (cap->count == cap_records) {
			size_t n = cap_records ? 2 * cap_records : 64;
			void *p = realloc(cap->records, n * sizeof(*cap->records));
			if (!p) {
				snprintf(err, errlen, "out of memory");
				goto out_fail;
			}
			cap->records = p;
			cap_records = n;
		}
		r = &cap->records[cap->count];
		r->ts_ns = (uint64_t)rd32(rh, cap->swapped) * 1000000000u +
			   (uint64_t)rd32(rh + 4, cap->swapped) * (cap->nanoseconds ? 1 : 1000);
		r->len = rd32(rh + 8, cap->swapped);
		r->orig_len = rd32(rh + 12, cap->swapped);
		if (r->len > 262144) {
			snprintf(err, errlen, "%s: record %zu: %u bytes", path, cap->count + 1,
				 r->len);
			goto out_fail;
		}
		r->bytes = malloc(r->len ? r->len : 1);
		if (!r->bytes) {
			snprintf(err, errlen, "out of memory");
			goto out_fail;
		}
		cap->count++;
		if (r->len && fread(r->bytes, r->len, 1, f) != 1) {
			snprintf(err, errlen, "%s: record %zu: truncated data", path, cap->count);
			goto out_fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_fail;
	}
	fclose(f);
	return 0;

out_fail:
	fclose(f);
	pcap_free(cap);
	return -1;
}

void pcap_free(struct pcap_capture *cap)
{
	for (size_t i = 0; i < cap->count; i++)
		free(cap->records[i].bytes);
	free(cap->records);
	cap->records = NULL;
	cap->count = 0;
}

/* ---- the check ------------------------------------------------------------------------------- */

static void problem(struct roce_pcap_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct roce_pcap_check *c, const char *fmt, ...)
{
	size_t used = strlen(c->log);
	va_list ap;

	c->problems++;
	if (used + 1 >= sizeof(c->log))
		return;
	va_start(ap, fmt);
	vsnprintf(c->log + used, sizeof(c->log) - used, fmt, ap);
	va_end(ap);
	used = strlen(c->log);
	if (used + 1 < sizeof(c->log)) {
		c->log[used] = '\n';
		c->log[used + 1] = 0;
	}
}

/* the fields tshark prints, in this order, tab separated */
static const char *const tshark_fields[] = {
	"frame.number",	       "frame.protocols",	   "ip.checksum.status",
	"udp.dstport",	       "infiniband.bth.opcode",	   "infiniband.bth.destqp",
	"infiniband.bth.psn",  "infiniband.invariant.crc", "_ws.malformed",
	"_ws.expert.severity", "_ws.expert.message",
};
#define NFIELDS (sizeof(tshark_fields) / sizeof(tshark_fields[0]))

static int64_t num(const char *s)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	v = strtoll(s, &end, 0);
	return end == s ? -1 : (int64_t)v;
}

/*
 * tshark's heuristic dissectors of InfiniBand payload (tshark -G heuristic-decodes, table
 * infiniband.payload; these are their short names). Each tries to read the payload as its own
 * upper-layer protocol (RPC-over-RDMA, SMB Direct, NVMe over RDMA, ...) and some claim arbitrary
 * bytes, then report a malformed packet: a 4-byte payload 5a 5b 58 59 becomes a broken
 * RPC-over-RDMA header. Our payloads are test data, so they are all switched off; BTH and the
 * extension headers are dissected as before. tshark refuses a name it does not know.
 */
static const char *const payload_heuristics[] = {
	"rpcrdma_infiniband", "smcr_infiniband", "smb_direct_infiniband",
	"nvme_rdma",	      "lnet_ib",	 "iser_infiniband",
	"eth_over_ib",	      "mellanox_eoib",	 "sdp_infiniband",
	"fc_infiniband",
};
#define NHEUR (sizeof(payload_heuristics) / sizeof(payload_heuristics[0]))

/* one line of tshark's output into the report of its frame */
static void take_line(struct roce_pcap_check *c, char *line)
{
	char *field[NFIELDS] = { 0 };
	struct roce_frame_report *r;
	size_t n = 0;
	int64_t number;
	char *p = line;

	line[strcspn(line, "\n")] = 0;
	while (n < NFIELDS) {
		field[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = 0;
	}
	if (n != NFIELDS) {
		problem(c, "tshark: a line with %zu fields, not %zu: %s", n, NFIELDS, line);
		return;
	}
	number = num(field[0]);
	if (number < 1 || (size_t)number > c->frames) {
		problem(c, "tshark: frame number %s, the file has %zu frames", field[0], c->frames);
		return;
	}
	r = &c->frame[number - 1];
	snprintf(r->protocols, sizeof(r->protocols), "%s", field[1]);
	r->ip_checksum_status = (int)num(field[2]);
	r->udp_dstport = (int)num(field[3]);
	r->opcode = (int)num(field[4]);
	r->dest_qp = num(field[5]);
	r->psn = num(field[6]);
	r->has_icrc = num(field[7]) >= 0;
	r->icrc_shown = r->has_icrc ? (uint32_t)num(field[7]) : 0;
	r->malformed = field[8][0] != 0;
	for (char *s = field[9]; *s;) {
		char *end;
		unsigned long v = strtoul(s, &end, 0);
		if (end == s)
			break;
		if (v > r->worst_severity)
			r->worst_severity = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
	}
	snprintf(r->expert, sizeof(r->expert), "%s", field[10]);
}

/* run tshark on path; its output lines go to take_line. 0, or -1 (logged) */
static int run_tshark(const char *path, struct roce_pcap_check *c)
{
	char cmd[2048], errfile[] = "/tmp/ndk_tshark_XXXXXX", *line = NULL;
	size_t cap = 0, used;
	int fd, status;
	FILE *out;

	if (strchr(path, '\'')) {
		problem(c, "pcap_check: the path %s has a quote", path);
		return -1;
	}
	fd = mkstemp(errfile);
	if (fd < 0) {
		problem(c, "pcap_check: mkstemp: %s", strerror(errno));
		return -1;
	}
	close(fd);
	used = (size_t)snprintf(cmd, sizeof(cmd),
				"tshark -n -r '%s' -o ip.check_checksum:TRUE"
				" -d udp.port==4791,infiniband -T fields -E header=n"
				" -E separator=/t -E occurrence=a -E aggregator=,",
				path);
	for (size_t i = 0; i < NHEUR && used < sizeof(cmd); i++)
		used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " --disable-heuristic %s",
					 payload_heuristics[i]);
	for (size_t i = 0; i < NFIELDS && used < sizeof(cmd); i++)
		used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " -e %s",
					 tshark_fields[i]);
	snprintf(cmd + used, used < sizeof(cmd) ? sizeof(cmd) - used : 0, " 2>%s", errfile);

	out = popen(cmd, "r");
	if (!out) {
		problem(c, "pcap_check: popen(%s): %s", cmd, strerror(errno));
		unlink(errfile);
		return -1;
	}
	while (getline(&line, &cap, out) > 0)
		take_line(c, line);
	free(line);
	status = pclose(out);
	if (status != 0) {
		char msg[512] = "";
		FILE *e = fopen(errfile, "r");
		if (e) {
			size_t n = fread(msg, 1, sizeof(msg) - 1, e);
			msg[n] = 0;
			fclose(e);
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			problem(c,
				"tshark not found: install it with make deps (Debian package tshark)");
		else
			problem(c, "tshark failed (status 0x%x): %s\n  command: %s", status, msg,
				cmd);
		unlink(errfile);
		return -1;
	}
	unlink(errfile);
	return 0;
}

int roce_pcap_check(const char *path, bool profile, struct roce_pcap_check *c)
{
	struct pcap_capture cap;
	char err[256];

	memset(c, 0, sizeof(*c));
	if (pcap_read(path, &cap, err, sizeof(err))) {
		problem(c, "pcap_check: %s", err);
		return -1;
	}
	if (cap.linktype != 1)
		problem(c, "%s: link type %u, not Ethernet (1)", path, cap.linktype);
	c->frames = cap.count;
	c->frame = calloc(cap.count ? cap.count : 1, sizeof(*c->frame));
	if (!c->frame) {
		pcap_free(&cap);
		problem(c, "pcap_check: out of memory");
		return -1;
	}
	for (size_t i = 0; i < cap.count; i++) {
		c->frame[i].ip_checksum_status = -1;
		c->frame[i].udp_dstport = -1;
		c->frame[i].opcode = -1;
		c->frame[i].dest_qp = c->frame[i].psn = -1;
	}
	if (run_tshark(path, c)) {
		pcap_free(&cap);
		return -1;
	}

	for (size_t i = 0; i < cap.count; i++) {
		struct roce_frame_report *r = &c->frame[i];
		const struct pcap_record *rec = &cap.records[i];
		struct roce_ref_fields f;
		const size_t n = i + 1;

		if (!r->protocols[0]) {
			problem(c, "frame %zu: tshark printed nothing for it", n);
			continue;
		}
		if (strncmp(r->protocols, "eth:ethertype:ip:udp:infiniband", 31) != 0 ||
		    (r->protocols[31] != 0 && r->protocols[31] != ':'))
			problem(c, "frame %zu: tshark dissects it as %s, not as RoCEv2", n,
				r->protocols);
		if (r->udp_dstport != ROCE_REF_UDP_PORT)
			problem(c, "frame %zu: UDP destination port %d", n, r->udp_dstport);
		if (r->malformed)
			problem(c, "frame %zu: tshark: malformed packet (%s)", n, r->expert);
		if (r->worst_severity >= PI_WARN)
			problem(c, "frame %zu: tshark expert info of severity 0x%x: %s", n,
				r->worst_severity, r->expert);
		if (r->ip_checksum_status != 1)
			problem(c, "frame %zu: tshark: IPv4 checksum status %d (1 = good)", n,
				r->ip_checksum_status);
		if (rec->len >= 4) {
			const uint8_t *t = rec->bytes + rec->len - 4;
			const uint32_t last = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 |
					      (uint32_t)t[2] << 8 | t[3];
			if (!r->has_icrc || r->icrc_shown != last)
				problem(c,
					"frame %zu: tshark's ICRC field %s0x%08x is not the frame's"
					" last four bytes (0x%08x)",
					n, r->has_icrc ? "" : "(absent) ", r->icrc_shown, last);
		}
		r->ref = roce_ref_parse(rec->bytes, rec->len, &f);
		if (r->ref != ROCE_REF_OK) {
			problem(c, "frame %zu: roce_ref: %s (ICRC carried 0x%08x)", n,
				roce_ref_status_name(r->ref), f.icrc);
			continue;
		}
		if (r->opcode != f.opcode)
			problem(c, "frame %zu: opcode: tshark %d, roce_ref %u", n, r->opcode,
				f.opcode);
		if (r->dest_qp != (int64_t)f.dest_qp || r->psn != (int64_t)f.psn)
			problem(c, "frame %zu: QP / PSN: tshark %lld / %lld, roce_ref %u / %u", n,
				(long long)r->dest_qp, (long long)r->psn, f.dest_qp, f.psn);
		if (rec->len != rec->orig_len)
			problem(c, "frame %zu: captured %u of %u bytes", n, rec->len,
				rec->orig_len);
		if (profile) {
			r->profile = roce_ref_profile_violation(&f);
			if (r->profile)
				problem(c, "frame %zu: not docs/transport.md's wire format: %s", n,
					r->profile);
		}
	}
	pcap_free(&cap);
	return (int)c->problems;
}

void roce_pcap_check_free(struct roce_pcap_check *c)
{
	free(c->frame);
	c->frame = NULL;
}
