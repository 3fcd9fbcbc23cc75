#include "server/net/proxy_header.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>

namespace plateau::server {

namespace ip = boost::asio::ip;

namespace {

using Status = ProxyHeader::Status;

constexpr std::string_view kV1 = "PROXY ";
constexpr std::size_t kV1Max = 107;
constexpr std::array<unsigned char, 12> kV2 = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D,
                                               0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

ProxyHeader invalid() { return {Status::invalid, 0, std::nullopt}; }

bool is_port(std::string_view s) {
  unsigned port = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), port);
  // No sign, no leading zero (but "0"), at most 65535: as the specification writes them.
  return ec == std::errc() && p == s.data() + s.size() && port <= 65535 &&
         (s.size() == 1 || s[0] != '0');
}

// "PROXY TCP4 <src> <dst> <sport> <dport>\r\n", "PROXY TCP6 ...", or "PROXY UNKNOWN...\r\n".
ProxyHeader version_1(std::string_view bytes) {
  const auto end = bytes.substr(0, kV1Max).find("\r\n");
  if (end == std::string_view::npos) return bytes.size() >= kV1Max ? invalid() : ProxyHeader{};
  const std::string_view line = bytes.substr(kV1.size(), end - kV1.size());
  const std::size_t length = end + 2;
  if (line.starts_with("UNKNOWN")) return {Status::ok, length, std::nullopt};
  std::vector<std::string_view> w;
  for (std::size_t at = 0; at <= line.size();) {
    const auto sp = std::min(line.find(' ', at), line.size());
    w.push_back(line.substr(at, sp - at));
    at = sp + 1;
  }
  if (w.size() != 5 || (w[0] != "TCP4" && w[0] != "TCP6") || !is_port(w[3]) || !is_port(w[4]))
    return invalid();
  boost::system::error_code ec, ec2;
  const std::string src(w[1]), dst(w[2]);
  ip::address client, server;
  if (w[0] == "TCP4") {
    client = ip::make_address_v4(src, ec);
    server = ip::make_address_v4(dst, ec2);
  } else {
    client = ip::make_address_v6(src, ec);
    server = ip::make_address_v6(dst, ec2);
  }
  if (ec || ec2) return invalid();
  return {Status::ok, length, client};
}

ProxyHeader version_2(std::string_view bytes) {
  if (bytes.size() < 16) return {};
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  const unsigned version = byte(12) >> 4, command = byte(12) & 0x0F;
  if (version != 2 || command > 1) return invalid();
  const std::size_t body = (std::size_t{byte(14)} << 8) | byte(15);
  const std::size_t length = 16 + body;
  if (length > kMaxProxyHeader) return invalid();
  if (bytes.size() < length) return {};
  if (command == 0) return {Status::ok, length, std::nullopt};  // LOCAL: the balancer itself
  const unsigned family = byte(13) >> 4, transport = byte(13) & 0x0F;
  if (family > 3 || transport > 2) return invalid();
  // Only a stream over IPv4 or IPv6 names a client address we can count by.
  if (transport != 1 || (family != 1 && family != 2)) return {Status::ok, length, std::nullopt};
  if (family == 1) {
    if (body < 12) return invalid();
    ip::address_v4::bytes_type a{};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = byte(16 + i);
    return {Status::ok, length, ip::address_v4(a)};
  }
  if (body < 36) return invalid();
  ip::address_v6::bytes_type a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = byte(16 + i);
  return {Status::ok, length, ip::address_v6(a)};
}

ip::address_v6::bytes_type as_v6(const ip::address& a) {
  if (a.is_v6()) return a.to_v6().to_bytes();
  return ip::make_address_v6(ip::v4_mapped, a.to_v4()).to_bytes();
}

}  // namespace

ProxyHeader read_proxy_header(std::string_view bytes) {
  // Which version: decided by the first bytes, as soon as they rule one out.
  const auto starts = [&](std::string_view sig) {
    const auto n = std::min(bytes.size(), sig.size());
    return bytes.substr(0, n) == sig.substr(0, n);
  };
  const std::string_view v2(reinterpret_cast<const char*>(kV2.data()), kV2.size());
  if (starts(kV1)) return bytes.size() < kV1.size() ? ProxyHeader{} : version_1(bytes);
  if (starts(v2)) return bytes.size() < v2.size() ? ProxyHeader{} : version_2(bytes);
  return invalid();
}

std::expected<AddressBlocks, std::string> AddressBlocks::parse(std::string_view list) {
  AddressBlocks out;
  while (!list.empty()) {
    const auto comma = std::min(list.find(','), list.size());
    std::string_view item = list.substr(0, comma);
    list.remove_prefix(std::min(comma + 1, list.size()));
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    const auto slash = item.find('/');
    boost::system::error_code ec;
    const auto a = ip::make_address(std::string(item.substr(0, slash)), ec);
    if (ec) return std::unexpected("\"" + std::string(item) + "\" is not an address or a block");
    const int max = a.is_v4() ? 32 : 128;
    int bits = max;
    if (slash != std::string_view::npos) {
      const auto n = item.substr(slash + 1);
      const auto [p, err] = std::from_chars(n.data(), n.data() + n.size(), bits);
      if (err != std::errc() || p != n.data() + n.size() || bits < 0 || bits > max)
        return std::unexpected("\"" + std::string(item) + "\": the prefix length must be 0 to " +
                               std::to_string(max));
    }
    Block b{as_v6(a), a.is_v4() ? bits + 96 : bits};
    // Host bits cleared, so that 10.1.2.3/8 means 10.0.0.0/8.
    for (int i = b.bits; i < 128; ++i)
      b.net[i / 8] &= static_cast<unsigned char>(~(0x80u >> (i % 8)));
    out.blocks_.push_back(b);
  }
  return out;
}

bool AddressBlocks::contains(const ip::address& a) const {
  const auto bytes = as_v6(a);
  return std::ranges::any_of(blocks_, [&](const Block& b) {
    for (int i = 0; i < b.bits; ++i) {
      const unsigned char bit = 0x80u >> (i % 8);
      if ((bytes[i / 8] & bit) != (b.net[i / 8] & bit)) return false;
    }
    return true;
  });
}

std::optional<ip::address> forwarded_client(std::string_view values, const AddressBlocks& trusted) {
  while (!values.empty()) {
    const auto comma = values.rfind(',');
    std::string_view entry = comma == std::string_view::npos ? values : values.substr(comma + 1);
    values = comma == std::string_view::npos ? std::string_view() : values.substr(0, comma);
    while (!entry.empty() && (entry.front() == ' ' || entry.front() == '\t'))
      entry.remove_prefix(1);
    while (!entry.empty() && (entry.back() == ' ' || entry.back() == '\t')) entry.remove_suffix(1);
    if (entry.empty()) continue;
    if (entry.front() == '[') {  // [IPv6] or [IPv6]:port
      const auto close = entry.find(']');
      if (close == std::string_view::npos) return std::nullopt;
      entry = entry.substr(1, close - 1);
    } else if (std::ranges::count(entry, ':') == 1) {  // IPv4:port
      entry = entry.substr(0, entry.find(':'));
    }
    boost::system::error_code ec;
    const auto a = ip::make_address(std::string(entry), ec);
    if (ec) return std::nullopt;
    if (!trusted.contains(a)) return a;
  }
  return std::nullopt;
}

ip::address client_key(const ip::address& a) {
  if (a.is_v4()) return a;
  const auto v6 = a.to_v6();
  if (v6.is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, v6);
  auto bytes = v6.to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return ip::address_v6(bytes);
}

}  // namespace plateau::server
