// mpc2 (degree-2 functionalities in two shuffle rounds): the inner product of two vectors and the
// sum of many inputs spread over the parties, for n = 3, 5, 7, in-process and over TCP loopback
// (`shufflempc local`: shuffler, analyzer and party processes), against, in the same run, the
// cleartext computation, the bare shuffle of the same messages (both rounds' batches), and the
// encryption floor: XChaCha20-Poly1305 (what the one-round secret messages use) encrypting and
// decrypting as many chunks of the same size as round 1 carries, one core.
//
//   build/bin/bench/bench_mpc2 [LENGTH=100000] [SUM_INPUTS=10000] [REPS=3]
//
// Every figure is the median of REPS runs. "in/floor" is the median over the runs of each run's time
// against the floor measured just before and after it (the mean of the two). "cores give" is the
// floor against the same work split over every core (at most hardware_threads()), measured just
// before each run: the speed-up this machine's cores give a run that keeps them all busy, as an
// in-process run does. Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <sodium.h>

#include "shufflempc/inproc.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"
#include "shufflempc/secret_messages.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median of 5 timings of `compute` (which returns the answer), and the answer.
template <class Compute>
std::pair<double, std::int64_t> time_cleartext(Compute compute) {
  std::vector<double> times;
  std::int64_t answer = 0;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    answer = compute();
    times.push_back(seconds_since(t0));
  }
  return {median(times), answer};
}

struct Workload {
  std::string name;
  std::string program;
  std::vector<Value> inputs;
  std::int64_t truth = 0;
  double cleartext = 0;  // seconds to compute it in the clear
};

Workload inner_product(std::size_t n, std::size_t length, Rng& rng) {
  Workload w{"inner product", fmt::format("input a[{0}]@0, b[{0}]@1\noutput ip = dot(a, b)", length), {}, 0, 0};
  std::vector<std::int64_t> a(length), b(length);
  for (auto& x : a) x = rng.uniform_between(-1000, 1000);
  for (auto& x : b) x = rng.uniform_between(-1000, 1000);
  std::tie(w.cleartext, w.truth) = time_cleartext([&] {
    std::int64_t s = 0;
    for (std::size_t i = 0; i < length; ++i) s += a[i] * b[i];
    return s;
  });
  w.inputs.assign(n, nullptr);
  w.inputs[0] = a;
  w.inputs[1] = b;
  return w;
}

Workload spread_sum(std::size_t n, std::size_t count, Rng& rng) {
  Workload w{"sum", "", {}, 0, 0};
  std::string decl = "input ", out = "output s = ";
  std::vector<std::vector<std::int64_t>> parts(n);
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t k = count * (p + 1) / n - count * p / n;
    decl += fmt::format("{}v{}[{}]@{}", p ? ", " : "", p, k, p);
    out += fmt::format("{}sum(v{})", p ? " + " : "", p);
    for (std::size_t i = 0; i < k; ++i) parts[p].push_back(rng.uniform_between(0, 1'000'000));
  }
  w.program = decl + "\n" + out;
  std::tie(w.cleartext, w.truth) = time_cleartext([&] {
    std::int64_t s = 0;
    for (const auto& part : parts)
      for (auto x : part) s += x;
    return s;
  });
  for (auto& part : parts) w.inputs.emplace_back(part);
  return w;
}

// Seconds to encrypt and then decrypt, with libsodium's XChaCha20-Poly1305 under one random key,
// every ciphertext message of round 1 (`view`): the cost the secret messages cannot avoid. On
// `threads` threads, each a contiguous share of the chunks: what this machine's cores give the
// same work when all are busy (on a VM, often less than their count).
double encryption_floor(const MessageBatch& round1, unsigned threads = 1) {
  const std::size_t width = round1.width(), chunk = width - osm::header_bytes - crypto_aead_xchacha20poly1305_ietf_ABYTES;
  std::size_t chunks = 0;
  for (std::size_t i = 0; i < round1.count(); ++i)
    chunks += osm::read_header(round1[i]).kind == static_cast<std::uint8_t>(osm::Kind::ciphertext) ? 1 : 0;
  std::vector<std::uint8_t> plain(chunks * chunk), sealed(chunks * (chunk + crypto_aead_xchacha20poly1305_ietf_ABYTES));
  std::array<std::uint8_t, crypto_aead_xchacha20poly1305_ietf_KEYBYTES> key{};
  std::array<std::uint8_t, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES> nonce{};
  randombytes_buf(key.data(), key.size());
  randombytes_buf(plain.data(), plain.size());
  const auto t0 = Clock::now();
  parallel_for(threads, threads, [&](std::size_t t) {
    const std::size_t from = chunks * t / threads, to = chunks * (t + 1) / threads;
    auto nonce_of = nonce;
    for (std::size_t c = from; c < to; ++c) {
      std::memcpy(nonce_of.data(), &c, sizeof c);
      crypto_aead_xchacha20poly1305_ietf_encrypt(sealed.data() + c * (chunk + crypto_aead_xchacha20poly1305_ietf_ABYTES), nullptr,
                                                 plain.data() + c * chunk, chunk, nullptr, 0, nullptr, nonce_of.data(), key.data());
    }
    for (std::size_t c = from; c < to; ++c) {
      std::memcpy(nonce_of.data(), &c, sizeof c);
      if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data() + c * chunk, nullptr, nullptr,
                                                     sealed.data() + c * (chunk + crypto_aead_xchacha20poly1305_ietf_ABYTES),
                                                     chunk + crypto_aead_xchacha20poly1305_ietf_ABYTES, nullptr, 0, nonce_of.data(),
                                                     key.data()) != 0)
        throw std::runtime_error("bench_mpc2: a chunk of the encryption floor did not decrypt");
    }
  });
  return seconds_since(t0);
}

int run(std::size_t length, std::size_t sum_inputs, int reps) {
  keep_freed_buffers();  // as the CLI does
  const Registry registry = builtin_registry();
  SystemRng rng;
  Shuffler shuffler;
  fmt::print("{:<14} {:>2} {:>12} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10} {:>14} {:>14} {:>11}\n", "workload", "n", "in-process",
             "tcp (local)", "cleartext", "bare shuffle", "enc. floor", "in/floor", "cores give", "round-1 B/pty", "round-2 B/pty",
             "messages");
  for (std::size_t n : {3u, 5u, 7u}) {
    for (int which = 0; which < 2; ++which) {
      Workload w = which == 0 ? inner_product(n, length, rng) : spread_sum(n, sum_inputs, rng);
      std::cerr << fmt::format("mpc2 {} at n = {}: {} in-process runs, {} over TCP\n", w.name, n, reps, reps);
      const auto protocol = registry.create("mpc2", {{"function", w.program}}, n);
      std::vector<double> inproc, bare, floor, ratio, tcp, cores_gain;
      // One run that keeps both rounds' batches, untimed: the baselines' sizes. The timed runs keep
      // nothing, as a run of the product does.
      RunOptions keep;
      keep.record_view = true;
      const RunResult last = run_in_process(*protocol, w.inputs, rng, keep);
      for (int r = 0; r < reps; ++r) {
        // The floor just before and just after each run: on a machine whose speed drifts (a shared
        // VM), each run is compared with the floor of its own moment.
        const double floor_before = encryption_floor(last.view.front());
        cores_gain.push_back(floor_before / encryption_floor(last.view.front(), hardware_threads()));
        auto t0 = Clock::now();
        const RunResult run = run_in_process(*protocol, w.inputs, rng);
        inproc.push_back(seconds_since(t0));
        floor.push_back((floor_before + encryption_floor(last.view.front())) / 2);
        ratio.push_back(inproc.back() / floor.back());
        if (run.output.begin()->get<std::int64_t>() != w.truth) {
          std::cerr << "bench_mpc2: WRONG RESULT " << run.output.dump() << " != " << w.truth << "\n";
          return 1;
        }
        // The bare shuffle of the same two batches (fresh bytes of the same count and width).
        double b = 0;
        for (const auto& round : last.view) {
          MessageBatch copy(round.width(), round.count());
          rng.fill(copy.data(), copy.size_bytes());
          t0 = Clock::now();
          shuffler.shuffle(copy, rng);
          b += seconds_since(t0);
        }
        bare.push_back(b);
      }
      // Over TCP: the same functionality, inputs from a file, one process per party.
      const std::string dir = "/tmp/bench_mpc2_" + std::to_string(::getpid());
      std::filesystem::create_directories(dir);
      const std::string inputs_file = dir + "/inputs.json", program_file = dir + "/program.txt";
      {
        std::ofstream(inputs_file) << Value(w.inputs).dump();
        std::ofstream(program_file) << w.program;
      }
      for (int r = 0; r < reps; ++r) {
        std::cerr << fmt::format("  tcp run {}/{}\n", r + 1, reps);
        const auto t0 = Clock::now();
        const auto res = run_command({SHUFFLEMPC_CLI, "local", "mpc2", "--parties", std::to_string(n), "--function",
                                           "@" + program_file, "--inputs", inputs_file, "--json"});
        tcp.push_back(seconds_since(t0));
        const Value v = Value::parse(res.out, nullptr, false);
        if (res.exit_code != 0 || v.is_discarded() || v["output"].begin()->get<std::int64_t>() != w.truth) {
          std::cerr << "bench_mpc2: the TCP run failed: " << res.err << "\n";
          return 1;
        }
      }
      std::filesystem::remove_all(dir);
      const auto& rounds = last.details["rounds"];
      fmt::print("{:<14} {:>2} {:>10.1f}ms {:>10.1f}ms {:>10.3f}ms {:>10.2f}ms {:>10.2f}ms {:>9.2f}x {:>9.2f}x {:>14.0f} {:>14.0f} {:>11}\n",
                 w.name, n, 1e3 * median(inproc), 1e3 * median(tcp), 1e3 * w.cleartext, 1e3 * median(bare), 1e3 * median(floor),
                 median(ratio), median(cores_gain), rounds[0]["bytes_per_party"].get<double>(),
                 rounds[1]["bytes_per_party"].get<double>(), last.messages);
      std::cout.flush();
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    return run(args.size() > 0 ? std::stoull(args[0]) : 100'000, args.size() > 1 ? std::stoull(args[1]) : 10'000,
               args.size() > 2 ? std::stoi(args[2]) : 3);
  } catch (const std::exception& e) {
    std::cerr << "bench_mpc2: " << e.what() << "\nusage: bench_mpc2 [LENGTH] [SUM_INPUTS] [REPS]\n";
    return 2;
  }
}
