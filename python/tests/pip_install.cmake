# CTest check: `pip install .` into a fresh venv (offline: --no-index; the in-tree PEP 517 backend
# needs nothing from the index), the package imported from the venv (not the build tree) and the
# Python-protocol tests run there; and, where python3-build is installed, `python3 -m build --wheel`
# makes the wheel for this interpreter. SHUFFLEMPC_BUILD_DIR is this build, so nothing compiles again.
# First, an interpreter without numpy (a venv that does not see Debian's packages, as a venv of pyenv's,
# conda's or uv's python): the install stops in seconds, before compiling, with the line saying what to do.
#   cmake -DBUILD_DIR=<build> -DSOURCE_DIR=<source> -DPYTHON=<python3> -P pip_install.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../../tests/support/step.cmake)
set(STEP_NAME pip_install)


set(work "${BUILD_DIR}/pip-install-test")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")
# In the scratch folder: not the build tree's python/, whose shufflempc/ the current folder would shadow.
set(STEP_DIR "${work}")
set(bare "${work}/bare")
step("make a venv without the system's packages" ${PYTHON} -m venv "${bare}")
string(TIMESTAMP started "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=SHUFFLEMPC_FETCH_NUMPY "SHUFFLEMPC_BUILD_DIR=${work}/never"
                        "${bare}/bin/pip" install --no-index --no-cache-dir "${SOURCE_DIR}"
                WORKING_DIRECTORY "${work}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${started}")
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "shufflempc build: [^\n]*/bare/bin/python3? \\(Python 3\\.[0-9]+\\) has no numpy, which shufflempc requires, and nothing is compiled until it has: [^\n]*--system-site-packages")
  message(FATAL_ERROR "pip_install: in a venv without numpy, pip install should stop with the line naming the interpreter "
                      "and what to do; it exited ${rc}:\n${out}\n${err}")
endif()
if(EXISTS "${work}/never" OR took GREATER 60)
  message(FATAL_ERROR "pip_install: without numpy the install compiled (${work}/never exists) or took ${took} s (at most 60)")
endif()
set(venv "${work}/venv")
# --system-site-packages: the venv sees Debian's numpy and pytest (offline, nothing to download).
step("make a venv" ${PYTHON} -m venv --system-site-packages "${venv}")
step("pip install ." ${CMAKE_COMMAND} -E env "SHUFFLEMPC_BUILD_DIR=${BUILD_DIR}" --unset=PYTHONPATH
     "${venv}/bin/pip" install --no-index --no-cache-dir "${SOURCE_DIR}")
step("import from the venv" ${CMAKE_COMMAND} -E env --unset=PYTHONPATH
     "${venv}/bin/python" -c "import shufflempc\nprint(shufflempc.__file__)\nprint(shufflempc.run('counting', parties=2000, seed=1)['parties'])")
if(NOT step_output MATCHES "^${venv}/lib/python[0-9.]+/site-packages/shufflempc/__init__.py\n2000\n$")
  message(FATAL_ERROR "pip_install: expected the package from the venv and a run of 2000 parties, got:\n${step_output}")
endif()
step("python -m shufflempc in the venv" ${CMAKE_COMMAND} -E env --unset=PYTHONPATH "${venv}/bin/python" -m shufflempc --parties 2000)
if(NOT step_output MATCHES "counting bits \\(one round\\) +[0-9.]+ +[0-9]+ +4000 .*6 of 6 pairs agree")
  message(FATAL_ERROR "pip_install: python -m shufflempc should run the demo, a count of 2000 parties first:\n${step_output}")
endif()
step("the Python-protocol tests in the venv" ${CMAKE_COMMAND} -E env --unset=PYTHONPATH
     "${venv}/bin/python" -m pytest -q -p no:cacheprovider "${SOURCE_DIR}/python/tests/test_python_protocol.py")
execute_process(COMMAND ${PYTHON} -c "import build" RESULT_VARIABLE has_build OUTPUT_QUIET ERROR_QUIET)
if(has_build EQUAL 0)
  step("python3 -m build --wheel" ${CMAKE_COMMAND} -E env "SHUFFLEMPC_BUILD_DIR=${BUILD_DIR}"
       ${PYTHON} -m build --wheel --no-isolation --outdir "${work}/dist" "${SOURCE_DIR}")
  file(GLOB wheels "${work}/dist/shufflempc-*-cp3*-linux_*.whl")
  if(NOT wheels)
    message(FATAL_ERROR "pip_install: python3 -m build made no wheel for this interpreter:\n${step_output}")
  endif()
endif()
file(REMOVE_RECURSE "${work}")
message(STATUS "pip_install: installed into a venv, imported from there, its tests pass")
