#!/usr/bin/env python3
"""How well the document gate's predicted accuracy follows what Tesseract reads on the phone
photos of a structure set (Datasets/structure, or one made by Scripts/datasets/make-structure.sh
with another seed): a check of the reading predictor on layouts it was not fitted on.

Usage (with the venv that make-structure.sh makes, for build.py's imports):
  cd SET && imgquality ocr --force --as-is --format jsonl --jobs 2 phone > ocr.jsonl
  .venv-corpus/bin/python Scripts/measure/structure_reading.py SET/truth.jsonl SET/ocr.jsonl [--split train|test|all]

(`--as-is`: the predictor is fitted on pages read as they are; without it each page the gate
judges as a document is read prepared, docs/text-recognition.md.) Each phone photo's word F1
(Scripts/datasets/build.py `word_f1`) is taken between what was read
(the record's `text`) and the photo's truth: its paragraphs, list items and table cells (text
outside them, such as a barcode's digits, counts as read in excess). Prints the Spearman
correlation of `gate.score` with the word F1, and how many photos read below 0.5 the gate
rejects and how many read at 0.9 or better it rejects.
"""

import argparse
import json
import sys

from measurelib import DATASETS, spearman
from structure_accuracy import match_records

sys.path.insert(0, DATASETS)
from build import word_f1  # noqa: E402


def truth_text(t):
    parts = [p["text"] for p in t["paragraphs"]]
    parts += [item["text"] for lst in t["lists"] for item in lst["items"]]
    parts += [cell["text"] for table in t["tables"] for cell in table["cells"]]
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth")
    ap.add_argument("records")
    ap.add_argument("--split", default="all", choices=("train", "test", "all"))
    args = ap.parse_args()
    records = [json.loads(line) for line in open(args.records, encoding="utf-8") if line.strip()]
    photos = [t for t in map(json.loads, open(args.truth, encoding="utf-8"))
              if t["capture"] == "phone" and args.split in ("all", t["split"])]
    by_path = match_records(photos, records)
    scores, f1s, passed = [], [], []
    for t in photos:
        record = by_path[t["path"]]
        if record is None or "gate" not in record:
            print(f"no record for {t['path']}", file=sys.stderr)
            continue
        scores.append(record["gate"]["score"])
        f1s.append(word_f1(truth_text(t), record.get("text") or ""))
        passed.append(record["gate"]["pass"])
    if not scores:
        sys.exit("no phone photo of the truth has a record")
    bad = [p for p, f in zip(passed, f1s) if f < 0.5]
    good = [p for p, f in zip(passed, f1s) if f >= 0.9]
    print(f"phone photos: {len(scores)}")
    print(f"Spearman of gate.score with word F1: {spearman(scores, f1s):.3f}")
    print(f"read below 0.5: {len(bad)}, rejected {sum(1 for p in bad if not p)}")
    print(f"read at 0.9 or better: {len(good)}, rejected {sum(1 for p in good if not p)}")


if __name__ == "__main__":
    main()
