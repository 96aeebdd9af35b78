// All-pairs IKOS key exchange against libsodium's X25519 key exchange (crypto_kx) for the same
// pairs, in the same run, plus the bare shuffle of the IKOS round's messages as a baseline.
//
//   build/bin/bench/bench_ikos [PARTIES=64] [K=128] [REPEATS=5]
//
// IKOS: one shuffle round of 3k (n-1) 13-byte messages per party, every party and the eavesdropper
// reading the whole output (run_in_process, SystemRng). X25519: a key pair per party, then
// both sides' session keys for every pair. Times are medians over the repeats.
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "shufflempc/protocols/ikos_key_exchange/ikos.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/shuffle.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Every pair (i < j) agrees on session keys with crypto_kx: i as client, j as server.
double x25519_all_pairs(std::size_t n) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::array<unsigned char, crypto_kx_PUBLICKEYBYTES>> pk(n);
  std::vector<std::array<unsigned char, crypto_kx_SECRETKEYBYTES>> sk(n);
  for (std::size_t i = 0; i < n; ++i) crypto_kx_keypair(pk[i].data(), sk[i].data());
  std::array<unsigned char, crypto_kx_SESSIONKEYBYTES> crx{}, ctx{}, srx{}, stx{};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (crypto_kx_client_session_keys(crx.data(), ctx.data(), pk[i].data(), sk[i].data(), pk[j].data()) != 0 ||
          crypto_kx_server_session_keys(srx.data(), stx.data(), pk[j].data(), sk[j].data(), pk[i].data()) != 0 ||
          crx != stx || ctx != srx) {
        std::fprintf(stderr, "bench_ikos: X25519 keys disagree\n");
        std::exit(1);
      }
    }
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace shufflempc;
  if (argc > 4 || (argc > 1 && std::string(argv[1]) == "--help")) {
    std::fprintf(stderr, "usage: bench_ikos [PARTIES=64] [K=128] [REPEATS=5]\n");
    return 2;
  }
  const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 64;
  const std::string k = argc > 2 ? argv[2] : "128";
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 5;
  ensure_sodium();
  if (n < 2 || repeats < 1) {
    std::fprintf(stderr, "usage: bench_ikos [PARTIES=64] [K=128] [REPEATS=5]\n");
    return 2;
  }

  const auto registry = builtin_registry();
  const auto protocol = registry.create("ikos-key-exchange", {{"k", k}}, n);
  const std::vector<Value> inputs(n, nullptr);
  const Value details = protocol->describe();
  const std::size_t messages = details["messages_per_party"].get<std::size_t>() * n;

  std::vector<double> ikos_s, shuffle_s, kx_s, encode_s, party_s, eve_s;
  std::size_t agreed = 0, pairs = 0;
  for (int r = 0; r < repeats; ++r) {
    std::fprintf(stderr, "repeat %d/%d: ikos...", r + 1, repeats);
    SystemRng rng;
    const RunResult result = run_in_process(*protocol, inputs, rng);
    ikos_s.push_back(result.seconds);
    agreed += result.output["pairs_agreed"].get<std::size_t>();
    pairs += result.output["pairs"].get<std::size_t>();

    // The same round through the typed API, timed piece by piece: what one party and the
    // eavesdropper each do in a real deployment.
    std::fprintf(stderr, " pieces...");
    const ikos::Config config = ikos::configure(n, std::stol(k));
    std::vector<ikos::KeyExchange> parties;
    MessageBatch batch(ikos::message_width);
    auto t0 = std::chrono::steady_clock::now();
    for (PartyId i = 0; i < n; ++i) parties.emplace_back(config, i).send(*rng.fork(i), batch);
    encode_s.push_back(seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    shuffle(batch, rng);
    shuffle_s.push_back(seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    parties[0].receive(batch);
    party_s.push_back(seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    ikos::Eavesdropper eve(config);
    eve.observe(batch);
    eve_s.push_back(seconds_since(t0));

    std::fprintf(stderr, " x25519...\n");
    kx_s.push_back(x25519_all_pairs(n));
  }

  const double ikos = median(ikos_s), bare = median(shuffle_s), kx = median(kx_s);
  fmt::print("all-pairs key exchange, n = {} parties ({} pairs), k = {} bits, median of {} runs\n", n, n * (n - 1) / 2, k,
             repeats);
  fmt::print("  IKOS: {} messages per party, {} in all ({:.1f} MB), success probability per pair {} (1 - {:.3g})\n",
             details["messages_per_party"].get<std::size_t>(), messages, messages * 13 / 1e6,
             details["success_probability"].get<double>(), details["failure_probability"].get<double>());
  fmt::print("  IKOS round (encode + shuffle + every party and the eavesdropper decode): {:.3f} s ({} of {} pairs agreed)\n",
             ikos, agreed, pairs);
  fmt::print("  of which: all parties encode {:.3f} s, shuffle {:.3f} s, one party decodes {:.4f} s, the eavesdropper {:.4f} s\n",
             median(encode_s), bare, median(party_s), median(eve_s));
  fmt::print("  one party's work (encode / n + decode): {:.4f} s; X25519 per party (1 key pair + n-1 session keys): {:.4f} s\n",
             median(encode_s) / static_cast<double>(n) + median(party_s), kx / static_cast<double>(n));
  fmt::print("  X25519 (crypto_kx) for the same pairs, both sides:                    {:.3f} s\n", kx);
  fmt::print("  IKOS / X25519 = {:.1f}x\n", ikos / kx);
  return 0;
}
