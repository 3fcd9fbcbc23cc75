// A connection for benchmarks that drive the lobby in-process: it keeps the last frame it was
// sent (a reply to read) and counts the bytes, as a socket would carry them.
#pragma once

#include <string>

#include "server/rooms/connection.hpp"

namespace plateau::bench {

class Sink final : public server::Connection {
 public:
  std::string address() const override { return "bench"; }
  void send(const server::Frame& f) override {
    bytes += f->size();
    last = f;
  }
  std::size_t bytes = 0;
  server::Frame last;
};

}  // namespace plateau::bench
