#!/usr/bin/env python3
"""imgquality's speed and memory against decoding alone and the OpenCV scripts people write,
measured in one run on the same files: the README's performance table.

    Benchmarks/speed.py [--rounds 3] [--count 20] [--binary PATH] [FILE_OR_DIR ...]
    Benchmarks/speed.py --memory-curve 5000 [--binary PATH]

Sets timed (each on its own files):
- `12mp-jpeg`, `12mp-png`, `12mp-tiff`: --count 4 000 × 3 000 images this script makes once
  (in `Benchmarks/.work/`, not committed) from the photographs `Datasets/` is made from: the
  KDE wallpapers of Debian's plasma-workspace-wallpapers at 2 560 × 1 600 (installed by
  `Scripts/datasets/make-datasets.sh`), resized with Lanczos; JPEG quality 92 4:2:0, PNG
  (zlib level 6), TIFF (deflate). Without the package, the 768-px photos of
  `Datasets/blur` are resized instead (smoother, so cheaper to decode: the script says so).
- `exif-samples`: the camera JPEGs of `../shared/datasets/exif-samples` when present.
- Any files or folders given on the command line, as `given`.

Commands, interleaved round by round (`--rounds`; medians reported):
- decode only, the baseline of each set: libjpeg-turbo's `djpeg -ppm` at full size, one
  process per file, output discarded; for PNG and TIFF, Pillow's `load()` in one process;
- `imgquality score --jobs 1` (every detector) and with `--jobs 2`;
- the OpenCV scripts, one Python process for the set: the common one (`cv2.imread` in
  colour, grey conversion, `cv2.Laplacian(gray, cv2.CV_64F).var()` and the mean) and the
  careful one (the Laplacian in `CV_32F` with `cv2.meanStdDev`, and the Hasler–Süsstrunk
  colourfulness in float32 with OpenCV's own arithmetic and `meanStdDev`). OpenCV comes from PyPI into `.venv-bench` (made by the script).
Peak memory is the child's maximum resident set (`wait4`). Then `imgquality ocr` on 6
rendered pages of `Datasets/documents`: `--jobs 1` against `--jobs 2`, and without OpenMP
variables against `OMP_THREAD_LIMIT=1`.

`--memory-curve N` runs one `imgquality score --jobs 1` over N paths on standard input (the
12 MP JPEGs, cycled) and prints the resident set after record 100, 500, 1 000, … N.

Machines are shared and noisy: compare ratios within one run, not times across runs.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, ".work")
DEFAULT_BINARY = os.path.join(ROOT, ".build", "release", "imgquality")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "datasets"))
VENV = os.path.join(ROOT, ".venv-bench")
# Pinned so the OpenCV side is the same on every run.
VENV_PACKAGES = ["numpy==2.4.6", "opencv-python-headless==5.0.0.93", "Pillow==13.0.0"]
WALLPAPERS = "/usr/share/wallpapers"
SIZE = (4000, 3000)

OPENCV_COMMON = r"""
import sys, cv2
for path in sys.argv[1:]:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        print(path, "unreadable"); continue
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    print(path, cv2.Laplacian(gray, cv2.CV_64F).var(), gray.mean())
"""

OPENCV_CAREFUL = r"""
import sys, cv2, numpy as np
for path in sys.argv[1:]:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        print(path, "unreadable"); continue
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    mean, sd = cv2.meanStdDev(cv2.Laplacian(gray, cv2.CV_32F))
    b, g, r = cv2.split(image.astype(np.float32))
    rg = cv2.subtract(r, g)
    yb = cv2.subtract(cv2.addWeighted(r, 0.5, g, 0.5, 0), b)
    (mrg, srg), (myb, syb) = cv2.meanStdDev(rg), cv2.meanStdDev(yb)
    colourfulness = np.hypot(srg[0, 0], syb[0, 0]) + 0.3 * np.hypot(mrg[0, 0], myb[0, 0])
    print(path, sd[0, 0] ** 2, cv2.mean(gray)[0], colourfulness)
"""


def ensure_venv():
    """The benchmark's Python with OpenCV, made on first use."""
    python = os.path.join(VENV, "bin", "python")
    ready = os.path.exists(python) and subprocess.run([python, "-c", "import cv2, PIL"], capture_output=True).returncode == 0
    if not ready:
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet"] + VENV_PACKAGES, check=True)
    return python


def ensure_tools():
    """djpeg from Debian, installed when missing."""
    missing = [p for p, tool in (("libjpeg-turbo-progs", "djpeg"),) if not shutil.which(tool)]
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "--no-install-recommends"] + missing, check=True,
                       stdout=subprocess.DEVNULL)


MAKE_IMAGES = r"""
import glob, os, sys
from PIL import Image
work, count, wallpapers, fallback = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sources = sorted(glob.glob(os.path.join(wallpapers, "*", "contents", "images", "2560x1600.jpg")))
origin = "wallpapers"
if not sources:
    sources = sorted(glob.glob(os.path.join(fallback, "*_clean.jpg")))
    origin = "datasets-768px"
for kind in ("jpeg", "png", "tiff"):
    os.makedirs(os.path.join(work, "12mp-" + kind), exist_ok=True)
for i in range(count):
    source = sources[i % len(sources)]
    image = None
    for kind, ext, options in (("jpeg", "jpg", dict(quality=92, subsampling=2)), ("png", "png", dict(compress_level=6)),
                               ("tiff", "tif", dict(compression="tiff_adobe_deflate"))):
        path = os.path.join(work, "12mp-" + kind, f"img{i:03d}.{ext}")
        if os.path.exists(path):
            continue
        if image is None:
            image = Image.open(source).convert("RGB").resize((4000, 3000), Image.LANCZOS)
            if i >= len(sources):
                image = image.transpose(Image.FLIP_LEFT_RIGHT)
        image.save(path, **options)
print(origin)
"""


def make_images(python, count):
    """The 12 MP sets, made once; returns where their pixels came from."""
    return subprocess.run(
        [python, "-c", MAKE_IMAGES, WORK, str(count), WALLPAPERS, os.path.join(ROOT, "Datasets", "blur", "images")],
        check=True, capture_output=True, text=True).stdout.strip()


def files_in(folder, endings):
    found = []
    for root, _, names in os.walk(folder):
        found += [os.path.join(root, n) for n in names if n.lower().endswith(endings)]
    return sorted(found)


def run(command, stdin=None):
    """Wall seconds and peak resident MiB of one command, output discarded."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if stdin:
        process.stdin.write(stdin)
        process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


PILLOW_DECODE = r"""
import sys
from PIL import Image
for path in sys.argv[1:]:
    with Image.open(path) as image:
        image.load()
"""


def decode_only(files, python):
    """Seconds and peak MiB of decoding alone: `djpeg -ppm` for JPEG, one process per file
    (as a shell loop does); Pillow's `load()` in one process for PNG and TIFF (netpbm's
    converters are several times slower than libpng and libtiff themselves)."""
    if not files[0].lower().endswith((".jpg", ".jpeg")):
        return run([python, "-c", PILLOW_DECODE] + files)
    total, peak = 0.0, 0.0
    for path in files:
        seconds, mib = run(["djpeg", "-ppm", path])
        total += seconds
        peak = max(peak, mib)
    return total, peak


def measure(name, files, binary, python, rounds):
    jpeg = files[0].lower().endswith((".jpg", ".jpeg"))
    decoder = "djpeg -ppm, a process per file" if jpeg else "Pillow load(), one process"
    commands = {
        f"decode only ({decoder})": lambda: decode_only(files, python),
        "imgquality score --jobs 1": lambda: run([binary, "score", "--jobs", "1", "--format", "jsonl"] + files),
        "imgquality score --jobs 2": lambda: run([binary, "score", "--jobs", "2", "--format", "jsonl"] + files),
        "OpenCV, common script": lambda: run([python, "-c", OPENCV_COMMON] + files),
        "OpenCV, careful script": lambda: run([python, "-c", OPENCV_CAREFUL] + files),
    }
    times = {label: [] for label in commands}
    peaks = {label: 0.0 for label in commands}
    for _ in range(rounds):
        for label, command in commands.items():
            seconds, mib = command()
            times[label].append(seconds)
            peaks[label] = max(peaks[label], mib)
    medians = {label: statistics.median(t) for label, t in times.items()}
    baseline = medians[next(iter(commands))]
    careful = medians["OpenCV, careful script"]
    print(f"\n**{name}**: {len(files)} files, median of {rounds} rounds\n")
    print("| command | per image | ratio to decode only | ratio to careful OpenCV | peak memory |")
    print("|---|---|---|---|---|")
    for label in commands:
        per = medians[label] / len(files) * 1000
        print(f"| {label} | {per:.1f} ms | {medians[label] / baseline:.2f} | {medians[label] / careful:.2f} | {peaks[label]:.0f} MiB |")
    one, two = medians["imgquality score --jobs 1"], medians["imgquality score --jobs 2"]
    print(f"\n`--jobs 2` throughput: {one / two:.2f}× one job.")


def measure_ocr(binary, rounds):
    """`imgquality ocr` on rendered pages: one job against two, and the default environment
    against `OMP_THREAD_LIMIT=1` (imgquality limits Tesseract's threads itself)."""
    pages = sorted(files_in(os.path.join(ROOT, "Datasets", "documents", "images"), ("_clean.png",)))[:6]
    if not pages:
        return
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    commands = {
        "ocr --jobs 1": ([binary, "ocr", "--force", "--format", "text", "--jobs", "1"] + pages, quiet),
        "ocr --jobs 1, OMP_THREAD_LIMIT=1 set": ([binary, "ocr", "--force", "--format", "text", "--jobs", "1"] + pages,
                                                 dict(quiet, OMP_THREAD_LIMIT="1")),
        "ocr --jobs 2": ([binary, "ocr", "--force", "--format", "text", "--jobs", "2"] + pages, quiet),
    }
    times = {label: [] for label in commands}
    for _ in range(rounds):
        for label, (command, env) in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            times[label].append(time.perf_counter() - start)
    medians = {label: statistics.median(t) for label, t in times.items()}
    print(f"\n**ocr**: {len(pages)} rendered pages of `Datasets/documents`, median of {rounds} rounds\n")
    print("| command | per page | ratio to one job |")
    print("|---|---|---|")
    for label, median in medians.items():
        print(f"| {label} | {median / len(pages) * 1000:.0f} ms | {median / medians['ocr --jobs 1']:.2f} |")
    print(f"\n`ocr --jobs 2` throughput: {medians['ocr --jobs 1'] / medians['ocr --jobs 2']:.2f}× one job.")


def memory_curve(binary, count):
    """Resident MiB of one long batch after record 100, 500, 1 000, … `count`."""
    files = files_in(os.path.join(WORK, "12mp-jpeg"), (".jpg",))
    paths = "".join(files[i % len(files)] + "\n" for i in range(count)).encode()
    process = subprocess.Popen([binary, "score", "--jobs", "1", "--format", "jsonl", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    # Fed from a thread: records come back while paths still go in.
    feeder = threading.Thread(target=lambda: (process.stdin.write(paths), process.stdin.close()))
    feeder.start()
    marks = sorted({100, 500} | set(range(1000, count + 1, 1000)) | {count})
    print(f"\n**Memory over one batch** of {count} 12 MP JPEGs (`imgquality score --jobs 1`, paths on stdin)\n")
    print("| after record | resident |")
    print("|---|---|")
    done = 0
    for _ in process.stdout:
        done += 1
        if done in marks:
            with open(f"/proc/{process.pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            print(f"| {done} | {rss / 1024:.1f} MiB |", flush=True)
    _, _, usage = os.wait4(process.pid, 0)
    print(f"\nPeak resident over the batch: {usage.ru_maxrss / 1024:.1f} MiB.")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=20, help="12 MP images per format (default 20)")
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    parser.add_argument("--memory-curve", type=int, metavar="N")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"{args.binary} not found: build it with `swift build -c release --product imgquality`")
    ensure_tools()
    python = ensure_venv()
    origin = make_images(python, args.count)
    if args.memory_curve:
        memory_curve(args.binary, args.memory_curve)
        return
    print(f"imgquality {subprocess.run([args.binary, '--version'], capture_output=True, text=True).stdout.strip()}; "
          f"{os.cpu_count()} cores; 12 MP images made from the {origin}")
    sets = [(f"12mp-{kind}", files_in(os.path.join(WORK, f"12mp-{kind}"), (".jpg", ".png", ".tif"))) for kind in ("jpeg", "png", "tiff")]
    exif = os.path.join(SHARED, "exif-samples")
    if os.path.isdir(exif):
        sets.append(("exif-samples (camera JPEGs)", [f for f in files_in(exif, (".jpg", ".jpeg")) if os.path.getsize(f) > 200_000]))
    if args.inputs:
        given = []
        for item in args.inputs:
            given += files_in(item, (".jpg", ".jpeg")) if os.path.isdir(item) else [item]
        sets.append(("given", given))
    for name, files in sets:
        if files:
            measure(name, files, args.binary, python, args.rounds)
    measure_ocr(args.binary, args.rounds)


if __name__ == "__main__":
    main()
