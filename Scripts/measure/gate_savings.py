#!/usr/bin/env python3
"""What the default gate does for recognition: one row of the README's table.

    Scripts/measure/gate_savings.py cer LABELS.csv RECORDS.jsonl      (bad = CER > 0.1)
    Scripts/measure/gate_savings.py f1 LABELS.csv RECORDS.jsonl       (bad = score < 0.9)

RECORDS.jsonl is `imgquality ocr --force --format jsonl` over the images of LABELS.csv:
every image is recognized, and its record still has the gate's decision and the time of
each step. `cer` measures each image by the CER of imgquality's own reading against the
ground truth (`text_path`), computed as the documents set's labels were; `f1` uses the
labels' `score` column (a word F1 made by another reading) as it is. Recognition time
saved is the summed `timing.recognitionMs` of the rejected images over that of all images.
Run it with the datasets' virtual environment (`.venv-datasets/bin/python`), for build.py.
"""
import os
import sys
from functools import lru_cache

from measurelib import cer, labeled


@lru_cache(maxsize=None)
def text(path):
    return open(path, encoding="utf-8").read()


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("cer", "f1"):
        sys.exit(__doc__)
    measure, labels, records_path = sys.argv[1:]
    base = os.path.dirname(os.path.abspath(labels))
    rows = []
    for row, record, _ in labeled(labels, records_path):
        if measure == "cer":
            value = cer(text(os.path.join(base, row["text_path"])), record["text"] or "")
            bad = value > 0.1
        else:
            value = float(row["score"])
            bad = value < 0.9
        rows.append((record["gate"]["pass"], value, bad, record["timing"]["recognitionMs"]))
    accepted = [r for r in rows if r[0]]
    rejected = [r for r in rows if not r[0]]

    def mean(items):
        return sum(r[1] for r in items) / len(items) if items else float("nan")

    bad = [r for r in rows if r[2]]
    good = [r for r in rows if not r[2]]
    total_time = sum(r[3] for r in rows)
    saved = sum(r[3] for r in rejected)
    if not rows or total_time <= 0:
        sys.exit("no recognized images to count")
    name = "CER" if measure == "cer" else "F1"
    print(f"images {len(rows)}; accepted {len(accepted)} ({name} {mean(accepted):.3f}); rejected {len(rejected)} ({name} {mean(rejected):.3f})")
    print(f"bad reads prevented {sum(1 for r in rejected if r[2])} of {len(bad)}; good reads lost {sum(1 for r in rejected if not r[2])} of {len(good)}")
    print(f"recognitions skipped {len(rejected) / len(rows):.0%}; recognition time saved {saved / 1000:.1f} s of {total_time / 1000:.1f} s ({saved / total_time:.0%})")


if __name__ == "__main__":
    main()
