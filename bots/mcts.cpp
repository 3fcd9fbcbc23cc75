#include "bots/mcts.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>
#include <vector>

namespace plateau::bots {

using rules::Move;
using rules::Seat;
using rules::State;

namespace {

// UCT's exploration constant for results in [0, 1].
constexpr double kExploration = 0.7;
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

  double uct(double log_available) const {
    return total / visits + kExploration * std::sqrt(log_available / visits);
  }
};

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

std::expected<Choice, SearchError> search(const State& position, Budget budget, std::uint64_t seed,
                                          const Now& now) {
  const auto me = position.to_move();
  if (!me) return std::unexpected(SearchError::game_over);
  rules::Rng rng(seed);
  if (!position.determinize(*me, rng)) return std::unexpected(SearchError::cannot_determinize);
  const auto root_moves = position.legal_moves();
  const int seats = position.num_seats();
  const auto start = now();
  Node root(nullptr, Move{}, -1);
  std::size_t made = 0;
  std::vector<double> results(static_cast<std::size_t>(seats));
  const auto spent = [&] {
    if (budget.iterations && made >= budget.iterations) return true;
    return budget.time.count() > 0 && now() - start >= budget.time;
  };
  do {
    auto sample = position.determinize(*me, rng);
    Node* node = &root;
    // Down the tree, along moves legal in this sample; one new node at the end.
    while (!sample->is_over()) {
      const Seat mover = *sample->to_move();
      const auto moves = sample->legal_moves();
      std::vector<const Move*> untried;
      Node* best = nullptr;
      double best_score = -1;
      for (const auto& m : moves) {
        const auto it = node->by_move.find(m.text);
        if (it == node->by_move.end()) {
          untried.push_back(&m);
          continue;
        }
        ++it->second->available;
      }
      if (untried.empty()) {
        for (const auto& m : moves) {
          Node* child = node->by_move.at(m.text);
          const double score = child->uct(std::log(static_cast<double>(child->available)));
          if (score > best_score) best_score = score, best = child;
        }
        (void)sample->apply(mover, best->move);
        node = best;
        continue;
      }
      const Move& m = *untried[rng.below(untried.size())];
      node->children.push_back(std::make_unique<Node>(node, m, mover));
      Node* child = node->children.back().get();
      child->available = 1;
      node->by_move.emplace(m.text, child);
      (void)sample->apply(mover, m);
      node = child;
      break;
    }
    // The rest of the game at random.
    for (int ply = 0; !sample->is_over() && ply < kMaxPlayout; ++ply) {
      const auto moves = sample->legal_moves();
      (void)sample->apply(*sample->to_move(), moves[rng.below(moves.size())]);
    }
    const auto outcome = sample->outcome();
    for (Seat s = 0; s < seats; ++s)
      results[static_cast<std::size_t>(s)] = outcome ? result_for(*outcome, s, seats) : 1.0 / seats;
    for (Node* n = node; n != &root; n = n->parent) {
      ++n->visits;
      n->total += results[static_cast<std::size_t>(n->mover)];
    }
    ++root.visits;
    ++made;
  } while (!spent());
  // The most visited of the moves open in the real position.
  const Node* chosen = nullptr;
  for (const auto& m : root_moves)
    if (const auto it = root.by_move.find(m.text); it != root.by_move.end())
      if (!chosen || it->second->visits > chosen->visits) chosen = it->second;
  if (!chosen) return Choice{root_moves.front(), made, 0.0};
  return Choice{chosen->move, made, chosen->total / chosen->visits};
}

}  // namespace plateau::bots
