"""What `ocr_vs_tesseract.py` needs: finding the images to time and timing one command."""
import os
import subprocess
import time

IMAGE_ENDINGS = (".jpg", ".jpeg", ".png", ".tif", ".tiff")
DEFAULT_BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "imgquality")


def find_images(inputs, endings=IMAGE_ENDINGS):
    """The files named, and those below the folders named whose names end in `endings`, sorted."""
    found = []
    for item in inputs:
        if os.path.isdir(item):
            for root, _, names in os.walk(item):
                found += [os.path.join(root, n) for n in names if n.lower().endswith(endings)]
        else:
            found.append(item)
    return sorted(found)


def timed(command, env=None, check=False):
    """Wall-clock seconds of one run of `command`, its output discarded."""
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=check)
    return time.perf_counter() - start
