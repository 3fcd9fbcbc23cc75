#include "on_top_state.hpp"

#include "on_top_data.hpp"

namespace plateau::rules::on_top {

namespace {

json point_json(Point p) { return json::array({p.x, p.y}); }

Board load_board() {
  const json data = json::parse(data::kBoardJson);
  Board b;
  std::vector<bool> golden_cell;
  const auto& rows = data.at("rows");
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const auto row = rows[r].get<std::string>();
    for (int c = 0; c < static_cast<int>(row.size()); ++c) {
      if (row[c] == '.') continue;
      CellGeo g;
      g.name = std::string(1, static_cast<char>('a' + r)) + std::to_string(c + 1);
      g.up = (r + c) % 2 == 0;
      // x in half edges, y in rows: an up cell's apex is above the middle of its base.
      if (g.up)
        g.points = {Point{c + 1, r}, Point{c + 2, r + 1}, Point{c, r + 1}};
      else
        g.points = {Point{c, r}, Point{c + 2, r}, Point{c + 1, r + 1}};
      b.by_name[g.name] = static_cast<int>(b.cells.size());
      b.cells.push_back(std::move(g));
      golden_cell.push_back(row[c] == 'g');
    }
  }
  const int n = static_cast<int>(b.cells.size());

  std::map<std::pair<int, int>, int> index_of;  // (y, x) → intersection, in reading order
  for (const auto& cell : b.cells)
    for (const auto& p : cell.points) index_of.emplace(std::pair{p.y, p.x}, 0);
  for (auto& [yx, index] : index_of) {
    index = static_cast<int>(b.intersections.size());
    b.intersections.push_back(Intersection{Point{yx.second, yx.first}, {}, false});
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const Point p = b.cells[i].points[k];
      const int v = index_of.at({p.y, p.x});
      b.cells[i].intersection[k] = v;
      b.intersections[v].around.emplace_back(i, k);
    }

  auto has_point = [&](int cell, Point p) {
    return std::ranges::find(b.cells[cell].points, p) != b.cells[cell].points.end();
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int shared = 0;
      for (const auto& p : b.cells[i].points) shared += has_point(j, p) ? 1 : 0;
      if (shared == 2) b.cells[i].neighbours.push_back(j);
    }

  // An outer edge of a 'g' cell (an edge no other cell shares) is golden, and so are its ends.
  json golden_edges = json::array();
  for (int i = 0; i < n; ++i) {
    if (!golden_cell[i]) continue;
    const auto& cell = b.cells[i];
    for (int k = 0; k < 3; ++k) {
      const Point p = cell.points[k], q = cell.points[(k + 1) % 3];
      const bool shared = std::ranges::any_of(
          cell.neighbours, [&](int j) { return has_point(j, p) && has_point(j, q); });
      if (shared) continue;
      b.intersections[cell.intersection[k]].golden = true;
      b.intersections[cell.intersection[(k + 1) % 3]].golden = true;
      golden_edges.push_back(json::array({point_json(p), point_json(q)}));
    }
  }

  auto names = [&](const char* key) {
    std::vector<int> out;
    for (const auto& name : data.at(key)) {
      const auto it = b.by_name.find(name.get<std::string>());
      if (it != b.by_name.end()) out.push_back(it->second);
    }
    return out;
  };
  b.red_start = names("red_start");
  b.alternative_start = names("alternative_start");
  b.track_spaces = data.at("score_track_spaces").get<int>();

  json cells = json::array();
  for (const auto& cell : b.cells) {
    json points = json::array();
    for (const auto& p : cell.points) points.push_back(point_json(p));
    cells.push_back(json{{"name", cell.name}, {"up", cell.up}, {"points", std::move(points)}});
  }
  json intersections = json::array();
  for (const auto& v : b.intersections) {
    json around = json::array();
    for (const auto& [cell, corner] : v.around) around.push_back(json::array({cell, corner}));
    intersections.push_back(
        json{{"x", v.at.x}, {"y", v.at.y}, {"golden", v.golden}, {"cells", std::move(around)}});
  }
  b.fixed = std::make_shared<const json>(
      json{{"geometry", json{{"cells", std::move(cells)},
                             {"intersections", std::move(intersections)},
                             {"golden_edges", std::move(golden_edges)},
                             {"track_spaces", b.track_spaces}}}});
  return b;
}

std::optional<Tile> parse_tile(std::string_view text) {
  if (text.size() != kSixths) return std::nullopt;
  Tile t{};
  for (int i = 0; i < kSixths; ++i) {
    const auto at = kColourLetters.find(text[i]);
    if (at == std::string_view::npos) return std::nullopt;
    t[i] = static_cast<int>(at);
  }
  return t;
}

const std::vector<std::string>& box_tile_texts() {
  static const std::vector<std::string> instance = [] {
    // Keep the parsed document alive: a range-for over a temporary's member dangles in C++20.
    const json data = json::parse(data::kTilesJson);
    std::vector<std::string> out;
    for (const auto& t : data.at("tiles")) out.push_back(t.get<std::string>());
    return out;
  }();
  return instance;
}

}  // namespace

const Board& board() {
  static const Board instance = load_board();
  return instance;
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::empty:
      return "empty";
    case Kind::start:
      return "start";
    case Kind::black:
      return "black";
    case Kind::hole:
      return "void";
    case Kind::tile:
      return "tile";
  }
  return "empty";
}

std::vector<Move> OnTopState::legal_moves() const {
  std::vector<Move> moves;
  if (outcome_) return moves;
  const auto& cells = board().cells;
  for (int a = 0; a < static_cast<int>(cells.size()); ++a)
    for (int b : cells[a].neighbours)
      if (can_place(a, b)) moves.push_back(Move{cells[a].name + "-" + cells[b].name});
  return moves;
}

bool OnTopState::is_legal(const Move& move) const {
  if (outcome_) return false;
  const auto parsed = parse_move(move.text);
  return parsed && can_place(parsed->first, parsed->second);
}

void OnTopState::do_apply(const Move& move) {
  const auto [a, b] = *parse_move(move.text);
  const int tile = *drawn_;
  drawn_.reset();
  ++placed_;
  place(a, b, tile);
  last_ = object_of("seat", to_move_, "colour", kColourNames[to_move_], "move", move.text, "tile",
                    tile, "cells", list_of(a, b), "filled", fill_holes(), "scored", json::array());
  score_completed(last_["scored"]);
  if (outcome_) return;
  to_move_ = (to_move_ + 1) % players_;
  begin_turn();
}

std::optional<std::pair<int, int>> OnTopState::parse_move(std::string_view text) {
  const auto dash = text.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const auto& names = board().by_name;
  const auto a = names.find(text.substr(0, dash));
  const auto b = names.find(text.substr(dash + 1));
  if (a == names.end() || b == names.end()) return std::nullopt;
  return std::pair{a->second, b->second};
}

bool OnTopState::can_place(int a, int b) const {
  if (!drawn_ || filled(a) || filled(b)) return false;
  const auto& cells = board().cells;
  if (std::ranges::find(cells[a].neighbours, b) == cells[a].neighbours.end()) return false;
  auto touches = [&](int cell, int other) {
    return std::ranges::any_of(cells[cell].neighbours,
                               [&](int n) { return n != other && filled(n); });
  };
  return touches(a, b) || touches(b, a);
}

bool OnTopState::any_placement() const {
  const auto& cells = board().cells;
  for (int a = 0; a < static_cast<int>(cells.size()); ++a) {
    if (filled(a)) continue;
    for (int b : cells[a].neighbours) {
      if (filled(b)) continue;
      for (int n : cells[a].neighbours)
        if (n != b && filled(n)) return true;
      for (int n : cells[b].neighbours)
        if (n != a && filled(n)) return true;
    }
  }
  return false;
}

std::unique_ptr<State> OnTopState::determinize(Seat, Rng& rng) const {
  auto sample = std::make_unique<OnTopState>(*this);
  sample->rng_ = Rng(rng.next());
  sample->fixed_order_ = false;  // a test's fixed draw order is as hidden as the generator
  return sample;
}

void OnTopState::begin_turn() {
  if (pile_.empty()) return finish_by_points("the tiles ran out", "tiles_out", true);
  if (!any_placement()) return finish_by_points("no room is left for a tile", "no_room", true);
  std::size_t at = 0;
  if (!fixed_order_) at = static_cast<std::size_t>(rng_.below(pile_.size()));
  drawn_ = pile_[at];
  pile_.erase(pile_.begin() + static_cast<std::ptrdiff_t>(at));
}

void OnTopState::place(int a, int b, int tile) {
  const auto& geo = board().cells;
  const Tile& t = tiles_[tile];
  auto corner_of = [&](int cell, Point p) {
    return static_cast<int>(std::ranges::find(geo[cell].points, p) - geo[cell].points.begin());
  };
  int far_a = 0;
  while (corner_of(b, geo[a].points[far_a]) < 3) ++far_a;
  const Point w1 = geo[a].points[(far_a + 1) % 3], w2 = geo[a].points[(far_a + 2) % 3];
  const int b_w1 = corner_of(b, w1), b_w2 = corner_of(b, w2);
  const int far_b = 3 - b_w1 - b_w2;
  CellState& ca = cells_[a];
  CellState& cb = cells_[b];
  ca = CellState{Kind::tile, tile, placed_, b, {}};
  cb = CellState{Kind::tile, tile, placed_, a, {}};
  ca.corners[far_a] = t[0];
  ca.corners[(far_a + 1) % 3] = t[1];
  cb.corners[b_w1] = t[2];
  cb.corners[far_b] = t[3];
  cb.corners[b_w2] = t[4];
  ca.corners[(far_a + 2) % 3] = t[5];
}

json OnTopState::fill_holes() {
  json filled_now = json::array();
  const auto& geo = board().cells;
  for (int i = 0; i < static_cast<int>(geo.size()); ++i) {
    if (filled(i)) continue;
    if (std::ranges::any_of(geo[i].neighbours, [&](int n) { return !filled(n); })) continue;
    if (spare_blacks_ > 0) {
      --spare_blacks_;
      cells_[i].kind = Kind::black;
    } else {
      cells_[i].kind = Kind::hole;
    }
    filled_now.push_back(object_of("cell", i, "kind", kind_name(cells_[i].kind)));
  }
  return filled_now;
}

void OnTopState::score_completed(json& scored) {
  const auto& inters = board().intersections;
  for (int v = 0; v < static_cast<int>(inters.size()) && !outcome_; ++v) {
    if (closed_[v]) continue;
    if (!std::ranges::all_of(inters[v].around, [&](const auto& ck) { return filled(ck.first); }))
      continue;
    scored.push_back(score_intersection(v));
  }
}

json OnTopState::score_intersection(int v) {
  const Intersection& inter = board().intersections[v];
  closed_[v] = true;
  std::array<int, kColours> counts{};
  for (const auto& [cell, corner] : inter.around)
    if (cells_[cell].kind == Kind::tile) ++counts[cells_[cell].corners[corner]];
  json record{
      {"intersection", v},       {"golden", inter.golden}, {"counts", counts}, {"tie", false},
      {"placed", json::array()}, {"top", nullptr},         {"height", 0},      {"points", 0},
      {"scorer", nullptr}};
  const int most = *std::ranges::max_element(counts);
  const int at_most = static_cast<int>(std::ranges::count(counts, most));
  if (most == 0) return record;  // only black around: no colour to place
  if (at_most > 1) {
    record["tie"] = true;
    return record;
  }
  int second = 0;
  for (int n : counts)
    if (n < most) second = std::max(second, n);
  // Every colour in second place puts a pawn down, all at once (« l'ordre est sans
  // importance »): the pawns go down in whatever order the colours are listed, the tower and
  // the record then hold them in colour order, and only then is the end of the game checked,
  // once, on every colour that has just placed its last pawn.
  std::vector<int> seconds;
  if (second > 0)
    for (int c : seconds_order_)
      if (counts[c] == second) seconds.push_back(c);
  for (int c : seconds) {
    towers_[v].push_back(c);
    --pawns_[c];
  }
  std::ranges::sort(seconds);
  std::ranges::sort(towers_[v]);  // seconds only so far: colour order, whatever the listing
  for (int c : seconds)
    record["placed"].push_back(object_of("colour", kColourNames[c], "seat", seat_json(c)));
  check_ran_out(seconds);
  if (outcome_) return record;
  const int top = static_cast<int>(std::ranges::max_element(counts) - counts.begin());
  towers_[v].push_back(top);
  --pawns_[top];
  const int height = static_cast<int>(towers_[v].size());
  const int points = height * (inter.golden ? 2 : 1);
  record["placed"].push_back(object_of("colour", kColourNames[top], "seat", seat_json(top)));
  record["top"] = kColourNames[top];
  record["height"] = height;
  record["points"] = top < players_ ? points : 0;  // a neutral colour moves no marker
  if (top < players_) {
    score_[top] += points;
    record["scorer"] = top;
  }
  check_ran_out({top});
  return record;
}

void OnTopState::check_ran_out(const std::vector<int>& placed) {
  std::vector<int> players, neutrals;
  for (int c : placed)
    if (pawns_[c] == 0) (c < players_ ? players : neutrals).push_back(c);
  if (players.empty() && neutrals.empty()) return;
  if (players.empty())
    return finish_by_points("the neutral " + colour_list(neutrals) + " pawns ran out",
                            "neutrals_out", false, neutrals);
  std::vector<Seat> winners;
  for (int c : players) {
    if (teams_) {
      winners.push_back(c % 2);
      winners.push_back(c % 2 + 2);
    } else {
      winners.push_back(c);
    }
  }
  std::ranges::sort(winners);
  winners.erase(std::unique(winners.begin(), winners.end()), winners.end());
  std::string reason;
  std::string_view how;
  if (players.size() == 1) {
    reason = colour_list(players) + " placed their last pawn and " +
             (teams_ ? "their team wins" : "wins") + " at once";
    how = teams_ ? "team" : "alone";
  } else {
    reason = colour_list(players) + " placed their last pawns in the same placement and ";
    if (!teams_) {
      reason += "share the win";
      how = "shared";
    } else if (winners.size() == 2) {
      reason += "their team wins";
      how = "team";
    } else {
      reason += "both teams share the win";
      how = "both_teams";
    }
  }
  outcome_ = Outcome{std::move(winners),
                     outcome_scores(),
                     std::move(reason),
                     "on_top.last_pawn",
                     {{"seats", players}, {"how", how}}};
  drawn_.reset();
}

std::string OnTopState::colour_list(const std::vector<int>& colours) {
  std::string out;
  for (std::size_t i = 0; i < colours.size(); ++i) {
    if (i > 0) out += i + 1 == colours.size() ? " and " : ", ";
    out += kColourNames[colours[i]];
  }
  return out;
}

std::vector<int> OnTopState::outcome_scores() const {
  std::vector<int> out(score_);
  if (teams_)
    for (Seat s = 0; s < players_; ++s) out[s] = score_[s % 2] + score_[s % 2 + 2];
  return out;
}

void OnTopState::finish_by_points(const std::string& why, std::string_view ended, bool penalty,
                                  const std::vector<int>& neutrals) {
  drawn_.reset();
  if (penalty)
    for (Seat s = 0; s < players_; ++s) {
      penalty_[s] = pawns_[s];
      score_[s] -= pawns_[s];
    }
  std::vector<std::vector<Seat>> units;
  if (teams_) {
    units = {{0, 2}, {1, 3}};
  } else {
    for (Seat s = 0; s < players_; ++s) units.push_back({s});
  }
  auto total = [](const std::vector<Seat>& unit, const auto& per_seat) {
    int sum = 0;
    for (Seat s : unit) sum += per_seat[s];
    return sum;
  };
  int best_score = total(units.front(), score_);
  for (const auto& u : units) best_score = std::max(best_score, total(u, score_));
  int best_pawns = kPawnsPerColour * kColours;
  int on_best_score = 0;
  for (const auto& u : units)
    if (total(u, score_) == best_score) {
      ++on_best_score;
      best_pawns = std::min(best_pawns, total(u, pawns_));
    }
  std::vector<Seat> winners;
  int winning_units = 0;
  for (const auto& u : units)
    if (total(u, score_) == best_score && total(u, pawns_) == best_pawns) {
      ++winning_units;
      winners.insert(winners.end(), u.begin(), u.end());
    }
  std::ranges::sort(winners);
  std::string reason =
      why + (penalty ? ": each unused pawn costs 1 point" : "") + "; most points wins";
  std::string_view tie = "none";
  if (winning_units > 1) {
    reason += " (a shared win: equal points and equal pawns left)";
    tie = "shared";
  } else if (on_best_score > 1) {
    reason += " (equal points: fewest pawns left wins)";
    tie = "fewest_pawns";
  }
  outcome_ =
      Outcome{std::move(winners),
              outcome_scores(),
              std::move(reason),
              "on_top.points",
              {{"ended", ended}, {"neutrals", neutrals}, {"penalty", penalty}, {"tie", tie}}};
}

namespace {

// Interior cells (three neighbours), drawn one at a time, none sharing an edge with another.
std::vector<int> random_start(int count, Rng& rng) {
  const auto& cells = board().cells;
  std::vector<int> candidates;
  for (int i = 0; i < static_cast<int>(cells.size()); ++i)
    if (cells[i].neighbours.size() == 3) candidates.push_back(i);
  std::vector<int> chosen;
  while (static_cast<int>(chosen.size()) < count && !candidates.empty()) {
    const int pick = candidates[rng.below(candidates.size())];
    chosen.push_back(pick);
    std::erase_if(candidates, [&](int c) {
      return c == pick ||
             std::ranges::find(cells[pick].neighbours, c) != cells[pick].neighbours.end();
    });
  }
  std::ranges::sort(chosen);
  return chosen;
}

Result<std::unique_ptr<State>> make_state(const json& options, std::uint64_t seed,
                                          const TestSetup* test) {
  Setup setup;
  setup.players = options.at("players").get<int>();
  setup.teams = options.at("teams").get<bool>();
  if (setup.teams && setup.players != 4) return std::unexpected(RuleError::bad_option);
  const auto start = options.at("start").get<std::string>();
  const int count = options.at("start_triangles").get<int>();
  Rng rng(seed);
  const auto first = pick_first_player(options, setup.players, rng);
  if (!first) return std::unexpected(first.error());
  setup.first = *first;
  const Board& b = board();
  if (start == "red") {
    if (count != static_cast<int>(b.red_start.size()))
      return std::unexpected(RuleError::bad_option);
    setup.start_cells = b.red_start;
  } else if (start == "alternative") {
    if (count > static_cast<int>(b.alternative_start.size()))
      return std::unexpected(RuleError::bad_option);
    setup.start_cells.assign(b.alternative_start.begin(), b.alternative_start.begin() + count);
  } else {
    setup.start_cells = random_start(count, rng);
    if (static_cast<int>(setup.start_cells.size()) != count)
      return std::unexpected(RuleError::bad_option);
  }
  std::ranges::sort(setup.start_cells);  // board order, whatever the layout's order
  setup.spare_blacks = kBlackTriangles - count;
  for (int c = 0; c < kColours; ++c)
    setup.pawns[c] = kPawnsPerColour - (c < setup.players ? kMarkerPawns : 0);

  std::vector<std::string> texts = box_tile_texts();
  if (test) {
    if (!test->tiles.empty()) {
      texts = test->tiles;
      setup.fixed_order = true;
    }
    if (test->pawns) {
      for (int n : *test->pawns)
        if (n < 1 || n > kPawnsPerColour) return std::unexpected(RuleError::bad_option);
      setup.pawns = *test->pawns;
    }
    if (test->spare_blacks) {
      if (*test->spare_blacks < 0 || *test->spare_blacks > kBlackTriangles)
        return std::unexpected(RuleError::bad_option);
      setup.spare_blacks = *test->spare_blacks;
    }
    if (test->seconds_order) {
      auto sorted = *test->seconds_order;
      std::ranges::sort(sorted);
      if (sorted != std::array<int, kColours>{0, 1, 2, 3})
        return std::unexpected(RuleError::bad_option);
      setup.seconds_order = *test->seconds_order;
    }
  }
  for (const auto& text : texts) {
    const auto tile = parse_tile(text);
    if (!tile) return std::unexpected(RuleError::bad_option);
    setup.tiles.push_back(*tile);
  }
  return std::make_unique<OnTopState>(std::move(setup), rng);
}

class OnTopGame final : public Game {
 public:
  OnTopGame()
      : Game({.id = "on_top",
              .name = "On Top",
              .min_seats = 2,
              .max_seats = 4,
              .options = {first_player_option(4),
                          bool_option("teams", false,
                                      "4 players only: partners sit opposite and add their points"),
                          choice_option("start", {"red", "alternative", "random"}, "red",
                                        "where the black start triangles go: the two red cells, "
                                        "the board's alternative cells, or cells drawn at random"),
                          int_option("start_triangles", kMinStart, kMinStart, kMaxStart,
                                     "how many black start triangles (the red cells take "
                                     "exactly 2)")}}) {}

  // The view shows everything but the order of the tiles still face down, which `rng` draws
  // afresh.
  std::unique_ptr<State> from_view(const Seen& seen, Rng& rng) const override {
    const auto options = normalize_options(seen.options);
    if (!options) return nullptr;
    Setup setup;
    setup.players = options->at("players").get<int>();
    setup.teams = options->at("teams").get<bool>();
    if ((setup.teams && setup.players != 4) || seen.viewer < 0 || seen.viewer >= setup.players)
      return nullptr;
    for (const auto& text : box_tile_texts()) {
      const auto tile = parse_tile(text);
      if (!tile) return nullptr;  // the box's data is broken: no room is created either
      setup.tiles.push_back(*tile);
    }
    for (int c = 0; c < kColours; ++c)
      setup.pawns[c] = kPawnsPerColour - (c < setup.players ? kMarkerPawns : 0);
    return OnTopState::from_view(std::move(setup), *options, seen.board, seen.to_move, rng);
  }

 protected:
  Result<std::unique_ptr<State>> do_create(const json& options, std::uint64_t seed) const override {
    return make_state(options, seed, nullptr);
  }
};

}  // namespace

const Game& game() {
  static const OnTopGame instance;
  return instance;
}

const std::vector<std::string>& box_tiles() { return box_tile_texts(); }

Result<std::unique_ptr<State>> create_for_test(const json& options, std::uint64_t seed,
                                               const TestSetup& setup) {
  const auto normalized = game().normalize_options(options);
  if (!normalized) return std::unexpected(normalized.error());
  return make_state(*normalized, seed, &setup);
}

}  // namespace plateau::rules::on_top
