// parse_json_document: every reader sees one document: a field named twice in any object is refused.
#include <doctest/doctest.h>

#include <stdexcept>

#include "shufflempc/json.hpp"

using namespace shufflempc;

TEST_CASE("json: a document naming a field twice in one object is refused at any depth, and the same names in different objects are not") {
  CHECK(parse_json_document(R"({"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})", "the file")["c"][1]["a"] == 4);
  for (const char* twice : {R"({"records": "", "records": "ab"})", R"({"x": {"k": 1, "k": 1}})", R"([{"ok": 1}, {"k": [], "k": []}])",
                            R"({"deep": [[[{"a": {"b": 1, "b": 2}}]]]})"}) {
    CAPTURE(twice);
    CHECK_THROWS_WITH_AS((void)parse_json_document(twice, "the file"), doctest::Contains("the file names the field"), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS((void)parse_json_document(R"({"records": 1, "records": 2})", "the file"),
                       doctest::Contains("the file names the field \"records\" twice in one object"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_json_document("{\"a\": ", "the file"), doctest::Contains("the file is not JSON"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_json_document("", "the file"), doctest::Contains("the file is not JSON"), std::invalid_argument);
}
