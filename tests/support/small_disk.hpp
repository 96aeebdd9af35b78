// A full disk for one test: a small tmpfs mounted at a directory and unmounted when the test ends.
// Mounting needs root (CAP_SYS_ADMIN); where this process may not, mounted() is false and the test
// says it is skipped.
#pragma once

#include <sys/mount.h>

#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace shufflempc::test {

class SmallDisk {
 public:
  // A tmpfs of `size` (mount(8)'s size=, e.g. "1m") at `path`, created if it is not there.
  explicit SmallDisk(const std::string& path, const std::string& size = "1m") : path_(path) {
    std::filesystem::create_directories(path_);
    mounted_ = ::mount("tmpfs", path_.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
    if (!mounted_) MESSAGE("skipped: cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN)");
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  [[nodiscard]] bool mounted() const { return mounted_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // Takes what is left of the disk with the file `name` (written until the disk says it is full);
  // returns its path, for the test to remove when the disk is to have room again.
  std::string fill(const std::string& name = "filler") const {
    const std::string file = path_ + "/" + name;
    std::FILE* f = std::fopen(file.c_str(), "wb");
    REQUIRE(f != nullptr);
    const std::vector<char> block(4096, 0);
    while (std::fwrite(block.data(), 1, block.size(), f) == block.size() && std::fflush(f) == 0) {
    }
    const int error = errno;
    std::fclose(f);
    CHECK(error == ENOSPC);
    return file;
  }

 private:
  std::string path_;
  bool mounted_ = false;
};

}  // namespace shufflempc::test
