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

    /// Started as a shell starts a foreground job (every signal at its default action) and,
    /// in the second case, with SIGINT blocked, as a child of a thread of Swift's concurrency
    /// pool starts: Ctrl-C must reach the batch either way.
    @Test(arguments: [false, true]) func anInterruptEndsTheBatchBetweenRecords(startedWithTheSignalBlocked: Bool) throws {
        let arguments = ["score", "--jobs", "2", "--format", "jsonl"] + Array(repeating: Fixtures.path("jpeg/large.jpg"), count: 2000)
        let child = try Child(Binary.path, arguments, blocking: startedWithTheSignalBlocked ? [SIGINT] : [])
        let received = child.outputInterruptedAfterThreeRecords()
        #expect(child.waitForExit() == .signal(SIGINT))
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.hasSuffix("\n"), "the last record is whole")
        let lines = text.split(separator: "\n")
        #expect(lines.count < 2000)
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line.prefix(80))") }
    }

    /// A script's background job starts with SIGINT ignored and, by convention, keeps it so.
    @Test func aBatchStartedWithInterruptsIgnoredRunsToItsEnd() throws {
        let inputs = Array(repeating: "'\(Fixtures.path("jpeg/large.jpg"))'", count: 100).joined(separator: " ")
        let child = try Child("/bin/bash", ["-c", "trap '' INT; exec '\(Binary.path)' score --jobs 2 --format jsonl \(inputs)"], blocking: [])
        let received = child.outputInterruptedAfterThreeRecords()
        #expect(child.waitForExit() == .exit(0))
        #expect(received.filter { $0 == UInt8(ascii: "\n") }.count == 100)
    }
}

/// A child process with standard output on a pipe and standard error discarded, started
/// with every signal at its default action and `blocked` in its signal mask, whatever the
/// test thread's own mask and actions are.
private struct Child {
    enum Ending: Equatable {
        case exit(Int32)
        case signal(Int32)
    }

    let pid: pid_t
    let output: FileHandle

    init(_ executable: String, _ arguments: [String], blocking blocked: [Int32]) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Neither end may leak into children other tests start meanwhile (the read would
        // wait for them); the duplicate on the child's standard output loses the flag.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t(), mask = sigset_t()
        sigfillset(&everySignal)
        sigemptyset(&mask)
        for signal in blocked { sigaddset(&mask, signal) }
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let failure = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(ends[1])
        guard failure == 0 else {
            close(ends[0])
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        self.pid = pid
        output = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
    }

    /// Everything the child writes, with SIGINT sent to it once the first three records
    /// arrived, as Ctrl-C would (a child that ends sooner gets none, instead of a hang).
    func outputInterruptedAfterThreeRecords() -> Data {
        var received = Data()
        while received.filter({ $0 == UInt8(ascii: "\n") }).count < 3 {
            let more = output.availableData
            if more.isEmpty { return received }  // the child ended first: its status says why
            received += more
        }
        kill(pid, SIGINT)
        return received + output.readDataToEndOfFile()
    }

    func waitForExit() -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? .exit((status >> 8) & 0xFF) : .signal(signal)
    }
}
