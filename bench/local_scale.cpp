// `shufflempc local counting --noise calibrated` at growing party counts: wall time, the peak memory
// and CPU time of every process (the shuffler, the analyzer, the largest party process), and the
// bytes each party sends and receives. Baseline in the same run: `shufflempc run` of the same
// protocol and parties, all in one process. A second baseline, ESA's floor: every message is sealed
// once in a party process (crypto_box_seal, two X25519) and opened once in the analyzer (one), so
// messages x (seal + open) / cores is the least any run can take on this machine; both are timed in
// the same run with every core sealing and opening at once, as the cores are during a run (each
// cost the median of 7 interleaved passes). The old
// floor beside it seals with crypto_box_seal record by record, as the parties did before their
// ephemeral keys were made together (net/sealing.hpp).
// Per party, every X25519 of the run, timed in the same run, before and now: before, the party's key
// made by `local` (crypto_scalarmult_base), its public key made again in the party process, the
// static secret with the shuffler on both sides, and per message crypto_box_seal and the open; now,
// the key made in runs that share an inversion (key_pairs_from), its public key read from the key
// bundle, the two static secrets, and per message the batched seal and the open.
//
//   build/bin/bench/local_scale [N ...]        (default: 1000 10000 100000; the documented command, default deadlines)
//
// A count the machine cannot host (descriptors) is reported with the command's own one-line error.
#include <fmt/format.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/runtime.hpp"

using namespace shufflempc;

namespace {

struct Timed {
  CommandResult result;
  double seconds = 0;
};

Timed timed(const std::vector<std::string>& argv) {
  const auto start = std::chrono::steady_clock::now();
  Timed t;
  t.result = run_command(argv, std::chrono::minutes(30));
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

// Microseconds of one core per sealed counting message (one byte), and per opening, with every core
// sealing (then opening) its own records at once.
struct SealingCost {
  double seal_us = 0;
  double open_us = 0;
  double box_seal_us = 0;  // libsodium's crypto_box_seal record by record (the seal before its ephemeral keys were made together)
  double base_us = 0;      // crypto_scalarmult_base: a party's public key, one at a time
  double keys_us = 0;      // net::key_pairs_from: a party's key pair, made together
  double static_us = 0;    // crypto_scalarmult with another's public key: one side of a static secret
};

// One pass: each cost timed once, one after another.
SealingCost time_sealing_once(unsigned cores) {
  constexpr std::size_t records = 1000;  // per core
  SystemRng rng;
  const net::KeyPair analyzer = net::KeyPair::generate(rng);
  std::vector<std::vector<std::uint8_t>> sealed(cores, std::vector<std::uint8_t>(records * net::sealing::sealed_width(1)));
  const std::vector<std::uint8_t> messages(records, 1);
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(cores, cores, [&](std::size_t c) { net::sealing::seal(messages, 1, analyzer.public_key(), sealed[c]); });
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::size_t> opened(cores);
  parallel_for(cores, cores, [&](std::size_t c) { opened[c] = net::sealing::open(sealed[c], 1, analyzer).messages.count(); });
  const auto t2 = std::chrono::steady_clock::now();
  parallel_for(cores, cores, [&](std::size_t c) {
    for (std::size_t m = 0; m < records; ++m)
      crypto_box_seal(sealed[c].data() + m * net::sealing::sealed_width(1), messages.data() + m, 1, analyzer.public_key().data());
  });
  const auto t3 = std::chrono::steady_clock::now();
  std::vector<net::SecretKey> secrets(records * cores);
  for (auto& k : secrets) rng.fill(k);
  std::vector<std::vector<net::PublicKey>> publics(cores, std::vector<net::PublicKey>(records));
  const auto t4 = std::chrono::steady_clock::now();
  parallel_for(cores, cores, [&](std::size_t c) {
    for (std::size_t m = 0; m < records; ++m) crypto_scalarmult_base(publics[c][m].data(), secrets[c * records + m].data());
  });
  const auto t5 = std::chrono::steady_clock::now();
  const auto made = net::key_pairs_from(secrets);  // on every core, as `local` makes them
  const auto t6 = std::chrono::steady_clock::now();
  std::vector<std::array<std::uint8_t, 32>> shared(cores);
  parallel_for(cores, cores, [&](std::size_t c) {
    for (std::size_t m = 0; m < records; ++m)
      if (crypto_scalarmult(shared[c].data(), secrets[c * records + m].data(), analyzer.public_key().data()) != 0)
        throw std::runtime_error("local_scale: a static secret failed");
  });
  const auto t7 = std::chrono::steady_clock::now();
  for (const std::size_t o : opened)
    if (o != records) throw std::runtime_error("local_scale: a sealed record did not open");
  for (std::size_t i = 0; i < made.size(); ++i)
    if (made[i].public_key() != publics[i / records][i % records]) throw std::runtime_error("local_scale: a key made together differs");
  const auto per = [&](auto a, auto b) { return std::chrono::duration<double, std::micro>(b - a).count() / records; };
  return {per(t0, t1), per(t1, t2), per(t2, t3), per(t4, t5), per(t5, t6), per(t6, t7)};
}

// Each cost's median over 7 passes, the passes interleaving the costs, so that a slow spell of a
// shared machine does not fall on one cost alone.
SealingCost time_sealing(unsigned cores) {
  std::vector<SealingCost> passes;
  for (int i = 0; i < 7; ++i) passes.push_back(time_sealing_once(cores));
  const auto median_of = [&](double SealingCost::*cost) {
    std::vector<double> v;
    for (const auto& p : passes) v.push_back(p.*cost);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median_of(&SealingCost::seal_us),  median_of(&SealingCost::open_us), median_of(&SealingCost::box_seal_us),
          median_of(&SealingCost::base_us),  median_of(&SealingCost::keys_us), median_of(&SealingCost::static_us)};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::stoul(argv[i]));
  if (counts.empty()) counts = {1000, 10000, 100000};
  const std::string cli = SHUFFLEMPC_CLI;
  const unsigned cores = hardware_cores();
  std::cerr << "local_scale: timing ESA's sealing and opening on " << cores << " cores..." << std::endl;
  const SealingCost esa = time_sealing(cores);
  fmt::print("ESA on this machine, {} cores busy, each core per message: seal {:.1f} us (crypto_box_seal record by record: {:.1f} us, "
             "{:.2f}x), open {:.1f} us; a message sealed and opened {:.1f} us ({:.1f} us, {:.2f}x)\n",
             cores, esa.seal_us, esa.box_seal_us, esa.seal_us / esa.box_seal_us, esa.open_us, esa.seal_us + esa.open_us,
             esa.box_seal_us + esa.open_us, (esa.seal_us + esa.open_us) / (esa.box_seal_us + esa.open_us));
  fmt::print("Each core per party key: crypto_scalarmult_base {:.1f} us, made together {:.1f} us; one side of a static secret {:.1f} us\n",
             esa.base_us, esa.keys_us, esa.static_us);
  fmt::print("{:>8} {:>9} {:>9} | {:>12} {:>12} {:>14} | {:>10} {:>10} | {:>9} | {:>10} {:>11} {:>11}\n", "parties", "local s", "run s",
             "shuffler MB", "analyzer MB", "party proc MB", "recv/party", "sent/party", "shuffler CPU s", "all CPU s", "ESA floor s",
             "old floor s");
  for (const std::size_t n : counts) {
    std::cerr << "local_scale: " << n << " parties over TCP..." << std::endl;
    const std::string parties = std::to_string(n);
    // The documented command as it is: the deadlines follow the work by themselves (the party
    // processes say they are alive while they seal, and a round's limit grows with the parties).
    const Timed local = timed({cli, "local", "counting", "--noise", "calibrated", "--parties", parties, "--seed", "1", "--json"});
    std::cerr << "local_scale: " << n << " parties in one process (baseline)..." << std::endl;
    const Timed run = timed({cli, "run", "counting", "--noise", "calibrated", "--parties", parties, "--seed", "1", "--json"});
    if (local.result.exit_code != 0) {
      // The error is the last line on stderr (warnings and notices come before it).
      std::string why = local.result.err;
      while (!why.empty() && why.back() == '\n') why.pop_back();
      if (auto nl = why.rfind('\n'); nl != std::string::npos) why.erase(0, nl + 1);
      fmt::print("{:>8} failed ({:.1f} s): {}\n", n, local.seconds, why);
      continue;
    }
    const Value report = Value::parse(local.result.out);
    double shuffler = 0, analyzer = 0, party = 0, shuffler_cpu = 0, all_cpu = 0;
    for (const auto& p : report["process_resources"]) {
      const double mb = p["peak_memory_bytes"].get<double>() / 1e6;
      all_cpu += p["cpu_seconds"].get<double>();
      const std::string name = p["process"];
      if (name == "shuffler") {
        shuffler = mb;
        shuffler_cpu = p["cpu_seconds"].get<double>();
      } else if (name == "analyzer") {
        analyzer = mb;
      } else {
        party = std::max(party, mb);
      }
    }
    std::uint64_t recv = 0, sent = 0;
    for (const auto& p : report["per_party"]) {
      recv = std::max<std::uint64_t>(recv, p["bytes_received"].get<std::uint64_t>());
      sent = std::max<std::uint64_t>(sent, p["bytes_sent"].get<std::uint64_t>());
    }
    // Every message sealed once and opened once, spread over every core.
    const double floor_s = report["messages"].get<double>() * (esa.seal_us + esa.open_us) / 1e6 / cores;
    const double old_floor_s = report["messages"].get<double>() * (esa.box_seal_us + esa.open_us) / 1e6 / cores;
    fmt::print("{:>8} {:>9.2f} {:>9.2f} | {:>12.1f} {:>12.1f} {:>14.1f} | {:>10} {:>10} | {:>14.2f} | {:>10.1f} {:>11.1f} {:>11.1f}\n", n,
               local.seconds, run.seconds, shuffler, analyzer, party, recv, sent, shuffler_cpu, all_cpu, floor_s, old_floor_s);
    // Every X25519 a party costs, one core's microseconds (see the head of this file).
    const double m = report["messages"].get<double>() / static_cast<double>(n);
    const double before = 2 * esa.base_us + 2 * esa.static_us + m * (esa.box_seal_us + esa.open_us);
    const double now = esa.keys_us + 2 * esa.static_us + m * (esa.seal_us + esa.open_us);
    fmt::print("{:>8} per party, {:.2f} messages: crypto {:.1f} us against {:.1f} us before ({:.2f}x)\n", "", m, now, before, now / before);
  }
  return 0;
}
