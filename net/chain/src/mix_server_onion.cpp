// A further server of an onion chain: the entry's mix frame (peel this hop's layer, shuffle, sign
// the report), answered again when the entry asks twice.
#include <span>
#include <string>

#include "mix_server_impl.hpp"
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
  // The round's answer replaces the last one only once it is kept (or there is no state directory).
  Served::Last previous = std::move(s.last);
  s.last = {};
  s.last.valid = true;
  s.last.round = r;
  s.last.received = rep.received;
  s.last.width = static_cast<std::uint32_t>(mixed.records.width());
  s.last.count = static_cast<std::uint32_t>(mixed.records.count());
  s.last.payload = encode_reports(std::span(&rep, 1));
  s.last.payload.insert(s.last.payload.end(), mixed.records.bytes().begin(), mixed.records.bytes().end());
  s.report.rounds.push_back(rep);
  if (auto refused = kept_or_refused(s, r, &Impl::keep_last, [&] {
        s.last = std::move(previous);
        s.report.rounds.pop_back();
      }))
    return refused;
  if (options.step) options.step("kept");
  send_last(s, link);
  s.next_round = r + 1;
  if (s.next_round == s.config.rounds.size()) end(s, "");
  else arm_idle(s);
  return std::nullopt;
}

}  // namespace shufflempc::net
