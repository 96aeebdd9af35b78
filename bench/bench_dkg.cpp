// What the servers' distributed key generation (net/dkg.hpp) costs a verifiable chain of K servers
// at threshold T, in one run, each the median of REPS:
//   1. the computation alone: K participants' four steps in this process (mixnet::run_dkg_locally),
//      and the key and every share recomputed from the transcript (what every process does when it
//      loads the config);
//   2. over TCP on 127.0.0.1 with the K - 1 further servers as TcpDkgServers in threads of this
//      process (net::generate_key: dial, handshake, the four steps and the transcript);
//   3. the same with each further server a process of its own (`shufflempc mix-server --dkg`, as
//      `session --decryption-threshold` and `local --decryption-threshold` run it): from the
//      processes' start to the last one's exit, and the coordinator's part alone.
// The target (this machine): at most 2 s for K = 5.
//
//   build/bin/bench/bench_dkg [K=5] [T=3] [REPS=5]
//
// Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "shufflempc/mixnet/dkg.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/process.hpp"
#include "timing.hpp"

using namespace shufflempc;
using bench::seconds_of;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t k = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5;
  const std::size_t t = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 3;
  const std::size_t reps = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 5;
  if (k < 2 || k > net::max_mix_servers || t < 1 || t > k || reps < 1) {
    std::cerr << "bench_dkg: K must be in [2, " << net::max_mix_servers << "], T in [1, K], REPS at least 1\n";
    return 2;
  }
  SystemRng rng;
  std::vector<net::KeyPair> keys;
  mixnet::DkgSetup setup;
  rng.fill(setup.session);
  setup.threshold = t;
  for (std::size_t i = 0; i < k; ++i) {
    keys.push_back(net::KeyPair::generate(rng));
    setup.box_keys.push_back(keys.back().public_key());
    setup.signers.push_back(net::signing_key_of(keys.back()).public_key());
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("shufflempc-bench-dkg-{}", ::getpid());
  std::filesystem::create_directories(dir);
  for (std::size_t i = 1; i < k; ++i) keys[i].save((dir / fmt::format("server-{}.key", i)).string());
  const std::string shuffler = to_hex(keys[0].public_key());

  std::vector<double> local_s, recompute_s, threads_s, processes_s, coordinator_s;
  for (std::size_t r = 0; r < reps; ++r) {
    std::cerr << fmt::format("bench_dkg: K = {}, T = {}: repetition {} of {} ...", k, t, r + 1, reps) << std::endl;
    // 1. The computation alone.
    mixnet::DkgTranscript transcript;
    local_s.push_back(seconds_of([&] {
      std::vector<std::unique_ptr<mixnet::DkgParticipant>> parts;
      std::vector<mixnet::DkgParticipant*> ptrs;
      for (std::size_t i = 0; i < k; ++i) {
        parts.push_back(std::make_unique<mixnet::DkgParticipant>(setup, i, keys[i].secret_key(), net::signing_key_of(keys[i]), rng));
        ptrs.push_back(parts.back().get());
      }
      transcript = mixnet::run_dkg_locally(ptrs);
    }));
    recompute_s.push_back(seconds_of([&] {
      const auto out = mixnet::dkg_outcome(transcript, "bench");
      for (std::size_t i = 0; i < k; ++i) (void)mixnet::dkg_share(transcript, out, i, keys[i].secret_key());
    }));
    // 2. Over TCP, the further servers in threads.
    {
      std::vector<std::unique_ptr<net::TcpDkgServer>> servers;
      std::vector<std::string> addresses;
      threads_s.push_back(seconds_of([&] {
        for (std::size_t i = 1; i < k; ++i) {
          servers.push_back(std::make_unique<net::TcpDkgServer>(keys[i], keys[0].public_key(), "127.0.0.1", 0));
          addresses.push_back(fmt::format("127.0.0.1:{}", servers.back()->port()));
        }
        std::vector<std::thread> threads;
        for (auto& s : servers) threads.emplace_back([&s] { (void)s->run(); });
        const auto g = net::generate_key(setup, keys[0], addresses, std::chrono::milliseconds(30'000));
        for (auto& th : threads) th.join();
        if (g.outcome.qualified.size() != k) std::cerr << "bench_dkg: a server was left out\n";
      }));
    }
    // 3. Over TCP, each further server a process.
    processes_s.push_back(seconds_of([&] {
      std::vector<ChildProcess> servers;
      std::vector<std::string> addresses;
      for (std::size_t i = 1; i < k; ++i) {
        servers.emplace_back(fmt::format("server {}", i),
                             std::vector<std::string>{SHUFFLEMPC_CLI, "mix-server", "--dkg", "--key", (dir / fmt::format("server-{}.key", i)).string(),
                                                      "--shuffler-key", shuffler, "--listen", "127.0.0.1:0"});
        const auto line = servers.back().read_line(std::chrono::seconds(30));
        if (!line || line->rfind("listening on ", 0) != 0) {
          std::cerr << "bench_dkg: server " << i << " did not start\n";
          std::exit(1);
        }
        addresses.push_back(line->substr(13));
      }
      coordinator_s.push_back(seconds_of([&] { (void)net::generate_key(setup, keys[0], addresses, std::chrono::milliseconds(30'000)); }));
      for (auto& s : servers)
        if (s.wait_for(std::chrono::seconds(30)) != 0) std::cerr << "bench_dkg: " << s.name() << " failed\n";
    }));
  }
  std::filesystem::remove_all(dir);
  std::cout << fmt::format("{} thread(s); K = {} servers, threshold T = {}; the median of {} run(s)\n", std::thread::hardware_concurrency(), k, t, reps);
  std::cout << fmt::format("{:<58} {:>10}\n", "what", "seconds");
  std::cout << fmt::format("{:<58} {:>10.4f}\n", "the four steps of K participants, in this process", median(local_s));
  std::cout << fmt::format("{:<58} {:>10.4f}\n", "the key and the K shares recomputed from the transcript", median(recompute_s));
  std::cout << fmt::format("{:<58} {:>10.4f}\n", "over TCP, further servers as threads (generate_key)", median(threads_s));
  std::cout << fmt::format("{:<58} {:>10.4f}\n", "over TCP, further servers as processes: coordinator's part", median(coordinator_s));
  std::cout << fmt::format("{:<58} {:>10.4f}\n", "over TCP, further servers as processes: start to last exit", median(processes_s));
}
