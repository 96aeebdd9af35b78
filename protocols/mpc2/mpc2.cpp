#include "shufflempc/protocols/mpc2/mpc2.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>
#include <sodium.h>

#include "shufflempc/protocols/mpc2/bgw.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::mpc2 {
namespace {

constexpr std::uint8_t output_kind = osm::first_protocol_kind;  // round 2: (o, party)
constexpr std::size_t max_elements_per_message = 64;

// Everything the parties and the analyzer share.
template <class F>
struct Setup {
  using E = Elem<F>;
  F field;
  Functionality fn;
  Compiled<F> compiled;
  std::size_t n = 0;
  std::size_t t = 0;
  ZeroSharing zero_sharing = ZeroSharing::prf;
  Delivery delivery = Delivery::all_parties;
  std::size_t noise_parties = 0;
  osm::Config osm;
  std::size_t round1_min = 0, round1_max = 0;  // messages per party
  std::vector<E> points;                       // every party's Shamir point
  std::vector<E> powers_t, powers_2t;          // their powers up to t and 2t (shamir::power_table)

  explicit Setup(F f) : field(std::move(f)) {}
  [[nodiscard]] std::size_t outputs() const { return fn.outputs.size(); }
  [[nodiscard]] std::size_t elem_bytes() const { return field.bytes(); }
  // Field elements party p sends each peer in round 1.
  [[nodiscard]] std::size_t elements_to_peer(PartyId p) const {
    return fn.owned[p].size() + (zero_sharing == ZeroSharing::dealt ? outputs() : 0);
  }
  [[nodiscard]] std::size_t round1_messages(PartyId p) const {
    return (n - 1) * (osm.chaff + osm.chunks(elements_to_peer(p) * elem_bytes()));
  }
  [[nodiscard]] std::size_t round2_width() const { return osm::header_bytes + elem_bytes(); }
};

// The lift of an element into (-p/2, p/2], then the output's divisor.
Value decode_output(const BigInt& p, const BigInt& e, const Output& o) {
  BigInt v = e;
  if (v > p / 2) v -= p;
  if (o.divisor) return v.convert_to<double>() / *o.divisor;
  return integer_to_value(v);
}

BigInt parse_integer(const Value& v, const Functionality& fn, std::uint32_t v_index, PartyId id) {
  const Variable& var = fn.variables[v_index];
  if (!var.bit && v.is_number_integer()) return v.is_number_unsigned() ? BigInt(v.get<std::uint64_t>()) : BigInt(v.get<std::int64_t>());
  const auto bad = [&]() {
    return std::invalid_argument(fmt::format("{}: input {} must be {}, got {}", party_name(id), fn.variable_name(v_index),
                                             var.bit ? "0 or 1" : "an integer (a JSON number or a decimal string)", v.dump()));
  };
  if (v.is_boolean() && var.bit) return v.get<bool>() ? 1 : 0;
  const auto x = integer_from_value(v);
  if (!x || (var.bit && *x != 0 && *x != 1)) throw bad();
  return *x;
}

// The declarations party `id` supplies inputs for, in order.
std::vector<const InputDecl*> own_declarations(const Functionality& fn, PartyId id) {
  std::vector<const InputDecl*> own;
  for (const auto& d : fn.inputs)
    if (!d.noise && (d.per_party || d.owner == id)) own.push_back(&d);
  return own;
}

// Walks party `id`'s input: emit(variable, value) for each owned non-noise variable, in variable
// order (declarations are taken in order, and each one's variables are consecutive). Checks the
// input's shape; emit checks each value.
template <class Emit>
void visit_party_input(const Functionality& fn, PartyId id, const Value& input, Emit&& emit) {
  const auto own = own_declarations(fn, id);
  if (own.empty()) {
    if (!input.is_null())
      throw std::invalid_argument(fmt::format("{} owns no input in this functionality: give null, got {}", party_name(id), input.dump()));
    return;
  }
  const auto take = [&](const InputDecl& d, const Value& v) {
    if (d.per_party || d.scalar) {
      emit(d.first + (d.per_party ? id : 0), v);
      return;
    }
    if (!v.is_array() || v.size() != d.length)
      throw std::invalid_argument(fmt::format("{}: input {} must be an array of {} integers, got {}", party_name(id), d.name,
                                              d.length, v.is_array() ? fmt::format("an array of {}", v.size()) : v.dump()));
    const auto& elements = v.get_ref<const Value::array_t&>();
    for (std::uint32_t i = 0; i < d.length; ++i) emit(d.first + i, elements[i]);
  };
  if (own.size() == 1 && !input.is_object()) {
    take(*own[0], input);
    return;
  }
  if (!input.is_object())
    throw std::invalid_argument(fmt::format("{} owns several inputs: give an object {{\"name\": value, ...}}, got {}", party_name(id), input.dump()));
  for (const auto* d : own) {
    if (!input.contains(d->name)) throw std::invalid_argument(fmt::format("{}: input '{}' is missing", party_name(id), d->name));
    take(*d, input.at(d->name));
  }
  for (const auto& [k, v] : input.items()) {
    bool known = false;
    for (const auto* d : own) known = known || d->name == k;
    if (!known) throw std::invalid_argument(fmt::format("{}: '{}' is not one of its inputs", party_name(id), k));
  }
}

[[noreturn]] void outside_field(const Functionality& fn, PartyId id, std::uint32_t var, const BigInt& x, const BigInt& p) {
  throw std::invalid_argument(fmt::format("{}: input {} = {} is outside [-(p-1)/2, (p-1)/2] for prime {}", party_name(id),
                                          fn.variable_name(var), x.str(), p.str()));
}

// Party `id`'s input as integers: (variable, integer) in variable order. For the truth.
using PartyInput = std::vector<std::pair<std::uint32_t, BigInt>>;
PartyInput parse_party_input(const Functionality& fn, PartyId id, const Value& input, const BigInt& p) {
  PartyInput values;
  const BigInt half = (p - 1) / 2;
  visit_party_input(fn, id, input, [&](std::uint32_t var, const Value& v) {
    BigInt x = parse_integer(v, fn, var, id);
    if (x > half || x < -half) outside_field(fn, id, var, x, p);
    values.emplace_back(var, std::move(x));
  });
  return values;
}

// The same as field elements, in variable order: what a party shares. A JSON integer in a field
// below 2^64 (the default) takes 64-bit arithmetic, no big integer.
template <class F>
std::vector<Elem<F>> party_elements(const F& f, const Functionality& fn, PartyId id, const Value& input) {
  std::vector<Elem<F>> out;
  out.reserve(fn.owned[id].size());
  const BigInt p(f.modulus());
  const BigInt half = (p - 1) / 2;
  [[maybe_unused]] std::uint64_t small_half = 0;  // (p - 1) / 2 when p < 2^64
  if constexpr (std::is_same_v<F, ZqSmall>) small_half = half > std::numeric_limits<std::uint64_t>::max() ? 0 : static_cast<std::uint64_t>(half);
  visit_party_input(fn, id, input, [&](std::uint32_t var, const Value& v) {
    if constexpr (std::is_same_v<F, ZqSmall>) {
      if (small_half != 0 && !fn.variables[var].bit && v.is_number_integer()) {
        const bool negative = !v.is_number_unsigned() && v.get<std::int64_t>() < 0;
        const std::uint64_t magnitude =
            negative ? std::uint64_t{0} - static_cast<std::uint64_t>(v.get<std::int64_t>()) : v.get<std::uint64_t>();
        if (magnitude > small_half) outside_field(fn, id, var, negative ? -BigInt(magnitude) : BigInt(magnitude), p);
        out.push_back(negative ? f.neg(magnitude) : magnitude);  // magnitude <= (p - 1) / 2: already reduced
        return;
      }
    }
    const BigInt x = parse_integer(v, fn, var, id);
    if (x > half || x < -half) outside_field(fn, id, var, x, p);
    out.push_back(to_elem(f, x));
  });
  return out;
}

template <class F>
Elem<F> decode_element(const F& f, std::span<const std::uint8_t> in, const std::string& what) {
  try {
    return f.decode(in);
  } catch (const std::invalid_argument&) {
    throw_error(Errc::protocol_violation, "mpc2: " + what + " is not an element of the field");
  }
}

// Round 1: the output holds exactly the submitters' declared messages, each chaff or ciphertext.
template <class F>
void check_round1(const Setup<F>& s, const MessageBatch& output, const std::vector<PartyId>& submitted) {
  std::size_t expected = 0;
  for (PartyId p : submitted) expected += p < s.n ? s.round1_messages(p) : 0;
  osm::check_declared(output, expected, submitted.size(), "mpc2");
}

// Round 2: checks what arrived and interpolates every output.
template <class F>
Value reconstruct(const Setup<F>& s, const MessageBatch& output, const RoundOutcome& outcome, const std::vector<PartyId>& round1) {
  using E = Elem<F>;
  const F& f = s.field;
  if (output.width() != s.round2_width())
    throw_error(Errc::protocol_violation, fmt::format("mpc2: round 2's messages are {} bytes wide, expected {}", output.width(), s.round2_width()));
  const auto& round2 = outcome.submitted;
  std::vector<int> position(s.n, -1);
  for (std::size_t i = 0; i < round2.size(); ++i) {
    if (round2[i] >= s.n || !std::binary_search(round1.begin(), round1.end(), round2[i]))
      throw_error(Errc::protocol_violation, fmt::format("mpc2: party {} sent round 2 without round 1", round2[i]));
    position[round2[i]] = static_cast<int>(i);
  }
  if (s.zero_sharing == ZeroSharing::prf && round2.size() != round1.size()) {
    std::string missing;
    for (PartyId p : round1)
      if (position[p] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(p);
    throw_error(Errc::too_few_parties, "mpc2: party " + missing +
                                           " dropped before round 2: the prf zero-sharing needs every round-1 party "
                                           "(--zero-sharing dealt tolerates n - 2t - 1 dropouts)");
  }
  if (round2.size() < 2 * s.t + 1)
    throw_error(Errc::too_few_parties, fmt::format("mpc2: {} parties sent round 2; interpolating degree 2t = {} needs {}",
                                                   round2.size(), 2 * s.t, 2 * s.t + 1));
  if (output.count() != round2.size() * s.outputs())
    throw_error(Errc::protocol_violation, fmt::format("mpc2: round 2 holds {} messages for {} parties and {} outputs",
                                                      output.count(), round2.size(), s.outputs()));
  std::vector<E> y(round2.size() * s.outputs());
  std::vector<bool> seen(y.size(), false);
  for (std::size_t i = 0; i < output.count(); ++i) {
    const auto m = output[i];
    const osm::Header h = osm::read_header(m);
    if (h.kind != output_kind || h.a >= s.outputs() || h.b >= s.n || position[h.b] < 0 || h.index != 0)
      throw_error(Errc::protocol_violation, fmt::format("mpc2: a round-2 message names output {} of party {}, not a round-2 sender's", h.a, h.b));
    const std::size_t at = static_cast<std::size_t>(position[h.b]) * s.outputs() + h.a;
    if (seen[at]) throw_error(Errc::protocol_violation, fmt::format("mpc2: two round-2 messages name output {} of party {}", h.a, h.b));
    seen[at] = true;
    y[at] = decode_element(f, m.subspan(osm::header_bytes), fmt::format("party {}'s output {}", h.b, h.a));
  }
  const BigInt p(f.modulus());
  Value result = Value::object();
  // sum_i l_i y_{o,i} over the first l.size() round-2 senders.
  const auto interpolate = [&](const std::vector<E>& l, std::size_t o) {
    E v{};
    for (std::size_t i = 0; i < l.size(); ++i) v = f.add(v, f.mul(l[i], y[i * s.outputs() + o]));
    return v;
  };
  if (s.zero_sharing == ZeroSharing::prf) {
    // Over every round-1 party: the alphas cancel.
    const auto l = shamir::lagrange_at_zero(f, std::span<const PartyId>(round2));
    for (std::size_t o = 0; o < s.outputs(); ++o)
      result[s.fn.outputs[o].name] = decode_output(p, to_big(f, interpolate(l, o)), s.fn.outputs[o]);
    return result;
  }
  // Dealt zero-sharing: the values lie on one polynomial of degree 2t. Interpolate at 0 from the
  // first 2t + 1 and check that every further value lies on it (a party that lied is caught when
  // more than 2t + 1 parties remain).
  // The Lagrange coefficients depend on the points only: computed once, used for every output.
  const std::size_t k = 2 * s.t + 1;
  const std::span<const PartyId> base(round2.data(), k);
  std::vector<std::vector<E>> at(round2.size() - k + 1);  // [0]: at 0; [i]: at round2[k + i - 1]'s point
  at[0] = shamir::lagrange_at_zero(f, base);
  for (std::size_t j = k; j < round2.size(); ++j) at[j - k + 1] = shamir::lagrange_at(f, base, shamir::point(f, round2[j]));
  for (std::size_t o = 0; o < s.outputs(); ++o) {
    for (std::size_t j = k; j < round2.size(); ++j)
      if (interpolate(at[j - k + 1], o) != y[j * s.outputs() + o])
        throw_error(Errc::protocol_violation,
                    fmt::format("mpc2: output '{}': the round-2 values do not lie on one polynomial of degree {} (a party sent a wrong value)",
                                s.fn.outputs[o].name, 2 * s.t));
    result[s.fn.outputs[o].name] = decode_output(p, to_big(f, interpolate(at[0], o)), s.fn.outputs[o]);
  }
  return result;
}

template <class F>
class Mpc2Party final : public Party {
 public:
  using E = Elem<F>;
  Mpc2Party(std::shared_ptr<const Setup<F>> s, PartyId id, std::vector<E> inputs)
      : s_(std::move(s)), id_(id), inputs_(std::move(inputs)) {}

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) send_shares(rng, out);
    else send_outputs(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round == 0) receive_shares(output, outcome);
    else result_ = reconstruct(*s_, output, outcome, round1_);
  }

  Value output() const override { return result_; }

 private:
  void send_shares(Rng& rng, MessageBatch& out) {
    const Setup<F>& s = *s_;
    const F& f = s.field;
    const std::size_t eb = s.elem_bytes();
    out.reserve(out.count() + s.round1_messages(id_));
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    shares_.assign(s.fn.variables.size(), E{});
    const auto& owned = s.fn.owned[id_];
    // plaintext[k]: the encoded elements for peer k, this party's shares at k's point, then its zero
    // shares for k (dealt); written in place, element `at` at byte at * eb.
    std::vector<std::vector<std::uint8_t>> plaintext(s.n);
    for (PartyId k = 0; k < s.n; ++k)
      if (k != id_) plaintext[k].resize(s.elements_to_peer(id_) * eb);
    // Values are dealt in runs: share_many_by_powers draws every value's coefficients in turn, as
    // one call per value would, so a run of inputs and a noise share between runs keep the order
    // of the generator's draws (and the shares) of dealing them one by one.
    std::size_t at = 0;  // elements written to each peer's plaintext so far
    std::vector<E> secrets, points;
    std::vector<E*> own;  // where this party keeps its own share of each of the run's values
    const auto deal_run = [&](std::size_t degree) {
      // A block of values at a time: its shares stay in cache until they are encoded.
      constexpr std::size_t block = 4096;
      for (std::size_t b = 0; b < secrets.size(); b += block) {
        const std::size_t m = std::min(block, secrets.size() - b);
        points.resize(s.n * m);
        shamir::share_many_by_powers(f, std::span<const E>(secrets).subspan(b, m), degree, rng,
                                     std::span<const E>(degree == s.t ? s.powers_t : s.powers_2t), std::span<E>(points));
        for (PartyId k = 0; k < s.n; ++k) {
          const E* share = points.data() + k * m;
          if (k == id_) {
            for (std::size_t i = 0; i < m; ++i) *own[b + i] = share[i];
            continue;
          }
          std::uint8_t* dst = plaintext[k].data() + at * eb;
          for (std::size_t i = 0; i < m; ++i) f.encode(share[i], std::span<std::uint8_t>(dst + i * eb, eb));
        }
        at += m;
      }
      secrets.clear();
      own.clear();
    };
    auto input = inputs_.begin();  // the owned non-noise variables, in the same order as `owned`
    for (std::uint32_t v : owned) {
      if (s.fn.variables[v].noise) {
        deal_run(s.t);  // the values before it draw their coefficients before its noise is drawn
        // This party's share of the discrete Laplace noise: Polya(1/m, a) - Polya(1/m, a) over the
        // m = noise_parties parties that are sure to submit, a = exp(-epsilon).
        const double a = std::exp(-noise_epsilon(v));
        const double r = 1.0 / static_cast<double>(s.noise_parties);
        const auto plus = static_cast<std::int64_t>(polya(rng, r, a));
        const auto minus = static_cast<std::int64_t>(polya(rng, r, a));
        secrets.push_back(to_elem(f, BigInt(plus - minus)));
      } else {
        secrets.push_back(*input++);
      }
      own.push_back(&shares_[v]);
    }
    deal_run(s.t);
    zero_.assign(s.outputs(), E{});
    if (s.zero_sharing == ZeroSharing::dealt) {
      secrets.assign(s.outputs(), E{});
      for (auto& z : zero_) own.push_back(&z);
      deal_run(2 * s.t);
    }
    if constexpr (std::is_trivially_copyable_v<E>) sodium_memzero(points.data(), points.size() * sizeof(E));
    for (PartyId k = 0; k < s.n; ++k) {
      if (k == id_) continue;
      osm_->append_ciphertext(k, plaintext[k], out);
      sodium_memzero(plaintext[k].data(), plaintext[k].size());
    }
  }

  double noise_epsilon(std::uint32_t v) const { return s_->fn.declaration_of(v).epsilon; }

  void receive_shares(const MessageBatch& output, const RoundOutcome& outcome) {
    const Setup<F>& s = *s_;
    const F& f = s.field;
    round1_ = outcome.submitted;
    check_round1(s, output, round1_);
    osm_->receive(output, round1_);
    // Each sender's chunks opened on its own thread when there is much to open (a party that
    // receives the shares of long vectors from several senders would otherwise decrypt them one
    // after another while the cores it shares with fewer-receiving parties idle); an error is the
    // lowest sender's, whatever the threads.
    std::vector<PartyId> senders;
    std::size_t volume = 0;
    for (PartyId k : round1_)
      if (k != id_) senders.push_back(k), volume += s.elements_to_peer(k) * s.elem_bytes();
    std::vector<std::vector<std::uint8_t>> opened(senders.size());
    std::vector<std::exception_ptr> failed(senders.size());
    parallel_for(senders.size(), volume >= (std::size_t{256} << 10) ? hardware_threads() : 1, [&](std::size_t i) {
      try {
        opened[i] = osm_->open(senders[i], s.elements_to_peer(senders[i]) * s.elem_bytes());
      } catch (...) {
        failed[i] = std::current_exception();
      }
    });
    for (const auto& e : failed)
      if (e) std::rethrow_exception(e);
    for (std::size_t j = 0; j < senders.size(); ++j) {
      const PartyId k = senders[j];
      const std::size_t count = s.elements_to_peer(k);
      const auto& bytes = opened[j];
      const auto& owned = s.fn.owned[k];
      const std::string from = "a share from party " + std::to_string(k);  // once, not per element
      for (std::size_t i = 0; i < count; ++i) {
        const E e = decode_element(f, std::span(bytes).subspan(i * s.elem_bytes(), s.elem_bytes()), from);
        if (i < owned.size()) shares_[owned[i]] = e;
        else zero_[i - owned.size()] = f.add(zero_[i - owned.size()], e);
      }
    }
    if (s.zero_sharing == ZeroSharing::prf) {
      // alpha_o = sum_{k > self} F(K, o) - sum_{k < self} F(K, o); divided by L_self.
      const auto l = shamir::lagrange_at_zero(f, std::span<const PartyId>(round1_));
      const auto self_at = static_cast<std::size_t>(std::lower_bound(round1_.begin(), round1_.end(), id_) - round1_.begin());
      const E inv_l = f.inverse(l[self_at]);
      for (PartyId k : round1_) {
        if (k == id_) continue;
        auto key = osm_->pair_key(k);
        KeyedRng prf(key);
        sodium_memzero(key.data(), key.size());
        for (std::size_t o = 0; o < s.outputs(); ++o) {
          const E r = f.mul(f.uniform(prf), inv_l);
          zero_[o] = k > id_ ? f.add(zero_[o], r) : f.sub(zero_[o], r);
        }
      }
    }
    osm_.reset();
  }

  void send_outputs(MessageBatch& out) {
    const Setup<F>& s = *s_;
    const F& f = s.field;
    const auto local = evaluate_local(f, s.compiled, std::span<const E>(shares_));
    for (std::size_t o = 0; o < s.outputs(); ++o) {
      auto m = out.append();
      osm::write_header(m, {output_kind, static_cast<std::uint32_t>(o), id_, 0});
      f.encode(f.add(local[o], zero_[o]), m.subspan(osm::header_bytes));
    }
    shares_.clear();
  }

  std::shared_ptr<const Setup<F>> s_;
  PartyId id_;
  std::vector<E> inputs_;  // the owned non-noise variables' values, in variable order
  std::optional<osm::SecretMessages> osm_;
  std::vector<E> shares_;  // this party's share of every variable
  std::vector<E> zero_;    // this party's zero share of every output
  std::vector<PartyId> round1_;
  Value result_;
};

template <class F>
class Mpc2Analyzer final : public Analyzer {
 public:
  explicit Mpc2Analyzer(std::shared_ptr<const Setup<F>> s) : s_(std::move(s)) {}
  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome, Rng&) override {
    const std::size_t senders = std::max<std::size_t>(1, outcome.submitted.size());
    traffic_.push_back({{"round", round + 1},
                        {"messages_per_party", static_cast<double>(outcome.messages) / static_cast<double>(senders)},
                        {"bytes_per_party", static_cast<double>(output.size_bytes()) / static_cast<double>(senders)}});
    if (round == 0) {
      round1_ = outcome.submitted;
      check_round1(*s_, output, round1_);
      observer_ = osm::observe(s_->osm, output, round1_);
      return;
    }
    result_ = reconstruct(*s_, output, outcome, round1_);
    round2_ = outcome.submitted;
  }
  Value result() override { return result_; }
  Value details() const override {
    return {{"inputs_from", round1_},
            {"round_2_from", round2_},
            {"rounds", traffic_},
            {"observer",
             {{"pairs", observer_.pairs},
              {"chaff_labels", s_->osm.chaff},
              {"min_uncertain_labels", observer_.min_uncertain_labels},
              {"collided_labels", observer_.collided_labels},
              {"note", "per pair, the observer of round 1 is uncertain of one bit per label whose two chaff payloads differ"}}}};
  }

 private:
  std::shared_ptr<const Setup<F>> s_;
  std::vector<PartyId> round1_, round2_;
  osm::ObserverView observer_;
  Value traffic_ = Value::array();
  Value result_;
};

template <class F>
class Mpc2Protocol final : public Protocol {
 public:
  explicit Mpc2Protocol(std::shared_ptr<const Setup<F>> s) : s_(std::move(s)) {}
  std::uint32_t rounds() const override { return 2; }
  RoundShape round(std::uint32_t r) const override {
    if (r == 0) return {s_->osm.width, Delivery::all_parties, s_->round1_min, s_->round1_max};
    return RoundShape::exactly(s_->round2_width(), s_->delivery, s_->outputs());
  }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    return std::make_unique<Mpc2Party<F>>(s_, id, party_elements(s_->field, s_->fn, id, input));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<Mpc2Analyzer<F>>(s_); }
  // A party that may send 64 KiB of shares in round 1 (thousands of input elements) works for
  // milliseconds in each round.
  bool heavy_parties() const override { return s_->round1_max * s_->osm.width >= (std::size_t{64} << 10); }
  Value random_input(PartyId id, std::string_view spec, Rng& rng) const override {
    const auto range = InputSpec::parse(spec, input_forms());
    std::int64_t lo = 0, hi = 100;
    if (range.has(0)) {
      constexpr std::int64_t limit = std::int64_t{1} << 62;
      lo = range.integer(0, -limit, limit);
      hi = range.integer(1, lo, limit);
    }
    const auto own = own_declarations(s_->fn, id);
    const auto draw = [&](const InputDecl& d) -> Value {
      const auto one = [&]() -> Value { return d.bit ? Value(rng.bit() ? 1 : 0) : Value(rng.uniform_between(lo, hi)); };
      if (d.per_party || d.scalar) return one();
      Value a = Value::array();
      for (std::size_t i = 0; i < d.length; ++i) a.push_back(one());
      return a;
    };
    if (own.empty()) return nullptr;
    if (own.size() == 1) return draw(*own[0]);
    Value o = Value::object();
    for (const auto* d : own) o[d->name] = draw(*d);
    return o;
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    std::vector<BigInt> values(s_->fn.variables.size(), 0);
    for (std::size_t p = 0; p < inputs.size() && p < s_->n; ++p)
      for (auto& [v, x] : parse_party_input(s_->fn, static_cast<PartyId>(p), inputs[p], modulus())) values[v] = std::move(x);
    const auto out = s_->fn.evaluate(values);
    Value t = Value::object();
    for (std::size_t o = 0; o < out.size(); ++o) {
      const Output& spec = s_->fn.outputs[o];
      t[spec.name] = spec.divisor ? Value(out[o].template convert_to<double>() / *spec.divisor) : integer_to_value(out[o]);
    }
    return t;
  }
  Value describe() const override {
    const Setup<F>& s = *s_;
    std::size_t ct_min = SIZE_MAX, ct_max = 0;
    for (PartyId p = 0; p < s.n; ++p) {
      ct_min = std::min(ct_min, s.osm.chunks(s.elements_to_peer(p) * s.elem_bytes()));
      ct_max = std::max(ct_max, s.osm.chunks(s.elements_to_peer(p) * s.elem_bytes()));
    }
    Value outputs = Value::array();
    for (const auto& o : s.fn.outputs) outputs.push_back(o.name);
    Value d = {{"prime", modulus().str()},
               {"threshold", s.t},
               {"tolerated_round_2_dropouts", s.zero_sharing == ZeroSharing::dealt ? s.n - 2 * s.t - 1 : 0},
               {"zero_sharing", s.zero_sharing == ZeroSharing::prf ? "prf (computational)" : "dealt (perfect)"},
               {"osm", {{"mode", osm::to_string(s.osm.mode)}, {"chaff_per_pair", s.osm.chaff}, {"message_bytes", s.osm.width}}},
               {"round_2", to_string(s.delivery)},
               {"variables", s.fn.variables.size()},
               {"outputs", outputs},
               {"per_party",
                {{{"round", 1},
                  {"chaff_messages", (s.n - 1) * s.osm.chaff},
                  {"ciphertext_messages", {(s.n - 1) * ct_min, (s.n - 1) * ct_max}},
                  {"messages", {s.round1_min, s.round1_max}},
                  {"bytes", {s.round1_min * s.osm.width, s.round1_max * s.osm.width}}},
                 {{"round", 2}, {"messages", s.outputs()}, {"bytes", s.outputs() * s.round2_width()}}}}};
    if (s.fn.source.size() <= 2000) d["program"] = s.fn.source;
    if (s.fn.has_noise()) d["noise_parties"] = s.noise_parties;
    return d;
  }
  bool has_error() const override { return s_->fn.has_noise(); }

 private:
  [[nodiscard]] BigInt modulus() const { return BigInt(s_->field.modulus()); }
  std::shared_ptr<const Setup<F>> s_;
};

template <class F>
std::unique_ptr<Protocol> build(F field, Functionality fn, const Options& o, std::size_t min_parties) {
  auto s = std::make_shared<Setup<F>>(std::move(field));
  s->n = fn.parties;
  s->t = o.threshold;
  s->zero_sharing = o.zero_sharing;
  s->delivery = o.delivery;
  s->compiled = compile(s->field, fn);
  s->points = shamir::points(s->field, s->n);
  s->powers_t = shamir::power_table(s->field, std::span<const Elem<F>>(s->points), s->t);
  s->powers_2t = shamir::power_table(s->field, std::span<const Elem<F>>(s->points), 2 * s->t);
  s->fn = std::move(fn);
  const std::size_t guaranteed = min_parties == 0 ? s->n : min_parties;
  s->noise_parties = o.noise_parties != 0 ? o.noise_parties : guaranteed;
  // Round 1's width: as many elements per message as the largest plaintext needs, up to 64.
  std::size_t most = 1;
  for (PartyId p = 0; p < s->n; ++p) most = std::max(most, s->elements_to_peer(p));
  const std::size_t per_message = std::min(most, max_elements_per_message);
  s->osm.parties = s->n;
  s->osm.mode = o.osm;
  s->osm.width = osm::header_bytes + per_message * s->elem_bytes() + (o.osm == osm::KeyMode::kdf ? osm::mac_bytes : 0);
  if (o.osm == osm::KeyMode::kdf) {
    s->osm.chaff = o.chaff == 0 ? osm::default_chaff : o.chaff;
    if (s->osm.chaff < 128)
      throw std::invalid_argument(fmt::format("parameter 'chaff' = {}: kdf keys need at least 128 labels per pair", s->osm.chaff));
  } else {
    // Both directions of a pair share the chaff's unknown bits: l_ij + l_ji + 40 <= chaff.
    std::size_t need = 0;
    for (PartyId a = 0; a < s->n; ++a)
      for (PartyId b = a + 1; b < s->n; ++b)
        need = std::max(need, 8 * s->elem_bytes() * (s->elements_to_peer(a) + s->elements_to_peer(b)) + osm::coset_margin_bits);
    if (need > osm::max_chaff)
      throw std::invalid_argument(fmt::format("--osm coset pads every share information-theoretically and needs {} chaff labels per "
                                              "pair here, above the limit {}: use --osm kdf for this many inputs",
                                              need, osm::max_chaff));
    s->osm.chaff = o.chaff == 0 ? need : o.chaff;
    if (s->osm.chaff < need)
      throw std::invalid_argument(fmt::format("parameter 'chaff' = {}: --osm coset needs at least {} labels per pair here", s->osm.chaff, need));
  }
  s->osm.validate();
  s->round1_min = SIZE_MAX;
  for (PartyId p = 0; p < s->n; ++p) {
    s->round1_min = std::min(s->round1_min, s->round1_messages(p));
    s->round1_max = std::max(s->round1_max, s->round1_messages(p));
  }
  return std::make_unique<Mpc2Protocol<F>>(std::move(s));
}

}  // namespace

const std::vector<InputForm>& input_forms() {
  static const std::vector<InputForm> forms{{"uniform", {"LO", "HI"}, 2}};
  return forms;
}

std::unique_ptr<Protocol> make_protocol(Functionality fn, const Options& o, std::size_t min_parties) {
  const std::size_t n = fn.parties;
  if (n < 3) throw std::invalid_argument(fmt::format("mpc2 needs at least 3 parties (t >= 1 and n >= 2t + 1), got {}", n));
  Options opt = o;
  const std::size_t max_t = (n - 1) / 2;
  if (opt.threshold == 0) opt.threshold = max_t;
  if (opt.threshold > max_t)
    throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: must be in [1, {}] for {} parties (t < n/2)", opt.threshold, max_t, n));
  const std::size_t need = 2 * opt.threshold + 1;
  if (min_parties != 0 && min_parties < need)
    throw std::invalid_argument(fmt::format("--min-parties {}: interpolating degree 2t = {} needs at least {} parties", min_parties,
                                            2 * opt.threshold, need));
  BigInt p;
  try {
    if (opt.prime.empty() || opt.prime.size() > 2000 || opt.prime.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("");
    p = BigInt(opt.prime);
  } catch (const std::exception&) {
    throw std::invalid_argument("parameter 'prime' = " + opt.prime + ": must be a decimal prime above the number of parties");
  }
  SeededRng mr(0x6d70'6332);  // Miller-Rabin's bases need no secrecy
  if (p <= BigInt(n) || !is_probable_prime(p, mr))
    throw std::invalid_argument("parameter 'prime' = " + opt.prime + ": must be a prime above the number of parties (" +
                                std::to_string(n) + ")");
  if (p < (BigInt(1) << 64)) return build(ZqSmall::from_big(p), std::move(fn), opt, min_parties);
  return build(ZqBig(p), std::move(fn), opt, min_parties);
}

}  // namespace shufflempc::mpc2
