// A t-of-k ElGamal key made by the k servers of a chain together, with no dealer: Pedersen's
// distributed key generation ("A threshold cryptosystem without a trusted party", EUROCRYPT 1991)
// with Feldman's commitments (FOCS 1987), its complaints and disqualification as Gennaro, Jarecki,
// Krawczyk and Rabin state them ("Secure distributed key generation for discrete-log based
// cryptosystems", J. Cryptology 2007, Fig. 1 steps 1-3), and a hash commitment before the deals.
//
// Every server i draws a polynomial f_i of degree t - 1 and deals: the commitments A_{i,j} =
// a_{i,j}·G, and for each server m the share s_{i,m} = f_i(m + 1), sealed to m's X25519 key
// (crypto_box: only m opens it). The steps, each message signed by its server's Ed25519 key over
// the setup's digest, the step and the server:
//   1. commit:  BLAKE2b-256 of the deal it will reveal (so no deal can depend on another's);
//   2. deal:    the deal;
//   3. complain: the dealers whose share to it does not open or is not on their commitments
//                (s·G != Σ_j (m + 1)^j A_{i,j});
//   4. justify: for each complaint against it, the share in the clear.
// A dealer is disqualified if it did not commit or deal, dealt something other than it committed
// to, drew t or more complaints (its answers would reveal its secret), or answered a complaint
// with a share off its commitments or not at all. The key is Y = Σ_{i ∈ QUAL} A_{i,0}, its
// commitments A_j = Σ A_{i,j}, server m's share x_m = Σ_{i ∈ QUAL} s_{i,m} (the sealed share, or
// the one revealed for m's complaint) and its public share Y_m = Σ_j (m + 1)^j A_j: a
// mixnet::ThresholdKey, used by the decryption proofs and the transcript unchanged.
//
// The transcript holds every message, so anyone recomputes QUAL and the key from it, and each
// server recomputes its own share from it and its key file: nothing secret is kept between the
// key generation and the session. What it does not give: a uniformly distributed key against a
// dealer that withholds its deal after seeing the others' (the coordinator, who relays, sees them
// first, and can choose between Y and Y minus its own part; Gennaro et al. show the key stays
// secure for ElGamal-style use). Secrecy holds while fewer than t servers collude.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/mixnet/threshold.hpp"

namespace shufflempc::mixnet {

using BoxPublicKey = std::array<std::uint8_t, 32>;  // an X25519 key (crypto_box)
using DkgDigest = std::array<std::uint8_t, 32>;

// Who makes the key, for which session, with which threshold; server 0 coordinates (relays).
struct DkgSetup {
  SessionId session{};
  std::size_t threshold = 1;
  std::vector<BoxPublicKey> box_keys;     // server i's X25519 key: its shares are sealed to it
  std::vector<SigningPublicKey> signers;  // server i's Ed25519 key: it signs its messages
  [[nodiscard]] std::size_t servers() const { return box_keys.size(); }
  // "" if 1 <= t <= k, 2 <= k <= max_trustees, one signer per server, no key twice; else what is wrong.
  [[nodiscard]] std::string check() const;
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  // Throws std::invalid_argument naming `what` (then check() must be empty too).
  [[nodiscard]] static DkgSetup from_bytes(std::span<const std::uint8_t> bytes, const std::string& what);
  // BLAKE2b-256 of a label and to_bytes(): what every message is signed over.
  [[nodiscard]] DkgDigest digest() const;
  friend bool operator==(const DkgSetup&, const DkgSetup&) = default;
};

enum class DkgStep : std::uint8_t { commit = 1, deal = 2, complain = 3, justify = 4 };
inline constexpr std::size_t dkg_steps = 4;
[[nodiscard]] std::string to_string(DkgStep step);

// A signed message of one step: its body (the layouts in docs/verifier.md) and server's signature.
struct DkgMessage {
  std::vector<std::uint8_t> body;
  Signature signature{};
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;  // body || signature
  // Throws std::invalid_argument naming `what` if shorter than a signature.
  [[nodiscard]] static DkgMessage from_bytes(std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const DkgMessage&, const DkgMessage&) = default;
};
// What server `server` signs for `step`: a label, the setup's digest, the step, the server, the body.
[[nodiscard]] std::vector<std::uint8_t> dkg_statement(const DkgSetup& setup, DkgStep step, std::size_t server,
                                                      std::span<const std::uint8_t> body);

using SealedShare = std::array<std::uint8_t, scalar_bytes + 16>;
struct Deal {
  std::vector<Point> commitments;   // A_0 .. A_{t-1}
  std::vector<SealedShare> shares;  // to server 0 .. k-1
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  // Throws std::invalid_argument naming `what`: a wrong size for the setup, a point not canonical.
  [[nodiscard]] static Deal from_bytes(const DkgSetup& setup, std::span<const std::uint8_t> bytes, const std::string& what);
  // Whether `share` is on the commitments at server `recipient`'s point.
  [[nodiscard]] bool holds(std::size_t recipient, const Scalar& share) const;
};
struct Justification {
  std::uint32_t recipient = 0;
  Scalar share;
};

struct DkgTranscript;

// One server's side of the key generation, step by step (its own messages, signed). The net
// transport's servers and the coordinator (server 0) each run one; tests run k of them.
class DkgParticipant {
 public:
  // `box_secret` is this server's X25519 secret (its key file); `signing` its Ed25519 key.
  DkgParticipant(DkgSetup setup, std::size_t index, std::span<const std::uint8_t> box_secret, SigningKeyPair signing, Rng& rng);
  ~DkgParticipant();
  DkgParticipant(const DkgParticipant&) = delete;
  DkgParticipant& operator=(const DkgParticipant&) = delete;
  [[nodiscard]] std::size_t index() const { return index_; }
  [[nodiscard]] const DkgSetup& setup() const { return setup_; }
  // Fault injection (tests, `mix-server --fault-dkg-bad-share`): seal a wrong share to `recipient`
  // and answer its complaint with that same wrong share.
  void deal_bad_share_to(std::size_t recipient);
  [[nodiscard]] DkgMessage commit() const;
  [[nodiscard]] DkgMessage deal() const;
  // Given every server's step-2 message (nullopt: none arrived), the dealers this server complains about.
  [[nodiscard]] DkgMessage complain(std::span<const std::optional<DkgMessage>> deals) const;
  // Given every server's step-3 message, the shares it reveals to answer the complaints against it.
  [[nodiscard]] DkgMessage justify(std::span<const std::optional<DkgMessage>> complaints) const;
  // This server's consent to the outcome of `transcript` (its signature of dkg_outcome_statement),
  // once its own share opens from it and lies on the key's commitments. Throws
  // std::invalid_argument naming what does not hold. (The caller checks that the transcript holds
  // this server's messages as it sent them: the net server does.)
  [[nodiscard]] Signature endorse(const DkgTranscript& transcript) const;

 private:
  [[nodiscard]] DkgMessage sign(DkgStep step, std::vector<std::uint8_t> body) const;
  DkgSetup setup_;
  std::size_t index_;
  std::array<std::uint8_t, 32> box_secret_{};
  SigningKeyPair signing_;
  Deal deal_;
  std::vector<Scalar> shares_;  // f(m + 1) for every m, in the clear (for justifications)
  std::optional<std::size_t> bad_to_;
};

// Every message of a key generation: messages[i][s - 1] is server i's message of step s, if it sent
// one; endorsements[i], server i's signature of the outcome (dkg_outcome_statement), if it gave it.
struct DkgTranscript {
  DkgSetup setup;
  std::vector<std::array<std::optional<DkgMessage>, dkg_steps>> messages;
  std::vector<std::optional<Signature>> endorsements;  // one per server (empty: none yet)
  // The setup and the messages, then (with_endorsements) a presence byte and a signature per server.
  [[nodiscard]] std::vector<std::uint8_t> to_bytes(bool with_endorsements = true) const;
  [[nodiscard]] static DkgTranscript from_bytes(std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const DkgTranscript&, const DkgTranscript&) = default;
};

// Whether `message` is a well-formed, signed step-`step` message of server `server` (the
// coordinator keeps only those): "" or what is wrong.
[[nodiscard]] std::string check_dkg_message(const DkgSetup& setup, DkgStep step, std::size_t server, const DkgMessage& message);

struct DkgOutcome {
  ThresholdKey key;
  std::vector<std::uint32_t> qualified;                          // QUAL, ascending
  std::vector<std::pair<std::uint32_t, std::string>> disqualified;  // each dealer left out, and why
};
// QUAL and the key, from the transcript alone. Throws std::invalid_argument naming `what` if the
// transcript is not one (a setup that fails check(), a message not well formed or not signed by its
// server, a deal without its commitment) or if fewer than t dealers qualify (then fewer than t
// servers could hold the whole key between them). The endorsements are check_endorsements'.
[[nodiscard]] DkgOutcome dkg_outcome(const DkgTranscript& transcript, const std::string& what);

// What every qualified server signs once the key is made, and what makes the outcome stand (the
// consent of every server it speaks for; Gennaro, Jarecki, Krawczyk and Rabin's QUAL): a label, the
// setup's digest, BLAKE2b-256 of the transcript's setup and messages (to_bytes without the
// endorsements), QUAL (u32 count, u32 each) and the key's commitments.
[[nodiscard]] std::vector<std::uint8_t> dkg_outcome_statement(const DkgTranscript& transcript, const DkgOutcome& outcome);
// Throws std::invalid_argument naming `what` and the server unless every server of QUAL signed the
// outcome statement with its signing key (a coordinator that leaves servers out of the transcript,
// or disqualifies them, cannot make a key in their name: those left in must consent).
void check_endorsements(const DkgTranscript& transcript, const DkgOutcome& outcome, const std::string& what);

// Server `index`'s share of the key: Σ over QUAL of the share each dealer sealed to it (or revealed
// for its complaint), with its public share. Throws std::invalid_argument if a qualified dealer's
// share does not open with `box_secret` or is off its commitments (the server should have
// complained), or the sum is not the public share.
[[nodiscard]] ElGamalKey dkg_share(const DkgTranscript& transcript, const DkgOutcome& outcome, std::size_t index,
                                   std::span<const std::uint8_t> box_secret);

// The whole key generation in one process (tests and benchmarks): participant i is server i, and
// each takes its steps in turn, then endorses the outcome.
[[nodiscard]] DkgTranscript run_dkg_locally(std::span<DkgParticipant* const> participants);

}  // namespace shufflempc::mixnet
