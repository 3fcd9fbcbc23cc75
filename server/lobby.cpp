#include "lobby.hpp"

#include <openssl/sha.h>

#include <cstring>

namespace plateau::server {

using nlohmann::json;
using protocol::Code;

Lobby::Lobby(Store& store, Random random, LobbyLimits limits)
    : store_(store), random_(std::move(random)), limits_(limits), games_json_([] {
        json games = json::array();
        for (const rules::Game* g : rules::all_games()) games.push_back(g->describe());
        return games.dump();
      }()) {
}

std::string Lobby::hash_token(std::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

Lobby::TokenKey Lobby::token_key(std::string_view hex_hash) {
  TokenKey key;
  auto nibble = [](char c) { return static_cast<unsigned char>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10); };
  for (std::size_t i = 0; i < key.bytes.size() && 2 * i + 1 < hex_hash.size(); ++i)
    key.bytes[i] = static_cast<unsigned char>(nibble(hex_hash[2 * i]) << 4 | nibble(hex_hash[2 * i + 1]));
  return key;
}

std::size_t Lobby::TokenKeyHash::operator()(const TokenKey& k) const {
  std::size_t h = 0;
  std::memcpy(&h, k.bytes.data(), sizeof h);
  return h;
}

std::string Lobby::random_hex(int bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  while (static_cast<int>(out.size()) < bytes * 2) {
    std::uint64_t r = random_();
    for (int i = 0; i < 16 && static_cast<int>(out.size()) < bytes * 2; ++i, r >>= 4) out += kHex[r & 15];
  }
  return out;
}

void Lobby::reply_error(const std::shared_ptr<Client>& c, Code code, std::string message, const json& id) {
  refuse(c, protocol::Error{code, std::move(message), id});
}

void Lobby::refuse(const std::shared_ptr<Client>& c, const protocol::Error& e) {
  ++counters_.refused[std::string(protocol::code_string(e.code))];
  c->send(make_frame(protocol::encode_error(e)));
}

void Lobby::handle(const std::shared_ptr<Client>& c, protocol::Request req) {
  clients_.try_emplace(c.get(), c);
  const json& id = req.id;
  if (const auto* h = std::get_if<protocol::Hello>(&req.body)) return hello(c, *h, id);
  if (!c->player()) return reply_error(c, Code::no_hello, "say hello first", id);
  if (const auto* cr = std::get_if<protocol::Create>(&req.body)) return create(c, *cr, id);
  if (const auto* l = std::get_if<protocol::ListRooms>(&req.body)) return list(c, *l, id);

  const std::string* room_id = std::visit(
      [](const auto& m) -> const std::string* {
        if constexpr (requires { m.room; }) return &m.room;
        return nullptr;
      },
      req.body);
  const auto room = room_id ? find(*room_id) : nullptr;
  if (!room) return reply_error(c, Code::room_not_found, "no room '" + (room_id ? room_id->substr(0, 64) : "") + "'", id);

  std::optional<Code> refused;
  if (const auto* j = std::get_if<protocol::Join>(&req.body)) {
    refused = room->join(c, *j, id);
    if (!refused) rooms_of_[c.get()].insert(room->id());
  } else if (const auto* m = std::get_if<protocol::MoveRequest>(&req.body)) {
    refused = room->move(c, *m, id);
    if (!refused) ++counters_.moves_accepted;
  } else if (std::holds_alternative<protocol::Sync>(req.body)) {
    refused = room->sync(c, id);
  } else if (std::holds_alternative<protocol::Leave>(req.body)) {
    refused = room->leave(c, id);
    if (!refused) rooms_of_[c.get()].erase(room->id());
  } else if (std::holds_alternative<protocol::Rematch>(req.body)) {
    refused = room->rematch(c, id);
  }
  if (refused) ++counters_.refused[std::string(protocol::code_string(*refused))];
}

void Lobby::hello(const std::shared_ptr<Client>& c, const protocol::Hello& h, const json& id) {
  Player player;
  std::string token;
  const auto known =
      h.token ? players_by_token_hash_.find(token_key(hash_token(*h.token))) : players_by_token_hash_.end();
  if (known != players_by_token_hash_.end()) {
    token = *h.token;
    player = known->second;
    player.name = h.name;
    known->second.name = h.name;
  } else {
    // An unknown token (or none) makes a new player; a token is never taken from the client.
    player = Player{random_hex(8), h.name};
    token = random_hex(16);
    players_by_token_hash_[token_key(hash_token(token))] = player;
  }
  if (c->player() && c->player()->id != player.id) {
    closed(c.get());  // the connection changes player: it leaves the old one's rooms
  }
  c->set_player(player);
  // A player the store could not save would not be known after a restart: they are told.
  store_.put_player({player.id, hash_token(token), player.name}, [weak = std::weak_ptr<Client>(c)](bool ok) {
    if (ok) return;
    if (const auto client = weak.lock())
      client->send(make_frame(protocol::encode_error(
          {Code::store_unavailable, "the server could not save your player; say hello again later", nullptr})));
  });
  // Back in every room where this player sits; the welcome names them first, so that a client
  // knows which of its rooms come back by themselves.
  std::vector<std::pair<Room*, const std::string*>> tables;
  json listed = json::array();
  for (const auto& [rid, room] : rooms_)
    if (const auto seat = room->seat_of(player.id)) {
      tables.emplace_back(room.get(), &rid);
      listed.push_back({{"room", rid}, {"seat", *seat}});
    }
  c->send(make_frame(protocol::encode_welcome(id, player.id, token, games_json_, listed)));
  for (const auto& [room, rid] : tables) {
    std::optional<std::int64_t> held;
    for (const auto& [r, v] : h.resume)
      if (r == *rid) held = v;
    room->rebind(c, held);
    rooms_of_[c.get()].insert(*rid);
  }
}

void Lobby::create(const std::shared_ptr<Client>& c, const protocol::Create& req, const json& id) {
  const rules::Game* game = rules::find_game(req.game);
  if (!game) return reply_error(c, Code::unknown_game, "no game '" + req.game.substr(0, 64) + "'", id);
  const auto options = game->normalize_options(req.options);
  if (!options) return reply_error(c, Code::bad_option, "an option is unknown or out of range", id);
  auto secret = fresh_round_secret(random_);
  if (auto probe = game->create(*options, secret.seed); !probe)
    return reply_error(c, Code::bad_option, "these options do not go together", id);
  if (rooms_.size() >= limits_.max_rooms)
    return reply_error(c, Code::too_many_rooms, "the server holds as many rooms as it may", id);
  const std::string room_id = new_room_id();
  RoomSettings settings{.is_private = req.is_private, .spectator_delay = req.spectator_delay,
                        .grace_ms = limits_.grace_ms, .keep = limits_.keep, .random = random_};
  RoomRecord record{room_id, std::string(game->id()), *options, secret.seed, req.is_private,
                    req.spectator_delay, now_, secret.salt};
  auto room = std::make_shared<Room>(room_id, *game, *options, std::move(secret), settings, store_, now_);
  room->time_moves(&move_timer_);
  room->free_with(&reaper_);
  rooms_[room_id] = room;
  // `created` goes out once the room is durable, so a link shared from it always works.
  store_.create_room(record,
                     [weak = std::weak_ptr<Client>(c), room_id, id](bool ok) {
                       const auto client = weak.lock();
                       if (!client) return;
                       client->send(make_frame(
                           ok ? protocol::encode_created(id, room_id)
                              : protocol::encode_error({Code::internal, "the room could not be saved", id})));
                     });
}

std::string Lobby::new_room_id() {
  std::string id;
  do id = random_hex(12);
  while (rooms_.contains(id) || store_.room_exists(id));
  return id;
}

void Lobby::list(const std::shared_ptr<Client>& c, const protocol::ListRooms& req, const json& id) {
  if (req.game && !rules::find_game(*req.game))
    return reply_error(c, Code::unknown_game, "no game '" + req.game->substr(0, 64) + "'", id);
  // Public rooms, in the order a visitor looks for them: tables with a seat to take, then games
  // being played (the most watched first), then finished ones; the most recently active first
  // within each. The room id breaks ties, so that pages do not overlap.
  struct Listed {
    int rank;
    int spectators;
    Millis active;
    const Room* room;
  };
  std::vector<Listed> listed;
  // Besides the page: every table where the asking player sits, private ones too, whatever the
  // filter, so that the lobby leads back to them (the most recently active first).
  std::vector<std::pair<const Room*, rules::Seat>> mine;
  for (const auto& [rid, room] : rooms_) {
    if (room->failed()) continue;
    if (const auto seat = room->seat_of(c->player()->id)) mine.emplace_back(room.get(), *seat);
    if (room->is_private() || (req.game && room->game_id() != *req.game)) continue;
    const auto status = room->status();
    listed.push_back({status == protocol::Status::waiting ? 0 : status == protocol::Status::playing ? 1 : 2,
                      status == protocol::Status::playing ? room->spectators() : 0, room->last_activity(), room.get()});
  }
  const auto before = [](const Listed& a, const Listed& b) {
    return std::tie(a.rank, b.spectators, b.active, a.room->id()) < std::tie(b.rank, a.spectators, a.active, b.room->id());
  };
  const std::size_t from = std::min(req.offset, listed.size());
  const std::size_t to = req.limit ? std::min(listed.size(), from + *req.limit) : listed.size();
  // Only the page is put in order: the rest need only be after it.
  std::partial_sort(listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(to), listed.end(), before);
  json out = json::array();
  for (std::size_t i = from; i < to; ++i) out.push_back(listed[i].room->summary());
  const auto recent = [](const auto& a, const auto& b) {
    return std::pair(b.first->last_activity(), a.first->id()) < std::pair(a.first->last_activity(), b.first->id());
  };
  const std::size_t shown = std::min(mine.size(), kMineListed);
  std::partial_sort(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(shown), mine.end(), recent);
  json yours = json::array();
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& [room, seat] = mine[i];
    json line = room->summary();
    line["you"] = seat;
    line["your_turn"] = room->status() == protocol::Status::playing && room->state().to_move() == seat;
    yours.push_back(std::move(line));
  }
  c->send(make_frame(protocol::encode_rooms(id, out, listed.size(), from, yours)));
}

void Lobby::closed(Client* c) {
  const auto it = rooms_of_.find(c);
  if (it != rooms_of_.end()) {
    for (const auto& rid : it->second)
      if (const auto room = find(rid)) room->disconnect(c);
    rooms_of_.erase(it);
  }
  clients_.erase(c);
}

void Lobby::tick(Millis now) {
  now_ = now;
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    it->second->tick(now);
    // Only memory is freed: a room that is closed here stays in the store (and an unfinished one
    // comes back at the next start).
    if (it->second->idle() && now - it->second->last_activity() > limits_.idle_room_ms &&
        it->second->status() != protocol::Status::playing)
      it = rooms_.erase(it);
    else
      ++it;
  }
}

void Lobby::restore_player(const StoredPlayer& p) {
  players_by_token_hash_[token_key(p.token_hash)] = Player{p.id, p.name};
  name_by_player_[p.id] = p.name;
}

bool Lobby::restore_room(const StoredRoom& r, std::string& why) {
  const rules::Game* game = rules::find_game(r.room.game);
  if (!game) {
    why = "unknown game '" + r.room.game + "'";
    return false;
  }
  std::vector<std::string> names;
  for (const auto& s : r.seats) {
    const auto it = s ? name_by_player_.find(*s) : name_by_player_.end();
    names.push_back(it != name_by_player_.end() ? it->second : "");
  }
  auto room = Room::restore(r, *game, names, store_, now_,
                            RoomSettings{.grace_ms = limits_.grace_ms, .keep = limits_.keep, .random = random_}, why);
  if (!room) return false;
  room->time_moves(&move_timer_);
  room->free_with(&reaper_);
  rooms_[r.room.id] = std::move(room);
  return true;
}

std::shared_ptr<Room> Lobby::find(const std::string& id) const {
  const auto it = rooms_.find(id);
  return it == rooms_.end() ? nullptr : it->second;
}

void Lobby::announce(const std::string& message) {
  const auto frame = make_frame(protocol::encode_announce(message));
  for (const auto& [ptr, weak] : clients_)
    if (const auto c = weak.lock(); c && c->player()) c->send(frame);
}

bool Lobby::close_room(const std::string& id) {
  const auto it = rooms_.find(id);
  if (it == rooms_.end()) return false;
  const auto frame = make_frame(protocol::encode_error({Code::room_not_found, "the room was closed by the host", nullptr}));
  for (auto& [c, ids] : rooms_of_)
    if (ids.erase(id))
      if (const auto cl = clients_.find(c); cl != clients_.end())
        if (const auto p = cl->second.lock()) p->send(frame);
  rooms_.erase(it);
  store_.close_room(id, [id](bool) {});
  return true;
}

}  // namespace plateau::server
