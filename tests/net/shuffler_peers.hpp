// Helpers of the shuffler-process tests (test_shuffler_robustness.cpp, test_shuffler_deadlines.cpp,
// test_shuffler_reconnect.cpp): a session of four parties, 0..2 honest on a TcpChannel with the
// analyzer, party 3 played by the test on a link of its own.
#pragma once

#include <sodium.h>

#include <chrono>
#include <exception>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "net/harness.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::test;
using net::FrameType;

constexpr std::size_t n_parties = 4;  // parties 0..2 are honest, party 3 is the one under test
const std::vector<PartyId> honest = {0, 1, 2};

// The session's protocol (central-laplace) declares exactly one message per party per round.
inline std::vector<std::uint8_t> messages_of(PartyId id) { return {static_cast<std::uint8_t>(10 * id + 1)}; }

inline std::multiset<std::uint8_t> expected(const std::vector<PartyId>& ids) {
  std::multiset<std::uint8_t> all;
  for (PartyId id : ids)
    for (auto b : messages_of(id)) all.insert(b);
  return all;
}

// Party 3's batch as it goes on the wire in ESA mode: each message sealed to the analyzer.
inline std::vector<std::uint8_t> sealed(const NetSession& s, const std::vector<std::uint8_t>& plain) {
  std::vector<std::uint8_t> out(plain.size() * (1 + crypto_box_SEALBYTES));
  for (std::size_t i = 0; i < plain.size(); ++i)
    crypto_box_seal(out.data() + i * (1 + crypto_box_SEALBYTES), &plain[i], 1, s.config.analyzer_key.data());
  return out;
}

// The honest parties' round on `channel` (parties 0..2, one message each, party 3 expected too).
inline RoundOutcome honest_round(net::TcpChannel& channel) {
  RoundRules spec;
  spec.shape = RoundShape::exactly(1, Delivery::analyzer_only, 1);
  for (PartyId i = 0; i < n_parties; ++i) spec.expected.push_back(i);
  Submissions local;
  local.messages = MessageBatch(1);
  for (PartyId id : honest) {
    const std::size_t first = local.messages.count();
    for (auto b : messages_of(id)) local.messages.push_back(std::span(&b, 1));
    local.parties.push_back({id, first, local.messages.count() - first});
  }
  return channel.exchange(spec, std::move(local));
}

// Parties 0..2 and the analyzer in one TcpChannel (each on its own link).
inline std::vector<net::Identity> honest_identities(const NetSession& s) {
  std::vector<net::Identity> ids;
  for (PartyId id : honest) ids.push_back({id, s.parties[id]});
  ids.push_back({net::analyzer_id, s.analyzer});
  return ids;
}

// Their one round, after `computing` (a protocol computing the parties' messages, played by a pause).
inline RoundOutcome run_honest(const NetSession& s, std::uint16_t port, net::TcpChannelOptions options = {},
                        std::chrono::milliseconds computing = {}) {
  net::TcpChannel channel(s.config, honest_identities(s), "127.0.0.1", port, {}, std::move(options));
  std::this_thread::sleep_for(computing);
  return honest_round(channel);
}

// Party 3 connects with its real key (a compromised but authenticated party).
inline std::shared_ptr<net::detail::SecureLink> connect_party3(asio::io_context& io, const NetSession& s, std::uint16_t port) {
  auto link = dial(io, port, s.config.limits());
  SystemRng rng;
  run_sync(io, link->connect_as(s.config.session, s.config.digest(), 3, s.parties[3], s.config.shuffler_key, rng));
  return link;
}

// Sends an empty frame of `type` for `round` on `link`, and returns the reason of the abort frame
// the shuffler answers with.
inline std::string refusal_of(asio::io_context& io, net::detail::SecureLink& link, FrameType type, std::uint32_t round) {
  link.send(type, round, {});
  const auto answer = run_sync(io, link.receive());
  CHECK(answer.header.type == FrameType::abort);
  return std::string(answer.payload.begin(), answer.payload.end());
}

// One message of one byte per party, in MPC mode.
const RoundShape mpc_round = RoundShape::exactly(1, Delivery::all_parties, 1);

// Rewrites the session as two MPC rounds (the shuffler enforces the config's shapes).
inline void two_mpc_rounds(NetSession& s) {
  s.config.rounds = {mpc_round, mpc_round};
  s.config.save(s.path("session.json"));
}

// `body` on a thread of its own; what it throws lands in `error` (rethrown by the test after join).
template <class F>
inline std::thread on_thread(std::exception_ptr& error, F body) {
  return std::thread([&error, body = std::move(body)]() mutable {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
  });
}

// The analyzer's identity on a link of its own (the test plays it).
inline std::shared_ptr<net::detail::SecureLink> connect_analyzer(asio::io_context& io, const NetSession& s, std::uint16_t port) {
  auto link = dial(io, port, s.config.limits());
  SystemRng rng;
  run_sync(io, link->connect_as(s.config.session, s.config.digest(), net::analyzer_id, s.analyzer, s.config.shuffler_key, rng));
  return link;
}

// The analyzer's empty batch naming `round` (its one count, 0: "that round's result again"), and
// the result frame it gets back.
inline net::detail::Frame ask_again(asio::io_context& io, net::detail::SecureLink& analyzer, std::uint32_t round) {
  analyzer.send(FrameType::submit, round, 1, 0, std::vector<std::uint8_t>(4, 0));
  return run_sync(io, analyzer.receive());
}

// The analyzer confirms the session's last result (a done frame) and closes its link once the frame is out.
inline void confirm_last(asio::io_context& io, net::detail::SecureLink& analyzer, std::uint32_t round) {
  analyzer.send(FrameType::done, round, {});
  analyzer.close_after_flush();
  io.restart();
  io.run_for(std::chrono::seconds(5));
}

// Every party (0 .. 3) on one TcpChannel without the analyzer: one message `10 * round + id` each.
inline RoundOutcome all_parties_round(net::TcpChannel& channel, std::uint32_t round, const RoundShape& shape) {
  RoundRules spec;
  spec.round = round;
  spec.shape = shape;
  Submissions local;
  local.messages = MessageBatch(1);
  for (PartyId id = 0; id < n_parties; ++id) {
    spec.expected.push_back(id);
    const std::uint8_t b = static_cast<std::uint8_t>(10 * round + id);
    local.parties.push_back({id, local.messages.count(), 1});
    local.messages.push_back(std::span(&b, 1));
  }
  return channel.exchange(spec, std::move(local));
}

inline std::vector<net::Identity> every_party(const NetSession& s) {
  std::vector<net::Identity> ids;
  for (PartyId id = 0; id < n_parties; ++id) ids.push_back({id, s.parties[id]});
  return ids;
}

inline void check_honest_only(const NetSession& s, const ShufflerProcess& sh, const std::vector<PartyId>& dropped) {
  const RoundOutcome out = run_honest(s, sh.port);
  CHECK(received(out) == expected(honest));
  CHECK(out.dropped == dropped);
  CHECK(out.submitted == honest);
}

}  // namespace
