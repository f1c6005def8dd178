// SPDX-License-Identifier: MIT
/*
 * Pure helpers of the driver core: URI parsing, the id and range allocators, the moderation
 * argument rules. Nothing here touches a device, so the unit tests link this file alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_internal.h"

/* ---------------------------------------------------------------------------------------------
 * URIs
 */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* exactly `digits` hex digits at *p, advancing it; -1 when they are not there */
static int64_t parse_hex(const char **p, unsigned digits)
{
	int64_t v = 0;
	unsigned i;

	for (i = 0; i < digits; i++) {
		int d = hex_digit((*p)[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	*p += digits;
	return v;
}

/* "[DDDD:]BB:DD.F", as lspci prints it */
static int parse_slot(const char *s, struct ndk_uri *out)
{
	const char *p = s;
	int64_t domain = 0, bus, dev, func;
	size_t len = strlen(s);

	if (len == 12) { /* DDDD:BB:DD.F */
		domain = parse_hex(&p, 4);
		if (domain < 0 || *p++ != ':')
			return -EINVAL;
	} else if (len != 7) { /* BB:DD.F */
		return -EINVAL;
	}
	bus = parse_hex(&p, 2);
	if (bus < 0 || *p++ != ':')
		return -EINVAL;
	dev = parse_hex(&p, 2);
	if (dev < 0 || dev > 0x1f || *p++ != '.')
		return -EINVAL;
	func = parse_hex(&p, 1);
	if (func < 0 || func > 7 || *p != '\0')
		return -EINVAL;
	out->has_slot = true;
	out->domain = (uint32_t)domain;
	out->bus = (uint32_t)bus;
	out->dev = (uint32_t)dev;
	out->func = (uint32_t)func;
	return 0;
}

int ndk_parse_uri(const char *uri, struct ndk_uri *out)
{
	struct ndk_uri u = { 0 };
	int err;

	if (!uri || !out)
		return -EINVAL;
	if (strcmp(uri, "sim") == 0) {
		u.kind = NDK_URI_SIM;
	} else if (strcmp(uri, "pci") == 0) {
		u.kind = NDK_URI_PCI;
	} else if (strncmp(uri, "pci:", 4) == 0) {
		u.kind = NDK_URI_PCI;
		err = parse_slot(uri + 4, &u);
		if (err)
			return err;
	} else {
		return -EINVAL;
	}
	*out = u;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Id allocator
 */

int ndk_bitmap_init(struct ndk_bitmap *bm, uint32_t nbits)
{
	size_t nwords = ((size_t)nbits + 63) / 64;

	memset(bm, 0, sizeof(*bm));
	bm->words = calloc(nwords ? nwords : 1, sizeof(uint64_t));
	if (!bm->words)
		return -ENOMEM;
	bm->nbits = nbits;
	return 0;
}

void ndk_bitmap_destroy(struct ndk_bitmap *bm)
{
	free(bm->words);
	memset(bm, 0, sizeof(*bm));
}

bool ndk_bitmap_test(const struct ndk_bitmap *bm, uint32_t id)
{
	return id < bm->nbits && (bm->words[id / 64] >> (id % 64) & 1);
}

static void bitmap_set(struct ndk_bitmap *bm, uint32_t id)
{
	bm->words[id / 64] |= (uint64_t)1 << (id % 64);
	bm->used++;
}

int ndk_bitmap_alloc(struct ndk_bitmap *bm, uint32_t *id)
{
	uint32_t i, cand;

	if (bm->used >= bm->nbits)
		return -ENOMEM;
	for (i = 0; i < bm->nbits; i++) {
		cand = bm->next + i;
		if (cand >= bm->nbits)
			cand -= bm->nbits;
		if (!ndk_bitmap_test(bm, cand)) {
			bitmap_set(bm, cand);
			bm->next = cand + 1 < bm->nbits ? cand + 1 : 0;
			*id = cand;
			return 0;
		}
	}
	return -ENOMEM;
}

void ndk_bitmap_reserve(struct ndk_bitmap *bm, uint32_t id)
{
	if (id < bm->nbits && !ndk_bitmap_test(bm, id))
		bitmap_set(bm, id);
}

void ndk_bitmap_free(struct ndk_bitmap *bm, uint32_t id)
{
	if (!ndk_bitmap_test(bm, id))
		return;
	bm->words[id / 64] &= ~((uint64_t)1 << (id % 64));
	bm->used--;
}

/* ---------------------------------------------------------------------------------------------
 * Range allocator
 */

int ndk_range_init(struct ndk_range_alloc *ra, uint32_t total)
{
	memset(ra, 0, sizeof(*ra));
	/* disjoint, non-adjacent free ranges: at most one per two units, plus one */
	ra->cap = total / 2 + 1;
	ra->free = calloc(ra->cap, sizeof(*ra->free));
	if (!ra->free)
		return -ENOMEM;
	ra->total = total;
	ra->available = total;
	if (total) {
		ra->free[0].start = 0;
		ra->free[0].count = total;
		ra->nfree = 1;
	}
	return 0;
}

void ndk_range_destroy(struct ndk_range_alloc *ra)
{
	free(ra->free);
	memset(ra, 0, sizeof(*ra));
}

int ndk_range_alloc(struct ndk_range_alloc *ra, uint32_t count, uint32_t *start)
{
	uint32_t i;

	if (count == 0)
		return -EINVAL;
	for (i = 0; i < ra->nfree; i++) {
		struct ndk_range *r = &ra->free[i];

		if (r->count < count)
			continue;
		*start = r->start;
		r->start += count;
		r->count -= count;
		if (r->count == 0) {
			memmove(r, r + 1, (ra->nfree - i - 1) * sizeof(*r));
			ra->nfree--;
		}
		ra->available -= count;
		return 0;
	}
	return -ENOMEM;
}

int ndk_range_free(struct ndk_range_alloc *ra, uint32_t start, uint32_t count)
{
	uint64_t end = (uint64_t)start + count;
	uint32_t i;
	bool merge_prev, merge_next;

	if (count == 0 || end > ra->total)
		return -EINVAL;
	/* i = first free range starting after `start` */
	for (i = 0; i < ra->nfree && ra->free[i].start <= start; i++)
		;
	if (i > 0 && (uint64_t)ra->free[i - 1].start + ra->free[i - 1].count > start)
		return -EINVAL;
	if (i < ra->nfree && ra->free[i].start < end)
		return -EINVAL;
	merge_prev = i > 0 && ra->free[i - 1].start + ra->free[i - 1].count == start;
	merge_next = i < ra->nfree && ra->free[i].start == end;
	if (merge_prev && merge_next) {
		ra->free[i - 1].count += count + ra->free[i].count;
		memmove(&ra->free[i], &ra->free[i + 1], (ra->nfree - i - 1) * sizeof(ra->free[0]));
		ra->nfree--;
	} else if (merge_prev) {
		ra->free[i - 1].count += count;
	} else if (merge_next) {
		ra->free[i].start = start;
		ra->free[i].count += count;
	} else {
		/* cannot overflow: cap bounds the number of disjoint non-adjacent ranges */
		memmove(&ra->free[i + 1], &ra->free[i], (ra->nfree - i) * sizeof(ra->free[0]));
		ra->free[i].start = start;
		ra->free[i].count = count;
		ra->nfree++;
	}
	ra->available += count;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Interrupt moderation arguments (NdkControlCqInterruptModeration): an interval of MAXULONG
 * means "count only"; a count of MAXULONG, or one above the CQ depth (it could never be
 * reached), means "interval only". Both at once leave nothing to moderate by.
 */
int ndk_moderation_check(uint32_t interval_us, uint32_t count, uint32_t cq_depth)
{
	bool interval_infinite = interval_us == NDK_MODERATION_INFINITE;
	bool count_infinite = count == NDK_MODERATION_INFINITE || count > cq_depth;

	if (interval_infinite && count_infinite)
		return -EDOM;
	return 0;
}

/*
 * The hardware's reading: a field of 0 is "no bound by it", a word of 0 "no moderation".
 * Interval 0 and count 0 or 1 (at most one completion accumulates: the first one notifies)
 * both mean no moderation in NDK, whatever the other value.
 */
uint32_t ndk_moderation_word(uint32_t interval_us, uint32_t count, uint32_t cq_depth)
{
	struct nic_cq_moderation moderation;
	uint32_t interval_field, count_field, word;

	if (interval_us == 0 || count <= 1)
		return 0;
	if (interval_us == NDK_MODERATION_INFINITE)
		interval_field = 0;
	else
		interval_field = interval_us > 0xffff ? 0xffff : interval_us;
	if (count == NDK_MODERATION_INFINITE || count > cq_depth)
		count_field = 0;
	else
		count_field = count; /* <= the depth, which fits 16 bits */
	moderation.interval_us = (uint16_t)interval_field;
	moderation.count = (uint16_t)count_field;
	nic_cq_moderation_pack(&moderation, &word);
	return word;
}
