// `ab --history`: earlier sessions' spread between pairs of workers, read back from their --json
// comparisons (gpubench/pair_history.hpp), and what a forged or repeated file gets.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpubench/pair_history.hpp"
#include "test_support.hpp"

namespace {

using ojson = nlohmann::ordered_json;
namespace fs = std::filesystem;

/// One record as `ab --json` writes it, with only the fields the history reads.
ojson record(const std::string& id, std::optional<std::pair<double, double>> spread,
             const std::string& judged_on = "cuda_events_net") {
  ojson r = {{"id", id}, {"judged_on", judged_on}};
  r["between_pairs"] = spread ? ojson{{"var", spread->first}, {"df", spread->second}} : ojson(nullptr);
  return r;
}

ojson session(const std::string& id, std::vector<ojson> records, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  ojson j = {{"devices", {{"base", gpu}, {"new", gpu}}}, {"records", records}};
  j["ab_session"] = id;
  return j;
}

struct files {
  temp_dir dir{"gpubench_pair_history"};
  std::vector<fs::path> paths;
  const fs::path& add(const ojson& j) {
    paths.push_back(dir.path / ("s" + std::to_string(paths.size()) + ".json"));
    std::ofstream(paths.back()) << j.dump(2);
    return paths.back();
  }
};

TEST(pair_history, pools_each_records_spread_over_the_sessions_by_their_degrees_of_freedom) {
  files f;
  f.add(session("a", {record("ch03/x/v[n=1]", std::pair{1e-4, 7.0}), record("ch03/x/w[n=1]", std::nullopt)}));
  f.add(session("b", {record("ch03/x/v[n=1]", std::pair{1.2e-4, 3.0}), record("ch03/x/w[n=1]", std::pair{2e-5, 7.0})}));
  const gpubench::pair_history h = gpubench::read_pair_history(f.paths);
  EXPECT_EQ(h.sessions, 2u);
  EXPECT_EQ(h.gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h.session_ids, (std::set<std::string>{"a", "b"}));
  ASSERT_EQ(h.records.size(), 2u);
  const gpubench::pair_spread& v = h.records.at("ch03/x/v[n=1]");
  EXPECT_DOUBLE_EQ(v.var, (7 * 1e-4 + 3 * 1.2e-4) / 10);
  EXPECT_DOUBLE_EQ(v.df, 10);  // they agree within their sampling: every degree of freedom counts
  EXPECT_EQ(v.sessions, 2u);
  EXPECT_EQ(v.figure, gpubench::time_source::cuda_events_net);
  const gpubench::pair_spread& w = h.records.at("ch03/x/w[n=1]");  // one session measured it
  EXPECT_DOUBLE_EQ(w.var, 2e-5);
  EXPECT_EQ(w.sessions, 1u);
}

TEST(pair_history, sessions_that_disagree_beyond_their_sampling_weigh_less) {
  // A PCIe copy's spread between pairs on an H100, eight sessions over three leases (df 3 each):
  // from 1.9e-5 to 2.9e-3. Summed, they would claim 24 degrees of freedom for a pooled 5.6e-4, and
  // a session whose pairs spread 1.2e-2 was judged slower by +10% [+2.5%, +18.1%] with nothing
  // changed.
  files f;
  const double spread[] = {1.92e-5, 9.32e-5, 1.94e-4, 7.87e-5, 2.94e-3, 9.98e-4, 4.44e-5, 1.47e-4};
  for (int i = 0; i < 8; ++i)
    f.add(session(std::string(1, static_cast<char>('a' + i)), {record("ch04/o/p[n=1]", std::pair{spread[i], 3.0})}));
  const gpubench::pair_history h = gpubench::read_pair_history(f.paths);
  const gpubench::pair_spread& p = h.records.at("ch04/o/p[n=1]");
  EXPECT_EQ(p.sessions, 8u);
  EXPECT_GT(p.df, 0.5);
  EXPECT_LT(p.df, 4);  // the fitted prior's, not 24
  double pooled = 0;
  for (double v : spread) pooled += v / 8;
  EXPECT_NEAR(p.var, pooled, 1e-12);
}

TEST(pair_history, a_host_timed_records_sessions_weigh_half_their_degrees_of_freedom) {
  // The same two sessions' spreads: a device-timed record weighs their 14 degrees of freedom, a
  // host-timed one 7, as its spreads scatter between sessions like chi^2 on about half of theirs.
  files f;
  f.add(session("a", {record("ch01/t/h[n=1]", std::pair{1e-4, 7.0}, "host_wall"),
                      record("ch01/t/d[n=1]", std::pair{1e-4, 7.0})}));
  f.add(session("b", {record("ch01/t/h[n=1]", std::pair{1.5e-4, 7.0}, "host_wall"),
                      record("ch01/t/d[n=1]", std::pair{1.5e-4, 7.0})}));
  const gpubench::pair_history h = gpubench::read_pair_history(f.paths);
  const gpubench::pair_spread& host = h.records.at("ch01/t/h[n=1]");
  const gpubench::pair_spread& device = h.records.at("ch01/t/d[n=1]");
  EXPECT_DOUBLE_EQ(device.df, 14);
  EXPECT_DOUBLE_EQ(host.df, 7);
  EXPECT_DOUBLE_EQ(host.var, device.var);  // the pooled spread itself is the same
  EXPECT_DOUBLE_EQ(host.var, 1.25e-4);
}

TEST(pair_history, sessions_that_differ_within_chance_keep_every_degree_of_freedom) {
  // A tenfold range at five degrees of freedom each is within chance for three sessions
  // (Bartlett's statistic 5.9 against 9.2 at 1%), though a prior fitted to them would claim 3.2.
  files f;
  f.add(session("a", {record("ch06/o/m[n=1]", std::pair{1e-4, 5.0})}));
  f.add(session("b", {record("ch06/o/m[n=1]", std::pair{4e-4, 5.0})}));
  f.add(session("c", {record("ch06/o/m[n=1]", std::pair{0.4e-4, 5.0})}));
  const gpubench::pair_history h = gpubench::read_pair_history(f.paths);
  EXPECT_DOUBLE_EQ(h.records.at("ch06/o/m[n=1]").df, 15);
}

TEST(pair_history, a_record_judged_on_another_figure_later_keeps_only_the_newer_sessions) {
  files f;
  f.add(session("a", {record("ch01/t/v[n=1]", std::pair{1e-2, 7.0}, "host_wall")}));
  f.add(session("b", {record("ch01/t/v[n=1]", std::pair{1e-4, 7.0})}));
  const gpubench::pair_history h = gpubench::read_pair_history(f.paths);
  const gpubench::pair_spread& s = h.records.at("ch01/t/v[n=1]");
  EXPECT_EQ(s.figure, gpubench::time_source::cuda_events_net);
  EXPECT_DOUBLE_EQ(s.var, 1e-4);
  EXPECT_EQ(s.sessions, 1u);
}

TEST(pair_history, nothing_given_is_no_history) {
  const gpubench::pair_history h = gpubench::read_pair_history({});
  EXPECT_EQ(h.sessions, 0u);
  EXPECT_TRUE(h.records.empty());
}

TEST(pair_history, a_session_takes_the_spreads_of_its_own_gpu_model_only_and_says_which) {
  files f;
  f.add(session("a", {record("ch03/x/v[n=1]", std::pair{1e-4, 7.0})}));
  f.add(session("b", {record("ch03/x/v[n=1]", std::pair{4e-4, 3.0})}));
  const gpubench::pair_history h = gpubench::read_pair_history(f.paths);
  const gpubench::pair_history_use same = gpubench::use_pair_history(h, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(same.records.size(), 1u);
  EXPECT_EQ(same.line, "history: 2 earlier sessions of NVIDIA H100 80GB HBM3; each record they measured weighs "
                       "their spread between pairs of workers");
  // Another model's workers say nothing about this one's: no record takes their spread.
  const gpubench::pair_history_use other = gpubench::use_pair_history(h, "NVIDIA H200");
  EXPECT_TRUE(other.records.empty());
  EXPECT_EQ(other.line, "history: left out, its 2 sessions ran on NVIDIA H100 80GB HBM3, this one on NVIDIA H200");
  // The history's model is read from its files: a control character in it reaches the console escaped.
  files g;
  g.add(session("c", {record("ch03/x/v[n=1]", std::pair{1e-4, 7.0})}, "GPU\x1b[2J"));
  const std::string line = gpubench::use_pair_history(gpubench::read_pair_history(g.paths), "NVIDIA H200").line;
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_NE(line.find("its 1 session ran on"), std::string::npos) << line;
}

TEST(pair_history, one_session_twice_is_refused_however_the_copy_is_named) {
  files f;
  const ojson one = session("a", {record("ch03/x/v[n=1]", std::pair{1e-4, 7.0})});
  f.add(one);
  f.add(one);
  const std::string m = usage_message([&] { gpubench::read_pair_history(f.paths); });
  EXPECT_NE(m.find("hold the same ab session (a)"), std::string::npos) << m;
  EXPECT_NE(m.find("give each session once"), std::string::npos) << m;
}

TEST(pair_history, sessions_of_two_gpu_models_or_one_session_on_two_are_refused) {
  files mixed;
  mixed.add(session("a", {}, "NVIDIA H100 80GB HBM3"));
  mixed.add(session("b", {}, "NVIDIA H200"));
  std::string m = usage_message([&] { gpubench::read_pair_history(mixed.paths); });
  EXPECT_NE(m.find("ran on NVIDIA H200, the files before it on NVIDIA H100 80GB HBM3"), std::string::npos) << m;
  files split;
  ojson j = session("a", {});
  j["devices"]["new"] = "NVIDIA H200";
  split.add(j);
  m = usage_message([&] { gpubench::read_pair_history(split.paths); });
  EXPECT_NE(m.find("an ab session runs both on one GPU"), std::string::npos) << m;
}

TEST(pair_history, what_is_not_an_ab_sessions_comparison_is_refused_with_what_to_give) {
  files f;
  ojson plain = session("a", {});
  plain["ab_session"] = nullptr;  // compare of two runs: not one session
  f.add(plain);
  std::string m = usage_message([&] { gpubench::read_pair_history(f.paths); });
  EXPECT_NE(m.find("not one `ab` session's comparison"), std::string::npos) << m;
  files profile;
  profile.add(ojson{{"schema", "gpubench.profile"}, {"records", ojson::object()}});
  m = usage_message([&] { gpubench::read_pair_history(profile.paths); });
  EXPECT_NE(m.find("not a comparison"), std::string::npos) << m;
}

TEST(pair_history, spreads_about_the_context_line_pool_only_with_their_own_kind_the_newest_kind_counting) {
  // A host-timed record's spread about the line on the workers' context levels is another estimate
  // than its spread about the mean (docs/measurement.md, "The context's level"): where the sessions
  // changed kind, only the newer ones count, as when a record's figure changed.
  const auto adjusted = [](double var) {
    return ojson{{"id", "ch01/g/optimized[n=1]"},
                 {"judged_on", "host_wall"},
                 {"between_pairs", {{"var", var}, {"df", 14.0}, {"context_adjusted", true}}}};
  };
  files f;
  f.add(session("a", {record("ch01/g/optimized[n=1]", std::pair{4e-3, 15.0}, "host_wall")}));
  f.add(session("b", {adjusted(3e-4)}));
  f.add(session("c", {adjusted(5e-4)}));
  const gpubench::pair_spread& s = gpubench::read_pair_history(f.paths).records.at("ch01/g/optimized[n=1]");
  EXPECT_TRUE(s.context_adjusted);
  EXPECT_EQ(s.sessions, 2u);
  EXPECT_DOUBLE_EQ(s.var, 4e-4);
  files plain;
  plain.add(session("a", {record("ch01/g/optimized[n=1]", std::pair{4e-3, 15.0}, "host_wall")}));
  EXPECT_FALSE(gpubench::read_pair_history(plain.paths).records.at("ch01/g/optimized[n=1]").context_adjusted);
}

TEST(pair_history, forged_spreads_and_figures_are_refused_naming_the_record) {
  const std::vector<std::pair<ojson, std::string>> cases{
      {record("ch03/x/v[n=1]", std::pair{-1e-4, 7.0}), "between_pairs.var is -0.0001"},
      {record("ch03/x/v[n=1]", std::pair{1e-4, 0.0}), "between_pairs.df is 0"},
      {record("ch03/x/v[n=1]", std::pair{1e-4, 16.0}), "between_pairs.df is 16"},
      {record("ch03/x/v[n=1]", std::pair{1e-4, 2.5}), "between_pairs.df is 2.5"},
      {record("ch03/x/v[n=1]", std::pair{1e-4, 7.0}, "sundial"), "judged_on \"sundial\""},
      {ojson{{"id", "ch03/x/v[n=1]"}, {"judged_on", "cuda_events_net"}, {"between_pairs", 3}},
       "between_pairs must be null or an object"},
      {ojson{{"judged_on", "cuda_events_net"}}, "no \"id\" string"},
      {ojson{{"id", "ch03/x/v[n=1]"},
             {"judged_on", "host_wall"},
             {"between_pairs", {{"var", 1e-4}, {"df", 7.0}, {"context_adjusted", "yes"}}}},
       "context_adjusted must be true or false"},
  };
  for (const auto& [r, expected] : cases) {
    files f;
    f.add(session("a", {r}));
    const std::string m = usage_message([&] { gpubench::read_pair_history(f.paths); });
    EXPECT_NE(m.find(expected), std::string::npos) << m;
    EXPECT_NE(m.find(f.paths[0].string()), std::string::npos) << m;
  }
  files twice;
  twice.add(
      session("a", {record("ch03/x/v[n=1]", std::pair{1e-4, 7.0}), record("ch03/x/v[n=1]", std::pair{1e-4, 7.0})}));
  const std::string m = usage_message([&] { gpubench::read_pair_history(twice.paths); });
  EXPECT_NE(m.find("appears twice"), std::string::npos) << m;
}

TEST(pair_history, devices_and_fifos_are_refused_before_a_byte_is_read) {
  temp_dir dir{"gpubench_pair_history_fifo"};
  const fs::path fifo = dir.path / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const fs::path& p : {fs::path("/dev/zero"), fifo}) {
    const std::vector<fs::path> one{p};
    const std::string m = usage_message([&] { gpubench::read_pair_history(one); });
    EXPECT_NE(m.find(p.string()), std::string::npos) << m;
  }
}

}  // namespace
