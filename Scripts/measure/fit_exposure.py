#!/usr/bin/env python3
"""Fits the exposure detector's two logistic models on the train split of Datasets/exposure.

    imgquality score --detectors exposure --format jsonl Datasets/exposure/images > exposure.jsonl
    Scripts/measure/fit_exposure.py Datasets/exposure/labels.csv exposure.jsonl

Under-exposure: the acceptable rows against the under-exposed ones, on the median and the
detail's 90th percentile (`detailP90`), both as stops from mid-grey. Over-exposure: the
acceptable rows against the over-exposed ones, on `detailP90` in stops and `highlightClip`.
Prints the weights on the raw scale, which ExposureDetector.underWeights and overWeights
hold, and the AUC of the larger log-odds on train and on the held-out test split.
"""
import math
import sys

import numpy as np

from measurelib import auc, fit_logistic, labeled


def stops(level):
    """An 8-bit level as stops from mid-grey, as ExposureDetector's `stops` computes it."""
    u = max(level, 0.5) / 255
    linear = u / 12.92 if u <= 0.04045 else ((u + 0.055) / 1.055) ** 2.4
    return math.log2(linear / 0.18)


def under_features(exposure):
    return [stops(exposure["median"]), stops(exposure["detailP90"])]


def over_features(exposure):
    return [stops(exposure["detailP90"]), exposure["highlightClip"]]


def main(labels_path, records_path):
    rows = [(row, record["exposure"]) for row, record, _ in labeled(labels_path, records_path)]
    train = [(row, e) for row, e in rows if row["split"] == "train"]
    acceptable = [e for row, e in train if row["label"] == "0"]
    under = [e for row, e in train if row["label"] == "1" and float(row["ev"]) < 0]
    over = [e for row, e in train if row["label"] == "1" and float(row["ev"]) > 0]
    models = {}
    for name, features, positives, names in [
        ("under", under_features, under, ["median", "detailP90"]),
        ("over", over_features, over, ["detailP90", "highlightClip"]),
    ]:
        X = [features(e) for e in acceptable + positives]
        y = [0] * len(acceptable) + [1] * len(positives)
        intercept, weights = fit_logistic(X, y)
        models[name] = (features, intercept, weights)
        print(name, "intercept", round(intercept, 4), *(f"{n} {w:.4f}" for n, w in zip(names, weights)))
    for split in ("train", "test"):
        part = [(row, e) for row, e in rows if row["split"] == split]
        evidence = [max(i + float(np.dot(w, f(e))) for f, i, w in models.values()) for _, e in part]
        pos = [z for (row, _), z in zip(part, evidence) if row["label"] == "1"]
        neg = [z for (row, _), z in zip(part, evidence) if row["label"] == "0"]
        print(split, "AUC", round(auc(pos, neg), 3))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
