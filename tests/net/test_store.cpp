// The durable state of a server's session (net/store.hpp) on real files: what it keeps, that a kept
// admission survives kill -9 of the process writing it, and the states it refuses to use.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>

#include "shufflempc/net/store.hpp"
#include "support/small_disk.hpp"
#include "support/temp_dir.hpp"

namespace shufflempc::net {
namespace {

using test::TempDir;

SessionId session_id(std::uint8_t b) {
  SessionId s{};
  s.fill(b);
  return s;
}

ConfigDigest config_digest(std::uint8_t b) {
  ConfigDigest d{};
  d.fill(b);
  return d;
}

Admission admission(std::uint32_t round, PartyId first, std::uint8_t fill, std::size_t messages = 2) {
  return {.round = round, .first = first, .counts = {static_cast<std::uint32_t>(messages), submit_absent}, .width = 8,
          .messages = std::vector<std::uint8_t>(messages * 8, fill)};
}

AdmitResult admit_now(AdmissionStore& store, Admission a) {
  std::promise<AdmitResult> p;
  auto f = p.get_future();
  store.admit(std::move(a), [&p](const AdmitResult& r) { p.set_value(r); });
  return f.get();
}

std::string open_error(const std::filesystem::path& dir, const SessionId& s, const ConfigDigest& d, StoreOptions o = {}) {
  try {
    auto store = open_state_directory(dir, s, d, "shuffler", o);
    return {};
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

TEST_CASE("store: an admission is kept durable and read back after the store is opened again") {
  TempDir dir;
  {
    auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
    const auto r = admit_now(*store, admission(0, 0, 7));
    CHECK(r.durable);
    CHECK_FALSE(r.repeated);
    CHECK(r.error.empty());
    CHECK(admit_now(*store, admission(0, 2, 8)).durable);
    CHECK(admit_now(*store, admission(1, 0, 9)).durable);
  }
  auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
  CHECK(std::filesystem::status(dir.path()).permissions() == std::filesystem::perms::owner_all);  // 0700
  const auto round0 = store->admitted(0);
  REQUIRE(round0.size() == 2);
  CHECK(round0[0] == admission(0, 0, 7));
  CHECK(round0[1] == admission(0, 2, 8));
  REQUIRE(store->admitted(1).size() == 1);
  CHECK(store->admitted(1)[0] == admission(1, 0, 9));
  CHECK(store->admitted(2).empty());
}

TEST_CASE("store: the same admission again is kept once, another batch of the same link in the same round is refused") {
  TempDir dir;
  auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
  CHECK(admit_now(*store, admission(0, 4, 1)).durable);
  const auto again = admit_now(*store, admission(0, 4, 1));
  CHECK(again.durable);
  CHECK(again.repeated);
  const auto other = admit_now(*store, admission(0, 4, 2));
  CHECK_FALSE(other.durable);
  CHECK(other.error.find("round 0 already keeps another batch of party 4's link") != std::string::npos);
  REQUIRE(store->admitted(0).size() == 1);
  CHECK(store->admitted(0)[0] == admission(0, 4, 1));
  CHECK(store->admissions() == 1);
}

TEST_CASE("store: the end of a session is kept, and read by a store opened again") {
  TempDir dir;
  {
    auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
    CHECK_FALSE(store->ended().has_value());
    CHECK(admit_now(*store, admission(0, 0, 7)).durable);
    store->end("the analyzer confirmed the session's result");
    CHECK(store->ended() == "the analyzer confirmed the session's result");
  }
  auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
  CHECK(store->ended() == "the analyzer confirmed the session's result");
  CHECK(store->admitted(0).size() == 1);
}

TEST_CASE("store: a named value is kept, replaced, read by a store opened again, and apart from the session's own keys") {
  TempDir dir;
  const std::vector<std::uint8_t> first = {1, 2, 3}, second = {9};
  {
    auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "analyzer");
    CHECK_FALSE(store->kept("round-0").has_value());
    store->keep("round-0", first);
    CHECK(store->kept("round-0") == first);
    store->keep("round-0", second);
    store->keep("empty", {});
    // A name the session's own keys use is another value: it neither reads nor changes them.
    store->keep("ended", first);
    CHECK_FALSE(store->ended().has_value());
    CHECK_FALSE(store->kept("session").has_value());
  }
  auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "analyzer");
  CHECK(store->kept("round-0") == second);
  CHECK(store->kept("empty") == std::vector<std::uint8_t>{});
  CHECK(store->kept("ended") == first);
  CHECK_FALSE(store->kept("round-1").has_value());
}

TEST_CASE("store: the digest binds every field of an admission") {
  const Admission a = admission(3, 5, 1);
  std::set<RecordDigest> digests{a.digest()};
  auto b = a;
  b.round = 4;
  digests.insert(b.digest());
  b = a;
  b.first = 6;
  digests.insert(b.digest());
  b = a;
  b.counts[1] = 0;
  digests.insert(b.digest());
  b = a;
  b.width = 16;
  b.counts[0] = 1;
  digests.insert(b.digest());
  b = a;
  b.messages[5] ^= 1;
  digests.insert(b.digest());
  CHECK(digests.size() == 6);
  CHECK(a.digest() == admission(3, 5, 1).digest());
}

TEST_CASE("store: admissions queued together share a commit, or take one each without the group commit") {
  constexpr std::size_t n = 10'000;
  for (const bool group : {true, false}) {
    CAPTURE(group);
    TempDir dir;
    auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler",
                                      {.durability = Durability::full, .group_commit = group, .max_bytes = 0});
    std::atomic<std::size_t> durable{0};
    for (std::size_t i = 0; i < n; ++i)
      store->admit(admission(0, static_cast<PartyId>(i), static_cast<std::uint8_t>(i), 1),
                   [&durable](const AdmitResult& r) { durable += r.durable ? 1 : 0; });
    store->flush();
    CHECK(durable == n);
    CHECK(store->admissions() == n);
    if (group) CHECK(store->commits() <= n / 2);
    else CHECK(store->commits() == n);
    CHECK(store->admitted(0).size() == n);
  }
}

TEST_CASE("store: every admission reported durable survives kill -9 of the process writing, exactly once") {
  TempDir dir;
  int acks[2];
  REQUIRE(::pipe(acks) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The writer: admits one batch after another, writing each one's first party to the pipe once
    // the store reports it durable, until it is killed.
    ::close(acks[0]);
    try {
      auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
      for (PartyId i = 0;; ++i)
        store->admit(admission(0, i, static_cast<std::uint8_t>(i), 3), [fd = acks[1], i](const AdmitResult& r) {
          if (r.durable) (void)!::write(fd, &i, sizeof i);
        });
    } catch (...) {
    }
    ::_exit(3);
  }
  ::close(acks[1]);
  std::vector<PartyId> acknowledged;
  PartyId id = 0;
  while (acknowledged.size() < 3000 && ::read(acks[0], &id, sizeof id) == sizeof id) acknowledged.push_back(id);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  while (::read(acks[0], &id, sizeof id) == sizeof id) acknowledged.push_back(id);  // written before it died
  ::close(acks[0]);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(acknowledged.size() >= 3000);
  auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
  const auto kept = store->admitted(0);
  std::set<PartyId> firsts;
  for (const auto& a : kept) {
    CHECK(a == admission(0, a.first, static_cast<std::uint8_t>(a.first), 3));
    firsts.insert(a.first);
  }
  CHECK(firsts.size() == kept.size());  // exactly once
  std::size_t missing = 0;
  for (const PartyId a : acknowledged) missing += firsts.count(a) == 0 ? 1 : 0;
  CHECK(missing == 0);
}

TEST_CASE("store: a second server on the same state directory is refused while the first holds it, then let in") {
  TempDir dir;
  auto first = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
  const auto error = open_error(dir.path(), session_id(1), config_digest(2));
  CHECK(error == "state directory " + dir.path() + " (shuffler) is in use by another process (pid " + std::to_string(::getpid()) +
                     "): one server a state directory");
  first.reset();
  CHECK(open_error(dir.path(), session_id(1), config_digest(2)).empty());
}

TEST_CASE("store: a state directory of another session or another config is refused with one line") {
  TempDir dir;
  {
    auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
    CHECK(admit_now(*store, admission(0, 0, 1)).durable);
  }
  const auto other_session = open_error(dir.path(), session_id(3), config_digest(2));
  CHECK(other_session.find("it holds session 0101") != std::string::npos);
  CHECK(other_session.find("one directory a session): refused") != std::string::npos);
  const auto other_config = open_error(dir.path(), session_id(1), config_digest(4));
  CHECK(other_config.find("under another config") != std::string::npos);
  CHECK(other_config.find('\n') == std::string::npos);
  CHECK(open_error(dir.path(), session_id(1), config_digest(2)).empty());  // nothing was changed by the refusals
}

TEST_CASE("store: a database file that is not one, or truncated, is refused and never used") {
  TempDir dir;
  SUBCASE("another program's bytes") {
    std::ofstream(dir / "state.sqlite") << std::string(8192, 'x');
    const auto error = open_error(dir.path(), session_id(1), config_digest(2));
    CHECK(error.find("is not a shufflempc state database (file is not a database): refused; move it away to start afresh") !=
          std::string::npos);
  }
  SUBCASE("a state cut short") {
    {
      auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
      for (PartyId i = 0; i < 200; ++i) store->admit(admission(0, i, 1, 64), {});
      store->flush();
    }
    const auto size = std::filesystem::file_size(dir / "state.sqlite");
    REQUIRE(size > 65536);
    std::filesystem::resize_file(dir / "state.sqlite", size / 2);
    const auto error = open_error(dir.path(), session_id(1), config_digest(2));
    CHECK_MESSAGE(!error.empty(), "a truncated state was opened");
    CHECK(error.find("state directory " + dir.path() + " (shuffler): ") == 0);
    CHECK(error.find("refused") != std::string::npos);
  }
  SUBCASE("another SQLite database") {
    {
      auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "shuffler");
    }
    REQUIRE(std::system(("sqlite3 " + (dir / "state.sqlite") + " 'DROP TABLE meta' 2>/dev/null").c_str()) == 0);
    const auto error = open_error(dir.path(), session_id(1), config_digest(2));
    CHECK(error.find("holds tables but no shufflempc session") != std::string::npos);
  }
}

// Admits until a commit fails: every admission reported durable is there after reopening, and none
// that failed is.
void fill_until_full(const std::filesystem::path& dir, StoreOptions options) {
  std::set<PartyId> durable, failed;
  std::string error;
  {
    auto store = open_state_directory(dir, session_id(1), config_digest(2), "shuffler", options);
    for (PartyId i = 0; failed.empty() && i < 100'000; ++i) {
      const auto r = admit_now(*store, admission(0, i, 1, 256));
      (r.durable ? durable : failed).insert(i);
      if (!r.durable) error = r.error;
    }
  }
  REQUIRE(!failed.empty());
  CHECK(error.find("full") != std::string::npos);
  CHECK(error.find("nothing of this commit was kept") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
  // A small state directory: opened again without the cap (a full tmpfs cannot take the WAL's check).
  options.max_bytes = 0;
  auto store = open_state_directory(dir, session_id(1), config_digest(2), "shuffler", options);
  std::set<PartyId> kept;
  for (const auto& a : store->admitted(0)) kept.insert(a.first);
  CHECK(kept == durable);
}

TEST_CASE("store: a state past its size cap fails the commit with one line, and keeps what it reported durable") {
  TempDir dir;
  fill_until_full(dir.path(), {.durability = Durability::full, .group_commit = true, .max_bytes = 256 * 1024});
}

TEST_CASE("store: a named value past the size cap is refused with one line, and the value kept before stays") {
  TempDir dir;
  const std::vector<std::uint8_t> small(100, 7), large(512 * 1024, 8);
  auto store = open_state_directory(dir.path(), session_id(1), config_digest(2), "analyzer",
                                    {.durability = Durability::full, .group_commit = true, .max_bytes = 256 * 1024});
  store->keep("round-0", small);
  std::string error;
  try {
    store->keep("round-0", large);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  CHECK(error.find("cannot keep its round-0") != std::string::npos);
  CHECK(error.find("nothing of it was kept") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
  CHECK(store->kept("round-0") == small);
}

TEST_CASE("store: a full disk (a 1 MB tmpfs) fails the commit with one line, and keeps what it reported durable") {
  TempDir dir;
  const shufflempc::test::SmallDisk disk(dir / "disk");
  if (!disk.mounted()) return;
  fill_until_full(std::filesystem::path(disk.path()) / "state", {});
}

}  // namespace
}  // namespace shufflempc::net
