#!/usr/bin/env bash
# Installs what the test suite needs beyond Python packages: Debian's Chromium for the browser tests
# and bubblewrap, the arena's sandbox for untrusted bots.
# Never fails the run: without Chromium the browser tests skip, without bubblewrap the tests of the
# sandbox skip and the other arena tests run their bots unsandboxed; each says why.
set -u
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-test-env: cannot install ${missing[*]} (not root or no apt-get); the tests that need it will skip" >&2
  exit 0
fi
echo "setup-test-env: installing ${missing[*]} for the tests"
apt-get update -qq || echo "setup-test-env: apt-get update failed" >&2
for pkg in "${missing[@]}"; do
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null \
    || echo "setup-test-env: $pkg install failed; the tests that need it will skip" >&2
done
exit 0
