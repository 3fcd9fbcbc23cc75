#include "quirky.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "quirky/board_data.hpp"
#include "../view_parts.hpp"

namespace plateau::rules::quirky {
namespace {

using nlohmann::json;

// Pieces: the three marker colours come first so that a colour is also a piece index.
enum Piece : int { kGreen = 0, kYellow = 1, kRed = 2, kBlue = 3, kBlack = 4, kPurple = 5 };
constexpr int kColours = 3;
constexpr int kKinds = 6;
constexpr std::array<std::string_view, kKinds> kPieceNames{"green", "yellow", "red",
                                                           "blue",  "black",  "purple"};
constexpr int kMarkersPerColour = 15;
constexpr int kQuirksPerKind = 3;
constexpr int kMaxHeight = 3;
constexpr int kTrianglePoints = 3;  // points a triangle scores
constexpr int kNoSeat = -1;
constexpr int kNoColour = -1;

bool is_colour(int piece) { return piece >= 0 && piece < kColours; }

// Lattice geometry. Board points use "doubled" coordinates (x in half-steps, y in rows, x + y
// even), which draw directly; the maths uses axial coordinates on the basis E = (2, 0) and
// SE = (1, 1), where a turn by 60° is a linear map on integers, so every equilateral triangle on
// the lattice, tilted or not, is found exactly.
struct Axial {
  int a = 0, b = 0;
  friend auto operator<=>(const Axial&, const Axial&) = default;
  Axial operator+(Axial o) const { return {a + o.a, b + o.b}; }
  Axial operator-(Axial o) const { return {a - o.a, b - o.b}; }
};
Axial rotate60(Axial v) { return {-v.b, v.a + v.b}; }  // E → SE, SE → SE − E
// A side along a lattice line: a multiple of E, SE or SE − E.
bool along_lattice(Axial v) { return v.a == 0 || v.b == 0 || v.a == -v.b; }
constexpr std::array<Axial, 6> kDirections{{{1, 0}, {1, -1}, {0, -1}, {-1, 0}, {-1, 1}, {0, 1}}};

struct Point {
  std::string id;
  int x = 0, y = 0;
  Axial at;
};

struct Triangle {
  std::array<int, 3> corners{};  // point indices, ascending
  bool aligned = false;
};

struct Board {
  bool valid = false;
  std::vector<Point> points;
  std::map<std::string, int, std::less<>> index;
  std::vector<std::vector<int>> neighbours;
  std::vector<Triangle> triangles;
  std::vector<int> all_triangles, aligned_triangles;  // indices into `triangles`

  std::optional<int> find(std::string_view id) const {
    const auto it = index.find(id);
    return it == index.end() ? std::nullopt : std::optional<int>(it->second);
  }
};

// One lowercase letter then digits: short to type, and never confused with the "x" of a black
// Quirk's move or the "-" of a blue one.
bool good_point_name(const std::string& id) {
  if (id.size() < 2 || id[0] < 'a' || id[0] > 'z') return false;
  return std::all_of(id.begin() + 1, id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Parses and checks the embedded board data without throwing; an invalid board leaves `valid`
// false and the game then refuses to create rooms (a test checks the shipped data is valid).
Board load_board() {
  Board board;
  const json data = json::parse(kBoardJson, nullptr, false);
  if (data.is_discarded() || !data.is_object()) return board;
  const auto points = data.find("points");
  if (points == data.end() || !points->is_array() || points->size() < 3) return board;
  std::map<Axial, int> at;
  for (const auto& p : *points) {
    if (!p.is_object()) return board;
    const auto id = p.find("id"), x = p.find("x"), y = p.find("y");
    if (id == p.end() || x == p.end() || y == p.end() || !id->is_string() ||
        !x->is_number_integer() || !y->is_number_integer())
      return board;
    Point point{id->get<std::string>(), x->get<int>(), y->get<int>(), {}};
    if (!good_point_name(point.id) || (point.x + point.y) % 2 != 0) return board;
    point.at = Axial{(point.x - point.y) / 2, point.y};
    const int n = static_cast<int>(board.points.size());
    if (!board.index.emplace(point.id, n).second || !at.emplace(point.at, n).second) return board;
    board.points.push_back(std::move(point));
  }
  const int n = static_cast<int>(board.points.size());
  board.neighbours.resize(n);
  for (int p = 0; p < n; ++p)
    for (const Axial d : kDirections)
      if (const auto it = at.find(board.points[p].at + d); it != at.end())
        board.neighbours[p].push_back(it->second);
  // Every ordered pair (P, Q) with R = P + rot60(Q − P) on the board names one triangle; each
  // triangle comes up three times, once per corner, and the set keeps one.
  std::set<std::array<int, 3>> seen;
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) {
      if (p == q) continue;
      const Axial side = board.points[q].at - board.points[p].at;
      const auto r = at.find(board.points[p].at + rotate60(side));
      if (r == at.end()) continue;
      std::array<int, 3> corners{p, q, r->second};
      std::ranges::sort(corners);
      if (seen.insert(corners).second) board.triangles.push_back({corners, along_lattice(side)});
    }
  std::ranges::sort(board.triangles, {}, &Triangle::corners);
  for (int t = 0; t < static_cast<int>(board.triangles.size()); ++t) {
    board.all_triangles.push_back(t);
    if (board.triangles[t].aligned) board.aligned_triangles.push_back(t);
  }
  board.valid = true;
  return board;
}

const Board& the_board() {
  static const Board board = load_board();
  return board;
}

struct Stack {
  std::array<std::int8_t, kMaxHeight> pieces{};
  int height = 0;
  int top() const { return height == 0 ? kNoColour : pieces[height - 1]; }
};

// A move, parsed. `to` is the placement point or a blue Quirk's destination; `from` the point a
// blue Quirk moves from or a black Quirk empties.
struct Action {
  enum class Kind { place, slide, take } kind = Kind::place;
  int from = -1, to = -1;
};

std::optional<Action> parse(const Board& board, std::string_view text) {
  if (const auto p = board.find(text)) return Action{Action::Kind::place, -1, *p};
  if (const auto dash = text.find('-'); dash != std::string_view::npos) {
    const auto from = board.find(text.substr(0, dash)), to = board.find(text.substr(dash + 1));
    if (from && to) return Action{Action::Kind::slide, *from, *to};
    return std::nullopt;
  }
  if (text.size() > 1 && text[0] == 'x')
    if (const auto p = board.find(text.substr(1))) return Action{Action::Kind::take, *p, -1};
  return std::nullopt;
}

struct ScoredTriangle {
  int triangle = 0;  // index into Board::triangles
  int colour = kNoColour;
  Seat seat = kNoSeat;  // who got the points; kNoSeat for the neutral colour
  int gain = 0;
};

struct LastMove {
  Seat seat = 0;
  int piece = 0;
  std::string move;
  std::vector<ScoredTriangle> scored;
};

// One public line of the game log: every move and everything the state did on its own.
struct LogEntry {
  Seat seat = 0;
  int piece = 0;
  std::string event;  // placed, moved, returned, set_aside, no_effect, colours_passed
  std::string move;   // empty when the state acted on its own
  std::vector<int> gain;
  int returned = kNoColour;  // the colour a black Quirk put back in the bag
};

class QuirkyState final : public TurnState<QuirkyState>, public ViewParts {
 public:
  QuirkyState(int seats, bool aligned_only, const std::array<int, kKinds>& bag,
              std::optional<std::deque<int>> stacked, Rng rng)
      : board_(&the_board()),
        seats_(seats),
        aligned_only_(aligned_only),
        triangles_(aligned_only ? &board_->aligned_triangles : &board_->all_triangles),
        stacks_(board_->points.size()),
        bag_(bag),
        stacked_(std::move(stacked)),
        rng_(rng),
        score_(seats, 0),
        set_aside_{} {
    for (Seat s = 0; s < seats; ++s) colour_of_.push_back(s);  // green, yellow, red in seat order
  }

  void begin(Seat first) { start_turn(first); }

  int num_seats() const override { return seats_; }

  std::vector<Move> legal_moves() const override {
    std::vector<Move> moves;
    const auto& points = board_->points;
    for (const Action& a : actions()) {
      switch (a.kind) {
        case Action::Kind::place: moves.push_back(Move{points[a.to].id}); break;
        case Action::Kind::slide: moves.push_back(Move{points[a.from].id + "-" + points[a.to].id}); break;
        case Action::Kind::take: moves.push_back(Move{"x" + points[a.from].id}); break;
      }
    }
    return moves;
  }

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  json changing_view(std::optional<Seat>) const override {
    // Nothing in Quirky is private to a seat, so every viewer sees the same thing; what must stay
    // hidden (the Rng, hence the order of the coming draws) is simply never written here.
    json view = rest_of_view();
    view["points"] = array_of(stacks_.size(), [this](std::size_t p) {
      const Point& point = board_->points[p];
      return object_of("id", point.id, "x", point.x, "y", point.y, "stack", stack_json(p));
    });
    view["log"] = array_of(log_.size(), [this](std::size_t i) { return log_json(log_[i]); });
    return view;
  }

  // A move changes a stack or two and adds to the log, which is never rewritten: the stacks
  // are compared where they are on the board and the new log entries appended.
  bool update_view(json& board, std::optional<Seat>, const Shown*, Update& update) const override {
    json* points = member_of(board, "points", json::value_t::array);
    json* log = member_of(board, "log", json::value_t::array);
    if (!points || !log || points->size() != stacks_.size() || log->size() > log_.size()) return false;
    for (std::size_t p = 0; p < stacks_.size(); ++p) {
      json& point = (*points)[p];
      if (!point.is_object() || !point.contains("stack")) return false;  // checked before any change below
    }
    for (std::size_t p = 0; p < stacks_.size(); ++p) {
      json& stack = (*points)[p]["stack"];
      if (shows_stack(stack, p)) continue;
      stack = stack_json(p);
      update.edits.push_back({false, "/points/" + std::to_string(p) + "/stack"});
    }
    update.append(*log, log_.size(), "/log", [this](std::size_t i) { return log_json(log_[i]); });
    update.rest = rest_of_view();
    return true;
  }

 private:
  json stack_json(std::size_t p) const {
    json stack = json::array();
    for (int h = 0; h < stacks_[p].height; ++h) stack.push_back(kPieceNames[stacks_[p].pieces[h]]);
    return stack;
  }
  // Whether `node` is stack_json(p), without building it.
  bool shows_stack(const json& node, std::size_t p) const {
    if (!node.is_array() || node.size() != static_cast<std::size_t>(stacks_[p].height)) return false;
    for (int h = 0; h < stacks_[p].height; ++h) {
      const json& piece = node[static_cast<std::size_t>(h)];
      if (!piece.is_string() || piece.get_ref<const std::string&>() != kPieceNames[stacks_[p].pieces[h]]) return false;
    }
    return true;
  }

  // Everything on the board but its points and its log.
  json rest_of_view() const {
    json seats = json::array();
    for (Seat s = 0; s < seats_; ++s)
      seats.push_back(object_of("colour", kPieceNames[colour_of_[s]], "score", score_[s]));
    json bag = json::object();
    for (int k = 0; k < kKinds; ++k) bag[std::string(kPieceNames[k])] = bag_[k];
    json set_aside = json::object();
    for (int c = 0; c < kColours; ++c) set_aside[std::string(kPieceNames[c])] = set_aside_[c];
    const int neutral = holder_free_colour();
    return object_of("seats", std::move(seats),
                     "neutral", neutral == kNoColour ? json(nullptr) : json(kPieceNames[neutral]),
                     "drawn", drawn_json(),
                     "bag", std::move(bag),
                     "set_aside", std::move(set_aside),
                     "triangles", aligned_only_ ? "aligned" : "any",
                     "last", last_json());
  }

 protected:
  bool is_legal(const Move& move) const override {
    if (outcome_) return false;
    const auto action = parse(*board_, move.text);
    if (!action) return false;
    switch (action->kind) {
      case Action::Kind::place:
        return is_colour(drawn_) && can_place(action->to, drawn_);
      case Action::Kind::slide: {
        if (drawn_ != kBlue || stacks_[action->from].height == 0 || stacks_[action->to].height > 0)
          return false;
        const auto& near = board_->neighbours[action->from];
        return std::ranges::find(near, action->to) != near.end();
      }
      case Action::Kind::take:
        return drawn_ == kBlack && stacks_[action->from].height > 0;
    }
    return false;
  }

  void do_apply(const Move& move) override {
    const Action action = *parse(*board_, move.text);
    const auto before = triangle_colours();
    const Seat mover = to_move_;
    LogEntry entry{mover, drawn_, "", move.text, {}, kNoColour};
    switch (action.kind) {
      case Action::Kind::place:
        push(action.to, drawn_);
        entry.event = "placed";
        break;
      case Action::Kind::slide:
        push(action.to, pop(action.from));
        entry.event = "moved";
        break;
      case Action::Kind::take: {
        const int colour = pop(action.from);
        ++bag_[colour];
        if (stacked_) stacked_->push_back(colour);
        entry.event = "returned";
        entry.returned = colour;
        break;
      }
    }
    LastMove last{mover, drawn_, move.text, score_new_triangles(before)};
    entry.gain.assign(seats_, 0);
    for (const auto& s : last.scored)
      if (s.seat != kNoSeat) entry.gain[s.seat] += s.gain;
    last_ = std::move(last);
    log_.push_back(std::move(entry));
    drawn_ = kNoColour;
    start_turn(next(mover));
  }

 private:
  Seat next(Seat s) const { return (s + 1) % seats_; }

  bool can_place(int point, int colour) const {
    const Stack& st = stacks_[point];
    return st.height < kMaxHeight && st.top() != colour;
  }

  void push(int point, int piece) {
    Stack& st = stacks_[point];
    st.pieces[st.height++] = static_cast<std::int8_t>(piece);
  }
  int pop(int point) {
    Stack& st = stacks_[point];
    return st.pieces[--st.height];
  }

  Seat holder(int colour) const {
    for (Seat s = 0; s < seats_; ++s)
      if (colour_of_[s] == colour) return s;
    return kNoSeat;
  }
  // The drawer's choices, in the order legal_moves lists them.
  std::vector<Action> actions() const {
    std::vector<Action> out;
    if (outcome_) return out;
    const int n = static_cast<int>(board_->points.size());
    if (is_colour(drawn_)) {
      for (int p = 0; p < n; ++p)
        if (can_place(p, drawn_)) out.push_back(Action{Action::Kind::place, -1, p});
    } else if (drawn_ == kBlue) {
      for (int p = 0; p < n; ++p)
        if (stacks_[p].height > 0)
          for (int q : board_->neighbours[p])
            if (stacks_[q].height == 0) out.push_back(Action{Action::Kind::slide, p, q});
    } else if (drawn_ == kBlack) {
      for (int p = 0; p < n; ++p)
        if (stacks_[p].height > 0) out.push_back(Action{Action::Kind::take, p, -1});
    }
    return out;
  }

  int holder_free_colour() const {
    for (int c = 0; c < kColours; ++c)
      if (holder(c) == kNoSeat) return c;
    return kNoColour;
  }

  // For each counted triangle (in `triangles_` order): the colour of its three tops when they all
  // agree, else kNoColour.
  std::vector<int> triangle_colours() const {
    std::vector<int> colours;
    colours.reserve(triangles_->size());
    for (int t : *triangles_) {
      const auto& c = board_->triangles[t].corners;
      const int top = stacks_[c[0]].top();
      colours.push_back(top != kNoColour && stacks_[c[1]].top() == top && stacks_[c[2]].top() == top
                            ? top
                            : kNoColour);
    }
    return colours;
  }

  // The set difference: a triangle scores when it is one-coloured now and was not (in that
  // colour) before the action, for whoever holds that colour now.
  std::vector<ScoredTriangle> score_new_triangles(const std::vector<int>& before) {
    std::vector<ScoredTriangle> scored;
    const auto after = triangle_colours();
    for (std::size_t i = 0; i < after.size(); ++i) {
      if (after[i] == kNoColour || after[i] == before[i]) continue;
      const Seat seat = holder(after[i]);
      const int gain = seat == kNoSeat ? 0 : kTrianglePoints;
      if (seat != kNoSeat) score_[seat] += gain;
      scored.push_back({(*triangles_)[i], after[i], seat, gain});
    }
    return scored;
  }

  int bag_total() const {
    int total = 0;
    for (int k : bag_) total += k;
    return total;
  }

  int draw() {
    int piece = 0;
    if (stacked_) {
      piece = stacked_->front();
      stacked_->pop_front();
    } else {
      // Pieces of one kind are alike, so a uniform draw over the counts is a shuffled bag; no
      // order exists before the draw, hence none can leak.
      auto r = static_cast<int>(rng_.below(static_cast<std::uint64_t>(bag_total())));
      while (r >= bag_[piece]) r -= bag_[piece++];
    }
    --bag_[piece];
    return piece;
  }

  // Seat `s` draws; whatever leaves no choice is resolved here and the turn passes on, until a
  // seat holds a piece it can play or the bag is empty.
  void start_turn(Seat s) {
    while (bag_total() > 0) {
      drawn_ = draw();
      to_move_ = s;
      if (drawn_ == kPurple) {
        std::vector<int> passed(seats_);
        for (Seat t = 0; t < seats_; ++t) passed[next(t)] = colour_of_[t];
        colour_of_ = std::move(passed);
        log_.push_back({s, kPurple, "colours_passed", "", std::vector<int>(seats_, 0), kNoColour});
      } else if (!has_move()) {
        if (is_colour(drawn_)) ++set_aside_[drawn_];
        log_.push_back({s, drawn_, is_colour(drawn_) ? "set_aside" : "no_effect", "",
                        std::vector<int>(seats_, 0), kNoColour});
      } else {
        return;
      }
      drawn_ = kNoColour;
      s = next(s);
    }
    finish();
  }

  bool has_move() const {
    const int n = static_cast<int>(stacks_.size());
    for (int p = 0; p < n; ++p) {
      if (is_colour(drawn_) && can_place(p, drawn_)) return true;
      if (drawn_ == kBlack && stacks_[p].height > 0) return true;
      if (drawn_ == kBlue && stacks_[p].height > 0)
        for (int q : board_->neighbours[p])
          if (stacks_[q].height == 0) return true;
    }
    return false;
  }

  void finish() {
    drawn_ = kNoColour;
    const int best = *std::ranges::max_element(score_);
    std::vector<Seat> winners;
    for (Seat s = 0; s < seats_; ++s)
      if (score_[s] == best) winners.push_back(s);
    // Who won is in `winners`; the reason names no seat, since a table shows names, not numbers.
    const std::string points = std::to_string(best) + (best == 1 ? " point" : " points");
    std::string reason = "the bag is empty: " +
                         (winners.size() == 1 ? "the highest score is " + points
                                              : std::to_string(winners.size()) + " players share the win with " + points);
    outcome_ = Outcome{std::move(winners), score_, std::move(reason)};
  }

  json drawn_json() const {
    if (outcome_ || drawn_ == kNoColour) return nullptr;
    // The choices open to the drawer, so a table can highlight them without knowing the rules.
    json points = json::array();
    json moves = json::object();
    for (const Action& action : actions()) {
      if (action.kind == Action::Kind::place) {
        points.push_back(board_->points[action.to].id);
      } else if (action.kind == Action::Kind::take) {
        points.push_back(board_->points[action.from].id);
      } else {
        const std::string& from = board_->points[action.from].id;
        if (!moves.contains(from)) {
          points.push_back(from);
          moves[from] = json::array();
        }
        moves[from].push_back(board_->points[action.to].id);
      }
    }
    return object_of("piece", kPieceNames[drawn_], "seat", to_move_, "points", std::move(points), "moves", std::move(moves));
  }

  json last_json() const {
    if (!last_) return nullptr;
    json scored = json::array();
    for (const auto& s : last_->scored) {
      json corners = json::array();
      for (int p : board_->triangles[s.triangle].corners) corners.push_back(board_->points[p].id);
      scored.push_back(object_of("points", std::move(corners), "colour", kPieceNames[s.colour], "seat",
                                 s.seat == kNoSeat ? json(nullptr) : json(s.seat), "gain", s.gain));
    }
    return object_of("seat", last_->seat, "piece", kPieceNames[last_->piece], "move", last_->move, "scored",
                     std::move(scored));
  }

  static json log_json(const LogEntry& e) {
    return object_of("seat", e.seat, "piece", kPieceNames[e.piece], "event", e.event, "move",
                     e.move.empty() ? json(nullptr) : json(e.move), "gain", e.gain, "returned",
                     e.returned == kNoColour ? json(nullptr) : json(kPieceNames[e.returned]));
  }

  const Board* board_;
  int seats_;
  bool aligned_only_;
  const std::vector<int>* triangles_;       // the triangles that count under the options
  std::vector<Stack> stacks_;               // one per board point, in board order
  std::array<int, kKinds> bag_;             // pieces left in the bag, per kind (public)
  std::optional<std::deque<int>> stacked_;  // test-only fixed draw order (never shown)
  Rng rng_;                                 // the draws: hidden, never shown
  std::vector<int> colour_of_;              // per seat
  std::vector<int> score_;
  std::array<int, kColours> set_aside_;
  int drawn_ = kNoColour;  // the piece the seat to move holds
  std::optional<LastMove> last_;
  std::vector<LogEntry> log_;
};

Result<std::unique_ptr<State>> make_state(const json& options, std::uint64_t seed,
                                          std::optional<std::deque<int>> stacked) {
  if (!the_board().valid) return std::unexpected(RuleError::bad_option);
  const int players = options.at("players").get<int>();
  const bool aligned_only = options.at("triangles") == "aligned";
  const bool purple = options.at("purple_quirks").get<bool>();
  Rng rng(seed);
  const auto first = pick_first_player(options, players, rng);
  if (!first) return std::unexpected(first.error());
  std::array<int, kKinds> bag{kMarkersPerColour, kMarkersPerColour, kMarkersPerColour,
                              kQuirksPerKind,    kQuirksPerKind,    purple ? kQuirksPerKind : 0};
  if (stacked) {
    bag.fill(0);
    for (int piece : *stacked) ++bag[piece];
    if (!purple && bag[kPurple] > 0) return std::unexpected(RuleError::bad_option);
  }
  auto state = std::make_unique<QuirkyState>(players, aligned_only, bag, std::move(stacked), rng);
  state->begin(*first);
  return state;
}

class QuirkyGame final : public Game {
 public:
  QuirkyGame()
      : Game({.id = "quirky",
              .name = "Quirky",
              .min_seats = 2,
              .max_seats = 3,
              .options = {first_player_option(3),
                          choice_option("triangles", {"any", "aligned"}, "any",
                                        "which triangles score: any equilateral triangle, tilted "
                                        "ones included, or only those whose sides follow the "
                                        "lattice lines"),
                          bool_option("purple_quirks", true,
                                      "play with the 3 purple Quirks (off: a less random "
                                      "game)")}}) {}

 protected:
  Result<std::unique_ptr<State>> do_create(const json& options, std::uint64_t seed) const override {
    return make_state(options, seed, std::nullopt);
  }
};

}  // namespace

const Game& game() {
  static const QuirkyGame instance;
  return instance;
}

std::size_t triangle_count(bool aligned_only) {
  const Board& board = the_board();
  if (!board.valid) return 0;
  return aligned_only ? board.aligned_triangles.size() : board.all_triangles.size();
}

Result<std::unique_ptr<State>> create_with_stacked_bag(const json& options, std::uint64_t seed,
                                                       const std::vector<std::string>& bag) {
  const auto normalized = game().normalize_options(options);
  if (!normalized) return std::unexpected(normalized.error());
  std::deque<int> order;
  for (const auto& name : bag) {
    const auto it = std::ranges::find(kPieceNames, name);
    if (it == kPieceNames.end()) return std::unexpected(RuleError::bad_option);
    order.push_back(static_cast<int>(it - kPieceNames.begin()));
  }
  return make_state(*normalized, seed, std::move(order));
}

}  // namespace plateau::rules::quirky
