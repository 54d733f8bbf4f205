! fcart2d: cart2d.c in Fortran ("use mpi"), for latmap profile
! --reorder through latmap's Fortran bindings: a 2-D grid from
! MPI_Cart_create with reorder = .true.; ITERS steps exchanging BIG bytes
! with both neighbours along dimension 2 and SMALL along dimension 1
! (non-periodic). Each rank's data depend only on its grid coordinates:
! grid rank 0 prints "checksum C", "time T" and "world_of_cart W0 W1 ...".
! Usage: fcart2d D0 D1 ITERS BIG SMALL
program fcart2d
  use mpi
  implicit none
  integer :: ierr, rank, np, wrank, cart, it, i, d, lo, hi, side, to, from
  integer :: dims(2), coords(2), iters, big, small, nbytes
  logical :: periods(2)
  integer(kind=8) :: s, total
  integer, allocatable :: world(:)
  character, allocatable :: sbuf(:), rbuf(:)
  character(len=32) :: arg
  double precision :: t

  call MPI_Init(ierr)
  do i = 1, 5
    call get_command_argument(i, arg)
    select case (i)
    case (1); read (arg, *) dims(1)
    case (2); read (arg, *) dims(2)
    case (3); read (arg, *) iters
    case (4); read (arg, *) big
    case (5); read (arg, *) small
    end select
  end do
  periods = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call MPI_Comm_rank(cart, rank, ierr)
  call MPI_Comm_size(cart, np, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  allocate (sbuf(big), rbuf(big), world(np))
  sbuf = achar(1 + coords(1) * 7 + coords(2) * 3)
  s = 0
  call MPI_Barrier(cart, ierr)
  t = MPI_Wtime()
  do it = 1, iters
    do d = 1, 0, -1
      nbytes = small
      if (d == 1) nbytes = big
      call MPI_Cart_shift(cart, d, 1, lo, hi, ierr)
      do side = 0, 1
        to = hi
        from = lo
        if (side == 1) then
          to = lo
          from = hi
        end if
        call MPI_Sendrecv(sbuf, nbytes, MPI_CHARACTER, to, d, rbuf, nbytes, MPI_CHARACTER, from, d, &
                          cart, MPI_STATUS_IGNORE, ierr)
        if (from /= MPI_PROC_NULL) then
          do i = 1, nbytes, 4096
            s = s + ichar(rbuf(i))
          end do
        end if
      end do
    end do
  end do
  call MPI_Barrier(cart, ierr)
  t = MPI_Wtime() - t
  call MPI_Reduce(s, total, 1, MPI_INTEGER8, MPI_SUM, 0, cart, ierr)
  call MPI_Gather(wrank, 1, MPI_INTEGER, world, 1, MPI_INTEGER, 0, cart, ierr)
  if (rank == 0) then
    print '(a,i0)', 'checksum ', total
    print '(a,f10.6)', 'time ', t
    write (*, '(a)', advance='no') 'world_of_cart'
    do i = 1, np
      write (*, '(a,i0)', advance='no') ' ', world(i)
    end do
    print *
  end if
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)
end program fcart2d
