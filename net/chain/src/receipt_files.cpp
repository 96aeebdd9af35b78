// The files of a collection round's receipts (receipt_files.hpp).
#include "shufflempc/net/receipt_files.hpp"

#include <array>
#include <limits>
#include <stdexcept>

#include "shufflempc/hex.hpp"

namespace shufflempc::net {
namespace {

template <std::size_t N>
std::array<std::uint8_t, N> bytes_of(const Value& v, const char* key, const std::string& where) {
  if (!v.contains(key) || !v[key].is_string()) throw std::invalid_argument(where + ": \"" + key + "\" must be a string of " + std::to_string(2 * N) + " hex digits");
  std::array<std::uint8_t, N> out{};
  from_hex(v[key].get<std::string>(), out, where + ": \"" + key + "\"");
  return out;
}

template <class T>
T number_of(const Value& v, const char* key, const std::string& where) {
  if (!v.contains(key) || !v[key].is_number_unsigned() || v[key].get<std::uint64_t>() > std::numeric_limits<T>::max())
    throw std::invalid_argument(where + ": \"" + key + "\" must be a whole number from 0 to " + std::to_string(std::numeric_limits<T>::max()));
  return v[key].get<T>();
}

const Value& array_of(const Value& v, const char* key, const std::string& where) {
  if (!v.contains(key) || !v[key].is_array()) throw std::invalid_argument(where + ": \"" + key + "\" must be an array");
  return v[key];
}

void check_format(const Value& v, const char* format, const std::string& file) {
  if (!v.is_object() || !v.contains("format") || v["format"] != format)
    throw std::invalid_argument(file + ": not a file of " + format + " (its \"format\" says otherwise)");
}

}  // namespace

Value receipts_json(const SessionId& session, const std::vector<AdmissionReceipt>& receipts) {
  Value list = Value::array();
  for (const auto& r : receipts)
    list.push_back({{"round", r.batch.round},
                    {"first", r.batch.first},
                    {"counts", r.batch.counts},
                    {"width", r.batch.width},
                    {"records", to_hex(r.batch.messages)},
                    {"digest", to_hex(r.digest)},
                    {"signature", to_hex(r.signature)}});
  return {{"format", receipts_format}, {"session", to_hex(session)}, {"receipts", std::move(list)}};
}

Value commitments_json(const SessionConfig& config, const std::map<std::uint32_t, CommittedBatch>& batches) {
  Value rounds = Value::array();
  for (const auto& [round, b] : batches) {
    Value leaves = Value::array();
    for (const auto& h : b.leaves) leaves.push_back(to_hex(h));
    rounds.push_back({{"round", b.commitment.round},
                      {"count", b.commitment.count},
                      {"width", b.commitment.width},
                      {"root", to_hex(b.commitment.root)},
                      {"signature", to_hex(b.commitment.signature)},
                      {"leaves", std::move(leaves)}});
  }
  return {{"format", commitments_format},
          {"session", to_hex(config.session)},
          {"signer", config.shuffler_signer ? to_hex(*config.shuffler_signer) : std::string()},
          {"rounds", std::move(rounds)}};
}

ReceiptsFile receipts_from_json(const Value& v, const std::string& file) {
  check_format(v, receipts_format, file);
  ReceiptsFile out;
  out.session = bytes_of<session_id_bytes>(v, "session", file);
  const auto& list = array_of(v, "receipts", file);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = file + ": receipt " + std::to_string(i);
    const Value& r = list[i];
    if (!r.is_object()) throw std::invalid_argument(where + " must be an object");
    AdmissionReceipt a;
    a.batch.round = number_of<std::uint32_t>(r, "round", where);
    a.batch.first = number_of<PartyId>(r, "first", where);
    a.batch.width = number_of<std::uint32_t>(r, "width", where);
    for (const auto& c : array_of(r, "counts", where)) {
      if (!c.is_number_unsigned() || c.get<std::uint64_t>() > 0xffff'ffffu) throw std::invalid_argument(where + ": \"counts\" must hold whole numbers below 2^32");
      a.batch.counts.push_back(c.get<std::uint32_t>());
    }
    if (!r.contains("records") || !r["records"].is_string() || r["records"].get<std::string>().size() % 2 != 0)
      throw std::invalid_argument(where + ": \"records\" must be a string of hex digits, two a byte");
    a.batch.messages.resize(r["records"].get<std::string>().size() / 2);
    from_hex(r["records"].get<std::string>(), a.batch.messages, where + ": \"records\"");
    a.digest = bytes_of<32>(r, "digest", where);
    a.signature = bytes_of<64>(r, "signature", where);
    out.receipts.push_back(std::move(a));
  }
  return out;
}

CommitmentsFile commitments_from_json(const Value& v, const std::string& file) {
  check_format(v, commitments_format, file);
  CommitmentsFile out;
  out.session = bytes_of<session_id_bytes>(v, "session", file);
  const auto& rounds = array_of(v, "rounds", file);
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const std::string where = file + ": round entry " + std::to_string(i);
    const Value& r = rounds[i];
    if (!r.is_object()) throw std::invalid_argument(where + " must be an object");
    CommittedBatch b;
    b.commitment.round = number_of<std::uint32_t>(r, "round", where);
    b.commitment.count = number_of<std::uint64_t>(r, "count", where);
    b.commitment.width = number_of<std::uint32_t>(r, "width", where);
    b.commitment.root = bytes_of<32>(r, "root", where);
    b.commitment.signature = bytes_of<64>(r, "signature", where);
    const auto& leaves = array_of(r, "leaves", where);
    b.leaves.reserve(leaves.size());
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      if (!leaves[k].is_string()) throw std::invalid_argument(where + ": leaf " + std::to_string(k) + " must be a string of 64 hex digits");
      merkle::Hash h{};
      from_hex(leaves[k].get<std::string>(), h, where + ": leaf " + std::to_string(k));
      b.leaves.push_back(h);
    }
    if (!out.rounds.emplace(b.commitment.round, std::move(b)).second)
      throw std::invalid_argument(where + ": round " + std::to_string(rounds[i]["round"].get<std::uint32_t>()) + " is there twice");
  }
  return out;
}

}  // namespace shufflempc::net
