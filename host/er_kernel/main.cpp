// er_kernel [options] [-- command args]: profiles every CPU, the kernel's
// code and the processes', into an experiment.
#include "kernel_command.h"

int main(int argc, char** argv) { return lumen::kernel::run_er_kernel({argv + 1, argv + argc}); }
