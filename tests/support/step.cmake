# step(WHAT COMMAND...) for the tests that are CMake scripts (cmake -P): runs COMMAND in STEP_DIR
# (the current folder if unset), stops the script with one error naming WHAT, the exit code and both
# outputs if it fails, and leaves its standard output in step_output and its error in step_error.
# STEP_NAME prefixes the error (the script's name). An argument with ';' in it is split as a list:
# write code for `python -c` with line breaks instead.
function(step what)
  if(STEP_DIR)
    set(dir WORKING_DIRECTORY "${STEP_DIR}")
  endif()
  execute_process(COMMAND ${ARGN} ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${STEP_NAME}: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
  set(step_error "${err}" PARENT_SCOPE)
endfunction()
