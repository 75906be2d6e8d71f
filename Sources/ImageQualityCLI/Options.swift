import ArgumentParser
import Foundation
import ImageCodecs
import ImagingCore
import QualityReports

/// Where inputs come from and how they are processed: shared by every subcommand that reads images.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "Image files, directories (recursed, sorted), or - to read paths from standard input.",
        valueName: "input"))
    var inputs: [String] = []

    @Flag(name: [.customShort("0"), .long], help: "Paths on standard input are NUL-separated (as find -print0 writes).")
    var null = false

    @Flag(name: .long, help: "When walking directories, take every file, not only image extensions.")
    var allFiles = false

    @Option(name: [.customShort("j", allowingJoined: true), .customLong("jobs")], parsing: .unconditional, help: ArgumentHelp("Images processed in parallel (default: all cores).", valueName: "n"))
    var jobCount: Int?

    /// `--jobs`, or one per core.
    var jobs: Int { jobCount ?? ProcessInfo.processInfo.activeProcessorCount }

    mutating func validate() throws {
        if let jobCount, jobCount < 1 { throw ValidationError("--jobs must be at least 1, got \(jobCount).") }
    }

    /// Checked when the command runs rather than in `validate()`, so that an unknown option
    /// is reported as such instead of as a missing input.
    func requireInputs() throws {
        guard !inputs.isEmpty else {
            throw ValidationError("Give at least one input: a file, a directory, or - for paths on standard input.")
        }
    }
}

/// Decoding limits and choices.
struct DecodeFlags: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Refuse images declaring more pixels than this (width × height), before allocating.",
        valueName: "pixels"))
    var maxPixels: Int = DecodeLimits.defaultMaxPixels

    @Option(name: .long, help: ArgumentHelp(
        "Refuse files larger than this many bytes (suffixes K, M, G allowed).", valueName: "size"))
    var maxFileSize: ByteCount = ByteCount(DecodeLimits.defaultMaxFileBytes)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Fail an image whose reading and decoding takes longer than this many seconds (0: no limit).",
        valueName: "seconds"))
    var timeLimit: Double = Double(DecodeLimits.defaultTimeLimit.components.seconds)

    @Option(name: .long, help: ArgumentHelp(
        "Pages of a multi-page file (TIFF) to read, one record each: all, or pages and ranges such as 1-3,7 or 2- (default: all; ocr reads the first selected).",
        valueName: "pages"))
    var pages: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The same as --pages N: one page, from 1.", valueName: "n"))
    var page: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Read at most this many pages of one file; one record says the rest were not read.", valueName: "n"))
    var maxPages: Int = DecodeLimits.defaultMaxPages

    @Flag(name: .long, help: "Fail an image whose data is truncated or corrupt even when the decoder can fill in the rest.")
    var strict = false

    mutating func validate() throws {
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be positive, got \(maxPixels).") }
        guard maxPages >= 1 else { throw ValidationError("--max-pages must be positive, got \(maxPages).") }
        if let page {
            guard page >= 1 else { throw ValidationError("--page counts from 1, got \(page).") }
            guard pages == nil else { throw ValidationError("--page and --pages both name pages; give one.") }
        }
        if let pages {
            var problem = ""
            guard PageSelection(parsing: pages, problem: &problem) != nil else { throw ValidationError("--pages: \(problem).") }
        }
        guard timeLimit >= 0, timeLimit.isFinite else {
            throw ValidationError("--time-limit is a number of seconds, 0 or more, got \(timeLimit).")
        }
    }

    var decodeOptions: DecodeOptions {
        DecodeOptions(
            limits: DecodeLimits(
                maxPixels: maxPixels, maxFileBytes: maxFileSize.bytes,
                timeLimit: timeLimit > 0 ? .nanoseconds(Int64(min(timeLimit, 1e9) * 1e9)) : nil, maxPages: maxPages),
            pageIndex: pageSelection.first - 1, isStrict: strict)
    }

    /// The pages asked for: `--pages`, `--page`, or all.
    var pageSelection: PageSelection {
        var problem = ""
        return pages.flatMap { PageSelection(parsing: $0, problem: &problem) } ?? page.map(PageSelection.page) ?? .all
    }
}

/// How results are printed.
struct OutputFlags: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Record format: jsonl, csv, tsv or table (default: table on a terminal, jsonl otherwise).",
        valueName: "format"))
    var format: OutputFormat?

    @Flag(inversion: .prefixedNo, help: "Show a progress bar on standard error (default: when it is a terminal).")
    var progress: Bool?

    @Flag(name: [.short, .long], help: "Do not print the summary (counts by decision and reason, time taken) on standard error at the end.")
    var quiet = false

    @Option(name: .long, help: ArgumentHelp(
        "Also write a contact sheet of the batch to this directory: index.html (counts, histograms, thumbnails rejected and worst first, each with its reasons; filterable by reason, no network needed) and its thumbnails.",
        valueName: "dir"))
    var report: String?

    /// The contact sheet `--report` asks for, its directory checked before any scoring.
    func contactSheet() throws -> ContactSheet? {
        guard let report else { return nil }
        do {
            return try ContactSheet(directory: report)
        } catch {
            throw ValidationError("--report: \(error)")
        }
    }

    var resolvedFormat: OutputFormat { format ?? (Terminal.standardOutputIsTerminal ? .table : .jsonl) }
    var showsProgress: Bool { progress ?? Terminal.standardErrorIsTerminal }
}

extension OutputFormat: ExpressibleByArgument {}

/// A byte count given as a number with an optional K, M or G suffix (powers of 1024).
struct ByteCount: ExpressibleByArgument, Sendable {
    var bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.uppercased()
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var multiplier = 1
        if let last = digits.last, let m = multipliers[last] {
            multiplier = m
            digits = digits.dropLast()
        }
        guard let value = Int(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = product
    }

    var defaultValueDescription: String { "\(bytes >> 20)M" }
}

/// The non-empty lines of a text file given on the command line (custom words, API keys), each
/// without the spaces around it.
/// - Throws: `ValidationError` naming `what` the file holds when it cannot be read.
func linesOfFile(_ path: String, holding what: String) throws -> [String] {
    let text: String
    do {
        text = try FileAccess.readText(path)
    } catch {
        throw ValidationError("cannot read the \(what) file \(path): \(error.reason)")
    }
    return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}
