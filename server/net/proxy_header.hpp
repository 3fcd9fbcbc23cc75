// The PROXY protocol (HAProxy's, versions 1 and 2). A load balancer in front of the server opens
// each connection it makes to the server with a header that names the client it serves; without
// it, every client seems to come from the balancer, and every per-address limit (--max-per-ip,
// --creates-per-minute, --new-players-per-minute, the login rates) counts all of them as one.
//
// The header is believed only from the balancers named by --proxy-protocol-from, and required
// from them: anyone else could name any address. The front door reads it before anything else,
// so that the connection is counted by the client's address from the start.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace plateau::server {

// Longest header read: version 1's line is at most 107 bytes; version 2's is 16 bytes and the
// addresses (36 for IPv6, 216 for Unix sockets), plus whatever extensions (TLVs) the balancer
// adds, which are skipped.
inline constexpr std::size_t kMaxProxyHeader = 1024;

struct ProxyHeader {
  enum class Status {
    incomplete,  // the bytes so far are the start of a header: read more
    invalid,     // not a header, or a malformed one, or longer than kMaxProxyHeader
    ok,
  };
  Status status = Status::incomplete;
  std::size_t length = 0;  // bytes the header takes (when ok): the request starts after them
  // The client's address, or nullopt for the balancer's own connections (version 2's LOCAL,
  // as for its health checks; version 1's UNKNOWN; an address family other than TCP over IP).
  std::optional<boost::asio::ip::address> client;
};

// Reads a header from the first bytes of a connection (those received so far).
ProxyHeader read_proxy_header(std::string_view bytes);

// Address blocks ("10.0.0.0/8,192.168.1.7,fd00::/8"): a bare address is a block of one. An IPv4
// block also holds the IPv4-mapped IPv6 form of its addresses.
class AddressBlocks {
 public:
  static std::expected<AddressBlocks, std::string> parse(std::string_view list);
  bool contains(const boost::asio::ip::address& a) const;
  bool empty() const { return blocks_.empty(); }

 private:
  struct Block {
    boost::asio::ip::address_v6::bytes_type net{};  // IPv4 as IPv4-mapped IPv6
    int bits = 0;                                   // of the 128
  };
  std::vector<Block> blocks_;
};

// The client that a chain of reverse proxies names in X-Forwarded-For (`values`: every value
// of the header, in order, joined by commas). Each proxy appends the address it was reached
// from, so the list is read from the right: past the addresses of proxies in `trusted`, the
// first is the client (anything further left the client could have written itself). Entries
// may carry a port ("203.0.113.7:4711", "[2001:db8::1]:443"). nullopt if there is none, or the
// one to believe is not an address.
std::optional<boost::asio::ip::address> forwarded_client(std::string_view values,
                                                         const AddressBlocks& trusted);

// The key a client's address is counted by: an IPv6 address by its /64 (the block one subscriber
// holds, so that changing address within it dodges no limit), an IPv4-mapped one as IPv4.
boost::asio::ip::address client_key(const boost::asio::ip::address& a);

}  // namespace plateau::server
