// The latency histogram behind /metrics: buckets, and Prometheus' text format.
#include <gtest/gtest.h>

#include <sstream>

#include "server/histogram.hpp"

namespace plateau::server {
namespace {

TEST(LatencyHistogram, EachSampleLandsInTheFirstBucketThatHoldsIt) {
  LatencyHistogram h;
  h.record_us(100);        // exactly 0.1 ms: the first bucket (bounds are inclusive)
  h.record_us(101);        // just past it: 0.25 ms
  h.record_us(7'400);      // 7.5 ms
  h.record_us(2'000'000);  // past 1 s: +Inf
  h.record_us(-5);         // a clock that went back counts as zero
  EXPECT_EQ(h.count(), 5u);
  EXPECT_EQ(h.bucket(0), 2u);
  EXPECT_EQ(h.bucket(1), 1u);
  EXPECT_EQ(h.bucket(9), 1u);
  EXPECT_EQ(LatencyHistogram::kBucketsMs[9], 7.5);
  EXPECT_EQ(h.bucket(LatencyHistogram::kBucketsMs.size()), 1u);
}

TEST(LatencyHistogram, WritesCumulativeBucketsInSecondsWithSumAndCount) {
  LatencyHistogram h;
  h.record_us(300);
  h.record_us(300);
  h.record_us(4'000);
  std::ostringstream out;
  h.write(out, "x_seconds", "Help text.");
  const auto text = out.str();
  EXPECT_NE(text.find("# HELP x_seconds Help text.\n# TYPE x_seconds histogram\n"),
            std::string::npos);
  EXPECT_NE(text.find("x_seconds_bucket{le=\"0.00025\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("x_seconds_bucket{le=\"0.0005\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("x_seconds_bucket{le=\"0.003\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("x_seconds_bucket{le=\"0.005\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("x_seconds_bucket{le=\"+Inf\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("x_seconds_sum 0.0046\n"), std::string::npos);
  EXPECT_NE(text.find("x_seconds_count 3\n"), std::string::npos);
}

}  // namespace
}  // namespace plateau::server
