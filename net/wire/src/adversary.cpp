// Fault injection for the adversary harness: the mutation catalogue and the dishonest entry's spec
// (net/adversary.hpp).
#include "shufflempc/net/adversary.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "shufflempc/little_endian.hpp"

namespace shufflempc::net::adversary {

namespace {

// A result frame's count and length fields: (name, offset, bytes) in the payload (wire.cpp's
// decode_result: u64 messages | u32 submitted | u32 dropped | u32 report bytes | u32 evidence bytes).
struct Field {
  const char* name;
  std::size_t offset, bytes;
};
constexpr Field result_fields[] = {{"messages", 0, 8}, {"submitted", 8, 4}, {"dropped", 12, 4}, {"reports", 16, 4}, {"evidence", 20, 4}};
constexpr std::size_t result_fixed_bytes = 24;

const std::map<std::string, FrameType>& frame_types() {
  static const std::map<std::string, FrameType> types = {
      {"confirm", FrameType::confirm}, {"submit", FrameType::submit},     {"result", FrameType::result},
      {"abort", FrameType::abort},     {"mix", FrameType::mix},           {"mixed", FrameType::mixed},
      {"shuffle", FrameType::shuffle}, {"shuffled", FrameType::shuffled}, {"decrypt", FrameType::decrypt},
      {"decrypted", FrameType::decrypted}, {"done", FrameType::done},     {"verdict", FrameType::verdict},
      {"alive", FrameType::alive},     {"dkg", FrameType::dkg},           {"dkg-answer", FrameType::dkg_answer},
      {"admitted", FrameType::admitted}};
  return types;
}

std::uint64_t get(const OutgoingFrame& f, const Field& field) {
  return field.bytes == 8 ? load_le<std::uint64_t>(f.payload.data() + field.offset) : load_le<std::uint32_t>(f.payload.data() + field.offset);
}

void put(OutgoingFrame& f, const Field& field, std::uint64_t v) {
  if (field.bytes == 8) store_le<std::uint64_t>(f.payload.data() + field.offset, v);
  else store_le<std::uint32_t>(f.payload.data() + field.offset, static_cast<std::uint32_t>(v));
}

std::pair<PartyId, PartyId> range_of(const std::string& key, const std::string& value) {
  try {
    const auto dash = value.find('-');
    std::size_t used = 0;
    const unsigned long a = std::stoul(value.substr(0, dash), &used);
    if (used != (dash == std::string::npos ? value.size() : dash)) throw std::invalid_argument("trailing");
    unsigned long b = a;
    if (dash != std::string::npos) {
      b = std::stoul(value.substr(dash + 1), &used);
      if (used != value.size() - dash - 1) throw std::invalid_argument("trailing");
    }
    if (b < a || b >= analyzer_id) throw std::invalid_argument("order");
    return {static_cast<PartyId>(a), static_cast<PartyId>(b)};
  } catch (const std::exception&) {
    throw std::invalid_argument("--fault-adversary: " + key + "=" + value + " is not a party id or a range A-B of them");
  }
}

// Calls `item(key, value)` for each KEY=VALUE of a comma-separated spec.
template <class Item>
void for_each_item(const std::string& spec, Item item) {
  std::size_t at = 0;
  while (at <= spec.size() && !spec.empty()) {
    const auto comma = std::min(spec.find(',', at), spec.size());
    const std::string entry = spec.substr(at, comma - at);
    at = comma + 1;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--fault-adversary: " + entry + " is not KEY=VALUE");
    item(entry.substr(0, eq), entry.substr(eq + 1));
  }
}

void check_type(const std::string& value) {
  if (value != "any" && !frame_types().count(value))
    throw std::invalid_argument("--fault-adversary: type=" + value + " is not a frame type (result, abort, mix, any, ...)");
}

}  // namespace

void check_mutation(const std::string& name, const std::string& key) {
  const auto& all = mutations();
  if (std::find(all.begin(), all.end(), name) != all.end()) return;
  std::string known;
  for (const auto& m : all) known += (known.empty() ? "" : ", ") + m;
  throw std::invalid_argument("--fault-adversary: " + key + "=" + name + ": unknown mutation " + name + " (known: " + known + ")");
}

const std::vector<std::string>& mutations() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> m = {"truncate",  "extend",    "empty",        "width-0",       "width-max",      "count-0",
                                  "count-max", "count-beyond", "round-earlier", "round-later", "session-other"};
    for (const auto& [name, type] : frame_types()) m.push_back("type-" + name);
    for (const char* a : {"withhold", "duplicate", "close", "throw"}) m.push_back(a);
    for (const auto& field : result_fields)
      for (const char* how : {"-0", "-max", "-beyond", "-flip"}) m.push_back(std::string(field.name) + how);
    for (const char* a : {"ids-flip", "tail-flip", "tail-cut"}) m.push_back(a);
    return m;
  }();
  return all;
}

TapAction mutate(const std::string& name, OutgoingFrame& f) {
  constexpr std::uint32_t max32 = std::numeric_limits<std::uint32_t>::max();
  auto& p = f.payload;
  if (name == "truncate") p.resize(p.size() / 2);
  else if (name == "extend") p.insert(p.end(), 17, 0xa5);
  else if (name == "empty") p.clear();
  else if (name == "width-0") f.width = 0;
  else if (name == "width-max") f.width = max32;
  else if (name == "count-0") f.count = 0;
  else if (name == "count-max") f.count = max32;
  else if (name == "count-beyond") f.count += 1;
  else if (name == "round-earlier") f.round = f.round == 0 ? max32 : f.round - 1;
  else if (name == "round-later") f.round += 1;
  else if (name == "session-other") f.session[0] ^= 0x01;
  else if (name == "withhold") return TapAction::withhold;
  else if (name == "duplicate") return TapAction::duplicate;
  else if (name == "close") return TapAction::close;
  else if (name == "throw")
    throw std::logic_error("the adversary harness: an exception thrown while a frame of type " +
                           std::to_string(static_cast<int>(f.type)) + " was being sent");
  else if (name.rfind("type-", 0) == 0) {
    const auto it = frame_types().find(name.substr(5));
    if (it == frame_types().end()) {
      check_mutation(name);  // throws, naming the known ones
      return TapAction::send;
    }
    f.type = it->second;
  } else if (name == "ids-flip") {
    if (f.type == FrameType::result && p.size() > result_fixed_bytes) p[result_fixed_bytes] ^= 0x01;
  } else if (name == "tail-flip") {
    if (!p.empty()) p.back() ^= 0x01;
  } else if (name == "tail-cut") {
    if (!p.empty()) p.pop_back();
  } else {
    const auto dash = name.rfind('-');
    const std::string field_name = name.substr(0, dash), how = dash == std::string::npos ? "" : name.substr(dash + 1);
    const auto* field = std::find_if(std::begin(result_fields), std::end(result_fields), [&](const Field& x) { return field_name == x.name; });
    if (field == std::end(result_fields) || (how != "0" && how != "max" && how != "beyond" && how != "flip")) {
      check_mutation(name);  // throws, naming the known ones
      return TapAction::send;
    }
    if (f.type != FrameType::result || p.size() < result_fixed_bytes) return TapAction::send;
    const std::uint64_t v = get(f, *field);
    const std::uint64_t largest = field->bytes == 8 ? std::numeric_limits<std::uint64_t>::max() : max32;
    put(f, *field, how == "0" ? 0 : how == "max" ? largest : how == "beyond" ? v + 1 : v ^ 1);
  }
  return TapAction::send;
}

EntrySpec parse_entry(const std::string& spec) {
  EntrySpec out;
  std::string type = "result", to = "all", mutation;
  for_each_item(spec, [&](const std::string& key, const std::string& value) {
    if (key == "ignore") {
      const auto [a, b] = range_of(key, value);
      if (b - a >= 1u << 20) throw std::invalid_argument("--fault-adversary: ignore=" + value + " spans more than 2^20 parties");
      for (PartyId p = a; p <= b; ++p) out.ignore.insert(p);
    } else if (key == "type") {
      check_type(value);
      type = value;
    } else if (key == "to") {
      if (value != "analyzer" && value != "parties" && value != "all") (void)range_of(key, value);
      to = value;
    } else if (key == "mutation") {
      check_mutation(value);  // an unknown name is refused here, not in the middle of a session
      mutation = value;
    } else {
      throw std::invalid_argument("--fault-adversary: unknown key " + key + " (ignore, type, to, mutation)");
    }
  });
  if (mutation.empty()) return out;
  std::optional<std::pair<PartyId, PartyId>> parties;
  if (to != "analyzer" && to != "parties" && to != "all") parties = range_of("to", to);
  const std::optional<FrameType> only = type == "any" ? std::nullopt : std::optional<FrameType>(frame_types().at(type));
  out.tap = [only, to, parties, mutation](PartyId first, std::uint32_t count, OutgoingFrame& f) {
    if (only && f.type != *only) return TapAction::send;
    const bool analyzer = first == analyzer_id;
    if (to == "analyzer" && !analyzer) return TapAction::send;
    if (to == "parties" && analyzer) return TapAction::send;
    if (parties && (analyzer || first + count <= parties->first || first > parties->second)) return TapAction::send;
    return mutate(mutation, f);
  };
  return out;
}

FrameTap parse_tap(const std::string& spec) {
  std::string type = "any", mutation;
  for_each_item(spec, [&](const std::string& key, const std::string& value) {
    if (key == "type") {
      check_type(value);
      type = value;
    } else if (key == "mutation") {
      check_mutation(value);
      mutation = value;
    } else {
      throw std::invalid_argument("--fault-adversary: unknown key " + key + " (type, mutation)");
    }
  });
  if (mutation.empty()) return {};
  const std::optional<FrameType> only = type == "any" ? std::nullopt : std::optional<FrameType>(frame_types().at(type));
  return [only, mutation](OutgoingFrame& f) { return only && f.type != *only ? TapAction::send : mutate(mutation, f); };
}

RoleSpec split_role(const std::string& spec) {
  RoleSpec out;
  std::string rest;
  for_each_item(spec, [&](const std::string& key, const std::string& value) {
    if (key != "role") {
      rest += (rest.empty() ? "" : ",") + key + "=" + value;
      return;
    }
    const auto index = [&](const std::string& prefix) {
      const std::string digits = value.substr(prefix.size());
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--fault-adversary: role=" + value + " is not entry, mix-server-I or party-P");
      return static_cast<std::size_t>(std::stoul(digits));
    };
    if (value == "entry") out.role = RoleSpec::Role::entry;
    else if (value.rfind("mix-server-", 0) == 0) out.role = RoleSpec::Role::mix_server, out.index = index("mix-server-");
    else if (value.rfind("party-", 0) == 0) out.role = RoleSpec::Role::party, out.index = index("party-");
    else throw std::invalid_argument("--fault-adversary: role=" + value + " is not entry, mix-server-I or party-P");
  });
  out.spec = rest;
  return out;
}

}  // namespace shufflempc::net::adversary
