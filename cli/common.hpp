// Pieces shared by the CLI's protocol commands (run, local): options, parameters and inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "shufflempc/net/chain.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/experiments/experiment.hpp"

namespace shufflempc::cli {

// Options every protocol run takes (run, local).
struct RunArgs {
  std::size_t parties = 0;
  std::string inputs_file;
  std::string random_inputs;
  std::optional<std::uint64_t> seed;
  bool json = false;
  std::size_t min_parties = 0;
  std::size_t dropouts = 0;
  std::map<std::string, std::string> params;  // only the flags the user gave
};

// Checks of numbers given on the command line, shared with the experiments (study/experiment.hpp):
// a seed is a whole number in [0, 2^64 - 1]; a count is a whole number in [0, 100000000].
using experiments::count_check;
using experiments::seed_check;

// Adds a subcommand (run, local) whose own subcommands are the registered protocols, added by the
// caller with add_protocol_subcommand(). An unknown protocol name or a stray argument ends in one
// clear error (std::invalid_argument) that lists the known protocols.
CLI::App* add_protocol_group(CLI::App& app, const std::string& name, const std::string& description,
                             const Registry& registry);
CLI::App* add_protocol_subcommand(CLI::App& group, const ProtocolInfo& info);

// Adds --parties, --inputs, --random-inputs, --seed, --json, --min-parties, --dropouts and one flag
// per declared parameter of `info` to `cmd`. Call collect_params() after parsing.
void add_run_options(CLI::App& cmd, const ProtocolInfo& info, RunArgs& args);

// The chain options of `run` and `local`, one meaning in both (net/chain.hpp): --mix-servers N, the
// servers the records cross with the shuffler first (1, the default: the one shuffler; 2 to 16: a
// chain), --mix KIND and --transcript.
struct ChainArgs {
  std::size_t servers = 1;
  std::string kind = "decryption";
  std::string transcript;
  std::size_t decryption_threshold = 0;  // with --mix verifiable: 0 = every server
  // The checked chain (net::ChainSpec::make, the one check of all three). `run --mix-servers 0`, the spelling of "no chain"
  // before 0.2, is taken as 1 with a line on stderr saying so.
  [[nodiscard]] net::ChainSpec spec(const std::string& command) const;
};
// `where`: where the servers run ("in this process", "each a process of its own").
void add_chain_options(CLI::App& cmd, ChainArgs& args, const std::string& where);
void collect_params(const CLI::App& cmd, const ProtocolInfo& info, RunArgs& args);

// The inputs of --inputs (a JSON array, or one JSON value per line), one per party; none without it.
[[nodiscard]] std::optional<std::vector<Value>> read_inputs(const RunArgs& args);
// The inputs of all parties: from --inputs, else drawn as --random-inputs says (rng's
// rng_labels::random_inputs fork).
[[nodiscard]] std::vector<Value> load_inputs(const Protocol& protocol, const RunArgs& args, Rng& rng);

}  // namespace shufflempc::cli
