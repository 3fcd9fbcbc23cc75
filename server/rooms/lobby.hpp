// The lobby: players (hello, tokens), the directory of rooms (create, find, list, sweep), and the
// dispatch of every decoded request to its room. Like Room, a plain class with no Asio.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocol/messages.hpp"
#include "server/accounts/accounts.hpp"
#include "server/ratings/ratings.hpp"
#include "server/rooms/bot_seat.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/room.hpp"
#include "server/secure_random.hpp"
#include "server/store/store.hpp"
#include "server/tournaments/tournaments.hpp"

namespace plateau::server {

// The most tables where the asking player sits that a `rooms` reply lists (its `mine`).
inline constexpr std::size_t kMineListed = 50;

// The defaults are the server's (config.hpp).
struct LobbyLimits {
  std::size_t max_rooms = 10'000;  // rooms in memory
  Millis idle_room_ms =
      30 * 60'000;      // an empty room unplayed this long is closed (kept in the store)
  Millis grace_ms = 0;  // see RoomSettings::grace_ms
  KeepLimits keep;      // see RoomSettings::keep
  std::size_t max_rooms_per_player = 20;  // open rooms (not over, not closed) a player created
  std::size_t creates_per_minute = 10;    // rooms one address may create in any minute
  // A game in play whose players have all been away this long leaves memory, and comes back
  // from the store when someone asks for it. 0: never (a store that keeps nothing).
  Millis unload_after_ms = 10 * 60'000;
  std::size_t new_players_per_minute = 30;    // new identities one address may take in any minute
  Millis forget_players_ms = 24 * 3'600'000;  // a player who never sat is forgotten this long after
  std::size_t rooms_page = 50;                // rooms in a `rooms` reply that asks for no limit
  std::size_t rooms_page_max = 200;           // a larger limit is cut to this
  std::size_t max_spectators = 10'000;        // see RoomSettings::max_spectators
  std::size_t max_bot_games = 100;            // rooms in memory with a bot and a game not over
  Millis max_lag_credit_ms = 500;             // see RoomSettings::max_lag_credit_ms
  Millis gone_ms = 60'000;                    // see RoomSettings::gone_ms
  bool chat = true;                           // tables may have a chat (--chat)
  double chat_per_minute = 20;                // messages one person may send a minute
  std::size_t max_chat = 500;                 // see RoomSettings::max_chat
  std::size_t chat_chars = 500;               // see RoomSettings::chat_chars
};

// How many times each address did something in the last minute: at most `per_minute` are let
// through. Memory for the addresses seen in the last minute only.
class PerMinute {
 public:
  explicit PerMinute(std::size_t per_minute) : per_minute_(per_minute) {}
  // Whether `address` may do it once more at `now`; if so, counts it.
  bool allow(const std::string& address, Millis now);
  // Whether allow() would say yes now, counting nothing.
  bool would_allow(const std::string& address, Millis now) const;
  // Forgets the addresses with nothing in the last minute.
  void sweep(Millis now);
  std::size_t addresses() const { return times_.size(); }

 private:
  static constexpr Millis kMinute = 60'000;
  std::size_t per_minute_;
  std::unordered_map<std::string, std::deque<Millis>> times_;
};

struct Counters {
  std::uint64_t moves_accepted = 0;
  std::map<std::string, std::uint64_t> refused;  // by error code
  std::uint64_t rooms_unloaded = 0;              // rooms in play that left memory
  std::uint64_t rooms_loaded = 0;                // rooms brought back from the store
  std::uint64_t load_failures = 0;  // a read that failed, or a stored room that did not replay
  std::uint64_t players_forgotten = 0;
};

// One public room's line in the lobby's list, with what orders it: a node's own, or one another
// node shared (cluster mode).
struct ListedLine {
  int rank = 0;        // 0 a seat to take, 1 in play, 2 over
  int spectators = 0;  // of a game in play (the most watched first)
  Millis active = 0;   // last activity (the most recent first)
  nlohmann::json summary;
  // For the lists of the tables a player sits at, on the other nodes of a cluster: private
  // tables are shared too (never listed publicly), with who sits where (people, not bots), the
  // seat to move (-1: none, or its player left) and when its time runs out.
  bool is_private = false;
  std::vector<std::pair<std::string, int>> players{};
  int to_move = -1;
  std::optional<Millis> deadline{};
  std::string room{};  // its id (the summary's "room")
};

// What a lobby in a cluster (server/cluster/node.hpp) asks of the others. Without it the lobby
// is alone: every room in its store is its own.
struct Shared {
  // Whether this node holds `room` (its lease): a room it does not hold is never loaded here.
  std::function<bool(const std::string& room)> holds;
  // Claims the lease of a room about to be created whose id nobody learns before it is stored
  // (create answers once the room is durable), with no round trip: its first write takes the
  // lease (and fails if it cannot: the room is not saved).
  std::function<void(const std::string& room)> claim_new;
  // Takes the lease of a room about to be created whose id is told at once (a tournament's
  // table: its players are sent there before it is stored, and another node must find it
  // held). A round trip; false: it cannot (the room is not made).
  std::function<bool(const std::string& room)> take_new;
  // The room left this node's memory: its lease may go.
  std::function<void(const std::string& room)> released;
  // A player the store knows by their token's hash (one met on another node).
  std::function<std::optional<StoredPlayer>(const std::string& token_hash)> find_player;
  // The other nodes' public rooms, for the list.
  std::function<const std::vector<ListedLine>&()> remote_lines;
  // The players of a rated game that just ended: their ratings are read again first.
  std::function<void(const std::vector<std::string>& players)> before_rating;

  // Tournaments, run by one node (their director; see Tournaments::directing()):
  // A change of an event sent to the director (TournamentOp), its answer given to `done`
  // (nullopt: no director answered). False: this node directs, and runs it itself.
  std::function<bool(nlohmann::json op, std::function<void(std::optional<nlohmann::json>)> done)>
      to_director;
  // A frame for a player's connections on the other nodes.
  std::function<void(const std::string& player, const std::string& frame)> tell_others;
  // Which seats of a room held elsewhere are taken, as stored (empty: no such room).
  std::function<std::vector<bool>(const std::string& room, int seats)> seats_elsewhere;
  // Closes a table held elsewhere: true if its holder was told to; false if this node now
  // holds it (then it closes it itself).
  std::function<bool(const std::string& room)> close_elsewhere;
  // A tournament table's game ended here, on a node that does not direct (or may not just now):
  // the director reads it.
  std::function<void(const std::string& room)> table_ended;
  // Whether a director may act on its tournaments now: false just after a stall, until this
  // node knows it still holds their lease (a tick then opens no table another director owns).
  std::function<bool()> may_direct;
};

class Lobby : private PlayerDirectory, private TournamentHost {
 public:
  // Where every id, token, seed and salt comes from. The server passes the OS CSPRNG (the
  // default); tests pass a counter, to name rooms and draw games they can predict.
  using Random = std::function<std::uint64_t()>;
  explicit Lobby(Store& store, Random random = secure_random_u64, LobbyLimits limits = {});
  Lobby(const Lobby&) = delete;  // rooms hold pointers into it
  Lobby& operator=(const Lobby&) = delete;

  void handle(const std::shared_ptr<Connection>& c, protocol::Request req);
  // Bots think on `background` (the worker pool), each search for at most `max_think`: an easy
  // one plays on for whoever leaves a game of three or four, and, with `bot_games`, players may
  // seat bots (add_bot). Without this call the server runs no bots at all: `add_bot` is
  // refused, a stored bot's seat waits, and nobody may leave a game of three or four. Call it
  // before restoring rooms, so that their bots sit again.
  void use_bots(Background& background, std::chrono::microseconds max_think, bool bot_games = true);
  // Accounts (issue 46): `hello` then takes an account's session token too, an account's name is
  // its own (a guest who gives it is shown as "<name> (guest)"), and a disabled account may
  // not sit or create. Without this call every player is a guest.
  void use_accounts(Accounts& accounts);
  Accounts* accounts() { return accounts_; }
  // Ratings (issue 46): rated tables (accounts only) rate their players when a round ends.
  // Without this call (or without accounts) no table may be rated.
  void use_ratings(Ratings& ratings) { ratings_ = &ratings; }
  Ratings* ratings() { return ratings_; }
  // Tournaments (issue 48), seated at tables of this lobby's. `finished` reads a room's first
  // round's stored outcome (the archive's), for games that ended while the server was down.
  // Call before restoring rooms, so that tournament tables come back with their seats reserved.
  using FinishedOutcome = std::function<std::optional<nlohmann::json>(const std::string& room)>;
  Tournaments& make_tournaments(TournamentStore& store, FinishedOutcome finished,
                                TournamentLimits limits = {});
  Tournaments* tournaments() { return tournaments_.get(); }
  // Whether players may seat bots here.
  bool bot_games_allowed() const { return bots_.background != nullptr && bot_games_; }
  const BotHouse& bots() const { return bots_; }
  // Rooms in memory with a bot seated and a game not over (what --max-bot-games caps).
  std::size_t bot_games() const;
  // A decoding error, answered on the connection (and counted).
  void refuse(const std::shared_ptr<Connection>& c, const protocol::Error& e);
  // The connection is gone: its seats show it away, its spectating ends.
  void closed(Connection* c);
  void tick(Millis now);

  // Clocks (issue 44). `now` gives the time to the millisecond, for every room's clocks (the
  // server passes the system clock; tests a fake); without it, rooms take the last tick's.
  void use_clock(std::function<Millis()> now) { clock_ = std::move(now); }
  // `wake(at)` is called whenever a flag comes due earlier than any the lobby knew: the server
  // arms one timer for it, and calls expire() when it fires.
  void on_deadline(std::function<void(Millis)> wake) { wake_ = std::move(wake); }
  // Flags every clock whose time is gone at `now` (each room's, stored, then shown).
  void expire(Millis now);
  // The next flag to come, if any.
  std::optional<Millis> next_deadline();

  // Cluster mode: see Shared.
  void share(Shared shared) { shared_ = std::move(shared); }
  const Shared& shared() const { return shared_; }
  // A frame for the player's connections to this node (a tournament's news, in a cluster).
  void tell_here(const std::string& player, const std::string& frame);
  // A tournament's table: closed here, or where it is held (TournamentHost::close_table).
  void close_tournament_table(const std::string& room) { close_table(room); }
  // Cluster mode: the room left this node (its lease was lost): out of memory with no write,
  // and every connection in it is ended (Connection::end), so that its client comes back
  // through whichever node now holds the room.
  void evict(const std::string& id);
  // Cluster mode: a player another node met (a request relayed from there): known here too,
  // so that their seat is stored under their token.
  void adopt(const Player& player, const std::string& token_hash);
  // Cluster mode: the first request of `c` (relayed from another node) for a room in memory
  // here where its player sits puts it back at its seat, as a hello would have (`held`: the
  // version its client still holds, from that hello's resume).
  void rebind(const std::shared_ptr<Connection>& c, const std::string& room,
              std::optional<std::int64_t> held = {});
  // This node's rooms for the lists: the public ones, and with `with_private` the private ones
  // too (for the other nodes of a cluster).
  std::vector<ListedLine> lines(bool with_private = false) const;
  // The token's hash a player is known by here ("" if none).
  std::string token_hash_of(const std::string& player) const;

  // In a cluster: the hash of this hello's token when the hello would ask the store for a
  // player another node made (Shared::find_player): a token this lobby knows neither as a
  // player's nor as an account's session, from an address within the new players' rate. The
  // node reads that player off the rooms' thread first, then hands the hello on.
  std::optional<std::string> player_to_find(const Connection& c, const protocol::Hello& h) const;

  // Recovery: players and rooms read back from the store.
  void restore_player(const StoredPlayer& p);
  bool restore_room(const StoredRoom& r, std::string& why);

  // The room, from memory or else from the store (a room unloaded, or one a restart would
  // rebuild): nullptr when there is none. `why` tells a room that exists but cannot be loaded.
  std::shared_ptr<Room> find(const std::string& id, std::optional<protocol::Code>* why = nullptr);
  // The rooms find() brings back from the store: unfinished, or whose last round ended since
  // this (Store::load_room's `ended_since_ms`).
  Millis restorable_since() const { return now_ - limits_.idle_room_ms; }
  // Rooms in memory. Readable from any thread (the front door answers /healthz with it).
  std::size_t room_count() const { return room_count_; }
  std::size_t unloaded_count() const { return unloaded_.size(); }
  std::size_t player_count() const { return players_.size(); }
  const std::map<std::string, std::shared_ptr<Room>>& rooms() const { return rooms_; }
  const Counters& counters() const { return counters_; }
  Reaper& reaper() { return reaper_; }
  // Accepted moves, from their arrival to their patches going out (after the durable write).
  const LatencyHistogram& move_latency() const { return move_latency_; }
  // Sends a frame to every connection that said hello.
  void announce(const std::string& message);
  // The host deletes message `seq` of `room`'s chat; false when there is no such message.
  bool delete_chat(const std::string& room, int seq);
  // Closes a room: its connections get an error and it leaves the lobby.
  bool close_room(const std::string& id);
  // Closes every room (in memory or unloaded) that `player` created or sits in, and/or that
  // nothing happened in for longer than `inactive_ms`; at least one must be given. Returns
  // the ids closed.
  std::vector<std::string> close_rooms(const std::optional<std::string>& player,
                                       std::optional<Millis> inactive_ms);

  static std::string hash_token(std::string_view token);
  // The name a guest is shown under: theirs, unless an account holds it.
  std::string guest_name(const std::string& name) const;
  // A fresh room id: 96 random bits, since a private room's id is its only key; unused in
  // memory and in the store.
  std::string new_room_id();

 private:
  void hello(const std::shared_ptr<Connection>& c, const protocol::Hello& h,
             const nlohmann::json& id);
  void create(const std::shared_ptr<Connection>& c, const protocol::Create& req,
              const nlohmann::json& id);
  void list(const std::shared_ptr<Connection>& c, const protocol::ListRooms& req,
            const nlohmann::json& id);
  // Whether `c` may seat or remove a bot at `room`: a player there, or the one who made it;
  // else the refusal, sent.
  std::optional<protocol::Code> may_seat_bots(const std::shared_ptr<Connection>& c,
                                              const Room& room, const nlohmann::json& id);
  std::optional<protocol::Code> add_bot(const std::shared_ptr<Connection>& c,
                                        const std::shared_ptr<Room>& room,
                                        const protocol::AddBot& req, const nlohmann::json& id);
  std::shared_ptr<BotSeat> make_bot(bots::Level level, const std::string& player_id);
  std::string random_hex(int bytes);
  void reply_error(const std::shared_ptr<Connection>& c, protocol::Code code, std::string message,
                   const nlohmann::json& id);

  // A room in play unloaded from memory: what the lobby still shows of it (its line in lists,
  // the seats, who created it), a few hundred bytes where the room held its whole game.
  struct Unloaded {
    const rules::Game* game = nullptr;
    int round = 1;
    bool is_private = false;
    int to_move = -1;
    Millis last_activity = 0;
    std::string creator{};  // "" when not known (a room from before the last start)
    std::vector<std::pair<std::optional<std::string>, std::string>> seats{};  // (player id, name)
    nlohmann::json clock{};                                                   // its time control
    nlohmann::json summary(const std::string& id) const;
  };
  // A room's line in a list, from memory or from an unloaded room.
  struct Line {
    const std::string* id;
    Millis active;
    const Room* room;          // or
    const Unloaded* unloaded;  // this one
    nlohmann::json summary() const;
    int to_move() const;
    protocol::Status status() const;
  };
  // The public listing, in its order, built at most once per tick and shared by every `rooms`
  // asked for until the next.
  struct Listing {
    bool built = false;
    std::vector<nlohmann::json> all;  // every public room's line
    std::map<std::string, std::vector<std::size_t>, std::less<>> by_game;  // indexes into `all`
  };
  const Listing& listing();
  std::shared_ptr<Room> load(const std::string& id, std::optional<protocol::Code>* why);
  void unload(std::map<std::string, std::shared_ptr<Room>>::iterator it);
  // A room leaves the lobby for good (closed, or dropped from memory while not in play).
  void forget_room(const std::string& id, const std::vector<std::optional<std::string>>& seated);
  void sit(const std::string& player, const std::string& room);
  // Takes a room just made or restored into memory: its move timer, its reaper, the count.
  void hold(const std::shared_ptr<Room>& room);
  void unsit(const std::string& player, const std::string& room);
  std::size_t open_rooms_of(const std::string& player);
  // Takes note of `room`'s flag, if it has a new one.
  void watch_clock(Room& room);
  // The settings every room in memory shares (the server's), with `clock` and `now`.
  RoomSettings server_settings();
  // The player's row is written (once): when they first take a seat or create a room.
  void store_player(const std::string& player);
  void sweep_players();
  // PlayerDirectory, for the accounts.
  std::optional<std::string> guest_of(const std::string& token_hash) override;
  void became_account(const std::string& player, const std::string& name) override;
  void sessions_ended(const std::vector<std::string>& token_hashes) override;
  void renamed(const std::string& player, const std::string& name) override;
  // TournamentHost, for the tournaments.
  std::expected<std::string, std::string> open_table(
      const std::string& game, const nlohmann::json& options, const nlohmann::json& clock,
      const std::vector<std::string>& players) override;
  std::vector<bool> seated(const std::string& room) override;
  void close_table(const std::string& room) override;
  void tell(const std::string& player, const std::string& frame) override;
  std::string name_of(const std::string& player) override;
  std::optional<nlohmann::json> finished_outcome(const std::string& room) override;
  bool ends_here(const std::string& room) override;
  void enter_tournament(const std::shared_ptr<Connection>& c, const protocol::TournamentEntry& t,
                        const nlohmann::json& id);
  void entered_tournament(const std::shared_ptr<Connection>& c, const protocol::TournamentEntry& t,
                          const nlohmann::json& id, const std::optional<std::string>& refused);

  std::unique_ptr<Tournaments> tournaments_;
  FinishedOutcome finished_outcome_;
  // Whether this lobby runs its tournaments now: it directs them, and (in a cluster) is not just
  // back from a stall that may have cost it their lease (Shared::may_direct).
  bool directs_now() const;
  Shared shared_;
  // The room left memory: the cluster may let its lease go.
  void released(const std::string& id) {
    if (shared_.released) shared_.released(id);
  }
  Store& store_;
  Random random_;
  LobbyLimits limits_;
  Millis now_ = 0;
  std::string games_json_;  // the games list, serialized once for every welcome
  Reaper reaper_;           // before rooms_: it outlives every room that hands it things
  std::map<std::string, std::shared_ptr<Room>> rooms_;
  std::atomic<std::size_t> room_count_{0};  // rooms_.size(), set wherever rooms_ changes
  std::map<std::string, Unloaded> unloaded_;
  std::set<std::string> quarantined_;  // rooms the store holds that do not replay: not tried again
  // Rooms closed whose close is not yet stored: not loaded again from the store meanwhile.
  std::set<std::string> closing_;
  // Where each player sits (rooms in memory and unloaded ones), and the rooms each created.
  std::unordered_map<std::string, std::vector<std::string>> tables_of_;
  std::unordered_map<std::string, std::vector<std::string>> created_by_;
  std::unordered_map<std::string, std::string> creator_of_;  // of rooms in memory
  Listing listing_;
  PerMinute creates_;
  PerMinute new_players_;
  Millis players_swept_ = 0;
  // Keyed by the token's SHA-256 as 32 bytes, not as 64 hex characters: one map entry per
  // player ever seen, so the key's own heap block would count against every connection.
  struct TokenKey {
    std::array<unsigned char, 32> bytes{};
    friend bool operator==(const TokenKey&, const TokenKey&) = default;
  };
  struct TokenKeyHash {
    std::size_t operator()(const TokenKey& k) const;  // SHA-256 bytes are uniform already
  };
  static TokenKey token_key(std::string_view hex_hash);
  // Every player the lobby knows, by id, and their ids by token.
  struct Known {
    std::string name;
    TokenKey key;
    bool stored = false;  // the store has their row
    bool seated = false;  // they took a seat once (or the store holds one): never forgotten
    int online = 0;       // connections of theirs open now
    Millis seen = 0;      // their last hello, or the end of their last connection
  };
  std::unordered_map<std::string, Known> players_;
  std::unordered_map<TokenKey, std::string, TokenKeyHash> player_by_token_;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> clients_;
  std::unordered_map<Connection*, std::set<std::string>> rooms_of_;
  Counters counters_;
  Accounts* accounts_ = nullptr;
  Ratings* ratings_ = nullptr;
  // A chat message, after the lobby's checks: the server's chat, mutes, the rate per person.
  std::optional<protocol::Code> chat(const std::shared_ptr<Connection>& c, Room& room,
                                     const protocol::Chat& req, const nlohmann::json& id);
  // Messages per person, and per address (three times as many: a family, a club's wifi), so
  // that new guests from one address cannot flood a table's chat past its cap.
  RateByKey chat_rate_, chat_rate_by_address_;
  // A round of a rated room ended: its players' ratings move.
  void rate_round(const Room& room, const nlohmann::json& outcome);
  void rate_players(const std::string& game, const std::string& room, int round,
                    const std::vector<std::string>& players, const nlohmann::json& outcome,
                    Millis at, int tries);
  bool is_account(const std::string& player) const {
    return accounts_ && accounts_->of_player(player);
  }
  // The session each connection signed in with, for those signed in to an account: ending a
  // session signs its connections out.
  struct SignedIn {
    std::string session;  // its token's hash
    std::weak_ptr<Connection> connection;
  };
  std::unordered_map<Connection*, SignedIn> session_of_;
  BotHouse bots_;
  bool bot_games_ = false;  // add_bot is open (use_bots)
  // Makes the bot that plays for a player who left (RoomSettings::stand_in); none without bots.
  decltype(RoomSettings::stand_in) stand_in_;
  std::function<Millis()> clock_;
  std::function<void(Millis)> wake_;
  // Flags to come, earliest first, and each room's: one entry per room with a clock running,
  // kept when the room leaves memory (a correspondence game can wait for days).
  std::set<std::pair<Millis, std::string>> deadlines_;
  std::unordered_map<std::string, Millis> deadline_of_;
  LatencyHistogram move_latency_;
  SpanTimer move_timer_{move_latency_};
};

}  // namespace plateau::server
