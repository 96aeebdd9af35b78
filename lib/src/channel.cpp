#include "shufflempc/channel.hpp"

#include <algorithm>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/shuffle.hpp"

namespace shufflempc {

AnonymousChannel::~AnonymousChannel() = default;

const char* to_string(Delivery d) { return d == Delivery::all_parties ? "all-parties" : "analyzer-only"; }

std::string name_parties(std::span<const PartyId> ascending, std::size_t max_runs) {
  if (ascending.empty()) return "no party";
  if (ascending.size() == 1) return "party " + std::to_string(ascending.front());
  std::string text = "parties ";
  std::size_t runs = 0, i = 0;
  while (i < ascending.size() && runs < max_runs) {
    std::size_t j = i;
    while (j + 1 < ascending.size() && ascending[j + 1] == ascending[j] + 1) ++j;
    if (runs++ > 0) text += ", ";
    text += std::to_string(ascending[i]);
    if (j > i) {
      text += '-';
      text += std::to_string(ascending[j]);
    }
    i = j + 1;
  }
  if (i < ascending.size()) {
    text += " and ";
    text += std::to_string(ascending.size() - i);
    text += " more";
  }
  return text;
}

RoundOutcome complete_round(const RoundRules& spec, Submissions all, Rng& rng) {
  Shuffler shuffler;
  return complete_round(spec, std::move(all), rng, shuffler);
}

RoundOutcome complete_round(const RoundRules& spec, Submissions all, Rng& rng, Shuffler& shuffler) {
  const std::string where = "round " + std::to_string(spec.round) + ": ";
  const RoundShape& shape = spec.shape;
  if (all.messages.count() > 0 && all.messages.width() != shape.width)
    throw_error(Errc::protocol_violation, where + "messages of width " + std::to_string(all.messages.width()) +
                                              ", declared width " + std::to_string(shape.width));
  RoundOutcome out;
  out.submitted.reserve(all.parties.size());
  for (const auto& s : all.parties) {
    if (s.first + s.count > all.messages.count())
      throw_error(Errc::protocol_violation, where + "party " + std::to_string(s.party) + "'s slice is out of range");
    if (!shape.accepts(s.count))
      throw_error(Errc::protocol_violation, where + "party " + std::to_string(s.party) + " sent " + std::to_string(s.count) +
                                                " messages, the round allows " + std::to_string(shape.min_messages) + " to " +
                                                std::to_string(shape.max_messages));
    out.submitted.push_back(s.party);
  }
  std::sort(out.submitted.begin(), out.submitted.end());
  if (auto dup = std::adjacent_find(out.submitted.begin(), out.submitted.end()); dup != out.submitted.end())
    throw_error(Errc::duplicate_submission, where + "party " + std::to_string(*dup) + " submitted twice");
  // Every submitter must be expected; everyone expected who did not submit dropped out.
  std::vector<PartyId> unknown;
  std::set_difference(out.submitted.begin(), out.submitted.end(), spec.expected.begin(), spec.expected.end(),
                      std::back_inserter(unknown));
  if (!unknown.empty())
    throw_error(Errc::unknown_party, where + "party " + std::to_string(unknown.front()) + " is not in the session");
  std::set_difference(spec.expected.begin(), spec.expected.end(), out.submitted.begin(), out.submitted.end(),
                      std::back_inserter(out.dropped));
  if (out.submitted.size() < spec.min_parties)
    throw_error(Errc::too_few_parties, where + std::to_string(out.submitted.size()) + " of " +
                                           std::to_string(spec.expected.size()) + " parties submitted, at least " +
                                           std::to_string(spec.min_parties) + " needed; missing: " + name_parties(out.dropped));
  if (all.messages.width() == 0) all.messages = MessageBatch(shape.width);
  shuffler.shuffle(all.messages, rng);
  out.messages = all.messages.count();
  out.output = std::move(all.messages);
  return out;
}

}  // namespace shufflempc
