// libFuzzer target for what `shufflempc verify` reads from a stranger: the verifiable mix's
// transcript (JSON) and the binary layouts inside it (ciphertext batches, proofs of shuffle, proved
// decryption shares), the round evidence a verifiable chain's result frame carries over TCP, and the
// servers' key generation a session config carries.
// Any input must parse or be refused with std::invalid_argument, and whatever
// parses must go through the checks (a verdict, never a crash). The first byte picks the parser.
// Build with clang and -DSHUFFLEMPC_FUZZ=ON; run, e.g.:
// build-sanitize/bin/fuzz/fuzz_transcript -max_total_time=60 -max_len=65536 -dict=fuzz/transcript.dict
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "shufflempc/mixnet/dkg.hpp"
#include "shufflempc/mixnet/transcript.hpp"

using namespace shufflempc::mixnet;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::uint8_t which = data[0] % 7;
  const std::size_t records = data[1] % 5, limbs = 1 + data[2] % 3;
  const std::span<const std::uint8_t> rest(data + 3, size - 3);
  try {
    switch (which) {
      case 0: {
        const auto t = Transcript::from_json(std::string(rest.begin(), rest.end()));
        (void)verify_transcript(t, 1);
        break;
      }
      case 1: {
        const auto b = CiphertextBatch::from_bytes(limbs, rest, "fuzz batch");
        if (b.all().size() * ciphertext_bytes != rest.size()) __builtin_trap();
        break;
      }
      case 2: {
        // A proof for a fixed statement of `records` identity ciphertexts: checked, never accepted
        // unless it is a real proof (a fuzzer cannot make one).
        const auto p = ShuffleProof::from_bytes(records, limbs, rest, "fuzz proof");
        const CiphertextBatch zeros(limbs, records);
        (void)check_shuffle({}, base_point(), zeros, zeros, p, 1);
        break;
      }
      case 4: {
        // Evidence for a round of `limbs`-limb records through 1 to 3 hops under a 2-of-2 key:
        // parsed, then every hop's proof checked (never accepted unless real).
        const RoundKey key{ThresholdKey{2, {base_point(), base_point()}, {base_point(), base_point()}}, std::nullopt};
        const auto r = decode_evidence(rest, 0, shufflempc::Delivery::all_parties, 2 * limbs, key, 1 + records % 3, 64);
        (void)hop_faults({}, r, std::vector<shufflempc::mixnet::SigningPublicKey>(r.hops.size()), 1);
        (void)check_knowledge({{}, 0, base_point()}, r.input, r.input_proofs, 1);
        break;
      }
      case 5: {
        // A session config's key generation (mixnet/dkg.hpp): parsed, then QUAL and the key
        // recomputed (every signature checked: never accepted unless signed).
        const auto t = DkgTranscript::from_bytes(rest, "fuzz key generation");
        const auto outcome = dkg_outcome(t, "fuzz key generation");
        // Its endorsements (never accepted unless signed), and one step's message as a dkg_answer
        // frame carries it: parsed and checked for each step and server of the setup.
        check_endorsements(t, outcome, "fuzz key generation");
        break;
      }
      case 3: {
        // A key generation's frames: a setup (step 1's dkg frame) and a signed message of each step.
        const std::size_t cut = std::min<std::size_t>(rest.size(), 16 + 8 + 2 * 64 + records * 64);
        const auto setup = DkgSetup::from_bytes(rest.first(cut), "fuzz setup");
        if (!setup.check().empty()) break;
        const auto m = DkgMessage::from_bytes(rest.subspan(cut), "fuzz message");
        for (std::uint8_t step = 1; step <= dkg_steps; ++step)
          if (check_dkg_message(setup, static_cast<DkgStep>(step), limbs % setup.servers(), m).empty()) __builtin_trap();  // unsigned
        break;
      }
      default: {
        const auto s = DecryptionShares::from_bytes(records * limbs, rest, "fuzz shares");
        (void)check_decryption_shares({}, 0, base_point(), CiphertextBatch(limbs, records), s, 1);
        break;
      }
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
