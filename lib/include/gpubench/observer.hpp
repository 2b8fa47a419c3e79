#pragma once
/// What the engine tells the outside world while it runs: the console shows progress and
/// results, the profile writer rewrites the file after every size. CUDA-free.
#include <string_view>
#include <vector>

#include "gpubench/record.hpp"

namespace gpubench {

class run_observer {
 public:
  virtual ~run_observer() = default;
  virtual void pair_begin(const pair_def& /*pair*/) {}
  virtual void size_begin(const pair_def& /*pair*/, const size_point& /*size*/, const work& /*w*/, const ceilings& /*c*/) {}
  /// A host-timed size starts round `round` (from 0) of `rounds`: its first right after its
  /// verification, its later ones in sweeps once the other pairs are done (runner::run). Its
  /// size_begin and size_end come after the last sweep.
  virtual void sweep_round(const pair_def& /*pair*/, const size_point& /*size*/, int /*round*/, int /*rounds*/) {}
  /// A phase of one size that may take a while ("setting up", "verifying").
  virtual void phase(std::string_view /*what*/) {}
  /// Called every ~100 ms while a record samples.
  virtual void sampling(const record& /*r*/, std::size_t /*samples*/, double /*rel_noise*/, double /*elapsed_s*/) {}
  /// All records of a size are final (verified, timed, derived).
  virtual void size_end(const pair_def& /*pair*/, const std::vector<record>& /*records*/) {}
  virtual void pair_end(const pair_def& /*pair*/) {}
};

/// Forwards every call to several observers in order.
class observer_list : public run_observer {
 public:
  explicit observer_list(std::vector<run_observer*> list) : list_(std::move(list)) {}
  void pair_begin(const pair_def& p) override { for (auto* o : list_) o->pair_begin(p); }
  void size_begin(const pair_def& p, const size_point& z, const work& w, const ceilings& c) override {
    for (auto* o : list_) o->size_begin(p, z, w, c);
  }
  void sweep_round(const pair_def& p, const size_point& z, int round, int rounds) override {
    for (auto* o : list_) o->sweep_round(p, z, round, rounds);
  }
  void phase(std::string_view what) override { for (auto* o : list_) o->phase(what); }
  void sampling(const record& r, std::size_t n, double noise, double t) override {
    for (auto* o : list_) o->sampling(r, n, noise, t);
  }
  void size_end(const pair_def& p, const std::vector<record>& rs) override { for (auto* o : list_) o->size_end(p, rs); }
  void pair_end(const pair_def& p) override { for (auto* o : list_) o->pair_end(p); }

 private:
  std::vector<run_observer*> list_;
};

}  // namespace gpubench
