import FileAccess
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
            guard let names = Files.folderNames(directory) else {
                result.append(directory)  // unreadable: let the scan report it
                return
            }
            for name in names where !name.hasPrefix(".") {
                let path = directory.hasSuffix("/") ? directory + name : "\(directory)/\(name)"
                // What the entry leads to; a dangling link leads nowhere and is passed over.
                guard let target = Files.type(of: path, followLinks: true) else { continue }
                if target == .directory {
                    // Links to folders are not followed: they can loop.
                    if Files.type(of: path, followLinks: false) == .directory { walk(path) }
                } else if imageExtensions.contains((name as NSString).pathExtension.lowercased()) {
                    result.append(path)  // a FIFO or device named like an image is refused when scanned, by name
                }
            }
        }
        for path in paths {
            if path != "-", Files.type(of: path, followLinks: true) == .directory {
                walk(path)
            } else {
                result.append(path)
            }
        }
        return result
    }

    /// One file's outcome.
    public struct FileResult: Sendable {
        /// The path as it was passed in (`-` for standard input).
        public var path: String
        /// What the scan found, or why the file could not be read or decoded.
        public var outcome: Result<Trace, ImagingError>
        /// Time spent on this file (reading, decoding, scanning).
        public var duration: Duration
    }

    /// Scans `paths` on up to `concurrency` threads and hands each result to `report` in input
    /// order, as soon as it and all before it are done.
    ///
    /// Memory stays bounded: at most `concurrency` images are decoded at a time, and workers run at
    /// most `64 × concurrency` files ahead of the oldest unreported one (a finished file's result
    /// is small; the room keeps one slow image from stalling the other workers).
    public func scanFiles(
        _ paths: [String], concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        report: (FileResult) -> Void
    ) {
        let scanner = withWorkers(concurrency)
        prepareEngines()
        OrderedParallel.run(count: paths.count, concurrency: max(1, concurrency), lookahead: 64 * max(1, concurrency)) {
            index in
            scanner.fileResult(paths[index])
        } emit: { _, result in
            report(result)
        }
    }
}

extension BarcodeScanner {
    /// The results of scanning `paths`, as an asynchronous sequence in input order: decoded on up
    /// to `concurrency` threads of their own (never the cooperative pool), at most
    /// `64 × concurrency` files ahead of the consumer. Ending the iteration, or cancelling the task
    /// that iterates, stops the work: no new file is started.
    ///
    /// ```swift
    /// for await result in BarcodeScanner().results(for: paths) {
    ///     print(result.path, (try? result.outcome.get().symbols.count) ?? 0)
    /// }
    /// ```
    public func results(for paths: [String], concurrency: Int = ProcessInfo.processInfo.activeProcessorCount)
        -> AsyncStream<FileResult>
    {
        let scanner = withWorkers(concurrency)
        let workers = max(1, concurrency)
        let (stream, continuation) = AsyncStream.makeStream(of: FileResult.self)
        let stop = StopFlag()
        continuation.onTermination = { _ in stop.set() }
        Thread.detachNewThread {
            // Here, not on the caller's thread: starting a process blocks its thread a moment.
            scanner.prepareEngines()
            OrderedParallel.run(count: paths.count, concurrency: workers, lookahead: 64 * workers, stop: stop) {
                index in
                scanner.fileResult(paths[index])
            } emit: { _, result in
                if case .terminated = continuation.yield(result) { stop.set() }
            }
            continuation.finish()
        }
        return stream
    }

    /// This scanner for `workers` threads at once: the engines read one image at once only where
    /// the workers leave a core free.
    func withWorkers(_ workers: Int) -> BarcodeScanner {
        var scanner = self
        scanner.enginesAtOnce = max(1, workers) < ProcessInfo.processInfo.activeProcessorCount
        return scanner
    }

    /// Starts the zxing helper when the pipeline has zxing passes: the process loads while the
    /// first image is read and decoded, instead of after it. (libzbar is not loaded ahead: most
    /// images are read before any zbar pass, and loading it beside them costs them more than it
    /// saves the others.)
    func prepareEngines() {
        guard ScanPass.passes(for: effort).contains(where: { $0.engine == .zxing }) else { return }
        Self.startSecondEngine()
    }

    /// Starts a zxing helper process on a thread of its own and returns at once, when the helper
    /// is installed and none is idle or starting, so that the first scan does not wait for it to
    /// load (a few milliseconds). Scanning starts one when it needs one anyway (and waits for one
    /// being started); call this first where other work can run while the helper loads, as
    /// `activate scan` does while it parses its options.
    public static func startSecondEngine() {
        ZXingEngine.shared?.prepare()
    }

    /// Reads, decodes and scans an image file off the cooperative thread pool.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read or is no readable image;
    ///   `CancellationError` when the task is cancelled (checked between the pipeline's passes).
    public func scan(file path: String) async throws -> [ScannedSymbol] {
        let scanner = self
        return try await Self.offThePool { stop in
            try scanner.traceFile(path, stop: stop).symbols
        }
    }

    /// Scans a decoded image off the cooperative thread pool.
    ///
    /// - Throws: `CancellationError` when the task is cancelled (checked between passes).
    public func scan(image: GrayImage) async throws -> [ScannedSymbol] {
        let scanner = self
        return try await Self.offThePool { stop in try scanner.trace(image, stop: stop).symbols }
    }

    /// Runs blocking work on a thread of its own, so that decoding never holds one of the few
    /// cooperative threads; a cancelled task sets the flag the work checks.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable (StopFlag) throws -> T) async throws -> T {
        let stop = StopFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try work(stop) }) }
            }
        } onCancel: {
            stop.set()
        }
    }

    func fileResult(_ path: String) -> FileResult {
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = Result { try traceFile(path, stop: StopFlag()) }.mapError {
            $0 as? ImagingError ?? ImagingError(.libraryFailure, source: path, "\($0)")
        }
        return FileResult(path: path, outcome: outcome, duration: clock.now - start)
    }
}

/// A flag that a canceller sets and long work checks between its steps.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// A parallel map whose results are emitted in input order, with a bounded window of work ahead.
/// Once `stop` is set, no new item is started and emitting ends after the items already started.
enum OrderedParallel {
    static func run<T: Sendable>(
        count: Int, concurrency: Int, lookahead: Int, stop: StopFlag = StopFlag(),
        work: @escaping @Sendable (Int) -> T, emit: (Int, T) -> Void
    ) {
        guard count > 0 else { return }
        let workers = min(concurrency, count)
        if workers == 1 {
            // One worker: the calling thread works through the items itself, in order (a thread
            // of its own would only be started and waited for).
            for index in 0..<count where !stop.isSet {
                emit(index, work(index))
            }
            return
        }
        let state = OrderedParallelState<T>()
        for _ in 0..<workers {
            Thread.detachNewThread {
                while true {
                    state.condition.lock()
                    // Do not run too far ahead of what has been reported.
                    while state.nextToStart < count && state.nextToStart >= state.nextToEmit + lookahead && !stop.isSet
                    {
                        // Timed: a stop set from outside the lock is seen within a tenth of a second.
                        _ = state.condition.wait(until: Date(timeIntervalSinceNow: 0.1))
                    }
                    guard state.nextToStart < count, !stop.isSet else {
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
            if stop.isSet {
                // What was started finishes on its own; nothing more is emitted.
                state.condition.broadcast()
                state.condition.unlock()
                return
            }
            while state.results[state.nextToEmit] == nil && !stop.isSet {
                _ = state.condition.wait(until: Date(timeIntervalSinceNow: 0.1))
            }
            if state.results[state.nextToEmit] == nil {
                state.condition.unlock()
                return
            }
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
