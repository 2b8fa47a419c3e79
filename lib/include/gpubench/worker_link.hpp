#pragma once
/// A coordinator's connection to one worker (gpubench/worker_protocol.hpp): a `gpubench worker`
/// process on pipes, or, in tests, a worker in the same process. CUDA-free.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

class worker_link {
 public:
  virtual ~worker_link() = default;
  virtual void send(const nlohmann::ordered_json& request) = 0;
  /// The next reply. Throws runtime_error (exit 1) when the worker has died, sent no reply within
  /// the link's time limit, or sent something that is not one JSON object on one bounded line.
  virtual nlohmann::ordered_json receive() = 0;
  /// How messages name this worker: "worker 2 of NEW (build/gpubench)".
  [[nodiscard]] virtual const std::string& name() const = 0;
};

/// Sends `request` and returns the reply once it says "ok"; a failed reply throws
/// gpubench::error with the worker's message and exit code.
nlohmann::ordered_json worker_call(worker_link& link, const nlohmann::ordered_json& request);
/// The reply to a request already sent with send(), checked as worker_call checks it.
nlohmann::ordered_json worker_reply(worker_link& link);
/// Checks a reply already received from `link`: returns it when it says "ok", else throws as
/// worker_call does.
nlohmann::ordered_json worker_call_result(worker_link& link, nlohmann::ordered_json reply);

/// How long one reply of a worker may take unless told otherwise: a round of a large size can take
/// minutes.
inline constexpr std::chrono::seconds kWorkerReplyLimit{900};

/// A `gpubench worker` process started from `program` (no shell), talking over pipes. Its stderr
/// goes to a log in a private directory; when it dies or hangs, the error carries the log's last
/// lines. The destructor closes its stdin, which ends a worker, and kills one that does not exit
/// within two seconds; end_input() closes it sooner (worker_processes, below).
class process_link final : public worker_link {
 public:
  /// `args`: the worker's command line after the program name ("worker"). `reply_limit`: how long
  /// one reply may take. `environment`: NAME=VALUE entries that the worker gets in place of, or
  /// beside, this process's own.
  process_link(std::filesystem::path program, std::vector<std::string> args, std::string name,
               std::chrono::seconds reply_limit = kWorkerReplyLimit, std::vector<std::string> environment = {});
  ~process_link() override;
  process_link(const process_link&) = delete;
  process_link& operator=(const process_link&) = delete;

  void send(const nlohmann::ordered_json& request) override;
  nlohmann::ordered_json receive() override;
  [[nodiscard]] const std::string& name() const override { return name_; }
  /// Closes the worker's stdin: it finishes and exits. The link sends nothing more; the
  /// destructor still waits for the exit.
  void end_input();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::string name_;
};

/// Owns worker processes and lets them all go at once when it goes: every worker's input ends
/// before any is waited for, so that they tear down their CUDA contexts at the same time. Links
/// destroyed one by one would each wait for their own worker's exit (about 0.1 s a worker, and
/// 0.5 s for one holding a GiB of pinned host memory) before the next worker is told to go.
class worker_processes {
 public:
  worker_processes() = default;
  ~worker_processes();
  worker_processes(const worker_processes&) = delete;
  worker_processes& operator=(const worker_processes&) = delete;
  /// Starts a worker (process_link's arguments) and returns its link, owned here.
  process_link& start(std::filesystem::path program, std::vector<std::string> args, std::string name,
                      std::vector<std::string> environment = {});
  /// Ends every worker's input now, so that they exit while the caller goes on.
  void let_go();

 private:
  std::vector<std::unique_ptr<process_link>> owned_;
};

}  // namespace gpubench
