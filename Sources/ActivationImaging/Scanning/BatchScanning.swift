import Foundation
import Synchronization

/// Scanning many files: collected from files and folders, decoded in parallel, reported in input order.
extension BarcodeScanner {
    /// The file names `scan` picks up inside folders (files named explicitly are always scanned).
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "jpe", "pgm", "ppm", "pbm", "pnm"]

    /// Expands folders (recursively, sorted by name, hidden entries and symbolic links to folders
    /// skipped) into the image files inside them; other paths are kept as given.
    public static func collectFiles(_ paths: [String]) -> [String] {
        var result: [String] = []
        func walk(_ directory: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                result.append(directory)  // unreadable: let the scan report it
                return
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = directory.hasSuffix("/") ? directory + name : "\(directory)/\(name)"
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
                    if !isLink { walk(path) }
                } else if imageExtensions.contains((name as NSString).pathExtension.lowercased()) {
                    result.append(path)
                }
            }
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                walk(path)
            } else {
                result.append(path)
            }
        }
        return result
    }

    /// One file's outcome.
    public struct FileResult: Sendable {
        public var path: String
        public var outcome: Result<Trace, ImagingError>
        /// Time spent on this file (reading, decoding, scanning).
        public var duration: Duration
    }

    /// Scans `paths` on up to `concurrency` threads and hands each result to `report` in input
    /// order, as soon as it and all before it are done.
    ///
    /// Memory stays bounded: at most `concurrency` images are decoded at a time, and workers run at
    /// most `4 × concurrency` files ahead of the oldest unreported one.
    public func scanFiles(_ paths: [String], concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
                          report: (FileResult) -> Void) {
        let scanner = self
        OrderedParallel.run(count: paths.count, concurrency: max(1, concurrency), lookahead: 4 * max(1, concurrency)) { index in
            let clock = ContinuousClock()
            let start = clock.now
            let outcome = Result { try scanner.trace(scanner.decoder.decodeFile(paths[index])) }.mapError {
                $0 as? ImagingError ?? ImagingError(.libraryFailure, "\(paths[index]): \($0)")
            }
            return FileResult(path: paths[index], outcome: outcome, duration: clock.now - start)
        } emit: { _, result in
            report(result)
        }
    }
}

/// A parallel map whose results are emitted in input order, with a bounded window of work ahead.
enum OrderedParallel {
    static func run<T: Sendable>(count: Int, concurrency: Int, lookahead: Int,
                                 work: @escaping @Sendable (Int) -> T, emit: (Int, T) -> Void) {
        guard count > 0 else { return }
        let state = OrderedParallelState<T>()
        let workers = min(concurrency, count)
        for _ in 0..<workers {
            Thread.detachNewThread {
                while true {
                    state.condition.lock()
                    // Do not run too far ahead of what has been reported.
                    while state.nextToStart < count && state.nextToStart >= state.nextToEmit + lookahead {
                        state.condition.wait()
                    }
                    guard state.nextToStart < count else {
                        state.condition.unlock()
                        return
                    }
                    let index = state.nextToStart
                    state.nextToStart += 1
                    state.condition.unlock()

                    let value = work(index)

                    state.condition.lock()
                    state.results[index] = value
                    state.condition.broadcast()
                    state.condition.unlock()
                }
            }
        }
        while true {
            state.condition.lock()
            while state.results[state.nextToEmit] == nil { state.condition.wait() }
            let index = state.nextToEmit
            let value = state.results.removeValue(forKey: index)!
            state.nextToEmit += 1
            state.condition.broadcast()
            state.condition.unlock()
            emit(index, value)
            if index == count - 1 { return }
        }
    }
}

/// Shared between the workers and the emitting thread; every access holds `condition`'s lock.
private final class OrderedParallelState<T>: @unchecked Sendable {
    let condition = NSCondition()
    var results: [Int: T] = [:]
    var nextToStart = 0
    var nextToEmit = 0
}
