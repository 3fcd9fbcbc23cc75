#include "server/rooms/lobby.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/time_control.hpp"

namespace plateau::server {

using nlohmann::json;
using protocol::Code;

Lobby::Lobby(Store& store, Random random, LobbyLimits limits)
    : store_(store),
      random_(std::move(random)),
      limits_(limits),
      games_json_([] {
        json games = json::array();
        for (const rules::Game* g : rules::all_games()) games.push_back(g->describe());
        return games.dump();
      }()),
      creates_(limits.creates_per_minute),
      new_players_(limits.new_players_per_minute) {}

bool PerMinute::allow(const std::string& address, Millis now) {
  auto& times = times_[address];
  while (!times.empty() && times.front() <= now - kMinute) times.pop_front();
  if (times.size() >= per_minute_) return false;
  times.push_back(now);
  return true;
}

bool PerMinute::would_allow(const std::string& address, Millis now) const {
  const auto it = times_.find(address);
  if (it == times_.end()) return per_minute_ > 0;
  const auto recent =
      std::ranges::count_if(it->second, [&](Millis t) { return t > now - kMinute; });
  return static_cast<std::size_t>(recent) < per_minute_;
}

void PerMinute::sweep(Millis now) {
  std::erase_if(times_, [now](const auto& e) {
    return e.second.empty() || e.second.back() <= now - kMinute;
  });
}

std::string Lobby::hash_token(std::string_view token) { return sha256_hex(token); }

Lobby::TokenKey Lobby::token_key(std::string_view hex_hash) {
  TokenKey key;
  auto nibble = [](char c) {
    return static_cast<unsigned char>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  };
  for (std::size_t i = 0; i < key.bytes.size() && 2 * i + 1 < hex_hash.size(); ++i)
    key.bytes[i] =
        static_cast<unsigned char>(nibble(hex_hash[2 * i]) << 4 | nibble(hex_hash[2 * i + 1]));
  return key;
}

std::size_t Lobby::TokenKeyHash::operator()(const TokenKey& k) const {
  std::size_t h = 0;
  std::memcpy(&h, k.bytes.data(), sizeof h);
  return h;
}

std::string Lobby::random_hex(int bytes) {
  return server::random_hex(random_, static_cast<std::size_t>(bytes));
}

void Lobby::reply_error(const std::shared_ptr<Connection>& c, Code code, std::string message,
                        const json& id) {
  refuse(c, protocol::Error{code, std::move(message), id});
}

void Lobby::refuse(const std::shared_ptr<Connection>& c, const protocol::Error& e) {
  ++counters_.refused[std::string(protocol::code_string(e.code))];
  c->send(make_frame(protocol::encode_error(e)));
}

void Lobby::handle(const std::shared_ptr<Connection>& c, protocol::Request req) {
  // A bot never closes: it is not a client to announce to or to forget.
  if (!c->player() || !bot_level_in(c->player()->id)) clients_.try_emplace(c.get(), c);
  const json& id = req.id;
  if (const auto* h = std::get_if<protocol::Hello>(&req.body)) return hello(c, *h, id);
  if (!c->player()) return reply_error(c, Code::no_hello, "say hello first", id);
  const bool disabled = accounts_ && accounts_->disabled(c->player()->id);
  if (const auto* cr = std::get_if<protocol::Create>(&req.body)) {
    if (disabled)
      return reply_error(c, Code::account_disabled,
                         "your account is disabled by the server's host: you may watch, not play",
                         id);
    return create(c, *cr, id);
  }
  if (const auto* l = std::get_if<protocol::ListRooms>(&req.body)) return list(c, *l, id);
  if (const auto* t = std::get_if<protocol::TournamentEntry>(&req.body)) {
    if (disabled && t->enter)
      return reply_error(c, Code::account_disabled,
                         "your account is disabled by the server's host: you may watch, not play",
                         id);
    return enter_tournament(c, *t, id);
  }

  const std::string* room_id = std::visit(
      [](const auto& m) -> const std::string* {
        if constexpr (requires { m.room; }) return &m.room;
        return nullptr;
      },
      req.body);
  std::optional<Code> unavailable;
  const auto room = room_id ? find(*room_id, &unavailable) : nullptr;
  if (!room && unavailable == Code::too_many_rooms)
    return reply_error(c, Code::too_many_rooms,
                       "the server holds as many rooms as it may; try again later", id);
  // A room the store holds but cannot give back (quarantined, or a failed read) is not served.
  if (!room)
    return reply_error(c, Code::room_not_found,
                       "no room '" + (room_id ? room_id->substr(0, 64) : "") + "'", id);

  const std::string& player = c->player()->id;
  std::optional<Code> refused;
  if (const auto* j = std::get_if<protocol::Join>(&req.body)) {
    const bool sat = room->seat_of(player).has_value();
    if (disabled && !j->spectator && !sat)
      return reply_error(c, Code::account_disabled,
                         "your account is disabled by the server's host: you may watch, not play",
                         id);
    if (room->rated() && !j->spectator && !sat && !is_account(player))
      return reply_error(c, Code::rated_accounts,
                         "this table is rated: sign in (or register) to sit here; anyone may watch",
                         id);
    // Written before the seat that names them, so that no stored seat has nobody behind it.
    if (!j->spectator && !sat) store_player(player);
    refused = room->join(c, *j, id);
    if (!refused) rooms_of_[c.get()].insert(room->id());
    if (!refused && !sat && room->seat_of(player)) sit(player, room->id());
  } else if (const auto* m = std::get_if<protocol::MoveRequest>(&req.body)) {
    refused = room->move(c, *m, id);
    if (!refused) ++counters_.moves_accepted;
  } else if (std::holds_alternative<protocol::Sync>(req.body)) {
    refused = room->sync(c, id);
  } else if (std::holds_alternative<protocol::Leave>(req.body)) {
    const bool sat = room->seat_of(player).has_value();
    refused = room->leave(c, id);
    if (!refused) rooms_of_[c.get()].erase(room->id());
    if (!refused && sat && !room->seat_of(player)) unsit(player, room->id());  // given back
  } else if (std::holds_alternative<protocol::Rematch>(req.body)) {
    refused = room->rematch(c, id);
  } else if (const auto* b = std::get_if<protocol::AddBot>(&req.body)) {
    refused = add_bot(c, room, *b, id);
  } else if (const auto* rb = std::get_if<protocol::RemoveBot>(&req.body)) {
    refused = may_seat_bots(c, *room, id);
    if (!refused) refused = room->remove_bot(c, rb->seat, id);
  } else if (std::holds_alternative<protocol::Resign>(req.body)) {
    refused = room->resign(c, id);
  } else if (const auto* d = std::get_if<protocol::Draw>(&req.body)) {
    refused = room->draw(c, d->action, id);
  } else if (std::holds_alternative<protocol::Claim>(req.body)) {
    refused = room->claim(c, id);
  } else if (const auto* t = std::get_if<protocol::Takeback>(&req.body)) {
    refused = room->takeback(c, t->action, id);
  } else if (const auto* ch = std::get_if<protocol::Chat>(&req.body)) {
    refused = chat(c, *room, *ch, id);
  }
  watch_clock(*room);
  if (refused) ++counters_.refused[std::string(protocol::code_string(*refused))];
}

std::optional<std::string> Lobby::player_to_find(const Connection& c,
                                                 const protocol::Hello& h) const {
  if (!h.token || !shared_.find_player) return std::nullopt;
  std::string hash = hash_token(*h.token);
  if (player_by_token_.contains(token_key(hash))) return std::nullopt;
  if (accounts_ && accounts_->by_session(hash)) return std::nullopt;
  if (!new_players_.would_allow(c.address(), now_)) return std::nullopt;
  return hash;
}

void Lobby::hello(const std::shared_ptr<Connection>& c, const protocol::Hello& h, const json& id) {
  Player player;
  std::string token;
  const std::string hash = h.token ? hash_token(*h.token) : std::string();
  const auto known = h.token ? player_by_token_.find(token_key(hash)) : player_by_token_.end();
  const AccountRow* account = known == player_by_token_.end() && accounts_ && h.token
                                  ? accounts_->by_session(hash)
                                  : nullptr;
  if (account) {
    // An account's session: the account's player, under the account's name whatever the
    // hello says.
    token = *h.token;
    player = Player{account->player, account->name};
    auto [k, fresh] = players_.try_emplace(player.id);
    if (fresh) k->second = Known{player.name, TokenKey{}, true, true, 0, now_};
    k->second.name = player.name;
    k->second.stored = k->second.seated = true;
  } else if (known != player_by_token_.end()) {
    token = *h.token;
    player = Player{known->second, guest_name(h.name)};
    auto& k = players_[player.id];
    if (k.name != player.name) {
      k.name = player.name;
      if (k.stored) store_.put_player({player.id, hash, player.name}, [](bool) {});
    }
  } else {
    // An unknown token (or none) makes a new player; a token is never taken from the client.
    // Nothing is stored until they sit down or create a room: a hello costs the disk nothing.
    if (!new_players_.allow(c->address(), now_))
      return reply_error(c, Code::rate_hello,
                         "too many new players from your address; try again in a minute", id);
    // In a cluster, a player another node made and stored (the rate above bounds these reads).
    const auto stored = h.token && shared_.find_player ? shared_.find_player(hash) : std::nullopt;
    if (stored && !bot_level_in(stored->id)) {
      restore_player(*stored);
      token = *h.token;
      player = Player{stored->id, guest_name(h.name)};
      players_[player.id].name = player.name;
    } else {
      player = Player{random_hex(8), guest_name(h.name)};
      token = random_hex(16);
      const auto key = token_key(hash_token(token));
      player_by_token_[key] = player.id;
      players_[player.id] = Known{player.name, key, false, false, 0, now_};
    }
  }
  const bool same = c->player() && c->player()->id == player.id;
  if (c->player() && !same) {
    closed(c.get());  // the connection changes player: it leaves the old one's rooms
  }
  // After closed(), which forgets the connection's session.
  if (account)
    session_of_[c.get()] = SignedIn{hash, c};
  else
    session_of_.erase(c.get());
  c->set_player(player);
  auto& k = players_[player.id];
  k.seen = now_;
  if (!same) ++k.online;
  // Back in every room where this player sits (brought back from the store if it was
  // unloaded); the welcome names them first, so that a client knows which of its rooms come
  // back by themselves.
  std::vector<std::string> ids;
  if (const auto t = tables_of_.find(player.id); t != tables_of_.end()) ids = t->second;
  std::ranges::sort(ids);
  std::vector<std::shared_ptr<Room>> tables;
  json listed = json::array();
  for (const auto& rid : ids) {
    const auto room = find(rid);
    const auto seat = room ? room->seat_of(player.id) : std::nullopt;
    if (!seat) continue;
    tables.push_back(room);
    listed.push_back({{"room", rid}, {"seat", *seat}});
  }
  c->send(make_frame(protocol::encode_welcome(
      id, player.id, token, bot_games_allowed(), games_json_, listed, player.name,
      account ? std::optional<std::string>(account->name) : std::nullopt)));
  for (const auto& room : tables) {
    std::optional<std::int64_t> held;
    for (const auto& [r, v] : h.resume)
      if (r == room->id()) held = v;
    room->rebind(c, held);
    rooms_of_[c.get()].insert(room->id());
  }
  // A tournament table waiting for this player (a round that started while they were away).
  if (tournaments_)
    for (const auto& t : tournaments_->waiting_tables(player.id))
      if (!std::ranges::any_of(tables, [&](const auto& r) { return r->id() == t.room; }))
        c->send(make_frame(protocol::encode_tournament_table(t.tournament, t.round, t.room)));
}

void Lobby::create(const std::shared_ptr<Connection>& c, const protocol::Create& req,
                   const json& id) {
  const rules::Game* game = rules::find_game(req.game);
  if (!game)
    return reply_error(c, Code::unknown_game, "no game '" + req.game.substr(0, 64) + "'", id);
  if (req.rated && (!ratings_ || !is_account(c->player()->id)))
    return reply_error(c, Code::rated_accounts,
                       "rated tables are for accounts: sign in (or register) to create one", id);
  const auto options = game->normalize_options(req.options);
  if (!options) return reply_error(c, Code::bad_option, "an option is unknown or out of range", id);
  auto secret = fresh_round_secret(random_);
  auto match = Match::start(*game, *options, secret, req.spectator_delay);
  if (!match) return reply_error(c, Code::bad_option, "these options do not go together", id);
  if (req.clock.timed() && match->state().num_seats() != 2 && !stand_in_)
    return reply_error(c, Code::clock_two_seats,
                       "this server runs no bots to play for a player whose time runs out, so "
                       "its clocks are for games of two seats; this one has " +
                           std::to_string(match->state().num_seats()),
                       id);
  if (rooms_.size() >= limits_.max_rooms)
    return reply_error(c, Code::too_many_rooms, "the server holds as many rooms as it may", id);
  const std::string& creator = c->player()->id;
  if (open_rooms_of(creator) >= limits_.max_rooms_per_player)
    return reply_error(c, Code::too_many_yours,
                       "you have " + std::to_string(limits_.max_rooms_per_player) +
                           " open rooms of your own already; finish or leave one first",
                       id);
  if (!creates_.allow(c->address(), now_))
    return reply_error(c, Code::rate_creates,
                       "too many rooms created from your address; try again in a minute", id);
  const std::string room_id = new_room_id();
  if (unloaded_.contains(room_id))  // an id in use, out of memory: not a room of this one's
    return reply_error(c, Code::internal, "no room id free; try again", id);
  // In a cluster, its lease first: its first write is fenced by it.
  if (shared_.claim_new) shared_.claim_new(room_id);
  RoomSettings settings = server_settings();
  settings.is_private = req.is_private;
  settings.rated = req.rated;
  settings.chat = req.chat && limits_.chat;
  settings.spectator_delay = req.spectator_delay;
  settings.clock = req.clock;
  RoomRecord record{room_id,         std::string(game->id()),      *options,  secret.seed,
                    req.is_private,  req.spectator_delay,          now_,      secret.salt,
                    c->player()->id, protocol::to_json(req.clock), req.rated, settings.chat};
  auto room = std::make_shared<Room>(room_id, std::move(*match), settings, store_, now_);
  hold(room);
  creator_of_[room_id] = creator;
  created_by_[creator].push_back(room_id);
  store_player(creator);
  // `created` goes out once the room is durable, so a link shared from it always works.
  store_.create_room(record, [weak = std::weak_ptr<Connection>(c), room_id, id](bool ok) {
    const auto client = weak.lock();
    if (!client) return;
    client->send(make_frame(
        ok ? protocol::encode_created(id, room_id)
           : protocol::encode_error({Code::internal, "the room could not be saved", id})));
  });
}

void Lobby::use_bots(Background& background, std::chrono::microseconds max_think, bool bot_games) {
  bots_.background = &background;
  bots_.max_think = max_think;
  bot_games_ = bot_games;
  // An easy bot plays on for whoever leaves a game of three or four seats: it keeps the
  // game's turns going, and is not one of the bot games --max-bot-games counts.
  stand_in_ = [this](const std::shared_ptr<Room>& room, int seat) {
    const auto bot = make_bot(bots::Level::easy, bot_player_id(bots::Level::easy, random_hex(8)));
    bot->stand_in_for(seat);
    bot->seat_at(room);
    return std::shared_ptr<Connection>(bot);
  };
}

std::shared_ptr<BotSeat> Lobby::make_bot(bots::Level level, const std::string& player_id) {
  return std::make_shared<BotSeat>(
      Player{player_id, bot_name(player_id)}, level, bots_,
      [this](const std::shared_ptr<Connection>& c, protocol::Request r) {
        handle(c, std::move(r));
      },
      random_());
}

std::size_t Lobby::bot_games() const {
  std::size_t n = 0;
  for (const auto& [rid, room] : rooms_) {
    if (room->status() == protocol::Status::over || room->failed()) continue;
    n += std::ranges::any_of(room->seated(),
                             [](const auto& s) { return s.first && bot_level_in(*s.first); });
  }
  return n;
}

std::optional<Code> Lobby::may_seat_bots(const std::shared_ptr<Connection>& c, const Room& room,
                                         const json& id) {
  const std::string& player = c->player()->id;
  const auto creator = creator_of_.find(room.id());
  if (room.seat_of(player) || (creator != creator_of_.end() && creator->second == player))
    return std::nullopt;
  c->send(make_frame(protocol::encode_error(
      {Code::bot_not_allowed,
       "only a player at this table, or the one who made it, may seat or remove a bot", id})));
  return Code::bot_not_allowed;
}

std::optional<Code> Lobby::add_bot(const std::shared_ptr<Connection>& c,
                                   const std::shared_ptr<Room>& room, const protocol::AddBot& req,
                                   const json& id) {
  const auto no = [&](Code code, std::string message) {
    c->send(make_frame(protocol::encode_error({code, std::move(message), id})));
    return code;
  };
  if (room->rated()) return no(Code::rated_no_bots, "bots do not sit at rated tables");
  if (!bot_games_allowed()) return no(Code::bot_unavailable, "this server runs no bots");
  const auto level = bots::level_named(req.level);
  if (!level)
    return no(Code::bot_level, "no bot level '" + req.level.substr(0, 16) +
                                   "'; the levels are easy, normal and hard");
  if (const auto refused = may_seat_bots(c, *room, id)) return refused;
  const bool has_bot = std::ranges::any_of(
      room->seated(), [](const auto& s) { return s.first && bot_level_in(*s.first); });
  if (!has_bot && room->status() == protocol::Status::waiting &&
      bot_games() >= limits_.max_bot_games)
    return no(Code::bot_limit,
              "the server runs as many games with bots as it may; try again later");
  // Two bots of a level at one table are told apart: "Easy bot", "Easy bot 2".
  const auto seated = room->seated();
  int ordinal = 1;
  while (std::ranges::any_of(seated, [&](const auto& s) {
    return s.second == bot_name(bot_player_id(*level, "x", ordinal));
  }))
    ++ordinal;
  const auto bot = make_bot(*level, bot_player_id(*level, random_hex(8), ordinal));
  bot->seat_at(room);
  const auto refused = room->add_bot(c, bot, req.seat, id);
  // Its row names it in the history (a bot has no token: the hash field holds what no SHA-256
  // in hex can be).
  if (!refused)
    store_.put_player({bot->player()->id, "bot:" + bot->player()->id, bot->player()->name},
                      [](bool) {});
  return refused;
}

std::string Lobby::new_room_id() {
  std::string id;
  do id = random_hex(12);
  while (rooms_.contains(id) || store_.room_exists(id));
  return id;
}

json Lobby::Unloaded::summary(const std::string& id) const {
  json seat_lines = json::array();
  for (std::size_t s = 0; s < seats.size(); ++s)
    seat_lines.push_back(seat_line(s, seats[s].first, seats[s].second, false));
  return json{{"room", id},
              {"game", game->id()},
              {"seats", seat_lines},
              {"status", protocol::status_string(protocol::Status::playing)},
              {"spectators", 0},
              {"round", round},
              {"private", is_private},
              {"clock", clock}};
}

json Lobby::Line::summary() const { return room ? room->summary() : unloaded->summary(*id); }

int Lobby::Line::to_move() const {
  if (unloaded) return unloaded->to_move;
  const auto seat = room->state().to_move();
  return seat ? *seat : -1;
}

protocol::Status Lobby::Line::status() const {
  return room ? room->status() : protocol::Status::playing;
}

std::vector<ListedLine> Lobby::lines(bool with_private) const {
  std::vector<ListedLine> out;
  const auto add = [&](const std::string& rid, const Line& line, int rank, int spectators,
                       const auto& seats, bool is_private) {
    ListedLine l{rank, spectators, line.active, line.summary(), is_private};
    for (std::size_t s = 0; s < seats.size(); ++s)
      if (seats[s].first && !bot_level_in(*seats[s].first))
        l.players.emplace_back(*seats[s].first, static_cast<int>(s));
    const int seat = line.to_move();
    if (line.status() == protocol::Status::playing && seat >= 0 &&
        !(line.room && line.room->has_left(seat)))
      l.to_move = seat;
    if (const auto d = deadline_of_.find(rid); d != deadline_of_.end()) l.deadline = d->second;
    l.room = rid;
    out.push_back(std::move(l));
  };
  for (const auto& [rid, room] : rooms_) {
    if (room->failed() || (room->is_private() && !with_private)) continue;
    const auto status = room->status();
    add(rid, Line{&rid, room->last_activity(), room.get(), nullptr},
        status == protocol::Status::waiting   ? 0
        : status == protocol::Status::playing ? 1
                                              : 2,
        status == protocol::Status::playing ? room->spectators() : 0, room->seated(),
        room->is_private());
  }
  for (const auto& [rid, u] : unloaded_)
    if (!u.is_private || with_private)
      add(rid, Line{&rid, u.last_activity, nullptr, &u}, 1, 0, u.seats, u.is_private);
  return out;
}

const Lobby::Listing& Lobby::listing() {
  if (listing_.built) return listing_;
  // Public rooms, in the order a visitor looks for them: tables with a seat to take, then games
  // being played (the most watched first), then finished ones; the most recently active first
  // within each. The room id breaks ties, so that pages do not overlap.
  auto listed = lines();
  // In a cluster, the other nodes' public rooms too (a room this node holds is listed as it is
  // here).
  if (shared_.remote_lines)
    for (const auto& line : shared_.remote_lines())
      if (!line.is_private && !line.room.empty() && !rooms_.contains(line.room) &&
          !unloaded_.contains(line.room))
        listed.push_back(line);
  std::ranges::sort(listed, [](const ListedLine& a, const ListedLine& b) {
    return std::tie(a.rank, b.spectators, b.active, a.room) <
           std::tie(b.rank, a.spectators, a.active, b.room);
  });
  listing_.all.clear();
  listing_.by_game.clear();
  for (auto& l : listed) {
    listing_.by_game[l.summary.value("game", std::string())].push_back(listing_.all.size());
    listing_.all.push_back(std::move(l.summary));
  }
  listing_.built = true;
  return listing_;
}

void Lobby::list(const std::shared_ptr<Connection>& c, const protocol::ListRooms& req,
                 const json& id) {
  if (req.game && !rules::find_game(*req.game))
    return reply_error(c, Code::unknown_game, "no game '" + req.game->substr(0, 64) + "'", id);
  const Listing& all = listing();
  static const std::vector<std::size_t> kNone;
  const std::vector<std::size_t>* of_game = nullptr;
  if (req.game) {
    const auto it = all.by_game.find(*req.game);
    of_game = it == all.by_game.end() ? &kNone : &it->second;
  }
  const std::size_t total = of_game ? of_game->size() : all.all.size();
  const std::size_t limit =
      std::min(req.limit.value_or(limits_.rooms_page), limits_.rooms_page_max);
  const std::size_t from = std::min(req.offset, total);
  const std::size_t to = std::min(total, from + limit);
  json out = json::array();
  for (std::size_t i = from; i < to; ++i) out.push_back(all.all[of_game ? (*of_game)[i] : i]);
  // Besides the page: every table where the asking player sits, private ones too, whatever the
  // filter, so that the lobby leads back to them (the most recently active first). Read from
  // the player's own tables, not from every room.
  std::vector<std::pair<Line, rules::Seat>> mine;
  if (const auto t = tables_of_.find(c->player()->id); t != tables_of_.end())
    for (const auto& rid : t->second) {
      if (const auto r = rooms_.find(rid); r != rooms_.end()) {
        const Room& room = *r->second;
        if (const auto seat = room.seat_of(c->player()->id); seat && !room.failed())
          mine.emplace_back(Line{&r->first, room.last_activity(), &room, nullptr}, *seat);
      } else if (const auto u = unloaded_.find(rid); u != unloaded_.end()) {
        const Unloaded& room = u->second;
        for (std::size_t s = 0; s < room.seats.size(); ++s)
          if (room.seats[s].first == c->player()->id)
            mine.emplace_back(Line{&u->first, room.last_activity, nullptr, &room},
                              static_cast<rules::Seat>(s));
      }
    }
  const auto recent = [](const auto& a, const auto& b) {
    return std::pair(b.first.active, *a.first.id) < std::pair(a.first.active, *b.first.id);
  };
  const std::size_t shown = std::min(mine.size(), kMineListed);
  std::partial_sort(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(shown), mine.end(),
                    recent);
  // (activity, room, entry): this node's tables, then in a cluster those held by other nodes.
  std::vector<std::tuple<Millis, std::string, json>> entries;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& [line, seat] = mine[i];
    json entry = line.summary();
    entry["you"] = seat;
    // A player who left the round is never to move: a bot plays their seat.
    entry["your_turn"] = line.status() == protocol::Status::playing && line.to_move() == seat &&
                         !(line.room && line.room->has_left(seat));
    // When the seat to move runs out of time, for a client to sort by (correspondence games).
    if (const auto d = deadline_of_.find(*line.id); d != deadline_of_.end())
      entry["deadline"] = d->second;
    entries.emplace_back(line.active, *line.id, std::move(entry));
  }
  if (shared_.remote_lines)
    for (const auto& line : shared_.remote_lines()) {
      if (rooms_.contains(line.room) || unloaded_.contains(line.room)) continue;
      for (const auto& [player, seat] : line.players) {
        if (player != c->player()->id) continue;
        json entry = line.summary;
        entry["you"] = seat;
        entry["your_turn"] = line.to_move == seat;
        if (line.deadline) entry["deadline"] = *line.deadline;
        entries.emplace_back(line.active, line.room, std::move(entry));
        break;
      }
    }
  std::ranges::sort(entries, [](const auto& a, const auto& b) {
    return std::pair(std::get<0>(b), std::get<1>(a)) < std::pair(std::get<0>(a), std::get<1>(b));
  });
  json yours = json::array();
  for (std::size_t i = 0; i < entries.size() && i < kMineListed; ++i)
    yours.push_back(std::move(std::get<2>(entries[i])));
  c->send(make_frame(protocol::encode_rooms(id, out, total, from, yours)));
}

void Lobby::closed(Connection* c) {
  const auto it = rooms_of_.find(c);
  if (it != rooms_of_.end()) {
    // Only rooms in memory: one unloaded holds no connection.
    for (const auto& rid : it->second)
      if (const auto room = rooms_.find(rid); room != rooms_.end()) room->second->disconnect(c);
    rooms_of_.erase(it);
  }
  if (c->player())
    if (const auto k = players_.find(c->player()->id); k != players_.end()) {
      k->second.online = std::max(0, k->second.online - 1);
      k->second.seen = now_;
    }
  clients_.erase(c);
  session_of_.erase(c);
}

void Lobby::tick(Millis now) {
  now_ = now;
  listing_.built = false;
  if (directs_now()) tournaments_->tick(now);
  for (auto it = rooms_.begin(); it != rooms_.end();) {
    Room& room = *it->second;
    room.tick(now);
    const bool idle = room.idle() && !room.failed();
    const Millis quiet = now - room.last_activity();
    // A live clock's room stays: its clock is charged as it runs, in memory.
    if (idle && room.status() == protocol::Status::playing && limits_.unload_after_ms > 0 &&
        !room.live_clock_running() && quiet > limits_.unload_after_ms) {
      const auto next = std::next(it);
      unload(it);
      it = next;
    } else if (room.idle() && quiet > limits_.idle_room_ms &&
               room.status() != protocol::Status::playing) {
      // Only memory is freed: a room that is closed here stays in the store (and an unfinished
      // one comes back at the next start, or when someone asks for it).
      const std::string id = it->first;
      const auto seated = room.seated();
      it = rooms_.erase(it);
      room_count_ = rooms_.size();
      store_.unload_room(id);
      std::vector<std::optional<std::string>> players;
      for (const auto& [p, name] : seated) players.push_back(p);
      forget_room(id, players);
      released(id);
    } else {
      ++it;
    }
  }
  creates_.sweep(now);
  new_players_.sweep(now);
  if (now - players_swept_ >= 60'000) {
    players_swept_ = now;
    sweep_players();
  }
  expire(now);  // the flags the timer has not seen to yet (it always should have)
}

void Lobby::unload(std::map<std::string, std::shared_ptr<Room>>::iterator it) {
  const Room& room = *it->second;
  Unloaded u;
  u.game = &room.game();
  u.round = room.round();
  u.is_private = room.is_private();
  const auto seat = room.state().to_move();
  u.to_move = seat ? *seat : -1;
  u.last_activity = room.last_activity();
  if (const auto c = creator_of_.find(it->first); c != creator_of_.end()) {
    u.creator = std::move(c->second);
    creator_of_.erase(c);
  }
  u.seats = room.seated();
  u.clock = protocol::to_json(room.time_control());
  const std::string id = it->first;
  rooms_.erase(it);  // its writes are all done: idle() says nothing waits for the store
  room_count_ = rooms_.size();
  store_.unload_room(id);
  unloaded_.emplace(id, std::move(u));
  ++counters_.rooms_unloaded;
  released(id);
}

std::shared_ptr<Room> Lobby::load(const std::string& id, std::optional<Code>* why) {
  if (id.empty() || id.size() > 64) return nullptr;
  if (closing_.contains(id)) return nullptr;  // closed: gone, though the store has it a moment more
  if (quarantined_.contains(id) || (shared_.holds && !shared_.holds(id))) {
    if (why) *why = Code::room_unavailable;
    return nullptr;
  }
  // A room the store would rebuild at a start: in play or waiting, or ended while its players
  // could still ask for a rematch.
  auto stored = store_.load_room(id, restorable_since());
  if (!stored) {
    ++counters_.load_failures;
    if (why) *why = Code::room_unavailable;
    return nullptr;
  }
  if (!*stored) {
    if (const auto u = unloaded_.find(id); u != unloaded_.end()) {  // the store let it go: so do we
      std::vector<std::optional<std::string>> seated;
      for (const auto& [p, name] : u->second.seats) seated.push_back(p);
      unloaded_.erase(u);
      forget_room(id, seated);
    }
    return nullptr;
  }
  if (rooms_.size() >= limits_.max_rooms) {
    if (why) *why = Code::too_many_rooms;
    return nullptr;
  }
  std::string reason;
  if (!restore_room(**stored, reason)) {
    ++counters_.load_failures;
    quarantined_.insert(id);
    if (why) *why = Code::room_unavailable;
    return nullptr;
  }
  ++counters_.rooms_loaded;
  return rooms_.at(id);
}

std::shared_ptr<Room> Lobby::find(const std::string& id, std::optional<Code>* why) {
  if (const auto it = rooms_.find(id); it != rooms_.end()) return it->second;
  return load(id, why);
}

void Lobby::sit(const std::string& player, const std::string& room) {
  auto& ids = tables_of_[player];
  if (std::ranges::find(ids, room) == ids.end()) ids.push_back(room);
  if (const auto k = players_.find(player); k != players_.end()) k->second.seated = true;
}

void Lobby::unsit(const std::string& player, const std::string& room) {
  const auto it = tables_of_.find(player);
  if (it == tables_of_.end()) return;
  std::erase(it->second, room);
  if (it->second.empty()) tables_of_.erase(it);
}

void Lobby::forget_room(const std::string& id,
                        const std::vector<std::optional<std::string>>& seated) {
  for (const auto& p : seated)
    if (p) unsit(*p, id);
  creator_of_.erase(id);  // created_by_ lets go of it when next counted
}

std::size_t Lobby::open_rooms_of(const std::string& player) {
  const auto it = created_by_.find(player);
  if (it == created_by_.end()) return 0;
  std::size_t open = 0;
  std::erase_if(it->second, [&](const std::string& rid) {
    if (const auto r = rooms_.find(rid); r != rooms_.end()) {
      // An ended room may start a rematch: it stays on the list, uncounted.
      open += r->second->status() != protocol::Status::over && !r->second->failed();
      return false;
    }
    if (unloaded_.contains(rid)) {
      ++open;
      return false;
    }
    return true;  // closed, or gone from memory while not in play
  });
  if (it->second.empty()) created_by_.erase(it);
  return open;
}

void Lobby::store_player(const std::string& player) {
  const auto it = players_.find(player);
  if (it == players_.end() || it->second.stored) return;
  it->second.stored = true;
  const std::string hash = to_hex(it->second.key.bytes);
  // A write that fails is tried again at the player's next seat or room.
  store_.put_player({player, hash, it->second.name}, [this, player](bool ok) {
    if (ok) return;
    if (const auto k = players_.find(player); k != players_.end()) k->second.stored = false;
    ++counters_.refused["store/player_failed"];
  });
}

void Lobby::sweep_players() {
  // A player who never sat anywhere and has not been seen for a while is forgotten: their token
  // no longer names anyone. One with a seat, in play or in history, is kept for good.
  std::vector<std::string> stored;
  for (auto it = players_.begin(); it != players_.end();) {
    const Known& k = it->second;
    if (k.seated || k.online > 0 || now_ - k.seen <= limits_.forget_players_ms ||
        tables_of_.contains(it->first)) {
      ++it;
      continue;
    }
    if (k.stored) stored.push_back(it->first);
    player_by_token_.erase(k.key);
    it = players_.erase(it);
    ++counters_.players_forgotten;
  }
  // In writes of a thousand: the first sweep after an upgrade may find every hello ever made.
  for (std::size_t i = 0; i < stored.size(); i += 1000) {
    const auto end =
        stored.begin() + static_cast<std::ptrdiff_t>(std::min(stored.size(), i + 1000));
    store_.forget_players({stored.begin() + static_cast<std::ptrdiff_t>(i), end}, [](bool) {});
  }
}

void Lobby::restore_player(const StoredPlayer& p) {
  if (bot_level_in(p.id)) return;  // a bot has no token, and sits again with its room
  const auto key = token_key(p.token_hash);
  player_by_token_[key] = p.id;
  players_[p.id] =
      Known{p.name, key, true, p.seated || (accounts_ && accounts_->of_player(p.id)), 0, now_};
}

void Lobby::use_accounts(Accounts& accounts) {
  accounts_ = &accounts;
  accounts.use_directory(this);
}

std::string Lobby::guest_name(const std::string& name) const {
  if (!accounts_ || !accounts_->name_taken(name)) return name;
  // Cut to fit the longest name, at a character's start.
  static constexpr std::string_view kGuest = " (guest)";
  return cut_utf8(name, 40 - utf8_chars(kGuest)) + std::string(kGuest);
}

std::optional<std::string> Lobby::guest_of(const std::string& token_hash) {
  const auto it = player_by_token_.find(token_key(token_hash));
  if (it == player_by_token_.end() || (accounts_ && accounts_->of_player(it->second)))
    return std::nullopt;
  return it->second;
}

void Lobby::became_account(const std::string& player, const std::string& name) {
  auto& k = players_[player];
  // The guest token signs nobody in from now (the store holds a hash nobody has a token for).
  if (const auto it = player_by_token_.find(k.key);
      it != player_by_token_.end() && it->second == player)
    player_by_token_.erase(it);
  k.key = TokenKey{};
  k.name = name;
  k.stored = k.seated = true;
}

void Lobby::sessions_ended(const std::vector<std::string>& token_hashes) {
  if (token_hashes.empty()) return;
  const std::set<std::string> ended(token_hashes.begin(), token_hashes.end());
  std::vector<std::shared_ptr<Connection>> out;
  for (const auto& [conn, signed_in] : session_of_)
    if (ended.contains(signed_in.session))
      if (auto c = signed_in.connection.lock()) out.push_back(std::move(c));
  for (const auto& c : out) {
    // Out of its rooms, and a stranger again: it must say hello with a good token to go on.
    closed(c.get());
    c->clear_player();
    c->send(make_frame(protocol::encode_error(
        {Code::signed_out, "this session has ended: sign in again", nullptr})));
  }
}

void Lobby::renamed(const std::string& player, const std::string& name) {
  if (const auto it = players_.find(player); it != players_.end()) it->second.name = name;
}

bool Lobby::restore_room(const StoredRoom& r, std::string& why) {
  const rules::Game* game = rules::find_game(r.room.game);
  if (!game) {
    why = "unknown game '" + r.room.game + "'";
    return false;
  }
  // The names the seats showed when the room left memory, else the players' own.
  const auto before = unloaded_.find(r.room.id);
  std::vector<std::string> names;
  for (std::size_t s = 0; s < r.seats.size(); ++s) {
    const auto& p = r.seats[s];
    if (before != unloaded_.end() && s < before->second.seats.size() &&
        before->second.seats[s].first == p) {
      names.push_back(before->second.seats[s].second);
      continue;
    }
    if (const auto level = p ? bot_level_of(*p) : std::nullopt) {
      names.push_back(bot_name(*p));
      continue;
    }
    const auto it = p ? players_.find(*p) : players_.end();
    names.push_back(it != players_.end() ? it->second.name : "");
  }
  RoomSettings settings = server_settings();
  if (tournaments_) settings.reserved = tournaments_->reserved(r.room.id);
  auto room = Room::restore(r, *game, names, store_, now_, settings, why);
  if (!room) return false;
  // Its creator, for their count of open rooms: as stored, or as known when it left memory.
  std::string creator = r.room.creator;
  if (before != unloaded_.end()) {
    if (!before->second.creator.empty()) creator = before->second.creator;
    unloaded_.erase(before);
  }
  if (!creator.empty()) {
    creator_of_[r.room.id] = creator;
    auto& mine = created_by_[creator];
    if (std::ranges::find(mine, r.room.id) == mine.end()) mine.push_back(r.room.id);
  }
  for (const auto& p : r.seats)
    if (p && !bot_level_in(*p)) sit(*p, r.room.id);
  hold(room);
  watch_clock(*room);
  // Its bots sit again, and move when it is their turn.
  if (bots_.background)
    for (const auto& p : r.seats)
      if (const auto level = p ? bot_level_of(*p) : std::nullopt) {
        const auto bot = make_bot(*level, *p);
        bot->seat_at(room);
        room->rebind(bot);
      }
  return true;
}

void Lobby::hold(const std::shared_ptr<Room>& room) {
  room->time_moves(&move_timer_);
  room->free_with(&reaper_);
  rooms_[room->id()] = room;
  room_count_ = rooms_.size();
}

RoomSettings Lobby::server_settings() {
  return RoomSettings{.grace_ms = limits_.grace_ms,
                      .keep = limits_.keep,
                      .random = random_,
                      .max_spectators = limits_.max_spectators,
                      .now = clock_,
                      .max_lag_credit_ms = limits_.max_lag_credit_ms,
                      .gone_ms = limits_.gone_ms,
                      .stand_in = stand_in_,
                      .rated = false,
                      .chat = limits_.chat,
                      .max_chat = limits_.max_chat,
                      .chat_chars = limits_.chat_chars,
                      .round_ended =
                          [this](const Room& room, const json& outcome) {
                            rate_round(room, outcome);
                            if (!tournaments_) return;
                            if (directs_now())
                              tournaments_->round_ended(room.id(), room.round(), outcome, now_);
                            else if (shared_.table_ended && room.round() == 1 &&
                                     tournaments_->open_table(room.id()))
                              shared_.table_ended(room.id());
                          },
                      .reserved = {}};
}

// ---------- tournaments ----------

bool Lobby::directs_now() const {
  return tournaments_ && tournaments_->directing() && (!shared_.may_direct || shared_.may_direct());
}

Tournaments& Lobby::make_tournaments(TournamentStore& store, FinishedOutcome finished,
                                     TournamentLimits limits) {
  finished_outcome_ = std::move(finished);
  tournaments_ =
      std::make_unique<Tournaments>(store, static_cast<TournamentHost&>(*this), random_, limits);
  return *tournaments_;
}

void Lobby::enter_tournament(const std::shared_ptr<Connection>& c,
                             const protocol::TournamentEntry& t, const json& id) {
  const std::string& player = c->player()->id;
  // In a cluster the director registers them (its answer comes back later, if the client is
  // still there; none at all: the service is away for now).
  if (tournaments_ && shared_.to_director) {
    json op{{"op", "enter"},    {"id", t.tournament},
            {"player", player}, {"name", c->player()->name},
            {"enter", t.enter}, {"account", is_account(player)}};
    const std::weak_ptr<Connection> weak = c;
    if (shared_.to_director(std::move(op), [this, weak, t, id](std::optional<json> answer) {
          const auto conn = weak.lock();
          if (!conn || !conn->player()) return;
          if (!answer || !answer->is_object() || answer->contains("unavailable")) {
            ++counters_.refused["tournament/unavailable"];
            return reply_error(conn, Code::tournament_unavailable,
                               "the tournaments take no change just now; try again", id);
          }
          const auto refused = answer->value("refused", json());
          entered_tournament(
              conn, t, id,
              refused.is_string() ? std::optional(refused.get<std::string>()) : std::nullopt);
        }))
      return;
  }
  if (!tournaments_) return entered_tournament(c, t, id, "tournament/not_found");
  const auto refused = tournaments_->enter(t.tournament, player, c->player()->name, t.enter, now_,
                                           is_account(player));
  // Answered once stored: a registration the player was told of survives a crash.
  const std::weak_ptr<Connection> weak = c;
  tournaments_->after_saved([this, weak, t, id, refused](bool stored) {
    const auto conn = weak.lock();
    if (!conn || !conn->player()) return;
    if (stored) return entered_tournament(conn, t, id, refused);
    ++counters_.refused["tournament/unavailable"];
    reply_error(conn, Code::tournament_unavailable,
                "the tournaments take no change just now; try again", id);
  });
}

void Lobby::entered_tournament(const std::shared_ptr<Connection>& c,
                               const protocol::TournamentEntry& t, const json& id,
                               const std::optional<std::string>& refused) {
  if (!refused) {
    if (t.enter) store_player(c->player()->id);  // a name the standings can show after a restart
    c->send(make_frame(protocol::encode_tournament_entry(id, t.tournament, t.enter)));
    return;
  }
  const Code code = *refused == "tournament/closed"          ? Code::tournament_closed
                    : *refused == "tournament/full"          ? Code::tournament_full
                    : *refused == "tournament/accounts_only" ? Code::tournament_accounts
                                                             : Code::tournament_not_found;
  const char* message = code == Code::tournament_closed ? "registration for this event is over"
                        : code == Code::tournament_full ? "this event has as many players as it may"
                        : code == Code::tournament_accounts
                            ? "this event takes accounts only: sign in (or register)"
                            : "no such tournament";
  ++counters_.refused[std::string(protocol::code_string(code))];
  reply_error(c, code, message, id);
}

std::expected<std::string, std::string> Lobby::open_table(const std::string& game_id,
                                                          const json& options, const json& clock,
                                                          const std::vector<std::string>& players) {
  const rules::Game* game = rules::find_game(game_id);
  if (!game) return std::unexpected("no game " + game_id);
  if (rooms_.size() >= limits_.max_rooms)
    return std::unexpected("the server holds as many rooms as it may");
  protocol::TimeControl control{};
  if (!clock.is_null()) {
    auto tc = protocol::time_control_from_json(clock);
    if (!tc) return std::unexpected(tc.error());
    control = *tc;
  }
  auto secret = fresh_round_secret(random_);
  auto match = Match::start(*game, options, secret, 0);
  if (!match) return std::unexpected("these options do not go together");
  const std::string room_id = new_room_id();
  if (unloaded_.contains(room_id)) return std::unexpected("no room id free");
  if (shared_.take_new && !shared_.take_new(room_id))  // a cluster's: its writes are fenced
    return std::unexpected("the room's lease could not be taken");
  RoomSettings settings = server_settings();
  settings.clock = control;
  settings.reserved = players;
  RoomRecord record{room_id, game_id,      options,     secret.seed, false,
                    0,       now_,         secret.salt, "",          protocol::to_json(control),
                    false,   settings.chat};
  auto room = std::make_shared<Room>(room_id, std::move(*match), settings, store_, now_);
  hold(room);
  for (const auto& p : players) store_player(p);
  store_.create_room(record, [this](bool ok) {
    if (!ok) ++counters_.refused["store/tournament_table_failed"];
  });
  listing_.built = false;
  return room_id;
}

std::vector<bool> Lobby::seated(const std::string& room_id) {
  const auto room = find(room_id);
  if (!room && shared_.seats_elsewhere && tournaments_)
    return shared_.seats_elsewhere(room_id,
                                   static_cast<int>(tournaments_->reserved(room_id).size()));
  if (!room) return {};
  std::vector<bool> out;
  for (const auto& [player, name] : room->seated()) out.push_back(player.has_value());
  return out;
}

void Lobby::close_table(const std::string& room) {
  // In a cluster, a table another node holds is closed there; one nobody holds, here.
  if (shared_.close_elsewhere && !rooms_.contains(room) && !unloaded_.contains(room)) {
    if (shared_.close_elsewhere(room)) return;
    find(room);  // now held here: loaded, to be closed
  }
  close_room(room);
}

bool Lobby::ends_here(const std::string& room) { return !shared_.holds || rooms_.contains(room); }

void Lobby::tell(const std::string& player, const std::string& frame) {
  tell_here(player, frame);
  if (shared_.tell_others) shared_.tell_others(player, frame);
}

void Lobby::tell_here(const std::string& player, const std::string& frame) {
  const auto shared = make_frame(frame);
  for (const auto& [raw, weak] : clients_)
    if (const auto c = weak.lock(); c && c->player() && c->player()->id == player) c->send(shared);
}

std::string Lobby::name_of(const std::string& player) {
  if (accounts_)
    if (const AccountRow* a = accounts_->of_player(player)) return a->name;
  const auto it = players_.find(player);
  return it == players_.end() ? "" : it->second.name;
}

std::optional<json> Lobby::finished_outcome(const std::string& room) {
  return finished_outcome_ ? finished_outcome_(room) : std::nullopt;
}

std::optional<Code> Lobby::chat(const std::shared_ptr<Connection>& c, Room& room,
                                const protocol::Chat& req, const json& id) {
  const std::string& player = c->player()->id;
  if (!limits_.chat) {
    reply_error(c, Code::chat_off, "this server has no chat", id);
    return Code::chat_off;
  }
  if (accounts_ && accounts_->muted(player)) {
    reply_error(c, Code::chat_muted, "the server's host muted your account", id);
    return Code::chat_muted;
  }
  const SteadyTime now{std::chrono::milliseconds(now_)};
  if (!chat_rate_.allow(player, limits_.chat_per_minute, now) ||
      !chat_rate_by_address_.allow(c->address(), 3 * limits_.chat_per_minute, now)) {
    reply_error(c, Code::chat_rate, "you are sending messages too fast; wait a little", id);
    return Code::chat_rate;
  }
  return room.chat(c, req, id);
}

bool Lobby::delete_chat(const std::string& room_id, int seq) {
  const auto room = find(room_id);
  return room && room->delete_chat(seq);
}

void Lobby::rate_round(const Room& room, const json& outcome) {
  if (!room.rated() || !ratings_) return;
  std::vector<std::string> players;
  for (const auto& [player, name] : room.seated()) {
    if (!player || !is_account(*player)) return;  // never: only accounts sit at a rated table
    players.push_back(*player);
  }
  rate_players(std::string(room.game_id()), room.id(), room.round(), players, outcome, now_, 0);
}

void Lobby::rate_players(const std::string& game, const std::string& room, int round,
                         const std::vector<std::string>& players, const json& outcome, Millis at,
                         int tries) {
  // In a cluster, their ratings as stored now: another node may have rated them since. If
  // another rates one of them before this write lands, the write is refused (its rows no longer
  // follow the stored ones) and the game is rated again from the new rows: a few times at most,
  // then it waits for the next start (unrated games are rated then).
  constexpr int kTries = 4;
  if (shared_.before_rating) shared_.before_rating(players);
  ratings_->rate(game, room, round, players, outcome, at,
                 [this, game, room, round, players, outcome, at, tries](bool ok) {
                   if (ok) return;
                   if (shared_.before_rating && tries + 1 < kTries) {
                     ++counters_.refused["store/ratings_conflict"];
                     return rate_players(game, room, round, players, outcome, at, tries + 1);
                   }
                   if (shared_.before_rating) shared_.before_rating(players);  // as stored
                   ++counters_.refused["store/ratings_failed"];
                 });
}

void Lobby::watch_clock(Room& room) {
  const auto at = room.deadline();
  const auto known = deadline_of_.find(room.id());
  if (known == deadline_of_.end() ? !at : at == known->second) return;
  if (known != deadline_of_.end()) {
    deadlines_.erase({known->second, room.id()});
    deadline_of_.erase(known);
  }
  if (!at) return;
  const bool earliest = deadlines_.empty() || *at < deadlines_.begin()->first;
  deadlines_.emplace(*at, room.id());
  deadline_of_[room.id()] = *at;
  if (earliest && wake_) wake_(*at);
}

std::optional<Millis> Lobby::next_deadline() {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

void Lobby::expire(Millis now) {
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const std::string id = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    deadline_of_.erase(id);
    // A correspondence game may have left memory meanwhile: it comes back to lose on time.
    const auto room = find(id);
    if (!room) continue;  // closed, or it cannot be read
    room->flag(now);
    watch_clock(*room);  // a clock that is not due after all (it cannot be) stays watched
  }
}

void Lobby::announce(const std::string& message) {
  const auto frame = make_frame(protocol::encode_announce(message));
  for (const auto& [ptr, weak] : clients_)
    if (const auto c = weak.lock(); c && c->player()) c->send(frame);
}

bool Lobby::close_room(const std::string& id) {
  std::vector<std::optional<std::string>> seated;
  if (const auto u = unloaded_.find(id); u != unloaded_.end()) {
    for (const auto& [p, name] : u->second.seats) seated.push_back(p);
    unloaded_.erase(u);  // nobody is connected to it
  } else {
    const auto it = rooms_.find(id);
    if (it == rooms_.end()) return false;
    for (const auto& [p, name] : it->second->seated()) seated.push_back(p);
    const auto frame = make_frame(
        protocol::encode_error({Code::room_not_found, "the room was closed by the host", nullptr}));
    for (auto& [c, ids] : rooms_of_)
      if (ids.erase(id))
        if (const auto cl = clients_.find(c); cl != clients_.end())
          if (const auto p = cl->second.lock()) p->send(frame);
    rooms_.erase(it);
    room_count_ = rooms_.size();
  }
  forget_room(id, seated);
  store_.unload_room(id);
  // In a cluster the lease goes with the close's write, not before it (the write is fenced).
  closing_.insert(id);
  store_.close_room(id, [this, id](bool) {
    closing_.erase(id);
    released(id);
  });
  listing_.built = false;
  return true;
}

std::vector<std::string> Lobby::close_rooms(const std::optional<std::string>& player,
                                            std::optional<Millis> inactive_ms) {
  std::vector<std::string> chosen;
  if (!player && !inactive_ms) return chosen;
  const auto matches = [&](Millis active, const std::string& creator, auto&& sits) {
    if (inactive_ms && now_ - active <= *inactive_ms) return false;
    return !player || creator == *player || sits(*player);
  };
  for (const auto& [rid, room] : rooms_) {
    const auto c = creator_of_.find(rid);
    if (matches(room->last_activity(), c == creator_of_.end() ? std::string() : c->second,
                [&](const std::string& p) { return room->seat_of(p).has_value(); }))
      chosen.push_back(rid);
  }
  for (const auto& [rid, u] : unloaded_)
    if (matches(u.last_activity, u.creator, [&](const std::string& p) {
          return std::ranges::any_of(u.seats, [&](const auto& s) { return s.first == p; });
        }))
      chosen.push_back(rid);
  for (const auto& rid : chosen) close_room(rid);
  return chosen;
}

void Lobby::evict(const std::string& id) {
  std::vector<std::optional<std::string>> seated;
  std::vector<std::shared_ptr<Connection>> in_room;
  if (const auto it = rooms_.find(id); it != rooms_.end()) {
    for (const auto& [p, name] : it->second->seated()) seated.push_back(p);
    for (auto& [c, ids] : rooms_of_)
      if (ids.erase(id))
        if (const auto cl = clients_.find(c); cl != clients_.end())
          if (auto p = cl->second.lock()) in_room.push_back(std::move(p));
    rooms_.erase(it);
    room_count_ = rooms_.size();
  } else if (const auto u = unloaded_.find(id); u != unloaded_.end()) {
    for (const auto& [p, name] : u->second.seats) seated.push_back(p);
    unloaded_.erase(u);
  } else {
    return;
  }
  forget_room(id, seated);
  store_.unload_room(id);
  if (const auto d = deadline_of_.find(id); d != deadline_of_.end()) {
    deadlines_.erase({d->second, id});
    deadline_of_.erase(d);
  }
  listing_.built = false;
  for (const auto& c : in_room) c->end();
}

void Lobby::adopt(const Player& player, const std::string& token_hash) {
  if (players_.contains(player.id) || bot_level_in(player.id) || token_hash.empty()) return;
  restore_player({player.id, token_hash, player.name, false});
  // Not known to be stored: its row is written (again: an upsert) when the player sits here.
  players_[player.id].stored = false;
}

std::string Lobby::token_hash_of(const std::string& player) const {
  const auto it = players_.find(player);
  if (it == players_.end() || it->second.key == TokenKey{}) return {};
  return to_hex(it->second.key.bytes);
}

void Lobby::rebind(const std::shared_ptr<Connection>& c, const std::string& room_id,
                   std::optional<std::int64_t> held) {
  const auto it = rooms_.find(room_id);
  if (it == rooms_.end() || !c->player()) return;
  auto& mine = rooms_of_[c.get()];
  if (mine.contains(room_id) || !it->second->seat_of(c->player()->id)) return;
  clients_.try_emplace(c.get(), c);
  it->second->rebind(c, held);
  mine.insert(room_id);
}

}  // namespace plateau::server
