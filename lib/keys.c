/*
 * joulehook: key files with roles, and lists of trusted keys.
 *
 * A secret key file is text, mode 0600, one "name: value" per line after
 * a fixed first line (joulehook-formats(5)):
 *
 *	joulehook secret key v1
 *	role: steward | issuer
 *	public: did:key:z6Mk...
 *	kdf: none | argon2id13
 *	opslimit: N		(argon2id13 only)
 *	memlimit: N		(argon2id13 only)
 *	salt: 32 hex		(argon2id13 only)
 *	nonce: 48 hex		(argon2id13 only)
 *	secret: hex		(the 32-byte seed, or its secretbox)
 *
 * Loading refuses a file that is not a regular file owned by the user
 * with no group or other permissions; the seed and the expanded key live
 * in sodium_malloc memory and are wiped as soon as they are not needed.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "keys.h"
#include "util.h"

#define KEY_MAGIC	"joulehook secret key v1"
#define KEY_FILE_MAX	4096
/* The secure region jh_key_load makes: the key, the seed, the text. */
#define KEY_MEM_LEN	(JH_SK_LEN + JH_SEED_LEN + KEY_FILE_MAX + 1)

const char *
jh_role_name(enum jh_role r)
{
	return (r == JH_ROLE_ISSUER ? "issuer" : "steward");
}

int
jh_role_parse(enum jh_role *r, const char *s)
{
	if (strcmp(s, "steward") == 0)
		*r = JH_ROLE_STEWARD;
	else if (strcmp(s, "issuer") == 0)
		*r = JH_ROLE_ISSUER;
	else
		return (-1);
	return (0);
}

static int
create_file(const char *path, mode_t mode, const void *p, size_t n,
    struct jh_err *e)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	if (fchmod(fd, mode) == -1 || jh_write_all(fd, p, n) == -1 ||
	    fsync(fd) == -1) {
		jh_errf(e, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return (-1);
	}
	if (close(fd) == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	return (0);
}

/*
 * Generates a key pair of a role.  With a passphrase the seed is sealed
 * with crypto_secretbox under a key from crypto_pwhash (argon2id).
 */
int
jh_key_generate(const char *path, enum jh_role role, const char *pass,
    struct jh_err *e)
{
	uint8_t pk[JH_PK_LEN], *sk = NULL, *box = NULL, *bk = NULL;
	uint8_t salt[crypto_pwhash_SALTBYTES];
	uint8_t nonce[crypto_secretbox_NONCEBYTES];
	char did[JH_DIDKEY_MAX], pubpath[4096], *hex = NULL;
	struct jh_buf f;
	size_t hexsz = 2 * (JH_SEED_LEN + crypto_secretbox_MACBYTES) + 1;
	int rc = -1;

	jh_buf_init(&f);
	if (snprintf(pubpath, sizeof(pubpath), "%s.pub", path) >=
	    (int)sizeof(pubpath))
		return (jh_errf(e, "%s: path too long", path));
	if ((sk = sodium_malloc(JH_SK_LEN)) == NULL ||
	    (box = sodium_malloc(JH_SEED_LEN + crypto_secretbox_MACBYTES))
	    == NULL || (bk = sodium_malloc(crypto_secretbox_KEYBYTES)) == NULL ||
	    (hex = sodium_malloc(hexsz)) == NULL) {
		jh_errf(e, "out of secure memory");
		goto out;
	}
	crypto_sign_keypair(pk, sk);
	jh_didkey_enc(did, sizeof(did), pk);
	jh_buf_addf(&f, "%s\nrole: %s\npublic: %s\n", KEY_MAGIC,
	    jh_role_name(role), did);
	if (pass == NULL) {
		/* The seed is the first half of libsodium's secret key. */
		jh_hex(hex, sk, JH_SEED_LEN);
		jh_buf_addf(&f, "kdf: none\nsecret: %s\n", hex);
	} else {
		char sh[2 * sizeof(salt) + 1], nh[2 * sizeof(nonce) + 1];
		unsigned long long ops = crypto_pwhash_OPSLIMIT_INTERACTIVE;
		size_t mem = crypto_pwhash_MEMLIMIT_INTERACTIVE;

		randombytes_buf(salt, sizeof(salt));
		randombytes_buf(nonce, sizeof(nonce));
		if (crypto_pwhash(bk, crypto_secretbox_KEYBYTES, pass,
		    strlen(pass), salt, ops, mem,
		    crypto_pwhash_ALG_ARGON2ID13) != 0) {
			jh_errf(e, "key derivation failed (out of memory?)");
			goto out;
		}
		crypto_secretbox_easy(box, sk, JH_SEED_LEN, nonce, bk);
		jh_hex(sh, salt, sizeof(salt));
		jh_hex(nh, nonce, sizeof(nonce));
		jh_hex(hex, box, JH_SEED_LEN + crypto_secretbox_MACBYTES);
		jh_buf_addf(&f, "kdf: argon2id13\nopslimit: %llu\n"
		    "memlimit: %zu\nsalt: %s\nnonce: %s\nsecret: %s\n",
		    ops, mem, sh, nh, hex);
	}
	if (f.oom) {
		jh_errf(e, "out of memory");
		goto out;
	}
	if (create_file(path, 0600, f.p, f.len, e) == -1)
		goto out;
	jh_buf_reset(&f);
	jh_buf_addf(&f, "%s\n", did);
	if (create_file(pubpath, 0644, f.p, f.len, e) == -1) {
		unlink(path);
		goto out;
	}
	rc = 0;
out:
	if (f.p != NULL)
		sodium_memzero(f.p, f.cap);
	jh_buf_free(&f);
	sodium_free(sk);
	sodium_free(box);
	sodium_free(bk);
	sodium_free(hex);
	return (rc);
}

/* Finds "name: " at the start of a line; returns the value and length. */
static const char *
field(const char *s, const char *name, size_t *len)
{
	size_t nl = strlen(name);
	const char *p = s, *end;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == s || p[-1] == '\n') && p[nl] == ':' &&
		    p[nl + 1] == ' ') {
			p += nl + 2;
			end = strchr(p, '\n');
			*len = end ? (size_t)(end - p) : strlen(p);
			return (p);
		}
		p += nl;
	}
	return (NULL);
}

void
jh_key_wipe(struct jh_key *k)
{
	sodium_free(k->mem);	/* zeroes before freeing; NULL is nothing */
	memset(k, 0, sizeof(*k));
}

/*
 * jh_key_wipe where the process ends next: the region's bytes are
 * zeroed as sodium_free zeroes them, and its unmapping (four system
 * calls and a TLB flush, 40 to 70 us a hook call on a virtual machine)
 * is left to the exit.  The key must have come from jh_key_load.
 */
void
jh_key_wipe_exiting(struct jh_key *k)
{
	if (k->mem != NULL)
		sodium_memzero(k->mem, KEY_MEM_LEN);
	memset(k, 0, sizeof(*k));
}

/*
 * The seed of an encrypted key file (kdf argon2id13, its text txt): the
 * passphrase from passfn, stretched with the file's salt and limits, opens
 * the secret box.  The passphrase and the box key are wiped.
 */
static int
key_decrypt(uint8_t *seed, const char *txt, const char *path,
    jh_pass_fn passfn, void *ctx, struct jh_err *e)
{
	uint8_t salt[crypto_pwhash_SALTBYTES];
	uint8_t nonce[crypto_secretbox_NONCEBYTES];
	uint8_t *box = NULL, *bk = NULL;
	char *pass = NULL;
	unsigned long long ops, mem;
	const char *o, *m, *v;
	size_t ol, ml, vl, boxlen = JH_SEED_LEN + crypto_secretbox_MACBYTES;
	int rc = -1;

	if ((o = field(txt, "opslimit", &ol)) == NULL ||
	    (m = field(txt, "memlimit", &ml)) == NULL ||
	    (v = field(txt, "salt", &vl)) == NULL ||
	    jh_unhex(salt, sizeof(salt), v, vl) == -1 ||
	    (v = field(txt, "nonce", &vl)) == NULL ||
	    jh_unhex(nonce, sizeof(nonce), v, vl) == -1)
		return (jh_errf(e, "%s: invalid encrypted key fields", path));
	ops = strtoull(o, NULL, 10);
	mem = strtoull(m, NULL, 10);
	if (ops < crypto_pwhash_OPSLIMIT_MIN ||
	    ops > crypto_pwhash_OPSLIMIT_SENSITIVE ||
	    mem < crypto_pwhash_MEMLIMIT_MIN ||
	    mem > crypto_pwhash_MEMLIMIT_SENSITIVE)
		return (jh_errf(e, "%s: kdf limits out of range", path));
	if ((box = sodium_malloc(boxlen)) == NULL ||
	    (bk = sodium_malloc(crypto_secretbox_KEYBYTES)) == NULL ||
	    (pass = sodium_malloc(1024)) == NULL)
		jh_errf(e, "out of secure memory");
	else if ((v = field(txt, "secret", &vl)) == NULL ||
	    jh_unhex(box, boxlen, v, vl) == -1)
		jh_errf(e, "%s: missing or invalid secret", path);
	else if (passfn == NULL || passfn(pass, 1024, path, ctx) == -1)
		jh_errf(e, "%s: key is encrypted and no passphrase could be "
		    "read", path);
	else if (crypto_pwhash(bk, crypto_secretbox_KEYBYTES, pass,
	    strlen(pass), salt, ops, (size_t)mem,
	    crypto_pwhash_ALG_ARGON2ID13) != 0)
		jh_errf(e, "key derivation failed (out of memory?)");
	else if (crypto_secretbox_open_easy(seed, box, boxlen, nonce, bk) != 0)
		jh_errf(e, "%s: wrong passphrase", path);
	else
		rc = 0;
	sodium_free(box);
	sodium_free(bk);
	sodium_free(pass);
	return (rc);
}

/* A secret key file: a regular file of the user's only the user can read. */
static int
key_file_ok(int fd, const char *path, struct jh_err *e)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	if (!S_ISREG(st.st_mode))
		return (jh_errf(e, "%s: not a regular file", path));
	if (st.st_uid != geteuid())
		return (jh_errf(e, "%s: not owned by the user", path));
	if (st.st_mode & 077)
		return (jh_errf(e, "%s: secret key is accessible by group or "
		    "others (mode %03o; chmod 600)", path,
		    (unsigned)st.st_mode & 0777));
	return (0);
}

int
jh_key_load(struct jh_key *k, const char *path, jh_pass_fn passfn,
    void *ctx, struct jh_err *e)
{
	char *txt = NULL, dbuf[JH_DIDKEY_MAX];
	uint8_t *seed = NULL;
	uint8_t pk[JH_PK_LEN];
	const char *v;
	size_t vl;
	ssize_t r;
	int fd = -1, rc = -1;

	memset(k, 0, sizeof(*k));
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	if (key_file_ok(fd, path, e) == -1)
		goto out;
	/*
	 * The secret key, the seed and the file's text share one secure
	 * region, the text last, against the guard page: each sodium_malloc
	 * is an mmap, guard pages, mlock and their undoing, ten system calls
	 * and two TLB flushes, about 75 us on a virtual machine, on every
	 * hook call.  The seed and the text are wiped once the key is made.
	 */
	if ((k->mem = sodium_malloc(KEY_MEM_LEN)) == NULL) {
		jh_errf(e, "out of secure memory");
		goto out;
	}
	k->sk = k->mem;
	seed = k->sk + JH_SK_LEN;
	txt = (char *)seed + JH_SEED_LEN;
	vl = 0;
	while ((r = read(fd, txt + vl, KEY_FILE_MAX - vl)) > 0)
		vl += (size_t)r;
	if (r == -1) {
		jh_errf(e, "%s: %s", path, strerror(errno));
		goto out;
	}
	txt[vl] = '\0';
	if (vl == KEY_FILE_MAX || strncmp(txt, KEY_MAGIC "\n",
	    strlen(KEY_MAGIC) + 1) != 0) {
		jh_errf(e, "%s: not a joulehook secret key file", path);
		goto out;
	}
	if ((v = field(txt, "role", &vl)) == NULL || vl >= 16) {
		jh_errf(e, "%s: missing role", path);
		goto out;
	}
	memcpy(dbuf, v, vl);
	dbuf[vl] = '\0';
	if (jh_role_parse(&k->role, dbuf) == -1) {
		jh_errf(e, "%s: unknown role '%s'", path, dbuf);
		goto out;
	}
	if ((v = field(txt, "public", &vl)) == NULL ||
	    jh_didkey_dec(pk, v, vl) == -1) {
		jh_errf(e, "%s: missing or invalid public key", path);
		goto out;
	}
	if ((v = field(txt, "kdf", &vl)) == NULL) {
		jh_errf(e, "%s: missing kdf", path);
		goto out;
	}
	if (vl == 4 && memcmp(v, "none", 4) == 0) {
		if ((v = field(txt, "secret", &vl)) == NULL ||
		    jh_unhex(seed, JH_SEED_LEN, v, vl) == -1) {
			jh_errf(e, "%s: missing or invalid secret", path);
			goto out;
		}
	} else if (vl == 10 && memcmp(v, "argon2id13", 10) == 0) {
		if (key_decrypt(seed, txt, path, passfn, ctx, e) == -1)
			goto out;
	} else {
		jh_errf(e, "%s: unknown kdf", path);
		goto out;
	}
	crypto_sign_seed_keypair(k->pk, k->sk, seed);
	if (sodium_memcmp(k->pk, pk, JH_PK_LEN) != 0) {
		jh_errf(e, "%s: secret does not match the public key", path);
		goto out;
	}
	jh_didkey_enc(k->did, sizeof(k->did), k->pk);
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	if (seed != NULL)	/* the seed and the text after it */
		sodium_memzero(seed, JH_SEED_LEN + KEY_FILE_MAX + 1);
	if (rc == -1) {
		sodium_free(k->mem);
		k->mem = NULL;
		k->sk = NULL;
	}
	return (rc);
}

void
jh_keyset_init(struct jh_keyset *s)
{
	memset(s, 0, sizeof(*s));
}

void
jh_keyset_free(struct jh_keyset *s)
{
	free(s->pk);
	free(s->roles);
	memset(s, 0, sizeof(*s));
}

int
jh_keyset_add(struct jh_keyset *s, const uint8_t *pk, int roles)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (memcmp(s->pk[i], pk, JH_PK_LEN) == 0) {
			s->roles[i] |= roles;
			return (0);
		}
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 8;
		void *np, *nr;
		if ((np = realloc(s->pk, nc * JH_PK_LEN)) == NULL)
			return (-1);
		s->pk = np;
		if ((nr = realloc(s->roles, nc * sizeof(int))) == NULL)
			return (-1);
		s->roles = nr;
		s->cap = nc;
	}
	memcpy(s->pk[s->n], pk, JH_PK_LEN);
	s->roles[s->n++] = roles;
	return (0);
}

int
jh_keyset_add_did(struct jh_keyset *s, const char *did, int roles,
    struct jh_err *e)
{
	uint8_t pk[JH_PK_LEN];

	if (jh_didkey_dec(pk, did, strlen(did)) == -1)
		return (jh_errf(e, "invalid did:key '%.80s'", did));
	if (jh_keyset_add(s, pk, roles) == -1)
		return (jh_errf(e, "out of memory"));
	return (0);
}

/*
 * Reads a list of keys in the authorized_keys shape: one did:key per
 * line, optionally followed by a space and a comment; blank lines and
 * lines starting with '#' are skipped.
 */
int
jh_keyset_load(struct jh_keyset *s, const char *path, int roles,
    struct jh_err *e)
{
	FILE *f;
	char line[1024];
	int lineno = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *q;
		uint8_t pk[JH_PK_LEN];
		int c;

		lineno++;
		/* A long comment: drop the rest of the line. */
		if (strchr(line, '\n') == NULL)
			while ((c = getc(f)) != EOF && c != '\n')
				;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		for (q = p; *q && *q != ' ' && *q != '\t' && *q != '\n'; q++)
			;
		if (jh_didkey_dec(pk, p, (size_t)(q - p)) == -1) {
			fclose(f);
			return (jh_errf(e, "%s:%d: invalid did:key", path,
			    lineno));
		}
		if (jh_keyset_add(s, pk, roles) == -1) {
			fclose(f);
			return (jh_errf(e, "out of memory"));
		}
	}
	if (ferror(f)) {
		fclose(f);
		return (jh_errf(e, "%s: read error", path));
	}
	fclose(f);
	return (0);
}

int
jh_keyset_has(const struct jh_keyset *s, const uint8_t *pk, int role)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if ((s->roles[i] & role) &&
		    sodium_memcmp(s->pk[i], pk, JH_PK_LEN) == 0)
			return (1);
	return (0);
}

/*
 * Reads a passphrase from /dev/tty with echo off, as signify and
 * minisign do; never from the environment or stdin (stdin carries data).
 */
int
jh_pass_tty(char *buf, size_t sz, const char *prompt, void *ctx)
{
	struct termios t, old;
	int fd, echo_off = 0;
	size_t n = 0;
	char c;
	ssize_t r;

	(void)ctx;
	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC)) == -1)
		return (-1);
	if (write(fd, prompt, strlen(prompt)) < 0) {
		close(fd);
		return (-1);
	}
	if (tcgetattr(fd, &old) == 0) {
		t = old;
		t.c_lflag &= ~(tcflag_t)ECHO;
		echo_off = tcsetattr(fd, TCSAFLUSH, &t) == 0;
	}
	while ((r = read(fd, &c, 1)) == 1 && c != '\n' && c != '\r')
		if (n + 1 < sz)
			buf[n++] = c;
	buf[n] = '\0';
	sodium_memzero(&c, sizeof(c));
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0)
		r = -1;
	close(fd);
	return (r < 0 ? -1 : 0);
}
