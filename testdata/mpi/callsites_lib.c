/* callsites_lib.c: the shared-library caller of callsites.c: n x 64 bytes
 * to dest from one call site. */
#include <mpi.h>

void lib_send(int dest, int n)
{
	char v[64] = {0};
	for (int i = 0; i < n; i++)
		MPI_Send(v, 64, MPI_BYTE, dest, 3, MPI_COMM_WORLD); /* SITE:lib */
}
