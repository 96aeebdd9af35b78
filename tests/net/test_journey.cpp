// The journey of one record (docs/ARCHITECTURE.md) along the path the code really takes: a round of
// counting through a chain of two mix servers over TCP, traced (shufflempc/trace.hpp). Every role
// runs in this process, each on a thread and channel of its own as `local` runs them in processes:
// the shuffler, the further server, the parties' channel and the analyzer's (which takes the
// parties' verdicts).
// The first function each step of the document names must be passed, in the document's order; a
// line that starts "At the same time" runs beside the one before it (another process's part of the
// same round), so it is checked to come after the step before both, and the step after both is
// checked against the line it runs beside only: the two processes' order is the scheduler's.
#include <doctest/doctest.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/net/chain.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"
#include "shufflempc/trace.hpp"
#include "support/paths.hpp"
#include "support/small_protocols.hpp"

using namespace shufflempc;

namespace {

// The journey's steps: each a group of the functions that run at once (one, or a step and those
// "At the same time" beside it), by the first name in backticks of each of its lines.
std::vector<std::vector<std::string>> journey_steps() {
  std::ifstream in(SHUFFLEMPC_SOURCE_DIR + "/docs/ARCHITECTURE.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto begin = doc.find("<!-- journey -->"), end = doc.find("<!-- end journey -->");
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  std::vector<std::vector<std::string>> steps;
  std::istringstream lines(doc.substr(begin, end - begin));
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("- ")) continue;
    const auto open = line.find('`'), close = line.find('`', open + 1);
    REQUIRE_MESSAGE(close != std::string::npos, "a step without a function in backticks: " << line);
    const std::string name = line.substr(open + 1, close - open - 1);
    if (line.starts_with("- At the same time") && !steps.empty()) steps.back().push_back(name);
    else steps.push_back({name});
  }
  return steps;
}

// Runs `work` on a thread; join() waits and rethrows what it threw.
class Worker {
 public:
  explicit Worker(std::function<void()> work)
      : thread_([this, work = std::move(work)] {
          try {
            work();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~Worker() {
    if (thread_.joinable()) thread_.join();
  }
  void join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;
};

// A round of `protocol` (inputs: one a party) through a chain of two servers over TCP, every role on
// a thread of its own and the parties apart from the analyzer: the analyzer's output.
Value run_apart(const Protocol& protocol, const std::vector<Value>& inputs) {
  SystemRng keys;
  net::SessionConfig base;
  base.protocol = "(journey)";
  base.deadline = std::chrono::milliseconds(60'000);
  base.rounds = net::wire_rounds(protocol, net::ChainSpec::make(2, net::MixKind::decryption).hops());
  const auto local = net::LocalDeployment::create(inputs.size(), keys, base, 2);
  net::TcpMixServer server(local.further_server_keys[0], {local.config}, "127.0.0.1", 0);
  Worker server_run([&] { (void)server.run(); });
  net::ShufflerOptions options;
  options.hop_addresses = {"127.0.0.1:" + std::to_string(server.port())};
  net::TcpShuffler shuffler(local.shuffler, {local.config}, "127.0.0.1", 0, {}, options);
  Worker shuffler_run([&] { (void)shuffler.run(); });
  Value output;
  {
    net::TcpChannel analyzer(local.config, {{net::analyzer_id, local.analyzer}}, "127.0.0.1", shuffler.port(), {},
                             {.verdict_listen = "127.0.0.1:0"});
    std::vector<net::Identity> hosted;
    for (std::size_t i = 0; i < inputs.size(); ++i) hosted.push_back({static_cast<PartyId>(i), local.parties[i]});
    net::TcpChannel parties(local.config, hosted, "127.0.0.1", shuffler.port(), {},
                            {.share_links = true, .analyzer_address = "127.0.0.1:" + std::to_string(analyzer.verdict_port())});
    SeededRng party_rng(91), analyzer_rng(91);
    Worker parties_run([&] {
      RoundDriver driver(protocol, parties, party_rng, inputs.size());
      driver.add_parties(0, inputs);
      (void)driver.run({});
    });
    RoundDriver driver(protocol, analyzer, analyzer_rng, inputs.size());
    driver.host_analyzer();
    output = driver.run({}).output;
    parties_run.join();
  }
  shuffler_run.join();
  server_run.join();
  return output;
}

}  // namespace

TEST_CASE("the journey of one record: a round through a chain over TCP passes the functions docs/ARCHITECTURE.md names, in its order") {
  const auto steps = journey_steps();
  REQUIRE(steps.size() >= 10);
  const Registry registry = builtin_registry();
  const auto [protocol, inputs] = shufflempc::test::small_run(registry, registry.get("counting"));
  std::vector<std::string> points;
  {
    trace::Recorder recorder;
    REQUIRE_FALSE(run_apart(*protocol, inputs).is_null());
    points = recorder.points();
  }
  // Greedy, step by step: each function of a step is passed at or after where the step before
  // passed its first function (the ones beside it run in another process, in no order with it).
  std::size_t from = 0;
  for (const auto& step : steps) {
    std::size_t reached = from;
    for (const auto& name : step) {
      CAPTURE(name);
      const auto at = std::find(points.begin() + static_cast<std::ptrdiff_t>(from), points.end(), name);
      const bool passed_before = std::find(points.begin(), points.end(), name) != points.end();
      CHECK_MESSAGE(at != points.end(), std::string(passed_before ? "passed, but only before the step the document puts before it"
                                                                  : "never passed (the code takes another path, or the point is gone)"));
      if (at != points.end() && name == step.front()) reached = static_cast<std::size_t>(at - points.begin());
    }
    from = reached;
  }
}
