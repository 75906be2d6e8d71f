import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import Synchronization
import Testing
import TextRecognition

@testable import TesseractBackend
import _ImagingTestSupport

/// A rendered page with known text, from the committed documents dataset.
enum RenderedPage {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let image = root.appendingPathComponent("Datasets/documents/images/page01_clean.png").path
    static let text = root.appendingPathComponent("Datasets/documents/text/page01.txt").path

    static func luma() throws -> PixelBuffer<UInt8> {
        try ImageDecoder().decode(contentsOf: image).luma.eightBit
    }

    /// The text layout the gate measures on a page at full resolution, as the gated flow passes it.
    static func layout(_ path: String = image) throws -> TextLayout? {
        let assessor = Assessor(Assessor.Configuration(decodesFullResolution: true))
        let text = try #require(assessor.assess(contentsOf: path).image?.report.text)
        return text.detected ? TextLayout(linePitch: text.linePitch, strokeWidth: text.strokeWidth) : nil
    }

    static func words() throws -> [String] {
        try String(contentsOfFile: text, encoding: .utf8).split(whereSeparator: \.isWhitespace).map(String.init)
    }
}

@Suite("Tesseract recognizer", .serialized)
struct TesseractRecognizerTests {
    let recognizer = TesseractRecognizer()

    @Test func openMPIsLimitedToOneThreadUnlessTheUserSaysOtherwise() throws {
        for variable in OpenMPThreads.userVariables {
            #expect(OpenMPThreads.setter(environment: [variable: "4"]) == nil, "\(variable) set by the user is kept")
        }
        let setter = try #require(OpenMPThreads.setter(environment: ["PATH": "/usr/bin"]))
        // libgomp keeps the limit per thread: set on one thread, it does not reach another,
        // which is why every recognition sets it on its own thread.
        let levels = Mutex<(limited: Int?, other: Int?)>((nil, nil))
        let limitedThread = Thread {
            setter(0)
            let value = OpenMPThreads.maxActiveLevels
            levels.withLock { $0.limited = value }
        }
        limitedThread.start()
        while levels.withLock({ $0.limited == nil }) { usleep(1000) }
        let otherThread = Thread {
            let value = OpenMPThreads.maxActiveLevels
            levels.withLock { $0.other = value }
        }
        otherThread.start()
        while levels.withLock({ $0.other == nil }) { usleep(1000) }
        #expect(levels.withLock { $0.limited } == 0, "zero active levels: every parallel region runs with a team of one")
        #expect(levels.withLock { $0.other } != 0)
    }

    /// Released engines are ended at once, even one still referenced elsewhere (as the
    /// dispatch block that ran it can be), and the next call starts one.
    @Test func idleEnginesAreReleasedOnRequest() throws {
        let recognizer = TesseractRecognizer()
        try recognizer.prepare(RecognitionOptions())
        #expect(recognizer.idleEngineCount == 1)
        let held = try #require(recognizer.idleEngines.first)
        #expect(held.initialisedLanguages == "eng")
        recognizer.releaseIdleEngines()
        #expect(recognizer.idleEngineCount == 0)
        #expect(held.initialisedLanguages == "", "ended while still referenced")
        try recognizer.prepare(RecognitionOptions())
        #expect(recognizer.idleEngineCount == 1)
    }

    @Test func conformsToTheTextRecognizerContract() async throws {
        let failures = await TextRecognizerConformance.check(recognizer, page: try RenderedPage.luma(), expectedWords: Set(try RenderedPage.words()), minimumWordRecall: 0.9)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func readsAKnownPageWithBoxesInBothConventions() async throws {
        let page = try RenderedPage.luma()
        let lines = try await recognizer.recognize(page, options: RecognitionOptions())
        let read = lines.flatMap(\.words).map(\.text.string)
        let truth = try RenderedPage.words()
        let hits = Set(read).intersection(truth).count
        #expect(Double(hits) / Double(Set(truth).count) > 0.9, "\(hits) of \(Set(truth).count) distinct words")
        let first = try #require(lines.first)
        // The first line is near the top: a high y in Vision's lower-left convention, a small y in pixels.
        #expect(first.boundingBox.maxY > 0.8 && first.pixelBox.y < Int(0.2 * Double(page.height)))
        #expect(abs(first.boundingBox.y - (1 - Double(first.pixelBox.y + first.pixelBox.height) / Double(page.height))) < 1e-9)
        #expect(first.quadrilateral.first == PixelPoint(x: first.pixelBox.x, y: first.pixelBox.y))
        #expect(lines.map(\.paragraph) == lines.map(\.paragraph).sorted(), "paragraphs in reading order")
    }

    @Test func aNumberAndItsUnitAreReadAsTwoWords() async throws {
        // The price table of a committed structure render: Tesseract's line model reads
        // "16 kg" as one word `16kg`; the characters' boxes show the space.
        let path = RenderedPage.root.appendingPathComponent("Datasets/structure/clean/s028-flyer.png").path
        let page = try ImageDecoder().decode(contentsOf: path).luma.eightBit
        var options = RecognitionOptions()
        options.regionOfInterest = PixelRect(x: 140, y: 750, width: 520, height: 330).normalized(in: page.size)
        let words = try await recognizer.recognize(page, options: options).flatMap(\.words).map(\.text.string)
        let units = words.indices.dropFirst().filter { words[$0] == "kg" && words[$0 - 1].allSatisfy(\.isNumber) }
        #expect(units.count == 7, "\(words)")
        #expect(!words.contains { $0.hasSuffix("kg") && $0 != "kg" }, "\(words)")
    }

    @Test func aCellHoldingOneDigitIsReadAsABlock() async throws {
        // The row numbers of a committed sign-up sheet render, inside their ruled cells: the
        // page's layout analysis finds no text line in a cell holding a lone digit.
        let path = RenderedPage.root.appendingPathComponent("Datasets/structure/clean/s046-signup.png").path
        let page = try ImageDecoder().decode(contentsOf: path).luma.eightBit
        for (digit, cell) in [("2", PixelRect(x: 102, y: 582, width: 54, height: 40)), ("3", PixelRect(x: 102, y: 629, width: 54, height: 75))] {
            var options = RecognitionOptions()
            options.regionOfInterest = cell.normalized(in: page.size)
            #expect(try await recognizer.recognize(page, options: options).flatMap(\.words).isEmpty)
            options.regionContent = .block
            #expect(try await recognizer.recognize(page, options: options).flatMap(\.words).map(\.text.string) == [digit])
        }
    }

    @Test func regionOfInterestReadsOnlyThere() async throws {
        let page = try RenderedPage.luma()
        var options = RecognitionOptions()
        options.regionOfInterest = NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5)  // top half
        let lines = try await recognizer.recognize(page, options: options)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.pixelBox.y + $0.pixelBox.height <= page.height / 2 + 4 }, "\(lines.map(\.pixelBox))")
    }

    @Test func fastReadsTheKnownPage() async throws {
        let page = try RenderedPage.luma()
        let fast = try await recognizer.recognize(page, options: RecognitionOptions(recognitionLevel: .fast, textLayout: try RenderedPage.layout()))
        let accurate = try await recognizer.recognize(page, options: RecognitionOptions())
        let read = fast.flatMap(\.words).map(\.text.string)
        let truth = try RenderedPage.words()
        let hits = Set(read).intersection(truth).count
        #expect(Double(hits) / Double(Set(truth).count) > 0.95, "\(hits) of \(Set(truth).count) distinct words")
        // Nearly the same words in the same order as the accurate level on this clean page.
        let reference = accurate.flatMap(\.words).map(\.text.string)
        let changes = reference.difference(from: read)
        let differing = max(changes.insertions.count, changes.removals.count)
        #expect(Double(differing) / Double(reference.count) < 0.03, "\(differing) of \(reference.count) words differ")
        // Read on a reduced copy, reported in the page's own pixels: the first line falls where the accurate level finds it.
        let (f, a) = (try #require(fast.first).pixelBox, try #require(accurate.first).pixelBox)
        #expect(abs(f.x - a.x) <= 4 && abs(f.y - a.y) <= 4 && abs(f.width - a.width) <= 8 && abs(f.height - a.height) <= 8, "\(f) against \(a)")
        #expect(fast.allSatisfy { $0.words.allSatisfy { $0.pixelBox.x + $0.pixelBox.width <= page.width && $0.pixelBox.y + $0.pixelBox.height <= page.height } })
    }

    @Test func fastDiffersFromAccurateAsDocumented() throws {
        let accurate = TesseractRecognizer.Settings(.accurate), fast = TesseractRecognizer.Settings(.fast)
        #expect(accurate.pageSegmentationMode == 3 && accurate.variables.isEmpty && accurate.targetLinePitch == nil)
        #expect(fast.pageSegmentationMode == 3 && fast.variables == ["tessedit_do_invert": "0"] && fast.targetLinePitch == 25)
        #expect(fast.commandLineArguments == ["--psm", "3", "-c", "tessedit_do_invert=0"])
        #expect(accurate.commandLineArguments == ["--psm", "3"])
        // The rendered page has lines 32 pixels apart: fast reads it at 25/32 of its size.
        let layout = try RenderedPage.layout()
        #expect(accurate.reduction(for: layout) == 1)
        #expect(abs(fast.reduction(for: layout) - 25.0 / 32) < 0.01, "\(fast.reduction(for: layout))")
        // Text already small (the same page at 0.6 of its size) is left as it is.
        let small = try RenderedPage.layout(RenderedPage.root.appendingPathComponent("Datasets/documents/images/page01_downscale-0.6.png").path)
        #expect(fast.reduction(for: small) == 1)
        // Without a measured layout nothing is reduced; nor is a period of paragraphs (far beyond 24 stroke widths).
        #expect(fast.reduction(for: nil) == 1)
        #expect(fast.reduction(for: TextLayout(linePitch: 200, strokeWidth: 3)) == 1)
        // Never below half size.
        #expect(fast.reduction(for: TextLayout(linePitch: 100, strokeWidth: 8)) == 0.5)
    }

    @Test func theSourceResolutionReachesTesseract() async throws {
        let page = try RenderedPage.luma()
        // The page was rendered at 150 ppi; Tesseract keeps a credible resolution as given.
        let given = try await recognizer.recognition(page, options: RecognitionOptions(sourceResolution: 150))
        #expect(given.sourceResolution == 150)
        // None given: 70 ppi, then an estimate from the text, as the tesseract program does for a file without one.
        let none = try await recognizer.recognition(page, options: RecognitionOptions())
        #expect(none.sourceResolution == 70)
        // Below 70 ppi Tesseract falls back to 70, as for the program.
        let tooLow = try await recognizer.recognition(page, options: RecognitionOptions(sourceResolution: 50))
        #expect(tooLow.sourceResolution == 70)
        // Then none again: one image's resolution does not stay for the next on a reused engine.
        #expect(try await recognizer.recognition(page, options: RecognitionOptions()).sourceResolution == 70)
        let words = given.observations.flatMap(\.words).map(\.text.string)
        #expect(Double(Set(words).intersection(try RenderedPage.words()).count) / Double(Set(try RenderedPage.words()).count) > 0.95)
        await #expect(throws: RecognitionError.self) { try await recognizer.recognize(page, options: RecognitionOptions(sourceResolution: 0)) }
    }

    @Test func optionsAreHonouredOrRefused() async throws {
        let page = try RenderedPage.luma()
        var unknown = RecognitionOptions()
        unknown.recognitionLanguages = ["x1"]
        await #expect(throws: RecognitionError.self) { try await recognizer.recognize(page, options: unknown) }
        #expect(try TesseractRecognizer.tesseractLanguages(["en-US", "de"]) == "eng+deu")
    }

    @Test func initOptionsReachTheEngine() throws {
        let settings = TesseractRecognizer.Settings(.accurate)
        let plain = try Engine(EngineKey(languages: "eng", correction: true, customWords: [], level: settings))
        #expect(plain.initialisedLanguages == "eng")
        #expect(plain.boolVariable("load_system_dawg") == true && plain.boolVariable("load_freq_dawg") == true)
        #expect(plain.stringVariable("user_words_file") == "")
        // Language correction off and custom words: dictionaries off, the words in the user-words file.
        let custom = try Engine(EngineKey(languages: "eng+osd", correction: false, customWords: ["Zqwxv", "Brrk"], level: settings))
        #expect(custom.initialisedLanguages == "eng+osd")
        #expect(custom.boolVariable("load_system_dawg") == false && custom.boolVariable("load_freq_dawg") == false)
        let file = try #require(custom.stringVariable("user_words_file"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "Zqwxv\nBrrk\n")
        #expect(custom.boolVariable("no_such_setting") == nil)
    }

    @Test func invertedTextIsReadOnlyWhenAsked() throws {
        // The rendered page's first lines as light text on a dark ground.
        let page = try RenderedPage.luma()
        var inverted = PixelBuffer<UInt8>(width: page.width, height: 400)
        inverted.withUnsafeMutableBufferPointer { out in
            page.withUnsafeBufferPointer { pixels in
                for y in 0..<400 { for x in 0..<page.width { out[y * page.width + x] = 255 - pixels[y * page.rowStride + x] } }
            }
        }
        let engine = try Engine(EngineKey(languages: "eng", correction: true, customWords: [], level: TesseractRecognizer.Settings(.accurate)))
        let truth = Set(try RenderedPage.words())
        func share(_ reads: Bool?) throws -> Double {
            var options = RecognitionOptions()
            options.readsInvertedText = reads
            let words = try engine.recognize(inverted, options: options, deadline: .seconds(60)).observations.flatMap(\.words).map(\.text.string)
            #expect(engine.boolVariable("tessedit_do_invert") == (reads ?? true))
            return Double(words.filter(truth.contains).count) / Double(max(1, words.count))
        }
        let levelDefault = try share(nil), off = try share(false), on = try share(true)
        #expect(levelDefault > 0.8 && on > 0.8, "\(levelDefault), \(on)")
        #expect(off < 0.2, "\(off)")
        // A fast engine reads dark on light only unless asked.
        let fast = try Engine(EngineKey(languages: "eng", correction: true, customWords: [], level: TesseractRecognizer.Settings(.fast)))
        _ = try fast.recognize(inverted, options: RecognitionOptions(), deadline: .seconds(60))
        #expect(fast.boolVariable("tessedit_do_invert") == false)
    }

    @Test func missingLanguageDataIsAClearError() async throws {
        var options = RecognitionOptions()
        options.recognitionLanguages = ["yor"]  // Yoruba: no traineddata installed here
        do {
            _ = try await recognizer.recognize(try RenderedPage.luma(), options: options)
            Issue.record("a language without data was accepted")
        } catch let error as RecognitionError {
            #expect(error.kind == .engineUnavailable && error.message.contains("yor"), "\(error)")
        }
    }
}

@Suite("External command recognizer", .serialized)
struct CommandRecognizerTests {
    let command = CommandTextRecognizer(arguments: ["tesseract", "{input}", "-", "-l", "{languages}", "tsv"])

    @Test func theTesseractProgramThroughTheSeamConforms() async throws {
        let failures = await TextRecognizerConformance.check(command, page: try RenderedPage.luma(), expectedWords: Set(try RenderedPage.words()), minimumWordRecall: 0.9)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func itAgreesWithTheLibraryBackend() async throws {
        let page = try RenderedPage.luma()
        let viaCommand = try await command.recognize(page, options: RecognitionOptions()).flatMap(\.words).map(\.text.string)
        let viaLibrary = try await TesseractRecognizer().recognize(page, options: RecognitionOptions()).flatMap(\.words).map(\.text.string)
        let same = zip(viaCommand, viaLibrary).filter { $0 == $1 }.count
        #expect(Double(same) / Double(max(viaCommand.count, viaLibrary.count)) > 0.95, "\(same) of \(viaCommand.count)/\(viaLibrary.count) words agree")
    }

    /// A TSV with one line of one word, as `tesseract … tsv` prints it.
    static let oneWordTSV = [
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
        "4\t1\t1\t1\t1\t0\t2\t3\t40\t10\t-1\t",
        "5\t1\t1\t1\t1\t1\t2\t3\t40\t10\t95\tHello",
    ].joined(separator: "\\n")

    @Test func aChildThatFillsStandardErrorFirstIsRead() async throws {
        // 1 MB on stderr before any output: with the pipes read one after the other, the child
        // blocks on a full stderr pipe while stdout is awaited, until the deadline stops it.
        let noisy = CommandTextRecognizer(
            arguments: ["/bin/sh", "-c", "head -c 1000000 /dev/zero >&2; printf '\(Self.oneWordTSV)\\n'", "{input}"],
            deadline: .seconds(20))
        let page = PixelBuffer<UInt8>(width: 64, height: 32)
        let lines = try await noisy.recognize(page, options: RecognitionOptions())
        #expect(lines.flatMap(\.words).map(\.text.string) == ["Hello"])
    }

    @Test func theDeadlineKeepsItsFractions() async throws {
        let page = PixelBuffer<UInt8>(width: 64, height: 32)
        // 2.2 s of work within a 3.9 s deadline: whole seconds only would stop it at 3 s; none at all, at once.
        let slow = CommandTextRecognizer(
            arguments: ["/bin/sh", "-c", "sleep 2.2; printf '\(Self.oneWordTSV)\\n'", "{input}"], deadline: .milliseconds(3900))
        #expect(try await slow.recognize(page, options: RecognitionOptions()).count == 1)
        let tooSlow = CommandTextRecognizer(arguments: ["/bin/sh", "-c", "exec sleep 5", "{input}"], deadline: .milliseconds(700))
        do {
            _ = try await tooSlow.recognize(page, options: RecognitionOptions())
            Issue.record("a command past its deadline was not stopped")
        } catch let error as RecognitionError {
            #expect(error.kind == .deadlineExceeded, "\(error)")
        }
    }

    @Test func aMissingProgramAndRefusedOptions() async throws {
        let missing = CommandTextRecognizer(arguments: ["/no/such/ocr", "{input}"])
        do {
            _ = try await missing.recognize(try RenderedPage.luma(), options: RecognitionOptions())
            Issue.record("a missing program ran")
        } catch let error as RecognitionError {
            #expect(error.kind == .engineUnavailable)
        }
        var custom = RecognitionOptions()
        custom.customWords = ["x"]
        await #expect(throws: RecognitionError.self) { try await command.recognize(try RenderedPage.luma(), options: custom) }
    }
}
