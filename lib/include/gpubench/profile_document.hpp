#pragma once
/// A profile file's JSON document as it is, for what keeps the document itself (the run store,
/// gpubench/store.hpp); read_profile (gpubench/profile.hpp) validates it into a profile. CUDA-free.
#include <filesystem>

#include <nlohmann/json.hpp>

namespace gpubench {

/// Reads a profile file's JSON document, not yet validated (profile_from_json does that); throws
/// usage_error (exit 2) naming the file for what read_profile refuses before validation: a missing
/// file, a directory, an empty file, text that is not JSON.
nlohmann::ordered_json read_profile_document(const std::filesystem::path& path);

}  // namespace gpubench
