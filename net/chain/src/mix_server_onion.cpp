// A further server of an onion chain: the entry's mix frame (peel this hop's layer, shuffle, sign
// the report), answered again when the entry asks twice.
#include <algorithm>
#include <filesystem>
#include <span>
#include <string>

#include "mix_server_impl.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/net/onion.hpp"

namespace shufflempc::net {

// One mix frame: the answer, or the reason the link ends.
std::optional<Fault> TcpMixServer::Impl::take_mix(Served& s, SecureLink& link, detail::Frame& f) {
  const std::uint32_t r = f.header.round;
  const std::string round = "round " + std::to_string(r);
  MessageBatch batch = MessageBatch::from_bytes(f.header.width, std::move(f.payload));
  if (s.last.valid && r == s.last.round) {
    if (batch_digest(batch) != s.last.received)
      return refusal(FaultCode::duplicate, r, round + " was mixed already, with another batch: a server mixes each round once");
    send_last(s, link);  // the entry lost its link before the answer: the same answer again
    return std::nullopt;
  }
  if (r != s.next_round) return refusal(FaultCode::wrong_round, r, round + " is out of order: the next round to mix is " + std::to_string(s.next_round));
  if (options.step) options.step("received");
  if (r >= s.config.rounds.size()) return refusal(FaultCode::wrong_round, r, round + ": the session has " + std::to_string(s.config.rounds.size()) + " rounds");
  const std::size_t width = s.config.rounds[r].width - onion::layer_overhead * s.hop;
  if (f.header.width != width)
    return refusal(FaultCode::wrong_width, r, round + ": records of " + std::to_string(f.header.width) + " bytes, this hop takes " + std::to_string(width));
  auto mixed = s.mixer->mix(batch, s.config.session, r, rng);
  const auto& rep = mixed.report;
  if (rep.not_opened + rep.duplicates > 0)
    log(s.tag + round + ": hop " + std::to_string(s.hop) + " dropped " + std::to_string(rep.not_opened) + " record(s) that did not open and " +
        std::to_string(rep.duplicates) + " copies");
  s.last.valid = true;
  s.last.round = r;
  s.last.received = rep.received;
  s.last.width = static_cast<std::uint32_t>(mixed.records.width());
  s.last.count = static_cast<std::uint32_t>(mixed.records.count());
  s.last.payload = encode_reports(std::span(&rep, 1));
  s.last.payload.insert(s.last.payload.end(), mixed.records.bytes().begin(), mixed.records.bytes().end());
  s.report.rounds.push_back(rep);
  if (s.store) {
    try {
      keep_last(s);
    } catch (const std::exception& e) {  // not kept: not sent, and the session ends saying why
      s.last.valid = false;
      s.report.rounds.pop_back();
      end(s, round + ": " + e.what());
      return refusal(FaultCode::session_ended, r, round + ": " + e.what());
    }
  }
  if (options.step) options.step("kept");
  send_last(s, link);
  s.next_round = r + 1;
  if (s.next_round == s.config.rounds.size()) end(s, "");
  else arm_idle(s);
  return std::nullopt;
}

// The kept value "last": the reports of every round mixed (a length, then encode_reports), then the
// last answer: its round, the digest of the batch it answers, its width, its count and its payload.
void TcpMixServer::Impl::keep_last(Served& s) {
  const auto reports = encode_reports(s.report.rounds);
  std::vector<std::uint8_t> v(4 + reports.size() + 4 + 32 + 4 + 4);
  std::uint8_t* p = v.data();
  store_le<std::uint32_t>(p, static_cast<std::uint32_t>(reports.size()));
  p = std::copy(reports.begin(), reports.end(), p + 4);
  store_le<std::uint32_t>(p, s.last.round);
  p = std::copy(s.last.received.begin(), s.last.received.end(), p + 4);
  store_le<std::uint32_t>(p, s.last.width);
  store_le<std::uint32_t>(p + 4, s.last.count);
  v.insert(v.end(), s.last.payload.begin(), s.last.payload.end());
  s.store->keep("last", v);
}

void TcpMixServer::Impl::open_state(Served& s) {
  const std::string session = to_hex(s.config.session);
  if (verifiable(s))
    throw std::invalid_argument("--state-dir: a mix server keeps the state of an onion chain's sessions; session " + session.substr(0, 8) +
                                " is a verifiable chain");
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
  if (v.size() < 4 + n + 4 + 32 + 8) throw torn();
  try {
    s.report.rounds = decode_reports(v.subspan(4, n));
  } catch (const std::exception&) {
    throw torn();
  }
  const std::uint8_t* p = v.data() + 4 + n;
  s.last.valid = true;
  s.last.type = FrameType::mixed;
  s.last.round = load_le<std::uint32_t>(p);
  std::copy_n(p + 4, s.last.received.size(), s.last.received.begin());
  s.last.width = load_le<std::uint32_t>(p + 36);
  s.last.count = load_le<std::uint32_t>(p + 40);
  s.last.payload.assign(p + 44, v.data() + v.size());
  if (s.report.rounds.empty() || s.last.round >= s.config.rounds.size() ||
      s.last.payload.size() != hop_report_bytes + std::size_t{s.last.width} * s.last.count)
    throw torn();
  // The round after the last one mixed is the next; a session whose last round was mixed waits (the
  // linger) for an entry that lost the answer.
  s.next_round = s.last.round + 1;
  if (s.next_round == s.config.rounds.size()) s.ended = true;
  log(s.tag + "round " + std::to_string(s.last.round) + "'s answer taken back from the state directory: the same batch gets it again");
}

}  // namespace shufflempc::net
