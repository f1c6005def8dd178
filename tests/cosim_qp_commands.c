/* SPDX-License-Identifier: MIT */
/*
 * The QP commands' argument checks (nic_qp_ctx, the one place that judges them; formats/nic.toml
 * says what each command refuses). A refused command leaves the QP as it was, which QP_STATE
 * reads back: a QP_CREATE with a receive ring deeper than CAP_SQ's largest ring leaves the QP in
 * RESET; a QP_CONNECT with a path MTU outside NIC_LOG_MTU_MIN..NIC_LOG_MTU_MAX or an ORD / IRD
 * above CAP_TRANSPORT's read limit leaves it READY. Each test then gives the same command with
 * the largest (or smallest) accepted value, which must take: the NIC keeps serving the QP.
 *
 * The commands are written to BAR0 directly (below the driver, which never sends such values),
 * packed with the generated nic_cmd_*_pack.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "nic_hw.h"
#include "nicsim.h"
#include "nicsim_raw.h"

#define QPN	     0
#define SQ_LOG_DEPTH 4
#define CQ_LOG_DEPTH 4

struct raw {
	struct nicsim *w;
	uint64_t sq_la, rq_la, cq_la;
	struct nic_cap_sq cap_sq;
	struct nic_cap_transport cap_tp;
};

static void cmd(struct raw *r, uint8_t opcode, const uint32_t *args, unsigned nargs)
{
	const struct nic_cmd c = { .opcode = opcode, .index = QPN };
	uint32_t word;

	for (unsigned i = 0; i < nargs; i++)
		nicsim_mmio_write32(r->w, 0, NIC_REG_ARG0 + 4 * i, args[i]);
	nic_cmd_pack(&c, &word);
	nicsim_mmio_write32(r->w, 0, NIC_REG_CMD, word);
}

/* the QP's state: the read returns once the commands before it took effect */
static uint32_t qp_state(struct raw *r)
{
	return nicsim_mmio_read32(r->w, 0, NIC_REG_QP_STATE_BASE + 4 * QPN);
}

/* one NIC with CQ 0 and the memory for QP 0's rings */
static void raw_open(struct raw *r)
{
	struct nicsim_config c = raw_config(1);
	uint32_t args[NIC_CMD_CQ_CREATE_WORDS], word;
	struct nic_cmd_cq_create cq = { .log_depth = CQ_LOG_DEPTH };
	void *va;

	memset(r, 0, sizeof(*r));
	cr_assert_eq(nicsim_create(&c, &r->w), 0);
	word = nicsim_mmio_read32(r->w, 0, NIC_REG_CAP_SQ);
	nic_cap_sq_unpack(&word, &r->cap_sq);
	word = nicsim_mmio_read32(r->w, 0, NIC_REG_CAP_TRANSPORT);
	nic_cap_transport_unpack(&word, &r->cap_tp);
	cr_assert(r->cap_tp.transport && r->cap_tp.read, "the core has the transport with Reads");
	cr_assert_eq(nicsim_dma_alloc(r->w, 0, ((size_t)1 << CQ_LOG_DEPTH) * NIC_CQE_BYTES + 32,
				      NICSIM_MEM_CQ, &va, &r->cq_la),
		     0);
	cr_assert_eq(nicsim_dma_alloc(r->w, 0, ((size_t)1 << SQ_LOG_DEPTH) * NIC_WQE_BYTES,
				      NICSIM_MEM_SQ, &va, &r->sq_la),
		     0);
	/* the receive ring is never read: no RQ doorbell is rung */
	cr_assert_eq(nicsim_dma_alloc(r->w, 0, 4096, NICSIM_MEM_RQ, &va, &r->rq_la), 0);
	cq.base = r->cq_la;
	nic_cmd_cq_create_pack(&cq, args);
	cmd(r, NIC_CMD_CQ_CREATE, args, NIC_CMD_CQ_CREATE_WORDS);
}

static void qp_create(struct raw *r, unsigned rq_log_depth)
{
	struct nic_cmd_qp_create q = {
		.sq_base = r->sq_la,
		.sq_log_depth = SQ_LOG_DEPTH,
		.rq_log_depth = (uint8_t)rq_log_depth,
		.rq_base = r->rq_la,
	};
	uint32_t args[NIC_CMD_QP_CREATE_WORDS];

	nic_cmd_qp_create_pack(&q, args);
	cmd(r, NIC_CMD_QP_CREATE, args, NIC_CMD_QP_CREATE_WORDS);
}

/* a connection to the NIC's own QP (the lone NIC's port loops back) */
static void qp_connect(struct raw *r, unsigned log_mtu, unsigned ord, unsigned ird)
{
	struct nic_cmd_qp_connect q = {
		.peer_mac = 0x020000000001ull,
		.peer_ipv4 = 0x0a000001,
		.peer_qpn = NIC_QPN_BASE + QPN,
		.log_mtu = (uint8_t)log_mtu,
		.outbound_read_limit = (uint8_t)ord,
		.inbound_read_limit = (uint8_t)ird,
	};
	uint32_t args[NIC_CMD_QP_CONNECT_WORDS];

	nic_cmd_qp_connect_pack(&q, args);
	cmd(r, NIC_CMD_QP_CONNECT, args, NIC_CMD_QP_CONNECT_WORDS);
}

/* QP 0 created READY with the smallest receive ring */
static void qp_ready(struct raw *r)
{
	qp_create(r, 0);
	cr_assert_eq(qp_state(r), NIC_QP_STATE_READY);
}

Test(qp_commands, create_refuses_a_receive_ring_deeper_than_the_largest_ring)
{
	struct raw r;
	raw_open(&r);
	const unsigned max = r.cap_sq.log_max_depth;
	qp_create(&r, max + 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_RESET,
		     "QP_CREATE with rq_log_depth %u (CAP_SQ log_max_depth %u) is refused", max + 1,
		     max);
	qp_create(&r, max);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_READY, "rq_log_depth %u is accepted", max);
	nicsim_destroy(r.w);
}

Test(qp_commands, connect_refuses_a_path_mtu_below_256_bytes)
{
	struct raw r;
	raw_open(&r);
	qp_ready(&r);
	qp_connect(&r, NIC_LOG_MTU_MIN - 1, 1, 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_READY, "log_mtu %u is refused",
		     NIC_LOG_MTU_MIN - 1);
	qp_connect(&r, NIC_LOG_MTU_MIN, 1, 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_RTS, "log_mtu %u is accepted", NIC_LOG_MTU_MIN);
	nicsim_destroy(r.w);
}

Test(qp_commands, connect_refuses_a_path_mtu_above_4096_bytes)
{
	struct raw r;
	raw_open(&r);
	qp_ready(&r);
	qp_connect(&r, NIC_LOG_MTU_MAX + 1, 1, 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_READY, "log_mtu %u is refused",
		     NIC_LOG_MTU_MAX + 1);
	qp_connect(&r, NIC_LOG_MTU_MAX, 1, 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_RTS, "log_mtu %u is accepted", NIC_LOG_MTU_MAX);
	nicsim_destroy(r.w);
}

Test(qp_commands, connect_refuses_an_ord_above_the_read_limit)
{
	struct raw r;
	raw_open(&r);
	qp_ready(&r);
	const unsigned limit = r.cap_tp.read_limit;
	qp_connect(&r, NIC_LOG_MTU_MIN, limit + 1, 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_READY,
		     "ORD %u (CAP_TRANSPORT read_limit %u) is refused", limit + 1, limit);
	qp_connect(&r, NIC_LOG_MTU_MIN, limit, 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_RTS, "ORD %u is accepted", limit);
	nicsim_destroy(r.w);
}

Test(qp_commands, connect_refuses_an_ird_above_the_read_limit)
{
	struct raw r;
	raw_open(&r);
	qp_ready(&r);
	const unsigned limit = r.cap_tp.read_limit;
	qp_connect(&r, NIC_LOG_MTU_MIN, 1, limit + 1);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_READY,
		     "IRD %u (CAP_TRANSPORT read_limit %u) is refused", limit + 1, limit);
	qp_connect(&r, NIC_LOG_MTU_MIN, 1, limit);
	cr_assert_eq(qp_state(&r), NIC_QP_STATE_RTS, "IRD %u is accepted", limit);
	nicsim_destroy(r.w);
}
