#!/usr/bin/env python3
"""Side-by-side decoder benchmark, in one run: activate (one batch process, with --jobs N and with
--jobs 1), zbarimg (one process per image, best flags), ZXingReader 1.4 (Debian's, one process per
image) and zxing-cpp 3.1.1 (PyPI, all images in one Python process: a yardstick, never a product
dependency; the venv .build/bench-venv is made on first use) over a corpus folder.

usage: benchmarks/compare-decoders.py CORPUS_DIR [--activate PATH] [--effort normal] [--jobs N]
                                      [--stress] [--no-zxing-cpp]
       benchmarks/compare-decoders.py --bench-python     (the venv's python, made if needed)

--stress also runs every decoder on the QR stress variants of tools/stress_public_qr.sh (rotated,
perspective, low contrast, blurred, JPEG q15, half size; made with ImageMagick into a temporary
folder) and prints their counts.

CORPUS_DIR holds one folder per category (or images directly), each image <stem>.png|jpg beside
<stem>.txt (exact expected payload) or <stem>.multi.txt (one expected payload per line, all must
appear). Folders named falsepositives* hold images without a code: any output is a false positive.
Folders named unsupported* are skipped. Prints decode counts per category and the wall time of each
decoder (image loading included) with its ratio to activate's batch, and zxing-cpp's time spent
decoding alone beside its whole time.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_VENV = os.path.join(ROOT, ".build", "bench-venv")
ZXING_CPP = ["zxing-cpp==3.1.1", "pillow==13.0.0"]
# The variants of ../shared/corpus/tools/stress_public_qr.sh, as ImageMagick arguments.
STRESS = [
    ("rot90", ["-rotate", "90"]),
    ("rot30", ["-background", "white", "-rotate", "30"]),
    ("rot45", ["-background", "white", "-rotate", "45"]),
    ("perspective", "PERSPECTIVE"),
    ("lowcontrast", ["+level", "35%,65%"]),
    ("blur1.5", ["-blur", "0x1.5"]),
    ("jpeg-q15", "JPEG15"),
    ("half-size", ["-resize", "50%"]),
]

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pgm", ".ppm")
ZBAR = ["zbarimg", "-q", "--raw", "--nodbus", "-Supca.enable", "-Supce.enable", "-Stest-inverted"]


def collect(root):
    """[(category, kind, image, expected)] with kind positive or negative."""
    items = []
    entries = sorted(os.listdir(root))
    folders = [(e, os.path.join(root, e)) for e in entries if os.path.isdir(os.path.join(root, e))]
    if any(e.lower().endswith(IMAGE_EXTENSIONS) for e in entries):
        folders.insert(0, (os.path.basename(os.path.abspath(root)), root))
    for category, folder in folders:
        if category.startswith("unsupported"):
            continue
        kind = "negative" if category.startswith("falsepositives") else "positive"
        for name in sorted(os.listdir(folder)):
            if not name.lower().endswith(IMAGE_EXTENSIONS):
                continue
            stem = os.path.splitext(name)[0]
            multi, single = os.path.join(folder, stem + ".multi.txt"), os.path.join(folder, stem + ".txt")
            if os.path.exists(multi):
                expected = ("multi", [l for l in open(multi, "rb").read().split(b"\n") if l])
            elif os.path.exists(single):
                expected = ("single", open(single, "rb").read())
            elif kind == "positive":
                continue
            else:
                expected = None
            items.append((category, kind, os.path.join(folder, name), expected))
    return items


def strip1(data):
    return data[:-1] if data.endswith(b"\n") else data


def correct(expected, texts):
    """The rule of eval.sh: the exact payload (one trailing LF forgiven) among the decoded texts."""
    if expected[0] == "multi":
        return all(e in texts for e in expected[1])
    return any(t in (expected[1], strip1(expected[1])) for t in texts) or \
        any((b"\n" + b"\n".join(texts) + b"\n").find(b"\n" + e + b"\n") >= 0 for e in (expected[1], strip1(expected[1])))


def run_activate(binary, images, effort, jobs):
    start = time.monotonic()
    out = subprocess.run([binary, "scan", "--json-lines", "--effort", effort, "--jobs", str(jobs)] + images,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    wall = time.monotonic() - start
    texts = {}
    for line in out.splitlines():
        report = json.loads(line)
        texts[report["file"]] = [s["text"].encode("utf-8") for s in report["symbols"]]
    return [texts.get(image, []) for image in images], wall


def run_each(command, images, parse):
    results = []
    start = time.monotonic()
    for image in images:
        try:
            out = subprocess.run(command + [image], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30).stdout
        except subprocess.TimeoutExpired:
            out = b""
        results.append(parse(out))
    return results, time.monotonic() - start


def zbar_texts(out):
    # zbarimg --raw: each symbol's text and a newline (texts with newlines are ambiguous; the whole
    # output is kept as one candidate too).
    return ([strip1(out)] + out.split(b"\n")) if out.strip() else []


def zxing_texts(out):
    # ZXingReader prints 'Text:       "..."' per symbol (the parsing of tools/zxingreader-text.sh).
    return [m.encode("utf-8") for m in re.findall(r'^Text:       "(.*?)"\nBytes:      ', out.decode("utf-8", "replace"), re.M | re.S)]


def bench_python():
    """The venv with zxing-cpp 3.1.1 and Pillow, made on first use."""
    python = os.path.join(BENCH_VENV, "bin", "python")
    check = [python, "-c", "import zxingcpp, PIL"]
    if not os.path.exists(python) or subprocess.run(check, capture_output=True).returncode != 0:
        print(f"making {BENCH_VENV} (pip install {' '.join(ZXING_CPP)})", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", BENCH_VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + ZXING_CPP, check=True)
    return python


def run_zxing_cpp(python, images):
    """All images in one process; the texts, the whole wall time and the time spent decoding alone."""
    start = time.monotonic()
    out = subprocess.run([python, os.path.join(ROOT, "benchmarks", "zxingcpp-reader.py")], input="\n".join(images) + "\n",
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    wall = time.monotonic() - start
    texts, decode_ms, load_ms = {}, 0.0, 0.0
    for line in out.splitlines():
        report = json.loads(line)
        texts[report["file"]] = [t.encode("utf-8") for t in report["texts"]]
        decode_ms += report["decode_ms"]
        load_ms += report["load_ms"]
    return [texts.get(image, []) for image in images], wall, decode_ms / 1000, load_ms / 1000


def stress_variants(corpus, work):
    """tools/stress_public_qr.sh's variants of the QR categories, written below `work`: {variant: folder}."""
    categories = [c for c in sorted(os.listdir(corpus)) if re.search(r"qrcode-\d+$", c) and "micro" not in c]
    folders = {}
    for variant, operation in STRESS:
        for category in categories:
            target = os.path.join(work, variant, category)
            os.makedirs(target, exist_ok=True)
            for name in sorted(os.listdir(os.path.join(corpus, category))):
                source = os.path.join(corpus, category, name)
                stem, extension = os.path.splitext(name)
                if extension == ".txt":
                    shutil.copy(source, target)
                elif extension.lower() in (".png", ".jpg"):
                    if operation == "JPEG15":
                        subprocess.run(["convert", source, "-quality", "15", os.path.join(target, stem + ".jpg")], check=True)
                    elif operation == "PERSPECTIVE":
                        w, h = map(int, subprocess.run(["identify", "-format", "%w %h\n", source], capture_output=True, text=True,
                                                       check=True).stdout.split()[:2])
                        corners = "0,0,%d,%d %d,0,%d,%d %d,%d,%d,%d 0,%d,%d,%d" % (
                            w * .10, h * .05, w, w * .80, h * .20, w, h, w * .85, h * .80, h, w * .05, h * .95)
                        subprocess.run(["convert", source, "-virtual-pixel", "white", "-distort", "Perspective", corners,
                                        os.path.join(target, stem + ".png")], check=True)
                    else:
                        subprocess.run(["convert", source] + operation + [os.path.join(target, stem + ".png")], check=True)
        folders[variant] = os.path.join(work, variant)
    return folders


def run_all(args, images, python):
    """Every decoder over `images`: [(name, results, wall)], and zxing-cpp's decode-only and load times."""
    decoders = [("activate", *run_activate(args.activate, images, args.effort, args.jobs))]
    if args.jobs != 1:
        decoders.append(("activate-j1", *run_activate(args.activate, images, args.effort, 1)))
    decoders += [("zbarimg", *run_each(ZBAR, images, zbar_texts)),
                 ("ZXingReader", *run_each(["ZXingReader"], images, zxing_texts))]
    extra = None
    if python:
        results, wall, decode_only, load_only = run_zxing_cpp(python, images)
        decoders.append(("zxing-cpp-3.1", results, wall))
        extra = (decode_only, load_only)
    return decoders, extra


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?")
    parser.add_argument("--bench-python", action="store_true", help="make the zxing-cpp venv if needed, print its python, and stop")
    parser.add_argument("--activate", default=os.path.join(os.path.dirname(__file__), "..", ".build", "shipped", "release", "activate"))
    parser.add_argument("--effort", default="normal")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--stress", action="store_true", help="also the QR stress variants")
    parser.add_argument("--no-zxing-cpp", action="store_true", help="leave zxing-cpp 3.1.1 out (no venv, no network)")
    args = parser.parse_args()
    if args.bench_python:
        print(bench_python())
        return
    if not args.corpus:
        parser.error("give CORPUS_DIR")
    for tool in ("zbarimg", "ZXingReader") + (("convert", "identify") if args.stress else ()):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed (scripts/setup.sh --bench)")
    python = None if args.no_zxing_cpp else bench_python()
    items = collect(args.corpus)
    images = [i[2] for i in items]
    print(f"corpus {os.path.abspath(args.corpus)}: {len(images)} images; activate --effort {args.effort} --jobs {args.jobs}", flush=True)

    decoders, zxing_cpp_split = run_all(args, images, python)
    categories = sorted({i[0] for i in items if i[1] == "positive"})
    header = f"{'category':<18}{'images':>7}" + "".join(f"{name:>15}" for name, _, _ in decoders)
    print(header)
    print("-" * len(header))
    totals = {name: 0 for name, _, _ in decoders}
    families = {"QR": re.compile(r"(^|-)qrcode-\d+$"), "MicroQR": re.compile(r"microqrcode"), "1D": re.compile(r"^(ean|upc|code|itf|codabar|rss|databar)")}
    family_totals = {f: {name: 0 for name, _, _ in decoders} for f in families}
    family_sizes = {f: 0 for f in families}
    for category in categories:
        indices = [k for k, i in enumerate(items) if i[0] == category]
        row = f"{category:<18}{len(indices):>7}"
        for name, results, _ in decoders:
            count = sum(1 for k in indices if correct(items[k][3], results[k]))
            totals[name] += count
            for family, pattern in families.items():
                if pattern.search(category):
                    family_totals[family][name] += count
            row += f"{count:>15}"
        for family, pattern in families.items():
            if pattern.search(category):
                family_sizes[family] += len(indices)
        print(row)
    print("-" * len(header))
    positives = sum(1 for i in items if i[1] == "positive")
    print(f"{'TOTAL':<18}{positives:>7}" + "".join(f"{totals[name]:>15}" for name, _, _ in decoders))
    for family in families:
        if family_sizes[family]:
            print(f"{'  ' + family:<18}{family_sizes[family]:>7}" + "".join(f"{family_totals[family][name]:>15}" for name, _, _ in decoders))
    negatives = [k for k, i in enumerate(items) if i[1] == "negative"]
    if negatives:
        print(f"{'false positives':<18}{len(negatives):>7}" + "".join(f"{sum(1 for k in negatives if results[k]):>15}" for _, results, _ in decoders))
    print()
    base = decoders[0][2]
    for name, _, wall in decoders:
        print(f"wall {name:<14} {wall:8.2f} s   {wall / base:6.2f}x activate   {1000 * wall / len(images):7.1f} ms/image")
    if zxing_cpp_split:
        decode_only, load_only = zxing_cpp_split
        print(f"     zxing-cpp-3.1 inside: decoding {decode_only:.2f} s, loading (Pillow) {load_only:.2f} s, the rest is Python's start")
    if negatives:
        print("false-positive images, per image: " + ", ".join(
            f"{name} {1000 * wall_of(args, name, [items[k][2] for k in negatives], python):.1f} ms" for name, _, _ in decoders))

    if args.stress:
        print()
        with tempfile.TemporaryDirectory(prefix="activate-stress-") as work:
            variants = stress_variants(args.corpus, work)
            header = f"{'stress variant':<16}{'images':>7}" + "".join(f"{name:>15}" for name, _, _ in decoders)
            print(header)
            print("-" * len(header))
            for variant, folder in variants.items():
                stressed = collect(folder)
                paths = [i[2] for i in stressed]
                results, _ = run_all(args, paths, python)
                print(f"{variant:<16}{len(paths):>7}" + "".join(
                    f"{sum(1 for k, item in enumerate(stressed) if correct(item[3], found[k])):>15}" for _, found, _ in results))


def wall_of(args, name, images, python):
    """The wall time per image of one decoder over `images` alone (the false-positive images)."""
    if name == "activate":
        return run_activate(args.activate, images, args.effort, args.jobs)[1] / len(images)
    if name == "activate-j1":
        return run_activate(args.activate, images, args.effort, 1)[1] / len(images)
    if name == "zbarimg":
        return run_each(ZBAR, images, zbar_texts)[1] / len(images)
    if name == "ZXingReader":
        return run_each(["ZXingReader"], images, zxing_texts)[1] / len(images)
    return run_zxing_cpp(python, images)[1] / len(images)


if __name__ == "__main__":
    main()
