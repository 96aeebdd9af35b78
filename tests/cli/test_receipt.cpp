// `shufflempc receipt` (docs/network.md, "Durable collection") with real processes and files: party
// processes that left with their receipts (local --receipts), the analyzer's published commitment,
// and the check of one against the other: included (exit 0), left out by a shuffler that signs a
// commitment without a receipted record (exit 1: evidence), no case when a file was altered (exit 2).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_json.hpp"
#include "net/harness.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/batch_commitment.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using namespace shufflempc::test;

namespace {

CommandResult check_receipts(const std::string& receipts, const std::string& commitment, const std::string& config) {
  return shufflempc::run_command({SHUFFLEMPC_CLI, "receipt", receipts, "--commitment", commitment, "--config", config, "--json"});
}

Value receipt_json_file(const std::string& path) { return Value::parse(read_text_file(path, "a test's file")); }

}  // namespace

TEST_CASE("shufflempc receipt: every party process's receipts are in the batch the analyzer published, and an altered file makes no case") {
  const test::TempDir tmp("shufflempc-receipt");
  const std::string r = tmp / "receipts";
  const Value out = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "200", "--parties-per-process", "50", "--seed", "5", "--json",
                              "--state-dir", tmp / "state", "--leave-after-receipt", "--receipts", r, "--keep-dir", tmp / "run"},
                             tmp / "err");
  const Value published = receipt_json_file(r + "/commitment.json");
  REQUIRE(published["rounds"].size() == 1);
  CHECK(published["rounds"][0]["count"] == out["messages"]);
  CHECK(published["rounds"][0]["leaves"].size() == out["messages"].get<std::size_t>());
  for (const char* range : {"0-49", "50-99", "100-149", "150-199"}) {
    CAPTURE(range);
    const std::string file = r + "/party-" + range + ".json";
    const auto c = check_receipts(file, r + "/commitment.json", r + "/session.json");
    CHECK_MESSAGE(c.exit_code == 0, (c.out + c.err));
    const Value v = Value::parse(c.out);
    CHECK(v["all_included"] == true);
    REQUIRE(v["receipts"].size() == 1);  // a process of 50 parties: one link, one batch
    CHECK(v["receipts"][0]["standing"] == "included");
  }
  // A leaf dropped from the published batch: the leaves no longer make its root. No case (exit 2).
  Value cut = published;
  cut["rounds"][0]["leaves"].erase(0);
  write_file(tmp / "cut.json", cut.dump(), "a test's file");
  auto c = check_receipts(r + "/party-0-49.json", tmp / "cut.json", r + "/session.json");
  CHECK(c.exit_code == 2);
  CHECK(c.out.find("the published leaves are not the committed batch of round 0") != std::string::npos);
  // A receipt whose records were altered: they are not the batch its signed digest names.
  Value altered = receipt_json_file(r + "/party-50-99.json");
  std::string records = altered["receipts"][0]["records"];
  records[0] = records[0] == '0' ? '1' : '0';
  altered["receipts"][0]["records"] = records;
  write_file(tmp / "altered.json", altered.dump(), "a test's file");
  c = check_receipts(tmp / "altered.json", r + "/commitment.json", r + "/session.json");
  CHECK(c.exit_code == 2);
  CHECK(c.out.find("its records are not the batch its digest names") != std::string::npos);
  // Checked against another session's config: the signatures are over the config's session.
  const Value other = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "100", "--seed", "6", "--json", "--state-dir", tmp / "state2",
                                "--receipts", tmp / "other"},
                               tmp / "err");
  CHECK_FALSE(other["output"].is_null());
  c = check_receipts(r + "/party-0-49.json", r + "/commitment.json", tmp / "other/session.json");
  CHECK(c.exit_code == 2);
  CHECK(c.out.find("is not signed with the session's shuffler signing key") != std::string::npos);
  // A file that is not one.
  c = check_receipts(r + "/commitment.json", r + "/commitment.json", r + "/session.json");
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("not a file of shufflempc admission receipts v1") != std::string::npos);
}

TEST_CASE("shufflempc receipt: a commitment the shuffler signed without a receipted record is evidence against it (exit 1)") {
  const test::TempDir tmp("shufflempc-receipt-evidence");
  const std::string r = tmp / "receipts";
  (void)run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "100", "--parties-per-process", "25", "--seed", "7", "--json", "--state-dir",
                  tmp / "state", "--leave-after-receipt", "--receipts", r, "--keep-dir", tmp / "run"},
                 tmp / "err");
  // The shuffler's own key (kept in the run's directory) signs a commitment to the batch without
  // the first record of party process 25-49: what a shuffler that dropped a receipted record shows.
  const auto config = net::SessionConfig::load(r + "/session.json");
  const auto signer = net::signing_key_of(net::KeyPair::load(tmp / (std::string("run/") + net::shuffler_key_file)));
  REQUIRE(signer.public_key() == *config.shuffler_signer);
  Value receipts = receipt_json_file(r + "/party-25-49.json");
  const std::uint32_t width = receipts["receipts"][0]["width"];
  std::vector<std::uint8_t> first_record(width);
  from_hex(std::string(receipts["receipts"][0]["records"]).substr(0, 2 * width), first_record, "a record");
  const auto dropped = to_hex(merkle::leaf(first_record));
  Value published = receipt_json_file(r + "/commitment.json");
  std::vector<merkle::Hash> leaves;
  Value kept = Value::array();
  for (const auto& leaf : published["rounds"][0]["leaves"]) {
    if (leaf == dropped) continue;
    merkle::Hash h{};
    from_hex(leaf.get<std::string>(), h, "a leaf");
    leaves.push_back(h);
    kept.push_back(leaf);
  }
  REQUIRE(kept.size() + 1 == published["rounds"][0]["leaves"].size());
  net::BatchCommitment lie{.round = 0, .count = leaves.size(), .width = width, .root = merkle::Tree(width, leaves).root(), .signature = {}};
  lie.signature = signer.sign(net::batch_statement(config.session, lie));
  published["rounds"][0] = {{"round", 0u}, {"count", lie.count}, {"width", width}, {"root", to_hex(lie.root)}, {"signature", to_hex(lie.signature)},
                            {"leaves", kept}};
  write_file(tmp / "lie.json", published.dump(), "a test's file");
  const auto c = check_receipts(r + "/party-25-49.json", tmp / "lie.json", r + "/session.json");
  CHECK_MESSAGE(c.exit_code == 1, (c.out + c.err));
  const Value v = Value::parse(c.out);
  CHECK(v["all_included"] == false);
  CHECK(v["receipts"][0]["standing"] == "left_out");
  CHECK(std::string(v["receipts"][0]["text"]).find("record 0 of the receipt of the batch of party 25 in round 0 is not in the batch") != std::string::npos);
  // The other processes' receipts are still included in it.
  CHECK(check_receipts(r + "/party-0-24.json", tmp / "lie.json", r + "/session.json").exit_code == 0);
}

TEST_CASE("shufflempc receipt: a receipt the shuffler did not sign is not kept, and its party process waits for the result instead of leaving") {
  const test::TempDir tmp("shufflempc-receipt-forged");
  const std::string r = tmp / "receipts";
  // The entry flips the last byte of every admitted frame: its signature no longer holds.
  const Value out = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "100", "--parties-per-process", "50", "--seed", "8", "--json",
                              "--state-dir", tmp / "state", "--leave-after-receipt", "--receipts", r, "--fault-adversary",
                              "type=admitted,to=parties,mutation=tail-flip"},
                             tmp / "err");
  const Value mem = run_json({SHUFFLEMPC_CLI, "run", "counting", "--parties", "100", "--seed", "8", "--json"}, tmp / "err2");
  CHECK(out["output"] == mem["output"]);  // every party counted: they stayed for the result
  const std::string err = slurp(tmp / "err");
  CHECK(err.find("the shuffler's admission receipt for the link of parties 0..49 is not the shuffler's signature of its batch: not kept") !=
        std::string::npos);
  CHECK(err.find("--receipt: no admission receipt came for parties 50-99") != std::string::npos);
  // The file says so too: nothing to check.
  const auto c = check_receipts(r + "/party-0-49.json", r + "/commitment.json", r + "/session.json");
  CHECK(c.exit_code == 2);
  CHECK(receipt_json_file(r + "/party-0-49.json")["receipts"].empty());
}
