/*
 * Why joulehook does not validate signed bytes with libcbor: a regression
 * test that keeps two facts about Debian 12's libcbor 0.8 visible.
 *
 *   1. Its decoder refuses tags 16-20 in their one-byte form, which
 *      includes COSE_Sign1's 0xd2.
 *   2. It accepts non-canonical input: a non-shortest integer head and
 *      unsorted map keys load without complaint.
 *   3. Its cbor_encode_half drops the low bits of subnormal halves
 *      (3 * 2^-24 comes out as 2 * 2^-24), so lib/cbor.c converts halves
 *      itself and uses libcbor only for single and double heads.
 *
 * Prints one line per fact and exits 0 while both still hold, 1 when a
 * libcbor release has changed either (time to revisit joulehook-formats(5),
 * Deterministic CBOR).
 */
#include <stdio.h>

#include <cbor.h>

static int
loads(const unsigned char *p, size_t n)
{
	struct cbor_load_result r;
	cbor_item_t *it = cbor_load(p, n, &r);

	if (it == NULL)
		return (0);
	cbor_decref(&it);
	return (r.error.code == CBOR_ERR_NONE);
}

int
main(void)
{
	/* 18([h'', {}, h'', h'']) */
	static const unsigned char tag18[] = { 0xd2, 0x84, 0x40, 0xa0, 0x40,
	    0x40 };
	/* 18 as a two-byte tag head: the same item, non-canonical */
	static const unsigned char tag18long[] = { 0xd8, 0x12, 0x84, 0x40, 0xa0,
	    0x40, 0x40 };
	/* 1 encoded in two bytes */
	static const unsigned char longint[] = { 0x18, 0x01 };
	/* {"b": 1, "a": 2}: keys out of order */
	static const unsigned char unsorted[] = { 0xa2, 0x61, 0x62, 0x01, 0x61,
	    0x61, 0x02 };
	int refuses_d2 = !loads(tag18, sizeof(tag18));
	int accepts_long_tag = loads(tag18long, sizeof(tag18long));
	int accepts_longint = loads(longint, sizeof(longint));
	int accepts_unsorted = loads(unsorted, sizeof(unsorted));
	unsigned char h[3];
	int half_bug = cbor_encode_half(3.0f / 16777216.0f, h, sizeof(h)) ==
	    3 && h[1] == 0x00 && h[2] != 0x03;

	printf("libcbor %d.%d.%d\n", CBOR_MAJOR_VERSION, CBOR_MINOR_VERSION,
	    CBOR_PATCH_VERSION);
	printf("refuses one-byte tag 18 (0xd2): %s\n", refuses_d2 ? "yes" : "no");
	printf("accepts two-byte tag 18 (0xd8 0x12): %s\n",
	    accepts_long_tag ? "yes" : "no");
	printf("accepts non-shortest integer 0x18 0x01: %s\n",
	    accepts_longint ? "yes" : "no");
	printf("accepts unsorted map keys: %s\n",
	    accepts_unsorted ? "yes" : "no");
	printf("cbor_encode_half(3 * 2^-24) loses bits: %s (f9 %02x %02x)\n",
	    half_bug ? "yes" : "no", h[1], h[2]);
	return (refuses_d2 && accepts_longint && accepts_unsorted && half_bug ?
	    0 : 1);
}
