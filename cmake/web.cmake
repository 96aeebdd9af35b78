# The browser's build (web/): the party side compiled to WebAssembly by Emscripten (Debian's
# `emscripten`) against libsodium built from Debian's source of the native build's version
# (scripts/web-deps.sh prints its path; scripts/setup.sh passes it as SHUFFLEMPC_SODIUM_SOURCE). It
# is a project of its own, configured with emcmake under this build as build/web/ and built with
# the programs: build/web/shufflempc-party.mjs and .wasm. Its tests run in Node.js (tests/web/).
set(SHUFFLEMPC_SODIUM_SOURCE "" CACHE PATH "libsodium's source tree for the browser's build (bash scripts/web-deps.sh prints it)")
find_program(SHUFFLEMPC_EMCMAKE emcmake)
find_program(SHUFFLEMPC_NODE node)
set(web_default OFF)
if(is_top_level AND SHUFFLEMPC_EMCMAKE AND SHUFFLEMPC_NODE AND SHUFFLEMPC_SODIUM_SOURCE AND NOT SHUFFLEMPC_SANITIZE AND NOT SHUFFLEMPC_FUZZ)
  set(web_default ON)
endif()
option(SHUFFLEMPC_WEB "Build the party side for browsers (web/, Emscripten) and its tests" ${web_default})
if(SHUFFLEMPC_WEB)
  if(NOT SHUFFLEMPC_EMCMAKE OR NOT SHUFFLEMPC_NODE OR NOT SHUFFLEMPC_SODIUM_SOURCE)
    message(FATAL_ERROR "SHUFFLEMPC_WEB needs emcmake (Debian's emscripten), node and SHUFFLEMPC_SODIUM_SOURCE "
                        "(bash scripts/web-deps.sh prints it); bash scripts/setup.sh installs and passes all three")
  endif()
  include(ExternalProject)
  cmake_host_system_information(RESULT web_jobs QUERY NUMBER_OF_LOGICAL_CORES)
  # Emscripten's optimizer runs in Node.js with Debian's acorn, which a Node.js from elsewhere does
  # not look for in /usr/share/nodejs.
  set(web_env ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
  ExternalProject_Add(shufflempc_web
    SOURCE_DIR ${PROJECT_SOURCE_DIR}/web
    BINARY_DIR ${CMAKE_BINARY_DIR}/web
    CONFIGURE_COMMAND ${web_env} ${SHUFFLEMPC_EMCMAKE} ${CMAKE_COMMAND} -S <SOURCE_DIR> -B <BINARY_DIR>
                      -DSHUFFLEMPC_SODIUM_SOURCE=${SHUFFLEMPC_SODIUM_SOURCE} -DCMAKE_BUILD_TYPE=Release
                      # The protocols that say BROWSER (written by protocols/CMakeLists.txt).
                      -DSHUFFLEMPC_BROWSER_PROTOCOLS=${CMAKE_BINARY_DIR}/browser_protocols.cmake
    # Its own parallel build: the outer build's job server does not reach through.
    BUILD_COMMAND ${web_env} ${CMAKE_COMMAND} --build <BINARY_DIR> --parallel ${web_jobs}
    INSTALL_COMMAND ""
    # Its sources are this tree's: its own build decides what changed.
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)
  set(SHUFFLEMPC_WEB_MODULE ${CMAKE_BINARY_DIR}/web/shufflempc-party.mjs)
endif()
