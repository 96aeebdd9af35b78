// Registry entry of mpc2: any degree-2 functionality (a built-in or the user's program) in two
// shuffle rounds.
#include <memory>

#include <fmt/format.h>

#include "shufflempc/protocols/mpc2/mpc2.hpp"
#include "shufflempc/files.hpp"

namespace shufflempc::protocols {
namespace {

// "sum (the sum of every party's integer); weighted-sum (...); ..." for `list` and --help.
std::string builtin_list() {
  std::string s;
  for (const auto& b : mpc2::builtins()) s += (s.empty() ? "" : "; ") + b.name + " (" + b.summary + ")";
  return s;
}

// --function: a built-in's name, a program (text with an 'output' statement), or @FILE.
std::string program_text(const std::string& function, std::size_t parties, std::size_t length, double epsilon) {
  if (function.starts_with("@")) return read_text_file(function.substr(1), "--function", std::size_t{64} << 20);
  if (function.find("output") != std::string::npos) return function;
  return mpc2::builtin_program(function, parties, length, epsilon);
}

// The functionality of --function. The errors about an @FILE program keep the position but never
// repeat the file's text: a session config names the file, and it may name any file on a host.
mpc2::Functionality functionality(const std::string& function, std::size_t parties, std::size_t length, double epsilon) {
  const std::string text = program_text(function, parties, length, epsilon);
  if (!function.starts_with("@")) return mpc2::parse(text, parties);
  try {
    return mpc2::parse(text, parties);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const std::size_t colon = what.starts_with("line ") ? what.find(": ") : std::string::npos;
    throw std::invalid_argument("--function " + function + (colon == std::string::npos ? "" : ", " + what.substr(0, colon)) +
                                ": not a valid program (an @FILE's text is not repeated in errors; pass it inline to see the details)");
  }
}

}  // namespace

void register_mpc2(Registry& registry) {
  registry.add(
      {.name = "mpc2",
       .summary = "any degree-2 functionality (sums, inner products, variance, ANDs, DP sums) in two shuffle rounds: "
                  "BGW with t < n/2 over one-round secret messages",
       .params = {{.name = "function", .type = ParamType::text, .default_value = "sum",
                   .help = "a built-in: " + builtin_list() + "; or a program such as 'input x@*; output s = sum(x)', or @FILE; " +
                           fmt::format("a program has at most {} input elements, {} terms and {} levels of nesting", mpc2::max_variables,
                                       mpc2::max_terms, mpc2::max_depth),
                   .reads_file = [](const std::string& v) { return v.starts_with("@") ? std::optional(v.substr(1)) : std::nullopt; }},
                  {.name = "length", .type = ParamType::integer, .default_value = "8", .help = "vector length of inner-product (two vectors: at most half the input elements a program may have)",
                   .min = 1.0, .max = static_cast<double>(mpc2::max_variables / 2)},
                  {.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "dp-sum's privacy parameter",
                   .min = 0.0, .max = 50.0, .min_exclusive = true},
                  {.name = "prime", .type = ParamType::text, .default_value = "2305843009213693951",
                   .help = "the field F_p (default 2^61 - 1; larger primes use Boost.Multiprecision)"},
                  {.name = "threshold", .type = ParamType::integer, .default_value = "0",
                   .help = "t, the corrupted parties tolerated (0: floor((n - 1) / 2))", .min = 0.0, .max = 1e6},
                  {.name = "zero-sharing", .type = ParamType::choice, .default_value = "prf",
                   .help = "prf: pairwise PRF keys from round 1 (computational); dealt: degree-2t sharings of 0 in round 1 "
                           "(perfect, tolerates n - 2t - 1 round-2 dropouts)",
                   .choices = {"prf", "dealt"}},
                  {.name = "osm", .type = ParamType::choice, .default_value = "kdf",
                   .help = "one-round secret messages: kdf (BLAKE2b key from 160 chaff labels, XChaCha20-Poly1305) or coset "
                           "(information-theoretic pad, chaff grows with the shares)",
                   .choices = {"kdf", "coset"}},
                  {.name = "chaff", .type = ParamType::integer, .default_value = "0",
                   .help = "chaff labels per pair (0: 160 for kdf, what the pads need for coset)", .min = 0.0, .max = 65536.0},
                  {.name = "delivery", .type = ParamType::choice, .default_value = "mpc",
                   .help = "who receives round 2: mpc (every party) or esa (the analyzer only)", .choices = {"mpc", "esa"}}},
       .min_parties = 3,
       .max_parties = 256,
       .input_help = "the party's own inputs: a number for one scalar (x@*), an array for one vector, an object "
                     "{\"name\": value} for several, null for none (--random-inputs uniform:LO:HI or LO..HI: integers drawn from [LO, HI], "
                     "default 0..100)",
       .random_inputs = mpc2::input_forms(),
       .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
         const auto length = static_cast<std::size_t>(p.integer("length"));
         auto fn = functionality(p.text("function"), pop.parties, length, p.real("epsilon"));
         mpc2::Options o;
         o.prime = p.text("prime");
         o.threshold = static_cast<std::size_t>(p.integer("threshold"));
         o.zero_sharing = p.text("zero-sharing") == "dealt" ? mpc2::ZeroSharing::dealt : mpc2::ZeroSharing::prf;
         o.osm = p.text("osm") == "coset" ? osm::KeyMode::coset : osm::KeyMode::kdf;
         o.chaff = static_cast<std::size_t>(p.integer("chaff"));
         o.delivery = p.text("delivery") == "esa" ? Delivery::analyzer_only : Delivery::all_parties;
         return mpc2::make_protocol(std::move(fn), o, pop.min_parties);
       }});
}

}  // namespace shufflempc::protocols
