"""Graded distortion ladders: each source photograph of the camera corpus (Debian's wallpaper
packages), rendered clean by a good camera, then through the same camera at five growing
strengths of each distortion a photo suffers: sensor noise, defocus, camera shake, JPEG
compression, under- and over-exposure, washed-out colour and a white-balance cast; and the
same photo rendered in black and white, as a photographer may choose to (a clean scene).

Usage: ladders.py --out DIR [--seed N] [--long-side PX] [--jobs J] [--sources IDS]
(normally run through Scripts/corpus/make-ladders.sh). Scripts/corpus/README.md says what
each rung is.

The ladders are for fitting and measuring the aesthetic score: within a ladder every rung
is worse than the one before it, whatever the scene. Like the camera corpus they are split
train/test by source photo (the same split), and rebuilt byte for byte from the seed: each
random draw comes from a generator seeded by (seed, source, kind, rung, purpose).
"""

import argparse
import csv
import io
import json
import math
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import camera as cam  # noqa: E402  (the camera: tone curve, sensor, kernels, sources)

ds = cam.ds
GENERATOR = "Scripts/corpus/ladders.py"
DEFAULT_SEED = 20261127
DEFAULT_LONG_SIDE = 1024
ASPECT = (4, 3)

# The reference camera: a large sensor at base ISO, metered right, saved at JPEG quality 95
# or, for half of the photos (by a hash of the source), losslessly as PNG, so that no rung
# but the JPEG ones carries a block grid that other distortions could be read from.
FULL_WELL = 20000.0
READ_NOISE = 2.0
QUALITY = 95
PNG_SHARE = 0.5

# Five rungs per kind, mildest first. Lengths are in pixels at DEFAULT_LONG_SIDE and scale
# with --long-side.
RUNGS = {
    "noise": [24.0, 12.0, 7.0, 4.5, 3.0],          # signal-to-noise ratio at mid-grey (ISO gain)
    "defocus": [0.8, 1.4, 2.2, 3.5, 5.5],          # disk radius, px
    "motion": [2.0, 4.0, 7.0, 11.0, 17.0],         # shake extent, px
    "jpeg": [60, 40, 25, 15, 8],                   # JPEG quality instead of 95
    "under": [-0.75, -1.5, -2.25, -3.0, -4.0],     # EV
    "over": [0.5, 1.0, 1.5, 2.0, 2.75],            # EV
    "desaturate": [0.7, 0.5, 0.35, 0.22, 0.12],    # saturation kept, in linear light (never 0: see below)
    "cast": [0.15, 0.3, 0.5, 0.75, 1.0],           # white-balance error: log2 of the red/blue gain ratio
}
KINDS = list(RUNGS)
# Scenes shot that way on purpose, one per photo, level 0 and no rungs: a black-and-white
# photo is a choice, not washed-out colour, so the desaturation ladder stops short of grey and
# the fit ranks each monochrome rendering with the clean photos (ladder_measure.intent_rows).
INTENT = {"monochrome": 0.0}   # saturation kept
LENGTH_KINDS = ("defocus", "motion")


def reference_scene(u8, long_side):
    """The photo cropped to 4:3 about its centre (its orientation), area-resampled in linear
    light to `long_side` (never up), as scene light in sensor units."""
    H0, W0 = u8.shape[:2]
    a = ASPECT[0] / ASPECT[1] if W0 >= H0 else ASPECT[1] / ASPECT[0]
    if W0 / H0 > a:
        cw, ch = round(H0 * a), H0
    else:
        cw, ch = W0, round(W0 / a)
    cx0, cy0 = (W0 - cw) // 2, (H0 - ch) // 2
    f = min(1.0, long_side / max(cw, ch))
    w, h = max(1, round(cw * f)), max(1, round(ch * f))
    crop = cam.SRGB_DECODE[u8[cy0:cy0 + ch, cx0:cx0 + cw]]
    d = cam.resize_float(crop, w, h) if (w, h) != (cw, ch) else crop
    return cam.tone_inverse(d)


def lossless(sid, seed):
    """Whether the photo's rungs (but the JPEG kind's) are saved as PNG."""
    return ds.rng_for(seed, "ladders", sid, "container").random() < PNG_SHARE


def encode(u8, quality, png):
    if png:
        out = io.BytesIO()
        Image.fromarray(u8).save(out, format="PNG", compress_level=6)
        return out.getvalue()
    return ds.encode_jpeg(u8, quality)


def rung(s, sid, kind, level, seed, scale):
    """One image of the ladder (level 0: the clean reference). Returns (bytes, strength, is PNG)."""
    key = (seed, "ladders", sid, kind, level)
    noise_rng = ds.rng_for(seed, "ladders", sid, "sensor")   # the same photons on every rung
    ev, gain, quality, strength = 0.0, 1.0, QUALITY, 0.0
    if kind in INTENT:
        strength = INTENT[kind]
        y = cam.luminance(s)[:, :, None]
        s = (y + strength * (s - y)).astype(np.float32)
    elif level > 0:
        strength = RUNGS[kind][level - 1]
        if kind == "noise":
            gain = cam.gain_for_snr(strength, FULL_WELL, READ_NOISE)
        elif kind == "defocus":
            s = cam.blur(s, ds.disk_kernel(strength * scale))
        elif kind == "motion":
            kernel, _, _ = cam.shake_kernel(strength * scale, ds.rng_for(*key, "shake"))
            s = cam.blur(s, kernel)
        elif kind == "jpeg":
            quality = int(strength)
        elif kind in ("under", "over"):
            ev = strength
        elif kind == "desaturate":
            y = cam.luminance(s)[:, :, None]
            s = (y + strength * (s - y)).astype(np.float32)
        elif kind == "cast":
            # Warm or cool by the source, the same way on every rung.
            sign = 1.0 if ds.rng_for(seed, "ladders", sid, "cast-direction").random() < 0.5 else -1.0
            gains = np.array([2.0 ** (sign * strength / 2), 1.0, 2.0 ** (-sign * strength / 2)], dtype=np.float32)
            s = s * gains
        else:
            raise ValueError(kind)
    v = cam.sensor(s, noise_rng, FULL_WELL, READ_NOISE, ev, gain)
    png = lossless(sid, seed) and not (kind == "jpeg" and level > 0)
    return encode(cam.render(v), quality, png), strength, png


def source_task(args):
    src, seed, long_side, out = args
    s = reference_scene(cam.load_source(src["path"]), long_side)
    scale = long_side / DEFAULT_LONG_SIDE
    h, w = s.shape[:2]
    rows = []
    t0 = time.time()
    data, _, png = rung(s, src["id"], "", 0, seed, scale)
    clean = f"images/{src['id']}_clean.{'png' if png else 'jpg'}"
    with open(os.path.join(out, clean), "wb") as f:
        f.write(data)
    for kind in KINDS:
        rows.append(dict(path=clean, source=src["id"], split=src["split"], kind=kind, level=0, strength=0,
                         width=w, height=h))
        for level in range(1, len(RUNGS[kind]) + 1):
            data, strength, png = rung(s, src["id"], kind, level, seed, scale)
            rel = f"images/{src['id']}_{kind}-{level}.{'png' if png else 'jpg'}"
            with open(os.path.join(out, rel), "wb") as f:
                f.write(data)
            rows.append(dict(path=rel, source=src["id"], split=src["split"], kind=kind, level=level,
                             strength=strength * scale if kind in LENGTH_KINDS else strength, width=w, height=h))
    for kind in INTENT:
        data, strength, png = rung(s, src["id"], kind, 0, seed, scale)
        rel = f"images/{src['id']}_{kind}.{'png' if png else 'jpg'}"
        with open(os.path.join(out, rel), "wb") as f:
            f.write(data)
        rows.append(dict(path=rel, source=src["id"], split=src["split"], kind=kind, level=0, strength=strength,
                         width=w, height=h))
    return src["id"], rows, time.time() - t0


COLUMNS = ["path", "source", "split", "kind", "level", "strength", "width", "height"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (its images/ and ladders.csv are replaced)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--long-side", type=int, default=DEFAULT_LONG_SIDE,
                    help=f"long side of every image (default {DEFAULT_LONG_SIDE}; never above the source's)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--sources", default="", help="comma-separated source ids (default: all)")
    args = ap.parse_args()
    if args.long_side < 64 or args.jobs < 1:
        sys.exit("--long-side >= 64 and --jobs >= 1")

    sources, _ = cam.discover_sources()
    sources = cam.select_sources(sources, args.sources)
    for s in sources:
        s["split"] = cam.split_of(s["id"])

    out = args.out
    os.makedirs(out, exist_ok=True)
    if os.path.isdir(os.path.join(out, "images")):
        shutil.rmtree(os.path.join(out, "images"))
    os.makedirs(os.path.join(out, "images"))
    tasks = [(s, args.seed, args.long_side, out) for s in sources]
    t0 = time.time()
    rows = []
    if args.jobs == 1:
        results = map(source_task, tasks)
    else:
        pool = ProcessPoolExecutor(max_workers=args.jobs)
        results = pool.map(source_task, tasks)
    for sid, r, dt in results:
        rows.extend(r)
        print(f"{sid}: {len(r)} rungs, {dt:.1f} s", flush=True)
    if args.jobs != 1:
        pool.shutdown()
    with open(os.path.join(out, "ladders.csv"), "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(COLUMNS)
        for r in rows:
            wr.writerow([f"{r[c]:.6g}" if isinstance(r[c], float) else r[c] for c in COLUMNS])
    manifest = dict(generator=GENERATOR, seed=args.seed, long_side=args.long_side, rungs=RUNGS, intent=INTENT,
                    sources=[s["id"] for s in sources], packages={p: ds.deb_version(p) for p in cam.PACKAGES},
                    tools=cam.tool_versions(), ladders=len(sources) * len(KINDS),
                    images=len({r["path"] for r in rows}))
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(sources) * len(KINDS)} ladders, {manifest['images']} images from {len(sources)} photos "
          f"in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
