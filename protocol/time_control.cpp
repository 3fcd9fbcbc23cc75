#include "protocol/time_control.hpp"

namespace plateau::protocol {

using nlohmann::json;

json to_json(const TimeControl& tc) {
  switch (tc.kind) {
    case TimeControl::Kind::none:
      return nullptr;
    case TimeControl::Kind::live:
      return json{{"kind", "live"}, {"base_ms", tc.base_ms}, {"increment_ms", tc.increment_ms}};
    case TimeControl::Kind::correspondence:
      return json{{"kind", "correspondence"}, {"days", tc.days}};
  }
  return nullptr;
}

std::expected<TimeControl, std::string> time_control_from_json(const json& j) {
  if (j.is_null()) return TimeControl{};
  if (!j.is_object()) return std::unexpected("'clock' must be an object or null");
  const auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string())
    return std::unexpected("'clock' needs a 'kind': \"none\", \"live\" or \"correspondence\"");
  // An integer member in [lo, hi], or the reason it is not.
  const auto integer = [&j](const char* key, std::int64_t lo,
                            std::int64_t hi) -> std::expected<std::int64_t, std::string> {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<std::int64_t>() < lo ||
        it->get<std::int64_t>() > hi)
      return std::unexpected("'clock." + std::string(key) + "' must be an integer from " +
                             std::to_string(lo) + " to " + std::to_string(hi));
    return it->get<std::int64_t>();
  };
  TimeControl tc;
  if (*kind == "none") {
    if (j.size() != 1) return std::unexpected("a 'clock' of kind none has no other member");
    return tc;
  }
  if (*kind == "live") {
    if (j.size() != 3) return std::unexpected("a live 'clock' has base_ms and increment_ms only");
    const auto base = integer("base_ms", kMinBaseMs, kMaxBaseMs);
    if (!base) return std::unexpected(base.error());
    const auto inc = integer("increment_ms", 0, kMaxIncrementMs);
    if (!inc) return std::unexpected(inc.error());
    tc.kind = TimeControl::Kind::live;
    tc.base_ms = *base;
    tc.increment_ms = *inc;
    return tc;
  }
  if (*kind == "correspondence") {
    if (j.size() != 2) return std::unexpected("a correspondence 'clock' has days only");
    const auto days = integer("days", kMinDays, kMaxDays);
    if (!days) return std::unexpected(days.error());
    tc.kind = TimeControl::Kind::correspondence;
    tc.days = static_cast<int>(*days);
    return tc;
  }
  return std::unexpected("'clock.kind' must be \"none\", \"live\" or \"correspondence\"");
}

}  // namespace plateau::protocol
