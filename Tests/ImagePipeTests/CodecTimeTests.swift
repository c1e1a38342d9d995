import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `RunContext.codecTime`: the processor time a run spent decoding and encoding, in the streamed
/// run (the decoder on a thread of its own) and the ordinary one alike, with the stages' work
/// left out of the encoding even where the encoder's thread makes the rows.
@Suite struct CodecTimeTests {
    /// A 1600x1200 JPEG with detail everywhere (a few milliseconds to decode).
    static func photo(in directory: TemporaryDirectory) throws -> String {
        let picture = try Synthetic.image(1600, 1200) { x, y in
            Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5 + x) % 256))
        }
        return try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: "in.jpg")
    }

    /// The codec time of `stages` then a JPEG save, streamed or the ordinary way
    /// (`RunContext.wholePictures`).
    static func codecTime(_ stages: [any Transform], input: String, streamed: Bool, in directory: TemporaryDirectory) throws -> CodecTime {
        var context = RunContext(input: input, output: directory.file("out.jpg"))
        let time = CodecTime()
        context.codecTime = time
        context.wholePictures = !streamed
        let pipeline = Pipeline(transforms: stages, sink: Save(options: SaveOptions(quality: 80)))
        try pipeline.run(in: context)
        return time
    }

    @Test(arguments: [true, false]) func bothCodecsAreCounted(streamed: Bool) throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory)
        let time = try Self.codecTime([], input: input, streamed: streamed, in: directory)
        #expect(time.decoding > 0.001 && time.decoding < 5, "decoding \(time.decoding) s")
        #expect(time.encoding > 0.001 && time.encoding < 5, "encoding \(time.encoding) s")
    }

    /// A slow stage in front of the encoder (a wide area stage: the streamed run's encoder then
    /// pulls the stages on its own thread) leaves the encoding's time as it was.
    @Test(arguments: [true, false]) func theStagesAreNotTheEncoders(streamed: Bool) throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory)
        let plain = try Self.codecTime([], input: input, streamed: streamed, in: directory)
        let clock = ContinuousClock(), start = clock.now
        let blurred = try Self.codecTime([StripBox(radius: 12)], input: input, streamed: streamed, in: directory)
        let seconds = (clock.now - start) / .seconds(1)
        // The stage takes most of the run; the encoding stays the plain run's, give or take.
        #expect(seconds > 4 * (plain.decoding + plain.encoding), "the run took \(seconds) s: the stage is not slow enough to tell")
        #expect(blurred.encoding < 3 * plain.encoding + 0.01, "encoding \(blurred.encoding) s after the stage, \(plain.encoding) s without")
    }
}
