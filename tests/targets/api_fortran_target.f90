! The collector API from Fortran: a sample point named with a blank-padded
! CHARACTER argument, pause and resume around work, and the end of the
! experiment before a last sample point that must not be recorded.
program api_fortran_target
  implicit none
  character(len=24) :: label
  real(8) :: x
  integer :: i
  label = 'fortran sample'
  call collector_sample(label)
  call collector_pause()
  x = 0
  do i = 1, 1000000
    x = x + sqrt(real(i, 8))
  end do
  call collector_resume()
  call collector_sample('second')
  call collector_terminate_expt()
  call collector_sample('after terminate')
  if (x > 0) print '(a)', 'api_fortran_target done'
end program api_fortran_target
