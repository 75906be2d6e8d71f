#!/usr/bin/env bash
# Prints the CPU that imgquality's pixel code is compiled for on this machine, for
# IMGQUALITY_CPU (Package.swift): `haswell` on an x86-64 processor with AVX2, FMA, BMI2,
# MOVBE and F16C (Intel since 2013, AMD since 2015); nothing elsewhere (arm64, or older
# x86-64), which builds for any machine of the architecture. An IMGQUALITY_CPU already set
# wins: `generic` (or empty) turns the option off, any other `swiftc -target-cpu` name is kept.
set -euo pipefail
if [ -n "${IMGQUALITY_CPU+set}" ]; then
    echo "$IMGQUALITY_CPU"
    exit 0
fi
if [ "$(uname -m)" = x86_64 ] && [ -r /proc/cpuinfo ]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    for flag in avx2 fma bmi2 movbe f16c; do
        case "$flags" in *" $flag "*) ;; *) exit 0 ;; esac
    done
    echo haswell
fi
