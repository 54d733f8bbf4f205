/* Helpers of the Fortran bindings (fortran.gen.c): the Fortran sentinels
 * and status conventions of Open MPI and MPICH, seen from C. */
#ifndef LATMAP_FORTRAN_H
#define LATMAP_FORTRAN_H

#include <stdlib.h>
#include <mpi.h>

/* A Fortran INTEGER array of counts is passed to C as is. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "latmap's Fortran bindings need a default INTEGER of the size of a C int");

/* A Fortran status is MPI_STATUS_SIZE INTEGERs: as many as a C status
 * holds in Open MPI 4.1 (6) and MPICH 4.0 (5). */
#define LMF_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* The sentinels' addresses: Open MPI's common blocks are defined in libmpi,
 * MPICH's (COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE;
 * /MPIPRIV2/ MPI_STATUSES_IGNORE) in libmpichfort, which a Fortran program
 * under MPICH loads. Weak: whichever the MPI has. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
extern int mpipriv1_[] __attribute__((weak));
extern int mpipriv2_[] __attribute__((weak));

/* lmf_buf turns Fortran's MPI_IN_PLACE and MPI_BOTTOM into C's. */
static inline void *lmf_buf(void *b)
{
	if (b == NULL)
		return b;
	if ((&mpi_fortran_in_place_ && b == (void *)&mpi_fortran_in_place_) || (mpipriv1_ && b == (void *)&mpipriv1_[1]))
		return MPI_IN_PLACE;
	if ((&mpi_fortran_bottom_ && b == (void *)&mpi_fortran_bottom_) || (mpipriv1_ && b == (void *)&mpipriv1_[0]))
		return MPI_BOTTOM;
	return b;
}

static inline int lmf_status_ignore(MPI_Fint *s)
{
	return (&mpi_fortran_status_ignore_ && s == &mpi_fortran_status_ignore_) || (mpipriv1_ && s == &mpipriv1_[2]) ||
	       (MPI_F_STATUS_IGNORE && s == MPI_F_STATUS_IGNORE);
}

static inline int lmf_statuses_ignore(MPI_Fint *s)
{
	return (&mpi_fortran_statuses_ignore_ && s == &mpi_fortran_statuses_ignore_) || (mpipriv2_ && s == &mpipriv2_[0]) ||
	       (MPI_F_STATUSES_IGNORE && s == MPI_F_STATUSES_IGNORE);
}

/* lmf_alloc allocates n (at least 1) elements for a converted array. */
static inline void *lmf_alloc(int n, size_t size)
{
	void *p = malloc((size_t)(n > 0 ? n : 1) * size);
	if (p == NULL)
		abort();
	return p;
}

#endif
