#include <memory>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "report.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/net/mix_chain.hpp"

namespace shufflempc::cli {

void add_run_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* run = add_protocol_group(app, "run", "run a protocol with every party in this process", registry);
  for (const auto& info : registry.all()) {
    auto* cmd = add_protocol_subcommand(*run, info);
    // Owned by the callback, so it lives exactly as long as the App that fills it.
    auto owned = std::make_shared<RunArgs>();
    RunArgs& args = *owned;
    add_run_options(*cmd, info, args);
    auto mix_servers = std::make_shared<std::size_t>(0);
    cmd->add_option("--mix-servers", *mix_servers,
                    "run the rounds through an in-process chain of this many mix hops (onion layers, per-hop shuffles and "
                    "signed reports; docs/mix-chain.md); 0: the plain in-process shuffle (default 0)")
        ->check(CLI::Range(std::size_t{0}, net::onion::max_hops));
    cmd->callback([cmd, owned, mix_servers, &info, &registry, &action] {
      collect_params(*cmd, info, *owned);
      action = [owned, mix_servers, &info, &registry] {
        const RunArgs& args = *owned;
        if (args.dropouts >= args.parties) throw std::invalid_argument("--dropouts must be below --parties");
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
        if (*mix_servers == 0) {
          print_report(make_report(info.name, *protocol, args.parties, run_in_process(*protocol, inputs, *rng, options), inputs), args.json);
          return 0;
        }
        const auto chained = net::run_over_mix_chain(*protocol, inputs, *rng, *mix_servers, options);
        Value report = make_report(info.name, *protocol, args.parties, chained.result, inputs);
        std::map<std::uint32_t, std::vector<net::HopReport>> rounds;
        for (std::size_t r = 0; r < chained.reports.size(); ++r) rounds[static_cast<std::uint32_t>(r)] = chained.reports[r];
        report["mix_chain"] = mix_chain_report(*mix_servers, rounds);
        print_report(report, args.json);
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
