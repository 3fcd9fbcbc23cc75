#include "server/secure_random.hpp"

#include <openssl/sha.h>
#include <sys/random.h>
#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace plateau::server {

void secure_random_bytes(std::span<unsigned char> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got = ::getrandom(out.data() + done, out.size() - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::perror("plateau: getrandom");
      std::abort();
    }
    done += static_cast<std::size_t>(got);
  }
}

std::uint64_t secure_random_u64() {
  unsigned char b[8];
  secure_random_bytes(b);
  std::uint64_t v = 0;
  for (unsigned char c : b) v = v << 8 | c;
  return v;
}

std::string to_hex(std::span<const unsigned char> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return to_hex(digest);
}

std::string secure_random_hex(std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  secure_random_bytes(b);
  return to_hex(b);
}

std::string random_hex(const std::function<std::uint64_t()>& random, std::size_t bytes) {
  std::string out;
  while (out.size() < bytes * 2) {
    std::uint64_t r = random();
    unsigned char b[8];
    for (unsigned char& c : b) c = static_cast<unsigned char>(r), r >>= 8;
    out += to_hex(b);
  }
  out.resize(bytes * 2);
  return out;
}

std::size_t utf8_chars(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count_if(
      text, [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

std::string cut_utf8(std::string text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
    if (chars++ == max_chars) {
      text.resize(i);
      break;
    }
  }
  return text;
}

}  // namespace plateau::server
