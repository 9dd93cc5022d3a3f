import ActivationConfiguration
import Dispatch
import Synchronization

/// Finds every QR code and linear barcode in an image.
///
/// ```swift
/// let scanner = BarcodeScanner()
/// for symbol in try scanner.scanFile("activation.png") {
///     print(symbol.symbology.displayName, symbol.text)
/// }
/// ```
///
/// Results come in reading order (top to bottom, then left to right), one per distinct code.
/// A scanner is a value: copy it freely and use it from any task.
///
/// Decoding is a pipeline (``ScanEffort``): zxing-cpp first (in a helper process, see
/// `activate-zxing-helper`), and only when it finds nothing, retries on prepared copies with both
/// engines, the expensive QR retries only where the image shows finder patterns; `thorough` runs
/// every retry and adds rotations; last, each engine reads as its command-line tool does, so that
/// nothing `zbarimg` or `ZXingReader` reads alone is missed. The first pass that finds a code ends
/// the scan, so easy images cost one pass; readings of one symbol that disagree are settled by the
/// other engine (`ReadingArbiter`). Without the helper, zbar does the work alone.
public struct BarcodeScanner: Sendable, Hashable {
    /// Which symbologies to look for (default: all).
    public var symbologies: Set<Symbology>
    /// How images are read from bytes and files, and their size caps.
    public var decoder: ImageDecoder
    /// How hard to try (default `normal`).
    public var effort: ScanEffort
    /// Whether the engines read one image at once (``concurrently(_:atOnce:)``): where a scan has
    /// cores to spare, not in a batch that keeps every core busy, where the threads and helper
    /// processes would only take turns.
    var enginesAtOnce = true

    /// A scanner; by default it looks for every symbology, with the default image caps, at
    /// `normal` effort.
    public init(
        symbologies: Set<Symbology> = Set(Symbology.allCases), decoder: ImageDecoder = ImageDecoder(),
        effort: ScanEffort = .normal
    ) {
        self.symbologies = symbologies
        self.decoder = decoder
        self.effort = effort
    }

    /// Images with more pixels than this are read at half size after the first pass.
    static let reduceAbovePixels = 4_000_000

    /// Whether the second engine (zxing-cpp) is installed; without it the pipeline uses zbar alone.
    public static var hasSecondEngine: Bool { ZXingEngine.shared != nil }

    /// Scans a decoded image.
    public func scan(_ image: GrayImage) -> [ScannedSymbol] {
        trace(image).symbols
    }

    /// What one scan did: the codes, and which pass of the pipeline found them.
    public struct Trace: Sendable {
        /// The codes found, in reading order, each once; empty when no pass found any.
        public var symbols: [ScannedSymbol]
        /// The pass that found the codes (`zbar`, `zxing`, `zbar-threshold`, …); `nil` when none did.
        public var pass: String?
        /// How many passes ran.
        public var attempts: Int { timings.count }
        /// Each pass that ran, in order, with the time it took (preparing the image and decoding);
        /// for an image of one value, where no engine can find a code, only `uniform`, the check
        /// that tells.
        public var timings: [(pass: String, duration: Duration)]
        /// What the engines were asked after the pass that found the codes: `confirmations` where
        /// its readings disagreed, the tools' readings beside its codes (`as-tool:zbar/products`,
        /// `as-tool:zxing`, …), `unprepared` where a cut-out around a product code no tool read
        /// was read (after a widened or row-sharpened copy's reading), each with the time it took
        /// (docs/scanning.md, "When readings disagree").
        public var checks: [(what: String, duration: Duration)] = []
    }

    /// Scans a decoded image and says which pass found the codes (`activate scan --verbose`).
    public func trace(_ image: GrayImage) -> Trace {
        // Without a stop flag nothing can interrupt the passes.
        (try? trace(image, stop: StopFlag())) ?? Trace(symbols: [], pass: nil, timings: [])
    }

    /// Reads, decodes and scans an image file, checking `stop` before each pass. A JPEG larger
    /// than ``reduceAbovePixels`` (a phone photo) is decoded at half size by libjpeg-turbo's DCT
    /// scaling, a fraction of a full decode, and the full image only when a read needs it (see
    /// ``trace(_:stop:)``).
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read or is no readable image;
    ///   `CancellationError` once `stop` is set.
    func traceFile(_ path: String, stop: StopFlag) throws -> Trace {
        let bytes = try decoder.readFile(path)
        guard effort != .fast, let half = try decoder.decodeHalfSize(bytes, name: path, above: Self.reduceAbovePixels)
        else {
            let decoded = try decoder.decodeWithToolsViews(bytes, name: path, keepingUpTo: Self.reduceAbovePixels)
            return try trace(decoded.image, stop: stop, asTheToolsDecode: decoded.asTheToolsDecode)
        }
        return try traceLarge(half: half, full: { try decoder.decode(bytes, name: path) }, stop: stop)
    }

    /// The image as a command-line reader decodes its file, where that differs from ours (`nil`
    /// where it does not): ``ImageDecoder/decode(_:name:as:)`` for a file's bytes.
    typealias ToolsDecoding = (ImageDecoder.ReaderTool) -> GrayImage?

    /// The pipeline over a decoded image, checking `stop` before each pass.
    ///
    /// An image larger than ``reduceAbovePixels`` (a photo, a 4K screenshot) is read at half size
    /// first: the first pass reads the half-size copy, and most codes are found there. When it
    /// finds nothing, the full resolution is read only around the candidates
    /// (``CodeEvidence/candidateRegions(in:minimumEdges:block:)``: the parts as dense in edges as a
    /// code), each cut out and read by the whole pipeline, or nowhere when nothing is that dense;
    /// then the rest of the pipeline reads the half-size copy. Only where dense detail is
    /// everywhere is the full image read whole by the first pass.
    ///
    /// `asTheToolsDecode` gives the image as the tools decode its file (see
    /// ``runPasses(_:reduced:stop:from:halfSize:asTheToolsDecode:)``); a large image's passes read
    /// it at half size, where the tools' view is not used.
    ///
    /// - Throws: `CancellationError` once `stop` is set.
    func trace(_ image: GrayImage, stop: StopFlag, asTheToolsDecode: ToolsDecoding? = nil) throws -> Trace {
        guard effort != .fast, image.width * image.height > Self.reduceAbovePixels else {
            return try runPasses(image, stop: stop, asTheToolsDecode: asTheToolsDecode)
        }
        return try traceLarge(half: image.scaled(by: 0.5), full: { image }, stop: stop)
    }

    /// A large image's reads (``trace(_:stop:)``), from its half-size copy; `full` makes the full
    /// image when a read needs it.
    private func traceLarge(half: GrayImage, full: () throws -> GrayImage, stop: StopFlag) throws -> Trace {
        guard let first = ScanPass.passes(for: effort).first else { return Trace(symbols: [], pass: nil, timings: []) }
        let clock = ContinuousClock()
        let start = clock.now
        let found = first.prepare(half).flatMap { decode(first, $0) } ?? []
        var timings = [(pass: first.name + "@half", duration: clock.now - start)]
        if !found.isEmpty {
            return Trace(
                symbols: Self.ordered(Self.deduplicated(Self.moved(found, scale: 2))), pass: timings[0].pass,
                timings: timings)
        }
        if stop.isSet { throw CancellationError() }
        guard let regions = CodeEvidence.candidateRegions(in: half) else {
            var trace = try runPasses(full(), reduced: half, stop: stop)
            trace.timings.insert(contentsOf: timings, at: 0)
            return trace
        }
        if !regions.isEmpty {
            // The pipeline on each candidate at full resolution: a small code in a crop reads
            // as an image of its own, where the whole photo's passes would miss it.
            let crops = try { () throws -> [(GrayImage, Point)] in
                let full = try full()  // a decoded file's full image is freed once the crops are cut
                return regions.map { region in
                    (
                        full.cropped(
                            x: region.x * 2, y: region.y * 2, width: region.width * 2, height: region.height * 2),
                        Point(x: region.x * 2, y: region.y * 2)
                    )
                }
            }()
            var found: [ScannedSymbol] = []
            var pass: String?
            var checks: [(what: String, duration: Duration)] = []
            for (crop, origin) in crops {
                let cropTrace = try runPasses(crop, stop: stop)
                timings += cropTrace.timings.map { ($0.pass + "@candidates", $0.duration) }
                checks += cropTrace.checks
                found += Self.moved(cropTrace.symbols, scale: 1, by: origin)
                pass = pass ?? cropTrace.pass.map { $0 + "@candidates" }
            }
            if !found.isEmpty {
                return Trace(
                    symbols: Self.ordered(Self.deduplicated(found)), pass: pass, timings: timings, checks: checks)
            }
        }
        // The rest of the pipeline on the half-size copy.
        var trace = try runPasses(half, stop: stop, from: 1, halfSize: true)
        trace.symbols = Self.moved(trace.symbols, scale: 2)
        trace.timings.insert(contentsOf: timings, at: 0)
        return trace
    }

    /// Symbols with their corners scaled, then moved by `offset`: back from a reduced or cropped
    /// image to the image it came from.
    static func moved(_ symbols: [ScannedSymbol], scale: Int, by offset: Point = Point(x: 0, y: 0)) -> [ScannedSymbol] {
        symbols.map { symbol in
            var symbol = symbol
            symbol.corners = symbol.corners.map { Point(x: $0.x * scale + offset.x, y: $0.y * scale + offset.y) }
            return symbol
        }
    }

    /// The passes of the pipeline, checking `stop` before each; `reduced` is the image at half
    /// size when the caller has it already. From pass `firstPass` on (the ones before ran elsewhere); with
    /// `halfSize`, `image` is a large photo's half-size copy already, read as it is (the passes are
    /// named `…@half`, and the caller scales the corners). `asTheToolsDecode` gives the image as
    /// zbarimg or ZXingReader decodes the file, when that differs from `image`
    /// (``ImageDecoder/decode(_:name:as:)``): each engine reads its tool's view at the tools' stage
    /// and in the tools' readings of product codes, each view made once it is needed.
    ///
    /// - Throws: `CancellationError` once `stop` is set.
    func runPasses(
        _ image: GrayImage, reduced: GrayImage? = nil, stop: StopFlag, from firstPass: Int = 0, halfSize: Bool = false,
        asTheToolsDecode: ToolsDecoding? = nil
    ) throws -> Trace {
        var timings: [(pass: String, duration: Duration)] = []
        let clock = ContinuousClock()
        // Past the first pass, a large photo is read at half size: codes in such photos are
        // big enough, and every later pass gets four times cheaper.
        var reduced = reduced
        // Each preparation is made once: the zbar and zxing passes of one preparation follow each
        // other and read the same pixels. Only the latest is kept, so that a scan holds no more
        // copies of a large image than one pass needs.
        var latest: (key: String, image: GrayImage?)?
        // The QR finder patterns of the (possibly reduced) image: looked for at the first pass
        // that needs to know, on the thresholded copy the threshold passes read too, and handed to
        // the QR readers of our own, which would otherwise look for them again.
        var survey: FinderSurvey?
        // The decoders that read the unprepared pixels already: a preparation that changes
        // nothing (a contrast stretch of a full-range image) is not read again by them.
        var readPlain: Set<String> = []
        // Passes that wait for the QR passes on an image that shows a finder pair.
        var postponed: [(index: Int, pass: ScanPass)] = []
        var checks: [(what: String, duration: Duration)] = []
        // The image as each tool decodes the file, made when first needed; `nil` when it is `image`.
        var toolsImages: [ImageDecoder.ReaderTool: GrayImage?] = [:]
        func asTheToolSees(_ engine: ScanPass.Engine) -> GrayImage? {
            let tool: ImageDecoder.ReaderTool = engine == .zbar ? .zbarimg : .zxingReader
            if let made = toolsImages[tool] { return made }
            let made = asTheToolsDecode?(tool)
            toolsImages[tool] = .some(made)
            return made
        }
        // An image of one value, in our view and in the tools' (another luma formula could tell
        // two colours apart that ours does not), has no edge for any engine: none is asked, so
        // libzbar is not loaded and the helper not used.
        if firstPass == 0 && !halfSize {
            if stop.isSet { throw CancellationError() }
            let start = clock.now
            if image.isUniform && (asTheToolSees(.zbar)?.isUniform ?? true)
                && (asTheToolSees(.zxing)?.isUniform ?? true)
            {
                return Trace(symbols: [], pass: nil, timings: [("uniform", clock.now - start)])
            }
        }
        var queue = ScanPass.passes(for: effort).enumerated().filter { $0.offset >= firstPass }.map {
            (index: $0.offset, pass: $0.element)
        }[...]
        while let (index, pass) = queue.popFirst() ?? (postponed.isEmpty ? nil : postponed.removeFirst()) {
            if stop.isSet { throw CancellationError() }
            if index >= 1 { ZBarEngine.loadAhead() }
            let start = clock.now
            let useReduced = !halfSize && index >= 1 && image.width * image.height > Self.reduceAbovePixels
            if useReduced && reduced == nil { reduced = image.scaled(by: 0.5) }
            let source = useReduced ? reduced! : image
            // The tools' view holds for the image at full size only.
            let asItsTool = { (engine: ScanPass.Engine) in
                (!useReduced && !halfSize ? asTheToolSees(engine) : nil) ?? source
            }
            if pass.readsAsItsTool {
                // The tools' stage: the tools read at once (zxing-cpp in its helper process while
                // zbar reads here), and what each reads alone is printed (``ReadingArbiter``).
                var stage = [pass]
                while let next = queue.first, next.pass.readsAsItsTool {
                    stage.append(next.pass)
                    queue.removeFirst()
                }
                let reads = decodeAtOnce(stage, stage.map { asItsTool($0.engine) })
                let suffix = useReduced || halfSize ? "@half" : ""
                timings += zip(stage, reads).map { (tool, read) in (tool.name + suffix, read.duration) }
                guard let first = reads.firstIndex(where: { !$0.value.isEmpty }) else { continue }
                let found = reads.map(\.value).reduce([], ReadingArbiter.union)
                return Trace(
                    symbols: Self.ordered(Self.deduplicated(Self.moved(found, scale: useReduced ? 2 : 1))),
                    pass: stage[first].name, timings: timings, checks: checks)
            }
            let key = pass.preparation + (useReduced ? "@half" : "")
            if pass.needsFinderPatterns || pass.needsFinderPair || pass.needsLightFinderPatterns
                || pass.yieldsToFinderPair
            {
                let finders = survey ?? FinderSurvey(source)
                survey = finders
                if pass.needsFinderPatterns && finders.count == 0 { continue }
                if pass.needsFinderPair && !finders.showsFinderPair { continue }
                if pass.needsLightFinderPatterns && finders.lightFinders.isEmpty { continue }
                if pass.yieldsToFinderPair && !queue.isEmpty && finders.showsFinderPair {
                    postponed.append((index, pass))
                    continue
                }
            }
            let prepared: GrayImage?
            if let latest, latest.key == key {
                prepared = latest.image
            } else if pass.preparation == "threshold", let survey {
                prepared = survey.adaptive.image  // the survey's thresholded copy is this one
                latest = (key, prepared)
            } else {
                latest = nil  // free the previous copy before making the next
                prepared = pass.prepare(source)
                latest = (key, prepared)
            }
            guard let prepared else { continue }
            let decoder = pass.decoderName
            if prepared.width == source.width && prepared.height == source.height && prepared.pixels == source.pixels {
                guard readPlain.insert(decoder).inserted else { continue }
            }
            guard var found = decode(pass, prepared, survey: pass.preparation == "plain" ? survey : nil) else {
                continue
            }
            timings.append((pass.name + (useReduced || halfSize ? "@half" : ""), clock.now - start))
            if found.isEmpty { continue }
            if ReadingArbiter.hasDisagreement(found) {
                let confirming = timed { confirmations(of: pass, prepared) }
                found = ReadingArbiter.resolve(found, confirmations: confirming.value)
                checks.append(("confirmations", confirming.duration))
            }
            found = pass.mappedBack(found, to: source)
            // Where a tool may read what the pass did not, the tools read the image too and their
            // readings are added (``ReadingArbiter/addingToolReadings(_:readBy:fewLines:from:)``):
            // beside a product code (a book's ISBN and its price code, a misread digit), the
            // product codes; in an image of several codes, which a pass rarely reads all of, every
            // symbology.
            let severalCodes = found.count >= 2
            if severalCodes || found.contains(where: { ScanPass.productCodes.contains($0.symbology) }) {
                let readings = toolReadings(
                    asItsTool, of: severalCodes ? nil : ScanPass.productCodes, after: pass, found: found)
                checks += readings.checks
                // A product code zxing-cpp read on a widened or sharpened copy, and no tool read, is
                // set against what it reads of the unprepared pixels around it
                // (``ReadingArbiter/settled(_:prepared:unprepared:)``).
                if pass.settlesOnUnpreparedPixels {
                    let toolsRead = readings.symbols.flatMap(\.symbols)
                    let settled = timed {
                        settledOnUnpreparedPixels(found, of: source, readBy: pass, unlessRead: toolsRead)
                    }
                    found = settled.value.symbols
                    if settled.value.asked { checks.append(("unprepared", settled.duration)) }
                }
                found = ReadingArbiter.addingToolReadings(
                    found, readBy: pass.engine, fewLines: pass.reportsFewLines, from: readings.symbols)
            }
            return Trace(
                symbols: Self.ordered(Self.deduplicated(Self.moved(found, scale: useReduced ? 2 : 1))), pass: pass.name,
                timings: timings, checks: checks)
        }
        return Trace(symbols: [], pass: nil, timings: timings)
    }

    /// One pass's engine over its prepared image; `nil` when the pass cannot run (no zxing helper).
    ///
    /// `survey` holds the finder patterns of `prepared` when the pipeline has looked for them.
    func decode(_ pass: ScanPass, _ prepared: GrayImage, survey: FinderSurvey? = nil) -> [ScannedSymbol]? {
        let wanted = pass.symbologies.map { $0.intersection(symbologies) } ?? symbologies
        switch pass.engine {
        case .zbar:
            let engine = ZBarEngine(
                symbologies: wanted, testInverted: pass.invertedRetry, density: pass.density,
                scanColumns: pass.scanColumns)
            return Self.convertingDeclaredCharsets(engine.scan(prepared), in: prepared)
        case .zxing:
            guard let engine = ZXingEngine.shared else { return nil }
            return engine.scan(prepared, options: .init(symbologies: wanted, retries: pass.zxingRetries))
        case .model1:
            return wanted.contains(.qr) ? QRModel1Reader.read(prepared, survey: survey) : []
        case .resample:
            guard let engine = ZXingEngine.shared else { return nil }
            return wanted.contains(.qr) ? QRResampler.read(prepared, survey: survey, with: engine) : []
        }
    }

    /// `found`, `pass`'s readings on its prepared copy of `image` (in `image`'s coordinates), each
    /// product code that no reading of `toolsRead` confirms settled by zxing-cpp's harder reads of
    /// a cut-out of `image` around it: the code and half its width on every side
    /// (``ReadingArbiter/settled(_:prepared:unprepared:)``). The cut-out is read unprepared first,
    /// and prepared as `pass` prepares only where that reads another code there. A reading a tool
    /// confirms is one the tools read alone, and stays. `asked`: whether any cut-out was read.
    func settledOnUnpreparedPixels(
        _ found: [ScannedSymbol], of image: GrayImage, readBy pass: ScanPass, unlessRead toolsRead: [ScannedSymbol]
    ) -> (symbols: [ScannedSymbol], asked: Bool) {
        guard let engine = ZXingEngine.shared else { return (found, false) }
        let wanted = ScanPass.productCodes.intersection(symbologies)
        let harder = ZXingEngine.Options(symbologies: wanted, retries: .harder)
        var asked = false
        let symbols = found.map { reading in
            guard wanted.contains(reading.symbology), !toolsRead.contains(where: { $0.isSameReading(as: reading) })
            else { return reading }
            let bounds = reading.bounds
            let margin = max(16, (bounds.maxX - bounds.minX) / 2)
            let x = max(0, bounds.minX - margin)
            let y = max(0, bounds.minY - margin)
            let width = min(image.width, bounds.maxX + margin) - x
            let height = min(image.height, bounds.maxY + margin) - y
            guard width > 0, height > 0 else { return reading }
            asked = true
            let cutOut = image.cropped(x: x, y: y, width: width, height: height)
            let origin = Point(x: x, y: y)
            let unprepared = Self.moved(engine.scan(cutOut, options: harder), scale: 1, by: origin)
            guard unprepared.contains(where: { ReadingArbiter.disagree($0, reading) }) else { return reading }
            let prepared = pass.mappedBack(
                pass.prepare(cutOut).map { engine.scan($0, options: harder) } ?? [], to: cutOut)
            return ReadingArbiter.settled(
                reading, prepared: Self.moved(prepared, scale: 1, by: origin), unprepared: unprepared)
        }
        return (symbols, asked)
    }

    /// The other engine's readings of `prepared`, as its tool reads with its defaults: what
    /// ``ReadingArbiter`` settles a disagreement of `pass`'s engine with.
    func confirmations(of pass: ScanPass, _ prepared: GrayImage) -> [ScannedSymbol] {
        let other = pass.engine == .zbar ? ScanPass.plain(.zxing) : ScanPass.plain(.zbar)
        return decode(other.only(pass.symbologies ?? symbologies), prepared) ?? []
    }

    /// What each engine reads in its tool's view of the image (`image`), as its tool reads, with
    /// its defaults, of `symbologies` (`nil`: every one the scanner looks for), after `pass` read
    /// `found` in it: what ``ReadingArbiter/addingToolReadings(_:readBy:fewLines:from:)`` adds to
    /// the pass's readings, with the time each engine took.
    ///
    /// Both engines read, at once where a core is free. Only where the first pass read product codes on the plain
    /// pixels does zxing-cpp read alone first: a code it reads at its first, cheapest attempt is
    /// sharp, and zbar, which costs three times as much, reads too only where ZXingReader's
    /// harder read finds anything else there (a second code, another reading).
    func toolReadings(
        _ image: (ScanPass.Engine) -> GrayImage, of symbologies: Set<Symbology>?, after pass: ScanPass,
        found: [ScannedSymbol]
    ) -> (symbols: [(engine: ScanPass.Engine, symbols: [ScannedSymbol])], checks: [(what: String, duration: Duration)])
    {
        func asTool(_ engine: ScanPass.Engine) -> ScanPass {
            symbologies.map { ScanPass.plain(engine).only($0) } ?? ScanPass.plain(engine)
        }
        let (zbar, zxing) = (asTool(.zbar), asTool(.zxing))
        typealias Reads = (
            symbols: [(engine: ScanPass.Engine, symbols: [ScannedSymbol])], checks: [(what: String, duration: Duration)]
        )
        func reads(_ tools: [ScanPass]) -> Reads {
            let reads = decodeAtOnce(tools, tools.map { image($0.engine) })
            return (
                zip(tools, reads).map { ($0.engine, $1.value) },
                zip(tools, reads).map { ("as-tool:" + $0.name, $1.duration) }
            )
        }
        if pass.isFirstPlainAttempt && symbologies != nil {
            let zxingRead = reads([zxing])
            if zxingRead.symbols[0].symbols.allSatisfy({ tool in found.contains { $0.isSameReading(as: tool) } }) {
                return zxingRead
            }
            let zbarRead = reads([zbar])
            return (zbarRead.symbols + zxingRead.symbols, zxingRead.checks + zbarRead.checks)
        }
        return reads([zbar, zxing])
    }

    /// Each of `passes` over its image of `images`, at once where the scanner may
    /// (``concurrently(_:atOnce:)``), with the time each took.
    private func decodeAtOnce(_ passes: [ScanPass], _ images: [GrayImage]) -> [(
        value: [ScannedSymbol], duration: Duration
    )] {
        Self.concurrently(
            zip(passes, images).map { pass, image in { self.timed { self.decode(pass, image) ?? [] } } },
            atOnce: enginesAtOnce)
    }

    /// `work`'s value and the time it took.
    private func timed<T>(_ work: () -> T) -> (value: T, duration: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = work()
        return (value, clock.now - start)
    }

    /// Each of `work` on a thread of its own where threads are free (one after the other unless
    /// `atOnce`), their values in order: the engines' reads of one image, where zxing-cpp's runs
    /// in its helper process and the thread that asked it only waits.
    static func concurrently<T: Sendable>(_ work: [@Sendable () -> T], atOnce: Bool = true) -> [T] {
        guard atOnce, work.count > 1 else { return work.map { $0() } }
        let values = Mutex<[Int: T]>([:])
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let value = work[index]()
            values.withLock { $0[index] = value }
        }
        return values.withLock { values in work.indices.compactMap { values[$0] } }
    }

    /// Decodes and scans an image held in memory (PNG, JPEG or PNM).
    ///
    /// - Throws: ``ImagingError`` when the bytes are no readable image.
    public func scan(imageBytes: [UInt8], name: String = "image") throws -> [ScannedSymbol] {
        scan(try decoder.decode(imageBytes, name: name))
    }

    /// Reads, decodes and scans an image file; `-` reads standard input.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read or is no readable image.
    public func scanFile(_ path: String) throws -> [ScannedSymbol] {
        try traceFile(path, stop: StopFlag()).symbols
    }

    /// zbar's binary mode hands over QR bytes without saying whether the code declares a character
    /// set (ECI). Only for QR codes with non-ASCII bytes, ask zxing-cpp, which does: a code that
    /// declares Windows-1252, Big5, GB18030, EUC-KR, … gets its text in UTF-8, as ZXing gives it.
    static func convertingDeclaredCharsets(_ symbols: [ScannedSymbol], in image: GrayImage) -> [ScannedSymbol] {
        let candidates = symbols.indices.filter {
            [.qr, .microqr].contains(symbols[$0].symbology) && symbols[$0].bytes.contains { $0 >= 0x80 }
        }
        guard !candidates.isEmpty, let engine = ZXingEngine.shared else { return symbols }
        let declared = engine.declaredCharsetTexts(image)
        guard !declared.isEmpty else { return symbols }
        var result = symbols
        for index in candidates {
            guard let match = declared.first(where: { $0.raw == symbols[index].bytes }) else { continue }
            result[index].bytes = match.utf8
            result[index].text = String(decoding: match.utf8, as: UTF8.self)
        }
        return result
    }

    /// Drops symbols that repeat an earlier one of the same kind and bytes at an overlapping place
    /// (the same code read twice), but keeps true duplicates (two labels with the same code).
    static func deduplicated(_ symbols: [ScannedSymbol]) -> [ScannedSymbol] {
        var result: [ScannedSymbol] = []
        for symbol in symbols where !result.contains(where: { $0.isSameCode(as: symbol) }) {
            result.append(symbol)
        }
        return result
    }

    /// Reading order: by top edge, then left edge; ties by kind and bytes, so the order is stable.
    static func ordered(_ symbols: [ScannedSymbol]) -> [ScannedSymbol] {
        symbols.sorted { a, b in
            let (ba, bb) = (a.bounds, b.bounds)
            if ba.minY != bb.minY { return ba.minY < bb.minY }
            if ba.minX != bb.minX { return ba.minX < bb.minX }
            if a.symbology != b.symbology { return a.symbology < b.symbology }
            return a.bytes.lexicographicallyPrecedes(b.bytes)
        }
    }
}

extension ScannedSymbol {
    /// Same kind, same bytes, and each one's centre lies inside the other's bounds.
    func isSameCode(as other: ScannedSymbol) -> Bool {
        guard symbology == other.symbology, bytes == other.bytes else { return false }
        func centre(_ s: ScannedSymbol) -> Point {
            let b = s.bounds
            return Point(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2)
        }
        func inside(_ p: Point, _ s: ScannedSymbol) -> Bool {
            let b = s.bounds
            return (b.minX...b.maxX).contains(p.x) && (b.minY...b.maxY).contains(p.y)
        }
        return inside(centre(self), other) || inside(centre(other), self)
    }
}
