#include "server/tournaments/tournaments.hpp"

#include <algorithm>

#include "protocol/messages.hpp"
#include "protocol/time_control.hpp"
#include "rules/game.hpp"
#include "server/ratings/ratings.hpp"
#include "server/secure_random.hpp"

namespace plateau::server {

using nlohmann::json;
using tournaments::Format;

namespace {

constexpr std::size_t kMaxName = 60;

std::string_view format_name(Format f) {
  switch (f) {
    case Format::round_robin:
      return "round_robin";
    case Format::seated:
      return "seated";
    case Format::swiss:
      break;
  }
  return "swiss";
}

std::optional<Format> format_named(std::string_view s) {
  if (s == "swiss") return Format::swiss;
  if (s == "round_robin") return Format::round_robin;
  if (s == "seated") return Format::seated;
  return std::nullopt;
}

TournamentError bad(std::string message) { return {"tournament/bad_request", std::move(message)}; }

}  // namespace

Tournaments::Tournaments(TournamentStore& store, TournamentHost& host, Random random,
                         TournamentLimits limits)
    : store_(store), host_(host), random_(std::move(random)), limits_(limits) {}

std::string_view Tournaments::status_name(Status s) {
  switch (s) {
    case Status::running:
      return "running";
    case Status::finished:
      return "finished";
    case Status::cancelled:
      return "cancelled";
    case Status::registering:
      break;
  }
  return "registering";
}

// ---------- the stored document ----------

json Tournaments::to_doc(const Event& e) const {
  json entries = json::array(), tables = json::array(), byes = json::array(),
       schedule = json::array();
  for (const auto& en : e.entries) entries.push_back({{"player", en.player}, {"name", en.name}});
  for (const auto& t : e.tables)
    tables.push_back({{"round", t.round},
                      {"room", t.room},
                      {"seats", t.seats},
                      {"points", t.points ? json(*t.points) : json(nullptr)},
                      {"forfeit", t.forfeit}});
  for (const auto& b : e.byes)
    byes.push_back({{"round", b.round}, {"player", b.player}, {"points", b.points}});
  for (const auto& r : e.schedule) {
    json round = json::array();
    for (const auto& t : r.tables) round.push_back(t.seats);
    schedule.push_back({{"tables", std::move(round)}, {"byes", r.byes}});
  }
  const TournamentSpec& s = e.spec;
  return {{"id", e.id},
          {"name", s.name},
          {"game", s.game},
          {"options", s.options},
          {"clock", s.clock},
          {"format", format_name(s.format)},
          {"rounds", s.rounds},
          {"twice", s.twice},
          {"starts", s.starts_ms},
          {"no_show_ms", s.no_show_ms},
          {"organiser", s.organiser},
          {"accounts_only", s.accounts_only},
          {"status", status_name(e.status)},
          {"seats", e.seats},
          {"created", e.created_ms},
          {"entries", std::move(entries)},
          {"round", e.round},
          {"round_started", e.round_started_ms},
          {"tables", std::move(tables)},
          {"byes", std::move(byes)},
          {"schedule", std::move(schedule)},
          {"note", e.note}};
}

std::expected<Tournaments::Event, std::string> Tournaments::from_doc(const json& j) {
  try {
    Event e;
    e.id = j.at("id").get<std::string>();
    TournamentSpec& s = e.spec;
    s.name = j.at("name").get<std::string>();
    s.game = j.at("game").get<std::string>();
    s.options = j.at("options");
    s.clock = j.at("clock");
    const auto format = format_named(j.at("format").get<std::string>());
    if (!format) return std::unexpected("unknown format");
    s.format = *format;
    s.rounds = j.at("rounds").get<int>();
    s.twice = j.at("twice").get<bool>();
    s.starts_ms = j.at("starts").get<TournamentMillis>();
    s.no_show_ms = j.at("no_show_ms").get<TournamentMillis>();
    s.organiser = j.at("organiser").get<std::string>();
    s.accounts_only = j.value("accounts_only", false);
    const auto status = j.at("status").get<std::string>();
    e.status = status == "running"     ? Status::running
               : status == "finished"  ? Status::finished
               : status == "cancelled" ? Status::cancelled
                                       : Status::registering;
    e.seats = j.at("seats").get<int>();
    e.created_ms = j.at("created").get<TournamentMillis>();
    for (const auto& en : j.at("entries"))
      e.entries.push_back({en.at("player").get<std::string>(), en.at("name").get<std::string>()});
    e.round = j.at("round").get<int>();
    e.round_started_ms = j.at("round_started").get<TournamentMillis>();
    for (const auto& t : j.at("tables")) {
      Table table{t.at("round").get<int>(), t.at("room").get<std::string>(),
                  t.at("seats").get<std::vector<std::string>>(), std::nullopt,
                  t.at("forfeit").get<std::vector<bool>>()};
      if (!t.at("points").is_null()) table.points = t.at("points").get<std::vector<double>>();
      e.tables.push_back(std::move(table));
    }
    for (const auto& b : j.at("byes"))
      e.byes.push_back({b.at("round").get<int>(), b.at("player").get<std::string>(),
                        b.at("points").get<double>()});
    for (const auto& r : j.at("schedule")) {
      tournaments::Round round;
      for (const auto& t : r.at("tables"))
        round.tables.push_back({t.get<std::vector<std::string>>()});
      round.byes = r.at("byes").get<std::vector<std::string>>();
      e.schedule.push_back(std::move(round));
    }
    e.note = j.at("note").get<std::string>();
    return e;
  } catch (const json::exception& ex) {
    return std::unexpected(std::string(ex.what()));
  }
}

void Tournaments::save(const Event& e, TournamentMillis now) {
  ++saves_made_;
  store_.put_tournament({e.id, to_doc(e).dump()}, now, [this](bool stored) {
    ++saves_settled_;
    if (!stored) save_failed_ = saves_settled_;
    settle_saves();
  });
}

void Tournaments::after_saved(std::function<void(bool stored)> fn) {
  save_waiters_.push_back({saves_made_, saves_settled_, std::move(fn)});
  settle_saves();
}

void Tournaments::settle_saves() {
  while (!save_waiters_.empty() && save_waiters_.front().made <= saves_settled_) {
    auto w = std::move(save_waiters_.front());
    save_waiters_.pop_front();
    w.fn(save_failed_ <= w.settled);  // none of the writes it waited for failed
  }
}

std::expected<void, std::string> Tournaments::restore(const LoadedTournaments& loaded) {
  for (const auto& d : loaded.tournaments) {
    const json j = json::parse(d.doc, nullptr, /*allow_exceptions=*/false);
    auto e = from_doc(j);
    if (!e) return std::unexpected("tournament " + d.id + ": " + e.error());
    for (const auto& t : e->tables)
      if (!t.room.empty()) event_of_room_[t.room] = e->id;
    events_[e->id] = std::move(*e);
  }
  organisers_.insert(loaded.organisers.begin(), loaded.organisers.end());
  return {};
}

std::expected<void, std::string> Tournaments::reload(const LoadedTournaments& loaded) {
  events_.clear();
  event_of_room_.clear();
  organisers_.clear();
  return restore(loaded);
}

std::expected<void, std::string> Tournaments::refresh(const std::string& id,
                                                      const std::string& doc) {
  if (const auto it = events_.find(id); it != events_.end()) {
    for (const auto& t : it->second.tables) event_of_room_.erase(t.room);
    events_.erase(it);
  }
  if (doc.empty()) return {};
  return restore(LoadedTournaments{.tournaments = {{id, doc}}, .organisers = {}});
}

bool Tournaments::open_table(const std::string& room) const {
  const auto it = event_of_room_.find(room);
  if (it == event_of_room_.end()) return false;
  const auto e = events_.find(it->second);
  if (e == events_.end() || e->second.status != Status::running) return false;
  return std::ranges::any_of(e->second.tables, [&](const Table& t) {
    return t.room == room && t.round == e->second.round && !t.points;
  });
}

void Tournaments::check_ended(const std::string& room, TournamentMillis now) {
  if (!directing_ || !open_table(room)) return;
  if (const auto outcome = host_.finished_outcome(room)) round_ended(room, 1, *outcome, now);
}

void Tournaments::poll_ended(TournamentMillis now) {
  constexpr TournamentMillis kPollMs = 5'000;
  if (now - polled_ms_ < kPollMs) return;
  polled_ms_ = now;
  std::vector<std::string> elsewhere;
  for (const auto& [id, e] : events_) {
    if (e.status != Status::running) continue;
    for (const auto& t : e.tables)
      if (t.round == e.round && !t.points && !t.room.empty() && !host_.ends_here(t.room))
        elsewhere.push_back(t.room);
  }
  for (const auto& room : elsewhere) check_ended(room, now);
}

void Tournaments::resume(TournamentMillis now) {
  if (!directing_) return;
  for (auto& [id, e] : events_) {
    if (e.status != Status::running) continue;
    e.no_show_from = now;
    bool changed = false;
    for (auto& t : e.tables)
      if (t.round == e.round && !t.points && !t.room.empty())
        if (const auto outcome = host_.finished_outcome(t.room)) {
          score(t, *outcome);
          changed = true;
        }
    if (changed) {
      save(e, now);
      advance(e, now);
    }
  }
}

// ---------- setting up ----------

std::expected<std::string, TournamentError> Tournaments::create(TournamentSpec spec,
                                                                TournamentMillis now) {
  std::size_t open = 0;
  for (const auto& [id, e] : events_)
    if (e.status == Status::registering || e.status == Status::running) ++open;
  if (open >= limits_.max_events)
    return std::unexpected(
        TournamentError{"tournament/too_many", "the server holds as many open events as it may"});
  if (spec.name.empty() || utf8_chars(spec.name) > kMaxName || spec.name.front() == ' ' ||
      spec.name.back() == ' ' ||
      std::ranges::any_of(spec.name, [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return std::unexpected(bad("a name of 1 to 60 characters, without spaces at its ends"));
  const rules::Game* game = rules::find_game(spec.game);
  if (!game) return std::unexpected(bad("no such game"));
  // Seat 0 moves first at every table, so that seat balance is also first-move balance.
  const bool has_first = std::ranges::any_of(game->options(), [](const rules::OptionSpec& o) {
    return o.name == "first" && std::ranges::find(o.choices, "0") != o.choices.end();
  });
  if (has_first && !spec.options.contains("first")) spec.options["first"] = "0";
  auto options = game->normalize_options(spec.options);
  if (!options) return std::unexpected(bad("an option is unknown or out of range"));
  spec.options = *options;
  const int seats = spec.options.value("players", game->min_seats());
  if (!spec.clock.is_null()) {
    const auto tc = protocol::time_control_from_json(spec.clock);
    if (!tc) return std::unexpected(bad("clock: " + tc.error()));
    if (seats != 2 && tc->timed()) return std::unexpected(bad("clocks are for games of two"));
    spec.clock = protocol::to_json(*tc);
  }
  if (spec.format == Format::seated ? seats < 3 : seats != 2)
    return std::unexpected(bad(seats == 2 ? "a game of two plays swiss or round_robin"
                                          : "a game of three or four plays seated"));
  if (spec.format != Format::round_robin && (spec.rounds < 1 || spec.rounds > limits_.max_rounds))
    return std::unexpected(bad("rounds: from 1 to " + std::to_string(limits_.max_rounds)));
  if (spec.format == Format::round_robin) spec.rounds = 0;
  if (spec.no_show_ms < 60'000 || spec.no_show_ms > 24 * 3'600'000LL)
    return std::unexpected(bad("no_show_minutes: from 1 to 1440"));
  Event e;
  do e.id = random_hex(random_, 6);
  while (events_.contains(e.id));
  e.spec = std::move(spec);
  e.seats = seats;
  e.created_ms = now;
  const std::string id = e.id;
  save(e, now);
  events_[id] = std::move(e);
  return id;
}

Tournaments::Event* Tournaments::find(const std::string& id) {
  const auto it = events_.find(id);
  return it == events_.end() ? nullptr : &it->second;
}

std::string Tournaments::organiser_of(const std::string& id) const {
  const auto it = events_.find(id);
  return it == events_.end() ? "" : it->second.spec.organiser;
}

void Tournaments::set_organiser(const std::string& player, bool allowed, Done done) {
  if (allowed)
    organisers_.insert(player);
  else
    organisers_.erase(player);
  store_.put_organiser(player, allowed, std::move(done));
}

std::optional<std::string> Tournaments::enter(const std::string& id, const std::string& player,
                                              const std::string& name, bool enter,
                                              TournamentMillis now, bool account) {
  Event* e = find(id);
  if (!e) return "tournament/not_found";
  if (e->status != Status::registering) return "tournament/closed";
  const auto it = std::ranges::find(e->entries, player, &Entry::player);
  if (enter == (it != e->entries.end())) return std::nullopt;  // so already
  if (enter) {
    if (e->spec.accounts_only && !account) return "tournament/accounts_only";
    if (e->entries.size() >= limits_.max_players) return "tournament/full";
    e->entries.push_back({player, name});
  } else {
    e->entries.erase(it);
  }
  save(*e, now);
  return std::nullopt;
}

std::optional<TournamentError> Tournaments::start(const std::string& id, TournamentMillis now) {
  Event* e = find(id);
  if (!e) return TournamentError{"tournament/not_found", "no such event"};
  if (e->status != Status::registering)
    return TournamentError{"tournament/closed", "this event has started or ended already"};
  begin(*e, now);
  return std::nullopt;
}

std::optional<TournamentError> Tournaments::cancel(const std::string& id, TournamentMillis now) {
  Event* e = find(id);
  if (!e) return TournamentError{"tournament/not_found", "no such event"};
  if (e->status == Status::finished || e->status == Status::cancelled)
    return TournamentError{"tournament/closed", "this event is over already"};
  e->status = Status::cancelled;
  for (auto& t : e->tables)
    if (!t.points && !t.room.empty()) host_.close_table(t.room);
  save(*e, now);
  return std::nullopt;
}

// ---------- rounds ----------

std::vector<std::string> Tournaments::seeds(const Event& e) const {
  std::vector<std::string> out;
  for (const auto& en : e.entries) out.push_back(en.player);
  return out;
}

std::vector<tournaments::GameResult> Tournaments::results(const Event& e) const {
  std::vector<tournaments::GameResult> out;
  for (const auto& t : e.tables)
    if (t.points) out.push_back({t.round, t.seats, *t.points});
  return out;
}

int Tournaments::total_rounds(const Event& e) const {
  if (e.spec.format != Format::round_robin) return e.spec.rounds;
  if (!e.schedule.empty() || e.status != Status::registering)
    return static_cast<int>(e.schedule.size());
  // Before the start, as the players registered so far would play it: everyone meets everyone
  // (an odd count sits one out each round), once or twice.
  const int n = static_cast<int>(e.entries.size());
  if (n < 2) return 0;
  return (n % 2 == 0 ? n - 1 : n) * (e.spec.twice ? 2 : 1);
}

double Tournaments::bye_points(const Event& e) const {
  return e.seats == 2 ? 1.0 : (e.seats - 1) / 2.0;
}

void Tournaments::begin(Event& e, TournamentMillis now) {
  if (e.entries.size() < static_cast<std::size_t>(e.seats)) {
    e.status = Status::cancelled;
    e.note = "not_enough_players";
    save(e, now);
    return;
  }
  e.status = Status::running;
  if (e.spec.format == Format::round_robin)
    e.schedule = tournaments::round_robin(seeds(e), e.spec.twice);
  advance(e, now);
}

// Pairs and opens the next round when every table of this one has its result; ends the event
// after its last round.
void Tournaments::advance(Event& e, TournamentMillis now) {
  if (e.status != Status::running) return;
  for (const auto& t : e.tables)
    if (t.round == e.round && !t.points) return;
  if (e.round >= total_rounds(e)) {
    e.status = Status::finished;
    save(e, now);
    return;
  }
  std::optional<tournaments::Round> next;
  const auto players = seeds(e);
  switch (e.spec.format) {
    case Format::round_robin:
      next = e.schedule[static_cast<std::size_t>(e.round)];
      break;
    case Format::swiss:
      next = tournaments::swiss_round(players, results(e), e.byes, bye_points(e));
      break;
    case Format::seated:
      next = tournaments::seated_by_score(players, results(e), e.byes, e.seats);
      break;
  }
  if (!next) {
    e.status = Status::finished;
    e.note = "no_pairing";  // every pairing left would repeat one
    save(e, now);
    return;
  }
  ++e.round;
  e.round_started_ms = now;
  e.no_show_from = now;
  for (const auto& b : next->byes) e.byes.push_back({e.round, b, bye_points(e)});
  for (const auto& t : next->tables)
    e.tables.push_back({e.round, "", t.seats, std::nullopt, std::vector<bool>(t.seats.size())});
  open_tables(e);
  save(e, now);
}

void Tournaments::open_tables(Event& e) {
  for (auto& t : e.tables) {
    if (t.round != e.round || !t.room.empty() || t.points) continue;
    auto room = host_.open_table(e.spec.game, e.spec.options, e.spec.clock, t.seats);
    if (!room) continue;  // the server is full: the next tick tries again
    t.room = *room;
    event_of_room_[t.room] = e.id;
    const std::string frame = protocol::encode_tournament_table(e.id, e.round, t.room);
    for (const auto& p : t.seats) host_.tell(p, frame);
  }
}

void Tournaments::score(Table& t, const json& outcome) {
  t.points =
      tournaments::points_from_ranks(ranks_from_outcome(outcome, static_cast<int>(t.seats.size())));
}

void Tournaments::round_ended(const std::string& room, int round, const json& outcome,
                              TournamentMillis now) {
  if (!directing_) return;
  const auto it = event_of_room_.find(room);
  if (it == event_of_room_.end() || round != 1) return;  // a tournament game is one round
  Event* e = find(it->second);
  if (!e || e->status != Status::running) return;
  for (auto& t : e->tables)
    if (t.room == room && !t.points) {
      score(t, outcome);
      save(*e, now);
      advance(*e, now);
      return;
    }
}

void Tournaments::forfeit_no_shows(Event& e, TournamentMillis now) {
  if (now - std::max(e.round_started_ms, e.no_show_from) < e.spec.no_show_ms) return;
  bool changed = false;
  for (auto& t : e.tables) {
    if (t.round != e.round || t.points || t.room.empty()) continue;
    const auto seated = host_.seated(t.room);
    if (seated.size() != t.seats.size()) continue;
    if (std::ranges::all_of(seated, [](bool s) { return s; })) continue;  // being played
    // Those who sat down rank together above those who did not; nobody there, nobody scores.
    std::vector<int> ranks;
    for (bool s : seated) ranks.push_back(s ? 0 : 1);
    const bool anyone = std::ranges::any_of(seated, [](bool s) { return s; });
    t.points =
        anyone ? tournaments::points_from_ranks(ranks) : std::vector<double>(t.seats.size(), 0.0);
    for (std::size_t i = 0; i < seated.size(); ++i) t.forfeit[i] = !seated[i];
    host_.close_table(t.room);
    changed = true;
  }
  if (!changed) return;
  save(e, now);
  advance(e, now);
}

void Tournaments::tick(TournamentMillis now) {
  if (!directing_) return;
  poll_ended(now);
  for (auto& [id, e] : events_) {
    if (e.status == Status::registering && e.spec.starts_ms <= now) begin(e, now);
    if (e.status != Status::running) continue;
    const bool unopened = std::ranges::any_of(
        e.tables, [&](const Table& t) { return t.round == e.round && t.room.empty(); });
    if (unopened) {
      open_tables(e);
      save(e, now);
    }
    forfeit_no_shows(e, now);
  }
}

std::vector<Tournaments::WaitingTable> Tournaments::waiting_tables(
    const std::string& player) const {
  std::vector<WaitingTable> out;
  for (const auto& [id, e] : events_) {
    if (e.status != Status::running) continue;
    for (const auto& t : e.tables)
      if (t.round == e.round && !t.points && !t.room.empty() &&
          std::ranges::find(t.seats, player) != t.seats.end())
        out.push_back({e.id, e.round, t.room});
  }
  return out;
}

std::vector<std::string> Tournaments::reserved(const std::string& room) const {
  const auto it = event_of_room_.find(room);
  if (it == event_of_room_.end()) return {};
  const auto e = events_.find(it->second);
  if (e == events_.end()) return {};
  for (const auto& t : e->second.tables)
    if (t.room == room) return t.seats;
  return {};
}

// ---------- views ----------

std::string Tournaments::shown_name(const Event& e, const std::string& player) {
  if (auto name = host_.name_of(player); !name.empty()) return name;
  const auto it = std::ranges::find(e.entries, player, &Entry::player);
  return it == e.entries.end() ? std::string() : it->name;
}

json Tournaments::list() const {
  std::vector<const Event*> all;
  for (const auto& [id, e] : events_) all.push_back(&e);
  std::ranges::sort(all, [](const Event* a, const Event* b) {
    return a->spec.starts_ms != b->spec.starts_ms ? a->spec.starts_ms > b->spec.starts_ms
                                                  : a->id < b->id;
  });
  json out = json::array();
  for (const Event* e : all) {
    if (out.size() >= 100) break;
    out.push_back({{"id", e->id},
                   {"name", e->spec.name},
                   {"game", e->spec.game},
                   {"format", format_name(e->spec.format)},
                   {"seats", e->seats},
                   {"status", status_name(e->status)},
                   {"starts", e->spec.starts_ms},
                   {"players", e->entries.size()},
                   {"round", e->round},
                   {"twice", e->spec.twice},
                   {"rounds", total_rounds(*e)}});
  }
  return out;
}

std::optional<json> Tournaments::detail(const std::string& id) {
  Event* found = find(id);
  if (!found) return std::nullopt;
  Event& e = *found;
  json players = json::array(), standing = json::array(), rounds = json::array();
  for (std::size_t i = 0; i < e.entries.size(); ++i)
    players.push_back({{"player", e.entries[i].player},
                       {"name", shown_name(e, e.entries[i].player)},
                       {"seed", i + 1}});
  for (const auto& s : tournaments::standings(e.spec.format, seeds(e), results(e), e.byes))
    standing.push_back({{"player", s.player},
                        {"name", shown_name(e, s.player)},
                        {"rank", s.rank},
                        {"score", s.score},
                        {"buchholz", s.buchholz},
                        {"sonneborn_berger", s.sonneborn_berger},
                        {"head_to_head", s.head_to_head},
                        {"games", s.games},
                        {"wins", s.wins},
                        {"draws", s.draws},
                        {"losses", s.losses}});
  for (int r = 1; r <= e.round; ++r) {
    json tables = json::array(), byes = json::array();
    for (const auto& t : e.tables) {
      if (t.round != r) continue;
      json seats = json::array();
      for (const auto& p : t.seats) seats.push_back({{"player", p}, {"name", shown_name(e, p)}});
      std::string status = "over";
      if (!t.points) {
        const auto seated = t.room.empty() ? std::vector<bool>{} : host_.seated(t.room);
        status = !seated.empty() && std::ranges::all_of(seated, [](bool s) { return s; })
                     ? "playing"
                     : "waiting";
      }
      tables.push_back({{"room", t.room},
                        {"seats", std::move(seats)},
                        {"points", t.points ? json(*t.points) : json(nullptr)},
                        {"status", status},
                        {"forfeit", t.forfeit}});
    }
    for (const auto& b : e.byes)
      if (b.round == r)
        byes.push_back(
            {{"player", b.player}, {"name", shown_name(e, b.player)}, {"points", b.points}});
    rounds.push_back({{"round", r}, {"tables", std::move(tables)}, {"byes", std::move(byes)}});
  }
  return json{{"id", e.id},
              {"name", e.spec.name},
              {"game", e.spec.game},
              {"options", e.spec.options},
              {"clock", e.spec.clock},
              {"format", format_name(e.spec.format)},
              {"seats", e.seats},
              {"rounds", total_rounds(e)},
              {"twice", e.spec.twice},
              {"accounts_only", e.spec.accounts_only},
              {"status", status_name(e.status)},
              {"starts", e.spec.starts_ms},
              {"no_show_minutes", e.spec.no_show_ms / 60'000},
              {"round", e.round},
              {"organiser", shown_name(e, e.spec.organiser)},
              {"note", e.note},
              {"players", std::move(players)},
              {"standings", std::move(standing)},
              {"rounds_played", std::move(rounds)}};
}

}  // namespace plateau::server
