#include "server/store/history.hpp"

#include <algorithm>
#include <charconv>

#include "bots/bot.hpp"
#include "protocol/ending.hpp"
#include "protocol/messages.hpp"
#include "protocol/rule_errors.hpp"
#include "protocol/time_control.hpp"
#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "rules/replay.hpp"
#include "server/rooms/fairness.hpp"

namespace plateau::server {

using nlohmann::json;

json record_to_json(const GameRecord& r) {
  json moves = json::array();
  for (const auto& m : r.moves) {
    json step{{"seat", m.seat}, {"move", m.move}, {"at", m.at_ms}};
    if (m.clock_ms) step["clock"] = *m.clock_ms;
    moves.push_back(std::move(step));
  }
  json out{{"format", "plateau-game/1"}, {"room", r.room},
           {"round", r.round},           {"game", r.game},
           {"options", r.options},       {"seed", std::to_string(r.seed)},
           {"players", r.players},       {"moves", std::move(moves)},
           {"result", r.result},         {"finished", r.finished_ms}};
  // The round's commitment, and what opens it: anyone can check that the seed was fixed
  // before the first move (PROTOCOL.md, "Fair chance").
  if (!r.clock.is_null()) out["time_control"] = r.clock;
  // Which seats bots played, and at what level: null for a person's.
  if (std::ranges::any_of(r.bots, [](const std::string& b) { return !b.empty(); })) {
    json bots = json::array();
    for (const auto& b : r.bots) bots.push_back(b.empty() ? json(nullptr) : json(b));
    out["bots"] = std::move(bots);
  }
  if (r.chat.is_array() && !r.chat.empty()) out["chat"] = r.chat;
  if (!r.salt.empty()) {
    out["salt"] = r.salt;
    out["commitment"] = seed_commitment(r.seed, r.salt);
  }
  return out;
}

std::expected<GameRecord, std::string> record_from_json(const json& j) {
  // Every field's type is checked before it is read: nlohmann's value() and get() throw on a
  // type they cannot convert, and a record is anyone's upload.
  if (!j.is_object()) return std::unexpected("a record is a JSON object");
  if (const auto f = j.find("format"); f == j.end() || !f->is_string() || *f != "plateau-game/1")
    return std::unexpected("'format' must be \"plateau-game/1\"");
  GameRecord r;
  if (!j.contains("game") || !j["game"].is_string())
    return std::unexpected("'game' must be a string");
  r.game = j["game"];
  r.options = j.value("options", json::object());
  if (!r.options.is_object()) return std::unexpected("'options' must be an object");
  const auto seed = j.find("seed");
  if (seed == j.end()) return std::unexpected("missing 'seed'");
  if (seed->is_string()) {
    const auto& s = seed->get_ref<const std::string&>();
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), r.seed);
    if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos ||
        ec != std::errc() || end != s.data() + s.size())
      return std::unexpected("'seed' must be a decimal string below 2^64");
  } else if (seed->is_number_unsigned() ||
             (seed->is_number_integer() && seed->get<std::int64_t>() >= 0)) {
    r.seed = seed->get<std::uint64_t>();
  } else {
    return std::unexpected("'seed' must be a decimal string");
  }
  if (!j.contains("players") || !j["players"].is_array())
    return std::unexpected("'players' must be a list");
  for (const auto& p : j["players"]) {
    // A seat nobody took has no name; any other is a name a player could have said hello with.
    if (!p.is_string() || (!p.get_ref<const std::string&>().empty() &&
                           !protocol::name_refusal(p.get_ref<const std::string&>()).empty()))
      return std::unexpected("a player is a name of at most 40 characters");
    r.players.push_back(p);
  }
  if (const auto b = j.find("bots"); b != j.end() && !b->is_null()) {
    if (!b->is_array() || b->size() != r.players.size())
      return std::unexpected("'bots' must be a list with one entry per player");
    for (const auto& level : *b) {
      if (!level.is_null() &&
          !(level.is_string() && bots::level_named(level.get_ref<const std::string&>())))
        return std::unexpected("a bot's level is easy, normal or hard (null for a person)");
      r.bots.push_back(level.is_null() ? "" : level.get<std::string>());
    }
  }
  if (!j.contains("moves") || !j["moves"].is_array())
    return std::unexpected("'moves' must be a list");
  if (j["moves"].size() > 100'000) return std::unexpected("too many moves");
  for (const auto& m : j["moves"]) {
    // A seat is a small number (not one that int would wrap to a real seat); "at", when there,
    // a time in milliseconds.
    const auto seat = m.find("seat"), move = m.find("move"), at = m.find("at"),
               clock = m.find("clock");  // end() unless an object
    if (!m.is_object() || seat == m.end() || !seat->is_number_integer() ||
        seat->get<std::int64_t>() < 0 || seat->get<std::int64_t>() > 255 || move == m.end() ||
        !move->is_string() || (at != m.end() && !at->is_number_integer()) ||
        (clock != m.end() && (!clock->is_number_integer() || clock->get<std::int64_t>() < 0)))
      return std::unexpected(
          "each move is {\"seat\": n, \"move\": \"...\"}, with an optional integer \"at\" "
          "and \"clock\"");
    r.moves.push_back(
        {seat->get<int>(), move->get<std::string>(), at != m.end() ? at->get<std::int64_t>() : 0,
         clock != m.end() ? std::optional(clock->get<std::int64_t>()) : std::nullopt});
  }
  if (const auto salt = j.find("salt"); salt != j.end()) {
    if (!salt->is_string() || salt->get_ref<const std::string&>().size() != 32 ||
        salt->get_ref<const std::string&>().find_first_not_of("0123456789abcdef") !=
            std::string::npos)
      return std::unexpected("'salt' must be 32 lower-case hex characters");
    r.salt = *salt;
    // A commitment that does not open with this seed and salt is a record that was changed.
    if (const auto c = j.find("commitment");
        c != j.end() && (!c->is_string() || *c != seed_commitment(r.seed, r.salt)))
      return std::unexpected("'commitment' does not match the seed and salt");
  }
  if (const auto tc = j.find("time_control"); tc != j.end()) {
    if (!protocol::time_control_from_json(*tc))
      return std::unexpected("'time_control' is not a time control");
    r.clock = *tc;
  }
  r.result = j.value("result", json(nullptr));
  r.round = 1;
  return r;
}

std::expected<json, std::string> replay_frames(const GameRecord& r) {
  const rules::Game* game = rules::find_game(r.game);
  if (!game) return std::unexpected("unknown game '" + r.game + "'");
  std::vector<rules::Played> played;
  played.reserve(r.moves.size());
  for (const auto& m : r.moves) played.push_back({m.seat, m.move});
  std::vector<protocol::SeatInfo> seats;
  for (std::size_t s = 0; s < r.players.size(); ++s)
    seats.push_back(
        {r.players[s], false,
         s < r.bots.size() && !r.bots[s].empty() ? std::optional(r.bots[s]) : std::nullopt});
  const RoundSecret secret{r.seed, r.salt};
  const auto sealed = fairness_of(secret, false), revealed = fairness_of(secret, true);
  const auto options = std::make_shared<const json>(r.options);
  std::string why;
  json frames = json::array();
  // A timed game's clocks at each step, as its moves stored them (none run in a replay).
  const auto control = protocol::time_control_from_json(r.clock);
  std::vector<std::int64_t> left;
  const auto clocks_at = [&](std::size_t step, int seats) -> json {
    if (!control || !control->timed()) return nullptr;
    if (left.empty())
      left.assign(static_cast<std::size_t>(seats),
                  control->kind == protocol::TimeControl::Kind::live ? control->base_ms
                                                                     : control->per_move_ms());
    if (step > 0) {
      const auto& m = r.moves[step - 1];
      if (m.clock_ms && static_cast<std::size_t>(m.seat) < left.size())
        left[static_cast<std::size_t>(m.seat)] = *m.clock_ms;
    }
    return json{{"control", r.clock}, {"left_ms", left}, {"running", nullptr}, {"since", 0}};
  };
  // Who left the game as it went (a game of three or four seats), by the record's result.
  std::optional<std::vector<protocol::Departure>> departed;
  const auto left_at = [&](std::size_t step) -> json {
    json out = json::array();
    for (const auto& d : *departed)
      if (d.at <= step) out.push_back(protocol::to_json(d));
    return out.empty() ? json() : out;
  };
  const auto visit = [&](const rules::State& state) {
    if (frames.empty() && r.players.size() != static_cast<std::size_t>(state.num_seats())) {
      why = "the record names " + std::to_string(r.players.size()) + " players for " +
            std::to_string(state.num_seats()) + " seats";
      return false;
    }
    if (!departed) {
      departed = protocol::departures_from_json(
          r.result.is_object() ? r.result.value("left", json()) : json(), state.num_seats());
      if (!departed) {
        why = "the record's result says who left in a way that is not one";
        return false;
      }
    }
    const bool over = state.is_over();
    protocol::RoomFacts facts{game->id(), over ? protocol::Status::over : protocol::Status::playing,
                              &seats,     nullptr,
                              r.round,    over ? revealed : sealed,
                              options,    nullptr,
                              nullptr};
    facts.clock = clocks_at(frames.size(), state.num_seats());
    facts.left = left_at(frames.size());
    frames.push_back(protocol::make_state(facts, state, std::nullopt));
    return true;
  };
  const auto state = rules::replay(*game, r.options, r.seed, played, visit);
  if (!state) {
    const auto& e = state.error();
    if (e.stopped) return std::unexpected(why);
    if (!e.move) return std::unexpected("the options are refused by the rules");
    const auto& m = r.moves[*e.move];
    return std::unexpected("move " + std::to_string(*e.move + 1) + " (" + m.move + " by seat " +
                           std::to_string(m.seat) + ") is refused: " +
                           std::string(protocol::code_string(protocol::code_for(e.error))));
  }
  if (!departed) departed.emplace();
  const auto outcome = (*state)->outcome();
  if (!outcome && !r.result.is_null()) {
    // A round that ended outside the rules (a resignation, a draw agreed): its last frame,
    // the position it ended in, shows it over with the record's result.
    const auto ending = protocol::ending_from_json(r.result, (*state)->num_seats());
    if (!ending)
      return std::unexpected("the record has a result but the rules say the game goes on");
    protocol::RoomFacts facts{game->id(), protocol::Status::over,
                              &seats,     nullptr,
                              r.round,    revealed,
                              options,    std::make_shared<const json>(r.result),
                              nullptr};
    facts.clock = frames.back()["clock"];
    facts.left = left_at(r.moves.size());
    if (ending->kind == protocol::EndKind::flagged && facts.clock.is_object())
      facts.clock["left_ms"][static_cast<std::size_t>(ending->seat)] = 0;  // its time ran out
    frames.back() = protocol::make_state(facts, **state, std::nullopt);
    return frames;
  }
  const json replayed =
      outcome ? protocol::outcome_json(protocol::after_departures(*outcome, *departed), *departed)
              : json(nullptr);
  if (!r.result.is_null() && replayed != r.result)
    return std::unexpected("the replayed result differs from the record's");
  // The last frame shows who left in its outcome, as the table did.
  if (outcome && !departed->empty()) {
    protocol::RoomFacts facts{game->id(), protocol::Status::over,
                              &seats,     nullptr,
                              r.round,    revealed,
                              options,    std::make_shared<const json>(replayed),
                              nullptr};
    facts.clock = frames.back()["clock"];
    facts.left = left_at(r.moves.size());
    frames.back() = protocol::make_state(facts, **state, std::nullopt);
  }
  return frames;
}

}  // namespace plateau::server
