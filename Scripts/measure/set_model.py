#!/usr/bin/env python3
"""Writes what calibration or a stated rule chose into a bundled detector model
(Sources/QualityMetrics/Models/DETECTOR.json), keeping the rest of the file.

    Scripts/measure/set_model.py DETECTOR --mapping-from PROFILE
        the mapping `imgquality calibrate` fitted for DETECTOR (profile.json), with that
        run's command, dataset, date and held-out AUC as the model's fit
    Scripts/measure/set_model.py DETECTOR --threshold-from PROFILE --rule WORDS
        the confidence threshold that calibration chose for DETECTOR
    Scripts/measure/set_model.py DETECTOR --threshold KEY=VALUE --rule WORDS
        a threshold chosen by a stated rule, not by a fit (the rule says which)

Numbers are rounded to 4 decimals, as the detectors read them.
"""
import argparse
import json
import os

from measurelib import MODEL_FORMAT, MODELS, write_model


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("detector")
    parser.add_argument("--mapping-from", metavar="PROFILE")
    parser.add_argument("--threshold-from", metavar="PROFILE")
    parser.add_argument("--threshold", metavar="KEY=VALUE")
    parser.add_argument("--rule", help="why the threshold sits there, in words")
    args = parser.parse_args()
    path = os.path.join(MODELS, f"{args.detector}.json")
    if not os.path.exists(path):
        with open(path, "w") as out:
            json.dump({"format": MODEL_FORMAT, "detector": args.detector, "evidence": {}, "thresholds": {}}, out)
    if args.mapping_from:
        profile = json.load(open(args.mapping_from))
        calibration = profile["detectors"][args.detector]
        fit = {
            "command": profile["command"],
            "data": profile["dataset"] + " (train split)",
            "created": profile["created"],
            "figures": {"testAUC": round(calibration["auc"], 4)} if calibration.get("auc") is not None else {},
        }
        write_model(path, args.detector, profile["dataset"], {}, mapping=calibration["mapping"], fit=fit)
    if args.threshold_from or args.threshold:
        if not args.rule:
            parser.error("a threshold needs --rule: the cost or criterion it was chosen for")
        if args.threshold_from:
            profile = json.load(open(args.threshold_from))
            key, value = args.detector, profile["detectors"][args.detector]["threshold"]
            rule = f"{args.rule} ({profile['command']})"
        else:
            key, value = args.threshold.split("=", 1)
            rule = args.rule
        write_model(path, args.detector, None, {}, thresholds={key: (float(value), rule)})


if __name__ == "__main__":
    main()
