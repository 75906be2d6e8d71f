import ArgumentParser
import DocumentStructure
import Foundation
import TesseractBackend
import TextRecognition

/// How pages are read and their data detected: shared by `ocr` and `serve`.
struct RecognitionFlags: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Languages, most likely first, comma-separated (en, de, ru, or Tesseract names); for serve, those of requests without languageHints.",
        valueName: "list"))
    var languages = "en"

    @Option(name: .long, help: ArgumentHelp(
        "accurate, or fast: Tesseract without its second pass on inverted text (see the README for what it costs).", valueName: "level"))
    var recognitionLevel: RecognitionOptions.Level = .accurate

    @Flag(name: .long, help: "Turn off Tesseract's dictionaries (no correction towards known words).")
    var noLanguageCorrection = false

    @Option(name: .long, help: ArgumentHelp("A file of extra words to favour, one per line.", valueName: "file"))
    var customWords: String?

    @Option(name: .long, help: ArgumentHelp(
        "Region for detected data (ISO 3166: US, GB, DE, FR…): national phone numbers, dates with slashes, the dollar.", valueName: "code"))
    var region = "US"

    func validate() throws {
        guard region.count == 2, region.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw ValidationError("--region takes a country's two-letter ISO 3166 code (US, GB, DE, FR…), not '\(region)'.")
        }
    }

    /// The recognition options the flags give, their languages known to Tesseract.
    /// - Throws: `ValidationError` naming the flag at fault, or the custom words file that cannot be read.
    func recognitionOptions() throws -> RecognitionOptions {
        var options = RecognitionOptions(
            recognitionLevel: recognitionLevel,
            recognitionLanguages: LanguageOption.list(languages),
            usesLanguageCorrection: !noLanguageCorrection)
        if let customWords { options.customWords = try linesOfFile(customWords, holding: "custom words") }
        do {
            try options.validate()
            _ = try TesseractRecognizer.tesseractLanguages(options.recognitionLanguages)
        } catch {
            throw ValidationError(Self.inFlagTerms(error.message))
        }
        return options
    }

    /// The structure and data finder, with `--region`'s conventions.
    var documentAnalyzer: DocumentAnalyzer { DocumentAnalyzer(dataDetector: DataDetector(region: region)) }

    /// Says on standard error, once before a batch or a server starts, that no barcode will be
    /// read when ZBar (opened on first use) cannot be loaded.
    static func warnIfBarcodesAreNotRead() {
        if let reason = BarcodeReader.unavailableReason {
            InputExpander.warn("barcodes are not read: \(reason) (install libzbar0)")
        }
    }

    /// A recognizer's message about one of its options, naming the flag that sets it
    /// (`recognitionLanguages: …` reads `--languages: …`).
    static func inFlagTerms(_ message: String) -> String {
        let flags = [
            ("recognitionLanguages", "--languages"), ("customWords", "--custom-words"), ("recognitionLevel", "--recognition-level"),
            ("usesLanguageCorrection", "--no-language-correction"),
        ]
        for (option, flag) in flags where message.hasPrefix(option) { return flag + message.dropFirst(option.count) }
        return message
    }
}
