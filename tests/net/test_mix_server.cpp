// The chain of mix servers over TCP (net/mix_server.hpp and the shuffler as its entry): every
// registered protocol gives run_in_process's seeded result over a networked chain of 2 and 3
// servers; each round's reports reach the analyzer verified; a server that mixes a round once and
// refuses another batch for it; a server that is gone ends the round with a line naming it.
#include <doctest/doctest.h>

#include <signal.h>

#include <array>
#include <atomic>
#include <mutex>
#include <thread>

#include "net/harness.hpp"
#include "net/mix_server_thread.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/net/store.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/registry.hpp"
#include "support/small_protocols.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

using namespace shufflempc;

TEST_CASE("mix servers over TCP: every registered protocol runs unchanged over a chain of 2 and 3 servers, with run_in_process's seeded result" * doctest::test_suite("full")) {
  const Registry registry = builtin_registry();
  for (const auto& info : registry.all()) {
    CAPTURE(info.name);
    const auto [protocol, inputs] = shufflempc::test::small_run(registry, info);
    for (const std::size_t chain : {2u, 3u}) {
      CAPTURE(chain);
      SeededRng a(5), b(5);
      const RunResult local = run_in_process(*protocol, inputs, a);
      const auto run = net::run_over_loopback_chain(*protocol, inputs, b, chain);
      CHECK(run.result.output == local.output);
      CHECK(run.result.messages == local.messages);
      CHECK(run.result.party_outputs == local.party_outputs);
      // The analyzer verified the reports of every round that carried messages to it.
      for (const auto& [round, reports] : run.reports) {
        CAPTURE(round);
        REQUIRE(reports.size() == chain);
        for (std::size_t h = 0; h < chain; ++h) {
          CHECK(reports[h].place.hop == h);
          CHECK(reports[h].not_opened == 0);
          CHECK(reports[h].duplicates == 0);
          CHECK(reports[h].records_out == reports[0].records_in);
        }
      }
    }
  }
}

namespace {

using shufflempc::test::OneServer;

template <class Body>
void connect_as(OneServer& s, PartyId id, const net::KeyPair& keys, Body body) {
  s.connect_as(id, keys, std::move(body));
}

template <class Body>
void as_entry(OneServer& s, Body body) {
  s.as_entry(std::move(body));
}

}  // namespace

TEST_CASE("mix server: a round is mixed once, the same batch again gets the same answer, another batch or a round out of order is refused") {
  OneServer s;
  const MessageBatch first = s.batch(0, 0xa1);
  std::vector<std::uint8_t> answer;
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::mix, 0, static_cast<std::uint32_t>(first.width()), 4, first.bytes());
    const auto f = co_await link.receive();
    CHECK(f.header.type == net::FrameType::mixed);
    CHECK(f.header.count == 4);
    CHECK(f.header.width == first.width() - net::onion::layer_overhead);
    answer = f.payload;
  });
  // The entry lost its link and sends the same batch again: the same records, the same report.
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::mix, 0, static_cast<std::uint32_t>(first.width()), 4, first.bytes());
    const auto f = co_await link.receive();
    CHECK(f.payload == answer);
  });
  // Another batch for round 0 (a replay-tagging attempt of a corrupt entry) is refused with the reason.
  const MessageBatch other = s.batch(0, 0xb2);
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::mix, 0, static_cast<std::uint32_t>(other.width()), 4, other.bytes());
    const auto f = co_await link.receive();
    CHECK(f.header.type == net::FrameType::abort);
    CHECK(std::string(f.payload.begin(), f.payload.end()).find("round 0 was mixed already, with another batch") != std::string::npos);
  });
  // A round out of order is refused.
  const MessageBatch later = s.batch(1, 0xc3);
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::mix, 2, static_cast<std::uint32_t>(later.width()), 4, later.bytes());
    const auto f = co_await link.receive();
    CHECK(f.header.type == net::FrameType::abort);
    CHECK(std::string(f.payload.begin(), f.payload.end()).find("round 2 is out of order: the next round to mix is 1") != std::string::npos);
  });
  // Round 1: two of its own records, one of them twice, and one of round 0's replayed into it. The
  // copy is refused, the replay does not open; both are counted and the rest goes on.
  MessageBatch mixed(later.width());
  mixed.push_back(later[0]);
  mixed.push_back(later[1]);
  mixed.push_back(later[1]);
  mixed.push_back(first[0]);
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::mix, 1, static_cast<std::uint32_t>(mixed.width()), 4, mixed.bytes());
    const auto f = co_await link.receive();
    REQUIRE(f.header.type == net::FrameType::mixed);
    CHECK(f.header.count == 2);
    const auto report = net::decode_reports(std::span(f.payload).first(net::hop_report_bytes)).front();
    CHECK(report.records_in == 4);
    CHECK(report.records_out == 2);
    CHECK(report.duplicates == 1);
    CHECK(report.not_opened == 1);
  });
  // The entry says goodbye (an abort frame without a reason): round 1 was the last, the server ends.
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::abort, 1, {});
    co_return;
  });
  s.thread.join();
  REQUIRE(s.reports.size() == 1);
  CHECK(s.reports[0].error.empty());
  CHECK(s.reports[0].rounds.size() == 2);
}

TEST_CASE("mix server: 200 idle connections neither exhaust it nor lock the entry out, and the log stays short") {
  OneServer s(net::MixServerOptions{.max_unauthenticated = 8, .log_lines_per_second = 5});
  asio::io_context io;
  std::vector<asio::ip::tcp::socket> idle;
  for (int i = 0; i < 200; ++i) {
    idle.emplace_back(io);
    idle.back().connect({asio::ip::make_address("127.0.0.1"), s.server->port()});
  }
  const MessageBatch batch = s.batch(0, 0x5a);
  as_entry(s, [&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(net::FrameType::mix, 0, static_cast<std::uint32_t>(batch.width()), 4, batch.bytes());
    const auto f = co_await link.receive();
    CHECK(f.header.type == net::FrameType::mixed);
    CHECK(f.header.count == 4);
  });
  // All but the newest few idle connections were closed (a read sees the end of the stream).
  const std::size_t closed = test::count_closed(idle);
  CHECK(closed >= 200 - 8);
  std::lock_guard lock(s.log_mutex);
  // The same rule as the shuffler's (detail::PendingLinks): the evictions' line is rate-limited.
  std::size_t evictions = 0;
  for (const auto& line : s.log) evictions += line.find("the oldest is closed") != std::string::npos ? 1 : 0;
  CHECK(evictions >= 1);
  CHECK(evictions <= 2 * 5);  // at most two one-second windows of them
  CHECK(s.log.size() < 30);
}

TEST_CASE("mix server: a flood of refused hellos costs the log a few lines a second and a count, not a line each") {
  OneServer s(net::MixServerOptions{.log_lines_per_second = 5});
  net::Hello hello;
  hello.session = s.local.config.session;
  hello.first = 0;  // a party: a mix server admits only the entry
  hello.count = 1;
  hello.config = s.local.config.digest();
  const auto bytes = net::encode_hello(hello);
  asio::io_context io;
  const auto start = std::chrono::steady_clock::now();
  std::size_t sent = 0;
  // Two windows of one second at least, so that the count of the first is announced.
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2'300) || sent < 300) {
    asio::ip::tcp::socket c(io);
    std::error_code ec;
    c.connect({asio::ip::make_address("127.0.0.1"), s.server->port()}, ec);
    if (ec) continue;
    asio::write(c, asio::buffer(bytes), ec);
    std::array<std::uint8_t, 64> reply{};
    (void)c.read_some(asio::buffer(reply), ec);  // the server's refusal closes it
    ++sent;
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count() + 1;
  s.server->stop();
  s.thread.join();
  std::lock_guard lock(s.log_mutex);
  std::size_t refused = 0, counts = 0;
  for (const auto& l : s.log) {
    refused += l.find("rejected: a mix server admits only the entry") != std::string::npos;
    counts += l.find("more lines like 'rejected' suppressed in the last second") != std::string::npos;
  }
  INFO(sent << " hellos in " << seconds << " s, " << s.log.size() << " lines");
  CHECK(refused >= 5);
  CHECK(refused <= 5 * static_cast<std::size_t>(seconds));
  CHECK(counts >= 1);
  CHECK(s.log.size() <= 6 * static_cast<std::size_t>(seconds) + 2);
}

TEST_CASE("mix server: only the entry is admitted, and a key that is not in the chain is refused when the server starts") {
  OneServer s;
  // A party of the session (a valid identity, but not the entry) is refused.
  CHECK_THROWS_AS(connect_as(s, 0, s.local.parties[0], [](net::detail::SecureLink&) -> asio::awaitable<void> { co_return; }),
                  std::system_error);
  CHECK_THROWS_WITH_AS(net::TcpMixServer(s.local.analyzer, {s.local.config}, "127.0.0.1", 0),
                       doctest::Contains("not one of the 3 servers"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(net::TcpMixServer(s.local.shuffler, {s.local.config}, "127.0.0.1", 0),
                       doctest::Contains("entry (hop 0): run it as the shuffler"), std::invalid_argument);
}

TEST_CASE("mix chain over TCP: a further server that is not there ends the round with one line naming it") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 100);
  std::vector<Value> inputs(100, 1);
  SystemRng keys_rng;
  net::SessionConfig base;
  base.protocol = "counting";
  base.deadline = std::chrono::milliseconds(5'000);
  base.rounds = net::wire_rounds(*protocol, 3);
  const auto local = net::LocalDeployment::create(100, keys_rng, base, 3);
  // Server 2's address takes no connection (a port bound and closed).
  std::uint16_t dead_port = 0;
  {
    asio::io_context io;
    asio::ip::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    dead_port = a.local_endpoint().port();
  }
  net::TcpMixServer one(local.further_server_keys[0], {local.config}, "127.0.0.1", 0);
  std::thread one_thread([&] { (void)one.run(); });
  net::ShufflerOptions options;
  options.hop_addresses = {"127.0.0.1:" + std::to_string(one.port()), "127.0.0.1:" + std::to_string(dead_port)};
  std::vector<std::string> lines;
  net::TcpShuffler shuffler(local.shuffler, {local.config}, "127.0.0.1", 0, [&](const std::string& l) { lines.push_back(l); }, options);
  std::vector<net::ShufflerReport> reports;
  std::thread server([&] { reports = shuffler.run(); });
  {
    SeededRng rng(1);
    net::TcpChannel channel(local.config, local.all_identities(), "127.0.0.1", shuffler.port(), {}, {.share_links = true});
    CHECK_THROWS_WITH_AS((void)run_all_parties(*protocol, channel, inputs, rng, {}), doctest::Contains("mix server 2 (127.0.0.1:"),
                         std::system_error);
  }
  server.join();
  one.stop();
  one_thread.join();
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].error.find("mix server 2 (127.0.0.1:" + std::to_string(dead_port) + ")") != std::string::npos);
  // One line says it.
  std::size_t naming = 0;
  for (const auto& l : lines) naming += l.find("mix server 2") != std::string::npos && l.find("session aborted") != std::string::npos;
  CHECK(naming == 1);
}

TEST_CASE("mix chain config: the chain is in the digest, its first server is the shuffler, and its keys are checked") {
  SystemRng rng;
  net::SessionConfig base;
  base.protocol = "counting";
  base.rounds = {RoundShape{.width = 1 + 96, .delivery = Delivery::all_parties, .min_messages = 2, .max_messages = 2}};
  const auto chained = net::LocalDeployment::create(3, rng, base, 2);
  const auto back = net::SessionConfig::from_json(chained.config.to_json());
  CHECK(back.mix_chain == chained.config.mix_chain);
  CHECK(back.digest() == chained.config.digest());
  auto other = chained.config;
  other.mix_chain.pop_back();
  CHECK(other.digest() != chained.config.digest());
  Value j = chained.config.to_json();
  std::swap(j["mix_chain"][0], j["mix_chain"][1]);
  CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j), doctest::Contains("mix_chain[0] must be the shuffler"), std::invalid_argument);
  j = chained.config.to_json();
  j["mix_chain"][1] = j["mix_chain"][0];
  CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j), doctest::Contains("repeats mix_chain[0]"), std::invalid_argument);
  j = chained.config.to_json();
  j["mix_chain"] = Value::array({j["mix_chain"][0]});
  CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j), doctest::Contains("'mix_chain' must list 0 or 2 to 16"), std::invalid_argument);
  j = chained.config.to_json();
  j["mix_chain"][1] = "00";
  CHECK_THROWS_WITH_AS((void)net::SessionConfig::from_json(j), doctest::Contains("mix_chain[1] must be KEY:SIGNING_KEY"), std::invalid_argument);
  // The shuffler of a chained session needs the further servers' addresses.
  CHECK_THROWS_WITH_AS(net::TcpShuffler(chained.shuffler, {chained.config}, "127.0.0.1", 0),
                       doctest::Contains("needs the addresses of the 1 further ones (--hop-addresses), got 0"), std::invalid_argument);
}

namespace {

// A TCP relay between the entry and a mix server that, on its first connection, passes the server's
// first `cut_after` bytes (the handshake) and closes both sides when more arrive: the entry's link
// is cut after the server answered a batch, before the answer reached the entry. Later connections
// pass everything.
class HopCuttingProxy {
 public:
  HopCuttingProxy(std::uint16_t target, std::size_t cut_after) : target_(target), cut_after_(cut_after) {
    acceptor_.open(asio::ip::tcp::v4());
    acceptor_.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    asio::co_spawn(io_, accept_loop(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~HopCuttingProxy() {
    io_.stop();
    thread_.join();
  }
  HopCuttingProxy(const HopCuttingProxy&) = delete;
  HopCuttingProxy& operator=(const HopCuttingProxy&) = delete;
  [[nodiscard]] std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  std::atomic<int> connections{0};
  std::atomic<bool> cut{false};

 private:
  using Socket = std::shared_ptr<asio::ip::tcp::socket>;
  asio::awaitable<void> pump(Socket from, Socket to, std::size_t limit) {
    std::array<std::uint8_t, 1 << 16> buf{};
    std::size_t passed = 0;
    try {
      for (;;) {
        const std::size_t n = co_await from->async_read_some(asio::buffer(buf), asio::use_awaitable);
        if (passed + n > limit) {
          cut = true;
          break;
        }
        passed += n;
        co_await asio::async_write(*to, asio::buffer(buf.data(), n), asio::use_awaitable);
      }
    } catch (const std::exception&) {
    }
    std::error_code ignored;
    from->close(ignored);
    to->close(ignored);
  }
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto client = std::make_shared<asio::ip::tcp::socket>(io_);
      co_await acceptor_.async_accept(*client, asio::use_awaitable);
      auto server = std::make_shared<asio::ip::tcp::socket>(io_);
      co_await server->async_connect({asio::ip::make_address("127.0.0.1"), target_}, asio::use_awaitable);
      const bool first = connections++ == 0;
      asio::co_spawn(io_, pump(client, server, SIZE_MAX), asio::detached);
      asio::co_spawn(io_, pump(server, client, first ? cut_after_ : SIZE_MAX), asio::detached);
    }
  }
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_{io_};
  std::uint16_t target_;
  std::size_t cut_after_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("mix chain over TCP: the entry's link to a server cut before the answer arrives is dialled again, and the round completes with the batch mixed once") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("split-mix-sum", {}, 20);
  std::vector<Value> inputs;
  for (int i = 0; i < 20; ++i) inputs.emplace_back(i);
  SystemRng keys_rng;
  net::SessionConfig base;
  base.protocol = "split-mix-sum";
  base.deadline = std::chrono::milliseconds(20'000);
  base.rounds = net::wire_rounds(*protocol, 3);
  const auto local = net::LocalDeployment::create(20, keys_rng, base, 3);
  net::TcpMixServer one(local.further_server_keys[0], {local.config}, "127.0.0.1", 0);
  net::TcpMixServer two(local.further_server_keys[1], {local.config}, "127.0.0.1", 0);
  std::vector<net::MixServerReport> one_reports, two_reports;
  std::thread one_thread([&] { one_reports = one.run(); });
  std::thread two_thread([&] { two_reports = two.run(); });
  // The server's handshake bytes: its hello reply and its confirm frame (an empty frame).
  HopCuttingProxy proxy(one.port(), net::hello_reply_bytes + net::frame_prefix_bytes + net::aead_tag_bytes);
  net::ShufflerOptions options;
  options.hop_addresses = {"127.0.0.1:" + std::to_string(proxy.port()), "127.0.0.1:" + std::to_string(two.port())};
  std::vector<std::string> lines;
  net::TcpShuffler shuffler(local.shuffler, {local.config}, "127.0.0.1", 0, [&](const std::string& l) { lines.push_back(l); }, options);
  std::vector<net::ShufflerReport> reports;
  std::thread server([&] { reports = shuffler.run(); });
  RunResult result;
  {
    SeededRng rng(2);
    net::TcpChannel channel(local.config, local.all_identities(), "127.0.0.1", shuffler.port(), {}, {.share_links = true});
    result = run_all_parties(*protocol, channel, inputs, rng, {});
  }
  server.join();
  one_thread.join();
  two_thread.join();
  CHECK(result.output == Value(190));  // 0 + 1 + ... + 19
  CHECK(proxy.cut);
  CHECK(proxy.connections == 2);
  std::size_t redials = 0;
  for (const auto& l : lines) redials += l.find("the link to mix server 1") != std::string::npos && l.find("reconnecting for up to") != std::string::npos;
  CHECK(redials == 1);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].error.empty());
  // Server 1 mixed the round once and answered the repeat from what it kept.
  REQUIRE(one_reports.size() == 1);
  CHECK(one_reports[0].error.empty());
  CHECK(one_reports[0].rounds.size() == 1);
  REQUIRE(reports[0].hops.size() == 1);
  CHECK(reports[0].hops[0][1].sent == one_reports[0].rounds[0].sent);
  CHECK(reports[0].hops[0][2].records_in == reports[0].hops[0][0].records_in);
}

TEST_CASE("chains over TCP: a sender's garbled record is refused at a hop and counted as discarded where the output is delivered, the others kept") {
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("randomized-response", {}, 8);
  const std::vector<Value> inputs(8, Value(1));
  for (const auto kind : {net::MixKind::decryption, net::MixKind::verifiable}) {
    CAPTURE(net::to_string(kind));
    SeededRng rng(15);
    // As the sender sends it. Decryption chain: an onion whose layer does not open at hop 0. Verifiable chain: a record
    // whose first point is not a ristretto255 encoding, which the entry does not admit.
    net::LoopbackFault fault;
    fault.submitted = [kind](std::uint32_t, MessageBatch& records) {
      if (kind == net::MixKind::decryption) records[0][records.width() - 1] ^= 1;
      else std::fill_n(records[0].data(), 32, std::uint8_t{0xff});
    };
    const auto run = net::run_over_loopback_chain(*protocol, inputs, rng, 3, {}, kind, fault);
    CHECK(run.result.details.value("discarded_records", 0) == 1);
    if (kind == net::MixKind::decryption) {
      REQUIRE(run.reports.count(0) == 1);
      CHECK(run.reports.at(0)[0].not_opened == 1);
      CHECK(run.reports.at(0)[2].records_out == 7);
    } else {
      REQUIRE(run.transcript.rounds.size() == 1);
      CHECK(run.transcript.rounds[0].input.size() == 7);
      CHECK(mixnet::verify_transcript(run.transcript, 2).ok());
    }
  }
}

TEST_CASE("mix chain over TCP: a further server that accepts and never answers, or is stopped by SIGSTOP, ends the round at its deadline with one line naming it" * doctest::test_suite("slow")) {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("randomized-response", {}, 20);
  const std::vector<Value> inputs(20, 1);
  for (const auto kind : {net::MixKind::decryption, net::MixKind::verifiable}) {
    for (const bool stopped_process : {false, true}) {
      CAPTURE(net::to_string(kind));
      CAPTURE(stopped_process);
      SystemRng keys_rng;
      net::SessionConfig base;
      base.protocol = "randomized-response";
      base.deadline = std::chrono::milliseconds(1'500);
      base.mix = kind;
      base.rounds = net::wire_rounds(*protocol, 3, kind);
      const auto local = net::LocalDeployment::create(20, keys_rng, base, 3);
      // Server 2: a socket that takes connections (the kernel completes them) and never reads, or
      // the real server, stopped once it listens.
      asio::io_context io;
      asio::ip::tcp::acceptor silent(io, {asio::ip::make_address("127.0.0.1"), 0});
      std::uint16_t port2 = silent.local_endpoint().port();
      const test::TempDir dir("shufflempc-stoppedhop");
      std::unique_ptr<test::Process> two;
      if (stopped_process) {
        local.save(dir.path());
        two = std::make_unique<test::Process>(std::vector<std::string>{SHUFFLEMPC_CLI, "mix-server", "--hop", "2", "--config", dir / "session.json", "--key",
                                                                       net::mix_server_key_file(dir.path(), 2), "--listen", "127.0.0.1:0"},
                                              dir / "hop2.log");
        const std::string line = two->read_line();
        REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, line);
        port2 = static_cast<std::uint16_t>(std::stoul(line.substr(line.rfind(':') + 1)));
        REQUIRE(::kill(two->pid(), SIGSTOP) == 0);
      }
      net::TcpMixServer one(local.further_server_keys[0], {local.config}, "127.0.0.1", 0);
      std::thread one_thread([&] { (void)one.run(); });
      net::ShufflerOptions options;
      options.hop_addresses = {"127.0.0.1:" + std::to_string(one.port()), "127.0.0.1:" + std::to_string(port2)};
      std::vector<std::string> lines;
      std::mutex lines_mutex;
      net::TcpShuffler shuffler(
          local.shuffler, {local.config}, "127.0.0.1", 0,
          [&](const std::string& l) {
            std::lock_guard lock(lines_mutex);
            lines.push_back(l);
          },
          options);
      std::vector<net::ShufflerReport> reports;
      std::thread server([&] { reports = shuffler.run(); });
      const std::string named = "mix server 2 (127.0.0.1:" + std::to_string(port2) + ") did not answer within the round's deadline of 1500 ms";
      {
        SeededRng rng(1);
        net::TcpChannel channel(local.config, local.all_identities(), "127.0.0.1", shuffler.port(), {}, {.share_links = true});
        // The parties and the analyzer are told why, naming the server (not "the shuffler").
        CHECK_THROWS_WITH_AS((void)run_all_parties(*protocol, channel, inputs, rng, {}), doctest::Contains(named.c_str()), std::system_error);
      }
      server.join();
      one.stop();
      one_thread.join();
      if (two) ::kill(two->pid(), SIGKILL);
      REQUIRE(reports.size() == 1);
      CHECK(reports[0].error.find(named) != std::string::npos);
      std::size_t naming = 0;
      for (const auto& l : lines) naming += l.find(named) != std::string::npos && l.find("session aborted") != std::string::npos;
      CHECK(naming == 1);
    }
  }
}

TEST_CASE("mix chain: a further server that closes the entry's handshake is named as the mix server, not as the shuffler") {
  SystemRng rng;
  net::SessionConfig base;
  base.protocol = "(test)";
  base.rounds = {RoundShape{.width = 8 + 3 * 48, .delivery = Delivery::all_parties, .min_messages = 1, .max_messages = 1}};
  const auto local = net::LocalDeployment::create(4, rng, base, 3);
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  std::string error;
  // A server that reads the hello and hangs up (it has ended, or serves another session).
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        auto socket = co_await acceptor.async_accept(asio::use_awaitable);
        std::array<std::uint8_t, net::hello_bytes> hello{};
        co_await asio::async_read(socket, asio::buffer(hello), asio::use_awaitable);
        socket.close();
      },
      asio::detached);
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        auto link = std::make_shared<net::detail::SecureLink>(asio::ip::tcp::socket(io), local.config.limits());
        co_await link->socket().async_connect(acceptor.local_endpoint(), asio::use_awaitable);
        try {
          co_await link->connect_as(local.config.session, local.config.digest(), net::entry_id, local.shuffler, local.config.mix_chain[1].key, rng);
        } catch (const std::system_error& e) {
          error = e.what();
        }
      },
      asio::detached);
  io.run();
  CHECK(error.find("the mix server closed the connection during the handshake") != std::string::npos);
  CHECK(error.find("shuffler") == std::string::npos);
}
