# CTest check: a protocol built outside the tree (examples/external_protocol) against the installed
# package reaches the command line: installed with `cmake --install`, found with find_package (and
# from the build tree, uninstalled), linked
# with shufflempc::cli, listed by `list`, refused with the parameter's range in lines that name the binary, and run by `local` in
# real processes over TCP on loopback (shuffler, analyzer and parties all started from that binary)
# with the exact tally, and by `study`; the installed pkg-config file builds a program of its own.
#   cmake -DBUILD_DIR=<shufflempc build> -DSOURCE_DIR=<source> -DWORK_DIR=<scratch> -DCXX=<compiler>
#         [-DLAUNCHER=<ccache>] [-DBUILD_TYPE=<type>] [-DSANITIZE=ON] -P external_protocol.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/../support/step.cmake)
set(STEP_NAME external_protocol)

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
set(configure ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/external_protocol" -B "${build}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}")
if(LAUNCHER)
  list(APPEND configure "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
if(SANITIZE)  # the user's code under the same sanitizers as the installed libraries
  list(APPEND configure "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer"
       "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
if(BUILD_TYPE)
  list(APPEND configure "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
step("configure against the installed package" ${configure})
step("build" ${CMAKE_COMMAND} --build "${build}")
set(tool "${build}/poll-shufflempc")

step("list" "${tool}" list)
if(NOT step_output MATCHES "anonymous-poll" OR NOT step_output MATCHES "counting")
  message(FATAL_ERROR "external_protocol: `list` does not show both the added and the built-in protocols:\n${step_output}")
endif()

execute_process(COMMAND "${tool}" run anonymous-poll --options 1 --parties 3 RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "'options' = 1 is out of range: must be an integer in \\[2, 256\\]")
  message(FATAL_ERROR "external_protocol: a bad parameter gave exit ${rc} and:\n${err}")
endif()
# The binary speaks as itself: its error and usage lines name it, its version says what it is built on.
if(NOT err MATCHES "^poll-shufflempc: error: " OR NOT err MATCHES "usage: poll-shufflempc run")
  message(FATAL_ERROR "external_protocol: the error and usage lines do not name the binary:\n${err}")
endif()
step("version" "${tool}" --version)
if(NOT step_output MATCHES "^poll-shufflempc \\(shufflempc [0-9]")
  message(FATAL_ERROR "external_protocol: --version printed:\n${step_output}")
endif()

step("local over TCP" "${tool}" local anonymous-poll --parties 40 --options 4 --random-inputs uniform:4 --json)
string(JSON protocol GET "${step_output}" protocol)
string(JSON transport GET "${step_output}" transport)
string(JSON output GET "${step_output}" output)
string(JSON truth GET "${step_output}" truth)
string(JSON processes GET "${step_output}" processes)
string(JSON bins LENGTH "${output}")
set(total 0)
math(EXPR last "${bins} - 1")
foreach(i RANGE ${last})
  string(JSON votes GET "${output}" ${i})
  math(EXPR total "${total} + ${votes}")
endforeach()
if(NOT protocol STREQUAL "anonymous-poll" OR NOT output STREQUAL truth OR NOT bins EQUAL 4 OR NOT total EQUAL 40)
  message(FATAL_ERROR "external_protocol: `local` gave protocol ${protocol}, output ${output}, truth ${truth}")
endif()
message(STATUS "external_protocol: local over ${transport}: ${output} (truth ${truth}); processes ${processes}")
# Its lines name the binary too, not shufflempc.
step("local, as text" "${tool}" local anonymous-poll --parties 12 --options 4 --random-inputs uniform:4)
if(NOT step_output MATCHES "(^|\n)poll-shufflempc local: shuffler, analyzer and [0-9]+ party processes started")
  message(FATAL_ERROR "external_protocol: `local` does not name the binary:\n${step_output}")
endif()

step("study" "${tool}" study -p anonymous-poll -n 100 --trials 3 --seed 1 --quiet)
if(NOT step_output MATCHES "anonymous-poll +100 +0 ")
  message(FATAL_ERROR "external_protocol: `study` did not run the protocol exactly:\n${step_output}")
endif()

# The bundled circuits are installed, and the installed executable finds them there: a circuit that
# is only in the installed folder runs, so the lookup does not lean on this source tree.
set(circuits "${prefix}/share/shufflempc/circuits")
if(NOT EXISTS "${circuits}/aes_128.txt" OR NOT EXISTS "${circuits}/License.txt")
  message(FATAL_ERROR "external_protocol: the bundled circuits are not installed in ${circuits}")
endif()
file(COPY_FILE "${circuits}/adder64.txt" "${circuits}/installed-only-adder.txt")
step("an installed circuit" "${prefix}/bin/shufflempc" run circuit --circuit installed-only-adder --parties 3 --seed 1 --json)
string(FIND "${step_output}" "\"name\":\"${circuits}/installed-only-adder.txt\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "external_protocol: the installed shufflempc did not run the installed circuit:\n${step_output}")
endif()

# The bash completion and (with help2man) the man pages, installed with the package.
if(NOT EXISTS "${prefix}/share/bash-completion/completions/shufflempc")
  message(FATAL_ERROR "external_protocol: no bash completion installed")
endif()
file(READ "${prefix}/share/bash-completion/completions/shufflempc" completion)
if(NOT completion MATCHES "complete -F _shufflempc_complete shufflempc")
  message(FATAL_ERROR "external_protocol: the installed completion is not shufflempc's")
endif()
if(MAN_PAGES)
  foreach(page shufflempc shufflempc-node shufflempc-study)
    if(NOT EXISTS "${prefix}/share/man/man1/${page}.1")
      message(FATAL_ERROR "external_protocol: no man page ${page}.1 installed")
    endif()
  endforeach()
  file(READ "${prefix}/share/man/man1/shufflempc.1" man)
  if(NOT man MATCHES "\\.TH SHUFFLEMPC" OR NOT man MATCHES "verify")
    message(FATAL_ERROR "external_protocol: the man page is not shufflempc's --help")
  endif()
endif()

# The package from the build tree, uninstalled: find_package(shufflempc) with shufflempc_DIR the
# build directory configures the same project (the targets file is exported there).
step("configure against the build tree" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/external_protocol" -B "${WORK_DIR}/build-tree"
     "-Dshufflempc_DIR=${BUILD_DIR}" "-DCMAKE_CXX_COMPILER=${CXX}")

# pkg-config, for a build without CMake: the installed shufflempc.pc compiles and links a program
# with the core, the verifiable mix and the transport.
find_program(PKG_CONFIG pkg-config REQUIRED)
if(NOT LIBDIR)
  set(LIBDIR lib)
endif()
step("pkg-config" ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig" ${PKG_CONFIG} --cflags --libs shufflempc)
string(STRIP "${step_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
if(SANITIZE)
  list(APPEND flags -fsanitize=address,undefined)
endif()
file(WRITE "${WORK_DIR}/pc.cpp" [=[
#include <cstdio>
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/random.hpp"
int main() {
  shufflempc::SystemRng rng;
  const auto k = shufflempc::net::KeyPair::generate(rng);
  const auto e = shufflempc::mixnet::ElGamalKey::generate(rng);
  std::printf("%zu %d\n", k.public_key().size(), e.public_key == shufflempc::mixnet::mul_base(e.secret) ? 1 : 0);
}
]=])
step("compile with pkg-config's flags" ${CXX} "${WORK_DIR}/pc.cpp" -o "${WORK_DIR}/pc" ${flags})
step("run what pkg-config's flags built" "${WORK_DIR}/pc")
if(NOT step_output STREQUAL "32 1\n")
  message(FATAL_ERROR "external_protocol: the pkg-config program printed: ${step_output}")
endif()
