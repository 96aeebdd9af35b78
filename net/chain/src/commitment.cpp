// The commitment a receipt carries, checked against the session config, and a sender's judgement of
// the receipt (net/receipts.hpp): kept apart from the receipt's codec, which needs neither the
// chain's reports nor its keys nor its verifiable records (the frame fuzzer compiles the codec alone).
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/verifiable.hpp"

namespace shufflempc::net {

std::optional<merkle::Hash> committed_root(const SessionConfig& config, std::uint32_t round, Delivery delivery, const Receipt& receipt,
                                           std::optional<Fault>& fault) {
  fault.reset();
  const auto refuse = [&](FaultCode code, std::string text) {
    fault = Fault{.code = code, .text = std::move(text), .round = round, .hop = 0};
    return std::nullopt;
  };
  if (config.mix_chain.empty()) return refuse(FaultCode::no_chain, "the session has no chain");
  const auto& signer = config.mix_chain[0].signer;
  const auto& c = receipt.commitment;
  if (config.mix == MixKind::verifiable) {
    if (c.size() < sizeof(Signature)) return refuse(FaultCode::malformed, "its commitment is too short to hold a signature");
    Signature sig{};
    std::copy(c.end() - static_cast<std::ptrdiff_t>(sig.size()), c.end(), sig.begin());
    const std::span<const std::uint8_t> statement(c.data(), c.size() - sig.size());
    const std::uint32_t width = round < config.rounds.size() ? static_cast<std::uint32_t>(config.rounds[round].record_width) : 0;
    auto root = mixnet::statement_input_root(statement, {config.session, round, 0, width}, round_key(config, delivery).key());
    if (!root) return refuse(FaultCode::wrong_place, "its commitment is not a hop 0 statement of this session's round " + std::to_string(round));
    if (!mixnet::signature_holds(sig, statement, signer)) return refuse(FaultCode::bad_signature, "its commitment is not signed by the chain's entry");
    return root;
  }
  std::vector<HopReport> reports;
  try {
    reports = decode_reports(c);
  } catch (const std::system_error&) {
  }
  if (reports.size() != 1) return refuse(FaultCode::malformed, "its commitment is not one hop report");
  const HopReport& rep = reports[0];
  if (rep.place.session != config.session || rep.place.round != round || rep.place.hop != 0)
    return refuse(FaultCode::wrong_place, "its commitment is not the hop 0 report of this session's round " + std::to_string(round));
  if (rep.records_in != receipt.count)
    return refuse(FaultCode::counts_mismatch,
                  "its commitment counts " + std::to_string(rep.records_in) + " records, the receipt " + std::to_string(receipt.count));
  if (!mixnet::signature_holds(rep.signature, rep.signed_bytes(), signer))
    return refuse(FaultCode::bad_signature, "its commitment is not signed by the chain's entry");
  return rep.received;
}

ReceiptJudgement judge_receipt(const SessionConfig& config, std::uint32_t round, Delivery delivery, std::span<const std::uint8_t> bytes,
                               const MessageBatch& own, unsigned threads) {
  try {
    const Receipt receipt = decode_receipt(bytes, own.count());
    std::optional<Fault> why;
    const auto root = committed_root(config, round, delivery, receipt, why);
    if (!root) return {std::nullopt, "gave a receipt that does not hold: " + (why ? why->text : std::string("its commitment names no root"))};
    const bool verifiable = config.mix == MixKind::verifiable;
    // A verifiable chain's entry admits only well-formed ciphertexts with a valid proof
    // (admit_records): a record of the sender's that is not one was sent so (tests send such
    // records on purpose). Its receipt covers the ciphertexts, without their proofs.
    std::optional<std::vector<char>> refused;  // worked out only if the receipt calls a record missing
    const auto refusable = [&](std::size_t k) {
      if (!refused) refused = refusable_records(own, knowledge_context(config, round, delivery), threads);
      return (*refused)[k] != 0;
    };
    const MessageBatch mine = verifiable ? ciphertexts_of(own) : own;
    why = receipt_fault(receipt, mine.width(), mine.bytes(), *root, verifiable ? std::function<bool(std::size_t)>(refusable) : nullptr);
    if (why) return {std::nullopt, "gave a receipt that does not hold: " + why->text};
    return {root, ""};
  } catch (const std::exception& e) {
    return {std::nullopt, "gave no receipt that parses (" + std::string(e.what()) + ")"};
  } catch (...) {
    return {std::nullopt, "gave a receipt that could not be checked"};
  }
}

}  // namespace shufflempc::net
