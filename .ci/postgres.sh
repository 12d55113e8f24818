#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the history store's tests and
# prints the line that points them at it:
#
#   eval "$(bash .ci/postgres.sh)"    # exports LLMGATE_TEST_POSTGRES
#
# It installs Debian's postgresql when the server binaries are missing (as
# root), runs initdb and pg_ctl as the postgres user when started as root
# (initdb refuses root) or as the caller otherwise, listens on 127.0.0.1 on
# a free port with trust authentication, and stops the server and removes
# the cluster when the shell that eval'ed it exits (the trap), or when
# `bash .ci/postgres.sh stop DIR` is run.
set -euo pipefail

if [ "${1:-}" = stop ]; then
	dir="$2"
	pgbin="$(cat "$dir/bin")"
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$pgbin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
	else
		"$pgbin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	exit 0
fi

find_bin() {
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

pgbin="$(find_bin)"
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "PostgreSQL's server is not installed (apt-get install postgresql)" >&2
		exit 1
	fi
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
	pgbin="$(find_bin)"
fi

dir="$(mktemp -d /tmp/llmgate-pg.XXXXXX)"
echo "$pgbin" > "$dir/bin"
as_owner=()
if [ "$(id -u)" = 0 ]; then
	chown postgres "$dir"
	as_owner=(runuser -u postgres --)
fi
(cd / && "${as_owner[@]}" "$pgbin/initdb" -D "$dir/data" -A trust -U llmgate -E UTF8 >"$dir/initdb.log" 2>&1) || {
	cat "$dir/initdb.log" >&2
	exit 1
}

# A free port: ask the kernel for one, then hand it to the server.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 55439)"
(cd / && "${as_owner[@]}" "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null) || {
	cat "$dir/server.log" >&2
	exit 1
}
echo "export LLMGATE_TEST_POSTGRES='postgres://llmgate@127.0.0.1:$port/postgres?sslmode=disable'"
echo "trap 'bash $(cd "$(dirname "$0")" && pwd)/postgres.sh stop $dir' EXIT"
