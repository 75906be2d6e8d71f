#!/usr/bin/env python3
"""The smudge detector on the lens simulator of Datasets/smudge applied to real clean photos.

    swift build -c release --product imgquality
    .venv-datasets/bin/python Scripts/measure/simulated_smudge.py [--shared ../shared/datasets] [--out DIR]

`Datasets/smudge` has 16 source photographs; this script puts the same contamination
(`Scripts/datasets/build.py`: `oil_film`, `water_drops`, `scratches`, `dust`) on the real clean
photos of the shared `smudge-dev` set (label 0: camera photos of exif-samples and the
well-exposed photos of exposure-dev, many cameras and scenes), each resized to a long side of
768 px as the dataset's are. Per photo: the clean photo and two clean variants (sensor noise
σ = 4 levels; a Gaussian blur of σ = 0.003 L) as negatives, and one image of each kind of
contamination (oil over the whole glass at strength 0.4, 0.6 or 0.8 in turn; a film over
part of it; drops; a scratched film; dust). The images are written to `--out` (a temporary
folder by default; never the repository) and scored with `imgquality score` at default
settings. Prints the AUC of `smudge.confidence` per kind against all negatives, and how many
of each the gate rejects for `smudge`.

The source photos were looked at while the detector was designed (`smudge-dev`); the
contamination is the project's simulator. The figures measure how the detector ranks the
simulator's kinds across many real scenes, not real contamination.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from multiprocessing import Pool

from PIL import Image, ImageOps

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Scripts", "datasets"))
import build  # noqa: E402  (the dataset generator's simulator)

from measurelib import auc  # noqa: E402

SEED = 20261124
KINDS = ["oil", "partial", "drops", "scratch", "dust"]


def variants(task):
    """Writes the clean photo, its two clean variants and one image per kind; returns their rows."""
    index, path, out = task
    name = f"p{index:02d}"
    u8 = build.from_pil(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
    scale = min(1.0, build.PHOTO_LONG_SIDE / max(u8.shape[:2]))
    if scale < 1:
        u8 = build.area_resize(u8, max(1, round(u8.shape[1] * scale)), max(1, round(u8.shape[0] * scale)))
    L = max(u8.shape[:2])
    lin = build.srgb_to_linear(u8)
    rows = []

    def emit(kind, pixels, label):
        file = os.path.join(out, f"{name}_{kind}.jpg")
        with open(file, "wb") as f:
            f.write(build.encode_jpeg(pixels, build.PHOTO_JPEG_QUALITY))
        rows.append(dict(file=file, kind=kind, label=label, source=path))

    def camera(linear, kind):
        """Sensor noise (σ = 2 levels) on the contaminated image, as the dataset adds."""
        return build.add_noise(build.linear_to_srgb_u8(linear), 2.0, build.rng_for(SEED, name, kind, "camera"))

    def rng(kind):
        return build.rng_for(SEED, name, kind)

    emit("clean", u8, 0)
    emit("noise", build.add_noise(u8, build.NOISE_LEVELS, rng("noise")), 0)
    emit("gaussian", build.linear_to_srgb_u8(build.gaussian(lin, build.SMUDGE_BLUR_NEGATIVE * L)), 0)
    oil, _ = build.oil_film(lin, L, rng("oil"), build.OIL_STRENGTHS[index % 3], 1.0)
    emit("oil", camera(oil, "oil"), 1)
    r = rng("partial")
    partial, _ = build.oil_film(lin, L, r, build.OIL_STRENGTHS[(index + 1) % 3], float(r.uniform(0.3, 0.6)))
    emit("partial", camera(partial, "partial"), 1)
    drops, _, _ = build.water_drops(lin, L, rng("drops"))
    emit("drops", camera(drops, "drops"), 1)
    emit("scratch", camera(build.scratches(lin, L, rng("scratch")), "scratch"), 1)
    dusty, _ = build.dust(lin, L, rng("dust"))
    emit("dust", camera(dusty, "dust"), 1)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "datasets"))
    parser.add_argument("--out", help="folder for the simulated images (default: a temporary folder)")
    parser.add_argument("--imgquality", default=os.path.join(ROOT, ".build", "release", "imgquality"))
    args = parser.parse_args()

    labels = os.path.join(args.shared, "smudge-dev", "labels.csv")
    base = os.path.dirname(labels)
    sources = [os.path.normpath(os.path.join(base, r["path"])) for r in csv.DictReader(open(labels)) if r["label"] == "0"]
    out = args.out or tempfile.mkdtemp(prefix="simulated-smudge-")
    os.makedirs(out, exist_ok=True)
    with Pool(2) as pool:
        rows = [row for rows in pool.map(variants, [(i, s, out) for i, s in enumerate(sources)]) for row in rows]

    run = subprocess.run([args.imgquality, "score", "--jobs", "2", "--format", "jsonl", "-"],
                         input="\n".join(r["file"] for r in rows) + "\n", capture_output=True, text=True)
    records = {os.path.abspath(json.loads(l)["path"]): json.loads(l) for l in run.stdout.splitlines()}
    for row in rows:
        record = records[os.path.abspath(row["file"])]
        row["confidence"] = record["smudge"]["confidence"]
        row["flagged"] = "smudge" in record["gate"]["reasons"]

    negatives = [r for r in rows if r["label"] == 0]
    positives = [r for r in rows if r["label"] == 1]
    print(f"{len(sources)} clean photos of smudge-dev, simulated contamination; images in {out}\n")
    print("| kind | n | AUC of smudge.confidence against the clean variants | gate rejects for smudge |")
    print("|---|---|---|---|")
    neg = [r["confidence"] for r in negatives]
    for kind in KINDS:
        group = [r for r in positives if r["kind"] == kind]
        flagged = sum(r["flagged"] for r in group)
        print(f"| {kind} | {len(group)} | {auc([r['confidence'] for r in group], neg):.3f} | {flagged}/{len(group)} |")
    flagged = sum(r["flagged"] for r in positives)
    print(f"| all contamination | {len(positives)} | {auc([r['confidence'] for r in positives], neg):.3f} | {flagged}/{len(positives)} |")
    clean_flagged = sum(r["flagged"] for r in negatives)
    print(f"| clean, noise, blur (negatives) | {len(negatives)} | — | {clean_flagged}/{len(negatives)} |")


if __name__ == "__main__":
    main()
