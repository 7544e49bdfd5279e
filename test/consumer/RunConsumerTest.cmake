# Driver of the ctest `consumer-project` (cmake -P): installs an fp8c build tree into a fresh
# prefix, configures and builds test/consumer against that prefix alone, and runs the result.
# Inputs (-D): FP8C_BUILD_DIR, CONSUMER_SOURCE_DIR, WORK_DIR, GENERATOR, CXX_COMPILER,
# SANITIZE_FLAGS (empty unless the build is sanitized: the consumer must link the same runtime).
foreach(var FP8C_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunConsumerTest.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step what)
  message(STATUS "consumer-project: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer-project: ${what} failed (${rc})")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("install ${FP8C_BUILD_DIR} into ${prefix}"
  ${CMAKE_COMMAND} --install ${FP8C_BUILD_DIR} --prefix ${prefix})

# The installed package must not point back into the source or build tree.
file(GLOB_RECURSE target_files ${prefix}/*/fp8cTargets*.cmake)
if(NOT target_files)
  message(FATAL_ERROR "consumer-project: no fp8cTargets.cmake under ${prefix}")
endif()
foreach(f ${target_files})
  file(READ ${f} text)
  string(FIND "${text}" "${FP8C_BUILD_DIR}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "consumer-project: ${f} refers to the build tree ${FP8C_BUILD_DIR}")
  endif()
endforeach()
if(NOT EXISTS ${prefix}/bin/fp8c)
  message(FATAL_ERROR "consumer-project: ${prefix}/bin/fp8c was not installed")
endif()

run_step("configure ${CONSUMER_SOURCE_DIR}"
  ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${build} -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
run_step("build" ${CMAKE_COMMAND} --build ${build})
run_step("run" ${build}/fp8c-consumer)
