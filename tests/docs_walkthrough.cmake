# CTest check: a walkthrough of docs/PAGE (network.md unless given) marked `<!-- tested: NAME -->` (each role a process of
# its own over TCP on 127.0.0.1) run as written by bash in a scratch folder, with this build's
# binaries first on PATH: it exits 0 and its output matches every regular expression of EXPECT
# (separated by @@). docs.network_walkthrough: keys, session, two further servers, the shuffler, the
# analyzer and a party process; the analyzer reports an output (a noisy sum: its value is not
# fixed) and the round through all three hops. docs.network_walkthrough_window: a collection round
# whose parties leave with their receipts, each receipt then found in the published commitment.
# docs.websocket_walkthrough (docs/websocket.md): the shuffler with its WebSocket door, which answers
# a plain HTTP request 426, and a round of native parties beside it. docs.survey_walkthrough
# (docs/survey.md): a survey answered by party processes, closed by the organiser's POST.
#   cmake -DNAME=<test> [-DPAGE=<page of docs/>] -DEXPECT=<regexes> -DSOURCE_DIR=<source> -DBIN_DIR=<dir of shufflempc> -DWORK_DIR=<scratch> -P docs_walkthrough.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/support/step.cmake)
set(STEP_NAME ${NAME})
if(NOT PAGE)
  set(PAGE network.md)
endif()
file(READ "${SOURCE_DIR}/docs/${PAGE}" doc)
string(FIND "${doc}" "<!-- tested: ${NAME} -->" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${NAME}: docs/${PAGE} has no block marked for this test")
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
string(REPLACE "@@" ";" expects "${EXPECT}")
foreach(expect IN LISTS expects)
  if(NOT step_output MATCHES "${expect}")
    message(FATAL_ERROR "${NAME}: its output has no line matching '${expect}':\n${step_output}\n${step_error}")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "${NAME}: ran as written")
