#!/usr/bin/env python3
"""`imgquality score` against each format's own command-line decoder, on the same 12 MP photos:
the formats table's speed column.

    Benchmarks/format_speed.py [--count 4] [--rounds 3] [--binary PATH]

The photos are the first `--count` 4 000 × 3 000 PNGs that `Benchmarks/speed.py` makes in
`Benchmarks/.work/12mp-png` (run it once first). Each is encoded once into `Benchmarks/.work/`
(not committed): WebP (`cwebp -q 90`), HEIC and AVIF (`heif-enc -q 90`, `--avif`), JPEG XL
(`cjxl -q 90 -e 3`), a PDF page of the photo's size at 300 dpi (`img2pdf -s 300dpi`) and a
24-bit BMP (Pillow). Commands, interleaved round by round (`--rounds`; medians reported):

- decode only, the baseline: the library's own tool, one process per file, pixels written to
  /dev/null: `dwebp -ppm`, `heif-convert` (to Y4M, raw YUV, in a scratch folder: it writes no PPM),
  `djxl` (to PPM), `pdftoppm -r 300`; for BMP, which has no Debian tool, Pillow's `load()`;
- `imgquality score --jobs 1` over the set (every detector).

Prints a Markdown table: per format, the files, the median time per image of each, and their
ratio (the aim: within 1.5 times of decoding alone). Peak memory is the child's maximum
resident set (`wait4`). Machines are shared and noisy: compare ratios within one run.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, ".work")
SOURCE = os.path.join(WORK, "12mp-png")
DEFAULT_BINARY = os.path.join(ROOT, ".build", "release", "imgquality")
PYTHON = os.path.join(ROOT, ".venv-bench", "bin", "python")

SAVE_BMP = "import sys; from PIL import Image; Image.open(sys.argv[1]).convert('RGB').save(sys.argv[2])"
LOAD_BMP = "import sys\nfrom PIL import Image\nfor p in sys.argv[1:]:\n    Image.open(p).load()\n"

# Format: extension, encoder (source, destination), decoder of one file (path, scratch folder)
# or None for a one-process Pillow load, and its description.
FORMATS = [
    ("webp", "webp", lambda s, d: ["cwebp", "-quiet", "-q", "90", s, "-o", d],
     lambda p, t: ["dwebp", "-quiet", "-ppm", p, "-o", "/dev/null"], "dwebp -ppm"),
    ("heic", "heic", lambda s, d: ["heif-enc", "-q", "90", s, "-o", d],
     lambda p, t: ["heif-convert", p, os.path.join(t, "out.y4m")], "heif-convert (Y4M)"),
    ("avif", "avif", lambda s, d: ["heif-enc", "--avif", "-q", "90", s, "-o", d],
     lambda p, t: ["heif-convert", p, os.path.join(t, "out.y4m")], "heif-convert (Y4M)"),
    ("jxl", "jxl", lambda s, d: ["cjxl", "-q", "90", "-e", "3", s, d],
     lambda p, t: ["djxl", p, os.path.join(t, "out.ppm")], "djxl (PPM)"),
    ("pdf", "pdf", lambda s, d: ["img2pdf", "--engine", "internal", "-s", "300dpi", s, "-o", d],
     lambda p, t: ["pdftoppm", "-r", "300", p], "pdftoppm -r 300"),
    ("bmp", "bmp", lambda s, d: [PYTHON, "-c", SAVE_BMP, s, d], None, "Pillow load(), one process"),
]


def run(command):
    """Wall seconds and peak resident MiB of one command, output discarded."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command[:4])} …")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def encoded(kind, extension, encode, sources):
    folder = os.path.join(WORK, f"12mp-{kind}")
    os.makedirs(folder, exist_ok=True)
    files = []
    for source in sources:
        target = os.path.join(folder, os.path.splitext(os.path.basename(source))[0] + "." + extension)
        if not os.path.exists(target):
            subprocess.run(encode(source, target), check=True, capture_output=True)
        files.append(target)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    sources = sorted(os.path.join(SOURCE, n) for n in os.listdir(SOURCE) if n.endswith(".png"))[:args.count] \
        if os.path.isdir(SOURCE) else []
    if not sources:
        sys.exit(f"no PNGs in {SOURCE}: run Benchmarks/speed.py once first")
    version = subprocess.run([args.binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"`Benchmarks/format_speed.py --count {args.count} --rounds {args.rounds}`: imgquality {version}, "
          f"{os.cpu_count()} cores, {len(sources)} photos of 4 000 × 3 000\n")
    print("| format | files | decode only | per image | imgquality score --jobs 1 | per image | ratio | peak memory (score) |")
    print("|---|---:|---|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for kind, extension, encode, decode, label in FORMATS:
            tool = encode("", "")[0]
            if not shutil.which(tool) or (decode and not shutil.which(decode("", "")[0])):
                print(f"| {kind} | – | {label}: not installed | | | | | |")
                continue
            files = encoded(kind, extension, encode, sources)
            times = {"decode": [], "score": []}
            peak = 0.0
            for _ in range(args.rounds):
                if decode:
                    times["decode"].append(sum(run(decode(path, scratch))[0] for path in files))
                else:
                    times["decode"].append(run([PYTHON, "-c", LOAD_BMP] + files)[0])
                seconds, mib = run([args.binary, "score", "--jobs", "1", "--format", "jsonl"] + files)
                times["score"].append(seconds)
                peak = max(peak, mib)
            decode_time, score_time = statistics.median(times["decode"]), statistics.median(times["score"])
            print(f"| {kind} | {len(files)} | {label} | {decode_time / len(files) * 1000:.0f} ms | "
                  f"score | {score_time / len(files) * 1000:.0f} ms | {score_time / decode_time:.2f} | {peak:.0f} MiB |",
                  flush=True)


if __name__ == "__main__":
    main()
