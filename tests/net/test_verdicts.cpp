// The analyzer's side of receipts (net/detail/verdicts.hpp): the rule without sockets, then the
// server that takes the parties' verdicts on links of their own.
#include <doctest/doctest.h>

#include <asio.hpp>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/verdicts.hpp"
#include "shufflempc/net/local.hpp"
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
  other.record(0, 4, verdict({Verdict::absent, Verdict::confirmed, Verdict::confirmed}));
  CHECK(other.decide(4, root_of(1), submitted, {}, false).why.find("party 0 says it did not submit this round") == 0);
  // Rounds are kept apart, and forgotten once decided.
  CHECK(other.decide(5, root_of(1), {}, {}, false).kind == Kind::accept);
  other.forget_before(5);
  CHECK(other.decide(4, root_of(1), submitted, {}, true).kind == Kind::refuse);
}

TEST_CASE("verdicts over TCP: a party's complaint reaches the analyzer on its own link, and a stranger's key is refused before it counts") {
  SystemRng rng;
  const auto d = esa_chain(3, rng);
  std::vector<std::string> lines;
  net::detail::VerdictServer server(d.config, d.analyzer, -1, "127.0.0.1", 0, [&](const std::string& l) { lines.push_back(l); });
  REQUIRE(server.port() != 0);
  const auto digest = d.config.digest();
  asio::io_context io;
  const auto send = [&](PartyId first, const net::KeyPair& key, net::VerdictPayload v) {
    auto link = std::make_shared<net::detail::SecureLink>(asio::ip::tcp::socket(io), d.config.limits());
    link->set_peer_name("the analyzer");
    std::string error;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          co_await link->socket().async_connect({asio::ip::make_address("127.0.0.1"), server.port()}, asio::use_awaitable);
          co_await link->connect_as(d.config.session, digest, first, key, d.config.analyzer_key, rng);
          link->send(net::FrameType::verdict, 0, 0, 1, net::encode_verdict(v));
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
    io.restart();
    io.run();
    return error;
  };
  // Party 2 with party 0's key: refused at the handshake, nothing recorded.
  CHECK(send(2, d.parties[0], verdict({net::Verdict::complaint}, 1, "x")).find("the analyzer refused our keys") == 0);
  const auto none = server.await(0, root_of(1), {}, std::vector<PartyId>{2}, std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
  CHECK(none.kind == Kind::accept);
  CHECK(none.silent == 1);
  // Party 1's own complaint: the round is refused, naming it.
  CHECK(send(1, d.parties[1], verdict({net::Verdict::complaint}, 1, "left its record out")) == "");
  const auto d1 = server.await(1 - 1, root_of(1), std::vector<PartyId>{0, 1}, {}, std::chrono::steady_clock::now() + std::chrono::seconds(10));
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
