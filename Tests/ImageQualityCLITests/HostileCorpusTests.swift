import Foundation
import Testing
import _ImagingTestSupport

@Suite("Hostile corpus")
struct HostileCorpusTests {
    @Test func thousandsOfMutantsGiveOneRecordEachInOrder() throws {
        let folder = try TemporaryDirectory()
        var names: [String] = []
        for format in ["jpeg", "png", "tiff"] {
            let fixtures = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(format)).sorted()
            for (index, fixture) in fixtures.enumerated() where !fixture.hasPrefix("huge") {
                let bytes = try Fixtures.bytes(format + "/" + fixture)
                let ext = (fixture as NSString).pathExtension
                for mutant in Mutants.of(bytes, seed: UInt64(index + 1)) {
                    let name = "\(format)/\((fixture as NSString).deletingPathExtension)-\(mutant.name).\(ext)"
                    try folder.write(name, mutant.bytes)
                    names.append(folder.path + "/" + name)
                }
            }
        }
        #expect(names.count > 3000, "\(names.count) mutants")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = ["score", "--jobs", "2", "--quiet", "--format", "jsonl", folder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // No hang: a batch that has not ended in ten minutes is killed and fails the test.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        #expect(process.terminationReason == .exit && process.terminationStatus == 2, "no signal, some inputs failed")
        let records = data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
        // The walk is in byte order of the paths, as `LC_ALL=C sort` sorts them.
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(records.count == expected.count)
        #expect(records.map { $0["path"] as? String ?? "" } == expected)
        let failed = records.filter { $0["error"] != nil }.count
        #expect(failed > 500 && failed < records.count, "\(failed) of \(records.count) failed")
    }
}
