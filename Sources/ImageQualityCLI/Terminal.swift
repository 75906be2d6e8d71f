import Foundation

/// Writes to standard output and error without buffering surprises, and knows whether they are terminals.
enum Terminal {
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { raw in
                Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
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
