#!/usr/bin/env python3
"""Accuracy of imgquality's detectors on labeled sets, beside simple baselines.

    Scripts/measure/accuracy.py exposure LABELS.csv RECORDS.jsonl
    Scripts/measure/accuracy.py ocr LABELS.csv RECORDS.jsonl
    Scripts/measure/accuracy.py binary DETECTOR LABELS.csv RECORDS.jsonl   (blur, smudge or exposure; test split when there is one)

RECORDS.jsonl is `imgquality score` output for the images of LABELS.csv (paths as
written by `imgquality score DIR`). Baselines are computed here from the same files
with Pillow and numpy:
  - mean luminance heuristic: |mean(gray) - 128| (exposure), mean(gray) (OCR);
  - Laplacian variance: var of the 4-neighbour Laplacian of the full-resolution gray
    image, what cv2.Laplacian(gray, cv2.CV_64F).var() computes;
  - pixel count (OCR).
Exposure rows whose label_source ends in _low_confidence are dropped. For the
exposure set, a scene-level split is reported too: scenes whose name has an odd
CRC-32 form split B; an under/over pair is one scene.
"""
import os
import re
import sys
import zlib

import numpy as np
from PIL import Image

from measurelib import labeled


def auc(scores, labels):
    """Mann-Whitney AUC: the chance a positive outranks a negative (ties count half)."""
    pos = [s for s, l in zip(scores, labels) if l == 1]
    neg = [s for s, l in zip(scores, labels) if l == 0]
    if not pos or not neg:
        return float("nan")
    wins = 0.0
    for p in pos:
        for n in neg:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(pos) * len(neg))


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a, b):
    ra, rb = np.array(ranks(a)), np.array(ranks(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def baselines(path):
    gray = np.asarray(Image.open(path).convert("L"), dtype=np.float64)
    lap = gray[1:-1, :-2] + gray[1:-1, 2:] + gray[:-2, 1:-1] + gray[2:, 1:-1] - 4 * gray[1:-1, 1:-1]
    return {"mean": gray.mean(), "lapvar": lap.var(), "pixels": gray.size}


def load(labels_path, records_path):
    return [(row, record, baselines(path)) for row, record, path in labeled(labels_path, records_path)]


def exposure(labels_path, records_path):
    rows = [r for r in load(labels_path, records_path) if not r[0]["label_source"].endswith("_low_confidence")]

    def split_b(row):
        # By scene, so an under/over pair never straddles the split: a CRC of the name without _A/_B.
        stem = os.path.splitext(os.path.basename(row["path"]))[0]
        scene = re.sub(r"_[AB]$", "", stem)
        return zlib.crc32(scene.encode()) % 2 == 1

    for name, subset in [("all", rows), ("split A", [r for r in rows if not split_b(r[0])]), ("split B (held out)", [r for r in rows if split_b(r[0])])]:
        labels = [int(r[0]["label"]) for r in subset]
        print(f"exposure-dev {name}: {len(subset)} images, {sum(labels)} badly exposed")
        print(f"  imgquality exposure.confidence   AUC {auc([r[1]['exposure']['confidence'] for r in subset], labels):.3f}")
        print(f"  |mean luminance - 128|           AUC {auc([abs(r[2]['mean'] - 128) for r in subset], labels):.3f}")
        print(f"  1 / Laplacian variance           AUC {auc([-r[2]['lapvar'] for r in subset], labels):.3f}")


def ocr(labels_path, records_path):
    rows = load(labels_path, records_path)
    if any(r[0].get("split") for r in rows):
        subsets = [("all", rows)] + [(f"{split} split", [r for r in rows if r[0]["split"] == split]) for split in ("train", "test")]
    else:
        subsets = [("all", rows), ("phone photos", [r for r in rows if r[0].get("set", "") != "0_1"])]
    for name, subset in subsets:
        target = [float(r[0]["score"]) for r in subset]
        print(f"{labels_path} {name}: {len(subset)} images, Spearman with OCR score")
        print(f"  imgquality gate.score            {spearman([r[1]['gate']['score'] for r in subset], target):+.3f}")
        print(f"  text.strokeWidth                 {spearman([r[1]['text']['strokeWidth'] for r in subset], target):+.3f}")
        print(f"  text.linePitch                   {spearman([r[1]['text'].get('linePitch', 0) for r in subset], target):+.3f}")
        print(f"  text.legibility                  {spearman([r[1]['text'].get('legibility', 0) for r in subset], target):+.3f}")
        print(f"  1 - blur.confidence              {spearman([1 - r[1]['blur']['confidence'] for r in subset], target):+.3f}")
        print(f"  Laplacian variance               {spearman([r[2]['lapvar'] for r in subset], target):+.3f}")
        print(f"  mean luminance                   {spearman([r[2]['mean'] for r in subset], target):+.3f}")
        print(f"  pixel count                      {spearman([r[2]['pixels'] for r in subset], target):+.3f}")
        passed = [r for r in subset if r[1]["gate"]["pass"]]
        rejected = [r for r in subset if not r[1]["gate"]["pass"]]
        mean = lambda rs: sum(float(r[0]["score"]) for r in rs) / len(rs) if rs else float("nan")
        print(f"  gate passes {len(passed)} (mean OCR score {mean(passed):.3f}), rejects {len(rejected)} (mean {mean(rejected):.3f})")


def binary(detector, labels_path, records_path):
    rows = load(labels_path, records_path)
    if any(r[0].get("split") == "test" for r in rows):
        rows = [r for r in rows if r[0].get("split") == "test"]
        which = "test split"
    else:
        which = "all rows (no split)"
    labels = [int(r[0]["label"]) for r in rows]
    print(f"{labels_path} {which}: {len(rows)} images, {sum(labels)} defective")
    print(f"  imgquality {detector}.confidence{'':<{14 - len(detector)}} AUC {auc([r[1][detector]['confidence'] for r in rows], labels):.3f}")
    print(f"  1 / Laplacian variance           AUC {auc([-r[2]['lapvar'] for r in rows], labels):.3f}")
    print(f"  |mean luminance - 128|           AUC {auc([abs(r[2]['mean'] - 128) for r in rows], labels):.3f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "binary":
        binary(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] in ("exposure", "ocr"):
        {"exposure": exposure, "ocr": ocr}[sys.argv[1]](sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
