// A private temporary directory for one test, removed with everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

namespace shufflempc::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "shufflempc-test") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace shufflempc::test
