import Foundation
import Synchronization

/// Runs the built `imgquality` binary.
public struct Run {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// The JSON records printed, one per line.
    public var records: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

public enum Binary {
    /// The `imgquality` executable next to the test bundle (SwiftPM builds both into one folder).
    public static let path: String = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("imgquality").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/release/imgquality").path
    }()

    /// Runs `command` in bash (for pipelines and redirections) and returns its output and status.
    public static func shell(_ command: String) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let (out, err) = readToEnd(output, error)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Both pipes read to their end at once: read one after the other, a process that fills
    /// the second pipe's buffer (a sanitizer's report, a loader's trace) before closing the
    /// first would wait for a reader forever.
    private static func readToEnd(_ output: Pipe, _ error: Pipe) -> (Data, Data) {
        final class Collected: Sendable { let data = Mutex(Data()) }
        let collected = Collected()
        let done = DispatchSemaphore(value: 0)
        let errors = error.fileHandleForReading
        DispatchQueue.global().async {
            let data = errors.readDataToEndOfFile()
            collected.data.withLock { $0 = data }
            done.signal()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        return (out, collected.data.withLock { $0 })
    }

    public static func run(_ arguments: [String], stdin: [UInt8] = [], directory: String? = nil, environment: [String: String]? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin))
        try input.fileHandleForWriting.close()
        let (out, err) = readToEnd(output, error)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
