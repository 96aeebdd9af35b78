// `run PROTOCOL --mix verifiable` and `shufflempc verify`: the seeded result of the plain run, a
// transcript the verifier accepts, a transcript altered at one hop refused naming that hop, a
// protocol whose records do not fit refused with the reason, and the options' ranges.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "shufflempc/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc::test;

TEST_CASE("run --mix verifiable: the plain run's seeded result, a transcript that verifies, and one altered at hop 1 refused naming hop 1") {
  TempDir dir;
  const std::string transcript = dir / "t.json";
  const auto plain = run_command(cli() + " run randomized-response --parties 40 --seed 9 --json");
  const auto mixed = run_command(cli() + " run randomized-response --parties 40 --seed 9 --mix verifiable --mix-servers 3 --transcript " + transcript + " --json");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(mixed.exit_code == 0);
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(mixed.out);
  CHECK(b["output"] == a["output"]);
  CHECK(b["verifiable_mix"]["hops"] == 3);
  CHECK(b["verifiable_mix"]["rounds"][0]["records"] == a["messages"]);
  CHECK(b["verifiable_mix"]["transcript"] == transcript);

  const auto ok = run_command(cli() + " verify " + transcript);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("verified: 1 round(s), 40 records, 3 proofs of shuffle, 1 trustees' decryption proofs") != std::string::npos);
  const auto text = run_command(cli() + " run randomized-response --parties 40 --seed 9 --mix verifiable --mix-servers 3");
  CHECK(text.out.find("mix       round 0: 40 records through 3 hops, 3 proofs of shuffle and the decryption proofs of 1 of 1 trustees (1 needed) "
                      "verified") != std::string::npos);

  // Hop 1's output with two records swapped: hop 1's proof fails, and hop 2's (made for what hop 1
  // really sent) fails too; a verifier names both, the first being hop 1.
  auto j = nlohmann::json::parse(shufflempc::read_text_file(transcript, "transcript"));
  const std::string out = j["rounds"][0]["hops"][1]["output"];
  const std::size_t record = 2 * 64;  // one limb: 64 bytes, 128 hex digits
  std::string swapped = out.substr(record, record) + out.substr(0, record) + out.substr(2 * record);
  j["rounds"][0]["hops"][1]["output"] = swapped;
  const std::string altered = dir / "altered.json";
  shufflempc::write_file(altered, j.dump(), "altered transcript");
  const auto bad = run_command(cli() + " verify " + altered);
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("shufflempc verify: round 0 hop 1: the proof of shuffle does not verify") != std::string::npos);
  CHECK(bad.err.find("NOT VERIFIED") != std::string::npos);
  CHECK(bad.err.find("hop 0") == std::string::npos);

  const auto json = run_command(cli() + " verify --json " + altered);
  CHECK(json.exit_code == 1);
  const auto verdict = nlohmann::json::parse(json.out);
  CHECK(verdict["verified"] == false);
  CHECK(verdict["hop_proofs"] == 3);
  REQUIRE(verdict["faults"].size() == 2);  // hop 1, and hop 2 whose input it no longer is
  CHECK(verdict["faults"][0].get<std::string>().find("round 0 hop 1:") == 0);
  CHECK(verdict["faults"][1].get<std::string>().find("round 0 hop 2:") == 0);

  const auto missing = run_command(cli() + " verify " + (dir / "none.json"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("transcript") != std::string::npos);
}

TEST_CASE("run --mix verifiable: a protocol whose records do not fit is refused with the reason, and the options' ranges are named") {
  const auto wide = run_command(cli() + " run mpc2 --parties 3 --mix verifiable --mix-servers 2");
  CHECK(wide.exit_code == 2);
  CHECK(wide.err.find("mpc2 cannot run over the verifiable mix") != std::string::npos);
  CHECK(wide.err.find("do not fit the verifiable mix (at most 16 bytes") != std::string::npos);
  const auto no_servers = run_command(cli() + " run randomized-response --parties 10 --mix verifiable");
  CHECK(no_servers.exit_code == 2);
  CHECK(no_servers.err.find("--mix verifiable needs --mix-servers in [1, 16]") != std::string::npos);
  const auto kind = run_command(cli() + " run randomized-response --parties 10 --mix other --mix-servers 2");
  CHECK(kind.exit_code == 2);
  CHECK(kind.err.find("--mix") != std::string::npos);
  const auto lone = run_command(cli() + " run randomized-response --parties 10 --transcript /tmp/x.json");
  CHECK(lone.exit_code == 2);
  CHECK(lone.err.find("--transcript needs --mix verifiable") != std::string::npos);
  const auto over = run_command(cli() + " run randomized-response --parties 10 --mix verifiable --mix-servers 2 --decryption-threshold 3");
  CHECK(over.exit_code == 2);
  CHECK(over.err.find("--decryption-threshold must be in [1, 2] (--mix-servers), got 3") != std::string::npos);
}
