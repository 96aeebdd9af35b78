// The wire format of the TCP transport: one fixed, versioned frame header and the handshake hello.
//
// Every frame on an established link is  seq (8, clear) | header (40, encrypted) | tag (16) |
// payload (payload_length, encrypted) | tag (16). The header is decrypted and every field checked
// (decode_header) before a single payload byte is read, so a peer cannot make the receiver allocate
// or wait for more than the limits allow. All integers are little-endian.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/hex.hpp"

namespace shufflempc::net {

inline constexpr std::uint32_t frame_magic = 0x434d5053;  // "SPMC" on the wire
inline constexpr std::uint32_t hello_magic = 0x484d5053;  // "SPMH"
// 2: the hello carries the session config digest. 3: one link carries a range of parties (the hello
// names first and count, the submit frame one count per party). 4: the identity proof hashes the
// aligned blocks that tile the claimed range (detail::IdentityTree), so the shuffler checks any
// range in O(log n). 5: chains of mix servers (the mix and mixed frames, the entry's identity, the
// hop reports in a result). 6: verifiable chains (the shuffle, shuffled, decrypt and decrypted
// frames; a result's evidence). 7: every hop of a verifiable chain signed by its server (the
// shuffled frame and the evidence carry the signatures). 8: receipts and verdicts (a party link's
// result ends with its receipt; the verdict frame, party link -> analyzer; batch digests are
// Merkle roots). 9: the alive frame. 10: a verifiable chain's submitted records carry their
// senders' proofs of plaintext knowledge, and a round's evidence the proofs of the records admitted.
// 11: the distributed key generation of a verifiable chain (the dkg and dkg_answer frames).
// 12: a verifiable round's record width in the config, under every proof and signature. 13: a
// verifiable record is one ciphertext of a point that carries it, and a decrypted frame a server's
// shares with one proof for all of them. 14: an analyzer-only round of a verifiable chain is
// encrypted under the servers' key plus the analyzer's, and the servers decrypt it (decrypt frames).
inline constexpr std::uint16_t wire_version = 14;
inline constexpr std::size_t public_key_bytes = 32;
inline constexpr std::size_t secret_key_bytes = 32;
// The analyzer's identity on the wire (parties are 0 .. n-1).
inline constexpr PartyId analyzer_id = 0xffff'ffffu;
// The entry of a chain of mix servers (the shuffler) on its links to the further servers.
inline constexpr PartyId entry_id = 0xffff'fffeu;

using PublicKey = std::array<std::uint8_t, public_key_bytes>;
inline constexpr std::size_t config_digest_bytes = 32;
// BLAKE2b-256 of the session config (SessionConfig::digest): every process of a session must hold
// the same protocol, parameters, parties, keys and limits, or the shuffler refuses it.
using ConfigDigest = std::array<std::uint8_t, config_digest_bytes>;

enum class FrameType : std::uint16_t {
  confirm = 1,  // key confirmation, first frame each way (empty payload)
  submit = 2,   // link -> shuffler: the batches of the link's parties for `round` (encode_submit)
  result = 3,   // shuffler -> endpoint: the round's outcome (and output, if delivered here)
  abort = 4,    // shuffler -> endpoint: the session (or this link) ended; payload = reason (UTF-8)
  mix = 5,      // entry -> mix server: a round's batch of onion records (payload: count x width bytes)
  mixed = 6,    // mix server -> entry: its signed report, then the peeled, shuffled records
  // A verifiable chain (docs/verifiable-shuffle.md): records are ElGamal ciphertexts.
  shuffle = 7,    // entry -> mix server: a round's batch (payload: count x width bytes)
  shuffled = 8,   // mix server -> entry: the re-encrypted, permuted batch (count x width), then its proof of shuffle
  decrypt = 9,    // entry -> mix server: the round's evidence (mixnet::encode_evidence), count = its records
  decrypted = 10, // mix server -> entry: its proved decryption shares (width = bytes per share, count = shares)
  done = 11,      // analyzer -> shuffler: the session's last result arrived (empty payload); the link then closes
  // On a party link's own connection to the analyzer (never through the shuffler): what its
  // parties make of a round's receipt (encode_verdict).
  verdict = 12,
  // Party link -> shuffler, while its parties still prepare the round's batch (sealing, wrapping;
  // empty payload): they are alive, so the round waits for them (docs/network.md, "Deadlines").
  alive = 13,
  // The distributed key generation of a verifiable chain (net/dkg.hpp), before the session: the
  // coordinator (the shuffler's key) asks each further server for its message of step `round`
  // (1-4; 5: the whole transcript, for the server to check its share), and the server answers with
  // its signed message (5: empty).
  dkg = 14,
  dkg_answer = 15,
  // Shuffler -> party link, from a shuffler with a state directory (net/store.hpp), once the link's
  // batch of `round` is on disk: the batch's digest (Admission::digest) and the shuffler's
  // signature of admission_statement (admitted_payload_bytes; no messages).
  admitted = 16,
};
inline constexpr std::uint16_t max_frame_type = 16;
// Bytes a mixed frame may carry beside its records (the server's signed report).
inline constexpr std::size_t max_mixed_extra = 4096;

struct FrameHeader {
  std::uint32_t magic = frame_magic;
  std::uint16_t version = wire_version;
  FrameType type = FrameType::confirm;
  SessionId session{};
  std::uint32_t round = 0;
  std::uint32_t width = 0;           // message width in bytes (0 when no messages)
  std::uint32_t count = 0;           // messages carried
  std::uint32_t payload_length = 0;  // bytes after the header
};
// The adversary harness of the tests (net/adversary.hpp): a frame as a process is about to
// send it on a link that has a tap. The tap may rewrite any field (the header's and the payload's
// bytes, which are then sent as they are, payload_length following the payload) and says what
// becomes of it. Production code sets no tap: a link without one sends exactly what it is given.
struct OutgoingFrame {
  FrameType type = FrameType::confirm;
  SessionId session{};
  std::uint32_t round = 0;
  std::uint32_t width = 0;
  std::uint32_t count = 0;
  std::vector<std::uint8_t> payload;
};
enum class TapAction {
  send,       // the frame as the tap left it
  withhold,   // nothing is sent; the link stays open
  duplicate,  // sent twice, each with its own sequence number
  close,      // nothing is sent and the link closes at once
};
using FrameTap = std::function<TapAction(OutgoingFrame&)>;

inline constexpr std::size_t frame_header_bytes = 4 + 2 + 2 + session_id_bytes + 4 + 4 + 4 + 4;
static_assert(frame_header_bytes == 40, "the frame header is 40 bytes on the wire");
inline constexpr std::size_t aead_tag_bytes = 16;
inline constexpr std::size_t sequence_bytes = 8;
// What is read before the payload: clear sequence number, encrypted header, its tag.
inline constexpr std::size_t frame_prefix_bytes = sequence_bytes + frame_header_bytes + aead_tag_bytes;

// Size limits every receiver enforces before reading a payload.
struct Limits {
  std::uint32_t max_width = (1u << 16) + 48;      // bytes per message (sealed messages included)
  std::uint32_t max_count = 1u << 24;             // messages per frame
  std::uint32_t max_payload = 256u << 20;         // bytes per frame payload
  std::uint32_t max_parties = 100'000'000;        // ids in a result frame
  std::uint32_t max_abort_reason = 4096;          // bytes of an abort reason
};

// Connections not yet authenticated that a server (the shuffler, the analyzer's verdict port) holds
// at once by default: past it the oldest is closed, so a flood of idle sockets churns through its
// own connections while an honest handshake (milliseconds) completes.
inline constexpr std::size_t default_max_unauthenticated = 1024;

[[nodiscard]] std::array<std::uint8_t, frame_header_bytes> encode_header(const FrameHeader& h);
// Parses and validates a decrypted header field by field: magic, version, type, session, width,
// count, payload length against the type and `limits`. Throws std::system_error (Errc) naming the
// field: malformed_frame, oversized_frame or wrong_session.
[[nodiscard]] FrameHeader decode_header(std::span<const std::uint8_t> bytes, const SessionId& session,
                                        const Limits& limits);

// The handshake's first message, client -> shuffler, in the clear (it carries public values only).
// A link speaks for the parties first .. first + count - 1 (every one proves its key in the key
// derivation, see detail/link.hpp), or for the analyzer (first = analyzer_id, count = 1).
struct Hello {
  std::uint32_t magic = hello_magic;
  std::uint16_t version = wire_version;
  std::uint16_t reserved = 0;
  SessionId session{};
  PartyId first = 0;            // the first party id claimed, or analyzer_id
  std::uint32_t count = 1;      // parties claimed (1 for the analyzer)
  PublicKey ephemeral_key{};    // fresh for this connection
  ConfigDigest config{};        // the digest of the session config this client holds
};
inline constexpr std::size_t hello_bytes = 4 + 2 + 2 + session_id_bytes + 4 + 4 + public_key_bytes + config_digest_bytes;
static_assert(hello_bytes == 96, "the hello is 96 bytes on the wire");
// The shuffler's reply: magic, version, reserved, session, its ephemeral key.
inline constexpr std::size_t hello_reply_bytes = 4 + 2 + 2 + session_id_bytes + public_key_bytes;
static_assert(hello_reply_bytes == 56, "the hello reply is 56 bytes on the wire");

[[nodiscard]] std::array<std::uint8_t, hello_bytes> encode_hello(const Hello& h);
// Checks magic and version (malformed_frame); the session and the key are the caller's to check.
[[nodiscard]] Hello decode_hello(std::span<const std::uint8_t> bytes);

// The payload of a submit frame: one little-endian u32 per party of the link, in id order (its
// message count this round, or submit_absent: the party leaves the session), then the messages
// back to back in that order. The header's count is the total, its width the round's wire width.
inline constexpr std::uint32_t submit_absent = 0xffff'ffffu;
[[nodiscard]] std::vector<std::uint8_t> encode_submit(std::span<const std::uint32_t> counts, std::span<const std::uint8_t> messages);
struct SubmitPayload {
  std::vector<std::uint32_t> counts;      // one per party of the link
  std::span<const std::uint8_t> messages;  // header.count * header.width bytes
};
// Validates a submit payload against its (already validated) header and the link's `parties`:
// the counts add up to the header's count. Throws std::system_error(malformed_frame).
[[nodiscard]] SubmitPayload decode_submit(const FrameHeader& h, std::span<const std::uint8_t> payload, std::size_t parties);

using RecordDigest = std::array<std::uint8_t, 32>;

// What one link submitted in one round, as the shuffler accepted it (a submit frame's content):
// its first party, one count a party (submit_absent: the party left the session) and the
// messages, `width` bytes each, in party order. What a shuffler with a state directory keeps, and
// what its admission receipt names.
struct Admission {
  std::uint32_t round = 0;
  PartyId first = 0;
  std::vector<std::uint32_t> counts;
  std::uint32_t width = 0;
  std::vector<std::uint8_t> messages;

  // BLAKE2b-256 of every field above, domain-separated: what a receipt of it binds.
  [[nodiscard]] RecordDigest digest() const;
  bool operator==(const Admission&) const = default;
};

// An admitted frame's payload: the admission's digest, then the shuffler's Ed25519 signature of
// admission_statement(session, round, first, digest).
inline constexpr std::size_t admitted_payload_bytes = 32 + 64;
// What a party link keeps of an admitted frame once it has checked it: the batch it sent (whose
// round and first party the statement names), its digest and the shuffler's signature, which
// anyone holding the session config can check (transferable: net/batch_commitment.hpp checks it
// against the batch the shuffler later committed to).
struct AdmissionReceipt {
  Admission batch;
  RecordDigest digest{};
  std::array<std::uint8_t, 64> signature{};
};
[[nodiscard]] std::vector<std::uint8_t> admission_statement(const SessionId& session, std::uint32_t round, PartyId first,
                                                            const RecordDigest& digest);

// The payload of a result frame: the counts, the id lists, the chain's signed hop reports (none
// without a chain; net/mix_hop.hpp decodes them), a verifiable chain's evidence of the round (none
// otherwise; mixnet::decode_evidence reads it), the output, and last, to a link of parties whose
// records crossed a chain, their receipt (net/receipts.hpp; the bytes after the output).
struct ResultPayload {
  std::uint64_t messages = 0;       // messages in the round's output (delivered here or not)
  std::vector<PartyId> submitted;   // ascending
  std::vector<PartyId> dropped;     // ascending
  std::span<const std::uint8_t> reports;  // at most max_reports_bytes
  std::span<const std::uint8_t> evidence;
  std::span<const std::uint8_t> output;  // header.count * header.width bytes, or empty
  std::span<const std::uint8_t> receipt;  // what follows the output (decode_receipt reads it)
};
inline constexpr std::size_t max_reports_bytes = 1 << 16;
[[nodiscard]] std::vector<std::uint8_t> encode_result(std::uint64_t messages, std::span<const PartyId> submitted,
                                                      std::span<const PartyId> dropped, std::span<const std::uint8_t> reports,
                                                      std::span<const std::uint8_t> output, std::span<const std::uint8_t> evidence = {});
// The result payload's size before the output bytes.
[[nodiscard]] std::size_t result_prefix_bytes(std::size_t submitted, std::size_t dropped, std::size_t report_bytes = 0,
                                              std::size_t evidence_bytes = 0);
// Validates a result payload against its (already validated) header: id lists ascending, below
// `parties`, disjoint in count from the output size. Throws std::system_error(malformed_frame).
[[nodiscard]] ResultPayload decode_result(const FrameHeader& h, std::span<const std::uint8_t> payload,
                                          std::size_t parties, const Limits& limits);

// The payload of a verdict frame, sent by a link of parties straight to the analyzer after a round
// whose records crossed a chain (docs/mix-chain.md, "Receipts and complaints"): the root of the
// batch the entry committed to (as its receipt showed it), one verdict per party of the link (the
// header's count), and for a complaint one line saying what was wrong.
enum class Verdict : std::uint8_t {
  absent = 0,     // the party did not submit this round (it left, or had left)
  confirmed = 1,  // its records are in the committed batch, once each
  complaint = 2,  // they are not, or it submitted and was counted as dropped
};
inline constexpr std::size_t verdict_root_bytes = 32;
struct VerdictPayload {
  std::array<std::uint8_t, verdict_root_bytes> root{};
  std::vector<Verdict> parties;
  std::string reason;
};
[[nodiscard]] std::vector<std::uint8_t> encode_verdict(const VerdictPayload& verdict);
// Throws std::system_error(malformed_frame).
[[nodiscard]] VerdictPayload decode_verdict(const FrameHeader& h, std::span<const std::uint8_t> payload);

}  // namespace shufflempc::net
