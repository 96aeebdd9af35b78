#include "shufflempc/json.hpp"

#include <set>
#include <stdexcept>
#include <vector>

namespace shufflempc {

Value parse_json_document(const std::string& text, std::string_view what) {
  std::vector<std::set<std::string>> open;  // the names seen in each object still open (lists hold none)
  std::vector<bool> is_object;
  const Value::parser_callback_t once = [&](int, Value::parse_event_t event, Value& parsed) {
    switch (event) {
      case Value::parse_event_t::object_start:
        is_object.push_back(true);
        open.emplace_back();
        break;
      case Value::parse_event_t::array_start:
        is_object.push_back(false);
        break;
      case Value::parse_event_t::object_end:
        open.pop_back();
        is_object.pop_back();
        break;
      case Value::parse_event_t::array_end:
        is_object.pop_back();
        break;
      case Value::parse_event_t::key:
        if (!open.back().insert(parsed.get_ref<const std::string&>()).second)
          throw std::invalid_argument(std::string(what) + " names the field \"" + parsed.get<std::string>() +
                                      "\" twice in one object (a reader that keeps the first would see another document)");
        break;
      case Value::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    return Value::parse(text, once);
  } catch (const Value::exception& e) {
    throw std::invalid_argument(std::string(what) + " is not JSON (" + e.what() + ")");
  }
}

}  // namespace shufflempc
