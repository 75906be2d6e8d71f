#!/usr/bin/env python3
"""Whether the gate decides alike on the same photo stored as PNG, WebP, HEIC, AVIF, JPEG XL, PDF, GIF and BMP.

    .venv-bench/bin/python Scripts/measure/format_agreement.py [--shared ../shared/datasets] [--limit 120]
        [--imgquality .build/release/imgquality] [--work DIR] [--keep] [--formats gif,bmp]

Needs `cwebp` (Debian package `webp`), `heif-enc` (`libheif-examples`), `cjxl` (`libjxl-tools`) and `img2pdf`; a
missing tool is named and its formats skipped. Photos: the JPEG files under `exposure-dev/`,
`smudge-dev/` and `exif-samples/` of the shared folder that Pillow reads as JPEG, of at least
0.3 megapixels, the first `--limit` of them in sorted path order. Each is opened with Pillow,
turned upright by its EXIF orientation (`ImageOps.exif_transpose`), converted to RGB and saved
as a lossless PNG reference in the working folder (`--work DIR`, left in place; by default a
temporary folder, removed at the end unless `--keep`). The reference is encoded, two encoders
at a time, with `cwebp -q 90` (lossy WebP), `heif-enc -q 90` (HEIC), `heif-enc --avif -q 90`
(AVIF), `cjxl -q 90` (JPEG XL), `img2pdf -s 300dpi` (a PDF page the image's size at 300 dpi,
rendered back by Poppler) and Pillow (GIF: 256 colours, dithered; 24-bit BMP); `--formats`
chooses some of them. Every format is scored with one `imgquality score --jobs 2 --format jsonl -` call.

Prints the command line, then a Markdown table: per format, the photos, how many were encoded
and decoded (a record without an error), how many decoded to the reference's width and height,
how many got the same gate decision (`gate.pass`) as the PNG reference (the PNG row compares
the reference with itself), that count over the photos, and the first three errors. Then, per
format, at most ten photos whose decision differs, with both gate scores and rejection reasons.
Nothing is written to the repository.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

from PIL import Image, ImageOps

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOLDERS = ["exposure-dev", "smudge-dev", "exif-samples"]
MIN_PIXELS = 300_000
# Pillow in this interpreter's environment, saving its first argument as its second (the
# format from the name).
PILLOW_SAVE = [sys.executable, "-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).save(sys.argv[2])"]
# Format, tool, command for (input PNG, output file).
ENCODERS = [
    ("webp", "cwebp", lambda src, dst: ["cwebp", "-q", "90", src, "-o", dst]),
    ("heic", "heif-enc", lambda src, dst: ["heif-enc", "-q", "90", src, "-o", dst]),
    ("avif", "heif-enc", lambda src, dst: ["heif-enc", "--avif", "-q", "90", src, "-o", dst]),
    ("jxl", "cjxl", lambda src, dst: ["cjxl", "--num_threads=1", "-q", "90", src, dst]),
    # The PNG on a PDF page of its size at 300 dpi, so the 300 dpi rendering has its pixel size.
    ("pdf", "img2pdf", lambda src, dst: ["img2pdf", "--engine", "internal", "-s", "300dpi", src, "-o", dst]),
    # GIF: Pillow's conversion to a 256-colour palette (with its default dithering).
    ("gif", sys.executable, lambda src, dst: PILLOW_SAVE + [src, dst]),
    # 24-bit BMP, written by Pillow in this interpreter's environment.
    ("bmp", sys.executable, lambda src, dst: PILLOW_SAVE + [src, dst]),
]
SHOWN_ERRORS = 3
SHOWN_DIFFERENCES = 10


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.path.normpath(os.path.join(ROOT, "..", "shared", "datasets")),
                        help="folder holding exposure-dev/, smudge-dev/ and exif-samples/")
    parser.add_argument("--limit", type=int, default=120, help="photos kept, first in sorted path order")
    parser.add_argument("--imgquality", default=os.path.join(ROOT, ".build", "release", "imgquality"))
    parser.add_argument("--work", help="working folder for the PNG references and encodings (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary working folder")
    parser.add_argument("--formats", help="comma-separated formats to measure (default: all): " + ", ".join(e[0] for e in ENCODERS))
    return parser.parse_args()


def shown(path):
    """A path as the report names it: relative to the repository root."""
    return os.path.relpath(path, ROOT)


def jpeg_files(shared):
    """Every file named .jpg or .jpeg under the shared folders, in sorted path order."""
    paths = []
    for folder in FOLDERS:
        for base, _, names in os.walk(os.path.join(shared, folder)):
            paths += [os.path.join(base, name) for name in names if name.lower().endswith((".jpg", ".jpeg"))]
    return sorted(paths)


def make_references(sources, work, limit):
    """Saves an upright RGB PNG of the first `limit` sources that are readable JPEG photos of at
    least MIN_PIXELS; returns (source, png, (width, height)) for each and names the files Pillow
    cannot read."""
    photos = []
    for source in sources:
        if len(photos) == limit:
            break
        try:
            with Image.open(source) as image:
                if image.format != "JPEG" or image.width * image.height < MIN_PIXELS:
                    continue
                upright = ImageOps.exif_transpose(image).convert("RGB")
        except Exception as error:  # Pillow raises many kinds on damaged files
            print(f"Skipped, Pillow cannot read it: {shown(source)}: {error}\n")
            continue
        png = os.path.join(work, f"{len(photos):04d}_{os.path.splitext(os.path.basename(source))[0]}.png")
        upright.save(png, compress_level=1)
        photos.append((source, png, upright.size))
    return photos


def run(command):
    """Runs one encoder; None on success, else the end of what it said."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 0:
        return None
    return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-300:]}"


def encode(photos, formats):
    """Encodes every reference to every format, two encoders at a time; returns
    {format: {png: encoded path or None}} and {format: [(png, failure)]}."""
    jobs = {}
    with ProcessPoolExecutor(max_workers=2) as pool:
        for name, _, command in formats:
            for _, png, _ in photos:
                out = os.path.splitext(png)[0] + "." + name
                jobs[(name, png)] = (out, pool.submit(run, command(png, out)))
        outputs, failures = {}, {}
        for (name, png), (out, future) in jobs.items():
            failure = future.result()
            outputs.setdefault(name, {})[png] = None if failure else out
            if failure:
                failures.setdefault(name, []).append((png, failure))
    return outputs, failures


def score(imgquality, paths):
    """`imgquality score` records by absolute path, paths given on standard input."""
    if not paths:
        return {}
    done = subprocess.run([imgquality, "score", "--jobs", "2", "--format", "jsonl", "-"],
                          input="".join(path + "\n" for path in paths), capture_output=True, text=True)
    if done.returncode not in (0, 2):
        sys.exit(f"imgquality score failed (exit {done.returncode}): {done.stderr.strip()}")
    records = {}
    for line in done.stdout.splitlines():
        record = json.loads(line)
        records[os.path.abspath(record["path"])] = record
    return records


def compare(photos, files, records, reference):
    """Counts and differences of one format against the PNG reference's records."""
    row = {"encoded": 0, "decoded": 0, "size": 0, "same": 0, "errors": [], "differ": []}
    for source, png, size in photos:
        path = files.get(png)
        if path is None:
            continue
        row["encoded"] += 1
        record = records.get(os.path.abspath(path), {"error": {"code": "missing", "message": "no record"}})
        if "error" in record:
            row["errors"].append(record["error"])
            continue
        row["decoded"] += 1
        row["size"] += (record["width"], record["height"]) == size
        ref = reference.get(os.path.abspath(png), {})
        if "error" in ref:
            continue
        if ref["gate"]["pass"] == record["gate"]["pass"]:
            row["same"] += 1
        else:
            row["differ"].append((source, ref["gate"], record["gate"]))
    return row


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def report(photos, rows):
    n = len(photos)
    print("| format | photos | encoded | decoded | same size as reference | same gate decision | agreement | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, row in rows.items():
        errors = "; ".join(f"{e['code']}: {e['message']}" for e in row["errors"][:SHOWN_ERRORS])
        if len(row["errors"]) > SHOWN_ERRORS:
            errors += f" (and {len(row['errors']) - SHOWN_ERRORS} more)"
        agreement = f"{100 * row['same'] / n:.1f}%" if n else "–"
        print(f"| {name} | {n} | {row['encoded']} | {row['decoded']} | {row['size']} | {row['same']} | "
              f"{agreement} | {cell(errors) or '–'} |")
    for name, row in rows.items():
        if name == "png" or not row["differ"]:
            continue
        print(f"\n### {name}: decision differs from the PNG reference on {len(row['differ'])} of {len(photos)} photos\n")
        for source, ref, other in row["differ"][:SHOWN_DIFFERENCES]:
            print(f"- {shown(source)}: png {'pass' if ref['pass'] else 'reject'} (score {ref['score']}, "
                  f"reasons {ref['reasons']}) → {name} {'pass' if other['pass'] else 'reject'} "
                  f"(score {other['score']}, reasons {other['reasons']})")
        if len(row["differ"]) > SHOWN_DIFFERENCES:
            print(f"- … and {len(row['differ']) - SHOWN_DIFFERENCES} more")


def main():
    args = parse_args()
    print(f"`{shlex.join([sys.executable] + sys.argv)}`\n")
    formats = []
    wanted = args.formats.split(",") if args.formats else [e[0] for e in ENCODERS]
    for encoder in ENCODERS:
        if encoder[0] not in wanted:
            continue
        if shutil.which(encoder[1]):
            formats.append(encoder)
        else:
            print(f"{encoder[1]} is not installed: {encoder[0]} skipped\n")

    work = args.work or tempfile.mkdtemp(prefix="format_agreement_")
    os.makedirs(work, exist_ok=True)
    timings = []
    try:
        start = time.monotonic()
        photos = make_references(jpeg_files(args.shared), work, args.limit)
        timings.append(("PNG references", time.monotonic() - start))

        start = time.monotonic()
        outputs, failures = encode(photos, formats)
        timings.append(("encoding", time.monotonic() - start))

        start = time.monotonic()
        files = {"png": {png: png for _, png, _ in photos}} | outputs
        records = {name: score(args.imgquality, [p for p in paths.values() if p]) for name, paths in files.items()}
        timings.append(("scoring", time.monotonic() - start))

        rows = {name: compare(photos, files[name], records[name], records["png"]) for name in files}
        report(photos, rows)
        for name, failed in failures.items():
            print(f"\n{name}: {len(failed)} encodings failed, first: {shown(failed[0][0])}: {failed[0][1]}")
        print("\nTime: " + ", ".join(f"{stage} {seconds:.0f} s" for stage, seconds in timings))
    finally:
        if args.work is None and not args.keep:
            shutil.rmtree(work)
        else:
            print(f"\nWorking folder kept: {work}")


if __name__ == "__main__":
    main()
