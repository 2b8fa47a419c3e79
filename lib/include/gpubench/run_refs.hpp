#pragma once
/// The branch and tag names a run is recorded under in the store, found when it is recorded so
/// that `compare --base main` can name a line of history (docs/store.md, "Branches and tags").
/// CUDA-free.
#include <string>
#include <vector>

#include "gpubench/store.hpp"

namespace gpubench {

/// `run --tag` and `history import --tag` names as refs of kind "tag", each once. Throws
/// usage_error for a name that is empty, over 200 bytes or holds a control character.
std::vector<run_ref> tag_refs(const std::vector<std::string>& tags);

/// In this order, each name once:
///  * `tags`: the names given with `run --tag` (kind "tag");
///  * the CI system's branch or tag: GitHub Actions' GITHUB_HEAD_REF (a pull request's branch) or
///    GITHUB_REF_NAME (a branch, or a tag when GITHUB_REF_TYPE is "tag"), GitLab's CI_COMMIT_TAG
///    or CI_COMMIT_REF_NAME, or GPUBENCH_REF anywhere (a branch);
///  * without those, when the current directory is a git checkout whose HEAD is the commit this
///    gpubench was built from (`build_sha`, "-dirty" allowed): its branch and the tags on HEAD.
/// Throws usage_error for a `tags` entry as tag_refs does.
std::vector<run_ref> detect_run_refs(const std::vector<std::string>& tags, const std::string& build_sha);

}  // namespace gpubench
