#!/usr/bin/env python3
"""Makes a corpus of 12-megapixel "phone photos" from a corpus folder: each coded image of the
corpus pasted, at its own size or shrunk, at a random place of a 4000x3000 background (a smooth
plasma, or an image of the corpus's falsepositives* folders enlarged: a real photo's texture), and
saved as a JPEG at quality 90, beside its expected text. The codes are small in a large frame: the
case where reading the half-size image first, and the full image only around candidates, must not
lose a code.

    benchmarks/large-photos.py CORPUS_DIR OUT_DIR [--count N] [--seed S]
    benchmarks/compare-decoders.py OUT_DIR --no-zxing-cpp       (or with zxing-cpp, slower)

Needs Pillow (the venv of compare-decoders.py: `benchmarks/compare-decoders.py --bench-python`).
"""
import argparse, glob, os, random, shutil

import PIL.Image
import PIL.ImageFilter


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=120)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    coded = sorted(p for p in glob.glob(os.path.join(args.corpus, "*", "*.png"))
                   if "falsepositives" not in p and "unsupported" not in p and os.path.exists(os.path.splitext(p)[0] + ".txt"))
    textures = sorted(glob.glob(os.path.join(args.corpus, "falsepositives*", "*.png")))
    backgrounds = [PIL.Image.effect_mandelbrot((4000, 3000), (-2.2, -1.3, 1.0, 1.3), 40).convert("RGB").filter(PIL.ImageFilter.GaussianBlur(30))]
    for texture in textures[:3]:
        backgrounds.append(PIL.Image.open(texture).convert("RGB").resize((4000, 3000), PIL.Image.BICUBIC))
    chosen = rng.sample(coded, min(args.count, len(coded)))
    for index, path in enumerate(chosen):
        category = os.path.basename(os.path.dirname(path))
        folder = os.path.join(args.out, category)
        os.makedirs(folder, exist_ok=True)
        code = PIL.Image.open(path).convert("RGB")
        scale = rng.choice([1.0, 0.7, 0.5])
        if scale != 1.0:
            code = code.resize((max(1, int(code.width * scale)), max(1, int(code.height * scale))), PIL.Image.LANCZOS)
        photo = backgrounds[index % len(backgrounds)].copy()
        x, y = rng.randrange(0, 4000 - code.width), rng.randrange(0, 3000 - code.height)
        photo.paste(code, (x, y))
        stem = f"{index:03d}-" + os.path.splitext(os.path.basename(path))[0].replace("#", "")
        photo.save(os.path.join(folder, stem + ".jpg"), quality=90)
        shutil.copy(os.path.splitext(path)[0] + ".txt", os.path.join(folder, stem + ".txt"))
    # And each background alone: photos without a code (any read is a false positive).
    folder = os.path.join(args.out, "falsepositives-large")
    os.makedirs(folder, exist_ok=True)
    for index, background in enumerate(backgrounds):
        background.save(os.path.join(folder, f"background-{index}.jpg"), quality=90)
    print(f"{len(chosen)} photos of 4000x3000 with a code and {len(backgrounds)} without in {args.out}")


if __name__ == "__main__":
    main()
