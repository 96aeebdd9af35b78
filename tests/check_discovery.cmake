# CTest check: every doctest case became one ctest test that selects it. A case whose name CMake's
# discovery split (at ';') would show up as several tests that run nothing; this counts both sides.
#   cmake -DTESTS=<shufflempc_tests> -DBUILD_DIR=<build dir> -P check_discovery.cmake
cmake_minimum_required(VERSION 3.20)  # IN_LIST below
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
# Each ctest test selects its case by name, and doctest reads a name as a pattern: a name with
# '*' or '?', or two cases with one name, would select several cases (one of them run twice, under
# another's test). A '[' or ']' changes how CMake splits a list (and so the discovery itself).
execute_process(COMMAND "${TESTS}" --list-test-cases --no-version OUTPUT_VARIABLE names RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_discovery: '${TESTS} --list-test-cases' failed (${rc})")
endif()
string(REPLACE ";" "," names "${names}")  # a ';' would split the list below; the count check above catches it
string(REPLACE "\n" ";" lines "${names}")
set(seen "")
foreach(line IN LISTS lines)
  if(line MATCHES "^\\[doctest\\]" OR line MATCHES "^=+$" OR line STREQUAL "")
    continue()
  endif()
  if(line MATCHES "[*?]")
    message(FATAL_ERROR "check_discovery: the case '${line}' has a '*' or '?', which doctest reads as a wildcard")
  endif()
  if(line MATCHES "[][]")
    message(FATAL_ERROR "check_discovery: the case '${line}' has a '[' or ']', which changes how CMake splits its lists")
  endif()
  string(TOLOWER "${line}" key)  # doctest matches names without regard to case
  if(key IN_LIST seen)
    message(FATAL_ERROR "check_discovery: two cases are named '${line}'; one ctest test would run both")
  endif()
  list(APPEND seen "${key}")
endforeach()
list(LENGTH seen named)
if(NOT named EQUAL cases)
  message(FATAL_ERROR "check_discovery: ${named} names listed for ${cases} cases")
endif()
message(STATUS "check_discovery: ${cases} doctest cases, ${discovered} ctest tests, each name unique and literal")
