#!/usr/bin/env python3
"""How little ink-to-paper contrast Tesseract still reads: the measurement behind the gate's
minimumTextContrast.

    Scripts/measure/text_contrast.py [PAGE ...]      (default: page02 page03 page05)

Each clean page of Datasets/documents is remapped so paper stays at 240 and ink sits
CONTRAST levels below it, Gaussian noise of sigma 2 is added (seeded), and `tesseract - -l eng`
reads it (OMP_THREAD_LIMIT=1). Prints page, contrast and CER (edit distance over the
whitespace-normalised ground truth).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Datasets", "documents")


def cer(read, truth):
    read, truth = " ".join(read.split()), " ".join(truth.split())
    previous = list(range(len(truth) + 1))
    for i, a in enumerate(read, 1):
        current = [i] + [0] * len(truth)
        for j, b in enumerate(truth, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
        previous = current
    return previous[-1] / max(1, len(truth))


def main(pages):
    rng = np.random.default_rng(1)
    environment = dict(os.environ, OMP_THREAD_LIMIT="1")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "page.png")
        for page in pages:
            image = np.asarray(Image.open(f"{ROOT}/images/{page}_clean.png").convert("L")).astype(float)
            truth = open(f"{ROOT}/text/{page}.txt").read()
            for contrast in [212, 64, 32, 24, 16, 12, 8]:
                # The rendered pages have paper 240 and ink 28: 212 levels apart.
                remapped = 240 - (240 - image) / 212 * contrast + rng.normal(0, 2, image.shape)
                Image.fromarray(np.clip(np.round(remapped), 0, 255).astype(np.uint8)).save(path)
                text = subprocess.run(["tesseract", path, "-", "-l", "eng"], capture_output=True, text=True, env=environment).stdout
                print(page, contrast, f"{cer(text, truth):.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["page02", "page03", "page05"])
