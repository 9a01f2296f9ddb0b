# lumen_add_plugin(NAME COLLECTOR src... ANALYSIS src...
#                  [COLLECTOR_LIBRARIES lib...] [ANALYSIS_LIBRARIES lib...]
#                  [NO_INSTALL])
# lumen_add_plugin(NAME VARIANT V COLLECTOR src... [COLLECTOR_LIBRARIES lib...]
#                  [NO_INSTALL])
#
# Builds a plugin's two halves, the targets lumen_plugin_NAME_collector and
# lumen_plugin_NAME_analysis, as NAME/collector.so and NAME/analysis.so, and
# NAME/manifest.yaml describing them: the directory layout collect and
# er_print look for.
#
# VARIANT builds one more collector half, NAME/collector-V.so (target
# lumen_plugin_NAME_collector_V), for a plugin whose wrapped library differs
# in ABI between implementations (MPI); the plugin lists its variants in
# NAME/collector-variants (docs/architecture.md, "Collector variants").
# Building lumen_plugin_NAME_collector builds its variants too. The same function builds the
# plugins shipped in lumen's source tree and, installed with lumen's CMake
# package (find_package(lumen)), plugins built out of tree.
#
# Flags every plugin gets, because the loader relies on them:
#   * hidden visibility: only the factory (and interposed functions) are
#     exported, so two plugins' internals never bind to each other;
#   * -Wl,--no-undefined: a missing symbol fails the link, not the target;
#   * LumenPluginTls.ld: thread-local data ends aligned, so a detach gives
#     back all of the static TLS an attach took (the script says why);
#   * no "lib" prefix, output names collector/analysis.
#
# Where the halves go:
#   LUMEN_PLUGIN_OUTPUT_DIR   build directory holding NAME/ (default:
#                             ${CMAKE_BINARY_DIR}/lumen-plugins, a directory
#                             to name in LUMEN_PLUGIN_PATH)
#   LUMEN_PLUGIN_INSTALL_DIR  install destination holding NAME/ (default:
#                             lib/lumen/plugins, where lumen ships its own)
#   LUMEN_SDK_TARGET          the target carrying the SDK headers (set by
#                             lumen's source tree or its package)
#   LUMEN_PLUGIN_DESCRIBER    lumen-describe-plugin, which writes the
#                             plugin's manifest.yaml (set likewise)
# NO_INSTALL leaves the plugin out of `cmake --install` (test fixtures).
#
# lumen_plugin_parts(TARGET src...)
#
# Sources that two halves, a half's variants, or a half and its tests share,
# compiled once: an OBJECT library with the compile flags of a half, linked
# into each as COLLECTOR_LIBRARIES or ANALYSIS_LIBRARIES (or
# target_link_libraries). Options a half's own sources get (such as
# -fno-builtin) are the caller's to give its parts too.

# Beside this file, in the source tree and in the installed package.
set(LUMEN_PLUGIN_TLS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/LumenPluginTls.ld)

# The compile flags of a half and of its parts.
function(lumen_plugin_compile_flags target)
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  # Descriptors are written with designated initializers naming only the
  # fields a plugin sets (the others are NULL, by the ABI's rule).
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>)
endfunction()

function(lumen_plugin_parts target)
  if(NOT LUMEN_SDK_TARGET)
    message(FATAL_ERROR "lumen_plugin_parts(${target}): LUMEN_SDK_TARGET is not set; use find_package(lumen)")
  endif()
  add_library(${target} OBJECT ${ARGN})
  lumen_plugin_compile_flags(${target})
  target_link_libraries(${target} PUBLIC ${LUMEN_SDK_TARGET})
endfunction()

# One half: a MODULE with the flags every plugin gets.
function(lumen_plugin_half target output_dir output_name install_dir no_install)
  add_library(${target} MODULE ${ARGN})
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME ${output_name}
    LIBRARY_OUTPUT_DIRECTORY ${output_dir})
  lumen_plugin_compile_flags(${target})
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,-T,${LUMEN_PLUGIN_TLS_SCRIPT})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${LUMEN_PLUGIN_TLS_SCRIPT})
  if(NOT no_install)
    install(TARGETS ${target} LIBRARY DESTINATION ${install_dir})
  endif()
endfunction()

function(lumen_add_plugin name)
  cmake_parse_arguments(PLUGIN "NO_INSTALL" "VARIANT" "COLLECTOR;ANALYSIS;COLLECTOR_LIBRARIES;ANALYSIS_LIBRARIES" ${ARGN})
  if(NOT PLUGIN_COLLECTOR OR (NOT PLUGIN_ANALYSIS AND NOT PLUGIN_VARIANT))
    message(FATAL_ERROR "lumen_add_plugin(${name}): both COLLECTOR and ANALYSIS sources are needed (a VARIANT: COLLECTOR)")
  endif()
  if(PLUGIN_VARIANT AND (PLUGIN_ANALYSIS OR PLUGIN_ANALYSIS_LIBRARIES))
    message(FATAL_ERROR "lumen_add_plugin(${name} VARIANT ${PLUGIN_VARIANT}): a variant is a collector half only")
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
  if(PLUGIN_VARIANT)
    set(target lumen_plugin_${name}_collector_${PLUGIN_VARIANT})
    lumen_plugin_half(${target} ${output_dir}/${name} collector-${PLUGIN_VARIANT} ${install_dir}/${name}
      "${PLUGIN_NO_INSTALL}" ${PLUGIN_COLLECTOR})
    target_link_libraries(${target} PRIVATE ${LUMEN_SDK_TARGET} ${PLUGIN_COLLECTOR_LIBRARIES})
    if(TARGET lumen_plugin_${name}_collector)
      add_dependencies(lumen_plugin_${name}_collector ${target})
    endif()
    return()
  endif()
  foreach(half collector analysis)
    string(TOUPPER ${half} HALF)
    set(target lumen_plugin_${name}_${half})
    lumen_plugin_half(${target} ${output_dir}/${name} ${half} ${install_dir}/${name} "${PLUGIN_NO_INSTALL}"
      ${PLUGIN_${HALF}})
    target_link_libraries(${target} PRIVATE ${LUMEN_SDK_TARGET} ${PLUGIN_${HALF}_LIBRARIES})
  endforeach()
  lumen_plugin_manifest(${name} ${output_dir}/${name} ${install_dir}/${name} "${PLUGIN_NO_INSTALL}")
endfunction()

# NAME/manifest.yaml, written from the built halves' descriptors by
# lumen-describe-plugin (LUMEN_PLUGIN_DESCRIBER: the target in lumen's tree,
# the installed program in its package) whenever either half is rebuilt, so
# it always says what they say. Target: lumen_plugin_NAME_manifest.
function(lumen_plugin_manifest name directory install_dir no_install)
  if(NOT LUMEN_PLUGIN_DESCRIBER)
    message(FATAL_ERROR "lumen_add_plugin(${name}): LUMEN_PLUGIN_DESCRIBER is not set; use find_package(lumen)")
  endif()
  set(manifest ${directory}/manifest.yaml)
  add_custom_command(OUTPUT ${manifest}
    COMMAND ${LUMEN_PLUGIN_DESCRIBER} ${directory}
    DEPENDS lumen_plugin_${name}_collector lumen_plugin_${name}_analysis
    COMMENT "Describing plugin ${name} in ${manifest}"
    VERBATIM)
  add_custom_target(lumen_plugin_${name}_manifest ALL DEPENDS ${manifest})
  if(NOT no_install)
    install(FILES ${manifest} DESTINATION ${install_dir})
  endif()
endfunction()
