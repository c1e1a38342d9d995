import CImagePipePlugin

/// A plugin's stage whose output pixels come from input pixels anywhere (its table's `warp`:
/// `warps`, `input_rect`, `render`): a streamed run keeps its input in the tile cache and makes
/// its output in rectangles, as it does for a compiled-in `WarpingStage`.
extension ExternalStage: WarpingStage {
    func warps(_ input: Size) -> Bool {
        guard let warpFields, input.width <= Int(Int32.max), input.height <= Int(Int32.max) else { return false }
        return warpFields.warps(handle.stage, Int32(input.width), Int32(input.height)) == 1
    }

    func inputRect(forOutput rect: Rect, inputSize input: Size) throws -> Rect? {
        guard let warpFields else { throw StageError("the plugin's stage does not warp") }
        try Self.checkInterfaceSize(input)
        var output = Self.interface(rect), named = imagepipe_rect()
        let answer = try handle.call { error -> Int32? in
            let answer = warpFields.inputRect(handle.stage, &output, Int32(input.width), Int32(input.height), &named, error)
            return answer < 0 ? nil : answer
        }
        guard answer == 1 else { return nil }
        let found = Rect(x: Int(named.x), y: Int(named.y), width: Int(named.width), height: Int(named.height))
        guard found.width > 0, found.height > 0, found.x >= 0, found.y >= 0, found.x + found.width <= input.width,
              found.y + found.height <= input.height else {
            throw StageError("the plugin named \(found) of a \(input) picture as the input of \(rect)")
        }
        return found
    }

    func render(_ rect: Rect, from source: Image?, at sourceRect: Rect?, inputSize input: Size) throws -> Image {
        guard let warpFields else { throw StageError("the plugin's stage does not warp") }
        try Self.checkInterfaceSize(input)
        var output = Self.interface(rect), given = sourceRect.map(Self.interface) ?? imagepipe_rect()
        let width = Int32(input.width), height = Int32(input.height)
        let made = try inContext { context in try handle.call { error in
            guard let source, sourceRect != nil else { return warpFields.render(handle.stage, context, &output, nil, nil, width, height, error) }
            return warpFields.render(handle.stage, context, &output, UnsafeMutableRawPointer(source.pixbuf), &given, width, height, error)
        } }
        return Image(adopting: OpaquePointer(made))
    }

    private static func interface(_ rect: Rect) -> imagepipe_rect {
        imagepipe_rect(x: Int32(rect.x), y: Int32(rect.y), width: Int32(rect.width), height: Int32(rect.height))
    }
}
