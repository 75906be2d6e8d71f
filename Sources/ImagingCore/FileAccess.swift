#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations of reports, contact sheets, policies, profiles and label files, over
/// `SystemCall`, so every failure keeps its errno and can be said in plain words (Foundation's equivalents report `NSCocoaErrorDomain` codes, which say nothing
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
        SystemCall.mayAccess(path, W_OK | X_OK)
    }

    /// Whether this process may replace the contents of the existing file `path`.
    /// The corresponding C function is `access` (write permission).
    package static func canWrite(file path: String) -> Bool {
        SystemCall.mayAccess(path, W_OK)
    }

    /// Why the file at `path` cannot be opened for reading, or nil when it can (a folder
    /// opens, and fails on reading). The corresponding C functions are `open` and `close`.
    package static func unreadable(_ path: String) -> Failure? {
        do {
            try SystemCall.closeFile(try SystemCall.openFile(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK))
            return nil
        } catch {
            return Failure(error.code)
        }
    }

    /// The whole of the file at `path`.
    /// - Throws: the reason in plain words (`reason(_:)`).
    package static func readAll(_ path: String) throws(Failure) -> [UInt8] {
        let fd: Int32
        do { fd = try SystemCall.openFile(path, O_RDONLY | O_CLOEXEC) } catch { throw Failure(error.code) }
        defer { try? SystemCall.closeFile(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got: Int
            do {
                got = try chunk.withUnsafeMutableBytes { buffer in Result { () throws(Errno) in try SystemCall.readBytes(fd, into: buffer) } }.get()
            } catch {
                if error.code == EINTR { continue }
                throw Failure(error.code)
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
        let fd: Int32
        do { fd = try SystemCall.openFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions: 0o644) } catch {
            throw Failure(error.code)
        }
        do {
            try SystemCall.writeAll(fd, bytes)
        } catch {
            try? SystemCall.closeFile(fd)
            throw Failure(error.code)
        }
        // A full disk on a network file system can show only at close.
        do { try SystemCall.closeFile(fd) } catch { throw Failure(error.code) }
    }

    /// Removes the file `path`. The corresponding C function is `unlink`.
    /// - Throws: the reason in plain words.
    package static func remove(_ path: String) throws(Failure) {
        do { try SystemCall.removeFile(path) } catch { throw Failure(error.code) }
    }

    /// Writes `bytes` to `path` whole or not at all: to a file beside it, renamed over it.
    /// A reader never sees half a page. The corresponding C function is `rename`.
    /// - Throws: the reason in plain words.
    package static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        let partial = path + ".partial"
        try writeAll(bytes, to: partial)
        do {
            try SystemCall.renameFile(partial, to: path)
        } catch {
            try? remove(partial)
            throw Failure(error.code)
        }
    }

    /// Creates the folder `path` and any missing parents. The corresponding C function is `mkdir`.
    /// - Throws: the reason in plain words, for the component that failed.
    package static func createDirectories(_ path: String) throws(Failure) {
        if kind(of: path) == .directory { return }
        let parent = parentPath(of: path)
        if parent != path, kind(of: parent) == .missing { try createDirectories(parent) }
        do {
            try SystemCall.makeDirectory(path)
        } catch where error.code != EEXIST {
            throw Failure(error.code, path: path)
        } catch {}
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
    package static func parentPath(of path: String) -> String {
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
