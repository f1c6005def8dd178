// SPDX-License-Identifier: MIT
/*
 * roce_ref: the reference RoCEv2 frame builder and checker (see roce_ref.h).
 */
#include "roce_ref.h"

#include <string.h>

/* ---- byte order ------------------------------------------------------------------------------ */

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, (uint16_t)(v >> 16));
	be16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* ---- addresses ------------------------------------------------------------------------------- */

void roce_ref_nic_mac(unsigned nic, uint8_t mac[6])
{
	static const uint8_t base[6] = { 0x02, 0, 0, 0, 0, 0 };

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)(nic + 1);
}

uint32_t roce_ref_nic_ipv4(unsigned nic)
{
	return 0x0a000000u | ((nic + 1) & 0xff);
}

uint16_t roce_ref_udp_src_port(uint32_t src_qpn)
{
	return (uint16_t)(0xc000u | (src_qpn & 0x3fffu));
}

void roce_ref_init(struct roce_ref_fields *f, unsigned src_nic, uint32_t src_qpn, unsigned dst_nic)
{
	memset(f, 0, sizeof(*f));
	roce_ref_nic_mac(dst_nic, f->dst_mac);
	roce_ref_nic_mac(src_nic, f->src_mac);
	f->ip_frag = 0x4000; /* DF */
	f->ttl = 64;
	f->src_ip = roce_ref_nic_ipv4(src_nic);
	f->dst_ip = roce_ref_nic_ipv4(dst_nic);
	f->src_port = roce_ref_udp_src_port(src_qpn);
	f->dst_port = ROCE_REF_UDP_PORT;
	f->pkey = 0xffff;
}

/* ---- opcodes --------------------------------------------------------------------------------- */

struct opcode_info {
	const char *name;
	unsigned ext; /* ROCE_REF_RETH | ... */
};

/* RC opcodes 0x00..0x17 (0x12..0x15 are atomics: not known here) */
static const struct opcode_info rc_ops[0x18] = {
	[0x00] = { "SEND_FIRST", 0 },
	[0x01] = { "SEND_MIDDLE", 0 },
	[0x02] = { "SEND_LAST", 0 },
	[0x03] = { "SEND_LAST_WITH_IMMEDIATE", ROCE_REF_IMM },
	[0x04] = { "SEND_ONLY", 0 },
	[0x05] = { "SEND_ONLY_WITH_IMMEDIATE", ROCE_REF_IMM },
	[0x06] = { "RDMA_WRITE_FIRST", ROCE_REF_RETH },
	[0x07] = { "RDMA_WRITE_MIDDLE", 0 },
	[0x08] = { "RDMA_WRITE_LAST", 0 },
	[0x09] = { "RDMA_WRITE_LAST_WITH_IMMEDIATE", ROCE_REF_IMM },
	[0x0a] = { "RDMA_WRITE_ONLY", ROCE_REF_RETH },
	[0x0b] = { "RDMA_WRITE_ONLY_WITH_IMMEDIATE", ROCE_REF_RETH | ROCE_REF_IMM },
	[0x0c] = { "RDMA_READ_REQUEST", ROCE_REF_RETH },
	[0x0d] = { "RDMA_READ_RESPONSE_FIRST", ROCE_REF_AETH },
	[0x0e] = { "RDMA_READ_RESPONSE_MIDDLE", 0 },
	[0x0f] = { "RDMA_READ_RESPONSE_LAST", ROCE_REF_AETH },
	[0x10] = { "RDMA_READ_RESPONSE_ONLY", ROCE_REF_AETH },
	[0x11] = { "ACKNOWLEDGE", ROCE_REF_AETH },
	[0x16] = { "SEND_LAST_WITH_INVALIDATE", ROCE_REF_IETH },
	[0x17] = { "SEND_ONLY_WITH_INVALIDATE", ROCE_REF_IETH },
};

static const struct opcode_info *opcode_info(uint8_t opcode)
{
	static const struct opcode_info uc_ops[0x0c] = {
		[0x00] = { "UC_SEND_FIRST", 0 },
		[0x01] = { "UC_SEND_MIDDLE", 0 },
		[0x02] = { "UC_SEND_LAST", 0 },
		[0x03] = { "UC_SEND_LAST_WITH_IMMEDIATE", ROCE_REF_IMM },
		[0x04] = { "UC_SEND_ONLY", 0 },
		[0x05] = { "UC_SEND_ONLY_WITH_IMMEDIATE", ROCE_REF_IMM },
		[0x06] = { "UC_RDMA_WRITE_FIRST", ROCE_REF_RETH },
		[0x07] = { "UC_RDMA_WRITE_MIDDLE", 0 },
		[0x08] = { "UC_RDMA_WRITE_LAST", 0 },
		[0x09] = { "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", ROCE_REF_IMM },
		[0x0a] = { "UC_RDMA_WRITE_ONLY", ROCE_REF_RETH },
		[0x0b] = { "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", ROCE_REF_RETH | ROCE_REF_IMM },
	};
	/* CNP: BTH then 16 reserved bytes (decoded as the payload) */
	static const struct opcode_info cnp = { "CNP", 0 };

	if (opcode < 0x18)
		return rc_ops[opcode].name ? &rc_ops[opcode] : NULL;
	if (opcode >= ROCE_OP_UC && opcode < ROCE_OP_UC + 0x0c)
		return &uc_ops[opcode - ROCE_OP_UC];
	if (opcode == ROCE_OP_CNP)
		return &cnp;
	return NULL;
}

bool roce_ref_opcode_known(uint8_t opcode)
{
	return opcode_info(opcode) != NULL;
}

unsigned roce_ref_ext_headers(uint8_t opcode)
{
	const struct opcode_info *o = opcode_info(opcode);

	return o ? o->ext : 0;
}

size_t roce_ref_ext_bytes(uint8_t opcode)
{
	unsigned ext = roce_ref_ext_headers(opcode);

	return (ext & ROCE_REF_RETH ? 16 : 0) + (ext & ROCE_REF_AETH ? 4 : 0) +
	       (ext & ROCE_REF_IETH ? 4 : 0) + (ext & ROCE_REF_IMM ? 4 : 0);
}

const char *roce_ref_opcode_name(uint8_t opcode)
{
	const struct opcode_info *o = opcode_info(opcode);

	return o ? o->name : "unknown";
}

/* ---- checksums ------------------------------------------------------------------------------- */

uint32_t roce_ref_crc32_le(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	static bool ready;

	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
			table[i] = c;
		}
		ready = true;
	}
	while (n--)
		crc = (crc >> 8) ^ table[(crc ^ *p++) & 0xff];
	return crc;
}

uint32_t roce_ref_icrc(const uint8_t *frame, size_t len)
{
	/* the invariant headers, with their variant fields masked to ones */
	uint8_t h[ROCE_REF_IPV4_BYTES + ROCE_REF_UDP_BYTES + ROCE_REF_BTH_BYTES];
	const size_t hdr = ROCE_REF_ETH_BYTES + sizeof(h);
	uint32_t crc;

	if (len < hdr)
		return 0;
	memcpy(h, frame + ROCE_REF_ETH_BYTES, sizeof(h));
	h[1] = 0xff;		      /* DSCP / ECN */
	h[8] = 0xff;		      /* TTL */
	h[10] = h[11] = 0xff;	      /* header checksum */
	h[20 + 6] = h[20 + 7] = 0xff; /* UDP checksum */
	h[20 + 8 + 4] = 0xff;	      /* BTH: FECN, BECN, reserved */
	crc = 0xdebb20e3u; /* = roce_ref_crc32_le(~0, eight 0xff bytes): InfiniBand's masked LRH */
	crc = roce_ref_crc32_le(crc, h, sizeof(h));
	crc = roce_ref_crc32_le(crc, frame + hdr, len - hdr);
	return ~crc;
}

uint16_t roce_ref_ipv4_checksum(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (int i = 0; i < ROCE_REF_IPV4_BYTES; i += 2)
		if (i != 10)
			sum += get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ---- build ----------------------------------------------------------------------------------- */

size_t roce_ref_build(const struct roce_ref_fields *f, uint8_t *buf, size_t cap)
{
	const struct opcode_info *o = opcode_info(f->opcode);
	size_t pad, udp_len, ip_len, len;
	uint8_t *p;

	if (!o)
		return 0;
	pad = (4 - f->payload_len % 4) % 4;
	udp_len = ROCE_REF_UDP_BYTES + ROCE_REF_BTH_BYTES + roce_ref_ext_bytes(f->opcode) +
		  f->payload_len + pad + ROCE_REF_ICRC_BYTES;
	ip_len = ROCE_REF_IPV4_BYTES + udp_len;
	len = ROCE_REF_ETH_BYTES + ip_len;
	if (ip_len > 0xffff || len > cap)
		return 0;

	p = buf;
	memcpy(p, f->dst_mac, 6);
	memcpy(p + 6, f->src_mac, 6);
	be16(p + 12, 0x0800);
	p += ROCE_REF_ETH_BYTES;

	p[0] = 0x45; /* version 4, IHL 5 */
	p[1] = f->tos;
	be16(p + 2, (uint16_t)ip_len);
	be16(p + 4, f->ip_id);
	be16(p + 6, f->ip_frag);
	p[8] = f->ttl;
	p[9] = 17; /* UDP */
	be32(p + 12, f->src_ip);
	be32(p + 16, f->dst_ip);
	be16(p + 10, roce_ref_ipv4_checksum(p));
	p += ROCE_REF_IPV4_BYTES;

	be16(p, f->src_port);
	be16(p + 2, f->dst_port);
	be16(p + 4, (uint16_t)udp_len);
	be16(p + 6, f->udp_checksum);
	p += ROCE_REF_UDP_BYTES;

	p[0] = f->opcode;
	p[1] = (uint8_t)((f->se ? 0x80 : 0) | (f->migreq ? 0x40 : 0) | pad << 4 | (f->tver & 0xf));
	be16(p + 2, f->pkey);
	p[4] = f->bth_resv8;
	be24(p + 5, f->dest_qp);
	p[8] = (uint8_t)((f->ackreq ? 0x80 : 0) | (f->bth_resv7 & 0x7f));
	be24(p + 9, f->psn);
	p += ROCE_REF_BTH_BYTES;

	if (o->ext & ROCE_REF_RETH) {
		be32(p, (uint32_t)(f->reth_va >> 32));
		be32(p + 4, (uint32_t)f->reth_va);
		be32(p + 8, f->reth_rkey);
		be32(p + 12, f->reth_dma_len);
		p += 16;
	}
	if (o->ext & ROCE_REF_AETH) {
		p[0] = f->aeth_syndrome;
		be24(p + 1, f->aeth_msn);
		p += 4;
	}
	if (o->ext & ROCE_REF_IETH) {
		be32(p, f->ieth_rkey);
		p += 4;
	}
	if (o->ext & ROCE_REF_IMM) {
		be32(p, f->imm);
		p += 4;
	}
	if (f->payload_len)
		memcpy(p, f->payload, f->payload_len);
	p += f->payload_len;
	memset(p, 0, pad);
	p += pad;

	uint32_t icrc = roce_ref_icrc(buf, (size_t)(p - buf));
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(icrc >> (8 * i));
	return len;
}

/* ---- check and decode ------------------------------------------------------------------------ */

const char *roce_ref_status_name(enum roce_ref_status status)
{
	switch (status) {
	case ROCE_REF_OK:
		return "OK";
	case ROCE_REF_TOO_SHORT:
		return "TOO_SHORT";
	case ROCE_REF_NOT_IPV4:
		return "NOT_IPV4";
	case ROCE_REF_BAD_IPV4_HEADER:
		return "BAD_IPV4_HEADER";
	case ROCE_REF_BAD_IP_CHECKSUM:
		return "BAD_IP_CHECKSUM";
	case ROCE_REF_BAD_LENGTH:
		return "BAD_LENGTH";
	case ROCE_REF_NOT_ROCE:
		return "NOT_ROCE";
	case ROCE_REF_UNKNOWN_OPCODE:
		return "UNKNOWN_OPCODE";
	case ROCE_REF_BAD_PAD:
		return "BAD_PAD";
	case ROCE_REF_BAD_ICRC:
		return "BAD_ICRC";
	}
	return "?";
}

enum roce_ref_status roce_ref_parse(const uint8_t *frame, size_t len, struct roce_ref_fields *out)
{
	const size_t min = ROCE_REF_ETH_BYTES + ROCE_REF_IPV4_BYTES + ROCE_REF_UDP_BYTES +
			   ROCE_REF_BTH_BYTES + ROCE_REF_ICRC_BYTES;
	struct roce_ref_fields scratch, *f = out ? out : &scratch;
	const uint8_t *ip = frame + ROCE_REF_ETH_BYTES;
	const uint8_t *udp = ip + ROCE_REF_IPV4_BYTES;
	const uint8_t *bth = udp + ROCE_REF_UDP_BYTES;
	const uint8_t *p;
	unsigned ext;
	size_t ip_len, udp_len, fixed;

	memset(f, 0, sizeof(*f));
	if (len < min)
		return ROCE_REF_TOO_SHORT;
	memcpy(f->dst_mac, frame, 6);
	memcpy(f->src_mac, frame + 6, 6);
	if (get16(frame + 12) != 0x0800)
		return ROCE_REF_NOT_IPV4;

	f->tos = ip[1];
	ip_len = get16(ip + 2);
	f->ip_id = get16(ip + 4);
	f->ip_frag = get16(ip + 6);
	f->ttl = ip[8];
	f->ip_checksum = get16(ip + 10);
	f->src_ip = get32(ip + 12);
	f->dst_ip = get32(ip + 16);
	/* no options, UDP, not a fragment (MF clear, offset 0) */
	if (ip[0] != 0x45 || ip[9] != 17 || (f->ip_frag & 0x3fff) != 0)
		return ROCE_REF_BAD_IPV4_HEADER;
	if (roce_ref_ipv4_checksum(ip) != f->ip_checksum)
		return ROCE_REF_BAD_IP_CHECKSUM;

	f->src_port = get16(udp);
	f->dst_port = get16(udp + 2);
	udp_len = get16(udp + 4);
	f->udp_checksum = get16(udp + 6);
	if (ip_len != len - ROCE_REF_ETH_BYTES || udp_len != ip_len - ROCE_REF_IPV4_BYTES)
		return ROCE_REF_BAD_LENGTH;
	if (f->dst_port != ROCE_REF_UDP_PORT)
		return ROCE_REF_NOT_ROCE;

	f->opcode = bth[0];
	f->se = bth[1] & 0x80;
	f->migreq = bth[1] & 0x40;
	f->pad = (bth[1] >> 4) & 3;
	f->tver = bth[1] & 0xf;
	f->pkey = get16(bth + 2);
	f->bth_resv8 = bth[4];
	f->dest_qp = get24(bth + 5);
	f->ackreq = bth[8] & 0x80;
	f->bth_resv7 = bth[8] & 0x7f;
	f->psn = get24(bth + 9);
	f->icrc = (uint32_t)frame[len - 4] | (uint32_t)frame[len - 3] << 8 |
		  (uint32_t)frame[len - 2] << 16 | (uint32_t)frame[len - 1] << 24;
	if (!roce_ref_opcode_known(f->opcode))
		return ROCE_REF_UNKNOWN_OPCODE;

	ext = roce_ref_ext_headers(f->opcode);
	fixed = min + roce_ref_ext_bytes(f->opcode);
	if (len < fixed + f->pad)
		return ROCE_REF_BAD_LENGTH;
	p = bth + ROCE_REF_BTH_BYTES;
	if (ext & ROCE_REF_RETH) {
		f->reth_va = (uint64_t)get32(p) << 32 | get32(p + 4);
		f->reth_rkey = get32(p + 8);
		f->reth_dma_len = get32(p + 12);
		p += 16;
	}
	if (ext & ROCE_REF_AETH) {
		f->aeth_syndrome = p[0];
		f->aeth_msn = get24(p + 1);
		p += 4;
	}
	if (ext & ROCE_REF_IETH) {
		f->ieth_rkey = get32(p);
		p += 4;
	}
	if (ext & ROCE_REF_IMM) {
		f->imm = get32(p);
		p += 4;
	}
	f->payload = p;
	f->payload_len = len - fixed - f->pad;
	if ((f->payload_len + f->pad) % 4 != 0)
		return ROCE_REF_BAD_PAD;
	if (roce_ref_icrc(frame, len - ROCE_REF_ICRC_BYTES) != f->icrc)
		return ROCE_REF_BAD_ICRC;
	return ROCE_REF_OK;
}

const char *roce_ref_profile_violation(const struct roce_ref_fields *f)
{
	static const uint8_t doc_opcodes[] = {
		ROCE_OP_SEND_FIRST,
		ROCE_OP_SEND_MIDDLE,
		ROCE_OP_SEND_LAST,
		ROCE_OP_SEND_ONLY,
		ROCE_OP_WRITE_FIRST,
		ROCE_OP_WRITE_MIDDLE,
		ROCE_OP_WRITE_LAST,
		ROCE_OP_WRITE_ONLY,
		ROCE_OP_READ_REQUEST,
		ROCE_OP_READ_RESPONSE_FIRST,
		ROCE_OP_READ_RESPONSE_MIDDLE,
		ROCE_OP_READ_RESPONSE_LAST,
		ROCE_OP_READ_RESPONSE_ONLY,
		ROCE_OP_ACKNOWLEDGE,
		ROCE_OP_SEND_LAST_INV,
		ROCE_OP_SEND_ONLY_INV,
	};
	bool listed = false;

	if (f->tos != 0)
		return "IPv4 DSCP/ECN is not 0";
	if (f->ip_id != 0)
		return "IPv4 identification is not 0";
	if (f->ip_frag != 0x4000)
		return "IPv4 flags are not DF";
	if (f->ttl != 64)
		return "IPv4 TTL is not 64";
	if ((f->src_port & 0xc000) != 0xc000)
		return "UDP source port is not 0xC000 | (source QPN & 0x3FFF)";
	if (f->udp_checksum != 0)
		return "UDP checksum is not 0";
	if (f->pkey != 0xffff)
		return "BTH P_Key is not 0xFFFF";
	if (f->migreq || f->tver != 0)
		return "BTH MigReq or TVer is not 0";
	if (f->bth_resv8 != 0 || f->bth_resv7 != 0)
		return "BTH reserved bits are not 0";
	if (f->dest_qp < 2)
		return "destination QP 0 or 1: InfiniBand's management QPs (SMI, GSI)";
	for (size_t i = 0; i < sizeof(doc_opcodes); i++)
		listed |= f->opcode == doc_opcodes[i];
	if (!listed)
		return "opcode is not one of docs/transport.md's wire format";
	for (unsigned i = 0; i < f->pad; i++)
		if (f->payload[f->payload_len + i] != 0)
			return "pad bytes are not 0";
	return NULL;
}
