import Foundation

/// Turns command-line inputs into the ordered list of files to process.
///
/// - A path to a file is used as given (whatever its name or format).
/// - A directory is walked recursively; its files are sorted by path (byte order,
///   as `find | LC_ALL=C sort`). Hidden entries are skipped; only files with an image
///   extension are taken unless `allFiles` is set. Symbolic links to files are
///   followed, links to directories are not (no cycles).
/// - `-` reads paths from standard input, one per line (or NUL-separated), lazily,
///   so a pipeline streams.
struct InputExpander: Sendable {
    var allFiles = false
    var nullSeparated = false

    /// Extensions taken from directories by default, lower-cased. Formats imgquality
    /// does not decode are listed so they get a clear "unsupported" record.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "tif", "tiff",
        "heic", "heif", "avif", "webp", "gif", "bmp", "jxl", "jp2", "dng",
    ]

    /// Files of `directory`, recursively, sorted by path.
    func files(inDirectory directory: String) -> [String] {
        let fileManager = FileManager.default
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        var found: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let absolute = prefix + relative
            guard let names = try? fileManager.contentsOfDirectory(atPath: absolute) else { continue }
            for name in names where !name.hasPrefix(".") {
                let path = absolute + name
                var isDirectory: ObjCBool = false
                let attributes = try? fileManager.attributesOfItem(atPath: path)
                let isLink = (attributes?[.type] as? FileAttributeType) == .typeSymbolicLink
                guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    if !isLink { pending.append(relative + name + "/") }
                } else if allFiles || Self.imageExtensions.contains((name as NSString).pathExtension.lowercased()) {
                    found.append(path)
                }
            }
        }
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The paths to process, lazily: directories are listed when reached, stdin is read as needed.
    func paths(_ arguments: [String], standardInput: FileDescriptorLines) -> AnyIterator<String> {
        var remaining = arguments[...]
        var queue: [String] = []
        var queueIndex = 0
        var readingStandardInput = false
        return AnyIterator {
            while true {
                if readingStandardInput {
                    if let line = standardInput.next() { return line }
                    readingStandardInput = false
                }
                if queueIndex < queue.count {
                    defer { queueIndex += 1 }
                    return queue[queueIndex]
                }
                guard let argument = remaining.popFirst() else { return nil }
                if argument == "-" {
                    readingStandardInput = true
                } else if isDirectory(argument) {
                    queue = files(inDirectory: argument)
                    queueIndex = 0
                } else {
                    return argument
                }
            }
        }
    }

    /// How many paths `arguments` name, or nil when one of them is `-`.
    func count(_ arguments: [String]) -> Int? {
        if arguments.contains("-") { return nil }
        return arguments.reduce(0) { $0 + (isDirectory($1) ? files(inDirectory: $1).count : 1) }
    }
}

/// Lines (or NUL-terminated records) read from a file descriptor as they arrive.
/// Empty records are skipped; a trailing `\r` is kept (it may be part of a name).
final class FileDescriptorLines: @unchecked Sendable {
    private let descriptor: Int32
    private let separator: UInt8
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    init(descriptor: Int32, nullSeparated: Bool) {
        self.descriptor = descriptor
        self.separator = nullSeparated ? 0 : UInt8(ascii: "\n")
    }

    func next() -> String? {
        while true {
            if let end = buffer[start...].firstIndex(of: separator) {
                let record = buffer[start..<end]
                start = end + 1
                if record.isEmpty { continue }
                return String(decoding: record, as: UTF8.self)
            }
            if ended {
                guard start < buffer.count else { return nil }
                let record = buffer[start...]
                start = buffer.count
                return String(decoding: record, as: UTF8.self)
            }
            buffer.removeFirst(start)
            start = 0
            var chunk = [UInt8](repeating: 0, count: 65536)
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { ended = true } else { buffer.append(contentsOf: chunk[0..<got]) }
        }
    }
}
