import Foundation
import ImagingCore
import Synchronization

/// Whether a record is being written to standard output, and whether an interrupt arrived
/// meanwhile: SIGINT waits for the record to be whole.
private let writingRecord = Atomic<Bool>(false)
private let interruptedWhileWriting = Atomic<Bool>(false)
/// Whether standard error is a terminal, where a progress line may need erasing.
private let errorIsTerminal = Atomic<Bool>(false)

/// Writes to standard output and error without buffering surprises, and knows whether they are terminals.
enum Terminal {
    static var standardOutputIsTerminal: Bool { SystemCall.isTerminal(STDOUT_FILENO) }
    static var standardErrorIsTerminal: Bool { SystemCall.isTerminal(STDERR_FILENO) }

    /// The width rows are laid out for: standard output's terminal columns, else `COLUMNS`,
    /// else 80.
    static var columns: Int { columns(of: STDOUT_FILENO) }

    /// The width the summary wraps at: standard error's terminal columns, or no limit when
    /// standard error is a file or a pipe (a log keeps each list on one line).
    static var errorColumns: Int { standardErrorIsTerminal ? columns(of: STDERR_FILENO) : .max }

    private static func columns(of descriptor: Int32) -> Int {
        if let columns = SystemCall.terminalColumns(descriptor) { return columns }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return 80
    }

    /// Writes `text` whole. Standard error's failures are ignored. On standard output, a
    /// reader that went away (EPIPE) ends the process as SIGPIPE would, even when the parent
    /// ignores the signal (as some job runners do), so a batch stops at the first lost
    /// record instead of running on unheard; any other failure ends it with a message
    /// and exit status 74 (EX_IOERR).
    /// A file name in `text` that is not UTF-8 is shown as `FileSystemPath.display` shows it.
    static func write(_ text: String, to descriptor: Int32) {
        write(bytes: Array(FileSystemPath.display(text).utf8), to: descriptor)
    }

    /// Writes `bytes` whole, as `write(_:to:)` writes text: for paths, which are bytes.
    static func write(bytes: [UInt8], to descriptor: Int32) {
        let isOutput = descriptor != STDERR_FILENO
        if isOutput { writingRecord.store(true, ordering: .sequentiallyConsistent) }
        defer {
            if isOutput {
                writingRecord.store(false, ordering: .sequentiallyConsistent)
                if interruptedWhileWriting.load(ordering: .sequentiallyConsistent) { endInterrupted() }
            }
        }
        do {
            try SystemCall.writeAll(descriptor, bytes)
        } catch {
            if descriptor != STDERR_FILENO { outputFailed(error.code) }
        }
    }

    /// Makes Ctrl-C (SIGINT) end the process between records, never inside one: an
    /// interrupt that arrives while a record is being written takes effect when it is whole.
    /// The process still ends by SIGINT (status 130 in the shell), as without the handler.
    ///
    /// A process started with SIGINT ignored (a script's background job) keeps ignoring it, as
    /// programs conventionally do. One started with SIGINT blocked (a child of a thread that
    /// blocks it, as Swift's concurrency threads do) gets it unblocked on the calling thread,
    /// or no thread would ever take it. Call this on the main thread before other threads start.
    static func endInterruptsBetweenRecords() {
        var current = sigaction()
        sigaction(SIGINT, nil, &current)
        if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if writingRecord.load(ordering: .sequentiallyConsistent) {
                interruptedWhileWriting.store(true, ordering: .sequentiallyConsistent)
            } else {
                Terminal.endInterrupted()
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        errorIsTerminal.store(standardErrorIsTerminal, ordering: .sequentiallyConsistent)
        sigaction(SIGINT, &action, nil)
        unblockInterrupts()
    }

    /// Ends the process as SIGINT does, erasing a progress line first. The signal is
    /// unblocked on the calling thread first: a thread of the concurrency pool blocks it, and
    /// inside the handler it is blocked until the handler returns.
    fileprivate static func endInterrupted() {
        if errorIsTerminal.load(ordering: .sequentiallyConsistent) {
            _ = "\r\u{1B}[K".withCString { Foundation.write(STDERR_FILENO, $0, 4) }
        }
        signal(SIGINT, SIG_DFL)
        unblockInterrupts()
        raise(SIGINT)
    }

    private static func unblockInterrupts() {
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
    }

    /// Ends the process after a failed write to the output.
    static func outputFailed(_ code: Int32) -> Never {
        if code == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        write("imgquality: cannot write the output: \(String(cString: strerror(code)))\n", to: STDERR_FILENO)
        _exit(74)
    }
}

/// A one-line progress bar on standard error, redrawn at most ten times a second.
final class ProgressBar {
    private let total: Int?
    private var done = 0
    private var failed = 0
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var visible = false

    init(total: Int?) {
        self.total = total
    }

    func advance(failed isFailure: Bool) {
        done += 1
        if isFailure { failed += 1 }
        let now = Date()
        if now.timeIntervalSince(lastDraw) >= 0.1 || done == total {
            draw(now: now)
        }
    }

    func draw(now: Date = Date()) {
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(start), 1e-3)
        let rate = String(format: "%.1f/s", Double(done) / elapsed)
        let failures = failed > 0 ? ", \(failed) failed" : ""
        var line: String
        if let total, total > 0 {
            let width = 30
            let filled = min(width, done * width / total)
            line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            line += "\(done)/\(total) \(rate)\(failures)"
        } else {
            line = "\(done) images \(rate)\(failures)"
        }
        Terminal.write("\r\u{1B}[K" + line, to: STDERR_FILENO)
        visible = true
    }

    /// Erases the line (before other output on the same terminal, and at the end).
    func clear() {
        guard visible else { return }
        Terminal.write("\r\u{1B}[K", to: STDERR_FILENO)
        visible = false
    }
}
