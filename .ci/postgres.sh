# Sourced by .ci/run and tests/store-postgresql.sh: a throwaway PostgreSQL server for the run
# store's tests (tests/unit/store_postgresql_test.cpp). postgres_install installs Debian's
# postgresql package when its server binaries are missing (.ci/run does; the ctest test never
# installs anything). postgres_start makes a cluster with initdb in a temporary folder, listening
# only on a Unix socket in that folder (no TCP port, so it never clashes with another server), with
# trust authentication for the user "gpubench"; PostgreSQL refuses to run as root, so as root the
# cluster runs as the unprivileged user nobody. It exports GPUBENCH_TEST_POSTGRES_URL and stops
# the server at exit.

postgres_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

postgres_install() {
  local sudo=""
  postgres_bin >/dev/null && return 0
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "ci: installing Debian's postgresql for the run store's tests"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  postgres_bin >/dev/null || { echo "ci: postgresql installed, but initdb/pg_ctl not found" >&2; return 1; }
}

postgres_start() {
  local bin here=$PWD
  bin=$(postgres_bin) || { echo "postgres: initdb and pg_ctl not found (Debian: apt-get install postgresql)" >&2; return 1; }
  PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-pg.XXXXXX")
  PG_AS=()
  if [ "$(id -u)" -eq 0 ]; then
    chown nobody "$PG_DIR"
    PG_AS=(runuser -u nobody --)
  fi
  PG_BIN=$bin
  cd "$PG_DIR" || return 1  # as nobody, the caller's folder may be out of reach
  "${PG_AS[@]}" "$bin/initdb" -D "$PG_DIR/data" -U gpubench -A trust --no-locale -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
    { cat "$PG_DIR/initdb.log" >&2; cd "$here"; return 1; }
  "${PG_AS[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-k $PG_DIR -c listen_addresses= -c max_connections=100" start >/dev/null ||
    { cat "$PG_DIR/server.log" >&2; cd "$here"; return 1; }
  cd "$here" || return 1
  trap postgres_stop EXIT
  export GPUBENCH_TEST_POSTGRES_URL="postgresql:///postgres?host=$PG_DIR&user=gpubench"
  echo "postgres: PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') on $PG_DIR (GPUBENCH_TEST_POSTGRES_URL)"
}

postgres_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=""
}
