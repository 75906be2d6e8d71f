#!/usr/bin/env python3
"""Builds imgquality's labeled datasets: blur, smudge, exposure and documents.

Usage: build.py --out DIR [--scale S] [--seed N] [--jobs J] [--only NAMES]
(normally run through Scripts/datasets/make-datasets.sh).

Every degradation is defined relative to the image size, so a set built with
--scale 2 means the same thing at twice the resolution. The output is
deterministic: the same seed, scale, package versions and source files give
byte-identical files on every run (random numbers come from generators seeded
by a hash of the seed and the file's name, never from the order of work).

Sources:
  * photographs bundled in the scikit-image wheel (skimage/data/);
  * photographs from Debian's plasma-workspace-wallpapers (/usr/share/wallpapers);
  * rendered pages of words from Debian's wamerican (/usr/share/dict/words) in
    DejaVu and Liberation fonts.
Nothing is downloaded.
"""

import argparse
import csv
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage, signal

DEFAULT_SEED = 20250601
PHOTO_LONG_SIDE = 768          # at --scale 1
PHOTO_JPEG_QUALITY = 88
DOC_DPI = 150                  # at --scale 1
A4_INCHES = (210 / 25.4, 297 / 25.4)
DATASETS = ("blur", "smudge", "exposure", "documents")
REBUILD = "Scripts/datasets/make-datasets.sh"

# --------------------------------------------------------------------------
# Source photographs
# --------------------------------------------------------------------------

# scikit-image's bundled photographs. The credit and licence are quoted from
# the docstrings in skimage/data/_fetchers.py of the installed wheel; the build
# checks that each quoted licence sentence is still there.
SKIMAGE_PHOTOS = [
    # (id, file, subject and credit, licence sentence as quoted)
    ("astronaut", "astronaut.png",
     "Eileen Collins, NASA astronaut; NASA Great Images database",
     "No known copyright restrictions, released into the public domain."),
    ("camera", "camera.png",
     "man with a camera (grey); photographer Lav Varshney",
     "No copyright restrictions. CC0 by the photographer (Lav Varshney)."),
    ("chelsea", "chelsea.png",
     "Chelsea the cat; photographer Stefan van der Walt",
     "No copyright restrictions.  CC0 by the photographer (Stefan van der Walt)."),
    ("coffee", "coffee.png",
     "coffee cup, courtesy of Pikolo Espresso Bar; photographer Rachel Michetti",
     "No copyright restrictions.  CC0 by the photographer (Rachel Michetti)."),
    ("rocket", "rocket.jpg",
     "launch of DSCOVR on Falcon 9; SpaceX",
     "The image was captured by SpaceX and `released in the public domain"),
]

# Wallpapers of plasma-workspace-wallpapers that are real photographs (the
# others are renders). Author and licence come from each metadata.json.
KDE_PHOTOS = ["BytheWater", "ColdRipple", "ColorfulCups", "DarkestHour",
              "EveningGlow", "FallenLeaf", "Grey", "Kite", "OneStandsOut",
              "Path", "summer_1am"]
WALLPAPER_DIR = "/usr/share/wallpapers"
WALLPAPER_PACKAGE = "plasma-workspace-wallpapers"

FONTS = [
    ("DejaVu Sans", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "fonts-dejavu-core"),
    ("DejaVu Serif", "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", "fonts-dejavu-core"),
    ("Liberation Sans", "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf", "fonts-liberation2"),
    ("Liberation Serif", "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf", "fonts-liberation2"),
    ("Liberation Mono", "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf", "fonts-liberation2"),
]
WORDS_FILE = "/usr/share/dict/words"

# --------------------------------------------------------------------------
# Small utilities
# --------------------------------------------------------------------------


def rng_for(seed, *parts):
    """A generator seeded by the seed and a name, independent of work order."""
    text = "\x1f".join(str(p) for p in (seed,) + parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def deb_version(package):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not installed"


def fmt(x):
    """A number as a short, stable string for CSVs and names."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    s = f"{float(x):.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def srgb_to_linear(u8):
    c = u8.astype(np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb_u8(lin):
    x = np.clip(lin, 0.0, 1.0)
    c = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    return np.clip(np.round(c * 255.0), 0, 255).astype(np.uint8)


def to_pil(u8):
    if u8.ndim == 3 and u8.shape[2] == 1:
        return Image.fromarray(u8[:, :, 0], "L")
    if u8.ndim == 2:
        return Image.fromarray(u8, "L")
    return Image.fromarray(u8, "RGB")


def from_pil(im):
    a = np.asarray(im)
    return a[:, :, None].copy() if a.ndim == 2 else a.copy()


def encode_jpeg(u8, quality, dpi=None):
    buf = io.BytesIO()
    kw = dict(quality=quality, subsampling=2, optimize=True)  # 4:2:0: the detectors read luma
    if dpi:
        kw["dpi"] = (dpi, dpi)
    to_pil(u8).save(buf, "JPEG", **kw)
    return buf.getvalue()


def encode_png(u8, dpi=None):
    buf = io.BytesIO()
    kw = dict(optimize=True)
    if dpi:
        kw["dpi"] = (dpi, dpi)
    to_pil(u8).save(buf, "PNG", **kw)
    return buf.getvalue()


def decode(data):
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        return from_pil(im)


def area_resize(u8, w, h):
    """Area-average (box filter) resampling of an 8-bit image."""
    return from_pil(to_pil(u8).resize((w, h), Image.Resampling.BOX))


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def luminance(lin):
    if lin.shape[2] == 1:
        return lin[:, :, 0]
    return 0.2126 * lin[:, :, 0] + 0.7152 * lin[:, :, 1] + 0.0722 * lin[:, :, 2]


# --------------------------------------------------------------------------
# Degradations (all on float images H x W x C; "lin" = linear light)
# --------------------------------------------------------------------------


def gaussian(lin, sigma):
    if sigma <= 0:
        return lin.copy()
    return ndimage.gaussian_filter(lin, sigma=(sigma, sigma, 0), mode="reflect", truncate=4.0)


def convolve(lin, kernel):
    ph, pw = kernel.shape[0] // 2, kernel.shape[1] // 2
    out = np.empty_like(lin)
    for c in range(lin.shape[2]):
        padded = np.pad(lin[:, :, c], ((ph, ph), (pw, pw)), mode="reflect")
        out[:, :, c] = signal.fftconvolve(padded, kernel, mode="valid")
    return out


def disk_kernel(radius, supersample=8):
    """A uniform disk of the given radius, pixel coverage by supersampling."""
    R = int(math.ceil(radius))
    y, x = np.mgrid[-R:R + 1, -R:R + 1].astype(np.float64)
    offsets = (np.arange(supersample) + 0.5) / supersample - 0.5
    cover = np.zeros_like(x)
    for dy in offsets:
        for dx in offsets:
            cover += ((x + dx) ** 2 + (y + dy) ** 2) <= radius * radius
    return cover / cover.sum()


def line_kernel(length, angle_deg):
    """A uniform line segment (linear motion), bilinearly splatted."""
    R = int(math.ceil(length / 2)) + 1
    n = 2 * R + 1
    k = np.zeros((n, n))
    samples = max(2, int(math.ceil(length * 16)))
    t = (np.arange(samples) + 0.5) / samples - 0.5
    a = math.radians(angle_deg)
    xs = R + t * length * math.cos(a)
    ys = R - t * length * math.sin(a)
    x0 = np.floor(xs).astype(int)
    y0 = np.floor(ys).astype(int)
    fx = xs - x0
    fy = ys - y0
    np.add.at(k, (y0, x0), (1 - fx) * (1 - fy))
    np.add.at(k, (y0, x0 + 1), fx * (1 - fy))
    np.add.at(k, (y0 + 1, x0), (1 - fx) * fy)
    np.add.at(k, (y0 + 1, x0 + 1), fx * fy)
    return k / k.sum()


def add_noise(u8, sigma_levels, rng):
    """Gaussian noise of sigma_levels/255, added to the encoded (sRGB) values."""
    noisy = u8.astype(np.float64) + rng.normal(0.0, sigma_levels, u8.shape)
    return np.clip(np.round(noisy), 0, 255).astype(np.uint8)


def exposure(u8, ev):
    return linear_to_srgb_u8(srgb_to_linear(u8) * (2.0 ** ev))


def veil_colour(lin):
    """Mean linear colour of the brightest 5 % of pixels (by luminance)."""
    lum = luminance(lin)
    sel = lum >= np.quantile(lum, 0.95)
    return lin[sel].mean(axis=0)


def smudge(lin, a, s, long_side, veil):
    """out = (1 - a) * blur(img, sigma = s * long side) + a * veil."""
    return (1.0 - a) * gaussian(lin, s * long_side) + a * veil


# Lens contamination, physically modelled (the smudge set). The contamination lies on the
# cover glass in front of the lens, near its entrance pupil, so it is far out of focus: each
# image point is formed by a bundle of rays that crosses a patch of the glass (its footprint),
# and the share f(x) of that patch the contamination covers redirects that share of its light.
# In linear light:
#     out(x) = (1 − f(x))·img(x) + f(x)·S(img)(x)
# where S is what the contamination does with the light it catches: oil and dust scatter it
# into a wide, long-tailed halo, a drop refracts it into an out-of-focus ghost, a scratch
# diffracts it into streaks. Because f is the contamination averaged over the footprint, it is
# smooth across the frame: a veil over most or part of it, never a crisp-edged spot.

# Clipped highlights hide the light sources' real radiance: streaks and halos are made as if
# they were 16× (4 stops) brighter than the clipped value.
HIGHLIGHT_HEADROOM = 16.0

# Scatter PSF: equal-weight Gaussians of σ = these fractions of the long side (spaced
# evenly in log σ over two decades). Light scattered by an oil film falls off about as
# 1/r², which puts equal energy in every octave of radius: so does this mix.
SCATTER_SIGMAS = (0.0025, 0.008, 0.025, 0.08, 0.25)

# The footprint's σ at the image, as a fraction of the long side: a phone's pupil (about
# 2 mm) against the glass area its field of view crosses (a few times that).
PUPIL_FOOTPRINT = 0.08


def radiance(lin):
    """Linear light with the clipped pixels (any channel at 0.98 or above) given
    HIGHLIGHT_HEADROOM: the light a lens actually scatters from a bright source."""
    clipped = (lin.max(axis=2) >= 0.98)[:, :, None]
    return np.where(clipped, lin * HIGHLIGHT_HEADROOM, lin)


def scattered(lin, long_side):
    """The scene's radiance through the scatter PSF (unit energy, reflected borders)."""
    lin = radiance(lin)
    out = np.zeros_like(lin)
    for f in SCATTER_SIGMAS:
        out += gaussian(lin, f * long_side) / len(SCATTER_SIGMAS)
    return out


def smooth_field(h, w, long_side, rng, scale=0.12):
    """Smooth random field in [0, 1]: white noise low-passed at σ = scale · L, rescaled."""
    f = ndimage.gaussian_filter(rng.normal(size=(h, w)), scale * long_side, mode="reflect")
    f -= f.min()
    return f / max(f.max(), 1e-12)


def footprint(mask, long_side):
    """What the image sees of a contamination `mask` drawn on the glass: its share of each
    point's footprint (the mask low-passed at σ = PUPIL_FOOTPRINT · L)."""
    return ndimage.gaussian_filter(mask, PUPIL_FOOTPRINT * long_side, mode="reflect")


def through_glass(lin, f, redirected):
    """(1 − f)·img + f·redirected, for a share f (H × W) of each point's light redirected."""
    f = f[:, :, None]
    return (1 - f) * lin + f * redirected


def oil_film(lin, long_side, rng, strength, coverage):
    """Fingerprint oil scattering a share `strength` of the light it catches into the
    long-tailed halo: over the whole glass (its thickness varying smoothly, 0.6–1), or over
    a patch covering about `coverage` of the field (a smooth random region) whose edge the
    footprint softens. Returns (image, the film's mean share of a footprint)."""
    h, w, _ = lin.shape
    field = smooth_field(h, w, long_side, rng)
    if coverage < 1:
        m = footprint((field >= np.quantile(field, 1.0 - coverage)).astype(np.float64), long_side)
    else:
        m = 0.6 + 0.4 * field
    return through_glass(lin, strength * m, scattered(lin, long_side)), float(m.mean())


def water_drops(lin, long_side, rng):
    """Water drops: 40–160 droplets on the glass (radius U(0.005, 0.03)·L where the image
    sees them), so each footprint holds several and the share they catch varies smoothly:
    f = s·(footprint share of the drops, scaled to peak at 1), s = U(0.3, 0.7). Each droplet
    is a strong lens that throws the light it catches far out of focus: the ghost is the
    scene's radiance through a disc of radius U(0.01, 0.04)·L (a bright source becomes a
    blotch), displaced by the drops' prism (up to 0.02 L), with 30 % scattered. Returns
    (image, mean f, count)."""
    h, w, _ = lin.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64) + 0.5
    union = np.zeros((h, w))
    count = int(rng.integers(40, 161))
    for _ in range(count):
        r = rng.uniform(0.005, 0.03) * long_side
        cx, cy = rng.uniform(0.0, w), rng.uniform(0.0, h)
        x0, x1 = max(0, int(cx - r - 2)), min(w, int(math.ceil(cx + r + 2)))
        y0, y1 = max(0, int(cy - r - 2)), min(h, int(math.ceil(cy + r + 2)))
        if x1 <= x0 or y1 <= y0:
            continue
        d = np.hypot(xx[y0:y1, x0:x1] - cx, yy[y0:y1, x0:x1] - cy) / r
        union[y0:y1, x0:x1] = np.maximum(union[y0:y1, x0:x1], 1.0 - smoothstep(0.9, 1.0, d))
    share = footprint(union, long_side)
    f = rng.uniform(0.3, 0.7) * share / max(share.max(), 1e-12)
    ghost = convolve(radiance(lin), disk_kernel(rng.uniform(0.01, 0.04) * long_side))
    shift = rng.uniform(-0.02, 0.02, size=2) * long_side
    ghost = ndimage.shift(ghost, (shift[1], shift[0], 0), order=1, mode="nearest")
    redirected = 0.7 * ghost + 0.3 * scattered(lin, long_side)
    return through_glass(lin, f, redirected), float(f.mean()), count


def scratches(lin, long_side, rng):
    """Scratches and streaks: a scratched film scattering U(0.25, 0.5) of the light over the
    whole glass, and the highlights (linear light above the 97th percentile) diffracted along
    1–3 lines through every bright point (line PSFs of length U(0.2, 0.5)·L at seeded angles,
    2–6 % of their light each, with HIGHLIGHT_HEADROOM)."""
    veiled, _ = oil_film(lin, long_side, rng, rng.uniform(0.25, 0.5), 1.0)
    lum = luminance(lin)
    bright = np.where((lum >= np.quantile(lum, 0.97))[:, :, None], lin, 0.0)
    out = veiled
    for _ in range(int(rng.integers(1, 4))):
        kernel = line_kernel(rng.uniform(0.2, 0.5) * long_side, rng.uniform(0, 180))
        out = out + rng.uniform(0.02, 0.06) * HIGHLIGHT_HEADROOM * convolve(bright, kernel)
    return out


def dust(lin, long_side, rng):
    """Dust: fine dust scattering U(0.25, 0.5) of the light over the whole glass, and 1–6
    clumps whose shadows, softened by the footprint, are dark blobs of radius U(0.04, 0.1)·L
    absorbing U(0.15, 0.4) of the light. Returns (image, clump count)."""
    h, w, _ = lin.shape
    out, _ = oil_film(lin, long_side, rng, rng.uniform(0.25, 0.5), 1.0)
    shade = np.ones((h, w))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64) + 0.5
    count = int(rng.integers(1, 7))
    for _ in range(count):
        r = rng.uniform(0.04, 0.1) * long_side
        cx, cy = rng.uniform(0.0, w), rng.uniform(0.0, h)
        shade *= 1.0 - rng.uniform(0.15, 0.4) * np.exp(-0.5 * (np.hypot(xx - cx, yy - cy) / r) ** 2)
    return out * shade[:, :, None], count


def jpeg_recompress(u8, quality):
    """The image as a photo-quality JPEG, decoded and re-encoded at the given quality."""
    return encode_jpeg(decode(encode_jpeg(u8, PHOTO_JPEG_QUALITY)), quality)


# --------------------------------------------------------------------------
# Photo sources
# --------------------------------------------------------------------------


def skimage_data_dir():
    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("scikit-image is not installed")
    return os.path.join(list(spec.submodule_search_locations)[0], "data")


def largest_image(folder):
    best = None
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.islink(path):    # the smaller sizes are links to the largest
            continue
        with Image.open(path) as im:
            area = im.size[0] * im.size[1]
        if best is None or area > best[0]:
            best = (area, path)
    return best[1]


def photo_sources():
    """The list of source photographs with their credits and licences."""
    sources = []
    data = skimage_data_dir()
    fetchers = open(os.path.join(data, "_fetchers.py"), encoding="utf-8").read()
    sk_version = importlib.metadata.version("scikit-image")
    for ident, fname, credit, licence in SKIMAGE_PHOTOS:
        path = os.path.join(data, fname)
        if not os.path.exists(path):
            print(f"warning: {path} missing; skipped", file=sys.stderr)
            continue
        if licence not in fetchers:
            sys.exit(f"licence statement for {fname} no longer in _fetchers.py: check it")
        sources.append(dict(id=f"skimage-{ident}", path=path, group="skimage",
                            package=f"scikit-image {sk_version} (PyPI wheel)",
                            file=f"skimage/data/{fname}", credit=credit,
                            licence=licence.replace("`", "").replace("  ", " ")))
    wp_version = deb_version(WALLPAPER_PACKAGE)
    for name in KDE_PHOTOS:
        folder = os.path.join(WALLPAPER_DIR, name)
        if not os.path.isdir(folder):
            print(f"warning: {folder} missing ({WALLPAPER_PACKAGE} not installed?); skipped",
                  file=sys.stderr)
            continue
        meta = json.load(open(os.path.join(folder, "metadata.json"), encoding="utf-8"))["KPlugin"]
        author = ", ".join(a["Name"] for a in meta.get("Authors", []))
        path = largest_image(os.path.join(folder, "contents", "images"))
        sources.append(dict(id=f"kde-{name.lower()}", path=path, group="kde",
                            package=f"Debian {WALLPAPER_PACKAGE} {wp_version}",
                            file=path, credit=f"\"{meta.get('Name', name)}\" by {author}",
                            licence=f"{meta.get('License', '?')} (metadata.json); "
                                    f"GPL-2+ (Debian copyright file, Files: *)"))
    return sources


def assign_splits(items, seed, salt, key=lambda s: s):
    """About half train, half test; shuffled within each group, then alternated."""
    groups = {}
    for it in items:
        groups.setdefault(it.get("group", "") if isinstance(it, dict) else "", []).append(it)
    order = []
    for g in sorted(groups):
        members = sorted(groups[g], key=key)
        perm = rng_for(seed, "split", salt, g).permutation(len(members))
        order.extend(members[i] for i in perm)
    return {key(it): ("train" if i % 2 == 0 else "test") for i, it in enumerate(order)}


def load_photo(path, long_side):
    """The source as 8-bit RGB or grey, area-resized so its long side is at most long_side."""
    with Image.open(path) as im:
        im.load()
        mode = "L" if im.mode in ("L", "I;16", "I", "1", "LA") else "RGB"
        im = im.convert(mode)
        w, h = im.size
        if max(w, h) > long_side:
            f = long_side / max(w, h)
            im = im.resize((max(1, round(w * f)), max(1, round(h * f))), Image.Resampling.BOX)
        return from_pil(im)


# --------------------------------------------------------------------------
# Photo sets
# --------------------------------------------------------------------------

BLUR_GAUSS = [0.0007, 0.003, 0.006, 0.012]
BLUR_DEFOCUS = [0.004, 0.008, 0.016]
BLUR_MOTION = [0.01, 0.02, 0.04]
NOISE_LEVELS = 4.0            # sigma in 8-bit levels (4/255)
OIL_STRENGTHS = [0.4, 0.6, 0.8]  # share of the light an oil film scatters
SMUDGE_BLUR_NEGATIVE = 0.003      # a soft but clean photo: blur, not a smudge (σ / L)
EXPOSURE_EVS = [-3.0, -2.0, -1.5, -0.6, -0.3, 0.0, 0.3, 0.6, 1.5, 2.0, 3.0]


def photo_task(args):
    """All variants of one source photo, for the sets asked for."""
    src, split, seed, long_side, sets = args
    img = load_photo(src["path"], long_side)
    h, w, _ = img.shape
    L = max(h, w)
    lin = srgb_to_linear(img)
    sid = src["id"]
    out = {s: [] for s in sets}

    def emit(dataset, suffix, data, ext, row):
        rel = f"images/{sid}_{suffix}.{ext}"
        base = dict(path=rel, label=None, split=split, source=sid)
        base.update(row)
        sz = decode(data).shape
        base.setdefault("width", sz[1])
        base.setdefault("height", sz[0])
        out[dataset].append((rel, data, base))

    def jpg(u8):
        return encode_jpeg(u8, PHOTO_JPEG_QUALITY)

    if "blur" in sets:
        emit("blur", "clean", jpg(img), "jpg",
             dict(label=0, degradation="clean", severity=0, px=0, angle=""))
        for f in BLUR_GAUSS:
            u8 = linear_to_srgb_u8(gaussian(lin, f * L))
            emit("blur", f"gaussian-{fmt(f)}", jpg(u8), "jpg",
                 dict(label=0 if f < 0.001 else 1, degradation="gaussian", severity=f,
                      px=round(f * L, 3), angle=""))
        for f in BLUR_DEFOCUS:
            u8 = linear_to_srgb_u8(convolve(lin, disk_kernel(f * L)))
            emit("blur", f"defocus-{fmt(f)}", jpg(u8), "jpg",
                 dict(label=1, degradation="defocus", severity=f, px=round(f * L, 3), angle=""))
        for f in BLUR_MOTION:
            angle = round(float(rng_for(seed, "blur", sid, "motion", f).uniform(0, 180)), 1)
            u8 = linear_to_srgb_u8(convolve(lin, line_kernel(f * L, angle)))
            emit("blur", f"motion-{fmt(f)}", jpg(u8), "jpg",
                 dict(label=1, degradation="motion", severity=f, px=round(f * L, 3), angle=angle))
        u8 = add_noise(img, NOISE_LEVELS, rng_for(seed, "photo", sid, "noise"))
        emit("blur", "noise-4", jpg(u8), "jpg",
             dict(label=0, degradation="noise", severity=NOISE_LEVELS, px=0, angle=""))
        emit("blur", "jpeg-q40", jpeg_recompress(img, 40), "jpg",
             dict(label=0, degradation="jpeg", severity=40, px=0, angle=""))
        u8 = area_resize(img, max(1, round(w / 2)), max(1, round(h / 2)))
        emit("blur", "half-size", jpg(u8), "jpg",
             dict(label=0, degradation="downscale", severity=0.5, px=0, angle=""))

    if "smudge" in sets:
        def srow(label, kind, severity, coverage, extra=""):
            return dict(label=label, degradation=kind, severity=severity, kind=kind,
                        coverage=coverage, drops=extra)

        def camera(u8, name):
            """Sensor noise (σ = 2 levels) then the JPEG, as a phone would write it."""
            return jpg(add_noise(u8, 2.0, rng_for(seed, "smudge", sid, "camera", name)))

        emit("smudge", "clean", jpg(img), "jpg", srow(0, "clean", 0, 0))
        for strength in OIL_STRENGTHS:
            rng = rng_for(seed, "smudge", sid, "oil", strength)
            res, coverage = oil_film(lin, L, rng, strength, 1.0)
            emit("smudge", f"oil-{fmt(strength)}", camera(linear_to_srgb_u8(res), f"oil-{strength}"), "jpg",
                 srow(1, "oil", strength, round(coverage, 4)))
        for i in (1, 2):
            rng = rng_for(seed, "smudge", sid, "partial", i)
            strength = OIL_STRENGTHS[int(rng.integers(0, len(OIL_STRENGTHS)))]
            res, coverage = oil_film(lin, L, rng, strength, float(rng.uniform(0.3, 0.6)))
            emit("smudge", f"partial-{i}", camera(linear_to_srgb_u8(res), f"partial-{i}"), "jpg",
                 srow(1, "partial", strength, round(coverage, 4)))
        for i in (1, 2):
            rng = rng_for(seed, "smudge", sid, "drops", i)
            res, coverage, count = water_drops(lin, L, rng)
            emit("smudge", f"drops-{i}", camera(linear_to_srgb_u8(res), f"drops-{i}"), "jpg",
                 srow(1, "drops", round(coverage, 4), round(coverage, 4), count))
        rng = rng_for(seed, "smudge", sid, "scratch")
        emit("smudge", "scratch-1", camera(linear_to_srgb_u8(scratches(lin, L, rng)), "scratch"), "jpg",
             srow(1, "scratch", 1, 1))
        rng = rng_for(seed, "smudge", sid, "dust")
        res, count = dust(lin, L, rng)
        emit("smudge", "dust-1", camera(linear_to_srgb_u8(res), "dust"), "jpg", srow(1, "dust", count, 1, count))
        u8 = add_noise(img, NOISE_LEVELS, rng_for(seed, "photo", sid, "noise"))
        emit("smudge", "noise-4", jpg(u8), "jpg", srow(0, "noise", NOISE_LEVELS, 0))
        emit("smudge", "jpeg-q40", jpeg_recompress(img, 40), "jpg", srow(0, "jpeg", 40, 0))
        for ev in (-0.5, 0.5):
            emit("smudge", f"ev{ev:+.1f}", jpg(exposure(img, ev)), "jpg", srow(0, "exposure", ev, 0))
        u8 = linear_to_srgb_u8(gaussian(lin, SMUDGE_BLUR_NEGATIVE * L))
        emit("smudge", f"gaussian-{fmt(SMUDGE_BLUR_NEGATIVE)}", jpg(u8), "jpg",
             srow(0, "gaussian", SMUDGE_BLUR_NEGATIVE, 0))

    if "exposure" in sets:
        for ev in EXPOSURE_EVS:
            label = 1 if abs(ev) >= 1.5 else 0
            direction = "ok" if label == 0 else ("under" if ev < 0 else "over")
            name = "clean" if ev == 0 else f"ev{ev:+.1f}"
            emit("exposure", name, jpg(exposure(img, ev)), "jpg",
                 dict(label=label, degradation="clean" if ev == 0 else "exposure",
                      severity=ev, ev=ev, direction=direction))
    return sid, out


PHOTO_COLUMNS = {
    "blur": ["path", "label", "split", "source", "degradation", "severity", "px", "angle",
             "width", "height"],
    "smudge": ["path", "label", "split", "source", "degradation", "severity", "kind",
               "coverage", "drops", "width", "height"],
    "exposure": ["path", "label", "split", "source", "degradation", "severity", "ev",
                 "direction", "width", "height"],
}


# --------------------------------------------------------------------------
# Documents
# --------------------------------------------------------------------------

DOC_PAGES = 10
DOC_PAPER = 240
DOC_INK = 28


def doc_degradations():
    """(name, degradation, severity); pixel values are at 150 dpi."""
    d = [("clean", "clean", 0)]
    d += [(f"gaussian-{fmt(s)}", "gaussian", s) for s in (0.7, 1.2, 1.8, 2.5)]
    d += [(f"motion-{fmt(s)}", "motion", s) for s in (6, 12)]
    d += [(f"downscale-{fmt(s)}", "downscale", s) for s in (0.6, 0.45, 0.35)]
    d += [(f"ev{s:+.1f}", "exposure", s) for s in (1.5, 2.5, -2.0, -3.0)]
    d += [(f"noise-{fmt(s)}", "noise", s) for s in (10,)]  # noise pages barely compress: one level
    d += [("jpeg-q25", "jpeg", 25)]
    d += [("smudge-0.3", "smudge", 0.3)]  # veil 0.3 with softening σ = 0.0012 × long side (about 2 px)
    return d


def load_words():
    words = []
    with open(WORDS_FILE, encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.strip()
            if re.fullmatch(r"[a-z]{2,12}", w):
                words.append(w)
    return sorted(set(words))


def wrap(words, font, width):
    lines, cur = [], []
    for word in words:
        trial = " ".join(cur + [word])
        if cur and font.getlength(trial) > width:
            lines.append(" ".join(cur))
            cur = [word]
        else:
            cur.append(word)
    if cur:
        lines.append(" ".join(cur))
    return lines


def sentence(rng, vocab):
    n = int(rng.integers(5, 15))
    ws = [vocab[int(i)] for i in rng.integers(0, len(vocab), n)]
    ws[0] = ws[0].capitalize()
    for i in range(n - 1):
        if rng.random() < 0.1:
            ws[i] += ","
    ws[-1] += "."
    return ws


def render_page(page, font_path, vocab, seed, dpi):
    rng = rng_for(seed, "documents", page, "text")
    W = round(A4_INCHES[0] * dpi)
    H = round(A4_INCHES[1] * dpi)
    margin = round(0.8 * dpi)
    pt = float(rng.choice([10.0, 10.5, 11.0, 11.5, 12.0]))
    px = pt * dpi / 72.0
    body = ImageFont.truetype(font_path, size=px, layout_engine=ImageFont.Layout.BASIC)
    title_font = ImageFont.truetype(font_path, size=px * 1.6, layout_engine=ImageFont.Layout.BASIC)
    im = Image.new("L", (W, H), DOC_PAPER)
    draw = ImageDraw.Draw(im)
    width = W - 2 * margin
    text_lines = []   # ground truth, as rendered; "" between paragraphs

    title = [vocab[int(i)] for i in rng.integers(0, len(vocab), int(rng.integers(2, 6)))]
    title = [t.capitalize() for t in title]
    y = margin + round(px * 1.6)
    for line in wrap(title, title_font, width):
        draw.text((margin, y), line, font=title_font, fill=DOC_INK, anchor="ls")
        text_lines.append(line)
        y += round(px * 1.6 * 1.3)
    text_lines.append("")
    y += round(px * 0.8)

    line_h = round(px * 1.35)
    bottom = H - margin
    full = False
    while not full:
        words = []
        for _ in range(int(rng.integers(2, 7))):
            words += sentence(rng, vocab)
        for line in wrap(words, body, width):
            if y > bottom:
                full = True
                break
            draw.text((margin, y), line, font=body, fill=DOC_INK, anchor="ls")
            text_lines.append(line)
            y += line_h
        text_lines.append("")
        y += round(px * 0.7)
    while text_lines and text_lines[-1] == "":
        text_lines.pop()
    return from_pil(im), "\n".join(text_lines) + "\n", pt


def degrade_doc(u8, name, kind, sev, page, seed, dpi):
    """Returns (bytes, extension, effective dpi)."""
    k = dpi / DOC_DPI
    dpi = int(round(dpi))
    lin = srgb_to_linear(u8)
    H, W = u8.shape[:2]
    rng = rng_for(seed, "documents", page, name)
    if kind == "clean":
        out = u8
    elif kind == "gaussian":
        out = linear_to_srgb_u8(gaussian(lin, sev * k))
    elif kind == "motion":
        out = linear_to_srgb_u8(convolve(lin, line_kernel(sev * k, float(rng.uniform(0, 180)))))
    elif kind == "downscale":
        out = area_resize(u8, round(W * sev), round(H * sev))
        return smaller_of_png_and_jpeg(out, round(dpi * sev))
    elif kind == "exposure":
        out = exposure(u8, sev)
    elif kind == "noise":
        out = add_noise(u8, sev, rng)
    elif kind == "jpeg":
        return encode_jpeg(u8, int(sev), dpi=dpi), "jpg"
    elif kind == "smudge":
        a, s = 0.3, 0.0012
        out = linear_to_srgb_u8(smudge(lin, a, s, max(H, W), veil_colour(lin)))
    else:
        raise ValueError(kind)
    return smaller_of_png_and_jpeg(out, dpi)


def smaller_of_png_and_jpeg(u8, dpi):
    """Lossless PNG, unless a quality-92 JPEG is smaller (heavy blur, noise)."""
    png = encode_png(u8, dpi=dpi)
    jpg = encode_jpeg(u8, PHOTO_JPEG_QUALITY, dpi=dpi)
    return (jpg, "jpg") if len(jpg) < len(png) else (png, "png")


def levenshtein(a, b):
    """Edit distance (unit costs), bit-parallel (Myers 1999, Hyyrö 2001)."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    m = len(a)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    peq = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score = mask, 0, m
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & mask) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def levenshtein_reference(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def check_levenshtein():
    rng = np.random.default_rng(1)
    for _ in range(300):
        a = "".join(rng.choice(list("ab c"), int(rng.integers(0, 30))))
        b = "".join(rng.choice(list("ab cd"), int(rng.integers(0, 30))))
        assert levenshtein(a, b) == levenshtein_reference(a, b), (a, b)


def normalise(text):
    return re.sub(r"\s+", " ", text).strip()


def ocr_task(args):
    path, truth = args
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    try:
        r = subprocess.run(["tesseract", path, "-", "-l", "eng", "--psm", "3"],
                           capture_output=True, env=env, timeout=600)
        text = r.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        text = ""
    gt = normalise(truth)
    cer = min(1.0, levenshtein(gt, normalise(text)) / max(1, len(gt)))
    return cer, word_f1(truth, text)


def word_tokens(text):
    """Lowercased words with punctuation stripped from their ends."""
    toks = (t.strip(".,;:!?\"'()[]{}-").lower() for t in text.split())
    return [t for t in toks if t]


def word_f1(truth, text):
    """F1 of the multiset of words recognised against the ground truth's (order ignored)."""
    gt, rec = Counter(word_tokens(truth)), Counter(word_tokens(text))
    hit = sum((gt & rec).values())
    if hit == 0:
        return 0.0
    p, r = hit / sum(rec.values()), hit / sum(gt.values())
    return 2 * p * r / (p + r)


def tesseract_version():
    r = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
    first = (r.stdout or r.stderr).splitlines()[0].strip()
    return f"{first} (Debian tesseract-ocr {deb_version('tesseract-ocr')}, " \
           f"tesseract-ocr-eng {deb_version('tesseract-ocr-eng')})"


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def reset_dir(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(os.path.join(path, "images"))


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(columns)
        for r in rows:
            wr.writerow(["" if r.get(c) is None else (fmt(r[c]) if isinstance(r[c], (float, np.floating)) else r[c])
                         for c in columns])


def count_table(rows, key):
    keys = sorted({r[key] for r in rows}, key=str)
    lines = [f"| {key} | train | test | total |", "|---|---|---|---|"]
    for k in keys:
        tr = sum(1 for r in rows if r[key] == k and r["split"] == "train")
        te = sum(1 for r in rows if r[key] == k and r["split"] == "test")
        lines.append(f"| {k} | {tr} | {te} | {tr + te} |")
    tr = sum(1 for r in rows if r["split"] == "train")
    te = sum(1 for r in rows if r["split"] == "test")
    lines.append(f"| all | {tr} | {te} | {tr + te} |")
    return "\n".join(lines)


def sources_table(sources, splits):
    lines = ["| source | split | file | package | credit | licence |", "|---|---|---|---|---|---|"]
    for s in sources:
        lines.append(f"| `{s['id']}` | {splits[s['id']]} | `{s['file']}` | {s['package']} | "
                     f"{s['credit']} | {s['licence']} |")
    return "\n".join(lines)


def tool_versions():
    return (f"numpy {np.__version__}, scipy {importlib.metadata.version('scipy')}, "
            f"Pillow {importlib.metadata.version('Pillow')}, "
            f"scikit-image {importlib.metadata.version('scikit-image')}")


def common_photo_readme(sources, splits, long_side, args_text):
    return f"""## Source photographs

{len(sources)} real photographs. Each is read from the installed package, converted to 8-bit RGB
(grey for grey sources) and area-resampled (box filter) so its long side is {long_side} px; a source
whose long side is already shorter is kept at its own size, never upscaled. Every degradation is
stated as a fraction of the **long side L of that image**, so it means the same at every size. Files
are JPEG quality {PHOTO_JPEG_QUALITY}, 4:2:0, unless stated.

Each source photo is assigned to `train` or `test` (about half each, seeded, shuffled within each
package and alternated), and every variant of a photo shares its split.

{sources_table(sources, splits)}

scikit-image's credits and licences are quoted from the docstrings of `skimage/data/_fetchers.py` in
the wheel (the build checks the sentences are still there). For the wallpapers, `metadata.json` of each
wallpaper names the author and licence, while Debian's `/usr/share/doc/{WALLPAPER_PACKAGE}/copyright`
gives `GPL-2+` for all files; the images here are derived works (resized and degraded) and carry those
terms.

## Rebuilding

```
{REBUILD}{args_text}
```

installs the Debian packages and the pinned Python packages
(`Scripts/datasets/requirements.txt`: {tool_versions()}) and rebuilds every set. The output is
byte-identical on a re-run with the same versions.

Colour conversions use the exact sRGB curves: decode `c ≤ 0.04045 ? c/12.92 : ((c+0.055)/1.055)^2.4`,
encode the inverse; encoding clips to [0, 1] and rounds to 8 bits.
"""


def photo_readme(name, sources, splits, rows, long_side, args_text):
    head = {
        "blur": f"""# blur

Sharp and blurred versions of real photographs, for calibrating and measuring the `blur` detector.
`label` 1 = visibly blurred, 0 = sharp.

## How the labels were made

Blurs are applied in linear light (sRGB decode → convolve → encode), with reflected borders.

| degradation | formula (L = long side in px) | label |
|---|---|---|
| `clean` | the source as resized | 0 |
| `gaussian` | Gaussian, σ = severity · L, severity ∈ {{{", ".join(fmt(x) for x in BLUR_GAUSS)}}} | 0 for 0.0007, else 1 |
| `defocus` | uniform disk, radius = severity · L, severity ∈ {{{", ".join(fmt(x) for x in BLUR_DEFOCUS)}}} (pixel coverage by 8×8 supersampling) | 1 |
| `motion` | uniform line segment, length = severity · L, severity ∈ {{{", ".join(fmt(x) for x in BLUR_MOTION)}}}, at a seeded random angle (`angle`, degrees counter-clockwise from +x) | 1 |
| `noise` | hard negative: Gaussian noise σ = 4/255 added to the 8-bit sRGB values (severity 4, in levels) | 0 |
| `jpeg` | hard negative: the clean image as a q{PHOTO_JPEG_QUALITY} JPEG, decoded and saved as a quality-40 JPEG (this file is q40) | 0 |
| `downscale` | hard negative: the clean image area-resampled to half width and height | 0 |

`px` is the σ, radius or length in pixels of this image.
""",
        "smudge": f"""# smudge

Clean and smudged versions of real photographs (a greasy or wet lens), for calibrating and measuring
the `smudge` detector. `label` 1 = smudged, 0 = clean (including the hard negatives).

## How the labels were made

A physical model of a contaminated lens, in linear light, on the source photo as resized; then
sensor noise (σ = 2 levels on the 8-bit values) and a q{PHOTO_JPEG_QUALITY} JPEG, as a phone writes
its files. `L` is the long side in px.

The contamination lies on the cover glass in front of the lens, near its entrance pupil, so it
is far out of focus. Each image point is formed by a bundle of rays crossing a patch of the glass
(its **footprint**, a Gaussian of σ = {fmt(PUPIL_FOOTPRINT)} L at the image), and the share `f` of
that patch the contamination covers redirects that share of the point's light:

    out = (1 − f)·img + f·S(img)

`S` is what the contamination does with the light it catches, and `f` is smooth across the frame
because it is an average over the footprint: contamination shows as a veil over all or part of the
frame, glow and ghosts around bright areas, never as a crisp-edged spot.

- **Scatter** (oil, dust, a scratched film): a wide, long-tailed halo: the image convolved with a
  PSF that is an equal mix of Gaussians of σ = {", ".join(fmt(f) for f in SCATTER_SIGMAS)} · L (unit
  energy; equal energy per octave of radius, as a 1/r² glare tail has). Clipped pixels scatter as
  if {fmt(HIGHLIGHT_HEADROOM)}× brighter (their real radiance is hidden by the clip).
- **Film thickness.** A smooth random field (white noise low-passed at σ = 0.12 L): 0.6–1 across
  the frame for a whole film, or cut at a quantile and softened by the footprint for a patch.

| kind (= degradation) | what | severity | label |
|---|---|---|---|
| `oil` | fingerprint oil over the whole glass: `f = a·m`, `m` the film's thickness (0.6–1), `S` the scatter, a ∈ {{{", ".join(fmt(a) for a in OIL_STRENGTHS)}}} | a | 1 |
| `partial` | the same film as a patch over 30–60 % of the field (`coverage`), its edge softened by the footprint, a a seeded choice of the three | a | 1 |
| `drops` | 40–160 droplets (`drops`), radius U(0.005, 0.03)·L: `f` = s × their share of each footprint (scaled to peak at 1), s = U(0.3, 0.7); each droplet is a strong lens, so `S` is the scene's radiance through a disc of radius U(0.01, 0.04)·L (a bright source becomes a blotch) shifted by up to 0.02 L, with 30 % scattered | mean f | 1 |
| `scratch` | a scratched film scattering U(0.25, 0.5) of the light over the whole glass, and the highlights (above the 97th percentile of luminance) diffracted along 1–3 lines of length U(0.2, 0.5)·L at seeded angles (2–6 % of their light each, as if {fmt(HIGHLIGHT_HEADROOM)}× brighter than clipped) | 1 | 1 |
| `dust` | fine dust scattering U(0.25, 0.5) of the light over the whole glass, and 1–6 clumps whose shadows, softened by the footprint, are dark blobs of radius U(0.04, 0.1)·L absorbing 15–40 % | clump count | 1 |
| `clean` | the source as resized | 0 | 0 |
| `noise` | Gaussian noise σ = 4/255 on the sRGB values | 4 (levels) | 0 |
| `jpeg` | q{PHOTO_JPEG_QUALITY} JPEG decoded and saved at quality 40 | 40 | 0 |
| `exposure` | linear light × 2^EV, EV = ±0.5 | EV | 0 |
| `gaussian` | hard negative: softened, not veiled (Gaussian σ = {fmt(SMUDGE_BLUR_NEGATIVE)} · L) | σ / L | 0 |

`coverage` is the mean of the film's thickness or patch as the footprint sees it (the mean `f`
for `drops`).

## How the model was checked

Beside the 11 real dirty-lens photos of the team's `smudge-dev` set (not in this repository;
iPhone 12 Pro through a contaminated film), by eye and by one measurement. By eye, every real
kind, drops and dust included, shows a strong veil over most of the frame (lifted blacks, a milky
cast) with glow, blotches or streaks around bright sources and only soft, large-scale structure:
no drop or speck is in focus, as contamination at the pupil cannot be. The previous model drew
drops as crisp small lenses with their own inverted content and dust as small dark specks over a
faint film; it looked unlike the real photos, and its drops left the frame's blacks untouched.
Measured: the detector's veil cue (per 32-px tile the darkest tones over the brightest, in linear
light, 10th percentile over tiles) is 0.06–0.50 (median 0.20) on the real dirty photos, and had
a median of 0.003–0.12 per kind in the previous model. The strengths above (every kind a veil of
0.25–0.7 of the light) were raised towards the real range after that comparison; the simulated
kinds still have medians of only 0.03–0.11 on these sources (which include dark, strongly
coloured and hazy scenes), so this set is milder than the real photos. `smudge-dev` informed the
strengths and cannot be quoted as held out for this set's design. See
`Scripts/datasets/build.py` (`oil_film`, `water_drops`, `scratches`, `dust`).
""",
        "exposure": f"""# exposure

Real photographs shifted in exposure, for calibrating and measuring the `exposure` detector.
`label` 1 = badly exposed, 0 = acceptable.

## How the labels were made

    out = encode(clip(decode(img) · 2^EV, 0, 1))

with the sRGB curves below (`decode` to linear light, `encode` back), for EV ∈
{{{", ".join(fmt(e) for e in EXPOSURE_EVS)}}}. `label` = 1 when |EV| ≥ 1.5, else 0: a shift
of up to about two thirds of a stop (±0.6, two steps of a camera's exposure-compensation dial)
is within the tolerance photographers give a JPEG, a matter of taste rather than a fault; from
1.5 stops whole tone ranges sink into the shadows or clip. `direction` is
`under` (EV ≤ −1.5), `over` (EV ≥ 1.5) or `ok`. `severity` and `ev` are both the EV. Scenes that
were already dark or bright (e.g. `kde-darkesthour`, `kde-summer_1am`) are labelled by the shift
alone, so a few EV −0.3 images may look dark.
""",
    }[name]
    return (head + "\n" + common_photo_readme(sources, splits, long_side, args_text) +
            f"""
## Counts

By label:

{count_table(rows, "label")}

By degradation:

{count_table(rows, "degradation")}
""")


def docs_readme(rows, pages, tver, dpi, args_text):
    W = round(A4_INCHES[0] * dpi)
    H = round(A4_INCHES[1] * dpi)
    k = dpi / DOC_DPI
    lines = ["| degradation | severity | n | score min | score median | score max | word F1 median |",
             "|---|---|---|---|---|---|---|"]
    for name, kind, sev in doc_degradations():
        sub = [r for r in rows if r["degradation"] == kind and r["severity"] == sev]
        sel = [r["score"] for r in sub]
        f1 = float(np.median([r["word_f1"] for r in sub]))
        lines.append(f"| {kind} | {fmt(sev)} | {len(sel)} | {min(sel):.3f} | "
                     f"{float(np.median(sel)):.3f} | {max(sel):.3f} | {f1:.3f} |")
    score_table = "\n".join(lines)
    page_lines = ["| page | split | font | size (pt) | characters |", "|---|---|---|---|---|"]
    for p in pages:
        page_lines.append(f"| {p['page']} | {p['split']} | {p['font']} | {fmt(p['pt'])} | {p['chars']} |")
    font_pkgs = sorted({f[2] for f in FONTS})
    return f"""# documents

Rendered pages of known text, degraded, with the OCR accuracy tesseract reaches on each image. For
calibrating and measuring the gate on documents. `score` = 1 − CER (higher is better).

## Pages

{len(pages)} A4 pages rendered at {fmt(dpi)} dpi ({W}×{H} px), grey, paper level {DOC_PAPER} and ink
level {DOC_INK}, anti-aliased, with Pillow's basic layout (no ligatures). Each page has a title
(1.6× the body size) and paragraphs of sentences (5–14 words, capitalised, ending in a full stop,
a comma after about 10 % of words) of words drawn (seeded) from Debian's `wamerican`
(`{WORDS_FILE}`, keeping words of 2–12 plain lowercase ASCII letters), wrapped to the margins
(0.8 in), until the page is full. The font (cycled over a seeded order of DejaVu Sans, DejaVu Serif,
Liberation Sans, Liberation Serif, Liberation Mono) and the body size (10–12 pt) vary per page.
The ground truth is in `text/<page>.txt` (`text_path`), one line per rendered line, a blank line
between paragraphs. Pages are split train/test (seeded, half each); all versions of a page share
its split.

{chr(10).join(page_lines)}

Sources and licences: word list `wamerican` {deb_version('wamerican')} (SCOWL, permissive licence
of Kevin Atkinson and others, see `/usr/share/doc/wamerican/copyright`); fonts
{", ".join(f"`{p}` {deb_version(p)}" for p in font_pkgs)} (Bitstream Vera licence with public-domain
DejaVu changes; SIL OFL 1.1). The images contain text rendered with the fonts, not the font files.

## Degradations

Pixel values are at 150 dpi and scale with the dpi (×{fmt(k)} here). Blur, exposure and smudge are
applied in linear light (sRGB decode → operate → encode, clip, round).

| degradation | severity | formula |
|---|---|---|
| `clean` | 0 | the page |
| `gaussian` | σ in px: 0.7, 1.2, 1.8, 2.5 | Gaussian blur |
| `motion` | length in px: 6, 12 | uniform line kernel at a seeded random angle |
| `downscale` | factor 0.6, 0.45, 0.35 | area-resampled (box filter) to that fraction of width and height; kept small, dpi tag scaled |
| `exposure` | EV +1.5, +2.5, −2, −3 | linear × 2^EV, clipped |
| `noise` | σ in levels: 10 (of 255) | Gaussian noise on the sRGB values |
| `jpeg` | quality 25 | the page saved as a quality-25 JPEG |
| `smudge` | a = 0.3 | `(1 − a)·blur(σ = 0.0012 · long side, about 2 px) + a·veil`, milder than the smudge set so that text stays partly legible (veil = the paper) |

Files are lossless grey PNG, unless a quality-92 JPEG of the same pixels is smaller (always the
case for `noise`, and for the heaviest blurs), except `jpeg`, which is the quality-25 JPEG itself.
Files carry a dpi tag (150, or the scaled value for `downscale`).

## How the scores were made

Each image is read by the tesseract CLI, `tesseract IMG - -l eng --psm 3` (one thread per run,
`OMP_THREAD_LIMIT=1`), with {tver}. Both the OCR output and the ground truth have every run of
whitespace collapsed to one space and are trimmed; `cer` = Levenshtein distance over characters
(unit costs) / ground-truth length, capped at 1; `score` = 1 − `cer`. The CER counts reading order:
when tesseract's layout analysis splits lines into blocks and reads them out of order, the CER rises
although most words were read. `word_f1` ignores order: the F1 of the multiset of words (lowercased,
punctuation stripped from their ends) recognised against the ground truth's.

Scores by degradation (`score` = 1 − CER):

{score_table}

## Rebuilding

```
{REBUILD}{args_text}
```

(pinned Python packages in `Scripts/datasets/requirements.txt`: {tool_versions()}). The output is
byte-identical on a re-run with the same versions.

## Counts

{count_table(rows, "degradation")}
"""


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def build_photos(out, sets, seed, scale, jobs, args_text):
    long_side = round(PHOTO_LONG_SIDE * scale)
    sources = photo_sources()
    if not sources:
        sys.exit("no source photographs found")
    splits = assign_splits(sources, seed, "photos", key=lambda s: s["id"])
    for s in sets:
        reset_dir(os.path.join(out, s))
    tasks = [(src, splits[src["id"]], seed, long_side, tuple(sets)) for src in sources]
    results = {s: [] for s in sets}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for _, res in pool.map(photo_task, tasks):
            for s in sets:
                for rel, data, row in res[s]:
                    with open(os.path.join(out, s, rel), "wb") as f:
                        f.write(data)
                    results[s].append(row)
    for s in sets:
        rows = sorted(results[s], key=lambda r: r["path"])
        write_csv(os.path.join(out, s, "labels.csv"), PHOTO_COLUMNS[s], rows)
        with open(os.path.join(out, s, "README.md"), "w", encoding="utf-8") as f:
            f.write(photo_readme(s, sources, splits, rows, long_side, args_text))
        print(f"{s}: {len(rows)} images from {len(sources)} photos")


def build_documents(out, seed, scale, jobs, args_text, n_pages):
    dpi = DOC_DPI * scale
    root = os.path.join(out, "documents")
    reset_dir(root)
    os.makedirs(os.path.join(root, "text"))
    vocab = load_words()
    font_order = rng_for(seed, "documents", "fonts").permutation(len(FONTS))
    page_ids = [f"page{i + 1:02d}" for i in range(n_pages)]
    splits = assign_splits(page_ids, seed, "documents")
    pages, jobs_list, rows = [], [], []
    for i, pid in enumerate(page_ids):
        fname, fpath, _ = FONTS[int(font_order[i % len(FONTS)])]
        page, truth, pt = render_page(pid, fpath, vocab, seed, dpi)
        text_rel = f"text/{pid}.txt"
        with open(os.path.join(root, text_rel), "w", encoding="utf-8") as f:
            f.write(truth)
        pages.append(dict(page=pid, split=splits[pid], font=fname, pt=pt,
                          chars=len(normalise(truth))))
        for name, kind, sev in doc_degradations():
            data, ext = degrade_doc(page, name, kind, sev, pid, seed, dpi)
            rel = f"images/{pid}_{name}.{ext}"
            path = os.path.join(root, rel)
            with open(path, "wb") as f:
                f.write(data)
            w, h = Image.open(io.BytesIO(data)).size
            rows.append(dict(path=rel, degradation=kind, severity=sev, font=fname, page=pid,
                             split=splits[pid], text_path=text_rel, width=w, height=h))
            jobs_list.append((path, truth))
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(ocr_task, jobs_list))
    print(f"documents: OCR of {len(jobs_list)} images took {time.time() - t0:.0f} s")
    for r, (cer, f1) in zip(rows, results):
        r["cer"] = round(cer, 4)
        r["score"] = round(1.0 - cer, 4)
        r["word_f1"] = round(f1, 4)
    rows.sort(key=lambda r: r["path"])
    cols = ["path", "score", "cer", "degradation", "severity", "font", "page", "split",
            "text_path", "word_f1", "width", "height"]
    write_csv(os.path.join(root, "labels.csv"), cols, rows)
    with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as f:
        f.write(docs_readme(rows, pages, tesseract_version(), dpi, args_text))
    print(f"documents: {len(rows)} images from {len(pages)} pages")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (e.g. Datasets)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="size factor: photo long side 768·S px, pages at 150·S dpi")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--only", default=",".join(DATASETS),
                    help="comma-separated subset of " + ",".join(DATASETS))
    ap.add_argument("--pages", type=int, default=DOC_PAGES, help=f"document pages (default {DOC_PAGES})")
    args = ap.parse_args()
    sets = [s for s in args.only.split(",") if s]
    for s in sets:
        if s not in DATASETS:
            sys.exit(f"unknown dataset {s!r}")
    if args.scale <= 0:
        sys.exit("--scale must be positive")
    extra = []
    if args.scale != 1.0:
        extra.append(f"--scale {fmt(args.scale)}")
    if args.seed != DEFAULT_SEED:
        extra.append(f"--seed {args.seed}")
    if args.pages != DOC_PAGES:
        extra.append(f"--pages {args.pages}")
    args_text = (" --out DIR " + " ".join(extra)).rstrip() if extra else ""
    check_levenshtein()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    photo_sets = [s for s in DATASETS[:3] if s in sets]
    if photo_sets:
        build_photos(args.out, photo_sets, args.seed, args.scale, args.jobs, args_text)
        print(f"photo sets took {time.time() - t0:.0f} s")
    if "documents" in sets:
        t1 = time.time()
        build_documents(args.out, args.seed, args.scale, args.jobs, args_text, args.pages)
        print(f"documents took {time.time() - t1:.0f} s")
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
