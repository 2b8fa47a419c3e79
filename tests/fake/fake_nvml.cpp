// A stand-in for libnvidia-ml.so.1 with two GPUs and an NVLink fabric, for the CPU tests of the
// NVML wrapper's link queries (tests/unit/peer_link_test.cpp). Loaded by path with dlopen, like
// the real library. FAKE_NVML_TOPOLOGY (read at nvmlInit_v2) picks the fabric:
//   "switch" (default): GPU 0 at 0000:18:00.0 and GPU 1 at 0000:2a:00.0, 18 active links each,
//                       all to NVSwitches (bus 0xa0 + link), NVLink P2P OK, PCIe SYS apart;
//   "direct":           4 active links from each GPU to the other, PCIe PHB apart;
//   "pcie":             no NVLink (the state query fails as on a GPU without it), PCIe PIX.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct fake_gpu {
  unsigned bus;
};
fake_gpu gpus[2] = {{0x18}, {0x2a}};
std::string topology = "switch";

struct pci_info {  // nvmlPciInfo_t as the _v2 calls fill it
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

int index_of(void* handle) { return handle == &gpus[0] ? 0 : handle == &gpus[1] ? 1 : -1; }

}  // namespace

extern "C" {

int nvmlInit_v2() {
  const char* t = std::getenv("FAKE_NVML_TOPOLOGY");
  topology = t != nullptr ? t : "switch";
  return 0;
}
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int) { return "fake NVML error"; }

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** handle) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return 2;  // INVALID_ARGUMENT
  for (auto& g : gpus)
    if (g.bus == bus && domain == 0 && device == 0) {
      *handle = &g;
      return 0;
    }
  return 6;  // NOT_FOUND
}

int nvmlDeviceGetTopologyCommonAncestor(void* a, void* b, int* level) {
  if (index_of(a) < 0 || index_of(b) < 0) return 2;
  *level = topology == "switch" ? 50 : topology == "direct" ? 30 : 10;
  return 0;
}

int nvmlDeviceGetP2PStatus(void* a, void* b, int caps, int* status) {
  if (index_of(a) < 0 || index_of(b) < 0) return 2;
  *status = caps == 2 /* NVLINK */ && topology == "pcie" ? 5 /* NOT_SUPPORTED */ : 0;
  return 0;
}

int nvmlDeviceGetNvLinkState(void* d, unsigned link, int* active) {
  if (index_of(d) < 0 || link >= 18) return 2;
  if (topology == "pcie") return 3;  // NOT_SUPPORTED: no NVLink on this GPU
  *active = topology == "switch" ? 1 : link < 4 ? 1 : 0;
  return 0;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* d, unsigned link, pci_info* pci) {
  const int i = index_of(d);
  if (i < 0 || link >= 18 || topology == "pcie") return 2;
  std::memset(pci, 0, sizeof(*pci));
  pci->bus = topology == "switch" ? 0xa0 + link : gpus[1 - i].bus;
  std::snprintf(pci->bus_id, sizeof(pci->bus_id), "00000000:%02x:00.0", pci->bus);
  return 0;
}

}  // extern "C"
