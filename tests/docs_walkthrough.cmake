# CTest check: the walkthrough of docs/network.md marked `<!-- tested: docs.network_walkthrough -->`
# (keys, session, two further servers, the shuffler, the analyzer and a party process, each a
# process of its own over TCP on 127.0.0.1) run as written by bash in a scratch folder, with this
# build's binaries first on PATH: it exits 0 and the analyzer reports an output (a noisy sum: its value
# is not fixed) and the round through all three hops.
#   cmake -DSOURCE_DIR=<source> -DBIN_DIR=<dir of shufflempc> -DWORK_DIR=<scratch> -P docs_walkthrough.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/support/step.cmake)
set(STEP_NAME network_walkthrough)
file(READ "${SOURCE_DIR}/docs/network.md" doc)
string(FIND "${doc}" "<!-- tested: docs.network_walkthrough -->" at)
if(at EQUAL -1)
  message(FATAL_ERROR "network_walkthrough: docs/network.md has no block marked for this test")
endif()
string(SUBSTRING "${doc}" ${at} -1 rest)
string(FIND "${rest}" "```sh\n" open)
math(EXPR open "${open} + 6")
string(SUBSTRING "${rest}" ${open} -1 rest)
string(FIND "${rest}" "\n```" close)
string(SUBSTRING "${rest}" 0 ${close} script)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/walkthrough.sh" "${script}\n")
set(STEP_DIR "${WORK_DIR}")
step("the walkthrough" ${CMAKE_COMMAND} -E env "PATH=${BIN_DIR}:$ENV{PATH}" bash "${WORK_DIR}/walkthrough.sh")
if(NOT step_output MATCHES "output +-?[0-9]" OR NOT step_output MATCHES "round 0 hop 2: 3 records in, 3 out")
  message(FATAL_ERROR "network_walkthrough: the analyzer did not report the round through the chain:\n${step_output}\n${step_error}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "network_walkthrough: ran as written")
