// Messages per second through the TCP shuffler, and the two ceilings of its data path.
//
//   build/bin/bench/net_throughput [--messages M] [--parties P] [--width W] [--rounds R]
//
// P party processes (fork) each submit M/P messages of W bytes per round over their own
// authenticated link; the shuffler (a thread of this process) validates, shuffles with the CSPRNG
// and sends the round's output to the analyzer (this process, its own link). A round is timed
// from the moment every party is told to submit until the analyzer holds the output. The
// messages are opaque to the shuffler (the plan's wire width is W), so the path encrypts the
// round's bytes twice (party link, analyzer link) and decrypts them twice.
// In the same run: (1) a raw loopback TCP transfer of the same bytes the path puts on the wire
// (2 x M x W), (2) libsodium's ChaCha20-Poly1305 encryption and decryption of the same bytes as
// many times as the path does (2 x encrypt + 2 x decrypt of M x W bytes, in the same frame sizes).
#include <sodium.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <asio.hpp>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void write_byte(int fd, char c) {
  if (::write(fd, &c, 1) != 1) std::exit(3);
}
char read_byte(int fd) {
  char c = 0;
  if (::read(fd, &c, 1) != 1) std::exit(3);
  return c;
}

template <class T>
T run_sync(asio::io_context& io, asio::awaitable<T> op) {
  std::exception_ptr error;
  std::optional<T> value;
  asio::co_spawn(io, std::move(op), [&](std::exception_ptr e, T v) {
    error = e;
    if (!e) value = std::move(v);
  });
  io.restart();
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*value);
}
void run_sync(asio::io_context& io, asio::awaitable<void> op) {
  std::exception_ptr error;
  asio::co_spawn(io, std::move(op), [&](std::exception_ptr e) { error = e; });
  io.restart();
  io.run();
  if (error) std::rethrow_exception(error);
}

// One party process: connect, then per round wait for "go", submit, wait for the outcome.
[[noreturn]] void party_main(PartyId id, const SessionConfig& config, const KeyPair& keys, std::uint16_t port,
                             std::size_t count, std::size_t width, std::uint32_t rounds, int go_fd, int ready_fd) {
  try {
    asio::io_context io;
    detail::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), port});
    auto link = std::make_shared<detail::SecureLink>(std::move(socket), config.limits());
    SystemRng rng;
    run_sync(io, link->connect_as(config.session, config.digest(), id, keys, config.shuffler_key, rng));
    // The submit payload of a one-party link: its count, then its messages.
    std::vector<std::uint8_t> batch(4 + count * width);
    store_le<std::uint32_t>(batch.data(), static_cast<std::uint32_t>(count));
    rng.fill(std::span(batch).subspan(4));
    for (std::uint32_t r = 0; r < rounds; ++r) {
      write_byte(ready_fd, 'r');
      if (read_byte(go_fd) != 'g') std::_Exit(0);
      link->send(FrameType::submit, r, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(count), batch);
      const auto f = run_sync(io, link->receive());
      if (f.header.type != FrameType::result) std::_Exit(4);
    }
    std::_Exit(0);
  } catch (const std::exception& e) {
    std::cerr << "party " << id << ": " << e.what() << '\n';
    std::_Exit(2);
  }
}

// Ceiling 1: `bytes` through one loopback TCP connection.
double raw_tcp_seconds(std::size_t bytes) {
  asio::io_context io;
  detail::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  const auto port = acceptor.local_endpoint().port();
  std::vector<std::uint8_t> data(1 << 20, 0x5a);
  double secs = 0;
  std::thread receiver([&] {
    auto s = acceptor.accept();
    std::vector<std::uint8_t> buf(1 << 20);
    std::size_t got = 0;
    while (got < bytes) got += s.read_some(asio::buffer(buf));
  });
  detail::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), port});
  const auto t = Clock::now();
  for (std::size_t sent = 0; sent < bytes;) {
    const std::size_t n = std::min(data.size(), bytes - sent);
    asio::write(s, asio::buffer(data.data(), n));
    sent += n;
  }
  receiver.join();
  secs = seconds_since(t);
  return secs;
}

// Ceiling 2: encrypt and decrypt with ChaCha20-Poly1305 (IETF) as the path does: the parties'
// frames (P frames of M/P messages) and the analyzer's frame (all M messages), each once each way.
double aead_seconds(std::size_t parties, std::size_t per_party_bytes) {
  std::array<std::uint8_t, 32> key{};
  randombytes_buf(key.data(), key.size());
  std::array<std::uint8_t, 12> nonce{};
  std::vector<std::uint8_t> buf(parties * per_party_bytes, 0x33);
  std::array<std::uint8_t, 16> tag{};
  const auto t = Clock::now();
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: party links; pass 1: the analyzer's link
    const std::size_t frame = pass == 0 ? per_party_bytes : buf.size();
    for (std::size_t off = 0; off < buf.size(); off += frame) {
      std::uint8_t* p = buf.data() + off;
      crypto_aead_chacha20poly1305_ietf_encrypt_detached(p, tag.data(), nullptr, p, frame, nullptr, 0, nullptr, nonce.data(), key.data());
      if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(p, nullptr, p, frame, tag.data(), nullptr, 0, nonce.data(), key.data()) != 0)
        std::abort();
    }
  }
  return seconds_since(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t messages = 1'000'000, parties = 16, width = 8;
  std::uint32_t rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const auto v = std::stoull(argv[i + 1]);
    if (a == "--messages") messages = v;
    else if (a == "--parties") parties = v;
    else if (a == "--width") width = v;
    else if (a == "--rounds") rounds = static_cast<std::uint32_t>(v);
    else {
      std::cerr << "usage: net_throughput [--messages M] [--parties P] [--width W] [--rounds R]\n";
      return 2;
    }
  }
  if (argc % 2 == 0 || parties == 0 || messages % parties != 0 || width == 0) {
    std::cerr << "usage: net_throughput [--messages M] [--parties P] [--width W] [--rounds R]  (P divides M)\n";
    return 2;
  }
  ensure_sodium();
  const std::size_t per_party = messages / parties;
  SystemRng rng;
  SessionConfig config;
  rng.fill(config.session);
  config.parties = parties;
  config.deadline = std::chrono::seconds(120);
  config.max_frame_bytes = static_cast<std::uint32_t>(std::min<std::size_t>(0xffff'0000u, messages * width + 4096 * parties + 4096));
  const KeyPair shuffler_keys = KeyPair::generate(rng), analyzer_keys = KeyPair::generate(rng);
  config.shuffler_key = shuffler_keys.public_key();
  config.analyzer_key = analyzer_keys.public_key();
  std::vector<KeyPair> party_keys;
  for (std::size_t i = 0; i < parties; ++i) {
    party_keys.push_back(KeyPair::generate(rng));
    config.party_keys.push_back(party_keys.back().public_key());
  }
  std::vector<RoundShape> plan(rounds, RoundShape::exactly(width, Delivery::analyzer_only, per_party));
  config.rounds = plan;
  TcpShuffler shuffler(shuffler_keys, {config}, "127.0.0.1", 0);
  const std::uint16_t port = shuffler.port();

  // Fork the parties before any thread exists in this process.
  int ready[2], go[2];
  if (::pipe(ready) != 0 || ::pipe(go) != 0) return 1;
  std::vector<pid_t> children;
  for (std::size_t i = 0; i < parties; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) party_main(static_cast<PartyId>(i), config, party_keys[i], port, per_party, width, rounds, go[0], ready[1]);
    children.push_back(pid);
  }
  std::thread server([&] { (void)shuffler.run(); });

  asio::io_context io;
  detail::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  auto analyzer = std::make_shared<detail::SecureLink>(std::move(socket), config.limits());
  run_sync(io, analyzer->connect_as(config.session, config.digest(), analyzer_id, analyzer_keys, config.shuffler_key, rng));

  std::vector<double> times;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < parties; ++i) (void)read_byte(ready[0]);
    const auto t = Clock::now();
    for (std::size_t i = 0; i < parties; ++i) write_byte(go[1], 'g');
    const auto f = run_sync(io, analyzer->receive());
    times.push_back(seconds_since(t));
    if (f.header.count != messages) {
      std::cerr << "round " << r << ": " << f.header.count << " messages arrived, " << messages << " sent\n";
      return 1;
    }
    std::cerr << fmt::format("round {}: {:.3f} s\n", r, times.back());
  }
  server.join();
  for (pid_t pid : children) {
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
  std::sort(times.begin(), times.end());
  const double path = times[times.size() / 2];
  const std::size_t round_bytes = messages * width;
  // The ceilings and the bare shuffle: median of as many repetitions as rounds.
  std::vector<double> tcps, aeads, shuffles;
  MessageBatch batch(width, messages);
  rng.fill(batch.data(), batch.size_bytes());
  for (std::uint32_t r = 0; r < rounds; ++r) {
    tcps.push_back(raw_tcp_seconds(2 * round_bytes));
    aeads.push_back(aead_seconds(parties, per_party * width));
    const auto t = Clock::now();
    Shuffler sh;
    sh.shuffle(batch, rng);
    shuffles.push_back(seconds_since(t));
  }
  const auto median = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double tcp = median(tcps), aead = median(aeads), bare_shuffle = median(shuffles);
  const double path_rate = messages / path, tcp_rate = messages / tcp, aead_rate = messages / aead;
  const double lower = std::min(tcp_rate, aead_rate);
  fmt::print("TCP shuffler: {} parties (processes), {} messages of {} bytes per round, median of {} rounds\n", parties,
             messages, width, rounds);
  fmt::print("  shuffler path          {:>8.3f} s/round  {:>12.0f} messages/s\n", path, path_rate);
  fmt::print("  ceiling: raw TCP       {:>8.3f} s        {:>12.0f} messages/s  (2 x {} bytes over one loopback connection)\n", tcp,
             tcp_rate, round_bytes);
  fmt::print("  ceiling: AEAD          {:>8.3f} s        {:>12.0f} messages/s  (ChaCha20-Poly1305: 2 x encrypt + 2 x decrypt of {} bytes)\n",
             aead, aead_rate, round_bytes);
  fmt::print("  reference: the shuffle {:>8.3f} s        {:>12.0f} messages/s  (shufflempc::Shuffler on the same batch, SystemRng)\n",
             bare_shuffle, messages / bare_shuffle);
  fmt::print("  path / raw TCP = {:.2f}, path / AEAD = {:.2f}, path / lower ceiling = {:.2f} (target >= 0.5)\n",
             path_rate / tcp_rate, path_rate / aead_rate, path_rate / lower);
  return 0;
}
