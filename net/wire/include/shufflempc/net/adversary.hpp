// Fault injection for the adversary harness of the tests (tests/cli/test_adversary.cpp,
// tests/net/test_dkg.cpp): a catalogue of mutations of the frames a process sends, and the
// dishonest roles that apply them: the chain's entry (`shuffler --fault-adversary SPEC`), a further
// mix server (`mix-server --fault-adversary SPEC`), a party (`party --fault-adversary SPEC`), all
// three from `local --fault-adversary role=...,SPEC`, and the key generation's coordinator
// (generate_key's tap) or server (DkgServerOptions::frame_tap). Nothing here runs unless a test or
// a fault flag asks for it.
//
// A mutation rewrites one outgoing frame (OutgoingFrame, wire.hpp) or says what becomes of it:
//   truncate, extend, empty                    the payload halved, 17 bytes longer, emptied
//   width-0, width-max, count-0, count-max, count-beyond
//                                              a header field set to 0, to 2^32 - 1, or one past its value
//   round-earlier, round-later, session-other  a replay of an earlier round, a frame of the next
//                                              round, a frame of another session
//   type-TYPE                                  the frame sent as another type (out of turn): confirm,
//                                              submit, result, abort, mix, mixed, shuffle, shuffled,
//                                              decrypt, decrypted, done, verdict, alive, dkg, dkg-answer
//   withhold, duplicate, close                 nothing sent, sent twice, the link closed instead
//   throw                                      the honest code sending it gets an exception that is not
//                                              a std::system_error (std::logic_error), as from a bug
//   FIELD-0, FIELD-max, FIELD-beyond, FIELD-flip
//                                              a result frame's count or length field (FIELD: messages,
//                                              submitted, dropped, reports, evidence) set to 0, to its
//                                              largest value, one past its value, or its lowest bit flipped
//   ids-flip, tail-flip, tail-cut              a bit of the first listed id flipped; the last byte of the
//                                              payload (a party's receipt, or the analyzer's records) flipped
//                                              or cut
// A mutation that does not apply to a frame (a result field in a frame too short to hold it) sends
// the frame unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "shufflempc/net/wire.hpp"

namespace shufflempc::net::adversary {

// Every mutation's name, in the order above.
[[nodiscard]] const std::vector<std::string>& mutations();
// Applies mutation `name` to `frame` and says what becomes of it. Throws std::invalid_argument for
// an unknown name, listing the known ones, and std::logic_error for `throw`.
TapAction mutate(const std::string& name, OutgoingFrame& frame);
// Throws std::invalid_argument, naming `key` and listing the known mutations, if `name` is none of them.
void check_mutation(const std::string& name, const std::string& key = "mutation");

// A dishonest entry (ShufflerOptions::ignore_submissions and frame_tap), from a spec of
// comma-separated KEY=VALUE: ignore=A-B (the parties whose submissions it throws away, so that
// they count as dropped: the n - 1 attack), type=NAME (the frames it mutates: result, abort, any;
// default result), to=A-B|analyzer|parties|all (whose links; default all), mutation=NAME (default
// none: the frames go as they are). Throws std::invalid_argument naming the key or value at fault.
struct EntrySpec {
  std::set<PartyId> ignore;
  std::function<TapAction(PartyId first, std::uint32_t count, OutgoingFrame& frame)> tap;  // empty without a mutation
};
[[nodiscard]] EntrySpec parse_entry(const std::string& spec);

// A dishonest process of another role (a further mix server: `mix-server --fault-adversary SPEC`;
// a party: `party --fault-adversary SPEC`; the key generation's coordinator or a server, in the
// tests): type=NAME (the frames it mutates, as for the entry; default any) and mutation=NAME.
// Throws std::invalid_argument naming the key or value at fault.
[[nodiscard]] FrameTap parse_tap(const std::string& spec);

// Which process of a `local` run plays the adversary (`local --fault-adversary SPEC`): the key
// role=entry (the default: the rest is parse_entry's), role=mix-server-I (further server I, 1 ..
// servers - 1) or role=party-P (the process hosting party P); the rest is that process's spec.
struct RoleSpec {
  enum class Role { entry, mix_server, party } role = Role::entry;
  std::size_t index = 0;  // the server's position, or the party's id
  std::string spec;       // the spec without its role
};
[[nodiscard]] RoleSpec split_role(const std::string& spec);

}  // namespace shufflempc::net::adversary
