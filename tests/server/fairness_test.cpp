// Secrets and fair chance, below the room: the CSPRNG's output, and seed commitments.
#include <gtest/gtest.h>

#include <set>

#include <functional>
#include <utility>
#include "server/rooms/fairness.hpp"

#include "server/secure_random.hpp"

namespace plateau::server::testing {
namespace {

TEST(SecureRandom, HexSecretsHaveTheAskedLengthAndNeverRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 10'000; ++i) {
    const auto s = secure_random_hex(16);
    ASSERT_EQ(s.size(), 32u);
    ASSERT_EQ(s.find_first_not_of("0123456789abcdef"), std::string::npos) << s;
    ASSERT_TRUE(seen.insert(s).second) << "a 128-bit secret repeated: " << s;
  }
}

TEST(SecureRandom, EveryBitOfA64BitDrawIsUsed) {
  // A generator that filled only some bytes (or reused a buffer) would leave bits stuck.
  std::uint64_t ored = 0, anded = ~0ULL;
  for (int i = 0; i < 256; ++i) {
    const auto v = secure_random_u64();
    ored |= v;
    anded &= v;
  }
  EXPECT_EQ(ored, ~0ULL);
  EXPECT_EQ(anded, 0ULL);
}

TEST(Fairness, ACommitmentIsTheSha256OfTheSeedAndSaltAsPublished) {
  // Computed apart, with: printf 'plateau-seed/1:42:00112233445566778899aabbccddeeff' | sha256sum
  EXPECT_EQ(seed_commitment(42, "00112233445566778899aabbccddeeff"),
            "281663f7c8270fdfa277252bcd8818320c810e3a29e64cbda26701705aaec8e2");
  EXPECT_NE(seed_commitment(43, "00112233445566778899aabbccddeeff"),
            seed_commitment(42, "00112233445566778899aabbccddeeff"));
  EXPECT_NE(seed_commitment(42, "00112233445566778899aabbccddeef0"),
            seed_commitment(42, "00112233445566778899aabbccddeeff"));
}

TEST(Fairness, ARoundShowsOnlyItsCommitmentUntilItIsRevealed) {
  std::uint64_t n = 0;
  const auto secret = fresh_round_secret([&n] { return ++n * 0x0123456789abcdefULL; });
  EXPECT_EQ(secret.seed, 0x0123456789abcdefULL);
  EXPECT_EQ(secret.salt.size(), 32u);
  const auto sealed = fairness_of(secret, false), revealed = fairness_of(secret, true);
  ASSERT_TRUE(sealed && revealed);
  EXPECT_EQ(sealed->commitment, seed_commitment(secret.seed, secret.salt));
  EXPECT_EQ(revealed->commitment, sealed->commitment);
  EXPECT_TRUE(sealed->seed.empty());
  EXPECT_TRUE(sealed->salt.empty());
  EXPECT_EQ(revealed->seed, std::to_string(secret.seed));
  EXPECT_EQ(revealed->salt, secret.salt);
  const auto j = protocol::fairness_json(sealed.get());
  EXPECT_EQ(j["seed"], nullptr);
  EXPECT_EQ(j["salt"], nullptr);
  EXPECT_EQ(protocol::fairness_json(nullptr), nullptr);
  EXPECT_EQ(fairness_of(RoundSecret{7, ""}, true), nullptr)
      << "a round stored before commitments shows none";
}

TEST(SecureRandom, HexFromAGivenSourceTakesItsBytesInOrder) {
  std::uint64_t next = 0x0807060504030201ULL;
  const std::function<std::uint64_t()> source = [&] { return std::exchange(next, 0x1110ULL); };
  EXPECT_EQ(random_hex(source, 3), "010203");
  next = 0x0807060504030201ULL;
  EXPECT_EQ(random_hex(source, 10), "01020304050607081011");
}

TEST(SecureRandom, CutsUtf8AtCharactersNeverInsideOne) {
  EXPECT_EQ(utf8_chars("Zoé 🎲"), 5u);
  EXPECT_EQ(cut_utf8("Zoé 🎲", 3), "Zoé");
  EXPECT_EQ(cut_utf8("Zoé 🎲", 4), "Zoé ");
  EXPECT_EQ(cut_utf8("Zoé 🎲", 5), "Zoé 🎲");
  EXPECT_EQ(cut_utf8("Zoé 🎲", 50), "Zoé 🎲");
  EXPECT_EQ(cut_utf8("éé", 0), "");
}

}  // namespace
}  // namespace plateau::server::testing
