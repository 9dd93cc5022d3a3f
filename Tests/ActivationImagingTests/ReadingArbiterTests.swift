import Foundation
import Testing

@testable import ActivationImaging

@Suite("Readings of one symbol that disagree")
struct ReadingArbiterTests {
    /// A reading at `x`…`x + 100` on rows `y`…`y + 10`.
    static func reading(_ text: String, _ symbology: Symbology = .ean13, x: Int = 0, y: Int = 0) -> ScannedSymbol {
        ScannedSymbol(
            symbology: symbology, bytes: Array(text.utf8), text: text,
            corners: [
                Point(x: x, y: y), Point(x: x + 100, y: y), Point(x: x + 100, y: y + 10), Point(x: x, y: y + 10),
            ])
    }

    static let right = reading("9784872348880")
    static let wrong = reading("9784872348800", y: 6)

    @Test("two readings disagree when they are of one symbology at one place with other bytes")
    func disagreement() {
        #expect(ReadingArbiter.hasDisagreement([Self.right, Self.wrong]))
        // Another place: two labels.
        #expect(!ReadingArbiter.hasDisagreement([Self.right, Self.reading("9784872348800", y: 200)]))
        // Another symbology at the same place is another code, not a reading of this one.
        #expect(!ReadingArbiter.hasDisagreement([Self.right, Self.reading("9784872348800", .code128)]))
        // The same bytes twice is one reading, not a disagreement.
        #expect(!ReadingArbiter.hasDisagreement([Self.right, Self.reading("9784872348880", y: 4)]))
        #expect(!ReadingArbiter.hasDisagreement([Self.right]))
    }

    @Test(
        "the reading the other engine confirms is kept, the other dropped; with no confirmation both stay",
        arguments: [
            // (confirmations, texts kept)
            (["9784872348880"], ["9784872348880"]),
            (["9784872348800"], ["9784872348800"]),
            ([], ["9784872348880", "9784872348800"]),
            // The other engine reads a third text: it confirms neither, so both stay.
            (["9784872348811"], ["9784872348880", "9784872348800"]),
            // It confirms both (it read two symbols): both stay.
            (["9784872348880", "9784872348800"], ["9784872348880", "9784872348800"]),
        ])
    func resolve(confirmed: [String], kept: [String]) {
        let confirmations = confirmed.map { Self.reading($0, x: 500) }
        let resolved = ReadingArbiter.resolve([Self.right, Self.wrong], confirmations: confirmations)
        #expect(resolved.map(\.text) == kept)
    }

    @Test("a confirmation must be of the same symbology")
    func confirmationSymbology() {
        let resolved = ReadingArbiter.resolve(
            [Self.right, Self.wrong], confirmations: [Self.reading("9784872348880", .code128)])
        #expect(resolved.map(\.text) == ["9784872348880", "9784872348800"])
    }

    @Test("symbols no other reading contradicts pass unchanged, in their order")
    func untouched() {
        let other = Self.reading("12345670", .ean8, y: 300)
        let resolved = ReadingArbiter.resolve(
            [other, Self.right, Self.wrong], confirmations: [Self.reading("9784872348880")])
        #expect(resolved.map(\.text) == ["12345670", "9784872348880"])
    }

    @Test(
        "a pass's product codes come with every product code a tool reads that the pass did not",
        arguments: [
            // (the pass reads, zbar reads, zxing-cpp reads, printed); the pass is zxing-cpp's.
            // Confirmed by a tool: once.
            (["9784872348880"], ["9784872348880"], [], ["9784872348880"]),
            // The pass read one of a book's two codes, a tool the other and this one: both.
            (["1920081045006"], ["1920081045006", "9784872348880"], [], ["1920081045006", "9784872348880"]),
            // The tools read nothing: the pass reads what they cannot.
            (["9784872348880"], [], [], ["9784872348880"]),
            // One tool reads the place otherwise: nothing tells the two apart, both stay.
            (["04963406"], [], ["04904144"], ["04963406", "04904144"]),
            (["04963406"], ["04904144"], [], ["04963406", "04904144"]),
            // Both engines read the place otherwise: the pass's reading on its copy goes.
            (["17026895"], ["05096893"], ["05096893"], ["05096893"]),
            // The pass's engine and the other tool agree: the one tool's other reading goes.
            (["04963406"], ["04963406"], ["04904144"], ["04963406"]),
        ])
    func checkedAgainstTools(pass: [String], zbar: [String], zxing: [String], printed: [String]) {
        // The book's price code is printed below its ISBN; every other reading is of one symbol.
        func place(_ text: String) -> ScannedSymbol { Self.reading(text, y: text == "1920081045006" ? 200 : 0) }
        let checked = ReadingArbiter.addingToolReadings(
            pass.map(place), readBy: .zxing, from: [(.zbar, zbar.map(place)), (.zxing, zxing.map(place))])
        #expect(checked.map(\.text) == printed)
    }

    @Test(
        "zbar's one-line reading from its pass over every third line yields to zbar's own reading of the symbol",
        arguments: [
            // (the pass reads, zbar as its tool reads, the pass reports single lines, printed)
            (
                ["9724812348280", "1920081045006"], ["1920081045006", "9784872348880"], true,
                ["1920081045006", "9784872348880"]
            ),
            // A pass that scans every line: nothing tells the two readings apart, both stay.
            (
                ["9724812348280", "1920081045006"], ["1920081045006", "9784872348880"], false,
                ["9724812348280", "1920081045006", "9784872348880"]
            ),
            // zbar as its tool reads nothing there: the pass's reading stays.
            (["9724812348280", "1920081045006"], ["1920081045006"], true, ["9724812348280", "1920081045006"]),
            // zbar as its tool gives the pass's reading too: it stays beside the other.
            (
                ["9724812348280"], ["9724812348280", "9784872348880"], true,
                ["9724812348280", "9784872348880", "1920081045006"]
            ),
        ])
    func zbarFewLines(pass: [String], zbar: [String], fewLines: Bool, printed: [String]) {
        func place(_ text: String) -> ScannedSymbol { Self.reading(text, y: text == "1920081045006" ? 200 : 0) }
        let checked = ReadingArbiter.addingToolReadings(
            pass.map(place), readBy: .zbar, fewLines: fewLines,
            from: [(.zbar, zbar.map(place)), (.zxing, ["1920081045006"].map(place))])
        #expect(checked.map(\.text) == printed)
    }

    @Test("only zbar's passes over every third line report codes of fewer lines than zbar asks")
    func fewLinePasses() {
        let sparse = ScanPass.passes(for: .normal).filter(\.reportsFewLines)
        #expect(!sparse.isEmpty && sparse.allSatisfy { $0.engine == .zbar && $0.density > 1 })
        #expect(!ScanPass.plain(.zbar).reportsFewLines && !ScanPass.plain(.zxing).density(3).reportsFewLines)
    }

    @Test(
        "a prepared copy's reading that its cut-out does not give yields to one both reads of the cut-out give",
        arguments: [
            // (the prepared cut-out reads, the unprepared cut-out reads, printed); the pass read
            // 9784872348800.
            (["9784872348880"], ["9784872348880"], "9784872348880"),
            // The prepared cut-out gives the pass's reading too: it stands.
            (["9784872348800"], ["9784872348880"], "9784872348800"),
            (["9784872348800", "9784872348880"], ["9784872348880"], "9784872348800"),
            // The prepared cut-out reads nothing there, or the two reads disagree: it stands.
            ([], ["9784872348880"], "9784872348800"),
            (["9784872348811"], ["9784872348880"], "9784872348800"),
            // Of two rivals, the one both reads give; where both reads give both, it stands.
            (["9784872348880"], ["9784872348811", "9784872348880"], "9784872348880"),
            (["9784872348811", "9784872348880"], ["9784872348811", "9784872348880"], "9784872348800"),
        ])
    func settledOnCutOut(prepared: [String], unprepared: [String], printed: String) {
        let settled = ReadingArbiter.settled(
            Self.wrong, prepared: prepared.map { Self.reading($0) }, unprepared: unprepared.map { Self.reading($0) })
        #expect(settled.text == printed)
    }

    @Test("a cut-out's code elsewhere, beside it, or of another symbology does not replace a reading")
    func cutOutElsewhere() {
        // Beside it: the widened bounds touch (the two disagree), but neither centre is in the other.
        let beside = Self.reading("9784872348880", x: -105)
        #expect(ReadingArbiter.disagree(beside, Self.wrong))
        for other in [Self.reading("9784872348880", y: 300), Self.reading("9784872348880", .code128), beside] {
            #expect(ReadingArbiter.settled(Self.wrong, prepared: [other], unprepared: [other]).text == "9784872348800")
        }
    }

    @Test("QR codes of other bytes at one place are codes side by side: none outweighs another")
    func qrCodesSideBySide() {
        let first = Self.reading("https://a.example", .qr)
        let second = Self.reading("https://b.example", .qr, x: 50)
        let checked = ReadingArbiter.addingToolReadings(
            [first], readBy: .zxing, from: [(.zbar, [first]), (.zxing, [first, second])])
        #expect(checked.map(\.text) == ["https://a.example", "https://b.example"])
    }

    @Test("a UPC-A reading and an EAN-13 reading of one symbol disagree where their 13 digits do")
    func upcaIsEAN13() {
        let ean = Self.reading("9780201310054")
        let upca = Self.reading("194281310054", .upca)
        #expect(ReadingArbiter.disagree(ean, upca))
        #expect(!ReadingArbiter.disagree(Self.reading("0194281310054"), upca))
        #expect(!ReadingArbiter.disagree(ean, Self.reading("194281310054", .upca, y: 300)), "elsewhere")
        #expect(!ReadingArbiter.disagree(Self.reading("12345670", .ean8), upca))
        // The pass (zxing-cpp) and zbar agree on the EAN-13 code; ZXingReader's UPC-A reading goes.
        let checked = ReadingArbiter.addingToolReadings(
            [ean], readBy: .zxing, from: [(.zbar, [ean]), (.zxing, [upca])])
        #expect(checked.map(\.text) == ["9780201310054"])
    }

    @Test("the tools' stage keeps each tool's readings once: the same code read by both is printed once")
    func union() {
        let zbar = [Self.reading("ssss1234ssabszz", .code128), Self.reading("12345670", .ean8, y: 300)]
        let zxing = [
            Self.reading("óóóó1234óóabózz", .code128, y: 2), Self.reading("12345670", .ean8, x: 3, y: 302),
        ]
        #expect(
            ReadingArbiter.union(zbar, zxing).map(\.text) == ["ssss1234ssabszz", "12345670", "óóóó1234óóabózz"])
        #expect(ReadingArbiter.union([], zxing).map(\.text) == zxing.map(\.text))
        #expect(ReadingArbiter.union(zbar, []).map(\.text) == zbar.map(\.text))
    }
}

@Suite("zbar's readings of one linear code by few and by many scan lines")
struct ZBarStrayLinesTests {
    typealias Arbiter = ReadingArbiterTests

    @Test(
        "a reading at the place of one given by three times as many lines goes; readings of about equal support stay",
        arguments: [
            // (lines of the right reading, lines of the wrong one, texts kept)
            (11, 3, ["9784872348880"]),
            (3, 1, ["9784872348880"]),
            (8, 1, ["9784872348880"]),
            (2, 1, ["9784872348880", "9784872348800"]),
            (5, 2, ["9784872348880", "9784872348800"]),
            (1, 1, ["9784872348880", "9784872348800"]),
        ])
    func strayLines(right: Int, wrong: Int, kept: [String]) {
        let found = ZBarEngine.droppingStrayLines([(Arbiter.right, right), (Arbiter.wrong, wrong)])
        #expect(found.map(\.text) == kept)
    }

    @Test(
        "a sparse scan's linear code read on one line goes, as zxing-cpp's minimum of two lines drops it; QR codes stay"
    )
    func singleLines() {
        let found = ZBarEngine.droppingSingleLines([
            (Arbiter.right, 2), (Arbiter.reading("12345678", .code128, y: 200), 1), (Arbiter.reading("a", .qr), 1),
            (Arbiter.reading("6780186008574", y: 400), 1),
        ])
        #expect(found.map(\.symbol.text) == ["9784872348880", "a"])
    }

    @Test("elsewhere, in another symbology or a QR code, a reading of one line stays")
    func otherReadings() {
        let many = (Arbiter.right, 30)
        for other in [
            Arbiter.reading("9784872348800", y: 200), Arbiter.reading("12345678", .code128),
            Arbiter.reading("9784872348880", y: 4),
        ] {
            #expect(ZBarEngine.droppingStrayLines([many, (other, 1)]).count == 2, "\(other.text)")
        }
        let qr = (Arbiter.reading("a", .qr), 1)
        #expect(ZBarEngine.droppingStrayLines([(Arbiter.reading("b", .qr), 9), qr]).count == 2)
    }
}

@Suite("The engines' reads of one image at once")
struct ConcurrentReadsTests {
    @Test("each read's value comes back in the order asked, whichever finishes first")
    func order() {
        let work: [@Sendable () -> Int] = (0..<5).map { index in
            {
                // The first reads finish last.
                usleep(UInt32(5 - index) * 2_000)
                return index * index
            }
        }
        #expect(BarcodeScanner.concurrently(work) == [0, 1, 4, 9, 16])
        #expect(BarcodeScanner.concurrently([{ 7 }]) == [7])
    }

    @Test("one after the other on the caller's thread where the batch keeps every core busy")
    func inTurn() {
        let caller = pthread_self()
        let work: [@Sendable () -> Bool] = (0..<3).map { _ in { pthread_equal(pthread_self(), caller) != 0 } }
        #expect(BarcodeScanner.concurrently(work, atOnce: false) == [true, true, true])
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(!BarcodeScanner().withWorkers(cores).enginesAtOnce)
        #expect(BarcodeScanner().withWorkers(1).enginesAtOnce == (cores > 1))
        #expect(BarcodeScanner().enginesAtOnce, "one image at a time leaves cores free")
    }
}
