#include "shufflempc/registry.hpp"
#include "shufflempc/suggest.hpp"

#include <algorithm>
#include <stdexcept>

namespace shufflempc {

void Registry::add(ProtocolInfo info) {
  if (find(info.name) != nullptr) throw std::invalid_argument("protocol '" + info.name + "' registered twice");
  protocols_.push_back(std::move(info));
  std::sort(protocols_.begin(), protocols_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

const ProtocolInfo* Registry::find(const std::string& name) const {
  for (const auto& p : protocols_)
    if (p.name == name) return &p;
  return nullptr;
}

const ProtocolInfo& Registry::get(const std::string& name) const {
  if (const auto* p = find(name)) return *p;
  std::string names;
  std::vector<std::string> all;
  for (const auto& p : protocols_) {
    names += (names.empty() ? "" : ", ") + p.name;
    all.push_back(p.name);
  }
  throw std::invalid_argument("unknown protocol '" + name + "'" + did_you_mean(name, all) + " (known: " + names + ")");
}

std::unique_ptr<Protocol> Registry::create(const std::string& name, const std::map<std::string, std::string>& params,
                                           std::size_t parties, std::size_t min_parties) const {
  const ProtocolInfo& info = get(name);
  if (parties < info.min_parties || parties > info.max_parties)
    throw std::invalid_argument("parties = " + std::to_string(parties) + " is out of range for " + name +
                                ": must be in [" + std::to_string(info.min_parties) + ", " +
                                std::to_string(info.max_parties) + "]");
  if (min_parties > parties)
    throw std::invalid_argument("min-parties = " + std::to_string(min_parties) + " is out of range: must be in [0, parties = " +
                                std::to_string(parties) + "]");
  return info.create(Params::parse(info.params, params), Population{parties, min_parties});
}

std::map<std::string, std::string> files_read(const ProtocolInfo& info, const std::map<std::string, std::string>& params) {
  std::map<std::string, std::string> files;
  for (const auto& p : info.params) {
    if (!p.reads_file) continue;
    const auto given = params.find(p.name);
    if (auto path = p.reads_file(given != params.end() ? given->second : p.default_value)) files[p.name] = std::move(*path);
  }
  return files;
}

}  // namespace shufflempc
