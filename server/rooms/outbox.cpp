#include "server/rooms/outbox.hpp"

#include <algorithm>

namespace plateau::server {

Outbox::Outbox(int audiences, KeepLimits limits)
    : limits_(limits),
      recent_(static_cast<std::size_t>(audiences)),
      kept_(static_cast<std::size_t>(audiences)) {}

std::uint64_t Outbox::hold(std::int64_t version, std::vector<std::pair<int, Frame>> frames,
                           std::int64_t move_started) {
  queue_.push_back(Outgoing{version, false, std::move(frames), {}, move_started});
  return base_ + queue_.size() - 1;
}

bool Outbox::release(std::uint64_t entry) {
  if (entry < base_) return false;
  queue_[entry - base_].durable = true;
  return true;
}

void Outbox::send(const std::shared_ptr<Connection>& p, Frame frame) {
  if (queue_.empty()) {
    p->send(frame);  // nothing is waiting: no need to queue
    return;
  }
  Outgoing out{0, true, {}, {}};
  out.direct.emplace_back(p, std::move(frame));
  queue_.push_back(std::move(out));
}

void Outbox::flush(const Table& table) {
  while (!queue_.empty() && queue_.front().durable) {
    Outgoing out = std::move(queue_.front());
    queue_.pop_front();
    ++base_;
    for (const auto& [a, frame] : out.audience_frames) {
      const auto& conns = table.connections(a);
      remember(recent_[at(a)], out.version, frame);
      if (a == table.spectator_audience() || conns.empty()) keep(kept_[at(a)], out.version, frame);
      for (const auto& p : conns) {
        const auto it = whole_.find(p.get());
        if (it == whole_.end() || it->second < out.version) p->send(frame);
      }
    }
    for (const auto& [p, frame] : out.direct) p->send(frame);
    if (out.move_started >= 0 && move_timer_) move_timer_->finish(out.move_started);
  }
}

std::int64_t Outbox::sent_version(std::int64_t latest) const {
  // Patches still queued go out (and to whatever keeps them) as they are written.
  const auto next = std::ranges::find_if(queue_, [](const Outgoing& o) { return o.version > 0; });
  return next == queue_.end() ? latest : next->version - 1;
}

void Outbox::keep_from(int audience, std::int64_t after) {
  Kept kept{after, {}, 0};
  // The recent patches that lead up to `after` without a gap, latest first.
  const auto& recent = recent_[at(audience)].frames;
  auto it = recent.rbegin();
  while (it != recent.rend() && it->first > after) ++it;
  std::vector<Frame> earlier;
  for (; it != recent.rend() && it->first == kept.after; ++it, --kept.after) {
    earlier.push_back(it->second);
    kept.bytes += it->second->size();
  }
  kept.frames.assign(earlier.rbegin(), earlier.rend());
  kept.lead = kept.frames.size();
  kept.lead_bytes = kept.bytes;
  kept_[at(audience)] = std::move(kept);
}

void Outbox::remember(Recent& recent, std::int64_t version, const Frame& frame) const {
  if (limits_.recent_frames == 0) return;
  recent.frames.emplace_back(version, frame);
  recent.bytes += frame->size();
  while (recent.frames.size() > limits_.recent_frames ||
         (recent.bytes > limits_.recent_bytes && recent.frames.size() > 1)) {
    recent.bytes -= recent.frames.front().second->size();
    recent.frames.pop_front();
  }
}

bool Outbox::covers(int audience, std::int64_t held) const {
  const auto& kept = kept_[at(audience)];
  return kept && held >= kept->after && held <= kept->last();
}

void Outbox::send_kept(Connection& p, int audience, std::int64_t held) const {
  const auto& kept = *kept_[at(audience)];
  for (auto i = static_cast<std::size_t>(held - kept.after); i < kept.frames.size(); ++i)
    p.send(kept.frames[i]);
}

void Outbox::keep(std::optional<Kept>& kept, std::int64_t version, const Frame& frame) const {
  if (!kept) return;
  if (version != kept->last() + 1 || kept->frames.size() - kept->lead >= limits_.frames ||
      kept->bytes - kept->lead_bytes + frame->size() > limits_.bytes) {
    kept.reset();  // whoever comes back gets the whole state
    return;
  }
  kept->frames.push_back(frame);
  kept->bytes += frame->size();
}

}  // namespace plateau::server
