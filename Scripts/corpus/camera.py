#!/usr/bin/env python3
"""Camera-simulator corpus: real photographs from Debian's wallpaper packages, put through
a simulated camera that over- and under-exposes, defocuses, shakes, looks through a dirty
lens, amplifies noise and compresses hard, at strengths labelled defective (1) or fine (0),
with the scenes people shoot dark, bright, hazy or blurred on purpose labelled fine.

Usage: camera.py --out DIR [--seed N] [--count-per-source N] [--long-side PX] [--jobs J]
                 [--only KINDS] [--sources IDS] [--list-sources]
(normally run through Scripts/corpus/make-camera-corpus.sh). See Scripts/corpus/README.md
for the physics, the label rules and the sources.

Deterministic: the same seed, options, package versions and source files give
byte-identical files. Every random number comes from a generator seeded by a hash of the
seed, the source photo, the variant kind and its index (never from the order of work), so
--jobs does not change the output and --only KINDS writes the same files for those kinds
as a full run does.
"""

import argparse
import csv
import fnmatch
import hashlib
import importlib.metadata
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image, ImageOps
from scipy import ndimage

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "datasets"))
import build as ds  # noqa: E402  (Scripts/datasets/build.py: sRGB curves, kernels, the lens model)

GENERATOR = "Scripts/corpus/camera.py"
REBUILD = "Scripts/corpus/make-camera-corpus.sh"
DEFAULT_SEED = 20250701
DEFAULT_COUNT = 60

# --------------------------------------------------------------------------
# Sources: real photographs shipped by Debian packages
# --------------------------------------------------------------------------

# Package -> short prefix for source ids. Every package whose name matched
# `apt-cache search wallpaper` or `apt-cache search backgrounds` and ships images is here,
# including those that turned out to ship no photograph (their files are all excluded by
# the rule below), so the record of what was looked at is complete.
PACKAGES = {
    "plasma-workspace-wallpapers": "kde",
    "lomiri-wallpapers-16.04": "lomiri16",
    "lomiri-wallpapers-20.04": "lomiri20",
    "lomiri-wallpapers": "lomiri",
    "mate-backgrounds": "mate",
    "ukui-wallpapers": "ukui",
    "gnome-backgrounds": "gnome",
    "sway-backgrounds": "sway",
}

# The rule: a source is a regular file (not a symbolic link) of one of these packages whose
# bytes are a JPEG (magic FF D8 FF) with a long side of at least MIN_SOURCE_LONG px; of the
# several sizes of one picture (a KDE wallpaper's contents/images/WxH.jpg, MATE's
# Elephants_WxH.jpg) only the largest. Every PNG, WebP and SVG file in these packages is a
# render (looked at, all of them), and photographs are delivered as JPEG, so the JPEG test
# does most of the work; the JPEGs that are not photographs of a real scene are excluded
# by name here, each looked at.
MIN_SOURCE_LONG = 1200
EXCLUDED = {
    # plasma-workspace-wallpapers
    "/usr/share/wallpapers/Autumn/contents/images/2560x1600.jpg": "painting",
    "/usr/share/wallpapers/Flow/contents/images/5120x2880.jpg": "render (hexagons)",
    "/usr/share/wallpapers/Flow/contents/images_dark/5120x2880.jpg": "render (hexagons, dark variant)",
    "/usr/share/wallpapers/Honeywave/contents/images/5120x2880.jpg": "render",
    "/usr/share/wallpapers/PastelHills/contents/images/3200x2000.jpg": "render (low-poly)",
    "/usr/share/wallpapers/SafeLanding/contents/images/5120x2880.jpg": "illustration",
    "/usr/share/wallpapers/Shell/contents/images/5120x2880.jpg": "render",
    "/usr/share/wallpapers/Volna/contents/images/5120x2880.jpg": "render",
    # lomiri-wallpapers-16.04 / -20.04
    "/usr/share/backgrounds/umang_by_Abhishek_Mudgal.jpg": "render (gradient)",
    "/usr/share/backgrounds/Fossa_by_Jasper_Roks.jpg": "render",
    "/usr/share/backgrounds/Painting-Colors_by__herobrine7gamer.jpg": "render (stripes)",
    "/usr/share/backgrounds/Infinite-Sea_by_Aury88.jpg": "photo composite, heavily edited (star field over sea)",
    # ukui-wallpapers
    "/usr/share/backgrounds/2004default.jpg": "render",
    "/usr/share/backgrounds/firstgeneration.jpg": "illustration",
    "/usr/share/backgrounds/rhythm.jpg": "render",
    "/usr/share/backgrounds/string.jpg": "render",
    "/usr/share/backgrounds/the-mouse.jpg": "illustration",
    # mate-backgrounds
    "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg": "painting",
    "/usr/share/backgrounds/mate/desktop/GreenTraditional.jpg": "logo render",
    "/usr/share/backgrounds/mate/nature/Storm.jpg": "photo, but the whole frame is motion-blurred on purpose (from a moving car): cannot stand for a sharp scene",
}

# Photographic intent of a source scene. Two classes follow from the photo's own luminance
# (display-linear Y of the photo at 512 px; see source_stats):
#   lowkey:  median Y < 0.03 (sRGB about 48/255): mostly deep shadow;
#   highkey: 5th percentile Y >= 0.15 and median Y >= 0.40 (sRGB 108 and 170): no shadows.
# The others were judged by eye (every kept photo was looked at) and are listed here; the
# first class that applies is the source's.
INTENT_BY_EYE = {
    "fog": ["kde-coldripple", "kde-darkesthour"],
    "sunset": ["kde-eveningglow", "lomiri16-sunset_by_aitzol_berasategi", "kde-summer_1am"],
    "backlit": ["lomiri16-seeding_by_clements_engelhardt", "lomiri16-free_by_peter_nerlich"],
    "bokeh": ["mate-aqua", "mate-raindrops", "mate-yellowflower", "mate-freshflower", "mate-dune",
              "mate-greenmeadow", "mate-wood", "kde-fallenleaf", "mate-twowings",
              "lomiri20-kleiber_by_lukas_baubkus", "mate-garden", "mate-ladybird",
              "kde-bythewater", "lomiri16-picture_1a_by_freespace"],
}
LOWKEY_MEDIAN = 0.03
HIGHKEY_P05, HIGHKEY_MEDIAN = 0.15, 0.40

TEST_SHARE = 0.3   # share of source photos in the test split (by a hash of the source id)


def package_files(package):
    try:
        out = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return sorted(line for line in out.splitlines() if line.startswith("/"))


def is_jpeg(path):
    with open(path, "rb") as f:
        return f.read(3) == b"\xff\xd8\xff"


def picture_key(path):
    """Files that are sizes of one picture share a key: the folder of a KDE wallpaper's
    contents/images, or the name without a trailing _WIDTHxHEIGHT."""
    d, name = os.path.split(path)
    stem = os.path.splitext(name)[0]
    if re.fullmatch(r"\d+x\d+", stem):
        return d
    return os.path.join(d, re.sub(r"_\d+x\d+$", "", stem))


def parse_copyright(package):
    """Paragraphs of /usr/share/doc/<package>/copyright (DEP-5): (patterns, copyright, licence)."""
    path = f"/usr/share/doc/{package}/copyright"
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return []
    paras = []
    for block in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in block.splitlines():
            m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
            if m and not line.startswith((" ", "\t")):
                key = m.group(1).lower()
                fields[key] = m.group(2).strip()
            elif key and line.startswith((" ", "\t")):
                fields[key] += "\n" + line.strip()
        if "files" in fields or "copyright" in fields or "license" in fields:
            paras.append(fields)
    out = []
    for p in paras:
        pats = p.get("files", "").split()
        lic = p.get("license", "").split("\n")[0].strip()
        cop = " ".join(x.strip() for x in p.get("copyright", "").split("\n") if x.strip())
        out.append((pats, cop, lic))
    return out


def licence_of(package, path):
    """(copyright, licence) of an installed file by the last matching Files paragraph.
    Patterns are matched as path suffixes, or by name alone when the pattern's name has no
    wildcard (the lomiri packages list their files under 16.04/ and 20.04/ while they are
    installed flat under /usr/share/backgrounds)."""
    best = ("?", "?")
    for pats, cop, lic in parse_copyright(package):
        for pat in pats:
            base = os.path.basename(pat)
            if (pat == "*" or fnmatch.fnmatchcase(path, "*/" + pat) or
                    (not any(c in base for c in "*?[") and os.path.basename(path) == base)):
                best = (cop or "?", lic or "?")
    return best


def kde_metadata(path):
    """Author and licence from a KDE wallpaper's metadata.json, if there is one."""
    m = re.match(r"(/usr/share/wallpapers/[^/]+)/", path)
    if not m:
        return None
    try:
        meta = json.load(open(os.path.join(m.group(1), "metadata.json"), encoding="utf-8"))["KPlugin"]
    except (OSError, ValueError, KeyError):
        return None
    author = ", ".join(a.get("Name", "?") for a in meta.get("Authors", []))
    return f"\"{meta.get('Name', '?')}\" by {author}", meta.get("License", "?")


def slug(text):
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")


def discover_sources():
    """(kept, excluded): kept sources as dicts, and every image file looked at and left out
    with the reason."""
    kept, excluded = [], []
    for package, prefix in PACKAGES.items():
        version = ds.deb_version(package)
        groups = {}
        for path in package_files(package):
            low = path.lower()
            if not low.endswith((".jpg", ".jpeg", ".png", ".webp", ".svg", ".jxl")):
                continue
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            if not is_jpeg(path):
                excluded.append(dict(package=package, path=path, reason="not a JPEG (PNG/WebP/SVG: renders)"))
                continue
            with Image.open(path) as im:
                w, h = im.size
            groups.setdefault(picture_key(path), []).append((w * h, path, w, h))
        for key in sorted(groups):
            sizes = sorted(groups[key], key=lambda t: (t[0], t[1]))
            for _, path, _, _ in sizes[:-1]:
                excluded.append(dict(package=package, path=path, reason="a smaller size of " + sizes[-1][1]))
            _, path, w, h = sizes[-1]
            if path in EXCLUDED:
                excluded.append(dict(package=package, path=path, reason=EXCLUDED[path]))
                continue
            if max(w, h) < MIN_SOURCE_LONG:
                excluded.append(dict(package=package, path=path, reason=f"long side {max(w, h)} < {MIN_SOURCE_LONG}"))
                continue
            if prefix == "kde":
                name = path.split("/")[4]
            else:
                name = os.path.splitext(os.path.basename(path))[0]
            sid = f"{prefix}-{slug(name)}"
            cop, lic = licence_of(package, path)
            meta = kde_metadata(path)
            credit = meta[0] if meta else cop
            licence = f"{lic} (Debian copyright file)"
            if meta:
                licence += f"; {meta[1]} (metadata.json)"
            kept.append(dict(id=sid, path=path, package=package, version=version, width=w, height=h,
                             credit=credit, copyright=cop, licence=licence))
    kept.sort(key=lambda s: s["id"])
    ids = [s["id"] for s in kept]
    if len(set(ids)) != len(ids):
        sys.exit("duplicate source ids: " + ", ".join(sorted({i for i in ids if ids.count(i) > 1})))
    return kept, excluded


def select_sources(sources, ids):
    """The sources named in `ids` (comma-separated; all when empty), in discovery order.
    Exits naming any unknown id, or when there is no source at all."""
    if ids:
        want = [x for x in ids.split(",") if x]
        unknown = sorted(set(want) - {s["id"] for s in sources})
        if unknown:
            sys.exit("unknown source ids: " + ", ".join(unknown))
        sources = [s for s in sources if s["id"] in want]
    if not sources:
        sys.exit("no source photographs found: install the packages (see make-camera-corpus.sh)")
    return sources


def split_of(source_id):
    """train/test by a hash of the source id alone: every variant of a photo shares its split,
    and the split does not move with --seed."""
    h = hashlib.sha256(("camera-corpus-split\x1f" + source_id).encode("utf-8")).digest()
    return "test" if int.from_bytes(h[:8], "little") / 2.0 ** 64 < TEST_SHARE else "train"


def load_source(path):
    """8-bit RGB, EXIF orientation applied."""
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im)
        return np.asarray(im.convert("RGB")).copy()


def source_stats(u8):
    """Luminance statistics of the photo at 512 px long side (display-linear Y)."""
    im = Image.fromarray(u8)
    im.thumbnail((512, 512), Image.Resampling.BOX)
    lin = ds.srgb_to_linear(np.asarray(im))
    y = ds.luminance(lin)
    p05, p50, p95 = (float(v) for v in np.quantile(y, [0.05, 0.5, 0.95]))
    clipped = float((np.asarray(im).max(axis=2) >= 250).mean())
    return dict(y_p05=round(p05, 4), y_median=round(p50, 4), y_p95=round(p95, 4), clipped=round(clipped, 4))


def source_intents(sid, stats):
    classes = []
    if stats["y_median"] < LOWKEY_MEDIAN:
        classes.append("lowkey")
    if stats["y_p05"] >= HIGHKEY_P05 and stats["y_median"] >= HIGHKEY_MEDIAN:
        classes.append("highkey")
    for cls, ids in INTENT_BY_EYE.items():
        if sid in ids:
            classes.append(cls)
    return classes


# --------------------------------------------------------------------------
# The camera
# --------------------------------------------------------------------------

# Scene light is in sensor units: 1 = the sensor's white (full well), per channel.
# The camera's tone curve T maps sensor units to display-linear light (then sRGB encoding):
# linear with gain 2^HEADROOM_STOPS up to the knee (display KNEE), then an exponential
# shoulder that reaches display 1 exactly at the sensor's white with a continuous slope.
HEADROOM_STOPS = 1.0     # sensor white is 1 stop above the light a plain curve would clip at
KNEE = 0.5               # display-linear level where the shoulder starts (sRGB 188/255)
MID_GREY = 0.18          # display-linear mid-grey; in sensor units T⁻¹(0.18) = 0.09

CAMERA_SIZES = (1600, 2048, 2560, 3264, 4000)   # long sides of phone/camera JPEGs at --long-side 4000
FULL_LONG_SIDE = 4000
ASPECTS = ((4, 3), (3, 2), (16, 9))
JPEG_QUALITY = (80, 97)                # camera JPEG quality, inclusive, 4:2:0
FULL_WELL = (3000.0, 30000.0)          # electrons at sensor white, log-uniform (phone to large sensor)
READ_NOISE = (1.5, 4.0)                # electrons RMS
EV_JITTER = 0.3                        # a camera's own metering error, ± EV, on every image
OPTICS_LONG = 768                      # long side at which the lens-contamination model runs
# Light above the source's clip (see highlight_gain): a source pixel is clipped when a channel
# is at or above HIGHLIGHT_LEVEL; its weight as a light rises with its whiteness (darkest over
# brightest channel, display-linear) from the first to the second value of
# HIGHLIGHT_WHITENESS, so saturated colours clipped in one channel (petals, autumn leaves) stay
# surfaces; the light's peak is HIGHLIGHT_GAIN times its clipped value (log-uniform per image:
# the level of the night scenes' lamps over the sensor's white), reached after a ramp from the
# region's edge between the HIGHLIGHT_FEATHER fractions of the diagonal; the ramp's length is
# smoothed over the region at σ = HIGHLIGHT_SMOOTH of the diagonal, and ramps longer than the
# HIGHLIGHT_SOFT fractions read a distance rounded off at the same σ.
# Off by default (--lights-above-clip): the bundled models were fitted on the corpus without it
# (docs/experiments.md, "Lights above the clip").
LIGHTS_ABOVE_CLIP = False
HIGHLIGHT_LEVEL = 250
HIGHLIGHT_WHITENESS = (0.25, 0.6)
HIGHLIGHT_GAIN = (4.0, 30.0)
HIGHLIGHT_FEATHER = (0.004, 0.1)
HIGHLIGHT_SMOOTH = 0.015
HIGHLIGHT_SOFT = (0.01, 0.03)
# Night scenes lit by lamps (--night-lamps, night_by_lamps): the ambient's stops below a
# daylight exposure, each pool's peak in stops around it, its radius as a fraction of the
# diagonal, the camera's gain in stops, and where its meter puts the lit parts (stops over
# mid-grey) within how far it may move. Off by default: the bundled models were fitted
# on the night of a dimmed daylight scene.
NIGHT_LAMPS = False
NIGHT_AMBIENT = (4.0, 7.0)
NIGHT_POOL = (-1.0, 0.5)
NIGHT_POOL_RADIUS = (0.03, 0.12)
NIGHT_ISO = (1.0, 3.0)
NIGHT_METER = (0.5, 2.0)
NIGHT_METER_RANGE = (-2.0, 2.0)


def _shoulder():
    g = 2.0 ** HEADROOM_STOPS
    sk = KNEE / g
    target = g * (1 - sk) / (1 - KNEE)
    lo, hi = 1e-9, 200.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid / (1 - math.exp(-mid)) < target:
            lo = mid
        else:
            hi = mid
    return g, sk, 0.5 * (lo + hi)


TONE_GAIN, SENSOR_KNEE, SHOULDER_A = _shoulder()
SENSOR_MID = MID_GREY / TONE_GAIN


def tone(s):
    """Camera tone curve: sensor units [0, 1] -> display-linear [0, 1] (highlight roll-off)."""
    s = np.clip(s, 0.0, 1.0)
    a = SHOULDER_A
    u = (s - SENSOR_KNEE) / (1 - SENSOR_KNEE)
    shoulder = KNEE + (1 - KNEE) * (1 - np.exp(-a * np.maximum(u, 0))) / (1 - math.exp(-a))
    return np.where(s <= SENSOR_KNEE, TONE_GAIN * s, shoulder).astype(np.float32)


def tone_inverse(d):
    """The inverse of `tone`: display-linear [0, 1] -> sensor units [0, 1]."""
    d = np.clip(d, 0.0, 1.0)
    a = SHOULDER_A
    v = 1 - (d - KNEE) / (1 - KNEE) * (1 - math.exp(-a))
    u = -np.log(np.clip(v, math.exp(-a), 1.0)) / a
    return np.where(d <= KNEE, d / TONE_GAIN, SENSOR_KNEE + (1 - SENSOR_KNEE) * u).astype(np.float32)


SRGB_DECODE = ds.srgb_to_linear(np.arange(256, dtype=np.uint8)).astype(np.float32)


def resize_float(img, w, h, resample=Image.Resampling.BOX):
    """Resize an H×W×C or H×W float image channel by channel (Pillow, 32-bit float)."""
    if img.ndim == 2:
        return np.asarray(Image.fromarray(img.astype(np.float32), "F").resize((w, h), resample))
    return np.stack([resize_float(img[:, :, c], w, h, resample) for c in range(img.shape[2])], axis=2)


def lowres_blur(x, sigma_frac, diag, work=256):
    """A Gaussian of σ = sigma_frac · diagonal, for fields smooth at that scale: computed at
    `work` px long side (area-resampled) and resampled back bilinearly."""
    h, w = x.shape[:2]
    f = min(1.0, work / max(h, w))
    wl, hl = max(1, round(w * f)), max(1, round(h * f))
    lo = resize_float(x, wl, hl)
    sig = sigma_frac * diag * f
    sigma = (sig, sig) if lo.ndim == 2 else (sig, sig, 0)
    lo = ndimage.gaussian_filter(lo, sigma, mode="reflect")
    return resize_float(lo, w, h, Image.Resampling.BILINEAR)


def highlight_gain(crop_u8, crop_lin, s0, diag, rng):
    """The light a finished JPEG cannot show: where the source is clipped (a channel at or
    above HIGHLIGHT_LEVEL: lamps, the sun, windows, specular highlights) the scene was brighter
    than its white, by an amount the photo no longer holds. Returns (gain, params): a field
    the size of `s0` (the scene as the photo shows it, sensor units) to multiply the scene by,
    1 where nothing is clipped (None when that is everywhere), so that exposing the scene down
    leaves its lights bright as a camera does.

    Which pixels: the crop's clipped pixels at the source's resolution, weighted by their
    whiteness (HIGHLIGHT_WHITENESS), area-resampled to the image: the share of each pixel that
    is clipped light. How bright: a peak gain drawn from `rng` (its own stream), HIGHLIGHT_GAIN
    log-uniform, approached inside the clipped regions in stops along a smoothstep of the
    distance from their edge: 1 at the edge, so there is no seam, and the peak after a ramp
    as long as the peak's stops over the slope (stops per pixel) of the photo's log luminance
    at the nearest point of the edge, bounded by HIGHLIGHT_FEATHER × the diagonal. The light
    goes on rising inside as steeply as it rose up to the clip: a lamp or a specular, whose
    edge is sharp, reaches its peak within a few pixels; a sky or a defocused background,
    smooth up to the clip, rises gently."""
    peak = log_uniform(rng, *HIGHLIGHT_GAIN)
    c = [crop_u8[:, :, i] for i in range(3)]
    clipped = (c[0] >= HIGHLIGHT_LEVEL) | (c[1] >= HIGHLIGHT_LEVEL) | (c[2] >= HIGHLIGHT_LEVEL)
    if not clipped.any():
        return None, {}
    lit = [crop_lin[:, :, i][clipped] for i in range(3)]
    darkest = np.minimum(np.minimum(lit[0], lit[1]), lit[2])
    brightest = np.maximum(np.maximum(lit[0], lit[1]), lit[2])
    white = np.zeros(clipped.shape, np.float32)
    white[clipped] = ds.smoothstep(*HIGHLIGHT_WHITENESS, darkest / np.maximum(brightest, 1e-6))
    h, w = s0.shape[:2]
    cov = resize_float(white, w, h) if white.shape != (h, w) else white
    region = cov > 1e-4
    if not region.any():
        return None, {}
    stops = math.log2(peak)
    lo, hi = HIGHLIGHT_FEATHER[0] * diag, HIGHLIGHT_FEATHER[1] * diag
    if region.all():
        t = np.ones(int(region.sum()))
    else:
        dist, (iy, ix) = ndimage.distance_transform_edt(region, return_indices=True)
        # The slope of the photo's log luminance (lightly smoothed) at the nearest point of the
        # region's edge gives the ramp there; the ramp's logarithm is then smoothed over the
        # region (σ = HIGHLIGHT_SMOOTH of the diagonal), so it varies gently inside.
        logy = ndimage.gaussian_filter(np.log2(np.maximum(luminance(s0), 1e-4)), 1.0, mode="nearest")
        gy, gx = np.gradient(logy)
        oy, ox = iy[region], ix[region]
        log_ramp = np.zeros((h, w), np.float32)
        log_ramp[region] = np.log(np.clip(stops / np.maximum(np.hypot(gx[oy, ox], gy[oy, ox]), 1e-6), lo, hi))
        inside = region.astype(np.float32)
        num = lowres_blur(log_ramp, HIGHLIGHT_SMOOTH, diag, work=512)[region]
        den = lowres_blur(inside, HIGHLIGHT_SMOOTH, diag, work=512)[region]
        ramp = np.where(den > 1e-3, np.exp(num / np.maximum(den, 1e-3)), np.exp(log_ramp[region]))
        ramp = np.clip(ramp, lo, hi)
        # A long ramp would show the distance's creases (the region's medial axis) as ridges:
        # there the distance is rounded off (towards the lesser of it and its blur).
        depth = dist[region]
        soft = ds.smoothstep(HIGHLIGHT_SOFT[0] * diag, HIGHLIGHT_SOFT[1] * diag, ramp)
        if soft.any():
            rounded_ = lowres_blur(dist.astype(np.float32), HIGHLIGHT_SMOOTH, diag, work=512)[region]
            depth = depth - soft * np.maximum(depth - rounded_, 0.0)
        t = np.clip(depth / ramp, 0.0, 1.0)
    field = np.ones((h, w), np.float32)
    field[region] = 1.0 + (np.exp2(stops * (t * t * (3.0 - 2.0 * t))) - 1.0) * cov[region]
    return field, dict(highlight_gain=peak, highlight_share=float(np.where(region, cov, 0.0).mean()))


def sensor(s, rng, full_well, read_noise, ev=0.0, gain=1.0):
    """Exposure and sensor, per channel, in sensor units: the light s · 2^EV yields
    Poisson(s · 2^EV · FW / gain) electrons (gain > 1: fewer photons, amplified, as a higher
    ISO), plus Gaussian read noise; the signal is amplified by `gain` and clipped at the
    sensor's white (1) and at 0."""
    lam = np.clip(s, 0.0, None).astype(np.float64) * (2.0 ** ev) * full_well / gain
    e = rng.poisson(lam).astype(np.float32)
    e += rng.normal(0.0, read_noise, size=e.shape).astype(np.float32)
    return np.clip(e * np.float32(gain / full_well), 0.0, 1.0)


def mid_grey_snr(full_well, read_noise, ev=0.0, gain=1.0):
    p = SENSOR_MID * (2.0 ** ev) * full_well / gain
    return p / math.sqrt(p + read_noise ** 2)


def gain_for_snr(snr, full_well, read_noise):
    """The ISO gain (>= 1) whose photon count at mid-grey gives that SNR."""
    p = 0.5 * (snr * snr + math.sqrt(snr ** 4 + 4 * snr * snr * read_noise ** 2))
    return max(1.0, SENSOR_MID * full_well / p)


def render(s):
    """Sensor units -> 8-bit sRGB through the camera's tone curve."""
    return ds.linear_to_srgb_u8(tone(s))


def luminance(x):
    return 0.2126 * x[:, :, 0] + 0.7152 * x[:, :, 1] + 0.0722 * x[:, :, 2]


# --- blur kernels ---------------------------------------------------------


def shake_kernel(extent, rng, samples=256):
    """Camera shake: the path of a random walk with momentum (velocity v ← α·v + (1−α)·ε,
    ε ~ N(0, I), α ~ U(0.93, 0.995): curved sweeps with slow turns and dwells, whose path
    is 1–4 times their extent, as in recorded hand-shake kernels), scaled so that its
    extent (largest distance between two points of the path) is `extent` px, with equal
    exposure time per step, splatted bilinearly. Returns (kernel, α, path length in px)."""
    alpha = float(rng.uniform(0.93, 0.995))
    eps = rng.normal(size=(samples, 2))
    v = np.zeros(2)
    pts = np.empty((samples, 2))
    x = np.zeros(2)
    for t in range(samples):
        v = alpha * v + (1 - alpha) * eps[t]
        x = x + v
        pts[t] = x
    pts -= pts.mean(axis=0)
    diff = pts[:, None, :] - pts[None, :, :]
    span = float(np.sqrt((diff ** 2).sum(axis=2)).max())
    pts *= extent / max(span, 1e-12)
    path = float(np.sqrt((np.diff(pts, axis=0) ** 2).sum(axis=1)).sum())
    R = int(math.ceil(np.abs(pts).max())) + 2
    k = np.zeros((2 * R + 1, 2 * R + 1))
    xs, ys = pts[:, 0] + R, pts[:, 1] + R
    x0, y0 = np.floor(xs).astype(int), np.floor(ys).astype(int)
    fx, fy = xs - x0, ys - y0
    np.add.at(k, (y0, x0), (1 - fx) * (1 - fy))
    np.add.at(k, (y0, x0 + 1), fx * (1 - fy))
    np.add.at(k, (y0 + 1, x0), (1 - fx) * fy)
    np.add.at(k, (y0 + 1, x0 + 1), fx * fy)
    return k / k.sum(), alpha, path


def blur(s, kernel):
    return np.clip(ds.convolve(s, kernel.astype(np.float32)), 0.0, None).astype(np.float32)


# --- lens contamination (Scripts/datasets/build.py's model) ---------------

SMUDGE_KINDS = ("oil", "partial", "drops", "scratch", "dust")


def contaminate(s, sub, rng, probe_rng, strength=None, coverage=1.0, photo=None):
    """The lens-contamination model of Scripts/datasets/build.py (oil_film, water_drops,
    scratches, dust), run at OPTICS_LONG px and carried to the full frame.

    Every kind there has the form out = A(x)·img + B(x): A, the light of each point that
    passes the glass unscattered (1 − f, times a dust shadow), and B, the light redirected
    into it, are both smooth (they are averages over the lens footprint, σ = 0.08 of the
    long side). A is measured by a probe: a fourth channel of random ±1 texture (values
    0 and 0.5, never clipped, so it changes nothing in the three colour channels), whose
    local regression on its input (Gaussian window σ = 0.01 L) is 0.25·A, because the
    redirected light of a random texture has no fine structure. Then B = out − A·img, and
    the full-size result is A↑·img + B↑ (bilinear). The scattered light is made from `photo`
    (the scene as the photo shows it, clipped at white; `s` when None), since build.py gives
    clipped highlights its own headroom; the unscattered share passes `s`. Returns (image,
    params)."""
    h, w, _ = s.shape
    f = min(1.0, OPTICS_LONG / max(h, w))
    wl, hl = max(1, round(w * f)), max(1, round(h * f))
    lo = resize_float(s if photo is None else photo, wl, hl).astype(np.float64)
    L = max(wl, hl)
    n = probe_rng.integers(0, 2, size=(hl, wl)).astype(np.float64) * 2 - 1
    lin4 = np.concatenate([lo, (0.25 + 0.25 * n)[:, :, None]], axis=2)
    p = {"kind": sub, "optics_long_side": L}
    if sub == "oil":
        out, cov = ds.oil_film(lin4, L, rng, strength, 1.0)
        p.update(film_strength=strength, film_mean=cov)
    elif sub == "partial":
        out, cov = ds.oil_film(lin4, L, rng, strength, coverage)
        p.update(film_strength=strength, coverage_asked=coverage, film_mean=cov)
    elif sub == "drops":
        out, mean_f, count = ds.water_drops(lin4, L, rng)
        p.update(drops=count, drops_mean_f=mean_f)
    elif sub == "scratch":
        out = ds.scratches(lin4, L, rng)
    elif sub == "dust":
        out, count = ds.dust(lin4, L, rng)
        p.update(clumps=count)
    else:
        raise ValueError(sub)
    sig = 0.01 * L
    g = lambda x: ndimage.gaussian_filter(x, sig, mode="reflect")  # noqa: E731
    op = out[:, :, 3]
    mn = g(n)
    cov_on = g(op * n) - g(op) * mn
    A = np.clip(cov_on / np.maximum(1.0 - mn * mn, 1e-6) / 0.25, 0.0, 1.0)
    B = out[:, :, :3] - A[:, :, None] * lo
    A_hi = resize_float(A.astype(np.float32), w, h, Image.Resampling.BILINEAR)
    B_hi = resize_float(B.astype(np.float32), w, h, Image.Resampling.BILINEAR)
    res = np.clip(A_hi[:, :, None] * s + B_hi, 0.0, None).astype(np.float32)
    p["lost_light_mean"] = float(1.0 - A.mean())
    p["lost_light_max"] = float(1.0 - A.min())
    return res, p


# --- scene structure helpers ------------------------------------------------


def detail_centre(s, diag):
    """(x, y) of the most detailed region: gradient energy of luminance at 256 px, smoothed
    at σ = 0.08 · diagonal; the argmax (first in row order on ties)."""
    h, w = s.shape[:2]
    f = min(1.0, 256 / max(h, w))
    wl, hl = max(1, round(w * f)), max(1, round(h * f))
    y = luminance(resize_float(s, wl, hl)) ** (1 / 2.2)
    gy, gx = np.gradient(y)
    e = ndimage.gaussian_filter(gx * gx + gy * gy, 0.08 * diag * f, mode="reflect")
    iy, ix = np.unravel_index(int(np.argmax(e)), e.shape)
    return (ix + 0.5) / f, (iy + 0.5) / f


def background_mask(s, diag):
    """Where the light comes from in a backlit shot: what is brighter than the frame's
    median, and the upper part of the frame. With z = log2(Y / median Y), Y the luminance
    blurred at σ = 0.004 · diagonal, c = z + 1.5 · (0.5 − y/H) and mask = smoothstep(−0.25,
    1.25, c): a sky two stops above the median is background, a subject below it is not, and
    the mask follows the scene's own edges; a flat scene gets a soft, partial mask (no
    posterised texture)."""
    h, w = s.shape[:2]
    yb = np.maximum(lowres_blur(luminance(s), 0.004, diag, work=1024), 1e-6)
    z = np.log2(yb / float(np.median(yb[::4, ::4])))
    top = 0.5 - (np.arange(h, dtype=np.float32)[:, None] + 0.5) / h
    return ds.smoothstep(-0.25, 1.25, z + 1.5 * top).astype(np.float32)


def outcome(s, ev=0.0, mask=None):
    """How a noise-free exposure of s · 2^EV looks, at 256 px: (mean sRGB-encoded luma of
    the display image, share of pixels with a channel at the sensor's white, mean luma
    where mask < 0.5)."""
    h, w = s.shape[:2]
    f = min(1.0, 256 / max(h, w))
    wl, hl = max(1, round(w * f)), max(1, round(h * f))
    v = np.clip(resize_float(s, wl, hl) * np.float32(2.0 ** ev), 0.0, 1.0)
    y = np.clip(luminance(tone(v)), 0.0, 1.0)
    luma = np.where(y <= 0.0031308, 12.92 * y, 1.055 * np.power(y, 1 / 2.4) - 0.055)
    sub = float("nan")
    if mask is not None:
        sel = resize_float(mask, wl, hl) < 0.5
        if sel.any():
            sub = float(luma[sel].mean())
    return float(luma.mean()), float((v >= 1.0).any(axis=2).mean()), sub


def radial(h, w, cx, cy):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.hypot(xx + 0.5 - cx, yy + 0.5 - cy)


# --------------------------------------------------------------------------
# Defects and their label rules
# --------------------------------------------------------------------------

KINDS = ("clean", "under", "over", "backlit", "defocus", "motion", "smudge", "noise", "jpeg", "intent")
INTENTS = ("night", "lowkey", "highkey", "backlit", "sunset", "fog", "bokeh")
P_DEFECTIVE = 0.65      # share of a defect kind's variants drawn from the defective range

# (mild range: label 0, defective range: label 1); nothing is drawn between the two.
RANGES = {
    "under": ((-0.7, -0.1), (-4.0, -1.5)),            # EV
    "over": ((0.1, 0.7), (1.5, 4.0)),                 # EV
    "backlit": ((0.0, 0.7), (1.5, 3.5)),              # stops the subject falls below its exposure
    "defocus": ((0.0002, 0.0005), (0.002, 0.012)),    # disk radius / diagonal (log-uniform)
    "motion": ((0.0002, 0.0005), (0.002, 0.015)),     # shake extent / diagonal (log-uniform)
    "smudge": ((0.03, 0.08), None),                   # mild: a uniform oil film of this strength
    "noise": ((10.0, 20.0), (2.0, 5.0)),              # SNR at mid-grey
    "jpeg": ((60, 79), (8, 30)),                      # quality of a re-save
}
SMUDGE_DEFECTIVE_FILM = (0.3, 0.8)   # oil film strength for the 'oil' and 'partial' kinds
BACKLIT_BACKGROUND = (0.5, 1.5)      # stops the background is lifted in a backlit defect
# A defective exposure must show: under (or a backlit subject) when the mean sRGB luma is at
# most UNDER_LUMA; over when at least OVER_CLIPPED of the pixels reach the sensor's white or
# the mean luma is at least OVER_LUMA. The drawn EV is pushed on by half stops until it does.
UNDER_LUMA = 0.2
OVER_CLIPPED = 0.10
OVER_LUMA = 0.8
MAX_EV = 8.0


def log_uniform(rng, lo, hi):
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def variant(src, u8, kind, j, seed, long_side):
    """One image: (jpeg bytes, row)."""
    sid = src["id"]
    key = (seed, "camera-corpus", sid, kind, j)
    cam = ds.rng_for(*key, "camera")
    # Camera and framing (drawn first, in a fixed order, for every kind).
    size = CAMERA_SIZES[int(cam.integers(len(CAMERA_SIZES)))]
    aspect = ASPECTS[int(cam.integers(len(ASPECTS)))]
    crop_pos = float(cam.random())
    quality = int(cam.integers(JPEG_QUALITY[0], JPEG_QUALITY[1] + 1))
    full_well = log_uniform(cam, *FULL_WELL)
    read_noise = float(cam.uniform(*READ_NOISE))
    ev = float(cam.uniform(-EV_JITTER, EV_JITTER))
    defective = bool(cam.random() < P_DEFECTIVE)
    pr = ds.rng_for(*key, "params")          # the defect's own parameters
    noise_rng = ds.rng_for(*key, "sensor")   # photons and read noise

    # Crop the source to the camera's aspect ratio (its orientation), then area-resample in
    # linear light to the camera's size (never up).
    H0, W0 = u8.shape[:2]
    a = aspect[0] / aspect[1]
    if W0 < H0:
        a = 1 / a
    if W0 / H0 > a:
        cw, ch = round(H0 * a), H0
        cx0, cy0 = round((W0 - cw) * crop_pos), 0
    else:
        cw, ch = W0, round(W0 / a)
        cx0, cy0 = 0, round((H0 - ch) * crop_pos)
    target = round(size * long_side / FULL_LONG_SIDE)
    out_long = min(target, max(cw, ch))
    f = out_long / max(cw, ch)
    w, h = max(1, round(cw * f)), max(1, round(ch * f))
    crop = SRGB_DECODE[u8[cy0:cy0 + ch, cx0:cx0 + cw]]
    d = resize_float(crop, w, h) if (w, h) != (cw, ch) else crop
    s0 = tone_inverse(d)                   # the scene in sensor units, as the photo shows it
    diag = math.hypot(w, h)
    # Its clipped lights given the radiance above white the photo could not hold: every
    # exposure change and scene transform below works on that scene. The masks, the
    # metering and the label rules' pushes, which read where the scene's tones and detail
    # are, and the transforms with their own light model (night lights and lamps, bokeh's
    # bright discs, the lens's scatter) read the photo as shown.
    field, hp = (highlight_gain(u8[cy0:cy0 + ch, cx0:cx0 + cw], crop, s0, diag, ds.rng_for(*key, "highlights"))
                 if LIGHTS_ABOVE_CLIP else (None, {}))
    s = s0 if field is None else s0 * field[:, :, None]

    label, defect, strength, intent = 0, "none", 0.0, ""
    gain = 1.0
    p = dict(hp)
    recompress = None

    if kind == "clean":
        intents = src["intents"]
        intent = intents[0] if intents else ""
        if intent:
            p["intent_from"] = "source"
    elif kind in ("under", "over"):
        mild, bad = RANGES[kind]
        ev = float(pr.uniform(*(bad if defective else mild)))
        p["ev_asked"] = ev
        if defective:
            # Label by what a person sees: push on by half stops until the defect shows
            # (a dark source is not overexposed by +2 EV, a snowfield not underexposed by −1.5),
            # judged on the scene as the photo shows it: lights kept bright do not hold it back.
            step = -0.5 if kind == "under" else 0.5
            while abs(ev) < MAX_EV:
                luma, clipped, _ = outcome(s0, ev)
                if (luma <= UNDER_LUMA) if kind == "under" else (clipped >= OVER_CLIPPED or luma >= OVER_LUMA):
                    break
                ev += step
        label, defect, strength = int(defective), kind, ev
    elif kind == "backlit":
        mild, bad = RANGES["backlit"]
        k = float(pr.uniform(*(bad if defective else mild)))
        b = float(pr.uniform(*BACKLIT_BACKGROUND))
        flare = float(pr.uniform(0.02, 0.06))
        m = background_mask(s0, diag)
        p["subject_ev_asked"] = -k
        if defective:
            while k < MAX_EV:
                if outcome(s0 * np.exp2(b * m - k * (1 - m))[:, :, None], ev, m)[2] <= UNDER_LUMA:
                    break
                k += 0.5
        s = s * np.exp2(b * m - k * (1 - m))[:, :, None]
        s = s + flare * lowres_blur(s * m[:, :, None], 0.05, diag)
        label, defect, strength = int(defective), "backlit", -k
        p.update(subject_ev=-k, background_ev=b, flare=flare, background_share=float(m.mean()))
    elif kind == "defocus":
        mild, bad = RANGES["defocus"]
        r = log_uniform(pr, *(bad if defective else mild))
        s = blur(s, ds.disk_kernel(max(r * diag, 0.05)))
        label, defect, strength = int(defective), "defocus", r
        p.update(radius_px=r * diag)
    elif kind == "motion":
        mild, bad = RANGES["motion"]
        e = log_uniform(pr, *(bad if defective else mild))
        kern, alpha, path = shake_kernel(max(e * diag, 0.05), pr)
        s = blur(s, kern)
        label, defect, strength = int(defective), "motion", e
        p.update(extent_px=e * diag, path_px=path, momentum=alpha, kernel_size=kern.shape[0])
    elif kind == "smudge":
        probe = ds.rng_for(*key, "probe")
        if defective:
            sub = SMUDGE_KINDS[int(pr.integers(len(SMUDGE_KINDS)))]
            a_ = float(pr.uniform(*SMUDGE_DEFECTIVE_FILM))
            cov = float(pr.uniform(0.3, 0.6))
        else:
            sub, a_, cov = "oil", float(pr.uniform(*RANGES["smudge"][0])), 1.0
        lens = ds.rng_for(*key, "lens")
        s, lp = contaminate(s, sub, lens, probe, a_, cov, photo=s0)
        label, defect, strength = int(defective), "smudge", lp["lost_light_mean"]
        p.update(lp)
    elif kind == "noise":
        mild, bad = RANGES["noise"]
        target_snr = float(pr.uniform(*(bad if defective else mild)))
        gain = gain_for_snr(target_snr, full_well * 2.0 ** ev, read_noise)
        label, defect = int(defective), "noise"
        p.update(snr_asked=target_snr)
    elif kind == "jpeg":
        mild, bad = RANGES["jpeg"]
        q_lo, q_hi = bad if defective else mild
        recompress = int(pr.integers(q_lo, q_hi + 1))
        label, defect, strength = int(defective), "jpeg", recompress
    elif kind == "intent":
        order = ds.rng_for(seed, "camera-corpus", sid, "intent-order").permutation(len(INTENTS))
        intent = INTENTS[int(order[j % len(INTENTS)])]
        s, ev, gain, strength, ip = make_intent(intent, s, pr, diag, ev, s0)
        p.update(ip)
        p["intent_from"] = "transform"
    else:
        raise ValueError(kind)

    if kind == "noise":
        strength = mid_grey_snr(full_well, read_noise, ev, gain)
    v = sensor(s, noise_rng, full_well, read_noise, ev, gain)
    u8_out = render(v)
    data = ds.encode_jpeg(u8_out, quality)
    if recompress is not None:
        data = ds.encode_jpeg(ds.decode(data), recompress)
    p.update(camera_long_side=size, aspect=f"{aspect[0]}:{aspect[1]}",
             crop=[cx0, cy0, cw, ch], jpeg_quality=quality, full_well=full_well,
             read_noise=read_noise, ev=ev, iso_gain=gain,
             snr_mid_grey=mid_grey_snr(full_well, read_noise, ev, gain),
             clipped=float((v >= 1.0).any(axis=2).mean()),
             scene_intents=src["intents"])
    if recompress is not None:
        p["recompress_quality"] = recompress
    rel = f"images/{sid}_{kind}-{j:03d}.jpg"
    row = dict(path=rel, label=label, split=src["split"], source=sid, defect=defect,
               strength=strength, intent=intent, kind=kind, width=w, height=h,
               quality=recompress if recompress is not None else quality,
               params=json.dumps(rounded(p), sort_keys=True, separators=(",", ":")))
    return data, row


LAMP_COLOURS = np.array([[1.0, 0.6, 0.25], [1.0, 0.85, 0.65], [0.85, 0.92, 1.0]], np.float32)  # sodium, warm and cool LED
NIGHT_TINT = np.array([0.8, 0.9, 1.15], np.float32)   # the ambient of a night sky: bluer


def specular_points(s, diag):
    """The photo's small bright points (windows, signs, specular highlights), 1 where they
    are: the top 0.5% of its luminance, 0.1 above their surround (σ = 0.01 of the diagonal)."""
    y = luminance(s)
    local = y - lowres_blur(y, 0.01, diag)
    return ((y >= np.quantile(y, 0.995)) & (local > 0.1)).astype(np.float32)


def soft_disc(h, w, cx, cy, r):
    """A disc of radius `r` centred at (cx, cy), its edge soft from 0.7 r to r: the rows and
    columns of its box within an h × w frame and its weights there, or None when the box lies
    outside the frame."""
    x0, x1 = max(0, int(cx - r - 2)), min(w, int(math.ceil(cx + r + 2)))
    y0, y1 = max(0, int(cy - r - 2)), min(h, int(math.ceil(cy + r + 2)))
    if x1 <= x0 or y1 <= y0:
        return None
    dd = radial(y1 - y0, x1 - x0, cx - x0, cy - y0) / r
    return slice(y0, y1), slice(x0, x1), (1.0 - ds.smoothstep(0.7, 1.0, dd)).astype(np.float32)


def glare(light, diag):
    """The lens's glare around bright lights: 0.15 of them at σ = 0.003 and 0.05 at σ = 0.02
    of the diagonal."""
    return (0.15 * ds.gaussian(light, 0.003 * diag).astype(np.float32) +
            0.05 * lowres_blur(light, 0.02, diag))


def night_by_lamps(photo, pr, diag):
    """A night scene lit by its own lamps (--night-lamps): what the sky and moon still give
    lies NIGHT_AMBIENT stops below the daylight scene's light; one to five lamps each light a
    pool of the scene, their light falling off as (1 + (r / R)²)^-1.5 (a lamp at height R over
    the ground: the inverse square and the light's slant) from a peak NIGHT_POOL stops around
    daylight, in its own colour; the lamps themselves are bright discs above their pools, and
    the scene's small bright points (windows, signs) shine too. The camera meters the lit
    parts (below) and reaches them with NIGHT_ISO stops of gain: the sensor collects that much
    less light, and its noise shows.
    Returns (scene, ev, gain, strength, params) as make_intent does; the strength is the
    ambient's stops."""
    s = photo
    h, w = s.shape[:2]
    amb_ev = -float(pr.uniform(*NIGHT_AMBIENT))
    refl = s / (1.0 + s / 0.35)             # bright skies and lights are sources, not surfaces: they darken most
    amb = refl * NIGHT_TINT * np.float32(2.0 ** amb_ev)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    n = int(pr.integers(1, 6))
    pools = np.zeros_like(s)
    lamps = np.zeros_like(s)
    peaks = []
    for _ in range(n):
        cx, cy = pr.uniform(0.1, 0.9) * w, pr.uniform(0.35, 0.95) * h
        R = float(pr.uniform(*NIGHT_POOL_RADIUS)) * diag
        peak = float(pr.uniform(*NIGHT_POOL))
        col = LAMP_COLOURS[int(pr.integers(len(LAMP_COLOURS)))]
        fall = (1.0 + ((xx - cx) ** 2 + (yy - cy) ** 2) / (R * R)) ** -1.5
        pools += fall[:, :, None] * col * np.float32(2.0 ** peak)
        peaks.append(peak)
        # The lamp: a disc over its pool, far brighter than anything it lights.
        lx, ly = cx + float(pr.uniform(-0.3, 0.3)) * R, cy - float(pr.uniform(0.5, 1.5)) * R
        disc = soft_disc(h, w, lx, ly, float(pr.uniform(0.002, 0.006)) * diag)
        if disc is not None:
            rows, columns, weights = disc
            lamps[rows, columns] += weights[:, :, None] * col * np.float32(float(pr.uniform(4.0, 30.0)))
    spec = specular_points(s, diag)
    lights = s * spec[:, :, None] * np.float32(float(pr.uniform(2.0, 8.0)))
    src_light = lights + lamps
    scene = amb + refl * pools + src_light + glare(src_light, diag)
    # The camera meters the lit parts (the 98th percentile of the surfaces' luminance, the
    # lamps themselves left out) and sets them NIGHT_METER stops over mid-grey, within
    # NIGHT_METER_RANGE stops of the exposure above: lit things look lit, the rest stays dark.
    metered = float(np.quantile(luminance(amb + refl * pools), 0.98))
    target = SENSOR_MID * 2.0 ** float(pr.uniform(*NIGHT_METER))
    meter = float(np.clip(math.log2(target / max(metered, 1e-9)), *NIGHT_METER_RANGE))
    scene = scene * np.float32(2.0 ** meter)
    iso = float(pr.uniform(*NIGHT_ISO))
    gain = 2.0 ** iso
    lit = float((luminance(refl * pools) >= SENSOR_MID * 0.25).mean())
    return scene, 0.0, gain, amb_ev, dict(
        ambient_ev=amb_ev, lamps=n, pool_peak_ev=[round(v, 4) for v in peaks], metering_ev=meter,
        iso_stops=iso, lit_share=lit, specular_share=float(spec.mean()))


def make_intent(intent, s, pr, diag, ev, photo=None):
    """A scene people shoot this way on purpose, made from the source (label 0): `s` the
    scene with its clipped lights' radiance above white (highlight_gain), `photo` the scene as
    the photo shows it (`s` when None), which the night scene (its own lights and lamps) and
    bokeh (its own bright discs) start from, and from which the masks and the spot meter read.
    Returns (scene, ev, gain, strength, params)."""
    h, w = s.shape[:2]
    gain = 1.0
    if photo is None:
        photo = s
    if intent in ("night", "bokeh"):
        s = photo
    if intent == "night" and NIGHT_LAMPS:
        return night_by_lamps(s, pr, diag)
    if intent == "night":
        k = float(pr.uniform(3.0, 4.5))         # the ambient light falls by k stops
        net = float(pr.uniform(1.5, 2.5))       # night mode: the ambient ends net stops below day
        amb = s / (1.0 + s / 0.35) * NIGHT_TINT * np.float32(2.0 ** -k)   # bright skies darken most
        spec = specular_points(s, diag)
        lights = s * spec[:, :, None] * np.float32(2.0 ** -k * float(pr.uniform(2.0, 8.0)))
        n = int(pr.integers(4, 13))
        lamps = np.zeros_like(s)
        for _ in range(n):
            cx, cy = pr.uniform(0.05, 0.95) * w, pr.uniform(0.2, 0.85) * h
            r = float(pr.uniform(0.0015, 0.004)) * diag
            level = float(pr.uniform(4.0, 30.0)) * 2.0 ** -(k - net)
            col = LAMP_COLOURS[int(pr.integers(len(LAMP_COLOURS)))]
            disc = soft_disc(h, w, cx, cy, r)
            if disc is None:
                continue
            rows, columns, weights = disc
            lamps[rows, columns] += weights[:, :, None] * col * np.float32(level)
        src_light = lights + lamps
        s = amb + src_light + glare(src_light, diag)
        gain = 2.0 ** (k - net)
        return s, 0.0, gain, -net, dict(ambient_drop_ev=k, ambient_ev=-net, lamps=n,
                                        specular_share=float(spec.mean()))
    if intent == "lowkey":
        k = float(pr.uniform(3.0, 5.0))
        R = float(pr.uniform(0.1, 0.2)) * diag
        cx, cy = detail_centre(photo, diag)
        cx += float(pr.uniform(-0.05, 0.05)) * w
        cy += float(pr.uniform(-0.05, 0.05)) * h
        spot = np.exp(-0.5 * (radial(h, w, cx, cy) / R) ** 2).astype(np.float32)
        # Spot metering: the lit subject is exposed at mid-grey to one stop above.
        weight = spot * spot
        subject = float((luminance(photo) * weight).sum() / max(float(weight.sum()), 1e-12))
        target = SENSOR_MID * 2.0 ** float(pr.uniform(0.0, 1.0))
        meter = float(np.clip(math.log2(target / max(subject, 1e-6)), -1.5, 2.0))
        s = s * np.exp2(meter - k * (1 - spot))[:, :, None]
        return s, ev, 1.0, -k, dict(surround_ev=-k, metering_ev=meter, spot_radius=R / diag,
                                    spot_centre=[cx / w, cy / h])
    if intent == "highkey":
        gamma = float(pr.uniform(0.45, 0.65))
        sat = float(pr.uniform(0.6, 0.9))
        d = tone(s)
        y = luminance(d)[:, :, None]
        d = np.clip(y + (d - y) * sat, 0.0, 1.0)
        d = 0.97 * d ** gamma
        return tone_inverse(d), 0.0, 1.0, gamma, dict(gamma=gamma, saturation=sat)
    if intent == "backlit":
        b = float(pr.uniform(1.0, 2.5))
        flare = float(pr.uniform(0.02, 0.06))
        m = background_mask(photo, diag)
        s = s * np.exp2(b * m)[:, :, None]
        s = s + flare * lowres_blur(s * m[:, :, None], 0.05, diag)
        return s, ev, 1.0, b, dict(background_ev=b, flare=flare, background_share=float(m.mean()))
    if intent == "sunset":
        warm = np.array([1.25, 1.0, 0.7], np.float32)
        glow_level = float(pr.uniform(0.15, 0.5))
        pw = float(pr.uniform(1.5, 3.0))
        fg = float(pr.uniform(0.3, 1.2))
        yy = (np.arange(h, dtype=np.float32)[:, None] + 0.5) / h
        sky = glow_level * (1 - yy) ** pw
        s = s * warm * np.exp2(-fg * yy)[:, :, None] + sky[:, :, None] * np.array([1.0, 0.55, 0.25], np.float32)
        return s, ev, 1.0, -fg, dict(foreground_ev=-fg, sky_glow=glow_level, glow_power=pw)
    if intent == "fog":
        field = ds.smooth_field(max(1, round(h * 256 / max(h, w))), max(1, round(w * 256 / max(h, w))),
                                256, pr)
        field = resize_float(field.astype(np.float32), w, h, Image.Resampling.BILINEAR)
        yy = (np.arange(h, dtype=np.float32)[:, None] + 0.5) / h
        depth = 0.65 * (1 - yy) + 0.35 * field
        beta = float(pr.uniform(0.5, 1.6))
        t = np.exp(-beta * (0.3 + 0.7 * depth)).astype(np.float32)
        # The camera meters the veil: evaluative metering with the compensation people dial
        # for fog puts the airlight 0.4 to 2 stops over mid-grey (sensor 0.12-0.36), light
        # grey, not the near-white of an unmetered veil.
        air = SENSOR_MID * 2.0 ** float(pr.uniform(0.4, 2.0))
        s = s * t[:, :, None] + (air * np.array([0.95, 0.98, 1.0], np.float32)) * (1 - t)[:, :, None]
        return s, ev, 1.0, float(t.mean()), dict(beta=beta, airlight=air, transmission_mean=float(t.mean()))
    if intent == "bokeh":
        R = float(pr.uniform(0.12, 0.28)) * diag
        rb = float(pr.uniform(0.006, 0.02))
        cx, cy = detail_centre(s, diag)
        m = 1.0 - ds.smoothstep(R, 1.6 * R, radial(h, w, cx, cy)).astype(np.float32)
        bright = np.where((s.max(axis=2) >= 0.98)[:, :, None], s * 4.0, s).astype(np.float32)
        bg = blur(bright, ds.disk_kernel(rb * diag))
        s = m[:, :, None] * s + (1 - m)[:, :, None] * bg
        return s, ev, 1.0, rb, dict(background_radius=rb, sharp_radius=R / diag,
                                    sharp_centre=[cx / w, cy / h])
    raise ValueError(intent)


def rounded(x):
    """JSON-ready copy with floats to 6 significant digits (stable text)."""
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [rounded(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(f"{float(x):.6g}")
    return x


# --------------------------------------------------------------------------
# Work and writing
# --------------------------------------------------------------------------


def schedule(sid, seed, kinds, count):
    """The (kind, index) of each of a source's `count` variants: the active kinds in a
    seeded order per source, cycled; index = how many of that kind came before. A variant's
    content depends only on (seed, source, kind, index)."""
    perm = ds.rng_for(seed, "camera-corpus", sid, "kind-order").permutation(len(KINDS))
    order = [KINDS[i] for i in perm if KINDS[i] in kinds]
    return [(order[i % len(order)], i // len(order)) for i in range(count)]


def source_task(args):
    src, jobs, seed, long_side, out = args
    u8 = load_source(src["path"])
    rows = []
    t0 = time.time()
    for kind, j in jobs:
        data, row = variant(src, u8, kind, j, seed, long_side)
        with open(os.path.join(out, row["path"]), "wb") as f:
            f.write(data)
        rows.append(row)
    return src["id"], rows, time.time() - t0


COLUMNS = ["path", "label", "split", "source", "defect", "strength", "intent", "kind",
           "width", "height", "quality", "params"]

# Per-detector views: the same rows with `label` = 1 only for that detector's defects.
DETECTOR_DEFECTS = {"blur": ("defocus", "motion"), "smudge": ("smudge",),
                    "exposure": ("under", "over", "backlit"), "noise": ("noise",), "compression": ("jpeg",)}


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(columns)
        for r in rows:
            wr.writerow([cell(r.get(c)) for c in columns])


def cell(v):
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return v


def tool_versions():
    return {"numpy": np.__version__, "scipy": importlib.metadata.version("scipy"),
            "Pillow": importlib.metadata.version("Pillow"), "python": sys.version.split()[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output folder (its images/ and the CSVs are replaced)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count-per-source", type=int, default=DEFAULT_COUNT,
                    help=f"images per source photo (default {DEFAULT_COUNT})")
    ap.add_argument("--long-side", type=int, default=FULL_LONG_SIDE,
                    help="largest output long side; the camera sizes "
                         f"{', '.join(map(str, CAMERA_SIZES))} are scaled by PX/{FULL_LONG_SIDE} "
                         f"(default {FULL_LONG_SIDE}); never above the source's own size")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--only", default=",".join(KINDS), help="comma-separated kinds: " + ",".join(KINDS))
    ap.add_argument("--sources", default="", help="comma-separated source ids (default: all)")
    ap.add_argument("--list-sources", action="store_true", help="print the sources and exclusions, and exit")
    ap.add_argument("--lights-above-clip", action="store_true",
                    help="give the source's clipped lights a radiance above the sensor's white (a trial; off by default)")
    ap.add_argument("--night-lamps", action="store_true",
                    help="light the night scenes by lamps over a dark ambient (a trial; off by default)")
    args = ap.parse_args()
    global LIGHTS_ABOVE_CLIP, NIGHT_LAMPS
    LIGHTS_ABOVE_CLIP = args.lights_above_clip
    NIGHT_LAMPS = args.night_lamps

    kinds = [k for k in args.only.split(",") if k]
    for k in kinds:
        if k not in KINDS:
            sys.exit(f"unknown kind {k!r}; kinds: {', '.join(KINDS)}")
    if args.count_per_source < 1 or args.long_side < 64 or args.jobs < 1:
        sys.exit("--count-per-source >= 1, --long-side >= 64 and --jobs >= 1")

    sources, excluded = discover_sources()
    if args.list_sources:
        for s in sources:
            print(f"keep\t{s['id']}\t{s['package']}\t{s['width']}x{s['height']}\t{s['licence']}\t{s['path']}")
        for e in excluded:
            print(f"skip\t{e['package']}\t{e['reason']}\t{e['path']}")
        return
    if not args.out:
        sys.exit("--out is required")
    sources = select_sources(sources, args.sources)

    for s in sources:
        s["stats"] = source_stats(load_source(s["path"]))
        s["intents"] = source_intents(s["id"], s["stats"])
        s["split"] = split_of(s["id"])

    out = args.out
    os.makedirs(out, exist_ok=True)
    if os.path.isdir(os.path.join(out, "images")):
        shutil.rmtree(os.path.join(out, "images"))
    os.makedirs(os.path.join(out, "images"))

    tasks = [(s, schedule(s["id"], args.seed, kinds, args.count_per_source), args.seed,
              args.long_side, out) for s in sources]
    t0 = time.time()
    rows, busy = [], 0.0
    if args.jobs == 1:
        results = map(source_task, tasks)
    else:
        pool = ProcessPoolExecutor(max_workers=args.jobs)
        results = pool.map(source_task, tasks)
    for sid, r, dt in results:
        rows.extend(r)
        busy += dt
        print(f"{sid}: {len(r)} images, {dt:.1f} s", flush=True)
    if args.jobs != 1:
        pool.shutdown()
    wall = time.time() - t0
    rows.sort(key=lambda r: r["path"])

    write_csv(os.path.join(out, "labels.csv"), COLUMNS, rows)
    for det, defects in DETECTOR_DEFECTS.items():
        view = []
        for r in rows:
            v = dict(r)
            v["label"] = int(r["label"] == 1 and r["defect"] in defects)
            view.append(v)
        write_csv(os.path.join(out, f"labels-{det}.csv"), COLUMNS, view)
    src_cols = ["id", "split", "intents", "package", "version", "path", "width", "height",
                "credit", "licence", "y_p05", "y_median", "y_p95", "clipped"]
    write_csv(os.path.join(out, "sources.csv"), src_cols,
              [dict(s, intents="+".join(s["intents"]), **s["stats"]) for s in sources])
    manifest = dict(generator=GENERATOR, seed=args.seed, count_per_source=args.count_per_source,
                    long_side=args.long_side, only=kinds,
                    sources=[s["id"] for s in sources],
                    packages={p: ds.deb_version(p) for p in PACKAGES}, tools=tool_versions(),
                    images=len(rows), defective=sum(r["label"] for r in rows),
                    **({"lights_above_clip": True} if args.lights_above_clip else {}),
                    **({"night_lamps": True} if args.night_lamps else {}))
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(rows)} images from {len(sources)} photos in {wall:.0f} s "
          f"({busy / max(1, len(rows)):.2f} s per image of worker time, {args.jobs} jobs)")


if __name__ == "__main__":
    main()
