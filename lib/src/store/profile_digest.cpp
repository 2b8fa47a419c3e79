// The identities of a stored profile: the content hash that keeps a document from being stored
// twice, and the options digest that says which runs are comparable (gpubench/store.hpp).
#include <array>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "gpubench/error.hpp"
#include "gpubench/store.hpp"

namespace gpubench {

namespace {

std::string sha256_hex(const std::string& text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    throw runtime_error("SHA-256 failed (OpenSSL's EVP_Digest)");
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace

std::string profile_content_hash(const nlohmann::ordered_json& document) { return sha256_hex(document.dump()); }

std::string profile_options_digest(const nlohmann::ordered_json& options) {
  // nlohmann::json (not ordered_json) keeps keys sorted, so the order a writer used does not
  // matter. The seed changes every run, the device ordinal names a slot rather than a GPU (the GPU
  // model is compared on its own), and confirm names a file: none changes what is measured.
  nlohmann::json sorted = nlohmann::json::parse(options.dump());
  if (sorted.is_object())
    for (const char* key : {"seed", "device", "confirm"}) sorted.erase(key);
  return sha256_hex(sorted.dump()).substr(0, 16);
}

}  // namespace gpubench
