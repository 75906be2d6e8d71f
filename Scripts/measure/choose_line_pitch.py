#!/usr/bin/env python3
"""Chooses the gate's minimum line pitch (reason `textSize`) on the train split of Datasets/documents.

    imgquality score --format jsonl Datasets/documents/images > documents.jsonl
    Scripts/measure/choose_line_pitch.py Datasets/documents/labels.csv documents.jsonl

For each candidate minimum, replays the gate's decision from the records (every other
failure as recorded, `textSize` recomputed) and prints, per split, the pages Tesseract
reads well (CER < 0.05) that would be lost, the pages it misreads (CER > 0.3) that would
be rejected, and the F1 of rejecting CER > 0.1 (the criterion that chose the legibility
minimum). The choice is the largest minimum whose train F1 is the best: a size check that
rejects pages the reader reads is wrong, one that rejects nothing more than legibility is
harmless. The test split is printed for reference, never used to choose.
"""
import sys

from measurelib import labeled

CANDIDATES = [0, 8, 10, 11, 12, 13, 14, 15, 16, 18, 20]


def decisions(rows, minimum):
    """(CER, rejected) for each page under a minimum line pitch."""
    out = []
    for row, record in rows:
        reasons = [f["reason"] for f in record["gate"]["failures"] if f["reason"] != "textSize"]
        pitch = record.get("text", {}).get("linePitch", 0)
        if record["gate"]["content"] == "document" and 0 < pitch < minimum:
            reasons.append("textSize")
        out.append((float(row["cer"]), bool(reasons)))
    return out


def summary(pages):
    lost = sum(rejected for cer, rejected in pages if cer < 0.05)
    well = sum(cer < 0.05 for cer, _ in pages)
    caught = sum(rejected for cer, rejected in pages if cer > 0.3)
    misread = sum(cer > 0.3 for cer, _ in pages)
    tp = sum(rejected for cer, rejected in pages if cer > 0.1)
    fp = sum(rejected for cer, rejected in pages if cer <= 0.1)
    fn = sum(not rejected for cer, rejected in pages if cer > 0.1)
    f1 = 2 * tp / max(1, 2 * tp + fp + fn)
    return f1, f"lost {lost}/{well} (CER < 0.05), rejected {caught}/{misread} (CER > 0.3), F1 {f1:.3f}"


def main(labels_path, records_path):
    rows = [(row, record) for row, record, _ in labeled(labels_path, records_path)]
    splits = {split: [(row, rec) for row, rec in rows if row["split"] == split] for split in ("train", "test")}
    best, chosen = -1.0, None
    for minimum in CANDIDATES:
        f1, train = summary(decisions(splits["train"], minimum))
        _, test = summary(decisions(splits["test"], minimum))
        print(f"{minimum:>3} px  train: {train}  |  test: {test}")
        if f1 >= best:
            best, chosen = f1, minimum
    print(f"chosen: {chosen} px (the largest with the best train F1, {best:.3f})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
