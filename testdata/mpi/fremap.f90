! fremap.f90: what a Fortran program (use mpi) sees of MPI_COMM_WORLD,
! for latmap profile --remap's checks: its rank, the size, a ring of
! MPI_SENDRECV (MPI_SOURCE) and a duplicate's rank. Rank 0 prints
! "where R CPU" for each rank (the cpu it runs on, from sched_getcpu),
! "failed N" and "checksum S" (the sum of rank x (rank + 1)).
program fremap
  use mpi
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function sched_getcpu() bind(c, name='sched_getcpu')
      import c_int
    end function
  end interface
  integer :: ierr, r, n, got, dup, d, i
  integer(kind=8) :: fails, bad
  integer :: st(MPI_STATUS_SIZE), where(2)
  integer, allocatable :: all(:)
  integer(kind=8) :: mine, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, r, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  fails = 0
  call MPI_SENDRECV(r, 1, MPI_INTEGER, mod(r + 1, n), 7, got, 1, MPI_INTEGER, mod(r + n - 1, n), 7, &
                    MPI_COMM_WORLD, st, ierr)
  if (got /= mod(r + n - 1, n) .or. st(MPI_SOURCE) /= got) fails = fails + 1
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_RANK(dup, d, ierr)
  if (d /= r) fails = fails + 1
  where(1) = r
  where(2) = sched_getcpu()
  allocate(all(2 * n))
  call MPI_GATHER(where, 2, MPI_INTEGER, all, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  mine = int(r, 8) * int(r + 1, 8)
  call MPI_REDUCE(mine, total, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(fails, bad, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (r == 0) then
    do i = 0, n - 1
      write (*, '(A,I0,A,I0)') 'where ', all(2 * i + 1), ' ', all(2 * i + 2)
    end do
    write (*, '(A,I0)') 'failed ', bad
    write (*, '(A,I0)') 'checksum ', total
  end if
  call MPI_COMM_FREE(dup, ierr)
  call MPI_FINALIZE(ierr)
end program fremap
