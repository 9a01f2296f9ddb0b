# lumen_embed_assets(OUTPUT HEADER NAMESPACE FUNCTION ASSET...): compiles the
# files ASSET... (paths under the current source directory) into OUTPUT, a
# source file defining NAMESPACE::FUNCTION() as HEADER declares it: a span of
# lumen::EmbeddedAsset (host/common/embedded_asset.h). er_html and analyzer
# carry their pages so.
function(lumen_embed_assets output header namespace function)
  list(TRANSFORM ARGN PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ OUTPUT_VARIABLE files)
  list(JOIN files "|" argument)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DASSETS=${argument} -DHEADER=${header} -DNAMESPACE=${namespace}
            -DFUNCTION=${function} -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
    COMMENT "Embedding ${namespace}'s assets" VERBATIM)
endfunction()
