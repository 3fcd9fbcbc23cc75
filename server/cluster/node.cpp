#include "server/cluster/node.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include <charconv>
#include <chrono>
#include <unordered_set>
#include <utility>

#include "server/cluster/wire.hpp"
#include "server/secure_random.hpp"
#include "server/store/pg_store.hpp"

namespace plateau::server::cluster {

namespace {

constexpr std::string_view kPrefix = "plateau:";
std::string inbox(const std::string& node) { return std::string(kPrefix) + "node:" + node; }
std::string alive_key(const std::string& node) { return std::string(kPrefix) + "alive:" + node; }
std::string rooms_key(const std::string& node) { return std::string(kPrefix) + "rooms:" + node; }
const std::string kNodes = std::string(kPrefix) + "nodes";
// The last lines of nodes gone (room -> line): listed until a node takes each room.
const std::string kOrphans = std::string(kPrefix) + "orphans";
const std::string kAll = std::string(kPrefix) + "all";  // notices, to every node
// A holder read from a lease is trusted this long before it is read again.
constexpr Millis kOwnerFresh = 10'000;
constexpr int kMaxHops = 3;

std::int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The room a request names, if any.
const std::string* room_of(const protocol::Request& req) {
  return std::visit(
      [](const auto& m) -> const std::string* {
        if constexpr (requires { m.room; }) return &m.room;
        return nullptr;
      },
      req.body);
}

}  // namespace

// A client of another node, as the rooms here see it: its frames go back to that node.
class RemoteConnection final : public Connection {
 public:
  RemoteConnection(std::weak_ptr<Node> node, std::string origin, std::uint64_t number)
      : node_(std::move(node)), origin_(std::move(origin)), number_(number) {}
  void send(const Frame& frame) override {
    if (const auto n = node_.lock()) n->frame_to(origin_, number_, frame);
  }
  std::string address() const override { return address_; }
  long lag_ms() const override { return lag_ms_; }
  void end() override {
    if (const auto n = node_.lock()) n->end_remote(origin_, number_);
  }
  const std::string& origin() const { return origin_; }
  std::uint64_t number() const { return number_; }
  void seen(std::string address, long lag_ms) {
    address_ = std::move(address);
    lag_ms_ = lag_ms;
  }

 private:
  std::weak_ptr<Node> node_;
  std::string origin_;
  std::uint64_t number_;
  std::string address_;
  long lag_ms_ = 0;
};

std::shared_ptr<Node> Node::make(boost::asio::io_context& io, PgStore& store, Lobby& lobby,
                                 NodeOptions options) {
  return std::shared_ptr<Node>(new Node(io, store, lobby, std::move(options)));
}

Node::Node(boost::asio::io_context& io, PgStore& store, Lobby& lobby, NodeOptions options)
    : io_(io),
      store_(store),
      lobby_(lobby),
      options_(std::move(options)),
      id_(random_hex(secure_random_u64, 8)),
      cmd_(redis::Client::make(io, options_.redis)),
      sub_(redis::Client::make(io, options_.redis)),
      beat_(io),
      retry_(io) {
  if (options_.wait_ms <= 0) options_.wait_ms = 3 * options_.lease_ms;
}

Node::~Node() {
  join_threads();
  cmd_->stop();
  sub_->stop();
}

void Node::join_threads() {
  // A lookup or a beat in flight finishes (a lease it took is let go when it is back, seeing
  // stopping_); none starts.
  lookups_.stop();
  lookups_.join();
  beats_.stop();
  beats_.join();
}

Millis Node::now() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Node::start(Accounts* accounts, Ratings* ratings) {
  accounts_ = accounts;
  ratings_ = ratings;
  store_.fence_as(id_);
  const std::weak_ptr<Node> weak = weak_from_this();
  Shared shared;
  shared.holds = [this](const std::string& room) { return store_.lease(room).has_value(); };
  shared.claim_new = [this](const std::string& room) {
    store_.claim_new(room);  // no round trip: the room's first write makes its lease
    ++stats_.leases_taken;
  };
  shared.take_new = [this](const std::string& room) {
    const auto took = store_.take_lease(room, options_.lease_ms);
    if (!took) spdlog::error("event=lease_failed room={} error=\"{}\"", room, took.error());
    if (!took || !*took) return false;
    ++stats_.leases_taken;
    return true;
  };
  shared.released = [this](const std::string& room) {
    if (stopping_ || !store_.lease(room)) return;
    unorphan(room);  // an orphan line written late (a node gone just then) is stale too
    // Its row freed on the lookup thread, before any later lookup of the room (and at stop(),
    // if that thread never got to it).
    const auto held = store_.let_go({room});
    unfreed_.insert(held.begin(), held.end());
    boost::asio::post(lookups_, [weak = weak_from_this(), &store = store_, &io = io_, held] {
      if (const auto r = store.release_let_go(held); !r)
        spdlog::warn("event=lease_release_failed room={} error=\"{}\"", held.at(0).first,
                     r.error());
      boost::asio::post(io, [weak, held] {
        if (const auto n = weak.lock())
          for (const auto& lease : held) n->unfreed_.erase(lease);
      });
    });
  };
  shared.find_player = [this](const std::string& hash) -> std::optional<StoredPlayer> {
    // Read on the lookup thread just before (find_player()); on this thread only if the lobby
    // asks for a token it did not say it would.
    if (const auto it = players_found_.find(hash); it != players_found_.end()) return it->second;
    auto found = store_.find_player(hash);
    if (!found) {
      spdlog::warn("event=player_lookup_failed error=\"{}\"", found.error());
      return std::nullopt;
    }
    return *found;
  };
  shared.remote_lines = [this]() -> const std::vector<ListedLine>& { return remote_lines_; };
  shared.before_rating = [this](const std::vector<std::string>& players) {
    if (!ratings_) return;
    for (const auto& p : players)
      if (const auto rows = store_.ratings_of(p); rows) ratings_->reload(p, *rows);
  };
  lobby_.share(std::move(shared));

  sub_->on_message([weak](const std::string& channel, const std::string& payload) {
    const auto n = weak.lock();
    if (!n) return;
    if (channel == kAll)
      n->on_notice(payload);
    else
      n->on_message(payload);
  });
  sub_->on_disconnect([weak] {
    if (const auto n = weak.lock()) {
      ++n->stats_.redis_drops;
      spdlog::warn("event=cluster_redis_lost node={}", n->id_);
      n->drop_relays();
    }
  });
  sub_->on_connect([weak](int times) {
    const auto n = weak.lock();
    if (!n) return;
    spdlog::info("event=cluster_subscribed node={} connection={}", n->id_, times);
    if (times > 1) n->resync();  // what was told while Redis was away is read from the store
  });
  cmd_->on_connect([weak](int times) {
    const auto n = weak.lock();
    if (!n) return;
    n->commands_up_at_ = n->now();
    // Redis may have come back empty: say we are alive at once, not at the next beat.
    if (times > 1 && !n->stopping_)
      n->cmd_->command({"SET", alive_key(n->id_), std::to_string(n->now()), "PX",
                        std::to_string(n->options_.lease_ms)});
  });
  sub_->subscribe(inbox(id_));
  sub_->subscribe(kAll);
  sub_->start();
  cmd_->start();
  spdlog::info("event=cluster_node node={} redis={}:{} lease_ms={}", id_, options_.redis.host,
               options_.redis.port, options_.lease_ms);
  // The first beat before this node serves (its lookups take leases that live by it); the
  // next ones on the heartbeat thread.
  if (const auto first = store_.renew_leases(options_.lease_ms); !first)
    spdlog::error("event=lease_renew_failed node={} error=\"{}\"", id_, first.error());
  heartbeat();
}

std::size_t Node::rooms_held() const {
  return store_.leased_rooms().size() - (store_.lease(kTournamentLease) ? 1 : 0);
}

std::size_t Node::peers() const {
  std::set<std::string> nodes;
  for (const auto& [node, conns] : via_) nodes.insert(node);
  for (const auto& [node, conns] : remote_) nodes.insert(node);
  return nodes.size();
}

std::uint64_t Node::number_of(const std::shared_ptr<Connection>& c) {
  const auto [it, fresh] = number_.try_emplace(c.get(), next_number_);
  if (fresh) {
    local_[next_number_] = c;
    ++next_number_;
  }
  return it->second;
}

void Node::handle(const std::shared_ptr<Connection>& c, const std::string& frame,
                  protocol::Request req) {
  // Behind a hello whose player is being read: in order.
  if (const auto w = behind_hello_.find(c.get()); w != behind_hello_.end()) {
    if (w->second.size() >= options_.max_held_requests)
      return lobby_.refuse(c,
                           {protocol::Code::rate_limited,
                            "too many messages before the server said welcome; slow down", req.id});
    w->second.push_back({frame, std::move(req)});
    return;
  }
  if (const auto* hello = std::get_if<protocol::Hello>(&req.body))
    if (auto hash = lobby_.player_to_find(*c, *hello))
      return find_player(c, std::move(*hash), frame, std::move(req));
  handle_now(c, frame, std::move(req));
}

void Node::find_player(const std::shared_ptr<Connection>& c, std::string hash,
                       const std::string& frame, protocol::Request hello) {
  behind_hello_[c.get()];  // what the client sends meanwhile waits behind the hello
  boost::asio::post(lookups_, [weak = weak_from_this(), &store = store_, &io = io_,
                               client = std::weak_ptr<Connection>(c), hash = std::move(hash),
                               frame = std::string(frame), hello = std::move(hello)]() mutable {
    auto found = store.look_up_player(hash);
    boost::asio::post(io, [weak, client, hash = std::move(hash), frame = std::move(frame),
                           hello = std::move(hello), found = std::move(found)]() mutable {
      const auto n = weak.lock();
      const auto c = client.lock();
      if (!n || !c) return;
      n->found_player(c, hash, frame, std::move(hello), std::move(found));
    });
  });
}

void Node::found_player(const std::shared_ptr<Connection>& c, const std::string& hash,
                        const std::string& frame, protocol::Request hello,
                        std::expected<std::optional<StoredPlayer>, std::string> found) {
  const auto w = behind_hello_.find(c.get());
  if (w == behind_hello_.end()) return;  // the client left meanwhile
  auto behind = std::move(w->second);
  behind_hello_.erase(w);
  if (!found) spdlog::warn("event=player_lookup_failed error=\"{}\"", found.error());
  players_found_[hash] = found ? *found : std::nullopt;
  handle_now(c, frame, std::move(hello));
  players_found_.erase(hash);
  // Then what came after it, in order (a second hello may wait again: the rest goes behind it).
  for (auto& [f, req] : behind) handle(c, f, std::move(req));
}

void Node::handle_now(const std::shared_ptr<Connection>& c, const std::string& frame,
                      protocol::Request req) {
  const std::string* room = room_of(req);
  if (const auto* hello = std::get_if<protocol::Hello>(&req.body)) {
    if (hello->resume.empty())
      resume_.erase(c.get());
    else
      resume_[c.get()] = hello->resume;
  }
  // What names no room (hello, create, the list, tournaments) is this node's own; so is any
  // request before hello (the lobby refuses it) and a room id no room can have.
  if (!room || !c->player() || room->empty() || room->size() > 64) {
    lobby_.handle(c, std::move(req));
    return;
  }
  const std::string id = *room;
  dispatch(
      id, Pending{c, frame, std::move(req), 0, now() + options_.wait_ms, take_resume(c.get(), id)});
}

std::optional<std::int64_t> Node::take_resume(Connection* c, const std::string& room) {
  const auto it = resume_.find(c);
  if (it == resume_.end()) return std::nullopt;
  std::optional<std::int64_t> held;
  std::erase_if(it->second, [&](const auto& r) {
    if (r.first != room) return false;
    held = r.second;
    return true;
  });
  if (it->second.empty()) resume_.erase(it);
  return held;
}

Node::Route Node::route(const std::string& room) {
  if (store_.lease(room)) return {Where::here, {}};
  if (const auto it = owners_.find(room); it != owners_.end()) {
    if (now() - it->second.at < kOwnerFresh && !gone_.contains(it->second.node))
      return {Where::there, it->second.node};
    owners_.erase(it);
  }
  look_up(room);  // its requests wait until the lookup is back
  return {Where::wait, {}};
}

void Node::look_up(const std::string& room) {
  if (stopping_ || !looking_up_.insert(room).second) return;  // one lookup at a time per room
  // Two round trips at most, on the lookup thread: the loop goes on with every other room. A
  // client naming random rooms costs no more (a room the store does not hold gets no lease row).
  // A room taken is read there too (its lease first: nobody else writes it from then on), and
  // the lobby restores it from those rows.
  boost::asio::post(lookups_, [weak = weak_from_this(), &store = store_, &io = io_, room,
                               ttl = options_.lease_ms, since = lobby_.restorable_since()] {
    auto found = store.look_up_lease(room, ttl, since);
    boost::asio::post(io, [weak, room, found = std::move(found)]() mutable {
      if (const auto n = weak.lock()) n->looked_up(room, std::move(found));
    });
  });
}

void Node::looked_up(const std::string& room, PgStore::LeaseLookup found) {
  looking_up_.erase(room);
  if (found.took && *found.took) {
    store_.note_lease(room, *found.took, std::move(found.rows));
    if (stopping_) {  // taken while this node let its rooms go: let this one go too
      if (const auto r = store_.release_leases({room}); !r)
        spdlog::warn("event=lease_release_failed room={} error=\"{}\"", room, r.error());
      return;
    }
    ++stats_.leases_taken;
    if (**found.took > 1) {
      ++stats_.takeovers;
      unorphan(room);  // listed by this node from now on
    }
    settle(room, {Where::here, {}});  // the lobby loads the room from the rows read
    store_.forget_rows(room);         // unused if no request asked for it after all
    return;
  }
  if (stopping_) return;
  if (!found.took || !found.holder) {
    spdlog::error("event=lease_failed room={} error=\"{}\"", room,
                  !found.took ? found.took.error() : found.holder.error());
    return settle(room, {Where::here, {}});  // the lobby cannot load it either: room/unavailable
  }
  store_.note_lease(room, std::nullopt);
  const auto& holder = *found.holder;
  // Nobody holds it and it was not taken: the store has no such room, and the lobby says so
  // (or its holder's heartbeat ended between the two reads: the client's next try takes it).
  if (!holder || *holder == id_) return settle(room, {Where::here, {}});
  if (gone_.contains(*holder)) return settle(room, {Where::wait, {}});
  owners_[room] = Owner{*holder, now()};
  settle(room, {Where::there, *holder});
}

void Node::settle(const std::string& room, const Route& r) {
  const auto w = waiting_.find(room);
  if (w == waiting_.end()) return;
  if (r.where == Where::wait) return arm_retry();  // its holder is gone: asked again soon
  auto ready = std::move(w->second);
  waiting_.erase(w);
  for (auto& p : ready) {
    if (r.where == Where::here)
      run_here(room, std::move(p));
    else
      relay(r.node, room, std::move(p));
  }
}

void Node::dispatch(const std::string& room, Pending p) {
  // Behind the requests for this room that wait already: in order.
  if (const auto w = waiting_.find(room); w != waiting_.end()) {
    w->second.push_back(std::move(p));
    return;
  }
  const auto r = route(room);
  if (r.where == Where::here) return run_here(room, std::move(p));
  if (r.where == Where::there) return relay(r.node, room, std::move(p));
  waiting_[room].push_back(std::move(p));
  arm_retry();
}

void Node::arm_retry() {
  if (retry_armed_ || stopping_) return;
  retry_armed_ = true;
  retry_.expires_after(std::chrono::milliseconds(200));
  retry_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (const auto n = weak.lock(); n && !ec) {
      n->retry_armed_ = false;
      n->retry_waiting();
    }
  });
}

void Node::run_here(const std::string& room, Pending p) {
  const auto c = p.connection.lock();
  if (!c) return;
  // A player back through another node, or whose room just came here: at their seat again
  // (with the patches since the version they hold, when the room kept them).
  lobby_.rebind(c, room, p.held);
  lobby_.handle(c, std::move(p.request));
}

void Node::relay(const std::string& node, const std::string& room, Pending p) {
  const auto c = p.connection.lock();
  if (!c || !c->player()) return;
  if (p.hops >= kMaxHops) {
    lobby_.refuse(c, {protocol::Code::room_unavailable,
                      "the room is moving between servers; try again", p.request.id});
    return;
  }
  std::string origin = id_;
  std::uint64_t number = 0;
  if (const auto* rc = dynamic_cast<RemoteConnection*>(c.get())) {
    // Relayed on from here: its frames still go straight to the node it is a client of.
    origin = rc->origin();
    number = rc->number();
  } else {
    number = number_of(c);
    relayed_to_[number].insert(node);
    via_[node].insert(number);
  }
  nlohmann::json meta{{"p", c->player()->id},
                      {"n", c->player()->name},
                      {"h", lobby_.token_hash_of(c->player()->id)},
                      {"a", c->address()},
                      {"l", c->lag_ms()}};
  if (p.held) meta["v"] = *p.held;
  std::string message = "R " + origin + " " + std::to_string(number) + " " +
                        std::to_string(p.hops + 1) + "\n" + meta.dump() + "\n" + p.frame;
  ++stats_.relayed_out;
  publish(node, std::move(message),
          [weak = weak_from_this(), room, p = std::move(p)](bool heard) mutable {
            const auto n = weak.lock();
            if (!n || heard) return;
            // Nobody heard it: that node is gone (its lease will end), or it is subscribing
            // again after Redis came back. Either way the request is sent again, in order,
            // once the room's holder is read again.
            n->owners_.erase(room);
            n->waiting_[room].push_back(std::move(p));
            n->arm_retry();
          });
}

void Node::retry_waiting() {
  if (waiting_.empty() || stopping_) return;
  const Millis t = now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const std::string room = it->first;
    auto& queue = it->second;
    // Those that waited too long are refused.
    while (!queue.empty() && queue.front().until <= t) {
      if (const auto c = queue.front().connection.lock()) {
        ++stats_.waited_out;
        lobby_.refuse(c, {protocol::Code::room_unavailable,
                          "the server that held this room is gone and it is not free yet; "
                          "try again",
                          queue.front().request.id});
      }
      queue.pop_front();
    }
    if (queue.empty()) {
      it = waiting_.erase(it);
      continue;
    }
    ++it;
    if (looking_up_.contains(room)) continue;  // settled when the lookup is back
    // (May erase this room's entry: `it` is on the next one already.)
    if (const auto r = route(room); r.where != Where::wait) settle(room, r);
  }
  if (!waiting_.empty()) arm_retry();
}

void Node::closed(Connection* c) {
  resume_.erase(c);
  behind_hello_.erase(c);
  const auto it = number_.find(c);
  if (it == number_.end()) return;
  const auto number = it->second;
  number_.erase(it);
  local_.erase(number);
  if (const auto r = relayed_to_.find(number); r != relayed_to_.end()) {
    for (const auto& node : r->second) {
      publish(node, "C " + id_ + " " + std::to_string(number));
      if (const auto v = via_.find(node); v != via_.end()) {
        v->second.erase(number);
        if (v->second.empty()) via_.erase(v);
      }
    }
    relayed_to_.erase(r);
  }
}

void Node::publish(const std::string& node, std::string message, std::function<void(bool)> done) {
  cmd_->command({"PUBLISH", inbox(node), std::move(message)},
                [done = std::move(done)](const redis::Reply& r) {
                  if (done) done(r.type == redis::Reply::Type::integer && r.integer > 0);
                });
}

void Node::on_message(const std::string& payload) {
  if (payload.empty()) return;
  try {
    switch (payload[0]) {
      case 'R':
        return on_request(payload);
      case 'F':
        return on_frames(payload);
      case 'E': {  // E <number>: the holder ends our client (its room moved)
        std::uint64_t number = 0;
        if (!number_in(std::string_view(payload).substr(2), number)) return;
        if (const auto it = local_.find(number); it != local_.end())
          if (const auto c = it->second.lock()) c->end();
        return;
      }
      case 'D':  // D <origin> <number>\n<op>: a change of the tournaments, for their director
        return on_director_op(payload);
      case 'd':  // d <number>\n<answer>: the director's answer
        return on_director_answer(payload);
      case 'C': {  // C <origin> <number>: a client of another node is gone
        const auto w = words(std::string_view(payload).substr(2));
        std::uint64_t number = 0;
        if (w.size() != 2 || !number_in(w[1], number)) return;
        heard_[std::string(w[0])] = now();
        const auto o = remote_.find(std::string(w[0]));
        if (o == remote_.end()) return;
        if (const auto it = o->second.find(number); it != o->second.end()) {
          lobby_.closed(it->second.get());
          o->second.erase(it);
        }
        if (o->second.empty()) remote_.erase(o);
        return;
      }
      default:
        return;
    }
  } catch (const std::exception& e) {
    spdlog::error("event=internal_error where=cluster error=\"{}\"", e.what());
  }
}

void Node::on_request(const std::string& payload) {
  // R <origin> <number> <hops>\n<meta>\n<frame>
  const auto head = line_of(payload);
  if (!head) return;
  const auto w = words(head->first.substr(2));
  const auto rest = line_of(head->second);
  std::uint64_t number = 0;
  int hops = 0;
  if (w.size() != 3 || !rest || !number_in(w[1], number) || !number_in(w[2], hops)) return;
  const auto meta = nlohmann::json::parse(rest->first, nullptr, false);
  if (!meta.is_object()) return;
  auto req = protocol::decode(rest->second, protocol::Limits{options_.max_frame, 32});
  if (!req) return;  // its node decoded it already: not from a node of ours
  const std::string origin(w[0]);
  heard_[origin] = now();
  auto& conn = remote_[origin][number];
  if (!conn) conn = std::make_shared<RemoteConnection>(weak_from_this(), origin, number);
  conn->seen(meta.value("a", std::string()), meta.value("l", 0L));
  const Player player{meta.value("p", std::string()), meta.value("n", std::string())};
  if (player.id.empty()) return;
  if (conn->player() && conn->player()->id != player.id)
    lobby_.closed(conn.get());  // hello'd again
  lobby_.adopt(player, meta.value("h", std::string()));
  conn->set_player(player);
  ++stats_.relayed_in;
  const std::string* room = room_of(*req);
  if (!room) return;
  const std::string id = *room;
  std::optional<std::int64_t> held;
  if (const auto v = meta.find("v"); v != meta.end() && v->is_number_integer())
    held = v->get<std::int64_t>();
  dispatch(id, Pending{conn, std::string(rest->second), std::move(*req), hops,
                       now() + options_.wait_ms, held});
}

void Node::tell(std::string notice) {
  cmd_->command({"PUBLISH", kAll, id_ + " " + std::move(notice)});
}

void Node::on_notice(const std::string& payload) {
  const auto w = words(payload);
  if (w.size() < 2 || w[0] == id_ || w[1].size() != 1) return;  // our own, or not a notice
  ++stats_.notices_in;
  try {
    switch (w[1][0]) {
      case 'A':  // an account (or its sessions) changed
        if (accounts_ && w.size() == 3) {
          const std::string player(w[2]);
          const auto read = store_.accounts_of(player);
          if (!read) throw std::runtime_error(read.error());
          std::optional<AccountRow> row;
          if (!read->accounts.empty()) row = read->accounts.front();
          accounts_->reload(player, row, read->sessions);
        }
        return;
      case 'S':  // sessions ended
        if (accounts_) accounts_->forget_sessions(std::vector<std::string>(w.begin() + 2, w.end()));
        return;
      case 'I':  // the invitations changed
        if (accounts_) {
          const auto read = store_.accounts_of("");
          if (!read) throw std::runtime_error(read.error());
          accounts_->reload_invites(read->invites);
        }
        return;
      case 'T':  // a tournament changed
      case 'O':  // the organisers changed
      case 'G':  // a tournament table's game ended
      case 'P':  // a frame for a player
      case 'X':  // close a tournament table
        return on_tournament_notice(w[1][0], payload, w);
      case 'R':  // ratings changed
        if (ratings_)
          for (std::size_t i = 2; i < w.size(); ++i) {
            const std::string player(w[i]);
            const auto rows = store_.ratings_of(player);
            if (!rows) throw std::runtime_error(rows.error());
            ratings_->reload(player, *rows);
          }
        return;
      default:
        return;
    }
  } catch (const std::exception& e) {
    spdlog::error("event=cluster_notice_failed node={} notice=\"{}\" error=\"{}\"", id_,
                  payload.substr(0, 200), e.what());
  }
}

void Node::resync() {
  if (accounts_)
    if (const auto read = store_.accounts_of(""); read) {
      std::map<std::string, std::vector<SessionRow>> sessions;
      for (const auto& s : read->sessions) sessions[s.player].push_back(s);
      for (const auto& a : read->accounts) accounts_->reload(a.player, a, sessions[a.player]);
      accounts_->reload_invites(read->invites);
    }
  if (ratings_)
    if (const auto rows = store_.ratings_of(""); rows) ratings_->restore(*rows);
  reload_tournaments();
}

void Node::frame_to(const std::string& origin, std::uint64_t conn, const Frame& frame) {
  auto& batches = out_[origin];
  // A frame sent to several clients in a row (one audience) goes once, with their numbers.
  if (!batches.empty() && batches.back().frame == frame)
    batches.back().conns.push_back(conn);
  else
    batches.push_back({frame, {conn}});
  if (!flush_posted_) {
    flush_posted_ = true;
    boost::asio::post(io_, [weak = weak_from_this()] {
      if (const auto n = weak.lock()) n->flush_frames();
    });
  }
}

void Node::flush_frames() {
  flush_posted_ = false;
  auto out = std::move(out_);
  out_.clear();
  for (auto& [node, batches] : out) {
    // F <sent µs> <sender>\n then, per frame: <bytes> <n1>,<n2>,...\n<frame>
    std::string message = "F " + std::to_string(wall_us()) + " " + id_ + "\n";
    for (const auto& b : batches) {
      message += std::to_string(b.frame->size());
      message += ' ';
      for (std::size_t i = 0; i < b.conns.size(); ++i) {
        if (i) message += ',';
        message += std::to_string(b.conns[i]);
      }
      message += '\n';
      message += *b.frame;
    }
    stats_.frames_out += batches.size();
    publish(node, std::move(message));
  }
}

void Node::on_frames(const std::string& payload) {
  auto head = line_of(payload);
  if (!head) return;
  const auto w = words(head->first.substr(2));
  std::int64_t sent = 0;
  if (!w.empty() && number_in(w[0], sent)) stats_.pubsub_lag.record_us(wall_us() - sent);
  if (w.size() == 2) heard_[std::string(w[1])] = now();
  std::string_view rest = head->second;
  while (!rest.empty()) {
    const auto line = line_of(rest);
    if (!line) return;
    const auto sp = line->first.find(' ');
    std::size_t size = 0;
    if (sp == std::string_view::npos || !number_in(line->first.substr(0, sp), size) ||
        size > line->second.size())
      return;
    const auto frame = make_frame(std::string(line->second.substr(0, size)));
    ++stats_.frames_in;
    std::string_view conns = line->first.substr(sp + 1);
    while (!conns.empty()) {
      const auto comma = conns.find(',');
      std::uint64_t number = 0;
      if (number_in(conns.substr(0, comma), number))
        if (const auto it = local_.find(number); it != local_.end())
          if (const auto c = it->second.lock()) c->send(frame);
      if (comma == std::string_view::npos) break;
      conns.remove_prefix(comma + 1);
    }
    rest = line->second.substr(size);
  }
}

void Node::end_remote(const std::string& origin, std::uint64_t conn) {
  publish(origin, "E " + std::to_string(conn));
  const auto o = remote_.find(origin);
  if (o == remote_.end()) return;
  if (const auto it = o->second.find(conn); it != o->second.end()) {
    const auto keep = it->second;  // alive through closed()
    o->second.erase(it);
    lobby_.closed(keep.get());
  }
  if (o->second.empty()) remote_.erase(o);
}

void Node::heartbeat() {
  if (stopping_) return;
  // Our leases renewed, and the tournaments' lease tried when nobody here directs them, on the
  // heartbeat thread: the loop goes on meanwhile, and beaten() carries on with what they found.
  const Millis lease = options_.lease_ms;
  const Millis asked = now();  // the store extends them from a moment after this
  auto held = store_.held_leases();
  const bool direct = wants_to_direct();
  boost::asio::post(beats_, [weak = weak_from_this(), &store = store_, &io = io_,
                             held = std::move(held), lease, asked, direct]() mutable {
    Beat b{store.beat(held, lease)};
    if (direct && b.lost) b.director = store.take_after_beat(kTournamentLease, lease);
    boost::asio::post(io, [weak, held = std::move(held), asked, b = std::move(b)]() mutable {
      if (const auto n = weak.lock()) n->beaten(asked, held, std::move(b));
    });
  });
}

void Node::beaten(Millis asked, const PgStore::HeldLeases& held, Beat b) {
  if (stopping_) {
    // Taken while this node let its leases go: let this one go too.
    if (b.director && *b.director && **b.director) {
      store_.note_lease(kTournamentLease, **b.director);
      if (const auto r = store_.release_leases({kTournamentLease}); !r)
        spdlog::warn("event=lease_release_failed room={} error=\"{}\"", kTournamentLease,
                     r.error());
    }
    return;
  }
  const Millis lease = options_.lease_ms;
  // Those lost (we were paused past them) leave at once, unwritten.
  if (!b.lost) {
    spdlog::error("event=lease_renew_failed node={} error=\"{}\"", id_, b.lost.error());
  } else {
    renewed_at_ = asked;
    for (const auto& room : store_.drop_lost(held, *b.lost)) {
      if (room == kTournamentLease) {
        stop_directing();
        continue;
      }
      ++stats_.leases_lost;
      spdlog::warn("event=lease_lost node={} room={}", id_, room);
      lobby_.evict(room);
    }
  }
  const std::string ttl = std::to_string(lease);
  cmd_->command({"SET", alive_key(id_), std::to_string(now()), "PX", ttl});
  // [rank, spectators, active, summary, private, [[player, seat]...], to_move, deadline]
  nlohmann::json mine = nlohmann::json::array();
  for (auto& l : lobby_.lines(true))
    mine.push_back({l.rank, l.spectators, l.active, std::move(l.summary), l.is_private, l.players,
                    l.to_move, l.deadline ? nlohmann::json(*l.deadline) : nlohmann::json()});
  cmd_->command({"SET", rooms_key(id_), mine.dump(), "PX", ttl});
  cmd_->command({"SADD", kNodes, id_});
  // The nodes we relay to or for: one whose heartbeat is gone is gone.
  std::vector<std::string> peers;
  for (const auto& [node, conns] : via_) peers.push_back(node);
  for (const auto& [node, conns] : remote_)
    if (std::ranges::find(peers, node) == peers.end()) peers.push_back(node);
  if (!peers.empty()) {
    std::vector<std::string> args{"MGET"};
    for (const auto& p : peers) args.push_back(alive_key(p));
    cmd_->command(std::move(args), [weak = weak_from_this(), peers](const redis::Reply& r) {
      const auto n = weak.lock();
      if (!n || r.type != redis::Reply::Type::array || r.elements.size() != peers.size()) return;
      const Millis t = n->now(), lease = n->options_.lease_ms;
      // Just connected again: Redis may have restarted empty, and the peers not beaten yet.
      if (t - n->commands_up_at_ < lease) return;
      for (std::size_t i = 0; i < peers.size(); ++i) {
        if (r.elements[i].type != redis::Reply::Type::nil) continue;
        if (const auto h = n->heard_.find(peers[i]); h != n->heard_.end() && t - h->second < lease)
          continue;
        n->peer_gone(peers[i]);
      }
    });
  }
  read_lists();
  if (b.director) took_direction(*b.director);
  // What waited for this renewal (a director just woken from a stall) runs now.
  for (auto waiting = std::exchange(after_renewal_, {}); auto& fn : waiting) fn();
  // Nodes seen gone are forgotten once their leases are surely over, and holders read long ago
  // (they are read again when next needed).
  const Millis t = now();
  std::erase_if(gone_, [&](const auto& g) { return t - g.second > 2 * lease; });
  std::erase_if(heard_, [&](const auto& h) { return t - h.second > 2 * lease; });
  std::erase_if(owners_, [&](const auto& o) { return t - o.second.at >= kOwnerFresh; });
  beat_.expires_after(std::chrono::milliseconds(std::max<Millis>(100, lease / 5)));
  beat_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (const auto n = weak.lock(); n && !ec) n->heartbeat();
  });
}

namespace {

// A line of a node's list, as heartbeat() writes it: [rank, spectators, active, summary,
// private, [[player, seat]...], to_move, deadline].
std::optional<ListedLine> line_of_list(const nlohmann::json& l) {
  if (!l.is_array() || l.size() != 8 || !l[0].is_number_integer() || !l[1].is_number_integer() ||
      !l[2].is_number_integer() || !l[3].is_object() || !l[4].is_boolean() || !l[5].is_array() ||
      !l[6].is_number_integer())
    return std::nullopt;
  ListedLine line{l[0].get<int>(), l[1].get<int>(), l[2].get<Millis>(), l[3], l[4].get<bool>()};
  for (const auto& p : l[5])
    if (p.is_array() && p.size() == 2 && p[0].is_string() && p[1].is_number_integer())
      line.players.emplace_back(p[0].get<std::string>(), p[1].get<int>());
  line.to_move = l[6].get<int>();
  line.room = line.summary.value("room", std::string());
  if (l[7].is_number_integer()) line.deadline = l[7].get<Millis>();
  if (line.room.empty()) return std::nullopt;
  return line;
}

}  // namespace

void Node::read_lists() {
  cmd_->command({"SMEMBERS", kNodes}, [weak = weak_from_this()](const redis::Reply& r) {
    const auto n = weak.lock();
    if (!n || r.type != redis::Reply::Type::array) return;
    std::vector<std::string> nodes;
    for (const auto& e : r.elements)
      if (e.type == redis::Reply::Type::bulk && e.str != n->id_) nodes.push_back(e.str);
    if (nodes.empty()) return n->read_orphans({});
    std::vector<std::string> args{"MGET"};
    for (const auto& node : nodes) args.push_back(rooms_key(node));
    n->cmd_->command(std::move(args), [weak = n->weak_from_this(), nodes](const redis::Reply& r) {
      const auto n = weak.lock();
      if (!n || r.type != redis::Reply::Type::array || r.elements.size() != nodes.size()) return;
      std::vector<ListedLine> lines;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (r.elements[i].type != redis::Reply::Type::bulk) {
          // Gone: its list expired. What it listed last stays listed, as orphans, until
          // someone opens each room (and the node that takes it lists it).
          n->orphan(nodes[i]);
          n->cmd_->command({"SREM", kNodes, nodes[i]});
          continue;
        }
        auto list = nlohmann::json::parse(r.elements[i].str, nullptr, false);
        if (!list.is_array()) continue;
        for (const auto& l : list)
          if (auto line = line_of_list(l)) lines.push_back(std::move(*line));
        n->last_lists_[nodes[i]] = std::move(list);
      }
      n->read_orphans(std::move(lines));
    });
  });
}

void Node::orphan(const std::string& node) {
  const auto it = last_lists_.find(node);
  if (it == last_lists_.end()) return;
  std::vector<std::string> args{"HSET", kOrphans};
  for (const auto& l : it->second)
    if (const auto line = line_of_list(l)) {
      args.push_back(line->room);
      args.push_back(l.dump());
    }
  last_lists_.erase(it);
  if (args.size() > 2) cmd_->command(std::move(args));
}

void Node::unorphan(const std::string& room) { cmd_->command({"HDEL", kOrphans, room}); }

void Node::read_orphans(std::vector<ListedLine> lines) {
  cmd_->command({"HGETALL", kOrphans}, [weak = weak_from_this(),
                                        lines = std::move(lines)](const redis::Reply& r) mutable {
    const auto n = weak.lock();
    if (!n) return;
    if (r.type == redis::Reply::Type::array) {
      std::unordered_set<std::string> listed;
      for (const auto& l : lines) listed.insert(l.room);
      for (std::size_t i = 0; i + 1 < r.elements.size(); i += 2) {
        const auto& room = r.elements[i].str;
        // Listed by its holder, or held here (in this node's own lines): not an orphan now.
        if (listed.contains(room) || n->store_.lease(room)) continue;
        auto line = line_of_list(nlohmann::json::parse(r.elements[i + 1].str, nullptr, false));
        if (!line || line->room != room) continue;
        line->spectators = 0;  // nobody watches a room no node holds
        lines.push_back(std::move(*line));
      }
    }
    n->remote_lines_ = std::move(lines);
  });
}

void Node::peer_gone(const std::string& node) {
  if (node == id_) return;
  ++stats_.peers_lost;
  gone_[node] = now();
  spdlog::warn("event=cluster_peer_gone node={} peer={}", id_, node);
  std::erase_if(owners_, [&](const auto& o) { return o.second.node == node; });
  // Our clients in its rooms end, and come back through whichever node takes each room.
  if (const auto v = via_.find(node); v != via_.end()) {
    const auto numbers = v->second;
    via_.erase(v);
    for (const auto number : numbers) {
      if (const auto r = relayed_to_.find(number); r != relayed_to_.end()) r->second.erase(node);
      if (const auto it = local_.find(number); it != local_.end())
        if (const auto c = it->second.lock()) c->end();
    }
  }
  // Its clients here are gone with it. Should it be alive after all (paused, or cut from
  // Redis for a while), each is ended there too, so that it comes back rather than waiting,
  // unfed, in a room that no longer sends it anything.
  if (const auto o = remote_.find(node); o != remote_.end()) {
    const auto conns = std::move(o->second);
    remote_.erase(o);
    for (const auto& [number, conn] : conns) {
      publish(node, "E " + std::to_string(number));
      lobby_.closed(conn.get());
    }
  }
}

void Node::drop_relays() {
  std::vector<std::shared_ptr<Connection>> ended;
  for (const auto& [number, weak] : local_)
    if (relayed_to_.contains(number))
      if (auto c = weak.lock()) ended.push_back(std::move(c));
  via_.clear();
  relayed_to_.clear();
  owners_.clear();
  auto remote = std::move(remote_);
  remote_.clear();
  for (const auto& [node, conns] : remote)
    for (const auto& [number, conn] : conns) lobby_.closed(conn.get());
  for (const auto& c : ended) c->end();
}

void Node::stop(std::function<void()> done) {
  stopping_ = true;
  beat_.cancel();
  retry_.cancel();
  join_threads();
  // Rooms let go whose rows the lookup thread had not freed yet (none of its work is left).
  if (!unfreed_.empty())
    if (const auto r = store_.release_let_go({unfreed_.begin(), unfreed_.end()}); !r)
      spdlog::error("event=lease_release_failed node={} error=\"{}\"", id_, r.error());
  unfreed_.clear();
  // Every room this node held may be taken at once by the next request for it.
  const auto held = store_.leased_rooms();
  if (!held.empty())
    if (const auto r = store_.release_leases(held); !r)
      spdlog::error("event=lease_release_failed node={} error=\"{}\"", id_, r.error());
  spdlog::info("event=cluster_leaving node={} rooms_released={}", id_, held.size());
  for (const auto& [origin, conns] : remote_)
    for (const auto& [number, conn] : conns) publish(origin, "E " + std::to_string(number));
  remote_.clear();
  cmd_->command({"DEL", alive_key(id_), rooms_key(id_)});
  cmd_->command({"SREM", kNodes, id_});
  // Done once Redis answered all of it, or after a second.
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::seconds(1));
  auto once = std::make_shared<std::function<void()>>(std::move(done));
  const auto finish = [timer, once] {
    timer->cancel();
    if (*once) std::exchange(*once, nullptr)();
  };
  cmd_->command({"PING"}, [finish](const redis::Reply&) { finish(); });
  timer->async_wait([finish](const boost::system::error_code& ec) {
    if (!ec) finish();
  });
}

void Node::write_metrics(PromText& m) const {
  m.gauge("plateau_cluster_rooms_held", "Rooms whose lease this node holds.", rooms_held());
  m.gauge("plateau_cluster_peers", "Other nodes this node relays to or for.", peers());
  m.counter("plateau_cluster_relayed_out_total",
            "Requests of this node's clients sent on to the node holding their room.",
            stats_.relayed_out);
  m.counter("plateau_cluster_relayed_in_total", "Requests from other nodes' clients run here.",
            stats_.relayed_in);
  m.counter("plateau_cluster_frames_out_total", "Frames sent to other nodes (once per node).",
            stats_.frames_out);
  m.counter("plateau_cluster_frames_in_total", "Frames from other nodes fanned out here.",
            stats_.frames_in);
  m.counter("plateau_cluster_leases_taken_total", "Room leases this node took.",
            stats_.leases_taken);
  m.counter("plateau_cluster_takeovers_total",
            "Room leases taken that a holder had before (a later epoch).", stats_.takeovers);
  m.counter("plateau_cluster_leases_lost_total", "Rooms dropped here because their lease was gone.",
            stats_.leases_lost);
  m.counter("plateau_cluster_peers_lost_total", "Nodes seen gone (their heartbeat expired).",
            stats_.peers_lost);
  m.counter("plateau_cluster_redis_drops_total", "Connections to Redis lost.", stats_.redis_drops);
  m.counter("plateau_cluster_notices_total",
            "Accounts and ratings another node changed, read again here.", stats_.notices_in);
  m.gauge("plateau_cluster_tournament_director",
          "1 while this node directs the tournaments, else 0.", directs_tournaments() ? 1 : 0);
  m.counter("plateau_cluster_tournament_takeovers_total",
            "Times this node started directing the tournaments.", stats_.tournament_takeovers);
  m.family("plateau_cluster_tournament_ops_total",
           "Changes of the tournaments: sent to their director (out), run as the director (in).",
           "counter");
  m.labelled("plateau_cluster_tournament_ops_total", "direction=\"out\"",
             stats_.tournament_ops_out);
  m.labelled("plateau_cluster_tournament_ops_total", "direction=\"in\"", stats_.tournament_ops_in);
  m.counter("plateau_cluster_waited_out_total",
            "Requests refused after waiting for a gone node's lease to end.", stats_.waited_out);
  stats_.pubsub_lag.write(m.stream(), "plateau_cluster_pubsub_lag_seconds",
                          "From a holder publishing frames to their fan-out on this node.");
}

}  // namespace plateau::server::cluster
