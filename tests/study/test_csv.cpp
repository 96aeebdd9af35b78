// The studies' one CSV writer (study/csv.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "shufflempc/study/csv.hpp"

using shufflempc::study::CsvWriter;

TEST_CASE("CsvWriter: a header, rows of as many fields, quoting only where RFC 4180 needs it") {
  std::ostringstream out;
  CsvWriter csv(out, {"name", "value", "note"});
  csv.row({"plain", "1", ""});
  csv.row({"a,b", "say \"hi\"", "two\nlines"});
  CHECK(out.str() == "name,value,note\nplain,1,\n\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
  CHECK_THROWS_AS(csv.row({"too", "few"}), std::logic_error);
  CHECK(CsvWriter::field("\r") == "\"\r\"");
}

TEST_CASE("CsvWriter: numbers with the digits asked, absent ones empty, infinities as inf") {
  CHECK(CsvWriter::number(0.123456789) == "0.123457");
  CHECK(CsvWriter::number(0.123456789, 10) == "0.123456789");
  CHECK(CsvWriter::number(std::optional<double>{}) == "");
  CHECK(CsvWriter::number(std::optional<double>{2.5}, 10) == "2.5");
  CHECK(CsvWriter::number(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(CsvWriter::number(1e-7) == "1e-07");
}
