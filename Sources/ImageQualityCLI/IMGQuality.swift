import ArgumentParser

/// The `imgquality` command: its subcommands are thin shells over the libraries.
public struct IMGQuality: AsyncParsableCommand {
    public static let version = "0.5.0"

    public static let configuration = CommandConfiguration(
        commandName: "imgquality",
        abstract: "Tells, fast, whether images are good enough to use: decode once, score, gate.",
        discussion: """
            Inputs are files, directories (walked recursively, sorted) or - for paths on
            standard input. Records come out one per input, in input order, as JSON Lines
            when standard output is not a terminal.
            """,
        version: version,
        subcommands: [Score.self, Gate.self, Calibrate.self, OCR.self, Schema.self],
        defaultSubcommand: nil
    )

    public init() {}

    /// Parses the command line and runs the command, awaiting the asynchronous ones (`ocr`).
    ///
    /// The entry point calls this instead of `main()`: in top-level code the synchronous
    /// overloads of `main()` and `run()` are chosen, and they cannot run an async command.
    public static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
