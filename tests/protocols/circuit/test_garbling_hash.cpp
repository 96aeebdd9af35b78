// The garbling hash (circuit/garble.hpp): fixed-key AES as the tweakable correlation-robust hash
// of Guo, Katz, Wang and Yu against a value computed outside shufflempc, the batched calls against
// single ones, the tweaks separating gates and sides, and both hashes through half-gates and BMR.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/protocols/circuit/garble.hpp"
#include "shufflempc/protocols/circuit/half_gates.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/registry.hpp"
#include "support/paths.hpp"

using namespace shufflempc;
using namespace shufflempc::circuit;

namespace {

std::string hex_of(const Block& b) {
  std::uint8_t bytes[16];
  b.store(bytes);
  return to_hex(std::span<const std::uint8_t>(bytes, 16));
}

}  // namespace

TEST_CASE("garbling hash: fixed-key AES matches a value computed with the openssl and b2sum tools") {
  // The fixed key and the four blocks of H(K, gate 5, side 1) for K = (lo 0x0123456789abcdef,
  // hi 0xfedcba9876543210), computed outside shufflempc:
  //   key=$(printf '%s' "shufflempc garbling hash: fixed AES-128 key" | b2sum -l 128 | cut -d' ' -f1)
  //   (0acf9f6a320a92878b0957e318ab22c1)
  //   sigma(K) = (lo xor hi, lo); block j = AES_key(sigma(K) xor (5, 256 + j)) xor sigma(K), each
  //   half little-endian, AES by `openssl enc -aes-128-ecb -K $key -nopad` on the 16 bytes.
  const Block k{0x0123456789abcdefull, 0xfedcba9876543210ull};
  Block out[4];
  hash4(GarblingHash::aes, k, 5, 1, out);
  CHECK(hex_of(out[0]) == "842f8e006bc974c8ce64bc3b2f79aa5f");
  CHECK(hex_of(out[1]) == "244fcde47d3279e463a3d62f7665f38d");
  CHECK(hex_of(out[2]) == "a70d54c71c622cf4c3f4a950d198deb7");
  CHECK(hex_of(out[3]) == "5f6dcdf9c0e21fe6b1bd9e4d719df37f");
}

TEST_CASE("garbling hash: a batch is its single calls, and gates, sides and blocks are separated") {
  SeededRng rng(31);
  for (const auto h : {GarblingHash::aes, GarblingHash::chacha20}) {
    CAPTURE(to_string(h));
    Block keys[8];
    std::uint8_t sides[8];
    for (int i = 0; i < 8; ++i) {
      keys[i] = Block::random(rng);
      sides[i] = static_cast<std::uint8_t>(i % 2);
    }
    Block four[8][4], one[8];
    hash4_many(h, keys, 77, sides, 8, four);
    hash1_many(h, keys, 77, sides, 8, one);
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    for (int i = 0; i < 8; ++i) {
      Block single[4];
      hash4(h, keys[i], 77, sides[i], single);
      for (int j = 0; j < 4; ++j) {
        CHECK(single[j] == four[i][j]);
        seen.insert({four[i][j].lo, four[i][j].hi});
      }
      CHECK(one[i] == four[i][0]);
    }
    CHECK(seen.size() == 32);
    // The same key under another gate or side, and related keys (K, K xor Delta), hash apart.
    Block a[4], b[4], c[4], d[4];
    hash4(h, keys[0], 77, 0, a);
    hash4(h, keys[0], 78, 0, b);
    hash4(h, keys[0], 77, 1, c);
    hash4(h, keys[0] ^ keys[1], 77, 0, d);
    CHECK(!(a[0] == b[0]));
    CHECK(!(a[0] == c[0]));
    CHECK(!(a[0] == d[0]));
  }
  CHECK_THROWS_AS(hash1_many(GarblingHash::aes, nullptr, 0, nullptr, 9, nullptr), std::logic_error);
}

TEST_CASE("garbling hash: any number of blocks a key, whose first four are hash4's, all distinct, in batches across keys") {
  SeededRng rng(33);
  for (const auto h : {GarblingHash::aes, GarblingHash::chacha20}) {
    CAPTURE(to_string(h));
    for (const std::size_t per : {std::size_t{1}, std::size_t{4}, std::size_t{6}, std::size_t{33}, std::size_t{256}}) {
      CAPTURE(per);
      Block keys[5];
      std::uint8_t sides[5];
      for (int i = 0; i < 5; ++i) {
        keys[i] = Block::random(rng);
        sides[i] = static_cast<std::uint8_t>(i % 2);
      }
      std::vector<Block> all(5 * per);
      hash_blocks(h, keys, 9, sides, 5, per, all.data());
      std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
      for (std::size_t i = 0; i < 5; ++i) {
        Block four[4];
        hash4(h, keys[i], 9, sides[i], four);
        for (std::size_t b = 0; b < std::min<std::size_t>(per, 4); ++b) CHECK(all[i * per + b] == four[b]);
        std::vector<Block> alone(per);
        hash_blocks(h, &keys[i], 9, &sides[i], 1, per, alone.data());
        for (std::size_t b = 0; b < per; ++b) {
          CHECK(alone[b] == all[i * per + b]);
          seen.insert({all[i * per + b].lo, all[i * per + b].hi});
        }
      }
      CHECK(seen.size() == 5 * per);
    }
    Block k{1, 2}, out[1];
    const std::uint8_t side = 0;
    CHECK_THROWS_AS(hash_blocks(h, &k, 0, &side, 1, 0, out), std::logic_error);
    CHECK_THROWS_AS(hash_blocks(h, &k, 0, &side, 1, 257, out), std::logic_error);
  }
}

TEST_CASE("garbling hash: half-gates AES-128 and the circuit protocol give the same outputs with either hash") {
  SeededRng rng(32);
  const Circuit aes = load(std::string(SHUFFLEMPC_CIRCUITS_DIR) + "/aes_128.txt");
  std::vector<std::uint8_t> x = bits_from_hex("000102030405060708090a0b0c0d0e0f", 128, "key");
  const auto pt = bits_from_hex("00112233445566778899aabbccddeeff", 128, "pt");
  x.insert(x.end(), pt.begin(), pt.end());
  for (const auto h : {GarblingHash::aes, GarblingHash::chacha20}) {
    CAPTURE(to_string(h));
    const auto g = half_gates::garble(aes, rng, h);
    std::vector<Block> active(x.size());
    for (std::size_t w = 0; w < x.size(); ++w) active[w] = g.zero_labels[w] ^ g.delta.times(x[w]);
    CHECK(hex_from_bits(half_gates::evaluate(aes, half_gates::encode_public(g), active, h)) == "69c4e0d86a7b0430d8cdb78070b4c55a");
    // Evaluated with the other hash, the garbled circuit gives garbage, not AES.
    const auto other = h == GarblingHash::aes ? GarblingHash::chacha20 : GarblingHash::aes;
    CHECK(hex_from_bits(half_gates::evaluate(aes, half_gates::encode_public(g), active, other)) != "69c4e0d86a7b0430d8cdb78070b4c55a");
  }
  const Registry registry = builtin_registry();
  const std::vector<Value> inputs = {"000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", nullptr};
  for (const std::string variant : {"v1", "v3"})
    for (const std::string hash : {"aes", "chacha20"}) {
      CAPTURE(variant);
      CAPTURE(hash);
      const auto p = registry.create("circuit", {{"circuit", "aes_128"}, {"variant", variant}, {"hash", hash}}, 3);
      CHECK(p->describe()["garbling_hash"] == hash);
      CHECK(run_in_process(*p, inputs, rng).output == "69c4e0d86a7b0430d8cdb78070b4c55a");
    }
  CHECK_THROWS_WITH_AS((void)registry.create("circuit", {{"hash", "sha1"}}, 3), doctest::Contains("hash"), std::invalid_argument);
}

TEST_CASE("garbling hash: a warm-up beside threads that hash leaves every hash as computed alone") {
  // Run alone (each case is its own process), this is the process's first use of AES: the warm-ups
  // (the hash's and the circuit protocol's registered one) and four hashing threads all reach the
  // fetch at once.
  const Registry registry = builtin_registry();
  const ProtocolInfo& circuit = registry.get("circuit");
  REQUIRE(circuit.warm_up);
  const Params params = Params::parse(circuit.params, {{"circuit", "adder64"}});
  const Block k{0x0123456789abcdefull, 0xfedcba9876543210ull};
  std::vector<std::array<Block, 4>> got(4);
  {
    std::vector<std::jthread> threads;
    threads.emplace_back([] { warm_up(GarblingHash::aes); });
    threads.emplace_back([&circuit, &params] { circuit.warm_up(params); });
    for (std::size_t t = 0; t < got.size(); ++t) threads.emplace_back([&got, &k, t] { hash4(GarblingHash::aes, k, 5, 1, got[t].data()); });
    warm_up(GarblingHash::chacha20);  // nothing to do
  }
  for (const auto& out : got) {
    CHECK(hex_of(out[0]) == "842f8e006bc974c8ce64bc3b2f79aa5f");  // the first case's value
    CHECK(hex_of(out[3]) == "5f6dcdf9c0e21fe6b1bd9e4d719df37f");
  }
  // A protocol without one-time work registers none.
  CHECK_FALSE(registry.get("counting").warm_up);
}
