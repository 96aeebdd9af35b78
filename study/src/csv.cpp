#include "shufflempc/study/csv.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace shufflempc::study {

CsvWriter::CsvWriter(std::ostream& out, std::vector<std::string> columns) : out_(out), columns_(std::move(columns)) { write(columns_); }

void CsvWriter::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_.size())
    throw std::logic_error(fmt::format("CsvWriter: a row of {} fields under {} columns", fields.size(), columns_.size()));
  write(fields);
}

void CsvWriter::write(const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out_ << (i ? "," : "") << field(fields[i]);
  out_ << '\n';
}

std::string CsvWriter::field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string CsvWriter::number(double v, int significant) { return fmt::format("{:.{}g}", v, significant); }

std::string CsvWriter::number(const std::optional<double>& v, int significant) { return v ? number(*v, significant) : std::string(); }

}  // namespace shufflempc::study
