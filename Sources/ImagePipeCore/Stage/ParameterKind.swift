/// A parameter type tied to the Swift type its values have: `.number(1...64)` is a
/// `ParameterKind<Double>`, `.size(max:)` a `ParameterKind<Size>`.
///
/// Each kind exists only for its own Swift type (the factories live in constrained extensions),
/// so a declaration that binds an `Int` property to `.number(…)`, or a `Double` to `.integer(…)`,
/// does not compile; and the conversion between the Swift value and the schema's `Value` is
/// written here once, not in every stage.
public struct ParameterKind<T>: Sendable {
    /// The untyped type the schema (and the JSON of run-time plugins) knows.
    public let type: ParameterType
    let value: @Sendable (T) -> Value
    let read: @Sendable (Value) -> T?

    /// A kind with its own conversions; for a Swift type the stock factories do not cover.
    public init(_ type: ParameterType, value: @escaping @Sendable (T) -> Value, read: @escaping @Sendable (Value) -> T?) {
        self.type = type
        self.value = value
        self.read = read
    }
}

extension ParameterKind where T == Int {
    public static func integer(_ range: ClosedRange<Int>) -> Self {
        Self(.integer(range), value: Value.integer) { if case let .integer(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == Double {
    public static func number(_ range: ClosedRange<Double>) -> Self {
        Self(.number(range), value: Value.number) { if case let .number(v) = $0 { v } else { nil } }
    }

    /// In percent: `50%` is 50.
    public static func percentage(_ range: ClosedRange<Double>) -> Self {
        Self(.percentage(range), value: Value.percentage) { if case let .percentage(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == Size {
    public static func size(max: Int) -> Self {
        Self(.size(max: max), value: Value.size) { if case let .size(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == Point {
    public static var point: Self { Self(.point, value: Value.point) { if case let .point(v) = $0 { v } else { nil } } }
}

extension ParameterKind where T == Anchor {
    public static var anchor: Self { Self(.anchor, value: Value.anchor) { if case let .anchor(v) = $0 { v } else { nil } } }
}

extension ParameterKind where T == Color {
    public static var color: Self { Self(.color, value: Value.color) { if case let .color(v) = $0 { v } else { nil } } }
}

extension ParameterKind where T == Angle {
    public static func angle(_ degrees: ClosedRange<Double>) -> Self {
        Self(.angle(degrees), value: Value.angle) { if case let .angle(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == Bool {
    public static var boolean: Self { Self(.boolean, value: Value.boolean) { if case let .boolean(v) = $0 { v } else { nil } } }
}

extension ParameterKind where T == String {
    public static var string: Self { Self(.string, value: Value.string) { if case let .string(v) = $0 { v } else { nil } } }
    /// A file path; not empty.
    public static var path: Self { Self(.path, value: Value.string) { if case let .string(v) = $0 { v } else { nil } } }

    public static func choice(_ options: [String]) -> Self {
        Self(.choice(options), value: Value.choice) { if case let .choice(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == [Double] {
    public static func numbers(count: ClosedRange<Int>, each: ClosedRange<Double>) -> Self {
        Self(.numbers(count: count, each: each), value: Value.numbers) { if case let .numbers(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == ResizeSize {
    public static func resizeSize(max: Int) -> Self {
        Self(.resizeSize(max: max), value: Value.resizeSize) { if case let .resizeSize(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T == CropPosition {
    public static var position: Self { Self(.position, value: Value.position) { if case let .position(v) = $0 { v } else { nil } } }
}

extension ParameterKind where T == CropRect {
    public static func cropRect(max: Int) -> Self {
        Self(.cropRect(max: max), value: Value.cropRect) { if case let .cropRect(v) = $0 { v } else { nil } }
    }
}

extension ParameterKind where T: Equatable & Sendable {
    /// A choice whose words stand for Swift values, in the order written:
    /// `.choice(["same": false, "expand": true])` is a `ParameterKind<Bool>`.
    public static func choice(_ options: KeyValuePairs<String, T>) -> Self {
        choice(options.map { ($0.key, $0.value) })
    }

    /// A choice whose words stand for Swift values, in this order; for lists made in code.
    public static func choice(_ options: [(word: String, value: T)]) -> Self {
        let words = options.map(\.word)
        guard Set(words).count == words.count else { fatalError("a choice names a word twice: \(words)") } // its message kept in -O
        let pairs = options.map { ($0.word, $0.value) }
        return Self(.choice(words), value: { value in
            guard let word = pairs.first(where: { $0.1 == value })?.0 else {
                fatalError("\(value) is none of the choices \(words)")
            }
            return .choice(word)
        }, read: { value in
            guard case let .choice(word) = value else { return nil }
            return pairs.first { $0.0 == word }?.1
        })
    }
}

extension ParameterKind where T: CaseIterable & RawRepresentable & Sendable, T.RawValue == String {
    /// A choice of an enum's cases, by their raw values in declaration order:
    /// `.choice(ImageFormat.self)` is a `ParameterKind<ImageFormat>`.
    public static func choice(_ type: T.Type) -> Self {
        Self(.choice(T.allCases.map(\.rawValue)), value: { .choice($0.rawValue) }) { value in
            if case let .choice(word) = value { T(rawValue: word) } else { nil }
        }
    }
}
