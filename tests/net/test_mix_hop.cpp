// One hop of a mix chain without sockets (net/mix_hop.hpp): a chain of three hops delivers the
// parties' records and its signed reports verify; a hop that changes the batch between hops, a
// forged or misplaced report, counts that do not add up and a delivery other than the last hop's
// are each named by verify_chain.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "shufflempc/net/mix_hop.hpp"
#include "support/records.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using shufflempc::test::records_of;

namespace {

struct Run {
  SessionId session{};
  std::vector<SigningPublicKey> signers;
  BatchDigest submitted{};
  std::vector<HopReport> reports;
  std::vector<MessageBatch> sent;  // each hop's output
  std::vector<SigningKeyPair> signing;
  MessageBatch messages;
};

// Six parties' 4-byte records through three honest hops in round 5.
Run honest_run(std::uint64_t seed) {
  SeededRng rng(seed);
  Run r;
  rng.fill(r.session);
  std::vector<MixHop> hops;
  std::vector<PublicKey> layer_keys;
  for (std::uint32_t i = 0; i < 3; ++i) {
    const KeyPair layer = KeyPair::generate(rng);
    r.signing.push_back(SigningKeyPair::generate(rng));
    r.signers.push_back(r.signing.back().public_key());
    layer_keys.push_back(layer.public_key());
    hops.emplace_back(i, layer, r.signing.back());
  }
  r.messages = MessageBatch(4, 6);
  rng.fill(std::span(r.messages.data(), r.messages.size_bytes()));
  MessageBatch batch = onion::wrap(r.messages.bytes(), 4, Delivery::all_parties, {}, layer_keys, r.session, 5);
  r.submitted = batch_digest(batch);
  for (auto& hop : hops) {
    auto mixed = hop.mix(batch, r.session, 5, rng);
    r.reports.push_back(mixed.report);
    r.sent.push_back(mixed.records);
    batch = std::move(mixed.records);
  }
  return r;
}

}  // namespace

TEST_CASE("mix hop: three hops deliver every record once and their signed reports verify") {
  const Run r = honest_run(240);
  CHECK(records_of(r.sent.back()) == records_of(r.messages));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(r.reports[i].records_in == 6);
    CHECK(r.reports[i].records_out == 6);
    CHECK(r.reports[i].not_opened == 0);
    CHECK(r.reports[i].place.hop == i);
  }
  CHECK_FALSE(verify_chain(r.reports, r.signers, r.session, 5, r.sent.back(), r.submitted));
  CHECK_FALSE(verify_chain(r.reports, r.signers, r.session, 5, r.sent.back()));
}

TEST_CASE("mix hop: verify_chain names the hop of each fault") {
  const Run r = honest_run(241);
  // The fault, or one with no code (0) where the chain held.
  const auto fault = [&](const std::vector<HopReport>& reports, const MessageBatch& delivered) {
    return verify_chain(reports, r.signers, r.session, 5, delivered, r.submitted).value_or(net::Fault{});
  };
  const auto check = [](const net::Fault& f, net::FaultCode code, std::optional<std::size_t> hop, const std::string& text) {
    CHECK(net::to_string(f.code) == net::to_string(code));
    CHECK(f.hop == hop);
    CHECK(f.round == 5u);
    CHECK(f.text == text);
  };
  // Hop 1 hands hop 2 a batch with one record swapped for another: hop 2 signed what it got.
  {
    MessageBatch swapped = r.sent[1];
    swapped[0][0] ^= 1;
    const auto redone = batch_digest(swapped);
    auto reports = r.reports;
    reports[2].received = redone;
    reports[2].signature = r.signing[2].sign(reports[2].signed_bytes());
    check(fault(reports, r.sent.back()), net::FaultCode::input_mismatch, 2, "hop 2 signed that it received another batch than hop 1 signed that it sent");
  }
  // A report altered after signing, and one signed by another hop's key.
  {
    auto reports = r.reports;
    reports[1].records_out -= 1;
    reports[1].not_opened += 1;
    check(fault(reports, r.sent.back()), net::FaultCode::bad_signature, 1, "hop 1's signature does not verify");
    reports = r.reports;
    reports[0].signature = r.signing[1].sign(reports[0].signed_bytes());
    check(fault(reports, r.sent.back()), net::FaultCode::bad_signature, 0, "hop 0's signature does not verify");
  }
  // A hop that drops a record must say so in counts that add up; the drop it owns is then visible.
  {
    auto reports = r.reports;
    reports[1].records_out -= 1;
    reports[1].signature = r.signing[1].sign(reports[1].signed_bytes());
    check(fault(reports, r.sent.back()), net::FaultCode::counts_mismatch, 1, "hop 1 signed counts that do not add up (6 in, 5 out, 0 not opened, 0 copies)");
  }
  // A report of another round, reports missing, another batch submitted, another delivered.
  {
    auto reports = r.reports;
    reports[2].place.round = 4;
    reports[2].signature = r.signing[2].sign(reports[2].signed_bytes());
    check(fault(reports, r.sent.back()), net::FaultCode::wrong_place, 2, "hop 2's report is for another session, round or hop");
    reports = r.reports;
    reports.pop_back();
    check(fault(reports, r.sent.back()), net::FaultCode::missing_reports, std::nullopt, "the chain has 3 hops but 2 reports arrived");
    BatchDigest other = r.submitted;
    other[0] ^= 1;
    check(verify_chain(r.reports, r.signers, r.session, 5, r.sent.back(), other).value_or(net::Fault{}), net::FaultCode::input_mismatch, 0,
          "hop 0 signed that it received another batch than was submitted");
    MessageBatch delivered = r.sent.back();
    delivered.resize(delivered.count() - 1);
    check(fault(r.reports, delivered), net::FaultCode::output_mismatch, 2, "hop 2 signed that it sent another batch than the one delivered");
  }
}
