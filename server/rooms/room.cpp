#include "server/rooms/room.hpp"

#include <algorithm>
#include <utility>

#include "protocol/rule_errors.hpp"
#include "server/secure_random.hpp"

namespace plateau::server {

using nlohmann::json;
using protocol::Code;

Room::Room(std::string id, Match match, RoomSettings settings, Store& store, Millis now)
    : id_(std::move(id)),
      match_(std::move(match)),
      settings_(std::move(settings)),
      store_(store),
      table_(match_.state().num_seats()),
      views_(table_.audiences()),
      outbox_(table_.audiences(), settings_.keep),
      now_(now),
      last_activity_(now) {
  if (!settings_.random) settings_.random = secure_random_u64;
  if (settings_.clock.timed()) clock_.emplace(settings_.clock, table_.seats());
  stand_ins_.resize(static_cast<std::size_t>(table_.seats()));
}

std::shared_ptr<Room> Room::restore(const StoredRoom& stored, const rules::Game& game,
                                    const std::vector<std::string>& seat_names, Store& store,
                                    Millis now, RoomSettings settings, std::string& why) {
  settings.is_private = stored.room.is_private;
  settings.spectator_delay = stored.room.spectator_delay;
  settings.rated = stored.room.rated;
  settings.chat = stored.room.chat;
  const auto clock = protocol::time_control_from_json(stored.room.clock);
  if (!clock) {
    why = "its time control is not one: " + clock.error();
    return nullptr;
  }
  settings.clock = *clock;
  auto match = Match::restore(game, stored);
  if (!match) {
    why = match.error();
    return nullptr;
  }
  auto room =
      std::make_shared<Room>(stored.room.id, std::move(*match), std::move(settings), store, now);
  auto& table = room->table_;
  // A seat is stored when it is first taken, so a table still waiting for players stores fewer
  // seats than it has (none at all, before anyone sits down). More than it has is a broken log.
  const auto seats = static_cast<std::size_t>(table.seats());
  if (stored.seats.size() > seats) {
    why = "more seats stored than the game has";
    return nullptr;
  }
  bool all = stored.seats.size() == seats;
  for (std::size_t s = 0; s < stored.seats.size(); ++s) {
    const auto& player = stored.seats[s];
    table.restore_seat(static_cast<int>(s), player,
                       player && s < seat_names.size() ? seat_names[s] : "");
    // Away from the restart on, not before: nobody is gone for the time the server was.
    table.set_away_since(static_cast<int>(s), room->time());
    all = all && player.has_value();
  }
  table.set_started(all || room->round() > 1 || !room->match_.moves().empty());
  room->chat_ = stored.chat;
  // A draw offered or a takeback asked in the round in play stands if no move was made since.
  if (table.started() && !room->match_.over() && !stored.rounds.empty())
    if (const auto offer = Table::offer_from_stored(stored.rounds.back().offer,
                                                    room->match_.moves().size(), table.seats());
        offer && (offer->kind == Table::Offer::Kind::takeback || seats == 2))
      table.make_offer(*offer);
  // The last round's rematch requests: only an ended round has any, and only from its seats.
  if (const auto asked = stored.rounds.empty() ? 0u : stored.rounds.back().rematch; asked != 0) {
    if (!room->match_.over()) {
      why = "rematch requests stored for a round that is not over";
      return nullptr;
    }
    for (std::size_t s = 0; s < 32; ++s) {
      if (!(asked >> s & 1u)) continue;
      if (s >= seats) {
        why = "a rematch request stored for seat " + std::to_string(s) +
              ", which the game does not have";
        return nullptr;
      }
      table.ask_rematch(static_cast<int>(s));
    }
  }
  // The clocks as the last stored change left them. A live clock resumes with that time: the
  // time the server was down is not charged. A correspondence deadline is a date: one that
  // passed meanwhile flags at once.
  if (auto& clock = room->clock_; clock && !stored.rounds.empty()) {
    const auto& last = stored.rounds.back();
    for (std::size_t i = 0; i < last.moves.size() && i < last.clocks.size(); ++i)
      if (last.clocks[i]) clock->set_left(last.moves[i].first, *last.clocks[i]);
    // Nobody's clock runs while a bot plays for a player who left.
    if (table.started() && !room->match_.over() &&
        !room->match_.has_left(*room->state().to_move())) {
      const int seat = *room->state().to_move();
      const Millis t = room->time();
      if (clock->control().kind == protocol::TimeControl::Kind::correspondence &&
          !last.moves.empty())
        clock->set_left(seat, last.last_move_ms + clock->control().per_move_ms() - t);
      clock->start(seat, t);
    }
  }
  // Bots play again for those who left the round in play.
  if (!room->match_.over())
    for (const auto& d : room->match_.departed()) room->seat_stand_in(d.seat);
  // The restart is itself a change (every seat is now away): it takes a version of its own, so
  // no client can mistake the rebuilt room for a version it saw before.
  room->version_ = stored.version + 1;
  return room;
}

void Room::time_moves(const SpanTimer* timer) {
  move_timer_ = timer;
  outbox_.time_moves(timer);
}

void Room::free_with(Reaper* reaper) {
  match_.free_with(reaper);
  views_.free_with(reaper);
}

protocol::Status Room::status() const {
  if (!table_.started()) return protocol::Status::waiting;
  return match_.over() ? protocol::Status::over : protocol::Status::playing;
}

bool Room::idle() const { return outbox_.empty() && table_.deserted(); }

Scene Room::scene(const std::vector<protocol::SeatInfo>& seats) const {
  return Scene{game().id(),         table_.started(),       &seats,
               &table_.rematch(),   match_.round(),         &match_.state(),
               match_.delayed(),    match_.fairness(false), match_.fairness(true),
               match_.generation(), match_.line(),          match_.shared_options(),
               match_.ended(),      table_.offer_json(),    clock_ ? clock_->view() : json(),
               gone_json(),         departed_json(),        settings_.rated,
               chat_views().first,  chat_views().second};
}

void Room::ensure_views() {
  if (views_.built()) return;
  const auto seats = table_.seat_infos();
  views_.build(scene(seats));
}

std::uint64_t Room::publish(std::int64_t move_started) {
  ++version_;
  last_activity_ = now_;
  const auto seats = table_.seat_infos();
  return outbox_.hold(version_, views_.advance(scene(seats), id_, version_), move_started);
}

void Room::publish_table() {
  const auto entry = publish();
  store_.put_table(id_, round(), table_.rematch_bits(), table_.stored_offer(), departed_json(),
                   version_, durable_done(entry));
}

json Room::departed_json() const {
  return match_.departed().empty() ? json() : protocol::to_json(match_.departed());
}

Done Room::must_write() {
  return [weak = weak_from_this()](bool written) {
    if (!written)
      if (auto self = weak.lock()) self->fail_room();
  };
}

Done Room::durable_done(std::uint64_t entry) {
  return [weak = weak_from_this(), entry](bool ok) {
    const auto self = weak.lock();
    if (!self) return;
    if (!ok) {
      self->fail_room();
      return;
    }
    if (self->outbox_.release(entry)) self->flush();
  };
}

void Room::send_full(const std::shared_ptr<Connection>& p, const json& id) {
  outbox_.holds_whole(p.get(), version_);
  const auto state = views_.state_of(table_.audience_of(p.get()));
  outbox_.send(p, make_frame(protocol::encode_full(id, id_, version_, state, time())));
}

void Room::fail_room() {
  if (failed_) return;
  failed_ = true;
  // Changes not yet durable are not announced: they are not promised to anyone.
  outbox_.clear();
  table_.send_all(
      make_frame(protocol::encode_error({Code::store_unavailable,
                                         "the server could not save the last change, so it was not "
                                         "made; this room takes no more moves until the "
                                         "server restarts",
                                         nullptr})));
}

Code Room::error(const std::shared_ptr<Connection>& p, Code code, std::string message,
                 const json& id) {
  p->send(make_frame(protocol::encode_error({code, std::move(message), id})));
  return code;
}

std::optional<Code> Room::join(const std::shared_ptr<Connection>& p, const protocol::Join& req,
                               const json& id) {
  ensure_views();
  const Player* player = p->player();
  if (failed_) return error(p, Code::room_unavailable, "this room is out of service", id);
  last_activity_ = now_;
  const int current = table_.audience_of(p.get());
  const int watchers = table_.spectator_audience();
  if (req.spectator) {
    if (current >= 0 && current != watchers)
      return error(p, Code::seat_taken, "this connection sits at seat " + std::to_string(current),
                   id);
    // Watching again from a version the room kept every spectator patch since: those patches
    // go straight to the connection, ahead of any the outbox still holds (as for a seat below).
    const bool resumed = current < 0 && req.version && outbox_.covers(watchers, *req.version);
    if (current < 0) {
      if (static_cast<std::size_t>(spectators()) >= settings_.max_spectators)
        return error(
            p, Code::full_audience,
            "this room has " + std::to_string(spectators()) + " spectators, as many as it may", id);
      // The others learn the new count at the next tick; the joiner now.
      table_.add_spectator(p);
      const auto crowd = make_frame(protocol::encode_crowd(id_, spectators()));
      if (resumed) {
        p->send(make_frame(protocol::encode_joined(id, id_, std::nullopt)));
        outbox_.send_kept(*p, watchers, *req.version);
        outbox_.send(p, crowd);
        return std::nullopt;
      }
      outbox_.send(p, crowd);
    }
    outbox_.send(p, make_frame(protocol::encode_joined(id, id_, std::nullopt)));
    send_full(p, nullptr);
    return std::nullopt;
  }
  if (current == watchers)
    return error(p, Code::seat_taken, "leave as a spectator before taking a seat", id);
  if (const auto mine = player ? table_.seat_of(player->id) : std::nullopt) {
    if (req.seat && *req.seat != *mine)
      return error(p, Code::seat_taken, "you already sit at seat " + std::to_string(*mine), id);
    // Back with a version from which the seat kept every patch: they go on from it, with the
    // version that shows them back (kept too if the store has written it already, else sent to
    // this connection once written), unless that one was too many to keep.
    const bool resumable = current < 0 && req.version && !table_.has_connections(*mine) &&
                           outbox_.covers(*mine, *req.version);
    // Shown back before this connection is at the seat: the whole state then holds the version
    // that shows it, so the player can move against it at once. (A store that completes at
    // once sends that version as it is made; a connection at the seat would get it ahead of
    // its `joined`.)
    show_present(*mine, player->name);
    const bool resumed = resumable && outbox_.keeping(*mine);
    if (current < 0) table_.attach(*mine, p);
    if (resumed) {
      // Every missed patch has gone out to the others already, so these go straight to the
      // connection, ahead of any the outbox still holds.
      p->send(make_frame(protocol::encode_joined(id, id_, *mine)));
      outbox_.send_kept(*p, *mine, *req.version);
    } else {
      outbox_.send(p, make_frame(protocol::encode_joined(id, id_, *mine)));
      send_full(p, nullptr);
    }
    outbox_.stop_keeping(*mine);
    outbox_.send(p, make_frame(protocol::encode_crowd(id_, spectators())));
    flush();
    return std::nullopt;
  }
  const auto seat = free_seat(p, req.seat, id);
  if (!seat) return seat.error();
  table_.sit(*seat, *player, p);
  start_clock();
  const auto entry = publish();
  // The reply and the full queue behind the seat's write; the joiner is marked as holding this
  // version before the store can complete, so the patch to it is skipped, not sent twice.
  outbox_.send(p, make_frame(protocol::encode_joined(id, id_, *seat)));
  send_full(p, nullptr);
  outbox_.send(p, make_frame(protocol::encode_crowd(id_, spectators())));
  store_.put_seat(id_, *seat, player->id, version_, durable_done(entry));
  flush();
  return std::nullopt;
}

std::expected<int, Code> Room::free_seat(const std::shared_ptr<Connection>& p,
                                         std::optional<int> wanted, const json& id) {
  if (!settings_.reserved.empty()) {
    // A tournament's table: each player to their own seat, nobody else anywhere.
    const Player* player = p->player();
    const auto mine =
        player ? std::ranges::find(settings_.reserved, player->id) : settings_.reserved.end();
    const int seat = static_cast<int>(mine - settings_.reserved.begin());
    if (mine == settings_.reserved.end() || (wanted && *wanted != seat))
      return std::unexpected(error(p, Code::seat_reserved,
                                   mine == settings_.reserved.end()
                                       ? "this table's seats are reserved for a tournament's "
                                         "players; join as a spectator"
                                       : "your seat at this table is seat " + std::to_string(seat),
                                   id));
    return seat;
  }
  if (wanted) {
    if (*wanted >= table_.seats())
      return std::unexpected(error(
          p, Code::no_such_seat,
          "this table has " + std::to_string(table_.seats()) + " seats, numbered from 0", id));
    if (table_.player_at(*wanted))
      return std::unexpected(
          error(p, Code::seat_taken, "seat " + std::to_string(*wanted) + " is taken", id));
    return *wanted;
  }
  if (const auto free = table_.first_free_seat()) return *free;
  return std::unexpected(error(p, Code::room_full, "every seat is taken; join as a spectator", id));
}

std::optional<Code> Room::add_bot(const std::shared_ptr<Connection>& p,
                                  const std::shared_ptr<Connection>& bot, std::optional<int> wanted,
                                  const json& id) {
  ensure_views();
  if (failed_) return error(p, Code::room_unavailable, "this room is out of service", id);
  if (table_.started())
    return error(p, Code::bot_started, "the game has started: bots sit only at a waiting table",
                 id);
  if (!settings_.reserved.empty())
    return error(p, Code::seat_reserved, "a tournament's seats are for its players, not bots", id);
  const auto seat = free_seat(p, wanted, id);
  if (!seat) return seat.error();
  last_activity_ = now_;
  table_.sit(*seat, *bot->player(), bot);
  start_clock();
  const auto entry = publish();
  // The bot sees this version as the others do (its patch), and moves once it is durable.
  outbox_.send(p, make_frame(protocol::encode_bot_added(
                      id, id_, *seat, bot_level_in(bot->player()->id).value_or(""))));
  store_.put_seat(id_, *seat, bot->player()->id, version_, durable_done(entry));
  flush();
  return std::nullopt;
}

std::optional<Code> Room::remove_bot(const std::shared_ptr<Connection>& p, int seat,
                                     const json& id) {
  ensure_views();
  if (failed_) return error(p, Code::room_unavailable, "this room is out of service", id);
  if (table_.started())
    return error(p, Code::bot_started, "the game has started: its bots play it to the end", id);
  if (seat >= table_.seats())
    return error(p, Code::no_such_seat,
                 "this table has " + std::to_string(table_.seats()) + " seats, numbered from 0",
                 id);
  const auto& player = table_.player_at(seat);
  if (!player || !bot_level_in(*player))
    return error(p, Code::bot_none, "no bot sits at seat " + std::to_string(seat), id);
  last_activity_ = now_;
  const std::string bot_id = *player;  // the seat is freed below
  // The bot's connection leaves with its seat; it looks no more.
  for (const auto& bot : table_.connections(seat)) outbox_.forget(bot.get());
  table_.free_seat(seat);
  outbox_.stop_keeping(seat);
  const auto entry = publish();
  store_.put_seat(id_, seat, std::nullopt, version_, durable_done(entry));
  // Its player row goes too (after the seat: a row with a stored seat is kept): a table where
  // bots come and go leaves no trace of them.
  store_.forget_players({bot_id}, [](bool) {});
  flush();
  return std::nullopt;
}

std::optional<Code> Room::move(const std::shared_ptr<Connection>& p,
                               const protocol::MoveRequest& req, const json& id) {
  const std::int64_t started = move_timer_ ? move_timer_->start() : -1;
  ensure_views();
  if (failed_)
    return error(p, Code::store_unavailable,
                 "the store could not save this room; it takes no more moves", id);
  const int a = table_.audience_of(p.get());
  if (a < 0 || a == table_.spectator_audience())
    return error(p, Code::not_a_player, "only a seated player may move", id);
  if (!table_.started())
    return error(p, Code::not_started, "the game starts when every seat is taken", id);
  // A seat whose player left is played by its bot alone.
  const bool standing_in = match_.has_left(a);
  if (standing_in && stand_ins_[static_cast<std::size_t>(a)].get() != p.get())
    return error(p, Code::left_round, "you left this round; a bot plays your seat", id);
  const Millis t = time();
  if (const auto running = clock_ ? clock_->running() : std::nullopt;
      flag_if_due(t) && running == a)
    return error(p, Code::move_flagged, "your time ran out before this move came", id);
  if (req.version != version_)
    return error(p, Code::stale_version,
                 "move made against version " + std::to_string(req.version) + "; the room is at " +
                     std::to_string(version_),
                 id);
  if (const auto ok = match_.play(a, req.move); !ok)
    return error(p, protocol::code_for(ok.error()), std::string(rules::error_message(ok.error())),
                 id);
  table_.clear_offer();  // a move declines the draw offered (the stored one lapses with it)
  const bool over = match_.over();
  std::optional<Millis> left;
  if (clock_) {
    // Nobody's clock runs while a bot plays for a player who left, and it spends none.
    auto next = over ? std::nullopt : state().to_move();
    if (next && match_.has_left(*next)) next.reset();
    if (standing_in) {
      clock_->hand_to(next, t);
    } else {
      const Millis credit = std::clamp<Millis>(p->lag_ms(), 0, settings_.max_lag_credit_ms);
      clock_->moved(a, t, credit, next);
      left = clock_->left(a, t);
    }
  }
  const auto entry = publish(started);
  store_.append_move(MoveRecord{id_, round(), static_cast<int>(match_.moves().size()) - 1, a,
                                req.move, version_, t, left},
                     over ? must_write() : durable_done(entry));
  if (over)
    finish_round(match_.ended() ? *match_.ended() : rules::to_json(*state().outcome()),
                 durable_done(entry));
  flush();
  return std::nullopt;
}

std::optional<Code> Room::sync(const std::shared_ptr<Connection>& p, const json& id) {
  ensure_views();
  if (table_.audience_of(p.get()) < 0)
    return error(p, Code::not_in_room, "join the room before asking for its state", id);
  send_full(p, id);
  flush();
  return std::nullopt;
}

std::optional<Code> Room::leave(const std::shared_ptr<Connection>& p, const json& id) {
  ensure_views();
  const int a = table_.audience_of(p.get());
  if (a < 0) return error(p, Code::not_in_room, "you are not in this room", id);
  if (a == table_.spectator_audience()) {
    drop(p.get(), false);  // a spectator who leaves is not coming back to this copy
  } else if (!table_.started()) {
    // Before the game starts, leaving gives the seat back.
    table_.free_seat(a);
    outbox_.stop_keeping(a);
    outbox_.forget(p.get());
    const auto entry = publish();
    store_.put_seat(id_, a, std::nullopt, version_, durable_done(entry));
  } else {
    disconnect(p.get());  // once it started, the seat stays its player's
  }
  outbox_.send(p, make_frame(protocol::encode_left(id, id_)));
  flush();
  return std::nullopt;
}

void Room::disconnect(Connection* p) { drop(p, true); }

void Room::drop(Connection* p, bool may_return) {
  ensure_views();
  outbox_.forget(p);
  const int a = table_.audience_of(p);
  if (a < 0) return;
  if (a == table_.spectator_audience()) {
    table_.remove_spectator(p);  // the others learn the new count at the next tick
    // Kept from the earliest drop: a later one holds a version it covers too.
    if (may_return && !outbox_.keeping(a)) outbox_.keep_from(a, outbox_.sent_version(version_));
    return;
  }
  if (!table_.detach(a, p, time())) return;  // the seat has other connections
  outbox_.keep_from(a, outbox_.sent_version(version_));
  if (settings_.grace_ms <= 0) show_away(a);
}

void Room::rebind(const std::shared_ptr<Connection>& p, std::optional<std::int64_t> held) {
  const Player* player = p->player();
  const auto seat = player ? seat_of(player->id) : std::nullopt;
  if (!seat) return;
  if (table_.audience_of(p.get()) < 0) {
    (void)join(p, protocol::Join{id_, false, std::nullopt, held}, nullptr);
    return;
  }
  // Already here: a hello again, perhaps under another name.
  if (failed_) return;
  ensure_views();
  show_present(*seat, player->name);
  flush();
}

void Room::show_present(int seat, const std::string& name) {
  if (table_.show_present(seat, name)) publish_table();
}

void Room::show_away(int seat) {
  ensure_views();
  if (!table_.show_away(seat)) return;
  publish_table();
  flush();
}

std::optional<Code> Room::rematch(const std::shared_ptr<Connection>& p, const json& id) {
  ensure_views();
  const int a = table_.audience_of(p.get());
  if (a < 0 || a == table_.spectator_audience())
    return error(p, Code::not_a_player, "only a seated player may ask for a rematch", id);
  if (!match_.over()) return error(p, Code::rematch_not_over, "the game is not over", id);
  if (!settings_.reserved.empty())
    return error(p, Code::seat_reserved, "a tournament's game is played once: no rematch", id);
  if (!table_.ask_rematch(a)) return std::nullopt;
  // The last request starts the next round at once, and the table goes straight to it in one
  // patch: a version showing every flag set on the old board would be outdated as it left,
  // and would cost every connection a frame.
  if (table_.everyone_asked())
    start_next_round();
  else
    publish_table();
  flush();
  return std::nullopt;
}

std::expected<int, Code> Room::playing_seat(const std::shared_ptr<Connection>& p,
                                            std::string_view what, const json& id) {
  ensure_views();
  if (failed_)
    return std::unexpected(error(p, Code::store_unavailable,
                                 "the store could not save this room; it takes no more changes",
                                 id));
  const int a = table_.audience_of(p.get());
  if (a < 0 || a == table_.spectator_audience())
    return std::unexpected(
        error(p, Code::not_a_player, "only a seated player may " + std::string(what), id));
  if (!table_.started())
    return std::unexpected(
        error(p, Code::not_started, "the game starts when every seat is taken", id));
  flag_if_due(time());
  if (match_.over()) return std::unexpected(error(p, Code::game_over, "the game is over", id));
  if (match_.has_left(a))
    return std::unexpected(
        error(p, Code::left_round, "you left this round; a bot plays your seat", id));
  return a;
}

void Room::end_round(const protocol::Ending& ending) {
  match_.end(ending);
  if (clock_) clock_->stop(std::min(time(), clock_->flag_at().value_or(time())));
  table_.clear_offer();
  const auto entry = publish();
  finish_round(*match_.ended(), durable_done(entry));
}

std::pair<std::shared_ptr<const json>, std::shared_ptr<const json>> Room::chat_views() const {
  const bool over = status() == protocol::Status::over;
  auto& c = chat_cache_;
  if (c.generation != chat_generation_ || c.round != round() || c.over != over) {
    json players = json::array(), spectators = json::array();
    for (const auto& m : chat_) {
      json line{{"seq", m.seq},     {"channel", m.spectators ? "spectators" : "players"},
                {"name", m.name},   {"at", m.at_ms},
                {"round", m.round}, {"move", m.at_move}};
      if (m.deleted)
        line["deleted"] = true;
      else if (!m.phrase.empty())
        line["phrase"] = m.phrase;
      else
        line["text"] = m.text;
      // The spectators hear the players once the round they spoke in is over.
      if (m.spectators || m.round < round() || over) spectators.push_back(line);
      if (!m.spectators) players.push_back(std::move(line));
    }
    c = ChatCache{chat_generation_, round(), over, std::make_shared<const json>(std::move(players)),
                  std::make_shared<const json>(std::move(spectators))};
  }
  return {c.players, c.spectators};
}

std::optional<Code> Room::chat(const std::shared_ptr<Connection>& p, const protocol::Chat& req,
                               const json& id) {
  ensure_views();
  const int a = table_.audience_of(p.get());
  if (a < 0) return error(p, Code::not_in_room, "join the room to chat", id);
  if (!settings_.chat) return error(p, Code::chat_off, "this table has no chat", id);
  if (!req.text.empty())
    if (const auto why = protocol::chat_refusal(req.text, settings_.chat_chars); !why.empty())
      return error(p, Code::chat_text, "the message " + std::string(why), id);
  if (chat_.size() >= settings_.max_chat)
    return error(p, Code::chat_full, "this table's chat is full", id);
  ChatRecord m;
  m.room = id_;
  m.seq = chat_.empty() ? 1 : chat_.back().seq + 1;
  m.round = round();
  m.at_move = static_cast<int>(match_.moves().size());
  m.spectators = a == table_.spectator_audience();
  m.player = p->player()->id;
  m.name = p->player()->name;
  m.text = req.text;
  m.phrase = req.phrase;
  m.at_ms = time();
  chat_.push_back(m);
  ++chat_generation_;
  const auto entry = publish();
  m.version = version_;
  store_.append_chat(m, durable_done(entry));
  flush();
  return std::nullopt;
}

bool Room::delete_chat(int seq) {
  const auto it = std::ranges::find_if(chat_, [&](const ChatRecord& m) { return m.seq == seq; });
  if (it == chat_.end()) return false;
  if (it->deleted) return true;
  ensure_views();
  it->deleted = true;
  it->text.clear();
  it->phrase.clear();
  ++chat_generation_;
  const auto entry = publish();
  store_.delete_chat(id_, seq, version_, durable_done(entry));
  flush();
  return true;
}

void Room::finish_round(const json& outcome, Done done) {
  store_.finish_round(id_, round(), outcome, now_, std::move(done));
  // After the round's own write: whatever the hook writes (ratings) comes after it.
  if (settings_.round_ended) settings_.round_ended(*this, outcome);
}

void Room::depart(int seat, protocol::EndKind kind) {
  const auto name = seat_name(seat);
  if (table_.seats() == 2) {
    end_round(kind == protocol::EndKind::flagged     ? protocol::flagged(seat, name)
              : kind == protocol::EndKind::abandoned ? protocol::abandoned(seat, name)
                                                     : protocol::resignation(seat, name));
    return;
  }
  const Millis t = time();
  const Millis stop_at = clock_ ? std::min(t, clock_->flag_at().value_or(t)) : t;
  if (clock_ && clock_->running() == seat) clock_->stop(stop_at);
  const bool ended =
      match_.leave(protocol::departure(kind, seat, name, match_.moves().size(), state().scores()));
  if (ended) {
    // The last but one left: the last one wins, stored as any end of a round.
    if (clock_) clock_->stop(stop_at);
    const auto entry = publish();
    store_.put_table(id_, round(), table_.rematch_bits(), nullptr, departed_json(), version_,
                     must_write());
    finish_round(*match_.ended(), durable_done(entry));
    return;
  }
  seat_stand_in(seat);
  publish_table();
}

void Room::seat_stand_in(int seat) {
  auto& bot = stand_ins_[static_cast<std::size_t>(seat)];
  if (bot || !settings_.stand_in) return;
  bot = settings_.stand_in(shared_from_this(), seat);
  table_.attach(seat, bot);
  // It looks at the game at once (every frame it is sent makes it look).
  outbox_.send(bot, make_frame(protocol::encode_crowd(id_, spectators())));
}

std::optional<Code> Room::resign(const std::shared_ptr<Connection>& p, const json& id) {
  const auto seat = playing_seat(p, "resign", id);
  if (!seat) return seat.error();
  if (!may_depart())
    return error(p, Code::resign_many_seats,
                 "this server runs no bots to play for a player who leaves a game of more than "
                 "two seats",
                 id);
  depart(*seat, protocol::EndKind::resigned);
  flush();
  return std::nullopt;
}

std::optional<Code> Room::draw(const std::shared_ptr<Connection>& p, protocol::DrawAction action,
                               const json& id) {
  const auto seat = playing_seat(p, "offer or answer a draw", id);
  if (!seat) return seat.error();
  if (table_.seats() != 2)
    return error(p, Code::draw_two_seats, "a draw is agreed in games of two seats only", id);
  const auto& standing = table_.offer();
  if (standing && standing->kind != Table::Offer::Kind::draw) {
    if (action == protocol::DrawAction::offer)
      return error(p, Code::offer_pending, "a takeback is asked: answer it first", id);
    return error(p, Code::draw_no_offer, "no draw is offered to you", id);
  }
  const auto& offer = standing;
  const bool theirs = offer && offer->by != *seat;
  switch (action) {
    case protocol::DrawAction::offer:
      if (offer && !theirs)
        return error(p, Code::draw_offered, "you have offered a draw already", id);
      if (theirs) {  // both want it: agreed
        end_round(protocol::agreed_draw(*seat));
        break;
      }
      table_.make_offer({Table::Offer::Kind::draw, *seat, match_.moves().size()});
      publish_table();
      break;
    case protocol::DrawAction::accept:
      if (!theirs) return error(p, Code::draw_no_offer, "no draw is offered to you", id);
      end_round(protocol::agreed_draw(*seat));
      break;
    case protocol::DrawAction::decline:
      if (!theirs) return error(p, Code::draw_no_offer, "no draw is offered to you", id);
      table_.clear_offer();
      publish_table();
      break;
  }
  flush();
  return std::nullopt;
}

std::optional<Code> Room::takeback(const std::shared_ptr<Connection>& p,
                                   protocol::DrawAction action, const json& id) {
  const auto seat = playing_seat(p, "ask for or answer a takeback", id);
  if (!seat) return seat.error();
  if (!game().info().takeback)
    return error(p, Code::takeback_game,
                 "a move of " + game().info().name +
                     " cannot be taken back: it draws or hides something a takeback would undo",
                 id);
  if (clock_)
    return error(p, Code::takeback_timed, "takebacks are for casual tables, without a clock", id);
  const auto& offer = table_.offer();
  const bool asked = offer && offer->kind == Table::Offer::Kind::takeback;
  if (action == protocol::DrawAction::offer) {
    if (offer)
      return error(p, Code::offer_pending,
                   asked && offer->by == *seat ? "you have asked for a takeback already"
                                               : "an offer stands: answer it first",
                   id);
    const auto& moves = match_.moves();
    const auto mine = std::ranges::find_if(moves.rbegin(), moves.rend(),
                                           [&](const auto& m) { return m.first == *seat; });
    if (mine == moves.rend())
      return error(p, Code::takeback_nothing, "you have made no move to take back in this round",
                   id);
    const auto to = static_cast<std::size_t>(moves.rend() - mine) - 1;
    table_.make_offer(
        {Table::Offer::Kind::takeback, *seat, moves.size(), to, std::uint32_t{1} << *seat});
    publish_table();
    flush();
    return std::nullopt;
  }
  if (!asked || offer->by == *seat ||
      (action == protocol::DrawAction::accept && (offer->accepted >> *seat & 1u) != 0))
    return error(p, Code::takeback_none, "no takeback is asked of you", id);
  if (action == protocol::DrawAction::decline) {
    table_.clear_offer();
    publish_table();
    flush();
    return std::nullopt;
  }
  table_.accept_offer(*seat);
  if (takeback_agreed())
    take_back(table_.offer()->to);
  else
    publish_table();
  flush();
  return std::nullopt;
}

bool Room::takeback_agreed() const {
  const auto& offer = table_.offer();
  if (!offer || offer->kind != Table::Offer::Kind::takeback) return false;
  for (int s = 0; s < table_.seats(); ++s)
    if (!(offer->accepted >> s & 1u) && !match_.has_left(s)) return false;
  return true;
}

bool Room::takeback_asked_of(int seat) const {
  const auto& offer = table_.offer();
  return offer && offer->kind == Table::Offer::Kind::takeback && offer->by != seat &&
         !(offer->accepted >> seat & 1u) && !match_.over();
}

void Room::take_back(std::size_t to) {
  if (!match_.take_back(to)) {
    fail_room();
    return;
  }
  table_.clear_offer();
  const auto entry = publish();
  store_.take_back(id_, round(), static_cast<int>(to), version_, durable_done(entry));
}

std::string Room::seat_name(int seat) const {
  auto name = table_.seated()[static_cast<std::size_t>(seat)].second;
  return name.empty() ? "Seat " + std::to_string(seat + 1) : name;
}

json Room::gone_json() const {
  if (!table_.started() || match_.over() || !may_depart()) return nullptr;
  // A correspondence game's clock says when a player is gone.
  if (clock_ && clock_->control().kind == protocol::TimeControl::Kind::correspondence)
    return nullptr;
  const auto mover = state().to_move();
  if (!mover || match_.has_left(*mover) || table_.has_connections(*mover) ||
      table_.shown_connected(*mover))
    return nullptr;
  const Millis since = table_.away_since(*mover);
  return json{{"seat", *mover}, {"since", since}, {"claim_at", since + settings_.gone_ms}};
}

std::optional<Code> Room::claim(const std::shared_ptr<Connection>& p, const json& id) {
  const auto seat = playing_seat(p, "claim the win", id);
  if (!seat) return seat.error();
  if (!may_depart())
    return error(p, Code::claim_many_seats,
                 "this server runs no bots to play for a player dropped from a game of more than "
                 "two seats",
                 id);
  const json gone = gone_json();
  if (gone.is_null()) return error(p, Code::claim_not_gone, "the player to move is not gone", id);
  if (const Millis at = gone["claim_at"]; time() < at)
    return error(p, Code::claim_not_gone,
                 "the player to move has been gone less than " +
                     std::to_string(settings_.gone_ms / 1000) + " s; wait " +
                     std::to_string((at - time() + 999) / 1000) + " s more",
                 id);
  depart(gone["seat"].get<int>(), protocol::EndKind::abandoned);
  flush();
  return std::nullopt;
}

void Room::start_clock() {
  if (clock_ && !clock_->running() && table_.started() && !match_.over())
    clock_->start(*state().to_move(), time());
}

bool Room::flag_if_due(Millis now) {
  const auto at = deadline();
  if (!at || now < *at) return false;
  depart(*clock_->running(), protocol::EndKind::flagged);
  flush();
  return true;
}

void Room::flag(Millis now) {
  ensure_views();
  if (!failed_) flag_if_due(now);
}

std::optional<Millis> Room::deadline() const {
  if (!clock_ || match_.over()) return std::nullopt;
  return clock_->flag_at();
}

bool Room::live_clock_running() const {
  return clock_ && clock_->control().kind == protocol::TimeControl::Kind::live && deadline();
}

void Room::start_next_round() {
  if (!match_.next_round(settings_.random)) {
    fail_room();
    return;
  }
  table_.clear_rematch();
  // The bots that played for those who left go: the seats are their players' again.
  for (auto& bot : stand_ins_)
    if (bot) drop(std::exchange(bot, nullptr).get(), false);
  if (clock_) {
    clock_.emplace(settings_.clock, table_.seats());
    start_clock();
  }
  const auto entry = publish();
  const auto& secret = match_.secret();
  store_.start_round(id_, round(), match_.options(), secret.seed, secret.salt, version_,
                     durable_done(entry));
}

void Room::tick(Millis now) {
  now_ = now;
  // One `crowd` per tick however many came and went, not one to everyone per arrival.
  if (table_.take_crowd_change())
    table_.send_all(make_frame(protocol::encode_crowd(id_, spectators())));
  for (const int seat : table_.overdue(now_, settings_.grace_ms)) show_away(seat);
}

json Room::summary() const {
  return json{{"room", id_},
              {"game", game().id()},
              {"seats", table_.summary()},
              {"status", protocol::status_string(status())},
              {"spectators", spectators()},
              {"round", round()},
              {"private", settings_.is_private},
              {"clock", protocol::to_json(settings_.clock)},
              {"rated", settings_.rated}};
}

}  // namespace plateau::server
