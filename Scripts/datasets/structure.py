#!/usr/bin/env python3
"""The `structure` dataset: generated documents of known structure (tables, lists, barcodes,
detected data) for scoring `imgquality ocr --format document` against the truth
(Scripts/measure/structure_accuracy.py).

Usage: structure.py --out DIR [--seed N] [--count N] [--jobs J]
(normally run through Scripts/datasets/make-structure.sh, which writes Datasets/structure).

Each document is one page (A4 or Letter) of one of four layouts: a flyer, a form, a sign-up
sheet or a price list / invoice, drawn at 300 dpi in a font of a Debian font package, with
running text from Debian's man pages (filtered so that it holds no digits, dates or links),
names from hunspell's en_US list, and dates, amounts, phone numbers, addresses, flight and
tracking numbers built by the rules below (check digits computed). Barcodes are drawn by
the `zint` CLI. Each page is saved as a clean 150 dpi render and photographed by the
simulated phone of Scripts/corpus/pages.py (`phone_shot`), whose inverse map carries every
truth box into the photo.

Deterministic: every random number comes from a generator seeded by SHA-256 of (seed,
document id, purpose), so the same seed and package versions give byte-identical files,
whatever --jobs is.
"""

import argparse
import csv
import hashlib
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
import pages as pg  # noqa: E402  (Scripts/corpus/pages.py: fonts, man-page text, phone_shot)

ds = pg.ds
GENERATOR = "Scripts/datasets/structure.py"
REBUILD = "Scripts/datasets/make-structure.sh"
DEFAULT_SEED = 20260314
DEFAULT_COUNT = 60
TEST_SHARE = 0.3
LAYOUTS = ("flyer", "form", "signup", "pricelist")
CLEAN_DPI = 150
PHONE_SIZES = (2000, 2400)          # long side of a phone photo, px
PHONE_JPEG = (80, 90)
SECOND_PHONE_EVERY = 5              # every fifth document gets a second phone photo
SYMBOLOGIES = ("qr", "ean13", "ean8", "upca", "code128", "code39", "pdf417")
ZINT = {"qr": "QRCODE", "ean13": "EANX", "ean8": "EANX", "upca": "UPCA", "code128": "CODE128",
        "code39": "CODE39", "pdf417": "PDF417"}
MM = 25.4

# Characters every body font must have (the markers ▪ may fall back to DejaVu Sans).
NEEDED = "".join(chr(c) for c in range(0x20, 0x7F)) + "•–€£°ßäöüéèçÄÖÜ’"
MARKER_FALLBACK = pg.D + "DejaVuSans.ttf"


def split_of(doc_id):
    h = hashlib.sha256(f"structure-split\x1f{doc_id}".encode("utf-8")).digest()
    return "test" if int.from_bytes(h[:8], "little") / 2.0 ** 64 < TEST_SHARE else "train"


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


# --------------------------------------------------------------------------
# Check digits
# --------------------------------------------------------------------------

def gs1_check(digits):
    """GS1 mod 10 (EAN, UPC, USPS IMpb): weight 3 on the rightmost data digit, alternating."""
    s = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - s % 10) % 10)


def ups_check(body15):
    vals = [int(c) if c.isdigit() else (ord(c) - 63) % 10 for c in body15]
    s = sum(v * (2 if i % 2 == 1 else 1) for i, v in enumerate(vals))
    return str((10 - s % 10) % 10)


def fedex_check(d11):
    w = [3, 1, 7] * 4
    return str(sum(int(d) * w[i] for i, d in enumerate(d11)) % 11 % 10)


def s10_check(d8):
    s = sum(int(d) * w for d, w in zip(d8, (8, 6, 4, 2, 3, 5, 9, 7)))
    c = 11 - s % 11
    return "0" if c == 10 else "5" if c == 11 else str(c)


# --------------------------------------------------------------------------
# Invented data (all rules and small lists written here; names come from hunspell)
# --------------------------------------------------------------------------

US_AREAS = ("212", "312", "415", "617", "206", "303", "512", "503", "404", "215")
DE_AREAS = (("30", "Berlin"), ("89", "Munich"), ("40", "Hamburg"), ("221", "Cologne"))
US_CITIES = (("Springfield", "IL", "62704"), ("Portland", "OR", "97205"), ("Austin", "TX", "78701"),
             ("Denver", "CO", "80202"), ("Boston", "MA", "02108"), ("Columbus", "OH", "43215"),
             ("Madison", "WI", "53703"), ("Raleigh", "NC", "27601"))
US_STREETS = ("Main Street", "Oak Avenue", "Maple Street", "Cedar Road", "Elm Street",
              "Lake Drive", "Park Avenue", "Hill Road", "Washington Street", "Pine Lane")
DE_CITIES = (("10115", "Berlin"), ("80331", "München"), ("20095", "Hamburg"), ("50667", "Köln"),
             ("04109", "Leipzig"), ("60311", "Frankfurt am Main"))
DE_STREETS = ("Hauptstraße", "Bahnhofstraße", "Gartenweg", "Lindenallee", "Schillerstraße",
              "Goethestraße", "Am Markt")
FR_CITIES = (("75002", "Paris"), ("69002", "Lyon"), ("13001", "Marseille"), ("33000", "Bordeaux"),
             ("59000", "Lille"))
FR_STREETS = ("rue de la Paix", "rue Victor Hugo", "avenue Jean Jaurès", "boulevard Voltaire",
              "rue du Moulin", "place de la République")
AIRLINES = ("UA", "AA", "DL", "LH", "BA", "AF", "KL", "EK", "QF", "AC", "IB", "SQ")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
UNITS = (("kg", (1, 25), 0), ("cm", (2, 90), 1), ("ft", (3, 40), 0), ("km", (1, 15), 1),
         ("ml", (100, 750), 0), ("°C", (4, 25), 0), ("mph", (5, 30), 0))
DATE_FORMATS = ("iso", "dmy_slash", "mdy_long", "dmy_long", "dmy_dot", "mdy_short")
MONEY_FORMATS = ("usd_sign", "eur_de", "usd_code_after", "usd_code_before", "gbp_sign", "eur_space")
KINDS = ("date", "money", "phone", "email", "url", "measurement", "postalAddress",
         "flightNumber", "trackingNumber")


class Data:
    """Makes the detected data of one document: each call returns a datum dict
    {kind, text, value[, region]}."""

    def __init__(self, rng, T):
        self.rng, self.T = rng, T

    def r(self, a, b):
        return int(self.rng.integers(a, b + 1))

    def name(self):
        return f"{self.short_word()} {self.short_word()}"

    def short_word(self, capital=True):
        for _ in range(100):
            w = self.T.word(capital)
            if 3 <= len(w) <= 9 and w.isascii():
                return w
        return w

    def date(self, fmt=None, years=(2025, 2027)):
        y, m, d = self.r(*years), self.r(1, 12), self.r(1, 28)
        fmt = fmt or pick(self.rng, DATE_FORMATS)
        text = {"iso": f"{y}-{m:02d}-{d:02d}", "dmy_slash": f"{d:02d}/{m:02d}/{y}",
                "mdy_long": f"{MONTHS[m - 1]} {d}, {y}", "dmy_long": f"{d} {MONTHS[m - 1]} {y}",
                "dmy_dot": f"{d:02d}.{m:02d}.{y}", "mdy_short": f"{MONTHS[m - 1][:3]} {d} {y}"}[fmt]
        return dict(kind="date", text=text, value=f"{y}-{m:02d}-{d:02d}")

    def amount(self, lo=1, hi=500):
        cents = self.r(lo * 100, hi * 100)
        if self.rng.random() < 0.3:
            cents -= cents % 100
        return cents

    def money(self, fmt, cents=None):
        cents = self.amount() if cents is None else cents
        whole, frac = divmod(cents, 100)
        g = f"{whole:,}"
        text, cur = {
            "usd_sign": (f"${g}.{frac:02d}", "USD"),
            "eur_de": (f"€{g.replace(',', '.')},{frac:02d}", "EUR"),
            "usd_code_after": (f"{g}.{frac:02d} USD", "USD"),
            "usd_code_before": (f"USD {g}" if frac == 0 else f"USD {g}.{frac:02d}", "USD"),
            "gbp_sign": (f"£{g}.{frac:02d}", "GBP"),
            "eur_space": (f"{g.replace(',', ' ')} EUR" if frac == 0 else f"{g.replace(',', ' ')},{frac:02d} EUR", "EUR"),
        }[fmt]
        amount = f"{whole}.{frac:02d}" if frac or "," in text or "." in text.replace(" ", "") else str(whole)
        if fmt in ("usd_code_before", "eur_space") and frac == 0:
            amount = str(whole)
        return dict(kind="money", text=text, value={"amount": amount, "currency": cur})

    def phone(self, region=None):
        region = region or pick(self.rng, ("US", "US", "DE", "FR"))
        if region == "US":
            a, x = pick(self.rng, US_AREAS), f"01{self.r(0, 99):02d}"
            style = self.r(0, 3)
            text = (f"({a}) 555-{x}", f"+1 {a} 555 {x}", f"{a}-555-{x}", f"{a}.555.{x}")[style]
            e164 = f"+1{a}555{x}"
        elif region == "DE":
            a, _ = pick(self.rng, DE_AREAS)
            sub = str(self.r(2000000, 8999999))
            text = f"+49 {a} {sub}" if self.rng.random() < 0.5 else f"0{a} {sub}"
            e164 = f"+49{a}{sub}"
        else:
            d = [f"{self.r(10, 99)}" for _ in range(4)]
            first = str(self.r(1, 5))
            text = (f"+33 {first} " if self.rng.random() < 0.5 else f"0{first} ") + " ".join(d)
            e164 = f"+33{first}{''.join(d)}"
        return dict(kind="phone", text=text, value=e164, region=region)

    def email(self, name=None):
        first, last = (name or self.name()).lower().split()[:2]
        dom = pick(self.rng, ("example.com", "example.org", "example.net", "mail.example.com"))
        local = pick(self.rng, (f"{first}.{last}", f"{first[0]}{last}", f"{last}{self.r(1, 99)}",
                                f"info.{last}"))
        t = f"{local}@{dom}"
        return dict(kind="email", text=t, value=t)

    def url(self):
        w1, w2 = self.short_word(False), self.short_word(False)
        t = pick(self.rng, (f"www.example.org/{w1}", f"https://example.com/{w1}-{w2}",
                            f"example.net/{w1}", f"https://www.example.com/{w1}/{self.r(2, 99)}"))
        return dict(kind="url", text=t, value=t if t.startswith("http") else "http://" + t)

    def measurement(self, unit=None):
        u = None
        for cand in UNITS:
            if cand[0] == unit:
                u = cand
        u = u or pick(self.rng, UNITS)
        unit, (lo, hi), dec = u
        if dec:
            v = self.r(lo * 10, hi * 10) / 10
            t = f"{v:.1f}"
        else:
            v = float(self.r(lo, hi))
            if unit == "ml":
                v = float(round(v, -1))
            t = f"{int(v)}"
        return dict(kind="measurement", text=f"{t} {unit}", value={"value": v, "unit": unit})

    def address(self, region=None):
        region = region or pick(self.rng, ("US", "US", "DE", "FR"))
        if region == "US":
            city, st, z = pick(self.rng, US_CITIES)
            t = f"{self.r(10, 2999)} {pick(self.rng, US_STREETS)}, {city}, {st} {z}"
        elif region == "DE":
            z, city = pick(self.rng, DE_CITIES)
            t = f"{pick(self.rng, DE_STREETS)} {self.r(1, 120)}, {z} {city}"
        else:
            z, city = pick(self.rng, FR_CITIES)
            t = f"{self.r(1, 80)} {pick(self.rng, FR_STREETS)}, {z} {city}"
        return dict(kind="postalAddress", text=t, value=t, region=region)

    def flight(self):
        a, n = pick(self.rng, AIRLINES), str(self.r(10, 2999))
        t = f"{a} {n}" if self.rng.random() < 0.6 else f"{a}{n}"
        return dict(kind="flightNumber", text=t, value=a + n)

    def tracking(self):
        kind = self.r(0, 3)
        if kind == 0:        # UPS
            chars = "0123456789ABCDEFGHJKLMNPRSTVWXY"
            body = "".join(pick(self.rng, chars) for _ in range(6)) + f"{self.r(1, 99):02d}" + \
                   "".join(str(self.r(0, 9)) for _ in range(7))
            v = "1Z" + body + ups_check(body)
            t = v if self.rng.random() < 0.6 else f"1Z {v[2:5]} {v[5:8]} {v[8:10]} {v[10:14]} {v[14:]}"
        elif kind == 1:      # FedEx Express, 12 digits
            d = "".join(str(self.r(0, 9)) for _ in range(11))
            v = d + fedex_check(d)
            t = v if self.rng.random() < 0.5 else f"{v[:4]} {v[4:8]} {v[8:]}"
        elif kind == 2:      # USPS IMpb, 22 digits
            d = "9400" + "1" + "".join(str(self.r(0, 9)) for _ in range(16))
            v = d + gs1_check(d)
            t = " ".join(v[i:i + 4] for i in range(0, 22, 4))
        else:                # UPU S10
            d = "".join(str(self.r(0, 9)) for _ in range(8))
            cc = pick(self.rng, ("DE", "FR", "GB", "NL", "CH", "US"))
            v = pick(self.rng, ("RA", "RR", "EE", "CP", "LX")) + d + s10_check(d) + cc
            t = v if self.rng.random() < 0.6 else f"{v[:2]} {v[2:5]} {v[5:8]} {v[8:11]} {v[11:]}"
        carrier = ("UPS", "FedEx", "USPS", "the post")[kind]
        return dict(kind="trackingNumber", text=t, value=v, carrier=carrier)

    def of_kind(self, kind):
        return {"date": self.date, "money": lambda: self.money(pick(self.rng, MONEY_FORMATS)),
                "phone": self.phone, "email": self.email, "url": self.url,
                "measurement": self.measurement, "postalAddress": self.address,
                "flightNumber": self.flight, "trackingNumber": self.tracking}[kind]()

    def near_miss(self):
        k = self.r(0, 3)
        if k == 0:
            return "version", f"{self.r(1, 9)}.{self.r(0, 12)}.{self.r(0, 9)}"
        if k == 1:
            return "ip", f"192.168.{self.r(0, 40)}.{self.r(2, 250)}"
        if k == 2:
            return "part", f"{self.r(10, 99)}-{self.r(1000, 9999)}-{pick(self.rng, 'ABCDEFKX')}"
        return "year", str(self.r(1990, 2026))


# Sentences that carry a datum ({} is where it goes): the only prose written here.
CARRIERS = {
    "date": ("Registration closes on {}.", "The next meeting is on {}.", "Please reply by {}."),
    "money": ("Tickets cost {} per person.", "A deposit of {} is due on arrival.",
              "The fee is {} for members."),
    "phone": ("Call {} for details.", "Questions? Phone us on {}.", "Our office number is {}."),
    "email": ("Write to {} with any questions.", "Send the form to {}.", "Our email address is {}."),
    "url": ("More information at {}.", "Read the full programme at {}.", "Sign up online at {}."),
    "postalAddress": ("We meet at {}.", "Send letters to {}.", "The venue is {}."),
    "flightNumber": ("Guests on flight {} will be met at the airport.", "Our speaker arrives on {}.",
                     "The team flies home on {}."),
    "trackingNumber": ("Your parcel ships with tracking number {}.",
                       "The package was sent with number {}.", "Track the delivery with {}."),
}
MEASURE_CARRIERS = {
    "kg": "Bags may weigh up to {}.", "cm": "Each shelf is {} deep.", "ft": "The tent is {} wide.",
    "km": "The walking route is {} long.", "ml": "Each bottle holds {}.", "°C": "Store below {}.",
    "mph": "Keep to {} on the site roads.",
}
NEAR_CARRIERS = {
    "version": "This sheet uses form version {}.", "ip": "The printer is at {} on the office network.",
    "part": "Replacement filter: part no. {}.", "year": "The club has met every season since {}.",
}
# Man-page sentences that could be read as data (dates, times, links) are not used.
DATEISH = set("""january february march april june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
saturday sunday today tomorrow yesterday tonight noon midnight week weeks weekend month months
year years day days daily hour hours minute minutes second seconds morning evening night now
later ago next last weekly monthly yearly annually noon am pm""".split())


def safe_sentence(T, rng, max_words=14, min_words=5):
    for _ in range(500):
        s = T.sentence(max_words, min_words)
        if any(ch.isdigit() for ch in s) or any(ch in "@/:\\<>=_|{}[]#$%&*+~^\"'`;()•–—" for ch in s):
            continue
        words = s.split()
        if any(w.strip(".,;!?").lower() in DATEISH or w.strip(".,;!?") == "May" for w in words):
            continue
        if any("." in w.rstrip(".") or w.startswith("-") for w in words) or any(len(w) > 16 for w in words):
            continue
        if sum(w.isupper() and len(w) > 1 for w in words) > 1:
            continue
        s = s.rstrip(",;") 
        s = s[0].upper() + s[1:]
        return s if s[-1] in ".!?" else s + "."
    raise RuntimeError("no safe sentence")


# --------------------------------------------------------------------------
# Drawing with truth
# --------------------------------------------------------------------------

def words(text, tag=None):
    return [(w, None) for w in text.split()] if tag is None else [(text, tag)]


def joined(units):
    return " ".join(u[0] + (u[2] if len(u) > 2 else "") for u in units)


def union(boxes):
    boxes = [b for b in boxes if b]
    if not boxes:
        return None
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes)]


class Overflow(Exception):
    pass


class Page:
    def __init__(self, rng, fam, paper_mm, pt):
        paper, ink = pg.paper_and_ink(rng, "letter")
        self.c = pg.Canvas(paper_mm[0], paper_mm[1], pg.RENDER_DPI / MM, paper, ink)
        self.d, self.ink = self.c.draw, ink
        self.fam, self.pt = fam, pt
        self.rng = rng
        m = self.c.px(float(rng.uniform(16, 24)))
        self.left, self.right = m, self.c.W - m
        self.top, self.bottom = m, self.c.H - m
        self.y = self.top
        self.body = self.font(pt)
        self.bold = self.font(pt, 1)
        self.lead = self.body.size * 1.3
        self.truth = dict(tables=[], lists=[], barcodes=[], detectedData=[], nearMisses=[],
                          paragraphs=[])

    def font(self, pt, style=0):
        return pg.font(self.fam["paths"][style], pg.pts(self.c, pt))

    def need(self, h):
        if self.y + h > self.bottom:
            raise Overflow()

    def line(self, x, base, units, f, align="left", width=None):
        """Draws one line of units at baseline `base`; records tagged units' boxes. Returns the
        line's box and text."""
        texts = [u[0] + (u[2] if len(u) > 2 else "") for u in units]
        s = " ".join(texts)
        if align == "right":
            x = x + width - f.getlength(s)
        elif align == "center":
            x = x + (width - f.getlength(s)) / 2
        self.d.text((x, base), s, font=f, fill=self.ink, anchor="ls")
        pos = 0.0
        for k, (t, tag, *_) in enumerate(units):
            if k:
                pos = f.getlength(" ".join(texts[:k]) + " ")
            if tag is not None:
                b = self.d.textbbox((x + pos, base), t, font=f, anchor="ls")
                tag["box"] = union([tag.get("box"), list(b)])
        return list(self.d.textbbox((x, base), s, font=f, anchor="ls")), s

    def block(self, units, f, x, width, base, lead, align="left", first_indent=0.0):
        """Wrapped lines from the first baseline `base`; returns (box, text, lines, next baseline)."""
        lines, cur = [], []
        for u in units:
            if cur and f.getlength(joined(cur + [u])) > width - (0 if lines else first_indent):
                lines.append(cur)
                cur = [u]
            else:
                cur.append(u)
        if cur:
            lines.append(cur)
        boxes, texts = [], []
        for i, ln in enumerate(lines):
            b, s = self.line(x + (first_indent if i == 0 else 0), base, ln, f, align, width)
            boxes.append(b)
            texts.append(s)
            base += lead
        return union(boxes), " ".join(texts), len(lines), base

    def count_lines(self, units, f, width):
        n, cur = 1, []
        for u in units:
            if cur and f.getlength(joined(cur + [u])) > width:
                n += 1
                cur = [u]
            else:
                cur.append(u)
        return n

    def register(self, units, paragraph=None):
        for _, tag, *_ in units:
            if tag is None:
                continue
            if tag.get("near"):
                self.truth["nearMisses"].append(tag)
            else:
                self.truth["detectedData"].append(tag)

    def paragraph(self, units, f=None, x=None, width=None, gap=0.6, align="left"):
        f = f or self.body
        x = self.left if x is None else x
        width = (self.right - x) if width is None else width
        lead = f.size * 1.3
        n = self.count_lines(units, f, width)
        self.need(n * lead + f.size * 0.3)
        box, text, _, _ = self.block(units, f, x, width, self.y + f.getmetrics()[0], lead, align)
        self.truth["paragraphs"].append(dict(text=text, box=box))
        self.register(units)
        self.y += n * lead + gap * lead
        return box

    def gap(self, k=1.0):
        self.y += self.lead * k


# --- lists ---------------------------------------------------------------------

def markers(kind, style, n):
    if kind == "bullet":
        return [style] * n
    if kind == "number":
        return [f"{i + 1}{style}" for i in range(n)]
    return [f"{chr(97 + i)}{style}" for i in range(n)]


def draw_list(P, items, kind, style, x=None, width=None):
    """items: lists of units. Hanging indent; the item box covers marker and text."""
    x = P.left + P.c.px(float(P.rng.uniform(0, 6))) if x is None else x
    width = (P.right - x) if width is None else width
    f = P.body
    ms = markers(kind, style, len(items))
    mfont = f
    if any(pg.missing_glyphs(P.fam["paths"][0], m) for m in ms):
        mfont = pg.font(MARKER_FALLBACK, f.size)
    indent = max(mfont.getlength(m) for m in ms) + f.size * 0.6
    total = sum(P.count_lines(it, f, width - indent) for it in items)
    P.need(total * P.lead + len(items) * P.lead * 0.25)
    out = []
    for m, it in zip(ms, items):
        base = P.y + f.getmetrics()[0]
        P.d.text((x, base), m, font=mfont, fill=P.ink, anchor="ls")
        mb = list(P.d.textbbox((x, base), m, font=mfont, anchor="ls"))
        box, text, n, _ = P.block(it, f, x + indent, width - indent, base, P.lead)
        P.register(it)
        out.append(dict(marker=m, text=text, box=union([mb, box])))
        P.y += n * P.lead + P.lead * 0.25
    P.truth["lists"].append(dict(box=union([i["box"] for i in out]), marker=kind, items=out))
    P.y += P.lead * 0.5


def list_items(P, D, n, data_kinds, long_share=0.3):
    items = []
    for i in range(n):
        if i < len(data_kinds):
            items.append(datum_sentence(P, D, data_kinds[i]))
        elif P.rng.random() < long_share:
            items.append(words(safe_sentence(D.T, P.rng, 24, 14)))
        else:
            s = safe_sentence(D.T, P.rng, 8, 3).rstrip(".")
            items.append(words(s))
    return items


def datum_sentence(P, D, kind):
    if kind.startswith("near:"):
        nk = kind[5:]
        while True:
            k, t = D.near_miss()
            if k == nk:
                break
        tmpl = NEAR_CARRIERS[k]
        tag = dict(text=t, near=True, kind=k)
    else:
        tag = D.of_kind(kind)
        if kind == "measurement":
            tmpl = MEASURE_CARRIERS[tag["value"]["unit"]]
        elif kind == "trackingNumber":
            tmpl = pick(P.rng, CARRIERS[kind]).replace("The package was sent", f"The package was sent by {tag['carrier']}")
        elif kind == "flightNumber" and P.rng.random() < 0.5:
            tmpl = "Guests on {} will be met at the airport."
        else:
            tmpl = pick(P.rng, CARRIERS[kind])
        t = tag["text"]
    a, b = tmpl.split("{}")
    punct = b[:1] if b[:1] in ".,?" else ""
    return words(a) + [(t, tag, punct)] + words(b[len(punct):])


# --- tables ----------------------------------------------------------------------

def draw_table(P, spec):
    """spec: dict(ruling, header_rows, rows, columns, cells=[dict(row, column, rowSpan,
    columnSpan, units, bold, align)], wrap_column, wrap_factor, shade)."""
    f, fb = P.body, P.bold
    pad_x, pad_y = P.c.px(2.0), P.c.px(1.1)
    R, C = spec["rows"], spec["columns"]
    asc, desc = f.getmetrics()
    lead = P.lead

    def natural(cell):
        ff = fb if cell["bold"] else f
        return ff.getlength(joined(cell["units"])) + 2 * pad_x
    widths = [P.c.px(10)] * C
    for cell in spec["cells"]:
        if cell["columnSpan"] == 1:
            widths[cell["column"]] = max(widths[cell["column"]], natural(cell))
    wc = spec.get("wrap_column")
    if wc is not None:
        longest = max(natural(c) for c in spec["cells"] if c["column"] == wc and c["columnSpan"] == 1)
        atoms = max(max((fb if c["bold"] else f).getlength(u[0]) for u in c["units"]) + 2 * pad_x
                    for c in spec["cells"] if c["column"] == wc and c["columnSpan"] == 1)
        widths[wc] = max(atoms, longest * spec["wrap_factor"], longest / 2 + pad_x)
    for cell in spec["cells"]:
        if cell["columnSpan"] > 1:
            c0, c1 = cell["column"], cell["column"] + cell["columnSpan"]
            short = natural(cell) - sum(widths[c0:c1])
            if short > 0:
                for k in range(c0, c1):
                    widths[k] += short / (c1 - c0)
    if spec["ruling"] == "none":
        widths = [w + P.c.px(4) for w in widths]
    total_w = sum(widths)
    if total_w > P.right - P.left:
        raise Overflow()
    nlines = {}
    heights = [0.0] * R
    for cell in spec["cells"]:
        c0, c1 = cell["column"], cell["column"] + cell["columnSpan"]
        n = P.count_lines(cell["units"], fb if cell["bold"] else f, sum(widths[c0:c1]) - 2 * pad_x)
        nlines[id(cell)] = n
        if cell["rowSpan"] == 1:
            heights[cell["row"]] = max(heights[cell["row"]], 2 * pad_y + asc + desc + (n - 1) * lead)
    for cell in spec["cells"]:
        if cell["rowSpan"] > 1:
            r0, r1 = cell["row"], cell["row"] + cell["rowSpan"]
            h = 2 * pad_y + asc + desc + (nlines[id(cell)] - 1) * lead
            short = h - sum(heights[r0:r1])
            if short > 0:
                for k in range(r0, r1):
                    heights[k] += short / (r1 - r0)
    P.need(sum(heights) + lead)
    x0 = P.left + (P.c.px(float(P.rng.uniform(0, 8))) if total_w < P.right - P.left - P.c.px(10) else 0)
    y0 = P.y
    xs = [x0 + sum(widths[:k]) for k in range(C + 1)]
    ys = [y0 + sum(heights[:k]) for k in range(R + 1)]
    rw = max(2, round(P.c.px(0.25)))
    hr = spec["header_rows"]
    if spec.get("shade"):
        g = tuple(max(0, v - 28) for v in P.c.paper)
        P.d.rectangle([xs[0], ys[0], xs[-1], ys[hr]], fill=g)
    cells_out = []
    for cell in spec["cells"]:
        r0, c0 = cell["row"], cell["column"]
        r1, c1 = r0 + cell["rowSpan"], c0 + cell["columnSpan"]
        box = [xs[c0], ys[r0], xs[c1], ys[r1]]
        ff = fb if cell["bold"] else f
        align = cell.get("align", "left")
        if cell["columnSpan"] > 1 and cell["bold"]:
            align = "center" if spec["ruling"] != "none" else "left"
        # The width the row heights were counted with, to the last bit: xs[c1] − xs[c0] can
        # come out an ulp short of it, and a cell exactly as wide as its text would wrap
        # into the row below.
        _, text, _, _ = P.block(cell["units"], ff, box[0] + pad_x, sum(widths[c0:c1]) - 2 * pad_x,
                                box[1] + pad_y + asc, lead, align)
        P.register(cell["units"])
        cells_out.append(dict(row=r0, column=c0, rowSpan=cell["rowSpan"], columnSpan=cell["columnSpan"],
                              text=text, box=box))
        if spec["ruling"] == "full":
            P.d.rectangle(box, outline=P.ink, width=rw)
    if spec["ruling"] == "horizontal":
        thick = max(rw, round(P.c.px(0.45)))
        P.d.line([(xs[0], ys[0]), (xs[-1], ys[0])], fill=P.ink, width=thick)
        P.d.line([(xs[0], ys[-1]), (xs[-1], ys[-1])], fill=P.ink, width=thick)
        P.d.line([(xs[0], ys[hr]), (xs[-1], ys[hr])], fill=P.ink, width=rw)
        for cell in spec["cells"]:       # a short rule under a spanning header cell
            if cell["row"] < hr and cell["columnSpan"] > 1 and cell["row"] + cell["rowSpan"] < hr + 0.5:
                yy = ys[cell["row"] + 1]
                c0, c1 = cell["column"], cell["column"] + cell["columnSpan"]
                P.d.line([(xs[c0] + pad_x / 2, yy), (xs[c1] - pad_x / 2, yy)], fill=P.ink, width=rw)
        if spec.get("row_rules"):
            for r in range(hr + 1, R):
                # skip the columns of a cell that spans across this boundary
                spans = [(c["column"], c["column"] + c["columnSpan"]) for c in spec["cells"]
                         if c["row"] < r < c["row"] + c["rowSpan"]]
                k = 0
                while k < C:
                    if any(a <= k < b for a, b in spans):
                        k += 1
                        continue
                    k2 = k
                    while k2 < C and not any(a <= k2 < b for a, b in spans):
                        k2 += 1
                    P.d.line([(xs[k], ys[r]), (xs[k2], ys[r])], fill=P.ink, width=max(1, rw // 2))
                    k = k2
    cells_out.sort(key=lambda c: (c["row"], c["column"]))
    P.truth["tables"].append(dict(box=[xs[0], ys[0], xs[-1], ys[-1]], ruling=spec["ruling"],
                                  rows=R, columns=C, cells=cells_out))
    P.y = ys[-1] + lead * 1.2


def cell(r, c, units, bold=False, align="left", rs=1, cs=1):
    return dict(row=r, column=c, rowSpan=rs, columnSpan=cs, units=units, bold=bold, align=align)


def ruling_for(rng, i):
    return ("full", "horizontal", "none")[(i + int(rng.integers(0, 3))) % 3]


def signup_table(P, D, ruling, max_rows):
    rng = P.rng
    opt = [k for k in ("No.", "Email", "Phone", "Date", "Team") if rng.random() < 0.6]
    if not opt:
        opt = ["Email"]
    cols = []
    if "No." in opt:
        cols.append("No.")
    cols.append("Name")
    cols += [k for k in ("Email", "Phone", "Date", "Team") if k in opt]
    cols = cols[:6]
    while True:
        n_body = int(rng.integers(3, max_rows + 1))
        spec = dict(ruling=ruling, columns=len(cols), cells=[], row_rules=rng.random() < 0.4,
                    shade=ruling == "full" and rng.random() < 0.4)
        contact = ruling != "none" and "Email" in cols and "Phone" in cols and rng.random() < 0.5
        hr = 2 if contact else 1
        region = pick(rng, ("US", "DE", "FR"))
        date_fmt = pick(rng, DATE_FORMATS)
        for ci, name in enumerate(cols):
            if contact and name in ("Email", "Phone"):
                if name == "Email":
                    spec["cells"].append(cell(0, ci, words("Contact"), True, cs=2))
                spec["cells"].append(cell(1, ci, words(name), True))
            else:
                spec["cells"].append(cell(0, ci, words(name), True, rs=hr))
        team_span = ruling != "none" and "Team" in cols and n_body >= 3 and rng.random() < 0.6
        span_at = int(rng.integers(0, n_body - 1)) if team_span else -1
        for r in range(n_body):
            nm = D.name()
            if ruling == "full" and rng.random() < 0.25:
                nm = f"{D.short_word()} {D.short_word()} {D.short_word()}-{D.short_word()}"
            for ci, name in enumerate(cols):
                rr = hr + r
                if name == "No.":
                    u = words(str(r + 1))
                elif name == "Name":
                    u = words(nm)
                elif name in ("Email", "Phone", "Date"):
                    dt = D.email(nm) if name == "Email" else D.phone(region) if name == "Phone" \
                        else D.date(date_fmt)
                    u = [(dt["text"], dt)]
                else:
                    if r == span_at + 1:
                        continue
                    u = words(D.short_word(False).capitalize())
                    if r == span_at:
                        spec["cells"].append(cell(rr, ci, u, rs=2))
                        continue
                spec["cells"].append(cell(rr, ci, u, align="right" if name == "No." else "left"))
        spec["rows"], spec["header_rows"] = hr + n_body, hr
        if ruling == "full" and rng.random() < 0.6:
            spec["wrap_column"], spec["wrap_factor"] = cols.index("Name"), float(rng.uniform(0.55, 0.75))
        try:
            draw_table(P, spec)
            return
        except Overflow:
            if len(cols) > 2:
                cols.pop()
                continue
            raise


def price_table(P, D, ruling, max_rows, money_fmt, invoice):
    rng = P.rng
    cols = ["Item", "Size", "Qty", "Unit price", "Amount"] if invoice else ["Item", "Size", "Price"]
    if rng.random() < 0.4:
        cols.remove("Size")
    if invoice and rng.random() < 0.3:
        cols.remove("Qty")
        cols.remove("Unit price")
        cols.insert(0, "No.")
    n_body = int(rng.integers(2, max_rows + 1))
    spec = dict(ruling=ruling, columns=len(cols), cells=[], header_rows=1,
                row_rules=rng.random() < 0.4, shade=ruling == "full" and rng.random() < 0.4)
    for ci, name in enumerate(cols):
        spec["cells"].append(cell(0, ci, words(name), True,
                                  align="right" if name in ("Qty", "Unit price", "Amount", "Price") else "left"))
    total = 0
    unit_kind = pick(rng, ("kg", "ml", "cm"))
    for r in range(n_body):
        item = " ".join(D.short_word(False) for _ in range(int(rng.integers(1, 4)))).capitalize()
        qty = int(rng.integers(1, 6))
        price = D.amount(1, 120)
        amt = qty * price if "Qty" in cols else price
        total += amt
        for ci, name in enumerate(cols):
            if name == "Item":
                u = words(item)
            elif name == "No.":
                u = words(str(r + 1))
            elif name == "Size":
                m = D.measurement(unit_kind)
                u = [(m["text"], m)]
            elif name == "Qty":
                u = words(str(qty))
            else:
                m = D.money(money_fmt, price if name in ("Unit price", "Price") else amt)
                u = [(m["text"], m)]
            spec["cells"].append(cell(1 + r, ci, u, align="left" if name in ("Item", "Size") else "right"))
    R = 1 + n_body
    if invoice:
        m = D.money(money_fmt, total)
        if ruling == "none":
            spec["cells"].append(cell(R, 0, words("Total"), True))
            for ci in range(1, len(cols) - 1):
                spec["cells"].append(cell(R, ci, words("–" if ci else "")))
        else:
            spec["cells"].append(cell(R, 0, words("Total"), True, cs=len(cols) - 1, align="right"))
        spec["cells"].append(cell(R, len(cols) - 1, [(m["text"], m)], True, align="right"))
        R += 1
    spec["rows"] = R
    if ruling == "full" and rng.random() < 0.5:
        spec["wrap_column"], spec["wrap_factor"] = cols.index("Item"), float(rng.uniform(0.5, 0.7))
    draw_table(P, spec)


def form_table(P, D, ruling):
    rng = P.rng
    cols = ["Name", "Relation", "Date of birth"]
    n = int(rng.integers(2, 5))
    spec = dict(ruling=ruling, columns=3, rows=n + 1, header_rows=1, cells=[],
                row_rules=rng.random() < 0.5, shade=ruling == "full" and rng.random() < 0.3)
    fmt = pick(rng, DATE_FORMATS)
    for ci, name in enumerate(cols):
        spec["cells"].append(cell(0, ci, words(name), True))
    for r in range(n):
        dt = D.date(fmt, (1950, 2020))
        spec["cells"].append(cell(1 + r, 0, words(D.name())))
        spec["cells"].append(cell(1 + r, 1, words(pick(rng, ("Spouse", "Child", "Parent", "Partner", "Sibling")))))
        spec["cells"].append(cell(1 + r, 2, [(dt["text"], dt)]))
    draw_table(P, spec)


# --- barcodes --------------------------------------------------------------------

def zint_modules(sym, payload):
    """The symbol as a boolean array of modules (True = dark), 1-D codes as one row."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "b.png")
        # EAN/UPC: the digits without the check digit (zint appends the same GS1 one)
        data = payload[:-1] if sym in ("ean13", "ean8", "upca") else payload
        r = subprocess.run(["zint", "-b", ZINT[sym], "--scale=0.5", "--notext", "--filetype=PNG",
                            "-o", out, "-d", data], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"zint {sym} {payload}: {r.stderr}")
        a = np.asarray(Image.open(out).convert("L")) < 128
    ys, xs = np.nonzero(a)
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    if sym not in ("qr", "pdf417"):
        a = a[a.shape[0] // 2][None, :]
    return a


def barcode_payload(D, sym):
    rng = D.rng
    if sym == "qr":
        return D.url()["value"].replace("http://", "https://")
    if sym == "ean13":
        d = "400" + "".join(str(int(rng.integers(0, 10))) for _ in range(9))
        return d + gs1_check(d)
    if sym == "ean8":
        d = "96" + "".join(str(int(rng.integers(0, 10))) for _ in range(5))
        return d + gs1_check(d)
    if sym == "upca":
        d = "0" + "".join(str(int(rng.integers(0, 10))) for _ in range(10))
        return d + gs1_check(d)
    if sym == "code128":
        return f"INV-{int(rng.integers(10000, 99999))}"
    if sym == "code39":
        return pick(rng, "FKMRTX") + str(int(rng.integers(1000, 9999)))
    return f"FORM {int(rng.integers(1000, 9999))} {D.short_word().upper()} {D.short_word().upper()}"


def barcode_image(P, sym, payload):
    """The symbol at the render resolution (True = dark) and its module size in px: QR
    20–35 mm wide, PDF417 35–50 mm, 1-D codes 30–50 mm wide and 10–16 mm tall, modules of
    whole render pixels, never under 0.3 mm."""
    a = zint_modules(sym, payload)
    ppmm = P.c.ppmm
    lo, hi = (20, 35) if sym == "qr" else (35, 50) if sym == "pdf417" else (30, 50)
    m = max(math.ceil(0.3 * ppmm), round(float(P.rng.uniform(lo, hi)) * ppmm / a.shape[1]))
    if sym in ("qr", "pdf417"):
        return np.kron(a, np.ones((m, m), bool)), m
    h = round(float(P.rng.uniform(10, 16)) * ppmm)
    return np.repeat(np.kron(a, np.ones((1, m), bool)), h, axis=0), m


def place_barcode(P, sym, payload, img, m, x, y):
    hh, ww = img.shape
    mask = Image.fromarray((img * 255).astype(np.uint8), "L")
    P.c.im.paste(P.ink, (round(x), round(y)), mask)
    box = [round(x), round(y), round(x) + ww, round(y) + hh]
    P.truth["barcodes"].append(dict(symbology=sym, payload=payload, box=box,
                                    module_mm=round(m / P.c.ppmm, 3)))


def barcode_row(P, D, syms, left_units=None):
    """Barcodes side by side, flush with the right margin, with a quiet zone of 6 mm between
    them; optional contact lines (lists of units) to their left."""
    quiet = P.c.px(6)
    made = []
    for s in syms:
        pay = barcode_payload(D, s)
        img, m = barcode_image(P, s, pay)
        made.append((s, pay, img, m))
    top = P.y + P.c.px(2)
    height = max(img.shape[0] for _, _, img, _ in made)
    P.need(height + P.c.px(4))
    x = P.right
    for s, pay, img, m in reversed(made):
        x -= img.shape[1]
        place_barcode(P, s, pay, img, m, x, top + (height - img.shape[0]) / 2)
        x -= quiet
    used = height
    if left_units:
        P.y = top
        width = x - P.left
        for u in left_units:
            P.paragraph(u, width=width, gap=0.2)
        used = max(used, P.y - top)
    P.y = top + used + P.lead


# --------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------

def footer(P, D, text_units):
    f = P.font(P.pt * 0.8)
    base = P.bottom + P.c.px(8)
    b, s = P.line(P.left, base, text_units, f)
    P.truth["paragraphs"].append(dict(text=s, box=b))
    P.register(text_units)


def near(D, kind=None):
    while True:
        k, t = D.near_miss()
        if kind is None or k == kind:
            return [(t, dict(text=t, near=True, kind=k))]


def layout_flyer(P, D, plan):
    rng = P.rng
    hf = P.font(P.pt * float(rng.uniform(2.0, 2.8)), 1)
    title = safe_sentence(D.T, rng, 5, 2).rstrip(".!?")
    P.paragraph(words(title), f=hf, gap=0.4)
    for ks in plan["paras"]:
        units = []
        for k in ks:
            units += datum_sentence(P, D, k) if k != "text" else words(safe_sentence(D.T, rng, 18, 8))
        P.paragraph(units)
    sub = P.font(P.pt * 1.25, 1)
    P.paragraph(words(safe_sentence(D.T, rng, 5, 2).rstrip(".")), f=sub, gap=0.3)
    draw_list(P, list_items(P, D, plan["list_n"], plan["list_data"]), plan["list_kind"], plan["list_style"])
    if plan.get("table"):
        table_dispatch(P, D, plan)
    contact = [datum_sentence(P, D, k) for k in plan["contact"]]
    contact = [[(u[0], u[1]) for u in c] for c in contact]
    barcode_row(P, D, plan["barcodes"], left_units=contact)


def table_dispatch(P, D, plan):
    t = plan["table"]
    if t == "signup":
        signup_table(P, D, plan["ruling"], plan["max_rows"])
    elif t == "price":
        price_table(P, D, plan["ruling"], plan["max_rows"], plan["money_fmt"], plan["invoice"])
    else:
        form_table(P, D, plan["ruling"])


def layout_form(P, D, plan):
    rng = P.rng
    hf = P.font(P.pt * float(rng.uniform(1.5, 2.0)), 1)
    P.paragraph(words(safe_sentence(D.T, rng, 5, 2).rstrip(".!?") + " form"), f=hf, gap=0.5)
    P.paragraph(words(safe_sentence(D.T, rng, 20, 8)))
    name = D.name()
    fields = [("Name", words(name))]
    for k in plan["fields"]:
        label = {"email": "Email", "phone": "Phone", "postalAddress": "Address", "date": "Date of birth",
                 "url": "Website"}[k]
        dt = D.email(name) if k == "email" else D.date(None, (1950, 2007)) if k == "date" \
            else D.of_kind(k)
        fields.append((label, [(dt["text"], dt)]))
    lf = P.bold
    lw = max(lf.getlength(l + ":") for l, _ in fields) + P.c.px(4)
    for label, units in fields:
        P.need(P.lead * 1.6)
        base = P.y + P.body.getmetrics()[0]
        b1, s1 = P.line(P.left, base, [(label + ":", None)], lf)
        b2, s2 = P.line(P.left + lw, base, units, P.body)
        P.d.line([(P.left + lw, base + P.c.px(1.5)), (P.right, base + P.c.px(1.5))], fill=P.ink,
                 width=max(1, round(P.c.px(0.15))))
        P.truth["paragraphs"].append(dict(text=f"{s1} {s2}", box=union([b1, b2])))
        P.register(units)
        P.y += P.lead * 1.7
    P.gap(0.5)
    table_dispatch(P, D, plan)
    P.paragraph(words(safe_sentence(D.T, rng, 6, 3).rstrip(".") + ":"), f=P.bold, gap=0.3)
    draw_list(P, list_items(P, D, plan["list_n"], plan["list_data"]), plan["list_kind"], plan["list_style"])
    for ks in plan["paras"]:
        units = []
        for k in ks:
            units += datum_sentence(P, D, k) if k != "text" else words(safe_sentence(D.T, rng, 18, 8))
        P.paragraph(units)
    if plan["barcodes"]:
        barcode_row(P, D, plan["barcodes"])
    footer(P, D, [("Page 1 of 1", dict(text="Page 1 of 1", near=True, kind="page"))])


def layout_signup(P, D, plan):
    rng = P.rng
    hf = P.font(P.pt * float(rng.uniform(1.6, 2.2)), 1)
    P.paragraph(words(safe_sentence(D.T, rng, 5, 2).rstrip(".!?") + " sign-up sheet"), f=hf, gap=0.4)
    for ks in plan["paras"]:
        units = []
        for k in ks:
            units += datum_sentence(P, D, k) if k != "text" else words(safe_sentence(D.T, rng, 18, 8))
        P.paragraph(units)
    table_dispatch(P, D, plan)
    if plan["list_n"]:
        P.paragraph(words(safe_sentence(D.T, rng, 6, 3).rstrip(".") + ":"), f=P.bold, gap=0.3)
        draw_list(P, list_items(P, D, plan["list_n"], plan["list_data"]), plan["list_kind"], plan["list_style"])
    if plan["barcodes"]:
        barcode_row(P, D, plan["barcodes"])


def layout_pricelist(P, D, plan):
    rng = P.rng
    hf = P.font(P.pt * float(rng.uniform(1.6, 2.2)), 1)
    head = "Invoice" if plan["invoice"] else "Price list"
    P.paragraph(words(head + " – " + safe_sentence(D.T, rng, 4, 2).rstrip(".!?")), f=hf, gap=0.4)
    if plan["invoice"]:
        dt = D.date()
        units = words("Invoice date:") + [(dt["text"], dt)]
        P.paragraph(units, gap=0.2)
        addr = D.address()
        P.paragraph(words("Bill to: " + D.name() + ",") + [(addr["text"], addr)], gap=0.8)
    for ks in plan["paras"]:
        units = []
        for k in ks:
            units += datum_sentence(P, D, k) if k != "text" else words(safe_sentence(D.T, rng, 18, 8))
        P.paragraph(units)
    table_dispatch(P, D, plan)
    if plan["list_n"]:
        P.paragraph(words("Terms:"), f=P.bold, gap=0.3)
        draw_list(P, list_items(P, D, plan["list_n"], plan["list_data"]), plan["list_kind"], plan["list_style"])
    if plan["barcodes"]:
        barcode_row(P, D, plan["barcodes"])
    footer(P, D, [("Page 1 of 1", dict(text="Page 1 of 1", near=True, kind="page"))])


LAYOUT_FUNCS = {"flyer": layout_flyer, "form": layout_form, "signup": layout_signup,
                "pricelist": layout_pricelist}


# --------------------------------------------------------------------------
# A document: plan, render (retrying smaller on overflow), capture
# --------------------------------------------------------------------------

LIST_STYLES = {"bullet": ("•", "–", "▪"), "number": (".", ")"), "letter": (".", ")")}


def plan_document(doc, rng, shrink):
    i = doc["index"]
    layout = doc["layout"]
    # Data kinds walk through KINDS so every kind appears about equally often.
    kinds = [KINDS[(i * 3 + k) % len(KINDS)] for k in range(4)]
    nears = ["near:" + ("version", "ip", "part", "year")[(i + k) % 4] for k in range(2)]
    syms = [SYMBOLOGIES[i % 7]] + ([SYMBOLOGIES[(i * 3 + 2) % 7]] if i % 2 == 0 else [])
    syms = list(dict.fromkeys(syms))
    lk = ("bullet", "number", "letter")[(i // 4) % 3] if layout != "form" else pick(rng, ("number", "number", "letter"))
    if layout == "flyer":
        lk = "bullet" if rng.random() < 0.7 else lk
    plan = dict(list_kind=lk, list_style=pick(rng, LIST_STYLES[lk]),
                list_n=max(3, int(rng.integers(3, 7)) - shrink), ruling=ruling_for(rng, i),
                max_rows=max(3, 11 - 3 * shrink), money_fmt=MONEY_FORMATS[i % len(MONEY_FORMATS)],
                invoice=False, barcodes=syms)
    ks = kinds + nears
    rng.shuffle(ks)
    if layout == "flyer":
        plan.update(paras=[["text", ks[0], ks[1]], [ks[2], "text"], [ks[4]]][:3 - min(shrink, 1)],
                    list_data=[ks[3]] if rng.random() < 0.7 else [],
                    contact=["phone", "email", "url"][:3 - min(shrink, 1)] + ([ks[5]] if shrink < 2 else []),
                    table=("signup", "price", "form")[i % 3] if rng.random() < 0.4 and shrink == 0 else None)
        plan["list_data"] = [plan["list_data"][0]] if plan["list_data"] else []
    elif layout == "form":
        plan.update(fields=[k for k in ("email", "phone", "postalAddress", "date", "url") if rng.random() < 0.7] or ["email"],
                    table="form", paras=[["text", ks[0]], [ks[1], ks[4]]][:2 - min(shrink, 1)],
                    list_data=[ks[2], ks[3]][:1 + (rng.random() < 0.5)])
        plan["paras"].append([ks[5]])
    elif layout == "signup":
        plan.update(table="signup", paras=[["text", ks[0], ks[1]], [ks[4]]],
                    list_n=0 if rng.random() < 0.3 or shrink > 1 else plan["list_n"],
                    list_data=[ks[2]])
        plan["paras"].append([ks[3], ks[5]])
    else:
        plan.update(table="price", invoice=rng.random() < 0.6, paras=[["text", ks[0], ks[1]], [ks[4], ks[2]]],
                    list_n=0 if rng.random() < 0.3 or shrink > 1 else plan["list_n"],
                    list_data=[ks[3]])
        plan["paras"].append([ks[5]])
    return plan


def fonts_available():
    out = []
    for name, package, cls, *paths in pg.FAMILIES:
        if cls not in ("serif", "sans") or not all(os.path.isfile(p) for p in paths):
            continue
        if any(pg.missing_glyphs(p, NEEDED) for p in sorted(set(paths))):
            continue
        out.append(dict(family=name, package=package, cls=cls, paths=paths))
    return out


def render(doc, seed, fonts, pool):
    for attempt in range(6):
        key = (seed, "structure", doc["id"], attempt)
        rng = ds.rng_for(*key, "layout")
        fam = fonts[int(rng.integers(len(fonts)))]
        paper = ((210.0, 297.0), (215.9, 279.4))[int(rng.random() < 0.4)]
        pt = float(rng.uniform(10, 14)) - 0.6 * attempt
        P = Page(rng, fam, paper, max(9.0, pt))
        T = pg.TextSource("eng", pool, ds.rng_for(*key, "text"))
        D = Data(ds.rng_for(*key, "data"), T)
        plan = plan_document(doc, ds.rng_for(*key, "plan"), min(attempt, 3))
        try:
            LAYOUT_FUNCS[doc["layout"]](P, D, plan)
            return P, fam, paper
        except Overflow:
            continue
    raise RuntimeError(f"{doc['id']}: does not fit the page")


def scaled_box(b, s):
    x0, y0 = math.floor(b[0] * s), math.floor(b[1] * s)
    x1, y1 = math.ceil(b[2] * s), math.ceil(b[3] * s)
    return dict(x=x0, y=y0, width=max(1, x1 - x0), height=max(1, y1 - y0))


class PhoneMap:
    """Truth boxes (render px of the page) to photo pixels, through phone_shot's inverse map:
    the bounding box of the frame pixels whose page point falls inside the box."""

    def __init__(self, u, v, ppmm):
        self.u, self.v, self.ppmm = u, v, ppmm
        self.us, self.vs = u[::4, ::4], v[::4, ::4]

    def __call__(self, b, _s=None):
        u0, v0, u1, v1 = (c / self.ppmm for c in b)
        m = (self.us >= u0) & (self.us <= u1) & (self.vs >= v0) & (self.vs <= v1)
        ys, xs = np.nonzero(m)
        H, W = self.u.shape
        if len(ys):
            ya, yb = max(0, ys.min() * 4 - 6), min(H, ys.max() * 4 + 7)
            xa, xb = max(0, xs.min() * 4 - 6), min(W, xs.max() * 4 + 7)
        else:
            cu, cv = (u0 + u1) / 2, (v0 + v1) / 2
            d = np.hypot(self.us - cu, self.vs - cv)
            yy, xx = np.unravel_index(np.argmin(d), d.shape)
            ya, yb = max(0, yy * 4 - 12), min(H, yy * 4 + 13)
            xa, xb = max(0, xx * 4 - 12), min(W, xx * 4 + 13)
        uu, vv = self.u[ya:yb, xa:xb], self.v[ya:yb, xa:xb]
        m = (uu >= u0) & (uu <= u1) & (vv >= v0) & (vv <= v1)
        ys, xs = np.nonzero(m)
        if not len(ys):
            return None
        return dict(x=int(xa + xs.min()), y=int(ya + ys.min()), width=int(xs.max() - xs.min() + 1),
                    height=int(ys.max() - ys.min() + 1))


def truth_record(P, mapper, s):
    """The truth in one image's coordinates; elements that fall outside the frame are dropped."""
    t = P.truth

    def bx(b):
        return mapper(b, s)

    out = dict(tables=[], lists=[], barcodes=[], detectedData=[], nearMisses=[], paragraphs=[])
    for tb in t["tables"]:
        cells = [dict(row=c["row"], column=c["column"], rowSpan=c["rowSpan"], columnSpan=c["columnSpan"],
                      text=c["text"], box=bx(c["box"])) for c in tb["cells"]]
        out["tables"].append(dict(box=bx(tb["box"]), ruling=tb["ruling"], rows=tb["rows"],
                                  columns=tb["columns"], cells=cells))
    for ls in t["lists"]:
        out["lists"].append(dict(box=bx(ls["box"]), marker=ls["marker"],
                                 items=[dict(marker=i["marker"], text=i["text"], box=bx(i["box"]))
                                        for i in ls["items"]]))
    for b in t["barcodes"]:
        out["barcodes"].append(dict(symbology=b["symbology"], payload=b["payload"], box=bx(b["box"]),
                                    moduleMillimetres=b["module_mm"]))
    for d in t["detectedData"]:
        r = dict(kind=d["kind"], text=d["text"], value=d["value"], box=bx(d["box"]))
        if "region" in d:
            r["region"] = d["region"]
        out["detectedData"].append(r)
    for d in t["nearMisses"]:
        out["nearMisses"].append(dict(text=d["text"], what=d["kind"], box=bx(d["box"])))
    for p in t["paragraphs"]:
        out["paragraphs"].append(dict(text=p["text"], box=bx(p["box"])))
    return out


def document_task(args):
    doc, seed, fonts, pool, out = args
    P, fam, paper = render(doc, seed, fonts, pool)
    c = P.c
    rows, lines = [], []
    base = dict(doc=doc["id"], split=doc["split"], layout=doc["layout"])
    meta = dict(font=fam["family"], font_package=fam["package"], font_class=fam["cls"],
                body_pt=round(P.pt, 2), paper="A4" if paper[0] == 210.0 else "Letter")
    # Clean: the 300 dpi page averaged 2×2 to 150 dpi, grayscale PNG.
    clean = c.im.convert("L").reduce(2)
    rel = f"clean/{doc['id']}.png"
    buf = io.BytesIO()
    clean.save(buf, "PNG", optimize=True, dpi=(CLEAN_DPI, CLEAN_DPI))
    with open(os.path.join(out, rel), "wb") as f:
        f.write(buf.getvalue())
    rec = dict(path=rel, **base, capture="clean", width=clean.width, height=clean.height,
               **truth_record(P, lambda b, s: scaled_box(b, s), CLEAN_DPI / pg.RENDER_DPI))
    lines.append(rec)
    rows.append(dict(path=rel, **base, capture="clean", width=clean.width, height=clean.height,
                     jpeg_quality="", **meta))
    n_phone = 2 if doc["index"] % SECOND_PHONE_EVERY == 0 else 1
    for k in range(n_phone):
        key = (seed, "structure", doc["id"], "phone", k)
        rng = ds.rng_for(*key, "capture")
        noise_rng = ds.rng_for(*key, "sensor")
        L = int(PHONE_SIZES[int(rng.integers(len(PHONE_SIZES)))])
        maps = {}
        u8, p, _ = pg.phone_shot(c, "letter", L, rng, noise_rng, maps=maps)
        q = int(rng.integers(PHONE_JPEG[0], PHONE_JPEG[1] + 1))
        rel = f"phone/{doc['id']}-{k}.jpg"
        with open(os.path.join(out, rel), "wb") as f:
            f.write(ds.encode_jpeg(u8, q))
        mapper = PhoneMap(maps["u"], maps["v"], c.ppmm)
        h, w = u8.shape[:2]
        rec = dict(path=rel, **base, capture="phone", width=w, height=h, **truth_record(P, mapper, None))
        lines.append(rec)
        rows.append(dict(path=rel, **base, capture="phone", width=w, height=h, jpeg_quality=q, **meta))
    return lines, rows


def documents(n):
    out = []
    for i in range(n):
        layout = LAYOUTS[i % len(LAYOUTS)]
        did = f"s{i:03d}-{layout}"
        out.append(dict(id=did, index=i, layout=layout, split=split_of(did)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    out = args.out
    for sub in ("clean", "phone"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        for name in os.listdir(os.path.join(out, sub)):
            os.remove(os.path.join(out, sub, name))
    fonts = fonts_available()
    if not fonts:
        sys.exit("no font installed: run make-structure.sh")
    files = pg.man_pages("eng")
    if not files:
        sys.exit("no man pages (package manpages): run make-structure.sh")
    docs = documents(args.count)
    pools = {s: [p for p in files if pg.split_of("man-eng", os.path.basename(p)) == s]
             for s in ("train", "test")}
    tasks = [(d, args.seed, fonts, pools[d["split"]], out) for d in docs]
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as ex:
            results = list(ex.map(document_task, tasks))
    else:
        results = [document_task(t) for t in tasks]
    lines = [r for res in results for r in res[0]]
    rows = [r for res in results for r in res[1]]
    with open(os.path.join(out, "truth.jsonl"), "w", encoding="utf-8") as f:
        for r in lines:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    cols = ["path", "split", "capture", "doc", "layout", "width", "height", "jpeg_quality", "paper",
            "font", "font_package", "font_class", "body_pt"]
    with open(os.path.join(out, "labels.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in cols})
    stats = summarize(lines, docs, fonts)
    with open(os.path.join(out, "counts.json"), "w", encoding="utf-8") as f:
        json.dump(stats, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    write_readme(out, stats, args)
    print(json.dumps(stats["totals"], sort_keys=True))


def summarize(lines, docs, fonts):
    from collections import Counter
    st = {}
    for split in ("train", "test"):
        clean = [r for r in lines if r["split"] == split and r["capture"] == "clean"]
        st[split] = dict(
            documents=len(clean),
            images=dict(Counter(r["capture"] for r in lines if r["split"] == split)),
            layouts=dict(Counter(r["layout"] for r in clean)),
            tables=dict(Counter(t["ruling"] for r in clean for t in r["tables"])),
            spanning_tables=sum(any(c["rowSpan"] > 1 or c["columnSpan"] > 1 for c in t["cells"])
                                for r in clean for t in r["tables"]),
            cells=sum(len(t["cells"]) for r in clean for t in r["tables"]),
            lists=dict(Counter(l["marker"] for r in clean for l in r["lists"])),
            list_items=sum(len(l["items"]) for r in clean for l in r["lists"]),
            barcodes=dict(Counter(b["symbology"] for r in clean for b in r["barcodes"])),
            data=dict(Counter(d["kind"] for r in clean for d in r["detectedData"])),
            near_misses=sum(len(r["nearMisses"]) for r in clean),
            paragraphs=sum(len(r["paragraphs"]) for r in clean))
    st["totals"] = dict(documents=len(docs), images=len(lines),
                        phone=sum(r["capture"] == "phone" for r in lines))
    st["fonts"] = sorted({f["package"] for f in fonts})
    return st


def fmt_counts(d, order=None):
    keys = order or sorted(d)
    return ", ".join(f"{k} {d[k]}" for k in keys if d.get(k))


def write_readme(out, st, args):
    def row(name, key, order=None):
        vals = []
        for sp in ("train", "test"):
            v = st[sp][key]
            vals.append(fmt_counts(v, order) if isinstance(v, dict) else str(v))
        return f"| {name} | {vals[0]} | {vals[1]} |"
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(out) for f in fs)
    lines = [
        "# structure",
        "",
        "Generated one-page documents of known structure -- tables, lists, barcodes and detected",
        "data (dates, amounts, phone numbers, addresses, ...) -- to score what",
        "`imgquality ocr --format document` reads against the truth, with",
        "`Scripts/measure/structure_accuracy.py`. Never hand-edited: rebuilt byte for byte by",
        "",
        "    Scripts/datasets/make-structure.sh",
        "",
        f"(`{GENERATOR}`, seed {args.seed}, {args.count} documents; about 4 minutes on 2 cores).",
        "",
        "## What is in it",
        "",
        f"{st['totals']['documents']} documents, {st['totals']['images']} images "
        f"({st['totals']['images'] - st['totals']['phone']} clean, {st['totals']['phone']} phone), "
        f"{size / 1e6:.1f} MB. Four layouts in turn: flyers (headline, paragraphs, a list,",
        "contact lines beside a QR code or barcode), forms (labelled fields, a small table, a",
        "numbered or lettered list), sign-up sheets (a table of names, emails, phones, dates)",
        "and price lists / invoices (a table of amounts, a total row). A4 or Letter, body 10-14 pt",
        "(less when a page would overflow), serif or sans fonts.",
        "",
        "- `clean/<doc>.png`: the page drawn at 300 dpi, averaged 2x2 to 150 dpi, 8-bit grayscale.",
        "- `phone/<doc>-<k>.jpg`: the 300 dpi page photographed by the simulated handheld phone of",
        "  `Scripts/corpus/pages.py` (`phone_shot`: perspective and roll of a handheld phone, a bent",
        "  sheet, uneven light and shadows, defocus, shake, sensor noise, sharpening, JPEG 80-90),",
        f"  long side {' or '.join(map(str, PHONE_SIZES))} px; every {SECOND_PHONE_EVERY}th document has two photos.",
        "- `truth.jsonl`: one record per image (format below). `labels.csv`: `path` (relative to",
        "  it), `split`, `capture` (clean/phone), `doc`, `layout`, size, JPEG quality, paper, font,",
        "  body size. `counts.json`: the counts below.",
        "",
        "Split by a hash of the document id (test about 30 %); every image of a document is in",
        "its document's split.",
        "",
        "| | train | test |",
        "|---|---|---|",
        row("documents", "documents"),
        row("images", "images"),
        row("layouts", "layouts"),
        row("tables by ruling", "tables"),
        row("tables with spanning cells", "spanning_tables"),
        row("table cells", "cells"),
        row("lists by marker", "lists"),
        row("list items", "list_items"),
        row("barcodes (per clean image)", "barcodes", list(SYMBOLOGIES)),
        row("detected data (per clean image)", "data", list(KINDS)),
        row("near misses", "near_misses"),
        row("paragraphs", "paragraphs"),
        "",
        "Counts of elements are per clean image; each phone photo of a document carries the same",
        "elements (an element whose box falls outside the frame would be dropped).",
        "",
        "## How it is made",
        "",
        "- Tables: fully ruled (every cell outlined; a spanning cell drawn without the inner rule),",
        "  horizontal rules only (top, under the header, bottom, sometimes between rows; a short",
        "  rule under a spanning header cell) or unruled (columns aligned by whitespace). 2-6",
        "  columns, 3-12 rows counting header rows. Spans: a \"Contact\" header over Email and Phone",
        "  (two header rows, the other header cells spanning both), a team name spanning two rows,",
        "  a \"Total\" cell spanning all but the last column. In ruled tables one text column may be",
        "  narrowed so that its cells wrap to two lines; a cell's text joins its lines with a space.",
        "- Lists: markers `•`, `–`, `▪` (drawn in DejaVu Sans when the font lacks it), `1.`/`1)`,",
        "  `a.`/`a)`; 3-6 items, some wrapping to two lines with a hanging indent.",
        "- Barcodes by the `zint` CLI (`--notext`), modules scaled to whole 300 dpi pixels: QR",
        "  20-35 mm, PDF417 35-50 mm, EAN-13/EAN-8/UPC-A/Code 128/Code 39 30-50 mm wide, 10-16 mm",
        "  tall, modules never under 0.3 mm; GS1 check digits computed (zint checks them). ZBar,",
        "  imgquality's reader, cannot decode PDF417: the scorer keeps it out of its headline.",
        "- Running text: sentences of the English man pages (package `manpages`, rendered by groff",
        "  as pages.py does; a document of the test split reads only man pages of the test split),",
        "  keeping only sentences without digits, links, quotes, dashes or words of dates and times,",
        "  so that nothing in them is data. Names: capitalised words of hunspell's en_US list.",
        "- Detected data, planted in paragraphs, list items, form fields and table cells, built",
        "  by rules in the script (the sentences around them are a few templates written there):",
        "  dates (2026-03-14, 14/03/2026, March 14, 2026, 14 March 2026, 14.03.2026, Mar 14 2026),",
        "  money ($12.50, €1.234,56, 12.50 USD, USD 1,200, £8.99, 1 200 EUR), phone numbers (US",
        "  555-01xx numbers in four styles; German and French numbers, international or national,",
        "  with the region in the truth), emails and URLs on example.com/.org/.net, measurements",
        "  (kg, cm, ft, km, ml, °C, mph), postal addresses (US, German, French), flight numbers",
        "  (IATA codes of 12 major airlines, with or without a space, after \"flight\" or not),",
        "  tracking numbers with valid check digits (UPS 1Z, FedEx 12 digits, USPS IMpb 22 digits,",
        "  UPU S10), printed grouped by spaces or not.",
        "- Near misses (`nearMisses`, must not be detected): a version number, a private IP",
        "  address, a part number, a year alone, the page number (\"Page 1 of 1\").",
        "",
        "## truth.jsonl",
        "",
        "One JSON object per image: `path` (relative to this folder), `doc`, `split`, `capture`,",
        "`layout`, `width`, `height`, and",
        "",
        "- `tables`: `box`, `ruling` (full/horizontal/none), `rows`, `columns`, `cells`: `row`,",
        "  `column` (from 0), `rowSpan`, `columnSpan`, `text`, `box` (the cell's area between the",
        "  rules or column boundaries). The table box is its outer rectangle.",
        "- `lists`: `box`, `marker` (bullet/number/letter), `items`: `marker` as printed, `text`",
        "  (without the marker; wrapped lines joined by a space), `box` (marker and text).",
        "- `barcodes`: `symbology` (qr, ean13, ean8, upca, code128, code39, pdf417), `payload`",
        "  (EAN/UPC with the check digit; UPC-A as 12 digits), `box` (the bars, without quiet",
        "  zone), `moduleMillimetres`.",
        "- `detectedData`: `kind`, `text` exactly as printed, `value`, `box`, and `region` for",
        "  phones and addresses. Values: date \"YYYY-MM-DD\"; money {\"amount\": decimal string,",
        "  \"currency\": ISO 4217}; phone E.164; measurement {\"value\": number, \"unit\": kg, cm,",
        "  ft, km, ml, °C or mph}; url as printed with \"http://\" added when it has no scheme",
        "  (as NSDataDetector does); flight and tracking numbers without spaces; email and",
        "  address as printed.",
        "- `nearMisses`: `text`, `what`, `box`. `paragraphs`: `text`, `box` (one per paragraph,",
        "  form field, contact line or footer; not scored).",
        "",
        "Boxes are {x, y, width, height} in the image's pixels, top-left origin. In a phone photo",
        "a box is the bounding box of the pixels that show the page rectangle (through",
        "`phone_shot`'s inverse map), so it is axis-aligned around a slightly rotated and",
        "perspective-distorted region.",
        "",
        "## Scoring",
        "",
        "    imgquality ocr --format document Datasets/structure/clean/*.png Datasets/structure/phone/*.jpg > records.jsonl",
        "    python3 Scripts/measure/structure_accuracy.py --truth Datasets/structure/truth.jsonl records.jsonl --split test [--markdown]",
        "",
        "The rules are in the scorer's docstring; `--self-check` scores the truth against itself",
        "(100 %) and perturbed copies.",
        "",
        "## Sources and licences",
        "",
        "- Fonts, from Debian packages: " + ", ".join(st["fonts"]) + " (SIL OFL, GPL with font",
        "  exception, Bitstream Vera / DejaVu, AGPL with font exception for URW base35, Apache 2.0",
        "  for Open Sans; see each package's copyright file).",
        "- Text: Debian `manpages` (the Linux man-pages project; various free licences, see",
        "  /usr/share/doc/manpages/copyright); word list `hunspell-en-us` (SCOWL; BSD-like).",
        "- Barcodes: `zint` (GPL-3+ program; its output is not covered).",
        "- Camera model: Scripts/corpus/pages.py and camera.py of this repository; Python numpy,",
        "  scipy, Pillow at the versions pinned in Scripts/corpus/requirements.txt.",
        "",
    ]
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
