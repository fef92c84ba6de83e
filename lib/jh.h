/*
 * joulehook: the one internal header of libjoulehook.
 *
 * Library functions return 0 on success and -1 on failure, writing a
 * one-line reason into a caller-supplied struct jh_err; they never print
 * and never exit.  Outputs come first in argument lists, inputs after.
 */
#ifndef JH_H
#define JH_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JH_PROFILE	"joulehook/1"
#define JH_VERSION	"0.1.0"

/* Limits shared by every stage, so no stage refuses what another passed. */
#define JH_MAX_RECORD	(16u * 1024 * 1024)	/* one JSON line or CBOR item */
#define JH_MAX_DEPTH	64			/* CBOR/JSON nesting */

#define JH_PK_LEN	32
#define JH_SK_LEN	64
#define JH_SEED_LEN	32
#define JH_SIG_LEN	64
#define JH_HASH_LEN	32
#define JH_NONCE_LEN	8
#define JH_DIDKEY_MAX	64		/* "did:key:z6Mk" + 44 chars + NUL */
#define JH_ID_LEN	(7 + 64 + 1)	/* "sha256:" + hex + NUL */

struct jh_err {
	char msg[256];
};

int jh_errf(struct jh_err *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The modules split out into their own headers (issue 18): included
 * here only until every file includes what it uses.
 */
#include "buf.h"
#include "cbor.h"
#include "json.h"
#include "keys.h"
#include "cose.h"
#include "kinds.h"
#include "chain.h"
#include "verify.h"
#include "checkpoint.h"
#include "shellparse.h"
#include "paths.h"
#include "ledger.h"
#include "energy.h"
#include "decide.h"
#include "shellcheck.h"
#include "util.h"
#include "hosts.h"
#include "status.h"
#include "meter.h"
#include "sealunit.h"
#include "listen.h"

/*
 * statefs.c: the CRC, the bounded flock and the state files' openers.
 * Included here only until the header split: files that use them include
 * statefs.h themselves.
 */
#include "statefs.h"

int	jh_session_stop(const char *, const char *, struct jh_err *);

#endif /* JH_H */
