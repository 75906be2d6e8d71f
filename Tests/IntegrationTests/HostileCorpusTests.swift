import Foundation
import Testing
import _ImagingTestSupport

@Suite("Hostile corpus")
struct HostileCorpusTests {
    /// What each class of mutant gives (`scored` for a usable image). Deterministic: the
    /// mutants are seeded. A zero JPEG dimension is libjpeg's "empty image" (corrupt), a
    /// JPEG side over 65 500 its structural limit; a PNG header edited without its CRC is
    /// corrupt before its size is read; a TIFF chain that loops or points past the end is
    /// read up to the break. A WebP canvas edited to 1 × 1 or 2²⁴ × 2²⁴ no longer holds its
    /// frame (corrupt); a lossless image whose header is edited to 1 × 1 can still decode, and
    /// a wrong RIFF length is read past, as libwebp reads it. A HEIF cut inside its first
    /// box no longer names a brand (an unsupported ISO media file). A GIF cut after its first
    /// frame is read whole. A BMP cut inside its pixels keeps the rows it holds; an information
    /// header said to be 40 or 64 bytes long still reads, and a compression changed to one its depth
    /// allows (bit fields on a 16- or 32-bit BMP) still decodes. A JPEG XL cut after its first frame
    /// (in an animation, or before a container's trailing boxes) is read. A multi-page TIFF cut
    /// after its first page scores that page, its later pages truncated; a PDF cut anywhere
    /// loses its cross-reference table and page tree (Poppler finds no pages). A DNG, TIFF in
    /// structure, gets the TIFF mutants; LibRaw reads past a directory chain that loops.
    static let expectedOutcomes = """
        bmp/bits: decode.corrupt
        bmp/compression: decode.corrupt decode.unsupportedFeature scored
        bmp/cut: decode.truncated scored
        bmp/flip: decode.corrupt decode.notAnImage decode.tooManyPixels decode.truncated scored
        bmp/info: decode.corrupt decode.invalidDimensions decode.unsupportedFeature scored
        bmp/offset: decode.corrupt decode.truncated scored
        bmp/size-37x23: decode.invalidDimensions
        bmp/size0x23: decode.invalidDimensions
        bmp/size1x-2147483648: decode.invalidDimensions
        bmp/size2147483647x1: decode.tooManyPixels
        bmp/size37x0: decode.invalidDimensions
        bmp/size65536x65536: decode.tooManyPixels
        gif/cut: decode.corrupt decode.truncated scored
        gif/flip: decode.corrupt decode.notAnImage decode.truncated scored
        heif/cut: decode.corrupt decode.truncated decode.unsupportedFormat
        heif/flip: decode.corrupt decode.limitExceeded decode.notAnImage decode.truncated decode.unsupportedFormat scored
        jpeg/cut: decode.notAnImage decode.truncated scored
        jpeg/flip: decode.corrupt decode.notAnImage decode.truncated decode.unsupportedFeature scored
        jpeg/len-: decode.corrupt decode.truncated scored
        jpeg/scans: decode.limitExceeded
        jpeg/size0x64: decode.corrupt
        jpeg/size64x0: decode.corrupt
        jpeg/size65535x1: decode.limitExceeded
        jpeg/size65535x65535: decode.limitExceeded
        jxl/cut: decode.truncated scored
        jxl/flip: decode.corrupt decode.notAnImage decode.truncated scored
        pdf/cut: decode.corrupt
        pdf/flip: decode.corrupt decode.invalidDimensions decode.notAnImage scored
        png/cut: decode.corrupt decode.truncated scored
        png/flip: decode.corrupt decode.notAnImage decode.truncated scored
        png/len-: decode.corrupt decode.truncated scored
        png/size0x23: decode.corrupt
        png/size1x2147483647: decode.corrupt
        png/size2147483647x1: decode.corrupt
        png/size37x0: decode.corrupt
        png/size65536x65536: decode.corrupt
        raw/cut: decode.truncated
        raw/flip: decode.notAnImage decode.truncated decode.unsupportedFeature scored
        raw/ifd-loop: decode.truncated scored
        raw/ifd-past: decode.truncated scored
        raw/tag-: decode.truncated decode.unsupportedFeature scored
        tiff/cut: decode.truncated scored
        tiff/flip: decode.corrupt decode.notAnImage decode.tooManyPixels decode.truncated decode.unsupportedFeature scored
        tiff/ifd-loop: decode.truncated scored
        tiff/ifd-past: decode.truncated scored
        tiff/tag-: decode.corrupt decode.tooManyPixels decode.truncated decode.unsupportedFeature scored
        webp/canvas-huge: decode.corrupt
        webp/canvas-small: decode.corrupt
        webp/cut: decode.corrupt decode.notAnImage decode.truncated scored
        webp/flip: decode.corrupt decode.notAnImage decode.truncated scored
        webp/len-: decode.corrupt decode.truncated scored
        webp/size16384x2: decode.corrupt
        webp/size1x1: decode.corrupt scored
        """

    /// The mutants of every decodable fixture, written into a folder, and each one's class:
    /// the format and what was done to it, numbers left out ("png/len-").
    static func corpus() throws -> (folder: TemporaryDirectory, names: [String], classes: [String: String]) {
        let folder = try TemporaryDirectory()
        var names: [String] = []
        var classes: [String: String] = [:]
        for format in ["jpeg", "png", "tiff", "webp", "heif", "gif", "bmp", "jxl", "pdf", "raw"] {
            let fixtures = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(format)).sorted()
            for (index, fixture) in fixtures.enumerated() where !fixture.hasPrefix("huge") {
                let bytes = try Fixtures.bytes(format + "/" + fixture)
                let ext = (fixture as NSString).pathExtension
                for mutant in Mutants.of(bytes, seed: UInt64(index + 1)) {
                    let name = "\(format)/\((fixture as NSString).deletingPathExtension)-\(mutant.name).\(ext)"
                    try folder.write(name, mutant.bytes)
                    names.append(folder.path + "/" + name)
                    classes[folder.path + "/" + name] = format + "/" + (mutant.name.hasPrefix("size") ? mutant.name : mutant.name.filter { !$0.isNumber })
                }
            }
        }
        return (folder, names, classes)
    }

    /// Runs the binary with `arguments` for at most ten minutes (a hang is killed and fails the
    /// test) and returns its records and how it ended.
    static func records(_ arguments: [String]) throws -> (records: [[String: Any]], exited: Bool, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let records = data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
        return (records, process.terminationReason == .exit, process.terminationStatus)
    }

    /// The files the records are about, in order: a file of several pages gives a run of
    /// records, one per page, counted once.
    static func files(_ records: [[String: Any]]) -> [String] {
        var files: [String] = []
        for record in records {
            let path = record["path"] as? String ?? ""
            if path != files.last || record["page"] == nil || record["page"] as? Int == 1 { files.append(path) }
        }
        return files
    }

    @Test func thousandsOfMutantsGiveOneRecordEachInOrder() throws {
        let (folder, names, classes) = try Self.corpus()
        #expect(names.count > 3000, "\(names.count) mutants")
        let (records, exited, status) = try Self.records(["score", "--jobs", "2", "--quiet", "--format", "jsonl", folder.path])
        #expect(exited && status == 2, "no signal, some inputs failed")
        // The walk is in byte order of the paths, as `LC_ALL=C sort` sorts them; a file of
        // several pages (a TIFF or PDF whose page tree survived) gives a record per page, in a run.
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let files = Self.files(records)
        #expect(files.count == expected.count && records.count >= expected.count)
        #expect(files == expected)
        #expect(records.allSatisfy { ($0["page"] as? Int).map { $0 >= 1 } ?? true })
        // Per class of mutant, the outcomes it gave: an error code, or "scored".
        var outcomes: [String: Set<String>] = [:]
        for record in records {
            let mutantClass = classes[record["path"] as? String ?? ""] ?? "unknown"
            let code = (record["error"] as? [String: Any])?["code"] as? String ?? "scored"
            outcomes[mutantClass, default: []].insert(code)
        }
        let table = outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.sorted().joined(separator: " "))" }.joined(separator: "\n")
        #expect(table == Self.expectedOutcomes, "\n\(table)")
    }

    /// The same corpus read as documents (`ocr --format document --force`, so every image that
    /// decodes is recognized and structured): one record per file or page, in order, each an
    /// error or a page with its gate and document.
    @Test func theMutantsReadAsDocumentsGiveOneRecordEachInOrder() throws {
        let (folder, names, _) = try Self.corpus()
        let (records, exited, status) = try Self.records(["ocr", "--force", "--jobs", "2", "--quiet", "--format", "document", folder.path])
        #expect(exited && status == 2, "no signal, some inputs failed")
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(Self.files(records) == expected)
        let malformed = records.filter { record in
            record["error"] == nil && !(record["gate"] is [String: Any] && record["document"] is [String: Any])
        }
        #expect(malformed.isEmpty, "\(malformed.prefix(3))")
        #expect(records.contains { $0["error"] != nil } && records.contains { $0["document"] is [String: Any] })
    }
}
