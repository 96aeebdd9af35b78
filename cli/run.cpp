#include <memory>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "report.hpp"
#include "shufflempc/api/api.hpp"
#include "shufflempc/mixnet/channel.hpp"
#include "shufflempc/net/onion.hpp"

namespace shufflempc::cli {
void add_run_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* run = add_protocol_group(app, "run", "run a protocol with every party in this process", registry);
  for (const auto& info : registry.all()) {
    auto* cmd = add_protocol_subcommand(*run, info);
    // Owned by the callback, so it lives exactly as long as the App that fills it.
    auto owned = std::make_shared<RunArgs>();
    RunArgs& args = *owned;
    add_run_options(*cmd, info, args);
    auto mix = std::make_shared<ChainArgs>();
    add_chain_options(*cmd, *mix, "all in this process");
    cmd->callback([cmd, owned, mix, &info, &registry, &action] {
      collect_params(*cmd, info, *owned);
      action = [owned, mix, &info, &registry] {
        const RunArgs& args = *owned;
        api::RunRequest req;
        req.protocol = info.name;
        req.params = args.params;
        req.parties = args.parties;
        req.inputs = read_inputs(args);
        req.random_inputs = args.random_inputs;
        req.seed = args.seed;
        req.min_parties = args.min_parties;
        req.dropouts = args.dropouts;
        req.chain = mix->spec("run");
        req.transcript = mix->transcript;
        print_report(api::to_json(api::run_report(registry, req)), args.json);
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
