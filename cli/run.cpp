#include <memory>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "report.hpp"
#include "shufflempc/inproc.hpp"

namespace shufflempc::cli {

void add_run_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* run = add_protocol_group(app, "run", "run a protocol with every party in this process", registry);
  for (const auto& info : registry.all()) {
    auto* cmd = add_protocol_subcommand(*run, info);
    // Owned by the callback, so it lives exactly as long as the App that fills it.
    auto owned = std::make_shared<RunArgs>();
    RunArgs& args = *owned;
    add_run_options(*cmd, info, args);
    cmd->callback([cmd, owned, &info, &registry, &action] {
      collect_params(*cmd, info, *owned);
      action = [owned, &info, &registry] {
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
        const RunResult result = run_in_process(*protocol, inputs, *rng, options);
        print_report(make_report(info.name, *protocol, args.parties, result, inputs), args.json);
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
