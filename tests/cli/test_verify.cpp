// `run PROTOCOL --mix verifiable` and `shufflempc verify`: the seeded result of the plain run, a
// transcript the verifier accepts, a transcript altered at one hop refused naming that hop, a
// protocol whose records do not fit refused with the reason, and the options' ranges.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "shufflempc/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc::test;

TEST_CASE("run --mix verifiable: the plain run's seeded result, a transcript that verifies, and one altered at hop 1 refused naming hop 1") {
  TempDir dir;
  const std::string transcript = dir / "t.json";
  const auto plain = run_command(cli_binary() + " run randomized-response --parties 40 --seed 9 --json");
  const auto mixed = run_command(cli_binary() + " run randomized-response --parties 40 --seed 9 --mix verifiable --mix-servers 3 --transcript " + transcript + " --json");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(mixed.exit_code == 0);
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(mixed.out);
  CHECK(b["output"] == a["output"]);
  CHECK(b["verifiable_mix"]["hops"] == 3);
  CHECK(b["verifiable_mix"]["rounds"][0]["records"] == a["messages"]);
  CHECK(b["verifiable_mix"]["transcript"] == transcript);

  const auto ok = run_command(cli_binary() + " verify " + transcript);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("verified: 1 round(s), 40 records each proved by its sender, 3 proofs of shuffle each signed by its hop's server, 4 trustees' decryption proofs") !=
        std::string::npos);
  // An in-process run has no session config: the output says that nothing ties the file to one.
  CHECK(ok.out.find("not tied to a session") != std::string::npos);
  CHECK(ok.out.find("hop 2 signed by ") != std::string::npos);
  const auto text = run_command(cli_binary() + " run randomized-response --parties 40 --seed 9 --mix verifiable --mix-servers 3");
  CHECK(text.out.find("mix       round 0: 40 records through 3 hops, 3 proofs of shuffle and the decryption proofs of 3 of 3 servers (3 needed) "
                      "and the analyzer verified") != std::string::npos);

  // Hop 1's output with two records swapped: hop 1's proof fails, and hop 2's (made for what hop 1
  // really sent) fails too; a verifier names both, the first being hop 1.
  auto j = nlohmann::json::parse(shufflempc::read_text_file(transcript, "transcript"));
  const std::string out = j["rounds"][0]["hops"][1]["output"];
  const std::size_t record = 2 * 64;  // one limb: 64 bytes, 128 hex digits
  std::string swapped = out.substr(record, record) + out.substr(0, record) + out.substr(2 * record);
  j["rounds"][0]["hops"][1]["output"] = swapped;
  const std::string altered = dir / "altered.json";
  shufflempc::write_file(altered, j.dump(), "altered transcript");
  const auto bad = run_command(cli_binary() + " verify " + altered);
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("shufflempc verify: round 0 hop 1: the proof of shuffle does not verify") != std::string::npos);
  CHECK(bad.err.find("NOT VERIFIED") != std::string::npos);
  CHECK(bad.err.find("hop 0") == std::string::npos);

  const auto json = run_command(cli_binary() + " verify --json " + altered);
  CHECK(json.exit_code == 1);
  const auto verdict = nlohmann::json::parse(json.out);
  CHECK(verdict["verified"] == false);
  CHECK(verdict["hop_proofs"] == 3);
  CHECK(verdict["knowledge_proofs"] == verdict["records"]);
  REQUIRE(verdict["faults"].size() == 2);  // hop 1, and hop 2 whose input it no longer is
  CHECK(verdict["faults"][0].get<std::string>().find("round 0 hop 1:") == 0);
  CHECK(verdict["faults"][1].get<std::string>().find("round 0 hop 2:") == 0);

  const auto missing = run_command(cli_binary() + " verify " + (dir / "none.json"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("transcript") != std::string::npos);
}

TEST_CASE("run --mix verifiable: a protocol whose records do not fit is refused with the reason, and the options' ranges are named") {
  const auto wide = run_command(cli_binary() + " run mpc2 --parties 3 --mix verifiable --mix-servers 2");
  CHECK(wide.exit_code == 2);
  CHECK(wide.err.find("mpc2 cannot run over the verifiable mix") != std::string::npos);
  CHECK(wide.err.find("do not fit the verifiable mix (at most 16 bytes") != std::string::npos);
  const auto no_servers = run_command(cli_binary() + " run randomized-response --parties 10 --mix verifiable");
  CHECK(no_servers.exit_code == 2);
  CHECK(no_servers.err.find("--mix verifiable needs --mix-servers in [2, 16] (a chain)") != std::string::npos);
  const auto kind = run_command(cli_binary() + " run randomized-response --parties 10 --mix other --mix-servers 2");
  CHECK(kind.exit_code == 2);
  CHECK(kind.err.find("--mix") != std::string::npos);
  const auto lone = run_command(cli_binary() + " run randomized-response --parties 10 --transcript /tmp/x.json");
  CHECK(lone.exit_code == 2);
  CHECK(lone.err.find("--transcript needs --mix verifiable") != std::string::npos);
  const auto over = run_command(cli_binary() + " run randomized-response --parties 10 --mix verifiable --mix-servers 2 --decryption-threshold 3");
  CHECK(over.exit_code == 2);
  CHECK(over.err.find("--decryption-threshold must be in [1, 2] (the chain's servers), got 3") != std::string::npos);
}

TEST_CASE("verify --config: a local run's transcript is its session's, and another session, a round listed twice or dropped, a flipped delivery and a hostile file are named") {
  TempDir dir;
  const std::string transcript = dir / "t.json", other = dir / "other";
  const auto run = run_command(cli_binary() + " local split-mix-sum --parties 6 --mix-servers 3 --mix verifiable --seed 3 --transcript " + transcript +
                               " --keep-dir " + (dir / "run"));
  REQUIRE(run.exit_code == 0);
  const auto second = run_command(cli_binary() + " local split-mix-sum --parties 6 --mix-servers 3 --mix verifiable --seed 3 --keep-dir " + other);
  REQUIRE(second.exit_code == 0);
  const std::string config = (dir / "run") + "/session.json";
  const auto ok = run_command(cli_binary() + " verify " + transcript + " --config " + config);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("of " + config + ": its id, its chain's 3 servers as the signers, and every round it carried") != std::string::npos);
  const auto json = nlohmann::json::parse(run_command(cli_binary() + " verify --json " + transcript + " --config " + config).out);
  CHECK(json["verified"] == true);
  CHECK(json["bound_to_session"] == true);
  CHECK(json["signers"].size() == 3);

  // Another session's config: its id and its servers are not the file's.
  const auto wrong = run_command(cli_binary() + " verify " + transcript + " --config " + other + "/session.json");
  CHECK(wrong.exit_code == 1);
  CHECK(wrong.err.find("shufflempc verify: the transcript is of session ") != std::string::npos);
  CHECK(wrong.err.find("hop 0: the transcript's signer is not the session's server") != std::string::npos);

  const auto verdict_of = [&](const nlohmann::json& j) {
    const std::string file = dir / "altered.json";
    std::filesystem::remove(file);
    shufflempc::write_file(file, j.dump(), "altered transcript");
    return run_command(cli_binary() + " verify " + file + " --config " + config);
  };
  const auto original = nlohmann::json::parse(shufflempc::read_text_file(transcript, "transcript"));
  REQUIRE(original["rounds"].size() >= 1);
  auto j = original;
  j["rounds"].push_back(j["rounds"][0]);
  auto twice = verdict_of(j);
  CHECK(twice.exit_code == 1);
  CHECK(twice.err.find("round 0 is listed twice") != std::string::npos);
  j = original;
  j["rounds"].erase(0);
  auto dropped = verdict_of(j);
  CHECK(dropped.exit_code == 1);
  CHECK(dropped.err.find("round 0 of the session is not in the transcript") != std::string::npos);
  j = original;
  j["rounds"][0]["delivery"] = j["rounds"][0]["delivery"] == "analyzer-only" ? "all-parties" : "analyzer-only";
  auto flipped = verdict_of(j);
  CHECK(flipped.exit_code == 1);
  CHECK(flipped.err.find("round 0: delivered ") != std::string::npos);

  // A file larger than --max-bytes, and an unknown field: exit 2, one line.
  const auto big = run_command(cli_binary() + " verify " + transcript + " --max-bytes 100");
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("transcript") != std::string::npos);
  j = original;
  j["padding"] = nlohmann::json::array();
  const std::string hostile = dir / "hostile.json";
  shufflempc::write_file(hostile, j.dump(), "hostile transcript");
  const auto refused = run_command(cli_binary() + " verify " + hostile);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("unknown field \"padding\"") != std::string::npos);
}

TEST_CASE("verify --config: a transcript whose record width was changed to another of the same limbs fails, and a file naming a field twice is refused") {
  // Records of 8 bytes travel as 4 limbs, as records of 7 would: the width is bound by the session
  // config (rounds[r].record_width) and by every proof and signature of the round.
  TempDir dir;
  const std::string transcript = dir / "t.json", keep = dir / "run";
  const auto run = run_command(cli_binary() + " local split-mix-sum --parties 10 --modulus-bits 64 --messages 3 --accept-input-leakage true --seed 7 "
                                       "--mix-servers 3 --mix verifiable --transcript " + transcript + " --keep-dir " + keep);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::string config = keep + "/session.json";
  const auto session = nlohmann::json::parse(shufflempc::read_text_file(config, "session config"));
  CHECK(session["rounds"][0]["record_width"] == 8);
  const auto original = nlohmann::json::parse(shufflempc::read_text_file(transcript, "transcript"));
  REQUIRE(original["rounds"][0]["width"] == 8);
  const auto verdict_of = [&](const std::string& text, const std::string& with_config) {
    const std::string file = dir / "altered.json";
    std::filesystem::remove(file);
    shufflempc::write_file(file, text, "altered transcript");
    return run_command(cli_binary() + " verify " + file + " --config " + with_config);
  };
  CHECK(verdict_of(original.dump(), config).exit_code == 0);
  // Width 8 -> 7, the records as a width of 7 decodes them (none: every record's eighth byte is
  // set): the sum would be 0.
  auto j = original;
  j["rounds"][0]["width"] = 7;
  j["rounds"][0]["records"] = "";
  const auto narrowed = verdict_of(j.dump(), config);
  CHECK(narrowed.exit_code == 1);
  CHECK(narrowed.err.find("round 0: records of 7 bytes, the session's round has records of 8") != std::string::npos);
  CHECK(narrowed.err.find("round 0 hop 0: the proof of shuffle does not verify") != std::string::npos);
  CHECK(narrowed.out.find("verified") == std::string::npos);
  // Alone, without the config, the proofs refuse it too.
  shufflempc::write_file(dir / "alone.json", j.dump(), "altered transcript");
  CHECK(run_command(cli_binary() + " verify " + (dir / "alone.json")).exit_code == 1);

  // A round naming "records" twice: refused as it is read (exit 2), whichever a reader would keep.
  std::string text = original.dump();
  const auto at = text.find("\"records\":");
  REQUIRE(at != std::string::npos);
  text.insert(at, "\"records\":\"\",");
  const auto twice = verdict_of(text, config);
  CHECK(twice.exit_code == 2);
  CHECK(twice.err.find("the field \"records\" is named twice in one object") != std::string::npos);
  // And a session config naming a field twice.
  std::string config_text = session.dump();
  config_text.insert(config_text.find("\"rounds\":"), "\"rounds\":[],");
  const std::string doubled = dir / "doubled.json";
  shufflempc::write_file(doubled, config_text, "session config");
  const auto refused = verdict_of(original.dump(), doubled);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("names the field \"rounds\" twice in one object") != std::string::npos);
}
