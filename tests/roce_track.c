// SPDX-License-Identifier: MIT
/* roce_track: see roce_track.h. A stream is a small record (its message count and the PSN of
 * the message it is in); the transmissions of each PSN are counted in an open-addressing hash
 * of (stream, PSN), grown as needed, so a test of thousands of messages stays fast. */
#include "roce_track.h"

#include <stdlib.h>
#include <string.h>

struct stream {
	unsigned from, to;
	uint32_t qp;
	unsigned kind; /* STREAM_REQUESTS, _ACKS or _READ_RESPONSES: the three count apart (a
			  NIC's requests and its Read responses to one QP are in two PSN spaces) */
	unsigned messages;
	uint32_t first_psn; /* of the message it is in */
	bool used;
};

struct psn_count {
	uint32_t stream; /* index + 1; 0 = empty slot */
	uint32_t psn;
	unsigned count;
	unsigned message, packet; /* as its first transmission found them */
};

struct roce_track {
	struct stream *streams;
	size_t nstreams, cap_streams;
	struct psn_count *slots;
	size_t nslots, used_slots; /* nslots: a power of two */
};

struct roce_track *roce_track_new(void)
{
	struct roce_track *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void roce_track_free(struct roce_track *t)
{
	if (!t)
		return;
	free(t->streams);
	free(t->slots);
	free(t);
}

bool roce_track_is_send(uint8_t op)
{
	return op <= ROCE_OP_SEND_ONLY_IMM || op == ROCE_OP_SEND_LAST_INV ||
	       op == ROCE_OP_SEND_ONLY_INV;
}

bool roce_track_is_write(uint8_t op)
{
	return op >= ROCE_OP_WRITE_FIRST && op <= ROCE_OP_WRITE_ONLY_IMM;
}

bool roce_track_is_read_response(uint8_t op)
{
	return op >= ROCE_OP_READ_RESPONSE_FIRST && op <= ROCE_OP_READ_RESPONSE_ONLY;
}

bool roce_track_is_first(uint8_t op)
{
	switch (op) {
	case ROCE_OP_SEND_FIRST:
	case ROCE_OP_SEND_ONLY:
	case ROCE_OP_SEND_ONLY_IMM:
	case ROCE_OP_SEND_ONLY_INV:
	case ROCE_OP_WRITE_FIRST:
	case ROCE_OP_WRITE_ONLY:
	case ROCE_OP_WRITE_ONLY_IMM:
	case ROCE_OP_READ_REQUEST:
	case ROCE_OP_READ_RESPONSE_FIRST:
	case ROCE_OP_READ_RESPONSE_ONLY:
	case ROCE_OP_ACKNOWLEDGE:
		return true;
	default:
		return false;
	}
}

enum { STREAM_REQUESTS, STREAM_ACKS, STREAM_READ_RESPONSES };

static struct stream *find_stream(struct roce_track *t, unsigned from, unsigned to, uint32_t qp,
				  unsigned kind, uint32_t *index)
{
	for (size_t i = 0; i < t->nstreams; i++) {
		struct stream *s = &t->streams[i];
		if (s->from == from && s->to == to && s->qp == qp && s->kind == kind) {
			*index = (uint32_t)i;
			return s;
		}
	}
	if (t->nstreams == t->cap_streams) {
		size_t cap = t->cap_streams ? 2 * t->cap_streams : 16;
		struct stream *n = realloc(t->streams, cap * sizeof(*n));
		if (!n)
			return NULL;
		t->streams = n;
		t->cap_streams = cap;
	}
	struct stream *s = &t->streams[t->nstreams];
	memset(s, 0, sizeof(*s));
	s->from = from;
	s->to = to;
	s->qp = qp;
	s->kind = kind;
	*index = (uint32_t)t->nstreams++;
	return s;
}

static size_t slot_of(const struct roce_track *t, uint32_t stream, uint32_t psn)
{
	uint64_t h = ((uint64_t)stream << 24 | psn) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (t->nslots - 1);
}

static bool grow(struct roce_track *t)
{
	struct psn_count *old = t->slots;
	const size_t n = t->nslots;
	t->slots = calloc(2 * n, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return false;
	}
	t->nslots = 2 * n;
	for (size_t i = 0; i < n; i++) {
		if (!old[i].stream)
			continue;
		size_t k = slot_of(t, old[i].stream, old[i].psn);
		while (t->slots[k].stream)
			k = (k + 1) & (t->nslots - 1);
		t->slots[k] = old[i];
	}
	free(old);
	return true;
}

/* the record of (stream, psn), its count raised by this transmission; NULL when out of memory */
static struct psn_count *count_psn(struct roce_track *t, uint32_t stream, uint32_t psn)
{
	if (2 * (t->used_slots + 1) > t->nslots && !grow(t))
		return NULL;
	size_t k = slot_of(t, stream, psn);
	while (t->slots[k].stream && !(t->slots[k].stream == stream && t->slots[k].psn == psn))
		k = (k + 1) & (t->nslots - 1);
	if (!t->slots[k].stream) {
		t->slots[k].stream = stream;
		t->slots[k].psn = psn;
		t->used_slots++;
	}
	t->slots[k].count++;
	return &t->slots[k];
}

bool roce_track_frame(struct roce_track *t, unsigned from_nic, unsigned to_nic,
		      const uint8_t *frame, size_t len, struct roce_frame *f)
{
	uint32_t index;

	memset(f, 0, sizeof(*f));
	f->from_nic = from_nic;
	f->to_nic = to_nic;
	if (roce_ref_parse(frame, len, &f->fields) != ROCE_REF_OK)
		return false;
	f->opcode = f->fields.opcode;
	f->dest_qp = f->fields.dest_qp;
	f->psn = f->fields.psn;
	f->ackreq = f->fields.ackreq;
	unsigned kind = f->opcode == ROCE_OP_ACKNOWLEDGE       ? STREAM_ACKS :
			roce_track_is_read_response(f->opcode) ? STREAM_READ_RESPONSES :
								 STREAM_REQUESTS;
	struct stream *s = find_stream(t, from_nic, to_nic, f->dest_qp, kind, &index);
	if (!s)
		return false;
	struct psn_count *c = count_psn(t, index + 1, f->psn);
	if (!c)
		return false;
	f->transmission = c->count;
	if (c->count == 1) {
		if (roce_track_is_first(f->opcode)) {
			s->messages++;
			s->first_psn = f->psn;
			s->used = true;
			c->packet = 1;
		} else {
			c->packet = s->used ? ((f->psn - s->first_psn) & 0xffffff) + 1 : 0;
		}
		c->message = s->messages;
	}
	f->packet = c->packet;
	f->message = c->message;
	f->roce = true;
	return true;
}
