// Figures take user text (titles, series labels, fixed parameters, the output path) to gnuplot:
// none of it may run anything. And what a figure shows: a PDF for a paper, a log axis reaching 10^6
// labelled 10⁰ ... 10⁶ (never 1e+06 beside 100000), a key entry of its own, a line out of the key,
// and counts as a figure writes them. Every path is tried with a backquoted command, system(...), quotes
// and a line break, and the sentinel file those commands would create must not exist. The scratch
// directory cannot be taken over by a local user who prepares it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shufflempc/process.hpp"
#include "shufflempc/study/study.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

namespace {

// Text that would create `sentinel` if gnuplot (or a shell behind it) interpreted it.
std::string hostile(const std::string& sentinel) {
  return "a `touch " + sentinel + "` b system(\"touch " + sentinel + "\") it's \"quoted\" \\ @x\nsecond line";
}

study::Spec small_spec(const std::string& text) {
  study::Spec spec;
  spec.title = text;
  spec.series = {{.label = text, .protocol = "counting", .params = {}}};
  spec.axes = {{.key = "epsilon", .values = {"0.5", "1"}}};
  spec.fixed = {{"delta", text}};  // shown in the subtitle only: the study does not run with it
  spec.x = "epsilon";
  spec.trials = 2;
  return spec;
}

std::vector<study::Cell> cells_for(const study::Spec& spec) {
  std::vector<study::Cell> cells;
  for (const auto& v : spec.axes.front().values) {
    study::Cell c;
    c.point = {{"epsilon", v}};
    c.summary.rmse = c.summary.rmse_low = c.summary.rmse_high = 1 + v.number.value();
    cells.push_back(c);
  }
  return cells;
}

}  // namespace

TEST_CASE("plot: titles, labels, series names and fixed values reach gnuplot as literal text (PNG and SVG)") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  const test::TempDir dir("shufflempc-plotsafety");
  const std::string sentinel = dir / "pwned";
  const std::string text = hostile(sentinel);
  const auto spec = small_spec(text);
  for (const char* ext : {".png", ".svg"}) {
    const std::string out = dir / (std::string("grid") + ext);
    study::plot(spec, cells_for(spec), out);
    CHECK(std::filesystem::file_size(out) > 0);
  }
  std::ifstream svg(dir / "grid.svg");
  const std::string drawn((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK(drawn.find("touch") != std::string::npos);  // the text is drawn as it was written
  CHECK((drawn.find("it&apos;s") != std::string::npos || drawn.find("it's") != std::string::npos));
  const std::vector<study::Line> lines = {{.title = text, .points = {{0, 1}, {1, 2}}}};
  study::plot_lines(lines, text, text, text, dir / "lines.svg");
  CHECK(std::filesystem::file_size(dir / "lines.svg") > 0);
  CHECK_FALSE(std::filesystem::exists(sentinel));
}

TEST_CASE("plot: an output path and a --title with shell syntax in them are names, not commands (study and study xor-sum)") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  const test::TempDir dir("shufflempc-plotsafety");
  const std::string sentinel = dir / "pwned";
  // A file name holds no '/', so its command creates a file in the working directory.
  const std::string here = "shufflempc-pwned-" + std::to_string(::getpid());
  const std::string odd = dir / ("fig `touch " + here + "` it's.svg");
  const auto a = run_command({test::cli_binary(), "study", "-p", "counting", "--vary", "epsilon=0.5,1", "-n", "3000", "--trials", "2", "--quiet",
                              "--title", hostile(sentinel), "--plot", odd},
                             std::chrono::minutes(2));
  REQUIRE_MESSAGE(a.exit_code == 0, a.err);
  CHECK(std::filesystem::exists(odd));
  const std::string odd2 = dir / ("xor `touch " + here + "`.svg");
  const auto b = run_command({test::cli_binary(), "study", "xor-sum", "--parties", "8", "--runs", "1", "--alpha", "1", "--queries", "1",
                              "--executions", "h", "--quiet", "--plot", odd2},
                             std::chrono::minutes(2));
  REQUIRE_MESSAGE(b.exit_code == 0, b.err);
  CHECK(std::filesystem::exists(odd2));
  CHECK_FALSE(std::filesystem::exists(sentinel));
  CHECK_FALSE(std::filesystem::exists(here));
}

TEST_CASE("plot: a scratch directory prepared by someone else (the old predictable name, a planted script link) is not used") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  const test::TempDir dir("shufflempc-plotsafety");
  // The name figures used to take, prepared with a link where the script would be written.
  const auto planted = std::filesystem::temp_directory_path() / ("shufflempc-plot-" + std::to_string(::getpid()));
  std::filesystem::create_directories(planted);
  const std::string victim = dir / "victim.txt";
  std::ofstream(victim) << "unchanged\n";
  std::filesystem::create_symlink(victim, planted / "plot.gp");
  std::filesystem::create_symlink(victim, planted / "data.txt");
  const auto spec = small_spec("safe");
  study::plot(spec, cells_for(spec), dir / "f.svg");
  CHECK(std::filesystem::file_size(dir / "f.svg") > 0);
  std::ifstream in(victim);
  std::string line;
  std::getline(in, line);
  CHECK(line == "unchanged");
  std::filesystem::remove_all(planted);
}

TEST_CASE("plot: a .pdf is a PDF, a log axis that reaches 10^6 is labelled by powers of ten, and key entries stand alone") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  const test::TempDir dir("shufflempc-plotforms");
  const std::vector<study::Line> lines = {{.title = "", .points = {{1, 10}, {2, 1e6}}, .points_only = true, .point_type = 7},
                                          {.title = "a marker", .points_only = true, .colour = study::neutral_colour, .point_type = 7, .key_only = true},
                                          {.title = "a colour", .colour = "mpc2", .key_only = true}};
  study::plot_lines(lines, "t", "x", "y", dir / "f.pdf", {.log_x = true, .log_y = true, .padded = true});
  std::ifstream pdf(dir / "f.pdf", std::ios::binary);
  std::string head(5, '\0');
  pdf.read(head.data(), 5);
  CHECK(head == "%PDF-");
  study::plot_lines(lines, "t", "x", "y", dir / "f.svg", {.log_x = true, .log_y = true, .padded = true});
  std::ifstream svg(dir / "f.svg");
  const std::string drawn((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK(drawn.find("10⁶") != std::string::npos);
  CHECK(drawn.find("10¹") != std::string::npos);
  CHECK(drawn.find("1e+06") == std::string::npos);
  CHECK(drawn.find("a marker") != std::string::npos);
  CHECK(drawn.find("a colour") != std::string::npos);
  CHECK_THROWS_WITH_AS(study::plot_lines(lines, "t", "x", "y", dir / "f.eps"), doctest::Contains("must end in .png, .svg or .pdf"),
                       std::invalid_argument);
  CHECK(study::figure_count(1'000'000) == "10⁶");
  CHECK(study::figure_count(1000) == "10³");
  CHECK(study::figure_count(250'000) == "250,000");
  CHECK(study::figure_count(5000) == "5000");
  CHECK(study::figure_count(64) == "64");
}
