// What a receiver of a verifiable round pays to check it, as every party of a round delivered to all
// parties does: the senders' proofs of plaintext knowledge, every hop's proof of shuffle and
// signature, every trustee's decryption proof, and the decryption itself (Σ λ_k·d_k a record), on N
// records of WIDTH bytes through HOPS hops with TRUSTEES trustees (all needed). Beside it, in the same
// run, N of libsodium's variable-base scalar multiplications on the same threads: the check's cost is
// also given in those multiplications a record a hop (the target: at most 2). For context, what a
// server pays for one hop and a trustee for its shares.
//
//   build/bin/bench/bench_verifiable_round [N=21504] [HOPS=3] [TRUSTEES=3] [WIDTH=13] [THREADS=0: every core]
//
// 21504 is the records of an IKOS round of 8 parties (28 pairs, 768 labels each). Progress goes to
// stderr, the table to stdout.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/knowledge.hpp"
#include "shufflempc/mixnet/threshold.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/parallel.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::size_t arg(int argc, char** argv, int i, std::size_t otherwise) {
  return argc > i ? static_cast<std::size_t>(std::strtoull(argv[i], nullptr, 10)) : otherwise;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = arg(argc, argv, 1, 21504), hops = arg(argc, argv, 2, 3), trustees = arg(argc, argv, 3, 3), width = arg(argc, argv, 4, 13);
  const unsigned threads = jobs_or_cores(static_cast<unsigned>(arg(argc, argv, 5, 0)));
  if (n < 1 || hops < 1 || hops > max_hops || trustees < 1 || trustees > max_trustees || width < 1 || width > max_record_bytes) {
    std::cerr << fmt::format("bench_verifiable_round: N >= 1, HOPS in [1, {}], TRUSTEES in [1, {}], WIDTH in [1, {}]\n", max_hops, max_trustees,
                             max_record_bytes);
    return 2;
  }
  SeededRng rng(1);
  const DealtKey dealt = deal_key(trustees, trustees, rng);
  const Point key = dealt.key.key();
  const SessionId session{7};
  RoundTranscript round;
  round.round = 0;
  round.delivery = Delivery::all_parties;
  round.width = width;
  round.key.servers = dealt.key;

  std::cerr << fmt::format("bench_verifiable_round: encrypting and proving {} records of {} bytes ...", n, width) << std::endl;
  MessageBatch plain(width, n);
  rng.fill(std::span<std::uint8_t>(plain.data(), plain.size_bytes()));
  std::vector<SubmitterTag> tags(n);
  for (std::size_t i = 0; i < n; ++i) tags[i] = submitter_tag(TagKey{}, session, 0, static_cast<PartyId>(i % 8), i);
  const KnowledgeContext kctx{session, 0, key};
  auto proved = encrypt_and_prove(plain, kctx, tags, rng, threads);
  round.input = std::move(proved.ciphertexts);
  round.input_proofs = std::move(proved.proofs);

  std::vector<SigningKeyPair> servers;
  std::vector<SigningPublicKey> signers;
  for (std::size_t h = 0; h < hops; ++h) {
    servers.push_back(SigningKeyPair::generate(rng));
    signers.push_back(servers.back().public_key());
  }
  double hop_s = 0;
  const CiphertextBatch* in = &round.input;
  for (std::uint32_t h = 0; h < hops; ++h) {
    std::cerr << fmt::format("bench_verifiable_round: hop {} of {} ...", h + 1, hops) << std::endl;
    const auto t0 = Clock::now();
    round.hops.push_back(make_hop({session, 0, h, static_cast<std::uint32_t>(width)}, key, *in, servers[h], rng, rng, threads));
    hop_s += seconds_since(t0);
    in = &round.hops.back().output;
  }
  const ProofContext dctx{session, 0, static_cast<std::uint32_t>(hops), static_cast<std::uint32_t>(width)};
  double shares_s = 0;
  for (std::uint32_t k = 0; k < trustees; ++k) {
    std::cerr << fmt::format("bench_verifiable_round: trustee {} of {} decrypts ...", k + 1, trustees) << std::endl;
    const auto t0 = Clock::now();
    round.decryption.push_back(decryption_shares(dctx, k, dealt.secrets[k], *in, rng, threads));
    shares_s += seconds_since(t0);
    round.decrypted_by.push_back(k);
  }

  // The baseline: N variable-base multiplications on the same threads.
  std::vector<Point> sink(n);
  auto t0 = Clock::now();
  parallel_for(n, threads, [&](std::size_t i) { sink[i] = scalar_from_u64(i + 3) * key; });
  const double mults_s = seconds_since(t0);

  std::cerr << "bench_verifiable_round: checking as a receiver ..." << std::endl;
  t0 = Clock::now();
  const std::string knowledge = check_knowledge(kctx, round.input, round.input_proofs, threads);
  const double knowledge_s = seconds_since(t0);
  t0 = Clock::now();
  const auto hop_faults_found = hop_faults(session, round, signers, threads);
  const double hops_check_s = seconds_since(t0);
  t0 = Clock::now();
  std::string shares_fault;
  for (std::uint32_t k = 0; k < trustees && shares_fault.empty(); ++k)
    shares_fault = check_decryption_shares(dctx, k, dealt.key.shares[k], *in, round.decryption[k], threads);
  const double shares_check_s = seconds_since(t0);
  t0 = Clock::now();
  const MessageBatch records = combine_decryption(*in, round.decryption, round.decrypted_by, width, threads);
  const double combine_s = seconds_since(t0);
  if (!knowledge.empty() || !hop_faults_found.empty() || !shares_fault.empty() || !(records.count() == n)) {
    std::cerr << "bench_verifiable_round: the honest round does not check\n";
    return 1;
  }

  const double total = knowledge_s + hops_check_s + shares_check_s + combine_s;
  const double dn = static_cast<double>(n), per = mults_s / dn;  // one multiplication's seconds
  std::cout << fmt::format("{} records of {} bytes, {} hops, {} trustees (all needed), {} thread(s); 'mults': libsodium's scalar multiplications, same run\n", n,
                           width, hops, trustees, threads);
  std::cout << fmt::format("{:>10} {:>11} {:>9} {:>11} {:>10} {:>9} {:>13} {:>14} {:>12} {:>14}\n", "N mults s", "knowledge s", "hops s", "shares s",
                           "decrypt s", "check s", "mults/record", "mults/r/hop", "server hop s", "trustee s");
  std::cout << fmt::format("{:>10.3f} {:>11.3f} {:>9.3f} {:>11.3f} {:>10.3f} {:>9.3f} {:>13.2f} {:>14.2f} {:>12.3f} {:>14.3f}\n", mults_s, knowledge_s,
                           hops_check_s, shares_check_s, combine_s, total, total / per / dn, total / per / dn / static_cast<double>(hops),
                           hop_s / static_cast<double>(hops), shares_s / static_cast<double>(trustees));
}
