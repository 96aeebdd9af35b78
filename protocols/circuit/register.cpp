// Registry entry of circuit: any Bristol Fashion circuit in two shuffle rounds (v1: BMR with two
// garblers and a helper; v3: a designated garbler, ESA mode).
#include <filesystem>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "shufflempc/protocols/circuit/circuit.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/numbers.hpp"

namespace shufflempc::protocols {
namespace {

// --owners "0,1": the party owning each input group.
// The `hash` parameter (choices aes and chacha20, checked by Params::parse).
circuit::GarblingHash garbling_hash(const Params& p) {
  return p.text("hash") == "chacha20" ? circuit::GarblingHash::chacha20 : circuit::GarblingHash::aes;
}

std::vector<PartyId> parse_owners(const std::string& text) {
  std::vector<PartyId> owners;
  if (text == "auto") return owners;
  for (const auto& item : split_items(text, ',')) {
    const auto owner = item.size() <= 9 ? parse_unsigned(item) : std::nullopt;
    if (!owner)
      throw std::invalid_argument(fmt::format("parameter 'owners' = '{}': must be party numbers separated by commas, one per input group", text));
    owners.push_back(static_cast<PartyId>(*owner));
  }
  return owners;
}

// --circuit: a file path, or the name of a bundled circuit (aes_128, sha256, adder64, ...), found in
// $SHUFFLEMPC_CIRCUITS, else installed beside the running executable (PREFIX/bin/.. ->
// PREFIX/share/shufflempc/circuits), else in the source tree's circuits/ folder this build was made from.
std::string circuit_path(const std::string& name) {
  if (name.find('/') != std::string::npos || name.ends_with(".txt")) return name;
  const char* env = std::getenv("SHUFFLEMPC_CIRCUITS");
  if (env != nullptr && *env != '\0') return std::string(env) + "/" + name + ".txt";
  std::error_code ec;
  const auto installed = std::filesystem::path(self_executable()).parent_path().parent_path() / SHUFFLEMPC_INSTALLED_CIRCUITS;
  if (std::filesystem::is_directory(installed, ec)) return (installed / (name + ".txt")).string();
  return std::string(SHUFFLEMPC_CIRCUITS_DIR) + "/" + name + ".txt";
}

}  // namespace

void register_circuit(Registry& registry) {
  registry.add(
      {.name = "circuit",
       .summary = "any Bristol Fashion circuit (AES-128, SHA-256, 64-bit arithmetic, ...) in two shuffle rounds: "
                  "v1 BMR with two garblers and a helper, v2 BMR with t + 1 garblers for any t < n/3, v3 a designated garbler in ESA mode; or in AND-depth + 2 rounds with "
                  "bgw, the many-round baseline",
       .params = {{.name = "circuit", .type = ParamType::text, .default_value = "adder64",
                   .help = "a Bristol Fashion file, or a bundled circuit's name: aes_128, sha256, adder64, sub64, neg64, mult64, "
                           "divide64, udivide64, zero_equal (looked up in $SHUFFLEMPC_CIRCUITS, else the source tree's circuits/); " +
                           fmt::format("at most {} gates, {} wires and {} input bits", circuit::max_gates, circuit::max_wires,
                                       circuit::max_input_bits),
                   .reads_file = [](const std::string& v) { return std::optional(circuit_path(v)); }},
                  {.name = "variant", .type = ParamType::choice, .default_value = "v1",
                   .help = "v1: BMR, garblers 0 and 1, helper 2, parties 3.. input-only clients; private against one corrupted "
                           "computing party plus any clients, everyone may see both rounds. v2: BMR, garblers 0..t, every party computes; "
                           "private against any t <= floor((n - 1) / 3) parties, everyone may see both rounds (n >= 4). v3: party 0 garbles alone, round 2 to the "
                           "analyzer only; private against the analyzer plus t parties other than the garbler, but the garbler and the "
                           "analyzer together learn every input. bgw: the many-round baseline, BGW over GF(2^8) in AND-depth + 2 "
                           "rounds, one byte per AND gate per peer; private against any t < n/2 parties, everyone may see every round",
                   .choices = {"v1", "v2", "v3", "bgw"}},
                  {.name = "owners", .type = ParamType::text, .default_value = "auto",
                   .help = "the party owning each input group, comma-separated, e.g. 0,1 (auto: group g -> party g mod n)"},
                  {.name = "threshold", .type = ParamType::integer, .default_value = "0",
                   .help = "corruptions tolerated (0: the variant's largest; v1: 1, v2: floor((n - 1) / 3), v3 and bgw: floor((n - 1) / 2))", .min = 0.0, .max = 1e6},
                  {.name = "delivery", .type = ParamType::choice, .default_value = "auto",
                   .help = "who receives the last round: auto (v1 and bgw: mpc, v3: esa), mpc (every party) or esa (the analyzer only; v3 needs it)",
                   .choices = {"auto", "mpc", "esa"}},
                  {.name = "chaff", .type = ParamType::integer, .default_value = "0",
                   .help = "OSM chaff labels per pair (0: 160)", .min = 0.0, .max = 65536.0},
                  {.name = "hash", .type = ParamType::choice, .default_value = "aes",
                   .help = "the garbling hash: aes (fixed-key AES-128, a tweakable correlation-robust hash; AES-NI where the "
                           "processor has it) or chacha20 (a ChaCha20 block keyed by the label: the faster one without AES-NI); "
                           "every party of a run uses the same",
                   .choices = {"aes", "chacha20"}}},
       .min_parties = 3,
       .max_parties = 256,
       .input_help = "the hex text of each input group the party owns (the group's big-endian integer, e.g. an AES key "
                     "\"000102030405060708090a0b0c0d0e0f\"), an array of them for several groups, null for none",
       .random_inputs = circuit::input_forms(),
       .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
         const std::string path = circuit_path(p.text("circuit"));
         auto c = std::make_shared<const circuit::Circuit>(circuit::load(path));
         circuit::Options o;
         const std::string variant = p.text("variant");
         o.variant = variant == "v3"    ? circuit::Variant::designated_garbler
                     : variant == "v2"  ? circuit::Variant::many_garblers
                     : variant == "bgw" ? circuit::Variant::bgw
                                        : circuit::Variant::two_garblers;
         o.owners = parse_owners(p.text("owners"));
         o.threshold = static_cast<std::size_t>(p.integer("threshold"));
         const std::string delivery = p.text("delivery");
         o.delivery = delivery == "esa" || (delivery == "auto" && o.variant == circuit::Variant::designated_garbler) ? Delivery::analyzer_only
                                                                                                    : Delivery::all_parties;
         o.chaff = static_cast<std::size_t>(p.integer("chaff"));
         o.hash = garbling_hash(p);
         return circuit::make_protocol(std::move(c), pop.parties, o, pop.min_parties);
       },
       // The garbling hash's first use (garble.hpp), for every variant that garbles (bgw does not).
       .warm_up = [](const Params& p) {
         if (p.text("variant") != "bgw") circuit::warm_up(garbling_hash(p));
       }});
}

}  // namespace shufflempc::protocols
