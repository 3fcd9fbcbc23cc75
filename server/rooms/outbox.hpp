// The order in which a room's frames leave, and the patches it keeps for those who come back.
//
// Queued frames go out in version order; a change that must be durable holds the queue until
// the store says it is written, so nothing is broadcast or acknowledged before it is durable.
// A frame to one connection (a reply, a whole state) queues behind them too, unless nothing
// waits.
//
// Kept patches. While a seat has nobody connected, or since a spectator dropped, the patches
// its audience was sent are kept, within KeepLimits, from a few before the drop: a client back
// with the version it holds is then sent only what it missed, even what was lost on the way.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/histogram.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/table.hpp"

namespace plateau::server {

// How many patches, and bytes of them, a room keeps for connections that dropped, so that a
// client back with the version it holds is sent only what it missed. Past either bound the
// client gets the whole state instead.
struct KeepLimits {
  std::size_t frames = 64;
  std::size_t bytes = 32 * 1024;
  // The last patches each audience was sent, kept at all times. A connection that drops loses
  // what was on its way to it (a browser drops what arrives after it closes a socket), so the
  // room cannot know the version it holds: keeping starts this far back.
  std::size_t recent_frames = 4;
  std::size_t recent_bytes = 4 * 1024;
};

class Outbox {
 public:
  Outbox(int audiences, KeepLimits limits);

  bool empty() const { return queue_.empty(); }
  // Queues `version`'s patches, (audience, frame) each, held until release(). Returns the
  // entry's number for release(). `move_started` is a move's arrival on the move timer's clock
  // (-1: not a move), timed up to the patches' sending.
  std::uint64_t hold(std::int64_t version, std::vector<std::pair<int, Frame>> frames,
                     std::int64_t move_started = -1);
  // The store wrote the change of `entry`: it may go once all before it went. Sends nothing;
  // false when the entry is gone already (the queue was cleared).
  bool release(std::uint64_t entry);
  // A frame for `p` alone: now if nothing waits, else behind everything queued.
  void send(const std::shared_ptr<Connection>& p, Frame frame);
  // Sends everything at the head of the queue that may go, to the connections of `table`.
  void flush(const Table& table);
  // Nothing queued goes: those changes were not made. Their entries stay counted, so that a
  // late release() of one of them finds nothing rather than a later entry.
  void clear() {
    base_ += queue_.size();
    queue_.clear();
  }

  // `p` was given the whole state at `version`: patches up to it are not sent it again.
  void holds_whole(const Connection* p, std::int64_t version) { whole_[p] = version; }
  void forget(const Connection* p) { whole_.erase(p); }
  // Every connection still here has been sent every version up to this one (`latest` is the
  // last version made).
  std::int64_t sent_version(std::int64_t latest) const;

  // Keeps `audience`'s patches after version `after` from now on, and the recent ones up to
  // `after` that it still has: a client that lost them on the way holds an earlier version.
  void keep_from(int audience, std::int64_t after);
  bool keeping(int audience) const { return kept_[at(audience)].has_value(); }
  void stop_keeping(int audience) { kept_[at(audience)].reset(); }
  // Whether a client of `audience` holding version `held` can go on by kept patches alone.
  bool covers(int audience, std::int64_t held) const;
  // Sends `p` the kept patches after `held` at once, ahead of the queue: they went out already.
  void send_kept(Connection& p, int audience, std::int64_t held) const;

  void time_moves(const SpanTimer* timer) { move_timer_ = timer; }

 private:
  struct Outgoing {
    std::int64_t version;  // patches: the version they lead to; frames to one connection: 0
    bool durable = true;   // false while its store write is in flight
    std::vector<std::pair<int, Frame>> audience_frames;  // (audience, frame)
    std::vector<std::pair<std::shared_ptr<Connection>, Frame>> direct;
    std::int64_t move_started = -1;
  };
  // Patches an audience was sent since a connection of it dropped holding every version up to
  // `after`.
  struct Kept {
    std::int64_t after = 0;
    std::vector<Frame> frames;  // versions after+1, after+2, ...
    std::size_t bytes = 0;
    // The first `lead` frames (`lead_bytes`) were sent before the drop, from the recent ones:
    // KeepLimits bound what came after it.
    std::size_t lead = 0, lead_bytes = 0;
    std::int64_t last() const { return after + static_cast<std::int64_t>(frames.size()); }
  };
  std::size_t at(int audience) const { return static_cast<std::size_t>(audience); }
  // Adds the patch to `kept`, or lets it go when it would hold too much.
  void keep(std::optional<Kept>& kept, std::int64_t version, const Frame& frame) const;

  // The last patches sent to an audience, (version, frame), within the recent_* limits.
  struct Recent {
    std::deque<std::pair<std::int64_t, Frame>> frames;
    std::size_t bytes = 0;
  };
  void remember(Recent& recent, std::int64_t version, const Frame& frame) const;

  KeepLimits limits_;
  std::vector<Recent> recent_;  // per audience
  std::deque<Outgoing> queue_;
  std::uint64_t base_ = 0;                 // the entry number of queue_.front()
  std::vector<std::optional<Kept>> kept_;  // per audience
  std::unordered_map<const Connection*, std::int64_t> whole_;
  const SpanTimer* move_timer_ = nullptr;
};

}  // namespace plateau::server
