/* SPDX-License-Identifier: MIT */
/*
 * pcap_check: read a pcap capture (sim/nicsim's NDK_SIM_PCAP / pcap_path files, or any classic
 * pcap), and check that every frame in it is a well-formed RoCEv2 frame, both for tshark
 * (Wireshark's dissectors, an independent decoder) and for tests/roce_ref. Written for the
 * network tests and for the RTL's captures: a test captures, destroys its world (which
 * completes the file), then
 *
 *	struct roce_pcap_check c;
 *	cr_expect_eq(roce_pcap_check(path, true, &c), 0, "%s", c.log);
 *	... c.frame[i].opcode (tshark's) ...
 *	roce_pcap_check_free(&c);
 *
 * tshark (Debian package tshark, installed by tools/deps.sh) must be on PATH.
 */
#ifndef NDK_TESTS_PCAP_CHECK_H
#define NDK_TESTS_PCAP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_ref.h"

struct pcap_record {
	uint64_t ts_ns;	   /* timestamp in ns (microsecond files are scaled) */
	uint32_t orig_len; /* length on the wire */
	uint32_t len;	   /* bytes captured */
	uint8_t *bytes;
};

struct pcap_capture {
	uint32_t magic; /* as written: 0xa1b23c4d (ns) or 0xa1b2c3d4 (us), either byte order */
	bool swapped;	/* written in the other byte order */
	bool nanoseconds;
	uint16_t version_major, version_minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
	size_t count;
	struct pcap_record *records;
};

/* Read a classic pcap file. 0, or -1 with the reason in err (never NULL: at least 1 byte). */
int pcap_read(const char *path, struct pcap_capture *cap, char *err, size_t errlen);
void pcap_free(struct pcap_capture *cap);

/* tshark's view of one frame, and roce_ref's */
struct roce_frame_report {
	char protocols[160];	 /* frame.protocols, "eth:ethertype:ip:udp:infiniband:data" */
	int ip_checksum_status;	 /* ip.checksum.status: 1 good, 0 bad, -1 absent */
	int udp_dstport;	 /* -1: absent */
	int opcode;		 /* infiniband.bth.opcode; -1: absent */
	int64_t dest_qp, psn;	 /* infiniband.bth.destqp / .psn; -1: absent */
	bool has_icrc;		 /* infiniband.invariant.crc present */
	uint32_t icrc_shown;	 /* as tshark shows it: the frame's last 4 bytes read big-endian */
	bool malformed;		 /* _ws.malformed */
	uint32_t worst_severity; /* highest _ws.expert.severity (0x600000 warning, 0x800000 error) */
	char expert[256];	 /* _ws.expert.message, comma-joined */
	enum roce_ref_status ref; /* roce_ref_parse of the frame (tshark does not check the ICRC) */
	const char *profile;	  /* roce_ref_profile_violation, NULL when none or not checked */
};

struct roce_pcap_check {
	size_t frames;			 /* in the file */
	struct roce_frame_report *frame; /* [frames] */
	size_t problems;
	char log[4096]; /* one line per problem (cut at the end of the buffer) */
};

/*
 * Check every frame of the capture at path. tshark runs with UDP port 4791 decoded as
 * InfiniBand (RoCEv2), IPv4 header checksums verified, and its heuristic dissectors of InfiniBand
 * payload (RPC-over-RDMA, SMB Direct, NVMe-oF, ...) off: they read test payload as their
 * protocol and call it malformed. A problem is: tshark missing or
 * failing; a frame count that differs from the file's; a frame tshark does not dissect as
 * eth:ethertype:ip:udp:infiniband, or finds malformed, or gives an expert info of severity
 * warning or error (a bad IPv4 checksum is one), or whose ICRC field is not the frame's last four
 * bytes (tshark found other lengths), or whose opcode differs from roce_ref's; a frame roce_ref
 * rejects (a bad ICRC among others: tshark 4.0 shows the ICRC but does not verify it); and, when
 * profile is true, a frame whose fields differ from docs/transport.md's choices.
 * Returns the number of problems (0: all good) or -1 when the check could not run; c->log says
 * what, frame by frame (numbered from 1, as tshark does). Free with roce_pcap_check_free.
 */
int roce_pcap_check(const char *path, bool profile, struct roce_pcap_check *c);
void roce_pcap_check_free(struct roce_pcap_check *c);

#endif /* NDK_TESTS_PCAP_CHECK_H */
