import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `RunContext.streamAboveBytes`: where other pictures keep every core busy (a batch's jobs, the
/// service's workers), a picture whose ordinary run holds little runs on one thread, not
/// streamed, and a larger one still streams; the bytes are the same either way, and the memory
/// a budget reserves is what the run taken holds.
@Suite struct BusyCoresTests {
    static func jpeg(_ width: Int, _ height: Int, in directory: TemporaryDirectory, name: String) throws -> String {
        let picture = try Synthetic.image(width, height) { x, y in
            Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5 + x / 3) % 256))
        }
        return try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: name)
    }

    @Test func aSmallPictureRunsOnOneThreadALargeOneStreams() throws {
        let directory = try TemporaryDirectory()
        let pipeline = Pipeline(sink: Save(options: SaveOptions(quality: 85)))
        // 600x400: its ordinary run holds about 3 MB of pictures. 2400x2000 (19.2 MB decoded
        // and twice that encoding, at the estimate's 4 bytes a pixel): more than 48 MiB.
        for (size, streamsWhenBusy) in [(Size(600, 400), false), (Size(2400, 2000), true)] {
            let input = try Self.jpeg(size.width, size.height, in: directory, name: "\(size.width).jpg")
            var context = RunContext(input: input, output: directory.file("alone-\(size.width).jpg"))
            let prepared = try pipeline.prepare(in: context)
            #expect(pipeline.streams(in: context, prepared: prepared), "\(size) alone")
            try pipeline.run(in: context)
            let alone = try Data(contentsOf: URL(fileURLWithPath: context.output!))

            context.streamAboveBytes = RunContext.busyCoresStreamAbove
            context.output = directory.file("busy-\(size.width).jpg")
            #expect(pipeline.streams(in: context, prepared: prepared) == streamsWhenBusy, "\(size) on busy cores")
            if !streamsWhenBusy {
                #expect(pipeline.estimatedPeakBytes(in: context, prepared: prepared) == prepared.plan.estimatedPeakBytes())
            }
            try pipeline.run(in: context)
            #expect(try Data(contentsOf: URL(fileURLWithPath: context.output!)) == alone, "\(size): the same bytes")
        }
    }
}
