#!/usr/bin/env python3
"""Side-by-side decoder benchmark, in one run: activate (one batch process), zbarimg (one process
per image, best flags) and ZXingReader (one process per image) over a corpus folder.

usage: benchmarks/compare-decoders.py CORPUS_DIR [--activate PATH] [--effort normal] [--jobs N]

CORPUS_DIR holds one folder per category (or images directly), each image <stem>.png|jpg beside
<stem>.txt (exact expected payload) or <stem>.multi.txt (one expected payload per line, all must
appear). Folders named falsepositives* hold images without a code: any output is a false positive.
Folders named unsupported* are skipped. Prints decode counts per category and the wall time of each
decoder with its ratio to activate's batch.
"""
import argparse, json, os, re, shutil, subprocess, sys, time

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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--activate", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "activate"))
    parser.add_argument("--effort", default="normal")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    for tool in ("zbarimg", "ZXingReader"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed (scripts/setup.sh --bench)")
    items = collect(args.corpus)
    images = [i[2] for i in items]
    print(f"corpus {os.path.abspath(args.corpus)}: {len(images)} images; activate --effort {args.effort} --jobs {args.jobs}", flush=True)

    decoders = [("activate", *run_activate(args.activate, images, args.effort, args.jobs)),
                ("zbarimg", *run_each(ZBAR, images, zbar_texts)),
                ("ZXingReader", *run_each(["ZXingReader"], images, zxing_texts))]

    categories = sorted({i[0] for i in items if i[1] == "positive"})
    header = f"{'category':<18}{'images':>7}" + "".join(f"{name:>13}" for name, _, _ in decoders)
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
            row += f"{count:>13}"
        for family, pattern in families.items():
            if pattern.search(category):
                family_sizes[family] += len(indices)
        print(row)
    print("-" * len(header))
    positives = sum(1 for i in items if i[1] == "positive")
    print(f"{'TOTAL':<18}{positives:>7}" + "".join(f"{totals[name]:>13}" for name, _, _ in decoders))
    for family in families:
        if family_sizes[family]:
            print(f"{'  ' + family:<18}{family_sizes[family]:>7}" + "".join(f"{family_totals[family][name]:>13}" for name, _, _ in decoders))
    negatives = [k for k, i in enumerate(items) if i[1] == "negative"]
    if negatives:
        print(f"{'false positives':<18}{len(negatives):>7}" + "".join(f"{sum(1 for k in negatives if results[k]):>13}" for _, results, _ in decoders))
    print()
    base = decoders[0][2]
    for name, _, wall in decoders:
        print(f"wall {name:<12} {wall:8.2f} s   {wall / base:6.2f}x activate   {1000 * wall / len(images):7.1f} ms/image")


if __name__ == "__main__":
    main()
