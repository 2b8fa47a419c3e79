#!/usr/bin/env bash
# Checks that every C++/CUDA line changed since the commit in .clang-format-base is laid out as
# .clang-format says. `git clang-format` formats only those lines, so old code keeps its layout
# until someone edits it and no file is reformatted whole. Committed and uncommitted changes both
# count (new files once `git add`ed). ctest runs this as the test format_check (label cpu).
#
# usage: scripts/check-format.sh [--fix]   (--fix: format those lines in the work tree)
# exit: 0 formatted; 1 not (the diff is printed, with the command that applies it); 2 the base
# commit is missing from a full clone; 77 skipped: clang-format or git is missing, this is not a
# git work tree, or a shallow clone lacks the base commit.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "check-format: skipped: $1" >&2
  exit 77
}

command -v git >/dev/null 2>&1 || skip "git is not installed"
git_clang_format=$(command -v git-clang-format-14 || command -v git-clang-format || true)
clang_format=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$git_clang_format" ] && [ -n "$clang_format" ] ||
  skip "clang-format is not installed (Debian/Ubuntu: apt-get install clang-format)"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "$(pwd) is not a git work tree: no changes to check"

base=$(grep -v '^#' .clang-format-base | head -n 1)
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  # A shallow clone (CI's default depth of 1, say) holds no base to diff against: nothing here can
  # be checked, which is a skip, not a pass. A full clone without it is a broken base: exit 2.
  [ "$(git rev-parse --is-shallow-repository)" = true ] &&
    skip "this clone is shallow and lacks the base commit $base (.clang-format-base); git fetch --unshallow to check"
  echo "check-format: the base commit $base (.clang-format-base) is not in this clone; fetch the history" \
       "(git fetch --unshallow, or fetch-depth: 0 in CI)" >&2
  exit 2
fi

# git clang-format diffs without rename detection, so a file moved since the base would count as
# new and be checked whole. Compare against the base with every move applied instead: a commit
# object of our own (no branch points to it) whose tree holds each moved file's old contents at
# its new path, so that only the lines edited after the move count.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git diff --no-ext-diff -M --name-status -z "$base" >"$tmp/changes"
export GIT_INDEX_FILE=$tmp/index
git read-tree "$base"
while IFS= read -r -d '' status; do
  IFS= read -r -d '' from
  [[ $status == [RC]* ]] || continue
  IFS= read -r -d '' to
  [[ $status == R* ]] || continue
  read -r mode blob stage _ < <(git ls-files -s -- "$from")
  printf '%s %s %s\t%s\n' "$mode" "$blob" "$stage" "$to" | git update-index --index-info
  git update-index --force-remove -- "$from"
done <"$tmp/changes"
moved_base=$(git commit-tree "$(git write-tree)" -p "$base" -m "check-format: $base with the moves since applied")
unset GIT_INDEX_FILE

format=("$git_clang_format" --binary "$clang_format" --style file --extensions c,h,cc,cpp,hpp,cu,cuh)
if [ "${1:-}" = "--fix" ]; then
  "${format[@]}" --force "$moved_base" --
  exit 0
fi
# git clang-format 14 exits 0 whether or not it would change anything: its diff is the verdict.
out=$("${format[@]}" --diff "$moved_base" -- 2>&1) || {
  printf '%s\n' "$out" >&2
  echo "check-format: git clang-format failed" >&2
  exit 2
}
if grep -q '^diff --git' <<<"$out"; then
  printf '%s\n' "$out"
  echo "check-format: the lines above are not laid out as .clang-format says; to fix them, run" \
       "scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: every line changed since ${base:0:12} is formatted"
