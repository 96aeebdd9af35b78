// The durable state of a server's session: every batch of records the server admitted, kept on
// disk before the party is told it was admitted (net::Admission, wire.hpp: what a link submitted), so that a crash of the server loses nothing it
// acknowledged; and a few named values a server keeps before it acts on them (the analyzer's
// delivered round, the key of its randomness and its output: `analyzer --state-dir`). One small interface (AdmissionStore) that the rounds use; one implementation on
// SQLite (open_state_directory). Another database can replace SQLite without touching the rounds.
//
// The promise: once `admit`'s callback reports the admission durable, it survives a crash of the
// process (kill -9) and, with Durability::full (the default), of the machine; the batch of a
// (round, first party) is kept once, whatever the retries; a state directory is used by one
// process at a time; a state that is not whole (a torn or foreign database, another session's)
// is refused at open with one line, never used.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/net/wire.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::net {

// What became of an admission: durable, or the line saying why not (nothing was kept then).
struct AdmitResult {
  bool durable = false;
  bool repeated = false;  // the same admission was kept already (a retry): nothing was written
  std::string error;
  RecordDigest digest{};  // the admission's (what a receipt names), worked out once, by the store
};

class AdmissionStore {
 public:
  virtual ~AdmissionStore() = default;
  // Queues the admission; `done` runs once it is durable or has failed, on the store's own thread
  // (post it to your own). Admissions arriving together share one commit (a group commit). An
  // admission of a (round, first) already kept with other content fails: the store keeps one
  // batch a link a round.
  virtual void admit(Admission a, std::function<void(const AdmitResult&)> done) = 0;
  // Blocks until every admission queued before it has been committed or failed.
  virtual void flush() = 0;
  // Admissions queued and not yet reported (what flush() would wait for): none means every
  // admission so far has been reported.
  [[nodiscard]] virtual std::size_t pending() = 0;
  // Every admission kept for `round`, by first party.
  [[nodiscard]] virtual std::vector<Admission> admitted(std::uint32_t round) = 0;
  // Records that the session ended (`how`: its result delivered, or why it was aborted), durably:
  // a server restarted on this state says so and does not serve the session again.
  virtual void end(const std::string& how) = 0;
  // What end() recorded, if it was called (by this process or one before it).
  [[nodiscard]] virtual std::optional<std::string> ended() = 0;
  // Keeps `value` under `name` (replacing what was kept under it), durably when it returns; throws
  // std::runtime_error with one line if it cannot (a full disk: nothing of it was kept then).
  virtual void keep(const std::string& name, std::span<const std::uint8_t> value) = 0;
  // What keep() kept under `name`, by this process or one before it.
  [[nodiscard]] virtual std::optional<std::vector<std::uint8_t>> kept(const std::string& name) = 0;
  // How many commits and admissions the store has made since it opened (for the benchmark and the
  // tests of the group commit).
  [[nodiscard]] virtual std::uint64_t commits() const = 0;
  [[nodiscard]] virtual std::uint64_t admissions() const = 0;
};

enum class Durability {
  full,      // every commit survives the machine's crash (synchronous=FULL): the default
  process,   // every commit survives the process's crash, not the machine's (synchronous=NORMAL)
  off,       // no fsync at all (for measuring what durability costs); never for a real session
};

struct StoreOptions {
  Durability durability = Durability::full;
  // Commit admissions together while more are queued (true), or one commit each (false: for
  // measuring what the group commit saves).
  bool group_commit = true;
  // The most the database may grow to; a commit past it fails as a full disk does. 0: no cap.
  std::uint64_t max_bytes = 0;
};

// A generator keyed by a secret kept in `store` under `name`: drawn from the operating system the
// first time and kept before it is used, read back by every later call (this process's or one
// started again on the directory), so that what a server computes from it, it computes again alike
// (the analyzer's noise, the entry's shuffle). Throws std::runtime_error if the kept key is torn.
[[nodiscard]] std::unique_ptr<Rng> kept_randomness(AdmissionStore& store, const std::string& name);

// Opens (or creates) the state of `session` (whose config has `digest`) in `directory`, locked
// for this process alone until the store is destroyed. Throws std::runtime_error with one line
// naming the directory when: another process holds it; its database is not a database (torn,
// truncated, foreign); its integrity check fails; it holds another session or another config; it
// was left half made. `role` names the server in those lines ("shuffler", "mix server 2").
[[nodiscard]] std::unique_ptr<AdmissionStore> open_state_directory(const std::filesystem::path& directory, const SessionId& session,
                                                                   const ConfigDigest& digest, const std::string& role,
                                                                   StoreOptions options = {});

}  // namespace shufflempc::net
