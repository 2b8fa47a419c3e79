#pragma once
// Running gnuplot without a shell, in a private scratch directory. CUDA-free.
#include <filesystem>
#include <string>

namespace gpubench::detail {

/// A fresh directory only this user can enter (mkdtemp, mode 0700) under the system's temporary
/// directory ($TMPDIR); removed with everything in it when this object goes.
class private_dir {
 public:
  private_dir();  ///< throws runtime_error when it cannot be created
  ~private_dir();
  private_dir(const private_dir&) = delete;
  private_dir& operator=(const private_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Runs `gnuplot script` (posix_spawn, no shell; stdin from /dev/null). Returns true when it
/// exited with status 0; `output` receives what it printed on stdout and stderr.
bool run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& script, const std::filesystem::path& scratch,
                 std::string& output);

}  // namespace gpubench::detail
