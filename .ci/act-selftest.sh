#!/usr/bin/env bash
# Runs the GitHub Action's self-test workflow (.github/workflows/selftest.yml)
# locally with nektos/act in host mode: the composite action at the root of
# this checkout (`uses: ./`) gates the simulator twice, once against its own
# baseline (must pass) and once with a planted 3x slowdown (must fail). Then
# it checks what act reports: the job succeeded, each check step printed its
# "ok" line, the outputs were set and the step summaries hold the verdicts.
# Then it runs .ci/act-shards.yml: a matrix of two shard jobs (shard: N/2),
# a merge and two gates on the given results (the results input).
#
# No network is needed once act is built: act copies this checkout in place
# of cloning it, and the workflow uses no other remote action.
#
# Environment:
#   LLMGATE_CI_CACHE   where act's binary and action cache live
#                      (default ${XDG_CACHE_HOME:-$HOME/.cache}/llmgate-ci)
#   ACT_TIMEOUT        seconds the workflow may take (default 600)
#   ACT_LOG            where act's full log is kept (default: a temp file)
#   ACT_SHARDS_LOG     the same for the shard workflow
set -euo pipefail
cd "$(dirname "$0")/.."

ACT_VERSION=v0.2.89
CACHE="${LLMGATE_CI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/llmgate-ci}"
ACT_BIN="$CACHE/act-$ACT_VERSION/act"
ACT_TIMEOUT="${ACT_TIMEOUT:-600}"
LOG="${ACT_LOG:-$(mktemp "${TMPDIR:-/tmp}/act-selftest.XXXXXX.log")}"
WORKFLOW=.github/workflows/selftest.yml

say() { printf 'act-selftest: %s\n' "$*"; }
fail() {
	printf 'act-selftest: FAIL: %s\n' "$*" >&2
	if [ -s "$LOG" ]; then
		printf -- '--- last 80 lines of the act log (%s) ---\n' "$LOG" >&2
		tail -n 80 "$LOG" >&2
	fi
	exit 1
}
now() { date +%s; }

command -v go >/dev/null || fail "go is not on PATH"
[ -f "$WORKFLOW" ] || fail "$WORKFLOW not found"
[ -f action.yml ] || fail "action.yml not found"

# 1. act, built once from its Go module and cached.
build_s=0
if [ ! -x "$ACT_BIN" ]; then
	say "building nektos/act $ACT_VERSION into $(dirname "$ACT_BIN") (first run only)"
	mkdir -p "$(dirname "$ACT_BIN")"
	t0=$(now)
	# GOFLAGS=-mod=mod: act's own go.mod decides, not this module's.
	if ! (cd "$CACHE" && GOBIN="$(dirname "$ACT_BIN")" GOFLAGS=-mod=mod timeout 1200 \
		go install "github.com/nektos/act@$ACT_VERSION"); then
		fail "could not build github.com/nektos/act@$ACT_VERSION"
	fi
	build_s=$(($(now) - t0))
	say "built act in ${build_s}s"
fi
"$ACT_BIN" --version | grep -q "${ACT_VERSION#v}" || fail "$ACT_BIN is not act $ACT_VERSION"

# act's host workspaces live in the action cache; a failed run leaves its copy behind.
rm -rf "$CACHE/act-actions"

# 2. The workflow, in host mode (-P ubuntu-latest=-self-hosted: steps run on
# this machine, no container), as a push event.
say "running $WORKFLOW with $("$ACT_BIN" --version) in host mode (timeout ${ACT_TIMEOUT}s); log: $LOG"
t0=$(now)
set +e
timeout --kill-after=30 "$ACT_TIMEOUT" "$ACT_BIN" push \
	--workflows "$WORKFLOW" \
	--platform ubuntu-latest=-self-hosted \
	--action-cache-path "$CACHE/act-actions" \
	--action-offline-mode \
	--no-cache-server \
	--pull=false \
	--env GOFLAGS="${GOFLAGS:-}" \
	</dev/null >"$LOG" 2>&1
rc=$?
set -e
run_s=$(($(now) - t0))
say "act finished with exit code $rc in ${run_s}s"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	fail "act did not finish within ${ACT_TIMEOUT}s"
fi

# 3. What act reported.
checks=0
check() { # check DESCRIPTION GREP-ARGS...
	local what="$1"
	shift
	grep -q "$@" "$LOG" || fail "$what"
	checks=$((checks + 1))
	say "ok: $what"
}
[ "$rc" -eq 0 ] || fail "act exited with $rc (the self-test job failed)"
check "the job succeeded" -F "Job succeeded"
check "the local action (uses: ./) built llmgate from its own source" -E "Success - Main Install llmgate"
check "the action ran llmgate gate" -E "\| llmgate gate internal/ghaction/testdata/selftest.hcl "
check "the passing gate set verdict=pass" -F "::set-output:: verdict=pass"
check "the planted regression set verdict=fail" -F "::set-output:: verdict=fail"
for out in regressions failed-asserts results-path summary-path; do
	check "the output $out was set" -E "::set-output:: $out=."
done
check "the passing gate's outputs checked out (pass case)" -F "llmgate-selftest: pass-case ok"
check "the regression failed the step and its outputs checked out" -F "llmgate-selftest: regression-case ok"
check "the step summary starts with the passing verdict" -E "Summary - ### llmgate · llmgate-selftest: ✅ no regression"
check "the step summary starts with the failing verdict" -E "Summary - ### llmgate · llmgate-selftest: ❌ [0-9]+ regression"
check "the regression was annotated on the suite's tolerance block" \
	-E "::error col=[0-9]+,file=internal/ghaction/testdata/selftest.hcl,line=[0-9]+,title=regression%3A e2el.p95 in chat::"

# 4. The shard workflow: a matrix of two shard jobs, then a merge and a gate
# job. The jobs hand their files over in a directory of this machine.
SHARDS_WORKFLOW=.ci/act-shards.yml
[ -f "$SHARDS_WORKFLOW" ] || fail "$SHARDS_WORKFLOW not found"
LOG="${ACT_SHARDS_LOG:-$(mktemp "${TMPDIR:-/tmp}/act-shards.XXXXXX.log")}"
shard_dir="$(mktemp -d "${TMPDIR:-/tmp}/act-shards.XXXXXX")"
trap 'rm -rf "$shard_dir"' EXIT
rm -rf "$CACHE/act-actions"
say "running $SHARDS_WORKFLOW (a matrix of 2 shards, a merge and a gate); log: $LOG"
t0=$(now)
set +e
timeout --kill-after=30 "$ACT_TIMEOUT" "$ACT_BIN" push \
	--workflows "$SHARDS_WORKFLOW" \
	--platform ubuntu-latest=-self-hosted \
	--action-cache-path "$CACHE/act-actions" \
	--action-offline-mode \
	--no-cache-server \
	--pull=false \
	--env GOFLAGS="${GOFLAGS:-}" \
	--env LLMGATE_SHARD_DIR="$shard_dir" \
	</dev/null >"$LOG" 2>&1
rc=$?
set -e
shards_s=$(($(now) - t0))
say "act finished with exit code $rc in ${shards_s}s"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	fail "act did not finish the shard workflow within ${ACT_TIMEOUT}s"
fi
[ "$rc" -eq 0 ] || fail "act exited with $rc (the shard workflow failed)"
for i in 1 2; do
	check "shard $i/2 ran through the action" -E "\| llmgate run internal/ghaction/testdata/shards.hcl --shard $i/2 "
	check "shard $i/2 wrote a results file that records its shard" -F "llmgate-selftest: shard-$i ok"
done
check "the gate job merged the shards" -F "merged 2 file(s), shard(s) 1, 2 of 2, 2 run(s) of 2"
check "the action gated given results" -E "\| llmgate gate internal/ghaction/testdata/shards.hcl --comment=true --baseline none --results "
check "the gate on the shard files expanded the glob" -E "\| gating 2 results file\(s\) measured elsewhere"
check "both gates passed and their outputs checked out" -F "llmgate-selftest: shard-gate ok"
[ "$(grep -c "Job succeeded" "$LOG")" -ge 3 ] || fail "fewer than 3 jobs (2 shards, 1 gate) succeeded"
checks=$((checks + 1))
say "ok: all 3 jobs (2 shards, 1 gate) succeeded"

say "all $checks checks passed (act build ${build_s}s, workflow run ${run_s}s, shard workflow ${shards_s}s)"
