// SPDX-License-Identifier: MIT
/*
 * Unit tests of the driver's half of the RoCEv2 transport, against a fake device that
 * advertises it (CAP_TRANSPORT.transport = 1, a read limit, a port MAC and IPv4 address) and
 * keeps each QP's state as the command doc says (QP_CREATE -> READY, QP_CONNECT READY -> RTS,
 * QP_FLUSH -> ERROR, QP_DESTROY -> RESET). The tests play the device's part: they read the WQEs
 * the driver wrote into the rings and write CQEs. Checked: the adapter's transport limits,
 * receive queues, QP_CONNECT and the QP's address, the WQE bytes of every request type,
 * doorbells and DEFER chains, every inline failure (status, no WQE, deferred requests rung
 * first), slot accounting and the conversion of receive completions. A device without the
 * transport refuses every transport call with NOT_SUPPORTED after the argument checks.
 */
#include "fake_device.h"

#define READ_LIMIT 4u

/* a device with the transport: read limit 4, MAC e5:f6:a1:b2:c3:d4, IPv4 10.0.0.1 */
static void transport_device_reset(void)
{
	const struct nic_cap_transport cap = {
		.transport = 1, .read = 1, .send_inv = 1, .read_limit = READ_LIMIT
	};
	fake_reset();
	nic_cap_transport_pack(&cap, &fk.cap_transport);
	fk.mac_lo = 0xa1b2c3d4;
	fk.mac_hi = 0xe5f6;
	fk.ipv4 = 0x0a000001;
}

/* ---------------------------------------------------------------------------------------------
 * Fixture: an adapter with the transport, a PD, a CQ (depth 64) and two QPs (send queue 8,
 * receive queue 5 -> 8, inline 40): `qp` connected to a peer, `uqp` not connected
 */

static struct ndk_adapter *ad;
static struct ndk_pd *pd;
static struct ndk_cq *cq;
static struct ndk_qp *qp, *uqp;
static int qp_ctx_tag;
#define QP_CTX	((void *)&qp_ctx_tag)
#define CTX(n)	((void *)(uintptr_t)(0x1000 + (n)))
#define PEER_QP 0x123456u

static const struct ndk_qp_address peer = {
	.mac = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc },
	.ipv4 = 0x0a000002,
	.qp_number = PEER_QP,
};

static struct ndk_qp_attr qp_attr(struct ndk_cq *c, uint32_t sq_depth, uint32_t rq_depth)
{
	struct ndk_qp_attr a = {
		.receive_cq = c,
		.initiator_cq = c,
		.qp_context = QP_CTX,
		.initiator_queue_depth = sq_depth,
		.receive_queue_depth = rq_depth,
		.max_initiator_request_sge = 2,
		.max_receive_request_sge = 3,
		.inline_data_size = 40,
	};
	return a;
}

static struct ndk_qp *new_qp(uint32_t sq_depth, uint32_t rq_depth)
{
	struct ndk_qp_attr a = qp_attr(cq, sq_depth, rq_depth);
	struct ndk_qp *q;

	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS);
	return q;
}

static struct ndk_qp *new_connected_qp(uint32_t sq_depth, uint32_t rq_depth, uint32_t outbound)
{
	struct ndk_qp *q = new_qp(sq_depth, rq_depth);

	cr_assert_eq(ndk_connect_qp(q, &peer, READ_LIMIT, outbound), NDK_STATUS_SUCCESS);
	return q;
}

static void setup(void)
{
	transport_device_reset();
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &ad), 0);
	cr_assert_eq(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(ad, 64, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
	qp = new_connected_qp(8, 5, READ_LIMIT);
	uqp = new_qp(8, 5);
}

static void teardown(void)
{
	if (ad)
		ndk_close_adapter(ad);
	ad = NULL;
	cr_expect_eq(fk.live_allocs, 0, "the adapter's close left %u allocations", fk.live_allocs);
}

TestSuite(unit_transport, .init = setup, .fini = teardown);

static uint32_t sq_db(const struct ndk_qp *q)
{
	return NIC_REG_QP_DB_BASE + (q->qpn << NIC_DB_PAGE_SHIFT) + NIC_DB_SQ_PI;
}

static uint32_t rq_db(const struct ndk_qp *q)
{
	return NIC_REG_QP_DB_BASE + (q->qpn << NIC_DB_PAGE_SHIFT) + NIC_DB_RQ_PI;
}

static void *sq_wqe(const struct ndk_qp *q, uint64_t index)
{
	return (char *)q->sq.ring + (index & (q->sq.depth - 1)) * NIC_WQE_BYTES;
}

static void *rq_wqe(const struct ndk_qp *q, uint64_t index)
{
	return (char *)q->rq.ring + (index & (q->rq.depth - 1)) * NIC_WQE_BYTES;
}

static void expect_sge(const struct nic_sge *w, const struct ndk_sge *s, const char *what)
{
	cr_expect_eq(le64toh(w->address), s->address, "%s address", what);
	cr_expect_eq(le32toh(w->length), s->length, "%s length", what);
	cr_expect_eq(le32toh(w->token), s->token, "%s token", what);
}

/* the device's part: a CQE at the CQ's next producer slot */
static uint16_t dev_pi[256];

static void put_cqe(struct ndk_cq *c, const struct ndk_qp *q, uint16_t wqe_index, uint32_t status,
		    uint16_t op, uint8_t flags, uint32_t bytes, uint32_t type_specific)
{
	uint16_t pi = dev_pi[c->cqn]++;
	struct nic_cqe *e = &c->ring[pi & c->mask];

	memset(e, 0, sizeof(*e));
	e->status = htole32(status);
	e->bytes_transferred = htole32(bytes);
	e->type_specific = htole32(type_specific);
	e->wqe_index = htole16(wqe_index);
	e->qpn = htole16((uint16_t)q->qpn);
	e->op_type = htole16(op);
	e->flags = flags;
	/* first pass 1, second 0, ... (written last, as the device does) */
	e->owner = ((pi >> c->log_depth) & 1) ? 0 : 1;
}

/* a send-queue completion of WQE `index` */
static void complete_sq(const struct ndk_qp *q, uint16_t index)
{
	put_cqe(cq, q, index, 0, NIC_NDK_OP_TYPE_SEND, 0, 0, 0);
}

static const struct ndk_sge sge3[3] = {
	{ .address = 0x7f0000001000ull, .length = 100, .token = 0x1101 },
	{ .address = 0x7f0000002010ull, .length = 2000, .token = 0x1201 },
	{ .address = 0xabc000, .length = 7, .token = 0xff0001ff },
};

/* ---------------------------------------------------------------------------------------------
 * Adapter information
 */

Test(unit_transport, adapter_info_reports_the_wqe_limits_and_the_read_limit_of_cap_transport)
{
	struct ndk_adapter_info info;

	cr_assert_eq(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
	cr_expect_eq(info.max_initiator_request_sge, 2, "a Write / Read WQE holds 2 SGEs");
	cr_expect_eq(info.max_read_request_sge, 2);
	cr_expect_eq(info.max_receive_request_sge, 3);
	cr_expect_eq(info.max_inline_data_size, 40, "a Write WQE holds 40 bytes");
	cr_expect_eq(info.max_inbound_read_limit, READ_LIMIT, "CAP_TRANSPORT[15:8]");
	cr_expect_eq(info.max_outbound_read_limit, READ_LIMIT);
	cr_expect_eq(info.max_receive_queue_depth, 4096, "as deep as the send queue");
	cr_expect_eq(info.max_initiator_queue_depth, 4096);
	cr_expect_eq(info.max_transfer_length, 1u << 30);
	cr_expect_eq(info.adapter_flags & NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED,
		     NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED);
	cr_expect_eq(info.adapter_flags & NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED,
		     NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED);
	cr_expect_eq(info.adapter_flags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED,
		     NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED);
}

Test(unit_transport, adapter_info_without_the_transport_keeps_the_local_only_limits)
{
	struct ndk_adapter *other;
	struct ndk_adapter_info info;

	fk.cap_transport = READ_LIMIT << 8; /* a read limit, but no transport: ignored */
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), 0);
	cr_assert_eq(ndk_query_adapter_info(other, &info), NDK_STATUS_SUCCESS);
	cr_expect_eq(info.max_initiator_request_sge, 4);
	cr_expect_eq(info.max_read_request_sge, 4);
	cr_expect_eq(info.max_receive_request_sge, 4);
	cr_expect_eq(info.max_inline_data_size, 0);
	cr_expect_eq(info.max_inbound_read_limit, 0);
	cr_expect_eq(info.max_outbound_read_limit, 0);
	cr_expect_eq(info.max_receive_queue_depth, 0);
	cr_expect_eq(info.max_transfer_length, 1u << 30);
	cr_expect_eq(info.adapter_flags & NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED, 0);
	ndk_close_adapter(other);
}

/* ---------------------------------------------------------------------------------------------
 * QP creation
 */

Test(unit_transport, create_qp_rounds_the_receive_queue_up_and_passes_its_ring_in_qp_create)
{
	struct ndk_qp *q = new_qp(16, 5);
	int cmd = last_cmd(NIC_CMD_QP_CREATE);

	cr_expect_eq(q->rq.depth, 8, "5 rounded up to a power of two");
	cr_expect_eq(q->rq.log_depth, 3);
	cr_expect_eq(q->rq.ring_logical & 4095, 0);
	cr_expect_eq(q->rq.ring_bytes, 4096, "8 slots of 64 bytes, whole pages");
	cr_expect_eq(fake_kind(q->rq.ring), NDK_DMA_RQ);
	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, q->qpn);
	cr_expect_eq(cmd_arg(cmd, 3), 3u << 8 | 4, "{rq_log_depth[15:8], sq_log_depth[7:0]}");
	cr_expect_eq(cmd_arg(cmd, 4), (uint32_t)q->rq.ring_logical);
	cr_expect_eq(cmd_arg(cmd, 5), (uint32_t)(q->rq.ring_logical >> 32));
	ndk_close_qp(q);
}

Test(unit_transport, create_qp_checks_the_transport_attributes_against_the_adapter)
{
	struct ndk_qp_attr a;
	struct ndk_qp *q;

	a = qp_attr(cq, 4, 4097);
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "receive depth");
	a = qp_attr(cq, 4, 4);
	a.max_receive_request_sge = 4;
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "receive SGEs");
	a = qp_attr(cq, 4, 4);
	a.max_initiator_request_sge = 3;
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "initiator SGEs");
	a = qp_attr(cq, 4, 4);
	a.inline_data_size = 41;
	cr_expect_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_INVALID_PARAMETER, "inline size");
	a = qp_attr(cq, 4, 4096);
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS, "every limit exactly");
	cr_expect_eq(q->rq.depth, 4096);
	ndk_close_qp(q);
	a = qp_attr(cq, 4, 0);
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS, "no receive queue");
	/* the device's receive ring is the send ring's first WQE, never address 0 (ndk_qp.c) */
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CREATE), 4), (uint32_t)q->sq.ring_logical,
		     "no RQ ring: the SQ ring in its place");
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CREATE), 5), (uint32_t)(q->sq.ring_logical >> 32));
	ndk_close_qp(q);
}

Test(unit_transport, a_device_without_the_transport_refuses_receive_queues)
{
	struct ndk_adapter *other;
	struct ndk_pd *p;
	struct ndk_cq *c;
	struct ndk_qp *q;
	struct ndk_qp_attr a;

	fk.cap_transport = 0;
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), 0);
	cr_assert_eq(ndk_create_pd(other, &p), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(other, 8, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	a = qp_attr(c, 4, 1);
	a.inline_data_size = 0;
	cr_expect_eq(ndk_create_qp(p, &a, &q), NDK_STATUS_INVALID_PARAMETER);
	ndk_close_adapter(other);
}

/* ---------------------------------------------------------------------------------------------
 * Addresses and connections
 */

Test(unit_transport, qp_address_is_the_port_mac_and_ipv4_read_at_probe_and_the_qp_number)
{
	struct ndk_qp_address a;
	const uint8_t mac[6] = { 0xe5, 0xf6, 0xa1, 0xb2, 0xc3, 0xd4 };
	unsigned reads = fk.reads;

	memset(&a, 0xff, sizeof(a));
	cr_assert_eq(ndk_get_qp_address(uqp, &a), NDK_STATUS_SUCCESS);
	cr_expect_arr_eq(a.mac, mac, 6, "mac[0] = PORT_MAC_HI[15:8], mac[5] = PORT_MAC_LO[7:0]");
	cr_expect_eq(a.ipv4, 0x0a000001);
	cr_expect_eq(a.qp_number, NIC_QPN_BASE + uqp->qpn, "the wire QPN");
	cr_expect_eq(fk.reads, reads, "no MMIO read: the port registers were read at probe");
	cr_expect_eq(ndk_get_qp_address(NULL, &a), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_get_qp_address(uqp, NULL), NDK_STATUS_INVALID_PARAMETER);
}

Test(unit_transport, connect_sends_qp_connect_with_the_peer_address_start_psns_limits_and_mtu)
{
	int cmd;

	cr_assert_eq(ndk_connect_qp(uqp, &peer, 3, 2), NDK_STATUS_SUCCESS);
	cmd = last_cmd(NIC_CMD_QP_CONNECT);
	cr_assert_geq(cmd, 0);
	cr_expect_eq(fk.writes[cmd].value >> 8, uqp->qpn);
	cr_expect_eq(cmd_arg(cmd, 0), 0x56789abc, "peer MAC[31:0]");
	cr_expect_eq(cmd_arg(cmd, 1), 0x1234, "peer MAC[47:32]");
	cr_expect_eq(cmd_arg(cmd, 2), 0x0a000002);
	/* the defaults of ndk_connect_attr beside them: ack_timeout 14, retry_count 7, rnr_retry 7 */
	cr_expect_eq(cmd_arg(cmd, 3), 14u << 24 | PEER_QP, "ack_timeout, the peer QP");
	cr_expect_eq(cmd_arg(cmd, 4), 7u << 24 | 0, "retry_count, first PSN sent");
	cr_expect_eq(cmd_arg(cmd, 5), 7u << 24 | 0, "rnr_retry, first PSN expected");
	cr_expect_eq(cmd_arg(cmd, 6), 3u << 16 | 2u << 8 | 10, "inbound 3, outbound 2, 1024 bytes");
	cr_expect_eq(fk.qp_state[uqp->qpn], NIC_QP_STATE_RTS);
	cr_expect(uqp->connected);
}

Test(unit_transport, the_path_mtu_setter_takes_256_to_4096_and_applies_to_later_connections)
{
	static const uint32_t bad[] = { 0, 1, 128, 1000, 1025, 8192, 0xffffffffu };
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(ndk_adapter_set_path_mtu(ad, bad[i]), -EINVAL, "mtu %u", bad[i]);
	cr_expect_eq(ndk_adapter_set_path_mtu(NULL, 1024), -EINVAL);
	cr_assert_eq(ndk_adapter_set_path_mtu(ad, 4096), 0);
	cr_assert_eq(ndk_connect_qp(uqp, &peer, 0, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CONNECT), 6) & 0xff, 12);
	cr_assert_eq(ndk_adapter_set_path_mtu(ad, 256), 0);
	cr_assert_eq(ndk_connect_qp(new_qp(4, 0), &peer, 0, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CONNECT), 6) & 0xff, 8);
}

Test(unit_transport, connect_checks_its_arguments_before_anything_reaches_the_device)
{
	struct ndk_qp_address far = peer;
	unsigned from = fk.nwrites;

	cr_expect_eq(ndk_connect_qp(NULL, &peer, 0, 0), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_connect_qp(uqp, NULL, 0, 0), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_connect_qp(uqp, &peer, READ_LIMIT + 1, 0), NDK_STATUS_INVALID_PARAMETER,
		     "inbound over max_inbound_read_limit");
	cr_expect_eq(ndk_connect_qp(uqp, &peer, 0, READ_LIMIT + 1), NDK_STATUS_INVALID_PARAMETER,
		     "outbound over max_outbound_read_limit");
	far.qp_number = 1u << 24;
	cr_expect_eq(ndk_connect_qp(uqp, &far, 0, 0), NDK_STATUS_INVALID_PARAMETER,
		     "a QP number wider than 24 bits");
	cr_expect_eq(fk.nwrites, from, "nothing written");
	cr_expect_not(uqp->connected);
}

Test(unit_transport, connecting_a_connected_or_flushed_qp_is_invalid_device_state)
{
	struct ndk_sge s = sge3[0];
	int before = last_cmd(NIC_CMD_QP_CONNECT);

	cr_expect_eq(ndk_connect_qp(qp, &peer, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE,
		     "already connected");
	cr_expect_eq(last_cmd(NIC_CMD_QP_CONNECT), before, "no second QP_CONNECT");
	ndk_flush(uqp);
	cr_expect_eq(ndk_connect_qp(uqp, &peer, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE,
		     "a QP in error stays unconnected (the device ignored QP_CONNECT)");
	cr_expect_not(uqp->connected);
	cr_expect_eq(ndk_send(uqp, NULL, &s, 1, 0), NDK_STATUS_CONNECTION_INVALID);
}

Test(unit_transport, a_qp_may_connect_to_a_qp_of_the_same_adapter)
{
	struct ndk_qp_address self;

	cr_assert_eq(ndk_get_qp_address(qp, &self), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp(uqp, &self, 1, 1), NDK_STATUS_SUCCESS);
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CONNECT), 0), 0xa1b2c3d4, "its own MAC");
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CONNECT), 1), 0xe5f6);
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CONNECT), 2), 0x0a000001);
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CONNECT), 3) & 0xFFFFFF, NIC_QPN_BASE + qp->qpn);
}

/* ---------------------------------------------------------------------------------------------
 * Receives
 */

Test(unit_transport, receive_writes_a_wqe_recv_and_rings_the_rq_doorbell_without_a_connection)
{
	struct nic_wqe_recv *w;
	unsigned from = fk.nwrites;

	/* uqp is not connected: receives may be posted before the connection */
	cr_assert_eq(ndk_receive(uqp, CTX(1), sge3, 3), NDK_STATUS_SUCCESS);
	w = rq_wqe(uqp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_RECV);
	cr_expect_eq(w->nsge, 3);
	cr_expect_eq(le16toh(w->flags), 0);
	cr_expect_eq(le16toh(w->index), 0);
	cr_expect_eq(le32toh(w->length), 2107, "the sum of the SGE lengths");
	expect_sge(&w->sge0, &sge3[0], "sge0");
	expect_sge(&w->sge1, &sge3[1], "sge1");
	expect_sge(&w->sge2, &sge3[2], "sge2");
	cr_expect_eq(writes_to(from, rq_db(uqp)), 1);
	cr_expect_eq(last_write(rq_db(uqp)), 1, "the new producer index");
	cr_expect_eq(writes_to(from, sq_db(uqp)), 0);
	cr_expect_eq(fk.wqe_costs, 1);
	cr_expect_eq(fk.doorbell_costs, 1);

	cr_assert_eq(ndk_receive(uqp, CTX(2), NULL, 0), NDK_STATUS_SUCCESS, "a zero-byte receive");
	w = rq_wqe(uqp, 1);
	cr_expect_eq(w->nsge, 0);
	cr_expect_eq(le16toh(w->index), 1);
	cr_expect_eq(le32toh(w->length), 0);
	cr_expect_eq(writes_to(from, rq_db(uqp)), 2, "one doorbell per receive");
	cr_expect_eq(last_write(rq_db(uqp)), 2);
	cr_expect_eq(fk.wqe_costs, 2);
	cr_expect_eq(fk.doorbell_costs, 2);
}

/* every inline failure of a receive: its status, no WQE, no doorbell */
Test(unit_transport, receive_inline_failures_write_no_wqe_and_ring_nothing)
{
	struct ndk_sge huge[2] = { { .address = 0x1000, .length = 1u << 30 },
				   { .address = 0x1000, .length = 1 } };
	struct ndk_sge four[4] = { { 0 } };
	struct ndk_qp *norq = new_qp(4, 0);
	unsigned from = fk.nwrites, i;

	cr_expect_eq(ndk_receive(NULL, NULL, sge3, 1), NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_receive(uqp, NULL, NULL, 1), NDK_STATUS_INVALID_PARAMETER, "no SGE list");
	cr_expect_eq(ndk_receive(uqp, NULL, four, 4), NDK_STATUS_DATA_OVERRUN, "a WQE holds 3");
	cr_expect_eq(ndk_receive(uqp, NULL, huge, 2), NDK_STATUS_BUFFER_OVERFLOW,
		     "longer than max_transfer_length");
	cr_expect_eq(ndk_receive(norq, NULL, sge3, 1), NDK_STATUS_NO_MORE_ENTRIES,
		     "a QP without a receive queue");
	cr_expect_eq(uqp->rq.pi, 0);
	cr_expect_eq(writes_to(from, rq_db(uqp)), 0);
	for (i = 0; i < 8; i++)
		cr_assert_eq(ndk_receive(uqp, NULL, sge3, 1), NDK_STATUS_SUCCESS);
	from = fk.nwrites;
	cr_expect_eq(ndk_receive(uqp, NULL, sge3, 1), NDK_STATUS_NO_MORE_ENTRIES, "queue full");
	cq->err->status = htole32(NIC_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq(ndk_receive(qp, NULL, sge3, 1), NDK_STATUS_INVALID_DEVICE_STATE,
		     "the receive CQ is in error");
	cr_expect_eq(uqp->rq.pi, 8);
	cr_expect_eq(qp->rq.pi, 0);
	cr_expect_eq(fk.nwrites, from, "nothing written");
}

Test(unit_transport, receive_slots_are_freed_in_order_by_their_completions)
{
	struct ndk_result r[8];
	unsigned i;

	for (i = 0; i < 8; i++)
		cr_assert_eq(ndk_receive(qp, CTX(i), sge3, 1), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_receive(qp, NULL, sge3, 1), NDK_STATUS_NO_MORE_ENTRIES);
	for (i = 0; i < 3; i++)
		put_cqe(cq, qp, (uint16_t)i, 0, NIC_NDK_OP_TYPE_RECEIVE, NIC_CQE_FLAG_RECV_QUEUE, 1,
			0);
	cr_assert_eq(ndk_get_cq_results(cq, r, 8), 3);
	for (i = 0; i < 3; i++)
		cr_expect_eq(r[i].request_context, CTX(i));
	cr_expect_eq(qp->rq.completed, 3);
	cr_expect_eq(qp->sq.completed, 0, "the send queue is untouched");
	for (i = 0; i < 3; i++)
		cr_expect_eq(ndk_receive(qp, CTX(8 + i), sge3, 1), NDK_STATUS_SUCCESS, "slot %u",
			     i);
	cr_expect_eq(ndk_receive(qp, NULL, sge3, 1), NDK_STATUS_NO_MORE_ENTRIES);
	cr_expect_eq(le16toh(((struct nic_wqe_recv *)rq_wqe(qp, 8))->index), 8, "slot 0 again");
}

Test(unit_transport, receive_completions_carry_bytes_type_and_the_invalidated_token_ex)
{
	struct ndk_result_ex r[4];
	unsigned i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(ndk_receive(qp, CTX(i), sge3, 3), NDK_STATUS_SUCCESS);
	put_cqe(cq, qp, 0, 0, NIC_NDK_OP_TYPE_RECEIVE, NIC_CQE_FLAG_RECV_QUEUE, 1500, 0);
	put_cqe(cq, qp, 1, 0, NIC_NDK_OP_TYPE_RECEIVE_AND_INVALIDATE,
		NIC_CQE_FLAG_RECV_QUEUE | NIC_CQE_FLAG_INVALIDATED, 7, 0x00abcd42);
	put_cqe(cq, qp, 2, NIC_STATUS_CANCELLED, NIC_NDK_OP_TYPE_RECEIVE,
		NIC_CQE_FLAG_RECV_QUEUE | NIC_CQE_FLAG_SOLICITED, 0, 0);
	cr_assert_eq(ndk_get_cq_results_ex(cq, r, 4), 3);
	cr_expect_eq(r[0].status, NDK_STATUS_SUCCESS);
	cr_expect_eq(r[0].bytes_transferred, 1500);
	cr_expect_eq(r[0].type, NDK_OP_RECEIVE);
	cr_expect_eq(r[0].type_specific, 0);
	cr_expect_eq(r[1].bytes_transferred, 7);
	cr_expect_eq(r[1].type, NDK_OP_RECEIVE_AND_INVALIDATE);
	cr_expect_eq(r[1].type, 0x8001u);
	cr_expect_eq(r[1].type_specific, 0x00abcd42, "the token the peer invalidated");
	cr_expect_eq(r[2].status, NDK_STATUS_CANCELLED);
	cr_expect_eq(r[2].type, NDK_OP_RECEIVE);
	for (i = 0; i < 3; i++) {
		cr_expect_eq(r[i].qp_context, QP_CTX);
		cr_expect_eq(r[i].request_context, CTX(i));
	}
	cr_expect_eq(qp->rq.completed, 3);
}

Test(unit_transport, receive_completions_carry_bytes_and_contexts_through_the_plain_poll)
{
	struct ndk_result r[4];

	cr_assert_eq(ndk_receive(qp, CTX(1), sge3, 2), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(qp, CTX(2), sge3, 2), NDK_STATUS_SUCCESS);
	put_cqe(cq, qp, 0, 0, NIC_NDK_OP_TYPE_RECEIVE_AND_INVALIDATE,
		NIC_CQE_FLAG_RECV_QUEUE | NIC_CQE_FLAG_INVALIDATED, 2100, 0x4201);
	put_cqe(cq, qp, 1, 0, NIC_NDK_OP_TYPE_RECEIVE, NIC_CQE_FLAG_RECV_QUEUE, 33, 0);
	cr_assert_eq(ndk_get_cq_results(cq, r, 4), 2);
	cr_expect_eq(r[0].status, NDK_STATUS_SUCCESS,
		     "a ReceiveAndInvalidate through the plain poll");
	cr_expect_eq(r[0].bytes_transferred, 2100);
	cr_expect_eq(r[0].request_context, CTX(1));
	cr_expect_eq(r[0].qp_context, QP_CTX);
	cr_expect_eq(r[1].bytes_transferred, 33);
	cr_expect_eq(r[1].request_context, CTX(2));
	cr_expect_eq(qp->rq.completed, 2);
}

Test(unit_transport, send_and_receive_completions_on_one_cq_go_to_their_own_queues)
{
	struct ndk_result_ex r[4];
	struct ndk_qp *q;
	struct ndk_cq *rcq;
	struct ndk_qp_attr a = qp_attr(cq, 4, 4);

	cr_assert_eq(ndk_send(qp, CTX(10), sge3, 1, 0), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(qp, CTX(20), sge3, 1), NDK_STATUS_SUCCESS);
	/* both are WQE 0 of their queue: only the RECV_QUEUE flag tells them apart */
	put_cqe(cq, qp, 0, 0, NIC_NDK_OP_TYPE_RECEIVE, NIC_CQE_FLAG_RECV_QUEUE, 100, 0);
	complete_sq(qp, 0);
	cr_assert_eq(ndk_get_cq_results_ex(cq, r, 4), 2);
	cr_expect_eq(r[0].request_context, CTX(20));
	cr_expect_eq(r[0].type, NDK_OP_RECEIVE);
	cr_expect_eq(r[1].request_context, CTX(10));
	cr_expect_eq(r[1].type, NDK_OP_SEND);
	cr_expect_eq(qp->rq.completed, 1);
	cr_expect_eq(qp->sq.completed, 1);

	/* separate CQs: a receive completes on the receive CQ */
	cr_assert_eq(ndk_create_cq(ad, 8, NULL, NULL, &rcq), NDK_STATUS_SUCCESS);
	a.receive_cq = rcq;
	cr_assert_eq(ndk_create_qp(pd, &a, &q), NDK_STATUS_SUCCESS);
	cr_expect_eq(cmd_arg(last_cmd(NIC_CMD_QP_CREATE), 2),
		     rcq->cqn << 24 | cq->cqn << 16 | pd->pdn);
	cr_assert_eq(ndk_receive(q, CTX(30), sge3, 1), NDK_STATUS_SUCCESS);
	put_cqe(rcq, q, 0, 0, NIC_NDK_OP_TYPE_RECEIVE, NIC_CQE_FLAG_RECV_QUEUE, 5, 0);
	cr_expect_eq(ndk_get_cq_results_ex(cq, r, 4), 0);
	cr_assert_eq(ndk_get_cq_results_ex(rcq, r, 4), 1);
	cr_expect_eq(r[0].request_context, CTX(30));
	cr_expect_eq(r[0].bytes_transferred, 5);
}

/* ---------------------------------------------------------------------------------------------
 * The WQEs of the initiator requests
 */

Test(unit_transport, send_wqe_carries_opcode_sges_length_flags_and_index)
{
	struct nic_wqe_send *w;
	unsigned from = fk.nwrites;

	cr_assert_eq(ndk_send(qp, CTX(1), sge3, 3,
			      NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE |
				      NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_SEND);
	cr_expect_eq(w->nsge, 3, "a Send WQE holds 3 SGEs");
	cr_expect_eq(le16toh(w->flags), NIC_FLAG_SILENT_SUCCESS | NIC_FLAG_READ_FENCE |
						NIC_FLAG_SEND_AND_SOLICIT_EVENT);
	cr_expect_eq(le16toh(w->index), 0);
	cr_expect_eq(le32toh(w->inv_token), 0);
	cr_expect_eq(le32toh(w->length), 2107);
	expect_sge(&w->sge0, &sge3[0], "sge0");
	expect_sge(&w->sge1, &sge3[1], "sge1");
	expect_sge(&w->sge2, &sge3[2], "sge2");
	cr_expect_eq(writes_to(from, sq_db(qp)), 1);
	cr_expect_eq(last_write(sq_db(qp)), 1);
	cr_expect_eq(fk.wqe_costs, 1);
	cr_expect_eq(fk.doorbell_costs, 1);
	cr_expect_eq(qp->sq.ctx[0], CTX(1));
}

Test(unit_transport, send_and_invalidate_carries_the_token_the_peer_invalidates)
{
	struct nic_wqe_send *w;

	cr_assert_eq(ndk_send(qp, NULL, NULL, 0, 0), NDK_STATUS_SUCCESS, "a zero-byte Send");
	cr_assert_eq(ndk_send_and_invalidate(qp, CTX(2), &sge3[1], 1,
					     NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, 0x00c0ff01),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->nsge, 0);
	cr_expect_eq(le32toh(w->length), 0);
	w = sq_wqe(qp, 1);
	cr_expect_eq(w->opcode, NIC_WQE_OP_SEND_INV);
	cr_expect_eq(w->nsge, 1);
	cr_expect_eq(le16toh(w->flags), NIC_FLAG_SEND_AND_SOLICIT_EVENT);
	cr_expect_eq(le16toh(w->index), 1);
	cr_expect_eq(le32toh(w->inv_token), 0x00c0ff01);
	cr_expect_eq(le32toh(w->length), 2000);
	expect_sge(&w->sge0, &sge3[1], "sge0");
	cr_expect_eq(last_write(sq_db(qp)), 2);
}

Test(unit_transport, write_wqe_carries_the_remote_address_and_token_and_two_sges)
{
	struct nic_wqe_rdma *w;
	static const uint8_t zero[8];

	cr_assert_eq(ndk_write(qp, CTX(3), sge3, 2, 0x7fee00001234ull, 0x00beef07,
			       NDK_OP_FLAG_READ_FENCE),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_WRITE);
	cr_expect_eq(w->nsge, 2);
	cr_expect_eq(le16toh(w->flags), NIC_FLAG_READ_FENCE);
	cr_expect_eq(le16toh(w->index), 0);
	cr_expect_eq(le32toh(w->remote_token), 0x00beef07);
	cr_expect_eq(le32toh(w->length), 2100);
	cr_expect_eq(le64toh(w->remote_va), 0x7fee00001234ull);
	expect_sge(&w->sge0, &sge3[0], "sge0");
	expect_sge(&w->sge1, &sge3[1], "sge1");
	cr_expect_arr_eq((const uint8_t *)w + 56, zero, 8, "the rest of the slot is zero");
	cr_expect_eq(last_write(sq_db(qp)), 1);
}

Test(unit_transport, read_wqe_names_its_sink_sges_and_the_remote_source)
{
	struct nic_wqe_rdma *w;

	cr_assert_eq(ndk_read(qp, CTX(4), &sge3[1], 2, 0x10000, 0x00abc101,
			      NDK_OP_FLAG_SILENT_SUCCESS),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_READ);
	cr_expect_eq(w->nsge, 2);
	cr_expect_eq(le16toh(w->flags), NIC_FLAG_SILENT_SUCCESS);
	cr_expect_eq(le32toh(w->remote_token), 0x00abc101);
	cr_expect_eq(le32toh(w->length), 2007, "the sink's length is the read's length");
	cr_expect_eq(le64toh(w->remote_va), 0x10000);
	expect_sge(&w->sge0, &sge3[1], "sge0");
	expect_sge(&w->sge1, &sge3[2], "sge1");
}

Test(unit_transport, inline_send_copies_the_data_into_the_wqe_at_post_time)
{
	char a[5] = "abcde", b[11] = "0123456789", c[1] = "Z";
	/* tokens may be invalid with INLINE and are ignored; an empty SGE may have no address */
	struct ndk_sge s[4] = {
		{ .address = (uintptr_t)a, .length = 5, .token = 0xdeadbeef },
		{ .address = 0, .length = 0, .token = 0 },
		{ .address = (uintptr_t)b, .length = 10, .token = 0x12345678 },
		{ .address = (uintptr_t)c, .length = 1, .token = 0 },
	};
	struct nic_wqe_send *w;

	cr_assert_eq(ndk_send(qp, CTX(5), s, 4, NDK_OP_FLAG_INLINE), NDK_STATUS_SUCCESS,
		     "4 SGEs: INLINE is bounded by bytes, not by SGE count");
	memset(a, '!', sizeof(a));
	memset(b, '!', sizeof(b));
	c[0] = '!';
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_SEND);
	cr_expect_eq(w->nsge, 0, "no SGEs with INLINE");
	cr_expect_eq(le16toh(w->flags), NIC_FLAG_INLINE);
	cr_expect_eq(le32toh(w->length), 16);
	cr_expect_arr_eq((const char *)w + 16, "abcde0123456789Z", 16, "copied when posted");
	cr_expect_eq(((const char *)w)[32], 0, "nothing after the data");
}

Test(unit_transport, inline_write_copies_up_to_40_bytes_at_byte_24)
{
	char data[40];
	struct ndk_sge s = { .address = (uintptr_t)data, .length = 40, .token = 0 };
	struct nic_wqe_rdma *w;
	unsigned i;

	for (i = 0; i < 40; i++)
		data[i] = (char)(i * 7 + 1);
	cr_assert_eq(ndk_write(qp, CTX(6), &s, 1, 0x4000, 0x00777701,
			       NDK_OP_FLAG_INLINE | NDK_OP_FLAG_SILENT_SUCCESS),
		     NDK_STATUS_SUCCESS);
	w = sq_wqe(qp, 0);
	cr_expect_eq(w->opcode, NIC_WQE_OP_WRITE);
	cr_expect_eq(w->nsge, 0);
	cr_expect_eq(le16toh(w->flags), NIC_FLAG_INLINE | NIC_FLAG_SILENT_SUCCESS);
	cr_expect_eq(le32toh(w->length), 40);
	cr_expect_eq(le64toh(w->remote_va), 0x4000);
	cr_expect_eq(le32toh(w->remote_token), 0x00777701);
	cr_expect_arr_eq((const char *)w + 24, data, 40);
}

Test(unit_transport, defer_chains_transport_and_local_requests_under_one_doorbell)
{
	struct ndk_mw *mw;
	unsigned from = fk.nwrites, i;

	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_write(qp, CTX(0), sge3, 1, 0x1000, 1, NDK_OP_FLAG_DEFER),
		     NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_send(qp, CTX(1), sge3, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_invalidate_mw(qp, CTX(2), mw, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db(qp)), 0, "a deferred request rang");
	cr_assert_eq(ndk_read(qp, CTX(3), sge3, 1, 0x2000, 1, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db(qp)), 1);
	cr_expect_eq(last_write(sq_db(qp)), 4);
	cr_expect_eq(fk.doorbell_costs, 1);
	cr_expect_eq(fk.wqe_costs, 4);
	for (i = 0; i < 4; i++) {
		struct nic_wqe_hdr *h = sq_wqe(qp, i);

		cr_expect_eq(le16toh(h->index), i);
		cr_expect_eq(le16toh(h->flags), 0, "DEFER is not a WQE flag");
	}
	cr_expect_eq(((struct nic_wqe_hdr *)sq_wqe(qp, 0))->opcode, NIC_WQE_OP_WRITE);
	cr_expect_eq(((struct nic_wqe_hdr *)sq_wqe(qp, 1))->opcode, NIC_WQE_OP_SEND);
	cr_expect_eq(((struct nic_wqe_hdr *)sq_wqe(qp, 2))->opcode, NIC_WQE_OP_INVALIDATE);
	cr_expect_eq(((struct nic_wqe_hdr *)sq_wqe(qp, 3))->opcode, NIC_WQE_OP_READ);
}

Test(unit_transport, the_library_rings_by_itself_at_half_the_ring_for_transport_requests)
{
	unsigned from = fk.nwrites, i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(ndk_send(qp, NULL, sge3, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db(qp)), 0);
	cr_assert_eq(ndk_write(qp, NULL, sge3, 1, 0, 0, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_expect_eq(writes_to(from, sq_db(qp)), 1, "4 deferred of a ring of 8");
	cr_expect_eq(last_write(sq_db(qp)), 4);
}

Test(unit_transport, silent_successes_keep_their_slots_until_a_later_completion)
{
	struct ndk_result r[8];
	unsigned i;

	for (i = 0; i < 8; i++)
		cr_assert_eq(ndk_send(qp, CTX(i), sge3, 1, NDK_OP_FLAG_SILENT_SUCCESS),
			     NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_write(qp, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_NO_MORE_ENTRIES);
	/* the device completes WQE 5 (an error, say): 0..4 succeeded silently before it */
	put_cqe(cq, qp, 5, NIC_STATUS_ACCESS_VIOLATION, NIC_NDK_OP_TYPE_SEND, 0, 0, 0);
	cr_assert_eq(ndk_get_cq_results(cq, r, 8), 1);
	cr_expect_eq(r[0].request_context, CTX(5));
	cr_expect_eq(qp->sq.completed, 6);
	for (i = 0; i < 6; i++)
		cr_expect_eq(ndk_read(qp, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_SUCCESS, "slot %u",
			     i);
	cr_expect_eq(ndk_read(qp, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_NO_MORE_ENTRIES);
}

Test(unit_transport, flush_of_a_connected_qp_rings_deferred_requests_then_sends_qp_flush)
{
	unsigned from;
	int cmd;

	cr_assert_eq(ndk_write(qp, NULL, sge3, 1, 0, 0, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_receive(qp, NULL, sge3, 1), NDK_STATUS_SUCCESS);
	from = fk.nwrites;
	ndk_flush(qp);
	cr_expect_eq(writes_to(from, sq_db(qp)), 1);
	cr_expect_eq(writes_to(from, rq_db(qp)), 0, "receives were rung when posted");
	cmd = last_cmd(NIC_CMD_QP_FLUSH);
	cr_assert_geq(cmd, (int)from);
	cr_expect_eq(fk.writes[cmd].value >> 8, qp->qpn);
	cr_expect_eq(fk.writes[from].offset, sq_db(qp), "the doorbell first");
	/* the QP stays connected: later requests are accepted and complete CANCELLED */
	cr_expect_eq(ndk_send(qp, NULL, sge3, 1, 0), NDK_STATUS_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
 * Inline failures of the initiator requests
 */

Test(unit_transport, each_request_type_refuses_the_flags_it_does_not_take)
{
	static const uint32_t not_send[] = { NDK_OP_FLAG_ALLOW_REMOTE_READ,
					     NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
					     NDK_OP_FLAG_RDMA_READ_SINK,
					     NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, 0x8000 };
	static const uint32_t not_write[] = { NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT,
					      NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
					      NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, 0x400 };
	static const uint32_t not_read[] = { NDK_OP_FLAG_INLINE, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT,
					     NDK_OP_FLAG_ALLOW_REMOTE_READ,
					     NDK_OP_FLAG_RDMA_READ_SINK };
	const uint32_t all = NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE;
	char data[8] = "inline!";
	struct ndk_sge in = { .address = (uintptr_t)data, .length = 8 };
	unsigned i;

	for (i = 0; i < sizeof(not_send) / sizeof(not_send[0]); i++) {
		cr_expect_eq(ndk_send(qp, NULL, sge3, 1, not_send[i]), NDK_STATUS_INVALID_PARAMETER,
			     "send 0x%x", not_send[i]);
		cr_expect_eq(ndk_send_and_invalidate(qp, NULL, sge3, 1, not_send[i], 1),
			     NDK_STATUS_INVALID_PARAMETER, "send and invalidate 0x%x", not_send[i]);
	}
	for (i = 0; i < sizeof(not_write) / sizeof(not_write[0]); i++)
		cr_expect_eq(ndk_write(qp, NULL, sge3, 1, 0, 0, not_write[i]),
			     NDK_STATUS_INVALID_PARAMETER, "write 0x%x", not_write[i]);
	for (i = 0; i < sizeof(not_read) / sizeof(not_read[0]); i++)
		cr_expect_eq(ndk_read(qp, NULL, sge3, 1, 0, 0, not_read[i]),
			     NDK_STATUS_INVALID_PARAMETER, "read 0x%x", not_read[i]);
	cr_expect_eq(qp->sq.pi, 0, "no WQE written");
	/* and the flags each takes */
	cr_expect_eq(ndk_send(qp, NULL, sge3, 1,
			      all | NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | NDK_OP_FLAG_DEFER),
		     NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_send_and_invalidate(
			     qp, NULL, &in, 1,
			     all | NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | NDK_OP_FLAG_INLINE, 1),
		     NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_write(qp, NULL, &in, 1, 0, 0,
			       all | NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER),
		     NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_read(qp, NULL, sge3, 1, 0, 0, all | NDK_OP_FLAG_DEFER),
		     NDK_STATUS_SUCCESS);
	cr_expect_eq(qp->sq.pi, 4);
}

/* RDMA_READ_LOCAL_INVALIDATE (invalidate the sink's token when the Read completes) is not
 * built: the adapter does not claim it, and a Read asking for it is refused NOT_SUPPORTED (not
 * silently run without it), after the argument checks, with the deferred requests before it
 * rung first; nothing of it reaches the device. */
Test(unit_transport, read_with_local_invalidate_is_refused_not_supported)
{
	struct ndk_adapter_info info;
	cr_assert_eq(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
	cr_assert_eq(info.adapter_flags & NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED, 0);
	cr_assert_eq(ndk_send(qp, CTX(1), sge3, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
	const unsigned rung = writes_to(0, sq_db(qp));
	cr_expect_eq(ndk_read(qp, CTX(2), sge3, 1, 0x10000, 0x00abc101,
			      NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE),
		     NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(qp->sq.pi, 1, "no WQE for the refused Read");
	cr_expect_eq(writes_to(0, sq_db(qp)), rung + 1, "the deferred Send was rung first");
	cr_expect_eq(last_write(sq_db(qp)), 1);
	/* the argument checks come first */
	cr_expect_eq(ndk_read(qp, CTX(3), NULL, 1, 0, 0, NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_read(qp, CTX(4), sge3, 1, 0, 0, NDK_OP_FLAG_READ_FENCE),
		     NDK_STATUS_SUCCESS, "the same Read without the flag is taken");
}

Test(unit_transport, more_sges_than_the_wqe_holds_is_data_overrun_send_3_write_and_read_2)
{
	struct ndk_sge four[4] = {
		{ .length = 1 }, { .length = 1 }, { .length = 1 }, { .length = 1 }
	};

	cr_expect_eq(ndk_send(qp, NULL, four, 4, 0), NDK_STATUS_DATA_OVERRUN);
	cr_expect_eq(ndk_send_and_invalidate(qp, NULL, four, 4, 0, 1), NDK_STATUS_DATA_OVERRUN);
	cr_expect_eq(ndk_write(qp, NULL, four, 3, 0, 0, 0), NDK_STATUS_DATA_OVERRUN);
	cr_expect_eq(ndk_read(qp, NULL, four, 3, 0, 0, 0), NDK_STATUS_DATA_OVERRUN);
	cr_expect_eq(qp->sq.pi, 0);
	cr_expect_eq(ndk_send(qp, NULL, four, 3, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_write(qp, NULL, four, 2, 0, 0, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_read(qp, NULL, four, 2, 0, 0, 0), NDK_STATUS_SUCCESS);
}

Test(unit_transport, inline_data_over_the_qp_inline_size_is_invalid_parameter)
{
	char data[64] = { 0 };
	struct ndk_sge s[2] = { { .address = (uintptr_t)data, .length = 40 },
				{ .address = (uintptr_t)data, .length = 1 } };
	struct ndk_sge nowhere = { .address = 0, .length = 4 };
	struct ndk_qp_attr a = qp_attr(cq, 4, 0);
	struct ndk_qp *small;

	cr_expect_eq(ndk_send(qp, NULL, s, 2, NDK_OP_FLAG_INLINE), NDK_STATUS_INVALID_PARAMETER,
		     "41 bytes on a QP made for 40");
	cr_expect_eq(ndk_write(qp, NULL, s, 2, 0, 0, NDK_OP_FLAG_INLINE),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_send(qp, NULL, &nowhere, 1, NDK_OP_FLAG_INLINE),
		     NDK_STATUS_INVALID_PARAMETER, "inline data at a NULL address");
	cr_expect_eq(ndk_send(qp, NULL, NULL, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_INVALID_PARAMETER,
		     "no SGE list");
	a.inline_data_size = 8;
	cr_assert_eq(ndk_create_qp(pd, &a, &small), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_connect_qp(small, &peer, 0, 0), NDK_STATUS_SUCCESS);
	s[0].length = 8;
	cr_expect_eq(ndk_send(small, NULL, s, 2, NDK_OP_FLAG_INLINE), NDK_STATUS_INVALID_PARAMETER,
		     "9 bytes on a QP made for 8");
	cr_expect_eq(ndk_send(small, NULL, s, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_SUCCESS);
	cr_expect_eq(qp->sq.pi, 0);
}

Test(unit_transport, a_message_longer_than_max_transfer_length_is_buffer_overflow)
{
	struct ndk_sge s[2] = { { .address = 0x1000, .length = 1u << 29, .token = 1 },
				{ .address = 0x1000, .length = (1u << 29) + 1, .token = 1 } };

	cr_expect_eq(ndk_send(qp, NULL, s, 2, 0), NDK_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq(ndk_write(qp, NULL, s, 2, 0, 0, 0), NDK_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq(ndk_read(qp, NULL, s, 2, 0, 0, 0), NDK_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq(qp->sq.pi, 0);
	s[1].length = 1u << 29;
	cr_expect_eq(ndk_send(qp, NULL, s, 2, 0), NDK_STATUS_SUCCESS, "exactly 1 GiB");
	cr_expect_eq(le32toh(((struct nic_wqe_send *)sq_wqe(qp, 0))->length), 1u << 30);
}

Test(unit_transport, a_transport_request_on_a_qp_that_is_not_connected_is_connection_invalid)
{
	cr_expect_eq(ndk_send(uqp, NULL, sge3, 1, 0), NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_send_and_invalidate(uqp, NULL, sge3, 1, 0, 1),
		     NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_write(uqp, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(ndk_read(uqp, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_CONNECTION_INVALID);
	cr_expect_eq(uqp->sq.pi, 0);
	cr_expect_eq(ndk_send(uqp, NULL, sge3, 4, 0), NDK_STATUS_DATA_OVERRUN,
		     "argument checks come first");
}

Test(unit_transport, a_read_on_a_connection_without_outbound_reads_is_invalid_device_state)
{
	struct ndk_qp *q = new_connected_qp(4, 0, 0);

	cr_expect_eq(ndk_read(q, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE);
	cr_expect_eq(q->sq.pi, 0);
	cr_expect_eq(ndk_write(q, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_SUCCESS);
	cr_expect_eq(ndk_send(q, NULL, sge3, 1, 0), NDK_STATUS_SUCCESS);
}

Test(unit_transport, transport_posts_to_a_qp_whose_cq_is_in_error_are_invalid_device_state)
{
	cq->err->status = htole32(NIC_STATUS_BUFFER_OVERFLOW);
	cr_expect_eq(ndk_send(qp, NULL, sge3, 1, 0), NDK_STATUS_INVALID_DEVICE_STATE);
	cr_expect_eq(ndk_write(qp, NULL, sge3, 1, 0, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE);
	cr_expect_eq(qp->sq.pi, 0);
}

/*
 * The seed rule for every inline failure of a transport request: the requests deferred before
 * it are indicated first (one doorbell with the producer index of the last of them), the failed
 * request writes nothing into its slot and takes no producer index.
 */
enum failure {
	F_FLAG,
	F_NO_SGL,
	F_TOO_MANY_SGES,
	F_INLINE_TOO_LONG,
	F_TOO_LONG,
	F_NOT_CONNECTED,
	F_NO_OUTBOUND_READS,
	F_CQ_ERROR,
	F_FULL,
	F_COUNT
};

static ndk_status fail_once(struct ndk_qp *q, enum failure f, uint32_t defer)
{
	struct ndk_sge four[4] = {
		{ .length = 1 }, { .length = 1 }, { .length = 1 }, { .length = 1 }
	};
	struct ndk_sge huge[2] = { { .length = 1u << 30 }, { .length = 1 } };
	static char data[48];
	struct ndk_sge big = { .address = (uintptr_t)data, .length = 41 };

	switch (f) {
	case F_FLAG:
		return ndk_write(q, NULL, sge3, 1, 0, 0,
				 NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | defer);
	case F_NO_SGL:
		return ndk_send(q, NULL, NULL, 2, defer);
	case F_TOO_MANY_SGES:
		return ndk_read(q, NULL, four, 3, 0, 0, defer);
	case F_INLINE_TOO_LONG:
		return ndk_send_and_invalidate(q, NULL, &big, 1, NDK_OP_FLAG_INLINE | defer, 1);
	case F_TOO_LONG:
		return ndk_write(q, NULL, huge, 2, 0, 0, defer);
	case F_CQ_ERROR:
		cq->err->status = htole32(NIC_STATUS_BUFFER_OVERFLOW);
		/* fall through */
	default:
		return ndk_read(q, NULL, sge3, 1, 0, 0, defer);
	}
}

static const ndk_status fail_status[F_COUNT] = {
	[F_FLAG] = NDK_STATUS_INVALID_PARAMETER,
	[F_NO_SGL] = NDK_STATUS_INVALID_PARAMETER,
	[F_TOO_MANY_SGES] = NDK_STATUS_DATA_OVERRUN,
	[F_INLINE_TOO_LONG] = NDK_STATUS_INVALID_PARAMETER,
	[F_TOO_LONG] = NDK_STATUS_BUFFER_OVERFLOW,
	[F_NOT_CONNECTED] = NDK_STATUS_CONNECTION_INVALID,
	[F_NO_OUTBOUND_READS] = NDK_STATUS_INVALID_DEVICE_STATE,
	[F_CQ_ERROR] = NDK_STATUS_INVALID_DEVICE_STATE,
	[F_FULL] = NDK_STATUS_NO_MORE_ENTRIES,
};

Test(unit_transport, every_transport_inline_failure_rings_the_deferred_requests_and_writes_no_wqe)
{
	struct ndk_mw *mw;
	unsigned f, i, from;
	uint32_t defer;

	cr_assert_eq(ndk_create_mw(pd, &mw), NDK_STATUS_SUCCESS);
	for (f = 0; f < F_COUNT; f++) {
		for (defer = 0; defer <= NDK_OP_FLAG_DEFER; defer += NDK_OP_FLAG_DEFER) {
			struct ndk_qp *q;
			uint8_t *slot;
			uint64_t pi;
			ndk_status st;

			cq->err->status = 0;
			if (f == F_NOT_CONNECTED)
				q = new_qp(8, 0);
			else
				q = new_connected_qp(8, 0, f == F_NO_OUTBOUND_READS ? 0 : 1);
			/* F_FULL: 6 requests the device was told about fill the ring with the
			 * chain below */
			if (f == F_FULL)
				for (i = 0; i < 6; i++)
					cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, 0),
						     NDK_STATUS_SUCCESS);
			/* a deferred chain (2, under the self-ring limit of 4): a local request
			 * and a transport request (when the QP may post one) */
			cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, NDK_OP_FLAG_DEFER),
				     NDK_STATUS_SUCCESS);
			if (f == F_NOT_CONNECTED)
				cr_assert_eq(ndk_invalidate_mw(q, NULL, mw, NDK_OP_FLAG_DEFER),
					     NDK_STATUS_SUCCESS);
			else
				cr_assert_eq(ndk_send(q, NULL, sge3, 1, NDK_OP_FLAG_DEFER),
					     NDK_STATUS_SUCCESS);
			pi = q->sq.pi;
			/* the slot the failed request would take: poisoned, it must stay so */
			slot = sq_wqe(q, pi);
			if (pi - q->sq.completed < q->sq.depth)
				memset(slot, 0xee, NIC_WQE_BYTES);
			from = fk.nwrites;
			st = fail_once(q, (enum failure)f, defer);
			cr_expect_eq(st, fail_status[f], "case %u defer 0x%x: %s", f, defer,
				     ndk_status_name(st));
			cr_expect_eq(q->sq.pi, pi, "case %u: a producer index taken", f);
			cr_expect_eq(writes_to(from, sq_db(q)), 1, "case %u: deferred not rung", f);
			cr_expect_eq(last_write(sq_db(q)), (uint16_t)pi, "case %u", f);
			if (pi - q->sq.completed < q->sq.depth)
				for (i = 0; i < NIC_WQE_BYTES; i++)
					cr_assert_eq(slot[i], 0xee, "case %u: WQE byte %u written",
						     f, i);
			/* nothing deferred any more: the same failure again rings nothing */
			from = fk.nwrites;
			cr_expect_eq(fail_once(q, (enum failure)f, defer), fail_status[f]);
			cr_expect_eq(writes_to(from, sq_db(q)), 0, "case %u", f);
			ndk_close_qp(q);
		}
	}
}

/* ---------------------------------------------------------------------------------------------
 * A device without the transport
 */

Test(unit_transport, without_the_transport_every_transport_call_is_not_supported_after_its_checks)
{
	struct ndk_adapter *other;
	struct ndk_pd *p;
	struct ndk_cq *c;
	struct ndk_qp *q;
	struct ndk_qp_attr a;
	struct ndk_qp_address addr;
	struct ndk_sge four[4] = { { 0 } };
	unsigned from;

	fk.cap_transport = 0;
	cr_assert_eq(ndk_adapter_create(&fake_ops, &fk, 0, &other), 0);
	cr_assert_eq(ndk_create_pd(other, &p), NDK_STATUS_SUCCESS);
	cr_assert_eq(ndk_create_cq(other, 8, NULL, NULL, &c), NDK_STATUS_SUCCESS);
	a = qp_attr(c, 4, 0);
	a.inline_data_size = 0;
	cr_assert_eq(ndk_create_qp(p, &a, &q), NDK_STATUS_SUCCESS);
	from = fk.nwrites;

	/* the checks first */
	cr_expect_eq(ndk_send(q, NULL, sge3, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_write(q, NULL, four, 3, 0, 0, 0), NDK_STATUS_DATA_OVERRUN);
	cr_expect_eq(ndk_read(q, NULL, sge3, 1, 0, 0, NDK_OP_FLAG_INLINE),
		     NDK_STATUS_INVALID_PARAMETER);
	cr_expect_eq(ndk_send(q, NULL, sge3, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_INVALID_PARAMETER,
		     "inline data over the QP's inline size of 0");
	cr_expect_eq(ndk_receive(q, NULL, four, 4), NDK_STATUS_DATA_OVERRUN);
	cr_expect_eq(ndk_connect_qp(q, &peer, 1, 0), NDK_STATUS_INVALID_PARAMETER,
		     "a read limit over the adapter's 0");
	/* then NOT_SUPPORTED */
	cr_expect_eq(ndk_send(q, NULL, sge3, 3, NDK_OP_FLAG_DEFER), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_send_and_invalidate(q, NULL, sge3, 1, 0, 1), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_write(q, NULL, sge3, 2, 0, 0, 0), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_read(q, NULL, sge3, 2, 0, 0, 0), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_send(q, NULL, four, 4, NDK_OP_FLAG_INLINE), NDK_STATUS_NOT_SUPPORTED,
		     "4 empty SGEs: 0 inline bytes fit");
	cr_expect_eq(ndk_receive(q, NULL, sge3, 3), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_connect_qp(q, &peer, 0, 0), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(ndk_get_qp_address(q, &addr), NDK_STATUS_NOT_SUPPORTED);
	cr_expect_eq(addr.qp_number, NIC_QPN_BASE + q->qpn);
	cr_expect_eq(addr.ipv4, 0);
	cr_expect_eq(fk.nwrites, from, "nothing reached the device");
	cr_expect_eq(q->sq.pi, 0);
	ndk_close_adapter(other);
}
