#include <memory>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "report.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/mixnet/channel.hpp"
#include "shufflempc/net/mix_chain.hpp"

namespace shufflempc::cli {
namespace {

struct MixArgs {
  std::size_t servers = 0;
  std::string kind = "decryption";
  std::string transcript;
  std::size_t threshold = 0;
};

}  // namespace

void add_run_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* run = add_protocol_group(app, "run", "run a protocol with every party in this process", registry);
  for (const auto& info : registry.all()) {
    auto* cmd = add_protocol_subcommand(*run, info);
    // Owned by the callback, so it lives exactly as long as the App that fills it.
    auto owned = std::make_shared<RunArgs>();
    RunArgs& args = *owned;
    add_run_options(*cmd, info, args);
    auto mix = std::make_shared<MixArgs>();
    cmd->add_option("--mix-servers", mix->servers,
                    "run the rounds through an in-process chain of this many mix hops (see --mix); 0: the plain in-process "
                    "shuffle (default 0)")
        ->check(CLI::Range(std::size_t{0}, net::onion::max_hops));
    cmd->add_option("--mix", mix->kind,
                    "the kind of chain: decryption (onion layers, per-hop shuffles and signed reports; docs/mix-chain.md) or "
                    "verifiable (ElGamal re-encryption with a proof of shuffle per hop and proved decryption; "
                    "docs/verifiable-shuffle.md) (default decryption)")
        ->check(CLI::IsMember({"decryption", "verifiable"}));
    cmd->add_option("--transcript", mix->transcript,
                    "with --mix verifiable: write the run's transcript (every hop's output and proof, every decryption proof) "
                    "to this file, for `shufflempc verify`");
    cmd->add_option("--decryption-threshold", mix->threshold,
                    "with --mix verifiable: the mix servers needed to decrypt a round delivered to all parties, 1 to --mix-servers "
                    "(default: all of them); fewer than all lets a round finish without some servers, and lets that many "
                    "decrypt anything")
        ->check(CLI::Range(std::size_t{1}, mixnet::max_hops));
    cmd->callback([cmd, owned, mix, &info, &registry, &action] {
      collect_params(*cmd, info, *owned);
      action = [owned, mix, &info, &registry] {
        const RunArgs& args = *owned;
        if (args.dropouts >= args.parties) throw std::invalid_argument("--dropouts must be below --parties");
        const bool verifiable = mix->kind == "verifiable";
        if (verifiable && (mix->servers < 1 || mix->servers > mixnet::max_hops))
          throw std::invalid_argument("--mix verifiable needs --mix-servers in [1, " + std::to_string(mixnet::max_hops) + "]");
        if (!verifiable && !mix->transcript.empty()) throw std::invalid_argument("--transcript needs --mix verifiable");
        if (!verifiable && mix->threshold != 0) throw std::invalid_argument("--decryption-threshold needs --mix verifiable");
        if (mix->threshold > mix->servers)
          throw std::invalid_argument("--decryption-threshold must be in [1, " + std::to_string(mix->servers) + "] (--mix-servers), got " + std::to_string(mix->threshold));
        RunOptions options;
        options.min_parties = args.min_parties;
        if (args.dropouts > 0 && options.min_parties == 0) options.min_parties = args.parties - args.dropouts;
        // The protocol calibrates for the parties guaranteed to submit.
        auto protocol = registry.create(info.name, args.params, args.parties, options.min_parties);
        auto rng = make_rng(args.seed);
        const std::vector<Value> inputs = load_inputs(*protocol, args, *rng);
        auto drop_rng = rng->fork(rng_labels::dropouts);
        while (options.dropouts.size() < args.dropouts)
          options.dropouts[static_cast<PartyId>(drop_rng->uniform(args.parties))] = 0;
        if (verifiable) {
          if (auto why = mixnet::protocol_fit(*protocol); !why.empty())
            throw std::invalid_argument(info.name + " cannot run over the verifiable mix: " + why + "; use --mix decryption");
          const auto run = mixnet::run_over_verifiable_mix(*protocol, inputs, *rng, mix->servers, options, mix->threshold);
          Value report = make_report(info.name, *protocol, args.parties, run.result, inputs);
          report["verifiable_mix"] = verifiable_mix_report(run.transcript, mix->transcript);
          if (!mix->transcript.empty()) run.transcript.save(mix->transcript);
          print_report(report, args.json);
          return 0;
        }
        if (mix->servers == 0) {
          print_report(make_report(info.name, *protocol, args.parties, run_in_process(*protocol, inputs, *rng, options), inputs), args.json);
          return 0;
        }
        const auto chained = net::run_over_mix_chain(*protocol, inputs, *rng, mix->servers, options);
        Value report = make_report(info.name, *protocol, args.parties, chained.result, inputs);
        std::map<std::uint32_t, std::vector<net::HopReport>> rounds;
        for (std::size_t r = 0; r < chained.reports.size(); ++r) rounds[static_cast<std::uint32_t>(r)] = chained.reports[r];
        report["mix_chain"] = mix_chain_report(mix->servers, rounds);
        print_report(report, args.json);
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
