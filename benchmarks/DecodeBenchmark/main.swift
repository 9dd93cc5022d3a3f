// In-process timing of the decoding pipeline against a single libzbar pass, on the images a
// single pass already reads (where the pipeline must cost next to nothing extra).
//
// Built with the shipped release build (`scripts/release-build.sh decode-benchmark`), then run as
// .build/shipped/release/decode-benchmark:
//   decode-benchmark CORPUS_DIR [REPEATS]
//   decode-benchmark --passes [--only NAME,...] IMAGE_OR_DIR... > study.jsonl
//   decode-benchmark --pipeline > normal.json     (pass-study.py --pipeline)
//   decode-benchmark --round-trip                 (the zxing helper's cost by image size)
//   decode-benchmark --operations IMAGE           (each image operation's time on it)
//
// --passes runs every candidate pass of the pipeline (ScanPass.candidates) on its own over each
// image, and the finder-pattern evidence, one JSON line each; benchmarks/pass-study.py replays
// orders of them. --only keeps the named candidates (to add new ones to an earlier study).
//
// Each image is decoded from its file once; then `--effort fast` (exactly one zbar pass through
// activate's thin wrapper) and the default pipeline (`normal`) each scan it REPEATS times, and
// the median time of each is kept.
import ActivationConfiguration
import ActivationImaging
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let clock = ContinuousClock()

// --pipeline: the default pipeline in pass-study.py's form, to replay it over a study.
if arguments.first == "--pipeline" {
    let passes = ScanPass.passes(for: .normal)
    var stages: [Any] = passes.map { pass in
        if pass.needsFinderPair {
            return ["when": ["evidence-finder-pairs", 1] as [Any], "passes": [pass.name]] as [String: Any]
        }
        if pass.needsFinderPatterns {
            return ["when": ["evidence-finders", 1] as [Any], "passes": [pass.name]] as [String: Any]
        }
        if pass.needsLightFinderPatterns {
            return ["when": ["evidence-light-finders", 1] as [Any], "passes": [pass.name]] as [String: Any]
        }
        if pass.yieldsToFinderPair {
            return ["unless": ["evidence-finder-pairs", 1] as [Any], "passes": [pass.name]] as [String: Any]
        }
        return [pass.name]
    }
    // Where the image shows a finder pair, those passes run after all the others.
    stages += passes.filter(\.yieldsToFinderPair).map {
        ["when": ["evidence-finder-pairs", 1] as [Any], "passes": [$0.name]] as [String: Any]
    }
    let data = try JSONSerialization.data(withJSONObject: stages, options: [.sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
    exit(0)
}

// --round-trip: what handing an image to the zxing helper costs, without decoding, by size.
if arguments.first == "--round-trip" {
    for (width, height) in [(240, 240), (480, 480), (640, 480), (1280, 960), (2000, 1500), (4000, 3000)] {
        guard let time = BarcodeScanner.helperRoundTrip(width: width, height: height) else {
            print("no zxing helper")
            exit(1)
        }
        print(
            String(
                format: "%5d×%-5d %6.1f MP  %8.3f ms", width, height, Double(width * height) / 1e6,
                time.inMilliseconds))
    }
    exit(0)
}

// --operations IMAGE: the time of each image operation the pipeline uses, and of the finder
// survey, on one image (median of 41 runs each).
if arguments.first == "--operations", let path = arguments.dropFirst().first {
    let image = try ImageDecoder().decodeFile(path)
    let operations: [(String, () -> Void)] = [
        ("adaptiveThreshold", { _ = image.adaptiveThreshold(window: max(15, min(image.width, image.height) / 12)) }),
        ("boxBlurred 3×3", { _ = image.boxBlurred() }),
        ("sharpened", { _ = image.sharpened() }),
        ("scaled 2", { _ = image.scaled(by: 2) }),
        ("scaled 0.5", { _ = image.scaled(by: 0.5) }),
        ("stretched 2", { _ = image.stretched(horizontally: 2) }),
        ("stretched 1.25", { _ = image.stretched(horizontally: 1.25) }),
        ("unsharp rows r4", { _ = image.unsharpMasked(radius: 4, amount: 2, alongRowsOnly: true) }),
        ("rotated 22.5", { _ = image.rotated(degrees: 22.5) }),
        ("inverted", { _ = image.inverted() }),
        ("otsuThreshold", { _ = image.otsuThreshold() }),
        ("finder survey", { _ = BarcodeScanner.surveyFinders(image) }),
    ]
    print("\(path): \(image.width)×\(image.height)")
    for (name, operation) in operations {
        var samples: [Double] = []
        for _ in 0..<41 {
            let start = clock.now
            operation()
            samples.append((clock.now - start).inMilliseconds)
        }
        print(
            name.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: " %8.3f ms", samples.sorted()[20]))
    }
    exit(0)
}

// --passes: every candidate pass on its own over every image, one JSON line per image and pass
// (benchmarks/pass-study.py reads them).
if arguments.first == "--passes" {
    let scanner = BarcodeScanner()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // The names of the JSON lines the benchmark scripts read.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    struct Line: Encodable {
        var file: String, pixels: Int, pass: String, preparation: String, prepare_ms: Double, decode_ms: Double,
            texts: [String]
    }
    // --only NAME,NAME…: just these candidates.
    var files = Array(arguments.dropFirst())
    var candidates = ScanPass.candidates
    if files.first == "--only", files.count > 1 {
        let names = Set(files[1].split(separator: ",").map(String.init))
        candidates = candidates.filter { names.contains($0.name) }
        files.removeFirst(2)
    }
    for path in BarcodeScanner.collectFiles(files) {
        let start = clock.now
        guard let image = try? ImageDecoder().decodeFile(path) else { continue }
        let load = (clock.now - start).inMilliseconds
        try FileHandle.standardOutput.write(
            contentsOf: encoder.encode(
                Line(
                    file: path, pixels: image.width * image.height, pass: "load", preparation: "", prepare_ms: 0,
                    decode_ms: load, texts: [])) + [10])
        for outcome in scanner.study(image, passes: candidates) + scanner.studyEvidence(image) {
            let line = Line(
                file: path, pixels: image.width * image.height, pass: outcome.pass, preparation: outcome.preparation,
                prepare_ms: outcome.prepareMilliseconds, decode_ms: outcome.decodeMilliseconds,
                texts: outcome.symbols.map(\.text))
            try FileHandle.standardOutput.write(contentsOf: encoder.encode(line) + [10])
        }
    }
    exit(0)
}

guard let corpus = arguments.first else {
    print("usage: decode-benchmark CORPUS_DIR [REPEATS]")
    exit(64)
}
let repeats = arguments.dropFirst().first.flatMap(Int.init) ?? 5
let fast = BarcodeScanner(effort: .fast)
let normal = BarcodeScanner(effort: .normal)

func median(_ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<repeats {
        let start = clock.now
        body()
        samples.append((clock.now - start).inMilliseconds)
    }
    return samples.sorted()[samples.count / 2]
}

var firstPass = 0
var others = 0
var fastTotal = 0.0
var normalTotal = 0.0
var worst = (ratio: 0.0, file: "")
for path in BarcodeScanner.collectFiles([corpus]) {
    guard let image = try? ImageDecoder().decodeFile(path) else { continue }
    guard !fast.scan(image).isEmpty else {
        others += 1
        continue
    }
    firstPass += 1
    _ = normal.scan(image)  // warm up
    let fastTime = median { _ = fast.scan(image) }
    let normalTime = median { _ = normal.scan(image) }
    fastTotal += fastTime
    normalTotal += normalTime
    if normalTime / fastTime > worst.ratio { worst = (normalTime / fastTime, path) }
}
print("images read by the first pass: \(firstPass) (others: \(others)); median of \(repeats) runs each")
print(
    String(
        format: "single zbar pass (--effort fast): %8.1f ms in all, %6.2f ms/image", fastTotal,
        fastTotal / Double(max(1, firstPass))))
print(
    String(
        format: "pipeline (--effort normal):       %8.1f ms in all, %6.2f ms/image", normalTotal,
        normalTotal / Double(max(1, firstPass))))
print(
    String(
        format: "ratio pipeline / single pass: %.3f (worst image %.2f: %@)", normalTotal / max(fastTotal, 1e-9),
        worst.ratio, worst.file))
