// The sessions for TLS connections (https:// and wss://).
#include "server/net/sessions.hpp"

namespace plateau::server {

namespace sessions {

void start_websocket(TlsStream&& stream, Server& server, http::request<http::string_body> req,
                     ConnectionSlot slot) {
  std::make_shared<BasicWsSession<TlsStream>>(std::move(stream), server, std::move(slot))->run(std::move(req));
}

}  // namespace sessions

void serve_tls(boost::asio::ip::tcp::socket&& socket, Server& server, boost::asio::ssl::context& tls,
               ConnectionSlot slot) {
  using namespace sessions;
  std::make_shared<HttpSession<TlsStream>>(TlsStream(std::move(socket), tls), server, std::move(slot))->run();
}

}  // namespace plateau::server
