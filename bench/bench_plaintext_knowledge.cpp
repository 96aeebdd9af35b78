// What the senders' proofs of plaintext knowledge cost a verifiable chain's run. In one run:
//   1. `shufflempc local counting --parties P --mix-servers 3 --mix verifiable` (the documented
//      command, its default noise), its wall time and the records it carried (from its JSON output);
//   2. for that many one-limb records on every core: encrypting them (encrypt_batch, what a sender
//      did before the proofs), encrypting and proving them (encrypt_and_prove), and checking every
//      proof once (unproved_records, one batched multi-scalar multiplication);
//   3. the proofs' share of the run: (prove - encrypt) + 2 x check, over the run's wall time. In an
//      analyzer-only round the entry checks every proof before it admits a record and the analyzer
//      once more before it decrypts (a party process checks its own records only if its receipt
//      calls one missing); every process shares the same cores, so core-seconds of the one are
//      seconds of the other. The target: at most 10%.
//
//   build/bin/bench/bench_plaintext_knowledge [PARTIES=10000]
//
// Progress goes to stderr, the table to stdout.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "shufflempc/mixnet/knowledge.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/process.hpp"
#include "timing.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;
using bench::seconds_of;

int main(int argc, char** argv) {
  const std::size_t parties = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
  if (parties < 2) {
    std::cerr << "bench_plaintext_knowledge: PARTIES must be at least 2\n";
    return 2;
  }
  const unsigned threads = hardware_threads();
  std::cerr << fmt::format("bench_plaintext_knowledge: local counting --parties {} --mix-servers 3 --mix verifiable ...", parties) << std::endl;
  const std::vector<std::string> command = {SHUFFLEMPC_CLI, "local", "counting", "--parties", std::to_string(parties), "--mix-servers", "3",
                                            "--mix", "verifiable", "--json"};
  CommandResult run;
  const double wall_s = seconds_of([&] { run = run_command(command, std::chrono::minutes(30)); });
  if (run.exit_code != 0) {
    std::cerr << "bench_plaintext_knowledge: the run failed: " << run.err << '\n';
    return 1;
  }
  const auto out = nlohmann::json::parse(run.out);
  const std::size_t records = out.at("messages").get<std::size_t>();

  std::cerr << fmt::format("bench_plaintext_knowledge: {} records: encrypting, proving, checking ...", records) << std::endl;
  SystemRng rng;
  KnowledgeContext context;
  rng.fill(context.session);
  context.key = ElGamalKey::generate(rng).public_key;
  MessageBatch messages(1, records);
  for (std::size_t i = 0; i < records; ++i) messages[i][0] = static_cast<std::uint8_t>(i & 1);
  std::vector<SubmitterTag> tags(records);
  for (auto& t : tags) rng.fill(t);
  const double encrypt_s = seconds_of([&] { (void)encrypt_batch(messages, context.key, rng, threads); });
  ProvedBatch proved;
  const double prove_s = seconds_of([&] { proved = encrypt_and_prove(messages, context, tags, rng, threads); });
  bool holds = false;
  const double check_s = seconds_of([&] { holds = unproved_records(context, proved.ciphertexts, proved.proofs, threads).empty(); });
  if (!holds) {
    std::cerr << "bench_plaintext_knowledge: an honest proof does not check\n";
    return 1;
  }
  const double cost_s = (prove_s - encrypt_s) + 2 * check_s;
  std::cout << fmt::format("{} thread(s); the run: shufflempc {}\n", threads, fmt::join(std::vector<std::string>(command.begin() + 1, command.end()), " "));
  std::cout << fmt::format("{:>8} {:>8} {:>10} {:>10} {:>15} {:>10} {:>12} {:>8}\n", "parties", "records", "run s", "encrypt s", "encrypt+prove s",
                           "check s", "proofs s", "share");
  std::cout << fmt::format("{:>8} {:>8} {:>10.2f} {:>10.3f} {:>15.3f} {:>10.3f} {:>12.3f} {:>7.1f}%\n", parties, records, wall_s, encrypt_s, prove_s,
                           check_s, cost_s, 100 * cost_s / wall_s);
}
