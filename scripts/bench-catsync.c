/*
 * The floor for make bench's hook row: a cat that also writes what it
 * passes on to a file and fsyncs it, as the ledger and the log stages do.
 *
 *   bench-catsync FILE < in > out
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	char buf[65536];
	ssize_t n;
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND,
	    0600)) == -1)
		return (2);
	while ((n = read(0, buf, sizeof(buf))) > 0) {
		if (write(fd, buf, (size_t)n) != n || write(1, buf, (size_t)n) !=
		    n)
			return (2);
	}
	if (fsync(fd) == -1)
		return (2);
	return (close(fd) == -1 ? 2 : 0);
}
