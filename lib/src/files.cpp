#include "shufflempc/files.hpp"

#include <sodium.h>

#include "shufflempc/hex.hpp"
#include "shufflempc/random.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace shufflempc {

namespace {
std::string describe(std::string_view what, const std::string& path) { return std::string(what) + " " + path; }

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) throw std::invalid_argument("cannot read " + describe(what, path) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::invalid_argument(describe(what, path) + " is not a regular file");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    throw std::invalid_argument(describe(what, path) + " holds " + std::to_string(st.st_size) + " bytes, more than the " +
                                std::to_string(max_bytes) + " accepted");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

namespace {

void write_all(const Fd& f, const std::string& path, std::string_view text, std::string_view what) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(f.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::invalid_argument("cannot write " + describe(what, path) + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_private_file(const std::string& path, std::string_view text, std::string_view what) {
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
  if (f.fd < 0) {
    if (errno == EEXIST || errno == ELOOP)
      throw std::invalid_argument("refusing to write " + describe(what, path) + ": it exists already (or is a symbolic link)");
    throw std::invalid_argument("cannot write " + describe(what, path) + ": " + std::strerror(errno));
  }
  write_all(f, path, text, what);
}

void prepare_output_file(const std::string& path, std::string_view what) {
  if (path.empty() || path == "-") return;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) return;  // the working directory
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::invalid_argument("cannot write " + describe(what, path) + ": cannot make its directory " + dir.string() + ": " + ec.message());
  if (!std::filesystem::is_directory(dir)) throw std::invalid_argument("cannot write " + describe(what, path) + ": " + dir.string() + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::invalid_argument("cannot write " + describe(what, path) + ": its directory " + dir.string() + " is not writable: " + std::strerror(errno));
}

void write_file(const std::string& path, std::string_view text, std::string_view what) {
  prepare_output_file(path, what);
  // O_NONBLOCK: opening a FIFO with no reader fails at once instead of hanging.
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644)};
  if (f.fd < 0) {
    if (errno == ELOOP) throw std::invalid_argument("refusing to write " + describe(what, path) + ": it is a symbolic link");
    throw std::invalid_argument("cannot write " + describe(what, path) + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::invalid_argument("refusing to write " + describe(what, path) + ": it is not a regular file");
  if (::ftruncate(f.fd, 0) != 0) throw std::invalid_argument("cannot write " + describe(what, path) + ": " + std::strerror(errno));
  write_all(f, path, text, what);
}

void check_private_file(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw std::invalid_argument("cannot read " + describe(what, path) + ": " + std::strerror(errno));
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
    throw std::invalid_argument(describe(what, path) + " is accessible to others (mode " + mode + "): chmod 600 it");
  }
}

std::string file_digest(const std::string& path, std::string_view what) {
  const std::string bytes = read_text_file(path, what);
  ensure_sodium();
  std::array<std::uint8_t, crypto_generichash_BYTES> d{};
  crypto_generichash(d.data(), d.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr, 0);
  return to_hex(d);
}

}  // namespace shufflempc
