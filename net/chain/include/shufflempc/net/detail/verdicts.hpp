// The analyzer's side of receipts and complaints (docs/mix-chain.md, "Receipts and complaints"):
// what the parties say of each round's receipt reaches the analyzer on links of their own, never
// through the shuffler, and the analyzer outputs a round only when every party the entry counts as
// submitted has confirmed that its records are in the batch the entry committed to, and no party
// has complained.
//
// VerdictBook is the rule, without sockets or threads (tests/net/test_verdicts.cpp drives it);
// VerdictServer takes the links (the same authenticated handshake as the shuffler's, each party
// proving its key against the analyzer's) on a thread of its own and keeps a book.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/log.hpp"
#include "shufflempc/net/wire.hpp"

namespace shufflempc::net::detail {

class VerdictBook {
 public:
  using Root = std::array<std::uint8_t, verdict_root_bytes>;
  // A verdict frame of the link of parties first .. first + v.parties.size() - 1 for `round`. A
  // party's first word stands, but a complaint replaces a confirmation. Only the round being
  // decided and the next one are kept (an authenticated party cannot grow the book with rounds to
  // come): false for a verdict beyond them (the link is then closed); one for a round decided
  // already is dropped.
  bool record(PartyId first, std::uint32_t round, const VerdictPayload& v);

  struct Decision {
    enum class Kind { wait, accept, refuse } kind = Kind::wait;
    std::string why;  // for refuse: one line naming the party and what it says
    std::size_t confirmed = 0;  // parties that confirmed (of `confirm`)
    std::size_t silent = 0;     // parties of `dropped` not heard from (they count as gone)
  };
  // Round `round`, whose committed batch the analyzer verified has root `root`: every party of
  // `confirm` (those the entry counts as submitted) must confirm that root; a party of `dropped`
  // (counted as dropped by the entry) is waited for until `expired` in case it complains. Any
  // complaint, a confirmation of another root, or a submitted party that says it did not submit,
  // refuses the round at once; a party of `confirm` still silent when `expired` refuses it too.
  [[nodiscard]] Decision decide(std::uint32_t round, const Root& root, std::span<const PartyId> confirm, std::span<const PartyId> dropped,
                                bool expired) const;
  void forget_before(std::uint32_t round);

 private:
  struct Entry {
    Verdict verdict = Verdict::absent;
    Root root{};
    std::string reason;
  };
  std::map<std::uint32_t, std::map<PartyId, Entry>> rounds_;
  std::uint32_t floor_ = 0;  // the first round not yet decided (forget_before)
};

class VerdictServer {
 public:
  // Listens on `listen_fd` (a bound, listening socket it takes over), or else binds `host`:`port`
  // (0: the OS picks), for the parties of `config`, as the holder of `analyzer` (the config's
  // analyzer key). Computes every party's static secret with the analyzer's key first.
  VerdictServer(const SessionConfig& config, const KeyPair& analyzer, int listen_fd, const std::string& host, std::uint16_t port, Logger log);
  ~VerdictServer();
  VerdictServer(const VerdictServer&) = delete;
  VerdictServer& operator=(const VerdictServer&) = delete;
  [[nodiscard]] std::uint16_t port() const { return port_; }
  // VerdictBook::decide, waiting for the verdicts until it no longer says wait, or `until` (then expired).
  [[nodiscard]] VerdictBook::Decision await(std::uint32_t round, const VerdictBook::Root& root, std::span<const PartyId> confirm,
                                            std::span<const PartyId> dropped, std::chrono::steady_clock::time_point until);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
};

}  // namespace shufflempc::net::detail
