#!/bin/sh
# record-har.sh: records, with a real browser, the HAR files that
# `plantcheck judge`'s tests read (cmd/plantcheck/testdata/chromium-*.har).
# It needs node, npm and Chromium (apt-get install chromium), so CI does not
# run it; run it by hand to record them again:
#
#   scripts/record-har.sh [OUT_DIR]
#
# It installs playwright-core (which downloads no browser) into a temporary
# folder, starts `plantcheck serve` on loopback (the reference, then the
# mutant anonymous-allowed) with a test token, and has Chromium send creates
# through fetch() in a page (scripts/record-har.mjs). The test token is
# replaced by <test-token> in the files, which are then small and hold no
# secret; judge reads "Bearer <test-token>" as a bearer credential.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/cmd/plantcheck/testdata}
tmp=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$tmp"' EXIT
token=test-token-8c1f2a9d4e7b3605
port=${PORT:-18091}
(cd "$tmp" && npm init -y >/dev/null && npm install --silent playwright-core >/dev/null)
cp "$root/scripts/record-har.mjs" "$tmp/"
go build -o "$tmp/plantcheck" "$root/cmd/plantcheck"
for target in reference anonymous-allowed; do
  mutant=
  [ "$target" = reference ] || mutant="--mutant $target"
  # shellcheck disable=SC2086
  "$tmp/plantcheck" serve --addr "127.0.0.1:$port" --token "$token" $mutant 2>"$tmp/serve.log" &
  server=$!
  sleep 1
  if ! kill -0 "$server" 2>/dev/null; then
    cat "$tmp/serve.log" >&2
    exit 1
  fi
  node "$tmp/record-har.mjs" "http://127.0.0.1:$port" "$token" "$tmp/$target.har"
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  sed "s/$token/<test-token>/g" "$tmp/$target.har" > "$out/chromium-$target.har"
  echo "wrote $out/chromium-$target.har"
done
