// The tournament engine (server/tournaments/tournaments.hpp) against a fake lobby and a store in
// memory: events set up and refused, registration, rounds seated and paired as games end,
// no-shows forfeited, and an event that comes back from its stored document mid-round.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

#include "protocol/messages.hpp"
#include "server/tournaments/tournaments.hpp"

namespace plateau::server::testing {
namespace {

using nlohmann::json;
using tournaments::Format;

class MemoryTournamentStore : public TournamentStore {
 public:
  void put_tournament(const TournamentDoc& t, std::int64_t at_ms, Done done) override {
    docs[t.id] = t.doc;
    written_at[t.id] = at_ms;
    ++writes;
    if (hold)
      held.push_back(std::move(done));  // durable when the test says so
    else
      done(true);
  }
  // Settles the first held write.
  void settle(bool stored) {
    auto done = std::move(held.front());
    held.pop_front();
    done(stored);
  }
  bool hold = false;
  std::deque<Done> held;
  void put_organiser(const std::string& player, bool allowed, Done done) override {
    if (allowed)
      organisers.insert(player);
    else
      organisers.erase(player);
    done(true);
  }
  std::expected<LoadedTournaments, std::string> load_tournaments() override {
    LoadedTournaments out;
    for (const auto& [id, doc] : docs) out.tournaments.push_back({id, doc});
    out.organisers.assign(organisers.begin(), organisers.end());
    return out;
  }
  std::map<std::string, std::string> docs;
  std::map<std::string, std::int64_t> written_at;
  std::set<std::string> organisers;
  int writes = 0;
};

// The lobby as the engine sees it: tables it opened, who sat, what it was told.
class FakeHost : public TournamentHost {
 public:
  struct Opened {
    std::string game;
    json options;
    std::vector<std::string> players;
    std::vector<bool> seated;
    bool closed = false;
  };
  std::expected<std::string, std::string> open_table(
      const std::string& game, const json& options, const json&,
      const std::vector<std::string>& players) override {
    if (full) return std::unexpected("full");
    const std::string room = "room" + std::to_string(tables.size() + 1);
    tables[room] = {game, options, players, std::vector<bool>(players.size()), false};
    order.push_back(room);
    return room;
  }
  std::vector<bool> seated(const std::string& room) override {
    const auto it = tables.find(room);
    return it == tables.end() || it->second.closed ? std::vector<bool>{} : it->second.seated;
  }
  void close_table(const std::string& room) override { tables[room].closed = true; }
  void tell(const std::string& player, const std::string& frame) override {
    told[player].push_back(json::parse(frame));
  }
  std::string name_of(const std::string& player) override {
    return player == "renamed" ? "New Name" : "";
  }
  std::optional<json> finished_outcome(const std::string& room) override {
    ++outcome_reads;
    const auto it = stored.find(room);
    return it == stored.end() ? std::nullopt : std::optional<json>(it->second);
  }
  bool ends_here(const std::string& room) override { return !elsewhere.contains(room); }
  // The rooms of `round`'s tables (in the order they were opened).
  std::vector<std::string> rooms_of(const json& detail, int round) const {
    std::vector<std::string> out;
    for (const auto& t : detail["rounds_played"][round - 1]["tables"]) out.push_back(t["room"]);
    return out;
  }
  void sit_all(const std::string& room) {
    auto& s = tables.at(room).seated;
    s.assign(s.size(), true);
  }
  std::map<std::string, Opened> tables;
  std::vector<std::string> order;
  std::map<std::string, std::vector<json>> told;
  std::map<std::string, json> stored;
  std::set<std::string> elsewhere;  // tables another node holds (a cluster's)
  int outcome_reads = 0;
  bool full = false;
};

// An outcome where `seat` wins a game of two.
json win(int seat) { return {{"winners", {seat}}, {"scores", json::array()}, {"reason", "x"}}; }
json draw() { return {{"winners", json::array()}, {"scores", json::array()}, {"reason", "x"}}; }

class TournamentsTest : public ::testing::Test {
 protected:
  TournamentsTest() : t_(store_, host_, [this] { return ++ids_ * 0x9e3779b97f4a7c15ULL; }) {}

  TournamentSpec swiss(int rounds = 3) {
    TournamentSpec s;
    s.name = "Friday Swiss";
    s.game = "quantik";
    s.format = Format::swiss;
    s.rounds = rounds;
    s.starts_ms = 10'000;
    s.no_show_ms = 5 * 60'000;
    s.organiser = "org";
    return s;
  }
  std::string make(TournamentSpec s) {
    const auto id = t_.create(std::move(s), 1'000);
    EXPECT_TRUE(id.has_value()) << (id ? "" : id.error().message);
    return id.value_or("");
  }
  void enter(const std::string& id, std::initializer_list<const char*> players) {
    for (const char* p : players)
      ASSERT_EQ(t_.enter(id, p, std::string("name of ") + p, true, 2'000), std::nullopt);
  }
  // Ends every table of the round: the player at seat `winner(table index)` wins.
  void finish_round(const std::string& id, int round, std::int64_t now,
                    const std::function<json(std::size_t)>& outcome) {
    const auto rooms = host_.rooms_of(*t_.detail(id), round);
    for (std::size_t i = 0; i < rooms.size(); ++i) {
      host_.sit_all(rooms[i]);
      t_.round_ended(rooms[i], 1, outcome(i), now);
    }
  }

  MemoryTournamentStore store_;
  FakeHost host_;
  std::uint64_t ids_ = 0;
  Tournaments t_;
};

TEST_F(TournamentsTest, RefusesEventsThatCannotBePlayed) {
  auto s = swiss();
  s.name = "";
  EXPECT_EQ(t_.create(s, 0).error().code, "tournament/bad_request");
  s = swiss();
  s.name = std::string(61, 'x');
  EXPECT_FALSE(t_.create(s, 0));
  s = swiss();
  s.game = "chess";
  EXPECT_FALSE(t_.create(s, 0));
  s = swiss();
  s.format = Format::seated;  // Quantik is a game of two
  EXPECT_FALSE(t_.create(s, 0));
  s = swiss(0);
  EXPECT_FALSE(t_.create(s, 0)) << "a swiss of no round";
  s = swiss();
  s.options = {{"no_such_option", 1}};
  EXPECT_FALSE(t_.create(s, 0));
  s = swiss();
  s.no_show_ms = 1000;
  EXPECT_FALSE(t_.create(s, 0));
  s = swiss();
  s.game = "quirky";
  s.options = {{"players", 3}};
  EXPECT_FALSE(t_.create(s, 0)) << "three seats are seated by score, not swiss";
  s.format = Format::seated;
  EXPECT_TRUE(t_.create(s, 0));
  EXPECT_EQ(store_.docs.size(), 1u) << "only what was made is stored";
}

TEST_F(TournamentsTest, PlayersRegisterUntilTheStartAndSeatZeroAlwaysMovesFirst) {
  const auto id = make(swiss());
  EXPECT_EQ((*t_.detail(id))["options"]["first"], "0");
  EXPECT_EQ(t_.enter("nope", "a", "A", true, 2'000), "tournament/not_found");
  enter(id, {"a", "b", "c"});
  EXPECT_EQ(t_.enter(id, "a", "A", true, 2'000), std::nullopt) << "twice is once";
  ASSERT_EQ(t_.enter(id, "late", "L", true, 3'500), std::nullopt);
  EXPECT_EQ(store_.written_at[id], 3'500) << "stored as of the registration, not the creation";
  ASSERT_EQ(t_.enter(id, "late", "L", false, 3'600), std::nullopt);
  EXPECT_EQ(t_.enter(id, "guest", "G", true, 2'000, /*account=*/false), std::nullopt)
      << "guests are welcome unless the event says otherwise";
  ASSERT_EQ(t_.enter(id, "guest", "G", false, 2'000), std::nullopt);
  auto members = swiss();
  members.accounts_only = true;
  const auto club = make(members);
  EXPECT_EQ(t_.enter(club, "guest", "G", true, 2'000, /*account=*/false),
            "tournament/accounts_only");
  EXPECT_EQ(t_.enter(club, "acct", "A", true, 2'000, /*account=*/true), std::nullopt);
  EXPECT_EQ((*t_.detail(club))["accounts_only"], true);
  ASSERT_EQ(t_.enter(id, "c", "C", false, 2'000), std::nullopt);
  EXPECT_EQ((*t_.detail(id))["players"].size(), 2u);
  t_.tick(9'999);
  EXPECT_EQ((*t_.detail(id))["status"], "registering");
  t_.tick(10'000);
  EXPECT_EQ((*t_.detail(id))["status"], "running");
  EXPECT_EQ(t_.enter(id, "d", "D", true, 2'000), "tournament/closed");
  EXPECT_EQ(t_.enter(id, "a", "A", false, 2'000), "tournament/closed");
}

TEST_F(TournamentsTest, AnEventWithTooFewPlayersIsCancelledAtItsStart) {
  const auto id = make(swiss());
  enter(id, {"a"});
  t_.tick(10'000);
  const auto d = *t_.detail(id);
  EXPECT_EQ(d["status"], "cancelled");
  EXPECT_EQ(d["note"], "not_enough_players");
  EXPECT_TRUE(host_.tables.empty());
}

TEST_F(TournamentsTest, ASwissSeatsEachRoundWhenTheLastTableEndsAndFinishesAfterItsRounds) {
  const auto id = make(swiss(3));
  enter(id, {"a", "b", "c", "d", "e"});
  t_.tick(10'000);
  auto d = *t_.detail(id);
  EXPECT_EQ(d["round"], 1);
  ASSERT_EQ(d["rounds_played"][0]["tables"].size(), 2u);
  ASSERT_EQ(d["rounds_played"][0]["byes"].size(), 1u) << "five players: one sits out";
  EXPECT_EQ(d["rounds_played"][0]["byes"][0]["player"], "e") << "the lowest seed";
  // Every seated player is told where to play; each seat is reserved for its player.
  for (const auto& room : host_.order)
    for (const auto& p : host_.tables[room].players) {
      ASSERT_EQ(host_.told[p].size(), 1u);
      EXPECT_EQ(host_.told[p][0]["type"], "tournament_table");
      EXPECT_EQ(host_.told[p][0]["room"], room);
      EXPECT_EQ(t_.reserved(room), host_.tables[room].players);
    }
  EXPECT_TRUE(t_.reserved("elsewhere").empty());
  const auto first = host_.rooms_of(d, 1);
  const auto waiting = t_.waiting_tables(host_.tables[first[0]].players[0]);
  ASSERT_EQ(waiting.size(), 1u) << "a player back online learns of their table";
  EXPECT_EQ(waiting[0].room, first[0]);
  EXPECT_EQ(waiting[0].round, 1);
  EXPECT_TRUE(t_.waiting_tables("e").empty()) << "a bye";
  host_.sit_all(first[0]);
  t_.round_ended(first[0], 1, win(0), 20'000);
  EXPECT_TRUE(t_.waiting_tables(host_.tables[first[0]].players[0]).empty()) << "played";
  d = *t_.detail(id);
  EXPECT_EQ(d["round"], 1) << "one table still plays";
  EXPECT_EQ(d["rounds_played"][0]["tables"][0]["status"], "over");
  EXPECT_EQ(d["rounds_played"][0]["tables"][1]["status"], "waiting");
  host_.sit_all(first[1]);
  EXPECT_EQ((*t_.detail(id))["rounds_played"][0]["tables"][1]["status"], "playing");
  t_.round_ended(first[1], 2, win(0), 20'000);  // a second round of a room is no tournament game
  EXPECT_EQ((*t_.detail(id))["round"], 1);
  t_.round_ended(first[1], 1, draw(), 21'000);
  d = *t_.detail(id);
  EXPECT_EQ(d["round"], 2);
  EXPECT_EQ(d["rounds_played"][0]["tables"][1]["points"], json({0.5, 0.5}));
  finish_round(id, 2, 30'000, [](std::size_t) { return win(1); });
  finish_round(id, 3, 40'000, [](std::size_t) { return win(0); });
  d = *t_.detail(id);
  EXPECT_EQ(d["status"], "finished");
  EXPECT_EQ(d["round"], 3);
  // Nobody met anybody twice, and nobody sat out twice.
  std::set<std::set<std::string>> met;
  std::map<std::string, int> byes;
  double total = 0;
  for (const auto& r : d["rounds_played"]) {
    for (const auto& t : r["tables"]) {
      const std::set<std::string> pair{t["seats"][0]["player"], t["seats"][1]["player"]};
      EXPECT_TRUE(met.insert(pair).second) << "a repeat pairing";
    }
    for (const auto& b : r["byes"]) EXPECT_EQ(++byes[b["player"].get<std::string>()], 1);
  }
  for (const auto& s : d["standings"]) total += s["score"].get<double>();
  EXPECT_DOUBLE_EQ(total, 6 + 3) << "one point per game of the six, and three byes";
  EXPECT_EQ(d["standings"][0]["rank"], 1);
}

TEST_F(TournamentsTest, APlayerWhoNeverSitsDownLosesByForfeitAndATableNobodyCameToScoresNothing) {
  const auto id = make(swiss(1));
  enter(id, {"a", "b", "c", "d"});
  t_.tick(10'000);
  const auto rooms = host_.rooms_of(*t_.detail(id), 1);
  ASSERT_EQ(rooms.size(), 2u);
  host_.tables[rooms[0]].seated = {false, true};
  t_.tick(10'000 + 5 * 60'000 - 1);
  EXPECT_FALSE(host_.tables[rooms[0]].closed) << "not yet";
  t_.tick(10'000 + 5 * 60'000);
  const auto d = *t_.detail(id);
  EXPECT_TRUE(host_.tables[rooms[0]].closed);
  EXPECT_TRUE(host_.tables[rooms[1]].closed);
  EXPECT_EQ(d["rounds_played"][0]["tables"][0]["points"], json({0.0, 1.0}));
  EXPECT_EQ(d["rounds_played"][0]["tables"][0]["forfeit"], json({true, false}));
  EXPECT_EQ(d["rounds_played"][0]["tables"][1]["points"], json({0.0, 0.0}));
  EXPECT_EQ(d["rounds_played"][0]["tables"][1]["forfeit"], json({true, true}));
  EXPECT_EQ(d["status"], "finished");
}

TEST_F(TournamentsTest, ATableBeingPlayedIsNeverForfeited) {
  const auto id = make(swiss(1));
  enter(id, {"a", "b"});
  t_.tick(10'000);
  const auto room = host_.order.at(0);
  host_.sit_all(room);
  t_.tick(10'000 + 60 * 60'000);
  EXPECT_FALSE(host_.tables[room].closed);
  EXPECT_EQ((*t_.detail(id))["status"], "running");
}

TEST_F(TournamentsTest, ARoundRobinTwiceMeetsEachPairTwiceWithSeatsSwapped) {
  auto s = swiss();
  s.format = Format::round_robin;
  s.twice = true;
  const auto id = make(s);
  EXPECT_EQ(t_.list()[0]["rounds"], 0) << "nobody yet";
  enter(id, {"a", "b", "c"});
  EXPECT_EQ(t_.list()[0]["rounds"], 6) << "as the three registered would play it";
  EXPECT_EQ(t_.list()[0]["twice"], true);
  ASSERT_EQ(t_.start(id, 2'000), std::nullopt);
  EXPECT_EQ(t_.start(id, 2'000)->code, "tournament/closed");
  EXPECT_EQ((*t_.detail(id))["rounds"], 6) << "three players, a bye each round, twice";
  for (int r = 1; r <= 6; ++r) finish_round(id, r, 3'000 + r, [](std::size_t) { return win(0); });
  const auto d = *t_.detail(id);
  EXPECT_EQ(d["status"], "finished");
  std::map<std::pair<std::string, std::string>, int> seatings;
  for (const auto& r : d["rounds_played"])
    for (const auto& t : r["tables"])
      ++seatings[{t["seats"][0]["player"], t["seats"][1]["player"]}];
  EXPECT_EQ(seatings.size(), 6u) << "each pair once each way round";
  for (const auto& [pair, n] : seatings) EXPECT_EQ(n, 1);
}

TEST_F(TournamentsTest, ThreeSeatGamesAreSeatedByScoreWithByesForWhoDoesNotFitATable) {
  TournamentSpec s = swiss(2);
  s.game = "quirky";
  s.options = {{"players", 3}};
  s.format = Format::seated;
  const auto id = make(s);
  enter(id, {"a", "b", "c", "d"});
  t_.tick(10'000);
  auto d = *t_.detail(id);
  ASSERT_EQ(d["rounds_played"][0]["tables"].size(), 1u);
  EXPECT_EQ(d["rounds_played"][0]["tables"][0]["seats"].size(), 3u);
  ASSERT_EQ(d["rounds_played"][0]["byes"].size(), 1u);
  EXPECT_EQ(d["rounds_played"][0]["byes"][0]["points"], 1.0) << "(3 - 1) / 2";
  const std::string room = host_.order.at(0);
  EXPECT_EQ(host_.tables[room].options["players"], 3);
  host_.sit_all(room);
  // Seat 1 wins; seat 0 outscores seat 2.
  t_.round_ended(room, 1, {{"winners", {1}}, {"scores", {5, 9, 2}}, {"reason", "x"}}, 11'000);
  d = *t_.detail(id);
  EXPECT_EQ(d["rounds_played"][0]["tables"][0]["points"], json({1.0, 2.0, 0.0}));
  EXPECT_EQ(d["round"], 2);
  EXPECT_EQ(d["rounds_played"][1]["byes"].size(), 1u);
  EXPECT_NE(d["rounds_played"][1]["byes"][0]["player"], d["rounds_played"][0]["byes"][0]["player"])
      << "nobody sits out twice while another has not";
}

TEST_F(TournamentsTest, AnEventComesBackFromItsStoredDocumentAndCountsGamesThatEndedMeanwhile) {
  const auto id = make(swiss(2));
  enter(id, {"a", "b", "c", "d"});
  t_.tick(10'000);
  const auto rooms = host_.rooms_of(*t_.detail(id), 1);
  host_.sit_all(rooms[0]);
  t_.round_ended(rooms[0], 1, win(1), 12'000);
  const auto before = *t_.detail(id);

  // A restart: a new engine from the store; the second table ended while the server was down.
  FakeHost host2 = host_;
  host2.stored[rooms[1]] = draw();
  Tournaments again(store_, host2, [] { return 99; });
  ASSERT_TRUE(again.restore(*store_.load_tournaments()));
  EXPECT_EQ(again.reserved(rooms[1]), host_.tables[rooms[1]].players);
  auto d = *again.detail(id);
  EXPECT_EQ(d["rounds_played"], before["rounds_played"]);
  EXPECT_EQ(d["standings"], before["standings"]);
  again.resume(50'000);
  d = *again.detail(id);
  EXPECT_EQ(d["round"], 2) << "the game that ended meanwhile counted, and round 2 is seated";
  EXPECT_EQ(d["rounds_played"][0]["tables"][1]["points"], json({0.5, 0.5}));
  EXPECT_EQ(host2.order.size(), 4u);
  // No-shows count from the restart: everyone gets the whole time again.
  const auto round2 = host2.rooms_of(d, 2);
  again.tick(50'000 + 5 * 60'000 - 1);
  EXPECT_FALSE(host2.tables[round2[0]].closed);
}

// A cluster (issue 47): a node that does not direct the events keeps a copy that answers the
// reads, is refreshed event by event from the store, and never acts; the director counts a
// table that ended on another node from the store (told at once, or found by its poll).
TEST_F(TournamentsTest, ACopyOnlyReadsAndTheDirectorCountsTablesThatEndedElsewhere) {
  const auto id = make(swiss(2));
  enter(id, {"a", "b", "c", "d"});
  FakeHost other_host;
  Tournaments copy(store_, other_host, [] { return 7; });
  copy.direct(false);
  ASSERT_TRUE(copy.reload(*store_.load_tournaments()));
  EXPECT_EQ((*copy.detail(id))["players"].size(), 4u);
  const int writes = store_.writes;
  copy.tick(10'000);  // its start time: only the director starts it
  copy.resume(10'000);
  EXPECT_EQ((*copy.detail(id))["status"], "registering");
  EXPECT_TRUE(other_host.order.empty()) << "a copy opens no table";
  EXPECT_EQ(store_.writes, writes) << "a copy writes nothing";

  t_.tick(10'000);  // the director starts it; the copy reads the event again
  ASSERT_TRUE(copy.refresh(id, store_.docs.at(id)));
  const auto rooms = host_.rooms_of(*t_.detail(id), 1);
  EXPECT_EQ(copy.reserved(rooms[0]), host_.tables[rooms[0]].players);
  EXPECT_TRUE(copy.open_table(rooms[0]));
  EXPECT_EQ(copy.waiting_tables("a").size(), 1u);
  copy.round_ended(rooms[0], 1, win(0), 11'000);
  EXPECT_EQ(store_.writes, writes + 1) << "only the director's start was written";

  // Both tables moved to other nodes (the director died, say). One ended there and its node
  // told the director at once; the other is found by the director's poll.
  host_.elsewhere = {rooms[0], rooms[1]};
  host_.stored[rooms[0]] = win(0);
  host_.sit_all(rooms[0]);
  t_.check_ended(rooms[0], 12'000);
  EXPECT_FALSE(t_.open_table(rooms[0]));
  EXPECT_EQ((*t_.detail(id))["rounds_played"][0]["tables"][0]["points"], json({1.0, 0.0}));
  host_.stored[rooms[1]] = win(1);
  host_.sit_all(rooms[1]);
  const int reads = host_.outcome_reads;
  t_.tick(12'001);  // within 5 s of the last poll (at the start, 10'000): not read yet
  t_.tick(12'002);
  EXPECT_EQ((*t_.detail(id))["round"], 1);
  t_.tick(15'000);
  EXPECT_EQ((*t_.detail(id))["round"], 2) << "the poll read the other table, round 2 is seated";
  EXPECT_EQ(host_.outcome_reads - reads, 1) << "one read per poll, not one per tick";
  // A removed event leaves the copy's reads.
  ASSERT_TRUE(copy.refresh(id, ""));
  EXPECT_FALSE(copy.detail(id).has_value());
  EXPECT_TRUE(copy.reserved(rooms[0]).empty());
}

// A change is answered once its writes are durable (after_saved): not before, and as refused
// when one of them failed (a fenced director's, or a broken store's).
TEST_F(TournamentsTest, AnAnswerWaitsUntilTheWritesBeforeItAreDurableAndHearsOfAFailedOne) {
  std::vector<std::string> heard;
  const auto note = [&](std::string what) {
    return
        [&heard, what](bool stored) { heard.push_back(what + (stored ? ":stored" : ":failed")); };
  };
  t_.after_saved(note("idle"));
  EXPECT_EQ(heard, std::vector<std::string>{"idle:stored"}) << "nothing to wait for";
  heard.clear();
  store_.hold = true;
  const auto id = make(swiss());
  t_.after_saved(note("create"));
  ASSERT_EQ(t_.enter(id, "ann", "Ann", true, 2'000), std::nullopt);
  t_.after_saved(note("ann"));
  ASSERT_EQ(store_.held.size(), 2u);
  EXPECT_TRUE(heard.empty()) << "answered before the store wrote it";
  store_.settle(true);
  EXPECT_EQ(heard, std::vector<std::string>{"create:stored"});
  store_.settle(false);  // Ann's registration was refused by the store
  EXPECT_EQ(heard, (std::vector<std::string>{"create:stored", "ann:failed"}));
  ASSERT_EQ(t_.enter(id, "bob", "Bob", true, 2'000), std::nullopt);
  t_.after_saved(note("bob"));
  store_.settle(true);
  EXPECT_EQ(heard.back(), "bob:stored") << "a failure before the change does not taint it";
}

TEST_F(TournamentsTest, TablesTheServerCouldNotOpenAreOpenedAtALaterTick) {
  const auto id = make(swiss(1));
  enter(id, {"a", "b"});
  host_.full = true;
  t_.tick(10'000);
  EXPECT_EQ((*t_.detail(id))["rounds_played"][0]["tables"][0]["room"], "");
  host_.full = false;
  t_.tick(11'000);
  EXPECT_EQ((*t_.detail(id))["rounds_played"][0]["tables"][0]["room"], "room1");
  EXPECT_EQ(host_.told["a"].size(), 1u);
}

TEST_F(TournamentsTest, CancellingClosesTheTablesStillOpenAndOrganisersAreKept) {
  const auto id = make(swiss(1));
  enter(id, {"a", "b"});
  t_.tick(10'000);
  ASSERT_EQ(t_.cancel(id, 11'000), std::nullopt);
  EXPECT_TRUE(host_.tables.at("room1").closed);
  EXPECT_EQ((*t_.detail(id))["status"], "cancelled");
  EXPECT_EQ(t_.cancel(id, 11'000)->code, "tournament/closed");
  EXPECT_EQ(t_.organiser_of(id), "org");
  t_.set_organiser("ada", true, [](bool) {});
  EXPECT_TRUE(t_.organiser("ada"));
  Tournaments again(store_, host_, [] { return 5; });
  ASSERT_TRUE(again.restore(*store_.load_tournaments()));
  EXPECT_TRUE(again.organiser("ada"));
  again.set_organiser("ada", false, [](bool) {});
  EXPECT_FALSE(again.organiser("ada"));
  EXPECT_TRUE(store_.organisers.empty());
}

TEST_F(TournamentsTest, NamesShowAsTheLobbyKnowsThemNow) {
  const auto id = make(swiss(1));
  ASSERT_EQ(t_.enter(id, "renamed", "Old Name", true, 2'000), std::nullopt);
  ASSERT_EQ(t_.enter(id, "b", "Bea", true, 2'000), std::nullopt);
  const auto d = *t_.detail(id);
  EXPECT_EQ(d["players"][0]["name"], "New Name");
  EXPECT_EQ(d["players"][1]["name"], "Bea") << "as registered, when the lobby has no name";
}

}  // namespace
}  // namespace plateau::server::testing

namespace plateau::server::testing {
namespace {

TEST(TournamentLimitsTest, EachLimitRefusesWhatGoesPastIt) {
  MemoryTournamentStore store;
  FakeHost host;
  Tournaments t(store, host, [n = std::uint64_t{0}]() mutable { return ++n; },
                {.max_players = 2, .max_events = 1, .max_rounds = 3});
  TournamentSpec s;
  s.name = "Small";
  s.game = "quantik";
  s.format = Format::swiss;
  s.rounds = 4;
  s.starts_ms = 1'000;
  EXPECT_EQ(t.create(s, 0).error().code, "tournament/bad_request") << "more rounds than allowed";
  s.rounds = 3;
  const auto id = t.create(s, 0);
  ASSERT_TRUE(id);
  EXPECT_EQ(t.create(s, 0).error().code, "tournament/too_many") << "one open event at most";
  ASSERT_EQ(t.enter(*id, "a", "A", true, 2'000), std::nullopt);
  ASSERT_EQ(t.enter(*id, "b", "B", true, 2'000), std::nullopt);
  EXPECT_EQ(t.enter(*id, "c", "C", true, 2'000), "tournament/full");
  ASSERT_EQ(t.cancel(*id, 10), std::nullopt);
  EXPECT_TRUE(t.create(s, 20)) << "a cancelled event no longer counts";
}

}  // namespace
}  // namespace plateau::server::testing
