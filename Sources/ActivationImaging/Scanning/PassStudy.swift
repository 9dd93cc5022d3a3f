/// The study behind the order of the pipeline's passes (`decode-benchmark --passes`): every
/// candidate pass runs on its own over each image, so that `benchmarks/pass-study.py` can say what
/// each adds per millisecond and replay any order of them without decoding again.
extension BarcodeScanner {
    /// One candidate pass over one image: the time to prepare its pixels and to decode them, and
    /// what it found.
    package struct PassOutcome: Sendable {
        package var pass: String
        package var preparation: String
        package var prepareMilliseconds: Double
        package var decodeMilliseconds: Double
        package var symbols: [ScannedSymbol]
    }

    /// Runs every pass of `passes` over `image`, each on its own (not stopping at the first find).
    /// A pass that does not apply to this image (or needs the missing zxing helper) is left out.
    package func study(_ image: GrayImage, passes: [ScanPass]) -> [PassOutcome] {
        let clock = ContinuousClock()
        var prepared: [String: (image: GrayImage?, milliseconds: Double)] = [:]
        var outcomes: [PassOutcome] = []
        for pass in passes {
            if prepared[pass.preparation] == nil {
                let start = clock.now
                let image = pass.prepare(image)
                prepared[pass.preparation] = (image, (clock.now - start).inMilliseconds)
            }
            guard let (copy, prepareTime) = prepared[pass.preparation], let copy else { continue }
            let start = clock.now
            guard let symbols = decode(pass, copy) else { continue }
            outcomes.append(
                PassOutcome(
                    pass: pass.name, preparation: pass.preparation, prepareMilliseconds: prepareTime,
                    decodeMilliseconds: (clock.now - start).inMilliseconds, symbols: symbols))
        }
        return outcomes
    }
}

extension ScanPass {
    /// The passes the study tries: every preparation the pipeline knows with both engines, and
    /// variants of each (zbar with and without its inverted retry, on every second to sixth line,
    /// for QR, linear or product codes (with or without ITF) alone; zxing with each set of its own
    /// retries, and for product codes or the other linear codes alone).
    package static var candidates: [ScanPass] {
        var bases: [ScanPass] = []
        for engine in [Engine.zbar, .zxing] {
            bases += [
                plain(engine), thresholded(engine), enlarged(engine), sharpened(engine), contrastStretched(engine),
                smoothed(engine), inverted(engine), halved(engine), deblurred(engine), stretched(engine),
                deblurredRows(engine),
                rotated(engine, by: 45), rotated(engine, by: 22.5), rotated(engine, by: -22.5),
            ]
        }
        var all: [ScanPass] = [plain(.model1), plain(.resample)]
        for pass in bases {
            let rotation = pass.preparation.hasPrefix("rotate")
            for subset in [nil, qr, linear] {
                switch pass.engine {
                case .zbar:
                    for inverted in rotation ? [false] : [false, true] {
                        all.append(
                            pass.with {
                                $0.symbologies = subset
                                $0.invertedRetry = inverted
                            })
                    }
                case .model1, .resample:
                    break
                case .zxing:
                    for retries: ZXingEngine.Retries in rotation ? [.all] : [.all, [], .harder, [.harder, .rotate]] {
                        all.append(
                            pass.with {
                                $0.symbologies = subset
                                $0.zxingRetries = retries
                            })
                    }
                }
            }
            if pass.engine == .zbar && !rotation {
                all += [pass.density(2), pass.density(3), pass.only(linear).density(3), pass.only(qr).density(3)]
                all += [
                    pass.density(3), pass.density(2), pass.density(4), pass.density(6), pass.only(linear).density(3),
                    pass.only(productCodes).density(3), pass.only(productCodes.union([.itf])).density(3),
                ].map { $0.with { $0.scanColumns = false } }
            }
            if pass.engine == .zxing && !rotation {
                all += [
                    pass.only(productCodes).retries(.harder),
                    pass.only(linear.subtracting(productCodes)).retries(.harder),
                ]
            }
        }
        return all
    }
}

extension BarcodeScanner {
    /// The evidence measures of ``CodeEvidence`` over `image`, each with its time (the
    /// thresholding included), as outcomes whose one text is the measure.
    package func studyEvidence(_ image: GrayImage) -> [PassOutcome] {
        let clock = ContinuousClock()
        let start = clock.now
        let survey = FinderSurvey(image)
        var outcomes = [measure("evidence-finders", survey.count, since: start)]
        let pairsStart = clock.now
        outcomes.append(measure("evidence-finder-pairs", survey.showsFinderPair ? 1 : 0, since: pairsStart))
        let lightStart = clock.now
        outcomes.append(measure("evidence-light-finders", survey.lightFinders.count, since: lightStart))
        return outcomes
    }

    private func measure(_ name: String, _ value: Int, since start: ContinuousClock.Instant) -> PassOutcome {
        PassOutcome(
            pass: name, preparation: "", prepareMilliseconds: 0,
            decodeMilliseconds: (ContinuousClock.now - start).inMilliseconds,
            symbols: [ScannedSymbol(symbology: .qr, bytes: Array("\(value)".utf8), text: "\(value)", corners: [])])
    }
}

extension BarcodeScanner {
    /// The median time of `repeats` requests to the zxing helper that it answers without decoding:
    /// what handing a `width`×`height` image to the second engine costs (`decode-benchmark
    /// --round-trip`). `nil` without the helper.
    package static func helperRoundTrip(width: Int, height: Int, repeats: Int = 21) -> Duration? {
        guard let engine = ZXingEngine.shared else { return nil }
        let image = GrayImage(unchecked: width, height, [UInt8](repeating: 255, count: width * height))
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for _ in 0..<repeats {
            let start = clock.now
            _ = engine.scan(image, options: .init(symbologies: [.qr], echo: true))
            samples.append(clock.now - start)
        }
        return samples.sorted()[repeats / 2]
    }
}

extension BarcodeScanner {
    /// The finder survey the pipeline makes of an image that its first passes do not read (the
    /// adaptive threshold, both scans, the triangle check): its cost, for `decode-benchmark
    /// --operations`. The number of finders it counts.
    @discardableResult
    package static func surveyFinders(_ image: GrayImage) -> Int {
        let survey = FinderSurvey(image)
        return survey.count + survey.lightFinders.count + (survey.showsFinderPair ? 1 : 0)
    }
}
