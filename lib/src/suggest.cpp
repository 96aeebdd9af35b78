#include "shufflempc/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace shufflempc {

namespace {

std::string folded(std::string_view s) {
  while (s.size() > 1 && s.front() == '-') s.remove_prefix(1);
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: i-2, i-1 and i.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> nearest_names(std::string_view word, std::span<const std::string> candidates) {
  const std::string w = folded(word);
  if (w.size() < 3) return {};  // "-x": every one-letter flag is one edit away, none is a suggestion
  const std::size_t limit = std::clamp<std::size_t>(w.size() / 3, 1, 3);
  std::size_t best = limit + 1;
  std::vector<std::string> near;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(w, folded(c));
    if (d < best) {
      best = d;
      near.clear();
    }
    if (d == best && std::find(near.begin(), near.end(), c) == near.end()) near.push_back(c);
  }
  if (!near.empty()) {
    if (near.size() > 3) near.resize(3);
    return near;
  }
  for (const auto& c : candidates)
    if (folded(c).starts_with(w)) near.push_back(c);
  return near.size() == 1 ? near : std::vector<std::string>{};
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates, std::string_view lead) {
  const auto near = nearest_names(word, candidates);
  if (near.empty()) return {};
  std::string s = std::string(lead) + "did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i)
    s += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + ("'" + near[i] + "'");
  return s + "?";
}

}  // namespace shufflempc
