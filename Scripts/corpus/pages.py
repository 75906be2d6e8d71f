#!/usr/bin/env python3
"""Document-page corpus: pages of real-world layouts (letters, invoices, forms, receipts,
book pages, slides, multi-column text, tables) rendered in many fonts and sizes in English,
German and Russian from text that Debian packages ship, each photographed or scanned by a
simulated phone, messenger or flatbed scanner, and labelled by what Tesseract reads of it.

Usage: pages.py --out DIR [--seed N] [--count N] [--captures N] [--jobs J]
                [--long-side PX] [--languages eng,deu,rus] [--layouts NAMES] [--no-ocr]
                [--list-fonts]
(normally run through Scripts/corpus/make-page-corpus.sh). Scripts/corpus/PAGES.md
describes the layouts, the text and font sources, the capture model and the labels.

Deterministic: the same seed, options and package versions give byte-identical images and
labels. Every random number comes from a generator seeded by SHA-256 of (seed, document,
capture index, purpose), never from the order of work, so --jobs does not change the
output. Timings, which do vary, are kept apart in timings.csv.
"""

import argparse
import csv
import gzip
import hashlib
import importlib.metadata
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage, signal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "datasets"))
sys.path.insert(0, HERE)
import build as ds  # noqa: E402  (Scripts/datasets/build.py: sRGB, kernels, word F1, Levenshtein)
import camera as cam  # noqa: E402  (Scripts/corpus/camera.py: sensor, tone curve, shake kernel)

GENERATOR = "Scripts/corpus/pages.py"
REBUILD = "Scripts/corpus/make-page-corpus.sh"
DEFAULT_SEED = 20250801
DEFAULT_COUNT = 3000
DEFAULT_CAPTURES = 8
MAX_LONG_SIDE = 4000
TEST_SHARE = 0.3     # share of documents (and of man pages) in the test split, by hash of the id

LAYOUTS = ("letter", "invoice", "form", "receipt", "book", "slide", "columns", "table")
LANGUAGES = ("eng", "deu", "rus")

# --------------------------------------------------------------------------
# Text: Debian's man pages (running text) and hunspell dictionaries (word lists)
# --------------------------------------------------------------------------

# Running text of every language comes from the man pages of one Debian package: the Linux
# man-pages project in English, and their German and Russian translations (manpages-l10n).
MAN_SOURCES = {
    "eng": ("manpages", "/usr/share/man/man"),
    "deu": ("manpages-de", "/usr/share/man/de/man"),
    "rus": ("manpages-ru", "/usr/share/man/ru/man"),
}
# Item names, people's and places' names of invoices, forms and receipts: hunspell's lists.
DICTIONARIES = {
    "eng": ("hunspell-en-us", "/usr/share/hunspell/en_US.dic"),
    "deu": ("hunspell-de-de", "/usr/share/hunspell/de_DE.dic"),
    "rus": ("hunspell-ru", "/usr/share/hunspell/ru_RU.dic"),
}
LETTERS = {
    "eng": "A-Za-z",
    "deu": "A-Za-zÄÖÜäöüß",
    "rus": "А-Яа-яЁё",
}
# The characters a page may carry: printable ASCII, the language's letters, and the
# typography of real documents. A paragraph with any other character is left out, and a
# font is used for a language only if it has a glyph for every one of them.
TYPOGRAPHY = "«»„“”‘’‚—–…€§°•"
CHARSET = {
    "eng": "".join(chr(c) for c in range(0x20, 0x7F)) + TYPOGRAPHY,
    "deu": "".join(chr(c) for c in range(0x20, 0x7F)) + "ÄÖÜäöüß" + TYPOGRAPHY,
    "rus": "".join(chr(c) for c in range(0x20, 0x7F)) + TYPOGRAPHY + "№" +
           "".join(chr(c) for c in range(0x410, 0x450)) + "Ёё",
}
# groff's UTF-8 output uses a few characters for what the page source wrote in ASCII.
CHAR_MAP = {"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u00a0": " ", "\u2002": " ",
            "\u2003": " ", "\u2009": " ", "\u200b": "", "\u00ad": "", "\u2032": "'",
            "\u27e8": "<", "\u27e9": ">", "\u00b7": "•"}
# Function words, only to tell a German paragraph from an untranslated English one left in
# a translated page (po4a ships pages that are at least 80 % translated).
STOP = {
    "eng": {"the", "and", "of", "to", "is", "in", "that", "a", "for", "are", "be", "this", "with"},
    "deu": {"der", "die", "das", "und", "ist", "nicht", "mit", "von", "zu", "den", "ein", "eine",
            "wird", "werden", "sie", "auf", "für", "oder", "dem", "des", "wenn", "kann"},
}
# Tokens that are code rather than prose (paths, options, C): a paragraph with more than
# 15 % of them is left out.
CODE_CHARS = set("/_\\{}[]<>=*$#|@~`^")

GROFF = ["groff", "-k", "-t", "-mandoc", "-Tutf8", "-rLL=2000n", "-rHY=0", "-P-cbou"]


def split_of(kind, name):
    """train/test by a hash of the name alone (a document, or a man page), independent of
    --seed and of every other option."""
    h = hashlib.sha256(f"page-corpus-split\x1f{kind}\x1f{name}".encode("utf-8")).digest()
    return "test" if int.from_bytes(h[:8], "little") / 2.0 ** 64 < TEST_SHARE else "train"


def man_pages(lang):
    """The man page files of the language's package, sorted: regular gzip files that are
    not a `.so` redirect to another page."""
    package, prefix = MAN_SOURCES[lang]
    out = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True).stdout
    files = []
    for path in sorted(out.splitlines()):
        if not (path.startswith(prefix) and path.endswith(".gz")):
            continue
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with gzip.open(path, "rb") as f:
            if f.read(4) == b".so ":
                continue
        files.append(path)
    return files


def fold_chars(text):
    return "".join(CHAR_MAP.get(ch, ch) for ch in text)


def man_blocks(path, lang):
    """The text of a man page as blocks: ("head", text) for section and subsection headings,
    ("para", text) for paragraphs of prose in the page's language. groff lays each paragraph
    out as one line (line length 2000 ens, no hyphenation), so a block is a line; the header
    and footer lines and tables are dropped."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    env = dict(os.environ, LC_ALL="C.UTF-8")
    r = subprocess.run(GROFF, input=data, capture_output=True, env=env)
    text = r.stdout.decode("utf-8", "replace")
    allowed = set(CHARSET[lang])
    letters = re.compile(f"[{LETTERS[lang]}]")
    blocks = []
    for line in text.splitlines():
        if not line.strip() or re.search(r"\S {10,}\S", line):
            continue                     # blank, or the header / footer line
        if any("\u2500" <= ch <= "\u257f" for ch in line):
            continue                     # a table drawn with box characters
        indent = len(line) - len(line.lstrip(" "))
        s = re.sub(r"\s+", " ", fold_chars(line)).strip()
        if not s or any(ch not in allowed for ch in s):
            continue
        words = s.split()
        n_letters = len(letters.findall(s))
        if indent <= 3:
            if 1 <= len(words) <= 8 and n_letters >= 0.8 * len(s.replace(" ", "")):
                blocks.append(("head", s))
            continue
        if len(words) < 6 or max(len(w) for w in words) > 30:
            continue
        if n_letters < 0.7 * len(s.replace(" ", "")):
            continue
        if sum(any(c in CODE_CHARS for c in w) for w in words) > 0.15 * len(words):
            continue
        low = [w.strip(".,;:!?()\"'").lower() for w in words]
        if lang == "rus":
            cyr = len(re.findall("[А-Яа-яЁё]", s))
            if cyr < 0.6 * n_letters:
                continue
        elif lang == "deu":
            de = sum(w in STOP["deu"] for w in low)
            en = sum(w in STOP["eng"] and w not in STOP["deu"] for w in low)
            if de < max(1, 0.06 * len(words)) or en > de:
                continue
        blocks.append(("para", s))
    return blocks


def dictionary(lang):
    """Hunspell's word list: (lowercase words, capitalised words), letters only, 3–14
    characters, sorted. In English and Russian the capitalised ones are names of people
    and places; in German also every noun."""
    _, path = DICTIONARIES[lang]
    pat = re.compile(f"[{LETTERS[lang]}]{{3,14}}")
    lower, upper = set(), set()
    with open(path, encoding="utf-8", errors="replace") as f:
        next(f, None)                    # the entry count
        for line in f:
            w = line.split("/")[0].split("\t")[0].strip()
            if not pat.fullmatch(w):
                continue
            if w[0].isupper() and w[1:].islower():
                upper.add(w)
            elif w.islower():
                lower.add(w)
    return sorted(lower), sorted(upper)


class TextSource:
    """Running text for one document: paragraphs of man pages of the document's language
    and split, read in order, one randomly chosen page after another."""

    def __init__(self, lang, pool, rng):
        self.lang, self.pool, self.rng = lang, pool, rng
        self.blocks, self.pos, self.used = [], 0, []
        self.words_lower, self.words_upper = _dictionary_cached(lang)

    def _next_page(self):
        for _ in range(100):
            path = self.pool[int(self.rng.integers(len(self.pool)))]
            blocks = _blocks_cached(path, self.lang)
            if sum(k == "para" for k, _ in blocks) >= 2:
                self.blocks, self.pos = blocks, 0
                self.used.append(os.path.basename(path)[:-3])
                return
        raise RuntimeError(f"no man page with prose found for {self.lang}")

    def _next(self, kind):
        while True:
            if self.pos >= len(self.blocks):
                self._next_page()
            k, s = self.blocks[self.pos]
            self.pos += 1
            if k == kind:
                return s

    def paragraph(self, min_words=0):
        """The next paragraph of at least min_words words."""
        for _ in range(1000):
            s = self._next("para")
            if len(s.split()) >= min_words:
                return s
        return s

    def sentence(self, max_words=14, min_words=3):
        """A sentence of a paragraph, cut to at most max_words words."""
        for _ in range(100):
            para = self.paragraph()
            parts = [p for p in re.split(r"(?<=[.!?])\s+", para) if len(p.split()) >= min_words]
            if parts:
                break
        else:
            parts = [para]
        words = parts[int(self.rng.integers(len(parts)))].split()[:max_words]
        return " ".join(words)

    def title(self, max_words=7):
        """A heading: a man page's section heading, or the start of a sentence."""
        if self.rng.random() < 0.3:
            h = self._next("head")
            return h if not h.isupper() or self.rng.random() < 0.5 else h.capitalize()
        words = self.sentence(max_words).rstrip(".,;:").split()
        n = int(self.rng.integers(2, max(3, min(max_words, len(words)) + 1)))
        s = " ".join(words[:n]).rstrip(".,;:!?")
        return s[:1].upper() + s[1:]

    def word(self, capital=False):
        pool = self.words_upper if capital and self.words_upper else self.words_lower
        return pool[int(self.rng.integers(len(pool)))]

    def name(self):
        """A person's or firm's name: two capitalised dictionary words."""
        return f"{self.word(True)} {self.word(True)}"

    def item(self):
        """An item of an invoice or a receipt: one to three dictionary words."""
        n = int(self.rng.choice([1, 1, 2, 2, 3]))
        words = [self.word(self.lang == "deu" and i == n - 1) for i in range(n)]
        s = " ".join(words)
        return s[:1].upper() + s[1:]


_BLOCKS, _DICTS = {}, {}


def _blocks_cached(path, lang):
    if path not in _BLOCKS:
        _BLOCKS[path] = man_blocks(path, lang)
    return _BLOCKS[path]


def _dictionary_cached(lang):
    if lang not in _DICTS:
        _DICTS[lang] = dictionary(lang)
    return _DICTS[lang]


# Fixed captions of invoices, forms, receipts and letters: the only words written here, a
# few dozen per language; every other word on a page comes from the packages above.
CAPTIONS = {
    "eng": dict(invoice="Invoice", no="No.", date="Date", customer="Customer no.", pos="Item",
                desc="Description", qty="Qty", price="Unit price", amount="Amount",
                subtotal="Subtotal", vat="VAT", total="Total", dear="Dear Sir or Madam,",
                regards="Yours sincerely", page="Page", cash="Cash", change="Change",
                thanks="Thank you for your purchase", name="Name", address="Address",
                phone="Phone", email="E-mail", signature="Signature", place="Place",
                birth="Date of birth", subject="Subject", city="City", code="Postcode",
                yes="Yes", no_="No", time="Time", receipt="Receipt", tax="Tax no."),
    "deu": dict(invoice="Rechnung", no="Nr.", date="Datum", customer="Kundennummer", pos="Pos.",
                desc="Beschreibung", qty="Menge", price="Einzelpreis", amount="Betrag",
                subtotal="Zwischensumme", vat="MwSt.", total="Gesamtbetrag",
                dear="Sehr geehrte Damen und Herren,", regards="Mit freundlichen Grüßen",
                page="Seite", cash="Bar", change="Rückgeld", thanks="Vielen Dank für Ihren Einkauf",
                name="Name", address="Anschrift", phone="Telefon", email="E-Mail",
                signature="Unterschrift", place="Ort", birth="Geburtsdatum", subject="Betreff",
                city="Stadt", code="Postleitzahl", yes="Ja", no_="Nein", time="Uhrzeit",
                receipt="Kassenbon", tax="Steuernummer"),
    "rus": dict(invoice="Счёт", no="№", date="Дата", customer="Номер клиента", pos="№",
                desc="Наименование", qty="Кол-во", price="Цена", amount="Сумма",
                subtotal="Промежуточный итог", vat="НДС", total="Итого",
                dear="Уважаемые господа!", regards="С уважением", page="Страница", cash="Наличные",
                change="Сдача", thanks="Спасибо за покупку", name="ФИО", address="Адрес",
                phone="Телефон", email="Эл. почта", signature="Подпись", place="Место",
                birth="Дата рождения", subject="Тема", city="Город", code="Индекс", yes="Да",
                no_="Нет", time="Время", receipt="Кассовый чек", tax="ИНН"),
}


def date_text(lang, rng):
    y, m, d = int(rng.integers(1995, 2026)), int(rng.integers(1, 13)), int(rng.integers(1, 29))
    if lang == "eng":
        return f"{m:02d}/{d:02d}/{y}" if rng.random() < 0.5 else f"{y}-{m:02d}-{d:02d}"
    return f"{d:02d}.{m:02d}.{y}"


def money(x, lang):
    """1,234.56 (English), 1.234,56 (German), 1 234,56 (Russian)."""
    whole, _, frac = f"{x:,.2f}".partition(".")
    if lang == "eng":
        return f"{whole}.{frac}"
    return whole.replace(",", "." if lang == "deu" else " ") + "," + frac


# --------------------------------------------------------------------------
# Fonts
# --------------------------------------------------------------------------

D = "/usr/share/fonts/truetype/dejavu/"
L2 = "/usr/share/fonts/truetype/liberation2/"
FF = "/usr/share/fonts/truetype/freefont/"
U = "/usr/share/fonts/opentype/urw-base35/"
CX = "/usr/share/fonts/truetype/crosextra/"
N = "/usr/share/fonts/truetype/noto/"
PT = "/usr/share/fonts/truetype/paratype/"
LL = "/usr/share/fonts/opentype/linux-libertine/"
OS = "/usr/share/fonts/truetype/open-sans/"
GO = "/usr/share/fonts/fonts-go/"

# (family, Debian package, class, regular, bold, italic)
FAMILIES = [
    ("DejaVu Sans", "fonts-dejavu-core", "sans", D + "DejaVuSans.ttf", D + "DejaVuSans-Bold.ttf", D + "DejaVuSans-Oblique.ttf"),
    ("DejaVu Serif", "fonts-dejavu-core", "serif", D + "DejaVuSerif.ttf", D + "DejaVuSerif-Bold.ttf", D + "DejaVuSerif-Italic.ttf"),
    ("DejaVu Sans Condensed", "fonts-dejavu-extra", "sans", D + "DejaVuSansCondensed.ttf", D + "DejaVuSansCondensed-Bold.ttf", D + "DejaVuSansCondensed-Oblique.ttf"),
    ("DejaVu Sans Mono", "fonts-dejavu-core", "mono", D + "DejaVuSansMono.ttf", D + "DejaVuSansMono-Bold.ttf", D + "DejaVuSansMono-Oblique.ttf"),
    ("Liberation Sans", "fonts-liberation2", "sans", L2 + "LiberationSans-Regular.ttf", L2 + "LiberationSans-Bold.ttf", L2 + "LiberationSans-Italic.ttf"),
    ("Liberation Serif", "fonts-liberation2", "serif", L2 + "LiberationSerif-Regular.ttf", L2 + "LiberationSerif-Bold.ttf", L2 + "LiberationSerif-Italic.ttf"),
    ("Liberation Mono", "fonts-liberation2", "mono", L2 + "LiberationMono-Regular.ttf", L2 + "LiberationMono-Bold.ttf", L2 + "LiberationMono-Italic.ttf"),
    ("FreeSans", "fonts-freefont-ttf", "sans", FF + "FreeSans.ttf", FF + "FreeSansBold.ttf", FF + "FreeSansOblique.ttf"),
    ("FreeSerif", "fonts-freefont-ttf", "serif", FF + "FreeSerif.ttf", FF + "FreeSerifBold.ttf", FF + "FreeSerifItalic.ttf"),
    ("FreeMono", "fonts-freefont-ttf", "mono", FF + "FreeMono.ttf", FF + "FreeMonoBold.ttf", FF + "FreeMonoOblique.ttf"),
    ("Nimbus Sans", "fonts-urw-base35", "sans", U + "NimbusSans-Regular.otf", U + "NimbusSans-Bold.otf", U + "NimbusSans-Italic.otf"),
    ("Nimbus Sans Narrow", "fonts-urw-base35", "sans", U + "NimbusSansNarrow-Regular.otf", U + "NimbusSansNarrow-Bold.otf", U + "NimbusSansNarrow-Oblique.otf"),
    ("Nimbus Roman", "fonts-urw-base35", "serif", U + "NimbusRoman-Regular.otf", U + "NimbusRoman-Bold.otf", U + "NimbusRoman-Italic.otf"),
    ("Nimbus Mono PS", "fonts-urw-base35", "mono", U + "NimbusMonoPS-Regular.otf", U + "NimbusMonoPS-Bold.otf", U + "NimbusMonoPS-Italic.otf"),
    ("C059", "fonts-urw-base35", "serif", U + "C059-Roman.otf", U + "C059-Bold.otf", U + "C059-Italic.otf"),
    ("P052", "fonts-urw-base35", "serif", U + "P052-Roman.otf", U + "P052-Bold.otf", U + "P052-Italic.otf"),
    ("URW Bookman", "fonts-urw-base35", "serif", U + "URWBookman-Light.otf", U + "URWBookman-Demi.otf", U + "URWBookman-LightItalic.otf"),
    ("URW Gothic", "fonts-urw-base35", "sans", U + "URWGothic-Book.otf", U + "URWGothic-Demi.otf", U + "URWGothic-BookOblique.otf"),
    ("Carlito", "fonts-crosextra-carlito", "sans", CX + "Carlito-Regular.ttf", CX + "Carlito-Bold.ttf", CX + "Carlito-Italic.ttf"),
    ("Caladea", "fonts-crosextra-caladea", "serif", CX + "Caladea-Regular.ttf", CX + "Caladea-Bold.ttf", CX + "Caladea-Italic.ttf"),
    ("Noto Sans", "fonts-noto-core", "sans", N + "NotoSans-Regular.ttf", N + "NotoSans-Bold.ttf", N + "NotoSans-Italic.ttf"),
    ("Noto Serif", "fonts-noto-core", "serif", N + "NotoSerif-Regular.ttf", N + "NotoSerif-Bold.ttf", N + "NotoSerif-Italic.ttf"),
    ("PT Sans", "fonts-paratype", "sans", PT + "PTS55F.ttf", PT + "PTS75F.ttf", PT + "PTS56F.ttf"),
    ("PT Sans Narrow", "fonts-paratype", "sans", PT + "PTN57F.ttf", PT + "PTN77F.ttf", PT + "PTN57F.ttf"),
    ("PT Sans Caption", "fonts-paratype", "sans", PT + "PTC55F.ttf", PT + "PTC75F.ttf", PT + "PTC55F.ttf"),
    ("PT Serif", "fonts-paratype", "serif", PT + "PTF55F.ttf", PT + "PTF75F.ttf", PT + "PTF56F.ttf"),
    ("PT Mono", "fonts-paratype", "mono", PT + "PTM55F.ttf", PT + "PTM75F.ttf", PT + "PTM55F.ttf"),
    ("Linux Libertine", "fonts-linuxlibertine", "serif", LL + "LinLibertine_R.otf", LL + "LinLibertine_RB.otf", LL + "LinLibertine_RI.otf"),
    ("Linux Biolinum", "fonts-linuxlibertine", "sans", LL + "LinBiolinum_R.otf", LL + "LinBiolinum_RB.otf", LL + "LinBiolinum_RI.otf"),
    ("Open Sans", "fonts-open-sans", "sans", OS + "OpenSans-Regular.ttf", OS + "OpenSans-Bold.ttf", OS + "OpenSans-Italic.ttf"),
    ("Go", "fonts-go", "sans", GO + "Go-Regular.ttf", GO + "Go-Bold.ttf", GO + "Go-Italic.ttf"),
    ("Go Mono", "fonts-go", "mono", GO + "Go-Mono.ttf", GO + "Go-Mono-Bold.ttf", GO + "Go-Mono-Italic.ttf"),
]
FONT_PACKAGES = sorted({f[1] for f in FAMILIES})

# The classes a layout draws its body font from, with weights (books are set in serif
# type, receipts mostly in a printer's monospace, slides in sans).
LAYOUT_CLASSES = {
    "letter": {"serif": 1, "sans": 1, "mono": 0.15},
    "invoice": {"serif": 0.4, "sans": 1, "mono": 0.15},
    "form": {"serif": 0.4, "sans": 1, "mono": 0.1},
    "receipt": {"mono": 1, "sans": 0.5},
    "book": {"serif": 1, "sans": 0.15},
    "slide": {"sans": 1, "serif": 0.2},
    "columns": {"serif": 1, "sans": 0.7},
    "table": {"sans": 1, "serif": 0.4, "mono": 0.2},
}


def missing_glyphs(path, chars):
    """Characters the font file has no glyph for: drawn, each gives the same bitmap as a
    code point no font has (the .notdef glyph)."""
    font = ImageFont.truetype(path, size=24, layout_engine=ImageFont.Layout.BASIC)

    def shape(ch):
        m = font.getmask(ch)
        return m.size, bytes(m)
    notdef = shape("\U0010fffd")
    return [ch for ch in chars if not ch.isspace() and shape(ch) == notdef]


def font_table(languages):
    """Every family whose files exist, with the languages whose whole character set all of
    its styles cover."""
    table = []
    for fam in FAMILIES:
        name, package, cls, *paths = fam
        if not all(os.path.isfile(p) for p in paths):
            table.append(dict(family=name, package=package, cls=cls, paths=paths, languages=[],
                              note="not installed"))
            continue
        langs, notes = [], []
        for lang in languages:
            miss = sorted(set().union(*(missing_glyphs(p, CHARSET[lang]) for p in sorted(set(paths)))))
            if miss:
                notes.append(f"{lang}: no glyph for {''.join(miss[:12])}")
            else:
                langs.append(lang)
        table.append(dict(family=name, package=package, cls=cls, paths=paths, languages=langs,
                          note="; ".join(notes)))
    return table


_FONTS = {}


def font(path, px):
    key = (path, round(px, 3))
    if key not in _FONTS:
        _FONTS[key] = ImageFont.truetype(path, size=round(px, 3), layout_engine=ImageFont.Layout.BASIC)
    return _FONTS[key]


_XH = {}


def x_height(f):
    """x-height of a font in px at its size: the height of 'x' above the baseline."""
    key = (f.path, f.size)
    if key not in _XH:
        _XH[key] = float(-f.getbbox("x", anchor="ls")[1])
    return _XH[key]


# --------------------------------------------------------------------------
# Page rendering
# --------------------------------------------------------------------------

RENDER_DPI = 300


class Canvas:
    """A page being drawn, and its ground truth: every line of text in reading order, with
    its box and font size (render pixels)."""

    def __init__(self, w_mm, h_mm, ppmm, paper, ink):
        self.w_mm, self.h_mm, self.ppmm = w_mm, h_mm, ppmm
        self.W, self.H = round(w_mm * ppmm), round(h_mm * ppmm)
        self.im = Image.new("RGB", (self.W, self.H), paper)
        self.draw = ImageDraw.Draw(self.im)
        self.paper, self.ink = paper, ink
        self.lines = []

    def px(self, mm):
        return mm * self.ppmm

    def text(self, x, y, s, f, fill=None, anchor="ls"):
        """One line of text at baseline y."""
        self.row([(x, s, f, anchor)], y, fill)

    def row(self, pieces, y, fill=None):
        """Pieces [(x, text, font, anchor[, fill])] drawn on one baseline, recorded as one
        line (the pieces joined by a space, left to right)."""
        pieces = [p for p in pieces if p[1].strip()]
        if not pieces:
            return
        boxes, texts = [], []
        for x, s, f, anchor, *own in pieces:
            self.draw.text((x, y), s, font=f, fill=(own[0] if own else fill) or self.ink, anchor=anchor)
            boxes.append(self.draw.textbbox((x, y), s, font=f, anchor=anchor))
        order = sorted(range(len(pieces)), key=lambda i: boxes[i][0])
        texts = [pieces[i][1] for i in order]
        box = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
               max(b[3] for b in boxes)]
        f0 = pieces[order[0]][2]
        self.lines.append(dict(text=" ".join(texts), box=box, px=round(float(f0.size), 2),
                               xh=round(x_height(f0), 2)))

    def justified(self, x, y, words, f, width, fill=None):
        """Words spread over the width (the last line of a paragraph is not)."""
        widths = [f.getlength(w) for w in words]
        gap = (width - sum(widths)) / max(1, len(words) - 1)
        cx = x
        for w, wd in zip(words, widths):
            self.draw.text((cx, y), w, font=f, fill=fill or self.ink, anchor="ls")
            cx += wd + gap
        box = [x, y - f.getmetrics()[0], x + width, y + f.getmetrics()[1]]
        self.lines.append(dict(text=" ".join(words), box=[round(v) for v in box],
                               px=round(float(f.size), 2), xh=round(x_height(f), 2)))

    def hline(self, x0, x1, y, width=2, fill=None):
        self.draw.line([(x0, y), (x1, y)], fill=fill or self.ink, width=max(1, round(width)))

    def rect(self, box, width=2, outline=None, fill=None):
        self.draw.rectangle(box, outline=outline if outline is not None else self.ink,
                            width=max(1, round(width)), fill=fill)


def wrap(words, f, width, first_width=None):
    """Greedy line breaking; the first line may be narrower (an indent)."""
    lines, cur, limit = [], [], first_width if first_width is not None else width
    for w in words:
        if cur and f.getlength(" ".join(cur + [w])) > limit:
            lines.append(cur)
            cur, limit = [w], width
        else:
            cur.append(w)
    if cur:
        lines.append(cur)
    return lines


class Flow:
    """Text poured into columns [(x, top, width, bottom)] line by line: paragraphs with an
    optional first-line indent, justified or ragged; when a column is full the next one
    starts; when the last is full the text stops (mid-paragraph, as on a real page)."""

    def __init__(self, c, cols, f, leading, justify=False, indent=0.0, para_gap=0.0, fill=None):
        self.c, self.cols, self.f, self.leading = c, cols, f, leading
        self.justify, self.indent, self.para_gap, self.fill = justify, indent, para_gap, fill
        self.col = 0
        self.y = cols[0][1] + f.getmetrics()[0]
        self.full = False

    def _advance(self, dy):
        if self.full:
            return
        self.y += dy
        if self.y > self.cols[self.col][3]:
            self.col += 1
            if self.col >= len(self.cols):
                self.full = True
                return
            self.y = self.cols[self.col][1] + self.f.getmetrics()[0]

    def heading(self, text, f):
        if self.full:
            return
        x, _, w, _ = self.cols[self.col]
        lines = wrap(text.split(), f, w)
        for ln in lines:
            if self.full:
                return
            self.c.text(x, self.y, " ".join(ln), f, self.fill)
            self._advance(f.size * 1.25)
        self._advance(self.leading * 0.3)

    def paragraph(self, text, first=False):
        if self.full:
            return
        x, _, w, _ = self.cols[self.col]
        ind = 0.0 if first else self.indent
        lines = wrap(text.split(), self.f, w, w - ind)
        for i, ln in enumerate(lines):
            if self.full:
                return
            x, _, w, _ = self.cols[self.col]
            dx = ind if i == 0 else 0.0
            last = i == len(lines) - 1
            if self.justify and not last and len(ln) > 1:
                self.c.justified(x + dx, self.y, ln, self.f, w - dx, self.fill)
            else:
                self.c.text(x + dx, self.y, " ".join(ln), self.f, self.fill)
            self._advance(self.leading)
        self._advance(self.para_gap)


def pick_family(fonts, lang, layout, rng):
    weights = LAYOUT_CLASSES[layout]
    cands = [f for f in fonts if lang in f["languages"] and f["cls"] in weights]
    w = np.array([weights[f["cls"]] for f in cands], float)
    return cands[int(rng.choice(len(cands), p=w / w.sum()))]


def paper_and_ink(rng, layout):
    """Paper a little off white (office paper reflects 85–95 %), ink black, dark grey or
    blue-black; thermal receipt print is grey."""
    p = int(rng.integers(236, 256))
    paper = (p, p - int(rng.integers(0, 5)), p - int(rng.integers(0, 10)))
    if layout == "receipt":
        g = int(rng.integers(30, 110))
        return paper, (g, g, g)
    kind = rng.random()
    if kind < 0.7:
        g = int(rng.integers(0, 40))
        return paper, (g, g, g)
    if kind < 0.9:
        return paper, (int(rng.integers(10, 40)), int(rng.integers(20, 50)), int(rng.integers(70, 120)))
    g = int(rng.integers(50, 90))
    return paper, (g, g, g)


def pts(c, pt):
    """Points to render pixels."""
    return pt * c.ppmm * 25.4 / 72.0


# --- the layouts -------------------------------------------------------------
# Each draws one page into a Canvas from the document's TextSource `T`, fonts `F`
# (regular, bold, italic paths) and generator `rng`; returns (canvas, body size in pt).


def sheet(rng, layout, width_mm=210, height_mm=297):
    """A blank page of the layout's paper and ink (A4 unless told), at the render resolution."""
    paper, ink = paper_and_ink(rng, layout)
    return Canvas(width_mm, height_mm, RENDER_DPI / 25.4, paper, ink)


def layout_letter(T, F, rng, lang):
    C = CAPTIONS[lang]
    c = sheet(rng, "letter")
    pt = float(rng.uniform(9.5, 12.5))
    body = font(F[0], pts(c, pt))
    bold = font(F[1], pts(c, pt))
    small = font(F[0], pts(c, pt * 0.7))
    left, right = c.px(rng.uniform(20, 27)), c.W - c.px(rng.uniform(15, 22))
    lead = body.size * rng.uniform(1.15, 1.45)
    # Letterhead: the sender's name, large, and an address line.
    y = c.px(rng.uniform(15, 25))
    head = font(F[1], pts(c, pt * rng.uniform(1.4, 2.2)))
    sender = T.name()
    if rng.random() < 0.5:
        c.text(right, y + head.size, sender, head, anchor="rs")
    else:
        c.text(left, y + head.size, sender, head)
    y += head.size * 1.6
    street = f"{T.word(True)} {int(rng.integers(1, 200))}"
    town = f"{int(rng.integers(10000, 99999))} {T.word(True)}"
    c.text(left, c.px(50), f"{sender} • {street} • {town}", small)
    # Recipient window and date.
    y = c.px(50) + lead * 1.2
    for s in (T.name(), f"{T.word(True)} {int(rng.integers(1, 300))}",
              f"{int(rng.integers(10000, 99999))} {T.word(True)}"):
        c.text(left, y, s, body)
        y += lead
    y += lead * 1.5
    c.text(right, y, f"{T.word(True)}, {date_text(lang, rng)}", body, anchor="rs")
    y += lead * 2
    c.text(left, y, f"{C['subject']}: {T.title(8)}" if rng.random() < 0.4 else T.title(8), bold)
    y += lead * 2
    c.text(left, y, C["dear"], body)
    y += lead * 1.5
    flow = Flow(c, [(left, y - body.getmetrics()[0], right - left, c.H - c.px(45))], body, lead,
                justify=bool(rng.random() < 0.4), para_gap=lead * 0.6)
    for _ in range(int(rng.integers(3, 8))):
        flow.paragraph(T.paragraph(12), first=True)
        if flow.full:
            break
    if not flow.full:
        flow._advance(lead * 0.5)
        if not flow.full:
            c.text(left, flow.y, C["regards"], body)
            flow._advance(lead * 3)
        if not flow.full:
            c.text(left, flow.y, sender, body)
    # Footer of small print.
    fy = c.H - c.px(rng.uniform(12, 20))
    c.text(left, fy, f"{C['phone']}: +{int(rng.integers(1, 99))} {int(rng.integers(100, 999))} "
           f"{int(rng.integers(100000, 9999999))} • {C['tax']} {int(rng.integers(10 ** 8, 10 ** 9))}", small)
    return c, pt


def layout_invoice(T, F, rng, lang):
    C = CAPTIONS[lang]
    c = sheet(rng, "invoice")
    pt = float(rng.uniform(8.0, 11.0))
    body, bold = font(F[0], pts(c, pt)), font(F[1], pts(c, pt))
    small = font(F[0], pts(c, pt * rng.uniform(0.7, 0.85)))
    left, right = c.px(rng.uniform(15, 25)), c.W - c.px(rng.uniform(15, 22))
    lead = body.size * rng.uniform(1.25, 1.5)
    y = c.px(rng.uniform(15, 25))
    head = font(F[1], pts(c, pt * rng.uniform(1.6, 2.4)))
    firm = T.name()
    y += head.size
    c.text(left, y, firm, head)
    y += small.size * 2.0
    c.text(left, y, f"{T.word(True)} {int(rng.integers(1, 200))} • {int(rng.integers(10000, 99999))} "
           f"{T.word(True)}", small)
    y += lead * 3
    for s in (T.name(), f"{T.word(True)} {int(rng.integers(1, 300))}",
              f"{int(rng.integers(10000, 99999))} {T.word(True)}"):
        c.text(left, y, s, body)
        y += lead
    y += lead * 2
    title = font(F[1], pts(c, pt * 1.5))
    c.text(left, y, f"{C['invoice']} {C['no']} {int(rng.integers(1000, 99999))}", title)
    y += lead * 1.6
    c.row([(left, f"{C['date']}: {date_text(lang, rng)}", body, "ls"),
           (right, f"{C['customer']}: {int(rng.integers(10000, 999999))}", body, "rs")], y)
    y += lead * 2
    # The table of items: position, description, quantity, unit price, amount.
    w = right - left
    xs = [left, left + 0.08 * w, right - 0.36 * w, right - 0.18 * w, right]
    grid = rng.random() < 0.4
    c.row([(xs[0], C["pos"], bold, "ls"), (xs[1], C["desc"], bold, "ls"),
           (xs[2] + 0.04 * w, C["qty"], bold, "rs"), (xs[3] + 0.04 * w, C["price"], bold, "rs"),
           (xs[4], C["amount"], bold, "rs")], y)
    c.hline(left, right, y + lead * 0.35, body.size * 0.08)
    y += lead * 1.2
    total = 0.0
    for i in range(int(rng.integers(3, 16))):
        qty = int(rng.choice([1, 1, 1, 2, 3, 4, 5, 10, 12, 20]))
        price = float(math.exp(rng.uniform(math.log(0.5), math.log(900))))
        amount = qty * round(price, 2)
        total += amount
        c.row([(xs[0], str(i + 1), body, "ls"), (xs[1], T.item(), body, "ls"),
               (xs[2] + 0.04 * w, str(qty), body, "rs"), (xs[3] + 0.04 * w, money(price, lang), body, "rs"),
               (xs[4], money(amount, lang), body, "rs")], y)
        if grid:
            c.hline(left, right, y + lead * 0.35, body.size * 0.04)
        y += lead
        if y > c.H - c.px(80):
            break
    c.hline(left, right, y - lead * 0.65, body.size * 0.08)
    y += lead * 0.6
    rate = int(rng.choice([7, 10, 19, 20]))
    for cap, val, f in ((C["subtotal"], total, body), (f"{C['vat']} {rate} %", total * rate / 100, body),
                        (C["total"], total * (1 + rate / 100), bold)):
        c.row([(xs[2], cap, f, "ls"), (xs[4], money(val, lang), f, "rs")], y)
        y += lead
    y += lead * 1.5
    flow = Flow(c, [(left, y, right - left, c.H - c.px(15))], small, small.size * 1.3, para_gap=small.size * 0.5)
    for _ in range(int(rng.integers(1, 3))):
        flow.paragraph(T.paragraph(15), first=True)
    return c, pt


def layout_form(T, F, rng, lang):
    C = CAPTIONS[lang]
    c = sheet(rng, "form")
    pt = float(rng.uniform(8.5, 11.5))
    body = font(F[0], pts(c, pt))
    # Filled-in values: another family's regular or italic style, often blue, as typed or
    # printed into a form.
    fill_path = F[2] if rng.random() < 0.5 else F[0]
    value = font(fill_path, pts(c, pt * rng.uniform(1.0, 1.2)))
    blue = (int(rng.integers(10, 40)), int(rng.integers(30, 70)), int(rng.integers(120, 180)))
    vcol = blue if rng.random() < 0.5 else c.ink
    left, right = c.px(rng.uniform(15, 25)), c.W - c.px(rng.uniform(15, 22))
    lead = body.size * 1.4
    y = c.px(rng.uniform(18, 28))
    title = font(F[1], pts(c, pt * rng.uniform(1.5, 2.2)))
    for ln in wrap(T.title(9).split(), title, right - left):
        c.text(left, y + title.size, " ".join(ln), title)
        y += title.size * 1.3
    y += lead
    flow = Flow(c, [(left, y, right - left, y + lead * 6)], body, lead, para_gap=lead * 0.3)
    flow.paragraph(T.paragraph(12), first=True)
    y = flow.y + lead
    boxed = rng.random() < 0.5
    fields = [C["name"], C["address"], C["city"], C["code"], C["birth"], C["phone"], C["date"]]
    if lang != "rus":                     # a Cyrillic e-mail address would be no real one
        fields.append(C["email"])
    fields = [fields[i] for i in sorted(rng.permutation(len(fields))[:int(rng.integers(4, 9))])]
    fields += [T.word(True) for _ in range(int(rng.integers(1, 7)))]
    half = (right - left) / 2
    col = 0
    for cap in fields:
        if y > c.H - c.px(60):
            break
        two = rng.random() < 0.35
        x0 = left + col * half
        x1 = x0 + (half if two else right - left) - c.px(4)
        if cap in (C["date"], C["birth"]):
            val = date_text(lang, rng)
        elif cap == C["phone"]:
            val = f"+{int(rng.integers(1, 99))} {int(rng.integers(100, 999))} {int(rng.integers(100000, 9999999))}"
        elif cap == C["code"]:
            val = str(int(rng.integers(10000, 99999)))
        elif cap == C["email"]:
            val = f"{T.word().lower()}@{T.word().lower()}.{rng.choice(['de', 'ru', 'com', 'org'])}"
        else:
            val = " ".join(T.word(True) if rng.random() < 0.6 else T.word() for _ in range(int(rng.integers(1, 4))))
        filled = rng.random() < 0.85
        if boxed:
            c.text(x0, y, cap, font(F[0], pts(c, pt * 0.8)))
            yb = y + lead * 0.3
            c.rect([x0, yb, x1, yb + lead * 1.3], width=body.size * 0.05)
            if filled:
                c.text(x0 + c.px(2), yb + lead * 1.0, val, value, fill=vcol)
            dy = lead * 2.4
        else:
            cw = body.getlength(cap + ":") + c.px(3)
            c.row([(x0, cap + ":", body, "ls")] + ([(x0 + cw, val, value, "ls", vcol)] if filled else []), y)
            c.hline(x0 + cw - c.px(1), x1, y + body.size * 0.25, body.size * 0.04)
            dy = lead * 1.6
        if two and col == 0:
            col = 1
        else:
            col = 0
            y += dy
    if col == 1:
        y += lead * 2
    # Check boxes with captions, and a signature line.
    y += lead * 0.5
    for _ in range(int(rng.integers(2, 7))):
        if y > c.H - c.px(45):
            break
        s = body.size * 0.8
        c.rect([left, y - s, left + s, y], width=body.size * 0.06)
        if rng.random() < 0.5:
            c.draw.line([(left, y - s), (left + s, y)], fill=vcol, width=max(1, round(s * 0.12)))
            c.draw.line([(left, y), (left + s, y - s)], fill=vcol, width=max(1, round(s * 0.12)))
        c.text(left + s * 1.8, y, T.sentence(10), body)
        y += lead * 1.4
    y = max(y + lead * 2, c.H - c.px(35))
    c.hline(left, left + c.px(60), y, body.size * 0.05)
    c.hline(right - c.px(60), right, y, body.size * 0.05)
    small = font(F[0], pts(c, pt * 0.8))
    c.row([(left, f"{C['place']}, {C['date']}", small, "ls"),
           (right - c.px(60), C["signature"], small, "ls")], y + small.size * 1.3)
    return c, pt


def layout_receipt(T, F, rng, lang):
    """A till receipt on 80 mm thermal paper (72 mm printed), as long as its items need."""
    C = CAPTIONS[lang]
    paper, ink = paper_and_ink(rng, "receipt")
    n_items = int(rng.integers(3, 25))
    pt = float(rng.uniform(7.5, 10.0))
    ppmm = RENDER_DPI / 25.4
    px = pt * ppmm * 25.4 / 72
    lead = px * rng.uniform(1.2, 1.45)
    h_mm = (lead * (n_items * 1.3 + 22)) / ppmm + 20
    c = Canvas(80, h_mm, ppmm, paper, ink)
    body = font(F[0], px)
    big = font(F[1], px * rng.uniform(1.3, 1.8))
    left, right, mid = c.px(4), c.W - c.px(4), c.W / 2
    upper = rng.random() < 0.4           # many tills print in capitals
    cap = (lambda s: s.upper()) if upper else (lambda s: s)
    y = c.px(8) + big.size
    c.text(mid, y, cap(T.name()), big, anchor="ms")
    y += lead * 1.4
    c.text(mid, y, cap(f"{T.word(True)} {int(rng.integers(1, 200))}"), body, anchor="ms")
    y += lead
    c.text(mid, y, cap(f"{int(rng.integers(10000, 99999))} {T.word(True)}"), body, anchor="ms")
    y += lead
    c.text(mid, y, f"{C['tax']} {int(rng.integers(10 ** 8, 10 ** 10))}", body, anchor="ms")
    y += lead * 1.3
    c.hline(left, right, y - lead * 0.5, px * 0.08)
    y += lead * 0.3
    total = 0.0
    for _ in range(n_items):
        price = float(math.exp(rng.uniform(math.log(0.3), math.log(60))))
        qty = int(rng.choice([1, 1, 1, 1, 2, 3, 6]))
        amount = qty * round(price, 2)
        total += amount
        name = cap(T.item())
        while body.getlength(name) > (right - left) * 0.7 and " " in name:
            name = name.rsplit(" ", 1)[0]
        c.row([(left, name, body, "ls"), (right, money(amount, lang), body, "rs")], y)
        y += lead
        if qty > 1:
            c.text(left + c.px(4), y, f"{qty} x {money(price, lang)}", body)
            y += lead
    c.hline(left, right, y - lead * 0.5, px * 0.08)
    y += lead * 0.5
    c.row([(left, cap(C["total"]), big, "ls"), (right, money(total, lang), big, "rs")], y + big.size * 0.3)
    y += lead * 1.8
    paid = math.ceil(total / 5) * 5
    c.row([(left, cap(C["cash"]), body, "ls"), (right, money(paid, lang), body, "rs")], y)
    y += lead
    c.row([(left, cap(C["change"]), body, "ls"), (right, money(paid - total, lang), body, "rs")], y)
    y += lead * 1.5
    c.row([(left, date_text(lang, rng), body, "ls"),
           (right, f"{int(rng.integers(7, 22)):02d}:{int(rng.integers(0, 60)):02d}", body, "rs")], y)
    y += lead * 1.5
    c.text(mid, y, cap(C["thanks"]), body, anchor="ms")
    y += lead * 1.5
    # Crop the paper to what was printed.
    c.H = min(c.H, round(y + c.px(10)))
    c.h_mm = c.H / ppmm
    c.im = c.im.crop((0, 0, c.W, c.H))
    c.draw = ImageDraw.Draw(c.im)
    return c, pt


def layout_book(T, F, rng, lang):
    """A page of a book (A5): running head, justified serif text with indented paragraphs,
    sometimes a chapter opening, a page number."""
    c = sheet(rng, "book", 148, 210)
    pt = float(rng.uniform(9.0, 12.0))
    body = font(F[0], pts(c, pt))
    ital = font(F[2], pts(c, pt * 0.85))
    inner, outer = c.px(rng.uniform(15, 22)), c.px(rng.uniform(12, 18))
    left_page = rng.random() < 0.5
    left = outer if left_page else inner
    right = c.W - (inner if left_page else outer)
    top, bottom = c.px(rng.uniform(16, 22)), c.H - c.px(rng.uniform(18, 25))
    lead = body.size * rng.uniform(1.15, 1.35)
    page_no = str(int(rng.integers(5, 480)))
    c.text((left + right) / 2, top - c.px(6), T.title(5), ital, anchor="ms")
    flow_top = top
    if rng.random() < 0.3:
        head = font(F[1], pts(c, pt * rng.uniform(1.4, 2.0)))
        y = top + c.px(rng.uniform(15, 40))
        for ln in wrap(T.title(6).split(), head, right - left):
            c.text(left, y, " ".join(ln), head)
            y += head.size * 1.3
        flow_top = y + lead
    flow = Flow(c, [(left, flow_top, right - left, bottom)], body, lead, justify=True,
                indent=body.size * rng.uniform(1.0, 2.0))
    first = True
    while not flow.full:
        flow.paragraph(T.paragraph(), first=first)
        first = False
    c.text((left + right) / 2, c.H - c.px(10), page_no, body, anchor="ms")
    return c, pt


def layout_slide(T, F, rng, lang):
    """A presentation slide shown on a 24-inch 16:9 monitor (531 × 299 mm), rendered at
    2400 px wide; type sizes in points of a 13.33 × 7.5 inch slide."""
    kind = rng.random()
    if kind < 0.55:
        p = int(rng.integers(240, 256))
        bg, ink = (p, p, p), (int(rng.integers(0, 50)),) * 3
    elif kind < 0.8:
        bg = tuple(int(v) for v in rng.integers(200, 250, 3))
        ink = tuple(int(v) for v in rng.integers(0, 60, 3))
    else:                                 # light text on a dark background
        bg = tuple(int(v) for v in rng.integers(10, 70, 3))
        ink = tuple(int(v) for v in rng.integers(215, 256, 3))
    c = Canvas(531, 299, 2400 / 531, bg, ink)
    pt2px = 2400 / (13.333 * 72)
    pt = float(rng.uniform(18, 30))
    body = font(F[0], pt * pt2px)
    title = font(F[1], pt * pt2px * rng.uniform(1.3, 1.7))
    left, right = c.W * rng.uniform(0.05, 0.09), c.W * rng.uniform(0.91, 0.95)
    y = c.H * rng.uniform(0.08, 0.14)
    if rng.random() < 0.35:              # a coloured title bar with light text
        bar = tuple(int(v) for v in rng.integers(20, 120, 3))
        lines = wrap(T.title(8).split(), title, right - left)[:2]
        c.draw.rectangle([0, 0, c.W, y + title.size * (1.3 * len(lines) + 0.2)], fill=bar)
        for ln in lines:
            c.text(left, y + title.size, " ".join(ln), title, fill=(245, 245, 245))
            y += title.size * 1.3
    else:
        for ln in wrap(T.title(8).split(), title, right - left)[:2]:
            c.text(left, y + title.size, " ".join(ln), title)
            y += title.size * 1.3
    y += title.size * 0.9
    lead = body.size * 1.25
    bullet_x = left + body.size * 1.2
    for _ in range(int(rng.integers(3, 7))):
        lines = wrap(T.sentence(int(rng.integers(4, 16))).split(), body, right - bullet_x)
        if y + lead * len(lines) > c.H * 0.9:
            break
        y += body.size
        r = body.size * 0.14
        cy = y - x_height(body) / 2
        c.draw.ellipse([left + r, cy - r, left + 3 * r, cy + r], fill=c.ink)
        for ln in lines:
            c.text(bullet_x, y, " ".join(ln), body)
            y += lead
        y += lead * 0.35 - body.size
    foot = font(F[0], 12 * pt2px)
    c.row([(left, T.title(4), foot, "ls"), (right, str(int(rng.integers(2, 40))), foot, "rs")], c.H * 0.96)
    return c, pt


def layout_columns(T, F, rng, lang):
    """A page of a journal or a newsletter: a title across, then two or three columns."""
    c = sheet(rng, "columns")
    pt = float(rng.uniform(8.0, 10.5))
    body, bold = font(F[0], pts(c, pt)), font(F[1], pts(c, pt * 1.1))
    left, right = c.px(rng.uniform(14, 20)), c.W - c.px(rng.uniform(14, 20))
    top, bottom = c.px(rng.uniform(15, 22)), c.H - c.px(rng.uniform(15, 22))
    y = top
    title = font(F[1], pts(c, pt * rng.uniform(1.8, 2.8)))
    for ln in wrap(T.title(9).split(), title, right - left)[:2]:
        c.text(left, y + title.size, " ".join(ln), title)
        y += title.size * 1.25
    if rng.random() < 0.6:
        ital = font(F[2], pts(c, pt * 1.05))
        y += ital.size * 0.6
        c.text(left, y + ital.size, T.name(), ital)
        y += ital.size * 1.5
    y += c.px(6)
    if rng.random() < 0.5:
        c.hline(left, right, y - c.px(3), body.size * 0.06)
    n = int(rng.choice([2, 2, 3]))
    gap = c.px(rng.uniform(5, 8))
    cw = (right - left - gap * (n - 1)) / n
    cols = [(left + i * (cw + gap), y, cw, bottom) for i in range(n)]
    if rng.random() < 0.4:
        for i in range(1, n):
            x = left + i * (cw + gap) - gap / 2
            c.draw.line([(x, y), (x, bottom)], fill=c.ink, width=max(1, round(body.size * 0.04)))
    lead = body.size * rng.uniform(1.12, 1.3)
    flow = Flow(c, cols, body, lead, justify=bool(rng.random() < 0.7),
                indent=body.size * 1.2, para_gap=lead * float(rng.choice([0, 0.3])))
    first = True
    while not flow.full:
        if not first and rng.random() < 0.2:
            flow._advance(lead * 0.5)
            flow.heading(T.title(5), bold)
            first = True
        flow.paragraph(T.paragraph(), first=first)
        first = False
    return c, pt


def layout_table(T, F, rng, lang):
    """A data table: title, a line of text, a header row and rows of names, numbers, dates
    and codes; full grid, rules only, or zebra rows."""
    c = sheet(rng, "table")
    pt = float(rng.uniform(7.5, 10.5))
    body, bold = font(F[0], pts(c, pt)), font(F[1], pts(c, pt))
    left, right = c.px(rng.uniform(14, 22)), c.W - c.px(rng.uniform(14, 22))
    y = c.px(rng.uniform(15, 25))
    title = font(F[1], pts(c, pt * rng.uniform(1.4, 2.0)))
    for ln in wrap(T.title(8).split(), title, right - left)[:2]:
        c.text(left, y + title.size, " ".join(ln), title)
        y += title.size * 1.3
    y += c.px(3)
    flow = Flow(c, [(left, y, right - left, y + body.size * 6)], body, body.size * 1.3)
    flow.paragraph(T.paragraph(), first=True)
    y = flow.y + body.size
    ncol = int(rng.integers(4, 8))
    kinds = ["text"] + [str(rng.choice(["int", "money", "date", "code", "word", "pct"])) for _ in range(ncol - 1)]
    heads = [T.word(True) for _ in range(ncol)]
    style = str(rng.choice(["grid", "rules", "zebra"]))
    lead = body.size * rng.uniform(1.5, 1.9)
    # Column widths from the widest cell each kind may hold.
    sample = {"text": "M" * 16, "int": "000000", "money": "000 000,00", "date": "00.00.0000",
              "code": "MM-0000", "word": "M" * 11, "pct": "00,0 %"}
    widths = np.array([max(body.getlength(sample[k]), bold.getlength(h)) + c.px(4) for k, h in zip(kinds, heads)])
    widths *= (right - left) / widths.sum()
    xs = left + np.concatenate([[0], np.cumsum(widths)])

    def cell(k):
        if k == "text":
            return T.item()
        if k == "int":
            return str(int(rng.integers(0, 100000)))
        if k == "money":
            return money(float(math.exp(rng.uniform(0, math.log(50000)))), lang)
        if k == "date":
            return date_text(lang, rng)
        if k == "code":
            return f"{T.word(True)[:2].upper()}-{int(rng.integers(100, 9999))}"
        if k == "pct":
            return f"{rng.uniform(0, 100):.1f} %".replace(".", "," if lang != "eng" else ".")
        return T.word()

    def draw_row(vals, f, y):
        pieces = []
        for i, (v, k) in enumerate(zip(vals, kinds)):
            while f.getlength(v) > widths[i] - c.px(3) and " " in v:
                v = v.rsplit(" ", 1)[0]
            if k in ("int", "money", "pct"):
                pieces.append((xs[i + 1] - c.px(1.5), v, f, "rs"))
            else:
                pieces.append((xs[i] + c.px(1.5), v, f, "ls"))
        c.row(pieces, y)

    row_top = y
    rows = int(rng.integers(8, 36))
    for r in range(rows + 1):
        if y + lead > c.H - c.px(20):
            break
        base = y + lead * 0.68
        if style == "zebra" and r % 2 == 1:
            g = tuple(max(0, v - int(rng.integers(12, 28))) for v in c.paper)
            c.draw.rectangle([left, y, right, y + lead], fill=g)
        if r == 0:
            draw_row(heads, bold, base)
        else:
            draw_row([cell(k) for k in kinds], body, base)
        y += lead
        if style != "zebra" or r == 0:
            c.hline(left, right, y, body.size * (0.08 if r == 0 else 0.04))
    if style == "grid":
        for x in xs:
            c.draw.line([(x, row_top), (x, y)], fill=c.ink, width=max(1, round(body.size * 0.04)))
        c.hline(left, right, row_top, body.size * 0.04)
    return c, pt


LAYOUT_FUNCS = {"letter": layout_letter, "invoice": layout_invoice, "form": layout_form,
                "receipt": layout_receipt, "book": layout_book, "slide": layout_slide,
                "columns": layout_columns, "table": layout_table}


def render_document(doc, seed, fonts, pools):
    """Draws a document's page: (canvas, body pt, family, TextSource)."""
    key = (seed, "page-corpus", doc["id"])
    rng = ds.rng_for(*key, "layout")
    fam = pick_family(fonts, doc["lang"], doc["layout"], rng)
    T = TextSource(doc["lang"], pools[(doc["lang"], doc["split"])], ds.rng_for(*key, "text"))
    c, pt = LAYOUT_FUNCS[doc["layout"]](T, fam["paths"], rng, doc["lang"])
    return c, pt, fam, T


# --------------------------------------------------------------------------
# The capture: a phone, a phone whose photo a messenger resends, or a flatbed scanner
# --------------------------------------------------------------------------
# Light is linear throughout: the page's sRGB values are decoded to reflectance, lit,
# blurred by the optics, counted by the sensor as photons with read noise, then given the
# camera's tone curve and sRGB encoding (camera.py's sensor and tone curve).

CAPTURES = ("scan", "phone", "messenger")
CAPTURE_SHARE = {"scan": 0.17, "phone": 0.55, "messenger": 0.28}
PHONE_SIZES = ((4000, 0.3), (3000, 0.3), (2048, 0.2), (1600, 0.2))   # long side, share
# Telegram sends 1280 px, WhatsApp 1600 px by default; 1024 px is a data-saving setting.
MESSENGER_SIZES = ((1280, 0.55), (1600, 0.35), (1024, 0.1))
MESSENGER_SOURCE = 2048      # the phone photo a messenger downsizes is simulated at this size
SCAN_DPI = ((150, 0.25), (200, 0.35), (300, 0.4))
PHONE_JPEG = (85, 95)         # a phone camera's own JPEG quality
MESSENGER_JPEG = (60, 82)     # a messenger's re-encode
SCAN_JPEG = (75, 95)
PITCH_SD, YAW_SD, ROLL_SD = 9.0, 7.0, 3.5   # tilt of a handheld phone, degrees (normal)
PHONE_HFOV = (60.0, 72.0)     # field of view across the long side, degrees (26–28 mm equivalent)
FOCAL_MM = 4.3                # a phone main camera's focal length, for the depth of field
F_NUMBER = (1.6, 2.2)
LUX = (8.0, 2000.0)           # light on the page, log-uniform: dim room … daylight by a window
LUX_SECONDS = 5.0             # lux·s at which a base-ISO exposure reaches the metered level
                              # (500 lux → 1/100 s, the exposure of a phone in office light)
T_MAX = (1 / 30, 1 / 8)       # longest exposure the camera allows itself (without / with OIS)
SHAKE_DEG_S = (0.15, 3.0)     # hand shake, angular speed in °/s, log-uniform
FULL_WELL_4000 = (3000.0, 12000.0)   # electrons at white per pixel of a 12 MP phone sensor
READ_NOISE = (1.5, 4.0)       # electrons RMS per such pixel


def weighted(rng, table):
    vals = [v for v, _ in table]
    p = np.array([w for _, w in table], float)
    return vals[int(rng.choice(len(vals), p=p / p.sum()))]


def rot(pitch, yaw, roll):
    a, b, g = (math.radians(v) for v in (pitch, yaw, roll))
    rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    rz = np.array([[math.cos(g), -math.sin(g), 0], [math.sin(g), math.cos(g), 0], [0, 0, 1]])
    return rz @ rx @ ry


def surface(layout, w_mm, h_mm, rng):
    """The page's height above the table (mm, towards the camera) as a function of page
    coordinates (u, v) in mm from the page centre, and its parameters. A sheet lies
    bent (a parabola across one axis), a book page rises towards its spine, a receipt
    curls across its width; any of them may have a lifted corner."""
    p = {}
    terms = []
    if layout == "slide":
        return (lambda u, v: np.zeros_like(u)), {"bend_mm": 0.0}
    if layout == "book":
        a = float(rng.uniform(3, 25))
        lam = float(rng.uniform(15, 40))
        side = 1.0 if rng.random() < 0.5 else -1.0
        terms.append(lambda u, v: a * np.exp(-np.clip(w_mm / 2 - side * u, 0, None) / lam))
        p.update(spine_lift_mm=a, spine_width_mm=lam, spine_side="right" if side > 0 else "left")
    sigma = {"receipt": 8.0, "book": 2.0}.get(layout, 4.0)
    bend = float(np.clip(rng.normal(0, sigma), -2.5 * sigma, 2.5 * sigma))
    across = layout == "receipt" or rng.random() < 0.5
    half = (w_mm if across else h_mm) / 2
    terms.append((lambda u, v: bend * (u / half) ** 2) if across else (lambda u, v: bend * (v / half) ** 2))
    p.update(bend_mm=bend, bend_axis="width" if across else "height")
    if rng.random() < 0.2:
        lift = float(rng.uniform(3, 20))
        size = float(rng.uniform(30, 90))
        cu = w_mm / 2 * (1 if rng.random() < 0.5 else -1)
        cv = h_mm / 2 * (1 if rng.random() < 0.5 else -1)
        terms.append(lambda u, v: lift * np.clip(1 - np.hypot(u - cu, v - cv) / size, 0, None) ** 2)
        p.update(corner_lift_mm=lift, corner_size_mm=size)
    # Beyond the page the surface goes on level with the edge of its extended area (only
    # the page's part is seen; the clamp keeps the inverse map bounded).
    def height(u, v):
        u = np.clip(u, -0.75 * w_mm, 0.75 * w_mm)
        v = np.clip(v, -0.75 * h_mm, 0.75 * h_mm)
        return sum(t(u, v) for t in terms)
    return height, p


def occluder_mask(W, H, rng):
    """The shadow of the hand and phone over the page: a rounded phone-sized block reaching
    in from one edge of the frame, with the arm behind it to that edge, drawn at low
    resolution and softened. 1 = in full shadow."""
    s = 256 / max(W, H)
    w, h = max(8, round(W * s)), max(8, round(H * s))
    im = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(im)
    edge = int(rng.integers(4))
    depth = float(rng.uniform(0.15, 0.55))          # how far in the shadow reaches
    pos = float(rng.uniform(0.15, 0.85))
    bw = float(rng.uniform(0.25, 0.5))              # width of the phone's shadow
    arm = float(rng.uniform(0.12, 0.22))
    if edge in (0, 2):                               # from the top or the bottom
        cx, half, armh = pos * w, bw * w / 2, arm * w / 2
        y_in = depth * h
        if edge == 0:
            d.rounded_rectangle([cx - half, -h, cx + half, y_in], radius=half * 0.3, fill=255)
            d.rectangle([cx - armh, -h, cx + armh, 0], fill=255)
        else:
            d.rounded_rectangle([cx - half, h - y_in, cx + half, 2 * h], radius=half * 0.3, fill=255)
    else:
        cy, half = pos * h, bw * h / 2
        x_in = depth * w
        if edge == 3:
            d.rounded_rectangle([-w, cy - half, x_in, cy + half], radius=half * 0.3, fill=255)
        else:
            d.rounded_rectangle([w - x_in, cy - half, 2 * w, cy + half], radius=half * 0.3, fill=255)
    m = np.asarray(im, np.float32) / 255.0
    return m, dict(shadow_edge=["top", "right", "bottom", "left"][edge], shadow_reach=depth,
                   shadow_width=bw)


def background(W, H, rng, dark=False):
    """What lies around the page: a desk or table, smooth variation and a fine texture,
    in linear reflectance."""
    kind = rng.random()
    if dark or kind < 0.25:
        base = rng.uniform(0.02, 0.08, 3)
    elif kind < 0.6:
        base = np.array([0.35, 0.2, 0.1]) * rng.uniform(0.4, 1.2)   # wood
    elif kind < 0.85:
        base = np.full(3, rng.uniform(0.1, 0.4))
    else:
        base = rng.uniform(0.3, 0.7, 3)
    wl, hl = max(4, W // 32), max(4, H // 32)
    field = ndimage.gaussian_filter(rng.normal(0, 1, (hl, wl)), 6)
    field = cam.resize_float((1 + 0.1 * field / max(1e-6, field.std())).astype(np.float32), W, H,
                             Image.Resampling.BILINEAR)
    tex = 1 + 0.04 * rng.normal(0, 1, (H, W)).astype(np.float32)
    return np.clip(field * tex, 0.2, 2)[:, :, None] * base.astype(np.float32)[None, None, :]


def unsharp(u8, amount, sigma):
    """A phone's sharpening: x + a·(x − G_σ·x), on the sRGB values."""
    if amount <= 0:
        return u8
    x = u8.astype(np.float32)
    b = ndimage.gaussian_filter(x, (sigma, sigma, 0))
    return np.clip(np.round(x + amount * (x - b)), 0, 255).astype(np.uint8)


def page_linear(c):
    return cam.SRGB_DECODE[np.asarray(c.im)]


def prefilter(lin, ppmm_from, ppmm_to):
    """Area-average the page down to about the finest scale at which the capture sees it
    (never up), so that sampling it does not alias more than a camera's would."""
    if ppmm_to >= ppmm_from * 0.95:
        return lin, ppmm_from
    H, W = lin.shape[:2]
    w, h = max(2, round(W * ppmm_to / ppmm_from)), max(2, round(H * ppmm_to / ppmm_from))
    return cam.resize_float(lin, w, h), ppmm_from * w / W


def sample(lin, ppmm, u_mm, v_mm):
    """The page's reflectance at page coordinates (mm from the top-left corner), bilinear."""
    cu = u_mm * ppmm - 0.5
    cv = v_mm * ppmm - 0.5
    out = np.empty(u_mm.shape + (3,), np.float32)
    for ch in range(3):
        out[:, :, ch] = ndimage.map_coordinates(lin[:, :, ch], [cv, cu], order=1, mode="nearest")
    return out


def blur_levels(s, radii, weights_map, shake, mtf_sigma):
    """Optical blur that varies over the frame: the image through a disk of each radius in
    `radii` (defocus), convolved with the shake path and the lens' Gaussian; between
    levels, linear blending by `weights_map` (fractional index into radii)."""
    outs = []
    g = None
    if mtf_sigma > 0:
        R = max(1, int(math.ceil(3 * mtf_sigma)))
        y, x = np.mgrid[-R:R + 1, -R:R + 1]
        g = np.exp(-(x * x + y * y) / (2 * mtf_sigma ** 2))
        g /= g.sum()
    for r in radii:
        k = ds.disk_kernel(max(r, 0.1))     # below 0.1 px: a single pixel
        if shake is not None:
            k = signal.convolve2d(k, shake)
        if g is not None:
            k = signal.convolve2d(k, g)
        outs.append(np.clip(ds.convolve(s, (k / k.sum()).astype(np.float32)), 0, None).astype(np.float32))
    if len(outs) == 1:
        return outs[0]
    idx = np.clip(weights_map, 0, len(outs) - 1)
    lo = np.floor(idx).astype(np.int32)
    lo = np.minimum(lo, len(outs) - 2)
    t = (idx - lo)[:, :, None].astype(np.float32)
    res = np.zeros_like(outs[0])
    for i in range(len(outs) - 1):
        m = (lo == i)[:, :, None]
        res += np.where(m, outs[i] * (1 - t) + outs[i + 1] * t, 0)
    return res


def phone_shot(c, layout, long_side, rng, noise_rng, maps=None):
    """A handheld phone photo of the page: returns (8-bit sRGB frame, params, px per mm).
    If `maps` (a dict) is given, it receives "u" and "v": for each frame pixel the page
    point it shows, in mm from the page's top-left corner (Scripts/datasets/structure.py
    maps its truth boxes through them); the photo is the same either way."""
    p = {}
    portrait = layout != "slide"
    L = long_side
    S = round(L * 3 / 4)
    W, H = (S, L) if portrait else (L, S)
    hfov = float(rng.uniform(*PHONE_HFOV))
    f_px = (L / 2) / math.tan(math.radians(hfov / 2))
    # Framing: the page fills `fill` of the frame in its tighter direction, 0.5–0.97 with
    # the density rising towards a full frame (people fill the screen with the page they
    # photograph: fill = 0.5 + 0.47·U^0.6); the phone is held roughly parallel to the page,
    # tilted by a few degrees (pitch, yaw) and turned a little (roll).
    fill = 0.5 + 0.47 * float(rng.random()) ** 0.6
    pitch = float(np.clip(rng.normal(0, PITCH_SD), -30, 30))
    yaw = float(np.clip(rng.normal(0, YAW_SD), -25, 25))
    roll = float(np.clip(rng.normal(0, ROLL_SD), -12, 12))
    R = rot(pitch, yaw, roll)
    w_mm, h_mm = c.w_mm, c.h_mm
    height, sp = surface(layout, w_mm, h_mm, rng)
    p.update(sp)

    def project(u, v, z0, tx, ty):
        pts3 = R @ np.stack([u.ravel(), v.ravel(), -height(u, v).ravel()]) + np.array([[tx], [ty], [z0]])
        return (f_px * pts3[0] / pts3[2] + W / 2).reshape(u.shape), \
               (f_px * pts3[1] / pts3[2] + H / 2).reshape(u.shape), pts3[2].reshape(u.shape)

    eu = np.linspace(-w_mm / 2, w_mm / 2, 9)
    ev = np.linspace(-h_mm / 2, h_mm / 2, 9)
    border_u = np.concatenate([eu, eu, np.full(9, -w_mm / 2), np.full(9, w_mm / 2)])
    border_v = np.concatenate([np.full(9, -h_mm / 2), np.full(9, h_mm / 2), ev, ev])
    z0 = f_px * max(w_mm / W, h_mm / H) / fill
    for _ in range(4):                    # distance so the page fills `fill` of the frame
        x, y, _ = project(border_u, border_v, z0, 0, 0)
        size = max((x.max() - x.min()) / W, (y.max() - y.min()) / H)
        z0 *= size / fill
    x, y, _ = project(border_u, border_v, z0, 0, 0)
    room_x = max(0.0, (W - (x.max() - x.min())) / 2 - 0.01 * W)
    room_y = max(0.0, (H - (y.max() - y.min())) / 2 - 0.01 * H)
    cx_off = (W / 2 - (x.max() + x.min()) / 2) + float(rng.uniform(-0.8, 0.8)) * room_x
    cy_off = (H / 2 - (y.max() + y.min()) / 2) + float(rng.uniform(-0.8, 0.8)) * room_y
    tx, ty = cx_off * z0 / f_px, cy_off * z0 / f_px
    p.update(hfov_deg=hfov, fill=fill, pitch_deg=pitch, yaw_deg=yaw, roll_deg=roll,
             distance_mm=z0)

    # A mesh over the page and a quarter beyond each edge: its projection gives the
    # page's scale in the frame (below).
    nu, nv = (96, 128) if portrait else (128, 72)
    mu = np.linspace(-0.75 * w_mm, 0.75 * w_mm, nu)
    mv = np.linspace(-0.75 * h_mm, 0.75 * h_mm, nv)
    MU, MV = np.meshgrid(mu, mv)
    inside = (np.abs(MU) <= w_mm / 2) & (np.abs(MV) <= h_mm / 2)
    px_, py_, pz_ = project(MU, MV, z0, tx, ty)
    if pz_.min() < 0.2 * z0:
        raise RuntimeError("page surface reaches the camera")
    # Inverse map on a coarse grid of the frame (every 8 px, bilinear in between): each
    # grid point's ray meets the flat page plane at (u, v); the bent surface is then
    # followed by fixed-point steps (u, v) += flat⁻¹(x, y) − flat⁻¹(project(u, v)).
    step = 8
    gw, gh = math.ceil(W / step), math.ceil(H / step)
    gx = (np.arange(gw) + 0.5) * W / gw - 0.5
    gy = (np.arange(gh) + 0.5) * H / gh - 0.5
    GX, GY = np.meshgrid(gx, gy)
    t_vec = np.array([tx, ty, z0])
    nrm = R[:, 2]

    def flat_inverse(x, y):
        d = np.stack([(x.ravel() - W / 2) / f_px, (y.ravel() - H / 2) / f_px, np.ones(x.size)])
        lam = float(nrm @ t_vec) / (nrm @ d)
        q = R.T @ (lam * d - t_vec[:, None])
        return q[0].reshape(x.shape), q[1].reshape(x.shape)

    gu0, gv0 = flat_inverse(GX, GY)
    gu, gv = gu0.copy(), gv0.copy()
    for _ in range(8):
        xq, yq, _ = project(gu, gv, z0, tx, ty)
        fu, fv = flat_inverse(xq, yq)
        gu, gv = gu + (gu0 - fu), gv + (gv0 - fv)
    xq, yq, zg = project(gu, gv, z0, tx, ty)
    p["map_residual_px"] = float(np.hypot(xq - GX, yq - GY).max())
    um = cam.resize_float(gu.astype(np.float32), W, H, Image.Resampling.BILINEAR)
    vm = cam.resize_float(gv.astype(np.float32), W, H, Image.Resampling.BILINEAR)

    # Scale: the page's area in the frame gives its mean px per mm; its largest local
    # scale sets the prefilter.
    pu = np.abs(np.diff(px_, axis=1)) / (mu[1] - mu[0])
    pv = np.abs(np.diff(py_, axis=0)) / (mv[1] - mv[0])
    s_max = float(max(pu[inside[:, 1:]].max(), pv[inside[1:, :]].max()))
    xc, yc, _ = project(np.array([-w_mm / 2, w_mm / 2, w_mm / 2, -w_mm / 2]),
                        np.array([-h_mm / 2, -h_mm / 2, h_mm / 2, h_mm / 2]), z0, tx, ty)
    area = 0.5 * abs(np.dot(xc, np.roll(yc, 1)) - np.dot(yc, np.roll(xc, 1)))
    s_mean = math.sqrt(area / (w_mm * h_mm))
    p.update(px_per_mm=s_mean, px_per_mm_max=s_max)

    lin, ppmm = prefilter(page_linear(c), c.ppmm, s_max)
    U_ = um + w_mm / 2
    V_ = vm + h_mm / 2
    if maps is not None:
        maps["u"], maps["v"] = U_, V_
    rho = sample(lin, ppmm, U_, V_)
    d_edge = np.minimum(np.minimum(U_, w_mm - U_), np.minimum(V_, h_mm - V_))
    cover = np.clip(d_edge * s_mean + 0.5, 0, 1)[:, :, None].astype(np.float32)
    bg = background(W, H, rng, dark=layout == "slide")
    rho = cover * rho + (1 - cover) * bg
    del bg, um, vm

    # Light: an uneven field (a window or lamp to one side), lens shading, the shadow of
    # the hand and phone, the colour of the light; a slide shines by itself.
    yy = (np.arange(H, dtype=np.float32)[:, None] + 0.5 - H / 2) / math.hypot(W, H)
    xx = (np.arange(W, dtype=np.float32)[None, :] + 0.5 - W / 2) / math.hypot(W, H)
    theta = float(rng.uniform(0, 2 * math.pi))
    grad = float(rng.uniform(0, 1.2)) if layout != "slide" else float(rng.uniform(0, 0.2))
    E = np.exp(grad * (xx * math.cos(theta) + yy * math.sin(theta))).astype(np.float32)
    vign = float(rng.uniform(0.0, 0.25))
    E *= (1 - vign * (4 * (xx * xx + yy * yy)))
    p.update(light_gradient=grad, light_angle_deg=math.degrees(theta), vignetting=vign)
    shadow = 0.0
    if layout != "slide" and rng.random() < 0.3:
        m, sp2 = occluder_mask(W, H, rng)
        soft = float(rng.uniform(0.005, 0.04))
        mh, mw = m.shape
        m = ndimage.gaussian_filter(m, soft * math.hypot(mw, mh), mode="nearest")
        m = cam.resize_float(m, W, H, Image.Resampling.BILINEAR)
        shadow = float(rng.uniform(0.3, 0.85))
        E *= (1 - shadow * m)
        p.update(sp2, shadow_depth=shadow, shadow_softness=soft,
                 shadow_page_share=float((m[::8, ::8] > 0.5).mean()))
    tint = np.array([1.0, 1.0, 1.0], np.float32) + rng.normal(0, 0.04, 3).astype(np.float32)
    s = rho * E[:, :, None] * tint
    del rho
    # Auto exposure: paper white of the lit page at a sensor level of 0.45–0.8 (phones
    # expose documents bright), with a metering error.
    sel = (cover[::8, ::8, 0] > 0.99)
    Es = E[::8, ::8][sel] if sel.any() else E[::8, ::8].ravel()
    paper = float(np.median(page_linear_paper(c)))
    white = float(rng.uniform(0.45, 0.8))
    ev_err = float(rng.normal(0, 0.3))
    k = white / max(1e-4, paper * float(np.median(Es))) * 2 ** ev_err
    s *= np.float32(k)
    # Glare: the specular reflection of a lamp in glossy paper or a screen, additive
    # (it lifts ink and paper alike), a broad lobe with a brighter core; often clipped.
    if rng.random() < 0.25:
        gx0 = float(rng.uniform(0.15, 0.85)) * W
        gy0 = float(rng.uniform(0.15, 0.85)) * H
        sig = float(rng.uniform(0.02, 0.08)) * math.hypot(W, H)
        peak = math.exp(rng.uniform(math.log(0.2), math.log(3.0)))
        r2 = ((np.arange(W, dtype=np.float32)[None, :] - gx0) ** 2 +
              (np.arange(H, dtype=np.float32)[:, None] - gy0) ** 2)
        gl = peak * (0.6 * np.exp(-r2 / (2 * sig * sig)) + 0.4 * np.exp(-r2 / (2 * (sig / 4) ** 2)))
        s += (white * gl)[:, :, None].astype(np.float32)
        p.update(glare_peak=peak, glare_sigma=sig / math.hypot(W, H), glare_x=gx0 / W, glare_y=gy0 / H)
    else:
        p.update(glare_peak=0.0)

    # Exposure time, ISO gain and shake from the light level.
    lux = math.exp(rng.uniform(math.log(LUX[0]), math.log(LUX[1]))) if layout != "slide" \
        else float(rng.uniform(150, 600))
    t_max = float(rng.uniform(*T_MAX))
    t_need = LUX_SECONDS / lux
    t = min(t_max, t_need)
    gain = max(1.0, t_need / t)
    omega = math.exp(rng.uniform(math.log(SHAKE_DEG_S[0]), math.log(SHAKE_DEG_S[1])))
    extent = math.radians(omega) * t * f_px
    shake = None
    if extent > 0.3:
        shake, alpha, path = cam.shake_kernel(extent, rng)
        p.update(shake_momentum=alpha, shake_path_px=path)
    p.update(lux=lux, exposure_s=t, iso_gain=gain, shake_deg_s=omega, shake_px=extent)

    # Defocus from depth: blur circle radius = ½·f·A/z_f·|z − z_f|/z (px), with the lens'
    # aperture A = focal length / f-number; focus on the page centre, or missed.
    N_ = float(rng.uniform(*F_NUMBER))
    A_mm = FOCAL_MM / N_
    miss = rng.random() < 0.2
    ferr = float(rng.uniform(0.1, 0.6)) * (1 if rng.random() < 0.5 else -1) if miss else float(rng.normal(0, 0.02))
    zf = z0 * (1 + ferr)
    rad = 0.5 * f_px * A_mm / zf * np.abs(zg - zf) / zg
    page_g = cam.resize_float(cover[:, :, 0], gw, gh) > 0.5
    r_lo = float(rad[page_g].min()) if page_g.any() else float(rad.min())
    r_hi = float(rad[page_g].max()) if page_g.any() else float(rad.max())
    n_lv = 1 if r_hi - r_lo < 0.4 else min(4, 1 + math.ceil((r_hi - r_lo) / 1.5))
    radii = list(np.linspace(r_lo, r_hi, n_lv)) if n_lv > 1 else [0.5 * (r_lo + r_hi)]
    idx = None
    if n_lv > 1:
        idx_g = ((np.clip(rad, r_lo, r_hi) - r_lo) / (r_hi - r_lo) * (n_lv - 1)).astype(np.float32)
        idx = cam.resize_float(idx_g, W, H, Image.Resampling.BILINEAR)
    mtf = float(rng.uniform(0.4, 0.7))
    s = blur_levels(s, radii, idx, shake, mtf)
    p.update(f_number=N_, focus_error=ferr, focus_missed=bool(miss), defocus_px_min=r_lo,
             defocus_px_max=r_hi, defocus_px_median=float(np.median(rad[page_g])) if page_g.any() else r_lo,
             lens_sigma_px=mtf)

    # Sensor: photons and read noise per pixel, the full well of a 12 MP pixel binned to
    # this frame size; the camera's tone curve; sharpening.
    scale = (4000.0 / L) ** 2
    fw = math.exp(rng.uniform(math.log(FULL_WELL_4000[0]), math.log(FULL_WELL_4000[1]))) * scale
    rn = float(rng.uniform(*READ_NOISE)) * math.sqrt(scale)
    v = cam.sensor(s, noise_rng, fw, rn, 0.0, gain)
    snr = white * fw / gain / math.sqrt(white * fw / gain + rn * rn)
    p.update(full_well=fw, read_noise=rn, paper_level=white, ev_error=ev_err, snr_white=snr,
             clipped=float((v[::4, ::4] >= 1).any(axis=2).mean()))
    del s
    u8 = cam.render(v)
    sharpen = float(rng.uniform(0.2, 1.0))
    u8 = unsharp(u8, sharpen, 1.0)
    p["sharpen"] = sharpen
    return u8, p, s_mean


def page_linear_paper(c):
    """Linear reflectance of the paper (the canvas's background colour)."""
    return cam.SRGB_DECODE[np.array(c.paper, np.uint8)]


def scan(c, layout, dpi, rng, noise_rng):
    """A flatbed scan: the page flat on the glass (a book's spine side raised and dark),
    slightly skewed, evenly lit, a scanner's optics; returns (8-bit sRGB, params, px/mm)."""
    p = {}
    s_mm = dpi / 25.4
    margin = float(rng.uniform(1, 4))
    w_mm, h_mm = c.w_mm + 2 * margin, c.h_mm + 2 * margin
    W, H = round(w_mm * s_mm), round(h_mm * s_mm)
    skew = float(np.clip(rng.normal(0, 0.7), -3, 3))
    a = math.radians(skew)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xm = (xx + 0.5) / s_mm - w_mm / 2
    ym = (yy + 0.5) / s_mm - h_mm / 2
    um = math.cos(a) * xm + math.sin(a) * ym + c.w_mm / 2
    vm = -math.sin(a) * xm + math.cos(a) * ym + c.h_mm / 2
    del xx, yy, xm, ym
    lin, ppmm = prefilter(page_linear(c), c.ppmm, s_mm)
    rho = sample(lin, ppmm, um, vm)
    d_edge = np.minimum(np.minimum(um, c.w_mm - um), np.minimum(vm, c.h_mm - vm))
    cover = np.clip(d_edge * s_mm + 0.5, 0, 1)[:, :, None].astype(np.float32)
    lid = np.float32(rng.uniform(0.7, 0.9))
    rho = cover * rho + (1 - cover) * lid
    E = np.ones((H, W), np.float32)
    if layout == "book":                 # the spine lifts off the glass: darker and softer
        side = rng.random() < 0.5
        dist = (c.w_mm - um) if side else um
        depth = float(rng.uniform(0.3, 0.8))
        width = float(rng.uniform(8, 25))
        E *= 1 - depth * np.exp(-np.clip(dist, 0, None) / width)
        p.update(spine_shadow=depth, spine_width_mm=width)
    falloff = float(rng.uniform(0, 0.1))
    E *= 1 - falloff * (um / c.w_mm)
    s = rho * E[:, :, None]
    paper = float(np.median(page_linear_paper(c)))
    white = float(rng.uniform(0.75, 0.92))
    s *= np.float32(white / paper)
    mtf = float(rng.uniform(0.5, 1.0))
    s = ndimage.gaussian_filter(s, (mtf, mtf, 0))
    v = cam.sensor(s, noise_rng, 30000.0, 3.0, 0.0, 1.0)
    u8 = cam.render(v)
    p.update(dpi=dpi, skew_deg=skew, scan_margin_mm=margin, lamp_falloff=falloff,
             paper_level=white, lens_sigma_px=mtf)
    return u8, p, s_mm


def capture(c, doc, k, seed, max_long):
    """Capture k of a document: (file bytes, row of parameters)."""
    key = (seed, "page-corpus", doc["id"], k)
    rng = ds.rng_for(*key, "capture")
    noise_rng = ds.rng_for(*key, "sensor")
    kinds = [x for x in CAPTURES if not (x == "scan" and doc["layout"] == "slide")]
    share = np.array([CAPTURE_SHARE[x] for x in kinds])
    kind = kinds[int(rng.choice(len(kinds), p=share / share.sum()))]
    row = dict(capture=kind)
    if kind == "scan":
        dpi = weighted(rng, SCAN_DPI)
        long_mm = max(c.w_mm, c.h_mm) + 8
        while dpi > 100 and long_mm * dpi / 25.4 > max_long:
            dpi -= 25
        u8, p, ppmm = scan(c, doc["layout"], dpi, rng, noise_rng)
        gray = bool(rng.random() < 0.5)
        q = int(rng.integers(SCAN_JPEG[0], SCAN_JPEG[1] + 1))
        if gray:
            u8 = np.asarray(Image.fromarray(u8, "RGB").convert("L"))[:, :, None]
        data = ds.encode_jpeg(u8, q, dpi=dpi)
        p.update(gray=gray)
        row.update(jpeg_quality=q, long_side=max(u8.shape[:2]))
    elif kind == "phone":
        L = min(weighted(rng, PHONE_SIZES), max_long)
        u8, p, ppmm = phone_shot(c, doc["layout"], L, rng, noise_rng)
        q = int(rng.integers(PHONE_JPEG[0], PHONE_JPEG[1] + 1))
        data = ds.encode_jpeg(u8, q)
        row.update(jpeg_quality=q, long_side=L)
    else:
        L = min(weighted(rng, MESSENGER_SIZES), max_long)
        L1 = min(MESSENGER_SOURCE, max_long)
        u8, p, ppmm = phone_shot(c, doc["layout"], L1, rng, noise_rng)
        q1 = int(rng.integers(PHONE_JPEG[0], PHONE_JPEG[1] + 1))
        im = Image.fromarray(ds.decode(ds.encode_jpeg(u8, q1)), "RGB")
        if L < max(im.size):
            f = L / max(im.size)
            im = im.resize((max(1, round(im.width * f)), max(1, round(im.height * f))),
                           Image.Resampling.BILINEAR)
            ppmm *= f
        q = int(rng.integers(MESSENGER_JPEG[0], MESSENGER_JPEG[1] + 1))
        u8 = np.asarray(im)
        data = ds.encode_jpeg(u8, q)
        p.update(camera_long_side=L1, camera_jpeg_quality=q1)
        row.update(jpeg_quality=q, long_side=max(u8.shape[:2]))
    h, w = u8.shape[:2]
    row.update(width=w, height=h, px_per_mm=ppmm, params=p)
    return data, row


# --------------------------------------------------------------------------
# Labels: what Tesseract reads
# --------------------------------------------------------------------------

# Typographic quotes and dashes are folded to ASCII on both sides before words are
# compared (build.word_tokens strips only ASCII punctuation from a word's ends, and
# whether Tesseract prints « or " for a guillemet is not a reading error).
FOLD = str.maketrans({"«": '"', "»": '"', "„": '"', "“": '"', "”": '"', "‘": "'", "’": "'",
                      "‚": "'", "—": "-", "–": "-", "…": "..."})


def fold(text):
    return text.translate(FOLD)


def child_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def ocr(path, lang):
    """Tesseract on one image, one thread: (text, mean word confidence 0–1, words, CPU
    seconds of the tesseract process)."""
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "out")
        t0 = child_cpu()
        try:
            subprocess.run(["tesseract", path, base, "-l", lang, "--psm", "3", "txt", "tsv"],
                           capture_output=True, env=env, timeout=900)
        except subprocess.TimeoutExpired:
            pass
        dt = child_cpu() - t0
        text = open(base + ".txt", encoding="utf-8", errors="replace").read() if os.path.exists(base + ".txt") else ""
        confs = []
        if os.path.exists(base + ".tsv"):
            with open(base + ".tsv", encoding="utf-8", errors="replace") as f:
                for i, line in enumerate(f):
                    parts = line.rstrip("\n").split("\t")
                    if i == 0 or len(parts) < 12 or parts[0] != "5" or not parts[11].strip():
                        continue
                    conf = float(parts[10])
                    if conf >= 0:
                        confs.append(conf)
    return text, (sum(confs) / len(confs) / 100.0 if confs else 0.0), len(confs), dt


def scores(truth, text):
    t, r = fold(truth), fold(text)
    gt = ds.normalise(t)
    cer = min(1.0, ds.levenshtein(gt, ds.normalise(r)) / max(1, len(gt)))
    return ds.word_f1(t, r), cer


# --------------------------------------------------------------------------
# Work and writing
# --------------------------------------------------------------------------


def documents(n_docs, languages, layouts):
    """Document i has layout i mod |layouts| and a language that walks through the list
    so every (layout, language) pair appears once in each |layouts|·|languages| documents."""
    docs = []
    nl = len(layouts)
    for i in range(n_docs):
        layout = layouts[i % nl]
        lang = languages[(i % nl + i // nl) % len(languages)]
        did = f"{i:05d}-{lang}-{layout}"
        docs.append(dict(id=did, index=i, lang=lang, layout=layout, split=split_of("document", did)))
    return docs


def weighted_quantile_xh(lines, scale):
    """x-height at the output resolution: median and 10th percentile over the page's
    characters (each line weighted by its length)."""
    xs = np.array([ln["xh"] for ln in lines], float) * scale
    w = np.array([len(ln["text"]) for ln in lines], float)
    order = np.argsort(xs, kind="stable")
    cw = np.cumsum(w[order]) / w.sum()
    q = lambda p: float(xs[order][min(len(xs) - 1, int(np.searchsorted(cw, p)))])  # noqa: E731
    return q(0.5), q(0.1)


def document_task(args):
    doc, captures, seed, max_long, fonts, pools, out, run_ocr = args
    t0 = time.time()
    c0 = time.process_time() + child_cpu()
    c, pt, fam, T = render_document(doc, seed, fonts, pools)
    render_s = time.process_time() + child_cpu() - c0     # CPU seconds (groff included)
    truth = "\n".join(ln["text"] for ln in c.lines) + "\n"
    with open(os.path.join(out, "text", doc["id"] + ".txt"), "w", encoding="utf-8") as f:
        f.write(truth)
    with open(os.path.join(out, "text", doc["id"] + ".lines.json"), "w", encoding="utf-8") as f:
        json.dump(dict(width=c.W, height=c.H, width_mm=round(c.w_mm, 3), height_mm=round(c.h_mm, 3),
                       lines=c.lines), f, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    if doc["layout"] == "slide":
        body_xh = np.median([ln["xh"] for ln in c.lines])
    else:
        body_xh = x_height(font(fam["paths"][0], pts(c, pt)))
    drow = dict(document=doc["id"], split=doc["split"], layout=doc["layout"], language=doc["lang"],
                font=fam["family"], font_package=fam["package"], font_class=fam["cls"], font_pt=pt,
                page_width_mm=c.w_mm, page_height_mm=c.h_mm, render_width=c.W, render_height=c.H,
                render_ppmm=c.ppmm, x_height_render_px=body_xh, lines=len(c.lines),
                words=len(truth.split()), chars=len(ds.normalise(truth)),
                text_package=MAN_SOURCES[doc["lang"]][0], text_sources=";".join(T.used),
                truth=f"text/{doc['id']}.txt")
    rows, timings = [], []
    for k in range(captures):
        t1 = time.process_time()
        data, row = capture(c, doc, k, seed, max_long)
        cap_s = time.process_time() - t1
        rel = f"images/{doc['id']}-{k:02d}.jpg"
        path = os.path.join(out, rel)
        with open(path, "wb") as f:
            f.write(data)
        scale = row["px_per_mm"] / c.ppmm
        xh50, xh10 = weighted_quantile_xh(c.lines, scale)
        p = row.pop("params")
        r = dict(path=rel, split=doc["split"], document=doc["id"], layout=doc["layout"],
                 language=doc["lang"], font=fam["family"], font_pt=pt,
                 x_height_px=body_xh * scale, x_height_px_median=xh50, x_height_px_p10=xh10,
                 truth=drow["truth"], **row)
        r.update({f"p_{kk}": vv for kk, vv in p.items() if not isinstance(vv, (list, dict))})
        r["params"] = json.dumps(cam.rounded(p), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        ocr_s = 0.0
        if run_ocr:
            text, conf, nw, ocr_s = ocr(path, doc["lang"])
            f1, cer = scores(truth, text)
            with open(os.path.join(out, "ocr", f"{doc['id']}-{k:02d}.txt"), "w", encoding="utf-8") as f:
                f.write(text)
            r.update(score=f1, cer=cer, tess_conf=conf, ocr_words=nw, ocr=f"ocr/{doc['id']}-{k:02d}.txt")
        rows.append(r)
        timings.append(dict(path=rel, render_s=render_s / captures, capture_s=cap_s, ocr_s=ocr_s))
    return drow, rows, timings, time.time() - t0


LABEL_COLUMNS = [
    "path", "score", "split", "document", "layout", "language", "font", "font_pt",
    "x_height_px", "x_height_px_median", "x_height_px_p10", "capture", "width", "height",
    "long_side", "jpeg_quality", "cer", "tess_conf", "ocr_words", "truth", "ocr",
    # the main parameters of the capture model, also in `params`
    "p_dpi", "p_skew_deg", "p_gray", "p_fill", "p_pitch_deg", "p_yaw_deg", "p_roll_deg",
    "p_distance_mm", "p_bend_mm", "p_spine_lift_mm", "p_corner_lift_mm", "p_px_per_mm",
    "p_lux", "p_exposure_s", "p_iso_gain", "p_snr_white", "p_shake_px", "p_focus_error",
    "p_defocus_px_min", "p_defocus_px_median", "p_defocus_px_max", "p_lens_sigma_px",
    "p_light_gradient", "p_vignetting", "p_shadow_depth", "p_shadow_softness",
    "p_shadow_page_share", "p_glare_peak", "p_glare_sigma", "p_clipped", "p_sharpen",
    "p_camera_long_side", "p_camera_jpeg_quality", "params",
]
DOC_COLUMNS = ["document", "split", "layout", "language", "font", "font_package", "font_class",
               "font_pt", "page_width_mm", "page_height_mm", "render_width", "render_height",
               "render_ppmm", "x_height_render_px", "lines", "words", "chars", "text_package",
               "text_sources", "truth"]


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(columns)
        for r in rows:
            wr.writerow([cam.cell(r.get(c)) for c in columns])


def versions():
    pk = {p: ds.deb_version(p) for p in
          sorted({"tesseract-ocr", "tesseract-ocr-eng", "tesseract-ocr-deu", "tesseract-ocr-rus",
                  "groff-base", *(v[0] for v in MAN_SOURCES.values()),
                  *(v[0] for v in DICTIONARIES.values()), *FONT_PACKAGES})}
    tv = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
    gv = subprocess.run(["groff", "--version"], capture_output=True, text=True)
    return pk, dict(numpy=np.__version__, scipy=importlib.metadata.version("scipy"),
                    Pillow=importlib.metadata.version("Pillow"), python=sys.version.split()[0],
                    tesseract=(tv.stdout or tv.stderr).splitlines()[0].strip(),
                    groff=gv.stdout.splitlines()[0].strip() if gv.stdout else "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output folder (its images/, text/, ocr/ and CSVs are replaced)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT, help=f"images in all (default {DEFAULT_COUNT})")
    ap.add_argument("--captures", type=int, default=DEFAULT_CAPTURES,
                    help=f"captures per source document (default {DEFAULT_CAPTURES})")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2; output does not depend on it)")
    ap.add_argument("--long-side", type=int, default=MAX_LONG_SIDE,
                    help=f"largest output long side in px (default {MAX_LONG_SIDE}); larger sizes are capped")
    ap.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated: eng,deu,rus")
    ap.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated: " + ",".join(LAYOUTS))
    ap.add_argument("--no-ocr", action="store_true", help="images and truth only: no Tesseract, no scores")
    ap.add_argument("--list-fonts", action="store_true", help="print the fonts and the languages each covers, and exit")
    args = ap.parse_args()

    languages = [x for x in args.languages.split(",") if x]
    layouts = [x for x in args.layouts.split(",") if x]
    for x in languages:
        if x not in LANGUAGES:
            sys.exit(f"unknown language {x!r}; languages: {', '.join(LANGUAGES)}")
    for x in layouts:
        if x not in LAYOUTS:
            sys.exit(f"unknown layout {x!r}; layouts: {', '.join(LAYOUTS)}")
    if args.count < 1 or args.captures < 1 or args.jobs < 1 or args.long_side < 512:
        sys.exit("--count, --captures, --jobs >= 1 and --long-side >= 512")

    fonts = font_table(languages)
    if args.list_fonts:
        for f in fonts:
            print(f"{f['family']}\t{f['package']}\t{f['cls']}\t{','.join(f['languages']) or '-'}\t{f['note']}")
        return
    if not args.out:
        sys.exit("--out is required")
    for lang in languages:
        for layout in layouts:
            if not any(lang in f["languages"] and f["cls"] in LAYOUT_CLASSES[layout] for f in fonts):
                sys.exit(f"no installed font covers {lang} for {layout}: run make-page-corpus.sh")
    if not args.no_ocr:
        have = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True).stdout.split()
        missing = [x for x in languages if x not in have]
        if missing:
            sys.exit(f"tesseract has no data for {', '.join(missing)}: apt-get install "
                     + " ".join(f"tesseract-ocr-{x}" for x in missing))

    # Man pages, split by a hash of their name: a test document's text never comes from a
    # page that a training document reads.
    pools = {}
    for lang in languages:
        files = man_pages(lang)
        if not files:
            sys.exit(f"no man pages of {MAN_SOURCES[lang][0]}: run make-page-corpus.sh")
        for split in ("train", "test"):
            pools[(lang, split)] = [p for p in files if split_of(f"man-{lang}", os.path.basename(p)) == split]

    n_docs = math.ceil(args.count / args.captures)
    docs = documents(n_docs, languages, layouts)
    out = args.out
    os.makedirs(out, exist_ok=True)
    for sub in ("images", "text", "ocr"):
        if os.path.isdir(os.path.join(out, sub)):
            shutil.rmtree(os.path.join(out, sub))
        os.makedirs(os.path.join(out, sub))
    tasks = []
    for d in docs:
        n = min(args.captures, args.count - d["index"] * args.captures)
        tasks.append((d, n, args.seed, args.long_side, fonts, pools, out, not args.no_ocr))

    t0 = time.time()
    drows, rows, timings, busy = [], [], [], 0.0
    if args.jobs == 1:
        results = map(document_task, tasks)
    else:
        pool = ProcessPoolExecutor(max_workers=args.jobs)
        results = pool.map(document_task, tasks)
    for drow, r, tm, dt in results:
        drows.append(drow)
        rows.extend(r)
        timings.extend(tm)
        busy += dt
        f1 = " ".join(f"{x['score']:.2f}" for x in r) if not args.no_ocr else "-"
        print(f"{drow['document']}: {len(r)} images, {dt:.1f} s, word F1 {f1}", flush=True)
    if args.jobs != 1:
        pool.shutdown()
    wall = time.time() - t0
    rows.sort(key=lambda r: r["path"])
    timings.sort(key=lambda r: r["path"])
    drows.sort(key=lambda r: r["document"])

    cols = [c for c in LABEL_COLUMNS if not (args.no_ocr and c in ("score", "cer", "tess_conf", "ocr_words", "ocr"))]
    write_csv(os.path.join(out, "labels.csv"), cols, rows)
    write_csv(os.path.join(out, "documents.csv"), DOC_COLUMNS, drows)
    # CPU seconds (not wall time: the machine may be shared); render_s is the document's
    # rendering shared out over its captures.
    write_csv(os.path.join(out, "timings.csv"), ["path", "render_s", "capture_s", "ocr_s"], timings)
    pk, tools = versions()
    manifest = dict(generator=GENERATOR, rebuild=REBUILD, seed=args.seed, count=args.count,
                    captures=args.captures, long_side=args.long_side, languages=languages,
                    layouts=layouts, ocr=not args.no_ocr,
                    ocr_command="tesseract IMAGE OUT -l LANG --psm 3 txt tsv (OMP_THREAD_LIMIT=1)",
                    packages=pk, tools=tools, documents=len(drows), images=len(rows),
                    images_by_split={s: sum(r["split"] == s for r in rows) for s in ("train", "test")},
                    images_by_capture={k: sum(r["capture"] == k for r in rows) for k in CAPTURES},
                    fonts=[dict(family=f["family"], package=f["package"], languages=f["languages"])
                           for f in fonts],
                    man_pages={lang: {s: len(pools[(lang, s)]) for s in ("train", "test")} for lang in languages})
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    rs = sum(t["render_s"] for t in timings) / max(1, len(timings))
    cs = sum(t["capture_s"] for t in timings) / max(1, len(timings))
    os_ = sum(t["ocr_s"] for t in timings) / max(1, len(timings))
    print(f"{len(rows)} images of {len(drows)} documents in {wall:.0f} s with {args.jobs} jobs; per image "
          f"{busy / max(1, len(rows)):.2f} s of worker wall time; CPU s per image: render {rs:.2f}, "
          f"capture {cs:.2f}, OCR {os_:.2f}")


if __name__ == "__main__":
    main()
