// Work too slow for the event loop (a bot's search, a password hash, a large export) goes to
// other threads, and what comes of it runs back on the loop: the rooms and the lobby never
// wait and never lock. net/workers.hpp runs it on a pool; tests may run it in place.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace plateau::server {

class Background {
 public:
  virtual ~Background() = default;
  using OnLoop = std::function<void()>;
  using Work = std::function<OnLoop()>;
  using Failed = std::function<void(const std::string& what)>;
  // `work` runs off the loop and returns what to do with its result; that closure then runs on
  // the loop. If `work` throws, `failed` runs on the loop with the exception's message instead.
  // `work` must not touch what the loop owns: it gets copies (a position, a password).
  virtual void run(Work work, Failed failed) = 0;
  // `then` runs on the loop later, after what the loop is doing now: for a caller that must not
  // act from inside the call it is in (a bot told of a change while its room is still making it).
  virtual void post(OnLoop then) = 0;
  // Jobs given and not yet back on the loop.
  virtual std::size_t pending() const = 0;
};

}  // namespace plateau::server
