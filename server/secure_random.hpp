// Randomness that nobody can predict: the operating system's CSPRNG (getrandom(2)). Every
// token, player id, room id, seed and salt the server makes comes from here; nothing that a
// client sees is ever the raw output of a seeded generator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace plateau::server {

// Fills `out` from the kernel's CSPRNG. Blocks only before the kernel's pool is first seeded
// (early boot); aborts the process if the kernel refuses, since no secret may be made without it.
void secure_random_bytes(std::span<unsigned char> out);
std::uint64_t secure_random_u64();
// `bytes` random bytes as 2 × bytes lower-case hex characters.
std::string secure_random_hex(std::size_t bytes);

// The SHA-256 of `text`, as 64 lower-case hex characters: how tokens and codes are kept.
std::string sha256_hex(std::string_view text);

// Lower-case hex of any bytes.
std::string to_hex(std::span<const unsigned char> bytes);

// `bytes` bytes from `random` (the OS CSPRNG in a server; a seeded one in tests) as 2 × bytes
// lower-case hex characters.
std::string random_hex(const std::function<std::uint64_t()>& random, std::size_t bytes);

// How many characters UTF-8 `text` holds, and `text` cut to its first `max_chars` of them.
std::size_t utf8_chars(std::string_view text);
std::string cut_utf8(std::string text, std::size_t max_chars);

}  // namespace plateau::server
