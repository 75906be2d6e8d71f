import ImagingCore

/// The limits every fuzz target decodes with.
public enum FuzzLimits {
    /// 16 megapixels (2²⁴) instead of the product's 256 MP: a 30-byte header may legitimately
    /// claim 256 MP, and decoding that (a 256 MiB plane, more for RGB, 16-bit or libtiff's RGBA
    /// raster, all under ASan) would be reported as an out-of-memory crash or make each run take
    /// seconds. Claims above 16 MP are refused before allocation, so the refusal path is still
    /// fuzzed. File size and progressive-scan limits keep the product's defaults.
    public static let decode = DecodeLimits(maxPixels: 1 << 24)
}
