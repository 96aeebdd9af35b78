#include "shufflempc/net/wire.hpp"

#include <algorithm>
#include <stdexcept>

#include <sodium.h>

#include "shufflempc/error.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/messages.hpp"

namespace shufflempc::net {

namespace {

const char* type_name(std::uint16_t t) {
  switch (static_cast<FrameType>(t)) {
    case FrameType::confirm: return "confirm";
    case FrameType::submit: return "submit";
    case FrameType::result: return "result";
    case FrameType::abort: return "abort";
    case FrameType::mix: return "mix";
    case FrameType::mixed: return "mixed";
    case FrameType::shuffle: return "shuffle";
    case FrameType::shuffled: return "shuffled";
    case FrameType::decrypt: return "decrypt";
    case FrameType::decrypted: return "decrypted";
    case FrameType::done: return "done";
    case FrameType::verdict: return "verdict";
    case FrameType::alive: return "alive";
    case FrameType::dkg: return "dkg";
    case FrameType::dkg_answer: return "dkg_answer";
    case FrameType::admitted: return "admitted";
  }
  return "unknown";
}

[[noreturn]] void bad(Errc e, const std::string& what) { throw_error(e, "frame header: " + what); }

}  // namespace

std::array<std::uint8_t, frame_header_bytes> encode_header(const FrameHeader& h) {
  std::array<std::uint8_t, frame_header_bytes> out{};
  std::uint8_t* p = out.data();
  store_le<std::uint32_t>(p, h.magic), p += 4;
  store_le<std::uint16_t>(p, h.version), p += 2;
  store_le<std::uint16_t>(p, static_cast<std::uint16_t>(h.type)), p += 2;
  std::copy(h.session.begin(), h.session.end(), p), p += session_id_bytes;
  store_le<std::uint32_t>(p, h.round), p += 4;
  store_le<std::uint32_t>(p, h.width), p += 4;
  store_le<std::uint32_t>(p, h.count), p += 4;
  store_le<std::uint32_t>(p, h.payload_length);
  return out;
}

namespace {

// What a frame of each type may carry: its width, count and payload length must fit together.
void check_content(const FrameHeader& h, const std::string& t, const Limits& limits) {
  const std::uint64_t message_bytes = std::uint64_t{h.width} * h.count;
  switch (h.type) {
    case FrameType::confirm:
    case FrameType::done:
    case FrameType::alive:
      if (h.width != 0 || h.count != 0 || h.payload_length != 0) bad(Errc::malformed_frame, t + " frame with content");
      break;
    case FrameType::submit:
      if (h.width == 0) bad(Errc::malformed_frame, "submit: width 0");
      if (h.payload_length < message_bytes + 4 || (h.payload_length - message_bytes) % 4 != 0)
        bad(Errc::malformed_frame, "submit: payload of " + std::to_string(h.payload_length) + " bytes for " +
                                       std::to_string(h.count) + " messages of " + std::to_string(h.width) +
                                       " bytes and a count per party");
      break;
    case FrameType::result:
      if (h.count > 0 && h.width == 0) bad(Errc::malformed_frame, "result: messages of width 0");
      if (std::uint64_t{h.payload_length} < result_prefix_bytes(0, 0) + message_bytes)
        bad(Errc::malformed_frame, "result: payload too short for its messages");
      break;
    case FrameType::mix:
      if (h.width == 0 || h.payload_length != message_bytes)
        bad(Errc::malformed_frame, "mix: payload of " + std::to_string(h.payload_length) + " bytes is not " + std::to_string(h.count) +
                                       " records of " + std::to_string(h.width) + " bytes");
      break;
    case FrameType::mixed:
      if ((h.count > 0 && h.width == 0) || h.payload_length < message_bytes || h.payload_length - message_bytes > max_mixed_extra)
        bad(Errc::malformed_frame, "mixed: payload of " + std::to_string(h.payload_length) + " bytes for " + std::to_string(h.count) +
                                       " records of " + std::to_string(h.width) + " bytes and a report");
      break;
    case FrameType::shuffle:
    case FrameType::decrypted:
      if (h.width == 0 || h.payload_length != message_bytes)
        bad(Errc::malformed_frame, t + ": payload of " + std::to_string(h.payload_length) + " bytes is not " + std::to_string(h.count) +
                                       " items of " + std::to_string(h.width) + " bytes");
      break;
    case FrameType::shuffled:
    case FrameType::decrypt:
      // The proof (or the earlier batches and proofs) after the records: sized by the receiver.
      if (h.width == 0 || h.payload_length < message_bytes)
        bad(Errc::malformed_frame, t + ": payload of " + std::to_string(h.payload_length) + " bytes for " + std::to_string(h.count) +
                                       " records of " + std::to_string(h.width) + " bytes");
      break;
    case FrameType::verdict:
      if (h.width != 0 || h.count == 0 || h.payload_length < verdict_root_bytes + std::uint64_t{h.count} ||
          h.payload_length - verdict_root_bytes - h.count > limits.max_abort_reason)
        bad(Errc::malformed_frame, "verdict: payload of " + std::to_string(h.payload_length) + " bytes for " + std::to_string(h.count) +
                                       " parties");
      break;
    case FrameType::dkg:
    case FrameType::dkg_answer:
      if (h.width != 0 || h.count != 0 || h.round < 1 || h.round > 5) bad(Errc::malformed_frame, t + " frame of step " + std::to_string(h.round) + " (1 to 5, no messages)");
      break;
    case FrameType::admitted:
      if (h.width != 0 || h.count != 0 || h.payload_length != admitted_payload_bytes)
        bad(Errc::malformed_frame, "admitted: " + std::to_string(h.payload_length) + " bytes, not a digest and a signature (" +
                                       std::to_string(admitted_payload_bytes) + ")");
      break;
    case FrameType::abort:
      if (h.width != 0 || h.count != 0) bad(Errc::malformed_frame, "abort frame with messages");
      if (h.payload_length > limits.max_abort_reason) bad(Errc::oversized_frame, "abort: reason too long");
      break;
  }
}

}  // namespace

FrameHeader decode_header(std::span<const std::uint8_t> bytes, const SessionId& session, const Limits& limits) {
  if (bytes.size() != frame_header_bytes)
    bad(Errc::malformed_frame, std::to_string(bytes.size()) + " bytes, expected " + std::to_string(frame_header_bytes));
  FrameHeader h;
  const std::uint8_t* p = bytes.data();
  h.magic = load_le<std::uint32_t>(p), p += 4;
  if (h.magic != frame_magic) bad(Errc::malformed_frame, "bad magic");
  h.version = load_le<std::uint16_t>(p), p += 2;
  if (h.version != wire_version)
    bad(Errc::malformed_frame, "version " + std::to_string(h.version) + ", this build speaks " + std::to_string(wire_version));
  const auto type = load_le<std::uint16_t>(p);
  p += 2;
  if (type < 1 || type > max_frame_type) bad(Errc::malformed_frame, "unknown type " + std::to_string(type));
  h.type = static_cast<FrameType>(type);
  std::copy(p, p + session_id_bytes, h.session.begin()), p += session_id_bytes;
  if (h.session != session) bad(Errc::wrong_session, "session id " + to_hex(h.session) + " is not this session's");
  h.round = load_le<std::uint32_t>(p), p += 4;
  h.width = load_le<std::uint32_t>(p), p += 4;
  h.count = load_le<std::uint32_t>(p), p += 4;
  h.payload_length = load_le<std::uint32_t>(p);

  const std::string t = type_name(type);
  if (h.width > limits.max_width)
    bad(Errc::oversized_frame, t + ": width " + std::to_string(h.width) + " above the limit " + std::to_string(limits.max_width));
  if (h.count > limits.max_count)
    bad(Errc::oversized_frame, t + ": count " + std::to_string(h.count) + " above the limit " + std::to_string(limits.max_count));
  if (h.payload_length > limits.max_payload)
    bad(Errc::oversized_frame, t + ": payload of " + std::to_string(h.payload_length) + " bytes above the limit " +
                                   std::to_string(limits.max_payload));
  check_content(h, t, limits);
  return h;
}

std::array<std::uint8_t, hello_bytes> encode_hello(const Hello& h) {
  std::array<std::uint8_t, hello_bytes> out{};
  std::uint8_t* p = out.data();
  store_le<std::uint32_t>(p, h.magic), p += 4;
  store_le<std::uint16_t>(p, h.version), p += 2;
  store_le<std::uint16_t>(p, h.reserved), p += 2;
  std::copy(h.session.begin(), h.session.end(), p), p += session_id_bytes;
  store_le<std::uint32_t>(p, h.first), p += 4;
  store_le<std::uint32_t>(p, h.count), p += 4;
  std::copy(h.ephemeral_key.begin(), h.ephemeral_key.end(), p), p += public_key_bytes;
  std::copy(h.config.begin(), h.config.end(), p);
  return out;
}

Hello decode_hello(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != hello_bytes) throw_error(Errc::malformed_frame, "hello: wrong size");
  Hello h;
  const std::uint8_t* p = bytes.data();
  h.magic = load_le<std::uint32_t>(p), p += 4;
  if (h.magic != hello_magic) throw_error(Errc::malformed_frame, "hello: bad magic (not a shufflempc client)");
  h.version = load_le<std::uint16_t>(p), p += 2;
  if (h.version != wire_version)
    throw_error(Errc::malformed_frame, "hello: version " + std::to_string(h.version) + ", this build speaks " +
                                           std::to_string(wire_version));
  h.reserved = load_le<std::uint16_t>(p), p += 2;
  if (h.reserved != 0) throw_error(Errc::malformed_frame, "hello: reserved field is not zero");
  std::copy(p, p + session_id_bytes, h.session.begin()), p += session_id_bytes;
  h.first = load_le<std::uint32_t>(p), p += 4;
  h.count = load_le<std::uint32_t>(p), p += 4;
  if (h.count == 0) throw_error(Errc::malformed_frame, "hello: claims no party");
  if (h.first == analyzer_id ? h.count != 1 : std::uint64_t{h.first} + h.count > analyzer_id)
    throw_error(Errc::malformed_frame, "hello: party range out of bounds");
  std::copy(p, p + public_key_bytes, h.ephemeral_key.begin()), p += public_key_bytes;
  std::copy(p, p + config_digest_bytes, h.config.begin());
  return h;
}

std::vector<std::uint8_t> encode_submit(std::span<const std::uint32_t> counts, std::span<const std::uint8_t> messages) {
  std::vector<std::uint8_t> out(4 * counts.size() + messages.size());
  std::uint8_t* p = out.data();
  for (std::uint32_t c : counts) store_le<std::uint32_t>(p, c), p += 4;
  if (!messages.empty()) std::copy(messages.begin(), messages.end(), p);
  return out;
}

SubmitPayload decode_submit(const FrameHeader& h, std::span<const std::uint8_t> payload, std::size_t parties) {
  const auto fail = [](const std::string& what) { throw_error(Errc::malformed_frame, "submit: " + what); };
  if (h.type != FrameType::submit) fail("not a submit frame");
  const std::uint64_t message_bytes = std::uint64_t{h.width} * h.count;
  if (payload.size() != h.payload_length || payload.size() != 4 * std::uint64_t{parties} + message_bytes)
    fail("payload of " + std::to_string(payload.size()) + " bytes is not a count for each of the link's " + std::to_string(parties) +
         " parties and " + std::to_string(h.count) + " messages");
  SubmitPayload s;
  s.counts.resize(parties);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < parties; ++i) {
    s.counts[i] = load_le<std::uint32_t>(payload.data() + 4 * i);
    if (s.counts[i] != submit_absent) total += s.counts[i];
  }
  if (total != h.count) fail("the parties' counts add up to " + std::to_string(total) + ", the header says " + std::to_string(h.count));
  s.messages = payload.subspan(4 * parties);
  return s;
}

std::size_t result_prefix_bytes(std::size_t submitted, std::size_t dropped, std::size_t report_bytes, std::size_t evidence_bytes) {
  return 24 + 4 * (submitted + dropped) + report_bytes + evidence_bytes;
}

std::vector<std::uint8_t> encode_result(std::uint64_t messages, std::span<const PartyId> submitted,
                                        std::span<const PartyId> dropped, std::span<const std::uint8_t> reports,
                                        std::span<const std::uint8_t> output, std::span<const std::uint8_t> evidence) {
  if (reports.size() > max_reports_bytes) throw std::invalid_argument("encode_result: hop reports above max_reports_bytes");
  std::vector<std::uint8_t> out(result_prefix_bytes(submitted.size(), dropped.size(), reports.size(), evidence.size()) + output.size());
  std::uint8_t* p = out.data();
  store_le<std::uint64_t>(p, messages), p += 8;
  store_le<std::uint32_t>(p, static_cast<std::uint32_t>(submitted.size())), p += 4;
  store_le<std::uint32_t>(p, static_cast<std::uint32_t>(dropped.size())), p += 4;
  store_le<std::uint32_t>(p, static_cast<std::uint32_t>(reports.size())), p += 4;
  store_le<std::uint32_t>(p, static_cast<std::uint32_t>(evidence.size())), p += 4;
  for (PartyId id : submitted) store_le<std::uint32_t>(p, id), p += 4;
  for (PartyId id : dropped) store_le<std::uint32_t>(p, id), p += 4;
  if (!reports.empty()) p = std::copy(reports.begin(), reports.end(), p);
  if (!evidence.empty()) p = std::copy(evidence.begin(), evidence.end(), p);
  if (!output.empty()) std::copy(output.begin(), output.end(), p);
  return out;
}

ResultPayload decode_result(const FrameHeader& h, std::span<const std::uint8_t> payload, std::size_t parties,
                            const Limits& limits) {
  const auto fail = [](const std::string& what) { throw_error(Errc::malformed_frame, "result: " + what); };
  if (h.type != FrameType::result) fail("not a result frame");
  if (payload.size() != h.payload_length || payload.size() < result_prefix_bytes(0, 0)) fail("payload shorter than its prefix");
  ResultPayload r;
  const std::uint8_t* p = payload.data();
  r.messages = load_le<std::uint64_t>(p), p += 8;
  const auto ns = load_le<std::uint32_t>(p);
  const auto nd = load_le<std::uint32_t>(p + 4);
  const auto nr = load_le<std::uint32_t>(p + 8);
  const auto ne = load_le<std::uint32_t>(p + 12);
  p += 16;
  if (ns > limits.max_parties || nd > limits.max_parties || std::uint64_t{ns} + nd > parties)
    fail("more ids than parties in the session");
  if (nr > max_reports_bytes) fail("hop reports of " + std::to_string(nr) + " bytes, above the limit " + std::to_string(max_reports_bytes));
  const std::uint64_t message_bytes = std::uint64_t{h.width} * h.count;
  if (result_prefix_bytes(ns, nd, nr, ne) + message_bytes > payload.size())
    fail("payload shorter than its id lists, hop reports, evidence and messages");
  if (h.count != 0 && h.count != r.messages) fail("carries " + std::to_string(h.count) + " of " + std::to_string(r.messages) + " messages");
  const auto read_ids = [&](std::uint32_t n, std::vector<PartyId>& ids) {
    ids.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i, p += 4) {
      const auto id = load_le<std::uint32_t>(p);
      if (id >= parties || (!ids.empty() && id <= ids.back())) fail("id list not ascending or out of range");
      ids.push_back(id);
    }
  };
  read_ids(ns, r.submitted);
  read_ids(nd, r.dropped);
  r.reports = std::span<const std::uint8_t>(p, nr);
  p += nr;
  r.evidence = std::span<const std::uint8_t>(p, ne);
  p += ne;
  r.output = std::span<const std::uint8_t>(p, static_cast<std::size_t>(message_bytes));
  p += message_bytes;
  r.receipt = std::span<const std::uint8_t>(p, static_cast<std::size_t>(payload.data() + payload.size() - p));
  return r;
}

std::vector<std::uint8_t> encode_verdict(const VerdictPayload& v) {
  std::vector<std::uint8_t> out(v.root.begin(), v.root.end());
  for (const Verdict p : v.parties) out.push_back(static_cast<std::uint8_t>(p));
  out.insert(out.end(), v.reason.begin(), v.reason.end());
  return out;
}

VerdictPayload decode_verdict(const FrameHeader& h, std::span<const std::uint8_t> payload) {
  const auto fail = [](const std::string& what) { throw_error(Errc::malformed_frame, "verdict: " + what); };
  if (h.type != FrameType::verdict || payload.size() != h.payload_length || payload.size() < verdict_root_bytes + h.count)
    fail("payload shorter than its root and parties");
  VerdictPayload v;
  std::copy_n(payload.begin(), verdict_root_bytes, v.root.begin());
  for (std::uint32_t i = 0; i < h.count; ++i) {
    const std::uint8_t b = payload[verdict_root_bytes + i];
    if (b > static_cast<std::uint8_t>(Verdict::complaint)) fail("party " + std::to_string(i) + "'s verdict is " + std::to_string(b));
    v.parties.push_back(static_cast<Verdict>(b));
  }
  v.reason.assign(payload.begin() + static_cast<std::ptrdiff_t>(verdict_root_bytes + h.count), payload.end());
  return v;
}

}  // namespace shufflempc::net

namespace shufflempc::net {
namespace {

constexpr char admission_context[] = "shufflempc admission v1";
constexpr char receipt_context[] = "shufflempc admission receipt v1";

void hash_u32(crypto_generichash_state& st, std::uint32_t v) {
  std::uint8_t b[4];
  store_le<std::uint32_t>(b, v);
  crypto_generichash_update(&st, b, sizeof b);
}

}  // namespace

RecordDigest Admission::digest() const {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, crypto_generichash_BYTES);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(admission_context), sizeof admission_context - 1);
  hash_u32(st, round);
  hash_u32(st, first);
  hash_u32(st, static_cast<std::uint32_t>(counts.size()));
  for (auto c : counts) hash_u32(st, c);
  hash_u32(st, width);
  hash_u32(st, static_cast<std::uint32_t>(messages.size()));
  crypto_generichash_update(&st, messages.data(), messages.size());
  RecordDigest d{};
  crypto_generichash_final(&st, d.data(), d.size());
  return d;
}

std::vector<std::uint8_t> admission_statement(const SessionId& session, std::uint32_t round, PartyId first, const RecordDigest& digest) {
  std::vector<std::uint8_t> out(receipt_context, receipt_context + sizeof receipt_context - 1);
  out.insert(out.end(), session.begin(), session.end());
  std::uint8_t b[8];
  store_le<std::uint32_t>(b, round);
  store_le<std::uint32_t>(b + 4, first);
  out.insert(out.end(), b, b + 8);
  out.insert(out.end(), digest.begin(), digest.end());
  return out;
}

}  // namespace shufflempc::net
