import ImagePipe

/// `crop WxH [at=x,y]`: a plain crop, so framework tests have a transform with geometry that can fail.
public struct TestCrop: Transform {
    public static let schema = Schema(name: "crop", summary: "Cut a rectangle (test stage)", parameters: [
        Parameter("size", .size(max: 100_000), required: true, positional: true, help: "The rectangle's size."),
        Parameter("at", .point, default: .point(.zero), help: "Its top-left corner."),
    ])
    public var size: Size
    public var origin: Point

    public init(arguments: Arguments) {
        size = arguments.size("size")
        origin = arguments.point("at")
    }

    public var arguments: Arguments { Arguments(["size": .size(size), "at": .point(origin)]) }

    private func rect(for input: Size) throws -> Rect {
        let rect = Rect(x: Int(origin.x), y: Int(origin.y), width: size.width, height: size.height)
        guard rect.isInside(input) else { throw StageError("\(rect) lies outside the \(input) picture") }
        return rect
    }

    public func outputSize(for input: Size) throws -> Size { try rect(for: input).size }
    public func apply(to image: Image) throws -> Image { try image.cropped(to: rect(for: image.size)) }
}

/// `half`: halves both sides, rounding up.
public struct TestHalf: Transform {
    public static let schema = Schema(name: "half", summary: "Halve the size (test stage)", parameters: [])
    public init() {}
    public init(arguments: Arguments) {}
    public var arguments: Arguments { Arguments() }
    public func outputSize(for input: Size) -> Size { Size((input.width + 1) / 2, (input.height + 1) / 2) }
    public func apply(to image: Image) throws -> Image { try image.scaled(to: outputSize(for: image.size)) }
}

/// `every-type …`: one parameter of every type, for schema tests.
public struct TestEveryType: Transform {
    public static let schema = Schema(name: "every-type", summary: "One parameter of each type (test stage)", parameters: [
        Parameter("count", .integer(1...10), default: .integer(1), positional: true, help: "An integer."),
        Parameter("ratio", .number(0...2), default: .number(1), help: "A number."),
        Parameter("box", .size(max: 1000), default: .size(Size(10, 10)), help: "A size."),
        Parameter("spot", .point, default: .point(.zero), help: "A point."),
        Parameter("anchor", .anchor, default: .anchor(.center), help: "An anchor."),
        Parameter("tint", .color, default: .color(.black), help: "A colour."),
        Parameter("turn", .angle(-360...360), default: .angle(.zero), help: "An angle."),
        Parameter("share", .percentage(0...100), default: .percentage(50), help: "A percentage."),
        Parameter("mode", .choice(["fast", "best"]), default: .choice("fast"), help: "A choice."),
        Parameter("flag", .boolean, default: .boolean(false), help: "A boolean."),
        Parameter("label", .string, default: .string(""), help: "Text."),
        Parameter("file", .path, help: "A path."),
        Parameter("dash", .numbers(count: 2...4, each: 0...100), default: .numbers([4, 4]), help: "Numbers."),
    ])
    public var values: Arguments
    public init(arguments: Arguments) { values = arguments }
    public var arguments: Arguments { values }
    public func outputSize(for input: Size) -> Size { input }
    public func apply(to image: Image) -> Image { image }
}

public enum TestRegistry {
    public static let plugin = Plugin(name: "test", summary: "Stages for tests", stages: [TestCrop.self, TestHalf.self, TestEveryType.self])
    public static var registry: Registry { Registry(plugins: [Registry.core, plugin]) }
    public static var compiler: PipelineCompiler { PipelineCompiler(registry: registry) }
}
