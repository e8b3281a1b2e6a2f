#!/usr/bin/env bash
# Installs and starts what the test suite needs beyond Python packages (`make test` runs it):
# - Debian's Chromium, for the browser tests;
# - axe-core (the npm package, version $AXE_VERSION) in .cache/npm, the accessibility checks the
#   browser tests run in the page (without npm, or offline, those checks skip);
# - bubblewrap, the arena's sandbox for untrusted bots (without it the tests of the sandbox skip and
#   the other arena tests run their bots unsandboxed, saying so);
# - a throwaway PostgreSQL server, for the results-store tests: a cluster of its own in
#   $SYLVER_PGTEST_DIR (default /tmp/sylver-pgtest-UID), listening on 127.0.0.1 on a free port,
#   without fsync; its URL (with a random password) is written to $SYLVER_PGTEST_DIR/url, where the
#   tests read it.  Later runs reuse the running server; `bash scripts/setup-test-env.sh stop`
#   stops it and deletes its directory.
# Never fails the run: what cannot be installed or started makes its tests skip with a clear message
# (for PostgreSQL the reason is in $SYLVER_PGTEST_DIR.why).
set -u

PG_DIR="${SYLVER_PGTEST_DIR:-/tmp/sylver-pgtest-$(id -u)}"
PG_WHY="$PG_DIR.why"
APT_UPDATED=0
AXE_VERSION=4.14.1
AXE_DIR="$(cd "$(dirname "$0")/.." && pwd)/.cache/npm"

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

apt_install() {
  can_apt || return 1
  if [ "$APT_UPDATED" = 0 ]; then
    apt-get update -qq || return 1
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

setup_chromium() {
  command -v chromium >/dev/null 2>&1 && return 0
  if ! can_apt; then
    echo "setup-test-env: cannot install chromium (not root or no apt-get); browser tests will skip" >&2
    return 0
  fi
  echo "setup-test-env: installing chromium for the browser tests"
  apt_install chromium || echo "setup-test-env: chromium install failed; browser tests will skip" >&2
}

setup_axe() {  # axe-core, pinned, in the project's .cache/npm (ignored by git)
  local installed
  installed=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$AXE_DIR/node_modules/axe-core/package.json" 2>/dev/null | head -n 1)
  [ "$installed" = "$AXE_VERSION" ] && return 0
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup-test-env: npm not found; the accessibility checks (axe-core) will skip" >&2
    return 0
  fi
  echo "setup-test-env: installing axe-core $AXE_VERSION into $AXE_DIR for the accessibility checks"
  mkdir -p "$AXE_DIR" && npm install --prefix "$AXE_DIR" --no-save --no-audit --no-fund --loglevel=error \
    "axe-core@$AXE_VERSION" >/dev/null \
    || echo "setup-test-env: npm install axe-core failed; the accessibility checks will skip" >&2
  return 0
}

# -- PostgreSQL ----------------------------------------------------------------------------------
pg_fail() {
  echo "setup-test-env: $*; the PostgreSQL store tests will skip" >&2
  echo "$*" >"$PG_WHY" 2>/dev/null
  return 0
}

setup_bubblewrap() {
  command -v bwrap >/dev/null 2>&1 && return 0
  if ! can_apt; then
    echo "setup-test-env: cannot install bubblewrap (not root or no apt-get); the arena's sandbox tests will skip" >&2
    return 0
  fi
  echo "setup-test-env: installing bubblewrap for the arena's sandbox"
  apt_install bubblewrap || echo "setup-test-env: bubblewrap install failed; the arena's sandbox tests will skip" >&2
  return 0
}

pg_bindir() {  # the newest installed server's bin directory, or nothing
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  d=$(command -v initdb 2>/dev/null) && dirname "$d"
}

as_owner() {  # the server must not run as root: as root, run it as the postgres user
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
    || echo $((20000 + RANDOM % 20000))
}

setup_postgres() {
  rm -f "$PG_WHY"
  local bin
  bin=$(pg_bindir)
  if [ -z "$bin" ]; then
    can_apt || { pg_fail "PostgreSQL is not installed and cannot be (not root or no apt-get)"; return; }
    echo "setup-test-env: installing PostgreSQL for the results-store tests"
    # no default cluster on port 5432: the tests run a throwaway server of their own
    apt_install postgresql-common \
      && sed -i 's/^#* *create_main_cluster *=.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf
    apt_install postgresql || { pg_fail "apt-get install postgresql failed"; return; }
    bin=$(pg_bindir)
    [ -n "$bin" ] || { pg_fail "no initdb found after installing postgresql"; return; }
  fi
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    pg_fail "running as root and there is no postgres user to run the server as"
    return
  fi
  if [ -f "$PG_DIR/url" ] && as_owner "$bin/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; then
    return  # already running (started by an earlier run)
  fi
  if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
    rm -rf "$PG_DIR"
    mkdir -p "$PG_DIR" && chmod 700 "$PG_DIR" || { pg_fail "cannot create $PG_DIR"; return; }
    ( umask 077; od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$PG_DIR/password" )
    [ "$(id -u)" = 0 ] && chown -R postgres: "$PG_DIR"
    as_owner "$bin/initdb" -D "$PG_DIR/data" -U sylver -E UTF8 --locale=C --auth-local=trust \
      --auth-host=scram-sha-256 --pwfile="$PG_DIR/password" >"$PG_DIR/initdb.log" 2>&1 \
      || { pg_fail "initdb failed (see $PG_DIR/initdb.log)"; return; }
  fi
  local port
  port=$(free_port)
  as_owner "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 -o \
    "-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB -c max_connections=60" \
    start >/dev/null || { pg_fail "the PostgreSQL server did not start (see $PG_DIR/server.log)"; return; }
  ( umask 077; printf 'postgresql://sylver:%s@127.0.0.1:%s/postgres\n' "$(cat "$PG_DIR/password")" "$port" >"$PG_DIR/url" )
  echo "setup-test-env: PostgreSQL test server on 127.0.0.1:$port (data in $PG_DIR; stop: bash $0 stop)"
}

stop_postgres() {
  local bin
  bin=$(pg_bindir)
  if [ -n "$bin" ] && [ -f "$PG_DIR/data/PG_VERSION" ]; then
    as_owner "$bin/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1
  fi
  rm -rf "$PG_DIR" "$PG_WHY"
}

if [ "${1:-}" = stop ]; then
  stop_postgres
  exit 0
fi
setup_chromium
setup_axe
setup_bubblewrap
setup_postgres
exit 0
