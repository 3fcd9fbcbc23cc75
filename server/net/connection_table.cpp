#include "server/net/connection_table.hpp"

#include <cstdint>
#include <cstring>
#include <functional>

namespace plateau::server {

namespace asio = boost::asio;

void ConnectionSlot::release() {
  if (entry_) entry_->table->release(std::exchange(entry_, nullptr));
}

// The key lives as long as its entry, which lives while this slot holds it; keys are never
// changed once made, so reading it needs no lock.
asio::ip::address ConnectionSlot::address() const {
  return entry_ ? *entry_->address : asio::ip::address();
}

std::size_t ConnectionTable::AddressHash::operator()(const asio::ip::address& a) const noexcept {
  if (a.is_v4()) return std::hash<std::uint32_t>{}(a.to_v4().to_uint());
  const auto bytes = a.to_v6().to_bytes();
  std::uint64_t hi = 0, lo = 0;
  std::memcpy(&hi, bytes.data(), 8);
  std::memcpy(&lo, bytes.data() + 8, 8);
  return std::hash<std::uint64_t>{}(hi ^ (lo * 0x9e3779b97f4a7c15ull));
}

ConnectionSlot ConnectionTable::admit(const asio::ip::address& peer, std::size_t max_total,
                                      std::size_t max_per_address, Refusal& why) {
  const std::lock_guard lock(mutex_);
  why = Refusal::none;
  if (open_ >= max_total) {
    why = Refusal::too_many;
    return {};
  }
  auto [it, added] = by_address_.try_emplace(peer);
  auto& e = it->second;
  if (e.open >= max_per_address) {
    why = Refusal::too_many_from_address;
    return {};
  }
  if (added) {
    e.table = this;
    e.address = &it->first;
  }
  ++e.open;
  ++open_;
  return ConnectionSlot(&e);
}

void ConnectionTable::release(ConnectionSlot::Entry* e) {
  bool last = false;
  {
    const std::lock_guard lock(mutex_);
    --open_;
    if (--e->open == 0) {
      const auto address = *e->address;  // a copy: the key goes with its entry
      by_address_.erase(address);
    }
    last = orphaned_ && open_ == 0;
  }
  if (last) delete this;
}

std::size_t ConnectionTable::open() const {
  const std::lock_guard lock(mutex_);
  return open_;
}

std::size_t ConnectionTable::addresses() const {
  const std::lock_guard lock(mutex_);
  return by_address_.size();
}

void ConnectionTable::orphan() {
  bool none_open = false;
  {
    const std::lock_guard lock(mutex_);
    none_open = open_ == 0;
    orphaned_ = !none_open;
  }
  if (none_open) delete this;
}

}  // namespace plateau::server
