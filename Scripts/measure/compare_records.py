#!/usr/bin/env python3
"""Compares two runs of `imgquality score` over the same inputs, record by record.

A refactor that must not change what users see is checked with it: score every image
before and after, then

    Scripts/measure/compare_records.py before.jsonl after.jsonl [--ignore gate.reasons ...]

`elapsedMs` is always ignored. Each `--ignore` names a dotted member left out of the
comparison (`gate.reasons`, `gate.failures`). Prints the number of records that differ,
the first few differences, and exits 1 when any record differs.
"""
import argparse
import json
import sys


def drop(record, dotted):
    parts = dotted.split(".")
    node = record
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return
    if isinstance(node, dict):
        node.pop(parts[-1], None)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--ignore", action="append", default=[], help="a dotted member to leave out")
    parser.add_argument("--show", type=int, default=3, help="differences to print")
    args = parser.parse_args()
    with open(args.before) as f:
        before = [json.loads(line) for line in f if line.strip()]
    with open(args.after) as f:
        after = [json.loads(line) for line in f if line.strip()]
    if len(before) != len(after):
        print(f"{len(before)} records before, {len(after)} after")
        return 1
    differing = 0
    for old, new in zip(before, after):
        for record in (old, new):
            for member in ["elapsedMs"] + args.ignore:
                drop(record, member)
        if old != new:
            differing += 1
            if differing <= args.show:
                print("before:", json.dumps(old, sort_keys=True)[:600])
                print("after: ", json.dumps(new, sort_keys=True)[:600])
    print(f"{len(before)} records, {differing} differ (ignoring elapsedMs{''.join(', ' + m for m in args.ignore)})")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
