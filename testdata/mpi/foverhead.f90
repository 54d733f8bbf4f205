! foverhead: the cost of a cheap Fortran MPI call, to measure what latmap's
! Fortran bindings add: BATCHES batches of N calls of MPI_Send to
! MPI_PROC_NULL (use mpi); prints the median ns per call as "send_ns X".
! Usage: foverhead N BATCHES.
program foverhead
  use mpi
  implicit none
  integer :: ierr, n, batches, i, k, buf(1)
  character(len=32) :: arg
  double precision :: t0
  double precision, allocatable :: v(:)

  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) batches
  allocate(v(batches))
  buf = 0
  do k = 1, batches
    t0 = MPI_Wtime()
    do i = 1, n
      call MPI_Send(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
    end do
    v(k) = (MPI_Wtime() - t0) / n * 1d9
  end do
  call sort(v)
  print '(a,f0.2)', 'send_ns ', v((batches + 1) / 2)
  call MPI_Finalize(ierr)

contains

  subroutine sort(a)
    double precision, intent(inout) :: a(:)
    integer :: p, q
    double precision :: x
    do p = 2, size(a)
      x = a(p)
      q = p - 1
      do while (q >= 1)
        if (a(q) <= x) exit
        a(q + 1) = a(q)
        q = q - 1
      end do
      a(q + 1) = x
    end do
  end subroutine sort
end program foverhead
