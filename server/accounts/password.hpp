// Passwords, hashed with Argon2id (libsodium's crypto_pwhash_str): memory-hard, salted, its
// parameters stored with the hash so that a later, dearer cost still verifies older hashes.
// Each call takes tens of milliseconds and `memory_kib` of memory on purpose: callers run them
// on the worker pool, never on the event loop.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace plateau::server {

struct PasswordCost {
  unsigned long long ops = 2;      // passes over the memory (libsodium's INTERACTIVE: 2)
  std::size_t memory_kib = 65536;  // 64 MiB (libsodium's INTERACTIVE)
};

// The hash to store. Throws std::runtime_error when the memory cannot be had.
std::string hash_password(std::string_view password, PasswordCost cost);
// Whether `password` is the one `stored` was made from (false for a malformed hash).
bool verify_password(const std::string& stored, std::string_view password);
// Whether `stored` was made with other parameters than `cost` (then it is hashed again at the
// next good login).
bool needs_rehash(const std::string& stored, PasswordCost cost);
// The least cost libsodium accepts, for tests.
PasswordCost cheapest_password_cost();

}  // namespace plateau::server
