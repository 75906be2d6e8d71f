#!/usr/bin/env python3
"""Candidate measures of a white-balance cast, read on the graded distortion ladders: does
any of them rise along the `cast` ladders, photo by photo and across photos, without
rising along the other kinds? An experiment (docs/experiments.md), not part of a model.

    Scripts/corpus/make-ladders.sh
    .venv-corpus/bin/python Scripts/measure/cast_measures.py [--ladders DIR] [--split train]

Each measure is an estimate of the light's colour as two log2 ratios, red over blue and
green against both, from the image in linear light (sRGB decoded) over pixels with no
channel clipped (below 6 or above 249):

- `grey-world`: the mean colour;
- `grey-edge p`: the Minkowski p-mean of the gradient's length per channel (p = 1, 2, 6);
- `white-patch`: the mean colour of the brightest 1%;
- `mean chroma`: the record's `aesthetic.colourCast` as the detector computes it (8-bit
  levels, R − G and (R + G)/2 − B).

For each measure (the length of its two ratios, or one ratio's size), per kind: `within`,
the mean over ladders of the Spearman correlation with the rung, and `pooled`, the Spearman
over all the kind's ladders together (ladder_measure.py). Then the spread of each estimate
over the clean rungs: a cast the scenes' own colour hides is one the measure cannot see.
"""
import argparse
import math
import os
import sys
from collections import defaultdict

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ladder_measure import ladder_rows  # noqa: E402
from measurelib import spearman  # noqa: E402


def linear(u8):
    u = u8.astype(np.float32) / 255
    return np.where(u <= 0.04045, u / 12.92, ((u + 0.055) / 1.055) ** 2.4)


def ratios(light):
    """The estimate as (log2 red/blue, log2 green²/(red·blue))."""
    r, g, b = (float(c) + 1e-9 for c in light)
    return math.log2(r / b), math.log2(g * g / (r * b))


def estimates(path):
    pixels = np.asarray(Image.open(path).convert("RGB"))
    light = linear(pixels)
    unclipped = (pixels.max(axis=2) < 250) & (pixels.min(axis=2) > 5)
    if not unclipped.any():
        unclipped[:] = True
    found = {"grey-world": ratios(light[unclipped].mean(axis=0))}
    gx = np.abs(np.diff(light, axis=1))[:-1]
    gy = np.abs(np.diff(light, axis=0))[:, :-1]
    gradient = np.sqrt(gx ** 2 + gy ** 2)
    inside = unclipped[:-1, :-1] & unclipped[1:, :-1] & unclipped[:-1, 1:]
    for p in (1, 2, 6):
        found[f"grey-edge {p}"] = ratios((gradient[inside] ** p).mean(axis=0) ** (1 / p))
    kept = light[unclipped]
    brightness = kept.sum(axis=1)
    found["white-patch"] = ratios(kept[brightness >= np.quantile(brightness, 0.99)].mean(axis=0))
    levels = pixels.astype(np.float64)
    rg = (levels[..., 0] - levels[..., 1]).mean()
    yb = ((levels[..., 0] + levels[..., 1]) / 2 - levels[..., 2]).mean()
    return found, math.hypot(rg, yb)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ladders", default=os.path.expanduser("~/.cache/imgquality/ladders"))
    parser.add_argument("--split", default="train")
    args = parser.parse_args()

    rows = ladder_rows(args.ladders, args.split)
    found = {r["file"]: estimates(r["file"]) for r in rows}
    measures = {"mean chroma": lambda f: found[f][1]}
    for name in found[rows[0]["file"]][0]:
        measures[f"{name}, length"] = lambda f, n=name: math.hypot(*found[f][0][n])
        measures[f"{name}, red/blue"] = lambda f, n=name: abs(found[f][0][n][0])
    ladders = defaultdict(list)
    for r in rows:
        ladders[(r["source"], r["kind"])].append(r)
    kinds = sorted({r["kind"] for r in rows})
    print(f"{len(rows)} images of the {args.split} split; within / pooled Spearman with the rung\n")
    print("| measure | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for name, measure in measures.items():
        cells = []
        for kind in kinds:
            within = [spearman([measure(r["file"]) for r in rungs], [r["level"] for r in rungs])
                      for (_, k), rungs in ladders.items() if k == kind]
            of_kind = [r for r in rows if r["kind"] == kind]
            pooled = spearman([measure(r["file"]) for r in of_kind], [r["level"] for r in of_kind])
            cells.append(f"{np.nanmean(within):+.2f} / {pooled:+.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    clean = [r["file"] for r in rows if r["level"] == 0 and r["kind"] == "cast"]
    print("\nThe estimate's length over the clean photos (log2 units; the cast rungs are 0.15–1.0):")
    for name in found[clean[0]][0]:
        lengths = np.array([math.hypot(*found[f][0][name]) for f in clean])
        print(f"- {name}: median {np.median(lengths):.2f}, 90th percentile {np.quantile(lengths, 0.9):.2f}")


if __name__ == "__main__":
    main()
