#!/usr/bin/env python3
"""Replays orders of the decoding pipeline's passes without decoding again (issue 13).

    .build/shipped/release/decode-benchmark --passes DIR... > study.jsonl     (every candidate pass, each image)
    benchmarks/pass-study.py study.jsonl... [--pipeline FILE] [--greedy N] [--passes]

Each JSONL file is one set (the public corpus, one stress variant, …): per image, the time to load
it and, for every candidate pass, its time (preparation and decoding) and the texts it found. An
image's expected payload is its <stem>.txt (or .multi.txt) beside it; images in folders named
falsepositives* have none. The rule of eval.sh decides what counts as read.

A pipeline is a list of stages, each a list of passes whose finds are merged; a scan stops after
the first stage that finds anything. A stage {"when": ["evidence-finders", 1], "passes": [...]}
runs only on images whose evidence measure reaches the minimum, {"unless": [...], ...} only on the
others (the measure's cost is paid once, when first asked). A pipeline's cost on an image is the load, each preparation once in a row, and each pass
it runs. --pipeline reads one (JSON); --passes prints what each pass reads alone and at what cost;
--greedy N builds N stages after the pipeline's, each time the pass with the most new reads per
added millisecond over all sets (--weight SET=W scales a set's time, --target SET=N counts a set's
reads only up to N, --greedy-when MEASURE=MIN puts the new stages behind that evidence).

The pipeline of ScanPass.passes(for: .normal) came out of this, over the public corpus and the
eight stress variants of compare-decoders.py --stress (docs/scanning.md, "The decoding pipeline").
"""
import argparse, collections, importlib.util, json, os, sys

# The rule of eval.sh, as compare-decoders.py has it.
_spec = importlib.util.spec_from_file_location("compare_decoders", os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare-decoders.py"))
_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_compare)
correct = _compare.correct


def expected_for(path):
    stem = os.path.splitext(path)[0]
    if os.path.exists(stem + ".multi.txt"):
        return ("multi", [l for l in open(stem + ".multi.txt", "rb").read().split(b"\n") if l])
    if os.path.exists(stem + ".txt"):
        return ("single", open(stem + ".txt", "rb").read())
    return None


class Image:
    def __init__(self, path):
        self.path, self.load, self.passes, self.prepare = path, 0.0, {}, {}
        self.negative = "falsepositives" in path
        self.expected = None if self.negative else expected_for(path)


def read_set(path):
    images = collections.OrderedDict()
    for line in open(path):
        record = json.loads(line)
        image = images.setdefault(record["file"], Image(record["file"]))
        if record["pass"] == "load":
            image.load = record["decode_ms"]
            continue
        image.passes[record["pass"]] = (record["decode_ms"], [t.encode() for t in record["texts"]] if not record["pass"].startswith("evidence") else record["texts"])
        image.prepare[record["pass"]] = (record["preparation"], record["prepare_ms"])
    return [i for i in images.values() if i.negative or i.expected]


def run(image, pipeline):
    """(time, texts, stage index that found, or None) of one pipeline on one image."""
    time, last_preparation = image.load, None
    measured = set()
    for index, stage in enumerate(pipeline):
        if isinstance(stage, dict):
            # {"when": [MEASURE, MINIMUM], "passes": [...]}: the passes run only when the evidence
            # measure (a pseudo-pass whose text is a number, paid for once) reaches MINIMUM.
            # {"unless": [MEASURE, MINIMUM], …}: only when the measure stays below MINIMUM.
            below = "unless" in stage
            measure, minimum = stage["unless" if below else "when"]
            if measure in image.passes:
                if measure not in measured:
                    measured.add(measure)
                    time += image.passes[measure][0] + image.prepare[measure][1]
                if (int(image.passes[measure][1][0]) < minimum) != below:
                    continue
            stage = stage["passes"]
        texts = []
        for name in stage:
            if name not in image.passes:
                continue
            preparation, prepare_ms = image.prepare[name]
            if preparation != last_preparation:
                time += prepare_ms
                last_preparation = preparation
            ms, found = image.passes[name]
            time += ms
            texts += found
        if texts:
            return time, texts, index
    return time, [], None


def score(images, pipeline):
    reads = wrong = fp = 0
    time = 0.0
    negative_time = 0.0
    for image in images:
        t, texts, _ = run(image, pipeline)
        time += t
        if image.negative:
            fp += bool(texts)
            negative_time += t
        elif texts and correct(image.expected, texts):
            reads += 1
        elif texts:
            wrong += 1
    return reads, wrong, fp, time, negative_time


def report(sets, pipeline, out=sys.stdout):
    print(f"{'set':14} {'images':>6} {'read':>5} {'wrong':>5} {'fp':>3} {'ms':>9} {'ms/neg':>7}", file=out)
    for name, images in sets.items():
        reads, wrong, fp, time, negative_time = score(images, pipeline)
        negatives = sum(i.negative for i in images)
        print(f"{name:14} {len(images):6} {reads:5} {wrong:5} {fp:3} {time:9.1f} {negative_time / max(1, negatives):7.1f}", file=out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--pipeline")
    parser.add_argument("--passes", action="store_true")
    parser.add_argument("--greedy", type=int, default=0)
    parser.add_argument("--weight", action="append", default=[], help="SET=W: weight of a set's time in --greedy (default 1)")
    parser.add_argument("--greedy-when", help="MEASURE=MIN: the stages --greedy adds run only on that evidence")
    parser.add_argument("--target", action="append", default=[], help="SET=N: in --greedy, reads of this set count only up to N")
    args = parser.parse_args()
    sets = collections.OrderedDict((os.path.splitext(os.path.basename(p))[0], read_set(p)) for p in args.sets)
    pipeline = json.load(open(args.pipeline)) if args.pipeline else []
    if pipeline:
        report(sets, pipeline)
    if args.passes:
        names = sorted({n for images in sets.values() for i in images for n in i.passes if not n.startswith("evidence")})
        print(f"{'pass':40} " + " ".join(f"{s[:11]:>11}" for s in sets))
        for name in names:
            cells = []
            for images in sets.values():
                reads = sum(1 for i in images if not i.negative and name in i.passes and correct(i.expected, i.passes[name][1]))
                ms = sum(i.passes[name][0] + i.prepare[name][1] for i in images if name in i.passes)
                cells.append(f"{reads:4}/{ms:6.0f}")
            print(f"{name:40} " + " ".join(f"{c:>11}" for c in cells))
    weights = {w.split("=")[0]: float(w.split("=")[1]) for w in args.weight}
    targets = {t.split("=")[0]: int(t.split("=")[1]) for t in args.target}

    def stage_of(name):
        if not args.greedy_when:
            return [name]
        measure, minimum = args.greedy_when.split("=")
        return {"when": [measure, int(minimum)], "passes": [name]}
    for _ in range(args.greedy):
        base = {name: [run(i, pipeline) for i in images] for name, images in sets.items()}
        names = sorted({n for images in sets.values() for i in images for n in i.passes if not n.startswith("evidence")} - {n for s in pipeline for n in (s["passes"] if isinstance(s, dict) else s)})
        best = None
        for name in names:
            gain, cost = 0, 0.0
            for set_name, images in sets.items():
                for image, (t, texts, _) in zip(images, base[set_name]):
                    if texts:
                        continue
                    t2, texts2, _ = run(image, pipeline + [stage_of(name)])
                    cost += (t2 - t) * weights.get(set_name, 1.0)
                    if texts2:
                        gain += 1 if (not image.negative and correct(image.expected, texts2)) else -5
            value = gain / max(cost, 1.0)
            if targets:
                # Reads count only while a set is below its target.
                gain = 0
                for set_name, images in sets.items():
                    before = sum(1 for image, (t, texts, _) in zip(images, base[set_name]) if texts and not image.negative and correct(image.expected, texts))
                    need = targets.get(set_name, 10**9) - before
                    added = 0
                    for image, (t, texts, _) in zip(images, base[set_name]):
                        if texts:
                            continue
                        t2, texts2, _ = run(image, pipeline + [stage_of(name)])
                        if texts2:
                            added += 1 if (not image.negative and correct(image.expected, texts2)) else -5
                    gain += min(added, max(need, 0)) if added > 0 else added
                value = gain / max(cost, 1.0)
            if best is None or value > best[0]:
                best = (value, name, gain, cost)
        if best is None or best[2] <= 0:
            break
        pipeline = pipeline + [stage_of(best[1])]
        print(f"+ {best[1]:40} gain {best[2]:4} cost {best[3]:9.1f} ms")
    if args.greedy:
        print(json.dumps(pipeline))
        report(sets, pipeline)


if __name__ == "__main__":
    main()
