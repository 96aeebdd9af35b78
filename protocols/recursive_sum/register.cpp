// Registry entries: sum-recursive (the survey's RSum_RM) and sum-blanket (its RSum_KR), both in
// recursive_sum.hpp.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/numbers.hpp"
#include "shufflempc/protocols/recursive_sum/recursive_sum.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::protocols {
namespace {

ParamSpec delta_param() {
  return {.name = "delta", .type = ParamType::real, .default_value = "0",
          .help = "the central delta (delta/m per level); 0: 1/n^2, the setting of Balle-Bell-Gascon-Nissim", .min = 0.0, .max = 0.5};
}
ParamSpec bound_param() {
  return {.name = "bound", .type = ParamType::choice, .default_value = "tightest",
          .help = "how each level's local epsilon is certified: tightest (the largest of fmt, blanket-exact, ldp-blanket and bennett; "
                  "the exact value for a level of 2 values), bennett (the authors' own calibration, to reproduce their figures), "
                  "blanket-exact, ldp-blanket, fmt or blanket (the closed form)",
          .choices = {"tightest", "bennett", "blanket-exact", "ldp-blanket", "fmt", "blanket"}};
}

double delta_of(const Params& p, const Population& pop) {
  const double d = p.real("delta");
  if (d > 0) return d;
  const double n = static_cast<double>(pop.guaranteed());
  return 1 / (n * n);
}

// "4,47" -> {4, 47}; "0.3,0.7" -> {0.3, 0.7}.
template <class T>
std::vector<T> list_of(const std::string& text, const char* name) {
  std::vector<T> out;
  for (const auto& item : split_items(text, ',')) {
    if constexpr (std::is_integral_v<T>) {
      const auto v = parse_unsigned(item, 4294967295u);
      if (!v) throw std::invalid_argument(fmt::format("{} = {}: '{}' is not a non-negative integer", name, text, item));
      out.push_back(static_cast<T>(*v));
    } else {
      const auto v = parse_real(item);
      if (!v) throw std::invalid_argument(fmt::format("{} = {}: '{}' is not a number", name, text, item));
      out.push_back(*v);
    }
  }
  return out;
}

}  // namespace

void register_recursive_sum(Registry& registry) {
  using namespace recursive_sum;
  registry.add(
      {.name = "sum-recursive",
       .summary = "the survey's RSum_RM (Balle-Bell-Gascon-Nissim 2020): a real in [0, 1] as m digits, each through its own randomized "
                  "response, one labelled message per digit, no cryptography",
       .params = {epsilon_param(), delta_param(),
                  messages_param(),
                  {.name = "precisions", .type = ParamType::text, .default_value = "searched",
                   .help = "searched (the integers and the epsilon split minimising the MSE bound under the chosen bound), generic (the "
                           "paper's: p_t = ceil(a^(3^t)), epsilon/m each) or a list P1,...,Pm (each in [2, 65535])"},
                  {.name = "epsilon-split", .type = ParamType::text, .default_value = "equal",
                   .help = "with a list of precisions: equal, or the shares of epsilon per level (W1,...,Wm summing to 1)"},
                  bound_param()},
       .min_parties = 2,
       .input_help = "a real number in [0, 1] per party",
       .random_inputs = unit_real_forms(),
       .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
         const auto m = static_cast<std::size_t>(p.integer("messages"));
         const std::string& how = p.text("precisions");
         const std::string& split = p.text("epsilon-split");
         Precisions rule = Precisions::given;
         std::vector<std::uint32_t> given;
         if (how == "searched") rule = Precisions::searched;
         else if (how == "generic") rule = Precisions::generic;
         else given = list_of<std::uint32_t>(how, "precisions");
         if (split != "equal" && rule != Precisions::given)
           throw std::invalid_argument("epsilon-split = " + split + " needs a list of precisions (precisions = " + how + " chooses the split itself)");
         auto c = configure(pop.guaranteed(), p.real("epsilon"), delta_of(p, pop), m, rule, given,
                            split == "equal" ? std::vector<double>{} : list_of<double>(split, "epsilon-split"), rr_bound_of(p.text("bound")));
         c.all_parties = pop.parties;
         return make_one_round(RecursiveSumMechanism{std::move(c)});
       }});
  registry.add(
      {.name = "sum-blanket",
       .summary = "the survey's RSum_KR (Balle-Bell-Gascon-Nissim 2019): a real in [0, 1] randomly rounded to k + 1 levels, then "
                  "(k+1)-ary randomized response amplified by shuffling, one message per party",
       .params = {epsilon_param(), delta_param(),
                  {.name = "precision", .type = ParamType::integer, .default_value = "0",
                   .help = "k (the message takes k + 1 values); 0: the k minimising the MSE bound", .min = 0.0, .max = 65535.0},
                  bound_param()},
       .min_parties = 2,
       .input_help = "a real number in [0, 1] per party",
       .random_inputs = unit_real_forms(),
       .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
         auto c = configure_single(pop.guaranteed(), p.real("epsilon"), delta_of(p, pop), static_cast<std::uint32_t>(p.integer("precision")),
                                   rr_bound_of(p.text("bound")));
         c.all_parties = pop.parties;
         return make_one_round(RecursiveSumMechanism{std::move(c)});
       }});
}

}  // namespace shufflempc::protocols
