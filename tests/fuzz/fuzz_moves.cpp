// Fuzzes every registered game's options and move parser: a game is created from fuzzed options,
// then fuzzed moves are applied for fuzzed seats.
//
// The input is text, so that the seed corpus can be read and written by hand:
//   byte 0           the game: rules::all_games()[byte % count] ('0' is the first, '1' the next...)
//   rest of line 1   the seed, in decimal
//   line 2           the options, as JSON (empty: the defaults)
//   each next line   one move:
//                      "<seat> <text>"  the text (any bytes but a newline) for that seat
//                      "?<text>"        the text for the seat to move
//                      "#<n>"           legal move n (modulo their count) for the seat to move
//                      "~<n> <text>"    legal move n with its end replaced by the text
//
// Checked at every step: apply never throws; it refuses with game_over once the game is over,
// with not_your_turn for any other seat, and otherwise accepts exactly the texts legal_moves()
// lists; a refused move changes no viewer's view; legal_moves() is empty iff the game is over,
// and so is to_move(); a finished game has an outcome whose seats exist, and its rematch options
// are accepted. In the last position: every legal move applies on a copy, a copy shows the same
// views, and the views serialize.
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "rules/game.hpp"
#include "rules/view_parts.hpp"

namespace {

using nlohmann::json;
namespace rules = plateau::rules;

constexpr std::size_t kMaxSteps = 500;

// What every viewer sees: the changing part of each one's view, and the fixed part all share
// (a board's geometry), kept as the game's own object, as rooms keep it: copying it into every
// view made this fuzzer spend most of its time copying geometry.
struct Views {
  std::vector<json> changing;
  std::shared_ptr<const json> fixed;
  friend bool operator==(const Views& a, const Views& b) {
    return a.changing == b.changing &&
           (a.fixed == b.fixed || (a.fixed && b.fixed && *a.fixed == *b.fixed));
  }
};

Views all_views(const rules::State& s) {
  const rules::ViewParts* parts = rules::view_parts(s);
  const auto changing = [&](std::optional<rules::Seat> viewer) {
    return parts ? parts->changing_view(viewer) : s.view(viewer);
  };
  Views v{{changing(std::nullopt)}, parts ? parts->fixed_view() : nullptr};
  for (rules::Seat seat = 0; seat < s.num_seats(); ++seat) v.changing.push_back(changing(seat));
  return v;
}

// A number at the start of `text` (a sign allowed), or 0.
template <class Int>
Int number(std::string_view text) {
  Int n = 0;
  (void)std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

class Play {
 public:
  Play(const rules::Game& game, const json& options, std::unique_ptr<rules::State> state)
      : game_(game), options_(options), state_(std::move(state)) {
    settle();
  }

  void step(std::string_view line) {
    if (line.empty()) return;
    const auto space = line.find(' ');
    const std::string_view head = line.substr(0, space);
    const std::string_view rest =
        space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    const auto to_move = state_->to_move();
    switch (line.front()) {
      case '?':
        try_move(to_move.value_or(0), std::string(line.substr(1)));
        return;
      case '#':
        if (!legal_.empty()) {
          const auto& m = legal_[number<std::size_t>(head.substr(1)) % legal_.size()];
          try_move(*to_move, m.text);
        }
        return;
      case '~':
        if (!legal_.empty()) {
          const std::size_t n = number<std::size_t>(head.substr(1));
          std::string text = legal_[n % legal_.size()].text;
          text.resize(text.size() - std::min(text.size(), n / legal_.size() % 4));
          try_move(*to_move, text + std::string(rest));
        }
        return;
      default:
        try_move(number<int>(head), std::string(rest));
    }
  }

  // The last position: every legal move applies (on a copy), a copy shows the same boards, and
  // every view serializes. Once per input, not at every step: quirky's and on_top's positions
  // have hundreds of legal moves each.
  void finish() {
    const auto to_move = state_->to_move();
    for (const auto& m : legal_) {
      const auto r = state_->clone()->apply(*to_move, m);
      FUZZ_CHECK(r.has_value(), "a legal move was refused: " + m.text);
    }
    const auto copy = state_->clone();
    FUZZ_CHECK(all_views(*copy) == shown(), "a copy shows other boards");
    // What a frame carries must serialize.
    (void)state_->view(std::nullopt).dump();
    for (rules::Seat seat = 0; seat < state_->num_seats(); ++seat) (void)state_->view(seat).dump();
  }

 private:
  void try_move(rules::Seat seat, const std::string& text) {
    const auto to_move = state_->to_move();
    const bool listed =
        std::ranges::any_of(legal_, [&](const rules::Move& m) { return m.text == text; });
    // The views before a move that must be refused, to compare with after it.
    if (!to_move || seat != *to_move || !listed) (void)shown();
    const auto r = state_->apply(seat, rules::Move{text});
    if (!to_move) {
      FUZZ_CHECK(!r && r.error() == rules::RuleError::game_over,
                 "a move after the end was not game_over");
    } else if (seat != *to_move) {
      FUZZ_CHECK(!r && r.error() == rules::RuleError::not_your_turn,
                 "a move out of turn was not not_your_turn");
    } else if (listed) {
      FUZZ_CHECK(r.has_value(), "a move legal_moves() lists was refused: " + text);
    } else {
      FUZZ_CHECK(!r && r.error() == rules::RuleError::illegal_move,
                 "a move legal_moves() does not list was accepted: " + text);
    }
    if (r) {
      settle();
      return;
    }
    FUZZ_CHECK(state_->to_move() == to_move, "a refused move changed who is to move");
    FUZZ_CHECK(all_views(*state_) == shown(), "a refused move changed a view: " + text);
  }

  // Every viewer's view of this position, built once it is needed.
  const Views& shown() {
    if (!views_) views_ = all_views(*state_);
    return *views_;
  }

  // A new position: what holds in every position.
  void settle() {
    views_.reset();
    legal_ = state_->legal_moves();
    const auto to_move = state_->to_move();
    const auto outcome = state_->outcome();
    FUZZ_CHECK(legal_.empty() == state_->is_over(), "legal_moves() is empty iff the game is over");
    FUZZ_CHECK(outcome.has_value() == !to_move.has_value(), "an outcome iff nobody is to move");
    FUZZ_CHECK(!to_move || (*to_move >= 0 && *to_move < state_->num_seats()),
               "the seat to move does not exist");
    if (!outcome) return;
    for (const auto w : outcome->winners)
      FUZZ_CHECK(w >= 0 && w < state_->num_seats(), "a winner who has no seat");
    FUZZ_CHECK(outcome->scores.empty() ||
                   outcome->scores.size() == static_cast<std::size_t>(state_->num_seats()),
               "scores for another number of seats");
    FUZZ_CHECK(!outcome->reason.empty(), "an outcome without a reason");
    FUZZ_CHECK(game_.create(game_.rematch_options(options_, *outcome), 1).has_value(),
               "the rules refuse their own rematch options");
  }

  const rules::Game& game_;
  json options_;
  std::unique_ptr<rules::State> state_;
  std::optional<Views> views_;
  std::vector<rules::Move> legal_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto& games = rules::all_games();
  if (input.empty() || games.empty()) return 0;
  const rules::Game& game = *games[static_cast<unsigned char>(input.front()) % games.size()];
  auto next_line = [&input] {
    const auto end = input.find('\n');
    const std::string_view line = input.substr(0, end);
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
    return line;
  };
  input.remove_prefix(1);
  std::string_view first = next_line();
  while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
  const auto seed = number<std::uint64_t>(first);
  const std::string_view options_text = next_line();
  json options = options_text.empty() ? json(nullptr) : json::parse(options_text, nullptr, false);

  auto created = game.create(options, seed);
  const auto normalized = game.normalize_options(options);
  if (!normalized) {
    FUZZ_CHECK(!created && created.error() == rules::RuleError::bad_option,
               "options normalize refuses were taken");
    return 0;
  }
  if (!created) {
    FUZZ_CHECK(created.error() == rules::RuleError::bad_option,
               "create refused with an error that is not bad_option");
    return 0;
  }
  // The same options and seed give the same game.
  auto again = game.create(*normalized, seed);
  FUZZ_CHECK(again && (*again)->view(std::nullopt) == (*created)->view(std::nullopt),
             "creating from the normalized options gives another game");

  Play play(game, *normalized, std::move(*created));
  for (std::size_t steps = 0; !input.empty() && steps < kMaxSteps; ++steps) play.step(next_line());
  play.finish();
  return 0;
}
