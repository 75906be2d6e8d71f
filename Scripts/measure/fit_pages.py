#!/usr/bin/env python3
"""How well the record's document measures predict what Tesseract reads: a first fit on the
page corpus (Scripts/corpus/PAGES.md), the baseline the document predictor has to beat.

    Scripts/corpus/make-page-corpus.sh --out CORPUS
    imgquality score --format jsonl --all-files CORPUS/images > CORPUS/score.jsonl
    Scripts/measure/fit_pages.py CORPUS CORPUS/score.jsonl [--report LABELS.csv RECORDS.jsonl ...]

Fits a logistic model of word F1 (the corpus's `score` column, a fraction, fitted by its
binomial likelihood) on a few of the `text` detector's measures, on the corpus's train
documents only (split by document), and prints on its held-out documents the Spearman of the
prediction, of today's `gate.score` and of the pixel count with the measured word F1, and how
many pages read below 0.5 and at 0.9 or better a threshold at predicted 0.5 would reject.
`--report` adds the same figures on other labeled sets (a `score` column), fitted on nothing.
Nothing is written: this measures whether the record's measures reach the information.
"""
import argparse
import csv
import math
import os

import numpy as np

from measurelib import fit_logistic, load_records, spearman


# The measures, each on the scale where its effect on reading is closest to linear: sizes and
# widths in logs, contrast in levels, the others as they are.
FEATURES = {
    "log xHeight": lambda r: math.log(max(r["text"]["xHeight"], 1)),
    "log legibility": lambda r: math.log(max(r["text"]["legibility"], 0.5)),
    "contrast": lambda r: r["text"]["contrast"],
    "log softEdgeWidth": lambda r: math.log(max(r["text"]["softEdgeWidth"], 0.5)),
    "edgeAnisotropy": lambda r: r["text"]["edgeAnisotropy"],
    "log noise": lambda r: math.log(r["aesthetic"]["noise"] + 0.1),
    "lineRegularity": lambda r: r["text"]["lineRegularity"],
}


def rows_with_records(labels, records_path):
    records = load_records(records_path)
    base = os.path.dirname(os.path.abspath(labels))
    out = []
    for row in csv.DictReader(open(labels)):
        record = records.get(os.path.abspath(os.path.join(base, row["path"])))
        if record is None or "error" in record or "text" not in record:
            continue
        out.append((row, record))
    return out


def figures(name, pairs, predict):
    truth = np.array([float(row["score"]) for row, _ in pairs])
    predicted = np.array([predict(record) for _, record in pairs])
    gate = np.array([record["gate"]["score"] for _, record in pairs])
    pixels = np.array([record["width"] * record["height"] for _, record in pairs])
    bad, good = truth < 0.5, truth >= 0.9
    print(f"{name} ({len(pairs)} pages): Spearman with the score (word F1; 1 − CER on Datasets/documents): predicted {spearman(predicted, truth):.3f}, "
          f"gate.score {spearman(gate, truth):.3f}, pixel count {spearman(pixels, truth):.3f}; "
          f"at predicted 0.5: rejects {int((predicted[bad] < 0.5).sum())}/{int(bad.sum())} scored below 0.5, "
          f"{int((predicted[good] < 0.5).sum())}/{int(good.sum())} at 0.9 or better")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("records")
    parser.add_argument("--report", nargs=2, action="append", default=[], metavar=("LABELS", "RECORDS"))
    parser.add_argument("--ridge", type=float, default=1.0)
    args = parser.parse_args()

    pairs = rows_with_records(os.path.join(args.corpus, "labels.csv"), args.records)
    train = [p for p in pairs if p[0]["split"] == "train"]
    test = [p for p in pairs if p[0]["split"] == "test"]
    names = list(FEATURES)
    X = [[FEATURES[n](record) for n in names] for _, record in train]
    y = [float(row["score"]) for row, _ in train]
    intercept, weights = fit_logistic(X, y, ridge=args.ridge)
    print(f"fitted on {len(train)} train pages ({len({row['document'] for row, _ in train})} documents):")
    print("  intercept", round(intercept, 4), *(f"{n} {w:.4f}" for n, w in zip(names, weights)))

    def predict(record):
        z = intercept + float(np.dot(weights, [FEATURES[n](record) for n in names]))
        return 1 / (1 + math.exp(-max(-60, min(60, z))))

    figures("corpus train", train, predict)
    figures("corpus test", test, predict)
    for labels, records in args.report:
        figures(os.path.relpath(labels), rows_with_records(labels, records), predict)


if __name__ == "__main__":
    main()
