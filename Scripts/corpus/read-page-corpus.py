#!/usr/bin/env python3
"""Labels a page corpus (Scripts/corpus/PAGES.md) by what imgquality's own recognizer reads.

    .venv-corpus/bin/python Scripts/corpus/read-page-corpus.py CORPUS [--binary PATH] [--jobs 2] [--prepared]

`pages.py` labels each image by running the `tesseract` program on the JPEG file. imgquality
reads a page through libtesseract from its luma (`TesseractRecognizer`), and the program
reads the file's colour, which Tesseract binarises channel by channel: on most pages the two
read the same, but a pale coloured desk, or a scan's tinted paper, can make one of them lose
text the other keeps (on the 640 pages of `make-page-corpus.sh --count 640` their word F1
differ by more than 0.2 on 28 pages, Spearman 0.97 between them). The reading predictor
predicts what `imgquality ocr --as-is` will read (the photo's pixels as they are), so it is
fitted on this reading. With `--prepared`, each page is read as `imgquality ocr` reads it by
default (a page judged as a document is seen straight on first, its rules and barcodes painted
out).

Every image is read with `imgquality ocr --force --as-is --format jsonl` (without `--as-is`
when `--prepared`) in its page's language
(OMP_THREAD_LIMIT=1, `--jobs` images at a time) and scored against the page's true text
exactly as `pages.py` scores the program's reading (word F1, CER). Writes, beside labels.csv:

- `labels-imgquality.csv`: labels.csv's rows with `score`, `cer`, `ocr_words`, `tess_conf`
  and `ocr` from imgquality's reading (`tess_conf`: the mean confidence of the lines read),
  and the program's `score` and `cer` kept as `program_score` and `program_cer`;
- `ocr-imgquality/<image>.txt`: what imgquality read;
- with `--prepared`, `labels-prepared.csv` and `ocr-prepared/<image>.txt` instead.

The output depends only on the corpus and the binary, not on `--jobs`.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import pages  # noqa: E402  (the corpus's own scoring: word F1 and CER as its labels have them)


def read(binary, paths, language, jobs, prepared):
    """imgquality's record for each path, by absolute path."""
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    as_is = [] if prepared else ["--as-is"]
    done = subprocess.run([binary, "ocr", "--force", "--quiet", "--jobs", str(jobs), "--languages", language, "--format", "jsonl"] + as_is + ["-"],
                          input="\n".join(paths), capture_output=True, text=True, env=env)
    if done.returncode not in (0, 1, 2):
        sys.exit(f"imgquality ocr failed ({done.returncode}): {done.stderr.strip()[:400]}")
    return {os.path.abspath(record["path"]): record for record in map(json.loads, done.stdout.splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="a page corpus folder (labels.csv, images/, text/)")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "imgquality"))
    parser.add_argument("--jobs", type=int, default=2, help="images read at a time (default 2)")
    parser.add_argument("--prepared", action="store_true", help="read as `ocr` reads by default: labels-prepared.csv, ocr-prepared/")
    args = parser.parse_args()

    corpus = os.path.abspath(args.corpus)
    with open(os.path.join(corpus, "labels.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or "truth" not in rows[0]:
        sys.exit(f"{corpus}/labels.csv has no rows with a `truth` column (made with --no-ocr?)")
    records = {}
    for language in sorted({row["language"] for row in rows}):
        paths = [os.path.join(corpus, row["path"]) for row in rows if row["language"] == language]
        records.update(read(args.binary, paths, language, args.jobs, args.prepared))

    texts, labels = ("ocr-prepared", "labels-prepared.csv") if args.prepared else ("ocr-imgquality", "labels-imgquality.csv")
    os.makedirs(os.path.join(corpus, texts), exist_ok=True)
    out, missing = [], 0
    for row in rows:
        record = records.get(os.path.abspath(os.path.join(corpus, row["path"])))
        if record is None or "error" in record:
            missing += 1
            text, confidences = "", []
        else:
            text = record.get("text", "")
            confidences = [o["confidence"] for o in record.get("observations", []) if "confidence" in o]
        with open(os.path.join(corpus, row["truth"]), encoding="utf-8") as f:
            truth = f.read()
        f1, cer = pages.scores(truth, text)
        name = os.path.splitext(os.path.basename(row["path"]))[0] + ".txt"
        with open(os.path.join(corpus, texts, name), "w", encoding="utf-8") as f:
            f.write(text)
        out.append(dict(row, score=f"{f1:.6g}", cer=f"{cer:.6g}", ocr_words=str(len(text.split())),
                        tess_conf=f"{sum(confidences) / len(confidences):.6g}" if confidences else "0",
                        ocr=f"{texts}/{name}", program_score=row.get("score", ""), program_cer=row.get("cer", "")))
    # A corpus made with `pages.py --no-ocr` has no program reading: its columns come empty.
    columns = list(out[0].keys())
    with open(os.path.join(corpus, labels), "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(out)
    if missing:
        print(f"{missing} images had no reading (scored as empty)", file=sys.stderr)
    print(f"wrote {corpus}/{labels} ({len(out)} images)", file=sys.stderr)


if __name__ == "__main__":
    main()
