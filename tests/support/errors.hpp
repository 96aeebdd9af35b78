// What a call throws, for tests that check the error and not only that there is one.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <system_error>

#include "shufflempc/error.hpp"

namespace shufflempc::test {

// The shufflempc::Errc of the std::system_error `f` throws (Errc{} if it throws none).
inline Errc code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::system_error& e) {
    return static_cast<Errc>(e.code().value());
  }
  return Errc{};
}

// The message of whatever `f` throws ("no error" if it throws nothing).
inline std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace shufflempc::test
