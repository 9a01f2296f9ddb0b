# lumen_add_plugin(NAME COLLECTOR src... ANALYSIS src... [LIBRARIES lib...])
#
# Builds a plugin's two halves as <plugin dir>/NAME/collector.so and
# <plugin dir>/NAME/analysis.so, where collect and er_print look for them.
function(lumen_add_plugin name)
  cmake_parse_arguments(PLUGIN "" "" "COLLECTOR;ANALYSIS;COLLECTOR_LIBRARIES;ANALYSIS_LIBRARIES" ${ARGN})
  foreach(half collector analysis)
    string(TOUPPER ${half} HALF)
    set(target lumen_plugin_${name}_${half})
    add_library(${target} MODULE ${PLUGIN_${HALF}})
    target_link_libraries(${target} PRIVATE lumen_sdk_headers ${PLUGIN_${HALF}_LIBRARIES})
    set_target_properties(${target} PROPERTIES
      PREFIX "" OUTPUT_NAME ${half}
      LIBRARY_OUTPUT_DIRECTORY ${LUMEN_PLUGIN_DIR}/${name}
      CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endforeach()
endfunction()
