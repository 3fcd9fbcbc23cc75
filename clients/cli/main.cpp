// plateau-cli: a terminal client and bot runner over the same protocol as the browser.
//
//   plateau-cli [--host H] [--port P] [--name N] games
//   plateau-cli ... bot --game quantik [--room ID] [--seed S] [--level random|easy|normal|hard]
//       creates a table (or joins ID) and plays until the game ends: random legal moves, or
//       the server's own bots' engine (bots/) at a level, searching positions rebuilt from
//       what its seat is shown (rules::Game::from_view), so it knows no more than any player
//   plateau-cli ... watch ROOM      prints each version of a room as a spectator
#include <algorithm>
#include <iostream>
#include <optional>
#include <random>

#include "bots/bot.hpp"
#include "rules/game.hpp"
#include "ws_client.hpp"

using nlohmann::json;
using plateau::client::WsClient;

namespace {

int usage() {
  std::cerr << "usage: plateau-cli [--host H] [--port P] [--name N] games\n"
               "       plateau-cli [...] bot --game ID [--room ROOM] [--seed S]\n"
               "                                [--level random|easy|normal|hard]\n"
               "       plateau-cli [...] watch ROOM\n";
  return 2;
}

// The move the engine plays at `level` from what this seat is shown; nullopt when the position
// cannot be rebuilt from it (an older server sends no options) or the search finds nothing.
std::optional<std::string> engine_move(const json& state, plateau::bots::Level level,
                                       std::uint64_t seed) {
  namespace rules = plateau::rules;
  const auto* game = rules::find_game(state.value("game", ""));
  if (!game || !state.contains("options") || !state["you"].is_number_integer()) return std::nullopt;
  const rules::Seen seen{state["options"], state["board"], state["you"].get<int>(),
                         state["to_move"].get<int>()};
  rules::Rng rng(seed);
  const auto position = game->from_view(seen, rng);
  if (!position) return std::nullopt;
  const auto move = plateau::bots::choose(game->id(), *position, level, seed);
  if (!move) return std::nullopt;
  return move->text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1", name = "bot", game, room, command, level_name = "random";
  unsigned short port = 8080;
  std::uint64_t seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--host")
      host = next();
    else if (a == "--port")
      port = static_cast<unsigned short>(std::stoi(next()));
    else if (a == "--name")
      name = next();
    else if (a == "--game")
      game = next();
    else if (a == "--room")
      room = next();
    else if (a == "--seed")
      seed = std::stoull(next());
    else if (a == "--level")
      level_name = next();
    else if (command.empty())
      command = a;
    else if (command == "watch" && room.empty())
      room = a;
    else
      return usage();
  }
  if (command.empty()) return usage();
  WsClient ws;
  if (auto err = ws.connect(host, port); !err.empty()) {
    std::cerr << "cannot connect to " << host << ":" << port << ": " << err << "\n";
    return 1;
  }
  ws.send({{"type", "hello"}, {"name", name}});
  const auto welcome = ws.recv_type("welcome");
  if (!welcome) return 1;
  if (command == "games") {
    for (const auto& g : (*welcome)["games"])
      std::cout << g["id"].get<std::string>() << "\t" << g["name"].get<std::string>() << "\t"
                << g["seats"].dump() << "\n";
    return 0;
  }
  if (command == "watch") {
    if (room.empty()) return usage();
    ws.send({{"type", "join"}, {"room", room}, {"as", "spectator"}});
    for (;;) {
      auto m = ws.recv(std::chrono::hours(24));
      if (!m) return 0;
      std::cout << m->dump() << "\n";
    }
  }
  if (command != "bot" || (game.empty() && room.empty())) return usage();
  std::optional<plateau::bots::Level> level;
  if (level_name != "random") {
    level = plateau::bots::level_named(level_name);
    if (!level) {
      std::cerr << "no level '" << level_name << "': random, easy, normal or hard\n";
      return 2;
    }
  }
  if (room.empty()) {
    ws.send({{"type", "create"}, {"game", game}});
    const auto created =
        ws.recv_until([](const json& m) { return m["type"] == "created" || m["type"] == "error"; });
    if (!created || (*created)["type"] == "error") {
      std::cerr << (created ? created->dump() : "no reply") << "\n";
      return 1;
    }
    room = (*created)["room"];
    std::cout << "room " << room << "\n" << std::flush;
  }
  ws.send({{"type", "join"}, {"room", room}, {"as", "player"}});
  std::mt19937_64 rng(seed);
  json state;
  std::int64_t version = 0;
  for (;;) {
    auto m = ws.recv(std::chrono::minutes(30));
    if (!m) return 1;
    const std::string type = (*m)["type"];
    if (type == "error") std::cerr << m->dump() << "\n";
    if (type == "full") {
      state = (*m)["state"];
      version = (*m)["version"];
    } else if (type == "patch") {
      if ((*m)["version"] != version + 1) {
        ws.send({{"type", "sync"}, {"room", room}});
        continue;
      }
      state = state.patch((*m)["ops"]);
      version = (*m)["version"];
    } else {
      continue;
    }
    if (state["status"] == "over") {
      std::cout << "over: " << state["outcome"].dump() << "\n";
      return 0;
    }
    const auto& legal = state["legal_moves"];
    if (legal.empty()) continue;
    std::optional<std::string> chosen;
    if (level) {
      chosen = engine_move(state, *level, rng());
      // The engine's move is one of the server's, or the position was not rebuilt right.
      if (chosen && std::ranges::find(legal, json(*chosen)) == legal.end()) {
        std::cerr << "the engine chose " << *chosen << ", which is not legal here\n";
        chosen.reset();
      }
      if (!chosen) std::cerr << "no engine move at version " << version << "; playing at random\n";
    }
    ws.send({{"type", "move"},
             {"room", room},
             {"version", version},
             {"move", chosen ? json(*chosen) : legal[rng() % legal.size()]}});
  }
}
