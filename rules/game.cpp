#include "game.hpp"

#include <algorithm>

namespace plateau::rules {

using nlohmann::json;

std::string_view error_code(RuleError e) {
  switch (e) {
    case RuleError::game_over:
      return "move/game_over";
    case RuleError::not_your_turn:
      return "move/not_your_turn";
    case RuleError::illegal_move:
      return "move/illegal";
    case RuleError::bad_option:
      return "room/bad_option";
  }
  return "move/illegal";
}

std::string_view error_message(RuleError e) {
  switch (e) {
    case RuleError::game_over:
      return "the game is over";
    case RuleError::not_your_turn:
      return "it is not your turn";
    case RuleError::illegal_move:
      return "that move is not legal here";
    case RuleError::bad_option:
      return "an option is unknown or out of range";
  }
  return "error";
}

json to_json(const Outcome& o) {
  json j{{"winners", o.winners}, {"scores", o.scores}, {"reason", o.reason}};
  if (!o.code.empty()) {
    j["code"] = o.code;
    j["args"] = o.args;
  }
  return j;
}

bool State::is_legal(const Move& move) const {
  const auto moves = legal_moves();
  return std::find(moves.begin(), moves.end(), move) != moves.end();
}

std::unique_ptr<State> State::determinize(Seat, Rng&) const { return nullptr; }

Move State::random_move(Rng& rng) const {
  auto moves = legal_moves();
  return std::move(moves[rng.below(moves.size())]);
}

std::unique_ptr<State> Game::from_view(const Seen&, Rng&) const { return nullptr; }

Result<> State::apply(Seat seat, const Move& move) {
  const auto mover = to_move();
  if (!mover) return std::unexpected(RuleError::game_over);
  if (*mover != seat) return std::unexpected(RuleError::not_your_turn);
  if (!is_legal(move)) return std::unexpected(RuleError::illegal_move);
  do_apply(move);
  return {};
}

namespace {

json spec_to_json(const OptionSpec& s) {
  json j{{"name", s.name}, {"default", s.default_value}, {"label", s.label}};
  switch (s.kind) {
    case OptionSpec::Kind::boolean:
      j["type"] = "bool";
      break;
    case OptionSpec::Kind::integer:
      j["type"] = "int";
      j["min"] = s.min;
      j["max"] = s.max;
      break;
    case OptionSpec::Kind::choice:
      j["type"] = "choice";
      j["choices"] = s.choices;
      break;
  }
  return j;
}

bool value_fits(const OptionSpec& s, const json& v) {
  switch (s.kind) {
    case OptionSpec::Kind::boolean:
      return v.is_boolean();
    case OptionSpec::Kind::integer: {
      if (!v.is_number_integer()) return false;
      const auto n = v.get<long long>();
      return n >= s.min && n <= s.max;
    }
    case OptionSpec::Kind::choice:
      return v.is_string() &&
             std::find(s.choices.begin(), s.choices.end(), v.get<std::string>()) != s.choices.end();
  }
  return false;
}

OptionSpec players_option(const Game& g) {
  return int_option("players", g.min_seats(), g.min_seats(), g.max_seats(), "number of players");
}

}  // namespace

Result<json> Game::normalize_options(const json& options) const {
  if (!options.is_null() && !options.is_object()) return std::unexpected(RuleError::bad_option);
  auto specs = this->options();
  specs.insert(specs.begin(), players_option(*this));
  json out = json::object();
  if (options.is_object()) {
    for (const auto& [key, value] : options.items()) {
      const auto it = std::find_if(specs.begin(), specs.end(),
                                   [&](const OptionSpec& s) { return s.name == key; });
      if (it == specs.end() || !value_fits(*it, value))
        return std::unexpected(RuleError::bad_option);
      out[key] = value;
    }
  }
  for (const auto& s : specs)
    if (!out.contains(s.name)) out[s.name] = s.default_value;
  return out;
}

Result<std::unique_ptr<State>> Game::create(const json& options, std::uint64_t seed) const {
  auto normalized = normalize_options(options);
  if (!normalized) return std::unexpected(normalized.error());
  return do_create(*normalized, seed);
}

json Game::rematch_options(const json& options, const Outcome&) const { return options; }

json Game::describe() const {
  json opts = json::array();
  opts.push_back(spec_to_json(players_option(*this)));
  for (const auto& s : options()) opts.push_back(spec_to_json(s));
  return json{{"id", id()},
              {"name", name()},
              {"seats", {min_seats(), max_seats()}},
              {"options", opts},
              {"takeback", info_.takeback}};
}

OptionSpec bool_option(std::string name, bool default_value, std::string label) {
  return OptionSpec{.name = std::move(name),
                    .kind = OptionSpec::Kind::boolean,
                    .default_value = default_value,
                    .min = 0,
                    .max = 0,
                    .choices = {},
                    .label = std::move(label)};
}

OptionSpec int_option(std::string name, int default_value, int min, int max, std::string label) {
  return OptionSpec{.name = std::move(name),
                    .kind = OptionSpec::Kind::integer,
                    .default_value = default_value,
                    .min = min,
                    .max = max,
                    .choices = {},
                    .label = std::move(label)};
}

OptionSpec choice_option(std::string name, std::vector<std::string> choices,
                         std::string default_value, std::string label) {
  return OptionSpec{.name = std::move(name),
                    .kind = OptionSpec::Kind::choice,
                    .default_value = std::move(default_value),
                    .min = 0,
                    .max = 0,
                    .choices = std::move(choices),
                    .label = std::move(label)};
}

OptionSpec first_player_option(int max_seats) {
  std::vector<std::string> choices{"random"};
  for (int s = 0; s < max_seats; ++s) choices.push_back(std::to_string(s));
  return choice_option("first", std::move(choices), "random",
                       "who starts: drawn at random, or a seat chosen by the host");
}

Result<Seat> pick_first_player(const json& options, int players, Rng& rng) {
  const auto it = options.find("first");
  if (it != options.end() && it->is_string() && *it != "random") {
    const auto& text = it->get_ref<const std::string&>();
    if (text.size() != 1 || text[0] < '0' || text[0] - '0' >= players)
      return std::unexpected(RuleError::bad_option);
    return text[0] - '0';
  }
  return static_cast<Seat>(rng.below(static_cast<std::uint64_t>(players)));
}

}  // namespace plateau::rules
