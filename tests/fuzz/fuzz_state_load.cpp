// Fuzzes the two ways the server rebuilds games from stored data, with arbitrary JSON text:
//
// - a game record, as /api/import receives it and /api/replay reads it from the store:
//   record_from_json, then replay_frames through the rules core;
// - a stored room, as the SQLite store reads it back at start (server/store/store.hpp's
// StoredRoom), in
//   the JSON shape below, then Room::restore as Lobby::restore_room calls it:
//     {"room": {"id", "game", "options", "seed", "private", "spectator_delay"},
//      "seats": [player id or null, ...], "version": n,
//      "rounds": [{"round", "options", "seed", "moves": [[seat, "move"], ...], "outcome",
//      "rematch"}]}
//   Options given as a string are the stored column's text, parsed as the store parses it.
//
// Checked: nothing throws or crashes; a record that loads writes back to itself and replays to
// one frame per position, every frame serializable; a refused room says why; a restored room
// shows its stored round, and a spectator and each stored player joining it get a full state,
// after which the player to move can play.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "server/rooms/room.hpp"
#include "server/store/history.hpp"
#include "server/store/store.hpp"

namespace {

using nlohmann::json;
namespace server = plateau::server;
namespace protocol = plateau::protocol;
namespace rules = plateau::rules;

void check_record(const json& doc) {
  const auto record = server::record_from_json(doc);
  if (!record) {
    FUZZ_CHECK(!record.error().empty(), "a record refused without a reason");
    return;
  }
  // What the server exports from a loaded record reads back as the same record.
  const json written = server::record_to_json(*record);
  const auto again = server::record_from_json(written);
  FUZZ_CHECK(again.has_value(), "a loaded record, written back, is refused: " + again.error());
  FUZZ_CHECK(server::record_to_json(*again) == written,
             "a record changes when written and read again");

  const auto frames = server::replay_frames(*record);
  if (!frames) {
    FUZZ_CHECK(!frames.error().empty(), "a replay refused without a reason");
    return;
  }
  FUZZ_CHECK(frames->is_array() && frames->size() == record->moves.size() + 1,
             "not one frame per position");
  (void)frames->dump(-1, ' ', false,
                     json::error_handler_t::strict);  // /api/replay sends them as they are
}

// Reading the fuzzed room as the store would have read it: wrong types read as the store's
// defaults (its columns are typed), never an exception.
template <class T>
T field(const json& obj, const char* key, T fallback) {
  if (!obj.is_object()) return fallback;
  const auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->template get<std::string>() : fallback;
  } else if constexpr (std::is_same_v<T, bool>) {
    return it->is_boolean() ? it->template get<bool>() : fallback;
  } else {
    return it->is_number_integer() ? it->template get<T>()
                                   : fallback;  // wraps, as a cast from the store's int64
  }
}

json stored_options(const json& obj) {
  if (!obj.is_object() || !obj.contains("options")) return json::object();
  const json& o = obj["options"];
  return o.is_string() ? json::parse(o.get_ref<const std::string&>(), nullptr, false) : o;
}

const json& list(const json& obj, const char* key) {
  static const json empty = json::array();
  if (!obj.is_object()) return empty;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : empty;
}

server::StoredRoom stored_room(const json& doc) {
  server::StoredRoom s;
  const json& room = doc.is_object() && doc.contains("room") ? doc["room"] : json::object();
  s.room.id = field<std::string>(room, "id", "r");
  s.room.game = field<std::string>(room, "game", "");
  s.room.options = stored_options(room);
  s.room.seed = field<std::uint64_t>(room, "seed", 0);
  s.room.is_private = field<bool>(room, "private", false);
  s.room.spectator_delay = field<int>(room, "spectator_delay", 0);
  s.version = field<std::int64_t>(doc, "version", 0);
  for (const auto& seat : list(doc, "seats"))
    s.seats.push_back(seat.is_string() ? std::optional(seat.get<std::string>()) : std::nullopt);
  for (const auto& r : list(doc, "rounds")) {
    server::RoundRecord round;
    round.round = field<int>(r, "round", 1);
    round.options = stored_options(r);
    round.seed = field<std::uint64_t>(r, "seed", 0);
    for (const auto& m : list(r, "moves"))
      if (m.is_array() && m.size() == 2 && m[0].is_number_integer() && m[1].is_string())
        round.moves.emplace_back(m[0].get<int>(), m[1].get<std::string>());
    round.outcome = r.is_object() && r.contains("outcome") ? r["outcome"] : json(nullptr);
    round.rematch = field<std::uint32_t>(r, "rematch", 0);
    s.rounds.push_back(std::move(round));
  }
  return s;
}

// A connection that keeps the frames it is sent.
class Recorder final : public server::Connection {
 public:
  explicit Recorder(std::optional<server::Player> player) {
    if (player) set_player(std::move(*player));
  }
  void send(const server::Frame& frame) override {
    const json msg = json::parse(*frame, nullptr, false);
    FUZZ_CHECK(msg.is_object(), "a frame that is not a JSON object: " + *frame);
    if (msg.value("type", "") == "full") full = msg;
  }
  std::string address() const override { return "192.0.2.1"; }
  json full;  // the last full state
};

void check_room(const json& doc) {
  const server::StoredRoom stored = stored_room(doc);
  const rules::Game* game = rules::find_game(stored.room.game);
  if (!game) return;  // Lobby::restore_room refuses it before Room::restore
  server::NullStore store;
  std::vector<std::string> names;
  for (const auto& s : stored.seats) names.push_back(s ? "player " + *s : "");
  std::string why;
  const auto room =
      server::Room::restore(stored, *game, names, store, 1'000'000, server::RoomSettings{}, why);
  if (!room) {
    FUZZ_CHECK(!why.empty(), "a room refused without a reason");
    return;
  }
  FUZZ_CHECK(room->round() == (stored.rounds.empty() ? 1 : stored.rounds.back().round),
             "restored at another round");
  (void)room->summary().dump(-1, ' ', false, json::error_handler_t::strict);

  const auto spectator = std::make_shared<Recorder>(server::Player{"watcher", "watcher"});
  FUZZ_CHECK(
      !room->join(spectator, protocol::Join{room->id(), true, std::nullopt, std::nullopt}, 1),
      "a spectator could not watch a restored room");
  FUZZ_CHECK(spectator->full.is_object(), "a spectator of a restored room got no state");
  std::vector<std::shared_ptr<Recorder>> players;
  for (std::size_t s = 0; s < stored.seats.size(); ++s) {
    if (!stored.seats[s]) continue;
    auto p =
        std::make_shared<Recorder>(server::Player{*stored.seats[s], "player " + *stored.seats[s]});
    const protocol::Join join{room->id(), false, static_cast<int>(s), std::nullopt};
    // One player may hold two seats in a broken log; the room then refuses the second join.
    if (!room->join(p, join, 2)) {
      FUZZ_CHECK(p->full.is_object(), "a stored player back at a restored room got no state");
      players.push_back(std::move(p));
    }
  }
  // The seat to move, if its player is back, plays on.
  const auto to_move = room->state().to_move();
  if (!to_move) return;
  for (const auto& p : players) {
    const auto seat = room->seat_of(p->player()->id);
    if (seat != to_move) continue;
    const auto moves = room->state().legal_moves();
    FUZZ_CHECK(!moves.empty(), "a restored game with a seat to move and no legal move");
    const auto refused =
        room->move(p, protocol::MoveRequest{room->id(), room->version(), moves.front().text}, 3);
    // A table whose seats were never all taken waits for its players; any other refusal is wrong.
    FUZZ_CHECK(!refused || *refused == protocol::Code::not_started,
               "a restored room refused a legal move");
    return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (protocol::json_depth(text, 64) > 64)
    return 0;  // the parser's own recursion is not under test here
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return 0;
  check_record(doc);
  check_room(doc);
  return 0;
}
