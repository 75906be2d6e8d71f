import Foundation
import ImageCodecs
import ImageKernels
import ImagingCore

/// How reports write numbers: the contact sheet, the calibration report and their plots.
package enum ReportNumber {
    /// `value` with `digits` decimals ("—" when missing or not finite), for table cells and
    /// plot coordinates.
    package static func fixed(_ value: Double?, _ digits: Int = 3) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: "%.\(digits)f", value)
    }

    /// Up to 4 decimals, without trailing zeros (`0.5`, `12`, `0.125`).
    package static func short(_ value: Double) -> String {
        var text = String(format: "%.4f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// A command line as a report shows it, so a person can paste it into a shell.
package enum CommandText {
    /// `words` joined by spaces, each quoted for a POSIX shell when it holds anything
    /// but letters, digits and `-_./=,:%+@`: in single quotes, a quote inside as `'\''`.
    package static func quoted(_ words: [String]) -> String {
        words.map { word in
            !word.isEmpty && word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./=,:%+@".contains($0) })
                ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// This process's command line as `imgquality …`, quoted.
    package static var current: String { quoted(["imgquality"] + CommandLine.arguments.dropFirst()) }
}

/// Thumbnails for reports, made from pixels already decoded.
package enum Thumbnail {
    /// `rgb` (or `luma` without it) area-resampled so its long side is at most `longSide`,
    /// JPEG-encoded at quality 80; nil for an empty or unsupported buffer, or when encoding fails.
    package static func jpeg(luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>?, longSide: Int) -> [UInt8]? {
        let source = rgb ?? luma
        guard source.width > 0, source.height > 0, source.channels == 1 || source.channels == 3 else { return nil }
        let size = AreaResample.size(fitting: source.size, longSide: longSide)
        let small = source.channels == 3 ? AreaResample.resize(interleaved: source, to: size) : AreaResample.resize(source, to: size)
        return try? JPEGEncoder.encode(small, quality: 80)
    }

    /// The thumbnail of the image file at `path`, decoded for it (for images no pass decoded,
    /// such as those a scores file names): colour, in display orientation.
    package static func jpeg(ofFile path: String, longSide: Int) -> [UInt8]? {
        let decoder = ImageDecoder(options: DecodeOptions(wantsRGB: true, scale: .atLeast(shortSide: longSide)))
        guard let image = try? decoder.decode(contentsOf: path) else { return nil }
        return jpeg(luma: image.luma.eightBit, rgb: image.rgb?.eightBit, longSide: longSide)
    }
}
