// The one explicit list of games the server offers. A new game adds its line here and its
// folder to CMakeLists.txt; nothing registers itself.
#include "game.hpp"
#include "kwinty/kwinty.hpp"
#include "ltiles/ltiles.hpp"
#include "on_top/on_top.hpp"
#include "quantik/quantik.hpp"
#include "quirky/quirky.hpp"
#include "turris/turris.hpp"

namespace plateau::rules {

const std::vector<const Game*>& all_games() {
  static const std::vector<const Game*> games{
      &quantik::game(), &kwinty::game(), &turris::game(),
      &quirky::game(),  &on_top::game(), &ltiles::game(),
  };
  return games;
}

// Here with the list it searches, not in the core: the core's library must not need the registry.
const Game* find_game(std::string_view id) {
  for (const Game* g : all_games())
    if (g->id() == id) return g;
  return nullptr;
}

}  // namespace plateau::rules
