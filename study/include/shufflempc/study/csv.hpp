// The one CSV writer of the studies (RFC 4180): a header, then rows with as many fields; a field
// holding a comma, a quote or a line break is quoted, its quotes doubled. Every table a study
// writes (the grid's cells and trials, the experiments' rows) goes through it.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace shufflempc::study {

class CsvWriter {
 public:
  // Writes the header row.
  CsvWriter(std::ostream& out, std::vector<std::string> columns);
  // One row; throws std::logic_error when it does not have one field per column.
  void row(const std::vector<std::string>& fields);
  [[nodiscard]] const std::vector<std::string>& columns() const { return columns_; }

  // A field as written (quoted only when it must be).
  [[nodiscard]] static std::string field(const std::string& text);
  // A number with `significant` digits (printf's %g), "inf" or "nan" as they are; empty when absent.
  [[nodiscard]] static std::string number(double v, int significant = 6);
  [[nodiscard]] static std::string number(const std::optional<double>& v, int significant = 6);

 private:
  void write(const std::vector<std::string>& fields);
  std::ostream& out_;
  std::vector<std::string> columns_;
};

}  // namespace shufflempc::study
