// Trace points along the path of a record (docs/ARCHITECTURE.md, "The journey of one record"): each
// function that document names marks itself with trace::point("Name"). Nothing is noted unless a
// trace::Recorder is alive (a test that checks the path the code really takes, in order); then every
// point any thread passes is noted in the order it was passed. Unrecorded, a point costs one atomic
// load.
#pragma once

#include <string>
#include <vector>

namespace shufflempc::trace {

// Notes `where` (a string literal: it is kept as a pointer until copied into the record) if a
// Recorder is alive.
void point(const char* where) noexcept;

class Recorder {
 public:
  // Starts noting points; one Recorder at a time (a second throws std::logic_error).
  Recorder();
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  // The points passed so far, in order.
  [[nodiscard]] std::vector<std::string> points() const;
};

}  // namespace shufflempc::trace
