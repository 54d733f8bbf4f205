// namesake.c: a program whose own globals are named as latmap's
// interposer's internals were (lm, lm_mu, bprintf): with the library's
// helpers hidden, neither binds to the other's, even when the program is
// linked with -rdynamic (its names in its dynamic symbol table, where a
// preloaded library's references to the same names would find them first,
// as programs that load plugins are linked). Each rank sends ITER
// messages of 1,000 bytes to rank + 1 (mod size) and counts them in its
// own lm; bprintf is its own printer. It prints what it sent.
// usage: namesake [ITER]
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long lm;
pthread_mutex_t lm_mu = PTHREAD_MUTEX_INITIALIZER;

int bprintf(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* One write a line: the launcher forwards each rank's output. */
	int n = printf("namesake: %s", line);
	fflush(stdout);
	return n;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, iter = argc > 1 ? atoi(argv[1]) : 10;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char sbuf[1000] = {0}, rbuf[1000];
	int to = (rank + 1) % size, from = (rank + size - 1) % size;
	for (int i = 0; i < iter; i++) {
		MPI_Sendrecv(sbuf, 1000, MPI_BYTE, to, 3, rbuf, 1000, MPI_BYTE, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		pthread_mutex_lock(&lm_mu);
		lm += 1000;
		pthread_mutex_unlock(&lm_mu);
	}
	bprintf("rank %d sent %ld bytes\n", rank, lm);
	MPI_Finalize();
	return 0;
}
