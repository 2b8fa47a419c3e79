#pragma once
/// How a pair declares itself, and how the driver finds it.
///
/// A pair is one file under chapters/chNN_topic/: a State class that owns the inputs and outputs
/// of one size (constructed from the size and a setup_context, destroyed after that size), and two
/// or more variants that do the same work on that state. The first variant is the baseline every
/// other one is verified against. Declaration (a complete one: examples/minimal_pair.cu):
///
///   static const gpubench::registration reg =
///       gpubench::pair<gemm_state>("batched_gemm", "40 small GEMMs: 40 launches vs one batched call")
///           .explain("...why the optimized one wins...")
///           .axis("batch", {40}).axis("m", {32, 2048})
///           .work([](const gpubench::size_point& z) { return gpubench::work{...}; })
///           .variant("baseline", "one cublasSgemm per matrix", run_individual)
///           .variant("optimized", "cublasSgemmStridedBatched", run_strided)
///           .check(gpubench::tolerance::relative(1e-6));
///
/// The folder states the chapter, once: CMake compiles every file under chapters/chNN_topic/ with
/// GPUBENCH_CHAPTER=NN and GPUBENCH_CHAPTER_SLUG="topic" (CMakeLists.txt), which pair<State>()
/// reads, and the folder's chapter.cpp gives only the title:
///   static const gpubench::registration reg = gpubench::chapter("Launch overhead, batching, ...");
/// So a new pair is one new file in its chapter's folder and no edit anywhere else.
///
/// A variant may override the pair's flop kind and tolerance (a precision ladder):
///   .variant("fp16", "cublasGemmEx, FP16 inputs", run_fp16,
///            {.flops_kind = gpubench::flop_kind::fp16, .check = gpubench::tolerance::relative(5e-3)})
///
/// A tuning pair declares a grid of launch configurations of one kernel instead of variants
/// (gpubench/tuning.hpp): `.tune(grid, "b256_e1", run)` registers one variant per configuration,
/// the named default first, as the baseline.
///
/// Code the pairs of one chapter share lives in one header in the chapter's folder, named
/// <topic>_helpers.cuh (<topic>_helpers.hpp when it holds no device code), in namespace chNN.
///
/// This header is CUDA-free (streams are forward-declared) so the registry is testable anywhere.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubench/size.hpp"
#include "gpubench/tuning.hpp"
#include "gpubench/verify.hpp"
#include "gpubench/work.hpp"

struct CUstream_st;

namespace gpubench {

using stream_t = CUstream_st*;

enum class memory_space { host, device };

/// Where a variant leaves its result; the engine poisons it before and reads it after a run.
struct output_view {
  void* data = nullptr;
  std::size_t count = 0;  ///< elements
  element_type type = element_type::f32;
  memory_space where = memory_space::device;
};

/// What a State's constructor gets.
struct setup_context {
  stream_t stream = nullptr;   ///< the stream every variant runs on
  std::uint64_t seed = 0;      ///< seed for this size's random inputs (recorded in the profile)
};

/// Named facts about how a variant launches its kernel, as the compiled kernel and the occupancy
/// calculator report them: "registers_per_thread", "theoretical_occupancy_pct", ... (the keys the
/// console knows are listed in docs/profile-schema.md; any snake_case key is kept). Stored in the
/// record and the profile; gpubench::kernel_facts (gpubench/cuda.hpp) fills one for a kernel.
using launch_facts = std::map<std::string, double>;

/// Base of every pair's per-size state.
class pair_state {
 public:
  virtual ~pair_state() = default;
  /// The output the named variant writes (may differ per variant, e.g. pageable vs pinned buffers).
  [[nodiscard]] virtual output_view output(std::string_view variant) const = 0;
  /// Further regions of the same result, for a result that lives on several GPUs (chapter 8: each
  /// GPU's copy of an all-reduce). The engine poisons every region on the device that holds it,
  /// reads each back, and verifies output() followed by these as one array against the
  /// baseline's, so every GPU's copy must match. All regions share output()'s element type.
  [[nodiscard]] virtual std::vector<output_view> extra_outputs(std::string_view /*variant*/) const { return {}; }
  /// Called before every cold sample (cache_mode::cold), outside the timed span, just before the
  /// engine flushes its own GPU's L2. A State whose variants also use other GPUs flushes their L2
  /// here and makes `stream` wait for it, so every GPU starts the sample cold. Default: nothing.
  virtual void flush_other_gpus(stream_t /*stream*/) {}
  /// The named variant's launch facts (none by default). Read after the variant's verification
  /// run, outside any timing; compute them in the constructor, never inside a variant.
  [[nodiscard]] virtual launch_facts facts(std::string_view /*variant*/) const { return {}; }
};

/// How samples are timed. Device work: CUDA events around the region. Host-driven work
/// (pageable transfers, launch loops where the host cost is the point): host wall clock around
/// the region and a stream synchronize.
enum class timing_method { cuda_events, host_wall };
/// cold: L2 flushed before every sample; hot: cache left as the previous sample left it.
enum class cache_mode { cold, hot };
const char* to_string(timing_method m);
const char* to_string(cache_mode m);

/// What a variant may declare differently from its pair. A precision ladder (FP32 → TF32 → FP16
/// → BF16) does the same FLOPs on different units, so each variant has its own peak for the floor
/// and its own tolerance against the FP32 reference.
struct variant_options {
  std::optional<flop_kind> flops_kind;  ///< the unit this variant's FLOPs run on (default: the work model's)
  std::optional<tolerance> check;       ///< tolerance against the baseline (default: the pair's)
};

struct variant_def {
  std::string name;
  std::string description;
  std::function<void(pair_state&, stream_t)> run;
  variant_options options;
  tuning_config config;  ///< a tuning pair's configuration (its name is `name`); empty otherwise
};

struct pair_def {
  int chapter = 0;
  std::string name;
  std::string title;        ///< one line
  std::string explanation;  ///< what the optimization teaches and why it wins
  std::vector<axis> axes;
  std::function<work(const size_point&)> work_model;
  std::function<std::unique_ptr<pair_state>(const size_point&, const setup_context&)> setup;
  std::vector<variant_def> variants;  ///< variants[0] is the baseline
  tolerance check = tolerance::exact();
  timing_method timing = timing_method::cuda_events;
  cache_mode cache = cache_mode::cold;
  /// Measure each variant's goodput after timing (gpubench/record.hpp, goodput_info): for pairs
  /// whose lesson is how much of a step the GPU spends computing.
  bool goodput = false;
  std::optional<tuning_grid> grid;  ///< set for a tuning pair: every variant is one of its configurations
  std::vector<std::string> declaration_problems;  ///< what the builder found wrong (validate() reports them)

  /// "ch01/batched_gemm"
  [[nodiscard]] std::string id() const;
};

struct chapter_def {
  int number = 0;
  std::string slug;   ///< folder-style name, e.g. "foundations"
  std::string title;  ///< one line
};

/// A pair this build leaves out, and why: chapter 8's NCCL pairs in a build without NCCL. `list`
/// shows it with the reason and the fix; `run` names the reason instead of "no pair".
struct absent_pair {
  int chapter = 0;
  std::string name;
  std::string title;
  std::string reason;  ///< why it is not in this build, and how to get it in

  /// "ch08/allreduce"
  [[nodiscard]] std::string id() const;
};

/// Problems found in a declaration (empty when valid).
std::vector<std::string> validate(const pair_def& def);

class registry {
 public:
  static registry& global();

  void add(pair_def def);
  void add(chapter_def def);
  void add(absent_pair a);

  /// Sorted by chapter, then name.
  [[nodiscard]] std::vector<const pair_def*> pairs() const;
  [[nodiscard]] std::vector<chapter_def> chapters() const;
  [[nodiscard]] const chapter_def* find_chapter(int number) const;
  /// Pairs left out of this build (sorted by chapter, then name), of `chapter` only when given.
  [[nodiscard]] std::vector<const absent_pair*> absent(std::optional<int> chapter = std::nullopt) const;
  /// Declarations that failed validate(): "ch01/x: problem".
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

  /// Pairs of `chapter` (all chapters when empty) restricted to `names` (all when empty).
  /// Throws usage_error listing the valid chapters / pairs when something is unknown.
  [[nodiscard]] std::vector<const pair_def*> select(std::optional<int> chapter,
                                                    const std::vector<std::string>& names) const;

 private:
  std::vector<std::unique_ptr<pair_def>> pairs_;
  std::vector<chapter_def> chapters_;
  std::vector<absent_pair> absent_;
  std::vector<std::string> problems_;
};

/// Token returned by a finished declaration; holding it in a static registers the pair.
struct registration {
  bool ok = false;
};

/// Fluent builder for a pair whose per-size state is State (derived from pair_state and
/// constructible from (const size_point&, const setup_context&)). A file under chapters/ starts
/// one with gpubench::pair<State>(name, title), which fills in the folder's chapter (below).
template <class State>
class pair_builder {
 public:
  pair_builder(int chapter, std::string name, std::string title) {
    def_.chapter = chapter;
    def_.name = std::move(name);
    def_.title = std::move(title);
    def_.setup = [](const size_point& z, const setup_context& ctx) -> std::unique_ptr<pair_state> {
      return std::make_unique<State>(z, ctx);
    };
  }
  pair_builder&& explain(std::string text) && {
    def_.explanation = std::move(text);
    return std::move(*this);
  }
  /// An axis of positive integers (element counts, MiB, ...).
  pair_builder&& axis(std::string name, std::vector<std::int64_t> values) && {
    gpubench::axis a{std::move(name), {}};
    for (auto v : values) a.values.emplace_back(v);
    def_.axes.push_back(std::move(a));
    return std::move(*this);
  }
  /// An axis of labels (e.g. a transfer direction), not numbers.
  pair_builder&& label_axis(std::string name, std::vector<std::string> labels) && {
    gpubench::axis a{std::move(name), {}};
    for (auto& v : labels) a.values.emplace_back(std::move(v));
    def_.axes.push_back(std::move(a));
    return std::move(*this);
  }
  template <class F>
  pair_builder&& work(F model) && {
    def_.work_model = std::move(model);
    return std::move(*this);
  }
  template <class F>
  pair_builder&& variant(std::string name, std::string description, F run, variant_options options = {}) && {
    def_.variants.push_back({std::move(name), std::move(description),
                             [run](pair_state& s, stream_t st) { run(static_cast<State&>(s), st); },
                             options});
    return std::move(*this);
  }
  /// A tuning pair: one variant per configuration of `grid`, the one named `baseline` first (the
  /// baseline every other configuration is verified against and compared with), then the others
  /// in grid order. `run` is called as run(State&, stream_t, const tuning_config&).
  template <class F>
  pair_builder&& tune(tuning_grid grid, const std::string& baseline, F run) && {
    std::vector<tuning_config> configs = grid.configs();
    const auto it = std::find_if(configs.begin(), configs.end(), [&](const tuning_config& c) { return c.name() == baseline; });
    if (it == configs.end())
      def_.declaration_problems.push_back("tune: the baseline '" + baseline + "' is not a configuration of the grid");
    else
      std::rotate(configs.begin(), it, it + 1);
    for (auto& c : configs) {
      std::string name = c.name(), description = grid.describe(c);
      def_.variants.push_back({std::move(name), std::move(description),
                               [run, c](pair_state& s, stream_t st) { run(static_cast<State&>(s), st, c); }, {}, c});
    }
    def_.grid = std::move(grid);
    return std::move(*this);
  }
  pair_builder&& check(tolerance tol) && {
    def_.check = tol;
    return std::move(*this);
  }
  pair_builder&& timing(timing_method m) && {
    def_.timing = m;
    return std::move(*this);
  }
  pair_builder&& cache(cache_mode m) && {
    def_.cache = m;
    return std::move(*this);
  }
  /// Also measure goodput (the GPU's kernel time over the wall time) of every variant.
  pair_builder&& goodput() && {
    def_.goodput = true;
    return std::move(*this);
  }

  /// Registers the declaration with the global registry.
  operator registration() && {  // NOLINT(google-explicit-constructor): the declaration idiom
    registry::global().add(std::move(def_));
    return {true};
  }

 private:
  pair_def def_;
};

}  // namespace gpubench

// Declarations in a file under chapters/chNN_topic/: the chapter is the folder's. These read the
// macros CMake defines for that file, so they have internal linkage (an unnamed namespace): each
// file's copy sees its own folder's number, and no two definitions of one entity differ (ODR).
#if defined(GPUBENCH_CHAPTER) && defined(GPUBENCH_CHAPTER_SLUG)
namespace gpubench {
namespace {

/// Starts the declaration of a pair of this file's chapter (see pair_builder).
template <class State>
pair_builder<State> pair(std::string name, std::string title) {
  return pair_builder<State>(GPUBENCH_CHAPTER, std::move(name), std::move(title));
}

/// Declares this folder's chapter, numbered and named by the folder (its chapter.cpp).
inline registration chapter(std::string title) {
  registry::global().add(chapter_def{GPUBENCH_CHAPTER, GPUBENCH_CHAPTER_SLUG, std::move(title)});
  return {true};
}

/// Declares a pair of this chapter that this build leaves out, with the reason and the fix
/// (see absent_pair).
inline registration absent(std::string name, std::string title, std::string reason) {
  registry::global().add(absent_pair{GPUBENCH_CHAPTER, std::move(name), std::move(title), std::move(reason)});
  return {true};
}

}  // namespace
}  // namespace gpubench
#endif
