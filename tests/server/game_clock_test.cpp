// The rules of time, with the time passed in: no sleeping (issue 44, section 5).
#include "server/rooms/game_clock.hpp"

#include <gtest/gtest.h>

namespace plateau::server {
namespace {

using protocol::TimeControl;

TimeControl live(Millis base, Millis inc) {
  return TimeControl{TimeControl::Kind::live, base, inc, 0};
}

TEST(GameClock, TheFlagFallsExactlyWhenTheTimeReachesZero) {
  GameClock c(live(60'000, 0), 2);
  EXPECT_EQ(c.flag_at(), std::nullopt) << "no clock runs before the start";
  c.start(0, 1'000);
  EXPECT_EQ(c.flag_at(), 61'000);
  EXPECT_EQ(c.left(0, 60'999), 1);
  EXPECT_EQ(c.left(0, 61'000), 0);
  EXPECT_EQ(c.left(0, 99'000), 0) << "never below zero";
  EXPECT_EQ(c.left(1, 61'000), 60'000) << "the other seat's clock stands";
}

TEST(GameClock, AMoveIsChargedFromThePreviousOneAndTheIncrementComesAfter) {
  GameClock c(live(10'000, 2'000), 2);
  c.start(0, 0);
  c.moved(0, 3'000, 0, 1);
  EXPECT_EQ(c.left(0, 3'000), 9'000) << "10 s - 3 s spent + 2 s";
  EXPECT_EQ(c.running(), 1);
  EXPECT_EQ(c.flag_at(), 3'000 + 10'000) << "seat 1's clock runs from seat 0's move";
  c.moved(1, 12'999, 0, 0);  // a move one millisecond before the flag counts
  EXPECT_EQ(c.left(1, 12'999), 1 + 2'000);
  EXPECT_EQ(c.flag_at(), 12'999 + 9'000);
  c.moved(0, 12'999, 0, 1);  // an instant move still earns its increment
  EXPECT_EQ(c.left(0, 13'000), 11'000);
}

TEST(GameClock, LagCreditIsForgivenUpToWhatTheCallerAllowsAndNeverMakesTimeUp) {
  GameClock c(live(10'000, 0), 2);
  c.start(0, 0);
  c.moved(0, 1'000, 300, 1);
  EXPECT_EQ(c.left(0, 1'000), 9'300) << "1 s spent, 300 ms of it forgiven";
  c.moved(1, 1'100, 5'000, 0);
  EXPECT_EQ(c.left(1, 1'100), 10'000) << "credit beyond the time spent gives nothing back";
  c.moved(0, 1'200, -50, 1);
  EXPECT_EQ(c.left(0, 1'200), 9'200) << "a negative credit is none";
}

TEST(GameClock, ACorrespondenceClockRestartsAtEveryMove) {
  GameClock c(TimeControl{TimeControl::Kind::correspondence, 0, 0, 3}, 2);
  const Millis day = 86'400'000;
  EXPECT_EQ(c.left(0, 0), 3 * day);
  c.start(0, 0);
  c.moved(0, 2 * day, 0, 1);
  EXPECT_EQ(c.left(1, 2 * day), 3 * day);
  EXPECT_EQ(c.flag_at(), 5 * day);
  EXPECT_EQ(c.left(0, 2 * day), 3 * day) << "days per move: nothing saved from a quick one";
}

TEST(GameClock, StoppingChargesTheRunningSeatAndStopsEverything) {
  GameClock c(live(5'000, 1'000), 2);
  c.start(1, 100);
  c.stop(1'100);
  EXPECT_EQ(c.running(), std::nullopt);
  EXPECT_EQ(c.flag_at(), std::nullopt);
  EXPECT_EQ(c.left(1, 9'999'999), 4'000) << "no increment for a move never made";
  const auto v = c.view();
  EXPECT_EQ(v["left_ms"], nlohmann::json({5'000, 4'000}));
  EXPECT_EQ(v["running"], nullptr);
  EXPECT_EQ(v["control"],
            (nlohmann::json{{"kind", "live"}, {"base_ms", 5'000}, {"increment_ms", 1'000}}));
}

TEST(TimeControl, ReadsEveryFormAndRefusesWhatIsOutOfBounds) {
  using nlohmann::json;
  EXPECT_EQ(protocol::time_control_from_json(nullptr), TimeControl{});
  EXPECT_EQ(protocol::time_control_from_json(json{{"kind", "none"}}), TimeControl{});
  EXPECT_EQ(protocol::time_control_from_json(
                json{{"kind", "live"}, {"base_ms", 180'000}, {"increment_ms", 2'000}}),
            live(180'000, 2'000));
  EXPECT_EQ(protocol::time_control_from_json(json{{"kind", "correspondence"}, {"days", 7}})->days,
            7);
  for (const TimeControl& tc :
       {TimeControl{}, live(60'000, 0), TimeControl{TimeControl::Kind::correspondence, 0, 0, 1}})
    EXPECT_EQ(protocol::time_control_from_json(protocol::to_json(tc)), tc);
  for (const json& bad :
       {json(3), json("live"), json::object(), json{{"kind", "blitz"}},
        json{{"kind", "live"}, {"base_ms", 999}, {"increment_ms", 0}},
        json{{"kind", "live"}, {"base_ms", 60'000}},
        json{{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", -1}},
        json{{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 181'000}},
        json{{"kind", "live"}, {"base_ms", 60'000.5}, {"increment_ms", 0}},
        json{{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 0}, {"days", 1}},
        json{{"kind", "correspondence"}, {"days", 0}},
        json{{"kind", "correspondence"}, {"days", 15}}, json{{"kind", "none"}, {"days", 1}}})
    EXPECT_FALSE(protocol::time_control_from_json(bad).has_value()) << bad;
}

}  // namespace
}  // namespace plateau::server
