#!/usr/bin/env bash
# `activate token` with a valid cached token on an unlocked store, side by side with the floor
# (`cat` of a small file), `gh auth token` (GitHub's CLI reading its stored token) and `age -d` of
# a small file; then the cost of a refresh against a local glewlwyd (`make bench-token`).
#
#   benchmarks/token.sh [RUNS]     (hyperfine, RUNS runs each, default 100; 20 for the refresh)
#
# `activate` is built as the Debian package is. The store is made by a real sign-in: glewlwyd on a free loopback port (Tests/Servers), the
# scripted browser as $BROWSER, a policy with a one-hour lock timeout; one restore with the
# passcode unlocks it (the kernel keyring keeps the key), as a user's first command would.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
# Built as the Debian package builds it (scripts/make-deb.sh): the Swift runtime linked in, which
# halves the start of a process that does this little.
activate=$(scripts/release-build.sh activate)/activate
work=$(mktemp -d)
idp=""
trap '[ -n "$idp" ] && kill -9 "$idp" 2>/dev/null; rm -rf "$work"' EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redirect="http://127.0.0.1:$port/callback"
python3 Tests/Servers/glewlwyd_server.py "$work/idp" --redirect-uri "$redirect" > "$work/idp.json" 2>"$work/idp.err" &
idp=$!
for _ in $(seq 100); do [ -s "$work/idp.json" ] && break; sleep 0.1; done
field() { python3 -c "import json, sys; print(json.load(open('$work/idp.json'))['$1'])"; }
base="http://localhost:$(field port)"
cat > "$work/browser.sh" <<SCRIPT
#!/bin/sh
exec python3 '$PWD/Tests/Servers/idp_browser.py' glewlwyd --base '$base' --user '$(field user)' --password '$(field password)' "\$1"
SCRIPT
chmod 700 "$work/browser.sh"
cat > "$work/configuration.json" <<JSON
{"host": "localhost", "appID": "com.example.app", "auth": [{"type": "oauth2", "config": {
  "oauth2.authorizationEndpoint": "$(field authorization_endpoint)", "oauth2.tokenEndpoint": "$(field token_endpoint)",
  "oauth2.revocationEndpoint": "$(field revocation_endpoint)",
  "oauth2.clients": [{"clientID": "$(field client_id)", "redirectURL": "$redirect", "scope": "$(field scope)"}]}}]}
JSON
printf '{"passwordPolicy": {"passwordPolicyLockTimeout": "3600"}}' > "$work/policy.json"
printf 'Bench-passcode-1\n' > "$work/passcode" && chmod 600 "$work/passcode"
store="$work/store/store.age"
BROWSER="$work/browser.sh" "$activate" onboard --file "$work/configuration.json" --allow-http --yes --quiet --store "$store" \
  --policy "$work/policy.json" --passcode-file "$work/passcode" </dev/null >/dev/null
"$activate" restore --store "$store" --allow-http --passcode-file "$work/passcode" --quiet >/dev/null
"$activate" token --store "$store" >/dev/null || { echo "token: the store does not give a token" >&2; exit 1; }

# The peers' small files: a token-sized file for cat; gh's own hosts.yml with a token; an age file
# with an X25519 identity (no passphrase, so no scrypt: the decryption alone).
head -c 1200 /dev/urandom | base64 -w0 > "$work/token.txt"
mkdir -p "$work/gh"
printf 'github.com:\n    oauth_token: gho_%s\n    user: bench\n    git_protocol: https\n' "$(head -c 18 /dev/urandom | xxd -p)" > "$work/gh/hosts.yml"
age-keygen -o "$work/key.txt" 2>/dev/null
age -e -i "$work/key.txt" -o "$work/token.age" "$work/token.txt"
peers=(-n cat "cat $work/token.txt" -n "age -d" "age -d -i $work/key.txt $work/token.age")
if command -v gh >/dev/null; then peers+=(-n "gh auth token" "env GH_CONFIG_DIR=$work/gh gh auth token"); fi

# Medians, from hyperfine's JSON: the figure the target is set in.
medians() {
  python3 -c 'import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%-28s median %6.1f ms  mean %6.1f ms  min %6.1f ms" % (r["command"], 1000 * statistics.median(r["times"]), 1000 * r["mean"], 1000 * r["min"]))' "$1"
}

echo "== a valid cached token on an unlocked store (no request)" >&2
hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/cached.json" --export-markdown "$work/cached.md" \
  -n "activate token" "$activate token --store $store" "${peers[@]}" >&2
cat "$work/cached.md"
medians "$work/cached.json"

echo "== a refresh against the local glewlwyd (the token must have a day left, and has an hour)" >&2
hyperfine -N --warmup 2 --runs 20 --export-json "$work/refresh.json" --export-markdown "$work/refresh.md" \
  -n "activate token (refresh)" "$activate token --store $store --allow-http --min-valid 86400" >&2
cat "$work/refresh.md"
medians "$work/refresh.json"
