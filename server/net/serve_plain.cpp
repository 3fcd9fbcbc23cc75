// The connections for plain TCP connections (http:// and ws://).
#include "server/net/connections.hpp"

#include <unistd.h>

namespace plateau::server {

namespace connections {

// Over plain TCP the WebSocket keeps just the socket: it runs its own timeouts, and a
// tcp_stream's timers would cost every idle connection another half kilobyte. The socket names
// its io_context's executor rather than the polymorphic any_io_executor: Beast's per-connection
// block (the socket, its timer and buffers) shrinks from 2,568 to 2,536 bytes and so fits
// jemalloc's 2,560-byte size class instead of the 3,072-byte one, half a kilobyte per idle
// connection.
using WsSocket = asio::basic_stream_socket<tcp, asio::io_context::executor_type>;

void start_websocket(PlainStream&& stream, Server& server, http::request<http::string_body> req,
                     ConnectionSlot slot) {
  tcp::socket accepted = stream.release_socket();
  auto& ioc = static_cast<asio::io_context&>(
      asio::query(accepted.get_executor(), asio::execution::context));
  WsSocket socket(ioc.get_executor());
  beast::error_code ec;
  const auto local = accepted.local_endpoint(ec);
  if (ec) return;  // the peer is already gone; `accepted` closes the socket
  const auto fd = accepted.release(ec);
  if (ec) return;
  socket.assign(local.protocol(), fd, ec);
  if (ec) {
    ::close(fd);
    return;
  }
  std::make_shared<BasicWsConnection<WsSocket>>(std::move(socket), server, std::move(slot))
      ->run(std::move(req));
}

}  // namespace connections

void serve_plain(boost::asio::ip::tcp::socket&& socket, Server& server, ConnectionSlot slot) {
  using namespace connections;
  std::make_shared<HttpConnection<PlainStream>>(PlainStream(std::move(socket)), server,
                                                std::move(slot))
      ->run();
}

}  // namespace plateau::server
