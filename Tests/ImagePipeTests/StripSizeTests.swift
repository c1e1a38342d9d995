import Testing
@testable import ImagePipe
@testable import ImagePipeCore

/// How tall a streamed level's strips are follows the bytes of its rows, not only its stage: a
/// photo's strips keep every core busy, a panorama's stay a few MiB, so that what a chain holds
/// follows the picture's shape and not its width.
@Suite struct StripSizeTests {
    /// Every row the chain holds beside the decoder's own: the decode ring and each level's
    /// ring, window and tiles.
    static func heldBytes(_ transforms: [any Transform], _ size: Size) throws -> Int {
        let levels = try #require(StripChain.levels(of: transforms, size: size))
        let rowStride = size.width * 3, strip = Pipeline.streamedStripRows
        let ring = Pipeline.ringRows(rowStride: rowStride, height: size.height,
                                     holding: try StripChain.decodeRingNeeds(levels, size: size, rowStride: rowStride, decodeStrip: strip))
        let levelBytes = try StripChain.levelBytes(levels, size: size, rowStride: rowStride, decodeStrip: strip, writeBehind: false)
        return (ring == 0 ? size.height : ring) * rowStride + levelBytes.reduce(0, +)
    }

    /// A 65000×1000 panorama through a 9-row box (`blur 3`'s reach): strips of one decode strip,
    /// and some 40 MiB of rows in all, where strips of a photo's 160 rows held 116 MiB.
    @Test func aPanoramasStripsFollowItsBytes() throws {
        let size = Size(65000, 1000), rowStride = 65000 * 3
        let layouts = try StripChain.layouts(of: try #require(StripChain.levels(of: [StripBox(radius: 9)], size: size)), size: size,
                                             rowStride: rowStride, decodeStrip: Pipeline.streamedStripRows)
        #expect(layouts[1].strip == Pipeline.streamedStripRows, "\(layouts[1])")
        #expect(layouts[1].strip * rowStride <= 2 * StripChain.stripBytes)
        let held = try Self.heldBytes([StripBox(radius: 9)], size)
        #expect(held < 48 << 20, "\(held >> 20) MiB")
    }

    /// A photo's strips are what the cores need, as before: the byte bound is far above them.
    @Test func aPhotosStripsKeepEveryCoreBusy() throws {
        let size = Size(5472, 3648)
        let layouts = try StripChain.layouts(of: try #require(StripChain.levels(of: [StripBox(radius: 9)], size: size)), size: size,
                                             rowStride: size.width * 3, decodeStrip: Pipeline.streamedStripRows)
        #expect(layouts[1].strip == StripChain.areaStripRows(radius: 9, rowBytes: 0) && layouts[1].strip >= 128, "\(layouts[1])")
    }

    /// Fifty area stages on a photo share the bytes out: each level's strips are 16 rows (a
    /// multiple of 8 below a decode strip, at least four times the radius) and the chain holds
    /// some 60 MiB, where decode strips held 110 and a photo's 160-row strips each 543 MB.
    @Test func aDeepChainSharesTheBytesOut() throws {
        let size = Size(5472, 3648)
        let chain = (0..<50).map { _ in StripBox(radius: 3) }
        let layouts = try StripChain.layouts(of: try #require(StripChain.levels(of: chain, size: size)), size: size,
                                             rowStride: size.width * 3, decodeStrip: Pipeline.streamedStripRows)
        #expect(layouts.dropFirst().allSatisfy { $0.strip == 16 }, "\(layouts.map(\.strip))")
        let held = try Self.heldBytes(chain, size)
        #expect(held < 72 << 20, "\(held >> 20) MiB")
        // A wide radius keeps its strips at least four radii tall.
        #expect(StripChain.areaStripRows(radius: 6, rowBytes: 1 << 20) == 24 && StripChain.areaStripRows(radius: 20, rowBytes: 1 << 20) == 32)
    }

    /// A 327-megapixel picture reduced 20× after an area stage: the reduction's window reads
    /// some hundreds of rows and not a thousand, and its strips go below a decode strip.
    @Test func aLargeReductionsWindowFollowsItsBytes() throws {
        let size = Size(21888, 14592), rowStride = size.width * 3
        let transforms: [any Transform] = [StripBox(radius: 9), TestScale(size: Size(1080, 720), kernel: .lanczos3)]
        let layouts = try StripChain.layouts(of: try #require(StripChain.levels(of: transforms, size: size)), size: size,
                                             rowStride: rowStride, decodeStrip: Pipeline.streamedStripRows)
        #expect(layouts[2].strip < Pipeline.streamedStripRows && layouts[2].strip % 8 == 0, "\(layouts[2])")
        #expect(layouts[2].window * rowStride <= 6 * StripChain.stripBytes, "\(layouts[2])")
        let held = try Self.heldBytes(transforms, size)
        #expect(held < 72 << 20, "\(held >> 20) MiB")
    }
}
