#!/usr/bin/env bash
# Load test of `activate serve` from a second process on loopback, with wrk.
#   benchmarks/serve-load.sh [SECONDS] [CONNECTIONS]      (defaults: 30 s, 64 connections, 2 threads)
# Serves the documents of the configuration tests, asks the e-mail lookup (200) for the whole run,
# then prints wrk's report (requests/s, latency percentiles, errors) and stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
connections="${2:-64}"
bin=$(scripts/release-build.sh activate)
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
cp Tests/ActivationConfigurationTests/Fixtures/documents/{oauth-authorization-code.json,android-basic.json} "$work/"
cat > "$work/discovery.json" <<'JSON'
{"applications": {"com.example.fieldservice": {
  "domains": {"example.com": "oauth-authorization-code.json"},
  "codes": {"12345678": {"document": "android-basic.json", "expires": "2099-01-01T00:00:00Z"}}}}}
JSON
"$bin"/activate serve --configs "$work" --port 0 --log-level warning > "$work/serve.out" &
server=$!
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$work/serve.out")"
path="/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',EmailAddress='someone@example.com')"
echo "wrk: ${seconds}s, ${connections} connections, 2 threads, GET $url$path"
curl -fsS "$url$path" > /dev/null
wrk -t2 -c"$connections" -d"${seconds}s" --latency "$url$path"
kill -TERM "$server"
wait "$server" && echo "serve stopped cleanly on SIGTERM (exit 0)"
