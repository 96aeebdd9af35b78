// Every registered protocol's --random-inputs: the forms its registration declares (what --help
// and `list` print) are the forms its random_input accepts, and a refusal lists them.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "shufflempc/random.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("protocols: random_input accepts every declared input form and refuses another, naming the declared ones") {
  const Registry registry = builtin_registry();
  std::size_t checked = 0;
  for (const auto& info : registry.all()) {
    CAPTURE(info.name);
    const std::size_t n = info.max_parties <= 4096 ? std::clamp<std::size_t>(8, info.min_parties, info.max_parties) : 2000;  // DP noise rules need many
    const auto protocol = registry.create(info.name, {}, n);
    SeededRng rng(1);
    (void)protocol->random_input(0, "", rng);
    for (const auto& form : info.random_inputs) {
      // Every argument 1 is valid for every form shipped (a probability, a count, an element, a bit).
      std::string text = form.name;
      for (std::size_t i = 0; i < form.args.size(); ++i) text += ":1";
      CAPTURE(text);
      CHECK_NOTHROW((void)protocol->random_input(0, text, rng));
      if (form.optional == form.args.size()) CHECK_NOTHROW((void)protocol->random_input(0, form.name, rng));
      ++checked;
    }
    try {
      (void)protocol->random_input(0, "no-such-form:1", rng);
      FAIL("accepted an undeclared form");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find(describe(info.random_inputs)) != std::string::npos);
    }
  }
  CHECK(checked >= 20);
}
