#include "server/ratings/ratings.hpp"

#include <algorithm>

namespace plateau::server {

using nlohmann::json;

namespace {

constexpr std::int64_t kDayMs = 24LL * 3'600'000;

}  // namespace

std::vector<int> ranks_from_outcome(const json& outcome, int seats) {
  const auto n = static_cast<std::size_t>(std::max(0, seats));
  std::vector<bool> winner(n, false), left(n, false);
  std::vector<int> left_order(n, 0);
  if (const auto w = outcome.find("winners"); w != outcome.end() && w->is_array())
    for (const auto& s : *w)
      if (s.is_number_integer() && s.get<int>() >= 0 && s.get<int>() < seats)
        winner[s.get<std::size_t>()] = true;
  std::vector<double> score(n, 0);
  bool scored = false;
  if (const auto sc = outcome.find("scores");
      sc != outcome.end() && sc->is_array() && sc->size() == n) {
    scored = true;
    for (std::size_t i = 0; i < n; ++i)
      score[i] = (*sc)[i].is_number() ? (*sc)[i].get<double>() : 0;
  }
  int departures = 0;
  if (const auto l = outcome.find("left"); l != outcome.end() && l->is_array())
    for (const auto& d : *l) {
      const int seat = d.is_object() ? d.value("seat", -1) : -1;
      if (seat < 0 || seat >= seats || left[static_cast<std::size_t>(seat)]) continue;
      left[static_cast<std::size_t>(seat)] = true;
      left_order[static_cast<std::size_t>(seat)] = departures++;
    }
  // A key per seat, larger is better: stayed, won, score; then who left later.
  struct Key {
    int stayed, won;
    double score;
    int late;
    auto operator<=>(const Key&) const = default;
  };
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = {left[i] ? 0 : 1, winner[i] && !left[i] ? 1 : 0, scored && !left[i] ? score[i] : 0,
               left[i] ? left_order[i] : 0};
  std::vector<int> ranks(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (keys[j] > keys[i]) ++ranks[i];
  return ranks;
}

void Ratings::restore(const std::vector<RatingRow>& rows) {
  for (const auto& r : rows) rows_[{r.player, r.game}] = r;
}

void Ratings::reload(const std::string& player, const std::vector<RatingRow>& rows) {
  std::erase_if(rows_, [&](const auto& entry) { return entry.first.first == player; });
  restore(rows);
}

RatingRow Ratings::of(const std::string& player, const std::string& game) const {
  const auto it = rows_.find({player, game});
  if (it != rows_.end()) return it->second;
  RatingRow fresh;
  fresh.player = player;
  fresh.game = game;
  return fresh;
}

std::vector<RatingRow> Ratings::all_of(const std::string& player) const {
  std::vector<RatingRow> out;
  for (auto it = rows_.lower_bound({player, ""}); it != rows_.end() && it->first.first == player;
       ++it)
    out.push_back(it->second);
  return out;
}

std::vector<RatingChange> Ratings::rate(const std::string& game, const std::string& room, int round,
                                        const std::vector<std::string>& players,
                                        const json& outcome, std::int64_t at_ms, Done done) {
  const int seats = static_cast<int>(players.size());
  const auto ranks = ranks_from_outcome(outcome, seats);
  // Before the game, each deviation grows for the whole days since their last rated game.
  std::vector<RatingRow> before;
  std::vector<Glicko> now;
  for (const auto& p : players) {
    auto row = of(p, game);
    Glicko g{row.rating, row.deviation, row.volatility};
    if (row.games > 0 && at_ms > row.last_ms)
      g = glicko_idle(g, static_cast<double>((at_ms - row.last_ms) / kDayMs));
    before.push_back(row);
    now.push_back(g);
  }
  const auto results = glicko_pairwise(now, ranks);
  std::vector<RatingRow> after;
  std::vector<RatingChange> changes;
  for (std::size_t i = 0; i < players.size(); ++i) {
    const auto g = glicko_update(now[i], results[i]);
    RatingRow row = before[i];
    row.rating = g.rating;
    row.deviation = g.deviation;
    row.volatility = g.volatility;
    ++row.games;
    // A win is finishing first alone or shared; a loss, below someone; a draw, all level.
    const bool all_level = std::ranges::all_of(ranks, [&](int r) { return r == ranks[0]; });
    if (all_level)
      ++row.draws;
    else if (ranks[i] == 0)
      ++row.wins;
    else
      ++row.losses;
    row.last_ms = at_ms;
    rows_[{row.player, row.game}] = row;
    after.push_back(row);
    changes.push_back({room, round, row.player, game, at_ms, row.rating, row.deviation,
                       row.rating - before[i].rating});
  }
  store_.put_rated_game(after, changes, std::move(done));
  return changes;
}

std::vector<RatingRow> Ratings::leaderboard(const std::string& game, int min_games,
                                            std::int64_t active_since_ms, std::size_t limit) const {
  std::vector<RatingRow> out;
  for (const auto& [key, row] : rows_)
    if (key.second == game && row.games >= min_games && row.last_ms >= active_since_ms)
      out.push_back(row);
  std::ranges::sort(out, [](const RatingRow& a, const RatingRow& b) {
    return a.rating != b.rating ? a.rating > b.rating : a.player < b.player;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace plateau::server
