import Foundation
import ImagingCore
import QualityGating
import Testing
import TextRecognition
import _ImagingTestSupport

@testable import GatedRecognition

/// The gcv format against Cloud Vision's published response shape: breaks that rebuild the
/// text, BCP 47 languages, the input's URI, and the schema in `Tests/Schemas`.
@Suite("Google Cloud Vision responses")
struct GoogleVisionTests {
    static let size = ImageSize(width: 400, height: 300)

    /// A line of words 60 pixels apart at height `y`, with each word's language if given.
    static func line(_ words: [String], y: Int, block: Int, paragraph: Int, languages: [String?] = [], text: String? = nil) -> RecognizedTextObservation {
        let recognized = words.enumerated().map { index, word in
            RecognizedWord(
                text: RecognizedText(string: word, confidence: 0.9), pixelBox: PixelRect(x: 10 + 60 * index, y: y, width: 50, height: 12),
                imageSize: size, language: index < languages.count ? languages[index] : nil)
        }
        return RecognizedTextObservation(
            candidates: [RecognizedText(string: text ?? words.joined(separator: " "), confidence: 0.8)],
            pixelBox: PixelRect(x: 10, y: y, width: 60 * words.count - 10, height: 12), imageSize: size, words: recognized, block: block,
            paragraph: paragraph)
    }

    /// Two paragraphs in the first block (the first of two lines), one in the second.
    static let layout = [
        line(["quality", "gate"], y: 10, block: 0, paragraph: 0, text: "quality  gate"),
        line(["reads", "only", "what"], y: 30, block: 0, paragraph: 0),
        line(["will"], y: 60, block: 0, paragraph: 1),
        line(["read", "well"], y: 100, block: 1, paragraph: 2),
    ]

    /// The response members of recognized lines, as a client parses them.
    static func parsed(_ lines: [RecognizedTextObservation], languages: [String]) throws -> [String: Any] {
        let body = JSONValue.object(GoogleVisionResponse.annotations(lines, imageSize: size, languages: languages))
        return try #require(try JSONSerialization.jsonObject(with: Data(body.serialized.utf8)) as? [String: Any])
    }

    // MARK: Walking a response as a client does

    static func page(_ response: [String: Any]) throws -> [String: Any] {
        let full = try #require(response["fullTextAnnotation"] as? [String: Any])
        return try #require((full["pages"] as? [[String: Any]])?.first)
    }

    static func blocks(_ response: [String: Any]) throws -> [[String: Any]] {
        try #require(try page(response)["blocks"] as? [[String: Any]])
    }

    static func paragraphs(_ response: [String: Any]) throws -> [[String: Any]] {
        try blocks(response).flatMap { try #require($0["paragraphs"] as? [[String: Any]]) }
    }

    static func words(_ response: [String: Any]) throws -> [[String: Any]] {
        try paragraphs(response).flatMap { try #require($0["words"] as? [[String: Any]]) }
    }

    static func symbols(_ word: [String: Any]) throws -> [[String: Any]] {
        try #require(word["symbols"] as? [[String: Any]])
    }

    static func breakType(_ symbol: [String: Any]) -> String? {
        ((symbol["property"] as? [String: Any])?["detectedBreak"] as? [String: Any])?["type"] as? String
    }

    static func languages(_ element: [String: Any]) -> [[String: Any]]? {
        (element["property"] as? [String: Any])?["detectedLanguages"] as? [[String: Any]]
    }

    /// The text a client rebuilds from symbols and breaks: a space for SPACE and SURE_SPACE,
    /// a newline for EOL_SURE_SPACE and LINE_BREAK.
    static func rebuiltText(_ response: [String: Any]) throws -> String {
        var text = ""
        for word in try words(response) {
            for symbol in try symbols(word) {
                text += try #require(symbol["text"] as? String)
                switch breakType(symbol) {
                case "SPACE", "SURE_SPACE": text += " "
                case "EOL_SURE_SPACE", "LINE_BREAK": text += "\n"
                default: break
                }
            }
        }
        return text
    }

    static func fullText(_ response: [String: Any]) throws -> String {
        try #require((response["fullTextAnnotation"] as? [String: Any])?["text"] as? String)
    }

    /// Our description of Google's response, `Tests/Schemas/google-vision-annotate-response.schema.json`.
    let schema: SchemaValidator = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/google-vision-annotate-response.schema.json")
        return try! SchemaValidator(schema: String(contentsOf: file, encoding: .utf8))
    }()

    // MARK: Breaks

    @Test func theLastSymbolOfEachWordCarriesTheBreakThatFollowsIt() throws {
        let response = try Self.parsed(Self.layout, languages: ["en"])
        let words = try Self.words(response)
        let spelled = try words.map { try Self.symbols($0).compactMap { $0["text"] as? String }.joined() }
        #expect(spelled == ["quality", "gate", "reads", "only", "what", "will", "read", "well"])
        let breaks = try words.map { try Self.symbols($0).last.flatMap(Self.breakType) }
        #expect(breaks == ["SPACE", "EOL_SURE_SPACE", "SPACE", "SPACE", "LINE_BREAK", "LINE_BREAK", "SPACE", "LINE_BREAK"])
        // Only a word's last symbol has a break.
        for word in words {
            #expect(try Self.symbols(word).dropLast().allSatisfy { $0["property"] == nil })
        }
    }

    @Test func symbolsAndBreaksRebuildTheText() throws {
        let response = try Self.parsed(Self.layout, languages: ["en"])
        let text = try Self.fullText(response)
        // The text follows the words, one space apart, whatever spacing the line's reading had.
        #expect(text == "quality gate\nreads only what\nwill\nread well\n")
        let rebuilt = try Self.rebuiltText(response)
        #expect(rebuilt == text)
        #expect(rebuilt.split(whereSeparator: \.isWhitespace) == text.split(whereSeparator: \.isWhitespace))
        let annotations = try #require(response["textAnnotations"] as? [[String: Any]])
        #expect(annotations.first?["description"] as? String == text)
        #expect(annotations.dropFirst().compactMap { $0["description"] as? String } == rebuilt.split(whereSeparator: \.isWhitespace).map(String.init))
    }

    // MARK: Languages

    @Test func oneRequestedLanguageIsEveryWordsLanguageAsBCP47() throws {
        let response = try Self.parsed(Self.layout, languages: ["eng"])
        let english: [[String: Any]] = [["languageCode": "en", "confidence": 1.0]]
        func same(_ a: [[String: Any]]?, _ b: [[String: Any]]) -> Bool {
            guard let a else { return false }
            return a.count == b.count && zip(a, b).allSatisfy { $0["languageCode"] as? String == $1["languageCode"] as? String && $0["confidence"] as? Double == $1["confidence"] as? Double }
        }
        #expect(same(Self.languages(try Self.page(response)), english))
        #expect(try Self.blocks(response).allSatisfy { same(Self.languages($0), english) })
        #expect(try Self.paragraphs(response).allSatisfy { same(Self.languages($0), english) })
        #expect(try Self.words(response).allSatisfy { same(Self.languages($0), english) })
        let annotations = try #require(response["textAnnotations"] as? [[String: Any]])
        #expect(annotations.first?["locale"] as? String == "en")
        // Only the whole text has a locale, as in Google's responses.
        #expect(annotations.dropFirst().allSatisfy { $0["locale"] == nil })
        // A tag the caller gave stays as given.
        let american = try Self.parsed(Self.layout, languages: ["en-US"])
        #expect((american["textAnnotations"] as? [[String: Any]])?.first?["locale"] as? String == "en-US")
    }

    @Test func recognizedLanguagesAreSharesOfTheCharacters() throws {
        let lines = [
            Self.line(["quality", "gate"], y: 10, block: 0, paragraph: 0, languages: ["en", "en"]),
            Self.line(["Straße"], y: 60, block: 1, paragraph: 1, languages: ["de"]),
        ]
        let response = try Self.parsed(lines, languages: ["de", "en"])
        // 11 English characters, 6 German: English leads the page and is its locale.
        let page = try #require(Self.languages(try Self.page(response)))
        #expect(page.map { $0["languageCode"] as? String } == ["en", "de"])
        #expect(page.map { $0["confidence"] as? Double } == [0.6471, 0.3529])
        #expect((response["textAnnotations"] as? [[String: Any]])?.first?["locale"] as? String == "en")
        let blocks = try Self.blocks(response)
        #expect(blocks.map { Self.languages($0)?.first?["languageCode"] as? String } == ["en", "de"])
        #expect(blocks.map { Self.languages($0)?.first?["confidence"] as? Double } == [1, 1])
        #expect(try Self.words(response).map { Self.languages($0)?.first?["languageCode"] as? String } == ["en", "en", "de"])
    }

    @Test func severalRequestedLanguagesAndNoneRecognizedLeaveLanguagesOut() throws {
        let response = try Self.parsed(Self.layout, languages: ["deu", "en"])
        #expect(try Self.page(response)["property"] == nil)
        #expect(try Self.blocks(response).allSatisfy { $0["property"] == nil })
        #expect(try Self.words(response).allSatisfy { $0["property"] == nil })
        // The locale falls back to the most likely language asked for.
        #expect((response["textAnnotations"] as? [[String: Any]])?.first?["locale"] as? String == "de")
    }

    // MARK: Context

    @Test func everyResponseNamesItsInputAsAFileURI() throws {
        let failure = RecognitionOutcome(path: "some dir/a#1.png", result: .failed(RecognitionError(.failed, "engine broke")))
        let body = GoogleVisionResponse.body(failure, languages: ["en"])
        let directory = try #require(FileManager.default.currentDirectoryPath.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed))
        #expect(body[path: "responses"].flatMap { value -> JSONValue? in
            guard case .array(let responses) = value else { return nil }
            return responses.first?[path: "context.uri"]
        } == .string("file://" + directory + "/some%20dir/a%231.png"))
        #expect(GoogleVisionResponse.uri("/tmp/scans/../page 1.png") == "file:///tmp/page%201.png")
        // A name that is not UTF-8 is encoded from its own bytes, standardized the same way.
        let latin1 = FileSystemPath.string(bytes: [0x63, 0x61, 0x66, 0xE9])
        #expect(GoogleVisionResponse.uri("/tmp/./" + latin1 + "/x/../a;b é.png") == "file:///tmp/caf%E9/a;b%20%C3%A9.png")
        #expect(schema.problems(body.serialized).isEmpty, "\(schema.problems(body.serialized))")
    }

    /// A file of several pages prints as `files:annotate`: one file response holding a
    /// response per page, each naming its page; the schema takes both shapes.
    @Test func aFileOfSeveralPagesIsOneFileResponse() throws {
        var pages: [RecognitionOutcome] = []
        for page in 1...3 {
            var outcome = RecognitionOutcome(path: "/scans/fax.tif", result: .failed(RecognitionError(.failed, "page \(page) broke")))
            (outcome.page, outcome.pageCount) = (page, 5)
            pages.append(outcome)
        }
        #expect(GoogleVisionResponse.isFile(pages))
        #expect(!GoogleVisionResponse.isFile([RecognitionOutcome(path: "a.png", result: .failed(RecognitionError(.failed, "x")))]))
        let body = GoogleVisionResponse.filesBody(pages, languages: ["en"])
        #expect(body[path: "responses"].map { value -> Int in
            guard case .array(let files) = value else { return -1 }
            return files.count
        } == 1)
        let text = body.serialized
        #expect(text.hasPrefix(#"{"responses":[{"responses":[{"error":{"code":3,"message":"recognize.failed: page 1 broke"},"context":{"uri":"file:///scans/fax.tif","pageNumber":1}}"#), "\(text)")
        #expect(text.hasSuffix(#""context":{"uri":"file:///scans/fax.tif","pageNumber":3}}],"totalPages":5}]}"#), "\(text)")
        #expect(schema.problems(text).isEmpty, "\(schema.problems(text))")
        let noTotal = text.replacingOccurrences(of: #","totalPages":5"#, with: "")
        #expect(!schema.problems(noTotal).isEmpty)
    }

    // MARK: Schema

    @Test func theSchemaAcceptsOurResponsesAndRefusesOtherShapes() throws {
        let recognized = JSONValue.object([
            ("responses", .array([.object(
                GoogleVisionResponse.annotations(Self.layout, imageSize: Self.size, languages: ["en"])
                    + [("context", .object([("uri", .string("file:///a.png"))]))])])),
        ]).serialized
        #expect(schema.problems(recognized).isEmpty, "\(schema.problems(recognized))")
        let empty = JSONValue.object([
            ("responses", .array([.object(
                GoogleVisionResponse.annotations([], imageSize: Self.size, languages: ["en"]) + [("context", .object([("uri", .string("file:///a.png"))]))])])),
        ]).serialized
        #expect(schema.problems(empty).isEmpty, "\(schema.problems(empty))")
        // The schema is strict enough to catch mistakes.
        let unknownBreak = recognized.replacingOccurrences(of: "\"EOL_SURE_SPACE\"", with: "\"NEWLINE\"")
        #expect(schema.problems(unknownBreak).contains { $0.contains("detectedBreak.type") })
        let extraMember = recognized.replacingOccurrences(of: "\"blockType\"", with: "\"kind\":1,\"blockType\"")
        #expect(schema.problems(extraMember).contains { $0.contains("unexpected member kind") })
        let noContext = recognized.replacingOccurrences(of: ",\"context\":{\"uri\":\"file:///a.png\"}", with: "")
        #expect(schema.problems(noContext).contains { $0.contains("missing context") })
        let stringLanguage = recognized.replacingOccurrences(of: "\"detectedLanguages\":[", with: "\"detectedLanguages\":[\"en\",")
        #expect(!schema.problems(stringLanguage).isEmpty)
    }

    // MARK: Through the command, with Tesseract

    @Test func aTesseractPageMatchesTheSchemaAndRebuildsItsText() throws {
        let documents = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Datasets/documents").path
        let clean = documents + "/images/page03_clean.png"
        let blurred = documents + "/images/page02_gaussian-2.5.jpg"
        let truncated = Fixtures.path("png/truncated.png")
        let run = try Binary.run(["ocr", "--format", "gcv", clean, blurred, truncated])
        #expect(run.status == 2, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        for line in lines {
            #expect(schema.problems(line).isEmpty, "\(schema.problems(line).prefix(5))")
        }
        let responses = try run.records.map { try #require(($0["responses"] as? [[String: Any]])?.first) }
        #expect(responses.map { ($0["context"] as? [String: Any])?["uri"] as? String } == [clean, blurred, truncated].map { URL(fileURLWithPath: $0).absoluteString })
        let response = try #require(responses.first)

        let text = try Self.fullText(response)
        let rebuilt = try Self.rebuiltText(response)
        #expect(rebuilt == text)
        // Words stay apart: the rebuilt text's words are the words of the structure.
        let structureWords = try Self.words(response).map { try Self.symbols($0).compactMap { $0["text"] as? String }.joined() }
        #expect(rebuilt.split(whereSeparator: \.isWhitespace).map(String.init) == structureWords)
        #expect(structureWords.count > 100)
        let truth = try String(contentsOfFile: documents + "/text/page03.txt", encoding: .utf8)
        let truthWords = Set(truth.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(Double(Set(structureWords).intersection(truthWords).count) / Double(truthWords.count) > 0.9)
        // A line break ends each paragraph, a line-wrapping break every other line.
        let breaks = try Self.words(response).compactMap { try Self.symbols($0).last.flatMap(Self.breakType) }
        #expect(breaks.count == structureWords.count)
        let paragraphs = try Self.paragraphs(response).count
        #expect(paragraphs > 1)
        #expect(breaks.filter { $0 == "LINE_BREAK" }.count == paragraphs)
        #expect(breaks.filter { $0 == "EOL_SURE_SPACE" }.count == text.filter { $0 == "\n" }.count - paragraphs)

        let annotations = try #require(response["textAnnotations"] as? [[String: Any]])
        #expect(annotations.first?["locale"] as? String == "en")
        let page = try #require(Self.languages(try Self.page(response)))
        #expect(page.count == 1 && page.first?["languageCode"] as? String == "en" && page.first?["confidence"] as? Double == 1)
        #expect((responses[1]["error"] as? [String: Any])?["code"] as? Int == 9)
        #expect((responses[2]["error"] as? [String: Any])?["code"] as? Int == 3)
    }
}
