! A Fortran OpenMP program for the OpenMP plugin's tests: three parallel
! regions of two threads at one call site, in a subroutine; in each, thread 0
! works about 0.05 s and thread 1 about 0.15 s of wall time (omp_get_wtime).
! Writes the regions' count and the summed imbalance of their tasks' wall
! times (longest less mean) to the file named by LUMEN_TEST_TRUTH.
module work_module
  use omp_lib
  implicit none
  double precision :: task_wall(0:1)
contains
  subroutine spin_for(seconds)
    double precision, intent(in) :: seconds
    double precision :: until, x
    until = omp_get_wtime() + seconds
    x = 1.0d0
    do while (omp_get_wtime() < until)
      x = x * 1.0000001d0 + 1.0d-9
    end do
    if (x < 0) print *, x
  end subroutine spin_for

  subroutine imbalanced_regions(rounds, imbalance)
    integer, intent(in) :: rounds
    double precision, intent(out) :: imbalance
    integer :: round, t
    double precision :: begin
    imbalance = 0
    do round = 1, rounds
      !$omp parallel num_threads(2) private(t, begin)
      t = omp_get_thread_num()
      begin = omp_get_wtime()
      call spin_for(0.05d0 + 0.1d0 * t)
      task_wall(t) = omp_get_wtime() - begin
      !$omp end parallel
      imbalance = imbalance + maxval(task_wall) - sum(task_wall) / 2
    end do
  end subroutine imbalanced_regions
end module work_module

program omp_fortran_target
  use work_module
  implicit none
  integer, parameter :: rounds = 3
  double precision :: imbalance
  character(len=4096) :: path
  integer :: length, status
  call imbalanced_regions(rounds, imbalance)
  call get_environment_variable("LUMEN_TEST_TRUTH", path, length, status)
  if (status /= 0) stop
  open(unit=10, file=path(1:length), status="replace", action="write")
  write(10, '(A,I0,A,F12.9,A)') '{"regions": ', rounds, ', "imbalance": ', imbalance, '}'
  close(10)
end program omp_fortran_target
