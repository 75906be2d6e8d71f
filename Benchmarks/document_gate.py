#!/usr/bin/env python3
"""What the document gate costs and what it saves: gated against ungated recognition of the same
pages, in one run.

    Benchmarks/document_gate.py LABELS.csv [--split test] [--binary PATH] [--limit N]

LABELS.csv names pages (`path`, relative to it) with the word accuracy the recognizer reaches on
each (`score`), and optionally each page's Tesseract language (`language`: eng, deu, rus) and a
`split`: the page corpus's labels.csv (Scripts/corpus/PAGES.md) is such a file. Every page is
read once by `imgquality ocr --force --as-is --jobs 1` (OMP_THREAD_LIMIT=1; as it is, the reading the
labels are of), in its language: the record
holds the gate's decision, made before recognition, and the time of each step, so gated and
ungated recognition are compared on the same run. The probe's own time comes from one
`imgquality score --timings --jobs 1` over the same pages (its `probeMs`):

- the layout probe's cost against a full recognition at the accurate level (median over pages of
  the probe's time over the recognition's), when the model weighs the probe and it runs, and the
  whole gate's (decode and analysis, probe included) against recognizing every page;
- the recognition time the gate saves (the rejected pages' share of it);
- the mean accuracy of the pages the gate passes against that of all pages;
- the pages read below 0.5 that the gate stops, and those read at 0.9 or better that it loses.

The accuracy is the label's (what Tesseract reads on the page, measured when the labels were
made), not re-measured here.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

from benchlib import DEFAULT_BINARY


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labels")
    parser.add_argument("--split", help="only rows of this split")
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    parser.add_argument("--limit", type=int, help="the first N rows (after --split)")
    args = parser.parse_args()

    base = os.path.dirname(os.path.abspath(args.labels))
    rows = [r for r in csv.DictReader(open(args.labels)) if not args.split or r.get("split") == args.split]
    rows = rows[: args.limit] if args.limit else rows
    by_language = {}
    for row in rows:
        by_language.setdefault(row.get("language") or "eng", []).append(row)
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    pages = []
    for language, group in sorted(by_language.items()):
        paths = {os.path.abspath(os.path.join(base, r["path"])): r for r in group}
        run = subprocess.run(
            [args.binary, "ocr", "--force", "--as-is", "--jobs", "1", "--quiet", "--format", "jsonl", "--languages", language, "-"],
            input="\n".join(paths) + "\n", capture_output=True, text=True, env=env)
        if run.returncode >= 2:
            sys.exit(f"imgquality ocr failed on the {language} pages (status {run.returncode}): {run.stderr.strip()}")
        timed = subprocess.run(
            [args.binary, "score", "--timings", "--jobs", "1", "--quiet", "--format", "jsonl", "--languages", language, "-"],
            input="\n".join(paths) + "\n", capture_output=True, text=True, env=env)
        if timed.returncode >= 2:
            sys.exit(f"imgquality score failed on the {language} pages (status {timed.returncode}): {timed.stderr.strip()}")
        probe_ms = {}
        for line in timed.stdout.splitlines():
            record = json.loads(line)
            if "probeMs" in record.get("timings", {}):
                probe_ms[os.path.abspath(record["path"])] = record["timings"]["probeMs"]
        for line in run.stdout.splitlines():
            record = json.loads(line)
            row = paths.get(os.path.abspath(record["path"]))
            if row is None or "error" in record:
                continue
            timing = record["timing"]
            pages.append({
                "score": float(row["score"]), "pass": record["gate"]["pass"], "document": record["gate"]["content"] == "document",
                "recognition": timing["recognitionMs"], "gate": timing.get("decodeMs", 0) + timing["analysisMs"],
                "probe": probe_ms.get(os.path.abspath(record["path"])),
            })
    if not pages:
        sys.exit("no page was read (check the labels' paths and the binary)")

    passed = [p for p in pages if p["pass"]]
    recognition = sum(p["recognition"] for p in pages)
    probed = [p for p in pages if p["probe"] is not None]
    poor = [p for p in pages if p["score"] < 0.5]
    good = [p for p in pages if p["score"] >= 0.9]

    def mean(values):
        return statistics.fmean(values) if values else float("nan")

    print(f"{len(pages)} pages ({sum(p['document'] for p in pages)} judged documents), {len(passed)} passed; "
          f"read one at a time with OMP_THREAD_LIMIT=1 by {os.path.relpath(args.binary)}")
    print()
    print("| measure | value |")
    print("|---|---|")
    if probed:
        ratios = [p["probe"] / p["recognition"] for p in probed if p["recognition"] > 0]
        print(f"| layout probe / full recognition (median over {len(ratios)} documents) | {statistics.median(ratios):.1%} |")
    print(f"| decode and analysis (and the probe, where one ran) / recognition of every page | {sum(p['gate'] for p in pages) / recognition:.1%} |")
    print(f"| recognition time saved (the rejected pages' share) | {1 - sum(p['recognition'] for p in passed) / recognition:.1%} |")
    print(f"| mean word accuracy: pages passed / all pages | {mean([p['score'] for p in passed]):.3f} / {mean([p['score'] for p in pages]):.3f} |")
    print(f"| pages read below 0.5 stopped | {sum(not p['pass'] for p in poor)} of {len(poor)} |")
    print(f"| pages read at 0.9 or better lost | {sum(not p['pass'] for p in good)} of {len(good)} |")


if __name__ == "__main__":
    main()
