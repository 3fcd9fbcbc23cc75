// The sessions for plain TCP connections (http:// and ws://).
#include "sessions.hpp"

namespace plateau::server {

namespace sessions {

// Over plain TCP the WebSocket keeps just the socket: it runs its own timeouts, and a
// tcp_stream's timers would cost every idle connection another half kilobyte.
void start_websocket(PlainStream&& stream, Server& server, http::request<http::string_body> req) {
  std::make_shared<BasicWsSession<tcp::socket>>(stream.release_socket(), server)->run(std::move(req));
}

}  // namespace sessions

void serve_plain(boost::asio::ip::tcp::socket&& socket, Server& server) {
  using namespace sessions;
  std::make_shared<HttpSession<PlainStream>>(PlainStream(std::move(socket)), server)->run();
}

}  // namespace plateau::server
