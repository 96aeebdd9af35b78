// Long-term keys and the session configuration (net/keys.hpp).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/hex.hpp"
#include "shufflempc/net/keys.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using namespace shufflempc::net;

namespace {
SessionConfig sample_config(Rng& rng) {
  SessionConfig c;
  rng.fill(c.session);
  c.protocol = "counting";
  c.params = {{"epsilon", "0.5"}};
  c.parties = 2;
  c.shuffler_key = KeyPair::generate(rng).public_key();
  c.analyzer_key = KeyPair::generate(rng).public_key();
  c.party_keys = {KeyPair::generate(rng).public_key(), KeyPair::generate(rng).public_key()};
  c.rounds = {RoundShape::exactly(1 + 48, Delivery::analyzer_only, 2), RoundShape{8, Delivery::all_parties, 0, 3}};
  return c;
}

KeyBundle fresh_bundle(PartyId first, int keys, Rng& rng) {
  KeyBundle b;
  b.first = first;
  for (int i = 0; i < keys; ++i) b.keys.push_back(KeyPair::generate(rng));
  return b;
}
}  // namespace

TEST_CASE("key bundles: a range of parties in one 0600 file loads back, a party outside it, a public file and junk are refused") {
  SeededRng rng(32);
  const KeyBundle b = fresh_bundle(5, 4, rng);
  const test::TempDir tmp("shufflempc-keystest");
  const std::string path = tmp.path() + "/parties-5-8.keys";
  b.save(path);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const KeyBundle back = KeyBundle::load(path);
  CHECK(back.first == 5);
  CHECK(back.last() == 8);
  REQUIRE(back.keys.size() == 4);
  for (PartyId id = 5; id <= 8; ++id) CHECK(back.of(id).public_key() == b.keys[id - 5].public_key());
  CHECK_THROWS_WITH_AS((void)back.of(4), doctest::Contains("party 4 is not in the key bundle (it holds parties 5-8)"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)back.of(9), doctest::Contains("party 9 is not in the key bundle"), std::invalid_argument);
  ::chmod(path.c_str(), 0644);
  CHECK_THROWS_AS((void)KeyBundle::load(path), std::invalid_argument);  // readable by others: refused
  for (const std::string text : {"not json", R"({"first":0,"secret_keys":[]})", R"({"first":0,"secret_keys":["abcd"]})",
                                 R"({"first":-1,"secret_keys":["00"]})", R"({"secret_keys":["00"]})"}) {
    CAPTURE(text);
    const std::string junk = tmp.path() + "/junk.keys";
    {
      std::ofstream f(junk);
      f << text;
    }
    ::chmod(junk.c_str(), 0600);
    CHECK_THROWS_WITH_AS((void)KeyBundle::load(junk), doctest::Contains("junk.keys"), std::invalid_argument);
  }
  CHECK_THROWS_AS(KeyBundle{}.save(tmp.path() + "/empty.keys"), std::invalid_argument);
}

TEST_CASE("key bundles: the public keys are stored beside the secrets and read back as stored, an older bundle without them is recomputed") {
  SeededRng rng(33);
  const KeyBundle b = fresh_bundle(0, 3, rng);
  const test::TempDir tmp("shufflempc-keystest");
  const auto write = [&](const std::string& name, const Value& v) {
    const std::string path = tmp.path() + "/" + name;
    {
      std::ofstream f(path);
      f << v.dump();
    }
    ::chmod(path.c_str(), 0600);
    return path;
  };
  const std::string path = tmp.path() + "/parties.keys";
  b.save(path);
  Value saved = Value::parse(std::ifstream(path));
  REQUIRE(saved["public_keys"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(saved["public_keys"][i] == to_hex(b.keys[i].public_key()));

  // What load returns is the stored key: a stored key that is not the secret's comes back as stored
  // (no scalar multiplication checks it; the shuffler's key confirmation refuses such a party).
  Value swapped = saved;
  std::swap(swapped["public_keys"][0], swapped["public_keys"][1]);
  const KeyBundle as_stored = KeyBundle::load(write("swapped.keys", swapped));
  CHECK(as_stored.of(0).public_key() == b.keys[1].public_key());
  CHECK(as_stored.of(0).secret_key() == b.keys[0].secret_key());

  // Without public_keys (a bundle of an earlier version): recomputed from the secrets.
  Value older = saved;
  older.erase("public_keys");
  const KeyBundle recomputed = KeyBundle::load(write("older.keys", older));
  for (PartyId id = 0; id < 3; ++id) CHECK(recomputed.of(id).public_key() == b.keys[id].public_key());

  // A public key list of the wrong length or with a bad entry is refused, naming the file.
  Value short_list = saved;
  short_list["public_keys"].erase(2);
  CHECK_THROWS_WITH_AS((void)KeyBundle::load(write("short.keys", short_list)),
                       doctest::Contains("short.keys: public_keys must be an array with one key per secret key (3)"), std::invalid_argument);
  Value bad_entry = saved;
  bad_entry["public_keys"][1] = 7;
  CHECK_THROWS_WITH_AS((void)KeyBundle::load(write("entry.keys", bad_entry)), doctest::Contains("entry.keys: public key 1 is not a string"),
                       std::invalid_argument);
  Value bad_hex = saved;
  bad_hex["public_keys"][2] = "abcd";
  CHECK_THROWS_WITH_AS((void)KeyBundle::load(write("hex.keys", bad_hex)), doctest::Contains("hex.keys: public key 2"), std::invalid_argument);
}

TEST_CASE("keys: the public key is X25519 of the secret, files are written 0600 and load back, a mismatched file is refused") {
  SeededRng rng(31);
  const auto k = KeyPair::generate(rng);
  CHECK(KeyPair::from_secret(k.secret_key()).public_key() == k.public_key());
  CHECK(KeyPair::generate(rng).public_key() != k.public_key());
  const test::TempDir tmp("shufflempc-keystest");
  const std::string path = tmp.path() + "/a.key";
  k.save(path);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(KeyPair::load(path).public_key() == k.public_key());
  // A file whose public key belongs to another secret.
  const auto other = KeyPair::generate(rng);
  const std::string bad = tmp.path() + "/bad.key";
  {
    std::ofstream f(bad);
    f << Value{{"public_key", to_hex(other.public_key())}, {"secret_key", to_hex(k.secret_key())}}.dump();
  }
  ::chmod(bad.c_str(), 0600);
  CHECK_THROWS_WITH_AS((void)KeyPair::load(bad), doctest::Contains("public_key does not belong to secret_key"), std::invalid_argument);
  const std::string junk = tmp.path() + "/junk.key";
  {
    std::ofstream f(junk);
    f << "not json";
  }
  ::chmod(junk.c_str(), 0600);
  CHECK_THROWS_WITH_AS((void)KeyPair::load(junk), doctest::Contains("is not a shufflempc key"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_public_key("abcd", "--key"), std::invalid_argument);
}

TEST_CASE("session config: a JSON round trip keeps the digest, every field but the address changes it") {
  SeededRng rng(32);
  const auto c = sample_config(rng);
  const auto back = SessionConfig::from_json(c.to_json());
  CHECK(back.digest() == c.digest());
  auto moved = c;
  moved.shuffler_address = "10.0.0.1:9000";
  CHECK(moved.digest() == c.digest());
  auto changed = c;
  changed.params["epsilon"] = "0.6";
  CHECK(changed.digest() != c.digest());
  changed = c;
  changed.party_keys[1][0] ^= 1;
  CHECK(changed.digest() != c.digest());
  changed = c;
  changed.min_parties = 1;
  CHECK(changed.digest() != c.digest());
  // The round shapes the shuffler enforces: each field of each round.
  CHECK(back.rounds.size() == 2);
  CHECK(back.rounds[1].delivery == Delivery::all_parties);
  CHECK(back.rounds[1].max_messages == 3);
  for (int field = 0; field < 4; ++field) {
    changed = c;
    RoundShape& r = changed.rounds[1];
    if (field == 0) r.width += 1;
    if (field == 1) r.delivery = Delivery::analyzer_only;
    if (field == 2) r.min_messages = 1;
    if (field == 3) r.max_messages = 4;
    CHECK(changed.digest() != c.digest());
  }
}

TEST_CASE("session config: a missing or mistyped field is named, and addresses are HOST:PORT") {
  SeededRng rng(33);
  const Value good = sample_config(rng).to_json();
  Value v = good;
  v.erase("protocol");
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("missing field 'protocol'"), std::invalid_argument);
  v = good;
  v["party_keys"] = Value::array({good["party_keys"][0]});
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("one key per party"), std::invalid_argument);
  v = good;
  v["params"] = 3;
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("'params' must be an object"), std::invalid_argument);
  CHECK_THROWS_AS((void)SessionConfig::from_json(Value(1)), std::invalid_argument);
  v = good;
  v["analyzer_key"] = good["shuffler_key"];  // the shuffler could read every ESA record
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("'analyzer_key' equals 'shuffler_key'"), std::invalid_argument);
  v = good;
  v.erase("rounds");
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("missing field 'rounds'"), std::invalid_argument);
  v = good;
  v["rounds"] = Value::array();
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("'rounds' must list between 1 and 65536 round shapes"),
                       std::invalid_argument);
  v = good;
  v["rounds"][1]["min_messages"] = 4u;
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("rounds[1]: min_messages exceeds max_messages"),
                       std::invalid_argument);
  v = good;
  v["rounds"][0]["width"] = 1u << 20;
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("rounds[0].width must be an integer in [0, 65584]"),
                       std::invalid_argument);
  v = good;
  v["rounds"][0]["delivery"] = "everyone";
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(v), doctest::Contains("rounds[0].delivery must be \"analyzer-only\" or \"all-parties\""),
                       std::invalid_argument);
  CHECK(split_address("127.0.0.1:8080", "--shuffler") == std::pair<std::string, std::uint16_t>{"127.0.0.1", 8080});
  CHECK_THROWS_WITH_AS((void)split_address("localhost", "--shuffler"), doctest::Contains("--shuffler must be HOST:PORT"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)split_address("h:70000", "--shuffler"), doctest::Contains("port must be an integer in [0, 65535]"),
                       std::invalid_argument);
}

TEST_CASE("session config: parties sharing one key are written as one run and read back party by party, and a bad run is named") {
  SeededRng rng(34);
  SessionConfig c = sample_config(rng);
  const PublicKey shared = KeyPair::generate(rng).public_key();
  const PublicKey single = KeyPair::generate(rng).public_key();
  c.parties = 6;
  c.party_keys = {shared, shared, shared, single, shared, shared};
  const Value v = c.to_json();
  REQUIRE(v["party_keys"].size() == 3);
  CHECK(v["party_keys"][0] == Value({{"key", to_hex(shared)}, {"parties", 3}}));
  CHECK(v["party_keys"][1] == to_hex(single));
  CHECK(v["party_keys"][2] == Value({{"key", to_hex(shared)}, {"parties", 2}}));
  const SessionConfig back = SessionConfig::from_json(v);
  CHECK(back.party_keys == c.party_keys);
  CHECK(back.digest() == c.digest());
  // A config with a key per party is written as before: one string each.
  const Value distinct = sample_config(rng).to_json();
  CHECK(distinct["party_keys"][0].is_string());
  CHECK(distinct["party_keys"][1].is_string());
  // A run that overruns the party count, a zero or missing count, a bad key, an extra field.
  Value bad = v;
  bad["party_keys"][2]["parties"] = 3;
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(bad), doctest::Contains("one key per party (6)"), std::invalid_argument);
  bad = v;
  bad["party_keys"][2]["parties"] = 1;
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(bad), doctest::Contains("one key per party (6)"), std::invalid_argument);
  for (const Value& item : {Value({{"key", to_hex(shared)}, {"parties", 0}}), Value({{"key", to_hex(shared)}}),
                            Value({{"key", to_hex(shared)}, {"parties", -2}}), Value({{"key", to_hex(shared)}, {"parties", 2}, {"x", 1}}),
                            Value(7)}) {
    CAPTURE(item.dump());
    bad = v;
    bad["party_keys"][2] = item;
    CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(bad), doctest::Contains("party_keys[2] must be a key (64 hex digits) or"),
                         std::invalid_argument);
  }
  bad = v;
  bad["party_keys"][0]["key"] = "abcd";
  CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(bad), doctest::Contains("party_keys[0].key"), std::invalid_argument);
}

TEST_CASE("keys: two key pairs are the same key only when both halves are equal, and key_runs finds where each run of equal keys starts") {
  SeededRng rng(36);
  const KeyPair a = KeyPair::generate(rng);
  const KeyPair b = KeyPair::generate(rng);
  CHECK(a == KeyPair(a));
  CHECK(a == KeyPair::from_secret(a.secret_key()));
  CHECK_FALSE(a == b);
  // A stored public key beside another secret (a corrupted bundle) is not the same key, nor is a
  // secret beside another public key.
  CHECK_FALSE(a == KeyPair::from_stored(b.secret_key(), a.public_key()));
  CHECK_FALSE(a == KeyPair::from_stored(a.secret_key(), b.public_key()));

  const PublicKey x = a.public_key(), y = b.public_key();
  CHECK(key_runs(std::vector<PublicKey>{}).empty());
  CHECK(key_runs(std::vector<PublicKey>{x}) == std::vector<std::size_t>{0});
  CHECK(key_runs(std::vector<PublicKey>{x, x, x}) == std::vector<std::size_t>{0});
  CHECK(key_runs(std::vector<PublicKey>{x, y}) == std::vector<std::size_t>{0, 1});
  // A key that comes back after another starts a run of its own.
  CHECK(key_runs(std::vector<PublicKey>{x, x, y, x, x, y}) == std::vector<std::size_t>{0, 2, 3, 5});
}

TEST_CASE("keys: key pairs made together have crypto_scalarmult_base's public keys of the secrets as given, across runs and cores") {
  // 1100 random secrets, unclamped (X25519 clamps them): more than one run of 256 and past the
  // parallel threshold, the last run short.
  SeededRng rng(61);
  std::vector<SecretKey> secrets(1100);
  for (auto& s : secrets) rng.fill(s);
  const auto keys = key_pairs_from(secrets);
  REQUIRE(keys.size() == secrets.size());
  std::size_t same = 0;
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    const KeyPair one = KeyPair::from_secret(secrets[i]);
    same += keys[i] == one && keys[i].secret_key() == secrets[i];
  }
  CHECK(same == secrets.size());
  CHECK(key_pairs_from({}).empty());
  CHECK(key_pairs_from(std::span(secrets).first(1))[0] == KeyPair::from_secret(secrets[0]));
}

TEST_CASE("key bundles: one key for a range of parties is stored once and loads as every party's key") {
  SeededRng rng(35);
  KeyBundle b;
  b.first = 10;
  b.keys.assign(5, KeyPair::generate(rng));
  CHECK(b.shares_one_key());
  const test::TempDir tmp("shufflempc-keystest");
  const std::string path = tmp.path() + "/parties-10-14.keys";
  b.save(path);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"parties\":5") != std::string::npos);
  CHECK(text.find("secret_keys") == std::string::npos);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const KeyBundle back = KeyBundle::load(path);
  CHECK(back.first == 10);
  CHECK(back.last() == 14);
  for (PartyId id = 10; id <= 14; ++id) CHECK(back.of(id) == b.keys[0]);  // both halves
  CHECK_THROWS_WITH_AS((void)back.of(15), doctest::Contains("party 15 is not in the key bundle (it holds parties 10-14)"), std::invalid_argument);
  // Two keys in one bundle: stored key by key, as before.
  b.keys[3] = KeyPair::generate(rng);
  CHECK_FALSE(b.shares_one_key());
  std::filesystem::remove(path);
  b.save(path);
  CHECK(KeyBundle::load(path).of(13).public_key() == b.keys[3].public_key());
  CHECK(KeyBundle::load(path).of(12).public_key() == b.keys[0].public_key());
  const std::string hex_key = to_hex(b.keys[0].secret_key()), hex_pub = to_hex(b.keys[0].public_key());
  for (const std::string& junk : {R"({"first":0,"parties":0,"secret_key":")" + hex_key + R"(","public_key":")" + hex_pub + "\"}",
                                  R"({"first":0,"parties":100000001,"secret_key":")" + hex_key + R"(","public_key":")" + hex_pub + "\"}",
                                  R"({"first":0,"parties":2,"public_key":")" + hex_pub + "\"}",
                                  R"({"first":4294967290,"parties":9,"secret_key":")" + hex_key + R"(","public_key":")" + hex_pub + "\"}"}) {
    CAPTURE(junk);
    const std::string bad = tmp.path() + "/bad.keys";
    std::filesystem::remove(bad);
    { std::ofstream(bad) << junk; }
    ::chmod(bad.c_str(), 0600);
    const std::string expected = "key bundle " + bad;
    CHECK_THROWS_WITH_AS((void)KeyBundle::load(bad), doctest::Contains(expected.c_str()), std::invalid_argument);
  }
}

TEST_CASE("session config: the shuffler's signing key and a collection window go through JSON and the digest, and a bad window is named") {
  SeededRng rng(33);
  auto c = sample_config(rng);
  c.rounds.resize(1);  // a window is for a session of one round
  const auto plain = c.digest();
  c.shuffler_signer = SigningPublicKey{};
  c.shuffler_signer->fill(7);
  c.close_at = 1'800'000'000'000;
  c.close_count = 1;
  const auto back = SessionConfig::from_json(c.to_json());
  CHECK(back.shuffler_signer == c.shuffler_signer);
  CHECK(back.close_at == c.close_at);
  CHECK(back.close_count == 1);
  CHECK(back.windowed());
  CHECK(back.digest() == c.digest());
  CHECK(c.digest() != plain);
  // What is left of a window: until close_at, then nothing.
  using std::chrono::milliseconds;
  const std::chrono::system_clock::time_point before{milliseconds(1'800'000'000'000 - 1500)};
  CHECK(back.window_left(before) == milliseconds(1500));
  CHECK(back.window_left(before + milliseconds(2000)) == milliseconds(0));
  const auto refused = [&](auto change, const std::string& words) {
    auto j = c.to_json();
    change(j);
    CHECK_THROWS_WITH_AS((void)SessionConfig::from_json(j), doctest::Contains(words.c_str()), std::invalid_argument);
  };
  refused([&](Value& j) { j["rounds"].push_back(j["rounds"][0]); }, "a collection window ('close_at_ms', 'close_count') is for a session of one round");
  refused([&](Value& j) { j["close_count"] = c.parties + 1; }, "'close_count' must be an integer in [1, ");
  refused([&](Value& j) { j["min_parties"] = 2u; }, "'close_count' (1) is below 'min_parties' (2)");
  refused([&](Value& j) { j["shuffler_signing_key"] = "00"; }, "shuffler_signing_key");
}
