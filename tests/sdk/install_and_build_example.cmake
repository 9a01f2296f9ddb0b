# Installs the build in BUILD_DIR into a fresh PREFIX, then configures and
# builds the out-of-tree example in EXAMPLE_DIR against that prefix only
# (no package registry, no source tree), into EXAMPLE_BUILD_DIR. With
# HEADERS (a directory holding lumen/*.h), the prefix's SDK headers are
# replaced by those first: the example is built as a plugin author who has
# an older SDK would build it.
foreach(variable BUILD_DIR PREFIX EXAMPLE_DIR EXAMPLE_BUILD_DIR)
  if(NOT ${variable})
    message(FATAL_ERROR "install_and_build_example.cmake needs -D${variable}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${output}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PREFIX} ${EXAMPLE_BUILD_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
if(HEADERS)
  file(REMOVE_RECURSE ${PREFIX}/include/lumen)
  file(COPY ${HEADERS}/lumen DESTINATION ${PREFIX}/include)
endif()
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${EXAMPLE_BUILD_DIR}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo)
run(${CMAKE_COMMAND} --build ${EXAMPLE_BUILD_DIR} -j2)

# The example must have found lumen in the prefix, nowhere else.
file(STRINGS ${EXAMPLE_BUILD_DIR}/CMakeCache.txt found REGEX "^lumen_DIR:")
if(NOT found STREQUAL "lumen_DIR:PATH=${PREFIX}/lib/cmake/lumen")
  message(FATAL_ERROR "the example found lumen elsewhere: ${found}")
endif()
message(STATUS "installed into ${PREFIX}; example built in ${EXAMPLE_BUILD_DIR}")
