// The analyzer's side of receipts (net/detail/verdicts.hpp): the rule without sockets, then the
// server that takes the parties' verdicts on links of their own.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <asio.hpp>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/verdicts.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/tcp.hpp"

using namespace shufflempc;
using net::detail::VerdictBook;
using Kind = VerdictBook::Decision::Kind;

namespace {
net::VerdictPayload verdict(std::vector<net::Verdict> parties, std::uint8_t root = 1, std::string reason = {}) {
  net::VerdictPayload v;
  v.root.fill(root);
  v.parties = std::move(parties);
  v.reason = std::move(reason);
  return v;
}
// A session of one analyzer-only round through a chain of `chain` servers.
net::LocalDeployment esa_chain(std::size_t parties, Rng& rng, std::size_t chain = 3) {
  net::SessionConfig base;
  base.protocol = "(test)";
  base.rounds = {RoundShape::exactly(100, Delivery::analyzer_only, 1)};
  return net::LocalDeployment::create(parties, rng, base, chain);
}
VerdictBook::Root root_of(std::uint8_t b) {
  VerdictBook::Root r;
  r.fill(b);
  return r;
}
// Sends one verdict for round 0 on a link of its own, as `first` holding `key`; "" or the error.
std::string send_verdict(const net::SessionConfig& config, std::uint16_t port, PartyId first, const net::KeyPair& key,
                         const net::VerdictPayload& v, Rng& rng, std::chrono::seconds limit = std::chrono::seconds(20), std::uint32_t round = 0) {
  asio::io_context io;
  auto link = std::make_shared<net::detail::SecureLink>(asio::ip::tcp::socket(io), config.limits());
  link->set_peer_name("the analyzer");
  std::string error;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        co_await link->socket().async_connect({asio::ip::make_address("127.0.0.1"), port}, asio::use_awaitable);
        co_await link->connect_as(config.session, config.digest(), first, key, config.analyzer_key, rng);
        link->send(net::FrameType::verdict, round, 0, 1, net::encode_verdict(v));
        link->close_after_flush();
      },
      [&](std::exception_ptr e) {
        if (!e) return;
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& x) {
          error = x.what();
        }
      });
  io.run_for(limit);
  return io.stopped() ? error : "no answer within " + std::to_string(limit.count()) + " s";
}
}  // namespace

TEST_CASE("verdicts: a round stands when every submitted party confirms the root, and waits or refuses otherwise, naming the party") {
  using net::Verdict;
  const std::vector<PartyId> submitted = {0, 1, 2}, dropped = {3};
  VerdictBook book;
  CHECK(book.decide(0, root_of(1), submitted, dropped, false).kind == Kind::wait);
  book.record(0, 0, verdict({Verdict::confirmed, Verdict::confirmed}));
  CHECK(book.decide(0, root_of(1), submitted, dropped, false).kind == Kind::wait);
  const auto late = book.decide(0, root_of(1), submitted, dropped, true);
  CHECK(late.kind == Kind::refuse);
  CHECK(late.why.find("party 2, counted as submitted by the chain's entry (the shuffler), did not confirm") == 0);
  book.record(2, 0, verdict({Verdict::confirmed}));
  // Party 3 (counted as dropped) is waited for until the deadline, then counts as gone.
  CHECK(book.decide(0, root_of(1), submitted, dropped, false).kind == Kind::wait);
  const auto gone = book.decide(0, root_of(1), submitted, dropped, true);
  CHECK(gone.kind == Kind::accept);
  CHECK(gone.confirmed == 3);
  CHECK(gone.silent == 1);
  book.record(3, 0, verdict({Verdict::absent}));
  CHECK(book.decide(0, root_of(1), submitted, dropped, false).kind == Kind::accept);
  // Another root: the entry showed the analyzer and the parties different batches.
  CHECK(book.decide(0, root_of(2), submitted, dropped, false).why.find("party 0 was shown another batch") == 0);
  // A complaint replaces a confirmation (not the other way round) and refuses at once.
  book.record(1, 0, verdict({Verdict::complaint}, 1, "dropped its record"));
  book.record(1, 0, verdict({Verdict::confirmed}));
  const auto refused = book.decide(0, root_of(1), submitted, dropped, false);
  CHECK(refused.kind == Kind::refuse);
  CHECK(refused.why == "party 1 complains that the chain's entry (the shuffler) dropped its record");
  // A party counted as submitted that says it sent nothing: the entry made its records up.
  VerdictBook other;
  other.forget_before(4);  // rounds 0 to 3 decided
  CHECK(other.record(0, 4, verdict({Verdict::absent, Verdict::confirmed, Verdict::confirmed})));
  CHECK(other.decide(4, root_of(1), submitted, {}, false).why.find("party 0 says it did not submit this round") == 0);
  // Rounds are kept apart, and forgotten once decided.
  CHECK(other.decide(5, root_of(1), {}, {}, false).kind == Kind::accept);
  other.forget_before(5);
  CHECK(other.decide(4, root_of(1), submitted, {}, true).kind == Kind::refuse);
}

TEST_CASE("verdicts: the book keeps the round being decided and the next one only, whatever an authenticated party sends") {
  using net::Verdict;
  VerdictBook book;
  // 100000 verdicts for rounds to come take no room: each beyond the next round is refused.
  for (std::uint32_t r = 2; r < 100'002; ++r) CHECK_FALSE(book.record(0, r, verdict({Verdict::complaint}, 1, std::string(100, 'x'))));
  CHECK(book.decide(2, root_of(1), {}, {}, false).kind == Kind::accept);  // none of them was kept
  CHECK(book.record(0, 1, verdict({Verdict::confirmed})));                // the next round is kept
  CHECK(book.decide(1, root_of(1), std::vector<PartyId>{0}, {}, false).kind == Kind::accept);
  book.forget_before(2);
  CHECK(book.record(0, 0, verdict({Verdict::complaint}, 1, "late")));  // a decided round: dropped quietly
  CHECK(book.decide(0, root_of(1), {}, {}, false).kind == Kind::accept);
  CHECK(book.record(0, 3, verdict({Verdict::confirmed})));
  CHECK_FALSE(book.record(0, 4, verdict({Verdict::confirmed})));
}

TEST_CASE("verdicts over TCP: a party's complaint reaches the analyzer on its own link, and a stranger's key is refused before it counts") {
  SystemRng rng;
  const auto d = esa_chain(3, rng);
  std::vector<std::string> lines;
  net::detail::VerdictServer server(d.config, d.analyzer, -1, "127.0.0.1", 0, [&](const std::string& l) { lines.push_back(l); });
  REQUIRE(server.port() != 0);
  const auto send = [&](PartyId first, const net::KeyPair& key, const net::VerdictPayload& v, std::uint32_t round = 0) {
    return send_verdict(d.config, server.port(), first, key, v, rng, std::chrono::seconds(20), round);
  };
  // Party 2 with party 0's key: refused at the handshake, nothing recorded.
  CHECK(send(2, d.parties[0], verdict({net::Verdict::complaint}, 1, "x")).find("the analyzer closed the connection during key confirmation") == 0);
  const auto none = server.await(0, root_of(1), {}, std::vector<PartyId>{2}, std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
  CHECK(none.kind == Kind::accept);
  CHECK(none.silent == 1);
  // Party 1's own complaint in the next round (round 0 is decided): the round is refused, naming it.
  CHECK(send(1, d.parties[1], verdict({net::Verdict::complaint}, 1, "left its record out"), 1) == "");
  const auto d1 = server.await(1, root_of(1), std::vector<PartyId>{0, 1}, {}, std::chrono::steady_clock::now() + std::chrono::seconds(10));
  CHECK(d1.kind == Kind::refuse);
  CHECK(d1.why == "party 1 complains that the chain's entry (the shuffler) left its record out");
}

TEST_CASE("verdicts: a session whose analyzer-only rounds cross a chain needs the analyzer's verdict address on both sides, named before connecting") {
  SystemRng rng;
  const auto d = esa_chain(2, rng);
  CHECK(net::takes_verdicts(d.config));
  std::vector<net::Identity> analyzer;
  analyzer.push_back({net::analyzer_id, d.analyzer});
  CHECK_THROWS_WITH_AS(net::TcpChannel(d.config, analyzer, "127.0.0.1", 1), doctest::Contains("analyzer --listen HOST:PORT"),
                       std::invalid_argument);
  std::vector<net::Identity> party;
  party.push_back({0, d.parties[0]});
  CHECK_THROWS_WITH_AS(net::TcpChannel(d.config, party, "127.0.0.1", 1), doctest::Contains("party --analyzer HOST:PORT"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(net::TcpChannel(d.config, party, "127.0.0.1", 1, {}, {.analyzer_address = "127.0.0.1:0"}),
                       doctest::Contains("--analyzer needs the port the analyzer listens on"), std::invalid_argument);
  // Without a chain, or with every round delivered to all parties, nobody sends verdicts.
  const auto single = esa_chain(2, rng, 1);
  CHECK_FALSE(net::takes_verdicts(single.config));
}

TEST_CASE("verdicts over TCP: idle connections beyond the cap of unauthenticated ones do not keep a party's verdict out") {
  SystemRng rng;
  const auto d = esa_chain(3, rng);
  net::detail::VerdictServer server(d.config, d.analyzer, -1, "127.0.0.1", 0, [](const std::string&) {});
  // Both ends of every connection are in this process: 1300 idle ones take 1300 descriptors here
  // and, without the cap, 1300 more in the server, past a limit of 2500, so that the server could
  // accept nothing until its handshake timer (10 s) closed them. With the cap it holds 1024 at most.
  const std::size_t idle = net::ShufflerOptions{}.max_unauthenticated + 276;
  struct rlimit was{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &was) == 0);
  REQUIRE(was.rlim_max >= 2500);
  struct rlimit tight = was;
  tight.rlim_cur = 2500;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &tight) == 0);
  struct Restore {
    rlimit was;
    ~Restore() { setrlimit(RLIMIT_NOFILE, &was); }
  } restore{was};
  asio::io_context io;
  std::vector<asio::ip::tcp::socket> sockets;
  for (std::size_t i = 0; i < idle; ++i) {
    sockets.emplace_back(io);
    sockets.back().connect({asio::ip::make_address("127.0.0.1"), server.port()});
  }
  // The oldest were closed to make room, and the party's handshake completes among the rest.
  CHECK(send_verdict(d.config, server.port(), 0, d.parties[0], verdict({net::Verdict::confirmed}), rng, std::chrono::seconds(3)) == "");
  const auto decided = server.await(0, root_of(1), std::vector<PartyId>{0}, {}, std::chrono::steady_clock::now() + std::chrono::seconds(10));
  CHECK(decided.kind == Kind::accept);
  CHECK(decided.confirmed == 1);
}
