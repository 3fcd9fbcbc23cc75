// Provably fair chance. Each round's seed is drawn fresh from the CSPRNG with a salt; the room
// publishes the commitment SHA-256("plateau-seed/1:" + seed + ":" + salt) from the round's start
// and reveals the seed and salt when it ends, so that anyone can check that the draws were fixed
// before the first move and replay them (PROTOCOL.md, "Fair chance").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/view.hpp"

namespace plateau::server {

struct RoundSecret {
  std::uint64_t seed = 0;
  std::string salt;  // 32 hex characters (128 bits); empty for rounds stored before commitments
};

// A new round's seed and salt, from `random` (the CSPRNG in the server; tests pass their own).
RoundSecret fresh_round_secret(const std::function<std::uint64_t()>& random);

// Lower-case hex SHA-256 of "plateau-seed/1:<seed in decimal>:<salt>".
std::string seed_commitment(std::uint64_t seed, std::string_view salt);

// What a round shows of its secret: the commitment alone while it is played (`revealed` false),
// with the seed and salt once it is over; null for a round without a salt.
std::shared_ptr<const protocol::Fairness> fairness_of(const RoundSecret& secret, bool revealed);

}  // namespace plateau::server
