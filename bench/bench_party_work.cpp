// A party's work from its answer to its submit frame, natively: what a page does in the browser's
// build (bench/web/bench_party.mjs times the same steps there). The session config's protocol made
// by the registry and checked against the config, the party's messages drawn and sealed to the
// analyzer, the submit payload, the link's handshake (a key pair, three X25519, the identity proof)
// against a reply made here, and the sealed submit frame. Median of --repeat runs, in microseconds.
//   bench_party_work --config session.json [--repeat 200]
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <vector>

#include "shufflempc/json.hpp"
#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"
#include "timing.hpp"

using namespace shufflempc;
using namespace shufflempc::net;

int main(int argc, char** argv) {
  CLI::App app("a party's work from its answer to its submit frame, natively");
  std::string config_path;
  std::size_t repeat = 200;
  app.add_option("--config", config_path, "a session config (shufflempc session)")->required()->check(CLI::ExistingFile);
  app.add_option("--repeat", repeat, "runs (the median is printed)")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);
  std::ifstream in(config_path);
  std::stringstream text;
  text << in.rdbuf();
  const Registry registry = builtin_registry();
  SystemRng rng;
  const KeyPair shuffler = KeyPair::generate(rng);  // a stand-in: its reply is made here
  const KeyPair mine = KeyPair::generate(rng);
  // The shuffler's reply, made once: the client's work is the same whatever reply comes (its keys
  // are then not the server's, which nothing here checks).
  const SessionConfig first = SessionConfig::from_json(parse_json_document(text.str(), "the session config"));
  std::array<std::uint8_t, hello_reply_bytes> reply{};
  {
    detail::ClientHandshake probe(first.session, first.digest(), 0, 1, {}, shuffler.public_key(), rng);
    detail::LinkCipher ignored;
    reply = detail::server_handshake(decode_hello(probe.hello()), shuffler, {}, rng, ignored);
  }
  std::vector<double> micros;
  std::size_t frame_bytes = 0;
  for (std::size_t run = 0; run < repeat; ++run) {
    micros.push_back(1e6 * bench::seconds_of([&] {
      const SessionConfig c = SessionConfig::from_json(parse_json_document(text.str(), "the session config"));
      auto protocol = registry.create(c.protocol, c.params, c.parties, c.min_parties);
      check_rounds(c, *protocol);
      const RoundShape shape = protocol->round(0);
      auto party = protocol->make_party(0, Value(1));
      MessageBatch messages(shape.width);
      party->send(0, rng, messages);
      std::vector<std::uint8_t> sealed(messages.count() * sealing::sealed_width(shape.width));
      sealing::seal(messages.bytes(), shape.width, c.analyzer_key, sealed);
      const auto payload = encode_submit(std::vector<std::uint32_t>{static_cast<std::uint32_t>(messages.count())}, sealed);
      detail::ClientHandshake handshake(c.session, c.digest(), 0, 1, detail::identity_proof(0, mine, shuffler.public_key()),
                                        shuffler.public_key(), rng);
      detail::LinkCipher client;
      (void)handshake.finish(reply, client);
      FrameHeader h;
      h.type = FrameType::submit;
      h.session = c.session;
      h.width = static_cast<std::uint32_t>(sealing::sealed_width(shape.width));
      h.count = static_cast<std::uint32_t>(messages.count());
      frame_bytes = client.seal(h, payload).size();
    }));
  }
  std::sort(micros.begin(), micros.end());
  fmt::print("native party work: median {:.1f} us (p10 {:.1f}, p90 {:.1f}) over {} runs, submit frame {} bytes\n",
             micros[micros.size() / 2], micros[micros.size() / 10], micros[micros.size() * 9 / 10], repeat, frame_bytes);
}
