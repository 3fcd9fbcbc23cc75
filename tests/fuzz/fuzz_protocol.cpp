// Fuzzes the wire decoder with arbitrary bytes, under the limits the server decodes with.
//
// Checked on every input: decode never throws or crashes; an oversize or too deeply nested frame
// is refused with its own code; every refusal encodes to an error frame that parses back with
// its code and the request's id; every accepted request has fields within the decoder's bounds
// and encodes the server's replies without throwing; json_depth agrees with the depth of what
// the parser read. An input that is a JSON array of two documents also checks the patches the
// server sends between states: applying diff(a, b) to a gives b, and diff_text says the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "protocol/messages.hpp"
#include "protocol/view.hpp"
#include "server/config.hpp"

namespace {

using nlohmann::json;
namespace protocol = plateau::protocol;

// The nesting depth of a parsed document: a scalar is 0, [] or {} is 1.
int depth_of(const json& j) {
  if (!j.is_structured()) return 0;
  int deepest = 0;
  for (const auto& child : j) deepest = std::max(deepest, depth_of(child));
  return deepest + 1;
}

bool valid_id(const json& id) {
  return id.is_null() || id.is_number_integer() ||
         (id.is_string() && id.get_ref<const std::string&>().size() <= 64);
}

void check_error(const protocol::Error& e) {
  FUZZ_CHECK(valid_id(e.id), "an error carries an id the decoder should have refused");
  FUZZ_CHECK(!e.message.empty(), "an error without a message");
  const json frame = json::parse(protocol::encode_error(e), nullptr, false);
  FUZZ_CHECK(frame.is_object(), "encode_error wrote something that is not a JSON object");
  FUZZ_CHECK(frame.value("type", "") == "error", "an error frame whose type is not 'error'");
  FUZZ_CHECK(frame.value("code", "") == protocol::code_string(e.code),
             "an error frame with another code");
  FUZZ_CHECK(frame.value("id", json(nullptr)) == e.id, "an error frame that lost the request's id");
}

// Each accepted request: the bounds decode promises, and the replies the server builds from it.
void check_request(const protocol::Request& req) {
  FUZZ_CHECK(valid_id(req.id), "an accepted request with an id of the wrong kind");
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, protocol::Hello>) {
          FUZZ_CHECK(protocol::name_refusal(body.name).empty(),
                     "hello accepted a name name_refusal refuses");
          FUZZ_CHECK(body.name.front() != ' ' && body.name.back() != ' ',
                     "hello kept spaces around a name");
          FUZZ_CHECK(!body.token || (!body.token->empty() && body.token->size() <= 128),
                     "a token out of bounds");
          FUZZ_CHECK(body.resume.size() <= 32, "more resumed rooms than the decoder allows");
          (void)protocol::encode_welcome(req.id, "p", body.token.value_or("t"), true, "[]");
        } else if constexpr (std::is_same_v<T, protocol::Create>) {
          FUZZ_CHECK(body.options.is_object() || body.options.is_null(),
                     "create with options not an object");
          FUZZ_CHECK(body.spectator_delay >= 0 && body.spectator_delay <= 1000,
                     "a spectator delay out of bounds");
          (void)protocol::encode_created(req.id, body.game);
        } else if constexpr (std::is_same_v<T, protocol::Join>) {
          FUZZ_CHECK(!body.room.empty() && body.room.size() <= 64, "a room id out of bounds");
          (void)protocol::encode_joined(req.id, body.room, body.seat);
        } else if constexpr (std::is_same_v<T, protocol::MoveRequest>) {
          FUZZ_CHECK(!body.move.empty() && body.move.size() <= 512, "a move out of bounds");
          (void)protocol::encode_patch(body.room, body.version, json::array());
        } else if constexpr (std::is_same_v<T, protocol::ListRooms>) {
          FUZZ_CHECK(!body.limit || (*body.limit >= 1 && *body.limit <= 500),
                     "a page size out of bounds");
          (void)protocol::encode_rooms(req.id, json::array(), 0, body.offset, json::array());
        } else if constexpr (std::is_same_v<T, protocol::TournamentEntry>) {
          FUZZ_CHECK(!body.tournament.empty() && body.tournament.size() <= 64,
                     "a tournament id out of bounds");
          (void)protocol::encode_tournament_entry(req.id, body.tournament, body.enter);
        } else {
          (void)protocol::encode_left(req.id, body.room);
        }
      },
      req.body);
}

// An array of two documents [a, b]: the patch from a to b, as the rooms send it.
void check_diff(const json& doc) {
  if (!doc.is_array() || doc.size() != 2) return;
  const json& from = doc[0];
  const json& to = doc[1];
  const json ops = protocol::diff(from, to);
  const auto patched = protocol::apply_patch(from, ops);
  FUZZ_CHECK(patched.has_value(), "diff(a, b) does not apply to a");
  FUZZ_CHECK(*patched == to, "a patched with diff(a, b) is not b");
  FUZZ_CHECK(json::parse(protocol::diff_text(from, to), nullptr, false) == ops,
             "diff_text differs from diff");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const protocol::Limits limits{plateau::server::Config{}.max_frame,
                                32};  // as server/net/connections.hpp decodes

  const auto decoded = protocol::decode(text, limits);
  const int depth = protocol::json_depth(text, 1 << 30);
  if (text.size() > limits.max_frame_bytes) {
    FUZZ_CHECK(!decoded && decoded.error().code == protocol::Code::too_large,
               "an oversize frame was not too_large");
  } else if (depth > limits.max_depth) {
    FUZZ_CHECK(!decoded && decoded.error().code == protocol::Code::too_deep,
               "a deep frame was not too_deep");
  }
  if (text.find('\0') != std::string_view::npos)
    FUZZ_CHECK(!decoded, "a frame with a NUL byte was accepted");
  if (decoded)
    check_request(*decoded);
  else
    check_error(decoded.error());

  // json_depth stops early, but never below the truth, and is exact on a document's own text.
  const int stop = static_cast<int>(size % 8);
  const int early = protocol::json_depth(text, stop);
  FUZZ_CHECK(early <= depth && (early > stop) == (depth > stop),
             "json_depth's early stop is wrong");
  // nlohmann's parser stops at a NUL byte, so only text without one is compared with what it read
  // (decode refuses a NUL: see protocol_test's AFrameWithANulByteIsNotJson).
  if (depth <= 64 &&
      text.find('\0') == std::string_view::npos) {  // deeper would only test the parser's recursion
    const json doc = json::parse(text, nullptr, false);
    if (!doc.is_discarded()) {
      // A repeated key keeps only its last value, which may be shallower than an earlier one, so
      // the text can be deeper than the document; the document's own text is measured exactly.
      FUZZ_CHECK(depth_of(doc) <= depth, "json_depth is below the parsed document's depth");
      FUZZ_CHECK(protocol::json_depth(doc.dump(), 1 << 30) == depth_of(doc),
                 "json_depth disagrees with a document");
      check_diff(doc);
    }
  }
  return 0;
}
