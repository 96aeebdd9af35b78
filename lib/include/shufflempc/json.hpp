// Reading JSON that one process hands another (session configs, transcripts, reports, input files)
// so that every reader sees the same document: nlohmann's parser keeps the last of two fields of one
// name, another reader may keep the first, so an auditor could be shown other `records` than the
// program used. A document in which any object names a field twice is refused.
#pragma once

#include <string>
#include <string_view>

#include "shufflempc/runtime.hpp"

namespace shufflempc {

// `text` as JSON. Throws std::invalid_argument naming `what`: "<what> is not JSON (...)", or
// "<what> names the field \"F\" twice in one object" (at any depth).
[[nodiscard]] Value parse_json_document(const std::string& text, std::string_view what);

}  // namespace shufflempc
