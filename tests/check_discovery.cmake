# CTest check: every doctest case became one ctest test that selects it. A case whose name CMake's
# discovery split (at ';') would show up as several tests that run nothing; this counts both sides.
#   cmake -DTESTS=<shufflempc_tests> -DBUILD_DIR=<build dir> -P check_discovery.cmake
execute_process(COMMAND "${TESTS}" --count OUTPUT_VARIABLE counted RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT counted MATCHES "passing the current filters: ([0-9]+)")
  message(FATAL_ERROR "check_discovery: '${TESTS} --count' failed (${rc}): ${counted}")
endif()
set(cases ${CMAKE_MATCH_1})
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${BUILD_DIR}" --show-only=json-v1
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_discovery: ctest --show-only failed (${rc})")
endif()
string(JSON total LENGTH "${listing}" tests)
set(discovered 0)
math(EXPR last "${total} - 1")
foreach(i RANGE ${last})
  string(JSON command ERROR_VARIABLE no_command GET "${listing}" tests ${i} command 0)
  if(NOT no_command AND command STREQUAL "${TESTS}")
    math(EXPR discovered "${discovered} + 1")
  endif()
endforeach()
if(NOT cases EQUAL discovered)
  message(FATAL_ERROR "check_discovery: ${cases} doctest cases but ${discovered} ctest tests run "
                      "them: a test name with ';' (or another character CMake splits on) was split")
endif()
message(STATUS "check_discovery: ${cases} doctest cases, ${discovered} ctest tests")
