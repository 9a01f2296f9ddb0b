# lumen_add_plugin(NAME COLLECTOR src... ANALYSIS src...
#                  [COLLECTOR_LIBRARIES lib...] [ANALYSIS_LIBRARIES lib...]
#                  [NO_INSTALL])
#
# Builds a plugin's two halves, the targets lumen_plugin_NAME_collector and
# lumen_plugin_NAME_analysis, as NAME/collector.so and NAME/analysis.so: the
# directory layout collect and er_print look for. The same function builds the
# plugins shipped in lumen's source tree and, installed with lumen's CMake
# package (find_package(lumen)), plugins built out of tree.
#
# Flags every plugin gets, because the loader relies on them:
#   * hidden visibility: only the factory (and interposed functions) are
#     exported, so two plugins' internals never bind to each other;
#   * -Wl,--no-undefined: a missing symbol fails the link, not the target;
#   * no "lib" prefix, output names collector/analysis.
# and, for the SDK's way of writing descriptors (designated initializers
# naming only the fields a plugin sets; the others are NULL by the ABI's
# rule), no warning about the fields left out.
#
# Where the halves go:
#   LUMEN_PLUGIN_OUTPUT_DIR   build directory holding NAME/ (default:
#                             ${CMAKE_BINARY_DIR}/lumen-plugins, a directory
#                             to name in LUMEN_PLUGIN_PATH)
#   LUMEN_PLUGIN_INSTALL_DIR  install destination holding NAME/ (default:
#                             lib/lumen/plugins, where lumen ships its own)
#   LUMEN_SDK_TARGET          the target carrying the SDK headers (set by
#                             lumen's source tree or its package)
# NO_INSTALL leaves the plugin out of `cmake --install` (test fixtures).
function(lumen_add_plugin name)
  cmake_parse_arguments(PLUGIN "NO_INSTALL" "" "COLLECTOR;ANALYSIS;COLLECTOR_LIBRARIES;ANALYSIS_LIBRARIES" ${ARGN})
  if(NOT PLUGIN_COLLECTOR OR NOT PLUGIN_ANALYSIS)
    message(FATAL_ERROR "lumen_add_plugin(${name}): both COLLECTOR and ANALYSIS sources are needed")
  endif()
  if(PLUGIN_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "lumen_add_plugin(${name}): unexpected arguments: ${PLUGIN_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT LUMEN_SDK_TARGET)
    message(FATAL_ERROR "lumen_add_plugin(${name}): LUMEN_SDK_TARGET is not set; use find_package(lumen)")
  endif()
  set(output_dir ${LUMEN_PLUGIN_OUTPUT_DIR})
  if(NOT output_dir)
    set(output_dir ${CMAKE_BINARY_DIR}/lumen-plugins)
  endif()
  set(install_dir ${LUMEN_PLUGIN_INSTALL_DIR})
  if(NOT install_dir)
    set(install_dir lib/lumen/plugins)
  endif()
  foreach(half collector analysis)
    string(TOUPPER ${half} HALF)
    set(target lumen_plugin_${name}_${half})
    add_library(${target} MODULE ${PLUGIN_${HALF}})
    target_link_libraries(${target} PRIVATE ${LUMEN_SDK_TARGET} ${PLUGIN_${HALF}_LIBRARIES})
    set_target_properties(${target} PROPERTIES
      PREFIX "" OUTPUT_NAME ${half}
      LIBRARY_OUTPUT_DIRECTORY ${output_dir}/${name}
      POSITION_INDEPENDENT_CODE ON
      CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>)
    if(NOT PLUGIN_NO_INSTALL)
      install(TARGETS ${target} LIBRARY DESTINATION ${install_dir}/${name})
    endif()
  endforeach()
endfunction()
