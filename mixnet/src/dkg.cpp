#include "shufflempc/mixnet/dkg.hpp"

#include <sodium.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>

#include "shufflempc/little_endian.hpp"

namespace shufflempc::mixnet {
namespace {

constexpr std::string_view setup_label = "shufflempc/dkg/setup/v1";
constexpr std::string_view statement_label = "shufflempc/dkg/message/v1";
constexpr std::string_view nonce_label = "shufflempc/dkg/share-nonce/v1";
constexpr std::string_view commit_label = "shufflempc/dkg/commit/v1";
constexpr std::string_view outcome_label = "shufflempc/dkg/outcome/v1";

void put_u32(std::vector<std::uint8_t>& out, std::size_t v) {
  std::uint8_t b[4];
  store_le<std::uint32_t>(b, static_cast<std::uint32_t>(v));
  out.insert(out.end(), b, b + 4);
}

// Reads fields from a byte string, throwing std::invalid_argument naming `what` when it runs out.
struct Reader {
  std::span<const std::uint8_t> bytes;
  std::string what;
  std::size_t at = 0;
  std::span<const std::uint8_t> take(std::size_t n) {
    if (bytes.size() - at < n) throw std::invalid_argument(what + ": ends early (byte " + std::to_string(at) + ")");
    auto s = bytes.subspan(at, n);
    at += n;
    return s;
  }
  std::uint32_t u32() { return load_le<std::uint32_t>(take(4).data()); }
  std::uint8_t u8() { return take(1)[0]; }
  template <class A>
  A array() {
    A a{};
    const auto s = take(a.size());
    std::copy(s.begin(), s.end(), a.begin());
    return a;
  }
  void end() const {
    if (at != bytes.size()) throw std::invalid_argument(what + ": " + std::to_string(bytes.size() - at) + " bytes too many");
  }
};

// f(z) in the exponent: Σ_j z^j A_j by Horner.
Point eval_commitments(std::span<const Point> a, std::size_t index) {
  const Scalar z = scalar_from_u64(index + 1);
  Point y = a.back();
  for (std::size_t j = a.size() - 1; j-- > 0;) y = z * y + a[j];
  return y;
}

std::array<std::uint8_t, crypto_box_NONCEBYTES> share_nonce(const DkgSetup& setup, std::size_t dealer, std::size_t recipient) {
  std::vector<std::uint8_t> data;
  const auto d = setup.digest();
  data.insert(data.end(), d.begin(), d.end());
  put_u32(data, dealer);
  put_u32(data, recipient);
  std::array<std::uint8_t, crypto_box_NONCEBYTES> n{};
  crypto_generichash(n.data(), n.size(), data.data(), data.size(), reinterpret_cast<const unsigned char*>(nonce_label.data()),
                     nonce_label.size());
  return n;
}

// The share `dealer` sealed to `recipient`, opened with the recipient's secret; nullopt if it does
// not open or is not a scalar below L.
std::optional<Scalar> open_sealed(const DkgSetup& setup, std::size_t dealer, std::size_t recipient, const SealedShare& sealed,
                                  std::span<const std::uint8_t> box_secret) {
  const auto nonce = share_nonce(setup, dealer, recipient);
  Scalar s;
  if (crypto_box_open_easy(s.bytes.data(), sealed.data(), sealed.size(), nonce.data(), setup.box_keys[dealer].data(), box_secret.data()) != 0)
    return std::nullopt;
  if (!valid_scalar(s)) return std::nullopt;
  return s;
}

DkgDigest commitment_of(const DkgSetup& setup, std::size_t dealer, std::span<const std::uint8_t> deal_body) {
  std::vector<std::uint8_t> data;
  const auto d = setup.digest();
  data.insert(data.end(), d.begin(), d.end());
  put_u32(data, dealer);
  data.insert(data.end(), deal_body.begin(), deal_body.end());
  DkgDigest out{};
  crypto_generichash(out.data(), out.size(), data.data(), data.size(), reinterpret_cast<const unsigned char*>(commit_label.data()),
                     commit_label.size());
  return out;
}

// The servers a complaint body lists: ascending, below k, never the complainer.
std::vector<std::uint32_t> parse_complaints(const DkgSetup& setup, std::size_t server, std::span<const std::uint8_t> body,
                                            const std::string& what) {
  Reader r{body, what};
  const std::uint32_t n = r.u32();
  if (n >= setup.servers()) throw std::invalid_argument(what + ": " + std::to_string(n) + " complaints among " + std::to_string(setup.servers()) + " servers");
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t d = r.u32();
    if (d >= setup.servers() || d == server || (!out.empty() && d <= out.back()))
      throw std::invalid_argument(what + ": complaint " + std::to_string(i) + " names server " + std::to_string(d) +
                                  " (dealers ascending, other than the complainer, below " + std::to_string(setup.servers()) + ")");
    out.push_back(d);
  }
  r.end();
  return out;
}

std::vector<Justification> parse_justifications(const DkgSetup& setup, std::span<const std::uint8_t> body, const std::string& what) {
  Reader r{body, what};
  const std::uint32_t n = r.u32();
  if (n >= setup.servers()) throw std::invalid_argument(what + ": " + std::to_string(n) + " answers among " + std::to_string(setup.servers()) + " servers");
  std::vector<Justification> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    Justification j;
    j.recipient = r.u32();
    j.share.bytes = r.array<std::array<std::uint8_t, scalar_bytes>>();
    if (j.recipient >= setup.servers() || (!out.empty() && j.recipient <= out.back().recipient) || !valid_scalar(j.share))
      throw std::invalid_argument(what + ": answer " + std::to_string(i) + " is not a share below L for a server above the last one's");
    out.push_back(j);
  }
  r.end();
  return out;
}

}  // namespace

std::string to_string(DkgStep step) {
  switch (step) {
    case DkgStep::commit: return "commitment";
    case DkgStep::deal: return "deal";
    case DkgStep::complain: return "complaints";
    case DkgStep::justify: return "answers to complaints";
  }
  return "step " + std::to_string(static_cast<int>(step));
}

std::string DkgSetup::check() const {
  if (box_keys.size() < 2 || box_keys.size() > max_trustees)
    return std::to_string(box_keys.size()) + " servers (2 to " + std::to_string(max_trustees) + ")";
  if (signers.size() != box_keys.size()) return std::to_string(signers.size()) + " signing keys for " + std::to_string(box_keys.size()) + " servers";
  if (threshold < 1 || threshold > box_keys.size())
    return "a threshold of " + std::to_string(threshold) + " (1 to the " + std::to_string(box_keys.size()) + " servers)";
  if (std::set<BoxPublicKey>(box_keys.begin(), box_keys.end()).size() != box_keys.size()) return "a server's X25519 key listed twice";
  if (std::set<SigningPublicKey>(signers.begin(), signers.end()).size() != signers.size()) return "a server's signing key listed twice";
  return {};
}

std::vector<std::uint8_t> DkgSetup::to_bytes() const {
  std::vector<std::uint8_t> out(session.begin(), session.end());
  put_u32(out, threshold);
  put_u32(out, box_keys.size());
  for (std::size_t i = 0; i < box_keys.size(); ++i) {
    out.insert(out.end(), box_keys[i].begin(), box_keys[i].end());
    out.insert(out.end(), signers.at(i).begin(), signers.at(i).end());
  }
  return out;
}

DkgSetup DkgSetup::from_bytes(std::span<const std::uint8_t> bytes, const std::string& what) {
  Reader r{bytes, what};
  DkgSetup s;
  s.session = r.array<SessionId>();
  s.threshold = r.u32();
  const std::uint32_t k = r.u32();
  if (k > max_trustees) throw std::invalid_argument(what + ": " + std::to_string(k) + " servers (at most " + std::to_string(max_trustees) + ")");
  for (std::uint32_t i = 0; i < k; ++i) {
    s.box_keys.push_back(r.array<BoxPublicKey>());
    s.signers.push_back(r.array<SigningPublicKey>());
  }
  r.end();
  if (auto why = s.check(); !why.empty()) throw std::invalid_argument(what + ": " + why);
  return s;
}

DkgDigest DkgSetup::digest() const {
  const auto b = to_bytes();
  DkgDigest d{};
  crypto_generichash(d.data(), d.size(), b.data(), b.size(), reinterpret_cast<const unsigned char*>(setup_label.data()), setup_label.size());
  return d;
}

std::vector<std::uint8_t> DkgMessage::to_bytes() const {
  std::vector<std::uint8_t> out(body);
  out.insert(out.end(), signature.begin(), signature.end());
  return out;
}

DkgMessage DkgMessage::from_bytes(std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() < Signature{}.size()) throw std::invalid_argument(what + ": shorter than its signature");
  DkgMessage m;
  m.body.assign(bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(m.signature.size()));
  std::copy(bytes.end() - static_cast<std::ptrdiff_t>(m.signature.size()), bytes.end(), m.signature.begin());
  return m;
}

std::vector<std::uint8_t> dkg_statement(const DkgSetup& setup, DkgStep step, std::size_t server, std::span<const std::uint8_t> body) {
  std::vector<std::uint8_t> out(statement_label.begin(), statement_label.end());
  const auto d = setup.digest();
  out.insert(out.end(), d.begin(), d.end());
  out.push_back(static_cast<std::uint8_t>(step));
  put_u32(out, server);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<std::uint8_t> Deal::to_bytes() const {
  std::vector<std::uint8_t> out;
  for (const auto& a : commitments) out.insert(out.end(), a.bytes.begin(), a.bytes.end());
  for (const auto& s : shares) out.insert(out.end(), s.begin(), s.end());
  return out;
}

Deal Deal::from_bytes(const DkgSetup& setup, std::span<const std::uint8_t> bytes, const std::string& what) {
  const std::size_t want = setup.threshold * point_bytes + setup.servers() * SealedShare{}.size();
  if (bytes.size() != want)
    throw std::invalid_argument(what + ": a deal is " + std::to_string(want) + " bytes for t = " + std::to_string(setup.threshold) + " of " +
                                std::to_string(setup.servers()) + ", got " + std::to_string(bytes.size()));
  Reader r{bytes, what};
  Deal d;
  for (std::size_t j = 0; j < setup.threshold; ++j) {
    Point a;
    a.bytes = r.array<std::array<std::uint8_t, point_bytes>>();
    if (!valid_point(a)) throw std::invalid_argument(what + ": commitment " + std::to_string(j) + " is not a canonical ristretto255 point");
    d.commitments.push_back(a);
  }
  for (std::size_t m = 0; m < setup.servers(); ++m) d.shares.push_back(r.array<SealedShare>());
  return d;
}

bool Deal::holds(std::size_t recipient, const Scalar& share) const { return mul_base(share) == eval_commitments(commitments, recipient); }

DkgParticipant::DkgParticipant(DkgSetup setup, std::size_t index, std::span<const std::uint8_t> box_secret, SigningKeyPair signing, Rng& rng)
    : setup_(std::move(setup)), index_(index), signing_(std::move(signing)) {
  ensure_sodium();
  if (auto why = setup_.check(); !why.empty()) throw std::invalid_argument("distributed key generation: " + why);
  if (index_ >= setup_.servers()) throw std::invalid_argument("distributed key generation: server " + std::to_string(index_) + " is not one of the setup's");
  if (box_secret.size() != box_secret_.size()) throw std::invalid_argument("distributed key generation: an X25519 secret is 32 bytes");
  std::copy(box_secret.begin(), box_secret.end(), box_secret_.begin());
  BoxPublicKey own{};
  crypto_scalarmult_base(own.data(), box_secret_.data());
  if (own != setup_.box_keys[index_])
    throw std::invalid_argument("distributed key generation: this key file is not server " + std::to_string(index_) + "'s X25519 key");
  if (signing_.public_key() != setup_.signers[index_])
    throw std::invalid_argument("distributed key generation: this key file does not derive server " + std::to_string(index_) + "'s signing key");
  std::vector<Scalar> a(setup_.threshold);
  for (auto& s : a) s = random_scalar(rng);
  for (const auto& s : a) deal_.commitments.push_back(mul_base(s));
  for (std::size_t m = 0; m < setup_.servers(); ++m) {
    const Scalar z = scalar_from_u64(m + 1);
    Scalar x = a.back();
    for (std::size_t j = a.size() - 1; j-- > 0;) x = x * z + a[j];
    shares_.push_back(x);
  }
  for (auto& s : a) sodium_memzero(s.bytes.data(), s.bytes.size());
  deal_bad_share_to(setup_.servers());  // seals every share (none bad)
}

DkgParticipant::~DkgParticipant() {
  sodium_memzero(box_secret_.data(), box_secret_.size());
  for (auto& s : shares_) sodium_memzero(s.bytes.data(), s.bytes.size());
}

void DkgParticipant::deal_bad_share_to(std::size_t recipient) {
  if (recipient < setup_.servers()) bad_to_ = recipient;
  deal_.shares.assign(setup_.servers(), SealedShare{});
  for (std::size_t m = 0; m < setup_.servers(); ++m) {
    Scalar s = shares_[m];
    if (bad_to_ == m) s = s + scalar_from_u64(1);
    const auto nonce = share_nonce(setup_, index_, m);
    const int sealed =
        crypto_box_easy(deal_.shares[m].data(), s.bytes.data(), s.bytes.size(), nonce.data(), setup_.box_keys[m].data(), box_secret_.data());
    sodium_memzero(s.bytes.data(), s.bytes.size());
    if (sealed != 0) throw std::invalid_argument("distributed key generation: server " + std::to_string(m) + "'s X25519 key is not usable");
  }
}

DkgMessage DkgParticipant::sign(DkgStep step, std::vector<std::uint8_t> body) const {
  DkgMessage m;
  m.signature = signing_.sign(dkg_statement(setup_, step, index_, body));
  m.body = std::move(body);
  return m;
}

DkgMessage DkgParticipant::commit() const {
  const auto c = commitment_of(setup_, index_, deal_.to_bytes());
  return sign(DkgStep::commit, std::vector<std::uint8_t>(c.begin(), c.end()));
}

DkgMessage DkgParticipant::deal() const { return sign(DkgStep::deal, deal_.to_bytes()); }

DkgMessage DkgParticipant::complain(std::span<const std::optional<DkgMessage>> deals) const {
  std::vector<std::uint8_t> body;
  std::vector<std::uint32_t> against;
  for (std::size_t i = 0; i < deals.size() && i < setup_.servers(); ++i) {
    if (i == index_ || !deals[i]) continue;
    Deal d;
    try {
      d = Deal::from_bytes(setup_, deals[i]->body, "deal");
    } catch (const std::invalid_argument&) {
      continue;  // malformed: disqualified by everyone, no complaint needed
    }
    const auto s = open_sealed(setup_, i, index_, d.shares[index_], box_secret_);
    if (!s || !d.holds(index_, *s)) against.push_back(static_cast<std::uint32_t>(i));
  }
  put_u32(body, against.size());
  for (auto i : against) put_u32(body, i);
  return sign(DkgStep::complain, std::move(body));
}

DkgMessage DkgParticipant::justify(std::span<const std::optional<DkgMessage>> complaints) const {
  std::vector<std::uint8_t> body;
  std::vector<std::uint32_t> from;
  for (std::size_t m = 0; m < complaints.size() && m < setup_.servers(); ++m) {
    if (m == index_ || !complaints[m]) continue;
    try {
      const auto c = parse_complaints(setup_, m, complaints[m]->body, "complaints");
      if (std::binary_search(c.begin(), c.end(), static_cast<std::uint32_t>(index_))) from.push_back(static_cast<std::uint32_t>(m));
    } catch (const std::invalid_argument&) {
    }
  }
  put_u32(body, from.size());
  for (auto m : from) {
    put_u32(body, m);
    Scalar s = shares_[m];
    if (bad_to_ == m) s = s + scalar_from_u64(1);  // a cheating dealer repeats its wrong share
    body.insert(body.end(), s.bytes.begin(), s.bytes.end());
  }
  return sign(DkgStep::justify, std::move(body));
}

std::vector<std::uint8_t> DkgTranscript::to_bytes(bool with_endorsements) const {
  std::vector<std::uint8_t> out;
  const auto s = setup.to_bytes();
  put_u32(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
  for (const auto& server : messages)
    for (const auto& m : server) {
      out.push_back(m ? 1 : 0);
      if (!m) continue;
      put_u32(out, m->body.size());
      out.insert(out.end(), m->body.begin(), m->body.end());
      out.insert(out.end(), m->signature.begin(), m->signature.end());
    }
  if (!with_endorsements) return out;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const bool has = i < endorsements.size() && endorsements[i];
    out.push_back(has ? 1 : 0);
    if (has) out.insert(out.end(), endorsements[i]->begin(), endorsements[i]->end());
  }
  return out;
}

DkgTranscript DkgTranscript::from_bytes(std::span<const std::uint8_t> bytes, const std::string& what) {
  Reader r{bytes, what};
  DkgTranscript t;
  const std::uint32_t setup_bytes = r.u32();
  t.setup = DkgSetup::from_bytes(r.take(setup_bytes), what + ": setup");
  t.messages.resize(t.setup.servers());
  for (std::size_t i = 0; i < t.setup.servers(); ++i)
    for (std::size_t s = 0; s < dkg_steps; ++s) {
      const std::uint8_t present = r.u8();
      if (present > 1) throw std::invalid_argument(what + ": server " + std::to_string(i) + "'s " + to_string(static_cast<DkgStep>(s + 1)) + ": a presence byte of " + std::to_string(present));
      if (present == 0) continue;
      DkgMessage m;
      const std::uint32_t n = r.u32();
      const auto b = r.take(n);
      m.body.assign(b.begin(), b.end());
      m.signature = r.array<Signature>();
      t.messages[i][s] = std::move(m);
    }
  if (r.at == bytes.size())
    throw std::invalid_argument(what + ": it carries no server's signature of the outcome (made by an earlier version: run the key "
                                       "generation again)");
  t.endorsements.resize(t.setup.servers());
  for (std::size_t i = 0; i < t.setup.servers(); ++i) {
    const std::uint8_t present = r.u8();
    if (present > 1) throw std::invalid_argument(what + ": server " + std::to_string(i) + "'s endorsement: a presence byte of " + std::to_string(present));
    if (present == 1) t.endorsements[i] = r.array<Signature>();
  }
  r.end();
  return t;
}

std::string check_dkg_message(const DkgSetup& setup, DkgStep step, std::size_t server, const DkgMessage& message) {
  if (server >= setup.servers()) return "server " + std::to_string(server) + " is not one of the " + std::to_string(setup.servers());
  if (!signature_holds(message.signature, dkg_statement(setup, step, server, message.body), setup.signers[server]))
    return "its " + to_string(step) + ": the signature does not hold for its signing key";
  try {
    switch (step) {
      case DkgStep::commit:
        if (message.body.size() != DkgDigest{}.size()) return "its commitment is not " + std::to_string(DkgDigest{}.size()) + " bytes";
        break;
      case DkgStep::deal: (void)Deal::from_bytes(setup, message.body, "its deal"); break;
      case DkgStep::complain: (void)parse_complaints(setup, server, message.body, "its complaints"); break;
      case DkgStep::justify: (void)parse_justifications(setup, message.body, "its answers to complaints"); break;
    }
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

DkgOutcome dkg_outcome(const DkgTranscript& t, const std::string& what) {
  const DkgSetup& setup = t.setup;
  if (auto why = setup.check(); !why.empty()) throw std::invalid_argument(what + ": " + why);
  const std::size_t k = setup.servers();
  if (t.messages.size() != k) throw std::invalid_argument(what + ": messages of " + std::to_string(t.messages.size()) + " servers for " + std::to_string(k));
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t s = 0; s < dkg_steps; ++s)
      if (t.messages[i][s])
        if (auto why = check_dkg_message(setup, static_cast<DkgStep>(s + 1), i, *t.messages[i][s]); !why.empty())
          throw std::invalid_argument(what + ": server " + std::to_string(i) + ": " + why);
  // Who complained about whom.
  std::vector<std::vector<std::uint32_t>> complainers(k);
  for (std::size_t m = 0; m < k; ++m)
    if (const auto& c = t.messages[m][2])
      for (auto d : parse_complaints(setup, m, c->body, "complaints")) complainers[d].push_back(static_cast<std::uint32_t>(m));
  DkgOutcome out;
  std::vector<Deal> deals(k);
  for (std::size_t i = 0; i < k; ++i) {
    const auto& commit = t.messages[i][0];
    const auto& deal = t.messages[i][1];
    std::string why;
    if (!commit) why = "it sent no commitment";
    else if (!deal) why = "it sent no deal";
    else if (commitment_of(setup, i, deal->body) != [&] { DkgDigest d{}; std::copy(commit->body.begin(), commit->body.end(), d.begin()); return d; }())
      why = "its deal is not the one it committed to";
    else if (complainers[i].size() >= setup.threshold)
      why = std::to_string(complainers[i].size()) + " servers complained about its shares (" + std::to_string(setup.threshold) +
            " or more: answering would reveal its secret)";
    else {
      deals[i] = Deal::from_bytes(setup, deal->body, "deal");
      const auto answers = t.messages[i][3] ? parse_justifications(setup, t.messages[i][3]->body, "answers") : std::vector<Justification>{};
      for (auto m : complainers[i]) {
        const auto a = std::find_if(answers.begin(), answers.end(), [&](const Justification& j) { return j.recipient == m; });
        if (a == answers.end()) {
          why = "it did not answer server " + std::to_string(m) + "'s complaint";
          break;
        }
        if (!deals[i].holds(m, a->share)) {
          why = "its share for server " + std::to_string(m) + " is not on its commitments (server " + std::to_string(m) +
                " complained, and the share it revealed is off them too)";
          break;
        }
      }
    }
    if (why.empty()) out.qualified.push_back(static_cast<std::uint32_t>(i));
    else out.disqualified.emplace_back(static_cast<std::uint32_t>(i), why);
  }
  if (out.qualified.empty()) throw std::invalid_argument(what + ": no server dealt a usable part of the key");
  if (out.qualified.size() < setup.threshold) {
    std::string dq;
    for (const auto& [who, why] : out.disqualified) dq += (dq.empty() ? "" : "; ") + ("server " + std::to_string(who) + ": " + why);
    throw std::invalid_argument(what + ": " + std::to_string(out.qualified.size()) + " server(s) qualified, fewer than the threshold " +
                                std::to_string(setup.threshold) + ", so fewer than t servers would hold the key (" + dq + ")");
  }
  out.key.threshold = setup.threshold;
  out.key.commitments.assign(setup.threshold, Point{});
  for (auto i : out.qualified)
    for (std::size_t j = 0; j < setup.threshold; ++j) out.key.commitments[j] = out.key.commitments[j] + deals[i].commitments[j];
  for (std::size_t m = 0; m < k; ++m) out.key.shares.push_back(eval_commitments(out.key.commitments, m));
  if (out.key.key() == Point{}) throw std::invalid_argument(what + ": the key is the identity");
  return out;
}

std::vector<std::uint8_t> dkg_outcome_statement(const DkgTranscript& t, const DkgOutcome& o) {
  std::vector<std::uint8_t> out(outcome_label.begin(), outcome_label.end());
  const auto d = t.setup.digest();
  out.insert(out.end(), d.begin(), d.end());
  const auto body = t.to_bytes(false);
  std::array<std::uint8_t, 32> h{};
  crypto_generichash(h.data(), h.size(), body.data(), body.size(), nullptr, 0);
  out.insert(out.end(), h.begin(), h.end());
  put_u32(out, o.qualified.size());
  for (auto q : o.qualified) put_u32(out, q);
  for (const auto& a : o.key.commitments) out.insert(out.end(), a.bytes.begin(), a.bytes.end());
  return out;
}

void check_endorsements(const DkgTranscript& t, const DkgOutcome& o, const std::string& what) {
  const auto statement = dkg_outcome_statement(t, o);
  for (auto q : o.qualified) {
    const bool signed_it = q < t.endorsements.size() && t.endorsements[q] && signature_holds(*t.endorsements[q], statement, t.setup.signers.at(q));
    if (!signed_it)
      throw std::invalid_argument(what + ": qualified server " + std::to_string(q) + (q < t.endorsements.size() && t.endorsements[q] ? "'s signature of the outcome does not hold" : " did not sign the outcome") +
                                  " (every server the key's QUAL names must consent to it; run the key generation again)");
  }
}

Signature DkgParticipant::endorse(const DkgTranscript& transcript) const {
  if (!(transcript.setup == setup_)) throw std::invalid_argument("the transcript is of another setup");
  const auto outcome = dkg_outcome(transcript, "the transcript");
  (void)dkg_share(transcript, outcome, index_, box_secret_);
  return signing_.sign(dkg_outcome_statement(transcript, outcome));
}

ElGamalKey dkg_share(const DkgTranscript& t, const DkgOutcome& outcome, std::size_t index, std::span<const std::uint8_t> box_secret) {
  const DkgSetup& setup = t.setup;
  if (index >= setup.servers()) throw std::invalid_argument("server " + std::to_string(index) + " is not one of the key's " + std::to_string(setup.servers()));
  ElGamalKey key;
  for (auto i : outcome.qualified) {
    const Deal d = Deal::from_bytes(setup, t.messages[i][1]->body, "deal");
    std::optional<Scalar> s;
    if (i == index) s = open_sealed(setup, i, index, d.shares[index], box_secret);
    else {
      const auto& c = t.messages[index][2];
      const bool complained = c && [&] {
        const auto l = parse_complaints(setup, index, c->body, "complaints");
        return std::binary_search(l.begin(), l.end(), i);
      }();
      if (complained) {
        for (const auto& a : parse_justifications(setup, t.messages[i][3]->body, "answers"))
          if (a.recipient == index) s = a.share;
      } else {
        s = open_sealed(setup, i, index, d.shares[index], box_secret);
      }
    }
    if (!s || !d.holds(index, *s))
      throw std::invalid_argument("server " + std::to_string(index) + "'s share from server " + std::to_string(i) +
                                  " does not open with this key file or is off its commitments, and it did not complain");
    key.secret = key.secret + *s;
    sodium_memzero(s->bytes.data(), s->bytes.size());
  }
  key.public_key = mul_base(key.secret);
  if (key.public_key != outcome.key.shares.at(index))
    throw std::invalid_argument("server " + std::to_string(index) + "'s share does not match its public share of the key");
  return key;
}

DkgTranscript run_dkg_locally(std::span<DkgParticipant* const> participants) {
  if (participants.empty()) throw std::invalid_argument("run_dkg_locally: no participants");
  DkgTranscript t;
  t.setup = participants[0]->setup();
  const std::size_t k = participants.size();
  t.messages.resize(k);
  for (std::size_t i = 0; i < k; ++i) t.messages[i][0] = participants[i]->commit();
  for (std::size_t i = 0; i < k; ++i) t.messages[i][1] = participants[i]->deal();
  std::vector<std::optional<DkgMessage>> step(k);
  for (std::size_t i = 0; i < k; ++i) step[i] = t.messages[i][1];
  for (std::size_t i = 0; i < k; ++i) t.messages[i][2] = participants[i]->complain(step);
  for (std::size_t i = 0; i < k; ++i) step[i] = t.messages[i][2];
  for (std::size_t i = 0; i < k; ++i) t.messages[i][3] = participants[i]->justify(step);
  t.endorsements.resize(k);
  for (std::size_t i = 0; i < k; ++i) {
    try {
      t.endorsements[i] = participants[i]->endorse(t);
    } catch (const std::invalid_argument&) {
      // A server whose share does not hold gives no consent; the outcome then stands only without it.
    }
  }
  return t;
}

}  // namespace shufflempc::mixnet
