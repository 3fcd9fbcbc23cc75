// A position read back from a view (Game::from_view), for a bot that plays as an ordinary client
// and knows only the board its seat is shown. Nothing in Quirky is private: the view holds the
// stacks, the bag's counts, the drawn piece, the scores and the whole log, so everything but the
// order of the coming draws is read from it, and that order is drawn afresh, as determinize()
// does. The board comes from the wire: every member is checked for presence, type and range, and
// the counts it shows must add up, so a board this game never shows gives nullptr, never a throw.
#include "quirky_state.hpp"
#include "rules/json_read.hpp"

namespace plateau::rules::quirky {

namespace {

using read::array;
using read::int_in;
using read::member;

// More lines than any game can log (one per draw: 54 pieces and at most 3 markers put back),
// so that the sums below cannot overflow whatever a board claims.
constexpr std::size_t kMaxLog = 1000;

// `node` as one of the first `kinds` piece names (kColours: a marker's colour), or nullopt.
std::optional<int> piece(const json* node, int kinds) {
  if (!node || !node->is_string()) return std::nullopt;
  const auto& name = node->get_ref<const std::string&>();
  for (int k = 0; k < kinds; ++k)
    if (kPieceNames[k] == name) return k;
  return std::nullopt;
}

// `node` as a non-empty string, or nullopt.
std::optional<std::string> text(const json* node) {
  if (!node || !node->is_string() || node->get_ref<const std::string&>().empty())
    return std::nullopt;
  return node->get<std::string>();
}

bool is_colour(int piece) { return piece >= 0 && piece < kColours; }

// Whether a log line's event can come from drawing `piece`, and whether it is a player's move
// (the others are what the state did on its own, with no move and no points).
struct EventKind {
  std::string_view name;
  bool is_move;
  bool fits(int piece) const {
    if (name == "placed" || name == "set_aside") return is_colour(piece);
    if (name == "moved") return piece == kBlue;
    if (name == "returned") return piece == kBlack;
    if (name == "no_effect") return piece == kBlue || piece == kBlack;
    return piece == kPurple;  // colours_passed
  }
};
constexpr std::array<EventKind, 6> kEvents{{{"placed", true},
                                            {"moved", true},
                                            {"returned", true},
                                            {"set_aside", false},
                                            {"no_effect", false},
                                            {"colours_passed", false}}};

}  // namespace

std::unique_ptr<QuirkyState> QuirkyState::from_view(const json& options, const json& board,
                                                    Seat to_move, Rng& rng) {
  const Board& geometry = the_board();
  if (!geometry.valid || !board.is_object()) return nullptr;
  const int seats = options.at("players").get<int>();
  const bool aligned_only = options.at("triangles") == "aligned";
  const bool purple = options.at("purple_quirks").get<bool>();
  if (to_move < 0 || to_move >= seats) return nullptr;
  // How many of each kind the box puts in the bag with these options.
  const auto in_box = [&](int kind) {
    return is_colour(kind) ? kMarkersPerColour : (kind == kPurple && !purple ? 0 : kQuirksPerKind);
  };

  std::array<int, kKinds> bag{};
  for (int k = 0; k < kKinds; ++k) {
    const auto n = int_in(member(member(&board, "bag"), kPieceNames[k]), 0, in_box(k));
    if (!n) return nullptr;
    bag[k] = *n;
  }
  // The draws to come: the generator is the only thing the view does not show.
  auto state =
      std::make_unique<QuirkyState>(seats, aligned_only, bag, std::nullopt, Rng(rng.next()));
  std::array<int, kColours> on_board{};

  const json* points = array(member(&board, "points"), geometry.points.size());
  if (!points) return nullptr;
  for (std::size_t p = 0; p < geometry.points.size(); ++p) {
    const json* stack = array(member(&(*points)[p], "stack"));
    if (!stack || stack->size() > static_cast<std::size_t>(kMaxHeight)) return nullptr;
    for (const json& node : *stack) {
      const auto colour = piece(&node, kColours);
      // Two markers of one colour never sit directly on each other.
      if (!colour || state->stacks_[p].top() == *colour) return nullptr;
      state->push(static_cast<int>(p), *colour);
      ++on_board[*colour];
    }
  }

  const json* seat_nodes = array(member(&board, "seats"), static_cast<std::size_t>(seats));
  if (!seat_nodes) return nullptr;
  for (Seat s = 0; s < seats; ++s) {
    const json* node = &(*seat_nodes)[static_cast<std::size_t>(s)];
    const auto colour = piece(member(node, "colour"), kColours);
    const auto score = int_in(member(node, "score"), 0, INT32_MAX);
    if (!colour || !score) return nullptr;
    state->colour_of_[s] = *colour;
    state->score_[s] = *score;
  }

  for (int c = 0; c < kColours; ++c) {
    const auto n =
        int_in(member(member(&board, "set_aside"), kPieceNames[c]), 0, kMarkersPerColour);
    if (!n) return nullptr;
    state->set_aside_[c] = *n;
  }

  // A finished game shows no drawn piece: no seat is to move in it, so it is not rebuilt.
  const json* drawn = member(&board, "drawn");
  const auto drawn_piece = piece(member(drawn, "piece"), kKinds);
  if (!drawn_piece || int_in(member(drawn, "seat"), 0, seats - 1) != to_move) return nullptr;
  state->drawn_ = *drawn_piece;
  state->to_move_ = to_move;

  // The log: one line per draw, in seat order, the pieces it used and the points it gave.
  const json* log = array(member(&board, "log"));
  if (!log || log->size() > kMaxLog) return nullptr;
  const int max_gain = kTrianglePoints * static_cast<int>(geometry.triangles.size());
  std::array<int, kKinds> used{};  // Quirks drawn, by kind
  int passes = 0;                  // purple Quirks played: how far the colours have turned
  std::vector<int> gains(seats, 0);
  std::optional<std::size_t> last_move;  // the log's last line that is a player's move
  for (const json& node : *log) {
    LogEntry entry;
    const auto seat = int_in(member(&node, "seat"), 0, seats - 1);
    const auto kind = piece(member(&node, "piece"), kKinds);
    const json* event = member(&node, "event");
    if (!seat || !kind || !event || !event->is_string()) return nullptr;
    // Every line is one turn's draw, so the seats go round the table.
    if (!state->log_.empty() && *seat != state->next(state->log_.back().seat)) return nullptr;
    const auto ev =
        std::ranges::find(kEvents, event->get_ref<const std::string&>(), &EventKind::name);
    if (ev == kEvents.end() || !ev->fits(*kind)) return nullptr;
    entry.seat = *seat;
    entry.piece = *kind;
    entry.event = ev->name;
    const json* move = member(&node, "move");
    if (ev->is_move) {
      const auto played = text(move);
      if (!played) return nullptr;
      entry.move = *played;
    } else if (!move || !move->is_null()) {
      return nullptr;
    }
    const json* gain = array(member(&node, "gain"), static_cast<std::size_t>(seats));
    if (!gain) return nullptr;
    for (Seat s = 0; s < seats; ++s) {
      const auto g = int_in(&(*gain)[static_cast<std::size_t>(s)], 0, ev->is_move ? max_gain : 0);
      if (!g) return nullptr;
      entry.gain.push_back(*g);
      gains[s] += *g;
    }
    const json* returned = member(&node, "returned");
    if (ev->name == "returned") {
      const auto colour = piece(returned, kColours);
      if (!colour) return nullptr;
      entry.returned = *colour;
    } else if (!returned || !returned->is_null()) {
      return nullptr;
    }
    if (!is_colour(*kind)) ++used[*kind];
    if (*kind == kPurple) ++passes;
    state->log_.push_back(std::move(entry));
    if (ev->is_move) last_move = state->log_.size() - 1;
  }
  // The seat to move draws after the last line.
  const auto first = options.at("first").get<std::string>();
  const Seat opened = state->log_.empty() ? to_move : state->log_.front().seat;
  if (first != "random" && opened != std::stoi(first)) return nullptr;
  if ((opened + static_cast<int>(state->log_.size())) % seats != to_move) return nullptr;

  // The counts the board shows must add up to the box: each marker is on the board, in the bag,
  // set aside or in hand; each Quirk is in the bag, in hand or in the log (played).
  for (int k = 0; k < kKinds; ++k) {
    const int seen = bag[k] + (*drawn_piece == k ? 1 : 0) +
                     (is_colour(k) ? on_board[k] + state->set_aside_[k] : used[k]);
    if (seen != in_box(k)) return nullptr;
  }
  // Colours start in seat order and turn one seat per purple Quirk; the scores are the log's.
  for (Seat s = 0; s < seats; ++s)
    if (state->colour_of_[s] != ((s - passes) % seats + seats) % seats ||
        state->score_[s] != gains[s])
      return nullptr;

  // The last move played: the log's last move, with the triangles it scored.
  const json* last = member(&board, "last");
  if (!last || last->is_null() != !last_move) return nullptr;
  if (last_move) {
    const LogEntry& line = state->log_[*last_move];
    const json* scored = array(member(last, "scored"));
    if (int_in(member(last, "seat"), 0, seats - 1) != line.seat ||
        piece(member(last, "piece"), kKinds) != line.piece ||
        text(member(last, "move")) != line.move || !scored)
      return nullptr;
    LastMove made{line.seat, line.piece, line.move, {}};
    std::vector<int> gained(seats, 0);
    for (const json& node : *scored) {
      const json* corners = array(member(&node, "points"), 3);
      if (!corners) return nullptr;
      std::array<int, 3> at{};
      for (std::size_t i = 0; i < 3; ++i) {
        const json& id = (*corners)[i];
        const auto p =
            id.is_string() ? geometry.find(id.get_ref<const std::string&>()) : std::nullopt;
        if (!p) return nullptr;
        at[i] = *p;
      }
      std::ranges::sort(at);
      const auto t = std::ranges::find(geometry.triangles, at, &Triangle::corners);
      if (t == geometry.triangles.end() || (aligned_only && !t->aligned)) return nullptr;
      const auto colour = piece(member(&node, "colour"), kColours);
      const json* seat_node = member(&node, "seat");
      const auto seat = seat_node && seat_node->is_null() ? std::optional<int>(kNoSeat)
                                                          : int_in(seat_node, 0, seats - 1);
      const auto gain = int_in(member(&node, "gain"), 0, kTrianglePoints);
      // A triangle scores 3 for its colour's holder, nothing for the neutral colour's.
      if (!colour || !seat || gain != (*seat == kNoSeat ? 0 : kTrianglePoints)) return nullptr;
      if (*seat != kNoSeat) gained[*seat] += *gain;
      made.scored.push_back(
          {static_cast<int>(t - geometry.triangles.begin()), *colour, *seat, *gain});
    }
    if (gained != line.gain) return nullptr;
    state->last_ = std::move(made);
  }

  // A piece with nothing to do (a purple Quirk, a marker that fits nowhere) is never held: the
  // state resolves it on its own. Then all that is derived (the drawer's choices, the neutral
  // colour, the names and places of points, the spelling of each line) must come out as shown.
  if (!state->has_move() || state->view(to_move) != board) return nullptr;
  return state;
}

}  // namespace plateau::rules::quirky
