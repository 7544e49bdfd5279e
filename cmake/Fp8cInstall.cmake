# Install rules and the exported CMake package, so that an outside project can write
#
#   find_package(fp8c REQUIRED)
#   target_link_libraries(app PRIVATE fp8c::driver)   # compile() and run(); fp8c::training for steps
#
# Layout under the prefix: lib/ (one static library per layer), include/fp8c/<layer>/ (headers,
# included as "ir/Graph.h"), bin/fp8c, lib/cmake/fp8c/ (this package). Each layer adds itself to
# the export set `fp8cTargets` in fp8c_add_layer (cmake/Fp8cHelpers.cmake); the fp8c tool adds
# itself in tools/fp8c/CMakeLists.txt (imported as fp8c::fp8c). test/consumer proves the result.
include(CMakePackageConfigHelpers)

set(FP8C_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/fp8c)

install(EXPORT fp8cTargets
  NAMESPACE fp8c::
  FILE fp8cTargets.cmake
  DESTINATION ${FP8C_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/fp8cConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fp8cConfig.cmake
  INSTALL_DESTINATION ${FP8C_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/fp8cConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/fp8cConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/fp8cConfigVersion.cmake
  DESTINATION ${FP8C_INSTALL_CMAKEDIR})
