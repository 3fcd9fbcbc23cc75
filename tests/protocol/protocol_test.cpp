// Protocol: every message decoded, garbage refused with a stable code (never a throw), golden
// encodings, and patch(diff(a, b)) == b.
#include <gtest/gtest.h>

#include <limits>

#include "protocol/ending.hpp"
#include "protocol/messages.hpp"
#include "protocol/view.hpp"
#include "rules/game.hpp"

namespace plateau::protocol {
namespace {

using nlohmann::json;

Request ok(std::string_view text) {
  auto r = decode(text);
  EXPECT_TRUE(r.has_value()) << text << ": " << (r ? "" : r.error().message);
  return r ? *r : Request{};
}

std::string refused(std::string_view text, const Limits& limits = {}) {
  auto r = decode(text, limits);
  EXPECT_FALSE(r.has_value()) << text;
  return r ? "" : std::string(code_string(r.error().code));
}

TEST(Decode, HelloWithAndWithoutToken) {
  auto r = ok(R"({"type":"hello","name":"  Ada ","id":1})");
  ASSERT_TRUE(std::holds_alternative<Hello>(r.body));
  EXPECT_EQ(std::get<Hello>(r.body).name, "Ada") << "names are trimmed";
  EXPECT_FALSE(std::get<Hello>(r.body).token);
  EXPECT_EQ(r.id, 1);
  r = ok(R"({"type":"hello","name":"Ada","token":"abc"})");
  EXPECT_EQ(std::get<Hello>(r.body).token, "abc");
  EXPECT_TRUE(r.id.is_null());
  EXPECT_TRUE(std::get<Hello>(r.body).resume.empty());
}

TEST(Decode, HelloNamesTheVersionsItHoldsOrIsRefused) {
  const auto r = ok(R"({"type":"hello","name":"Ada","token":"abc","resume":{"r1":7,"r2":0}})");
  using Held = std::vector<std::pair<std::string, std::int64_t>>;
  EXPECT_EQ(std::get<Hello>(r.body).resume, (Held{{"r1", 7}, {"r2", 0}}));
  EXPECT_TRUE(
      std::get<Hello>(ok(R"({"type":"hello","name":"Ada","resume":null})").body).resume.empty());
  for (const std::string bad : {R"([["r1",7]])", R"({"r1":-1})", R"({"r1":"7"})", R"({"r1":1.5})",
                                R"({"":1})", R"({"r1":18446744073709551615})"})
    EXPECT_EQ(refused(R"({"type":"hello","name":"Ada","resume":)" + bad + "}"), "proto/bad_field")
        << bad;
  EXPECT_EQ(
      refused(R"({"type":"hello","name":"Ada","resume":{")" + std::string(65, 'r') + R"(":1}})"),
      "proto/bad_field");
  json many = json::object();
  for (int i = 0; i < 33; ++i) many["r" + std::to_string(i)] = i;
  EXPECT_EQ(refused(json{{"type", "hello"}, {"name", "Ada"}, {"resume", many}}.dump()),
            "proto/bad_field");
  many.erase("r0");
  EXPECT_EQ(
      std::get<Hello>(ok(json{{"type", "hello"}, {"name", "Ada"}, {"resume", many}}.dump()).body)
          .resume.size(),
      32u);
}

TEST(Decode, JoinNamesTheVersionItHoldsOrIsRefused) {
  const auto j =
      std::get<Join>(ok(R"({"type":"join","room":"r1","as":"spectator","version":41})").body);
  EXPECT_EQ(j.version, 41);
  EXPECT_TRUE(j.spectator);
  EXPECT_EQ(
      std::get<Join>(ok(R"({"type":"join","room":"r1","as":"player","version":0})").body).version,
      0);
  EXPECT_EQ(std::get<Join>(ok(R"({"type":"join","room":"r1","as":"player","version":null})").body)
                .version,
            std::nullopt);
  EXPECT_EQ(std::get<Join>(ok(R"({"type":"join","room":"r1","as":"player"})").body).version,
            std::nullopt);
  for (const std::string bad : {"-1", R"("7")", "1.5", "true", "[7]", "18446744073709551615"})
    EXPECT_EQ(refused(R"({"type":"join","room":"r1","as":"spectator","version":)" + bad + "}"),
              "proto/bad_field")
        << bad;
}

TEST(Decode, EveryRequestType) {
  auto c = ok(
      R"({"type":"create","game":"quantik","options":{"first":"1"},"private":true,"spectator_delay":2,"id":"c1"})");
  const auto& create = std::get<Create>(c.body);
  EXPECT_EQ(create.game, "quantik");
  EXPECT_EQ(create.options, json({{"first", "1"}}));
  EXPECT_TRUE(create.is_private);
  EXPECT_EQ(create.spectator_delay, 2);
  EXPECT_EQ(c.id, "c1");
  auto j = ok(R"({"type":"join","room":"ab12","as":"player","seat":1})");
  EXPECT_EQ(std::get<Join>(j.body).seat, 1);
  EXPECT_FALSE(std::get<Join>(j.body).spectator);
  EXPECT_TRUE(
      std::get<Join>(ok(R"({"type":"join","room":"ab12","as":"spectator"})").body).spectator);
  auto m = ok(R"({"type":"move","room":"ab12","version":7,"move":"cube@c3"})");
  EXPECT_EQ(std::get<MoveRequest>(m.body).version, 7);
  EXPECT_EQ(std::get<MoveRequest>(m.body).move, "cube@c3");
  EXPECT_EQ(std::get<Sync>(ok(R"({"type":"sync","room":"x"})").body).room, "x");
  EXPECT_EQ(std::get<Leave>(ok(R"({"type":"leave","room":"x"})").body).room, "x");
  EXPECT_EQ(std::get<Rematch>(ok(R"({"type":"rematch","room":"x"})").body).room, "x");
  EXPECT_EQ(std::get<Resign>(ok(R"({"type":"resign","room":"x"})").body).room, "x");
  EXPECT_EQ(std::get<Claim>(ok(R"({"type":"claim","room":"x"})").body).room, "x");
  EXPECT_EQ(std::get<Draw>(ok(R"({"type":"draw","room":"x","action":"offer"})").body).action,
            DrawAction::offer);
  EXPECT_EQ(std::get<Draw>(ok(R"({"type":"draw","room":"x","action":"accept"})").body).action,
            DrawAction::accept);
  EXPECT_EQ(std::get<Draw>(ok(R"({"type":"draw","room":"x","action":"decline"})").body).action,
            DrawAction::decline);
  for (const char* bad :
       {R"({"type":"draw","room":"x"})", R"({"type":"draw","room":"x","action":"Offer"})",
        R"({"type":"draw","room":"x","action":1})", R"({"type":"resign"})",
        R"({"type":"claim","room":7})"})
    EXPECT_EQ(refused(bad), "proto/bad_field") << bad;
  EXPECT_TRUE(std::holds_alternative<ListRooms>(ok(R"({"type":"rooms"})").body));
  const auto page =
      std::get<ListRooms>(ok(R"({"type":"rooms","game":"quantik","offset":100,"limit":50})").body);
  EXPECT_EQ(page.game, "quantik");
  EXPECT_EQ(page.offset, 100u);
  EXPECT_EQ(page.limit, 50u);
  EXPECT_EQ(std::get<ListRooms>(ok(R"({"type":"rooms"})").body).limit, std::nullopt)
      << "no limit: all of them";
  for (const char* bad : {R"({"type":"rooms","limit":0})", R"({"type":"rooms","limit":501})",
                          R"({"type":"rooms","limit":"5"})", R"({"type":"rooms","offset":-1})",
                          R"({"type":"rooms","game":7})"})
    EXPECT_EQ(refused(bad), "proto/bad_field") << bad;
}

TEST(Decode, GarbageGetsAStableCodeAndNeverThrows) {
  EXPECT_EQ(refused("{"), "proto/bad_json");
  EXPECT_EQ(refused(""), "proto/bad_json");
  EXPECT_EQ(refused("\xff\xfe\x00"), "proto/bad_json");
  EXPECT_EQ(refused("[1,2]"), "proto/bad_json");
  EXPECT_EQ(refused("42"), "proto/bad_json");
  EXPECT_EQ(refused(R"("hello")"), "proto/bad_json");
  EXPECT_EQ(refused(R"({"name":"x"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":7})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"dance"})"), "proto/unknown_type");
  EXPECT_EQ(refused(R"({"type":"hello"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"hello","name":42})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"hello","name":"   "})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"hello","name":"a\u0007b"})"), "proto/bad_field");
  // Names sit inside other text: nothing in them may break the line or reorder what follows.
  for (const char* c :
       {"\\u0085", "\\u009f", "\\u2028", "\\u2029", "\\u202a", "\\u202e", "\\u2066", "\\u2069"})
    EXPECT_EQ(refused(std::string(R"({"type":"hello","name":"a)") + c + R"(b"})"),
              "proto/bad_field")
        << c;
  // The limit counts characters, not bytes: 40 fit in any script, 41 do not.
  std::string cyrillic, han;
  for (int i = 0; i < 40; ++i) cyrillic += "Ж", han += "李";
  EXPECT_EQ(std::get<Hello>(ok(R"({"type":"hello","name":")" + cyrillic + R"("})").body).name,
            cyrillic);
  EXPECT_EQ(std::get<Hello>(ok(R"({"type":"hello","name":")" + han + R"("})").body).name, han);
  EXPECT_EQ(refused(R"({"type":"hello","name":")" + cyrillic + R"(Ж"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"hello","name":")" + std::string(41, 'a') + R"("})"),
            "proto/bad_field");
  // Letters of any script, and the marks that only set a direction, are names.
  for (const char* n : {"Zoë", "שרה", "ليلى", "李雷", "a\u200fb", "a\u00a0b", "\u2065x", "x\u206a"})
    EXPECT_TRUE(std::holds_alternative<Hello>(
        ok(std::string(R"({"type":"hello","name":")") + n + R"("})").body))
        << n;
  EXPECT_EQ(refused(R"({"type":"hello","name":"x","token":5})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"create"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"create","game":"quantik","options":[1]})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"create","game":"quantik","spectator_delay":-1})"),
            "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"join","room":"r","as":"referee"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"join","room":"r","as":"player","seat":"0"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"join","room":5,"as":"player"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"move","room":"r","move":"x"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"move","room":"r","version":"3","move":"x"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"move","room":"r","version":3.5,"move":"x"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"move","room":"r","version":3,"move":["x"]})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"move","room":"r","version":185,"move":"","idX":{"x":1}})"),
            "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"sync"})"), "proto/bad_field");
  EXPECT_EQ(refused(R"({"type":"rooms","id":{"a":1}})"), "proto/bad_field");
}

TEST(Decode, TheRequestIdIsKeptOnErrorsWhenReadable) {
  auto r = decode(R"({"type":"move","room":"r","id":"m9"})");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().id, "m9");
}

TEST(Decode, AFrameWithANulByteIsNotJson) {
  // The JSON parser stops reading at a NUL byte: whatever follows it would go unread and unchecked.
  using namespace std::string_literals;
  EXPECT_EQ(refused("{\"type\":\"rooms\"}\0"s), "proto/bad_json");
  EXPECT_EQ(refused("{\"type\":\"rooms\"}\0{\"type\":\"hello\"}"s), "proto/bad_json");
  EXPECT_EQ(refused("{\"type\":\"hello\",\"name\":\"a\0b\"}"s), "proto/bad_json");
}

TEST(Decode, OversizeAndDeepFramesAreRefusedBeforeParsing) {
  const std::string big = R"({"type":"hello","name":")" + std::string(70000, 'a') + R"("})";
  EXPECT_EQ(refused(big), "proto/too_large");
  EXPECT_EQ(refused(std::string(100, '[') + std::string(100, ']')), "proto/too_deep");
  EXPECT_EQ(
      refused(R"({"type":"rooms","x":)" + std::string(5000, '[') + std::string(5000, ']') + "}"),
      "proto/too_deep");
  // Brackets inside strings do not count as depth.
  ok(R"({"type":"hello","name":")" + std::string(30, '[') + R"("})");
  Limits small{.max_frame_bytes = 10, .max_depth = 32};
  EXPECT_EQ(refused(R"({"type":"rooms"})", small), "proto/too_large");
}

TEST(Decode, RandomBytesNeverThrow) {
  rules::Rng rng(99);
  for (int i = 0; i < 5000; ++i) {
    std::string s(rng.below(64), ' ');
    for (auto& c : s) c = static_cast<char>(rng.below(256));
    EXPECT_NO_THROW((void)decode(s));
    // Mutations of a valid message, too.
    std::string m = R"({"type":"move","room":"ab","version":3,"move":"cube@c3"})";
    m[rng.below(m.size())] = static_cast<char>(rng.below(256));
    EXPECT_NO_THROW((void)decode(m));
  }
}

TEST(Encode, GoldenFrames) {
  EXPECT_EQ(encode_created(1, "ab12"), R"({"id":1,"room":"ab12","type":"created"})");
  EXPECT_EQ(encode_joined(nullptr, "ab12", 0), R"({"room":"ab12","seat":0,"type":"joined"})");
  EXPECT_EQ(encode_joined("j", "ab12", std::nullopt),
            R"({"id":"j","room":"ab12","seat":null,"type":"joined"})");
  EXPECT_EQ(
      encode_patch("ab12", 5,
                   json::array({{{"op", "replace"}, {"path", "/to_move"}, {"value", 1}}})),
      R"({"ops":[{"op":"replace","path":"/to_move","value":1}],"room":"ab12","type":"patch","version":5})");
  const json ops = json::array({{{"op", "add"}, {"path", "/a~1b"}, {"value", "q\"x"}}});
  EXPECT_EQ(encode_patch_text("ab12", 5, ops.dump()), encode_patch("ab12", 5, ops))
      << "both encoders agree";
  EXPECT_EQ(encode_error({Code::stale_version, "old", "m1"}),
            R"({"code":"move/stale_version","id":"m1","message":"old","type":"error"})");
  EXPECT_EQ(encode_crowd("ab12", 3), R"({"room":"ab12","spectators":3,"type":"crowd"})");
  EXPECT_EQ(encode_left(nullptr, "ab12"), R"({"room":"ab12","type":"left"})");
  EXPECT_EQ(encode_full(2, "ab12", 4, json{{"k", 1}}),
            R"({"id":2,"room":"ab12","state":{"k":1},"type":"full","version":4})");
  EXPECT_EQ(encode_rooms(nullptr, json::array(), 0, 0, json::array()),
            R"({"mine":[],"offset":0,"rooms":[],"total":0,"type":"rooms"})");
  const json games = json::array({{{"id", "quantik"}, {"seats", 2}}});
  const json tables = json::array({{{"room", "ab12"}, {"seat", 1}}});
  EXPECT_EQ(encode_welcome(7, "p1", "t\"k", true, games.dump(), tables, "Ada", "Ada"),
            (json{{"type", "welcome"},
                  {"account", "Ada"},
                  {"bots", true},
                  {"id", 7},
                  {"name", "Ada"},
                  {"player", "p1"},
                  {"token", "t\"k"},
                  {"games", games},
                  {"tables", tables}}
                 .dump()));
  EXPECT_EQ(
      encode_welcome(nullptr, "p1", "tk", false, "[]", json::array(), "Bo"),
      R"({"account":null,"bots":false,"games":[],"name":"Bo","player":"p1","tables":[],"token":"tk","type":"welcome"})");
  // Invalid UTF-8 in a message never makes encoding throw.
  EXPECT_NO_THROW((void)encode_error({Code::bad_json, std::string("bad \xff"), nullptr}));
}

TEST(Patch, DiffThenPatchGivesTheTarget) {
  const std::vector<json> docs{
      json::object(),
      json{{"a", 1}, {"b", {1, 2, 3}}, {"c", {{"d", nullptr}}}},
      json{{"a", 2}, {"b", {1, 3}}, {"c", {{"d", "x"}, {"e", true}}}},
      json{{"b", json::array()}, {"z/slash", 1}, {"t~ilde", {{"q", {1, {{"r", 2}}}}}}},
      json{{"b", {json::array(), json::object(), "s"}}, {"a", nullptr}},
  };
  for (const auto& a : docs)
    for (const auto& b : docs) {
      const auto patched = apply_patch(a, diff(a, b));
      ASSERT_TRUE(patched.has_value());
      EXPECT_EQ(*patched, b) << a.dump() << " -> " << b.dump();
    }
}

TEST(Patch, DiffThenPatchOverEveryPositionOfRandomGames) {
  for (const rules::Game* g : rules::all_games()) {
    auto s = std::move(*g->create({}, 5));
    rules::Rng pick(3);
    std::vector<SeatInfo> seats(static_cast<std::size_t>(s->num_seats()),
                                SeatInfo{"p", true, std::nullopt});
    RoomFacts facts{g->id(), Status::playing, &seats,  nullptr, 1,
                    nullptr, nullptr,         nullptr, nullptr};
    json prev = make_state(facts, *s, 0);
    for (int i = 0; i < 500 && !s->is_over(); ++i) {
      auto moves = s->legal_moves();
      ASSERT_TRUE(s->apply(*s->to_move(), moves[pick.below(moves.size())]).has_value());
      const json next = make_state(facts, *s, 0);
      EXPECT_EQ(apply_patch(prev, diff(prev, next)), next);
      prev = next;
    }
  }
}

// The patches are written by hand, not by dumping JSON objects: each value comes out exactly as
// dump writes it, whatever its kind, and strings are escaped as JSON wants.
TEST(Patch, ValuesAreWrittenExactlyAsDumpWritesThem) {
  const json target{
      {"int", -42},
      {"big", std::numeric_limits<std::uint64_t>::max()},
      {"small", std::numeric_limits<std::int64_t>::min()},
      {"float", 0.1},
      {"bools", {true, false, nullptr}},
      {"plain", "RGN@-3,12,2"},
      {"quoted", "say \"hi\" \\ bye"},
      {"control", "line\nbreak\ttab\x01\x1f"},
      {"unicode", "Zoë 李雷"},
      {"broken", std::string("bad \xff byte")},
      {"nested", {{"k\"ey", {1, {{"in", "x"}}, json::array(), json::object()}}, {"z", "\x7f"}}},
      {"sl/ash~", "path escapes"},
  };
  std::string expected = "[";
  for (const auto& [key, value] : target.items()) {
    if (expected.size() > 1) expected += ',';
    std::string path = "/";
    for (char c : key) path += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    expected += R"({"op":"add","path":)" + json(path).dump() + R"(,"value":)" +
                value.dump(-1, ' ', false, json::error_handler_t::replace) + "}";
  }
  expected += "]";
  EXPECT_EQ(diff_text(json::object(), target), expected);
}

TEST(Patch, LegalMovesAreEscapedAsJsonStrings) {
  Envelope from, to;
  to.legal_moves = {"a1", "q\"uote", "back\\slash", std::string("ctl\x01\x1f"), "tab\t", ""};
  std::string ops = "[";
  append_envelope_diff(ops, from, to);
  ops += "]";
  EXPECT_EQ(
      ops,
      R"([{"op":"replace","path":"/legal_moves","value":["a1","q\"uote","back\\slash","ctl\u0001\u001f","tab\u0009",""]}])");
  const json parsed = json::parse(ops);
  EXPECT_EQ(parsed[0]["value"].get<std::vector<std::string>>(), to.legal_moves);
}

TEST(State, CarriesTheFixedCoreFields) {
  const auto& g = *rules::find_game("quantik");
  auto s = std::move(*g.create({{"first", "0"}}, 1));
  std::vector<SeatInfo> seats{{"Ada", true, std::nullopt}, {std::nullopt, false, std::nullopt}};
  RoomFacts waiting{g.id(),  Status::waiting, &seats,  nullptr, 1,
                    nullptr, nullptr,         nullptr, nullptr};
  auto st = make_state(waiting, *s, 0);
  for (const char* k :
       {"game", "status", "seats", "you", "to_move", "legal_moves", "outcome", "board"})
    EXPECT_TRUE(st.contains(k)) << k;
  EXPECT_EQ(st["status"], "waiting");
  EXPECT_EQ(st["to_move"], nullptr) << "nobody moves before the seats are filled";
  EXPECT_TRUE(st["legal_moves"].empty());
  EXPECT_EQ(st["seats"][1]["name"], nullptr);
  RoomFacts playing{g.id(),  Status::playing, &seats,  nullptr, 1,
                    nullptr, nullptr,         nullptr, nullptr};
  EXPECT_EQ(make_state(playing, *s, 0)["legal_moves"].size(), 64u) << "the mover sees its moves";
  EXPECT_TRUE(make_state(playing, *s, 1)["legal_moves"].empty()) << "the other seat sees none";
  EXPECT_TRUE(make_state(playing, *s, std::nullopt)["legal_moves"].empty())
      << "nor does a spectator";
  EXPECT_EQ(make_state(playing, *s, std::nullopt)["you"], nullptr);
  // (extension) The round's options, as a player that joined the table needs them to rebuild
  // the position (Game::from_view), and the envelope's diff when a rematch changes them.
  const auto options =
      std::make_shared<const nlohmann::json>(*g.normalize_options({{"first", "0"}}));
  playing.options = options;
  const auto before = make_envelope(playing, *s, 0);
  EXPECT_EQ(make_state(playing, *s, 0)["options"], *options);
  playing.options = std::make_shared<const nlohmann::json>(*g.normalize_options({{"first", "1"}}));
  std::string ops;
  append_envelope_diff(ops, before, make_envelope(playing, *s, 0));
  const auto patched =
      apply_patch(assemble_state(before, nullptr), nlohmann::json::parse("[" + ops + "]"));
  ASSERT_TRUE(patched.has_value());
  EXPECT_EQ((*patched)["options"]["first"], "1");
}

// An ending reads back from its JSON (a stored outcome, an uploaded record's result) as it was,
// and anything that is not one of a game of that many seats is refused.
TEST(Ending, ReadsBackAsWrittenAndRefusesWhatNoEndingSays) {
  const auto resigned = resignation(1, "Bob");
  EXPECT_EQ(resigned.outcome.winners, std::vector<int>{0});
  EXPECT_EQ(resigned.outcome.reason, "Bob resigned");
  EXPECT_EQ(resigned.outcome.code, "ended.resigned");
  EXPECT_EQ(resigned.outcome.args, (json{{"seat", 1}}));
  EXPECT_EQ(to_json(agreed_draw(0))["code"], "ended.draw_agreed");
  for (const auto& e : {resigned, agreed_draw(0), flagged(0, "Ada"), abandoned(1, "Bob")})
    EXPECT_EQ(ending_from_json(to_json(e), 2), e) << to_json(e);
  EXPECT_EQ(to_json(agreed_draw(1))["end"], "agreed_draw");
  const json good = to_json(resigned);
  EXPECT_EQ(ending_from_json(good, 1), std::nullopt) << "seat 1 of a game of one seat";
  json before_codes = good;  // stored before outcomes had codes: the text alone comes back
  before_codes.erase("code");
  before_codes.erase("args");
  const auto old = ending_from_json(before_codes, 2);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->outcome.reason, "Bob resigned");
  EXPECT_TRUE(old->outcome.code.empty());
  const auto without = [&](const char* key) {
    json j = good;
    j.erase(key);
    return j;
  };
  const auto with = [&](const char* key, json v) {
    json j = good;
    j[key] = std::move(v);
    return j;
  };
  for (const json& bad :
       {json(nullptr), json("resigned"), without("end"), without("seat"), without("winners"),
        without("reason"), with("end", "bored"), with("seat", -1), with("seat", "1"),
        with("winners", {2}), with("winners", {1}) /* the resigner wins */,
        with("winners", json::array()) /* nobody wins a resignation */, with("scores", {"x"}),
        rules::to_json(resigned.outcome) /* an outcome of the rules */})
    EXPECT_EQ(ending_from_json(bad, 2), std::nullopt) << bad;
  json drawn = to_json(agreed_draw(0));
  drawn["winners"] = {1};
  EXPECT_EQ(ending_from_json(drawn, 2), std::nullopt) << "nobody wins an agreed draw";
}

// Who left a game of three or four seats reads back as written; a list that is not one is
// refused.
TEST(Departure, ReadsBackAsWrittenAndRefusesWhatIsNotOne) {
  const auto cid = departure(EndKind::flagged, 2, "Cid", 31, {10, 12, 14});
  EXPECT_EQ(cid.reason, "Cid ran out of time");
  EXPECT_EQ(cid.score, 14);
  EXPECT_EQ(to_json(cid), (json{{"seat", 2},
                                {"end", "flagged"},
                                {"at", 31},
                                {"score", 14},
                                {"reason", "Cid ran out of time"}}));
  const auto bob = departure(EndKind::abandoned, 1, "Bob", 40, {});
  EXPECT_EQ(bob.score, std::nullopt) << "a game without scores";
  EXPECT_EQ(bob.reason, "Bob left the game");
  const std::vector<Departure> both{cid, bob};
  EXPECT_EQ(departures_from_json(to_json(both), 3), both);
  EXPECT_EQ(departures_from_json(json(nullptr), 3), std::vector<Departure>{}) << "nobody left";
  json twice = to_json(std::vector<Departure>{cid, cid});
  json drawn = to_json(both);
  drawn[0]["end"] = "agreed_draw";
  json far = to_json(both);
  far[0]["seat"] = 3;
  json negative = to_json(both);
  negative[1]["at"] = -1;
  json no_reason = to_json(both);
  no_reason[1].erase("reason");
  for (const json& bad : {json::object(), json("x"), twice, drawn, far, negative, no_reason})
    EXPECT_EQ(departures_from_json(bad, 3), std::nullopt) << bad;
}

// The rules' outcome of a round some left: the leavers never win and keep their scores; if
// every winner left, the best of those who stayed wins.
TEST(Departure, ThoseWhoLeftRankBelowThoseWhoStayed) {
  const rules::Outcome rules_said{{2}, {20, 25, 30}, "the bag is empty"};
  const std::vector<Departure> cid{departure(EndKind::resigned, 2, "Cid", 12, {3, 5, 9})};
  const auto after = after_departures(rules_said, cid);
  EXPECT_EQ(after.winners, std::vector<int>{1}) << "Cid's seat won, but Cid left: Bob is best";
  EXPECT_EQ(after.scores, (std::vector<int>{20, 25, 9})) << "Cid keeps the score he left with";
  EXPECT_EQ(after.reason, "the bag is empty; Cid resigned");
  const json shown = outcome_json(after, cid);
  EXPECT_EQ(shown["left"], to_json(cid));
  EXPECT_EQ(outcome_json(rules_said, {}), rules::to_json(rules_said)) << "nobody left: as is";

  const rules::Outcome shared{{0, 2}, {30, 25, 30}, "a tie"};
  EXPECT_EQ(after_departures(shared, cid).winners, std::vector<int>{0});
  const rules::Outcome tie_below{{2}, {25, 25, 30}, "x"};
  EXPECT_EQ(after_departures(tie_below, cid).winners, (std::vector<int>{0, 1}));

  // Two of three left: the last one wins at once, with the scores as they stand.
  const std::vector<Departure> two{cid.front(),
                                   departure(EndKind::flagged, 0, "Ada", 15, {6, 7, 11})};
  const auto last = last_one_standing(1, two, {6, 7, 11});
  EXPECT_EQ(last.kind, EndKind::flagged);
  EXPECT_EQ(last.seat, 0);
  EXPECT_EQ(last.outcome.winners, std::vector<int>{1});
  EXPECT_EQ(last.outcome.scores, (std::vector<int>{6, 7, 9}));
  EXPECT_EQ(last.outcome.reason, "Cid resigned; Ada ran out of time: nobody else is left");
  EXPECT_EQ(ending_from_json(outcome_json(last, two), 3), last);
}

// The offer at the table is part of every viewer's envelope while the game is played, and the
// patch between two envelopes carries it.
TEST(Envelope, TheDrawOfferedIsShownWhilePlayingAndPatched) {
  const auto* game = rules::find_game("quantik");
  auto state = std::move(*game->create(json::object(), 1));
  std::vector<SeatInfo> seats{{"Ada", true, std::nullopt}, {"Bob", true, std::nullopt}};
  RoomFacts facts{"quantik", Status::playing, &seats,  nullptr, 1,
                  nullptr,   nullptr,         nullptr, nullptr};
  const json before = make_state(facts, *state, 0);
  EXPECT_EQ(before["offer"], nullptr);
  facts.offer = json{{"kind", "draw"}, {"by", 1}};
  const json after = make_state(facts, *state, 0);
  EXPECT_EQ(after["offer"], facts.offer);
  std::string ops = "[";
  append_envelope_diff(ops,
                       make_envelope(RoomFacts{"quantik", Status::playing, &seats, nullptr, 1,
                                               nullptr, nullptr, nullptr, nullptr},
                                     *state, 0),
                       make_envelope(facts, *state, 0));
  ops += ']';
  EXPECT_EQ(apply_patch(before, json::parse(ops)), after);
  facts.status = Status::over;
  facts.ended = std::make_shared<const json>(to_json(resignation(0, "Ada")));
  const json over = make_state(facts, *state, 0);
  EXPECT_EQ(over["offer"], nullptr) << "no offer once over";
  EXPECT_EQ(over["outcome"], *facts.ended);
  EXPECT_EQ(over["legal_moves"], json::array());
}

}  // namespace
}  // namespace plateau::protocol
