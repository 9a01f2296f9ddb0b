// libunwind checks that an address is readable before it follows a frame
// chain by writing one byte of it into a pipe of its own (write answers
// EFAULT where it is not). That pipe would be two descriptors in the
// program's table, at numbers the program could have had. Instead
// libunwind's read and write calls are redirected here, and the pipe it
// asks for (pipe2 while the runtime unwinds) is two numbers no descriptor
// can have: a write "to" it reads the byte with process_vm_readv, which
// answers EFAULT the same way, and a read finds it empty, as the real pipe
// always is.
#pragma once

namespace lumen::collector {

// Not signal-safe. Redirects libunwind's read and write (its loaded
// objects' call slots); true when both were.
bool emulate_unwinder_validation_pipe();

// [signal-safe] Whether libunwind's pipe is emulated: pipe2 while the
// runtime unwinds then answers with `fake_validation_pipe`.
bool unwinder_validation_pipe_emulated();
void fake_validation_pipe(int fds[2]);

}  // namespace lumen::collector
