# clock_experiment_gen: scales a real clock experiment to millions of events.
# The analysis benchmarks use it, and so does the parallel-analysis test:
# defined by whichever of bench/ and tests/ is read first.
if(NOT TARGET clock_experiment_gen)
  add_executable(clock_experiment_gen ${PROJECT_SOURCE_DIR}/bench/analysis/clock_experiment_gen.cpp)
  target_include_directories(clock_experiment_gen PRIVATE ${PROJECT_SOURCE_DIR})
endif()
