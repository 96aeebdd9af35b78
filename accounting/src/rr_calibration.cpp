// The local epsilon of k-ary randomized response by a named amplification bound
// (amplification.hpp): the one place the protocols built on randomized response resolve a bound.
#include <cmath>
#include <stdexcept>
#include <string>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/numbers.hpp"

namespace shufflempc {

namespace {
constexpr const char* bound_names = "fmt, blanket, blanket-exact, ldp-blanket, rr-exact-all, bennett, tightest";
}

RrBound rr_bound_of(std::string_view name) {
  if (name == "fmt") return RrBound::fmt;
  if (name == "blanket") return RrBound::blanket;
  if (name == "blanket-exact") return RrBound::blanket_exact;
  if (name == "ldp-blanket") return RrBound::ldp_blanket;
  if (name == "rr-exact-all") return RrBound::rr_exact_all;
  if (name == "bennett") return RrBound::bennett;
  if (name == "tightest") return RrBound::tightest;
  throw std::invalid_argument("bound = " + std::string(name) + " is not one of: " + bound_names);
}

std::string rr_bound_name(RrBound bound) {
  switch (bound) {
    case RrBound::fmt: return "fmt";
    case RrBound::blanket: return "blanket";
    case RrBound::blanket_exact: return "blanket-exact";
    case RrBound::ldp_blanket: return "ldp-blanket";
    case RrBound::rr_exact_all: return "rr-exact-all";
    case RrBound::bennett: return "bennett";
    case RrBound::tightest: break;
  }
  return "tightest";
}

std::string rr_bound_source(RrBound bound) {
  switch (bound) {
    case RrBound::fmt: return "Feldman-McMillan-Talwar 2021, numeric";
    case RrBound::blanket: return "Balle-Bell-Gascon-Nissim 2019, privacy blanket";
    case RrBound::blanket_exact: return "Balle-Bell-Gascon-Nissim 2019, privacy blanket summed exactly";
    case RrBound::ldp_blanket: return "privacy blanket summed exactly, worst case over every eps0-LDP randomizer";
    case RrBound::rr_exact_all: return "exact value for binary randomized response, the largest divergence over every dataset";
    case RrBound::bennett: return "Balle-Bell-Gascon-Nissim 2019, privacy blanket with Bennett's inequality (as their code evaluates it)";
    case RrBound::tightest: break;
  }
  return "tightest";
}

RrCalibration calibrate_randomized_response(std::uint64_t n, std::uint64_t k, double eps, double delta, RrBound bound) {
  if (k < 2) throw std::invalid_argument("domain = " + std::to_string(k) + " is out of range: must be at least 2");
  if (!(eps > 0)) throw std::invalid_argument("epsilon must be positive");
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("delta must be in (0, 1)");
  if (n < 2) throw std::invalid_argument("parties must be at least 2");
  RrCalibration c;
  c.used = bound;
  if (bound == RrBound::blanket) {
    const auto e0 = blanket_local_epsilon(n, eps, delta, k);
    if (!e0)
      throw std::invalid_argument("parties = " + std::to_string(n) + " is too few for the privacy blanket at epsilon = " + format_real(eps) +
                                  ", delta = " + format_real(delta) + ", k = " + std::to_string(k) +
                                  ": its bound needs epsilon <= 1 and (n - 1) min(eps^2 / (14 ln(2/delta)), eps / 27) > k "
                                  "(use --bound fmt, blanket-exact or tightest)");
    c.epsilon0 = *e0;
  } else if (bound == RrBound::rr_exact_all || (bound == RrBound::tightest && k == 2 && n <= rr_exact_all_max_parties)) {
    // Binary randomized response needs no bound: its exact value over every dataset, which no valid
    // bound can beat (one round; docs/accounting.md says why rounds compose by the bounds).
    if (k != 2)
      throw std::invalid_argument("bound = rr-exact-all is the exact value of binary randomized response: domain must be 2, got " +
                                  std::to_string(k) + " (use tightest)");
    if (n > rr_exact_all_max_parties)
      throw std::invalid_argument("parties = " + std::to_string(n) + " is out of range for bound = rr-exact-all: must be at most " +
                                  std::to_string(rr_exact_all_max_parties) + " (use tightest)");
    c.used = RrBound::rr_exact_all;
    c.epsilon0 = rr_exact_all_local_epsilon(n, eps, delta);
    c.achieved_delta = rr_exact_all_delta(n, c.epsilon0, eps);
  } else {
    // The numeric bounds: each certifies the largest eps0 it can; tightest takes the largest (the
    // first listed on a tie). With k = 2, ldp-blanket is blanket-exact itself (the worst case is
    // binary randomized response), so it is searched only for k > 2, where the blanket of k-ary
    // randomized response loses what its step 2 gives away (docs/accounting.md). Bennett's form
    // bounds k-ary randomized response's own blanket, not the clone pair blanket-exact reduces it
    // to, so with many values it can certify more than blanket-exact; it is a closed form.
    const bool tightest = bound == RrBound::tightest;
    struct Candidate {
      RrBound bound;
      bool tried;
      double (*local_epsilon)(std::uint64_t, double, double, std::uint64_t);
      double (*delta_at)(std::uint64_t, double, double, std::uint64_t);
    };
    const Candidate candidates[] = {
        {RrBound::fmt, tightest, [](std::uint64_t m, double e, double d, std::uint64_t) { return fmt_local_epsilon(m, e, d); },
         [](std::uint64_t m, double e0, double e, std::uint64_t) { return fmt_delta(m, e0, e); }},
        {RrBound::blanket_exact, tightest, [](std::uint64_t m, double e, double d, std::uint64_t kk) { return blanket_exact_local_epsilon(m, e, d, kk); },
         [](std::uint64_t m, double e0, double e, std::uint64_t kk) { return blanket_exact_delta(m, e0, e, kk); }},
        {RrBound::ldp_blanket, tightest && k > 2, [](std::uint64_t m, double e, double d, std::uint64_t) { return ldp_blanket_local_epsilon(m, e, d); },
         [](std::uint64_t m, double e0, double e, std::uint64_t) { return ldp_blanket_delta(m, e0, e); }},
        {RrBound::bennett, tightest, [](std::uint64_t m, double e, double d, std::uint64_t kk) { return bennett_local_epsilon(m, e, d, kk); },
         [](std::uint64_t m, double e0, double e, std::uint64_t kk) { return bennett_delta(m, e0, e, kk); }},
    };
    const Candidate* best = nullptr;
    for (const auto& candidate : candidates) {
      if (!candidate.tried && candidate.bound != bound) continue;
      const double e0 = candidate.local_epsilon(n, eps, delta, k);
      if (best == nullptr || e0 > c.epsilon0) {
        best = &candidate;
        c.epsilon0 = e0;
      }
    }
    c.used = best->bound;
    c.achieved_delta = best->delta_at(n, c.epsilon0, eps, k);
  }
  const double kk = static_cast<double>(k);
  c.gamma = kk / (std::exp(c.epsilon0) + kk - 1);
  return c;
}

}  // namespace shufflempc
