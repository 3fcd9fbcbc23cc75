// The PROXY protocol header (server/net/proxy_header.hpp): versions 1 and 2 as HAProxy writes
// them, read from however many bytes have come, and the address blocks that say whom to believe.
#include <gtest/gtest.h>

#include <string>

#include "server/net/proxy_header.hpp"

namespace plateau::server {
namespace {

using Status = ProxyHeader::Status;
namespace ip = boost::asio::ip;

const std::string kSig("\r\n\r\n\0\r\nQUIT\n", 12);

// A version 2 header: command (0 LOCAL, 1 PROXY), family and transport byte, the body.
std::string v2(unsigned command, unsigned char family, const std::string& body) {
  std::string h = kSig;
  h += static_cast<char>(0x20 | command);
  h += static_cast<char>(family);
  h += static_cast<char>(body.size() >> 8);
  h += static_cast<char>(body.size() & 0xFF);
  return h + body;
}

std::string bytes_of(std::initializer_list<int> b) {
  std::string s;
  for (const int x : b) s += static_cast<char>(x);
  return s;
}

TEST(ProxyHeader, Version1NamesTheClientAndEndsAtItsLine) {
  const std::string line = "PROXY TCP4 203.0.113.7 10.0.0.2 51234 8080\r\n";
  const auto h = read_proxy_header(line + "GET / HTTP/1.1\r\n");
  ASSERT_EQ(h.status, Status::ok);
  EXPECT_EQ(h.length, line.size());
  ASSERT_TRUE(h.client.has_value());
  EXPECT_EQ(h.client->to_string(), "203.0.113.7");

  const auto six = read_proxy_header("PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n");
  ASSERT_EQ(six.status, Status::ok);
  EXPECT_EQ(six.client->to_string(), "2001:db8::1");

  const auto unknown = read_proxy_header("PROXY UNKNOWN whatever\r\nGET");
  ASSERT_EQ(unknown.status, Status::ok);
  EXPECT_EQ(unknown.length, 24u);
  EXPECT_FALSE(unknown.client.has_value()) << "the balancer's own connection";
}

TEST(ProxyHeader, AnyStartOfAHeaderAsksForMore) {
  const std::string line = "PROXY TCP4 203.0.113.7 10.0.0.2 51234 8080\r\n";
  for (std::size_t n = 0; n < line.size(); ++n)
    EXPECT_EQ(read_proxy_header(line.substr(0, n)).status, Status::incomplete) << n;
  const auto full = v2(1, 0x11, bytes_of({198, 51, 100, 9, 10, 0, 0, 2, 0x1F, 0x90, 0x1F, 0x90}));
  for (std::size_t n = 0; n < full.size(); ++n)
    EXPECT_EQ(read_proxy_header(full.substr(0, n)).status, Status::incomplete) << n;
  EXPECT_EQ(read_proxy_header(full).status, Status::ok);
}

TEST(ProxyHeader, MalformedVersion1IsRefused) {
  for (const std::string bad : {
           "GET / HTTP/1.1\r\n",                              // no header at all
           "\x16\x03\x01",                                    // a TLS hello
           "PROXY TCP4 203.0.113.7 10.0.0.2 51234\r\n",       // a port missing
           "PROXY TCP4 2001:db8::1 10.0.0.2 1 2\r\n",         // IPv6 said to be IPv4
           "PROXY TCP6 203.0.113.7 2001:db8::2 1 2\r\n",      // IPv4 said to be IPv6
           "PROXY TCP4 203.0.113.7 10.0.0.2 65536 8080\r\n",  // a port too large
           "PROXY TCP4 203.0.113.7 10.0.0.2 -1 8080\r\n",     // a signed port
           "PROXY TCP4 203.0.113.7 10.0.0.2 080 8080\r\n",    // a leading zero
           "PROXY TCP4  203.0.113.7 10.0.0.2 1 2\r\n",        // two spaces
           "PROXY UDP4 203.0.113.7 10.0.0.2 1 2\r\n",         // not TCP
           "proxy TCP4 203.0.113.7 10.0.0.2 1 2\r\n",         // lower case
       })
    EXPECT_EQ(read_proxy_header(bad).status, Status::invalid) << bad;
  // A line that never ends within 107 bytes is no header.
  EXPECT_EQ(read_proxy_header("PROXY TCP4 " + std::string(200, '1')).status, Status::invalid);
}

TEST(ProxyHeader, Version2NamesTheClientOverIPv4AndIPv6AndSkipsExtensions) {
  // IPv4: source 198.51.100.9, then a TLV the reader skips, then the request.
  const std::string four = v2(1, 0x11,
                              bytes_of({198, 51, 100, 9, 10, 0, 0, 2, 0x1F, 0x90, 0x1F, 0x90}) +
                                  bytes_of({0x04, 0x00, 0x01, 0x00}));
  const auto h = read_proxy_header(four + "GET /");
  ASSERT_EQ(h.status, Status::ok);
  EXPECT_EQ(h.length, four.size());
  EXPECT_EQ(h.client->to_string(), "198.51.100.9");
  std::string body(36, '\0');
  body[0] = 0x20;
  body[1] = 0x01;
  body[2] = 0x0d;
  body[3] = static_cast<char>(0xb8);
  body[15] = 0x05;
  const auto six = read_proxy_header(v2(1, 0x21, body));
  ASSERT_EQ(six.status, Status::ok);
  EXPECT_EQ(six.client->to_string(), "2001:db8::5");
  // LOCAL (the balancer's health checks) and families without an IP client name no one.
  const auto local = read_proxy_header(v2(0, 0x00, ""));
  ASSERT_EQ(local.status, Status::ok);
  EXPECT_FALSE(local.client.has_value());
  const auto unix_socket = read_proxy_header(v2(1, 0x31, std::string(216, 'x')));
  ASSERT_EQ(unix_socket.status, Status::ok);
  EXPECT_FALSE(unix_socket.client.has_value());
}

TEST(ProxyHeader, MalformedVersion2IsRefused) {
  std::string wrong_version = v2(1, 0x11, std::string(12, '\0'));
  wrong_version[12] = 0x11;
  EXPECT_EQ(read_proxy_header(wrong_version).status, Status::invalid);
  EXPECT_EQ(read_proxy_header(v2(2, 0x11, std::string(12, '\0'))).status, Status::invalid)
      << "no such command";
  EXPECT_EQ(read_proxy_header(v2(1, 0x11, std::string(11, '\0'))).status, Status::invalid)
      << "too short for two IPv4 addresses and ports";
  EXPECT_EQ(read_proxy_header(v2(1, 0x21, std::string(35, '\0'))).status, Status::invalid);
  EXPECT_EQ(read_proxy_header(v2(1, 0x41, std::string(12, '\0'))).status, Status::invalid)
      << "no such family";
  // Longer than the reader holds: refused from its first 16 bytes, before the rest comes.
  const auto huge = v2(1, 0x11, std::string(kMaxProxyHeader, '\0'));
  EXPECT_EQ(read_proxy_header(huge.substr(0, 16)).status, Status::invalid);
}

TEST(AddressBlocks, HoldTheirAddressesAndNoOthers) {
  const auto b = AddressBlocks::parse("10.0.0.0/8, 192.168.1.7,fd00::/8,172.16.5.9/12");
  ASSERT_TRUE(b.has_value()) << b.error();
  for (const char* in : {"10.1.2.3", "192.168.1.7", "fd12::1", "::ffff:10.9.9.9", "172.31.0.1"})
    EXPECT_TRUE(b->contains(ip::make_address(in))) << in;
  for (const char* out : {"11.0.0.1", "192.168.1.8", "fe80::1", "172.32.0.1", "::a00:1"})
    EXPECT_FALSE(b->contains(ip::make_address(out))) << out;
  const auto all4 = AddressBlocks::parse("0.0.0.0/0");
  ASSERT_TRUE(all4.has_value());
  EXPECT_TRUE(all4->contains(ip::make_address("8.8.8.8")));
  EXPECT_FALSE(all4->contains(ip::make_address("2001:db8::1"))) << "IPv4 blocks hold IPv4 only";
  EXPECT_TRUE(AddressBlocks::parse("")->empty());
  for (const char* bad : {"10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/x", "host.example",
                          "10.0.0.0/8;rm -rf"})
    EXPECT_FALSE(AddressBlocks::parse(bad).has_value()) << bad;
}

TEST(ForwardedFor, TheClientIsReadFromTheRightPastTrustedProxies) {
  const auto proxies = *AddressBlocks::parse("127.0.0.1,10.0.0.0/8");
  const auto client = [&](std::string_view v) {
    const auto a = forwarded_client(v, proxies);
    return a ? a->to_string() : std::string("none");
  };
  EXPECT_EQ(client("203.0.113.7"), "203.0.113.7");
  // What the client wrote itself is further left than what the proxy appended.
  EXPECT_EQ(client("6.6.6.6, 203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(client("203.0.113.7, 10.1.1.1"), "203.0.113.7") << "past a trusted inner proxy";
  EXPECT_EQ(client("203.0.113.7,10.1.1.1,127.0.0.1"), "203.0.113.7");
  EXPECT_EQ(client("203.0.113.7:4711"), "203.0.113.7");
  EXPECT_EQ(client("[2001:db8::1]:443"), "2001:db8::1");
  EXPECT_EQ(client(" 2001:db8::2 "), "2001:db8::2");
  EXPECT_EQ(client(""), "none");
  EXPECT_EQ(client("10.1.1.1, 127.0.0.1"), "none") << "only proxies: no client named";
  EXPECT_EQ(client("203.0.113.7, unknown"), "none") << "the entry to believe is no address";
  EXPECT_EQ(client("[2001:db8::1"), "none");
}

TEST(AddressBlocks, AClientCountsByItsIPv6SlashSixtyFour) {
  EXPECT_EQ(client_key(ip::make_address("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).to_string(),
            "2001:db8:1:2::");
  EXPECT_EQ(client_key(ip::make_address("::ffff:203.0.113.7")).to_string(), "203.0.113.7");
  EXPECT_EQ(client_key(ip::make_address("203.0.113.7")).to_string(), "203.0.113.7");
}

}  // namespace
}  // namespace plateau::server
