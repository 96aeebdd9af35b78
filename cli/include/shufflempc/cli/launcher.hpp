// shufflempc::cli's local launcher, what `shufflempc local` runs. A session whose every process runs on this machine, as real processes over TCP on 127.0.0.1:
// the launcher writes the keys, the config and the inputs into a private directory, starts the
// shuffler (port chosen by the OS, read back from its "listening on" line), the analyzer and the
// party processes hosting K parties each (all as `shufflempc shuffler|analyzer|party`), waits for
// them with a deadline, and collects their JSON reports. `shufflempc local` is its front end; each
// further server of a session (a mix server) is one more process of the same kind.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/link_shape.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

struct LaunchOptions {
  std::string executable;               // the shufflempc binary the processes run
  std::size_t parties_per_process = 0;  // 0: at most default_party_processes(config) party processes
  std::chrono::milliseconds deadline{30'000};  // the shuffler's per-round deadline
  std::string keep_dir;                 // empty: a fresh private temporary directory, removed at the end
  std::optional<std::uint64_t> seed;    // passed to every process (a reproducible simulation)
  std::set<PartyId> dropouts;           // parties that vanish before round 0 (--dropouts of their process)
  std::optional<std::size_t> kill_party_process;  // fault injection: kill this party process at once
  // With kill_party_process: instead of at once, that process kills itself (SIGKILL) just before it
  // submits this round, after the earlier rounds' results reached it.
  std::optional<std::uint32_t> kill_before_round;
  // With kill_before_round: the process stops itself (SIGSTOP, a machine that hangs with its
  // connections open) instead of dying. Its links fall silent: the shuffler gives them up a
  // deadline after they last spoke, and the launcher stops the process once the run is over.
  bool hang_instead = false;
  // The servers the records cross, what they carry and, with a verifiable chain, the servers needed
  // to decrypt a round delivered to every party (a threshold below all of them runs the servers' key
  // generation first: each further server's process as `mix-server --dkg`, coordinated here with the
  // shuffler's key, net/dkg.hpp).
  net::ChainSpec chain;
  std::optional<std::size_t> kill_mix_server;  // fault injection: kill further server I (1 .. servers - 1) once it listens
  std::string tamper_entry;  // fault injection (a chain): the entry drops, replaces or duplicates one record it admits
  // Fault injection (the tests' adversary harness, net/adversary.hpp): role=entry|mix-server-I|party-P
  // picks the process (the entry by default), which gets the rest as its --fault-adversary.
  std::string adversary;
  std::optional<std::size_t> tamper_mix_server;  // fault injection (verifiable): further server I alters a record after its proof
  std::string transcript;               // verifiable: the analyzer writes the rounds it verified here
  // The shuffler keeps every batch it admits in this directory before its receipt (`shuffler
  // --state-dir`, net/store.hpp): a one-round session only. Without a chain, the analyzer keeps the
  // delivered round and its output in its subdirectory analyzer/ (`analyzer --state-dir`); an onion
  // chain's further server i its answers in mix-server-i/ (`mix-server --state-dir`).
  std::string state_dir;
  // With state_dir: each party process leaves once its parties' receipts have come (party
  // --leave-after-receipt), not waiting for the round's result.
  bool leave_after_receipt = false;
  // With state_dir: the receipts and what they are checked against, kept in this directory: each
  // party process's (party --receipt) as party-FIRST-LAST.json, the analyzer's commitments (analyzer
  // --commitment) as commitment.json, and the session config as session.json (shufflempc receipt).
  std::string receipts_dir;
  net::LinkShape link_shape;                 // every process's links shaped so (--link-delay-ms, --link-mbps)
  // Polled when a signal interrupts the wait: a non-empty reason ("signal 2") stops every process.
  std::function<std::string()> stop;
  std::function<void(const std::string& dir, std::size_t party_processes)> started;  // once all processes run
  // Each surviving party's report as it is read back (in party order per process), instead of all
  // of them in LaunchResult::per_party: at 10^6 parties their JSON would be a gigabyte.
  std::function<void(const Value& party)> on_party;
  // Said progress_after into a run and every progress_every after, while the shuffler or the
  // analyzer still runs: how long it has run, what still runs, the run's limit (one line; `local`
  // writes it to stderr).
  std::function<void(const std::string& line)> progress;
  std::chrono::milliseconds progress_after{5000}, progress_every{10000};
};

struct LaunchResult {
  Value analyzer;                       // the analyzer's report (output, messages, bytes, dropped, details, ...)
  Value per_party = Value::array();     // every surviving party's report, in party order per process (without on_party)
  std::vector<std::string> lost;        // party processes that failed: their parties count as dropped
  std::size_t party_processes = 0, parties_per_process = 0;
  // Peak memory and CPU time of every process: the peak a process reports of itself when it does
  // (the analyzer and the party processes), else wait4's (ChildProcess::peak_memory).
  Value process_resources = Value::array();
  double seconds = 0;
};

// The party processes `local` starts by default: 8, or over a verifiable chain with a round
// delivered to every party as many as the machine has cores (at most 8), since each party process
// checks the whole round.
[[nodiscard]] std::size_t default_party_processes(const net::SessionConfig& config);

class LocalLauncher {
 public:
  // `base` gives the protocol, its parameters, min_parties (its keys, session id and party count
  // are made here); `protocol` is the configured protocol, for the descriptor budget and the time
  // limit.
  LocalLauncher(net::SessionConfig base, const Protocol& protocol, std::size_t parties, LaunchOptions options);

  // Runs the session with inputs[i] for party i. Throws std::system_error (Errc::timeout,
  // Errc::session_aborted) when the shuffler or the analyzer fails or the run exceeds its limit,
  // std::runtime_error "interrupted by <reason>: ..." when stopped, or when a report is missing; a party process that fails is a
  // dropout, listed in `lost`.
  [[nodiscard]] LaunchResult run(const std::vector<Value>& inputs);

 private:
  net::SessionConfig base_;
  const Protocol& protocol_;
  std::size_t parties_;
  LaunchOptions options_;
};

}  // namespace shufflempc::cli
