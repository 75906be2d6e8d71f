#!/usr/bin/env bash
# Builds the package with AddressSanitizer (and LeakSanitizer) on the Swift code and the C shim
# and UndefinedBehaviorSanitizer on the C shim, then runs the tests under it twice: the whole
# suite (unit and integration tests; the server left out, see below) as it is, and, with
# IMGQUALITY_FORCE_SCALAR=1, the tests of the code that has a scalar path (the kernels, the
# detectors, the gate, the assessment and the real-photo ladders; decoders, calibration and the
# command line have none).
# Any sanitizer report, in the tests or in an imgquality process they start, fails the run.
# The libraries themselves (libjpeg-turbo, libpng, libtiff, Tesseract) are Debian's, not
# instrumented: ASan sees their reads and writes of our buffers through its interceptors only.
#
#   Scripts/sanitize.sh [simd|scalar ...]     default: both
#
# Release mode (optimised, with -enable-testing for the tests' @testable imports): the suite
# decodes and analyses thousands of images, which a debug build under ASan takes over half an
# hour for; optimised, a run takes about 3 minutes. Swift's own -sanitize=undefined does not
# exist on Linux; Swift code traps on overflow and out-of-bounds access by itself, in release
# builds too.
set -euo pipefail
cd "$(dirname "$0")/.."

STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(simd scalar)
for step in "${STEPS[@]}"; do
    case $step in simd | scalar) ;; *) echo "sanitize.sh: unknown step '$step' (steps: simd scalar)" >&2; exit 64 ;; esac
done

# Portable code generation here (Package.swift, IMGQUALITY_CPU): the main test run covers the
# machine-level build, this one the code any x86-64 machine runs.
export IMGQUALITY_CPU=generic
# Without the server (Package.swift, IMGQUALITY_SERVER): its module holds no unsafe code, and
# Hummingbird and SwiftNIO were half of this build's time; its tests run in Scripts/test.sh.
export IMGQUALITY_SERVER=0
BUILD=(swift build -c release --build-tests -Xswiftc -enable-testing --scratch-path .build-sanitize
    --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
    -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined)
echo "== building with ASan + UBSan into .build-sanitize (release)"
start=$(date +%s)
"${BUILD[@]}"
TESTS=$("${BUILD[@]}" --show-bin-path)/imgqualityPackageTests.xctest
echo "built in $(($(date +%s) - start)) s"

# Reports of every process (imgquality children included) go to files, printed on failure. A
# leak makes a process exit 23, which fails the test that ran it. Swift's crash backtracer is
# off: it reads raw memory, which ASan reports as a crash of its own.
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/imgquality-sanitize.XXXXXX")
export ASAN_OPTIONS="detect_leaks=1:log_path=$LOGS/asan"
export LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$LOGS/ubsan"
export SWIFT_BACKTRACE=enable=no
export OMP_THREAD_LIMIT=1

for step in "${STEPS[@]}"; do
    start=$(date +%s)
    echo "== the test suite under ASan + UBSan, $step kernels"
    status=0
    if [ "$step" = scalar ]; then
        IMGQUALITY_FORCE_SCALAR=1 "$TESTS" --testing-library swift-testing \
            --filter 'ImageKernelsTests|QualityMetricsTests|QualityGatingTests|QualityAssessmentTests|RealPhotoLadderTests' || status=$?
    else
        "$TESTS" --testing-library swift-testing || status=$?
    fi
    if [ "$status" -ne 0 ] || [ -n "$(ls -A "$LOGS")" ]; then
        for report in "$LOGS"/*; do
            [ -e "$report" ] || continue
            echo "---- $report" >&2
            head -n 60 "$report" >&2
        done
        echo "sanitize.sh: $step failed (exit $status); reports in $LOGS" >&2
        exit 1
    fi
    echo "== $step: passed in $(($(date +%s) - start)) s"
done
rm -rf "$LOGS"
