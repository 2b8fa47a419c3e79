// What a point above its roof means. A roof is a bound only for the work it describes: the work
// model's minimum bytes from DRAM and operations on one kind of unit, at the clocks the roof was
// taken at. A result above it shows which of those assumptions the run broke, never a unit faster
// than its peak.
#include <string>

#include "gpubench/record.hpp"

namespace gpubench {

std::string above_roof_reason(const std::string& roof) {
  if (roof == "dram")
    return "above the DRAM roof: part of the data came from L2, not DRAM (a working set that stays in L2 "
           "between samples), or the access pattern beats the measured copy kernel";
  if (roof == "pcie" || roof == "pcie_duplex" || roof == "peer" || roof == "peer_duplex")
    return "above the " + roof +
           " roof: the roof is one measured copy pattern (or the link's paper rate), "
           "which a longer or better-overlapped transfer can beat";
  return "above the " + roof +
         " roof: the variant does fewer operations than the work model counts, runs "
         "them on faster units than " +
         roof +
         ", or ran at higher clocks than the roof's (a measured roof is "
         "one cuBLAS GEMM at the clocks of its run)";
}

}  // namespace gpubench
