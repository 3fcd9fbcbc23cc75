#include "server/rooms/table.hpp"

#include <algorithm>

namespace plateau::server {

using nlohmann::json;

Table::Table(int seats) : seats_(static_cast<std::size_t>(seats)), rematch_(seats_.size(), false) {}

std::optional<rules::Seat> Table::viewer_of(int audience) const {
  if (audience == spectator_audience()) return std::nullopt;
  return audience;
}

int Table::audience_of(const Connection* p) const {
  const auto it = places_.find(p);
  return it == places_.end() ? -1 : it->second.audience;
}

const Connections& Table::connections(int audience) const {
  return audience == spectator_audience() ? spectators_ : seats_[at(audience)].conns;
}

void Table::send_all(const Frame& frame) const {
  for (const auto& s : seats_)
    for (const auto& p : s.conns) p->send(frame);
  for (const auto& p : spectators_) p->send(frame);
}

std::optional<rules::Seat> Table::seat_of(const std::string& player_id) const {
  for (std::size_t s = 0; s < seats_.size(); ++s)
    if (seats_[s].player_id == player_id) return static_cast<rules::Seat>(s);
  return std::nullopt;
}

std::optional<int> Table::first_free_seat() const {
  for (std::size_t s = 0; s < seats_.size(); ++s)
    if (!seats_[s].player_id) return static_cast<int>(s);
  return std::nullopt;
}

std::vector<std::pair<std::optional<std::string>, std::string>> Table::seated() const {
  std::vector<std::pair<std::optional<std::string>, std::string>> out;
  for (const auto& s : seats_) out.emplace_back(s.player_id, s.player_id ? s.name : std::string());
  return out;
}

std::vector<protocol::SeatInfo> Table::seat_infos() const {
  std::vector<protocol::SeatInfo> infos;
  for (const auto& s : seats_) {
    protocol::SeatInfo info;
    if (s.player_id) {
      info.name = s.name;
      if (const auto level = bot_level_in(*s.player_id)) info.bot = std::string(*level);
    }
    info.connected = s.shown_connected;
    infos.push_back(std::move(info));
  }
  return infos;
}

json seat_line(std::size_t seat, const std::optional<std::string>& player, const std::string& name,
               bool connected) {
  json line{
      {"seat", seat}, {"name", player ? json(name) : json(nullptr)}, {"connected", connected}};
  if (const auto level = player ? bot_level_in(*player) : std::nullopt) line["bot"] = *level;
  return line;
}

json Table::summary() const {
  json lines = json::array();
  for (std::size_t s = 0; s < seats_.size(); ++s)
    lines.push_back(seat_line(s, seats_[s].player_id, seats_[s].name, !seats_[s].conns.empty()));
  return lines;
}

void Table::sit(int seat, const Player& player, const std::shared_ptr<Connection>& p) {
  auto& slot = seats_[at(seat)];
  slot.player_id = player.id;
  slot.name = player.name;
  slot.conns = {p};
  places_[p.get()] = Place{seat, 0};
  slot.shown_connected = true;
  started_ = started_ ||
             std::ranges::all_of(seats_, [](const Slot& s) { return s.player_id.has_value(); });
}

void Table::restore_seat(int seat, std::optional<std::string> player_id, std::string name) {
  auto& slot = seats_[at(seat)];
  slot.player_id = std::move(player_id);
  slot.name = std::move(name);
}

void Table::free_seat(int seat) {
  auto& slot = seats_[at(seat)];
  for (const auto& c : slot.conns) places_.erase(c.get());
  slot = Slot{};
}

void Table::attach(int seat, const std::shared_ptr<Connection>& p) {
  places_[p.get()] = Place{seat, 0};
  seats_[at(seat)].conns.push_back(p);
}

namespace {

bool is_bot(const Connection& c) { return c.player() && bot_level_in(c.player()->id); }

}  // namespace

bool Table::detach(int seat, const Connection* p, Millis now) {
  places_.erase(p);
  auto& slot = seats_[at(seat)];
  const auto it = std::ranges::find_if(slot.conns, [&](const auto& c) { return c.get() == p; });
  if (it == slot.conns.end()) return false;
  slot.conns.erase(it);
  // A bot standing in for the seat's player goes without changing what the seat shows.
  if (is_bot(*p) && slot.player_id && !bot_level_in(*slot.player_id)) return false;
  if (has_connections(seat)) return false;
  slot.away_since = now;
  return true;
}

bool Table::has_connections(int seat) const {
  const auto& slot = seats_[at(seat)];
  // A bot's seat is its bot's; a person's seat counts the person's connections only.
  if (slot.player_id && bot_level_in(*slot.player_id)) return !slot.conns.empty();
  return std::ranges::any_of(slot.conns, [](const auto& c) { return !is_bot(*c); });
}

bool Table::show_present(int seat, const std::string& name) {
  auto& slot = seats_[at(seat)];
  if (slot.shown_connected && slot.name == name) return false;
  slot.shown_connected = true;
  slot.name = name;
  return true;
}

bool Table::show_away(int seat) {
  auto& slot = seats_[at(seat)];
  if (!slot.shown_connected) return false;
  slot.shown_connected = false;
  return true;
}

std::vector<int> Table::overdue(Millis now, Millis grace) const {
  std::vector<int> out;
  for (std::size_t s = 0; s < seats_.size(); ++s) {
    const auto& slot = seats_[s];
    if (slot.player_id && !has_connections(static_cast<int>(s)) && slot.shown_connected &&
        now - slot.away_since >= grace)
      out.push_back(static_cast<int>(s));
  }
  return out;
}

bool Table::deserted() const {
  if (!spectators_.empty()) return false;
  // A bot is always at its seat: it keeps no room in memory that no person is in.
  return std::ranges::all_of(seats_, [](const Slot& s) {
    const bool nobody = std::ranges::all_of(s.conns, [](const auto& c) { return is_bot(*c); });
    return (nobody && !s.shown_connected) || (s.player_id && bot_level_in(*s.player_id));
  });
}

void Table::add_spectator(const std::shared_ptr<Connection>& p) {
  places_[p.get()] = Place{spectator_audience(), spectators_.size()};
  spectators_.push_back(p);
  crowd_changed_ = true;
}

void Table::remove_spectator(const Connection* p) {
  const auto it = places_.find(p);
  const std::size_t i = it->second.index;
  // The last spectator takes the leaver's place: the order of an audience does not matter.
  if (i + 1 != spectators_.size()) {
    spectators_[i] = std::move(spectators_.back());
    places_[spectators_[i].get()].index = i;
  }
  spectators_.pop_back();
  places_.erase(it);
  crowd_changed_ = true;
}

bool Table::ask_rematch(int seat) {
  if (rematch_[at(seat)]) return false;
  rematch_[at(seat)] = true;
  return true;
}

bool Table::everyone_asked() const {
  return std::ranges::all_of(rematch_, [](bool b) { return b; });
}

std::uint32_t Table::rematch_bits() const {
  std::uint32_t asked = 0;
  for (std::size_t s = 0; s < rematch_.size(); ++s)
    if (rematch_[s]) asked |= 1u << s;
  return asked;
}

nlohmann::json Table::offer_json() const {
  if (!offer_) return nullptr;
  if (offer_->kind == Offer::Kind::draw)
    return nlohmann::json{{"kind", "draw"}, {"by", offer_->by}};
  json accepted = json::array();
  for (int s = 0; s < seats(); ++s)
    if (offer_->accepted >> s & 1u) accepted.push_back(s);
  return nlohmann::json{{"kind", "takeback"},
                        {"by", offer_->by},
                        {"moves", offer_->at - offer_->to},
                        {"accepted", std::move(accepted)}};
}

nlohmann::json Table::stored_offer() const {
  auto j = offer_json();
  if (offer_) j["at"] = offer_->at;
  if (offer_ && offer_->kind == Offer::Kind::takeback) j["to"] = offer_->to;
  return j;
}

std::optional<Table::Offer> Table::offer_from_stored(const json& j, std::size_t moves, int seats) {
  if (!j.is_object()) return std::nullopt;
  const auto kind = j.find("kind"), by = j.find("by"), at = j.find("at");
  if (kind == j.end() || by == j.end() || !by->is_number_integer() || *by < 0 || *by >= seats ||
      at == j.end() || !at->is_number_unsigned() || at->get<std::size_t>() != moves)
    return std::nullopt;
  Offer offer{Offer::Kind::draw, by->get<int>(), moves, 0, 0};
  if (*kind == "draw") return offer;
  if (*kind != "takeback") return std::nullopt;
  const auto to = j.find("to"), accepted = j.find("accepted");
  if (to == j.end() || !to->is_number_unsigned() || to->get<std::size_t>() >= moves ||
      accepted == j.end() || !accepted->is_array())
    return std::nullopt;
  offer.kind = Offer::Kind::takeback;
  offer.to = to->get<std::size_t>();
  for (const auto& s : *accepted) {
    if (!s.is_number_integer() || s < 0 || s >= seats) return std::nullopt;
    offer.accepted |= 1u << s.get<int>();
  }
  return offer;
}

}  // namespace plateau::server
