#include "view.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace plateau::protocol {

using nlohmann::json;

std::string_view status_string(Status s) {
  switch (s) {
    case Status::waiting:
      return "waiting";
    case Status::playing:
      return "playing";
    case Status::over:
      return "over";
  }
  return "waiting";
}

Envelope make_envelope(const RoomFacts& room, const rules::State& state,
                       std::optional<rules::Seat> viewer) {
  Envelope e;
  e.game = room.game;
  e.status = room.status;
  e.round = room.round;
  e.seats = *room.seats;
  e.you = viewer;
  const bool playing = room.status == Status::playing;
  const auto mover = state.to_move();
  if (playing) e.to_move = mover;
  e.left = room.left.is_array() ? room.left : json::array();
  // A player who left sees their seat played for them, with no moves of their own.
  const bool gone_from_round = viewer && std::ranges::any_of(e.left, [&](const json& d) {
                                 return d.is_object() && d.value("seat", -1) == *viewer;
                               });
  if (playing && viewer && mover == viewer && !gone_from_round) {
    auto moves = state.legal_moves();
    e.legal_moves.reserve(moves.size());
    for (auto& m : moves) e.legal_moves.push_back(std::move(m.text));
  }
  if (room.ended)
    e.outcome = *room.ended;
  else if (const auto outcome = state.outcome())
    e.outcome = rules::to_json(*outcome);
  if (playing) e.offer = room.offer;
  e.clock = room.clock;
  if (playing) e.gone = room.gone;
  if (room.rematch)
    for (std::size_t i = 0; i < room.rematch->size(); ++i)
      if ((*room.rematch)[i]) e.rematch.push_back(static_cast<int>(i));
  e.fairness = room.fairness;
  e.options = room.options;
  e.rated = room.rated;
  e.chat = room.chat;
  return e;
}

namespace {

json seat_json(std::size_t i, const SeatInfo& s) {
  json out{
      {"seat", i}, {"name", s.name ? json(*s.name) : json(nullptr)}, {"connected", s.connected}};
  if (s.bot) out["bot"] = *s.bot;  // only a bot's seat has the field
  return out;
}
json optional_seat(const std::optional<rules::Seat>& s) { return s ? json(*s) : json(nullptr); }

}  // namespace

json fairness_json(const Fairness* f) {
  if (!f) return nullptr;
  const auto revealed = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return json{
      {"commitment", f->commitment}, {"seed", revealed(f->seed)}, {"salt", revealed(f->salt)}};
}

json assemble_state(const Envelope& e, json board) {
  json seats = json::array();
  for (std::size_t i = 0; i < e.seats.size(); ++i) seats.push_back(seat_json(i, e.seats[i]));
  return json{{"game", e.game},
              {"status", status_string(e.status)},
              {"round", e.round},
              {"seats", std::move(seats)},
              {"you", optional_seat(e.you)},
              {"to_move", optional_seat(e.to_move)},
              {"legal_moves", e.legal_moves},
              {"outcome", e.outcome},
              {"rematch", e.rematch},
              {"fairness", fairness_json(e.fairness.get())},
              {"options", e.options ? *e.options : json(nullptr)},
              {"offer", e.offer},
              {"clock", e.clock},
              {"gone", e.gone},
              {"left", e.left},
              {"rated", e.rated},
              {"chat", e.chat ? *e.chat : json::array()},
              {"board", std::move(board)}};
}

json make_state(const RoomFacts& room, const rules::State& state,
                std::optional<rules::Seat> viewer) {
  return assemble_state(make_envelope(room, state, viewer), state.view(viewer));
}

namespace {

// How many more characters than one each byte takes in a JSON string literal: a quote or a
// backslash is escaped with one more, a control character written as \u00XX.
constexpr std::array<unsigned char, 256> kEscapeExtra = [] {
  std::array<unsigned char, 256> extra{};
  for (int c = 0; c < 0x20; ++c) extra[static_cast<std::size_t>(c)] = 5;
  extra['"'] = 1;
  extra['\\'] = 1;
  return extra;
}();

// Appends `s` as a JSON string literal. The legal moves alone are hundreds of short strings a
// move: the string is measured in one branch-free pass, and one that needs no escape (nearly
// all) is copied whole.
void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t extra = 0;
  for (const char ch : s) extra += kEscapeExtra[static_cast<unsigned char>(ch)];
  const std::size_t at = out.size(), size = s.size() + extra + 2;
  out.resize_and_overwrite(at + size, [&](char* p, std::size_t) {
    char* w = p + at;
    *w++ = '"';
    if (extra == 0) {
      w = std::copy(s.begin(), s.end(), w);
    } else {
      for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (kEscapeExtra[c] == 0) {
          *w++ = ch;
        } else if (kEscapeExtra[c] == 1) {
          *w++ = '\\';
          *w++ = ch;
        } else {
          w = std::copy_n("\\u00", 4, w);
          *w++ = kHex[c >> 4];
          *w++ = kHex[c & 15];
        }
      }
    }
    *w = '"';
    return at + size;
  });
}

void append_token(std::string& path, std::string_view key) {
  path += '/';
  for (char c : key) {
    if (c == '~')
      path += "~0";
    else if (c == '/')
      path += "~1";
    else
      path += c;
  }
}

// Writes one operation straight into the patch text: building JSON objects for operations and
// then serializing them was a third of a move's CPU.
// A comma before every operation but the first of its array.
void separate(std::string& out) {
  if (!out.empty() && out.back() != '[') out += ',';
}

// Whether `s` is printable ASCII, which append_json_string writes exactly as dump does.
bool is_plain(std::string_view s) {
  return std::ranges::all_of(s, [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
}

template <class Int>
void append_integer(std::string& out, Int n) {
  std::array<char, 24> buf;  // the longest 64-bit integer is 20 digits and a sign
  out.append(buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), n).ptr);
}

// Appends `v` exactly as v.dump(-1, ' ', false, replace) writes it. A patch holds a dozen small
// values a move, and dump builds a serializer and a string of its own for each one; here the
// common kinds are written in place, and the rare rest (floats, strings with control or
// non-ASCII characters) are handed to dump.
void append_value(std::string& out, const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      append_integer(out, v.get<std::int64_t>());
      return;
    case json::value_t::number_unsigned:
      append_integer(out, v.get<std::uint64_t>());
      return;
    case json::value_t::string:
      if (const auto& s = v.get_ref<const std::string&>(); is_plain(s))
        return append_json_string(out, s);
      break;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& e : v.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        append_value(out, e);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, e] : v.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        if (is_plain(key))
          append_json_string(out, key);
        else
          out += json(key).dump(-1, ' ', false, json::error_handler_t::replace);
        out += ':';
        append_value(out, e);
      }
      out += '}';
      return;
    }
    default:
      break;
  }
  out += v.dump(-1, ' ', false, json::error_handler_t::replace);
}

void op(std::string& out, const char* kind, const std::string& path, const json* value) {
  separate(out);
  out += R"({"op":")";
  out += kind;
  out += R"(","path":)";
  append_json_string(out, path);
  if (value) {
    out += R"(,"value":)";
    append_value(out, *value);
  }
  out += '}';
}

bool is_container(const json& j) { return j.is_object() || j.is_array(); }
// Whether a and b are compared whole (a replace when they differ) rather than member by member.
bool compared_whole(const json& a, const json& b) {
  return a.type() != b.type() || !is_container(a);
}

// Why not json::diff: it deep-compares at every level and rebuilds path strings, which made it
// half of a move's cost, and it patches a list that changes length element by element. Here
// objects are merged key by key (both are sorted maps), equal-length arrays element by element,
// and an array that grew or shrank gets adds or removes at its end when its head is unchanged,
// or is replaced whole when that is shorter.
void diff_into(const json& a, const json& b, std::string& path, std::string& out) {
  if (compared_whole(a, b)) {
    if (a != b) op(out, "replace", path, &b);
    return;
  }
  const std::size_t len = path.size();
  if (a.is_object()) {
    // Both are sorted maps, walked together. Most keys are in both and most values unchanged: a
    // key is compared once for that, and a path is written only for an operation or to go down.
    const auto& ma = a.get_ref<const json::object_t&>();
    const auto& mb = b.get_ref<const json::object_t&>();
    auto ia = ma.begin(), ib = mb.begin();
    while (ia != ma.end() || ib != mb.end()) {
      const int order = ia == ma.end() ? 1 : ib == mb.end() ? -1 : ia->first.compare(ib->first);
      if (order < 0) {
        append_token(path, ia->first);
        op(out, "remove", path, nullptr);
        ++ia;
      } else if (order > 0) {
        append_token(path, ib->first);
        op(out, "add", path, &ib->second);
        ++ib;
      } else {
        const json &va = ia->second, &vb = ib->second;
        if (compared_whole(va, vb)) {  // as diff_into would, without writing the path first
          if (va != vb) {
            append_token(path, ia->first);
            op(out, "replace", path, &vb);
          }
        } else {
          append_token(path, ia->first);
          diff_into(va, vb, path, out);
        }
        ++ia;
        ++ib;
      }
      path.resize(len);
    }
    return;
  }
  const std::size_t common = std::min(a.size(), b.size());
  // Which elements differ, compared once: comparing them again below cost a second deep walk
  // at every level of nested lists.
  std::vector<std::size_t> differing;
  for (std::size_t i = 0; i < common; ++i)
    if (a[i] != b[i]) differing.push_back(i);
  // Rewriting most of a list element by element costs more than sending it again.
  if (differing.size() * 2 > common + 1 && b.size() > 0) {
    op(out, "replace", path, &b);
    return;
  }
  for (const std::size_t i : differing) {
    path += '/';
    path += std::to_string(i);
    diff_into(a[i], b[i], path, out);
    path.resize(len);
  }
  for (std::size_t i = common; i < b.size(); ++i) {
    path += '/';
    path += std::to_string(i);
    op(out, "add", path, &b[i]);
    path.resize(len);
  }
  for (std::size_t i = a.size(); i > common; --i) {  // from the end, so indices stay valid
    path += '/';
    path += std::to_string(i - 1);
    op(out, "remove", path, nullptr);
    path.resize(len);
  }
}

// Replaces `path` with `value` written by `write`, which appends JSON text.
template <class Write>
void replace_with(std::string& out, const std::string& path, Write write) {
  separate(out);
  out += R"({"op":"replace","path":)";
  append_json_string(out, path);
  out += R"(,"value":)";
  write(out);
  out += '}';
}

void append_optional_seat(std::string& out, const std::optional<rules::Seat>& s) {
  out += s ? std::to_string(*s) : "null";
}

}  // namespace

void append_diff(std::string& ops, const json& from, const json& to, std::string prefix) {
  diff_into(from, to, prefix, ops);
}

namespace {

// The node at JSON pointer `pointer` under `root`, walked in place (json_pointer first splits
// the pointer into a vector of strings, at every edit); nullptr when the walk cannot say, such as
// for a token with an escape, and the caller falls back to json_pointer.
const json* find_node(const json& root, std::string_view pointer) {
  const json* node = &root;
  while (!pointer.empty()) {
    if (pointer[0] != '/') return nullptr;
    pointer.remove_prefix(1);
    const auto end = std::min(pointer.find('/'), pointer.size());
    const std::string_view token = pointer.substr(0, end);
    pointer.remove_prefix(end);
    if (node->is_array()) {
      std::size_t i = 0;
      const auto [at, ec] = std::from_chars(token.data(), token.data() + token.size(), i);
      if (ec != std::errc() || at != token.data() + token.size() ||
          (token.size() > 1 && token[0] == '0') || i >= node->size())
        return nullptr;
      node = &(*node)[i];
    } else if (node->is_object() && token.find('~') == std::string_view::npos) {
      const auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      return nullptr;
    }
  }
  return node;
}

}  // namespace

void append_view_update(std::string& ops, json& board, rules::ViewParts::Update&& update,
                        const std::string& prefix) {
  std::string path;
  for (const auto& e : update.edits) {
    path = prefix;
    path += e.pointer;
    const json* node = find_node(board, e.pointer);
    op(ops, e.added ? "add" : "replace", path,
       node ? node : &board.at(json::json_pointer(e.pointer)));
  }
  for (auto& [key, value] : update.rest.items()) {
    path = prefix;
    append_token(path, key);
    const auto it = board.find(key);
    if (it == board.end()) {
      op(ops, "add", path, &value);
      board[key] = std::move(value);
    } else {
      diff_into(*it, value, path, ops);
      *it = std::move(value);
    }
  }
}

void append_envelope_diff(std::string& ops, const Envelope& a, const Envelope& b) {
  // The fields a room can change; `game` and `you` are fixed for an audience.
  if (a.game != b.game)
    replace_with(ops, "/game", [&](std::string& o) { append_json_string(o, b.game); });
  if (a.you != b.you)
    replace_with(ops, "/you", [&](std::string& o) { append_optional_seat(o, b.you); });
  if (a.status != b.status)
    replace_with(ops, "/status",
                 [&](std::string& o) { append_json_string(o, status_string(b.status)); });
  if (a.round != b.round)
    replace_with(ops, "/round", [&](std::string& o) { o += std::to_string(b.round); });
  if (a.to_move != b.to_move)
    replace_with(ops, "/to_move", [&](std::string& o) { append_optional_seat(o, b.to_move); });
  if (a.seats.size() != b.seats.size()) {
    replace_with(ops, "/seats", [&](std::string& o) {
      json seats = json::array();
      for (std::size_t i = 0; i < b.seats.size(); ++i) seats.push_back(seat_json(i, b.seats[i]));
      o += seats.dump(-1, ' ', false, json::error_handler_t::replace);
    });
  } else {
    for (std::size_t i = 0; i < b.seats.size(); ++i) {
      const std::string at = "/seats/" + std::to_string(i);
      if (a.seats[i].bot != b.seats[i].bot) {  // a bot sat down or left: the seat, whole
        replace_with(ops, at, [&](std::string& o) {
          o += seat_json(i, b.seats[i]).dump(-1, ' ', false, json::error_handler_t::replace);
        });
        continue;
      }
      if (a.seats[i].name != b.seats[i].name)
        replace_with(ops, at + "/name", [&](std::string& o) {
          if (b.seats[i].name)
            o += json(*b.seats[i].name).dump(-1, ' ', false, json::error_handler_t::replace);
          else
            o += "null";
        });
      if (a.seats[i].connected != b.seats[i].connected)
        replace_with(ops, at + "/connected",
                     [&](std::string& o) { o += b.seats[i].connected ? "true" : "false"; });
    }
  }
  if (a.legal_moves != b.legal_moves)
    replace_with(ops, "/legal_moves", [&](std::string& o) {
      o += '[';
      for (std::size_t i = 0; i < b.legal_moves.size(); ++i) {
        if (i) o += ',';
        append_json_string(o, b.legal_moves[i]);
      }
      o += ']';
    });
  if (a.outcome != b.outcome)
    replace_with(ops, "/outcome", [&](std::string& o) {
      o += b.outcome.dump(-1, ' ', false, json::error_handler_t::replace);
    });
  if (a.rematch != b.rematch)
    replace_with(ops, "/rematch", [&](std::string& o) {
      o += '[';
      for (std::size_t i = 0; i < b.rematch.size(); ++i) {
        if (i) o += ',';
        o += std::to_string(b.rematch[i]);
      }
      o += ']';
    });
  if (a.options != b.options && (!a.options || !b.options || *a.options != *b.options))
    replace_with(ops, "/options",
                 [&](std::string& o) { o += (b.options ? *b.options : json(nullptr)).dump(); });
  if (a.gone != b.gone) replace_with(ops, "/gone", [&](std::string& o) { o += b.gone.dump(); });
  if (a.left != b.left) replace_with(ops, "/left", [&](std::string& o) { o += b.left.dump(); });
  if (a.rated != b.rated)
    replace_with(ops, "/rated", [&](std::string& o) { o += b.rated ? "true" : "false"; });
  if (a.chat != b.chat) {
    static const json none = json::array();
    append_diff(ops, a.chat ? *a.chat : none, b.chat ? *b.chat : none, "/chat");
  }
  if (a.clock != b.clock) replace_with(ops, "/clock", [&](std::string& o) { o += b.clock.dump(); });
  if (a.offer != b.offer) replace_with(ops, "/offer", [&](std::string& o) { o += b.offer.dump(); });
  if (a.fairness != b.fairness)
    replace_with(ops, "/fairness",
                 [&](std::string& o) { o += fairness_json(b.fairness.get()).dump(); });
}

std::string diff_text(const json& from, const json& to) {
  std::string out = "[";
  append_diff(out, from, to, "");
  out += ']';
  return out;
}

json diff(const json& from, const json& to) { return json::parse(diff_text(from, to)); }

std::optional<json> apply_patch(const json& doc, const json& ops) {
  try {
    return doc.patch(ops);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace plateau::protocol
