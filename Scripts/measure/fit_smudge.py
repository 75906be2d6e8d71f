#!/usr/bin/env python3
"""Fits the smudge detector's combination of cues on the train split of Datasets/smudge.

    imgquality score --detectors smudge --format jsonl Datasets/smudge/images > smudge.jsonl
    Scripts/measure/fit_smudge.py Datasets/smudge/labels.csv smudge.jsonl [CUE ...]

Logistic regression (Newton–Raphson, ridge 0.01 on standardised features) of the
label on the smudge record's cues (by default the ones SmudgeDetector combines; name
others to compare). Prints the weights on the raw scale, which SmudgeDetector.weights
holds, and the AUC on train and on the held-out test split.
"""
import csv
import json
import os
import sys

import numpy as np

from measurelib import auc, fit_logistic

FEATURES = ["veilFraction", "veilShare"]


def main(labels_path, records_path, features=FEATURES):
    base = os.path.dirname(os.path.abspath(labels_path))
    records = {os.path.abspath(json.loads(l)["path"]): json.loads(l) for l in open(records_path)}
    X = {"train": [], "test": []}
    Y = {"train": [], "test": []}
    for row in csv.DictReader(open(labels_path)):
        smudge = records[os.path.abspath(os.path.join(base, row["path"]))]["smudge"]
        X[row["split"]].append([smudge[f] for f in features])
        Y[row["split"]].append(int(row["label"]))
    X = {k: np.array(v) for k, v in X.items()}
    Y = {k: np.array(v) for k, v in Y.items()}
    intercept, raw = fit_logistic(X["train"], Y["train"])
    print("intercept", round(intercept, 4))
    for name, value in zip(features, raw):
        print(name, round(float(value), 4))
    for split in ("train", "test"):
        z = intercept + X[split] @ raw
        print(split, "AUC", round(auc(z[Y[split] == 1], z[Y[split] == 0]), 3))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:] or FEATURES)
