# Helpers shared by the layer CMakeLists: a library per layer whose headers live beside its
# sources (included as "ir/Graph.h" from the repository root, or <fp8c/ir/Graph.h> once installed).
# A layer with no .cpp yet becomes an INTERFACE library: still a target, still exported.
function(fp8c_add_layer name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/*/*.cpp)
  file(GLOB hdrs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h ${CMAKE_CURRENT_SOURCE_DIR}/*.def)
  if(srcs)
    add_library(fp8c_${name} ${srcs} ${hdrs})
    set_target_properties(fp8c_${name} PROPERTIES LINKER_LANGUAGE CXX POSITION_INDEPENDENT_CODE ON)
    set(scope PUBLIC)
  else()
    # A layer with headers only: an INTERFACE library, so that the layer's target, its
    # dependency edges and its exported name exist all the same.
    add_library(fp8c_${name} INTERFACE ${hdrs})
    set(scope INTERFACE)
  endif()
  add_library(fp8c::${name} ALIAS fp8c_${name})
  set_target_properties(fp8c_${name} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(fp8c_${name} ${scope}
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/fp8c>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(ARG_DEPS)
    target_link_libraries(fp8c_${name} ${scope} ${ARG_DEPS})
  endif()
  if(srcs)
    # -ffp-contract=off: the interpreter's numerics are normative (one rounding per product and
    # per sum); the compiler must not fuse a*b+c into an FMA behind our back.
    target_compile_options(fp8c_${name} PRIVATE -Wall -Wextra -Wno-unused-parameter -ffp-contract=off)
    if(ARG_PRIVATE_DEPS)
      target_link_libraries(fp8c_${name} PRIVATE ${ARG_PRIVATE_DEPS})
    endif()
  endif()
  install(TARGETS fp8c_${name} EXPORT fp8cTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  if(hdrs)
    install(FILES ${hdrs} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fp8c/${name})
  endif()
endfunction()
