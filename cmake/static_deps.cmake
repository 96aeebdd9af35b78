# Start-up cost of the processes a `local` run starts. Each run starts a shuffler, an analyzer and
# one process per block of parties, and every one of them pays, before its first line of code, for
# the dynamic loader mapping and relocating each shared library it needs (libcrypto alone is 4.3 MB
# of code and 21,000 relocations). An executable with the target property
# SHUFFLEMPC_STATIC_DEPS set to ON (shufflempc and shufflempc-node, cli/CMakeLists.txt) takes
# libsodium, GMP and OpenSSL's libcrypto from the static archives Debian's -dev packages ship; every
# other target (the libraries, the tests, the Python module, a user's program through
# find_package) links the shared libraries as before. The measurements are in the git history of docs/PERFORMANCE.md.
#
# libstdc++ stays shared: libfmt (shared only on Debian) needs it, and two copies of it in one
# process is a risk the 0.1 ms it would save does not pay for. The executables stay position
# independent (ASLR), although a non-PIE link would save a further 0.3 ms per process.

set(static_deps_default ON)
if(SHUFFLEMPC_SANITIZE OR SHUFFLEMPC_FUZZ)
  set(static_deps_default OFF)  # the sanitizers' runtimes expect the shared libraries
endif()
option(SHUFFLEMPC_STATIC_DEPS
  "Link shufflempc and shufflempc-node with the static libsodium, GMP and libcrypto where installed (faster process start)"
  ${static_deps_default})

# shufflempc_dependency(<out variable> <imported target> <archive file name> [<directories to look in>...])
# Sets <out variable> to the link items to use instead of <imported target>: the archive for an
# executable with SHUFFLEMPC_STATIC_DEPS, the imported target for every other consumer and once
# installed. Without the option, or without the archive, it is the imported target alone.
function(shufflempc_dependency out target archive)
  set(${out} ${target} PARENT_SCOPE)
  if(NOT SHUFFLEMPC_STATIC_DEPS)
    return()
  endif()
  string(MAKE_C_IDENTIFIER "SHUFFLEMPC_ARCHIVE_${archive}" cache_var)
  find_library(${cache_var} NAMES ${archive} HINTS ${ARGN})
  if(NOT ${cache_var})
    message(STATUS "shufflempc: no ${archive}; the executables link ${target} shared")
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY SHUFFLEMPC_STATIC_ARCHIVES ${archive})  # for the tests
  set(static "$<BOOL:$<TARGET_PROPERTY:SHUFFLEMPC_STATIC_DEPS>>")
  set(${out}
      "$<BUILD_INTERFACE:$<${static}:${${cache_var}}>>"
      "$<BUILD_INTERFACE:$<$<NOT:${static}>:${target}>>"
      "$<INSTALL_INTERFACE:${target}>"
      PARENT_SCOPE)
endfunction()
