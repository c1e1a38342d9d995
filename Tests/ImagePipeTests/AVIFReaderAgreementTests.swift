import CAvif
import Foundation
@testable import ImagePipe
@testable import ImagePipeCore
import Testing
import TestSupport

/// AVIF read and written as libavif's readers (Chromium's, Pillow's) read it: the alpha written
/// is full range, a BT.709 sequence keeps its colors, a sequence is read by its track whatever
/// its brands, and a layered picture is its operating point's layer at the size its header says.
struct AVIFReaderAgreementTests {
    /// An alpha ramp, 0 to 255 across, over a flat color.
    static func alphaRamp() throws -> Image {
        try Synthetic.image(256, 16, alpha: true) { x, _ in Color(red: 200, green: 100, blue: 50, alpha: UInt8(x)) }
    }

    /// libavif's alpha planes of every frame of `bytes` (the primary item alone for a still),
    /// with libavif's own reading of the alpha's range: a plane coded as limited range is
    /// expanded, as every libavif-based reader expands it.
    static func libavifAlpha(_ bytes: [UInt8], source: avifDecoderSource = AVIF_DECODER_SOURCE_AUTO) throws -> [[UInt8]] {
        let decoder = try #require(avifDecoderCreate())
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.requestedSource = source
        return try bytes.withUnsafeBufferPointer { buffer in
            #expect(avifDecoderSetIOMemory(decoder, buffer.baseAddress, buffer.count) == AVIF_RESULT_OK)
            #expect(avifDecoderParse(decoder) == AVIF_RESULT_OK)
            var planes: [[UInt8]] = []
            while avifDecoderNextImage(decoder) == AVIF_RESULT_OK {
                let image = decoder.pointee.image.pointee
                let alpha = try #require(image.alphaPlane)
                planes.append((0..<Int(image.height)).flatMap { y in Array(UnsafeBufferPointer(start: alpha + y * Int(image.alphaRowBytes), count: Int(image.width))) })
            }
            return planes
        }
    }

    @Test(arguments: [SaveOptions(quality: 50), SaveOptions(quality: 90, chroma: .c444), SaveOptions(lossless: true)])
    func alphaWrittenIsFullRangeAsLibavifReadsIt(options: SaveOptions) throws {
        let ramp = try Self.alphaRamp()
        let expected = (0..<ramp.height).flatMap { _ in (0..<256).map(UInt8.init) }
        let still = try ramp.encoded(as: .avif, options: options)
        #expect(try Self.libavifAlpha(still) == [expected], "a still's alpha, \(options)")
        let sequence = AVIFAnimationEncoder(options: options)
        try sequence.add(ramp, delay: 100)
        try sequence.add(ramp, delay: 100)
        let frames = try Self.libavifAlpha(sequence.finish().joined, source: AVIF_DECODER_SOURCE_TRACKS)
        #expect(frames == [expected, expected], "a sequence's alpha, \(options)")
    }

    /// Four flat patches with alpha, the first transparent.
    static let patches = [Color(red: 40, green: 120, blue: 220, alpha: 0), Color(red: 40, green: 120, blue: 220),
                          Color(red: 230, green: 200, blue: 30), Color(red: 90, green: 40, blue: 160, alpha: 128)]

    /// A two-frame sequence in BT.709, limited range, 4:2:0, with alpha, each frame the four
    /// patches side by side (16×16 each), its samples coded losslessly: only the conversions
    /// to and from RGB move a color.
    static func bt709Sequence(brands: [String: String] = [:]) throws -> [UInt8] {
        let encoder = try #require(avifEncoderCreate())
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = 0
        encoder.pointee.maxQuantizer = 0
        encoder.pointee.speed = 8
        for _ in 0..<2 {
            let avif = try #require(avifImageCreate(64, 16, 8, AVIF_PIXEL_FORMAT_YUV420))
            defer { avifImageDestroy(avif) }
            avif.pointee.yuvRange = AVIF_RANGE_LIMITED
            avif.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_BT709)
            avif.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
            avif.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
            avifImageAllocatePlanes(avif, avifPlanesFlags(AVIF_PLANES_ALL.rawValue))
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, avif)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            avifRGBImageAllocatePixels(&rgb)
            defer { avifRGBImageFreePixels(&rgb) }
            for y in 0..<16 {
                for x in 0..<64 {
                    let color = patches[x / 16], pixel = rgb.pixels + y * Int(rgb.rowBytes) + x * 4
                    (pixel[0], pixel[1], pixel[2], pixel[3]) = (color.red, color.green, color.blue, color.alpha)
                }
            }
            #expect(avifImageRGBToYUV(avif, &rgb) == AVIF_RESULT_OK)
            #expect(avifEncoderAddImage(encoder, avif, 1, avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue)) == AVIF_RESULT_OK)
        }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        #expect(avifEncoderFinish(encoder, &output) == AVIF_RESULT_OK)
        var bytes = Array(UnsafeBufferPointer(start: output.data, count: output.size))
        // Brands swapped in place in the `ftyp` box (major brand, minor version, compatible brands).
        let ftypSize = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        for offset in stride(from: 8, to: ftypSize, by: 4) where offset != 12 {
            let brand = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            if let replacement = brands[brand] { bytes.replaceSubrange(offset..<offset + 4, with: Array(replacement.utf8)) }
        }
        return bytes
    }

    /// libavif 0.11's libyuv shortcut rounded BT.709's blue: every frame's patches come back
    /// within 2 levels of what was written, blue too (it was 6–7 low).
    @Test func aBT709SequenceKeepsItsColors() throws {
        let bytes = try Self.bt709Sequence()
        let decoder = try #require(try AnimationDecoding.decoder(for: bytes, format: .avif, failOnDamage: true, path: nil))
        var frames = 0
        while let frame = try decoder.next() {
            frames += 1
            for (index, patch) in Self.patches.enumerated() where patch.alpha > 0 {
                let got = frame.image.pixel(x: index * 16 + 8, y: 8)
                #expect(Synthetic.close(got, patch, tolerance: 2), "frame \(frames), patch \(index): \(got) where \(patch) was written")
            }
        }
        #expect(frames == 2)
    }

    /// A sequence whose brands say nothing of a still image (Chromium plays such `.avifs`):
    /// libheif refuses it, libavif reads its track, and every command sees its frames.
    @Test func aSequenceWithoutStillBrandsIsReadByItsTrack() throws {
        let bytes = try Self.bt709Sequence(brands: ["avif": "avis", "mif1": "iso8", "miaf": "iso8"])
        let brands = stride(from: 16, to: bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }, by: 4).map { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) }
        #expect(!brands.contains("avif") && !brands.contains("mif1") && brands.contains("avis"), "\(brands)")
        #expect(ImageFormat.sniff(bytes) == .avif)
        let header = try AVIFCodec().header(of: bytes, options: LoadOptions(), path: nil)
        #expect(header.storedSize == Size(64, 16) && header.frameCount == 2)
        let facts = AVIFCodec().codingFacts(of: bytes)
        #expect(facts.hasAlpha == true && facts.delays.count == 2)
        let still = try Image.decode(bytes)
        #expect(still.size == Size(64, 16) && still.hasAlpha)
        #expect(Synthetic.close(still.pixel(x: 40, y: 8), Self.patches[2], tolerance: 2), "\(still.pixel(x: 40, y: 8))")
    }

    /// AV1 and its profiles' brands alone say AVIF, without `avif` or `avis`.
    @Test func av1BrandsAloneSniffAsAVIF() {
        for brands in [["msf1", "iso8", "av01"], ["msf1", "MA1B", "iso8"]] {
            let payload = Array("msf1".utf8) + [0, 0, 0, 0] + brands.flatMap { Array($0.utf8) }
            let ftyp = [0, 0, 0, UInt8(8 + payload.count)] + Array("ftyp".utf8) + payload
            #expect(ImageFormat.sniff(ftyp + [UInt8](repeating: 0, count: 16)) == .avif, "\(brands)")
        }
        let heic = [0, 0, 0, 20] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        #expect(ImageFormat.sniff(heic) == .heif)
    }

    /// Xiph's 3-layer picture (Tests/Fixtures/avif): its operating point and `lsel` choose layer
    /// 0, 360×182, which its header says; libheif decoded layer 2, 1436×730.
    @Test func aLayeredAVIFIsItsOperatingPointsLayer() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/avif/quebec_3layer_op2.avif").path
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(AVIFStillDecoder.isLayered(bytes))
        let header = try AVIFCodec().header(of: bytes, options: LoadOptions(), path: nil)
        #expect(header.storedSize == Size(360, 182) && header.frameCount == 1)
        let decoded = try Image.load(path: path)
        #expect(decoded.size == header.storedSize)
        // A night picture of a lit bridge: not one flat color (a failed or blank decode).
        let levels = Set((0..<decoded.height).map { decoded.pixel(x: decoded.width / 2, y: $0).red })
        #expect(levels.count > 20)
        // A picture without layers is not taken for one.
        #expect(!AVIFStillDecoder.isLayered(try Self.alphaRamp().encoded(as: .avif)))
    }
}
