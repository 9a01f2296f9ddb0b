// collect [options] program [args]: runs a program and records an experiment.
#include "collect_command.h"

int main(int argc, char** argv) { return lumen::collect::run_collect({argv + 1, argv + argc}); }
