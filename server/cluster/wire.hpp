// The small pieces of the cluster's messages (node.cpp): lines, words and numbers.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace plateau::server::cluster {

template <class T>
bool number_in(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Splits `text` at its first '\n': (before, after); nullopt without one.
inline std::optional<std::pair<std::string_view, std::string_view>> line_of(std::string_view text) {
  const auto nl = text.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  return std::pair(text.substr(0, nl), text.substr(nl + 1));
}

inline std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  while (!line.empty()) {
    const auto sp = line.find(' ');
    out.push_back(line.substr(0, sp));
    if (sp == std::string_view::npos) break;
    line.remove_prefix(sp + 1);
  }
  return out;
}

}  // namespace plateau::server::cluster
