// A verifiable chain of mix servers over TCP (docs/verifiable-shuffle.md): the keys every process
// derives, the records the entry admits, and what a receiver does with a round's evidence.
//
// Keys. Every mix server and the analyzer derive an ElGamal key from their X25519 key file
// (mixnet::derive_key) and publish it in the session config with a proof of possession bound to
// their X25519 key. A round delivered to every party (MPC mode) is encrypted under the servers'
// combined key (mixnet::combined_key: every server is needed to decrypt); a round delivered to the
// analyzer only (ESA mode) under the analyzer's key.
//
// A round. The parties encrypt each record (exponential ElGamal on 16-bit limbs) and submit it as
// on any link; the entry (the shuffler) admits the batch, re-encrypts, permutes and proves (hop 0),
// sends the batch to each further server in turn (FrameType::shuffle / shuffled), checking each
// proof as it arrives; in MPC mode it then sends the round's evidence to every server (decrypt /
// decrypted), each of which checks every other hop's proof before it returns its proved
// decryption shares. The result frame carries the evidence (mixnet::encode_evidence) and no
// records: each receiver checks every proof itself and decrypts (open_evidence).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net {

// The ElGamal key of an X25519 key file, and its public form with a proof of possession.
[[nodiscard]] mixnet::ElGamalKey elgamal_key_of(const KeyPair& keys);
[[nodiscard]] VerifiableKey verifiable_key_of(const KeyPair& keys, Rng& rng);
// "" if `key` is a canonical non-identity point with a proof of possession bound to `owner`;
// otherwise what is wrong.
[[nodiscard]] std::string check_verifiable_key(const VerifiableKey& key, const PublicKey& owner);

// The key a round's records are encrypted under, as the transcript names it: the servers' combined
// key in an all-parties round, the analyzer's (1 of 1) in an analyzer-only round.
[[nodiscard]] mixnet::ThresholdKey round_key(const SessionConfig& config, Delivery delivery);
// Server `hop`'s decryption key for an all-parties round of `config` (its share of the combined key).
[[nodiscard]] mixnet::ElGamalKey server_share(const SessionConfig& config, const KeyPair& keys, std::size_t hop);

// What `config` fixes about its verifiable chain, for mixnet::check_session (`shufflempc verify
// --config`): its session id, its servers' signing keys, and for every round its delivery, its
// records' limbs (0 for a round that does not cross the chain, as the shuffler decides) and the key
// they are encrypted under. Throws std::invalid_argument if the config has no verifiable chain.
[[nodiscard]] mixnet::SessionChain session_chain(const SessionConfig& config);

// Bytes on the wire of a record of `width` bytes: one ElGamal ciphertext (64 bytes) per 16-bit limb.
[[nodiscard]] std::size_t verifiable_width(std::size_t width);

// A closed round's records as the entry admits them into the chain: a record with a point that is
// not a canonical encoding, and an exact copy of an earlier record, are dropped and counted.
struct Admitted {
  mixnet::CiphertextBatch batch;
  std::size_t malformed = 0, duplicates = 0;
};
[[nodiscard]] Admitted admit_records(const MessageBatch& records, std::size_t limbs);

// The records of round `round` from its evidence, after every hop's proof of shuffle and every
// trustee's decryption proof has been checked against `config`'s keys. In an analyzer-only round
// `analyzer` (the analyzer's key file) decrypts, adding its proved shares to the transcript. The
// round's transcript (records included) is returned. `own` (if any) are the ciphertexts this
// process submitted: each must be in the batch the entry admitted (an entry that replaced records
// to isolate another sender's is caught by the senders it left out), checked first. Throws
// std::system_error: malformed_frame if the evidence does not parse (or holds more than
// `max_records`), protocol_violation naming each hop or trustee whose proof fails, or the number of
// own records missing. A record that does not decrypt to one of the round's width (a sender
// encrypted something outside it) is dropped and counted in `discarded`, as a sealed record that
// does not open is.
[[nodiscard]] mixnet::RoundTranscript open_evidence(const SessionConfig& config, std::uint32_t round, const RoundShape& shape,
                                                    std::span<const std::uint8_t> evidence, const KeyPair* analyzer,
                                                    std::size_t max_records, unsigned threads, const MessageBatch* own = nullptr,
                                                    std::size_t* discarded = nullptr);

}  // namespace shufflempc::net
