#!/usr/bin/env bash
# Builds the fuzz package (Fuzz/) with libFuzzer and AddressSanitizer, replays every committed
# regression input, then fuzzes each target for SECONDS (default 60) on a scratch copy of its
# seed corpus, a target per core at a time (FUZZ_JOBS). Exits non-zero when any input crashes,
# leaks, runs out of memory or times out, and says where that input was written.
#
#   Scripts/fuzz.sh [SECONDS] [TARGET...]     targets: jpeg png tiff webp heif gif bmp jxl pdf raw document assessment (default: all)
#
# Environment: FUZZ_WORK=DIR keeps the scratch corpora and artifacts there (default: a temporary
# directory, removed when every target passed); FUZZ_JOBS=N fuzzes N targets at a time (default:
# the number of cores); FUZZ_ARGS adds libFuzzer flags.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SECONDS_EACH=60
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then SECONDS_EACH=$1; shift; fi
ALL=(jpeg png tiff webp heif gif bmp jxl pdf raw document assessment)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
for t in "${TARGETS[@]}"; do
    case " ${ALL[*]} " in *" $t "*) ;; *) echo "fuzz.sh: unknown target '$t' (targets: ${ALL[*]})" >&2; exit 64 ;; esac
done

executable() {  # jpeg -> FuzzJPEG, heif -> FuzzHEIF, webp -> FuzzWebP, assessment -> FuzzAssessment
    case $1 in
    jpeg | png | tiff | heif | gif | bmp | jxl | pdf) echo "Fuzz${1^^}" ;;
    webp) echo "FuzzWebP" ;;
    raw) echo "FuzzRaw" ;;
    *) echo "Fuzz${1^}" ;;
    esac
}

# `--sanitize fuzzer` makes SwiftPM link libFuzzer's main instead of the executables' own.
# ASan is added by hand: given `--sanitize fuzzer --sanitize address`, SwiftPM passes
# `-sanitize=fuzzer -sanitize=address` in an order that varies between runs, the Swift compiler
# keeps only the last, and every run rebuilds with coverage or ASan, never both. The last
# `-sanitize=` below wins and holds both; clang adds up its -fsanitize flags (fuzzer from SwiftPM).
BUILD=(swift build --package-path Fuzz -c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address)
echo "== building Fuzz/ (release; Swift with -sanitize=fuzzer,address, the C shim with -fsanitize=fuzzer,address)"
build_start=$(date +%s)
"${BUILD[@]}"
BIN=$("${BUILD[@]}" --show-bin-path)
echo "built in $(($(date +%s) - build_start)) s"

if [ -n "${FUZZ_WORK:-}" ]; then
    WORK=$FUZZ_WORK
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/imgquality-fuzz.XXXXXX")
fi

# Same limits for replays and runs: 2 GiB of memory, 10 s per input. Leaks inside the system
# libraries that imgquality cannot free are suppressed by name (Scripts/lsan.supp).
LIMITS=(-rss_limit_mb=2048 -timeout=10)
# The limit is on resident memory, which ASan's allocator, left alone, lets grow with freed
# blocks it keeps (the PNG target once reached 2.2 GB over 570 000 inputs with 25 MB live):
# freed memory goes back to the system every half second and the quarantine of freed blocks is
# 64 MB, so only what an input holds counts against the limit.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_release_to_os_interval_ms=500:quarantine_size_mb=64"
export LSAN_OPTIONS="suppressions=$ROOT/Scripts/lsan.supp:print_suppressions=0"

# A line of the summary: target, seconds, executions, executions/s, coverage, features, result.
summary_line() { printf '%-11s %6s s %12s %9s %7s %7s  %s\n' "$@"; }

# One target: its regression inputs replayed, then SECONDS_EACH of fuzzing. Writes its line of
# the summary to $WORK/$t.summary and, when it fails, what failed to $WORK/$t.failed.
run_target() {
    local t=$1
    local exe="$BIN/$(executable "$t")"
    local regressions="$ROOT/Fuzz/Regressions/$t"
    if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
        echo "== $t: replaying $(ls "$regressions" | wc -l) regression inputs"
        if ! "$exe" "${LIMITS[@]}" "$regressions"/* >"$WORK/$t-regressions.log" 2>&1; then
            tail -n 40 "$WORK/$t-regressions.log" >&2
            echo "fuzz.sh: $t: a regression input in $regressions fails again (log: $WORK/$t-regressions.log)" >&2
            echo "$t (regression)" >"$WORK/$t.failed"
            summary_line "$t" - - - - - "FAILED (regression)" >"$WORK/$t.summary"
            return
        fi
    fi

    echo "== $t: fuzzing for $SECONDS_EACH s"
    local corpus="$WORK/corpus/$t" artifacts="$WORK/artifacts/$t/" log="$WORK/$t.log" status=0
    rm -rf "$corpus" "$artifacts"
    mkdir -p "$corpus" "$artifacts"
    cp "$ROOT/Fuzz/Corpus/$t"/* "$corpus/"
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    "$exe" "${LIMITS[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
        -artifact_prefix="$artifacts" ${FUZZ_ARGS:-} "$corpus" >"$log" 2>&1 || status=$?

    # libFuzzer's last status line ("#N DONE cov: C ft: F corp: …"), and its final stats.
    local last cov ft runs rate result=ok
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
    rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
    if [ "$status" -ne 0 ]; then
        result="FAILED (exit $status)"
        echo "$t" >"$WORK/$t.failed"
        grep -E '^==[0-9]+==ERROR|^SUMMARY|ALARM|out-of-memory|Fatal error|deadly signal' "$log" | head -n 5 >&2 || true
        local crash
        crash=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
        echo "fuzz.sh: $t failed; input: ${crash:-none written}; log: $log" >&2
        echo "  replay: $exe ${crash:-INPUT}" >&2
    fi
    summary_line "$t" "$SECONDS_EACH" "${runs:--}" "${rate:--}" "${cov:--}" "${ft:--}" "$result" >"$WORK/$t.summary"
}

# FUZZ_JOBS targets at a time (default: one per core); each libFuzzer process is one thread,
# so two cores fuzz two targets in the time of one, every target for its full SECONDS_EACH.
JOBS=${FUZZ_JOBS:-$(nproc)}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: FUZZ_JOBS must be a positive number, not '$JOBS'" >&2; exit 64; }
rm -f "$WORK"/*.summary "$WORK"/*.failed
fuzz_start=$(date +%s)
for t in "${TARGETS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    run_target "$t" &
done
wait
echo "fuzzed in $(($(date +%s) - fuzz_start)) s, $JOBS targets at a time"

failed=()
for t in "${TARGETS[@]}"; do
    if [ -e "$WORK/$t.failed" ]; then
        failed+=("$(cat "$WORK/$t.failed")")
    elif [ ! -e "$WORK/$t.summary" ]; then
        # The target's own script stopped (a copy or a directory it could not make).
        failed+=("$t (no result)")
        summary_line "$t" - - - - - "FAILED (no result)" >"$WORK/$t.summary"
    fi
done

echo
printf '%-11s %8s %12s %9s %7s %7s  %s\n' target time executions exec/s cov ft result
for t in "${TARGETS[@]}"; do cat "$WORK/$t.summary"; done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: failed: ${failed[*]}; inputs and logs kept in $WORK" >&2
    exit 1
fi
[ -n "${FUZZ_WORK:-}" ] || rm -rf "$WORK"
