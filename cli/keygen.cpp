// `shufflempc keygen`: an X25519 key pair for a party, the shuffler or the analyzer (docs/network.md).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "report.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

void add_keygen_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("keygen", "generate an X25519 key pair (party, shuffler or analyzer identity)");
  struct Options { std::string out; };
  auto o = std::make_shared<Options>();  // owned by the callback, so it lives as long as the App
  cmd->add_option("--out,-o", o->out, "key file to write (mode 0600); its public key is printed")->required();
  cmd->callback([o, &action] {
    action = [o] {
      const auto& [out] = *o;
      SystemRng rng;
      const auto keys = net::KeyPair::generate(rng);
      keys.save(out);
      std::cout << to_hex(keys.public_key()) << '\n';
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
