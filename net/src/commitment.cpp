// The commitment a receipt carries, checked against the session config (net/receipts.hpp): kept
// apart from the receipt's codec, which needs neither the chain's reports nor its keys.
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/verifiable.hpp"

namespace shufflempc::net {

std::optional<merkle::Hash> committed_root(const SessionConfig& config, std::uint32_t round, Delivery delivery, const Receipt& receipt,
                                           std::string& fault) {
  if (config.mix_chain.empty()) {
    fault = "the session has no chain";
    return std::nullopt;
  }
  const auto& signer = config.mix_chain[0].signer;
  const auto& c = receipt.commitment;
  if (config.mix == MixKind::verifiable) {
    if (c.size() < sizeof(Signature)) {
      fault = "its commitment is too short to hold a signature";
      return std::nullopt;
    }
    Signature sig{};
    std::copy(c.end() - static_cast<std::ptrdiff_t>(sig.size()), c.end(), sig.begin());
    const std::span<const std::uint8_t> statement(c.data(), c.size() - sig.size());
    const std::uint32_t width = round < config.rounds.size() ? static_cast<std::uint32_t>(config.rounds[round].record_width) : 0;
    auto root = mixnet::statement_input_root(statement, {config.session, round, 0, width}, round_key(config, delivery).key());
    if (!root) fault = "its commitment is not a hop 0 statement of this session's round " + std::to_string(round);
    else if (!mixnet::signature_holds(sig, statement, signer)) fault = "its commitment is not signed by the chain's entry";
    return fault.empty() ? root : std::nullopt;
  }
  std::vector<HopReport> reports;
  try {
    reports = decode_reports(c);
  } catch (const std::system_error&) {
  }
  if (reports.size() != 1) {
    fault = "its commitment is not one hop report";
    return std::nullopt;
  }
  const HopReport& rep = reports[0];
  if (rep.place.session != config.session || rep.place.round != round || rep.place.hop != 0)
    fault = "its commitment is not the hop 0 report of this session's round " + std::to_string(round);
  else if (rep.records_in != receipt.count)
    fault = "its commitment counts " + std::to_string(rep.records_in) + " records, the receipt " + std::to_string(receipt.count);
  else if (!mixnet::signature_holds(rep.signature, rep.signed_bytes(), signer))
    fault = "its commitment is not signed by the chain's entry";
  if (!fault.empty()) return std::nullopt;
  return rep.received;
}

}  // namespace shufflempc::net
