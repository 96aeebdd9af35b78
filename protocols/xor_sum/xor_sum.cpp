#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::xor_sum {
namespace {

std::uint32_t bucket_of(const std::uint8_t* m, std::uint32_t buckets, const char* who) {
  const auto j = load_le<std::uint32_t>(m);
  if (j >= buckets) throw_error(Errc::protocol_violation, fmt::format("{}: a message names bucket {} outside [0, {})", who, j, buckets));
  return j;
}

std::uint8_t share_of(const std::uint8_t* m, const char* who) {
  if (m[4] > 1) throw_error(Errc::protocol_violation, fmt::format("{}: a message carries the bit byte {} (must be 0 or 1)", who, m[4]));
  return m[4];
}

void append(MessageBatch& out, std::uint32_t bucket, std::uint8_t bit) {
  const auto m = out.append();
  store_le<std::uint32_t>(m.data(), bucket);
  m[4] = bit;
}

// Per bucket: the number of messages and the XOR of their bits (checked).
void tally(const MessageBatch& b, std::uint32_t buckets, const char* who, std::vector<std::uint32_t>& count, Parities& parity) {
  count.assign(buckets, 0);
  parity.assign(buckets, 0);
  for (std::size_t i = 0; i < b.count(); ++i) {
    const std::uint8_t* m = b[i].data();
    const std::uint32_t j = bucket_of(m, buckets, who);
    count[j] += 1;
    parity[j] ^= share_of(m, who);
  }
}

Parities tally_parities(const MessageBatch& b, std::uint32_t buckets, const char* who) {
  std::vector<std::uint32_t> count;
  Parities parity;
  tally(b, buckets, who, count, parity);
  return parity;
}

}  // namespace

Item parse_item(PartyId id, const Value& v, std::uint32_t buckets) {
  const Value* j = nullptr;
  const Value* b = nullptr;
  if (v.is_array() && v.size() == 2) {
    j = &v[0];
    b = &v[1];
  } else if (v.is_object() && v.contains("bucket") && v.contains("bit") && v.size() == 2) {
    j = &v["bucket"];
    b = &v["bit"];
  }
  const auto bit = b ? bool_from_value(*b) : std::nullopt;
  if (!j || !j->is_number_integer() || j->get<std::int64_t>() < 0 || j->get<std::int64_t>() >= buckets || !bit)
    throw std::invalid_argument(fmt::format("{}'s input must be [bucket, bit] or {{\"bucket\": j, \"bit\": b}} with bucket in [0, {}) and bit 0 or 1, got {}",
                                            party_name(id), buckets, v.dump()));
  return {static_cast<std::uint32_t>(j->get<std::int64_t>()), *bit};
}

Value item_value(const Item& x) { return Value::array({x.bucket, x.bit ? 1 : 0}); }

Item ItemSampler::operator()(Rng& rng) const { return {rng.uniform32(buckets), bernoulli(rng, p)}; }

const std::vector<InputForm>& item_forms() {
  static const std::vector<InputForm> forms{{"uniform", {"P"}, 1}, {"constant", {"B"}}, {"buckets", {"K", "P"}, 1}};
  return forms;
}

ItemSampler item_sampler(std::string_view text, std::uint32_t buckets) {
  const auto spec = InputSpec::parse(text, item_forms());
  if (spec.is("constant")) return {buckets, spec.bit(0) ? 1.0 : 0.0};
  if (spec.is("buckets"))
    return {static_cast<std::uint32_t>(spec.integer(0, 1, buckets)), spec.has(1) ? spec.real(1, 0, 1) : 0.5};
  return {buckets, spec.has(0) ? spec.real(0, 0, 1) : 0.5};
}

std::int64_t exact_xor_sum(std::span<const Item> xs, std::uint32_t buckets) {
  std::vector<std::uint8_t> parity(buckets, 0);
  for (const Item& x : xs) parity.at(x.bucket) ^= x.bit ? 1 : 0;
  std::int64_t s = 0;
  for (auto p : parity) s += p;
  return s;
}

double rr_flip_for_alpha(double alpha) {
  if (!(alpha >= 0)) throw std::invalid_argument("alpha must be at least 0");
  return (1 - std::pow(1 + 8 * alpha * alpha, -0.25)) / 2;
}

double parity_flip(double p, std::uint64_t c) { return (1 - std::pow(1 - 2 * p, static_cast<double>(c))) / 2; }

double noise_parity_flip(double rate, std::uint64_t parties, std::uint32_t buckets) {
  return (1 - std::pow(1 - 2 * rate / buckets, static_cast<double>(parties))) / 2;
}

double noise_rate_for_alpha(double alpha, std::uint64_t parties, std::uint32_t buckets) {
  if (!(alpha >= 0)) throw std::invalid_argument("alpha must be at least 0");
  if (parties == 0) throw std::invalid_argument("parties must be at least 1");
  // (1 - 2r/B)^N = (1 + 4 alpha^2)^(-1/2)
  const double r = buckets * -std::expm1(-std::log1p(4 * alpha * alpha) / (2.0 * static_cast<double>(parties))) / 2;
  if (r > 1)
    throw std::invalid_argument(fmt::format("alpha = {} needs a noise rate of {:.3f} > 1 at {} parties and {} buckets: choose alpha with "
                                            "(1 + 4 alpha^2)^(1/(2N)) <= 1/(1 - 2/B)",
                                            alpha, r, parties, buckets));
  return r;
}

// ---- P0 ----

void ExactMechanism::encode(const Item& x, Rng& rng, MessageBatch& out) const {
  std::uint8_t last = x.bit ? 1 : 0;
  for (std::uint32_t k = 0; k + 1 < shares; ++k) {
    const std::uint8_t s = rng.bit() ? 1 : 0;
    last ^= s;
    append(out, x.bucket, s);
  }
  append(out, x.bucket, last);
}

Parities ExactMechanism::parities(const MessageBatch& messages) const { return tally_parities(messages, buckets, "xor-sum-exact"); }

double ExactMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const {
  double s = 0;
  for (auto p : parities(shuffled)) s += p;
  return s;
}

Value ExactMechanism::describe() const {
  return {{"buckets", buckets},
          {"shares", shares},
          {"error", 0},
          {"privacy", "none: the analyzer reads every bucket's parity (the exact endpoint of the lower bound)"},
          {"replay_ceiling", 1.0}};
}

// ---- P1 ----

void RrMechanism::encode(const Item& x, Rng& rng, MessageBatch& out) const {
  append(out, x.bucket, static_cast<std::uint8_t>((x.bit ? 1 : 0) ^ (bernoulli(rng, flip) ? 1 : 0)));
}

Parities RrMechanism::parities(const MessageBatch& messages) const { return tally_parities(messages, buckets, "xor-sum-rr"); }

double RrMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const {
  std::vector<std::uint32_t> count;
  Parities parity;
  tally(shuffled, buckets, "xor-sum-rr", count, parity);
  // q_c depends only on c: cache the few counts that occur.
  std::vector<double> q_of;
  double s = 0;
  for (std::uint32_t j = 0; j < buckets; ++j) {
    const std::uint32_t c = count[j];
    if (c == 0) continue;
    if (c >= q_of.size()) {
      const std::size_t from = q_of.size();
      q_of.resize(c + 1);
      for (std::size_t k = from; k <= c; ++k) q_of[k] = parity_flip(flip, k);
    }
    const double q = q_of[c];
    s += (parity[j] - q) / (1 - 2 * q);
  }
  return s;
}

Value RrMechanism::describe() const {
  const double q2 = parity_flip(flip, 2);
  Value v = {{"buckets", buckets},
             {"flip", flip},
             {"epsilon0", randomized_response_epsilon(flip)},
             {"epsilon0_source", "randomized response on the bit: ln((1 - p) / p) (shufflempc/accounting/privacy.hpp)"},
             {"bucket_privacy", "none: the bucket id travels in the clear"},
             {"replay_ceiling", 1 - flip},
             {"rmse_per_pair_bucket", std::sqrt(q2 * (1 - q2)) / (1 - 2 * q2)}};
  if (alpha > 0) v["alpha"] = alpha;
  // Amplification within a bucket: its m reports are shuffled among themselves, and the bound
  // only improves with more parties, so a bucket of at least m parties has at most this epsilon.
  const std::uint64_t m = buckets > 0 ? parties / buckets : 0;
  if (m >= 2) {
    v["central"] = {{"parties_per_bucket", m},
                    {"delta", delta},
                    {"epsilon", ldp_blanket_epsilon(m, randomized_response_epsilon(flip), delta)},
                    {"bound", "ldp-blanket: the privacy blanket summed exactly, valid for every eps0-LDP randomizer"},
                    {"protects", "one party's bit, its bucket fixed, when the bucket holds at least parties_per_bucket parties (as when "
                                 "the buckets are equally full); never the bucket id"}};
  } else {
    v["central"] = {{"parties_per_bucket", m}, {"epsilon", nullptr}, {"protects", "the local epsilon0 only: a bucket of one party has no one to hide among"}};
  }
  return v;
}

// ---- P2 ----

void NoiseIdsMechanism::encode(const Item& x, Rng& rng, MessageBatch& out) const {
  store_le<std::uint32_t>(out.append().data(), x.bit ? x.bucket : no_bucket);
  store_le<std::uint32_t>(out.append().data(), bernoulli(rng, rate) ? rng.uniform32(buckets) : no_bucket);
}

Parities NoiseIdsMechanism::parities(const MessageBatch& messages) const {
  Parities parity(buckets, 0);
  for (std::size_t i = 0; i < messages.count(); ++i) {
    const auto j = load_le<std::uint32_t>(messages[i].data());
    if (j == no_bucket) continue;
    if (j >= buckets)
      throw_error(Errc::protocol_violation, fmt::format("xor-sum-noise-ids: a message names bucket {} outside [0, {})", j, buckets));
    parity[j] ^= 1;
  }
  return parity;
}

double NoiseIdsMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
  const Parities parity = parities(shuffled);
  const double q = noise_parity_flip(rate, outcome.submitted.size(), buckets);
  std::uint64_t odd = 0;
  for (auto p : parity) odd += p;
  return (static_cast<double>(odd) - buckets * q) / (1 - 2 * q);
}

Value NoiseIdsMechanism::describe() const {
  const double q = noise_parity_flip(rate, parties, buckets);
  const double q_half = noise_parity_flip(rate, parties / 2, buckets);
  Value v = {{"buckets", buckets},
             {"noise_rate", rate},
             {"parity_flip", q},
             {"epsilon_parity", randomized_response_epsilon(q)},
             {"epsilon_parity_source",
              "each bucket's parity is the bit XOR Bern(q) over all parties' noise: ln((1 - q) / q) (shufflempc/accounting/privacy.hpp); the counts "
              "themselves leak more"},
             {"epsilon_parity_half", randomized_response_epsilon(q_half)},
             {"replay_ceiling", 1 - q_half},
             {"rmse", std::sqrt(buckets * q * (1 - q)) / (1 - 2 * q)}};
  if (alpha > 0) v["alpha"] = alpha;
  return v;
}

}  // namespace shufflempc::xor_sum
