// SPDX-License-Identifier: MIT
/*
 * Unit tests of the reference RoCEv2 builder and checker (tests/roce_ref.c) against sources
 * that owe nothing to it: a frame a ConnectX-4 Lx put on the wire, the test vector of Scapy's
 * RoCE layer (computed by Scapy with Python's zlib), zlib's CRC-32 and the CRC-32 check value.
 * tshark's view of roce_ref's frames is tested in cosim_network.c.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <zlib.h>

#include "roce_ref.h"

/* A RoCEv2 CNP captured from a Mellanox ConnectX-4 Lx, as published with Scapy's RoCE tests
 * (test/contrib/roce.uts, "RoCE CNP captured on ConnectX-4 Lx"); its last four bytes are the
 * ICRC the NIC computed. */
static const uint8_t cx4_cnp[74] = {
	0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45,
	0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
	0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff,
	0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

Test(unit_roce_ref, icrc_seed_is_the_crc_register_after_eight_ones_bytes)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	cr_expect_eq(roce_ref_crc32_le(0xffffffffu, ones, 8), 0xdebb20e3u, "got 0x%08x",
		     roce_ref_crc32_le(0xffffffffu, ones, 8));
}

Test(unit_roce_ref, crc32_le_is_the_ethernet_crc_of_zlib)
{
	static const char check[] = "123456789";
	const uint8_t *p = (const uint8_t *)check;

	/* the CRC-32 check value, and zlib on the same bytes */
	cr_expect_eq(~roce_ref_crc32_le(~0u, p, 9), 0xcbf43926u);
	cr_expect_eq(~roce_ref_crc32_le(~0u, p, 9), (uint32_t)crc32(0, p, 9));
}

Test(unit_roce_ref, a_connectx4_frame_passes_every_check_with_its_own_icrc)
{
	struct roce_ref_fields f;
	enum roce_ref_status st = roce_ref_parse(cx4_cnp, sizeof(cx4_cnp), &f);

	cr_assert_eq(st, ROCE_REF_OK,
		     "roce_ref_parse: %s (ICRC in the frame 0x%08x, computed 0x%08x)",
		     roce_ref_status_name(st), f.icrc, roce_ref_icrc(cx4_cnp, sizeof(cx4_cnp) - 4));
	cr_expect_eq(f.opcode, ROCE_OP_CNP);
	cr_expect_eq(f.dest_qp, 0x118);
	cr_expect_eq(f.bth_resv8, 0x40, "BECN set: masked out of the ICRC");
	cr_expect_eq(f.tos, 0xc2, "DSCP/ECN set: masked out of the ICRC");
	cr_expect_eq(f.src_ip, 0x0a001101);
	cr_expect_eq(f.dst_ip, 0x0a001201);
	cr_expect_eq(f.payload_len, 16, "a CNP's 16 reserved bytes");
	/* on the wire least significant byte first: 82 fd 00 2a */
	cr_expect_eq(f.icrc, 0x2a00fd82u);
}

Test(unit_roce_ref, a_connectx4_frame_fails_when_an_invariant_byte_changes)
{
	uint8_t b[sizeof(cx4_cnp)];

	memcpy(b, cx4_cnp, sizeof(b));
	b[44] ^= 0x01; /* P_Key */
	cr_expect_eq(roce_ref_parse(b, sizeof(b), NULL), ROCE_REF_BAD_ICRC);
	memcpy(b, cx4_cnp, sizeof(b));
	b[60] ^= 0x80; /* a reserved byte of the CNP */
	cr_expect_eq(roce_ref_parse(b, sizeof(b), NULL), ROCE_REF_BAD_ICRC);
}

/* Scapy's RoCE test ("RoCE layer"): a UC SEND_ONLY whose IPv4 checksum must be 0xb4d5 and whose
 * ICRC field, read big-endian from the wire, 0x78f353f3. */
Test(unit_roce_ref, scapy_test_vector_gives_the_same_ip_checksum_and_icrc)
{
	static const uint8_t payload[18] = { 'F',  '0',	 0x81, 0x8b, 0xe2, 0x89, '5',  0xd9, 0x0e,
					     0x9a, 0x95, 'P',  'T',  0x01, 0xbe, 0x88, '^',  'P' };
	static const uint8_t mac[6] = { 0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22 };
	struct roce_ref_fields f;
	uint8_t buf[128];
	size_t len;

	memset(&f, 0, sizeof(f));
	memcpy(f.dst_mac, mac, 6);
	memcpy(f.src_mac, mac, 6);
	f.tos = 0x01;
	f.ip_id = 1144;
	f.ip_frag = 0x4000;
	f.ttl = 64;
	f.src_ip = f.dst_ip = 0xc0a80007; /* 192.168.0.7 */
	f.src_port = 49152;
	f.dst_port = 4791;
	f.udp_checksum = 0xaca2; /* Scapy's; masked out of the ICRC anyway */
	f.opcode = ROCE_OP_UC + ROCE_OP_SEND_ONLY;
	f.migreq = true;
	f.pkey = 0xffff;
	f.dest_qp = 211;
	f.psn = 13571856;
	f.payload = payload;
	f.payload_len = sizeof(payload); /* + PadCnt 2, as in the vector */
	len = roce_ref_build(&f, buf, sizeof(buf));
	cr_assert_eq(len, 14 + 64, "frame length %zu", len);
	cr_expect_eq(buf[14 + 10] << 8 | buf[14 + 11], 0xb4d5, "IPv4 checksum");
	cr_expect_eq((buf[14 + 28 + 1] >> 4) & 3, 2, "PadCnt");
	cr_expect_eq(buf[len - 4], 0x78);
	cr_expect_eq(buf[len - 3], 0xf3);
	cr_expect_eq(buf[len - 2], 0x53);
	cr_expect_eq(buf[len - 1], 0xf3, "ICRC bytes %02x %02x %02x %02x, want 78 f3 53 f3",
		     buf[len - 4], buf[len - 3], buf[len - 2], buf[len - 1]);
	cr_expect_eq(roce_ref_parse(buf, len, NULL), ROCE_REF_OK);
}

/* zlib's CRC-32 of (eight 0xff bytes, the masked headers, the rest) is the ICRC itself */
Test(unit_roce_ref, icrc_equals_zlib_crc32_over_the_masked_pseudo_packet)
{
	uint8_t payload[37], buf[256], pseudo[300];
	struct roce_ref_fields f;
	size_t len, n = 0;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	roce_ref_init(&f, 0, 17, 1);
	f.opcode = ROCE_OP_WRITE_ONLY;
	f.dest_qp = 0x123456;
	f.psn = 0xabcdef;
	f.reth_va = 0x1122334455667788ull;
	f.reth_rkey = 0xcafe;
	f.reth_dma_len = sizeof(payload);
	f.payload = payload;
	f.payload_len = sizeof(payload);
	len = roce_ref_build(&f, buf, sizeof(buf));
	cr_assert_neq(len, 0);

	memset(pseudo, 0xff, 8);
	n = 8;
	memcpy(pseudo + n, buf + 14, len - 14 - 4);
	pseudo[n + 1] = 0xff;				/* DSCP/ECN */
	pseudo[n + 8] = 0xff;				/* TTL */
	pseudo[n + 10] = pseudo[n + 11] = 0xff;		/* IPv4 checksum */
	pseudo[n + 20 + 6] = pseudo[n + 20 + 7] = 0xff; /* UDP checksum */
	pseudo[n + 28 + 4] = 0xff;			/* BTH resv8 */
	n += len - 14 - 4;
	uint32_t z = (uint32_t)crc32(0, pseudo, (uInt)n);
	uint32_t carried = (uint32_t)buf[len - 4] | (uint32_t)buf[len - 3] << 8 |
			   (uint32_t)buf[len - 2] << 16 | (uint32_t)buf[len - 1] << 24;
	cr_expect_eq(carried, z, "ICRC carried 0x%08x, zlib 0x%08x", carried, z);
}

static size_t build(struct roce_ref_fields *f, uint8_t op, const uint8_t *payload, size_t n,
		    uint8_t *buf, size_t cap)
{
	roce_ref_init(f, 1, 0x2345, 0);
	f->opcode = op;
	f->dest_qp = 0x000102;
	f->psn = 0xfffffe;
	f->ackreq = true;
	f->se = op == ROCE_OP_SEND_ONLY;
	f->reth_va = 0x00007f0012345678ull;
	f->reth_rkey = 0x01020304;
	f->reth_dma_len = (uint32_t)n;
	f->aeth_syndrome = 0x1f;
	f->aeth_msn = 0x00abcd;
	f->ieth_rkey = 0x55667788;
	f->payload = payload;
	f->payload_len = n;
	return roce_ref_build(f, buf, cap);
}

Test(unit_roce_ref, every_opcode_of_the_wire_format_round_trips)
{
	static const uint8_t ops[] = { 0x00, 0x01, 0x02, 0x04, 0x06, 0x07, 0x08, 0x0a,
				       0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x16, 0x17 };
	uint8_t payload[70], buf[ROCE_REF_MAX_FRAME(70)];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(0xa0 + i);
	for (size_t k = 0; k < sizeof(ops); k++) {
		for (size_t n = 0; n <= 5; n++) {
			struct roce_ref_fields in, out;
			const bool no_payload = ops[k] == ROCE_OP_READ_REQUEST ||
						ops[k] == ROCE_OP_ACKNOWLEDGE;
			const size_t plen = no_payload ? 0 : 60 + n;
			size_t len = build(&in, ops[k], payload, plen, buf, sizeof(buf));
			const char *name = roce_ref_opcode_name(ops[k]);

			cr_assert_neq(len, 0, "%s", name);
			cr_assert_eq(len,
				     14 + 20 + 8 + 12 + roce_ref_ext_bytes(ops[k]) + plen +
					     (4 - plen % 4) % 4 + 4,
				     "%s length", name);
			enum roce_ref_status st = roce_ref_parse(buf, len, &out);
			cr_assert_eq(st, ROCE_REF_OK, "%s payload %zu: %s", name, plen,
				     roce_ref_status_name(st));
			cr_expect_null(roce_ref_profile_violation(&out), "%s: %s", name,
				       roce_ref_profile_violation(&out));
			cr_expect_eq(out.opcode, ops[k]);
			cr_expect_eq(out.dest_qp, in.dest_qp);
			cr_expect_eq(out.psn, in.psn);
			cr_expect_eq(out.ackreq, true);
			cr_expect_eq(out.se, in.se);
			cr_expect_eq(out.pad, (4 - plen % 4) % 4);
			cr_expect_eq(out.payload_len, plen, "%s payload %zu decoded as %zu", name,
				     plen, out.payload_len);
			cr_expect_eq(memcmp(out.payload, payload, plen), 0);
			cr_expect_eq(out.src_port, 0xc000 | 0x2345);
			cr_expect_eq(out.src_ip, 0x0a000002);
			cr_expect_eq(out.dst_ip, 0x0a000001);
			cr_expect_eq(out.dst_mac[5], 1);
			cr_expect_eq(out.src_mac[5], 2);
			if (roce_ref_ext_headers(ops[k]) & ROCE_REF_RETH) {
				cr_expect_eq(out.reth_va, in.reth_va);
				cr_expect_eq(out.reth_rkey, in.reth_rkey);
				cr_expect_eq(out.reth_dma_len, in.reth_dma_len);
			}
			if (roce_ref_ext_headers(ops[k]) & ROCE_REF_AETH) {
				cr_expect_eq(out.aeth_syndrome, 0x1f);
				cr_expect_eq(out.aeth_msn, 0xabcd);
			}
			if (roce_ref_ext_headers(ops[k]) & ROCE_REF_IETH)
				cr_expect_eq(out.ieth_rkey, 0x55667788);
		}
	}
}

/* The ICRC leaves out exactly the fields routers may change: DSCP/ECN, TTL, the IPv4 and UDP
 * checksums and the BTH byte of FECN/BECN; every other byte is covered. */
Test(unit_roce_ref, icrc_masks_exactly_the_variant_fields)
{
	uint8_t payload[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, ref[128], b[128];
	struct roce_ref_fields f;
	size_t len = build(&f, ROCE_OP_SEND_ONLY, payload, sizeof(payload), ref, sizeof(ref));
	const uint32_t icrc = roce_ref_icrc(ref, len - 4);

	for (size_t i = 14; i < len - 4; i++) {
		const bool variant = i == 14 + 1 || i == 14 + 8 || i == 14 + 10 || i == 14 + 11 ||
				     i == 14 + 26 || i == 14 + 27 || i == 14 + 32;
		memcpy(b, ref, len);
		b[i] ^= 0x5a;
		cr_expect_eq(roce_ref_icrc(b, len - 4) == icrc, variant,
			     "byte %zu (%s): the ICRC %s", i, variant ? "variant" : "invariant",
			     variant ? "changed" : "did not change");
	}
}

/* make the lengths, the IPv4 checksum and the ICRC of a frame of len bytes consistent */
static void refit(uint8_t *b, size_t len)
{
	uint16_t c;
	uint32_t icrc;

	b[14 + 2] = (uint8_t)((len - 14) >> 8);
	b[14 + 3] = (uint8_t)(len - 14);
	b[14 + 20 + 4] = (uint8_t)((len - 34) >> 8);
	b[14 + 20 + 5] = (uint8_t)(len - 34);
	c = roce_ref_ipv4_checksum(b + 14);
	b[14 + 10] = (uint8_t)(c >> 8);
	b[14 + 11] = (uint8_t)c;
	icrc = roce_ref_icrc(b, len - 4);
	for (int i = 0; i < 4; i++)
		b[len - 4 + i] = (uint8_t)(icrc >> (8 * i));
}

Test(unit_roce_ref, checker_names_what_is_wrong)
{
	uint8_t payload[12] = { 0 }, ref[128], b[128];
	struct roce_ref_fields f;
	size_t len = build(&f, ROCE_OP_SEND_ONLY, payload, sizeof(payload), ref, sizeof(ref));

	cr_assert_eq(roce_ref_parse(ref, len, NULL), ROCE_REF_OK);
	cr_expect_eq(roce_ref_parse(ref, 40, NULL), ROCE_REF_TOO_SHORT);
	cr_expect_eq(roce_ref_parse(ref, len - 4, NULL), ROCE_REF_BAD_LENGTH);
	memcpy(b, ref, len);
	b[12] = 0x86; /* IPv6 EtherType */
	b[13] = 0xdd;
	cr_expect_eq(roce_ref_parse(b, len, NULL), ROCE_REF_NOT_IPV4);
	memcpy(b, ref, len);
	b[14 + 8] = 63; /* TTL changed, checksum not updated */
	cr_expect_eq(roce_ref_parse(b, len, NULL), ROCE_REF_BAD_IP_CHECKSUM);
	b[14 + 10] = 0;
	b[14 + 11] = 0;
	uint16_t c = roce_ref_ipv4_checksum(b + 14);
	b[14 + 10] = (uint8_t)(c >> 8);
	b[14 + 11] = (uint8_t)c;
	cr_expect_eq(roce_ref_parse(b, len, NULL), ROCE_REF_OK,
		     "a router's TTL change keeps the ICRC");
	memcpy(b, ref, len);
	b[14 + 20 + 3] ^= 1; /* UDP port 4790 */
	cr_expect_eq(roce_ref_parse(b, len, NULL), ROCE_REF_NOT_ROCE);
	memcpy(b, ref, len);
	b[14 + 28] = 0x1c; /* an opcode roce_ref does not know */
	cr_expect_eq(roce_ref_parse(b, len, NULL), ROCE_REF_UNKNOWN_OPCODE);
	/* 13 bytes between the headers and the ICRC, lengths, checksum and ICRC all consistent */
	memcpy(b, ref, len - 4);
	b[len - 4] = 0;
	refit(b, len + 1);
	cr_expect_eq(roce_ref_parse(b, len + 1, NULL), ROCE_REF_BAD_PAD);
	memcpy(b, ref, len);
	b[len - 5] ^= 1; /* payload */
	cr_expect_eq(roce_ref_parse(b, len, NULL), ROCE_REF_BAD_ICRC);
	cr_expect_str_eq(roce_ref_status_name(ROCE_REF_BAD_ICRC), "BAD_ICRC");
}

Test(unit_roce_ref, build_refuses_unknown_opcodes_and_small_buffers)
{
	struct roce_ref_fields f;
	uint8_t buf[256];

	roce_ref_init(&f, 0, 1, 1);
	f.opcode = 0x13; /* COMPARE_SWAP: atomics are not known */
	cr_expect_eq(roce_ref_build(&f, buf, sizeof(buf)), 0);
	f.opcode = ROCE_OP_ACKNOWLEDGE;
	cr_expect_eq(roce_ref_build(&f, buf, 14 + 20 + 8 + 12 + 4 + 3), 0);
	cr_expect_eq(roce_ref_build(&f, buf, 14 + 20 + 8 + 12 + 4 + 4), 62);
}
