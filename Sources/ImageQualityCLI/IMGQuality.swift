import ArgumentParser

/// The `imgquality` command: its subcommands are thin shells over the libraries.
public struct IMGQuality: AsyncParsableCommand {
    public static let version = "0.3.0"

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
}
