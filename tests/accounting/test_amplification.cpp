#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "shufflempc/accounting/amplification.hpp"

using namespace shufflempc;

// Golden values: the figure of the FMT21 authors' reference implementation, and values computed
// independently of the library from the papers' formulas.
TEST_CASE("FMT21 closed form: the golden value and the independently computed table") {
  CHECK(fmt_closed_form(100000, 4, 1e-6).value() == doctest::Approx(0.5378040242374512).epsilon(1e-14));
  CHECK(fmt_closed_form(10000, 1, 1e-6).value() == doctest::Approx(0.23327).epsilon(1e-4));
  CHECK(fmt_closed_form(100000, 1, 1e-6).value() == doctest::Approx(0.07529).epsilon(1e-4));
  CHECK(fmt_closed_form(1000000, 2, 1e-8).value() == doctest::Approx(0.07189).epsilon(1e-4));
  // Outside eps0 <= ln(n / (16 ln(4/delta))) the theorem says nothing.
  const double limit = std::log(100000 / (16 * std::log(4 / 1e-6)));
  CHECK(fmt_closed_form(100000, limit - 1e-9, 1e-6).has_value());
  CHECK_FALSE(fmt_closed_form(100000, limit + 1e-9, 1e-6).has_value());
}

TEST_CASE("FMT21 numeric: inside the range the reference analysis brackets (0.16754 to 0.17279), below the closed form") {
  const double eps = fmt_numeric_epsilon(100000, 4, 1e-6);
  CHECK(eps >= 0.16754);
  CHECK(eps <= 0.17279);
  CHECK(eps < fmt_closed_form(100000, 4, 1e-6).value());
  // It is the threshold of the divergence: delta is met at eps and missed just below it.
  CHECK(fmt_delta(100000, 4, eps) <= 1e-6);
  CHECK(fmt_delta(100000, 4, eps - 1e-6) > 1e-6);
}

TEST_CASE("FMT21 divergence: 0 from eps0 on, decreasing in eps, and the one-user case in closed form") {
  CHECK(fmt_delta(1000, 2, 2) == 0);
  double last = 1;
  for (double eps = 0; eps < 2; eps += 0.125) {
    const double d = fmt_delta(1000, 2, eps);
    CHECK(d <= last);
    last = d;
  }
  // n = 2: C ~ Bern(e^-eps0); with C = 0 the divergence is [a - e^eps (1 - a)]_+, with C = 1 the
  // pmfs on k = 0, 1, 2 are (a/2, 1/2, (1-a)/2) and ((1-a)/2, 1/2, a/2).
  const double eps0 = 1.5, eps = 0.4, a = std::exp(eps0) / (1 + std::exp(eps0)), q = std::exp(-eps0);
  const double c0 = std::max(0.0, a - std::exp(eps) * (1 - a));
  const double c1 = std::max(0.0, a / 2 - std::exp(eps) * (1 - a) / 2) + std::max(0.0, 0.5 - std::exp(eps) * 0.5);
  CHECK(fmt_delta(2, eps0, eps) == doctest::Approx((1 - q) * c0 + q * c1).epsilon(1e-12));
}

TEST_CASE("FMT21 local epsilon inverts the numeric bound") {
  const double eps0 = fmt_local_epsilon(100000, 0.5, 1e-6);
  CHECK(eps0 > 0.5);
  CHECK(fmt_delta(100000, eps0, 0.5) <= 1e-6);
  CHECK(fmt_delta(100000, eps0 + 1e-6, 0.5) > 1e-6);
  CHECK(fmt_numeric_epsilon(100000, eps0, 1e-6) == doctest::Approx(0.5).epsilon(1e-6));
}

TEST_CASE("FMT21 numeric searches report their progress, end at done == total, and give the same answer with or without it") {
  // n = 10^6 at eps0 = 1: an evaluation sums about 15,400 terms in 4 blocks, each reported.
  for (const bool local : {false, true}) {
    CAPTURE(local);
    const std::uint64_t n = local ? 100000 : 1'000'000;
    std::vector<std::pair<double, std::size_t>> calls;
    const AccountingProgress record = [&](double done, std::size_t total) { calls.emplace_back(done, total); };
    const double with = local ? fmt_local_epsilon(n, 0.5, 1e-6, record) : fmt_numeric_epsilon(n, 1, 1e-6, record);
    const double without = local ? fmt_local_epsilon(n, 0.5, 1e-6) : fmt_numeric_epsilon(n, 1, 1e-6);
    CHECK(with == without);
    REQUIRE(calls.size() > 8);  // about a dozen evaluations, each reported (and its blocks)
    std::size_t whole = 0, partial = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      CHECK(calls[i].first <= static_cast<double>(calls[i].second));
      if (i > 0) CHECK(calls[i].first >= calls[i - 1].first);
      (calls[i].first == std::floor(calls[i].first) ? whole : partial) += 1;
    }
    CHECK(calls.back().first == static_cast<double>(calls.back().second));
    if (!local) CHECK(partial >= whole);  // 3 of the 4 blocks of each evaluation fall between its two whole numbers
  }
}

TEST_CASE("privacy blanket closed form: the independently computed values for k = 2, and its validity") {
  CHECK(blanket_epsilon(100000, 4, 1e-6).value() == doctest::Approx(0.336).epsilon(2e-3));
  CHECK(blanket_epsilon(10000, 1, 1e-6).value() == doctest::Approx(0.275).epsilon(2e-3));
  CHECK(blanket_epsilon(100000, 1, 1e-6).value() == doctest::Approx(0.087).epsilon(2e-3));
  CHECK_FALSE(blanket_epsilon(1000, 4, 1e-6).has_value());  // above 1: the theorem needs eps <= 1
  CHECK(blanket_epsilon(100000, 1, 1e-6, 10).value() > blanket_epsilon(100000, 1, 1e-6, 2).value());
}

TEST_CASE("Erlingsson et al.: 12 eps0 sqrt(ln(1/delta)/n) inside its range only") {
  CHECK(erlingsson_epsilon(100000, 0.5, 1e-6).value() == doctest::Approx(12 * 0.5 * std::sqrt(std::log(1e6) / 1e5)));
  CHECK_FALSE(erlingsson_epsilon(100000, 0.6, 1e-6).has_value());
  CHECK_FALSE(erlingsson_epsilon(999, 0.4, 1e-6).has_value());
  CHECK_FALSE(erlingsson_epsilon(100000, 0.4, 0.02).has_value());
}

TEST_CASE("amplification_bounds lists every bound, with the reason when one does not apply") {
  const auto b = amplification_bounds(100000, 4, 1e-6);
  REQUIRE(b.size() == 7);
  CHECK(b[0].name == "erlingsson");
  CHECK_FALSE(b[0].epsilon.has_value());
  CHECK(b[2].epsilon.value() == doctest::Approx(0.5378040242374512));
  CHECK(b[3].epsilon.value() < b[1].epsilon.value());  // the numeric analysis beats both closed forms
  CHECK(b[3].epsilon.value() < b[2].epsilon.value());
  CHECK(b[4].name == "blanket-exact");
  CHECK(b[4].epsilon.value() < b[3].epsilon.value());  // and the blanket summed exactly beats it, for randomized response
  CHECK(b[5].name == "ldp-blanket");  // the same number for every eps0-LDP randomizer (k = 2)
  CHECK(b[5].epsilon.value() == b[4].epsilon.value());
  CHECK(b[6].name == "rr-exact-all");  // binary randomized response's exact value: below every bound
  CHECK(b[6].epsilon.value() < b[5].epsilon.value());
  const auto k4 = amplification_bounds(10000, 2, 1e-6, 4);
  CHECK(k4.back().name == "rr-exact-all");
  CHECK_FALSE(k4.back().epsilon.has_value());  // k = 4: none, and the reason says so
  CHECK(k4.back().validity.find("k = 2") != std::string::npos);
  for (const auto& bound : b) CHECK_FALSE(bound.validity.empty());
  CHECK_THROWS_AS((void)fmt_numeric_epsilon(1, 1, 1e-6), std::invalid_argument);
  CHECK_THROWS_AS((void)fmt_numeric_epsilon(100, 1, 0), std::invalid_argument);
}

TEST_CASE("privacy blanket inverse: the largest eps0 whose bound meets eps") {
  const double eps0 = blanket_local_epsilon(100000, 0.336, 1e-6).value();
  CHECK(eps0 == doctest::Approx(4).epsilon(0.01));
  CHECK(blanket_epsilon(100000, eps0, 1e-6).value() <= 0.336 + 1e-12);
  CHECK(blanket_epsilon(100000, eps0 + 1e-3, 1e-6).value() > 0.336);
  CHECK_FALSE(blanket_local_epsilon(100, 0.5, 1e-6).has_value());  // too few parties for any eps0
  CHECK_FALSE(blanket_local_epsilon(100000, 1.5, 1e-6).has_value());
}
