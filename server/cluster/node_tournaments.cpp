// Tournaments in a cluster (issue 47; node.hpp, serve_tournaments): one director, copies on the
// other nodes, changes sent to the director and answered through Redis.
//
// Messages (a node's inbox):  D <origin> <number>\n<op>     a change, for the director
//                             d <number>\n<answer>          its answer
// Notices (every node):       T <event>   an event was written: copies read it again
//                             O           the organisers changed
//                             G <room>    a table's game ended on a node that does not direct
//                             P <player> <frame>   a frame for the player's connections
//                             X <room>    close this table, if you hold it
#include <spdlog/spdlog.h>

#include <boost/asio/steady_timer.hpp>

#include "server/cluster/node.hpp"
#include "server/cluster/wire.hpp"
#include "server/store/pg_store.hpp"

namespace plateau::server::cluster {

namespace {
// How long a change waits for the director's answer before it is refused as unavailable.
constexpr auto kAskWait = std::chrono::seconds(5);
}  // namespace

void Node::serve_tournaments(TournamentOp run) {
  Tournaments* events = lobby_.tournaments();
  if (!events) return;
  run_op_ = std::move(run);
  events->direct(false);  // a copy until this node takes the lease
  reload_tournaments();
  Shared shared = lobby_.shared();
  shared.to_director = [this](nlohmann::json op,
                              std::function<void(std::optional<nlohmann::json>)> done) {
    return ask_director(std::move(op), std::move(done));
  };
  shared.tell_others = [this](const std::string& player, const std::string& frame) {
    tell("P " + player + " " + frame);
  };
  // Read at most once a second per table: an event's page asks for every table's seats, and
  // its readers must not cost the store a round trip each.
  shared.seats_elsewhere = [this](const std::string& room, int seats) {
    const Millis t = now();
    if (const auto it = seats_read_.find(room);
        it != seats_read_.end() && t - it->second.at < 1'000)
      return it->second.taken;
    auto taken = store_.seats_taken(room, seats);
    if (!taken) {
      spdlog::warn("event=tournament_seats_failed room={} error=\"{}\"", room, taken.error());
      return std::vector<bool>{};
    }
    if (seats_read_.size() > 4096)
      std::erase_if(seats_read_, [&](const auto& r) { return t - r.second.at >= 1'000; });
    seats_read_[room] = {t, *taken};
    return std::move(*taken);
  };
  shared.close_elsewhere = [this](const std::string& room) {
    const auto took = store_.take_lease(room, options_.lease_ms, true);
    if (took && *took) {
      ++stats_.leases_taken;
      return false;  // ours now: the lobby loads it and closes it
    }
    if (!took) spdlog::warn("event=lease_failed room={} error=\"{}\"", room, took.error());
    tell("X " + room);  // its holder closes it
    return true;
  };
  shared.table_ended = [this](const std::string& room) {
    tell("G " + room);
    check_table(room, 0);  // here too, should this node still direct once its leases are renewed
  };
  shared.may_direct = [this] { return renewed_lately(); };
  lobby_.share(std::move(shared));
  try_directing();
}

bool Node::directs_tournaments() const {
  const Tournaments* events = lobby_.tournaments();
  return run_op_ && events && events->directing();
}

bool Node::wants_to_direct() const {
  const Tournaments* events = lobby_.tournaments();
  return run_op_ && events && !events->directing() && !stopping_;
}

void Node::try_directing() {
  if (wants_to_direct()) took_direction(store_.take_lease(kTournamentLease, options_.lease_ms));
}

void Node::took_direction(const std::expected<std::optional<std::int64_t>, std::string>& took) {
  if (!took) {
    spdlog::warn("event=lease_failed room={} error=\"{}\"", kTournamentLease, took.error());
    return;
  }
  if (!*took) return;  // another node directs them
  store_.note_lease(kTournamentLease, **took);
  Tournaments* events = lobby_.tournaments();
  if (!wants_to_direct()) return;  // (directing already: taken at the start meanwhile)
  // Everything as the store has it: the last director's writes are all in (its lease is over,
  // and a write in flight held the lease's row until it committed).
  auto loaded = store_.load_tournaments();
  if (!loaded) {
    spdlog::error("event=tournament_load_failed error=\"{}\"", loaded.error());
    if (const auto r = store_.release_leases({kTournamentLease}); !r)
      spdlog::warn("event=lease_release_failed room={} error=\"{}\"", kTournamentLease, r.error());
    return;
  }
  if (auto r = events->reload(*loaded); !r) {
    spdlog::error("event=tournament_load_failed error=\"{}\"", r.error());
    return;
  }
  events->direct(true);
  renewed_at_ = now();
  ++stats_.tournament_takeovers;
  spdlog::info("event=tournament_director node={} epoch={} events={}", id_, **took, events->size());
  events->resume(now());  // games that ended while nobody directed count now
}

void Node::stop_directing() {
  Tournaments* events = lobby_.tournaments();
  if (!events || !events->directing()) return;
  spdlog::warn("event=tournament_director_lost node={}", id_);
  events->direct(false);
  reload_tournaments();
}

void Node::reload_tournaments() {
  Tournaments* events = lobby_.tournaments();
  if (!run_op_ || !events || events->directing()) return;
  auto loaded = store_.load_tournaments();
  if (!loaded) {
    spdlog::warn("event=tournament_load_failed error=\"{}\"", loaded.error());
    return;
  }
  if (auto r = events->reload(*loaded); !r)
    spdlog::warn("event=tournament_load_failed error=\"{}\"", r.error());
}

bool Node::renewed_lately() const { return now() - renewed_at_ < options_.lease_ms / 2; }

void Node::once_renewed(std::function<void()> fn) {
  if (renewed_lately()) return fn();
  after_renewal_.push_back(std::move(fn));
}

bool Node::ask_director(nlohmann::json op,
                        std::function<void(std::optional<nlohmann::json>)> done) {
  if (directs_tournaments()) {
    if (renewed_lately()) return false;  // ours to run
    // Just woken from a stall: run once this node knows it still directs, else send it on.
    once_renewed([weak = weak_from_this(), op = std::move(op), done = std::move(done)]() mutable {
      const auto n = weak.lock();
      if (!n) return;
      if (!n->directs_tournaments()) {
        n->ask_director(std::move(op), std::move(done));
      } else if (!n->renewed_lately()) {
        done(std::nullopt);  // the renewal failed: the store is away
      } else {
        n->run_op_(std::move(op),
                   [done = std::move(done)](nlohmann::json a) { done(std::move(a)); });
      }
    });
    return true;
  }
  const auto holder = store_.lease_holder(kTournamentLease);
  if (!holder || !*holder || **holder == id_) {
    if (!holder) spdlog::warn("event=lease_read_failed error=\"{}\"", holder.error());
    boost::asio::post(io_, [done = std::move(done)] { done(std::nullopt); });
    return true;
  }
  const std::uint64_t number = next_ask_++;
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, kAskWait);
  asks_[number] = Ask{std::move(done), timer};
  timer->async_wait([weak = weak_from_this(), number](const boost::system::error_code& ec) {
    const auto n = weak.lock();
    if (!n || ec) return;
    const auto it = n->asks_.find(number);
    if (it == n->asks_.end()) return;
    auto finish = std::move(it->second.done);
    n->asks_.erase(it);
    finish(std::nullopt);
  });
  ++stats_.tournament_ops_out;
  publish(**holder, "D " + id_ + " " + std::to_string(number) + "\n" + op.dump());
  return true;
}

void Node::on_director_op(const std::string& payload) {
  const auto head = line_of(payload);
  if (!head) return;
  const auto w = words(head->first.substr(2));
  std::uint64_t number = 0;
  if (w.size() != 2 || !number_in(w[1], number)) return;
  const std::string origin(w[0]);
  heard_[origin] = now();
  const auto answer = [weak = weak_from_this(), origin, number](nlohmann::json a) {
    if (const auto n = weak.lock())
      n->publish(origin, "d " + std::to_string(number) + "\n" + a.dump());
  };
  auto op = nlohmann::json::parse(head->second, nullptr, /*allow_exceptions=*/false);
  if (!directs_tournaments() || !op.is_object()) return answer({{"unavailable", true}});
  // Just woken from a stall, the change waits until this node knows it still directs.
  once_renewed([weak = weak_from_this(), op = std::move(op), answer]() mutable {
    const auto n = weak.lock();
    if (!n) return;
    if (!n->directs_tournaments() || !n->renewed_lately()) return answer({{"unavailable", true}});
    ++n->stats_.tournament_ops_in;
    n->run_op_(std::move(op), answer);
  });
}

void Node::on_director_answer(const std::string& payload) {
  const auto head = line_of(payload);
  std::uint64_t number = 0;
  if (!head || !number_in(head->first.substr(2), number)) return;
  const auto it = asks_.find(number);
  if (it == asks_.end()) return;  // too late: it was refused as unavailable
  auto finish = std::move(it->second.done);
  it->second.timer->cancel();
  asks_.erase(it);
  auto answer = nlohmann::json::parse(head->second, nullptr, /*allow_exceptions=*/false);
  finish(answer.is_discarded() ? std::nullopt : std::optional(std::move(answer)));
}

void Node::on_tournament_notice(char kind, const std::string& payload,
                                const std::vector<std::string_view>& w) {
  Tournaments* events = lobby_.tournaments();
  if (!run_op_ || !events) return;
  switch (kind) {
    case 'T':  // an event was written
      if (!events->directing() && w.size() == 3) {
        const std::string id(w[2]);
        const auto doc = store_.tournament_doc(id);
        if (!doc) throw std::runtime_error(doc.error());
        if (auto r = events->refresh(id, *doc); !r) throw std::runtime_error(r.error());
      }
      return;
    case 'O':
      reload_tournaments();
      return;
    case 'G':  // a table's game ended elsewhere: its outcome, once stored
      if (events->directing() && w.size() == 3) check_table(std::string(w[2]), 0);
      return;
    case 'P': {  // P <player> <frame>: the frame is the rest of the line
      if (w.size() < 4) return;
      const std::size_t at = w[0].size() + w[1].size() + w[2].size() + 3;
      if (at < payload.size()) lobby_.tell_here(std::string(w[2]), payload.substr(at));
      return;
    }
    case 'X':  // close the table if we hold it
      if (w.size() == 3 && store_.lease(std::string(w[2])))
        lobby_.close_tournament_table(std::string(w[2]));
      return;
    default:
      return;
  }
}

// The node where the game ended told us at once; the store may have its last write a moment
// later. Tried again after 0.5 s and 2 s; the director's own poll (every 5 s) catches the rest.
void Node::check_table(const std::string& room, int tries) {
  Tournaments* events = lobby_.tournaments();
  if (!events || !events->directing() || !events->open_table(room)) return;
  if (!renewed_lately())
    return once_renewed([weak = weak_from_this(), room, tries] {
      if (const auto n = weak.lock()) n->check_table(room, tries);
    });
  events->check_ended(room, now());
  if (!events->open_table(room) || tries >= 2) return;
  auto timer = std::make_shared<boost::asio::steady_timer>(
      io_, std::chrono::milliseconds(tries == 0 ? 500 : 2'000));
  timer->async_wait(
      [weak = weak_from_this(), room, tries, timer](const boost::system::error_code& ec) {
        if (const auto n = weak.lock(); n && !ec) n->check_table(room, tries + 1);
      });
}

}  // namespace plateau::server::cluster
