// Small files with their checks (lib/files.hpp) and hex text (lib/hex.hpp).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

TEST_CASE("files: a private file is new, 0600, never through a link or over another file, others' files are refused") {
  const test::TempDir tmp("shufflempc-filestest");
  const std::string secret = tmp / "secret";
  write_private_file(secret, "s3cret", "key file");
  struct stat st {};
  REQUIRE(::stat(secret.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(read_text_file(secret, "key file") == "s3cret");
  CHECK_NOTHROW(check_private_file(secret, "key file"));
  CHECK_THROWS_WITH_AS(write_private_file(secret, "again", "key file"), doctest::Contains("key file"), std::invalid_argument);
  const std::string link = tmp / "link";
  REQUIRE(::symlink((tmp / "elsewhere").c_str(), link.c_str()) == 0);
  CHECK_THROWS_AS(write_private_file(link, "x", "key file"), std::invalid_argument);
  CHECK_FALSE(std::ifstream(tmp / "elsewhere").good());  // nothing was written through the link
  ::chmod(secret.c_str(), 0644);
  CHECK_THROWS_WITH_AS(check_private_file(secret, "key file"), doctest::Contains("key file"), std::invalid_argument);
}

TEST_CASE("files: write_file creates or replaces a regular file, never through a link, never into a FIFO") {
  const test::TempDir tmp("shufflempc-writefile");
  const std::string path = tmp / "session.json";
  write_file(path, "first, longer text", "session config");
  write_file(path, "second", "session config");
  CHECK(read_text_file(path, "session config") == "second");
  const std::string target = tmp / "target", link = tmp / "link";
  write_file(target, "untouched", "target");
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  CHECK_THROWS_WITH_AS(write_file(link, "overwritten", "session config"), doctest::Contains("is a symbolic link"), std::invalid_argument);
  CHECK(read_text_file(target, "target") == "untouched");
  const std::string fifo = tmp / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_AS(write_file(fifo, "x", "session config"), std::invalid_argument);  // no reader: refused at once, never a hang
}

TEST_CASE("files: an output the user names gets the directories on its way, and a way that cannot be made is one line naming it") {
  const test::TempDir tmp("shufflempc-outputs");
  const std::string nested = tmp / "out/figures/f.png";
  prepare_output_file(nested, "--plot");
  CHECK(std::filesystem::is_directory(tmp / "out/figures"));
  CHECK_FALSE(std::filesystem::exists(nested));  // made ready, not written
  write_file(tmp / "new/dir/t.json", "{}", "transcript");  // write_file makes its way too
  CHECK(read_text_file(tmp / "new/dir/t.json", "transcript") == "{}");
  CHECK_NOTHROW(prepare_output_file("-", "--csv"));
  CHECK_NOTHROW(prepare_output_file("", "--csv"));
  CHECK_NOTHROW(prepare_output_file("here.csv", "--csv"));  // the working directory: nothing to make
  write_file(tmp / "a-file", "x", "file");
  CHECK_THROWS_WITH_AS(prepare_output_file(tmp / "a-file/f.png", "--plot"), doctest::Contains(("cannot write --plot " + (tmp / "a-file/f.png")).c_str()),
                       std::invalid_argument);
  if (::geteuid() != 0) {  // root writes anywhere
    std::filesystem::create_directories(tmp / "locked");
    ::chmod((tmp / "locked").c_str(), 0500);
    CHECK_THROWS_WITH_AS(prepare_output_file(tmp / "locked/f.csv", "--csv"), doctest::Contains("is not writable"), std::invalid_argument);
    ::chmod((tmp / "locked").c_str(), 0700);
  }
}

TEST_CASE("files: reading names the file, refuses what is not a regular file and what is over the limit") {
  const test::TempDir tmp("shufflempc-filestest");
  CHECK_THROWS_WITH_AS((void)read_text_file(tmp / "missing", "inputs"), doctest::Contains("missing"), std::invalid_argument);
  CHECK_THROWS_AS((void)read_text_file(tmp.path(), "inputs"), std::invalid_argument);  // a directory
  CHECK_THROWS_AS((void)read_text_file("/dev/zero", "inputs"), std::invalid_argument);
  const std::string big = tmp / "big";
  std::ofstream(big) << std::string(100, 'x');
  CHECK(read_text_file(big, "inputs", 100).size() == 100);
  CHECK_THROWS_AS((void)read_text_file(big, "inputs", 99), std::invalid_argument);
}

TEST_CASE("hex: lower-case out, either case in, exact lengths, and the text never echoed in errors") {
  const std::array<std::uint8_t, 3> bytes = {0x00, 0xab, 0xff};
  CHECK(to_hex(bytes) == "00abff");
  std::array<std::uint8_t, 3> back{};
  from_hex("00ABff", back, "key");
  CHECK(back == bytes);
  CHECK_THROWS_AS(from_hex("00ab", back, "key"), std::invalid_argument);
  CHECK_THROWS_AS(from_hex("00abffee", back, "key"), std::invalid_argument);
  try {
    from_hex("zzSECRETzz12", std::span<std::uint8_t>(back), "secret_key");
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("secret_key") != std::string::npos);
    CHECK(std::string(e.what()).find("SECRET") == std::string::npos);
  }
}
