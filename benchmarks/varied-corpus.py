#!/usr/bin/env python3
"""Writes varied copies of every category of a corpus: images of the same kinds that the decoding
pipeline was not ordered on, for measuring whether a speed lead holds beyond the images it was
tuned on (a stand-in for a held-back set).

    benchmarks/varied-corpus.py CORPUS_DIR OUT_DIR
    benchmarks/decode-speed.py OUT_DIR --no-categories

Each image of each category (folders named unsupported are left out) is written seven times with
ImageMagick's `convert`: turned by 180° and by 7° (on white), scaled to 75 % and 130 %, gamma 0.6,
Gaussian noise, and as JPEG at quality 50. The copies of a category go to `<category>.<variation>`
with the expected texts beside them, so folders named falsepositives* still hold the images
without a code, and compare-decoders.py, decode-speed.py and pass-study.py read OUT_DIR as a corpus.
An OUT_DIR that exists already is refused rather than mixed with.
"""
import argparse
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

VARIATIONS = [
    ("rot180", ["-rotate", "180"], ".png"),
    ("rot7", ["-background", "white", "-rotate", "7"], ".png"),
    ("scale75", ["-resize", "75%"], ".png"),
    ("scale130", ["-resize", "130%"], ".png"),
    ("gamma", ["-gamma", "0.6"], ".png"),
    ("noise", ["-seed", "1", "-attenuate", "0.4", "+noise", "Gaussian"], ".png"),
    ("jpeg50", ["-quality", "50"], ".jpg"),
]
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pgm", ".ppm")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("out")
    args = parser.parse_args()
    if not shutil.which("convert"):
        sys.exit("varied-corpus.py: ImageMagick's convert is needed (apt install imagemagick)")
    if os.path.exists(args.out):
        sys.exit(f"varied-corpus.py: {args.out} exists; give a new folder")
    categories = sorted(c for c in os.listdir(args.corpus)
                        if os.path.isdir(os.path.join(args.corpus, c)) and c != "unsupported")
    commands = []
    for category in categories:
        source = os.path.join(args.corpus, category)
        for variation, operation, extension in VARIATIONS:
            target = os.path.join(args.out, f"{category}.{variation}")
            os.makedirs(target)
            for name in sorted(os.listdir(source)):
                stem, suffix = os.path.splitext(name)
                if suffix == ".txt":
                    shutil.copy(os.path.join(source, name), target)
                elif suffix.lower() in IMAGE_EXTENSIONS:
                    commands.append(["convert", os.path.join(source, name)] + operation + [os.path.join(target, stem + extension)])
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for done in pool.map(lambda command: subprocess.run(command, capture_output=True), commands):
            if done.returncode != 0:
                sys.exit(f"varied-corpus.py: {' '.join(done.args)}: {done.stderr.decode(errors='replace').strip()}")
    print(f"{len(commands)} images in {len(categories) * len(VARIATIONS)} folders under {args.out}")


if __name__ == "__main__":
    main()
