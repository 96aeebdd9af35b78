// The bundled circuits and their published vectors, for the circuit protocol's tests.
#pragma once

#include <memory>
#include <string>

#include "shufflempc/protocols/circuit/bristol.hpp"
#include "support/paths.hpp"

namespace shufflempc::test {

// A circuit of the source tree's circuits/ folder, by name.
inline std::shared_ptr<const circuit::Circuit> bundled(const std::string& name) {
  return std::make_shared<const circuit::Circuit>(circuit::load(std::string(SHUFFLEMPC_CIRCUITS_DIR) + "/" + name + ".txt"));
}

// FIPS-197 C.1: key, plaintext, ciphertext.
inline const std::string aes_key = "000102030405060708090a0b0c0d0e0f";
inline const std::string aes_pt = "00112233445566778899aabbccddeeff";
inline const std::string aes_ct = "69c4e0d86a7b0430d8cdb78070b4c55a";
// SHA-256("abc"): the padded block, the initial chaining value, the digest.
inline const std::string sha_block = "61626380" + std::string(104, '0') + "0000000000000018";
inline const std::string sha_iv = "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19";
inline const std::string sha_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

}  // namespace shufflempc::test
