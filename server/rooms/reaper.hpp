// Frees, on a thread of its own, what the rooms' thread has finished with.
//
// A room's boards are JSON documents of hundreds to thousands of small heap blocks, and a game
// may keep beside each board a summary of the position it shows (ViewParts::Shown). A finished
// round's boards, and each summary once a newer one replaces it, were freed on the rooms'
// thread: 5.6% of that thread's time under the six games' load bench (perf, 200 rooms, closed
// loop), the one thread that sets how many moves a second the server takes. Handed over here,
// that work runs on the other core.
//
// Only the last reference to anything is handed over, so nothing the rooms' thread may still
// read is freed here. A thing is freed within kLinger of its hand-over, or sooner when many
// wait; all of it on destruction.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace plateau::server {

class Reaper {
 public:
  Reaper();
  ~Reaper();
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;

  // Takes `last`, which must be the only reference left to what it points to (else the
  // pointee lives on with its other holders and only the reference goes).
  void retire(std::shared_ptr<const void> last);
  // Everything handed over so far is freed when this returns.
  void drain();
  std::uint64_t freed() const;

 private:
  static constexpr std::size_t kBatch = 256;  // this many waiting wake the thread at once
  static constexpr std::chrono::milliseconds kLinger{20};
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable drained_;
  std::vector<std::shared_ptr<const void>> waiting_;
  std::uint64_t handed_ = 0;
  std::uint64_t freed_ = 0;
  bool hurry_ = false;  // drain() waits
  bool stop_ = false;
  std::thread thread_;  // last: it starts once everything above is built
};

}  // namespace plateau::server
