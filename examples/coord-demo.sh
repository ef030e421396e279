#!/usr/bin/env bash
# A checkpoint-coordinator session from the shell, as a transcript
# (docs/coordinator.md shows its output; the docs test runs it): a
# coordinator on a free loopback port with a fresh database, two jobs that
# register, ask when to checkpoint and share the file system under the
# Ordered policy, then the status (snake_case keys with their units) and
# the metrics page; the server is stopped at the end.
set -euo pipefail
dir=$(mktemp -d)
server=
cleanup() {
	[ -z "$server" ] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"
show() { printf '$ %s\n' "$*"; "$@"; } # print the command, then run it

echo bearer-token-for-the-demo > tokens
echo '$ ckpt serve --listen 127.0.0.1:0 --db coord.db --init --token-file tokens --bandwidth 10GB/s --policy ordered 2>serve.log &'
ckpt serve --listen 127.0.0.1:0 --db coord.db --init --token-file tokens --bandwidth 10GB/s --policy ordered 2>serve.log &
server=$!
for _ in $(seq 100); do
	addr=$(grep -so 'addr=127.0.0.1:[0-9]*' serve.log || true)
	[ -z "$addr" ] || break
	sleep 0.05
done
[ -n "$addr" ] || { cat serve.log >&2; exit 1; }
export CKPT_COORD_URL=http://${addr#addr=} CKPT_COORD_TOKEN=bearer-token-for-the-demo
echo "# listening on $CKPT_COORD_URL; CKPT_COORD_URL and CKPT_COORD_TOKEN exported"

show ckpt coord register --id sim-a --nodes 64 --size 1TB --mtbf 1d --job-token job-a-secret-0123456789
show ckpt coord register --id sim-b --nodes 32 --size 400GB --mtbf 2d --job-token job-b-secret-0123456789
show ckpt coord next --id sim-a
show ckpt coord acquire --id sim-a --job-token job-a-secret-0123456789 --request-id a1
show ckpt coord acquire --id sim-b --job-token job-b-secret-0123456789 --request-id b1 --no-wait
show ckpt coord release --id sim-a --job-token job-a-secret-0123456789 --token 1 --duration 104s
show ckpt coord acquire --id sim-b --job-token job-b-secret-0123456789 --request-id b1 --no-wait
show ckpt coord release --id sim-b --job-token job-b-secret-0123456789 --token 2 --duration 41s
echo '$ ckpt coord release --id sim-b --job-token job-b-secret-0123456789 --token 1 2>&1   # a token it does not hold'
ckpt coord release --id sim-b --job-token job-b-secret-0123456789 --token 1 2>&1 || echo "(exit $?)"
show ckpt coord done --id sim-a --job-token job-a-secret-0123456789
echo '$ curl -s -H "Authorization: Bearer $CKPT_COORD_TOKEN" $CKPT_COORD_URL/v1/status'
curl -s -H "Authorization: Bearer $CKPT_COORD_TOKEN" "$CKPT_COORD_URL/v1/status"
echo '$ curl -s $CKPT_COORD_URL/metrics | grep -E '"'"'^ckpt_coord_(jobs|queue_length|lease_holders|grants_total|releases_total|fenced_total|granted_bytes_total) '"'"
curl -s "$CKPT_COORD_URL/metrics" | grep -E '^ckpt_coord_(jobs|queue_length|lease_holders|grants_total|releases_total|fenced_total|granted_bytes_total) '
