/// The kinds of value a stage parameter takes, each with its text syntax and its limits.
public enum ParameterType: Hashable, Sendable {
    case integer(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    /// `WxH` (or `N` for `NxN`), each side from 1 to the given maximum.
    case size(max: Int)
    /// `x,y`, any finite numbers.
    case point
    /// `center`, `top-left` … `bottom-right`, unit `0.5,1.5` or pixels `120px,40px`.
    case anchor
    /// `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, a CSS name or `transparent`.
    case color
    /// `30deg`, `0.5rad` or a bare number of degrees, within the given range of degrees.
    case angle(ClosedRange<Double>)
    /// `50%` (or a bare `50`), within the given range of percent.
    case percentage(ClosedRange<Double>)
    case choice([String])
    /// `true` or `false`.
    case boolean
    case string
    /// A file path; not empty.
    case path
    /// Comma-separated numbers (`4,4`): how many, and the range of each.
    case numbers(count: ClosedRange<Int>, each: ClosedRange<Double>)
    /// `WxH`, `Wx`, `xH`, `50%`, `50%x25%`: a resize target (see `ResizeSize`), pixel sides
    /// from 1 to the given maximum.
    case resizeSize(max: Int)
    /// An anchor, `attention` or `entropy` (see `CropPosition`).
    case position
    /// `X,Y,WxH` in pixels or percentages (see `CropRect`), pixel values up to the given maximum.
    case cropRect(max: Int)

    /// The words a choice or a boolean takes; nil for other types.
    public var words: [String]? {
        switch self {
        case let .choice(options): options
        case .boolean: ["true", "false"]
        default: nil
        }
    }

    /// The type's name for machines (`imagepipe stages --json`).
    public var kind: String {
        switch self {
        case .integer: "integer"
        case .number: "number"
        case .size: "size"
        case .point: "point"
        case .anchor: "anchor"
        case .color: "color"
        case .angle: "angle"
        case .percentage: "percentage"
        case .choice: "choice"
        case .boolean: "boolean"
        case .string: "string"
        case .path: "path"
        case .numbers: "numbers"
        case .resizeSize: "resize-size"
        case .position: "position"
        case .cropRect: "crop-rect"
        }
    }

    /// The allowed range of a numeric type (each side of a size, degrees of an angle), if any.
    public var range: ClosedRange<Double>? {
        switch self {
        case let .integer(range): Double(range.lowerBound)...Double(range.upperBound)
        case let .number(range), let .angle(range), let .percentage(range): range
        case let .size(max), let .resizeSize(max): 1...Double(max)
        case let .cropRect(max): 0...Double(max)
        case let .numbers(_, each): each
        default: nil
        }
    }

    /// What usage lines show for a value of this type: `WxH`, `x,y`, `N`, …
    public var placeholder: String {
        switch self {
        case .integer: "N"
        case .number: "X"
        case .size: "WxH"
        case .point: "x,y"
        case .anchor: "ANCHOR"
        case .color: "COLOR"
        case .angle: "ANGLE"
        case .percentage: "P%"
        case let .choice(options): options.joined(separator: "|")
        case .boolean: "true|false"
        case .string: "TEXT"
        case .path: "PATH"
        case .numbers: "X,Y,…"
        case .resizeSize: "[W]x[H]"
        case .position: "POSITION"
        case .cropRect: "[X,Y,]WxH"
        }
    }

    /// A short name for help and errors: `integer 0…100`, `size WxH`, …
    public var summary: String {
        switch self {
        case let .integer(range): "integer \(range.lowerBound)…\(range.upperBound)"
        case let .number(range): "number \(Self.text(range))"
        case let .size(max): "size WxH (1…\(max) each)"
        case .point: "point x,y"
        case .anchor: "anchor (center, top-left … bottom-right, unit x,y, or Xpx,Ypx)"
        case .color: "color (#rgb, #rgba, #rrggbb, #rrggbbaa, CSS name, transparent)"
        case let .angle(range): "angle (30deg, 0.5rad, bare = degrees) \(Self.text(range))deg"
        case let .percentage(range): "percentage \(Self.text(range))%"
        case let .choice(options): "one of " + options.joined(separator: ", ")
        case .boolean: "true or false"
        case .string: "text"
        case .path: "file path"
        case let .numbers(count, each):
            "\(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound)…\(count.upperBound)") comma-separated numbers \(Self.text(each))"
        case let .resizeSize(max): "resize size WxH, Wx, xH or percentages 50%, 50%x25% (pixel sides 1…\(max))"
        case .position: "position (an anchor, attention or entropy)"
        case let .cropRect(max): "rectangle X,Y,WxH or size WxH in pixels (0…\(max)) or percentages (10%,10%,50%x50%)"
        }
    }

    /// `1 to 64`, `-3600deg to 3600deg`: how errors give a range, in words (summaries use `1…64`).
    private static func range(_ range: ClosedRange<Double>, unit: String) -> String {
        "\(NumberFormat.text(range.lowerBound))\(unit) to \(NumberFormat.text(range.upperBound))\(unit)"
    }

    private static func text(_ range: ClosedRange<Double>) -> String {
        "\(NumberFormat.text(range.lowerBound))…\(NumberFormat.text(range.upperBound))"
    }

    /// Converts argument text to a value, or throws a reason that says what is allowed.
    public func parse(_ text: String) throws(ValueError) -> Value {
        switch self {
        case let .integer(range):
            guard let value = Int(text) else { throw ValueError(DecimalNumber.hint(for: text) ?? "expected an integer") }
            guard range.contains(value) else { throw ValueError("must be from \(range.lowerBound) to \(range.upperBound)") }
            return .integer(value)
        case let .number(range):
            return .number(try Self.number(text, in: range))
        case let .size(max):
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let width = Int(parts[0]), let height = Int(parts.last!) else {
                throw ValueError("expected a size WxH, like 1280x720")
            }
            guard (1...max).contains(width), (1...max).contains(height) else {
                throw ValueError("each side must be from 1 to \(max)")
            }
            return .size(Size(width, height))
        case .point:
            let (x, y) = try Self.pair(text, expecting: "a point x,y, like 10,20")
            return .point(Point(x, y))
        case .anchor:
            return .anchor(try Self.anchor(text))
        case .color:
            guard let color = Color(parsing: text) else {
                throw ValueError("expected a color: #rgb, #rgba, #rrggbb, #rrggbbaa, a CSS name or transparent")
            }
            return .color(color)
        case let .angle(range):
            var number = Substring(text)
            var perUnit = 1.0
            if number.hasSuffix("deg") {
                number = number.dropLast(3)
            } else if number.hasSuffix("rad") {
                number = number.dropLast(3)
                perUnit = 180 / .pi
            }
            guard let value = DecimalNumber.parse(number), value.isFinite else {
                throw ValueError(DecimalNumber.hint(for: number) ?? "expected an angle like 30deg, 0.5rad or 30")
            }
            let degrees = value * perUnit
            guard range.contains(degrees) else { throw ValueError("must be from \(Self.range(range, unit: "deg"))") }
            return .angle(Angle(degrees: degrees))
        case let .percentage(range):
            let number = text.hasSuffix("%") ? String(text.dropLast()) : text
            return .percentage(try Self.number(number, in: range, unit: "%"))
        case let .choice(options):
            guard options.contains(text) else { throw ValueError("expected one of " + options.joined(separator: ", ")) }
            return .choice(text)
        case .boolean:
            switch text {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: throw ValueError("expected true or false")
            }
        case .string:
            return .string(text)
        case .path:
            guard !text.isEmpty else { throw ValueError("expected a file path") }
            return .string(text)
        case let .numbers(count, each):
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard count.contains(parts.count) else {
                throw ValueError("expected \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)") comma-separated numbers")
            }
            var numbers: [Double] = []
            for part in parts { numbers.append(try Self.number(String(part), in: each)) }
            return .numbers(numbers)
        case let .resizeSize(max):
            return .resizeSize(try ResizeSize(parsing: text, max: max))
        case .position:
            switch text {
            case "attention": return .position(.attention)
            case "entropy": return .position(.entropy)
            default:
                do { return .position(.anchor(try Self.anchor(text))) } catch {
                    throw ValueError("expected a position: attention, entropy, or \(error.reason.dropFirst("expected ".count))")
                }
            }
        case let .cropRect(max):
            return .cropRect(try CropRect(parsing: text, max: max))
        }
    }

    /// The canonical text of a value of this type; `parse` reads it back to the same value.
    public func format(_ value: Value) -> String {
        switch value {
        case let .integer(number): String(number)
        case let .number(number): NumberFormat.text(number)
        case let .size(size): size.description
        case let .point(point): point.description
        case let .anchor(anchor): anchor.description
        case let .color(color): color.description
        case let .angle(angle): angle.description
        case let .percentage(percent): "\(NumberFormat.text(percent))%"
        case let .choice(text), let .string(text): text
        case let .boolean(flag): flag ? "true" : "false"
        case let .numbers(numbers): numbers.map(NumberFormat.text).joined(separator: ",")
        case let .resizeSize(size): size.description
        case let .position(position): position.description
        case let .cropRect(rect): rect.description
        }
    }

    private static func number(_ text: String, in range: ClosedRange<Double>, unit: String = "") throws(ValueError) -> Double {
        guard let value = DecimalNumber.parse(text), value.isFinite else { throw ValueError(DecimalNumber.hint(for: text) ?? "expected a finite number") }
        guard range.contains(value) else { throw ValueError("must be from \(Self.range(range, unit: unit))") }
        return value
    }

    private static func pair(_ text: String, expecting: String) throws(ValueError) -> (Double, Double) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = DecimalNumber.parse(parts[0]), let y = DecimalNumber.parse(parts[1]), x.isFinite, y.isFinite else {
            throw ValueError("expected \(expecting)")
        }
        return (x, y)
    }

    private static func anchor(_ text: String) throws(ValueError) -> Anchor {
        if let name = Anchor.name(for: text), let named = Anchor.named.first(where: { $0.name == name }) { return .unit(x: named.x, y: named.y) }
        let expecting = "an anchor: center, top-left … bottom-right (or north … southwest), unit x,y (0.5,1.5) or pixels Xpx,Ypx"
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0].hasSuffix("px"), parts[1].hasSuffix("px") {
            let (x, y) = try pair("\(parts[0].dropLast(2)),\(parts[1].dropLast(2))", expecting: expecting)
            return .pixels(x: x, y: y)
        }
        let (x, y) = try pair(text, expecting: expecting)
        return .unit(x: x, y: y)
    }
}
