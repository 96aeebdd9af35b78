# CTest check: every command of the README's command-line tour (the lines of its code blocks that
# start with build/bin/shufflempc), run as written, in order, in a scratch folder, with this build's
# binary: each exits 0, and none prints an infeasible row (a study cell the defaults cannot run) or
# an error line.
#   cmake -DSOURCE_DIR=<source> -DCLI=<shufflempc> -DWORK_DIR=<scratch> -P readme_commands.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/support/step.cmake)
set(STEP_NAME readme_commands)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(STEP_DIR "${WORK_DIR}")
file(STRINGS "${SOURCE_DIR}/README.md" lines REGEX "^build/bin/shufflempc ")
list(LENGTH lines count)
if(count LESS 15)
  message(FATAL_ERROR "readme_commands: only ${count} commands found in README.md")
endif()
foreach(line IN LISTS lines)
  string(REGEX REPLACE "  +#.*$" "" command "${line}")  # the comment after the command
  string(REGEX REPLACE "^build/bin/shufflempc " "" args "${command}")
  separate_arguments(args UNIX_COMMAND "${args}")
  string(TIMESTAMP start "%s")
  step("`${command}`" ${CMAKE_COMMAND} -E env MPLBACKEND=Agg "${CLI}" ${args})
  string(TIMESTAMP end "%s")
  math(EXPR took "${end} - ${start}")
  string(TOLOWER "${step_output}\n${step_error}" said)
  if(said MATCHES "infeasible" OR step_output MATCHES ",false,\"")
    message(FATAL_ERROR "readme_commands: `${command}` printed an infeasible row:\n${step_output}")
  endif()
  if(step_error MATCHES "(^|\n)shufflempc[^\n]*: error")
    message(FATAL_ERROR "readme_commands: `${command}` printed an error:\n${step_error}")
  endif()
  message(STATUS "readme_commands: ${took} s  ${command}")
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
