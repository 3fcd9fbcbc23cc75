#include "server/rooms/fairness.hpp"

#include <openssl/sha.h>

#include "server/secure_random.hpp"

namespace plateau::server {

RoundSecret fresh_round_secret(const std::function<std::uint64_t()>& random) {
  RoundSecret s;
  s.seed = random();
  unsigned char salt[16];
  for (int half = 0; half < 2; ++half) {
    std::uint64_t r = random();
    for (int i = 0; i < 8; ++i, r >>= 8) salt[half * 8 + i] = static_cast<unsigned char>(r);
  }
  s.salt = to_hex(salt);
  return s;
}

std::string seed_commitment(std::uint64_t seed, std::string_view salt) {
  const std::string text = "plateau-seed/1:" + std::to_string(seed) + ":" + std::string(salt);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return to_hex(digest);
}

std::shared_ptr<const protocol::Fairness> fairness_of(const RoundSecret& secret, bool revealed) {
  if (secret.salt.empty()) return nullptr;
  auto f = std::make_shared<protocol::Fairness>();
  f->commitment = seed_commitment(secret.seed, secret.salt);
  if (revealed) {
    f->seed = std::to_string(secret.seed);
    f->salt = secret.salt;
  }
  return f;
}

}  // namespace plateau::server
