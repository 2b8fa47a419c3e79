// Console output of a run. Layout per size:
//
//   ch01/batched_gemm [batch=40,m=32,n=256,k=256]  168 MFLOP, 12.6 MB  floor 3.4 µs (fp32)
//     baseline   one cublasSgemm per matrix
//       Time (median ± noise):  212.3 µs ± 0.3%   [35 samples, cuda_events, cold L2]
//       Range (min … max):      210.1 µs … 219.8 µs
//       Throughput:             792 GFLOP/s · 59.4 GB/s · 1.6% of floor (fp32)
//   optimized ran 13.6× faster than baseline
#include "gpubench/console.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "gpubench/metrics.hpp"
#include "gpubench/speedup_interval.hpp"
#include "gpubench/text_width.hpp"
#include "report/console_launch.hpp"
#include "report/console_metrics.hpp"
#include "report/progress.hpp"

namespace gpubench {

namespace {
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kDim = "\x1b[2m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kCyan = "\x1b[36m";
}  // namespace

console_style detect_style(std::FILE* stream, bool quiet, std::FILE* progress) {
  console_style s;
  const bool tty = isatty(fileno(stream)) != 0;
  const bool progress_tty = progress == nullptr ? tty : isatty(fileno(progress)) != 0;
  const char* no_color = std::getenv("NO_COLOR");
  s.color = tty && (no_color == nullptr || *no_color == '\0');
  s.progress = tty && progress_tty && !quiet;
  s.quiet = quiet;
  s.width = console_width(stream);
  return s;
}

console_reporter::console_reporter(std::FILE* out, std::FILE* progress, console_style style)
    : out_(out), progress_(progress), style_(style) {}

std::string console_reporter::paint(const std::string& text, const char* ansi) const {
  return style_.color ? fmt::format("{}{}\x1b[0m", ansi, text) : text;
}

void console_reporter::say(std::string_view lead, std::string_view text, std::string_view breaks) {
  fmt::print(out_, "{}", wrap_with_lead(lead, text, style_.width, breaks));
}

void console_reporter::clear_progress() {
  if (!progress_shown_) return;
  fmt::print(progress_, "\r\x1b[2K");
  std::fflush(progress_);
  progress_shown_ = false;
}

double console_reporter::seconds_since(std::chrono::steady_clock::time_point t) const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void console_reporter::draw_progress() {
  if (!style_.progress) return;
  detail::progress_state p;
  p.pair_id = pair_id_;
  p.size = size_text_;
  p.activity = sweep_.empty() ? activity_ : sweep_ + " " + activity_;
  p.sizes_done = sizes_done_;
  p.sizes_total = sizes_total_;
  p.elapsed_s = seconds_since(run_start_);
  p.size_elapsed_s = in_size_ ? seconds_since(size_start_) : 0.0;
  // One column short of the terminal, so the line never wraps (a wrapped line cannot be cleared
  // with \r). 120 when the width is unknown.
  std::size_t width = 120;
  winsize ws{};
  if (ioctl(fileno(progress_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) width = ws.ws_col;
  clear_progress();
  fmt::print(progress_, "{}", detail::progress_line(p, width - 1));
  std::fflush(progress_);
  progress_shown_ = true;
}

void console_reporter::pair_begin(const pair_def& pair) {
  pair_id_ = pair.id();
  name_width_ = 9;
  for (const auto& v : pair.variants) name_width_ = std::max(name_width_, v.name.size());
  if (style_.quiet) return;
  fmt::print(out_, "\n");
  say(paint(pair.id(), kBold) + "  ", pair.title);
}

void console_reporter::size_begin(const pair_def& /*pair*/, const size_point& size, const work& w, const ceilings& /*c*/) {
  size_start_ = std::chrono::steady_clock::now();
  in_size_ = true;
  size_text_ = size.to_string();
  activity_.clear();
  sweep_.clear();
  if (style_.quiet) return;
  std::string work_text;
  if (w.flops > 0) work_text += format_si(w.flops, "FLOP");
  if (w.bytes > 0) work_text += (work_text.empty() ? "" : ", ") + format_si(w.bytes, "B") + " over " + to_string(w.path);
  if (w.items > 0) work_text += fmt::format(", {:g} {}s", w.items, w.item_name);
  say("  " + paint("[" + size.to_string() + "]", kCyan) + "  ", paint("work: " + work_text, kDim), ",");
  std::fflush(out_);
}

void console_reporter::sweep_round(const pair_def& pair, const size_point& size, int round, int rounds) {
  const std::string key = pair.id() + " " + size.to_string();
  const double share = 1.0 / std::max(1, rounds);
  // Round `round` starting means round `round - 1` of this size has ended.
  if (round > 0) {
    sizes_done_ += share;
    swept_credit_[key] += share;
  } else {
    swept_credit_[key] = 0;
  }
  pair_id_ = pair.id();
  size_text_ = size.to_string();
  size_start_ = std::chrono::steady_clock::now();
  in_size_ = true;
  activity_.clear();
  sweep_ = round > 0 ? fmt::format("round {}/{} ·", round + 1, rounds) : std::string();
  draw_progress();
}

void console_reporter::phase(std::string_view what) {
  activity_ = std::string(what) + "…";
  draw_progress();
}

void console_reporter::sampling(const record& r, std::size_t samples, double noise, double elapsed) {
  activity_ = fmt::format("sampling {}: {} samples, noise {}, {:.1f} s", r.variant, samples,
                          std::isfinite(noise) ? format_percent(noise) : std::string("n/a"), elapsed);
  draw_progress();
}

void console_reporter::print_record(const variant_def* v, const record& r) {
  const std::string name = fmt::format("{:<{}}", r.variant, name_width_);
  const std::string desc = v != nullptr ? v->description : std::string();
  switch (r.status) {
    case record_status::failed:
      say("    " + paint(name, kBold) + " ", desc);
      say("      " + paint("✗ verification failed:", kRed) + " ", r.reason);
      return;
    case record_status::error:
      say("    " + paint(name, kBold) + " ", desc);
      say("      " + paint("✗ error:", kRed) + " ", r.reason);
      return;
    case record_status::skipped:
      say("    " + paint(name, kBold) + " ", desc);
      say("      " + paint("skipped:", kYellow) + " ", r.reason);
      return;
    case record_status::profiled:
      say("    " + paint(name, kBold) + " ", desc);
      say("      ", fmt::format("ran once for a profiler; verification: {}", to_string(r.check.result)));
      return;
    case record_status::passed: break;
  }
  if (style_.quiet || !r.stats) return;
  const gpubench::summary& s = *r.stats;
  say("    " + paint(name, kBold) + " ", paint(desc, kDim));
  say("      Time (median ± noise):  ",
      fmt::format("{} ± {}   {}", paint(format_duration(s.median), kGreen), format_percent(s.rel_noise),
                  paint(fmt::format("[{} samples, {}, {}, {} L2]", s.count, to_string(r.timing.stopped),
                                    to_string(r.timing.method), to_string(r.timing.cache)),
                        kDim)));
  say("      Range (min … max):      ",
      fmt::format("{} … {}   p95 {}", format_duration(s.min), format_duration(s.max), format_duration(s.p95)));
  std::string tput;
  if (r.declared.flops > 0) tput += format_si(r.flops_per_s, "FLOP/s");
  if (r.declared.bytes > 0) tput += (tput.empty() ? "" : " · ") + format_si(r.bytes_per_s, "B/s");
  if (r.s_per_item > 0) tput += fmt::format(" · {} per {}", format_duration(r.s_per_item), r.declared.item_name);
  if (r.floor)
    tput += fmt::format(" · {} of floor ({}{})", format_percent(r.floor->fraction), r.floor->bound,
                        r.floor->above_roof() ? ", above its roof" : "");
  say("      Throughput:             ", tput);
  // Above the roof but not by enough to be suspect: say what that means (a suspect record gets
  // the stronger warning below).
  if (r.floor && r.floor->above_roof() && !r.floor->suspect)
    say("      " + paint("▲", kYellow) + " ", above_roof_reason(r.floor->bound));
  if (!r.facts.empty())
    say("      Launch:                 ", detail::launch_line(r.facts, r.metrics ? &*r.metrics : nullptr), ",");
  // A tolerance is a claim about precision: show what was actually measured against it.
  if (r.check.result == disposition::passed && r.tol.type == tolerance::kind::relative_l2)
    say("      Error vs baseline:      ", fmt::format("{:.2e} relative L2 (tolerance {:.0e}), max abs {:.2e}",
                                                      r.check.rel_l2_error, r.tol.max_rel_l2, r.check.max_abs_error));
  std::size_t throttled = 0;
  for (auto t : r.timing.throttled) throttled += t;
  if (throttled > 0)
    say("      " + paint("⚠", kYellow) + " ",
        fmt::format("{} of {} samples ran during a thermal or hardware slowdown; let the GPU cool and re-run "
                    "before trusting this number",
                    throttled, r.timing.samples_s.size()));
  // The time limit stops a round whose own noise is above the round's target; the record's noise
  // over all its samples can be well under it, so the line names both rather than call it noisy.
  if (r.timing.stopped == stop_reason::timeout)
    say("      " + paint("⚠", kYellow) + " ",
        fmt::format("a round stopped at the time limit before its noise met the round target (noise over all {} "
                    "samples: {}); raise --timeout for steadier rounds",
                    s.count, format_percent(s.rel_noise)));
  if (r.floor && r.floor->suspect)
    say("      " + paint("⚠ SUSPECT:", kRed) + " ",
        fmt::format("faster than the physical floor ({} at {}): unequal work, a stub or a cache artefact — this "
                    "result is suspect",
                    format_duration(r.floor->time_s), r.floor->bound));
  if (r.goodput) {
    const goodput_info& g = *r.goodput;
    if (g.reason.empty())
      say("      Goodput:                ",
          fmt::format("{} (GPU kernels {} of the {} timed median; CUPTI, {} traced runs{})", format_percent(g.fraction),
                      format_duration(g.kernel_s), format_duration(g.wall_s), g.runs,
                      g.wall_traced_s > 0 ? ", " + format_duration(g.wall_traced_s) + " wall while traced"
                                          : std::string()));
    else say("      Goodput:                ", paint(g.reason, kDim));
  }
  if (r.metrics) print_metrics(*r.metrics, r.declared);
}

void console_reporter::print_metrics(const metric_result& m, const work& declared) {
  if (m.status != metrics_status::collected) {
    // A run-wide reason (no permission, under ncu) was said once at the start; say it once here too.
    if (m.reason != last_metrics_reason_) say("      " + paint("Counters: not collected:", kYellow) + " ", m.reason);
    else say("      ", paint("Counters: not collected (as above)", kDim));
    last_metrics_reason_ = m.reason;
    return;
  }
  const auto lines = detail::metrics_lines(m);
  say("      Counters:               ", paint(fmt::format("[{}, {} pass{}, {}]", m.chip, m.passes,
                                                          m.passes == 1 ? "" : "es", format_duration(m.collection_s)),
                                              kDim));
  for (const auto& line : lines) say("        ", line, ",");
  if (!m.reason.empty()) say("      ", paint("note: " + m.reason, kDim));
  // Above the model's minimum is information (how far from the minimum); below it is a warning,
  // stored in the profile by the metrics pass (docs/counters.md, "Counters against the work
  // model").
  for (const auto& c : cross_check(declared, m.derived))
    if (!c.note.empty()) say("      ", paint("work model: " + c.note, kDim));
  for (const auto& w : m.warnings) say("      " + paint("⚠ work model:", kYellow) + " ", w);
  if (!m.kernels.empty())
    say("      ", paint(fmt::format("{} kernel range(s) in the profile", m.kernels.size()), kDim));
}

void console_reporter::print_tuning(const std::vector<record>& records) {
  // One line per configuration instead of a block each: a grid has tens of them. The counters
  // (run --metrics) add the achieved occupancy to the line; everything else is in the profile.
  bool counters = false;
  for (const auto& r : records) {
    const bool ok = r.status == record_status::passed;
    if (style_.quiet && ok) continue;
    const std::string row = detail::tuning_row(r, name_width_);
    if (ok) say("    ", r.tuning && r.tuning->rank == 1 ? paint(row, kGreen) : row, ",");
    else say("    ", paint(row, r.status == record_status::skipped ? kYellow : kRed), ",");
    if (!r.metrics) continue;
    if (r.metrics->status == metrics_status::collected) counters = true;
    else if (r.metrics->reason != last_metrics_reason_)
      say("      " + paint("Counters: not collected:", kYellow) + " ", r.metrics->reason);
    last_metrics_reason_ = r.metrics->reason;
    for (const auto& w : r.metrics->warnings) say("      " + paint("⚠ work model:", kYellow) + " ", w);
  }
  if (style_.quiet) return;
  std::vector<std::string> above;  // roofs some configuration beat (without being suspect), each explained once
  for (const auto& r : records)
    if (r.status == record_status::passed && r.floor && r.floor->above_roof() && !r.floor->suspect &&
        std::find(above.begin(), above.end(), r.floor->bound) == above.end())
      above.push_back(r.floor->bound);
  for (const auto& roof : above) say("    " + paint("▲", kYellow) + " ", above_roof_reason(roof));
  if (counters) say("    ", paint("counters of every configuration are in the profile", kDim));
  if (const auto s = summarize_tuning(records))
    for (const auto& line : detail::tuning_verdict(*s)) say("  ", paint(line, kBold), ",");
}

void console_reporter::size_end(const pair_def& pair, const std::vector<record>& records) {
  clear_progress();
  const std::string key = pair.id() + " " + (records.empty() ? std::string() : records.front().size.to_string());
  if (const auto it = swept_credit_.find(key); it != swept_credit_.end()) {
    sizes_done_ += 1 - it->second;  // the rest of a swept size's share
    swept_credit_.erase(it);
  } else {
    sizes_done_ += 1;
  }
  in_size_ = false;
  activity_.clear();
  sweep_.clear();
  if (pair.grid) {
    print_tuning(records);
    std::fflush(out_);
    return;
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    const variant_def* v = i < pair.variants.size() ? &pair.variants[i] : nullptr;
    print_record(v, records[i]);
  }
  if (!style_.quiet && !records.empty())
    for (std::size_t i = 1; i < records.size(); ++i)
      if (records[i].speedup) print_speedup(records[0], records[i]);
  std::fflush(out_);
}

void console_reporter::print_speedup(const record& baseline, const record& r) {
  // The speedup and its interval as the HTML report gives them (gpubench/speedup_interval.hpp):
  // from the rounds' ratios, each of which cancels its round's drift, with both records'
  // between-process terms. The point printed is that interval's own center, so it always lies
  // inside; a size whose rounds ran at different host speeds can have a ratio of pooled medians
  // outside an interval built from its rounds.
  const std::optional<ratio_interval> speedup = speedup_interval(baseline, r);
  const double x = speedup ? speedup->estimate : *r.speedup;
  const bool faster = x >= 1;
  // Colour only outside the same band (compare's default threshold): a 1.01x change is plain,
  // a slowdown whose whole interval lies beyond the band is red.
  const double band = 1 + compare_options{}.threshold;
  const double low = speedup ? speedup->low : x, high = speedup ? speedup->high : x;
  const char* colour = low > band ? kGreen : high < 1 / band ? kRed : nullptr;
  const std::string factor = format_factor(faster ? x : 1 / x);
  std::string interval;
  if (speedup)
    interval = faster
                   ? fmt::format(" (95% interval {} to {})", format_factor(speedup->low), format_factor(speedup->high))
                   : fmt::format(" (95% interval {} to {} slower)", format_factor(1 / speedup->high),
                                 format_factor(1 / speedup->low));
  say("  ", fmt::format("{} ran {} {} than {}{}", paint(r.variant, kBold), colour ? paint(factor, colour) : factor,
                        faster ? "faster" : "slower", baseline.variant, interval));
}

void console_reporter::summary(const std::vector<record>& all) {
  clear_progress();
  std::size_t passed = 0, failed = 0, errors = 0, skipped = 0, profiled = 0, suspect = 0;
  for (const auto& r : all) {
    switch (r.status) {
      case record_status::passed: ++passed; break;
      case record_status::failed: ++failed; break;
      case record_status::error: ++errors; break;
      case record_status::skipped: ++skipped; break;
      case record_status::profiled: ++profiled; break;
    }
    if (r.floor && r.floor->suspect) ++suspect;
  }
  std::string line = fmt::format("{} records: {} passed", all.size(), passed);
  if (profiled) line += fmt::format(", {} profiled", profiled);
  if (failed) line += ", " + paint(fmt::format("{} failed verification", failed), kRed);
  if (errors) line += ", " + paint(fmt::format("{} error{}", errors, errors == 1 ? "" : "s"), kRed);
  if (skipped) line += ", " + paint(fmt::format("{} skipped", skipped), kYellow);
  if (suspect) line += ", " + paint(fmt::format("{} suspect (faster than the floor)", suspect), kRed);
  fmt::print(out_, "\n");
  say("", line);
  std::fflush(out_);
}

}  // namespace gpubench
