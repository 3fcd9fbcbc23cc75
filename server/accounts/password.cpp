#include "server/accounts/password.hpp"

#include <sodium.h>

#include <stdexcept>

namespace plateau::server {

namespace {

void init_sodium() {
  // Thread-safe and idempotent; picks the fastest code for this CPU.
  static const int ready = sodium_init();
  if (ready < 0) throw std::runtime_error("libsodium could not start");
}

}  // namespace

std::string hash_password(std::string_view password, PasswordCost cost) {
  init_sodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), cost.ops, cost.memory_kib * 1024,
                            crypto_pwhash_ALG_ARGON2ID13) != 0)
    throw std::runtime_error("out of memory while hashing a password");
  return out;
}

bool verify_password(const std::string& stored, std::string_view password) {
  init_sodium();
  if (stored.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(stored.c_str(), password.data(), password.size()) == 0;
}

bool needs_rehash(const std::string& stored, PasswordCost cost) {
  init_sodium();
  return crypto_pwhash_str_needs_rehash(stored.c_str(), cost.ops, cost.memory_kib * 1024) != 0;
}

PasswordCost cheapest_password_cost() {
  return {crypto_pwhash_OPSLIMIT_MIN, (crypto_pwhash_MEMLIMIT_MIN + 1023) / 1024};
}

}  // namespace plateau::server
