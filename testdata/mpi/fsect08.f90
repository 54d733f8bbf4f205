! fsect08: a use mpi_f08 program for what MPICH's f08 bindings do beyond
! fhalo08: array sections that are not contiguous, of a size that changes
! from one call to the next (MPICH describes each with a temporary
! datatype, count 1, and frees it with PMPI_Type_free), the MPI-4
! large-count forms (INTEGER(MPI_COUNT_KIND) counts: MPICH's
! mpi_send_f08ts_large_ and the like, which call MPI_Send_c), and
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, which must stay untouched.
! On a ring, every rank ITER times sends N integers, a row of a(M, M)
! (a(2, 1:N): every M-th integer; N = M, M/2, M, ...), to the right with
! MPI_Send, and receives them from the left into every other element of r
! (r(1:2N:2)) with MPI_Irecv and MPI_Wait (the status kept on odd
! iterations, MPI_STATUS_IGNORE on even ones). Then, with MPI_COUNT_KIND
! counts: MPI_Send of a whole row (a(3, :), M integers, not contiguous) to
! the right and MPI_Recv from the left (MPI_STATUS_IGNORE); MPI_Isend of a
! column (a(:, 4), contiguous) to the left, MPI_Irecv from the right and
! MPI_Waitall (MPI_STATUSES_IGNORE); MPI_Allreduce of one integer with
! MPI_IN_PLACE. Checks every result and prints "fsect08 ok" on rank 0.
program fsect08
  use mpi_f08
  implicit none
  integer, parameter :: iter = 6, m = 8
  integer :: rank, np, left, right, i, j, k, n, ierr
  integer :: a(m, m), total
  integer, asynchronous :: r(2 * m), col(m)
  integer(MPI_COUNT_KIND) :: cm, cone
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: st

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)
  do i = 1, iter
    n = m
    if (mod(i, 2) == 0) n = m / 2
    do k = 1, m
      do j = 1, m
        a(j, k) = val(rank, i, j, k)
      end do
    end do
    r = -1
    call MPI_Irecv(r(1:2 * n:2), n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req)
    call MPI_Send(a(2, 1:n), n, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
    if (mod(i, 2) == 1) then
      call MPI_Wait(req, st, ierr)
      if (st%MPI_SOURCE /= left .or. st%MPI_TAG /= 1) call fail('Wait status')
    else
      call MPI_Wait(req, MPI_STATUS_IGNORE)
    end if
    do k = 1, n
      if (r(2 * k - 1) /= val(left, i, 2, k) .or. r(2 * k) /= -1) call fail('row section')
    end do
  end do
  if (MPI_STATUS_IGNORE%MPI_SOURCE /= 0 .or. MPI_STATUS_IGNORE%MPI_TAG /= 0) call fail('MPI_STATUS_IGNORE written')

  cm = m
  cone = 1
  r = -1
  call MPI_Send(a(3, :), cm, MPI_INTEGER, right, 2, MPI_COMM_WORLD)
  call MPI_Recv(r, cm, MPI_INTEGER, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  do k = 1, m
    if (r(k) /= val(left, iter, 3, k)) call fail('large-count row')
  end do
  call MPI_Irecv(col, cm, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a(:, 4), cm, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  do j = 1, m
    if (col(j) /= val(right, iter, j, 4)) call fail('large-count column')
  end do
  if (MPI_STATUSES_IGNORE(1)%MPI_SOURCE /= 0 .or. MPI_STATUSES_IGNORE(1)%MPI_TAG /= 0) &
    call fail('MPI_STATUSES_IGNORE written')

  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, cone, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (total /= np * (np + 1) / 2) call fail('large-count Allreduce MPI_IN_PLACE')

  if (rank == 0) print '(a)', 'fsect08 ok'
  call MPI_Finalize()

contains

  integer function val(rk, it, j, k)
    integer, intent(in) :: rk, it, j, k
    val = rk * 100000 + it * 1000 + j * 10 + k
  end function val

  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a,i0,2a)', 'fsect08: rank ', rank, ': wrong ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program fsect08
