#include "rules/replay.hpp"

namespace plateau::rules {

std::expected<std::unique_ptr<State>, ReplayError> replay(
    const Game& game, const nlohmann::json& options, std::uint64_t seed,
    std::span<const Played> moves, const std::function<bool(const State&)>& visit) {
  auto created = game.create(options, seed);
  if (!created) return std::unexpected(ReplayError{std::nullopt, created.error(), false});
  auto state = std::move(*created);
  if (visit && !visit(*state))
    return std::unexpected(ReplayError{std::nullopt, RuleError::illegal_move, true});
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const auto ok = state->apply(moves[i].seat, Move{std::string(moves[i].move)});
    if (!ok) return std::unexpected(ReplayError{i, ok.error(), false});
    if (visit && !visit(*state))
      return std::unexpected(ReplayError{i, RuleError::illegal_move, true});
  }
  return state;
}

}  // namespace plateau::rules
