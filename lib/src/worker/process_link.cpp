// A worker process on a socket pair; see gpubench/worker_link.hpp.
#include "gpubench/worker_link.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "process/spawn.hpp"
#include "text/untrusted_text.hpp"
#include "gpubench/error.hpp"

extern char** environ;

namespace gpubench {

namespace {

/// The longest reply line accepted: a round of 10 000 samples with spans and clocks is about a
/// megabyte; anything near this is not a worker talking.
constexpr std::size_t kMaxReplyBytes = 64u << 20;

/// The last `lines` lines of a log, cleaned for a terminal.
std::string log_tail(const std::filesystem::path& log, std::size_t lines) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) {
    all.push_back(detail::clean_text(line, 400));
    if (all.size() > 4 * lines) all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(lines));
  }
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n    " + all[i];
  return out;
}

}  // namespace

struct process_link::impl {
  detail::private_dir dir;
  std::filesystem::path log;
  pid_t pid = -1;
  int fd = -1;  // our end of the socket pair
  std::string buffer;
  std::chrono::seconds limit;
  bool exited = false;
  int status = 0;

  [[nodiscard]] std::string why_gone(const std::string& name) {
    std::string what = name + " stopped answering";
    if (!exited && pid > 0 && ::waitpid(pid, &status, WNOHANG) == pid) exited = true;
    if (exited) {
      if (WIFEXITED(status)) what = name + " exited with code " + std::to_string(WEXITSTATUS(status));
      else if (WIFSIGNALED(status)) what = name + " was killed by signal " + std::to_string(WTERMSIG(status));
    }
    const std::string tail = log_tail(log, 12);
    return what + (tail.empty() ? " (its log is empty)" : "; the end of its log:" + tail);
  }
};

namespace {
/// This process's environment with `entries` (NAME=VALUE) in place of its own of those names.
std::vector<std::string> child_environment(const std::vector<std::string>& entries) {
  std::vector<std::string> out;
  const auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const bool replaced =
        std::any_of(entries.begin(), entries.end(), [&](const std::string& x) { return name_of(x) == name_of(entry); });
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), entries.begin(), entries.end());
  return out;
}
}  // namespace

process_link::process_link(std::filesystem::path program, std::vector<std::string> args, std::string name,
                           std::chrono::seconds reply_limit, std::vector<std::string> environment)
    : impl_(std::make_unique<impl>()), name_(std::move(name)) {
  impl_->log = impl_->dir.path() / "worker.log";
  impl_->limit = reply_limit;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw runtime_error("cannot create a socket pair for " + name_ + ": " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, impl_->log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> storage{program.filename().string()};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  std::vector<char*> envp;
  if (!environment.empty()) {
    env_storage = child_environment(environment);
    for (std::string& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  const int err = ::posix_spawn(&impl_->pid, program.c_str(), &actions, nullptr, argv.data(),
                                environment.empty() ? environ : envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(sv[1]);
  if (err != 0) {
    ::close(sv[0]);
    throw runtime_error("cannot start " + name_ + " (" + program.string() + "): " + std::strerror(err));
  }
  impl_->fd = sv[0];
}

process_link::~process_link() {
  if (impl_->fd >= 0) ::close(impl_->fd);  // end of input: a worker exits
  if (impl_->pid <= 0 || impl_->exited) return;
  for (int i = 0; i < 200; ++i) {  // up to two seconds
    if (::waitpid(impl_->pid, &impl_->status, WNOHANG) == impl_->pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(impl_->pid, SIGKILL);
  ::waitpid(impl_->pid, &impl_->status, 0);
}

void process_link::end_input() {
  // Only our side's writing ends: the worker reads end of input, and its last words can still be read.
  if (impl_->fd >= 0) ::shutdown(impl_->fd, SHUT_WR);
}

void worker_processes::let_go() {
  for (const auto& link : owned_) link->end_input();
}

worker_processes::~worker_processes() { let_go(); }

process_link& worker_processes::start(std::filesystem::path program, std::vector<std::string> args, std::string name,
                                      std::vector<std::string> environment) {
  auto link = std::make_unique<process_link>(std::move(program), std::move(args), std::move(name), kWorkerReplyLimit,
                                             std::move(environment));
  process_link& out = *link;
  owned_.push_back(std::move(link));
  return out;
}

void process_link::send(const nlohmann::ordered_json& request) {
  const std::string line = request.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    // MSG_NOSIGNAL: a worker that died answers EPIPE here instead of killing us with SIGPIPE.
    const ssize_t n = ::send(impl_->fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw runtime_error("cannot send to " + impl_->why_gone(name_));
    done += static_cast<std::size_t>(n);
  }
}

nlohmann::ordered_json process_link::receive() {
  const auto deadline = std::chrono::steady_clock::now() + impl_->limit;
  std::size_t newline;
  while ((newline = impl_->buffer.find('\n')) == std::string::npos) {
    if (impl_->buffer.size() > kMaxReplyBytes)
      throw runtime_error(name_ + " sent a reply longer than " + std::to_string(kMaxReplyBytes >> 20) +
                          " MiB: not a gpubench worker, or a broken one");
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw runtime_error(name_ + " sent no reply within " + std::to_string(impl_->limit.count()) + " s; " +
                          impl_->why_gone(name_));
    pollfd p{impl_->fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) throw runtime_error("cannot wait for " + name_ + ": " + std::strerror(errno));
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::recv(impl_->fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw runtime_error(impl_->why_gone(name_));
    impl_->buffer.append(chunk, static_cast<std::size_t>(n));
  }
  const std::string line = impl_->buffer.substr(0, newline);
  impl_->buffer.erase(0, newline + 1);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw runtime_error(name_ + " sent a line that is not a JSON object (it does not speak the worker protocol): " +
                        detail::clean_text(line.substr(0, 120), 120));
  return j;
}

namespace {
nlohmann::ordered_json checked(worker_link& link, nlohmann::ordered_json reply) {
  const auto ok = reply.find("ok");
  if (ok == reply.end() || !ok->is_boolean())
    throw runtime_error(link.name() + " sent a reply without \"ok\": it does not speak the worker protocol");
  if (ok->get<bool>()) return reply;
  std::string message = "(no message)";
  if (const auto e = reply.find("error"); e != reply.end() && e->is_string())
    message = detail::clean_text(e->get<std::string>(), detail::kMaxLongTextBytes);
  int code = static_cast<int>(exit_code::runtime_failure);
  if (const auto c = reply.find("exit"); c != reply.end() && c->is_number_integer()) {
    const int k = c->get<int>();
    if (k == 2 || k == 3) code = k;  // usage and verification keep their meaning; anything else is a failure
  }
  throw error(static_cast<exit_code>(code), link.name() + ": " + message);
}
}  // namespace

nlohmann::ordered_json worker_call_result(worker_link& link, nlohmann::ordered_json reply) {
  return checked(link, std::move(reply));
}

nlohmann::ordered_json worker_reply(worker_link& link) { return checked(link, link.receive()); }

nlohmann::ordered_json worker_call(worker_link& link, const nlohmann::ordered_json& request) {
  link.send(request);
  return worker_reply(link);
}

}  // namespace gpubench
