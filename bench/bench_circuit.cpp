// circuit (any Bristol Fashion circuit in two shuffle rounds): AES-128 and SHA-256 in v1 (BMR,
// two garblers and a helper) and v3 (designated garbler, ESA) with 3 parties, and v2 (BMR with t + 1
// garblers, t < n/3) with 4 and 7, in-process and over TCP
// loopback (`shufflempc local`: shuffler, analyzer and party processes), against, in the same run:
// plain evaluation of the circuit, the bare shuffle of the same two batches, and the cost floors of
// the primitives (the garbling hashes the variant needs, one X25519 per TCP link). First, the
// garbling hash itself: ns per hash and half-gates garbling and evaluation of AES-128 in AND gates a
// second, with fixed-key AES (the default) and with ChaCha20.
//
//   build/bin/bench/bench_circuit [REPS=5] [--in-process]
//
// --in-process skips the TCP runs (their column reads 0): for comparing builds quickly.
//
// Every figure is the median of REPS runs. Progress goes to stderr, the table to stdout.
#include <fmt/format.h>
#include <sodium.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "shufflempc/protocols/circuit/bmr.hpp"
#include "shufflempc/protocols/circuit/bmr_shamir.hpp"
#include "shufflempc/protocols/circuit/bristol.hpp"
#include "shufflempc/protocols/circuit/half_gates.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time_median(int reps, F f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    t.push_back(ms_since(t0));
  }
  return median(t);
}

struct Case {
  std::string circuit;
  std::vector<Value> inputs;
  std::string expected;
};

// The garbler's own round-2 work (v1: G1's share of the garbled circuit; v2: party 0's, a garbler's;
// v3: half-gates garbling).
double garble_ms(const circuit::Circuit& c, const std::string& variant, std::size_t n, int reps, Rng& rng) {
  if (variant == "v3") return time_median(reps, [&] { (void)circuit::half_gates::garble(c, rng); });
  if (variant == "v2") {
    const circuit::bmr_shamir::Plan p(c, n, (n - 1) / 3, circuit::GarblingHash::aes);
    circuit::bmr_shamir::Holdings h;
    h.k = 0;
    for (std::size_t i = 0; i < p.garblers; ++i) {
      auto g = circuit::bmr::make_garbler(p.layout, static_cast<int>(i), circuit::random_seed(rng));
      h.dealt.push_back(circuit::bmr_shamir::deal(p, g, rng)[0]);
      if (i == 0) h.own = std::move(g);
    }
    h.x.assign(p.layout.inputs, 0);
    return time_median(reps, [&] { (void)circuit::bmr_shamir::round2_share(p, h); });
  }
  const circuit::bmr::Layout l(c);
  const auto m1 = circuit::random_seed(rng), m2 = circuit::random_seed(rng);
  circuit::bmr::Holdings h;
  h.k = 0;
  h.dealt = {circuit::bmr::g1_shares_from_master(l, 0, m1), circuit::bmr::g2_shares_of_g1(l, circuit::bmr::G2Seeds::of(m2))};
  h.own = circuit::bmr::make_garbler(l, 0, m1);
  h.x = {std::vector<std::uint8_t>(l.inputs, 0), std::vector<std::uint8_t>(l.inputs, 0)};
  return time_median(reps, [&] { (void)circuit::bmr::round2_share(l, h); });
}

int run(int reps, bool tcp_runs) {
  ensure_sodium();
  const Registry registry = builtin_registry();
  SystemRng rng;
  Shuffler shuffler;
  // Cost floors, measured here: one garbling hash per hash instance (four keys a call, as half-gates
  // garbles an AND gate) and one X25519.
  const auto hash_cost_ns = [](circuit::GarblingHash h) {
    circuit::Block k[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}}, out[4];
    const std::uint8_t sides[4] = {0, 0, 1, 1};
    const int calls = 200'000;
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) {
      circuit::hash1_many(h, k, static_cast<std::uint64_t>(i), sides, 4, out);
      k[0] ^= out[0];
    }
    return 1e6 * ms_since(t0) / (4.0 * calls);
  };
  const double hash_ns = hash_cost_ns(circuit::GarblingHash::aes), chacha_ns = hash_cost_ns(circuit::GarblingHash::chacha20);
  double x25519_us = 0;
  {
    std::uint8_t sk[32], pk[32], shared[32];
    randombytes_buf(sk, sizeof sk);
    crypto_scalarmult_base(pk, sk);
    const auto t1 = Clock::now();
    for (int i = 0; i < 2000; ++i)
      if (crypto_scalarmult(shared, sk, pk) != 0) return 1;
    x25519_us = 1e3 * ms_since(t1) / 2000;
  }
  fmt::print("garbling hash: fixed-key AES {:.1f} ns, ChaCha20 block under a fresh key {:.1f} ns; X25519: {:.1f} us\n", hash_ns, chacha_ns,
             x25519_us);
  {
    // Half-gates on AES-128 (6800 AND gates): garbling and evaluation rates with each hash, against
    // plain evaluation of the same circuit.
    const circuit::Circuit aes = circuit::load(std::string(SHUFFLEMPC_SOURCE_DIR) + "/circuits/aes_128.txt");
    const std::vector<std::uint8_t> zeros(aes.input_bits(), 0);
    const double plain_ms = time_median(25, [&] { (void)circuit::evaluate(aes, zeros); });
    for (const auto h : {circuit::GarblingHash::aes, circuit::GarblingHash::chacha20}) {
      circuit::half_gates::Garbled g;
      const double garble = time_median(25, [&] { g = circuit::half_gates::garble(aes, rng, h); });
      const auto pub = circuit::half_gates::encode_public(g);
      const double eval = time_median(25, [&] { (void)circuit::half_gates::evaluate(aes, pub, g.zero_labels, h); });
      fmt::print("half-gates AES-128 with {:<8}: garble {:.3f} ms ({:.1f} M AND/s), evaluate {:.3f} ms ({:.1f} M AND/s); plain evaluation {:.3f} ms\n",
                 circuit::to_string(h), garble, aes.and_gates / garble / 1e3, eval, aes.and_gates / eval / 1e3, plain_ms);
    }
    fmt::print("\n");
  }
  const std::string block = "61626380" + std::string(104, '0') + "0000000000000018";
  const std::vector<Case> cases = {
      {"aes_128", {"000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", nullptr}, "69c4e0d86a7b0430d8cdb78070b4c55a"},
      {"sha256", {block, "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19", nullptr},
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}};
  struct Config {
    std::string variant, delivery;
    std::size_t parties;
  };
  const std::vector<Config> configs = {{"v1", "mpc", 3}, {"v1", "esa", 3}, {"v2", "mpc", 4}, {"v2", "mpc", 7}, {"v3", "esa", 3}};
  fmt::print("{:<8} {:<8} {:>10} {:>11} {:>8} {:>9} {:>9} {:>10} {:>10} {:>11} {:>11} {:>11} {:>11}\n", "circuit", "variant", "in-process",
             "tcp (local)", "plain", "garble", "evaluate", "hash floor", "bare shfl", "R1 B/G1", "R1 B/G2", "R2 B/party", "total MB");
  const std::string dir = "/tmp/bench_circuit_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  for (const auto& cs : cases) {
    const circuit::Circuit c = circuit::load(std::string(SHUFFLEMPC_SOURCE_DIR) + "/circuits/" + cs.circuit + ".txt");
    std::vector<std::uint8_t> x;
    for (std::size_t g = 0; g < 2; ++g) {
      const auto b = circuit::bits_from_hex(cs.inputs[g].get<std::string>(), c.inputs[g], "input");
      x.insert(x.end(), b.begin(), b.end());
    }
    const double plain = time_median(reps, [&] { (void)circuit::evaluate(c, x); });
    for (const auto& cfg : configs) {
      std::cerr << fmt::format("{} {} ({}, n = {}): {} in-process runs, {} over TCP\n", cs.circuit, cfg.variant, cfg.delivery, cfg.parties, reps, reps);
      // Groups 0 and 1 belong to parties 0 and 1; the others own nothing.
      std::vector<Value> inputs = cs.inputs;
      inputs.resize(cfg.parties, nullptr);
      const std::string inputs_file = dir + "/" + cs.circuit + std::to_string(cfg.parties) + ".json";
      std::ofstream(inputs_file) << Value(inputs).dump();
      const auto protocol = registry.create("circuit", {{"circuit", cs.circuit}, {"variant", cfg.variant}, {"delivery", cfg.delivery}}, cfg.parties);
      std::vector<double> inproc, bare, eval;
      RunResult last;
      for (int r = 0; r < reps; ++r) {
        RunOptions opts;
        opts.record_view = true;
        const auto t0 = Clock::now();
        last = run_in_process(*protocol, inputs, rng, opts);
        inproc.push_back(ms_since(t0));
        if (last.output != cs.expected) {
          std::cerr << "bench_circuit: WRONG RESULT " << last.output.dump() << "\n";
          return 1;
        }
        eval.push_back(last.details["evaluate_ms"].get<double>());
        double b = 0;
        for (const auto& round : last.view) {
          MessageBatch copy(round.width(), round.count());
          rng.fill(copy.data(), copy.size_bytes());
          const auto t1 = Clock::now();
          shuffler.shuffle(copy, rng);
          b += ms_since(t1);
        }
        bare.push_back(b);
      }
      std::vector<double> tcp = {0.0};
      if (tcp_runs) tcp.clear();
      for (int r = 0; tcp_runs && r < reps; ++r) {
        std::cerr << fmt::format("  tcp run {}/{}\n", r + 1, reps);
        const auto t0 = Clock::now();
        const auto res = run_command({SHUFFLEMPC_CLI, "local", "circuit", "--parties", std::to_string(cfg.parties), "--circuit", cs.circuit, "--variant", cfg.variant,
                                           "--delivery", cfg.delivery, "--inputs", inputs_file, "--json"});
        tcp.push_back(ms_since(t0));
        const Value v = Value::parse(res.out, nullptr, false);
        if (res.exit_code != 0 || v.is_discarded() || v["output"] != cs.expected) {
          std::cerr << "bench_circuit: the TCP run failed: " << res.err << "\n";
          return 1;
        }
      }
      // Hash calls: v1 4 per AND gate per garbler and 4 per evaluation; v3 4 to garble, 2 to evaluate;
      // v2 (G garblers) 4 keys of 2G blocks per AND gate per garbler and 2G keys of 2G blocks per
      // evaluation, counted in blocks.
      const double evaluations = cfg.variant == "v3" ? 1 : (cfg.delivery == "mpc" ? static_cast<double>(cfg.parties) + 1 : 1);
      const double G = static_cast<double>((cfg.parties - 1) / 3 + 1);
      const double calls = static_cast<double>(c.and_gates) * (cfg.variant == "v3"   ? 4 + 2
                                                               : cfg.variant == "v2" ? 8 * G * G + 4 * G * G * evaluations
                                                                                     : 8 + 4 * evaluations);
      const Value d = protocol->describe();
      const auto& pp = d["per_party"];
      std::size_t total = 0;
      for (const auto& p : pp) total += p["round_1"]["bytes"].get<std::size_t>() + p["round_2"]["bytes"].get<std::size_t>();
      fmt::print("{:<8} {:<8} {:>8.1f}ms {:>9.1f}ms {:>6.2f}ms {:>7.1f}ms {:>7.1f}ms {:>8.1f}ms {:>8.2f}ms {:>11} {:>11} {:>11} {:>11.2f}\n",
                 cs.circuit, cfg.variant + (cfg.variant == "v2" ? "/n=" + std::to_string(cfg.parties) : cfg.variant == "v1" ? "/" + cfg.delivery : ""),
                 median(inproc), median(tcp), plain, garble_ms(c, cfg.variant, cfg.parties, reps, rng), median(eval), calls * hash_ns * 1e-6, median(bare),
                 pp[0]["round_1"]["bytes"].get<std::size_t>(), pp[1]["round_1"]["bytes"].get<std::size_t>(),
                 pp[1]["round_2"]["bytes"].get<std::size_t>(), static_cast<double>(total) / 1e6);
      std::cout.flush();
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // As the CLI does: keep freed megabyte buffers rather than fault them in afresh every run.
  keep_freed_buffers();
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    const bool in_process = args.size() > 1 && args[1] == "--in-process";
    if (args.size() > 1 && !in_process) throw std::invalid_argument("the second argument, if any, is --in-process");
    return run(args.size() > 0 ? std::stoi(args[0]) : 5, !in_process);
  } catch (const std::exception& e) {
    std::cerr << "bench_circuit: " << e.what() << "\nusage: bench_circuit [REPS] [--in-process]\n";
    return 2;
  }
}
