# Debian packages of an install with prefix /usr, made by `cpack -G DEB` in
# the build directory (tools/package-test.sh installs them on a fresh Debian
# 12 and uses them):
#
#   lumen_<version>_amd64.deb      component runtime: the commands, the
#                                  runtime, the plugins, the profiles, the
#                                  manual pages, bash completion
#   lumen-dev_<version>_amd64.deb  component dev: the SDK headers, the CMake
#                                  package and lumen-describe-plugin, for
#                                  plugins built out of tree
#
# The version is the project's (project(lumen VERSION ...)). Included from
# the top level before any install rule: an install rule naming no
# component is the runtime's.
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME runtime)

set(CPACK_PACKAGE_NAME lumen)
set(CPACK_PACKAGE_VENDOR "lumen maintainers")
set(CPACK_PACKAGE_CONTACT "lumen maintainers <maintainers@users.noreply.a-seed-90466a0b.example>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Under /usr whatever CMAKE_INSTALL_PREFIX says: the commands find the rest
# relative to themselves, and lumenConfig.cmake its prefix relative to itself.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL runtime dev)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPACK_PACKAGE_CONTACT})
# dpkg-shlibdeps names the libraries' packages. The commands, the runtime
# and the plugins link no library of lumen's own (the runtime and the
# plugins are preloaded or opened by path), so every library it looks up is
# a system one.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME lumen)
# Each description: its first line the summary, then paragraphs (CPack
# indents them as Debian's control file wants).
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "performance collector and analyzer for Linux
collect runs a program and records an experiment; er_print turns it into
metrics on program structure: functions with exclusive, inclusive and
attributed metrics, callers and callees, load objects, as text, CSV or
JSON. Each data type (clock profiling, heap, I/O, synchronization,
hardware counters, MPI, OpenMP, Java) is a plugin chosen by a profile.

This package holds the commands (collect, er_print, er_html, analyzer, er_archive,
er_rm, er_mv, er_cp and er_otf2), the collector runtime, the plugins, the
profiles, the manual pages and bash completion.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME lumen-dev)
# lumenConfig.cmake finds no other package: the SDK is headers needing only
# the C and C++ libraries, and lumen_add_plugin needs CMake and a compiler.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "lumen (= ${PROJECT_VERSION}), cmake (>= 3.25)")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "g++")
set(CPACK_DEBIAN_DEV_DESCRIPTION "performance collector and analyzer for Linux: plugin SDK
The headers of lumen's plugin interface, the CMake package
(find_package(lumen) and lumen_add_plugin) and lumen-describe-plugin,
which writes a plugin's manifest, for building plugins outside lumen's
source tree.")

include(CPack)
cpack_add_component(runtime DISPLAY_NAME "Commands, runtime and plugins")
cpack_add_component(dev DISPLAY_NAME "Plugin SDK" DEPENDS runtime)
