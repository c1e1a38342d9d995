/// BMP writing of our own: gdk-pixbuf's saver writes 24 bits only and drops alpha (transparent
/// became black). A picture with alpha is written as 32-bit BGRA with a version 4 header and
/// bit masks (what Windows, browsers, GIMP and gdk-pixbuf read back with alpha); one without as
/// plain 24-bit BGR.
enum BMPEncoder {
    static func encode(_ image: Image) throws -> [UInt8] {
        let alpha = image.hasAlpha
        let bytesPerPixel = alpha ? 4 : 3
        let rowLength = (image.width * bytesPerPixel + 3) & ~3
        let headerLength = alpha ? 108 : 40
        let offset = 14 + headerLength
        let total = offset + rowLength * image.height
        guard total <= Int(UInt32.max) else { throw ImageError(.unwritable, reason: "BMP holds at most 4 GB; this picture is \(image.size)") }
        var bmp = [UInt8]()
        bmp.reserveCapacity(total)
        func little32(_ value: UInt32) { bmp += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)] }
        func little16(_ value: UInt16) { bmp += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        bmp += Array("BM".utf8)
        little32(UInt32(total)); little32(0); little32(UInt32(offset))
        little32(UInt32(headerLength)); little32(UInt32(image.width)); little32(UInt32(image.height)) // positive: bottom-up
        little16(1); little16(UInt16(bytesPerPixel * 8))
        little32(alpha ? 3 : 0) // BI_BITFIELDS with alpha, else BI_RGB
        little32(UInt32(rowLength * image.height))
        little32(2835); little32(2835) // 72 dpi
        little32(0); little32(0)
        if alpha {
            little32(0x00FF_0000); little32(0x0000_FF00); little32(0x0000_00FF); little32(0xFF00_0000)
            little32(0x7352_4742) // 'sRGB' color space
            bmp += [UInt8](repeating: 0, count: 36 + 12) // endpoints and gamma, unused with sRGB
        }
        let padding = [UInt8](repeating: 0, count: rowLength - image.width * bytesPerPixel)
        for y in stride(from: image.height - 1, through: 0, by: -1) {
            let row = image.row(y)
            for x in 0..<image.width {
                let i = x * image.channelCount
                bmp.append(row[i + 2]); bmp.append(row[i + 1]); bmp.append(row[i])
                if alpha { bmp.append(row[i + 3]) }
            }
            bmp += padding
        }
        return bmp
    }
}
