/* SPDX-License-Identifier: MIT */
/*
 * roce_ref: a reference RoCEv2 frame builder and checker for the tests. Plain C, independent of
 * the RTL and of the harness: it follows docs/transport.md ("Wire format") and was checked
 * against independent sources (tests/unit_roce_ref.c: a frame captured from a ConnectX-4 Lx, a
 * Scapy test vector, zlib's CRC-32, tshark's dissector).
 *
 * A frame is Ethernet II (no FCS) / IPv4 (no options) / UDP / BTH / [RETH] [AETH] [IETH]
 * [ImmDt] / payload / pad to 4 bytes / ICRC. Multi-byte fields in struct roce_ref_fields are
 * host-order numbers (10.0.0.1 is 0x0a000001); on the wire everything is big-endian except the
 * ICRC, which goes least significant byte first.
 */
#ifndef NDK_TESTS_ROCE_REF_H
#define NDK_TESTS_ROCE_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_REF_UDP_PORT   4791
#define ROCE_REF_ETH_BYTES  14
#define ROCE_REF_IPV4_BYTES 20
#define ROCE_REF_UDP_BYTES  8
#define ROCE_REF_BTH_BYTES  12
#define ROCE_REF_ICRC_BYTES 4
/* the largest frame roce_ref_build writes for a payload of n bytes */
#define ROCE_REF_MAX_FRAME(n) (14 + 20 + 8 + 12 + 16 + 4 + 4 + (n) + 3 + 4)

/* BTH opcodes: the RC ones of docs/transport.md (and the rest of RC / UC with immediate data,
 * plus the RoCEv2 congestion notification packet, so real captures decode) */
enum roce_ref_opcode {
	ROCE_OP_SEND_FIRST = 0x00,
	ROCE_OP_SEND_MIDDLE = 0x01,
	ROCE_OP_SEND_LAST = 0x02,
	ROCE_OP_SEND_LAST_IMM = 0x03,
	ROCE_OP_SEND_ONLY = 0x04,
	ROCE_OP_SEND_ONLY_IMM = 0x05,
	ROCE_OP_WRITE_FIRST = 0x06,
	ROCE_OP_WRITE_MIDDLE = 0x07,
	ROCE_OP_WRITE_LAST = 0x08,
	ROCE_OP_WRITE_LAST_IMM = 0x09,
	ROCE_OP_WRITE_ONLY = 0x0a,
	ROCE_OP_WRITE_ONLY_IMM = 0x0b,
	ROCE_OP_READ_REQUEST = 0x0c,
	ROCE_OP_READ_RESPONSE_FIRST = 0x0d,
	ROCE_OP_READ_RESPONSE_MIDDLE = 0x0e,
	ROCE_OP_READ_RESPONSE_LAST = 0x0f,
	ROCE_OP_READ_RESPONSE_ONLY = 0x10,
	ROCE_OP_ACKNOWLEDGE = 0x11,
	ROCE_OP_SEND_LAST_INV = 0x16,
	ROCE_OP_SEND_ONLY_INV = 0x17,
	ROCE_OP_UC = 0x20, /* UC opcode = ROCE_OP_UC + the RC send / write opcode (0x00..0x0b) */
	ROCE_OP_CNP = 0x81,
};

/* extension headers of an opcode (roce_ref_ext_headers) */
#define ROCE_REF_RETH 0x1u
#define ROCE_REF_AETH 0x2u
#define ROCE_REF_IETH 0x4u
#define ROCE_REF_IMM  0x8u

struct roce_ref_fields {
	/* Ethernet */
	uint8_t dst_mac[6], src_mac[6];
	/* IPv4 */
	uint8_t tos; /* DSCP / ECN */
	uint16_t ip_id;
	uint16_t ip_frag; /* flags + fragment offset: 0x4000 = DF */
	uint8_t ttl;
	uint32_t src_ip, dst_ip;
	/* UDP */
	uint16_t src_port, dst_port, udp_checksum;
	/* BTH */
	uint8_t opcode;
	bool se, migreq, ackreq;
	uint8_t tver;
	uint16_t pkey;
	uint8_t bth_resv8; /* the byte before the destination QP (FECN, BECN, reserved) */
	uint8_t bth_resv7; /* the 7 reserved bits after AckReq */
	uint32_t dest_qp, psn;
	/* extension headers: only those of the opcode are built or decoded */
	uint64_t reth_va;
	uint32_t reth_rkey, reth_dma_len;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint32_t ieth_rkey;
	uint32_t imm;
	/* payload: built from, or decoded as a pointer into the frame */
	const uint8_t *payload;
	size_t payload_len;
	/* decoded only (roce_ref_build computes them) */
	uint8_t pad; /* PadCnt */
	uint16_t ip_checksum;
	uint32_t icrc; /* as the frame carries it (least significant byte first) */
};

/* NIC i of the simulated world (docs/transport.md "Addresses"): 02:00:00:00:00:(i+1), 10.0.0.(i+1) */
void roce_ref_nic_mac(unsigned nic, uint8_t mac[6]);
uint32_t roce_ref_nic_ipv4(unsigned nic);
/* UDP source port for a source QP: 0xC000 | (qpn & 0x3FFF) */
uint16_t roce_ref_udp_src_port(uint32_t src_qpn);

/* Fields as docs/transport.md fixes them for a frame from NIC src_nic's QP src_qpn to NIC
 * dst_nic: addresses, DSCP/ECN 0, id 0, DF, TTL 64, ports, UDP checksum 0, P_Key 0xFFFF, TVer 0.
 * The caller sets the opcode, BTH flags, QP, PSN, extension headers and payload. */
void roce_ref_init(struct roce_ref_fields *f, unsigned src_nic, uint32_t src_qpn, unsigned dst_nic);

/* whether the opcode is one roce_ref knows, and its extension headers (ROCE_REF_RETH | ...) */
bool roce_ref_opcode_known(uint8_t opcode);
unsigned roce_ref_ext_headers(uint8_t opcode);
size_t roce_ref_ext_bytes(uint8_t opcode);
const char *roce_ref_opcode_name(uint8_t opcode); /* "SEND_ONLY", ...; "unknown" */

/*
 * Write the frame of f into buf (cap bytes): lengths, IPv4 checksum, PadCnt, pad and ICRC are
 * computed. Returns its length, or 0 (unknown opcode, cap too small, frame over 65535 bytes).
 */
size_t roce_ref_build(const struct roce_ref_fields *f, uint8_t *buf, size_t cap);

/* CRC-32 as Linux's crc32_le: reflected polynomial 0xEDB88320, no final complement */
uint32_t roce_ref_crc32_le(uint32_t crc, const uint8_t *p, size_t n);
/*
 * The ICRC of a frame (starting at its Ethernet header) whose first len bytes precede the ICRC:
 * CRC-32 seeded with 0xDEBB20E3 over the IPv4 header (DSCP/ECN, TTL, checksum masked to ones),
 * the UDP header (checksum masked), the BTH (the byte before the destination QP masked) and every
 * later byte, complemented. The frame carries it least significant byte first.
 * len must cover Ethernet + IPv4 + UDP + BTH.
 */
uint32_t roce_ref_icrc(const uint8_t *frame, size_t len);
/* the IPv4 header checksum of the 20 bytes at ip, computed with its checksum field as zero */
uint16_t roce_ref_ipv4_checksum(const uint8_t *ip);

enum roce_ref_status {
	ROCE_REF_OK = 0,
	ROCE_REF_TOO_SHORT,	  /* shorter than Ethernet + IPv4 + UDP + BTH + ICRC */
	ROCE_REF_NOT_IPV4,	  /* EtherType is not 0x0800 */
	ROCE_REF_BAD_IPV4_HEADER, /* version, IHL (options), protocol not UDP, or a fragment */
	ROCE_REF_BAD_IP_CHECKSUM, /* the IPv4 header checksum does not add up */
	ROCE_REF_BAD_LENGTH,	  /* IPv4 total length, UDP length, the frame's length and the
				      headers of the opcode disagree */
	ROCE_REF_NOT_ROCE,	  /* UDP destination port is not 4791 */
	ROCE_REF_UNKNOWN_OPCODE,  /* an opcode roce_ref does not know */
	ROCE_REF_BAD_PAD,	  /* payload + pad is not a multiple of 4 */
	ROCE_REF_BAD_ICRC,	  /* the ICRC does not match the frame */
};
const char *roce_ref_status_name(enum roce_ref_status status);

/*
 * Check one frame (len bytes from its Ethernet header, no FCS) and decode it into f (may be
 * NULL); f->payload points into frame. The checks run in the order of enum roce_ref_status;
 * the first that fails is returned. Fields decoded before the failing check are filled in.
 */
enum roce_ref_status roce_ref_parse(const uint8_t *frame, size_t len, struct roce_ref_fields *f);

/*
 * NULL when a decoded frame follows the choices docs/transport.md makes for this NIC's frames
 * (DSCP/ECN 0, id 0, DF, TTL 64, UDP source port 0xC000 | x, UDP checksum 0, P_Key 0xFFFF,
 * MigReq 0, TVer 0, reserved BTH bits 0, destination QP not 0 or 1 (InfiniBand's management QPs,
 * which tshark decodes as MADs), an RC opcode of the wire format table, pad bytes zero);
 * otherwise a message naming the first field that differs.
 */
const char *roce_ref_profile_violation(const struct roce_ref_fields *f);

#endif /* NDK_TESTS_ROCE_REF_H */
