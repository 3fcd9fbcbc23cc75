#include "view.hpp"

#include <algorithm>

namespace plateau::protocol {

using nlohmann::json;

std::string_view status_string(Status s) {
  switch (s) {
    case Status::waiting: return "waiting";
    case Status::playing: return "playing";
    case Status::over: return "over";
  }
  return "waiting";
}

json make_state(const RoomFacts& room, const rules::State& state, std::optional<rules::Seat> viewer) {
  json seats = json::array();
  for (std::size_t i = 0; i < room.seats->size(); ++i) {
    const auto& s = (*room.seats)[i];
    seats.push_back({{"seat", i}, {"name", s.name ? json(*s.name) : json(nullptr)}, {"connected", s.connected}});
  }
  const bool playing = room.status == Status::playing;
  const auto mover = state.to_move();
  json legal = json::array();
  if (playing && viewer && mover == viewer)
    for (auto& m : state.legal_moves()) legal.push_back(std::move(m.text));
  json rematch = json::array();
  if (room.rematch)
    for (std::size_t i = 0; i < room.rematch->size(); ++i)
      if ((*room.rematch)[i]) rematch.push_back(i);
  const auto outcome = state.outcome();
  return json{{"game", room.game},
              {"status", status_string(room.status)},
              {"round", room.round},
              {"seats", std::move(seats)},
              {"you", viewer ? json(*viewer) : json(nullptr)},
              {"to_move", playing && mover ? json(*mover) : json(nullptr)},
              {"legal_moves", std::move(legal)},
              {"outcome", outcome ? rules::to_json(*outcome) : json(nullptr)},
              {"rematch", std::move(rematch)},
              {"board", state.view(viewer)}};
}

namespace {

// Appends `s` as a JSON string literal.
void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void append_token(std::string& path, std::string_view key) {
  path += '/';
  for (char c : key) {
    if (c == '~') path += "~0";
    else if (c == '/') path += "~1";
    else path += c;
  }
}

// Writes one operation straight into the patch text: building JSON objects for operations and
// then serializing them was a third of a move's CPU.
void op(std::string& out, const char* kind, const std::string& path, const json* value) {
  if (out.size() > 1) out += ',';
  out += R"({"op":")";
  out += kind;
  out += R"(","path":)";
  append_json_string(out, path);
  if (value) {
    out += R"(,"value":)";
    out += value->dump(-1, ' ', false, json::error_handler_t::replace);
  }
  out += '}';
}

bool is_container(const json& j) { return j.is_object() || j.is_array(); }

// Why not json::diff: it deep-compares at every level and rebuilds path strings, which made it
// half of a move's cost, and it patches a list that changes length element by element. Here
// objects are merged key by key (both are sorted maps), equal-length arrays element by element,
// and an array that grew or shrank gets adds or removes at its end when its head is unchanged,
// or is replaced whole when that is shorter.
void diff_into(const json& a, const json& b, std::string& path, std::string& out) {
  if (a.type() != b.type() || !is_container(a)) {
    if (a != b) op(out, "replace", path, &b);
    return;
  }
  const std::size_t len = path.size();
  if (a.is_object()) {
    auto ia = a.begin(), ib = b.begin();
    while (ia != a.end() || ib != b.end()) {
      if (ib == b.end() || (ia != a.end() && ia.key() < ib.key())) {
        append_token(path, ia.key());
        op(out, "remove", path, nullptr);
        ++ia;
      } else if (ia == a.end() || ib.key() < ia.key()) {
        append_token(path, ib.key());
        op(out, "add", path, &*ib);
        ++ib;
      } else {
        append_token(path, ia.key());
        diff_into(*ia, *ib, path, out);
        ++ia;
        ++ib;
      }
      path.resize(len);
    }
    return;
  }
  const std::size_t common = std::min(a.size(), b.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < common; ++i)
    if (a[i] != b[i]) ++differing;
  // Rewriting most of a list element by element costs more than sending it again.
  if (differing * 2 > common + 1 && b.size() > 0) {
    op(out, "replace", path, &b);
    return;
  }
  for (std::size_t i = 0; i < common; ++i) {
    if (a[i] == b[i]) continue;
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

}  // namespace

std::string diff_text(const json& from, const json& to) {
  std::string out = "[";
  std::string path;
  diff_into(from, to, path, out);
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
