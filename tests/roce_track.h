/* SPDX-License-Identifier: MIT */
/*
 * roce_track: what a frame on the simulated network is, for tests that pick frames to fault
 * (ndk_sim_set_fault_hook) or count them: its RoCEv2 headers (decoded by roce_ref), where it
 * stands in its message, and whether this is the first transmission of its PSN or a later one.
 *
 * A stream is one direction of one connection: (sending NIC, receiving NIC, destination QP),
 * its ACKs and NAKs a stream apart, and its Read responses a stream apart too (a NIC's requests
 * to a QP and its responses to that QP's Reads are numbered in two PSN spaces: counted as one
 * stream, a request whose PSN a response had used looked like a retransmission).
 * Each frame seen (in the order the hook or a capture shows them) is one transmission of its
 * PSN on its stream: the first time that PSN goes out is transmission 1, a retransmission of it
 * 2, and so on. The place in the message comes from the opcode: FIRST (or ONLY) starts a
 * message; MIDDLE and LAST continue the last message started on the stream, so packet k of a
 * message is PSN first_psn + k - 1 (24-bit arithmetic). A Read response stream is counted
 * like a request stream (READ_RESPONSE_FIRST starts a message; the answer to a Read asked for
 * again from a later response starts with a FIRST at a PSN its first answer had as a MIDDLE:
 * a retransmission of that PSN, keeping the place the first transmission found).
 *
 * A frame that is not RoCEv2 as roce_ref checks it (bad checksum, not UDP 4791, ...) is
 * reported with roce = false and changes no stream.
 *
 * Example: a hook that drops the second packet of the first Write on QP 0x101, its first
 * transmission:
 *     struct roce_frame f;
 *     if (roce_track_frame(t, from, to, frame, len, &f) && f.dest_qp == 0x101 &&
 *         roce_track_is_write(f.opcode) && f.message == 1 && f.packet == 2 &&
 *         f.transmission == 1)
 *             return NDK_SIM_FRAME_DROP;
 */
#ifndef NDK_TESTS_ROCE_TRACK_H
#define NDK_TESTS_ROCE_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_ref.h"

struct roce_frame {
	bool roce; /* a RoCEv2 frame roce_ref decodes: the rest is valid only then */
	unsigned from_nic, to_nic;
	uint8_t opcode;
	uint32_t dest_qp, psn;
	bool ackreq;
	unsigned packet;       /* 1-based place in its message: 1 for FIRST, ONLY and ACK (0: a
				  MIDDLE / LAST before any FIRST was seen) */
	unsigned message;      /* 1-based: the message it belongs to, counted on its stream by
				  first transmissions; a retransmission keeps its original's */
	unsigned transmission; /* 1 = the first time this PSN went out on this stream */
	struct roce_ref_fields fields; /* every decoded field (payload points into the frame) */
};

struct roce_track;
struct roce_track *roce_track_new(void); /* NULL when out of memory */
void roce_track_free(struct roce_track *t);

/* Decode a frame seen going from from_nic to to_nic and count it on its stream. Returns
 * f->roce. */
bool roce_track_frame(struct roce_track *t, unsigned from_nic, unsigned to_nic,
		      const uint8_t *frame, size_t len, struct roce_frame *f);

/* opcode classes (RC) */
bool roce_track_is_send(uint8_t opcode);  /* SEND_* (with immediate, with invalidate) */
bool roce_track_is_write(uint8_t opcode); /* RDMA_WRITE_* */
bool roce_track_is_read_response(uint8_t opcode);
bool roce_track_is_first(uint8_t opcode); /* starts a message: *_FIRST, *_ONLY, READ_REQUEST */

#endif /* NDK_TESTS_ROCE_TRACK_H */
