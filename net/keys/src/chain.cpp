#include "shufflempc/net/chain.hpp"

#include <stdexcept>

#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/knowledge.hpp"

namespace shufflempc::net {

std::string to_string(MixKind kind) { return kind == MixKind::verifiable ? "verifiable" : "decryption"; }

MixKind parse_mix_kind(std::string_view text) {
  if (text == "verifiable") return MixKind::verifiable;
  if (text == "decryption") return MixKind::decryption;
  throw std::invalid_argument("--mix must be decryption or verifiable, got '" + std::string(text) + "'");
}

ChainSpec ChainSpec::make(std::size_t servers, MixKind kind, std::size_t decryption_threshold) {
  if (servers < 1 || servers > max_mix_servers)
    throw std::invalid_argument("--mix-servers must be in [1, " + std::to_string(max_mix_servers) + "] (the servers the records cross, " +
                                "the shuffler first; 1: the one shuffler), got " + std::to_string(servers));
  const ChainSpec spec(servers, kind, decryption_threshold);
  if (kind == MixKind::verifiable) spec.require_chain("--mix verifiable", "a chain");
  if (decryption_threshold != 0 && kind != MixKind::verifiable)
    throw std::invalid_argument("--decryption-threshold needs --mix verifiable");
  if (decryption_threshold > servers)
    throw std::invalid_argument("--decryption-threshold must be in [1, " + std::to_string(servers) + "] (the chain's servers), got " +
                                std::to_string(decryption_threshold));
  return spec;
}

void ChainSpec::check_further(std::size_t hop, std::string_view flag) const {
  require_chain(flag, "a chain");
  if (hop < 1 || hop >= servers_)
    throw std::invalid_argument(std::string(flag) + " must be in [1, " + std::to_string(servers_ - 1) +
                                "] (a further server of the chain), got " + std::to_string(hop));
}

void ChainSpec::require_chain(std::string_view flag, std::string_view what) const {
  if (!chained())
    throw std::invalid_argument(std::string(flag) + " needs --mix-servers in [2, " + std::to_string(max_mix_servers) + "] (" +
                                std::string(what) + ")");
}

std::size_t verifiable_width(std::size_t width) { return mixnet::submission_bytes(mixnet::limbs_for(width)); }

std::size_t chain_limbs(std::size_t wire_width) { return mixnet::submission_limbs(wire_width); }

}  // namespace shufflempc::net
