#!/usr/bin/env python3
"""Decode time of `imgquality score` against libjpeg-turbo's `djpeg`, in one run on the same files.

Both are run as processes over the same JPEG files, one at a time (`--jobs 1`); each
measurement is the median of --repeat runs. Reported as a ratio against djpeg measured
in the same run, so machine noise cancels as far as it can.

    Benchmarks/decode_vs_djpeg.py [--repeat 5] [--binary PATH] FILE_OR_DIR ...

The imgquality binary defaults to the release build (`swift build -c release`).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def jpegs(inputs):
    found = []
    for item in inputs:
        if os.path.isdir(item):
            for root, _, names in os.walk(item):
                found += [os.path.join(root, n) for n in names if n.lower().endswith((".jpg", ".jpeg"))]
        else:
            found.append(item)
    return sorted(found)


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "imgquality"))
    args = parser.parse_args()
    files = jpegs(args.inputs)
    if not files:
        sys.exit("no JPEG files found")
    # djpeg's grayscale output is the same work as imgquality's luma-only decode.
    djpeg_loop = ["sh", "-c", 'for f in "$@"; do djpeg -grayscale "$f" >/dev/null 2>&1; done', "djpeg"] + files
    ours = [args.binary, "score", "--jobs", "1", "--format", "jsonl"] + files
    results = {"djpeg -grayscale": [], "imgquality score": []}
    for _ in range(args.repeat):
        results["djpeg -grayscale"].append(timed(djpeg_loop))
        results["imgquality score"].append(timed(ours))
    baseline = statistics.median(results["djpeg -grayscale"])
    print(f"{len(files)} JPEG files, median of {args.repeat} runs, one image at a time")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"  {name:18s} {median * 1000:9.1f} ms   ratio {median / baseline:5.2f}")


if __name__ == "__main__":
    main()
