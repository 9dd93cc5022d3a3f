#!/usr/bin/env python3
"""The superset property, checked image by image: every text that an engine activate embeds reads
correctly on its own, as its command-line tool reads it, `activate scan` reads too, and activate
reads nothing that neither an engine nor the expected text supports.

    benchmarks/superset.py CORPUS_DIR [--activate PATH] [--sets corpus,stress,turned,varied,large]
                           [--jobs N] [--keep DIR]

The engines, each with its tool's defaults, one process per image:
    zbarimg            zbarimg -q --raw --nodbus IMAGE                       (Debian's zbar-tools)
    zbarimg UPC        the same with -Supca.enable -Supce.enable             (UPC-A/E as UPC, not EAN-13)
    ZXingReader        ZXingReader IMAGE                                     (Debian's zxing-cpp-tools,
                                                                              the library the helper links)
and activate as a user runs it: one `activate scan --json-lines` over the set, default effort.

The sets (CORPUS_DIR is a corpus of compare-decoders.py's layout: <stem>.txt beside each image):
    corpus   CORPUS_DIR itself
    stress   the QR stress variants of compare-decoders.py --stress (turned, perspective, low
             contrast, blurred, JPEG q15, half size)
    turned   the linear categories turned by 90° and by 270° (bars across the image: zbarimg reads
             them down the columns; a pipeline that reads linear codes across the rows only misses them)
    varied   the varied copies of benchmarks/varied-corpus.py (kept in .build/varied-corpus)
    large    the 12-megapixel photos of benchmarks/large-photos.py (kept in .build/large-photos)

Per expected text: which engines read it correctly (eval.sh's rule: the exact text, one trailing
newline forgiven); each such text activate does not read is a loss. Each text activate prints that is
neither expected nor printed by an engine for that image is unsupported, unless it is the expected
text of another image of the same category (another photo of the same object: the price code of a
book, read on the photo whose expected text is its ISBN); those are counted apart. Prints per set
the images, the expected texts, the reads of each engine, of any engine and of activate, the losses,
the readings of another image's text and the unsupported readings, each named; exits 1 when there is
a loss or an unsupported reading.
"""
import argparse, importlib.util, json, os, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("compare_decoders", os.path.join(ROOT, "benchmarks", "compare-decoders.py"))
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

ENGINES = [
    ("zbarimg", ["zbarimg", "-q", "--raw", "--nodbus"], compare.zbar_texts),
    ("zbarimg UPC", ["zbarimg", "-q", "--raw", "--nodbus", "-Supca.enable", "-Supce.enable"], compare.zbar_texts),
    ("ZXingReader", ["ZXingReader"], compare.zxing_texts),
]
LINEAR = ("ean", "upc", "code", "itf", "codabar", "rss", "databar")


def expected_texts(expected):
    """The texts an image holds: [] for an image without a code."""
    if expected is None:
        return []
    return expected[1] if expected[0] == "multi" else [expected[1]]


def reads(text, texts):
    return compare.correct(("single", text), texts)


def run_engine(command, parse, image):
    try:
        out = subprocess.run(command + [image], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60).stdout
    except subprocess.TimeoutExpired:
        out = b""
    return parse(out)


def turned_set(corpus, work):
    """The linear categories turned by 90° and 270°, below `work`."""
    out = os.path.join(work, "turned")
    for category in sorted(os.listdir(corpus)):
        folder = os.path.join(corpus, category)
        if not os.path.isdir(folder) or not category.startswith(LINEAR):
            continue
        for degrees in (90, 270):
            target = os.path.join(out, f"{category}.rot{degrees}")
            os.makedirs(target, exist_ok=True)
            for name in sorted(os.listdir(folder)):
                stem, extension = os.path.splitext(name)
                source = os.path.join(folder, name)
                if extension == ".txt":
                    shutil.copy(source, target)
                elif extension.lower() in compare.IMAGE_EXTENSIONS:
                    subprocess.run(["convert", source, "-rotate", str(degrees), os.path.join(target, stem + ".png")], check=True)
    return out


def check(name, folder, args):
    items = [i for i in compare.collect(folder)]
    images = [i[2] for i in items]
    found, _ = compare.run_activate(args.activate, images, "normal", args.jobs)
    engine_reads = {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for engine, command, parse in ENGINES:
            engine_reads[engine] = list(pool.map(lambda image: run_engine(command, parse, image), images))
    counts = {engine: 0 for engine, _, _ in ENGINES}
    counts.update({"any engine": 0, "activate": 0})
    total, losses, unsupported, others = 0, [], [], []
    # Each category's expected texts, the corpus's and the set's: its variants (ean13-2.gamma) with it.
    category_texts = {}
    for category, _, _, expected in compare.collect(args.corpus) + items:
        category_texts.setdefault(category.split(".")[0], []).extend(expected_texts(expected))
    for k, (category, _, image, expected) in enumerate(items):
        texts = expected_texts(expected)
        for text in texts:
            total += 1
            by = [engine for engine, _, _ in ENGINES if reads(text, engine_reads[engine][k])]
            for engine in by:
                counts[engine] += 1
            counts["any engine"] += bool(by)
            ours = reads(text, found[k])
            counts["activate"] += ours
            if by and not ours:
                losses.append((image, text, by))
        for text in found[k]:
            supported = any(reads(e, [text]) for e in texts) or any(
                text in engine_reads[engine][k] for engine, _, _ in ENGINES)
            if supported:
                continue
            if any(reads(e, [text]) for e in category_texts[category.split(".")[0]]):
                others.append((image, text))
            else:
                unsupported.append((image, text))
    row = f"{name:<8}{len(images):>7}{total:>7}" + "".join(f"{counts[c]:>13}" for c in counts) + \
        f"{len(losses):>8}{len(others):>9}{len(unsupported):>13}"
    return row, losses, others, unsupported


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--activate", default=os.path.join(ROOT, ".build", "shipped", "release", "activate"))
    parser.add_argument("--sets", default="corpus,stress,turned,varied,large")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    for tool in ("zbarimg", "ZXingReader", "convert", "identify"):
        if not shutil.which(tool):
            sys.exit(f"superset: {tool} is not installed (scripts/setup.sh --bench)")
    if not os.access(args.activate, os.X_OK):
        sys.exit(f"superset: {args.activate}: no such program (scripts/release-build.sh activate activate-zxing-helper)")
    sets = args.sets.split(",")
    header = f"{'set':<8}{'images':>7}{'texts':>7}" + "".join(f"{c:>13}" for c in
                                                             [e for e, _, _ in ENGINES] + ["any engine", "activate"]) + \
        f"{'losses':>8}{'others':>9}{'unsupported':>13}"
    print(header)
    print("-" * len(header))
    failed, notes = [], []
    with tempfile.TemporaryDirectory(prefix="activate-superset-") as work:
        for name in sets:
            if name == "corpus":
                folder = args.corpus
            elif name == "stress":
                compare.stress_variants(args.corpus, os.path.join(work, "stress"))
                folder = os.path.join(work, "stress")
                # stress_variants writes <variant>/<category>/: one folder level flattened for collect().
                flat = os.path.join(work, "stress-flat")
                os.makedirs(flat)
                for variant in sorted(os.listdir(folder)):
                    for category in sorted(os.listdir(os.path.join(folder, variant))):
                        shutil.move(os.path.join(folder, variant, category), os.path.join(flat, f"{category}.{variant}"))
                folder = flat
            elif name == "turned":
                folder = turned_set(args.corpus, work)
            elif name == "varied":
                folder = os.path.join(ROOT, ".build", "varied-corpus")
                if not os.path.isdir(folder):
                    subprocess.run([os.path.join(ROOT, "benchmarks", "varied-corpus.py"), args.corpus, folder], check=True)
            elif name == "large":
                folder = os.path.join(ROOT, ".build", "large-photos")
                if not os.path.isdir(folder):
                    python = compare.bench_python()
                    subprocess.run([python, os.path.join(ROOT, "benchmarks", "large-photos.py"), args.corpus, folder], check=True)
            else:
                sys.exit(f"superset: unknown set {name} (corpus, stress, turned, varied, large)")
            row, losses, others, unsupported = check(name, folder, args)
            print(row, flush=True)
            failed += [f"{name}: loss: {image}: {text!r} (read by {', '.join(by)})" for image, text, by in losses]
            failed += [f"{name}: unsupported: {image}: {text!r}" for image, text in unsupported]
            notes += [f"{name}: another image's text: {image}: {text!r}" for image, text in others]
    for line in notes + failed:
        print(line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
