import ImagePipeCore

/// `stretch`: auto levels, each of red, green and blue stretched so that its darkest value in the
/// picture becomes 0 and its brightest 255. No row can be made before every row has been seen, so
/// the stage surveys: a streamed run first shows it the picture strip by strip (`ChannelRange`,
/// its survey), then streams the picture again through the point stage the survey made.
public struct StretchStage: Transform, DeclaredStage, SurveyingStage {
    public static let declaration = StageDeclaration("stretch", summary: "Stretch each color to the full range (auto levels)", example: "stretch",
                                                     start: StretchStage(), [])

    public init() {}

    /// The picture's darkest and brightest values, once surveyed (the stage is then a point stage).
    var range: ChannelRange?

    public func outputSize(for input: Size) -> Size { input }

    public var stageClass: StageClass { range == nil ? .whole : .point }
    public var surveyedClass: StageClass { .point }
    public func newSurvey() -> ChannelRange { ChannelRange() }

    public func surveyed(by survey: ChannelRange) -> any Transform {
        var stage = self
        stage.range = survey
        return stage
    }

    /// Before a survey (a whole stage, given the whole picture) it surveys the picture itself;
    /// after, each strip is stretched on its own.
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let strip = input.pixels
        guard let range else {
            var range = ChannelRange()
            try range.look(at: strip, at: input.position)
            return try surveyed(by: range).makeRows(rows, from: input)
        }
        // A table per channel: value → stretched value (a flat channel is left as it is).
        let tables = (0..<3).map { c in
            let low = Int(range.low[c]), span = Int(range.high[c]) - low
            return (0...255).map { value in span <= 0 ? UInt8(value) : UInt8(clamping: ((value - low) * 255 + span / 2) / span) }
        }
        let channels = strip.channelCount
        return try Image.make(size: strip.size, hasAlpha: strip.hasAlpha) { writer in
            for y in 0..<strip.height {
                let source = strip.row(y), target = writer.row(y)
                for i in source.indices { target[i] = i % channels < 3 ? tables[i % channels][Int(source[i])] : source[i] }
            }
        }
    }
}

/// What `stretch` learns from the picture: the lowest and highest value of each color.
public struct ChannelRange: PixelSurvey, Sendable, Equatable {
    public var low: [UInt8] = [255, 255, 255]
    public var high: [UInt8] = [0, 0, 0]

    public init() {}

    public mutating func look(at rows: Image, at position: StripPosition) throws {
        let channels = rows.channelCount
        for y in 0..<rows.height {
            let row = rows.row(y)
            for i in row.indices where i % channels < 3 {
                low[i % channels] = min(low[i % channels], row[i])
                high[i % channels] = max(high[i % channels], row[i])
            }
        }
    }
}
