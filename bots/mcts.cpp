#include "bots/mcts.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace plateau::bots {

using rules::Move;
using rules::Seat;
using rules::State;

namespace {

// A random playout longer than this is scored as a draw (none of the games gets near it).
constexpr int kMaxPlayout = 2000;

struct Node {
  Node(Node* up, Move m, Seat who) : parent(up), move(std::move(m)), mover(who) {}
  Node* parent;
  Move move;   // the move that led here (none at the root)
  Seat mover;  // who played it: the seat whose result this node sums
  double total = 0;
  std::uint32_t visits = 0;
  std::uint32_t available = 0;  // iterations in which this move was legal at its parent
  std::vector<std::unique_ptr<Node>> children;
  std::unordered_map<std::string, Node*> by_move;
  // With Tuning::widen_below_root: each move's order by what it gains its mover at once (lower
  // first, then a random tie-break), on the sample in which it was first legal here.
  std::unordered_map<std::string, std::pair<int, std::uint64_t>> order;

  double uct(double log_available, double exploration) const {
    return total / visits + exploration * std::sqrt(log_available / visits);
  }
};

// How far `seat` leads the best of the others (behind: below 0).
int lead(const std::vector<int>& scores, std::size_t seat) {
  int best_other = std::numeric_limits<int>::min();
  for (std::size_t s = 0; s < scores.size(); ++s)
    if (s != seat) best_other = std::max(best_other, scores[s]);
  return scores[seat] - best_other;
}

// What `move` gains `mover` at once in `position`: their lead after it.
int gain(const State& position, Seat mover, const Move& move) {
  auto after = position.clone();
  (void)after->apply(mover, move);
  return lead(after->scores(), static_cast<std::size_t>(mover));
}

// The root's moves in the order of what each gains at once in a game that scores: the mover's
// score after it, less the best of the others', on a sample of what the mover may know (ties
// in a random order). Empty for a game that does not score. It is part of the thinking: once
// `out_of_time` says so (asked every kRankCheck moves), the moves not scored yet rank after
// the others, in a random order.
constexpr std::size_t kRankCheck = 8;
std::unordered_map<std::string, std::size_t> ranked(const State& position, Seat me,
                                                    const std::vector<Move>& moves, rules::Rng& rng,
                                                    const std::function<bool()>& out_of_time) {
  std::unordered_map<std::string, std::size_t> rank;
  const auto sample = position.determinize(me, rng);
  if (sample->scores().empty()) return rank;
  std::vector<std::tuple<int, std::uint64_t, const Move*>> gains;
  bool stopped = false;
  for (std::size_t k = 0; k < moves.size(); ++k) {
    const auto& m = moves[k];
    if (!stopped && k > 0 && k % kRankCheck == 0) stopped = out_of_time();
    if (stopped) {
      gains.emplace_back(std::numeric_limits<int>::max(), rng.next(), &m);
      continue;
    }
    gains.emplace_back(-gain(*sample, me, m), rng.next(), &m);
  }
  std::ranges::sort(gains);  // the best gain (the lowest deficit) first
  for (std::size_t i = 0; i < gains.size(); ++i) rank.emplace(std::get<2>(gains[i])->text, i);
  return rank;
}

// The tree's name for `move` made with `seen` drawn (State::drawn(); empty: its text alone).
std::string tree_key(const std::string& seen, const Move& move) {
  return seen.empty() ? move.text : seen + '\x1f' + move.text;
}

// A game cut short, as if it ended now: the leaders (the highest score) win.
rules::Outcome standing(const State& sample) {
  rules::Outcome out;
  out.scores = sample.scores();
  const int hi = std::ranges::max(out.scores);
  for (std::size_t s = 0; s < out.scores.size(); ++s)
    if (out.scores[s] == hi) out.winners.push_back(static_cast<Seat>(s));
  return out;
}

}  // namespace

Now steady_now() {
  return [] { return std::chrono::steady_clock::now(); };
}

std::string_view to_string(SearchError e) {
  switch (e) {
    case SearchError::game_over:
      return "the game is over";
    case SearchError::cannot_determinize:
      return "this game cannot be searched without cheating";
  }
  return "unknown";
}

double result_for(const rules::Outcome& outcome, Seat seat, int seats) {
  if (outcome.winners.empty()) return 1.0 / seats;
  if (std::ranges::find(outcome.winners, seat) == outcome.winners.end()) return 0.0;
  return 1.0 / static_cast<double>(outcome.winners.size());
}

void playout_values(const rules::Outcome& outcome, int seats, const Tuning& tuning,
                    std::vector<double>& values) {
  values.resize(static_cast<std::size_t>(seats));
  const auto& scores = outcome.scores;
  const bool scored = scores.size() == static_cast<std::size_t>(seats);
  const auto [lo, hi] =
      scored ? std::ranges::minmax(scores) : std::ranges::minmax_result<int>{0, 0};
  for (Seat s = 0; s < seats; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const double result = result_for(outcome, s, seats);
    if (!scored || (hi == lo && tuning.margin_scale <= 0)) {
      values[i] = result;
      continue;
    }
    double place = 0;
    if (tuning.margin_scale > 0) {
      place = 0.5 + 0.5 * std::tanh(lead(scores, i) / tuning.margin_scale);
    } else {
      place = static_cast<double>(scores[i] - lo) / static_cast<double>(hi - lo);
    }
    values[i] = (1 - tuning.score_share) * result + tuning.score_share * place;
  }
}

std::expected<Choice, SearchError> search(const State& position, Budget budget, std::uint64_t seed,
                                          const Now& now, const Tuning& tuning) {
  const auto me = position.to_move();
  if (!me) return std::unexpected(SearchError::game_over);
  const auto start = now();  // ranking the root's moves is part of the thinking
  rules::Rng rng(seed);
  if (!position.determinize(*me, rng)) return std::unexpected(SearchError::cannot_determinize);
  const auto root_moves = position.legal_moves();
  const auto out_of_time = [&] { return budget.time.count() > 0 && now() - start >= budget.time; };
  const auto rank = ranked(position, *me, root_moves, rng, out_of_time);
  const int seats = position.num_seats();
  const bool scored = !position.scores().empty();
  Node root(nullptr, Move{}, -1);
  std::size_t made = 0;
  std::vector<double> results(static_cast<std::size_t>(seats));
  const auto spent = [&] {
    if (budget.iterations && made >= budget.iterations) return true;
    return out_of_time();
  };
  do {
    auto sample = position.determinize(*me, rng);
    Node* node = &root;
    // Down the tree, along moves legal in this sample; one new node at the end.
    while (!sample->is_over()) {
      const Seat mover = *sample->to_move();
      auto moves = sample->legal_moves();
      const auto open = static_cast<std::size_t>(tuning.widen_from +
                                                 std::sqrt(static_cast<double>(node->visits)));
      if (node == &root && !rank.empty()) {
        // Only the root's best-ranked moves, more of them as its visits grow.
        std::erase_if(moves, [&](const Move& m) {
          const auto it = rank.find(m.text);
          return it != rank.end() && it->second >= open;
        });
      } else if (node != &root && tuning.widen_below_root && scored && moves.size() > open) {
        // Only the best-ordered of the moves legal here, more of them as its visits grow. Each
        // move's order is looked up once (and worked out on this sample where it is new here),
        // then the best are picked by index: not a lookup per comparison.
        const auto seen = tuning.split_drawn ? sample->drawn() : std::string();
        std::vector<std::pair<std::pair<int, std::uint64_t>, std::size_t>> ordered;
        ordered.reserve(moves.size());
        for (std::size_t i = 0; i < moves.size(); ++i) {
          const auto [it, fresh] = node->order.try_emplace(tree_key(seen, moves[i]));
          if (fresh) it->second = {-gain(*sample, mover, moves[i]), rng.next()};
          ordered.emplace_back(it->second, i);
        }
        std::ranges::nth_element(ordered, ordered.begin() + static_cast<std::ptrdiff_t>(open));
        std::vector<Move> best_ordered;
        best_ordered.reserve(open);
        for (std::size_t k = 0; k < open; ++k)
          best_ordered.push_back(std::move(moves[ordered[k].second]));
        moves = std::move(best_ordered);
      }
      // The tree's name for each move: its text, after what the mover drew where that counts.
      std::vector<std::string> keys;
      if (tuning.split_drawn)
        if (const auto seen = sample->drawn(); !seen.empty())
          for (const auto& m : moves) keys.push_back(tree_key(seen, m));
      const auto key = [&](std::size_t i) -> const std::string& {
        return keys.empty() ? moves[i].text : keys[i];
      };
      std::vector<std::size_t> untried;
      Node* best = nullptr;
      double best_score = -1;
      for (std::size_t i = 0; i < moves.size(); ++i) {
        const auto it = node->by_move.find(key(i));
        if (it == node->by_move.end()) {
          untried.push_back(i);
          continue;
        }
        ++it->second->available;
      }
      if (untried.empty()) {
        for (std::size_t i = 0; i < moves.size(); ++i) {
          Node* child = node->by_move.at(key(i));
          const double score =
              child->uct(std::log(static_cast<double>(child->available)), tuning.exploration);
          if (score > best_score) best_score = score, best = child;
        }
        (void)sample->apply(mover, best->move);
        node = best;
        continue;
      }
      const std::size_t pick = untried[rng.below(untried.size())];
      node->children.push_back(std::make_unique<Node>(node, moves[pick], mover));
      Node* child = node->children.back().get();
      child->available = 1;
      node->by_move.emplace(key(pick), child);
      (void)sample->apply(mover, moves[pick]);
      node = child;
      break;
    }
    // The rest of the game at random, or some plies of it.
    const int plies = tuning.playout_plies > 0 && scored ? tuning.playout_plies : kMaxPlayout;
    for (int ply = 0; !sample->is_over() && ply < plies; ++ply)
      (void)sample->apply(*sample->to_move(), sample->random_move(rng));
    if (const auto outcome = sample->outcome())
      playout_values(*outcome, seats, tuning, results);
    else if (plies < kMaxPlayout)
      playout_values(standing(*sample), seats, tuning, results);
    else
      std::ranges::fill(results, 1.0 / seats);
    for (Node* n = node; n != &root; n = n->parent) {
      ++n->visits;
      n->total += results[static_cast<std::size_t>(n->mover)];
    }
    ++root.visits;
    ++made;
  } while (!spent());
  // The most visited of the moves open in the real position.
  const Node* chosen = nullptr;
  const auto seen = tuning.split_drawn ? position.drawn() : std::string();
  for (const auto& m : root_moves)
    if (const auto it = root.by_move.find(tree_key(seen, m)); it != root.by_move.end())
      if (!chosen || it->second->visits > chosen->visits) chosen = it->second;
  if (!chosen) return Choice{root_moves.front(), made, 0.0};
  return Choice{chosen->move, made, chosen->total / chosen->visits};
}

}  // namespace plateau::bots
