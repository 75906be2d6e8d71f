import ArgumentParser
import PDFPages
private import _CImagingShims
import Foundation
import ImagingCore
import QualityMetrics

/// The `imgquality` command: its subcommands are thin shells over the libraries.
public struct IMGQuality: AsyncParsableCommand {
    public static let version = "0.21.0"

    public static let configuration = CommandConfiguration(
        commandName: "imgquality",
        abstract: "Tells, fast, whether images are good enough to use: decode once, score, gate.",
        discussion: """
            Inputs are files, directories (walked recursively, sorted) or - for paths on \
            standard input. Records come out one per input, in input order: a table on a \
            terminal, JSON Lines otherwise.
            """,
        version: version,
        subcommands: subcommands,
        defaultSubcommand: nil
    )

    /// `serve` is left out of a build without the server (Package.swift, `IMGQUALITY_SERVER=0`).
    private static var subcommands: [any ParsableCommand.Type] {
        #if canImport(VisionServer)
            [Score.self, Gate.self, Calibrate.self, OCR.self, Serve.self, Schema.self]
        #else
            [Score.self, Gate.self, Calibrate.self, OCR.self, Schema.self]
        #endif
    }

    public init() {}

    /// Makes Ctrl-C end a batch between records, never inside one (see
    /// `Terminal.endInterruptsBetweenRecords`). The entry point calls this on the main thread
    /// before anything else, so the thread that takes the signal exists for the whole run.
    public static func endInterruptsBetweenRecords() {
        Terminal.endInterruptsBetweenRecords()
    }

    /// The arguments after the program's name, each as `FileSystemPath` holds a path: a
    /// file name that is not UTF-8 stays the name of its file (`CommandLine.arguments`
    /// would show its bytes as U+FFFD, a name no file has).
    static var commandLineArguments: [String] {
        (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { FileSystemPath.string(cString: $0) }
        }
    }

    /// Exits as `exit(withError:)` does (help and other clean exits on standard output,
    /// errors on standard error, the error's exit code), with a name that is not UTF-8 shown
    /// as its UTF-8 decoding is, not as the scalars that stand for its bytes.
    static func exitShowingNames(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if !message.isEmpty { Terminal.write(message + "\n", to: code == .success ? STDOUT_FILENO : STDERR_FILENO) }
        Foundation.exit(code.rawValue)
    }

    /// Lets a batch reuse its large buffers: the C library keeps blocks up to 32 MiB in its
    /// heap, and up to 64 MiB of freed memory at the heap's top, rather than mapping each
    /// image's planes afresh and unmapping them after (the default once a block passes
    /// 128 KiB), so the pages are not faulted in and zeroed again for every image (`score`
    /// on 12 MP JPEGs: about 5% of its time, for about 1 MiB more peak memory). The entry
    /// point calls it before anything allocates.
    public static func reuseLargeAllocations() {
        _ = iq_keep_large_allocations(32 << 20, 64 << 20)
    }

    /// Registers the decoders the core libraries do not link: PDF pages through Poppler.
    public static func registerPlugInDecoders() {
        PDFPageRenderer.register()
    }

    /// Every command reads the detector models (their defaults are in the help too): an
    /// installation without them, or with a broken one, stops here with the loader's words and
    /// status 78 (EX_CONFIG), before anything else touches them. Call it on the main thread
    /// before `runFromCommandLine()`.
    public static func requireModels() {
        // The error is said, and freed, before the process ends: nothing of it outlives exit.
        if !modelsLoad() { Foundation.exit(78) }
    }

    /// Loads the bundled models; says why on standard error when they do not load.
    private static func modelsLoad() -> Bool {
        switch ModelSet.bundledLoad {
        case .success: return true
        case .failure(let error):
            Terminal.write("imgquality: \(error.message)\n", to: STDERR_FILENO)
            return false
        }
    }

    /// Parses the command line and runs the command, awaiting the asynchronous ones (`ocr`).
    ///
    /// The entry point calls this instead of `main()`: in top-level code the synchronous
    /// overloads of `main()` and `run()` are chosen, and they cannot run an async command.
    ///
    /// An error a subcommand throws while running is reported with that subcommand's usage,
    /// not the top level's.
    public static func runFromCommandLine() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(commandLineArguments)
        } catch {
            exitShowingNames(error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            let subcommand = type(of: command)
            Terminal.write(
                "Error: \(error.message)\nUsage: \(usageString(for: subcommand))\n"
                    + "  See 'imgquality \(subcommand._commandName) --help' for more information.\n",
                to: STDERR_FILENO)
            exit(withError: ExitCode.validationFailure)
        } catch {
            exitShowingNames(error)
        }
    }
}
