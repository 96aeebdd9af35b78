// The session's durable state on SQLite: a lock file, one database in WAL mode, a writer thread
// that commits the admissions queued meanwhile together (store.hpp).
#include "shufflempc/net/store.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "shufflempc/hex.hpp"
#include "shufflempc/little_endian.hpp"

namespace shufflempc::net {
namespace {

constexpr std::int64_t schema_version = 1;

// The directory's lock: a file held with flock by this process alone, naming its holder's pid.
class DirectoryLock {
 public:
  DirectoryLock(const std::filesystem::path& file, const std::string& where) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw std::runtime_error(where + ": cannot open its lock file: " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {};
      const auto n = ::pread(fd_, pid, sizeof pid - 1, 0);
      ::close(fd_);
      throw std::runtime_error(where + " is in use by another process" +
                               (n > 0 ? " (pid " + std::string(pid, static_cast<std::size_t>(n)) + ")" : std::string()) +
                               ": one server a state directory");
    }
    const std::string me = std::to_string(::getpid());
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      ::close(fd_);
      throw std::runtime_error(where + ": cannot write its lock file: " + std::strerror(errno));
    }
  }
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

struct Statement {
  sqlite3_stmt* s = nullptr;
  ~Statement() { sqlite3_finalize(s); }
};

class SqliteStore final : public AdmissionStore {
 public:
  SqliteStore(const std::filesystem::path& dir, const SessionId& session, const ConfigDigest& digest, const std::string& role,
              StoreOptions options)
      : where_("state directory " + dir.string() + " (" + role + ")"), options_(options) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error(where_ + ": cannot be made: " + ec.message());
    // What the shuffler holds, as its key file is: its own account alone (SECURITY.md).
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
    if (ec) throw std::runtime_error(where_ + ": cannot be made private (0700): " + ec.message());
    lock_ = std::make_unique<DirectoryLock>(dir / "lock", where_);
    const auto file = dir / "state.sqlite";
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
      fail_open("cannot open " + file.filename().string());
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 0);
    // A file that is not a database (torn, truncated, foreign) fails here or at the check below.
    exec("PRAGMA journal_mode=WAL", "is not a shufflempc state database");
    check_whole();
    const char* sync = options.durability == Durability::full ? "FULL" : options.durability == Durability::process ? "NORMAL" : "OFF";
    exec(std::string("PRAGMA synchronous=") + sync, "cannot set its durability");
    if (options.max_bytes > 0) {
      const auto pages = std::max<std::uint64_t>(options.max_bytes / page_size(), 1);
      exec("PRAGMA max_page_count=" + std::to_string(pages), "cannot cap its size");
    }
    open_session(session, digest);
    prepare(insert_, "INSERT INTO admissions(round, first, counts, width, messages, digest) VALUES (?, ?, ?, ?, ?, ?)");
    prepare(find_, "SELECT digest FROM admissions WHERE round = ? AND first = ?");
    writer_ = std::thread([this] { write_loop(); });
  }

  ~SqliteStore() override {
    {
      std::lock_guard lock(queue_mutex_);
      stopping_ = true;
    }
    queued_.notify_all();
    if (writer_.joinable()) writer_.join();
    sqlite3_finalize(insert_.s);
    insert_.s = nullptr;
    sqlite3_finalize(find_.s);
    find_.s = nullptr;
    sqlite3_close_v2(db_);
  }

  void admit(Admission a, std::function<void(const AdmitResult&)> done) override {
    {
      std::lock_guard lock(queue_mutex_);
      queue_.push_back({std::move(a), std::move(done)});
    }
    queued_.notify_one();
  }

  void flush() override {
    std::unique_lock lock(queue_mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
  }

  std::size_t pending() override {
    std::lock_guard lock(queue_mutex_);
    return queue_.size() + (busy_ ? 1 : 0);
  }

  std::vector<Admission> admitted(std::uint32_t round) override {
    std::lock_guard db_lock(db_mutex_);
    Statement q;
    prepare(q, "SELECT first, counts, width, messages FROM admissions WHERE round = ? ORDER BY first");
    sqlite3_bind_int64(q.s, 1, round);
    std::vector<Admission> out;
    int rc;
    while ((rc = sqlite3_step(q.s)) == SQLITE_ROW) {
      Admission a;
      a.round = round;
      a.first = static_cast<PartyId>(sqlite3_column_int64(q.s, 0));
      const auto* c = static_cast<const std::uint8_t*>(sqlite3_column_blob(q.s, 1));
      const auto cn = static_cast<std::size_t>(sqlite3_column_bytes(q.s, 1));
      if (cn % 4 != 0) throw std::runtime_error(where_ + ": an admission of round " + std::to_string(round) + " has torn counts");
      for (std::size_t i = 0; i < cn; i += 4) a.counts.push_back(load_le<std::uint32_t>(c + i));
      a.width = static_cast<std::uint32_t>(sqlite3_column_int64(q.s, 2));
      const auto* m = static_cast<const std::uint8_t*>(sqlite3_column_blob(q.s, 3));
      a.messages.assign(m, m + sqlite3_column_bytes(q.s, 3));
      out.push_back(std::move(a));
    }
    if (rc != SQLITE_DONE) throw std::runtime_error(where_ + ": reading round " + std::to_string(round) + ": " + sqlite3_errmsg(db_));
    return out;
  }

  void end(const std::string& how) override {
    flush();
    std::lock_guard db_lock(db_mutex_);
    Statement put;
    prepare(put, "INSERT OR REPLACE INTO meta(key, value) VALUES ('ended', ?)");
    sqlite3_bind_blob(put.s, 1, how.data(), static_cast<int>(how.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(put.s) != SQLITE_DONE) throw std::runtime_error(where_ + ": cannot record the session's end: " + sqlite3_errmsg(db_));
  }

  // The named values share the meta table with the session's own keys, under a prefix of their own.
  void keep(const std::string& name, std::span<const std::uint8_t> value) override {
    flush();
    std::lock_guard db_lock(db_mutex_);
    Statement put;
    prepare(put, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
    const std::string key = "kept:" + name;
    sqlite3_bind_text(put.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    if (value.empty()) sqlite3_bind_zeroblob(put.s, 2, 0);  // a blob of no bytes, not NULL
    else sqlite3_bind_blob(put.s, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    if (sqlite3_step(put.s) != SQLITE_DONE)
      throw std::runtime_error(where_ + ": cannot keep its " + name + ": " + sqlite3_errmsg(db_) + ": nothing of it was kept");
  }

  std::optional<std::vector<std::uint8_t>> kept(const std::string& name) override {
    std::lock_guard db_lock(db_mutex_);
    Statement q;
    prepare(q, "SELECT value FROM meta WHERE key = ?");
    const std::string key = "kept:" + name;
    sqlite3_bind_text(q.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(q.s) != SQLITE_ROW) return std::nullopt;
    const auto* v = static_cast<const std::uint8_t*>(sqlite3_column_blob(q.s, 0));
    return std::vector<std::uint8_t>(v, v + sqlite3_column_bytes(q.s, 0));
  }

  std::optional<std::string> ended() override {
    std::lock_guard db_lock(db_mutex_);
    Statement q;
    prepare(q, "SELECT value FROM meta WHERE key = 'ended'");
    if (sqlite3_step(q.s) != SQLITE_ROW) return std::nullopt;
    const auto* v = static_cast<const char*>(sqlite3_column_blob(q.s, 0));
    return std::string(v ? v : "", static_cast<std::size_t>(sqlite3_column_bytes(q.s, 0)));
  }

  std::uint64_t commits() const override { return commits_; }
  std::uint64_t admissions() const override { return admissions_; }

 private:
  struct Pending {
    Admission a;
    std::function<void(const AdmitResult&)> done;
  };

  [[noreturn]] void fail_open(const std::string& what) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw std::runtime_error(where_ + ": " + what + " (" + why + "): refused; move it away to start afresh");
  }

  void exec(const std::string& sql, const std::string& what) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail_open(what);
  }

  void prepare(Statement& st, const char* sql) {
    if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK)
      throw std::runtime_error(where_ + ": " + sqlite3_errmsg(db_) + " preparing the store's statements");
  }

  std::uint64_t page_size() {
    Statement q;
    prepare(q, "PRAGMA page_size");
    return sqlite3_step(q.s) == SQLITE_ROW ? static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0)) : 4096;
  }

  // SQLite's own check of every page and index: a torn or truncated file fails it.
  void check_whole() {
    Statement q;
    if (sqlite3_prepare_v2(db_, "PRAGMA quick_check", -1, &q.s, nullptr) != SQLITE_OK) fail_open("is not a shufflempc state database");
    std::string verdict;
    int rc;
    while ((rc = sqlite3_step(q.s)) == SQLITE_ROW) {
      const auto* t = sqlite3_column_text(q.s, 0);
      verdict += (verdict.empty() ? "" : "; ") + std::string(t ? reinterpret_cast<const char*>(t) : "");
    }
    if (rc != SQLITE_DONE) fail_open("is not a whole shufflempc state database");
    if (verdict != "ok") {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw std::runtime_error(where_ + ": its database fails SQLite's integrity check (" + verdict.substr(0, 200) +
                               "): refused; move it away to start afresh");
    }
  }

  std::int64_t table_count() {
    Statement q;
    prepare(q, "SELECT count(*) FROM sqlite_master");
    return sqlite3_step(q.s) == SQLITE_ROW ? sqlite3_column_int64(q.s, 0) : -1;
  }

  // A new database is made whole in one transaction; one that exists must hold this session.
  void open_session(const SessionId& session, const ConfigDigest& digest) {
    if (table_count() == 0) {
      exec("BEGIN IMMEDIATE", "cannot be written");
      exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL)", "cannot be written");
      exec("CREATE TABLE admissions(round INTEGER NOT NULL, first INTEGER NOT NULL, counts BLOB NOT NULL, width INTEGER NOT NULL, "
           "messages BLOB NOT NULL, digest BLOB NOT NULL, PRIMARY KEY(round, first))",
           "cannot be written");
      Statement put;
      prepare(put, "INSERT INTO meta(key, value) VALUES (?, ?)");
      const auto set = [&](const char* key, const void* value, int bytes) {
        sqlite3_reset(put.s);
        sqlite3_bind_text(put.s, 1, key, -1, SQLITE_STATIC);
        sqlite3_bind_blob(put.s, 2, value, bytes, SQLITE_TRANSIENT);
        if (sqlite3_step(put.s) != SQLITE_DONE) fail_open("cannot be written");
      };
      const std::int64_t version = schema_version;
      set("schema", &version, sizeof version);
      set("session", session.data(), static_cast<int>(session.size()));
      set("config", digest.data(), static_cast<int>(digest.size()));
      exec("COMMIT", "cannot be written");
      return;
    }
    Statement q;
    if (sqlite3_prepare_v2(db_, "SELECT key, value FROM meta", -1, &q.s, nullptr) != SQLITE_OK)
      fail_open("holds tables but no shufflempc session: half made or another program's");
    std::optional<std::vector<std::uint8_t>> version, stored_session, stored_config;
    while (sqlite3_step(q.s) == SQLITE_ROW) {
      const std::string key = reinterpret_cast<const char*>(sqlite3_column_text(q.s, 0));
      const auto* v = static_cast<const std::uint8_t*>(sqlite3_column_blob(q.s, 1));
      std::vector<std::uint8_t> value(v, v + sqlite3_column_bytes(q.s, 1));
      if (key == "schema") version = value;
      if (key == "session") stored_session = value;
      if (key == "config") stored_config = value;
    }
    const auto refuse = [&](const std::string& why) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw std::runtime_error(where_ + ": " + why + ": refused");
    };
    std::int64_t v = 0;
    if (!version || !stored_session || !stored_config || version->size() != sizeof v)
      refuse("its database is half made (its session is not recorded)");
    std::memcpy(&v, version->data(), sizeof v);
    if (v != schema_version)
      refuse("its database has layout " + std::to_string(v) + ", this build reads layout " + std::to_string(schema_version));
    if (!std::equal(session.begin(), session.end(), stored_session->begin(), stored_session->end()))
      refuse("it holds session " + to_hex(*stored_session) + ", not " + to_hex(session) + " (one directory a session)");
    if (!std::equal(digest.begin(), digest.end(), stored_config->begin(), stored_config->end()))
      refuse("it holds session " + to_hex(session) + " under another config (the config was changed after records were admitted)");
  }

  void write_loop() {
    for (;;) {
      std::deque<Pending> batch;
      {
        std::unique_lock lock(queue_mutex_);
        queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left to write
        if (options_.group_commit) batch.swap(queue_);
        else {
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
        busy_ = true;
      }
      const auto results = commit(batch);
      for (std::size_t i = 0; i < batch.size(); ++i)
        if (batch[i].done) batch[i].done(results[i]);
      {
        std::lock_guard lock(queue_mutex_);
        busy_ = false;
      }
      idle_.notify_all();
    }
  }

  // One transaction for the whole batch: every admission durable, or (the commit failed) none.
  std::vector<AdmitResult> commit(std::deque<Pending>& batch) {
    std::lock_guard db_lock(db_mutex_);
    std::vector<AdmitResult> results(batch.size());
    const auto failed = [&](const std::string& why) {
      for (auto& r : results) {
        r.durable = r.repeated = false;
        r.error = where_ + ": " + why;
      }
      return results;
    };
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return failed(sqlite3_errmsg(db_));
    std::size_t written = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const Admission& a = batch[i].a;
      const RecordDigest d = a.digest();
      sqlite3_reset(find_.s);
      sqlite3_bind_int64(find_.s, 1, a.round);
      sqlite3_bind_int64(find_.s, 2, a.first);
      if (sqlite3_step(find_.s) == SQLITE_ROW) {
        const auto* kept = static_cast<const std::uint8_t*>(sqlite3_column_blob(find_.s, 0));
        const bool same = sqlite3_column_bytes(find_.s, 0) == static_cast<int>(d.size()) && std::memcmp(kept, d.data(), d.size()) == 0;
        results[i] = same ? AdmitResult{.durable = true, .repeated = true, .error = {}, .digest = d}
                          : AdmitResult{.durable = false, .repeated = false,
                                        .error = where_ + ": round " + std::to_string(a.round) + " already keeps another batch of party " +
                                                 std::to_string(a.first) + "'s link",
                                        .digest = d};
        continue;
      }
      std::vector<std::uint8_t> counts(a.counts.size() * 4);
      for (std::size_t k = 0; k < a.counts.size(); ++k) store_le<std::uint32_t>(counts.data() + 4 * k, a.counts[k]);
      sqlite3_reset(insert_.s);
      sqlite3_bind_int64(insert_.s, 1, a.round);
      sqlite3_bind_int64(insert_.s, 2, a.first);
      sqlite3_bind_blob(insert_.s, 3, counts.data(), static_cast<int>(counts.size()), SQLITE_TRANSIENT);
      sqlite3_bind_int64(insert_.s, 4, a.width);
      sqlite3_bind_blob(insert_.s, 5, a.messages.data(), static_cast<int>(a.messages.size()), SQLITE_STATIC);
      sqlite3_bind_blob(insert_.s, 6, d.data(), static_cast<int>(d.size()), SQLITE_STATIC);
      if (sqlite3_step(insert_.s) != SQLITE_DONE) {
        const std::string why = sqlite3_errmsg(db_);
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        return failed(why + ": nothing of this commit was kept");
      }
      sqlite3_clear_bindings(insert_.s);
      results[i] = {.durable = true, .repeated = false, .error = {}, .digest = d};
      ++written;
    }
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      const std::string why = sqlite3_errmsg(db_);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return failed(why + ": nothing of this commit was kept");
    }
    ++commits_;
    admissions_ += written;
    return results;
  }

  std::string where_;
  StoreOptions options_;
  std::unique_ptr<DirectoryLock> lock_;
  sqlite3* db_ = nullptr;
  std::mutex db_mutex_;
  Statement insert_, find_;
  std::mutex queue_mutex_;
  std::condition_variable queued_, idle_;
  std::deque<Pending> queue_;
  bool busy_ = false, stopping_ = false;
  std::atomic<std::uint64_t> commits_{0}, admissions_{0};
  std::thread writer_;
};

}  // namespace

std::unique_ptr<Rng> kept_randomness(AdmissionStore& store, const std::string& name) {
  Rng::Key key{};
  if (const auto kept = store.kept(name)) {
    if (kept->size() != key.size())
      throw std::runtime_error("the state directory keeps a torn " + name + " (" + std::to_string(kept->size()) + " bytes): refused");
    std::copy(kept->begin(), kept->end(), key.begin());
  } else {
    ensure_sodium();
    randombytes_buf(key.data(), key.size());
    store.keep(name, key);
  }
  auto rng = std::make_unique<KeyedRng>(key);
  sodium_memzero(key.data(), key.size());
  return rng;
}

std::unique_ptr<AdmissionStore> open_state_directory(const std::filesystem::path& directory, const SessionId& session,
                                                     const ConfigDigest& digest, const std::string& role, StoreOptions options) {
  return std::make_unique<SqliteStore>(directory, session, digest, role, options);
}

}  // namespace shufflempc::net
