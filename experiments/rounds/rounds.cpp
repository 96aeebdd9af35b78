// What each round buys: the rows of `shufflempc study rounds` (shufflempc/experiments/rounds.hpp).
#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/suggest.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "shufflempc/protocols/circuit/circuit.hpp"
#include "shufflempc/attacks/labels.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"
#include "shufflempc/study/csv.hpp"

namespace shufflempc::experiments {
namespace {

using Clock = std::chrono::steady_clock;

// The named fork labels (a name in the high bytes, attacks::labels::tag, and an index below it):
// a trial's inputs from (function, trial), its run from (row, trial). Trials stay below 2^24.
constexpr std::uint64_t inputs_label(std::uint64_t function, std::uint64_t trial) { return attacks::labels::tag("IN") + (function << 24) + trial; }
constexpr std::uint64_t run_label(std::uint64_t row, std::uint64_t trial) { return attacks::labels::tag("RUN") + (row << 24) + trial; }
static_assert(inputs_label(0, 0) == 0x494e000000000000ULL && run_label(1, 2) == 0x52554e0001000002ULL);

// One function's inputs for one trial, before a protocol encodes them: per party its integers
// (empty: the party holds nothing).
using Draw = std::vector<std::vector<std::uint64_t>>;

struct Entry {
  std::string function, protocol, threat_model;
  std::size_t parties = 0;
  std::shared_ptr<const Protocol> make;
  std::function<std::vector<Value>(const Draw&)> encode;  // the protocol's inputs
};

// The bits of `values` (each `bits` wide) as one group's hex text: element i at bits [bits i, bits (i + 1)).
std::string group_hex(const std::vector<std::uint64_t>& values, std::uint32_t bits) {
  std::vector<std::uint8_t> b;
  for (auto v : values)
    for (std::uint32_t j = 0; j < bits; ++j) b.push_back(static_cast<std::uint8_t>((v >> j) & 1));
  return circuit::hex_from_bits(b);
}

std::uint32_t bits_for(std::uint64_t v) {
  std::uint32_t b = 1;
  while ((std::uint64_t{1} << b) <= v && b < 63) ++b;
  return b;
}

// Output wires, copied last and padded to `width` with the constant 0.
std::string finish(circuit::BristolWriter& w, const std::vector<std::uint32_t>& out, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) (void)w.copy(i < out.size() ? out[i] : circuit::BristolWriter::zero);
  return w.text({static_cast<std::uint32_t>(width)});
}

// sum of n numbers of `bits` bits: an adder tree.
std::string sum_circuit(std::size_t n, std::uint32_t bits, std::size_t width) {
  circuit::BristolWriter w(std::vector<std::uint32_t>(n, bits));
  std::vector<std::vector<std::uint32_t>> xs(n);
  for (std::size_t p = 0; p < n; ++p)
    for (std::uint32_t j = 0; j < bits; ++j) xs[p].push_back(w.input(p, j));
  return finish(w, w.sum(std::move(xs), width, true), width);
}

// XOR of n bits (no AND gate), and AND of two.
std::string xor_circuit(std::size_t n) {
  circuit::BristolWriter w(std::vector<std::uint32_t>(n, 1));
  std::uint32_t acc = w.input(0, 0);
  for (std::size_t p = 1; p < n; ++p) acc = w.xor_(acc, w.input(p, 0));
  return finish(w, {acc}, 1);
}
std::string and_circuit() {
  circuit::BristolWriter w({1, 1});
  return finish(w, {w.and_(w.input(0, 0), w.input(1, 0))}, 1);
}

// The inner product of two vectors of `length` elements of 8 bits: schoolbook products, an adder tree.
std::string inner_product_circuit(std::size_t length, std::size_t width) {
  circuit::BristolWriter w({static_cast<std::uint32_t>(8 * length), static_cast<std::uint32_t>(8 * length)});
  std::vector<std::vector<std::uint32_t>> products;
  for (std::size_t i = 0; i < length; ++i) {
    std::vector<std::vector<std::uint32_t>> partial;
    for (std::uint32_t j = 0; j < 8; ++j) {
      std::vector<std::uint32_t> row(j, circuit::BristolWriter::zero);  // shifted by j
      for (std::uint32_t k = 0; k < 8; ++k) row.push_back(w.and_(w.input(0, static_cast<std::uint32_t>(8 * i) + k), w.input(1, static_cast<std::uint32_t>(8 * i) + j)));
      partial.push_back(std::move(row));
    }
    products.push_back(w.sum(std::move(partial), 16, true));
  }
  return finish(w, w.sum(std::move(products), width, true), width);
}

std::shared_ptr<const Protocol> circuit_protocol(const std::string& text, const std::string& name, std::size_t n, circuit::Variant v,
                                                 std::vector<PartyId> owners) {
  circuit::Options o;
  o.variant = v;
  o.owners = std::move(owners);
  o.delivery = v == circuit::Variant::designated_garbler ? Delivery::analyzer_only : Delivery::all_parties;
  return circuit::make_protocol(std::make_shared<const circuit::Circuit>(circuit::parse(text, name)), n, o);
}

constexpr const char* v1_threat = "one corrupted computing party plus any clients; everyone sees both rounds";
constexpr const char* v2_threat = "any t < n/3 parties; everyone sees both rounds";
constexpr const char* v3_threat = "the analyzer plus t < n/2 parties; the garbler and the analyzer must not collude";
constexpr const char* bgw_threat = "any t < n/2 parties; everyone sees every round";
constexpr const char* mpc2_threat = "any t < n/2 parties; everyone sees both rounds";

// Every entry of `function` for n parties.
std::vector<Entry> entries(const Registry& registry, const std::string& function, std::size_t n, std::size_t length) {
  std::vector<Entry> e;
  const auto circuit_rows = [&](const std::string& text, const std::vector<PartyId>& owners, std::function<std::vector<Value>(const Draw&)> encode) {
    e.push_back({function, "circuit v1", v1_threat, n, circuit_protocol(text, function, n, circuit::Variant::two_garblers, owners), encode});
    if (n >= 4)  // v2 needs t = floor((n - 1) / 3) >= 1
      e.push_back({function, "circuit v2", v2_threat, n, circuit_protocol(text, function, n, circuit::Variant::many_garblers, owners), encode});
    e.push_back({function, "circuit bgw", bgw_threat, n, circuit_protocol(text, function, n, circuit::Variant::bgw, owners), encode});
  };
  std::vector<PartyId> everyone(n);
  for (PartyId p = 0; p < n; ++p) everyone[p] = p;
  if (function == "sum") {
    const std::size_t width = 10 + bits_for(n - 1);
    const auto integers = [](const Draw& d) {
      std::vector<Value> v;
      for (const auto& x : d) v.emplace_back(x[0]);
      return v;
    };
    e.push_back({function, "split-mix-sum", "the analyzer learns the sum only (statistical, 2^-40); the shuffler is trusted", n,
                 registry.create("split-mix-sum", {{"input-bits", "10"}}, n), integers});
    e.push_back({function, "mpc2", mpc2_threat, n, registry.create("mpc2", {{"function", "sum"}}, n), integers});
    circuit_rows(sum_circuit(n, 10, width), everyone, [](const Draw& d) {
      std::vector<Value> v;
      for (const auto& x : d) v.emplace_back(group_hex(x, 10));
      return v;
    });
  } else if (function == "xor-sum") {
    const auto bucketed = [](const Draw& d) {
      std::vector<Value> v;
      for (const auto& x : d) v.push_back(Value::array({0, x[0]}));
      return v;
    };
    e.push_back({function, "xor-sum-rr", "local randomized response on the bit: one round costs error Omega(sqrt n)", n,
                 registry.create("xor-sum-rr", {{"buckets", "1"}}, n), bucketed});
    e.push_back({function, "xor-sum-exact", "none: the analyzer reads the parity's shares", n,
                 registry.create("xor-sum-exact", {{"buckets", "1"}}, n), bucketed});
    circuit_rows(xor_circuit(n), everyone, [](const Draw& d) {
      std::vector<Value> v;
      for (const auto& x : d) v.emplace_back(group_hex(x, 1));
      return v;
    });
  } else if (function == "and") {
    const auto two_bits = [n](const Draw& d) {
      std::vector<Value> v(n, nullptr);
      v[0] = d[0][0];
      v[1] = d[1][0];
      return v;
    };
    e.push_back({function, "mpc2", mpc2_threat, n, registry.create("mpc2", {{"function", "input bit a@0, b@1; output y = a*b"}}, n), two_bits});
    circuit_rows(and_circuit(), {0, 1}, [n](const Draw& d) {
      std::vector<Value> v(n, nullptr);
      v[0] = group_hex(d[0], 1);
      v[1] = group_hex(d[1], 1);
      return v;
    });
    e.push_back({function, "card-and", "the two parties, semi-honest: cryptographic cards (ElGamal on ristretto255)", 2,
                 registry.create("card-and", {}, 2), [](const Draw& d) { return std::vector<Value>{d[0][0], d[1][0]}; }});
  } else if (function == "inner-product") {
    const std::size_t width = 16 + bits_for(length - 1);
    e.push_back({function, "mpc2", mpc2_threat, n,
                 registry.create("mpc2", {{"function", fmt::format("input a[{0}]@0, b[{0}]@1; output ip = dot(a, b)", length)}}, n),
                 [n](const Draw& d) {
                   std::vector<Value> v(n, nullptr);
                   v[0] = d[0];
                   v[1] = d[1];
                   return v;
                 }});
    circuit_rows(inner_product_circuit(length, width), {0, 1}, [n](const Draw& d) {
      std::vector<Value> v(n, nullptr);
      v[0] = group_hex(d[0], 8);
      v[1] = group_hex(d[1], 8);
      return v;
    });
  } else if (function == "aes-128" || function == "sha-256") {
    const auto two_groups = [n](const Draw& d) {
      std::vector<Value> v(n, nullptr);
      v[0] = group_hex(d[0], 8);  // random bytes: AES's key and plaintext, SHA-256's block and chaining value
      v[1] = group_hex(d[1], 8);
      return v;
    };
    const std::string circuit = function == "aes-128" ? "aes_128" : "sha256";
    for (const auto& [variant, label, threat] : {std::tuple{"v1", "circuit v1", v1_threat}, std::tuple{"v2", "circuit v2", v2_threat},
                                                 std::tuple{"v3", "circuit v3", v3_threat}, std::tuple{"bgw", "circuit bgw", bgw_threat}})
      if (n >= 4 || std::string(variant) != "v2")
        e.push_back({function, label, threat, n,
                   registry.create("circuit", {{"circuit", circuit}, {"variant", variant}, {"owners", "0,1"}}, n), two_groups});
  }
  return e;
}

// The inputs of `function` for one trial: every party's integers (card-and and the two-party
// functions read parties 0 and 1 only).
Draw draw(const std::string& function, std::size_t n, std::size_t length, Rng& rng) {
  Draw d(n);
  for (std::size_t p = 0; p < n; ++p) {
    if (function == "sum") d[p] = {rng.uniform(1000)};
    else if (function == "xor-sum" || function == "and") d[p] = {rng.uniform(2)};
    else if (function == "inner-product") {
      for (std::size_t i = 0; i < length; ++i) d[p].push_back(rng.uniform(256));
    } else if (function == "sha-256") {
      for (int i = 0; i < (p == 0 ? 64 : 32); ++i) d[p].push_back(rng.uniform(256));
    } else {
      for (int i = 0; i < 16; ++i) d[p].push_back(rng.uniform(256));
    }
  }
  return d;
}

// The function's value on a trial's inputs, computed here in the clear: the reference every row is
// checked against (a generated circuit is not its own witness). AES-128 has none here; its rows
// are checked against the circuit's plain evaluation, which the circuit tests hold to FIPS-197.
std::optional<double> reference(const std::string& function, const Draw& d, std::size_t n) {
  double v = 0;
  if (function == "sum") {
    for (std::size_t p = 0; p < n; ++p) v += static_cast<double>(d[p][0]);
  } else if (function == "xor-sum") {
    std::uint64_t x = 0;
    for (std::size_t p = 0; p < n; ++p) x ^= d[p][0];
    v = static_cast<double>(x);
  } else if (function == "and") {
    v = static_cast<double>(d[0][0] & d[1][0]);
  } else if (function == "inner-product") {
    for (std::size_t i = 0; i < d[0].size(); ++i) v += static_cast<double>(d[0][i] * d[1][i]);
  } else {
    return std::nullopt;
  }
  return v;
}

// A protocol's output as a number: a number, an object of one number ({"sum": 12}), or a circuit's
// hex text.
std::optional<double> as_number(const Value& out) {
  if (out.is_number()) return out.get<double>();
  if (out.is_object() && out.size() == 1 && out.begin()->is_number()) return out.begin()->get<double>();
  if (out.is_string()) {
    const std::string& hex = out.get_ref<const std::string&>();
    if (hex.empty() || hex.size() > 13 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
    return static_cast<double>(std::stoull(hex, nullptr, 16));
  }
  return std::nullopt;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

NetworkRun& network_runner() {
  static NetworkRun run;
  return run;
}

// The round-trip times a study runs at: none (in process), or the given ones with 0 first.
std::vector<std::optional<double>> rtt_plan(const RoundsStudyOptions& o) {
  if (o.rtt_ms.empty()) return {std::nullopt};
  std::vector<double> v = o.rtt_ms;
  v.push_back(0);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return {v.begin(), v.end()};
}

}  // namespace

double& session_round_trips() {
  static double trips = 0;
  return trips;
}

void set_network_runner(NetworkRun run, double session_round_trips) {
  network_runner() = std::move(run);
  experiments::session_round_trips() = session_round_trips;
}

const std::vector<std::pair<std::string, std::string>>& rounds_functions() {
  static const std::vector<std::pair<std::string, std::string>> f = {
      {"sum", "the sum of every party's integer in [0, 1000)"},
      {"xor-sum", "the XOR of every party's bit"},
      {"and", "the AND of party 0's and party 1's bits"},
      {"inner-product", "the inner product of party 0's and party 1's vectors of 8-bit integers (--length)"},
      {"aes-128", "AES-128 of party 1's plaintext under party 0's key"},
      {"sha-256", "SHA-256's compression of party 0's 512-bit block with party 1's 256-bit chaining value (AND-depth 1607: BGW "
                  "takes 1609 rounds; not in the default list)"}};
  return f;
}

void validate(const RoundsStudyOptions& o) {
  if (o.parties < 3 || o.parties > 64) throw std::invalid_argument(fmt::format("--parties {}: must be in [3, 64]", o.parties));
  if (o.trials < 1 || o.trials > 100000) throw std::invalid_argument(fmt::format("--trials {}: must be in [1, 100000]", o.trials));
  if (o.length < 1 || o.length > 4096) throw std::invalid_argument(fmt::format("--length {}: must be in [1, 4096]", o.length));
  if (o.functions.empty()) throw std::invalid_argument("--functions: give at least one");
  for (double r : o.rtt_ms)
    if (!(r >= 0 && r <= 20000)) throw std::invalid_argument(fmt::format("--rtt {}: each round-trip time must be in [0, 20000] ms", r));
  if (!(o.mbps == 0 || (o.mbps >= 0.001 && o.mbps <= 1e6)))
    throw std::invalid_argument(fmt::format("--mbps {}: must be in [0.001, 1000000] (Mbit/s)", o.mbps));
  if (o.mbps > 0 && o.rtt_ms.empty()) throw std::invalid_argument("--mbps needs --rtt (the rate shapes the network runs)");
  if (!o.rtt_ms.empty() && !network_runner())
    throw std::invalid_argument("--rtt needs the TCP transport, which this program does not have (run `shufflempc study rounds`)");
  for (const auto& f : o.functions) {
    const auto& all = rounds_functions();
    if (std::none_of(all.begin(), all.end(), [&](const auto& p) { return p.first == f; })) {
      std::string names;
      std::vector<std::string> known;
      for (const auto& p : all) {
        names += (names.empty() ? "" : ", ") + p.first;
        known.emplace_back(p.first);
      }
      throw std::invalid_argument("--functions: '" + f + "' is not one of " + names + did_you_mean(f, known));
    }
  }
}

RoundsStudy run_rounds_study(const RoundsStudyOptions& o, const RoundsProgress& progress) {
  validate(o);
  const Registry registry = builtin_registry();
  RoundsStudy s{o, {}, o.rtt_ms.empty() ? 0.0 : session_round_trips()};
  std::vector<Entry> all;
  for (const auto& f : o.functions) {
    auto e = entries(registry, f, o.parties, o.length);
    all.insert(all.end(), std::make_move_iterator(e.begin()), std::make_move_iterator(e.end()));
  }
  const SeededRng root(o.seed);
  const auto plan = rtt_plan(o);
  std::size_t done = 0;
  const std::size_t total = all.size() * plan.size() * o.trials;
  for (std::size_t row = 0; row < all.size(); ++row) {
    const Entry& e = all[row];
    const auto function_index = static_cast<std::uint64_t>(
        std::find(o.functions.begin(), o.functions.end(), e.function) - o.functions.begin());
    double at_zero_ms = 0;  // this row's time at RTT 0 over the network: the model's compute
    for (const auto& rtt : plan) {
      RoundsRow r{e.function, e.protocol, e.parties, 0, 0, 0, 0, 0, 0, e.threat_model, rtt, 0, 0};
      for (std::uint32_t k = 0; k < e.make->rounds(); ++k) r.sealed_rounds += e.make->round(k).delivery == Delivery::analyzer_only ? 1 : 0;
      std::vector<double> ms;
      double squares = 0;
      std::size_t bytes = 0, messages = 0;
      for (std::size_t t = 0; t < o.trials; ++t) {
        // The inputs depend on (function, trial) only, so every row of a function computes on the
        // same inputs; the run's randomness on (row, trial).
        const auto input_rng = root.fork(inputs_label(function_index, t));
        const auto run_rng = root.fork(run_label(row, t));
        const Draw d = draw(e.function, o.parties, o.length, *input_rng);
        const auto inputs = e.encode(d);
        const auto t0 = Clock::now();
        const RunResult result = rtt ? network_runner()(*e.make, inputs, *run_rng, *rtt, o.mbps) : run_in_process(*e.make, inputs, *run_rng);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        r.rounds = std::max(r.rounds, result.rounds.size());
        const auto want = reference(e.function, d, e.parties);
        if (want) {
          const auto got = as_number(result.output);
          if (!got) throw std::logic_error("study rounds: " + e.protocol + " gave " + result.output.dump() + ", not a number");
          if (*got != *want) {
            ++r.wrong;
            squares += (*got - *want) * (*got - *want);
          }
        } else if (result.output != e.make->truth(inputs)) {
          ++r.wrong;
          squares = std::nan("");
        }
        bytes += result.bytes;
        messages += result.messages;
        if (progress) progress(++done, total);
      }
      const double runs = static_cast<double>(o.trials) * static_cast<double>(e.parties);
      r.rmse = std::sqrt(squares / static_cast<double>(o.trials));
      r.bytes_per_party = static_cast<double>(bytes) / runs;
      r.messages_per_party = static_cast<double>(messages) / runs;
      r.milliseconds = median(ms);
      if (rtt) {
        if (*rtt == 0) at_zero_ms = r.milliseconds;
        r.model_milliseconds = at_zero_ms + (static_cast<double>(r.rounds) + s.session_round_trips) * *rtt +
                               (o.mbps > 0 ? r.bytes_per_party * 8 / (o.mbps * 1e3) : 0);
      }
      s.rows.push_back(std::move(r));
    }
  }
  return s;
}

void print_table(std::ostream& out, const RoundsStudy& s) {
  out << fmt::format("What each round buys: n = {} ({} trials per row, seed {}; card-and runs with its 2 parties)\n\n", s.options.parties,
                     s.options.trials, s.options.seed);
  const bool network = !s.options.rtt_ms.empty();
  if (network)
    out << fmt::format("Over TCP on 127.0.0.1, every link shaped to half the round trip each way{}; model: (rounds + {:g}) x RTT{} + the "
                       "row's time at RTT 0 ({:g}: the session's handshakes and close)\n\n",
                       s.options.mbps > 0 ? fmt::format(" and {} Mbit/s", s.options.mbps) : "", s.session_round_trips,
                       s.options.mbps > 0 ? " + bytes per party / rate" : "", s.session_round_trips);
  out << fmt::format("{:<14} {:<14} {:>6} {:>9} {:>7} {:>13} {:>11} {:>10}", "function", "protocol", "rounds", "RMSE", "wrong", "bytes/party",
                     "msgs/party", network ? "RTT ms" : "ms");
  if (network) out << fmt::format(" {:>10} {:>10} {:>6}", "ms", "model ms", "ratio");
  out << "  threat model\n";
  for (const auto& r : s.rows) {
    out << fmt::format("{:<14} {:<14} {:>6} {:>9.3g} {:>7} {:>13.0f} {:>11.1f} {:>10.2f}", r.function, r.protocol, r.rounds, r.rmse, r.wrong,
                       r.bytes_per_party, r.messages_per_party, network ? r.rtt_ms.value_or(0) : r.milliseconds);
    if (network)
      out << fmt::format(" {:>10.1f} {:>10.1f} {:>6.2f}", r.milliseconds, r.model_milliseconds,
                         r.model_milliseconds > 0 ? r.milliseconds / r.model_milliseconds : 0.0);
    out << "  " << r.threat_model << '\n';
  }
}

std::vector<study::Column> table(const RoundsStudy& s) {
  using K = study::Column::Kind;
  std::vector<study::Column> cols;
  for (const auto& [name, kind] : std::initializer_list<std::pair<const char*, K>>{
           {"function", K::text}, {"protocol", K::text}, {"parties", K::integer}, {"rounds", K::integer}, {"rmse", K::real},
           {"wrong", K::integer}, {"trials", K::integer}, {"bytes_per_party", K::real}, {"messages_per_party", K::real},
           {"seconds", K::real}, {"threat_model", K::text}, {"rtt_ms", K::real}, {"model_seconds", K::real}})
    cols.push_back(study::Column{kind, name, {}, {}});
  using Field = std::pair<std::string, std::optional<double>>;
  const auto real = [](double v, int digits = 6) { return Field{study::CsvWriter::number(v, digits), v}; };
  const auto whole = [](std::size_t v) { return Field{std::to_string(v), static_cast<double>(v)}; };
  const auto text = [](const std::string& t) { return Field{t, std::nullopt}; };
  for (const auto& r : s.rows) {
    const std::vector<Field> fields = {text(r.function), text(r.protocol), whole(r.parties), whole(r.rounds), real(r.rmse), whole(r.wrong),
                                       whole(s.options.trials), real(r.bytes_per_party), real(r.messages_per_party),
                                       real(r.milliseconds / 1000, 4), text(r.threat_model),
                                       r.rtt_ms ? real(*r.rtt_ms) : Field{"", std::nullopt},
                                       r.rtt_ms ? real(r.model_milliseconds / 1000, 4) : Field{"", std::nullopt}};
    for (std::size_t c = 0; c < cols.size(); ++c) {
      cols[c].text.push_back(fields[c].first);
      cols[c].number.push_back(fields[c].second);
    }
  }
  return cols;
}

void write_csv(std::ostream& out, const RoundsStudy& s) { study::write_columns(out, table(s)); }

std::vector<study::Line> figure_lines(const RoundsStudy& s) {
  // Colour: the protocol (its own in every figure); marker: the function (a key of each, apart).
  // Points of different protocols at one round count are spread a little sideways (x times
  // 1 +- 0.06 a place), so none hides another.
  static constexpr int markers[] = {5, 7, 9, 11, 13, 4, 6, 8, 10, 12};
  std::vector<std::string> protocols;
  for (const auto& r : s.rows)
    if (r.wrong == 0 && std::find(protocols.begin(), protocols.end(), r.protocol) == protocols.end()) protocols.push_back(r.protocol);
  const auto place = [&](const std::string& p) { return static_cast<std::size_t>(std::find(protocols.begin(), protocols.end(), p) - protocols.begin()); };
  std::map<std::size_t, std::vector<std::size_t>> at_rounds;  // rounds -> the protocols drawn there, in order
  for (const auto& r : s.rows)
    if (r.wrong == 0) {
      auto& v = at_rounds[r.rounds];
      if (std::find(v.begin(), v.end(), place(r.protocol)) == v.end()) v.push_back(place(r.protocol));
    }
  for (auto& [rounds, v] : at_rounds) std::sort(v.begin(), v.end());
  std::vector<study::Line> lines;
  for (std::size_t f = 0; f < s.options.functions.size(); ++f)
    for (std::size_t k = 0; k < protocols.size(); ++k) {
      study::Line l{.title = "", .points = {}, .points_only = true, .colour = protocols[k], .point_type = markers[f % std::size(markers)],
                    .point_size = 1.6};
      for (const auto& r : s.rows)
        if (r.function == s.options.functions[f] && r.protocol == protocols[k] && r.wrong == 0) {
          const auto& v = at_rounds.at(r.rounds);
          const double j = static_cast<double>(std::find(v.begin(), v.end(), k) - v.begin()) - (static_cast<double>(v.size()) - 1) / 2;
          l.points.emplace_back(static_cast<double>(r.rounds) * (1 + 0.06 * j), r.bytes_per_party);
        }
      if (!l.points.empty()) lines.push_back(std::move(l));
    }
  for (const auto& p : protocols) lines.push_back({.title = p, .colour = p, .key_only = true});
  for (std::size_t f = 0; f < s.options.functions.size(); ++f)
    lines.push_back({.title = s.options.functions[f], .points_only = true, .colour = study::neutral_colour,
                     .point_type = markers[f % std::size(markers)], .point_size = 1.6, .key_only = true});
  return lines;
}

namespace {

// A protocol's name in a figure of wall times: with what its time at RTT 0 pays for.
std::string timed_title(const RoundsRow& r) {
  std::string t = fmt::format("{}: {} round{}, {:.0f} message{} a party", r.protocol, r.rounds, r.rounds == 1 ? "" : "s", r.messages_per_party,
                              std::round(r.messages_per_party) == 1 ? "" : "s");
  if (r.sealed_rounds > 0 && r.sealed_rounds >= r.rounds) t += ", each sealed to the analyzer";
  else if (r.sealed_rounds > 0) t += fmt::format(", {} round{} sealed", r.sealed_rounds, r.sealed_rounds == 1 ? "" : "s");
  return t;
}

}  // namespace

std::vector<study::Line> rtt_lines(const RoundsStudy& s, const std::string& function) {
  std::vector<study::Line> lines;
  std::vector<std::string> protocols;
  for (const auto& r : s.rows)
    if (r.function == function && std::find(protocols.begin(), protocols.end(), r.protocol) == protocols.end()) protocols.push_back(r.protocol);
  for (const auto& p : protocols) {
    study::Line measured{.title = "", .colour = p}, model{.title = "", .dashed = true, .colour = p};
    for (const auto& r : s.rows)
      if (r.function == function && r.protocol == p && r.rtt_ms && *r.rtt_ms > 0) {
        measured.title = timed_title(r);
        measured.points.emplace_back(*r.rtt_ms, r.milliseconds);
        model.points.emplace_back(*r.rtt_ms, r.model_milliseconds);
      }
    lines.push_back(std::move(measured));
    lines.push_back(std::move(model));
  }
  lines.push_back({.title = fmt::format("dashed: the model, (rounds + {:g}) x RTT + the time at 0", s.session_round_trips),
                   .dashed = true, .colour = study::neutral_colour, .key_only = true});
  return lines;
}

std::string rtt_title(const RoundsStudy& s, const std::string& function) {
  return fmt::format("{}: wall time against round-trip time, n = {}", function, s.options.parties);
}

std::vector<study::Panel> rtt_panels(const RoundsStudy& s) {
  std::vector<study::Panel> panels;
  for (const auto& f : s.options.functions)
    panels.push_back({rtt_lines(s, f), rtt_title(s, f), "round-trip time (ms)", "wall time (ms)",
                      {.log_x = true, .log_y = true, .key = "below left Left reverse maxcols 1"}});
  return panels;
}

std::string rtt_figure_title(const RoundsStudy& s) {
  return fmt::format("Wall time against round-trip time over TCP on 127.0.0.1, n = {}\neach round costs one round trip and a session {:g} "
                     "more (its handshakes and close); a message sealed to the analyzer costs a public-key box at any RTT",
                     s.options.parties, s.session_round_trips);
}

std::string figure_title(const RoundsStudy& s) {
  return fmt::format("Bytes per party against rounds, n = {}", s.options.parties);
}

}  // namespace shufflempc::experiments
