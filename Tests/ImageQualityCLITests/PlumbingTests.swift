import Foundation
import ImagingCore
import Synchronization
import Testing
import _ImagingTestSupport

@testable import ImageQualityCLI

@Suite("CLI plumbing")
struct PlumbingTests {
    @Test func csvQuoting() {
        #expect(RecordWriter.csvQuoted("plain") == "plain")
        #expect(RecordWriter.csvQuoted("a,b") == "\"a,b\"")
        #expect(RecordWriter.csvQuoted("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(RecordWriter.tsvClean("a\tb\nc") == "a b c")
    }

    @Test func directoryWalkIsSortedAndFiltered() throws {
        let folder = try TemporaryDirectory()
        for name in ["b.jpg", "a/z.PNG", "a/b/c.tif", "A.tiff", "notes.txt", ".hidden.jpg", ".git/x.jpg", "a b.jpeg"] {
            try folder.write(name, [0])
        }
        let names = try #require(InputExpander().files(inDirectory: folder.path)).map { String($0.dropFirst(folder.path.count + 1)) }
        #expect(names == ["A.tiff", "a b.jpeg", "a/b/c.tif", "a/z.PNG", "b.jpg"])
        let all = try #require(InputExpander(allFiles: true).files(inDirectory: folder.path + "/"))
        #expect(all.count == 6)
        #expect(InputExpander().files(inDirectory: folder.path + "/no-such-directory") == nil)
        #expect(InputExpander().expanded([folder.path, "x.png"]) == names.map { folder.path + "/" + $0 } + ["x.png"])
        #expect(InputExpander().expanded([folder.path, "-"]) == nil)
    }

    @Test func standardInputRecords() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("paths", Array("one\n\ntwo\r\nthree".utf8))
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        let lines = FileDescriptorLines(descriptor: descriptor, nullSeparated: false)
        #expect(Array(AnyIterator { lines.next() }) == ["one", "two", "three"], "CRLF lines lose their \\r")
        let crlf = try folder.write("crlf", Array("a.png\r\nb.png\r\n\r\n".utf8))
        let crlfDescriptor = open(crlf, O_RDONLY)
        defer { close(crlfDescriptor) }
        let crlfLines = FileDescriptorLines(descriptor: crlfDescriptor, nullSeparated: false)
        #expect(Array(AnyIterator { crlfLines.next() }) == ["a.png", "b.png"])

        let nul = try folder.write("nul", Array("a\nb\0\0c\r\0".utf8))
        let nulDescriptor = open(nul, O_RDONLY)
        defer { close(nulDescriptor) }
        let records = FileDescriptorLines(descriptor: nulDescriptor, nullSeparated: true)
        #expect(Array(AnyIterator { records.next() }) == ["a\nb", "c\r"], "NUL-separated names are kept exactly")
    }

    @Test func namesThatAreNotUTF8AreFoundAndKeepTheirBytes() throws {
        let folder = try TemporaryDirectory()
        let latin1 = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let descriptor = FileSystemPath.withCString(folder.path + "/" + FileSystemPath.string(bytes: latin1)) {
            open($0, O_CREAT | O_WRONLY, 0o644)
        }
        #expect(descriptor >= 0)
        close(descriptor)
        try folder.write("b.jpg", [0])
        let found = try #require(InputExpander().files(inDirectory: folder.path))
        #expect(found.map { FileSystemPath.bytes(String($0.dropFirst(folder.path.count + 1))) } == [Array("b.jpg".utf8), latin1])

        let list = try folder.write("paths", latin1 + [0x0A])
        let listDescriptor = open(list, O_RDONLY)
        defer { close(listDescriptor) }
        let lines = FileDescriptorLines(descriptor: listDescriptor, nullSeparated: false)
        #expect(lines.next().map(FileSystemPath.bytes) == latin1)
    }

    @Test func linksLeadingNowhereAreTakenSoTheirRecordsSayWhy() throws {
        let folder = try TemporaryDirectory()
        try folder.write("real.jpg", [0])
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/dangling.jpg", withDestinationPath: folder.path + "/gone.jpg")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/loop.png", withDestinationPath: folder.path + "/loop.png")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/dangling.txt", withDestinationPath: folder.path + "/gone.txt")
        let names = try #require(InputExpander().files(inDirectory: folder.path)).map { String($0.dropFirst(folder.path.count + 1)) }
        #expect(names == ["dangling.jpg", "loop.png", "real.jpg"])
    }

    @Test func aWalkSkipsFIFOsSoABatchCannotStall() throws {
        let folder = try TemporaryDirectory()
        try folder.write("real.jpg", [0])
        #expect(mkfifo(folder.path + "/fifo.jpg", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/to-fifo.png", withDestinationPath: folder.path + "/fifo.jpg")
        var warnings: [String] = []
        let names = try #require(InputExpander().files(inDirectory: folder.path) { warnings.append($0) })
            .map { String($0.dropFirst(folder.path.count + 1)) }
        #expect(names == ["real.jpg"])
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { $0.hasPrefix("skipped ") && $0.hasSuffix(": a FIFO, not a regular file") }, "\(warnings)")
    }

    @Test func byteCounts() {
        #expect(ByteCount(argument: "512")?.bytes == 512)
        #expect(ByteCount(argument: "2k")?.bytes == 2048)
        #expect(ByteCount(argument: "3M")?.bytes == 3 << 20)
        #expect(ByteCount(argument: "1G")?.bytes == 1 << 30)
        #expect(ByteCount(argument: "0") == nil)
        #expect(ByteCount(argument: "12Q") == nil)
        #expect(ByteCount(argument: "99999999999999G") == nil)
    }

    @Test func inProcessRunCountsAndWrites() throws {
        let folder = try TemporaryDirectory()
        let outputPath = folder.path + "/out.jsonl"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = open(outputPath, O_WRONLY)
        let run = BatchRun(
            inputs: [Fixtures.path("png/gray8.png"), Fixtures.path("png/huge-dimensions.png")],
            expander: InputExpander(), jobs: 2, output: .records(.jsonl), showsProgress: false)
        let summary = run.execute(standardInput: -1, standardOutput: output)
        close(output)
        #expect(summary.passed + summary.rejected == 1 && summary.failed == 1 && summary.failures == ["decode.tooManyPixels": 1])
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.contains(#""error":{"code":"decode.tooManyPixels""#))
    }
}
