internal import _CRawWorker
import Glibc
import ImagingCore

/// Camera raw files (DNG, CR2, CR3, NEF, ARW, ORF, RW2, RAF, …) through LibRaw (LGPL-2.1 or
/// CDDL-1.0, the thread-safe `libraw_r`).
///
/// A raw file holds the sensor's mosaic and, usually, a JPEG the camera made from it. When that
/// JPEG is the photo at full size (its long side at least 90% of the sensor image's), it is
/// what is scored: it is what the camera showed, and decoding it is cheap. Otherwise the
/// mosaic is developed at half size (LibRaw's half-size demosaic: each 2 × 2 block one pixel)
/// with the camera's white balance into 8-bit sRGB. The record says which (`raw`).
///
/// LibRaw 0.20 (Debian 12's) ends the process on some hostile files (a null pointer read while
/// parsing a TIFF directory, a name buffer overrun that glibc's fortify check aborts), so it
/// runs in a child process (`_CRawWorker`): a file it crashes on is an error like any other.
/// The sensor image's size is checked against the limits as soon as the child has opened the
/// file, before the rest arrives; the child is killed when the time limit passes.
enum RawDecoder {
    /// What a raw file gives.
    enum Outcome {
        /// The embedded full-size JPEG, to decode as a JPEG, turned by the raw file's orientation.
        case preview([UInt8], orientation: Orientation)
        /// The mosaic, developed at half size into the workspace (RGB, display orientation).
        case developed(StoredImage)
    }

    /// The share of the sensor image's long side a JPEG preview must reach to stand for it.
    static let fullSizeShare = 0.9

    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> Outcome {
        guard let base = data.baseAddress, data.count > 0 else { throw ImagingError(.empty, "camera raw: the file is empty") }
        guard iq_raw_load() == 0 else {
            throw .libraryMissing("camera raw", loaderSaid: iq_raw_load_error(), package: "libraw20")
        }
        var worker = try Worker(base, data.count, deadline: deadline)
        defer { worker.end() }

        let opened = try worker.message()
        if opened.kind == IQ_RAW_FAILED { throw failure(opened) }
        guard opened.kind == IQ_RAW_OPENED else { throw worker.unexpected(opened) }
        let sensor = ImageSize(width: Int(opened.a), height: Int(opened.b))
        guard sensor.width > 0, sensor.height > 0 else {
            throw ImagingError(.invalidDimensions, "camera raw: the file declares \(sensor.width)×\(sensor.height) pixels")
        }
        try options.limits.check(sensor, format: "camera raw")

        let answer = try worker.message()
        switch answer.kind {
        case IQ_RAW_PREVIEW:
            guard answer.length <= UInt64(data.count) else { throw worker.unexpected(answer) }
            var jpeg = [UInt8](repeating: 0, count: Int(answer.length))
            try jpeg.withUnsafeMutableBytes { worker.read(into: $0) }.get()
            return .preview(jpeg, orientation: orientation(opened.c))
        case IQ_RAW_DEVELOPED:
            let size = ImageSize(width: Int(answer.a), height: Int(answer.b))
            guard size.width > 0, size.height > 0, answer.length == UInt64(size.width * size.height * 3) else {
                throw worker.unexpected(answer)
            }
            try options.limits.check(size, format: "camera raw")
            var rows: Result<Void, ImagingError> = .success(())
            _ = workspace.fillStored(depth: .eight, size: size, channels: 3) { pixels, stride in
                guard let pixels else { return 1 }
                for y in 0..<size.height {
                    rows = worker.read(into: UnsafeMutableRawBufferPointer(start: pixels + y * stride, count: size.width * 3))
                    if case .failure = rows { return 1 }
                }
                return 0
            }
            try rows.get()
            // The record's size is the sensor image's (turned as LibRaw turned it), each developed
            // pixel covering 2 × 2 of it, as a JPEG decoded at half scale reports itself.
            let turned = opened.c & 4 != 0 ? ImageSize(width: sensor.height, height: sensor.width) : sensor
            let halves = (turned.width + 1) / 2 == size.width && (turned.height + 1) / 2 == size.height
            return .developed(StoredImage(
                depth: .eight, model: .rgb, storedSize: halves ? turned : size, orientation: .up, scaleDenominator: halves ? 2 : 1,
                sourceBitDepth: 8, pageCount: 1, warnings: [], resolution: nil))
        case IQ_RAW_FAILED:
            throw failure(answer)
        default:
            throw worker.unexpected(answer)
        }
    }

    /// The child process LibRaw reads the file in, and the pipe its answer comes through.
    private struct Worker {
        let fd: Int32
        let pid: pid_t
        let deadline: UInt64
        var ended = false

        init(_ data: UnsafeRawPointer, _ count: Int, deadline: UInt64) throws(ImagingError) {
            var fd: Int32 = -1, pid: pid_t = 0
            let started = iq_raw_worker_start(data, count, RawDecoder.fullSizeShare, &fd, &pid)
            guard started == 0 else {
                throw ImagingError(.outOfMemory, "camera raw: could not start the process that reads it (\(String(cString: strerror(started))))")
            }
            (self.fd, self.pid, self.deadline) = (fd, pid, deadline)
        }

        /// Fills `buffer` with the answer's next bytes; a child that stopped before giving them is
        /// an error that says how it ended.
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Void, ImagingError> {
            switch iq_raw_worker_read(fd, buffer.baseAddress, buffer.count, deadline) {
            case 0: return .success(())
            case 1: return .failure(stopped())
            case 2:
                end(killing: true)
                return .failure(ImagingError(.timeLimit, "camera raw: the time limit passed while developing"))
            case let error:
                end(killing: true)
                return .failure(ImagingError(.unreadable, "camera raw: reading the answer of LibRaw's process failed (\(String(cString: strerror(error))))"))
            }
        }

        mutating func message() throws(ImagingError) -> iq_raw_message {
            var message = iq_raw_message()
            try withUnsafeMutableBytes(of: &message) { read(into: $0) }.get()
            return message
        }

        /// The child ended its answer early: LibRaw crashed on the file, or the child could not write.
        private mutating func stopped() -> ImagingError {
            let (signal, status) = end(killing: false)
            if signal != 0 {
                let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
                return ImagingError(.corrupt, "camera raw: LibRaw crashed reading the file (\(name), signal \(signal))")
            }
            return ImagingError(.corrupt, "camera raw: LibRaw's process ended without an answer (exit status \(status))")
        }

        /// A message the child never sends in that place.
        mutating func unexpected(_ message: iq_raw_message) -> ImagingError {
            end(killing: true)
            return ImagingError(.corrupt, "camera raw: LibRaw's process answered out of order (message \(message.kind))")
        }

        /// Closes the pipe and waits for the child, killing it first when asked (or when its
        /// answer was not read to the end); returns the signal that ended it and its exit status.
        @discardableResult
        mutating func end(killing: Bool = true) -> (signal: Int32, status: Int32) {
            guard !ended else { return (0, 0) }
            ended = true
            close(fd)
            var status: Int32 = 0
            let signal = iq_raw_worker_finish(pid, killing ? 1 : 0, &status)
            return (signal, status)
        }
    }

    /// A FAILED message as an error of imgquality's kinds.
    private static func failure(_ message: iq_raw_message) -> ImagingError {
        let doing = switch message.a {
        case IQ_RAW_STAGE_OPEN: "reading the file"
        case IQ_RAW_STAGE_UNPACK: "unpacking the sensor data"
        case IQ_RAW_STAGE_PROCESS: "developing the sensor data"
        default: "making the developed image"
        }
        if message.status == IQ_RAW_UNEXPECTED_IMAGE {
            return ImagingError(.corrupt, "camera raw: LibRaw developed an image of an unexpected kind")
        }
        if message.c != 0 && message.status == LIBRAW_IO_ERROR.rawValue {
            return ImagingError(.truncated, "camera raw: the file ends early (\(doing))")
        }
        return error(message.status, doing)
    }

    /// LibRaw's `flip` (0, 3, 5, 6: none, 180°, 90° counter-clockwise, 90° clockwise) as the
    /// EXIF orientation that shows the photo upright.
    static func orientation(_ flip: Int32) -> Orientation {
        switch flip {
        case 3: .down
        case 5: .left
        case 6: .right
        default: .up
        }
    }

    /// A LibRaw status as an error of imgquality's kinds.
    private static func error(_ status: Int32, _ doing: String) -> ImagingError {
        let text = libraw_strerror(status).map { String(cString: $0) } ?? "error \(status)"
        let message = "camera raw: \(text) (\(doing))"
        switch status {
        case LIBRAW_FILE_UNSUPPORTED.rawValue: return ImagingError(.unsupportedFeature, message)
        case LIBRAW_UNSUFFICIENT_MEMORY.rawValue: return ImagingError(.outOfMemory, message)
        case LIBRAW_DATA_ERROR.rawValue, LIBRAW_IO_ERROR.rawValue: return ImagingError(.corrupt, message)
        case LIBRAW_TOO_BIG.rawValue: return ImagingError(.limitExceeded, message)
        default: return ImagingError(.corrupt, message)
        }
    }
}
