// In-process timing of the decoding pipeline against a single libzbar pass, on the images a
// single pass already reads (where the pipeline must cost next to nothing extra).
//
//   swift run -c release decode-benchmark CORPUS_DIR [REPEATS]
//
// Each image is decoded from its file once; then `--effort fast` (exactly one zbar pass through
// activate's thin wrapper) and the default pipeline (`normal`) each scan it REPEATS times, and
// the median time of each is kept.
import ActivationConfiguration
import ActivationImaging
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let corpus = arguments.first else {
    print("usage: decode-benchmark CORPUS_DIR [REPEATS]")
    exit(64)
}
let repeats = arguments.dropFirst().first.flatMap(Int.init) ?? 5
let fast = BarcodeScanner(effort: .fast)
let normal = BarcodeScanner(effort: .normal)
let clock = ContinuousClock()

func median(_ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<repeats {
        let start = clock.now
        body()
        samples.append((clock.now - start).inMilliseconds)
    }
    return samples.sorted()[samples.count / 2]
}

var firstPass = 0, others = 0
var fastTotal = 0.0, normalTotal = 0.0, worst = (ratio: 0.0, file: "")
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
print(String(format: "single zbar pass (--effort fast): %8.1f ms in all, %6.2f ms/image", fastTotal, fastTotal / Double(max(1, firstPass))))
print(String(format: "pipeline (--effort normal):       %8.1f ms in all, %6.2f ms/image", normalTotal, normalTotal / Double(max(1, firstPass))))
print(String(format: "ratio pipeline / single pass: %.3f (worst image %.2f: %@)", normalTotal / max(fastTotal, 1e-9), worst.ratio, worst.file))
