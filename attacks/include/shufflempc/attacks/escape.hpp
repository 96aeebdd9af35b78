// The two-round escape from the XOR-sum lower bound (docs/xor-sum.md).
//
// XS is computed EXACTLY inside the two-round circuit MPC (V1, BMR with two garblers and a helper;
// the users are input-only clients) and released with discrete-Laplace noise: error O(1/epsilon)
// instead of Omega(sqrt n). The generated circuit takes from user u the vector b_u onehot(j_u)
// (B bits; the column XORs are free) and a noise share eta_u (w bits, two's complement); it adds
// the popcount of the B column parities to sum_u eta_u mod 2^w (about B + n w AND gates).
//
// Each noise share is Polya(1/h, a) - Polya(1/h, a), a = exp(-epsilon), so the h users of the
// honest half produce DLap(epsilon) on their own, whatever the attacker's users send (it sends no
// noise: it wants accurate answers).
//
// The harness records one execution as the attacker sees it: everything the shuffle delivered in
// round 2 (the XOR of the three computing parties' round-2 messages: the garbled circuit, the
// active input labels, the masks) and the whole state of ONE corrupted computing party, G1,
// garbling secrets included. Then:
//   (a) replay    re-evaluate the recorded garbled circuit: always the same single answer
//   (b) forge     change the attacker's own inputs y -> y' on the recorded labels: G1 knows
//                 Delta^1 but not Delta^2, so the forged labels decrypt to keys G1 can see are
//                 invalid (K^1 not in {k^1, k^1 ^ Delta^1}) and the output is garbage
//   (c) re-run    ask the honest parties again, k times: k answers cost k epsilon
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/protocols/circuit/bmr.hpp"
#include "shufflempc/protocols/circuit/bristol.hpp"
#include "shufflempc/attacks/xor_sum.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

namespace shufflempc::attacks {

// The generated circuit. Input group u (one per user): B bits b onehot(j), then w bits of the
// noise share, least significant first. One output group: w bits, XS + sum of shares mod 2^w.
class XorSumCircuit {
 public:
  XorSumCircuit(std::size_t users, std::uint32_t buckets, std::uint32_t width);

  [[nodiscard]] const circuit::Circuit& circuit() const { return *circuit_; }
  [[nodiscard]] std::shared_ptr<const circuit::Circuit> shared() const { return circuit_; }
  [[nodiscard]] std::size_t users() const { return users_; }
  [[nodiscard]] std::uint32_t buckets() const { return buckets_; }
  [[nodiscard]] std::uint32_t width() const { return width_; }
  // The Bristol Fashion text (the circuit is built as this text and parsed, so the parser's checks
  // apply to it).
  [[nodiscard]] const std::string& bristol() const { return text_; }

  // One user's input bits, and the output decoded as a signed integer.
  [[nodiscard]] std::vector<std::uint8_t> user_bits(const xor_sum::Item& x, std::int64_t noise) const;
  [[nodiscard]] std::int64_t decode(std::span<const std::uint8_t> output_bits) const;

 private:
  std::size_t users_;
  std::uint32_t buckets_, width_;
  std::string text_;
  std::shared_ptr<const circuit::Circuit> circuit_;
};

// The width that holds XS in [0, B] plus the noise with probability 1 - 1e-20 or better.
[[nodiscard]] std::uint32_t escape_width(std::uint32_t buckets, double epsilon);
// One honest user's noise share: Polya(1/honest, a) - Polya(1/honest, a), a = exp(-epsilon).
[[nodiscard]] std::int64_t noise_share(double epsilon, std::size_t honest, Rng& rng);

struct EscapeOptions {
  std::size_t parties = 0;  // n users: h = n/2 secret users (buckets 0..h-1) and h attacker users
  double epsilon = 1;       // per execution, for a change of one user's bit
};

struct Recording {
  std::vector<std::uint8_t> payload;  // round 2 as delivered: the garbled circuit, labels, masks
  circuit::bmr::Holdings corrupted;   // G1 after round 1, its garbling secrets included
  std::vector<std::uint8_t> y;        // the attacker's inputs in that execution
  std::int64_t answer = 0;            // what the execution released
  std::int64_t noise = 0;             // the honest half's noise (the harness knows it; the attacker does not)
};

struct Forgery {
  std::size_t wires_changed = 0;  // input wires whose labels were forged
  std::size_t invalid_keys = 0;   // AND outputs whose K^1 is neither k^1 nor k^1 ^ Delta^1
  std::size_t and_gates = 0;
  std::int64_t output = 0;        // what the forged evaluation decodes to
  std::int64_t wanted = 0;        // d_H(x, y') + the recorded noise: what a working forgery would give
  [[nodiscard]] bool detected() const { return invalid_keys > 0; }
};

class EscapeHarness {
 public:
  explicit EscapeHarness(const EscapeOptions& o);

  [[nodiscard]] const XorSumCircuit& circuit() const { return circuit_; }
  [[nodiscard]] std::size_t half() const { return h_; }
  [[nodiscard]] double epsilon() const { return epsilon_; }

  // One honest execution of V1 with the secret half x and the attacker's half y (h bits each):
  // the three computing parties' round-1 dealing and round-2 shares, run in process with the
  // functions the circuit protocol runs, and the evaluation of their XOR.
  [[nodiscard]] Recording execute(std::span<const std::uint8_t> x, std::span<const std::uint8_t> y, Rng& rng) const;
  // The same functionality evaluated in the clear (what every execution releases, in distribution).
  [[nodiscard]] std::int64_t ideal(std::span<const std::uint8_t> x, std::span<const std::uint8_t> y, Rng& rng) const;
  // (a)
  [[nodiscard]] std::int64_t replay(const Recording& r) const;
  // (b) y' for the attacker's half on the recorded execution; the guesses of Delta^2 from rng.
  [[nodiscard]] Forgery forge(const Recording& r, std::span<const std::uint8_t> x, std::span<const std::uint8_t> y_new, Rng& rng) const;

  // The inputs of all n users.
  [[nodiscard]] std::vector<std::uint8_t> inputs(std::span<const std::uint8_t> x, std::span<const std::uint8_t> y, Rng& rng,
                                                 std::int64_t* noise = nullptr) const;

 private:
  std::size_t h_;  // n/2: the secret half and the attacker's
  double epsilon_;
  XorSumCircuit circuit_;
  circuit::bmr::Layout layout_;
};

}  // namespace shufflempc::attacks
