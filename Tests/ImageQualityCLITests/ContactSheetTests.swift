import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityCalibration
import QualityGating
import Testing
import _ImagingTestSupport

@testable import ImageQualityCLI
@testable import QualityReports

@Suite("Contact sheet", .serialized)
struct ContactSheetTests {
    static let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets").path

    /// One input's assessment and thumbnail.
    typealias Assessed = (assessment: Assessment, thumbnail: [UInt8]?)

    /// The name under which the quadrant fixture is assessed: it holds `<&"`.
    static let oddPath = "/scans/odd <&\" name.jpg"

    /// Real photographs of `Datasets/` (clean, blurred, badly exposed), two document pages,
    /// the quadrant fixture under a name with `<&"`, and a file that is not an image;
    /// assessed once for all the tests (the assessor is slow in a debug build).
    /// (Without the fixture's bytes the odd name reads as a second failure, which the tests notice.)
    static let inputs: [Assessed] = {
        let assessor = Assessor()
        let files = [
            datasets + "/blur/images/kde-bythewater_clean.jpg",
            datasets + "/blur/images/kde-bythewater_defocus-0.016.jpg",
            datasets + "/exposure/images/kde-bythewater_ev-3.0.jpg",
            Fixtures.path("other/not-an-image.txt"),
            datasets + "/blur/images/kde-coldripple_motion-0.04.jpg",
            datasets + "/documents/images/page02_clean.png",
            datasets + "/documents/images/page02_gaussian-2.5.jpg",
            datasets + "/exposure/images/kde-coldripple_ev+3.0.jpg",
        ]
        var inputs = files.map { Assessor.Input.file(path: $0) }
        inputs.insert(.encoded((try? Fixtures.bytes("jpeg/baseline-444.jpg")) ?? [], name: oddPath), at: 4)
        return inputs.map { input in
            let assessed = assessor.assessKeepingPixels(input)
            return (assessed.assessment, assessed.luma.flatMap { ContactSheet.thumbnail(luma: $0, rgb: assessed.rgb) })
        }
    }()

    /// A sheet of `inputs` written in a temporary directory.
    struct Batch {
        let folder: TemporaryDirectory
        let assessments: [Assessment]
        var report: String { folder.path + "/report" }

        init() throws {
            folder = try TemporaryDirectory()
            let inputs = ContactSheetTests.inputs
            var sheet = try ContactSheet(directory: folder.path + "/report")
            for (assessment, thumbnail) in inputs { try sheet.add(assessment, thumbnail: thumbnail) }
            try sheet.finish(policy: .default, command: "imgquality gate --report report …", elapsed: .milliseconds(1234))
            assessments = inputs.map(\.assessment)
        }

        func html() throws -> String { try String(contentsOfFile: report + "/index.html", encoding: .utf8) }
    }

    static func batch() throws -> Batch { try Batch() }

    /// The cards of a page (or of a DOM dump), in document order: each `<article …>` opening
    /// tag and the markup up to the next card.
    static func cards(_ html: String) -> [(tag: String, body: String)] {
        html.components(separatedBy: "<article ").dropFirst().map { chunk in
            let tag = String(chunk.prefix { $0 != ">" })
            return (tag, chunk.components(separatedBy: "</article>").first ?? chunk)
        }
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        guard let range = tag.range(of: name + "=\"") else { return nil }
        return String(tag[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The gate score a card shows.
    static func score(_ body: String) -> Double? {
        guard let range = body.range(of: "score <b>") else { return nil }
        return Double(body[range.upperBound...].prefix { $0 != "<" })
    }

    // MARK: - The directory

    @Test func refusesAFileAndAPlaceItCannotCreate() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("taken", [1, 2, 3])
        #expect {
            try ContactSheet(directory: file)
        } throws: { error in
            (error as? ContactSheet.Failure)?.message == "The report directory \(file) is an existing file, not a directory."
        }
        #expect {
            try ContactSheet(directory: "/proc/imgquality-contact-sheet")
        } throws: { error in
            (error as? ContactSheet.Failure)?.message.hasPrefix("Cannot create the report directory /proc/imgquality-contact-sheet: ") == true
        }
        // A file on the way is named, not left to an error number.
        #expect {
            try ContactSheet(directory: file + "/sub/sheet")
        } throws: { error in
            (error as? ContactSheet.Failure)?.message == "Cannot create the report directory \(file)/sub/sheet: \(file) is a file, not a directory."
        }
        // A missing directory is created with its parents, and an existing one is reused.
        _ = try ContactSheet(directory: folder.path + "/a/b")
        _ = try ContactSheet(directory: folder.path + "/a/b")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/a/b/thumbnails"))
    }

    /// A sheet that cannot be written mid-batch (here its first thumbnail is linked to
    /// /dev/full, as a disk that fills up) is dropped with a message; every record still
    /// comes out, and the batch ends with 74.
    @Test func aSheetThatCannotBeWrittenIsDroppedAndTheBatchGoesOn() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/report/thumbnails", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/report/thumbnails/000000.jpg", withDestinationPath: "/dev/full")
        let images = [Fixtures.path("png/gray8.png"), Fixtures.path("no/such.png"), Fixtures.path("tiff/gray8.tif")]
        let run = try Binary.run(["score", "--quiet", "--report", folder.path + "/report"] + images)
        #expect(run.status == 74)
        #expect(run.records.map { $0["path"] as? String } == images)
        #expect(run.stderr == """
            imgquality: cannot write the contact sheet: Cannot write the thumbnail \(folder.path)/report/thumbnails/000000.jpg: \
            no space left on the device. The batch goes on without it.

            """, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/report/index.html"))
    }

    // MARK: - Thumbnails

    @Test func thumbnailsAreSmallJPEGsInColourOrGrey() throws {
        let assessor = Assessor()
        let photo = assessor.assessKeepingPixels(.file(path: Self.datasets + "/blur/images/kde-bythewater_clean.jpg"))
        let luma = try #require(photo.luma)
        let colour = try #require(ContactSheet.thumbnail(luma: luma, rgb: photo.rgb))
        let decoded = try ImageDecoder(options: DecodeOptions(wantsRGB: true)).decode(colour)
        #expect(decoded.format == .jpeg)
        #expect(decoded.rgb?.channels == 3)
        let size = decoded.orientedSize
        #expect(max(size.width, size.height) <= ContactSheet.thumbnailLongSide && min(size.width, size.height) > 0)
        // The photo is 768 × 480: the thumbnail keeps its shape.
        #expect(abs(Double(size.width) / Double(size.height) - 1.6) < 0.02, "\(size)")

        #expect(Self.components(colour) == 3)

        let grey = try #require(ContactSheet.thumbnail(luma: luma, rgb: nil))
        #expect(try ImageDecoder().decode(grey).orientedSize == size)
        #expect(Self.components(grey) == 1)
        #expect(ContactSheet.thumbnail(luma: PixelBuffer<UInt8>(), rgb: nil) == nil)
    }

    /// The number of components a JPEG's frame header (SOF0–SOF2) declares.
    static func components(_ jpeg: [UInt8]) -> Int? {
        for i in 0..<(jpeg.count - 9) where jpeg[i] == 0xFF && (0xC0...0xC2).contains(jpeg[i + 1]) {
            return Int(jpeg[i + 9])
        }
        return nil
    }

    // MARK: - The page

    @Test func cardsRunRejectedThenFailedThenPassedWorstFirst() throws {
        let batch = try Self.batch()
        let cards = Self.cards(try batch.html())
        #expect(cards.count == batch.assessments.count)
        let statuses = cards.map { Self.attribute("data-status", in: $0.tag) ?? "?" }
        let rank = ["rejected": 0, "failed": 1, "passed": 2]
        #expect(statuses.map { rank[$0] ?? 9 } == statuses.map { rank[$0] ?? 9 }.sorted(), "\(statuses)")
        #expect(statuses.count { $0 == "rejected" } == batch.assessments.count { $0.image != nil && !$0.passed })
        #expect(statuses.count { $0 == "failed" } == 1 && statuses.count { $0 == "passed" } >= 1)
        for status in ["rejected", "passed"] {
            let scores = cards.filter { Self.attribute("data-status", in: $0.tag) == status }.compactMap { Self.score($0.body) }
            #expect(scores == scores.sorted(), "\(status) scores \(scores) are not worst first")
        }
    }

    /// Each page of a multi-page file is a card, named by its page.
    @Test func pagesOfOneFileAreCardsOfTheirOwn() throws {
        let folder = try TemporaryDirectory()
        var sheet = try ContactSheet(directory: folder.path + "/report")
        for kept in Assessor().assessPages(.file(path: Fixtures.path("tiff/three-pages.tif")), pages: .all, { $0 }) {
            try sheet.add(kept.assessment, thumbnail: kept.luma.flatMap { ContactSheet.thumbnail(luma: $0, rgb: kept.rgb) })
        }
        try sheet.finish(policy: .default, command: "imgquality score --report report three-pages.tif", elapsed: .milliseconds(5))
        let html = try String(contentsOfFile: folder.path + "/report/index.html", encoding: .utf8)
        #expect(Self.cards(html).count == 3)
        for page in 1...3 { #expect(html.contains("three-pages.tif (page \(page))</p>"), "page \(page)") }
    }

    @Test func cardsSayWhyInWordsAndEscapeEveryPath() throws {
        let batch = try Self.batch()
        let html = try batch.html()
        let cards = Self.cards(html)
        let reasons = Set(batch.assessments.flatMap { $0.image?.decision.reasons ?? [] })
        #expect(reasons.contains(.blur) && reasons.contains(.exposure) && reasons.contains(.predictedAccuracy), "\(reasons)")
        for assessment in batch.assessments {
            let escapedPath = htmlEscaped(assessment.path)
            let card = try #require(cards.first { $0.body.contains("title=\"\(escapedPath)\">") }, "no card for \(assessment.path)")
            for failure in assessment.image?.decision.failures ?? [] {
                let words = failure.message.replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "<", with: "&lt;")
                #expect(card.body.contains("<li>\(words)</li>"), "\(failure.message) missing for \(assessment.path)")
                #expect(Self.attribute("data-reasons", in: card.tag)?.split(separator: " ").contains(Substring(failure.reason.rawValue)) == true)
            }
            if let error = assessment.error {
                #expect(card.body.contains(htmlEscaped(error.message)) && card.body.contains(error.code))
                #expect(!card.body.contains("<img"))
            }
        }
        #expect(!html.contains("odd <&\" name") && html.contains(">/scans/odd &lt;&amp;&quot; name.jpg</p>"))
        #expect(!html.contains("http://") && !html.contains("https://"), "the page must not reach the network")
        // Counts at the top, one histogram per detector with the blur threshold marked.
        #expect(html.contains("href=\"#reason=blur\"") && html.contains("href=\"#reason=failed\""))
        for title in ["Blur confidence", "Smudge confidence", "Exposure confidence", "Aesthetic score", "Gate score", "Text legibility"] {
            #expect(html.contains("<b>\(title)</b>"), "\(title) histogram")
        }
        #expect(html.contains("class=\"threshold-label\">\(ReportNumber.short(QualityPolicy.default.blur))</text>"))
    }

    /// Cards show paths after the folder all inputs share, named once in the header.
    @Test func theSharedFolderIsAWholeFolder() {
        #expect(ContactSheet.sharedFolder(["/a/b/c.jpg", "/a/b/d/e.jpg"]) == "/a/b/")
        #expect(ContactSheet.sharedFolder(["/a/bc.jpg", "/a/bd.jpg"]) == "/a/")
        #expect(ContactSheet.sharedFolder(["/a.jpg", "/b.jpg"]) == "")
        #expect(ContactSheet.sharedFolder(["x.jpg", "y.jpg"]) == "")
        #expect(ContactSheet.sharedFolder(["/a/b/c.jpg"]) == "")
        var sheet = ContactSheet.Entry(
            Assessment(path: "/scans/day 1/a.jpg", outcome: .failed(ImagingError(.notFound, "No such file."))), index: 0, thumbnail: nil)
        #expect(ContactSheet.card(sheet, eager: true, prefix: "/scans/").contains("title=\"/scans/day 1/a.jpg\">day 1/a.jpg</p>"))
        sheet.path = "/scans/<b>.jpg"
        #expect(ContactSheet.card(sheet, eager: true, prefix: "/scans/").contains("title=\"/scans/&lt;b&gt;.jpg\">&lt;b&gt;.jpg</p>"))
    }

    @Test func thumbnailFilesExistAndAreJPEGs() throws {
        let batch = try Self.batch()
        let sources = Self.cards(try batch.html()).compactMap { card -> String? in
            guard let range = card.body.range(of: "<img src=\"") else { return nil }
            return String(card.body[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(sources.count == batch.assessments.count { $0.image != nil })
        let decoder = ImageDecoder(options: DecodeOptions(wantsRGB: true))
        for source in sources {
            #expect(source.hasPrefix("thumbnails/"), "\(source) is not relative to the page")
            let image = try decoder.decode(contentsOf: batch.report + "/" + source)
            #expect(image.format == .jpeg && max(image.orientedSize.width, image.orientedSize.height) <= 256)
        }
    }

    // MARK: - In a browser

    static func chromium(_ arguments: [String], profile: String) throws -> String {
        let browser = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                   "chromium is installed by Scripts/bootstrap.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(profile)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The screenshot shows the reject colour (badges, borders, bars) and the thumbnails'
    /// pixels: the quadrant fixture's blue.
    @Test func theSheetRendersInChromium() throws {
        let batch = try Self.batch()
        let screenshot = batch.folder.path + "/shot.png"
        _ = try Self.chromium(
            ["--window-size=1400,2000", "--screenshot=\(screenshot)", "file://\(batch.report)/index.html"],
            profile: batch.folder.path + "/chromium-profile")
        let image = try ImageDecoder(options: DecodeOptions(wantsRGB: true)).decode(contentsOf: screenshot)
        guard case .uint8(let rgb)? = image.rgb else { Issue.record("no RGB screenshot"); return }
        func count(_ colour: (Int, Int, Int), within tolerance: Int) -> Int {
            var n = 0
            for y in 0..<rgb.height {
                for x in 0..<rgb.width
                where abs(Int(rgb[x, y, 0]) - colour.0) <= tolerance && abs(Int(rgb[x, y, 1]) - colour.1) <= tolerance
                    && abs(Int(rgb[x, y, 2]) - colour.2) <= tolerance
                {
                    n += 1
                }
            }
            return n
        }
        // The reject colour #c62828 = (198, 40, 40).
        let red = count((198, 40, 40), within: 12)
        #expect(red > 1000, "\(red) reject-coloured pixels")
        // The quadrant fixture's bottom-left (30, 30, 200), shown about 190 px square: a quarter of it.
        let blue = count(Pattern.quadrantColours[2], within: 20)
        #expect(blue > 3000, "\(blue) pixels of the thumbnail's blue")
    }

    /// `#reason=blur` in the address leaves only the cards rejected for blur; `#reason=failed`
    /// only the input that could not be read.
    @Test func theAddressFiltersTheCards() throws {
        let batch = try Self.batch()
        let blurred = batch.assessments.count { $0.image?.decision.reasons.contains(.blur) == true }
        #expect(blurred >= 1 && blurred < batch.assessments.count)
        for (filter, expected) in [("blur", blurred), ("failed", 1), ("all", batch.assessments.count)] {
            let dom = try Self.chromium(
                ["--dump-dom", "file://\(batch.report)/index.html#reason=\(filter)"], profile: batch.folder.path + "/chromium-profile")
            let cards = Self.cards(dom)
            #expect(cards.count == batch.assessments.count, "\(filter): \(cards.count) cards in the DOM")
            let shown = cards.filter { !$0.tag.contains(" hidden") }
            #expect(shown.count == expected, "\(filter): \(shown.count) shown")
            for card in shown where filter != "all" {
                let reasons = (Self.attribute("data-reasons", in: card.tag) ?? "").split(separator: " ").map(String.init)
                #expect(reasons.contains(filter) || Self.attribute("data-status", in: card.tag) == filter, "\(card.tag)")
            }
            #expect(dom.contains("<span id=\"shown\">\(expected)</span>"))
        }
    }
}
