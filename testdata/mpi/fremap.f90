! fremap.f90: what a Fortran program (use mpi) sees of MPI_COMM_WORLD,
! for latmap profile --remap's checks: its rank, the size, a ring of
! MPI_SENDRECV (MPI_SOURCE), a duplicate's rank and, given a file name,
! an MPI-IO file opened on the world (each rank writes its rank at its
! own offset and reads the previous rank's; the file's group). Rank 0 prints
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
  integer :: ierr, r, n, got, dup, d, i, fh, grp, at
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=4096) :: path
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
  if (command_argument_count() > 0) then
    call get_command_argument(1, path)
    call MPI_FILE_OPEN(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
    off = int(r, MPI_OFFSET_KIND) * 4
    call MPI_FILE_WRITE_AT_ALL(fh, off, r, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_SYNC(fh, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    off = int(mod(r + n - 1, n), MPI_OFFSET_KIND) * 4
    at = -1
    call MPI_FILE_READ_AT(fh, off, at, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_GET_GROUP(fh, grp, ierr)
    call MPI_GROUP_RANK(grp, d, ierr)
    call MPI_FILE_CLOSE(fh, ierr)
    if (at /= mod(r + n - 1, n) .or. d /= r) then
      fails = fails + 1
      write (*, '(A,I0,A)') 'fail MPI-IO file (rank ', r, ')'
    end if
  end if
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
