// libFuzzer target for the TCP transport's parsers: the hello, the frame header, the submit,
// result and verdict payloads and a result's receipt (what a peer controls before and after
// authentication). Build with clang and
// -DSHUFFLEMPC_FUZZ=ON; run: build-sanitize/bin/fuzz/fuzz_frame -max_total_time=60
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>

#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shufflempc;
  using namespace shufflempc::net;
  const std::span<const std::uint8_t> in(data, size);
  if (size >= hello_bytes) {
    try {
      const Hello h = decode_hello(in.first(hello_bytes));
      // Decoding then encoding gives back the same bytes (the config digest included).
      const auto again = encode_hello(h);
      if (!std::equal(again.begin(), again.end(), data)) __builtin_trap();
    } catch (const std::system_error&) {
    }
  }
  if (size < frame_header_bytes) return 0;
  SessionId session{};
  std::copy(data + 8, data + 8 + session_id_bytes, session.begin());  // let the fuzzer reach the later fields
  Limits limits;
  limits.max_payload = 1u << 20;
  limits.max_parties = 1000;
  try {
    const FrameHeader h = decode_header(in.first(frame_header_bytes), session, limits);
    const auto payload = in.subspan(frame_header_bytes);
    if (h.type == FrameType::result && payload.size() == h.payload_length) {
      const ResultPayload r = decode_result(h, payload, 1000, limits);
      // Everything decode_result accepted must be in range.
      if (r.output.size() != std::size_t{h.width} * h.count) __builtin_trap();
      for (auto id : r.submitted)
        if (id >= 1000) __builtin_trap();
      // A receipt decoded re-encodes to the same bytes; every index is in its batch.
      try {
        const Receipt receipt = decode_receipt(r.receipt, 64);
        const auto again = encode_receipt(receipt);
        if (!std::equal(again.begin(), again.end(), r.receipt.begin(), r.receipt.end())) __builtin_trap();
        for (const auto& p : receipt.records)
          if (p.index != missing_record && p.index >= receipt.count) __builtin_trap();
      } catch (const std::system_error&) {
      }
    }
    if (h.type == FrameType::verdict && payload.size() == h.payload_length) {
      const VerdictPayload v = decode_verdict(h, payload);
      if (v.parties.size() != h.count || v.reason.size() > limits.max_abort_reason) __builtin_trap();
      const auto again = encode_verdict(v);
      if (!std::equal(again.begin(), again.end(), payload.begin(), payload.end())) __builtin_trap();
    }
    if (h.type == FrameType::submit && payload.size() == h.payload_length) {
      const std::size_t parties = (payload.size() - std::size_t{h.width} * h.count) / 4;
      const SubmitPayload s = decode_submit(h, payload, parties);
      // Everything decode_submit accepted adds up to the header's count.
      std::uint64_t total = 0;
      for (auto c : s.counts)
        if (c != submit_absent) total += c;
      if (total != h.count || s.messages.size() != std::size_t{h.width} * h.count) __builtin_trap();
    }
  } catch (const std::system_error&) {
  }
  return 0;
}
