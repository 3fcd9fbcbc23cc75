#include "server/cluster/resp.hpp"

#include <charconv>

namespace plateau::server::redis {

std::string encode(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

constexpr std::size_t kMaxLine = 64u << 10;

std::optional<std::string_view> Parser::line(std::size_t& at) {
  const auto end = buf_.find("\r\n", at);
  if (end == std::string::npos) {
    // A line is a type byte and a number, or a status or error message: one this long
    // without its end is not RESP.
    if (buf_.size() - at > kMaxLine) error_ = "a reply line longer than 64 KiB";
    return std::nullopt;
  }
  std::string_view l(buf_.data() + at, end - at);
  at = end + 2;
  return l;
}

namespace {
bool number(std::string_view s, std::int64_t& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}
}  // namespace

std::optional<Reply> Parser::parse(std::size_t& at, int depth) {
  if (depth > 8) {
    error_ = "replies nested more than 8 deep";
    return std::nullopt;
  }
  std::size_t p = at;
  const auto header = line(p);
  if (!header) return std::nullopt;
  if (header->empty()) {
    error_ = "an empty reply line";
    return std::nullopt;
  }
  const char kind = (*header)[0];
  const std::string_view rest = header->substr(1);
  Reply r;
  std::int64_t n = 0;
  switch (kind) {
    case '+':
    case '-':
      r.type = kind == '+' ? Reply::Type::status : Reply::Type::error;
      r.str = std::string(rest);
      break;
    case ':':
      if (!number(rest, r.integer)) {
        error_ = "a bad integer reply";
        return std::nullopt;
      }
      r.type = Reply::Type::integer;
      break;
    case '$':
      if (!number(rest, n) || n < -1 || (n >= 0 && static_cast<std::uint64_t>(n) > max_bulk_)) {
        error_ = "a bad or too large bulk length";
        return std::nullopt;
      }
      if (n == -1) {
        r.type = Reply::Type::nil;
        break;
      }
      if (buf_.size() - p < static_cast<std::size_t>(n) + 2) return std::nullopt;
      if (buf_.compare(p + static_cast<std::size_t>(n), 2, "\r\n") != 0) {
        error_ = "a bulk string without its end";
        return std::nullopt;
      }
      r.type = Reply::Type::bulk;
      r.str = buf_.substr(p, static_cast<std::size_t>(n));
      p += static_cast<std::size_t>(n) + 2;
      break;
    case '*':
      if (!number(rest, n) || n < -1 || (n >= 0 && static_cast<std::uint64_t>(n) > max_elements_)) {
        error_ = "a bad or too large array length";
        return std::nullopt;
      }
      if (n == -1) {
        r.type = Reply::Type::nil;
        break;
      }
      r.type = Reply::Type::array;
      r.elements.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, 1024)));
      for (std::int64_t i = 0; i < n; ++i) {
        auto e = parse(p, depth + 1);
        if (!e) return std::nullopt;
        r.elements.push_back(std::move(*e));
      }
      break;
    default:
      error_ = std::string("an unknown reply type '") + kind + "'";
      return std::nullopt;
  }
  at = p;
  return r;
}

std::optional<Reply> Parser::next() {
  if (failed()) return std::nullopt;
  std::size_t at = pos_;
  auto r = parse(at, 0);
  if (!r) return std::nullopt;
  pos_ = at;
  // Drop what was read once it is most of the buffer: appends stay cheap, copies rare.
  if (pos_ > 4096 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return r;
}

}  // namespace plateau::server::redis
