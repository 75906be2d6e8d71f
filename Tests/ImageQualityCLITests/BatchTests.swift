import Foundation
import Testing
import _ImagingTestSupport

/// A record without its wall time, the one member that differs between runs.
private func withoutTime(_ line: Substring) -> String {
    line.replacingOccurrences(of: #","elapsedMs":[0-9.]+"#, with: "", options: .regularExpression)
}

@Suite("Long batches", .serialized)
struct BatchTests {
    @Test func fiveThousandInputsGiveFiveThousandRecordsInOrder() throws {
        let folder = try TemporaryDirectory()
        // Good, damaged, missing and non-image inputs, interleaved.
        let kinds = ["png/gray8.png", "png/truncated.png", "jpeg/gray.jpg", "other/not-an-image.txt", "tiff/gray8.tif"].map(Fixtures.path)
        let paths = (0..<5000).map { index in index % 7 == 3 ? folder.path + "/missing-\(index).png" : kinds[index % kinds.count] }
        let list = try folder.write("list.txt", Array((paths.joined(separator: "\n") + "\n").utf8))
        let run = try Binary.shell("'\(Binary.path)' score --jobs 2 --quiet --format jsonl - < '\(list)'")
        #expect(run.status == 2, "\(run.stderr)")
        let records = run.records
        #expect(records.count == 5000)
        #expect(records.map { $0["path"] as? String ?? "" } == paths)
        let missing = records.filter { (($0["error"] as? [String: Any])?["code"] as? String) == "input.notFound" }
        #expect(missing.count == paths.filter { $0.contains("/missing-") }.count)
    }

    @Test func recordsAreByteIdenticalAcrossRunsAndJobs() throws {
        let images = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryPath("Datasets/exposure/images"))
            .filter { $0.hasSuffix(".jpg") }.sorted().prefix(8).map { Fixtures.repositoryPath("Datasets/exposure/images/" + $0) }
        let inputs = images + ["jpeg/large.jpg", "jpeg/progressive.jpg", "png/rgb16.png", "tiff/orientation-6.tif", "png/truncated.png"].map(Fixtures.path)
        func records(jobs: Int) throws -> [String] {
            let run = try Binary.run(["score", "--quiet", "--format", "jsonl", "--jobs", String(jobs)] + inputs)
            return run.stdout.split(separator: "\n").map(withoutTime)
        }
        let one = try records(jobs: 1)
        #expect(one.count == inputs.count)
        #expect(try records(jobs: 2) == one)
        #expect(try records(jobs: 3) == one)
        #expect(try records(jobs: 1) == one)
    }

    @Test func anInterruptEndsTheBatchBetweenRecords() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = ["score", "--jobs", "2", "--format", "jsonl"] + Array(repeating: Fixtures.path("jpeg/large.jpg"), count: 2000)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the first records, then interrupt as Ctrl-C does.
        var received = Data()
        while received.filter({ $0 == UInt8(ascii: "\n") }).count < 3 { received += output.fileHandleForReading.availableData }
        process.interrupt()
        received += output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.hasSuffix("\n"), "the last record is whole")
        let lines = text.split(separator: "\n")
        #expect(lines.count < 2000)
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line.prefix(80))") }
    }
}
