#include "cudalabs/generators.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace {

using cudalabs::SplitMix64;

// Published SplitMix64 outputs (the reference C code), so our generator is the standard one.
TEST(SplitMix64, MatchesReferenceOutputs) {
  EXPECT_EQ(SplitMix64(0).next(), 0xE220A8397B1DCDAFull);
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.next(), 6457827717110365317ull);
  EXPECT_EQ(rng.next(), 3203168211198807973ull);
  EXPECT_EQ(rng.next(), 9817491932198370423ull);
  EXPECT_EQ(rng.next(), 4593380528125082431ull);
  EXPECT_EQ(rng.next(), 16408922859458223821ull);
}

// Pinned values: if these change, every recorded failing seed in the course changes meaning.
TEST(Generators, FloatsArePinned) {
  const std::vector<float> v = cudalabs::uniform_floats(4, 42);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 0x1.eeb99p-2f);
  EXPECT_EQ(v[1], -0x1.5c4074p-1f);
  EXPECT_EQ(v[2], -0x1.c56cc8p-2f);
  EXPECT_EQ(v[3], -0x1.3f18f8p-2f);
}

TEST(Generators, DoublesArePinned) {
  const std::vector<double> v = cudalabs::uniform_doubles(3, 42, 0.0, 1.0);
  EXPECT_EQ(v, (std::vector<double>{0x1.7bae644c5fd6dp-1, 0x1.477f199d93378p-3, 0x1.1d499d5c4c3e6p-2}));
}

TEST(Generators, IntsArePinned) {
  EXPECT_EQ(cudalabs::uniform_ints(5, 7, 0, 99), (std::vector<int>{87, 4, 46, 3, 74}));
}

TEST(Generators, BytesArePinned) {
  EXPECT_EQ(cudalabs::random_bytes(10, 42),
            (std::vector<unsigned char>{0x95, 0x6e, 0xeb, 0x2f, 0x26, 0x32, 0xd7, 0xbd, 0x03, 0xf1}));
}

// Byte i is byte i % 8 of draw i / 8, little-endian: the raw stream laid out in memory.
TEST(Generators, BytesAreTheStreamsDraws) {
  const std::vector<unsigned char> bytes = cudalabs::random_bytes(8 * 5 + 3, 77);
  SplitMix64 rng(77);
  for (std::size_t d = 0; d < 6; ++d) {
    const std::uint64_t draw = rng.next();
    for (std::size_t k = 0; k < 8 && 8 * d + k < bytes.size(); ++k) {
      EXPECT_EQ(bytes[8 * d + k], static_cast<unsigned char>(draw >> (8 * k))) << "byte " << 8 * d + k;
    }
  }
}

// Element i is draw i of the sequential stream: random access and SplitMix64 agree.
TEST(GeneratorElements, DrawIIsTheStreamsIthValue) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1234567}, ~std::uint64_t{0}}) {
    SplitMix64 rng(seed);
    for (std::uint64_t i = 0; i < 100; ++i) EXPECT_EQ(cudalabs::element::draw(seed, i), rng.next()) << i;
  }
}

// With a span of 2^63 + 1 almost half the draws are rejected. A rejected element retries on its
// own stream, so the elements after it keep their draws (5 and 7 here follow rejected 1-4 and 6).
TEST(GeneratorElements, RejectedIntDrawsRetryWithoutShiftingLaterElements) {
  const auto range = cudalabs::element::int_range(-1, std::numeric_limits<std::int64_t>::max(), "test");
  EXPECT_EQ(range.reject_below, (std::uint64_t{1} << 63) - 1);
  const std::int64_t pinned[] = {4456085495900499603, 8978237886975091116, 5417644225680649787,
                                 2153920777024055986, 1252755677565469651, 6792609088808213252,
                                 5196717634851293992, 5545679290133000098};
  for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(cudalabs::element::uniform_int(range, 42, i), pinned[i]) << i;
  for (std::uint64_t i : {1, 2, 3, 4, 6}) EXPECT_LT(cudalabs::element::draw(42, i), range.reject_below) << i;
  for (std::uint64_t i : {0, 5, 7}) {
    EXPECT_EQ(cudalabs::element::uniform_int(range, 42, i),
              static_cast<std::int64_t>(cudalabs::element::draw(42, i) % range.span) - 1)
        << i;
  }
}

// Every value of a small range about equally often: 60,000 draws over 6 values, each count within
// 5 standard deviations (sqrt(10000 * 5/6) = 91) of 10,000.
TEST(Generators, IntsAreUnbiased) {
  std::vector<int> counts(6, 0);
  for (int v : cudalabs::uniform_ints(60000, 21, 10, 15)) ++counts.at(static_cast<std::size_t>(v - 10));
  for (int c : counts) EXPECT_NEAR(c, 10000, 5 * 91);
}

TEST(Generators, IntsShorterIsPrefixOfLonger) {
  const std::vector<int> longer = cudalabs::uniform_ints(1000, 9, -7, 1 << 30);
  EXPECT_EQ(cudalabs::uniform_ints(10, 9, -7, 1 << 30), std::vector<int>(longer.begin(), longer.begin() + 10));
}

TEST(Generators, SameSeedSameData) {
  EXPECT_EQ(cudalabs::uniform_floats(1000, 5), cudalabs::uniform_floats(1000, 5));
  EXPECT_EQ(cudalabs::uniform_doubles(1000, 5), cudalabs::uniform_doubles(1000, 5));
  EXPECT_EQ(cudalabs::uniform_ints(1000, 5, -3, 3), cudalabs::uniform_ints(1000, 5, -3, 3));
}

TEST(Generators, DifferentSeedsDifferentData) {
  EXPECT_NE(cudalabs::uniform_floats(100, 1), cudalabs::uniform_floats(100, 2));
  EXPECT_NE(cudalabs::uniform_doubles(100, 1), cudalabs::uniform_doubles(100, 2));
  EXPECT_NE(cudalabs::uniform_ints(100, 1, 0, 1000), cudalabs::uniform_ints(100, 2, 0, 1000));
}

TEST(Generators, ShorterIsPrefixOfLonger) {
  const std::vector<float> longer = cudalabs::uniform_floats(100, 9);
  const std::vector<float> shorter = cudalabs::uniform_floats(10, 9);
  EXPECT_EQ(shorter, std::vector<float>(longer.begin(), longer.begin() + 10));
}

TEST(Generators, ZeroLengthIsEmpty) {
  EXPECT_TRUE(cudalabs::uniform_floats(0, 1).empty());
  EXPECT_TRUE(cudalabs::uniform_ints(0, 1, 0, 1).empty());
  EXPECT_TRUE(cudalabs::random_bytes(0, 1).empty());
}

TEST(Generators, FloatsStayInRangeAndSpreadOut) {
  const std::vector<float> v = cudalabs::uniform_floats(1 << 20, 3, -2.0f, 6.0f);
  double sum = 0;
  float lowest = 6.0f, highest = -2.0f;
  for (float x : v) {
    ASSERT_GE(x, -2.0f);
    ASSERT_LE(x, 6.0f);
    sum += x;
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  }
  // Mean 2, standard error of the mean 8/sqrt(12)/1024 = 0.0023: 0.02 is far outside noise.
  EXPECT_NEAR(sum / static_cast<double>(v.size()), 2.0, 0.02);
  EXPECT_LT(lowest, -1.99f);
  EXPECT_GT(highest, 5.99f);
}

TEST(Generators, DoublesStayInRange) {
  for (double x : cudalabs::uniform_doubles(100000, 4, 10.0, 10.5)) {
    ASSERT_GE(x, 10.0);
    ASSERT_LE(x, 10.5);
  }
}

TEST(Generators, IntsAreInclusiveAndCoverTheRange) {
  const std::vector<int> v = cudalabs::uniform_ints(10000, 11, -2, 2);
  const std::set<int> seen(v.begin(), v.end());
  EXPECT_EQ(seen, (std::set<int>{-2, -1, 0, 1, 2}));
}

TEST(Generators, IntsHandleExtremeRanges) {
  constexpr int lo = std::numeric_limits<int>::min();
  constexpr int hi = std::numeric_limits<int>::max();
  const std::vector<int> v = cudalabs::uniform_ints(1000, 12, lo, hi);
  EXPECT_NE(std::set<int>(v.begin(), v.end()).size(), 1u);
  EXPECT_EQ(cudalabs::uniform_ints(3, 12, 5, 5), (std::vector<int>{5, 5, 5}));
}

TEST(Generators, InvalidRangesThrow) {
  EXPECT_THROW(cudalabs::uniform_ints(1, 0, 3, 2), std::invalid_argument);
  EXPECT_THROW(cudalabs::uniform_floats(1, 0, 1.0f, -1.0f), std::invalid_argument);
  EXPECT_THROW(cudalabs::uniform_floats(1, 0, 0.0f, std::numeric_limits<float>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(cudalabs::uniform_doubles(1, 0, -1e308, 1e308), std::invalid_argument);
  EXPECT_THROW(cudalabs::uniform_doubles(1, 0, std::nan(""), 1.0), std::invalid_argument);
}

}  // namespace
