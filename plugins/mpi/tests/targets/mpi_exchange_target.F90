! mpi_exchange_target.c in Fortran, call for call: the same phases, counts,
! tags and peers, so a job of either gives the same MPI figures (only the
! number of MPI_Test calls while polling varies from run to run). Built
! three times, once per binding: -DLUMEN_MPI_F08 (use mpi_f08),
! -DLUMEN_USE_MPI (use mpi), neither (include 'mpif.h'). Every rank counts
! its own calls (mpi_truth.f90) and writes them to DIR/rank<N>.json, DIR
! being the first argument. Needs an even number of ranks.
! Each phase is a procedure of this module, sharing the rank and size
! (module variables: internal procedures would need an executable stack).
module exchange_phases
#if defined(LUMEN_MPI_F08)
  use mpi_f08
#elif defined(LUMEN_USE_MPI)
  use mpi
#endif
  use mpi_truth
  implicit none
#if !defined(LUMEN_MPI_F08) && !defined(LUMEN_USE_MPI)
  include 'mpif.h'
#endif
#if defined(LUMEN_MPI_F08)
#define COMM type(MPI_Comm)
#define REQUEST type(MPI_Request)
#define STATUS_VARIABLE(name) type(MPI_Status) :: name
#define STATUS_ARRAY(name, n) type(MPI_Status) :: name(n)
#else
#define COMM integer
#define REQUEST integer
#define STATUS_VARIABLE(name) integer :: name(MPI_STATUS_SIZE)
#define STATUS_ARRAY(name, n) integer :: name(MPI_STATUS_SIZE, n)
#endif

  integer :: rank, size, ierr

contains

  integer function type_bytes(datatype)
#if defined(LUMEN_MPI_F08)
    type(MPI_Datatype), intent(in) :: datatype
#else
    integer, intent(in) :: datatype
#endif
    call MPI_Type_size(datatype, type_bytes, ierr)
    call truth_call("MPI_Type_size")
  end function

  ! Blocking ring: even ranks send first, odd ranks receive first.
  subroutine ring_phase()
    integer :: next, previous, count, incoming, int_bytes, step
    integer, allocatable :: out(:), in(:)
    next = mod(rank + 1, size)
    previous = mod(rank - 1 + size, size)
    count = 1000 + rank
    incoming = 1000 + previous
    allocate(out(count), in(incoming))
    out = 0
    int_bytes = type_bytes(MPI_INTEGER)
    do step = 0, 1
      if ((mod(rank, 2) == 0) .eqv. (step == 0)) then
        call MPI_Send(out, count, MPI_INTEGER, next, 1, MPI_COMM_WORLD, ierr)
        call truth_call("MPI_Send")
        call truth_send("MPI_Send", next, count * int_bytes)
      else
        call MPI_Recv(in, incoming, MPI_INTEGER, previous, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call truth_call("MPI_Recv")
        call truth_receive("MPI_Recv", incoming * int_bytes)
      end if
    end do
  end subroutine

  ! Every rank to every other: Irecv, Isend, one Waitall.
  subroutine all_to_all_phase()
    integer :: double_bytes, peer, n
    double precision, allocatable :: out(:), in(:, :)
    REQUEST, allocatable :: requests(:)
    double_bytes = type_bytes(MPI_DOUBLE_PRECISION)
    allocate(out(7 * (rank + 1)), in(7 * size, 0:size - 1), requests(2 * size))
    out = 0
    n = 0
    do peer = 0, size - 1
      if (peer == rank) cycle
      n = n + 1
      call MPI_Irecv(in(1, peer), 7 * (peer + 1), MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, requests(n), ierr)
      call truth_call("MPI_Irecv")
    end do
    do peer = 0, size - 1
      if (peer == rank) cycle
      n = n + 1
      call MPI_Isend(out, 7 * (rank + 1), MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, requests(n), ierr)
      call truth_call("MPI_Isend")
      call truth_send("MPI_Isend", peer, 7 * (rank + 1) * double_bytes)
    end do
    call MPI_Waitall(n, requests, MPI_STATUSES_IGNORE, ierr)
    call truth_call("MPI_Waitall")
    do peer = 0, size - 1
      if (peer /= rank) call truth_receive("MPI_Waitall", 7 * (peer + 1) * double_bytes)
    end do
  end subroutine

  ! Persistent requests started three times, completed with statuses.
  subroutine persistent_phase()
    integer :: next, previous, round
    character :: out(333), in(333)
    REQUEST :: requests(2)
    STATUS_ARRAY(statuses, 2)
    next = mod(rank + 1, size)
    previous = mod(rank - 1 + size, size)
    out = achar(rank)
    call MPI_Recv_init(in, 333, MPI_CHARACTER, previous, 4, MPI_COMM_WORLD, requests(1), ierr)
    call truth_call("MPI_Recv_init")
    call MPI_Send_init(out, 333, MPI_CHARACTER, next, 4, MPI_COMM_WORLD, requests(2), ierr)
    call truth_call("MPI_Send_init")
    do round = 1, 3
      call MPI_Startall(2, requests, ierr)
      call truth_call("MPI_Startall")
      call truth_send("MPI_Startall", next, 333)
      call MPI_Waitall(2, requests, statuses, ierr)
      call truth_call("MPI_Waitall")
      call truth_receive("MPI_Waitall", 333)
    end do
    call MPI_Request_free(requests(1), ierr)
    call truth_call("MPI_Request_free")
    call MPI_Request_free(requests(2), ierr)
    call truth_call("MPI_Request_free")
  end subroutine

  ! Sendrecv around the ring, and a Sendrecv_replace the other way.
  subroutine sendrecv_phase()
    integer :: next, previous
    integer(kind=2) :: out(11), in(11)
    integer(kind=8) :: buffer(3)
    STATUS_VARIABLE(status)
    next = mod(rank + 1, size)
    previous = mod(rank - 1 + size, size)
    out = 0
    call MPI_Sendrecv(out, 11, MPI_INTEGER2, next, 5, in, 11, MPI_INTEGER2, previous, 5, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call truth_call("MPI_Sendrecv")
    call truth_send("MPI_Sendrecv", next, 22)
    call truth_receive("MPI_Sendrecv", 22)
    buffer = 0
    call MPI_Sendrecv_replace(buffer, 3, MPI_INTEGER8, previous, 6, next, 6, MPI_COMM_WORLD, status, ierr)
    call truth_call("MPI_Sendrecv_replace")
    call truth_send("MPI_Sendrecv_replace", previous, 24)
    call truth_receive("MPI_Sendrecv_replace", 24)
  end subroutine

  ! Ranks of one parity in their own communicator: its rank 0 sends to its
  ! rank 1 (world ranks differ), received from MPI_ANY_SOURCE.
  subroutine subcommunicator_phase()
    COMM :: half
    integer :: half_rank, half_size, values(5)
    STATUS_VARIABLE(status)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    call truth_call("MPI_Comm_split")
    call MPI_Comm_rank(half, half_rank, ierr)
    call truth_call("MPI_Comm_rank")
    call MPI_Comm_size(half, half_size, ierr)
    call truth_call("MPI_Comm_size")
    values = 0
    if (half_size >= 2 .and. half_rank == 0) then
      call MPI_Send(values, 5, MPI_INTEGER, 1, 7, half, ierr)
      call truth_call("MPI_Send")
      call truth_send("MPI_Send", rank + 2, 20)  ! half rank 1 is world rank + 2
    else if (half_size >= 2 .and. half_rank == 1) then
      call MPI_Recv(values, 5, MPI_INTEGER, MPI_ANY_SOURCE, 7, half, status, ierr)
      call truth_call("MPI_Recv")
      call truth_receive("MPI_Recv", 20)
    end if
    call MPI_Comm_free(half, ierr)
    call truth_call("MPI_Comm_free")
  end subroutine

  ! A receive polled with MPI_Test until it completes.
  subroutine polling_phase()
    integer :: next, previous
    real :: out(9), in(9)
    REQUEST :: receive, send
    logical :: done
    next = mod(rank + 1, size)
    previous = mod(rank - 1 + size, size)
    out = 0
    call MPI_Irecv(in, 9, MPI_REAL, previous, 8, MPI_COMM_WORLD, receive, ierr)
    call truth_call("MPI_Irecv")
    call MPI_Isend(out, 9, MPI_REAL, next, 8, MPI_COMM_WORLD, send, ierr)
    call truth_call("MPI_Isend")
    call truth_send("MPI_Isend", next, 36)
    done = .false.
    do while (.not. done)
      call MPI_Test(receive, done, MPI_STATUS_IGNORE, ierr)
      call truth_call("MPI_Test")
    end do
    call truth_receive("MPI_Test", 36)
    call MPI_Wait(send, MPI_STATUS_IGNORE, ierr)
    call truth_call("MPI_Wait")
  end subroutine

  ! A receive and a send completed one at a time by MPI_Waitany. Its index
  ! counts from 1 in Fortran, from 0 in MPICH 4.0's mpi_f08: the request
  ! nulled tells which completed.
  subroutine any_phase()
    integer :: next, previous, completed, index, out(5), in(5)
    logical :: received
    REQUEST :: requests(2)
    STATUS_VARIABLE(status)
    next = mod(rank + 1, size)
    previous = mod(rank - 1 + size, size)
    out = 0
    call MPI_Irecv(in, 5, MPI_INTEGER, previous, 9, MPI_COMM_WORLD, requests(1), ierr)
    call truth_call("MPI_Irecv")
    call MPI_Isend(out, 5, MPI_INTEGER, next, 9, MPI_COMM_WORLD, requests(2), ierr)
    call truth_call("MPI_Isend")
    call truth_send("MPI_Isend", next, 20)
    received = .false.
    do completed = 1, 2
      call MPI_Waitany(2, requests, index, status, ierr)
      call truth_call("MPI_Waitany")
      if (.not. received .and. requests(1) == MPI_REQUEST_NULL) then
        call truth_receive("MPI_Waitany", 20)
        received = .true.
      end if
    end do
  end subroutine

  ! Windows of `messages` nonblocking sends to the next rank, received from
  ! the previous one, each message a different size: one Waitall completes
  ! every receive of a window, another every send.
  subroutine window_phase(messages)
    integer, intent(in) :: messages
    integer :: next, previous, i
    character :: out(128), in(128, 128)
    REQUEST :: receives(128), sends(128)
    next = mod(rank + 1, size)
    previous = mod(rank - 1 + size, size)
    out = ' '
    do i = 1, messages
      call MPI_Irecv(in(1, i), 128, MPI_CHARACTER, previous, 10, MPI_COMM_WORLD, receives(i), ierr)
      call truth_call("MPI_Irecv")
    end do
    do i = 1, messages
      call MPI_Isend(out, i, MPI_CHARACTER, next, 10, MPI_COMM_WORLD, sends(i), ierr)
      call truth_call("MPI_Isend")
      call truth_send("MPI_Isend", next, i)
    end do
    call MPI_Waitall(messages, receives, MPI_STATUSES_IGNORE, ierr)
    call truth_call("MPI_Waitall")
    do i = 1, messages
      call truth_receive("MPI_Waitall", i)
    end do
    call MPI_Waitall(messages, sends, MPI_STATUSES_IGNORE, ierr)
    call truth_call("MPI_Waitall")
  end subroutine

  subroutine collective_phase()
    integer :: value, sum
    value = rank
    call MPI_Bcast(value, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call truth_call("MPI_Bcast")
    call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call truth_call("MPI_Allreduce")
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call truth_call("MPI_Barrier")
  end subroutine

end module exchange_phases

program mpi_exchange_target
  use exchange_phases
  implicit none
  character(len=4096) :: dir

  if (command_argument_count() < 1) stop 2
  call get_command_argument(1, dir)
  call MPI_Init(ierr)
  call truth_call("MPI_Init")
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call truth_call("MPI_Comm_rank")
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call truth_call("MPI_Comm_size")
  if (mod(size, 2) /= 0) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)

  call ring_phase()
  call all_to_all_phase()
  call persistent_phase()
  call sendrecv_phase()
  call subcommunicator_phase()
  call polling_phase()
  call any_phase()
  call window_phase(64)
  call window_phase(100)
  call collective_phase()

  call truth_call("MPI_Finalize")  ! counted before: the truth is written after MPI ends
  call MPI_Finalize(ierr)
  call truth_write(dir, rank, size)

end program mpi_exchange_target
