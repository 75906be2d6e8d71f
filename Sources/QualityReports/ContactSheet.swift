import Foundation
import ImageCodecs
import ImageKernels
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics

/// A contact sheet of a batch: `DIR/index.html`, one self-contained page (inline CSS, SVG
/// and a few lines of JavaScript, nothing fetched from the network) with the batch's counts,
/// a histogram per detector with the policy's threshold, and a card per input, rejected
/// first and worst first, filterable by reason; thumbnails are JPEG files in
/// `DIR/thumbnails/`, referenced relatively.
///
/// Thumbnails are files rather than data URIs so that a batch of thousands keeps a page of
/// a few megabytes the browser parses at once and loads images as they scroll into view
/// (`loading="lazy"`), and so that the sheet holds no thumbnail in memory: each is written
/// when its input is added. The sheet keeps only a short summary per input (path, status,
/// reasons, a few numbers), since the order of the cards is known only at the end.
///
/// ```swift
/// var sheet = try ContactSheet(directory: "report")   // before any scoring
/// for each assessed input, in input order:
///     try sheet.add(assessment, thumbnail: ContactSheet.thumbnail(luma: luma, rgb: rgb))
/// try sheet.finish(policy: policy, command: "imgquality gate --report report scans/", elapsed: elapsed)
/// ```
package struct ContactSheet {
    /// A report directory that cannot be used, or a file in it that cannot be written.
    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// The report directory.
    package let directory: String
    /// Longest side of a thumbnail, in pixels: two cards' width on a high-density screen.
    package static let thumbnailLongSide = 256
    /// The thumbnails' folder inside the directory.
    package static let thumbnailFolder = "thumbnails"
    /// The first cards' thumbnails load with the page (so a screenshot or a printout shows
    /// them); later ones as they scroll into view.
    package static let eagerThumbnails = 48

    private var entries: [Entry] = []

    /// Prepares `directory` for a sheet before any scoring, so that a bad `--report` fails
    /// at once rather than after the batch: creates it (and its parents) when missing, and
    /// its thumbnails folder.
    /// - Throws: `ContactSheet.Failure` when the path is an existing file, or the directory
    ///   cannot be created or written into.
    package init(directory: String) throws {
        self.directory = directory
        if FileAccess.kind(of: directory) == .other {
            throw Failure(message: "The report directory \(directory) is an existing file, not a directory.")
        }
        do {
            try FileAccess.createDirectories(directory + "/" + Self.thumbnailFolder)
        } catch {
            throw Failure(message: "Cannot create the report directory \(directory): \(Self.creationProblem(directory, error)).")
        }
        // Existing folders may still refuse files (root ignores permission bits; a read-only
        // mount does not): write and remove a probe where the thumbnails go.
        let probe = directory + "/" + Self.thumbnailFolder + "/.imgquality-probe"
        do {
            try FileAccess.writeAll([], to: probe)
        } catch {
            throw Failure(message: "Cannot write into the report directory \(directory).")
        }
        try? FileAccess.remove(probe)
    }

    /// A thumbnail of the pixels the assessor analysed (`Assessor.AssessedPixels.luma` and
    /// `rgb`, in display orientation): area-resampled so its long side is at most
    /// `thumbnailLongSide`, JPEG-encoded at quality 80; colour when `rgb` is given, else grey.
    ///
    /// Pure and static, so workers call it beside the assessment.
    /// - Returns: the JPEG bytes, or nil for an empty buffer or when encoding fails.
    package static func thumbnail(luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>?) -> [UInt8]? {
        Thumbnail.jpeg(luma: luma, rgb: rgb, longSide: thumbnailLongSide)
    }

    /// Adds the next input's assessment, in input order, and writes its thumbnail (when
    /// there is one) to `thumbnails/<input number>.jpg`.
    /// - Throws: `ContactSheet.Failure` when the thumbnail cannot be written.
    package mutating func add(_ assessment: Assessment, thumbnail: [UInt8]?) throws {
        let index = entries.count
        var thumbnailName: String?
        if let thumbnail, assessment.image != nil {
            let name = Self.thumbnailFolder + "/" + String(format: "%06d.jpg", index)
            do {
                try FileAccess.writeAll(thumbnail, to: directory + "/" + name)
            } catch {
                throw Failure(message: "Cannot write the thumbnail \(directory)/\(name): \(error.reason).")
            }
            thumbnailName = name
        }
        entries.append(Entry(assessment, index: index, thumbnail: thumbnailName))
    }

    /// Writes `index.html` for the inputs added so far.
    /// - Parameters:
    ///   - policy: the gate's policy, whose thresholds the histograms mark and the header lists.
    ///   - command: the command line that made the batch, shown in the header.
    ///   - elapsed: the batch's wall time, shown in the header.
    /// - Throws: `ContactSheet.Failure` when the page cannot be written.
    package func finish(policy: QualityPolicy, command: String? = nil, elapsed: Duration? = nil) throws {
        let page = html(policy: policy, command: command, elapsed: elapsed, created: Date())
        let path = directory + "/index.html"
        do {
            try FileAccess.replace(path, with: Array(page.utf8))
        } catch {
            throw Failure(message: "Cannot write \(path): \(error.reason).")
        }
    }

    /// Removes the page of an earlier batch from the directory, for a sheet given up on: it
    /// would show this batch's thumbnails under the older batch's cards.
    package func abandon() {
        try? FileAccess.remove(directory + "/index.html")
    }

    /// Why `directory` could not be created: a file where a folder on its path should be,
    /// named (the error number alone does not say which), else the system's reason.
    private static func creationProblem(_ directory: String, _ error: FileAccess.Failure) -> String {
        let ancestor = FileAccess.nearestExistingAncestor(of: directory)
        return FileAccess.kind(of: ancestor) == .other ? "\(ancestor) is a file, not a directory" : error.reason
    }
}

// MARK: - What the sheet keeps per input

extension ContactSheet {
    package enum Status: String {
        case passed, rejected, failed
    }

    /// One input's card and histogram values: what the page needs, without pixels.
    package struct Entry {
        /// Position in input order.
        var index: Int
        var path: String
        var status: Status
        /// `gate.score`; nil for a failed input.
        var score: Double?
        var content: JudgedContent?
        var failures: [GateFailure] = []
        /// Format and size, with the exposure's direction and "utility shot" when they apply;
        /// or the error's code.
        var summary: String
        /// The error's or the warnings' messages.
        var note: String?
        var thumbnail: String?
        /// Each detector's confidence or score, and the text measures, for the card and the histograms.
        var values: [Measure: Double] = [:]

        init(_ assessment: Assessment, index: Int, thumbnail: String?) {
            self.index = index
            // A page of a file of several is a card of its own, named by its page.
            path = FileSystemPath.display(assessment.path) + (assessment.page.map { " (page \($0))" } ?? "")
            self.thumbnail = thumbnail
            switch assessment.outcome {
            case .failed(let error):
                status = .failed
                summary = error.code
                note = error.message
            case .assessed(let image):
                let decision = image.decision
                status = decision.pass ? .passed : .rejected
                score = decision.score
                content = decision.content
                failures = decision.failures
                summary = "\(image.format.rawValue) \(image.size.width)×\(image.size.height)"
                if !image.warnings.isEmpty { note = image.warnings.map(\.message).joined(separator: "; ") }
                let report = image.report
                values[.gateScore] = decision.score
                if let blur = report.blur { values[.blur] = blur.confidence }
                if let smudge = report.smudge { values[.smudge] = smudge.confidence }
                if let exposure = report.exposure {
                    values[.exposure] = exposure.confidence
                    if exposure.direction != .ok { summary += " · \(exposure.direction.rawValue)exposed" }
                }
                if let aesthetic = report.aesthetic {
                    values[.aesthetic] = aesthetic.score
                    if aesthetic.isUtility { summary += " · utility shot" }
                }
                if let text = report.text, decision.content == .document {
                    values[.legibility] = text.legibility
                    values[.textContrast] = text.contrast
                    if text.linePitch > 0 { values[.linePitch] = text.linePitch }
                }
            }
        }

        /// Cards run rejected, failed, passed; rejected and passed by ascending gate score
        /// (worst first), ties and failures in input order.
        static func cardOrder(_ a: Entry, _ b: Entry) -> Bool {
            func rank(_ status: Status) -> Int {
                switch status {
                case .rejected: 0
                case .failed: 1
                case .passed: 2
                }
            }
            if rank(a.status) != rank(b.status) { return rank(a.status) < rank(b.status) }
            let sa = a.score.map { $0.isNaN ? -1 : $0 } ?? 0, sb = b.score.map { $0.isNaN ? -1 : $0 } ?? 0
            if sa != sb { return sa < sb }
            return a.index < b.index
        }
    }

    /// The numbers a card shows and the histograms draw.
    package enum Measure: CaseIterable {
        case gateScore, blur, smudge, exposure, aesthetic, legibility, textContrast, linePitch

        /// The label on a card.
        var label: String {
            switch self {
            case .gateScore: "gate score"
            case .blur: "blur"
            case .smudge: "smudge"
            case .exposure: "exposure"
            case .aesthetic: "aesthetic"
            case .legibility: "legibility"
            case .textContrast: "contrast"
            case .linePitch: "line pitch"
            }
        }

        /// The gate criterion this number is judged by, if any.
        var reason: GateReason? {
            switch self {
            case .gateScore: .score
            case .blur: .blur
            case .smudge: .smudge
            case .exposure: .exposure
            case .aesthetic: nil
            case .legibility: .textLegibility
            case .textContrast: .textContrast
            case .linePitch: .textSize
            }
        }
    }
}

// MARK: - The page

extension ContactSheet {
    /// Colours of the three outcomes, shared by the cards, the counts and the histograms.
    package static let passColour = "#2e7d32"
    package static let rejectColour = "#c62828"
    package static let failColour = "#8a6d1d"

    /// The whole page.
    package func html(policy: QualityPolicy, command: String?, elapsed: Duration?, created: Date) -> String {
        let cards = entries.sorted(by: Entry.cardOrder)
        let passed = entries.count(where: { $0.status == .passed })
        let rejected = entries.count(where: { $0.status == .rejected })
        let failed = entries.count(where: { $0.status == .failed })
        var reasonCounts: [(GateReason, Int)] = []
        for reason in GateReason.allCases {
            let count = entries.count(where: { $0.failures.contains { $0.reason == reason } })
            if count > 0 { reasonCounts.append((reason, count)) }
        }

        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>imgquality contact sheet: \(entries.count) \(entries.count == 1 ? "input" : "inputs")</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <header>
            <h1>Contact sheet <span class="muted">· \(entries.count) \(entries.count == 1 ? "input" : "inputs")</span></h1>

            """
        var meta: [String] = []
        if let command { meta.append("Generated by <code>\(htmlEscaped(command))</code>") } else { meta.append("Generated by imgquality") }
        meta.append("on \(htmlEscaped(ISO8601DateFormatter().string(from: created)))")
        if let elapsed { meta.append("in \(String(format: "%.1f", elapsed.milliseconds / 1000)) s") }
        out += "<p class=\"meta\">\(meta.joined(separator: " ")). Do not edit by hand.</p>\n"
        out += "<p class=\"meta\">Policy: \(htmlEscaped(Self.describe(policy))).</p>\n"
        // Cards show paths without the folder every input shares; the header names it once.
        let prefix = Self.sharedFolder(entries.map(\.path))
        if !prefix.isEmpty { out += "<p class=\"meta\">Paths below are relative to <code>\(htmlEscaped(prefix))</code>.</p>\n" }
        out += "</header>\n"

        // Counts: each is also a filter link.
        out += "<section class=\"counts\">\n"
        out += Self.tile("passed", count: passed, of: entries.count, filter: "passed", colour: Self.passColour)
        out += Self.tile("rejected", count: rejected, of: entries.count, filter: "rejected", colour: Self.rejectColour)
        out += Self.tile("failed to read", count: failed, of: entries.count, filter: "failed", colour: Self.failColour)
        out += "<div class=\"reasons-box\"><h2>Rejected because</h2>\n"
        if reasonCounts.isEmpty { out += "<p class=\"muted\">No image was rejected.</p>\n" }
        let most = reasonCounts.map(\.1).max() ?? 1
        for (reason, count) in reasonCounts {
            let width = Double(count) / Double(most) * 100
            out += """
                <a class="reason-row" href="#reason=\(reason.rawValue)" data-filter="\(reason.rawValue)">\
                <span class="reason-name">\(htmlEscaped(Self.title(reason)))</span>\
                <span class="reason-bar"><span style="width:\(String(format: "%.1f", width))%"></span></span>\
                <span class="reason-count">\(count)</span></a>

                """
        }
        out += "<p class=\"muted small\">An image can fail several criteria.</p></div>\n</section>\n"

        // Histograms of the assessed inputs, stacked by outcome.
        out += "<section class=\"histograms\">\n"
        let assessed = entries.filter { $0.status != .failed }
        let documents = assessed.contains { $0.content == .document }
        var plots: [Histogram] = [
            Histogram(measure: .blur, title: "Blur confidence", range: 0...1, threshold: policy.blur, note: "threshold \(ReportNumber.short(policy.blur)), photos; 1 = blurred"),
            Histogram(measure: .smudge, title: "Smudge confidence", range: 0...1, threshold: policy.smudge, note: "threshold \(ReportNumber.short(policy.smudge)), photos; 1 = smudged"),
            Histogram(measure: .exposure, title: "Exposure confidence", range: 0...1, threshold: policy.exposure, note: "threshold \(ReportNumber.short(policy.exposure)), photos; 1 = badly exposed"),
            Histogram(measure: .aesthetic, title: "Aesthetic score", range: 0...1, threshold: nil, note: "no threshold; 1 = excellent"),
            Histogram(
                measure: .gateScore, title: "Gate score", range: 0...1, threshold: policy.minimumScore > 0 ? policy.minimumScore : nil,
                note: policy.minimumScore > 0 ? "threshold \(ReportNumber.short(policy.minimumScore)); 1 = ready" : "1 = ready for text recognition"),
        ]
        if documents {
            // Legibility has no upper bound: the last bin gathers everything from four times the minimum.
            let top = max(1, 4 * policy.minimumLegibility)
            plots.append(Histogram(
                measure: .legibility, title: "Text legibility", range: 0...top, threshold: policy.minimumLegibility,
                note: "threshold \(ReportNumber.short(policy.minimumLegibility)), documents; last bin ≥ \(ReportNumber.short(top))"))
        }
        for plot in plots where assessed.contains(where: { $0.values[plot.measure] != nil }) {
            out += plot.figure(assessed)
        }
        out += "</section>\n"

        // The filter bar.
        out += "<nav class=\"filters\" aria-label=\"Filter the cards\">\n"
        out += "<span class=\"muted\">Show</span>\n"
        out += Self.filterLink("all", label: "all", count: entries.count)
        out += Self.filterLink("passed", label: "passed", count: passed)
        out += Self.filterLink("rejected", label: "rejected", count: rejected)
        for (reason, count) in reasonCounts {
            out += Self.filterLink(reason.rawValue, label: reason.words, count: count)
        }
        out += Self.filterLink("failed", label: "failed", count: failed)
        out += "<span class=\"muted shown\"><span id=\"shown\">\(entries.count)</span> shown</span>\n</nav>\n"

        out += "<main class=\"grid\">\n"
        for (position, entry) in cards.enumerated() {
            out += Self.card(entry, eager: position < Self.eagerThumbnails, prefix: prefix)
        }
        out += "</main>\n"
        out += "<script>\(Self.script)</script>\n</body>\n</html>\n"
        return out
    }

    /// One input's card.
    package static func card(_ entry: Entry, eager: Bool, prefix: String) -> String {
        let reasons = entry.failures.map(\.reason.rawValue).joined(separator: " ")
        var out = "<article class=\"card \(entry.status.rawValue)\" data-status=\"\(entry.status.rawValue)\" data-reasons=\"\(htmlEscaped(reasons))\">\n"
        if let thumbnail = entry.thumbnail {
            out += "<div class=\"thumb\"><img src=\"\(htmlEscaped(thumbnail))\" alt=\"\"\(eager ? "" : " loading=\"lazy\"")></div>\n"
        } else if entry.status == .failed {
            out += "<div class=\"thumb none\"><span>could not be read</span></div>\n"
        } else {
            out += "<div class=\"thumb none\"><span>no thumbnail</span></div>\n"
        }
        out += "<div class=\"body\">\n<div class=\"head\"><span class=\"badge\">\(entry.status.rawValue)</span>"
        if let score = entry.score { out += "<span class=\"score\">score <b>\(String(format: "%.2f", score))</b></span>" }
        if let content = entry.content { out += "<span class=\"kind\">\(content.rawValue)</span>" }
        out += "</div>\n"
        out += "<p class=\"path\" title=\"\(htmlEscaped(entry.path))\">\(htmlEscaped(String(entry.path.dropFirst(prefix.count))))</p>\n"
        if !entry.failures.isEmpty {
            out += "<ul class=\"why\">" + entry.failures.map { "<li>\(htmlEscaped($0.message))</li>" }.joined() + "</ul>\n"
        }
        if entry.status == .failed, let note = entry.note {
            out += "<p class=\"error\"><code>\(htmlEscaped(entry.summary))</code> \(htmlEscaped(note))</p>\n"
        } else {
            var cells: [String] = []
            let failed = Set(entry.failures.map(\.reason))
            for measure in Measure.allCases where measure != .gateScore {
                guard let value = entry.values[measure] else { continue }
                let text = measure == .legibility || measure == .textContrast || measure == .linePitch
                    ? String(format: "%.1f", value) : String(format: "%.2f", value)
                let bad = measure.reason.map(failed.contains) ?? false
                cells.append("<div\(bad ? " class=\"bad\"" : "")><dt>\(measure.label)</dt><dd>\(htmlEscaped(text))</dd></div>")
            }
            out += "<dl class=\"values\">\(cells.joined())</dl>\n"
            out += "<p class=\"muted small\">\(htmlEscaped(entry.summary))</p>\n"
            if let note = entry.note { out += "<p class=\"warning small\">\(htmlEscaped(note))</p>\n" }
        }
        out += "</div>\n</article>\n"
        return out
    }

    /// A count at the top, which filters the cards when clicked.
    package static func tile(_ label: String, count: Int, of total: Int, filter: String, colour: String) -> String {
        let percent = total > 0 ? Double(count) / Double(total) * 100 : 0
        let share = total == 0 ? "–" : percent > 0 && percent < 1 ? String(format: "%.1f%%", percent) : String(format: "%.0f%%", percent)
        return """
            <a class="tile" href="#reason=\(filter)" data-filter="\(filter)" style="border-top-color:\(colour)">\
            <span class="tile-count" style="color:\(colour)">\(count)<span class="tile-share">\(share)</span></span>\
            <span class="tile-label">\(label)</span></a>

            """
    }

    package static func filterLink(_ filter: String, label: String, count: Int) -> String {
        "<a href=\"#reason=\(filter)\" data-filter=\"\(filter)\">\(htmlEscaped(label)) <span class=\"n\">\(count)</span></a>\n"
    }

    /// The longest folder (ending in `/`, longer than `/` alone) that holds every path; empty
    /// when there is none or only one input (whose card then shows its whole path).
    package static func sharedFolder(_ paths: [String]) -> String {
        guard paths.count > 1, var shared = paths.first.map({ Substring($0) }) else { return "" }
        for path in paths.dropFirst() {
            shared = shared.prefix(zip(shared, path).prefix { $0 == $1 }.count)
            if shared.isEmpty { return "" }
        }
        guard let slash = shared.lastIndex(of: "/") else { return "" }
        let folder = String(shared[...slash])
        return folder == "/" ? "" : folder
    }

    /// A reason for a heading: what it means in words, capitalised (`Text illegible`).
    package static func title(_ reason: GateReason) -> String {
        reason.words.prefix(1).uppercased() + reason.words.dropFirst()
    }

    /// The policy in words, as the gate applies it.
    package static func describe(_ policy: QualityPolicy) -> String {
        var parts = [
            "photos pass with blur ≤ \(ReportNumber.short(policy.blur)), smudge ≤ \(ReportNumber.short(policy.smudge)), exposure ≤ \(ReportNumber.short(policy.exposure))",
            "documents with legibility ≥ \(ReportNumber.short(policy.minimumLegibility)), text contrast ≥ \(ReportNumber.short(policy.minimumTextContrast)), line pitch ≥ \(ReportNumber.short(policy.minimumLinePitch)) px",
        ]
        if policy.minimumScore > 0 { parts.append("every image with gate score ≥ \(ReportNumber.short(policy.minimumScore))") }
        parts.append("content judged \(policy.content.rawValue)")
        return parts.joined(separator: "; ")
    }

}

// MARK: - Histograms

extension ContactSheet {
    /// A histogram of one measure over the assessed inputs, each bin's bar stacked rejected
    /// (bottom) over passed, with the policy's threshold as a dashed line.
    package struct Histogram {
        var measure: Measure
        var title: String
        /// Values outside the range count in its first or last bin.
        var range: ClosedRange<Double>
        var threshold: Double?
        var note: String
        var bins = 20

        /// The plot's figure, with its title and note.
        func figure(_ entries: [Entry]) -> String {
            var passed = [Int](repeating: 0, count: bins), rejected = passed
            for entry in entries {
                guard let value = entry.values[measure], !value.isNaN else { continue }
                let position = (value - range.lowerBound) / (range.upperBound - range.lowerBound)
                let bin = min(bins - 1, max(0, Int(position * Double(bins))))
                if entry.status == .passed { passed[bin] += 1 } else { rejected[bin] += 1 }
            }
            let tallest = max(1, zip(passed, rejected).map { $0 + $1 }.max() ?? 1)
            // Plot area inside a 300 × 150 box: 28 px left for counts, 22 px below for the axis.
            let (width, height, left, top, bottom) = (300.0, 150.0, 28.0, 10.0, 128.0)
            let right = width - 8
            let binWidth = (right - left) / Double(bins)
            func x(_ value: Double) -> Double {
                left + (value - range.lowerBound) / (range.upperBound - range.lowerBound) * (right - left)
            }
            func y(_ count: Int) -> Double { bottom - Double(count) / Double(tallest) * (bottom - top) }
            var svg = "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(htmlEscaped(title)) histogram\">\n"
            func n(_ value: Double) -> String { ReportNumber.fixed(value, 1) }
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(right))\" y2=\"\(n(top))\" class=\"gridline\"/>\n"
            svg += "<text x=\"\(n(left - 4))\" y=\"\(n(top + 4))\" text-anchor=\"end\">\(tallest)</text>\n"
            svg += "<text x=\"\(n(left - 4))\" y=\"\(n(bottom))\" text-anchor=\"end\">0</text>\n"
            for bin in 0..<bins {
                let x0 = left + Double(bin) * binWidth + 0.5, w = binWidth - 1
                if rejected[bin] > 0 {
                    svg += "<rect x=\"\(n(x0))\" y=\"\(n(y(rejected[bin])))\" width=\"\(n(w))\" height=\"\(n(bottom - y(rejected[bin])))\" fill=\"\(ContactSheet.rejectColour)\"/>\n"
                }
                if passed[bin] > 0 {
                    let base = y(rejected[bin]), topY = y(rejected[bin] + passed[bin])
                    svg += "<rect x=\"\(n(x0))\" y=\"\(n(topY))\" width=\"\(n(w))\" height=\"\(n(base - topY))\" fill=\"\(ContactSheet.passColour)\" fill-opacity=\"0.75\"/>\n"
                }
            }
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(bottom))\" x2=\"\(n(right))\" y2=\"\(n(bottom))\" class=\"axis\"/>\n"
            let middle = (range.lowerBound + range.upperBound) / 2
            for (value, anchor) in [(range.lowerBound, "start"), (middle, "middle"), (range.upperBound, "end")] {
                svg += "<text x=\"\(n(x(value)))\" y=\"\(n(bottom + 14))\" text-anchor=\"\(anchor)\">\(ReportNumber.short(value))</text>\n"
            }
            if let threshold, range.contains(threshold) {
                let tx = x(threshold)
                svg += "<line x1=\"\(n(tx))\" y1=\"\(n(top - 4))\" x2=\"\(n(tx))\" y2=\"\(n(bottom + 4))\" class=\"threshold\"/>\n"
                let anchor = tx > (left + right) / 2 ? "end" : "start"
                svg += "<text x=\"\(n(tx + (anchor == "end" ? -4 : 4)))\" y=\"\(n(top + 14))\" text-anchor=\"\(anchor)\" class=\"threshold-label\">\(ReportNumber.short(threshold))</text>\n"
            }
            svg += "</svg>"
            return """
                <figure class="plot"><figcaption><b>\(htmlEscaped(title))</b> \
                <span class="muted">\(htmlEscaped(note))</span></figcaption>
                \(svg)
                </figure>

                """
        }
    }
}

// MARK: - Style and script

extension ContactSheet {
    package static let style = """

        :root { --pass: \(passColour); --reject: \(rejectColour); --fail: \(failColour); --ink: #1d2330; --muted: #5f6878;
          --line: #dde1e7; --paper: #f5f6f8; }
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; padding: 28px 32px 48px; background: var(--paper); color: var(--ink);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        h1 { font-size: 24px; font-weight: 650; margin: 0 0 6px; }
        h2 { font-size: 13px; font-weight: 600; margin: 0 0 8px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
        code { font: 12px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #e9ecf0; padding: 1px 5px; border-radius: 4px; }
        a { color: inherit; text-decoration: none; }
        .muted { color: var(--muted); font-weight: normal; }
        .small { font-size: 12px; }
        .meta { margin: 2px 0; color: var(--muted); font-size: 13px; }
        header { margin-bottom: 20px; }
        .counts { display: grid; grid-template-columns: repeat(3, minmax(140px, 180px)) minmax(300px, 1fr); gap: 14px; margin-bottom: 18px; }
        .tile, .reasons-box, .plot { background: #fff; border: 1px solid var(--line); border-radius: 10px; }
        .tile { display: flex; flex-direction: column; justify-content: center; padding: 14px 18px; border-top: 5px solid; }
        .tile:hover, .reason-row:hover { background: #fafbfc; }
        .tile.active, .reason-row.active { background: #eef1f6; }
        .tile-count { font-size: 34px; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; }
        .tile-share { font-size: 14px; font-weight: 500; color: var(--muted); margin-left: 8px; }
        .tile-label { font-size: 14px; }
        .reasons-box { padding: 14px 18px; }
        .reason-row { display: grid; grid-template-columns: minmax(120px, 170px) 1fr 48px; align-items: center; gap: 10px; padding: 2px 4px; border-radius: 4px; }
        .reason-bar { height: 10px; background: #f0f1f4; border-radius: 5px; overflow: hidden; }
        .reason-bar span { display: block; height: 100%; background: var(--reject); }
        .reason-count { text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
        .histograms { display: grid; grid-template-columns: repeat(auto-fill, minmax(270px, 1fr)); gap: 14px; margin-bottom: 22px; }
        .plot { margin: 0; padding: 10px 12px 4px; }
        .plot figcaption { font-size: 13px; margin-bottom: 2px; }
        .plot figcaption .muted { font-size: 12px; }
        .plot svg { width: 100%; height: auto; display: block; }
        .plot svg text { font-size: 10px; fill: var(--muted); font-family: inherit; }
        .plot .axis { stroke: #9aa1ad; stroke-width: 1; }
        .plot .gridline { stroke: #eef0f3; stroke-width: 1; }
        .plot .threshold { stroke: var(--ink); stroke-width: 1.5; stroke-dasharray: 4 3; }
        .plot svg text.threshold-label { fill: var(--ink); font-weight: 600; }
        .filters { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; align-items: center; gap: 6px;
          padding: 10px 0; margin-bottom: 14px; background: var(--paper); border-bottom: 1px solid var(--line); }
        .filters a { padding: 4px 11px; border: 1px solid var(--line); border-radius: 999px; background: #fff; font-size: 13px; }
        .filters a .n { color: var(--muted); font-variant-numeric: tabular-nums; margin-left: 2px; }
        .filters a.active { background: var(--ink); border-color: var(--ink); color: #fff; }
        .filters a.active .n { color: #c9ced8; }
        .filters .shown { margin-left: auto; font-size: 13px; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 14px; }
        .card { background: #fff; border: 1px solid var(--line); border-top: 4px solid var(--muted); border-radius: 10px; overflow: hidden; display: flex; flex-direction: column; }
        .card.passed { border-top-color: var(--pass); }
        .card.rejected { border-top-color: var(--reject); }
        .card.failed { border-top-color: var(--fail); }
        .thumb { aspect-ratio: 4 / 3; background: #e8eaee; display: flex; align-items: center; justify-content: center; }
        .thumb img { width: 100%; height: 100%; object-fit: contain; display: block; }
        .thumb.none span { color: var(--muted); font-size: 12px; }
        .body { padding: 9px 12px 11px; }
        .head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 8px; margin-bottom: 4px; white-space: nowrap; }
        .badge { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; color: #fff; padding: 1px 7px; border-radius: 4px; background: var(--muted); }
        .passed .badge { background: var(--pass); }
        .rejected .badge { background: var(--reject); }
        .failed .badge { background: var(--fail); }
        .score { font-variant-numeric: tabular-nums; }
        .kind { margin-left: auto; color: var(--muted); font-size: 12px; }
        .path { margin: 0 0 6px; font: 12px/1.35 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; overflow-wrap: anywhere; }
        .why { margin: 0 0 6px; padding: 0; list-style: none; }
        .why li { color: var(--reject); font-weight: 600; font-size: 13px; }
        .why li::before { content: "✕ "; }
        .values { display: grid; grid-template-columns: repeat(2, 1fr); gap: 1px 12px; margin: 0 0 4px; font-size: 12px; }
        .values div { display: flex; justify-content: space-between; border-bottom: 1px dotted #e3e6eb; }
        .values dt { color: var(--muted); white-space: nowrap; }
        .values dd { margin: 0; font-variant-numeric: tabular-nums; }
        .values .bad dd, .values .bad dt { color: var(--reject); font-weight: 600; }
        .error { margin: 0; font-size: 13px; color: var(--fail); overflow-wrap: anywhere; }
        .warning { margin: 2px 0 0; color: var(--fail); }
        p.small { margin: 2px 0 0; }

        """

    /// The filter: `#reason=<filter>` in the address shows the cards whose status
    /// (`passed`, `rejected`, `failed`) or one of whose reasons is that filter; `all` or no
    /// hash shows every card. The links set the hash, so the filter also survives a reload
    /// and can be linked to.
    package static let script = """

        function applyFilter() {
          var match = /reason=([A-Za-z]+)/.exec(location.hash);
          var filter = match ? match[1] : "all";
          var shown = 0;
          document.querySelectorAll(".card").forEach(function (card) {
            var reasons = " " + card.getAttribute("data-reasons") + " ";
            var show = filter === "all" || card.getAttribute("data-status") === filter || reasons.indexOf(" " + filter + " ") >= 0;
            card.hidden = !show;
            if (show) shown += 1;
          });
          document.querySelectorAll("[data-filter]").forEach(function (link) {
            link.classList.toggle("active", link.getAttribute("data-filter") === filter);
          });
          document.getElementById("shown").textContent = shown;
        }
        window.addEventListener("hashchange", applyFilter);
        applyFilter();

        """
}
