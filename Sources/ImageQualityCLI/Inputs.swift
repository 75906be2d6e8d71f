import Foundation
import ImagingCore

/// Turns command-line inputs into the ordered list of files to process.
///
/// - A path to a file is used as given (whatever its name or format).
/// - A directory is walked recursively; its files are sorted by path (byte order,
///   as `find | LC_ALL=C sort`). Hidden entries are skipped; only files with an image
///   extension are taken unless `allFiles` is set. Symbolic links to files are
///   followed, links to directories are not (no cycles). A link with an image name
///   that leads nowhere (dangling, or a loop) is taken, so its record says why it
///   cannot be read. A directory that cannot be listed, named or met in a walk, is itself
///   an input: its record holds the error, so the batch does not lose its files unsaid. A
///   FIFO, socket or device among a directory's files (skipped: reading a FIFO waits for a
///   writer), and a named directory without images, are reported on standard error.
/// - `-` reads paths from standard input, one per line (or NUL-separated), lazily,
///   so a pipeline streams. A line's trailing `\r` (CRLF input) is dropped; a name that
///   really ends in `\r` can be given NUL-separated.
struct InputExpander: Sendable {
    var allFiles = false
    var nullSeparated = false

    /// Extensions taken from directories by default, lower-cased. Formats imgquality
    /// does not decode are listed so they get a clear "unsupported" record.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "tif", "tiff",
        "heic", "heif", "avif", "webp", "gif", "bmp", "dib", "jxl", "pdf", "jp2", "dng",
        "cr2", "cr3", "nef", "arw", "orf", "rw2", "raf",
    ]

    /// Files of `directory`, recursively, sorted by path, with the directories below it
    /// that cannot be listed among them (their records say why); nil when `directory`
    /// itself cannot be listed. `warn` hears of the special files skipped. Names are read
    /// as bytes (`FileSystemPath`), so a name that is not UTF-8 is found and opened.
    func files(inDirectory directory: String, warn: (String) -> Void = { _ in }) -> [String]? {
        let prefix = directory.unicodeScalars.last == "/" ? directory : directory + "/"
        var found: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let absolute = prefix + relative
            guard let names = Self.names(inDirectory: absolute) else {
                if relative.isEmpty { return nil }
                // Its record says why it cannot be read (input.unreadable) and the batch exits 2.
                found.append(String(absolute.dropLast()))
                continue
            }
            for name in names where !name.hasPrefix(".") {
                let path = absolute + name
                let takesName = allFiles || Self.imageExtensions.contains((name as NSString).pathExtension.lowercased())
                guard let type = FileSystemPath.fileType(path) else {
                    // A link leading nowhere, or something that vanished: its record says so.
                    if takesName { found.append(path) }
                    continue
                }
                if type == S_IFDIR {
                    if !FileSystemPath.isSymbolicLink(path) { pending.append(relative + name + "/") }
                } else if takesName {
                    // Reading a FIFO waits for a writer, and a device or socket holds no image:
                    // a walk takes regular files only, so one such entry cannot stall the batch.
                    if let kind = Self.specialFileKind(type) {
                        warn("skipped \(path): \(kind), not a regular file")
                    } else {
                        found.append(path)
                    }
                }
            }
        }
        // Byte order of the names as the file system has them.
        return found.map { (FileSystemPath.bytes($0), $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
    }

    /// The names in `directory` but `.` and `..`, as `FileSystemPath` holds them; nil when
    /// it cannot be listed.
    static func names(inDirectory directory: String) -> [String]? {
        SystemCall.directoryEntries(directory)
    }

    /// What a file of type `type` (`FileSystemPath.fileType`) is when it is not a regular
    /// file: "a FIFO", "a socket", "a device"; nil for a regular file.
    static func specialFileKind(_ type: mode_t) -> String? {
        switch type {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "a special file"
        }
    }

    /// Says `message` on standard error, as `imgquality: message`, with control characters
    /// (a file name may hold a terminal's escape sequences) shown as `?` and bytes that are
    /// not UTF-8 as U+FFFD.
    static func warn(_ message: String) {
        let scalars = message.unicodeScalars
        let shown = String(String.UnicodeScalarView(scalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
        Terminal.write("imgquality: \(shown)\n", to: STDERR_FILENO)
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
                } else if FileSystemPath.isDirectory(argument) {
                    // A directory that cannot be listed is an input of its own: its record says why.
                    guard let listed = files(inDirectory: argument, warn: Self.warn) else { return argument }
                    if listed.isEmpty {
                        Self.warn(
                            "\(argument): no \(allFiles ? "files" : "files with an image extension") found"
                                + (allFiles ? "" : " (--all-files takes every file)"))
                    }
                    queue = listed
                    queueIndex = 0
                } else {
                    return argument
                }
            }
        }
    }

    /// Every path `arguments` name, directories walked once, for a batch that counts them
    /// first (the progress bar); nil when one of them is `-` (stdin is read as it comes).
    func expanded(_ arguments: [String]) -> [String]? {
        if arguments.contains("-") { return nil }
        return Array(paths(arguments, standardInput: FileDescriptorLines(descriptor: -1, nullSeparated: nullSeparated)))
    }
}

/// Lines (or NUL-terminated records) read from a file descriptor as they arrive.
/// Empty records are skipped; a line's trailing `\r` (CRLF input) is dropped, a
/// NUL-terminated record is kept exactly.
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

    /// A line without the `\r` a CRLF file ends it with.
    private func trimmed(_ record: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        separator == UInt8(ascii: "\n") && record.last == UInt8(ascii: "\r") ? record.dropLast() : record
    }

    func next() -> String? {
        while true {
            if let end = buffer[start...].firstIndex(of: separator) {
                let record = trimmed(buffer[start..<end])
                start = end + 1
                if record.isEmpty { continue }
                return FileSystemPath.string(bytes: record)
            }
            if ended {
                guard start < buffer.count else { return nil }
                let record = trimmed(buffer[start...])
                start = buffer.count
                if record.isEmpty { return nil }
                return FileSystemPath.string(bytes: record)
            }
            buffer.removeFirst(start)
            start = 0
            var chunk = [UInt8](repeating: 0, count: 65536)
            let got: Int
            do {
                got = try chunk.withUnsafeMutableBytes { all in Result { () throws(Errno) in try SystemCall.readBytes(descriptor, into: all) } }.get()
            } catch where error.code == EINTR {
                continue
            } catch {
                got = 0
            }
            if got == 0 { ended = true } else { buffer.append(contentsOf: chunk[0..<got]) }
        }
    }
}
