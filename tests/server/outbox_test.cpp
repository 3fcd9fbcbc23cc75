// Outbox: frames in version order behind the store's writes, and the patches kept for those
// who come back (server/rooms/outbox.hpp).
#include <gtest/gtest.h>

#include "parts.hpp"
#include "server/rooms/outbox.hpp"

using namespace plateau::server;
using namespace plateau::server::testing;

namespace {

// A table of two seats, Ada at seat 0 and Eve watching; seat 1 is free.
struct Scenery {
  Table table{2};
  std::shared_ptr<Recorder> ada = recorder("a", "Ada"), eve = recorder();
  Outbox out{3, KeepLimits{}};
  Scenery() {
    table.sit(0, ada->me(), ada);
    table.add_spectator(eve);
  }
  // The patches of `version`: "<audience>@<version>" for each audience.
  std::vector<std::pair<int, Frame>> patches(std::int64_t version) const {
    std::vector<std::pair<int, Frame>> frames;
    for (int a = 0; a < 3; ++a)
      frames.emplace_back(a, frame(std::to_string(a) + "@" + std::to_string(version)));
    return frames;
  }
};

}  // namespace

TEST(Outbox, NothingGoesBeforeItsWriteAndNothingOvertakes) {
  Scenery r;
  const auto first = r.out.hold(1, r.patches(1));
  const auto second = r.out.hold(2, r.patches(2));
  r.out.send(r.ada, frame("reply"));
  EXPECT_TRUE(r.out.release(second));
  r.out.flush(r.table);
  EXPECT_TRUE(r.ada->frames.empty()) << "version 2 waits for version 1";
  EXPECT_TRUE(r.out.release(first));
  r.out.flush(r.table);
  EXPECT_EQ(r.ada->frames, (std::vector<std::string>{"0@1", "0@2", "reply"}));
  EXPECT_EQ(r.eve->frames, (std::vector<std::string>{"2@1", "2@2"}));
  EXPECT_TRUE(r.out.empty());
}

TEST(Outbox, AFrameForOneGoesAtOnceWhenNothingWaits) {
  Scenery r;
  r.out.send(r.ada, frame("reply"));
  EXPECT_EQ(r.ada->frames, std::vector<std::string>{"reply"});
  EXPECT_TRUE(r.out.empty());
}

TEST(Outbox, AWholeStateHolderSkipsThePatchesItHolds) {
  Scenery r;
  const auto e1 = r.out.hold(1, r.patches(1));
  const auto e2 = r.out.hold(2, r.patches(2));
  r.out.holds_whole(r.ada.get(), 1);
  r.out.release(e1);
  r.out.release(e2);
  r.out.flush(r.table);
  EXPECT_EQ(r.ada->frames, std::vector<std::string>{"0@2"});
  r.out.forget(r.ada.get());
  r.out.release(r.out.hold(3, r.patches(3)));
  r.out.flush(r.table);
  EXPECT_EQ(r.ada->frames.back(), "0@3");
}

TEST(Outbox, SentVersionIsTheLastBeforeAnyQueuedPatch) {
  Scenery r;
  EXPECT_EQ(r.out.sent_version(4), 4);
  const auto e5 = r.out.hold(5, r.patches(5));
  r.out.hold(6, r.patches(6));
  EXPECT_EQ(r.out.sent_version(6), 4);
  r.out.release(e5);
  r.out.flush(r.table);
  EXPECT_EQ(r.out.sent_version(6), 5);
}

TEST(Outbox, AnEmptySeatKeepsWhatItMissed) {
  Scenery r;
  r.out.keep_from(1, 0);  // seat 1 has no connection
  for (std::int64_t v = 1; v <= 3; ++v) r.out.release(r.out.hold(v, r.patches(v)));
  r.out.flush(r.table);
  EXPECT_TRUE(r.out.covers(1, 0));
  EXPECT_TRUE(r.out.covers(1, 3));
  EXPECT_FALSE(r.out.covers(1, 4));
  EXPECT_FALSE(r.out.covers(0, 1)) << "seat 0 keeps nothing";
  const auto back = recorder();
  r.out.send_kept(*back, 1, 1);
  EXPECT_EQ(back->frames, (std::vector<std::string>{"1@2", "1@3"}));
  r.out.stop_keeping(1);
  EXPECT_FALSE(r.out.keeping(1));
}

// Eve's browser closed its socket while patches 5 and 6 were on their way: it drops what comes
// after, so she holds version 4 though the room sent her 6. She still resumes by patches.
TEST(Outbox, AClientThatLostPatchesOnTheWayStillResumesByPatches) {
  Scenery r;
  for (std::int64_t v = 1; v <= 6; ++v) r.out.release(r.out.hold(v, r.patches(v)));
  r.out.flush(r.table);
  r.out.keep_from(2, 6);  // the room saw her go after sending version 6
  r.out.release(r.out.hold(7, r.patches(7)));
  r.out.flush(r.table);
  EXPECT_TRUE(r.out.covers(2, 4));
  EXPECT_TRUE(r.out.covers(2, 2)) << "the last 4 patches before the drop are kept: 3 to 6";
  EXPECT_FALSE(r.out.covers(2, 1));
  const auto back = recorder();
  r.out.send_kept(*back, 2, 4);
  EXPECT_EQ(back->frames, (std::vector<std::string>{"2@5", "2@6", "2@7"}));

  Outbox forgetful(3, KeepLimits{.recent_frames = 0});
  forgetful.release(forgetful.hold(1, r.patches(1)));
  forgetful.flush(r.table);
  forgetful.keep_from(2, 1);
  EXPECT_FALSE(forgetful.covers(2, 0)) << "without recent patches, keeping starts at the drop";
  EXPECT_TRUE(forgetful.covers(2, 1));
}

TEST(Outbox, KeepingStopsPastItsLimits) {
  Table table(1);
  Outbox out(2, KeepLimits{.frames = 2, .bytes = 1000});
  out.keep_from(0, 0);
  for (std::int64_t v = 1; v <= 2; ++v) out.release(out.hold(v, {{0, frame("x")}}));
  out.flush(table);
  EXPECT_TRUE(out.keeping(0));
  out.release(out.hold(3, {{0, frame("x")}}));
  out.flush(table);
  EXPECT_FALSE(out.keeping(0))
      << "a third patch is one too many: whoever comes back gets the whole state";

  Outbox small(2, KeepLimits{.frames = 64, .bytes = 5});
  small.keep_from(1, 0);
  small.release(small.hold(1, {{1, frame("123456")}}));
  small.flush(table);
  EXPECT_FALSE(small.keeping(1)) << "too many bytes";
}

TEST(Outbox, ClearedChangesStayGone) {
  Scenery r;
  const auto lost = r.out.hold(1, r.patches(1));
  r.out.clear();
  const auto next = r.out.hold(2, r.patches(2));
  EXPECT_FALSE(r.out.release(lost)) << "a late write of a cleared change releases nothing";
  r.out.flush(r.table);
  EXPECT_TRUE(r.ada->frames.empty());
  EXPECT_TRUE(r.out.release(next));
  r.out.flush(r.table);
  EXPECT_EQ(r.ada->frames, std::vector<std::string>{"0@2"});
}
