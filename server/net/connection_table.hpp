// How many connections are open, in all and by address: the slots that --max-connections and
// --max-per-ip hand out at accept, and take back when a connection ends however it ends.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <utility>

#include <boost/asio/ip/address.hpp>

namespace plateau::server {

class ConnectionTable;

// A connection's place in the count of open connections, held for the connection's life (HTTP,
// then WebSocket if it upgrades): the count goes down when the last holder goes, however the
// connection ended. One pointer, so that it costs an idle connection 8 bytes.
class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  ConnectionSlot(ConnectionSlot&& o) noexcept : entry_(std::exchange(o.entry_, nullptr)) {}
  ConnectionSlot& operator=(ConnectionSlot&& o) noexcept {
    if (this != &o) {
      release();
      entry_ = std::exchange(o.entry_, nullptr);
    }
    return *this;
  }
  ~ConnectionSlot() { release(); }
  explicit operator bool() const { return entry_ != nullptr; }
  // The address the connection is counted by: its client's (named by a trusted balancer's
  // PROXY header, or the peer's), an IPv6 one cut to its /64. Empty for an empty slot.
  boost::asio::ip::address address() const;

 private:
  friend class ConnectionTable;
  struct Entry;
  explicit ConnectionSlot(Entry* e) : entry_(e) {}
  void release();
  Entry* entry_ = nullptr;
};

struct ConnectionSlot::Entry {
  ConnectionTable* table = nullptr;
  const boost::asio::ip::address* address = nullptr;  // the key of this entry
  std::size_t open = 0;
};

// Open connections, in all and by peer address, against --max-connections and --max-per-ip.
// Owned by the Server, but it outlives it while a slot is held: at exit the io_context destroys
// the last connections after the Server. The front door's thread admits connections while the
// loop's releases them: a mutex keeps the counts (each use holds it for a few hash lookups).
class ConnectionTable {
 public:
  enum class Refusal { none, too_many, too_many_from_address };
  ConnectionTable() = default;
  ConnectionTable(const ConnectionTable&) = delete;
  ConnectionTable& operator=(const ConnectionTable&) = delete;
  // A slot for a connection from `peer`, or an empty one (and `why`) when a limit is reached.
  ConnectionSlot admit(const boost::asio::ip::address& peer, std::size_t max_total,
                       std::size_t max_per_address, Refusal& why);
  std::size_t open() const;
  std::size_t addresses() const;
  // The owner is done with the table: it is deleted now, or by the release of its last slot.
  void orphan();

 private:
  friend class ConnectionSlot;
  ~ConnectionTable() = default;
  void release(ConnectionSlot::Entry* e);
  struct AddressHash {
    std::size_t operator()(const boost::asio::ip::address& a) const noexcept;
  };
  std::unordered_map<boost::asio::ip::address, ConnectionSlot::Entry, AddressHash> by_address_;
  std::size_t open_ = 0;
  bool orphaned_ = false;
  mutable std::mutex mutex_;
};

}  // namespace plateau::server
