import Foundation
import QualityAssessment
import Testing
import _ImagingTestSupport

@Suite("imgquality as a process", .serialized)
struct ProcessTests {
    /// A folder mixing good, damaged and non-image files, with a known sorted order.
    func mixedFolder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        try folder.copy(fixture: "png/gray8.png", to: "a/01-gray.png")
        try folder.copy(fixture: "jpeg/large.jpg", to: "a/02-photo.jpg")
        try folder.copy(fixture: "png/truncated.png", to: "a/03-cut.png")
        try folder.copy(fixture: "tiff/orientation-6.tif", to: "b/04-turned.tif")
        try folder.copy(fixture: "other/not-an-image.txt", to: "c-text-named.jpg")
        try folder.write("d-empty.png", [])
        try folder.copy(fixture: "other/jpeg2000.jp2", to: "e-picture.jp2")
        try folder.copy(fixture: "other/not-an-image.txt", to: "notes.txt")
        try folder.copy(fixture: "png/gray8.png", to: ".hidden.png")
        return folder
    }

    @Test func mixedFolderInOrderWithSpecificErrors() throws {
        let folder = try mixedFolder()
        let run = try Binary.run(["score", "--jobs", "3", folder.path])
        #expect(run.status == 2)
        let records = run.records
        let names = records.map { ($0["path"] as! String).replacingOccurrences(of: folder.path + "/", with: "") }
        #expect(names == ["a/01-gray.png", "a/02-photo.jpg", "a/03-cut.png", "b/04-turned.tif", "c-text-named.jpg", "d-empty.png", "e-picture.jp2"])
        #expect(records[0]["format"] as? String == "png")
        #expect(records[0]["width"] as? Int == 37)
        #expect(records[1]["format"] as? String == "jpeg")
        #expect(records[1]["height"] as? Int == 192)
        #expect((records[1]["elapsedMs"] as? Double ?? -1) >= 0)
        #expect((records[2]["error"] as? [String: Any])?["code"] as? String == "decode.truncated")
        #expect(records[3]["format"] as? String == "tiff")
        #expect(records[3]["width"] as? Int == 23 && records[3]["height"] as? Int == 37)
        #expect((records[4]["error"] as? [String: Any])?["code"] as? String == "decode.notAnImage")
        #expect((records[5]["error"] as? [String: Any])?["code"] as? String == "input.empty")
        #expect((records[6]["error"] as? [String: Any])?["code"] as? String == "decode.unsupportedFormat")
        // No progress bar when stderr is not a terminal; the summary at the end.
        #expect(!run.stderr.contains("\r"), "\(run.stderr)")
        #expect(run.stderr.hasPrefix("7 images in ") && run.stderr.contains(" rejected, 4 failed\n"), "\(run.stderr)")
        #expect(run.stderr.contains("  failed:   1 decode.notAnImage, 1 decode.truncated, 1 decode.unsupportedFormat, 1 input.empty\n"), "\(run.stderr)")
        let quiet = try Binary.run(["score", "--quiet", folder.path])
        #expect(quiet.status == 2 && quiet.stderr.isEmpty && quiet.records.count == 7, "\(quiet.stderr)")
    }

    /// The models come from `IMGQUALITY_MODELS` when it names a folder holding them; a
    /// broken one stops every command at once with the loader's words and status 78.
    @Test func theModelFolderCanBeNamedAndABrokenOneIsSaid() throws {
        let folder = try TemporaryDirectory()
        for name in ["aesthetic", "blur", "compression", "exposure", "noise", "smudge", "text"] {
            try folder.write(name + ".json", Fixtures.bytesOfRepositoryFile("Sources/QualityMetrics/Models/\(name).json"))
        }
        let good = try Binary.run(["score", Fixtures.path("jpeg/large.jpg")], environment: ["IMGQUALITY_MODELS": folder.path])
        #expect(good.status == 0 && good.records.count == 1, "\(good.stderr)")
        try folder.write("smudge.json", Array(#"{"format":1,"detector":"smudge"}"#.utf8))
        let broken = try Binary.run(["score", "--help"], environment: ["IMGQUALITY_MODELS": folder.path])
        #expect(broken.status == 78)
        #expect(broken.stderr == "imgquality: \(folder.path)/smudge.json: the smudge model must have evidence models smudge, has none\n", "\(broken.stderr)")
    }

    /// The libraries of other formats and of recognition are opened when first needed, not at
    /// start (the dynamic loader's own trace, LD_DEBUG=files, written to a file because
    /// imgquality silences standard error while Tesseract loads, says which files it loads).
    @Test func librariesAreOpenedOnlyWhenAFileNeedsThem() throws {
        func loaded(_ arguments: [String]) throws -> Set<String> {
            let folder = try TemporaryDirectory()
            var environment = ProcessInfo.processInfo.environment
            environment["LD_DEBUG"] = "files"
            environment["LD_DEBUG_OUTPUT"] = folder.path + "/trace"
            let run = try Binary.run(arguments, environment: environment)
            #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
            var opened = ""
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                opened += try String(contentsOfFile: folder.path + "/" + name, encoding: .utf8)
            }
            // "file=libjxl.so.0.7 [0];  dynamically loaded by …", or the library's full path.
            let files = opened.split(separator: "\n").filter { $0.contains("file=") }.joined(separator: "\n")
            return Set(["libjxl", "libraw_r", "libzbar", "libheif", "libtesseract"].filter { files.contains("\($0).so") })
        }
        #expect(try loaded(["score", Fixtures.path("jpeg/large.jpg")]) == [])
        #expect(try loaded(["score", Fixtures.path("jxl/lossy-quadrants.jxl"), Fixtures.path("raw/mosaic.dng")]) == ["libjxl", "libraw_r"])
        #expect(try loaded(["score", Fixtures.path("heif/quadrants.heic")]) == ["libheif"])
        #expect(try loaded(["ocr", "--force", "--format", "document", Fixtures.path("document/qr.png")]) == ["libzbar", "libtesseract"])
    }

    @Test func allFilesTakesEveryExtension() throws {
        let folder = try mixedFolder()
        let run = try Binary.run(["score", "--all-files", folder.path])
        #expect(run.records.contains { ($0["path"] as? String)?.hasSuffix("notes.txt") == true })
        #expect(!run.records.contains { ($0["path"] as? String)?.hasSuffix(".hidden.png") == true })
    }

    @Test func exitsZeroWhenEveryInputScores() throws {
        let run = try Binary.run(["score", Fixtures.path("png/rgb8.png"), Fixtures.path("jpeg/gray.jpg"), Fixtures.path("tiff/gray16.tif")])
        #expect(run.status == 0)
        #expect(run.records.map { $0["format"] as? String } == ["png", "jpeg", "tiff"])
    }

    @Test func pathsFromStandardInput() throws {
        let paths = [Fixtures.path("tiff/gray8.tif"), Fixtures.path("no/such.png"), Fixtures.path("png/gray8.png")]
        let run = try Binary.run(["score", "-"], stdin: Array((paths.joined(separator: "\n") + "\n\n").utf8))
        #expect(run.status == 2)
        #expect(run.records.map { $0["path"] as? String } == paths)
        #expect((run.records[1]["error"] as? [String: Any])?["code"] as? String == "input.notFound")
    }

    @Test func pathsFromCRLFInputLoseTheCarriageReturn() throws {
        let paths = [Fixtures.path("tiff/gray8.tif"), Fixtures.path("png/gray8.png")]
        let run = try Binary.run(["score", "-"], stdin: Array(paths.map { $0 + "\r\n" }.joined().utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.records.map { $0["path"] as? String } == paths)
    }

    @Test func aFileNameThatIsNotUTF8IsReadAndItsBytesKept() throws {
        let folder = try TemporaryDirectory()
        try folder.copy(fixture: "png/gray8.png", to: "plain.png")
        let name = "\"$(printf 'caf\\351.png')\""  // café.png in Latin-1
        let imgquality = "'\(Binary.path)'"
        // Named as an argument, met in a walk, read from standard input.
        let run = try Binary.shell(
            "cd '\(folder.path)' && cp plain.png \(name) && \(imgquality) score -q \(name) && \(imgquality) score -q . "
                + "&& printf 'caf\\351.png\\n' | \(imgquality) score -q -")
        #expect(run.status == 0, "\(run.stderr)")
        let latin1 = Array("caf".utf8) + [0xE9] + Array(".png".utf8)
        #expect(run.records.map { $0["path"] as? String } == ["caf\u{FFFD}.png", "./caf\u{FFFD}.png", "./plain.png", "caf\u{FFFD}.png"])
        #expect(run.records.map { $0["pathBytes"] as? String } == [
            Data(latin1).base64EncodedString(), Data(Array("./".utf8) + latin1).base64EncodedString(), nil,
            Data(latin1).base64EncodedString(),
        ])
        #expect(run.records.allSatisfy { $0["error"] == nil && $0["format"] as? String == "png" })

        // --print-rejected (the fixture is too small to pass) gives the name's own bytes back, for xargs.
        let rejected = try Binary.shell("cd '\(folder.path)' && \(imgquality) gate -q --print-rejected -0 . | od -An -v -tx1 | tr -d ' \\n'")
        // A report directory so named is written where it is named.
        let sheet = try Binary.shell(
            "cd '\(folder.path)' && \(imgquality) score -q --report \"$(printf 'r\\351p')\" plain.png > /dev/null "
                + "&& test -f \"$(printf 'r\\351p')/index.html\" && ls")
        #expect(sheet.status == 0, "\(sheet.stderr)")
        #expect(sheet.stdout.split(separator: "\n").contains("r\u{FFFD}p"))
        #expect(rejected.stdout == (Array("./".utf8) + latin1 + [0] + Array("./plain.png".utf8) + [0]).map { String(format: "%02x", $0) }.joined())
    }

    @Test func everyInputIsAccountedFor() throws {
        // An empty directory is said on stderr; a link leading nowhere gets a record.
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/empty", withIntermediateDirectories: false)
        let empty = try Binary.run(["score", folder.path + "/empty"])
        #expect(empty.status == 0 && empty.stdout.isEmpty)
        #expect(empty.stderr.contains("empty: no files with an image extension found"), "\(empty.stderr)")
        try folder.copy(fixture: "png/gray8.png", to: "links/real.png")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/links/dangling.jpg", withDestinationPath: "/no/such/target.jpg")
        let links = try Binary.run(["score", "--format", "jsonl", folder.path + "/links"])
        #expect(links.status == 2)
        #expect(links.records.map { ($0["path"] as? String)?.split(separator: "/").last.map(String.init) } == ["dangling.jpg", "real.png"])
        #expect((links.records.first?["error"] as? [String: Any])?["code"] as? String == "input.notFound")
    }

    /// A directory that cannot be read gets a record, named or met during a walk. Root reads
    /// every directory, so as root the binary runs as `nobody` (setpriv),
    /// from a copy in the test's folder that `nobody` can reach.
    @Test func unreadableDirectoriesAreRecordedOrSaid() throws {
        let folder = try TemporaryDirectory()
        try folder.copy(fixture: "png/gray8.png", to: "walk/locked/inside.png")
        try folder.copy(fixture: "png/gray8.png", to: "walk/open.png")
        let locked = folder.path + "/walk/locked"
        let manager = FileManager.default
        var command = [Binary.path]
        if geteuid() == 0 {
            try manager.copyItem(atPath: Binary.path, toPath: folder.path + "/imgquality")
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", folder.path + "/imgquality"]
            for path in [folder.path, folder.path + "/walk"] { try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
        }
        try manager.setAttributes([.posixPermissions: 0], ofItemAtPath: locked)
        defer { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked) }
        func run(_ arguments: [String]) throws -> Run {
            try Binary.shell((command + arguments).map { "'\($0)'" }.joined(separator: " "))
        }
        #expect(try run(["--version"]).status == 0, "the test's folder must be reachable by nobody")

        let named = try run(["score", "--format", "jsonl", locked])
        #expect(named.status == 2)
        #expect(named.records.map { $0["path"] as? String } == [locked])
        #expect((named.records.first?["error"] as? [String: Any])?["code"] as? String == "input.unreadable")

        // Met in a walk, it is an input too: the batch does not lose its files unsaid.
        let walk = try run(["score", "--format", "jsonl", folder.path + "/walk"])
        #expect(walk.status == 2)
        #expect(walk.records.map { $0["path"] as? String } == [locked, folder.path + "/walk/open.png"], "\(walk.stdout)")
        #expect((walk.records.first?["error"] as? [String: Any])?["code"] as? String == "input.unreadable")
    }

    /// A file name's control characters (a terminal escape sequence) reach stderr as `?`.
    @Test func warningsShowControlCharactersAsQuestionMarks() throws {
        let folder = try TemporaryDirectory()
        try folder.copy(fixture: "png/gray8.png", to: "walk/open.png")
        let fifo = folder.path + "/walk/fifo\u{1B}]0;title\u{07}.jpg"
        #expect(mkfifo(fifo, 0o644) == 0)
        let run = try Binary.run(["score", "--format", "jsonl", folder.path + "/walk"])
        #expect(run.status == 0 && run.records.count == 1)
        #expect(run.stderr.contains("fifo?]0;title?.jpg: a FIFO, not a regular file") && !run.stderr.contains("\u{1B}"), "\(run.stderr)")
    }

    @Test func aClosedOutputEndsTheBatchEvenWithSIGPIPEIgnored() throws {
        // The shell ignores SIGPIPE, and imgquality inherits that; head closes the pipe after one line.
        let inputs = Array(repeating: Fixtures.path("png/gray8.png"), count: 400).joined(separator: " ")
        let run = try Binary.shell(
            "trap '' PIPE; '\(Binary.path)' score --format jsonl --jobs 1 \(inputs) | head -n 1 > /dev/null; echo ${PIPESTATUS[0]}")
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "141", "imgquality's status")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test func nulSeparatedPaths() throws {
        let folder = try TemporaryDirectory()
        let odd = try folder.copy(fixture: "png/gray8.png", to: "name with\nnewline.png")
        let plain = try folder.copy(fixture: "jpeg/gray.jpg", to: "plain.jpg")
        let run = try Binary.run(["score", "--null", "-"], stdin: Array((odd + "\0" + plain + "\0").utf8))
        #expect(run.status == 0)
        #expect(run.records.map { $0["path"] as? String } == [odd, plain])
    }

    @Test func argumentsAndStandardInputMix() throws {
        let run = try Binary.run(
            ["score", Fixtures.path("png/gray8.png"), "-", Fixtures.path("png/gray4.png")],
            stdin: Array(Fixtures.path("jpeg/gray.jpg").utf8))
        #expect(run.records.map { ($0["path"] as? String)?.split(separator: "/").last.map(String.init) } == ["gray8.png", "gray.jpg", "gray4.png"])
    }

    @Test func strictTurnsWarningsIntoFailures() throws {
        let lenient = try Binary.run(["score", Fixtures.path("jpeg/truncated.jpg")])
        #expect(lenient.status == 0)
        let warnings = lenient.records.first?["warnings"] as? [[String: Any]]
        #expect(warnings?.first?["code"] as? String == "decode.truncated")
        let strict = try Binary.run(["score", "--strict", Fixtures.path("jpeg/truncated.jpg")])
        #expect(strict.status == 2)
        #expect((strict.records.first?["error"] as? [String: Any])?["code"] as? String == "decode.truncated")
    }

    @Test func pageOption() throws {
        let run = try Binary.run(["score", "--page", "2", Fixtures.path("tiff/multipage.tif")])
        #expect(run.status == 0)
        #expect(run.records.count == 1 && run.records.first?["page"] as? Int == 2)
        #expect(run.records.first?["width"] as? Int == 20)
        #expect(run.records.first?["pages"] as? Int == 2)
    }

    /// Every page of a multi-page file by default, one record each, in page order, with the
    /// same path; a single-page file beside it keeps its one record without `page`.
    @Test func everyPageIsARecord() throws {
        let tiff = Fixtures.path("tiff/three-pages.tif"), png = Fixtures.path("png/gray8.png")
        let run = try Binary.run(["score", "--jobs", "2", "--format", "jsonl", tiff, png])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.records.map { $0["path"] as? String } == [tiff, tiff, tiff, png])
        #expect(run.records.map { $0["page"] as? Int } == [1, 2, 3, nil])
        #expect(run.records.map { $0["width"] as? Int } == [64, 40, 40, 37])
        #expect(run.records.map { $0["height"] as? Int } == [64, 48, 36, 23], "page 2 is turned by its own Orientation tag")
        #expect(run.records.prefix(3).allSatisfy { $0["pages"] as? Int == 3 })
        #expect(run.stderr.hasPrefix("4 images in "), "\(run.stderr)")

        let some = try Binary.run(["score", "--pages", "3,1-1", "--format", "jsonl", tiff])
        #expect(some.records.map { $0["page"] as? Int } == [1, 3])
        let tail = try Binary.run(["score", "--pages", "2-", "--format", "jsonl", tiff])
        #expect(tail.records.map { $0["page"] as? Int } == [2, 3])
        let past = try Binary.run(["score", "--pages", "2-9", "--format", "jsonl", tiff])
        #expect(past.records.map { $0["page"] as? Int } == [2, 3], "pages past the last are skipped")
        let none = try Binary.run(["score", "--pages", "5-7", "--format", "jsonl", tiff])
        #expect(none.status == 2 && none.records.count == 1)
        #expect((none.records.first?["error"] as? [String: Any])?["message"] as? String == "TIFF: page 5 requested, the file has 3")

        // The path once for xargs: it passes only when every page read passes.
        let passing = try Binary.run(["gate", "--print-passing", tiff])
        let rejected = try Binary.run(["gate", "--print-rejected", tiff])
        #expect(passing.stdout.isEmpty && rejected.stdout == tiff + "\n", "\(passing.stdout) \(rejected.stdout)")
        let later = try Binary.run(["gate", "--print-passing", "--pages", "2-3", tiff])
        #expect(later.stdout == tiff + "\n", "pages 2 and 3 pass; page 1, flat quadrants, is rejected")
    }

    /// A PDF's pages, rendered: three records, pages 1–3 in order; `--max-pages` stops a long
    /// one with a record saying so.
    @Test func aPDFsPagesAreRecords() throws {
        let pdf = Fixtures.path("pdf/three-pages.pdf")
        let run = try Binary.run(["score", "--format", "jsonl", pdf])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.records.map { $0["page"] as? Int } == [1, 2, 3] && run.records.allSatisfy { $0["format"] as? String == "pdf" })
        #expect(run.records.map { $0["width"] as? Int } == [64, 48, 40])
        let limited = try Binary.run(["score", "--format", "jsonl", "--max-pages", "2", pdf])
        #expect(limited.status == 2 && limited.records.map { $0["page"] as? Int } == [1, 2, 3])
        #expect((limited.records.last?["error"] as? [String: Any])?["code"] as? String == "decode.limitExceeded")
    }

    @Test func pageSelectionsThatAreNotOne() throws {
        let image = Fixtures.path("png/gray8.png")
        let cases: [([String], String)] = [
            (["score", "--pages", "0", image], "--pages: '0' is not a page number from 1 or a range such as 1-3 or 2-."),
            (["score", "--pages", "3-1", image], "--pages: '3-1' is not a range from a page to the same or a later one."),
            (["score", "--pages", "1,,2", image], "--pages: '' is not a page number from 1 or a range such as 1-3 or 2-."),
            (["score", "--page", "1", "--pages", "2", image], "--page and --pages both name pages; give one."),
            (["score", "--max-pages", "0", image], "--max-pages must be positive, got 0."),
        ]
        for (arguments, message) in cases {
            let run = try Binary.run(arguments)
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }

    @Test func limitsFromTheCommandLine() throws {
        let run = try Binary.run(["score", "--max-pixels", "100", "--max-file-size", "1K", Fixtures.path("png/gray8.png"), Fixtures.path("jpeg/large.jpg")])
        #expect(run.status == 2)
        let codes = run.records.map { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == ["decode.tooManyPixels", "input.tooLarge"])
    }

    @Test func aTimeLimitFailsTheSlowImageAndTheBatchGoesOn() throws {
        // 64 megapixels of PNG take libpng a fifth of a second or more to inflate; an 8-pixel PNG
        // takes well under a millisecond, so 50 ms leaves room on both sides for a busy machine or
        // a sanitizer build.
        let run = try Binary.run([
            "score", "--time-limit", "0.05", Fixtures.path("slow/zeros-8000.png"), Fixtures.path("png/gray8.png"),
        ])
        #expect(run.status == 2)
        let errors = run.records.map { $0["error"] as? [String: Any] }
        #expect(errors.count == 2)
        #expect(errors.first??["code"] as? String == "decode.timeLimit")
        #expect((errors.first??["message"] as? String)?.contains("time limit of 0.05 s (raise it with --time-limit)") == true)
        #expect(errors.last! == nil)
        #expect(try Binary.run(["score", "--time-limit", "-1", Fixtures.path("png/gray8.png")]).status == 64)
    }

    @Test func aFIFONamedWithNoWriterFailsAtTheTimeLimitAndTheBatchGoesOn() throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.path + "/fifo.jpg"
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try Binary.run(["score", "--format", "jsonl", "--time-limit", "0.2", fifo, Fixtures.path("png/gray8.png")])
        #expect(run.status == 2)
        #expect(run.records.map { $0["path"] as? String } == [fifo, Fixtures.path("png/gray8.png")], "\(run.stdout)")
        let error = run.records.first?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "decode.timeLimit")
        #expect((error?["message"] as? String)?.hasPrefix("reading the file: took longer than the time limit of 0.2 s") == true, "\(String(describing: error))")
        #expect(run.records.last?["error"] == nil)
    }

    /// A negative number given to a numeric option reaches that option's range check (the
    /// parser took `-1` for a flag and said the value was missing).
    @Test func negativeNumbersGetTheOptionsOwnMessage() throws {
        let image = Fixtures.path("png/gray8.png")
        let cases: [([String], String)] = [
            (["score", "--time-limit", "-1", image], "--time-limit is a number of seconds, 0 or more, got -1"),
            (["score", "--fail-under", "-0.5", image], "--fail-under takes a gate score from 0 to 1, got -0.5"),
            (["gate", "-j", "-2", image], "--jobs must be at least 1, got -2"),
            (["score", "--page", "-3", image], "--page counts from 1, got -3"),
            (["score", "--max-pixels", "-5", image], "--max-pixels must be positive, got -5"),
            (["calibrate", "labels.csv", "--detector", "blur", "--report", "r", "--target-accuracy", "-1"],
             "--target-accuracy must be between 0 and 1, got -1"),
            (["calibrate", "labels.csv", "--detector", "blur", "--report", "r", "--bootstrap", "-1"],
             "--bootstrap must not be negative"),
        ]
        for (arguments, message) in cases {
            let run = try Binary.run(arguments)
            #expect(run.status == 64 && run.stderr.contains(message) && !run.stderr.contains("Missing value"), "\(arguments): \(run.stderr)")
        }
    }

    /// `-j2` is `-j 2`, as make and xargs users write it; after `--` it is a file's name.
    @Test func anAttachedJobCountIsTheJobCount() throws {
        let image = Fixtures.path("png/gray8.png")
        let attached = try Binary.run(["score", "-j2", image, image])
        #expect(attached.status == 0 && attached.records.count == 2, "\(attached.stderr)")
        #expect(try Binary.run(["gate", "-j0", image]).stderr.contains("--jobs must be at least 1, got 0"))
        // A value of another option that looks so is not split: the message quotes it whole.
        #expect(try Binary.run(["score", "--time-limit", "-j2", image]).stderr.contains("The value '-j2' is invalid for '--time-limit"))
        let name = try Binary.run(["score", "--", "-j2"])
        #expect(name.status == 2 && (name.records.first?["path"] as? String) == "-j2", "\(name.stderr)")
    }

    /// The parser's own messages show a value that is not UTF-8 as people read it; help
    /// still goes to standard output.
    @Test func parserErrorsShowNamesAsTheyRead() throws {
        let run = try Binary.shell("'\(Binary.path)' score --format \"$(printf 'x\\377')\" a.png")
        #expect(run.status == 64 && run.stderr.contains("'x\u{FFFD}' is invalid for '--format"), "\(run.stderr)")
        let help = try Binary.run(["score", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: imgquality score") && help.stderr.isEmpty)
        #expect(try Binary.run(["score", "--nonsense"]).stderr.contains("Unknown option '--nonsense'"))
    }

    @Test func csvAndTSV() throws {
        let csv = try Binary.run(["score", "--format", "csv", Fixtures.path("png/gray8.png"), Fixtures.path("other/jpeg2000.jp2")])
        let lines = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first == "status,format,width,height,blur,smudge,exposure,aesthetic,text,noise,compression,gate,gateScore,elapsedMs,path,message")
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("ok,png,37,23,"))
        #expect(lines[2].hasPrefix("decode.unsupportedFormat,,,,,,,,,,,,"))
        let tsv = try Binary.run(["score", "--format", "tsv", Fixtures.path("png/gray8.png")])
        #expect(tsv.stdout.split(separator: "\n").first == "status\tformat\twidth\theight\tblur\tsmudge\texposure\taesthetic\ttext\tnoise\tcompression\tgate\tgateScore\telapsedMs\tpath\tmessage")
    }

    /// Files named by options (a policy, a profile, custom words, a scores file) are opened
    /// by their own bytes, as images are, and a missing one is said in plain words.
    @Test func optionFilesWithNamesThatAreNotUTF8() throws {
        let folder = try TemporaryDirectory()
        let latin1 = "'\(folder.path)/caf'$'\\351'"
        let imgquality = "'\(Binary.path)'"
        let image = "'\(Fixtures.path("png/gray8.png"))'"
        let policy = try Binary.shell(
            "printf '{\"minimumScore\": 0.25}' > \(latin1).json && \(imgquality) score --policy \(latin1).json --format jsonl \(image)")
        #expect(policy.status == 0 && policy.records.count == 1, "\(policy.stderr)")
        let words = try Binary.shell("printf 'imgquality\\n' > \(latin1).txt && \(imgquality) ocr --custom-words \(latin1).txt --format jsonl \(image)")
        #expect(words.status == 1 && words.records.count == 1, "\(words.stderr)")
        let missing = try Binary.run(["ocr", "--custom-words", folder.path + "/none.txt", Fixtures.path("png/gray8.png")])
        #expect(missing.status == 64 && missing.stderr.contains("cannot read the custom words file \(folder.path)/none.txt: no such file"), "\(missing.stderr)")
        let scores = try Binary.shell(
            "printf 'path,label\\na.png,1\\n' > \(latin1).csv && \(imgquality) calibrate \(latin1).csv --detector blur --report '\(folder.path)/r' --scores '\(folder.path)/none.jsonl'")
        #expect(scores.status == 64 && scores.stderr.contains("cannot read the scores file \(folder.path)/none.jsonl: no such file"), "\(scores.stderr)")
        // A scores file so named is read: its records reach the report.
        let found = try Binary.shell(
            "cp \(image) '\(folder.path)/b.png' && printf 'path,label\\na.png,1\\nb.png,0\\n' > \(latin1).csv && cp \(image) '\(folder.path)/a.png'"
                + " && \(imgquality) score '\(folder.path)/a.png' '\(folder.path)/b.png' > \(latin1).jsonl"
                + " && \(imgquality) calibrate \(latin1).csv --detector blur --report '\(folder.path)/r' --no-thumbnails --scores \(latin1).jsonl")
        #expect(!found.stderr.contains("cannot read the scores file") && !found.stdout.contains("not in"), "\(found.stderr) \(found.stdout)")
    }

    @Test func usageErrorsUseTheParsersCode() throws {
        #expect(try Binary.run(["score"]).status == 64)
        // An unknown option is named as such, and errors found while running show the subcommand's usage.
        let bogus = try Binary.run(["score", "--bogus"])
        #expect(bogus.status == 64 && bogus.stderr.contains("Unknown option '--bogus'"), "\(bogus.stderr)")
        let typo = try Binary.run(["gate", "--threshold", "blurr=0.2", "x.png"])
        #expect(typo.status == 64 && typo.stderr.contains("unknown threshold \"blurr\""), "\(typo.stderr)")
        let missing = try Binary.run(["score", "--policy", "/no/such/policy.json", "x.png"])
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("cannot read the policy /no/such/policy.json: no such file"), "\(missing.stderr)")
        #expect(missing.stderr.contains("Usage: imgquality score ") && !missing.stderr.contains("NSCocoaErrorDomain"), "\(missing.stderr)")
        #expect(try Binary.run(["score", "--jobs", "0", "x.png"]).status == 64)
        let format = try Binary.run(["score", "--format", "xml", "x.png"])
        #expect(format.status == 64)
        #expect(format.stderr.contains("xml"))
        #expect(try Binary.run(["score", "--page", "0", "x.png"]).status == 64)
        // A document judgement needs the text detector's measurements.
        let document = try Binary.run(["score", "--detectors", "blur", "--content", "document", "x.png"])
        #expect(document.status == 64 && document.stderr.contains("add text to --detectors"), "\(document.stderr)")
    }

    @Test func helpFitsEightyColumnsAndSaysEachDefaultOnce() throws {
        for command in ["score", "gate", "ocr", "calibrate"] {
            let help = try Binary.run([command, "--help"], environment: ["COLUMNS": "80", "PATH": "/usr/bin:/bin"])
            #expect(help.status == 0)
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines { #expect(line.count <= 80, "\(command): \(line)") }
            // One default per option: the parser's, never a second from the description.
            let text = help.stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
            for option in text.components(separatedBy: " --").dropFirst() {
                #expect(option.components(separatedBy: "(default").count <= 2, "\(command): --\(option)")
            }
        }
        let gate = try Binary.run(["gate", "--help"], environment: ["COLUMNS": "80"]).stdout
        #expect(gate.contains("textLegibility (text illegible): a document's legibility"), "\(gate)")
    }

    @Test func gateWritesAContactSheetAndChecksItsDirectoryFirst() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("taken", [1])
        let refused = try Binary.run(["gate", "--report", file, Fixtures.path("png/rgb8.png")])
        #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused.stderr)")
        #expect(refused.stderr.contains("is an existing file, not a directory") && refused.stderr.contains("Usage: imgquality gate"))
        let sheet = folder.path + "/sheet"
        let run = try Binary.run(["gate", "--report", sheet, "--quiet", Fixtures.path("jpeg/large.jpg"), Fixtures.path("png/truncated.png")])
        #expect(run.status == 2 && run.records.count == 2, "\(run.stderr)")
        let page = try String(contentsOfFile: sheet + "/index.html", encoding: .utf8)
        #expect(page.contains("large.jpg") && page.contains("decode.truncated"))
        let thumbnails = try FileManager.default.contentsOfDirectory(atPath: sheet + "/thumbnails").filter { $0.hasSuffix(".jpg") }
        #expect(thumbnails.count == 1, "\(thumbnails)")
    }

    @Test func keepBestPassesTheBestOfTheBatch() throws {
        let images = ["jpeg/large.jpg", "png/rgb8.png", "tiff/gray8.tif", "jpeg/gray.jpg"].map(Fixtures.path)
        let scored = try Binary.run(["score", "--quiet"] + images).records
        let scores = scored.map { ($0["gate"] as? [String: Any])?["score"] as? Double ?? -1 }
        let best = images[scores.indices.max { scores[$0] < scores[$1] }!]
        let kept = try Binary.run(["gate", "--keep-best", "25%", "--print-passing", "--quiet"] + images)
        #expect(kept.status == 1 && kept.stdout == best + "\n", "\(kept.stdout) from \(scores)")
    }

    @Test func gateExitCodesAndPathOutput() throws {
        let folder = try TemporaryDirectory()
        let lenient = try folder.write("lenient.json", Array(#"{"blur":1,"smudge":1,"exposure":1,"minimumLinePitch":0}"#.utf8))
        // Smudge confidence is a logistic, never 0: a threshold of 0 rejects every image.
        let strict = try folder.write("strict.json", Array(#"{"smudge":0}"#.utf8))
        // Both large enough to measure (the 37 × 23 fixtures are too small to judge).
        let images = [Fixtures.path("jpeg/large.jpg"), Fixtures.path("jpeg/gray.jpg")]

        let all = try Binary.run(["gate", "--policy", lenient] + images)
        #expect(all.status == 0)
        #expect(all.records.allSatisfy { ($0["gate"] as? [String: Any])?["pass"] as? Bool == true })

        let none = try Binary.run(["gate", "--policy", strict, "--print-rejected"] + images)
        #expect(none.status == 1)
        #expect(none.stdout == images.joined(separator: "\n") + "\n")
        let passing = try Binary.run(["gate", "--policy", strict, "--print-passing"] + images)
        #expect(passing.status == 1 && passing.stdout.isEmpty)

        let nul = try Binary.run(["gate", "--policy", strict, "--print-rejected", "--null", "-"], stdin: Array((images.joined(separator: "\0") + "\0").utf8))
        #expect(nul.stdout == images.joined(separator: "\0") + "\0")

        let broken = try Binary.run(["gate", "--policy", lenient, images[0], Fixtures.path("png/truncated.png")])
        #expect(broken.status == 2)

        let reasons = try Binary.run(["gate", "--policy", strict, images[0]])
        #expect((reasons.records.first?["gate"] as? [String: Any])?["reasons"] as? [String] == ["smudge"])
        #expect(try Binary.run(["gate", "--print-passing", "--print-rejected", images[0]]).status == 64)
        let formatted = try Binary.run(["gate", "--print-passing", "--format", "csv", images[0]])
        #expect(formatted.status == 64 && formatted.stdout.isEmpty && formatted.stderr.contains("--format csv has no effect"), "\(formatted.stderr)")
        #expect(try Binary.run(["gate", "--policy", folder.path + "/missing.json", images[0]]).status == 64)
    }

    /// Profiles calibrated one detector each combine, and policy files apply in turn: a second
    /// `--profile` or `--policy` does not silently replace the first.
    @Test func repeatedProfilesAndPoliciesApplyInTurn() throws {
        let folder = try TemporaryDirectory()
        func profile(_ name: String, detector: String) throws -> String {
            // The evidence mapped as is; a threshold of 0 fails every image (neither smudge's
            // nor exposure's confidence of this photo is 0).
            let calibration = #"{"measure":"evidence","mapping":{"midpoint":0,"slope":1,"logarithmic":false},"threshold":0,"target":""}"#
            let json = #"{"version":1,"created":"","command":"","dataset":"","detectors":{"\#(detector)":\#(calibration)}}"#
            return try folder.write(name, Array(json.utf8))
        }
        let smudge = try profile("smudge.json", detector: "smudge"), exposure = try profile("exposure.json", detector: "exposure")
        let image = Fixtures.path("jpeg/large.jpg")
        func reasons(_ arguments: [String]) throws -> [String]? {
            let run = try Binary.run(["score", "--quiet"] + arguments + [image])
            return (run.records.first?["gate"] as? [String: Any])?["reasons"] as? [String]
        }
        #expect(try reasons(["--profile", smudge]) == ["smudge"])
        #expect(try reasons(["--profile", smudge, "--profile", exposure]) == ["smudge", "exposure"])
        let strict = try folder.write("strict.json", Array(#"{"exposure":0}"#.utf8))
        let lenient = try folder.write("lenient.json", Array(#"{"exposure":1}"#.utf8))
        let smudgeOff = try folder.write("smudge-off.json", Array(#"{"smudge":1}"#.utf8))
        #expect(try reasons(["--policy", strict]) == ["exposure"])
        #expect(try reasons(["--policy", strict, "--policy", lenient]) == [])
        #expect(try reasons(["--profile", smudge, "--profile", exposure, "--policy", smudgeOff]) == ["exposure"])
    }

    @Test func detectorsLimitTheRecord() throws {
        let run = try Binary.run(["score", "--detectors", "blur,exposure", Fixtures.path("jpeg/large.jpg")])
        let record = try #require(run.records.first)
        #expect(record["blur"] != nil && record["exposure"] != nil)
        #expect(record["smudge"] == nil && record["aesthetic"] == nil && record["text"] == nil)
        #expect(record["gate"] != nil)
        let all = try #require(try Binary.run(["score", Fixtures.path("jpeg/large.jpg")]).records.first)
        for key in ["blur", "smudge", "exposure", "aesthetic", "text", "gate"] { #expect(all[key] != nil, "\(key)") }
        let confidence = (all["blur"] as? [String: Any])?["confidence"] as? Double ?? -1
        #expect(confidence >= 0 && confidence <= 1)
        let unknown = try Binary.run(["score", "--detectors", "blur,sharpness", "x.png"])
        #expect(unknown.status == 64 && unknown.stderr.contains(#"unknown detector "sharpness" (known: blur, smudge, exposure, aesthetic, text, noise, compression)"#), "\(unknown.stderr)")
        #expect(try Binary.run(["score", "--detectors", ",", "x.png"]).stderr.contains("no detector named"))
        let trailing = try #require(try Binary.run(["score", "--detectors", "blur,", Fixtures.path("jpeg/large.jpg")]).records.first)
        #expect(trailing["blur"] != nil && trailing["exposure"] == nil)
        #expect(try Binary.run(["score", "--help"]).stdout.contains("(default: all)"))
    }

    /// The bundled reading predictor weighs nothing the layout probe measures, so no probe
    /// runs unless asked (`--probe`, to record it for a fit); asked, it is recorded and the
    /// image model still predicts.
    @Test func theLayoutProbeRunsWhenAskedToRecordIt() throws {
        let page = OCRProcessTests.documents + "/page01_clean.png"
        let plain = try #require(try Binary.run(["score", "--format", "jsonl", page]).records.first?["gate"] as? [String: Any])
        #expect(plain["predictor"] as? String == "image" && plain["probe"] == nil)
        let probed = try #require(try Binary.run(["score", "--probe", "--format", "jsonl", page]).records.first?["gate"] as? [String: Any])
        let probe = try #require(probed["probe"] as? [String: Any])
        #expect(probe["probe"] as? String == "tesseract layout (eng)" && (probe["lines"] as? Int ?? 0) > 20)
        #expect(probed["predictor"] as? String == "image" && probed["score"] as? Double == plain["score"] as? Double)
        let both = try Binary.run(["score", "--probe", "--no-probe", page])
        #expect(both.status == 64 && both.stderr.contains("--probe and --no-probe cannot both be given."))
    }

    @Test func version() throws {
        let run = try Binary.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.21.0")
    }

    @Test func scoreOutputValidatesAgainstThePrintedSchema() throws {
        let schema = try Binary.run(["schema"])
        #expect(schema.status == 0)
        let validator = try SchemaValidator(schema: schema.stdout)
        let inputs = [
            Fixtures.path("jpeg/large.jpg"), Fixtures.path("tiff/multipage.tif"), Fixtures.path("jpeg/truncated.jpg"),
            Fixtures.path("png/truncated.png"), Fixtures.path("other/bmp.bmp"), Fixtures.path("gif/transparent.gif"),
            Fixtures.path("webp/orientation-6.webp"), Fixtures.path("heif/quadrants.avif"), "/no/such/file.png",
            Fixtures.path("pdf/rotated.pdf"), Fixtures.path("bmp/rle4.bmp"), Fixtures.path("jxl/orientation-6.jxl"),
            // Documents, one read well and one not: the prediction, the probe and a failure.
            OCRProcessTests.documents + "/page01_clean.png", OCRProcessTests.documents + "/page01_downscale-0.35.png",
        ]
        for arguments in [["score"], ["score", "--detectors", "text"], ["score", "--timings"], ["score", "--no-probe"], ["score", "--probe"], ["gate"]] {
            let run = try Binary.run(arguments + ["--format", "jsonl"] + inputs)
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == inputs.count + 1, "multipage.tif gives two records")
            for line in lines { #expect(validator.problems(line).isEmpty, "\(validator.problems(line))") }
        }
    }
}

@Suite("imgquality ocr", .serialized)
struct OCRProcessTests {
    static let documents = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets/documents/images").path

    /// libtesseract is opened when something is recognized, not when the process starts:
    /// `score` on a photo never loads it, `ocr` does (the loader's own log says what it opened).
    @Test func tesseractLoadsOnlyWhenSomethingIsRecognized() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        let score = try Binary.run(["score", "--format", "jsonl", Fixtures.path("jpeg/large.jpg")], environment: environment)
        #expect(score.status == 0 && score.records.count == 1)
        #expect(score.stderr.contains("libjpeg"), "the loader's log is there")
        #expect(!score.stderr.contains("libtesseract"))
        let ocr = try Binary.run(["ocr", "--format", "jsonl", Self.documents + "/page02_clean.png"], environment: environment)
        #expect(ocr.status == 0 && ocr.records.count == 1)
        #expect(ocr.stderr.contains("libtesseract.so"))
    }

    @Test func recognizesWhatPassesAndSaysWhyNot() throws {
        let clean = Self.documents + "/page02_clean.png"
        let blurred = Self.documents + "/page02_gaussian-2.5.jpg"
        // Without OpenMP settings in the environment: imgquality limits Tesseract's threads itself.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OMP_") }
        let run = try Binary.run(["ocr", "--format", "jsonl", clean, blurred, Fixtures.path("png/truncated.png")], environment: environment)
        #expect(run.status == 2, "\(run.stderr)")
        let records = run.records
        #expect(records.count == 3)
        let passed = try #require(records.first)
        #expect((passed["gate"] as? [String: Any])?["pass"] as? Bool == true)
        let text = try #require(passed["text"] as? String)
        let truth = try String(contentsOfFile: Self.documents + "/../text/page02.txt", encoding: .utf8)
        let truthWords = Set(truth.split(whereSeparator: \.isWhitespace).map(String.init))
        let readWords = Set(text.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(Double(readWords.intersection(truthWords).count) / Double(truthWords.count) > 0.9)
        let lines = try #require(passed["observations"] as? [[String: Any]])
        #expect(!lines.isEmpty && lines.first?["boundingBox"] != nil && lines.first?["pixelBox"] != nil)
        let rejected = records[1]
        #expect((rejected["gate"] as? [String: Any])?["pass"] as? Bool == false)
        #expect(rejected["text"] is NSNull && rejected["observations"] is NSNull)
        // Each step's time: recognition only where it ran.
        let timing = try #require(passed["timing"] as? [String: Any])
        #expect(Set(timing.keys) == ["decodeMs", "analysisMs", "recognitionMs"] && timing.values.allSatisfy { $0 is Double })
        #expect(Set(try #require(rejected["timing"] as? [String: Any]).keys) == ["decodeMs", "analysisMs"])
        #expect((records[2]["error"] as? [String: Any])?["code"] as? String == "decode.truncated")
        #expect(!run.stderr.contains("Estimating resolution"), "Tesseract diagnostics leak: \(run.stderr)")
    }

    /// The gcv format has the field shapes of Google Cloud Vision's `AnnotateImageResponse`.
    @Test func googleVisionResponseShapes() throws {
        let clean = Self.documents + "/page03_clean.png"
        let blurred = Self.documents + "/page02_gaussian-2.5.jpg"
        let run = try Binary.run(["ocr", "--format", "gcv", clean, blurred, Fixtures.path("png/truncated.png")])
        #expect(run.status == 2)
        let bodies = run.records
        #expect(bodies.count == 3)
        let first = try #require((bodies.first?["responses"] as? [[String: Any]])?.first)
        let annotations = try #require(first["textAnnotations"] as? [[String: Any]])
        #expect(annotations.count > 100)
        for annotation in annotations.prefix(20) {
            #expect(annotation["description"] is String)
            let vertices = try #require((annotation["boundingPoly"] as? [String: Any])?["vertices"] as? [[String: Any]])
            #expect(vertices.count == 4 && vertices.allSatisfy { $0["x"] is Int && $0["y"] is Int })
        }
        let full = try #require(first["fullTextAnnotation"] as? [String: Any])
        let text = try #require(full["text"] as? String)
        #expect(text == annotations.first?["description"] as? String)
        let page = try #require((full["pages"] as? [[String: Any]])?.first)
        #expect(page["width"] as? Int == 1240 && page["height"] as? Int == 1754)
        let blocks = try #require(page["blocks"] as? [[String: Any]])
        var wordCount = 0
        for block in blocks {
            #expect(block["blockType"] as? String == "TEXT" && block["boundingBox"] != nil)
            for paragraph in try #require(block["paragraphs"] as? [[String: Any]]) {
                for word in try #require(paragraph["words"] as? [[String: Any]]) {
                    let symbols = try #require(word["symbols"] as? [[String: Any]])
                    #expect(!symbols.isEmpty && symbols.allSatisfy { ($0["text"] as? String)?.count == 1 })
                    #expect((word["confidence"] as? Double).map { (0...1).contains($0) } == true)
                    wordCount += 1
                }
            }
        }
        #expect(wordCount == annotations.count - 1, "one textAnnotation per word after the whole text")
        let rejected = try #require((bodies[1]["responses"] as? [[String: Any]])?.first?["error"] as? [String: Any])
        // The reasons in words, as the text format gives them.
        #expect(rejected["code"] as? Int == 9)
        #expect((rejected["message"] as? String)?.contains(/^rejected by the quality gate: [a-z ]+: predicted accuracy 0\.\d+ < 0\.\d+/) == true, "\(rejected)")
        let failed = try #require((bodies[2]["responses"] as? [[String: Any]])?.first?["error"] as? [String: Any])
        #expect(failed["code"] as? Int == 3 && (failed["message"] as? String)?.hasPrefix("decode.truncated") == true)
    }

    /// A PDF is recognized page by page: a record (or text heading) per page, and with
    /// `--format gcv` one `files:annotate` body holding a response per page.
    @Test func aPDFIsRecognizedPageByPage() throws {
        let pdf = Fixtures.path("pdf/three-pages.pdf")
        let jsonl = try Binary.run(["ocr", "--force", "--format", "jsonl", pdf])
        #expect(jsonl.records.map { $0["page"] as? Int } == [1, 2, 3], "\(jsonl.stderr)")
        let text = try Binary.run(["ocr", "--format", "text", "--pages", "2-", pdf])
        #expect(text.stdout.hasPrefix("==> \(pdf) (page 2 of 3) <==\n") && text.stdout.contains("==> \(pdf) (page 3 of 3) <==\n"))
        #expect(!text.stdout.contains("page 1 of 3"))
        let gcv = try Binary.run(["ocr", "--force", "--format", "gcv", pdf])
        #expect(gcv.records.count == 1)
        let file = try #require((gcv.records.first?["responses"] as? [[String: Any]])?.first)
        #expect(file["totalPages"] as? Int == 3 && (file["inputConfig"] as? [String: Any])?["mimeType"] as? String == "application/pdf")
        let pages = try #require(file["responses"] as? [[String: Any]])
        #expect(pages.map { ($0["context"] as? [String: Any])?["pageNumber"] as? Int } == [1, 2, 3])
        let schema = try SchemaValidator(schema: String(contentsOfFile: Fixtures.repositoryPath("Tests/Schemas/google-vision-annotate-response.schema.json"), encoding: .utf8))
        #expect(schema.problems(gcv.stdout.trimmingCharacters(in: .newlines)).isEmpty)
    }

    @Test func forceRecognizesRejectedImagesAndExitCodes() throws {
        let blurred = Self.documents + "/page02_gaussian-2.5.jpg"
        let rejected = try Binary.run(["ocr", blurred])
        #expect(rejected.status == 1 && rejected.stdout.contains("[rejected: "))
        let forced = try Binary.run(["ocr", "--force", "--format", "jsonl", blurred])
        #expect(forced.status == 1)
        #expect(forced.records.first?["text"] is String)
        // As text, a rejected image recognized with --force still says it was rejected.
        let forcedText = try Binary.run(["ocr", "--force", blurred])
        #expect(forcedText.status == 1 && forcedText.stdout.contains("; recognized with --force]\n"))
        let language = try Binary.run(["ocr", "--languages", "x1", blurred])
        #expect(language.status == 64 && language.stderr.contains("--languages: "), "\(language.stderr)")
        let timings = try Binary.run(["ocr", "--timings", blurred])
        #expect(timings.status == 64 && timings.stderr.contains("\"timing\""))
    }

    /// A simulated phone photo of a sign-up sheet lying askew on a desk (`Datasets/structure`):
    /// Tesseract finds no line in the photo as it is; seen straight on, the page reads, and the
    /// words' boxes lie on the sheet in the photo.
    @Test func aPhotographedPageIsReadStraightOnUnlessAskedToReadItAsItIs() throws {
        let photo = Fixtures.repositoryPath("Datasets/structure/phone/s030-signup-0.jpg")
        let asIs = try Binary.run(["ocr", "--force", "--format", "jsonl", "--as-is", photo])
        let unread = try #require(asIs.records.first?["text"] as? String)
        #expect(unread.split(separator: " ").count < 10, "\(unread)")
        let read = try Binary.run(["ocr", "--force", "--format", "jsonl", photo])
        let record = try #require(read.records.first)
        let text = try #require(record["text"] as? String)
        #expect(text.contains("Memory Protection Keys provide a sign-up sheet") && text.contains("Please reply by 26/02/2027."), "\(text)")
        // The heading's words lie in the sheet's top third, which the photo shows at x 300–1500, y 150–600.
        let lines = try #require(record["observations"] as? [[String: Any]])
        let heading = try #require(lines.first { ($0["text"] as? String)?.hasPrefix("Memory") == true }?["pixelBox"] as? [String: Int])
        #expect(heading["x"]! > 300 && heading["x"]! + heading["width"]! < 1500 && heading["y"]! > 150 && heading["y"]! < 600, "\(heading)")
        let document = try Binary.run(["ocr", "--as-is", "--format", "document", photo])
        #expect(document.status == 64 && document.stderr.contains("--as-is reads text alone"), "\(document.stderr)")
    }

    /// The same photo, 10.6° askew: judged as it is, the gate predicts a poor reading for its
    /// skew and rejects it (`gate`, and `ocr --as-is`, which reads it as it is and reads under
    /// 10 words); `ocr` judges the page it will read, seen straight on, and passes it
    /// (`gate.preparedPage`) without being forced.
    @Test func ocrGatesAPhotographedPageAsItWillReadIt() throws {
        let photo = Fixtures.repositoryPath("Datasets/structure/phone/s030-signup-0.jpg")
        let gated = try Binary.run(["gate", "--format", "jsonl", photo])
        let photoGate = try #require(gated.records.first?["gate"] as? [String: Any])
        #expect(gated.status == 1 && photoGate["pass"] as? Bool == false && photoGate["preparedPage"] == nil)
        let failure = try #require((photoGate["failures"] as? [[String: Any]])?.first)
        #expect((failure["message"] as? String)?.hasPrefix("skewed or curved lines") == true, "\(failure)")
        let asIs = try Binary.run(["ocr", "--format", "jsonl", "--as-is", photo])
        let asIsGate = try #require(asIs.records.first?["gate"] as? [String: Any])
        #expect(asIs.status == 1 && NSDictionary(dictionary: asIsGate) == NSDictionary(dictionary: photoGate))
        let read = try Binary.run(["ocr", "--format", "jsonl", photo])
        let record = try #require(read.records.first)
        let gate = try #require(record["gate"] as? [String: Any])
        #expect(read.status == 0 && gate["pass"] as? Bool == true && gate["preparedPage"] as? Bool == true, "\(gate)")
        let predicted = try #require(gate["predictedAccuracy"] as? Double)
        #expect(predicted > (photoGate["predictedAccuracy"] as? Double ?? 1) + 0.5, "\(gate)")
        #expect((record["text"] as? String)?.contains("Please reply by 26/02/2027.") == true)
    }

    /// `ocr` reading paths from a pipe emits each record while the next path is awaited: the
    /// writer keeps stdin open until both records are out. The records are error records, so
    /// nothing is decoded or recognized. A liveness bound, not a timing: a working stream ends
    /// the wait at once, and only records held until stdin closes reach 300 s.
    @Test func ocrRecordsStreamWhileStdinStaysOpen() throws {
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.jsonl", verdict = folder.path + "/verdict"
        let script = """
            { printf '%s\\n%s\\n' /no/such/a.png /no/such/b.png
              for _ in $(seq 600); do
                [ "$(wc -l < '\(out)' 2>/dev/null)" -ge 2 ] 2>/dev/null && { echo streamed > '\(verdict)'; break; }
                sleep 0.5
              done
            } | '\(Binary.path)' ocr --jobs 2 --quiet --format jsonl - > '\(out)'
            """
        let run = try Binary.shell(script)
        #expect(run.status == 2, "\(run.stderr)")
        #expect((try? String(contentsOfFile: verdict, encoding: .utf8)) == "streamed\n")
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 2)
    }

    @Test func missingLanguageDataIsAUsageErrorFoundOnce() throws {
        // "zzz" passes as a Tesseract code, and no package brings data for it.
        let pages = [Self.documents + "/page02_clean.png", Self.documents + "/page03_clean.png"]
        let run = try Binary.run(["ocr", "--languages", "en,zzz"] + pages)
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr.components(separatedBy: "no Tesseract language data for zzz").count == 2, "said once: \(run.stderr)")
        #expect(run.stderr.contains("tesseract-ocr-zzz") && !run.stderr.contains("Error opening data file"), "\(run.stderr)")
    }

    @Test func theFastLevelReadsAPage() throws {
        let clean = Self.documents + "/page03_clean.png"
        let run = try Binary.run(["ocr", "--recognition-level", "fast", "--format", "jsonl", clean])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try #require(run.records.first?["text"] as? String)
        let truth = try String(contentsOfFile: Self.documents + "/../text/page03.txt", encoding: .utf8)
        let truthWords = Set(truth.split(whereSeparator: \.isWhitespace).map(String.init))
        let readWords = Set(text.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(Double(readWords.intersection(truthWords).count) / Double(truthWords.count) > 0.9)
        #expect(try Binary.run(["ocr", "--recognition-level", "fastest", clean]).status == 64)
    }
}
