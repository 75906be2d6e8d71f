#!/usr/bin/env python3
"""Time of `imgquality score` against the OpenCV script people write today, in one run on the same files.

The baseline is the usual quality check: for each file, `cv2.imread(path, IMREAD_GRAYSCALE)`,
`cv2.Laplacian(gray, cv2.CV_64F).var()` and the mean luminance, in one Python process
(interpreter start and the cv2 import included, as a script run on a folder pays them).
It answers less than imgquality does (no exposure direction, smudge, text size or gate) and
reads every image at full size. imgquality runs as one process with `--jobs 1` (and, to show
the second core, with its default `--jobs`). Each time is the median of --repeat runs and is
reported as a ratio against the baseline measured in the same run.

    Benchmarks/score_vs_opencv.py [--repeat 3] [--binary PATH] [--python PATH] FILE_OR_DIR ...

Needs OpenCV: `python3 -m venv .venv-bench && .venv-bench/bin/pip install opencv-python-headless numpy`,
then run the script with `.venv-bench/bin/python` (or pass --python). The imgquality binary
defaults to the release build (`swift build -c release`).
"""
import argparse
import subprocess
import sys

from benchlib import DEFAULT_BINARY, find_images, print_ratios, timed


BASELINE = r"""
import sys, cv2
for path in sys.argv[1:]:
    gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if gray is None:
        print(path, "unreadable")
        continue
    print(path, cv2.Laplacian(gray, cv2.CV_64F).var(), gray.mean())
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    files = find_images(args.inputs)
    if not files:
        sys.exit("no images found")
    if subprocess.run([args.python, "-c", "import cv2"], capture_output=True).returncode != 0:
        sys.exit(f"{args.python} cannot import cv2; see the installation line in this script's help")
    commands = {
        "OpenCV script (Laplacian var + mean)": [args.python, "-c", BASELINE] + files,
        "imgquality score --jobs 1": [args.binary, "score", "--jobs", "1"] + files,
        "imgquality score --jobs 1 --detectors blur,exposure": [args.binary, "score", "--jobs", "1", "--detectors", "blur,exposure"] + files,
        "imgquality score (default --jobs)": [args.binary, "score"] + files,
    }
    results = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            results[name].append(timed(command))
    print(f"{len(files)} images, median of {args.repeat} runs")
    print_ratios(results, "OpenCV script (Laplacian var + mean)")


if __name__ == "__main__":
    main()
