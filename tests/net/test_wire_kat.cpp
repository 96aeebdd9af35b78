// Known answers for the wire format (net/wire.hpp) and the key files (net/keys.hpp): the exact
// bytes a header, a hello and a result payload encode to, and key files against RFC 7748's X25519
// vectors. A change to any of these breaks interoperability between builds and must show here.
#include <doctest/doctest.h>
#include <sodium.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "shufflempc/error.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/wire.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

namespace {

SessionId counting_session() {
  SessionId s{};
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(i);
  return s;
}

template <std::size_t N>
std::array<std::uint8_t, N> bytes_of(const std::string& hex) {
  std::array<std::uint8_t, N> out{};
  from_hex(hex, out, "test vector");
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// RFC 7748 section 6.1: Alice's X25519 key pair.
const std::string alice_secret = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
const std::string alice_public = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";

}  // namespace

TEST_CASE("wire KAT: a frame header is 40 little-endian bytes in a fixed order") {
  net::FrameHeader h;
  h.type = net::FrameType::submit;
  h.session = counting_session();
  h.round = 7;
  h.width = 49;
  h.count = 3;
  h.payload_length = 151;  // one party's count (4 bytes) and 3 messages of 49 bytes
  const auto bytes = net::encode_header(h);
  CHECK(to_hex(bytes) ==
        "53504d43" "0e00" "0200" "000102030405060708090a0b0c0d0e0f" "07000000" "31000000" "03000000" "97000000");
  const auto back = net::decode_header(bytes, h.session, net::Limits{});
  CHECK(back.type == net::FrameType::submit);
  CHECK(back.round == 7);
  CHECK(back.width == 49);
  CHECK(back.count == 3);
  CHECK(back.payload_length == 151);
  h.payload_length = 147;  // no room for a count
  CHECK_THROWS_WITH_AS((void)net::decode_header(net::encode_header(h), h.session, net::Limits{}),
                       doctest::Contains("and a count per party"), std::system_error);
}

TEST_CASE("wire KAT: an alive frame is type 13 and carries nothing") {
  net::FrameHeader h;
  h.type = net::FrameType::alive;
  h.session = counting_session();
  h.round = 2;
  CHECK(to_hex(net::encode_header(h)) ==
        "53504d43" "0e00" "0d00" "000102030405060708090a0b0c0d0e0f" "02000000" "00000000" "00000000" "00000000");
  CHECK(net::decode_header(net::encode_header(h), h.session, net::Limits{}).type == net::FrameType::alive);
  h.payload_length = 1;
  CHECK_THROWS_WITH_AS((void)net::decode_header(net::encode_header(h), h.session, net::Limits{}), doctest::Contains("alive frame with content"),
                       std::system_error);
}

TEST_CASE("wire KAT: the key generation's frames are types 14 and 15, their round the step 1 to 5, without messages") {
  net::FrameHeader h{.type = net::FrameType::dkg, .session = counting_session(), .round = 3, .payload_length = 200};
  CHECK(to_hex(net::encode_header(h)) ==
        "53504d43" "0e00" "0e00" "000102030405060708090a0b0c0d0e0f" "03000000" "00000000" "00000000" "c8000000");
  CHECK(net::decode_header(net::encode_header(h), h.session, net::Limits{}).type == net::FrameType::dkg);
  h.type = net::FrameType::dkg_answer;
  CHECK(to_hex(net::encode_header(h)).substr(12, 4) == "0f00");
  for (std::uint32_t step : {0u, 6u}) {
    h.round = step;
    const std::string want = "dkg_answer frame of step " + std::to_string(step) + " (1 to 5, no messages)";
    CHECK_THROWS_WITH_AS((void)net::decode_header(net::encode_header(h), h.session, net::Limits{}), doctest::Contains(want.c_str()),
                         std::system_error);
  }
  h.round = 1;
  h.count = 1;
  h.width = 1;
  CHECK_THROWS_AS((void)net::decode_header(net::encode_header(h), h.session, net::Limits{}), std::system_error);
}

TEST_CASE("wire KAT: an admitted frame is type 16 with a digest and a signature, and the digest and statement have their layouts") {
  net::FrameHeader h{.type = net::FrameType::admitted, .session = counting_session(), .round = 0, .payload_length = 96};
  CHECK(to_hex(net::encode_header(h)).substr(12, 4) == "1000");
  CHECK(net::decode_header(net::encode_header(h), h.session, net::Limits{}).type == net::FrameType::admitted);
  for (std::uint32_t length : {0u, 95u, 97u}) {
    h.payload_length = length;
    CHECK_THROWS_WITH_AS((void)net::decode_header(net::encode_header(h), h.session, net::Limits{}),
                         doctest::Contains("not a digest and a signature (96)"), std::system_error);
  }
  // The digest: BLAKE2b-256 of the label, then round, first party, the number of counts, each
  // count, width and the records' length (little-endian 32 bits each), then the records.
  const net::Admission a{.round = 2, .first = 7, .counts = {1, net::submit_absent}, .width = 3, .messages = {0xaa, 0xbb, 0xcc}};
  const std::string label = "shufflempc admission v1";
  std::vector<std::uint8_t> layout(label.begin(), label.end());
  for (std::uint32_t v : {2u, 7u, 2u, 1u, net::submit_absent, 3u, 3u})
    for (int i = 0; i < 4; ++i) layout.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  layout.insert(layout.end(), {0xaa, 0xbb, 0xcc});
  net::RecordDigest want{};
  crypto_generichash(want.data(), want.size(), layout.data(), layout.size(), nullptr, 0);
  CHECK(a.digest() == want);
  const auto statement = net::admission_statement(counting_session(), 2, 7, want);
  const std::string receipt_label = "shufflempc admission receipt v1";
  CHECK(to_hex(statement) == to_hex(std::span(reinterpret_cast<const std::uint8_t*>(receipt_label.data()), receipt_label.size())) +
                                 "000102030405060708090a0b0c0d0e0f" "02000000" "07000000" + to_hex(want));
}

TEST_CASE("wire KAT: a submit payload is a count per party of the link, then the messages") {
  const std::vector<std::uint32_t> counts = {2, net::submit_absent, 1};
  const std::vector<std::uint8_t> messages = {0xa1, 0xa2, 0xb1};
  const auto payload = net::encode_submit(counts, messages);
  CHECK(to_hex(payload) == "02000000" "ffffffff" "01000000" "a1a2b1");
  net::FrameHeader h;
  h.type = net::FrameType::submit;
  h.width = 1;
  h.count = 3;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  const auto back = net::decode_submit(h, payload, 3);
  CHECK(back.counts == counts);
  CHECK(to_hex(back.messages) == "a1a2b1");
  // The counts must add up to the header's, and there must be one per party of the link.
  h.count = 2;
  h.payload_length = static_cast<std::uint32_t>(payload.size() - 1);
  CHECK_THROWS_WITH_AS((void)net::decode_submit(h, std::span(payload).first(payload.size() - 1), 3),
                       doctest::Contains("add up to 3, the header says 2"), std::system_error);
  h.count = 3;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  CHECK_THROWS_WITH_AS((void)net::decode_submit(h, payload, 2), doctest::Contains("is not a count for each of the link's 2 parties"),
                       std::system_error);
}

TEST_CASE("wire KAT: the hello and the result payload") {
  net::Hello hello;
  hello.session = counting_session();
  hello.first = 0x01020304;
  hello.count = 5;
  hello.ephemeral_key = bytes_of<32>(alice_public);
  hello.config.fill(0xcc);
  CHECK(to_hex(net::encode_hello(hello)) == "53504d48" "0e00" "0000" "000102030405060708090a0b0c0d0e0f" "04030201" "05000000" +
                                                alice_public + std::string(64, 'c'));
  const auto back = net::decode_hello(net::encode_hello(hello));
  CHECK(back.first == 0x01020304);
  CHECK(back.count == 5);
  CHECK(back.ephemeral_key == hello.ephemeral_key);
  CHECK(back.config == hello.config);
  // A hello claiming no party, or the analyzer with others, is malformed.
  hello.count = 0;
  CHECK_THROWS_WITH_AS((void)net::decode_hello(net::encode_hello(hello)), doctest::Contains("claims no party"), std::system_error);
  hello.first = net::analyzer_id;
  hello.count = 2;
  CHECK_THROWS_WITH_AS((void)net::decode_hello(net::encode_hello(hello)), doctest::Contains("party range out of bounds"), std::system_error);

  const std::vector<PartyId> submitted = {1, 3}, dropped = {2};
  const std::vector<std::uint8_t> output = {0xaa, 0xbb}, reports = {0x11, 0x22};
  const std::vector<std::uint8_t> evidence = {0x33, 0x44, 0x55};
  const auto payload = net::encode_result(2, submitted, dropped, reports, output, evidence);
  CHECK(to_hex(payload) == "0200000000000000" "02000000" "01000000" "02000000" "03000000" "01000000" "03000000" "02000000" "1122" "334455"
                           "aabb");
  net::FrameHeader h;
  h.type = net::FrameType::result;
  h.width = 1;
  h.count = 2;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  const auto r = net::decode_result(h, payload, 4, net::Limits{});
  CHECK(r.messages == 2);
  CHECK(r.submitted == submitted);
  CHECK(r.dropped == dropped);
  CHECK(to_hex(r.reports) == "1122");
  CHECK(to_hex(r.evidence) == "334455");
  CHECK(to_hex(r.output) == "aabb");
  CHECK(r.receipt.empty());
  // A party link's receipt follows the output: the bytes after it.
  auto with_receipt = payload;
  with_receipt.insert(with_receipt.end(), {0x77, 0x88});
  h.payload_length = static_cast<std::uint32_t>(with_receipt.size());
  const auto rr = net::decode_result(h, with_receipt, 4, net::Limits{});
  CHECK(to_hex(rr.output) == "aabb");
  CHECK(to_hex(rr.receipt) == "7788");
  // Too short for its messages.
  h.payload_length = static_cast<std::uint32_t>(payload.size() - 1);
  CHECK_THROWS_WITH_AS((void)net::decode_result(h, std::span(payload).first(payload.size() - 1), 4, net::Limits{}),
                       doctest::Contains("payload shorter than"), std::system_error);
}

TEST_CASE("wire KAT: a verdict is the root, a byte per party and the complaint, and a bad one is refused") {
  net::VerdictPayload v;
  for (std::size_t i = 0; i < v.root.size(); ++i) v.root[i] = static_cast<std::uint8_t>(i);
  v.parties = {net::Verdict::absent, net::Verdict::confirmed, net::Verdict::complaint};
  v.reason = "no";
  const auto bytes = net::encode_verdict(v);
  CHECK(to_hex(bytes) == "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" "000102" "6e6f");
  net::FrameHeader h;
  h.type = net::FrameType::verdict;
  h.count = 3;
  h.payload_length = static_cast<std::uint32_t>(bytes.size());
  const auto back = net::decode_verdict(h, bytes);
  CHECK(back.root == v.root);
  CHECK(back.parties == v.parties);
  CHECK(back.reason == "no");
  auto bad = bytes;
  bad[33] = 3;  // no such verdict
  CHECK_THROWS_WITH_AS((void)net::decode_verdict(h, bad), doctest::Contains("party 1's verdict is 3"), std::system_error);
  h.count = 40;  // more parties than bytes
  CHECK_THROWS_WITH_AS((void)net::decode_verdict(h, bytes), doctest::Contains("shorter than its root and parties"), std::system_error);
  // The header is checked before the payload is read: a verdict with messages or too long a reason.
  SessionId session{};
  h.session = session;
  h.width = 1;
  h.count = 3;
  CHECK_THROWS_WITH_AS((void)net::decode_header(net::encode_header(h), session, net::Limits{}), doctest::Contains("verdict: payload"),
                       std::system_error);
  h.width = 0;
  h.payload_length = 32 + 3 + 4097;
  CHECK_THROWS_WITH_AS((void)net::decode_header(net::encode_header(h), session, net::Limits{}), doctest::Contains("verdict: payload"),
                       std::system_error);
}

TEST_CASE("key files KAT: RFC 7748's key pair, the exact file written, and what is refused") {
  const test::TempDir tmp("shufflempc-keykat");
  const std::string& dir = tmp.path();
  const auto key = net::KeyPair::from_secret(bytes_of<32>(alice_secret));
  CHECK(to_hex(key.public_key()) == alice_public);
  key.save(dir + "/alice.key");
  CHECK(read_file(dir + "/alice.key") == "{\"public_key\":\"" + alice_public + "\",\"secret_key\":\"" + alice_secret + "\"}\n");
  CHECK((std::filesystem::status(dir + "/alice.key").permissions() & std::filesystem::perms::group_all) == std::filesystem::perms::none);

  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    std::filesystem::permissions(dir + "/" + name, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::replace);
    return dir + "/" + name;
  };
  // Only the secret key is needed; upper-case hex is hex too.
  std::string upper = alice_secret;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(to_hex(net::KeyPair::load(write("upper.key", "{\"secret_key\":\"" + upper + "\"}")).public_key()) == alice_public);
  // A public key that does not belong to the secret key.
  std::string other = alice_public;
  other[0] = '9';
  CHECK_THROWS_WITH_AS((void)net::KeyPair::load(write("mismatch.key", "{\"public_key\":\"" + other + "\",\"secret_key\":\"" + alice_secret + "\"}")),
                       doctest::Contains("public_key does not belong to secret_key"), std::invalid_argument);
  // Not hex: the message names the field and never repeats the secret.
  std::string bad = alice_secret;
  bad[10] = 'z';
  try {
    (void)net::KeyPair::load(write("bad.key", "{\"secret_key\":\"" + bad + "\"}"));
    FAIL("a secret key with a non-hex digit was accepted");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("secret_key must be hex digits") != std::string::npos);
    CHECK(what.find(bad.substr(0, 12)) == std::string::npos);
  }
  CHECK_THROWS_WITH_AS((void)net::KeyPair::load(write("short.key", "{\"secret_key\":\"abcd\"}")), doctest::Contains("must be 64 hex digits"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)net::KeyPair::load(write("json.key", "not json")), doctest::Contains("is not a shufflempc key"), std::invalid_argument);
  // A key others can read is refused; a key is never written over a file or through a link.
  std::filesystem::permissions(dir + "/upper.key", std::filesystem::perms::group_read, std::filesystem::perm_options::add);
  CHECK_THROWS_WITH_AS((void)net::KeyPair::load(dir + "/upper.key"), doctest::Contains("is accessible to others (mode 640): chmod 600 it"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(key.save(dir + "/alice.key"), doctest::Contains("it exists already"), std::invalid_argument);
  std::filesystem::create_symlink(dir + "/elsewhere.key", dir + "/link.key");
  CHECK_THROWS_WITH_AS(key.save(dir + "/link.key"), doctest::Contains("it exists already (or is a symbolic link)"), std::invalid_argument);
  CHECK_FALSE(std::filesystem::exists(dir + "/elsewhere.key"));
  CHECK_THROWS_WITH_AS((void)net::KeyPair::load("/dev/zero"), doctest::Contains("is accessible to others"), std::invalid_argument);
}
