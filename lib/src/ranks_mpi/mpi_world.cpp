// MPI_COMM_WORLD as a rank_group (gpubench/mpi_world.hpp): the C API (the C++ bindings are gone
// from MPI 3), the host's processes found with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), and
// every length checked against MPI's int counts.
#include <climits>
#include <string>

#include <fmt/format.h>
#include <mpi.h>

#include "gpubench/error.hpp"
#include "gpubench/mpi_world.hpp"

namespace gpubench {

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw runtime_error(fmt::format("{} failed: {}", what, std::string(text, std::size_t(len))));
}

int count_of(std::size_t n, const char* what) {
  if (n > std::size_t(INT_MAX))
    throw runtime_error(fmt::format("{}: {} bytes is more than one MPI message holds", what, n));
  return int(n);
}

class mpi_world final : public rank_group {
 public:
  mpi_world() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided), "MPI_Init_thread");
      owns_ = true;
    }
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_),
          "MPI_Comm_split_type");
    check(MPI_Comm_rank(host_, &local_rank_), "MPI_Comm_rank (host)");
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);
    library_ = std::string(version, std::size_t(len));
    library_ = library_.substr(0, library_.find_first_of(",\n"));
  }
  ~mpi_world() override {
    release_slots();  // communicators the pairs built, while MPI and the GPU are still up
    MPI_Comm_free(&host_);
    if (owns_) MPI_Finalize();
  }
  mpi_world(const mpi_world&) = delete;
  mpi_world& operator=(const mpi_world&) = delete;

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] int local_rank() const override { return local_rank_; }
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  void broadcast(std::span<std::byte> bytes, int root) override {
    check(MPI_Bcast(bytes.data(), count_of(bytes.size(), "broadcast"), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  std::vector<double> max(std::span<const double> values) override {
    std::vector<double> out(values.size());
    check(MPI_Allreduce(values.data(), out.data(), count_of(values.size(), "max"), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    return out;
  }
  std::vector<std::string> all_gather(const std::string& text) override {
    const int mine = count_of(text.size(), "all_gather");
    std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&mine, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[std::size_t(r)] = count_of(total, "all_gather");
      total += std::size_t(lengths[std::size_t(r)]);
    }
    std::string all(total, '\0');
    check(MPI_Allgatherv(text.data(), mine, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                         MPI_COMM_WORLD),
          "MPI_Allgatherv");
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(std::size_t(offsets[std::size_t(r)]), std::size_t(lengths[std::size_t(r)])));
    return out;
  }
  [[nodiscard]] std::string describe() const override { return fmt::format("MPI ({}), {} ranks", library_, size_); }

 private:
  bool owns_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  MPI_Comm host_ = MPI_COMM_NULL;
  std::string library_;
};

}  // namespace

std::unique_ptr<rank_group> open_mpi_world() { return std::make_unique<mpi_world>(); }

}  // namespace gpubench
