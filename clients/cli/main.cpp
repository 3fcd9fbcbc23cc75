// plateau-cli: a terminal client and bot runner over the same protocol as the browser.
//
//   plateau-cli [--host H] [--port P] [--name N] games
//   plateau-cli ... bot --game quantik [--room ID] [--games N] [--seed S]
//       creates a table (or joins ID) and plays random legal moves until the game ends
//   plateau-cli ... watch ROOM      prints each version of a room as a spectator
#include <iostream>
#include <random>

#include "ws_client.hpp"

using nlohmann::json;
using plateau::client::WsClient;

namespace {

int usage() {
  std::cerr << "usage: plateau-cli [--host H] [--port P] [--name N] games\n"
               "       plateau-cli [...] bot --game ID [--room ROOM] [--seed S]\n"
               "       plateau-cli [...] watch ROOM\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1", name = "bot", game, room, command;
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
    if (!legal.empty())
      ws.send({{"type", "move"},
               {"room", room},
               {"version", version},
               {"move", legal[rng() % legal.size()]}});
  }
}
