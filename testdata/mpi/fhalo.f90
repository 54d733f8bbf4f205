! fhalo: a Fortran ("use mpi") program whose traffic is known by
! construction, for latmap's Fortran bindings. Every rank, ITER times:
! exchanges M integers with both ring neighbours (Isend/Irecv, Waitall
! with a statuses array; the second half of the iterations with
! MPI_STATUSES_IGNORE), then an MPI_Sendrecv to the right (status kept).
! Then: rank 0 receives one integer from every other rank with
! MPI_ANY_SOURCE (MPI_Recv, checking MPI_SOURCE), an MPI_Allreduce with
! MPI_IN_PLACE, an MPI_Bcast, an MPI_Alltoallv of one integer per peer,
! an MPI_Comm_split/MPI_Comm_free, and an MPI_Dist_graph_create_adjacent
! of the ring with MPI_UNWEIGHTED (unweighted, as MPI_Dist_graph_
! neighbors_count says)/MPI_Comm_free (left out with the argument "p2p":
! Open MPI's monitoring counts the Alltoallv's messages as point to
! point). Checks every result and prints "fhalo ok" on rank 0.
program fhalo
  use mpi
  implicit none
  integer, parameter :: iter = 10, m = 100
  integer :: ierr, rank, np, left, right, i, k, src, sub, indeg, outdeg
  logical :: weighted
  integer :: sbuf(m), rl(m), rr(m), one, total
  integer :: reqs(4), stats(MPI_STATUS_SIZE, 4), st(MPI_STATUS_SIZE)
  integer, allocatable :: a2s(:), a2r(:), cnt(:), dsp(:)
  logical :: seen(0:63)
  character(len=8) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)
  do i = 1, iter
    sbuf = rank * 1000 + i
    call MPI_Irecv(rl, m, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(rr, m, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(sbuf, m, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(sbuf, m, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(4), ierr)
    if (i <= iter / 2) then
      call MPI_Waitall(4, reqs, stats, ierr)
      if (stats(MPI_SOURCE, 1) /= left .or. stats(MPI_SOURCE, 2) /= right) call fail('Waitall statuses')
    else
      call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
    end if
    do k = 1, 4
      if (reqs(k) /= MPI_REQUEST_NULL) call fail('request not null after Waitall')
    end do
    if (rl(1) /= left * 1000 + i .or. rr(m) /= right * 1000 + i) call fail('halo data')
    call MPI_Sendrecv(sbuf, m, MPI_INTEGER, right, 3, rl, m, MPI_INTEGER, left, 3, MPI_COMM_WORLD, st, ierr)
    if (st(MPI_SOURCE) /= left .or. rl(2) /= left * 1000 + i) call fail('Sendrecv')
  end do

  one = rank
  if (rank == 0) then
    seen = .false.
    do k = 1, np - 1
      call MPI_Recv(one, 1, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, st, ierr)
      src = st(MPI_SOURCE)
      if (one /= src .or. seen(src)) call fail('ANY_SOURCE')
      seen(src) = .true.
    end do
  else
    call MPI_Send(one, 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, ierr)
  end if

  call get_command_argument(1, arg)
  if (arg == 'p2p') then
    if (rank == 0) print '(a)', 'fhalo ok'
    call MPI_Finalize(ierr)
    stop
  end if

  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= np * (np + 1) / 2) call fail('Allreduce MPI_IN_PLACE')
  one = 0
  if (rank == 0) one = 42
  call MPI_Bcast(one, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (one /= 42) call fail('Bcast')

  allocate(a2s(np), a2r(np), cnt(np), dsp(np))
  do k = 1, np
    a2s(k) = rank * 100 + k - 1
    cnt(k) = 1
    dsp(k) = k - 1
  end do
  call MPI_Alltoallv(a2s, cnt, dsp, MPI_INTEGER, a2r, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do k = 1, np
    if (a2r(k) /= (k - 1) * 100 + rank) call fail('Alltoallv')
  end do

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_free(sub, ierr)
  if (sub /= MPI_COMM_NULL) call fail('Comm_free')

  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, [left], MPI_UNWEIGHTED, 1, [right], MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., sub, ierr)
  call MPI_Dist_graph_neighbors_count(sub, indeg, outdeg, weighted, ierr)
  if (indeg /= 1 .or. outdeg /= 1 .or. weighted) call fail('Dist_graph_create_adjacent MPI_UNWEIGHTED')
  call MPI_Comm_free(sub, ierr)

  if (rank == 0) print '(a)', 'fhalo ok'
  call MPI_Finalize(ierr)

contains

  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'fhalo: rank ', rank, ': wrong ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program fhalo
