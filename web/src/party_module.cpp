// What the browser's build exports to JavaScript (embind): the party's end of a link, driven by
// the page over a WebSocket, and sealing to the analyzer. Every byte these compute is the
// library's own code (net/keys/detail/link_crypto.hpp, net/keys/sealing.hpp, net/wire.hpp); this
// file only converts between JavaScript values and C++ ones.
//
// A call that fails returns {error: "..."} with the library's message (a refused reply, a frame
// that does not authenticate, a key of the wrong length); web/js/party.mjs turns it into a thrown
// Error. Bytes cross as Uint8Array, keys and ids as lowercase hex, as in the key files.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shufflempc/hex.hpp"
#include "shufflempc/json.hpp"
#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/mixnet/knowledge.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/receipt_files.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/net/wire.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/runtime.hpp"
#include "web_registry.hpp"

using emscripten::val;
using namespace shufflempc;
using namespace shufflempc::net;
using shufflempc::Value;

namespace {

std::vector<std::uint8_t> bytes_of(const val& array) { return emscripten::convertJSArrayToNumberVector<std::uint8_t>(array); }

val to_js(std::span<const std::uint8_t> bytes) {
  val out = val::global("Uint8Array").new_(bytes.size());
  out.call<void>("set", val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
  return out;
}

val error(const std::exception& e) {
  val out = val::object();
  out.set("error", std::string(e.what()));
  return out;
}

template <std::size_t N>
std::array<std::uint8_t, N> hex_array(const std::string& hex, const char* what) {
  std::array<std::uint8_t, N> out{};
  from_hex(hex, out, what);
  return out;
}

// Seeded randomness for known-answer tests only (seed >= 0); libsodium's otherwise.
std::unique_ptr<Rng> rng_for(double seed) {
  if (seed >= 0) return std::make_unique<SeededRng>(static_cast<std::uint64_t>(seed));
  return std::make_unique<SystemRng>();
}

SessionConfig config_of(const std::string& text) {
  return SessionConfig::from_json(parse_json_document(text, "the session config"));
}

// One party's link to the shuffler: hello() to send first, finish(reply) with the shuffler's
// 56-byte reply (returns the confirm frame to send), then seal() the frames to send and
// openPrefix()/openPayload() the frames received.
class WebLink {
 public:
  WebLink(const std::string& session, const std::string& config, std::uint32_t id, const std::string& secret,
          const std::string& shuffler, double seed)
      : rng_(rng_for(seed)) {
    session_ = hex_array<session_id_bytes>(session, "session");
    const auto digest = hex_array<config_digest_bytes>(config, "config digest");
    const auto key = hex_array<secret_key_bytes>(secret, "secret key");
    const auto server = hex_array<public_key_bytes>(shuffler, "shuffler's public key");
    const KeyPair mine = KeyPair::from_secret(key);
    handshake_.emplace(session_, digest, id, 1, detail::identity_proof(id, mine, server), server, *rng_);
  }

  val hello() const { return to_js(handshake_->hello()); }

  val finish(const val& reply) {
    try {
      const auto r = bytes_of(reply);
      return to_js(handshake_->finish(r, cipher_));
    } catch (const std::exception& e) {
      return error(e);
    }
  }

  val seal(int type, std::uint32_t round, std::uint32_t width, std::uint32_t count, const val& payload) {
    try {
      FrameHeader h;
      h.type = static_cast<FrameType>(type);
      h.session = session_;
      h.round = round;
      h.width = width;
      h.count = count;
      return to_js(cipher_.seal(h, bytes_of(payload)));
    } catch (const std::exception& e) {
      return error(e);
    }
  }

  // The frame's header from its first prefixBytes bytes: {type, round, width, count, payloadLength}.
  val openPrefix(const val& prefix) {
    try {
      auto p = bytes_of(prefix);
      if (p.size() != frame_prefix_bytes) throw std::invalid_argument("a frame prefix is " + std::to_string(frame_prefix_bytes) + " bytes");
      const FrameHeader h = cipher_.open_prefix(p.data(), session_, Limits{});
      last_ = h;
      val out = val::object();
      out.set("type", static_cast<int>(h.type));
      out.set("round", h.round);
      out.set("width", h.width);
      out.set("count", h.count);
      out.set("payloadLength", h.payload_length);
      return out;
    } catch (const std::exception& e) {
      return error(e);
    }
  }

  // The payload of the frame whose prefix opened last, from its payloadLength + tagBytes bytes.
  val openPayload(const val& body) {
    try {
      auto b = bytes_of(body);
      if (b.size() < aead_tag_bytes) throw std::invalid_argument("a frame body ends with its 16-byte tag");
      const std::size_t n = b.size() - aead_tag_bytes;
      cipher_.open_payload(b.data(), n);
      return to_js(std::span(b).first(n));
    } catch (const std::exception& e) {
      return error(e);
    }
  }

 private:
  std::unique_ptr<Rng> rng_;
  SessionId session_{};
  std::optional<detail::ClientHandshake> handshake_;
  detail::LinkCipher cipher_;
  FrameHeader last_;  // the header opened last

 public:
  // A result frame's payload (the frame opened last) read and checked against the session's
  // `parties`: {messages, submitted: [ids], dropped: [ids]}.
  val result(const val& payload, double parties) const {
    try {
      if (last_.type != FrameType::result) throw std::invalid_argument("the frame opened last is not a result");
      const auto b = bytes_of(payload);
      const ResultPayload r = decode_result(last_, b, static_cast<std::size_t>(parties), Limits{});
      val out = val::object();
      out.set("messages", static_cast<double>(r.messages));
      val submitted = val::array(), dropped = val::array();
      for (const PartyId p : r.submitted) submitted.call<void>("push", p);
      for (const PartyId p : r.dropped) dropped.call<void>("push", p);
      out.set("submitted", submitted);
      out.set("dropped", dropped);
      return out;
    } catch (const std::exception& e) {
      return error(e);
    }
  }

  // After a round whose records crossed a chain of mix servers: this party's verdict on the
  // entry's answer (the result frame opened last, its `payload`), as a native party's channel
  // makes it (judge_receipt): confirmed with the root the entry's receipt commits to when the
  // receipt holds for every record this page sent (`submit`: its submit payload) and the result
  // lists the party as submitted; otherwise a complaint with its reason. {confirmed, reason,
  // payload}: payload is the verdict frame's, for the analyzer (a link to it: new Link(..., its key)).
  val verdict(const val& payload, double parties, const std::string& config_text, std::uint32_t id, const val& submit) const {
    try {
      const SessionConfig c = config_of(config_text);
      const auto sent = bytes_of(submit);
      if (sent.size() < 4) throw std::invalid_argument("the batch sent: a submit payload starts with its count");
      const std::uint32_t count = load_le<std::uint32_t>(sent.data());
      if (count == 0 || (sent.size() - 4) % count != 0) throw std::invalid_argument("the batch sent: its records are not of one width");
      MessageBatch own((sent.size() - 4) / count);
      for (std::size_t k = 0; k < count; ++k) own.push_back(std::span(sent).subspan(4 + k * own.width(), own.width()));
      VerdictPayload v;
      v.parties.assign(1, Verdict::complaint);
      std::string why;
      if (last_.type != FrameType::result) {
        why = "answered its batch with a frame of type " + std::to_string(static_cast<int>(last_.type)) + " instead of the round's result";
      } else {
        const auto b = bytes_of(payload);
        try {
          const ResultPayload r = decode_result(last_, b, static_cast<std::size_t>(parties), Limits{});
          const ReceiptJudgement j = judge_receipt(c, last_.round, Delivery::analyzer_only, r.receipt, own, 1);
          if (!j.root) why = j.complaint;
          else if (!std::binary_search(r.submitted.begin(), r.submitted.end(), id)) why = "counted it as dropped, though it submitted";
          else std::copy(j.root->begin(), j.root->end(), v.root.begin());
        } catch (const std::exception& e) {
          why = "sent a result that does not parse (" + std::string(e.what()) + ")";
        }
      }
      if (why.empty()) v.parties[0] = Verdict::confirmed;
      else v.reason = why + " (party " + std::to_string(id) + ")";
      val out = val::object();
      out.set("confirmed", why.empty());
      out.set("reason", v.reason);
      out.set("payload", to_js(encode_verdict(v)));
      return out;
    } catch (const std::exception& e) {
      return error(e);
    }
  }
};

// Seals each `width`-byte message of `messages` to the analyzer's public key (crypto_box_seal).
val seal_to_analyzer(const val& messages, std::uint32_t width, const std::string& analyzer) {
  try {
    const auto m = bytes_of(messages);
    const auto key = hex_array<public_key_bytes>(analyzer, "analyzer's public key");
    if (width == 0 || m.size() % width != 0) throw std::invalid_argument("messages: a whole number of width-byte messages");
    std::vector<std::uint8_t> out(m.size() / width * sealing::sealed_width(width));
    sealing::seal(m, width, key, out);
    return to_js(out);
  } catch (const std::exception& e) {
    return error(e);
  }
}

// A submit frame's payload for one party: its message count, then its messages.
val submit_payload(std::uint32_t count, const val& messages) {
  try {
    return to_js(encode_submit(std::vector<std::uint32_t>{count}, bytes_of(messages)));
  } catch (const std::exception& e) {
    return error(e);
  }
}

// The shuffler's admission receipt of the batch this page sent (an admitted frame's payload, from a
// shuffler keeping a state directory), checked as a native party's channel checks it: the digest
// must be that of the batch sent (`submit`: the submit frame's payload, a count then the records)
// and the signature the config's shuffler signing key's over (session, round, party, digest).
// Returns {digest, signature, file}: file is the JSON `party --receipt FILE` writes, which
// `shufflempc receipt FILE --commitment C --config S` checks against the analyzer's published
// commitment; a receipt that does not hold is an error naming why, and nothing is kept.
val admission_receipt(const std::string& config_text, std::uint32_t id, std::uint32_t round, std::uint32_t width, const val& submit,
                      const val& admitted) {
  try {
    const SessionConfig c = config_of(config_text);
    const auto sent = bytes_of(submit);
    const auto a = bytes_of(admitted);
    if (a.size() != admitted_payload_bytes)
      throw std::invalid_argument("the shuffler's receipt is " + std::to_string(a.size()) + " bytes, not " + std::to_string(admitted_payload_bytes));
    if (sent.size() < 4) throw std::invalid_argument("the batch sent: a submit payload starts with its count");
    AdmissionReceipt r;
    r.batch = Admission{.round = round, .first = id, .counts = {load_le<std::uint32_t>(sent.data())}, .width = width,
                        .messages = std::vector<std::uint8_t>(sent.begin() + 4, sent.end())};
    std::copy_n(a.begin(), r.digest.size(), r.digest.begin());
    std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(r.digest.size()), r.signature.size(), r.signature.begin());
    if (r.digest != r.batch.digest()) throw std::invalid_argument("the shuffler's receipt names another batch than the one this page sent");
    if (!c.shuffler_signer) throw std::invalid_argument("the session config names no shuffler signing key: its receipts cannot be checked");
    if (!mixnet::signature_holds(r.signature, admission_statement(c.session, round, id, r.digest), *c.shuffler_signer))
      throw std::invalid_argument("the receipt is not the shuffler's signature of this page's batch");
    val out = val::object();
    out.set("digest", to_hex(r.digest));
    out.set("signature", to_hex(r.signature));
    out.set("file", receipts_json(c.session, {r}).dump(2) + "\n");
    return out;
  } catch (const std::exception& e) {
    return error(e);
  }
}

// What a page needs of a session config (the JSON `shufflempc session` writes), read by the
// library's own parser: {session, digest, protocol, params, parties, minParties, shufflerKey,
// analyzerKey, hops, mix, rounds, windowed}, without making its protocol (protocolInfo). The digest is what the hello carries: a page holding
// another config than the shuffler's is refused at the handshake.
val session_info(const std::string& text) {
  try {
    const SessionConfig c = config_of(text);
    val out = val::object();
    out.set("session", to_hex(c.session));
    out.set("digest", to_hex(c.digest()));
    out.set("protocol", c.protocol);
    val params = val::object();
    for (const auto& [k, v] : c.params) params.set(k, v);
    out.set("params", params);
    out.set("parties", static_cast<double>(c.parties));
    out.set("minParties", static_cast<double>(c.min_parties));
    out.set("shufflerKey", to_hex(c.shuffler_key));
    out.set("analyzerKey", to_hex(c.analyzer_key));
    out.set("hops", static_cast<double>(c.chain().hops()));
    out.set("mix", std::string(c.mix == MixKind::verifiable ? "verifiable" : "decryption"));
    out.set("rounds", static_cast<double>(c.rounds.size()));
    out.set("windowed", c.windowed());
    return out;
  } catch (const std::exception& e) {
    return error(e);
  }
}

// What the session's protocol says of itself, made by the registry as the analyzer makes it (its
// calibration is this call's work, apart from sessionInfo, which a link reads at every start):
// {predictedSd (its estimate's standard deviation, where it states one), describe (its
// parameters as calibrated, JSON text)}. A protocol the browser's build does not have is an error.
val protocol_info(const std::string& text) {
  try {
    const SessionConfig c = config_of(text);
    if (web::registry().find(c.protocol) == nullptr)
      throw std::invalid_argument("protocol " + c.protocol + " does not run in a browser: the browser's build has the one-round protocols "
                                  "whose parties only send (docs/websocket.md)");
    const auto protocol = web::registry().create(c.protocol, c.params, c.parties, c.min_parties);
    val out = val::object();
    if (const auto sd = protocol->predicted_sd()) out.set("predictedSd", *sd);
    out.set("describe", protocol->describe().dump());
    return out;
  } catch (const std::exception& e) {
    return error(e);
  }
}

// A party's messages as they go on the wire, as a native party's channel makes them: sealed to the
// analyzer (a single shuffler), wrapped in the onion layers of a chain of mix servers, or, through a
// verifiable chain, ElGamal records each with its proof of plaintext knowledge and the party's
// submitter tag (from its key: `secret`).
MessageBatch for_the_wire(const SessionConfig& c, std::uint32_t id, const RoundShape& shape, const MessageBatch& messages,
                          const std::string& secret, Rng& rng) {
  if (c.mix_chain.empty()) {
    MessageBatch sealed(sealing::sealed_width(shape.width));
    std::vector<std::uint8_t> bytes(messages.count() * sealed.width());
    sealing::seal(messages.bytes(), shape.width, c.analyzer_key, bytes);
    for (std::size_t k = 0; k < messages.count(); ++k) sealed.push_back(std::span(bytes).subspan(k * sealed.width(), sealed.width()));
    return sealed;
  }
  if (c.mix == MixKind::verifiable) {
    const mixnet::TagKey key = tag_key_of(KeyPair::from_secret(hex_array<secret_key_bytes>(secret, "secret key")), c.shuffler_key);
    std::vector<mixnet::SubmitterTag> tags(messages.count());
    for (std::size_t j = 0; j < tags.size(); ++j) tags[j] = mixnet::submitter_tag(key, c.session, 0, id, j);
    return mixnet::to_submissions(mixnet::encrypt_and_prove(messages, knowledge_context(c, 0, shape.delivery), tags, rng, 1));
  }
  std::vector<PublicKey> layers;
  for (const auto& m : c.mix_chain) layers.push_back(m.key);
  return onion::wrap(messages.bytes(), shape.width, shape.delivery, c.analyzer_key, layers, c.session, 0);
}

// One party's round of a one-round protocol, as the native party sends it: the session config's
// protocol made by the registry and checked against the config's round shapes (as every native
// party checks them), the party made from its input (JSON, as `party --input` reads it), its
// messages drawn, then sealed to the analyzer. Returns {width (on the wire), count, payload (the
// submit frame's)}. Through a chain of mix servers the records are wrapped for it (for_the_wire;
// `secret`, the party's key, is needed for a verifiable chain's tags, else may be empty). A protocol
// of more rounds, or a round delivered to every party, is refused naming what the page cannot do.
val round_records(const std::string& config_text, std::uint32_t id, const std::string& input_json, const std::string& secret, double seed) {
  try {
    const SessionConfig c = config_of(config_text);
    if (id >= c.parties)
      throw std::invalid_argument("party id " + std::to_string(id) + " is not in this session (ids 0 to " + std::to_string(c.parties - 1) + ")");
    const auto* info = web::registry().find(c.protocol);
    if (info == nullptr)
      throw std::invalid_argument("protocol " + c.protocol + " does not run in a browser: the browser's build has the one-round protocols "
                                  "whose parties only send (docs/websocket.md)");
    auto protocol = web::registry().create(c.protocol, c.params, c.parties, c.min_parties);
    check_rounds(c, *protocol);
    if (protocol->rounds() != 1 || protocol->round(0).delivery != Delivery::analyzer_only)
      throw std::invalid_argument("protocol " + c.protocol + " with these parameters is not one round to the analyzer: a browser party "
                                  "runs those only");
    const RoundShape shape = protocol->round(0);
    const Value input = parse_json_document(input_json, "the party's input");
    auto party = protocol->make_party(id, input);
    auto rng = rng_for(seed);
    MessageBatch messages(shape.width);
    party->send(0, *rng, messages);
    if (!shape.accepts(messages.count()))
      throw std::logic_error("the party drew " + std::to_string(messages.count()) + " messages, outside the round's shape");
    const MessageBatch records = for_the_wire(c, id, shape, messages, secret, *rng);
    val out = val::object();
    out.set("width", static_cast<double>(records.width()));
    out.set("count", static_cast<double>(records.count()));
    out.set("payload", to_js(encode_submit(std::vector<std::uint32_t>{static_cast<std::uint32_t>(records.count())}, records.bytes())));
    return out;
  } catch (const std::exception& e) {
    return error(e);
  }
}

// The protocols a party in a browser runs, by name.
val browser_protocols() {
  val out = val::array();
  for (const auto& p : web::registry().all()) out.call<void>("push", p.name);
  return out;
}

std::string public_key_of(const std::string& secret) {
  return to_hex(KeyPair::from_secret(hex_array<secret_key_bytes>(secret, "secret key")).public_key());
}

}  // namespace

EMSCRIPTEN_BINDINGS(shufflempc_party) {
  emscripten::class_<WebLink>("Link")
      .constructor<const std::string&, const std::string&, std::uint32_t, const std::string&, const std::string&, double>()
      .function("hello", &WebLink::hello)
      .function("finish", &WebLink::finish)
      .function("seal", &WebLink::seal)
      .function("openPrefix", &WebLink::openPrefix)
      .function("openPayload", &WebLink::openPayload)
      .function("result", &WebLink::result)
      .function("verdict", &WebLink::verdict);
  emscripten::function("sealToAnalyzer", &seal_to_analyzer);
  emscripten::function("submitPayload", &submit_payload);
  emscripten::function("publicKeyOf", &public_key_of);
  emscripten::function("sessionInfo", &session_info);
  emscripten::function("protocolInfo", &protocol_info);
  emscripten::function("admissionReceipt", &admission_receipt);
  emscripten::function("roundRecords", &round_records);
  emscripten::function("protocols", &browser_protocols);
  emscripten::constant("prefixBytes", static_cast<std::uint32_t>(frame_prefix_bytes));
  emscripten::constant("tagBytes", static_cast<std::uint32_t>(aead_tag_bytes));
  emscripten::constant("helloReplyBytes", static_cast<std::uint32_t>(hello_reply_bytes));
  emscripten::constant("wireVersion", static_cast<std::uint32_t>(wire_version));
}
