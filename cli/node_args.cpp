// What the node commands share of their options (node_args.hpp): the command line in the making,
// the shaped network's two options and the clients' (the party's and the analyzer's).
#include "node_args.hpp"

#include <cctype>

#include "common.hpp"

namespace shufflempc::cli {

Argv::Argv(std::string executable, std::string_view command) : args_{std::move(executable), std::string(command)} {}

Argv& Argv::add(std::string_view name, const std::string& value) {
  if (!value.empty()) args_.insert(args_.end(), {std::string(name), value});
  return *this;
}

Argv& Argv::add(std::string_view name, std::size_t value, std::size_t default_value) {
  if (value != default_value) args_.insert(args_.end(), {std::string(name), std::to_string(value)});
  return *this;
}

Argv& Argv::add(std::string_view name, bool on) {
  if (on) args_.emplace_back(name);
  return *this;
}

Argv& Argv::add_joined(std::string_view name, const std::vector<std::string>& values) {
  std::string joined;
  for (const auto& v : values) {
    if (!joined.empty()) joined += ',';
    joined += v;
  }
  return add(name, joined);
}

Argv& Argv::add_repeated(std::string_view name, const std::vector<std::string>& values) {
  for (const auto& v : values) args_.insert(args_.end(), {std::string(name), v});
  return *this;
}

namespace {

// A number in [lo, hi], or the line saying it is not.
CLI::Validator range_check(double lo, double hi, const std::string& range) {
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        // A decimal number as written: std::stod alone would also take "", " 5", "0x10", "inf".
        const bool decimal = !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.') &&
                             s.find_first_not_of("0123456789.eE+-") == std::string::npos;
        std::size_t used = 0;
        double v = 0;
        try {
          if (decimal) v = std::stod(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (!decimal || used != s.size() || !(v >= lo && v <= hi)) return "must be a number in " + range + ", got '" + s + "'";
        return {};
      },
      "NUMBER");
}

}  // namespace

Argv& Argv::add(const net::LinkShape& shape) {
  // JSON's shortest spelling of a double that reads back as the same double ("1.234", not "1.2339999999999999").
  if (shape.delay.count() > 0) add(flag::link_delay_ms, Value(static_cast<double>(shape.delay.count()) / 1000.0).dump());
  if (shape.mbps > 0) add(flag::link_mbps, Value(shape.mbps).dump());
  return *this;
}

void add_link_shape_options(CLI::App& cmd, net::LinkShape& shape) {
  cmd.add_option_function<double>(
         std::string(flag::link_delay_ms),
         [&shape](double ms) {
           shape.delay = std::chrono::microseconds(static_cast<std::int64_t>(ms * 1000.0 + 0.5));
           auto s = net::link_shape();
           s.delay = shape.delay;
           net::set_link_shape(s);
         },
         "a shaped network: every frame this process sends reaches its peer D milliseconds later (a round trip between two "
         "shaped processes costs 2D; docs/network.md, a shaped network)")
      ->check(range_check(0, 10000, "[0, 10000] (milliseconds)"));
  cmd.add_option_function<double>(
         std::string(flag::link_mbps),
         [&shape](double mbps) {
           shape.mbps = mbps;
           auto s = net::link_shape();
           s.mbps = mbps;
           net::set_link_shape(s);
         },
         "a shaped network: each of this process's links carries at most B megabits a second, its frames queued as on a real link")
      ->check(range_check(0.001, 1e6, "[0.001, 1000000] (Mbit/s)"));
}

void add_client_options(CLI::App& cmd, ClientArgs& args, const std::string& whose) {
  cmd.add_option(std::string(flag::config) + ",-c", args.config_path, "session config")->required()->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::connect), args.connect, "shuffler HOST:PORT (default: the config's shuffler_address)");
  cmd.add_option(std::string(flag::seed), args.seed, "seed " + whose + " randomness (reproducible simulation only)")->check(seed_check());
  cmd.add_flag(std::string(flag::json), args.json, "print JSON");
  add_link_shape_options(cmd, args.link_shape);
}

void add_client_argv(Argv& argv, const ClientArgs& args) {
  argv.add(flag::config, args.config_path).add(flag::connect, args.connect).add(flag::seed, args.seed).add(flag::json, args.json);
  argv.add(args.link_shape);
}

}  // namespace shufflempc::cli
