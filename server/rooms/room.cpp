#include "server/rooms/room.hpp"

#include <algorithm>

#include "server/secure_random.hpp"
#include <utility>

namespace plateau::server {

using nlohmann::json;
using protocol::Code;

namespace {

Code code_for(rules::RuleError e) {
  switch (e) {
    case rules::RuleError::game_over: return Code::game_over;
    case rules::RuleError::not_your_turn: return Code::not_your_turn;
    case rules::RuleError::illegal_move: return Code::illegal_move;
    case rules::RuleError::bad_option: return Code::bad_option;
  }
  return Code::illegal_move;
}

}  // namespace

Room::Room(std::string id, const rules::Game& game, json options, RoundSecret secret,
           RoomSettings settings, Store& store, Millis now)
    : id_(std::move(id)),
      game_(game),
      options_(std::move(options)),
      secret_(std::move(secret)),
      settings_(settings),
      store_(store),
      now_(now),
      last_activity_(now) {
  if (!settings_.random) settings_.random = secure_random_u64;
  seal_round();
  auto created = game_.create(options_, secret_.seed);
  // The lobby validated the options with the same call; a refusal here is a broken invariant.
  state_ = created ? std::move(*created) : nullptr;
  if (!state_) {
    failed_ = true;
    state_ = std::move(*rules::find_game("quantik")->create({}, 0));
  }
  seats_.resize(static_cast<std::size_t>(state_->num_seats()));
  rematch_.assign(seats_.size(), false);
  if (settings_.spectator_delay > 0) spectator_state_ = state_->clone();
}

void Room::ensure_views() {
  // Built on first use, not when a room is made or rebuilt: a restart rebuilds every unfinished
  // room, and most wait for their players long after.
  if (!seen_.empty()) return;
  seen_ = current_views();
}

std::shared_ptr<Room> Room::restore(const StoredRoom& stored, const rules::Game& game,
                                    const std::vector<std::string>& seat_names, Store& store,
                                    Millis now, RoomSettings settings, std::string& why) {
  settings.is_private = stored.room.is_private;
  settings.spectator_delay = stored.room.spectator_delay;
  auto room = std::make_shared<Room>(stored.room.id, game, stored.room.options,
                                     RoundSecret{stored.room.seed, stored.room.salt}, settings, store, now);
  if (room->failed_) {
    why = "its options are refused by the rules";
    return nullptr;
  }
  for (std::size_t i = 0; i < stored.rounds.size(); ++i) {
    const auto& r = stored.rounds[i];
    if (r.round != static_cast<int>(i) + 1) {
      why = "round numbers are not consecutive";
      return nullptr;
    }
    auto created = game.create(r.options, r.seed);
    if (!created) {
      why = "round " + std::to_string(r.round) + ": options refused";
      return nullptr;
    }
    room->state_ = std::move(*created);
    room->options_ = r.options;
    room->secret_ = RoundSecret{r.seed, r.salt};
    room->seal_round();
    room->round_ = r.round;
    room->moves_.clear();
    for (const auto& [seat, text] : r.moves) {
      const auto ok = room->state_->apply(seat, rules::Move{text});
      if (!ok) {
        why = "round " + std::to_string(r.round) + ", move " + std::to_string(room->moves_.size()) +
              " (" + text + " by seat " + std::to_string(seat) + "): " +
              std::string(rules::error_code(ok.error()));
        return nullptr;
      }
      room->moves_.emplace_back(seat, text);
    }
    if (!r.outcome.is_null() && room->state_->outcome() &&
        rules::to_json(*room->state_->outcome()) != r.outcome) {
      why = "round " + std::to_string(r.round) + ": the replayed outcome differs from the stored one";
      return nullptr;
    }
  }
  // A seat is stored when it is first taken, so a table still waiting for players stores fewer
  // seats than it has (none at all, before anyone sits down). More than it has is a broken log.
  if (stored.seats.size() > room->seats_.size()) {
    why = "more seats stored than the game has";
    return nullptr;
  }
  bool all = stored.seats.size() == room->seats_.size();
  for (std::size_t s = 0; s < stored.seats.size(); ++s) {
    room->seats_[s].player_id = stored.seats[s];
    if (stored.seats[s] && s < seat_names.size()) room->seats_[s].name = seat_names[s];
    all = all && stored.seats[s].has_value();
  }
  room->started_ = all || room->round_ > 1 || !room->moves_.empty();
  // The last round's rematch requests: only an ended round has any, and only from its seats.
  if (const auto asked = stored.rounds.empty() ? 0u : stored.rounds.back().rematch; asked != 0) {
    if (!room->state_->is_over()) {
      why = "rematch requests stored for a round that is not over";
      return nullptr;
    }
    for (std::size_t s = 0; s < 32; ++s) {
      if (!(asked >> s & 1u)) continue;
      if (s >= room->rematch_.size()) {
        why = "a rematch request stored for seat " + std::to_string(s) + ", which the game does not have";
        return nullptr;
      }
      room->rematch_[s] = true;
    }
  }
  if (room->settings_.spectator_delay > 0) {
    room->spectator_state_ = game.create(room->options_, room->secret_.seed).value();
    const auto shown = room->state_->is_over()
                           ? room->moves_.size()
                           : room->moves_.size() -
                                 std::min(room->moves_.size(),
                                          static_cast<std::size_t>(room->settings_.spectator_delay));
    for (std::size_t i = 0; i < shown; ++i)
      (void)room->spectator_state_->apply(room->moves_[i].first, rules::Move{room->moves_[i].second});
  }
  // The restart is itself a change (every seat is now away): it takes a version of its own, so
  // no client can mistake the rebuilt room for a version it saw before.
  room->version_ = stored.version + 1;
  room->seen_.clear();
  return room;
}

protocol::Status Room::status() const {
  if (!started_) return protocol::Status::waiting;
  return state_->is_over() ? protocol::Status::over : protocol::Status::playing;
}

bool Room::idle() const {
  if (!outbox_.empty() || !spectators_.empty()) return false;
  return std::ranges::all_of(seats_, [](const SeatSlot& s) { return s.conns.empty() && !s.shown_connected; });
}

std::optional<rules::Seat> Room::seat_of(const std::string& player_id) const {
  for (std::size_t s = 0; s < seats_.size(); ++s)
    if (seats_[s].player_id == player_id) return static_cast<rules::Seat>(s);
  return std::nullopt;
}

std::vector<std::pair<std::optional<std::string>, std::string>> Room::seated() const {
  std::vector<std::pair<std::optional<std::string>, std::string>> out;
  for (const auto& s : seats_) out.emplace_back(s.player_id, s.player_id ? s.name : std::string());
  return out;
}

std::optional<rules::Seat> Room::viewer_of(int audience) const {
  if (audience == spectator_audience()) return std::nullopt;
  return audience;
}

std::vector<protocol::SeatInfo> Room::seat_infos() const {
  std::vector<protocol::SeatInfo> infos;
  for (const auto& s : seats_) {
    protocol::SeatInfo info;
    if (s.player_id) info.name = s.name;
    info.connected = s.shown_connected;
    infos.push_back(std::move(info));
  }
  return infos;
}

void Room::advance_spectator_state() {
  if (!spectator_state_) return;
  if (state_->is_over()) {
    spectator_state_ = state_->clone();  // the game is over: nothing is left to protect
    return;
  }
  const auto delay = static_cast<std::size_t>(settings_.spectator_delay);
  if (moves_.size() > delay) {
    const auto& [seat, text] = moves_[moves_.size() - 1 - delay];
    (void)spectator_state_->apply(seat, rules::Move{text});
  }
}

bool Room::board_is_private(int a, bool delayed, bool shared) const {
  const auto& previous = seen_[static_cast<std::size_t>(a)];
  if (previous.round != round_ || previous.delayed != delayed || !previous.board) return false;
  long holders = 0;
  for (int b = 0; b < audiences(); ++b) {
    const bool holds = seen_[static_cast<std::size_t>(b)].board == previous.board;
    // Audience b will see this board (a's own, or its state's shared one): it must hold it,
    // and no other audience may, since they would see it change under them.
    const bool will_see = b == a || (shared && (b == spectator_audience() && spectator_state_) == delayed);
    if (holds != will_see) return false;
    holders += holds;
  }
  return previous.board.use_count() == holders;  // nothing but seen_ holds it
}

std::vector<Room::Seen> Room::current_views() {
  const auto infos = seat_infos();
  std::vector<Seen> views(static_cast<std::size_t>(audiences()));
  // At most two states are shown (the game, and the spectators' delayed copy); each builds one
  // board for all its viewers unless its game shows viewers different boards.
  std::optional<int> shared[2];  // the audience whose board the others of its state share
  for (int a = 0; a < audiences(); ++a) {
    const bool delayed = a == spectator_audience() && spectator_state_;
    const rules::State& st = delayed ? *spectator_state_ : *state_;
    protocol::RoomFacts facts;
    facts.game = game_.id();
    facts.status = !started_ ? protocol::Status::waiting
                             : (st.is_over() ? protocol::Status::over : protocol::Status::playing);
    facts.seats = &infos;
    facts.rematch = &rematch_;
    facts.round = round_;
    facts.fairness = st.is_over() ? revealed_ : sealed_;
    auto& v = views[static_cast<std::size_t>(a)];
    v.envelope = protocol::make_envelope(facts, st, viewer_of(a));
    v.board_generation = state_generation_;
    const auto previous = static_cast<std::size_t>(a) < seen_.size() ? &seen_[static_cast<std::size_t>(a)] : nullptr;
    // Takes the board of `from`, but not its operations: they led to a version already sent.
    const auto take_board = [&v](const Seen& from, bool with_ops) {
      v.board = from.board;
      v.fixed = from.fixed;
      v.round = from.round;
      v.delayed = from.delayed;
      v.shown = from.shown;
      if (with_ops) v.board_ops = from.board_ops;
    };
    if (previous && previous->board_generation == state_generation_) {
      take_board(*previous, false);  // nothing that shows on a board changed
      continue;
    }
    const bool per_viewer = st.view_depends_on_viewer();
    if (!per_viewer && shared[delayed]) {
      take_board(views[static_cast<std::size_t>(*shared[delayed])], true);
      continue;
    }
    v.fixed = st.fixed_view();
    v.round = round_;
    v.delayed = delayed;
    const auto viewer = per_viewer ? viewer_of(a) : std::nullopt;
    if (previous && previous->fixed == v.fixed && board_is_private(a, delayed, !per_viewer)) {
      rules::State::ViewUpdate update;
      const bool updated = previous->shown ? st.update_view_since(*previous->shown, *previous->board, viewer, update)
                                           : st.update_view(*previous->board, viewer, update);
      if (updated) {
        std::string ops;
        protocol::append_view_update(ops, *previous->board, std::move(update), "/board");
        v.board = previous->board;
        v.board_ops = std::make_shared<const std::string>(std::move(ops));
      }
    }
    if (!v.board) v.board = std::make_shared<json>(st.changing_view(viewer));
    if (st.compares_shown_state()) v.shown = st.clone();
    if (!per_viewer) shared[delayed] = a;
  }
  return views;
}

std::uint64_t Room::publish() {
  ++version_;
  last_activity_ = now_;
  Outgoing out{version_, false, {}, {}};
  auto next = current_views();
  // Board diffs computed so far: audiences that saw the same board and now see the same board
  // get the same operations.
  struct BoardDiff {
    const json* from;
    const json* to;
    std::string ops;
  };
  std::vector<BoardDiff> board_diffs;
  for (int a = 0; a < audiences(); ++a) {
    const auto& before = seen_[static_cast<std::size_t>(a)];
    const auto& after = next[static_cast<std::size_t>(a)];
    std::string ops = "[";
    protocol::append_envelope_diff(ops, before.envelope, after.envelope);
    if (after.board_ops) {  // brought up to date in place: the operations are already written
      if (!after.board_ops->empty()) {
        if (ops.size() > 1) ops += ',';
        ops += *after.board_ops;
      }
    } else if (before.board != after.board) {
      auto it = std::ranges::find_if(board_diffs, [&](const BoardDiff& d) {
        return d.from == before.board.get() && d.to == after.board.get();
      });
      if (it == board_diffs.end()) {
        std::string board_ops;
        if (before.fixed == after.fixed)  // the same object: nothing in it changed
          protocol::append_diff(board_ops, *before.board, *after.board, "/board");
        else  // a new round whose fixed part may differ
          protocol::append_diff(board_ops, before.complete_board(), after.complete_board(), "/board");
        board_diffs.push_back({before.board.get(), after.board.get(), std::move(board_ops)});
        it = board_diffs.end() - 1;
      }
      if (!it->ops.empty()) {
        if (ops.size() > 1) ops += ',';
        ops += it->ops;
      }
    }
    ops += ']';
    out.audience_frames.emplace_back(a, make_frame(protocol::encode_patch_text(id_, version_, ops)));
  }
  retire(std::exchange(seen_, std::move(next)));
  outbox_.push_back(std::move(out));
  return outbox_base_ + outbox_.size() - 1;
}

void Room::retire(std::vector<Seen>&& views) {
  if (!reaper_) return;  // freed by the caller
  // A board or position several audiences shared is handed over by the last of them to let go.
  const auto let_go = [this](auto& held) {
    if (held.use_count() == 1) reaper_->retire(std::move(held));
    held.reset();
  };
  for (auto& v : views) {
    let_go(v.board);
    let_go(v.fixed);
    let_go(v.shown);
  }
}

void Room::retire(std::unique_ptr<rules::State> state) {
  if (reaper_ && state) reaper_->retire(std::shared_ptr<const rules::State>(std::move(state)));
}

void Room::send_direct(const std::shared_ptr<Participant>& p, Frame f) {
  if (outbox_.empty()) {
    p->send(f);  // nothing is waiting: no need to queue
    return;
  }
  Outgoing out{0, true, {}, {}};
  out.direct.emplace_back(p, std::move(f));
  outbox_.push_back(std::move(out));
}

void Room::send_full(const std::shared_ptr<Participant>& p, const json& id) {
  const int a = audience_of(p.get());
  full_version_[p.get()] = version_;
  const auto& seen = seen_[static_cast<std::size_t>(a)];
  send_direct(p, make_frame(protocol::encode_full(id, id_, version_, protocol::assemble_state(seen.envelope, seen.complete_board()))));
}

void Room::flush() {
  while (!outbox_.empty() && outbox_.front().durable) {
    Outgoing out = std::move(outbox_.front());
    outbox_.pop_front();
    ++outbox_base_;
    for (const auto& [a, frame] : out.audience_frames) {
      if (a == spectator_audience()) keep(spectators_missed_, out.version, frame);
      else if (seats_[a].conns.empty()) keep(seats_[a].missed, out.version, frame);
      const auto& conns = a == spectator_audience() ? spectators_ : seats_[a].conns;
      for (const auto& p : conns) {
        const auto it = full_version_.find(p.get());
        if (it == full_version_.end() || it->second < out.version) p->send(frame);
      }
    }
    for (const auto& [p, frame] : out.direct) p->send(frame);
    if (out.move_started >= 0 && move_timer_) move_timer_->finish(out.move_started);
  }
}

void Room::keep(std::optional<Kept>& kept, std::int64_t version, const Frame& frame) const {
  if (!kept) return;
  if (version != kept->last() + 1 || kept->frames.size() >= settings_.keep.frames ||
      kept->bytes + frame->size() > settings_.keep.bytes) {
    kept.reset();  // whoever comes back gets the whole state
    return;
  }
  kept->frames.push_back(frame);
  kept->bytes += frame->size();
}

void Room::send_kept(Participant& p, const Kept& kept, std::int64_t held) {
  for (auto i = static_cast<std::size_t>(held - kept.after); i < kept.frames.size(); ++i) p.send(kept.frames[i]);
}

std::int64_t Room::sent_version() const {
  // Patches still in the outbox go out (and to whatever keeps them) as they are written.
  const auto next = std::ranges::find_if(outbox_, [](const Outgoing& o) { return o.version > 0; });
  return next == outbox_.end() ? version_ : next->version - 1;
}

Done Room::durable_done(std::uint64_t entry) {
  return [weak = weak_from_this(), entry](bool ok) {
    const auto self = weak.lock();
    if (!self) return;
    if (!ok) {
      self->fail_room();
      return;
    }
    if (entry < self->outbox_base_) return;
    self->outbox_[entry - self->outbox_base_].durable = true;
    self->flush();
  };
}

void Room::fail_room() {
  if (failed_) return;
  failed_ = true;
  // Changes not yet durable are not announced: they are not promised to anyone.
  outbox_.clear();
  const auto frame = make_frame(protocol::encode_error(
      {Code::store_unavailable,
       "the server could not save the last change, so it was not made; this room takes no more moves until the "
       "server restarts",
       nullptr}));
  for (const auto& s : seats_)
    for (const auto& p : s.conns) p->send(frame);
  for (const auto& p : spectators_) p->send(frame);
}

int Room::audience_of(Participant* p) const {
  const auto it = places_.find(p);
  return it == places_.end() ? -1 : it->second.audience;
}

void Room::add_spectator(const std::shared_ptr<Participant>& p) {
  places_[p.get()] = Place{spectator_audience(), spectators_.size()};
  spectators_.push_back(p);
  crowd_changed_ = true;
}

void Room::remove_spectator(Participant* p) {
  const auto it = places_.find(p);
  const std::size_t i = it->second.index;
  // The last spectator takes the leaver's place: the order of an audience does not matter.
  if (i + 1 != spectators_.size()) {
    spectators_[i] = std::move(spectators_.back());
    places_[spectators_[i].get()].index = i;
  }
  spectators_.pop_back();
  places_.erase(it);
  crowd_changed_ = true;
}

Code Room::error(const std::shared_ptr<Participant>& p, Code code, std::string message, const json& id) {
  p->send(make_frame(protocol::encode_error({code, std::move(message), id})));
  return code;
}

std::optional<Code> Room::join(const std::shared_ptr<Participant>& p, const protocol::Join& req, const json& id) {
  ensure_views();
  const Player* player = p->player();
  if (failed_) return error(p, Code::room_unavailable, "this room is out of service", id);
  last_activity_ = now_;
  const int current = audience_of(p.get());
  if (req.spectator) {
    if (current >= 0 && current != spectator_audience())
      return error(p, Code::seat_taken, "this connection sits at seat " + std::to_string(current), id);
    // Watching again from a version the room kept every spectator patch since: those patches
    // go straight to the connection, ahead of any the outbox still holds (as for a seat below).
    const bool resumed = current < 0 && req.version && spectators_missed_ && spectators_missed_->covers(*req.version);
    if (current < 0) {
      if (spectators_.size() >= settings_.max_spectators)
        return error(p, Code::full_audience,
                     "this room has " + std::to_string(spectators_.size()) + " spectators, as many as it may", id);
      // The others learn the new count at the next tick; the joiner now.
      add_spectator(p);
      const auto crowd = make_frame(protocol::encode_crowd(id_, spectators()));
      if (resumed) {
        p->send(make_frame(protocol::encode_joined(id, id_, std::nullopt)));
        send_kept(*p, *spectators_missed_, *req.version);
        send_direct(p, crowd);
        return std::nullopt;
      }
      send_direct(p, crowd);
    }
    send_direct(p, make_frame(protocol::encode_joined(id, id_, std::nullopt)));
    send_full(p, nullptr);
    return std::nullopt;
  }
  if (current == spectator_audience())
    return error(p, Code::seat_taken, "leave as a spectator before taking a seat", id);
  const auto mine = player ? seat_of(player->id) : std::nullopt;
  if (mine) {
    if (req.seat && *req.seat != *mine)
      return error(p, Code::seat_taken, "you already sit at seat " + std::to_string(*mine), id);
    auto& slot = seats_[*mine];
    // Back with a version from which the seat kept every patch: they go on from it, with the
    // version that shows them back (kept too if the store has written it already, else sent to
    // this connection once written), unless that one was too many to keep.
    const bool resumable = current < 0 && req.version && slot.conns.empty() && slot.missed && slot.missed->covers(*req.version);
    // Shown back before this connection is at the seat: the whole state then holds the version
    // that shows it, so the player can move against it at once. (A store that completes at
    // once sends that version as it is made; a connection at the seat would get it ahead of
    // its `joined`.)
    show_present(slot, player->name);
    const bool resumed = resumable && slot.missed;
    if (current < 0) {
      places_[p.get()] = Place{*mine, 0};
      slot.conns.push_back(p);
    }
    if (resumed) {
      // Every missed patch has gone out to the others already, so these go straight to the
      // connection, ahead of any the outbox still holds.
      p->send(make_frame(protocol::encode_joined(id, id_, *mine)));
      send_kept(*p, *slot.missed, *req.version);
    } else {
      send_direct(p, make_frame(protocol::encode_joined(id, id_, *mine)));
      send_full(p, nullptr);
    }
    slot.missed.reset();
    send_direct(p, make_frame(protocol::encode_crowd(id_, spectators())));
    flush();
    return std::nullopt;
  }
  int seat = -1;
  if (req.seat) {
    if (*req.seat >= static_cast<int>(seats_.size()))
      return error(p, Code::no_such_seat,
                   "this table has " + std::to_string(seats_.size()) + " seats, numbered from 0", id);
    if (seats_[*req.seat].player_id)
      return error(p, Code::seat_taken, "seat " + std::to_string(*req.seat) + " is taken", id);
    seat = *req.seat;
  } else {
    for (std::size_t s = 0; s < seats_.size() && seat < 0; ++s)
      if (!seats_[s].player_id) seat = static_cast<int>(s);
    if (seat < 0) return error(p, Code::room_full, "every seat is taken; join as a spectator", id);
  }
  auto& slot = seats_[seat];
  slot.player_id = player->id;
  slot.name = player->name;
  slot.conns = {p};
  places_[p.get()] = Place{seat, 0};
  slot.shown_connected = true;
  started_ = started_ || std::ranges::all_of(seats_, [](const SeatSlot& s) { return s.player_id.has_value(); });
  const auto entry = publish();
  // The reply and the full queue behind the seat's write; the joiner is marked as holding this
  // version before the store can complete, so the patch to it is skipped, not sent twice.
  send_direct(p, make_frame(protocol::encode_joined(id, id_, seat)));
  send_full(p, nullptr);
  send_direct(p, make_frame(protocol::encode_crowd(id_, spectators())));
  store_.put_seat(id_, seat, player->id, version_, durable_done(entry));
  flush();
  return std::nullopt;
}

std::optional<Code> Room::move(const std::shared_ptr<Participant>& p, const protocol::MoveRequest& req,
                               const json& id) {
  const std::int64_t started = move_timer_ ? move_timer_->start() : -1;
  ensure_views();
  if (failed_) return error(p, Code::store_unavailable, "the store could not save this room; it takes no more moves", id);
  const int a = audience_of(p.get());
  if (a < 0 || a == spectator_audience())
    return error(p, Code::not_a_player, "only a seated player may move", id);
  if (!started_) return error(p, Code::not_started, "the game starts when every seat is taken", id);
  if (req.version != version_)
    return error(p, Code::stale_version,
                 "move made against version " + std::to_string(req.version) + "; the room is at " +
                     std::to_string(version_),
                 id);
  const auto ok = state_->apply(a, rules::Move{req.move});
  if (!ok) return error(p, code_for(ok.error()), std::string(rules::error_message(ok.error())), id);
  moves_.emplace_back(a, req.move);
  ++state_generation_;
  advance_spectator_state();
  const auto entry = publish();
  outbox_.back().move_started = started;
  const bool over = state_->is_over();
  store_.append_move(MoveRecord{id_, round_, static_cast<int>(moves_.size()) - 1, a, req.move, version_, now_},
                     over ? Done([weak = weak_from_this()](bool written) {
                       if (!written)
                         if (auto self = weak.lock()) self->fail_room();
                     })
                          : durable_done(entry));
  if (over) store_.finish_round(id_, round_, rules::to_json(*state_->outcome()), now_, durable_done(entry));
  flush();
  return std::nullopt;
}

std::optional<Code> Room::sync(const std::shared_ptr<Participant>& p, const json& id) {
  ensure_views();
  if (audience_of(p.get()) < 0)
    return error(p, Code::not_in_room, "join the room before asking for its state", id);
  send_full(p, id);
  flush();
  return std::nullopt;
}

std::optional<Code> Room::leave(const std::shared_ptr<Participant>& p, const json& id) {
  ensure_views();
  const int a = audience_of(p.get());
  if (a < 0) return error(p, Code::not_in_room, "you are not in this room", id);
  if (a == spectator_audience()) {
    drop(p.get(), false);  // a spectator who leaves is not coming back to this copy
  } else if (!started_) {
    // Before the game starts, leaving gives the seat back.
    auto& slot = seats_[a];
    for (const auto& c : slot.conns) places_.erase(c.get());
    slot = SeatSlot{};
    full_version_.erase(p.get());
    const auto entry = publish();
    store_.put_seat(id_, a, std::nullopt, version_, durable_done(entry));
  } else {
    disconnect(p.get());  // once it started, the seat stays its player's
  }
  send_direct(p, make_frame(protocol::encode_left(id, id_)));
  flush();
  return std::nullopt;
}

void Room::disconnect(Participant* p) { drop(p, true); }

void Room::drop(Participant* p, bool may_return) {
  ensure_views();
  full_version_.erase(p);
  const int a = audience_of(p);
  if (a < 0) return;
  if (a == spectator_audience()) {
    remove_spectator(p);  // the others learn the new count at the next tick
    // Kept from the earliest drop: a later one holds a version it covers too.
    if (may_return && !spectators_missed_) spectators_missed_ = Kept{sent_version(), {}, 0};
    return;
  }
  places_.erase(p);
  {
    auto& slot = seats_[static_cast<std::size_t>(a)];
    const auto it = std::ranges::find_if(slot.conns, [&](const auto& c) { return c.get() == p; });
    if (it == slot.conns.end()) return;
    slot.conns.erase(it);
    if (slot.conns.empty()) {
      slot.missed = Kept{sent_version(), {}, 0};
      slot.away_since = now_;
      if (settings_.grace_ms <= 0) show_away(slot);
    }
    return;
  }
}

void Room::rebind(const std::shared_ptr<Participant>& p, std::optional<std::int64_t> held) {
  const Player* player = p->player();
  const auto seat = player ? seat_of(player->id) : std::nullopt;
  if (!seat) return;
  if (audience_of(p.get()) < 0) {
    (void)join(p, protocol::Join{id_, false, std::nullopt, held}, nullptr);
    return;
  }
  // Already here: a hello again, perhaps under another name.
  if (failed_) return;
  ensure_views();
  show_present(seats_[static_cast<std::size_t>(*seat)], player->name);
  flush();
}

void Room::show_present(SeatSlot& slot, const std::string& name) {
  if (slot.shown_connected && slot.name == name) return;
  slot.shown_connected = true;
  slot.name = name;
  publish_table();
}

std::optional<Code> Room::rematch(const std::shared_ptr<Participant>& p, const json& id) {
  ensure_views();
  const int a = audience_of(p.get());
  if (a < 0 || a == spectator_audience())
    return error(p, Code::not_a_player, "only a seated player may ask for a rematch", id);
  if (!state_->is_over()) return error(p, Code::rematch_not_over, "the game is not over", id);
  if (rematch_[a]) return std::nullopt;
  rematch_[a] = true;
  // The last request starts the next round at once, and the table goes straight to it in one
  // patch: a version showing every flag set on the old board would be outdated as it left,
  // and would cost every connection a frame.
  if (std::ranges::all_of(rematch_, [](bool b) { return b; })) start_next_round();
  else publish_table();
  flush();
  return std::nullopt;
}

void Room::publish_table() {
  std::uint32_t asked = 0;
  for (std::size_t s = 0; s < rematch_.size(); ++s)
    if (rematch_[s]) asked |= 1u << s;
  const auto entry = publish();
  store_.put_table(id_, round_, asked, version_, durable_done(entry));
}

void Room::start_next_round() {
  const auto outcome = *state_->outcome();
  auto options = game_.rematch_options(options_, outcome);
  // A fresh seed from the CSPRNG: nothing revealed about the round just ended (its seed is
  // now public) tells anything about this one.
  auto secret = fresh_round_secret(settings_.random);
  auto created = game_.create(options, secret.seed);
  if (!created) {
    fail_room();
    return;
  }
  ++round_;
  options_ = std::move(options);
  secret_ = std::move(secret);
  seal_round();
  retire(std::exchange(state_, std::move(*created)));
  ++state_generation_;
  moves_.clear();
  rematch_.assign(seats_.size(), false);
  if (spectator_state_) retire(std::exchange(spectator_state_, state_->clone()));
  const auto entry = publish();
  store_.start_round(id_, round_, options_, secret_.seed, secret_.salt, version_, durable_done(entry));
}

void Room::seal_round() {
  sealed_ = fairness_of(secret_, false);
  revealed_ = fairness_of(secret_, true);
}

void Room::show_away(SeatSlot& slot) {
  ensure_views();
  if (!slot.shown_connected) return;
  slot.shown_connected = false;
  publish_table();
  flush();
}

void Room::tick(Millis now) {
  now_ = now;
  if (crowd_changed_) {
    crowd_changed_ = false;
    const auto crowd = make_frame(protocol::encode_crowd(id_, spectators()));
    for (const auto& s : seats_)
      for (const auto& c : s.conns) c->send(crowd);
    for (const auto& c : spectators_) c->send(crowd);
  }
  for (auto& slot : seats_)
    if (slot.player_id && slot.conns.empty() && slot.shown_connected &&
        now_ - slot.away_since >= settings_.grace_ms)
      show_away(slot);
}

json Room::summary() const {
  json seats = json::array();
  for (std::size_t s = 0; s < seats_.size(); ++s)
    seats.push_back({{"seat", s},
                     {"name", seats_[s].player_id ? json(seats_[s].name) : json(nullptr)},
                     {"connected", !seats_[s].conns.empty()}});
  return json{{"room", id_},          {"game", game_.id()},
              {"seats", seats},       {"status", protocol::status_string(status())},
              {"spectators", spectators()}, {"round", round_},
              {"private", settings_.is_private}};
}

}  // namespace plateau::server
