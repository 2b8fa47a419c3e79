// Kinetic energy of particles with eight fields: array of structures vs structure of arrays.
#include "gpubench/cuda.hpp"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;
constexpr int kFields = 8;

// One particle, 32 bytes: exactly one DRAM sector, so reading any field of it fetches all of it.
struct alignas(32) particle {
  float x, y, z, vx, vy, vz, mass, charge;
};
static_assert(sizeof(particle) == kFields * sizeof(float));

// The SoA buffer holds field f of particle i at f * n + i, fields in the struct's order.
enum field : int { kX, kY, kZ, kVx, kVy, kVz, kMass, kCharge };

// 0.5 m |v|^2 with every rounding spelled out, so both layouts compute the same bits whatever
// the compiler would otherwise contract.
__device__ __forceinline__ float kinetic_energy(float vx, float vy, float vz, float m) {
  const float v2 = __fmaf_rn(vz, vz, __fmaf_rn(vy, vy, __fmul_rn(vx, vx)));
  return __fmul_rn(__fmul_rn(0.5f, m), v2);
}

// Reads 4 of the 8 floats of each struct; the other 16 bytes of every sector come along unused.
__global__ void energy_aos(const particle* __restrict__ p, float* __restrict__ energy, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) energy[i] = kinetic_energy(p[i].vx, p[i].vy, p[i].vz, p[i].mass);
}

// Reads four dense arrays: every byte fetched is a byte used.
__global__ void energy_soa(const float* __restrict__ vx, const float* __restrict__ vy, const float* __restrict__ vz,
                           const float* __restrict__ mass, float* __restrict__ energy, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) energy[i] = kinetic_energy(vx[i], vy[i], vz[i], mass[i]);
}

// Setup only: interleaves the SoA fields into structs, so both layouts hold the same particles.
__global__ void pack_aos(const float* __restrict__ soa, particle* __restrict__ aos, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* f = soa + i;
  aos[i] = {f[kX * n], f[kY * n], f[kZ * n], f[kVx * n], f[kVy * n], f[kVz * n], f[kMass * n], f[kCharge * n]};
}

unsigned blocks_for(std::size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

struct particles_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> fields;  // the SoA layout: kFields arrays of n floats, back to back
  gpubench::device_buffer<particle> aos;
  gpubench::device_buffer<float> energy;

  particles_state(const size_point& z, const gpubench::setup_context& ctx)
      : n(std::size_t(z["particles"])), fields(kFields * n), aos(n), energy(n) {
    for (int f = 0; f < kFields; ++f) {
      const bool is_mass = f == kMass;  // positive masses, signed everything else
      gpubench::fill_uniform(field_ptr(f), n, gpubench::derive_seed(ctx.seed, f + 1), is_mass ? 0.5f : -1.f,
                             is_mass ? 2.f : 1.f, ctx.stream);
    }
    pack_aos<<<blocks_for(n), kThreads, 0, ctx.stream>>>(fields.get(), aos.get(), n);
    GPUBENCH_CHECK_LAUNCH();
  }
  [[nodiscard]] float* field_ptr(int f) const { return fields.get() + f * n; }

  gpubench::output_view output(std::string_view) const override { return {energy.get(), n}; }
};

void aos(particles_state& s, gpubench::stream_t stream) {
  energy_aos<<<blocks_for(s.n), kThreads, 0, stream>>>(s.aos.get(), s.energy.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

void soa(particles_state& s, gpubench::stream_t stream) {
  energy_soa<<<blocks_for(s.n), kThreads, 0, stream>>>(s.field_ptr(kVx), s.field_ptr(kVy), s.field_ptr(kVz),
                                                         s.field_ptr(kMass), s.energy.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<particles_state>("aos_soa", "Particle kinetic energy: array of structures vs structure of arrays")
        .explain("Each particle has eight float fields (position, velocity, mass, charge), and the kernel computes "
                 "its kinetic energy 0.5 m |v|^2, which needs only four of them. Stored as an array of 32-byte "
                 "structures, each particle is exactly one 32-byte DRAM sector, and memory moves whole sectors: "
                 "reading vx, vy, vz and mass drags position and charge through DRAM too, twice the bytes the "
                 "computation uses. Stored as a structure of arrays, each field is its own dense array, so a warp's "
                 "read of one field is 128 contiguous useful bytes and the unused fields never leave DRAM. The "
                 "same particles (built identically at setup), the same arithmetic with the same rounding, and the "
                 "same output array; only the layout of the inputs differs. The lesson generalises: lay data out "
                 "by how kernels read it, keeping together the fields that are used together.")
        .axis("particles", {1 << 20, 1 << 24, 1 << 26})
        .work([](const size_point& z) {
          // vx, vy, vz and mass read once (16 bytes), the energy written once (4 bytes);
          // 0.5 * m * (vx^2 + vy^2 + vz^2) is 3 multiplies and 2 FMAs.
          const double n = double(z["particles"]);
          return gpubench::work{.bytes = 20.0 * n, .flops = 7.0 * n, .items = n, .item_name = "particle"};
        })
        .variant("aos", "array of 32-byte particle structs: whole structs cross DRAM", aos)
        .variant("soa", "one array per field: only vx, vy, vz and mass cross DRAM", soa)
        .check(gpubench::tolerance::exact());  // same operations, same order, explicit rounding

}  // namespace
