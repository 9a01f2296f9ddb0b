! A Fortran module procedure: kernels' smooth (gfortran's symbol
! __kernels_MOD_smooth) computes until the process has used a given amount
! of CPU time, and the time it measured goes as JSON,
! {"functions": {"kernels::smooth": SECONDS}}, to the file LUMEN_TEST_TRUTH
! names.
module kernels
  implicit none
contains
  subroutine smooth(seconds, spent)
    real(8), intent(in) :: seconds
    real(8), intent(out) :: spent
    real(8) :: start, now, x
    integer :: i
    call cpu_time(start)
    now = start
    x = 1.0d0
    do while (now - start < seconds)
      do i = 1, 20000
        x = x * 1.0000001d0 + 1.0d-9
      end do
      call cpu_time(now)
    end do
    spent = now - start
    if (x < 0) print *, x
  end subroutine smooth
end module kernels

program fortran_module_target
  use kernels
  implicit none
  real(8) :: spent
  character(len=4096) :: path
  integer :: length, status
  call smooth(0.5d0, spent)
  call get_environment_variable("LUMEN_TEST_TRUTH", path, length, status)
  if (status == 0) then
    open(unit=10, file=path(1:length), status="replace", action="write")
    write(10, '(a, f12.6, a)') '{"functions": {"kernels::smooth": ', spent, '}}'
    close(10)
  end if
  print '(a)', 'fortran_module_target done'
end program fortran_module_target
