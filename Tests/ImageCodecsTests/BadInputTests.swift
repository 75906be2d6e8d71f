import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

/// The error a decode of `path` throws, or nil if it succeeds.
/// The error kinds a fixture's prefixes (every `prefixStride`-th length) and its variants with
/// one of the first `headerBytes` bytes changed give, decoded with a 1-megapixel limit (a
/// changed size can claim hundreds of megapixels from a few hundred bytes).
func mutantErrorKinds(_ name: String, prefixStride: Int = 1, headerBytes: Int) throws -> Set<ImagingErrorKind> {
    let bytes = try Fixtures.bytes(name)
    let decoder = ImageDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20), wantsRGB: true))
    var kinds: Set<ImagingErrorKind> = []
    for length in stride(from: 1, to: bytes.count, by: prefixStride) {
        do { _ = try decoder.decode(Array(bytes.prefix(length))) } catch { kinds.insert(error.kind) }
    }
    for at in 0..<min(headerBytes, bytes.count) {
        var mutant = bytes
        mutant[at] ^= 0x5A
        do { _ = try decoder.decode(mutant) } catch { kinds.insert(error.kind) }
    }
    return kinds
}

func decodeError(_ path: String, options: DecodeOptions = DecodeOptions()) -> ImagingError? {
    do {
        _ = try ImageDecoder(options: options).decode(contentsOf: path)
        return nil
    } catch {
        return error
    }
}

@Suite("Bad input gets a specific error")
struct BadInputTests {
    @Test func emptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("empty.jpg", [])
        #expect(decodeError(path)?.kind == .empty)
        #expect(throws: ImagingError(.empty, "no bytes to decode")) { try ImageDecoder().decode([]) }
    }

    @Test func missingFile() {
        let error = decodeError(Fixtures.path("png/no-such-file.png"))
        #expect(error?.kind == .notFound)
        #expect(error?.code == "input.notFound")
    }

    @Test func directory() {
        #expect(decodeError(Fixtures.path("png"))?.kind == .isDirectory)
    }

    @Test func unreadableFile() throws {
        // As root, permissions do not stop a read; /proc/self/mem refuses reads at offset 0 with EIO.
        let path: String
        let directory = try TemporaryDirectory()
        if getuid() == 0 {
            path = "/proc/self/mem"
        } else {
            path = try directory.copy(fixture: "png/gray8.png", to: "locked.png")
            chmod(path, 0)
        }
        let error = decodeError(path)
        #expect(error?.kind == .unreadable, "\(String(describing: error))")
    }

    @Test func textIsNotAnImage() {
        let error = decodeError(Fixtures.path("other/not-an-image.txt"))
        #expect(error?.kind == .notAnImage)
        #expect(error?.message.contains("looks like text") == true)
        #expect(error?.message.hasPrefix("not a JPEG, PNG, TIFF, WebP, HEIF, AVIF, GIF, BMP, JPEG XL, PDF or camera raw file: first bytes 54 68 69 73") == true)
    }

    @Test(arguments: [("other/jpeg2000.jp2", "JPEG 2000")])
    func recognisedButUnsupportedFormats(_ name: String, _ format: String) {
        let error = decodeError(Fixtures.path(name))
        #expect(error?.kind == .unsupportedFormat)
        #expect(error?.message == "\(format) image: imgquality decodes JPEG, PNG, TIFF, WebP, HEIF, AVIF, GIF, BMP, JPEG XL, PDF and camera raw")
    }

    @Test func formatComesFromMagicBytesNotTheName() throws {
        let directory = try TemporaryDirectory()
        let png = try directory.copy(fixture: "png/gray8.png", to: "really-a-png.jpg")
        let image = try ImageDecoder().decode(contentsOf: png)
        #expect(image.format == .png)
        let text = try directory.copy(fixture: "other/not-an-image.txt", to: "fake.jpg")
        #expect(decodeError(text)?.kind == .notAnImage)
    }

    @Test func truncatedPNG() {
        let error = decodeError(Fixtures.path("png/truncated.png"))
        #expect(error?.kind == .truncated, "\(String(describing: error))")
    }

    @Test func corruptPNGData() {
        let error = decodeError(Fixtures.path("png/bad-crc.png"))
        #expect(error?.kind == .corrupt, "\(String(describing: error))")
    }

    @Test func absurdPNGDimensionsAreRefusedBeforeAllocation() {
        let error = decodeError(Fixtures.path("png/huge-dimensions.png"))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message.contains("100000×100000") == true)
    }

    @Test(arguments: ["jpeg/huge-dimensions.jpg", "png/huge-dimensions.png", "tiff/huge-dimensions.tif"])
    func bombsAreRefusedFromTheHeaderNamingTheLimitAndItsFlag(_ fixture: String) throws {
        // A few hundred bytes claiming gigapixels.
        #expect(try Fixtures.bytes(fixture).count < 1024)
        let error = decodeError(Fixtures.path(fixture))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message.contains("above the limit of 268435456 (raise it with --max-pixels)") == true, "\(String(describing: error))")
    }

    @Test func aTileClaimingMorePixelsThanTheLimitIsRefusedBeforeItsBufferExists() throws {
        // Found by the TIFF fuzzer: a 64 × 12 096 image whose tiles are 16 656 × 65 520, for which
        // the decoder allocated a 3.3 GB tile buffer.
        let path = Fixtures.repositoryPath("Fuzz/Regressions/tiff/tile-of-a-gigapixel.tif")
        let error = decodeError(path)
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "TIFF: a tile declares 16656×65520 pixels, above the limit of 268435456 (raise it with --max-pixels)")
    }

    @Test(arguments: ["slow/zeros-8000.png", "slow/zeros-8000.tif", "slow/zeros-8000.webp"])
    func aDecodeThatOutlastsTheTimeLimitFailsNamingTheLimitAndItsFlag(_ fixture: String) throws {
        // 64 megapixels from a small file: inflating them takes libpng, libtiff and libwebp far longer than 5 ms.
        #expect(try Fixtures.bytes(fixture).count < 100_000)
        let options = DecodeOptions(limits: DecodeLimits(timeLimit: .milliseconds(5)))
        let error = decodeError(Fixtures.path(fixture), options: options)
        #expect(error?.kind == .timeLimit, "\(String(describing: error))")
        #expect(error?.message.contains("took longer than the time limit of 0.005 s (raise it with --time-limit)") == true)
    }

    @Test func aFIFOWithNoWriterFailsAtTheTimeLimit() throws {
        // Opening a FIFO for reading waits for a writer; none comes, and the read ends at the limit.
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/fifo.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let options = DecodeOptions(limits: DecodeLimits(timeLimit: .milliseconds(100)))
        let error = decodeError(fifo, options: options)
        #expect(error?.kind == .timeLimit, "\(String(describing: error))")
        #expect(error?.message == "reading the file: took longer than the time limit of 0.1 s (raise it with --time-limit)")
    }

    @Test func aFIFOIsReadAsItsWriterSendsTheImage() throws {
        // The writer connects after the reader and sends the file in two parts with a pause
        // between them: the read waits for each and ends when the writer closes.
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/fifo.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = try Fixtures.bytes("png/gray8.png")
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            let half = bytes.count / 2
            bytes.withUnsafeBytes { all in
                _ = write(fd, all.baseAddress, half)
                usleep(50_000)
                _ = write(fd, all.baseAddress! + half, all.count - half)
            }
            close(fd)
        }
        writer.start()
        let options = DecodeOptions(limits: DecodeLimits(timeLimit: .seconds(20)))
        let image = try ImageDecoder(options: options).decode(contentsOf: fifo)
        #expect(image.luma.size == ImageSize(width: 37, height: 23))
    }

    @Test func aJPEGDecodeThatOutlastsTheTimeLimitFails() throws {
        // A 64-megapixel JPEG decoded whole: libjpeg's progress monitor sees the deadline pass.
        let bytes = try JPEGEncoder.encode(PixelBuffer<UInt8>(width: 8000, height: 8000, channels: 1), quality: 50)
        let options = DecodeOptions(limits: DecodeLimits(timeLimit: .milliseconds(5)))
        do {
            _ = try ImageDecoder(options: options).decode(bytes)
            Issue.record("a 64-megapixel JPEG decoded within 5 ms")
        } catch {
            #expect(error.kind == .timeLimit, "\(error)")
            #expect(error.message.hasPrefix("JPEG: took longer than the time limit"))
        }
        // No limit: the same file decodes.
        let unlimited = DecodeOptions(limits: DecodeLimits(timeLimit: nil), scale: .reduced(denominator: 8))
        #expect(try ImageDecoder(options: unlimited).decode(bytes).luma.size == ImageSize(width: 1000, height: 1000))
    }

    @Test func pixelLimitIsConfigurable() throws {
        let limits = DecodeLimits(maxPixels: 37 * 23 - 1)
        #expect(decodeError(Fixtures.path("png/gray8.png"), options: DecodeOptions(limits: limits))?.kind == .tooManyPixels)
        #expect(decodeError(Fixtures.path("png/gray8.png"), options: DecodeOptions(limits: DecodeLimits(maxPixels: 37 * 23))) == nil)
    }

    @Test func fileSizeLimit() {
        let options = DecodeOptions(limits: DecodeLimits(maxFileBytes: 100))
        let error = decodeError(Fixtures.path("png/gray8.png"), options: options)
        #expect(error?.kind == .fileTooLarge)
    }

    @Test func aFileOfSeveralReadsIsReadWholeUpToItsLimit() throws {
        // A JPEG followed by 2.5 MiB of padding (ignored after its end marker): the file is
        // read in three reads straight into its buffer, and decodes as its bytes do in memory.
        let bytes = try Fixtures.bytes("jpeg/gray.jpg") + [UInt8](repeating: 0xA5, count: 5 << 19)
        let directory = try TemporaryDirectory()
        let path = try directory.write("padded.jpg", bytes)
        let fromFile = try ImageDecoder().decode(contentsOf: path)
        let fromMemory = try ImageDecoder().decode(bytes)
        #expect(fromFile.luma == fromMemory.luma)
        #expect(fromFile.luma.width == 64)
        #expect(decodeError(path, options: DecodeOptions(limits: DecodeLimits(maxFileBytes: bytes.count))) == nil)
        let tooLarge = decodeError(path, options: DecodeOptions(limits: DecodeLimits(maxFileBytes: bytes.count - 1)))
        #expect(tooLarge?.kind == .fileTooLarge)
        #expect(tooLarge?.message == "the file has \(bytes.count) bytes, above the limit of \(bytes.count - 1) (raise it with --max-file-size)")
    }

    @Test func aPageBeyondTheFirstOfASinglePageFormat() {
        #expect(decodeError(Fixtures.path("png/gray8.png"), options: DecodeOptions(pageIndex: 1))?.kind == .pageOutOfRange)
        #expect(decodeError(Fixtures.path("jpeg/gray.jpg"), options: DecodeOptions(pageIndex: 1))?.kind == .pageOutOfRange)
    }

    @Test func truncationAtEveryLengthNeverCrashes() throws {
        // Every prefix of a real file gives an image or a specific decode error.
        for name in ["jpeg/progressive.jpg", "png/palette8-interlaced.png", "tiff/rgb8-tile-lzw.tif"] {
            let bytes = try Fixtures.bytes(name)
            let decoder = ImageDecoder()
            for length in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 97)) {
                do {
                    _ = try decoder.decode(Array(bytes[0..<length]))
                } catch {
                    #expect(error.code.hasPrefix("decode."), "\(name)[0..<\(length)]: \(error)")
                }
            }
        }
    }
}
