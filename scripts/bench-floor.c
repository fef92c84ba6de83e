/*
 * The floor for make bench's fused hook row: the least one process can
 * do for a gated call.  It reads the payload, signs it once with a fresh
 * Ed25519 key made before the clock matters little (crypto_sign_keypair
 * is one more scalar multiplication, counted in), and makes two writes
 * durable, each its own file and fsync, as the ledger's debit and the
 * log's append are.  Linked statically, as jh-hook is.
 *
 *   bench-floor FILE1 FILE2 < payload
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <sodium.h>

static int
durable(const char *path, const void *p, size_t n)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600)) == -1)
		return (-1);
	if (write(fd, p, n) != (ssize_t)n || fsync(fd) == -1) {
		close(fd);
		return (-1);
	}
	return (close(fd));
}

int
main(int argc, char *argv[])
{
	static unsigned char buf[1 << 20];
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char sk[crypto_sign_SECRETKEYBYTES];
	unsigned char sig[crypto_sign_BYTES];
	size_t len = 0;
	ssize_t n;

	if (argc != 3 || sodium_init() < 0)
		return (2);
	while (len < sizeof(buf) && (n = read(0, buf + len,
	    sizeof(buf) - len)) > 0)
		len += (size_t)n;
	crypto_sign_keypair(pk, sk);
	crypto_sign_detached(sig, NULL, buf, len, sk);
	sodium_memzero(sk, sizeof(sk));
	if (durable(argv[1], sig, sizeof(sig)) == -1 ||
	    durable(argv[2], buf, len) == -1)
		return (2);
	return (0);
}
