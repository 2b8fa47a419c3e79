#!/usr/bin/env bash
# The ctest test store_postgresql: the run store's PostgreSQL tests (StorePostgresql.* in
# tests/unit/store_postgresql_test.cpp) against a real server. The server is the one named by
# GPUBENCH_TEST_POSTGRES_URL when set (.ci/run starts one), else a throwaway cluster started here
# from the installed server binaries (.ci/postgres.sh). Nothing is installed here.
#   usage: tests/store-postgresql.sh UNIT_TEST_BINARY
#   exit:  0 passed; 1 a test failed, was skipped, or the server did not start; 77 skipped: the
#          PostgreSQL server binaries are not installed (unless GPUBENCH_REQUIRE_POSTGRES=1, as in
#          .ci/run: then that is a failure)
set -euo pipefail
tests=${1:?usage: tests/store-postgresql.sh UNIT_TEST_BINARY}
cd "$(dirname "$0")/.."
. .ci/postgres.sh
if [ -z "${GPUBENCH_TEST_POSTGRES_URL:-}" ]; then
  if ! postgres_bin >/dev/null; then
    why="PostgreSQL's server binaries (initdb, pg_ctl) are not installed (Debian: apt-get install postgresql; .ci/run installs them)"
    if [ "${GPUBENCH_REQUIRE_POSTGRES:-0}" = 1 ]; then
      echo "store-postgresql: failed: $why" >&2
      exit 1
    fi
    echo "store-postgresql: skipped: $why"
    exit 77
  fi
  postgres_start
fi
log=$(mktemp)
trap 'rm -f "$log"; postgres_stop' EXIT
status=0
"$tests" --gtest_filter='StorePostgresql.*' 2>&1 | tee "$log" || status=$?
[ "$status" -eq 0 ] || exit 1
# A skipped test here would be a server test that did not run: that is a failure.
if grep -q '^\[  SKIPPED \]' "$log"; then
  echo "store-postgresql: a PostgreSQL test was skipped although a server was given" >&2
  exit 1
fi
grep -q '^\[  PASSED  \] [1-9]' "$log" || { echo "store-postgresql: no PostgreSQL test ran" >&2; exit 1; }
