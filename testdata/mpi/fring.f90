! fring: a ring in Fortran with the old include 'mpif.h': ITER times every
! rank sends M integers to its right neighbour and receives from its left
! with MPI_Sendrecv; then rank 0 sends one integer to rank 1, received with
! MPI_STATUS_IGNORE. Prints "fring ok" on rank 0.
program fring
  implicit none
  include 'mpif.h'
  integer, parameter :: iter = 12, m = 250
  integer :: ierr, rank, np, i, one
  integer :: sbuf(m), rbuf(m), st(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  do i = 1, iter
    sbuf = rank + i
    call MPI_Sendrecv(sbuf, m, MPI_INTEGER, mod(rank + 1, np), 0, rbuf, m, MPI_INTEGER, &
      mod(rank - 1 + np, np), 0, MPI_COMM_WORLD, st, ierr)
    if (rbuf(m) /= mod(rank - 1 + np, np) + i) then
      print '(a)', 'fring: wrong data'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  one = 7
  if (rank == 0) call MPI_Send(one, 1, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, ierr)
  if (rank == 1) call MPI_Recv(one, 1, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) print '(a)', 'fring ok'
  call MPI_Finalize(ierr)
end program fring
