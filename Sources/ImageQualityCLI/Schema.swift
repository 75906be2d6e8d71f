import ArgumentParser
import Foundation
import QualityAssessment
import QualityGating

/// `imgquality schema`: the JSON Schema of the score record.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (draft 2020-12) of the records score and gate print.",
        discussion: """
            Generated from the same types and detector descriptors that write the records, so it \
            always matches this version: every member, its meaning and units, the gate's reasons \
            and the error codes.
            """)

    mutating func run() throws {
        Terminal.write(RecordSchema.scoreRecord.serialized + "\n", to: STDOUT_FILENO)
    }
}
