/*
 * joulehook: did:key for Ed25519 public keys (multicodec 0xed01,
 * multibase base58btc "z"), as in the W3C did:key method.
 */
#include <string.h>

#include "jh.h"
#include "buf.h"
#include "keys.h"

#define DIDKEY_PREFIX	"did:key:z"

int
jh_didkey_enc(char *out, size_t outsz, const uint8_t *pk)
{
	uint8_t mc[2 + JH_PK_LEN] = { 0xed, 0x01 };
	size_t pl = strlen(DIDKEY_PREFIX);

	if (outsz < pl + 1)
		return (-1);
	memcpy(mc + 2, pk, JH_PK_LEN);
	memcpy(out, DIDKEY_PREFIX, pl);
	return (jh_b58enc(out + pl, outsz - pl, mc, sizeof(mc)));
}

int
jh_didkey_dec(uint8_t *pk, const char *s, size_t n)
{
	uint8_t mc[48];
	size_t pl = strlen(DIDKEY_PREFIX), ml = sizeof(mc);

	if (n <= pl || memcmp(s, DIDKEY_PREFIX, pl) != 0)
		return (-1);
	if (jh_b58dec(mc, &ml, s + pl, n - pl) == -1)
		return (-1);
	if (ml != 2 + JH_PK_LEN || mc[0] != 0xed || mc[1] != 0x01)
		return (-1);
	memcpy(pk, mc + 2, JH_PK_LEN);
	return (0);
}
