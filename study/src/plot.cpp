// The study's figure through gnuplot: one line per series, the RMSE's 95% interval (or the time's
// standard deviation) as error bars, the axes named in words, the legend outside the plot.
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <system_error>

#include "shufflempc/numbers.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/study/study.hpp"

namespace shufflempc::study {
namespace {

std::optional<std::string> gnuplot_path() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = (end > start ? dirs.substr(start, end - start) : std::string(".")) + "/gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

// User text (titles, labels, series names, paths) as a gnuplot string expression that gnuplot
// takes literally: single-quoted pieces, in which gnuplot expands no backquote, no escape and no
// macro, a quote written twice; line breaks joined in as "\n" between the pieces. Nothing a user
// writes can reach a shell through gnuplot.
// (Not named quoted: std::quoted, found by argument-dependent lookup, would win for a non-const
// std::string and put the text in double quotes, where gnuplot runs backquoted commands.)
std::string gnuplot_text(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\n' || c == '\r') q += "'.\"\\n\".'";
    else if (c == '\'') q += "''";
    else q += c;
  }
  return q + "'";
}

std::string y_label(const std::string& y) {
  if (y == "rmse") return "RMSE of the estimate (vectors: per coordinate), 95% interval";
  if (y == "bias") return "mean error (estimate - truth)";
  if (y == "max_error") return "largest coordinate error, mean over trials";
  if (y == "seconds") return "seconds per trial (one core), mean +- sd";
  if (y == "messages_per_user") return "messages per user";
  return "bytes per user";
}

std::string x_label(const Spec& spec) {
  if (spec.x == "parties") return "parties n";
  if (spec.x == "inputs")
    for (const auto& a : spec.axes)
      if (a.key == "inputs") return "inputs (" + a.values.front().text.substr(0, a.values.front().text.rfind(':') + 1) + "...)";
  if (spec.x == "epsilon") return "epsilon (central, or local for the local baselines)";
  if (spec.x == "honest") return "honest: the fraction of parties the noise counts on (min-parties / n; all submit)";
  if (spec.x == "dropouts") return "dropouts: the fraction of parties that do not submit";
  return spec.x;
}

std::string superscript(int k) {
  static constexpr const char* digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = k < 0 ? "⁻" : "";
  const std::string d = std::to_string(k < 0 ? -k : k);
  for (char c : d) out += digits[c - '0'];
  return out;
}

// A log axis's labels, one a decade as 10ᵏ, when its values reach 10^5 (gnuplot's own labels would
// mix 100000 and 1e+06); nothing otherwise.
std::string decade_tics(const char* axis, double lo, double hi) {
  if (!(lo > 0) || hi < 1e5) return {};
  const int a = static_cast<int>(std::floor(std::log10(lo))), b = static_cast<int>(std::ceil(std::log10(hi)));
  std::string out = std::string("set ") + axis + "tics (";
  for (int k = a; k <= b; ++k) out += fmt::format("{}'10{}' {:g}", k == a ? "" : ", ", superscript(k), std::pow(10.0, k));
  out += ")\n";
  // gnuplot leaves out a listed tic that falls exactly on the end of a log axis's range: an end on a
  // decade is moved out by 3%.
  const auto on_decade = [](double v) { return std::abs(std::log10(v) - std::round(std::log10(v))) < 1e-9; };
  if (on_decade(lo) || on_decade(hi))
    out += fmt::format("set {}range [{}:{}]\n", axis, on_decade(lo) ? fmt::format("{:.10g}", lo / 1.03) : "*",
                       on_decade(hi) ? fmt::format("{:.10g}", hi * 1.03) : "*");
  return out;
}

// One gnuplot figure: the path and gnuplot checked, a scratch directory holding the data and the
// script, the terminal chosen by the extension; draw() runs gnuplot and checks the file it wrote.
class Figure {
 public:
  // `rows` of panels (plot_panels): each as tall as a figure of one is wide apart.
  explicit Figure(const std::string& path, std::size_t rows = 1, std::size_t columns = 1) : path_(path) {
    check_plot_path(path);
    const std::string ext = std::filesystem::path(path).extension().string();
    const auto gnuplot = gnuplot_path();
    if (!gnuplot) throw std::runtime_error("--plot: gnuplot is not installed (apt-get install gnuplot-nox; scripts/setup.sh does it)");
    gnuplot_ = *gnuplot;
    // A fresh directory only this user can enter (mkdtemp: mode 0700, a name nobody could guess and
    // pre-create), so no file in it can be someone else's link or FIFO.
    std::string tmpl = (std::filesystem::temp_directory_path() / "shufflempc-plot-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "--plot: cannot make a scratch directory");
    dir_ = tmpl;
    data_path_ = dir_ / "data.txt";
    data.open(data_path_);
    script.open(dir_ / "plot.gp");
    const bool one = rows == 1 && columns == 1;
    const std::size_t width = one ? 1100 : 700 * columns, height = one ? 650 : 640 * rows + 60;
    if (ext == ".png") script << fmt::format("set terminal pngcairo noenhanced size {},{} font 'DejaVu Sans,11'\n", width, height);
    else if (ext == ".svg") script << fmt::format("set terminal svg noenhanced size {},{} font 'DejaVu Sans,11' background rgb 'white'\n", width, height);
    else script << fmt::format("set terminal pdfcairo noenhanced size 7in,{:.2f}in font 'DejaVu Sans,8'\n", 7.0 * static_cast<double>(height) / static_cast<double>(width));
    script << "set output " << gnuplot_text(std::filesystem::absolute(path).string()) << '\n';
  }
  Figure(const Figure&) = delete;
  Figure& operator=(const Figure&) = delete;
  ~Figure() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  // The data file, quoted for the script's plot command.
  [[nodiscard]] std::string data_file() const { return gnuplot_text(data_path_.string()); }
  void draw() {
    data.close();
    script.close();
    const auto r = run_command({gnuplot_, (dir_ / "plot.gp").string()}, std::chrono::minutes(2));
    if (r.exit_code != 0) throw std::runtime_error("--plot: gnuplot failed: " + r.err);
    if (!std::filesystem::exists(path_) || std::filesystem::file_size(path_) == 0) throw std::runtime_error("--plot: gnuplot wrote no " + path_);
  }

  std::ofstream data, script;

 private:
  std::string path_, gnuplot_;
  std::filesystem::path dir_, data_path_;
};

}  // namespace

bool gnuplot_available() { return gnuplot_path().has_value(); }

void check_plot_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext != ".png" && ext != ".svg" && ext != ".pdf") throw std::invalid_argument("--plot " + path + ": the file must end in .png, .svg or .pdf");
}

std::string figure_count(std::uint64_t n) {
  if (n >= 1000) {
    std::uint64_t p = 1;
    int k = 0;
    while (p < n && p <= UINT64_MAX / 10) p *= 10, ++k;
    if (p == n) return "10" + superscript(k);
  }
  const std::string d = std::to_string(n);
  if (n < 10000) return d;
  std::string out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

void plot(const Spec& spec, const std::vector<Cell>& cells, const std::string& path) {
  if (spec.x.empty()) throw std::invalid_argument("--plot: a figure needs a varied key (--vary KEY=...)");
  Figure fig(path);
  bool geometric = false;
  for (const auto& a : spec.axes)
    if (a.key == spec.x) geometric = a.geometric || a.key == "parties";
  const bool log_x = spec.log_x.value_or(geometric);
  const bool log_y = spec.log_y.value_or(spec.y != "bias");

  // The data: one block per line (gnuplot's index), rows x, y, low, high, predicted ('?' where
  // there is none). A line is a series at one combination of the other axes' values, so a second
  // varied axis draws one line per value instead of a zigzag through every cell.
  struct Line {
    std::size_t series = 0;
    std::string title;
    std::vector<std::array<double, 5>> rows;
  };
  std::vector<Line> lines;
  bool any_predicted = false, any_band = false;
  for (const auto& c : cells) {
    if (!c.feasible || !c.point.count(spec.x)) continue;
    const auto x = c.point.at(spec.x).number;
    const Summary& m = c.summary;
    std::optional<double> y, lo, hi;
    if (spec.y == "rmse" && m.rmse) y = m.rmse, lo = m.rmse_low, hi = m.rmse_high;
    else if (spec.y == "bias") y = m.bias;
    else if (spec.y == "max_error") y = m.max_error;
    else if (spec.y == "seconds") y = m.seconds, lo = std::max(m.seconds - m.seconds_sd, m.seconds * 0.5), hi = m.seconds + m.seconds_sd;
    else if (spec.y == "messages_per_user") y = m.messages_per_user;
    else if (spec.y == "bytes_per_user") y = m.bytes_per_user;
    if (!x || !y || (log_y && *y <= 0)) continue;
    const Series& series = spec.series[c.series];
    std::string title = series.legend.empty() ? series.label : series.legend;
    for (const auto& a : spec.axes)
      if (a.key != spec.x) title += " " + a.key + "=" + c.point.at(a.key).text;
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.series == c.series && l.title == title; });
    if (it == lines.end()) it = lines.insert(lines.end(), Line{c.series, title, {}});
    const double predicted = spec.y == "rmse" && c.summary.predicted_rmse ? *c.summary.predicted_rmse : std::nan("");
    any_predicted = any_predicted || !std::isnan(predicted);
    any_band = any_band || lo.has_value();
    it->rows.push_back({*x, *y, lo.value_or(*y), hi.value_or(*y), predicted});
  }
  if (lines.empty()) throw std::runtime_error("--plot: no feasible cell has a value to draw");
  for (auto& l : lines) {
    std::sort(l.rows.begin(), l.rows.end());
    for (const auto& r : l.rows)
      fig.data << fmt::format("{:.10g} {:.10g} {:.10g} {:.10g} {}\n", r[0], r[1], r[2], r[3], std::isnan(r[4]) ? "?" : fmt::format("{:.10g}", r[4]));
    fig.data << "\n\n";
  }

  auto& g = fig.script;
  // The fixed settings of this grid: what no axis varies.
  const auto varied = [&](const char* key) {
    return std::any_of(spec.axes.begin(), spec.axes.end(), [&](const Axis& a) { return a.key == key; });
  };
  std::string subtitle = fmt::format("{} trials per point, seed {}", spec.trials, spec.seed);
  if (!varied("parties")) subtitle = "n = " + figure_count(spec.parties) + ", " + subtitle;
  if (!spec.inputs.empty() && !varied("inputs")) subtitle += ", inputs " + spec.inputs;
  for (const auto& [k, v] : spec.fixed) subtitle += ", " + k + " = " + v;
  if (spec.honest && !varied("honest")) subtitle += fmt::format(", honest = {}", *spec.honest);
  if (spec.dropouts > 0 && !varied("dropouts")) subtitle += fmt::format(", dropouts = {}", spec.dropouts);
  // What the marks mean, on a line of its own (a long subtitle would be cut at the figure's edge).
  std::string marks;
  if (any_band) marks += spec.y == "seconds" ? "shaded: mean +- sd" : "shaded: 95% interval";
  if (any_predicted) marks += std::string(marks.empty() ? "" : "; ") + "dashed: the predicted RMSE";
  if (!marks.empty()) subtitle += "\n" + marks;
  g << "set title " << gnuplot_text(spec.title + "\n" + subtitle) << '\n';
  g << "set xlabel " << gnuplot_text(x_label(spec)) << '\n';
  g << "set ylabel " << gnuplot_text(y_label(spec.y)) << '\n';
  if (log_x) g << "set logscale x\n";
  if (log_y) g << "set logscale y\n";
  {
    double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
    for (const auto& l : lines)
      for (const auto& r : l.rows) {
        x_lo = std::min(x_lo, r[0]), x_hi = std::max(x_hi, r[0]);
        y_lo = std::min(y_lo, r[2]), y_hi = std::max(y_hi, r[3]);
      }
    if (log_x) g << decade_tics("x", x_lo, x_hi);
    if (log_y) g << decade_tics("y", y_lo, y_hi);
  }
  // The key under the axes, two columns wide, so that legends in words leave the plot its width
  // (its empty title line keeps it off the x label).
  g << "set grid\nset key below left Left reverse maxcols 2 title ' '\nset datafile missing '?'\n";
  g << "plot ";
  bool first = true;
  const auto next = [&]() -> std::ofstream& {
    g << (first ? "" : ", \\\n     ");
    first = false;
    return g;
  };
  // A series' colour is its own in every figure (colour_of its label): lines of one series at
  // several values of a second axis share it and differ by marker.
  std::vector<std::string> keys;
  for (const auto& l : lines) keys.push_back(spec.series[l.series].label);
  const auto colours = figure_colours(keys);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string rgb = "lc rgb '" + colours[i] + "'";
    if (any_band)
      next() << fig.data_file() << " index " << i << " using 1:3:4 with filledcurves fs transparent solid 0.15 noborder " << rgb << " notitle";
    next() << fig.data_file() << " index " << i << " using 1:2 with linespoints lw 2 pt " << (i % 12) + 1 << " ps 1.3 " << rgb
           << " title " << gnuplot_text(lines[i].title);
    if (any_predicted) next() << fig.data_file() << " index " << i << " using 1:5 with lines dt 2 lw 1.5 " << rgb << " notitle";
  }
  g << '\n';
  fig.draw();
}

namespace {

// One panel's data blocks and commands (the data appended to the figure's file, its blocks counted
// on from `blocks`).
void draw_panel(Figure& fig, const Panel& panel, const std::map<std::string, std::string>& colours, std::size_t& blocks) {
  const auto& lines = panel.lines;
  const auto& axes = panel.axes;
  std::vector<std::size_t> drawn;  // index into `lines`; a key entry has no data block
  std::vector<std::size_t> block(lines.size(), 0);
  const std::size_t first = blocks;
  double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.key_only) {
      drawn.push_back(i);
      continue;
    }
    if (l.points.empty()) continue;
    auto pts = l.points;
    std::sort(pts.begin(), pts.end());
    for (const auto& [x, y] : pts) {
      fig.data << fmt::format("{:.10g} {:.10g}\n", x, y);
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x), y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
    fig.data << "\n\n";
    block[i] = blocks++;
    drawn.push_back(i);
  }
  if (blocks == first) throw std::runtime_error("--plot: nothing to draw" + (panel.title.empty() ? std::string() : " in '" + panel.title + "'"));
  auto& g = fig.script;
  // What an earlier panel set, undone.
  g << "unset logscale\nset autoscale\nset xtics autofreq\nset ytics autofreq\n";
  g << "set title " << gnuplot_text(panel.title) << '\n' << "set xlabel " << gnuplot_text(panel.x_label) << '\n'
    << "set ylabel " << gnuplot_text(panel.y_label) << '\n';
  if (axes.log_x) g << "set logscale x\n" << decade_tics("x", x_lo, x_hi);
  if (axes.log_y) g << "set logscale y\n" << decade_tics("y", y_lo, y_hi);
  if (axes.padded) {
    // A log axis's range a little past the points (offsets would extend it to the next decade).
    const auto range = [&](const char* axis, bool log, double lo, double hi) {
      const double span = hi - lo > 0 ? hi - lo : std::max(1.0, std::abs(hi));
      if (log) g << fmt::format("set {}range [{:.6g}:{:.6g}]\n", axis, lo / 1.35, hi * 1.35);
      else g << fmt::format("set {}range [{:.6g}:{:.6g}]\n", axis, lo - 0.04 * span, hi + 0.04 * span);
    };
    range("x", axes.log_x, x_lo, x_hi);
    range("y", axes.log_y, y_lo, y_hi);
  }
  // A key below the axes starts with an empty title line, which keeps it off the x label (gnuplot
  // places its first line there), and has no box; a key inside hides what is under it.
  g << "set grid\nset key " << axes.key << (axes.key.starts_with("below") ? " title ' '" : " box opaque") << '\n';
  g << "plot ";
  for (std::size_t k = 0; k < drawn.size(); ++k) {
    const std::size_t i = drawn[k];
    const Line& l = lines[i];
    const std::string style = l.points_only ? "points" : l.dashed ? "lines dashtype 2" : l.key_only ? "lines" : "linespoints";
    g << (k ? ", \\\n     " : "") << (l.key_only ? std::string("keyentry") : fig.data_file() + " index " + std::to_string(block[i]) + " using 1:2")
      << " with " << style << " lw " << (l.key_only && !l.points_only ? 3 : 2) << " pt " << l.point_type.value_or(static_cast<int>(i % 12) + 1)
      << fmt::format(" ps {:g}", l.point_size) << " lc rgb '" << colours.at(l.colour.empty() ? l.title : l.colour) << "' "
      << (l.title.empty() ? std::string("notitle") : "title " + gnuplot_text(l.title));
  }
  g << '\n';
}

// Every thing the panels name, with its colour in this figure.
std::map<std::string, std::string> colours_of(const std::vector<Panel>& panels) {
  std::vector<std::string> names;
  for (const auto& p : panels)
    for (const auto& l : p.lines) names.push_back(l.colour.empty() ? l.title : l.colour);
  const auto colours = figure_colours(names);
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) out.emplace(names[i], colours[i]);
  return out;
}

}  // namespace

void plot_lines(const std::vector<Line>& lines, const std::string& title, const std::string& x_label, const std::string& y_label,
                const std::string& path, const Axes& axes) {
  const std::vector<Panel> one = {{lines, title, x_label, y_label, axes}};
  Figure fig(path);
  std::size_t blocks = 0;
  draw_panel(fig, one.front(), colours_of(one), blocks);
  fig.draw();
}

void plot_panels(const std::vector<Panel>& panels, const std::string& title, const std::string& path, std::size_t columns) {
  if (panels.empty()) throw std::runtime_error("--plot: nothing to draw");
  columns = std::clamp<std::size_t>(columns, 1, panels.size());
  const std::size_t rows = (panels.size() + columns - 1) / columns;
  Figure fig(path, rows, columns);
  const auto colours = colours_of(panels);
  fig.script << fmt::format("set multiplot layout {},{} title {}\n", rows, columns, gnuplot_text(title));
  std::size_t blocks = 0;
  for (const auto& p : panels) draw_panel(fig, p, colours, blocks);
  fig.script << "unset multiplot\n";
  fig.draw();
}

}  // namespace shufflempc::study
