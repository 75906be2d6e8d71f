import Foundation
import ImageCodecs
import ImagingCore
import QualityGating
import Testing
import _ImagingTestSupport

@Suite("imgquality calibrate", .serialized)
struct CalibrateTests {
    /// Twelve synthetic photos, sharp (label 0) and blurred (label 1), half train, half test.
    static func dataset() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        var csv = "path,label,split,kind\n"
        for i in 0..<12 {
            let blurred = i % 2 == 1
            let pixels = Scenes.softPhoto(width: 384, height: 288, softness: blurred ? 5 : 0.4, seed: UInt64(i / 2 + 1))
            let jpeg = try JPEGEncoder.encode(Scenes.plane(pixels, width: 384, height: 288), quality: 92)
            try folder.write("images/\(i).jpg", jpeg)
            csv += "images/\(i).jpg,\(blurred ? 1 : 0),\(i < 6 ? "train" : "test"),\(blurred ? "blurred" : "sharp")\n"
        }
        try folder.write("labels.csv", Array(csv.utf8))
        return folder
    }

    func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    @Test func writesAHeldOutReportAndAProfile() throws {
        let data = try Self.dataset()
        let report = data.path + "/report"
        let run = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", report, "--bootstrap", "200"])
        #expect(run.status == 0, "\(run.stderr)")
        for file in ["index.html", "report.md", "report.json", "profile.json", "command.txt"] {
            #expect(FileManager.default.fileExists(atPath: report + "/" + file), "\(file)")
        }
        let summary = try json(report + "/report.json")
        #expect(summary["auc"] as? Double == 1)
        #expect(summary["heldOut"] as? Bool == true)
        #expect(summary["testCount"] as? Int == 6 && summary["trainCount"] as? Int == 6)
        let profile = try QualityProfile.load(contentsOf: report + "/profile.json")
        let blur = try #require(profile.detectors["blur"])
        #expect(blur.measure == "evidence" && !blur.mapping.logarithmic && blur.mapping.slope > 0)
        #expect(profile.command.hasPrefix("imgquality calibrate"))
        let html = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        #expect(html.contains("<svg") && html.contains("ROC (test split)"))
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"), "the report must not reach the network")
        #expect(try String(contentsOfFile: report + "/command.txt", encoding: .utf8).hasPrefix("imgquality calibrate "))
    }

    @Test func theProfileChangesScoreOutput() throws {
        let data = try Self.dataset()
        let report = data.path + "/report"
        _ = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", report, "--bootstrap", "50"])
        let image = data.path + "/images/3.jpg"
        let plain = try #require(try Binary.run(["score", "--detectors", "blur", image]).records.first)
        let calibrated = try #require(try Binary.run(["score", "--detectors", "blur", "--profile", report + "/profile.json", image]).records.first)
        let before = (plain["blur"] as? [String: Any])?["confidence"] as? Double
        let after = (calibrated["blur"] as? [String: Any])?["confidence"] as? Double
        #expect(before != nil && after != nil && before != after, "\(String(describing: before)) vs \(String(describing: after))")
        // The edge width is a raw measurement: the profile does not change it.
        #expect((plain["blur"] as? [String: Any])?["edgeWidth"] as? Double == (calibrated["blur"] as? [String: Any])?["edgeWidth"] as? Double)
        #expect(try Binary.run(["score", "--profile", data.path + "/labels.csv", image]).status == 64)
    }

    /// Two files whose names differ only in Unicode form (é precomposed, and e with a
    /// combining accent) are two files: each sample takes its own record from `--scores`.
    @Test func scoresMatchPathsByTheirBytes() throws {
        let data = try Self.dataset()
        var csv = "path,label,split\n"
        for i in 0..<12 {
            // The sharp and the blurred photo of one scene get the two forms of one name.
            let name = "images/\(i / 2)-" + (i % 2 == 0 ? "\u{E9}" : "e\u{301}") + ".jpg"
            try FileManager.default.moveItem(atPath: data.path + "/images/\(i).jpg", toPath: data.path + "/" + name)
            csv += "\(name),\(i % 2),\(i < 6 ? "train" : "test")\n"
        }
        try data.write("labels.csv", Array(csv.utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path + "/images").count == 12)
        let scores = try Binary.run(["score", data.path + "/images"])
        #expect(scores.records.count == 12)
        try data.write("scores.jsonl", Array(scores.stdout.utf8))
        let run = try Binary.run([
            "calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/r", "--bootstrap", "20",
            "--scores", data.path + "/scores.jsonl", "--no-thumbnails",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // With one record standing for both forms, half the samples carried the other's blur.
        #expect(try json(data.path + "/r/report.json")["auc"] as? Double == 1, "\(run.stderr)")
    }

    /// An image that cannot be measured is left out, and the summary names it.
    @Test func theSummaryNamesAnImageLeftOut() throws {
        let data = try Self.dataset()
        let csv = try String(contentsOfFile: data.path + "/labels.csv", encoding: .utf8) + "images/missing.jpg,1,test,blurred\n"
        try data.write("labels.csv", Array(csv.utf8))
        let run = try Binary.run([
            "calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/r", "--bootstrap", "20", "--no-thumbnails",
        ])
        #expect(run.status == 0)
        #expect(run.stdout.contains("1 image could not be measured and is left out (the first, images/missing.jpg: input.notFound: no such file; all are listed in the report)"), "\(run.stdout)")
    }

    @Test func aScoresFileGivesTheSameFigures() throws {
        let data = try Self.dataset()
        let scores = try Binary.run(["score", data.path + "/images"])
        try data.write("scores.jsonl", Array(scores.stdout.utf8))
        let direct = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/a", "--bootstrap", "50"])
        let reused = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/b", "--bootstrap", "50", "--scores", data.path + "/scores.jsonl"])
        #expect(direct.status == 0 && reused.status == 0)
        let a = try json(data.path + "/a/report.json"), b = try json(data.path + "/b/report.json")
        #expect(a["auc"] as? Double == b["auc"] as? Double)
        // Records round measurements to 4 decimals, so the fits agree closely, not exactly.
        let midpointA = try #require((a["mapping"] as? [String: Any])?["midpoint"] as? Double)
        let midpointB = try #require((b["mapping"] as? [String: Any])?["midpoint"] as? Double)
        #expect(abs(midpointA - midpointB) < 1e-3 * abs(midpointA))
    }

    /// Labels that name images by absolute paths with `.` and `..` in them find the records
    /// `score` wrote for the same files under their plain names.
    @Test func absoluteLabelPathsFindTheirRecords() throws {
        let data = try Self.dataset()
        let csv = try String(contentsOfFile: data.path + "/labels.csv", encoding: .utf8)
            .replacingOccurrences(of: "\nimages/", with: "\n" + data.path + "/./images/../images/")
        try data.write("labels.csv", Array(csv.utf8))
        let scores = try Binary.run(["score", data.path + "/images"])
        try data.write("scores.jsonl", Array(scores.stdout.utf8))
        let run = try Binary.run([
            "calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/r", "--bootstrap", "20",
            "--scores", data.path + "/scores.jsonl", "--no-thumbnails",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("could not be measured"), "\(run.stdout)")
        #expect(try json(data.path + "/r/report.json")["auc"] as? Double == 1, "\(run.stdout)")
    }

    /// A row's path is opened as written: `link/..` goes where the system takes it (the
    /// link's target's parent), not where removing the two segments would.
    @Test func labelPathsThroughALinkAreOpenedAsWritten() throws {
        let data = try Self.dataset()
        try FileManager.default.createDirectory(atPath: data.path + "/sub/deeper", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: data.path + "/lnk", withDestinationPath: "sub/deeper")
        let csv = try String(contentsOfFile: data.path + "/labels.csv", encoding: .utf8)
            .replacingOccurrences(of: "\nimages/", with: "\n" + data.path + "/lnk/../../images/")
        try data.write("labels.csv", Array(csv.utf8))
        let run = try Binary.run([
            "calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/r", "--bootstrap", "20", "--no-thumbnails",
        ])
        #expect(run.status == 0 && !run.stdout.contains("could not be measured"), "\(run.stderr) \(run.stdout)")
    }

    @Test func clearErrors() throws {
        let folder = try TemporaryDirectory()
        try folder.copy(fixture: "jpeg/gray.jpg", to: "a.png")
        try folder.write("nolabel.csv", Array("path,kind\na.png,x\n".utf8))
        let missing = try Binary.run(["calibrate", folder.path + "/nolabel.csv", "--detector", "blur", "--report", folder.path + "/r"])
        #expect(missing.status == 64 && missing.stderr.contains("neither a \"label\" nor a \"score\" column"))
        try folder.write("oneclass.csv", Array("path,label\na.png,1\n".utf8))
        let oneClass = try Binary.run(["calibrate", folder.path + "/oneclass.csv", "--detector", "blur", "--report", folder.path + "/r"])
        #expect(oneClass.status == 2 && oneClass.stderr.contains("AUC is undefined"), "\(oneClass.stderr)")
        try folder.write("badlabel.csv", Array("path,label\na.png,2\n".utf8))
        let bad = try Binary.run(["calibrate", folder.path + "/badlabel.csv", "--detector", "blur", "--report", folder.path + "/r"])
        #expect(bad.status == 64 && bad.stderr.contains("line 2"))
        #expect(try Binary.run(["calibrate", folder.path + "/oneclass.csv", "--detector", "blur", "--report", "r", "--target-recall", "2"]).status == 64)
        #expect(try Binary.run(["calibrate", folder.path + "/oneclass.csv", "--detector", "sharpness", "--report", "r"]).status == 64)
    }

    /// A report path that is a file fails at validation, so before any image is scored: the
    /// message says what is wrong in plain words, with calibrate's usage, and the status is 64.
    @Test func aReportPathThatIsAFileIsAUsageError() throws {
        let data = try Self.dataset()
        let taken = try data.write("taken.html", Array("<p>mine</p>".utf8))
        let run = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", taken, "--bootstrap", "10"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("Error: \(taken) exists and is not a folder"), "\(run.stderr)")
        #expect(run.stderr.contains("Usage: imgquality calibrate <labels.csv>"), "the subcommand's usage, not the top level's")
        #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains("Code="))
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "<p>mine</p>")
        let inside = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", taken + "/report"])
        #expect(inside.status == 64 && inside.stderr.contains("\(taken) is a file, not a folder"), "\(inside.stderr)")
    }

    @Test func aMissingLabelsFileIsAPlainUsageError() throws {
        let folder = try TemporaryDirectory()
        let run = try Binary.run(["calibrate", folder.path + "/labels.csv", "--detector", "blur", "--report", folder.path + "/r"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("Error: cannot read the labels file \(folder.path)/labels.csv: no such file"), "\(run.stderr)")
        #expect(run.stderr.contains("Usage: imgquality calibrate <labels.csv>"))
        #expect(!run.stderr.contains("NSCocoaErrorDomain"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/r"), "nothing is created for a failed run")
    }

    /// A write that fails at the end (here a report file linked to /dev/full, which passes the
    /// check and then fills up) is said in plain words, with status 74 as for score's output.
    @Test func aReportWriteFailureAtTheEndExits74() throws {
        let data = try Self.dataset()
        try FileManager.default.createDirectory(atPath: data.path + "/report", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: data.path + "/report/index.html", withDestinationPath: "/dev/full")
        let run = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", data.path + "/report", "--bootstrap", "10"])
        #expect(run.status == 74)
        #expect(run.stderr == "imgquality calibrate: cannot write \(data.path)/report/index.html: no space left on the device\n", "\(run.stderr)")
        #expect(run.stdout.isEmpty, "no summary for a report that was not written")
    }

    /// The report opens in headless Chromium and its screenshot shows the ROC curve's blue.
    @Test func theReportRendersInChromium() throws {
        let data = try Self.dataset()
        let report = data.path + "/report"
        _ = try Binary.run(["calibrate", data.path + "/labels.csv", "--detector", "blur", "--report", report, "--bootstrap", "50"])
        let browser = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                   "chromium is installed by Scripts/bootstrap.sh")
        let screenshot = data.path + "/shot.png"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1200",
                             "--user-data-dir=\(data.path)/chromium-profile", "--screenshot=\(screenshot)", "file://\(report)/index.html"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let image = try ImageDecoder(options: DecodeOptions(wantsRGB: true)).decode(contentsOf: screenshot)
        guard case .uint8(let rgb)? = image.rgb else { Issue.record("no RGB screenshot"); return }
        // The ROC curve is drawn in #1f6fb2 = (31, 111, 178).
        var blue = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width where abs(Int(rgb[x, y, 0]) - 31) < 25 && abs(Int(rgb[x, y, 1]) - 111) < 25 && abs(Int(rgb[x, y, 2]) - 178) < 25 {
                blue += 1
            }
        }
        #expect(blue > 300, "\(blue) ROC-blue pixels in the screenshot")
    }
}
