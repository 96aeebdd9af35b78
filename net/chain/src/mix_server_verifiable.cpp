// A further server of a verifiable chain: the entry's shuffle frame (re-encrypt, permute, prove,
// sign) and decrypt frame (the evidence checked, this server's proved decryption shares).
#include <string>

#include "mix_server_impl.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/verifiable.hpp"

namespace shufflempc::net {

// A verifiable chain's shuffle frame: re-encrypt, permute, prove (and send it all back).
asio::awaitable<std::optional<Fault>> TcpMixServer::Impl::take_shuffle(Served& s, SecureLink& link, detail::Frame& f) {
  const std::uint32_t r = f.header.round;
  const std::string round = "round " + std::to_string(r);
  const MessageBatch batch = MessageBatch::from_bytes(f.header.width, std::move(f.payload));
  if (s.last.valid && r == s.last.round && s.last.type == FrameType::shuffled) {
    if (batch_digest(batch) != s.last.received)
      co_return refusal(FaultCode::duplicate, r, round + " was shuffled already, with another batch: a server shuffles each round once");
    send_last(s, link);
    co_return std::nullopt;
  }
  if (r != s.next_round) co_return refusal(FaultCode::wrong_round, r, round + " is out of order: the next round to shuffle is " + std::to_string(s.next_round));
  if (options.step) options.step("received");
  if (r >= s.config.rounds.size())
    co_return refusal(FaultCode::wrong_round, r, round + ": the session has " + std::to_string(s.config.rounds.size()) + " rounds");
  const RoundShape& shape = s.config.rounds[r];
  // The chain carries the records' ciphertexts; their senders' proofs stay with the entry's evidence.
  const std::size_t limbs = chain_limbs(shape.width), cw = limbs * mixnet::ciphertext_bytes;
  if (limbs == 0 || f.header.width != cw)
    co_return refusal(FaultCode::wrong_width, r, round + ": records of " + std::to_string(f.header.width) + " bytes, this chain takes " + std::to_string(cw));
  mixnet::CiphertextBatch in;
  try {
    in = mixnet::CiphertextBatch::from_bytes(limbs, batch.bytes(), round + "'s batch");
  } catch (const std::invalid_argument& e) {
    co_return refusal(FaultCode::malformed, r, e.what());
  }
  const mixnet::Point key = round_key(s.config, shape.delivery).key();
  const mixnet::ProofContext ctx{s.config.session, r, s.hop, static_cast<std::uint32_t>(shape.record_width)};
  // Signed: the hop is this server's (its Ed25519 key in the session config), and nobody else's.
  mixnet::HopTranscript hop;
  co_await compute(s, link, r, [&] {
    hop = mixnet::make_hop(ctx, key, in, signing, rng, rng, threads(), [&](mixnet::CiphertextBatch& out) {
      if (options.tamper) options.tamper(r, out);
    });
  });
  // The round's answer replaces the last one only once it is kept (or there is no state directory).
  Served::Last previous = std::move(s.last);
  std::vector<std::uint8_t> previous_output = std::move(s.shuffled_output);
  s.shuffled_output = hop.output.to_bytes();
  s.last = {};
  s.last.valid = true;
  s.last.type = FrameType::shuffled;
  s.last.round = r;
  s.last.received = batch_digest(batch);
  s.last.width = static_cast<std::uint32_t>(cw);
  s.last.count = static_cast<std::uint32_t>(hop.output.size());
  s.last.payload.clear();
  mixnet::append_hop(s.last.payload, hop);
  HopReport rep;
  rep.place = {s.config.session, r, s.hop};
  rep.records_in = in.size();
  rep.records_out = hop.output.size();
  rep.received = s.last.received;
  rep.sent = batch_digest(cw, s.shuffled_output);
  s.report.rounds.push_back(rep);
  if (auto refused = kept_or_refused(s, r, &Impl::keep_last, [&] {
        s.last = std::move(previous);
        s.shuffled_output = std::move(previous_output);
        s.report.rounds.pop_back();
      }))
    co_return refused;
  if (options.step) options.step("kept");
  send_last(s, link);
  after_round(s, r, in.size() > 0);
  if (options.gone_after_mix) {
    std::error_code ignored;
    acceptor.close(ignored);
    link.close_after_flush();
    end(s, "went away after the mix (fault injection)");
  }
  co_return std::nullopt;
}

// A verifiable chain's decrypt frame: this server's proved shares of the chain's output, once the
// evidence shows its own hop as it made it and every other hop's proof holds.
asio::awaitable<std::optional<Fault>> TcpMixServer::Impl::take_decrypt(Served& s, SecureLink& link, detail::Frame& f) {
  const std::uint32_t r = f.header.round;
  const std::string round = "round " + std::to_string(r);
  const BatchDigest digest = merkle::leaf(f.payload);  // the evidence as one record: its hash
  if (s.decrypted.valid && s.decrypted.round == r) {
    if (digest != s.decrypted_evidence)
      co_return refusal(FaultCode::duplicate, r, round + " was decrypted already, with other evidence: a server decrypts each round once");
    link.send(FrameType::decrypted, r, s.decrypted.width, s.decrypted.count, s.decrypted.payload);
    co_return std::nullopt;
  }
  if (!(s.last.valid && s.last.round == r && s.last.type == FrameType::shuffled))
    co_return refusal(FaultCode::wrong_round, r, round + ": nothing to decrypt here (this server decrypts only the output of the round it shuffled last)");
  if (options.step) options.step("evidence");
  const RoundShape& shape = s.config.rounds[r];
  const std::size_t limbs = chain_limbs(shape.width), cw = limbs * mixnet::ciphertext_bytes;
  // The evidence's checks and the shares, computed off the io thread: the answer or the refusal.
  std::optional<Fault> refused;
  mixnet::DecryptionShares shares;
  co_await compute(s, link, r, [&] { refused = decrypt_evidence(s, r, shape, cw, f, shares); });
  if (refused) co_return refused;
  Served::Last previous = std::move(s.decrypted);
  const BatchDigest previous_evidence = s.decrypted_evidence;
  s.decrypted = {};
  s.decrypted.valid = true;
  s.decrypted.type = FrameType::decrypted;
  s.decrypted.round = r;
  // Items of 32 bytes: the shares, then the proof's A, B and s.
  s.decrypted.width = static_cast<std::uint32_t>(mixnet::point_bytes);
  s.decrypted.count = static_cast<std::uint32_t>(shares.shares.size() + mixnet::DecryptionShares::proof_bytes / mixnet::point_bytes);
  s.decrypted.payload = shares.to_bytes();
  s.decrypted_evidence = digest;
  // Kept before they go out: a server started again gives the same evidence the same shares, and
  // refuses other evidence for the round (two decryptions of one round would link its records).
  if (auto kept_not = kept_or_refused(s, r, &Impl::keep_decrypted, [&] {
        s.decrypted = std::move(previous);
        s.decrypted_evidence = previous_evidence;
      }))
    co_return kept_not;
  if (options.step) options.step("shares");
  link.send(FrameType::decrypted, r, s.decrypted.width, s.decrypted.count, s.decrypted.payload);
  if (r + 1 == s.config.rounds.size()) end(s, "");
  co_return std::nullopt;
}

// A decrypt frame's evidence checked (its own hop as this server made it, every sender's proof,
// every other hop) and this server's proved shares of the last hop's output: the refusal, or
// none with `shares` made. Reads the session's state only (it runs off the io thread).
std::optional<Fault> TcpMixServer::Impl::decrypt_evidence(const Served& s, std::uint32_t r, const RoundShape& shape, std::size_t cw, const detail::Frame& f,
                                      mixnet::DecryptionShares& shares) {
  const std::string round = "round " + std::to_string(r);
  mixnet::RoundTranscript rt;
  try {
    rt = mixnet::decode_evidence(f.payload, r, shape.delivery, shape.record_width, round_key(s.config, shape.delivery), s.config.mix_chain.size(),
                                 f.header.count);
  } catch (const std::invalid_argument& e) {
    return refusal(FaultCode::malformed, r, e.what());
  }
  if (!rt.decryption.empty()) return refusal(FaultCode::malformed, r, round + ": the evidence to decrypt already carries decryption shares");
  if (rt.hops[s.hop].output.to_bytes() != s.shuffled_output)
    return refusal(FaultCode::output_mismatch, r, round + ": the evidence's hop " + std::to_string(s.hop) + " is not the batch this server sent",
                   s.hop);
  if (batch_digest(cw, rt.hops[s.hop - 1].output.to_bytes()) != s.last.received)
    return refusal(FaultCode::input_mismatch, r,
                   round + ": the evidence's hop " + std::to_string(s.hop - 1) + " is not the batch this server received", s.hop - 1);
  // Nothing is decrypted from a batch with a record its sender did not prove (a re-randomized copy
  // of another's record would have its plaintext shown twice).
  if (auto fault = mixnet::check_knowledge(knowledge_context(s.config, r, shape.delivery), rt.input, rt.input_proofs, threads()); !fault.empty())
    return refusal(FaultCode::proof_fails, r, round + ": the evidence's input is not the senders': " + fault);
  if (auto faults = mixnet::hop_faults(s.config.session, rt, signers_of(s.config.mix_chain), threads(), s.hop); !faults.empty())
    return refusal(FaultCode::proof_fails, r, round + ": " + faults.front());
  const mixnet::ProofContext dctx{s.config.session, r, static_cast<std::uint32_t>(rt.hops.size()), static_cast<std::uint32_t>(shape.record_width)};
  shares = mixnet::decryption_shares(dctx, s.hop, *s.share, rt.hops.back().output, rng, threads());
  return std::nullopt;
}

}  // namespace shufflempc::net
