// `shufflempc survey`: a survey of people in web browsers, end to end, on this machine. It makes a
// collection session (one key per respondent, a window that closes at a time or when the organiser
// closes it), runs its shuffler (in this process, keeping what it admits in a state directory) and
// its analyzer (a process of its own), and serves, beside the shuffler's WebSocket door on the
// same port (net/websocket.hpp's site), the pages: the question, answered in the respondent's
// browser by the library's own code compiled for it (build/web/site), a receipt; the organiser's
// page that closes the survey; the results page, with the estimate, its error bar and the privacy
// guarantee in plain words. docs/survey.md says what each party learns.
#include <fmt/format.h>
#include <signal.h>
#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/json.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/websocket.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::cli {
namespace {

// The signal that asked the survey to end (0: none); the command's, never the library's.
volatile std::sig_atomic_t survey_signal = 0;
extern "C" void on_survey_signal(int sig) { survey_signal = sig; }

struct SurveyArgs {
  std::string question, answer = "yes-no", protocol, dir, host = "127.0.0.1", site;
  std::vector<std::string> choices, params;
  std::vector<double> range;
  std::size_t respondents = 0, min_respondents = 0, minutes = 60;
  double epsilon = 1, delta = 1e-6;
  std::uint16_t port = 0;
  bool exit_when_done = false;
};

// The answer's kinds and what each sends: a bit, an index, a real in [0, 1].
enum class Kind { yes_no, choice, number };

Kind kind_of(const std::string& answer) {
  if (answer == "yes-no") return Kind::yes_no;
  if (answer == "choice") return Kind::choice;
  if (answer == "number") return Kind::number;
  throw std::invalid_argument("--answer must be one of yes-no, choice, number; got '" + answer + "'");
}

std::string default_protocol(Kind k) {
  // Each answer randomized on its sender's device with a local guarantee of its own, one message a
  // respondent: what still protects an answer when one machine runs the shuffler and the analyzer.
  switch (k) {
    case Kind::yes_no: return "counting-rr-amplified";
    case Kind::choice: return "histogram-rr-amplified";
    case Kind::number: return "sum-harmony";
  }
  return {};
}

std::string shortest(double v) { return shortest_real(v); }

// The files of the page (build/web/site: written by the browser's build), read once.
struct SiteFile {
  std::string type, body, gz;
};

std::map<std::string, SiteFile> read_site(const std::string& dir) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".wasm", "application/wasm"}};
  const std::vector<std::string> needed = {"index.html", "results.html", "organiser.html", "survey.mjs", "survey.css",
                                           "party.mjs",  "shufflempc-party.mjs", "shufflempc-party.wasm"};
  std::map<std::string, SiteFile> out;
  for (const auto& name : needed) {
    const std::string path = dir + "/" + name;
    if (!std::filesystem::exists(path))
      throw std::invalid_argument("--site " + dir + " has no " + name + ": the survey's pages come from the browser's build (build/web/site, "
                                  "made when the build has Emscripten: bash scripts/setup.sh installs it)");
    SiteFile f{.type = types.at(std::filesystem::path(name).extension().string()), .body = read_text_file(path, "--site"), .gz = {}};
    if (std::filesystem::exists(path + ".gz")) f.gz = read_text_file(path + ".gz", "--site");
    out.emplace("/" + name, std::move(f));
  }
  return out;
}

// The survey's state, shared by the site (the door's thread) and the command (the main thread).
struct Survey {
  std::mutex mutex;
  std::string status = "open";  // open, closing, done, failed
  Value results;                // once done or failed
  std::string commitment;       // the analyzer's published commitment, once done
};

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * std::clamp(share, 0.0, 1.0)); }

// What the results page shows: the estimate of each answer with its 95% interval (1.96 of the
// protocol's own standard deviations), clipped to what is possible, and the words.
Value results_of(const SurveyArgs& a, Kind kind, const Protocol& protocol, const Value& report) {
  const std::size_t dropped = report.contains("dropped") ? report["dropped"].size() : 0;
  const std::size_t submitted = a.respondents - std::min(a.respondents, dropped);
  const auto sd = protocol.predicted_sd();
  const double z = 1.959963984540054;
  const double n = static_cast<double>(std::max<std::size_t>(submitted, 1));
  Value estimates = Value::array();
  std::vector<std::string> words;
  const auto share_of = [&](const std::string& label, double count) {
    const double share = count / n;
    Value e = {{"label", label}, {"value", std::clamp(share, 0.0, 1.0)}, {"raw", count}};
    if (sd) e["low"] = std::clamp(share - z * *sd / n, 0.0, 1.0), e["high"] = std::clamp(share + z * *sd / n, 0.0, 1.0);
    estimates.push_back(e);
    return share;
  };
  const auto interval = [&](const Value& e, auto show) {
    return e.contains("low") ? fmt::format(" (95% interval: {} to {})", show(e["low"].get<double>()), show(e["high"].get<double>())) : std::string();
  };
  if (kind == Kind::yes_no) {
    share_of("yes", report["output"].get<double>());
    words.push_back(fmt::format("An estimated {} of the {} respondents who answered said yes{}.", percent(estimates[0]["value"]), submitted,
                                interval(estimates[0], percent)));
  } else if (kind == Kind::choice) {
    for (std::size_t i = 0; i < a.choices.size(); ++i) share_of(a.choices[i], report["output"][i].get<double>());
    for (std::size_t i = 0; i < a.choices.size(); ++i)
      words.push_back(fmt::format("{}: an estimated {}{}.", a.choices[i], percent(estimates[i]["value"]), interval(estimates[i], percent)));
    words.insert(words.begin(), fmt::format("Of the {} respondents who answered:", submitted));
  } else {
    const double lo = a.range[0], hi = a.range[1], span = hi - lo;
    const double mean = lo + span * report["output"].get<double>() / n;
    Value e = {{"label", "mean"}, {"value", std::clamp(mean, lo, hi)}, {"raw", mean}};
    if (sd) e["low"] = std::clamp(mean - z * span * *sd / n, lo, hi), e["high"] = std::clamp(mean + z * span * *sd / n, lo, hi);
    estimates.push_back(e);
    const auto show = [](double v) { return fmt::format("{:.3g}", v); };
    words.push_back(fmt::format("The estimated mean answer of the {} respondents who answered is {}{}.", submitted, show(e["value"].get<double>()),
                                interval(e, show)));
  }
  if (!sd) words.push_back("This protocol states no standard deviation of its estimate: no interval is drawn.");
  else words.push_back("Estimates and intervals are clipped to what is possible.");
  // The guarantee in plain words, with the figures it rests on.
  const std::string eps = shortest(a.epsilon), del = shortest(a.delta);
  std::vector<std::string> privacy = {
      fmt::format("Each answer was randomized in its respondent's own browser by {} before it left it, sealed so that only the analyzer can "
                  "open it, and mixed with every other answer by the shuffler before the analyzer saw it.",
                  a.protocol),
      fmt::format("The published result is (epsilon = {}, delta = {})-differentially private for each respondent: whatever one person "
                  "answered, any result was at most e^{} = {:.3g} times as likely as with any other answer of theirs, except with a "
                  "probability of at most {}.",
                  eps, del, eps, std::exp(a.epsilon), del)};
  const Value d = protocol.describe();
  if (d.contains("epsilon0"))
    privacy.push_back(fmt::format("Each randomized answer protects its sender on its own too, with epsilon = {:.3g}: someone who saw every "
                                  "randomized answer with its sender's name (here the shuffler and the analyzer together) still learns only that.",
                                  d["epsilon0"].get<double>()));
  privacy.push_back("The shuffler saw who answered, not what; the analyzer saw the randomized answers, not who sent them. This survey ran both on "
                    "the organiser's machine: the shuffle keeps answers apart from names only as far as the two are kept apart.");
  return {{"status", "done"},
          {"question", a.question},
          {"answer", a.answer},
          {"respondents", a.respondents},
          {"submitted", submitted},
          {"protocol", a.protocol},
          {"epsilon", a.epsilon},
          {"delta", a.delta},
          {"sd", sd ? Value(*sd) : Value()},
          {"range", a.range},
          {"estimates", estimates},
          {"output", report["output"]},
          {"words", words},
          {"privacy", privacy}};
}

// The site: the pages, what the page needs of the survey, the organiser's close, the results.
net::HttpAnswer answer(const net::HttpRequest& r, const std::map<std::string, SiteFile>& files, const Value& info, const std::string& config,
                       const std::string& token, Survey& survey, const std::function<void()>& close) {
  const auto json = [](const Value& v, unsigned status = 200) {
    return net::HttpAnswer{.status = status, .content_type = "application/json", .body = v.dump() + "\n", .gzipped = false, .headers = {}};
  };
  std::string path = r.target.substr(0, r.target.find('?'));
  if (r.method == "POST" && path == "/close") {
    if (r.body.size() != token.size() || sodium_memcmp(r.body.data(), token.data(), token.size()) != 0)
      return json({{"error", "this is not the organiser's link: the survey stays open"}}, 403);
    std::lock_guard lock(survey.mutex);
    if (survey.status != "open") return json({{"status", survey.status}, {"said", "the survey was closed already"}});
    survey.status = "closing";
    close();
    return json({{"status", "closing"}, {"said", "the survey is closed: the analyzer is computing the result"}});
  }
  if (r.method != "GET" && r.method != "HEAD") return json({{"error", "this site takes GET, and POST /close"}}, 405);
  if (path == "/survey.json") {
    Value v = info;
    std::lock_guard lock(survey.mutex);
    v["status"] = survey.status;
    v["config"] = config;
    return json(v);
  }
  if (path == "/results.json") {
    std::lock_guard lock(survey.mutex);
    if (survey.status == "done" || survey.status == "failed") return json(survey.results);
    return json({{"status", survey.status}});
  }
  if (path == "/session.json") return net::HttpAnswer{.status = 200, .content_type = "application/json", .body = config, .gzipped = false, .headers = {}};
  if (path == "/commitment.json") {
    std::lock_guard lock(survey.mutex);
    if (survey.commitment.empty()) return json({{"error", "the analyzer has published no commitment yet (the survey is not done)"}}, 404);
    return net::HttpAnswer{.status = 200, .content_type = "application/json", .body = survey.commitment, .gzipped = false, .headers = {}};
  }
  if (path == "/") path = "/index.html";
  if (path == "/results") path = "/results.html";
  if (path == "/organiser") path = "/organiser.html";
  const auto it = files.find(path);
  if (it == files.end()) return net::HttpAnswer{.status = 404, .content_type = "text/plain; charset=utf-8", .body = "no such page\n", .gzipped = false, .headers = {}};
  const SiteFile& f = it->second;
  const bool gz = r.accepts_gzip && !f.gz.empty();
  return net::HttpAnswer{.status = 200, .content_type = f.type, .body = gz ? f.gz : f.body, .gzipped = gz,
                         .headers = {{"Cache-Control", "no-store"}, {"Vary", "Accept-Encoding"}}};
}

// Blocks the signals that end the survey in this thread (the threads started after inherit it),
// so that they reach the main thread alone, which waits for them with sigsuspend.
class SignalMask {
 public:
  SignalMask() {
    sigemptyset(&set_);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set_, s);
    struct sigaction sa {};
    sa.sa_handler = on_survey_signal;
    sigemptyset(&sa.sa_mask);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, nullptr);
    ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SignalMask() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalMask(const SignalMask&) = delete;
  SignalMask& operator=(const SignalMask&) = delete;
  // Lets the signals in again (in this thread: call once every thread has started).
  void unblock() { ::pthread_sigmask(SIG_UNBLOCK, &set_, nullptr); }
  // Waits for one (the signals are blocked here again meanwhile, so none is lost between the check and the wait).
  void wait() {
    ::pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    sigset_t none;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &none);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigdelset(&none, s);
    while (survey_signal == 0) ::sigsuspend(&none);
  }

 private:
  sigset_t set_{}, old_{};
};

int run_survey(SurveyArgs a, const Registry& registry) {
  const Kind kind = kind_of(a.answer);
  if (a.question.empty() || a.question.size() > 1000) throw std::invalid_argument("--question must be 1 to 1000 characters");
  if (kind == Kind::choice) {
    if (a.choices.size() < 2 || a.choices.size() > 64) throw std::invalid_argument("--choices must list 2 to 64 answers (comma-separated) for --answer choice");
  } else if (!a.choices.empty()) {
    throw std::invalid_argument("--choices is for --answer choice");
  }
  if (kind == Kind::number) {
    if (a.range.size() != 2 || !(a.range[0] < a.range[1]) || !std::isfinite(a.range[0]) || !std::isfinite(a.range[1]))
      throw std::invalid_argument("--range must be LO,HI with LO < HI (finite) for --answer number");
  } else if (!a.range.empty()) {
    throw std::invalid_argument("--range is for --answer number");
  }
  if (a.protocol.empty()) a.protocol = default_protocol(kind);
  const ProtocolInfo& info = registry.get(a.protocol);
  std::map<std::string, std::string> params;
  const auto declares = [&info](const std::string& p) {
    return std::any_of(info.params.begin(), info.params.end(), [&](const ParamSpec& s) { return s.name == p; });
  };
  if (declares("epsilon")) params["epsilon"] = shortest(a.epsilon);
  if (declares("delta")) params["delta"] = shortest(a.delta);
  if (kind == Kind::choice && declares("domain")) params["domain"] = std::to_string(a.choices.size());
  for (const auto& p : a.params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--param must be NAME=VALUE, got '" + p + "'");
    params[p.substr(0, eq)] = p.substr(eq + 1);
  }
  if (a.min_respondents == 0) a.min_respondents = std::max<std::size_t>(info.min_parties, (a.respondents + 1) / 2);
  if (a.min_respondents > a.respondents)
    throw std::invalid_argument("--min-respondents must be in [1, --respondents = " + std::to_string(a.respondents) + "]");
  const auto protocol = registry.create(a.protocol, params, a.respondents, a.min_respondents);
  if (protocol->rounds() != 1 || protocol->round(0).delivery != Delivery::analyzer_only)
    throw std::invalid_argument("--protocol " + a.protocol + " is not one round sent to the analyzer: a survey's respondents only send");
  // The answer's kind against what the protocol's parties take: its largest answer must make a party.
  const Value largest = kind == Kind::yes_no ? Value(1) : kind == Kind::choice ? Value(a.choices.size() - 1) : Value(1.0);
  try {
    (void)protocol->make_party(0, largest);
  } catch (const std::exception& e) {
    throw std::invalid_argument("--protocol " + a.protocol + " does not take a " + a.answer + " answer (" + info.input_help + "): " + e.what());
  }
  if (!a.dir.empty() && std::filesystem::exists(a.dir) && !std::filesystem::is_empty(a.dir))
    throw std::invalid_argument("--dir " + a.dir + " is not empty: a survey's keys go into a directory of their own");
  const auto files = read_site(a.site.empty() ? (std::filesystem::path(self_executable()).parent_path().parent_path() / "web" / "site").string()
                                              : a.site);

  // The survey's directory: keys, config, the shuffler's state, the invitations and the results.
  std::string dir = a.dir;
  if (dir.empty()) {
    std::string tmpl = "survey-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "cannot make the survey's directory here");
    dir = tmpl;
  } else {
    std::filesystem::create_directories(dir);
  }
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);

  SystemRng rng;
  net::SessionConfig base;
  base.protocol = a.protocol;
  base.params = params;
  base.min_parties = a.min_respondents;
  base.deadline = std::chrono::milliseconds(30'000);
  base.close_at = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count() +
                  static_cast<std::int64_t>(a.minutes) * 60'000;
  base.rounds = net::wire_rounds(*protocol, 0, net::MixKind::decryption);
  const net::LocalDeployment local = net::LocalDeployment::create(a.respondents, rng, base);
  local.save(dir);
  const std::string config_path = dir + "/" + net::session_config_file;
  const std::string config = read_text_file(config_path, "the session config");

  SignalMask signals;
  net::ShufflerOptions so;
  so.state_dir = dir + "/state";
  net::TcpShuffler shuffler(local.shuffler, {local.config}, "127.0.0.1", 0, stderr_logger("survey (shuffler)"), so);
  const std::string shuffler_at = "127.0.0.1:" + std::to_string(shuffler.port());
  std::vector<net::ShufflerReport> shuffler_reports;
  std::string shuffler_failed;  // what ended the shuffler's run by an exception (none expected)
  std::thread shuffler_thread([&] {
    try {
      shuffler_reports = shuffler.run();
    } catch (const std::exception& e) {
      shuffler_failed = e.what();
    }
  });
  ChildProcess analyzer("analyzer",
                        {self_executable(), "analyzer", "--config", config_path, "--key", dir + "/" + net::analyzer_key_file, "--connect",
                         shuffler_at, "--json", "--commitment", dir + "/commitment.json"},
                        ProcessOptions{.stdout_path = dir + "/analyzer.json", .stderr_path = dir + "/analyzer.log", .pass_as_fd3 = -1});

  Survey survey;
  std::array<std::uint8_t, 16> token_bytes{};
  randombytes_buf(token_bytes.data(), token_bytes.size());
  const std::string token = to_hex(token_bytes);
  Value page_info = {{"question", a.question}, {"answer", a.answer}, {"choices", a.choices}, {"range", a.range},
                     {"protocol", a.protocol}, {"epsilon", a.epsilon}, {"delta", a.delta},  {"respondents", a.respondents},
                     {"closes_at_ms", *local.config.close_at}};
  net::WebSocketOptions wo;
  wo.host = a.host;
  wo.port = a.port;
  wo.target_host = "127.0.0.1";
  wo.target_port = shuffler.port();
  wo.site = [&files, page_info, &config, &token, &survey, &shuffler](const net::HttpRequest& r) {
    return answer(r, files, page_info, config, token, survey, [&shuffler] { shuffler.close_windows(); });
  };
  net::WebSocketGateway door(wo, stderr_logger("survey (page)"));
  signals.unblock();

  const std::string site = "http://" + (a.host.find(':') != std::string::npos ? "[" + a.host + "]" : a.host) + ":" + std::to_string(door.port());
  std::string invitations;
  for (std::size_t id = 0; id < a.respondents; ++id)
    invitations += fmt::format("{}/#id={}&key={}\n", site, id, to_hex(local.parties[id].secret_key()));
  write_private_file(dir + "/invitations.txt", invitations, "the invitations");
  const std::time_t closes = static_cast<std::time_t>(*local.config.close_at / 1000);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&closes));
  std::cout << fmt::format("survey on {}/ : {} respondents, {} with {}; it closes at {}, when every respondent has answered, or when the "
                           "organiser closes it\n",
                           site, a.respondents, a.protocol, params.empty() ? std::string("its defaults") : [&] {
                             std::string s;
                             for (const auto& [k, v] : params) s += (s.empty() ? "" : ", ") + k + " = " + v;
                             return s;
                           }(), when)
            << fmt::format("organiser {}/organiser#token={} (close the survey there; keep this link to yourself)\n", site, token)
            << fmt::format("results {}/results\n", site)
            << fmt::format("invitations in {}/invitations.txt, one link a respondent (each carries its respondent's key: send it to them alone)\n", dir)
            << fmt::format("native parties shufflempc party --config {} --id ID --key {}/party-ID.key --connect {} --input ANSWER "
                           "--leave-after-receipt\n",
                           config_path, dir, shuffler_at);
  const std::size_t shown = std::min<std::size_t>(a.respondents, 20);
  std::istringstream links(invitations);
  std::string link;
  for (std::size_t id = 0; id < shown && std::getline(links, link); ++id) std::cout << "invitation " << id << " " << link << "\n";
  if (shown < a.respondents) std::cout << "(the other " << a.respondents - shown << " invitations are in the file)\n";
  std::cout << std::flush;

  // The survey runs until the analyzer has its result (or a signal ends it first).
  const auto analyzer_status = analyzer.wait_for(std::chrono::hours(24 * 31), [] { return survey_signal != 0; });
  if (!analyzer_status) {
    shuffler.stop();
    analyzer.kill();
    shuffler_thread.join();
    door.stop();
    std::cerr << "shufflempc survey: interrupted (signal " << survey_signal << ") before the survey closed: nothing was output; the answers "
              << "kept are in " << dir << "/state\n";
    return 1;
  }
  // An analyzer that ended without a result (too few answered, or it could not run at all) leaves
  // nothing for the shuffler to deliver: it stops now rather than at its window's end.
  if (*analyzer_status != 0) shuffler.stop();
  shuffler_thread.join();
  if (!shuffler_failed.empty()) std::cerr << "shufflempc survey (shuffler): " << shuffler_failed << "\n";
  const std::string report_text = read_text_file(dir + "/analyzer.json", "the analyzer's report");
  std::string failure;
  Value results;
  if (*analyzer_status == 0) {
    const Value report = parse_json_document(report_text, "the analyzer's report");
    results = results_of(a, kind, *protocol, report);
    std::lock_guard lock(survey.mutex);
    survey.status = "done";
    survey.results = results;
    if (std::filesystem::exists(dir + "/commitment.json")) survey.commitment = read_text_file(dir + "/commitment.json", "the commitment");
  } else {
    // The analyzer's last line says why (too few answered, say).
    std::string log = read_text_file(dir + "/analyzer.log", "the analyzer's log"), last;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) last = line;
    failure = last.empty() ? "the analyzer exited with status " + std::to_string(*analyzer_status) : last;
    std::lock_guard lock(survey.mutex);
    survey.status = "failed";
    survey.results = {{"status", "failed"}, {"question", a.question}, {"error", failure}};
  }
  write_file(dir + "/results.json", survey.results.dump(2) + "\n", "the results");
  if (!failure.empty()) {
    std::cout << "results none: " << failure << "\n" << std::flush;
  } else {
    for (const auto& w : results["words"]) std::cout << "results " << w.get<std::string>() << "\n";
    std::cout << std::flush;
  }
  if (!a.exit_when_done) {
    std::cout << fmt::format("serving the results at {}/results until interrupted (Ctrl-C)\n", site) << std::flush;
    signals.wait();
  }
  door.stop();
  return failure.empty() ? 0 : 1;
}

}  // namespace

void add_survey_command(CLI::App& app, const Registry& registry, Action& action) {
  auto a = std::make_shared<SurveyArgs>();
  auto* cmd = app.add_subcommand("survey",
                                 "run a survey of people in web browsers on this machine: one invitation link a respondent, the answer "
                                 "randomized and sealed in the page, a receipt, and the estimate with its error and privacy in plain words "
                                 "(docs/survey.md)");
  cmd->add_option("--question,-q", a->question, "the question, as the page shows it")->required();
  cmd->add_option("--answer", a->answer, "what an answer is: yes-no, choice (one of --choices) or number (in --range) (default yes-no)");
  cmd->add_option("--choices", a->choices, "for --answer choice: the answers, comma-separated (2 to 64)")->delimiter(',');
  cmd->add_option("--range", a->range, "for --answer number: LO,HI, the numbers an answer may be")->delimiter(',');
  cmd->add_option("--respondents,-n", a->respondents, "how many respondents (one invitation each)")
      ->required()
      ->check(CLI::Range(std::size_t{2}, std::size_t{100'000}));
  cmd->add_option("--min-respondents", a->min_respondents,
                  "the survey outputs a result once at least this many answered; its noise is calibrated for them (default: half, rounded up)");
  cmd->add_option("--protocol,-p", a->protocol,
                  "the protocol (shufflempc list; one round, parties only send): default counting-rr-amplified (yes-no), "
                  "histogram-rr-amplified (choice), sum-harmony (number)");
  cmd->add_option("--epsilon", a->epsilon, "the privacy parameter epsilon, where the protocol has one (default 1)")->check(CLI::Range(1e-3, 20.0));
  cmd->add_option("--delta", a->delta, "the privacy parameter delta, where the protocol has one (default 1e-6)")->check(CLI::Range(0.0, 0.5));
  cmd->add_option("--param", a->params, "a further protocol parameter NAME=VALUE (repeat)");
  cmd->add_option("--minutes", a->minutes, "the survey closes this many minutes after it starts at the latest (default 60)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{30} * 24 * 60));
  cmd->add_option("--host", a->host, "the address the pages are served on (default 127.0.0.1)");
  cmd->add_option("--port", a->port, "the port the pages are served on (default 0: any, printed)");
  cmd->add_option("--dir", a->dir, "an empty directory for the survey's keys, config, state and results (default: a new survey-XXXXXX here)");
  cmd->add_option("--site", a->site, "the pages (default: the browser's build beside this binary, build/web/site)");
  cmd->add_flag("--exit-when-done", a->exit_when_done, "exit once the results are in, instead of serving them until interrupted");
  cmd->footer("Exit status: 0 the survey closed with a result; 1 it closed without one (too few answered: the line says why) or was "
              "interrupted before it closed; 2 bad parameters.");
  cmd->callback([a, &registry, &action] { action = [a, &registry] { return run_survey(*a, registry); }; });
}

}  // namespace shufflempc::cli
