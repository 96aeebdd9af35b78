// A further server's state directory (MixServerOptions::state_dir): what it keeps before an answer
// goes out, and a session taken back from it. Both kinds of chain keep "last", the last round's
// answer (an onion chain's mixed batch, a verifiable chain's proved shuffle) with every round's
// report; a verifiable chain also keeps "decrypted", its last decryption shares with the digest of
// the evidence they answer. Each is one value and one commit, made durable before its answer is
// sent: a server started again answers the same frame alike and refuses another for a round it
// answered, as the process before it did.
#include <algorithm>
#include <filesystem>
#include <span>
#include <string>

#include "mix_server_impl.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/verifiable.hpp"

namespace shufflempc::net {

namespace {

// A kept answer: u32 round | 32-byte digest (of the batch or evidence it answers) | u32 width |
// u32 count | payload.
constexpr std::size_t answer_head = 4 + 32 + 4 + 4;

void append_answer(std::vector<std::uint8_t>& v, std::uint32_t round, const BatchDigest& digest, std::uint32_t width, std::uint32_t count,
                   std::span<const std::uint8_t> payload) {
  const std::size_t at = v.size();
  v.resize(at + answer_head);
  std::uint8_t* p = v.data() + at;
  store_le<std::uint32_t>(p, round);
  std::copy(digest.begin(), digest.end(), p + 4);
  store_le<std::uint32_t>(p + 36, width);
  store_le<std::uint32_t>(p + 40, count);
  v.insert(v.end(), payload.begin(), payload.end());
}

// The answer at the start of `v` (false if it is shorter than an answer's head).
bool read_answer(std::span<const std::uint8_t> v, std::uint32_t& round, BatchDigest& digest, std::uint32_t& width, std::uint32_t& count,
                 std::vector<std::uint8_t>& payload) {
  if (v.size() < answer_head) return false;
  round = load_le<std::uint32_t>(v.data());
  std::copy_n(v.data() + 4, digest.size(), digest.begin());
  width = load_le<std::uint32_t>(v.data() + 36);
  count = load_le<std::uint32_t>(v.data() + 40);
  payload.assign(v.begin() + answer_head, v.end());
  return true;
}

}  // namespace

// "last": the reports of every round answered (a length, then encode_reports), then the last answer.
void TcpMixServer::Impl::keep_last(Served& s) {
  const auto reports = encode_reports(s.report.rounds);
  std::vector<std::uint8_t> v(4);
  v.reserve(4 + reports.size() + answer_head + s.last.payload.size());
  store_le<std::uint32_t>(v.data(), static_cast<std::uint32_t>(reports.size()));
  v.insert(v.end(), reports.begin(), reports.end());
  append_answer(v, s.last.round, s.last.received, s.last.width, s.last.count, s.last.payload);
  s.store->keep("last", v);
}

// "decrypted": the last decryption shares and the digest of the evidence they answer.
void TcpMixServer::Impl::keep_decrypted(Served& s) {
  std::vector<std::uint8_t> v;
  v.reserve(answer_head + s.decrypted.payload.size());
  append_answer(v, s.decrypted.round, s.decrypted_evidence, s.decrypted.width, s.decrypted.count, s.decrypted.payload);
  s.store->keep("decrypted", v);
}

std::optional<Fault> TcpMixServer::Impl::kept_or_refused(Served& s, std::uint32_t r, void (Impl::*keep)(Served&), const std::function<void()>& undo) {
  if (!s.store) return std::nullopt;
  try {
    (this->*keep)(s);
    return std::nullopt;
  } catch (const std::exception& e) {
    const std::string why = "round " + std::to_string(r) + ": " + e.what();
    undo();
    end(s, why);
    return refusal(FaultCode::session_ended, r, why);
  }
}

void TcpMixServer::Impl::open_state(Served& s) {
  const std::string session = to_hex(s.config.session);
  s.store = open_state_directory(std::filesystem::path(options.state_dir) / session, s.config.session, s.digest,
                                 "mix server " + std::to_string(s.hop));
  if (const auto how = s.store->ended())
    throw std::runtime_error("session " + session.substr(0, 8) + " has ended already (" + *how + "; its state directory says so)");
  const auto kept = s.store->kept("last");
  if (!kept) return;
  const auto torn = [&] { return std::runtime_error("session " + session.substr(0, 8) + ": its state directory keeps a torn answer: refused"); };
  const std::span<const std::uint8_t> v(*kept);
  if (v.size() < 4) throw torn();
  const std::size_t n = load_le<std::uint32_t>(v.data());
  if (v.size() < 4 + n) throw torn();
  try {
    s.report.rounds = decode_reports(v.subspan(4, n));
  } catch (const std::exception&) {
    throw torn();
  }
  if (!read_answer(v.subspan(4 + n), s.last.round, s.last.received, s.last.width, s.last.count, s.last.payload)) throw torn();
  s.last.valid = true;
  if (s.report.rounds.empty() || s.last.round >= s.config.rounds.size()) throw torn();
  // The round after the last one answered is the next.
  s.next_round = s.last.round + 1;
  bool done = s.next_round == s.config.rounds.size();
  if (verifiable(s)) {
    s.last.type = FrameType::shuffled;
    const std::size_t limbs = chain_limbs(s.config.rounds[s.last.round].width);
    if (s.last.width != limbs * mixnet::ciphertext_bytes) throw torn();
    try {
      s.shuffled_output = mixnet::decode_hop(s.last.payload, s.last.count, limbs, "the kept shuffle").output.to_bytes();
    } catch (const std::exception&) {
      throw torn();
    }
    if (const auto shares = s.store->kept("decrypted")) {
      if (!read_answer(*shares, s.decrypted.round, s.decrypted_evidence, s.decrypted.width, s.decrypted.count, s.decrypted.payload) ||
          s.decrypted.round > s.last.round || s.decrypted.payload.size() != std::size_t{s.decrypted.width} * s.decrypted.count)
        throw torn();
      s.decrypted.valid = true;
      s.decrypted.type = FrameType::decrypted;
    }
    // The last round shuffled still waits for its decryption, unless it had no record.
    done = done && (s.last.count == 0 || (s.decrypted.valid && s.decrypted.round == s.last.round));
  } else {
    s.last.type = FrameType::mixed;
    if (s.last.payload.size() != hop_report_bytes + std::size_t{s.last.width} * s.last.count) throw torn();
  }
  // A session whose last answer went out waits (the linger) for an entry that lost it.
  if (done) s.ended = true;
  log(s.tag + "round " + std::to_string(s.last.round) + "'s answer taken back from the state directory: the same batch gets it again" +
      (s.decrypted.valid ? ", and round " + std::to_string(s.decrypted.round) + "'s decryption shares the same evidence" : ""));
}

}  // namespace shufflempc::net
