#!/usr/bin/env python3
"""Recognition time of `imgquality ocr` against the `tesseract` program, in one run on the same images.

imgquality decodes, scores, gates and recognizes (`--force`: every image is recognized);
the baseline runs `tesseract IMG - -l eng` once per image, the same recognition with the same
settings (imgquality passes the file's declared resolution to Tesseract as the program does).
Both run one image at a time (`--jobs 1`) with OMP_THREAD_LIMIT=1; each measurement is the
median of --repeat runs, reported as a ratio against the program measured in the same run.

    Benchmarks/ocr_vs_tesseract.py [--repeat 3] [--binary PATH] [--level accurate|fast] FILE_OR_DIR ...

With --breakdown, one more imgquality run with `--format jsonl` sums the record's
`timing` (decode, analysis, recognition) to show where imgquality's time goes.
The imgquality binary defaults to the release build (`swift build -c release`).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from benchlib import DEFAULT_BINARY, find_images, timed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--level", choices=["accurate", "fast"], default="accurate")
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    files = find_images(args.inputs)
    if not files:
        sys.exit("no images found")
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    # The settings of imgquality's fast level, as program arguments (TesseractRecognizer.Settings).
    extra = ["-c", "tessedit_do_invert=0"] if args.level == "fast" else []
    program = ["sh", "-c", 'for f in "$@"; do tesseract "$f" - -l eng --psm 3 ' + " ".join(extra) + ' >/dev/null 2>&1; done', "tesseract"] + files
    ours = [args.binary, "ocr", "--force", "--format", "text", "--jobs", "1", "--recognition-level", args.level] + files
    results = {"tesseract": [], "imgquality ocr": []}
    for _ in range(args.repeat):
        results["tesseract"].append(timed(program, env))
        results["imgquality ocr"].append(timed(ours, env))
    baseline = statistics.median(results["tesseract"])
    print(f"{len(files)} images, level {args.level}, median of {args.repeat} runs, one image at a time")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"  {name:16s} {median:8.2f} s   {median / len(files) * 1000:7.0f} ms/image   ratio {median / baseline:5.3f}")
    if args.breakdown:
        run = subprocess.run([args.binary, "ocr", "--force", "--format", "jsonl", "--jobs", "1", "--recognition-level", args.level] + files,
                             capture_output=True, text=True, env=env)
        sums = {"decodeMs": 0.0, "analysisMs": 0.0, "recognitionMs": 0.0}
        for line in run.stdout.splitlines():
            timing = json.loads(line).get("timing", {})
            for key in sums:
                sums[key] += timing.get(key, 0.0)
        print("  imgquality ocr, summed over the images (one more run, jsonl):")
        for key, value in sums.items():
            print(f"    {key:14s} {value / 1000:8.2f} s")


if __name__ == "__main__":
    main()
