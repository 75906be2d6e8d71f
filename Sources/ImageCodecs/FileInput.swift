#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ImagingCore

/// Reads whole files with POSIX calls, so every failure keeps its errno.
enum FileInput {
    /// Reads `path` (as `FileSystemPath` holds it) into `buffer` (replacing its contents,
    /// keeping its capacity).
    /// - Throws: `ImagingError` with `.notFound`, `.isDirectory`, `.unreadable`,
    ///   `.empty` or `.fileTooLarge`.
    static func readFile(_ path: String, maxBytes: Int, into buffer: inout [UInt8]) throws(ImagingError) {
        let fd = FileSystemPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        if fd < 0 {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw ImagingError(.notFound, "no such file")
            case EISDIR: throw ImagingError(.isDirectory, "is a directory")
            default: throw ImagingError(.unreadable, "cannot open: \(errorText(code))")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ImagingError(.unreadable, "cannot stat: \(errorText(errno))")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { throw ImagingError(.isDirectory, "is a directory") }
        // Pipes, devices and /proc files declare no useful size: read up to the limit.
        let declared = type == S_IFREG && info.st_size > 0 ? Int(info.st_size) : nil
        if let declared {
            if declared > maxBytes {
                throw ImagingError(
                    .fileTooLarge, "the file has \(declared) bytes, above the limit of \(maxBytes) (raise it with --max-file-size)")
            }
        }
        // One byte more than expected detects a file that grew or exceeds the limit.
        let capacity = (declared ?? maxBytes) + 1
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(min(capacity, 64 << 20))
        var chunk = [UInt8](repeating: 0, count: min(capacity, 1 << 20))
        while buffer.count < capacity {
            let want = min(chunk.count, capacity - buffer.count)
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if got < 0 {
                if errno == EINTR { continue }
                throw ImagingError(.unreadable, "read failed after \(buffer.count) bytes: \(errorText(errno))")
            }
            if got == 0 { break }
            buffer.append(contentsOf: chunk[0..<got])
        }
        if buffer.isEmpty { throw ImagingError(.empty, "the file is empty (0 bytes)") }
        if buffer.count > maxBytes {
            throw ImagingError(
                .fileTooLarge, "more than \(maxBytes) bytes, above the limit (raise it with --max-file-size)")
        }
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
