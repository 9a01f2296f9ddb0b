# What `cmake --install` puts under the prefix, in the layout the commands
# expect relative to themselves (host/common/install_layout.h):
#   bin/                      the commands (lumen_install_command)
#   lib/lumen/                liblumen_collector.so
#   lib/, include/            libcollectorAPI.so.1 and collectorAPI.h, for
#                             programs (core/api)
#   lib/lumen/plugins/NAME/   the shipped plugins (lumen_add_plugin)
#   share/lumen/profiles/     the shipped profiles
#   include/lumen/            the SDK headers
#   lib/cmake/lumen/          the CMake package for out-of-tree plugins
#   share/man/man1/           the manual pages (docs/man)
#   share/bash-completion/completions/   completion of collect and er_print
# Each rule is in the install component runtime (the Debian package lumen,
# cmake/LumenPackaging.cmake) unless it names dev (lumen-dev: the headers,
# the CMake package, lumen-describe-plugin).

# Installs one command into bin/. Each command's CMakeLists calls it.
function(lumen_install_command target)
  install(TARGETS ${target} RUNTIME DESTINATION bin)
endfunction()

# The headers, the profiles and the CMake package (lumenConfig.cmake and its
# version file, LumenPlugin.cmake). Called once from the top level.
function(lumen_install_sdk)
  include(CMakePackageConfigHelpers)
  set(package_dir lib/cmake/lumen)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/lumen DESTINATION include COMPONENT dev
    FILES_MATCHING PATTERN "*.h")
  install(DIRECTORY ${LUMEN_PROFILE_DIR}/ DESTINATION share/lumen/profiles COMPONENT runtime
    FILES_MATCHING PATTERN "*.yaml")
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lumenConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/lumenConfig.cmake
    INSTALL_DESTINATION ${package_dir})
  # The plugin ABI is checked when a plugin loads; the package version only
  # keeps a plugin from building against another major version's headers.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/lumenConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/cmake/lumenConfig.cmake
    ${PROJECT_BINARY_DIR}/cmake/lumenConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/LumenPlugin.cmake
    ${PROJECT_SOURCE_DIR}/cmake/LumenPluginTls.ld
    DESTINATION ${package_dir} COMPONENT dev)
endfunction()

# The manual pages, and bash completion under each command's name (where
# bash-completion looks for it on first use). Called once from the top level.
function(lumen_install_docs)
  file(GLOB pages ${PROJECT_SOURCE_DIR}/docs/man/*.1)
  install(FILES ${pages} DESTINATION share/man/man1)
  foreach(command collect er_print er_archive er_rm er_mv er_cp er_otf2)
    install(FILES ${PROJECT_SOURCE_DIR}/host/completion/lumen.bash
      DESTINATION share/bash-completion/completions RENAME ${command})
  endforeach()
endfunction()
