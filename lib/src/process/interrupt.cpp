// Ctrl-C during a run (see gpubench/interrupt.hpp). The handler may run on any thread (the CUDA
// runtime has its own), so the state it shares with the writer is one lock-free atomic, and the
// messages are only changed while that state keeps the handler from reading them.
#include "gpubench/interrupt.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace gpubench {

namespace {

enum state : int {
  idle,     // the handler prints g_message and exits
  writing,  // the profile is being written: the handler marks `pending` and returns
  pending,  // a Ctrl-C came during the write: end_write() prints and exits; a second one exits now
};

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free atomic");
std::atomic<int> g_state{idle};

constexpr std::size_t kMax = 4096;
char g_message[kMax];  // "\ngpubench: interrupted; <message>\n"
std::size_t g_message_len = 0;
char g_again[kMax];
std::size_t g_again_len = 0;
struct sigaction g_previous {};

void compose(char* buf, std::size_t& len, const std::string& text) {
  static constexpr char kHead[] = "\ngpubench: interrupted; ";
  const std::size_t head = sizeof kHead - 1;
  const std::size_t body = std::min(text.size(), kMax - head - 1);
  std::memcpy(buf, kHead, head);
  std::memcpy(buf + head, text.data(), body);
  buf[head + body] = '\n';
  len = head + body + 1;
}

void write_all(const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, p, n);
    if (w <= 0) return;  // nothing sensible is left to do inside a handler
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

extern "C" void on_interrupt(int /*sig*/) {
  int expected = idle;
  if (g_state.compare_exchange_strong(expected, pending)) {
    write_all(g_message, g_message_len);
    ::_exit(kInterruptedExit);
  }
  if (expected == writing && g_state.compare_exchange_strong(expected, pending)) return;
  // Already pending: the user asked twice, do not wait for the write.
  write_all(g_again, g_again_len);
  ::_exit(kInterruptedExit);
}

}  // namespace

interrupt_guard::interrupt_guard(const std::string& message) {
  compose(g_message, g_message_len, message);
  compose(g_again, g_again_len, message);
  g_state.store(idle);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the writer's system calls continue while a Ctrl-C waits
  sigaction(SIGINT, &sa, &g_previous);
}

interrupt_guard::~interrupt_guard() { sigaction(SIGINT, &g_previous, nullptr); }

void interrupt_guard::begin_write(const std::string& message_if_again) {
  // While idle the handler reads only g_message (g_again only once a first Ctrl-C has been seen).
  compose(g_again, g_again_len, message_if_again);
  int expected = idle;
  if (!g_state.compare_exchange_strong(expected, writing)) {
    // A Ctrl-C is being handled right now (the handler is printing and exiting): wait for it.
    for (;;) ::pause();
  }
}

void interrupt_guard::end_write(const std::string& message) {
  compose(g_message, g_message_len, message);
  int expected = writing;
  if (g_state.compare_exchange_strong(expected, idle)) return;
  // A Ctrl-C came during the write, which is complete now.
  write_all(g_message, g_message_len);
  ::_exit(kInterruptedExit);
}

}  // namespace gpubench
