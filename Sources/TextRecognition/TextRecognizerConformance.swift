import ImagingCore

/// Checks the promises of `TextRecognizer` on any implementation, as swift-log's
/// handler tests do for `LogHandler`: run it from a backend's own test suite on a page
/// with known words.
public enum TextRecognizerConformance {
    /// One broken promise.
    public struct Failure: Sendable, CustomStringConvertible {
        public var check: String
        public var detail: String
        public var description: String { "\(check): \(detail)" }
    }

    /// Runs every check and returns the failures (empty when the recognizer conforms).
    /// - Parameters:
    ///   - page: an image with readable text spread over its height.
    ///   - expectedWords: words on the page; at least `minimumWordRecall` of them must be read.
    public static func check(
        _ recognizer: some TextRecognizer, page: PixelBuffer<UInt8>, expectedWords: Set<String>, minimumWordRecall: Double = 0.8
    ) async -> [Failure] {
        var failures: [Failure] = []
        func fail(_ check: String, _ detail: String) { failures.append(Failure(check: check, detail: detail)) }
        let size = page.size

        // 1. Defaults: geometry, confidences, ordering.
        let all: [RecognizedTextObservation]
        do {
            all = try await recognizer.recognize(page, options: RecognitionOptions())
        } catch {
            return [Failure(check: "default options", detail: "recognition threw \(error)")]
        }
        if all.isEmpty { fail("default options", "no line was recognized") }
        for (index, line) in all.enumerated() {
            checkGeometry(line, index: index, size: size, fail: fail)
        }
        let read = Set(all.flatMap { $0.words.map { normalize($0.text.string) } })
        let found = expectedWords.map(normalize).filter { read.contains($0) }.count
        let recall = expectedWords.isEmpty ? 1 : Double(found) / Double(expectedWords.count)
        if recall < minimumWordRecall { fail("word recall", "\(found) of \(expectedWords.count) expected words read (\(recall))") }

        // 2. Invalid options are refused with .invalidOption.
        var invalid = RecognitionOptions()
        invalid.regionOfInterest = NormalizedRect(x: 0.5, y: 0.5, width: 0.8, height: 0.8)
        do {
            _ = try await recognizer.recognize(page, options: invalid)
            fail("invalid region", "a region outside 0…1 was accepted")
        } catch let error as RecognitionError where error.kind == .invalidOption {
        } catch {
            fail("invalid region", "threw \(error) instead of recognize.invalidOption")
        }

        // 3. A region of interest keeps results inside it, in whole-image coordinates.
        var top = RecognitionOptions()
        top.regionOfInterest = NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5)
        do {
            let inside = try await recognizer.recognize(page, options: top)
            for line in inside where !top.regionOfInterest.contains(line.boundingBox, tolerance: 0.02) {
                fail("region of interest", "line \"\(line.text)\" at \(line.boundingBox) lies outside the top half")
            }
            if inside.count > all.count { fail("region of interest", "more lines in the top half than on the page") }
        } catch let error as RecognitionError where error.kind == .unsupportedOption {
        } catch {
            fail("region of interest", "threw \(error)")
        }

        // 4. Minimum text height drops short lines.
        var tall = RecognitionOptions()
        tall.minimumTextHeightFraction = 0.5
        do {
            let lines = try await recognizer.recognize(page, options: tall)
            for line in lines where Double(line.pixelBox.height) < 0.5 * Double(size.height) {
                fail("minimum text height", "line \"\(line.text)\" is \(line.pixelBox.height) px tall, under half the image")
            }
        } catch let error as RecognitionError where error.kind == .unsupportedOption {
        } catch {
            fail("minimum text height", "threw \(error)")
        }

        // 5. Every other option works or is refused with .unsupportedOption, never another error.
        var variants: [(String, RecognitionOptions)] = []
        var fast = RecognitionOptions()
        fast.recognitionLevel = .fast
        variants.append(("recognitionLevel", fast))
        var uncorrected = RecognitionOptions()
        uncorrected.usesLanguageCorrection = false
        variants.append(("usesLanguageCorrection", uncorrected))
        var custom = RecognitionOptions()
        custom.customWords = ["imgquality"]
        variants.append(("customWords", custom))
        for (name, options) in variants {
            do {
                let lines = try await recognizer.recognize(page, options: options)
                for (index, line) in lines.enumerated() { checkGeometry(line, index: index, size: size, fail: fail) }
            } catch let error as RecognitionError where error.kind == .unsupportedOption {
            } catch {
                fail(name, "threw \(error) instead of working or recognize.unsupportedOption")
            }
        }

        // 6. Concurrent calls give the same answer.
        async let first = try? recognizer.recognize(page, options: RecognitionOptions())
        async let second = try? recognizer.recognize(page, options: RecognitionOptions())
        let (a, b) = await (first, second)
        if a?.map(\.text) != b?.map(\.text) { fail("concurrency", "two concurrent recognitions disagree") }
        return failures
    }

    static func checkGeometry(_ line: RecognizedTextObservation, index: Int, size: ImageSize, fail: (String, String) -> Void) {
        if !line.boundingBox.isValid { fail("geometry", "line \(index) boundingBox \(line.boundingBox) is outside 0…1") }
        let box = line.pixelBox
        if box.x < 0 || box.y < 0 || box.x + box.width > size.width || box.y + box.height > size.height {
            fail("geometry", "line \(index) pixelBox \(box) is outside the \(size) image")
        }
        if line.candidates.isEmpty { fail("candidates", "line \(index) has no candidate") }
        if line.candidates.contains(where: { !(0...1).contains($0.confidence) }) { fail("candidates", "line \(index) has a confidence outside 0…1") }
        if zip(line.candidates, line.candidates.dropFirst()).contains(where: { $0.confidence < $1.confidence }) {
            fail("candidates", "line \(index) candidates are not best first")
        }
        if line.topCandidates(1).count > 1 { fail("candidates", "topCandidates(1) returned more than one") }
        for word in line.words {
            let w = word.pixelBox
            if w.x < box.x - 2 || w.y < box.y - 2 || w.x + w.width > box.x + box.width + 2 || w.y + w.height > box.y + box.height + 2 {
                fail("geometry", "word \"\(word.text.string)\" \(w) lies outside its line \(box)")
            }
        }
    }

    /// Lower-cased, without surrounding punctuation.
    static func normalize(_ word: String) -> String {
        word.lowercased().trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
    }
}

import Foundation
