// Tournament pairings and standings; the rules are in pairing.hpp.
#include "server/tournaments/pairing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace plateau::server::tournaments {
namespace {

// What the pairings need to know of each player, from the games and byes so far. Players are
// indices into `players_by_seed`.
struct History {
  std::vector<double> score;
  std::vector<int> byes;
  std::vector<int> first;             // games in seat 0
  std::vector<int> played;            // games
  std::vector<int> last_round;        // round of the last game (0: none yet)
  std::vector<bool> last_first;       // seat 0 in that last game
  std::vector<std::vector<int>> met;  // met[a][b]: games a and b played together
  std::vector<int> ranked;            // indices by score, then seed
};

History history_of(const std::vector<std::string>& players, const std::vector<GameResult>& games,
                   const std::vector<Bye>& byes) {
  const std::size_t n = players.size();
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < n; ++i) index.emplace(players[i], static_cast<int>(i));
  History h;
  h.score.assign(n, 0);
  h.byes.assign(n, 0);
  h.first.assign(n, 0);
  h.played.assign(n, 0);
  h.last_round.assign(n, 0);
  h.last_first.assign(n, false);
  h.met.assign(n, std::vector<int>(n, 0));
  for (const auto& g : games) {
    std::vector<int> at;  // -1 for a player we do not know
    for (const auto& id : g.seats) {
      const auto it = index.find(id);
      at.push_back(it == index.end() ? -1 : it->second);
    }
    for (std::size_t s = 0; s < at.size(); ++s) {
      const int p = at[s];
      if (p < 0) continue;
      if (s < g.points.size()) h.score[p] += g.points[s];
      if (s == 0) ++h.first[p];
      ++h.played[p];
      // The last game is the one of the latest round; among equal rounds, the later listed.
      if (g.round >= h.last_round[p]) {
        h.last_round[p] = g.round;
        h.last_first[p] = s == 0;
      }
      for (std::size_t t = 0; t < at.size(); ++t)
        if (t != s && at[t] >= 0) ++h.met[p][at[t]];
    }
  }
  for (const auto& b : byes) {
    const auto it = index.find(b.player);
    if (it == index.end()) continue;
    h.score[it->second] += b.points;
    ++h.byes[it->second];
  }
  h.ranked.resize(n);
  for (std::size_t i = 0; i < n; ++i) h.ranked[i] = static_cast<int>(i);
  // By score, then seed. (A total order and std::sort: libstdc++'s stable_sort leans on the
  // deprecated get_temporary_buffer.)
  std::ranges::sort(h.ranked, [&](int a, int b) {
    return h.score[a] != h.score[b] ? h.score[a] > h.score[b] : a < b;
  });
  return h;
}

// Whether, of two players about to meet, `hi` (the higher ranked) moves first: the one who
// moved first fewer times; then the one who did not move first last game; then `hi`.
bool moves_first(const History& h, int hi, int lo) {
  if (h.first[hi] != h.first[lo]) return h.first[hi] < h.first[lo];
  if (h.last_first[hi] != h.last_first[lo]) return !h.last_first[hi];
  return true;
}

// How many more times the player moved first than second.
int first_surplus(const History& h, int p) { return 2 * h.first[p] - h.played[p]; }

// Pairwise points of seat s against seat t in one game (see pairing.hpp).
double pairwise(const GameResult& g, std::size_t s, std::size_t t) {
  const double a = s < g.points.size() ? g.points[s] : 0;
  const double b = t < g.points.size() ? g.points[t] : 0;
  return a > b ? 1 : a == b ? 0.5 : 0;
}

// The Swiss pairing search over one round's players (indices into players_by_seed, in rank
// order). Exact: a pairing is found whenever one without repeats exists.
class SwissSearch {
 public:
  // With `seats_balanced`, a pair is also refused when the one who would move first has already
  // moved first twice more than second.
  SwissSearch(const History& h, std::vector<int> ranked, bool seats_balanced)
      : h_(h), ranked_(std::move(ranked)), seats_balanced_(seats_balanced) {
    // Score groups: runs of equal score in rank order.
    for (std::size_t i = 0; i < ranked_.size(); ++i) {
      if (i == 0 || h_.score[ranked_[i]] != h_.score[ranked_[i - 1]]) groups_.emplace_back();
      groups_.back().push_back(static_cast<int>(i));
    }
  }

  // Pairs of rank positions, or nothing when every pairing has a barred pair.
  std::optional<std::vector<std::pair<int, int>>> run() {
    Set all(ranked_.size(), true);
    if (!can_complete(all)) return std::nullopt;
    std::vector<std::pair<int, int>> pairs;
    if (!ranked_.empty() && !solve(0, {}, pairs)) return std::nullopt;  // cannot happen
    return pairs;
  }

 private:
  using Set = std::vector<bool>;  // by rank position

  // Whether rank positions a < b may not meet this round.
  bool barred(int a, int b) const {
    const int hi = ranked_[a], lo = ranked_[b];
    if (h_.met[hi][lo] > 0) return true;
    return seats_balanced_ && first_surplus(h_, moves_first(h_, hi, lo) ? hi : lo) >= 2;
  }

  // Whether the players in `left` can all be paired (none barred from each other): a perfect
  // matching of the graph of allowed pairs, by Edmonds' blossom algorithm (O(n³), so the search
  // below can ask before every step and never walks into a dead end it could not leave).
  // Memoised: the search asks about the same sets again and again.
  bool can_complete(const Set& left) {
    if (const auto it = memo_.find(left); it != memo_.end()) return it->second;
    std::vector<int> at;
    for (std::size_t i = 0; i < left.size(); ++i)
      if (left[i]) at.push_back(static_cast<int>(i));
    const int n = static_cast<int>(at.size());
    bool ok = n % 2 == 0;
    if (ok && n > 0) {
      std::vector<std::vector<int>> adj(n);
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
          if (!barred(at[a], at[b])) {
            adj[a].push_back(b);
            adj[b].push_back(a);
          }
      ok = perfect_matching(adj);
    }
    memo_.emplace(left, ok);
    return ok;
  }

  // Edmonds' blossom algorithm: whether the graph has a perfect matching.
  static bool perfect_matching(const std::vector<std::vector<int>>& adj) {
    const int n = static_cast<int>(adj.size());
    std::vector<int> match(n, -1), parent(n), base(n);
    std::vector<bool> used(n), blossom(n);
    const auto lca = [&](int a, int b) {
      std::vector<bool> seen(n, false);
      for (;;) {
        a = base[a];
        seen[a] = true;
        if (match[a] == -1) break;
        a = parent[match[a]];
      }
      for (;;) {
        b = base[b];
        if (seen[b]) return b;
        b = parent[match[b]];
      }
    };
    const auto mark_path = [&](int v, int b, int child) {
      while (base[v] != b) {
        blossom[base[v]] = blossom[base[match[v]]] = true;
        parent[v] = child;
        child = match[v];
        v = parent[match[v]];
      }
    };
    const auto find_path = [&](int root) {
      std::fill(used.begin(), used.end(), false);
      std::fill(parent.begin(), parent.end(), -1);
      for (int i = 0; i < n; ++i) base[i] = i;
      used[root] = true;
      std::vector<int> queue{root};
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const int v = queue[head];
        for (int to : adj[v]) {
          if (base[v] == base[to] || match[v] == to) continue;
          if (to == root || (match[to] != -1 && parent[match[to]] != -1)) {
            const int b = lca(v, to);
            std::fill(blossom.begin(), blossom.end(), false);
            mark_path(v, b, to);
            mark_path(to, b, v);
            for (int i = 0; i < n; ++i)
              if (blossom[base[i]]) {
                base[i] = b;
                if (!used[i]) {
                  used[i] = true;
                  queue.push_back(i);
                }
              }
          } else if (parent[to] == -1) {
            parent[to] = v;
            if (match[to] == -1) return to;
            used[match[to]] = true;
            queue.push_back(match[to]);
          }
        }
      }
      return -1;
    };
    // A greedy start, then augmenting paths from every unmatched vertex.
    for (int v = 0; v < n; ++v)
      if (match[v] == -1)
        for (int to : adj[v])
          if (match[to] == -1) {
            match[to] = v;
            match[v] = to;
            break;
          }
    for (int root = 0; root < n; ++root) {
      if (match[root] != -1) continue;
      int u = find_path(root);
      if (u == -1) return false;
      while (u != -1) {
        const int pv = parent[u], ppv = match[pv];
        match[u] = pv;
        match[pv] = u;
        u = ppv;
      }
    }
    return true;
  }

  // The score groups from `g` on, with `floaters` (rank positions) floated down into group g.
  bool solve(std::size_t g, const std::vector<int>& floaters,
             std::vector<std::pair<int, int>>& pairs) {
    if (g == groups_.size()) return floaters.empty();
    Bracket b;
    b.members = floaters;
    b.members.insert(b.members.end(), groups_[g].begin(), groups_[g].end());
    b.floaters = floaters.size();
    b.below.assign(ranked_.size(), false);
    for (std::size_t k = g + 1; k < groups_.size(); ++k)
      for (int p : groups_[k]) b.below[p] = true;
    b.decided.assign(b.members.size(), false);
    const bool last = g + 1 == groups_.size();
    // The fewest floaters first.
    for (std::size_t f = b.members.size() % 2; f <= (last ? 0 : b.members.size()); f += 2) {
      b.float_limit = f;
      b.pairs.clear();
      b.floated.clear();
      b.steps = 0;
      std::fill(b.decided.begin(), b.decided.end(), false);
      if (fill(b)) {
        pairs.insert(pairs.end(), b.pairs.begin(), b.pairs.end());
        return solve(g + 1, b.floated, pairs);
      }
    }
    // The search ran out of steps (a pathological bracket): each player in turn takes the first
    // partner in its order that leaves everyone else pairable, else floats. Never a dead end.
    b.pairs.clear();
    b.floated.clear();
    std::fill(b.decided.begin(), b.decided.end(), false);
    for (std::size_t i = 0; i < b.members.size(); ++i) {
      if (b.decided[i]) continue;
      b.decided[i] = true;
      bool paired = false;
      for (std::size_t j : preferences(b, i)) {
        if (barred(b.members[i], b.members[j])) continue;
        b.decided[j] = true;
        if (can_complete(unpaired(b))) {
          b.pairs.push_back({b.members[i], b.members[j]});
          paired = true;
          break;
        }
        b.decided[j] = false;
      }
      if (!paired) b.floated.push_back(b.members[i]);
    }
    if (last && !b.floated.empty()) return false;  // cannot happen: everyone was pairable
    pairs.insert(pairs.end(), b.pairs.begin(), b.pairs.end());
    return solve(g + 1, b.floated, pairs);
  }

  struct Bracket {
    std::vector<int> members;  // rank positions: floaters first, then residents
    std::size_t floaters = 0;
    Set below;  // everyone in the groups below
    std::vector<bool> decided;
    std::size_t float_limit = 0;
    std::vector<std::pair<int, int>> pairs;
    std::vector<int> floated;
    int steps = 0;  // of fill(), bounded by kBracketSteps
  };

  // Enough for any bracket a club event makes; only a pathological one runs out.
  static constexpr int kBracketSteps = 2000;

  // The players not yet paired: the bracket's undecided and floated, and everyone below.
  static Set unpaired(const Bracket& b) {
    Set s = b.below;
    for (std::size_t i = 0; i < b.members.size(); ++i)
      if (!b.decided[i]) s[b.members[i]] = true;
    for (int p : b.floated) s[p] = true;
    return s;
  }

  // The order in which bracket member `i` (the highest undecided) tries partners (see header).
  std::vector<std::size_t> preferences(const Bracket& b, std::size_t i) const {
    const std::size_t n = b.members.size();
    const std::size_t residents = n - b.floaters;
    const std::size_t taken = std::min(b.floaters, residents);  // top residents the floaters take
    std::vector<std::pair<std::tuple<int, long, std::size_t>, std::size_t>> keyed;
    if (i < b.floaters) {
      for (std::size_t j = i + 1; j < n; ++j)
        if (!b.decided[j]) keyed.push_back({{j < b.floaters ? 1 : 0, 0, j}, j});
    } else {
      const std::size_t rest = residents - taken;
      const long half = static_cast<long>(rest / 2);
      const long at = std::max(0L, static_cast<long>(i - b.floaters) - static_cast<long>(taken));
      for (std::size_t j = i + 1; j < n; ++j) {
        if (b.decided[j]) continue;
        const long pj = static_cast<long>(j - b.floaters) - static_cast<long>(taken);
        if (pj >= at + half)
          keyed.push_back({{0, pj, j}, j});
        else if (pj > at)
          keyed.push_back({{1, -pj, j}, j});
        else
          keyed.push_back({{2, 0, j}, j});
      }
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::size_t> out;
    for (const auto& k : keyed) out.push_back(k.second);
    return out;
  }

  // Decides the bracket's members top down: each is paired within it or floats (at most
  // float_limit float; exactly that many in the end), pruning whenever the players left could no
  // longer all be paired.
  bool fill(Bracket& b) {
    const auto next = std::find(b.decided.begin(), b.decided.end(), false);
    if (next == b.decided.end()) return b.floated.size() == b.float_limit;
    const std::size_t i = static_cast<std::size_t>(next - b.decided.begin());
    const int p = b.members[i];
    if (++b.steps > kBracketSteps) return false;
    // Too few left to float as many as asked.
    if (b.floated.size() + static_cast<std::size_t>(std::count(next, b.decided.end(), false)) <
        b.float_limit)
      return false;
    b.decided[i] = true;
    for (std::size_t j : preferences(b, i)) {
      const int q = b.members[j];
      if (barred(p, q)) continue;
      if (b.steps > kBracketSteps) break;
      b.decided[j] = true;
      if (can_complete(unpaired(b))) {
        b.pairs.push_back({p, q});
        if (fill(b)) return true;
        b.pairs.pop_back();
      }
      b.decided[j] = false;
    }
    if (b.floated.size() < b.float_limit) {
      b.floated.push_back(p);
      if (can_complete(unpaired(b)) && fill(b)) return true;
      b.floated.pop_back();
    }
    b.decided[i] = false;
    return false;
  }

  const History& h_;
  std::vector<int> ranked_;  // players_by_seed indices in rank order
  bool seats_balanced_;
  std::vector<std::vector<int>> groups_;  // rank positions per score group, top first
  std::map<Set, bool> memo_;
};

}  // namespace

std::vector<double> points_from_ranks(const std::vector<int>& ranks) {
  std::vector<double> out(ranks.size(), 0);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (std::size_t j = 0; j < ranks.size(); ++j)
      if (i != j) out[i] += ranks[i] < ranks[j] ? 1 : ranks[i] == ranks[j] ? 0.5 : 0;
  return out;
}

std::vector<Round> round_robin(const std::vector<std::string>& players, bool twice) {
  const int real = static_cast<int>(players.size());
  if (real < 2) return {};
  const int n = real + real % 2;  // a phantom (index real) when odd: meeting it is a bye
  const int turning = n - 1;
  std::vector<Round> rounds;
  for (int r = 0; r < turning; ++r) {
    Round round;
    // (first, second) by index; the phantom's partner has the bye.
    const auto add = [&](int first, int second) {
      if (first >= real) return round.byes.push_back(players[second]);
      if (second >= real) return round.byes.push_back(players[first]);
      round.tables.push_back({{players[first], players[second]}});
    };
    if (r % 2 == 1)
      add(n - 1, r);
    else
      add(r, n - 1);
    for (int k = 1; k < n / 2; ++k) {
      const int up = (r + k) % turning, down = ((r - k) % turning + turning) % turning;
      if (k % 2 == 1)
        add(up, down);
      else
        add(down, up);
    }
    rounds.push_back(std::move(round));
  }
  if (twice) {
    const std::size_t cycle = rounds.size();
    for (std::size_t r = 0; r < cycle; ++r) {
      Round again = rounds[r];
      for (auto& t : again.tables) std::reverse(t.seats.begin(), t.seats.end());
      rounds.push_back(std::move(again));
    }
  }
  return rounds;
}

std::optional<Round> swiss_round(const std::vector<std::string>& players_by_seed,
                                 const std::vector<GameResult>& games, const std::vector<Bye>& byes,
                                 double /*bye_points*/) {
  const History h = history_of(players_by_seed, games, byes);
  const std::size_t n = h.ranked.size();
  std::vector<int> rank_of(n);
  for (std::size_t i = 0; i < n; ++i) rank_of[h.ranked[i]] = static_cast<int>(i);

  // Bye candidates: fewest byes, then lowest ranked.
  std::vector<int> candidates;
  if (n % 2 == 1) {
    candidates = h.ranked;
    std::ranges::sort(candidates, [&](int a, int b) {
      return std::make_pair(h.byes[a], -rank_of[a]) < std::make_pair(h.byes[b], -rank_of[b]);
    });
  } else {
    candidates.push_back(-1);  // nobody
  }
  for (int bye : candidates) {
    std::vector<int> playing;
    for (int p : h.ranked)
      if (p != bye) playing.push_back(p);
    // Seats balanced if that can be done, else any pairing without repeats.
    auto pairs = SwissSearch(h, playing, true).run();
    if (!pairs) pairs = SwissSearch(h, playing, false).run();
    if (!pairs) continue;
    Round round;
    auto sorted = *pairs;  // rank positions in `playing`, the higher ranked first
    for (auto& [a, b] : sorted)
      if (a > b) std::swap(a, b);
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [a, b] : sorted) {
      const int hi = playing[a], lo = playing[b];
      const bool hi_first = moves_first(h, hi, lo);
      round.tables.push_back(hi_first ? Table{{players_by_seed[hi], players_by_seed[lo]}}
                                      : Table{{players_by_seed[lo], players_by_seed[hi]}});
    }
    if (bye >= 0) round.byes.push_back(players_by_seed[bye]);
    return round;
  }
  return std::nullopt;
}

Round seated_by_score(const std::vector<std::string>& players_by_seed,
                      const std::vector<GameResult>& games, const std::vector<Bye>& byes,
                      int seats) {
  const History h = history_of(players_by_seed, games, byes);
  const std::size_t n = h.ranked.size();
  Round round;
  if (seats < 2 || n == 0) return round;
  std::vector<int> rank_of(n);
  for (std::size_t i = 0; i < n; ++i) rank_of[h.ranked[i]] = static_cast<int>(i);

  // Byes: fewest byes so far, lowest ranked first among equals.
  const std::size_t sitting_out = n % static_cast<std::size_t>(seats);
  std::vector<int> by_bye = h.ranked;
  std::ranges::sort(by_bye, [&](int a, int b) {
    return std::make_pair(h.byes[a], -rank_of[a]) < std::make_pair(h.byes[b], -rank_of[b]);
  });
  std::vector<bool> out(n, false);
  for (std::size_t i = 0; i < sitting_out; ++i) out[by_bye[i]] = true;

  std::vector<std::vector<int>> tables;
  for (int p : h.ranked) {
    if (out[p]) continue;
    if (tables.empty() || tables.back().size() == static_cast<std::size_t>(seats))
      tables.emplace_back();
    tables.back().push_back(p);
  }

  const auto repeats = [&](const std::vector<int>& t) {
    int r = 0;
    for (std::size_t i = 0; i < t.size(); ++i)
      for (std::size_t j = i + 1; j < t.size(); ++j) r += h.met[t[i]][t[j]];
    return r;
  };
  // Swaps between neighbouring tables while one lowers their repeat meetings.
  for (bool swapped = true; swapped;) {
    swapped = false;
    for (std::size_t t = 0; t + 1 < tables.size(); ++t) {
      for (;;) {
        auto& upper = tables[t];
        auto& lower = tables[t + 1];
        const int now = repeats(upper) + repeats(lower);
        // (gain, -rank distance, upper's rank) best; the swap itself.
        std::optional<std::tuple<int, int, int>> best_key;
        std::pair<std::size_t, std::size_t> best{};
        for (std::size_t i = 0; i < upper.size(); ++i)
          for (std::size_t j = 0; j < lower.size(); ++j) {
            std::swap(upper[i], lower[j]);
            const int gain = now - repeats(upper) - repeats(lower);
            std::swap(upper[i], lower[j]);
            if (gain <= 0) continue;
            const std::tuple<int, int, int> key{
                gain, -std::abs(rank_of[upper[i]] - rank_of[lower[j]]), rank_of[upper[i]]};
            if (!best_key || key > *best_key) {
              best_key = key;
              best = {i, j};
            }
          }
        if (!best_key) break;
        std::swap(upper[best.first], lower[best.second]);
        swapped = true;
      }
    }
  }

  for (auto& t : tables) {
    std::sort(t.begin(), t.end(), [&](int a, int b) {
      return std::make_pair(h.first[a], rank_of[a]) < std::make_pair(h.first[b], rank_of[b]);
    });
    Table table;
    for (int p : t) table.seats.push_back(players_by_seed[p]);
    round.tables.push_back(std::move(table));
  }
  for (std::size_t i = 0; i < sitting_out; ++i) round.byes.push_back(players_by_seed[by_bye[i]]);
  return round;
}

std::vector<Standing> standings(Format format, const std::vector<std::string>& players_by_seed,
                                const std::vector<GameResult>& games,
                                const std::vector<Bye>& byes) {
  const std::size_t n = players_by_seed.size();
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < n; ++i) index.emplace(players_by_seed[i], static_cast<int>(i));
  std::vector<Standing> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i].player = players_by_seed[i];

  const auto seats_of = [&](const GameResult& g) {
    std::vector<int> at;
    for (const auto& id : g.seats) {
      const auto it = index.find(id);
      at.push_back(it == index.end() ? -1 : it->second);
    }
    return at;
  };
  for (const auto& g : games) {
    const auto at = seats_of(g);
    for (std::size_t s = 0; s < at.size(); ++s) {
      if (at[s] < 0) continue;
      auto& row = rows[at[s]];
      row.score += s < g.points.size() ? g.points[s] : 0;
      ++row.games;
      // Win / draw / loss: alone on the most points, sharing the most, or below.
      const double mine = s < g.points.size() ? g.points[s] : 0;
      int above = 0, level = 0;
      for (std::size_t t = 0; t < at.size(); ++t) {
        if (t == s) continue;
        const double theirs = t < g.points.size() ? g.points[t] : 0;
        if (theirs > mine) ++above;
        if (theirs == mine) ++level;
      }
      if (above > 0)
        ++row.losses;
      else if (level > 0)
        ++row.draws;
      else
        ++row.wins;
    }
  }
  for (const auto& b : byes)
    if (const auto it = index.find(b.player); it != index.end()) rows[it->second].score += b.points;

  // The tie-breaks, from the final scores.
  for (const auto& g : games) {
    const auto at = seats_of(g);
    for (std::size_t s = 0; s < at.size(); ++s) {
      if (at[s] < 0) continue;
      auto& row = rows[at[s]];
      for (std::size_t t = 0; t < at.size(); ++t) {
        if (t == s || at[t] < 0) continue;
        const double theirs = rows[at[t]].score;
        const double p = pairwise(g, s, t);
        row.buchholz += theirs;
        row.sonneborn_berger += p * theirs;
        if (theirs == row.score) row.head_to_head += p;
      }
    }
  }

  const auto key = [&](const Standing& r) {
    return format == Format::round_robin
               ? std::make_tuple(r.score, r.head_to_head, r.sonneborn_berger)
               : std::make_tuple(r.score, r.buchholz, r.sonneborn_berger);
  };
  // Equal keys: the better seed first.
  std::ranges::sort(rows, [&](const Standing& a, const Standing& b) {
    return key(a) != key(b) ? key(a) > key(b) : index.at(a.player) < index.at(b.player);
  });
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i].rank =
        i > 0 && key(rows[i]) == key(rows[i - 1]) ? rows[i - 1].rank : static_cast<int>(i) + 1;
  return rows;
}

}  // namespace plateau::server::tournaments
