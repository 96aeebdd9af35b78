// mpc2: degree-2 functionalities in two shuffle rounds. Correctness against direct evaluation,
// exact privacy by enumeration over F_7 (with a negative control), and bad input.
#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "shufflempc/protocols/mpc2/bgw.hpp"
#include "shufflempc/protocols/mpc2/mpc2.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "support/tampering_channel.hpp"

namespace {

using namespace shufflempc;
using test::error_text;

std::unique_ptr<Protocol> make(const std::string& program, std::size_t n, mpc2::Options o = {}, std::size_t min_parties = 0) {
  return mpc2::make_protocol(mpc2::parse(program, n), o, min_parties);
}

RunResult run_with(const Protocol& p, const std::vector<Value>& inputs, test::TamperingChannel::Tamper tamper, std::uint64_t seed,
                   std::size_t junk = 0) {
  return test::run_tampered(p, inputs, std::move(tamper), seed, junk);
}

}  // namespace

TEST_CASE("mpc2 functionality language: built-ins parse, and bad programs name the line and the problem") {
  for (const auto& b : mpc2::builtins()) {
    CAPTURE(b.name);
    const auto fn = mpc2::parse(mpc2::builtin_program(b.name, 5, 3, 1.0), 5);
    CHECK_FALSE(fn.outputs.empty());
  }
  const auto fn = mpc2::parse("input a[3]@0, b[3]@1  # vectors\ninput x@*; output s = dot(a, b) - 2*x[2] + 7; output v = (x[0] + 1)*(x[1] - 1)", 3);
  std::vector<BigInt> values = {1, 2, 3, 4, 5, 6, 10, 20, 30};  // a, b, x
  const auto out = fn.evaluate(values);
  CHECK(out[0] == BigInt(4 + 10 + 18 - 60 + 7));
  CHECK(out[1] == BigInt(11 * 19));
  CHECK(error_text([] { (void)mpc2::parse("input x@*\noutput y = x[0]*x[1]*x[2]", 3); }).find("line 2") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::parse("input x@*\noutput y = x[0]*x[1]*x[2]", 3); }).find("degree 3") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::parse("input x@5\noutput y = x", 3); }).find("outside [0, 3)") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::parse("input x@*\noutput y = x", 3); }).find("use x[i], sum(x)") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::parse("input x@0\noutput y = z", 3); }).find("unknown input 'z'") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::parse("input x@0", 3); }).find("no output") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::parse("input a[2]@0, b[3]@1\noutput y = dot(a, b)", 3); }).find("lengths 2 and 3") != std::string::npos);
  CHECK(error_text([] { (void)mpc2::builtin_program("median", 3, 1, 1); }).find("neither a built-in") != std::string::npos);
}

TEST_CASE("mpc2 functionality language: nesting is bounded with the line and column named, constants are decimal") {
  // 256 levels of parentheses and signs parse; one more is refused before the stack is at risk.
  const auto nested = [](std::size_t depth, const std::string& open, const std::string& close) {
    std::string e;
    for (std::size_t i = 0; i < depth; ++i) e += open;
    e += "x";
    for (std::size_t i = 0; i < depth; ++i) e += close;
    return "input x@0\noutput y = " + e;
  };
  CHECK(mpc2::parse(nested(256, "(", ")"), 2).evaluate({BigInt(5)})[0] == 5);
  CHECK(mpc2::parse(nested(256, "-", ""), 2).evaluate({BigInt(5)})[0] == 5);
  CHECK(mpc2::parse(nested(128, "-(", ")"), 2).evaluate({BigInt(5)})[0] == 5);
  CHECK(error_text([&] { (void)mpc2::parse(nested(257, "(", ")"), 2); }) ==
        "line 2, column 268: the expression nests deeper than 256 parentheses and signs");
  // What used to overflow the stack of every process: 7,000 parentheses, 20,000 minus signs.
  CHECK(error_text([&] { (void)mpc2::parse(nested(7000, "(", ")"), 2); }).find("line 2, column") != std::string::npos);
  CHECK(error_text([&] { (void)mpc2::parse(nested(20000, "-", ""), 2); }).find("nests deeper than 256") != std::string::npos);
  // Leading zeros are decimal: 010 is ten, 09 is nine (not octal, not an error without a line).
  CHECK(mpc2::parse("input x@0\noutput y = 010*x + 09 + 00", 2).evaluate({BigInt(1)})[0] == 19);
  CHECK(error_text([] { (void)mpc2::parse("input x@0\noutput y = x + 1.5", 2); }) ==
        "line 2, column 16: '1.5': constants are decimal integers of at most 200 digits");
}

TEST_CASE("mpc2: random degree-2 polynomials give their direct evaluation for n in {3, 4, 5, 7, 11}, both zero-sharings") {
  SeededRng rng(21);
  for (std::size_t n : {3u, 4u, 5u, 7u, 11u})
    for (const auto zs : {mpc2::ZeroSharing::prf, mpc2::ZeroSharing::dealt}) {
      CAPTURE(n);
      // Three outputs, each a random sum of c x_i x_j, d x_i and a constant.
      std::ostringstream program;
      program << "input x@*\n";
      for (int o = 0; o < 3; ++o) {
        program << "output y" << o << " = " << rng.uniform_between(-50, 50);
        for (int k = 0; k < 6; ++k)
          program << " + " << rng.uniform_between(-9, 9) << "*x[" << rng.uniform(n) << "]*x[" << rng.uniform(n) << "]";
        for (int k = 0; k < 3; ++k) program << " - " << rng.uniform_between(0, 9) << "*x[" << rng.uniform(n) << "]";
        program << "\n";
      }
      mpc2::Options opt;
      opt.zero_sharing = zs;
      const auto protocol = make(program.str(), n, opt);
      std::vector<Value> inputs;
      for (std::size_t i = 0; i < n; ++i) inputs.push_back(rng.uniform_between(-1000, 1000));
      const RunResult r = run_in_process(*protocol, inputs, rng);
      CHECK(r.output == *protocol->truth(inputs));
      for (const auto& [id, out] : r.party_outputs) CHECK(out == r.output);  // MPC mode: every party gets it
    }
}

TEST_CASE("mpc2: dot, sumsq and sum are one term each, scaled, negated and mixed with products, and give their direct evaluation") {
  const std::string program =
      "input a[40]@0, b[40]@1, c[40]@2\n"
      "output y = 3*dot(a, b) - sumsq(c) + 2*sum(b)*sum(a) - (sum(a) - 1)*(b[0] + 2) + -(dot(c, a) - 7)\n"
      "output z = -(2*sum(c) + dot(b, b)) * 5";
  const auto fn = mpc2::parse(program, 3);
  // Held compactly: a vector of 40 (or 10^5) elements is one Dot or one RangeSum, never 40 terms.
  CHECK(fn.outputs[0].dots.size() == 3);
  CHECK(fn.outputs[0].products.size() == 2);
  CHECK(fn.outputs[1].dots.size() == 1);
  CHECK(fn.outputs[1].products.empty());
  CHECK(fn.outputs[1].linear.ranges.size() == 1);
  CHECK(fn.outputs[1].linear.terms.empty());
  CHECK(fn.variable_name(0) == "a[0]");
  CHECK(fn.variable_name(79) == "b[39]");
  CHECK(fn.variable_name(80) == "c[0]");
  SeededRng rng(23);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<std::vector<std::int64_t>> v(3, std::vector<std::int64_t>(40));
    for (auto& vec : v)
      for (auto& x : vec) x = rng.uniform_between(-5000, 5000);
    const auto dot = [&](std::size_t i, std::size_t j) {
      std::int64_t s = 0;
      for (std::size_t k = 0; k < 40; ++k) s += v[i][k] * v[j][k];
      return s;
    };
    const auto sum = [&](std::size_t i) {
      std::int64_t s = 0;
      for (auto x : v[i]) s += x;
      return s;
    };
    const std::int64_t y = 3 * dot(0, 1) - dot(2, 2) + 2 * sum(1) * sum(0) - (sum(0) - 1) * (v[1][0] + 2) - (dot(2, 0) - 7);
    const std::int64_t z = -(2 * sum(2) + dot(1, 1)) * 5;
    const std::vector<Value> inputs = {v[0], v[1], v[2]};
    const auto protocol = make(program, 3);
    const RunResult r = run_in_process(*protocol, inputs, rng);
    CHECK(r.output == Value({{"y", y}, {"z", z}}));
    CHECK(r.output == *protocol->truth(inputs));
  }
}

TEST_CASE("mpc2 inputs: a JSON integer and its decimal string share the same value, and the field's range is named either way") {
  SeededRng rng(24);
  mpc2::Options p101;
  p101.prime = "101";
  const auto small = make("input x@*\noutput s = sum(x)", 3, p101);
  // 50 = (p - 1) / 2 is the largest magnitude; a string takes the big-integer path, a number the
  // 64-bit one, and both give the same sum.
  CHECK(run_in_process(*small, std::vector<Value>{50, -50, -7}, rng).output["s"] == -7);
  CHECK(run_in_process(*small, std::vector<Value>{"50", "-50", "-7"}, rng).output["s"] == -7);
  for (const Value& bad : {Value(51), Value(-51), Value("51"), Value(std::numeric_limits<std::int64_t>::min()),
                           Value(std::numeric_limits<std::uint64_t>::max())}) {
    CAPTURE(bad.dump());
    CHECK(error_text([&] { (void)small->make_party(1, bad); }).find("party 1: input x[1] = ") != std::string::npos);
    CHECK(error_text([&] { (void)small->make_party(1, bad); }).find("is outside [-(p-1)/2, (p-1)/2] for prime 101") != std::string::npos);
  }
  CHECK(error_text([&] { (void)small->make_party(1, std::numeric_limits<std::int64_t>::min()); })
            .ends_with("party 1: input x[1] = -9223372036854775808 is outside [-(p-1)/2, (p-1)/2] for prime 101"));
  // The default prime 2^61 - 1: every int64 of magnitude below 2^60 is accepted, 2^62 is not.
  const auto dflt = make("input x@*\noutput s = sum(x)", 3);
  const std::int64_t big = std::int64_t{1} << 60;
  CHECK(run_in_process(*dflt, std::vector<Value>{big - 1, -(big - 1), 5}, rng).output["s"] == 5);
  CHECK(error_text([&] { (void)dflt->make_party(0, std::int64_t{1} << 62); }).find("party 0: input x[0] = 4611686018427387904 is outside") !=
        std::string::npos);
}

TEST_CASE("mpc2: vectors, a 127-bit prime, ESA delivery, the coset OSM and the threshold below n/2") {
  SeededRng rng(22);
  std::vector<Value> inputs = {Value::array(), Value::array(), nullptr, nullptr};
  for (int i = 0; i < 50; ++i) {
    inputs[0].push_back(rng.uniform_between(-(1 << 20), 1 << 20));
    inputs[1].push_back(rng.uniform_between(-(1 << 20), 1 << 20));
  }
  mpc2::Options big;
  big.prime = "170141183460469231731687303715884105727";  // 2^127 - 1
  big.delivery = Delivery::analyzer_only;
  const auto ip = make(mpc2::builtin_program("inner-product", 4, 50, 1), 4, big);
  const RunResult r = run_in_process(*ip, inputs, rng);
  CHECK(r.output == *ip->truth(inputs));
  CHECK(r.party_outputs.at(0).is_null());  // ESA: only the analyzer learns the output
  mpc2::Options coset;
  coset.osm = osm::KeyMode::coset;
  coset.zero_sharing = mpc2::ZeroSharing::dealt;
  coset.threshold = 1;
  const auto var = make(mpc2::builtin_program("variance", 5, 1, 1), 5, coset);
  std::vector<Value> xs = {3, 5, 7, 9, 11};
  const RunResult v = run_in_process(*var, xs, rng);
  CHECK(v.output["variance"].get<double>() == doctest::Approx(10.0));
  CHECK(v.details["observer"]["min_uncertain_labels"] == v.details["observer"]["chaff_labels"]);
}

TEST_CASE("mpc2: the dp-sum adds exactly the central discrete Laplace noise (mean 0, variance 2a/(1-a)^2)" * doctest::test_suite("slow")) {
  const std::size_t n = 5;
  const double eps = 1.0;
  const auto protocol = make(mpc2::builtin_program("dp-sum", n, 1, eps), n);
  SeededRng rng(23);
  const std::vector<Value> inputs = {1, 2, 3, 4, 5};
  const int runs = 1500;
  double sum = 0, sq = 0;
  for (int i = 0; i < runs; ++i) {
    const double e = run_in_process(*protocol, inputs, rng).output["dp_sum"].get<double>() - 15;
    sum += e;
    sq += e * e;
  }
  const double a = std::exp(-eps);
  const double var = 2 * a / ((1 - a) * (1 - a));  // 1.84
  const double mean = sum / runs;
  const double sample_var = sq / runs - mean * mean;
  // |mean| within 6.3 standard errors (1e-9 two-sided normal bound on 1500 samples), variance
  // within 35%: the fourth moment of DLap(e^-1) keeps the sample variance's sd below 6% here.
  CHECK(std::fabs(mean) < 6.3 * std::sqrt(var / runs));
  CHECK(sample_var == doctest::Approx(var).epsilon(0.35));
}

TEST_CASE("mpc2 privacy, exact over F_7, n = 3, t = 1: the corrupted party's view does not depend on inputs with the same output") {
  // f = x0 x1 + x2. For each corrupted party c and fixed randomness of c, enumerate every honest
  // party's randomness (its share coefficient and the two coefficients of its degree-2 zero
  // polynomial: 7^6 outcomes) and collect c's view: the shares it receives, the zero shares it
  // receives, and every round-2 value. Two inputs with equal outputs (and equal x_c) must give the
  // same distribution; with the zero-sharing removed they must not.
  const ZqSmall f(7);
  const auto fn = mpc2::parse("input x@*\noutput y = x[0]*x[1] + x[2]", 3);
  const auto compiled = mpc2::compile(f, fn);
  using View = std::array<std::uint64_t, 7>;
  const auto distribution = [&](std::array<std::uint64_t, 3> x, PartyId c, bool zero_sharing) {
    std::map<View, std::uint64_t> counts;
    const std::array<std::uint64_t, 3> c_rand = {2, 5, 1};  // c's share coefficient and zero polynomial
    std::array<PartyId, 2> honest{};
    for (PartyId p = 0, k = 0; p < 3; ++p)
      if (p != c) honest[k++] = p;
    for (std::uint64_t r = 0; r < 117'649; ++r) {
      std::array<std::array<std::uint64_t, 3>, 3> rand{};  // [party][share coeff, z1, z2]
      rand[c] = c_rand;
      std::uint64_t rest = r;
      for (PartyId h : honest)
        for (auto& v : rand[h]) {
          v = rest % 7;
          rest /= 7;
        }
      std::array<std::array<std::uint64_t, 3>, 3> shares{};  // [variable][point]
      std::array<std::array<std::uint64_t, 3>, 3> zeros{};   // [dealer][point]
      for (PartyId p = 0; p < 3; ++p) {
        const std::array<std::uint64_t, 1> coeff = {rand[p][0]};
        shamir::share_with(f, x[p], std::span<const std::uint64_t>(coeff), std::span<std::uint64_t>(shares[p]));
        const std::array<std::uint64_t, 2> z = {rand[p][1], rand[p][2]};
        if (zero_sharing) shamir::share_with(f, std::uint64_t{0}, std::span<const std::uint64_t>(z), std::span<std::uint64_t>(zeros[p]));
      }
      View view{};
      std::size_t k = 0;
      for (PartyId h : honest) {
        view[k++] = shares[h][c];
        view[k++] = zeros[h][c];
      }
      for (PartyId j = 0; j < 3; ++j) {
        const std::array<std::uint64_t, 3> at_j = {shares[0][j], shares[1][j], shares[2][j]};
        std::uint64_t y = mpc2::evaluate_local(f, compiled, std::span<const std::uint64_t>(at_j))[0];
        for (PartyId d = 0; d < 3; ++d) y = f.add(y, zeros[d][j]);
        view[k++] = y;
      }
      ++counts[view];
    }
    return counts;
  };
  // Pairs of inputs with the same output and the same corrupted input.
  struct Case {
    PartyId c;
    std::array<std::uint64_t, 3> x, x2;
  };
  const std::vector<Case> cases = {{0, {1, 2, 3}, {1, 4, 1}},   // 1*2 + 3 = 1*4 + 1 = 5
                                   {1, {3, 2, 0}, {4, 2, 5}},   // 3*2 + 0 = 4*2 + 5 = 6 (mod 7)
                                   {2, {1, 2, 3}, {3, 3, 3}}};  // 1*2 + 3 = 3*3 + 3 = 5 (mod 7)
  for (const auto& tc : cases) {
    CAPTURE(tc.c);
    REQUIRE((tc.x[0] * tc.x[1] + tc.x[2]) % 7 == (tc.x2[0] * tc.x2[1] + tc.x2[2]) % 7);
    REQUIRE(tc.x[tc.c] == tc.x2[tc.c]);
    CHECK(distribution(tc.x, tc.c, true) == distribution(tc.x2, tc.c, true));
    CHECK(distribution(tc.x, tc.c, false) != distribution(tc.x2, tc.c, false));  // the negative control
  }
}

TEST_CASE("mpc2 bad input: misaddressed shares, a value outside the field, a lying party and dropouts get one clear line") {
  const std::vector<Value> inputs = {1, 2, 3, 4};
  mpc2::Options dealt;
  dealt.zero_sharing = mpc2::ZeroSharing::dealt;
  const auto p = make("input x@*\noutput s = sum(x)", 4, dealt);
  // Party 0 readdresses its ciphertext for party 2 to party 1: the count per peer stays the same,
  // so the channel passes it, and the receivers refuse.
  const std::string misaddressed = error_text([&] {
    (void)run_with(*p, inputs, [](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t count) {
      if (round != 0 || party != 0) return;
      for (std::size_t i = first; i < first + count; ++i) {
        auto h = osm::read_header(all[i]);
        if (h.kind == static_cast<std::uint8_t>(osm::Kind::ciphertext) && h.b == 2) {
          h.b = 1;
          h.index = 1;
          osm::write_header(all[i], h);
        }
      }
    }, 31);
  });
  CHECK(misaddressed.find("party 0 sent 2 ciphertext messages to party 1, expected 1") != std::string::npos);
  // A party that owns no input sends fewer round-1 messages than an owner, so the round's declared
  // range lets it pad; the padding is counted against the declared totals and refused.
  const auto ip = make(mpc2::builtin_program("inner-product", 4, 100, 1), 4);
  const std::vector<Value> vectors = {Value(std::vector<int>(100, 1)), Value(std::vector<int>(100, 2)), nullptr, nullptr};
  const RoundShape r1 = ip->round(0);
  REQUIRE(r1.max_messages > r1.min_messages);
  const std::string padded = error_text([&] { (void)run_with(*ip, vectors, [](auto...) {}, 35, 1); });
  CHECK(padded.find("mpc2: round 1 holds") != std::string::npos);
  CHECK(padded.find("declared counts add up to") != std::string::npos);
  // A round-2 value that is not a field element.
  const std::string outside = error_text([&] {
    (void)run_with(*p, inputs, [](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t) {
      if (round == 1 && party == 3) std::fill_n(all[first].begin() + osm::header_bytes, 8, std::uint8_t{0xff});
    }, 32);
  });
  CHECK(outside.find("party 3's output 0 is not an element of the field") != std::string::npos);
  // A round-2 value off the polynomial: n = 4 > 2t + 1 = 3 points, so the lie shows.
  const std::string lie = error_text([&] {
    (void)run_with(*p, inputs, [](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t) {
      if (round == 1 && party == 3) all[first][osm::header_bytes] ^= 1;
    }, 33);
  });
  CHECK(lie.find("do not lie on one polynomial of degree 2") != std::string::npos);
  // Dropouts: dealt zero-sharing interpolates from 2t + 1 = 3 of 4 round-2 values...
  SeededRng rng(34);
  RunOptions one_drop;
  one_drop.min_parties = 3;
  one_drop.dropouts = {{2, 1}};  // party 2 misses round 2
  const auto dealt_run = run_in_process(*p, inputs, rng, one_drop);
  CHECK(dealt_run.output["s"] == 10);
  // ... prf zero-sharing needs them all, and says so.
  const auto prf = make("input x@*\noutput s = sum(x)", 4);
  const std::string prf_drop = error_text([&] { (void)run_in_process(*prf, inputs, rng, one_drop); });
  CHECK(prf_drop.find("party 2 dropped before round 2: the prf zero-sharing needs every round-1 party") != std::string::npos);
  // A party that misses round 1 is out of the computation: the result covers the others' inputs.
  RunOptions first_drop;
  first_drop.min_parties = 3;
  first_drop.dropouts = {{1, 0}};
  const auto r = run_in_process(*prf, inputs, rng, first_drop);
  CHECK(r.output["s"] == 8);
  CHECK(r.details["inputs_from"] == Value({0, 2, 3}));
  // Configuration errors name the parameter and its range.
  CHECK(error_text([] { (void)make("input x@*\noutput s = sum(x)", 2); }).find("at least 3 parties") != std::string::npos);
  mpc2::Options t3;
  t3.threshold = 3;
  CHECK(error_text([&] { (void)make("input x@*\noutput s = sum(x)", 5, t3); }).find("'threshold' = 3: must be in [1, 2]") != std::string::npos);
  CHECK(error_text([] { (void)make("input x@*\noutput s = sum(x)", 5, {}, 4); }).find("--min-parties 4") != std::string::npos);
  mpc2::Options composite;
  composite.prime = "91";
  CHECK(error_text([&] { (void)make("input x@*\noutput s = sum(x)", 5, composite); }).find("'prime' = 91") != std::string::npos);
  CHECK(error_text([&] { (void)p->make_party(0, Value("x")); }).find("party 0: input x[0] must be an integer") != std::string::npos);
  CHECK(error_text([&] { (void)p->make_party(1, Value::array({1, 2})); }).find("party 1: input x[1] must be an integer") != std::string::npos);
  // Through the registry, a bad --function names the built-ins.
  const Registry reg = builtin_registry();
  CHECK(error_text([&] { (void)reg.create("mpc2", {{"function", "median"}}, 3); }).find("neither a built-in (sum, weighted-sum") != std::string::npos);
}
