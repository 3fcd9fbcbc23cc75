#include "messages.hpp"

#include <algorithm>

namespace plateau::protocol {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxNameChars = 40;
constexpr std::size_t kMaxToken = 128;
constexpr std::size_t kMaxRoom = 64;
constexpr std::size_t kMaxMove = 512;
constexpr std::int64_t kMaxRoomsPage = 500;
constexpr std::size_t kMaxId = 64;
constexpr int kMaxSpectatorDelay = 1000;
constexpr std::size_t kMaxResume = 32;

std::unexpected<Error> fail(Code code, std::string message, const json& id = nullptr) {
  return std::unexpected(Error{code, std::move(message), id});
}

// Field readers: each returns an error naming the field, or the value.
std::expected<std::string, Error> get_string(const json& obj, const char* key, std::size_t max_len,
                                             const json& id) {
  const auto it = obj.find(key);
  if (it == obj.end()) return fail(Code::bad_field, std::string("missing field '") + key + "'", id);
  if (!it->is_string())
    return fail(Code::bad_field, std::string("'") + key + "' must be a string", id);
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > max_len)
    return fail(Code::bad_field, std::string("'") + key + "' is too long", id);
  if (s.empty()) return fail(Code::bad_field, std::string("'") + key + "' must not be empty", id);
  return s;
}

std::expected<std::optional<std::int64_t>, Error> get_optional_int(const json& obj, const char* key,
                                                                   const json& id) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<std::int64_t>{};
  if (!it->is_number_integer())
    return fail(Code::bad_field, std::string("'") + key + "' must be an integer", id);
  return std::optional<std::int64_t>(it->get<std::int64_t>());
}

// C0 and C1 controls, U+2028..U+202E (line and paragraph separators, bidi embeddings and
// overrides) and U+2066..U+2069 (bidi isolates), in valid UTF-8.
bool has_control_character(std::string_view n) {
  for (std::size_t i = 0; i < n.size(); ++i) {
    const auto c = static_cast<unsigned char>(n[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (i + 1 >= n.size()) continue;
    const auto c1 = static_cast<unsigned char>(n[i + 1]);
    if (c == 0xc2 && c1 >= 0x80 && c1 <= 0x9f) return true;  // U+0080..U+009F
    if (c != 0xe2 || i + 2 >= n.size()) continue;
    const auto c2 = static_cast<unsigned char>(n[i + 2]);
    if (c1 == 0x80 && c2 >= 0xa8 && c2 <= 0xae) return true;  // U+2028..U+202E
    if (c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9) return true;  // U+2066..U+2069
  }
  return false;
}

std::expected<Body, Error> decode_body(const std::string& type, const json& obj, const json& id) {
  if (type == "hello") {
    auto name = get_string(obj, "name", 1024, id);
    if (!name) return std::unexpected(name.error());
    // Names are shown to others: trim, cap, and refuse control characters.
    std::string n = *name;
    while (!n.empty() && n.back() == ' ') n.pop_back();
    while (!n.empty() && n.front() == ' ') n.erase(n.begin());
    if (n.empty()) return fail(Code::bad_field, "'name' must not be blank", id);
    if (const auto why = name_refusal(n); !why.empty())
      return fail(Code::bad_field, "'name' " + std::string(why), id);
    Hello h{std::move(n), std::nullopt, {}};
    if (obj.contains("token") && !obj["token"].is_null()) {
      auto token = get_string(obj, "token", kMaxToken, id);
      if (!token) return std::unexpected(token.error());
      h.token = *token;
    }
    if (const auto it = obj.find("resume"); it != obj.end() && !it->is_null()) {
      if (!it->is_object())
        return fail(Code::bad_field, "'resume' must be an object of room: version", id);
      if (it->size() > kMaxResume)
        return fail(Code::bad_field,
                    "'resume' names at most " + std::to_string(kMaxResume) + " rooms", id);
      for (const auto& [room, version] : it->items()) {
        if (room.empty() || room.size() > kMaxRoom)
          return fail(Code::bad_field, "a room in 'resume' must have 1 to 64 characters", id);
        if (!version.is_number_integer() || version.get<std::int64_t>() < 0)
          return fail(Code::bad_field,
                      "'resume' maps each room to the version held, an integer from 0", id);
        h.resume.emplace_back(room, version.get<std::int64_t>());
      }
    }
    return h;
  }
  if (type == "create") {
    auto game = get_string(obj, "game", 64, id);
    if (!game) return std::unexpected(game.error());
    Create c{*game, nullptr, false, 0};
    if (const auto it = obj.find("options"); it != obj.end() && !it->is_null()) {
      if (!it->is_object()) return fail(Code::bad_field, "'options' must be an object", id);
      c.options = *it;
    }
    if (const auto it = obj.find("private"); it != obj.end() && !it->is_null()) {
      if (!it->is_boolean()) return fail(Code::bad_field, "'private' must be a boolean", id);
      c.is_private = it->get<bool>();
    }
    if (const auto it = obj.find("chat"); it != obj.end() && !it->is_null()) {
      if (!it->is_string() || (*it != "on" && *it != "off"))
        return fail(Code::bad_field, "'chat' must be \"on\" or \"off\"", id);
      c.chat = *it == "on";
    }
    if (const auto it = obj.find("rated"); it != obj.end() && !it->is_null()) {
      if (!it->is_boolean()) return fail(Code::bad_field, "'rated' must be a boolean", id);
      c.rated = it->get<bool>();
    }
    if (const auto it = obj.find("clock"); it != obj.end()) {
      auto clock = time_control_from_json(*it);
      if (!clock) return fail(Code::bad_field, clock.error(), id);
      c.clock = *clock;
    }
    auto delay = get_optional_int(obj, "spectator_delay", id);
    if (!delay) return std::unexpected(delay.error());
    if (*delay) {
      if (**delay < 0 || **delay > kMaxSpectatorDelay)
        return fail(Code::bad_field, "'spectator_delay' must be between 0 and 1000", id);
      c.spectator_delay = static_cast<int>(**delay);
    }
    return c;
  }
  if (type == "join") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    auto as = get_string(obj, "as", 16, id);
    if (!as) return std::unexpected(as.error());
    if (*as != "player" && *as != "spectator")
      return fail(Code::bad_field, "'as' must be \"player\" or \"spectator\"", id);
    auto seat = get_optional_int(obj, "seat", id);
    if (!seat) return std::unexpected(seat.error());
    auto version = get_optional_int(obj, "version", id);
    if (!version) return std::unexpected(version.error());
    Join j{*room, *as == "spectator", std::nullopt, std::nullopt};
    if (*seat) {
      if (**seat < 0 || **seat > 64) return fail(Code::bad_field, "'seat' is out of range", id);
      j.seat = static_cast<int>(**seat);
    }
    if (*version) {
      if (**version < 0)
        return fail(Code::bad_field, "'version' is the version held, an integer from 0", id);
      j.version = **version;
    }
    return j;
  }
  if (type == "move") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    // No game has an empty move: refusing it here keeps "" out of the rules and the store.
    auto move = get_string(obj, "move", kMaxMove, id);
    if (!move) return std::unexpected(move.error());
    auto version = get_optional_int(obj, "version", id);
    if (!version) return std::unexpected(version.error());
    if (!*version) return fail(Code::bad_field, "missing field 'version'", id);
    return MoveRequest{*room, **version, *move};
  }
  if (type == "add_bot") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    auto seat = get_optional_int(obj, "seat", id);
    if (!seat) return std::unexpected(seat.error());
    AddBot b{*room, std::nullopt, "normal"};
    if (*seat) {
      if (**seat < 0 || **seat > 64) return fail(Code::bad_field, "'seat' is out of range", id);
      b.seat = static_cast<int>(**seat);
    }
    if (const auto it = obj.find("level"); it != obj.end() && !it->is_null()) {
      auto level = get_string(obj, "level", 16, id);
      if (!level) return std::unexpected(level.error());
      b.level = *level;
    }
    return b;
  }
  if (type == "remove_bot") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    auto seat = get_optional_int(obj, "seat", id);
    if (!seat) return std::unexpected(seat.error());
    if (!*seat) return fail(Code::bad_field, "missing field 'seat'", id);
    if (**seat < 0 || **seat > 64) return fail(Code::bad_field, "'seat' is out of range", id);
    return RemoveBot{*room, static_cast<int>(**seat)};
  }
  if (type == "sync" || type == "leave" || type == "rematch" || type == "resign" ||
      type == "claim") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    if (type == "sync") return Sync{*room};
    if (type == "leave") return Leave{*room};
    if (type == "resign") return Resign{*room};
    if (type == "claim") return Claim{*room};
    return Rematch{*room};
  }
  if (type == "draw" || type == "takeback") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    auto action = get_string(obj, "action", 16, id);
    if (!action) return std::unexpected(action.error());
    std::optional<DrawAction> act;
    if (*action == "offer") act = DrawAction::offer;
    if (*action == "accept") act = DrawAction::accept;
    if (*action == "decline") act = DrawAction::decline;
    if (!act)
      return fail(Code::bad_field, "'action' must be \"offer\", \"accept\" or \"decline\"", id);
    if (type == "takeback") return Takeback{*room, *act};
    return Draw{*room, *act};
  }
  if (type == "tournament") {
    auto t = get_string(obj, "tournament", kMaxRoom, id);
    if (!t) return std::unexpected(t.error());
    auto action = get_string(obj, "action", 16, id);
    if (!action) return std::unexpected(action.error());
    if (*action != "register" && *action != "withdraw")
      return fail(Code::bad_field, "'action' must be \"register\" or \"withdraw\"", id);
    return TournamentEntry{*t, *action == "register"};
  }
  if (type == "chat") {
    auto room = get_string(obj, "room", kMaxRoom, id);
    if (!room) return std::unexpected(room.error());
    Chat c{*room, {}, {}};
    const auto text = obj.find("text");
    const auto phrase = obj.find("phrase");
    if ((text == obj.end()) == (phrase == obj.end()))
      return fail(Code::bad_field, "a chat message has a 'text' or a 'phrase'", id);
    if (phrase != obj.end()) {
      if (!phrase->is_string() ||
          std::ranges::find(kChatPhrases, phrase->get_ref<const std::string&>()) ==
              kChatPhrases.end())
        return fail(Code::chat_text, "no such phrase", id);
      c.phrase = *phrase;
      return c;
    }
    auto t = get_string(obj, "text", kMaxChatChars * 4, id);
    if (!t) return std::unexpected(t.error());
    if (const auto why = chat_refusal(*t, kMaxChatChars); !why.empty())
      return fail(Code::chat_text, "the message " + std::string(why), id);
    c.text = std::move(*t);
    return c;
  }
  if (type == "rooms") {
    ListRooms l;
    if (const auto it = obj.find("game"); it != obj.end() && !it->is_null()) {
      auto game = get_string(obj, "game", 64, id);
      if (!game) return std::unexpected(game.error());
      l.game = *game;
    }
    auto offset = get_optional_int(obj, "offset", id);
    if (!offset) return std::unexpected(offset.error());
    if (*offset) {
      if (**offset < 0 || **offset > 10'000'000)
        return fail(Code::bad_field, "'offset' is out of range", id);
      l.offset = static_cast<std::size_t>(**offset);
    }
    auto limit = get_optional_int(obj, "limit", id);
    if (!limit) return std::unexpected(limit.error());
    if (*limit) {
      if (**limit < 1 || **limit > kMaxRoomsPage)
        return fail(Code::bad_field, "'limit' must be between 1 and 500", id);
      l.limit = static_cast<std::size_t>(**limit);
    }
    return l;
  }
  return fail(Code::unknown_type, "unknown message type '" + type.substr(0, 32) + "'", id);
}

}  // namespace

int json_depth(std::string_view text, int stop_at) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > stop_at) return deepest;
    } else if (c == ']' || c == '}')
      --depth;
  }
  return deepest;
}

std::string_view chat_refusal(std::string_view text, std::size_t max_chars) {
  if (text.find_first_not_of(" \t") == std::string_view::npos) return "is blank";
  const auto chars = std::ranges::count_if(
      text, [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
  if (static_cast<std::size_t>(chars) > max_chars) return "is too long";
  if (has_control_character(text)) return "has a control character";
  return {};
}

std::string_view name_refusal(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.find_first_not_of(' ') == std::string_view::npos) return "must not be blank";
  const auto chars = std::ranges::count_if(
      name, [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
  if (static_cast<std::size_t>(chars) > kMaxNameChars) return "is longer than 40 characters";
  if (has_control_character(name)) return "has a control character";
  return {};
}

std::expected<Request, Error> decode(std::string_view text, const Limits& limits) {
  if (text.size() > limits.max_frame_bytes)
    return fail(Code::too_large,
                "frame is larger than " + std::to_string(limits.max_frame_bytes) + " bytes");
  if (json_depth(text, limits.max_depth) > limits.max_depth)
    return fail(Code::too_deep, "JSON nested deeper than " + std::to_string(limits.max_depth));
  // The parser takes a NUL byte for the end of the text and never reads what follows it; JSON
  // has no NUL outside a string, nor an unescaped one inside.
  if (text.find('\0') != std::string_view::npos) return fail(Code::bad_json, "not valid JSON");
  json obj = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded()) return fail(Code::bad_json, "not valid JSON");
  if (!obj.is_object()) return fail(Code::bad_json, "a message is a JSON object");
  json id = nullptr;
  if (const auto it = obj.find("id"); it != obj.end() && !it->is_null()) {
    if (it->is_number_integer() ||
        (it->is_string() && it->get_ref<const std::string&>().size() <= kMaxId))
      id = *it;
    else
      return fail(Code::bad_field, "'id' must be an integer or a short string");
  }
  const auto type = obj.find("type");
  if (type == obj.end()) return fail(Code::bad_field, "missing field 'type'", id);
  if (!type->is_string()) return fail(Code::bad_field, "'type' must be a string", id);
  auto body = decode_body(type->get_ref<const std::string&>(), obj, id);
  if (!body) return std::unexpected(body.error());
  return Request{std::move(id), std::move(*body)};
}

namespace {
json with_id(json msg, const json& id) {
  if (!id.is_null()) msg["id"] = id;
  return msg;
}
// Compact JSON text; invalid UTF-8 (a name, a message) is replaced rather than thrown on.
std::string dump_text(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}
}  // namespace

std::string encode_welcome(const json& id, std::string_view player, std::string_view token,
                           bool bots, std::string_view games_json, const json& tables,
                           std::string_view name, const std::optional<std::string>& account) {
  // Keys in the order nlohmann writes them (sorted), like every other frame.
  std::string out = R"({"account":)";
  out += account ? dump_text(*account) : "null";
  out += bots ? R"(,"bots":true,"games":)" : R"(,"bots":false,"games":)";
  out += games_json;
  if (!id.is_null()) {
    out += R"(,"id":)";
    out += dump_text(id);
  }
  out += R"(,"name":)";
  out += dump_text(name);
  out += R"(,"player":)";
  out += dump_text(player);
  out += R"(,"tables":)";
  out += dump_text(tables);
  out += R"(,"token":)";
  out += dump_text(token);
  out += R"(,"type":"welcome"})";
  return out;
}
std::string encode_created(const json& id, std::string_view room) {
  return with_id({{"type", "created"}, {"room", room}}, id).dump();
}
std::string encode_joined(const json& id, std::string_view room, std::optional<int> seat) {
  return with_id({{"type", "joined"}, {"room", room}, {"seat", seat ? json(*seat) : json(nullptr)}},
                 id)
      .dump();
}
std::string encode_full(const json& id, std::string_view room, std::int64_t version,
                        const json& state, std::optional<std::int64_t> server_time) {
  json out{{"type", "full"}, {"room", room}, {"version", version}, {"state", state}};
  if (server_time) out["server_time"] = *server_time;
  return with_id(std::move(out), id).dump();
}
std::string encode_patch(std::string_view room, std::int64_t version, const json& ops) {
  return json{{"type", "patch"}, {"room", room}, {"version", version}, {"ops", ops}}.dump();
}
std::string encode_patch_text(std::string_view room, std::int64_t version, std::string_view ops) {
  // Keys in the order nlohmann writes them (sorted), so both encoders give the same bytes.
  std::string out = R"({"ops":)";
  out += ops;
  out += R"(,"room":)";
  out += json(room).dump();
  out += R"(,"type":"patch","version":)";
  out += std::to_string(version);
  out += '}';
  return out;
}

std::string encode_error(const Error& e) {
  return dump_text(
      with_id({{"type", "error"}, {"code", code_string(e.code)}, {"message", e.message}}, e.id));
}
std::string encode_left(const json& id, std::string_view room) {
  return with_id({{"type", "left"}, {"room", room}}, id).dump();
}
std::string encode_tournament_entry(const json& id, std::string_view tournament, bool registered) {
  return with_id({{"type", "tournament"}, {"tournament", tournament}, {"registered", registered}},
                 id)
      .dump();
}
std::string encode_tournament_table(std::string_view tournament, int round, std::string_view room) {
  return json{
      {"type", "tournament_table"}, {"tournament", tournament}, {"round", round}, {"room", room}}
      .dump();
}
std::string encode_bot_added(const json& id, std::string_view room, int seat,
                             std::string_view level) {
  return with_id({{"type", "bot_added"}, {"room", room}, {"seat", seat}, {"level", level}}, id)
      .dump();
}
std::string encode_rooms(const json& id, const json& rooms, std::size_t total, std::size_t offset,
                         const json& mine) {
  return with_id({{"type", "rooms"},
                  {"rooms", rooms},
                  {"total", total},
                  {"offset", offset},
                  {"mine", mine}},
                 id)
      .dump();
}
std::string encode_crowd(std::string_view room, int spectators) {
  return json{{"type", "crowd"}, {"room", room}, {"spectators", spectators}}.dump();
}
std::string encode_announce(std::string_view message) {
  return dump_text(json{{"type", "announce"}, {"message", message}});
}

}  // namespace plateau::protocol
