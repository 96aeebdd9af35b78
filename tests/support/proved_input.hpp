// A verifiable round's input as its senders make it: ciphertexts with their proofs of plaintext
// knowledge (mixnet/knowledge.hpp), under random tags, for tests that build transcripts by hand.
#pragma once

#include <vector>

#include "shufflempc/mixnet/transcript.hpp"

namespace shufflempc::test {

// `plain` encrypted and proved under `r.key` for `session` and `r.round` (set those first).
inline mixnet::ProvedBatch proved_input(const mixnet::RoundTranscript& r, const SessionId& session, const MessageBatch& plain, Rng& rng) {
  std::vector<mixnet::SubmitterTag> tags(plain.count());
  for (auto& t : tags) rng.fill(t);
  return mixnet::encrypt_and_prove(plain, {session, r.round, r.key.key()}, tags, rng, 2);
}

inline void set_proved_input(mixnet::RoundTranscript& r, const SessionId& session, const MessageBatch& plain, Rng& rng) {
  auto p = proved_input(r, session, plain, rng);
  r.input = std::move(p.ciphertexts);
  r.input_proofs = std::move(p.proofs);
}

}  // namespace shufflempc::test
