/* Helpers of the Fortran bindings (fortran.gen.c): the Fortran sentinels
 * and status conventions of Open MPI and MPICH, seen from C. */
#ifndef LATMAP_FORTRAN_H
#define LATMAP_FORTRAN_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "state.h"

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
/* MPICH's use mpi_f08 MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE
 * (mpi_f08_link_constants.f90: TYPE(MPI_Status) variables bound to these
 * C names, declared by its mpi.h, defined in libmpichfort). */
#ifdef MPICH
#pragma weak MPIR_F08_MPI_STATUS_IGNORE_OBJ
#pragma weak MPIR_F08_MPI_STATUSES_IGNORE_OBJ
#define LMF_F08_STATUS_IGNORE ((MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)
#define LMF_F08_STATUSES_IGNORE ((MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ)
#else
#define LMF_F08_STATUS_IGNORE ((MPI_Fint *)NULL)
#define LMF_F08_STATUSES_IGNORE ((MPI_Fint *)NULL)
#endif

/* Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: Open MPI's (libmpi, and
 * libmpi_usempif08 for use mpi_f08), MPICH's mpif.h common blocks
 * (/MPIFCMB5/ MPI_UNWEIGHTED, /MPIFCMB9/ MPI_WEIGHTS_EMPTY) and its
 * mpi_f08 module variables. Weak: whichever the MPI has. */
extern int mpi_fortran_unweighted_ __attribute__((weak));
extern int mpi_fortran_weights_empty_ __attribute__((weak));
extern int mpifcmb5_[] __attribute__((weak));
extern int mpifcmb9_[] __attribute__((weak));
extern int lmf_f08_unweighted __asm__("__mpi_f08_link_constants_MOD_mpi_unweighted") __attribute__((weak));
extern int lmf_f08_weights_empty __asm__("__mpi_f08_link_constants_MOD_mpi_weights_empty") __attribute__((weak));

/* lmf_weights turns Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY into
 * C's (passed on as they are, they made the graph weighted). */
static inline int *lmf_weights(MPI_Fint *w)
{
	if ((&mpi_fortran_unweighted_ && w == &mpi_fortran_unweighted_) || (mpifcmb5_ && w == mpifcmb5_) ||
	    (&lmf_f08_unweighted && w == &lmf_f08_unweighted))
		return MPI_UNWEIGHTED;
	if ((&mpi_fortran_weights_empty_ && w == &mpi_fortran_weights_empty_) || (mpifcmb9_ && w == mpifcmb9_) ||
	    (&lmf_f08_weights_empty && w == &lmf_f08_weights_empty))
		return MPI_WEIGHTS_EMPTY;
	return (int *)w;
}

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
	       (LMF_F08_STATUS_IGNORE && s == LMF_F08_STATUS_IGNORE) ||
	       (MPI_F_STATUS_IGNORE && s == MPI_F_STATUS_IGNORE);
}

static inline int lmf_statuses_ignore(MPI_Fint *s)
{
	return (&mpi_fortran_statuses_ignore_ && s == &mpi_fortran_statuses_ignore_) || (mpipriv2_ && s == &mpipriv2_[0]) ||
	       (LMF_F08_STATUSES_IGNORE && s == LMF_F08_STATUSES_IGNORE) ||
	       (MPI_F_STATUSES_IGNORE && s == MPI_F_STATUSES_IGNORE);
}

/* lmf_string is a C copy of a Fortran CHARACTER argument of length len,
 * without its trailing blanks. */
static inline char *lmf_string(const char *s, size_t len)
{
	while (len > 0 && s[len - 1] == ' ')
		len--;
	char *c = malloc(len + 1);
	if (c) {
		memcpy(c, s, len);
		c[len] = 0;
	}
	return c;
}

/* lmf_alloc allocates n (at least 1) elements for a converted array. */
static inline void *lmf_alloc(int n, size_t size)
{
	void *p = malloc((size_t)(n > 0 ? n : 1) * size);
	if (p == NULL)
		abort();
	return p;
}

/* lmf_next returns the MPI's own definition of the Fortran entry point
 * name (the next one after latmap's in the lookup order: MPICH's
 * libmpichfort), looked up once and kept in *slot. */
static inline void *lmf_next(void **slot, const char *name)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (f == NULL) {
		f = dlsym(RTLD_NEXT, name);
		if (f == NULL) {
			fprintf(stderr, "latmap: %s is called but the MPI's Fortran library does not define it\n", name);
			abort();
		}
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* LMF_F08TS_ENTER starts latmap's forwarder of one of MPICH's f08ts
 * calls: under --call-sites, its return address (in the Fortran program)
 * is the site of the C wrapper's call that MPICH's MPIR_*_cdesc makes. A
 * macro: __builtin_return_address(0) must be the forwarder's. (Call sites
 * are not recorded under MPI_THREAD_MULTIPLE.) */
#define LMF_F08TS_ENTER()                                     \
	do {                                                  \
		if (__builtin_expect(lm.sites, 0) && !lm.mt) \
			lm.f08_caller = __builtin_return_address(0); \
	} while (0)

/* lmf_f08ts_done follows each of MPICH's f08ts calls: the C wrapper may
 * have cached the size of a temporary datatype MPICH made for an array
 * section and has freed since with PMPI_Type_free (the cache is not used
 * under MPI_THREAD_MULTIPLE); the call's site is over. */
static inline void lmf_f08ts_done(void)
{
	if (!lm.mt) {
		lm.last_dt = MPI_DATATYPE_NULL;
		lm.f08_caller = NULL;
	}
}

#endif
