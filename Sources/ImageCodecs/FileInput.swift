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
    /// Reads `path` (as `FileSystemPath` holds it) into `buffer` (replacing it; a stream
    /// keeps its capacity), giving up once `deadline` passes.
    ///
    /// A FIFO, a terminal or a socket is opened without blocking and read as data arrives,
    /// so one with no writer, or a writer that never finishes, ends at the deadline instead
    /// of holding the batch; the clock is read between chunks and after the last, for every
    /// kind of file.
    /// - Throws: `ImagingError` with `.notFound`, `.isDirectory`, `.unreadable`,
    ///   `.empty`, `.fileTooLarge` or `.timeLimit` (with an empty message: the caller
    ///   names the limit).
    static func readFile(_ path: String, maxBytes: Int, deadline: Deadline, into buffer: inout [UInt8]) throws(ImagingError) {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. Regular
        // files ignore it.
        let fd: Int32
        do {
            fd = try SystemCall.openFile(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        } catch {
            switch error.code {
            case ENOENT, ENOTDIR: throw ImagingError(.notFound, "no such file")
            case EISDIR: throw ImagingError(.isDirectory, "is a directory")
            default: throw ImagingError(.unreadable, "cannot open: \(errorText(error.code))")
            }
        }
        defer { try? SystemCall.closeFile(fd) }
        let info: stat
        do {
            info = try SystemCall.status(of: fd)
        } catch {
            throw ImagingError(.unreadable, "cannot stat: \(errorText(error.code))")
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
        if type == S_IFREG, declared != nil {
            buffer = try readRegularFile(fd, capacity: capacity, deadline: deadline)
        } else {
            try readStream(fd, capacity: capacity, waits: type != S_IFREG && type != S_IFBLK, deadline: deadline, into: &buffer)
        }
        if buffer.isEmpty { throw ImagingError(.empty, "the file is empty (0 bytes)") }
        if buffer.count > maxBytes {
            throw ImagingError(
                .fileTooLarge, "more than \(maxBytes) bytes, above the limit (raise it with --max-file-size)")
        }
        if deadline.hasPassed { throw ImagingError(.timeLimit, "") }
    }

    /// Reads a regular file of known size straight into a new array's storage, a mebibyte
    /// at a time (the clock is read between reads): no zero-filled staging buffer and no
    /// second copy, which for a 2 MB JPEG cost more than the read itself.
    private static func readRegularFile(_ fd: Int32, capacity: Int, deadline: Deadline) throws(ImagingError) -> [UInt8] {
        var failure: ImagingError?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { storage, count in
            count = 0
            while count < capacity {
                if deadline.hasPassed {
                    failure = ImagingError(.timeLimit, "")
                    return
                }
                let want = min(1 << 20, capacity - count)
                do throws(Errno) {
                    let got = try SystemCall.readBytes(fd, into: UnsafeMutableRawBufferPointer(start: storage.baseAddress! + count, count: want))
                    if got == 0 { return }
                    count += got
                } catch where error.code == EINTR || error.code == EAGAIN {
                    continue
                } catch {
                    failure = ImagingError(.unreadable, "read failed after \(count) bytes: \(errorText(error.code))")
                    return
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Reads a pipe, terminal, socket, device or a file that declares no size through a
    /// staging chunk into `buffer` (keeping its capacity), waiting for data up to the deadline.
    private static func readStream(
        _ fd: Int32, capacity: Int, waits: Bool, deadline: Deadline, into buffer: inout [UInt8]
    ) throws(ImagingError) {
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(min(capacity, 64 << 20))
        var chunk = [UInt8](repeating: 0, count: min(capacity, 1 << 20))
        while buffer.count < capacity {
            if deadline.hasPassed { throw ImagingError(.timeLimit, "") }
            if waits {
                do {
                    guard try SystemCall.waitForInput(fd, milliseconds: deadline.millisecondsLeft) else { continue }
                } catch where error.code == EINTR {
                    continue
                } catch {
                    throw ImagingError(.unreadable, "cannot wait for data after \(buffer.count) bytes: \(errorText(error.code))")
                }
            }
            let want = min(chunk.count, capacity - buffer.count)
            let got: Int
            do {
                got = try chunk.withUnsafeMutableBytes { all in
                    Result { () throws(Errno) in try SystemCall.readBytes(fd, into: UnsafeMutableRawBufferPointer(rebasing: all[..<want])) }
                }.get()
            } catch where error.code == EINTR || error.code == EAGAIN {
                continue
            } catch {
                throw ImagingError(.unreadable, "read failed after \(buffer.count) bytes: \(errorText(error.code))")
            }
            if got == 0 { break }
            buffer.append(contentsOf: chunk[0..<got])
        }
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
