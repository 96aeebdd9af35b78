// The distributed key generation over TCP (net/dkg.hpp) and the t-of-k key it gives a verifiable
// chain: the coordinator and TcpDkgServers on 127.0.0.1 make a key every server agrees on; a server
// that deals a bad share is disqualified and named; a server that is not there, or that takes the
// connection and never answers, is left out and named within the deadline; a coordinator without the shuffler's key is refused. A round delivered to every party
// completes with k - t servers gone after the mix, with the in-process output and a transcript
// that verifies against the config; with more gone it fails naming the count; the config carries
// the key generation's transcript and refuses one that was altered.
#include <doctest/doctest.h>

#include <asio.hpp>

#include "shufflempc/hex.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/adversary.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"

#include <thread>

using namespace shufflempc;

namespace {

// A verifiable chain of k servers (shuffler first) and its key generation's setup at threshold t.
struct Chain {
  net::LocalDeployment local;
  mixnet::DkgSetup setup;
};
Chain make_chain(std::size_t k, std::size_t t) {
  SystemRng rng;
  net::SessionConfig base;
  base.protocol = "(test)";
  base.mix = net::MixKind::verifiable;
  base.rounds = {RoundShape{.width = net::verifiable_width(1), .delivery = Delivery::all_parties, .min_messages = 1, .max_messages = 1, .record_width = 1}};
  Chain c{net::LocalDeployment::create(2, rng, base, k), {}};
  c.setup = net::dkg_setup(c.local.config, t);
  return c;
}

// Further servers 1 .. k-1 (options[h - 1] each) in threads; the coordinator here. Every server's report.
struct Generated {
  net::KeyGeneration generation;
  std::vector<net::DkgServed> served;
};
Generated generate(const Chain& c, std::vector<net::DkgServerOptions> options = {}, std::vector<std::size_t> absent = {},
                   std::chrono::milliseconds deadline = std::chrono::milliseconds(20'000), net::ServerFrameTap coordinator_tap = {}) {
  const std::size_t further = c.local.further_server_keys.size();
  options.resize(further);
  std::vector<std::unique_ptr<net::TcpDkgServer>> servers;
  std::vector<std::string> addresses;
  for (std::size_t h = 0; h < further; ++h) {
    servers.push_back(std::make_unique<net::TcpDkgServer>(c.local.further_server_keys[h], c.local.shuffler.public_key(), "127.0.0.1", 0,
                                                          net::Logger{}, options[h]));
    addresses.push_back("127.0.0.1:" + std::to_string(servers.back()->port()));
  }
  Generated g;
  g.served.resize(further);
  std::vector<std::thread> threads;
  for (std::size_t h = 0; h < further; ++h) {
    if (std::find(absent.begin(), absent.end(), h + 1) != absent.end()) {
      servers[h].reset();  // its port closed: nobody answers there
      continue;
    }
    threads.emplace_back([&, h] { g.served[h] = servers[h]->run(); });
  }
  // A coordinator that fails still lets every server's run() end (its links close): joined first.
  std::exception_ptr failed;
  try {
    g.generation = net::generate_key(c.setup, c.local.shuffler, addresses, deadline, net::Logger{}, std::move(coordinator_tap));
  } catch (...) {
    failed = std::current_exception();
  }
  for (auto& t : threads) t.join();
  if (failed) std::rethrow_exception(failed);
  return g;
}

}  // namespace

TEST_CASE("dkg over TCP: five servers make a 3-of-5 key that each of them holds its share of") {
  const Chain c = make_chain(5, 3);
  const auto g = generate(c);
  const auto& out = g.generation.outcome;
  CHECK(g.generation.notes.empty());
  CHECK(out.qualified.size() == 5);
  CHECK(out.key.threshold == 3);
  REQUIRE(out.key.check().empty());
  for (std::size_t h = 1; h < 5; ++h) {
    CAPTURE(h);
    const auto& s = g.served[h - 1];
    CHECK(s.error.empty());
    CHECK(s.index == h);
    REQUIRE(s.outcome);
    CHECK(s.outcome->key == out.key);
    CHECK(mixnet::dkg_share(g.generation.transcript, out, h, c.local.further_server_keys[h - 1].secret_key()).public_key == out.key.shares[h]);
  }
  CHECK(mixnet::dkg_share(g.generation.transcript, out, 0, c.local.shuffler.secret_key()).public_key == out.key.shares[0]);
}

TEST_CASE("dkg over TCP: a server that deals a bad share is disqualified and named, one that is not there is left out and named") {
  SUBCASE("a bad dealer") {
    const Chain c = make_chain(4, 2);
    std::vector<net::DkgServerOptions> o(3);
    o[1].bad_share_to = 3;  // server 2 cheats server 3
    const auto g = generate(c, o);
    const auto& out = g.generation.outcome;
    REQUIRE(out.disqualified.size() == 1);
    CHECK(out.disqualified[0].first == 2);
    CHECK(out.qualified == std::vector<std::uint32_t>{0, 1, 3});
    REQUIRE(g.generation.notes.size() == 1);
    CHECK(g.generation.notes[0].find("server 2 (127.0.0.1:") != std::string::npos);
    CHECK(g.generation.notes[0].find("is disqualified: its share for server 3 is not on its commitments") != std::string::npos);
    for (const auto& s : g.served) CHECK(s.error.empty());  // the cheated server too holds its share
    CHECK(g.generation.left_out.empty());
    g.generation.require_everyone();  // a disqualified dealer took every step
  }
  SUBCASE("a server that is not there") {
    const Chain c = make_chain(3, 2);
    const auto g = generate(c, {}, {2});
    const auto& out = g.generation.outcome;
    CHECK(out.qualified == std::vector<std::uint32_t>{0, 1});
    REQUIRE(g.generation.notes.size() == 2);
    CHECK(g.generation.notes[0].find("mix server 2 (127.0.0.1:") != std::string::npos);
    CHECK(g.generation.notes[0].find("is left out of the key generation at its commitment") != std::string::npos);
    CHECK(g.generation.notes[1].find("server 2 (127.0.0.1:") != std::string::npos);
    CHECK(g.generation.notes[1].find("is disqualified: it sent no commitment") != std::string::npos);
    CHECK(g.generation.left_out == std::vector<std::size_t>{2});
    CHECK_THROWS_WITH_AS(g.generation.require_everyone(), doctest::Contains("the key generation left out 1 of the chain's servers (mix server 2"),
                         std::runtime_error);
  }
}

TEST_CASE("dkg over TCP: a server that takes the connection and never answers is left out within the deadline, and the key made without it") {
  const Chain c = make_chain(3, 2);
  // Server 2's address is a socket that listens and never reads: the connection is made (the
  // kernel accepts it), the handshake is never answered.
  asio::io_context io;
  asio::ip::tcp::acceptor silent(io, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  net::TcpDkgServer server(c.local.further_server_keys[0], c.local.shuffler.public_key(), "127.0.0.1", 0, net::Logger{});
  net::DkgServed served;
  std::thread t([&] { served = server.run(); });
  const auto started = std::chrono::steady_clock::now();
  const auto g = net::generate_key(c.setup, c.local.shuffler,
                                   {"127.0.0.1:" + std::to_string(server.port()), "127.0.0.1:" + std::to_string(silent.local_endpoint().port())},
                                   std::chrono::milliseconds(1'000));
  const auto took = std::chrono::steady_clock::now() - started;
  t.join();
  std::string notes;
  for (const auto& n : g.notes) notes += n + "\n";
  INFO(notes);
  CHECK(g.left_out == std::vector<std::size_t>{2});
  CHECK(notes.find("mix server 2 (127.0.0.1:" + std::to_string(silent.local_endpoint().port()) +
                   ") is left out of the key generation at its commitment: no answer within 1000 ms") != std::string::npos);
  CHECK(took < std::chrono::seconds(10));  // one deadline, not one per step
  CHECK(g.outcome.qualified == std::vector<std::uint32_t>{0, 1});
  REQUIRE(g.outcome.key.check().empty());
  CHECK(served.error.empty());  // the server that answered holds its share of the key made without server 2
  REQUIRE(served.outcome);
  CHECK(served.outcome->key == g.outcome.key);
  CHECK_THROWS_WITH_AS(g.require_everyone(), doctest::Contains("left out 1 of the chain's servers (mix server 2"), std::runtime_error);
}

TEST_CASE("dkg over TCP: a coordinator that does not hold the shuffler's key is refused") {
  const Chain c = make_chain(3, 2);
  net::TcpDkgServer server(c.local.further_server_keys[0], c.local.shuffler.public_key(), "127.0.0.1", 0, net::Logger{},
                           {.timeout = std::chrono::milliseconds(1'000)});
  // A stranger's key as server 0: the server's handshake does not accept it as the entry.
  SystemRng rng;
  auto setup = c.setup;
  const auto stranger = net::KeyPair::generate(rng);
  setup.box_keys[0] = stranger.public_key();
  setup.signers[0] = net::signing_key_of(stranger).public_key();
  std::thread t([&] { (void)server.run(); });
  std::vector<std::string> notes;
  // Both further servers left out, the stranger alone would hold the 2-of-3 key: no key is made.
  CHECK_THROWS_WITH_AS((void)net::generate_key(setup, stranger, {"127.0.0.1:" + std::to_string(server.port()), "127.0.0.1:1"},
                                               std::chrono::milliseconds(2'000), [&](const std::string& l) { notes.push_back(l); }),
                       doctest::Contains("1 server(s) qualified, fewer than the threshold 2"), std::invalid_argument);
  t.join();
  std::string all;
  for (const auto& n : notes) all += n + "\n";
  INFO(all);
  CHECK(all.find("mix server 1 (127.0.0.1:" + std::to_string(server.port()) + ") is left out of the key generation at its commitment") !=
        std::string::npos);
  // And the coordinator itself must hold server 0's key.
  CHECK_THROWS_WITH_AS((void)net::generate_key(c.setup, stranger, {"127.0.0.1:1", "127.0.0.1:2"}, std::chrono::milliseconds(100)),
                       doctest::Contains("coordinated with the shuffler's key file"), std::invalid_argument);
}

TEST_CASE("dkg over TCP: a round to every party completes with k - t servers gone after the mix, and fails with more gone") {
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("ikos-key-exchange", {{"k", "2"}, {"labels", "6"}}, 3);
  const std::vector<Value> inputs(3, Value());
  SeededRng a(21);
  const RunResult local = run_in_process(*protocol, inputs, a);
  {
    SeededRng b(21);
    net::LoopbackFault f;
    f.decryption_threshold = 3;
    f.gone_after_mix = {3, 4};  // 5 - 3 = 2 of 5 gone
    const auto run = net::run_over_loopback_chain(*protocol, inputs, b, 5, {}, net::MixKind::verifiable, f);
    CHECK(run.result.output == local.output);
    CHECK(run.result.party_outputs == local.party_outputs);
    REQUIRE(run.key_generation);
    REQUIRE(run.transcript.rounds.size() == 1);
    const auto& r = run.transcript.rounds[0];
    CHECK(r.key.servers == run.key_generation->outcome.key);
    CHECK(r.decrypted_by == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(mixnet::verify_transcript(mixnet::Transcript::from_json(run.transcript.to_json()), 2).ok());
  }
  {
    SeededRng b(21);
    net::LoopbackFault f;
    f.decryption_threshold = 3;
    f.gone_after_mix = {2, 3, 4};  // 3 of 5 gone: 2 shares, 3 needed
    const std::string error = shufflempc::test::error_text(
        [&] { (void)net::run_over_loopback_chain(*protocol, inputs, b, 5, {}, net::MixKind::verifiable, f); });
    INFO(error);
    CHECK(error.find("2 of 5 mix servers decrypted, 3 needed (gone: mix server 2") != std::string::npos);
  }
}

TEST_CASE("dkg: the session config carries the key generation's transcript, and refuses one altered or of another chain") {
  const Chain c = make_chain(3, 2);
  const auto g = generate(c);
  net::SessionConfig config = c.local.config;
  config.distributed_key = std::make_shared<net::SessionConfig::DistributedKey>(
      net::SessionConfig::DistributedKey{g.generation.transcript, g.generation.outcome});
  const auto back = net::SessionConfig::from_json(config.to_json());
  REQUIRE(back.distributed_key);
  CHECK(back.distributed_key->outcome.key == g.generation.outcome.key);
  CHECK(net::round_key(back, Delivery::all_parties).servers == g.generation.outcome.key);
  CHECK(net::round_key(c.local.config, Delivery::all_parties).servers != g.generation.outcome.key);  // without it: the combined key
  CHECK(net::server_share(back, c.local.further_server_keys[1], 2).public_key == g.generation.outcome.key.shares[2]);
  CHECK(back.digest() != c.local.config.digest());
  {
    auto j = config.to_json();
    std::string hex = j["distributed_key"].get<std::string>();
    hex[hex.size() - 3] = hex[hex.size() - 3] == '0' ? '1' : '0';  // a byte of the last endorsement
    j["distributed_key"] = hex;
    CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j), doctest::Contains("session config: 'distributed_key': qualified server 2's signature of the outcome does not hold"),
                         std::invalid_argument);
  }
  {
    // The coordinator's forgery: a transcript of its own commitment and deal only, the further
    // servers disqualified for sending none. Their checks at start-up would pass (each one's share
    // is the coordinator's deal to it) and the coordinator alone would hold the key: refused,
    // because one server cannot make a 2-of-3 key.
    auto forged = g.generation.transcript;
    for (std::size_t i = 1; i < forged.messages.size(); ++i) forged.messages[i] = {};
    for (auto& e : forged.endorsements) e.reset();
    auto j = config.to_json();
    j["distributed_key"] = to_hex(forged.to_bytes());
    CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j),
                         doctest::Contains("session config: 'distributed_key': 1 server(s) qualified, fewer than the threshold 2"), std::invalid_argument);
  }
  {
    const Chain other = make_chain(3, 2);
    auto j = other.local.config.to_json();
    j["distributed_key"] = config.to_json()["distributed_key"];
    CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j), doctest::Contains("session config: 'distributed_key' was made for another session"),
                         std::invalid_argument);
  }
}

// The adversary harness (net/adversary.hpp) in the key generation: the coordinator's frames to
// server 1, or server 1's answers, at each of the five steps, each mutation of the catalogue in
// turn, over TCP. After every case: each process ends within its limits; and either no config
// can be written (the coordinator fails, or leaves a server out: require_everyone refuses), or the
// config loads (every qualified server's endorsement holds, at least t qualify) and every server
// holds the same key, each having checked that the transcript carries its own messages as it sent
// them: a key only the coordinator knows cannot come out of it.
namespace {

struct DkgCase {
  bool coordinator_side = true;  // the coordinator's frames to server 1, or server 1's to the coordinator
  std::uint32_t step = 1;
  std::string mutation;          // empty: the baseline, no frame changed
};

// One case; returns whether a config came out of it.
bool run_dkg_case(const Chain& c, const DkgCase& k) {
  CAPTURE(k.coordinator_side);
  CAPTURE(k.step);
  CAPTURE(k.mutation);
  const auto mutate = [k](net::OutgoingFrame& f) {
    return k.mutation.empty() || f.round != k.step ? net::TapAction::send : net::adversary::mutate(k.mutation, f);
  };
  std::vector<net::DkgServerOptions> options(c.local.further_server_keys.size());
  for (auto& o : options) o.timeout = std::chrono::milliseconds(3'000);
  net::ServerFrameTap coordinator_tap;
  if (k.coordinator_side) coordinator_tap = [mutate](std::size_t h, net::OutgoingFrame& f) { return h == 1 ? mutate(f) : net::TapAction::send; };
  else options[0].frame_tap = mutate;
  const auto start = std::chrono::steady_clock::now();
  std::optional<Generated> g;
  std::string failure;
  try {
    g = generate(c, options, {}, std::chrono::milliseconds(500), coordinator_tap);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  // Five steps of at most the deadline each, and the servers' own limit after the last.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(8));
  if (!g) {
    INFO(failure);
    CHECK_FALSE(failure.empty());
    return false;
  }
  if (!g->generation.left_out.empty()) {
    CHECK_THROWS_AS(g->generation.require_everyone(), std::runtime_error);  // no config is written
    return false;
  }
  net::SessionConfig config = c.local.config;
  config.distributed_key =
      std::make_shared<net::SessionConfig::DistributedKey>(net::SessionConfig::DistributedKey{g->generation.transcript, g->generation.outcome});
  const auto loaded = net::SessionConfig::from_json(config.to_json());  // throws if a consent or the threshold is missing
  REQUIRE(loaded.distributed_key);
  const auto& out = loaded.distributed_key->outcome;
  CHECK(out.qualified.size() >= c.setup.threshold);
  for (std::size_t h = 1; h <= c.local.further_server_keys.size(); ++h) {
    CAPTURE(h);
    const auto& served = g->served[h - 1];
    INFO(served.error);
    REQUIRE(served.outcome);  // every server consented to this outcome
    CHECK(served.outcome->key == out.key);
  }
  return true;
}

void dkg_sweep(bool coordinator_side) {
  const Chain c = make_chain(3, 2);
  REQUIRE(run_dkg_case(c, {coordinator_side, 1, ""}));  // the baseline: a key, every server's share in it
  std::size_t cases = 1, configs = 0;
  for (std::uint32_t step = 1; step <= 5; ++step)
    for (const auto& m : net::adversary::mutations()) {
      if (m.find("messages-") == 0 || m.find("submitted-") == 0 || m.find("dropped-") == 0 || m.find("reports-") == 0 ||
          m.find("evidence-") == 0 || m == "ids-flip")
        continue;  // a result frame's fields: no key-generation frame has them
      configs += run_dkg_case(c, {coordinator_side, step, m}) ? 1 : 0;
      ++cases;
    }
  MESSAGE(cases << " cases, " << std::string(coordinator_side ? "the coordinator's frames to server 1" : "server 1's answers") << ": " << configs
                << " ended with a config every server consented to");
}

}  // namespace

TEST_CASE("adversary harness: the key generation's coordinator, each mutation of its frames at each step" * doctest::test_suite("slow")) {
  dkg_sweep(true);
}

TEST_CASE("adversary harness: a server of the key generation, each mutation of its answers at each step" * doctest::test_suite("slow")) {
  dkg_sweep(false);
}
