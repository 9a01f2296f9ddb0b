! What a Fortran MPI test target knows of its own MPI calls: mpi_truth.h's
! account (per MPI function the calls, sends, receives and their bytes; per
! destination the messages and bytes sent), kept by mpi_truth_fortran.c.
module mpi_truth
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: truth_call, truth_send, truth_receive, truth_write

  interface
    subroutine lumen_truth_call(name) bind(C)
      import :: c_char
      character(kind=c_char), intent(in) :: name(*)
    end subroutine
    subroutine lumen_truth_send(name, to, bytes) bind(C)
      import :: c_char, c_int, c_long_long
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: to
      integer(c_long_long), value :: bytes
    end subroutine
    subroutine lumen_truth_receive(name, bytes) bind(C)
      import :: c_char, c_long_long
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long), value :: bytes
    end subroutine
    subroutine lumen_truth_write(dir, rank, size) bind(C)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: dir(*)
      integer(c_int), value :: rank, size
    end subroutine
  end interface

contains

  ! One call of `name`, after it returned; its messages follow.
  subroutine truth_call(name)
    character(*), intent(in) :: name
    call lumen_truth_call(name // c_null_char)
  end subroutine

  ! A send `name` started to world rank `to`.
  subroutine truth_send(name, to, bytes)
    character(*), intent(in) :: name
    integer, intent(in) :: to, bytes
    call lumen_truth_send(name // c_null_char, int(to, c_int), int(bytes, c_long_long))
  end subroutine

  ! A receive `name` completed.
  subroutine truth_receive(name, bytes)
    character(*), intent(in) :: name
    integer, intent(in) :: bytes
    call lumen_truth_receive(name // c_null_char, int(bytes, c_long_long))
  end subroutine

  ! DIR/rank<N>.json, written whole or not at all.
  subroutine truth_write(dir, rank, size)
    character(*), intent(in) :: dir
    integer, intent(in) :: rank, size
    call lumen_truth_write(trim(dir) // c_null_char, int(rank, c_int), int(size, c_int))
  end subroutine

end module mpi_truth
