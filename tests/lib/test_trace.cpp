// The trace points of the journey of a record (shufflempc/trace.hpp): off unless recorded, in order
// when recorded. tests/net/test_journey.cpp checks the points a real round passes.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/trace.hpp"

using namespace shufflempc;

TEST_CASE("trace: nothing is noted without a recorder, every point is noted in order with one, and one recorder at a time") {
  trace::point("before");
  {
    trace::Recorder recorder;
    CHECK_THROWS_AS(trace::Recorder(), std::logic_error);
    trace::point("a");
    trace::point("b");
    trace::point("a");
    CHECK(recorder.points() == std::vector<std::string>{"a", "b", "a"});
  }
  trace::point("after");
  trace::Recorder again;
  CHECK(again.points().empty());
}
