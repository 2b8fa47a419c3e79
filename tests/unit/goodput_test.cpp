// Goodput in the profile: it round-trips, and a fraction that is not kernel_s / wall_s (an edited
// profile) or a reason-less unmeasured entry is refused with the record named.
#include <gtest/gtest.h>

#include "gpubench/profile.hpp"
#include "test_support.hpp"

using namespace gpubench;

namespace {

profile with_goodput(const goodput_info& g) {
  profile p;
  p.prov.device.name = "Test GPU";
  p.complete = true;
  record r;
  r.chapter = 1;
  r.pair = "training_step";
  r.variant = "graph";
  r.size = size_point({{"batch", 32}, {"steps", 16}});
  r.status = record_status::passed;
  r.timing.method = timing_method::host_wall;
  r.timing.source = time_source::host_wall;
  r.timing.samples_s = {2e-3, 2.1e-3, 2.2e-3};
  r.stats = summarize(r.timing.samples_s);
  r.goodput = g;
  p.records.push_back(r);
  return p;
}

}  // namespace

TEST(Goodput, RoundTripsThroughTheProfile) {
  const profile back = profile_from_json(to_json(with_goodput({0.4, 0.8e-3, 2e-3, 5, ""})), "g.json");
  ASSERT_TRUE(back.records[0].goodput);
  EXPECT_DOUBLE_EQ(back.records[0].goodput->fraction, 0.4);
  EXPECT_DOUBLE_EQ(back.records[0].goodput->kernel_s, 0.8e-3);
  EXPECT_EQ(back.records[0].goodput->runs, 5);
  const profile unmeasured = profile_from_json(to_json(with_goodput({0, 0, 0, 0, "CUPTI activity records unavailable"})), "g.json");
  EXPECT_EQ(unmeasured.records[0].goodput->reason, "CUPTI activity records unavailable");
}

TEST(Goodput, AnEditedFractionIsRefused) {
  auto j = to_json(with_goodput({0.4, 0.8e-3, 2e-3, 5, ""}));
  j["records"][0]["goodput"]["fraction"] = 0.9;
  const std::string why = usage_message([&] { profile_from_json(j, "g.json"); });
  EXPECT_NE(why.find("goodput.fraction"), std::string::npos) << why;
  EXPECT_NE(why.find("kernel_s / wall_s"), std::string::npos) << why;
  auto k = to_json(with_goodput({0.4, 0.8e-3, 2e-3, 5, ""}));
  k["records"][0]["goodput"]["wall_s"] = 0;
  EXPECT_NE(usage_message([&] { profile_from_json(k, "g.json"); }).find("wall_s"), std::string::npos);
}

// Since the wall time became the record's untraced timed median, the traced runs' wall is kept
// beside it; the reader then holds wall_s to the record's median, and still reads older profiles
// (no wall_traced_s) as they were written.
TEST(Goodput, TheWallIsTheRecordsMedianWithTheTracedWallBeside) {
  goodput_info g{0.8e-3 / 2.1e-3, 0.8e-3, 2.1e-3, 5, ""};
  g.wall_traced_s = 2.8e-3;
  const profile back = profile_from_json(to_json(with_goodput(g)), "g.json");
  ASSERT_TRUE(back.records[0].goodput);
  EXPECT_DOUBLE_EQ(back.records[0].goodput->wall_traced_s, 2.8e-3);
  EXPECT_DOUBLE_EQ(back.records[0].goodput->wall_s, back.records[0].stats->median);

  goodput_info edited{0.8e-3 / 1.5e-3, 0.8e-3, 1.5e-3, 5, ""};
  edited.wall_traced_s = 2.8e-3;
  const std::string why = usage_message([&] { profile_from_json(to_json(with_goodput(edited)), "g.json"); });
  EXPECT_NE(why.find("goodput.wall_s"), std::string::npos) << why;
  EXPECT_NE(why.find("median"), std::string::npos) << why;

  const profile older = profile_from_json(to_json(with_goodput({0.4, 0.8e-3, 2e-3, 5, ""})), "g.json");
  EXPECT_EQ(older.records[0].goodput->wall_traced_s, 0);
}
