#include "shufflempc/mixnet/transcript.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "shufflempc/error.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"

namespace shufflempc::mixnet {
namespace {

using Json = nlohmann::json;

std::vector<std::uint8_t> hex_field(const Json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) throw std::invalid_argument(where + ": \"" + key + "\" is missing or not a hex string");
  const std::string& s = j[key].get_ref<const std::string&>();
  if (s.size() % 2 != 0) throw std::invalid_argument(where + ": \"" + key + "\" has an odd number of hex digits");
  std::vector<std::uint8_t> out(s.size() / 2);
  from_hex(s, out, where + " " + key);
  return out;
}

std::uint64_t count_field(const Json& j, const char* key, const std::string& where, std::uint64_t max) {
  if (!j.contains(key) || !j[key].is_number_unsigned() || j[key].get<std::uint64_t>() > max)
    throw std::invalid_argument(where + ": \"" + key + "\" must be an integer in [0, " + std::to_string(max) + "]");
  return j[key].get<std::uint64_t>();
}

template <std::size_t N>
std::array<std::uint8_t, N> fixed_field(const Json& j, const char* key, const std::string& where) {
  const auto bytes = hex_field(j, key, where);
  if (bytes.size() != N) throw std::invalid_argument(where + ": \"" + key + "\" must be " + std::to_string(N) + " bytes");
  std::array<std::uint8_t, N> out{};
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

// The transcript's text as JSON, refused as it is read (before anything is built from it) where it
// leaves the format: a field the format does not name, an object or a list where the format has
// none, or a list longer than its bound. The memory a hostile file can take is then a small
// multiple of its size, whatever it holds.
Json parse_bounded(const std::string& text) {
  constexpr std::size_t max_rounds = std::size_t{1} << 16;
  // The fields of each kind of object, by the field that holds it ("" the file itself, "rounds"
  // a round, "hops" a hop, "decryption" a trustee's shares, "key" a round's key).
  static const std::map<std::string_view, std::set<std::string_view>> fields = {
      {"", {"format", "session", "hops", "signers", "rounds"}},
      {"rounds", {"round", "delivery", "width", "limbs", "key", "input", "input_proofs", "hops", "decryption", "analyzer_decryption", "records"}},
      {"hops", {"output", "proof", "signature"}},
      {"decryption", {"trustee", "shares"}},
      {"key", {"threshold", "commitments", "shares", "analyzer"}},
  };
  // The lists of each kind of object, with their bounds; "rounds", "hops" and "decryption" hold objects.
  static const std::map<std::pair<std::string_view, std::string_view>, std::size_t> lists = {
      {{"", "signers"}, max_hops},       {{"", "rounds"}, max_rounds},          {{"rounds", "hops"}, max_hops},
      {{"rounds", "decryption"}, max_trustees}, {{"key", "commitments"}, max_trustees}, {{"key", "shares"}, max_trustees},
  };
  struct Open {
    std::string kind;  // an object's kind, or a list's field
    bool list = false;
    std::size_t count = 0, bound = 0;
    std::set<std::string> named;  // an object's fields so far: none twice (a reader keeping the first would see another file)
  };
  std::vector<Open> open;
  std::string field;  // the last field named in the innermost open object
  const auto element = [&] {
    if (open.empty() || !open.back().list) return;
    if (++open.back().count > open.back().bound)
      throw std::invalid_argument("transcript: \"" + open.back().kind + "\" lists more than " + std::to_string(open.back().bound) + " entries");
  };
  const Json::parser_callback_t check = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::key: {
        const std::string& name = parsed.get_ref<const std::string&>();
        if (!fields.at(open.back().kind).count(name))
          throw std::invalid_argument("transcript: unknown field \"" + name + "\"" +
                                      (open.back().kind.empty() ? std::string() : " in an entry of \"" + open.back().kind + "\""));
        if (!open.back().named.insert(name).second)
          throw std::invalid_argument("transcript: the field \"" + name + "\" is named twice in one object" +
                                      (open.back().kind.empty() ? std::string() : " (an entry of \"" + open.back().kind + "\")"));
        field = name;
        break;
      }
      case Json::parse_event_t::object_start: {
        std::string kind;
        if (!open.empty() && open.back().list) {
          kind = open.back().kind;
          if (kind != "rounds" && kind != "hops" && kind != "decryption")
            throw std::invalid_argument("transcript: \"" + kind + "\" must list hex strings, not objects");
        } else if (!open.empty()) {
          if (field != "key" || open.back().kind != "rounds") throw std::invalid_argument("transcript: \"" + field + "\" must not be an object");
          kind = "key";
        }
        element();
        open.push_back({kind, false, 0, 0, {}});
        break;
      }
      case Json::parse_event_t::array_start: {
        if (open.empty() || open.back().list) throw std::invalid_argument("transcript: a list where the format has none");
        const auto it = lists.find({open.back().kind, field});
        if (it == lists.end()) throw std::invalid_argument("transcript: \"" + field + "\" must not be a list");
        open.push_back({field, true, 0, it->second, {}});
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        open.pop_back();
        break;
      case Json::parse_event_t::value:
        element();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, check);
  } catch (const Json::exception& e) {  // a parse error, or a number out of range (2e772)
    throw std::invalid_argument(std::string("transcript: not JSON: ") + e.what());
  }
}

Point point_from(const std::string& hex, const std::string& what) {
  Point p;
  if (hex.size() != 2 * point_bytes) throw std::invalid_argument(what + ": a point is " + std::to_string(2 * point_bytes) + " hex digits");
  from_hex(hex, p.bytes, what);
  if (!valid_point(p)) throw std::invalid_argument(what + ": not a canonical ristretto255 encoding");
  return p;
}

}  // namespace

std::string Transcript::to_json() const {
  Json j;
  j["format"] = transcript_format;
  j["session"] = to_hex(session);
  j["hops"] = hops;
  j["signers"] = Json::array();
  for (const auto& k : signers) j["signers"].push_back(to_hex(k));
  j["rounds"] = Json::array();
  for (const auto& r : rounds) {
    Json jr;
    jr["round"] = r.round;
    jr["delivery"] = to_string(r.delivery);
    Json key;
    key["threshold"] = r.key.servers.threshold;
    key["commitments"] = Json::array();
    for (const auto& a : r.key.servers.commitments) key["commitments"].push_back(to_hex(a.bytes));
    key["shares"] = Json::array();
    for (const auto& y : r.key.servers.shares) key["shares"].push_back(to_hex(y.bytes));
    if (r.key.analyzer) key["analyzer"] = to_hex(r.key.analyzer->bytes);
    jr["key"] = std::move(key);
    jr["width"] = r.width;
    jr["limbs"] = r.input.limbs();
    jr["input"] = to_hex(r.input.to_bytes());
    jr["input_proofs"] = to_hex(r.input_proofs.to_bytes());
    jr["hops"] = Json::array();
    for (const auto& h : r.hops)
      jr["hops"].push_back({{"output", to_hex(h.output.to_bytes())}, {"proof", to_hex(h.proof.to_bytes())}, {"signature", to_hex(h.signature)}});
    jr["decryption"] = Json::array();
    for (std::size_t k = 0; k < r.decryption.size(); ++k)
      jr["decryption"].push_back({{"trustee", r.decrypted_by.at(k)}, {"shares", to_hex(r.decryption[k].to_bytes())}});
    if (r.analyzer_decryption) jr["analyzer_decryption"] = to_hex(r.analyzer_decryption->to_bytes());
    jr["records"] = to_hex(r.records.bytes());
    j["rounds"].push_back(std::move(jr));
  }
  return j.dump(1);
}

Transcript Transcript::from_json(const std::string& text) {
  const Json j = parse_bounded(text);
  if (!j.is_object() || !j.contains("format") || j["format"] != transcript_format)
    throw std::invalid_argument(std::string("transcript: \"format\" must be \"") + transcript_format + "\"" +
                                (j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/1"
                                     ? " (version 1 carries no hop signatures, so nothing names who made its hops)"
                                 : j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/2"
                                     ? " (version 2's hops sign a flat digest of their input, not the Merkle root a sender's receipt is checked against)"
                                 : j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/3"
                                     ? " (version 3's decryption proofs carry their challenges instead of their commitments, which cannot be checked in a batch)"
                                 : j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/4"
                                     ? " (version 4's records carry no proofs of plaintext knowledge, so a re-randomized copy of a record cannot be told apart)"
                                 : j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/5"
                                     ? " (version 5's proofs and signatures do not cover the records' width, so a width changed to another of the same "
                                       "limbs changed the records and still verified)"
                                 : j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/6"
                                     ? " (version 6's records are exponential ElGamal of 16-bit limbs, each limb's decryption share with a proof of "
                                       "its own; version 7 carries a record of up to 16 bytes in one group element and proves a trustee's shares at once)"
                                 : j.is_object() && j.contains("format") && j["format"] == "shufflempc-verifiable-mix/7"
                                     ? " (version 7's analyzer-only rounds are encrypted under the analyzer's key alone, so the entry with the "
                                       "analyzer could open every record it saw sent; version 8's key needs the servers' shares too)"
                                     : ""));
  Transcript t;
  t.session = fixed_field<sizeof(SessionId)>(j, "session", "transcript");
  if (!j.contains("hops") || !j["hops"].is_number_unsigned() || j["hops"].get<std::uint64_t>() < 1 || j["hops"].get<std::uint64_t>() > max_hops)
    throw std::invalid_argument("transcript: \"hops\" must be an integer in [1, " + std::to_string(max_hops) + "]");
  t.hops = j["hops"].get<std::size_t>();
  if (!j.contains("signers") || !j["signers"].is_array() || j["signers"].size() != t.hops)
    throw std::invalid_argument("transcript: \"signers\" must list the " + std::to_string(t.hops) + " hops' Ed25519 keys");
  for (const auto& k : j["signers"]) {
    if (!k.is_string() || k.get_ref<const std::string&>().size() != 2 * sizeof(SigningPublicKey))
      throw std::invalid_argument("transcript: a signer is not " + std::to_string(2 * sizeof(SigningPublicKey)) + " hex digits");
    SigningPublicKey key{};
    from_hex(k.get_ref<const std::string&>(), key, "transcript signer");
    t.signers.push_back(key);
  }
  if (!j.contains("rounds") || !j["rounds"].is_array()) throw std::invalid_argument("transcript: \"rounds\" must be a list");
  for (const auto& jr : j["rounds"]) {
    const std::string where = "transcript round " + std::to_string(t.rounds.size());
    if (!jr.is_object()) throw std::invalid_argument(where + ": not an object");
    RoundTranscript r;
    r.round = static_cast<std::uint32_t>(count_field(jr, "round", where, 0xffffffffu));
    if (!jr.contains("delivery") || (jr["delivery"] != to_string(Delivery::all_parties) && jr["delivery"] != to_string(Delivery::analyzer_only)))
      throw std::invalid_argument(where + ": \"delivery\" must be \"" + to_string(Delivery::all_parties) + "\" or \"" +
                                  to_string(Delivery::analyzer_only) + "\"");
    r.delivery = jr["delivery"] == to_string(Delivery::all_parties) ? Delivery::all_parties : Delivery::analyzer_only;
    if (!jr.contains("key") || !jr["key"].is_object()) throw std::invalid_argument(where + ": \"key\" must be an object");
    const Json& jk = jr["key"];
    r.key.servers.threshold = count_field(jk, "threshold", where + " key", max_trustees);
    for (const char* list : {"commitments", "shares"}) {
      if (!jk.contains(list) || !jk[list].is_array() || jk[list].empty() || jk[list].size() > max_trustees)
        throw std::invalid_argument(where + " key: \"" + list + "\" must be a list of 1 to " + std::to_string(max_trustees) + " points");
      for (const auto& p : jk[list]) {
        if (!p.is_string()) throw std::invalid_argument(where + " key: a point of \"" + list + "\" is not a hex string");
        (std::string(list) == "commitments" ? r.key.servers.commitments : r.key.servers.shares).push_back(point_from(p.get<std::string>(), where + " key " + list));
      }
    }
    if (jk.contains("analyzer")) {
      if (!jk["analyzer"].is_string()) throw std::invalid_argument(where + " key: \"analyzer\" is not a hex string");
      r.key.analyzer = point_from(jk["analyzer"].get<std::string>(), where + " key analyzer");
    }
    r.width = count_field(jr, "width", where, max_record_bytes);
    const std::size_t limbs = count_field(jr, "limbs", where, limbs_for(max_record_bytes));
    if (r.width == 0 || limbs != limbs_for(r.width))
      throw std::invalid_argument(where + ": records of " + std::to_string(r.width) + " bytes have " + std::to_string(limbs_for(r.width)) + " limbs, not " +
                                  std::to_string(limbs));
    r.input = CiphertextBatch::from_bytes(limbs, hex_field(jr, "input", where), where + " input");
    r.input_proofs = KnowledgeProofs::from_bytes(r.input.size(), limbs, hex_field(jr, "input_proofs", where), where + " input_proofs");
    if (!jr.contains("hops") || !jr["hops"].is_array() || jr["hops"].size() != t.hops)
      throw std::invalid_argument(where + ": \"hops\" must list " + std::to_string(t.hops) + " hops");
    for (const auto& jh : jr["hops"]) {
      const std::string hw = where + " hop " + std::to_string(r.hops.size());
      HopTranscript h;
      h.output = CiphertextBatch::from_bytes(limbs, hex_field(jh, "output", hw), hw + " output");
      h.proof = ShuffleProof::from_bytes(r.input.size(), limbs, hex_field(jh, "proof", hw), hw + " proof");
      h.signature = fixed_field<sizeof(Signature)>(jh, "signature", hw);
      r.hops.push_back(std::move(h));
    }
    if (!jr.contains("decryption") || !jr["decryption"].is_array() || jr["decryption"].size() > r.key.servers.shares.size())
      throw std::invalid_argument(where + ": \"decryption\" must be a list of at most one entry per server (" + std::to_string(r.key.servers.shares.size()) + ")");
    for (const auto& jd : jr["decryption"]) {
      const std::string dw = where + " decryption " + std::to_string(r.decryption.size());
      if (!jd.is_object()) throw std::invalid_argument(dw + ": not an object");
      r.decrypted_by.push_back(static_cast<std::uint32_t>(count_field(jd, "trustee", dw, r.key.servers.shares.size() - 1)));
      r.decryption.push_back(DecryptionShares::from_bytes(r.input.all().size(), hex_field(jd, "shares", dw), dw));
    }
    if (jr.contains("analyzer_decryption"))
      r.analyzer_decryption = DecryptionShares::from_bytes(r.input.all().size(), hex_field(jr, "analyzer_decryption", where), where + " analyzer_decryption");
    r.records = MessageBatch::from_bytes(r.width, hex_field(jr, "records", where));
    t.rounds.push_back(std::move(r));
  }
  return t;
}

void Transcript::save(const std::filesystem::path& file) const { write_file(file.string(), to_json(), "transcript"); }

Transcript Transcript::load(const std::filesystem::path& file, std::size_t max_bytes) {
  return from_json(read_text_file(file.string(), "transcript", max_bytes));
}

std::size_t hop_bytes(std::size_t records, std::size_t limbs) {
  return records * limbs * ciphertext_bytes + ShuffleProof::size_bytes(records, limbs) + sizeof(Signature);
}

HopTranscript make_hop(const ProofContext& context, const Point& key, const CiphertextBatch& input, const SigningKeyPair& signer,
                       Rng& permutation_rng, Rng& proof_rng, unsigned threads, const std::function<void(CiphertextBatch&)>& tamper,
                       std::vector<std::uint8_t>* statement) {
  auto mixed = reencrypt_shuffle(input, key, permutation_rng, threads);
  HopTranscript hop;
  hop.output = std::move(mixed.output);
  hop.proof = prove_shuffle(context, key, input, hop.output, mixed.witness, proof_rng, threads);
  if (tamper) tamper(hop.output);
  auto signed_bytes = hop_statement(context, key, input, hop.output, hop.proof);
  hop.signature = signer.sign(signed_bytes);
  if (statement) *statement = std::move(signed_bytes);
  return hop;
}

void append_hop(std::vector<std::uint8_t>& out, const HopTranscript& hop) {
  const auto output = hop.output.to_bytes(), proof = hop.proof.to_bytes();
  out.insert(out.end(), output.begin(), output.end());
  out.insert(out.end(), proof.begin(), proof.end());
  out.insert(out.end(), hop.signature.begin(), hop.signature.end());
}

HopTranscript decode_hop(std::span<const std::uint8_t> bytes, std::size_t records, std::size_t limbs, const std::string& what) {
  if (bytes.size() != hop_bytes(records, limbs))
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes, a hop of " + std::to_string(records) + " records of " +
                                std::to_string(limbs) + " limbs is " + std::to_string(hop_bytes(records, limbs)));
  const std::size_t batch = records * limbs * ciphertext_bytes, proof = ShuffleProof::size_bytes(records, limbs);
  HopTranscript h;
  h.output = CiphertextBatch::from_bytes(limbs, bytes.first(batch), what + " output");
  h.proof = ShuffleProof::from_bytes(records, limbs, bytes.subspan(batch, proof), what + " proof");
  std::copy(bytes.end() - static_cast<std::ptrdiff_t>(h.signature.size()), bytes.end(), h.signature.begin());
  return h;
}

std::vector<std::uint8_t> encode_evidence(const RoundTranscript& r) {
  std::vector<std::uint8_t> out(12);
  store_le<std::uint64_t>(out.data(), r.input.size());
  store_le<std::uint32_t>(out.data() + 8, static_cast<std::uint32_t>(r.hops.size()));
  const auto append = [&](const std::vector<std::uint8_t>& b) { out.insert(out.end(), b.begin(), b.end()); };
  append(r.input.to_bytes());
  append(r.input_proofs.to_bytes());
  for (const auto& h : r.hops) append_hop(out, h);
  std::uint8_t n[4];
  store_le<std::uint32_t>(n, static_cast<std::uint32_t>(r.decryption.size()));
  out.insert(out.end(), n, n + 4);
  for (std::size_t k = 0; k < r.decryption.size(); ++k) {
    store_le<std::uint32_t>(n, r.decrypted_by[k]);
    out.insert(out.end(), n, n + 4);
    append(r.decryption[k].to_bytes());
  }
  return out;
}

RoundTranscript decode_evidence(std::span<const std::uint8_t> bytes, std::uint32_t round, Delivery delivery, std::size_t width,
                                const RoundKey& key, std::size_t hops, std::size_t max_records) {
  const std::string where = "round " + std::to_string(round) + " evidence";
  RoundTranscript r;
  r.round = round;
  r.delivery = delivery;
  r.width = width;
  r.key = key;
  const std::size_t limbs = limbs_for(width);
  std::size_t at = 0;
  const auto take = [&](std::size_t n, const std::string& what) {
    if (bytes.size() - at < n) throw std::invalid_argument(where + ": ends inside " + what);
    auto s = bytes.subspan(at, n);
    at += n;
    return s;
  };
  const auto head = take(12, "its header");
  const std::uint64_t records = load_le<std::uint64_t>(head.data());
  if (records > max_records) throw std::invalid_argument(where + ": " + std::to_string(records) + " records, at most " + std::to_string(max_records));
  if (load_le<std::uint32_t>(head.data() + 8) != hops)
    throw std::invalid_argument(where + ": " + std::to_string(load_le<std::uint32_t>(head.data() + 8)) + " hops, the chain has " + std::to_string(hops));
  const std::size_t n = static_cast<std::size_t>(records);
  const std::size_t batch_bytes = n * limbs * ciphertext_bytes;
  r.input = CiphertextBatch::from_bytes(limbs, take(batch_bytes, "the input"), where + " input");
  r.input_proofs = KnowledgeProofs::from_bytes(n, limbs, take(n * KnowledgeProofs::record_bytes(limbs), "the input's proofs"), where + " input proofs");
  for (std::size_t h = 0; h < hops; ++h) {
    const std::string hw = where + " hop " + std::to_string(h);
    r.hops.push_back(decode_hop(take(hop_bytes(n, limbs), hw), n, limbs, hw));
  }
  const std::uint32_t trustees = load_le<std::uint32_t>(take(4, "the trustee count").data());
  const std::size_t servers = key.servers.shares.size();
  if (trustees > servers) throw std::invalid_argument(where + ": " + std::to_string(trustees) + " servers' shares, the key has " + std::to_string(servers));
  for (std::uint32_t k = 0; k < trustees; ++k) {
    const std::uint32_t index = load_le<std::uint32_t>(take(4, "a trustee's index").data());
    if (index >= servers || std::find(r.decrypted_by.begin(), r.decrypted_by.end(), index) != r.decrypted_by.end())
      throw std::invalid_argument(where + ": trustee " + std::to_string(index) + " is out of range or listed twice");
    r.decrypted_by.push_back(index);
    r.decryption.push_back(DecryptionShares::from_bytes(n * limbs, take(DecryptionShares::size_bytes(n * limbs), "trustee " + std::to_string(index) + "'s shares"),
                                                        where + " trustee " + std::to_string(index)));
  }
  if (at != bytes.size()) throw std::invalid_argument(where + ": " + std::to_string(bytes.size() - at) + " bytes after its end");
  return r;
}

std::string hop_fault(const ProofContext& context, const Point& key, const CiphertextBatch& input, const HopTranscript& hop,
                      const SigningPublicKey& signer, unsigned threads) {
  // The proof first: a server that signed a batch it did not shuffle correctly is named for that.
  if (auto fault = check_shuffle(context, key, input, hop.output, hop.proof, threads); !fault.empty())
    return "the proof of shuffle does not verify: " + fault;
  if (!signature_holds(hop.signature, hop_statement(context, key, input, hop.output, hop.proof), signer))
    return "its server's signature does not verify (the hop was not made, or not on this batch, by the server the chain names)";
  return {};
}

std::vector<std::string> hop_faults(const SessionId& session, const RoundTranscript& r, std::span<const SigningPublicKey> signers, unsigned threads,
                                    std::optional<std::uint32_t> skip) {
  std::vector<std::string> faults;
  if (signers.size() != r.hops.size()) {
    faults.push_back("the chain names " + std::to_string(signers.size()) + " signers for " + std::to_string(r.hops.size()) + " hops");
    return faults;
  }
  const Point& key = r.key.key();
  const CiphertextBatch* in = &r.input;
  for (std::size_t h = 0; h < r.hops.size(); ++h) {
    const ProofContext ctx{session, r.round, static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(r.width)};
    if (!skip || *skip != h)
      if (auto fault = hop_fault(ctx, key, *in, r.hops[h], signers[h], threads); !fault.empty())
        faults.push_back("hop " + std::to_string(h) + ": " + fault);
    in = &r.hops[h].output;
  }
  return faults;
}

Verdict verify_transcript(const Transcript& t, unsigned threads) {
  Verdict v;
  for (const auto& r : t.rounds) {
    const std::string where = "round " + std::to_string(r.round);
    if (auto fault = r.key.check(); !fault.empty()) {
      v.faults.push_back(where + ": the key does not hold: " + fault);
      continue;
    }
    ++v.rounds;
    v.records += r.input.size();
    v.knowledge_proofs += r.input.size();
    if (auto fault = check_knowledge({t.session, r.round, r.key.key()}, r.input, r.input_proofs, threads); !fault.empty())
      v.faults.push_back(where + ": " + fault);
    v.hop_proofs += r.hops.size();
    for (auto& fault : hop_faults(t.session, r, t.signers, threads)) v.faults.push_back(where + " " + fault);
    const CiphertextBatch* in = r.hops.empty() ? &r.input : &r.hops.back().output;
    const ProofContext dctx{t.session, r.round, static_cast<std::uint32_t>(r.hops.size()), static_cast<std::uint32_t>(r.width)};
    const ThresholdKey& servers = r.key.servers;
    // The servers' shares: at least t of distinct servers (none for an empty batch, which no server decrypts).
    std::set<std::uint32_t> distinct(r.decrypted_by.begin(), r.decrypted_by.end());
    const std::size_t needed = r.input.size() == 0 ? 0 : servers.threshold;
    bool shares_ok = r.decrypted_by.size() == r.decryption.size() && distinct.size() == r.decrypted_by.size() && r.decryption.size() >= needed &&
                     (r.decrypted_by.empty() || *distinct.rbegin() < servers.shares.size());
    if (!shares_ok)
      v.faults.push_back(where + ": " + std::to_string(distinct.size()) + " distinct mix servers of " + std::to_string(servers.shares.size()) +
                         " decrypted, " + std::to_string(needed) + " needed");
    // The analyzer's, in an analyzer-only round and only there: the key needs them, or names no analyzer.
    const bool esa = r.delivery == Delivery::analyzer_only;
    if (esa != r.key.analyzer.has_value() || esa != r.analyzer_decryption.has_value()) {
      v.faults.push_back(where + (esa ? ": an analyzer-only round's key and decryption must include the analyzer's"
                                      : ": a round delivered to every party has no analyzer's key or decryption"));
      shares_ok = false;
    }
    if (!shares_ok) continue;
    for (std::size_t k = 0; k < r.decryption.size(); ++k) {
      ++v.decryption_proofs;
      const std::uint32_t trustee = r.decrypted_by[k];
      if (auto fault = check_decryption_shares(dctx, trustee, servers.shares[trustee], *in, r.decryption[k], threads); !fault.empty()) {
        v.faults.push_back(where + " trustee " + std::to_string(trustee) + ": " + fault);
        shares_ok = false;
      }
    }
    if (esa) {
      ++v.decryption_proofs;
      if (auto fault = check_decryption_shares(dctx, r.key.analyzer_trustee(), *r.key.analyzer, *in, *r.analyzer_decryption, threads); !fault.empty()) {
        v.faults.push_back(where + " analyzer: " + fault);
        shares_ok = false;
      }
    }
    if (!shares_ok) continue;
    try {
      // Records that do not decode (a sender's ciphertext outside the record's range) are dropped,
      // as the receiver dropped them.
      std::size_t undecodable = 0;
      const CiphertextBatch left = esa ? strip_shares(*in, *r.analyzer_decryption, threads) : CiphertextBatch{};
      if (combine_decryption(esa ? left : *in, r.decryption, r.decrypted_by, r.width, threads, &undecodable) != r.records)
        v.faults.push_back(where + ": the records are not what the proved shares decrypt to");
    } catch (const std::exception& e) {
      v.faults.push_back(where + ": " + e.what());
    }
  }
  return v;
}

std::vector<std::string> check_session(const Transcript& t, const SessionChain& chain) {
  std::vector<std::string> faults;
  if (t.session != chain.session)
    faults.push_back("the transcript is of session " + to_hex(t.session) + ", not of session " + to_hex(chain.session));
  if (t.hops != chain.signers.size())
    faults.push_back("the transcript has " + std::to_string(t.hops) + " hops, the session's chain " + std::to_string(chain.signers.size()));
  else if (t.signers != chain.signers)
    for (std::size_t h = 0; h < t.hops; ++h)
      if (t.signers[h] != chain.signers[h]) faults.push_back("hop " + std::to_string(h) + ": the transcript's signer is not the session's server");
  std::optional<std::uint32_t> previous;
  std::vector<char> seen(chain.rounds.size(), 0);
  for (const auto& r : t.rounds) {
    const std::string where = "round " + std::to_string(r.round);
    if (r.round >= chain.rounds.size()) {
      faults.push_back(where + ": the session has " + std::to_string(chain.rounds.size()) + " rounds");
      continue;
    }
    if (seen[r.round]) faults.push_back(where + " is listed twice");
    else if (previous && r.round < *previous) faults.push_back(where + " is listed after round " + std::to_string(*previous));
    seen[r.round] = 1;
    previous = r.round;
    const SessionChain::Round& want = chain.rounds[r.round];
    if (want.limbs == 0) {
      faults.push_back(where + " carries no records in this session, so it never crossed the chain");
      continue;
    }
    if (r.delivery != want.delivery)
      faults.push_back(where + ": delivered " + to_string(r.delivery) + ", the session's round is " + to_string(want.delivery));
    if (r.width != want.width)
      faults.push_back(where + ": records of " + std::to_string(r.width) + " bytes, the session's round has records of " + std::to_string(want.width));
    if (!(r.key == want.key))
      faults.push_back(where + ": encrypted under another key than the session's " +
                       (want.delivery == Delivery::analyzer_only ? "servers' and analyzer's" : "servers' combined key"));
  }
  for (std::size_t r = 0; r < chain.rounds.size(); ++r)
    if (chain.rounds[r].limbs > 0 && !seen[r]) faults.push_back("round " + std::to_string(r) + " of the session is not in the transcript");
  return faults;
}

}  // namespace shufflempc::mixnet
