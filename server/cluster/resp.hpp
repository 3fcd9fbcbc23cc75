// RESP, the Redis protocol (version 2, which every Redis speaks): commands encoded as arrays of
// bulk strings, and an incremental parser of replies that takes bytes as they arrive, in pieces
// of any size, and gives whole replies. Pure: no sockets, so tests feed it byte by byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plateau::server::redis {

struct Reply {
  enum class Type { status, error, integer, bulk, nil, array };
  Type type = Type::nil;
  std::string str;                // status, error or bulk
  std::int64_t integer = 0;       // integer
  std::vector<Reply> elements{};  // array

  bool is_error() const { return type == Type::error; }
};

// `args` as one RESP command: *N\r\n then $len\r\narg\r\n for each (binary safe).
std::string encode(const std::vector<std::string>& args);

class Parser {
 public:
  // A reply (or a bulk string, or an array) larger than this is an error: the connection is
  // then unusable. Guards against a server, or something posing as one, sending garbage.
  explicit Parser(std::size_t max_bulk = 64u << 20, std::size_t max_elements = 1u << 20)
      : max_bulk_(max_bulk), max_elements_(max_elements) {}
  void feed(std::string_view bytes) { buf_.append(bytes); }
  // The next whole reply, nullopt if more bytes are needed. After an error (failed() says
  // why), always nullopt.
  std::optional<Reply> next();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  std::size_t buffered() const { return buf_.size() - pos_; }

 private:
  // Parses one reply at `at`; on success moves `at` past it. nullopt: incomplete (or failed).
  std::optional<Reply> parse(std::size_t& at, int depth);
  std::optional<std::string_view> line(std::size_t& at);
  std::string buf_;
  std::size_t pos_ = 0;
  std::size_t max_bulk_, max_elements_;
  std::string error_;
};

}  // namespace plateau::server::redis
