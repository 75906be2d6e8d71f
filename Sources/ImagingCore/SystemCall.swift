#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An `errno` value from a failed system call.
package struct Errno: Error, Equatable, Sendable {
    package var code: Int32

    package init(_ code: Int32) { self.code = code }

    /// The C library's words for it (`No such file or directory`).
    package var words: String { String(cString: strerror(code)) }
}

/// Every C library call imgquality makes outside the C shim, as thin wrappers in one place
/// (as swift-system keeps its system calls): paths as `FileSystemPath` holds them, failures
/// as `Errno` read at once, so no other call can overwrite it. Callers decide what each
/// errno means (a missing file, a reader gone away); interrupted calls are not retried here.
///
/// One part stays with its user: the command line's SIGINT handling (`sigaction`, `signal`,
/// `raise`, `pthread_sigmask` and the handler's own `write`, in `Terminal.swift`), since a
/// signal handler may call only async-signal-safe functions and reads best in one piece.
package enum SystemCall {
    /// Opens `path`. The corresponding C function is `open`.
    package static func openFile(_ path: String, _ flags: Int32, permissions: mode_t = 0) throws(Errno) -> Int32 {
        let fd = FileSystemPath.withCString(path) { open($0, flags, permissions) }
        guard fd >= 0 else { throw Errno(errno) }
        return fd
    }

    /// Closes `fd`. The corresponding C function is `close`.
    package static func closeFile(_ fd: Int32) throws(Errno) {
        guard close(fd) == 0 else { throw Errno(errno) }
    }

    /// Reads up to `buffer.count` bytes; 0 at the end. The corresponding C function is `read`.
    package static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let got = read(fd, buffer.baseAddress, buffer.count)
        guard got >= 0 else { throw Errno(errno) }
        return got
    }

    /// Writes up to `bytes.count` bytes. The corresponding C function is `write`.
    package static func writeBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        let written = write(fd, bytes.baseAddress, bytes.count)
        guard written >= 0 else { throw Errno(errno) }
        return written
    }

    /// Writes all of `bytes`, writing again after a partial write or an interruption
    /// (`EINTR`). The corresponding C function is `write`.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { all in
                Result { () throws(Errno) in try writeBytes(fd, UnsafeRawBufferPointer(rebasing: all[offset...])) }
            }
            switch written {
            case .success(let count): offset += count
            case .failure(let error) where error.code == EINTR: continue
            case .failure(let error): throw error
            }
        }
    }

    /// What the open file `fd` is. The corresponding C function is `fstat`.
    package static func status(of fd: Int32) throws(Errno) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Errno(errno) }
        return info
    }

    /// What `path` is: through links, or the link itself. The corresponding C functions are
    /// `stat` and `lstat`.
    package static func status(ofPath path: String, followingLinks: Bool = true) throws(Errno) -> stat {
        var info = stat()
        let result = FileSystemPath.withCString(path) { followingLinks ? stat($0, &info) : lstat($0, &info) }
        guard result == 0 else { throw Errno(errno) }
        return info
    }

    /// Whether this process may access `path` as `mode` says (`W_OK`, `X_OK`, …). The
    /// corresponding C function is `access`.
    package static func mayAccess(_ path: String, _ mode: Int32) -> Bool {
        FileSystemPath.withCString(path) { access($0, mode) } == 0
    }

    /// Removes the file `path`. The corresponding C function is `unlink`.
    package static func removeFile(_ path: String) throws(Errno) {
        guard FileSystemPath.withCString(path, { unlink($0) }) == 0 else { throw Errno(errno) }
    }

    /// Renames `source` to `destination`, replacing it. The corresponding C function is `rename`.
    package static func renameFile(_ source: String, to destination: String) throws(Errno) {
        let result = FileSystemPath.withCString(source) { from in FileSystemPath.withCString(destination) { rename(from, $0) } }
        guard result == 0 else { throw Errno(errno) }
    }

    /// Creates the folder `path`. The corresponding C function is `mkdir`.
    package static func makeDirectory(_ path: String, permissions: mode_t = 0o755) throws(Errno) {
        guard FileSystemPath.withCString(path, { mkdir($0, permissions) }) == 0 else { throw Errno(errno) }
    }

    /// The working directory from its own bytes, or nil when it cannot be read (removed,
    /// too long). The corresponding C function is `getcwd`.
    package static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return buffer.withUnsafeBufferPointer { FileSystemPath.string(cString: $0.baseAddress!) }
    }

    /// Waits up to `milliseconds` for `fd` to have data to read; false when the time ran out.
    /// The corresponding C function is `poll`.
    package static func waitForInput(_ fd: Int32, milliseconds: Int32) throws(Errno) -> Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&request, 1, milliseconds)
        guard ready >= 0 else { throw Errno(errno) }
        return ready > 0
    }

    /// The names in the folder `path` but `.` and `..`, as `FileSystemPath` holds them; nil
    /// when it cannot be listed. The corresponding C functions are `opendir`, `readdir` and
    /// `closedir`.
    package static func directoryEntries(_ path: String) -> [String]? {
        guard let stream = FileSystemPath.withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            // glibc allocates each entry only as long as its name needs, so the name is read
            // in place up to its NUL rather than by copying the 256-byte d_name field.
            let field = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let name = FileSystemPath.string(cString: field.assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The running executable's path with links resolved, or nil when the system does not
    /// say. The corresponding C function is `readlink` (of `/proc/self/exe`).
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return buffer.withUnsafeBufferPointer { FileSystemPath.string(cString: $0.baseAddress!) }
    }

    /// Whether `fd` is a terminal. The corresponding C function is `isatty`.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// The width in columns of the terminal `fd` is, or nil when it is none. The
    /// corresponding C function is `ioctl` (`TIOCGWINSZ`).
    package static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
