#!/usr/bin/env python3
"""Decoding speed side by side: `activate scan` against zxing-cpp 3.1.1 (PyPI, all images in one
Python process: a yardstick, never a product dependency), timed by hyperfine in one invocation per
group of images, image loading included on both sides.

usage: benchmarks/decode-speed.py CORPUS_DIR [--runs 8] [--jobs N] [--activate PATH]
                                  [--no-categories] [--slowest K]

Groups: the whole corpus on one thread; the whole corpus on all cores (activate --jobs N against
the reader spread over N worker processes); each category; the images without a code. For each:
the mean and standard deviation of both, the ratio of the means, and the ratio once each tool's
start-up (the same command on one 1×1 image, timed the same way) is taken off both sides: the
figure that says how the decoders compare on few images, where Python's start dominates.
The reads of both over the corpus (eval.sh's rule) come first. --slowest K prints the K images each
decoder spends longest on, and for activate which passes the time went to (`scan --verbose`).

CORPUS_DIR as for compare-decoders.py: a folder per category, each image beside its .txt; folders
named falsepositives* hold images without a code.
"""
import argparse, importlib.util, json, os, re, shlex, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("compare_decoders", os.path.join(ROOT, "benchmarks", "compare-decoders.py"))
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)
READER = os.path.join(ROOT, "benchmarks", "zxingcpp-reader.py")


def hyperfine(commands, runs, work):
    """[(mean s, stddev s)] of each command, timed in one hyperfine invocation."""
    export = os.path.join(work, "hyperfine.json")
    subprocess.run(["hyperfine", "-N", "-i", "-w", "1", "-r", str(runs), "--style", "none", "--export-json", export]
                   + [shlex.join(command) for command in commands], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = json.load(open(export))["results"]
    return [(r["mean"], r["stddev"] or 0.0) for r in results]


def reads(items, activate, python):
    """How many images each decoder reads correctly, and the false positives of each."""
    images = [i[2] for i in items]
    found_activate, _ = compare.run_activate(activate, images, "normal", 1)
    found_zxing, *_ = compare.run_zxing_cpp(python, images)
    def count(found):
        positive = sum(1 for k, i in enumerate(items) if i[1] == "positive" and compare.correct(i[3], found[k]))
        false = sum(1 for k, i in enumerate(items) if i[1] == "negative" and found[k])
        qr = sum(1 for k, i in enumerate(items) if re.search(r"(^|-)qrcode-\d+$", i[0]) and compare.correct(i[3], found[k]))
        return positive, qr, false
    return count(found_activate), count(found_zxing)


def slowest(images, activate, python, k):
    """The k images each decoder takes longest on, activate's with its passes."""
    process = subprocess.run([activate, "scan", "--verbose", "--raw", "--jobs", "1"] + images,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    timed = []
    for line in process.stderr.splitlines():
        match = re.match(r"(.*?): (?:nothing after \d+ passes|\d+ found by (\S+) \(pass \d+\)), ([\d.]+) ms \[(.*)\]$", line)
        if match:
            timed.append((float(match.group(3)), match.group(1), match.group(2) or "nothing", match.group(4)))
    timed.sort(reverse=True)
    print(f"\nactivate's {k} slowest images (--jobs 1, loading included; the passes that ran, in ms):")
    for ms, path, found, passes in timed[:k]:
        print(f"  {ms:7.1f} ms  {os.path.relpath(path, ROOT)}  found by {found}\n             {passes}")
    out = subprocess.run([python, READER] + images, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    reports = sorted((json.loads(line) for line in out.splitlines()), key=lambda r: -(r["load_ms"] + r["decode_ms"]))
    print(f"\nzxing-cpp 3.1.1's {k} slowest images (loading + decoding, ms):")
    for report in reports[:k]:
        print(f"  {report['load_ms'] + report['decode_ms']:7.1f} ms  {os.path.relpath(report['file'], ROOT)}"
              f"  (decoding {report['decode_ms']:.1f}){'  found' if report['texts'] else ''}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--activate", default=os.path.join(ROOT, ".build", "shipped", "release", "activate"))
    parser.add_argument("--no-categories", action="store_true", help="only the whole corpus and the images without a code")
    parser.add_argument("--slowest", type=int, default=0, metavar="K")
    args = parser.parse_args()
    python = compare.bench_python()
    items = compare.collect(args.corpus)
    if not items:
        sys.exit(f"{args.corpus}: no images with expected texts")
    images = [i[2] for i in items]

    with tempfile.TemporaryDirectory(prefix="activate-speed-") as work:
        tiny = os.path.join(work, "tiny.png")
        subprocess.run([python, "-c", f"import PIL.Image; PIL.Image.new('L', (1, 1), 255).save({tiny!r})"], check=True)
        (start_activate, _), (start_zxing, _) = hyperfine([[args.activate, "scan", "--raw", "--jobs", "1", tiny], [python, READER, tiny]],
                                                          args.runs, work)
        (ok_a, qr_a, fp_a), (ok_z, qr_z, fp_z) = reads(items, args.activate, python)
        positives = sum(1 for i in items if i[1] == "positive")
        qr_total = sum(1 for i in items if re.search(r"(^|-)qrcode-\d+$", i[0]))
        print(f"corpus {os.path.abspath(args.corpus)}: {len(images)} images, hyperfine -N -i -w 1 -r {args.runs}")
        print(f"reads: activate {ok_a}/{positives} (QR {qr_a}/{qr_total}, false positives {fp_a}); "
              f"zxing-cpp 3.1.1 {ok_z}/{positives} (QR {qr_z}/{qr_total}, false positives {fp_z})")
        print(f"start-up (one 1×1 image): activate {1000 * start_activate:.1f} ms, zxing-cpp (Python, imports) {1000 * start_zxing:.1f} ms\n")

        groups = [("all, one thread", images, 1), (f"all, {args.jobs} jobs", images, args.jobs)]
        negatives = [i[2] for i in items if i[1] == "negative"]
        if negatives:
            groups.append(("without a code", negatives, 1))
        if not args.no_categories:
            for category in sorted({i[0] for i in items}):
                groups.append((category, [i[2] for i in items if i[0] == category], 1))
        print(f"| images | n | activate (ms) | zxing-cpp 3.1.1 (ms) | ratio | ratio without start-up |")
        print(f"|---|---|---|---|---|---|")
        for name, paths, jobs in groups:
            reader = [python, READER] + (["--jobs", str(jobs)] if jobs > 1 else []) + paths
            (a, a_sd), (z, z_sd) = hyperfine([[args.activate, "scan", "--raw", "--jobs", str(jobs)] + paths, reader], args.runs, work)
            # Without start-up only where both sides keep more than their noise (a few images are
            # over in less time than the start-up varies).
            net_a, net_z = a - start_activate, z - start_zxing
            readable = net_a > 2 * a_sd and net_z > 2 * z_sd and net_a > 0.003 and net_z > 0.003
            net = net_a / net_z if readable else None
            print(f"| {name} | {len(paths)} | {1000 * a:.0f} ± {1000 * a_sd:.0f} | {1000 * z:.0f} ± {1000 * z_sd:.0f} "
                  f"| {a / z:.2f}× | {f'{net:.2f}×' if net else '(too short)'} |", flush=True)
            if name == "without a code" and net:
                print(f"| … per image | 1 | {1000 * net_a / len(paths):.1f} | {1000 * net_z / len(paths):.1f} | | {net:.2f}× |")
    if args.slowest:
        slowest(images, args.activate, python, args.slowest)


if __name__ == "__main__":
    main()
