#include "quirky_state.hpp"

#include "quirky/board_data.hpp"

namespace plateau::rules::quirky {

namespace {

bool is_colour(int piece) { return piece >= 0 && piece < kColours; }

Axial rotate60(Axial v) { return {-v.b, v.a + v.b}; }  // E → SE, SE → SE − E

// A side along a lattice line: a multiple of E, SE or SE − E.
bool along_lattice(Axial v) { return v.a == 0 || v.b == 0 || v.a == -v.b; }

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
  board.all_at.resize(board.points.size());
  board.aligned_at.resize(board.points.size());
  for (int t = 0; t < static_cast<int>(board.triangles.size()); ++t) {
    for (int p : board.triangles[t].corners)
      board.all_at[p].push_back(static_cast<int>(board.all_triangles.size()));
    board.all_triangles.push_back(t);
    if (!board.triangles[t].aligned) continue;
    for (int p : board.triangles[t].corners)
      board.aligned_at[p].push_back(static_cast<int>(board.aligned_triangles.size()));
    board.aligned_triangles.push_back(t);
  }
  board.valid = true;
  return board;
}

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

}  // namespace

const Board& the_board() {
  static const Board board = load_board();
  return board;
}

std::vector<Move> QuirkyState::legal_moves() const {
  std::vector<Move> moves;
  const auto& points = board_->points;
  for (const Action& a : actions()) {
    switch (a.kind) {
      case Action::Kind::place:
        moves.push_back(Move{points[a.to].id});
        break;
      case Action::Kind::slide:
        moves.push_back(Move{points[a.from].id + "-" + points[a.to].id});
        break;
      case Action::Kind::take:
        moves.push_back(Move{"x" + points[a.from].id});
        break;
    }
  }
  return moves;
}

bool QuirkyState::is_legal(const Move& move) const {
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

void QuirkyState::do_apply(const Move& move) {
  const Action action = *parse(*board_, move.text);
  const auto which = touching(action.from, action.to);
  const auto before = triangle_colours(which);
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
  LastMove last{mover, drawn_, move.text, score_new_triangles(which, before)};
  entry.gain.assign(seats_, 0);
  for (const auto& s : last.scored)
    if (s.seat != kNoSeat) entry.gain[s.seat] += s.gain;
  last_ = std::move(last);
  log_.push_back(std::move(entry));
  drawn_ = kNoColour;
  start_turn(next(mover));
}

bool QuirkyState::can_place(int point, int colour) const {
  const Stack& st = stacks_[point];
  return st.height < kMaxHeight && st.top() != colour;
}

void QuirkyState::push(int point, int piece) {
  Stack& st = stacks_[point];
  st.pieces[st.height++] = static_cast<std::int8_t>(piece);
}

int QuirkyState::pop(int point) {
  Stack& st = stacks_[point];
  return st.pieces[--st.height];
}

Seat QuirkyState::holder(int colour) const {
  for (Seat s = 0; s < seats_; ++s)
    if (colour_of_[s] == colour) return s;
  return kNoSeat;
}

std::vector<Action> QuirkyState::actions() const {
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

int QuirkyState::holder_free_colour() const {
  for (int c = 0; c < kColours; ++c)
    if (holder(c) == kNoSeat) return c;
  return kNoColour;
}

std::vector<int> QuirkyState::touching(int a, int b) const {
  std::vector<int> out;
  if (a >= 0) out = (*triangles_at_)[a];
  if (b >= 0) {
    const auto& more = (*triangles_at_)[b];
    std::vector<int> both;
    both.reserve(out.size() + more.size());
    std::ranges::set_union(out, more, std::back_inserter(both));
    out = std::move(both);
  }
  return out;
}

std::vector<int> QuirkyState::triangle_colours(const std::vector<int>& which) const {
  std::vector<int> colours;
  colours.reserve(which.size());
  for (int i : which) {
    const auto& c = board_->triangles[(*triangles_)[i]].corners;
    const int top = stacks_[c[0]].top();
    colours.push_back(top != kNoColour && stacks_[c[1]].top() == top && stacks_[c[2]].top() == top
                          ? top
                          : kNoColour);
  }
  return colours;
}

std::vector<ScoredTriangle> QuirkyState::score_new_triangles(const std::vector<int>& which,
                                                             const std::vector<int>& before) {
  std::vector<ScoredTriangle> scored;
  const auto after = triangle_colours(which);
  for (std::size_t i = 0; i < after.size(); ++i) {
    if (after[i] == kNoColour || after[i] == before[i]) continue;
    const Seat seat = holder(after[i]);
    const int gain = seat == kNoSeat ? 0 : kTrianglePoints;
    if (seat != kNoSeat) score_[seat] += gain;
    scored.push_back({(*triangles_)[which[i]], after[i], seat, gain});
  }
  return scored;
}

int QuirkyState::bag_total() const {
  int total = 0;
  for (int k : bag_) total += k;
  return total;
}

std::unique_ptr<State> QuirkyState::determinize(Seat, Rng& rng) const {
  auto sample = std::make_unique<QuirkyState>(*this);
  sample->rng_ = Rng(rng.next());
  sample->stacked_.reset();  // a test's fixed draw order is as hidden as the generator
  return sample;
}

int QuirkyState::draw() {
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

void QuirkyState::start_turn(Seat s) {
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

bool QuirkyState::has_move() const {
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

void QuirkyState::finish() {
  drawn_ = kNoColour;
  const int best = *std::ranges::max_element(score_);
  std::vector<Seat> winners;
  for (Seat s = 0; s < seats_; ++s)
    if (score_[s] == best) winners.push_back(s);
  // Who won is in `winners`; the reason names no seat, since a table shows names, not numbers.
  const std::string points = std::to_string(best) + (best == 1 ? " point" : " points");
  std::string reason =
      "the bag is empty: " + (winners.size() == 1 ? "the highest score is " + points
                                                  : std::to_string(winners.size()) +
                                                        " players share the win with " + points);
  const int sharing = static_cast<int>(winners.size());
  outcome_ = Outcome{std::move(winners),
                     score_,
                     std::move(reason),
                     "quirky.bag_empty",
                     {{"points", best}, {"sharing", sharing}}};
}

namespace {

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

  // The view shows everything but the order of the coming draws, which `rng` draws afresh.
  std::unique_ptr<State> from_view(const Seen& seen, Rng& rng) const override {
    const auto options = normalize_options(seen.options);
    if (!options || seen.viewer < 0 || seen.viewer >= options->at("players").get<int>())
      return nullptr;
    return QuirkyState::from_view(*options, seen.board, seen.to_move, rng);
  }

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
