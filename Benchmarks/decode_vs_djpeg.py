#!/usr/bin/env python3
"""Time of `imgquality score` against libjpeg-turbo's `djpeg`, in one run on the same files.

Written when `score` only decoded: since the detectors exist, imgquality's time is a
(DCT-reduced) decode plus every detector, so the ratio is no longer the decoder's alone.
There is no decode-only mode to time yet.

Both are run as processes over the same JPEG files, one at a time (`--jobs 1`); each
measurement is the median of --repeat runs. Reported as a ratio against djpeg measured
in the same run, so machine noise cancels as far as it can.

    Benchmarks/decode_vs_djpeg.py [--repeat 5] [--binary PATH] FILE_OR_DIR ...

The imgquality binary defaults to the release build (`swift build -c release`).
"""
import argparse
import sys

from benchlib import DEFAULT_BINARY, find_images, print_ratios, timed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    files = find_images(args.inputs, (".jpg", ".jpeg"))
    if not files:
        sys.exit("no JPEG files found")
    # djpeg's grayscale output was the same work as imgquality's luma-only decode before
    # the detectors; it stays the reference for a full-size decode.
    djpeg_loop = ["sh", "-c", 'for f in "$@"; do djpeg -grayscale "$f" >/dev/null 2>&1; done', "djpeg"] + files
    ours = [args.binary, "score", "--jobs", "1", "--format", "jsonl"] + files
    results = {"djpeg -grayscale": [], "imgquality score (decode + detectors)": []}
    for _ in range(args.repeat):
        results["djpeg -grayscale"].append(timed(djpeg_loop))
        results["imgquality score (decode + detectors)"].append(timed(ours))
    print(f"{len(files)} JPEG files, median of {args.repeat} runs, one image at a time")
    print_ratios(results, "djpeg -grayscale")


if __name__ == "__main__":
    main()
