// `shufflempc receipt RECEIPTS --commitment FILE --config SESSION.json`: checks, with no server and
// no secret, that every record of a party's receipted batches (party --receipt) is in the batch the
// shuffler committed to and the analyzer published (analyzer --commitment). The session id and the
// shuffler's signing key come from the session config, never from the files. Exit 0 if every
// record is there; 1 if one is missing (the receipt and the commitment, both signed by the
// shuffler, are evidence against it: the line says which record); 2 if the files make no case (one
// does not parse, a signature does not hold, the leaves are not the committed batch, no commitment
// to the receipt's round).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "net_common.hpp"
#include "shufflempc/net/receipt_files.hpp"
#include "shufflempc/hex.hpp"

namespace shufflempc::cli {

void add_receipt_command(CLI::App& app, const Registry&, Action& action) {
  struct Args {
    std::string receipts, commitment, config;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("receipt",
                                 "check a party's admission receipts (party --receipt) against the shuffler's signed commitment to the "
                                 "round's batch that the analyzer published (analyzer --commitment) (docs/network.md, \"Durable collection\")");
  cmd->add_option("RECEIPTS", args->receipts, "the receipts file a party process wrote (party --receipt FILE)")->required();
  cmd->add_option("--commitment", args->commitment, "the commitments file the analyzer wrote (analyzer --commitment FILE)")->required();
  cmd->add_option("--config", args->config, "the session config (session.json): its session id and the shuffler's signing key are what "
                                            "the receipts and the commitment must be signed for and with")
      ->required();
  cmd->add_flag("--json", args->json, "print the verdicts as JSON");
  cmd->footer("Exit status: 0 every record of the receipts is in the committed batch; 1 one is left out (the line names it: the receipt and "
              "the commitment are evidence against the shuffler); 2 the files make no case (a signature, the session, the round or the "
              "published leaves do not hold, or a file does not parse).");
  cmd->callback([args, &action] {
    action = [args] {
      const net::SessionConfig config = net::SessionConfig::load(args->config);
      if (!config.shuffler_signer)
        throw std::invalid_argument("--config: " + args->config + " names no shuffler signing key (shuffler_signing_key): its shuffler "
                                    "signs no receipt nor commitment");
      if (!config.mix_chain.empty())
        throw std::invalid_argument("--config: " + args->config + " has a chain of mix servers: its parties check the entry's receipt "
                                    "of the round when they get the result (docs/mix-chain.md)");
      const auto receipts = net::receipts_from_json(read_json_file(args->receipts, "RECEIPTS"), args->receipts);
      const auto published = net::commitments_from_json(read_json_file(args->commitment, "--commitment"), args->commitment);
      std::vector<net::ReceiptCheck> checks;
      for (const auto& r : receipts.receipts) {
        const auto it = published.rounds.find(r.batch.round);
        if (it == published.rounds.end()) {
          checks.push_back({net::ReceiptStanding::unusable,
                            args->commitment + " holds no commitment to round " + std::to_string(r.batch.round) + " (the round of party " +
                                std::to_string(r.batch.first) + "'s receipt)",
                            0});
          continue;
        }
        // The files' own session fields are only their word: the signatures are checked over the config's.
        checks.push_back(net::check_receipt(config.session, *config.shuffler_signer, r, it->second));
      }
      int status = 0;
      for (const auto& c : checks) {
        if (c.standing == net::ReceiptStanding::left_out) status = 1;
        if (c.standing == net::ReceiptStanding::unusable && status == 0) status = 2;
      }
      if (receipts.receipts.empty()) status = 2;
      if (args->json) {
        Value list = Value::array();
        for (const auto& c : checks)
          list.push_back({{"standing", c.standing == net::ReceiptStanding::included ? "included"
                                       : c.standing == net::ReceiptStanding::left_out ? "left_out"
                                                                                       : "unusable"},
                          {"records", c.records},
                          {"text", c.text}});
        std::cout << Value{{"session", to_hex(config.session)}, {"all_included", status == 0}, {"receipts", std::move(list)}}.dump() << std::endl;
      } else {
        if (receipts.receipts.empty()) std::cout << args->receipts << " holds no receipt\n";
        for (const auto& c : checks)
          std::cout << (c.standing == net::ReceiptStanding::included ? "included  "
                        : c.standing == net::ReceiptStanding::left_out ? "LEFT OUT  "
                                                                        : "no case   ")
                    << c.text << '\n';
      }
      return status;
    };
  });
}

}  // namespace shufflempc::cli
