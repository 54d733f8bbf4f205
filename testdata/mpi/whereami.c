/* whereami: each rank prints "rank R host H cpu C" (one line, in rank order
 * through rank 0). Used by tests to check where a launcher placed ranks. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int rank, size;
	char line[256], host[128];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(host, sizeof host);
	host[sizeof host - 1] = 0;
	snprintf(line, sizeof line, "rank %d host %s cpu %d", rank, host, sched_getcpu());
	if (rank == 0) {
		printf("%s\n", line);
		for (int r = 1; r < size; r++) {
			MPI_Recv(line, sizeof line, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			printf("%s\n", line);
		}
		fflush(stdout);
	} else {
		MPI_Send(line, (int)strlen(line) + 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
