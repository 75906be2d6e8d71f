#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Paths as the file system has them: bytes, which on Linux need not be UTF-8 (a name from
/// an old archive or a Windows share may be Latin-1).
///
/// imgquality carries paths as `String`s. A byte that is not part of valid UTF-8 is held as
/// one scalar of U+10FF80–U+10FFFF (the end of plane 16's private use area, which no file
/// name uses), the byte's value plus U+10FF00; the bytes of a name that really holds such a
/// scalar are held the same way. Nothing is lost: `bytes(_:)` gives the name back byte for
/// byte, so such a file is opened by its own name, and a path that is valid UTF-8 is its
/// ordinary `String`.
public enum FileSystemPath {
    /// The scalars that stand for single bytes: U+10FF80 for 0x80 through U+10FFFF for 0xFF.
    static let escapes: ClosedRange<UInt32> = 0x10_FF80...0x10_FFFF
    static let escapeBase: UInt32 = 0x10_FF00

    /// The path `bytes` name, as imgquality holds it.
    public static func string(bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if escapes.contains(scalar.value) {
                    for byte in bytes[offset..<(offset + encoded.count)] { scalars.append(escape(byte)) }
                } else {
                    scalars.append(scalar)
                }
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] { scalars.append(escape(byte)) }
                offset += length
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The bytes `path` names: the inverse of `string(bytes:)`.
    public static func bytes(_ path: String) -> [UInt8] {
        guard holdsEscapes(path) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if escapes.contains(scalar.value) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        return bytes
    }

    /// Whether the name's bytes are valid UTF-8, so the `String` a person reads is the name.
    public static func isUTF8(_ path: String) -> Bool {
        !holdsEscapes(path) || String(validating: bytes(path), as: UTF8.self) != nil
    }

    /// `path` for people and for text formats that must be UTF-8 (JSON, messages): the name's
    /// bytes decoded as UTF-8 with U+FFFD for each invalid sequence, as other tools show such
    /// names.
    public static func display(_ path: String) -> String {
        guard holdsEscapes(path) else { return path }
        return String(decoding: bytes(path), as: UTF8.self)
    }

    /// Whether `path` holds a byte escape: its name is not valid UTF-8, or spells one of the
    /// escape scalars itself. Without one, a path is its own UTF-8.
    static func holdsEscapes(_ path: String) -> Bool {
        path.unicodeScalars.contains { escapes.contains($0.value) }
    }

    /// Calls `body` with `path` as the NUL-terminated bytes the file system knows it by,
    /// for `open`, `stat` and `opendir`.
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard holdsEscapes(path) else { return try path.withCString(body) }
        var bytes = self.bytes(path).map { CChar(bitPattern: $0) }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    static func escape(_ byte: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(escapeBase + UInt32(byte))!
    }

    /// Whether `path` names a directory (through links).
    public static func isDirectory(_ path: String) -> Bool {
        fileType(path) == S_IFDIR
    }

    /// The type bits (`S_IFREG`, `S_IFDIR`, …) of what `path` leads to (through links), or
    /// nil when it cannot be examined (missing, a dangling link, no permission on the way).
    public static func fileType(_ path: String) -> mode_t? {
        guard let info = try? SystemCall.status(ofPath: path) else { return nil }
        return info.st_mode & S_IFMT
    }

    /// The working directory, from its own bytes (Foundation's `currentDirectoryPath` shows
    /// bytes that are not UTF-8 as U+FFFD); "/" when it cannot be read (removed, too long).
    public static var currentDirectory: String {
        SystemCall.currentDirectory() ?? "/"
    }

    /// A NUL-terminated name from the system (an argument, a directory entry) as a path.
    public static func string(cString: UnsafePointer<CChar>) -> String {
        string(bytes: UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// Whether `path` itself (not what it leads to) is a symbolic link.
    public static func isSymbolicLink(_ path: String) -> Bool {
        guard let info = try? SystemCall.status(ofPath: path, followingLinks: false) else { return false }
        return info.st_mode & S_IFMT == S_IFLNK
    }

    /// `path` made absolute, relative to `directory` (itself resolved against the working
    /// directory; the working directory when nil), with empty and `.` segments dropped and
    /// each `..` taking its parent away, as `URL.standardizedFileURL` does. Symbolic links
    /// are left as named, so this is a name to compare, not always one to open by (`a/link/..`
    /// is `a`, where the system would go to the link's parent). Slashes are found by scalar:
    /// a "/" followed by a combining mark is one `Character` with it.
    public static func standardized(_ path: String, relativeTo directory: String? = nil) -> String {
        var full = Array(path.unicodeScalars)
        if full.first != "/" {
            full = Array((directory.map { standardized($0) } ?? currentDirectory).unicodeScalars) + ["/"] + full
        }
        var segments: [ArraySlice<Unicode.Scalar>] = []
        for segment in full.split(separator: "/") where !segment.elementsEqual(["."]) {
            if segment.elementsEqual([".", "."]) {
                _ = segments.popLast()
            } else {
                segments.append(segment)
            }
        }
        var result = String.UnicodeScalarView()
        for segment in segments {
            result.append("/")
            result.append(contentsOf: segment)
        }
        return result.isEmpty ? "/" : String(result)
    }

    /// The folder part of `path` up to and including its last "/" (found by scalar), or nil
    /// for a bare name.
    public static func folder(of path: String) -> String? {
        path.unicodeScalars.lastIndex(of: "/").map { String(path.unicodeScalars[...$0]) }
    }
}
