// The wire: typed client requests, a decoder that never throws, and encoders for every server
// message. PROTOCOL.md documents each with an example.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "time_control.hpp"

namespace plateau::protocol {

struct Limits {
  std::size_t max_frame_bytes = 64 * 1024;
  int max_depth = 32;
};

// Why `name` cannot be a player's name, or "" when it can. A name is shown to others inside
// other text, so it is 1 to 40 characters (code points: a name in any script fits), not blank,
// with no control character, nothing that breaks a line and nothing that reorders the text
// after it. `name` is valid UTF-8 (JSON text is) and already trimmed.
std::string_view name_refusal(std::string_view name);

struct Hello {
  std::string name;
  std::optional<std::string> token;
  // (extension) The version the client holds of each room it sat at, so that a reconnecting
  // player gets only the patches it missed rather than a whole state.
  std::vector<std::pair<std::string, std::int64_t>> resume;
};
struct Create {
  std::string game;
  nlohmann::json options;  // an object, or null for the defaults
  bool is_private = false;
  int spectator_delay = 0;  // moves by which spectators trail the players
  TimeControl clock{};      // (extension) the table's time control; none by default
  bool rated = false;       // (extension) its games count for the players' ratings
  bool chat = true;         // (extension) false: no chat at this table
};
struct Join {
  std::string room;
  bool spectator = false;
  std::optional<int> seat;
  // (extension) The version of this room the client still holds: when the room kept every
  // patch since, it sends those instead of the whole state.
  std::optional<std::int64_t> version;
};
struct MoveRequest {
  std::string room;
  std::int64_t version = 0;
  std::string move;
};
struct Sync {
  std::string room;
};
struct Leave {
  std::string room;
};
// `rooms`: every public room, or (an extension) one game's, and a page of them.
struct ListRooms {
  std::optional<std::string> game;   // only this game's rooms
  std::size_t offset = 0;            // skip this many (in the listing's order)
  std::optional<std::size_t> limit;  // at most this many (1..500); none: all of them
};
struct Rematch {
  std::string room;
};

// (extension) `add_bot`: a bot takes a free seat of a table still waiting for players.
struct AddBot {
  std::string room;
  std::optional<int> seat;       // none: the first free seat
  std::string level = "normal";  // a level's name (bots/bot.hpp); checked by the lobby
};

// (extension) `remove_bot`: the bot at `seat` of a table still waiting for players goes.
struct RemoveBot {
  std::string room;
  int seat = 0;
};

// (extension) `resign`: the player gives up the round in play.
struct Resign {
  std::string room;
};
// (extension) `claim`: the win, when the player to move has been gone too long.
struct Claim {
  std::string room;
};
// (extension) `draw`: offer a draw, or accept or decline the other player's offer.
enum class DrawAction { offer, accept, decline };
struct Draw {
  std::string room;
  DrawAction action = DrawAction::offer;
};
// (extension) `takeback`: ask to take back one's last move (`offer`), or accept or decline
// another's request.
struct Takeback {
  std::string room;
  DrawAction action = DrawAction::offer;
};

// (extension) `chat`: a message to the table's players (from a player) or to its spectators
// (from a spectator): `text`, or `phrase`, one of kChatPhrases, which each client words in its
// own language.
struct Chat {
  std::string room;
  std::string text;    // or
  std::string phrase;  // this
};
inline constexpr std::array<std::string_view, 7> kChatPhrases{
    "hello", "good_game", "thinking", "rematch", "thanks", "good_move", "oops"};
// The longest chat text a frame may carry, in characters; the server may set less.
inline constexpr std::size_t kMaxChatChars = 2000;
// Why `text` may not be said (blank, a control character, longer than `max_chars`), or "".
std::string_view chat_refusal(std::string_view text, std::size_t max_chars);

// Registers for a tournament, or withdraws, before it starts.
struct TournamentEntry {
  std::string tournament;
  bool enter = true;  // "register"; false: "withdraw"
};

using Body = std::variant<Hello, Create, Join, MoveRequest, Sync, Leave, ListRooms, Rematch, AddBot,
                          Resign, Draw, Claim, Takeback, RemoveBot, Chat, TournamentEntry>;

struct Request {
  nlohmann::json id;  // string or integer, or null when absent
  Body body;
};

// Decodes one text frame. Never throws: any fault is an Error with a stable code (and the
// request's id when it could be read).
std::expected<Request, Error> decode(std::string_view text, const Limits& limits = {});

// The deepest nesting of arrays and objects in `text`, scanning at most until `stop_at` is passed;
// strings are skipped. Runs before parsing, so a hostile frame never reaches the parser's stack.
int json_depth(std::string_view text, int stop_at);

// Server → client frames, each a compact JSON text.
// `games_json` is the games list already serialized: it is the same in every welcome, so the
// lobby encodes it once rather than copying and serializing the whole catalogue per hello.
// `tables`: the rooms the player sits in, as [{"room", "seat"}], which the hello put them back in.
// `bots`: whether this server runs bots (add_bot, and a bot to play for who leaves a game of
// three or four).
// `name`: what the player is shown as (an account's name, or a guest's, which gets " (guest)"
// when an account holds it). `account`: the account's name when the token is an account's
// session, else null.
std::string encode_welcome(const nlohmann::json& id, std::string_view player,
                           std::string_view token, bool bots, std::string_view games_json,
                           const nlohmann::json& tables = nlohmann::json::array(),
                           std::string_view name = {},
                           const std::optional<std::string>& account = std::nullopt);
std::string encode_created(const nlohmann::json& id, std::string_view room);
std::string encode_joined(const nlohmann::json& id, std::string_view room, std::optional<int> seat);
// `server_time` (ms since the epoch): what a client sets its clocks and countdowns by.
std::string encode_full(const nlohmann::json& id, std::string_view room, std::int64_t version,
                        const nlohmann::json& state,
                        std::optional<std::int64_t> server_time = std::nullopt);
std::string encode_patch(std::string_view room, std::int64_t version, const nlohmann::json& ops);
// The same frame from operations already written as JSON text (see diff_text).
std::string encode_patch_text(std::string_view room, std::int64_t version, std::string_view ops);
std::string encode_error(const Error& e);
std::string encode_left(const nlohmann::json& id, std::string_view room);
// The answer to a TournamentEntry; and, to a player's connections, their table of a round.
std::string encode_tournament_entry(const nlohmann::json& id, std::string_view tournament,
                                    bool registered);
std::string encode_tournament_table(std::string_view tournament, int round, std::string_view room);
std::string encode_bot_added(const nlohmann::json& id, std::string_view room, int seat,
                             std::string_view level);
// `total`: how many rooms the request matched; `rooms` holds those from `offset` on.
// `rooms`: a page of the public rooms, and `mine`, the asking player's own tables.
std::string encode_rooms(const nlohmann::json& id, const nlohmann::json& rooms, std::size_t total,
                         std::size_t offset, const nlohmann::json& mine);
std::string encode_crowd(std::string_view room, int spectators);
std::string encode_announce(std::string_view message);

}  // namespace plateau::protocol
