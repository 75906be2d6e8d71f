#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file system calls of reports, contact sheets, policies, profiles and label files, in
/// one place: thin wrappers over POSIX so every failure keeps its errno and can be said in
/// plain words (Foundation's equivalents report `NSCocoaErrorDomain` codes, which say nothing
/// to a user). Paths are as `FileSystemPath` holds them, so a name that is not UTF-8 is its
/// own file.
package enum FileAccess {
    /// What is at a path: nothing, a folder, or something else (a file, a device, a pipe).
    package enum Kind: Equatable { case missing, directory, other }

    /// What `path` names, following links. The corresponding C function is `stat`.
    package static func kind(of path: String) -> Kind {
        switch FileSystemPath.fileType(path) {
        case nil: .missing
        case S_IFDIR: .directory
        default: .other
        }
    }

    /// Whether this process may create and replace files in the folder `path`.
    /// The corresponding C function is `access` (write and search permission).
    package static func canWrite(inDirectory path: String) -> Bool {
        FileSystemPath.withCString(path) { access($0, W_OK | X_OK) } == 0
    }

    /// Whether this process may replace the contents of the existing file `path`.
    /// The corresponding C function is `access` (write permission).
    package static func canWrite(file path: String) -> Bool {
        FileSystemPath.withCString(path) { access($0, W_OK) } == 0
    }

    /// Why the file at `path` cannot be opened for reading, or nil when it can (a folder
    /// opens, and fails on reading). The corresponding C functions are `open` and `close`.
    package static func unreadable(_ path: String) -> Failure? {
        let fd = FileSystemPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return Failure(errno) }
        close(fd)
        return nil
    }

    /// The whole of the file at `path`.
    /// - Throws: the reason in plain words (`reason(_:)`).
    package static func readAll(_ path: String) throws(Failure) -> [UInt8] {
        let fd = FileSystemPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw Failure(errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(errno)
            }
            if got == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<got])
        }
    }

    /// The file at `path` as UTF-8 text.
    /// - Throws: why it cannot be read, or `EILSEQ` ("it is not UTF-8 text").
    package static func readText(_ path: String) throws(Failure) -> String {
        guard let text = String(validating: try readAll(path), as: UTF8.self) else { throw Failure(EILSEQ) }
        return text
    }

    /// Writes `bytes` to `path`, replacing it. The corresponding C functions are `open`
    /// (`O_CREAT | O_TRUNC`, mode 0644 before the umask), `write` and `close`.
    /// - Throws: the reason in plain words.
    package static func writeAll(_ bytes: [UInt8], to path: String) throws(Failure) {
        let fd = FileSystemPath.withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw Failure(errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw Failure(code)
            }
            offset += written
        }
        // A full disk on a network file system can show only at close.
        guard close(fd) == 0 else { throw Failure(errno) }
    }

    /// Removes the file `path`. The corresponding C function is `unlink`.
    /// - Throws: the reason in plain words.
    package static func remove(_ path: String) throws(Failure) {
        guard FileSystemPath.withCString(path, { unlink($0) }) == 0 else { throw Failure(errno) }
    }

    /// Writes `bytes` to `path` whole or not at all: to a file beside it, renamed over it.
    /// A reader never sees half a page. The corresponding C function is `rename`.
    /// - Throws: the reason in plain words.
    package static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        let partial = path + ".partial"
        try writeAll(bytes, to: partial)
        let renamed = FileSystemPath.withCString(partial) { from in FileSystemPath.withCString(path) { rename(from, $0) } }
        guard renamed == 0 else {
            let code = errno
            try? remove(partial)
            throw Failure(code)
        }
    }

    /// Creates the folder `path` and any missing parents. The corresponding C function is `mkdir`.
    /// - Throws: the reason in plain words, for the component that failed.
    package static func createDirectories(_ path: String) throws(Failure) {
        if kind(of: path) == .directory { return }
        let parent = parentPath(of: path)
        if parent != path, kind(of: parent) == .missing { try createDirectories(parent) }
        if FileSystemPath.withCString(path, { mkdir($0, 0o755) }) != 0, errno != EEXIST { throw Failure(errno, path: path) }
        guard kind(of: path) == .directory else { throw Failure(ENOTDIR, path: path) }
    }

    /// The nearest of `path`'s parents that exists (a folder, or a file where a folder
    /// should be), or the root when none does: where creating `path` would begin.
    package static func nearestExistingAncestor(of path: String) -> String {
        var ancestor = parentPath(of: path)
        while kind(of: ancestor) == .missing {
            let next = parentPath(of: ancestor)
            if next == ancestor { break }
            ancestor = next
        }
        return ancestor
    }

    /// The folder holding `path` ("." for a bare name, "/" for the root). Slashes are found
    /// by scalar, as in `FileSystemPath.standardized`.
    static func parentPath(of path: String) -> String {
        var trimmed = path.unicodeScalars[...]
        while trimmed.count > 1 && trimmed.last == "/" { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// A failed call: its errno, said in plain words, and the path it concerned when that is
    /// not the one the caller named.
    package struct Failure: Error, Equatable {
        package var code: Int32
        package var path: String?

        package init(_ code: Int32, path: String? = nil) {
            self.code = code
            self.path = path
        }

        /// "no such file", "permission denied", "it is a folder"…, or the system's words.
        package var reason: String {
            switch code {
            case ENOENT: "no such file"
            case ENOTDIR: "a part of the path is a file, not a folder"
            case EACCES, EPERM: "permission denied"
            case EISDIR: "it is a folder"
            case ENOSPC: "no space left on the device"
            case EROFS: "the file system is read-only"
            case EILSEQ: "it is not UTF-8 text"
            default:
                // strerror's sentence, in lower case to sit after a colon.
                String(cString: strerror(code)).lowercased()
            }
        }
    }
}
