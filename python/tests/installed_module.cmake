# CTest check: the Python package after `cmake --install` into a scratch prefix imports from there
# (not from the build tree) and runs a protocol.
#   cmake -DBUILD_DIR=<build> -DPYTHON=<python3> -DPACKAGE_DIR=<dir under the prefix> -P installed_module.cmake
cmake_minimum_required(VERSION 3.25)
set(prefix "${BUILD_DIR}/python-install-test")
file(REMOVE_RECURSE "${prefix}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed_module: cmake --install failed (${rc}): ${err}")
endif()
set(site "${prefix}/${PACKAGE_DIR}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${site}" --unset=SHUFFLEMPC_BIN
          ${PYTHON} -c "import shufflempc; print(shufflempc.__file__); print(shufflempc.run('counting', parties=2000, seed=1)['parties'])"
  WORKING_DIRECTORY "${prefix}"  # not the build tree's python/, which holds the package too
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed_module: importing the installed package failed (${rc}): ${err}")
endif()
if(NOT out MATCHES "^${site}/shufflempc/__init__.py\n2000\n$")
  message(FATAL_ERROR "installed_module: expected the package from ${site} and a run of 2000 parties, got:\n${out}")
endif()
file(REMOVE_RECURSE "${prefix}")
message(STATUS "installed_module: imported from ${site} and ran a protocol")
