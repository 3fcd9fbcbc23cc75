// The connections for TLS connections (https:// and wss://).
#include "server/net/connections.hpp"

namespace plateau::server {

namespace connections {

void start_websocket(TlsStream&& stream, Server& server, http::request<http::string_body> req,
                     ConnectionSlot slot) {
  std::make_shared<BasicWsConnection<TlsStream>>(std::move(stream), server, std::move(slot))
      ->run(std::move(req));
}

}  // namespace connections

void serve_tls(boost::asio::ip::tcp::socket&& socket, Server& server,
               boost::asio::ssl::context& tls, ConnectionSlot slot) {
  using namespace connections;
  std::make_shared<HttpConnection<TlsStream>>(TlsStream(std::move(socket), tls), server,
                                              std::move(slot))
      ->run();
}

}  // namespace plateau::server
