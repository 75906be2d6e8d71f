import ArgumentParser
import Foundation
import GatedRecognition
import QualityAssessment
import QualityGating

/// `imgquality schema`: the JSON Schema of the score record.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (draft 2020-12) of the records score and gate print, or of ocr's document records.",
        discussion: """
            Generated from the same types and detector descriptors that write the records, so it \
            always matches this version: every member, its meaning and units, the gate's reasons \
            and the error codes. --record document gives the schema of `ocr --format document`.
            """)

    enum Record: String, ExpressibleByArgument, CaseIterable {
        case score, document
    }

    @Option(name: .long, help: ArgumentHelp("score (the records of score and gate) or document (ocr --format document).", valueName: "record"))
    var record: Record = .score

    mutating func run() throws {
        let schema = record == .score ? RecordSchema.scoreRecord : DocumentSchema.documentRecord
        Terminal.write(schema.serialized + "\n", to: STDOUT_FILENO)
    }
}
