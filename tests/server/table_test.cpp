// Table: seats, presence with its grace, spectators and rematch requests (server/rooms/table.hpp).
#include <gtest/gtest.h>

#include "parts.hpp"
#include "server/rooms/table.hpp"

using namespace plateau::server;
using namespace plateau::server::testing;

TEST(RoomTable, AudiencesAreTheSeatsThenTheSpectators) {
  Table t(2);
  EXPECT_EQ(t.audiences(), 3);
  EXPECT_EQ(t.spectator_audience(), 2);
  EXPECT_EQ(t.viewer_of(1), 1);
  EXPECT_EQ(t.viewer_of(2), std::nullopt);
  const auto ada = recorder("a", "Ada"), eve = recorder("e", "Eve");
  t.sit(1, ada->me(), ada);
  t.add_spectator(eve);
  EXPECT_EQ(t.audience_of(ada.get()), 1);
  EXPECT_EQ(t.audience_of(eve.get()), 2);
  EXPECT_EQ(t.audience_of(recorder().get()), -1);
  EXPECT_EQ(t.connections(1).size(), 1u);
  EXPECT_EQ(t.connections(2).size(), 1u);
}

TEST(RoomTable, StartsWhenEverySeatWasTaken) {
  Table t(2);
  const auto ada = recorder("a", "Ada"), bob = recorder("b", "Bob");
  EXPECT_EQ(t.first_free_seat(), 0);
  t.sit(0, ada->me(), ada);
  EXPECT_FALSE(t.started());
  EXPECT_EQ(t.first_free_seat(), 1);
  EXPECT_EQ(t.seat_of("a"), 0);
  t.sit(1, bob->me(), bob);
  EXPECT_TRUE(t.started());
  EXPECT_EQ(t.first_free_seat(), std::nullopt);
  const auto infos = t.seat_infos();
  EXPECT_EQ(infos[1].name, "Bob");
  EXPECT_TRUE(infos[1].connected);
}

TEST(RoomTable, AFreedSeatLetsItsConnectionsGo) {
  Table t(2);
  const auto ada = recorder("a", "Ada"), again = recorder("a", "Ada");
  t.sit(0, ada->me(), ada);
  t.attach(0, again);
  t.free_seat(0);
  EXPECT_EQ(t.audience_of(ada.get()), -1);
  EXPECT_EQ(t.audience_of(again.get()), -1);
  EXPECT_FALSE(t.player_at(0));
  EXPECT_TRUE(t.deserted());
}

TEST(RoomTable, ASeatIsAwayOnlyWhenItsLastConnectionGoesAndShowsItAfterTheGrace) {
  Table t(2);
  const auto ada = recorder("a", "Ada"), again = recorder("a", "Ada");
  t.sit(0, ada->me(), ada);
  t.attach(0, again);
  EXPECT_FALSE(t.detach(0, ada.get(), 1000)) << "another connection is still at the seat";
  EXPECT_TRUE(t.detach(0, again.get(), 2000));
  EXPECT_TRUE(t.overdue(2499, 500).empty()) << "still within the grace";
  EXPECT_EQ(t.overdue(2500, 500), std::vector<int>{0});
  EXPECT_FALSE(t.deserted()) << "the seat still shows its player";
  EXPECT_TRUE(t.show_away(0));
  EXPECT_FALSE(t.show_away(0)) << "nothing changes twice";
  EXPECT_TRUE(t.overdue(9999, 500).empty());
  EXPECT_TRUE(t.deserted());
  EXPECT_FALSE(t.seat_infos()[0].connected);
  EXPECT_TRUE(t.show_present(0, "Ada"));
  EXPECT_FALSE(t.show_present(0, "Ada"));
  EXPECT_TRUE(t.show_present(0, "Ada L.")) << "a new name shows too";
  EXPECT_EQ(t.seated()[0].second, "Ada L.");
}

TEST(RoomTable, RemovingASpectatorKeepsTheOthersFindable) {
  Table t(2);
  std::vector<std::shared_ptr<Recorder>> eves;
  for (int i = 0; i < 4; ++i) {
    eves.push_back(recorder());
    t.add_spectator(eves.back());
  }
  EXPECT_TRUE(t.take_crowd_change());
  EXPECT_FALSE(t.take_crowd_change());
  t.remove_spectator(eves[1].get());
  EXPECT_TRUE(t.take_crowd_change());
  EXPECT_EQ(t.spectators(), 3);
  t.remove_spectator(eves[3].get());  // moved into the first leaver's place
  t.remove_spectator(eves[0].get());
  ASSERT_EQ(t.connections(t.spectator_audience()).size(), 1u);
  EXPECT_EQ(t.connections(t.spectator_audience())[0], eves[2]);
  EXPECT_EQ(t.audience_of(eves[2].get()), 2);
}

TEST(RoomTable, RematchRequestsAreABitPerSeat) {
  Table t(3);
  EXPECT_TRUE(t.ask_rematch(2));
  EXPECT_FALSE(t.ask_rematch(2)) << "asked already";
  EXPECT_TRUE(t.ask_rematch(0));
  EXPECT_EQ(t.rematch_bits(), 0b101u);
  EXPECT_FALSE(t.everyone_asked());
  EXPECT_TRUE(t.ask_rematch(1));
  EXPECT_TRUE(t.everyone_asked());
  t.clear_rematch();
  EXPECT_EQ(t.rematch_bits(), 0u);
}

TEST(RoomTable, SendAllReachesSeatsAndSpectators) {
  Table t(2);
  const auto ada = recorder("a", "Ada"), eve = recorder();
  t.sit(0, ada->me(), ada);
  t.add_spectator(eve);
  t.send_all(frame("x"));
  EXPECT_EQ(ada->frames, std::vector<std::string>{"x"});
  EXPECT_EQ(eve->frames, std::vector<std::string>{"x"});
}
