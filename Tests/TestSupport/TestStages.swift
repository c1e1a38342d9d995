import ImagePipe

/// `crop WxH [at=x,y]`: a plain crop, so framework tests have a transform with geometry that can fail.
public struct TestCrop: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("crop", summary: "Cut a rectangle (test stage)", start: TestCrop(size: Size(1, 1)), [
        Param(\.size, "size", .size(max: 100_000), positional: true, help: "The rectangle's size."),
        Param(\.origin, "at", .point, default: .zero, help: "Its top-left corner."),
    ])
    public var size: Size
    public var origin = Point.zero

    private func rect(for input: Size) throws -> Rect {
        let rect = Rect(x: Int(origin.x), y: Int(origin.y), width: size.width, height: size.height)
        guard rect.isInside(input) else { throw StageError("\(rect) lies outside the \(input) picture") }
        return rect
    }

    public func outputSize(for input: Size) throws -> Size { try rect(for: input).size }
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.cropped(to: rect(for: input.pixels.size)) }
}

/// `half`: halves both sides, rounding up.
public struct TestHalf: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("half", summary: "Halve the size (test stage)", start: TestHalf(), [])
    public init() {}
    public func outputSize(for input: Size) -> Size { Size((input.width + 1) / 2, (input.height + 1) / 2) }
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.scaled(to: outputSize(for: input.pixels.size)) }
}

/// `every-type …`: one parameter of every type, for schema tests.
public struct TestEveryType: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("every-type", summary: "One parameter of each type (test stage)", start: TestEveryType(), [
        Param(\.count, "count", .integer(1...10), default: 1, positional: true, help: "An integer."),
        Param(\.ratio, "ratio", .number(0...2), default: 1, help: "A number."),
        Param(\.box, "box", .size(max: 1000), default: Size(10, 10), help: "A size."),
        Param(\.spot, "spot", .point, default: .zero, help: "A point."),
        Param(\.anchor, "anchor", .anchor, default: .center, help: "An anchor."),
        Param(\.tint, "tint", .color, default: .black, help: "A colour."),
        Param(\.turn, "turn", .angle(-360...360), default: .zero, help: "An angle."),
        Param(\.share, "share", .percentage(0...100), default: 50, help: "A percentage."),
        Param(\.mode, "mode", .choice(["fast", "best"]), default: "fast", help: "A choice."),
        Param(\.flag, "flag", .boolean, default: false, help: "A boolean."),
        Param(\.label, "label", .string, default: "", help: "Text."),
        Param(\.file, "file", .path, help: "A path."),
        Param(\.dash, "dash", .numbers(count: 2...4, each: 0...100), default: [4, 4], help: "Numbers."),
    ])
    // The start stage must hold the declared defaults (the declaration checks it).
    public var count = 1, ratio = 1.0, box = Size(10, 10), spot = Point.zero, anchor = Anchor.center, tint = Color.black
    public var turn = Angle.zero, share = 50.0, mode = "fast", flag = false, label = "", file: String?, dash: [Double] = [4, 4]
    public func outputSize(for input: Size) -> Size { input }
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { input.pixels }
}

public enum TestRegistry {
    public static let plugin = Plugin(name: "test", summary: "Stages for tests", stages: [TestCrop.self, TestHalf.self, TestEveryType.self])
    public static var registry: Registry { Registry(plugins: [Registry.core, plugin]) }
    public static var compiler: PipelineCompiler { PipelineCompiler(registry: registry) }
}
