import ActivationConfiguration
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ActivationImaging

@Suite("Decoding pipeline and engines")
struct PipelineTests {
    @Test("the zxing helper is installed next to the build products")
    func secondEngine() {
        #expect(
            BarcodeScanner.hasSecondEngine,
            "activate-zxing-helper must be built (swift build) for the pipeline's second engine")
    }

    @Test("fast is one zbar pass; normal starts with zxing, which reads Micro QR")
    func efforts() throws {
        let image = try ImageDecoder().decodeFile(ImageFixture.path("corpus/microqrcode-1/M2-Alpha.png"))
        let fast = BarcodeScanner(effort: .fast).trace(image)
        #expect(fast.symbols.isEmpty && fast.attempts == 1)
        let normal = BarcodeScanner().trace(image)
        #expect(normal.symbols.map(\.text) == ["ABC"])
        #expect(normal.symbols.first?.symbology == .microqr)
        #expect(normal.pass == "zxing/once" && normal.attempts == 1)
    }

    @Test("an easy image stops after the first pass")
    func firstPass() throws {
        let image = try ImageDecoder().decodeFile(ImageFixture.path("base.png"))
        let trace = BarcodeScanner().trace(image)
        #expect(trace.pass == "zxing/once" && trace.attempts == 1)
    }

    @Test("a generated code shows its three finder patterns; a texture without a code shows none")
    func finderPatterns() throws {
        let code = try QRCodeEncoder().encode(Array("finder patterns".utf8)).grayImage(scale: 5, margin: 4)
        #expect(CodeEvidence.finderPatterns(in: code) == 3)
        #expect(CodeEvidence.finderPatterns(in: code.rotated(degrees: 30)) == 3)
        let texture = try ImageDecoder().decodeFile(ImageFixture.path("corpus/falsepositives-2/13.png"))
        #expect(FinderSurvey(texture).count == 0)
        #expect(CodeEvidence.finderModule(2, 2, 6, 2, 2) == 2 && CodeEvidence.mayBeFinder(2, 2, 6, 2, 2))
        #expect(CodeEvidence.finderModule(2, 2, 2, 2, 2) == nil && !CodeEvidence.mayBeFinder(2, 2, 2, 2, 2))
    }

    @Test("a two-colour code whose finders' runs misjudge the module still shows its finders and is read")
    func timingPatternsWithMisjudgedModule() throws {
        // At its global threshold the three finders show, with a module an eighth too small: the
        // timing patterns between them are found at a module size their distance allows.
        let image = try ImageDecoder().decodeFile(ImageFixture.path("rotated/cpp-qrcode-2-low-res-v1-a-rot90.png"))
        let survey = FinderSurvey(image)
        #expect(survey.adaptive.finders.isEmpty && survey.global.finders.count == 3)
        #expect(survey.count == 3 && survey.showsFinderPair)
        let trace = BarcodeScanner().trace(image)
        #expect(trace.symbols.map(\.text) == ["Version 1 QR"])
        let pass = ScanPass.passes(for: .normal).first { $0.name == trace.pass }
        #expect(pass?.needsFinderPatterns == true || pass?.needsFinderPair == true, "read by \(trace.pass ?? "none")")
    }

    @Test("the zxing helper reads images of growing and shrinking sizes from the memory it shares")
    func sharedPixels() throws {
        let engine = try #require(ZXingEngine.shared)
        let matrix = try QRCodeEncoder().encode(Array("shared pixels".utf8))
        // Under 1 MiB, then 4 MB (the shared file grows and the helper maps it again), then small again.
        for (scale, margin) in [(3, 4), (40, 30), (2, 4), (12, 60)] {
            let image = try matrix.grayImage(scale: scale, margin: margin)
            let found = engine.scan(image, options: .init(symbologies: [.qr], retries: []))
            #expect(found.map(\.text) == ["shared pixels"], "\(image.width)×\(image.height)")
        }
        #expect(BarcodeScanner.helperRoundTrip(width: 640, height: 480, repeats: 3) != nil)
    }

    @Test("a light code on dark shows light finder patterns and is read by the pass for it")
    func lightCodeOnDark() throws {
        let code = try QRCodeEncoder().encode(Array("light on dark".utf8)).grayImage(scale: 4, margin: 4).inverted()
        #expect(FinderSurvey(code).lightFinders.count == 3)
        #expect(FinderSurvey(code).adaptive.finders.isEmpty)
        let trace = BarcodeScanner(symbologies: [.qr]).trace(code)
        #expect(trace.symbols.map(\.text) == ["light on dark"])
        #expect(trace.pass == "zxing-invert/qr/harder", "read by \(trace.pass ?? "none")")
    }

    @Test("where two finders of one code show, the linear retries wait until the QR passes have run")
    func finderPairFirst() throws {
        let code = try QRCodeEncoder().encode(Array("blurred".utf8)).grayImage(scale: 3, margin: 4)
        let blurred = code.boxBlurred().boxBlurred().scaled(by: 0.75)
        #expect(FinderSurvey(blurred).showsFinderPair)
        let trace = BarcodeScanner().trace(blurred)
        #expect(trace.symbols.map(\.text) == ["blurred"])
        let ran = trace.timings.map(\.pass)
        let postponed = ScanPass.passes(for: .normal).filter(\.yieldsToFinderPair).map(\.name)
        #expect(!postponed.isEmpty && postponed.allSatisfy { !ran.contains($0) }, "ran \(ran)")
    }

    @Test("an image without a code skips the passes that need finder patterns; thorough runs them all")
    func evidenceGate() throws {
        let texture = try ImageDecoder().decodeFile(ImageFixture.path("corpus/falsepositives-2/13.png"))
        let normal = BarcodeScanner().trace(texture)
        // The texture shows no light finder patterns either: the pass for light codes on dark is skipped too.
        #expect(FinderSurvey(texture).lightFinders.isEmpty)
        let ungated = ScanPass.passes(for: .normal).filter {
            !$0.needsFinderPatterns && !$0.needsFinderPair && !$0.needsLightFinderPatterns
        }.map(\.name)
        #expect(normal.symbols.isEmpty)
        #expect(normal.timings.map(\.pass) == ungated)
        let thorough = BarcodeScanner(effort: .thorough).trace(texture)
        #expect(thorough.timings.map(\.pass).contains("zxing-threshold/qr/once"))
        // A blurred code the first passes miss is read by a gated pass.
        let code = try QRCodeEncoder().encode(Array("blurred".utf8)).grayImage(scale: 3, margin: 4)
        let blurred = code.boxBlurred().boxBlurred().scaled(by: 0.75)
        let trace = BarcodeScanner(symbologies: [.qr]).trace(blurred)
        #expect(trace.symbols.map(\.text) == ["blurred"])
        let gated = ScanPass.passes(for: .normal).filter { $0.needsFinderPatterns || $0.needsFinderPair }.map(\.name)
        #expect(gated.contains(trace.pass ?? ""), "read by \(trace.pass ?? "none")")
    }

    @Test("one finder pattern alone opens the QR retries it may need, not the passes that need two finders of one code")
    func singleFinderGate() throws {
        // A lone finder pattern (a Micro QR code has one; a texture may show one) on a light
        // ground. Gray levels that vary, so that no preparation leaves the pixels as they are.
        let module = 4
        let origin = 40
        let size = 140
        var pixels = (0..<size * size).map { UInt8(190 + ($0 % size) % 9 * 6) }
        for row in 0..<7 {
            for column in 0..<7 where max(abs(row - 3), abs(column - 3)) != 2 {
                for y in 0..<module {
                    for x in 0..<module {
                        pixels[(origin + row * module + y) * size + origin + column * module + x] = UInt8(20 + x * 5)
                    }
                }
            }
        }
        let image = try GrayImage(width: size, height: size, pixels: pixels)
        let survey = FinderSurvey(image)
        #expect(survey.count == 1 && !survey.showsFinderPair)
        let passes = ScanPass.passes(for: .normal)
        let pairGated = passes.filter(\.needsFinderPair).map(\.name)
        #expect(!pairGated.isEmpty && passes.filter(\.needsFinderPair).allSatisfy { !$0.needsFinderPatterns })
        let ran = BarcodeScanner().trace(image).timings.map(\.pass)
        #expect(ran.contains("zbar-smooth/qr") && ran.contains("zxing-rotate22/qr"), "ran \(ran)")
        #expect(pairGated.allSatisfy { !ran.contains($0) }, "ran \(ran)")
        let thorough = BarcodeScanner(effort: .thorough).trace(image).timings.map(\.pass)
        #expect(pairGated.allSatisfy(thorough.contains), "thorough ran \(thorough)")
    }

    @Test("each thread gets back the helper it used last, not the one another thread checked in after it")
    func helperAffinity() throws {
        // An engine of its own: the shared one's helpers are checked in and out by the scans of
        // every other test running meanwhile.
        let engine = ZXingEngine(helperPath: try #require(ZXingEngine.helperPath))
        // A holds its helper until B holds another; B checks its own in after A: the idle helpers
        // are then A's and B's, in that order, and A asks again. (Waits are bounded: a helper
        // that cannot start fails the test instead of hanging it.)
        let aHolding = DispatchSemaphore(value: 0)
        let bHolding = DispatchSemaphore(value: 0)
        let aReturned = DispatchSemaphore(value: 0)
        let bReturned = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        @Sendable func waitBriefly(_ semaphore: DispatchSemaphore) { _ = semaphore.wait(timeout: .now() + 10) }
        let pids = Mutex<[String: pid_t]>([:])
        Thread.detachNewThread {
            let first = engine.helperProcessID {
                aHolding.signal()
                waitBriefly(bHolding)
            }
            aReturned.signal()
            waitBriefly(bReturned)
            let again = engine.helperProcessID()
            pids.withLock {
                $0["a"] = first
                $0["a again"] = again
            }
            done.signal()
        }
        Thread.detachNewThread {
            waitBriefly(aHolding)
            let first = engine.helperProcessID {
                bHolding.signal()
                waitBriefly(aReturned)
            }
            pids.withLock { $0["b"] = first }
            bReturned.signal()
        }
        waitBriefly(done)
        let seen = pids.withLock { $0 }
        #expect(seen["a"] != nil && seen["a"] != seen["b"], "\(seen)")
        #expect(seen["a again"] == seen["a"], "\(seen)")
    }

    @Test("a request made while a helper is being started waits for it instead of starting another")
    func preparedHelper() throws {
        // An engine of its own, as in helperAffinity.
        let engine = ZXingEngine(helperPath: try #require(ZXingEngine.helperPath))
        engine.prepare()  // returns before the helper runs
        let pid = engine.helperProcessID()
        #expect(pid != nil && engine.idleCount == 1)
        engine.prepare()  // one is idle: nothing to start
        #expect(engine.helperProcessID() == pid && engine.idleCount == 1)
    }

    @Test("an image of one value asks no engine; another value, or an edge in the tools' view, runs the passes")
    func uniformImage() throws {
        let gray = try GrayImage(width: 40, height: 30, pixels: [UInt8](repeating: 128, count: 1200))
        for image in [gray, try GrayImage(width: 1, height: 1, pixels: [255])] {
            let trace = BarcodeScanner(effort: .thorough).trace(image)
            #expect(trace.symbols.isEmpty && trace.pass == nil && trace.timings.map(\.pass) == ["uniform"])
        }
        var dotted = gray
        dotted.pixels[600] = 0
        let passes = BarcodeScanner().trace(dotted).timings.map(\.pass)
        #expect(passes.first == "zxing/once" && passes.count > 1, "ran \(passes)")
        // Our luma sees one value where the tools' (another formula) see an edge: the tools read.
        let toolsSee = try BarcodeScanner().runPasses(gray, stop: StopFlag(), asTheToolsDecode: { _ in dotted })
        let ran = toolsSee.timings.map(\.pass)
        #expect(ran.first == "zxing/once" && ran.contains("zbar") && ran.contains("zxing"), "ran \(ran)")
    }

    @Test("a preparation that leaves the pixels as they are is not read again by the same decoder")
    func identicalPixels() throws {
        // Full range already: the contrast stretch changes nothing, so zbar's contrast pass
        // (after zbar read the plain image) is left out.
        var pixels = [UInt8](repeating: 255, count: 200 * 200)
        for index in stride(from: 0, to: pixels.count, by: 7) { pixels[index] = 0 }
        let image = try GrayImage(width: 200, height: 200, pixels: pixels)
        #expect(image.stretchedContrast().pixels == image.pixels)
        let passes = BarcodeScanner(effort: .thorough).trace(image).timings.map(\.pass)
        #expect(passes.contains("zbar/inv"))
        #expect(!passes.contains("zbar-contrast/inv"))
    }

    @Test("the pass study runs every candidate on its own and reports what each found")
    func study() throws {
        let image = try ImageDecoder().decodeFile(ImageFixture.path("base.png"))
        let outcomes = BarcodeScanner().study(image, passes: ScanPass.candidates)
        #expect(Set(outcomes.map(\.pass)).count == outcomes.count)
        let once = try #require(outcomes.first { $0.pass == "zxing/once" })
        #expect(!once.symbols.isEmpty)
        #expect(outcomes.contains { $0.pass == "zbar-threshold/d3" && !$0.symbols.isEmpty })
    }

    @Test("a code tilted 30 degrees is read, and its corners are in the original's coordinates")
    func tilted() throws {
        let upright = try QRCodeEncoder().encode(Array("tilted".utf8)).grayImage(scale: 6, margin: 4)
        let tilted = upright.rotated(degrees: 30)
        let trace = BarcodeScanner(symbologies: [.qr]).trace(tilted)
        #expect(trace.symbols.map(\.text) == ["tilted"])
        for corner in try #require(trace.symbols.first).corners {
            #expect((0...tilted.width).contains(corner.x) && (0...tilted.height).contains(corner.y))
        }
    }

    @Test("points found in a rotated copy map back to where they are in the original")
    func rotationMapping() throws {
        let original = try GrayImage(width: 300, height: 200, pixels: [UInt8](repeating: 255, count: 60_000))
        for degrees in [45.0, 22.5, -22.5] {
            let pass = ScanPass.rotated(.zbar, by: degrees)
            let rotated = original.rotated(degrees: degrees)
            // Forward: where a point of the original lands in the rotated canvas.
            let radians = degrees * .pi / 180
            for point in [Point(x: 10, y: 20), Point(x: 150, y: 100), Point(x: 290, y: 190)] {
                let dx = Double(point.x) - 150
                let dy = Double(point.y) - 100
                let x = cos(radians) * dx + sin(radians) * dy + Double(rotated.width) / 2
                let y = -sin(radians) * dx + cos(radians) * dy + Double(rotated.height) / 2
                let back = pass.mapBack(Point(x: Int(x.rounded()), y: Int(y.rounded())), original)
                #expect(abs(back.x - point.x) <= 1 && abs(back.y - point.y) <= 1, "\(degrees)°: \(point) → \(back)")
            }
        }
    }

    @Test("a crash inside zxing-cpp costs one attempt, never the process; the next scan works")
    func crashIsolation() throws {
        let engine = try #require(ZXingEngine.shared)
        // Debian's zxing-cpp 1.4.0 aborts on this image (Code 128, try-harder hints).
        let crashing = try ImageDecoder().decodeFile(ImageFixture.path("corpus/code128-1/4.png"))
        #expect(engine.scan(crashing, options: .init(symbologies: [.code128])).isEmpty)
        let micro = try ImageDecoder().decodeFile(ImageFixture.path("corpus/microqrcode-1/M2-Alpha.png"))
        #expect(engine.scan(micro, options: .init(symbologies: [.microqr])).map(\.text) == ["ABC"])
        // zbar still reads the crashing image, so the pipeline as a whole does.
        #expect(BarcodeScanner().scan(crashing).map(\.text) == ["123456"])
    }

    @Test("a helper that is not a helper (exits, garbles) gives no result and no crash")
    func brokenHelper() throws {
        let directory = try TemporaryFolder(prefix: "helper")
        let micro = try ImageDecoder().decodeFile(ImageFixture.path("corpus/microqrcode-1/M2-Alpha.png"))
        for (name, script) in [
            ("exits", "#!/bin/sh\nexit 3\n"),
            ("garbles", "#!/bin/sh\nhead -c 20 >/dev/null; printf 'xxxxxxxxxxxxxxxx'; sleep 1\n"),
            ("aborts", "#!/bin/sh\nkill -ABRT $$\n"),
        ] {
            let path = directory.file(name)
            try Data(script.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            let engine = ZXingEngine(helperPath: path)
            #expect(engine.scan(micro, options: .init(symbologies: [.microqr])).isEmpty, "\(name)")
        }
    }

    @Test("image operations keep size or scale it as asked")
    func operations() throws {
        let image = try ImageDecoder().decodeFile(ImageFixture.path("base.png"))
        #expect(image.scaled(by: 2).width == image.width * 2)
        #expect(image.scaled(by: 0.5).width == image.width / 2)
        let threshold = image.adaptiveThreshold(window: 15)
        #expect(Set(threshold.pixels).isSubset(of: [0, 255]))
        let faint = try GrayImage(width: image.width, height: image.height, pixels: image.pixels.map { 100 + $0 / 5 })
        #expect(faint.stretchedContrast().pixels.min() == 0 && faint.stretchedContrast().pixels.max() == 255)
        for variant in [
            image.stretchedContrast(), threshold, image.boxBlurred(), image.sharpened(), image.scaled(by: 2),
        ] {
            #expect(
                BarcodeScanner(effort: .fast).scan(variant).map(\.text) == ["https://mobile.example.com/activate?id=42"]
            )
        }
    }
}

@Suite("Batch scanning")
struct BatchTests {
    @Test("results come in input order, whatever order the work finishes in, with bounded look-ahead")
    func orderedParallel() {
        let inFlight = Mutex((current: 0, highest: 0))
        var emitted: [Int] = []
        let emittedSoFar = Mutex(0)
        OrderedParallel.run(count: 200, concurrency: 4, lookahead: 8) { index in
            inFlight.withLock { state in
                state.current += 1
                state.highest = max(state.highest, state.current)
            }
            // Work running ahead of what has been reported stays within the look-ahead window
            // (plus the one result being handed over at that moment).
            #expect(index <= emittedSoFar.withLock { $0 } + 8)
            usleep(UInt32((index * 7919) % 5) * 1000)
            inFlight.withLock { $0.current -= 1 }
            return index * 2
        } emit: { index, value in
            #expect(value == index * 2)
            emitted.append(index)
            emittedSoFar.withLock { $0 = index + 1 }
        }
        #expect(emitted == Array(0..<200))
        #expect(inFlight.withLock { $0.highest } <= 4)
    }

    @Test("folders are expanded recursively, sorted, images only, hidden entries skipped")
    func collect() throws {
        let folder = try TemporaryFolder(prefix: "collect")
        let root = folder.path
        for path in ["b/2.png", "b/1.JPG", "a.pgm", "notes.txt", ".hidden/x.png", "b/.y.png", "c/d/e.jpeg"] {
            let file = "\(root)/\(path)"
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data([0]).write(to: URL(fileURLWithPath: file))
        }
        let files = BarcodeScanner.collectFiles([root, "\(root)/notes.txt", "-"])
        #expect(
            files == [
                "\(root)/a.pgm", "\(root)/b/1.JPG", "\(root)/b/2.png", "\(root)/c/d/e.jpeg", "\(root)/notes.txt", "-",
            ])
    }

    @Test("results(for:) is an async sequence in input order, errors included")
    func asyncResults() async throws {
        let paths = [
            ImageFixture.path("base.png"), ImageFixture.path("empty.png"), ImageFixture.path("corpus/ean8-1/1.png"),
            ImageFixture.path("missing.png"),
        ]
        var seen: [(String, Bool)] = []
        for await result in BarcodeScanner().results(for: paths, concurrency: 2) {
            seen.append((result.path, (try? result.outcome.get().symbols.isEmpty == false) ?? false))
        }
        #expect(seen.map(\.0) == paths)
        #expect(seen.map(\.1) == [true, false, true, false])
    }

    @Test("breaking out of results(for:) stops the work: the sequence ends without decoding the rest")
    func asyncStop() async throws {
        // Decoding all 40,000 would take ten minutes or more here; three take milliseconds. The
        // bound is a hang guard: room for a machine busy with other tests, none for decoding the rest.
        let paths = Array(repeating: ImageFixture.path("base.png"), count: 40_000)
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        for await _ in BarcodeScanner().results(for: paths, concurrency: 2) {
            count += 1
            if count == 3 { break }
        }
        #expect(count == 3)
        #expect(clock.now - start < .seconds(120))
    }

    @Test(
        "a stop ends the ordered parallel map: nothing new starts beyond the window already in flight; one worker is the caller"
    )
    func orderedStop() {
        let started = Atomic<Int>(0)
        let stop = StopFlag()
        var emitted: [Int] = []
        OrderedParallel.run(count: 10_000, concurrency: 2, lookahead: 8, stop: stop) { index in
            started.add(1, ordering: .relaxed)
            return index
        } emit: { index, value in
            emitted.append(value)
            if index == 2 { stop.set() }
        }
        #expect(emitted == [0, 1, 2])
        // At most the window (lookahead 8 past the last emitted) plus one item per worker.
        #expect(started.load(ordering: .relaxed) <= 3 + 8 + 2)
        // One worker is the calling thread itself: each item emitted before the next starts.
        let caller = pthread_self()
        let startedAlone = Atomic<Int>(0)
        let stopAlone = StopFlag()
        var emittedAlone: [Int] = []
        OrderedParallel.run(count: 10_000, concurrency: 1, lookahead: 8, stop: stopAlone) { index in
            startedAlone.add(1, ordering: .relaxed)
            return pthread_equal(pthread_self(), caller) != 0 ? index : -1
        } emit: { index, value in
            emittedAlone.append(value)
            if index == 2 { stopAlone.set() }
        }
        #expect(emittedAlone == [0, 1, 2] && startedAlone.load(ordering: .relaxed) == 3)
    }

    @Test("scan(file:) runs off the cooperative pool and stops when its task is cancelled")
    func asyncScan() async throws {
        let symbols = try await BarcodeScanner().scan(file: ImageFixture.path("base.png"))
        #expect(symbols.count == 1)
        await #expect(throws: ImagingError.self) {
            try await BarcodeScanner().scan(file: ImageFixture.path("missing.png"))
        }
        // A page without a code makes the thorough pipeline try every pass; cancelled, it stops
        // between them. (Faint dots: a page of one value asks no pass at all.)
        let blank = try GrayImage(
            width: 1500, height: 1500, pixels: (0..<1500 * 1500).map { $0 % 7 == 0 ? 250 : 255 })
        let task = Task { try await BarcodeScanner(effort: .thorough).scan(image: blank) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await BarcodeScanner(effort: .fast).scan(image: blank).isEmpty)
    }

    @Test("scanFiles reports every file, errors included, in order")
    func scanFiles() throws {
        let paths = [
            ImageFixture.path("base.png"), ImageFixture.path("empty.png"), ImageFixture.path("corpus/ean8-1/1.png"),
            ImageFixture.path("baseline.jpg"),
        ]
        var seen: [(String, Bool)] = []
        BarcodeScanner().scanFiles(paths, concurrency: 2) { result in
            seen.append((result.path, (try? result.outcome.get().symbols.isEmpty == false) ?? false))
        }
        #expect(seen.map(\.0) == paths)
        #expect(seen.map(\.1) == [true, false, true, true])
    }
}

@Suite("Barcode configuration provider")
struct BarcodeProviderTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("SampleCodes").path

    func failure(_ path: String) async -> ConfigurationError? {
        do {
            _ = try await BarcodeConfigurationProvider(imagePath: path).provide(input: [:])
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test("a code with a configuration is provided; no code and other codes fail with codes to match on")
    func outcomes() async throws {
        let found = try await BarcodeConfigurationProvider(imagePath: "\(Self.samples)/oauth-activation.png").provide(
            input: [:])
        #expect(found.document.host == "mobile-demo.example.hana.ondemand.com")
        let folder = try TemporaryFolder(prefix: "blank")
        let blank = folder.file("blank.png")
        let white = try GrayImage(width: 200, height: 200, pixels: [UInt8](repeating: 255, count: 200 * 200))
        try Data(try white.png()).write(to: URL(fileURLWithPath: blank))
        let none = await failure(blank)
        #expect(none?.code == .noCodeFound)
        #expect(none?.reason == "\(blank): no QR code or barcode found")
        let other = await failure(ImageFixture.path("base.png"))
        #expect(other?.code == .notConfiguration, "\(other?.reason ?? "")")
        #expect(await failure(ImageFixture.path("missing.png"))?.code == .fileUnreadable)
    }
}

@Suite("Image operations")
struct ImageOperationTests {
    @Test("downsampling by a whole factor averages each block; a partial edge block is dropped")
    func downsampled() throws {
        // 5×4 pixels: two 2×2 blocks per row of blocks, one column and no row left over.
        let pixels: [UInt8] = [
            0, 0, 255, 255, 9,
            0, 0, 255, 255, 9,
            10, 20, 100, 101, 9,
            30, 40, 102, 103, 9,
        ]
        let small = try GrayImage(width: 5, height: 4, pixels: pixels).downsampled(by: 2)
        #expect(small.width == 2 && small.height == 2)
        #expect(small.pixels == [0, 255, 25, 101])
        let same = try GrayImage(width: 1, height: 1, pixels: [7])
        #expect(same.downsampled(by: 2) == same)
    }
}
