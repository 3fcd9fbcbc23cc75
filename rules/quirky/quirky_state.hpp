// Quirky's state class and what its rules (quirky.cpp) and its view (quirky_view.cpp, the
// ViewParts extension) both need of it. Private to this folder: nothing else includes it.
#pragma once

#include "quirky.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "../view_parts.hpp"

namespace plateau::rules::quirky {

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
  // For each point, the positions in all_triangles (aligned_triangles) of the triangles with a
  // corner there, ascending: an action changes one or two tops, and only these can change.
  std::vector<std::vector<int>> all_at, aligned_at;

  std::optional<int> find(std::string_view id) const {
    const auto it = index.find(id);
    return it == index.end() ? std::nullopt : std::optional<int>(it->second);
  }
};

const Board& the_board();

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
        triangles_at_(aligned_only ? &board_->aligned_at : &board_->all_at),
        stacks_(board_->points.size()),
        bag_(bag),
        stacked_(std::move(stacked)),
        rng_(rng),
        score_(seats, 0),
        set_aside_{} {
    for (Seat s = 0; s < seats; ++s) colour_of_.push_back(s);  // green, yellow, red in seat order
  }

  void begin(Seat first) { start_turn(first); }

  // The position `board` shows (Game::from_view; quirky_from_view.cpp), with the draws to come
  // taken from `rng`: every piece is on the board, in the bag (counted), set aside or in the
  // public log, so only the order of the draws is left to sample. nullptr when `board` is not
  // one this game shows with `options` (normalized), or when it shows a game that is over: no
  // seat is to move in it.
  static std::unique_ptr<QuirkyState> from_view(const json& options, const json& board,
                                                Seat to_move, Rng& rng);

  int num_seats() const override { return seats_; }
  // Every seat sees the whole board and the bag's counts; what is hidden is the draws to come.
  // A sample draws them afresh.
  std::unique_ptr<State> determinize(Seat, Rng& rng) const override;

  std::vector<Move> legal_moves() const override;
  std::vector<int> scores() const override { return score_; }
  std::string drawn() const override {
    return drawn_ == kNoColour ? std::string() : std::string(kPieceNames[drawn_]);
  }

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  json changing_view(std::optional<Seat>) const override;

  // A move changes a stack or two and adds to the log, which is never rewritten: the stacks
  // are compared where they are on the board and the new log entries appended.
  bool update_view(json& board, std::optional<Seat>, const Shown*, Update& update) const override;

 private:
  json stack_json(std::size_t p) const;
  // Whether `node` is stack_json(p), without building it.
  bool shows_stack(const json& node, std::size_t p) const;

  // Everything on the board but its points and its log.
  json rest_of_view() const;

 protected:
  bool is_legal(const Move& move) const override;

  void do_apply(const Move& move) override;

 private:
  Seat next(Seat s) const { return (s + 1) % seats_; }

  bool can_place(int point, int colour) const;

  void push(int point, int piece);
  int pop(int point);

  Seat holder(int colour) const;
  // The drawer's choices, in the order legal_moves lists them.
  std::vector<Action> actions() const;

  int holder_free_colour() const;

  // The counted triangles (positions in `triangles_`, ascending) with a corner at `a` or `b`
  // (-1: none): the only ones an action on those points can change.
  std::vector<int> touching(int a, int b) const;

  // For each of `which` (positions in `triangles_`): the colour of its three tops when they all
  // agree, else kNoColour.
  std::vector<int> triangle_colours(const std::vector<int>& which) const;

  // The set difference: a triangle of `which` scores when it is one-coloured now and was not
  // (in that colour) before the action, for whoever holds that colour now.
  std::vector<ScoredTriangle> score_new_triangles(const std::vector<int>& which,
                                                  const std::vector<int>& before);

  int bag_total() const;

  int draw();

  // Seat `s` draws; whatever leaves no choice is resolved here and the turn passes on, until a
  // seat holds a piece it can play or the bag is empty.
  void start_turn(Seat s);

  bool has_move() const;

  void finish();

  json drawn_json() const;

  json last_json() const;

  static json log_json(const LogEntry& e);

  const Board* board_;
  int seats_;
  bool aligned_only_;
  const std::vector<int>* triangles_;                  // the triangles that count under the options
  const std::vector<std::vector<int>>* triangles_at_;  // by point: which of them touch it
  std::vector<Stack> stacks_;                          // one per board point, in board order
  std::array<int, kKinds> bag_;                        // pieces left in the bag, per kind (public)
  std::optional<std::deque<int>> stacked_;             // test-only fixed draw order (never shown)
  Rng rng_;                                            // the draws: hidden, never shown
  std::vector<int> colour_of_;                         // per seat
  std::vector<int> score_;
  std::array<int, kColours> set_aside_;
  int drawn_ = kNoColour;  // the piece the seat to move holds
  std::optional<LastMove> last_;
  std::vector<LogEntry> log_;
};

}  // namespace plateau::rules::quirky
